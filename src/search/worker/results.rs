//! What a node leaves behind when it is done: the move-ordering statistics of a cut-off and
//! its hash-table entry. Split from the node search itself (`super`), which calls them.

use super::*;

impl<G: Game> Worker<'_, G> {
    pub(super) fn update_stats(
        &mut self,
        best: G::Move,
        depth: i32,
        ply: usize,
        quiets: &[G::Move],
        captures: &[G::Move],
        cont: [Option<PieceTo>; 3],
    ) {
        let us = self.pos.side_to_move();
        let bonus = stat_bonus(&self.opts.params, depth);
        let best_pt = self.pos.piece_to(best);
        if self.pos.is_capture(best) || best.is_promotion() {
            let k = self.pos.captured_kind_index(best);
            self.hist.update_capture(best_pt, k, bonus);
        } else {
            let k = &mut self.stack[ply].killers;
            if k[0] != best {
                k[1] = k[0];
                k[0] = best;
            }
            if let Some(p) = cont[0] {
                self.hist.counter[p] = best;
            }
            self.hist.update_butterfly(us, best, bonus);
            for &c in &cont {
                self.hist.update_continuation(c, best_pt, bonus);
            }
            for &q in quiets {
                let qpt = self.pos.piece_to(q);
                self.hist.update_butterfly(us, q, -bonus);
                for &c in &cont {
                    self.hist.update_continuation(c, qpt, -bonus);
                }
            }
        }
        for &c in captures {
            let k = self.pos.captured_kind_index(c);
            self.hist.update_capture(self.pos.piece_to(c), k, -bonus);
        }
    }

    /// A mate in one `m` found at this node: stored as exact, the line's only move.
    pub(super) fn mate_in_one_found<const PV: bool>(
        &mut self,
        key: u64,
        m: G::Move,
        ply: usize,
        raw_eval: i32,
        depth: i32,
    ) -> i32 {
        let v = mate_in(ply + 1);
        self.tt.store(
            key,
            TtEntry {
                mv: m,
                value: value_to_tt(v, ply),
                eval: raw_eval,
                depth,
                bound: Bound::Exact,
            },
        );
        if PV {
            self.stack[ply].pv.clear();
            self.stack[ply].pv.push(m);
        }
        v
    }

    /// Stores a node's result: a lower bound on a cut-off, exact in a PV node that raised alpha,
    /// an upper bound otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_result<const PV: bool>(
        &self,
        key: u64,
        ply: usize,
        depth: i32,
        mv: G::Move,
        value: i32,
        eval: i32,
        (alpha, beta): (i32, i32),
    ) {
        let bound = if value >= beta {
            Bound::Lower
        } else if PV && value > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let value = value_to_tt(value, ply);
        self.tt.store(
            key,
            TtEntry {
                mv,
                value,
                eval,
                depth,
                bound,
            },
        );
    }
}
