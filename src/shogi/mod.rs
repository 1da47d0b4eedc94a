//! Standard shogi: board representation, rules and move generation.

pub mod attacks;
pub mod bitboard;
pub mod board;
mod error;
pub mod hand;
mod legality;
pub mod mate1;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod rules;
pub mod see;
mod sfen;
mod text;
pub mod types;
pub(crate) mod zobrist;

pub use bitboard::Bitboard;
pub use board::{HandCounts, PieceSet};
pub use error::{MoveError, SfenError};
pub use hand::Hand;
pub use movegen::{MAX_MOVES, MoveList, legal_moves};
pub use position::{Position, START_SFEN, StandardPieces, StateInfo};
pub use rules::{EnteringKingRule, Repetition};
pub use sfen::{write_hands as write_sfen_hands, write_sfen_rank};
pub use text::parse_syntax;
pub use types::{Color, Kind, Move, Piece, PieceType, Square};
