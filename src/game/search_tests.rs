//! Tests of the search's parts that need a real game to search or to replay lines in. The search
//! names no game (it is generic over [`super::Game`]), so they live here, with the games.

use crate::eval::Evaluator;
use crate::search::history::{CORRECTION_LIMIT, Histories};
use crate::search::report::{extend_from_tt, legal_prefix};
use crate::search::tt::{Bound, TranspositionTable, TtEntry};
use crate::search::{Limits, SearchOptions, Searcher};
use crate::shogi::{Color, Move, Position};

#[test]
fn corrections_follow_the_error_stay_bounded_and_keep_to_their_keys() {
    let mut h = Histories::<Position>::new();
    let (here, elsewhere) = ([7, 9], [8, 10]);
    assert_eq!(h.correction(Color::Black, here), 0);
    for _ in 0..200 {
        h.update_correction(Color::Black, here, 300, 10);
    }
    let c = h.correction(Color::Black, here);
    // Two tables, each at most CORRECTION_LIMIT / 8, approaching it from below.
    assert!(c > 0 && c <= 2 * CORRECTION_LIMIT / 8, "{c}");
    assert_eq!(h.correction(Color::White, here), 0);
    assert_eq!(h.correction(Color::Black, elsewhere), 0);
    // Sharing one key shares that table's half only.
    assert_eq!(h.correction(Color::Black, [7, 10]), c / 2);
    for _ in 0..400 {
        h.update_correction(Color::Black, here, -300, 10);
    }
    assert!(h.correction(Color::Black, here) < 0);
}

#[test]
fn variations_are_extended_from_the_table_while_legal() {
    let tt = TranspositionTable::new(1);
    let pos = Position::startpos();
    let m = |p: &Position, s: &str| p.parse_move(s).unwrap();
    let mut after = pos.clone();
    let first = m(&after, "7g7f");
    after.do_move(first);
    let store = |p: &Position, mv: Move| {
        tt.store(
            p.key(),
            TtEntry {
                mv,
                value: 0,
                eval: 0,
                depth: 5,
                bound: Bound::Exact,
            },
        )
    };
    let reply = m(&after, "3c3d");
    store(&after, reply);
    let mut then = after.clone();
    then.do_move(reply);
    let third = m(&then, "2g2f");
    store(&then, third);
    then.do_move(third);
    // An entry whose move is not legal where it is found ends the line.
    store(&then, m(&Position::startpos(), "7g7f"));
    assert_eq!(
        extend_from_tt(&pos, &[first], &tt),
        vec![first, reply, third]
    );
    // A line that does not fit the position is cut where it stops fitting.
    assert_eq!(extend_from_tt(&pos, &[first, first], &tt), vec![first]);
    assert_eq!(
        legal_prefix(&pos, &[first, reply, reply, third]),
        vec![first, reply]
    );
}

#[test]
fn statistics_outlive_a_search_but_not_the_game() {
    let mut s = Searcher::new(8);
    let evaluator = Evaluator::default();
    let pos = Position::startpos();
    let limits = Limits {
        depth: Some(5),
        ..Limits::default()
    };
    let two = SearchOptions {
        threads: 2,
        ..SearchOptions::default()
    };
    assert!(s.kept_histories::<Position>().is_none());
    s.think(&pos, &evaluator, &limits, &two, &mut |_| {});
    let first = s.kept_histories::<Position>().expect("kept after a search");
    assert_eq!(first.len(), 2);
    // The next search of the same game goes on with the very same tables.
    s.think(&pos, &evaluator, &limits, &two, &mut |_| {});
    assert_eq!(s.kept_histories::<Position>(), Some(first.clone()));
    // Fewer threads keep the first tables only.
    let one = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    s.think(&pos, &evaluator, &limits, &one, &mut |_| {});
    assert_eq!(s.kept_histories::<Position>(), Some(first[..1].to_vec()));
    // A new game starts from nothing.
    s.new_game();
    assert!(s.kept_histories::<Position>().is_none());
    s.think(&pos, &evaluator, &limits, &two, &mut |_| {});
    assert!(s.kept_histories::<Position>().is_some());
    // Another game's search does not take shogi's tables, and replaces them.
    let yari = crate::yari::Position::startpos();
    let weights = crate::eval::yari::YariWeights::embedded();
    let yari_limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    s.think(&yari, &weights, &yari_limits, &two, &mut |_| {});
    assert!(s.kept_histories::<Position>().is_none());
    assert_eq!(
        s.kept_histories::<crate::yari::Position>().map(|k| k.len()),
        Some(2)
    );
}

#[test]
fn a_soft_node_limit_ends_the_search_after_the_iteration_that_passes_it() {
    let evaluator = Evaluator::default();
    let pos = Position::startpos();
    let one = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    // The nodes and depth of the last line reported.
    let search = |limits: &Limits<Move>| {
        let mut s = Searcher::new(8);
        let (mut nodes, mut depth) = (0, 0);
        s.think(&pos, &evaluator, limits, &one, &mut |r| {
            if let crate::search::Report::Pv(info) = r {
                (nodes, depth) = (info.nodes, info.depth);
            }
        });
        (nodes, depth)
    };
    let hard = 2_000_000;
    let (nodes, depth) = search(&Limits {
        nodes: Some(hard),
        soft_nodes: Some(3_000),
        ..Limits::default()
    });
    // Past the soft limit, below the hard one: the iteration that crossed it was the last.
    assert!((3_000..hard).contains(&nodes), "{nodes} nodes");
    let (shallower, _) = search(&Limits {
        depth: Some(depth - 1),
        ..Limits::default()
    });
    assert!(
        shallower < 3_000,
        "depth {} took {shallower} nodes",
        depth - 1
    );
}
