//! One position searched with kirin's own search: the best move, its value and line, and the
//! other MultiPV lines. A game's positions are searched one after the other by one `Analyst`,
//! which keeps its transposition table across them (neighbouring positions share most of it).

use super::score::Eval;
use crate::eval::Evaluator;
use crate::search::time::{Clock, TimeOptions};
use crate::search::{self, Limits, Report, SearchControl, SearchOptions, Searcher};
use crate::shogi::{Move, Position, legal_moves};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Standard shogi's search outcome and report, which analysis reads.
type Outcome = search::Outcome<Move>;
type PvInfo = search::PvInfo<Move>;

/// How long each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Movetime(u64),
    Nodes(u64),
    Depth(u32),
}

impl Budget {
    pub fn describe(self) -> String {
        match self {
            Budget::Movetime(ms) => format!("movetime {ms}"),
            Budget::Nodes(n) => format!("nodes {n}"),
            Budget::Depth(d) => format!("depth {d}"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct SearchSettings {
    pub budget: Budget,
    pub multipv: usize,
    pub threads: usize,
    pub hash_mb: usize,
}

/// One line of the search, from the side to move's view.
#[derive(Clone, Debug)]
pub struct Line {
    pub eval: Eval,
    pub pv: Vec<Move>,
}

/// What the search says about one position, from the side to move's view.
#[derive(Clone, Debug)]
pub struct PositionEval {
    /// The best line first; empty when the side to move has no legal move (checkmated).
    pub lines: Vec<Line>,
    pub eval: Eval,
    pub depth: u32,
    pub nodes: u64,
}

impl PositionEval {
    pub fn best(&self) -> Option<Move> {
        self.lines.first().and_then(|l| l.pv.first().copied())
    }

    pub fn pv(&self) -> &[Move] {
        self.lines.first().map_or(&[], |l| &l.pv)
    }

    /// The value of `m` when one of the searched lines starts with it.
    pub fn value_of(&self, m: Move) -> Option<Eval> {
        self.lines
            .iter()
            .find(|l| l.pv.first() == Some(&m))
            .map(|l| l.eval)
    }
}

/// Ctrl-C: stops new games from starting and every running search at once.
#[derive(Default)]
pub struct Interrupt {
    flag: AtomicBool,
    next_id: AtomicU64,
    running: Mutex<Vec<(u64, Arc<SearchControl>)>>,
}

impl Interrupt {
    pub fn interrupted(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    pub fn interrupt(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Ok(running) = self.running.lock() {
            for (_, control) in running.iter() {
                control.stop();
            }
        }
    }

    fn register(&self, control: Arc<SearchControl>) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut running) = self.running.lock() {
            running.push((id, control));
        }
        id
    }

    fn unregister(&self, id: u64) {
        if let Ok(mut running) = self.running.lock() {
            running.retain(|(i, _)| *i != id);
        }
    }
}

pub struct Analyst {
    searcher: Searcher,
    /// The evaluation kirin plays with.
    evaluator: Evaluator,
    settings: SearchSettings,
    opts: SearchOptions,
}

impl Analyst {
    pub fn new(settings: &SearchSettings) -> Analyst {
        let opts = SearchOptions {
            threads: settings.threads.max(1),
            multipv: settings.multipv.max(1),
            // Analysis never resigns and reports every iteration.
            consideration_mode: true,
            // No GUI and no network between the search and its clock: `--movetime` is the
            // time searched, without the margins a game keeps against losing on time.
            time: TimeOptions {
                network_delay: 0,
                network_delay2: 0,
                auto_network_delay: false,
                ..TimeOptions::default()
            },
            ..SearchOptions::default()
        };
        Analyst {
            searcher: Searcher::new(settings.hash_mb.max(1)),
            evaluator: Evaluator::default(),
            settings: settings.clone(),
            opts,
        }
    }

    /// Forgets the previous game.
    pub fn new_game(&mut self) {
        self.searcher.new_game();
    }

    /// Searches `pos`; `None` when the search was interrupted before it finished.
    pub fn evaluate(&mut self, pos: &Position, interrupt: &Interrupt) -> Option<PositionEval> {
        if legal_moves(pos).is_empty() {
            return Some(PositionEval {
                lines: Vec::new(),
                eval: Eval::mated_now(),
                depth: 0,
                nodes: 0,
            });
        }
        let mut limits = Limits::default();
        match self.settings.budget {
            Budget::Movetime(ms) => {
                limits.clock = Some(Clock {
                    movetime: Some(ms),
                    ..Clock::default()
                })
            }
            Budget::Nodes(n) => limits.nodes = Some(n),
            Budget::Depth(d) => limits.depth = Some(d),
        }
        let (outcome, mut latest) = self.search(pos, &limits, interrupt)?;
        if latest.iter().all(Option::is_none) && matches!(outcome, Outcome::Move { .. }) {
            // The budget ended before the first iteration did (a tiny node count): one ply
            // always completes and gives a move with a value.
            let one_ply = Limits {
                depth: Some(1),
                ..Limits::default()
            };
            latest = self.search(pos, &one_ply, interrupt)?.1;
        }
        Some(collect(outcome, latest))
    }

    /// One search; the last report of each MultiPV line (index 0 is the best line), or `None`
    /// when interrupted.
    fn search(
        &mut self,
        pos: &Position,
        limits: &Limits<Move>,
        interrupt: &Interrupt,
    ) -> Option<(Outcome, Vec<Option<PvInfo>>)> {
        let control = self.searcher.prepare(false);
        let id = interrupt.register(Arc::clone(&control));
        if interrupt.interrupted() {
            control.stop();
        }
        let multipv = self.opts.multipv;
        let mut latest: Vec<Option<PvInfo>> = vec![None; multipv];
        let outcome = self
            .searcher
            .think(pos, &self.evaluator, limits, &self.opts, &mut |r| {
                if let Report::Pv(info) = r {
                    let idx = (info.multipv.max(1) as usize - 1).min(multipv - 1);
                    latest[idx] = Some(info);
                }
            });
        interrupt.unregister(id);
        if interrupt.interrupted() {
            return None;
        }
        Some((outcome, latest))
    }
}

/// Puts the reports together. The lines are those of the last completed iteration, best value
/// first, so that the best move and its value always belong together.
fn collect(outcome: Outcome, latest: Vec<Option<PvInfo>>) -> PositionEval {
    let depth = latest
        .first()
        .and_then(|i| i.as_ref())
        .map_or(0, |i| i.depth);
    let nodes = latest.iter().flatten().map(|i| i.nodes).max().unwrap_or(0);
    let mut lines: Vec<Line> = latest
        .into_iter()
        .flatten()
        .filter(|i| !i.pv.is_empty())
        .map(|i| Line {
            eval: Eval::from_score(i.score),
            pv: i.pv,
        })
        .collect();
    lines.sort_by_key(|l| std::cmp::Reverse(l.eval.cp));
    match outcome {
        // With no line at all (not even from one ply), the move alone, valued as even.
        Outcome::Move { best, .. } => {
            if lines.is_empty() {
                lines.push(Line {
                    eval: Eval { cp: 0, mate: None },
                    pv: vec![best],
                });
            }
        }
        // A declaration wins on the spot; the search stops before any line.
        Outcome::Win => {
            return PositionEval {
                lines: Vec::new(),
                eval: Eval::mate(1),
                depth,
                nodes,
            };
        }
        // Analysis never resigns with moves left (consideration mode); keep what was found.
        Outcome::Resign => {}
    }
    let eval = lines.first().map_or(Eval::mated_now(), |l| l.eval);
    PositionEval {
        lines,
        eval,
        depth,
        nodes,
    }
}
