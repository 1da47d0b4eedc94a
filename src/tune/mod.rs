//! Fitting the evaluation weights (Texel's method): the evaluation is linear in its weights, so
//! each training position is stored as its sparse feature list (from the same
//! `for_each_feature` the engine evaluates with) and the weights minimise the mean squared error
//! between `sigmoid(eval / K)` and a target blended from the game result and the search score.

pub mod dai;
pub mod nnue;
pub mod packed;
pub mod quality;
pub mod records;
pub mod sbinpack;
pub mod selfplay;
pub mod sfen_games;
pub mod smooth;
pub mod yari;

use crate::eval::features::for_each_feature;
use crate::eval::linear::Weights;
use crate::shogi::{Color, Position};
use rayon::prelude::*;

/// A training position: its features (Black's view, duplicates merged), whose view the result
/// and score are from, the game result (1 win, 0.5 draw, 0 loss) and the search score.
#[derive(Clone, Debug)]
pub struct Sample {
    pub feats: Vec<(u32, i32)>,
    /// +1 when the side to move is Black, -1 for White.
    pub stm: f64,
    pub result: f64,
    pub score: f64,
    /// Which game of the file the position came from (positions of one game are correlated, so
    /// the holdout split keeps games whole).
    pub game: u32,
}

/// The sparse feature list of a position, duplicates merged.
pub fn features_of(pos: &Position) -> Vec<(u32, i32)> {
    let mut v: Vec<(u32, i32)> = Vec::with_capacity(256);
    for_each_feature(pos, |i, s| v.push((i as u32, s)));
    v.sort_unstable_by_key(|&(i, _)| i);
    let mut out: Vec<(u32, i32)> = Vec::with_capacity(v.len());
    for (i, s) in v {
        match out.last_mut() {
            Some((j, c)) if *j == i => *c += s,
            _ => out.push((i, s)),
        }
    }
    out.retain(|&(_, c)| c != 0);
    out
}

/// Reads the generator's lines: `<sfen>\t<score>\t<result>`, both from the side to move's view.
/// A new game starts wherever the move number does not increase; game ids continue from
/// `first_game`.
pub fn load_samples(text: &str, first_game: u32) -> Result<Vec<Sample>, String> {
    read_labelled(text, first_game, Sample::new)
}

impl Sample {
    /// The training position `pos` with its score and result (side to move's view).
    pub fn new(pos: &Position, score: f64, result: f64, game: u32) -> Sample {
        Sample {
            feats: features_of(pos),
            stm: if pos.side_to_move() == Color::Black {
                1.0
            } else {
                -1.0
            },
            result,
            score,
            game,
        }
    }
}

/// The generator's lines, each turned into a `T` by `make(position, score, result, game)`,
/// in parallel. Game ids as in `load_samples`.
pub fn read_labelled<T: Send>(
    text: &str,
    first_game: u32,
    make: impl Fn(&Position, f64, f64, u32) -> T + Sync,
) -> Result<Vec<T>, String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut games = Vec::with_capacity(lines.len());
    let (mut game, mut last_ply) = (first_game, u32::MAX);
    for line in &lines {
        let ply: u32 = line
            .split('\t')
            .next()
            .and_then(|sfen| sfen.split_whitespace().nth(3))
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        if ply <= last_ply && last_ply != u32::MAX {
            game += 1;
        }
        last_ply = ply;
        games.push(game);
    }
    lines
        .par_iter()
        .zip(games.par_iter())
        .enumerate()
        .map(|(n, (line, &game))| {
            let mut it = line.split('\t');
            let (Some(sfen), Some(score), Some(result)) = (it.next(), it.next(), it.next()) else {
                return Err(format!("data line {}: expected 3 fields", n + 1));
            };
            let pos = Position::from_sfen(sfen).map_err(|e| format!("data line {}: {e}", n + 1))?;
            let score: f64 = score
                .parse()
                .map_err(|_| format!("data line {}: bad score", n + 1))?;
            let result: f64 = result
                .trim()
                .parse()
                .map_err(|_| format!("data line {}: bad result", n + 1))?;
            Ok(make(&pos, score, result, game))
        })
        .collect()
}

#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Evaluation of a sample from the side to move's view.
#[inline]
fn eval_stm(s: &Sample, w: &[f64]) -> f64 {
    let mut e = 0.0;
    for &(i, c) in &s.feats {
        e += c as f64 * w[i as usize];
    }
    e * s.stm
}

#[inline]
fn target(s: &Sample, k: f64, lambda: f64) -> f64 {
    lambda * s.result + (1.0 - lambda) * sigmoid(s.score / k)
}

/// Mean squared error of `sigmoid(eval / k)` against the blended target.
pub fn loss(samples: &[Sample], w: &[f64], k: f64, lambda: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map(|s| {
            let d = sigmoid(eval_stm(s, w) / k) - target(s, k, lambda);
            d * d
        })
        .sum();
    sum / samples.len() as f64
}

/// Gradient of `loss` with respect to the weights (without regularisation).
pub fn gradient(samples: &[Sample], w: &[f64], k: f64, lambda: f64) -> Vec<f64> {
    let n = samples.len().max(1) as f64;
    let chunk = samples
        .len()
        .div_ceil(rayon::current_num_threads().max(1) * 4)
        .max(1);
    samples
        .par_chunks(chunk)
        .map(|part| {
            let mut g = vec![0.0; w.len()];
            for s in part {
                let p = sigmoid(eval_stm(s, w) / k);
                let t = target(s, k, lambda);
                let d = 2.0 * (p - t) * p * (1.0 - p) / k * s.stm / n;
                for &(i, c) in &s.feats {
                    g[i as usize] += d * c as f64;
                }
            }
            g
        })
        .reduce(
            || vec![0.0; w.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// The scale K that makes `sigmoid(eval / K)` fit the game results best (golden-section search
/// over 10..4000, on the results alone).
pub fn fit_k(samples: &[Sample], w: &[f64]) -> f64 {
    let f = |k: f64| loss(samples, w, k, 1.0);
    let (mut a, mut b) = (10.0f64.ln(), 4000.0f64.ln());
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - r * (b - a);
    let mut d = a + r * (b - a);
    let (mut fc, mut fd) = (f(c.exp()), f(d.exp()));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = f(c.exp());
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = f(d.exp());
        }
    }
    ((a + b) / 2.0).exp()
}

pub struct FitConfig {
    pub epochs: usize,
    /// Weight of the game result in the target; the rest is sigmoid(search score / K).
    pub lambda: f64,
    /// L2 pull toward the prior (hand-set) weights, per weight, in loss units per cp^2.
    pub l2: f64,
    /// Adam step size, in evaluation units.
    pub lr: f64,
    /// Fraction of the positions kept out of the fitting to measure it: every `1/holdout`-th
    /// game, the last of each run of that many.
    pub holdout: f64,
    /// Instead, the games whose number is 0 modulo this, as the network trainer holds them
    /// out: a linear fit and a network trained on top of it are then measured on the same
    /// unseen games.
    pub holdout_every: Option<usize>,
    /// The scale of `sigmoid(eval / K)`: fixed (the engine's `CP_PER_LOGIT`, so that the fitted
    /// weights are on the scale the search and the network assume), or `None` to fit it to the
    /// game results on the initial weights.
    pub k: Option<f64>,
    pub verbose: bool,
}

pub struct FitResult {
    pub weights: Weights,
    pub k: f64,
    pub train_n: usize,
    pub holdout_n: usize,
    pub train_loss_before: f64,
    pub train_loss_after: f64,
    pub holdout_loss_before: f64,
    pub holdout_loss_after: f64,
}

/// Fits K on the initial weights (unless the configuration fixes it), then the weights by
/// full-batch Adam on the training part; the games `holdout_every` or `holdout` names are held
/// out.
pub fn fit(samples: &[Sample], init: &Weights, prior: &Weights, cfg: &FitConfig) -> FitResult {
    let split = match cfg.holdout_every {
        Some(every) => Some((every.max(1), 0)),
        None if cfg.holdout > 0.0 => {
            let every = (1.0 / cfg.holdout).round().max(2.0) as usize;
            Some((every, every - 1))
        }
        None => None,
    };
    let (train, hold): (Vec<Sample>, Vec<Sample>) = if let Some((every, held)) = split {
        let mut t = Vec::new();
        let mut h = Vec::new();
        for s in samples {
            if s.game as usize % every == held {
                h.push(s.clone());
            } else {
                t.push(s.clone());
            }
        }
        (t, h)
    } else {
        (samples.to_vec(), Vec::new())
    };
    let w0: Vec<f64> = init.0.iter().map(|&v| v as f64).collect();
    let k = cfg.k.unwrap_or_else(|| fit_k(&train, &w0));
    let (w, train_before, train_after) = fit_weights(&train, &w0, prior, k, cfg);
    FitResult {
        weights: Weights(w.iter().map(|v| v.round() as i32).collect()),
        k,
        train_n: train.len(),
        holdout_n: hold.len(),
        train_loss_before: train_before,
        train_loss_after: train_after,
        holdout_loss_before: loss(&hold, &w0, k, cfg.lambda),
        holdout_loss_after: loss(&hold, &w, k, cfg.lambda),
    }
}

/// Adam over the weights with K fixed; returns the weights and the loss before and after.
pub fn fit_weights(
    train: &[Sample],
    w0: &[f64],
    prior: &Weights,
    k: f64,
    cfg: &FitConfig,
) -> (Vec<f64>, f64, f64) {
    let mut w = w0.to_vec();
    let before = loss(train, &w, k, cfg.lambda);
    let (b1, b2, eps) = (0.9, 0.999, 1e-12);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    for epoch in 1..=cfg.epochs {
        let mut g = gradient(train, &w, k, cfg.lambda);
        for (i, gi) in g.iter_mut().enumerate() {
            *gi += 2.0 * cfg.l2 * (w[i] - prior.0[i] as f64);
        }
        let (c1, c2) = (1.0 - b1f(b1, epoch), 1.0 - b1f(b2, epoch));
        for i in 0..w.len() {
            if g[i] == 0.0 {
                continue;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            w[i] -= cfg.lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        if cfg.verbose && (epoch % 25 == 0 || epoch == cfg.epochs) {
            eprintln!("epoch {epoch}: loss {:.6}", loss(train, &w, k, cfg.lambda));
        }
    }
    let after = loss(train, &w, k, cfg.lambda);
    (w, before, after)
}

fn b1f(b: f64, t: usize) -> f64 {
    b.powi(t as i32)
}

/// Elo difference and its 95% margin from a match's wins, draws and losses.
pub fn elo(w: u32, d: u32, l: u32) -> (f64, f64) {
    let n = (w + d + l) as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let s = (w as f64 + d as f64 / 2.0) / n;
    let var = (w as f64 * (1.0 - s).powi(2) + d as f64 * (0.5 - s).powi(2) + l as f64 * s * s) / n;
    let se = (var / n).sqrt();
    let to_elo = |p: f64| {
        let p = p.clamp(1e-3, 1.0 - 1e-3);
        -400.0 * (1.0 / p - 1.0).log10()
    };
    let e = to_elo(s);
    let margin = (to_elo(s + 1.96 * se) - to_elo(s - 1.96 * se)) / 2.0;
    (e, margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::features::NUM_WEIGHTS;

    fn synthetic(true_w: f64, k: f64) -> Vec<Sample> {
        // One feature (index 3) with coefficients -3..=3; soft results from the true weight.
        let mut out = Vec::new();
        for c in -3..=3i32 {
            for stm in [1.0, -1.0] {
                let p = sigmoid(c as f64 * true_w * stm / k);
                out.push(Sample {
                    feats: if c == 0 { vec![] } else { vec![(3, c)] },
                    stm,
                    result: p,
                    score: 0.0,
                    game: 0,
                });
            }
        }
        out
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let samples = synthetic(150.0, 200.0);
        let mut w = vec![0.0; 8];
        w[3] = 40.0;
        let g = gradient(&samples, &w, 200.0, 0.6);
        let h = 1e-3;
        let mut wp = w.clone();
        wp[3] += h;
        let mut wm = w.clone();
        wm[3] -= h;
        let num = (loss(&samples, &wp, 200.0, 0.6) - loss(&samples, &wm, 200.0, 0.6)) / (2.0 * h);
        assert!(
            (g[3] - num).abs() < 1e-9 * num.abs().max(1.0),
            "{} vs {num}",
            g[3]
        );
        assert_eq!(g[0], 0.0);
    }

    /// Results only, no pull toward the prior, nothing held out.
    fn plain_config(epochs: usize, k: Option<f64>) -> FitConfig {
        FitConfig {
            epochs,
            lambda: 1.0,
            l2: 0.0,
            lr: 1.0,
            holdout: 0.0,
            holdout_every: None,
            k,
            verbose: false,
        }
    }

    #[test]
    fn fit_recovers_a_known_weight() {
        let k = 200.0;
        let samples = synthetic(150.0, k);
        let prior = Weights(vec![0; NUM_WEIGHTS]);
        let w0 = vec![0.0; NUM_WEIGHTS];
        let cfg = plain_config(2000, None);
        let (w, before, after) = fit_weights(&samples, &w0, &prior, k, &cfg);
        assert!((w[3] - 150.0).abs() < 1.0, "recovered {}", w[3]);
        assert!(after < before);
        // Untouched features stay where they were.
        assert_eq!(w[4], 0.0);
    }

    #[test]
    fn k_fit_finds_the_generating_scale() {
        // Results generated with K = 300 from a known evaluation: fitting K recovers it.
        let samples = synthetic(100.0, 300.0);
        let mut w = vec![0.0; 8];
        w[3] = 100.0;
        let k = fit_k(&samples, &w);
        assert!((k - 300.0).abs() < 1.0, "K = {k}");
    }

    #[test]
    fn a_fixed_k_is_used_instead_of_the_fitted_one() {
        let samples = synthetic(100.0, 300.0);
        let zero = Weights(vec![0; NUM_WEIGHTS]);
        let mut init = Weights(vec![0; NUM_WEIGHTS]);
        init.0[3] = 100;
        let cfg = |k| plain_config(2000, k);
        let fitted = fit(&samples, &init, &zero, &cfg(None));
        assert!((fitted.k - 300.0).abs() < 1.0, "K = {}", fitted.k);
        // With K fixed at twice the generating scale, the weight doubles to fit the same results.
        let fixed = fit(&samples, &init, &zero, &cfg(Some(600.0)));
        assert_eq!(fixed.k, 600.0);
        assert!(
            (fixed.weights.0[3] - 200).abs() <= 3,
            "{}",
            fixed.weights.0[3]
        );
    }

    #[test]
    fn holdout_every_keeps_out_the_games_the_network_trainer_keeps_out() {
        // Game g has g + 1 positions, so the count held out tells which games were.
        let mut samples = Vec::new();
        for g in 0..10u32 {
            for _ in 0..=g {
                samples.push(Sample {
                    feats: vec![(3, 1)],
                    stm: 1.0,
                    result: 1.0,
                    score: 0.0,
                    game: g,
                });
            }
        }
        let w = Weights(vec![0; NUM_WEIGHTS]);
        let cfg = |holdout, holdout_every| FitConfig {
            holdout,
            holdout_every,
            ..plain_config(1, Some(100.0))
        };
        // Games 0 and 5, as `kirin-tune train --holdout-every 5`.
        assert_eq!(fit(&samples, &w, &w, &cfg(0.0, Some(5))).holdout_n, 1 + 6);
        // `--holdout 0.2`: games 4 and 9, as fits before the option.
        assert_eq!(fit(&samples, &w, &w, &cfg(0.2, None)).holdout_n, 5 + 10);
    }

    #[test]
    fn elo_of_even_and_winning_scores() {
        assert_eq!(elo(10, 0, 10).0, 0.0);
        let (e, m) = elo(76, 0, 24);
        assert!((e - 200.0).abs() < 2.0 && m > 0.0, "{e} {m}");
    }
}
