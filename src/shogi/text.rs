//! USI move text read against a position.

use super::error::MoveError;
use super::movegen::legal_moves;
use super::position::Position;
use super::types::{Move, PieceType, Square};

impl Position {
    /// Reads `7g7f`, `8h2b+` or `P*5e`; the move must be legal here (full mode, so useless
    /// non-promotions are accepted as the rules allow).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let m = parse_syntax(text).ok_or_else(|| MoveError::Syntax(text.to_string()))?;
        if legal_moves(self).contains(&m) {
            Ok(m)
        } else {
            Err(MoveError::Illegal(text.to_string()))
        }
    }
}

/// The move a text describes, without regard to any position.
pub fn parse_syntax(text: &str) -> Option<Move> {
    let b = text.as_bytes();
    match b {
        [p, b'*', sq @ ..] => {
            let pt = PieceType::from_letter(*p)
                .filter(|pt| PieceType::HAND.contains(pt) && p.is_ascii_uppercase())?;
            Some(Move::drop(pt, Square::parse(sq)?))
        }
        [f1, r1, f2, r2, rest @ ..] => {
            let promote = match rest {
                [] => false,
                [b'+'] => true,
                _ => return None,
            };
            let from = Square::parse(&[*f1, *r1])?;
            let to = Square::parse(&[*f2, *r2])?;
            if from == to {
                return None;
            }
            Some(Move::normal(from, to, promote))
        }
        _ => None,
    }
}
