//! A deterministic random source for tests (xorshift64): random games and positions in tests
//! are the same on every run, so a failure can be replayed.

/// Successive xorshift64 values from `seed` (which must not be zero).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
