//! Perft: counts the leaves of the legal move tree, the standard check of a move generator.
//!
//! Written once for the three games: standard shogi's position implements [`PerftPosition`]
//! here, yari's and dai's in their own modules (both build on this module's types already).

use super::movegen::{MoveList, all_moves};
use super::position::Position;
use super::types::Move;
use std::ops::Deref;

/// What perft asks of a game's position: every move it counts, and making and unmaking one.
pub trait PerftPosition {
    type Move: Copy;
    /// A list of moves; perft keeps one per ply and refills it at every node of that ply.
    type MoveList: Default + Deref<Target = [Self::Move]>;
    /// Replaces the contents of `list` with every move perft counts here, in generation order.
    fn perft_moves(&self, list: &mut Self::MoveList);
    fn do_move(&mut self, m: Self::Move);
    fn undo_move(&mut self);
}

/// Leaf count at `depth`, bulk-counting the last ply.
pub fn perft<P: PerftPosition>(pos: &mut P, depth: u32) -> u64 {
    // One list per ply, made once: a list made at every node costs an allocation in the games
    // whose lists are vectors, and a list returned by value is first copied, all of it.
    let mut lists: Vec<P::MoveList> = (0..depth).map(|_| P::MoveList::default()).collect();
    count(pos, depth, &mut lists)
}

/// The leaves `depth` plies below `pos`, with `lists[0]` for this ply's moves and the rest for
/// the plies below.
fn count<P: PerftPosition>(pos: &mut P, depth: u32, lists: &mut [P::MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some((moves, deeper)) = lists.split_first_mut() else {
        unreachable!("perft made one list per ply");
    };
    pos.perft_moves(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in moves.iter() {
        pos.do_move(m);
        nodes += count(pos, depth - 1, deeper);
        pos.undo_move();
    }
    nodes
}

/// Per-root-move counts, in generation order, as `go perft` prints them.
pub fn divide<P: PerftPosition>(pos: &mut P, depth: u32) -> Vec<(P::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = P::MoveList::default();
    pos.perft_moves(&mut moves);
    moves
        .iter()
        .map(|&m| {
            pos.do_move(m);
            let n = perft(pos, depth - 1);
            pos.undo_move();
            (m, n)
        })
        .collect()
}

impl PerftPosition for Position {
    type Move = Move;
    type MoveList = MoveList;
    fn perft_moves(&self, list: &mut MoveList) {
        list.clear();
        all_moves(self, list);
    }
    fn do_move(&mut self, m: Move) {
        Position::do_move(self, m);
    }
    fn undo_move(&mut self) {
        Position::undo_move(self);
    }
}
