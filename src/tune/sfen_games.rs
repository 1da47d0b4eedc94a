//! What the yari and dai fits share: self-play games whose positions are labelled with the
//! game's result and the search's score, the `sfen<TAB>result<TAB>score` files they are kept
//! in, and the logistic regression of those labels on an evaluation's parameters.

use super::selfplay::Rng;
use crate::game::Game;
use crate::search::{Limits, Outcome, Report, Score, SearchOptions, Searcher};
use crate::shogi::Color;
use std::fmt::Display;

/// A position from a game and the game's result from its side to move's view (1, 0.5, 0).
#[derive(Clone, Debug, PartialEq)]
pub struct SfenResult {
    pub sfen: String,
    pub result: f64,
    /// The self-play search's score for the side to move, in internal units (files written
    /// before scores were kept have none).
    pub score: Option<i32>,
}

impl SfenResult {
    /// What the fit aims at: `lambda` of the result and the rest of the score's winning
    /// probability at `scale` (the result alone where there is no score).
    pub fn target(&self, lambda: f64, scale: f64) -> f64 {
        match self.score {
            Some(v) => {
                let p = 1.0 / (1.0 + (-f64::from(v) / scale).exp());
                lambda * self.result + (1.0 - lambda) * p
            }
            None => self.result,
        }
    }
}

/// Black's result when `winner` wins.
pub fn black_result(winner: Color) -> f64 {
    match winner {
        Color::Black => 1.0,
        Color::White => 0.0,
    }
}

/// How many self-play games, and how they are played: the same settings in every game.
pub struct SelfPlay {
    pub games: usize,
    /// Nodes a move, up to half as many again drawn at random.
    pub nodes: u64,
    /// Random legal moves from the start before the engine plays.
    pub random_plies: usize,
}

/// Plays `play.games` games of `evaluator` against itself from `start()` and returns the
/// positions not in check, each labelled with the result from its side to move's view. Before
/// every move `game_over` may end the game with Black's result (the game's own rules and ply
/// cap); it also ends when the mover has no move (a loss), or when a search score this large
/// (or a mate) for the side to move reaches `adjudicate`, as its win.
pub fn generate<G: Game>(
    start: impl Fn() -> G,
    evaluator: &G::Evaluator,
    play: &SelfPlay,
    adjudicate: i32,
    rng: &mut Rng,
    game_over: impl Fn(&G) -> Option<f64>,
) -> Vec<SfenResult> {
    let mut searcher = Searcher::new(16);
    let opts = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    let mut out = Vec::new();
    for _ in 0..play.games {
        let mut pos = start();
        for _ in 0..play.random_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
        }
        searcher.new_game();
        let mut seen: Vec<(String, Color, i32)> = Vec::new();
        let black = loop {
            if let Some(result) = game_over(&pos) {
                break result;
            }
            let limits = Limits {
                nodes: Some(play.nodes + rng.below(play.nodes / 2 + 1)),
                ..Limits::default()
            };
            let mut score = 0;
            let outcome = searcher.think(&pos, evaluator, &limits, &opts, &mut |r: Report<
                G::Move,
            >| {
                if let Report::Pv(info) = r {
                    score = match info.score {
                        Score::Cp(v) => v,
                        Score::Mate(n) if n > 0 => adjudicate,
                        Score::Mate(_) => -adjudicate,
                    };
                }
            });
            let mover = pos.side_to_move();
            let Outcome::Move { best, .. } = outcome else {
                break black_result(mover.flip());
            };
            if score.abs() >= adjudicate {
                break black_result(if score > 0 { mover } else { mover.flip() });
            }
            if !pos.in_check() {
                seen.push((pos.to_sfen(), mover, score));
            }
            pos.do_move(best);
        };
        out.extend(seen.into_iter().map(|(sfen, side, score)| SfenResult {
            sfen,
            result: if side == Color::Black {
                black
            } else {
                1.0 - black
            },
            score: Some(score),
        }));
    }
    out
}

/// Reads `sfen<TAB>result[<TAB>score]` lines, as `write_sfen_results` writes them; `name` is
/// for the errors.
pub fn read_sfen_results(text: &str, name: &str) -> Result<Vec<SfenResult>, String> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let mut fields = line.split('\t');
            let (Some(sfen), Some(result)) = (fields.next(), fields.next()) else {
                return Err(format!("{name}:{}: expected sfen<TAB>result", i + 1));
            };
            let result: f64 = result
                .trim()
                .parse()
                .map_err(|_| format!("{name}:{}: bad result", i + 1))?;
            let score = match fields.next() {
                Some(v) => Some(
                    v.trim()
                        .parse()
                        .map_err(|_| format!("{name}:{}: bad score", i + 1))?,
                ),
                None => None,
            };
            if fields.next().is_some() {
                return Err(format!("{name}:{}: more than three fields", i + 1));
            }
            Ok(SfenResult {
                sfen: sfen.to_string(),
                result,
                score,
            })
        })
        .collect()
}

/// Writes `sfen<TAB>result[<TAB>score]` lines.
pub fn write_sfen_results(samples: &[SfenResult]) -> String {
    samples
        .iter()
        .map(|s| match s.score {
            Some(v) => format!("{}\t{}\t{v}\n", s.sfen, s.result),
            None => format!("{}\t{}\n", s.sfen, s.result),
        })
        .collect()
}

/// Each sample's features (`features` of the position `parse` reads from its SFEN) with its
/// `label`; an error names the SFEN, and no samples at all is an error too.
pub fn featurize<P, E: Display, F>(
    samples: &[&SfenResult],
    parse: impl Fn(&str) -> Result<P, E>,
    features: impl Fn(&P) -> F,
    label: impl Fn(&SfenResult) -> f64,
) -> Result<Vec<(F, f64)>, String> {
    let data: Vec<(F, f64)> = samples
        .iter()
        .map(|s| {
            parse(&s.sfen)
                .map(|pos| (features(&pos), label(s)))
                .map_err(|e| format!("{}: {e}", s.sfen))
        })
        .collect::<Result<_, _>>()?;
    if data.is_empty() {
        return Err("no samples".into());
    }
    Ok(data)
}

/// A position's features along which the evaluation is linear in its parameters.
pub trait Linear {
    /// Adds `d` times the features to `g` (the gradient of `d` times the value).
    fn add_scaled(&self, d: f64, g: &mut [f64]);
}

/// Every parameter's feature, in the parameters' order.
impl Linear for Vec<f64> {
    fn add_scaled(&self, d: f64, g: &mut [f64]) {
        for (gi, fi) in g.iter_mut().zip(self) {
            *gi += d * fi;
        }
    }
}

/// Sparse features: (parameter index, count) pairs, an index possibly repeated.
impl Linear for Vec<(u32, f32)> {
    fn add_scaled(&self, d: f64, g: &mut [f64]) {
        for &(i, n) in self {
            g[i as usize] += d * f64::from(n);
        }
    }
}

/// Splits the samples by game, never by position: a new game starts wherever the move number
/// does not increase, the games are numbered from 0, and those whose number is 0 modulo
/// `every` are held out (`every` 0: none). Returns (training, held out).
pub fn split_by_game(samples: &[SfenResult], every: usize) -> (Vec<&SfenResult>, Vec<&SfenResult>) {
    let (mut train, mut held) = (Vec::new(), Vec::new());
    let (mut game, mut last) = (0usize, None);
    for s in samples {
        let ply: Option<u32> = s.sfen.split(' ').nth(3).and_then(|n| n.parse().ok());
        if let (Some(p), Some(l)) = (ply, last)
            && p <= l
        {
            game += 1;
        }
        last = ply;
        if every > 0 && game % every == 0 {
            held.push(s);
        } else {
            train.push(s);
        }
    }
    (train, held)
}

/// An evaluation's weights as the fit sees them: a vector of parameters.
pub trait Params {
    fn to_params(&self) -> Vec<f64>;
    /// These weights with `params` fitted (what the fit holds fixed kept as it is here).
    fn with_params(&self, params: &[f64]) -> Self;
}

/// The evaluation as a function of the parameters: `value(w, f)` is linear in `w` along
/// the features (`Linear`), but for terms the fit holds fixed.
pub struct Model<V> {
    pub value: V,
    /// Internal units: a value `v` means a winning probability of `1 / (1 + exp(-v / scale))`.
    pub scale: f64,
}

impl<V> Model<V> {
    fn probability<F>(&self, w: &[f64], f: &F) -> f64
    where
        V: Fn(&[f64], &F) -> f64,
    {
        1.0 / (1.0 + (-(self.value)(w, f) / self.scale).exp())
    }

    /// The mean cross-entropy between the results and the predicted probabilities.
    pub fn loss<F>(&self, data: &[(F, f64)], w: &[f64]) -> f64
    where
        V: Fn(&[f64], &F) -> f64,
    {
        let mut total = 0.0;
        for (f, y) in data {
            let p = self.probability(w, f).clamp(1e-9, 1.0 - 1e-9);
            total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        total / data.len() as f64
    }

    /// Minimises `loss` plus an L2 pull of strength `l2` towards `prior` (so that rare features
    /// keep their starting values) by full-batch Adam, starting from `prior`.
    pub fn fit<F: Linear>(
        &self,
        data: &[(F, f64)],
        prior: &[f64],
        epochs: usize,
        lr: f64,
        l2: f64,
    ) -> Vec<f64>
    where
        V: Fn(&[f64], &F) -> f64,
    {
        let n_params = prior.len();
        let mut w = prior.to_vec();
        let (mut m, mut v) = (vec![0.0; n_params], vec![0.0; n_params]);
        let (b1, b2) = (0.9f64, 0.999f64);
        for t in 1..=epochs {
            let mut g = vec![0.0; n_params];
            for (f, y) in data {
                let d = (self.probability(&w, f) - y) / self.scale;
                f.add_scaled(d, &mut g);
            }
            let n = data.len() as f64;
            for i in 0..n_params {
                let gi = g[i] / n + l2 * (w[i] - prior[i]);
                m[i] = b1 * m[i] + (1.0 - b1) * gi;
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
                let mh = m[i] / (1.0 - b1.powi(t as i32));
                let vh = v[i] / (1.0 - b2.powi(t as i32));
                w[i] -= lr * mh / (vh.sqrt() + 1e-12);
            }
        }
        w
    }
}

/// How a fit runs: see [`Model::fit_games`].
pub struct FitSettings {
    pub epochs: usize,
    pub lr: f64,
    pub l2: f64,
    /// The result's share of the target; the search score has the rest.
    pub lambda: f64,
    pub holdout_every: usize,
}

/// `kirin-tune yari-fit` and `dai-fit`'s defaults: the result alone, nothing held out.
impl Default for FitSettings {
    fn default() -> FitSettings {
        FitSettings {
            epochs: 300,
            lr: 2.0,
            l2: 1e-7,
            lambda: 1.0,
            holdout_every: 0,
        }
    }
}

/// What a fit gives: the weights, and (positions, loss before, loss after) on the games it was
/// fitted to (against its targets) and on the games held out from it (against their results).
pub struct Fitted<W> {
    pub weights: W,
    pub train: (usize, f64, f64),
    pub held_out: Option<(usize, f64, f64)>,
}

impl<V> Model<V> {
    /// Fits the parameters of `start` to the samples (`features` of the positions `parse`
    /// reads) by full-batch Adam on the cross-entropy between the target and the model's
    /// probability, with an L2 pull towards `start` so that rare features keep their starting
    /// values. The target is `lambda` of the result and the rest of the search score's winning
    /// probability (`SfenResult::target`). The games whose number is 0 modulo `holdout_every`
    /// (0: none) are held out of the fit (`split_by_game`) and only measured, against their
    /// results: games decide.
    pub fn fit_games<P, E: Display, F: Linear, W: Params>(
        &self,
        samples: &[SfenResult],
        start: &W,
        settings: &FitSettings,
        parse: impl Fn(&str) -> Result<P, E> + Copy,
        features: impl Fn(&P) -> F + Copy,
    ) -> Result<Fitted<W>, String>
    where
        V: Fn(&[f64], &F) -> f64,
    {
        let (train, held) = split_by_game(samples, settings.holdout_every);
        let label = |s: &SfenResult| s.target(settings.lambda, self.scale);
        let data = featurize(&train, parse, features, label)?;
        let prior = start.to_params();
        let (epochs, lr, l2) = (settings.epochs, settings.lr, settings.l2);
        let weights = start.with_params(&self.fit(&data, &prior, epochs, lr, l2));
        // The loss after is that of the weights as they keep the parameters (rounded), not of
        // the raw fit.
        let (before, after) = (
            self.loss(&data, &prior),
            self.loss(&data, &weights.to_params()),
        );
        let held_out = match held.is_empty() {
            true => None,
            false => {
                let data = featurize(&held, parse, features, |s| s.result)?;
                let loss = |w: &W| self.loss(&data, &w.to_params());
                Some((held.len(), loss(start), loss(&weights)))
            }
        };
        Ok(Fitted {
            weights,
            train: (train.len(), before, after),
            held_out,
        })
    }
}

/// Checks what every game's samples must show: results of 1, 0.5 or 0, and opposite results for
/// consecutive positions of one game with opposite movers (`parse` reads a sample's SFEN).
#[cfg(test)]
pub fn assert_labelled_from_the_mover<G: Game>(samples: &[SfenResult], parse: impl Fn(&str) -> G) {
    for pair in samples.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (pa, pb) = (parse(&a.sfen), parse(&b.sfen));
        assert!([0.0, 0.5, 1.0].contains(&a.result));
        if pa.game_ply() + 1 == pb.game_ply() && pa.side_to_move() != pb.side_to_move() {
            assert_eq!(a.result, 1.0 - b.result, "{} / {}", a.sfen, b.sfen);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_read_back_and_bad_lines_named() {
        let text = "a b c\t1\nd e f\t0.5\t-120\n";
        let samples = read_sfen_results(text, "x.tsv").unwrap();
        assert_eq!(samples[1].sfen, "d e f");
        assert_eq!(samples[1].result, 0.5);
        assert_eq!((samples[0].score, samples[1].score), (None, Some(-120)));
        // Half the result, half the score's probability; the result alone without a score.
        let p = 1.0 / (1.0 + (120.0f64 / 1182.0).exp());
        assert!((samples[1].target(0.5, 1182.0) - (0.25 + p / 2.0)).abs() < 1e-12);
        assert_eq!(samples[0].target(0.5, 1182.0), 1.0);
        assert_eq!(
            read_sfen_results(&write_sfen_results(&samples), "y").unwrap(),
            samples
        );
        let e = read_sfen_results("a\t1\nb 0\n", "x.tsv").unwrap_err();
        assert!(e.contains("x.tsv:2"), "{e}");
        for bad in ["a\t1\tx\n", "a\t1\t2\t3\n"] {
            assert!(read_sfen_results(bad, "x.tsv").is_err(), "{bad}");
        }
    }

    #[test]
    fn samples_split_by_game_and_never_inside_one() {
        let sample = |ply: u32| SfenResult {
            sfen: format!("9/9/9/9/9/9/9/9/9 b - {ply}"),
            result: 0.5,
            score: None,
        };
        // Four games (a game starts where the ply does not grow): 1-3, 2-5, 1-2 and 2.
        let plies = [1, 2, 3, 2, 3, 5, 1, 2, 2];
        let samples: Vec<SfenResult> = plies.iter().map(|&p| sample(p)).collect();
        let (train, held) = split_by_game(&samples, 2);
        let ply = |s: &&SfenResult| s.sfen.rsplit(' ').next().unwrap().to_string();
        // Games 0 and 2 held out.
        assert_eq!(
            held.iter().map(ply).collect::<Vec<_>>(),
            ["1", "2", "3", "1", "2"]
        );
        assert_eq!(
            train.iter().map(ply).collect::<Vec<_>>(),
            ["2", "3", "5", "2"]
        );
        let (all, none) = split_by_game(&samples, 0);
        assert_eq!((all.len(), none.len()), (9, 0));
    }
}
