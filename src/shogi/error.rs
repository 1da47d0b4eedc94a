//! Typed errors for positions and moves read from text.

use super::types::{Color, PieceType, Square};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SfenError {
    /// Not board, side and hands (and an optional ply).
    FieldCount(usize),
    RankCount(usize),
    /// 1-based rank number and the number of squares it described.
    RankLength {
        rank: usize,
        squares: usize,
    },
    UnknownLetter(char),
    /// `+` before a king or gold, or a dangling `+`.
    BadPromotion(String),
    DeadSquare {
        piece: PieceType,
        color: Color,
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
    TooManyPieces {
        piece: PieceType,
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
            SfenError::FieldCount(n) => {
                write!(
                    f,
                    "expected board, side and hands (and ply), found {n} fields"
                )
            }
            SfenError::RankCount(n) => write!(f, "board has {n} ranks, expected 9"),
            SfenError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares, expected 9")
            }
            SfenError::UnknownLetter(c) => {
                write!(f, "unknown piece letter '{}'", c.escape_default())
            }
            SfenError::BadPromotion(s) => write!(f, "'+' on a piece that cannot promote: {s}"),
            SfenError::DeadSquare {
                piece,
                color,
                square,
            } => {
                write!(f, "{color:?} {piece:?} on {square} could never move")
            }
            SfenError::TwoPawns { color, file } => {
                write!(f, "two unpromoted {color:?} pawns on file {}", file + 1)
            }
            SfenError::KingCount { color, count } => write!(f, "{color:?} has {count} kings"),
            SfenError::NoKings => write!(f, "no king on the board"),
            SfenError::TooManyPieces { piece, count, max } => {
                write!(
                    f,
                    "{count} {piece:?}s on board and in hand, a set has {max}"
                )
            }
            SfenError::BadSide(s) => write!(f, "side to move must be 'b' or 'w', found '{s}'"),
            SfenError::BadHand(s) => write!(f, "bad hand field '{s}'"),
            SfenError::BadPly(s) => write!(f, "bad ply number '{s}'"),
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
