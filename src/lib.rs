//! kirin: a shogi engine.

pub mod shogi;
