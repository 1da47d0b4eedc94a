//! Static exchange evaluation: whether a move wins at least `threshold` once every capture and
//! recapture on its destination has been played out, least valuable attacker first.

use crate::shogi::attacks::{self};
use crate::shogi::{Bitboard, Color, Move, PieceType, Position};

/// Fixed exchange values, independent of the fitted weights so that move ordering (and so the
/// bench node count) does not shift with every evaluation change.
pub const SEE_VALUE: [i32; 15] = [
    0, 90, 315, 405, 495, 855, 990, 540, 15000, 540, 540, 540, 540, 945, 1395,
];

/// Attackers tried in this order: cheapest first.
const ORDER: [PieceType; 14] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::Silver,
    PieceType::ProPawn,
    PieceType::ProLance,
    PieceType::ProKnight,
    PieceType::ProSilver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Horse,
    PieceType::Rook,
    PieceType::Dragon,
    PieceType::King,
];

#[inline]
pub fn value(pt: PieceType) -> i32 {
    SEE_VALUE[pt.index()]
}

fn all_attackers(pos: &Position, sq: crate::shogi::Square, occ: Bitboard) -> Bitboard {
    (pos.attackers_to(Color::Black, sq, occ) | pos.attackers_to(Color::White, sq, occ)) & occ
}

fn slider_attackers(pos: &Position, sq: crate::shogi::Square, occ: Bitboard) -> Bitboard {
    let rd = pos.pieces(PieceType::Rook) | pos.pieces(PieceType::Dragon);
    let bh = pos.pieces(PieceType::Bishop) | pos.pieces(PieceType::Horse);
    let lances = pos.pieces(PieceType::Lance);
    ((attacks::rook_attacks(sq, occ) & rd)
        | (attacks::bishop_attacks(sq, occ) & bh)
        | (attacks::lance_attacks(Color::White, sq, occ) & lances & pos.pieces_of(Color::Black))
        | (attacks::lance_attacks(Color::Black, sq, occ) & lances & pos.pieces_of(Color::White)))
        & occ
}

pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    let to = m.to();
    let us = pos.side_to_move();
    let (captured, first) = if m.is_drop() {
        (0, value(m.dropped()))
    } else {
        let victim = pos.piece_on(to);
        let gain = if victim.is_some() {
            value(victim.kind())
        } else {
            0
        };
        let mover = pos.piece_on(m.from()).kind();
        let promo = if m.is_promotion() {
            value(mover.promote()) - value(mover)
        } else {
            0
        };
        (gain + promo, value(pos.moved_piece_after(m)))
    };
    let mut swap = captured - threshold;
    if swap < 0 {
        return false;
    }
    swap = first - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied() | Bitboard::from_square(to);
    if !m.is_drop() {
        occ ^= Bitboard::from_square(m.from());
    }
    let mut attackers = all_attackers(pos, to, occ);
    let mut stm = us;
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let mine = attackers & pos.pieces_of(stm);
        if mine.is_empty() {
            break;
        }
        res = !res;
        let Some((pt, sq)) = ORDER.iter().find_map(|&pt| {
            let b = mine & pos.pieces(pt);
            b.is_some().then(|| (pt, b.lsb()))
        }) else {
            break;
        };
        if pt == PieceType::King {
            // The king may only take if nothing recaptures.
            return if (attackers & pos.pieces_of(!stm)).is_some() {
                !res
            } else {
                res
            };
        }
        swap = value(pt) - swap;
        if swap < res as i32 {
            break;
        }
        occ ^= Bitboard::from_square(sq);
        // Only sliders can appear behind the piece that just took.
        attackers |= slider_attackers(pos, to, occ);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchanges() {
        // Rook takes a pawn defended by a gold: loses the rook for a pawn.
        let p = Position::from_sfen("4k4/4g4/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5h5c").unwrap();
        assert!(!see_ge(&p, m, 0));
        // An undefended pawn is won.
        let p = Position::from_sfen("4k4/9/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5h5c").unwrap();
        assert!(see_ge(&p, m, 0) && see_ge(&p, m, 90) && !see_ge(&p, m, 91));
        // Pawn takes pawn defended by a gold, backed by a rook: P x P, G x P, R x G.
        let p = Position::from_sfen("4k4/4g4/4p4/4P4/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5d5c").unwrap();
        assert!(see_ge(&p, m, 0));
    }
}
