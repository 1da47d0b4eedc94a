//! Dai shogi: the 15x15 game of the Kamakura period, 29 piece kinds (55 with the promoted
//! ones), lion moves, no drops, pseudo-legal moves and royals. The rules follow
//! `../shared/docs/dai.md`.
//!
//! # Representation
//! A bordered mailbox (20 rows of 17 cells, see [`attacks`]) with a piece list per side. The
//! 225 squares do not fit the u128 bitboards of standard and yari shogi, and two-word
//! bitboards buy little here: most dai pieces are short-range steppers, sliders are generated
//! by walking rays that end on the border, and the lion's double moves need square-by-square
//! logic anyway. A mailbox with piece lists keeps make/unmake to a few byte writes and lets
//! generation visit only the side's pieces (65 at most from the start position, since captured
//! pieces leave the game). Attack tests (check) look outwards from the target square, so they
//! need no attack tables either.
//!
//! Measured with `cargo test --release --test dai perft_speed -- --ignored --nocapture` on a
//! shared, loaded 2-core machine: perft 4 from the start position (25,421,252 leaves) in about
//! 0.5 s with bulk counting (45-58 M leaves/s), 1.1 s with make and unmake at every leaf
//! (22 M nodes/s).
//!
//! Moves are 32-bit [`Move`] values (from, to, an optional mid square, promotion); a lion's
//! double move, igui and pass are the moves with a mid square.
//!
//! # Counting moves by effect
//! The move list holds one move per distinct resulting position, as the perft tables count:
//! a lion's double move only when its first step captures (a first step to an empty square
//! ends where a step or jump ends), one pass per position (by the lion-power piece on the
//! lowest square, through its first empty neighbour), one igui per captured piece (by the
//! lowest of the pieces that could make it), and both choices where promotion is optional.
//! `parse_move` reads any pass or igui text as that one move.
//!
//! # Rule flags ([`Rules`])
//! - `repetition`: [`RepetitionRule::Illegal`] (default, the reference engine's rule: a move
//!   that recreates a position seen since the last capture, promotion or pawn, lance, knight,
//!   iron or stone move, with the same side to move, is illegal), `FourfoldDraw` or `Off`
//!   ([`perft`] always counts with `Off`).
//! - `forced_promotion`: true (default, the reference rule) makes a pawn, lance, iron or stone
//!   reaching the last rank, or a knight the last two, promote when it has the chance.
//! - `declined_pawn`: [`DeclinedPawnRule::KeepsChances`] (default, the rule of `dai.md`: a
//!   capture that starts or ends in the zone is always a chance) or `LastRankOnly` (HaChu's: a
//!   pawn that has declined a promotion has no chance but a capture onto the last rank). The
//!   position tracks which pawns have declined only under `LastRankOnly`, and then hashes it.

pub mod attacks;
pub mod mate;
mod movegen;
mod position;
mod sfen;
pub mod types;
mod values;

pub use movegen::GenType;
pub use position::{DeclinedPawnRule, Outcome, Position, RepetitionRule, Rules, START_SFEN};
pub use sfen::DaiSfenError;
pub use types::{Move, Piece, PieceType, Square};
pub use values::value;

use crate::shogi::perft::PerftPosition;

/// Counted by the perft of shogi/perft.rs under the position's own rules; [`perft`] and
/// [`divide`] turn the repetition rule off first, as the perft tables count.
impl PerftPosition for Position {
    type Move = Move;
    type MoveList = Vec<Move>;
    fn perft_moves(&self, list: &mut Vec<Move>) {
        list.clear();
        self.generate(GenType::All, list);
    }
    fn do_move(&mut self, m: Move) {
        Position::do_move(self, m);
    }
    fn undo_move(&mut self) {
        Position::undo_move(self);
    }
}

/// Leaf count at `depth`, bulk-counting the last ply, with no repetition rule (as the perft
/// tables count).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    without_repetition(pos, |pos| crate::shogi::perft::perft(pos, depth))
}

/// Per-root-move counts, in generation order, with no repetition rule.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    without_repetition(pos, |pos| crate::shogi::perft::divide(pos, depth))
}

/// `count` run with the repetition rule off, the position's rules restored after.
fn without_repetition<T>(pos: &mut Position, count: impl FnOnce(&mut Position) -> T) -> T {
    let rules = pos.rules();
    pos.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..rules
    });
    let out = count(pos);
    pos.set_rules(rules);
    out
}
