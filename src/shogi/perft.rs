//! Perft: counts the leaves of the legal move tree, the standard check of a move generator.

use super::movegen::{MoveList, all_moves, legal_moves};
use super::position::Position;
use super::types::Move;

/// Leaf count at `depth`, bulk-counting the last ply.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Filled in place and iterated by reference: a list returned or iterated by value is first
    // copied, all 600 slots of it.
    let mut moves = MoveList::new();
    all_moves(pos, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in moves.iter() {
        pos.do_move(m);
        nodes += perft(pos, depth - 1);
        pos.undo_move();
    }
    nodes
}

/// Per-root-move counts, in generation order, as `go perft` prints them.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    legal_moves(pos)
        .into_iter()
        .map(|m| {
            pos.do_move(m);
            let n = perft(pos, depth - 1);
            pos.undo_move();
            (m, n)
        })
        .collect()
}
