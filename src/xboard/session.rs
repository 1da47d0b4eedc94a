//! One XBoard game session: reads CECP lines, keeps the protocol's state (force mode, which
//! side the engine plays, clocks, thinking output, analysis) and drives a game engine through
//! the [`Engine`] trait, which speaks kirin's own move text and SFEN. Squares and moves are
//! translated here ([`super::notation`]), so an engine never sees XBoard's coordinates.
//!
//! The session is synchronous: [`Session::handle`] returns the lines to send for one input line,
//! searching when the engine is to move. The caller that wires it to standard input reads lines
//! on its own thread and raises [`Session::stop_flag`] on `?`, `quit` or `exit`, so a search
//! in progress ends and its move is sent.

use super::notation::{self, Board, move_commands};
use super::output::{self, EngineOption, Output};
use super::protocol::{Command, GameResult, parse_command};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The two sides as XBoard names them: White moves first, so White is sente (shogi's Black).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// What a search may spend. Times in milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// `st`: exactly this long per move.
    pub move_time: Option<u64>,
    /// `sd`: no deeper than this.
    pub depth: Option<u32>,
    /// The engine's clock (`time`) and the opponent's (`otim`).
    pub own_time: Option<u64>,
    pub opponent_time: Option<u64>,
    pub increment: u64,
    /// Moves left until the next time control of a `level` with moves per session.
    pub moves_to_go: Option<u32>,
    /// Analysis: search until stopped.
    pub infinite: bool,
}

/// One line of thinking, as the engine reports it (its moves in kirin's text).
#[derive(Clone, Debug, PartialEq)]
pub struct Thinking {
    pub depth: u32,
    /// Centipawns for the side to move.
    pub score: i32,
    pub elapsed_ms: u64,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// How a game ended by rule, with the reason for the GUI.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub winner: Option<Side>,
    pub reason: String,
}

/// What the session needs from a game engine for one variant. Moves are kirin's text for the
/// variant (`8h8g9f`, `7g7f+`, `P*5e`, `pass`); positions are kirin SFEN.
pub trait Engine {
    /// The XBoard names of the variants the engine plays (`shogi`, `dai`, ...).
    fn variants(&self) -> Vec<&'static str>;
    /// A new game of `variant` from its start position.
    fn new_game(&mut self, variant: &str) -> Result<(), String>;
    fn set_position(&mut self, sfen: &str) -> Result<(), String>;
    /// Plays a move; refuses one that is not legal, with the reason.
    fn play(&mut self, kirin_move: &str) -> Result<(), String>;
    /// Takes back the last move; false when there is none.
    fn undo(&mut self) -> bool;
    fn legal_moves(&self) -> Vec<String>;
    /// Whether `kirin_move` is the position's pass (a lion's step to an empty square and back),
    /// which goes to XBoard as `@@@@`: written as two legs it reads to XBoard as a castling when
    /// gote makes it (the empty middle square counts as gote's own piece), and is relayed to the
    /// other engine garbled (`g15f15,f15g15` became `g15g15,f15h15`).
    fn is_pass(&self, _kirin_move: &str) -> bool {
        false
    }
    fn side_to_move(&self) -> Side;
    /// The result once the game has ended by rule.
    fn outcome(&self) -> Option<Outcome>;
    /// Searches the position within `limits`, until `stop` is raised, reporting each new
    /// line; returns the best move, or `None` when there is no move.
    fn search(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Thinking),
    ) -> Option<String>;
    fn options(&self) -> Vec<EngineOption>;
    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String>;
    fn set_hash_mb(&mut self, megabytes: u64);
    fn set_threads(&mut self, threads: u32);
}

/// The board size XBoard draws for a variant name.
fn board_of(variant: &str) -> Board {
    match variant {
        "dai" => notation::DAI,
        "yari" => notation::YARI,
        _ => notation::SHOGI,
    }
}

/// The clock settings of the last `level`.
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    moves_per_session: u32,
    increment_ms: u64,
}

pub struct Session<E: Engine> {
    engine: E,
    name: String,
    board: Board,
    force: bool,
    /// The side the engine plays when not in force mode.
    engine_side: Side,
    post: bool,
    analyzing: bool,
    level: Level,
    move_time: Option<u64>,
    depth: Option<u32>,
    own_time_cs: Option<i64>,
    opponent_time_cs: Option<i64>,
    /// Plies since the start position or the last `setboard`, for moves to the next control.
    plies: u32,
    /// The reply the last search expected, for `hint`.
    expected_reply: Option<String>,
    stop: Arc<AtomicBool>,
    quit: bool,
}

impl<E: Engine> Session<E> {
    pub fn new(engine: E, name: &str) -> Session<E> {
        Session {
            engine,
            name: name.to_string(),
            board: notation::SHOGI,
            force: false,
            engine_side: Side::Black,
            post: false,
            analyzing: false,
            level: Level::default(),
            move_time: None,
            depth: None,
            own_time_cs: None,
            opponent_time_cs: None,
            plies: 0,
            expected_reply: None,
            stop: Arc::new(AtomicBool::new(false)),
            quit: false,
        }
    }

    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// Raised by the input thread to end a search now.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// True once `quit` was read.
    pub fn finished(&self) -> bool {
        self.quit
    }

    /// The lines to send for one input line.
    pub fn handle(&mut self, line: &str) -> Vec<Output> {
        let mut lines = Vec::new();
        self.handle_each(line, &mut |output| lines.push(output));
        lines
    }

    /// Passes each line to send for one input line to `send` as soon as it is known, so that
    /// thinking lines reach the GUI while the search runs.
    pub fn handle_each(&mut self, line: &str, send: &mut dyn FnMut(Output)) {
        let out = &mut Emit(send);
        match parse_command(line) {
            Ok(command) => self.command(command, out),
            Err(error) => out.push(Output::Error {
                reason: error.reason,
                command: error.line,
            }),
        }
    }

    fn command(&mut self, command: Command, out: &mut Emit<'_>) {
        match command {
            Command::Protover(_) => {
                let variants = self.engine.variants();
                let options = self.engine.options();
                out.extend(output::features(&self.name, &variants, &options));
            }
            Command::New => {
                self.new_game("shogi", out);
                self.force = false;
                self.engine_side = Side::Black;
                self.depth = None;
                self.move_time = None;
            }
            Command::Variant(name) => {
                if self.new_game(&name, out) && name == "dai" {
                    out.extend(super::dai::description());
                }
            }
            Command::Force => self.force = true,
            Command::Go => {
                self.force = false;
                self.engine_side = self.engine.side_to_move();
                self.think(out);
            }
            Command::PlayOther => {
                self.force = false;
                self.engine_side = self.engine.side_to_move().other();
            }
            Command::UserMove(text) | Command::Move(text) => self.user_move(&text, out),
            Command::Ping(n) => out.push(Output::Pong(n)),
            Command::Result { .. } => self.force = true,
            Command::SetBoard(fen) => self.set_board(&fen, out),
            Command::Undo => {
                if self.engine.undo() {
                    self.plies = self.plies.saturating_sub(1);
                    self.reanalyze(out);
                } else {
                    out.push(error("no move to take back", "undo"));
                }
            }
            Command::Remove => {
                if self.engine.undo() && self.engine.undo() {
                    self.plies = self.plies.saturating_sub(2);
                    self.reanalyze(out);
                } else {
                    out.push(error("no move to take back", "remove"));
                }
            }
            Command::Hint => {
                if let Some(reply) = &self.expected_reply {
                    out.push(Output::Hint(reply.clone()));
                }
            }
            Command::Post => self.post = true,
            Command::NoPost => self.post = false,
            Command::Analyze => {
                self.analyzing = true;
                self.force = true;
                self.reanalyze(out);
            }
            Command::Exit => self.analyzing = false,
            Command::Level {
                moves_per_session,
                base_ms: _,
                increment_ms,
            } => {
                self.level = Level {
                    moves_per_session,
                    increment_ms,
                };
                self.move_time = None;
            }
            Command::SearchTime { ms } => self.move_time = Some(ms),
            Command::Depth(depth) => self.depth = Some(depth),
            Command::Time(cs) => self.own_time_cs = Some(cs),
            Command::OpponentTime(cs) => self.opponent_time_cs = Some(cs),
            Command::Memory(mb) => self.engine.set_hash_mb(mb),
            Command::Cores(n) => self.engine.set_threads(n.max(1)),
            Command::Option { name, value } => {
                if let Err(why) = self.engine.set_option(&name, value.as_deref()) {
                    out.push(error(&why, &format!("option {name}")));
                }
            }
            Command::Lift(square) => self.lift(&square, out),
            Command::Edit => out.push(error("use setboard", "edit")),
            Command::Quit => {
                self.quit = true;
                self.stop.store(true, Ordering::Relaxed);
            }
            // Lines that need no answer from kirin: the handshake, pondering (kirin does not
            // ponder under XBoard yet), draw offers (declined by silence), information about the
            // opponent, and commands of features kirin does not announce.
            Command::Xboard
            | Command::Accepted(_)
            | Command::Rejected(_)
            | Command::Random
            | Command::White
            | Command::Black
            | Command::Nps(_)
            | Command::MoveNow
            | Command::Draw
            | Command::Book
            | Command::Hard
            | Command::Easy
            | Command::AnalyzeStatus
            | Command::Name(_)
            | Command::Rating { .. }
            | Command::Ics(_)
            | Command::Computer
            | Command::Pause
            | Command::Resume
            | Command::EgtPath { .. }
            | Command::Exclude(_)
            | Command::Include(_)
            | Command::SetScore { .. }
            | Command::Put(_)
            | Command::Hover(_) => {}
        }
    }

    /// Starts `variant`; false (with an error line) when the engine does not play it.
    fn new_game(&mut self, variant: &str, out: &mut Emit<'_>) -> bool {
        self.analyzing = false;
        self.plies = 0;
        self.expected_reply = None;
        match self.engine.new_game(variant) {
            Ok(()) => {
                self.board = board_of(variant);
                true
            }
            Err(why) => {
                out.push(error(&why, &format!("variant {variant}")));
                false
            }
        }
    }

    fn user_move(&mut self, text: &str, out: &mut Emit<'_>) {
        let kirin = match self.board.to_kirin(text) {
            Ok(kirin) => kirin,
            Err(why) => {
                out.push(Output::IllegalMove {
                    reason: Some(why.reason.to_string()),
                    text: text.into(),
                });
                return;
            }
        };
        if let Err(why) = self.engine.play(&kirin) {
            out.push(Output::IllegalMove {
                reason: Some(why),
                text: text.into(),
            });
            return;
        }
        self.plies += 1;
        if self.claim_result(out) {
            return;
        }
        if self.analyzing {
            self.reanalyze(out);
        } else if !self.force && self.engine.side_to_move() == self.engine_side {
            self.think(out);
        }
    }

    /// XBoard's FEN to kirin's SFEN: the board as it stands (kirin's letters are XBoard's),
    /// side to move turned into SFEN's (`w`, XBoard's first mover, is sente `b`).
    fn set_board(&mut self, fen: &str, out: &mut Emit<'_>) {
        let mut fields = fen.split_whitespace();
        let board = fields.next().unwrap_or("");
        let side = match fields.next() {
            Some("w") => "b",
            Some("b") => "w",
            _ => {
                out.push(Output::TellUser("Illegal position: no side to move".into()));
                return;
            }
        };
        if board.contains('[') {
            out.push(Output::TellUser(
                "Illegal position: pieces in hand are not read yet".into(),
            ));
            return;
        }
        match self.engine.set_position(&format!("{board} {side} - 1")) {
            Ok(()) => {
                self.plies = 0;
                self.expected_reply = None;
                self.reanalyze(out);
            }
            Err(why) => out.push(Output::TellUser(format!("Illegal position: {why}"))),
        }
    }

    /// Sends the result line once the game is over by rule; true when it is.
    fn claim_result(&mut self, out: &mut Emit<'_>) -> bool {
        let Some(outcome) = self.engine.outcome() else {
            return false;
        };
        let result = match outcome.winner {
            Some(Side::White) => GameResult::WhiteWins,
            Some(Side::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        };
        out.push(Output::Result {
            result,
            comment: outcome.reason,
        });
        self.force = true;
        true
    }

    fn limits(&self) -> Limits {
        let ms = |cs: Option<i64>| cs.map(|cs| cs.max(0) as u64 * 10);
        let mps = self.level.moves_per_session;
        Limits {
            move_time: self.move_time,
            depth: self.depth,
            own_time: ms(self.own_time_cs),
            opponent_time: ms(self.opponent_time_cs),
            increment: self.level.increment_ms,
            moves_to_go: (mps > 0).then(|| mps - (self.plies / 2) % mps),
            infinite: self.analyzing,
        }
    }

    /// Searches, sends the thinking lines and the move, plays it, and claims a result.
    fn think(&mut self, out: &mut Emit<'_>) {
        if self.claim_result(out) {
            return;
        }
        self.stop.store(false, Ordering::Relaxed);
        let limits = self.limits();
        let (board, post) = (self.board, self.post);
        let mut last_pv = Vec::new();
        let best = self.engine.search(&limits, &self.stop, &mut |thinking| {
            last_pv = thinking.pv.clone();
            if post {
                out.push(thinking_line(board, thinking));
            }
        });
        let Some(best) = best else {
            // No move may still end the game (an entering-king declaration); else the search
            // was abandoned for a later line (`force`, `new`, `quit`) and XBoard wants nothing.
            if !self.claim_result(out) {
                out.push(Output::Debug("no move to play".into()));
            }
            return;
        };
        let text = match self.board.to_xboard(&best) {
            Ok(_) if self.engine.is_pass(&best) => "@@@@".to_string(),
            Ok(text) => text,
            Err(why) => {
                out.push(Output::Debug(format!("engine move unreadable: {why}")));
                return;
            }
        };
        if let Err(why) = self.engine.play(&best) {
            out.push(Output::Debug(format!("engine move {best} refused: {why}")));
            return;
        }
        self.plies += 1;
        self.expected_reply = last_pv
            .get(1)
            .filter(|_| last_pv[0] == best)
            .and_then(|m| self.board.to_xboard(m).ok());
        out.extend(move_commands(&text).into_iter().map(Output::Move));
        self.claim_result(out);
    }

    /// In analyze mode, searches the new position (until stopped) and sends its lines.
    fn reanalyze(&mut self, out: &mut Emit<'_>) {
        if !self.analyzing {
            return;
        }
        self.stop.store(false, Ordering::Relaxed);
        let limits = self.limits();
        let board = self.board;
        self.engine.search(&limits, &self.stop, &mut |thinking| {
            out.push(thinking_line(board, thinking));
        });
    }

    /// Marks where the piece on `square` can go: yellow a destination, magenta one where it
    /// may promote, cyan the first square of a multi-leg move (XBoard then waits for the rest).
    fn lift(&mut self, square: &str, out: &mut Emit<'_>) {
        let Some((from, _)) = self.board.read_xboard_square(square.as_bytes()) else {
            out.push(error("bad square", &format!("lift {square}")));
            return;
        };
        let mut marks: Vec<(u8, u8, char)> = Vec::new();
        for kirin in self.engine.legal_moves() {
            let Ok(xboard) = self.board.to_xboard(&kirin) else {
                continue;
            };
            let promotes = xboard.ends_with('+');
            let legs: Vec<&str> = xboard.trim_end_matches('+').split(',').collect();
            let first_leg = legs[0].as_bytes();
            let Some((start, used)) = self.board.read_xboard_square(first_leg) else {
                continue;
            };
            let Some((first, _)) = self.board.read_xboard_square(&first_leg[used..]) else {
                continue;
            };
            if start != from {
                continue;
            }
            let (target, colour) = if legs.len() > 1 {
                (first, 'C')
            } else if promotes {
                (first, 'M')
            } else {
                (first, 'Y')
            };
            match marks
                .iter_mut()
                .find(|m| (m.0, m.1) == (target.file, target.rank))
            {
                // A promotion choice outranks a plain target; a waypoint keeps its cyan only
                // where no single-leg move ends.
                Some(mark) if colour == 'M' || mark.2 == 'C' => mark.2 = colour,
                Some(_) => {}
                None => marks.push((target.file, target.rank, colour)),
            }
        }
        out.push(Output::Highlight(output::highlight_fen(
            self.board.files,
            self.board.ranks,
            &marks,
        )));
    }
}

/// Where the answers to one input line go, each as it is known.
struct Emit<'a>(&'a mut dyn FnMut(Output));

impl Emit<'_> {
    fn push(&mut self, line: Output) {
        (self.0)(line);
    }

    fn extend(&mut self, lines: impl IntoIterator<Item = Output>) {
        for line in lines {
            self.push(line);
        }
    }
}

fn error(reason: &str, command: &str) -> Output {
    Output::Error {
        reason: reason.to_string(),
        command: command.to_string(),
    }
}

/// A thinking line with the PV in XBoard's move text.
fn thinking_line(board: Board, thinking: &Thinking) -> Output {
    let pv: Vec<String> = thinking
        .pv
        .iter()
        .map(|m| board.to_xboard(m).unwrap_or_else(|_| m.clone()))
        .collect();
    Output::Thinking {
        depth: thinking.depth,
        score: thinking.score,
        centiseconds: thinking.elapsed_ms / 10,
        nodes: thinking.nodes,
        pv: pv.join(" "),
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
