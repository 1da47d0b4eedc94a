//! One engine per game behind one run-time interface. An engine owns a position of its game, the
//! game's evaluation and a searcher; the USI layer, `kirin bench` and `kirin perft` talk to it as
//! a [`GameEngine`] and pass moves across as USI text, so they never name a game. The games are
//! compiled each on its own behind [`Engine`], the one implementation, generic over
//! [`Variant`].
//!
//! [`engine_for`] is the one place that names the games: it maps a `UCI_Variant` name to a
//! boxed engine, and [`VARIANTS`] lists the names for front ends (the USI option's combo list).

mod generic;

pub use generic::Engine;

use crate::bench::BenchResult;
use crate::book::{BookAnswer, BookRequest};
use crate::game::{
    Color, EnteringKingRule, Explanation, MateAnswer, MateRequest, RuleOptions, Variant,
};
use crate::mate::MateProgress;
use crate::search::{Limits, Outcome, Report, SearchControl, SearchOptions};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Makes a game's engine.
type MakeEngine = fn() -> Box<dyn GameEngine>;

/// The games served, with their engines' makers; the first is the default.
const GAMES: [(&str, MakeEngine); 3] = [
    game::<crate::shogi::Position>(),
    game::<crate::yari::Position>(),
    game::<crate::dai::Position>(),
];

const fn game<G: Variant>() -> (&'static str, MakeEngine) {
    (G::NAME, || Box::new(Engine::<G>::new()))
}

/// The games' `UCI_Variant` names, the default first.
pub const VARIANTS: [&str; GAMES.len()] = {
    let mut names = [""; GAMES.len()];
    let mut i = 0;
    while i < GAMES.len() {
        names[i] = GAMES[i].0;
        i += 1;
    }
    names
};

/// A new engine for the game named `name` (any case), at its start position with its default
/// evaluation; `None` for a name not in [`VARIANTS`].
pub fn engine_for(name: &str) -> Option<Box<dyn GameEngine>> {
    GAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, make)| make())
}

/// Why a `position` was not taken; the engine keeps the position it had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The SFEN does not parse.
    Sfen(String),
    /// Move `index` (from 0) of the list is not legal where it is played.
    Move { index: usize, error: String },
}

/// A game's engine: its position, its evaluation and its searcher, with moves as USI text.
pub trait GameEngine: Send {
    /// The game's `UCI_Variant` name.
    fn name(&self) -> &'static str;
    /// A copy of the position and the evaluation, without a searcher: what one `go` works on
    /// while the engine takes the next `position`.
    fn fork(&self) -> Box<dyn GameEngine>;

    /// Sets the position to the start position (`sfen` is `None`) or an SFEN, under `rules`,
    /// then plays `moves`; on an error the position is unchanged.
    fn set_position(
        &mut self,
        sfen: Option<&str>,
        moves: &[String],
        rules: &RuleOptions,
    ) -> Result<(), PositionError>;
    fn side_to_move(&self) -> Color;
    fn sfen(&self) -> String;
    /// Board diagram for the `d` command.
    fn diagram(&self) -> String;
    /// `text` as a legal move here, as the engine writes it; the error is one line.
    fn parse_move(&self, text: &str) -> Result<String, String>;
    /// Every legal move, in the rules core's order.
    fn legal_moves(&self) -> Vec<String>;
    /// Every legal reply to the legal move `first`.
    fn legal_replies(&self, first: &str) -> Vec<String>;
    /// Whether the side to move may declare a win under `rule`.
    fn can_declare_win(&self, rule: EnteringKingRule) -> bool;
    /// The opening book's move here, from `book` (in the format of this game's books); `None`
    /// for a game without books and where the book is not used (past `BookMoves`).
    fn book_answer(&self, book: BookRequest) -> Option<BookAnswer>;

    /// Loads the evaluation file at `path` for the name `name` (the `EvalFile` value), unless
    /// that name is loaded already; an empty name means the default evaluation. `None` when
    /// nothing was to be done (the same name, or a game that reads no evaluation files); else
    /// the loaded evaluation's name, or why the file is unusable (the default plays then).
    fn load_eval_file(&mut self, name: &str, path: &str) -> Option<Result<&'static str, String>>;
    /// The evaluation's terms here; `None` for a game without a breakdown.
    fn explain(&self) -> Option<Explanation>;

    /// Makes the searcher, or resizes its table, for `hash_mb` megabytes.
    fn ensure_searcher(&mut self, hash_mb: usize);
    /// Lends the searcher out (to a fork that searches on another thread); `None` when it is
    /// not made yet.
    fn take_searcher(&mut self) -> Option<crate::search::Searcher>;
    fn give_searcher(&mut self, searcher: crate::search::Searcher);
    /// Forgets the game played so far (table and statistics).
    fn new_game(&mut self);
    /// A fresh control block for the next search; see [`crate::search::Searcher::prepare`].
    fn prepare(&mut self, pondering: bool) -> Arc<SearchControl>;
    /// Searches the position. `limits.searchmoves` are moves as text; those that are not legal
    /// here are left out. Needs the searcher ([`GameEngine::ensure_searcher`]).
    fn search(
        &mut self,
        limits: &Limits<String>,
        opts: &SearchOptions,
        report: &mut (dyn FnMut(Report<String>) + Send),
    ) -> Outcome<String>;
    /// Whether the game has a mate solver ([`GameEngine::solve_mate`] answers).
    fn solves_mate(&self) -> bool;
    /// Solves for a mate of the side to move; `None` for a game without a mate solver.
    fn solve_mate(
        &mut self,
        request: MateRequest,
        progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer>;
    /// Perft by root move (see [`crate::game::Variant::divide`]): false when `stop` ended it.
    fn divide(&mut self, depth: u32, stop: &AtomicBool, each: &mut dyn FnMut(&str, u64)) -> bool;
    /// Searches the game's bench positions to `depth` with a cleared table each; prints one
    /// line per position to stderr and returns the totals.
    fn bench(&mut self, depth: u32, threads: usize, hash_mb: usize) -> BenchResult;
}
