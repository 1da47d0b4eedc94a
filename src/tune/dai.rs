//! Fitting dai shogi's evaluation: self-play games at a fixed number of nodes per move from
//! randomised openings, then a logistic regression of each game's result on the evaluation's
//! features. The evaluation is linear in its parameters but for the hunt term (see
//! `eval::dai`), which the fit keeps as it is and adds to each position's value.

use super::selfplay::Rng;
use super::sfen_games::{
    self, FitSettings, Fitted, Linear, Model, Params, SelfPlay, SfenResult, black_result,
};
use crate::dai::{Outcome as GameOutcome, Position};
use crate::eval::CP_PER_LOGIT;
use crate::eval::dai::{DaiFeatures, DaiWeights};
use std::sync::Arc;

/// A score this large (evaluation units, about a lion and a dragon king) for the side to move
/// ends the game as its win: at a few thousand nodes a move such a lead is not given back,
/// and the hunt that would convert it takes many moves.
const ADJUDICATE: i32 = 3000;
/// Internal units: a value `v` means a winning probability of `1 / (1 + exp(-v / SCALE))`,
/// the scale the search's margins are set for.
const SCALE: f64 = CP_PER_LOGIT as f64;

impl Linear for DaiFeatures {
    fn add_scaled(&self, d: f64, g: &mut [f64]) {
        self.linear.add_scaled(d, g);
    }
}

/// The hunt terms are not parameters: they stay as in the weights the fit starts from.
impl Params for DaiWeights {
    fn to_params(&self) -> Vec<f64> {
        DaiWeights::to_params(self)
    }
    fn with_params(&self, params: &[f64]) -> DaiWeights {
        DaiWeights::with_params(self, params)
    }
}

/// Plays the self-play games of `weights` against itself (see [`SelfPlay`]) and returns the
/// positions not in check labelled with the result. A game ends when a side has lost all its
/// royals or has no move (both `Position::outcome`, under the default rules: a repeating move
/// is illegal), at `max_plies` plies as a draw, or when the search scores `ADJUDICATE` or a
/// mate for the side to move.
pub fn generate(
    weights: &Arc<DaiWeights>,
    play: &SelfPlay,
    max_plies: u32,
    rng: &mut Rng,
) -> Vec<SfenResult> {
    sfen_games::generate(Position::startpos, weights, play, ADJUDICATE, rng, |pos| {
        match pos.outcome() {
            GameOutcome::Won(c) => Some(black_result(c)),
            GameOutcome::Drawn => Some(0.5),
            // SFEN move numbers start at 1.
            GameOutcome::Ongoing if pos.game_ply() > max_plies => Some(0.5),
            GameOutcome::Ongoing => None,
        }
    })
}

/// Fits the linear parameters to the samples (see [`Model::fit_games`]); the `hunt*`
/// parameters stay as in `start` (the hunt term is a product of its weights and the lead, so
/// it is left out of the gradient).
pub fn fit(
    samples: &[SfenResult],
    start: &DaiWeights,
    settings: &FitSettings,
) -> Result<Fitted<DaiWeights>, String> {
    let model = Model {
        value: |w: &[f64], f: &DaiFeatures| f.value(w, start),
        scale: SCALE,
    };
    model.fit_games(
        samples,
        start,
        settings,
        Position::from_sfen,
        DaiWeights::features,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dai::PieceType;
    use crate::eval::dai::embedded;
    use crate::tune::sfen_games::assert_labelled_from_the_mover;

    #[test]
    fn games_are_reproducible_and_label_each_position_from_its_side_to_move() {
        let settings = SelfPlay {
            games: 2,
            nodes: 200,
            random_plies: 4,
        };
        let play = || generate(&embedded(), &settings, 400, &mut Rng(5));
        let samples = play();
        assert_eq!(samples, play());
        assert!(samples.len() > 20, "{}", samples.len());
        assert_labelled_from_the_mover(&samples, |sfen| Position::from_sfen(sfen).unwrap());
    }

    #[test]
    fn fitting_follows_the_results() {
        // Whoever has the lion wins: the fit must value the lion more than the start does, and
        // lower the loss.
        let sfen = crate::dai::START_SFEN.replace("1X'1A'1WOL!XW1A'1X'1", "1X'1A'1WO1XW1A'1X'1");
        let samples: Vec<SfenResult> = [(" b - 1", 0.0), (" w - 1", 1.0)]
            .iter()
            .map(|(rest, result)| SfenResult {
                sfen: sfen.replace(" b - 1", rest),
                result: *result,
                score: None,
            })
            .collect();
        let lion = PieceType::Lion.index();
        let mut start = embedded().to_params();
        start[lion] = 100.0; // far too cheap
        let start = embedded().with_params(&start);
        let settings = FitSettings {
            epochs: 200,
            lr: 5.0,
            l2: 0.0,
            ..FitSettings::default()
        };
        let fitted = fit(&samples, &start, &settings).unwrap();
        let (_, before, after) = fitted.train;
        assert!(after < before, "{before} -> {after}");
        let lion_value = fitted.weights.material[lion];
        assert!(lion_value > 300, "{lion_value}");
    }
}
