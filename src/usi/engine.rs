//! The USI engine loop. A reader thread owns stdin and forwards parsed commands; the
//! controller below owns the options and the selected game's engine ([`crate::engine`]: the
//! position, the evaluation and the searcher), and hands each `go`, with a copy of that engine,
//! to a worker thread (see `jobs`), so `stop`, `ponderhit`, `isready`, `gameover` and `quit` are answered
//! while a search runs.
//!
//! Invariants the GUI relies on:
//! - every `go` that parses gets exactly one answer (`bestmove`, or `checkmate` for
//!   `go mate`; perft prints its counts instead), and in ponder/infinite mode only after
//!   `stop` or `ponderhit`. A `go` line that does not parse gets its error line only: what it
//!   asked for is unknown;
//! - a `go` that arrives while a search runs waits for it, as in YaneuraOu and Stockfish, so a
//!   piped script gets every search it asks for. A search that would never end on its own
//!   (`go infinite`, `go ponder`, a `go` without any limit) is stopped by the next `go`
//!   instead: nothing could come after it. `stop` answers everything sent before it at once:
//!   the running search stops, and each queued `go` gets a one-ply search. `quit` and the end
//!   of input stop only the searches that would not end on their own, and wait for the rest;
//! - every rejected line gets exactly one `info string error: ...` and changes nothing, but
//!   for a rejected `position`: the position the GUI meant is unknown, so until the next valid
//!   `position` each `go` gets an error and `bestmove resign` (`checkmate timeout` for
//!   `go mate`), never a move for a position the GUI is not showing;
//! - stdout carries protocol lines only.

mod book;
mod io;
mod jobs;
pub mod options;
mod worker;

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select, unbounded};

use self::io::{Input, Out, read_commands, read_first};
use self::jobs::{Job, JobKind, Running};
use self::options::Options;
use self::worker::{MAX_PERFT_DEPTH, WorkerMessage};
use crate::engine::{GameEngine, PositionError, VARIANTS, engine_for};
use crate::game::Color;
use crate::search::Limits;
use crate::search::time::Clock;
use crate::usi::{CheckmateAnswer, ClockTimes, Command, GoParams, PositionStart, Response};

/// How often signals are repeated while a task has not yet acknowledged them; see
/// [`Controller::tick`].
const TICK: Duration = Duration::from_millis(2);
/// What the error line of a rejected `position` adds.
const POSITION_REJECTED: &str = "`go` answers `bestmove resign` until a valid `position`";
/// How long `quit` waits for a running task to end before the process exits anyway.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// Speaks USI on stdin/stdout until `quit` or the end of input.
pub fn run_stdio() {
    run(
        std::io::BufReader::new(std::io::stdin()),
        Box::new(std::io::stdout()),
    );
}

/// Speaks USI on any pair of streams (tests use in-memory ones).
pub fn run(mut input: impl BufRead + Send + 'static, output: Box<dyn Write + Send>) {
    // GUIs that start an engine without arguments and speak XBoard's protocol open with
    // `xboard`; the first line decides which protocol the rest is read in.
    let (first, first_line) = read_first(&mut input);
    if first_line.trim() == "xboard" {
        crate::xboard::stdio::run(input, output, &first_line);
        return;
    }
    let out = Out::new(output);
    let (commands_tx, commands) = unbounded();
    let reader = thread::Builder::new()
        .name("usi-reader".into())
        .spawn(move || {
            let end = matches!(first, Input::End);
            if commands_tx.send(first).is_ok() && !end {
                read_commands(input, commands_tx);
            }
        });
    if let Err(e) = reader {
        log::error!("cannot start the input thread: {e}");
        return;
    }
    Controller::new(out).serve(&commands);
}

struct Controller {
    out: Out,
    options: Options,
    /// The engine of the selected game, which holds the position, the evaluation (the
    /// embedded one unless `EvalFile` names another, loaded at `isready`) and the searcher
    /// (made at the first `isready` or `go`, lent to each search task).
    game: Box<dyn GameEngine>,
    /// Whether a `position` was taken in this game; before that the start position stands.
    position_set: bool,
    /// Set by a rejected `position`, cleared by a valid one: the GUI's position is unknown.
    position_rejected: bool,
    /// `setoption` and `usinewgame` that arrived while a task ran; applied when it ends.
    deferred_options: Vec<(String, Option<String>)>,
    deferred_new_game: bool,
    running: Option<Running>,
    /// `go` commands that arrived while a task ran. Each still gets its answer.
    queue: VecDeque<Job>,
    next_id: u64,
    worker_tx: Sender<WorkerMessage>,
    worker_rx: Receiver<WorkerMessage>,
    book: book::BookSlot,
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

impl Controller {
    fn new(out: Out) -> Controller {
        let (worker_tx, worker_rx) = unbounded();
        let options = Options::default();
        Controller {
            out,
            game: new_game_engine(options.variant),
            options,
            position_set: false,
            position_rejected: false,
            deferred_options: Vec::new(),
            deferred_new_game: false,
            running: None,
            queue: VecDeque::new(),
            next_id: 0,
            worker_tx,
            worker_rx,
            book: book::BookSlot::new(),
        }
    }

    fn serve(&mut self, commands: &Receiver<Input>) {
        // A clone, so that the select below does not hold a borrow of `self`.
        let worker_rx = self.worker_rx.clone();
        loop {
            // Idle, the loop still wakes now and then; that costs nothing and keeps the
            // code free of a second, "no timeout" path.
            let wait = if self.needs_tick() {
                TICK
            } else {
                Duration::from_secs(1)
            };
            select! {
                recv(commands) -> input => match input {
                    Ok(Input::Command(command)) => {
                        if self.command(command) == Flow::Quit {
                            break;
                        }
                    }
                    Ok(Input::TooLong(length)) => {
                        self.out.error(format!("line of {length} bytes is too long; ignored"));
                    }
                    Ok(Input::End) | Err(_) => break,
                },
                recv(worker_rx) -> message => {
                    if let Ok(message) = message {
                        self.worker_message(message);
                    }
                }
                default(wait) => {}
            }
            self.tick();
        }
        self.shutdown();
    }

    fn command(&mut self, command: Command) -> Flow {
        log::debug!("< {command}");
        match command {
            Command::Usi => self.usi(),
            Command::IsReady => {
                if self.is_idle() {
                    self.prepare();
                }
                self.out.send(&Response::ReadyOk);
            }
            Command::SetOption { name, value } => {
                // The game only decides how later `position` lines read, so it changes at
                // once: a `position` sent after it must not be read in the old game.
                let variant = options::VARIANT_OPTIONS
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(name.trim()));
                if self.is_idle() || variant {
                    self.set_option(&name, value.as_deref());
                } else {
                    self.deferred_options.push((name, value));
                }
            }
            Command::UsiNewGame => {
                if self.is_idle() {
                    self.new_game();
                } else {
                    self.deferred_new_game = true;
                }
            }
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(go) => self.go(go),
            Command::Stop => self.stop_all(),
            Command::PonderHit(times) => self.ponderhit(times),
            // The bestmove of a search it stops is still printed: GUIs ignore it, and
            // "one bestmove per go" stays true.
            Command::GameOver(_) => self.stop_all(),
            Command::Quit => return Flow::Quit,
            Command::Eval => {
                let Some(explained) = self.game.explain() else {
                    self.out.error(format!(
                        "eval: the evaluation breakdown is for standard shogi, not {}",
                        self.game.name()
                    ));
                    return Flow::Continue;
                };
                for (part, value) in explained.parts {
                    if part != "total" {
                        self.out.info_string(format!("eval {part} {value}"));
                    }
                }
                self.out.info_string(format!(
                    "eval {} (side to move, {})",
                    explained.value, explained.evaluator
                ));
            }
            Command::Display => {
                for line in self.game.diagram().lines() {
                    self.out.info_string(line);
                }
            }
            // Nothing to switch on and nothing to register.
            Command::Debug(_) | Command::Register { .. } => {}
            // Some GUIs and people send blank lines; they ask for nothing.
            Command::Unknown { line, .. } if line.is_empty() => {}
            // A `position` line that does not even parse still says the GUI moved on to a
            // position we do not have.
            Command::Unknown { line, reason }
                if line.split_whitespace().next() == Some("position") =>
            {
                self.out.error(format!("{reason}; {POSITION_REJECTED}"));
                self.position_rejected = true;
            }
            Command::Unknown { reason, .. } => self.out.error(reason),
        }
        Flow::Continue
    }

    fn usi(&self) {
        self.out.send(&Response::IdName(format!(
            "kirin {}",
            env!("CARGO_PKG_VERSION")
        )));
        self.out
            .send(&Response::IdAuthor("the kirin developers".into()));
        for decl in Options::declarations() {
            self.out.send(&Response::Option(decl));
        }
        self.out.send(&Response::UsiOk);
    }

    fn is_idle(&self) -> bool {
        self.running.is_none() && self.queue.is_empty()
    }

    /// The heavy part of start-up: the hash table, the evaluation and the opening book.
    fn prepare(&mut self) {
        self.load_eval_file();
        self.game.ensure_searcher(self.options.hash_mb);
        self.book.ensure(&self.options, &self.out);
    }

    /// Loads the file `EvalFile` names, when it changed. A file that cannot be used gets one
    /// error line and the default evaluation plays.
    fn load_eval_file(&mut self) {
        let path = self.options.eval_path();
        match self.game.load_eval_file(&self.options.eval_file, &path) {
            Some(Ok(name)) => self
                .out
                .info_string(format!("EvalFile: {path} loaded ({name})")),
            Some(Err(e)) => self.out.error(format!(
                "EvalFile: {e}; playing with the default evaluation"
            )),
            None => {}
        }
    }

    fn new_game(&mut self) {
        self.game.new_game();
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let before = self.options.clone();
        match self.options.set(name, value) {
            Ok(notes) => {
                for (mb, was, option) in [
                    (self.options.hash_mb, before.hash_mb, "USI_Hash"),
                    (self.options.mate_hash_mb, before.mate_hash_mb, "MateHash"),
                ] {
                    if mb != was && !can_allocate(mb) {
                        self.options = before;
                        self.out.error(format!(
                            "option {option}: {mb} MB cannot be allocated here; unchanged"
                        ));
                        return;
                    }
                }
                for note in notes {
                    self.out.info_string(note);
                }
                // Another game: the old position belongs to the old one. The searcher serves
                // any game and moves over (a running search hands it back to the new one).
                if self.options.variant != before.variant {
                    let mut game = new_game_engine(self.options.variant);
                    if let Some(searcher) = self.game.take_searcher() {
                        game.give_searcher(searcher);
                    }
                    self.game = game;
                    self.position_set = false;
                    self.position_rejected = false;
                    if self.options.variant != VARIANTS[0] {
                        self.out.info_string(format!(
                            "{}: the opening book, EnteringKingRule, `go mate` and the eval \
                             breakdown belong to standard shogi and are not used; EvalFile takes \
                             this game's weights file",
                            self.options.variant
                        ));
                    }
                }
                self.book.option_set(&self.options, &self.out);
            }
            Err(e) => self.out.error(e),
        }
    }

    /// Takes the GUI's position. A bad SFEN or move keeps the old one for `d` and `eval`, but
    /// marks it as not the GUI's: `go` then refuses to search it.
    fn set_position(&mut self, start: PositionStart, moves: &[String]) {
        let sfen = match &start {
            PositionStart::StartPos => None,
            PositionStart::Sfen(sfen) => Some(sfen.as_str()),
        };
        match self
            .game
            .set_position(sfen, moves, &self.options.rule_options())
        {
            Ok(()) => {
                self.position_set = true;
                self.position_rejected = false;
            }
            Err(e) => {
                self.out.error(match e {
                    PositionError::Sfen(e) => format!(
                        "bad sfen `{}`: {e}; {POSITION_REJECTED}",
                        sfen.unwrap_or_default()
                    ),
                    PositionError::Move { index, error } => format!(
                        "move {} of {} in `position`: {error}; {POSITION_REJECTED}",
                        index + 1,
                        moves.len()
                    ),
                });
                self.position_rejected = true;
            }
        }
    }

    /// The position a `go` works on: the GUI's, or the start position under the rule options
    /// when none was taken.
    fn go_position(&mut self) -> Box<dyn GameEngine> {
        if !self.position_set {
            let rules = self.options.rule_options();
            if let Err(e) = self.game.set_position(None, &[], &rules) {
                log::error!("the start position was refused: {e:?}");
            }
        }
        self.game.fork()
    }

    fn go(&mut self, go: GoParams) {
        // The GUI's clock runs from the moment it sent `go`; this is the closest we know.
        let received = std::time::Instant::now();
        if !self.position_set && !self.position_rejected {
            // Answering keeps a GUI that forgot `position` from waiting forever.
            self.out
                .error("go before any position: searching the start position");
        }
        let pos = self.go_position();
        let kind = if self.position_rejected {
            if go.perft.is_some() {
                self.out
                    .error("go perft after a rejected position: nothing to count");
                return;
            }
            let answer = if go.mate.is_some() {
                "checkmate timeout"
            } else {
                "bestmove resign"
            };
            self.out.error(format!(
                "go after a rejected position: the position is unknown, answering `{answer}`"
            ));
            JobKind::Refused {
                wait: go.ponder || go.infinite,
                mate: go.mate.is_some(),
            }
        } else if let Some(depth) = go.perft {
            if depth > MAX_PERFT_DEPTH {
                self.out
                    .info_string(format!("perft depth {depth} capped at {MAX_PERFT_DEPTH}"));
            }
            JobKind::Perft {
                depth: depth.min(MAX_PERFT_DEPTH),
            }
        } else if let Some(limit) = go.mate {
            if !pos.solves_mate() {
                self.out.error(format!(
                    "go mate: the mate solver is for standard shogi, not {}",
                    pos.name()
                ));
                self.out
                    .send(&Response::Checkmate(CheckmateAnswer::NotImplemented));
                return;
            }
            JobKind::Mate {
                limit,
                hash_mb: self.options.mate_hash_mb,
            }
        } else {
            let limits = Limits {
                clock: clock_for(pos.side_to_move(), &go.clock, go.movetime)
                    .filter(|c| !(holds_no_time(c) && (go.nodes.is_some() || go.depth.is_some()))),
                depth: go.depth,
                nodes: go.nodes,
                soft_nodes: None,
                infinite: go.infinite,
                ponder: go.ponder,
                searchmoves: self.searchmoves(&*pos, &go.searchmoves),
                start: Some(received),
            };
            JobKind::Search {
                limits,
                opts: Box::new(self.options.search_options()),
                hash_mb: self.options.hash_mb,
            }
        };
        // A book move is answered at once; behind a running task it would overtake that
        // task's answer, so then the search plays.
        if let JobKind::Search { limits, .. } = &kind
            && self.is_idle()
            && let Some(best) = self.book.answer(&*pos, limits, &self.options, &self.out)
        {
            self.out.send(&Response::BestMove(best));
            return;
        }
        // The new `go` waits for the one before it, unless that one would never end.
        self.stop_newest_if_open_ended();
        let id = self.next_id;
        self.next_id += 1;
        self.queue.push_back(Job {
            id,
            pos,
            open_ended: kind.open_ended(),
            open_ended_after_ponderhit: kind.open_ended_after_ponderhit(),
            kind,
            stop: false,
            ponderhit: None,
        });
        self.start_next();
    }

    /// Stops the newest `go` (queued, or else running) when it would run until told to:
    /// only the newest can be one, since each `go` applies this to the one before it.
    fn stop_newest_if_open_ended(&mut self) {
        if let Some(job) = self.queue.back_mut() {
            if job.open_ended && !job.stop {
                log::info!("go while an open-ended search waits: stopping it");
                job.stop = true;
            }
        } else if let Some(running) = &mut self.running
            && running.open_ended
            && !running.stop
        {
            log::info!("go while an open-ended search runs: stopping it");
            running.stop = true;
            running.control.stop();
        }
    }

    /// The root moves to search, or all (empty) when any given one is not legal here: a
    /// list that does not fit the position was meant for another one.
    fn searchmoves(&self, pos: &dyn GameEngine, texts: &[String]) -> Vec<String> {
        let mut moves = Vec::new();
        let mut bad = Vec::new();
        for text in texts {
            match pos.parse_move(text) {
                Ok(m) if !moves.contains(&m) => moves.push(m),
                Ok(_) => {}
                Err(_) => bad.push(text.as_str()),
            }
        }
        if bad.is_empty() {
            moves
        } else {
            self.out.error(format!(
                "searchmoves: {} not legal here; searching all moves",
                bad.join(" ")
            ));
            Vec::new()
        }
    }

    fn stop_all(&mut self) {
        if let Some(running) = &mut self.running {
            running.stop = true;
            running.control.stop();
        }
        for job in &mut self.queue {
            job.stop = true;
        }
    }

    /// Applies to the newest `go`, the one the GUI is pondering on. After `bestmove` it
    /// finds nothing to do, like `stop`.
    fn ponderhit(&mut self, times: Option<ClockTimes>) {
        if let Some(job) = self.queue.back_mut() {
            let clock = match &job.kind {
                JobKind::Search { limits, .. } => times.and_then(|t| {
                    clock_for(
                        job.pos.side_to_move(),
                        &t,
                        limits.clock.as_ref().and_then(|c| c.movetime),
                    )
                }),
                _ => None,
            };
            job.ponderhit = Some(clock);
            // A ponder search with a clock now ends by itself.
            job.open_ended = job.open_ended_after_ponderhit && clock.is_none();
        } else if let Some(running) = &mut self.running {
            let clock =
                times.and_then(|t| clock_for(running.pos.side_to_move(), &t, running.movetime));
            running.control.ponderhit(clock);
            running.ponderhit = Some(clock);
            running.open_ended = running.open_ended_after_ponderhit && clock.is_none();
        }
    }

    fn needs_tick(&self) -> bool {
        self.running.as_ref().is_some_and(|running| running.stop)
    }

    /// Repeats signals the task may have missed; see [`Running::stop`].
    fn tick(&mut self) {
        let Some(running) = &self.running else {
            return;
        };
        if running.stop {
            running.control.stop();
        }
    }

    fn worker_message(&mut self, message: WorkerMessage) {
        match message {
            WorkerMessage::Started(id) => {
                if let Some(running) = self.running.as_mut().filter(|r| r.id == id) {
                    running.started = Some(Instant::now());
                }
            }
            WorkerMessage::Done(id, finished) => {
                if self.running.as_ref().is_some_and(|r| r.id == id) {
                    self.finish(finished);
                } else {
                    log::error!("result of task {id}, which is not the running one");
                }
            }
        }
    }
}

/// The side to move's clock from `go`/`ponderhit` times; `None` when nothing limits time.
/// `go byoyomi N` without `btime`/`wtime` means no main time left.
fn clock_for(side: Color, times: &ClockTimes, movetime: Option<u64>) -> Option<Clock> {
    let (time_left, increment) = match side {
        Color::Black => (times.btime, times.binc),
        Color::White => (times.wtime, times.winc),
    };
    if time_left.is_none() && times.byoyomi.is_none() && increment.is_none() && movetime.is_none() {
        return None;
    }
    Some(Clock {
        time_left: time_left.unwrap_or(0),
        byoyomi: times.byoyomi.unwrap_or(0),
        increment: increment.unwrap_or(0),
        movetime,
    })
}

/// A clock with no time on it at all: `go btime 0 wtime 0 nodes N` is how ShogiArena (and other
/// runners) ask for a node-limited move. With a node or depth limit beside it, that limit ends
/// the search and the empty clock is dropped, as Stockfish and YaneuraOu read it; alone, it
/// stands, and the engine answers at once rather than think without a limit.
fn holds_no_time(c: &Clock) -> bool {
    c.time_left == 0 && c.byoyomi == 0 && c.increment == 0 && c.movetime.is_none()
}

/// Whether `mb` megabytes can be had at all. Reserving without touching costs nothing, and
/// refusing here beats the abort a failed allocation would be at `isready`.
fn can_allocate(mb: usize) -> bool {
    let Some(bytes) = mb.checked_mul(1 << 20) else {
        return false;
    };
    Vec::<u8>::new().try_reserve_exact(bytes).is_ok()
}

/// The engine of the game `name`, one of [`VARIANTS`] (the options accept no other).
fn new_game_engine(name: &str) -> Box<dyn GameEngine> {
    engine_for(name).unwrap_or_else(|| panic!("{name} is not among {VARIANTS:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_belong_to_the_side_to_move() {
        let times = ClockTimes {
            btime: Some(1000),
            wtime: Some(2000),
            byoyomi: Some(300),
            binc: None,
            winc: Some(7),
        };
        let black = clock_for(Color::Black, &times, None).unwrap();
        assert_eq!(
            (black.time_left, black.byoyomi, black.increment),
            (1000, 300, 0)
        );
        let white = clock_for(Color::White, &times, Some(50)).unwrap();
        assert_eq!(
            (white.time_left, white.increment, white.movetime),
            (2000, 7, Some(50))
        );
        assert!(clock_for(Color::Black, &ClockTimes::default(), None).is_none());
        let byoyomi_only = ClockTimes {
            byoyomi: Some(1000),
            ..ClockTimes::default()
        };
        let clock = clock_for(Color::White, &byoyomi_only, None).unwrap();
        assert_eq!((clock.time_left, clock.byoyomi), (0, 1000));
    }

    #[test]
    fn an_empty_clock_is_told_apart() {
        let zero = ClockTimes {
            btime: Some(0),
            wtime: Some(0),
            ..ClockTimes::default()
        };
        assert!(holds_no_time(
            &clock_for(Color::Black, &zero, None).unwrap()
        ));
        for times in [
            ClockTimes {
                byoyomi: Some(100),
                ..zero
            },
            ClockTimes {
                btime: Some(5),
                ..zero
            },
            ClockTimes {
                binc: Some(10),
                ..zero
            },
        ] {
            assert!(!holds_no_time(
                &clock_for(Color::Black, &times, None).unwrap()
            ));
        }
        assert!(!holds_no_time(
            &clock_for(Color::Black, &zero, Some(50)).unwrap()
        ));
    }

    #[test]
    fn impossible_allocations_are_refused() {
        assert!(can_allocate(1));
        assert!(!can_allocate(usize::MAX));
        assert!(!can_allocate(usize::MAX >> 20));
    }
}
