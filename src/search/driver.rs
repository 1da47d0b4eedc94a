//! Iterative deepening on every thread (lazy SMP), reporting from the main thread, and the choice
//! of the move to play.

use super::history::Histories;
use super::main_thread::MainDuties;
use super::report::{PROGRESS_EVERY, Reporter};
use super::time::TimeManager;
use super::tt::TranspositionTable;
use super::worker::{MATE_IN_MAX_PLY, MAX_PLY, RootMove, VALUE_INFINITE, VALUE_MATE, Worker};
use super::{Limits, Outcome, PvInfo, Report, Score, ScoreBound, SearchControl, SearchOptions};
use crate::game::{Game, GameMove, MoveList, from_reported_cp, to_reported_cp};
use crossbeam_channel::RecvTimeoutError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one thread ends with.
struct ThreadResult<M> {
    depth: i32,
    root_moves: Vec<RootMove<M>>,
}

/// Each search thread's move-ordering and correction statistics, kept from one search to the
/// next: the positions of one game's successive moves share most of what was learnt. Thread `i`
/// takes entry `i`; missing entries start empty.
pub type HistoryPool<G> = Vec<Box<Histories<G>>>;

pub fn to_score(v: i32) -> Score {
    if v >= MATE_IN_MAX_PLY {
        Score::Mate(VALUE_MATE - v)
    } else if v <= -MATE_IN_MAX_PLY {
        Score::Mate(-(VALUE_MATE + v))
    } else {
        Score::Cp(v)
    }
}

/// A score as the user sees it: centipawns on the GUI scale, mates as they are. What
/// `ResignValue` is compared with.
fn reported_value(v: i32) -> i32 {
    if v.abs() >= MATE_IN_MAX_PLY {
        v
    } else {
        to_reported_cp(v)
    }
}

/// The options as the search threads read them: the draw values the user gave in reported
/// centipawns, in the evaluation's units.
fn internal_options(opts: &SearchOptions) -> SearchOptions {
    SearchOptions {
        draw_value_black: from_reported_cp(opts.draw_value_black),
        draw_value_white: from_reported_cp(opts.draw_value_white),
        ..opts.clone()
    }
}

fn root_move_list<G: Game>(pos: &G, limits: &Limits<G::Move>) -> Vec<RootMove<G::Move>> {
    let moves: Vec<G::Move> = if limits.searchmoves.is_empty() {
        let mut list = MoveList::new();
        pos.search_moves(&mut list);
        list.to_vec()
    } else {
        let legal = pos.legal_moves();
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

/// The node limit of the one ply searched when a search is stopped before its first iteration
/// ends: a few milliseconds, past a deadline that has already come.
const RESCUE_NODES: u64 = 4_096;

/// The line for a root that needs no search: a declaration or try (`mate 1`), or no legal
/// move (`mate -0`, as `Score::Mate(0)`).
fn settled_line<M>(
    depth: u32,
    score: Score,
    pv: Vec<M>,
    tt: &TranspositionTable,
    start: Instant,
) -> PvInfo<M> {
    PvInfo {
        depth,
        seldepth: depth,
        multipv: 1,
        score,
        bound: ScoreBound::Exact,
        nodes: 0,
        nps: 0,
        time_ms: start.elapsed().as_millis() as u64,
        hashfull: tt.hashfull(),
        pv,
    }
}

/// The answer at a root that needs no search: a declaration, a try, or no move to search
/// (reported as `mate -0` where there is no legal move at all).
fn unsearched_answer<G: Game>(
    pos: &G,
    root_moves: &[RootMove<G::Move>],
    opts: &SearchOptions,
    tt: &TranspositionTable,
    reporter: &Reporter<G::Move>,
    start: Instant,
) -> Option<Outcome<G::Move>> {
    if pos.can_declare_win(opts.entering_king_rule) {
        reporter.text("entering-king declaration");
        reporter.immediate(settled_line(1, Score::Mate(1), Vec::new(), tt, start));
        return Some(Outcome::Win);
    }
    if let Some(m) = pos.try_move(opts.entering_king_rule) {
        reporter.text("try rule: king reaches the try square");
        reporter.immediate(settled_line(1, Score::Mate(1), vec![m], tt, start));
        return Some(Outcome::Move {
            best: m,
            ponder: None,
        });
    }
    if root_moves.is_empty() {
        if pos.legal_moves().is_empty() {
            reporter.immediate(settled_line(0, Score::Mate(0), Vec::new(), tt, start));
        }
        return Some(Outcome::Resign);
    }
    None
}

/// In ponder and infinite mode an answer waits for `stop` or `ponderhit`.
fn hold_while_pondering(control: &SearchControl) {
    while control.pondering.load(Ordering::SeqCst) && !control.stopped() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The move at `pos`: the answer without search where the root needs none, else what the
/// search threads find, reported through `report` as they go.
#[allow(clippy::too_many_arguments)]
pub fn think<G: Game>(
    pos: &G,
    limits: &Limits<G::Move>,
    opts: &SearchOptions,
    tt: &TranspositionTable,
    control: &SearchControl,
    evaluator: &G::Evaluator,
    histories: &mut HistoryPool<G>,
    report: &mut (dyn FnMut(Report<G::Move>) + Send),
) -> Outcome<G::Move> {
    let start = limits.start.unwrap_or_else(Instant::now);
    let opts = &internal_options(opts);
    let reporter = &Reporter::new(opts, report);
    let root_moves = root_move_list(pos, limits);
    if let Some(outcome) = unsearched_answer(pos, &root_moves, opts, tt, reporter, start) {
        hold_while_pondering(control);
        return outcome;
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
    // A weakened level plays analysis and `go infinite` at full strength.
    let skill = opts
        .skill
        .filter(|_| !limits.infinite && !opts.consideration_mode);
    let node_limit = match (limits.nodes, opts.nodes_limit) {
        (Some(a), b) if b > 0 => a.min(b),
        (Some(a), _) => a,
        (None, b) => b,
    };
    let node_limit = match skill {
        Some(s) if node_limit > 0 => node_limit.min(s.nodes()),
        Some(s) => s.nodes(),
        None => node_limit,
    };
    let time = limits
        .clock
        .as_ref()
        .map(|c| TimeManager::new(c, &opts.time, pos.game_ply(), start));
    if !control.pondering.load(Ordering::SeqCst) {
        control.set_deadline(time.as_ref().map(TimeManager::deadline));
    }
    // How long a weakened level holds its answer: a moment, never past the planned time.
    let hold = skill.filter(|s| s.holds()).map(|_| {
        let planned = time.as_ref().map_or(Duration::MAX, TimeManager::optimum);
        Duration::from_millis(super::skill::HOLD_MS).min(planned)
    });

    // Tables beyond the thread count (fewer threads than last time) are dropped with the rest.
    let mut handed_out = std::mem::take(histories).into_iter();
    let main_hist = handed_out.next().unwrap_or_else(Histories::new);
    let (results, kept): (Vec<ThreadResult<G::Move>>, HistoryPool<G>) = std::thread::scope(|s| {
        // Progress lines while the main thread iterates; the channel closes when it is done.
        let (main_running, main_done) = crossbeam_channel::bounded::<()>(0);
        let progress = move |counters: &[AtomicU64]| loop {
            match main_done.recv_timeout(PROGRESS_EVERY) {
                Err(RecvTimeoutError::Timeout) => {
                    let nodes = counters.iter().map(|n| n.load(Ordering::Relaxed)).sum();
                    reporter.progress(control, nodes, start.elapsed(), || tt.hashfull());
                }
                _ => return,
            }
        };
        let counters_ref = &counters;
        if let Err(e) = std::thread::Builder::new()
            .name("search-progress".into())
            .spawn_scoped(s, move || progress(counters_ref))
        {
            log::warn!("no progress reports: {e}");
        }
        let mut handles = Vec::new();
        for id in 1..threads {
            let (pos, rm, counters) = (pos.clone(), root_moves.clone(), &counters);
            let hist = handed_out.next().unwrap_or_else(Histories::new);
            let builder = std::thread::Builder::new().stack_size(64 << 20);
            let spawned = builder.spawn_scoped(s, move || {
                let mut w = Worker::new(
                    pos, rm, tt, control, opts, counters, id, start, evaluator, hist,
                );
                iterate(&mut w, max_depth, limits, opts, None, tt, start);
                let result = ThreadResult {
                    depth: w.completed_depth,
                    root_moves: w.root_moves,
                };
                (result, w.hist)
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
            main_hist,
        );
        if node_limit > 0 && node_limit < 65_536 {
            main.check_mask = 63;
        }
        main.main = Some(MainDuties {
            time,
            node_limit,
            best_move_changes: 0.0,
        });
        iterate(
            &mut main,
            max_depth,
            limits,
            opts,
            Some(reporter),
            tt,
            start,
        );
        drop(main_running);
        reporter.flush();
        // The main thread finished on its own (depth limit, mate, single move): it holds its
        // answer until told, then the helpers stop with it.
        hold_while_pondering(control);
        control.halt();
        let mut all = vec![ThreadResult {
            depth: main.completed_depth,
            root_moves: main.root_moves,
        }];
        let mut kept = vec![main.hist];
        for h in handles {
            if let Ok((r, hist)) = h.join() {
                all.push(r);
                kept.push(hist);
            }
        }
        (all, kept)
    });
    *histories = kept;

    let mut best = pick_best(&results);
    // Stopped before any iteration ended (a `stop` right after `go`, or a first ply too big for
    // the clock): one more ply, so that the answer is a searched move and comes with its score.
    // It usually takes a few hundred nodes, but in a position whose quiescence search runs
    // through long chains of checks and interposed drops it took 1.5 M (1.9 s past a byoyomi of
    // 100 ms), so it has a node limit of its own; where that ends it too, the answer is the
    // first root move, as without it.
    let rescued;
    let rescue_counter = [AtomicU64::new(0)];
    if best.depth == 0 {
        let fresh = SearchControl::default();
        let mut w = Worker::new(
            pos.clone(),
            root_moves.clone(),
            tt,
            &fresh,
            opts,
            &rescue_counter,
            0,
            start,
            evaluator,
            Histories::new(),
        );
        w.check_mask = 63;
        w.main = Some(MainDuties {
            node_limit: RESCUE_NODES,
            ..MainDuties::default()
        });
        iterate(&mut w, 1, limits, opts, Some(reporter), tt, start);
        w.publish_nodes();
        if w.completed_depth > 0 {
            rescued = ThreadResult {
                depth: w.completed_depth,
                root_moves: w.root_moves,
            };
            best = &rescued;
        }
    }
    let rm = &best.root_moves[0];
    let resign = !limits.infinite
        && !opts.consideration_mode
        && rm.score > -VALUE_INFINITE
        && reported_value(rm.score) <= -opts.resign_value;
    if resign {
        return Outcome::Resign;
    }
    let nodes: u64 = counters
        .iter()
        .chain(&rescue_counter)
        .map(|n| n.load(Ordering::Relaxed))
        .sum();
    let searched = opts.multipv.clamp(1, best.root_moves.len());
    let chosen = match skill {
        Some(skill) => skill.choose(&candidate_scores(&best.root_moves[..searched]), pos.key()),
        None => 0,
    };
    // Analysis shows the lines as searched; a move to play is first tested for a forced loss.
    let playing =
        !limits.infinite && !opts.consideration_mode && (skill.is_some() || searched == 1);
    let chosen = if playing {
        avoid_forced_loss(pos, &best.root_moves, chosen, nodes, reporter)
    } else {
        chosen
    };
    if skill.is_some() || chosen != 0 {
        // One line, reported as the only one, since it is what is played.
        let line = final_line(pos, best, chosen, nodes, tt, start, reporter).map(|mut info| {
            info.multipv = 1;
            info
        });
        reporter.final_lines(line.into_iter().collect());
    } else {
        let lines = (0..searched)
            .filter_map(|i| final_line(pos, best, i, nodes, tt, start, reporter))
            .collect();
        reporter.final_lines(lines);
    }
    if let Some(hold) = hold {
        while start.elapsed() < hold && !control.asked_to_stop() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let rm = &best.root_moves[chosen];
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

/// The solver's nodes for the safety test of the move to play, per search node: about 5 % of
/// the search's time (a solver node costs about three of the search's).
const SAFETY_NODES_PER_SEARCH_NODE: u64 = 64;
/// The fewest solver nodes the move to play is tested with: the short mates that the search
/// misses took under 600 in the recorded games.
const SAFETY_NODES_MIN: u64 = 1_000;
/// Once the move to play is shown to lose: the solver's nodes for the other moves, per search
/// node (about 20 % of the search's time, spent only then), and at least this many in all.
const RESCUE_NODES_PER_SEARCH_NODE: u64 = 16;
const RESCUE_NODES_MIN: u64 = 8_000;
/// The most solver nodes one other move is tested with, so that one hard case leaves nodes for
/// the rest.
const RESCUE_NODES_PER_MOVE: u64 = 2_000;

/// Root move `chosen`, or, when the game's solver shows that the opponent forces a win after
/// it, the best-scored root move that it shows does not lose (or else one it could not decide),
/// within budgets in proportion to the `nodes` searched. Where every move tried loses,
/// `chosen` stays.
fn avoid_forced_loss<G: Game>(
    pos: &G,
    root_moves: &[RootMove<G::Move>],
    chosen: usize,
    nodes: u64,
    reporter: &Reporter<G::Move>,
) -> usize {
    let first = root_moves[chosen].mv;
    let budget = (nodes / SAFETY_NODES_PER_SEARCH_NODE).max(SAFETY_NODES_MIN);
    if pos.forced_loss(first, budget).0 != Some(true) {
        return chosen;
    }
    let mut budget = (nodes / RESCUE_NODES_PER_SEARCH_NODE).max(RESCUE_NODES_MIN);
    let mut others: Vec<usize> = (0..root_moves.len()).filter(|&i| i != chosen).collect();
    others.sort_by_key(|&i| std::cmp::Reverse((root_moves[i].score, root_moves[i].prev_score)));
    let mut undecided = None;
    for i in others {
        if budget == 0 {
            break;
        }
        let (verdict, used) = pos.forced_loss(root_moves[i].mv, budget.min(RESCUE_NODES_PER_MOVE));
        budget = budget.saturating_sub(used);
        match verdict {
            Some(false) => {
                reporter.text(format!(
                    "{first} loses by force; playing {} instead",
                    root_moves[i].mv
                ));
                return i;
            }
            None if undecided.is_none() => undecided = Some(i),
            _ => {}
        }
    }
    match undecided {
        Some(i) => {
            reporter.text(format!(
                "{first} loses by force; playing {}, not shown to lose",
                root_moves[i].mv
            ));
            i
        }
        None => {
            reporter.text(format!("{first} loses by force; no other move found safe"));
            chosen
        }
    }
}

/// The thread whose result to trust: deeper completed iterations win unless their score is worse;
/// a shorter proven mate always wins.
fn pick_best<M>(results: &[ThreadResult<M>]) -> &ThreadResult<M> {
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

fn ponder_from_tt<G: Game>(pos: &G, best: G::Move, tt: &TranspositionTable) -> Option<G::Move> {
    let mut p = pos.clone();
    p.do_move(best);
    let m = tt.probe::<G::Move>(p.key())?.mv;
    (!m.is_none() && p.is_legal_move(m)).then_some(m)
}

/// Iterative deepening on one thread; only the main thread has a `reporter`.
fn iterate<G: Game>(
    w: &mut Worker<G>,
    max_depth: i32,
    limits: &Limits<G::Move>,
    opts: &SearchOptions,
    reporter: Option<&Reporter<G::Move>>,
    tt: &TranspositionTable,
    start: Instant,
) {
    let multipv = opts.multipv.clamp(1, w.root_moves.len());
    let single = w.root_moves.len() == 1;
    let mut last_best = G::Move::NONE;
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
        if let Some(main) = &mut w.main {
            main.best_move_changes *= 0.5;
        }
        if let Some(reporter) = reporter {
            reporter.set_depth(depth);
        }
        for pv_idx in 0..multipv {
            w.set_pv_idx(pv_idx);
            let completed = w.aspiration(depth, &mut |w, d, alpha, beta| {
                if let Some(reporter) = reporter
                    && reporter.wants_bound_line(start.elapsed())
                    && let Some(info) = pv_info(w, d, alpha, beta, tt, start, reporter, pv_idx)
                {
                    reporter.bound_line(info);
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
        let Some(reporter) = reporter else {
            continue;
        };
        let lines = (0..multipv)
            .filter_map(|i| {
                pv_info(
                    w,
                    depth,
                    -VALUE_INFINITE,
                    VALUE_INFINITE,
                    tt,
                    start,
                    reporter,
                    i,
                )
            })
            .collect();
        reporter.iteration(lines);

        let best = w.root_moves[0].mv;
        let score = w.root_moves[0].score;
        // A proven mate needs no deeper search. While pondering or in `go infinite` too, when
        // one line is asked for: the answer then waits for `stop`, instead of the search
        // repeating the same mate at every depth.
        let proven = score.abs() >= MATE_IN_MAX_PLY && depth >= 2 * (VALUE_MATE - score.abs()) + 2;
        if w.control.pondering.load(Ordering::Relaxed) || limits.infinite {
            if proven && multipv == 1 {
                break;
            }
            last_best = best;
            last_score = score;
            continue;
        }
        if proven {
            break;
        }
        if let Some(soft) = limits.soft_nodes
            && w.main.is_some()
            && w.total_nodes() >= soft
        {
            break;
        }
        if let Some(main) = &w.main
            && let Some(tm) = &main.time
        {
            let drop = if last_best.is_none() {
                0
            } else {
                last_score - score
            };
            if tm.should_stop_after_iteration(start.elapsed(), main.best_move_changes, drop, single)
            {
                break;
            }
        }
        last_best = best;
        last_score = score;
    }
    w.node_counters_publish();
}

/// The report of principal variation `idx` (0-based; reported 1-based) of the main thread at
/// `depth`, searched with window (`alpha`, `beta`); `None` when that move has no score yet.
#[allow(clippy::too_many_arguments)]
fn pv_info<G: Game>(
    w: &Worker<G>,
    depth: i32,
    alpha: i32,
    beta: i32,
    tt: &TranspositionTable,
    start: Instant,
    reporter: &Reporter<G::Move>,
    idx: usize,
) -> Option<PvInfo<G::Move>> {
    let rm = &w.root_moves[idx];
    let searched = rm.score != -VALUE_INFINITE;
    let (v, d) = if searched {
        (rm.score, depth)
    } else {
        (rm.prev_score, (depth - 1).max(1))
    };
    if v == -VALUE_INFINITE {
        return None;
    }
    let bound = if v >= beta {
        ScoreBound::Lower
    } else if v <= alpha {
        ScoreBound::Upper
    } else {
        ScoreBound::Exact
    };
    let nodes = w.total_nodes();
    Some(line(
        &w.pos, rm, d, v, bound, idx, nodes, tt, start, reporter,
    ))
}

/// The scores a weakened level chooses among: each line's latest, as reported. A line whose
/// score fell in the last iteration is scored by what that iteration found, not by the
/// higher score it had before: the refutation the search just saw must count.
fn candidate_scores<M>(lines: &[RootMove<M>]) -> Vec<i32> {
    lines.iter().map(RootMove::latest_score).collect()
}

/// The report of line `idx` of the result that is played, after the search.
fn final_line<G: Game>(
    pos: &G,
    result: &ThreadResult<G::Move>,
    idx: usize,
    nodes: u64,
    tt: &TranspositionTable,
    start: Instant,
    reporter: &Reporter<G::Move>,
) -> Option<PvInfo<G::Move>> {
    let rm = &result.root_moves[idx];
    let v = rm.latest_score();
    if v == -VALUE_INFINITE {
        return None;
    }
    let depth = result.depth.max(1);
    let exact = ScoreBound::Exact;
    Some(line(
        pos, rm, depth, v, exact, idx, nodes, tt, start, reporter,
    ))
}

#[allow(clippy::too_many_arguments)]
fn line<G: Game>(
    pos: &G,
    rm: &RootMove<G::Move>,
    depth: i32,
    v: i32,
    bound: ScoreBound,
    idx: usize,
    nodes: u64,
    tt: &TranspositionTable,
    start: Instant,
    reporter: &Reporter<G::Move>,
) -> PvInfo<G::Move> {
    let ms = start.elapsed().as_millis() as u64;
    PvInfo {
        depth: depth as u32,
        seldepth: rm.sel_depth.max(depth as usize) as u32,
        multipv: idx as u32 + 1,
        score: to_score(v),
        bound,
        nodes,
        nps: nodes * 1000 / ms.max(1),
        time_ms: ms,
        hashfull: tt.hashfull(),
        pv: reporter.shown_pv(pos, &rm.pv, tt),
    }
}

impl<G: Game> Worker<'_, G> {
    fn node_counters_publish(&self) {
        self.publish_nodes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_values_are_on_the_reported_scale() {
        let opts = SearchOptions {
            draw_value_black: 300,
            draw_value_white: -600,
            resign_value: 1000,
            ..SearchOptions::default()
        };
        let internal = internal_options(&opts);
        assert_eq!(
            (internal.draw_value_black, internal.draw_value_white),
            (from_reported_cp(300), from_reported_cp(-600))
        );
        assert_eq!(internal.draw_value_white, -1182);
        // `ResignValue` stays as given: the score is converted to it, not the other way.
        assert_eq!(internal.resign_value, 1000);
        assert_eq!(reported_value(-1182), -600);
        // Mates keep their magnitude, far beyond any centipawn value.
        assert_eq!(reported_value(-VALUE_MATE + 3), -VALUE_MATE + 3);
        assert_eq!(reported_value(MATE_IN_MAX_PLY), MATE_IN_MAX_PLY);
    }

    #[test]
    fn a_weakened_level_weighs_each_line_by_its_latest_score() {
        let line = |score, prev_score| RootMove {
            mv: 0u8,
            score,
            prev_score,
            sel_depth: 0,
            pv: Vec::new(),
        };
        // The best line at 50; the second fell from 60 to -400 in the last iteration; the
        // third was not searched again before the budget ran out.
        let lines = [line(50, 40), line(-400, 60), line(-VALUE_INFINITE, 30)];
        assert_eq!(candidate_scores(&lines), vec![50, -400, 30]);
    }
}
