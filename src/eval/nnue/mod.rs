//! The neural evaluation (NNUE): `(12 x 2344 -> HIDDEN) x 2 -> 1`. Each side's point of view has its
//! own half of the hidden layer, an accumulator that the search updates move by move (only the
//! moved, captured and dropped pieces change inputs). The output reads the side to move's half
//! first, through a clipped ReLU, with integer weights: i16 in the first layer (scaled by `QA`),
//! i16 in the output (scaled by `QB`), sums in i32.

pub mod features;
mod file;
mod simd;

pub use features::{INPUTS, MAX_ACTIVE};
pub use file::ARCHITECTURE;
pub use simd::Kernel;

use super::{CP_PER_LOGIT, Value};
use crate::shogi::{Color, Position};

/// Neurons per perspective.
pub const HIDDEN: usize = 64;
/// Scale of the first layer's weights and of the activation's upper clip (1.0 in the float net).
pub const QA: i32 = 255;
/// Scale of the output weights: fine enough that rounding them moves the output by well under
/// one engine unit (1 / CP_PER_LOGIT of a logit); clipped at 8 in training, so the i32 sum of
/// 128 products of at most 255 * 8192 cannot overflow.
pub const QB: i32 = 1024;

/// One neuron value per hidden unit: a bias, a weight row, an accumulator half.
type Row = [i16; HIDDEN];

/// The quantised network.
pub struct Network {
    ft_bias: [i16; HIDDEN],
    /// `INPUTS` rows of `HIDDEN`.
    ft_weights: Vec<[i16; HIDDEN]>,
    /// The side to move's half, then the other's.
    out_weights: [[i16; HIDDEN]; 2],
    /// Scaled by `QA * QB`.
    out_bias: i32,
    /// Trained as a correction on top of the embedded linear evaluation, which is then added.
    adds_linear: bool,
    kernel: Kernel,
}

/// Both perspectives' hidden sums for one position, indexed by `Color::index`.
#[derive(Clone)]
#[repr(align(64))]
pub struct Accumulator([[i16; HIDDEN]; 2]);

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator([[0; HIDDEN]; 2])
    }
}

impl Network {
    /// A network from its quantised parts (the trainer's export and the file reader).
    pub fn from_parts(
        ft_bias: [i16; HIDDEN],
        ft_weights: Vec<[i16; HIDDEN]>,
        out_weights: [[i16; HIDDEN]; 2],
        out_bias: i32,
        adds_linear: bool,
    ) -> Result<Network, String> {
        if ft_weights.len() != INPUTS {
            return Err(format!(
                "{} input rows, expected {INPUTS}",
                ft_weights.len()
            ));
        }
        Ok(Network {
            ft_bias,
            ft_weights,
            out_weights,
            out_bias,
            adds_linear,
            kernel: Kernel::detect(),
        })
    }

    /// Whether the network's output is a correction to the embedded linear evaluation.
    pub fn adds_linear(&self) -> bool {
        self.adds_linear
    }

    /// The same network running another compiled copy of the inner loops (tests compare them).
    pub fn with_kernel(mut self, kernel: Kernel) -> Network {
        self.kernel = kernel;
        self
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        file::read(bytes)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        file::write(self)
    }

    /// The accumulator of `pos` computed from scratch.
    pub fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
        for p in Color::ALL {
            self.refresh_perspective(pos, p, acc);
        }
    }

    /// One perspective's half of the accumulator computed from scratch.
    fn refresh_perspective(&self, pos: &Position, p: Color, acc: &mut Accumulator) {
        let mut rows: [&[i16; HIDDEN]; MAX_ACTIVE] = [&self.ft_bias; MAX_ACTIVE];
        let mut n = 0;
        features::active(pos, p, |i| {
            // More than 40 pieces cannot be set up; ignore any beyond, as a bound.
            if n < MAX_ACTIVE {
                rows[n] = &self.ft_weights[i];
                n += 1;
            }
        });
        self.kernel
            .refresh(&mut acc.0[p.index()], &self.ft_bias, &rows[..n]);
    }

    /// The accumulator of `pos` from `parent`, the accumulator before its last move.
    #[inline]
    pub fn update(&self, pos: &Position, parent: &Accumulator, acc: &mut Accumulator) {
        for p in Color::ALL {
            let c = match features::changes(pos, p) {
                features::Update::Delta(c) => c,
                features::Update::Same => {
                    acc.0[p.index()] = parent.0[p.index()];
                    continue;
                }
                features::Update::Refresh => {
                    self.refresh_perspective(pos, p, acc);
                    continue;
                }
            };
            let removed = [
                &self.ft_weights[c.removed[0]],
                &self.ft_weights[c.removed[1]],
            ];
            let added = [&self.ft_weights[c.added[0]], &self.ft_weights[c.added[1]]];
            self.kernel.update(
                &mut acc.0[p.index()],
                &parent.0[p.index()],
                &removed[..c.n_removed],
                &added[..c.n_added],
            );
        }
    }

    /// The evaluation from the side to move's point of view, in the engine's units.
    #[inline]
    pub fn evaluate(&self, pos: &Position, acc: &Accumulator) -> Value {
        let sum = self.output(pos, acc);
        (i64::from(sum) * i64::from(CP_PER_LOGIT) / i64::from(QA * QB)) as Value
    }

    /// The output layer on the side to move's half and the opponent's, in the network's fixed
    /// point (`QA * QB` is one logit).
    #[inline]
    fn output(&self, pos: &Position, acc: &Accumulator) -> i32 {
        let us = pos.side_to_move();
        self.out_bias
            + self.kernel.output(
                &acc.0[us.index()],
                &acc.0[(!us).index()],
                &self.out_weights[0],
                &self.out_weights[1],
            )
    }

    /// The evaluation of `pos` with a fresh accumulator.
    pub fn evaluate_fresh(&self, pos: &Position) -> Value {
        let mut acc = Accumulator::default();
        self.refresh(pos, &mut acc);
        self.evaluate(pos, &acc)
    }

    /// The output before scaling to engine units, as a float: the predicted logit of winning.
    pub fn logit(&self, pos: &Position) -> f64 {
        let mut acc = Accumulator::default();
        self.refresh(pos, &mut acc);
        f64::from(self.output(pos, &acc)) / f64::from(QA * QB)
    }

    pub(crate) fn parts(&self) -> (&Row, &[Row], &[Row; 2], i32) {
        (
            &self.ft_bias,
            &self.ft_weights,
            &self.out_weights,
            self.out_bias,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::{PieceType, legal_moves};
    use crate::tune::selfplay::Rng;

    /// A network with random weights in the ranges a trained one has.
    pub(crate) fn random_network(seed: u64) -> Network {
        let mut rng = Rng(seed);
        let mut row = |range: u64| {
            let mut r = [0i16; HIDDEN];
            for x in r.iter_mut() {
                *x = (rng.below(2 * range + 1) as i64 - range as i64) as i16;
            }
            r
        };
        let bias = row(200);
        let weights = (0..INPUTS).map(|_| row(150)).collect();
        let out = [row(100), row(100)];
        Network::from_parts(bias, weights, out, 1234, false).unwrap()
    }

    #[test]
    fn incremental_accumulator_equals_a_fresh_one_after_every_kind_of_move() {
        let nets = [
            random_network(1).with_kernel(Kernel::Portable),
            random_network(1),
        ];
        let mut rng = Rng(99);
        // Drops, captures, promotions, king moves inside a bucket, other moves, king moves into
        // another bucket (which refresh that side's half).
        let mut seen = [0usize; 6];
        for game in 0..60 {
            let mut pos = Position::startpos();
            for _ in 0..160 {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                for net in &nets {
                    let mut parent = Accumulator::default();
                    net.refresh(&pos, &mut parent);
                    for &m in moves.iter() {
                        let slot = if m.is_drop() {
                            0
                        } else if pos.piece_on(m.to()).is_some() {
                            1
                        } else if m.is_promotion() {
                            2
                        } else if pos.piece_on(m.from()).kind() == PieceType::King {
                            3
                        } else {
                            4
                        };
                        let mover = pos.side_to_move();
                        let bucket = features::king_bucket(&pos, mover);
                        pos.do_move(m);
                        let slot = if slot == 3 && features::king_bucket(&pos, mover) != bucket {
                            5
                        } else {
                            slot
                        };
                        seen[slot] += 1;
                        let mut inc = Accumulator::default();
                        net.update(&pos, &parent, &mut inc);
                        let mut fresh = Accumulator::default();
                        net.refresh(&pos, &mut fresh);
                        assert!(inc.0 == fresh.0, "{m} {}", pos.to_sfen());
                        assert_eq!(net.evaluate(&pos, &inc), net.evaluate_fresh(&pos));
                        pos.undo_move();
                    }
                }
                let m = crate::eval::test_playout::capture_or_any(&pos, &moves, &mut rng);
                pos.do_move(m);
            }
            if game > 4 && seen.iter().all(|&n| n > 2000) {
                break;
            }
        }
        assert!(seen.iter().all(|&n| n > 200), "{seen:?}");
    }

    #[test]
    fn evaluation_is_the_same_for_the_rotated_position_with_colours_swapped() {
        let net = random_network(4);
        let a = Position::from_sfen(
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2",
        )
        .unwrap();
        let b = crate::eval::test_sfen::rotated(&a);
        assert_eq!(net.evaluate_fresh(&a), net.evaluate_fresh(&b));
    }
}
