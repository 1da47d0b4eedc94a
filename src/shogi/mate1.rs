//! Mate in one, found without generating every move: only checks that land next to the enemy
//! king (or a knight's jump from it) are tried. Those are the cheap, common mates in shogi, where
//! a drop next to the king ends many games; distant checks are left to the search.

use crate::shogi::attacks::{self, king_attacks, knight_attacks};
use crate::shogi::{Bitboard, Move, MoveList, PieceType, Position, movegen};

pub fn mate_in_one(pos: &mut Position) -> Option<Move> {
    let us = pos.side_to_move();
    let them = !us;
    let ksq = pos.king_square(them)?;
    let occ = pos.occupied();
    let near = king_attacks(ksq) | knight_attacks(them, ksq);
    // Flight squares we do not cover now. A check can only mate if the checking piece covers all
    // of them (bar its own square): a quick filter before the exact test, which plays the move
    // and looks for any reply. Discovered attacks are not foreseen, so a rare mate is missed,
    // but nothing is ever reported that is not a mate.
    let without_king = occ ^ Bitboard::from_square(ksq);
    let mut free = Bitboard::EMPTY;
    for s in king_attacks(ksq).and_not(pos.pieces_of(them)) {
        if !pos.is_attacked(us, s, without_king) {
            free |= Bitboard::from_square(s);
        }
    }
    let covers = |pt: PieceType, to: crate::shogi::Square, occ: Bitboard| {
        free.and_not(attacks::attacks(us, pt, to, occ) | Bitboard::from_square(to))
            .is_empty()
    };
    let hand = pos.hand(us);
    if !hand.is_empty() {
        // A pawn drop may not mate, so pawns are never tried.
        for pt in [
            PieceType::Rook,
            PieceType::Bishop,
            PieceType::Gold,
            PieceType::Silver,
            PieceType::Knight,
            PieceType::Lance,
        ] {
            if !hand.has(pt) {
                continue;
            }
            // Squares from which a piece of ours would attack the king are the squares that
            // piece, if it were the enemy's, would attack from the king's square.
            let squares = attacks::attacks(them, pt, ksq, occ) & near & !occ;
            for to in squares {
                let m = Move::drop(pt, to);
                if covers(pt, to, occ | Bitboard::from_square(to))
                    && pos.is_legal_move(m)
                    && mates(pos, m)
                {
                    return Some(m);
                }
            }
        }
    }
    let king = pos
        .king_square(us)
        .map_or(Bitboard::EMPTY, Bitboard::from_square);
    let targets = near.and_not(pos.pieces_of(us));
    // Step movers reach the king's neighbourhood only from within three squares of the king;
    // sliders from anywhere. Everything else is skipped without computing any attacks.
    let sliders = pos.pieces(PieceType::Lance)
        | pos.pieces(PieceType::Bishop)
        | pos.pieces(PieceType::Rook)
        | pos.pieces(PieceType::Horse)
        | pos.pieces(PieceType::Dragon);
    let (kf, kr) = (ksq.file() as i32, ksq.rank() as i32);
    for from in pos.pieces_of(us).and_not(king) {
        let close = (from.file() as i32 - kf).abs() <= 3 && (from.rank() as i32 - kr).abs() <= 3;
        if !close && !sliders.has(from) {
            continue;
        }
        let pt = pos.piece_on(from).kind();
        for to in attacks::attacks(us, pt, from, occ) & targets {
            for promote in [true, false] {
                let m = Move::normal(from, to, promote);
                if !pos.is_legal_move(m) {
                    continue;
                }
                let after = pos.moved_piece_after(m);
                let occ_after = (occ ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
                if covers(after, to, occ_after) && pos.gives_check(m) && mates(pos, m) {
                    return Some(m);
                }
            }
        }
    }
    None
}

fn mates(pos: &mut Position, m: Move) -> bool {
    pos.do_move_with_check(m, true);
    let mut replies = MoveList::new();
    movegen::evasions(pos, &mut replies);
    let mated = replies.is_empty();
    pos.undo_move();
    mated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_drop_and_move_mates_but_not_pawn_drop_mate() {
        let mut p = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        assert_eq!(
            mate_in_one(&mut p).map(|m| m.to_string()),
            Some("G*5b".into())
        );
        // Only a pawn drop would mate here, and that is illegal.
        let mut p = Position::from_sfen("7lk/9/8S/9/9/9/9/7L1/8K b P 1").unwrap();
        assert_eq!(mate_in_one(&mut p), None);
        let mut p = Position::from_sfen("k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1").unwrap();
        assert!(mate_in_one(&mut p).is_some());
    }
}
