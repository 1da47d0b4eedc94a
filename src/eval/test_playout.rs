//! Test helper: the moves of random playouts for the evaluations' tests, which capture often
//! enough that material flows into the hands and drops appear.

use crate::shogi::{Move, Position};
use crate::tune::selfplay::Rng;

/// A random move of `moves` (the legal moves of `pos`, not empty): a capture half of the time
/// where there is one.
pub fn capture_or_any(pos: &Position, moves: &[Move], rng: &mut Rng) -> Move {
    let caps: Vec<_> = moves
        .iter()
        .copied()
        .filter(|m| !m.is_drop() && pos.piece_on(m.to()).is_some())
        .collect();
    if !caps.is_empty() && rng.below(2) == 0 {
        caps[rng.below(caps.len() as u64) as usize]
    } else {
        moves[rng.below(moves.len() as u64) as usize]
    }
}
