//! Books from kirin's own analysis: each position searched with MultiPV, every line kept as a
//! candidate with its value and depth, and the tree grown best-first from the roots.
//!
//! Best-first means the position expanded next is the one whose path from a root has lost the
//! least (the sum over its moves of how far each fell short of the best move there), plus a
//! fixed cost per ply. The main lines so grow deep while sidelines stay short, and the node
//! budget goes where games actually go.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::path::Path;
use std::time::Instant;

use super::{Book, BookMove, key_of};
use crate::eval::Evaluator;
use crate::search::time::Clock;
use crate::search::{Limits, Outcome, Report, Score, ScoreBound, SearchOptions, Searcher};
use crate::shogi::{Position, legal_moves};

/// Centipawn value of a mate in `n` plies, in the book's integer scale (as the search's).
const MATE_VALUE: i32 = 32000;

#[derive(Clone, Debug)]
pub struct ThinkParams {
    /// Nodes per position (0: no node limit).
    pub nodes: u64,
    /// Milliseconds per position (0: no time limit).
    pub movetime_ms: u64,
    pub multipv: usize,
    /// Positions to analyse in all (those already in the book cost nothing).
    pub positions: usize,
    /// The last game ply analysed.
    pub max_ply: u32,
    /// Only moves within this many centipawns of the best are expanded.
    pub expand_diff: i32,
    /// At most this many moves expanded per position.
    pub width: usize,
    /// What one more ply costs in the best-first order, in centipawns.
    pub ply_cost: i32,
    pub hash_mb: usize,
    /// The book is saved after every this many new analyses (0: only at the end).
    pub save_every: usize,
}

impl Default for ThinkParams {
    fn default() -> Self {
        ThinkParams {
            nodes: 200_000,
            movetime_ms: 0,
            multipv: 4,
            positions: 1000,
            max_ply: 24,
            expand_diff: 60,
            width: 3,
            ply_cost: 10,
            hash_mb: 64,
            save_every: 50,
        }
    }
}

fn book_value(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-(MATE_VALUE - 1000), MATE_VALUE - 1000),
        Score::Mate(n) if n > 0 => MATE_VALUE - n,
        Score::Mate(n) => -MATE_VALUE - n,
    }
}

/// Searches `pos` once with MultiPV and returns its candidates, best first. Each candidate
/// is the last exact line the search reported for that MultiPV rank.
pub fn analyse(
    searcher: &mut Searcher,
    evaluator: &Evaluator,
    pos: &Position,
    params: &ThinkParams,
) -> Vec<BookMove> {
    let limits = Limits {
        nodes: (params.nodes > 0).then_some(params.nodes),
        clock: (params.movetime_ms > 0).then_some(Clock {
            time_left: 0,
            byoyomi: 0,
            increment: 0,
            movetime: Some(params.movetime_ms),
        }),
        ..Limits::default()
    };
    let opts = SearchOptions {
        threads: 1,
        multipv: params.multipv.max(1),
        resign_value: 99_999,
        ..SearchOptions::default()
    };
    let mut lines: Vec<Option<BookMove>> = vec![None; opts.multipv + 1];
    let outcome = searcher.think(pos, evaluator, &limits, &opts, &mut |report| {
        if let Report::Pv(info) = report
            && info.bound == ScoreBound::Exact
            && let Some(&mv) = info.pv.first()
        {
            let slot = (info.multipv as usize).min(opts.multipv);
            lines[slot] = Some(BookMove {
                mv,
                ponder: info.pv.get(1).copied(),
                value: book_value(info.score),
                depth: info.depth as i32,
                count: 1,
            });
        }
    });
    let mut moves: Vec<BookMove> = Vec::new();
    for m in lines.into_iter().flatten() {
        if !moves.iter().any(|b| b.mv == m.mv) {
            moves.push(m);
        }
    }
    moves.sort_by_key(|m| Reverse(m.value));
    // With one line, the move the search settled on comes first whatever its last report said.
    if let Outcome::Move { best, .. } = outcome
        && let Some(i) = moves.iter().position(|m| m.mv == best)
        && params.multipv <= 1
    {
        moves.swap(0, i);
    }
    let legal = legal_moves(pos);
    moves.retain(|m| legal.contains(&m.mv));
    moves
}

/// The `sfen` text a position is stored under: key and ply number.
pub fn entry_text(pos: &Position) -> String {
    format!("{} {}", key_of(pos), pos.game_ply())
}

/// Grows `book` best-first from `roots` until `params.positions` new positions have been
/// analysed or nothing is left within the limits. Positions already in the book are not
/// searched again, so an interrupted run continues where it stopped. `save` is called with
/// the book now and then. Returns the number of positions analysed.
pub fn expand(
    roots: &[Position],
    book: &mut Book,
    params: &ThinkParams,
    save: &mut dyn FnMut(&Book),
) -> usize {
    let mut searcher = Searcher::new(params.hash_mb);
    // Books are made with the evaluation kirin plays with.
    let evaluator = Evaluator::default();
    let mut heap: BinaryHeap<Reverse<(i32, usize)>> = BinaryHeap::new();
    let mut queued: Vec<Option<Position>> = Vec::new();
    for root in roots {
        heap.push(Reverse((0, queued.len())));
        queued.push(Some(root.clone()));
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut analysed = 0;
    let started = Instant::now();
    while let Some(Reverse((cost, id))) = heap.pop() {
        let Some(pos) = queued[id].take() else {
            continue;
        };
        let key = key_of(&pos);
        if pos.game_ply() > params.max_ply || !seen.insert(key.clone()) {
            continue;
        }
        let mut moves = book.probe(&key, None);
        if moves.is_empty() {
            if analysed >= params.positions {
                continue;
            }
            searcher.new_game();
            moves = analyse(&mut searcher, &evaluator, &pos, params);
            if moves.is_empty() {
                continue;
            }
            book.set(entry_text(&pos), moves.clone());
            analysed += 1;
            if analysed % 10 == 0 {
                eprintln!(
                    "{analysed} positions analysed, {} in the book, {:.0} s, cost {cost}, ply {}",
                    book.len(),
                    started.elapsed().as_secs_f64(),
                    pos.game_ply()
                );
            }
            if params.save_every > 0 && analysed % params.save_every == 0 {
                save(book);
            }
        }
        moves.sort_by_key(|m| Reverse(m.value));
        let best = moves[0].value;
        for m in moves.iter().take(params.width.max(1)) {
            let loss = best - m.value;
            if loss > params.expand_diff {
                break;
            }
            let mut child = pos.clone();
            child.do_move(m.mv);
            heap.push(Reverse((cost + loss + params.ply_cost, queued.len())));
            queued.push(Some(child));
        }
    }
    save(book);
    analysed
}

/// Roots from a file of `startpos [moves ...]` / `sfen ... [moves ...]` lines (a leading
/// `position` is allowed); the start position when there is no file.
pub fn roots_from(path: Option<&Path>) -> Result<Vec<Position>, String> {
    let Some(path) = path else {
        return Ok(vec![Position::startpos()]);
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut roots = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let game = super::build::parse_usi_game(line)
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        let mut pos = game.start.clone();
        for &m in &game.moves {
            pos.do_move(m);
        }
        roots.push(pos);
    }
    Ok(roots)
}
