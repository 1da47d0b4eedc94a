//! Static exchange evaluation: whether a move wins at least `threshold` once every capture and
//! recapture on its destination has been played out, least valuable attacker first.

use crate::shogi::attacks::{self};
use crate::shogi::board::{Board, PieceSet};
use crate::shogi::types::Kind;
use crate::shogi::{Bitboard, Color, Move, PieceType, Position, Square};

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

/// Standard shogi's attackers in the order an exchange brings them in.
pub(crate) const CHEAPEST_FIRST: &[PieceType] = &ORDER;

/// Sliders of either colour reaching `sq` through `occ`: after a capture only they can join the
/// exchange from behind the piece that took.
pub(crate) fn slider_attackers(pos: &Position, sq: Square, occ: Bitboard) -> Bitboard {
    let rd = pos.pieces(PieceType::Rook) | pos.pieces(PieceType::Dragon);
    let bh = pos.pieces(PieceType::Bishop) | pos.pieces(PieceType::Horse);
    let lances = pos.pieces(PieceType::Lance);
    ((attacks::rook_attacks(sq, occ) & rd)
        | (attacks::bishop_attacks(sq, occ) & bh)
        | (attacks::lance_attacks(Color::White, sq, occ) & lances & pos.pieces_of(Color::Black))
        | (attacks::lance_attacks(Color::Black, sq, occ) & lances & pos.pieces_of(Color::White)))
        & occ
}

impl<S: PieceSet> Board<S> {
    /// Static exchange evaluation: whether the exchange `m` starts on its destination wins at
    /// least `threshold` for the mover, both sides capturing with their cheapest piece each time
    /// and free to stop. Promotions after the first move are ignored.
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        let to = m.to();
        if !S::on_board(to) {
            return false;
        }
        let placed = self.moved_kind_after(m);
        let victim = self.piece_on(to);
        let mut gain = if victim.is_some() {
            S::exchange_value(victim.kind())
        } else {
            0
        };
        if m.is_promotion() {
            gain += S::exchange_value(placed) - S::exchange_value(placed.unpromote());
        }
        let mut swap = gain - threshold;
        if swap < 0 {
            return false;
        }
        swap = S::exchange_value(placed) - swap;
        if swap <= 0 {
            return true;
        }
        let mut occ = self.occupied() | Bitboard::from_square(to);
        if !m.is_drop() {
            occ ^= Bitboard::from_square(m.from());
        }
        let mut attackers = (self.attackers_to(Color::Black, to, occ)
            | self.attackers_to(Color::White, to, occ))
            & occ;
        let mut stm = self.side_to_move();
        let mut res = true;
        loop {
            stm = !stm;
            attackers &= occ;
            let mine = attackers & self.pieces_of(stm);
            if mine.is_empty() {
                break;
            }
            res = !res;
            let Some((pt, sq)) = S::CHEAPEST_FIRST.iter().find_map(|&pt| {
                let b = mine & self.pieces(pt);
                b.is_some().then(|| (pt, b.lsb()))
            }) else {
                break;
            };
            if pt == S::Kind::KING {
                // The king may only take last: if the other side still attacks, it cannot.
                return if (attackers & self.pieces_of(!stm)).is_some() {
                    !res
                } else {
                    res
                };
            }
            swap = S::exchange_value(pt) - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= Bitboard::from_square(sq);
            attackers |= S::attackers_behind(self, to, occ);
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchanges() {
        // Rook takes a pawn defended by a gold: loses the rook for a pawn.
        let p = Position::from_sfen("4k4/4g4/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5h5c").unwrap();
        assert!(!p.see_ge(m, 0));
        // An undefended pawn is won.
        let p = Position::from_sfen("4k4/9/4p4/9/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5h5c").unwrap();
        assert!(p.see_ge(m, 0) && p.see_ge(m, 90) && !p.see_ge(m, 91));
        // Pawn takes pawn defended by a gold, backed by a rook: P x P, G x P, R x G.
        let p = Position::from_sfen("4k4/4g4/4p4/4P4/9/9/9/4R4/4K4 b - 1").unwrap();
        let m = p.parse_move("5d5c").unwrap();
        assert!(p.see_ge(m, 0));
    }
}
