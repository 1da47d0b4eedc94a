//! Yari shogi behind the game interface.
//!
//! The search leaves out the non-promotions that are never better: a pawn becomes a yari
//! silver, which keeps the pawn's step, and a yari rook becomes a rook, which keeps all its
//! moves. A yari knight or yari bishop gives up its forward slide when it promotes, so both
//! choices stay. There is no fast mate-in-one test yet; the search finds those mates by
//! searching. Yari shogi has no declaration either: its impasse rule counts points at the end
//! of a game that neither side can win, which the referee (not the search) applies; so the
//! trait's defaults stand for all three.

use super::standard::{BUTTERFLY_9X9, butterfly_index_9x9};
use super::{EvalStack, Game, MoveList, Variant};
use crate::eval::yari::{YariEvalStack, YariWeights};
use crate::shogi::{Color, Kind, Move, Repetition};
use crate::yari::{PieceType, Position, in_zone, value};
use std::sync::Arc;

impl Position {
    /// Whether the search may skip `m` because promoting instead is never worse.
    #[inline]
    fn skippable(&self, m: Move) -> bool {
        if m.is_drop() || m.is_promotion() {
            return false;
        }
        let us = self.side_to_move();
        matches!(
            self.piece_on(m.from()).kind(),
            PieceType::Pawn | PieceType::YariRook
        ) && (in_zone(us, m.from()) || in_zone(us, m.to()))
    }

    fn drop_skippable(&self, list: &mut MoveList<Move>) {
        list.retain(|m| !self.skippable(*m));
    }
}

impl Game for Position {
    type Move = Move;
    type Evaluator = Arc<YariWeights>;
    type EvalStack = YariEvalStack;

    #[inline]
    fn side_to_move(&self) -> Color {
        Position::side_to_move(self)
    }
    #[inline]
    fn key(&self) -> u64 {
        Position::key(self)
    }
    #[inline]
    fn in_check(&self) -> bool {
        Position::in_check(self)
    }
    #[inline]
    fn game_ply(&self) -> u32 {
        Position::game_ply(self)
    }
    #[inline]
    fn last_move(&self) -> Move {
        Position::last_move(self)
    }
    fn to_sfen(&self) -> String {
        Position::to_sfen(self)
    }

    #[inline]
    fn do_move(&mut self, m: Move) {
        Position::do_move(self, m)
    }
    #[inline]
    fn do_move_with_check(&mut self, m: Move, gives_check: bool) {
        Position::do_move_with_check(self, m, gives_check)
    }
    #[inline]
    fn undo_move(&mut self) {
        Position::undo_move(self)
    }
    #[inline]
    fn do_null_move(&mut self) {
        Position::do_null_move(self)
    }
    #[inline]
    fn undo_null_move(&mut self) {
        Position::undo_null_move(self)
    }

    #[inline]
    fn gives_check(&self, m: Move) -> bool {
        Position::gives_check(self, m)
    }
    #[inline]
    fn is_legal_move(&self, m: Move) -> bool {
        Position::is_legal_move(self, m)
    }
    fn legal_moves(&self) -> MoveList<Move> {
        Position::legal_moves(self)
    }
    fn search_moves(&self, list: &mut MoveList<Move>) {
        list.extend(Position::legal_moves(self));
        self.drop_skippable(list);
    }
    fn tactical_moves(&self, list: &mut MoveList<Move>) {
        Position::tactical_moves(self, list);
        self.drop_skippable(list);
    }
    fn quiet_moves(&self, list: &mut MoveList<Move>) {
        Position::quiet_moves(self, list);
        self.drop_skippable(list);
    }
    fn evasions(&self, list: &mut MoveList<Move>) {
        Position::evasions(self, list);
        self.drop_skippable(list);
    }
    #[inline]
    fn is_useless_non_promotion(&self, m: Move) -> bool {
        self.skippable(m)
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        !m.is_drop() && self.piece_on(m.to()).is_some()
    }
    const BUTTERFLY: usize = BUTTERFLY_9X9;
    #[inline]
    fn butterfly_index(m: Move) -> usize {
        butterfly_index_9x9(m)
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
            value(v.kind())
        } else {
            0
        }
    }
    #[inline]
    fn moved_value(&self, m: Move) -> i32 {
        value(self.moved_piece(m).kind())
    }
    #[inline]
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        Position::see_ge(self, m, threshold)
    }

    #[inline]
    fn repetition(&self, max_plies: usize) -> Repetition {
        Position::repetition(self, max_plies)
    }
}

impl EvalStack<Position> for YariEvalStack {
    fn new(evaluator: &Arc<YariWeights>, _root: &Position, _plies: usize) -> Self {
        YariEvalStack::new(evaluator)
    }
    #[inline]
    fn push(&mut self, _ply: usize, _pos: &Position) {}
    #[inline]
    fn evaluate(&self, _ply: usize, pos: &Position) -> i32 {
        YariEvalStack::evaluate(self, pos)
    }
}

/// Yari shogi: the start, an opening, and the two middlegames of the perft table (one with
/// promoted pieces of every kind, one with drops that mate).
const BENCH_POSITIONS: [(&str, &str); 4] = [
    ("startpos", crate::yari::START_SFEN),
    (
        "opening",
        "rnnkb1r/5b1/pppp1pp/4p2/7/2P4/PP1PPPP/3B3/R1BKNNR b - 5",
    ),
    (
        "mixed",
        "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1",
    ),
    ("drops", "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1"),
];

impl Variant for Position {
    const NAME: &'static str = "yarishogi";
    const BENCH: &'static [(&'static str, &'static str)] = &BENCH_POSITIONS;

    fn startpos() -> Position {
        Position::startpos()
    }
    fn from_sfen(sfen: &str) -> Result<Position, String> {
        Position::from_sfen(sfen).map_err(|e| e.to_string())
    }
    fn parse_move(&self, text: &str) -> Result<Move, String> {
        Position::parse_move(self, text)
    }
    fn diagram(&self) -> String {
        Position::diagram(self)
    }
    fn default_evaluator() -> Arc<YariWeights> {
        YariWeights::embedded()
    }
}
