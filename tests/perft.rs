//! Perft against the reference counts of `tests/data/perft.tsv` (the `standard` rows), copied
//! here as a table so the test needs nothing outside the repository.
//!
//! Every row is its own test. Rows that take more than a few seconds in the `fast` profile are
//! `#[ignore]`d; run them with `cargo test --profile fast --test perft -- --ignored`.

use kirin::shogi::perft::{divide, perft};
use kirin::shogi::{Position, legal_moves};
use std::collections::HashSet;

const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
const MATSURI: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
const MAX_LEGAL_MOVES: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";
const BENCH_OPENING: &str =
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9";
const PAWN_DROP_MATE_1: &str = "R7g/2K1S1SSk/9/5B3/9/9/9/9/1L1L1L3 b RBGSNLP2g3n17p 3";
const PAWN_DROP_MATE_2: &str = "7lk/9/8S/9/9/9/9/7L1/8K b P 1";
const PAWN_DROP_MATE_3: &str = "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1";

/// The `standard` rows of `perft.tsv`: name, SFEN, depth, leaf count.
const TABLE: &[(&str, &str, u32, u64)] = &[
    ("startpos", STARTPOS, 1, 30),
    ("startpos", STARTPOS, 2, 900),
    ("startpos", STARTPOS, 3, 25_470),
    ("startpos", STARTPOS, 4, 719_731),
    ("startpos", STARTPOS, 5, 19_861_490),
    ("startpos", STARTPOS, 6, 547_581_517),
    ("startpos", STARTPOS, 7, 15_086_269_607),
    ("matsuri", MATSURI, 1, 207),
    ("matsuri", MATSURI, 2, 28_684),
    ("matsuri", MATSURI, 3, 4_809_015),
    ("matsuri", MATSURI, 4, 516_925_165),
    ("max_legal_moves", MAX_LEGAL_MOVES, 1, 593),
    ("max_legal_moves", MAX_LEGAL_MOVES, 2, 105_677),
    ("max_legal_moves", MAX_LEGAL_MOVES, 3, 53_393_368),
    ("bench_opening", BENCH_OPENING, 1, 31),
    ("bench_opening", BENCH_OPENING, 2, 1_177),
    ("bench_opening", BENCH_OPENING, 3, 37_189),
    ("bench_opening", BENCH_OPENING, 4, 1_307_221),
    ("pawn_drop_mate_1", PAWN_DROP_MATE_1, 1, 574),
    ("pawn_drop_mate_1", PAWN_DROP_MATE_1, 2, 101_568),
    ("pawn_drop_mate_2", PAWN_DROP_MATE_2, 1, 85),
    ("pawn_drop_mate_2", PAWN_DROP_MATE_2, 2, 639),
    ("pawn_drop_mate_2", PAWN_DROP_MATE_2, 3, 10_786),
    ("pawn_drop_mate_2", PAWN_DROP_MATE_2, 4, 167_089),
    ("pawn_drop_mate_3", PAWN_DROP_MATE_3, 1, 160),
    ("pawn_drop_mate_3", PAWN_DROP_MATE_3, 2, 12_632),
    ("pawn_drop_mate_3", PAWN_DROP_MATE_3, 3, 1_345_633),
    ("pawn_drop_mate_3", PAWN_DROP_MATE_3, 4, 58_643_077),
];

fn position(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("reference SFEN {sfen:?} rejected: {e}"))
}

/// Runs the table row `name` at `depth` and checks its count; also checks that perft leaves the
/// position as it found it.
fn check_row(name: &str, depth: u32) {
    let &(_, sfen, _, expected) = TABLE
        .iter()
        .find(|r| r.0 == name && r.2 == depth)
        .unwrap_or_else(|| panic!("no table row {name} depth {depth}"));
    let mut pos = position(sfen);
    let key = pos.key();
    let nodes = perft(&mut pos, depth);
    assert_eq!(nodes, expected, "perft({name}, {depth}) from {sfen}");
    assert_eq!(pos.to_sfen(), sfen, "perft must restore the position");
    assert_eq!(pos.key(), key, "perft must restore the key");
}

macro_rules! perft_tests {
    ($($(#[$attr:meta])* $test:ident: $name:literal, $depth:literal;)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $test() {
                check_row($name, $depth);
            }
        )*

        /// Every table row has a test above, and no test names a row the table lacks.
        #[test]
        fn every_table_row_has_a_test() {
            let tested: Vec<(&str, u32)> = vec![$(($name, $depth)),*];
            for &(name, _, depth, _) in TABLE {
                assert!(tested.contains(&(name, depth)), "row {name} depth {depth} has no test");
            }
            assert_eq!(tested.len(), TABLE.len());
        }
    };
}

perft_tests! {
    startpos_1: "startpos", 1;
    startpos_2: "startpos", 2;
    startpos_3: "startpos", 3;
    startpos_4: "startpos", 4;
    startpos_5: "startpos", 5;
    #[ignore = "slow: run with --ignored"]
    startpos_6: "startpos", 6;
    #[ignore = "slow: run with --ignored"]
    startpos_7: "startpos", 7;
    matsuri_1: "matsuri", 1;
    matsuri_2: "matsuri", 2;
    matsuri_3: "matsuri", 3;
    matsuri_4: "matsuri", 4;
    max_legal_moves_1: "max_legal_moves", 1;
    max_legal_moves_2: "max_legal_moves", 2;
    max_legal_moves_3: "max_legal_moves", 3;
    bench_opening_1: "bench_opening", 1;
    bench_opening_2: "bench_opening", 2;
    bench_opening_3: "bench_opening", 3;
    bench_opening_4: "bench_opening", 4;
    pawn_drop_mate_1_1: "pawn_drop_mate_1", 1;
    pawn_drop_mate_1_2: "pawn_drop_mate_1", 2;
    pawn_drop_mate_2_1: "pawn_drop_mate_2", 1;
    pawn_drop_mate_2_2: "pawn_drop_mate_2", 2;
    pawn_drop_mate_2_3: "pawn_drop_mate_2", 3;
    pawn_drop_mate_2_4: "pawn_drop_mate_2", 4;
    pawn_drop_mate_3_1: "pawn_drop_mate_3", 1;
    pawn_drop_mate_3_2: "pawn_drop_mate_3", 2;
    pawn_drop_mate_3_3: "pawn_drop_mate_3", 3;
    pawn_drop_mate_3_4: "pawn_drop_mate_3", 4;
}

/// `divide` lists each legal root move once, each entry is the perft of the child, and the
/// entries sum to `perft` and to the reference count. Done for every row of at most ~1.5M leaves.
#[test]
fn divide_sums_to_perft() {
    let mut rows = 0;
    for &(name, sfen, depth, expected) in TABLE.iter().filter(|r| r.3 <= 1_500_000) {
        let mut pos = position(sfen);
        let parts = divide(&mut pos, depth);
        let legal: HashSet<_> = legal_moves(&pos).into_iter().collect();
        let listed: HashSet<_> = parts.iter().map(|&(m, _)| m).collect();
        assert_eq!(
            listed.len(),
            parts.len(),
            "{name} depth {depth}: divide lists a move twice"
        );
        assert_eq!(
            listed, legal,
            "{name} depth {depth}: divide's moves differ from legal_moves"
        );
        let sum: u64 = parts.iter().map(|&(_, n)| n).sum();
        assert_eq!(sum, expected, "{name} depth {depth}: divide sum");
        assert_eq!(sum, perft(&mut pos, depth), "{name} depth {depth}: perft");
        if depth >= 2 {
            // Spot-check the entries themselves against a separate perft of each child.
            for &(m, n) in parts.iter().step_by(7) {
                pos.do_move(m);
                assert_eq!(perft(&mut pos, depth - 1), n, "{name} depth {depth}: {m}");
                pos.undo_move();
            }
        }
        assert_eq!(pos.to_sfen(), sfen);
        rows += 1;
    }
    assert!(rows >= 15, "only {rows} rows checked");
    let mut pos = position(STARTPOS);
    assert!(divide(&mut pos, 0).is_empty());
    assert_eq!(perft(&mut pos, 0), 1);
}
