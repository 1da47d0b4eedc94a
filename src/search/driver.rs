//! Iterative deepening on every thread (lazy SMP), reporting from the main thread, and the choice
//! of the move to play.

use super::time::TimeManager;
use super::tt::TranspositionTable;
use super::worker::{MATE_IN_MAX_PLY, MAX_PLY, RootMove, VALUE_INFINITE, VALUE_MATE, Worker};
use super::{Limits, Outcome, PvInfo, Report, Score, ScoreBound, SearchControl, SearchOptions};
use crate::eval::Evaluator;
use crate::shogi::{EnteringKingRule, Move, MoveList, Position, legal_moves, movegen};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one thread ends with.
struct ThreadResult {
    depth: i32,
    root_moves: Vec<RootMove>,
}

pub fn to_score(v: i32) -> Score {
    if v >= MATE_IN_MAX_PLY {
        Score::Mate(VALUE_MATE - v)
    } else if v <= -MATE_IN_MAX_PLY {
        Score::Mate(-(VALUE_MATE + v))
    } else {
        Score::Cp(v)
    }
}

#[allow(clippy::too_many_arguments)]
pub fn think(
    pos: &Position,
    limits: &Limits,
    opts: &SearchOptions,
    tt: &TranspositionTable,
    control: &SearchControl,
    evaluator: &Evaluator,
    report: &mut (dyn FnMut(Report) + Send),
) -> Outcome {
    let start = limits.start.unwrap_or_else(Instant::now);
    let outcome = decide(pos, limits, opts, tt, control, evaluator, report, start);
    // In ponder and infinite mode the answer waits for `stop` or `ponderhit`.
    while control.pondering.load(Ordering::SeqCst) && !control.stopped() {
        std::thread::sleep(Duration::from_millis(1));
    }
    outcome
}

fn root_move_list(pos: &Position, limits: &Limits) -> Vec<RootMove> {
    let moves: Vec<Move> = if limits.searchmoves.is_empty() {
        let mut list = MoveList::new();
        movegen::search_moves(pos, &mut list);
        list.to_vec()
    } else {
        let legal = legal_moves(pos);
        limits
            .searchmoves
            .iter()
            .copied()
            .filter(|m| legal.contains(m))
            .collect()
    };
    moves
        .into_iter()
        .map(|mv| RootMove {
            mv,
            score: -VALUE_INFINITE,
            prev_score: -VALUE_INFINITE,
            sel_depth: 0,
            pv: vec![mv],
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn decide(
    pos: &Position,
    limits: &Limits,
    opts: &SearchOptions,
    tt: &TranspositionTable,
    control: &SearchControl,
    evaluator: &Evaluator,
    report: &mut (dyn FnMut(Report) + Send),
    start: Instant,
) -> Outcome {
    if pos.can_declare_win(opts.entering_king_rule) {
        report(Report::Text("entering-king declaration".into()));
        return Outcome::Win;
    }
    if opts.entering_king_rule == EnteringKingRule::Try
        && let Some(m) = pos.try_move()
    {
        report(Report::Text("try rule: king reaches the try square".into()));
        return Outcome::Move {
            best: m,
            ponder: None,
        };
    }
    let root_moves = root_move_list(pos, limits);
    if root_moves.is_empty() {
        return Outcome::Resign;
    }

    let threads = opts.threads.max(1);
    let counters: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let max_depth = {
        let mut d = MAX_PLY as i32 - 10;
        if let Some(l) = limits.depth {
            d = d.min(l.max(1) as i32);
        }
        if opts.depth_limit > 0 {
            d = d.min(opts.depth_limit as i32);
        }
        d
    };
    let node_limit = match (limits.nodes, opts.nodes_limit) {
        (Some(a), b) if b > 0 => a.min(b),
        (Some(a), _) => a,
        (None, b) => b,
    };
    let time = limits
        .clock
        .as_ref()
        .map(|c| TimeManager::new(c, &opts.time, pos.game_ply(), start));
    if !control.pondering.load(Ordering::SeqCst) {
        control.set_deadline(time.as_ref().map(TimeManager::deadline));
    }

    let results: Vec<ThreadResult> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for id in 1..threads {
            let (pos, rm, counters) = (pos.clone(), root_moves.clone(), &counters);
            let builder = std::thread::Builder::new().stack_size(64 << 20);
            let spawned = builder.spawn_scoped(s, move || {
                let mut w = Worker::new(pos, rm, tt, control, opts, counters, id, start, evaluator);
                iterate(&mut w, max_depth, limits, opts, &mut |_| {}, tt, start);
                ThreadResult {
                    depth: w.completed_depth,
                    root_moves: w.root_moves,
                }
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => log::warn!("could not start search thread {id}: {e}"),
            }
        }
        let mut main = Worker::new(
            pos.clone(),
            root_moves.clone(),
            tt,
            control,
            opts,
            &counters,
            0,
            start,
            evaluator,
        );
        main.time = time;
        main.node_limit = node_limit;
        iterate(&mut main, max_depth, limits, opts, report, tt, start);
        // The main thread finished on its own (depth limit, mate, single move): in ponder or
        // infinite mode it holds its answer until told, then the helpers stop with it.
        while control.pondering.load(Ordering::SeqCst) && !control.stopped() {
            std::thread::sleep(Duration::from_millis(1));
        }
        control.stop();
        let mut all = vec![ThreadResult {
            depth: main.completed_depth,
            root_moves: main.root_moves,
        }];
        for h in handles {
            if let Ok(r) = h.join() {
                all.push(r);
            }
        }
        all
    });

    let best = pick_best(&results);
    let rm = &best.root_moves[0];
    let resign = !limits.infinite
        && !opts.consideration_mode
        && rm.score > -VALUE_INFINITE
        && rm.score <= -opts.resign_value;
    if resign {
        return Outcome::Resign;
    }
    let ponder = rm
        .pv
        .get(1)
        .copied()
        .or_else(|| ponder_from_tt(pos, rm.mv, tt));
    Outcome::Move {
        best: rm.mv,
        ponder,
    }
}

/// The thread whose result to trust: deeper completed iterations win unless their score is worse;
/// a shorter proven mate always wins.
fn pick_best(results: &[ThreadResult]) -> &ThreadResult {
    let mut best = &results[0];
    for r in &results[1..] {
        let (bs, rs) = (best.root_moves[0].score, r.root_moves[0].score);
        if r.depth == 0 {
            continue;
        }
        if (r.depth > best.depth && rs >= bs)
            || (rs >= MATE_IN_MAX_PLY && rs > bs)
            || best.depth == 0
        {
            best = r;
        }
    }
    best
}

fn ponder_from_tt(pos: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut p = pos.clone();
    p.do_move(best);
    let m = tt.probe(p.key())?.mv;
    (!m.is_none() && p.is_legal(m)).then_some(m)
}

fn iterate(
    w: &mut Worker,
    max_depth: i32,
    limits: &Limits,
    opts: &SearchOptions,
    report: &mut (dyn FnMut(Report) + Send),
    tt: &TranspositionTable,
    start: Instant,
) {
    let multipv = opts.multipv.clamp(1, w.root_moves.len());
    let single = w.root_moves.len() == 1;
    let mut last_best = Move::NONE;
    let mut last_score = 0;
    let mut depth = 0;
    while depth < max_depth {
        depth += 1;
        // Helpers skip some depths so the threads spread over different iterations.
        if w.id > 0 && depth > 1 && (depth + w.id as i32) % 4 == 0 {
            continue;
        }
        for rm in &mut w.root_moves {
            rm.prev_score = rm.score;
        }
        if w.id == 0 {
            w.best_move_changes *= 0.5;
        }
        for pv_idx in 0..multipv {
            w.set_pv_idx(pv_idx);
            let completed = w.aspiration(depth, &mut |w, d, alpha, beta| {
                if w.id == 0 && start.elapsed() > Duration::from_millis(2000) {
                    emit_pv(w, d, alpha, beta, 1, tt, start, report, pv_idx);
                }
            });
            if !completed {
                break;
            }
            w.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        }
        if w.control.stopped() {
            // A partial iteration still improves the first move when it was searched.
            break;
        }
        w.completed_depth = depth;
        if w.id != 0 {
            continue;
        }
        for i in 0..multipv {
            emit_pv(
                w,
                depth,
                -VALUE_INFINITE,
                VALUE_INFINITE,
                multipv,
                tt,
                start,
                report,
                i,
            );
        }

        let best = w.root_moves[0].mv;
        let score = w.root_moves[0].score;
        if w.control.pondering.load(Ordering::Relaxed) || limits.infinite {
            last_best = best;
            last_score = score;
            continue;
        }
        // A proven mate needs no deeper search.
        if score.abs() >= MATE_IN_MAX_PLY && depth >= 2 * (VALUE_MATE - score.abs()) + 2 {
            break;
        }
        if let Some(tm) = &w.time {
            let drop = if last_best.is_none() {
                0
            } else {
                last_score - score
            };
            if tm.should_stop_after_iteration(start.elapsed(), w.best_move_changes, drop, single) {
                break;
            }
        }
        last_best = best;
        last_score = score;
    }
    w.node_counters_publish();
}

#[allow(clippy::too_many_arguments)]
fn emit_pv(
    w: &Worker,
    depth: i32,
    alpha: i32,
    beta: i32,
    multipv: usize,
    tt: &TranspositionTable,
    start: Instant,
    report: &mut (dyn FnMut(Report) + Send),
    idx: usize,
) {
    let rm = &w.root_moves[idx];
    let searched = rm.score != -VALUE_INFINITE;
    let (v, d) = if searched {
        (rm.score, depth)
    } else {
        (rm.prev_score, (depth - 1).max(1))
    };
    if v == -VALUE_INFINITE {
        return;
    }
    let bound = if v >= beta {
        ScoreBound::Lower
    } else if v <= alpha {
        ScoreBound::Upper
    } else {
        ScoreBound::Exact
    };
    let nodes = w.total_nodes();
    let ms = start.elapsed().as_millis() as u64;
    report(Report::Pv(PvInfo {
        depth: d as u32,
        seldepth: rm.sel_depth.max(d as usize) as u32,
        multipv: if multipv > 1 { idx as u32 + 1 } else { 0 },
        score: to_score(v),
        bound,
        nodes,
        nps: nodes * 1000 / ms.max(1),
        time_ms: ms,
        hashfull: tt.hashfull(),
        pv: rm.pv.clone(),
    }));
}

impl Worker<'_> {
    fn node_counters_publish(&self) {
        self.publish_nodes();
    }
}
