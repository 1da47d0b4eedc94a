//! Typed errors for positions and moves read from text.

use super::types::{Color, Square};
use std::fmt;

/// Why SFEN text (of any game on the shared board) was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SfenError {
    /// Not board, side and hands (and an optional move number).
    FieldCount(usize),
    RankCount(usize),
    /// 1-based rank number, the number of squares it described and the files the board has.
    RankLength {
        rank: usize,
        squares: usize,
        files: u8,
    },
    UnknownLetter(char),
    /// `+` before a piece that cannot promote, or a dangling `+`.
    BadPromotion(String),
    /// A piece, as SFEN writes it, on a square where it could never move.
    DeadSquare {
        piece: String,
        square: Square,
    },
    /// Two unpromoted pawns of one side on a file (0-based file).
    TwoPawns {
        color: Color,
        file: u8,
    },
    KingCount {
        color: Color,
        count: u32,
    },
    NoKings,
    /// More pieces of the kind written `letter` on the board and in hand than a set holds.
    TooManyPieces {
        letter: char,
        count: u32,
        max: u32,
    },
    BadSide(String),
    BadHand(String),
    BadPly(String),
    /// The side that has just moved is in check: its king could be captured.
    OpponentInCheck,
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::FieldCount(n) => write!(
                f,
                "expected board, side and hands (and move number), found {n} fields"
            ),
            SfenError::RankCount(n) => write!(f, "board has {n} ranks, expected 9"),
            SfenError::RankLength {
                rank,
                squares,
                files,
            } => {
                write!(
                    f,
                    "rank {rank} describes {squares} squares, expected {files}"
                )
            }
            SfenError::UnknownLetter(c) => {
                write!(f, "unknown piece letter '{}'", c.escape_default())
            }
            SfenError::BadPromotion(s) => {
                write!(f, "bad promotion mark in '{}'", s.escape_default())
            }
            SfenError::DeadSquare { piece, square } => {
                write!(f, "{piece} on {square} could never move")
            }
            SfenError::TwoPawns { color, file } => {
                write!(f, "two unpromoted {color:?} pawns on file {}", file + 1)
            }
            SfenError::KingCount { color, count } => write!(f, "{color:?} has {count} kings"),
            SfenError::NoKings => write!(f, "no king on the board"),
            SfenError::TooManyPieces { letter, count, max } => write!(
                f,
                "{count} pieces of kind {letter} on board and in hand, a set has {max}"
            ),
            SfenError::BadSide(s) => write!(
                f,
                "side to move must be 'b' or 'w', found '{}'",
                s.escape_default()
            ),
            SfenError::BadHand(s) => write!(f, "bad hand field '{}'", s.escape_default()),
            SfenError::BadPly(s) => write!(f, "bad move number '{}'", s.escape_default()),
            SfenError::OpponentInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SfenError {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    Syntax(String),
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "'{}' is not a move", s.escape_default()),
            MoveError::Illegal(s) => write!(f, "illegal move {s}"),
        }
    }
}

impl std::error::Error for MoveError {}
