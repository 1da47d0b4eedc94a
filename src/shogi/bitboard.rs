//! `Bitboard(u128)`: one bit per square in `Square` index order, bits 81..128 always zero.

use super::types::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

pub const BOARD_MASK: u128 = (1u128 << 81) - 1;

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const ALL: Bitboard = Bitboard(BOARD_MASK);

    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn is_some(self) -> bool {
        self.0 != 0
    }

    /// Tests one 64-bit half: a 128-bit shift by a variable amount costs several instructions
    /// and a branch, and move generation asks this for every piece and many destinations.
    #[inline]
    pub const fn has(self, sq: Square) -> bool {
        let i = sq.index();
        let half = if i < 64 {
            self.0 as u64
        } else {
            (self.0 >> 64) as u64
        };
        (half >> (i & 63)) & 1 != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// Lowest square; the board must not be empty.
    #[inline]
    pub fn lsb(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::new(self.0.trailing_zeros() as u8)
    }

    /// Removes and returns the lowest square. Works on the two 64-bit halves, since 128-bit
    /// `trailing_zeros` and `x & (x - 1)` each cost several instructions and every loop over
    /// squares runs through here.
    #[inline]
    pub fn pop(&mut self) -> Option<Square> {
        let lo = self.0 as u64;
        if lo != 0 {
            self.0 ^= (lo & lo.wrapping_neg()) as u128;
            return Some(Square::new(lo.trailing_zeros() as u8));
        }
        let hi = (self.0 >> 64) as u64;
        if hi != 0 {
            self.0 ^= ((hi & hi.wrapping_neg()) as u128) << 64;
            return Some(Square::new(64 + hi.trailing_zeros() as u8));
        }
        None
    }

    #[inline]
    pub const fn and_not(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }

    /// Squares of the 0-based file `f`.
    #[inline]
    pub const fn file_mask(f: u8) -> Bitboard {
        Bitboard(0x1ffu128 << (9 * f as u32))
    }

    /// Squares of the 0-based rank `r` (0 = rank a).
    pub const fn rank_mask(r: u8) -> Bitboard {
        let mut bb = 0u128;
        let mut f = 0;
        while f < 9 {
            bb |= 1u128 << (f * 9 + r as u32);
            f += 1;
        }
        Bitboard(bb)
    }

    /// Squares whose 0-based rank is in `lo..=hi`.
    pub const fn ranks(lo: u8, hi: u8) -> Bitboard {
        let mut bb = 0u128;
        let mut r = lo;
        while r <= hi {
            bb |= Bitboard::rank_mask(r).0;
            r += 1;
        }
        Bitboard(bb)
    }

    /// Fills each file that has a bit set in `self` entirely, for nifu masks.
    #[inline]
    pub fn fill_files(self) -> Bitboard {
        let mut out = 0u128;
        let mut f = 0;
        while f < 9 {
            let m = 0x1ffu128 << (9 * f);
            if self.0 & m != 0 {
                out |= m;
            }
            f += 1;
        }
        Bitboard(out)
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        self.pop()
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & BOARD_MASK)
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Bitboard(")?;
        for r in 0..9 {
            for file in (0..9).rev() {
                let sq = Square::from_file_rank(file, r);
                write!(f, "{}", if self.has(sq) { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        write!(f, ")")
    }
}
