//! Dai shogi rules (`kirin::dai`): perft against the `dai` rows of `tests/data/perft.tsv`
//! (copied here as a table), hand-made positions for the lion, the horned falcon and soaring
//! eagle, promotion, royals and the end of the game, and the position's own invariants on
//! random playouts.

mod common;
use common::Rng;
use kirin::dai::{
    self, DeclinedPawnRule, GenType, Move, Outcome, Piece, PieceType, Position, RepetitionRule,
    Rules, START_SFEN, Square, divide, perft,
};
use kirin::eval::WholePositionEvaluation;
use kirin::shogi::Color;
use std::collections::BTreeSet;

/// The `dai` rows of `perft.tsv`: depth and leaf count from the start position.
const TABLE: &[(u32, u64)] = &[(1, 71), (2, 5_041), (3, 357_978), (4, 25_421_252)];

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"))
}

fn sq(text: &str) -> Square {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn perft_table_matches_the_reference_file() {
    let text = std::fs::read_to_string("tests/data/perft.tsv").expect("tests/data/perft.tsv");
    let rows: Vec<(u32, u64)> = text
        .lines()
        .filter(|l| l.starts_with("dai\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                f[2], START_SFEN,
                "dai perft rows are from the start position"
            );
            (f[3].parse().unwrap(), f[4].parse().unwrap())
        })
        .collect();
    assert_eq!(rows, TABLE);
}

#[test]
fn perft_start_depth_1_to_3() {
    for &(depth, count) in &TABLE[..3] {
        let mut p = Position::startpos();
        assert_eq!(perft(&mut p, depth), count, "depth {depth}");
        assert_eq!(p.to_sfen(), START_SFEN);
    }
}

#[test]
fn perft_start_depth_4() {
    let (depth, count) = TABLE[3];
    let mut p = Position::startpos();
    assert_eq!(perft(&mut p, depth), count);
}

#[test]
fn divide_from_the_start_has_71_distinct_moves_that_each_lead_to_71_replies() {
    let mut p = Position::startpos();
    let d = divide(&mut p, 2);
    assert_eq!(d.len(), 71);
    let texts: BTreeSet<String> = d.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(texts.len(), 71);
    // The start position is symmetric and no first move touches White's pieces.
    assert!(d.iter().all(|&(_, n)| n == 71));
    // The lion at 8m is boxed in: two jumps, no pass, no double move.
    let lion: Vec<&String> = texts.iter().filter(|t| t.starts_with("8m")).collect();
    assert_eq!(lion, ["8m10n", "8m6n"]);
}

// ---- helpers for hand-made positions --------------------------------------------------------

/// A position from (square, SFEN piece text) pairs, e.g. `("8h", "L!")`, `("5e", "+h")`.
fn setup(pieces: &[(&str, &str)], side: &str) -> Position {
    let mut grid: Vec<Vec<Option<&str>>> = vec![vec![None; 15]; 15];
    for &(at, piece) in pieces {
        let s = sq(at);
        grid[s.rank() as usize][15 - s.file() as usize] = Some(piece);
    }
    let ranks: Vec<String> = grid
        .iter()
        .map(|row| {
            let mut out = String::new();
            let mut run = 0;
            for cell in row {
                match cell {
                    None => run += 1,
                    Some(p) => {
                        if run > 0 {
                            out += &run.to_string();
                            run = 0;
                        }
                        out += p;
                    }
                }
            }
            if run > 0 {
                out += &run.to_string();
            }
            out
        })
        .collect();
    let sfen = format!("{} {side} - 1", ranks.join("/"));
    let p = pos(&sfen);
    assert_eq!(p.to_sfen(), sfen, "canonical SFEN");
    p
}

fn move_texts(p: &Position) -> BTreeSet<String> {
    p.legal_moves().iter().map(|m| m.to_string()).collect()
}

fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    let from = sq(from);
    p.legal_moves()
        .into_iter()
        .filter(|m| m.from() == Some(from))
        .map(|m| m.to_string())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Squares at king-distance 1 and 2 of `at` on the board, as text.
fn lion_area(at: &str) -> Vec<String> {
    let c = sq(at);
    let mut out = Vec::new();
    for df in -2i32..=2 {
        for dr in -2i32..=2 {
            if (df, dr) == (0, 0) {
                continue;
            }
            let (f, r) = (c.file() as i32 + df, c.rank() as i32 + dr);
            if let Some(s) = (f >= 1 && r >= 0)
                .then(|| Square::new(f as u8, r as u8))
                .flatten()
            {
                out.push(s.to_string());
            }
        }
    }
    out
}

fn neighbours(at: &str) -> Vec<String> {
    let c = sq(at);
    lion_area(at)
        .into_iter()
        .filter(|s| {
            let s = sq(s);
            (s.file() as i32 - c.file() as i32).abs() <= 1
                && (s.rank() as i32 - c.rank() as i32).abs() <= 1
        })
        .collect()
}

const KINGS: [(&str, &str); 2] = [("1o", "K"), ("15a", "k")];

fn with_kings<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut v = KINGS.to_vec();
    v.extend_from_slice(extra);
    v
}

// ---- lion moves --------------------------------------------------------------------------------

#[test]
fn lion_in_the_open_steps_or_jumps_anywhere_within_two_and_has_one_pass() {
    let p = setup(&with_kings(&[("8h", "L!")]), "b");
    let mut want: BTreeSet<String> = lion_area("8h").iter().map(|t| format!("8h{t}")).collect();
    assert_eq!(want.len(), 24);
    want.insert("8h8g8h".to_string()); // the pass, through the first empty neighbour
    assert_eq!(moves_from(&p, "8h"), want);
    let passes: Vec<Move> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.mid().is_some())
        .collect();
    assert_eq!(passes.len(), 1);
    assert_eq!(p.parse_move("pass"), Ok(passes[0]));
    // Any pass text is the one pass.
    assert_eq!(p.parse_move("8h7i8h"), Ok(passes[0]));
    let mut q = p.clone();
    q.do_move(passes[0]);
    assert_eq!(q.side_to_move(), Color::White);
    assert_eq!(q.to_sfen().split(' ').next(), p.to_sfen().split(' ').next());
    q.undo_move();
    assert_eq!(q.key(), p.key());
}

#[test]
fn lion_double_moves_and_igui_capture_an_adjacent_enemy_first() {
    let p = setup(
        &with_kings(&[("8h", "L!"), ("8g", "p"), ("9f", "g"), ("7h", "S")]),
        "b",
    );
    let moves = moves_from(&p, "8h");
    let mut want: BTreeSet<String> = lion_area("8h")
        .iter()
        .filter(|t| *t != "7h")
        .map(|t| format!("8h{t}"))
        .collect();
    want.insert("8h8g8h".to_string()); // igui
    for t in neighbours("8g") {
        if t != "8h" && t != "7h" {
            want.insert(format!("8h8g{t}"));
        }
    }
    want.insert("8h8i8h".to_string()); // pass
    assert_eq!(moves, want);
    assert!(moves.contains("8h8g9f"), "double capture");

    // The double capture takes both pieces.
    let mut q = p.clone();
    let m = q.parse_move("8h8g9f").unwrap();
    assert!(q.is_legal_move(m));
    assert_eq!(
        q.captured_value(m),
        dai::value(PieceType::Pawn) + dai::value(PieceType::Gold)
    );
    let key = q.key();
    q.do_move(m);
    assert!(q.piece_on(sq("8g")).is_none() && q.piece_on(sq("8h")).is_none());
    assert_eq!(
        q.piece_on(sq("9f")),
        Piece::new(PieceType::Lion, Color::Black)
    );
    assert_eq!(q.piece_count(Color::White), 1);
    assert_eq!(q.key(), q.compute_key());
    q.undo_move();
    assert_eq!(q.key(), key);
    assert_eq!(q.to_sfen(), p.to_sfen());

    // Igui: the pawn goes, the lion stays.
    let m = q.parse_move("8h8g8h").unwrap();
    q.do_move(m);
    assert!(q.piece_on(sq("8g")).is_none());
    assert_eq!(
        q.piece_on(sq("8h")),
        Piece::new(PieceType::Lion, Color::Black)
    );
    assert_eq!(q.key(), q.compute_key());
    q.undo_move();
    assert_eq!(q.to_sfen(), p.to_sfen());

    // No double move through an empty or friendly square, no turning back onto a friend.
    for bad in ["8h9h9i", "8h7h7g", "8h8g7h", "8h9g9f", "8h8g8f+"] {
        assert!(p.parse_move(bad).is_err(), "{bad}");
    }
}

#[test]
fn pass_needs_an_empty_neighbour_and_exists_once_per_position() {
    // Surrounded by its own pieces: jumps only, no pass.
    let mut pieces = with_kings(&[("8h", "L!")]);
    let ring = neighbours("8h");
    for t in &ring {
        pieces.push((t.as_str(), "P'"));
    }
    let p = setup(&pieces, "b");
    assert!(
        moves_from(&p, "8h")
            .iter()
            .all(|m| m.len() <= 5 && !m.ends_with("8h"))
    );
    assert_eq!(moves_from(&p, "8h").len(), 16);
    assert!(p.parse_move("pass").is_err());
    // Surrounded by enemies: igui and double moves, still no pass.
    let mut pieces = with_kings(&[("8h", "L!")]);
    for t in &ring {
        pieces.push((t.as_str(), "p'"));
    }
    let p = setup(&pieces, "b");
    let lion = moves_from(&p, "8h");
    assert!(lion.contains("8h8g8h") && lion.contains("8h8g8f"));
    assert!(p.parse_move("pass").is_err());
    assert!(
        p.legal_moves()
            .iter()
            .all(|m| { m.mid().is_none_or(|mid| !p.piece_on(mid).is_none()) })
    );
    // Two lions, a horned falcon and a soaring eagle: one pass in all.
    let p = setup(
        &with_kings(&[("8h", "L!"), ("3h", "+O"), ("12h", "+H"), ("5k", "+D")]),
        "b",
    );
    let passes: Vec<Move> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.mid().is_some_and(|mid| p.piece_on(mid).is_none()))
        .collect();
    assert_eq!(passes.len(), 1);
    // Each of them may be named as the passer.
    for text in ["3h3g3h", "12h12g12h", "5k4j5k", "pass"] {
        assert_eq!(p.parse_move(text), Ok(passes[0]), "{text}");
    }
    // A piece without lion power cannot pass.
    assert!(p.parse_move("1o1n1o").is_err());
}

#[test]
fn igui_on_one_piece_is_one_move_whoever_makes_it() {
    // A lion (7h) and a soaring eagle (9h, whose forward-right neighbour is 8g) both next to
    // the pawn on 8g: capturing it in place leaves the same position either way.
    let p = setup(&with_kings(&[("7h", "L!"), ("9h", "+D"), ("8g", "p")]), "b");
    let iguis: Vec<Move> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.to() == m.from() && m.mid() == Some(sq("8g")))
        .collect();
    assert_eq!(iguis.len(), 1);
    // The piece on the lower square index (7h) makes it.
    assert_eq!(iguis[0].to_string(), "7h8g7h");
    for text in ["7h8g7h", "9h8g9h"] {
        assert_eq!(p.parse_move(text), Ok(iguis[0]), "{text}");
    }
    assert!(!p.is_legal_move(Move::with_mid(sq("9h"), sq("8g"), sq("9h"))));
    // The eagle still has its own double move through the pawn.
    assert!(p.parse_move("9h8g7f").is_ok());
    assert!(p.parse_move("7h8g8f").is_ok());
}

#[test]
fn horned_falcon_has_lion_power_straight_forward_only() {
    let p = setup(
        &with_kings(&[("8h", "+H"), ("8g", "p"), ("8f", "g"), ("7g", "p")]),
        "b",
    );
    let m = moves_from(&p, "8h");
    for want in ["8h8g", "8h8f", "8h8g8h", "8h8g8f"] {
        assert!(m.contains(want), "{want} in {m:?}");
    }
    // Not beyond two squares forward, no turn after the first step, no pass (8g is taken).
    for not in ["8h8e", "8h8g7f", "8h8g9f", "8h8g9g", "8h8g8h+"] {
        assert!(!m.contains(not), "{not}");
    }
    assert!(p.parse_move("pass").is_err());
    // The rest: bishop slides (7g is an enemy: captured and stopped), rook sideways and back.
    assert!(m.contains("8h7g") && !m.contains("8h6f"));
    assert!(m.contains("8h9g") && m.contains("8h12d") && m.contains("8h1h") && m.contains("8h8n"));
    assert!(m.contains("8h15h"));
    assert!(m.contains("8h8o"), "the back slide reaches the edge");
    // White's falcon looks the other way.
    let p = setup(&with_kings(&[("8h", "+h"), ("8i", "P"), ("8j", "G")]), "w");
    let m = moves_from(&p, "8h");
    for want in ["8h8i", "8h8j", "8h8i8h", "8h8i8j"] {
        assert!(m.contains(want), "{want} in {m:?}");
    }
    assert!(!m.contains("8h8g8h"));
    // With the square ahead empty it may pass, and still jump.
    let p = setup(&with_kings(&[("8h", "+H")]), "b");
    let m = moves_from(&p, "8h");
    assert!(m.contains("8h8g8h") && m.contains("8h8f") && !m.contains("8h8e"));
}

#[test]
fn soaring_eagle_has_lion_power_on_both_forward_diagonals() {
    let p = setup(
        &with_kings(&[("8h", "+D"), ("7g", "p"), ("6f", "p"), ("9g", "p")]),
        "b",
    );
    let m = moves_from(&p, "8h");
    for want in [
        "8h7g", "8h6f", "8h7g8h", "8h7g6f", "8h9g", "8h10f", "8h9g8h", "8h9g10f", "8h8a", "8h1h",
        "8h15h", "8h8o", "8h9i", "8h14n",
    ] {
        assert!(m.contains(want), "{want} in {m:?}");
    }
    for not in ["8h11e", "8h5e", "8h7g7f", "8h9g8g", "8h7g8g"] {
        assert!(!m.contains(not), "{not}");
    }
    // Exactly: rook lines (7+7+7+7), back diagonals (6+7 to the edges), forward lion squares.
    let lion = [
        "8h7g", "8h6f", "8h9g", "8h10f", "8h7g8h", "8h7g6f", "8h9g8h", "8h9g10f",
    ];
    assert_eq!(m.len(), 7 + 7 + 7 + 7 + 6 + 7 + lion.len());
}

#[test]
fn kirin_promotes_to_a_full_lion() {
    let mut p = setup(&with_kings(&[("8f", "O"), ("8e", "p")]), "b");
    let m = p.parse_move("8f8d+").unwrap();
    p.do_move(m);
    assert_eq!(
        p.piece_on(sq("8d")),
        Piece::new(PieceType::PromotedKirin, Color::Black)
    );
    p.do_null_move();
    // 24 steps and jumps, igui, 7 double moves through the pawn, the pass.
    assert_eq!(
        moves_from(&p, "8d").len(),
        lion_area("8d").len() + 1 + 7 + 1
    );
    p.undo_null_move();
    p.undo_move();
    assert_eq!(
        p.piece_on(sq("8f")),
        Piece::new(PieceType::Kirin, Color::Black)
    );
}

// ---- promotion -----------------------------------------------------------------------------------

#[test]
fn promotion_chances_on_entering_the_zone_or_capturing_in_it() {
    // Entering the zone (rank e is its edge): both choices.
    let p = setup(&with_kings(&[("8f", "P")]), "b");
    assert_eq!(moves_from(&p, "8f"), set(&["8f8e", "8f8e+"]));
    // Inside the zone without capture: no chance.
    let p = setup(&with_kings(&[("8d", "G")]), "b");
    assert!(moves_from(&p, "8d").iter().all(|m| !m.ends_with('+')));
    // Leaving the zone without capture: no chance; with a capture: a chance.
    let p = setup(&with_kings(&[("8e", "G"), ("7f", "p")]), "b");
    let m = moves_from(&p, "8e");
    assert!(m.contains("8e8f") && !m.contains("8e8f+"));
    let p = setup(&with_kings(&[("8e", "G"), ("8f", "p")]), "b");
    assert_eq!(
        moves_from(&p, "8e")
            .into_iter()
            .filter(|m| m.starts_with("8e8f"))
            .collect::<Vec<_>>(),
        ["8e8f", "8e8f+"]
    );
    // A capture ending in the zone from outside.
    let p = setup(&with_kings(&[("8f", "S"), ("7e", "p")]), "b");
    let m = moves_from(&p, "8f");
    assert!(m.contains("8f7e") && m.contains("8f7e+") && m.contains("8f8e+"));
    assert!(!m.contains("8f7g+"));
    // White's zone is ranks k-o.
    let p = setup(&with_kings(&[("8j", "p")]), "w");
    assert_eq!(moves_from(&p, "8j"), set(&["8j8k", "8j8k+"]));
    // Kings, lions and free kings never promote; promoted pieces never again.
    let p = setup(
        &with_kings(&[("8f", "L!"), ("4f", "Q"), ("12f", "+P")]),
        "b",
    );
    assert!(p.legal_moves().iter().all(|m| !m.is_promotion()));
}

#[test]
fn forced_promotion_on_the_last_ranks_with_a_chance() {
    // A lance sliding in from outside: forced only on the last rank.
    let p = setup(&with_kings(&[("8h", "L")]), "b");
    assert_eq!(
        moves_from(&p, "8h"),
        set(&[
            "8h8g", "8h8f", "8h8e", "8h8e+", "8h8d", "8h8d+", "8h8c", "8h8c+", "8h8b", "8h8b+",
            "8h8a+"
        ])
    );
    // A pawn inside the zone steps to the last rank without a chance: it stays, dead.
    let mut p = setup(&with_kings(&[("8b", "P")]), "b");
    assert_eq!(moves_from(&p, "8b"), set(&["8b8a"]));
    p.do_move(p.parse_move("8b8a").unwrap());
    p.do_null_move();
    assert!(moves_from(&p, "8a").is_empty());
    // The same step capturing has a chance, so it must promote.
    let p = setup(&with_kings(&[("8b", "P"), ("8a", "g")]), "b");
    assert_eq!(moves_from(&p, "8b"), set(&["8b8a+"]));
    // Iron and stone likewise; a knight on the last two ranks.
    let p = setup(
        &with_kings(&[("8b", "I"), ("8a", "g"), ("5b", "U"), ("4a", "g")]),
        "b",
    );
    assert_eq!(moves_from(&p, "8b"), set(&["8b8a+", "8b9a", "8b7a"]));
    assert_eq!(moves_from(&p, "5b"), set(&["5b4a+", "5b6a"]));
    let p = setup(&with_kings(&[("8f", "N"), ("8d", "N"), ("9b", "g")]), "b");
    assert_eq!(
        moves_from(&p, "8f"),
        set(&["8f9d", "8f9d+", "8f7d", "8f7d+"])
    );
    assert_eq!(moves_from(&p, "8d"), set(&["8d9b+", "8d7b"]));
    // The rule flag makes them optional.
    let mut p = setup(
        &with_kings(&[("8b", "P"), ("8a", "g"), ("8d", "N"), ("9b", "g")]),
        "b",
    );
    p.set_rules(Rules {
        forced_promotion: false,
        ..Rules::default()
    });
    assert_eq!(moves_from(&p, "8b"), set(&["8b8a", "8b8a+"]));
    assert_eq!(moves_from(&p, "8d"), set(&["8d9b", "8d9b+", "8d7b"]));
}

fn declined_pawn_rules(rule: DeclinedPawnRule) -> Rules {
    Rules {
        declined_pawn: rule,
        ..Rules::default()
    }
}

fn play(p: &mut Position, text: &str) {
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text}: {e} in {}", p.to_sfen()));
    p.do_move(m);
}

#[test]
fn a_pawn_that_declined_keeps_its_chances_unless_the_rule_is_hachus() {
    use DeclinedPawnRule::*;
    // Black: a pawn about to enter the zone on 8e (8d, 8c, 8b on its way, a gold on 8a), a
    // gold about to enter on 5e, a pawn already on 3e (read from the SFEN, never declined).
    let pieces = with_kings(&[
        ("8f", "P"),
        ("8d", "p"),
        ("8a", "g"),
        ("5f", "G"),
        ("5d", "p"),
        ("3e", "P"),
        ("3d", "p"),
        ("3c", "p"),
    ]);
    for rule in [KeepsChances, LastRankOnly] {
        let hachu = rule == LastRankOnly;
        let mut p = setup(&pieces, "b");
        p.set_rules(declined_pawn_rules(rule));
        let start_key = p.key();
        play(&mut p, "8f8e");
        assert_eq!(
            p.declined_pawn_on(sq("8e")),
            hachu,
            "tracked under HaChu's rule only"
        );
        p.do_null_move();
        play(&mut p, "5f5e");
        p.do_null_move();
        // The pawn that declined: its capture in the zone is a chance by dai.md only.
        let expected: &[&str] = if hachu { &["8e8d"] } else { &["8e8d", "8e8d+"] };
        assert_eq!(moves_from(&p, "8e"), set(expected), "{rule:?}");
        // Other pieces that declined and pawns that never did keep their chances.
        assert!(moves_from(&p, "5e").contains("5e5d+"), "{rule:?}");
        assert_eq!(moves_from(&p, "3e"), set(&["3e3d", "3e3d+"]), "{rule:?}");
        // Declining on a capture counts too.
        play(&mut p, "3e3d");
        assert_eq!(p.declined_pawn_on(sq("3d")), hachu);
        p.do_null_move();
        let expected: &[&str] = if hachu { &["3d3c"] } else { &["3d3c", "3d3c+"] };
        assert_eq!(moves_from(&p, "3d"), set(expected), "{rule:?}");
        // On to the last rank: a capture there is a chance (forced) under both rules.
        for step in ["8e8d", "8d8c", "8c8b"] {
            play(&mut p, step);
            p.do_null_move();
        }
        assert_eq!(moves_from(&p, "8b"), set(&["8b8a+"]), "{rule:?}");
        assert_eq!(p.key(), p.compute_key());
        let mut optional = p.clone();
        optional.set_rules(Rules {
            forced_promotion: false,
            ..p.rules()
        });
        assert_eq!(moves_from(&optional, "8b"), set(&["8b8a", "8b8a+"]));
        play(&mut p, "8b8a+");
        assert!(
            !p.declined_pawn_on(sq("8a")),
            "a promoted pawn is no declined pawn"
        );
        assert_eq!(p.key(), p.compute_key());
        // Taking everything back restores the marks and the key.
        while p.game_ply() > 1 {
            if p.last_move() == Move::NONE {
                p.undo_null_move();
            } else {
                p.undo_move();
            }
            assert_eq!(p.key(), p.compute_key());
        }
        assert_eq!(p.key(), start_key);
        assert!(!p.declined_pawn_on(sq("8f")) && !p.declined_pawn_on(sq("3e")));
        assert_eq!(moves_from(&p, "8f"), set(&["8f8e", "8f8e+"]));
    }
}

#[test]
fn a_declined_pawn_gets_no_in_zone_bonus_under_hachus_rule() {
    use DeclinedPawnRule::*;
    let w = kirin::eval::dai::embedded();
    let pieces = with_kings(&[("8f", "P"), ("8d", "p"), ("5f", "G"), ("5d", "p")]);
    let after = |rule, text| {
        let mut p = setup(&pieces, "b");
        p.set_rules(declined_pawn_rules(rule));
        play(&mut p, text);
        w.evaluate(&p) // White to move
    };
    // Entering the zone without promoting: the pawn keeps its bonus by dai.md's rule only.
    assert_eq!(
        after(LastRankOnly, "8f8e") - after(KeepsChances, "8f8e"),
        w.in_zone
    );
    // A gold that declined keeps its chances, and its bonus, under both rules.
    assert_eq!(after(LastRankOnly, "5f5e"), after(KeepsChances, "5f5e"));
}

#[test]
fn a_white_pawn_that_declined_and_the_capture_of_a_declined_pawn() {
    let mut p = setup(
        &with_kings(&[("12j", "p"), ("12l", "P"), ("11l", "G"), ("9j", "p")]),
        "w",
    );
    p.set_rules(declined_pawn_rules(DeclinedPawnRule::LastRankOnly));
    play(&mut p, "12j12k");
    assert!(p.declined_pawn_on(sq("12k")));
    p.do_null_move();
    assert_eq!(moves_from(&p, "12k"), set(&["12k12l"]));
    // Black's gold takes the declined pawn; taking the capture back restores the mark.
    p.undo_null_move();
    let key = p.key();
    play(&mut p, "11l12k");
    assert!(!p.declined_pawn_on(sq("12k")));
    assert_eq!(p.key(), p.compute_key());
    p.undo_move();
    assert!(p.declined_pawn_on(sq("12k")));
    assert_eq!(p.key(), key);
    // The same board with a pawn that never declined is another position.
    let q = setup(
        &with_kings(&[("12k", "p"), ("12l", "P"), ("11l", "G"), ("9j", "p")]),
        "b",
    );
    assert_eq!(p.to_sfen().split(' ').next(), q.to_sfen().split(' ').next());
    assert_ne!(p.key(), q.key());
}

/// Random games under HaChu's rule, with the declined pawns recomputed from the move lists
/// alone: a pawn declines when the list offered the promotion of the move it played.
#[test]
fn declined_pawns_follow_the_move_lists_on_random_playouts() {
    let (mut declines, mut later_moves) = (0, 0);
    for seed in 1..=12u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut p = Position::startpos();
        p.set_rules(declined_pawn_rules(DeclinedPawnRule::LastRankOnly));
        let mut model: BTreeSet<Square> = BTreeSet::new();
        for _ in 0..600 {
            if p.outcome() != Outcome::Ongoing {
                break;
            }
            let moves = p.legal_moves();
            let texts: BTreeSet<String> = moves.iter().map(|m| m.to_string()).collect();
            for s in (1..=15u8).flat_map(|f| (0..15u8).filter_map(move |r| Square::new(f, r))) {
                assert_eq!(p.declined_pawn_on(s), model.contains(&s), "{s}");
            }
            for m in &moves {
                if m.is_promotion() && model.contains(&m.from().unwrap()) {
                    let to = m.to().unwrap();
                    let last = if p.side_to_move() == Color::Black {
                        0
                    } else {
                        14
                    };
                    assert!(
                        p.is_capture(*m) && to.rank() == last,
                        "{m} in {}",
                        p.to_sfen()
                    );
                }
            }
            // Prefer pawn moves that decline, then captures and promotions.
            let declining: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| {
                    !m.is_promotion()
                        && p.moved_piece(*m).kind() == Some(PieceType::Pawn)
                        && texts.contains(&format!("{m}+"))
                })
                .collect();
            let mut tactical = Vec::new();
            p.captures(&mut tactical);
            let pawn_moves: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| p.moved_piece(*m).kind() == Some(PieceType::Pawn))
                .collect();
            let m = if !declining.is_empty() && rng.below(2) == 0 {
                declining[rng.below(declining.len())]
            } else if !pawn_moves.is_empty() && rng.below(3) == 0 {
                pawn_moves[rng.below(pawn_moves.len())]
            } else if !tactical.is_empty() && rng.below(3) > 0 {
                tactical[rng.below(tactical.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            let (from, to) = (m.from().unwrap(), m.to().unwrap());
            let declined_before = model.contains(&from);
            if let Some(mid) = m.mid() {
                model.remove(&mid);
            }
            if to != from {
                model.remove(&to);
            }
            model.remove(&from);
            if declining.contains(&m) {
                declines += 1;
            }
            if declined_before {
                later_moves += 1;
            }
            if !m.is_promotion() && (declining.contains(&m) || declined_before) && to != from {
                model.insert(to);
            }
            let key = p.key();
            let sfen = p.to_sfen();
            p.do_move(m);
            assert_eq!(p.key(), p.compute_key(), "{m} in {sfen}");
            p.undo_move();
            assert_eq!(p.key(), key);
            p.do_move(m);
        }
    }
    assert!(
        declines >= 20 && later_moves >= 20,
        "only {declines} declines and {later_moves} later moves of those pawns: too few to test"
    );
}

// ---- royals and the end of the game ------------------------------------------------------------

#[test]
fn crown_prince_is_a_second_royal() {
    let mut p = setup(&with_kings(&[("8f", "E"), ("1b", "r")]), "b");
    assert_eq!(p.royals(Color::Black), 1);
    let m = p.parse_move("8f8e+").unwrap();
    p.do_move(m);
    assert_eq!(
        p.piece_on(sq("8e")),
        Piece::new(PieceType::CrownPrince, Color::Black)
    );
    assert_eq!(p.royals(Color::Black), 2);
    assert!(p.to_sfen().contains("+E"));
    // White takes the king: the game goes on, the crown prince reigns.
    let m = p.parse_move("1b1o").unwrap();
    p.do_move(m);
    assert_eq!(p.royals(Color::Black), 1);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    // A go-between promotes to a drunk elephant that is not royal.
    let q = setup(&with_kings(&[("8f", "P'"), ("3f", "+P'")]), "b");
    assert_eq!(q.royals(Color::Black), 1);
    let mut q2 = q.clone();
    q2.do_move(q.parse_move("8f8e+").unwrap());
    assert_eq!(q2.royals(Color::Black), 1);
    assert_eq!(
        q2.piece_on(sq("8e")),
        Piece::new(PieceType::PromotedGoBetween, Color::Black)
    );
    p.undo_move();
    assert_eq!(p.royals(Color::Black), 2);
    p.undo_move();
    assert_eq!(p.royals(Color::Black), 1);
    assert_eq!(
        p.piece_on(sq("8f")),
        Piece::new(PieceType::DrunkElephant, Color::Black)
    );
}

#[test]
fn capturing_all_royals_wins() {
    let mut p = setup(
        &[
            ("1o", "K"),
            ("3o", "+E"),
            ("1a", "k"),
            ("1b", "R"),
            ("3a", "r"),
        ],
        "b",
    );
    assert_eq!(p.royals(Color::Black), 2);
    p.do_move(p.parse_move("1b1a").unwrap());
    assert_eq!(p.royals(Color::White), 0);
    assert_eq!(p.outcome(), Outcome::Won(Color::Black));
    p.undo_move();
    p.do_null_move();
    // White takes the king; the crown prince keeps Black alive until it falls too.
    p.do_move(p.parse_move("3a3o").unwrap());
    assert_eq!(p.royals(Color::Black), 1);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    p.do_null_move();
    p.do_move(p.parse_move("3o2o").unwrap());
    p.do_null_move();
    p.do_move(p.parse_move("2o1o").unwrap());
    assert_eq!(p.royals(Color::Black), 0);
    assert_eq!(p.outcome(), Outcome::Won(Color::White));
}

#[test]
fn a_side_with_no_move_loses() {
    // Black's king is boxed in by its own pawns, which cannot move.
    let p = setup(
        &[
            ("1a", "K"),
            ("2a", "P"),
            ("1b", "P"),
            ("2b", "P"),
            ("15o", "k"),
        ],
        "b",
    );
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), Outcome::Won(Color::White));
    let p = setup(
        &[
            ("1a", "K"),
            ("2a", "P"),
            ("1b", "P"),
            ("2b", "P"),
            ("15o", "k"),
        ],
        "w",
    );
    assert_eq!(p.outcome(), Outcome::Ongoing);
}

#[test]
fn checks_are_reported_but_moving_into_check_is_legal() {
    let p = setup(&[("8o", "K"), ("8a", "r"), ("1a", "k"), ("7n", "S")], "b");
    assert!(p.in_check());
    // The king may stay in check or walk along the rook's file.
    assert!(p.parse_move("8o9o").is_ok() && p.parse_move("8o8n").is_ok());
    let p = setup(
        &[
            ("8o", "K"),
            ("8a", "r"),
            ("8c", "p"),
            ("1a", "k"),
            ("1c", "R"),
        ],
        "b",
    );
    assert!(!p.in_check());
    assert!(p.gives_check(p.parse_move("1c1b").unwrap()));
    assert!(!p.gives_check(p.parse_move("1c2c").unwrap()));
    // Lion power attacks over a blocker, knights jump.
    let p = setup(&[("8o", "K"), ("8m", "+h"), ("8n", "P"), ("1a", "k")], "b");
    assert!(p.in_check());
    let p = setup(&[("8o", "K"), ("9m", "n"), ("1a", "k")], "b");
    assert!(p.in_check());
    let p = setup(&[("8o", "K"), ("9m", "N"), ("1a", "k"), ("9c", "N")], "w");
    assert!(!p.in_check());
}

#[test]
fn repetition_rules() {
    let base = [("8o", "K"), ("8a", "k"), ("1k", "P")];
    let play = |p: &mut Position, text: &str| {
        let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        p.do_move(m);
    };
    // Reference rule: the move back to the start position is illegal.
    let mut p = setup(&base, "b");
    for m in ["8o8n", "8a8b", "8n8o"] {
        play(&mut p, m);
    }
    assert!(p.parse_move("8b8a").is_err());
    assert!(!move_texts(&p).contains("8b8a"));
    // A pawn move in between resets the history.
    let mut p = setup(&base, "b");
    for m in ["8o8n", "8a8b", "1k1j", "8b8c", "8n8m", "8c8b"] {
        play(&mut p, m);
    }
    assert!(p.parse_move("8m8n").is_err());
    assert!(p.parse_move("8m8l").is_ok());
    // Fourfold draw instead.
    let mut p = setup(&base, "b");
    p.set_rules(Rules {
        repetition: RepetitionRule::FourfoldDraw,
        ..Rules::default()
    });
    for round in 0..3 {
        for m in ["8o8n", "8a8b", "8n8o", "8b8a"] {
            assert_eq!(p.outcome(), Outcome::Ongoing, "round {round}");
            play(&mut p, m);
        }
    }
    assert_eq!(p.outcome(), Outcome::Drawn);
    // No rule at all.
    let mut p = setup(&base, "b");
    p.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..Rules::default()
    });
    for _ in 0..4 {
        for m in ["8o8n", "8a8b", "8n8o", "8b8a"] {
            play(&mut p, m);
        }
    }
    assert_eq!(p.outcome(), Outcome::Ongoing);
    // Passing back and forth repeats too.
    let mut p = setup(&[("8o", "K"), ("8a", "k"), ("5h", "L!"), ("5b", "l!")], "b");
    play(&mut p, "pass");
    assert!(p.parse_move("pass").is_err());
}

// ---- text ---------------------------------------------------------------------------------------

#[test]
fn sfen_letters_and_round_trip() {
    let p = Position::startpos();
    assert_eq!(p.to_sfen(), START_SFEN);
    assert_eq!(p.side_to_move(), Color::Black);
    assert_eq!(p.piece_count(Color::Black), 65);
    assert_eq!(p.piece_count(Color::White), 65);
    assert_eq!(
        p.piece_on(sq("8m")),
        Piece::new(PieceType::Lion, Color::Black)
    );
    assert_eq!(
        p.piece_on(sq("8c")),
        Piece::new(PieceType::Lion, Color::White)
    );
    assert_eq!(
        p.piece_on(sq("9m")),
        Piece::new(PieceType::Kirin, Color::Black)
    );
    assert_eq!(
        p.piece_on(sq("9c")),
        Piece::new(PieceType::Phoenix, Color::White)
    );
    assert_eq!(
        p.piece_on(sq("8o")),
        Piece::new(PieceType::King, Color::Black)
    );
    assert_eq!(
        p.piece_on(sq("11j")),
        Piece::new(PieceType::GoBetween, Color::Black)
    );
    assert_eq!(
        p.piece_on(sq("15o")),
        Piece::new(PieceType::Lance, Color::Black)
    );
    assert_eq!(
        p.piece_on(sq("13o")),
        Piece::new(PieceType::Stone, Color::Black)
    );
    assert_eq!(p.royals(Color::Black), 1);
    // Every kind's text reads back to it, both colours.
    for kind in PieceType::ALL {
        for color in Color::ALL {
            let piece = Piece::new(kind, color);
            let text = piece.to_string();
            let q = setup(&with_kings(&[("8h", text.as_str())]), "b");
            assert_eq!(q.piece_on(sq("8h")), piece, "{text}");
        }
    }
    // Two-digit runs, move numbers, the hands field.
    let q = pos("15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k w - 42");
    assert_eq!(q.game_ply(), 42);
    assert_eq!(q.side_to_move(), Color::White);
    assert_eq!(
        q.to_sfen(),
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k w - 42"
    );
    assert_eq!(
        pos("15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b")
            .to_sfen()
            .split(' ')
            .next_back(),
        Some("1")
    );
}

#[test]
fn sfen_errors_are_one_line() {
    let good = "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b - 1";
    for bad in [
        "",
        "15/15 b",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k x - 1",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b P 1",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b - 0",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b - x",
        "16/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b",
        "14/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7K8/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7Z7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7+K7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7+L!7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7+Q7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7G'7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7K'7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/14+/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/07K7/15/15/15/15/15/15/14k b",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k/15 b",
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b - 1 extra",
    ] {
        let e = Position::from_sfen(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad:?} accepted"));
        let text = e.to_string();
        assert!(!text.is_empty() && !text.contains('\n'), "{text}");
    }
    assert!(Position::from_sfen(good).is_ok());
}

#[test]
fn square_and_move_text() {
    for (text, file, rank) in [("8h", 8, 7), ("10n", 10, 13), ("15o", 15, 14), ("1a", 1, 0)] {
        let s = sq(text);
        assert_eq!((s.file(), s.rank()), (file, rank));
        assert_eq!(s.to_string(), text);
    }
    for bad in ["0a", "16a", "8p", "8", "h8", "08h", "", "8h8"] {
        assert!(bad.parse::<Square>().is_err(), "{bad}");
    }
    assert_eq!(
        Move::normal(sq("8m"), sq("10n"), true).to_string(),
        "8m10n+"
    );
    assert_eq!(
        Move::with_mid(sq("8h"), sq("8g"), sq("9f")).to_string(),
        "8h8g9f"
    );
    assert_eq!(Move::NONE.to_string(), "none");
    let p = Position::startpos();
    for bad in [
        "",
        "8m",
        "8m10n10n10n",
        "8m10n++",
        "8x10n",
        "resign",
        "8m8m",
        "8m10n+8m",
        "pass",
    ] {
        let e = p
            .parse_move(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad:?} accepted"));
        assert!(!e.contains('\n'));
    }
    assert_eq!(
        p.parse_move(" 8m10n ").map(|m| m.to_string()),
        Ok("8m10n".to_string())
    );
}

#[test]
fn piece_values_follow_the_documented_scale() {
    assert_eq!(dai::value(PieceType::Pawn), 100);
    assert!((1800..=2000).contains(&dai::value(PieceType::Lion)));
    assert_eq!(
        dai::value(PieceType::Lion),
        dai::value(PieceType::PromotedKirin)
    );
    assert!((1100..=1400).contains(&dai::value(PieceType::FreeKing)));
    for kind in PieceType::ALL {
        assert!(dai::value(kind) >= 100, "{kind:?}");
        if let Some(up) = kind.promote() {
            assert!(dai::value(up) >= dai::value(kind), "{kind:?}");
            assert_eq!(up.unpromote(), kind);
        }
    }
}

#[test]
fn kinds_are_numbered_in_the_order_of_the_list() {
    for (i, &kind) in PieceType::ALL.iter().enumerate() {
        assert_eq!(kind as usize, i + 1, "{kind:?}");
        assert_eq!(PieceType::from_u8(i as u8 + 1), Some(kind));
    }
    assert_eq!(PieceType::ALL[28], PieceType::Lion);
    assert_eq!(PieceType::ALL[54], PieceType::PromotedPhoenix);
    assert_eq!(PieceType::from_u8(0), None);
    assert_eq!(PieceType::from_u8(56), None);
    assert_eq!(
        PieceType::Gold.promote().map(PieceType::unpromote),
        Some(PieceType::Gold)
    );
    assert_eq!(PieceType::PromotedGold.unpromote(), PieceType::Gold);
}

// ---- invariants on random playouts ------------------------------------------------------------

/// Everything a position must satisfy, checked against independent computations.
fn check_invariants(p: &mut Position, rng: &mut Rng) {
    assert_eq!(p.key(), p.compute_key(), "{}", p.to_sfen());
    let sfen = p.to_sfen();
    let q = pos(&sfen);
    assert_eq!(q.to_sfen(), sfen);
    assert_eq!(q.key(), p.key());
    for c in Color::ALL {
        let royals = p
            .pieces(c)
            .filter(|&s| p.piece_on(s).kind().is_some_and(|k| k.is_royal()))
            .count();
        assert_eq!(p.royals(c) as usize, royals);
    }
    let moves = p.legal_moves();
    let all: BTreeSet<Move> = moves.iter().copied().collect();
    assert_eq!(all.len(), moves.len(), "duplicate moves in {sfen}");
    let (mut tactical, mut quiet) = (Vec::new(), Vec::new());
    p.generate(GenType::Tactical, &mut tactical);
    p.quiets(&mut quiet);
    let t: BTreeSet<Move> = tactical.iter().copied().collect();
    let q: BTreeSet<Move> = quiet.iter().copied().collect();
    assert!(t.is_disjoint(&q));
    assert_eq!(t.len() + q.len(), all.len());
    assert_eq!(t.union(&q).copied().collect::<BTreeSet<_>>(), all);
    for &m in &moves {
        let captures = m.mid().is_some_and(|s| !p.piece_on(s).is_none())
            || m.to()
                .is_some_and(|s| !p.piece_on(s).is_none() && m.to() != m.from());
        assert_eq!(captures || m.is_promotion(), t.contains(&m), "{m} tactical");
        assert_eq!(p.is_capture(m), captures);
        assert_eq!(p.captured_value(m) > 0, captures);
        assert_eq!(p.moved_piece(m).color(), p.side_to_move());
    }
    for &m in &moves {
        assert!(p.is_legal_move(m), "{m} in {sfen}");
        assert_eq!(p.parse_move(&m.to_string()), Ok(m), "{sfen}");
        let key = p.key();
        let check = p.gives_check(m);
        p.do_move(m);
        assert_eq!(p.key(), p.compute_key(), "{m} in {sfen}");
        assert_eq!(p.last_move(), m);
        assert_eq!(p.in_check(), check, "gives_check {m} in {sfen}");
        p.undo_move();
        assert_eq!(p.key(), key);
    }
    assert_eq!(p.to_sfen(), sfen);
    // in_check against the opponent's move list: some move of theirs lands on a royal.
    let mut r = p.clone();
    r.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..Rules::default()
    });
    r.do_null_move();
    let royal_hit = r.legal_moves().iter().any(|m| {
        let hits = |s: Option<Square>| {
            s.is_some_and(|s| {
                let piece = r.piece_on(s);
                piece.color() == p.side_to_move() && piece.kind().is_some_and(|k| k.is_royal())
            })
        };
        hits(m.to()) || hits(m.mid())
    });
    assert_eq!(p.in_check(), royal_hit, "in_check in {sfen}");
    r.undo_null_move();
    assert_eq!(r.to_sfen(), sfen);
    // Random values and near misses of real moves.
    for i in 0..200 {
        let raw = if i % 2 == 0 || moves.is_empty() {
            rng.next() as u32 & if i % 4 == 0 { u32::MAX } else { 0x01ff_ffff }
        } else {
            moves[rng.below(moves.len())].raw() ^ (1 << rng.below(25))
        };
        let m = Move::from_raw(raw);
        assert_eq!(
            p.is_legal_move(m),
            all.contains(&m),
            "{raw:#x} = {m} in {sfen}"
        );
    }
}

fn playout(seed: u64, plies: usize, check_every: usize) {
    let mut rng = Rng(seed);
    let mut p = Position::startpos();
    let mut history = vec![p.to_sfen()];
    for ply in 0..plies {
        if ply % check_every == 0 {
            check_invariants(&mut p, &mut rng);
        }
        if p.outcome() != Outcome::Ongoing {
            break;
        }
        let moves = p.legal_moves();
        // Prefer captures and promotions so that pieces meet and promote.
        let mut tactical = Vec::new();
        p.captures(&mut tactical);
        let m = if !tactical.is_empty() && rng.below(3) > 0 {
            tactical[rng.below(tactical.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        p.do_move(m);
        history.push(p.to_sfen());
    }
    // Unwinding restores every position on the way.
    while history.len() > 1 {
        history.pop();
        p.undo_move();
        assert_eq!(p.to_sfen(), *history.last().unwrap());
    }
}

#[test]
fn invariants_hold_on_random_playouts() {
    for seed in 1..=6u64 {
        playout(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), 400, 7);
    }
}

#[test]
fn null_moves_flip_only_the_side() {
    let mut p = Position::startpos();
    let key = p.key();
    p.do_null_move();
    assert_eq!(p.side_to_move(), Color::White);
    assert_eq!(p.key(), p.compute_key());
    assert_ne!(p.key(), key);
    assert_eq!(p.last_move(), Move::NONE);
    assert_eq!(p.game_ply(), 2);
    p.undo_null_move();
    assert_eq!(p.key(), key);
    assert_eq!(p.to_sfen(), START_SFEN);
}

// ---- fuzzing ------------------------------------------------------------------------------------

#[test]
fn fuzzed_sfen_and_move_text_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let alphabet: Vec<char> = "é0123456789/+'! -bwlnuicsgkafteoxwrmvbhdqpLNUICSGKAFTEOXWRMVBHDQP"
        .chars()
        .collect();
    let seeds = [
        START_SFEN.to_string(),
        "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/14k b - 1".to_string(),
    ];
    for i in 0..20_000 {
        let mut text: Vec<char> = seeds[i % 2].chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() + 1);
            match rng.below(3) {
                0 => text.insert(at, alphabet[rng.below(alphabet.len())]),
                1 if at < text.len() => {
                    text.remove(at);
                }
                _ if at < text.len() => text[at] = alphabet[rng.below(alphabet.len())],
                _ => {}
            }
        }
        let text: String = text.into_iter().collect();
        match Position::from_sfen(&text) {
            Ok(p) => {
                let again = pos(&p.to_sfen());
                assert_eq!(again.to_sfen(), p.to_sfen());
                let _ = p.legal_moves();
                let _ = p.outcome();
                let _ = p.in_check();
            }
            Err(e) => assert!(!e.to_string().contains('\n')),
        }
    }
    let p = Position::startpos();
    let chars: Vec<char> = "0123456789abcdefghijklmnopqrstuvwxyz+ ".chars().collect();
    for _ in 0..20_000 {
        let len = rng.below(12);
        let text: String = (0..len).map(|_| chars[rng.below(chars.len())]).collect();
        if let Err(e) = p.parse_move(&text) {
            assert!(!e.contains('\n'));
        }
    }
}

/// Perft speed from the start position (prints; no threshold). Run in a release build:
/// `cargo test --release --test dai perft_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn perft_speed() {
    let mut p = Position::startpos();
    for &(depth, count) in TABLE {
        let t = std::time::Instant::now();
        let n = perft(&mut p, depth);
        let s = t.elapsed().as_secs_f64();
        assert_eq!(n, count);
        eprintln!(
            "dai perft {depth}: {n} leaves in {s:.3} s, {:.1} M leaves/s",
            n as f64 / s / 1e6
        );
    }
    // Without bulk counting: every leaf made and unmade, as a search would.
    fn full(p: &mut Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for m in p.legal_moves() {
            p.do_move(m);
            n += full(p, depth - 1);
            p.undo_move();
        }
        n
    }
    p.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..Rules::default()
    });
    let t = std::time::Instant::now();
    let n = full(&mut p, 4);
    let s = t.elapsed().as_secs_f64();
    assert_eq!(n, TABLE[3].1);
    eprintln!(
        "dai perft 4 with make/unmake at the leaves: {s:.3} s, {:.1} M nodes/s",
        n as f64 / s / 1e6
    );
}

// ---- an independent reference generator ---------------------------------------------------------
//
// Reads each piece's moves from the Betza text of the rules document, and moves lions by
// walking every path of one or two king steps (plus jumps), so that counting "by effect" falls
// out of collecting the distinct resulting boards rather than being designed in.

type Board = Vec<Piece>;

/// Betza text per kind, from the table in the rules document (Black's frame), and the lion
/// directions as (file, rank) steps.
fn betza(kind: PieceType) -> (&'static str, &'static [(i32, i32)]) {
    use PieceType::*;
    const ALL8: &[(i32, i32)] = &[
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    match kind {
        King | CrownPrince => ("K", &[]),
        DrunkElephant | PromotedGoBetween => ("FfsW", &[]),
        BlindTiger => ("FbsW", &[]),
        FerociousLeopard => ("FvW", &[]),
        Gold => ("WfF", &[]),
        Silver => ("FfW", &[]),
        Copper => ("vWfF", &[]),
        Iron => ("fWfF", &[]),
        Stone => ("fF", &[]),
        Knight => ("ffN", &[]),
        EvilWolf => ("fsWfF", &[]),
        AngryBoar => ("W", &[]),
        CatSword => ("F", &[]),
        ViolentOx => ("W2", &[]),
        FlyingDragon => ("F2", &[]),
        GoBetween => ("vW", &[]),
        Pawn => ("fW", &[]),
        Lance => ("fR", &[]),
        ReverseChariot => ("vR", &[]),
        SideMover => ("sRvW", &[]),
        VerticalMover => ("vRsW", &[]),
        Bishop => ("B", &[]),
        Rook => ("R", &[]),
        DragonHorse => ("BW", &[]),
        DragonKing => ("RF", &[]),
        Kirin => ("FD", &[]),
        Phoenix => ("WA", &[]),
        FreeKing => ("Q", &[]),
        Lion => ("", ALL8),
        FlyingStag => ("vRK", &[]),
        WhiteHorse => ("vRfB", &[]),
        Whale => ("vRbB", &[]),
        FreeBoar => ("sRB", &[]),
        FlyingOx => ("vRB", &[]),
        HornedFalcon => ("BsbR", &[(0, -1)]),
        SoaringEagle => ("RbB", &[(1, -1), (-1, -1)]),
        // Promotions into an existing move set.
        PromotedFerociousLeopard => betza(Bishop),
        PromotedGold => betza(Rook),
        PromotedSilver => betza(VerticalMover),
        PromotedCopper => betza(SideMover),
        PromotedIron | PromotedStone | PromotedKnight | PromotedEvilWolf | PromotedAngryBoar
        | PromotedCatSword | PromotedViolentOx | PromotedFlyingDragon | PromotedPawn => betza(Gold),
        PromotedBishop => betza(DragonHorse),
        PromotedRook => betza(DragonKing),
        PromotedKirin => betza(Lion),
        PromotedPhoenix => betza(FreeKing),
    }
}

/// (file step, rank step, range) legs of a Betza text in Black's frame, where forward is rank
/// minus one; a jump is a leg of range 1 to a non-adjacent square.
fn legs(text: &str) -> Vec<(i32, i32, i32)> {
    let mut out = Vec::new();
    let mut mods = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_lowercase() {
            mods.push(c);
            i += 1;
            continue;
        }
        let mut range = 1;
        if let Some(d) = chars.get(i + 1).and_then(|d| d.to_digit(10)) {
            range = d as i32;
            i += 1;
        }
        let (atoms, slide): (&[&str], bool) = match c {
            'W' => (&["W"], false),
            'F' => (&["F"], false),
            'R' => (&["W"], true),
            'B' => (&["F"], true),
            'K' => (&["W", "F"], false),
            'Q' => (&["W", "F"], true),
            'D' => (&["D"], false),
            'A' => (&["A"], false),
            'N' => (&["N"], false),
            _ => panic!("atom {c}"),
        };
        if slide {
            range = 14;
        }
        for atom in atoms {
            let vectors: Vec<(i32, i32)> = match *atom {
                "W" => vec![(0, -1), (0, 1), (1, 0), (-1, 0)],
                "F" => vec![(1, -1), (-1, -1), (1, 1), (-1, 1)],
                "D" => vec![(0, -2), (0, 2), (2, 0), (-2, 0)],
                "A" => vec![(2, -2), (-2, -2), (2, 2), (-2, 2)],
                _ => vec![
                    (1, -2),
                    (-1, -2),
                    (1, 2),
                    (-1, 2),
                    (2, -1),
                    (-2, -1),
                    (2, 1),
                    (-2, 1),
                ],
            };
            for (df, dr) in vectors {
                let keep = if mods.is_empty() {
                    true
                } else if mods == "ff" {
                    dr == -2
                } else {
                    mods.chars().any(|m| match m {
                        'f' => dr < 0,
                        'b' => dr > 0,
                        's' => dr == 0,
                        'v' => df == 0,
                        _ => panic!("modifier {m}"),
                    })
                };
                if keep {
                    out.push((df, dr, range));
                }
            }
        }
        mods.clear();
        i += 1;
    }
    out
}

fn reference_results(p: &Position) -> std::collections::HashSet<Board> {
    let us = p.side_to_move();
    let fwd = if us == Color::Black { 1 } else { -1 };
    let board: Board = Square::all().map(|s| p.piece_on(s)).collect();
    let at = |f: i32, r: i32| -> Option<usize> {
        ((1..=15).contains(&f) && (0..15).contains(&r)).then(|| (r * 15 + f - 1) as usize)
    };
    let own = |b: &Board, i: usize| !b[i].is_none() && b[i].color() == us;
    let rel_rank = |r: i32| if us == Color::Black { r } else { 14 - r };
    let mut out = std::collections::HashSet::new();
    for from in Square::all() {
        let piece = board[from.index()];
        let Some(kind) = piece.kind() else { continue };
        if piece.color() != us {
            continue;
        }
        let (f0, r0) = (from.file() as i32, from.rank() as i32);
        let (text, lion) = betza(kind);
        let mut targets = Vec::new();
        for (df, dr, range) in legs(text) {
            let (df, dr) = (df * fwd, dr * fwd);
            for n in 1..=range {
                let Some(t) = at(f0 + df * n, r0 + dr * n) else {
                    break;
                };
                if own(&board, t) {
                    break;
                }
                targets.push(t);
                if !board[t].is_none() {
                    break;
                }
            }
        }
        for t in targets {
            let capture = !board[t].is_none();
            let mut b = board.clone();
            b[from.index()] = Piece::NONE;
            b[t] = piece;
            let (rf, rt) = (rel_rank(r0), rel_rank(t as i32 / 15));
            let chance = kind.promote().is_some()
                && if capture {
                    rf <= 4 || rt <= 4
                } else {
                    rf > 4 && rt <= 4
                };
            let forced = chance
                && match kind {
                    PieceType::Pawn | PieceType::Lance | PieceType::Iron | PieceType::Stone => {
                        rt == 0
                    }
                    PieceType::Knight => rt <= 1,
                    _ => false,
                };
            if chance {
                let mut up = b.clone();
                up[t] = Piece::new(kind.promote().unwrap(), us);
                out.insert(up);
            }
            if !forced {
                out.insert(b);
            }
        }
        // Lion powers: one or two king steps along the lion directions (any direction for the
        // second step of a full lion, straight on otherwise), a jump to distance two, and back.
        let full = lion.len() == 8;
        for &(df, dr) in lion {
            let (df, dr) = (df * fwd, dr * fwd);
            let Some(s1) = at(f0 + df, r0 + dr) else {
                continue;
            };
            // A horned falcon or soaring eagle goes straight on or back (igui, pass).
            let seconds: Vec<(i32, i32)> = if full {
                lion.to_vec()
            } else {
                vec![(df * fwd, dr * fwd), (-df * fwd, -dr * fwd)]
            };
            if !own(&board, s1) {
                let mut b = board.clone();
                b[from.index()] = Piece::NONE;
                b[s1] = piece;
                out.insert(b);
                for (ef, er) in seconds.iter().map(|&(a, b)| (a * fwd, b * fwd)) {
                    let Some(s2) = at(f0 + df + ef, r0 + dr + er) else {
                        continue;
                    };
                    let mut b = board.clone();
                    b[from.index()] = Piece::NONE;
                    b[s1] = Piece::NONE;
                    // Back to the start (igui, pass) or on to a square not our own.
                    if s2 == from.index() || !own(&board, s2) {
                        b[s2] = piece;
                        out.insert(b);
                    }
                }
            }
            // The jump over the first square.
            if let Some(s2) = at(f0 + 2 * df, r0 + 2 * dr)
                && !own(&board, s2)
            {
                let mut b = board.clone();
                b[from.index()] = Piece::NONE;
                b[s2] = piece;
                out.insert(b);
            }
        }
        if full {
            for (df, dr) in [
                (1, 2),
                (-1, 2),
                (1, -2),
                (-1, -2),
                (2, 1),
                (-2, 1),
                (2, -1),
                (-2, -1),
            ] {
                if let Some(t) = at(f0 + df, r0 + dr)
                    && !own(&board, t)
                {
                    let mut b = board.clone();
                    b[from.index()] = Piece::NONE;
                    b[t] = piece;
                    out.insert(b);
                }
            }
        }
    }
    out
}

fn compare_with_reference(p: &mut Position) {
    p.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..Rules::default()
    });
    let sfen = p.to_sfen();
    let want = reference_results(p);
    let mut got = std::collections::HashMap::new();
    let moves = p.legal_moves();
    for &m in &moves {
        p.do_move(m);
        let b: Board = Square::all().map(|s| p.piece_on(s)).collect();
        p.undo_move();
        if let Some(other) = got.insert(b, m) {
            panic!("{other} and {m} have one effect in {sfen}");
        }
    }
    let got: std::collections::HashSet<Board> = got.into_keys().collect();
    if got != want {
        let show = |b: &Board| {
            Square::all()
                .filter(|s| b[s.index()] != p.piece_on(*s))
                .map(|s| format!("{s}={}", b[s.index()]))
                .collect::<Vec<_>>()
                .join(",")
        };
        let missing: Vec<String> = want.difference(&got).map(show).collect();
        let extra: Vec<String> = got.difference(&want).map(show).collect();
        panic!("{sfen}\nmissing {missing:?}\nextra {extra:?}");
    }
}

/// A random position: kings plus a random number of random pieces of both colours.
fn random_position(rng: &mut Rng) -> Position {
    let mut cells: Vec<Option<Piece>> = vec![None; 225];
    let n = 10 + rng.below(120);
    for _ in 0..n {
        let kind = PieceType::ALL[rng.below(55)];
        let color = Color::ALL[rng.below(2)];
        cells[rng.below(225)] = Some(Piece::new(kind, color));
    }
    let mut ranks = Vec::new();
    for r in 0..15 {
        let mut s = String::new();
        let mut run = 0;
        for f in (1..=15).rev() {
            match cells[r * 15 + f - 1] {
                None => run += 1,
                Some(p) => {
                    if run > 0 {
                        s += &run.to_string();
                        run = 0;
                    }
                    s += &p.to_string();
                }
            }
        }
        if run > 0 {
            s += &run.to_string();
        }
        ranks.push(s);
    }
    let side = if rng.below(2) == 0 { "b" } else { "w" };
    pos(&format!("{} {side} - 1", ranks.join("/")))
}

#[test]
fn moves_match_a_reference_generator_read_from_the_rules_table() {
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    for _ in 0..1500 {
        let mut p = random_position(&mut rng);
        compare_with_reference(&mut p);
    }
    // And positions from play.
    let mut p = Position::startpos();
    for _ in 0..300 {
        compare_with_reference(&mut p);
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mut tactical = Vec::new();
        p.captures(&mut tactical);
        let m = if !tactical.is_empty() && rng.below(3) > 0 {
            tactical[rng.below(tactical.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        p.do_move(m);
    }
}
