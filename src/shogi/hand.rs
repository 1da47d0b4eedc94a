//! Pieces in hand, packed into one `u32` so that hands compare, hash and copy cheaply.

use super::board::HandCounts;
use super::types::PieceType;
use std::fmt;

/// Counts of each droppable kind. Each count has its own bit field with spare bits above it, so
/// that subtracting two hands borrows into a spare bit exactly when some count goes negative; that
/// makes "has at least every piece of" a single subtraction and mask.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

const SHIFT: [u32; 8] = [0, 0, 8, 12, 16, 20, 24, 28];
const MASK: [u32; 8] = [0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7];
const BORROW: u32 =
    (1 << 5) | (1 << 11) | (1 << 15) | (1 << 19) | (1 << 22) | (1 << 26) | (1 << 31);

impl Hand {
    pub const EMPTY: Hand = Hand(0);

    #[inline]
    pub fn count(self, pt: PieceType) -> u32 {
        let i = pt as usize;
        (self.0 >> SHIFT[i]) & MASK[i]
    }

    #[inline]
    pub fn add(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) < MASK[pt as usize]);
        self.0 += 1 << SHIFT[pt as usize];
    }

    #[inline]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) > 0);
        self.0 -= 1 << SHIFT[pt as usize];
    }

    #[inline]
    pub fn has(self, pt: PieceType) -> bool {
        self.count(pt) != 0
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Sets a count; `n` must fit the kind's field (18 pawns, 4 of lance..silver and gold, 2 of rook
    /// and bishop); callers validate counts first.
    pub fn set(&mut self, pt: PieceType, n: u32) {
        let i = pt as usize;
        debug_assert!(n <= MASK[i]);
        self.0 = (self.0 & !(MASK[i] << SHIFT[i])) | ((n & MASK[i]) << SHIFT[i]);
    }

    /// True when this hand holds at least as many of every kind as `other` (used by repetition
    /// rules: the same board with a superior hand is strictly better).
    #[inline]
    pub fn dominates(self, other: Hand) -> bool {
        self.0.wrapping_sub(other.0) & BORROW == 0
    }

    /// A bit set of the kinds present, for quick tests such as "anything but pawns".
    #[inline]
    pub fn raw(self) -> u32 {
        self.0
    }

    /// The inverse of `raw`, for tables that store hands packed; `v` must come from `raw`.
    #[inline]
    pub fn from_raw(v: u32) -> Hand {
        Hand(v)
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND.iter().map(|&pt| self.count(pt)).sum()
    }
}

impl HandCounts for Hand {
    type Kind = PieceType;
    const EMPTY: Hand = Hand::EMPTY;
    #[inline]
    fn count(self, pt: PieceType) -> u32 {
        Hand::count(self, pt)
    }
    #[inline]
    fn add(&mut self, pt: PieceType) {
        Hand::add(self, pt)
    }
    #[inline]
    fn remove(&mut self, pt: PieceType) {
        Hand::remove(self, pt)
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hand(")?;
        for pt in PieceType::SFEN_HAND_ORDER {
            let n = self.count(pt);
            if n > 0 {
                write!(f, "{}{}", n, pt.letter())?;
            }
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_dominance() {
        let mut a = Hand::EMPTY;
        for _ in 0..18 {
            a.add(PieceType::Pawn);
        }
        a.add(PieceType::Rook);
        a.add(PieceType::Rook);
        a.add(PieceType::Gold);
        assert_eq!(a.count(PieceType::Pawn), 18);
        assert_eq!(a.count(PieceType::Rook), 2);
        assert_eq!(a.count(PieceType::Gold), 1);
        assert_eq!(a.count(PieceType::Bishop), 0);
        let mut b = a;
        b.remove(PieceType::Pawn);
        assert!(a.dominates(b));
        assert!(!b.dominates(a));
        assert!(a.dominates(a));
        let mut c = b;
        c.add(PieceType::Silver);
        assert!(!a.dominates(c) && !c.dominates(a));
        for pt in PieceType::HAND {
            let mut h = Hand::EMPTY;
            h.add(pt);
            assert!(
                h.dominates(Hand::EMPTY) && !Hand::EMPTY.dominates(h),
                "{pt:?}"
            );
        }
    }
}
