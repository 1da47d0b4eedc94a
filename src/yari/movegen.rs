//! Legal move generation for yari shogi.
//!
//! Every generator returns legal moves only: pins, check evasions, king safety, nifu and squares
//! where a piece would have no move are handled while generating. Yari has no diagonal sliders,
//! so every pin runs along a file or a rank.

use super::attacks::{self, BOARD};
use super::position::Position;
use super::types::PieceType;
use crate::shogi::attacks::{between, line};
use crate::shogi::{Bitboard, Color, Kind, Move, MoveList, Square};

/// Which classes of moves to produce. Tactical: captures (with every promotion choice) and
/// promotions to empty squares. Quiet: the other board moves, and drops. They never overlap.
#[derive(Copy, Clone)]
struct Classes {
    tactical: bool,
    quiet: bool,
}

const ALL: Classes = Classes {
    tactical: true,
    quiet: true,
};

/// The far three ranks for `c`.
#[inline]
pub fn in_zone(c: Color, sq: Square) -> bool {
    sq.relative_rank(c) <= 2
}

/// Whether a board move of `pt` from `from` to `to` may promote, and whether it must: a piece
/// may not end where it would have no move (pawn, yari bishop and yari knight on the last rank).
#[inline]
pub fn promotion_options(us: Color, pt: PieceType, from: Square, to: Square) -> (bool, bool) {
    let can = pt.can_promote() && (in_zone(us, to) || in_zone(us, from));
    let must = to.relative_rank(us) == 0
        && matches!(
            pt,
            PieceType::Pawn | PieceType::YariBishop | PieceType::YariKnight
        );
    (can, must)
}

/// Squares in `targets` where `us` may drop `pt`: not the last rank for the kinds that would have
/// no move there, and no pawn on a file that already holds one of `us`'s unpromoted pawns.
#[inline]
pub fn drop_squares(pos: &Position, us: Color, pt: PieceType, targets: Bitboard) -> Bitboard {
    let last_rank = Bitboard::rank_mask(if us == Color::Black { 0 } else { 8 });
    match pt {
        PieceType::Pawn => {
            let pawns = pos.pieces_cp(us, PieceType::Pawn);
            let mut files = Bitboard::EMPTY;
            for sq in pawns {
                files |= Bitboard::file_mask(sq.file());
            }
            targets.and_not(last_rank).and_not(files)
        }
        PieceType::YariKnight | PieceType::YariBishop => targets.and_not(last_rank),
        _ => targets,
    }
}

#[inline]
fn push(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    to: Square,
    capture: bool,
    cl: Classes,
) {
    let (can_promote, must_promote) = promotion_options(us, pt, from, to);
    if can_promote && cl.tactical {
        list.push(Move::normal(from, to, true));
    }
    if !must_promote && (if capture { cl.tactical } else { cl.quiet }) {
        list.push(Move::normal(from, to, false));
    }
}

fn generate(pos: &Position, list: &mut MoveList, cl: Classes) {
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let theirs = pos.pieces_of(them);
    let empty = BOARD.and_not(occ);
    let checkers = pos.checkers();
    let king = pos.king_square(us);

    if let Some(k) = king {
        let mut to_bb = attacks::king_steps(k).and_not(ours);
        if !cl.tactical {
            to_bb &= empty;
        }
        if !cl.quiet {
            to_bb &= theirs;
        }
        let without_king = occ ^ Bitboard::from_square(k);
        for to in to_bb {
            if !pos.is_attacked(them, to, without_king) {
                list.push(Move::normal(k, to, false));
            }
        }
        if checkers.more_than_one() {
            return;
        }
    }

    // Destinations for everything but the king: anywhere, or only onto the checker and the
    // squares between it and the king.
    let (capture_to, quiet_to) = match (checkers.is_some(), king) {
        (true, Some(k)) => (checkers, between(k, checkers.lsb())),
        _ => (theirs, empty),
    };
    // Promotions to empty squares are tactical, so empty destinations are needed for either class.
    let targets = capture_to | quiet_to;
    let pinned = pos.pinned(us);

    for from in ours {
        let pt = pos.piece_on(from).kind();
        if pt == PieceType::King {
            continue;
        }
        let mut dest = attacks::attacks(us, pt, from, occ) & targets;
        if pinned.has(from)
            && let Some(k) = king
        {
            dest &= line(k, from);
        }
        for to in dest {
            push(list, us, pt, from, to, theirs.has(to), cl);
        }
    }

    if cl.quiet {
        let hand = pos.hand(us);
        if hand.is_empty() {
            return;
        }
        for pt in PieceType::HAND {
            if !hand.has(pt) {
                continue;
            }
            for to in drop_squares(pos, us, pt, quiet_to) {
                list.push(Move::drop(pt.to_shogi_drop(), to));
            }
        }
    }
}

impl Position {
    /// Every legal move, as perft counts them.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        generate(self, &mut list, ALL);
        list
    }

    /// Legal captures (with and without promotion) and promotions to empty squares.
    pub fn tactical_moves(&self, list: &mut MoveList) {
        generate(
            self,
            list,
            Classes {
                tactical: true,
                quiet: false,
            },
        );
    }

    /// Legal non-capturing non-promotions, and drops; complements `tactical_moves`.
    pub fn quiet_moves(&self, list: &mut MoveList) {
        generate(
            self,
            list,
            Classes {
                tactical: false,
                quiet: true,
            },
        );
    }

    /// All legal replies to a check.
    pub fn evasions(&self, list: &mut MoveList) {
        debug_assert!(self.in_check());
        generate(self, list, ALL);
    }
}
