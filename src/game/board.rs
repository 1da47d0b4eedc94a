//! The games played on standard shogi's board (standard and yari shogi) behind the game
//! interface, written once: their positions are one type, `Board<S>`, so everything the search
//! and the engine ask of the board itself (keys, make and undo, exchange values, history
//! indices, text) forwards to it here, and each game's [`BoardGame`] brings only what differs:
//! its legality, its search-mode move lists, its end-of-game rules, its evaluation
//! and its services.

use super::{
    EnteringKingRule, EvalStack, Explanation, Game, GameMove, MateAnswer, MateRequest, MoveList,
    Variant,
};
use crate::book::{BookAnswer, BookRequest};
use crate::mate::MateProgress;
use crate::shogi::board::{Board, CheckInfo};
use crate::shogi::{Color, Kind, Move, PieceSet, Repetition};
use std::fmt::Debug;

/// The search's move lists, in search mode (non-promotions that are never better left out).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MoveSet {
    /// Every move.
    All,
    /// Captures and promotions.
    Tactical,
    /// What `Tactical` leaves out.
    Quiet,
    /// The replies to a check.
    Evasions,
}

/// What a game on shogi's board adds to the board for the search and the engine. Hooks with a
/// default are the ones only some games have.
pub trait BoardGame: PieceSet<Hand: Debug + Send + Sync, Kind: Send + Sync> + Send + Sync {
    /// The name in `UCI_Variant`.
    const NAME: &'static str;
    /// `kirin bench`'s positions: a name and an SFEN each.
    const BENCH: &'static [(&'static str, &'static str)];
    type Evaluator: Clone + Send + Sync + 'static;
    type EvalStack: EvalStack<Board<Self>>;

    fn is_legal_move(pos: &Board<Self>, m: Move) -> bool;
    fn legal_moves(pos: &Board<Self>) -> MoveList<Move>;
    /// Appends one of the search's move lists (see [`Game::search_moves`] and the three after
    /// it).
    fn search_mode_moves(pos: &Board<Self>, set: MoveSet, list: &mut MoveList<Move>);
    fn is_useless_non_promotion(pos: &Board<Self>, m: Move) -> bool;
    fn can_declare_win(_pos: &Board<Self>, _rule: EnteringKingRule) -> bool {
        false
    }
    fn try_move(_pos: &Board<Self>, _rule: EnteringKingRule) -> Option<Move> {
        None
    }
    fn mate_in_one(_pos: &mut Board<Self>) -> Option<Move> {
        None
    }
    fn correction_keys(_pos: &Board<Self>) -> Option<[u64; 2]> {
        None
    }

    fn parse_move(pos: &Board<Self>, text: &str) -> Result<Move, String>;
    fn default_evaluator() -> Self::Evaluator;
    fn load_evaluator(_path: &str) -> Option<Result<(Self::Evaluator, &'static str), String>> {
        None
    }
    fn explain(_pos: &Board<Self>, _evaluator: &Self::Evaluator) -> Option<Explanation> {
        None
    }
    const SOLVES_MATE: bool = false;
    fn solve_mate(
        _pos: &mut Board<Self>,
        _request: MateRequest,
        _progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        None
    }
    fn book_answer(_pos: &Board<Self>, _book: BookRequest) -> Option<BookAnswer> {
        None
    }
}

impl<S: BoardGame> Game for Board<S> {
    type Move = Move;
    type Evaluator = S::Evaluator;
    type EvalStack = S::EvalStack;

    #[inline]
    fn side_to_move(&self) -> Color {
        Board::side_to_move(self)
    }
    #[inline]
    fn key(&self) -> u64 {
        Board::key(self)
    }
    #[inline]
    fn in_check(&self) -> bool {
        Board::in_check(self)
    }
    #[inline]
    fn game_ply(&self) -> u32 {
        Board::game_ply(self)
    }
    #[inline]
    fn last_move(&self) -> Move {
        Board::last_move(self)
    }
    fn to_sfen(&self) -> String {
        Board::to_sfen(self)
    }

    #[inline]
    fn do_move(&mut self, m: Move) {
        Board::do_move(self, m)
    }
    #[inline]
    fn do_move_with_check(&mut self, m: Move, gives_check: bool) {
        Board::do_move_with_check(self, m, gives_check)
    }
    #[inline]
    fn undo_move(&mut self) {
        Board::undo_move(self)
    }
    #[inline]
    fn do_null_move(&mut self) {
        Board::do_null_move(self)
    }
    #[inline]
    fn undo_null_move(&mut self) {
        Board::undo_null_move(self)
    }

    #[inline]
    fn gives_check(&self, m: Move) -> bool {
        Board::gives_check(self, m)
    }
    type CheckInfo = CheckInfo;
    #[inline]
    fn check_info(&self) -> CheckInfo {
        Board::check_info(self)
    }
    #[inline(always)]
    fn gives_check_with(&self, info: &CheckInfo, m: Move) -> bool {
        Board::gives_check_with(self, info, m)
    }
    #[inline]
    fn is_legal_move(&self, m: Move) -> bool {
        S::is_legal_move(self, m)
    }
    fn legal_moves(&self) -> MoveList<Move> {
        S::legal_moves(self)
    }
    #[inline]
    fn search_moves(&self, list: &mut MoveList<Move>) {
        S::search_mode_moves(self, MoveSet::All, list)
    }
    #[inline]
    fn tactical_moves(&self, list: &mut MoveList<Move>) {
        S::search_mode_moves(self, MoveSet::Tactical, list)
    }
    #[inline]
    fn quiet_moves(&self, list: &mut MoveList<Move>) {
        S::search_mode_moves(self, MoveSet::Quiet, list)
    }
    #[inline]
    fn evasions(&self, list: &mut MoveList<Move>) {
        S::search_mode_moves(self, MoveSet::Evasions, list)
    }
    #[inline]
    fn is_useless_non_promotion(&self, m: Move) -> bool {
        S::is_useless_non_promotion(self, m)
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && self.piece_on(m.to()).is_some()
    }
    /// Origins are the 81 squares and 81 + kind for drops.
    const BUTTERFLY: usize = 96 * 81;
    /// Origin (or 81 + dropped kind) and destination.
    #[inline]
    fn butterfly_index(m: Move) -> usize {
        let from = if m.is_drop() {
            81 + m.dropped().index()
        } else {
            m.from().index()
        };
        from * 81 + m.to().index()
    }
    const PIECE_TO: usize = 32 * 81;
    #[inline]
    fn piece_to(&self, m: Move) -> usize {
        self.moved_piece(m).index() * 81 + m.to().index()
    }
    #[inline]
    fn captured_kind_index(&self, m: Move) -> usize {
        let v = self.piece_on(m.to());
        if !m.is_drop() && v.is_some() {
            v.kind().index()
        } else {
            0
        }
    }
    #[inline]
    fn captured_value(&self, m: Move) -> i32 {
        let v = self.piece_on(m.to());
        if !m.is_drop() && v.is_some() {
            S::exchange_value(v.kind())
        } else {
            0
        }
    }
    #[inline]
    fn moved_value(&self, m: Move) -> i32 {
        S::exchange_value(self.moved_piece(m).kind())
    }
    #[inline]
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        Board::see_ge(self, m, threshold)
    }

    #[inline]
    fn repetition(&self, max_plies: usize) -> Repetition {
        Board::repetition(self, max_plies)
    }
    #[inline]
    fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        S::can_declare_win(self, rule)
    }
    fn try_move(&self, rule: EnteringKingRule) -> Option<Move> {
        S::try_move(self, rule)
    }
    #[inline]
    fn mate_in_one(&mut self) -> Option<Move> {
        S::mate_in_one(self)
    }
    #[inline]
    fn correction_keys(&self) -> Option<[u64; 2]> {
        S::correction_keys(self)
    }
}

impl<S: BoardGame> Variant for Board<S> {
    const NAME: &'static str = S::NAME;
    const BENCH: &'static [(&'static str, &'static str)] = S::BENCH;

    fn startpos() -> Self {
        Board::startpos()
    }
    fn from_sfen(sfen: &str) -> Result<Self, String> {
        Board::from_sfen(sfen).map_err(|e| e.to_string())
    }
    fn parse_move(&self, text: &str) -> Result<Move, String> {
        S::parse_move(self, text)
    }
    fn diagram(&self) -> String {
        Board::diagram(self)
    }

    fn default_evaluator() -> S::Evaluator {
        S::default_evaluator()
    }
    fn load_evaluator(path: &str) -> Option<Result<(S::Evaluator, &'static str), String>> {
        S::load_evaluator(path)
    }
    fn explain(&self, evaluator: &S::Evaluator) -> Option<Explanation> {
        S::explain(self, evaluator)
    }
    const SOLVES_MATE: bool = S::SOLVES_MATE;
    fn solve_mate(
        &mut self,
        request: MateRequest,
        progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        S::solve_mate(self, request, progress)
    }
    fn book_answer(&self, book: BookRequest) -> Option<BookAnswer> {
        S::book_answer(self, book)
    }
}

/// The 16-bit move of the 9x9 board.
impl GameMove for Move {
    const NONE: Move = Move::NONE;
    #[inline]
    fn is_none(self) -> bool {
        Move::is_none(self)
    }
    #[inline]
    fn is_promotion(self) -> bool {
        Move::is_promotion(self)
    }
    #[inline]
    fn bits(self) -> u32 {
        u32::from(self.raw())
    }
    #[inline]
    fn from_bits(bits: u32) -> Move {
        Move::from_raw(bits as u16)
    }
}
