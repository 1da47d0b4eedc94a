//! Training the network: a float copy of `(2344 -> h) x 2 -> 1` fitted by Adam to the blend
//! `lambda * result + (1 - lambda) * sigmoid(score / CP_PER_LOGIT)`, the prediction being
//! `sigmoid(output)`. Positions are stored as both sides' lists of active inputs (each in its own
//! king's bucket), and each epoch half of the positions are seen mirrored left to right.
//! The first layer's gradient is sparse (40 rows per position), so each thread accumulates into
//! its own dense buffer and the buffers are summed once per batch.

use super::read_labelled;
use crate::eval::CP_PER_LOGIT;
use crate::eval::linear::Weights;
use crate::eval::nnue::features::BUCKET_INPUTS;
use crate::eval::nnue::features::{self, mirror_input};
use crate::eval::nnue::{HIDDEN, INPUTS, MAX_ACTIVE, Network, QA, QB};
use crate::shogi::Color;
use rayon::prelude::*;

/// Largest first-layer weight and bias: 40 rows of at most this, scaled by `QA`, stay within i16.
const FT_CLIP: f32 = 1.98;
const OUT_CLIP: f32 = 8.0;

/// One training position.
#[derive(Clone, Debug)]
pub struct Labelled {
    /// Active inputs from each side's point of view (Black's, White's); `n` of each are used.
    inputs: [[u16; MAX_ACTIVE]; 2],
    n: u8,
    white_to_move: bool,
    /// Search score from the side to move's view, in engine units.
    pub score: f32,
    /// 1 win, 0.5 draw, 0 loss for the side to move.
    pub result: f32,
    pub game: u32,
    /// What the network's output is added to, in logits: the linear evaluation for a network
    /// trained on top of it, else 0.
    pub base: f32,
}

impl Labelled {
    pub fn new(pos: &crate::shogi::Position, score: f64, result: f64, game: u32) -> Labelled {
        let mut inputs = [[0u16; MAX_ACTIVE]; 2];
        let mut n = 0;
        for p in Color::ALL {
            n = 0;
            features::active(pos, p, |i| {
                if n < MAX_ACTIVE {
                    inputs[p.index()][n] = i as u16;
                    n += 1;
                }
            });
        }
        Labelled {
            inputs,
            n: n as u8,
            white_to_move: pos.side_to_move() == Color::White,
            score: score as f32,
            result: result as f32,
            game,
            base: 0.0,
        }
    }

    /// The inputs of the side to move's perspective and of the other, optionally mirrored.
    fn perspectives(&self, mirror: bool) -> ([u16; MAX_ACTIVE], [u16; MAX_ACTIVE], usize) {
        let n = usize::from(self.n);
        let [mut black, mut white] = self.inputs;
        if mirror {
            for x in black[..n].iter_mut().chain(&mut white[..n]) {
                *x = mirror_input(usize::from(*x)) as u16;
            }
        }
        if self.white_to_move {
            (white, black, n)
        } else {
            (black, white, n)
        }
    }

    /// What the prediction is trained towards: `lambda` of the result, the rest the score's
    /// winning probability.
    pub fn target(&self, lambda: f32) -> f32 {
        let from_score = sigmoid(self.score / CP_PER_LOGIT as f32);
        lambda * self.result + (1.0 - lambda) * from_score
    }
}

/// Training and held-out positions, split by game (every `every`-th held out, so no game is
/// split), each with what the caller kept beside it (`T`).
pub struct Split<T> {
    pub train: Vec<(T, Labelled)>,
    pub valid: Vec<(T, Labelled)>,
    /// Training positions merged into an earlier occurrence of the same position.
    pub merged: usize,
    /// Held-out positions dropped because a training game holds them, or merged into an
    /// earlier held-out occurrence.
    pub dropped: usize,
}

/// Splits `(key, T, position)` rows by game. With `unique`, each position (by its key) is
/// trained on once, with the mean of its occurrences' results and of their scores' winning
/// probabilities, so that an opening position that starts many games does not weigh as many
/// positions; and a held-out position that a training game also holds is dropped, so that the
/// validation loss is measured on positions never trained on.
pub fn split_by_game<T>(rows: Vec<(u64, T, Labelled)>, every: u32, unique: bool) -> Split<T> {
    use std::collections::{HashMap, HashSet};
    let every = every.max(1);
    let (held, trained): (Vec<_>, Vec<_>) =
        rows.into_iter().partition(|(_, _, p)| p.game % every == 0);
    if !unique {
        let strip = |v: Vec<(u64, T, Labelled)>| v.into_iter().map(|(_, t, p)| (t, p)).collect();
        return Split {
            train: strip(trained),
            valid: strip(held),
            merged: 0,
            dropped: 0,
        };
    }
    let k = CP_PER_LOGIT as f64;
    let mut at: HashMap<u64, usize> = HashMap::with_capacity(trained.len());
    // Per kept position: the sums of the winning probabilities and results, and the count.
    let mut sums: Vec<(f64, f64, u32)> = Vec::new();
    let mut train = Vec::new();
    let mut merged = 0;
    for (key, t, p) in trained {
        let prob = super::sigmoid(f64::from(p.score) / k);
        match at.get(&key) {
            Some(&i) => {
                let s = &mut sums[i];
                *s = (s.0 + prob, s.1 + f64::from(p.result), s.2 + 1);
                merged += 1;
            }
            None => {
                at.insert(key, train.len());
                sums.push((prob, f64::from(p.result), 1));
                train.push((t, p));
            }
        }
    }
    for ((_, p), (prob, result, n)) in train.iter_mut().zip(&sums) {
        if *n > 1 {
            let mean = (prob / f64::from(*n)).clamp(1e-6, 1.0 - 1e-6);
            p.score = (k * (mean / (1.0 - mean)).ln()) as f32;
            p.result = (result / f64::from(*n)) as f32;
        }
    }
    let mut seen_held = HashSet::new();
    let mut valid = Vec::new();
    let mut dropped = 0;
    for (key, t, p) in held {
        if at.contains_key(&key) || !seen_held.insert(key) {
            dropped += 1;
        } else {
            valid.push((t, p));
        }
    }
    Split {
        train,
        valid,
        merged,
        dropped,
    }
}

/// Reads generator lines (`<sfen>\t<score>\t<result>`) into training positions; with `base`,
/// each position's output is trained as a correction to that linear evaluation.
pub fn load(text: &str, first_game: u32, base: Option<&Weights>) -> Result<Vec<Labelled>, String> {
    read_labelled(text, first_game, |pos, score, result, game| {
        let mut p = Labelled::new(pos, score, result, game);
        if let Some(w) = base {
            p.base = w.evaluate(pos) as f32 / CP_PER_LOGIT as f32;
        }
        p
    })
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The float network: its parameters in one vector, laid out as `ft_weights` (INPUTS rows of
/// `h`), the shared rows (BUCKET_INPUTS rows of `h`), `ft_bias` (h), `out_weights` (2h: side to
/// move's half first), `out_bias` (1). An input's weight is its own row plus the shared row of
/// the same piece and square in no particular king bucket: what a piece is worth anywhere is
/// learnt from every position, and each bucket's rows learn only how its king changes that.
/// The export adds the shared rows into every bucket's.
#[derive(Clone, Debug)]
pub struct FloatNet {
    pub h: usize,
    pub params: Vec<f32>,
    /// Trained as a correction to the embedded linear evaluation.
    pub adds_linear: bool,
}

impl FloatNet {
    fn len(h: usize) -> usize {
        (INPUTS + BUCKET_INPUTS) * h + h + 2 * h + 1
    }
    fn ft_bias_at(&self) -> usize {
        (INPUTS + BUCKET_INPUTS) * self.h
    }
    fn out_at(&self) -> usize {
        self.ft_bias_at() + self.h
    }
    /// The two rows of input `i`: its own and the shared one.
    #[inline]
    fn rows_of(&self, i: u16) -> [usize; 2] {
        let i = usize::from(i);
        [i * self.h, (INPUTS + i % BUCKET_INPUTS) * self.h]
    }

    /// Small random weights (seeded), zero biases.
    pub fn random(h: usize, seed: u64) -> FloatNet {
        let mut rng = super::selfplay::Rng(seed);
        let mut params = vec![0f32; FloatNet::len(h)];
        let ft_range = 1.0 / (MAX_ACTIVE as f32).sqrt();
        let out_range = 1.0 / ((2 * h) as f32).sqrt();
        let net = FloatNet {
            h,
            params: vec![],
            adds_linear: false,
        };
        let o_at = net.out_at();
        // Random bucket rows and output weights; the shared rows and the biases start at zero.
        for (i, p) in params.iter_mut().enumerate() {
            let u = rng.unit() as f32 * 2.0 - 1.0;
            if i < INPUTS * h {
                *p = u * ft_range;
            } else if i >= o_at && i < o_at + 2 * h {
                *p = u * out_range;
            }
        }
        FloatNet {
            h,
            params,
            adds_linear: false,
        }
    }

    /// The float copy of a quantised network, to train on from where it stands. The export summed
    /// each shared row into every bucket's; this splits them again, the shared row being the
    /// buckets' mean, so that the decay of the bucket rows pulls towards what a piece is worth
    /// anywhere and not towards zero. Quantising the copy gives the network back.
    pub fn from_network(net: &Network) -> FloatNet {
        let h = HIDDEN;
        let (bias, weights, out, out_bias) = net.parts();
        let mut f = FloatNet {
            h,
            params: vec![0f32; FloatNet::len(h)],
            adds_linear: net.adds_linear(),
        };
        let qa = QA as f32;
        let buckets = INPUTS / BUCKET_INPUTS;
        for s in 0..BUCKET_INPUTS {
            let rows: Vec<&[i16; HIDDEN]> = (0..buckets)
                .map(|b| &weights[b * BUCKET_INPUTS + s])
                .collect();
            let mut mean = [0f32; HIDDEN];
            for row in &rows {
                for (m, w) in mean.iter_mut().zip(row.iter()) {
                    *m += f32::from(*w) / qa / buckets as f32;
                }
            }
            let shared = (INPUTS + s) * h;
            f.params[shared..shared + h].copy_from_slice(&mean);
            for (b, row) in rows.iter().enumerate() {
                let own = (b * BUCKET_INPUTS + s) * h;
                for ((p, w), m) in f.params[own..own + h].iter_mut().zip(row.iter()).zip(&mean) {
                    *p = f32::from(*w) / qa - m;
                }
            }
        }
        let b_at = f.ft_bias_at();
        for (p, b) in f.params[b_at..b_at + h].iter_mut().zip(bias) {
            *p = f32::from(*b) / qa;
        }
        let o_at = f.out_at();
        for (k, p) in f.params[o_at..o_at + 2 * h].iter_mut().enumerate() {
            *p = f32::from(out[k / h][k % h]) / QB as f32;
        }
        f.params[o_at + 2 * h] = out_bias as f32 / (QA * QB) as f32;
        f
    }

    /// The hidden sums of both perspectives, then the output (the predicted logit).
    fn forward(&self, us: &[u16], them: &[u16], acc: &mut [f32]) -> f32 {
        let h = self.h;
        let bias = &self.params[self.ft_bias_at()..self.ft_bias_at() + h];
        for (half, inputs) in acc.chunks_exact_mut(h).zip([us, them]) {
            half.copy_from_slice(bias);
            for &i in inputs {
                for at in self.rows_of(i) {
                    for (a, w) in half.iter_mut().zip(&self.params[at..at + h]) {
                        *a += w;
                    }
                }
            }
        }
        let out = &self.params[self.out_at()..self.out_at() + 2 * h];
        let mut y = self.params[self.out_at() + 2 * h];
        for (a, w) in acc.iter().zip(out) {
            y += a.clamp(0.0, 1.0) * w;
        }
        y
    }

    /// The predicted logit for a position of the rules core, without any base.
    pub fn logit(&self, pos: &crate::shogi::Position) -> f32 {
        let p = Labelled::new(pos, 0.0, 0.0, 0);
        let (us, them, n) = p.perspectives(false);
        let mut acc = vec![0f32; 2 * self.h];
        self.forward(&us[..n], &them[..n], &mut acc)
    }

    /// Adds the gradient of the squared error for one position to `grad`; returns the error.
    fn backward(
        &self,
        p: &Labelled,
        mirror: bool,
        lambda: f32,
        acc: &mut [f32],
        grad: &mut [f32],
    ) -> f32 {
        let h = self.h;
        let (us, them, n) = p.perspectives(mirror);
        let y = p.base + self.forward(&us[..n], &them[..n], acc);
        let prob = sigmoid(y);
        let err = prob - p.target(lambda);
        let g = 2.0 * err * prob * (1.0 - prob);
        let (b_at, o_at) = (self.ft_bias_at(), self.out_at());
        grad[o_at + 2 * h] += g;
        for k in 0..2 * h {
            let a = acc[k];
            grad[o_at + k] += g * a.clamp(0.0, 1.0);
            // The clipped ReLU passes gradient only strictly inside its range.
            acc[k] = if a > 0.0 && a < 1.0 {
                g * self.params[o_at + k]
            } else {
                0.0
            };
        }
        for (half, inputs) in acc.chunks_exact(h).zip([&us[..n], &them[..n]]) {
            for (gb, d) in grad[b_at..b_at + h].iter_mut().zip(half) {
                *gb += d;
            }
            for &i in inputs {
                for at in self.rows_of(i) {
                    for (gw, d) in grad[at..at + h].iter_mut().zip(half) {
                        *gw += d;
                    }
                }
            }
        }
        err * err
    }

    /// Mean squared error over `data` (not mirrored).
    pub fn loss(&self, data: &[Labelled], lambda: f32) -> f64 {
        if data.is_empty() {
            return 0.0;
        }
        let sum: f64 = data
            .par_chunks(4096)
            .map(|chunk| {
                let mut acc = vec![0f32; 2 * self.h];
                chunk
                    .iter()
                    .map(|p| {
                        let (us, them, n) = p.perspectives(false);
                        let y = p.base + self.forward(&us[..n], &them[..n], &mut acc);
                        f64::from((sigmoid(y) - p.target(lambda)).powi(2))
                    })
                    .sum::<f64>()
            })
            .sum();
        sum / data.len() as f64
    }

    /// The integer network the engine runs. Needs `h == HIDDEN`.
    pub fn quantise(&self) -> Result<Network, String> {
        if self.h != HIDDEN {
            return Err(format!(
                "the engine runs {HIDDEN} neurons, this net has {}",
                self.h
            ));
        }
        let q = |x: f32, scale: i32| (x * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        let mut bias = [0i16; HIDDEN];
        for (b, x) in bias.iter_mut().zip(&self.params[self.ft_bias_at()..]) {
            *b = q(*x, QA);
        }
        let weights = (0..INPUTS as u16)
            .map(|i| {
                let [own, shared] = self.rows_of(i);
                let mut r = [0i16; HIDDEN];
                for (k, w) in r.iter_mut().enumerate() {
                    let x = self.params[own + k] + self.params[shared + k];
                    *w = q(x.clamp(-FT_CLIP, FT_CLIP), QA);
                }
                r
            })
            .collect();
        let mut out = [[0i16; HIDDEN]; 2];
        let o = &self.params[self.out_at()..];
        for (k, x) in o[..2 * HIDDEN].iter().enumerate() {
            out[k / HIDDEN][k % HIDDEN] = q(*x, QB);
        }
        let out_bias = (o[2 * HIDDEN] * (QA * QB) as f32).round() as i32;
        Network::from_parts(bias, weights, out, out_bias, self.adds_linear)
    }

    /// Parameters and the optimiser's moments, for resuming a run.
    pub fn checkpoint_bytes(&self, adam: &Adam, epoch: usize) -> Vec<u8> {
        let mut b = Vec::with_capacity(12 * self.params.len() + 32);
        b.extend_from_slice(b"KIRINCKP");
        // The top bit of the width word says whether the net corrects the linear evaluation.
        let h_word = self.h as u64 | (u64::from(self.adds_linear) << 63);
        b.extend_from_slice(&h_word.to_le_bytes());
        b.extend_from_slice(&(epoch as u64).to_le_bytes());
        b.extend_from_slice(&adam.t.to_le_bytes());
        for v in [&self.params, &adam.m, &adam.v] {
            for x in v.iter() {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        b
    }

    pub fn from_checkpoint(bytes: &[u8]) -> Result<(FloatNet, Adam, usize), String> {
        if bytes.len() < 32 || &bytes[..8] != b"KIRINCKP" {
            return Err("not a training checkpoint".into());
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        let (h_word, epoch, t) = (word(8), word(16) as usize, word(24));
        let (h, adds_linear) = ((h_word & !(1 << 63)) as usize, h_word >> 63 == 1);
        if h == 0 || h > 4096 {
            return Err("checkpoint has a bad width".into());
        }
        let len = FloatNet::len(h);
        if bytes.len() != 32 + 12 * len {
            return Err("checkpoint has the wrong size".into());
        }
        let floats: Vec<f32> = bytes[32..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let net = FloatNet {
            h,
            params: floats[..len].to_vec(),
            adds_linear,
        };
        let adam = Adam {
            m: floats[len..2 * len].to_vec(),
            v: floats[2 * len..].to_vec(),
            t,
        };
        Ok((net, adam, epoch))
    }

    fn clip(&mut self) {
        let o_at = self.out_at();
        for (i, p) in self.params.iter_mut().enumerate() {
            *p = if i < o_at {
                p.clamp(-FT_CLIP, FT_CLIP)
            } else {
                p.clamp(-OUT_CLIP, OUT_CLIP)
            };
        }
    }
}

/// Adam's running moments.
#[derive(Clone, Debug)]
pub struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: u64,
}

impl Adam {
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t as i32);
        let c2 = 1.0 - B2.powi(self.t as i32);
        params
            .par_chunks_mut(1 << 16)
            .zip(grad.par_chunks(1 << 16))
            .zip(self.m.par_chunks_mut(1 << 16))
            .zip(self.v.par_chunks_mut(1 << 16))
            .for_each(|(((p, g), m), v)| {
                for k in 0..p.len() {
                    m[k] = B1 * m[k] + (1.0 - B1) * g[k];
                    v[k] = B2 * v[k] + (1.0 - B2) * g[k] * g[k];
                    p[k] -= lr * (m[k] / c1) / ((v[k] / c2).sqrt() + 1e-8);
                }
            });
    }
}

#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// Final learning rate as a fraction of `lr` (cosine decay).
    pub lr_end: f32,
    pub lambda: f32,
    pub seed: u64,
    /// Decoupled weight decay of the king buckets' own rows (not the shared ones), per unit of
    /// learning rate: a bucket's rows stay near zero unless many positions pull them away, so
    /// that a few games cannot be learnt by heart through them.
    pub decay: f32,
}

/// Trains `net` from epoch `first_epoch` on; `after_epoch(net, adam, epoch, train_loss,
/// valid_loss)` runs after each epoch (reporting, checkpoints).
pub fn train(
    net: &mut FloatNet,
    adam: &mut Adam,
    first_epoch: usize,
    data: &[Labelled],
    valid: &[Labelled],
    cfg: &TrainConfig,
    mut after_epoch: impl FnMut(&FloatNet, &Adam, usize, f64, f64),
) {
    let threads = rayon::current_num_threads().max(1);
    let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0f32; net.params.len()]).collect();
    let mut order: Vec<u32> = (0..data.len() as u32).collect();
    for epoch in first_epoch..cfg.epochs {
        // The same shuffle for an epoch whether or not the run was resumed.
        let mut erng = super::selfplay::Rng(cfg.seed ^ (epoch as u64).wrapping_mul(0x9E37_79B9));
        for i in (1..order.len()).rev() {
            order.swap(i, erng.below(i as u64 + 1) as usize);
        }
        let progress = epoch as f32 / cfg.epochs.max(1) as f32;
        let lr = cfg.lr
            * (cfg.lr_end
                + (1.0 - cfg.lr_end) * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
        let mut train_loss = 0.0f64;
        for batch in order.chunks(cfg.batch) {
            let per = batch.len().div_ceil(threads);
            let net_ref = &*net;
            let losses: Vec<f64> = grads
                .par_iter_mut()
                .zip(batch.par_chunks(per.max(1)))
                .map(|(g, idx)| {
                    g.iter_mut().for_each(|x| *x = 0.0);
                    let mut acc = vec![0f32; 2 * net_ref.h];
                    idx.iter()
                        .map(|&i| {
                            // Half of the positions of every epoch mirrored, a different half
                            // each epoch; not on top of the linear evaluation, whose value for
                            // the mirrored position is not stored.
                            let mirror = !net_ref.adds_linear
                                && (i as u64 ^ epoch as u64).count_ones() % 2 == 1;
                            let p = &data[i as usize];
                            f64::from(net_ref.backward(p, mirror, cfg.lambda, &mut acc, g))
                        })
                        .sum()
                })
                .collect();
            train_loss += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(per.max(1)).min(threads);
            let (first, rest) = grads.split_at_mut(1);
            let scale = 1.0 / batch.len() as f32;
            first[0]
                .par_chunks_mut(1 << 16)
                .enumerate()
                .for_each(|(c, dst)| {
                    let (at, len) = (c << 16, dst.len());
                    for other in &rest[..used - 1] {
                        for (d, s) in dst.iter_mut().zip(&other[at..at + len]) {
                            *d += s;
                        }
                    }
                    for d in dst.iter_mut() {
                        *d *= scale;
                    }
                });
            adam.step(&mut net.params, &first[0], lr);
            if cfg.decay > 0.0 {
                let keep = 1.0 - lr * cfg.decay;
                let own = INPUTS * net.h;
                net.params[..own]
                    .par_chunks_mut(1 << 16)
                    .for_each(|c| c.iter_mut().for_each(|p| *p *= keep));
            }
            net.clip();
        }
        let train_loss = train_loss / data.len().max(1) as f64;
        let valid_loss = net.loss(valid, cfg.lambda);
        after_epoch(net, adam, epoch + 1, train_loss, valid_loss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::legal_moves;

    /// Positions from random playouts labelled by material (a pawn 1, a rook 6, ...), so that
    /// there is something learnable.
    fn toy_data(n: usize, seed: u64) -> Vec<Labelled> {
        let mut rng = super::super::selfplay::Rng(seed);
        let mut out = Vec::new();
        let value = |pos: &crate::shogi::Position, c: Color| -> f64 {
            use crate::shogi::PieceType as P;
            let v = |k: P| match k.unpromote() {
                P::Pawn => 1.0,
                P::Lance | P::Knight => 3.0,
                P::Silver | P::Gold => 5.0,
                P::Bishop | P::Rook => 8.0,
                _ => 0.0,
            };
            let mut s = 0.0;
            let mut bb = pos.pieces_of(c);
            while let Some(sq) = bb.pop() {
                s += v(pos.piece_on(sq).kind());
            }
            for k in crate::shogi::PieceType::HAND {
                s += v(k) * f64::from(pos.hand(c).count(k));
            }
            s
        };
        while out.len() < n {
            let mut pos = crate::shogi::Position::startpos();
            for _ in 0..80 {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
                let us = pos.side_to_move();
                let diff = value(&pos, us) - value(&pos, !us);
                let score = diff * 100.0;
                let result = if diff > 0.0 {
                    1.0
                } else if diff < 0.0 {
                    0.0
                } else {
                    0.5
                };
                out.push(Labelled::new(&pos, score, result, out.len() as u32 / 40));
            }
        }
        out
    }

    /// The positions of a seeded random game, started again from the start when one ends.
    fn random_walk(seed: u64, steps: usize) -> Vec<crate::shogi::Position> {
        let mut rng = super::super::selfplay::Rng(seed);
        let mut pos = crate::shogi::Position::startpos();
        let mut out = Vec::new();
        for _ in 0..steps {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                pos = crate::shogi::Position::startpos();
                continue;
            }
            pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
            out.push(pos.clone());
        }
        out
    }

    #[test]
    fn training_lowers_the_loss_and_the_quantised_net_agrees_with_the_float_net() {
        let data = toy_data(6000, 1);
        let valid = toy_data(1000, 2);
        let mut net = FloatNet::random(HIDDEN, 7);
        let mut adam = Adam::new(net.params.len());
        let before = net.loss(&valid, 0.5);
        let cfg = TrainConfig {
            epochs: 6,
            batch: 256,
            lr: 2e-3,
            lr_end: 0.1,
            lambda: 0.5,
            seed: 3,
            decay: 20.0,
        };
        let mut last = f64::MAX;
        train(
            &mut net,
            &mut adam,
            0,
            &data,
            &valid,
            &cfg,
            |_, _, _, _, v| last = v,
        );
        assert!(last < before * 0.7, "validation loss {before} -> {last}");

        // The integer network follows the float one within a small tolerance on the engine's
        // scale (one unit of the float output is CP_PER_LOGIT).
        let q = net.quantise().unwrap();
        let mut worst = 0.0f64;
        for pos in random_walk(5, 300) {
            let float = f64::from(net.logit(&pos)) * f64::from(CP_PER_LOGIT);
            let int = f64::from(q.evaluate_fresh(&pos));
            worst = worst.max((float - int).abs());
        }
        // 30 engine units is a third of a pawn.
        assert!(worst < 30.0, "quantisation error up to {worst}");
    }

    #[test]
    fn the_float_copy_of_the_embedded_network_quantises_back_to_it_and_evaluates_alike() {
        let net = Network::from_bytes(crate::eval::NET_BYTES).unwrap();
        let f = FloatNet::from_network(&net);
        assert!(f.adds_linear);
        assert_eq!(f.quantise().unwrap().to_bytes(), crate::eval::NET_BYTES);
        // The split into shared and bucket rows is real: a shared row is not zero.
        let shared = INPUTS * HIDDEN;
        assert!(
            f.params[shared..shared + BUCKET_INPUTS * HIDDEN]
                .iter()
                .any(|w| *w != 0.0)
        );
        for pos in random_walk(11, 200) {
            // Without the linear base on either side: the float logit and the integer network's.
            let float = f64::from(f.logit(&pos));
            let int = net.logit(&pos);
            assert!((float - int).abs() < 0.02, "{float} against {int}");
        }
    }

    #[test]
    fn repeated_positions_train_once_with_mean_labels_and_never_count_as_held_out() {
        let start = crate::shogi::Position::startpos();
        let mut other = start.clone();
        other.do_move(legal_moves(&start)[0]);
        let row = |pos: &crate::shogi::Position, score: f64, result: f64, game: u32| {
            (pos.key(), game, Labelled::new(pos, score, result, game))
        };
        // Games 1 and 2 train, game 0 and game 3 (every 3rd) are held out.
        let rows = vec![
            row(&start, 0.0, 0.5, 0),
            row(&other, 10.0, 1.0, 0),
            row(&start, 1182.0, 1.0, 1),
            row(&start, -1182.0, 0.0, 2),
            row(&other, 50.0, 0.0, 3),
            row(&other, 80.0, 1.0, 3),
            row(&start, 2000.0, 1.0, 2),
        ];
        let all = split_by_game(rows.clone(), 3, false);
        assert_eq!((all.train.len(), all.valid.len()), (3, 4));
        let s = split_by_game(rows, 3, true);
        assert_eq!((s.train.len(), s.merged), (1, 2));
        let (game, p) = &s.train[0];
        assert_eq!(*game, 1);
        assert!((p.result - 2.0 / 3.0).abs() < 1e-6);
        // The mean of the winning probabilities of +1182, -1182 and +2000, back as a score.
        let prob = |x: f64| 1.0 / (1.0 + (-x / 1182.0).exp());
        let mean = (prob(1182.0) + prob(-1182.0) + prob(2000.0)) / 3.0;
        assert!((f64::from(sigmoid(p.score / CP_PER_LOGIT as f32)) - mean).abs() < 1e-5);
        // Held out: the start position is trained on, and the second of the other's dropped.
        assert_eq!((s.valid.len(), s.dropped), (1, 3));
        assert_eq!((s.valid[0].0, s.valid[0].1.score), (0, 10.0));
    }

    #[test]
    fn a_checkpoint_restores_the_net_and_the_optimiser() {
        let mut net = FloatNet::random(8, 1);
        net.adds_linear = true;
        let mut adam = Adam::new(net.params.len());
        adam.t = 12;
        adam.m[3] = 0.5;
        let bytes = net.checkpoint_bytes(&adam, 4);
        let (n2, a2, e) = FloatNet::from_checkpoint(&bytes).unwrap();
        assert_eq!((n2.h, e, a2.t, n2.adds_linear), (8, 4, 12, true));
        assert_eq!(n2.params, net.params);
        assert_eq!(a2.m, adam.m);
        assert!(FloatNet::from_checkpoint(&bytes[..100]).is_err());
    }
}
