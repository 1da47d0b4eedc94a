//! Evaluations as the analysis reports them: centipawns from Black's view, winning probability,
//! and the marks that a move's loss in winning probability earns.

use crate::search::Score;
use serde::Serialize;

/// Centipawn value standing for a mate, minus the plies to it: well above any evaluation, so
/// that mates sort above material and a quicker mate above a slower one.
pub const MATE_CP: i32 = 30_000;

/// GUIs' winning-probability curve (ShogiHome, Shogidokoro): 600 cp is one logistic unit.
/// The only place in the analysis where centipawns become a probability.
pub fn win_probability(cp: i32) -> f64 {
    1.0 / (1.0 + (-f64::from(cp) / 600.0).exp())
}

/// A search result from one side's view: centipawns, and the plies to mate when there is one
/// (positive: this side mates; negative: this side is mated; 0 with a negative `cp`: mated now).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    pub cp: i32,
    pub mate: Option<i32>,
}

impl Eval {
    pub fn from_score(score: Score) -> Eval {
        match score {
            // The search scores in evaluation units; reports use the GUI scale.
            Score::Cp(cp) => Eval {
                cp: crate::eval::to_reported_cp(cp).clamp(-(MATE_CP - 1000), MATE_CP - 1000),
                mate: None,
            },
            Score::Mate(plies) => Eval::mate(plies),
        }
    }

    /// Mate in `plies` for this side (negative: this side gets mated).
    pub fn mate(plies: i32) -> Eval {
        let cp = if plies > 0 {
            MATE_CP - plies
        } else {
            -MATE_CP - plies
        };
        Eval {
            cp,
            mate: Some(plies),
        }
    }

    /// The side to move has been checkmated (no legal move).
    pub fn mated_now() -> Eval {
        Eval {
            cp: -MATE_CP,
            mate: Some(0),
        }
    }

    /// The same evaluation from the other side's view.
    pub fn flip(self) -> Eval {
        Eval {
            cp: -self.cp,
            mate: self.mate.map(|m| -m),
        }
    }

    pub fn win_probability(self) -> f64 {
        match self.mate {
            Some(_) if self.cp > 0 => 1.0,
            Some(_) => 0.0,
            None => win_probability(self.cp),
        }
    }
}

/// How bad a move was, from its loss in winning probability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Good,
    Inaccuracy,
    Dubious,
    Mistake,
    Blunder,
}

impl Mark {
    pub const ALL: [Mark; 5] = [
        Mark::Good,
        Mark::Inaccuracy,
        Mark::Dubious,
        Mark::Mistake,
        Mark::Blunder,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mark::Good => "good",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Dubious => "dubious",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }

    /// The word Japanese GUIs use (ShogiHome's 緩手 / 疑問手 / 悪手 / 大悪手).
    pub fn japanese(self) -> &'static str {
        match self {
            Mark::Good => "好手",
            Mark::Inaccuracy => "緩手",
            Mark::Dubious => "疑問手",
            Mark::Mistake => "悪手",
            Mark::Blunder => "大悪手",
        }
    }
}

/// Thresholds, in percent of winning probability lost, for inaccuracy, dubious, mistake and
/// blunder. ShogiHome's defaults are 5 / 10 / 20 / 50.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marks(pub [f64; 4]);

impl Default for Marks {
    fn default() -> Self {
        Marks([5.0, 10.0, 20.0, 50.0])
    }
}

impl Marks {
    /// Reads `5,10,20,50`: four increasing percentages.
    pub fn parse(text: &str) -> Result<Marks, String> {
        let values: Vec<f64> = text
            .split(',')
            .map(|s| s.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("--marks wants four numbers like 5,10,20,50, not `{text}`"))?;
        let Ok(values) = <[f64; 4]>::try_from(values) else {
            return Err(format!("--marks wants four numbers, not `{text}`"));
        };
        let increasing = values.windows(2).all(|w| w[0] <= w[1]);
        if !increasing || values[0] < 0.0 || values[3] > 100.0 {
            return Err(format!(
                "--marks wants increasing percentages between 0 and 100, not `{text}`"
            ));
        }
        Ok(Marks(values))
    }

    /// The mark for a loss of `loss` (a fraction, 0..=1) of winning probability. The loss is
    /// compared as the records and the JSON print it, in hundredths of a percent, so that a
    /// reader who checks a printed loss against the thresholds finds the same mark.
    pub fn mark(&self, loss: f64) -> Mark {
        let percent = (loss * 10_000.0).round() / 100.0;
        let m = &self.0;
        if percent >= m[3] {
            Mark::Blunder
        } else if percent >= m[2] {
            Mark::Mistake
        } else if percent >= m[1] {
            Mark::Dubious
        } else if percent >= m[0] {
            Mark::Inaccuracy
        } else {
            Mark::Good
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_follows_the_gui_curve() {
        assert!((win_probability(0) - 0.5).abs() < 1e-12);
        assert!((win_probability(600) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert!((win_probability(-600) + win_probability(600) - 1.0).abs() < 1e-12);
        assert_eq!(Eval::mate(3).win_probability(), 1.0);
        assert_eq!(Eval::mate(-2).win_probability(), 0.0);
        assert_eq!(Eval::mated_now().win_probability(), 0.0);
    }

    #[test]
    fn mates_order_by_distance_and_flip() {
        assert!(Eval::mate(1).cp > Eval::mate(5).cp);
        assert!(Eval::mate(-1).cp < Eval::mate(-5).cp);
        assert_eq!(Eval::mate(3).flip(), Eval::mate(-3));
        assert!(Eval::from_score(Score::Cp(1_000_000)).cp < Eval::mate(100).cp);
    }

    #[test]
    fn marks_from_thresholds() {
        let m = Marks::default();
        assert_eq!(m.mark(0.0), Mark::Good);
        assert_eq!(m.mark(0.049), Mark::Good);
        assert_eq!(m.mark(0.05), Mark::Inaccuracy);
        assert_eq!(m.mark(0.15), Mark::Dubious);
        assert_eq!(m.mark(0.2), Mark::Mistake);
        assert_eq!(m.mark(0.7), Mark::Blunder);
        // As printed: 19.9999 % is 20.00 %, a mistake; 19.994 % is 19.99 %, dubious.
        assert_eq!(m.mark(0.199_999), Mark::Mistake);
        assert_eq!(m.mark(0.199_94), Mark::Dubious);
        assert_eq!(
            Marks::parse("1, 2,3,4").unwrap(),
            Marks([1.0, 2.0, 3.0, 4.0])
        );
        assert!(Marks::parse("5,10,20").is_err());
        assert!(Marks::parse("5,30,20,50").is_err());
        assert!(Marks::parse("a,b,c,d").is_err());
    }
}
