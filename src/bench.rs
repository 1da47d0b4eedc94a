//! `kirin bench`: a fixed set of positions searched to a fixed depth. With one thread the total
//! node count is deterministic, so it is the search's signature: any change to search or
//! evaluation that changes it changes behaviour.

use crate::game::Game;
use crate::search::{Limits, Outcome, Report, SearchOptions, Searcher};
use std::time::{Duration, Instant};

pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Searches each position to `depth` with a cleared table; prints one line per position to
/// stderr and returns the totals. Each game's engine calls it with the game's positions
/// ([`crate::game::Variant::BENCH`], which each game lists beside its `Variant` implementation)
/// and evaluation.
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
