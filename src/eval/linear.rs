//! The linear evaluation: a function of board, hand, king-relative, king-safety, mobility and
//! material-by-phase features, with weights read from a data file embedded at build time
//! (`weights.txt`, produced by the tools in `tuning/`). The search carries the per-piece part
//! (`Weights::piece_part`) from move to move and computes only the rest at each node.

use super::Value;
use super::features::{
    NUM_WEIGHTS, TABLES, for_each_dynamic_feature, for_each_feature, for_each_feature_of_piece,
    for_each_piece_feature, hand_feature, sign_of,
};
use crate::shogi::{Color, PieceType, Position};
use std::sync::{Arc, OnceLock};

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

    /// Material, hands and king-relative placement from Black's point of view: the part of the
    /// evaluation the search carries from move to move (see `update_piece_part`).
    #[inline]
    pub fn piece_part(&self, pos: &Position) -> Value {
        let mut sum = 0;
        for_each_piece_feature(pos, |i, sign| sum += sign * self.0[i]);
        sum
    }

    /// `piece_part` of `pos` from the value `before` had in the position before its last move.
    /// Only the moved, captured and dropped pieces change, unless a king moved: then every
    /// king-relative term does and the sum is made afresh.
    #[inline]
    pub fn update_piece_part(&self, pos: &Position, before: Value) -> Value {
        let m = pos.last_move();
        let to = m.to();
        let moved = pos.piece_on(to);
        if m.is_none() || moved.kind() == PieceType::King {
            return self.piece_part(pos);
        }
        let us = moved.color();
        let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
        let mut v = before;
        let mut add = |i: usize, sign: i32| v += sign * self.0[i];
        if m.is_drop() {
            let pt = m.dropped();
            // Before the drop the hand held one more: its last feature goes.
            add(hand_feature(pt, pos.hand(us).count(pt)), -sign_of(us));
            for_each_feature_of_piece(us, pt, to, kings, &mut add);
        } else {
            let kind_before = if m.is_promotion() {
                moved.kind().unpromote()
            } else {
                moved.kind()
            };
            for_each_feature_of_piece(us, kind_before, m.from(), kings, |i, s| add(i, -s));
            for_each_feature_of_piece(us, moved.kind(), to, kings, &mut add);
            let captured = pos.captured_piece();
            if captured.is_some() {
                for_each_feature_of_piece(captured.color(), captured.kind(), to, kings, |i, s| {
                    add(i, -s)
                });
                let pt = captured.kind().unpromote();
                add(hand_feature(pt, pos.hand(us).count(pt) - 1), sign_of(us));
            }
        }
        v
    }

    /// The evaluation from the side to move's point of view, given `piece_part(pos)`: only king
    /// safety and mobility are computed here.
    #[inline]
    pub fn evaluate_with_piece_part(&self, pos: &Position, piece_part: Value) -> Value {
        let mut sum = piece_part;
        for_each_dynamic_feature(pos, |i, sign| sum += sign * self.0[i]);
        if pos.side_to_move() == Color::Black {
            sum
        } else {
            -sum
        }
    }
}

static WEIGHTS_TEXT: &str = include_str!("weights.txt");

/// The embedded weights file: its hash identifies the base of a network that corrects it.
pub fn embedded_text() -> &'static str {
    WEIGHTS_TEXT
}
static WEIGHTS: OnceLock<Arc<Weights>> = OnceLock::new();

/// The embedded weights. The file is checked by a test, so a broken file never reaches a build
/// that passed the suite; should it happen anyway, the engine still plays, on material alone.
pub fn weights() -> Arc<Weights> {
    Arc::clone(WEIGHTS.get_or_init(|| {
        Arc::new(match Weights::parse(WEIGHTS_TEXT) {
            Ok(w) => w,
            Err(e) => {
                log::error!("embedded weights unusable ({e}); using zeros");
                Weights(vec![0; NUM_WEIGHTS])
            }
        })
    }))
}

impl Weights {
    /// Static evaluation from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> Value {
        self.evaluate_with_piece_part(pos, self.piece_part(pos))
    }

    /// The evaluation split by table, from the side to move's point of view, then
    /// `("total", ..)`. The parts add up to the total, which equals `evaluate(pos)`.
    pub fn explain(&self, pos: &Position) -> Vec<(String, i32)> {
        let mut parts = [0i32; TABLES.len()];
        for_each_feature(pos, |i, sign| {
            let t = TABLES
                .iter()
                .rposition(|&(_, off, _)| off <= i)
                .unwrap_or(0);
            parts[t] += sign * self.0[i];
        });
        let stm = if pos.side_to_move() == Color::Black {
            1
        } else {
            -1
        };
        let mut out: Vec<(String, i32)> = TABLES
            .iter()
            .zip(parts)
            .map(|(&(name, _, _), v)| (name.to_string(), stm * v))
            .collect();
        let total = out.iter().map(|(_, v)| v).sum();
        out.push(("total".to_string(), total));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::features;
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
        let b = crate::eval::test_sfen::rotated(&a);
        assert_eq!(weights().evaluate_black(&a), -weights().evaluate_black(&b));
        let start = Position::startpos();
        assert_eq!(weights().evaluate_black(&start), 0);
    }

    /// Positions from random playouts: openings, middlegames with captures and drops, and
    /// endgames with many pieces in hand and exposed kings.
    fn playout_positions(n: usize) -> Vec<Position> {
        let mut rng = crate::tune::selfplay::Rng(7);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::startpos();
            for _ in 0..200 {
                let moves = crate::shogi::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                let m = crate::eval::test_playout::capture_or_any(&pos, &moves, &mut rng);
                pos.do_move(m);
                if rng.below(8) == 0 {
                    out.push(Position::from_sfen(&pos.to_sfen()).unwrap());
                }
            }
        }
        out
    }

    fn random_weights(seed: u64) -> Weights {
        let mut rng = crate::tune::selfplay::Rng(seed);
        Weights(
            (0..NUM_WEIGHTS)
                .map(|_| rng.below(2001) as i32 - 1000)
                .collect(),
        )
    }

    #[test]
    fn antisymmetric_for_many_playout_positions_with_every_table_active() {
        let positions = playout_positions(400);
        let rw = random_weights(11);
        let mut seen = [0usize; TABLES.len()];
        let mut nonzero_bucket = [false; 3]; // ks_attacks, ks_hand_drop, mobility beyond bucket 0
        for pos in &positions {
            let m = crate::eval::test_sfen::rotated(pos);
            assert_eq!(
                weights().evaluate_black(pos),
                -weights().evaluate_black(&m),
                "{}",
                pos.to_sfen()
            );
            assert_eq!(
                rw.evaluate_black(pos),
                -rw.evaluate_black(&m),
                "{}",
                pos.to_sfen()
            );
            assert_eq!(weights().evaluate(pos), weights().evaluate(&m));
            for_each_feature(pos, |i, _| {
                let t = TABLES.iter().rposition(|&(_, off, _)| off <= i).unwrap();
                seen[t] += 1;
                nonzero_bucket[0] |= (features::KS_ATTACKS + 1..features::KS_DEFENCES).contains(&i);
                nonzero_bucket[1] |= i > features::KS_HAND_DROP
                    && i < features::KS_ATTACKS_HAND
                    && !(i - features::KS_HAND_DROP).is_multiple_of(9);
                nonzero_bucket[2] |= i >= features::MOBILITY;
            });
        }
        for (t, n) in seen.iter().enumerate() {
            assert!(*n > 0, "table {} never active", TABLES[t].0);
        }
        assert!(nonzero_bucket.iter().all(|&b| b), "{nonzero_bucket:?}");
    }

    #[test]
    fn incremental_piece_part_equals_a_fresh_sum_after_every_kind_of_move() {
        let rw = random_weights(5);
        let mut seen = [0usize; 5]; // drops, captures, promotions, king moves, other moves
        for mut pos in playout_positions(150) {
            for m in crate::shogi::legal_moves(&pos) {
                let shipped = weights();
                for w in [&*shipped, &rw] {
                    let before = w.piece_part(&pos);
                    pos.do_move(m);
                    let fresh = w.piece_part(&pos);
                    assert_eq!(
                        w.update_piece_part(&pos, before),
                        fresh,
                        "{m} {}",
                        pos.to_sfen()
                    );
                    let total = w.evaluate_with_piece_part(&pos, fresh);
                    let expected = if pos.side_to_move() == Color::Black {
                        w.evaluate_black(&pos)
                    } else {
                        -w.evaluate_black(&pos)
                    };
                    assert_eq!(total, expected);
                    pos.undo_move();
                }
                let moved = if m.is_drop() {
                    None
                } else {
                    Some(pos.piece_on(m.from()).kind())
                };
                let slot = if m.is_drop() {
                    0
                } else if pos.piece_on(m.to()).is_some() {
                    1
                } else if m.is_promotion() {
                    2
                } else if moved == Some(PieceType::King) {
                    3
                } else {
                    4
                };
                seen[slot] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    #[test]
    fn explain_parts_sum_to_evaluate() {
        for pos in playout_positions(100) {
            let parts = weights().explain(&pos);
            let (name, total) = parts.last().unwrap().clone();
            assert_eq!(name, "total");
            assert_eq!(total, weights().evaluate(&pos));
            let sum: i32 = parts[..parts.len() - 1].iter().map(|(_, v)| v).sum();
            assert_eq!(sum, total);
            assert_eq!(parts.len(), TABLES.len() + 1);
        }
    }

    #[test]
    fn handset_weights_parse_and_cover_every_table() {
        let w = Weights::parse(include_str!("weights_handset.txt")).expect("handset must parse");
        assert_eq!(w.0.len(), NUM_WEIGHTS);
    }

    #[test]
    fn king_attacks_count_against_the_attacked_side() {
        // Same material; White's dragon attacks the squares next to Black's king in the second.
        let quiet = Position::from_sfen("+r3k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap();
        let attacked = Position::from_sfen("4k4/9/9/9/9/9/6+r2/9/4K4 b - 1").unwrap();
        let w = Weights::parse(include_str!("weights_handset.txt")).unwrap();
        let parts = |p: &Position| {
            let mut s = 0;
            for_each_feature(p, |i, sign| {
                if (features::KS_ATTACKS..features::MOBILITY).contains(&i) {
                    s += sign * w.0[i];
                }
            });
            s
        };
        assert!(
            parts(&attacked) < parts(&quiet),
            "{} vs {}",
            parts(&attacked),
            parts(&quiet)
        );
    }

    #[test]
    fn material_matters() {
        let up_a_rook =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1")
                .unwrap();
        assert!(weights().evaluate(&up_a_rook) > 500);
    }
}
