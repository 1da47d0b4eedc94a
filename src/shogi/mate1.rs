//! Mate in one, found without generating every move: only checks that land next to the enemy
//! king (or a knight's jump from it) are tried. Those are the cheap, common mates in shogi, where
//! a drop next to the king ends many games; distant checks are left to the search.

use crate::shogi::attacks::{self, king_attacks, knight_attacks, line, within_three};
use crate::shogi::{Bitboard, Color, Move, MoveList, PieceType, Position, Square, movegen};

/// The kinds a mating drop may put down, strongest first: SFEN's hand order without its last
/// kind, the pawn, since a pawn drop may not mate.
const MATING_DROPS: &[PieceType] = PieceType::SFEN_HAND_ORDER.split_last().unwrap().1;

pub fn mate_in_one(pos: &mut Position) -> Option<Move> {
    let us = pos.side_to_move();
    let them = !us;
    let ksq = pos.king_square(them)?;
    let occ = pos.occupied();
    let near = king_attacks(ksq) | knight_attacks(them, ksq);
    // Flight squares we do not cover now. A check can only mate if the checking piece covers all
    // of them (bar its own square): a quick filter before the exact test, which plays the move
    // and looks for any reply. Discovered attacks are not foreseen, so a rare mate is missed,
    // but nothing is ever reported that is not a mate. Found at the first candidate check:
    // most positions have none.
    let mut free = None;
    // The enemy's pieces that cannot take a checker back: its king and the pieces pinned to it,
    // found when first needed.
    let mut cannot_take = None;
    // The checker's reach is taken without the king on the board: a lance, rook or bishop next
    // to the king also covers the flight square behind it, since the king cannot step back
    // along the line of the check.
    let king_bb = Bitboard::from_square(ksq);
    let covers = |free, pt, to, occ| reaches_all(us, free, pt, to, occ ^ king_bb);
    let hand = pos.hand(us);
    if !hand.is_empty() {
        for &pt in MATING_DROPS {
            if !hand.has(pt) {
                continue;
            }
            // Squares from which a piece of ours would attack the king are the squares that
            // piece, if it were the enemy's, would attack from the king's square.
            let squares = attacks::attacks(them, pt, ksq, occ) & near & !occ;
            for to in squares {
                let m = Move::drop(pt, to);
                let occ_after = occ | Bitboard::from_square(to);
                if covers(
                    *free.get_or_insert_with(|| flight_squares(pos, ksq)),
                    pt,
                    to,
                    occ_after,
                ) && defended(pos, to, occ_after, Bitboard::EMPTY, ksq)
                    && !taken_back(pos, to, occ_after, &mut cannot_take)
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
    for from in pos.pieces_of(us).and_not(king) & (within_three(ksq) | pos.sliders()) {
        let pt = pos.piece_on(from).kind();
        // A distant slider seldom has a line into the king's neighbourhood: one lookup tells.
        if pt.slides() && (attacks::pseudo_attacks(us, pt, from) & targets).is_empty() {
            continue;
        }
        // A piece leaving a line through the king may uncover a check or a pin, which the quick
        // capture test below does not foresee: such moves go straight to the exact test.
        let aligned = line(ksq, from).is_some();
        for to in attacks::attacks(us, pt, from, occ) & targets {
            for promote in [true, false] {
                if promote && !pt.can_promote() {
                    continue;
                }
                // The cheap test first: the full legality check costs several times more.
                let after = if promote { pt.promote() } else { pt };
                let occ_after = (occ ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
                let free = *free.get_or_insert_with(|| flight_squares(pos, ksq));
                if !covers(free, after, to, occ_after) {
                    continue;
                }
                let m = Move::normal(from, to, promote);
                if defended(pos, to, occ_after, Bitboard::from_square(from), ksq)
                    && (aligned || !taken_back(pos, to, occ_after, &mut cannot_take))
                    && pos.is_legal_move(m)
                    && pos.gives_check(m)
                    && mates(pos, m)
                {
                    return Some(m);
                }
            }
        }
    }
    None
}

/// The squares next to the enemy king, `ksq`, that it may step to now: not held by its own
/// pieces and not attacked by the side to move (with the king off the board, so that a
/// slider's line through it counts). Only our pieces within three king steps (a knight's jump
/// from a neighbour at most) and our sliders can reach them, so their attacks are gathered
/// once instead of testing each square against every kind.
fn flight_squares(pos: &Position, ksq: Square) -> Bitboard {
    let us = pos.side_to_move();
    let around = king_attacks(ksq).and_not(pos.pieces_of(!us));
    let without_king = pos.occupied() ^ Bitboard::from_square(ksq);
    let mut covered = Bitboard::EMPTY;
    for from in pos.pieces_of(us) & (within_three(ksq) | pos.sliders()) {
        let pt = pos.piece_on(from).kind();
        if pt.slides() && (attacks::pseudo_attacks(us, pt, from) & around).is_empty() {
            continue;
        }
        covered |= attacks::attacks(us, pt, from, without_king);
        if around.and_not(covered).is_empty() {
            break;
        }
    }
    around.and_not(covered)
}

/// Whether a piece of `us` of kind `pt` on `to` attacks every square of `free` but its own
/// with occupancy `occ`. The reach on an empty board, one lookup, rules out most candidates
/// before a slider's blocked reach is worked out; for a stepper it is the reach itself.
#[inline(always)]
fn reaches_all(us: Color, free: Bitboard, pt: PieceType, to: Square, occ: Bitboard) -> bool {
    let rest = free.and_not(Bitboard::from_square(to));
    rest.and_not(attacks::pseudo_attacks(us, pt, to)).is_empty()
        && (!pt.slides() || rest.and_not(attacks::attacks(us, pt, to, occ)).is_empty())
}

/// Whether a piece of the side to move arriving on `to` (leaving `from`, which may be empty)
/// would be safe from the enemy king there: out of its reach, or defended.
/// Most candidate checks fail here, before the exact test generates every reply.
fn defended(pos: &Position, to: Square, occ_after: Bitboard, from: Bitboard, ksq: Square) -> bool {
    if !king_attacks(ksq).has(to) {
        return true; // a knight's check from two squares away: out of the king's reach
    }
    let us = pos.side_to_move();
    pos.attackers_to(us, to, occ_after ^ Bitboard::from_square(ksq))
        .and_not(from)
        .is_some()
}

/// Whether the enemy can take back a checker arriving on `to` with a piece other than its king
/// that is not pinned to it: then the check is no mate. Holds for a drop, and for a move whose
/// piece leaves no line through the enemy king, so that it checks alone and pins nothing new
/// (a piece arriving next to the king only closes lines, which can unpin but never pin).
/// `cannot_take` caches the enemy's king and pinned pieces, worked out at the first call.
fn taken_back(
    pos: &Position,
    to: Square,
    occ_after: Bitboard,
    cannot_take: &mut Option<Bitboard>,
) -> bool {
    let them = !pos.side_to_move();
    let cannot_take =
        *cannot_take.get_or_insert_with(|| pos.pinned(them) | pos.pieces_cp(them, PieceType::King));
    pos.attackers_to(them, to, occ_after)
        .and_not(cannot_take)
        .is_some()
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

    fn mates_by_brute_force(pos: &mut Position, m: Move) -> bool {
        pos.do_move(m);
        let mated = pos.is_mated();
        pos.undo_move();
        mated
    }

    /// Plays `games` random games of at most `plies` plies from `starts` in turn: `choose` sees
    /// each position with its legal moves and names the move to play, or `None` to end the game.
    fn play_random_games(
        starts: &[&str],
        seed: u64,
        games: usize,
        plies: usize,
        mut choose: impl FnMut(&mut Position, &[Move], &mut dyn FnMut() -> u64) -> Option<Move>,
    ) {
        let mut next = crate::test_rng::xorshift(seed);
        for game in 0..games {
            let mut pos = Position::from_sfen(starts[game % starts.len()]).unwrap();
            for _ in 0..plies {
                let moves = movegen::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                let Some(m) = choose(&mut pos, &moves, &mut next) else {
                    break;
                };
                pos.do_move(m);
            }
        }
    }

    /// A random move, a check two times in three when there is one, so that games reach mates.
    fn mostly_checks(checks: &[Move], moves: &[Move], next: &mut dyn FnMut() -> u64) -> Move {
        let pool = if !checks.is_empty() && !next().is_multiple_of(3) {
            checks
        } else {
            moves
        };
        pool[(next() % pool.len() as u64) as usize]
    }

    /// Every checking drop next to the king (or a knight's jump from it) that mates, other than
    /// a pawn's, is found: `mate_in_one` answers some mate wherever brute force finds such a drop mate.
    #[test]
    fn no_contact_drop_mate_is_missed() {
        let starts = [
            "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
            "3gkg3/9/4p4/9/9/9/9/9/4K4 b R2B2G3S3N3L16Pr 1",
            "8k/9/9/9/9/9/9/9/K8 b 2R2B4G4S4N4L 1",
        ];
        let mut drop_mates = 0;
        play_random_games(
            &starts,
            0x9e37_79b9_7f4a_7c15,
            300,
            40,
            |pos, moves, next| {
                let them = !pos.side_to_move();
                let ksq = pos.king_square(them).unwrap();
                let near = king_attacks(ksq) | knight_attacks(them, ksq);
                let contact_mate = moves.iter().copied().find(|&m| {
                    m.is_drop()
                        && m.dropped() != PieceType::Pawn
                        && near.has(m.to())
                        && pos.gives_check(m)
                        && mates_by_brute_force(pos, m)
                });
                if let Some(m) = contact_mate {
                    drop_mates += 1;
                    assert!(
                        mate_in_one(pos).is_some(),
                        "{m} mates but none was found in {}",
                        pos.to_sfen()
                    );
                }
                let pool: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| contact_mate != Some(m))
                    .collect();
                (!pool.is_empty()).then(|| pool[(next() % pool.len() as u64) as usize])
            },
        );
        assert!(drop_mates > 100, "only {drop_mates} drop mates seen");
    }

    /// The quick refusal holds: a checking drop, or a checking move from off every line through
    /// the enemy king, that an unpinned enemy piece other than the king can take is never a mate,
    /// however far from the king it checks.
    #[test]
    fn a_checker_taken_back_never_mates() {
        let starts = [
            "lnsgk2nl/1r4gs1/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/2G4R1/LN2KGSNL b Bb 1",
            "3gkg3/9/4p4/9/9/9/9/9/4K4 b R2B2G3S3N3L16Pr 1",
            "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
        ];
        let (mut refused, mut pinned_takers) = (0, 0);
        play_random_games(
            &starts,
            0x5851_f42d_4c95_7f2d,
            200,
            60,
            |pos, moves, next| {
                let ksq = pos.king_square(!pos.side_to_move()).unwrap();
                let checks: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.gives_check(m))
                    .collect();
                for &m in &checks {
                    let occ_after = if m.is_drop() {
                        pos.occupied() | Bitboard::from_square(m.to())
                    } else {
                        if line(ksq, m.from()).is_some() {
                            continue;
                        }
                        (pos.occupied() ^ Bitboard::from_square(m.from()))
                            | Bitboard::from_square(m.to())
                    };
                    if taken_back(pos, m.to(), occ_after, &mut None) {
                        refused += 1;
                        assert!(
                            !mates_by_brute_force(pos, m),
                            "{m} mates but was refused in {}",
                            pos.to_sfen()
                        );
                    } else if pos
                        .attackers_to(!pos.side_to_move(), m.to(), occ_after)
                        .and_not(Bitboard::from_square(ksq))
                        .is_some()
                    {
                        pinned_takers += 1;
                    }
                }
                Some(mostly_checks(&checks, moves, next))
            },
        );
        assert!(
            refused > 2000 && pinned_takers > 20,
            "{refused} refused, {pinned_takers} with only pinned takers"
        );
    }

    /// Random games that favour checks and drops, from positions with full hands, so that
    /// mates in one are common: every answer is a legal mating move.
    #[test]
    fn every_answer_is_a_legal_mate() {
        let starts = [
            "lnsgk2nl/1r4gs1/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/2G4R1/LN2KGSNL b Bb 1",
            "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLPrbgsnlp 1",
            "3gkg3/9/4p4/9/9/9/9/9/4K4 b R2B2G3S3N3L16Pr 1",
        ];
        let (mut found, mut checked) = (0, 0);
        play_random_games(
            &starts,
            0x2545_f491_4f6c_dd1d,
            240,
            60,
            |pos, moves, next| {
                checked += 1;
                if let Some(m) = mate_in_one(pos) {
                    found += 1;
                    assert!(moves.contains(&m), "{m} is not legal in {}", pos.to_sfen());
                    assert!(mates_by_brute_force(pos, m), "{m} does not mate");
                }
                let checks: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.gives_check(m))
                    .collect();
                Some(mostly_checks(&checks, moves, next))
            },
        );
        assert!(
            checked > 5000 && found > 200,
            "{found} mates in {checked} positions"
        );
    }
}
