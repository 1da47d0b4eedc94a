//! The session's [`Engine`] over kirin's own engines ([`crate::engine`]): a game chosen by
//! XBoard's variant name, the moves played since the start (so `undo` replays all but the
//! last), and searches run on a thread of their own so that the GUI's `?`, `force` or `quit`
//! can end them.

use super::output::{EngineOption, OptionKind};
use super::session::{Engine, Limits, Outcome, Side, Thinking};
use crate::engine::{GameEngine, engine_for};
use crate::game::Color;
use crate::search::time::{Clock, estimate_moves_to_go};
use crate::search::{self, Report, Score, SearchOptions};
use crate::usi::engine::options::Options;
use crate::usi::response::{self, OptionDecl};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// XBoard's variant names and kirin's games: the one place they meet. Yari shogi is left out
/// until kirin can describe its board to XBoard, which does not know it.
const VARIANTS: [(&str, &str); 2] = [("shogi", "shogi"), ("dai", "daishogi")];

/// The engine options XBoard offers, by their USI names, read and checked as USI reads them:
/// the strength levels and dai shogi's rule for declined pawns. USI's other options serve GUIs,
/// books and matches that XBoard does not drive, or have XBoard commands of their own
/// (`memory`, `cores`, `post`).
const OPTIONS: [&str; 3] = ["SkillLevel", "LimitStrengthDelay", "DaiDeclinedPawn"];

/// A search with neither a clock nor a depth would never end; XBoard always sends a clock
/// before `go`, so this only guards hand-typed sessions.
const DEFAULT_MOVE_MS: u64 = 5_000;
/// Under `st`, a move is planned for the period less this fraction of it (see `clock`).
const ST_MARGIN_DIVISOR: u64 = 20;
const DEFAULT_HASH_MB: usize = 64;
/// Far above what any machine running XBoard would grant; keeps a typo from allocating terabytes.
const MAX_HASH_MB: u64 = 1 << 20;
const MAX_THREADS: u32 = 1024;
/// How often the waiting thread looks at the stop signals and forwards thinking lines.
const POLL: Duration = Duration::from_millis(2);
/// XBoard reads a score at or beyond this as a mate: `100000 + N` is mate in N moves.
const XBOARD_MATE: i32 = 100_000;

/// Input lines that the reader thread has seen but the session has not handled yet. A line
/// that ends a search is counted before it is queued, so a search started for an earlier
/// line stops as soon as it is read, and one started after it was handled is not stopped.
#[derive(Debug, Default)]
pub struct Interrupts {
    /// Lines after which the engine still moves (`?`) or that end analysis (`exit`, a move).
    stop: AtomicUsize,
    /// Lines after which the move being searched must not be played (`force`, `new`, `quit`,
    /// the end of input, ...): XBoard no longer expects it.
    abandon: AtomicUsize,
    /// An analysis runs now (a search that ends only when stopped).
    analysing: AtomicBool,
}

/// What a pending line does to a running search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    None,
    Stop,
    Abandon,
}

impl Interrupts {
    pub fn raise(&self, kind: Interrupt) {
        match kind {
            Interrupt::None => {}
            Interrupt::Stop => {
                self.stop.fetch_add(1, Ordering::SeqCst);
            }
            Interrupt::Abandon => {
                self.abandon.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// The line counted by [`Interrupts::raise`] is being handled now.
    pub fn lower(&self, kind: Interrupt) {
        let counter = match kind {
            Interrupt::None => return,
            Interrupt::Stop => &self.stop,
            Interrupt::Abandon => &self.abandon,
        };
        // Never below zero, even if a caller lowers what it did not raise.
        let _ = counter.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    pub fn analysing(&self) -> bool {
        self.analysing.load(Ordering::SeqCst)
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst) > 0 || self.abandoning()
    }

    fn abandoning(&self) -> bool {
        self.abandon.load(Ordering::SeqCst) > 0
    }
}

/// kirin's engines behind the session's [`Engine`] trait.
pub struct KirinEngine {
    game: Box<dyn GameEngine>,
    /// The SFEN the game started from; `None` for the start position.
    start: Option<String>,
    /// The moves played since `start`, in kirin's text.
    moves: Vec<String>,
    /// The settings of [`OPTIONS`]; the rest keep their defaults.
    options: Options,
    hash_mb: usize,
    threads: usize,
    /// Set when the engine declared an entering-king win instead of moving.
    declared: bool,
    interrupts: Arc<Interrupts>,
}

impl KirinEngine {
    /// Standard shogi at its start position.
    pub fn new(interrupts: Arc<Interrupts>) -> KirinEngine {
        let game = engine_for(VARIANTS[0].1).expect("the first XBoard variant is a kirin game");
        KirinEngine {
            game,
            start: None,
            moves: Vec::new(),
            options: Options::default(),
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            declared: false,
            interrupts,
        }
    }

    /// Sets the game to `start` followed by `moves`; on an error nothing changes.
    fn replay(&mut self, start: Option<&str>, moves: &[String]) -> Result<(), String> {
        self.game
            .set_position(start, moves, &self.options.rule_options())
            .map_err(|e| match e {
                crate::engine::PositionError::Sfen(why) => why,
                crate::engine::PositionError::Move { error, .. } => error,
            })
    }

    /// Analysis is never weakened; a weakened level searches the lines it chooses among.
    fn search_options(&self, analysing: bool) -> SearchOptions {
        let level = self.options.search_options();
        SearchOptions {
            threads: self.threads,
            consideration_mode: analysing,
            skill: level.skill.filter(|_| !analysing),
            multipv: if analysing { 1 } else { level.multipv },
            ..SearchOptions::default()
        }
    }

    fn clock(&self, limits: &Limits) -> Option<Clock> {
        if let Some(ms) = limits.move_time {
            // XBoard times `st` itself, from its `go` to our `move`, and flags a move that is
            // late by any amount: the search's own margin covers its stop, not a loaded
            // machine's delay in the pipes. A twentieth of the period goes to that.
            return Some(Clock {
                movetime: Some(ms - ms / ST_MARGIN_DIVISOR),
                ..Clock::default()
            });
        }
        let own = limits.own_time?;
        // kirin spreads its time over the moves it expects the game to last; before a control
        // of fewer moves it must spend as if only those were left.
        let time_left = match limits.moves_to_go {
            Some(to_go) if to_go > 0 => {
                let ply = u32::try_from(self.moves.len()).unwrap_or(u32::MAX);
                let expected = estimate_moves_to_go(ply, 0);
                let to_go = u64::from(to_go);
                if to_go > expected {
                    own / to_go * expected
                } else {
                    own
                }
            }
            _ => own,
        };
        Some(Clock {
            time_left,
            increment: limits.increment,
            ..Clock::default()
        })
    }
}

/// A USI option as XBoard offers it; `None` for the kinds no option in [`OPTIONS`] has.
fn engine_option(decl: OptionDecl) -> Option<EngineOption> {
    let kind = match decl.kind {
        response::OptionKind::Check { default } => OptionKind::Check(default),
        response::OptionKind::Spin { default, min, max } => OptionKind::Spin {
            value: default,
            min,
            max,
        },
        response::OptionKind::Combo { default, vars } => OptionKind::Combo {
            default,
            choices: vars,
        },
        _ => return None,
    };
    Some(EngineOption {
        name: decl.name,
        kind,
    })
}

fn side(color: Color) -> Side {
    match color {
        Color::Black => Side::White,
        Color::White => Side::Black,
    }
}

/// A PV report as a thinking line; `None` for the other lines of a multi-PV search.
fn thinking(info: &search::PvInfo<String>) -> Option<Thinking> {
    if info.multipv > 1 {
        return None;
    }
    let score = match info.score {
        Score::Cp(cp) => crate::eval::to_reported_cp(cp),
        Score::Mate(plies) if plies > 0 => XBOARD_MATE + (plies + 1) / 2,
        Score::Mate(plies) => -XBOARD_MATE - (-plies + 1) / 2,
    };
    Some(Thinking {
        depth: info.depth,
        score,
        elapsed_ms: info.time_ms,
        nodes: info.nodes,
        pv: info.pv.clone(),
    })
}

impl Engine for KirinEngine {
    fn variants(&self) -> Vec<&'static str> {
        VARIANTS.iter().map(|(xboard, _)| *xboard).collect()
    }

    fn new_game(&mut self, variant: &str) -> Result<(), String> {
        let Some((_, name)) = VARIANTS.iter().find(|(xboard, _)| *xboard == variant) else {
            return Err(format!("kirin does not play {variant}"));
        };
        if self.game.name() != *name {
            self.game = engine_for(name).ok_or_else(|| format!("no engine for {name}"))?;
        }
        self.replay(None, &[])?;
        self.game.new_game();
        self.start = None;
        self.moves.clear();
        self.declared = false;
        Ok(())
    }

    fn set_position(&mut self, sfen: &str) -> Result<(), String> {
        self.replay(Some(sfen), &[])?;
        self.start = Some(sfen.to_string());
        self.moves.clear();
        self.declared = false;
        Ok(())
    }

    fn is_pass(&self, kirin_move: &str) -> bool {
        // The game reads `pass` as its one pass move, written as the rules core writes it.
        self.game
            .parse_move("pass")
            .is_ok_and(|pass| pass == kirin_move)
    }

    fn play(&mut self, kirin_move: &str) -> Result<(), String> {
        let text = self.game.parse_move(kirin_move)?;
        let mut moves = self.moves.clone();
        moves.push(text);
        let start = self.start.clone();
        self.replay(start.as_deref(), &moves)?;
        self.moves = moves;
        self.declared = false;
        Ok(())
    }

    fn undo(&mut self) -> bool {
        let mut moves = self.moves.clone();
        if moves.pop().is_none() {
            return false;
        }
        let start = self.start.clone();
        if self.replay(start.as_deref(), &moves).is_err() {
            return false;
        }
        self.moves = moves;
        self.declared = false;
        true
    }

    fn legal_moves(&self) -> Vec<String> {
        self.game.legal_moves()
    }

    fn side_to_move(&self) -> Side {
        side(self.game.side_to_move())
    }

    fn outcome(&self) -> Option<Outcome> {
        let mover = self.side_to_move();
        if self.declared {
            return Some(Outcome {
                winner: Some(mover),
                reason: "entering-king declaration".into(),
            });
        }
        if self.game.legal_moves().is_empty() {
            return Some(Outcome {
                winner: Some(mover.other()),
                reason: "no legal move".into(),
            });
        }
        None
    }

    fn search(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Thinking),
    ) -> Option<String> {
        let clock = self.clock(limits);
        let no_limit = clock.is_none() && limits.depth.is_none() && !limits.infinite;
        let search_limits = search::Limits::<String> {
            clock: if no_limit {
                Some(Clock {
                    movetime: Some(DEFAULT_MOVE_MS),
                    ..Clock::default()
                })
            } else {
                clock
            },
            depth: limits.depth,
            infinite: limits.infinite,
            start: Some(Instant::now()),
            ..search::Limits::default()
        };
        let opts = self.search_options(limits.infinite);
        self.game.ensure_searcher(self.hash_mb);
        let control = self.game.prepare(limits.infinite);
        let (lines_tx, lines) = crossbeam_channel::unbounded();
        let interrupts = Arc::clone(&self.interrupts);
        let game = &mut self.game;
        interrupts
            .analysing
            .store(limits.infinite, Ordering::SeqCst);
        let outcome = thread::scope(|scope| {
            let searching = scope.spawn(move || {
                let mut forward = move |r: Report<String>| {
                    if let Report::Pv(info) = r
                        && let Some(line) = thinking(&info)
                    {
                        // The receiver is gone only once the search is over.
                        let _ = lines_tx.send(line);
                    }
                };
                // A search bug must cost one move, not the engine.
                catch_unwind(AssertUnwindSafe(|| {
                    game.search(&search_limits, &opts, &mut forward)
                }))
                .ok()
            });
            loop {
                if stop.load(Ordering::Relaxed) || interrupts.stopping() {
                    control.stop();
                }
                match lines.recv_timeout(POLL) {
                    Ok(line) => report(&line),
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
                }
            }
            searching.join().ok().flatten()
        });
        self.interrupts.analysing.store(false, Ordering::SeqCst);
        if self.interrupts.abandoning() {
            return None;
        }
        match outcome {
            Some(search::Outcome::Move { best, .. }) => Some(best),
            Some(search::Outcome::Win) => {
                self.declared = true;
                None
            }
            // kirin never resigns under XBoard (the resign threshold is left out of reach), and
            // a failed search still owes the GUI a move.
            Some(search::Outcome::Resign) | None => self.game.legal_moves().into_iter().next(),
        }
    }

    fn options(&self) -> Vec<EngineOption> {
        Options::declarations()
            .into_iter()
            .filter(|decl| OPTIONS.contains(&decl.name.as_str()))
            .filter_map(engine_option)
            .collect()
    }

    /// A changed rule takes effect at once: the game is replayed under it, and if its moves do
    /// not stand under the new rule, nothing changes. Other options only shape the next search.
    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let Some(name) = OPTIONS.iter().find(|o| o.eq_ignore_ascii_case(name.trim())) else {
            return Err(format!("no option {name}"));
        };
        let before = self.options.clone();
        // XBoard sends a check as 0 or 1.
        let is_check = self
            .options()
            .iter()
            .any(|o| o.name == *name && matches!(o.kind, OptionKind::Check(_)));
        let value = match value.map(str::trim) {
            Some("1") if is_check => Some("true"),
            Some("0") if is_check => Some("false"),
            other => other,
        };
        self.options.set(name, value)?;
        if self.options.rule_options() == before.rule_options() {
            return Ok(());
        }
        let (start, moves) = (self.start.clone(), self.moves.clone());
        if let Err(why) = self.replay(start.as_deref(), &moves) {
            self.options = before;
            return Err(format!("the moves played do not stand under {name}: {why}"));
        }
        Ok(())
    }

    fn set_hash_mb(&mut self, megabytes: u64) {
        self.hash_mb = usize::try_from(megabytes.clamp(1, MAX_HASH_MB)).unwrap_or(1);
    }

    fn set_threads(&mut self, threads: u32) {
        self.threads = threads.clamp(1, MAX_THREADS) as usize;
    }
}

#[cfg(test)]
#[path = "kirin_tests.rs"]
mod tests;
