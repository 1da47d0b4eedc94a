//! Zobrist keys for yari positions, generated at compile time from a fixed seed of their own so
//! that hashes are stable across builds.

use super::attacks::SQUARES;
use super::types::{Piece, PieceType};
use crate::shogi::zobrist::key_table;
use crate::shogi::{Color, Square};

static BOARD: [[u64; SQUARES]; Piece::NUM] = key_table(0x7961_7269_0000_0001);
static HAND: [[u64; 4]; 2] = key_table(0x7961_7269_0000_0002);

/// White to move is bit 0 of the board key.
pub const SIDE: u64 = 1;

#[inline]
pub fn piece_square(p: Piece, sq: Square) -> u64 {
    BOARD[p.index()][sq.index()]
}

/// Hand keys are additive: n pieces of a kind contribute n times its key.
#[inline]
pub fn hand(c: Color, pt: PieceType) -> u64 {
    HAND[c.index()][pt.hand_slot()]
}
