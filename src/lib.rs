//! kirin: a shogi engine.
//!
//! The crate has no `unsafe` code: threads share the transposition table through atomics only,
//! so the compiler rules out data races.
#![forbid(unsafe_code)]

pub mod bench;
pub mod eval;
pub mod search;
pub mod shogi;
pub mod usi;
