//! The USI engine loop. A reader thread owns stdin and forwards parsed commands; the
//! controller below owns the position, the options and the searcher, and hands each `go` to
//! a worker thread, so `stop`, `ponderhit`, `isready`, `gameover` and `quit` are answered
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
pub mod options;
mod worker;

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, select, unbounded};

use self::io::{Input, Out, read_commands};
use self::options::Options;
use self::worker::{Finished, MAX_PERFT_DEPTH, Task, WorkerMessage};
use crate::eval::Evaluator;
use crate::game::{GamePosition, Variant, VariantMove};
use crate::search::time::Clock;
use crate::search::{Limits, Outcome, SearchControl, SearchOptions, Searcher};
use crate::shogi::{Color, EnteringKingRule};
use crate::usi::{
    BestMove, CheckmateAnswer, ClockTimes, Command, GoParams, MateLimit, PositionStart, Response,
};

/// How often signals are repeated while a task has not yet acknowledged them; see
/// [`Engine::tick`].
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
pub fn run(input: impl BufRead + Send + 'static, output: Box<dyn Write + Send>) {
    let out = Out::new(output);
    let (commands_tx, commands) = unbounded();
    let reader = thread::Builder::new()
        .name("usi-reader".into())
        .spawn(move || read_commands(input, commands_tx));
    if let Err(e) = reader {
        log::error!("cannot start the input thread: {e}");
        return;
    }
    Engine::new(out).serve(&commands);
}

struct Engine {
    out: Out,
    options: Options,
    /// `None` until the first `position`.
    position: Option<GamePosition>,
    /// Set by a rejected `position`, cleared by a valid one: the GUI's position is unknown.
    position_rejected: bool,
    /// `None` before the first `isready` or `go` (the table is allocated then, not at
    /// start-up, so `usi` is answered at once) and while a search task holds it.
    searcher: Option<Searcher>,
    /// The evaluation searches use: the embedded network unless `EvalFile` names another.
    evaluator: Evaluator,
    /// The `EvalFile` value `evaluator` was made from (loaded at `isready` when it changes).
    eval_file_loaded: String,
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

/// A `go` as understood when it arrived: position, limits and options are fixed then.
struct Job {
    id: u64,
    pos: GamePosition,
    kind: JobKind,
    /// Whether it would never end on its own; see [`JobKind::open_ended`].
    open_ended: bool,
    open_ended_after_ponderhit: bool,
    stop: bool,
    ponderhit: Option<Option<Clock>>,
}

enum JobKind {
    Search {
        limits: Limits<VariantMove>,
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
    fn open_ended(&self) -> bool {
        match self {
            JobKind::Search { limits, .. } if limits.ponder => true,
            _ => self.open_ended_after_ponderhit(),
        }
    }

    /// Whether it is still open-ended once `ponderhit` has come (without new times).
    fn open_ended_after_ponderhit(&self) -> bool {
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
struct Running {
    id: u64,
    open_ended: bool,
    open_ended_after_ponderhit: bool,
    perft: bool,
    /// The searched position, to check the answer against before it is sent.
    pos: GamePosition,
    control: Control,
    rule: EnteringKingRule,
    movetime: Option<u64>,
    /// Set by `stop`/`gameover`/`quit`: repeated until the task ends, a cheap guard that
    /// costs nothing when the first one was heard.
    stop: bool,
    /// The last `ponderhit`.
    ponderhit: Option<Option<Clock>>,
    /// When the worker said it was starting.
    started: Option<Instant>,
}

enum Control {
    Search(Arc<SearchControl>),
    /// Mate searches and perft stop on a flag of their own.
    Flag(Arc<AtomicBool>),
    /// A refused `go` waits for either `stop` or `ponderhit`.
    Release(Arc<AtomicBool>),
}

impl Control {
    fn stop(&self) {
        match self {
            Control::Search(control) => control.stop(),
            Control::Flag(flag) | Control::Release(flag) => flag.store(true, Ordering::SeqCst),
        }
    }

    fn ponderhit(&self, clock: Option<Clock>) {
        match self {
            Control::Search(control) => control.ponderhit(clock),
            Control::Release(flag) => flag.store(true, Ordering::SeqCst),
            Control::Flag(_) => {}
        }
    }
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

impl Engine {
    fn new(out: Out) -> Engine {
        let (worker_tx, worker_rx) = unbounded();
        Engine {
            out,
            options: Options::default(),
            position: None,
            position_rejected: false,
            searcher: None,
            evaluator: Evaluator::default(),
            eval_file_loaded: String::new(),
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
                let pos = self.position_or_start();
                let Some(pos) = pos.as_standard() else {
                    self.out.error(format!(
                        "eval: the evaluation breakdown is for standard shogi, not {}",
                        pos.variant().name()
                    ));
                    return Flow::Continue;
                };
                for (part, value) in self.evaluator.explain(pos) {
                    if part != "total" {
                        self.out.info_string(format!("eval {part} {value}"));
                    }
                }
                let cp = self.evaluator.evaluate(pos);
                self.out.info_string(format!(
                    "eval {cp} (side to move, {})",
                    self.evaluator.name()
                ));
            }
            Command::Display => {
                for line in self.position_or_start().diagram().lines() {
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
        self.ensure_searcher(self.options.hash_mb);
        self.book.ensure(&self.options, &self.out);
    }

    /// Loads the file `EvalFile` names, when it changed. A file that cannot be used gets one
    /// error line and the default evaluation plays.
    fn load_eval_file(&mut self) {
        let name = self.options.eval_file.clone();
        if name == self.eval_file_loaded {
            return;
        }
        self.eval_file_loaded = name.clone();
        self.evaluator = if name.is_empty() {
            Evaluator::default()
        } else {
            let path = self.options.eval_path();
            match Evaluator::load(&path) {
                Ok(e) => {
                    self.out
                        .info_string(format!("EvalFile: {path} loaded ({})", e.name()));
                    e
                }
                Err(e) => {
                    self.out.error(format!(
                        "EvalFile: {e}; playing with the default evaluation"
                    ));
                    Evaluator::default()
                }
            }
        };
    }

    fn ensure_searcher(&mut self, hash_mb: usize) {
        match &mut self.searcher {
            Some(searcher) => searcher.set_hash_size(hash_mb),
            None => self.searcher = Some(Searcher::new(hash_mb)),
        }
    }

    fn new_game(&mut self) {
        if let Some(searcher) = &mut self.searcher {
            searcher.new_game();
        }
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
                // Another game: the old position belongs to the old one.
                if self.options.variant != before.variant {
                    self.position = None;
                    self.position_rejected = false;
                    if self.options.variant != Variant::Standard {
                        self.out.info_string(format!(
                            "{}: the opening book, EvalFile, EnteringKingRule, `go mate` and the \
                             eval breakdown belong to standard shogi and are not used",
                            self.options.variant.name()
                        ));
                    }
                }
                self.book.option_set(&self.options, &self.out);
            }
            Err(e) => self.out.error(e),
        }
    }

    fn position_or_start(&self) -> GamePosition {
        self.position.clone().unwrap_or_else(|| self.startpos())
    }

    /// The current game's start position under the rule options.
    fn startpos(&self) -> GamePosition {
        let mut pos = GamePosition::startpos(self.options.variant);
        self.apply_rules(&mut pos);
        pos
    }

    /// The rule options that belong to the position's game (dai shogi's declined-pawn rule),
    /// set before any move is played on it.
    fn apply_rules(&self, pos: &mut GamePosition) {
        if let GamePosition::Dai(p) = pos {
            p.set_rules(crate::dai::Rules {
                declined_pawn: self.options.dai_declined_pawn,
                ..p.rules()
            });
        }
    }

    /// Builds the new position aside. A bad SFEN or move keeps the old one for `d` and
    /// `eval`, but marks it as not the GUI's: `go` then refuses to search it.
    fn set_position(&mut self, start: PositionStart, moves: &[String]) {
        let variant = self.options.variant;
        let mut pos = match &start {
            PositionStart::StartPos => GamePosition::startpos(variant),
            PositionStart::Sfen(sfen) => match GamePosition::from_sfen(variant, sfen) {
                Ok(pos) => pos,
                Err(e) => {
                    self.out
                        .error(format!("bad sfen `{sfen}`: {e}; {POSITION_REJECTED}"));
                    self.position_rejected = true;
                    return;
                }
            },
        };
        self.apply_rules(&mut pos);
        for (i, text) in moves.iter().enumerate() {
            match pos.parse_move(text) {
                Ok(m) => pos.do_move(m),
                Err(e) => {
                    self.out.error(format!(
                        "move {} of {} in `position`: {e}; {POSITION_REJECTED}",
                        i + 1,
                        moves.len()
                    ));
                    self.position_rejected = true;
                    return;
                }
            }
        }
        self.position = Some(pos);
        self.position_rejected = false;
    }

    fn go(&mut self, go: GoParams) {
        // The GUI's clock runs from the moment it sent `go`; this is the closest we know.
        let received = std::time::Instant::now();
        let pos = match &self.position {
            Some(pos) => pos.clone(),
            None if self.position_rejected => self.startpos(),
            None => {
                // Answering keeps a GUI that forgot `position` from waiting forever.
                self.out
                    .error("go before any position: searching the start position");
                self.startpos()
            }
        };
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
            if pos.as_standard().is_none() {
                self.out.error(format!(
                    "go mate: the mate solver is for standard shogi, not {}",
                    pos.variant().name()
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
                clock: clock_for(pos.side_to_move(), &go.clock, go.movetime),
                depth: go.depth,
                nodes: go.nodes,
                infinite: go.infinite,
                ponder: go.ponder,
                searchmoves: self.searchmoves(&pos, &go.searchmoves),
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
            && let Some(standard) = pos.as_standard()
            && let Some(best) = self.book.answer(standard, limits, &self.options, &self.out)
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
    fn searchmoves(&self, pos: &GamePosition, texts: &[String]) -> Vec<VariantMove> {
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

    fn start_next(&mut self) {
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
            pos: pos.clone(),
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
                let mut searcher = match self.searcher.take() {
                    Some(searcher) => searcher,
                    None => Searcher::new(hash_mb),
                };
                searcher.set_hash_size(hash_mb);
                // A fresh control block per search, made before the worker starts, so that a
                // `stop` or `ponderhit` arriving at once is never lost.
                running.control =
                    Control::Search(searcher.prepare(limits.ponder || limits.infinite));
                running.rule = opts.entering_king_rule;
                running.movetime = limits.clock.as_ref().and_then(|c| c.movetime);
                let task = Task::Search {
                    pos,
                    limits,
                    opts: *opts,
                    searcher,
                    evaluator: self.evaluator.clone(),
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
    fn finish(&mut self, finished: Finished) {
        let Some(running) = self.running.take() else {
            return;
        };
        match finished {
            Finished::Search { searcher, outcome } => {
                // After a panic the searcher is gone; the next search builds a new one.
                self.searcher = searcher;
                let best = match outcome {
                    Some(outcome) => {
                        checked_bestmove(&running.pos, outcome, running.rule, &self.out)
                    }
                    None => {
                        self.out.error("the search failed; playing a fallback move");
                        fallback_move(&running.pos)
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
    fn shutdown(&mut self) {
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

/// Whether `mb` megabytes can be had at all. Reserving without touching costs nothing, and
/// refusing here beats the abort a failed allocation would be at `isready`.
fn can_allocate(mb: usize) -> bool {
    let Some(bytes) = mb.checked_mul(1 << 20) else {
        return false;
    };
    Vec::<u8>::new().try_reserve_exact(bytes).is_ok()
}

/// The search's answer, checked: an illegal move or an unfounded win declaration would
/// lose the game on the spot, so they are replaced by a legal move and reported.
fn checked_bestmove(
    pos: &GamePosition,
    outcome: Outcome<VariantMove>,
    rule: EnteringKingRule,
    out: &Out,
) -> BestMove {
    let legal = pos.legal_moves();
    match outcome {
        Outcome::Move { best, ponder } if legal.contains(&best) => {
            let ponder = ponder.filter(|&reply| {
                let mut after = pos.clone();
                after.do_move(best);
                after.legal_moves().contains(&reply)
            });
            BestMove::Move {
                mv: best.to_string(),
                ponder: ponder.map(|m| m.to_string()),
            }
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

fn fallback_move(pos: &GamePosition) -> BestMove {
    match pos.legal_moves().into_iter().next() {
        Some(m) => BestMove::Move {
            mv: m.to_string(),
            ponder: None,
        },
        None => BestMove::Resign,
    }
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
    fn answers_are_checked_before_they_are_sent() {
        let (out, _) = (Out::new(Box::new(std::io::sink())), ());
        let pos = GamePosition::Standard(crate::shogi::Position::startpos());
        let m = |text: &str| pos.parse_move(text).unwrap();
        let rule = EnteringKingRule::Csa27;
        let fine = Outcome::Move {
            best: m("7g7f"),
            ponder: Some(m("2g2f")),
        };
        // 2g2f is not a White reply: the ponder move is dropped, the move kept.
        assert_eq!(
            checked_bestmove(&pos, fine, rule, &out),
            BestMove::Move {
                mv: "7g7f".into(),
                ponder: None
            }
        );
        let none = Outcome::Move {
            best: VariantMove::Shogi(crate::shogi::Move::NONE),
            ponder: None,
        };
        assert!(matches!(
            checked_bestmove(&pos, none, rule, &out),
            BestMove::Move { .. }
        ));
        assert!(matches!(
            checked_bestmove(&pos, Outcome::Win, rule, &out),
            BestMove::Move { .. }
        ));
        assert_eq!(
            checked_bestmove(&pos, Outcome::Resign, rule, &out),
            BestMove::Resign
        );
    }

    #[test]
    fn impossible_allocations_are_refused() {
        assert!(can_allocate(1));
        assert!(!can_allocate(usize::MAX));
        assert!(!can_allocate(usize::MAX >> 20));
    }
}
