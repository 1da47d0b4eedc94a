//! Dai shogi rules (`kirin::dai`): perft against the `dai` rows of `shared/data/perft.tsv`
//! (copied here as a table), hand-made positions for the lion, the horned falcon and soaring
//! eagle, promotion, royals and the end of the game, and the position's own invariants on
//! random playouts.

use kirin::dai::{
    self, GenType, Move, Outcome, Piece, PieceType, Position, RepetitionRule, Rules, START_SFEN,
    Square, divide, perft,
};
use kirin::shogi::Color;

/// The `dai` rows of `perft.tsv`: depth and leaf count from the start position.
const TABLE: &[(u32, u64)] = &[(1, 71), (2, 5_041), (3, 357_978), (4, 25_421_252)];

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"))
}

fn sq(text: &str) -> Square {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn perft_table_matches_the_shared_file() {
    let text =
        std::fs::read_to_string("../shared/data/perft.tsv").expect("../shared/data/perft.tsv");
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
