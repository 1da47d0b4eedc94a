//! Training data files in three formats, picked by file name, read and written as streams:
//!
//! * `.sbinpack`: the chained format of `sbinpack.rs` (games as start position, moves, scores);
//! * `.bin`: YaneuraOu's `PackedSfenValue`, 40 bytes a position: packed position (32), score
//!   (i16), move (u16, 16-bit move), move number (u16), result for the side to move (i8: 1 win,
//!   0 draw, -1 loss), one zero byte;
//! * anything else: kirin's text lines `sfen<TAB>score<TAB>result` (result 1, 0.5 or 0 for the
//!   side to move), read through `xz -dc` when the name ends in `.xz`.
//!
//! Every format is read as chains (stretches of games): the text and `.bin` formats have no
//! chains, so consecutive records are joined wherever the next position follows from the
//! previous one by a legal move (the stored move for `.bin`, a search of the legal moves for
//! text). A text chain's last position has no move in the file; it gets the first legal move in
//! sbinpack's order (a quiet board move where there is one) so that its score can be stored.

use super::packed::{move_from16, move16, pack, unpack};
use super::sbinpack::{self, Chain};
use super::smooth::{Smoothing, smooth_all};
use crate::shogi::{Color, Move, Position, legal_moves};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Psv,
    Sbinpack,
}

/// The format a file name stands for.
pub fn format_of(path: &str) -> Format {
    let name = path.strip_suffix(".xz").unwrap_or(path);
    if name.ends_with(".sbinpack") {
        Format::Sbinpack
    } else if name.ends_with(".bin") {
        Format::Psv
    } else {
        Format::Text
    }
}

/// A byte stream from `path`, decompressed through `xz` for `.xz` names.
fn open(path: &str) -> Result<Box<dyn Read>, String> {
    // Opened here for xz too, so that a missing file is an error of its own (xz would only
    // print it); xz reads the open file.
    let f = std::fs::File::open(path).map_err(|e| unreadable(path, &e))?;
    if !path.ends_with(".xz") {
        return Ok(Box::new(BufReader::with_capacity(1 << 16, f)));
    }
    let mut child = std::process::Command::new("xz")
        .arg("-dc")
        .stdin(f)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{path}: cannot run xz ({e})"))?;
    let out = child
        .stdout
        .take()
        .ok_or_else(|| format!("{path}: no xz output"))?;
    Ok(Box::new(BufReader::with_capacity(
        1 << 16,
        Unxz {
            child,
            out,
            path: path.to_string(),
        },
    )))
}

/// Why a data file cannot be read; a missing one says where the seeds that made it are kept.
fn unreadable(path: &str, e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        format!(
            "{path}: {e}; self-play data is made again from its seeds and game numbers \
             (tuning/notes/network.md, \"Seeds used\")"
        )
    } else {
        format!("{path}: {e}")
    }
}

/// `xz -dc`'s output, whose end is an error when xz failed (a cut or damaged file): without
/// the check such a file reads as one that ends early, and a training run goes on with less.
struct Unxz {
    child: std::process::Child,
    out: std::process::ChildStdout,
    path: String,
}

impl Read for Unxz {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.out.read(buf)?;
        if n == 0 && !buf.is_empty() {
            let status = self.child.wait()?;
            if !status.success() {
                return Err(std::io::Error::other(format!(
                    "xz -dc {} failed ({status}): the file is cut or damaged",
                    self.path
                )));
            }
        }
        Ok(n)
    }
}

/// One record of the position formats before joining: position, score and result (side to
/// move's view, `None` when unknown), and the move where the format stores one.
struct Row {
    pos: Position,
    score: i32,
    result: Option<f64>,
    mv: Option<Move>,
}

fn parse_text_row(line: &str) -> Result<Row, String> {
    let mut it = line.split('\t');
    let (Some(sfen), Some(score), Some(result)) = (it.next(), it.next(), it.next()) else {
        return Err("expected 3 fields".into());
    };
    Ok(Row {
        pos: Position::from_sfen(sfen).map_err(|e| e.to_string())?,
        score: score.trim().parse().map_err(|_| "bad score")?,
        result: Some(result.trim().parse().map_err(|_| "bad result")?),
        mv: None,
    })
}

fn parse_psv_row(rec: &[u8; 40]) -> Result<Row, String> {
    let packed: &[u8; 32] = rec[..32].try_into().map_err(|_| "short record")?;
    let ply = u16::from_le_bytes([rec[36], rec[37]]);
    let pos = unpack(packed, u32::from(ply))?;
    let raw = u16::from_le_bytes([rec[34], rec[35]]);
    let mv = if raw == 0 {
        None
    } else {
        Some(move_from16(&pos, raw).ok_or_else(|| format!("move {raw:#06x} is not legal"))?)
    };
    Ok(Row {
        score: i32::from(i16::from_le_bytes([rec[32], rec[33]])),
        result: Some(match rec[38] as i8 {
            1.. => 1.0,
            0 => 0.5,
            _ => 0.0,
        }),
        mv,
        pos,
    })
}

/// Reads a file of any of the formats as chains, in file order.
pub struct ChainReader {
    inner: Inner,
    /// A position read but not yet placed in a chain.
    pending: Option<Row>,
    /// Records read (lines for text), for error messages.
    count: usize,
    path: String,
}

enum Inner {
    Text(std::io::Lines<Box<dyn BufRead>>),
    Psv(Box<dyn Read>),
    Sbinpack(sbinpack::Reader<Box<dyn Read>>),
}

impl ChainReader {
    pub fn open(path: &str) -> Result<ChainReader, String> {
        let input = open(path)?;
        let inner = match format_of(path) {
            Format::Text => {
                let b: Box<dyn BufRead> = Box::new(BufReader::new(input));
                Inner::Text(b.lines())
            }
            Format::Psv => Inner::Psv(input),
            Format::Sbinpack => Inner::Sbinpack(sbinpack::Reader::new(input)),
        };
        Ok(ChainReader {
            inner,
            pending: None,
            count: 0,
            path: path.to_string(),
        })
    }

    fn next_row(&mut self) -> Result<Option<Row>, String> {
        if let Some(r) = self.pending.take() {
            return Ok(Some(r));
        }
        loop {
            self.count += 1;
            let n = self.count;
            let at = |e: String| format!("record {n}: {e}");
            match &mut self.inner {
                Inner::Text(lines) => match lines.next() {
                    None => return Ok(None),
                    Some(line) => {
                        let line = line.map_err(|e| at(e.to_string()))?;
                        if line.trim().is_empty() {
                            continue;
                        }
                        return parse_text_row(&line).map(Some).map_err(at);
                    }
                },
                Inner::Psv(input) => {
                    let mut rec = [0u8; 40];
                    let mut got = 0;
                    while got < rec.len() {
                        match input.read(&mut rec[got..]) {
                            Ok(0) => break,
                            Ok(n) => got += n,
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(at(e.to_string())),
                        }
                    }
                    return match got {
                        0 => Ok(None),
                        40 => parse_psv_row(&rec).map(Some).map_err(at),
                        _ => Err(at("truncated: the file is not whole 40-byte records".into())),
                    };
                }
                Inner::Sbinpack(_) => return Ok(None),
            }
        }
    }

    /// The next chain, `None` at the end.
    pub fn next_chain(&mut self) -> Result<Option<Chain>, String> {
        let res = self.chain_inner();
        res.map_err(|e| format!("{}: {e}", self.path))
    }

    fn chain_inner(&mut self) -> Result<Option<Chain>, String> {
        if let Inner::Sbinpack(r) = &mut self.inner {
            self.count += 1;
            return r.next_chain().transpose();
        }
        let Some(first) = self.next_row()? else {
            return Ok(None);
        };
        let black = |r: &Row| match r.result {
            Some(x) if r.pos.side_to_move() == Color::White => Some(1.0 - x),
            x => x,
        };
        let mut chain = Chain {
            start: first.pos.clone(),
            moves: Vec::new(),
            scores: Vec::new(),
            result: sbinpack::result_code(black(&first)),
            stem_score: 0,
            metadata: Vec::new(),
        };
        let mut cur = first;
        loop {
            let next = self.next_row()?;
            // The move from `cur` to `next`, when `next` follows `cur` directly.
            let link = next.as_ref().and_then(|n| {
                if n.pos.game_ply() != cur.pos.game_ply() + 1 {
                    return None;
                }
                let leads = |m: Move| {
                    let mut p = cur.pos.clone();
                    p.do_move(m);
                    p.key() == n.pos.key()
                };
                match cur.mv {
                    Some(m) => leads(m).then_some(m),
                    None => legal_moves(&cur.pos).into_iter().find(|&m| leads(m)),
                }
            });
            let mv = match (link, cur.mv) {
                (Some(m), _) | (None, Some(m)) => m,
                (None, None) => match sbinpack::ordered_moves(&cur.pos).first() {
                    Some(&m) => m,
                    // No legal move: the position cannot be stored in a chain.
                    None => return Err("a position without legal moves".into()),
                },
            };
            chain.moves.push(mv);
            chain.scores.push(cur.score);
            match (link, next) {
                (Some(_), Some(n)) => cur = n,
                (_, n) => {
                    self.pending = n;
                    return Ok(Some(chain));
                }
            }
        }
    }
}

/// A training position as the readers hand it out.
pub struct Entry<'a> {
    pub pos: &'a Position,
    /// Search score from the side to move's view.
    pub score: i32,
    /// 1 win, 0.5 draw, 0 loss for the side to move.
    pub result: f64,
    pub game: u32,
}

/// Positions the trainers leave out of binary data, as the generator leaves them out of its
/// text: in check, or the move played a capture or a promotion, or a score past the
/// adjudication margin.
fn quiet(pos: &Position, m: Move, score: i32) -> bool {
    !pos.in_check()
        && super::selfplay::is_quiet(pos, m)
        && score.abs() < super::selfplay::ADJUDICATE_CP
}

/// Streams every training position of `path` to `f`, numbering games from `first_game`: a new
/// game starts wherever the move number does not increase. Text positions are all passed on
/// (the generator wrote only quiet ones); binary ones only quiet ones with a known result.
/// `smooth` labels the positions of chained games with their scores smoothed along the game
/// (`smooth.rs`; which positions are kept still goes by the score itself); other formats keep
/// their scores. Returns the number the next file's first game gets.
pub fn for_each_position(
    path: &str,
    first_game: u32,
    smooth: Smoothing,
    mut f: impl FnMut(Entry) -> Result<(), String>,
) -> Result<u32, String> {
    let format = format_of(path);
    let mut reader = ChainReader::open(path)?;
    let (mut game, mut last_ply, mut any) = (first_game, 0u32, false);
    let mut visit =
        |pos: &Position, mv: Option<Move>, score: i32, label: i32, result: Option<f64>| {
            let ply = pos.game_ply();
            if any && ply <= last_ply {
                game += 1;
            }
            (any, last_ply) = (true, ply);
            let keep = format == Format::Text || mv.is_some_and(|m| quiet(pos, m, score));
            match result {
                Some(result) if keep => f(Entry {
                    pos,
                    score: label,
                    result,
                    game,
                }),
                _ => Ok(()),
            }
        };
    if format == Format::Sbinpack {
        while let Some(chain) = reader.next_chain()? {
            let mut pos = chain.start.clone();
            let black = sbinpack::black_result(chain.result);
            let smoothed = smooth_all(&chain.scores, smooth);
            let labels = smoothed.as_deref().unwrap_or(&chain.scores);
            for ((&m, &score), &label) in chain.moves.iter().zip(&chain.scores).zip(labels) {
                let stm = if pos.side_to_move() == Color::Black {
                    black
                } else {
                    black.map(|b| 1.0 - b)
                };
                visit(&pos, Some(m), score, label, stm)?;
                pos.do_move(m);
            }
        }
    } else {
        // Positions one at a time: joining them into chains is only needed for conversion.
        while let Some(row) = reader.next_row().map_err(|e| format!("{path}: {e}"))? {
            visit(&row.pos, row.mv, row.score, row.score, row.result)?;
        }
    }
    Ok(if any { game + 1 } else { first_game })
}

/// Reads every training position of `paths` into `T`s made in parallel by `make(position,
/// score, result, game)`, a batch at a time, so that only the made values are held; `smooth` as
/// in [`for_each_position`].
pub fn read_positions<T: Send>(
    paths: &[&str],
    smooth: Smoothing,
    make: impl Fn(&Position, f64, f64, u32) -> T + Sync,
) -> Result<Vec<T>, String> {
    use rayon::prelude::*;
    const BATCH: usize = 1 << 14;
    let mut out = Vec::new();
    let mut batch: Vec<(Position, i32, f64, u32)> = Vec::with_capacity(BATCH);
    let flush = |batch: &mut Vec<(Position, i32, f64, u32)>, out: &mut Vec<T>| {
        out.par_extend(
            batch
                .par_iter()
                .map(|(p, s, r, g)| make(p, f64::from(*s), *r, *g)),
        );
        batch.clear();
    };
    let mut game = 0;
    for path in paths {
        game = for_each_position(path, game, smooth, |e| {
            batch.push((e.pos.clone(), e.score, e.result, e.game));
            if batch.len() == BATCH {
                flush(&mut batch, &mut out);
            }
            Ok(())
        })?;
    }
    flush(&mut batch, &mut out);
    Ok(out)
}

/// Writes chains to a file in the format its name picks (`.xz` is not written).
pub enum ChainWriter {
    Text(BufWriter<std::fs::File>),
    Psv(BufWriter<std::fs::File>),
    Sbinpack(sbinpack::Writer<BufWriter<std::fs::File>>),
}

impl ChainWriter {
    pub fn create(path: &str) -> Result<ChainWriter, String> {
        if path.ends_with(".xz") {
            return Err(format!(
                "{path}: compress after writing (xz); it is not written"
            ));
        }
        let f = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
        let w = BufWriter::with_capacity(1 << 16, f);
        Ok(match format_of(path) {
            Format::Text => ChainWriter::Text(w),
            Format::Psv => ChainWriter::Psv(w),
            Format::Sbinpack => ChainWriter::Sbinpack(sbinpack::Writer::new(w)),
        })
    }

    pub fn write(&mut self, chain: &Chain) -> Result<(), String> {
        let io = |e: std::io::Error| e.to_string();
        let black = sbinpack::black_result(chain.result);
        let (out, psv) = match self {
            ChainWriter::Sbinpack(w) => return w.write(chain),
            ChainWriter::Text(w) => (w, false),
            ChainWriter::Psv(w) => (w, true),
        };
        let mut pos = chain.start.clone();
        for (&m, &score) in chain.moves.iter().zip(&chain.scores) {
            let stm = black.map(|b| {
                if pos.side_to_move() == Color::Black {
                    b
                } else {
                    1.0 - b
                }
            });
            if psv {
                let mut rec = [0u8; 40];
                rec[..32].copy_from_slice(&pack(&pos)?);
                let clamped = score.clamp(-32000, 32000) as i16;
                rec[32..34].copy_from_slice(&clamped.to_le_bytes());
                rec[34..36].copy_from_slice(&move16(m).to_le_bytes());
                let ply = pos.game_ply().min(u32::from(u16::MAX)) as u16;
                rec[36..38].copy_from_slice(&ply.to_le_bytes());
                // An unknown result is written as a draw: the format has no other value.
                rec[38] = match stm {
                    Some(r) if r > 0.75 => 1,
                    Some(r) if r < 0.25 => (-1i8) as u8,
                    _ => 0,
                };
                out.write_all(&rec).map_err(io)?;
            } else if let Some(r) = stm {
                // The text format has no unknown result; such positions are left out.
                writeln!(out, "{}\t{score}\t{r}", pos.to_sfen()).map_err(io)?;
            }
            pos.do_move(m);
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), String> {
        let mut w = match self {
            ChainWriter::Sbinpack(w) => w.finish()?,
            ChainWriter::Text(w) | ChainWriter::Psv(w) => w,
        };
        w.flush().map_err(|e| e.to_string())
    }
}

/// Converts `input` to `output`, formats by file name, a chain at a time. Returns the chains
/// and positions converted.
pub fn convert(input: &str, output: &str) -> Result<(usize, usize), String> {
    let mut reader = ChainReader::open(input)?;
    let mut writer = ChainWriter::create(output)?;
    let (mut chains, mut positions) = (0, 0);
    while let Some(chain) = reader.next_chain()? {
        writer.write(&chain).map_err(|e| format!("{output}: {e}"))?;
        chains += 1;
        positions += chain.moves.len();
    }
    writer.finish().map_err(|e| format!("{output}: {e}"))?;
    Ok((chains, positions))
}
