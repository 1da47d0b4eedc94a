//! An XBoard (CECP protocol 2) front end, so that WinBoard and XBoard users can play dai shogi
//! and the other variants against kirin: the protocol's lines ([`protocol`], [`output`]), move
//! text between XBoard's coordinates and kirin's ([`notation`]), dai shogi described to a GUI
//! that does not know it ([`dai`]), the session that drives a game engine ([`session`])
//! through the small [`session::Engine`] trait, kirin's engines behind that trait ([`kirin`]),
//! and the loop on standard input and output ([`stdio`]).

pub mod dai;
pub mod kirin;
pub mod notation;
pub mod output;
pub mod protocol;
pub mod session;
pub mod stdio;

pub use stdio::run_stdio;
