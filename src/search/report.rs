//! What the search tells the user while it runs, and when: principal variations after each
//! iteration, spaced by `PvInterval`; fail-high/fail-low lines unless `OutputFailLHPV` is off;
//! a progress line about once a second when nothing else was said; and, before the answer, the
//! final variation, which always starts with the move played. In `ConsiderationMode` every
//! iteration is reported at once and each variation is extended from the hash table.
//!
//! Reports are shared by the main search thread and a progress timer, so every output goes
//! through one lock; the search threads never wait on it except to print.

use super::tt::TranspositionTable;
use super::{Progress, PvInfo, Report, SearchControl, SearchOptions};
use crate::game::Game;
use crate::game::GameMove;
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long the search may stay silent before a progress line is printed.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// Fail-high/fail-low lines only after this much thinking: early on they would only flood.
const BOUND_LINES_AFTER: Duration = Duration::from_millis(2000);
/// Longest variation built from the hash table in `ConsiderationMode`.
const MAX_EXTENDED_PV: usize = 64;

/// Which reports to send.
#[derive(Clone, Copy, Debug)]
struct Policy {
    /// Least time between two principal-variation reports; zero reports every iteration.
    pv_interval: Duration,
    /// Whether aspiration fail-high/fail-low lines are reported.
    bound_lines: bool,
    /// Whether each variation is extended from the hash table.
    extend_from_tt: bool,
    multipv: usize,
}

impl Policy {
    fn new(opts: &SearchOptions) -> Policy {
        let analysis = opts.consideration_mode;
        Policy {
            pv_interval: if analysis {
                Duration::ZERO
            } else {
                Duration::from_millis(opts.pv_interval_ms)
            },
            bound_lines: opts.output_fail_lh_pv && !analysis,
            extend_from_tt: analysis,
            multipv: opts.multipv.max(1),
        }
    }
}

struct State<M> {
    /// When the last principal variation was sent.
    last_pv: Option<Instant>,
    /// When anything was last sent.
    last_output: Instant,
    /// First move of the last `multipv 1` line sent, `NONE` before any.
    first_move: M,
    /// A completed iteration that was held back by `PvInterval`.
    pending: Option<Vec<PvInfo<M>>>,
}

pub struct Reporter<'r, M> {
    sink: Mutex<&'r mut (dyn FnMut(Report<M>) + Send)>,
    policy: Policy,
    state: Mutex<State<M>>,
    /// Depth of the iteration the main thread is in, for progress lines.
    depth: AtomicU32,
}

impl<'r, M: GameMove> Reporter<'r, M> {
    pub fn new(
        opts: &SearchOptions,
        sink: &'r mut (dyn FnMut(Report<M>) + Send),
    ) -> Reporter<'r, M> {
        Reporter {
            sink: Mutex::new(sink),
            policy: Policy::new(opts),
            state: Mutex::new(State {
                last_pv: None,
                last_output: Instant::now(),
                first_move: M::NONE,
                pending: None,
            }),
            depth: AtomicU32::new(0),
        }
    }

    fn send(&self, state: &mut State<M>, report: Report<M>) {
        if let Report::Pv(info) = &report
            && info.multipv <= 1
        {
            state.first_move = info.pv.first().copied().unwrap_or(M::NONE);
        }
        state.last_output = Instant::now();
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        (*sink)(report);
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<M>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn text(&self, text: impl Into<String>) {
        let mut state = self.state();
        self.send(&mut state, Report::Text(text.into()));
    }

    /// A line sent whatever the policy: the score at a root that needs no search.
    pub fn immediate(&self, info: PvInfo<M>) {
        let mut state = self.state();
        state.last_pv = Some(Instant::now());
        self.send(&mut state, Report::Pv(info));
    }

    pub fn set_depth(&self, depth: i32) {
        self.depth.store(depth.max(0) as u32, Ordering::Relaxed);
    }

    /// Whether a fail-high/fail-low line would be sent now; asked before building one.
    pub fn wants_bound_line(&self, elapsed: Duration) -> bool {
        self.policy.bound_lines
            && self.policy.multipv == 1
            && elapsed > BOUND_LINES_AFTER
            && self.interval_passed(&self.state())
    }

    pub fn bound_line(&self, info: PvInfo<M>) {
        let mut state = self.state();
        state.last_pv = Some(Instant::now());
        self.send(&mut state, Report::Pv(info));
    }

    fn interval_passed(&self, state: &State<M>) -> bool {
        state
            .last_pv
            .is_none_or(|at| at.elapsed() >= self.policy.pv_interval)
    }

    /// A completed iteration, one line per principal variation: sent now, or held back
    /// until the interval has passed (then the next iteration or the end sends it).
    pub fn iteration(&self, lines: Vec<PvInfo<M>>) {
        let mut state = self.state();
        if self.interval_passed(&state) {
            state.pending = None;
            state.last_pv = Some(Instant::now());
            for info in lines {
                self.send(&mut state, Report::Pv(info));
            }
        } else {
            state.pending = Some(lines);
        }
    }

    /// Sends an iteration held back by the interval: the main thread has finished, and a
    /// GUI must see its last result even while the answer waits for `stop`.
    pub fn flush(&self) {
        let mut state = self.state();
        if let Some(lines) = state.pending.take() {
            state.last_pv = Some(Instant::now());
            for info in lines {
                self.send(&mut state, Report::Pv(info));
            }
        }
    }

    /// The variations of the result that is played, sent unless the last line already
    /// started with the move played: after a partial iteration or when another thread's
    /// result is chosen, the last line shown would otherwise disagree with `bestmove`.
    pub fn final_lines(&self, lines: Vec<PvInfo<M>>) {
        self.flush();
        let mut state = self.state();
        let Some(first) = lines.first().and_then(|info| info.pv.first().copied()) else {
            return;
        };
        if first != state.first_move {
            state.last_pv = Some(Instant::now());
            for info in lines {
                self.send(&mut state, Report::Pv(info));
            }
        }
    }

    /// A progress line, when nothing was sent for [`PROGRESS_EVERY`].
    pub fn progress(
        &self,
        control: &SearchControl,
        nodes: u64,
        elapsed: Duration,
        hashfull: impl FnOnce() -> u32,
    ) {
        let mut state = self.state();
        if state.last_output.elapsed() < PROGRESS_EVERY {
            return;
        }
        let time_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        let report = Report::Progress {
            currmove: control.root_move(),
            progress: Progress {
                depth: self.depth.load(Ordering::Relaxed),
                nodes,
                nps: nodes.saturating_mul(1000) / time_ms.max(1),
                time_ms,
                hashfull: hashfull(),
            },
        };
        self.send(&mut state, report);
    }

    /// `pv` as reported: cut before any move that cannot be played there (a GUI replays the
    /// line on its board), and in `ConsiderationMode` extended by the hash table's moves.
    pub fn shown_pv<G: Game<Move = M>>(
        &self,
        pos: &G,
        pv: &[M],
        tt: &TranspositionTable,
    ) -> Vec<M> {
        if self.policy.extend_from_tt {
            extend_from_tt(pos, pv, tt)
        } else {
            legal_prefix(pos, pv)
        }
    }
}

/// The longest start of `pv` that can be played from `root`.
pub(crate) fn legal_prefix<G: Game>(root: &G, pv: &[G::Move]) -> Vec<G::Move> {
    let mut pos = root.clone();
    let mut line = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.is_legal_move(m) {
            log::debug!("variation cut at {m}, not legal in {}", pos.to_sfen());
            break;
        }
        pos.do_move(m);
        line.push(m);
    }
    line
}

/// `pv`, followed by the best moves the hash table holds for the positions after it, while
/// they are legal and the line does not repeat a position.
pub fn extend_from_tt<G: Game>(root: &G, pv: &[G::Move], tt: &TranspositionTable) -> Vec<G::Move> {
    let mut pos = root.clone();
    let mut seen = HashSet::new();
    seen.insert(pos.key());
    let mut line = Vec::with_capacity(MAX_EXTENDED_PV);
    for m in legal_prefix(root, pv) {
        pos.do_move(m);
        line.push(m);
        seen.insert(pos.key());
    }
    if line.len() < pv.len() {
        return line;
    }
    while line.len() < MAX_EXTENDED_PV {
        let Some(entry) = tt.probe::<G::Move>(pos.key()) else {
            break;
        };
        let m = entry.mv;
        if m.is_none() || !pos.is_legal_move(m) {
            break;
        }
        pos.do_move(m);
        line.push(m);
        if !seen.insert(pos.key()) {
            break;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::test_move::TestMove;
    use crate::search::{Score, ScoreBound};

    type PvInfo = super::PvInfo<TestMove>;
    type Report = super::Report<TestMove>;

    /// A variation whose first move is `first`.
    fn line(depth: u32, multipv: u32, first: u32) -> PvInfo {
        PvInfo {
            depth,
            seldepth: depth,
            multipv,
            score: Score::Cp(10),
            bound: ScoreBound::Exact,
            nodes: 0,
            nps: 0,
            time_ms: 0,
            hashfull: 0,
            pv: vec![TestMove(first)],
        }
    }

    /// (depth, multipv, first move) of each variation sent.
    fn sent(reports: &[Report]) -> Vec<(u32, u32, u32)> {
        reports
            .iter()
            .filter_map(|r| match r {
                Report::Pv(info) => Some((info.depth, info.multipv, info.pv[0].0)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_interval_holds_iterations_back_and_the_end_sends_the_last() {
        let mut reports = Vec::new();
        let mut sink = |r: Report| reports.push(r);
        let opts = SearchOptions {
            pv_interval_ms: 60_000,
            ..SearchOptions::default()
        };
        let reporter = Reporter::new(&opts, &mut sink);
        reporter.iteration(vec![line(1, 1, 1)]);
        reporter.iteration(vec![line(2, 1, 1)]);
        reporter.iteration(vec![line(3, 1, 2)]);
        // The played move agrees with the held-back iteration, which is sent, once.
        reporter.final_lines(vec![line(3, 1, 2)]);
        drop(reporter);
        assert_eq!(sent(&reports), [(1, 1, 1), (3, 1, 2)]);
    }

    #[test]
    fn the_final_line_is_repeated_only_when_it_differs() {
        let mut reports = Vec::new();
        let mut sink = |r: Report| reports.push(r);
        let opts = SearchOptions::default();
        let reporter = Reporter::new(&opts, &mut sink);
        reporter.iteration(vec![line(4, 1, 1), line(4, 2, 2)]);
        reporter.final_lines(vec![line(4, 1, 1), line(4, 2, 2)]);
        // A partial iteration found another move: both lines again, the played one first.
        reporter.final_lines(vec![line(5, 1, 3), line(4, 2, 1)]);
        drop(reporter);
        assert_eq!(sent(&reports), [(4, 1, 1), (4, 2, 2), (5, 1, 3), (4, 2, 1)]);
    }

    #[test]
    fn bound_lines_follow_the_options() {
        let mut sink = |_: Report| {};
        let late = BOUND_LINES_AFTER + Duration::from_millis(1);
        let wants = |opts: SearchOptions, elapsed| {
            let mut sink = |_: Report| {};
            Reporter::new(&opts, &mut sink).wants_bound_line(elapsed)
        };
        let base = SearchOptions::default();
        assert!(wants(base.clone(), late));
        assert!(!wants(base.clone(), Duration::from_millis(10)));
        let off = SearchOptions {
            output_fail_lh_pv: false,
            ..base.clone()
        };
        assert!(!wants(off, late));
        let analysis = SearchOptions {
            consideration_mode: true,
            ..base.clone()
        };
        assert!(!wants(analysis, late));
        let multipv = SearchOptions {
            multipv: 3,
            ..base.clone()
        };
        assert!(!wants(multipv, late));
        // A bound line is a variation too: the interval applies to it.
        let spaced = SearchOptions {
            pv_interval_ms: 60_000,
            ..base
        };
        let reporter = Reporter::new(&spaced, &mut sink);
        assert!(reporter.wants_bound_line(late));
        reporter.iteration(vec![line(1, 1, 1)]);
        assert!(!reporter.wants_bound_line(late));
    }
}
