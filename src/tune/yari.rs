//! Fitting yari shogi's evaluation: self-play games at a fixed number of nodes per move from
//! randomised openings, then a logistic regression of each game's result on the evaluation's
//! features (the evaluation is linear in its parameters, see `eval::yari`).

use super::selfplay::Rng;
use crate::eval::yari::{NUM_PARAMS, YariWeights};
use crate::search::{Limits, Outcome, Report, Score, SearchOptions, Searcher};
use crate::shogi::Repetition;
use crate::yari::Position;
use std::sync::Arc;

/// Game ply after which a game is a draw.
const MAX_PLY: usize = 300;
/// A score this large (evaluation units) for the side to move ends the game as its win.
const ADJUDICATE: i32 = 4000;
/// Internal units: a value `v` means a winning probability of `1 / (1 + exp(-v / SCALE))`.
const SCALE: f64 = 1182.0;

/// A position from a game and the game's result from its side to move's view (1, 0.5, 0).
#[derive(Clone, Debug)]
pub struct YariSample {
    pub sfen: String,
    pub result: f64,
}

/// Plays `games` games of `weights` against itself with `nodes` per move, each from the start
/// position after `random_plies` random moves, and returns the quiet positions after the opening
/// (not in check) labelled with the result.
pub fn generate(
    weights: &Arc<YariWeights>,
    games: usize,
    nodes: u64,
    random_plies: usize,
    rng: &mut Rng,
) -> Vec<YariSample> {
    let mut searcher = Searcher::new(16);
    let opts = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos();
        for _ in 0..random_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
        }
        searcher.new_game();
        let mut seen: Vec<(String, crate::shogi::Color)> = Vec::new();
        // 1.0 when Black wins.
        let black_result;
        loop {
            if pos.legal_moves().is_empty() {
                black_result = loss_for(pos.side_to_move());
                break;
            }
            match pos.repetition(usize::MAX) {
                Repetition::Draw => {
                    black_result = 0.5;
                    break;
                }
                Repetition::Win => {
                    black_result = 1.0 - loss_for(pos.side_to_move());
                    break;
                }
                Repetition::Loss => {
                    black_result = loss_for(pos.side_to_move());
                    break;
                }
                _ => {}
            }
            if pos.moves_played() >= MAX_PLY {
                black_result = 0.5;
                break;
            }
            let limits = Limits {
                nodes: Some(nodes + rng.below(nodes / 2 + 1)),
                ..Limits::default()
            };
            let mut score = 0;
            let outcome = searcher.think_game(&pos, weights, &limits, &opts, &mut |r: Report| {
                if let Report::Pv(info) = r {
                    score = match info.score {
                        Score::Cp(v) => v,
                        Score::Mate(n) if n > 0 => ADJUDICATE,
                        Score::Mate(_) => -ADJUDICATE,
                    };
                }
            });
            let Outcome::Move { best, .. } = outcome else {
                black_result = loss_for(pos.side_to_move());
                break;
            };
            if score.abs() >= ADJUDICATE {
                let mover = pos.side_to_move();
                black_result = if score > 0 {
                    1.0 - loss_for(mover)
                } else {
                    loss_for(mover)
                };
                break;
            }
            if !pos.in_check() {
                seen.push((pos.to_sfen(), pos.side_to_move()));
            }
            pos.do_move(best);
        }
        for (sfen, side) in seen {
            let result = match side {
                crate::shogi::Color::Black => black_result,
                crate::shogi::Color::White => 1.0 - black_result,
            };
            out.push(YariSample { sfen, result });
        }
    }
    out
}

/// Black's result when `side` loses.
fn loss_for(side: crate::shogi::Color) -> f64 {
    match side {
        crate::shogi::Color::Black => 0.0,
        crate::shogi::Color::White => 1.0,
    }
}

/// Fits the parameters to the samples by gradient descent on the cross-entropy between the
/// result and `sigmoid(eval / SCALE)`, with an L2 pull towards `start` so that rare features
/// keep their starting values. Returns the weights and the loss before and after.
pub fn fit(
    samples: &[YariSample],
    start: &YariWeights,
    epochs: usize,
    lr: f64,
    l2: f64,
) -> Result<(YariWeights, f64, f64), String> {
    let data: Vec<(Vec<f64>, f64)> = samples
        .iter()
        .map(|s| {
            Position::from_sfen(&s.sfen)
                .map(|p| (YariWeights::features(&p), s.result))
                .map_err(|e| format!("{}: {e}", s.sfen))
        })
        .collect::<Result<_, _>>()?;
    if data.is_empty() {
        return Err("no samples".into());
    }
    let prior = start.to_params();
    let mut w = prior.clone();
    let loss = |w: &[f64]| -> f64 {
        let mut total = 0.0;
        for (f, y) in &data {
            let v: f64 = w.iter().zip(f).map(|(a, b)| a * b).sum();
            let p = (1.0 / (1.0 + (-v / SCALE).exp())).clamp(1e-9, 1.0 - 1e-9);
            total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        total / data.len() as f64
    };
    let before = loss(&w);
    // Adam, full batch: the data are small and the features few.
    let (mut m, mut v) = (vec![0.0; NUM_PARAMS], vec![0.0; NUM_PARAMS]);
    let (b1, b2) = (0.9f64, 0.999f64);
    for t in 1..=epochs {
        let mut g = vec![0.0; NUM_PARAMS];
        for (f, y) in &data {
            let e: f64 = w.iter().zip(f).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-e / SCALE).exp());
            let d = (p - y) / SCALE;
            for (gi, fi) in g.iter_mut().zip(f) {
                *gi += d * fi;
            }
        }
        let n = data.len() as f64;
        for i in 0..NUM_PARAMS {
            let gi = g[i] / n + l2 * (w[i] - prior[i]);
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
    }
    let fitted = YariWeights::from_params(&w);
    let after = loss(&fitted.to_params());
    Ok((fitted, before, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_label_each_position_from_its_side_to_move() {
        let samples = generate(&YariWeights::embedded(), 2, 300, 4, &mut Rng(5));
        assert!(samples.len() > 20, "{}", samples.len());
        for pair in samples.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let (pa, pb) = (
                Position::from_sfen(&a.sfen).unwrap(),
                Position::from_sfen(&b.sfen).unwrap(),
            );
            assert!([0.0, 0.5, 1.0].contains(&a.result));
            // Consecutive positions of one game with opposite movers have opposite results.
            if pa.game_ply() + 1 == pb.game_ply() && pa.side_to_move() != pb.side_to_move() {
                assert_eq!(a.result, 1.0 - b.result, "{} / {}", a.sfen, b.sfen);
            }
        }
    }

    #[test]
    fn fitting_follows_the_results() {
        // Whoever is a yari rook up wins: the fit must value the yari rook more than the
        // start does, and lower the loss.
        let up = "1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR";
        let samples: Vec<YariSample> = [(" b - 1", 1.0), (" w - 1", 0.0)]
            .iter()
            .map(|(rest, result)| YariSample {
                sfen: format!("{up}{rest}"),
                result: *result,
            })
            .collect();
        let mut start = YariWeights::embedded().to_params();
        start[6] = 100.0; // the yari rook on the board, far too cheap
        let start = YariWeights::from_params(&start);
        let (fitted, before, after) = fit(&samples, &start, 200, 5.0, 0.0).unwrap();
        assert!(after < before, "{before} -> {after}");
        assert!(fitted.to_params()[6] > 200.0, "{}", fitted.to_params()[6]);
    }
}
