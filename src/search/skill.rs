//! Playing below full strength, for people who play kirin at home.
//!
//! A strength is a level from 0 (weakest) to 20 (full strength), fractional when it comes from
//! an Elo. Two things weaken a level, and neither depends on the clock, so that a level plays
//! alike at any time control: a node budget that shrinks geometrically as the level falls, and
//! a choice among the best few root lines with noise: line `i` is played with a probability
//! proportional to `exp((score_i - best) / temperature)`, the temperature growing as the level
//! falls. A mate in one always scores far above any other line, so no level misses one it found,
//! and the search finds every mate in one within its first ply. The noise is drawn from a
//! generator seeded by the position and the seed option, so a game replays exactly.

/// Full strength: the level at which nothing is weakened.
pub const FULL_LEVEL: f64 = 20.0;

/// Root lines searched (MultiPV) for a weakened level to choose among.
pub const CANDIDATES: usize = 4;

/// Below this level the opening book is not used: its moves are full-strength moves.
pub const BOOK_LEVEL: f64 = 10.0;

/// The node budget at level 0 and its growth per level: 600 nodes at level 0 (about what the
/// first ply of four lines takes, so a one-ply search), about 13,000 at level 10 and 207,000 at
/// level 19. Full strength searches about 480,000 nodes in a second on one core of the
/// calibration machine: level 19 stays well under it, so that the top of the ladder still
/// rises at the calibration's byoyomi of 1 s (a growth of 1.45 put levels 18 and 19 at or
/// above full strength's nodes).
const NODES_AT_ZERO: f64 = 600.0;
const NODES_GROWTH_PER_LEVEL: f64 = 1.36;

/// The noise's temperature at level 0, in evaluation units (1,182 to one logistic unit), and
/// its fall per level: 400 at level 0 makes a line 200 units worse still played one time in
/// three; at level 19 the temperature is about 6, so only near-equal lines are mixed.
const TEMPERATURE_AT_ZERO: f64 = 400.0;
const TEMPERATURE_FALL_PER_LEVEL: f64 = 0.8;

/// How long a weakened level holds its answer at least, when that is asked for: a person sees
/// an instant reply as a machine's, and a weak level would otherwise move at once.
pub const HOLD_MS: u64 = 800;

/// The Elo a level stands for, from level 0 to 20, as measured by games (`tuning/levels.py`,
/// run 6: the round-6 network, byoyomi 1 s, each level against the next in 200 games, full
/// strength against gpsshogi at 1 s, set at 3,000, in 150; `tuning/notes/levels.md`). Rerun
/// when the network changes.
const ELO_OF_LEVEL: [f64; 21] = [
    424.4, 569.5, 710.5, 810.5, 890.0, 980.6, 1093.9, 1215.0, 1385.6, 1489.3, 1565.2, 1678.5,
    1855.7, 1974.8, 2078.5, 2174.7, 2315.8, 2386.2, 2482.4, 2589.9, 3092.5,
];

/// The lowest and highest `UCI_Elo`: the table's ends, so that a new table brings its range.
pub const MIN_ELO: i32 = ELO_OF_LEVEL[0] as i32;
pub const MAX_ELO: i32 = ELO_OF_LEVEL[ELO_OF_LEVEL.len() - 1] as i32;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    /// 0.0 to just below [`FULL_LEVEL`].
    level: f64,
    seed: u64,
    /// Whether the answer is held for [`HOLD_MS`] (off for calibration runs).
    hold: bool,
}

impl Skill {
    /// The skill of a level, or `None` at full strength.
    pub fn from_level(level: f64, seed: u64, hold: bool) -> Option<Skill> {
        (level < FULL_LEVEL).then(|| Skill {
            level: level.max(0.0),
            seed,
            hold,
        })
    }

    /// The level an Elo stands for, clamped to the table's ends. Below level 19 the strength
    /// is interpolated between two levels: there a level and the next differ by one step of
    /// the node budget and the noise, and a fractional level takes a budget and a noise between
    /// theirs. Above level 19 there is no such step: full strength searches one line on the
    /// clock, not four on a budget, and plays far above level 19 (the table), so an Elo between
    /// them gets whichever of the two is nearer.
    pub fn level_of_elo(elo: i32) -> f64 {
        let elo = f64::from(elo.clamp(MIN_ELO, MAX_ELO));
        let top = ELO_OF_LEVEL.len() - 1;
        let upper = ELO_OF_LEVEL.iter().position(|&e| e >= elo).unwrap_or(top);
        if upper == 0 {
            return 0.0;
        }
        let (lo, hi) = (ELO_OF_LEVEL[upper - 1], ELO_OF_LEVEL[upper]);
        if upper == top {
            return if elo - lo < hi - elo {
                (top - 1) as f64
            } else {
                FULL_LEVEL
            };
        }
        (upper - 1) as f64 + (elo - lo) / (hi - lo)
    }

    pub fn level(&self) -> f64 {
        self.level
    }

    pub fn uses_book(&self) -> bool {
        self.level >= BOOK_LEVEL
    }

    pub fn holds(&self) -> bool {
        self.hold
    }

    /// The most nodes a search at this level may spend.
    pub fn nodes(&self) -> u64 {
        (NODES_AT_ZERO * NODES_GROWTH_PER_LEVEL.powf(self.level)).round() as u64
    }

    fn temperature(&self) -> f64 {
        TEMPERATURE_AT_ZERO * TEMPERATURE_FALL_PER_LEVEL.powf(self.level)
    }

    /// The index of the line to play among `scores` (best first, evaluation units), drawn
    /// with the level's noise from a generator seeded by `key` (the position's) and the seed.
    pub fn choose(&self, scores: &[i32], key: u64) -> usize {
        let Some(&best) = scores.first() else {
            return 0;
        };
        let t = self.temperature();
        let weights: Vec<f64> = scores
            .iter()
            .map(|&s| (f64::from(s.saturating_sub(best)) / t).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        // A uniform draw in [0, total) from 53 bits of the mixed key and seed.
        let draw =
            (mix(key ^ self.seed.rotate_left(17)) >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut acc = 0.0;
        for (i, w) in weights.iter().enumerate() {
            acc += w;
            if draw < acc {
                return i;
            }
        }
        0
    }
}

/// SplitMix64's finaliser: one well-spread 64-bit value per input, which is all one choice
/// needs (a generator with state would add nothing).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(level: f64) -> Skill {
        Skill::from_level(level, 7, false).unwrap()
    }

    #[test]
    fn full_strength_has_no_skill() {
        assert!(Skill::from_level(FULL_LEVEL, 0, true).is_none());
        assert!(Skill::from_level(19.99, 0, true).is_some());
    }

    #[test]
    fn budgets_grow_and_noise_falls_with_the_level() {
        let levels: Vec<Skill> = (0..20).map(|l| skill(f64::from(l))).collect();
        for pair in levels.windows(2) {
            assert!(pair[0].nodes() < pair[1].nodes());
            assert!(pair[0].temperature() > pair[1].temperature());
        }
        assert_eq!(levels[0].nodes(), 600);
        // Under half of full strength's nodes at 1 s on one core (about 480,000).
        assert!((150_000..240_000).contains(&levels[19].nodes()));
    }

    #[test]
    fn elo_maps_onto_levels_monotonically() {
        assert_eq!(Skill::level_of_elo(MIN_ELO - 500), 0.0);
        assert_eq!(Skill::level_of_elo(MAX_ELO + 500), FULL_LEVEL);
        // Strictly rising up to level 19, and never falling above it.
        let mut last = -1.0;
        for elo in (MIN_ELO..=MAX_ELO).step_by(37) {
            let level = Skill::level_of_elo(elo);
            if f64::from(elo) <= ELO_OF_LEVEL[19] {
                assert!(level > last, "{elo}: {level} after {last}");
            } else {
                assert!(level >= last, "{elo}: {level} after {last}");
            }
            last = level;
        }
        assert!((Skill::level_of_elo(ELO_OF_LEVEL[7] as i32) - 7.0).abs() < 1e-9);
    }

    #[test]
    fn an_elo_between_level_19_and_full_strength_gets_the_nearer_of_the_two() {
        let (l19, full) = (ELO_OF_LEVEL[19], ELO_OF_LEVEL[20]);
        assert!(full - l19 > 4.0);
        let near_19 = (l19 + (full - l19) / 4.0) as i32;
        let near_full = (full - (full - l19) / 4.0) as i32;
        assert_eq!(Skill::level_of_elo(near_19), 19.0);
        assert_eq!(Skill::level_of_elo(near_full), FULL_LEVEL);
        assert_eq!(Skill::level_of_elo(full.ceil() as i32), FULL_LEVEL);
        assert!(Skill::from_level(Skill::level_of_elo(near_full), 0, false).is_none());
    }

    /// How often each line is played over many positions.
    fn shares(s: &Skill, scores: &[i32]) -> Vec<f64> {
        let mut counts = vec![0u32; scores.len()];
        for key in 0..20_000u64 {
            counts[s.choose(scores, key.wrapping_mul(0x9E37_79B9_7F4A_7C15))] += 1;
        }
        counts.iter().map(|&c| f64::from(c) / 20_000.0).collect()
    }

    #[test]
    fn weak_levels_mix_lines_and_strong_levels_play_the_best() {
        let scores = [100, 60, 0, -200];
        let weak = shares(&skill(0.0), &scores);
        let strong = shares(&skill(19.0), &scores);
        assert!(weak[0] < 0.5 && weak[3] > 0.05, "{weak:?}");
        assert!(weak.windows(2).all(|w| w[0] > w[1]), "{weak:?}");
        assert!(strong[0] > 0.99, "{strong:?}");
        // The drawn shares follow the weights within sampling error.
        let t = skill(0.0).temperature();
        let w: Vec<f64> = scores
            .iter()
            .map(|&s| (f64::from(s - 100) / t).exp())
            .collect();
        let total: f64 = w.iter().sum();
        for (share, weight) in weak.iter().zip(&w) {
            assert!((share - weight / total).abs() < 0.02, "{weak:?}");
        }
    }

    #[test]
    fn a_mate_in_one_is_always_played() {
        let mate_in_one = 32_000 - 1;
        for level in 0..20 {
            let s = skill(f64::from(level));
            for key in 0..2_000 {
                assert_eq!(s.choose(&[mate_in_one, 2_900, 2_800, 0], key), 0);
            }
        }
    }

    #[test]
    fn the_choice_replays_from_the_seed_and_the_position() {
        let scores = [10, 0, -5, -10];
        let a = Skill::from_level(2.0, 1, false).unwrap();
        let b = Skill::from_level(2.0, 2, false).unwrap();
        let same = (0..500).all(|k| a.choose(&scores, k) == a.choose(&scores, k));
        let differ = (0..500).any(|k| a.choose(&scores, k) != b.choose(&scores, k));
        assert!(same && differ);
    }
}
