//! Fitting yari shogi's evaluation: self-play games at a fixed number of nodes per move from
//! randomised openings, then a logistic regression of each game's result on the evaluation's
//! features (the evaluation is linear in its parameters, see `eval::yari`).

use super::selfplay::Rng;
use super::sfen_games::{
    self, FitSettings, Fitted, Model, Params, SelfPlay, SfenResult, black_result,
};
use crate::eval::yari::{Features, YariWeights};
use crate::shogi::Repetition;
use crate::yari::Position;
use std::sync::Arc;

/// Game ply after which a game is a draw.
const MAX_PLY: usize = 300;
/// A score this large (evaluation units) for the side to move ends the game as its win.
const ADJUDICATE: i32 = 4000;
/// Internal units: a value `v` means a winning probability of `1 / (1 + exp(-v / SCALE))`.
const SCALE: f64 = 1182.0;

/// Every term of yari's evaluation is a parameter.
impl Params for YariWeights {
    fn to_params(&self) -> Vec<f64> {
        YariWeights::to_params(self)
    }
    fn with_params(&self, params: &[f64]) -> YariWeights {
        YariWeights::from_params(params)
    }
}

/// Plays the self-play games of `weights` against itself (see [`SelfPlay`]) and returns the
/// positions not in check labelled with the result. A game ends at a repetition (a draw, or
/// the loss of the side giving perpetual check), when the mover has no move, at `MAX_PLY`
/// moves as a draw, or when the search scores `ADJUDICATE` or a mate.
pub fn generate(weights: &Arc<YariWeights>, play: &SelfPlay, rng: &mut Rng) -> Vec<SfenResult> {
    sfen_games::generate(Position::startpos, weights, play, ADJUDICATE, rng, |pos| {
        let mover = pos.side_to_move();
        if pos.legal_moves().is_empty() {
            return Some(black_result(mover.flip()));
        }
        match pos.repetition(usize::MAX) {
            Repetition::Draw => Some(0.5),
            Repetition::Win => Some(black_result(mover)),
            Repetition::Loss => Some(black_result(mover.flip())),
            _ if pos.moves_played() >= MAX_PLY => Some(0.5),
            _ => None,
        }
    })
}

/// Fits the parameters to the samples (see [`Model::fit_games`]): gradient descent on the
/// cross-entropy between the target and `sigmoid(eval / SCALE)`, with an L2 pull towards
/// `start`, games held out as `settings` says.
pub fn fit(
    samples: &[SfenResult],
    start: &YariWeights,
    settings: &FitSettings,
) -> Result<Fitted<YariWeights>, String> {
    let model = Model {
        value: |w: &[f64], f: &Features| f.iter().map(|&(i, n)| w[i as usize] * f64::from(n)).sum(),
        scale: SCALE,
    };
    model.fit_games(
        samples,
        start,
        settings,
        Position::from_sfen,
        YariWeights::features,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::sfen_games::assert_labelled_from_the_mover;

    #[test]
    fn games_label_each_position_from_its_side_to_move() {
        let play = SelfPlay {
            games: 2,
            nodes: 300,
            random_plies: 4,
        };
        let samples = generate(&YariWeights::embedded(), &play, &mut Rng(5));
        assert!(samples.len() > 20, "{}", samples.len());
        assert_labelled_from_the_mover(&samples, |sfen| Position::from_sfen(sfen).unwrap());
    }

    #[test]
    fn fitting_follows_the_results() {
        // Whoever is a yari rook up wins: the fit must value the yari rook more than the
        // start does, and lower the loss.
        let up = "1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR";
        let samples: Vec<SfenResult> = [(" b - 1", 1.0), (" w - 1", 0.0)]
            .iter()
            .map(|(rest, result)| SfenResult {
                sfen: format!("{up}{rest}"),
                result: *result,
                score: None,
            })
            .collect();
        let mut start = YariWeights::embedded().to_params();
        start[6] = 100.0; // the yari rook on the board, far too cheap
        let start = YariWeights::from_params(&start);
        let settings = FitSettings {
            epochs: 200,
            lr: 5.0,
            l2: 0.0,
            ..FitSettings::default()
        };
        let fitted = fit(&samples, &start, &settings).unwrap();
        let (n, before, after) = fitted.train;
        assert_eq!(n, 2);
        assert!(after < before, "{before} -> {after}");
        assert!(fitted.held_out.is_none());
        let yari_rook = fitted.weights.to_params()[6];
        assert!(yari_rook > 200.0, "{yari_rook}");
    }
}
