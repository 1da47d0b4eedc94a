//! What runs off the controller thread: a search, a mate search or a perft. The
//! controller hands over everything a task needs (the `Searcher` included) and gets it back
//! with the result, so nothing is shared but the output and the stop signals.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use super::io::Out;
use crate::eval::Evaluator;
use crate::eval::yari::YariWeights;
use crate::game::{Game, GamePosition, VariantMove};
use crate::mate::{MateLimits, MateProgress, MateResult, MateSolver};
use crate::search::{Limits, Outcome, PvInfo, Report, ScoreBound, SearchOptions, Searcher};
use crate::shogi::Position;
use crate::usi::{Bound, CheckmateAnswer, InfoField, MateLimit, Response, Score, ScoreValue};

/// Deepest `go perft` served: depth 10 from the start position would run for days.
pub const MAX_PERFT_DEPTH: u32 = 9;

// One task is made and moved per `go`: its size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Task {
    Search {
        pos: GamePosition,
        limits: Limits<VariantMove>,
        opts: SearchOptions,
        searcher: Searcher,
        /// Standard shogi's evaluation (`EvalFile`); the other games play with their own.
        evaluator: Evaluator,
    },
    Mate {
        pos: GamePosition,
        limit: MateLimit,
        hash_mb: usize,
        stop: Arc<AtomicBool>,
    },
    Perft {
        pos: GamePosition,
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
        outcome: Option<Outcome<VariantMove>>,
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
            pos,
            limits,
            opts,
            mut searcher,
            evaluator,
        } => {
            let show_multipv = opts.multipv > 1;
            let report_out = out.clone();
            let mut report = move |report: Report<crate::shogi::Move>| {
                report_out.send(&report_line(report, show_multipv))
            };
            let dai_out = out.clone();
            let mut dai_report = move |report: Report<crate::dai::Move>| {
                dai_out.send(&report_line(report, show_multipv))
            };
            let shogi_limits = || limits.map_moves(VariantMove::shogi);
            // A search bug must cost one move, not the engine: the GUI still gets a
            // `bestmove` and the next `go` gets a fresh searcher.
            let outcome = catch_unwind(AssertUnwindSafe(|| match &pos {
                GamePosition::Standard(p) => searcher
                    .think(p, &evaluator, &shogi_limits(), &opts, &mut report)
                    .map(VariantMove::Shogi),
                GamePosition::Yari(p) => {
                    let weights = YariWeights::embedded();
                    searcher
                        .think(p, &weights, &shogi_limits(), &opts, &mut report)
                        .map(VariantMove::Shogi)
                }
                GamePosition::Dai(p) => {
                    let weights = crate::eval::dai::embedded();
                    let limits = limits.map_moves(VariantMove::dai);
                    searcher
                        .think(p, &weights, &limits, &opts, &mut dai_report)
                        .map(VariantMove::Dai)
                }
            }));
            match outcome {
                Ok(outcome) => Finished::Search {
                    searcher: Some(searcher),
                    outcome: Some(outcome),
                },
                Err(_) => Finished::Search {
                    searcher: None,
                    outcome: None,
                },
            }
        }
        Task::Mate {
            pos,
            limit,
            hash_mb,
            stop,
        } => {
            let answer = catch_unwind(AssertUnwindSafe(|| match pos {
                GamePosition::Standard(mut p) => solve_mate(&mut p, limit, hash_mb, &stop, out),
                // Refused before it gets here; see `Engine::go`.
                GamePosition::Yari(_) | GamePosition::Dai(_) => CheckmateAnswer::NotImplemented,
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
            let counted = catch_unwind(AssertUnwindSafe(|| match &mut pos {
                GamePosition::Standard(p) => perft(p, depth, &stop, out),
                GamePosition::Yari(p) => perft(p, depth, &stop, out),
                GamePosition::Dai(p) => dai_perft(p, depth, &stop, out),
            }));
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
/// answered with each move's text, no mate as `nomate`, a search out of time as `timeout`.
fn solve_mate(
    pos: &mut Position,
    limit: MateLimit,
    hash_mb: usize,
    stop: &AtomicBool,
    out: &Out,
) -> CheckmateAnswer {
    let limits = MateLimits {
        deadline: mate_deadline(limit, Instant::now()),
        max_nodes: None,
    };
    let mut solver = MateSolver::new(hash_mb);
    let mut progress =
        |p: MateProgress| out.send(&mate_progress_line(p.nodes, p.elapsed, p.hashfull));
    match solver.solve(pos, limits, stop, &mut progress) {
        MateResult::Mate(moves) => {
            CheckmateAnswer::Moves(moves.iter().map(ToString::to_string).collect())
        }
        MateResult::NoMate => CheckmateAnswer::NoMate,
        MateResult::Timeout => CheckmateAnswer::Timeout,
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
        Report::Progress {
            depth,
            currmove,
            nodes,
            nps,
            time_ms,
            hashfull,
        } => {
            let mut fields = vec![InfoField::Depth(depth)];
            fields.extend(currmove.map(|m| InfoField::CurrMove(m.to_string())));
            fields.extend([
                InfoField::Nodes(nodes),
                InfoField::Nps(nps),
                InfoField::Time(time_ms),
                InfoField::HashFull(hashfull),
            ]);
            Response::Info(fields)
        }
        Report::Text(text) => Response::info_string(text),
    }
}

fn pv_line<M: std::fmt::Display>(info: &PvInfo<M>, show_multipv: bool) -> Response {
    let value = match info.score {
        // The one place scores meet the GUI: centipawns go to its scale.
        crate::search::Score::Cp(cp) => ScoreValue::Cp(crate::eval::to_reported_cp(cp)),
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
/// exactly as `kirin perft` prints them. Checks `stop` at every node, so even depth 9 ends
/// promptly when asked.
pub fn perft<G: Game>(pos: &mut G, depth: u32, stop: &AtomicBool, out: &Out) {
    let mut total = 0;
    if depth > 0 {
        for m in pos.legal_moves() {
            pos.do_move(m);
            let count = count_leaves(pos, depth - 1, stop);
            pos.undo_move();
            let Some(count) = count else {
                out.info_string("perft stopped");
                return;
            };
            out.line(&format!("{m}: {count}"));
            total += count;
        }
    }
    out.line(&format!("Nodes searched: {total}"));
}

/// Dai perft counts as the perft tables do, with no repetition rule and no end at a
/// captured royal (`dai::perft`); `stop` is checked between root moves.
fn dai_perft(pos: &mut crate::dai::Position, depth: u32, stop: &AtomicBool, out: &Out) {
    let rules = pos.rules();
    pos.set_rules(crate::dai::Rules {
        repetition: crate::dai::RepetitionRule::Off,
        ..rules
    });
    let mut total = 0;
    if depth > 0 {
        for m in pos.legal_moves() {
            if stop.load(Ordering::Relaxed) {
                out.info_string("perft stopped");
                pos.set_rules(rules);
                return;
            }
            pos.do_move(m);
            let count = crate::dai::perft(pos, depth - 1);
            pos.undo_move();
            out.line(&format!("{m}: {count}"));
            total += count;
        }
    }
    pos.set_rules(rules);
    out.line(&format!("Nodes searched: {total}"));
}

/// `shogi::perft::perft`, but giving up (`None`) once `stop` is set.
fn count_leaves<G: Game>(pos: &mut G, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth == 0 {
        return Some(1);
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return Some(moves.len() as u64);
    }
    let mut nodes = 0;
    for m in moves {
        pos.do_move(m);
        let count = count_leaves(pos, depth - 1, stop);
        pos.undo_move();
        nodes += count?;
    }
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Score as SearchScore;
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
        let mut pos = Position::startpos();
        perft(&mut pos, 3, &AtomicBool::new(false), &out);
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
        perft(&mut Position::startpos(), 9, &AtomicBool::new(true), &out);
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
                depth: 7,
                currmove: Some(pos.parse_move("2g2f").unwrap()),
                nodes: 10,
                nps: 20,
                time_ms: 30,
                hashfull: 40,
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
