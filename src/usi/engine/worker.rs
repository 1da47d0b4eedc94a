//! What runs off the controller thread: a search, a mate search or a perft. The
//! controller hands over everything a task needs (a copy of the game's engine, holding the
//! searcher for a search) and gets the searcher back with the result, so nothing is shared but
//! the output and the stop signals.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::io::Out;
use crate::engine::GameEngine;
use crate::game::{MateAnswer, MateRequest};
use crate::mate::MateProgress;
use crate::search::{Limits, Outcome, PvInfo, Report, ScoreBound, SearchOptions, Searcher};
use crate::usi::{Bound, CheckmateAnswer, InfoField, MateLimit, Response, Score, ScoreValue};

/// Deepest `go perft` served: depth 10 from the start position would run for days.
pub const MAX_PERFT_DEPTH: u32 = 9;

// One task is made and moved per `go`: its size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Task {
    /// `pos` holds the searcher for the search and hands it back with the answer.
    Search {
        pos: Box<dyn GameEngine>,
        limits: Limits<String>,
        opts: SearchOptions,
    },
    Mate {
        pos: Box<dyn GameEngine>,
        limit: MateLimit,
        hash_mb: usize,
        stop: Arc<AtomicBool>,
    },
    Perft {
        pos: Box<dyn GameEngine>,
        depth: u32,
        stop: Arc<AtomicBool>,
    },
    /// A `go` for an unknown position: nothing to search. A ponder or infinite one holds
    /// its answer until `release` is set (by `stop` or `ponderhit`).
    Refused {
        release: Option<Arc<AtomicBool>>,
        mate: bool,
    },
}

/// A task's result. `None` in place of an answer means the task panicked.
pub enum Finished {
    Search {
        searcher: Option<Searcher>,
        outcome: Option<Outcome<String>>,
    },
    Mate(Option<CheckmateAnswer>),
    Perft,
    Refused {
        mate: bool,
    },
}

pub enum WorkerMessage {
    /// Sent just before the task starts: signals given earlier may not have been seen.
    Started(u64),
    Done(u64, Finished),
}

/// Runs `task` on a new thread, which reports `Started` and then `Done` for `id`.
pub fn spawn(id: u64, task: Task, out: Out, done: Sender<WorkerMessage>) -> std::io::Result<()> {
    thread::Builder::new()
        .name(format!("usi-task-{id}"))
        .spawn(move || {
            // The controller may already be gone (quit); the result then has no reader.
            let _ = done.send(WorkerMessage::Started(id));
            let finished = run(task, &out);
            let _ = done.send(WorkerMessage::Done(id, finished));
        })
        .map(drop)
}

fn run(task: Task, out: &Out) -> Finished {
    match task {
        Task::Search {
            mut pos,
            limits,
            opts,
        } => {
            let show_multipv = opts.multipv > 1;
            let report_out = out.clone();
            let mut report =
                move |report: Report<String>| report_out.send(&report_line(report, show_multipv));
            // A search bug must cost one move, not the engine: the GUI still gets a
            // `bestmove` and the next `go` gets a fresh searcher.
            let outcome =
                catch_unwind(AssertUnwindSafe(|| pos.search(&limits, &opts, &mut report)));
            match outcome {
                Ok(outcome) => Finished::Search {
                    searcher: pos.take_searcher(),
                    outcome: Some(outcome),
                },
                Err(_) => Finished::Search {
                    searcher: None,
                    outcome: None,
                },
            }
        }
        Task::Mate {
            mut pos,
            limit,
            hash_mb,
            stop,
        } => {
            let answer = catch_unwind(AssertUnwindSafe(|| {
                solve_mate(&mut *pos, limit, hash_mb, &stop, out)
            }));
            Finished::Mate(answer.ok())
        }
        Task::Perft {
            mut pos,
            depth,
            stop,
        } => {
            // Perft has no failure mode besides a rules bug, which would be worth a crash
            // report; still, the engine must survive it.
            let counted = catch_unwind(AssertUnwindSafe(|| perft(&mut *pos, depth, &stop, out)));
            if counted.is_err() {
                out.error("perft failed");
            }
            Finished::Perft
        }
        Task::Refused { release, mate } => {
            if let Some(release) = release {
                while !release.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(1));
                }
            }
            Finished::Refused { mate }
        }
    }
}

/// The single place `go mate` reaches the mate solver ([`crate::mate`]): a mating line is
/// answered with each move's text, no mate as `nomate`, a search out of time as `timeout`. A
/// game without a solver is refused before it gets here (see `Controller::go`).
fn solve_mate(
    pos: &mut dyn GameEngine,
    limit: MateLimit,
    hash_mb: usize,
    stop: &AtomicBool,
    out: &Out,
) -> CheckmateAnswer {
    let deadline = mate_deadline(limit, Instant::now());
    let mut progress =
        |p: MateProgress| out.send(&mate_progress_line(p.nodes, p.elapsed, p.hashfull));
    let request = MateRequest {
        hash_mb,
        deadline,
        stop,
    };
    match pos.solve_mate(request, &mut progress) {
        Some(MateAnswer::Mate(moves)) => CheckmateAnswer::Moves(moves),
        Some(MateAnswer::NoMate) => CheckmateAnswer::NoMate,
        Some(MateAnswer::Timeout) => CheckmateAnswer::Timeout,
        None => CheckmateAnswer::NotImplemented,
    }
}

fn mate_deadline(limit: MateLimit, start: Instant) -> Option<Instant> {
    match limit {
        MateLimit::Infinite => None,
        MateLimit::Millis(ms) => start.checked_add(Duration::from_millis(ms)),
    }
}

/// The `info` line for the mate solver's progress reports.
fn mate_progress_line(nodes: u64, elapsed: Duration, hashfull: u32) -> Response {
    let ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    let nps = nodes.saturating_mul(1000) / ms.max(1);
    Response::Info(vec![
        InfoField::Nodes(nodes),
        InfoField::Nps(nps),
        InfoField::Time(ms),
        InfoField::HashFull(hashfull),
    ])
}

/// Turns a search report into its `info` line; `multipv` (1-based) only when several lines
/// are asked for, since some GUIs show a single-PV search differently when they see it.
pub fn report_line<M: std::fmt::Display>(report: Report<M>, show_multipv: bool) -> Response {
    match report {
        Report::Pv(info) => pv_line(&info, show_multipv),
        Report::Progress { currmove, progress } => {
            let mut fields = vec![InfoField::Depth(progress.depth)];
            fields.extend(currmove.map(|m| InfoField::CurrMove(m.to_string())));
            fields.extend([
                InfoField::Nodes(progress.nodes),
                InfoField::Nps(progress.nps),
                InfoField::Time(progress.time_ms),
                InfoField::HashFull(progress.hashfull),
            ]);
            Response::Info(fields)
        }
        Report::Text(text) => Response::info_string(text),
    }
}

fn pv_line<M: std::fmt::Display>(info: &PvInfo<M>, show_multipv: bool) -> Response {
    let value = match info.score {
        // The one place scores meet the GUI: centipawns go to its scale.
        crate::search::Score::Cp(cp) => ScoreValue::Cp(crate::game::to_reported_cp(cp)),
        crate::search::Score::Mate(0) => ScoreValue::Checkmated,
        crate::search::Score::Mate(plies) => ScoreValue::Mate(plies),
    };
    let bound = match info.bound {
        ScoreBound::Exact => None,
        ScoreBound::Lower => Some(Bound::Lower),
        ScoreBound::Upper => Some(Bound::Upper),
    };
    let mut fields = vec![
        InfoField::Depth(info.depth),
        InfoField::SelDepth(info.seldepth),
        InfoField::Score(Score { value, bound }),
        InfoField::Nodes(info.nodes),
        InfoField::Nps(info.nps),
        InfoField::HashFull(info.hashfull),
        InfoField::Time(info.time_ms),
    ];
    if show_multipv {
        fields.push(InfoField::MultiPv(info.multipv));
    }
    if !info.pv.is_empty() {
        fields.push(InfoField::Pv(
            info.pv.iter().map(ToString::to_string).collect(),
        ));
    }
    Response::Info(fields)
}

/// `go perft`: one `<move>: <count>` line per root move as it completes, then the total,
/// exactly as `kirin perft` prints them. Stops promptly when asked (how often the game checks,
/// see [`crate::game::Variant::divide`]).
pub fn perft(pos: &mut dyn GameEngine, depth: u32, stop: &AtomicBool, out: &Out) {
    let mut total = 0;
    let finished = pos.divide(depth, stop, &mut |m, count| {
        out.line(&format!("{m}: {count}"));
        total += count;
    });
    if finished {
        out.line(&format!("Nodes searched: {total}"));
    } else {
        out.info_string("perft stopped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::engine_for;
    use crate::search::Progress;
    use crate::search::Score as SearchScore;
    use crate::shogi::Position;
    use crate::shogi::perft::divide;
    use crate::usi::parse_response;
    use std::sync::Mutex;

    /// An `Out` whose lines can be read back.
    fn capture() -> (Out, Arc<Mutex<Vec<u8>>>) {
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let bytes = Arc::new(Mutex::new(Vec::new()));
        (Out::new(Box::new(Shared(Arc::clone(&bytes)))), bytes)
    }

    fn text(bytes: &Arc<Mutex<Vec<u8>>>) -> String {
        String::from_utf8(bytes.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn perft_matches_the_library_divide() {
        let (out, bytes) = capture();
        let mut pos = engine_for("shogi").unwrap();
        perft(&mut *pos, 3, &AtomicBool::new(false), &out);
        let mut want = String::new();
        let mut total = 0;
        for (m, n) in divide(&mut Position::startpos(), 3) {
            want.push_str(&format!("{m}: {n}\n"));
            total += n;
        }
        want.push_str(&format!("Nodes searched: {total}\n"));
        assert_eq!(text(&bytes), want);
        assert_eq!(total, 25_470);
    }

    #[test]
    fn perft_stops_when_asked() {
        let (out, bytes) = capture();
        let mut pos = engine_for("shogi").unwrap();
        perft(&mut *pos, 9, &AtomicBool::new(true), &out);
        assert_eq!(text(&bytes), "info string perft stopped\n");
    }

    #[test]
    fn pv_reports_become_info_lines() {
        let pos = Position::startpos();
        let pv = vec![pos.parse_move("7g7f").unwrap()];
        let info = PvInfo {
            depth: 5,
            seldepth: 9,
            multipv: 2,
            score: SearchScore::Cp(-62),
            bound: ScoreBound::Lower,
            nodes: 1234,
            nps: 5678,
            time_ms: 217,
            hashfull: 3,
            pv,
        };
        assert_eq!(
            report_line(Report::Pv(info.clone()), false).to_string(),
            "info depth 5 seldepth 9 score cp -31 lowerbound nodes 1234 nps 5678 hashfull 3 time 217 pv 7g7f"
        );
        let mate = PvInfo {
            score: SearchScore::Mate(-4),
            bound: ScoreBound::Exact,
            ..info
        };
        let mate_info = mate.clone();
        let line = report_line(Report::Pv(mate), true).to_string();
        assert_eq!(
            line,
            "info depth 5 seldepth 9 score mate -4 nodes 1234 nps 5678 hashfull 3 time 217 multipv 2 pv 7g7f"
        );
        assert!(parse_response(&line).is_some());
        let checkmated = PvInfo {
            score: SearchScore::Mate(0),
            pv: Vec::new(),
            ..mate_info
        };
        assert_eq!(
            report_line(Report::Pv(checkmated), false).to_string(),
            "info depth 5 seldepth 9 score mate -0 nodes 1234 nps 5678 hashfull 3 time 217"
        );
        let progress = report_line(
            Report::Progress {
                currmove: Some(pos.parse_move("2g2f").unwrap()),
                progress: Progress {
                    depth: 7,
                    nodes: 10,
                    nps: 20,
                    time_ms: 30,
                    hashfull: 40,
                },
            },
            false,
        );
        assert_eq!(
            progress.to_string(),
            "info depth 7 currmove 2g2f nodes 10 nps 20 time 30 hashfull 40"
        );
        assert!(parse_response(&progress.to_string()).is_some());
        assert_eq!(
            report_line(Report::<crate::shogi::Move>::Text("hello".into()), false).to_string(),
            "info string hello"
        );
    }

    #[test]
    fn mate_deadlines_and_progress() {
        let start = Instant::now();
        assert_eq!(mate_deadline(MateLimit::Infinite, start), None);
        assert_eq!(
            mate_deadline(MateLimit::Millis(1500), start),
            Some(start + Duration::from_millis(1500))
        );
        assert_eq!(
            mate_progress_line(5000, Duration::from_millis(250), 12).to_string(),
            "info nodes 5000 nps 20000 time 250 hashfull 12"
        );
    }
}
