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
use arrayvec::ArrayVec;
use std::sync::Arc;

/// The evaluation's parameters, in evaluation units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaiWeights {
    /// Evaluation units per exchange-value point (`dai::value` has a pawn at 100).
    pub material_scale: i32,
    /// Per rank advanced, for a pawn, go-between, iron, stone or copper (they promote to
    /// golds or better in the far zone and guard nothing from behind).
    pub advance: i32,
    /// For a promotable piece standing in the promotion zone (it may promote on its next move;
    /// not given to a pawn that declined under `DeclinedPawnRule::LastRankOnly`).
    pub in_zone: i32,
    /// Per own piece next to a royal.
    pub royal_guard: i32,
    /// Per enemy piece within two squares of a royal.
    pub royal_danger: i32,
    /// For a side with a single royal: losing it loses the game.
    pub lone_royal: i32,
    /// For a side ahead by at least `hunt_lead` (all other terms counted): per piece and per square closer
    /// to the nearest enemy royal (of 14). Without it a won game is drawn at the move limit,
    /// the pieces never closing in on the royal they must take.
    pub hunt: i32,
    pub hunt_lead: i32,
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
            hunt: 2,
            hunt_lead: 1500,
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

impl DaiWeights {
    /// From the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        use PieceType::*;
        let mut score = [0i32; 2];
        let mut royals: [ArrayVec<Square, 4>; 2] = [ArrayVec::new(), ArrayVec::new()];
        for c in [Color::Black, Color::White] {
            let side = &mut score[c.index()];
            for sq in pos.pieces(c) {
                let Some(kind) = pos.piece_on(sq).kind() else {
                    continue;
                };
                if kind.is_royal() {
                    // More than four royals only come from a hand-made SFEN.
                    let _ = royals[c.index()].try_push(sq);
                    continue;
                }
                *side += value(kind) * self.material_scale;
                let adv = advance_of(c, sq);
                if matches!(kind, Pawn | GoBetween | Iron | Stone | Copper) {
                    *side += adv * self.advance;
                }
                // A pawn that declined a promotion under HaChu's rule has no chance left
                // but a capture onto the last rank: standing in the zone no longer helps it.
                if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                    *side += self.in_zone;
                }
            }
        }
        for c in [Color::Black, Color::White] {
            let mine = &royals[c.index()];
            if mine.len() == 1 {
                score[c.index()] -= self.lone_royal;
            }
            // Guards (own pieces next to a royal) and attackers (enemy pieces within two
            // squares): the 5x5 square round each royal, not every piece on the board.
            for &r in mine {
                for dr in -2i32..=2 {
                    for df in -2i32..=2 {
                        let (f, rank) = (i32::from(r.file()) + df, i32::from(r.rank()) + dr);
                        let Some(sq) = u8::try_from(f)
                            .ok()
                            .zip(u8::try_from(rank).ok())
                            .and_then(|(f, rank)| Square::new(f, rank))
                        else {
                            continue;
                        };
                        let p = pos.piece_on(sq);
                        if sq == r || p.is_none() {
                            continue;
                        }
                        if p.color() == c {
                            if df.abs() <= 1 && dr.abs() <= 1 {
                                score[c.index()] += self.royal_guard;
                            }
                        } else {
                            score[c.index()] -= self.royal_danger;
                        }
                    }
                }
            }
        }
        for c in [Color::Black, Color::White] {
            let (i, them) = (c.index(), c.flip().index());
            if score[i] - score[them] >= self.hunt_lead && !royals[them].is_empty() {
                score[i] += self.hunt * hunt_closeness(pos, c, &royals[them]);
            }
        }
        let us = pos.side_to_move().index();
        score[us] - score[1 - us] + self.tempo
    }
}

/// How close `c`'s pieces stand to the nearest of `targets`: the sum over its pieces of 14 less
/// the distance in king moves.
fn hunt_closeness(pos: &Position, c: Color, targets: &[Square]) -> i32 {
    pos.pieces(c)
        .map(|sq| {
            let nearest = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
            14 - nearest
        })
        .sum()
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (i32::from(a.file()) - i32::from(b.file())).abs();
    let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
    df.max(dr)
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
        // The hunt for the royal (the lion's loss puts White far ahead) is left out here.
        let w = DaiWeights {
            hunt: 0,
            ..DaiWeights::default()
        };
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

    /// The evaluation as its terms are defined, piece by piece against every royal.
    fn by_definition(w: &DaiWeights, pos: &Position) -> i32 {
        let side = |c: Color| {
            let mut score = 0;
            let royals: Vec<Square> = pos
                .pieces(c)
                .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
                .collect();
            for sq in pos.pieces(c) {
                let kind = pos.piece_on(sq).kind().unwrap();
                if kind.is_royal() {
                    continue;
                }
                score += value(kind) * w.material_scale;
                let adv = advance_of(c, sq);
                if matches!(
                    kind,
                    PieceType::Pawn
                        | PieceType::GoBetween
                        | PieceType::Iron
                        | PieceType::Stone
                        | PieceType::Copper
                ) {
                    score += adv * w.advance;
                }
                if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                    score += w.in_zone;
                }
            }
            if royals.len() == 1 {
                score -= w.lone_royal;
            }
            let dist = |a: Square, b: Square| {
                let df = (i32::from(a.file()) - i32::from(b.file())).abs();
                let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
                df.max(dr)
            };
            for &r in &royals {
                score +=
                    pos.pieces(c).filter(|&sq| dist(sq, r) == 1).count() as i32 * w.royal_guard;
                score -= pos.pieces(c.flip()).filter(|&sq| dist(sq, r) <= 2).count() as i32
                    * w.royal_danger;
            }
            score
        };
        let us = pos.side_to_move();
        let (mut a, mut b) = (side(us), side(us.flip()));
        let royals_of = |c: Color| -> Vec<Square> {
            pos.pieces(c)
                .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
                .collect()
        };
        let closeness = |c: Color, targets: &[Square]| -> i32 {
            let mut total = 0;
            for sq in pos.pieces(c) {
                let d = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
                total += 14 - d;
            }
            total
        };
        let (ra, rb) = (royals_of(us.flip()), royals_of(us));
        let (a0, b0) = (a, b);
        if a0 - b0 >= w.hunt_lead && !ra.is_empty() {
            a += w.hunt * closeness(us, &ra);
        }
        if b0 - a0 >= w.hunt_lead && !rb.is_empty() {
            b += w.hunt * closeness(us.flip(), &rb);
        }
        a - b + w.tempo
    }

    #[test]
    fn the_evaluation_equals_its_definition_along_random_games() {
        let w = DaiWeights::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for _ in 0..6 {
            let mut pos = Position::startpos();
            for _ in 0..300 {
                assert_eq!(
                    w.evaluate(&pos),
                    by_definition(&w, &pos),
                    "{}",
                    pos.to_sfen()
                );
                checked += 1;
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.royals(pos.side_to_move()) == 0 {
                    break;
                }
                // Captures half the time, so that royals are approached and taken.
                let captures: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.is_capture(m))
                    .collect();
                let pool = if !captures.is_empty() && next() % 2 == 0 {
                    &captures
                } else {
                    &moves
                };
                pos.do_move(pool[(next() % pool.len() as u64) as usize]);
            }
        }
        assert!(checked > 500, "{checked} positions");
    }
}
