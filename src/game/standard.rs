//! Standard shogi behind the game interface: what it adds to the shared board (see
//! [`super::board`]), each hook forwarding to the rules core, the evaluation, the mate solver
//! or the book, inlined into the search.

use super::board::{BoardGame, MoveSet};
use super::{EvalStack, Explanation, MateAnswer, MateRequest, MoveList};
use crate::book::{self, BookAnswer, BookRequest};
use crate::eval::{self, Evaluator};
use crate::mate::{MateLimits, MateProgress, MateResult, MateSolver};
use crate::shogi::{
    Color, EnteringKingRule, Move, PieceType, Position, StandardPieces, legal_moves, mate1, movegen,
};

impl BoardGame for StandardPieces {
    const NAME: &'static str = "shogi";
    const BENCH: &'static [(&'static str, &'static str)] = &BENCH_POSITIONS;
    type Evaluator = Evaluator;
    type EvalStack = eval::EvalStack;

    #[inline]
    fn is_legal_move(pos: &Position, m: Move) -> bool {
        pos.is_legal_move(m)
    }
    fn legal_moves(pos: &Position) -> MoveList<Move> {
        legal_moves(pos)
    }
    #[inline]
    fn search_mode_moves(pos: &Position, set: MoveSet, list: &mut MoveList<Move>) {
        match set {
            MoveSet::All => movegen::search_moves(pos, list),
            MoveSet::Tactical => movegen::tactical_moves(pos, list),
            MoveSet::Quiet => movegen::quiet_moves(pos, list),
            MoveSet::Evasions => movegen::evasions(pos, list),
        }
    }

    /// Pawn, bishop and rook moves that could promote and do not, and a lance to the second
    /// rank: the search-mode generator leaves them out.
    fn is_useless_non_promotion(pos: &Position, m: Move) -> bool {
        if m.is_drop() || m.is_promotion() {
            return false;
        }
        let us = pos.side_to_move();
        let pt = pos.piece_on(m.from()).kind();
        let zone = m.to().relative_rank(us) <= 2 || m.from().relative_rank(us) <= 2;
        zone && match pt {
            PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
            PieceType::Lance => m.to().relative_rank(us) == 1,
            _ => false,
        }
    }

    #[inline]
    fn can_declare_win(pos: &Position, rule: EnteringKingRule) -> bool {
        pos.can_declare_win(rule)
    }
    fn try_move(pos: &Position, rule: EnteringKingRule) -> Option<Move> {
        if rule == EnteringKingRule::Try {
            pos.try_move()
        } else {
            None
        }
    }
    #[inline]
    fn mate_in_one(pos: &mut Position) -> Option<Move> {
        mate1::mate_in_one(pos)
    }
    #[inline]
    fn correction_keys(pos: &Position) -> Option<[u64; 2]> {
        // Both colours' pawns folded to 64 bits and mixed; the hands already have a key.
        let fold = |b: u128| (b as u64) ^ ((b >> 64) as u64).rotate_left(17);
        let black = fold(pos.pieces_cp(Color::Black, PieceType::Pawn).0);
        let white = fold(pos.pieces_cp(Color::White, PieceType::Pawn).0);
        let pawns = (black ^ white.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some([pawns, pos.hand_key()])
    }

    fn parse_move(pos: &Position, text: &str) -> Result<Move, String> {
        pos.parse_move(text).map_err(|e| e.to_string())
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
    fn explain(pos: &Position, evaluator: &Evaluator) -> Option<Explanation> {
        Some(Explanation {
            parts: evaluator.explain(pos),
            value: evaluator.evaluate(pos),
            evaluator: evaluator.name(),
        })
    }
    const SOLVES_MATE: bool = true;
    fn solve_mate(
        pos: &mut Position,
        request: MateRequest,
        progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        let limits = MateLimits {
            deadline: request.deadline,
            max_nodes: None,
        };
        Some(
            match MateSolver::new(request.hash_mb).solve(pos, limits, request.stop, progress) {
                MateResult::Mate(moves) => {
                    MateAnswer::Mate(moves.iter().map(ToString::to_string).collect())
                }
                MateResult::NoMate => MateAnswer::NoMate,
                MateResult::Timeout => MateAnswer::Timeout,
            },
        )
    }
    fn book_answer(pos: &Position, book: BookRequest) -> Option<BookAnswer> {
        book::play::answer(pos, book)
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
