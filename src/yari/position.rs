//! Yari's piece set on the shared board, and the attack tests of its forward-sliding pieces.

use super::attacks::{self, SQUARES};
use super::rules;
use super::types::{Hand, Piece, PieceType};
use super::zobrist;
use crate::shogi::attacks::{between, lance_pseudo, line};
use crate::shogi::board::{Board, PieceSet};
use crate::shogi::{Bitboard, Color, Move, Square};

pub const START_SFEN: &str = "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1";

/// Yari's pieces: files 1-7 of the board, four kinds in hand.
#[derive(Clone, Copy, Debug)]
pub enum YariPieces {}

impl PieceSet for YariPieces {
    type Kind = PieceType;
    type Hand = Hand;
    const FILES: u8 = attacks::FILES;
    const START_SFEN: &'static str = START_SFEN;

    fn count_in_set(pt: PieceType) -> u32 {
        pt.count_in_set()
    }

    #[inline]
    fn can_move_from(c: Color, pt: PieceType, sq: Square) -> bool {
        attacks::has_move_from(c, pt, sq)
    }

    #[inline]
    fn drop_kind(m: Move) -> PieceType {
        drop_kind(m)
    }

    #[inline]
    fn piece_square_key(p: Piece, sq: Square) -> u64 {
        zobrist::BOARD[p.index()][sq.index()]
    }

    #[inline]
    fn hand_key(c: Color, pt: PieceType) -> u64 {
        zobrist::HAND[c.index()][pt.hand_slot()]
    }

    #[inline]
    fn on_board(sq: Square) -> bool {
        on_board(sq)
    }

    fn exchange_value(pt: PieceType) -> i32 {
        rules::value(pt)
    }

    const CHEAPEST_FIRST: &'static [PieceType] = &rules::BY_VALUE;

    #[inline]
    fn attacks_square(c: Color, pt: PieceType, sq: Square, target: Square, occ: Bitboard) -> bool {
        attacks::attacks(c, pt, sq, occ).has(target)
    }

    /// Yari has no diagonal sliders: only a piece leaving the king's file or rank for another
    /// line can uncover one.
    #[inline]
    fn uncovers_check(pos: &Position, m: Move, ksq: Square, occ: Bitboard) -> bool {
        let (from, to) = (m.from(), m.to());
        if !(from.file() == ksq.file() || from.rank() == ksq.rank()) || line(ksq, from).has(to) {
            return false;
        }
        pos.slider_attackers(pos.side, ksq, occ)
            .and_not(Bitboard::from_square(from))
            .is_some()
    }

    /// Step patterns are symmetric left to right, so the squares a `c` piece attacks `sq` from
    /// are the squares the same pattern of the other colour reaches from `sq`.
    #[inline]
    fn attackers_to(pos: &Position, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c;
        let steps = (attacks::pawn_steps(them, sq) & pos.pieces(PieceType::Pawn))
            | (attacks::knight_leaps(them, sq) & pos.pieces(PieceType::YariKnight))
            | (attacks::forward_diagonal_steps(them, sq) & pos.pieces(PieceType::YariBishop))
            | (attacks::forward_three_steps(them, sq) & pos.pieces(PieceType::YariSilver))
            | (attacks::gold_steps(them, sq)
                & (pos.pieces(PieceType::YariGoldN) | pos.pieces(PieceType::YariGoldB)))
            | (attacks::king_steps(sq) & pos.pieces(PieceType::King));
        (steps & pos.by_color[c.index()]) | pos.slider_attackers(c, sq, occ)
    }
}

/// A yari position.
pub type Position = Board<YariPieces>;

/// What a move changed in a yari position.
pub type StateInfo = crate::shogi::board::StateInfo<Hand>;

impl Position {
    /// Pieces that slide straight forward: yari knight, yari bishop, yari rook, rook.
    #[inline]
    fn forward_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariKnight)
            | self.pieces(PieceType::YariBishop)
            | self.pieces(PieceType::YariRook)
            | self.pieces(PieceType::Rook)
    }

    /// Pieces that slide straight back: yari silver, both yari golds, rook.
    #[inline]
    fn backward_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariSilver)
            | self.pieces(PieceType::YariGoldN)
            | self.pieces(PieceType::YariGoldB)
            | self.pieces(PieceType::Rook)
    }

    #[inline]
    fn sideways_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariRook) | self.pieces(PieceType::Rook)
    }

    /// Sliders of colour `c` attacking `sq` with occupancy `occ`.
    #[inline]
    fn slider_attackers(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let rays = attacks::rook_slides(sq, occ);
        // A piece of `c` sliding forward reaches `sq` from behind it (as `c` sees it), one sliding
        // back from in front of it.
        let behind = rays & lance_pseudo(!c, sq);
        let ahead = rays & lance_pseudo(c, sq);
        let side = rays.and_not(Bitboard::file_mask(sq.file()));
        ((behind & self.forward_sliders())
            | (ahead & self.backward_sliders())
            | (side & self.sideways_sliders()))
            & self.by_color[c.index()]
    }

    #[inline]
    pub fn is_attacked(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        self.attackers_to(by, sq, occ).is_some()
    }

    /// `c`'s pieces that alone stand between `c`'s king and an enemy slider aimed at it.
    #[inline]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.king_blockers(c) & self.by_color[c.index()]
    }

    /// Pieces of either colour that alone stand between `c`'s king and an enemy slider aimed at
    /// it: `c`'s are pinned, and the enemy's uncover a check when they leave the line.
    pub fn king_blockers(&self, c: Color) -> Bitboard {
        let Some(ksq) = self.kings[c.index()] else {
            return Bitboard::EMPTY;
        };
        let them = !c;
        let rays = attacks::rook_slides(ksq, Bitboard::EMPTY);
        let snipers = ((rays & lance_pseudo(c, ksq) & self.forward_sliders())
            | (rays & lance_pseudo(them, ksq) & self.backward_sliders())
            | (rays.and_not(Bitboard::file_mask(ksq.file())) & self.sideways_sliders()))
            & self.by_color[them.index()];
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_some() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }
}

/// The yari kind a drop move puts down (drop moves carry the standard kind with the same letter).
#[inline]
pub(crate) fn drop_kind(m: Move) -> PieceType {
    PieceType::from_shogi_drop(m.dropped()).unwrap_or(PieceType::Pawn)
}

/// Whether `sq` is on the yari board.
#[inline]
pub(crate) fn on_board(sq: Square) -> bool {
    sq.index() < SQUARES
}
