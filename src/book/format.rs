//! Reading and writing YaneuraOu's book text. Reading is forgiving in what it skips (blank
//! lines, `#` and `//` comments, Windows line ends, missing trailing fields) and strict in what
//! it keeps: every position must be a legal setup and every move legal in it.

use std::fmt;

use super::{Book, BookMove, key_of};
use crate::shogi::{Move, Position, legal_moves, parse_syntax};

/// The first line of every book written, and what YaneuraOu's tools look for.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// A line of a book that could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The position and canonical entry text of a `sfen` line's argument (with or without the
/// ply number; the number is kept when given).
pub fn parse_sfen(text: &str) -> Result<(String, Position), String> {
    let pos = Position::from_sfen(text).map_err(|e| format!("bad sfen `{}`: {e}", text.trim()))?;
    let ply = text.split_whitespace().nth(3);
    let entry = match ply {
        Some(_) => format!("{} {}", key_of(&pos), pos.game_ply()),
        None => key_of(&pos),
    };
    Ok((entry, pos))
}

/// `move [ponder [value [depth [count]]]]`, syntax only; fields left out read as YaneuraOu
/// reads them (no ponder, value and depth 0, count 1).
pub fn parse_move_line(line: &str) -> Result<BookMove, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.is_empty() || fields.len() > 5 {
        return Err(format!(
            "expected `move ponder value depth [count]`, got `{line}`"
        ));
    }
    let mv = parse_syntax(fields[0]).ok_or_else(|| format!("bad move `{}`", fields[0]))?;
    let ponder = match fields.get(1) {
        None | Some(&"none") => None,
        Some(text) => Some(parse_syntax(text).ok_or_else(|| format!("bad ponder move `{text}`"))?),
    };
    fn number<T: std::str::FromStr>(
        field: Option<&&str>,
        what: &str,
        default: T,
    ) -> Result<T, String> {
        match field {
            None => Ok(default),
            Some(text) => text
                .parse()
                .map_err(|_| format!("bad {what} `{text}` (an integer)")),
        }
    }
    Ok(BookMove {
        mv,
        ponder,
        value: number(fields.get(2), "value", 0)?,
        depth: number(fields.get(3), "depth", 0)?,
        count: number(fields.get(4), "count", 1)?,
    })
}

/// The entry being read: its text, the legal moves of its position, what was kept so far.
struct Current {
    entry: String,
    legal: Vec<Move>,
    moves: Vec<BookMove>,
}

pub fn parse(text: &[u8]) -> (Book, Vec<Problem>) {
    let mut book = Book::new();
    let mut problems = Vec::new();
    let mut current: Option<Current> = None;
    // After a bad `sfen` line its moves are skipped without a problem each.
    let mut skipping = false;
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let line = String::from_utf8_lossy(raw);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        if let Some(sfen) = line.strip_prefix("sfen ") {
            if let Some(c) = current.take() {
                book.add(c.entry, c.moves);
            }
            match parse_sfen(sfen) {
                Ok((entry, pos)) => {
                    current = Some(Current {
                        entry,
                        legal: legal_moves(&pos).to_vec(),
                        moves: Vec::new(),
                    });
                    skipping = false;
                }
                Err(message) => {
                    problems.push(Problem {
                        line: line_no,
                        message,
                    });
                    skipping = true;
                }
            }
            continue;
        }
        let Some(c) = current.as_mut() else {
            if !skipping {
                problems.push(Problem {
                    line: line_no,
                    message: format!("`{line}` is not under any sfen line"),
                });
                skipping = true;
            }
            continue;
        };
        match parse_move_line(line) {
            Ok(m) if !c.legal.contains(&m.mv) => problems.push(Problem {
                line: line_no,
                message: format!("book move {} is not legal in {}", m.mv, c.entry),
            }),
            Ok(m) => c.moves.push(m),
            Err(message) => problems.push(Problem {
                line: line_no,
                message,
            }),
        }
    }
    if let Some(c) = current.take() {
        book.add(c.entry, c.moves);
    }
    // Positions whose every move was thrown out say nothing.
    let empty: Vec<String> = book
        .entries()
        .filter(|(_, moves)| moves.is_empty())
        .map(|(e, _)| e.to_string())
        .collect();
    for e in empty {
        book.set(e, Vec::new());
    }
    (book, problems)
}

pub fn write_move(m: &BookMove, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let ponder = m
        .ponder
        .map_or_else(|| "none".to_string(), |p| p.to_string());
    writeln!(
        out,
        "{} {} {} {} {}",
        m.mv, ponder, m.value, m.depth, m.count
    )
}

pub fn write(book: &Book, out: &mut impl std::io::Write) -> std::io::Result<()> {
    writeln!(out, "{HEADER}")?;
    for (entry, moves) in book.entries() {
        writeln!(out, "sfen {entry}")?;
        for m in moves {
            write_move(m, out)?;
        }
    }
    Ok(())
}
