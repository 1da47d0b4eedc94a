//! Yari shogi's mate in one (`kirin::yari::mate_in_one`): against brute force (every legal move,
//! then whether the opponent has any legal move) on positions from random games, on positions
//! made for the cases it finds in its own ways (drops, a promotion that slides back at the king,
//! a discovered check, a stalemate), and a sample of its answers against pyffish
//! (Fairy-Stockfish's rules, run by `tests/oracle/yari_mates.py`).

use kirin::shogi::Move;
use kirin::yari::{Position, START_SFEN, mate_in_one};

mod common;
use common::Rng;

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"))
}

/// Whether the opponent has no legal move after `m`: a win in yari, in check or not.
fn mates(p: &mut Position, m: Move) -> bool {
    p.do_move(m);
    let none = p.legal_moves().is_empty();
    p.undo_move();
    none
}

/// Every mating move, the slow way.
fn brute_force(p: &mut Position) -> Vec<Move> {
    p.legal_moves()
        .into_iter()
        .filter(|&m| mates(p, m))
        .collect()
}

/// `mate_in_one` answers exactly when brute force finds a mate, with one of its moves, and
/// leaves the position as it was.
fn check_position(p: &mut Position) -> Option<Move> {
    let before = p.clone();
    let found = mate_in_one(p);
    assert_eq!(*p, before, "mate_in_one must leave the position unchanged");
    let sfen = p.to_sfen();
    if p.in_check() {
        assert_eq!(found, None, "{sfen}: asked in check");
        return None;
    }
    let all = brute_force(p);
    match found {
        Some(m) => assert!(all.contains(&m), "{sfen}: {m} does not mate ({all:?} do)"),
        None => assert!(all.is_empty(), "{sfen}: missed the mates {all:?}"),
    }
    found
}

#[test]
fn made_positions() {
    for (sfen, mate) in [
        // A pawn drop that mates is legal in yari shogi.
        ("6k/7/4N+P1/7/7/7/7/7/3K3 b P 1", Some("P*1b")),
        // Promoting, the pawn slides back down its file at the king behind it; unpromoted it
        // does not check.
        ("K6/7/6P/7/7/7/7/5p1/5rk b - 1", Some("1c1b+")),
        // The gold's step uncovers the rook's check along rank a and covers 2b (other moves
        // mate too: any is right).
        ("2R1+N1k/7/6P/7/7/7/7/7/K6 b - 1", None),
        // The rook takes rank b without checking: no legal move is left, which loses.
        ("6k/7/+R3N2/7/7/7/7/7/K6 b - 1", Some("7c7b")),
        // A checker next to the king that nothing defends is taken.
        ("3k3/7/7/7/7/7/7/7/3K3 b B 1", None),
        ("rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1", None),
    ] {
        let mut p = pos(sfen);
        let found = check_position(&mut p);
        if let Some(text) = mate {
            assert_eq!(
                found.map(|m| m.to_string()).as_deref(),
                Some(text),
                "{sfen}"
            );
        }
    }
    assert!(mate_in_one(&mut pos("2R1+N1k/7/6P/7/7/7/7/7/K6 b - 1")).is_some());
}

/// Positions along random games from the start, the perft table's middlegames and bare kings
/// with full hands; half the moves are checks where there are any, so that kings get hunted
/// and mates in one come up often.
fn sample_positions(games: usize, plies: usize, seed: u64) -> Vec<Position> {
    let starts = [
        START_SFEN,
        "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1",
        "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1",
        "3k3/7/7/7/7/7/7/7/3K3 b 2R2B2N7P2r2b2n7p 1",
        "k6/7/7/7/7/7/7/7/6K b RBN2Prbn2p 1",
    ];
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for g in 0..games {
        let mut p = pos(starts[g % starts.len()]);
        for _ in 0..plies {
            out.push(p.clone());
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            let checks: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| p.gives_check(m))
                .collect();
            let m = if !checks.is_empty() && rng.below(2) == 0 {
                checks[rng.below(checks.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            p.do_move(m);
        }
    }
    out
}

#[test]
fn agrees_with_brute_force_on_random_games() {
    let (mut positions, mut mates_found) = (0, 0);
    let (mut drops, mut promotions, mut stalemates, mut distant) = (0, 0, 0, 0);
    for mut p in sample_positions(500, 120, 0x5eed_f7a7) {
        positions += 1;
        let Some(m) = check_position(&mut p) else {
            continue;
        };
        mates_found += 1;
        drops += usize::from(m.is_drop());
        promotions += usize::from(m.is_promotion());
        stalemates += usize::from(!p.gives_check(m));
        let k = p.king_square(!p.side_to_move()).expect("a king to mate");
        let (df, dr) = (
            m.to().file().abs_diff(k.file()),
            m.to().rank().abs_diff(k.rank()),
        );
        distant += usize::from(df.max(dr) > 1);
    }
    eprintln!(
        "{positions} positions, {mates_found} with a mate in one: {drops} drops, \
         {promotions} promotions, {distant} from afar, {stalemates} stalemates"
    );
    // The sample must reach each way a mate is found, not only drops next to the king.
    assert!(positions >= 35_000, "{positions} positions");
    assert!(mates_found >= 1_000 && drops >= 200 && promotions >= 50 && distant >= 100);
}

// ---- pyffish -------------------------------------------------------------------------------

/// Each answer on a sample of the random games' positions, mate or none, confirmed by pyffish:
/// the move is legal there and leaves no legal move, or no legal move does.
#[test]
fn answers_agree_with_pyffish() {
    let mut lines = Vec::new();
    let (mut with, mut without) = (0, 0);
    for mut p in sample_positions(150, 120, 0x0dd_ba11) {
        if p.in_check() {
            continue;
        }
        match mate_in_one(&mut p) {
            Some(m) if with < 400 => {
                with += 1;
                lines.push(format!("mate\t{}\t{m}", p.to_sfen()));
            }
            None if without < 150 && p.moves_played() % 7 == 0 => {
                without += 1;
                lines.push(format!("none\t{}", p.to_sfen()));
            }
            _ => {}
        }
    }
    assert!(
        with >= 200 && without >= 100,
        "{with} mates, {without} without"
    );
    let input = lines.join("\n") + "\n";
    let verdicts = common::python_oracle("yari_mates.py", &[], &input);
    let verdicts: Vec<&str> = verdicts.lines().collect();
    assert_eq!(verdicts.len(), lines.len());
    for (line, verdict) in lines.iter().zip(verdicts) {
        assert_eq!(verdict, "ok", "pyffish on {line:?}");
    }
}
