//! Placeholder until the reader lands: reports the format as not yet readable.

use super::{Record, RecordError};

pub fn read(_text: &str) -> Result<Vec<Record>, RecordError> {
    Err(RecordError::new(0, "reading CSA is not implemented yet"))
}
