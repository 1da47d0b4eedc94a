//! Yari SFEN: 9 ranks of 7 files, side, hands (R B N P) and an optional move number. Reading
//! checks every rule of a legal setup; writing is canonical, so text round-trips.

use super::attacks::{FILES, RANKS, has_move_from};
use super::position::Position;
use super::types::{Hand, Piece, PieceType};
use crate::shogi::{Color, HandCounts, Kind, Square, write_sfen_hands};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YariSfenError {
    /// Not board, side and hands (and an optional move number).
    FieldCount(usize),
    RankCount(usize),
    /// 1-based rank number and the number of squares it described.
    RankLength {
        rank: usize,
        squares: usize,
    },
    UnknownLetter(char),
    /// `+` before a king, or a dangling `+`.
    BadPromotion(String),
    /// A piece on a square where it would have no move.
    DeadSquare {
        piece: String,
        square: Square,
    },
    /// Two unpromoted pawns of one side on a file (0-based file).
    TwoPawns {
        color: Color,
        file: u8,
    },
    KingCount {
        color: Color,
        count: u32,
    },
    NoKings,
    TooManyPieces {
        letter: char,
        count: u32,
        max: u32,
    },
    BadSide(String),
    BadHand(String),
    BadPly(String),
    /// The side that has just moved is in check: its king could be captured.
    OpponentInCheck,
}

impl fmt::Display for YariSfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YariSfenError::FieldCount(n) => write!(
                f,
                "expected yari board, side and hands (and move number), found {n} fields"
            ),
            YariSfenError::RankCount(n) => write!(f, "yari board has {n} ranks, expected 9"),
            YariSfenError::RankLength { rank, squares } => write!(
                f,
                "rank {rank} describes {squares} squares, expected 7 on the yari board"
            ),
            YariSfenError::UnknownLetter(c) => write!(
                f,
                "unknown yari piece letter '{}' (K R B N P only)",
                c.escape_default()
            ),
            YariSfenError::BadPromotion(s) => {
                write!(f, "bad promotion mark in '{}'", s.escape_default())
            }
            YariSfenError::DeadSquare { piece, square } => {
                write!(f, "{piece} on {square} would have no move")
            }
            YariSfenError::TwoPawns { color, file } => {
                write!(f, "two {color:?} pawns on file {}", file + 1)
            }
            YariSfenError::KingCount { color, count } => {
                write!(f, "{color:?} has {count} kings, at most 1 allowed")
            }
            YariSfenError::NoKings => write!(f, "no king on the board"),
            YariSfenError::TooManyPieces { letter, count, max } => {
                write!(f, "{count} pieces of kind {letter}, a yari set has {max}")
            }
            YariSfenError::BadSide(s) => {
                write!(
                    f,
                    "side to move must be b or w, not '{}'",
                    s.escape_default()
                )
            }
            YariSfenError::BadHand(s) => write!(f, "bad hands field '{}'", s.escape_default()),
            YariSfenError::BadPly(s) => write!(f, "bad move number '{}'", s.escape_default()),
            YariSfenError::OpponentInCheck => {
                write!(f, "the side not to move is in check")
            }
        }
    }
}

impl std::error::Error for YariSfenError {}

impl Position {
    /// Parses `board side hands [move number]`. Each side has at most one king and the board at
    /// least one; the side not to move may not be in check.
    pub fn from_sfen(text: &str) -> Result<Position, YariSfenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 && fields.len() != 4 {
            return Err(YariSfenError::FieldCount(fields.len()));
        }
        let board = parse_board(fields[0])?;
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(YariSfenError::BadSide(s.to_string())),
        };
        let hands = parse_hands(fields[2])?;
        let ply = match fields.get(3) {
            None => 1,
            Some(s) => s
                .parse::<u32>()
                .map_err(|_| YariSfenError::BadPly(s.to_string()))?
                .clamp(1, 1 << 20),
        };
        validate(&board, &hands)?;
        let mut pos = Position::empty();
        pos.set_up(&board, hands, side, ply);
        if let Some(k) = pos.king_square(!side)
            && pos.is_attacked(side, k, pos.occupied())
        {
            return Err(YariSfenError::OpponentInCheck);
        }
        Ok(pos)
    }

    /// Canonical SFEN: 7 files, hands in R B N P order, Black's first, then the move number.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(80);
        self.write_sfen_board(&mut s);
        s.push_str(if self.side_to_move() == Color::Black {
            " b "
        } else {
            " w "
        });
        write_sfen_hands(&mut s, [self.hand(Color::Black), self.hand(Color::White)]);
        s.push_str(&format!(" {}", self.game_ply()));
        s
    }
}

fn parse_board(text: &str) -> Result<[Piece; 81], YariSfenError> {
    let mut board = [Piece::NONE; 81];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != RANKS as usize {
        return Err(YariSfenError::RankCount(ranks.len()));
    }
    for (r, rank) in ranks.iter().enumerate() {
        // Files are written from 7 down to 1; `col` counts squares from the left edge.
        let mut col = 0usize;
        let mut promoted = false;
        for ch in rank.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promoted {
                    return Err(YariSfenError::BadPromotion(rank.to_string()));
                }
                if d == 0 {
                    return Err(YariSfenError::UnknownLetter(ch));
                }
                col += d as usize;
                continue;
            }
            if ch == '+' {
                if promoted {
                    return Err(YariSfenError::BadPromotion(rank.to_string()));
                }
                promoted = true;
                continue;
            }
            let pt = if ch.is_ascii() {
                PieceType::from_letter(ch as u8)
            } else {
                None
            };
            let Some(mut pt) = pt else {
                return Err(YariSfenError::UnknownLetter(ch));
            };
            if promoted {
                if !pt.can_promote() {
                    return Err(YariSfenError::BadPromotion(format!("+{ch}")));
                }
                pt = pt.promote();
                promoted = false;
            }
            if col < FILES as usize {
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let sq = Square::from_file_rank(FILES - 1 - col as u8, r as u8);
                board[sq.index()] = Piece::new(color, pt);
            }
            col += 1;
        }
        if promoted {
            return Err(YariSfenError::BadPromotion(rank.to_string()));
        }
        if col != FILES as usize {
            return Err(YariSfenError::RankLength {
                rank: r + 1,
                squares: col,
            });
        }
    }
    Ok(board)
}

fn parse_hands(text: &str) -> Result<[Hand; 2], YariSfenError> {
    let mut hands = [Hand::EMPTY; 2];
    if text == "-" {
        return Ok(hands);
    }
    let bad = || YariSfenError::BadHand(text.to_string());
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        if let Some(d) = ch.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > 14 || (count.is_none() && d == 0) {
                return Err(bad());
            }
            count = Some(n);
            continue;
        }
        let pt = if ch.is_ascii() {
            PieceType::from_letter(ch as u8)
        } else {
            None
        };
        let Some(pt) = pt.filter(|p| *p != PieceType::King) else {
            return Err(bad());
        };
        let c = if ch.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let n = count.take().unwrap_or(1);
        let h = &mut hands[c.index()];
        let total = h.count(pt) + n;
        if total > pt.count_in_set() {
            return Err(YariSfenError::TooManyPieces {
                letter: pt.letter(),
                count: total,
                max: pt.count_in_set(),
            });
        }
        h.set(pt, total);
    }
    if count.is_some() {
        return Err(bad());
    }
    Ok(hands)
}

/// The rules of a legal setup: piece counts within one set, kings, no piece without a move, nifu.
fn validate(board: &[Piece; 81], hands: &[Hand; 2]) -> Result<(), YariSfenError> {
    let mut kings = [0u32; 2];
    let mut counts = [0u32; 4];
    let mut pawn_files = [[false; FILES as usize]; 2];
    for (i, &p) in board.iter().enumerate() {
        if p.is_none() {
            continue;
        }
        let sq = Square::new(i as u8);
        let pt = p.kind();
        let c = p.color();
        if pt == PieceType::King {
            kings[c.index()] += 1;
            continue;
        }
        counts[pt.hand_slot()] += 1;
        if !has_move_from(c, pt, sq) {
            return Err(YariSfenError::DeadSquare {
                piece: p.to_string(),
                square: sq,
            });
        }
        if pt == PieceType::Pawn {
            let f = &mut pawn_files[c.index()][sq.file() as usize];
            if *f {
                return Err(YariSfenError::TwoPawns {
                    color: c,
                    file: sq.file(),
                });
            }
            *f = true;
        }
    }
    for c in Color::ALL {
        if kings[c.index()] > 1 {
            return Err(YariSfenError::KingCount {
                color: c,
                count: kings[c.index()],
            });
        }
    }
    if kings == [0, 0] {
        return Err(YariSfenError::NoKings);
    }
    for pt in PieceType::HAND {
        let n = counts[pt.hand_slot()] + hands[0].count(pt) + hands[1].count(pt);
        if n > pt.count_in_set() {
            return Err(YariSfenError::TooManyPieces {
                letter: pt.letter(),
                count: n,
                max: pt.count_in_set(),
            });
        }
    }
    Ok(())
}
