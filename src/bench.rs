//! `kirin bench`: a fixed set of positions searched to a fixed depth. With one thread the total
//! node count is deterministic, so it is the search's signature: any change to search or
//! evaluation that changes it changes behaviour.

use crate::game::Game;
use crate::search::{Limits, Outcome, Report, SearchOptions, Searcher};
use crate::yari;
use std::time::{Duration, Instant};

/// Openings, middlegames, a handicap game, an endgame with many pieces in hand, and an
/// entering-king race taken from a real floodgate game that ended in a declaration.
pub const POSITIONS: [(&str, &str); 8] = [
    (
        "startpos",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ),
    (
        "opening",
        "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    ),
    (
        "yagura",
        "ln1g3nl/1r1sg1k2/p1pppp1pp/6p2/1p7/2P1P4/PPSP1PPPP/1KG1G2R1/LN5NL b Bbs 21",
    ),
    (
        "matsuri",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    ),
    (
        "two-piece handicap",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "endgame with hands",
        "ln1r4l/3k1gp2/pS1p1+P1+R1/6L1p/1pPP2S2/2S3P2/PP2p1+b1P/3K5/+b7L w 2GSN3Pg2n2p 118",
    ),
    (
        "attack",
        "4k4/l1+P2pG2/7p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Prbgn 3",
    ),
    (
        "entering-king race",
        "+S+P1+B5/K1PGPg3/+P+P7/9/9/5lpp1/1n2+p+lgk1/3+p3+p1/1+p+p6 w 2RBG3S3N2L6p 362",
    ),
];

/// Yari shogi: the start, an opening, and the two middlegames of the perft table (one with
/// promoted pieces of every kind, one with drops that mate).
pub const YARI_POSITIONS: [(&str, &str); 4] = [
    ("startpos", yari::START_SFEN),
    (
        "opening",
        "rnnkb1r/5b1/pppp1pp/4p2/7/2P4/PP1PPPP/3B3/R1BKNNR b - 5",
    ),
    (
        "mixed",
        "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1",
    ),
    ("drops", "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1"),
];

/// Dai shogi: the start position and the position after 50 plies of a game kirin played against
/// itself at 200 ms per move (pawns in contact, a bishop and a phoenix out).
pub const DAI_POSITIONS: [(&str, &str); 2] = [
    ("startpos", crate::dai::START_SFEN),
    (
        "opening",
        "ln3sgg1sciunl/auc'cftket1f1c'1a/1x'1a'iwxl!1w1a'1x'f'/rf'mvb1d1d1bvm1r/pppppp1p1pppppp/6p1po5/4p'10/10P'4/7PP6/2BP2P8/PPP1PPO2PPPPPP/R1MV2D1D1BVMF'R/F'X'1A'1W1L!XW1A'1X'1/AUC'1F1TET1FIC'UA/LN1ICSGKGSC2NL b - 51",
    ),
];

pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Searches each position to `depth` with a cleared table; prints one line per position to
/// stderr and returns the totals. Each game's engine calls it with the game's positions
/// ([`crate::game::Variant::BENCH`]) and evaluation.
pub fn run<G: Game>(
    positions: Vec<(&'static str, G)>,
    evaluator: &G::Evaluator,
    depth: u32,
    threads: usize,
    hash_mb: usize,
) -> BenchResult {
    let mut searcher = Searcher::new(hash_mb);
    let opts = SearchOptions {
        threads,
        ..SearchOptions::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut total = 0u64;
    let start = Instant::now();
    for (name, pos) in positions {
        searcher.new_game();
        let mut last_nodes = 0;
        let mut last_line = String::new();
        let t = Instant::now();
        let outcome = searcher.think(&pos, evaluator, &limits, &opts, &mut |r| {
            if let Report::Pv(info) = r {
                last_nodes = info.nodes;
                last_line = format!(
                    "depth {} score {:?} pv {}",
                    info.depth,
                    info.score,
                    info.pv.first().map(|m| m.to_string()).unwrap_or_default()
                );
            }
        });
        let best = match outcome {
            Outcome::Move { best, .. } => best.to_string(),
            Outcome::Resign => "resign".into(),
            Outcome::Win => "win".into(),
        };
        eprintln!(
            "{name:>20}: {last_nodes:>10} nodes {:>6} ms  {last_line} bestmove {best}",
            t.elapsed().as_millis()
        );
        total += last_nodes;
    }
    BenchResult {
        nodes: total,
        elapsed: start.elapsed(),
    }
}
