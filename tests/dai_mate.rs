//! Dai shogi's mate search (`kirin::dai::mate`): its mates in one against brute force over
//! every move on positions of random games, winning lines that HaChu played against kirin, and
//! the positions where it must not claim a mate (two royals, a defender that takes the
//! attacker's last royal).

mod common;

use common::Rng;
use kirin::dai::mate::{MateResult, MateSearch};
use kirin::dai::{DeclinedPawnRule, Position, Rules};
use kirin::shogi::Color;

fn pos(sfen: &str) -> Position {
    let mut p = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"));
    // HaChu's rule, which the recorded games were played under.
    p.set_rules(Rules {
        declined_pawn: DeclinedPawnRule::LastRankOnly,
        ..p.rules()
    });
    p
}

/// Whether some move of the side to move takes the last royal of the other side.
fn takes_last_royal(p: &mut Position) -> bool {
    let them = p.side_to_move().flip();
    p.legal_moves().into_iter().any(|m| {
        p.do_move(m);
        let gone = p.royals(them) == 0;
        p.undo_move();
        gone
    })
}

/// A mate in one by brute force: a move of the side to move after which the other side has
/// moves and every one of them lets the last royal be taken (or leaves none), and none takes
/// the mover's last royal.
fn brute_mate_in_one(p: &mut Position) -> bool {
    let us = p.side_to_move();
    let them = us.flip();
    if p.royals(them) != 1 {
        return false;
    }
    p.legal_moves().into_iter().any(|m| {
        p.do_move(m);
        let mated = p.royals(them) == 0
            || p.legal_moves().into_iter().all(|r| {
                p.do_move(r);
                let lost = p.royals(us) > 0 && (p.royals(them) == 0 || takes_last_royal(p));
                p.undo_move();
                lost
            });
        p.undo_move();
        mated
    })
}

/// Plays `line` and says whether `victim` has lost at its end: no royal left, or `victim` to
/// move and every one of its moves lets the attacker take its last royal.
fn line_wins(p: &mut Position, line: &[kirin::dai::Move], victim: Color) -> bool {
    for &m in line {
        assert!(p.is_legal_move(m), "{m} in {line:?}");
        p.do_move(m);
    }
    let lost = p.royals(victim) == 0
        || (p.side_to_move() == victim
            && p.legal_moves().into_iter().all(|r| {
                p.do_move(r);
                let taken = takes_last_royal(p);
                p.undo_move();
                taken
            }));
    for _ in line {
        p.undo_move();
    }
    lost
}

#[test]
fn mates_in_one_agree_with_brute_force_on_random_games() {
    let (mut mates, mut checked) = (0, 0);
    let mut rng = Rng(0x6d61_7465_2d64_6169);
    for _game in 0..60 {
        let mut p = Position::startpos();
        for _ply in 0..400 {
            let moves = p.legal_moves();
            if moves.is_empty() || p.royals(Color::Black) == 0 || p.royals(Color::White) == 0 {
                break;
            }
            // Positions where the defender has one royal and it stands near the attacker's
            // pieces are the ones where a mate can be: every fifth such position is checked.
            let them = p.side_to_move().flip();
            if p.royals(them) == 1 && rng.below(5) == 0 {
                let expected = brute_mate_in_one(&mut p);
                let mut solver = MateSearch::new(1_000_000, 2);
                let before = p.key();
                let found = solver.solve(&mut p);
                assert_eq!(
                    p.key(),
                    before,
                    "the search must leave the position as it was"
                );
                match &found {
                    MateResult::Mate(line) => {
                        assert!(expected, "{} claimed {line:?}", p.to_sfen());
                        assert!(line_wins(&mut p, line, them), "{} {line:?}", p.to_sfen());
                        mates += 1;
                    }
                    MateResult::NoMate => {
                        assert!(
                            !expected,
                            "{} has a mate in one that was missed",
                            p.to_sfen()
                        )
                    }
                    MateResult::Unknown => panic!("a mate in one ran out of nodes"),
                }
                checked += 1;
            }
            // Captures first, so that the royals are soon exposed.
            let captures: Vec<_> = moves.iter().copied().filter(|&m| p.is_capture(m)).collect();
            let m = if !captures.is_empty() && rng.below(2) == 0 {
                captures[rng.below(captures.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            p.do_move(m);
        }
    }
    assert!(checked > 1_000, "{checked} positions checked");
    assert!(mates >= 10, "only {mates} mates in {checked} positions");
}

/// Ply 384 of a game at 300 ms a move: HaChu (Black) to move won by force, taking White's
/// king at ply 390 (`10i12g 7e10e 12g10e 8b8c 8g8c+ ...`).
const HACHU_WINS: &str = "l2i1sgtgsc1u1l/auc'1f2ektfic'1a/x'1na'4ow5/10m1a'2/pp6m1x3x'/6D8/7R6p/10P'C3/5+H9/6PPPP5/6CGWFPA'3/15/7T2U4/A1X'1I1S1T1I4/L6KES1+d3 b - 385";

#[test]
fn the_win_hachu_played_is_found_and_its_line_wins() {
    let mut p = pos(HACHU_WINS);
    let mut solver = MateSearch::new(100_000, 21);
    let MateResult::Mate(line) = solver.solve(&mut p) else {
        panic!("no mate found")
    };
    assert!(line.len() % 2 == 1 && line.len() <= 7, "{line:?}");
    assert!(line_wins(&mut p, &line, Color::White), "{line:?}");
    // The side that is mated has no mate of its own to find here: it is not its move.
    p.do_null_move();
    let mut solver = MateSearch::new(100_000, 21);
    assert_ne!(
        std::mem::discriminant(&solver.solve(&mut p)),
        std::mem::discriminant(&MateResult::Mate(Vec::new()))
    );
}

#[test]
fn a_side_with_two_royals_is_never_mated() {
    // White's king on 8a and crown prince on 1a; Black's dragon next to the king.
    let p = pos("7k6+e/7D7/15/15/15/15/15/15/15/15/15/15/15/15/7K7 b - 1");
    assert_eq!(p.royals(Color::White), 2);
    let mut p = p;
    assert_eq!(
        MateSearch::new(10_000, 21).solve(&mut p),
        MateResult::NoMate
    );
}

#[test]
fn a_defender_that_takes_the_last_royal_is_not_mated() {
    // Black's lone king next to White's gold, which takes it: whatever Black attacks, White's
    // reply ends the game.
    let mut p = pos("7k7/15/15/15/15/15/15/15/15/15/15/15/15/7g7/R6K7 b - 1");
    assert_eq!(
        MateSearch::new(10_000, 21).solve(&mut p),
        MateResult::NoMate
    );
}
