//! Opening books in YaneuraOu's text format (`#YANEURAOU-DB2016 1.00`), the format shogi GUIs
//! and book tools share:
//!
//! ```text
//! #YANEURAOU-DB2016 1.00
//! sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
//! 7g7f 3c3d 35 20 4
//! 2g2f none 30 20 1
//! ```
//!
//! A `sfen` line opens a position (the ply number is optional), and each line after it is one
//! candidate: `move ponder value depth [count]`, the value in centipawns from the view of the
//! side to move, `none` where there is no ponder move. Files are sorted by their `sfen` lines,
//! which is what lets a large book be searched on disk without loading it ([`FileBook`]).
//!
//! What lives here: the in-memory [`Book`] and its reader/writer ([`format`]), the on-disk
//! search ([`file`]), the choice of a move under the USI options ([`select`]) and the line
//! played from it ([`play`]), and the tools
//! that make books ([`build`], [`think`], driven by `kirin book ...` through [`cli`]).

pub mod build;
pub mod cli;
pub mod file;
pub mod format;
pub mod play;
pub mod select;
pub mod think;

use std::collections::BTreeMap;
use std::path::Path;

use crate::shogi::{Move, PieceType, Position, Square, legal_moves};

pub use file::FileBook;
pub use format::{HEADER, Problem};
pub use play::{BookAnswer, BookLine, BookRequest};
pub use select::{BookOptions, Choice, Rng};

/// The book kirin builds itself and ships; used when `BookFile` names it and no file of that
/// name sits next to the executable. See book/README.md for how it was made.
pub const DEFAULT_BOOK_NAME: &str = "kirin_book.db";
pub static DEFAULT_BOOK: &[u8] = include_bytes!("../../book/kirin_book.db");

/// One candidate move of a book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    /// The expected reply, when the book knows one.
    pub ponder: Option<Move>,
    /// Centipawns from the view of the side that plays `mv`.
    pub value: i32,
    /// Depth of the search that gave `value` (0 when unknown).
    pub depth: i32,
    /// How often the move was played or chosen (1 when the file does not say).
    pub count: u64,
}

/// An in-memory book: `sfen` text (canonical board, side and hands, then the ply number when
/// the file gave one) to its candidates in file order. A `BTreeMap` keeps the file order that
/// YaneuraOu's tools expect (byte order of the `sfen` lines) for free.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: BTreeMap<String, Vec<BookMove>>,
}

/// The matching key of a position: its SFEN without the ply number.
pub fn key_of(pos: &Position) -> String {
    let sfen = pos.to_sfen();
    match sfen.rsplit_once(' ') {
        Some((key, _)) => key.to_string(),
        None => sfen,
    }
}

/// Splits `sfen` text into its key (board side hands) and ply number, if it has one.
pub fn split_ply(text: &str) -> (&str, Option<u32>) {
    let text = text.trim();
    match text.rsplit_once(' ') {
        Some((key, ply)) if key.split(' ').count() == 3 => (key, ply.parse().ok()),
        _ => (text, None),
    }
}

impl Book {
    pub fn new() -> Book {
        Book::default()
    }

    /// Number of positions (entries with different ply numbers count apart).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry as (`sfen` text, moves), in file order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &[BookMove])> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// Adds moves to the entry `sfen` (key plus optional ply); a move already there is kept
    /// as it was, so the first reading of a duplicated position wins.
    pub fn add(&mut self, sfen: String, moves: impl IntoIterator<Item = BookMove>) {
        let list = self.entries.entry(sfen).or_default();
        for m in moves {
            if !list.iter().any(|b| b.mv == m.mv) {
                list.push(m);
            }
        }
    }

    /// Replaces the moves of entry `sfen`; an empty list removes the entry.
    pub fn set(&mut self, sfen: String, moves: Vec<BookMove>) {
        if moves.is_empty() {
            self.entries.remove(&sfen);
        } else {
            self.entries.insert(sfen, moves);
        }
    }

    /// The entry stored under exactly this `sfen` text.
    pub fn get(&self, sfen: &str) -> Option<&[BookMove]> {
        self.entries.get(sfen).map(Vec::as_slice)
    }

    /// The moves of every entry whose key is `key`; with `ply`, only entries with that ply
    /// number or none. Entries of one key are adjacent (a space sorts before any SFEN
    /// character), so this is one range scan.
    pub fn probe(&self, key: &str, ply: Option<u32>) -> Vec<BookMove> {
        let mut moves: Vec<BookMove> = Vec::new();
        for (text, list) in self
            .entries
            .range::<str, _>((std::ops::Bound::Included(key), std::ops::Bound::Unbounded))
        {
            let (k, p) = split_ply(text);
            if k != key {
                break;
            }
            if ply.is_some() && p.is_some() && p != ply {
                continue;
            }
            for m in list {
                if !moves.iter().any(|b| b.mv == m.mv) {
                    moves.push(*m);
                }
            }
        }
        moves
    }

    /// Reads a book from memory; problems (malformed lines, illegal moves) are returned
    /// with their line numbers and the entries or moves concerned are left out.
    pub fn parse(text: &[u8]) -> (Book, Vec<Problem>) {
        format::parse(text)
    }

    /// Reads a book file whole.
    pub fn read(path: &Path) -> std::io::Result<(Book, Vec<Problem>)> {
        let bytes = std::fs::read(path)?;
        Ok(format::parse(&bytes))
    }

    /// Writes the book sorted, in YaneuraOu's format.
    pub fn write(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        format::write(self, out)
    }

    /// Writes to `path` through a temporary file, so an interrupted write never leaves a
    /// half book behind.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            self.write(&mut w)?;
            std::io::Write::flush(&mut w)?;
        }
        std::fs::rename(&tmp, path)
    }
}

/// Where book moves are looked up: a whole book in memory, or a sorted file on disk.
pub enum Source {
    Memory(Book),
    File(FileBook),
}

/// The legal book moves of a position, in the position's own orientation.
#[derive(Debug, Default)]
pub struct Found {
    pub moves: Vec<BookMove>,
    /// Whether they came from the mirror image of the position.
    pub mirrored: bool,
    /// Entries that could not be used (illegal move, unreadable file), to be reported.
    pub problems: Vec<String>,
}

impl Source {
    fn probe_key(&mut self, key: &str, ply: Option<u32>) -> Result<Vec<BookMove>, String> {
        match self {
            Source::Memory(book) => Ok(book.probe(key, ply)),
            Source::File(file) => file.probe(key, ply),
        }
    }

    /// The book moves for `pos`: its own entry, or else that of its left-right mirror image
    /// with the moves mirrored back. With `match_ply`, entries that carry a different ply
    /// number than the position's are ignored. Illegal moves never come out of here.
    pub fn find(&mut self, pos: &Position, match_ply: bool) -> Found {
        let key = key_of(pos);
        let ply = match_ply.then(|| pos.game_ply());
        let mut found = Found::default();
        let legal = legal_moves(pos);
        for mirrored in [false, true] {
            let probe_key = if mirrored {
                let m = mirror_key(&key);
                if m == key {
                    break;
                }
                m
            } else {
                key.clone()
            };
            let moves = match self.probe_key(&probe_key, ply) {
                Ok(moves) => moves,
                Err(e) => {
                    found.problems.push(e);
                    continue;
                }
            };
            if moves.is_empty() {
                continue;
            }
            for mut m in moves {
                if mirrored {
                    m.mv = mirror_move(m.mv);
                    m.ponder = m.ponder.map(mirror_move);
                }
                if !legal.contains(&m.mv) {
                    found.problems.push(format!(
                        "book move {} is not legal in {}",
                        m.mv,
                        pos.to_sfen()
                    ));
                    continue;
                }
                if let Some(reply) = m.ponder {
                    let mut after = pos.clone();
                    after.do_move(m.mv);
                    if !legal_moves(&after).contains(&reply) {
                        m.ponder = None;
                    }
                }
                found.moves.push(m);
            }
            found.mirrored = mirrored;
            break;
        }
        found
    }
}

/// The left-right mirror image of a position key (file f goes to file 10 - f): each rank's
/// tokens in reverse order. Side and hands stay.
pub fn mirror_key(key: &str) -> String {
    let mut fields = key.splitn(2, ' ');
    let board = fields.next().unwrap_or("");
    let rest = fields.next();
    let ranks: Vec<String> = board
        .split('/')
        .map(|rank| {
            let mut tokens: Vec<&str> = Vec::new();
            let mut start = 0;
            let bytes = rank.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'+' && i + 1 < bytes.len() {
                    i += 1;
                }
                tokens.push(&rank[start..=i]);
                i += 1;
                start = i;
            }
            tokens.reverse();
            tokens.concat()
        })
        .collect();
    match rest {
        Some(rest) => format!("{} {rest}", ranks.join("/")),
        None => ranks.join("/"),
    }
}

fn mirror_square(sq: Square) -> Square {
    Square::from_file_rank(8 - sq.file(), sq.rank())
}

/// A move of the mirrored position, or back.
pub fn mirror_move(m: Move) -> Move {
    if m.is_none() {
        m
    } else if m.is_drop() {
        let pt: PieceType = m.dropped();
        Move::drop(pt, mirror_square(m.to()))
    } else {
        Move::normal(
            mirror_square(m.from()),
            mirror_square(m.to()),
            m.is_promotion(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::START_SFEN;

    #[test]
    fn mirror_reverses_files_and_moves() {
        // The start position is no mirror image of itself: rook and bishop change places.
        let start = split_ply(START_SFEN).0;
        assert_eq!(
            mirror_key(start),
            "lnsgkgsnl/1b5r1/ppppppppp/9/9/9/PPPPPPPPP/1R5B1/LNSGKGSNL b -"
        );
        assert_eq!(mirror_key(&mirror_key(start)), start);
        let key = "ln1gkgsnl/1r1s3b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - ";
        let key = key.trim();
        assert_eq!(
            mirror_key(key),
            "lnsgkg1nl/1b3s1r1/ppppppppp/9/9/6P2/PPPPPP1PP/1R5B1/LNSGKGSNL b -"
        );
        assert_eq!(mirror_key(&mirror_key(key)), key);
        assert_eq!(mirror_key("+P8/9 b -"), "8+P/9 b -");
        let m = crate::shogi::parse_syntax("7g7f").unwrap();
        assert_eq!(mirror_move(m).to_string(), "3g3f");
        let d = crate::shogi::parse_syntax("P*1e").unwrap();
        assert_eq!(mirror_move(d).to_string(), "P*9e");
        let p = crate::shogi::parse_syntax("8h2b+").unwrap();
        assert_eq!(mirror_move(p).to_string(), "2h8b+");
    }

    #[test]
    fn ply_numbers_split_off() {
        assert_eq!(split_ply("a b c 12"), ("a b c", Some(12)));
        assert_eq!(split_ply("a b c"), ("a b c", None));
    }
}
