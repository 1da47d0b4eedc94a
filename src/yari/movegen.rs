//! Legal move generation for yari shogi.
//!
//! Every generator returns legal moves only: pins, check evasions, king safety, nifu and squares
//! where a piece would have no move are handled while generating. Yari has no diagonal sliders,
//! so every pin runs along a file or a rank.

use super::attacks::{self, BOARD};
use super::position::Position;
use super::types::PieceType;
use crate::shogi::attacks::line;
use crate::shogi::movegen::{Classes, destinations, push_king_steps};
use crate::shogi::{Bitboard, Color, Kind, Move, MoveList, Square};

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
        let to_bb = cl.unpromoted_to(attacks::king_steps(k).and_not(ours), theirs);
        let without_king = occ ^ Bitboard::from_square(k);
        push_king_steps(list, k, to_bb, |to| pos.is_attacked(them, to, without_king));
        if checkers.more_than_one() {
            return;
        }
    }

    let (capture_to, quiet_to) = destinations(checkers, king, theirs, empty);
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
            let (can_promote, must_promote) = promotion_options(us, pt, from, to);
            cl.push_choices(list, from, to, theirs.has(to), can_promote, !must_promote);
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
        generate(self, &mut list, Classes::BOTH);
        list
    }

    /// Legal captures (with and without promotion) and promotions to empty squares.
    pub fn tactical_moves(&self, list: &mut MoveList) {
        generate(self, list, Classes::TACTICAL);
    }

    /// Legal non-capturing non-promotions, and drops; complements `tactical_moves`.
    pub fn quiet_moves(&self, list: &mut MoveList) {
        generate(self, list, Classes::QUIET);
    }

    /// All legal replies to a check.
    pub fn evasions(&self, list: &mut MoveList) {
        debug_assert!(self.in_check());
        generate(self, list, Classes::BOTH);
    }
}
