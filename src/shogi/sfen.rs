//! SFEN text: reading with every rule of a legal setup checked, and canonical writing.

use super::board::{Board, HandCounts, PieceSet};
use super::error::SfenError;
use super::types::{Color, ColoredPiece, Kind, Square};

impl<S: PieceSet> Board<S> {
    /// Canonical SFEN: hands in the set's SFEN order (R B G S N L P in standard shogi), Black's
    /// first, then the move number; reading it back gives the same position.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        self.write_sfen_board(&mut s);
        s.push_str(if self.side_to_move() == Color::Black {
            " b "
        } else {
            " w "
        });
        write_hands(&mut s, [self.hand(Color::Black), self.hand(Color::White)]);
        s.push_str(&format!(" {}", self.game_ply()));
        s
    }
}

/// Appends one rank of SFEN's board field (any game's): the squares from the highest file down,
/// `None` for an empty one, each run of empty squares written as its length.
pub fn write_sfen_rank<P: std::fmt::Display>(
    s: &mut String,
    squares: impl IntoIterator<Item = Option<P>>,
) {
    let mut empty = 0u32;
    for square in squares {
        let Some(p) = square else {
            empty += 1;
            continue;
        };
        if empty > 0 {
            s.push_str(&empty.to_string());
            empty = 0;
        }
        s.push_str(&p.to_string());
    }
    if empty > 0 {
        s.push_str(&empty.to_string());
    }
}

/// The hands field of an SFEN: hand kinds in the set's SFEN order (R B G S N L P in standard
/// shogi), Black's first (upper case), `-` when both are empty.
pub fn write_hands<H: HandCounts>(s: &mut String, hands: [H; 2]) {
    let mut any = false;
    for c in Color::ALL {
        for &pt in H::Kind::SFEN_HAND_ORDER {
            let n = hands[c.index()].count(pt);
            if n == 0 {
                continue;
            }
            any = true;
            if n > 1 {
                s.push_str(&n.to_string());
            }
            let l = pt.letter();
            s.push(if c == Color::White {
                l.to_ascii_lowercase()
            } else {
                l
            });
        }
    }
    if !any {
        s.push('-');
    }
}

impl<S: PieceSet> Board<S> {
    /// Parses `board side hands [move number]`, checking the rules of a legal setup; last, the side not to move may not be in check, because the mover could then
    /// capture a king, which no game position allows. A side may have no king (that is how mate
    /// problems are written), but the board must hold one.
    pub fn from_sfen(text: &str) -> Result<Self, SfenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 && fields.len() != 4 {
            return Err(SfenError::FieldCount(fields.len()));
        }
        let board = parse_board(fields[0], S::FILES)?;
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(SfenError::BadSide(s.to_string())),
        };
        let hands = parse_hands(fields[2], S::count_in_set)?;
        let ply = match fields.get(3) {
            None => 1,
            Some(s) => s
                .parse::<u32>()
                .map_err(|_| SfenError::BadPly(s.to_string()))?
                .clamp(1, 1 << 20),
        };
        validate::<S>(&board, &hands)?;
        let mut pos = Board::empty();
        pos.set_up(&board, hands, side, ply);
        if let Some(k) = pos.king_square(!side)
            && pos.attackers_to(side, k, pos.occupied()).is_some()
        {
            return Err(SfenError::OpponentInCheck);
        }
        Ok(pos)
    }
}

/// The board field on a board of `files` files: ranks a to i, each from the highest file down.
fn parse_board<K: Kind>(text: &str, files: u8) -> Result<[ColoredPiece<K>; 81], SfenError> {
    let mut board = [ColoredPiece::NONE; 81];
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 9 {
        return Err(SfenError::RankCount(ranks.len()));
    }
    for (r, rank) in ranks.iter().enumerate() {
        // Files are written from the highest down to 1; `col` counts squares from the left edge.
        let mut col = 0usize;
        let mut promoted = false;
        for ch in rank.chars() {
            if let Some(d) = ch.to_digit(10) {
                if promoted || d == 0 {
                    return Err(if promoted {
                        SfenError::BadPromotion(rank.to_string())
                    } else {
                        SfenError::UnknownLetter(ch)
                    });
                }
                col += d as usize;
                continue;
            }
            if ch == '+' {
                if promoted {
                    return Err(SfenError::BadPromotion(rank.to_string()));
                }
                promoted = true;
                continue;
            }
            let pt = if ch.is_ascii() {
                K::from_letter(ch as u8)
            } else {
                None
            };
            let Some(mut pt) = pt else {
                return Err(SfenError::UnknownLetter(ch));
            };
            if promoted {
                if !pt.can_promote() {
                    return Err(SfenError::BadPromotion(format!("+{ch}")));
                }
                pt = pt.promote();
                promoted = false;
            }
            if col < files as usize {
                let color = if ch.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let sq = Square::from_file_rank(files - 1 - col as u8, r as u8);
                board[sq.index()] = ColoredPiece::new(color, pt);
            }
            col += 1;
        }
        if promoted {
            return Err(SfenError::BadPromotion(rank.to_string()));
        }
        if col != files as usize {
            return Err(SfenError::RankLength {
                rank: r + 1,
                squares: col,
                files,
            });
        }
    }
    Ok(board)
}

/// The hands field: `-`, or counted letters, upper case Black's; no count may pass a full set.
fn parse_hands<H: HandCounts>(
    text: &str,
    count_in_set: impl Fn(H::Kind) -> u32,
) -> Result<[H; 2], SfenError> {
    let mut hands = [H::EMPTY; 2];
    if text == "-" {
        return Ok(hands);
    }
    let bad = || SfenError::BadHand(text.to_string());
    let most_of_a_kind = count_in_set(H::Kind::PAWN);
    let mut count: Option<u32> = None;
    for ch in text.chars() {
        if let Some(d) = ch.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > most_of_a_kind || (count.is_none() && d == 0) {
                return Err(bad());
            }
            count = Some(n);
            continue;
        }
        let pt = if ch.is_ascii() {
            H::Kind::from_letter(ch as u8)
        } else {
            None
        };
        let Some(pt) = pt.filter(|p| *p != H::Kind::KING) else {
            return Err(bad());
        };
        let c = if ch.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let n = count.take().unwrap_or(1);
        let total = hands[c.index()].count(pt) + n;
        let max = count_in_set(pt);
        if total > max {
            return Err(SfenError::TooManyPieces {
                letter: pt.letter(),
                count: total,
                max,
            });
        }
        for _ in 0..n {
            hands[c.index()].add(pt);
        }
    }
    if count.is_some() {
        return Err(bad());
    }
    Ok(hands)
}

/// The rules of a legal setup: piece counts within one set, at most one king a side and one on
/// the board, no piece where it could never move, no two unpromoted pawns of a side on a file.
fn validate<S: PieceSet>(
    board: &[ColoredPiece<S::Kind>; 81],
    hands: &[S::Hand; 2],
) -> Result<(), SfenError> {
    let mut kings = [0u32; 2];
    let mut totals = [0u32; 16];
    let mut pawn_files = [[false; 9]; 2];
    for sq in Square::all() {
        let p = board[sq.index()];
        if p.is_none() {
            continue;
        }
        let (c, pt) = (p.color(), p.kind());
        if pt == S::Kind::KING {
            kings[c.index()] += 1;
            continue;
        }
        totals[pt.unpromote().index()] += 1;
        if !S::can_move_from(c, pt, sq) {
            return Err(SfenError::DeadSquare {
                piece: p.to_string(),
                square: sq,
            });
        }
        if pt == S::Kind::PAWN {
            let f = sq.file() as usize;
            if pawn_files[c.index()][f] {
                return Err(SfenError::TwoPawns {
                    color: c,
                    file: f as u8,
                });
            }
            pawn_files[c.index()][f] = true;
        }
    }
    for c in Color::ALL {
        if kings[c.index()] > 1 {
            return Err(SfenError::KingCount {
                color: c,
                count: kings[c.index()],
            });
        }
    }
    if kings == [0, 0] {
        return Err(SfenError::NoKings);
    }
    for &pt in S::Kind::HAND {
        let n = totals[pt.index()] + hands[0].count(pt) + hands[1].count(pt);
        let max = S::count_in_set(pt);
        if n > max {
            return Err(SfenError::TooManyPieces {
                letter: pt.letter(),
                count: n,
                max,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::position::{Position, START_SFEN};

    #[test]
    fn round_trips_canonical_sfen() {
        for s in [
            START_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
            "4k4/9/4S4/9/9/9/9/9/9 b S2r2b4g2s4n4l18p 1",
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ] {
            let p = Position::from_sfen(s).unwrap();
            assert_eq!(p.to_sfen(), s);
        }
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P2p3P 7").unwrap();
        assert_eq!(p.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 4P2p 7");
    }

    #[test]
    fn rejects_bad_setups_with_the_reason() {
        let err = |s: &str| Position::from_sfen(s).unwrap_err();
        assert_eq!(err("lnsgkgsnl/1r5b1 b - 1"), SfenError::RankCount(2));
        assert!(matches!(
            err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R/LNSGKGSNL b - 1"),
            SfenError::RankLength {
                rank: 8,
                squares: 8,
                files: 9
            }
        ));
        assert!(matches!(
            err("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R2/LNSGKGSNL b - 1"),
            SfenError::RankLength {
                rank: 8,
                squares: 10,
                files: 9
            }
        ));
        assert_eq!(
            err("lnsgkgsnx/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
            SfenError::UnknownLetter('x')
        );
        assert!(matches!(
            err("4+k4/9/9/9/9/9/9/9/4K4 b - 1"),
            SfenError::BadPromotion(_)
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/3+GK4 b - 1"),
            SfenError::BadPromotion(_)
        ));
        assert!(matches!(
            err("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
            SfenError::DeadSquare { ref piece, .. } if piece == "P"
        ));
        assert!(matches!(
            err("4k4/N8/9/9/9/9/9/9/4K4 b - 1"),
            SfenError::DeadSquare { ref piece, .. } if piece == "N"
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/l3K4 b - 1"),
            SfenError::DeadSquare { ref piece, .. } if piece == "l"
        ));
        assert_eq!(
            err("4k4/9/9/P8/9/P8/9/9/4K4 b - 1"),
            SfenError::TwoPawns {
                color: Color::Black,
                file: 8
            }
        );
        assert!(Position::from_sfen("4k4/9/9/P8/9/+P8/9/9/4K4 b - 1").is_ok());
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/3KK4 b - 1"),
            SfenError::KingCount {
                color: Color::Black,
                count: 2
            }
        );
        assert_eq!(err("9/9/9/9/9/9/9/9/9 b - 1"), SfenError::NoKings);
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 3R 1"),
            SfenError::TooManyPieces { letter: 'R', .. }
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/R3K4 b Rr 1"),
            SfenError::TooManyPieces { letter: 'R', .. }
        ));
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 x - 1"),
            SfenError::BadSide("x".into())
        );
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 2 1"),
            SfenError::BadHand(_)
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4 b K 1"),
            SfenError::BadHand(_)
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 0P 1"),
            SfenError::BadHand(_)
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4 b - x"),
            SfenError::BadPly(_)
        ));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4"), SfenError::FieldCount(1));
        assert_eq!(
            err("4k4/4R4/9/9/9/9/9/9/4K4 b - 1"),
            SfenError::OpponentInCheck
        );
        // In check on one's own move is an ordinary position.
        assert!(Position::from_sfen("4k4/4R4/9/9/9/9/9/9/4K4 w - 1").is_ok());
    }
}
