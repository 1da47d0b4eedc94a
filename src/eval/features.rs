//! The evaluation is linear: a sum of weights, each counted +1 for a Black feature and -1 for the
//! same feature of White (seen from White's side of the board). Listing the active features is
//! therefore all the evaluation does, and the tuner fits weights with the very same list.

use crate::shogi::{Color, PieceType, Position, Square};

/// Table layout inside the flat weight vector.
pub const BOARD: usize = 0; // [kind 15]: a piece on the board
pub const HAND: usize = BOARD + 15; // [kind 8][count 19]: the n-th piece of a kind in hand
pub const PSQ: usize = HAND + 8 * 19; // [kind 15][square 81], square from the owner's side
pub const OWN_KING: usize = PSQ + 15 * 81; // [kind 15][dfile 17][drank 17] from the own king
pub const ENEMY_KING: usize = OWN_KING + 15 * 289; // [kind 15][dfile 17][drank 17] from the enemy king
pub const NUM_WEIGHTS: usize = ENEMY_KING + 15 * 289;

/// Names of the tables in the weights file, with their offsets and lengths.
pub const TABLES: [(&str, usize, usize); 5] = [
    ("board", BOARD, 15),
    ("hand", HAND, 8 * 19),
    ("psq", PSQ, 15 * 81),
    ("own_king", OWN_KING, 15 * 289),
    ("enemy_king", ENEMY_KING, 15 * 289),
];

/// A square as its owner sees it: Black's view for Black, the rotated board for White.
#[inline]
fn owner_view(c: Color, sq: Square) -> Square {
    if c == Color::Black { sq } else { sq.flip() }
}

#[inline]
fn relative(c: Color, king: Square, sq: Square) -> usize {
    let k = owner_view(c, king);
    let s = owner_view(c, sq);
    let df = s.file() as i32 - k.file() as i32 + 8;
    let dr = s.rank() as i32 - k.rank() as i32 + 8;
    (df * 17 + dr) as usize
}

/// Calls `f(weight_index, sign)` for every active feature; sign is +1 for Black, -1 for White.
#[inline]
pub fn for_each_feature(pos: &Position, mut f: impl FnMut(usize, i32)) {
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    for sq in pos.occupied() {
        let p = pos.piece_on(sq);
        let c = p.color();
        let k = p.kind().index();
        let sign = if c == Color::Black { 1 } else { -1 };
        f(BOARD + k, sign);
        f(PSQ + k * 81 + owner_view(c, sq).index(), sign);
        if p.kind() == PieceType::King {
            continue;
        }
        if let Some(own) = kings[c.index()] {
            f(OWN_KING + k * 289 + relative(c, own, sq), sign);
        }
        if let Some(enemy) = kings[(!c).index()] {
            f(ENEMY_KING + k * 289 + relative(c, enemy, sq), sign);
        }
    }
    for c in Color::ALL {
        let sign = if c == Color::Black { 1 } else { -1 };
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            for n in 0..hand.count(pt) as usize {
                f(HAND + pt.index() * 19 + n, sign);
            }
        }
    }
}
