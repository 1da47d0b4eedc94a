//! Yari shogi (Christian Freeling's lance shogi): 9 ranks by 7 files, pieces that mostly slide
//! forward, drops as in shogi. The board is files 1-7 of the standard bitboard, so squares,
//! bitboards, moves and move text are the standard ones; only the pieces, their attacks and the
//! rules are this module's own.

pub mod attacks;
mod movegen;
mod position;
mod rules;
pub mod types;
mod zobrist;

pub use movegen::{drop_squares, in_zone, promotion_options};
pub use position::{Position, START_SFEN, StateInfo, YariPieces};
pub use rules::value;
pub use types::{Hand, Piece, PieceType};

use crate::shogi::Move;

/// Leaf count at `depth`, bulk-counting the last ply.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for m in moves {
        pos.do_move(m);
        nodes += perft(pos, depth - 1);
        pos.undo_move();
    }
    nodes
}

/// Per-root-move counts, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            pos.do_move(m);
            let n = perft(pos, depth - 1);
            pos.undo_move();
            (m, n)
        })
        .collect()
}
