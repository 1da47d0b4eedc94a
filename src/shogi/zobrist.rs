//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across builds
//! (book files and logs stay comparable).

use super::types::Piece;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

/// `N` x `M` keys drawn in row order from `seed`, with bit 0 clear: it is reserved for the side
/// to move. Every game's tables (standard, yari, dai) are made here, each from its own seed.
pub(crate) const fn key_table<const N: usize, const M: usize>(seed: u64) -> [[u64; M]; N] {
    let mut t = [[0u64; M]; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let mut j = 0;
        while j < M {
            let (s, v) = splitmix(state);
            state = s;
            t[i][j] = v & !1;
            j += 1;
        }
        i += 1;
    }
    t
}

/// Standard shogi's keys: a piece on a square, and one piece of a kind in a side's hand.
pub(crate) static BOARD: [[u64; 81]; Piece::NUM] = key_table(0x6b69_7269_6e00_0001);
pub(crate) static HAND: [[u64; 8]; 2] = key_table(0x6b69_7269_6e00_0002);
