//! Evaluation: a linear function of board, hand and king-relative features, with weights read
//! from a data file embedded at build time (`weights.txt`, produced by the tools in `tuning/`).

pub mod features;

use crate::shogi::{Color, Position};
use features::{NUM_WEIGHTS, TABLES, for_each_feature};
use std::cell::Cell;
use std::sync::OnceLock;

/// Centipawn-like units; a pawn on the board is worth about 90.
pub type Value = i32;

pub struct Weights(pub Vec<i32>);

impl Weights {
    /// Reads the text format: one table per line, `<name> <v0> <v1> ...`; `#` starts a comment.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let mut w = vec![0i32; NUM_WEIGHTS];
        let mut seen = [false; TABLES.len()];
        for (lineno, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut it = line.split_whitespace();
            let name = it.next().unwrap_or("");
            let Some(t) = TABLES.iter().position(|(n, _, _)| *n == name) else {
                return Err(format!("line {}: unknown table '{name}'", lineno + 1));
            };
            let (_, off, len) = TABLES[t];
            let vals: Result<Vec<i32>, _> = it.map(str::parse::<i32>).collect();
            let vals = vals.map_err(|e| format!("line {}: {e}", lineno + 1))?;
            if vals.len() != len {
                return Err(format!(
                    "table {name}: {} values, expected {len}",
                    vals.len()
                ));
            }
            w[off..off + len].copy_from_slice(&vals);
            seen[t] = true;
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(format!("table {} missing", TABLES[i].0));
        }
        Ok(Weights(w))
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from(
            "# kirin evaluation weights; see tuning/README.md for how they were made\n",
        );
        for (name, off, len) in TABLES {
            s.push_str(name);
            for v in &self.0[off..off + len] {
                s.push_str(&format!(" {v}"));
            }
            s.push('\n');
        }
        s
    }

    /// Score from Black's point of view.
    #[inline]
    pub fn evaluate_black(&self, pos: &Position) -> Value {
        let mut sum = 0;
        for_each_feature(pos, |i, sign| sum += sign * self.0[i]);
        sum
    }
}

static WEIGHTS_TEXT: &str = include_str!("weights.txt");
static WEIGHTS: OnceLock<Weights> = OnceLock::new();

/// The embedded weights. The file is checked by a test, so a broken file never reaches a build
/// that passed the suite; should it happen anyway, the engine still plays, on material alone.
pub fn weights() -> &'static Weights {
    WEIGHTS.get_or_init(|| match Weights::parse(WEIGHTS_TEXT) {
        Ok(w) => w,
        Err(e) => {
            log::error!("embedded weights unusable ({e}); using zeros");
            Weights(vec![0; NUM_WEIGHTS])
        }
    })
}

thread_local! {
    /// Weights used instead of the embedded ones by searches on this thread (the tuner's match
    /// plays two weight sets in one process); `None` in the engine.
    static OVERRIDE: Cell<Option<&'static Weights>> = const { Cell::new(None) };
}

/// Makes every evaluation on the calling thread use `w` (or the embedded weights for `None`).
/// A search with more than one thread runs its helpers on other threads, which keep the
/// embedded weights: use it with single-threaded searches.
pub fn set_thread_weights(w: Option<&'static Weights>) {
    OVERRIDE.with(|c| c.set(w));
}

/// The weights evaluations on this thread use.
#[inline]
pub fn active_weights() -> &'static Weights {
    OVERRIDE.with(|c| c.get()).unwrap_or_else(weights)
}

/// Static evaluation from the side to move's point of view.
#[inline]
pub fn evaluate(pos: &Position) -> Value {
    let v = active_weights().evaluate_black(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

/// Board value of a piece kind, for move ordering and exchange evaluation.
#[inline]
pub fn piece_value(pt: crate::shogi::PieceType) -> Value {
    active_weights().0[features::BOARD + pt.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_weights_parse_and_round_trip() {
        let w = Weights::parse(WEIGHTS_TEXT).expect("weights.txt must parse");
        let again = Weights::parse(&w.to_text()).unwrap();
        assert_eq!(w.0, again.0);
    }

    #[test]
    fn evaluation_is_antisymmetric_under_board_rotation() {
        // Rotating the board and swapping colours must negate the Black-view score.
        let a = Position::from_sfen(
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
        )
        .unwrap();
        let b = Position::from_sfen(
            "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 2",
        )
        .unwrap();
        assert_eq!(weights().evaluate_black(&a), -weights().evaluate_black(&b));
        let start = Position::startpos();
        assert_eq!(weights().evaluate_black(&start), 0);
    }

    #[test]
    fn material_matters() {
        let up_a_rook =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1")
                .unwrap();
        assert!(evaluate(&up_a_rook) > 500);
    }
}
