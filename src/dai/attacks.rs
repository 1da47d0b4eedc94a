//! How each kind moves, as data over a bordered mailbox, and the keys.
//!
//! The board is a mailbox of 20 rows of 17: the 15x15 board with two off-board rows above and
//! below and two off-board columns between rows, so a step, slide or jump of up to two squares
//! from any square lands either on the board or on an off-board cell, never wrapping round.
//! Each kind has, in Black's frame, a range per direction (1 a step, 2 a blocked two-square
//! move, 14 a slide), a set of jumps within the 5x5 square round it, and its lion powers.

use super::types::{FILES, PieceType, RANKS, SQUARES};
use crate::shogi::zobrist::key_table;

pub(crate) const STRIDE: i32 = 17;
pub(crate) const MAILBOX: usize = 17 * 20;
/// The content of an off-board cell; 0 is an empty square and pieces are 1..=127.
pub(crate) const OFF: u8 = 128;

/// Black's directions: forward (towards rank a), back, left (towards file 15), right, and the
/// four diagonals forward-left, forward-right, back-left, back-right. White's are the negation.
pub(crate) const DIRS: [i32; 8] = [-17, 17, 1, -1, -16, -18, 18, 16];
/// The directions as bits, bit `d` for `DIRS[d]`, so that one entry of a move table can name
/// several.
const N: u8 = 1 << 0;
const S: u8 = 1 << 1;
const L: u8 = 1 << 2;
const R: u8 = 1 << 3;
const NL: u8 = 1 << 4;
const NR: u8 = 1 << 5;
const SL: u8 = 1 << 6;
const SR: u8 = 1 << 7;
const ORTHOGONAL: u8 = N | S | L | R;
const DIAGONAL: u8 = NL | NR | SL | SR;
const EVERY_WAY: u8 = ORTHOGONAL | DIAGONAL;

pub(crate) static SQ_TO_MB: [u16; SQUARES] = {
    let mut t = [0u16; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        t[i] = ((i / FILES + 2) * STRIDE as usize + i % FILES + 2) as u16;
        i += 1;
    }
    t
};

/// Square index of a mailbox cell; 255 off the board.
pub(crate) static MB_TO_SQ: [u8; MAILBOX] = {
    let mut t = [255u8; MAILBOX];
    let mut i = 0;
    while i < SQUARES {
        t[SQ_TO_MB[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Rank (0..=14) of each mailbox cell, 255 off the board.
pub(crate) static MB_RANK: [u8; MAILBOX] = {
    let mut t = [255u8; MAILBOX];
    let mut i = 0;
    while i < SQUARES {
        t[SQ_TO_MB[i] as usize] = (i / FILES) as u8;
        i += 1;
    }
    t
};

#[derive(Clone, Copy)]
pub(crate) struct Pattern {
    /// Squares per direction in Black's frame (0: none).
    pub range: [u8; 8],
    /// Jump and lion-area targets in Black's frame, as mailbox deltas.
    pub jumps: [i16; 24],
    pub jump_count: u8,
    /// Bit `d`: the lion's double move, igui and pass through direction `d`. For a full lion the
    /// second step may go any way; for the horned falcon and soaring eagle only straight on.
    pub lion_dirs: u8,
    pub full_lion: bool,
}

const SLIDE: u8 = 14;

/// A pattern from `(directions, range)` entries, the directions as bits.
const fn pattern(ranges: &[(u8, u8)], jumps: &[(i32, i32)], lion_dirs: u8, full: bool) -> Pattern {
    let mut p = Pattern {
        range: [0; 8],
        jumps: [0; 24],
        jump_count: 0,
        lion_dirs,
        full_lion: full,
    };
    let mut i = 0;
    while i < ranges.len() {
        let (dirs, range) = ranges[i];
        let mut d = 0;
        while d < 8 {
            if dirs & 1 << d != 0 {
                p.range[d] = range;
            }
            d += 1;
        }
        i += 1;
    }
    let mut j = 0;
    while j < jumps.len() {
        p.jumps[j] = (jumps[j].0 * STRIDE + jumps[j].1) as i16;
        j += 1;
    }
    p.jump_count = jumps.len() as u8;
    p
}

/// Every square at king-distance 1 or 2, as (rank delta, file delta).
const LION_AREA: [(i32, i32); 24] = {
    let mut t = [(0, 0); 24];
    let mut n = 0;
    let mut dr = -2;
    while dr <= 2 {
        let mut df = -2;
        while df <= 2 {
            if dr != 0 || df != 0 {
                t[n] = (dr, df);
                n += 1;
            }
            df += 1;
        }
        dr += 1;
    }
    t
};

const fn kind_pattern(kind: PieceType) -> Pattern {
    use PieceType::*;
    const GOLD: [(u8, u8); 1] = [(ORTHOGONAL | NL | NR, 1)];
    match kind {
        King | CrownPrince => pattern(&[(EVERY_WAY, 1)], &[], 0, false),
        DrunkElephant | PromotedGoBetween => pattern(&[(DIAGONAL | N | L | R, 1)], &[], 0, false),
        BlindTiger => pattern(&[(DIAGONAL | S | L | R, 1)], &[], 0, false),
        FerociousLeopard => pattern(&[(DIAGONAL | N | S, 1)], &[], 0, false),
        Gold | PromotedIron | PromotedStone | PromotedKnight | PromotedEvilWolf
        | PromotedAngryBoar | PromotedCatSword | PromotedViolentOx | PromotedFlyingDragon
        | PromotedPawn => pattern(&GOLD, &[], 0, false),
        Silver => pattern(&[(DIAGONAL | N, 1)], &[], 0, false),
        Copper => pattern(&[(N | S | NL | NR, 1)], &[], 0, false),
        Iron => pattern(&[(N | NL | NR, 1)], &[], 0, false),
        Stone => pattern(&[(NL | NR, 1)], &[], 0, false),
        Knight => pattern(&[], &[(-2, 1), (-2, -1)], 0, false),
        EvilWolf => pattern(&[(N | L | R | NL | NR, 1)], &[], 0, false),
        AngryBoar => pattern(&[(ORTHOGONAL, 1)], &[], 0, false),
        CatSword => pattern(&[(DIAGONAL, 1)], &[], 0, false),
        ViolentOx => pattern(&[(ORTHOGONAL, 2)], &[], 0, false),
        FlyingDragon => pattern(&[(DIAGONAL, 2)], &[], 0, false),
        GoBetween => pattern(&[(N | S, 1)], &[], 0, false),
        Pawn => pattern(&[(N, 1)], &[], 0, false),
        Lance => pattern(&[(N, SLIDE)], &[], 0, false),
        ReverseChariot => pattern(&[(N | S, SLIDE)], &[], 0, false),
        SideMover | PromotedCopper => pattern(&[(N | S, 1), (L | R, SLIDE)], &[], 0, false),
        VerticalMover | PromotedSilver => pattern(&[(N | S, SLIDE), (L | R, 1)], &[], 0, false),
        Bishop | PromotedFerociousLeopard => pattern(&[(DIAGONAL, SLIDE)], &[], 0, false),
        Rook | PromotedGold => pattern(&[(ORTHOGONAL, SLIDE)], &[], 0, false),
        DragonHorse | PromotedBishop => {
            pattern(&[(ORTHOGONAL, 1), (DIAGONAL, SLIDE)], &[], 0, false)
        }
        DragonKing | PromotedRook => pattern(&[(ORTHOGONAL, SLIDE), (DIAGONAL, 1)], &[], 0, false),
        Kirin => pattern(
            &[(DIAGONAL, 1)],
            &[(-2, 0), (2, 0), (0, 2), (0, -2)],
            0,
            false,
        ),
        Phoenix => pattern(
            &[(ORTHOGONAL, 1)],
            &[(-2, -2), (-2, 2), (2, -2), (2, 2)],
            0,
            false,
        ),
        FreeKing | PromotedPhoenix => pattern(&[(EVERY_WAY, SLIDE)], &[], 0, false),
        Lion | PromotedKirin => pattern(&[], &LION_AREA, EVERY_WAY, true),
        FlyingStag => pattern(&[(N | S, SLIDE), (DIAGONAL | L | R, 1)], &[], 0, false),
        Whale => pattern(&[(N | S | SL | SR, SLIDE)], &[], 0, false),
        WhiteHorse => pattern(&[(N | S | NL | NR, SLIDE)], &[], 0, false),
        FreeBoar => pattern(&[(DIAGONAL | L | R, SLIDE)], &[], 0, false),
        FlyingOx => pattern(&[(DIAGONAL | N | S, SLIDE)], &[], 0, false),
        HornedFalcon => pattern(
            &[(DIAGONAL | S | L | R, SLIDE)],
            &[(-1, 0), (-2, 0)],
            N,
            false,
        ),
        SoaringEagle => pattern(
            &[(ORTHOGONAL | SL | SR, SLIDE)],
            &[(-1, 1), (-2, 2), (-1, -1), (-2, -2)],
            NL | NR,
            false,
        ),
    }
}

/// Patterns indexed by the kind's number (entry 0 unused).
pub(crate) static PATTERNS: [Pattern; 56] = {
    let mut t = [pattern(&[], &[], 0, false); 56];
    let mut i = 0;
    while i < 55 {
        let kind = PieceType::ALL[i];
        t[kind as usize] = kind_pattern(kind);
        i += 1;
    }
    t
};

/// Whether the 5x5 jump set of a Black-frame pattern contains `delta`.
#[inline]
pub(crate) fn has_jump(p: &Pattern, delta: i32) -> bool {
    p.jumps[..p.jump_count as usize]
        .iter()
        .any(|&j| j as i32 == delta)
}

/// Rank `rank` (0..=14) counted from `color`'s far side: 0 is the last rank it can reach.
#[inline]
pub(crate) const fn relative_rank(rank: u8, white: bool) -> u8 {
    if white { RANKS as u8 - 1 - rank } else { rank }
}

// ---- Zobrist keys --------------------------------------------------------------------------

/// One key per piece byte (kind and colour bit, below 128) and square; bit 0 is the side to
/// move's, so board keys leave it clear.
pub(crate) static ZOBRIST: [[u64; SQUARES]; 128] = key_table(0x6461_6973_686f_6769);

pub(crate) const SIDE_KEY: u64 = 1;
