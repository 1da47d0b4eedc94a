//! The quiescence search at the leaves of the main search (`super`): captures and promotions
//! (every reply when in check) until the position is quiet.

use super::*;

impl<G: Game> Worker<'_, G> {
    pub(super) fn qsearch<const PV: bool>(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        if PV {
            self.stack[ply].pv.clear();
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        self.count_node();
        let in_check = self.pos.in_check();
        if ply >= MAX_PLY {
            return if in_check { 0 } else { self.evaluate(ply) };
        }
        if self.control.stopped() {
            return 0;
        }
        let key = self.pos.key();
        let tte = self.tt.probe(key);
        let tt_value = tte.map_or(VALUE_NONE, |e| value_from_tt(e.value, ply));
        let tt_depth = if in_check || qdepth == 0 { 0 } else { -1 };
        if !PV && tte.is_some_and(|e| cuts_off(e, tt_value, tt_depth, alpha, beta)) {
            return tt_value;
        }
        let tt_move = tte.map_or(G::Move::NONE, |e| e.mv);
        let mut best_value;
        let static_eval;
        let raw_eval;
        if in_check {
            best_value = -VALUE_INFINITE;
            static_eval = VALUE_NONE;
            raw_eval = VALUE_NONE;
        } else {
            raw_eval = self.raw_eval(tte, ply);
            static_eval = self.corrected(raw_eval, self.pos.correction_keys());
            best_value = static_eval;
            if best_value >= beta {
                if tte.is_none() {
                    self.tt.store(
                        key,
                        TtEntry {
                            mv: G::Move::NONE,
                            value: value_to_tt(best_value, ply),
                            eval: raw_eval,
                            depth: -7,
                            bound: Bound::Lower,
                        },
                    );
                }
                return best_value;
            }
            // At the first quiescence ply a mate in one is worth looking for where standing pat
            // does not already settle the node: the captures-only search below cannot see a
            // quiet or dropped mate, and shogi's drops make them common.
            if qdepth == 0
                && let Some(m) = self.pos.mate_in_one()
            {
                return self.mate_in_one_found::<PV>(key, m, ply, raw_eval, 0);
            }
            alpha = alpha.max(best_value);
        }
        let ctx = OrderContext {
            killers: [G::Move::NONE; 2],
            counter: G::Move::NONE,
            cont: [None; 3],
        };
        let mut picker = MovePicker::new(&self.pos, tt_move, Kind::Tactical, in_check);
        let mut best_move = G::Move::NONE;
        let original_alpha = alpha;
        let mut move_count = 0;
        let check_info = self.pos.check_info();
        while let Some(m) = picker.next_move(&self.pos, &self.hist, &ctx) {
            move_count += 1;
            let gives_check = self.pos.gives_check_with(&check_info, m);
            if !in_check {
                if !gives_check && best_value > -MATE_IN_MAX_PLY {
                    let victim = self.pos.captured_value(m);
                    let promo = if m.is_promotion() { 400 } else { 0 };
                    if static_eval + victim + promo + self.opts.params.qs_futility <= alpha {
                        continue;
                    }
                }
                if !self.pos.see_ge(m, 0) {
                    continue;
                }
            }
            self.stack[ply].current = m;
            self.stack[ply].piece_to = Some(self.pos.piece_to(m));
            self.make_move(m, gives_check, ply);
            let v = -self.qsearch::<PV>(-beta, -alpha, ply + 1, qdepth - 1);
            self.pos.undo_move();
            if self.control.stopped() {
                return 0;
            }
            if v > best_value {
                best_value = v;
                if v > alpha {
                    best_move = m;
                    if PV {
                        let (head, tail) = self.stack.split_at_mut(ply + 1);
                        let pv = &mut head[ply].pv;
                        pv.clear();
                        pv.push(m);
                        pv.extend_from_slice(&tail[0].pv);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        self.store_result::<PV>(
            key,
            ply,
            tt_depth,
            best_move,
            best_value,
            raw_eval,
            (original_alpha, beta),
        );
        best_value
    }
}
