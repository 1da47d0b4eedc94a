//! Stalemate in one for yari shogi, where a side without a legal move loses even out of check:
//! the part of [`super::mate_in_one`] that looks at moves giving no check. Such a move wins
//! only against a side with almost nothing left to move, so a count of what the opponent could
//! still move rules it out at once nearly always, and the moves are tried one by one only
//! where it does not.

use super::attacks::{self, BOARD};
use super::mate1::pawn_push;
use super::movegen::drop_squares;
use super::position::Position;
use super::types::PieceType;
use crate::shogi::{Bitboard, Move};

/// A move that gives no check and leaves the opponent without a legal move, if there is one;
/// `pinned` are the opponent's pinned pieces. Rare, so it is tried move by move, but only where
/// it is possible at all.
pub(super) fn stalemate(pos: &mut Position, pinned: Bitboard) -> Option<Move> {
    if !may_be_stalemated(pos, pinned) {
        return None;
    }
    for m in pos.legal_moves() {
        if pos.gives_check(m) {
            continue;
        }
        pos.do_move_with_check(m, false);
        let stalemated = pos.legal_moves().is_empty();
        pos.undo_move();
        if stalemated {
            return Some(m);
        }
    }
    None
}

/// Whether one move of ours that gives no check could leave the opponent without a legal move.
///
/// A move of ours takes away the moves of at most three of the opponent's pieces, the king
/// aside: the one it captures, one it pins along the king's line it lands on, and one it pins
/// along the king's line it leaves (yari has no diagonal sliders, so a square lies on at most
/// one line with the king). Every other piece keeps a move: its steps stay, a slide cut short
/// ends on our piece and takes it, and out of check only a pin makes a move illegal.
fn may_be_stalemated(pos: &Position, pinned: Bitboard) -> bool {
    let them = !pos.side_to_move();
    let hand = pos.hand(them);
    // At most 28 pieces stand on the 63 squares, so there are empty squares off the last rank
    // and a knight, bishop or rook can always be dropped.
    if hand.has(PieceType::YariRook)
        || hand.has(PieceType::YariBishop)
        || hand.has(PieceType::YariKnight)
    {
        return false;
    }
    let occ = pos.occupied();
    // Our move fills one square and adds no pawn of theirs, so two pawn drops now leave one.
    if hand.has(PieceType::Pawn)
        && drop_squares(pos, them, PieceType::Pawn, BOARD.and_not(occ)).more_than_one()
    {
        return false;
    }
    let theirs = pos.pieces_of(them);
    let free = theirs.and_not(pinned);
    let pawns = pos.pieces(PieceType::Pawn) & free;
    let mut mobile = pawn_push(them, pawns).and_not(theirs).count();
    let king = pos
        .king_square(them)
        .map_or(Bitboard::EMPTY, Bitboard::from_square);
    for sq in free.and_not(pawns | king) {
        if mobile > 3 {
            return false;
        }
        let pt = pos.piece_on(sq).kind();
        if attacks::attacks(them, pt, sq, occ)
            .and_not(theirs)
            .is_some()
        {
            mobile += 1;
        }
    }
    mobile <= 3
}
