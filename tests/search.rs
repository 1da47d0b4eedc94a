//! The search against independent facts: mate problems with known lengths, the entering-king
//! rules, perpetual check and repetition draws.

use kirin::eval::Evaluator;
use kirin::search::{Limits, Outcome, Report, Score, SearchOptions, Searcher};
use kirin::shogi::{EnteringKingRule, Move, Position, legal_moves, movegen};

struct Result {
    outcome: Outcome<Move>,
    score: Option<Score>,
    pvs: Vec<(u32, Vec<Move>)>,
    /// The most nodes any line reported.
    nodes: u64,
}

fn search(pos: &Position, limits: Limits<Move>, opts: SearchOptions) -> Result {
    let mut searcher = Searcher::new(32);
    let mut score = None;
    let mut pvs = Vec::new();
    let mut nodes = 0;
    let outcome = searcher.think(pos, &Evaluator::default(), &limits, &opts, &mut |r| {
        if let Report::Pv(info) = r {
            if info.multipv <= 1 {
                score = Some(info.score);
            }
            nodes = nodes.max(info.nodes);
            pvs.push((info.multipv, info.pv));
        }
    });
    Result {
        outcome,
        score,
        pvs,
        nodes,
    }
}

fn one_thread() -> SearchOptions {
    SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    }
}

fn nodes(n: u64) -> Limits<Move> {
    Limits {
        nodes: Some(n),
        ..Limits::default()
    }
}

fn best(r: &Result) -> Move {
    match r.outcome {
        Outcome::Move { best, .. } => best,
        ref o => panic!("expected a move, got {o:?}"),
    }
}

/// Rows of shared/data/tsume/mates.tsv with a listed length of at most 7 plies, and the
/// `none<=N` rows: (sfen, Some(length)) or (sfen, None) for "no mate of N plies or fewer".
const MATES: &[(&str, Option<i32>, i32)] = &[
    ("k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", Some(1), 0),
    ("kb7/p8/9/9/9/9/8B/9/8K b 2R4G4S4N4L17P 1", Some(1), 0),
    ("4k4/9/4S4/9/9/9/9/9/9 b S2r2b4g2s4n4l18p 1", Some(1), 0),
    (
        "9/2B6/3G2r2/3pkL1R1/3gsg3/3S2B2/3g5/4N4/4L4 b 2s3n2l17p 1",
        Some(1),
        0,
    ),
    (
        "l1+L6/9/p1pL3Gp/2s+Bp1pp1/2Np3P1/P1P6/1PKP1SB1P/2Gg+nr3/L4k3 b RG2SN5Pn 179",
        Some(1),
        0,
    ),
    (
        "k3l3R/p4s3/9/N8/4p4/4KBB2/9/1pp+l+l+l+n+n+n/+s+s+sggggr1 b 14p 1",
        None,
        1,
    ),
    ("kn7/1s7/9/1N7/9/9/9/9/9 b P2r2b4g3s2n4l17p 1", None, 1),
    ("3sks3/9/4S4/9/9/8B/9/9/9 b S 1", Some(3), 0),
    ("9/6k2/9/5G3/4G4/4P4/9/9/9 b 2G2r2b4s4n4l17p 1", Some(3), 0),
    ("9/5k3/9/5G3/4G4/4P4/9/9/9 b 2G2r2b4s4n4l17p 1", Some(3), 0),
    (
        "7nl/7k1/5+Pppp/9/9/9/9/9/9 b GS2r2b2g3s3n3l14p 1",
        Some(3),
        0,
    ),
    ("5k3/7gR/4S4/7L1/9/9/9/9/9 b Sr2b3g2s4n3l18p 1", Some(3), 0),
    ("9/9/9/9/9/7np/8k/8B/7LR b rb4g4s3n3l17p 1", Some(3), 0),
    (
        "4kp+R2/1+B4n2/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl3p 105",
        Some(3),
        0,
    ),
    (
        "6+R2/1+B2k1n2/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl4p 105",
        Some(3),
        0,
    ),
    (
        "4k4/l1+P2pG2/7p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Prbgn 3",
        Some(3),
        0,
    ),
    (
        "lg3+B1nl/3s2p2/p1n1sS1k1/7pp/9/PKPpP4/1P2gPP1P/1s1r5/LN5NL b G6Prbg 3",
        Some(3),
        0,
    ),
    ("k8/9/9/1+R7/9/9/9/9/P8 b LPr2b4g4s4n3l16p 1", None, 3),
    (
        "6knl/6s2/5Pppp/9/9/9/9/9/9 b G2S2r2b3gs3n3l14p 1",
        Some(5),
        0,
    ),
    (
        "4R2nl/6sk1/6pp1/8p/9/9/9/9/9 b BGLrb3g3s3n2l15p 1",
        Some(5),
        0,
    ),
    ("l2k5/9/3S2S2/9/9/9/9/9/9 b B2N2rb4g2s2n3l18p 1", Some(5), 0),
    (
        "7nl/7k1/9/9/7BL/5+r1R1/9/9/9 b 2Gb2g4s3n2l18p 1",
        Some(5),
        0,
    ),
    (
        "4k4/1+B4n+R1/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl4p 1",
        Some(5),
        0,
    ),
    (
        "4+R4/l1+P2pG2/3k3p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Pbgn 3",
        Some(5),
        0,
    ),
    (
        "ln5kl/3+BR4/6pg1/p2G3p1/3PppP1p/PP7/2BGP1N1P/6K2/LN6L b G4SN4Pr2p 1",
        Some(5),
        0,
    ),
    ("9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1", Some(7), 0),
    (
        "3nknB2/2G2g1G1/3p1ps2/7N1/9/9/9/9/9 b L2rbg3sn3l16p 1",
        Some(7),
        0,
    ),
    (
        "l8/1ks+P5/1ppp5/p8/9/2P6/9/9/9 b G2SN2r2b3gs3n3l12p 1",
        Some(7),
        0,
    ),
    (
        "ln1r4l/3k1gp2/pS1p1+P1+R1/6L1p/1pPP2S2/2S3P2/PP2p1+b1P/3K5/+b7L w 2GSN3Pg2n2p 118",
        Some(7),
        0,
    ),
];

/// Independent of the search: is there a mate within `plies` plies (odd) for the side to move,
/// the attacker trying checks only and the defender every legal reply?
fn mate_within(pos: &mut Position, plies: i32) -> bool {
    if plies <= 0 {
        return false;
    }
    let mut checks = movegen::MoveList::new();
    movegen::checks(pos, &mut checks);
    for m in checks {
        pos.do_move(m);
        let replies = legal_moves(pos);
        let forced = replies.iter().all(|&r| {
            pos.do_move(r);
            let ok = mate_within(pos, plies - 2);
            pos.undo_move();
            ok
        });
        pos.undo_move();
        if forced {
            return true;
        }
    }
    false
}

/// After the attacker's move, every defence still loses within `plies` more plies.
fn still_mates_after(pos: &mut Position, first: Move, plies: i32) -> bool {
    pos.do_move(first);
    let replies = legal_moves(pos);
    let ok = if replies.is_empty() {
        pos.in_check()
    } else {
        replies.iter().all(|&r| {
            pos.do_move(r);
            let ok = mate_within(pos, plies - 2);
            pos.undo_move();
            ok
        })
    };
    pos.undo_move();
    ok
}

#[test]
fn finds_the_listed_mates_and_no_false_ones() {
    for &(sfen, length, none_within) in MATES {
        let pos = Position::from_sfen(sfen).unwrap();
        let r = search(&pos, nodes(3_000_000), one_thread());
        match length {
            Some(n) => {
                let Some(Score::Mate(found)) = r.score else {
                    panic!("{sfen}: expected mate in {n}, got {:?}", r.score);
                };
                assert!(found > 0 && found <= n, "{sfen}: mate {found}, listed {n}");
                let mut p = pos.clone();
                assert!(
                    still_mates_after(&mut p, best(&r), found),
                    "{sfen}: {} lets the mate go",
                    best(&r)
                );
            }
            None => {
                if let Some(Score::Mate(found)) = r.score {
                    assert!(
                        found <= 0 || found > none_within,
                        "{sfen}: claims mate in {found}"
                    );
                }
            }
        }
    }
}

#[test]
fn declares_only_when_the_rule_holds() {
    // Ten pieces in the camp worth 18 points, 10 more in hand: 28, enough for Black under 27.
    let enough = Position::from_sfen("+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1").unwrap();
    let short = Position::from_sfen("+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 9P 1").unwrap();
    let rule = |r| SearchOptions {
        entering_king_rule: r,
        ..one_thread()
    };
    assert_eq!(
        search(&enough, nodes(10_000), rule(EnteringKingRule::Csa27)).outcome,
        Outcome::Win
    );
    assert_ne!(
        search(&short, nodes(10_000), rule(EnteringKingRule::Csa27)).outcome,
        Outcome::Win
    );
    assert_ne!(
        search(&enough, nodes(10_000), rule(EnteringKingRule::Csa24)).outcome,
        Outcome::Win
    );
    assert_ne!(
        search(&enough, nodes(10_000), rule(EnteringKingRule::None)).outcome,
        Outcome::Win
    );
    let in_check = Position::from_sfen("+R+B1GlGSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1").unwrap();
    assert_ne!(
        search(&in_check, nodes(10_000), rule(EnteringKingRule::Csa27)).outcome,
        Outcome::Win
    );
    // Under the try rule the king steps onto 5a.
    let try_pos = Position::from_sfen("9/4K4/9/9/9/9/9/9/4k4 b - 1").unwrap();
    let r = search(&try_pos, nodes(10_000), rule(EnteringKingRule::Try));
    assert_eq!(best(&r).to_string(), "5b5a");
}

fn play(pos: &mut Position, moves: &str) {
    for m in moves.split_whitespace() {
        let m = pos.parse_move(m).unwrap();
        pos.do_move(m);
    }
}

#[test]
fn perpetual_check_is_a_loss_not_a_draw() {
    // Black is a bishop down; repeating the rook checks would recreate a position reached by
    // checks alone, which loses, so Black must play on instead.
    let mut pos = Position::from_sfen("rb6k/9/9/9/9/9/9/9/1K5R1 b - 1").unwrap();
    play(&mut pos, "2i1i 1a2a 1i2i 2a1a");
    let r = search(&pos, nodes(200_000), one_thread());
    assert_ne!(best(&r).to_string(), "2i1i");
    assert_ne!(r.score, Some(Score::Cp(0)));
}

#[test]
fn the_losing_side_takes_a_repetition_draw() {
    // White is a rook down and can repeat the position: a draw is worth more than the game.
    let mut pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b R 1").unwrap();
    play(&mut pos, "5i5h 5a5b 5h5i");
    let r = search(&pos, nodes(200_000), one_thread());
    assert_eq!(best(&r).to_string(), "5b5a");
    assert_eq!(r.score, Some(Score::Cp(0)));
}

#[test]
fn multipv_reports_distinct_lines_and_searchmoves_restricts_the_root() {
    let pos = Position::startpos();
    let opts = SearchOptions {
        multipv: 3,
        ..one_thread()
    };
    let r = search(
        &pos,
        Limits {
            depth: Some(6),
            ..Limits::default()
        },
        opts,
    );
    let last: Vec<&(u32, Vec<Move>)> = r.pvs.iter().rev().take(3).collect();
    let mut firsts: Vec<Move> = last.iter().map(|(_, pv)| pv[0]).collect();
    let mut idx: Vec<u32> = last.iter().map(|(k, _)| *k).collect();
    idx.sort();
    assert_eq!(idx, vec![1, 2, 3]);
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3);

    let only = pos.parse_move("1g1f").unwrap();
    let limits = Limits {
        depth: Some(5),
        searchmoves: vec![only],
        ..Limits::default()
    };
    assert_eq!(best(&search(&pos, limits, one_thread())), only);
}

#[test]
fn no_legal_move_resigns_and_resign_value_is_honoured() {
    let mated = Position::from_sfen("kG7/1G7/9/9/9/9/9/9/8K w - 1").unwrap();
    assert!(mated.is_mated());
    assert_eq!(
        search(&mated, nodes(1000), one_thread()).outcome,
        Outcome::Resign
    );
    // White is a rook and bishop down with nothing in return.
    let hopeless = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w RB 1").unwrap();
    let opts = SearchOptions {
        resign_value: 1000,
        ..one_thread()
    };
    assert_eq!(
        search(&hopeless, nodes(20_000), opts).outcome,
        Outcome::Resign
    );
    let r = search(&hopeless, nodes(20_000), one_thread());
    assert!(matches!(r.outcome, Outcome::Move { .. }));
}

#[test]
fn two_threads_agree_on_a_forced_mate() {
    let pos = Position::from_sfen("3sks3/9/4S4/9/9/8B/9/9/9 b S 1").unwrap();
    let opts = SearchOptions {
        threads: 2,
        ..SearchOptions::default()
    };
    let r = search(&pos, nodes(400_000), opts);
    assert!(matches!(r.score, Some(Score::Mate(n)) if n > 0 && n <= 3));
    let mut p = pos.clone();
    assert!(still_mates_after(&mut p, best(&r), 3));
}

#[test]
fn one_searcher_searches_again_and_again() {
    // Each `think` on the same searcher must start with a fresh stop flag.
    let mut searcher = Searcher::new(16);
    let evaluator = Evaluator::default();
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    for sfen in [
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut depth = 0;
        searcher.think(&pos, &evaluator, &limits, &one_thread(), &mut |r| {
            if let Report::Pv(info) = r {
                depth = info.depth;
            }
        });
        assert_eq!(depth, 4, "{sfen}");
    }
}

/// A position of a real game (kirin against itself, byoyomi 100) where the first ply takes
/// 1.5 M nodes: its quiescence search runs through chains of checks and interposed drops. A
/// search stopped before that ply ends searches it again so that its answer has a score; that
/// second search has a node limit of its own instead of running to the end (1.9 s past the
/// clock in the game).
#[test]
fn a_search_stopped_in_its_first_ply_answers_within_a_few_thousand_nodes() {
    let pos = Position::from_sfen(
        "1l5n1/2k1+S1+P2/n2gpp1+P1/2r1n1P1+b/1PPns4/9/3PP4/K3L4/3b1G1+l1 w G2SL3Prg6p 134",
    )
    .unwrap();
    let r = search(&pos, nodes(1000), one_thread());
    assert!(legal_moves(&pos).contains(&best(&r)));
    let most_nodes = r.nodes;
    assert!(most_nodes > 0, "no line reported");
    assert!(
        most_nodes < 10_000,
        "{most_nodes} nodes for a 1,000-node search"
    );
}
