//! Zobrist keys for yari positions, generated at compile time from a fixed seed of their own so
//! that hashes are stable across builds.

use super::attacks::SQUARES;
use super::types::{Piece, PieceType};
use crate::shogi::{Color, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn build_board() -> [[u64; SQUARES]; Piece::NUM] {
    let mut t = [[0u64; SQUARES]; Piece::NUM];
    let mut state = 0x7961_7269_0000_0001u64;
    let mut p = 0;
    while p < Piece::NUM {
        let mut sq = 0;
        while sq < SQUARES {
            let (s, v) = splitmix(state);
            state = s;
            // Bit 0 is reserved for the side to move.
            t[p][sq] = v & !1;
            sq += 1;
        }
        p += 1;
    }
    t
}

const fn build_hand() -> [[u64; 4]; 2] {
    let mut t = [[0u64; 4]; 2];
    let mut state = 0x7961_7269_0000_0002u64;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 4 {
            let (s, v) = splitmix(state);
            state = s;
            t[c][k] = v & !1;
            k += 1;
        }
        c += 1;
    }
    t
}

static BOARD: [[u64; SQUARES]; Piece::NUM] = build_board();
static HAND: [[u64; 4]; 2] = build_hand();

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
