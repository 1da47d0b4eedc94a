//! kirin: a shogi engine.

pub mod bench;
pub mod eval;
pub mod search;
pub mod shogi;
pub mod tune;
pub mod usi;
