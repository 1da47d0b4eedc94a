//! Test helpers: a position turned around (the board rotated 180 degrees, the colours swapped)
//! or mirrored left to right, made by rewriting its SFEN, for symmetry tests of evaluations.

use crate::shogi::Position;

/// The position rotated 180 degrees with the colours swapped: White's pieces become Black's.
pub fn rotated(pos: &Position) -> Position {
    transformed(pos, true)
}

/// The position mirrored left to right (file f becomes file 10 - f).
pub fn mirrored(pos: &Position) -> Position {
    transformed(pos, false)
}

/// An SFEN board mirrored left to right; with `rotate` also turned upside down with the
/// owners swapped, which together is the board rotated 180 degrees.
fn transform_board(board: &str, rotate: bool) -> String {
    let mut rows: Vec<Vec<String>> = board
        .split('/')
        .map(|row| {
            let mut cells = Vec::new();
            let mut plus = false;
            for ch in row.chars() {
                if ch == '+' {
                    plus = true;
                } else if let Some(d) = ch.to_digit(10) {
                    cells.extend((0..d).map(|_| String::new()));
                } else {
                    let c = if rotate {
                        if ch.is_ascii_uppercase() {
                            ch.to_ascii_lowercase()
                        } else {
                            ch.to_ascii_uppercase()
                        }
                    } else {
                        ch
                    };
                    cells.push(format!("{}{c}", if plus { "+" } else { "" }));
                    plus = false;
                }
            }
            cells.reverse();
            cells
        })
        .collect();
    if rotate {
        rows.reverse();
    }
    let row_text = |cells: &Vec<String>| {
        let mut out = String::new();
        let mut empty = 0;
        for c in cells {
            if c.is_empty() {
                empty += 1;
            } else {
                if empty > 0 {
                    out += &empty.to_string();
                    empty = 0;
                }
                out += c;
            }
        }
        if empty > 0 {
            out += &empty.to_string();
        }
        out
    };
    rows.iter().map(row_text).collect::<Vec<_>>().join("/")
}

/// The position turned around (White's pieces become Black's) or mirrored left to right.
fn transformed(pos: &Position, rotate: bool) -> Position {
    let sfen = pos.to_sfen();
    let f: Vec<&str> = sfen.split(' ').collect();
    let board = transform_board(f[0], rotate);
    let (side, hand) = if rotate {
        let side = if f[1] == "b" { "w" } else { "b" };
        let hand: String = f[2]
            .chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect();
        (side.to_string(), hand)
    } else {
        (f[1].to_string(), f[2].to_string())
    };
    Position::from_sfen(&format!("{board} {side} {hand} 1")).unwrap()
}
