//! Attacks on the 7-file board. The board is files 1-7 of the standard 9x9 bitboard, so the
//! standard lance and rook ray functions serve for yari's straight slides once their result is
//! masked to the seven files; only the step tables are yari's own, built by standard shogi's
//! builder from its patterns and two of yari's.

use super::types::PieceType;
use crate::shogi::attacks as std_attacks;
use crate::shogi::{Bitboard, Color, Square};

pub const FILES: u8 = 7;
pub const RANKS: u8 = 9;
pub const SQUARES: usize = 63;
/// The yari board inside the 9x9 bitboard: files 1-7 are the first 63 bits.
pub const BOARD: Bitboard = Bitboard((1u128 << SQUARES) - 1);

/// Step patterns for Black as (file step, rank step) that standard shogi has no piece for;
/// forward is towards rank a (rank step -1). The pawn, knight, gold and king step as in standard
/// shogi and take its patterns.
const FORWARD_DIAGONALS: &[(i32, i32)] = &[(1, -1), (-1, -1)];
const FORWARD_THREE: &[(i32, i32)] = &[(0, -1), (1, -1), (-1, -1)];

/// The step-moving kinds, in the order of their patterns in `STEP`.
#[derive(Clone, Copy)]
enum Step {
    Pawn,
    ForwardDiagonals,
    ForwardThree,
    Gold,
    Knight,
    King,
}
const PATTERNS: usize = Step::King as usize + 1;

static STEP: [[[Bitboard; SQUARES]; PATTERNS]; 2] = std_attacks::step_table([
    std_attacks::PAWN_STEPS,
    FORWARD_DIAGONALS,
    FORWARD_THREE,
    std_attacks::GOLD_STEPS,
    std_attacks::KNIGHT_STEPS,
    std_attacks::KING_STEPS,
]);

#[inline]
fn step(c: Color, pattern: Step, sq: Square) -> Bitboard {
    STEP[c.index()][pattern as usize][sq.index()]
}

#[inline]
pub fn pawn_steps(c: Color, sq: Square) -> Bitboard {
    step(c, Step::Pawn, sq)
}
#[inline]
pub fn forward_diagonal_steps(c: Color, sq: Square) -> Bitboard {
    step(c, Step::ForwardDiagonals, sq)
}
#[inline]
pub fn forward_three_steps(c: Color, sq: Square) -> Bitboard {
    step(c, Step::ForwardThree, sq)
}
#[inline]
pub fn gold_steps(c: Color, sq: Square) -> Bitboard {
    step(c, Step::Gold, sq)
}
#[inline]
pub fn knight_leaps(c: Color, sq: Square) -> Bitboard {
    step(c, Step::Knight, sq)
}
#[inline]
pub fn king_steps(sq: Square) -> Bitboard {
    step(Color::Black, Step::King, sq)
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
    let gold = std_attacks::gold_directions(fwd);
    match pt {
        PieceType::Pawn => step(&[(0, fwd)]),
        PieceType::YariKnight => step(&[(1, 2 * fwd), (-1, 2 * fwd)]) | slide(&[(0, fwd)]),
        PieceType::YariBishop => step(&[(1, fwd), (-1, fwd)]) | slide(&[(0, fwd)]),
        PieceType::YariRook => slide(&[(0, fwd), (1, 0), (-1, 0)]),
        PieceType::King => step(&std_attacks::KING_DIRECTIONS),
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
        std_attacks::assert_attacks_match_reference(
            BOARD,
            &PieceType::ALL,
            0x2545_f491_4f6c_dd1d,
            3000,
            attacks,
            attacks_reference,
        );
    }
}
