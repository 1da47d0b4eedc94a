//! Yari shogi's impasse rule as the search calls it (`Position::impasse_win`): the rules
//! document's count on made positions, and the match referee's own judgement of `bestmove win`
//! (tuning/referee/yari.py, run by `tests/oracle/yari_impasse.py`) on random positions whose
//! kings have mostly entered and whose counts lie about the 26 points that decide.

use kirin::shogi::Color;
use kirin::yari::{IMPASSE_POINTS, Position};

mod common;
use common::Rng;

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"))
}

#[test]
fn the_count_decides_once_both_kings_have_entered() {
    assert_eq!(IMPASSE_POINTS, 26);
    for (sfen, wins) in [
        // 2 rooks, 2 bishops and 6 pawns (26) against 25: a win; against 26 a draw.
        ("3K3/7/7/7/7/7/7/7/3k3 b 2R2B6P2r2b5p 1", true),
        ("3K3/7/7/7/7/7/7/7/3k3 b 2R2B6P2r2b6p 1", false),
        // 25 against 0 loses.
        ("3K3/7/7/7/7/7/7/7/3k3 b 2R2B5P 1", false),
        // Promoted pieces count as what they were, board and hand alike.
        ("+R+B1K3/7/7/7/7/7/7/7/3k3 b RB6P 1", true),
        // Black's king on rank d has not entered; then White's on rank f.
        ("7/7/7/3K3/7/7/7/7/3k3 b 4R4B2P 1", false),
        ("3K3/7/7/7/7/3k3/7/7/7 b 4R4B2P 1", false),
        // A winning count, but no legal move: mated, which ends the game first.
        ("4r1K/6+r/7/7/6+r/7/7/7/3k3 b 4B6P 1", false),
    ] {
        let p = pos(sfen);
        assert_eq!(p.impasse_win(), wins, "{sfen}");
    }
}

/// A random legal-looking setup (the referee only counts): kings mostly in their enemy camps,
/// each piece of the set absent, in a hand or on the board (promoted at times, never where it
/// could not move, one unpromoted pawn a file), either side to move.
fn random_setup(rng: &mut Rng) -> String {
    let mut board = [[""; 7]; 9]; // [rank a..i][file 7..1 from the left]
    let king_rank = |rng: &mut Rng, camp: usize| {
        if rng.below(5) == 0 {
            rng.below(9)
        } else {
            camp + rng.below(3)
        }
    };
    let (br, bc) = (king_rank(rng, 0), rng.below(7));
    board[br][bc] = "K";
    let (wr, wc) = loop {
        let (r, c) = (king_rank(rng, 6), rng.below(7));
        if r.abs_diff(br) > 1 || c.abs_diff(bc) > 1 {
            break (r, c);
        }
    };
    board[wr][wc] = "k";
    // Each side's share of the set decides the count, so its odds vary from setup to setup.
    let black_share = rng.below(9) + 1;
    let mut hands = [String::new(), String::new()];
    let mut pawn_files = [[false; 7]; 2];
    for (kind, count) in [("P", 14), ("N", 4), ("B", 4), ("R", 4)] {
        for _ in 0..count {
            let side = usize::from(rng.below(10) >= black_share);
            let letter = if side == 0 {
                kind.to_string()
            } else {
                kind.to_lowercase()
            };
            match rng.below(10) {
                0 => continue,
                1..=4 => hands[side].push_str(&letter),
                _ => {
                    let promoted = rng.below(3) == 0;
                    for _ in 0..20 {
                        let (r, c) = (rng.below(9), rng.below(7));
                        let last = r == if side == 0 { 0 } else { 8 };
                        let pawn = kind == "P" && !promoted;
                        if !board[r][c].is_empty()
                            || (last && !promoted && kind != "R")
                            || (pawn && pawn_files[side][c])
                        {
                            continue;
                        }
                        pawn_files[side][c] |= pawn;
                        board[r][c] = if promoted {
                            ["+P", "+N", "+B", "+R", "+p", "+n", "+b", "+r"]
                                [side * 4 + "PNBR".find(kind).unwrap()]
                        } else {
                            ["P", "N", "B", "R", "p", "n", "b", "r"]
                                [side * 4 + "PNBR".find(kind).unwrap()]
                        };
                        break;
                    }
                }
            }
        }
    }
    let rows: Vec<String> = board
        .iter()
        .map(|rank| {
            let (mut row, mut empty) = (String::new(), 0);
            for sq in rank {
                if sq.is_empty() {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push_str(sq);
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            row
        })
        .collect();
    let hand = format!("{}{}", hands[0], hands[1]);
    let side = if rng.below(2) == 0 { "b" } else { "w" };
    let hand = if hand.is_empty() { "-".into() } else { hand };
    format!("{} {side} {hand} 1", rows.join("/"))
}

/// Kirin calls the impasse exactly where the referee rules the call a win, on positions where
/// the side to move has a legal move (the referee ends the others before the call).
#[test]
fn calls_agree_with_the_referee() {
    let mut rng = Rng(0x1a7a_55e5);
    let mut positions = Vec::new();
    while positions.len() < 3_000 {
        let sfen = random_setup(&mut rng);
        let Ok(p) = Position::from_sfen(&sfen) else {
            continue;
        };
        // The side not to move may not be in check.
        let them = !p.side_to_move();
        let checked = p
            .king_square(them)
            .is_some_and(|k| p.is_attacked(p.side_to_move(), k, p.occupied()));
        if !checked && !p.legal_moves().is_empty() {
            positions.push((p.to_sfen(), p));
        }
    }
    let input: String = positions.iter().map(|(s, _)| format!("{s}\n")).collect();
    let verdicts = common::python_oracle("yari_impasse.py", &[], &input);
    let verdicts: Vec<&str> = verdicts.lines().collect();
    assert_eq!(verdicts.len(), positions.len());
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for ((sfen, p), verdict) in positions.iter().zip(&verdicts) {
        let us = p.side_to_move();
        let (ours, theirs) = (p.impasse_points(us), p.impasse_points(!us));
        let expected = if !p.both_kings_entered() || ours < IMPASSE_POINTS {
            "loss"
        } else if theirs >= IMPASSE_POINTS {
            "draw"
        } else {
            "win"
        };
        assert_eq!(
            *verdict,
            expected,
            "{sfen}: {ours} to {theirs} points (Black {})",
            p.impasse_points(Color::Black)
        );
        assert_eq!(p.impasse_win(), *verdict == "win", "{sfen}");
        wins += usize::from(*verdict == "win");
        draws += usize::from(*verdict == "draw");
        losses += usize::from(*verdict == "loss");
    }
    eprintln!("{wins} wins, {draws} draws, {losses} losses");
    assert!(
        wins >= 200 && draws >= 20 && losses >= 200,
        "{wins} {draws} {losses}"
    );
}
