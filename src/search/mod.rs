//! Search: iterative deepening alpha-beta over the rules core, run on `Threads` threads that share
//! one transposition table (lazy SMP). The interface below is all the USI layer sees: limits and
//! options in, reports and an outcome out. The search knows nothing of protocol text.

mod driver;
pub(crate) mod history;
mod main_thread;
mod movepick;
pub mod params;
pub(crate) mod report;
pub mod skill;
#[cfg(test)]
mod test_move;
pub mod time;
pub mod tt;
pub mod worker;

use crate::game::{EnteringKingRule, Game, GameMove};
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use time::{Clock, TimeOptions};

/// Settings that come from USI options.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub threads: usize,
    pub multipv: usize,
    pub entering_king_rule: EnteringKingRule,
    /// Game ply at which the game is a draw; 0 = no limit.
    pub max_moves_to_draw: u32,
    /// What a draw is worth to the engine when it plays Black / White, in reported
    /// centipawns (the GUI scale, see `eval::REPORT_SCALE`).
    pub draw_value_black: i32,
    pub draw_value_white: i32,
    /// Resign when the reported score is at or below minus this value (and not in analysis).
    pub resign_value: i32,
    /// 0 = none.
    pub depth_limit: u32,
    /// 0 = none.
    pub nodes_limit: u64,
    pub time: TimeOptions,
    /// Analysis output: report every iteration at once, extend each variation from the hash
    /// table, no fail-high/fail-low lines, and never resign.
    pub consideration_mode: bool,
    /// Least milliseconds between two principal-variation reports (0: every iteration).
    pub pv_interval_ms: u64,
    /// Whether aspiration fail-high/fail-low lines (`lowerbound`/`upperbound`) are reported.
    pub output_fail_lh_pv: bool,
    /// Margins, reductions and history scales.
    pub params: params::Params,
    /// A strength below full: a node budget and a noisy choice among `multipv` lines, for
    /// searches that end by themselves (not `go infinite`, nor in analysis).
    pub skill: Option<skill::Skill>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            multipv: 1,
            entering_king_rule: EnteringKingRule::Csa27,
            max_moves_to_draw: 0,
            draw_value_black: 0,
            draw_value_white: 0,
            resign_value: 99999,
            depth_limit: 0,
            nodes_limit: 0,
            time: TimeOptions::default(),
            consideration_mode: false,
            pv_interval_ms: 0,
            output_fail_lh_pv: true,
            params: params::Params::default(),
            skill: None,
        }
    }
}

/// What one `go` asks for.
#[derive(Clone, Debug)]
pub struct Limits<M> {
    /// Clock of the side to move; `None` means no time limit from the clock.
    pub clock: Option<Clock>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// No new iteration starts once this many nodes are searched (a soft limit beside `nodes`).
    pub soft_nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Restrict the root to these moves (empty = all).
    pub searchmoves: Vec<M>,
    /// When the `go` arrived: the GUI's clock runs from then, not from when the search starts.
    pub start: Option<std::time::Instant>,
}

impl<M> Default for Limits<M> {
    fn default() -> Self {
        Limits {
            clock: None,
            depth: None,
            nodes: None,
            soft_nodes: None,
            infinite: false,
            ponder: false,
            searchmoves: Vec::new(),
            start: None,
        }
    }
}

impl<M> Limits<M> {
    /// The same limits with the root moves turned into another move type; a move `f` cannot
    /// convert is left out.
    pub fn map_moves<N>(&self, f: impl FnMut(&M) -> Option<N>) -> Limits<N> {
        Limits {
            clock: self.clock,
            depth: self.depth,
            nodes: self.nodes,
            soft_nodes: self.soft_nodes,
            infinite: self.infinite,
            ponder: self.ponder,
            searchmoves: self.searchmoves.iter().filter_map(f).collect(),
            start: self.start,
        }
    }
}

/// In the evaluation's units; the USI layer converts centipawns to the GUI scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Plies to mate; positive when the side to move mates. `Mate(0)`: the side to move is
    /// checkmated already (no legal move at the root).
    Mate(i32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// One principal variation's report, as an `info` line carries it.
#[derive(Clone, Debug)]
pub struct PvInfo<M> {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: u32,
    pub score: Score,
    pub bound: ScoreBound,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<M>,
}

/// How far a search has come, between its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub depth: u32,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
}

#[derive(Clone, Debug)]
pub enum Report<M> {
    Pv(PvInfo<M>),
    /// Progress without a new line (periodic, in long searches).
    Progress {
        /// The root move the main thread is searching.
        currmove: Option<M>,
        progress: Progress,
    },
    Text(String),
}

impl<M> Report<M> {
    /// The same report with its moves turned into another move type.
    pub fn map_moves<N>(self, f: impl Fn(M) -> N) -> Report<N> {
        match self {
            Report::Pv(info) => Report::Pv(PvInfo {
                depth: info.depth,
                seldepth: info.seldepth,
                multipv: info.multipv,
                score: info.score,
                bound: info.bound,
                nodes: info.nodes,
                nps: info.nps,
                time_ms: info.time_ms,
                hashfull: info.hashfull,
                pv: info.pv.into_iter().map(f).collect(),
            }),
            Report::Progress { currmove, progress } => Report::Progress {
                currmove: currmove.map(f),
                progress,
            },
            Report::Text(text) => Report::Text(text),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<M> {
    Move {
        best: M,
        ponder: Option<M>,
    },
    Resign,
    /// Entering-king declaration.
    Win,
}

impl<M> Outcome<M> {
    /// The same outcome with its moves turned into another move type.
    pub fn map<N>(self, f: impl Fn(M) -> N) -> Outcome<N> {
        match self {
            Outcome::Move { best, ponder } => Outcome::Move {
                best: f(best),
                ponder: ponder.map(f),
            },
            Outcome::Resign => Outcome::Resign,
            Outcome::Win => Outcome::Win,
        }
    }
}

/// Signals the USI layer sends into a running search, shared by every search thread.
pub struct SearchControl {
    /// The hard deadline as nanoseconds after `epoch`, `u64::MAX` for none. The main thread
    /// publishes it; every thread checks it, so a stop is noticed by whichever thread gets the
    /// CPU first when the machine is overloaded.
    deadline_ns: AtomicU64,
    epoch: std::time::Instant,
    stop: AtomicBool,
    /// Set by `stop` from outside only (not by a deadline or a node limit), so that a weakened
    /// level's held answer goes out at once when the GUI asks for it.
    asked_to_stop: AtomicBool,
    /// True while the search thinks on the opponent's time or in `go infinite`: it must not
    /// stop on its own, and must not print `bestmove` until `stop` or `ponderhit`.
    pondering: AtomicBool,
    /// Set by `ponderhit`: the clock starts now, with these times if the GUI sent new ones.
    ponderhit: Mutex<Option<Option<Clock>>>,
    /// The root move the main thread searches now ([`GameMove::bits`]), for progress reports.
    root_move: AtomicU32,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl {
            deadline_ns: AtomicU64::new(u64::MAX),
            epoch: std::time::Instant::now(),
            stop: AtomicBool::new(false),
            asked_to_stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            ponderhit: Mutex::new(None),
            root_move: AtomicU32::new(0),
        }
    }
}

impl SearchControl {
    /// Publishes the hard deadline (`None` while pondering or without a clock).
    pub(crate) fn set_deadline(&self, deadline: Option<std::time::Instant>) {
        let ns = deadline.map_or(u64::MAX, |d| {
            u64::try_from(d.saturating_duration_since(self.epoch).as_nanos())
                .unwrap_or(u64::MAX - 1)
        });
        self.deadline_ns.store(ns, Ordering::Relaxed);
    }

    /// How far past the hard deadline it is now; `None` before it or without one.
    fn lateness(&self) -> Option<std::time::Duration> {
        let d = self.deadline_ns.load(Ordering::Relaxed);
        let now = self.epoch.elapsed();
        let deadline = std::time::Duration::from_nanos(d);
        (d != u64::MAX && now > deadline).then(|| now - deadline)
    }

    /// Stops the search when the published deadline has passed.
    #[inline]
    pub(crate) fn check_deadline(&self) {
        let d = self.deadline_ns.load(Ordering::Relaxed);
        if d != u64::MAX && self.epoch.elapsed().as_nanos() >= u128::from(d) {
            self.halt();
        }
    }

    /// Stops the search threads from inside the search (a deadline, a limit, the end).
    pub(crate) fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// The GUI's `stop`.
    pub fn stop(&self) {
        self.asked_to_stop.store(true, Ordering::SeqCst);
        self.halt();
    }

    pub(crate) fn asked_to_stop(&self) -> bool {
        self.asked_to_stop.load(Ordering::SeqCst)
    }

    pub fn ponderhit(&self, clock: Option<Clock>) {
        if let Ok(mut p) = self.ponderhit.lock() {
            *p = Some(clock);
        }
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// The main thread starts searching root move `m`.
    #[inline]
    pub(crate) fn note_root_move<M: GameMove>(&self, m: M) {
        self.root_move.store(m.bits(), Ordering::Relaxed);
    }

    fn root_move<M: GameMove>(&self) -> Option<M> {
        let m = M::from_bits(self.root_move.load(Ordering::Relaxed));
        (!m.is_none()).then_some(m)
    }

    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Owns what outlives one search: the transposition table, the control block and the search
/// threads' statistics. The evaluation is the game's, lent to each search (see
/// [`Searcher::think`]), so one searcher serves any game.
pub struct Searcher {
    tt: Arc<tt::TranspositionTable>,
    control: Arc<SearchControl>,
    /// Whether `prepare` made the control block for the coming `think`.
    prepared: bool,
    /// How late answers came after hard deadlines, for `AutoNetworkDelay`.
    reaction: time::ReactionTime,
    /// The search threads' statistics from the last search, for the next one of the same game
    /// (a `driver::HistoryPool` of that game's type); emptied by `new_game`.
    histories: Option<Box<dyn Any + Send>>,
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Arc::new(tt::TranspositionTable::new(hash_mb)),
            control: Arc::new(SearchControl::default()),
            prepared: false,
            reaction: time::ReactionTime::default(),
            histories: None,
        }
    }

    /// Reallocates the table when the size changed (at `isready`, never during a search).
    pub fn set_hash_size(&mut self, mb: usize) {
        if self.tt.size_mb() != mb.max(1) {
            // Free the old table first so that both never need memory at once.
            self.tt = Arc::new(tt::TranspositionTable::new(1));
            self.tt = Arc::new(tt::TranspositionTable::new(mb));
        }
    }

    pub fn new_game(&mut self) {
        self.tt.clear();
        self.histories = None;
    }

    /// Starts a fresh control block for the next `think`. Call it before handing the search to
    /// its thread: signals sent to the returned handle from then on reach that search, however
    /// early they come. `pondering` is true for `go ponder` and `go infinite`.
    pub fn prepare(&mut self, pondering: bool) -> Arc<SearchControl> {
        self.fresh_control(pondering);
        self.prepared = true;
        Arc::clone(&self.control)
    }

    fn fresh_control(&mut self, pondering: bool) {
        let control = SearchControl::default();
        control.pondering.store(pondering, Ordering::SeqCst);
        self.control = Arc::new(control);
    }

    /// Searches `pos` with the game's evaluation and returns the move to play. Blocks until
    /// done; while pondering or in `go infinite` it returns only after `stop` or `ponderhit`.
    pub fn think<G: Game>(
        &mut self,
        pos: &G,
        evaluator: &G::Evaluator,
        limits: &Limits<G::Move>,
        opts: &SearchOptions,
        report: &mut (dyn FnMut(Report<G::Move>) + Send),
    ) -> Outcome<G::Move> {
        if !std::mem::take(&mut self.prepared) {
            self.fresh_control(limits.ponder || limits.infinite);
        }
        self.tt.new_search();
        let opts = &SearchOptions {
            time: self.reaction.apply(&opts.time, limits.clock.as_ref()),
            ..opts.clone()
        };
        // Statistics of another game (after a variant switch) are not reused.
        let mut histories = self
            .histories
            .take()
            .and_then(|h| h.downcast::<driver::HistoryPool<G>>().ok())
            .map_or_else(Vec::new, |h| *h);
        let outcome = driver::think(
            pos,
            limits,
            opts,
            &self.tt,
            &self.control,
            evaluator,
            &mut histories,
            report,
        );
        self.histories = Some(Box::new(histories));
        if let Some(late) = self.control.lateness() {
            self.reaction.record(late);
        }
        outcome
    }
}

#[cfg(test)]
impl Searcher {
    /// The addresses of the kept statistics of game `G`, thread by thread; `None` when none are
    /// kept for that game. For the tests of `crate::game::search_tests`, which search real games.
    pub(crate) fn kept_histories<G: Game>(&self) -> Option<Vec<usize>> {
        let pool = self
            .histories
            .as_ref()?
            .downcast_ref::<driver::HistoryPool<G>>()?;
        Some(pool.iter().map(|h| &**h as *const _ as usize).collect())
    }
}
