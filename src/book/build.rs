//! Books from game records, merging books, and propagating values through a book by minimax.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Book, BookMove, key_of, mirror_key, mirror_move, split_ply};
use crate::shogi::{Color, Move, Position};

/// One game: where it starts, its moves, and who won when the record says.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub start: Position,
    pub moves: Vec<Move>,
    pub winner: Option<Color>,
}

/// `[position] startpos [moves ...]` or `[position] sfen <b> <s> <h> [<ply>] [moves ...]`; every
/// move must be legal.
pub fn parse_usi_game(line: &str) -> Result<GameRecord, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let words = match words.as_slice() {
        ["position", rest @ ..] => rest,
        all => all,
    };
    let (mut pos, rest) = match words {
        ["startpos", rest @ ..] => (Position::startpos(), rest),
        ["sfen", rest @ ..] => {
            let end = rest
                .iter()
                .position(|w| *w == "moves")
                .unwrap_or(rest.len());
            let pos = Position::from_sfen(&rest[..end].join(" ")).map_err(|e| e.to_string())?;
            (pos, &rest[end..])
        }
        _ => return Err("expected `startpos` or `sfen ...`".into()),
    };
    let start = pos.clone();
    let moves_text = match rest {
        [] => &[][..],
        ["moves", moves @ ..] => moves,
        _ => return Err(format!("expected `moves`, got `{}`", rest[0])),
    };
    let mut moves = Vec::new();
    for text in moves_text {
        let m = pos.parse_move(text).map_err(|e| e.to_string())?;
        pos.do_move(m);
        moves.push(m);
    }
    Ok(GameRecord {
        start,
        moves,
        winner: None,
    })
}

/// Every file under `path` (itself when it is a file), sorted so builds are reproducible.
pub fn files_under(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let p = entry?.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The games of one file, in any format the game-record reader knows (KIF, KI2, CSA, JKF,
/// USI/SFEN lines). A record that breaks off keeps its legal part.
pub fn read_games(path: &Path) -> Result<Vec<GameRecord>, String> {
    let records = crate::kifu::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(records
        .into_iter()
        .map(|r| GameRecord {
            start: r.start,
            moves: r.moves,
            winner: r.winner,
        })
        .collect())
}

/// Which moves of the records count.
#[derive(Clone, Debug)]
pub struct RecordParams {
    /// Moves played fewer times are left out.
    pub min_count: u64,
    /// Positions after this game ply are left out.
    pub max_ply: u32,
    /// Only this side's moves (`None`: both).
    pub side: Option<Color>,
    /// Only the winner's moves; games without a known result are skipped.
    pub winner_only: bool,
}

impl Default for RecordParams {
    fn default() -> Self {
        RecordParams {
            min_count: 1,
            max_ply: 40,
            side: None,
            winner_only: false,
        }
    }
}

/// A book of how often each move was played. Values and depths are 0 (records say nothing of
/// them); the ponder move is the reply most played after it, when that reply made the book.
pub fn from_records(games: &[GameRecord], params: &RecordParams) -> Book {
    // key -> (smallest ply seen, move -> count), moves in order of first appearance.
    let mut seen: HashMap<String, (u32, Vec<(Move, u64)>)> = HashMap::new();
    for game in games {
        if params.winner_only && game.winner.is_none() {
            continue;
        }
        let mut pos = game.start.clone();
        for &m in &game.moves {
            if pos.game_ply() > params.max_ply {
                break;
            }
            let mover = pos.side_to_move();
            let wanted = params.side.is_none_or(|s| s == mover)
                && (!params.winner_only || game.winner == Some(mover));
            if wanted {
                let entry = seen
                    .entry(key_of(&pos))
                    .or_insert_with(|| (pos.game_ply(), Vec::new()));
                entry.0 = entry.0.min(pos.game_ply());
                match entry.1.iter_mut().find(|(mv, _)| *mv == m) {
                    Some((_, n)) => *n += 1,
                    None => entry.1.push((m, 1)),
                }
            }
            pos.do_move(m);
        }
    }
    let mut book = Book::new();
    for (key, (ply, moves)) in &seen {
        let mut kept: Vec<BookMove> = moves
            .iter()
            .filter(|(_, n)| *n >= params.min_count)
            .map(|&(mv, count)| BookMove {
                mv,
                ponder: None,
                value: 0,
                depth: 0,
                count,
            })
            .collect();
        kept.sort_by_key(|m| Reverse(m.count));
        book.set(format!("{key} {ply}"), kept);
    }
    fill_ponder_moves(&mut book);
    book
}

/// Sets each move's ponder move to the first move of the position it leads to, where the book
/// has that position.
fn fill_ponder_moves(book: &mut Book) {
    let mut updates = Vec::new();
    for (entry, moves) in book.entries() {
        let Ok(pos) = Position::from_sfen(entry) else {
            continue;
        };
        let mut new = moves.to_vec();
        for m in &mut new {
            let mut child = pos.clone();
            child.do_move(m.mv);
            if let Some(reply) = book.probe(&key_of(&child), None).first() {
                m.ponder = Some(reply.mv);
            }
        }
        updates.push((entry.to_string(), new));
    }
    for (entry, moves) in updates {
        book.set(entry, moves);
    }
}

/// Several books in one. Positions are matched by board, side and hands; the entry keeps the
/// smallest ply number given. A move in several books keeps the deepest analysis (the first
/// book's among equals) and the sum of the counts.
pub fn merge(books: &[Book]) -> Book {
    let mut by_key: HashMap<String, (Option<u32>, Vec<BookMove>)> = HashMap::new();
    for book in books {
        for (entry, moves) in book.entries() {
            let (key, ply) = split_ply(entry);
            let slot = by_key
                .entry(key.to_string())
                .or_insert_with(|| (ply, Vec::new()));
            slot.0 = match (slot.0, ply) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            for m in moves {
                match slot.1.iter_mut().find(|b| b.mv == m.mv) {
                    Some(b) => {
                        let count = b.count.saturating_add(m.count);
                        if m.depth > b.depth {
                            *b = *m;
                        }
                        b.count = count;
                    }
                    None => slot.1.push(*m),
                }
            }
        }
    }
    let mut out = Book::new();
    for (key, (ply, mut moves)) in by_key {
        moves.sort_by_key(|m| (Reverse(m.value), Reverse(m.count)));
        let entry = match ply {
            Some(p) => format!("{key} {p}"),
            None => key,
        };
        out.set(entry, moves);
    }
    out
}

/// Values above this are mate scores, which lose a ply per step back.
const MATE_THRESHOLD: i32 = 31_000;

enum Visit {
    OnPath,
    Done(i32),
}

/// Propagates values through the book graph by negamax: a move that leads to a book position
/// is worth minus that position's value (the best of its moves), so a line's value reflects
/// the best replies, not one search's guess. Moves leading out of the book keep their own
/// value. A move back into a position on the current path (a repetition) is worth
/// `draw_value`. Ponder moves become the best reply. Moves are re-sorted best first.
pub fn minimax(book: &Book, draw_value: i32) -> Book {
    let mut by_key: HashMap<String, String> = HashMap::new();
    for (entry, _) in book.entries() {
        by_key
            .entry(split_ply(entry).0.to_string())
            .or_insert_with(|| entry.to_string());
    }
    let mut state: HashMap<String, Visit> = HashMap::new();
    let mut result: HashMap<String, Vec<BookMove>> = HashMap::new();
    let keys: Vec<String> = by_key.keys().cloned().collect();
    for key in keys {
        visit(book, &by_key, &key, draw_value, &mut state, &mut result);
    }
    let mut out = Book::new();
    for (key, moves) in result {
        if let Some(entry) = by_key.get(&key) {
            out.set(entry.clone(), moves);
        }
    }
    out
}

/// The value of the position `key` for its side to move, its moves updated in `result`.
fn visit(
    book: &Book,
    by_key: &HashMap<String, String>,
    key: &str,
    draw_value: i32,
    state: &mut HashMap<String, Visit>,
    result: &mut HashMap<String, Vec<BookMove>>,
) -> Option<i32> {
    match state.get(key) {
        Some(Visit::OnPath) => return Some(draw_value),
        Some(Visit::Done(v)) => return Some(*v),
        None => {}
    }
    let pos = Position::from_sfen(by_key.get(key)?).ok()?;
    let mut moves = book.probe(key, None);
    if moves.is_empty() {
        return None;
    }
    state.insert(key.to_string(), Visit::OnPath);
    for m in &mut moves {
        let mut child = pos.clone();
        child.do_move(m.mv);
        let child_key = key_of(&child);
        let mirrored = mirror_key(&child_key);
        let (found, flip) = if by_key.contains_key(&child_key) {
            (Some(child_key), false)
        } else if by_key.contains_key(&mirrored) {
            (Some(mirrored), true)
        } else {
            (None, false)
        };
        let Some(found) = found else {
            continue;
        };
        let Some(child_value) = visit(book, by_key, &found, draw_value, state, result) else {
            continue;
        };
        let mut v = -child_value;
        if v > MATE_THRESHOLD {
            v -= 1;
        } else if v < -MATE_THRESHOLD {
            v += 1;
        }
        m.value = v;
        if let Some(reply) = result.get(&found).and_then(|r| r.first()) {
            m.ponder = Some(if flip {
                mirror_move(reply.mv)
            } else {
                reply.mv
            });
        }
    }
    moves.sort_by_key(|m| (Reverse(m.value), Reverse(m.count)));
    let best = moves[0].value;
    state.insert(key.to_string(), Visit::Done(best));
    result.insert(key.to_string(), moves);
    Some(best)
}
