//! The interface between the search and a game: what the search asks of a position (keys,
//! moves, make/unmake, draw and win rules, exchange values) and of its evaluation.
//!
//! Each game (standard, yari and dai shogi) implements [`Game`] on its position type, and the
//! search is generic over it, so every game gets the same alpha-beta, move ordering, hash table
//! and time management, and each is compiled on its own: standard shogi pays nothing for the
//! others.
//!
//! Each game has its own move type ([`GameMove`]): standard and yari shogi share the 16-bit
//! move of the 9x9 board (yari shogi's 7x9 board is its files 1-7), dai shogi has a 32-bit move
//! with a mid square for lion moves. The hash table stores any of them in 32 bits.
//!
//! History tables are indexed by numbers the game gives ([`Game::butterfly_index`],
//! [`Game::piece_to`]), so each game sizes them for its board.
//!
//! What the engine needs of a game beyond the search (its name, positions and moves from text,
//! its evaluation, the services only some games have) is the [`Variant`] trait, which each game
//! implements beside `Game`.

use crate::eval::WholePositionEvaluation;
use arrayvec::ArrayVec;
use std::fmt;
use std::sync::Arc;

/// The vocabulary every game shares: colours, repetition verdicts, the declaration rules and the
/// longest move list. Standard shogi defined them first; the search names them from here, so
/// that it needs no path into any one game.
pub use crate::shogi::{Color, EnteringKingRule, MAX_MOVES, Repetition};

/// The centipawns GUIs see, which every game's evaluation is fitted to: scores go out and the
/// user's values (`DrawValue*`) come in on it; the search converts at its edges.
pub use crate::eval::{from_reported_cp, to_reported_cp};

/// A move as the search handles it: copied, compared, stored in the hash table as 32 bits, and
/// written as USI text with `Display`.
pub trait GameMove:
    Copy + Eq + Default + fmt::Debug + fmt::Display + Send + Sync + 'static
{
    /// No move; its bits are 0.
    const NONE: Self;
    fn is_none(self) -> bool;
    fn is_promotion(self) -> bool;
    fn bits(self) -> u32;
    /// Any 32-bit value gives a move (perhaps an illegal one: the game checks before use).
    fn from_bits(bits: u32) -> Self;
}

/// A move list on the stack, as long as standard shogi's longest. A game whose positions can
/// have more moves keeps the captures and the first quiet moves (see the game's `impl`).
pub type MoveList<M> = ArrayVec<M, MAX_MOVES>;

/// A game position as the search sees it. Every method may assume the position is legal;
/// `is_legal_move` must accept any move value, since hash-table moves can be stale.
pub trait Game: Clone + Send + Sync + 'static {
    type Move: GameMove;
    /// What the searcher owns and lends to every search thread (weights, a network).
    type Evaluator: Clone + Send + Sync + 'static;
    /// One search thread's incremental evaluation state along its current line.
    type EvalStack: EvalStack<Self>;

    fn side_to_move(&self) -> Color;
    /// Key of the whole position (board, side to move, hands) for the hash table.
    fn key(&self) -> u64;
    fn in_check(&self) -> bool;
    /// The SFEN move number, which time management and move limits count.
    fn game_ply(&self) -> u32;
    /// `Move::NONE` after a null move or at the root.
    fn last_move(&self) -> Self::Move;
    fn to_sfen(&self) -> String;

    fn do_move(&mut self, m: Self::Move);
    fn do_move_with_check(&mut self, m: Self::Move, gives_check: bool);
    fn undo_move(&mut self);
    fn do_null_move(&mut self);
    fn undo_null_move(&mut self);

    fn gives_check(&self, m: Self::Move) -> bool;
    /// What `gives_check_with` needs of the position, found once for all its moves.
    type CheckInfo;
    fn check_info(&self) -> Self::CheckInfo;
    /// `gives_check(m)`, with `info` from `check_info` of this position: the search asks it of
    /// most moves of a node, pruned ones included (pruning spares checks).
    fn gives_check_with(&self, info: &Self::CheckInfo, m: Self::Move) -> bool;
    fn is_legal_move(&self, m: Self::Move) -> bool;
    /// Every legal move, as perft counts them.
    fn legal_moves(&self) -> MoveList<Self::Move>;
    /// Legal moves for the search, which may leave out non-promotions that are never better.
    fn search_moves(&self, list: &mut MoveList<Self::Move>);
    /// Captures and promotions (search mode).
    fn tactical_moves(&self, list: &mut MoveList<Self::Move>);
    /// Everything `tactical_moves` leaves out (search mode).
    fn quiet_moves(&self, list: &mut MoveList<Self::Move>);
    /// Every search-mode reply to a check.
    fn evasions(&self, list: &mut MoveList<Self::Move>);
    /// A legal move that search mode leaves out (a killer from a sibling must not bring it back).
    fn is_useless_non_promotion(&self, m: Self::Move) -> bool;

    fn is_capture(&self, m: Self::Move) -> bool;
    /// Size of the butterfly history per side: the number of [`Game::butterfly_index`] values.
    const BUTTERFLY: usize;
    /// Index of a move's origin and destination (or what stands for them) below `BUTTERFLY`.
    fn butterfly_index(m: Self::Move) -> usize;
    /// Number of [`Game::piece_to`] values.
    const PIECE_TO: usize;
    /// Index of (moving piece, destination) below `PIECE_TO`, the key of continuation and
    /// capture histories and counter moves.
    fn piece_to(&self, m: Self::Move) -> usize;
    /// The captured piece's kind as an index below 16, 0 when nothing is captured.
    fn captured_kind_index(&self, m: Self::Move) -> usize;
    /// Exchange value of the captured piece (0 for none), in evaluation units.
    fn captured_value(&self, m: Self::Move) -> i32;
    /// Exchange value of the moving (or dropped) piece.
    fn moved_value(&self, m: Self::Move) -> i32;
    /// Whether the static exchange on `m`'s square gains at least `threshold`.
    fn see_ge(&self, m: Self::Move, threshold: i32) -> bool;

    /// The game's repetition rules, looking back at most `max_plies`.
    fn repetition(&self, max_plies: usize) -> Repetition;
    /// Whether the side to move may declare a win now (standard shogi's entering-king rule;
    /// a game without declarations keeps the default).
    fn can_declare_win(&self, _rule: EnteringKingRule) -> bool {
        false
    }
    /// Under a try rule, the move that wins at once.
    fn try_move(&self, _rule: EnteringKingRule) -> Option<Self::Move> {
        None
    }
    /// A mate in one, when the game has a fast test for it; `None` means none was found.
    fn mate_in_one(&mut self) -> Option<Self::Move> {
        None
    }
    /// Whether the opponent can force a win after `m`, as far as the game's own solver sees
    /// within `budget` nodes: `Some(true)` shown, `Some(false)` shown not to within the
    /// solver's depth, `None` undecided; with the nodes it spent. The search asks it of the
    /// move it is about to play, in games whose search can miss a short forced loss (dai
    /// shogi's threats are quiet moves); the default never looks.
    fn forced_loss(&self, _m: Self::Move, _budget: u64) -> (Option<bool>, u64) {
        (Some(false), 0)
    }
    /// Keys of the parts of a position whose evaluation errors persist (standard shogi: the
    /// pawn structure, the hands), for the search's correction of the static evaluation; a
    /// game without them keeps the default and its evaluation is not corrected.
    fn correction_keys(&self) -> Option<[u64; 2]> {
        None
    }
}

/// The evaluation's incremental state along one line: entry `ply` belongs to the position at
/// that ply.
pub trait EvalStack<G: Game>: Send + Sized {
    /// A stack for lines of up to `plies` plies from `root`.
    fn new(evaluator: &G::Evaluator, root: &G, plies: usize) -> Self;
    /// After a move (or a null move) from the position at `ply`: makes entry `ply + 1` for `pos`.
    fn push(&mut self, ply: usize, pos: &G);
    /// The evaluation of `pos`, the position at `ply`, from the side to move's point of view.
    fn evaluate(&self, ply: usize, pos: &G) -> i32;
}

/// The evaluation stack of an evaluation that reads the whole position each time (yari and dai
/// shogi's weights): the weights alone, shared by every thread.
pub struct SharedWeights<W>(Arc<W>);

impl<G, W> EvalStack<G> for SharedWeights<W>
where
    G: Game<Evaluator = Arc<W>>,
    W: WholePositionEvaluation<G>,
{
    fn new(weights: &Arc<W>, _root: &G, _plies: usize) -> Self {
        SharedWeights(Arc::clone(weights))
    }
    #[inline]
    fn push(&mut self, _ply: usize, _pos: &G) {}
    #[inline]
    fn evaluate(&self, _ply: usize, pos: &G) -> i32 {
        self.0.evaluate(pos)
    }
}

mod board;
mod dai;
mod standard;
mod variant;
mod yari;

#[cfg(test)]
mod search_tests;

pub use variant::{DeclinedPawnRule, Explanation, MateAnswer, MateRequest, RuleOptions, Variant};
