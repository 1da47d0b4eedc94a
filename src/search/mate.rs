//! Mate solver (df-pn) for `go mate`.
