//! The evaluation's parameters as one vector and a position's features as another, for the
//! fit (`kirin-tune dai-fit`): their dot product plus the hunt term is the evaluation.

use super::{
    DaiWeights, HuntCounts, MOBILITY_GROUP, MOBILITY_GROUPS, NO_GROUP, advance_of, advances,
    earns_in_zone, hunt_counts, royal_counts, royals_of,
};
use crate::dai::types::KINDS;
use crate::dai::{PieceType, Position};

/// Parameters as one vector, in this order: material by kind index (`KINDS`, the royals' and
/// index 0 unused), advance, in_zone, royal_guard, royal_danger, lone_royal, mobility by group,
/// tempo. The evaluation is the dot product of this vector with [`DaiFeatures::linear`] plus
/// the hunt term, which is not linear in the parameters and is left out of the vector:
/// `kirin-tune dai-fit` keeps the `hunt*` parameters as they are.
pub const NUM_PARAMS: usize = KINDS + 5 + MOBILITY_GROUPS + 1;
const ADVANCE_AT: usize = KINDS;
const IN_ZONE_AT: usize = KINDS + 1;
const GUARD_AT: usize = KINDS + 2;
const DANGER_AT: usize = KINDS + 3;
const LONE_AT: usize = KINDS + 4;
const MOBILITY_AT: usize = KINDS + 5;
const TEMPO_AT: usize = MOBILITY_AT + MOBILITY_GROUPS;

/// What the parameters multiply in one position, from the side to move's point of view (the
/// mover's counts minus the opponent's), and what the hunt term needs.
#[derive(Clone, Debug, PartialEq)]
pub struct DaiFeatures {
    pub linear: Vec<f64>,
    /// The hunt counts of the mover against the opponent's royals, and of the opponent against
    /// the mover's (`None`: no royal to close in on).
    pub hunt: [Option<HuntCounts>; 2],
}

impl DaiFeatures {
    /// The evaluation for the parameter vector `params` with the hunt parameters of `weights`.
    pub fn value(&self, params: &[f64], weights: &DaiWeights) -> f64 {
        let v: f64 = params.iter().zip(&self.linear).map(|(a, b)| a * b).sum();
        let lead = v - params[TEMPO_AT];
        let hunt_lead = f64::from(weights.hunt_lead);
        let hunt = |n: &Option<HuntCounts>| n.map_or(0.0, |n| f64::from(weights.hunt_value(&n)));
        // As `DaiWeights::hunt_bonus`, on the unrounded lead.
        // Truncated as the engine's integer division is.
        let share = |n: f64, lead: f64| (n * (lead - hunt_lead).min(hunt_lead) / hunt_lead).trunc();
        let bonus = if lead > hunt_lead {
            share(hunt(&self.hunt[0]), lead)
        } else if -lead > hunt_lead {
            -share(hunt(&self.hunt[1]), -lead)
        } else {
            0.0
        };
        v + bonus
    }
}

impl DaiWeights {
    pub fn to_params(&self) -> Vec<f64> {
        let mut p = Vec::with_capacity(NUM_PARAMS);
        p.extend(self.material.iter().map(|&v| f64::from(v)));
        p.extend(
            [
                self.advance,
                self.in_zone,
                self.royal_guard,
                self.royal_danger,
                self.lone_royal,
            ]
            .map(f64::from),
        );
        p.extend(self.mobility.iter().map(|&v| f64::from(v)));
        p.push(f64::from(self.tempo));
        p
    }

    /// These weights with the linear parameters nearest to `p` (rounded to integers; the
    /// royals' material stays at zero); `p` must have `NUM_PARAMS` entries.
    pub fn with_params(&self, p: &[f64]) -> DaiWeights {
        let at = |i: usize| p.get(i).copied().unwrap_or(0.0).round() as i32;
        let mut w = self.clone();
        for k in PieceType::ALL {
            if !k.is_royal() {
                w.material[k.index()] = at(k.index());
            }
        }
        w.advance = at(ADVANCE_AT);
        w.in_zone = at(IN_ZONE_AT);
        w.royal_guard = at(GUARD_AT);
        w.royal_danger = at(DANGER_AT);
        w.lone_royal = at(LONE_AT);
        for g in 0..MOBILITY_GROUPS {
            w.mobility[g] = at(MOBILITY_AT + g);
        }
        w.tempo = at(TEMPO_AT);
        w
    }

    /// The features of `pos`: the same counts `evaluate` makes, every term whatever its weight.
    pub fn features(pos: &Position) -> DaiFeatures {
        let mut f = vec![0.0; NUM_PARAMS];
        let us = pos.side_to_move();
        let royals = royals_of(pos);
        let mut guards = [0; 2];
        for (c, sign) in [(us, 1.0), (us.flip(), -1.0)] {
            for sq in pos.pieces(c) {
                let Some(kind) = pos.piece_on(sq).kind() else {
                    continue;
                };
                if kind.is_royal() {
                    continue;
                }
                f[kind.index()] += sign;
                let adv = advance_of(c, sq);
                if advances(kind) {
                    f[ADVANCE_AT] += sign * f64::from(adv);
                }
                if earns_in_zone(pos, kind, adv, sq) {
                    f[IN_ZONE_AT] += sign;
                }
                let group = MOBILITY_GROUP[kind.index()];
                if group != NO_GROUP {
                    f[MOBILITY_AT + usize::from(group)] += sign * f64::from(pos.reach(sq));
                }
            }
            if royals[c.index()].len() == 1 {
                f[LONE_AT] -= sign;
            }
            let (g, attackers) = royal_counts(pos, &royals, c);
            guards[c.index()] = g;
            f[GUARD_AT] += sign * f64::from(g);
            f[DANGER_AT] -= sign * f64::from(attackers);
        }
        f[TEMPO_AT] = 1.0;
        let hunt = [us, us.flip()]
            .map(|hunter| hunt_counts(pos, &royals, guards[hunter.flip().index()], hunter));
        DaiFeatures { linear: f, hunt }
    }
}
