//! Time management by the tournament rules.
