//! kirin: a shogi engine.

pub mod eval;
pub mod search;
pub mod shogi;
pub mod usi;
pub mod bench;
