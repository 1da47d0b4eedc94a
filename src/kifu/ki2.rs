//! Placeholder until the reader lands: reports the format as not yet readable.

use super::{Record, RecordError};

pub fn read(_text: &str) -> Result<Record, RecordError> {
    Err(RecordError::new(
        0,
        "reading this format is not implemented yet",
    ))
}
