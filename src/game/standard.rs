//! Standard shogi behind the game interface: every method forwards to the rules core and the
//! evaluation, and is inlined into the search.

use super::{EvalStack, Explanation, Game, GameMove, MateAnswer, MateRequest, MoveList, Variant};
use crate::book::{self, BookAnswer, BookRequest};
use crate::eval::{self, Evaluator};
use crate::mate::{MateLimits, MateProgress, MateResult, MateSolver};
use crate::shogi::see::value;
use crate::shogi::{
    Color, EnteringKingRule, Move, PieceType, Position, Repetition, legal_moves, mate1, movegen,
};

impl Game for Position {
    type Move = Move;
    type Evaluator = Evaluator;
    type EvalStack = eval::EvalStack;

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
        legal_moves(self)
    }
    #[inline]
    fn search_moves(&self, list: &mut MoveList<Move>) {
        movegen::search_moves(self, list)
    }
    #[inline]
    fn tactical_moves(&self, list: &mut MoveList<Move>) {
        movegen::tactical_moves(self, list)
    }
    #[inline]
    fn quiet_moves(&self, list: &mut MoveList<Move>) {
        movegen::quiet_moves(self, list)
    }
    #[inline]
    fn evasions(&self, list: &mut MoveList<Move>) {
        movegen::evasions(self, list)
    }

    /// Pawn, bishop and rook moves that could promote and do not, and a lance to the second
    /// rank: the search-mode generator leaves them out.
    fn is_useless_non_promotion(&self, m: Move) -> bool {
        if m.is_drop() || m.is_promotion() {
            return false;
        }
        let us = Position::side_to_move(self);
        let pt = self.piece_on(m.from()).kind();
        let zone = m.to().relative_rank(us) <= 2 || m.from().relative_rank(us) <= 2;
        zone && match pt {
            PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
            PieceType::Lance => m.to().relative_rank(us) == 1,
            _ => false,
        }
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
    #[inline]
    fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        Position::can_declare_win(self, rule)
    }
    fn try_move(&self, rule: EnteringKingRule) -> Option<Move> {
        if rule == EnteringKingRule::Try {
            Position::try_move(self)
        } else {
            None
        }
    }
    #[inline]
    fn mate_in_one(&mut self) -> Option<Move> {
        mate1::mate_in_one(self)
    }
    #[inline]
    fn correction_keys(&self) -> Option<[u64; 2]> {
        // Both colours' pawns folded to 64 bits and mixed; the hands already have a key.
        let fold = |b: u128| (b as u64) ^ ((b >> 64) as u64).rotate_left(17);
        let black = fold(self.pieces_cp(Color::Black, PieceType::Pawn).0);
        let white = fold(self.pieces_cp(Color::White, PieceType::Pawn).0);
        let pawns = (black ^ white.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some([pawns, self.hand_key()])
    }
}

impl EvalStack<Position> for eval::EvalStack {
    fn new(evaluator: &Evaluator, root: &Position, plies: usize) -> Self {
        eval::EvalStack::new(evaluator, root, plies)
    }
    #[inline]
    fn push(&mut self, ply: usize, pos: &Position) {
        eval::EvalStack::push(self, ply, pos)
    }
    #[inline]
    fn evaluate(&self, ply: usize, pos: &Position) -> i32 {
        eval::EvalStack::evaluate(self, ply, pos)
    }
}

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

/// Butterfly size for the 9x9 board: origins are the 81 squares and 81 + kind for drops.
pub(super) const BUTTERFLY_9X9: usize = 96 * 81;

/// Origin (or 81 + dropped kind) and destination of a 16-bit move.
#[inline]
pub(super) fn butterfly_index_9x9(m: Move) -> usize {
    let from = if m.is_drop() {
        81 + m.dropped().index()
    } else {
        m.from().index()
    };
    from * 81 + m.to().index()
}

/// Openings, middlegames, a handicap game, an endgame with many pieces in hand, and an
/// entering-king race taken from a real floodgate game that ended in a declaration.
const BENCH_POSITIONS: [(&str, &str); 8] = [
    (
        "startpos",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ),
    (
        "opening",
        "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    ),
    (
        "yagura",
        "ln1g3nl/1r1sg1k2/p1pppp1pp/6p2/1p7/2P1P4/PPSP1PPPP/1KG1G2R1/LN5NL b Bbs 21",
    ),
    (
        "matsuri",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    ),
    (
        "two-piece handicap",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "endgame with hands",
        "ln1r4l/3k1gp2/pS1p1+P1+R1/6L1p/1pPP2S2/2S3P2/PP2p1+b1P/3K5/+b7L w 2GSN3Pg2n2p 118",
    ),
    (
        "attack",
        "4k4/l1+P2pG2/7p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Prbgn 3",
    ),
    (
        "entering-king race",
        "+S+P1+B5/K1PGPg3/+P+P7/9/9/5lpp1/1n2+p+lgk1/3+p3+p1/1+p+p6 w 2RBG3S3N2L6p 362",
    ),
];

impl Variant for Position {
    const NAME: &'static str = "shogi";
    const BENCH: &'static [(&'static str, &'static str)] = &BENCH_POSITIONS;

    fn startpos() -> Position {
        Position::startpos()
    }
    fn from_sfen(sfen: &str) -> Result<Position, String> {
        Position::from_sfen(sfen).map_err(|e| e.to_string())
    }
    fn parse_move(&self, text: &str) -> Result<Move, String> {
        Position::parse_move(self, text).map_err(|e| e.to_string())
    }
    fn diagram(&self) -> String {
        Position::diagram(self)
    }

    fn default_evaluator() -> Evaluator {
        Evaluator::default()
    }
    fn load_evaluator(path: &str) -> Option<Result<(Evaluator, &'static str), String>> {
        Some(Evaluator::load(path).map(|e| {
            let name = e.name();
            (e, name)
        }))
    }
    fn explain(&self, evaluator: &Evaluator) -> Option<Explanation> {
        Some(Explanation {
            parts: evaluator.explain(self),
            value: evaluator.evaluate(self),
            evaluator: evaluator.name(),
        })
    }
    const SOLVES_MATE: bool = true;
    fn solve_mate(
        &mut self,
        request: MateRequest,
        progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        let limits = MateLimits {
            deadline: request.deadline,
            max_nodes: None,
        };
        Some(
            match MateSolver::new(request.hash_mb).solve(self, limits, request.stop, progress) {
                MateResult::Mate(moves) => {
                    MateAnswer::Mate(moves.iter().map(ToString::to_string).collect())
                }
                MateResult::NoMate => MateAnswer::NoMate,
                MateResult::Timeout => MateAnswer::Timeout,
            },
        )
    }
    fn book_answer(&self, book: BookRequest) -> Option<BookAnswer> {
        book::play::answer(self, book)
    }
}
