//! Dai shogi's values: squares of the 15x15 board, the 55 piece kinds (29 base kinds and 26
//! promoted ones), pieces and moves, with their text forms.

use crate::shogi::Color;
use std::fmt;

pub const FILES: usize = 15;
pub const RANKS: usize = 15;
pub const SQUARES: usize = FILES * RANKS;

/// A square of the 15x15 board: `rank * 15 + (file - 1)`, where files run 1..=15 from Black's
/// right to left and ranks a..o (0..=14) from White's side, so Black's back rank is `o`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file as usize <= FILES && (rank as usize) < RANKS {
            Some(Square(rank * FILES as u8 + file - 1))
        } else {
            None
        }
    }

    pub const fn from_index(index: usize) -> Option<Square> {
        if index < SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 1..=15, right to left as Black sees the board.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % FILES as u8 + 1
    }

    /// 0..=14 for ranks a..o.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / FILES as u8
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// Reads `8h`, `10n`, `15o` at the start of `text`; returns the square and the bytes read.
    pub(crate) fn parse_prefix(text: &[u8]) -> Option<(Square, usize)> {
        let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 2 || text[0] == b'0' {
            return None;
        }
        let file = text[..digits].iter().fold(0u8, |n, &b| n * 10 + (b - b'0'));
        let letter = *text.get(digits)?;
        if !(b'a'..=b'o').contains(&letter) {
            return None;
        }
        Some((Square::new(file, letter - b'a')?, digits + 1))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank()) as char)
    }
}

impl std::str::FromStr for Square {
    type Err = String;
    fn from_str(s: &str) -> Result<Square, String> {
        match Square::parse_prefix(s.as_bytes()) {
            Some((sq, n)) if n == s.len() => Ok(sq),
            _ => Err(format!(
                "bad dai square {s:?} (expected file 1-15 and rank a-o, like 8h)"
            )),
        }
    }
}

/// Every kind of piece. Base kinds are 1..=29; a promotable base kind `k` (2..=27) promotes to
/// `k + 28`, so the promoted kind remembers what it was (SFEN writes it as `+` and the base
/// letter) and never promotes again. Promotions into a move set that also exists unpromoted
/// (a pawn moving as a gold) are kinds of their own, `Promoted...`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceType {
    King = 1,
    DrunkElephant,
    BlindTiger,
    FerociousLeopard,
    Gold,
    Silver,
    Copper,
    Iron,
    Stone,
    Knight,
    EvilWolf,
    AngryBoar,
    CatSword,
    ViolentOx,
    FlyingDragon,
    GoBetween,
    Pawn,
    Lance,
    ReverseChariot,
    SideMover,
    VerticalMover,
    Bishop,
    Rook,
    DragonHorse,
    DragonKing,
    Kirin,
    Phoenix,
    FreeKing,
    Lion,
    /// Promoted drunk elephant: royal, moves as a king.
    CrownPrince,
    FlyingStag,
    /// Moves as a bishop.
    PromotedFerociousLeopard,
    /// Moves as a rook.
    PromotedGold,
    /// Moves as a vertical mover.
    PromotedSilver,
    /// Moves as a side mover.
    PromotedCopper,
    PromotedIron,
    PromotedStone,
    PromotedKnight,
    PromotedEvilWolf,
    PromotedAngryBoar,
    PromotedCatSword,
    PromotedViolentOx,
    PromotedFlyingDragon,
    /// Moves as a drunk elephant but is not royal.
    PromotedGoBetween,
    PromotedPawn,
    WhiteHorse,
    Whale,
    FreeBoar,
    FlyingOx,
    /// Moves as a dragon horse.
    PromotedBishop,
    /// Moves as a dragon king.
    PromotedRook,
    HornedFalcon,
    SoaringEagle,
    /// A full lion.
    PromotedKirin,
    /// Moves as a free king.
    PromotedPhoenix,
}

pub const KINDS: usize = 56;
const PROMOTION_OFFSET: u8 = 28;

// The kinds are numbered 1..=55 without a gap: `PieceType::from_number` relies on it.
const _: () = assert!(PieceType::King as u8 == 1 && PieceType::PromotedPhoenix as u8 == 55);

impl PieceType {
    /// Every kind, in the order of their numbers.
    pub const ALL: [PieceType; 55] = {
        let mut all = [PieceType::King; 55];
        let mut i = 0;
        while i < 55 {
            all[i] = PieceType::from_number(i as u8 + 1);
            i += 1;
        }
        all
    };

    pub const fn from_u8(n: u8) -> Option<PieceType> {
        if n >= 1 && n <= 55 {
            Some(PieceType::from_number(n))
        } else {
            None
        }
    }

    /// The kind numbered `n`, which must be in 1..=55. The numbers are the enum's own, so the
    /// enum is the one list of the kinds.
    #[inline]
    #[allow(unsafe_code)]
    const fn from_number(n: u8) -> PieceType {
        assert!(n >= 1 && n <= 55);
        // SAFETY: `PieceType` is `repr(u8)`, its numbers start at 1 and count on by one (no
        // variant sets its own), and the last is 55 (checked below), so every number in 1..=55
        // is a variant's.
        unsafe { std::mem::transmute::<u8, PieceType>(n) }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn can_promote(self) -> bool {
        let n = self as u8;
        n >= 2 && n <= 27
    }

    pub const fn is_promoted(self) -> bool {
        self as u8 > 29
    }

    pub const fn promote(self) -> Option<PieceType> {
        if self.can_promote() {
            PieceType::from_u8(self as u8 + PROMOTION_OFFSET)
        } else {
            None
        }
    }

    /// The base kind a promoted piece came from; itself for a base kind.
    pub const fn unpromote(self) -> PieceType {
        if self.is_promoted() {
            PieceType::from_number(self as u8 - PROMOTION_OFFSET)
        } else {
            self
        }
    }

    /// The king and the crown prince: losing all of them loses the game.
    pub const fn is_royal(self) -> bool {
        matches!(self, PieceType::King | PieceType::CrownPrince)
    }

    /// The SFEN letters of the base kind, uppercase (Black): `L`, `A'`, `L!`.
    pub const fn letters(self) -> &'static str {
        use PieceType::*;
        match self.unpromote() {
            King => "K",
            DrunkElephant => "E",
            BlindTiger => "T",
            FerociousLeopard => "F",
            Gold => "G",
            Silver => "S",
            Copper => "C",
            Iron => "I",
            Stone => "U",
            Knight => "N",
            EvilWolf => "W",
            AngryBoar => "A'",
            CatSword => "C'",
            ViolentOx => "X'",
            FlyingDragon => "F'",
            GoBetween => "P'",
            Pawn => "P",
            Lance => "L",
            ReverseChariot => "A",
            SideMover => "M",
            VerticalMover => "V",
            Bishop => "B",
            Rook => "R",
            DragonHorse => "H",
            DragonKing => "D",
            Kirin => "O",
            Phoenix => "X",
            FreeKing => "Q",
            _ => "L!",
        }
    }

    /// The base kind written with `letters` (uppercase, with its `'` or `!`).
    pub fn from_letters(text: &str) -> Option<PieceType> {
        PieceType::ALL[..29]
            .iter()
            .copied()
            .find(|k| k.letters() == text)
    }
}

/// A piece: its kind in the low 6 bits and its colour in bit 6; 0 is no piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Piece(u8);

pub(crate) const WHITE_BIT: u8 = 64;

impl Piece {
    pub const NONE: Piece = Piece(0);

    #[inline]
    pub const fn new(kind: PieceType, color: Color) -> Piece {
        Piece(kind as u8 | (color as u8) << 6)
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn kind(self) -> Option<PieceType> {
        PieceType::from_u8(self.0 & 63)
    }

    #[inline]
    pub const fn color(self) -> Color {
        if self.0 & WHITE_BIT != 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline]
    pub(crate) const fn raw(self) -> u8 {
        self.0
    }

    #[inline]
    pub(crate) const fn from_raw(raw: u8) -> Piece {
        Piece(raw)
    }
}

impl fmt::Display for Piece {
    /// SFEN text: `+` for a promoted piece, the base letters, lowercase for White.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(kind) = self.kind() else {
            return f.write_str(".");
        };
        if kind.is_promoted() {
            f.write_str("+")?;
        }
        match self.color() {
            Color::Black => f.write_str(kind.letters()),
            Color::White => f.write_str(&kind.letters().to_ascii_lowercase()),
        }
    }
}

/// A move as a 32-bit value: from (bits 0-7), to (8-15), the mid square plus one (16-23, 0 for
/// none) and promotion (bit 24). A lion's double move goes from, mid, to; igui (capture on mid
/// without moving) and the pass (mid an empty square) have `to == from`. 0 is no move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(u32);

impl Move {
    pub const NONE: Move = Move(0);
    const PROMOTE: u32 = 1 << 24;

    #[inline]
    pub const fn normal(from: Square, to: Square, promote: bool) -> Move {
        Move(from.0 as u32 | (to.0 as u32) << 8 | if promote { Move::PROMOTE } else { 0 })
    }

    /// A move through `mid`: a double move, igui (`to == from`) or a pass (`to == from`).
    #[inline]
    pub const fn with_mid(from: Square, mid: Square, to: Square) -> Move {
        Move(from.0 as u32 | (to.0 as u32) << 8 | (mid.0 as u32 + 1) << 16)
    }

    #[inline]
    pub const fn from_raw(raw: u32) -> Move {
        Move(raw)
    }

    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The from square; `None` only for byte values off the board.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        Square::from_index((self.0 & 0xff) as usize)
    }

    #[inline]
    pub const fn to(self) -> Option<Square> {
        Square::from_index((self.0 >> 8 & 0xff) as usize)
    }

    #[inline]
    pub const fn mid(self) -> Option<Square> {
        let m = (self.0 >> 16 & 0xff) as usize;
        if m == 0 {
            None
        } else {
            Square::from_index(m - 1)
        }
    }

    #[inline]
    pub(crate) const fn origin_index(self) -> usize {
        (self.0 & 0xff) as usize
    }

    #[inline]
    pub(crate) const fn dest_index(self) -> usize {
        (self.0 >> 8 & 0xff) as usize
    }

    /// Mid square index plus one, 0 for none.
    #[inline]
    pub(crate) const fn mid_code(self) -> usize {
        (self.0 >> 16 & 0xff) as usize
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.0 & Move::PROMOTE != 0
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (Some(from), Some(to)) = (self.from(), self.to()) else {
            return f.write_str("none");
        };
        if self.is_none() {
            return f.write_str("none");
        }
        write!(f, "{from}")?;
        if let Some(mid) = self.mid() {
            write!(f, "{mid}")?;
        }
        write!(f, "{to}")?;
        if self.is_promotion() {
            f.write_str("+")?;
        }
        Ok(())
    }
}

/// Move text as squares: from, optional mid, to, promotion. `None` when it is not move syntax.
pub(crate) fn parse_move_text(text: &str) -> Option<(Square, Option<Square>, Square, bool)> {
    let (body, promote) = match text.strip_suffix('+') {
        Some(b) => (b, true),
        None => (text, false),
    };
    let bytes = body.as_bytes();
    let mut squares = Vec::with_capacity(3);
    let mut at = 0;
    while at < bytes.len() {
        let (sq, n) = Square::parse_prefix(&bytes[at..])?;
        squares.push(sq);
        at += n;
        if squares.len() > 3 {
            return None;
        }
    }
    match squares[..] {
        [from, to] => Some((from, None, to, promote)),
        [from, mid, to] if !promote => Some((from, Some(mid), to, false)),
        _ => None,
    }
}
