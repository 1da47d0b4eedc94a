//! Placeholder until the reader lands: reports the format as not yet readable.

use super::{Record, RecordError};

pub fn read(_text: &str) -> Result<Record, RecordError> {
    Err(RecordError::new(
        0,
        "reading this format is not implemented yet",
    ))
}

/// Whether a line is a numbered KIF move line (`   1 ７六歩(77)`).
pub fn is_move_line(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.bytes().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && t[digits..].starts_with([' ', '\u{3000}'])
}
