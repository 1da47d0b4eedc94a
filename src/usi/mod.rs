//! The USI protocol: what a shogi GUI sends ([`Command`]), what the engine answers
//! ([`Response`]), and the readers for both. Writing is `Display`: one protocol line,
//! pure ASCII, no trailing newline.

mod ascii;
pub mod command;
pub mod engine;
mod parse;
pub mod response;

pub use command::*;
pub use parse::{parse_one, parse_response};
pub use response::*;
