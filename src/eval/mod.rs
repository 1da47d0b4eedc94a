//! Evaluation: the neural network (`nnue`), the linear evaluation (`linear`), or their sum, as
//! the network's file says. The engine plays with the embedded network, which beat the linear
//! evaluation in games; `EvalFile linear` selects the linear evaluation. The searcher owns an `Evaluator` and hands it to every thread; each
//! thread keeps an `EvalStack`, the incremental state along its current line (an accumulator
//! and a linear piece part per ply), pushed after each move.

pub mod dai;
pub mod features;
pub mod linear;
pub mod nnue;
mod scale;
#[cfg(test)]
pub(crate) mod test_playout;
#[cfg(test)]
pub(crate) mod test_sfen;
pub mod yari;

use crate::shogi::Position;
use linear::{PiecePart, Weights};
use nnue::{Accumulator, Network};
use std::sync::{Arc, OnceLock};

pub use scale::{REPORT_SCALE, ReportScale, from_reported_cp, to_reported_cp};

/// An evaluation computed from the whole position at every node (yari and dai shogi's weights),
/// from the side to move's point of view: it carries nothing along the search's line.
pub trait WholePositionEvaluation<P>: Send + Sync + 'static {
    fn evaluate(&self, pos: &P) -> i32;
}

/// The engine's internal units. A value `v` for the side to move means a winning probability of
/// `1 / (1 + exp(-v / CP_PER_LOGIT))`; a pawn on the board is worth about 90.
pub type Value = i32;

/// Internal units per logistic unit of winning probability: the scale the linear evaluation was
/// fitted to (K = 1182 in tuning/notes/linear-weights.md), which the network is trained to share, so that the
/// search's margins mean the same with either evaluator.
pub const CP_PER_LOGIT: i32 = 1182;

/// An evaluation function, shared by every search thread: a network, the linear evaluation,
/// or their sum (a network trained on top of the linear evaluation says so in its file).
#[derive(Clone)]
pub struct Evaluator {
    net: Option<Arc<Network>>,
    linear: Option<Arc<Weights>>,
}

/// Weights parsed once from the text built into the binary and shared, kept in `cell`. A test
/// of each variant checks its text, so a build that passed the suite cannot fail here.
pub(crate) fn embedded_weights<W>(
    cell: &'static OnceLock<Arc<W>>,
    text: &str,
    parse: fn(&str) -> Result<W, String>,
) -> Arc<W> {
    Arc::clone(cell.get_or_init(|| match parse(text) {
        Ok(w) => Arc::new(w),
        Err(e) => unreachable!("the embedded weights are checked by a test: {e}"),
    }))
}

/// Weights read from the file at `path` by `parse` (an engine's `EvalFile`); the error names
/// the file when it cannot be read.
pub(crate) fn weights_file<W>(
    path: &str,
    parse: fn(&str) -> Result<W, String>,
) -> Result<Arc<W>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    parse(&text).map(Arc::new)
}

/// A weights file's opening comment: each line of `header` after a `#`.
pub(crate) fn comment_lines(header: &str) -> String {
    header.lines().map(|line| format!("# {line}\n")).collect()
}

pub(crate) static NET_BYTES: &[u8] = include_bytes!("nnue/kirin.nnue");
static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();

/// The embedded network, read once. It is checked by a test, so a build that passed the suite
/// has a good one.
pub fn embedded_network() -> Option<Arc<Network>> {
    NET.get_or_init(|| match Network::from_bytes(NET_BYTES) {
        Ok(n) => Some(Arc::new(n)),
        Err(e) => {
            log::error!("embedded network unusable ({e}); using the linear evaluation");
            None
        }
    })
    .clone()
}

impl Default for Evaluator {
    /// What kirin plays with unless told otherwise: the embedded network, which won its match
    /// against the linear evaluation (tuning/notes/network.md, "Rounds"); the linear evaluation if the
    /// network were unusable.
    fn default() -> Self {
        Evaluator::embedded_network().unwrap_or_else(|_| Evaluator::linear())
    }
}

impl Evaluator {
    /// The embedded network (with the linear evaluation it corrects), or why it is unusable.
    pub fn embedded_network() -> Result<Evaluator, String> {
        embedded_network()
            .map(Evaluator::network)
            .ok_or_else(|| "the embedded network is unusable".to_string())
    }

    /// The embedded linear weights.
    pub fn linear() -> Evaluator {
        Evaluator {
            net: None,
            linear: Some(linear::weights()),
        }
    }

    /// A network, with the embedded linear weights added when it was trained on top of them.
    pub fn network(net: Arc<Network>) -> Evaluator {
        let linear = net.adds_linear().then(linear::weights);
        Evaluator {
            net: Some(net),
            linear,
        }
    }

    /// Reads an evaluation file: a network file (by its magic), else a linear weights file.
    /// `linear` names the embedded linear weights, `nnue` the embedded network.
    pub fn load(path: &str) -> Result<Evaluator, String> {
        match path {
            "linear" => return Ok(Evaluator::linear()),
            "nnue" => return Evaluator::embedded_network(),
            _ => {}
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        if bytes.starts_with(b"KIRINNET") {
            let net = Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
            return Ok(Evaluator::network(Arc::new(net)));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{path}: neither a network nor a weights file"))?;
        let w = Weights::parse(&text).map_err(|e| format!("{path}: {e}"))?;
        Ok(Evaluator {
            net: None,
            linear: Some(Arc::new(w)),
        })
    }

    pub fn name(&self) -> &'static str {
        match (&self.net, &self.linear) {
            (Some(_), Some(_)) => "nnue+linear",
            (Some(_), None) => "nnue",
            _ => "linear",
        }
    }

    /// Static evaluation from the side to move's point of view, computed from scratch.
    pub fn evaluate(&self, pos: &Position) -> Value {
        self.net.as_ref().map_or(0, |n| n.evaluate_fresh(pos))
            + self.linear.as_ref().map_or(0, |w| w.evaluate(pos))
    }

    /// What `kirin eval` and the USI `eval` command print: named parts, then `("total", ..)`,
    /// which equals `evaluate(pos)`, all from the side to move's point of view.
    pub fn explain(&self, pos: &Position) -> Vec<(String, i32)> {
        let mut out = match &self.linear {
            Some(w) => {
                let mut parts = w.explain(pos);
                parts.pop();
                parts
            }
            None => Vec::new(),
        };
        if let Some(n) = &self.net {
            out.push(("network".into(), n.evaluate_fresh(pos)));
        }
        out.push(("total".into(), self.evaluate(pos)));
        out
    }
}

/// The incremental evaluation state of one search thread along its current line: entry `ply`
/// of each part belongs to the position at that ply.
pub struct EvalStack {
    net: Option<(Arc<Network>, Vec<Accumulator>)>,
    linear: Option<(Arc<Weights>, Vec<PiecePart>)>,
}

impl EvalStack {
    /// A stack for lines of up to `plies` plies from `root`.
    pub fn new(evaluator: &Evaluator, root: &Position, plies: usize) -> EvalStack {
        EvalStack {
            net: evaluator.net.as_ref().map(|n| {
                let mut accs = vec![Accumulator::default(); plies + 1];
                n.refresh(root, &mut accs[0]);
                (Arc::clone(n), accs)
            }),
            linear: evaluator.linear.as_ref().map(|w| {
                let mut parts = vec![PiecePart::default(); plies + 1];
                parts[0] = w.piece_part(root);
                (Arc::clone(w), parts)
            }),
        }
    }

    /// After a move (or a null move) from the position at `ply`: makes entry `ply + 1` for `pos`.
    #[inline]
    pub fn push(&mut self, ply: usize, pos: &Position) {
        if let Some((n, accs)) = &mut self.net {
            let (done, next) = accs.split_at_mut(ply + 1);
            n.update(pos, &done[ply], &mut next[0]);
        }
        if let Some((w, parts)) = &mut self.linear {
            parts[ply + 1] = if pos.last_move().is_none() {
                parts[ply]
            } else {
                w.update_piece_part(pos, parts[ply])
            };
        }
    }

    /// The evaluation of `pos`, the position at `ply`, from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, ply: usize, pos: &Position) -> Value {
        let mut v = 0;
        if let Some((n, accs)) = &self.net {
            debug_assert_eq!(
                n.evaluate(pos, &accs[ply]),
                n.evaluate_fresh(pos),
                "{}",
                pos.to_sfen()
            );
            v += n.evaluate(pos, &accs[ply]);
        }
        if let Some((w, parts)) = &self.linear {
            debug_assert_eq!(parts[ply], w.piece_part(pos), "{}", pos.to_sfen());
            v += w.evaluate_with_piece_part(pos, parts[ply]);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_network_loads_and_sees_material() {
        let net = Evaluator::embedded_network().expect("embedded network must load");
        assert_eq!(Evaluator::load("nnue").unwrap().name(), net.name());
        let up_a_rook =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1")
                .unwrap();
        assert!(net.evaluate(&up_a_rook) > 300);
        let start = net.evaluate(&Position::startpos());
        assert!(start.abs() < 150, "{start}");
    }

    #[test]
    fn explain_ends_with_the_total() {
        let zero = Network::from_parts(
            [0; nnue::HIDDEN],
            vec![[0; nnue::HIDDEN]; nnue::INPUTS],
            [[0; nnue::HIDDEN]; 2],
            0,
            false,
        )
        .unwrap();
        let net_only = Evaluator::network(Arc::new(zero));
        let net_and_linear = Evaluator::embedded_network().unwrap();
        assert_eq!(net_only.evaluate(&Position::startpos()), 0);
        for e in [
            Evaluator::default(),
            Evaluator::linear(),
            net_only,
            net_and_linear,
        ] {
            let pos = Position::startpos();
            let parts = e.explain(&pos);
            assert_eq!(
                parts.last().unwrap(),
                &("total".to_string(), e.evaluate(&pos))
            );
        }
    }

    #[test]
    fn load_refuses_bad_files_with_the_path_in_the_message() {
        let dir = std::env::temp_dir().join(format!("kirin-eval-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.nnue");
        std::fs::write(&bad, b"KIRINNET\x01\x00\x00\x00garbage").unwrap();
        let err = Evaluator::load(bad.to_str().unwrap()).err().unwrap();
        assert!(err.contains("bad.nnue"), "{err}");
        assert!(Evaluator::load("/nonexistent/x.nnue").is_err());
        assert_eq!(Evaluator::load("linear").unwrap().name(), "linear");
        std::fs::remove_dir_all(&dir).ok();
    }
}
