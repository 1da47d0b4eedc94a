//! The header of KIF and KI2 records: `key：value` fields, the handicap (`手合割`) and board
//! diagrams (BOD), which give the start position of problems and games from a set-up:
//!
//! ```text
//! 後手の持駒：飛二　角二　金三　銀　桂三　香三　歩十五
//!   ９ ８ ７ ６ ５ ４ ３ ２ １
//! +---------------------------+
//! | ・ ・ ・ ・ ・ ・ とv桂v香|一
//! ...
//! +---------------------------+
//! 先手の持駒：金　銀
//! 後手番
//! ```
//!
//! A `v` before a piece marks it as White's.

use super::RecordError;
use super::japanese::{piece_char, piece_from_char};
use crate::shogi::{Color, Hand, Piece, PieceType, Position, START_SFEN, Square, write_sfen_rank};

/// The handicaps `手合割` names, with their start positions (the handicap giver, White, moves
/// first). `平手` is the even game.
pub const HANDICAPS: [(&str, &str); 16] = [
    ("平手", START_SFEN),
    (
        "香落ち",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "右香落ち",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "角落ち",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛車落ち",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛香落ち",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "二枚落ち",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "三枚落ち",
        "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "四枚落ち",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "五枚落ち",
        "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左五枚落ち",
        "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "六枚落ち",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左七枚落ち",
        "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "右七枚落ち",
        "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "八枚落ち",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "十枚落ち",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
];

/// Other names records use for the same handicaps.
const ALIASES: [(&str, &str); 4] = [
    ("香車落ち", "香落ち"),
    ("飛落ち", "飛車落ち"),
    ("七枚落ち", "左七枚落ち"),
    ("平手（先手）", "平手"),
];

/// The handicap's name when `pos` is one of the standard starts.
pub fn handicap_name(pos: &Position) -> Option<&'static str> {
    let sfen = pos.to_sfen();
    HANDICAPS
        .iter()
        .find(|(_, s)| *s == sfen)
        .map(|(name, _)| *name)
}

fn handicap_sfen(name: &str) -> Option<&'static str> {
    let name = ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, n)| n);
    HANDICAPS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

const KANJI_NUMBERS: [&str; 19] = [
    "", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
    "十五", "十六", "十七", "十八",
];

/// Hand text: `飛二　角　歩十五`, or `なし` when empty.
pub fn hand_text(hand: Hand) -> String {
    let mut parts = Vec::new();
    for pt in PieceType::SFEN_HAND_ORDER {
        let n = hand.count(pt) as usize;
        if n == 0 {
            continue;
        }
        let mut s = piece_char(pt).to_string();
        if n > 1 {
            s.push_str(KANJI_NUMBERS.get(n).copied().unwrap_or(""));
        }
        parts.push(s);
    }
    if parts.is_empty() {
        "なし".to_string()
    } else {
        parts.join("　") + "　"
    }
}

/// Reads hand text; `None` when it is unreadable. `残り全部` is handled by the caller.
fn parse_hand(text: &str) -> Option<Hand> {
    let text = text.trim_matches([' ', '\u{3000}']);
    let mut hand = Hand::EMPTY;
    if text.is_empty() || text == "なし" {
        return Some(hand);
    }
    for item in text.split([' ', '\u{3000}']).filter(|s| !s.is_empty()) {
        let mut chars = item.chars();
        let pt = chars.next().and_then(piece_from_char)?;
        if !PieceType::HAND.contains(&pt) {
            return None;
        }
        let rest = chars.as_str();
        let n = if rest.is_empty() {
            1
        } else if let Ok(n) = rest.parse::<u32>() {
            n
        } else {
            KANJI_NUMBERS.iter().position(|&k| k == rest)? as u32
        };
        let total = hand.count(pt) + n;
        if total > u32::from(pt.count_in_set()) {
            return None;
        }
        hand.set(pt, total);
    }
    Some(hand)
}

/// The header and start position of a KIF or KI2 record, built a line at a time.
#[derive(Default)]
pub(crate) struct Header {
    pub headers: Vec<(String, String)>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// The handicap's start SFEN and the line that named it.
    handicap: Option<(&'static str, usize)>,
    rows: Vec<[Piece; 9]>,
    board_line: usize,
    hands: [Option<Hand>; 2],
    rest_to: Option<Color>,
    side: Option<Color>,
}

impl Header {
    /// Takes a header line; returns whether it was one. Errors name the line.
    pub fn take(&mut self, line: &str, no: usize) -> Result<bool, RecordError> {
        let trimmed = line.trim_end();
        if let Some(row) = trimmed.strip_prefix('|') {
            self.board_row(row, no)?;
            return Ok(true);
        }
        if trimmed.starts_with("+---") || is_file_numbers(trimmed) {
            return Ok(true);
        }
        match trimmed.trim() {
            "先手番" | "下手番" => {
                self.side = Some(Color::Black);
                return Ok(true);
            }
            "後手番" | "上手番" => {
                self.side = Some(Color::White);
                return Ok(true);
            }
            _ => {}
        }
        let Some((key, value)) = trimmed.split_once('：') else {
            return Ok(false);
        };
        let key = key.trim();
        let value = value.trim_matches([' ', '\u{3000}']);
        let color = |k: &str| match k {
            "先手" | "下手" => Some(Color::Black),
            "後手" | "上手" => Some(Color::White),
            _ => None,
        };
        if let Some(c) = color(key) {
            let name = (!value.is_empty()).then(|| value.to_string());
            match c {
                Color::Black => self.black = name,
                Color::White => self.white = name,
            }
        } else if let Some(c) = key.strip_suffix("の持駒").and_then(color) {
            if value.starts_with("残り全部") || value.starts_with("残りすべて") {
                self.rest_to = Some(c);
            } else {
                let hand = parse_hand(value).ok_or_else(|| {
                    RecordError::new(no, format!("unreadable pieces in hand '{value}'"))
                })?;
                self.hands[c.index()] = Some(hand);
            }
        } else if key == "手合割" {
            match handicap_sfen(value) {
                Some(sfen) => self.handicap = Some((sfen, no)),
                None if value == "その他" => {}
                None => return Err(RecordError::new(no, format!("unknown handicap '{value}'"))),
            }
            self.headers.push((key.to_string(), value.to_string()));
        } else {
            self.headers.push((key.to_string(), value.to_string()));
        }
        Ok(true)
    }

    fn board_row(&mut self, row: &str, no: usize) -> Result<(), RecordError> {
        if self.rows.is_empty() {
            self.board_line = no;
        }
        if self.rows.len() == 9 {
            return Err(RecordError::new(
                no,
                "a board diagram with more than nine ranks",
            ));
        }
        let cells = row.split('|').next().unwrap_or("");
        let chars: Vec<char> = cells.chars().collect();
        if chars.len() < 18 {
            return Err(RecordError::new(
                no,
                "a board row with fewer than nine squares",
            ));
        }
        let mut out = [Piece::NONE; 9];
        for (i, cell) in chars.chunks(2).take(9).enumerate() {
            let (owner, name) = (cell[0], cell[1]);
            if name == '・' {
                continue;
            }
            let pt = piece_from_char(name).ok_or_else(|| {
                RecordError::new(no, format!("unknown piece '{name}' in the board diagram"))
            })?;
            let color = match owner {
                'v' | 'V' => Color::White,
                ' ' | '^' | '\u{3000}' => Color::Black,
                other => {
                    return Err(RecordError::new(
                        no,
                        format!("unknown owner mark '{other}' in the board diagram"),
                    ));
                }
            };
            out[i] = Piece::new(color, pt);
        }
        self.rows.push(out);
        Ok(())
    }

    /// The start position: the diagram if there is one, else the handicap, else the even game.
    pub fn start(&self) -> Result<Position, RecordError> {
        if self.rows.is_empty() {
            if let Some((sfen, line)) = self.handicap {
                return Position::from_sfen(sfen)
                    .map_err(|e| RecordError::new(line, e.to_string()));
            }
            return Ok(Position::startpos());
        }
        if self.rows.len() != 9 {
            return Err(RecordError::new(
                self.board_line,
                format!("the board diagram has {} ranks, not nine", self.rows.len()),
            ));
        }
        let mut hands = [
            self.hands[0].unwrap_or_default(),
            self.hands[1].unwrap_or_default(),
        ];
        if let Some(c) = self.rest_to {
            hands[c.index()] = self.remaining(&hands[(!c).index()]);
        }
        let side = self.side.unwrap_or(
            // A handicap diagram without a side line: the handicap giver moves first.
            if self.handicap.is_some_and(|(sfen, _)| sfen != START_SFEN) {
                Color::White
            } else {
                Color::Black
            },
        );
        let sfen = diagram_sfen(&self.rows, &hands, side);
        Position::from_sfen(&sfen)
            .map_err(|e| RecordError::new(self.board_line, format!("bad board diagram: {e}")))
    }

    /// A full set minus what is on the board and in the other hand (`残り全部` in problems).
    fn remaining(&self, other: &Hand) -> Hand {
        let mut hand = Hand::EMPTY;
        for pt in PieceType::HAND {
            let on_board = self
                .rows
                .iter()
                .flatten()
                .filter(|p| p.is_some() && p.kind().unpromote() == pt)
                .count() as u32;
            let n = u32::from(pt.count_in_set()).saturating_sub(on_board + other.count(pt));
            hand.set(pt, n);
        }
        hand
    }
}

fn is_file_numbers(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('９')
        && t.ends_with('１')
        && t.chars()
            .all(|c| c == ' ' || c == '\u{3000}' || ('１'..='９').contains(&c))
}

/// The SFEN of a diagram: `rows[r][i]` is rank `r` (a first), file `9 - i`.
pub(crate) fn diagram_sfen(rows: &[[Piece; 9]], hands: &[Hand; 2], side: Color) -> String {
    let mut s = String::new();
    for (r, row) in rows.iter().enumerate() {
        if r > 0 {
            s.push('/');
        }
        write_sfen_rank(&mut s, row.iter().map(|p| (!p.is_none()).then_some(*p)));
    }
    s.push_str(if side == Color::Black { " b " } else { " w " });
    crate::shogi::write_sfen_hands(&mut s, *hands);
    s.push_str(" 1");
    s
}

/// A board diagram of `pos` with both hands and the side to move, as KIF and KI2 headers hold it.
pub fn write_diagram(pos: &Position) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "後手の持駒：{}\n",
        hand_text(pos.hand(Color::White))
    ));
    s.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for r in 0..9u8 {
        s.push('|');
        for f in (0..9u8).rev() {
            let p = pos.piece_on(Square::from_file_rank(f, r));
            if p.is_none() {
                s.push_str(" ・");
            } else {
                s.push(if p.color() == Color::White { 'v' } else { ' ' });
                s.push(piece_char(p.kind()));
            }
        }
        s.push('|');
        s.push(super::japanese::rank_char(r));
        s.push('\n');
    }
    s.push_str("+---------------------------+\n");
    s.push_str(&format!(
        "先手の持駒：{}\n",
        hand_text(pos.hand(Color::Black))
    ));
    if pos.side_to_move() == Color::White {
        s.push_str("後手番\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_round_trip() {
        let h = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2RS15P 1")
            .unwrap()
            .hand(Color::Black);
        assert_eq!(hand_text(h), "飛二　銀　歩十五　");
        assert_eq!(parse_hand(&hand_text(h)), Some(h));
        assert_eq!(parse_hand("なし"), Some(Hand::EMPTY));
        assert_eq!(parse_hand("歩十九"), None);
    }

    #[test]
    fn handicap_starts_are_legal_and_named() {
        for (name, sfen) in HANDICAPS {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(handicap_name(&pos), Some(name));
        }
    }
}
