//! The linear evaluation: a function of board, hand, king-relative, king-safety, mobility and
//! material-by-phase features, with weights read from a data file embedded at build time
//! (`weights.txt`, produced by the tools in `tuning/`). The search carries the per-piece part
//! (`Weights::piece_part`) from move to move and computes only the rest at each node.

use super::Value;
use super::features::{
    ENEMY_KING, NUM_WEIGHTS, OWN_KING, PHASES, TABLES, board_phase_features,
    for_each_dynamic_feature, for_each_feature, for_each_feature_of_piece,
    for_each_feature_relative_to_king, hand_feature, hand_phase_features, phase, sign_of,
};
use crate::shogi::{Color, PieceType, Position, Square};
use std::sync::{Arc, OnceLock};

pub struct Weights(pub Vec<i32>);

/// The part of the linear evaluation that the search updates move by move, from Black's point of
/// view, kept in pieces so that a king move redoes only the terms relative to that king, and
/// material by phase is ready for whichever phase the position is in.
#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
pub struct PiecePart {
    /// Material, hands and placement on the board (`board`, `hand`, `psq`).
    placement: Value,
    /// Per king (by its owner): every piece's term relative to it (`own_king`, `enemy_king`).
    relative: [Value; 2],
    /// Material by phase (`board_phase`, `hand_phase`), for each phase.
    by_phase: [Value; PHASES],
}

impl PiecePart {
    #[inline]
    fn total(&self, phase: usize) -> Value {
        self.placement + self.relative[0] + self.relative[1] + self.by_phase[phase]
    }
}

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

    /// Material, hands and king-relative placement from Black's point of view, and material by
    /// phase for every phase: the part of the evaluation the search carries from move to move
    /// (see `update_piece_part`).
    #[inline]
    pub fn piece_part(&self, pos: &Position) -> PiecePart {
        let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
        let mut part = PiecePart::default();
        for sq in pos.occupied() {
            let p = pos.piece_on(sq);
            self.add_piece(&mut part, p.color(), p.kind(), sq, kings, 1);
        }
        for c in Color::ALL {
            for pt in PieceType::HAND {
                for n in 0..pos.hand(c).count(pt) {
                    self.add_hand_piece(&mut part, c, pt, n, 1);
                }
            }
        }
        part
    }

    /// Adds (`sign` 1) or takes away (-1) the terms of a piece of `c` on `sq`.
    #[inline]
    fn add_piece(
        &self,
        part: &mut PiecePart,
        c: Color,
        kind: PieceType,
        sq: Square,
        kings: [Option<Square>; 2],
        sign: i32,
    ) {
        for_each_feature_of_piece(c, kind, sq, kings, |i, s| {
            let v = sign * s * self.0[i];
            if i < OWN_KING {
                part.placement += v;
            } else if i < ENEMY_KING {
                part.relative[c.index()] += v;
            } else {
                part.relative[(!c).index()] += v;
            }
        });
        self.add_phase_terms(part, board_phase_features(kind), sign * sign_of(c));
    }

    /// Adds or takes away the `n`-th (0-based) piece of a kind in `c`'s hand.
    #[inline]
    fn add_hand_piece(&self, part: &mut PiecePart, c: Color, pt: PieceType, n: u32, sign: i32) {
        part.placement += sign * sign_of(c) * self.0[hand_feature(pt, n)];
        self.add_phase_terms(part, hand_phase_features(pt), sign * sign_of(c));
    }

    #[inline]
    fn add_phase_terms(&self, part: &mut PiecePart, first: usize, sign: i32) {
        for (p, v) in part.by_phase.iter_mut().enumerate() {
            *v += sign * self.0[first + p];
        }
    }

    /// `piece_part` of `pos` from the value `before` had in the position before its last move.
    /// Only the moved, captured and dropped pieces change, unless a king moved: then every
    /// term relative to that king does, and only those are summed afresh.
    #[inline]
    pub fn update_piece_part(&self, pos: &Position, before: PiecePart) -> PiecePart {
        let m = pos.last_move();
        if m.is_none() {
            return self.piece_part(pos);
        }
        let to = m.to();
        let moved = pos.piece_on(to);
        let us = moved.color();
        let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
        let mut part = before;
        if m.is_drop() {
            let pt = m.dropped();
            // Before the drop the hand held one more: its last piece goes.
            self.add_hand_piece(&mut part, us, pt, pos.hand(us).count(pt), -1);
            self.add_piece(&mut part, us, pt, to, kings, 1);
            return part;
        }
        let captured = pos.captured_piece();
        if captured.is_some() {
            let pt = captured.kind().unpromote();
            self.add_hand_piece(&mut part, us, pt, pos.hand(us).count(pt) - 1, 1);
        }
        let kind_before = if m.is_promotion() {
            moved.kind().unpromote()
        } else {
            moved.kind()
        };
        self.add_piece(&mut part, us, kind_before, m.from(), kings, -1);
        self.add_piece(&mut part, us, moved.kind(), to, kings, 1);
        if captured.is_some() {
            self.add_piece(&mut part, captured.color(), captured.kind(), to, kings, -1);
        }
        if moved.kind() == PieceType::King {
            // Every term relative to the king that moved changed: made afresh.
            let mut fresh = 0;
            for_each_feature_relative_to_king(pos, us, to, |i, s| fresh += s * self.0[i]);
            part.relative[us.index()] = fresh;
        }
        part
    }

    /// The evaluation from the side to move's point of view, given `piece_part(pos)`: only king
    /// safety and mobility are computed here.
    #[inline]
    pub fn evaluate_with_piece_part(&self, pos: &Position, piece_part: PiecePart) -> Value {
        let mut sum = piece_part.total(phase(pos));
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
        let mut seen = [0usize; 6]; // drops, captures, promotions, king moves, king captures, other
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
                } else if moved == Some(PieceType::King) {
                    if pos.piece_on(m.to()).is_some() { 4 } else { 3 }
                } else if pos.piece_on(m.to()).is_some() {
                    1
                } else if m.is_promotion() {
                    2
                } else {
                    5
                };
                seen[slot] += 1;
            }
        }
        // King captures are rarer in these playouts (about 26 of 20,000 moves).
        let least = [100, 100, 100, 100, 20, 100];
        assert!(seen.iter().zip(least).all(|(&n, l)| n > l), "{seen:?}");
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
