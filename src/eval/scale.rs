//! How the evaluation's units relate to the centipawns GUIs show.
//!
//! GUIs turn `score cp` into a winning probability with `1 / (1 + exp(-cp / 600))`
//! (ShogiHome's default coefficient, the scale of YaneuraOu's evaluations). The fitted linear
//! evaluation maps to winning probability with `sigmoid(eval / K)`, K = 1182.2
//! (`tuning/notes/linear-weights.md`, round 2), so its units are about half as large. Scores are converted
//! only where they meet the user: `info score cp`, and the user-given `ResignValue` and
//! `DrawValueBlack`/`DrawValueWhite`. The search itself works in evaluation units throughout.
//!
//! Both evaluators work on that fitted scale (`CP_PER_LOGIT`): the network is trained to it, so
//! that the search's margins mean the same with either.

/// `reported cp = evaluation units * reported / internal`, rounded to the nearest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportScale {
    /// The GUI's logistic coefficient.
    pub reported: i32,
    /// The evaluation's own coefficient for the same winning probability.
    pub internal: i32,
}

/// The current evaluation's scale: the GUI coefficient 600 over the fitted K = 1182.2.
pub const REPORT_SCALE: ReportScale = ReportScale {
    reported: 600,
    internal: super::CP_PER_LOGIT,
};

impl ReportScale {
    /// Evaluation units to reported centipawns.
    pub fn to_reported(self, v: i32) -> i32 {
        div_round(i64::from(v) * i64::from(self.reported), self.internal)
    }

    /// Reported centipawns (a user's option value) to evaluation units.
    pub fn to_internal(self, cp: i32) -> i32 {
        div_round(i64::from(cp) * i64::from(self.internal), self.reported)
    }
}

/// `n / d` rounded to the nearest integer, halves away from zero, so that the conversion is
/// symmetric in sign (a score and its negation report as negations of each other).
fn div_round(n: i64, d: i32) -> i32 {
    let d = i64::from(d.max(1));
    let q = (n.abs() + d / 2) / d;
    let q = if n < 0 { -q } else { q };
    i32::try_from(q).unwrap_or(if q < 0 { i32::MIN } else { i32::MAX })
}

/// Evaluation units to the centipawns reported to GUIs.
pub fn to_reported_cp(v: i32) -> i32 {
    REPORT_SCALE.to_reported(v)
}

/// Centipawns as the user gives them (`ResignValue`, `DrawValue*`) to evaluation units.
pub fn from_reported_cp(cp: i32) -> i32 {
    REPORT_SCALE.to_internal(cp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_is_symmetric_and_rounds() {
        let s = REPORT_SCALE;
        assert_eq!(s.to_reported(0), 0);
        assert_eq!(s.to_reported(1182), 600);
        assert_eq!(s.to_reported(-1182), -600);
        assert_eq!(s.to_reported(100), 51);
        assert_eq!(s.to_reported(-100), -51);
        assert_eq!(s.to_internal(600), 1182);
        assert_eq!(s.to_internal(-300), -591);
        for v in -5000..5000 {
            assert_eq!(s.to_reported(-v), -s.to_reported(v));
            // A round trip from the coarser scale is exact up to one unit of the finer one.
            let cp = s.to_reported(v);
            assert_eq!(s.to_reported(s.to_internal(cp)), cp);
        }
        let identity = ReportScale {
            reported: 1,
            internal: 1,
        };
        assert_eq!(identity.to_reported(-1234), -1234);
        assert_eq!(identity.to_internal(77), 77);
    }

    /// The point of the scale: a reported score read with the GUI's coefficient gives the
    /// winning probability the fitted evaluation predicts.
    #[test]
    fn reported_scores_carry_the_fitted_probability() {
        let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
        for v in [-3000, -800, -90, 0, 250, 1182, 2500] {
            let fitted = sigmoid(f64::from(v) / 1182.2);
            let gui = sigmoid(f64::from(to_reported_cp(v)) / 600.0);
            assert!((fitted - gui).abs() < 0.002, "{v}: {fitted} vs {gui}");
        }
    }
}
