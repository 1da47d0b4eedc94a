//! Zobrist keys for yari positions, generated at compile time from a fixed seed of their own so
//! that hashes are stable across builds.

use super::attacks::SQUARES;
use super::types::Piece;
use crate::shogi::zobrist::key_table;

/// Yari's keys: a piece on a square, and one piece of a kind (by hand slot) in a side's hand.
pub(super) static BOARD: [[u64; SQUARES]; Piece::NUM] = key_table(0x7961_7269_0000_0001);
pub(super) static HAND: [[u64; 4]; 2] = key_table(0x7961_7269_0000_0002);
