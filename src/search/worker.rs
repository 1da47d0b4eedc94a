//! One search thread: principal-variation alpha-beta with quiescence, run by iterative deepening.

use super::history::{Histories, PieceTo, stat_bonus};
use super::main_thread::MainDuties;
use super::movepick::{Kind, MovePicker, OrderContext};
use super::tt::{Bound, TranspositionTable, TtEntry};
use super::{SearchControl, SearchOptions};
use crate::game::{Color, Repetition};
use crate::game::{EvalStack, Game, GameMove};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

mod qsearch;
mod results;

pub const VALUE_MATE: i32 = 32000;
pub const VALUE_INFINITE: i32 = 32001;
pub const VALUE_NONE: i32 = 32002;
pub const MAX_PLY: usize = 240;
pub const MATE_IN_MAX_PLY: i32 = VALUE_MATE - MAX_PLY as i32;
/// Repeating a board while holding more pieces: not a mate, but as good as a large material gain.
pub const VALUE_SUPERIOR: i32 = 3000;
/// How far back repetitions are looked for inside the tree.
const REPETITION_PLIES: usize = 32;

#[inline]
pub fn mate_in(ply: usize) -> i32 {
    VALUE_MATE - ply as i32
}

#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -VALUE_MATE + ply as i32
}

/// Mate scores are stored relative to the node, not the root, so that they stay true when the
/// same position is reached at another ply.
fn value_to_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_IN_MAX_PLY {
        v + ply as i32
    } else if v <= -MATE_IN_MAX_PLY {
        v - ply as i32
    } else {
        v
    }
}

fn value_from_tt(v: i32, ply: usize) -> i32 {
    if v == VALUE_NONE {
        VALUE_NONE
    } else if v >= MATE_IN_MAX_PLY {
        v - ply as i32
    } else if v <= -MATE_IN_MAX_PLY {
        v + ply as i32
    } else {
        v
    }
}

/// Whether a stored result settles a node searched to `depth` with window (alpha, beta).
#[inline]
fn cuts_off<M>(e: TtEntry<M>, value: i32, depth: i32, alpha: i32, beta: i32) -> bool {
    e.depth >= depth
        && value != VALUE_NONE
        && match e.bound {
            Bound::Exact => true,
            Bound::Lower => value >= beta,
            Bound::Upper => value <= alpha,
            Bound::None => false,
        }
}

#[derive(Clone, Debug)]
pub struct RootMove<M> {
    pub mv: M,
    pub score: i32,
    pub prev_score: i32,
    pub sel_depth: usize,
    pub pv: Vec<M>,
}

impl<M> RootMove<M> {
    /// The move's latest score: this iteration's when it was searched in it, the last
    /// iteration's otherwise (a move left unsearched by a stopped iteration, or one that did not
    /// raise alpha). `-VALUE_INFINITE` when it has none.
    pub fn latest_score(&self) -> i32 {
        if self.score != -VALUE_INFINITE {
            self.score
        } else {
            self.prev_score
        }
    }
}

#[derive(Clone, Default)]
struct Frame<M> {
    pv: Vec<M>,
    killers: [M; 2],
    static_eval: i32,
    piece_to: Option<PieceTo>,
    current: M,
}

/// Called with the worker, the depth and the window after an aspiration search failed high or low.
pub type BoundReport<'r, 'a, G> = dyn FnMut(&Worker<'a, G>, i32, i32, i32) + 'r;

pub struct Worker<'a, G: Game> {
    pub pos: G,
    tt: &'a TranspositionTable,
    pub control: &'a SearchControl,
    opts: &'a SearchOptions,
    /// The evaluation's incremental state along the current line, one entry per ply.
    eval: G::EvalStack,
    node_counters: &'a [AtomicU64],
    pub id: usize,
    pub hist: Box<Histories<G>>,
    stack: Vec<Frame<G::Move>>,
    pub root_moves: Vec<RootMove<G::Move>>,
    pv_idx: usize,
    sel_depth: usize,
    pub completed_depth: i32,
    pub nodes: u64,
    root_color: Color,
    reductions: Vec<i32>,
    pub start: Instant,
    /// The main thread's clock and limits; `None` on helper threads.
    pub main: Option<MainDuties>,
    /// Limits and the clock are checked when the node count has these bits clear: every 1,024
    /// nodes, every 64 under a small node limit (a weakened level's budget).
    pub check_mask: u64,
}

impl<'a, G: Game> Worker<'a, G> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        pos: G,
        root_moves: Vec<RootMove<G::Move>>,
        tt: &'a TranspositionTable,
        control: &'a SearchControl,
        opts: &'a SearchOptions,
        node_counters: &'a [AtomicU64],
        id: usize,
        start: Instant,
        evaluator: &G::Evaluator,
        hist: Box<Histories<G>>,
    ) -> Worker<'a, G> {
        let mut reductions = vec![0; 256];
        for (i, r) in reductions.iter_mut().enumerate().skip(1) {
            *r = (f64::from(opts.params.lmr_scale) * (i as f64).ln()) as i32;
        }
        let root_color = pos.side_to_move();
        let stack = vec![Frame::default(); MAX_PLY + 8];
        let eval = G::EvalStack::new(evaluator, &pos, MAX_PLY + 8);
        Worker {
            pos,
            tt,
            control,
            opts,
            eval,
            node_counters,
            id,
            hist,
            stack,
            root_moves,
            pv_idx: 0,
            sel_depth: 0,
            completed_depth: 0,
            nodes: 0,
            root_color,
            reductions,
            start,
            main: None,
            check_mask: 1023,
        }
    }

    #[inline]
    fn reduction(&self, improving: bool, depth: i32, move_count: usize) -> i32 {
        let p = &self.opts.params;
        let r =
            self.reductions[depth.clamp(0, 255) as usize] * self.reductions[move_count.min(255)];
        (r + p.lmr_base) / 1000 + i32::from(!improving && r > p.lmr_not_improving)
    }

    fn draw_value(&self) -> i32 {
        let v = match self.root_color {
            Color::Black => self.opts.draw_value_black,
            Color::White => self.opts.draw_value_white,
        };
        if self.pos.side_to_move() == self.root_color {
            v
        } else {
            -v
        }
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & self.check_mask == 0 {
            self.node_counters[self.id].store(self.nodes, Ordering::Relaxed);
            match &mut self.main {
                Some(main) => main.check_limits(
                    self.control,
                    self.opts,
                    self.pos.game_ply(),
                    self.node_counters,
                ),
                None => self.control.check_deadline(),
            }
        }
    }

    /// One iteration at `depth` for the current `pv_idx`, with an aspiration window around the
    /// previous score. Returns false when the search was stopped.
    pub fn aspiration(&mut self, depth: i32, report: &mut BoundReport<'_, 'a, G>) -> bool {
        let prev = self.root_moves[self.pv_idx].prev_score;
        let p = &self.opts.params;
        let mut delta = p.asp_delta + prev.abs() / p.asp_score_div;
        let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < MATE_IN_MAX_PLY {
            (
                (prev - delta).max(-VALUE_INFINITE),
                (prev + delta).min(VALUE_INFINITE),
            )
        } else {
            (-VALUE_INFINITE, VALUE_INFINITE)
        };
        loop {
            self.sel_depth = 0;
            let v = self.search::<true>(alpha, beta, depth, 0, false);
            let from = self.pv_idx;
            self.root_moves[from..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.control.stopped() {
                return false;
            }
            if v <= alpha {
                report(self, depth, alpha, beta);
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-VALUE_INFINITE);
            } else if v >= beta {
                report(self, depth, alpha, beta);
                beta = (v + delta).min(VALUE_INFINITE);
            } else {
                return true;
            }
            delta += delta / 2 + 5;
        }
    }

    pub fn set_pv_idx(&mut self, i: usize) {
        self.pv_idx = i;
    }

    /// Plays `m` at `ply` and carries the incremental part of the evaluation to `ply + 1`.
    #[inline]
    fn make_move(&mut self, m: G::Move, gives_check: bool, ply: usize) {
        self.pos.do_move_with_check(m, gives_check);
        self.eval.push(ply, &self.pos);
    }

    /// Static evaluation of the position at `ply`, from the side to move's point of view.
    #[inline]
    fn evaluate(&self, ply: usize) -> i32 {
        self.eval.evaluate(ply, &self.pos)
    }

    /// The uncorrected static evaluation at `ply`: the one the hash entry `tte` stored, if any.
    #[inline]
    fn raw_eval(&self, tte: Option<TtEntry<G::Move>>, ply: usize) -> i32 {
        match tte {
            Some(e) if e.eval != VALUE_NONE => e.eval,
            _ => self.evaluate(ply),
        }
    }

    /// The static evaluation with the correction history's adjustment, kept clear of mate scores.
    #[inline]
    fn corrected(&self, raw: i32, keys: Option<[u64; 2]>) -> i32 {
        match keys {
            Some(k) => {
                let bound = MATE_IN_MAX_PLY - 1;
                (raw + self.hist.correction(self.pos.side_to_move(), k)).clamp(-bound, bound)
            }
            None => raw,
        }
    }

    pub fn sel_depth(&self) -> usize {
        self.sel_depth
    }

    fn search<const PV: bool>(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        let root = ply == 0;
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply, 0);
        }
        if PV {
            self.stack[ply].pv.clear();
            self.sel_depth = self.sel_depth.max(ply + 1);
        }
        self.count_node();
        let in_check = self.pos.in_check();

        if !root {
            if self.control.stopped() {
                return 0;
            }
            match self.pos.repetition(REPETITION_PLIES) {
                Repetition::None => {}
                Repetition::Draw => return self.draw_value(),
                Repetition::Win => return mate_in(ply),
                Repetition::Loss => return mated_in(ply),
                Repetition::Superior => return VALUE_SUPERIOR,
                Repetition::Inferior => return -VALUE_SUPERIOR,
            }
            if self.opts.max_moves_to_draw > 0 && self.pos.game_ply() > self.opts.max_moves_to_draw
            {
                return self.draw_value();
            }
            if ply >= MAX_PLY {
                return if in_check { 0 } else { self.evaluate(ply) };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
            if self.pos.can_declare_win(self.opts.entering_king_rule) {
                return mate_in(ply + 1);
            }
        }

        let key = self.pos.key();
        let tte = self.tt.probe(key);
        let tt_value = tte.map_or(VALUE_NONE, |e| value_from_tt(e.value, ply));
        let tt_move = if root {
            self.root_moves[self.pv_idx].mv
        } else {
            tte.map_or(G::Move::NONE, |e| e.mv)
        };
        if !PV && tte.is_some_and(|e| cuts_off(e, tt_value, depth, alpha, beta)) {
            return tt_value;
        }

        // The table keeps the evaluation as computed (`raw_eval`); the search works with it
        // corrected by what similar positions' searches found it to be off by.
        let static_eval;
        let raw_eval;
        let mut eval;
        let corr_keys = self.pos.correction_keys();
        if in_check {
            static_eval = VALUE_NONE;
            raw_eval = VALUE_NONE;
            eval = VALUE_NONE;
        } else {
            raw_eval = self.raw_eval(tte, ply);
            static_eval = self.corrected(raw_eval, corr_keys);
            eval = static_eval;
            if tt_value != VALUE_NONE {
                let better = if tt_value > eval {
                    Bound::Lower
                } else {
                    Bound::Upper
                };
                if tte.is_some_and(|e| e.bound == better || e.bound == Bound::Exact) {
                    eval = tt_value;
                }
            }
            if tte.is_none() {
                self.tt.store(
                    key,
                    TtEntry {
                        mv: G::Move::NONE,
                        value: VALUE_NONE,
                        eval: raw_eval,
                        depth: -7,
                        bound: Bound::None,
                    },
                );
            }
        }
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check && ply >= 2 && {
            let prev = self.stack[ply - 2].static_eval;
            prev == VALUE_NONE || static_eval > prev
        };

        if !root
            && !in_check
            && let Some(m) = self.pos.mate_in_one()
        {
            return self.mate_in_one_found::<PV>(key, m, ply, raw_eval, depth.min(100));
        }

        // Through the options' own reference, so the parameters are neither copied per node
        // nor borrowed from `self` across the recursive calls below.
        let opts = self.opts;
        let p = &opts.params;
        if !PV && !in_check {
            if depth <= 2 && eval + p.razor_base + p.razor_depth * depth < alpha {
                let v = self.qsearch::<false>(alpha - 1, alpha, ply, 0);
                if v < alpha {
                    return v;
                }
            }
            if depth < p.rfp_max_depth
                && eval - p.rfp_margin * (depth - i32::from(improving)) >= beta
                && eval < MATE_IN_MAX_PLY
            {
                return eval;
            }
            let last = self.pos.last_move();
            if depth >= 2
                && eval >= beta
                && static_eval >= beta - p.nmp_depth * depth + p.nmp_base
                && !last.is_none()
                && beta > -MATE_IN_MAX_PLY
            {
                let r = 3 + depth / 3 + ((eval - beta) / p.nmp_eval_div).min(3);
                self.stack[ply].current = G::Move::NONE;
                self.stack[ply].piece_to = None;
                self.pos.do_null_move();
                self.eval.push(ply, &self.pos);
                let v = -self.search::<false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
                self.pos.undo_null_move();
                if self.control.stopped() {
                    return 0;
                }
                if v >= beta {
                    return if v >= MATE_IN_MAX_PLY { beta } else { v };
                }
            }
        }

        // Internal iterative reduction: a PV or expected cut node that the table knows no move
        // for is searched a ply shallower; its move ordering is poor, and the next iteration
        // finds the node again with the move this one stores.
        if (PV || cut_node) && depth >= p.iir_min_depth && tt_move.is_none() {
            depth -= 1;
        }

        let cont = [
            if ply >= 1 {
                self.stack[ply - 1].piece_to
            } else {
                None
            },
            if ply >= 2 {
                self.stack[ply - 2].piece_to
            } else {
                None
            },
            if ply >= 4 {
                self.stack[ply - 4].piece_to
            } else {
                None
            },
        ];
        let counter = cont[0].map_or(G::Move::NONE, |p| self.hist.counter[p]);
        let ctx = OrderContext {
            killers: self.stack[ply].killers,
            counter,
            cont,
        };
        let mut picker = MovePicker::new(&self.pos, tt_move, Kind::Main, in_check);
        self.stack[ply + 1].killers = [G::Move::NONE; 2];

        let us = self.pos.side_to_move();
        let mut best_value = -VALUE_INFINITE;
        let mut best_move = G::Move::NONE;
        let mut move_count = 0usize;
        let mut quiets_tried: arrayvec::ArrayVec<G::Move, 64> = arrayvec::ArrayVec::new();
        let mut captures_tried: arrayvec::ArrayVec<G::Move, 32> = arrayvec::ArrayVec::new();
        let original_alpha = alpha;

        let check_info = self.pos.check_info();
        while let Some(m) = picker.next_move(&self.pos, &self.hist, &ctx) {
            if root && !self.root_moves[self.pv_idx..].iter().any(|rm| rm.mv == m) {
                continue;
            }
            move_count += 1;
            if root && self.main.is_some() {
                self.control.note_root_move(m);
            }
            let capture = self.pos.is_capture(m);
            let quiet = !capture && !m.is_promotion();
            let gives_check = self.pos.gives_check_with(&check_info, m);

            if !root && best_value > -MATE_IN_MAX_PLY {
                let lmr_depth = (depth - 1 - self.reduction(improving, depth, move_count)).max(0);
                if quiet && !gives_check {
                    if move_count >= (3 + (depth * depth) as usize) / (2 - usize::from(improving)) {
                        continue;
                    }
                    if !in_check
                        && lmr_depth < p.fut_max_depth
                        && static_eval + p.fut_base + p.fut_depth * lmr_depth <= alpha
                    {
                        continue;
                    }
                    if !self.pos.see_ge(m, -p.see_quiet * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else if depth < 7 && !self.pos.see_ge(m, -p.see_tactical * depth) {
                    continue;
                }
            }

            let extension = i32::from(
                gives_check
                    && (ply as i32) < 2 * self.completed_depth.max(4)
                    && self.pos.see_ge(m, 0),
            );
            let new_depth = depth - 1 + extension;
            let pt = self.pos.piece_to(m);
            self.stack[ply].current = m;
            self.stack[ply].piece_to = Some(pt);
            self.make_move(m, gives_check, ply);

            let mut value;
            if depth >= 2 && move_count > 1 + usize::from(root) && (quiet || cut_node) {
                let mut r = self.reduction(improving, depth, move_count);
                if !PV {
                    r += 1;
                }
                if cut_node {
                    r += 1;
                }
                if quiet {
                    let h = self.hist.butterfly(us, m)
                        + self.hist.continuation(cont[0], pt)
                        + self.hist.continuation(cont[1], pt);
                    r -= h / p.lmr_history_div;
                }
                if gives_check {
                    r -= 1;
                }
                let d = (new_depth - r.max(0)).clamp(1, new_depth.max(1));
                value = -self.search::<false>(-(alpha + 1), -alpha, d, ply + 1, true);
                if value > alpha && d < new_depth {
                    value =
                        -self.search::<false>(-(alpha + 1), -alpha, new_depth, ply + 1, !cut_node);
                }
            } else if !PV || move_count > 1 {
                value = -self.search::<false>(-(alpha + 1), -alpha, new_depth, ply + 1, !cut_node);
            } else {
                value = alpha + 1; // forces the full-window search below for the first move
            }
            // Only a full-window search leaves the child's line in `stack[ply + 1].pv`; after a
            // null-window fail high that slot still holds an earlier move's line.
            let child_pv_fresh =
                PV && (move_count == 1 || (value > alpha && (root || value < beta)));
            if child_pv_fresh {
                value = -self.search::<true>(-beta, -alpha, new_depth, ply + 1, false);
            }
            self.pos.undo_move();
            if self.control.stopped() {
                return 0;
            }

            if root {
                let child_pv = self.stack[1].pv.clone();
                let sel = self.sel_depth;
                if let Some(rm) = self.root_moves.iter_mut().find(|rm| rm.mv == m) {
                    if move_count == 1 || value > alpha {
                        rm.score = value;
                        rm.sel_depth = sel;
                        rm.pv.clear();
                        rm.pv.push(m);
                        rm.pv.extend(child_pv);
                        if move_count > 1
                            && let Some(main) = &mut self.main
                        {
                            main.best_move_changes += 1.0;
                        }
                    } else {
                        rm.score = -VALUE_INFINITE;
                    }
                }
            }

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = m;
                    if PV && !root {
                        let (head, tail) = self.stack.split_at_mut(ply + 1);
                        let pv = &mut head[ply].pv;
                        pv.clear();
                        pv.push(m);
                        if child_pv_fresh {
                            pv.extend_from_slice(&tail[0].pv);
                        }
                    }
                    if value >= beta {
                        break;
                    }
                    alpha = value;
                }
            }
            if m != best_move {
                if quiet {
                    if quiets_tried.len() < 64 {
                        quiets_tried.push(m);
                    }
                } else if captures_tried.len() < 32 {
                    captures_tried.push(m);
                }
            }
        }

        if move_count == 0 {
            // No legal move: checkmate, or the rare stalemate, which also loses.
            return mated_in(ply);
        }

        if best_value >= beta && !best_move.is_none() {
            self.update_stats(best_move, depth, ply, &quiets_tried, &captures_tried, cont);
        }

        // A quiet result (no capture or promotion decided it) that the bound allows to differ
        // from the static evaluation: the difference is the evaluation's error here.
        if let Some(keys) = corr_keys
            && !in_check
            && (best_move.is_none()
                || !(self.pos.is_capture(best_move) || best_move.is_promotion()))
            && !(best_value >= beta && best_value <= static_eval)
            && !(best_move.is_none() && best_value >= static_eval)
            && best_value.abs() < MATE_IN_MAX_PLY
        {
            let us = self.pos.side_to_move();
            self.hist
                .update_correction(us, keys, best_value - static_eval, depth);
        }

        self.store_result::<PV>(
            key,
            ply,
            depth,
            best_move,
            best_value,
            raw_eval,
            (original_alpha, beta),
        );
        best_value
    }

    pub fn publish_nodes(&self) {
        self.node_counters[self.id].store(self.nodes, Ordering::Relaxed);
    }

    /// Nodes of all threads, as last published.
    pub fn total_nodes(&self) -> u64 {
        self.publish_nodes();
        self.node_counters
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum()
    }
}
