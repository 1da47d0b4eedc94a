//! Attacks on the 7-file board. The board is files 1-7 of the standard 9x9 bitboard, so the
//! standard lance and rook ray functions serve for yari's straight slides once their result is
//! masked to the seven files; only the step patterns need tables of their own.

use super::types::PieceType;
use crate::shogi::attacks as std_attacks;
use crate::shogi::{Bitboard, Color, Square};

pub const FILES: u8 = 7;
pub const RANKS: u8 = 9;
pub const SQUARES: usize = 63;
/// The yari board inside the 9x9 bitboard: files 1-7 are the first 63 bits.
pub const BOARD: Bitboard = Bitboard((1u128 << SQUARES) - 1);

/// Step patterns for Black as (file step, rank step); forward is towards rank a (rank step -1).
const PAWN: &[(i32, i32)] = &[(0, -1)];
const FORWARD_DIAGONALS: &[(i32, i32)] = &[(1, -1), (-1, -1)];
const FORWARD_THREE: &[(i32, i32)] = &[(0, -1), (1, -1), (-1, -1)];
const GOLD: &[(i32, i32)] = &[(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1)];
const KNIGHT: &[(i32, i32)] = &[(1, -2), (-1, -2)];
const KING: &[(i32, i32)] = &[
    (0, -1),
    (1, -1),
    (-1, -1),
    (1, 0),
    (-1, 0),
    (0, 1),
    (1, 1),
    (-1, 1),
];

const S_PAWN: usize = 0;
const S_FORWARD_DIAGONALS: usize = 1;
const S_FORWARD_THREE: usize = 2;
const S_GOLD: usize = 3;
const S_KNIGHT: usize = 4;
const S_KING: usize = 5;
const PATTERNS: usize = 6;

const fn steps(sq: usize, c: usize, pattern: &[(i32, i32)]) -> u128 {
    let mut bb = 0u128;
    let mut i = 0;
    while i < pattern.len() {
        let (df, dr) = pattern[i];
        let dr = if c == 0 { dr } else { -dr };
        let f = (sq / 9) as i32 + df;
        let r = (sq % 9) as i32 + dr;
        if f >= 0 && f < FILES as i32 && r >= 0 && r < RANKS as i32 {
            bb |= 1u128 << (f * 9 + r);
        }
        i += 1;
    }
    bb
}

const fn build_steps() -> [[[Bitboard; SQUARES]; PATTERNS]; 2] {
    let patterns: [&[(i32, i32)]; PATTERNS] =
        [PAWN, FORWARD_DIAGONALS, FORWARD_THREE, GOLD, KNIGHT, KING];
    let mut t = [[[Bitboard(0); SQUARES]; PATTERNS]; 2];
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < PATTERNS {
            let mut sq = 0;
            while sq < SQUARES {
                t[c][k][sq] = Bitboard(steps(sq, c, patterns[k]));
                sq += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

static STEP: [[[Bitboard; SQUARES]; PATTERNS]; 2] = build_steps();

#[inline]
fn step(c: Color, pattern: usize, sq: Square) -> Bitboard {
    STEP[c.index()][pattern][sq.index()]
}

#[inline]
pub fn pawn_steps(c: Color, sq: Square) -> Bitboard {
    step(c, S_PAWN, sq)
}
#[inline]
pub fn forward_diagonal_steps(c: Color, sq: Square) -> Bitboard {
    step(c, S_FORWARD_DIAGONALS, sq)
}
#[inline]
pub fn forward_three_steps(c: Color, sq: Square) -> Bitboard {
    step(c, S_FORWARD_THREE, sq)
}
#[inline]
pub fn gold_steps(c: Color, sq: Square) -> Bitboard {
    step(c, S_GOLD, sq)
}
#[inline]
pub fn knight_leaps(c: Color, sq: Square) -> Bitboard {
    step(c, S_KNIGHT, sq)
}
#[inline]
pub fn king_steps(sq: Square) -> Bitboard {
    step(Color::Black, S_KING, sq)
}

/// Slide straight forward for `c` (a file lies wholly on the board, so no mask is needed).
#[inline]
pub fn forward_slide(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    std_attacks::lance_attacks(c, sq, occ)
}

#[inline]
pub fn backward_slide(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    std_attacks::lance_attacks(!c, sq, occ)
}

/// All four straight slides, cut to the seven files.
#[inline]
pub fn rook_slides(sq: Square, occ: Bitboard) -> Bitboard {
    std_attacks::rook_attacks(sq, occ) & BOARD
}

/// Left and right slides along the rank.
#[inline]
pub fn sideways_slides(sq: Square, occ: Bitboard) -> Bitboard {
    rook_slides(sq, occ).and_not(Bitboard::file_mask(sq.file()))
}

/// Squares a piece of kind `pt` and colour `c` on `sq` attacks with occupancy `occ`.
#[inline]
pub fn attacks(c: Color, pt: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
    match pt {
        PieceType::Pawn => pawn_steps(c, sq),
        PieceType::YariKnight => knight_leaps(c, sq) | forward_slide(c, sq, occ),
        PieceType::YariBishop => forward_diagonal_steps(c, sq) | forward_slide(c, sq, occ),
        PieceType::YariRook => {
            let r = rook_slides(sq, occ);
            r.and_not(std_attacks::lance_pseudo(!c, sq))
        }
        PieceType::King => king_steps(sq),
        PieceType::YariSilver => forward_three_steps(c, sq) | backward_slide(c, sq, occ),
        PieceType::YariGoldN | PieceType::YariGoldB => {
            gold_steps(c, sq) | backward_slide(c, sq, occ)
        }
        PieceType::Rook => rook_slides(sq, occ),
    }
}

/// Whether kind `pt` of colour `c` standing on `sq` has any move on an empty board; pieces may
/// not be dropped or left where they have none.
#[inline]
pub fn has_move_from(c: Color, pt: PieceType, sq: Square) -> bool {
    attacks(c, pt, sq, Bitboard::EMPTY).is_some()
}

/// The slow, obviously correct version of `attacks`, square by square, for tests.
pub fn attacks_reference(c: Color, pt: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
    let fwd: i8 = if c == Color::Black { -1 } else { 1 };
    let slide = |dirs: &[(i8, i8)]| std_attacks::slide_reference(sq, occ, dirs, FILES);
    let step = |dirs: &[(i8, i8)]| std_attacks::step_reference(sq, dirs, FILES);
    let gold = [(0, fwd), (1, fwd), (-1, fwd), (1, 0), (-1, 0), (0, -fwd)];
    match pt {
        PieceType::Pawn => step(&[(0, fwd)]),
        PieceType::YariKnight => step(&[(1, 2 * fwd), (-1, 2 * fwd)]) | slide(&[(0, fwd)]),
        PieceType::YariBishop => step(&[(1, fwd), (-1, fwd)]) | slide(&[(0, fwd)]),
        PieceType::YariRook => slide(&[(0, fwd), (1, 0), (-1, 0)]),
        PieceType::King => step(&[
            (0, 1),
            (0, -1),
            (1, 0),
            (-1, 0),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ]),
        PieceType::YariSilver => step(&[(0, fwd), (1, fwd), (-1, fwd)]) | slide(&[(0, -fwd)]),
        PieceType::YariGoldN | PieceType::YariGoldB => step(&gold) | slide(&[(0, -fwd)]),
        PieceType::Rook => slide(&[(0, 1), (0, -1), (1, 0), (-1, 0)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_attacks_match_reference_on_random_occupancies() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..3000 {
            let mut occ = ((next() as u128) << 64 | next() as u128) & BOARD.0;
            for _ in 0..(next() % 3) {
                occ &= (next() as u128) << 64 | next() as u128;
            }
            let occ = Bitboard(occ);
            for i in 0..SQUARES as u8 {
                let sq = Square::new(i);
                for c in Color::ALL {
                    for pt in PieceType::ALL {
                        assert_eq!(
                            attacks(c, pt, sq, occ),
                            attacks_reference(c, pt, sq, occ),
                            "{c:?} {pt:?} on {sq}"
                        );
                    }
                }
            }
        }
    }
}
