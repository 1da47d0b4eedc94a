//! Dai shogi behind the game interface.
//!
//! - Moves are pseudo-legal and the game ends when a side has lost all its royals, so a side
//!   without a royal has no move and counts as in check: the search scores that node as
//!   mated, as it scores any node in check without a move. For the same reason a royal left en prise is lost by the capture that the
//!   quiescence search finds, and "in check" (a royal attacked) only decides which moves are
//!   generated: all of them, since no reply is illegal.
//! - Move lists hold [`MAX_MOVES`] moves. A dai position can in principle have more; the
//!   captures and promotions come in a list of their own, so only the last quiet moves of a
//!   very open position would be left out.
//! - The exchange test ([`Game::see_ge`]) looks one capture deep: what the move takes, less the
//!   moving piece when the destination is attacked. A full exchange needs attacker lists by
//!   value, which the mailbox does not keep.
//! - History tables group the 55 kinds into eight value classes per side, so that the
//!   continuation table (piece-to by piece-to) stays near 26 MB.

use super::{Game, GameMove, MoveList, RuleOptions, SharedWeights, Variant};
use crate::dai::mate::{MateResult, MateSearch};
use crate::dai::{GenType, Move, Piece, Position, RepetitionRule, Square, value};
use crate::eval::dai::DaiWeights;
use crate::shogi::{Color, MAX_MOVES, Repetition};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
        self.raw()
    }
    #[inline]
    fn from_bits(bits: u32) -> Move {
        Move::from_raw(bits)
    }
}

const SQUARES: usize = crate::dai::types::SQUARES;
/// The longest forced win the root's safety test looks for, in plies.
const MATE_PLIES: u32 = 21;
/// Value classes per side for the history tables.
const CLASSES: usize = 8;

thread_local! {
    /// The rules core generates into a `Vec`; one per thread, reused, saves an allocation per
    /// node.
    static SCRATCH: RefCell<Vec<Move>> = RefCell::new(Vec::with_capacity(1024));
}

/// Index of a square, 0 for a value off the board (only stale hash moves have those, and
/// they are never played).
#[inline]
fn index(sq: Option<Square>) -> usize {
    sq.map_or(0, Square::index)
}

/// A piece's value class, 0 to 7, for the history tables.
#[inline]
fn class(p: Piece) -> usize {
    p.kind()
        .map_or(0, |k| ((value(k) / 200) as usize).min(CLASSES - 1))
}

impl Position {
    /// Appends the moves of `which` kind that fit; none at all when the side to move has lost
    /// its royals.
    fn fill(&self, which: GenType, list: &mut MoveList<Move>) {
        if self.royals(self.side_to_move()) == 0 {
            return;
        }
        SCRATCH.with(|scratch| {
            let mut moves = scratch.borrow_mut();
            moves.clear();
            self.generate(which, &mut moves);
            let room = MAX_MOVES - list.len();
            list.extend(moves.iter().copied().take(room));
        });
    }
}

impl Game for Position {
    type Move = Move;
    type Evaluator = Arc<DaiWeights>;
    type EvalStack = SharedWeights<DaiWeights>;

    #[inline]
    fn side_to_move(&self) -> Color {
        Position::side_to_move(self)
    }
    #[inline]
    fn key(&self) -> u64 {
        Position::key(self)
    }
    /// A royal attacked, or none left: a side without royals has lost, and counting that as
    /// check sends the search to its evasions, which are none, so the node scores as mated
    /// instead of standing pat on its material.
    #[inline]
    fn in_check(&self) -> bool {
        self.royals(self.side_to_move()) == 0 || Position::in_check(self)
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
    fn do_move_with_check(&mut self, m: Move, _gives_check: bool) {
        Position::do_move(self, m)
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

    /// Never: a check does not force a reply in dai shogi (no move is illegal, and a second
    /// royal may stand), so the search does not extend or spare checking moves. A royal left
    /// en prise is still seen: the next node is "in check" and searches every move, and its
    /// capture is a capture like any other. Testing each move for check took 40 % of the
    /// search's time.
    #[inline]
    fn gives_check(&self, _m: Move) -> bool {
        false
    }
    type CheckInfo = ();
    fn check_info(&self) {}
    fn gives_check_with(&self, _info: &(), _m: Move) -> bool {
        false
    }
    fn is_legal_move(&self, m: Move) -> bool {
        self.royals(self.side_to_move()) > 0 && Position::is_legal_move(self, m)
    }
    fn legal_moves(&self) -> MoveList<Move> {
        let mut list = MoveList::new();
        self.fill(GenType::All, &mut list);
        list
    }
    fn search_moves(&self, list: &mut MoveList<Move>) {
        self.fill(GenType::All, list);
    }
    fn tactical_moves(&self, list: &mut MoveList<Move>) {
        self.fill(GenType::Tactical, list);
    }
    fn quiet_moves(&self, list: &mut MoveList<Move>) {
        self.fill(GenType::Quiet, list);
    }
    /// No reply to a check is illegal, so every move is an evasion.
    fn evasions(&self, list: &mut MoveList<Move>) {
        self.fill(GenType::All, list);
    }
    fn is_useless_non_promotion(&self, _m: Move) -> bool {
        false
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        Position::is_capture(self, m)
    }
    const BUTTERFLY: usize = SQUARES * SQUARES;
    #[inline]
    fn butterfly_index(m: Move) -> usize {
        index(m.from()) * SQUARES + index(m.to())
    }
    const PIECE_TO: usize = 2 * CLASSES * SQUARES;
    #[inline]
    fn piece_to(&self, m: Move) -> usize {
        let p = self.moved_piece(m);
        let side = if p.color() == Color::White {
            CLASSES
        } else {
            0
        };
        (side + class(p)) * SQUARES + index(m.to())
    }
    /// The class of the more valuable captured piece, plus one; 0 when nothing is captured.
    fn captured_kind_index(&self, m: Move) -> usize {
        self.captured_pieces(m)
            .iter()
            .filter(|p| !p.is_none())
            .map(|&p| class(p) + 1)
            .max()
            .unwrap_or(0)
    }
    fn captured_value(&self, m: Move) -> i32 {
        Position::captured_value(self, m)
    }
    fn moved_value(&self, m: Move) -> i32 {
        self.moved_piece(m).kind().map_or(0, value)
    }
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        let gain = Position::captured_value(self, m);
        if gain < threshold {
            return false;
        }
        let lost = self.moved_value(m);
        if gain - lost >= threshold {
            return true;
        }
        let Some(to) = m.to() else { return false };
        !self.is_attacked(to, self.side_to_move().flip())
    }

    /// A mate against a lone royal that the opponent can force after `m` (see
    /// [`crate::dai::mate`]). The search does not test dai's moves for check, so it reduces and
    /// prunes the quiet move that sets up a lion's or falcon's double capture of the royal like
    /// any quiet move; every loss to HaChu in the recorded games came from such a move, and the
    /// solver found each of those mates within 600 nodes.
    fn forced_loss(&self, m: Move, budget: u64) -> (Option<bool>, u64) {
        let mut after = self.clone();
        after.do_move(m);
        let mut solver = MateSearch::new(budget, MATE_PLIES);
        let verdict = match solver.solve(&mut after) {
            MateResult::Mate(_) => Some(true),
            MateResult::NoMate => Some(false),
            MateResult::Unknown => None,
        };
        (verdict, solver.nodes())
    }

    /// Under the reference rule repeating moves are not generated at all; under the fourfold
    /// rule the search takes the first return to a position as the draw it leads to.
    fn repetition(&self, _max_plies: usize) -> Repetition {
        if self.rules().repetition == RepetitionRule::FourfoldDraw && self.occurrences() >= 2 {
            Repetition::Draw
        } else {
            Repetition::None
        }
    }
}

/// Dai shogi: the start position and the position after 50 plies of a game kirin played against
/// itself at 200 ms per move (pawns in contact, a bishop and a phoenix out).
const BENCH_POSITIONS: [(&str, &str); 2] = [
    ("startpos", crate::dai::START_SFEN),
    (
        "opening",
        "ln3sgg1sciunl/auc'cftket1f1c'1a/1x'1a'iwxl!1w1a'1x'f'/rf'mvb1d1d1bvm1r/pppppp1p1pppppp/6p1po5/4p'10/10P'4/7PP6/2BP2P8/PPP1PPO2PPPPPP/R1MV2D1D1BVMF'R/F'X'1A'1W1L!XW1A'1X'1/AUC'1F1TET1FIC'UA/LN1ICSGKGSC2NL b - 51",
    ),
];

impl Variant for Position {
    const NAME: &'static str = "daishogi";
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
    /// The board as the SFEN's ranks, one per line, with the side to move and the move number,
    /// then the whole SFEN.
    fn diagram(&self) -> String {
        let sfen = self.to_sfen();
        let mut words = sfen.split(' ');
        let board = words.next().unwrap_or_default();
        let mut text: String = board.split('/').map(|rank| format!("{rank}\n")).collect();
        text.push_str(&format!(
            "side to move: {}, move {}\n",
            if self.side_to_move() == Color::Black {
                "black"
            } else {
                "white"
            },
            self.game_ply()
        ));
        text.push_str(&format!("sfen {sfen}\n"));
        text
    }
    /// All of them, however many; none for a side without royals, which has lost.
    fn all_legal_moves(&self) -> Vec<Move> {
        if self.royals(self.side_to_move()) == 0 {
            return Vec::new();
        }
        Position::legal_moves(self)
    }
    fn apply_rule_options(&mut self, rules: &RuleOptions) {
        self.set_rules(crate::dai::Rules {
            declined_pawn: rules.dai_declined_pawn,
            ..self.rules()
        });
    }
    fn default_evaluator() -> Arc<DaiWeights> {
        crate::eval::dai::embedded()
    }
    /// A weights file in the format of `dai_weights.txt` (what `kirin-tune dai-fit` writes).
    fn load_evaluator(path: &str) -> Option<Result<(Arc<DaiWeights>, &'static str), String>> {
        Some(crate::eval::weights_file(path, DaiWeights::parse).map(|w| (w, "dai weights")))
    }

    /// Counts as the perft tables do, with no repetition rule and no end at a captured royal
    /// (`dai::perft`); `stop` is checked between root moves.
    fn divide(&mut self, depth: u32, stop: &AtomicBool, each: &mut dyn FnMut(Move, u64)) -> bool {
        let rules = self.rules();
        self.set_rules(crate::dai::Rules {
            repetition: RepetitionRule::Off,
            ..rules
        });
        let mut finished = true;
        if depth > 0 {
            for m in Position::legal_moves(self) {
                if stop.load(Ordering::Relaxed) {
                    finished = false;
                    break;
                }
                self.do_move(m);
                let count = crate::dai::perft(self, depth - 1);
                self.undo_move();
                each(m, count);
            }
        }
        self.set_rules(rules);
        finished
    }
}
