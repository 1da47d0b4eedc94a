//! Proof and disproof hands: the smallest attacker hand a proof needs and the largest hand a
//! disproof still covers. They rest on one fact: within one problem the pieces are fixed, so with
//! the board unchanged every piece the attacker holds is one the defender does not.

use crate::shogi::attacks::between;
use crate::shogi::{Color, Hand, Move, Piece, PieceType, Position};

#[inline]
fn map(a: Hand, b: Hand, f: impl Fn(u32, u32) -> u32) -> Hand {
    let mut h = Hand::EMPTY;
    for pt in PieceType::HAND {
        h.set(pt, f(a.count(pt), b.count(pt)));
    }
    h
}

/// Per-kind minimum.
pub fn meet(a: Hand, b: Hand) -> Hand {
    map(a, b, u32::min)
}

/// Per-kind maximum.
pub fn join(a: Hand, b: Hand) -> Hand {
    map(a, b, u32::max)
}

/// The most of every kind anyone can hold.
pub fn full() -> Hand {
    let mut h = Hand::EMPTY;
    for pt in PieceType::HAND {
        h.set(pt, u32::from(pt.count_in_set()));
    }
    h
}

/// The hand an attacker's move `m` (played from the current node, capturing `captured`) came from,
/// given a proof or disproof hand `child` of the position it leads to.
pub fn before_attacker_move(child: Hand, m: Move, captured: Piece) -> Hand {
    let mut h = child;
    if m.is_drop() {
        let pt = m.dropped();
        h.set(pt, (h.count(pt) + 1).min(u32::from(pt.count_in_set())));
    } else if captured.is_some() {
        let pt = captured.kind().unpromote();
        h.set(pt, h.count(pt).saturating_sub(1));
    }
    h
}

/// Disproof hand of an attacker node without checks: more of a kind already held adds no drop,
/// but a first piece of a kind might.
pub fn no_check_disproof(hand: Hand) -> Hand {
    limit_to_held_kinds(full(), hand)
}

/// An attacker node's disproof must not cover hands holding a kind it has none of, since such a
/// piece could be dropped with check.
pub fn limit_to_held_kinds(disproof: Hand, hand: Hand) -> Hand {
    let mut h = disproof;
    for pt in PieceType::HAND {
        if hand.count(pt) == 0 {
            h.set(pt, 0);
        }
    }
    h
}

/// Completes the proof hand of a defender node (the defender in check, to move). If the check
/// could be blocked by a drop, the defender could not drop a kind only because it held none; with
/// fewer of that kind the attacker would leave the defender one, so the proof must keep all the
/// attacker has of it.
pub fn defender_proof_fixup(pos: &Position, attacker: Color, ph: Hand) -> Hand {
    let defender = !attacker;
    let Some(k) = pos.king_square(defender) else {
        return ph;
    };
    let checkers = pos.checkers();
    if checkers.is_empty() || checkers.more_than_one() || between(k, checkers.lsb()).is_empty() {
        return ph;
    }
    let dh = pos.hand(defender);
    let ah = pos.hand(attacker);
    let mut h = ph;
    for pt in PieceType::HAND {
        if dh.count(pt) == 0 {
            h.set(pt, h.count(pt).max(ah.count(pt)));
        }
    }
    h
}

/// Disproof hand of a defender node refuted by move `m` with child disproof hand `child`: a drop
/// needs the defender to keep a piece of that kind, so the attacker may not hold more of it than now.
pub fn defender_disproof(child: Hand, m: Move, attacker_hand: Hand) -> Hand {
    let mut h = child;
    if m.is_drop() {
        let pt = m.dropped();
        h.set(pt, h.count(pt).min(attacker_hand.count(pt)));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Square;

    #[test]
    fn attacker_move_adjustments() {
        let mut child = Hand::EMPTY;
        child.set(PieceType::Gold, 1);
        let drop = Move::drop(PieceType::Gold, Square::new(10));
        assert_eq!(
            before_attacker_move(child, drop, Piece::NONE).count(PieceType::Gold),
            2
        );
        let capture = Move::normal(Square::new(1), Square::new(2), false);
        let taken = Piece::new(Color::White, PieceType::Dragon);
        let h = before_attacker_move(Hand::EMPTY, capture, taken);
        assert_eq!(h, Hand::EMPTY);
        let mut with_rook = Hand::EMPTY;
        with_rook.set(PieceType::Rook, 1);
        assert_eq!(before_attacker_move(with_rook, capture, taken), Hand::EMPTY);
    }

    #[test]
    fn no_check_disproof_keeps_absent_kinds_absent() {
        let mut h = Hand::EMPTY;
        h.set(PieceType::Pawn, 1);
        let d = no_check_disproof(h);
        assert_eq!(d.count(PieceType::Pawn), 18);
        assert_eq!(d.count(PieceType::Gold), 0);
        assert!(d.dominates(h));
    }
}
