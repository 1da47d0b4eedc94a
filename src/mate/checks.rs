//! Checking moves, generated directly.
//!
//! `movegen::checks` builds every legal move and keeps those that check; at attacker nodes that was
//! a quarter of the solver's time. Here only moves that can check are built: drops and moves onto
//! squares from which the piece (or its promotion) would attack the king, and any move of a piece
//! that shields one of our sliders from the king. Each candidate is then confirmed with
//! `gives_check`, so the candidate sets need only be supersets. The result equals
//! `movegen::checks` as a set (a test compares them over many positions).

use crate::shogi::attacks::{self, between, line};
use crate::shogi::movegen::{MoveList, drop_squares, promotion_options};
use crate::shogi::{Bitboard, Color, Move, PieceType, Position, Square, legal_moves};

/// Squares from which a piece of kind `pt` belonging to the attacker would attack `ksq`.
#[inline]
fn check_squares(defender: Color, pt: PieceType, ksq: Square, occ: Bitboard) -> Bitboard {
    attacks::attacks(defender, pt, ksq, occ)
}

pub fn checks(pos: &mut Position, list: &mut MoveList) {
    let us = pos.side_to_move();
    let them = !us;
    let Some(ksq) = pos.king_square(them) else {
        return;
    };
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let our_king = pos.king_square(us);
    let checkers = pos.checkers();

    // When in check, a move must also answer it: capture the checker or block (single check only,
    // and only the king can answer a double check).
    let (answer, double) = match our_king {
        Some(k) if checkers.is_some() => {
            if checkers.more_than_one() {
                (Bitboard::EMPTY, true)
            } else {
                (checkers | between(k, checkers.lsb()), false)
            }
        }
        _ => (Bitboard::ALL, false),
    };
    let pinned = pos.pinned(us);
    let discoverers = pos.blockers_for_king(them) & ours;

    if let Some(k) = our_king
        && discoverers.has(k)
    {
        let without_king = occ ^ Bitboard::from_square(k);
        for to in attacks::king_attacks(k).and_not(ours) {
            if !line(ksq, k).has(to) && !pos.is_attacked(them, to, without_king) {
                let m = Move::normal(k, to, false);
                if pos.gives_check(m) {
                    list.push(m);
                }
            }
        }
    }

    if !double {
        let movers = match our_king {
            Some(k) => ours.and_not(Bitboard::from_square(k)),
            None => ours,
        };
        for from in movers {
            let pt = pos.piece_on(from).kind();
            let mut to_bb = attacks::attacks(us, pt, from, occ).and_not(ours) & answer;
            if pinned.has(from)
                && let Some(k) = our_king
            {
                to_bb &= line(k, from);
            }
            if !discoverers.has(from) {
                let mut cs = check_squares(them, pt, ksq, occ);
                if pt.can_promote() {
                    cs |= check_squares(them, pt.promote(), ksq, occ);
                }
                to_bb &= cs;
            }
            for to in to_bb {
                push_checks(pos, list, us, pt, from, to);
            }
        }
        if let Some(m) = drops(pos, list, us, them, ksq, occ, answer) {
            // The one pawn drop that checks is legal unless it mates.
            pos.do_move(m);
            let mates = legal_moves(pos).is_empty();
            pos.undo_move();
            if !mates {
                list.push(m);
            }
        }
    }
}

/// The promotion choices of one board move that give check (full mode: useless non-promotions
/// included, as a mate search must not miss them).
fn push_checks(
    pos: &Position,
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    to: Square,
) {
    let (can_promote, must_promote) = promotion_options(us, pt, from, to);
    if can_promote {
        let m = Move::normal(from, to, true);
        if pos.gives_check(m) {
            list.push(m);
        }
    }
    if !must_promote {
        let m = Move::normal(from, to, false);
        if pos.gives_check(m) {
            list.push(m);
        }
    }
}

/// Pushes the checking drops, except a pawn drop, which is returned for the caller to test for
/// pawn-drop mate.
fn drops(
    pos: &Position,
    list: &mut MoveList,
    us: Color,
    them: Color,
    ksq: Square,
    occ: Bitboard,
    answer: Bitboard,
) -> Option<Move> {
    let hand = pos.hand(us);
    if hand.is_empty() {
        return None;
    }
    let mut pawn = None;
    // A drop never captures, so when in check it can only block.
    let target = (!occ) & answer & Bitboard::ALL;
    for pt in PieceType::HAND {
        if !hand.has(pt) {
            continue;
        }
        let squares = drop_squares(pos, us, pt, check_squares(them, pt, ksq, occ) & target);
        for to in squares {
            let m = Move::drop(pt, to);
            if pt == PieceType::Pawn {
                pawn = Some(m);
            } else {
                list.push(m);
            }
        }
    }
    pawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::movegen;

    fn sorted(mut v: Vec<Move>) -> Vec<u16> {
        let mut r: Vec<u16> = v.drain(..).map(|m| m.raw()).collect();
        r.sort_unstable();
        r
    }

    fn compare(pos: &mut Position) {
        let mut fast = MoveList::new();
        checks(pos, &mut fast);
        let mut slow = MoveList::new();
        movegen::checks(pos, &mut slow);
        assert_eq!(
            sorted(fast.to_vec()),
            sorted(slow.to_vec()),
            "checks differ in {}",
            pos.to_sfen()
        );
    }

    const SEEDS: &[&str] = &[
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1",
        "7nl/7k1/9/9/7BL/5+r1R1/9/9/9 b 2Gb2g4s3n2l18p 1",
        "ln1r4l/3k1gp2/pS1p1+P1+R1/6L1p/1pPP2S2/2S3P2/PP2p1+b1P/3K5/+b7L w 2GSN3Pg2n2p 118",
        "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1",
        "k3l3R/p4s3/9/N8/4p4/4KBB2/9/1pp+l+l+l+n+n+n/+s+s+sggggr1 b 14p 1",
        "l6nl/3k2+B2/p1n1g2pp/2G1ppp2/2P2N1P1/3P2P1P/Ps1GP4/1+rSK2R2/LN6L b G3Pb2s2p 77",
        "ln1gkg1nl/6+P2/2sppps1p/2p3p2/p8/P1P1P3P/2NP1PP2/3s1KSR1/L1+b2G1NL w R2Pbgp 42",
        "4k4/9/4P4/9/9/9/9/9/9 b P2r2b4g4s4n4l16p 1",
        "lg3+B1nl/3s2p2/p1n1sS1k1/7pp/9/PKPpP4/1P2gPP1P/1s1r5/LN5NL b G6Prbg 3",
        "4k4/9/4P4/9/9/9/9/9/9 b 2P2r2b4g4s4n4l15p 1",
    ];

    /// Random playouts from varied positions, comparing at every step, with a small generator so
    /// that the walk is the same on every run.
    #[test]
    fn same_as_filtering_all_moves() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut positions = 0;
        for sfen in SEEDS {
            let Ok(start) = Position::from_sfen(sfen) else {
                panic!("bad test sfen {sfen}");
            };
            for _ in 0..40 {
                let mut pos = start.clone();
                for _ in 0..60 {
                    compare(&mut pos);
                    positions += 1;
                    // Prefer checks half the time, so that positions in check are well covered.
                    let mut checking = MoveList::new();
                    movegen::checks(&pos, &mut checking);
                    let all = legal_moves(&pos);
                    let pool: &[Move] = if !checking.is_empty() && next() % 2 == 0 {
                        &checking
                    } else {
                        &all
                    };
                    if pool.is_empty() {
                        break;
                    }
                    let m = pool[(next() % pool.len() as u64) as usize];
                    pos.do_move(m);
                }
            }
        }
        assert!(positions > 5000, "{positions}");
    }
}
