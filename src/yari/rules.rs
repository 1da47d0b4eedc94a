//! Move legality for any move value, USI move text, repetition, the impasse count and the win it
//! gives, and static exchange evaluation.

use super::attacks;
use super::movegen::{drop_squares, promotion_options};
use super::position::{Position, on_board};
use super::types::PieceType;
use crate::shogi::{Bitboard, Color, HandCounts, Move, PieceType as ShogiKind};

/// Material values for exchanges and for the evaluation's start: the unpromoted sliders are worth
/// far less than their standard namesakes because they cannot go back.
pub fn value(kind: PieceType) -> i32 {
    match kind {
        PieceType::Pawn => 90,
        PieceType::YariKnight => 300,
        PieceType::YariBishop => 350,
        PieceType::YariSilver => 450,
        PieceType::YariGoldN | PieceType::YariGoldB => 480,
        PieceType::YariRook => 500,
        PieceType::Rook => 900,
        PieceType::King => 15000,
    }
}

/// Kinds from the cheapest up, the order exchanges use their attackers in.
pub(super) const BY_VALUE: [PieceType; 9] = [
    PieceType::Pawn,
    PieceType::YariKnight,
    PieceType::YariBishop,
    PieceType::YariSilver,
    PieceType::YariGoldN,
    PieceType::YariGoldB,
    PieceType::YariRook,
    PieceType::Rook,
    PieceType::King,
];

impl Position {
    /// Whether `m` is legal here; any 16-bit value is accepted (a hash-table move may be garbage)
    /// and answered without panicking. Agrees with `legal_moves().contains(&m)`.
    pub fn is_legal_move(&self, m: Move) -> bool {
        let raw = m.raw();
        if m.is_none() || raw >> 15 != 0 {
            return false;
        }
        let us = self.side_to_move();
        let them = !us;
        let to = m.to();
        if !on_board(to) || self.pieces_of(us).has(to) {
            return false;
        }
        let occ = self.occupied();
        let to_bb = Bitboard::from_square(to);
        if m.is_drop() {
            let origin = (raw >> 7) & 127;
            let shogi_kind = match origin.checked_sub(81).and_then(|v| u8::try_from(v).ok()) {
                Some(v) => ShogiKind::from_u8(v),
                None => None,
            };
            let Some(pt) = shogi_kind.and_then(PieceType::from_shogi_drop) else {
                return false;
            };
            if m.is_promotion() || !self.hand(us).has(pt) || occ.has(to) {
                return false;
            }
            if drop_squares(self, us, pt, to_bb).is_empty() {
                return false;
            }
            return match self.king_square(us) {
                Some(k) => self.attackers_to(them, k, occ | to_bb).is_empty(),
                None => true,
            };
        }
        let from = m.from();
        if !on_board(from) || from == to {
            return false;
        }
        let p = self.piece_on(from);
        if p.is_none() || p.color() != us {
            return false;
        }
        let pt = p.kind();
        if !attacks::attacks(us, pt, from, occ).has(to) {
            return false;
        }
        let (can_promote, must_promote) = promotion_options(us, pt, from, to);
        if (m.is_promotion() && !can_promote) || (!m.is_promotion() && must_promote) {
            return false;
        }
        let after = (occ ^ Bitboard::from_square(from)) | to_bb;
        let king = if pt == PieceType::King {
            Some(to)
        } else {
            self.king_square(us)
        };
        match king {
            // The captured piece (on `to`) attacks nothing any more.
            Some(k) => self.attackers_to(them, k, after).and_not(to_bb).is_empty(),
            None => true,
        }
    }

    /// Reads USI move text (`7g7f`, `2c2b+`, `N*3c`); the move must be legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, String> {
        let shown = text.escape_default();
        let Some(m) = crate::shogi::parse_syntax(text) else {
            return Err(format!("invalid move syntax '{shown}'"));
        };
        let off_board = !on_board(m.to()) || (!m.is_drop() && !on_board(m.from()));
        if off_board {
            return Err(format!(
                "move '{shown}' leaves the 7-file yari board (files 1-7)"
            ));
        }
        if m.is_drop() && PieceType::from_shogi_drop(m.dropped()).is_none() {
            return Err(format!(
                "move '{shown}' drops a piece yari shogi does not have (P N B R only)"
            ));
        }
        if self.is_legal_move(m) {
            Ok(m)
        } else {
            Err(format!("illegal move '{shown}' in this yari position"))
        }
    }

    /// Impasse points of `c`, board and hand: yari rook and yari bishop 5 each whether promoted
    /// or not, every other piece but the king 1.
    pub fn impasse_points(&self, c: Color) -> u32 {
        let ours = self.pieces_of(c);
        let big = self.pieces(PieceType::YariRook)
            | self.pieces(PieceType::Rook)
            | self.pieces(PieceType::YariBishop)
            | self.pieces(PieceType::YariGoldB);
        let king = self.pieces(PieceType::King);
        let board = 5 * (ours & big).count() + ours.and_not(big).and_not(king).count();
        let hand = self.hand(c);
        let big_in_hand = hand.count(PieceType::YariRook) + hand.count(PieceType::YariBishop);
        board + 5 * big_in_hand + (hand.total() - big_in_hand)
    }

    /// Whether each king stands in its enemy camp (the far three ranks).
    pub fn both_kings_entered(&self) -> bool {
        Color::ALL.iter().all(|&c| {
            self.king_square(c)
                .is_some_and(|k| super::movegen::in_zone(c, k))
        })
    }

    /// Whether the side to move wins by calling the impasse now: both kings have entered, it
    /// has at least `IMPASSE_POINTS` points and its opponent fewer (both at least that many is
    /// a draw, fewer than that a loss), and the game is not already over (a side without a
    /// legal move has lost; the referee ends such a game before the side may call anything).
    pub fn impasse_win(&self) -> bool {
        let us = self.side_to_move();
        self.both_kings_entered()
            && self.impasse_points(us) >= IMPASSE_POINTS
            && self.impasse_points(!us) < IMPASSE_POINTS
            && !self.legal_moves().is_empty()
    }
}

/// The impasse count a side needs not to lose (rules document): a full set is worth 29.
pub const IMPASSE_POINTS: u32 = 26;
