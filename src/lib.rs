//! kirin: a shogi engine.

pub mod search;
pub mod shogi;
