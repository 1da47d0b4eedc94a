//! Japanese move text (placeholder).
