//! Yari shogi's piece kinds, coloured pieces and hands.
//!
//! Unpromoted kinds carry the number of the standard shogi kind with the same SFEN letter, and a
//! promoted kind is its base kind plus 8, so the numbers stay below 16 and a coloured piece (kind
//! plus 16 per colour) below 32, which keeps per-piece tables as small as standard shogi's.

use crate::shogi::PieceType as ShogiKind;
use crate::shogi::board::HandCounts;
use crate::shogi::types::{ColoredPiece, Kind};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    /// Steps one square forward.
    Pawn = 1,
    /// Slides straight forward, or leaps like a shogi knight.
    YariKnight = 3,
    /// Steps diagonally forward, or slides straight forward.
    YariBishop = 5,
    /// Slides forward, left or right.
    YariRook = 6,
    King = 8,
    /// Promoted pawn: steps forward or diagonally forward, slides straight back.
    YariSilver = 9,
    /// Promoted yari knight: steps like a gold, slides straight back; goes back to hand as a knight.
    YariGoldN = 11,
    /// Promoted yari bishop: moves as `YariGoldN`, but goes back to hand as a bishop.
    YariGoldB = 13,
    /// Promoted yari rook: the full rook of standard shogi.
    Rook = 14,
}

impl PieceType {
    pub const PROMOTED: u8 = 8;
    pub const ALL: [PieceType; 9] = [
        PieceType::Pawn,
        PieceType::YariKnight,
        PieceType::YariBishop,
        PieceType::YariRook,
        PieceType::King,
        PieceType::YariSilver,
        PieceType::YariGoldN,
        PieceType::YariGoldB,
        PieceType::Rook,
    ];
    /// Kinds that can be held in hand, in `Hand` slot order.
    pub const HAND: [PieceType; 4] = [
        PieceType::Pawn,
        PieceType::YariKnight,
        PieceType::YariBishop,
        PieceType::YariRook,
    ];
    /// Hand kinds in the order SFEN writes them.
    pub const SFEN_HAND_ORDER: [PieceType; 4] = [
        PieceType::YariRook,
        PieceType::YariBishop,
        PieceType::YariKnight,
        PieceType::Pawn,
    ];

    /// Slot in `Hand` and in the hand Zobrist keys; only meaningful for hand kinds.
    #[inline]
    pub fn hand_slot(self) -> usize {
        match self.unpromote() {
            PieceType::Pawn => 0,
            PieceType::YariKnight => 1,
            PieceType::YariBishop => 2,
            _ => 3,
        }
    }

    /// The standard shogi kind whose drop move encodes a drop of this (hand) kind: the one with
    /// the same letter, so that USI text such as `N*3c` reads the same in both games.
    #[inline]
    pub fn to_shogi_drop(self) -> ShogiKind {
        match self.unpromote() {
            PieceType::Pawn => ShogiKind::Pawn,
            PieceType::YariKnight => ShogiKind::Knight,
            PieceType::YariBishop => ShogiKind::Bishop,
            _ => ShogiKind::Rook,
        }
    }

    /// The hand kind a standard-shogi drop kind stands for, if any.
    #[inline]
    pub const fn from_shogi_drop(k: ShogiKind) -> Option<PieceType> {
        match k {
            ShogiKind::Pawn => Some(PieceType::Pawn),
            ShogiKind::Knight => Some(PieceType::YariKnight),
            ShogiKind::Bishop => Some(PieceType::YariBishop),
            ShogiKind::Rook => Some(PieceType::YariRook),
            _ => None,
        }
    }

    /// How many of the unpromoted kind one full set holds (both sides together).
    pub fn count_in_set(self) -> u32 {
        match self.unpromote() {
            PieceType::Pawn => 14,
            PieceType::King => 2,
            _ => 4,
        }
    }
}

/// A yari piece.
pub type Piece = ColoredPiece<PieceType>;

/// Yari's kinds as the shared board and piece code see them: the one home of how they are
/// numbered and written; they promote by the shared numbering.
impl Kind for PieceType {
    #[inline]
    fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => PieceType::Pawn,
            3 => PieceType::YariKnight,
            5 => PieceType::YariBishop,
            6 => PieceType::YariRook,
            8 => PieceType::King,
            9 => PieceType::YariSilver,
            11 => PieceType::YariGoldN,
            13 => PieceType::YariGoldB,
            14 => PieceType::Rook,
            _ => return None,
        })
    }

    /// The unpromoted kind written with `c` (either case).
    fn from_letter(c: u8) -> Option<Self> {
        Some(match c.to_ascii_uppercase() {
            b'P' => PieceType::Pawn,
            b'N' => PieceType::YariKnight,
            b'B' => PieceType::YariBishop,
            b'R' => PieceType::YariRook,
            b'K' => PieceType::King,
            _ => return None,
        })
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }

    /// The four kinds with a promoted form, named outright: move generation asks for every move.
    #[inline]
    fn can_promote(self) -> bool {
        matches!(
            self,
            PieceType::Pawn | PieceType::YariKnight | PieceType::YariBishop | PieceType::YariRook
        )
    }

    /// The SFEN letter of the unpromoted kind (uppercase).
    fn letter(self) -> char {
        match self.unpromote() {
            PieceType::Pawn => 'P',
            PieceType::YariKnight => 'N',
            PieceType::YariBishop => 'B',
            PieceType::YariRook => 'R',
            _ => 'K',
        }
    }

    const PAWN: Self = PieceType::Pawn;
    const KING: Self = PieceType::King;
    const HAND: &'static [Self] = &PieceType::HAND;
    const SFEN_HAND_ORDER: &'static [Self] = &PieceType::SFEN_HAND_ORDER;
}

/// Counts of the four droppable kinds, one byte each (pawn, knight, bishop, rook from the low byte
/// up), so hands compare and copy as one `u32`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

impl Hand {
    pub const EMPTY: Hand = Hand(0);

    #[inline]
    pub fn has(self, pt: PieceType) -> bool {
        self.count(pt) != 0
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Pieces held, all kinds together.
    pub const fn total(self) -> u32 {
        (self.0 & 0xff) + ((self.0 >> 8) & 0xff) + ((self.0 >> 16) & 0xff) + (self.0 >> 24)
    }

    /// Sets a count; callers keep it below 256 (SFEN parsing checks the set's limits first).
    pub fn set(&mut self, pt: PieceType, n: u32) {
        let shift = 8 * pt.hand_slot();
        self.0 = (self.0 & !(0xff << shift)) | ((n & 0xff) << shift);
    }
}

/// The one home of a yari hand's counting, which the shared board and the yari code both use.
impl HandCounts for Hand {
    type Kind = PieceType;
    const EMPTY: Hand = Hand(0);

    #[inline]
    fn count(self, pt: PieceType) -> u32 {
        (self.0 >> (8 * pt.hand_slot())) & 0xff
    }

    #[inline]
    fn add(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) < 0xff);
        self.0 += 1 << (8 * pt.hand_slot());
    }

    #[inline]
    fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) > 0);
        self.0 -= 1 << (8 * pt.hand_slot());
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut any = false;
        for pt in PieceType::SFEN_HAND_ORDER {
            let n = self.count(pt);
            if n > 0 {
                any = true;
                write!(f, "{}{} ", pt.letter(), n)?;
            }
        }
        if !any {
            write!(f, "-")?;
        }
        Ok(())
    }
}
