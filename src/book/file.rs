//! A sorted book searched on disk, for books too large to load: a binary search over byte
//! offsets that lands anywhere in the file and resynchronises on the next `sfen ` line, then
//! a short forward scan. YaneuraOu's tools write books sorted this way; `kirin book merge`
//! sorts any book.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::BookMove;
use super::format::parse_move_line;
use super::split_ply;

/// Below this many bytes between the bounds, the search reads forward instead of halving.
const SCAN_BYTES: u64 = 1024;

pub struct FileBook {
    path: PathBuf,
    reader: BufReader<File>,
    len: u64,
}

/// A `sfen` line found at `offset`, with the offset of the line after it.
struct Found {
    offset: u64,
    next: u64,
    text: String,
}

impl FileBook {
    pub fn open(path: &Path) -> std::io::Result<FileBook> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FileBook {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(SCAN_BYTES as usize, file),
            len,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_line(&mut self, line: &mut Vec<u8>) -> std::io::Result<usize> {
        line.clear();
        self.reader.read_until(b'\n', line)
    }

    /// The first `sfen` line that starts at or after `from`.
    fn next_sfen(&mut self, from: u64) -> std::io::Result<Option<Found>> {
        let mut offset = from;
        let mut line = Vec::new();
        // Unless `from` starts a line, the partial line there is not a record.
        if from > 0 {
            self.reader.seek(SeekFrom::Start(from - 1))?;
            offset = from - 1 + self.read_line(&mut line)? as u64;
        } else {
            self.reader.seek(SeekFrom::Start(0))?;
        }
        loop {
            let n = self.read_line(&mut line)?;
            if n == 0 {
                return Ok(None);
            }
            if let Some(rest) = line.strip_prefix(b"sfen ") {
                let text = String::from_utf8_lossy(rest).trim().to_string();
                return Ok(Some(Found {
                    offset,
                    next: offset + n as u64,
                    text,
                }));
            }
            offset += n as u64;
        }
    }

    /// The moves of every entry whose key is `key` (and, with `ply`, whose ply number is that
    /// or absent), syntax-checked only: the caller checks legality. Malformed move lines are
    /// an error naming their byte offset.
    pub fn probe(&mut self, key: &str, ply: Option<u32>) -> Result<Vec<BookMove>, String> {
        self.search(key, ply)
            .map_err(|e| format!("book {}: {e}", self.path.display()))
    }

    fn search(&mut self, key: &str, ply: Option<u32>) -> Result<Vec<BookMove>, String> {
        let io = |e: std::io::Error| e.to_string();
        // Every entry starting before `lo` has a smaller key; every one starting at or after
        // `hi` has a key at least `key`.
        let (mut lo, mut hi) = (0u64, self.len);
        while hi - lo > SCAN_BYTES {
            let mid = lo + (hi - lo) / 2;
            match self.next_sfen(mid).map_err(io)? {
                Some(found) if found.offset < hi && split_ply(&found.text).0 < key => {
                    lo = found.next;
                }
                // Nothing starts in [mid, hi), or what does is not smaller.
                _ => hi = mid,
            }
        }
        let mut moves: Vec<BookMove> = Vec::new();
        let Some(mut found) = self.next_sfen(lo).map_err(io)? else {
            return Ok(moves);
        };
        loop {
            let (k, p) = split_ply(&found.text);
            if k > key {
                return Ok(moves);
            }
            let wanted = k == key && (ply.is_none() || p.is_none() || p == ply);
            // The move lines follow the `sfen` line directly; the reader is there now.
            let mut offset = found.next;
            let mut line = Vec::new();
            let next = loop {
                let n = self.read_line(&mut line).map_err(io)?;
                if n == 0 {
                    break None;
                }
                if let Some(rest) = line.strip_prefix(b"sfen ") {
                    break Some(Found {
                        offset,
                        next: offset + n as u64,
                        text: String::from_utf8_lossy(rest).trim().to_string(),
                    });
                }
                let text = String::from_utf8_lossy(&line);
                let text = text.trim();
                if wanted && !text.is_empty() && !text.starts_with('#') && !text.starts_with("//") {
                    let m = parse_move_line(text).map_err(|e| format!("byte {offset}: {e}"))?;
                    if !moves.iter().any(|b| b.mv == m.mv) {
                        moves.push(m);
                    }
                }
                offset += n as u64;
            };
            match next {
                Some(n) => found = n,
                None => return Ok(moves),
            }
        }
    }

    /// Reads the whole file's `sfen` lines in order and says where the first one out of order
    /// is, since a binary search in an unsorted file silently misses entries.
    pub fn check_sorted(&mut self) -> Result<(), String> {
        self.reader
            .seek(SeekFrom::Start(0))
            .map_err(|e| e.to_string())?;
        let mut previous = String::new();
        let mut line = Vec::new();
        let mut line_no = 0;
        loop {
            line.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Ok(());
            }
            line_no += 1;
            if let Some(rest) = line.strip_prefix(b"sfen ") {
                let text = String::from_utf8_lossy(rest);
                let key = split_ply(&text).0.to_string();
                if key < previous {
                    return Err(format!(
                        "book {} is not sorted at line {line_no}",
                        self.path.display()
                    ));
                }
                previous = key;
            }
        }
    }
}
