//! Yari shogi (Christian Freeling's lance shogi): 9 ranks by 7 files, pieces that mostly slide
//! forward, drops as in shogi. The board is files 1-7 of the standard bitboard, so squares,
//! bitboards, moves and move text are the standard ones; only the pieces, their attacks and the
//! rules are this module's own.

pub mod attacks;
mod mate1;
mod movegen;
mod position;
mod rules;
mod stalemate;
pub mod types;
mod zobrist;

pub use mate1::mate_in_one;
pub use movegen::{drop_squares, in_zone, promotion_options};
pub use position::{Position, START_SFEN, StateInfo, YariPieces};
pub use rules::{IMPASSE_POINTS, value};
pub use types::{Hand, Piece, PieceType};

pub use crate::shogi::perft::{divide, perft};

use crate::shogi::perft::PerftPosition;
use crate::shogi::{Move, MoveList};

/// Counted by the perft of shogi/perft.rs in standard shogi's move lists: yari's moves are the
/// standard ones.
impl PerftPosition for Position {
    type Move = Move;
    type MoveList = MoveList;
    fn perft_moves(&self, list: &mut MoveList) {
        *list = self.legal_moves();
    }
    fn do_move(&mut self, m: Move) {
        Position::do_move(self, m);
    }
    fn undo_move(&mut self) {
        Position::undo_move(self);
    }
}
