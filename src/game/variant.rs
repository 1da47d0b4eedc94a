//! A game as the engine serves it under its `UCI_Variant` name: what the USI layer, `kirin
//! bench` and `kirin perft` need of a game beyond what the search needs ([`Game`]): positions
//! from and to text, moves from text, the game's evaluation, and the services only some games
//! have (an evaluation breakdown, a mate solver, an opening book). Each game implements it
//! beside its `Game` implementation; one generic engine ([`crate::engine`]) serves them all.

use super::Game;
use crate::book::{BookAnswer, BookRequest};
pub use crate::dai::DeclinedPawnRule;
use crate::mate::MateProgress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Rule choices made by options, each for the game it belongs to; a game applies its own to a
/// position before any move is played on it, and ignores the others.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleOptions {
    /// Dai shogi: the chances a pawn that declined to promote keeps.
    pub dai_declined_pawn: DeclinedPawnRule,
}

/// The evaluation's terms in a position, for the `eval` command.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// Each term and its value, the total among them.
    pub parts: Vec<(String, i32)>,
    /// The evaluation from the side to move's point of view.
    pub value: i32,
    /// Which evaluation gave it.
    pub evaluator: &'static str,
}

/// What `go mate` gives the mate solver.
#[derive(Clone, Copy, Debug)]
pub struct MateRequest<'a> {
    /// The size of the solver's table.
    pub hash_mb: usize,
    /// When to give up; `None` for no limit.
    pub deadline: Option<Instant>,
    /// Set by `stop`: the solver gives up at once.
    pub stop: &'a AtomicBool,
}

/// The mate solver's answer, moves as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateAnswer {
    Mate(Vec<String>),
    NoMate,
    Timeout,
}

pub trait Variant: Game {
    /// The name in `UCI_Variant`, as Fairy-Stockfish and its GUIs spell it.
    const NAME: &'static str;
    /// `kirin bench`'s positions: a name and an SFEN each.
    const BENCH: &'static [(&'static str, &'static str)];

    fn startpos() -> Self;
    /// A position from an SFEN; the error is one line.
    fn from_sfen(sfen: &str) -> Result<Self, String>;
    /// A legal move from USI text; the error is one line.
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;
    /// Board diagram for the `d` command.
    fn diagram(&self) -> String;
    /// Every legal move, in the rules core's order (the first is the fallback move when a
    /// search fails). Search lists may be capped (see [`super::MoveList`]); this one is not.
    fn all_legal_moves(&self) -> Vec<Self::Move> {
        self.legal_moves().to_vec()
    }
    /// Applies the rule options that belong to this game.
    fn apply_rule_options(&mut self, _rules: &RuleOptions) {}

    /// The evaluation the game plays with unless an evaluation file replaces it.
    fn default_evaluator() -> Self::Evaluator;
    /// An evaluation from a file (the `EvalFile` option, `kirin bench --eval`) and its name;
    /// `None` for a game whose evaluation is not read from files.
    fn load_evaluator(_path: &str) -> Option<Result<(Self::Evaluator, &'static str), String>> {
        None
    }
    /// The evaluation's terms here; `None` for a game without a breakdown.
    fn explain(&self, _evaluator: &Self::Evaluator) -> Option<Explanation> {
        None
    }
    /// Whether the game has a mate solver: [`Variant::solve_mate`] answers.
    const SOLVES_MATE: bool = false;
    /// Solves for a mate of the side to move (`go mate`); `None` for a game without a solver.
    fn solve_mate(
        &mut self,
        _request: MateRequest,
        _progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        None
    }
    /// The opening book's move here (`book` is in the format of this game's books); `None` in
    /// a game without books, and where the book is not used (past `BookMoves`).
    fn book_answer(&self, _book: BookRequest) -> Option<BookAnswer> {
        None
    }
    /// Perft by root move: calls `each` with every root move and the number of leaves `depth`
    /// plies deep below it, in order. Returns false, with the position unchanged, when `stop` was
    /// seen before the end.
    fn divide(
        &mut self,
        depth: u32,
        stop: &AtomicBool,
        each: &mut dyn FnMut(Self::Move, u64),
    ) -> bool {
        if depth == 0 {
            return true;
        }
        for m in self.legal_moves() {
            self.do_move(m);
            let count = count_leaves(self, depth - 1, stop);
            self.undo_move();
            match count {
                Some(count) => each(m, count),
                None => return false,
            }
        }
        true
    }
}

/// The leaves `depth` plies below `pos`, giving up (`None`) once `stop` is set: checked at every
/// node, so even a deep count ends promptly when asked.
fn count_leaves<G: Game>(pos: &mut G, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth == 0 {
        return Some(1);
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return Some(moves.len() as u64);
    }
    let mut nodes = 0;
    for m in moves {
        pos.do_move(m);
        let count = count_leaves(pos, depth - 1, stop);
        pos.undo_move();
        nodes += count?;
    }
    Some(nodes)
}
