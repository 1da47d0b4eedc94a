//! Fitting dai shogi's evaluation: self-play games at a fixed number of nodes per move from
//! randomised openings, then a logistic regression of each game's result on the evaluation's
//! features. The evaluation is linear in its parameters but for the hunt term (see
//! `eval::dai`), which the fit keeps as it is and adds to each position's value.

use super::selfplay::Rng;
use crate::dai::{Outcome as GameOutcome, Position};
use crate::eval::CP_PER_LOGIT;
use crate::eval::dai::{DaiFeatures, DaiWeights, NUM_PARAMS};
use crate::search::{Limits, Outcome, Report, Score, SearchOptions, Searcher};
use crate::shogi::Color;
use std::sync::Arc;

/// A score this large (evaluation units, about a lion and a dragon king) for the side to move
/// ends the game as its win: at a few thousand nodes a move such a lead is not given back,
/// and the hunt that would convert it takes many moves.
const ADJUDICATE: i32 = 3000;
/// Internal units: a value `v` means a winning probability of `1 / (1 + exp(-v / SCALE))`,
/// the scale the search's margins are set for.
const SCALE: f64 = CP_PER_LOGIT as f64;

/// A position from a game and the game's result from its side to move's view (1, 0.5, 0).
#[derive(Clone, Debug, PartialEq)]
pub struct DaiSample {
    pub sfen: String,
    pub result: f64,
}

/// Plays `games` games of `weights` against itself with `nodes` per move (up to half as many
/// again, drawn at random), each from the start position after `random_plies` random moves, and
/// returns the positions not in check labelled with the result. A game ends when a side has
/// lost all its royals or has no move (both `Position::outcome`, under the default rules: a
/// repeating move is illegal), at `max_plies` plies as a draw, or when the search scores
/// `ADJUDICATE` or a mate for the side to move.
pub fn generate(
    weights: &Arc<DaiWeights>,
    games: usize,
    nodes: u64,
    random_plies: usize,
    max_plies: u32,
    rng: &mut Rng,
) -> Vec<DaiSample> {
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
        let mut seen: Vec<(String, Color)> = Vec::new();
        // 1.0 when Black wins.
        let black_result;
        loop {
            match pos.outcome() {
                GameOutcome::Won(c) => {
                    black_result = win_for(c);
                    break;
                }
                GameOutcome::Drawn => {
                    black_result = 0.5;
                    break;
                }
                GameOutcome::Ongoing => {}
            }
            // SFEN move numbers start at 1.
            if pos.game_ply() > max_plies {
                black_result = 0.5;
                break;
            }
            let limits = Limits {
                nodes: Some(nodes + rng.below(nodes / 2 + 1)),
                ..Limits::default()
            };
            let mut score = 0;
            let outcome =
                searcher.think_game(&pos, weights, &limits, &opts, &mut |r: Report<_>| {
                    if let Report::Pv(info) = r {
                        score = match info.score {
                            Score::Cp(v) => v,
                            Score::Mate(n) if n > 0 => ADJUDICATE,
                            Score::Mate(_) => -ADJUDICATE,
                        };
                    }
                });
            let mover = pos.side_to_move();
            let Outcome::Move { best, .. } = outcome else {
                black_result = win_for(mover.flip());
                break;
            };
            if score.abs() >= ADJUDICATE {
                black_result = win_for(if score > 0 { mover } else { mover.flip() });
                break;
            }
            if !pos.in_check() {
                seen.push((pos.to_sfen(), mover));
            }
            pos.do_move(best);
        }
        for (sfen, side) in seen {
            let result = match side {
                Color::Black => black_result,
                Color::White => 1.0 - black_result,
            };
            out.push(DaiSample { sfen, result });
        }
    }
    out
}

/// Black's result when `winner` wins.
fn win_for(winner: Color) -> f64 {
    match winner {
        Color::Black => 1.0,
        Color::White => 0.0,
    }
}

/// Reads `sfen<TAB>result` lines (what `kirin-tune dai-gen` writes); `name` is for the errors.
pub fn read_samples(text: &str, name: &str) -> Result<Vec<DaiSample>, String> {
    Ok(super::read_sfen_results(text, name)?
        .into_iter()
        .map(|(sfen, result)| DaiSample { sfen, result })
        .collect())
}

/// Fits the linear parameters to the samples by gradient descent on the cross-entropy between
/// the result and `sigmoid(eval / SCALE)`, with an L2 pull towards `start` so that rare
/// features keep their starting values; `hunt` and `hunt_lead` stay as in `start` (the hunt
/// term only switches on or off as the lead moves, so it adds nothing to the gradient).
/// Returns the weights and the loss before and after.
pub fn fit(
    samples: &[DaiSample],
    start: &DaiWeights,
    epochs: usize,
    lr: f64,
    l2: f64,
) -> Result<(DaiWeights, f64, f64), String> {
    let data: Vec<(DaiFeatures, f64)> = samples
        .iter()
        .map(|s| {
            Position::from_sfen(&s.sfen)
                .map(|p| (DaiWeights::features(&p), s.result))
                .map_err(|e| format!("{}: {e}", s.sfen))
        })
        .collect::<Result<_, _>>()?;
    if data.is_empty() {
        return Err("no samples".into());
    }
    let prior = start.to_params();
    let mut w = prior.clone();
    let predict = |w: &[f64], f: &DaiFeatures| 1.0 / (1.0 + (-f.value(w, start) / SCALE).exp());
    let loss = |w: &[f64]| -> f64 {
        let mut total = 0.0;
        for (f, y) in &data {
            let p = predict(w, f).clamp(1e-9, 1.0 - 1e-9);
            total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        total / data.len() as f64
    };
    let before = loss(&w);
    // Adam, full batch: the features are few.
    let (mut m, mut v) = (vec![0.0; NUM_PARAMS], vec![0.0; NUM_PARAMS]);
    let (b1, b2) = (0.9f64, 0.999f64);
    for t in 1..=epochs {
        let mut g = vec![0.0; NUM_PARAMS];
        for (f, y) in &data {
            let d = (predict(&w, f) - y) / SCALE;
            for (gi, fi) in g.iter_mut().zip(&f.linear) {
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
    let fitted = start.with_params(&w);
    let after = loss(&fitted.to_params());
    Ok((fitted, before, after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dai::PieceType;
    use crate::eval::dai::embedded;

    #[test]
    fn games_are_reproducible_and_label_each_position_from_its_side_to_move() {
        let play = || generate(&embedded(), 2, 200, 4, 400, &mut Rng(5));
        let samples = play();
        assert_eq!(samples, play());
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
    fn samples_are_read_back_and_bad_lines_named() {
        let text = "a b c\t1\nd e f\t0.5\n";
        let samples = read_samples(text, "x.tsv").unwrap();
        assert_eq!(samples[1].sfen, "d e f");
        assert_eq!(samples[1].result, 0.5);
        let e = read_samples("a\t1\nb 0\n", "x.tsv").unwrap_err();
        assert!(e.contains("x.tsv:2"), "{e}");
    }

    #[test]
    fn fitting_follows_the_results() {
        // Whoever has the lion wins: the fit must value the lion more than the start does, and
        // lower the loss.
        let sfen = crate::dai::START_SFEN.replace("1X'1A'1WOL!XW1A'1X'1", "1X'1A'1WO1XW1A'1X'1");
        let samples: Vec<DaiSample> = [(" b - 1", 0.0), (" w - 1", 1.0)]
            .iter()
            .map(|(rest, result)| DaiSample {
                sfen: sfen.replace(" b - 1", rest),
                result: *result,
            })
            .collect();
        let lion = PieceType::Lion.index();
        let mut start = embedded().to_params();
        start[lion] = 100.0; // far too cheap
        let start = embedded().with_params(&start);
        let (fitted, before, after) = fit(&samples, &start, 200, 5.0, 0.0).unwrap();
        assert!(after < before, "{before} -> {after}");
        assert!(fitted.material[lion] > 300, "{}", fitted.material[lion]);
    }
}
