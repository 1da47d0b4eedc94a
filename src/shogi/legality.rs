//! Legality of one given move without generating the others: used for hash-table moves, which
//! may come from another position with the same key slot, and for mate-in-one candidates.

use super::attacks::{self, between, line};
use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{Move, PieceType};

impl Position {
    /// Whether `m` is legal here (full mode). Agrees with `legal_moves(self).contains(&m)`; the
    /// differential tests check that.
    pub fn is_legal_move(&self, m: Move) -> bool {
        if m.is_none() {
            return false;
        }
        let us = self.side_to_move();
        let them = !us;
        let to = m.to();
        if m.to().index() >= 81 {
            return false;
        }
        let king = self.king_square(us);
        let checkers = self.checkers();
        if m.is_drop() {
            let origin = (m.raw() >> 7) & 127;
            if m.is_promotion() || !(82..=81 + PieceType::Gold as u16).contains(&origin) {
                return false;
            }
            let pt = m.dropped();
            if !self.hand(us).has(pt) || self.piece_on(to).is_some() {
                return false;
            }
            if super::movegen::drop_squares(self, us, pt, Bitboard::from_square(to)).is_empty() {
                return false;
            }
            if checkers.is_some() {
                let Some(k) = king else { return false };
                if checkers.more_than_one() || !between(k, checkers.lsb()).has(to) {
                    return false;
                }
            }
            if pt == PieceType::Pawn {
                let mut list = super::movegen::MoveList::new();
                // Pawn-drop mate is rare and subtle; the generator's own test decides it.
                super::movegen::pawn_drop_if_legal(self, to, &mut list);
                return !list.is_empty();
            }
            return true;
        }
        let from = m.from();
        if from.index() >= 81 || from == to {
            return false;
        }
        let p = self.piece_on(from);
        if p.is_none() || p.color() != us {
            return false;
        }
        if self.pieces_of(us).has(to) {
            return false;
        }
        let pt = p.kind();
        let occ = self.occupied();
        if !attacks::attacks(us, pt, from, occ).has(to) {
            return false;
        }
        let (can_promote, must_promote) = super::movegen::promotion_options(us, pt, from, to);
        if if m.is_promotion() {
            !can_promote
        } else {
            must_promote
        } {
            return false;
        }
        if pt == PieceType::King {
            return !self.is_attacked(them, to, occ ^ Bitboard::from_square(from));
        }
        let Some(k) = king else { return true };
        if checkers.is_some() {
            if checkers.more_than_one() {
                return false;
            }
            let c = checkers.lsb();
            if to != c && !between(k, c).has(to) {
                return false;
            }
        }
        if self.pinned(us).has(from) && !line(k, from).has(to) {
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::movegen::legal_moves;
    use super::super::types::Square;
    use super::*;

    /// Every encodable move, legal or not, is judged the same way as the generator judges it.
    #[test]
    fn agrees_with_the_generator_on_every_encodable_move() {
        let mut rand = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        for start in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            "7lk/9/8S/9/9/9/9/7L1/8K b P 1",
        ] {
            let mut pos = Position::from_sfen(start).unwrap();
            for _ in 0..60 {
                let legal = legal_moves(&pos);
                for from in 0..81u8 {
                    for to in 0..81u8 {
                        for promote in [false, true] {
                            let m = Move::normal(Square::new(from), Square::new(to), promote);
                            if from != to {
                                assert_eq!(
                                    pos.is_legal_move(m),
                                    legal.contains(&m),
                                    "{m} in {}",
                                    pos.to_sfen()
                                );
                            }
                        }
                    }
                }
                for pt in PieceType::HAND {
                    for to in Square::all() {
                        let m = Move::drop(pt, to);
                        assert_eq!(
                            pos.is_legal_move(m),
                            legal.contains(&m),
                            "{m} in {}",
                            pos.to_sfen()
                        );
                    }
                }
                if legal.is_empty() {
                    break;
                }
                let m = legal[(rand() % legal.len() as u64) as usize];
                pos.do_move(m);
            }
        }
    }
}
