//! The search's margins, reductions and history scales, by name, in one table.
//!
//! The values are what `Params::default()` gives every search. A build with the `tune` feature
//! declares each one as a USI spin option (`Tune_<name>`, within the table's range) so that a
//! game-playing optimiser such as SPSA can set them; other builds do not show them.

/// Declares the parameters once: the struct, its defaults and the table of names and ranges.
macro_rules! params {
    ($( $(#[doc = $doc:literal])* $name:ident: $default:expr, $min:expr, $max:expr; )*) => {
        /// Search parameters; see the module documentation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $( $(#[doc = $doc])* pub $name: i32, )*
        }

        impl Default for Params {
            fn default() -> Params {
                Params { $( $name: $default, )* }
            }
        }

        /// Every parameter's name, default and the range a tuner may use.
        pub const TABLE: &[ParamSpec] = &[
            $( ParamSpec { name: stringify!($name), default: $default, min: $min, max: $max }, )*
        ];

        impl Params {
            /// Sets the parameter called `name`; false when there is none.
            pub fn set(&mut self, name: &str, value: i32) -> bool {
                match name {
                    $( stringify!($name) => { self.$name = value; true } )*
                    _ => false,
                }
            }

            /// The parameter called `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $( stringify!($name) => Some(self.$name), )*
                    _ => None,
                }
            }
        }
    };
}

/// One row of [`TABLE`].
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

params! {
    /// Late-move reductions: the table holds `lmr_scale * ln(i)`, and a reduction is the
    /// product of the depth's and the move number's entries, in thousandths of a ply.
    lmr_scale: 20, 10, 30;
    /// Added to the product before it is divided by 1000 (rounding).
    lmr_base: 600, 0, 1200;
    /// A node that is not improving is reduced one more ply when the product exceeds this.
    lmr_not_improving: 900, 300, 2000;
    /// Quiet moves are reduced one ply less per this much history.
    lmr_history_div: 12000, 4000, 30000;
    /// Aspiration windows start at `asp_delta + |previous score| / asp_score_div`.
    asp_delta: 18, 5, 50;
    asp_score_div: 12, 4, 40;
    /// Razoring at depth 1 and 2: when the evaluation is this far below alpha, quiescence
    /// decides.
    razor_base: 350, 100, 700;
    razor_depth: 250, 50, 500;
    /// Reverse futility: a node whose evaluation beats beta by this much a ply returns it.
    rfp_margin: 110, 40, 250;
    rfp_max_depth: 8, 4, 12;
    /// Null move is tried when the static evaluation is at least `beta - nmp_depth * depth +
    /// nmp_base`.
    nmp_depth: 20, 0, 60;
    nmp_base: 160, 0, 400;
    /// The null-move reduction grows by a ply per this much evaluation above beta (3 at most).
    nmp_eval_div: 200, 80, 500;
    /// Futility pruning of quiet moves: skipped when the static evaluation plus this margin
    /// (base and per ply of reduced depth) cannot reach alpha.
    fut_base: 140, 40, 300;
    fut_depth: 110, 40, 250;
    fut_max_depth: 7, 3, 12;
    /// Quiet moves losing more than `see_quiet * depth^2` in exchanges are pruned, tactical
    /// ones losing more than `see_tactical * depth`.
    see_quiet: 25, 5, 60;
    see_tactical: 90, 30, 200;
    /// Quiescence futility: a capture whose gain cannot bring the evaluation within this of
    /// alpha is skipped.
    qs_futility: 150, 50, 400;
    /// Internal iterative reduction: PV and cut nodes without a table move from this depth on
    /// are searched a ply shallower.
    iir_min_depth: 4, 2, 12;
    /// History bonus of a cut-off at depth d: `bonus_quad * d^2 + bonus_lin * d`, at most
    /// `bonus_max`.
    bonus_quad: 16, 4, 40;
    bonus_lin: 32, 0, 100;
    bonus_max: 2400, 800, 4000;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_defaults_lie_in_their_ranges_and_match_the_struct() {
        let p = Params::default();
        for spec in TABLE {
            assert!(
                spec.min <= spec.default && spec.default <= spec.max,
                "{}",
                spec.name
            );
            assert_eq!(p.get(spec.name), Some(spec.default), "{}", spec.name);
        }
        let mut names: Vec<_> = TABLE.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
    }

    #[test]
    fn set_reaches_the_named_field_only() {
        let mut p = Params::default();
        assert!(p.set("rfp_margin", 77));
        assert_eq!(p.rfp_margin, 77);
        assert_eq!(p.razor_base, Params::default().razor_base);
        assert!(!p.set("no_such_parameter", 1));
    }
}
