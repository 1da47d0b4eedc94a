//! Mate in one for yari shogi: a move after which the opponent has no legal move, which wins in
//! yari whether the opponent is then in check (checkmate) or not (stalemate; the rules make it a
//! loss). The answer is exact: every check is considered, since yari's forward sliders give many
//! distant ones. The search asks at nearly every node, so the checks are found from the squares
//! they must reach, pawns all at once, and cheap necessary conditions (a flight square left
//! open, an undefended checker next to the king) settle almost every candidate before the exact
//! test plays it and looks for a reply.

use super::attacks::{self, BOARD, SQUARES};
use super::movegen::{drop_squares, promotion_options};
use super::position::Position;
use super::types::PieceType;
use crate::shogi::attacks::{between, line};
use crate::shogi::{Bitboard, Color, Kind, Move, MoveList, Square};
use std::sync::LazyLock;

/// A legal move of the side to move after which the opponent has no legal move. The side to
/// move must not be in check (the search asks only then); in check the answer is `None`.
pub fn mate_in_one(pos: &mut Position) -> Option<Move> {
    if pos.in_check() {
        return None;
    }
    let them = !pos.side_to_move();
    // Pieces alone on a line between their king and one of our sliders: ours uncover a check
    // by leaving it, theirs are pinned.
    let blockers = pos.king_blockers(them);
    checkmate(pos, blockers & pos.pieces_of(!them))
        .or_else(|| super::stalemate::stalemate(pos, blockers & pos.pieces_of(them)))
}

/// The squares from which each kind of `us` checks the king on `ksq` with occupancy `occ`: a
/// piece of `us` attacks `ksq` from the squares the same kind of the other colour attacks from
/// `ksq` (every pattern is symmetric left to right), the slides found once for all kinds.
fn check_squares(us: Color, ksq: Square, occ: Bitboard) -> [Bitboard; 16] {
    let them = !us;
    let forward = attacks::forward_slide(them, ksq, occ);
    let back = attacks::backward_slide(them, ksq, occ);
    let side = attacks::sideways_slides(ksq, occ);
    let gold = attacks::gold_steps(them, ksq) | back;
    let mut by_kind = [Bitboard::EMPTY; 16];
    for (pt, squares) in [
        (PieceType::Pawn, attacks::pawn_steps(them, ksq)),
        (
            PieceType::YariKnight,
            attacks::knight_leaps(them, ksq) | forward,
        ),
        (
            PieceType::YariBishop,
            attacks::forward_diagonal_steps(them, ksq) | forward,
        ),
        (PieceType::YariRook, forward | side),
        (
            PieceType::YariSilver,
            attacks::forward_three_steps(them, ksq) | back,
        ),
        (PieceType::YariGoldN, gold),
        (PieceType::YariGoldB, gold),
        (PieceType::Rook, forward | back | side),
    ] {
        by_kind[pt.index()] = squares;
    }
    by_kind
}

/// Each side's promotion zone, by colour index.
const ZONE: [Bitboard; 2] = [Bitboard::ranks(0, 2), Bitboard::ranks(6, 8)];

/// `bb` moved one rank forward for `c` (pawns never stand on their last rank, so no square
/// crosses into the next file).
#[inline]
pub(super) fn pawn_push(c: Color, bb: Bitboard) -> Bitboard {
    match c {
        Color::Black => Bitboard(bb.0 >> 1),
        Color::White => Bitboard(bb.0 << 1),
    }
}

/// A checking move that mates, if there is one; `shields` are our pieces whose leaving their
/// line to the king uncovers a check.
fn checkmate(pos: &mut Position, shields: Bitboard) -> Option<Move> {
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us)?;
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let checks = check_squares(us, ksq, occ);
    let mut test = Candidates::new(pos, ksq);

    let hand = pos.hand(us);
    if !hand.is_empty() {
        let empty = BOARD.and_not(occ);
        for pt in PieceType::SFEN_HAND_ORDER {
            if !hand.has(pt) {
                continue;
            }
            let targets = checks[pt.index()] & empty;
            if targets.is_empty() {
                continue;
            }
            for to in drop_squares(pos, us, pt, targets) {
                // The king takes a piece dropped next to it on a square we do not attack.
                if test.near.has(to) && test.free_now(pos, to) {
                    continue;
                }
                let m = Move::drop(pt.to_shogi_drop(), to);
                if test.mates(pos, m, pt, true) {
                    return Some(m);
                }
            }
        }
    }

    // Pawns off the king's file step onto a check square or do not check (a shield aside):
    // all found at once.
    let pawns = pos
        .pieces_cp(us, PieceType::Pawn)
        .and_not(shields | Bitboard::file_mask(ksq.file()));
    let pawn_targets = checks[PieceType::Pawn.index()]
        | (checks[PieceType::YariSilver.index()] & ZONE[us.index()]);
    for to in pawn_push(us, pawns).and_not(ours) & pawn_targets {
        let from = pawn_push(!us, Bitboard::from_square(to)).lsb();
        if let Some(m) = try_promotions(pos, &mut test, &checks, from, to, Check::Table) {
            return Some(m);
        }
    }
    let zone = ZONE[us.index()];
    let lines = crate::shogi::attacks::rook_pseudo(ksq);
    let reach = &REACH[us.index()];
    for from in ours.and_not(pawns) {
        let pt = pos.piece_on(from).kind();
        let shield = shields.has(from);
        // A move along the king's line away from it checks along that line only by promoting
        // into a kind that slides back at the king (a pawn, knight or bishop ahead of a king
        // behind it): such checks are found with the board as it will be, the others from the
        // table (the square left is not between a destination off the line and the king).
        let along = if lines.has(from) {
            line(ksq, from) & if zone.has(from) { BOARD } else { zone }
        } else {
            Bitboard::EMPTY
        };
        let targets = checks[pt.index()] | checks[PROMOTED[pt.index()]] | along;
        // The king checks only by uncovering, and only a shield can uncover.
        if !shield
            && (pt == PieceType::King || (reach[pt.index()][from.index()] & targets).is_empty())
        {
            continue;
        }
        let mut dests = attacks::attacks(us, pt, from, occ).and_not(ours);
        if !shield {
            dests &= targets;
        }
        for to in dests {
            let check = if along.has(to) && between(to, ksq).has(from) {
                Check::Away
            } else if shield && !line(ksq, from).has(to) {
                Check::Discovered
            } else {
                Check::Table
            };
            if let Some(m) = try_promotions(pos, &mut test, &checks, from, to, check) {
                return Some(m);
            }
        }
    }
    None
}

/// How a board move's check is known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// A direct check is read from the table of check squares.
    Table,
    /// The move goes along the king's line away from it: a promotion may check along the line
    /// (the table, made with the piece still in the way, does not see it).
    Away,
    /// The move uncovers a check; it may also check directly (the table says).
    Discovered,
}

/// Each kind's empty-board reach together with its promoted kind's, by colour, kind and
/// square: a piece whose reach misses every check square cannot check.
static REACH: LazyLock<[[[Bitboard; SQUARES]; 16]; 2]> = LazyLock::new(|| {
    let mut t = [[[Bitboard::EMPTY; SQUARES]; 16]; 2];
    for c in [Color::Black, Color::White] {
        for pt in PieceType::ALL {
            for (i, reach) in t[c.index()][pt.index()].iter_mut().enumerate() {
                let sq = Square::new(i as u8);
                *reach = attacks::attacks(c, pt, sq, Bitboard::EMPTY)
                    | attacks::attacks(c, pt.promote(), sq, Bitboard::EMPTY);
            }
        }
    }
    t
});

/// Each kind's promoted kind, by index (kinds that do not promote map to themselves).
const PROMOTED: [usize; 16] = {
    let mut t = [0; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = i;
        i += 1;
    }
    t[PieceType::Pawn as usize] = PieceType::YariSilver as usize;
    t[PieceType::YariKnight as usize] = PieceType::YariGoldN as usize;
    t[PieceType::YariBishop as usize] = PieceType::YariGoldB as usize;
    t[PieceType::YariRook as usize] = PieceType::Rook as usize;
    t
};

/// The move from `from` to `to`, promoting where it may and then not promoting where it need
/// not, that checks (as `check` says) and mates.
fn try_promotions(
    pos: &mut Position,
    test: &mut Candidates,
    checks: &[Bitboard; 16],
    from: Square,
    to: Square,
    check: Check,
) -> Option<Move> {
    let us = pos.side_to_move();
    let pt = pos.piece_on(from).kind();
    let (can_promote, must_promote) = promotion_options(us, pt, from, to);
    for promote in [true, false] {
        if (promote && !can_promote) || (!promote && must_promote) {
            continue;
        }
        let after = if promote { pt.promote() } else { pt };
        let direct = if promote && check == Check::Away {
            let occ_after =
                (pos.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
            attacks::attacks(us, after, to, occ_after).has(test.ksq)
        } else {
            checks[after.index()].has(to)
        };
        let discovered = check == Check::Discovered;
        let m = Move::normal(from, to, promote);
        if (direct || discovered) && test.mates(pos, m, after, !discovered) {
            return Some(m);
        }
    }
    None
}

/// The exact test of candidate checks, with what they share found once.
struct Candidates {
    ksq: Square,
    /// The squares next to the king that it could step to (not its own pieces').
    near: Bitboard,
    /// Among `near`, those whose attack by us is known, and of those the ones not attacked (as
    /// the board stands, with the king off it so that a slider's line through it counts).
    known: Bitboard,
    free: Bitboard,
    /// The empty squares where the opponent could drop a piece (found at the first need).
    drops: Option<Bitboard>,
}

impl Candidates {
    fn new(pos: &Position, ksq: Square) -> Candidates {
        let them = !pos.side_to_move();
        Candidates {
            ksq,
            near: attacks::king_steps(ksq).and_not(pos.pieces_of(them)),
            known: Bitboard::EMPTY,
            free: Bitboard::EMPTY,
            drops: None,
        }
    }

    /// Whether the opponent could drop a piece on one of `squares`, which are empty and stay
    /// empty after our move: our move adds no pawn of theirs to a file.
    fn can_drop_on(&mut self, pos: &Position, squares: Bitboard) -> bool {
        let drops = *self.drops.get_or_insert_with(|| {
            let them = !pos.side_to_move();
            let hand = pos.hand(them);
            let empty = BOARD.and_not(pos.occupied());
            let mut drops = Bitboard::EMPTY;
            for pt in PieceType::SFEN_HAND_ORDER {
                if hand.has(pt) {
                    drops |= drop_squares(pos, them, pt, empty);
                }
            }
            drops
        });
        (drops & squares).is_some()
    }

    /// Whether the king could step to `s` as the board stands.
    fn free_now(&mut self, pos: &Position, s: Square) -> bool {
        if !self.known.has(s) {
            self.known |= Bitboard::from_square(s);
            let without_king = pos.occupied() ^ Bitboard::from_square(self.ksq);
            if !pos.is_attacked(pos.side_to_move(), s, without_king) {
                self.free |= Bitboard::from_square(s);
            }
        }
        self.free.has(s)
    }

    /// Whether `m`, a move of the side to move that checks the king and puts kind `after` on
    /// its destination, is legal and leaves no reply; `single` when the moved piece is the
    /// only checker.
    fn mates(&mut self, pos: &mut Position, m: Move, after: PieceType, single: bool) -> bool {
        let us = pos.side_to_move();
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let from_bb = if m.is_drop() {
            Bitboard::EMPTY
        } else {
            Bitboard::from_square(m.from())
        };
        // The king is off the board for our attacks, so that a slider checking along a line
        // also covers the square behind the king.
        let occ_after = (pos.occupied() ^ from_bb ^ Bitboard::from_square(self.ksq)) | to_bb;
        // Our pieces as they will stand but the moved one (whose new square is `after`'s).
        let attacked = |s: Square| {
            pos.attackers_to(us, s, occ_after)
                .and_not(from_bb)
                .is_some()
        };
        // A piece next to the king must be defended, or the king takes it (the callers test a
        // dropped piece: it is defended where the square was attacked before).
        let adjacent = attacks::king_steps(self.ksq).has(to);
        if adjacent && !from_bb.is_empty() && !attacked(to) {
            return false;
        }
        // A lone check from afar is answered by a drop in between, where there is one.
        if single && !adjacent && self.can_drop_on(pos, between(to, self.ksq)) {
            return false;
        }
        // A square the king may step to now stays open unless the moved piece covers it or
        // (only a board move can) uncovers a slider onto it.
        let uncovered = self
            .near
            .and_not(attacks::attacks(us, after, to, occ_after) | to_bb);
        if from_bb.is_empty() && (uncovered & self.free).is_some() {
            return false;
        }
        for s in uncovered {
            if self.free_now(pos, s) && (from_bb.is_empty() || !attacked(s)) {
                return false;
            }
        }
        if !pos.is_legal_move(m) {
            return false;
        }
        pos.do_move_with_check(m, true);
        let mut replies = MoveList::new();
        pos.evasions(&mut replies);
        pos.undo_move();
        replies.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The composed table agrees with each kind's attacks read backwards from the king.
    #[test]
    fn check_squares_are_the_attacks_seen_from_the_king() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard((x as u128 | ((x.rotate_left(29) as u128) << 64)) & BOARD.0);
            let ksq = Square::new((x % 63) as u8);
            for us in [Color::Black, Color::White] {
                let table = check_squares(us, ksq, occ);
                for pt in PieceType::ALL {
                    let expected = if pt == PieceType::King {
                        Bitboard::EMPTY
                    } else {
                        attacks::attacks(!us, pt, ksq, occ)
                    };
                    assert_eq!(table[pt.index()], expected, "{pt:?} {ksq:?}");
                }
            }
        }
    }
}
