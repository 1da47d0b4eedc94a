//! Move text between XBoard and kirin.
//!
//! XBoard names a square by file letter and rank number from the first mover's side: files
//! `a`.. left to right as sente (XBoard's White) sees the board, ranks `1`.. from sente's back
//! rank, two digits on boards taller than nine (`h10`). kirin, like USI, names it by file
//! number right to left and rank letter from gote's side: on dai's 15x15 board XBoard's `h8`
//! is kirin's `8h` and XBoard's `g10` is kirin's `9f`.
//!
//! Move shapes, XBoard <-> kirin:
//! - a step or slide `h5h6` <-> `8k8j`, promotion `h11h12+` <-> `8e8d+` (`=`, XBoard's
//!   explicit "do not promote", reads as no suffix);
//! - a lion's double move, igui or pass by two legs, `h8h9,h9g10` <-> `8h8g9f`: XBoard's
//!   multi-leg syntax separates the legs with a comma and the second leg starts where the
//!   first ended;
//! - the null move `@@@@` <-> kirin's `pass`;
//! - a drop in standard shogi `P@e5` <-> `P*5e`.

use std::fmt;

/// The board's size, which fixes how squares are numbered on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    pub files: u8,
    pub ranks: u8,
}

pub const SHOGI: Board = Board { files: 9, ranks: 9 };
pub const YARI: Board = Board { files: 7, ranks: 9 };
pub const DAI: Board = Board {
    files: 15,
    ranks: 15,
};

/// A square by XBoard's indices: file from the a-file, rank from rank 1, both from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Square {
    pub file: u8,
    pub rank: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError {
    pub reason: &'static str,
    pub text: String,
}

impl NotationError {
    fn new(reason: &'static str, text: &str) -> NotationError {
        NotationError {
            reason,
            text: text.to_string(),
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.text)
    }
}

impl Board {
    /// Reads an XBoard square at the start of `text`: its square and the bytes read.
    pub fn read_xboard_square(self, text: &[u8]) -> Option<(Square, usize)> {
        let letter = *text.first()?;
        if !letter.is_ascii_lowercase() || letter - b'a' >= self.files {
            return None;
        }
        let (rank, used) = read_number(&text[1..])?;
        (1..=self.ranks as u32).contains(&rank).then_some((
            Square {
                file: letter - b'a',
                rank: rank as u8 - 1,
            },
            1 + used,
        ))
    }

    /// Reads a kirin square (`8h`, `10n`) at the start of `text`.
    pub fn read_kirin_square(self, text: &[u8]) -> Option<(Square, usize)> {
        let (file, used) = read_number(text)?;
        let letter = *text.get(used)?;
        if !(1..=self.files as u32).contains(&file)
            || !letter.is_ascii_lowercase()
            || letter - b'a' >= self.ranks
        {
            return None;
        }
        let square = Square {
            file: self.files - file as u8,
            rank: self.ranks - 1 - (letter - b'a'),
        };
        Some((square, used + 1))
    }

    pub fn xboard_square(self, square: Square) -> String {
        format!("{}{}", (b'a' + square.file) as char, square.rank + 1)
    }

    pub fn kirin_square(self, square: Square) -> String {
        format!(
            "{}{}",
            self.files - square.file,
            (b'a' + self.ranks - 1 - square.rank) as char
        )
    }

    /// XBoard move text to kirin's.
    pub fn to_kirin(self, text: &str) -> Result<String, NotationError> {
        let fail = |reason| Err(NotationError::new(reason, text));
        if text == "@@@@" {
            return Ok("pass".to_string());
        }
        if let Some((piece, at)) = text.split_once('@') {
            let (square, used) = match self.read_xboard_square(at.as_bytes()) {
                Some(read) => read,
                None => return fail("bad drop square"),
            };
            if piece.len() != 1 || !piece.as_bytes()[0].is_ascii_alphabetic() || used != at.len() {
                return fail("bad drop");
            }
            return Ok(format!(
                "{}*{}",
                piece.to_ascii_uppercase(),
                self.kirin_square(square)
            ));
        }
        let legs: Vec<&str> = text.split(',').collect();
        let mut squares = Vec::new();
        let mut promote = false;
        for (index, leg) in legs.iter().enumerate() {
            let bytes = leg.as_bytes();
            let Some((from, a)) = self.read_xboard_square(bytes) else {
                return fail("bad square");
            };
            let Some((to, b)) = self.read_xboard_square(&bytes[a..]) else {
                return fail("bad square");
            };
            let suffix = &leg[a + b..];
            let last = index + 1 == legs.len();
            match suffix {
                "" | "=" => {}
                "+" if last => promote = true,
                _ => return fail("bad promotion suffix"),
            }
            if index == 0 {
                squares.push(from);
            } else if squares.last() != Some(&from) {
                return fail("legs do not join");
            }
            squares.push(to);
        }
        if squares.len() > 3 {
            return fail("more than two legs");
        }
        let mut out: String = squares.iter().map(|&s| self.kirin_square(s)).collect();
        if promote {
            out.push('+');
        }
        Ok(out)
    }

    /// kirin move text to XBoard's, legs joined by commas.
    pub fn to_xboard(self, text: &str) -> Result<String, NotationError> {
        let fail = |reason| Err(NotationError::new(reason, text));
        if text == "pass" {
            return Ok("@@@@".to_string());
        }
        if let Some((piece, at)) = text.split_once('*') {
            match self.read_kirin_square(at.as_bytes()) {
                Some((square, used))
                    if used == at.len()
                        && piece.len() == 1
                        && piece.as_bytes()[0].is_ascii_uppercase() =>
                {
                    return Ok(format!("{piece}@{}", self.xboard_square(square)));
                }
                _ => return fail("bad drop"),
            }
        }
        let (body, promote) = match text.strip_suffix('+') {
            Some(body) => (body, true),
            None => (text, false),
        };
        let mut squares = Vec::new();
        let mut at = 0;
        while at < body.len() {
            match self.read_kirin_square(&body.as_bytes()[at..]) {
                Some((square, used)) => {
                    squares.push(square);
                    at += used;
                }
                None => return fail("bad square"),
            }
        }
        if !(2..=3).contains(&squares.len()) {
            return fail("a move has two or three squares");
        }
        let legs: Vec<String> = squares
            .windows(2)
            .map(|leg| {
                format!(
                    "{}{}",
                    self.xboard_square(leg[0]),
                    self.xboard_square(leg[1])
                )
            })
            .collect();
        let mut out = legs.join(",");
        if promote {
            out.push('+');
        }
        Ok(out)
    }
}

/// The `move` commands for one XBoard move: CECP sends a multi-leg move one leg per `move`
/// command, each leg but the last ending in a comma.
pub fn move_commands(xboard_move: &str) -> Vec<String> {
    let legs: Vec<&str> = xboard_move.split(',').collect();
    let last = legs.len() - 1;
    legs.iter()
        .enumerate()
        .map(|(i, leg)| {
            if i < last {
                format!("{leg},")
            } else {
                leg.to_string()
            }
        })
        .collect()
}

/// A decimal number of one or two digits without a leading zero, and the bytes it used.
fn read_number(text: &[u8]) -> Option<(u32, usize)> {
    let digits = text
        .iter()
        .take(3)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 2 || text[0] == b'0' {
        return None;
    }
    Some((
        text[..digits]
            .iter()
            .fold(0, |n, &b| n * 10 + u32::from(b - b'0')),
        digits,
    ))
}

#[cfg(test)]
#[path = "notation_tests.rs"]
mod tests;
