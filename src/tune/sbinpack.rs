//! The chained `sbinpack` (version 2, magic `SBN2`) that ShogiArena and rsshogi write: a game as
//! its start position, its moves (each the index of the move among the position's legal moves in
//! a fixed order) and one score per move, two or three bytes a position. Written from rsshogi's
//! published definition (MIT) and checked against rsshogi itself in `tests/data_formats.rs`.
//!
//! ```text
//! file  = chunk*                chunk = "SBN2" size(u32) chain*     (little-endian throughout)
//! chain = packed position(32) stem score(i16) first move(u16, 16-bit move)
//!         ply and result(u16: ply in bits 0-9, result code in bits 10-15)
//!         metadata length(u8, at most 127) metadata  count(u16)  (move index, score delta)*count
//! ```
//! Move indices and score deltas are unsigned LEB128; a delta is zigzag-coded and taken between
//! the scores seen from the chain start's side to move (odd moves negated), the first from the
//! stem score. The score of move `i` is the search score of the position before it.

use super::packed::{move16, pack, unpack};
use crate::shogi::{Color, Move, PieceType, Position, legal_moves};
use std::io::{Read, Write};

pub const MAGIC: &[u8; 4] = b"SBN2";
/// Chains are gathered into chunks of about this many bytes before they are written, so that a
/// reader never holds more than one such chunk.
const CHUNK_TARGET: usize = 1 << 20;

/// A game or a stretch of one: the format's chain.
#[derive(Clone, Debug)]
pub struct Chain {
    /// The position before the first move; its move number is the chain's ply.
    pub start: Position,
    pub moves: Vec<Move>,
    /// The search score of the position before each move, from its side to move's view.
    pub scores: Vec<i32>,
    /// The game's result as rsshogi's `GameResult` code (see `black_result`).
    pub result: u8,
    pub stem_score: i16,
    pub metadata: Vec<u8>,
}

/// Result codes written for kirin's own games.
pub const BLACK_WIN: u8 = 0;
pub const WHITE_WIN: u8 = 1;
pub const DRAW: u8 = 2;
/// "Invalid": no result known.
pub const NO_RESULT: u8 = 7;

/// A result code as 1 (Black won), 0.5 (draw) or 0 (White won); `None` for codes that carry no
/// result (error, invalid, paused, unknown).
pub fn black_result(code: u8) -> Option<f64> {
    match code {
        0 | 4 | 8 | 12 | 16 | 20 => Some(1.0),
        1 | 5 | 9 | 13 | 17 | 21 => Some(0.0),
        2 | 6 | 10 | 14 => Some(0.5),
        _ => None,
    }
}

/// The code written for a result from Black's view.
pub fn result_code(black: Option<f64>) -> u8 {
    match black {
        Some(r) if r > 0.75 => BLACK_WIN,
        Some(r) if r < 0.25 => WHITE_WIN,
        Some(_) => DRAW,
        None => NO_RESULT,
    }
}

/// Files from the middle out: 5, 4, 6, 3, 7, 2, 8, 1, 9 (indexed by file - 1).
const FILE_PRIORITY: [u8; 9] = [7, 5, 3, 1, 0, 2, 4, 6, 8];

fn kind_priority(pt: PieceType) -> u8 {
    use PieceType::*;
    match pt {
        Pawn => 0,
        Lance => 1,
        Knight => 2,
        Silver => 3,
        Gold => 4,
        Bishop => 5,
        Rook => 6,
        King => 7,
        ProPawn => 8,
        ProLance => 9,
        ProKnight => 10,
        ProSilver => 11,
        Horse => 12,
        Dragon => 13,
    }
}

/// The format's move order: board moves before drops, quiet before captures, plain before
/// promotions, then by kind, destination rank (forwards first) and file (middle first), origin
/// rank and file, all seen from the side to move.
fn order_key(pos: &Position, m: Move) -> (u8, u8, u8, u8, u8, u8, u8, u8, u16) {
    let us = pos.side_to_move();
    let view = |sq: crate::shogi::Square| if us == Color::Black { sq } else { sq.flip() };
    let to = view(m.to());
    let (drop, capture, kind, from_rank, from_file) = if m.is_drop() {
        (1, 0, m.dropped(), 9, 9)
    } else {
        let from = view(m.from());
        (
            0,
            u8::from(pos.piece_on(m.to()).is_some()),
            pos.piece_on(m.from()).kind(),
            from.rank(),
            FILE_PRIORITY[from.file() as usize],
        )
    };
    (
        drop,
        capture,
        u8::from(m.is_promotion()),
        kind_priority(kind),
        to.rank(),
        FILE_PRIORITY[to.file() as usize],
        from_rank,
        from_file,
        move16(m),
    )
}

/// Every legal move of `pos` in the format's order.
pub fn ordered_moves(pos: &Position) -> Vec<Move> {
    let mut moves: Vec<(_, Move)> = legal_moves(pos)
        .into_iter()
        .map(|m| (order_key(pos, m), m))
        .collect();
    moves.sort_unstable_by_key(|&(k, _)| k);
    moves.into_iter().map(|(_, m)| m).collect()
}

fn put_uleb(mut v: u32, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

fn unzigzag(v: u32) -> i32 {
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

/// Appends `chain` in the format to `out`.
pub fn encode_chain(chain: &Chain, out: &mut Vec<u8>) -> Result<(), String> {
    if chain.moves.len() != chain.scores.len() {
        return Err("a chain needs one score per move".into());
    }
    let count = u16::try_from(chain.moves.len()).map_err(|_| "chain longer than 65535 moves")?;
    if chain.metadata.len() > 127 {
        return Err("chain metadata longer than 127 bytes".into());
    }
    out.extend_from_slice(&pack(&chain.start)?);
    out.extend_from_slice(&chain.stem_score.to_le_bytes());
    out.extend_from_slice(&chain.moves.first().map_or(0, |&m| move16(m)).to_le_bytes());
    let ply = chain.start.game_ply().min(1023) as u16;
    out.extend_from_slice(&(u16::from(chain.result & 0x3f) << 10 | ply).to_le_bytes());
    out.push(chain.metadata.len() as u8);
    out.extend_from_slice(&chain.metadata);
    out.extend_from_slice(&count.to_le_bytes());
    let mut pos = chain.start.clone();
    let mut prev = i32::from(chain.stem_score);
    for (i, (&m, &score)) in chain.moves.iter().zip(&chain.scores).enumerate() {
        let index = ordered_moves(&pos)
            .iter()
            .position(|&x| x == m)
            .ok_or_else(|| format!("move {i} of a chain is not legal"))?;
        put_uleb(index as u32, out);
        let norm = if i % 2 == 0 { score } else { -score };
        let delta = norm.checked_sub(prev).ok_or("score difference overflows")?;
        put_uleb(zigzag(delta), out);
        prev = norm;
        pos.do_move(m);
    }
    Ok(())
}

/// Writes chains into chunks of about a megabyte.
pub struct Writer<W: Write> {
    out: W,
    chunk: Vec<u8>,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer {
            out,
            chunk: Vec::new(),
        }
    }

    pub fn write(&mut self, chain: &Chain) -> Result<(), String> {
        encode_chain(chain, &mut self.chunk)?;
        if self.chunk.len() >= CHUNK_TARGET {
            self.flush_chunk()?;
        }
        Ok(())
    }

    fn flush_chunk(&mut self) -> Result<(), String> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let size = u32::try_from(self.chunk.len()).map_err(|_| "chunk over 4 GiB")?;
        let io = |e: std::io::Error| e.to_string();
        self.out.write_all(MAGIC).map_err(io)?;
        self.out.write_all(&size.to_le_bytes()).map_err(io)?;
        self.out.write_all(&self.chunk).map_err(io)?;
        self.chunk.clear();
        Ok(())
    }

    /// Writes what is gathered and hands back the output.
    pub fn finish(mut self) -> Result<W, String> {
        self.flush_chunk()?;
        self.out.flush().map_err(|e| e.to_string())?;
        Ok(self.out)
    }
}

/// Reads chains one at a time, holding one chunk.
pub struct Reader<R: Read> {
    input: R,
    chunk: Vec<u8>,
    at: usize,
}

impl<R: Read> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            chunk: Vec::new(),
            at: 0,
        }
    }

    /// The next chain, `None` at the end of the input.
    pub fn next_chain(&mut self) -> Option<Result<Chain, String>> {
        while self.at >= self.chunk.len() {
            match self.read_chunk() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        let mut at = self.at;
        let res = decode_chain(&self.chunk, &mut at);
        // After an error nothing further can be trusted.
        self.at = if res.is_ok() { at } else { self.chunk.len() };
        if res.is_err() {
            self.chunk.clear();
            self.at = 0;
        }
        Some(res)
    }

    fn read_chunk(&mut self) -> Result<bool, String> {
        let mut header = [0u8; 8];
        let mut got = 0;
        while got < 8 {
            match self.input.read(&mut header[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err("sbinpack: truncated chunk header".into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        if &header[..4] != MAGIC {
            return Err("sbinpack: not an SBN2 chunk".into());
        }
        let size = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        self.chunk.resize(size, 0);
        self.input
            .read_exact(&mut self.chunk)
            .map_err(|e| format!("sbinpack: truncated chunk ({e})"))?;
        self.at = 0;
        Ok(true)
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Chain, String>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_chain()
    }
}

fn take<'a>(data: &'a [u8], at: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let end = at
        .checked_add(n)
        .filter(|&e| e <= data.len())
        .ok_or("sbinpack: chain runs past its chunk")?;
    let s = &data[*at..end];
    *at = end;
    Ok(s)
}

fn get_uleb(data: &[u8], at: &mut usize) -> Result<u32, String> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let b = take(data, at, 1)?[0];
        v |= u32::from(b & 0x7f)
            .checked_shl(shift)
            .ok_or("sbinpack: number too long")?;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("sbinpack: number too long".into())
}

/// Reads one chain from `data` at `at`, replaying its moves.
pub fn decode_chain(data: &[u8], at: &mut usize) -> Result<Chain, String> {
    let stem = take(data, at, 38)?;
    let packed: [u8; 32] = stem[..32].try_into().map_err(|_| "sbinpack: short stem")?;
    let stem_score = i16::from_le_bytes([stem[32], stem[33]]);
    let ply_result = u16::from_le_bytes([stem[36], stem[37]]);
    let len = usize::from(take(data, at, 1)?[0]);
    if len > 127 {
        return Err("sbinpack: metadata longer than 127 bytes".into());
    }
    let metadata = take(data, at, len)?.to_vec();
    let c = take(data, at, 2)?;
    let count = usize::from(u16::from_le_bytes([c[0], c[1]]));
    let start = unpack(&packed, u32::from(ply_result & 0x3ff))?;
    let mut pos = start.clone();
    let (mut moves, mut scores) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let mut prev = i32::from(stem_score);
    for i in 0..count {
        let index = get_uleb(data, at)? as usize;
        let m = *ordered_moves(&pos)
            .get(index)
            .ok_or_else(|| format!("sbinpack: move {i} of a chain has no legal move {index}"))?;
        let norm = prev
            .checked_add(unzigzag(get_uleb(data, at)?))
            .ok_or("sbinpack: score overflows")?;
        scores.push(if i % 2 == 0 { norm } else { -norm });
        prev = norm;
        moves.push(m);
        pos.do_move(m);
    }
    Ok(Chain {
        start,
        moves,
        scores,
        result: (ply_result >> 10) as u8,
        stem_score,
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips() {
        for v in [0, 1, -1, 63, -64, 1000, -32000, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(10), 20);
        assert_eq!(zigzag(-1), 1);
    }

    #[test]
    fn the_published_example_decodes() {
        // rsshogi's `to_sbinpack` for 7g7f (10) 3c3d (-20) 8h2b+ (300), Black won.
        let hex = "53424e323000000058a451220ceb67227e9653221caf447824c22b119e53221ceb6f22\
                   3e9651220c00003b1e01000003000414041426b004";
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let chains: Vec<Chain> = Reader::new(&bytes[..]).map(Result::unwrap).collect();
        assert_eq!(chains.len(), 1);
        let c = &chains[0];
        let text: Vec<String> = c.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(text, ["7g7f", "3c3d", "8h2b+"]);
        assert_eq!(c.scores, [10, -20, 300]);
        assert_eq!(black_result(c.result), Some(1.0));
        let mut w = Writer::new(Vec::new());
        w.write(c).unwrap();
        assert_eq!(w.finish().unwrap(), bytes);
        // Damaged input is an error, never a wrong game.
        let first_err = |data: &[u8]| Reader::new(data).find_map(Result::err);
        assert!(first_err(&bytes[..bytes.len() - 1]).is_some(), "truncated");
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(first_err(&bad).is_some(), "magic");
        let mut bad = bytes.clone();
        bad[8 + 41] = 200; // the first move's index: no position has 200 legal moves here
        assert!(first_err(&bad).is_some(), "move index");
        let mut bad = bytes.clone();
        bad[8 + 38] = 128; // metadata longer than the format allows
        assert!(first_err(&bad).is_some(), "metadata");
    }
}
