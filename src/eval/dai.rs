//! The dai shogi evaluation: material on the reference engine's scale, the advance of the
//! pieces that promote on reaching the far zone, and the shelter and danger round each royal.
//!
//! Everything is counted from scratch at each evaluation (at most 130 pieces), so the
//! per-thread stack holds nothing but the parameters. The units are the exchange values of
//! `dai::value` (a pawn is 100), which the game interface also gives the search for move
//! ordering and pruning, so that a capture's value means the same to both; standard shogi's
//! exchange values are on a similar scale (a pawn is 90).

use crate::dai::{PieceType, Position, Square, value};
use crate::shogi::Color;
use std::sync::Arc;

/// The evaluation's parameters, in evaluation units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaiWeights {
    /// Evaluation units per exchange-value point (`dai::value` has a pawn at 100).
    pub material_scale: i32,
    /// Per rank advanced, for a pawn, go-between, iron, stone or copper (they promote to
    /// golds or better in the far zone and guard nothing from behind).
    pub advance: i32,
    /// For a promotable piece standing in the promotion zone (it may promote on its next move).
    pub in_zone: i32,
    /// Per own piece next to a royal.
    pub royal_guard: i32,
    /// Per enemy piece within two squares of a royal.
    pub royal_danger: i32,
    /// For a side with a single royal: losing it loses the game.
    pub lone_royal: i32,
    pub tempo: i32,
}

impl Default for DaiWeights {
    fn default() -> DaiWeights {
        DaiWeights {
            material_scale: 1,
            advance: 3,
            in_zone: 15,
            royal_guard: 7,
            royal_danger: 20,
            lone_royal: 75,
            tempo: 15,
        }
    }
}

/// Ranks from `c`'s own back rank: 0 there, 14 on the far side.
#[inline]
fn advance_of(c: Color, sq: Square) -> i32 {
    match c {
        Color::Black => 14 - i32::from(sq.rank()),
        Color::White => i32::from(sq.rank()),
    }
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (i32::from(a.file()) - i32::from(b.file())).abs();
    let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
    df.max(dr)
}

impl DaiWeights {
    /// From the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        self.side(pos, us) - self.side(pos, us.flip()) + self.tempo
    }

    /// What colour `c` owns: its pieces, their advance, and its royals' shelter and danger.
    fn side(&self, pos: &Position, c: Color) -> i32 {
        use PieceType::*;
        let mut score = 0;
        let mut royals = Vec::with_capacity(2);
        for sq in pos.pieces(c) {
            let Some(kind) = pos.piece_on(sq).kind() else {
                continue;
            };
            if kind.is_royal() {
                royals.push(sq);
                continue;
            }
            score += value(kind) * self.material_scale;
            let adv = advance_of(c, sq);
            if matches!(kind, Pawn | GoBetween | Iron | Stone | Copper) {
                score += adv * self.advance;
            }
            if kind.can_promote() && adv >= 10 {
                score += self.in_zone;
            }
        }
        if royals.len() == 1 {
            score -= self.lone_royal;
        }
        for &r in &royals {
            for sq in pos.pieces(c) {
                if sq != r && distance(sq, r) == 1 {
                    score += self.royal_guard;
                }
            }
            for sq in pos.pieces(c.flip()) {
                if distance(sq, r) <= 2 {
                    score -= self.royal_danger;
                }
            }
        }
        score
    }
}

/// The per-thread stack: the parameters only, since each evaluation starts from scratch.
pub struct DaiEvalStack {
    weights: Arc<DaiWeights>,
}

impl DaiEvalStack {
    pub fn new(weights: &Arc<DaiWeights>) -> DaiEvalStack {
        DaiEvalStack {
            weights: Arc::clone(weights),
        }
    }

    #[inline]
    pub fn weights(&self) -> &DaiWeights {
        &self.weights
    }
}

/// The evaluation the engine plays dai shogi with.
pub fn embedded() -> Arc<DaiWeights> {
    Arc::new(DaiWeights::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_is_even_but_for_the_tempo() {
        let w = DaiWeights::default();
        assert_eq!(w.evaluate(&Position::startpos()), w.tempo);
    }

    #[test]
    fn material_and_a_lost_royal_count() {
        let w = DaiWeights::default();
        let start = Position::startpos();
        // Black without its lion (the `L!` on rank m).
        let sfen = crate::dai::START_SFEN.replace("1X'1A'1WOL!XW1A'1X'1", "1X'1A'1WO1XW1A'1X'1");
        let no_lion = Position::from_sfen(&sfen).unwrap();
        let lost = w.evaluate(&start) - w.evaluate(&no_lion);
        let lion = value(PieceType::Lion) * w.material_scale;
        assert!(
            (lion - 100..=lion + 100).contains(&lost),
            "lion worth {lost}, expected about {lion}"
        );
        // White to move sees the mirror image.
        let flipped = sfen.replace(" b - 1", " w - 1");
        let white = Position::from_sfen(&flipped).unwrap();
        assert_eq!(
            w.evaluate(&white) - w.tempo,
            -(w.evaluate(&no_lion) - w.tempo)
        );
    }
}
