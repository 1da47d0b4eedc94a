//! Labels smoothed along the game: a position's label blended with the searches of the positions
//! next to it in the same game.
//!
//! A generator game plays each search's best move, so the position after it is the one that
//! search's score stands for: the next search, a ply further along the same line, is a second
//! estimate of the same value from the other side, and the search before, which played the move
//! into this position, a third a ply shallower. The blend (weights falling by a factor a ply each
//! way, as in TD(lambda)) is taken in winning probability, so that a mate score counts as a
//! certain result rather than as a huge number of centipawns. It is nearer a deeper search than
//! the label alone, yet a network trained on it played worse (`tuning/notes/rounds-11-16.md`,
//! "Round 12"), so the trainer uses it only when asked.

use super::sigmoid;
use crate::eval::CP_PER_LOGIT;

/// Plies on either side of a position that its smoothed label looks at; at weights up to about
/// 0.7 a ply, the ones further away count for under 6 % together.
pub const HORIZON: usize = 8;

/// A mover's score as the chained format stores it (mates as +-(32000 - plies)) in winning
/// probability for that mover.
fn probability(score: i32) -> f64 {
    if score.abs() >= 31_000 {
        if score > 0 { 1.0 } else { 0.0 }
    } else {
        sigmoid(f64::from(score) / f64::from(CP_PER_LOGIT))
    }
}

/// How a label is blended with its game's other searches: the weight of the search `k` plies
/// after it is `ahead^k`, of the one `k` plies before it `behind^k` (the search before played
/// the move into this position as its best, so it saw this position too, a ply shallower).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Smoothing {
    pub ahead: f64,
    pub behind: f64,
}

impl Smoothing {
    /// No blending: every label is its own search's score.
    pub const NONE: Smoothing = Smoothing {
        ahead: 0.0,
        behind: 0.0,
    };

    /// `A` (ahead only) or `A:B` (ahead and behind), each from 0 to 1.
    pub fn parse(text: &str) -> Result<Smoothing, String> {
        let weight = |x: &str| match x.trim().parse::<f64>() {
            Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
            _ => Err(format!(
                "smoothing '{text}': '{x}' is not a weight from 0 to 1"
            )),
        };
        let (ahead, behind) = match text.split_once(':') {
            Some((a, b)) => (weight(a)?, weight(b)?),
            None => (weight(text)?, 0.0),
        };
        Ok(Smoothing { ahead, behind })
    }

    pub fn is_none(&self) -> bool {
        self.ahead <= 0.0 && self.behind <= 0.0
    }
}

impl std::fmt::Display for Smoothing {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}:{}", self.ahead, self.behind)
    }
}

/// The label of move `i` of a game whose movers' scores are `scores` (each from its own mover's
/// view, as [`super::selfplay::GameRecord::scores`] and the chained format hold them), blended
/// with up to [`HORIZON`] plies on either side (see [`Smoothing`]), in centipawns for the mover
/// of move `i`.
pub fn smoothed(scores: &[i32], i: usize, by: Smoothing) -> i32 {
    if by.is_none() {
        return scores[i];
    }
    let (mut sum, mut total) = (0.0, 0.0);
    let mut add = |k: usize, s: i32, weight: f64| {
        let p = probability(s);
        sum += weight * if k.is_multiple_of(2) { p } else { 1.0 - p };
        total += weight;
    };
    let mut weight = 1.0;
    for (k, &s) in scores.iter().skip(i).take(HORIZON + 1).enumerate() {
        add(k, s, weight);
        weight *= by.ahead;
    }
    let mut weight = by.behind;
    for (k, &s) in scores[..i].iter().rev().take(HORIZON).enumerate() {
        add(k + 1, s, weight);
        weight *= by.behind;
    }
    let p = (sum / total).clamp(1e-6, 1.0 - 1e-6);
    let cp = (p / (1.0 - p)).ln() * f64::from(CP_PER_LOGIT);
    cp.round().clamp(-30_000.0, 30_000.0) as i32
}

/// Every move's smoothed label (see [`smoothed`]); `None` without smoothing, where the labels
/// are the scores themselves.
pub fn smooth_all(scores: &[i32], by: Smoothing) -> Option<Vec<i32>> {
    (!by.is_none()).then(|| (0..scores.len()).map(|i| smoothed(scores, i, by)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ahead(w: f64) -> Smoothing {
        Smoothing {
            ahead: w,
            behind: 0.0,
        }
    }

    #[test]
    fn no_weight_is_the_score_itself() {
        let scores = [120, -80, 3000, -31_990];
        for i in 0..scores.len() {
            assert_eq!(smoothed(&scores, i, Smoothing::NONE), scores[i]);
        }
        assert_eq!(Smoothing::parse("0").unwrap(), Smoothing::NONE);
        assert_eq!(Smoothing::parse("0.5").unwrap(), ahead(0.5));
        let both = Smoothing::parse("0.5:0.25").unwrap();
        assert_eq!((both.ahead, both.behind), (0.5, 0.25));
        assert_eq!(Smoothing::parse(&both.to_string()).unwrap(), both);
        for bad in ["", "1.5", "-0.1", "a:0.2", "0.2:"] {
            assert!(Smoothing::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn agreeing_searches_leave_the_label_alone() {
        // Each mover's score is the negation of the one before: one value seen from both sides.
        let scores = [200, -200, 200, -200, 200];
        for by in [ahead(0.3), ahead(0.9), Smoothing::parse("0.5:0.5").unwrap()] {
            for i in 0..scores.len() {
                let s = smoothed(&scores, i, by);
                assert!((s - scores[i]).abs() <= 1, "{by} {i}: {s}");
            }
        }
    }

    #[test]
    fn the_next_search_pulls_the_label_towards_its_view() {
        // The mover says +300; the opponent, one ply deeper, says it is only -100 for them.
        let scores = [300, -100];
        let half = smoothed(&scores, 0, ahead(1.0));
        // Equal weights: the mean of the two probabilities, between +100 and +300.
        let mean = (probability(300) + probability(100)) / 2.0;
        let expect = (mean / (1.0 - mean)).ln() * f64::from(CP_PER_LOGIT);
        assert!((f64::from(half) - expect).abs() <= 1.0, "{half} {expect}");
        assert!(100 < half && half < 300);
        // A smaller lambda stays nearer the mover's own score.
        let near = smoothed(&scores, 0, ahead(0.3));
        assert!(half < near && near < 300, "{near}");
        // The last move has nothing after it; looking back, it has the first.
        assert_eq!(smoothed(&scores, 1, ahead(0.5)), -100);
        let back = smoothed(&scores, 1, Smoothing::parse("0.5:1").unwrap());
        assert!((back + half).abs() <= 1, "{back} {half}");
    }

    #[test]
    fn a_mate_found_next_is_a_certain_result_not_a_huge_score() {
        // The next search finds the mover mated: the blend is a large loss, bounded.
        let scores = [0, 31_995];
        let s = smoothed(&scores, 0, ahead(1.0));
        assert!(s < -500 && s > -30_000, "{s}");
        // Weights fall by lambda a ply and stop after the horizon.
        let mut long = vec![0; HORIZON + 1];
        long.push(31_000);
        assert_eq!(smoothed(&long, 0, ahead(0.9)), 0);
        assert_eq!(smooth_all(&long, Smoothing::NONE), None);
        assert_eq!(smooth_all(&long, ahead(0.9)).unwrap()[0], 0);
    }
}
