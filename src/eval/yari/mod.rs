//! The yari shogi evaluation: material on the board and in hand, placement by square, pieces
//! near either king, mobility, and the king's shelter. It is linear in its parameters, which
//! are data (`yari_weights.txt`, read once and shared) fitted by `kirin-tune yari-fit`.

mod file;
#[cfg(test)]
mod tests;

use crate::eval::WholePositionEvaluation;
use crate::shogi::{Color, HandCounts, Kind, Square};
use crate::yari::{PieceType, Position, attacks};
use std::sync::{Arc, OnceLock};

/// Kinds are indexed by `PieceType::index()`, which is below 16.
const KINDS: usize = 16;
const RANKS: usize = 9;
/// The board is the same seen from left and right: files 1-7 fold onto four, counted from the
/// edge (0) to the centre file (3).
const FILE_CLASSES: usize = 4;
/// Where a piece stands against a king: files apart (0, 1, 2, 3 or more), and ranks from
/// three or more behind the king to three or more in front of it, from the piece's side.
const NEAR_FILES: usize = 4;
const NEAR_RANKS: usize = 7;
const NEAR: usize = NEAR_FILES * NEAR_RANKS;

const BOARD_AT: usize = 0;
const HAND_AT: usize = KINDS;
const SQUARE_AT: usize = 2 * KINDS;
const ENEMY_KING_AT: usize = SQUARE_AT + KINDS * RANKS * FILE_CLASSES;
const OWN_KING_AT: usize = ENEMY_KING_AT + KINDS * NEAR;
const MOBILITY_AT: usize = OWN_KING_AT + KINDS * NEAR;
const GUARD_AT: usize = MOBILITY_AT + KINDS;
const PRESSURE_AT: usize = GUARD_AT + 1;
const TEMPO_AT: usize = GUARD_AT + 2;
/// Parameters as one vector: on-board values by kind (16), in-hand values (16), square
/// bonuses by kind, rank and file class (16 x 9 x 4), bonuses for standing near the enemy king
/// and near one's own (16 x 28 each), mobility by kind (16), king guard, king pressure, tempo.
pub const NUM_PARAMS: usize = TEMPO_AT + 1;

/// The evaluation's parameters, indexed as [`NUM_PARAMS`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YariWeights {
    params: Vec<i32>,
}

/// A position's features, sparse: (parameter index, count) pairs, an index possibly repeated.
/// The evaluation is the sum of each count times its parameter.
pub type Features = Vec<(u32, f32)>;

impl YariWeights {
    /// The embedded parameters.
    pub fn embedded() -> Arc<YariWeights> {
        static WEIGHTS: OnceLock<Arc<YariWeights>> = OnceLock::new();
        crate::eval::embedded_weights(&WEIGHTS, file::WEIGHTS_TEXT, YariWeights::parse)
    }

    pub fn to_params(&self) -> Vec<f64> {
        self.params.iter().map(|&v| f64::from(v)).collect()
    }

    /// The weights nearest to `p` (rounded to integers); missing entries are 0.
    pub fn from_params(p: &[f64]) -> YariWeights {
        YariWeights {
            params: (0..NUM_PARAMS)
                .map(|i| p.get(i).copied().unwrap_or(0.0).round() as i32)
                .collect(),
        }
    }

    /// What the parameters multiply, from the side to move's point of view: the mover's counts
    /// minus the opponent's.
    pub fn features(pos: &Position) -> Features {
        let mut f = Vec::with_capacity(128);
        terms(pos, |i, n| f.push((i as u32, n as f32)));
        f
    }
}

impl WholePositionEvaluation<Position> for YariWeights {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        let mut v = 0;
        terms(pos, |i, n| v += self.params[i] * n);
        v
    }
}

/// Calls `add(parameter index, count)` for every term of the evaluation of `pos` from the side
/// to move's view; the evaluation is the sum of each count times its parameter.
#[inline]
fn terms(pos: &Position, mut add: impl FnMut(usize, i32)) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    for (c, sign) in [(us, 1), (!us, -1)] {
        let own = pos.pieces_of(c);
        let (own_king, enemy_king) = (pos.king_square(c), pos.king_square(!c));
        for sq in own {
            let kind = pos.piece_on(sq).kind();
            let k = kind.index();
            add(BOARD_AT + k, sign);
            let rank = usize::from(sq.relative_rank(c));
            add(
                SQUARE_AT + (k * RANKS + rank) * FILE_CLASSES + file_class(sq),
                sign,
            );
            if let Some(e) = enemy_king {
                add(ENEMY_KING_AT + k * NEAR + near(c, sq, e), sign);
            }
            if kind == PieceType::King {
                continue;
            }
            if let Some(o) = own_king {
                add(OWN_KING_AT + k * NEAR + near(c, sq, o), sign);
            }
            // A pawn's one square says little but whether it is blocked.
            if kind != PieceType::Pawn {
                let reach = attacks::attacks(c, kind, sq, occ).and_not(own).count() as i32;
                add(MOBILITY_AT + k, sign * reach);
            }
        }
        let hand = pos.hand(c);
        for k in PieceType::HAND {
            add(HAND_AT + k.index(), sign * hand.count(k) as i32);
        }
        if let Some(ksq) = own_king {
            let (guards, pressed) = shelter(pos, c, ksq);
            add(GUARD_AT, sign * guards as i32);
            add(PRESSURE_AT, -sign * pressed as i32);
        }
    }
    add(TEMPO_AT, 1);
}

/// Files 1-7 folded onto 0 (the edges) to 3 (the centre).
#[inline]
fn file_class(sq: Square) -> usize {
    let f = usize::from(sq.file());
    f.min(6 - f)
}

/// Where `c`'s piece on `sq` stands against the king on `king`: files apart (capped at 3) and
/// ranks behind the king from `c`'s side (-3 to 3, capped), as an index below `NEAR`.
#[inline]
fn near(c: Color, sq: Square, king: Square) -> usize {
    let files = usize::from(sq.file().abs_diff(king.file())).min(NEAR_FILES - 1);
    let behind = i32::from(sq.relative_rank(c)) - i32::from(king.relative_rank(c));
    files * NEAR_RANKS + (behind.clamp(-3, 3) + 3) as usize
}

/// Own pieces next to `c`'s king, and the squares next to it that the enemy attacks.
fn shelter(pos: &Position, c: Color, ksq: Square) -> (u32, u32) {
    let around = attacks::king_steps(ksq);
    let guards = (around & pos.pieces_of(c)).count();
    let occ = pos.occupied();
    let pressed = around
        .into_iter()
        .filter(|&sq| pos.is_attacked(!c, sq, occ))
        .count() as u32;
    (guards, pressed)
}
