//! The small value types of the game: colours, squares, pieces and moves.

use std::fmt;
use std::marker::PhantomData;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente, who moves first in an even game.
    Black = 0,
    /// Gote; moves first in handicap games.
    White = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A square of the 9x9 board.
///
/// Index order: `(file - 1) * 9 + (rank - 1)`, so 1a = 0, 1i = 8, 2a = 9, ..., 9i = 80. Keeping each
/// file contiguous lets lance and rook file attacks be computed with plain integer arithmetic on the
/// bitboard. Ranks run from a (White's back rank, top of the diagram) to i (Black's back rank).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const NUM: usize = 81;

    #[inline]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 81);
        Square(index)
    }

    /// `file` and `rank` are 0-based here: file 0 is file "1", rank 0 is rank "a".
    #[inline]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        debug_assert!(file < 9 && rank < 9);
        Square(file * 9 + rank)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file: 0 for file 1 (the right edge from Black's view).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 / 9
    }

    /// 0-based rank: 0 for rank a (White's back rank).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9
    }

    /// Rank counted from `c`'s own side: 0 is the far (last) rank for `c`.
    #[inline]
    pub const fn relative_rank(self, c: Color) -> u8 {
        match c {
            Color::Black => self.rank(),
            Color::White => 8 - self.rank(),
        }
    }

    /// The same square seen from the other side of the board.
    #[inline]
    pub const fn flip(self) -> Square {
        Square(80 - self.0)
    }

    #[inline]
    pub fn offset(self, dfile: i8, drank: i8) -> Option<Square> {
        let f = self.file() as i8 + dfile;
        let r = self.rank() as i8 + drank;
        if (0..9).contains(&f) && (0..9).contains(&r) {
            Some(Square::from_file_rank(f as u8, r as u8))
        } else {
            None
        }
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// Parses `7g`-style text.
    pub fn parse(text: &[u8]) -> Option<Square> {
        match text {
            [f @ b'1'..=b'9', r @ b'a'..=b'i'] => Some(Square::from_file_rank(f - b'1', r - b'a')),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file() + 1, (b'a' + self.rank()) as char)
    }
}

/// Piece kinds. Promoted kinds are their base kind plus `PROMOTED`, so promotion is one `|`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    Pawn = 1,
    Lance = 2,
    Knight = 3,
    Silver = 4,
    Bishop = 5,
    Rook = 6,
    Gold = 7,
    King = 8,
    ProPawn = 9,
    ProLance = 10,
    ProKnight = 11,
    ProSilver = 12,
    Horse = 13,
    Dragon = 14,
}

impl PieceType {
    pub const PROMOTED: u8 = 8;
    /// Every kind, unpromoted first.
    pub const ALL: [PieceType; 14] = PieceType::numbered_from_pawn();
    /// Kinds that can be held in hand, in SFEN order (R B G S N L P reversed for indexing): the
    /// seven kinds a hand holds are numbers 1 to 7.
    pub const HAND: [PieceType; 7] = PieceType::numbered_from_pawn();
    /// Hand kinds in the order SFEN writes them.
    pub const SFEN_HAND_ORDER: [PieceType; 7] = [
        PieceType::Rook,
        PieceType::Bishop,
        PieceType::Gold,
        PieceType::Silver,
        PieceType::Knight,
        PieceType::Lance,
        PieceType::Pawn,
    ];

    /// The first `N` kinds in number order, so that the lists of kinds follow the numbering
    /// instead of repeating it.
    const fn numbered_from_pawn<const N: usize>() -> [PieceType; N] {
        let mut kinds = [PieceType::Pawn; N];
        let mut i = 0;
        while i < N {
            kinds[i] = match PieceType::from_u8(i as u8 + 1) {
                Some(pt) => pt,
                None => panic!("kinds are numbered 1 to 14"),
            };
            i += 1;
        }
        kinds
    }

    #[inline]
    pub const fn from_u8(v: u8) -> Option<PieceType> {
        Some(match v {
            1 => PieceType::Pawn,
            2 => PieceType::Lance,
            3 => PieceType::Knight,
            4 => PieceType::Silver,
            5 => PieceType::Bishop,
            6 => PieceType::Rook,
            7 => PieceType::Gold,
            8 => PieceType::King,
            9 => PieceType::ProPawn,
            10 => PieceType::ProLance,
            11 => PieceType::ProKnight,
            12 => PieceType::ProSilver,
            13 => PieceType::Horse,
            14 => PieceType::Dragon,
            _ => return None,
        })
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn can_promote(self) -> bool {
        (self as u8) < PieceType::Gold as u8
    }

    /// Lances, bishops, rooks, horses and dragons: the kinds whose reach depends on the
    /// occupancy.
    #[inline]
    pub const fn slides(self) -> bool {
        matches!(
            self,
            PieceType::Lance
                | PieceType::Bishop
                | PieceType::Rook
                | PieceType::Horse
                | PieceType::Dragon
        )
    }

    #[inline]
    pub const fn is_promoted(self) -> bool {
        (self as u8) > PieceType::King as u8
    }

    #[inline]
    pub fn promote(self) -> PieceType {
        debug_assert!(self.can_promote());
        match PieceType::from_u8(self as u8 | Self::PROMOTED) {
            Some(p) => p,
            None => self,
        }
    }

    /// The kind a captured piece turns into in the captor's hand.
    #[inline]
    pub fn unpromote(self) -> PieceType {
        if self.is_promoted() {
            match PieceType::from_u8(self as u8 & !Self::PROMOTED) {
                Some(p) => p,
                None => self,
            }
        } else {
            self
        }
    }

    /// Moves like a gold general (gold and the four small promoted pieces).
    #[inline]
    pub const fn moves_as_gold(self) -> bool {
        matches!(
            self,
            PieceType::Gold
                | PieceType::ProPawn
                | PieceType::ProLance
                | PieceType::ProKnight
                | PieceType::ProSilver
        )
    }

    /// The SFEN letter of the unpromoted kind (uppercase).
    pub const fn letter(self) -> char {
        match self {
            PieceType::Pawn | PieceType::ProPawn => 'P',
            PieceType::Lance | PieceType::ProLance => 'L',
            PieceType::Knight | PieceType::ProKnight => 'N',
            PieceType::Silver | PieceType::ProSilver => 'S',
            PieceType::Bishop | PieceType::Horse => 'B',
            PieceType::Rook | PieceType::Dragon => 'R',
            PieceType::Gold => 'G',
            PieceType::King => 'K',
        }
    }

    pub const fn from_letter(c: u8) -> Option<PieceType> {
        Some(match c.to_ascii_uppercase() {
            b'P' => PieceType::Pawn,
            b'L' => PieceType::Lance,
            b'N' => PieceType::Knight,
            b'S' => PieceType::Silver,
            b'B' => PieceType::Bishop,
            b'R' => PieceType::Rook,
            b'G' => PieceType::Gold,
            b'K' => PieceType::King,
            _ => return None,
        })
    }

    /// How many of the unpromoted kind one full set holds (both sides together).
    pub const fn count_in_set(self) -> u8 {
        match self {
            PieceType::Pawn | PieceType::ProPawn => 18,
            PieceType::Lance
            | PieceType::ProLance
            | PieceType::Knight
            | PieceType::ProKnight
            | PieceType::Silver
            | PieceType::ProSilver
            | PieceType::Gold => 4,
            PieceType::Bishop | PieceType::Horse | PieceType::Rook | PieceType::Dragon => 2,
            PieceType::King => 2,
        }
    }
}

/// What the shared board, pieces and SFEN code need of a game's piece kinds. Every game numbers
/// its kinds alike: below 16, the king 8, and a promoted kind its base kind plus 8, so that
/// promoting and unpromoting are the same arithmetic in each.
pub trait Kind: Copy + Eq + fmt::Debug + 'static {
    /// The kind an empty square's code decodes to; never on the board as such.
    const PAWN: Self;
    const KING: Self;
    /// Kinds that can be held in hand.
    const HAND: &'static [Self];
    /// Hand kinds in the order SFEN writes them.
    const SFEN_HAND_ORDER: &'static [Self];

    fn from_u8(v: u8) -> Option<Self>;

    /// The unpromoted kind written with `c` (either case).
    fn from_letter(c: u8) -> Option<Self>;

    fn index(self) -> usize;

    /// The SFEN letter of the unpromoted kind (uppercase).
    fn letter(self) -> char;

    #[inline]
    fn is_promoted(self) -> bool {
        self.index() > Self::KING.index()
    }

    #[inline]
    fn can_promote(self) -> bool {
        self.promote() != self
    }

    /// The promoted kind; kinds that cannot promote are returned unchanged.
    #[inline]
    fn promote(self) -> Self {
        match Self::from_u8(self.index() as u8 | PieceType::PROMOTED) {
            Some(p) => p,
            None => self,
        }
    }

    /// The kind a captured piece turns into in the captor's hand.
    #[inline]
    fn unpromote(self) -> Self {
        if self.is_promoted() {
            match Self::from_u8(self.index() as u8 & !PieceType::PROMOTED) {
                Some(p) => p,
                None => self,
            }
        } else {
            self
        }
    }
}

impl Kind for PieceType {
    const PAWN: Self = PieceType::Pawn;
    const KING: Self = PieceType::King;
    const HAND: &'static [Self] = &PieceType::HAND;
    const SFEN_HAND_ORDER: &'static [Self] = &PieceType::SFEN_HAND_ORDER;

    #[inline]
    fn from_u8(v: u8) -> Option<Self> {
        PieceType::from_u8(v)
    }

    fn from_letter(c: u8) -> Option<Self> {
        PieceType::from_letter(c)
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }

    fn letter(self) -> char {
        PieceType::letter(self)
    }
}

/// A coloured piece of a game whose kinds are `K`: `kind + 16 * colour`, so the colour is one
/// shift away and per-piece tables have 32 rows.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct ColoredPiece<K>(u8, PhantomData<K>);

/// A standard shogi piece.
pub type Piece = ColoredPiece<PieceType>;

impl<K: Kind> ColoredPiece<K> {
    pub const NONE: Self = ColoredPiece(0, PhantomData);
    pub const NUM: usize = 32;

    #[inline]
    pub fn new(c: Color, pt: K) -> Self {
        ColoredPiece(pt.index() as u8 | ((c as u8) << 4), PhantomData)
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn is_some(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn color(self) -> Color {
        if self.0 >> 4 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The kind; only meaningful for a non-empty piece.
    #[inline]
    pub fn kind(self) -> K {
        match K::from_u8(self.0 & 15) {
            Some(p) => p,
            None => K::PAWN,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl<K> fmt::Debug for ColoredPiece<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Piece").field(&self.0).finish()
    }
}

impl<K: Kind> fmt::Display for ColoredPiece<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, ".");
        }
        let k = self.kind();
        if k.is_promoted() {
            write!(f, "+")?;
        }
        let l = k.letter();
        let l = if self.color() == Color::White {
            l.to_ascii_lowercase()
        } else {
            l
        };
        write!(f, "{l}")
    }
}

/// A move in 16 bits: destination (7 bits), origin or dropped kind (7 bits), promotion flag.
///
/// Drops store `81 + kind` in the origin field, so one comparison tells a drop from a board move.
/// The moved piece is not stored: the position knows it, and a small move keeps tables dense.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    pub const NONE: Move = Move(0);
    const PROMOTE: u16 = 1 << 14;

    #[inline]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        Move(to.0 as u16 | ((from.0 as u16) << 7) | if promote { Self::PROMOTE } else { 0 })
    }

    #[inline]
    pub const fn drop(pt: PieceType, to: Square) -> Move {
        Move(to.0 as u16 | ((81 + pt as u16) << 7))
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square((self.0 & 127) as u8)
    }

    #[inline]
    pub const fn is_drop(self) -> bool {
        (self.0 >> 7) & 127 >= 81
    }

    /// Origin square; only meaningful for board moves.
    #[inline]
    pub const fn from(self) -> Square {
        Square(((self.0 >> 7) & 127) as u8)
    }

    /// Dropped kind; only meaningful for drops.
    #[inline]
    pub fn dropped(self) -> PieceType {
        PieceType::from_u8((((self.0 >> 7) & 127) as u8).wrapping_sub(81))
            .unwrap_or(PieceType::Pawn)
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.0 & Self::PROMOTE != 0
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline]
    pub const fn from_raw(v: u16) -> Move {
        Move(v)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "none");
        }
        if self.is_drop() {
            write!(f, "{}*{}", self.dropped().letter(), self.to())
        } else {
            write!(
                f,
                "{}{}{}",
                self.from(),
                self.to(),
                if self.is_promotion() { "+" } else { "" }
            )
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_order_and_text() {
        assert_eq!(Square::parse(b"1a").map(Square::index), Some(0));
        assert_eq!(Square::parse(b"1i").map(Square::index), Some(8));
        assert_eq!(Square::parse(b"9i").map(Square::index), Some(80));
        assert_eq!(Square::parse(b"0a"), None);
        for sq in Square::all() {
            assert_eq!(Square::parse(sq.to_string().as_bytes()), Some(sq));
        }
    }

    #[test]
    fn moves_round_trip_their_fields() {
        for from in Square::all() {
            for to in Square::all() {
                for promote in [false, true] {
                    let m = Move::normal(from, to, promote);
                    assert!(!m.is_drop());
                    assert_eq!((m.from(), m.to(), m.is_promotion()), (from, to, promote));
                }
            }
            for pt in PieceType::HAND {
                let m = Move::drop(pt, from);
                assert!(m.is_drop() && !m.is_promotion());
                assert_eq!((m.dropped(), m.to()), (pt, from));
            }
        }
    }
}
