//! Game records (kifu): reading and writing the formats shogi software exchanges.
//!
//! Every reader produces the same [`Record`]: a start position, the moves played from it (each
//! one checked legal), per-ply comments and times, the players, the header fields and how the
//! game ended. A record that breaks off (an unreadable line, an illegal move) keeps the legal
//! part before the break and names the line in [`Record::error`]; only input with no usable
//! record at all is an `Err`. Nothing here panics on bad input.
//!
//! Formats: KIF/KIFU ([`kif`]), KI2 ([`ki2`]), CSA V2.2 and V3.0 ([`csa`]), USI position lines
//! ([`usi`]) and JSON Kifu Format ([`jkf`]). [`encoding`] turns the bytes of a file into text
//! (UTF-8, Shift_JIS/CP932 or EUC-JP, detected), and [`japanese`] reads and writes the Japanese
//! move text that KIF, KI2 and JKF comments use.

pub mod bod;
pub mod csa;
pub mod encoding;
pub mod japanese;
pub mod jkf;
pub mod ki2;
pub mod kif;
pub mod usi;

use crate::shogi::{Color, Move, Position, Square, legal_moves};
use std::fmt;
use std::path::Path;

pub use encoding::{Encoding, decode_text};

/// A record format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `.kif` (Shift_JIS) and `.kifu` (UTF-8): numbered moves such as `７六歩(77)`.
    Kif,
    /// `.ki2` and `.ki2u`: moves as players say them, `▲７六歩 △同　歩`.
    Ki2,
    /// The Computer Shogi Association's format, `+7776FU`; several games may share a file.
    Csa,
    /// USI `position` lines: `startpos moves 7g7f ...` or `sfen ... moves ...`, one game a line.
    Usi,
    /// JSON Kifu Format.
    Jkf,
}

impl Format {
    /// The format a file name's extension names, if any.
    pub fn from_extension(name: &str) -> Option<Format> {
        let ext = Path::new(name).extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "kif" | "kifu" => Format::Kif,
            "ki2" | "ki2u" => Format::Ki2,
            "csa" => Format::Csa,
            "usi" | "sfen" => Format::Usi,
            "jkf" | "json" => Format::Jkf,
            _ => return None,
        })
    }

    /// The format the text looks like, from its first meaningful lines.
    pub fn detect(text: &str) -> Option<Format> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if trimmed.starts_with('{') {
            return Some(Format::Jkf);
        }
        let mut csa_lines = 0;
        for line in trimmed.lines().take(200) {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with("startpos")
                || line.starts_with("sfen ")
                || line.starts_with("position ")
            {
                return Some(Format::Usi);
            }
            if line.starts_with("手数") || kif::is_move_line(line) {
                return Some(Format::Kif);
            }
            if line.starts_with('▲') || line.starts_with('△') || line.starts_with("まで") {
                return Some(Format::Ki2);
            }
            if line.starts_with("V2")
                || line.starts_with("V3")
                || line.starts_with("N+")
                || line.starts_with("N-")
                || line.starts_with("PI")
                || line.starts_with("P1")
                || line.starts_with('%')
                || (line.len() >= 7
                    && (line.starts_with('+') || line.starts_with('-'))
                    && line.as_bytes()[1].is_ascii_digit())
            {
                csa_lines += 1;
                if csa_lines >= 2 {
                    return Some(Format::Csa);
                }
            }
        }
        if csa_lines > 0 {
            return Some(Format::Csa);
        }
        // Header-only KIF/KI2 (`開始日時：...`) with no moves: call it KIF.
        trimmed
            .lines()
            .any(|l| l.contains('：'))
            .then_some(Format::Kif)
    }
}

/// How a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The side to move resigned (投了, `%TORYO`).
    Resign,
    /// The side to move is checkmated on the board (詰み, `%TSUMI`).
    Mate,
    /// Fourfold repetition (千日手, `%SENNICHITE`); a draw.
    Sennichite,
    /// Repetition with one side checking throughout (連続王手の千日手, `%OUTE_SENNICHITE`);
    /// the checking side loses.
    PerpetualCheck,
    /// Impasse agreed or adjudicated as a draw (持将棋, `%JISHOGI`).
    Jishogi,
    /// The side to move declared an entering-king win (入玉勝ち, 宣言勝ち, `%KACHI`).
    EnteringKing,
    /// An illegal move or action ended the game (反則勝ち/反則負け, `%ILLEGAL_MOVE`,
    /// `%+ILLEGAL_ACTION`, `%-ILLEGAL_ACTION`); `Record::winner` says who won.
    IllegalMove,
    /// The side to move ran out of time (切れ負け, `%TIME_UP`).
    TimeUp,
    /// Stopped without a result (中断, `%CHUDAN`).
    Interrupted,
    /// Drawn by agreement or rule (引き分け, `%HIKIWAKE`).
    Draw,
    /// The move limit was reached (`%MAX_MOVES`); a draw.
    MaxMoves,
    /// A move was taken back (待った, `%MATTA`).
    Matta,
    /// A mate problem's position has no mate (不詰).
    NoMate,
    /// The record does not say.
    Unknown,
}

impl Ending {
    /// A short English description, for reports and JSON (`"resign"`, `"mate"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Ending::Resign => "resign",
            Ending::Mate => "mate",
            Ending::Sennichite => "sennichite",
            Ending::PerpetualCheck => "perpetual check",
            Ending::Jishogi => "jishogi",
            Ending::EnteringKing => "entering-king declaration",
            Ending::IllegalMove => "illegal move",
            Ending::TimeUp => "time up",
            Ending::Interrupted => "interrupted",
            Ending::Draw => "draw",
            Ending::MaxMoves => "max moves",
            Ending::Matta => "matta",
            Ending::NoMate => "no mate",
            Ending::Unknown => "unknown",
        }
    }
}

/// Why a record (or part of one) could not be read: the 1-based line of the input (0 when the
/// problem belongs to no line, such as an unreadable file) and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

impl RecordError {
    pub fn new(line: usize, message: impl Into<String>) -> RecordError {
        RecordError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for RecordError {}

/// One game.
#[derive(Clone, Debug)]
pub struct Record {
    /// The position before the first move (the even-game start, a handicap, or a diagram).
    pub start: Position,
    /// Every move played from `start`, each legal where it was played.
    pub moves: Vec<Move>,
    /// Comment lines per ply, `moves.len() + 1` entries: index 0 holds the comments before the
    /// first move, index `i` those after move `i`.
    pub comments: Vec<Vec<String>>,
    /// Seconds spent on each move where the record gives them; `moves.len()` entries.
    pub times: Vec<Option<u32>>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// Other header fields in the order read, with the format's own keys (`開始日時`,
    /// `$EVENT`, `棋戦`, ...); players and the start position are in their own fields.
    pub headers: Vec<(String, String)>,
    pub ending: Ending,
    /// Who won, where the ending decides it.
    pub winner: Option<Color>,
    /// The format the record was read from.
    pub format: Format,
    /// Set when the input broke off: the moves before it are kept.
    pub error: Option<RecordError>,
}

impl Record {
    /// An empty record starting at `start`.
    pub fn new(start: Position, format: Format) -> Record {
        Record {
            start,
            moves: Vec::new(),
            comments: vec![Vec::new()],
            times: Vec::new(),
            black: None,
            white: None,
            headers: Vec::new(),
            ending: Ending::Unknown,
            winner: None,
            format,
            error: None,
        }
    }

    /// The start position's SFEN.
    pub fn start_sfen(&self) -> String {
        self.start.to_sfen()
    }

    /// The position after every move.
    pub fn final_position(&self) -> Position {
        self.position_after(self.moves.len())
    }

    /// The position after the first `ply` moves (clamped to the record's length).
    pub fn position_after(&self, ply: usize) -> Position {
        let mut pos = self.start.clone();
        for &m in self.moves.iter().take(ply) {
            pos.do_move(m);
        }
        pos
    }

    /// The moves in USI text.
    pub fn usi_moves(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.to_string()).collect()
    }

    /// The first value of a header field.
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The side to move after the last move.
    pub fn side_to_move_at_end(&self) -> Color {
        if self.moves.len() % 2 == 0 {
            self.start.side_to_move()
        } else {
            !self.start.side_to_move()
        }
    }

    /// Sets `ending` and the winner it implies for the side to move at the end (the loser of a
    /// resignation, a mate, a time-out or an illegal move of its own; the winner of a declaration).
    pub fn set_ending(&mut self, ending: Ending) {
        let to_move = self.side_to_move_at_end();
        self.ending = ending;
        self.winner = match ending {
            Ending::Resign | Ending::Mate | Ending::TimeUp | Ending::IllegalMove => Some(!to_move),
            Ending::EnteringKing => Some(to_move),
            // The side that just moved kept checking, so it loses.
            Ending::PerpetualCheck => Some(to_move),
            _ => None,
        };
    }

    /// Keeps the ply-indexed vectors as long as the move list says.
    pub(crate) fn normalise(&mut self) {
        self.comments.resize(self.moves.len() + 1, Vec::new());
        self.times.resize(self.moves.len(), None);
    }
}

/// Plays moves onto a record while reading it, checking each for legality.
pub(crate) struct Replay {
    pub record: Record,
    pub pos: Position,
}

impl Replay {
    pub fn new(start: Position, format: Format) -> Replay {
        Replay {
            pos: start.clone(),
            record: Record::new(start, format),
        }
    }

    /// The destination of the last move, for `同` (same square) notation.
    pub fn last_to(&self) -> Option<Square> {
        self.record.moves.last().map(|m| m.to())
    }

    /// Plays `m` if it is legal here; otherwise records the error on `line` and returns false.
    pub fn play(&mut self, m: Move, time: Option<u32>, line: usize, text: &str) -> bool {
        if !legal_moves(&self.pos).contains(&m) {
            self.fail(line, format!("illegal move '{text}' ({m})"));
            return false;
        }
        self.pos.do_move(m);
        self.record.moves.push(m);
        self.record.times.push(time);
        self.record.comments.push(Vec::new());
        true
    }

    /// Adds a comment line after the moves played so far.
    pub fn comment(&mut self, text: impl Into<String>) {
        let ply = self.record.moves.len();
        self.record.comments[ply].push(text.into());
    }

    /// Records the first error; later ones are consequences of it.
    pub fn fail(&mut self, line: usize, message: impl Into<String>) {
        if self.record.error.is_none() {
            self.record.error = Some(RecordError::new(line, message));
        }
    }

    pub fn failed(&self) -> bool {
        self.record.error.is_some()
    }

    pub fn finish(mut self) -> Record {
        self.record.normalise();
        self.record
    }
}

/// Reads every record of a file, detecting its encoding and format.
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<Record>, RecordError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path)
        .map_err(|e| RecordError::new(0, format!("cannot read {}: {e}", path.display())))?;
    read_bytes(&bytes, path.file_name().and_then(|n| n.to_str()))
}

/// Reads every record in `bytes`. `name_hint` (a file name) settles the format by extension
/// when the content alone does not.
pub fn read_bytes(bytes: &[u8], name_hint: Option<&str>) -> Result<Vec<Record>, RecordError> {
    let (text, _) = decode_text(bytes);
    read_text(&text, name_hint)
}

/// Reads every record in decoded text.
pub fn read_text(text: &str, name_hint: Option<&str>) -> Result<Vec<Record>, RecordError> {
    let format = Format::detect(text)
        .or_else(|| name_hint.and_then(Format::from_extension))
        .ok_or_else(|| RecordError::new(0, "unknown record format"))?;
    read_as(text, format)
}

/// Reads decoded text as the given format.
pub fn read_as(text: &str, format: Format) -> Result<Vec<Record>, RecordError> {
    let text = text.trim_start_matches('\u{feff}');
    match format {
        Format::Kif => kif::read(text).map(|r| vec![r]),
        Format::Ki2 => ki2::read(text).map(|r| vec![r]),
        Format::Csa => csa::read(text),
        Format::Usi => usi::read(text),
        Format::Jkf => jkf::read(text).map(|r| vec![r]),
    }
}

/// Lines ending at `\r\n`, `\n` or a bare `\r` (old Mac files and some KIF writers use it),
/// numbered as editors count them.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Turns per-game results into the records of a file: a game whose start could not be read
/// becomes an empty even-game record carrying the error, so one bad game does not hide the others;
/// only a file with no readable game at all is an `Err`.
pub(crate) fn collect_games(
    games: Vec<Result<Record, RecordError>>,
    format: Format,
) -> Result<Vec<Record>, RecordError> {
    if games.is_empty() {
        return Err(RecordError::new(0, "no game in the input"));
    }
    if games.iter().all(|g| g.is_err()) {
        return Err(games
            .into_iter()
            .find_map(|g| g.err())
            .unwrap_or_else(|| RecordError::new(0, "no game in the input")));
    }
    Ok(games
        .into_iter()
        .map(|g| {
            g.unwrap_or_else(|e| {
                let mut r = Record::new(Position::startpos(), format);
                r.error = Some(e);
                r
            })
        })
        .collect())
}

pub use csa::write as write_csa;
pub use jkf::write as write_jkf;
pub use ki2::write as write_ki2;
pub use kif::write as write_kif;
pub use usi::write as write_usi;
