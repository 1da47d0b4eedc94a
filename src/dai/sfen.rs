//! Dai SFEN: 15 ranks of 15 files (empty runs may take two digits), the side to move, `-` for
//! the hands dai shogi does not have, and an optional move number. Letters as in the rules
//! document: `L`, `A'` (apostrophe kinds), `L!` (lion), `+` for promoted pieces.

use super::attacks::SQ_TO_MB;
use super::position::{Position, StateInfo};
use super::types::{FILES, Move, Piece, PieceType, RANKS, Square};
use crate::shogi::{Color, write_sfen_rank};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DaiSfenError {
    /// Not board and side (then optionally hands and move number).
    FieldCount(usize),
    RankCount(usize),
    /// 1-based rank number and the number of squares it described.
    RankLength {
        rank: usize,
        squares: usize,
    },
    /// A letter (with its suffix) that names no dai piece.
    UnknownPiece(String),
    /// `+` before a piece that cannot promote, or a dangling `+`.
    BadPromotion(String),
    /// An empty run of 0 or more than 15 squares.
    BadRun(String),
    BadSide(String),
    BadHand(String),
    BadPly(String),
}

impl fmt::Display for DaiSfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DaiSfenError::FieldCount(n) => write!(
                f,
                "expected dai board and side (then '-' and a move number), found {n} fields"
            ),
            DaiSfenError::RankCount(n) => write!(f, "dai board has {n} ranks, expected 15"),
            DaiSfenError::RankLength { rank, squares } => write!(
                f,
                "rank {rank} describes {squares} squares, expected 15 on the dai board"
            ),
            DaiSfenError::UnknownPiece(s) => write!(f, "unknown dai piece {s:?}"),
            DaiSfenError::BadPromotion(s) => {
                write!(f, "bad promotion {s:?}: that piece cannot promote")
            }
            DaiSfenError::BadRun(s) => write!(f, "bad empty-square count {s:?} (1 to 15)"),
            DaiSfenError::BadSide(s) => write!(f, "bad side to move {s:?} (expected b or w)"),
            DaiSfenError::BadHand(s) => {
                write!(f, "bad hands {s:?}: dai shogi has no drops, expected -")
            }
            DaiSfenError::BadPly(s) => write!(f, "bad move number {s:?}"),
        }
    }
}

impl std::error::Error for DaiSfenError {}

/// Reads one rank's pieces: `None` for an empty run of that many squares.
fn parse_rank(text: &str) -> Result<Vec<Option<Piece>>, DaiSfenError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(FILES);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let mut j = i;
            while j < chars.len() && j < i + 2 && chars[j].is_ascii_digit() {
                j += 1;
            }
            let run: String = chars[i..j].iter().collect();
            let n: usize = run.parse().unwrap_or(0);
            if n == 0 || n > FILES || run.starts_with('0') {
                return Err(DaiSfenError::BadRun(run));
            }
            out.extend(std::iter::repeat_n(None, n));
            i = j;
            continue;
        }
        let promoted = c == '+';
        let at = if promoted { i + 1 } else { i };
        let Some(&letter) = chars.get(at).filter(|l| l.is_ascii_alphabetic()) else {
            let shown: String = chars[i..(at + 1).min(chars.len())].iter().collect();
            return Err(if promoted {
                DaiSfenError::BadPromotion(shown)
            } else {
                DaiSfenError::UnknownPiece(shown)
            });
        };
        let mut end = at + 1;
        if matches!(chars.get(end), Some('\'') | Some('!')) {
            end += 1;
        }
        let word: String = chars[i..end].iter().collect();
        let color = if letter.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let upper: String = chars[at..end]
            .iter()
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let Some(base) = PieceType::from_letters(&upper) else {
            return Err(DaiSfenError::UnknownPiece(word));
        };
        let kind = if promoted {
            base.promote()
                .ok_or_else(|| DaiSfenError::BadPromotion(word.clone()))?
        } else {
            base
        };
        out.push(Some(Piece::new(kind, color)));
        i = end;
    }
    Ok(out)
}

impl Position {
    pub fn from_sfen(text: &str) -> Result<Position, DaiSfenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if !(2..=4).contains(&fields.len()) {
            return Err(DaiSfenError::FieldCount(fields.len()));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != RANKS {
            return Err(DaiSfenError::RankCount(ranks.len()));
        }
        let mut pos = Position::empty();
        for (r, rank_text) in ranks.iter().enumerate() {
            let cells = parse_rank(rank_text)?;
            if cells.len() != FILES {
                return Err(DaiSfenError::RankLength {
                    rank: r + 1,
                    squares: cells.len(),
                });
            }
            for (i, cell) in cells.into_iter().enumerate() {
                if let Some(p) = cell {
                    // The first cell of a rank is file 15.
                    let file = (FILES - i) as u8;
                    if let Some(sq) = Square::new(file, r as u8) {
                        pos.put(SQ_TO_MB[sq.index()] as usize, p.raw());
                    }
                }
            }
        }
        pos.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(DaiSfenError::BadSide(s.to_string())),
        };
        if let Some(&h) = fields.get(2)
            && h != "-"
        {
            return Err(DaiSfenError::BadHand(h.to_string()));
        }
        if let Some(&n) = fields.get(3) {
            pos.start_ply = match n.parse::<u32>() {
                Ok(v) if (1..=1_000_000).contains(&v) => v,
                _ => return Err(DaiSfenError::BadPly(n.to_string())),
            };
        }
        let key = pos.compute_key();
        pos.states.push(StateInfo {
            key,
            captured: [0; 2],
            last_move: Move::NONE,
            reversible: 0,
            null: false,
            declined: 0,
        });
        Ok(pos)
    }

    /// Canonical SFEN: the same text `from_sfen` reads, with the current move number.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(160);
        for rank in 0..RANKS as u8 {
            if rank > 0 {
                s.push('/');
            }
            let squares = (1..=FILES as u8).rev().map(|file| {
                let sq = Square::new(file, rank)?;
                Some(self.piece_on(sq)).filter(|p| !p.is_none())
            });
            write_sfen_rank(&mut s, squares);
        }
        s.push_str(match self.side {
            Color::Black => " b - ",
            Color::White => " w - ",
        });
        s.push_str(&self.game_ply().to_string());
        s
    }
}
