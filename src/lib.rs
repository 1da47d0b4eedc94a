//! kirin: a shogi engine.
//!
//! Threads share the transposition table through atomics only, so the compiler rules out data
//! races. `unsafe` is allowed in three places, each with its reason beside it: the network's
//! AVX2 kernels (`eval/nnue/simd.rs`, run only where the CPU reports AVX2), a cache prefetch hint
//! in the mate solver's table, which cannot fault or touch memory, and dai's piece kind from its
//! number (`dai/types.rs`, range-checked at compile time and at run time); everything else is
//! safe code.
#![deny(unsafe_code)]

pub mod analyze;
pub mod bench;
pub mod book;
pub mod dai;
pub mod engine;
pub mod eval;
pub mod game;
pub mod judge;
pub mod kifu;
pub mod mate;
pub mod search;
pub mod shogi;
#[cfg(test)]
mod test_rng;
pub mod tune;
pub mod usi;
pub mod xboard;
pub mod yari;
