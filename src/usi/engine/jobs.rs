//! The tasks behind `go`: each `go` becomes a job with its own copy of the game's engine (the
//! position it was sent for), queued until the task before it ends, run on a worker thread,
//! and answered when it comes back, after its answer is checked.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::io::Out;
use super::worker::{self, Finished, Task, WorkerMessage};
use super::{Controller, QUIT_GRACE, TICK};
use crate::engine::GameEngine;
use crate::game::EnteringKingRule;
use crate::search::time::Clock;
use crate::search::{Limits, Outcome, SearchControl, SearchOptions};
use crate::usi::{BestMove, CheckmateAnswer, MateLimit, Response};

/// A `go` as understood when it arrived: position, limits and options are fixed then.
pub(super) struct Job {
    pub(super) id: u64,
    /// A fork of the game's engine: the position when the `go` arrived.
    pub(super) pos: Box<dyn GameEngine>,
    pub(super) kind: JobKind,
    /// Whether it would never end on its own; see [`JobKind::open_ended`].
    pub(super) open_ended: bool,
    pub(super) open_ended_after_ponderhit: bool,
    pub(super) stop: bool,
    pub(super) ponderhit: Option<Option<Clock>>,
}

pub(super) enum JobKind {
    Search {
        limits: Limits<String>,
        opts: Box<SearchOptions>,
        hash_mb: usize,
    },
    Mate {
        limit: MateLimit,
        hash_mb: usize,
    },
    Perft {
        depth: u32,
    },
    /// A `go` after a rejected `position`: answered without a search, after `stop` or
    /// `ponderhit` when it is a ponder or infinite one.
    Refused {
        wait: bool,
        mate: bool,
    },
}

impl JobKind {
    /// Whether the task would run until told to stop: `go infinite`, `go ponder`,
    /// `go mate infinite`, or a search without any limit from the `go` or the options.
    pub(super) fn open_ended(&self) -> bool {
        match self {
            JobKind::Search { limits, .. } if limits.ponder => true,
            _ => self.open_ended_after_ponderhit(),
        }
    }

    /// Whether it is still open-ended once `ponderhit` has come (without new times).
    pub(super) fn open_ended_after_ponderhit(&self) -> bool {
        match self {
            JobKind::Search { limits, opts, .. } => {
                limits.infinite
                    || (limits.clock.is_none()
                        && limits.depth.is_none()
                        && limits.nodes.is_none()
                        && opts.depth_limit == 0
                        && opts.nodes_limit == 0)
            }
            JobKind::Mate { limit, .. } => *limit == MateLimit::Infinite,
            JobKind::Perft { .. } => false,
            JobKind::Refused { wait, .. } => *wait,
        }
    }
}

/// What the controller keeps of the task on the worker thread.
pub(super) struct Running {
    pub(super) id: u64,
    pub(super) open_ended: bool,
    pub(super) open_ended_after_ponderhit: bool,
    pub(super) perft: bool,
    /// The searched position, to check the answer against before it is sent.
    pub(super) pos: Box<dyn GameEngine>,
    pub(super) control: Control,
    pub(super) rule: EnteringKingRule,
    pub(super) movetime: Option<u64>,
    /// Set by `stop`/`gameover`/`quit`: repeated until the task ends, a cheap guard that
    /// costs nothing when the first one was heard.
    pub(super) stop: bool,
    /// The last `ponderhit`.
    pub(super) ponderhit: Option<Option<Clock>>,
    /// When the worker said it was starting.
    pub(super) started: Option<Instant>,
}

pub(super) enum Control {
    Search(Arc<SearchControl>),
    /// Mate searches and perft stop on a flag of their own.
    Flag(Arc<AtomicBool>),
    /// A refused `go` waits for either `stop` or `ponderhit`.
    Release(Arc<AtomicBool>),
}

impl Control {
    pub(super) fn stop(&self) {
        match self {
            Control::Search(control) => control.stop(),
            Control::Flag(flag) | Control::Release(flag) => flag.store(true, Ordering::SeqCst),
        }
    }

    pub(super) fn ponderhit(&self, clock: Option<Clock>) {
        match self {
            Control::Search(control) => control.ponderhit(clock),
            Control::Release(flag) => flag.store(true, Ordering::SeqCst),
            Control::Flag(_) => {}
        }
    }
}

impl Controller {
    pub(super) fn start_next(&mut self) {
        while self.running.is_none() {
            let Some(job) = self.queue.pop_front() else {
                return;
            };
            self.start(job);
        }
    }

    fn start(&mut self, job: Job) {
        let Job {
            id,
            pos,
            mut kind,
            open_ended,
            open_ended_after_ponderhit,
            mut stop,
            ponderhit,
        } = job;
        let was_stopped = stop;
        // A search `stop` reached while it waited still answers with a real (one-ply) result
        // rather than whatever a search stopped before its first iteration holds.
        if stop && let JobKind::Search { limits, .. } = &mut kind {
            *limits = Limits {
                depth: Some(1),
                searchmoves: std::mem::take(&mut limits.searchmoves),
                start: Some(Instant::now()),
                ..Limits::default()
            };
            stop = false;
        }
        let perft = matches!(kind, JobKind::Perft { .. });
        let flag = Arc::new(AtomicBool::new(stop));
        let mut running = Running {
            id,
            open_ended: open_ended && !was_stopped,
            open_ended_after_ponderhit: open_ended_after_ponderhit && !was_stopped,
            perft,
            pos: pos.fork(),
            control: Control::Flag(Arc::clone(&flag)),
            rule: self.options.entering_king_rule,
            movetime: None,
            stop,
            ponderhit,
            started: None,
        };
        let (task, failed) = match kind {
            JobKind::Search {
                limits,
                opts,
                hash_mb,
            } => {
                let mut pos = pos;
                if let Some(searcher) = self.game.take_searcher() {
                    pos.give_searcher(searcher);
                }
                pos.ensure_searcher(hash_mb);
                // A fresh control block per search, made before the worker starts, so that a
                // `stop` or `ponderhit` arriving at once is never lost.
                running.control = Control::Search(pos.prepare(limits.ponder || limits.infinite));
                running.rule = opts.entering_king_rule;
                running.movetime = limits.clock.as_ref().and_then(|c| c.movetime);
                let task = Task::Search {
                    pos,
                    limits,
                    opts: *opts,
                };
                let failed = Finished::Search {
                    searcher: None,
                    outcome: None,
                };
                (task, failed)
            }
            JobKind::Mate { limit, hash_mb } => {
                let task = Task::Mate {
                    pos,
                    limit,
                    hash_mb,
                    stop: flag,
                };
                (task, Finished::Mate(None))
            }
            JobKind::Perft { depth } => (
                Task::Perft {
                    pos,
                    depth,
                    stop: flag,
                },
                Finished::Perft,
            ),
            JobKind::Refused { wait, mate } => {
                running.control = Control::Release(Arc::clone(&flag));
                let task = Task::Refused {
                    release: (wait && !stop).then_some(flag),
                    mate,
                };
                (task, Finished::Refused { mate })
            }
        };
        if stop {
            running.control.stop();
        }
        // A `ponderhit` that came while this `go` waited in the queue.
        if let Some(clock) = running.ponderhit {
            running.control.ponderhit(clock);
        }
        self.running = Some(running);
        if let Err(e) = worker::spawn(id, task, self.out.clone(), self.worker_tx.clone()) {
            log::error!("cannot start a worker thread: {e}");
            // The task went down with the thread; answer as if it had failed.
            self.finish(failed);
        }
    }

    /// Sends the answer of the running task, then applies what waited for it and starts
    /// the next `go`, if one is queued.
    pub(super) fn finish(&mut self, finished: Finished) {
        let Some(running) = self.running.take() else {
            return;
        };
        match finished {
            Finished::Search { searcher, outcome } => {
                // After a panic the searcher is gone; the next search builds a new one.
                if let Some(searcher) = searcher {
                    self.game.give_searcher(searcher);
                }
                let best = match outcome {
                    Some(outcome) => {
                        checked_bestmove(&*running.pos, outcome, running.rule, &self.out)
                    }
                    None => {
                        self.out.error("the search failed; playing a fallback move");
                        fallback_move(&*running.pos)
                    }
                };
                self.out.send(&Response::BestMove(best));
            }
            Finished::Mate(answer) => {
                let answer = answer.unwrap_or_else(|| {
                    self.out.error("the mate search failed");
                    CheckmateAnswer::Timeout
                });
                self.out.send(&Response::Checkmate(answer));
            }
            Finished::Perft => {}
            Finished::Refused { mate: true } => {
                self.out
                    .send(&Response::Checkmate(CheckmateAnswer::Timeout));
            }
            Finished::Refused { mate: false } => {
                self.out.send(&Response::BestMove(BestMove::Resign));
            }
        }
        for (name, value) in std::mem::take(&mut self.deferred_options) {
            self.set_option(&name, value.as_deref());
        }
        if std::mem::take(&mut self.deferred_new_game) {
            self.new_game();
        }
        self.start_next();
    }

    /// `quit` or the end of input: every `go` still gets its one reply, since some clients
    /// read it on another thread and would wait for it forever, and a piped script's searches
    /// are what it was run for. Tasks that would never end on their own (and perft, which
    /// owes no reply) are stopped; the others run to their end, one after the other.
    pub(super) fn shutdown(&mut self) {
        for job in &mut self.queue {
            if job.open_ended || matches!(job.kind, JobKind::Perft { .. }) {
                job.stop = true;
            }
        }
        let mut stopped_at = None;
        while let Some(running) = &mut self.running {
            if (running.open_ended || running.perft) && !running.stop {
                running.stop = true;
            }
            // A stopped task gets a grace period; past it the process exits anyway.
            if running.stop {
                let since = *stopped_at.get_or_insert_with(Instant::now);
                if since.elapsed() > QUIT_GRACE {
                    log::warn!("quitting with a task still running");
                    return;
                }
            } else {
                stopped_at = None;
            }
            self.tick();
            match self.worker_rx.recv_timeout(TICK) {
                Ok(WorkerMessage::Done(id, finished)) => {
                    if self.running.as_ref().is_some_and(|r| r.id == id) {
                        // Starts the next queued task, if any.
                        self.finish(finished);
                        stopped_at = None;
                    }
                }
                Ok(WorkerMessage::Started(_)) | Err(_) => {}
            }
        }
    }
}

/// The search's answer, checked: an illegal move or an unfounded win declaration would
/// lose the game on the spot, so they are replaced by a legal move and reported.
fn checked_bestmove(
    pos: &dyn GameEngine,
    outcome: Outcome<String>,
    rule: EnteringKingRule,
    out: &Out,
) -> BestMove {
    let legal = pos.legal_moves();
    match outcome {
        Outcome::Move { best, ponder } if legal.contains(&best) => {
            let ponder = ponder.filter(|reply| pos.legal_replies(&best).contains(reply));
            BestMove::Move { mv: best, ponder }
        }
        Outcome::Win if pos.can_declare_win(rule) => BestMove::Win,
        Outcome::Resign => BestMove::Resign,
        other => {
            out.error(format!(
                "the search answered {other:?}, which is not allowed here; playing a fallback move"
            ));
            fallback_move(pos)
        }
    }
}

fn fallback_move(pos: &dyn GameEngine) -> BestMove {
    match pos.legal_moves().into_iter().next() {
        Some(mv) => BestMove::Move { mv, ponder: None },
        None => BestMove::Resign,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::engine_for;

    #[test]
    fn answers_are_checked_before_they_are_sent() {
        let (out, _) = (Out::new(Box::new(std::io::sink())), ());
        let pos = engine_for("shogi").unwrap();
        let pos = &*pos;
        let m = |text: &str| pos.parse_move(text).unwrap();
        let rule = EnteringKingRule::Csa27;
        let fine = Outcome::Move {
            best: m("7g7f"),
            ponder: Some(m("2g2f")),
        };
        // 2g2f is not a White reply: the ponder move is dropped, the move kept.
        assert_eq!(
            checked_bestmove(pos, fine, rule, &out),
            BestMove::Move {
                mv: "7g7f".into(),
                ponder: None
            }
        );
        let none = Outcome::Move {
            best: "none".to_string(),
            ponder: None,
        };
        assert!(matches!(
            checked_bestmove(pos, none, rule, &out),
            BestMove::Move { .. }
        ));
        assert!(matches!(
            checked_bestmove(pos, Outcome::Win, rule, &out),
            BestMove::Move { .. }
        ));
        assert_eq!(
            checked_bestmove(pos, Outcome::Resign, rule, &out),
            BestMove::Resign
        );
    }
}
