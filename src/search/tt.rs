//! The transposition table shared by all search threads.
//!
//! Each entry is two `AtomicU64`s: the data word (move, value, depth, bound, age) and a check
//! word, the data xor-ed with the key whose top 16 bits are replaced by the static evaluation.
//! A reader that races a writer sees low 48 key bits that do not match and treats the slot as
//! empty, so threads share the table without locks and without `unsafe`. The bucket comes from
//! the key's top bits, so the 48 checked bits are nearly all independent of it.
//!
//! Moves are stored as 32 bits, which holds every game's move ([`GameMove::bits`]).

use crate::game::GameMove;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

#[derive(Copy, Clone, Debug)]
pub struct TtEntry<M> {
    pub mv: M,
    pub value: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

impl<M: GameMove> TtEntry<M> {
    fn pack(&self, generation: u8) -> u64 {
        u64::from(self.mv.bits())
            | ((self.value as i16 as u16 as u64) << 32)
            | (((self.depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48)
            | ((((generation << 2) | self.bound as u8) as u64) << 56)
    }

    /// The check word stored beside data word `d`.
    fn check(&self, key: u64, d: u64) -> u64 {
        (key ^ d) ^ (u64::from(self.eval as i16 as u16) << 48)
    }

    fn unpack(d: u64, eval_bits: u64) -> TtEntry<M> {
        TtEntry {
            mv: M::from_bits(d as u32),
            value: (d >> 32) as u16 as i16 as i32,
            eval: eval_bits as u16 as i16 as i32,
            depth: ((d >> 48) & 0xff) as i32 - DEPTH_OFFSET,
            bound: match (d >> 56) & 3 {
                1 => Bound::Upper,
                2 => Bound::Lower,
                3 => Bound::Exact,
                _ => Bound::None,
            },
        }
    }
}

/// Quiescence stores negative depths; the offset keeps them in a byte.
const DEPTH_OFFSET: i32 = 8;
const BUCKET: usize = 4;
/// The key bits the check word verifies.
const CHECKED: u64 = (1 << 48) - 1;

/// Whether the slot with data `d` and check word `c` holds `key`, and if so its evaluation bits.
#[inline]
fn matches(key: u64, d: u64, c: u64) -> Option<u64> {
    let x = c ^ d ^ key;
    (x & CHECKED == 0 && d != 0).then_some(x >> 48)
}

struct Slot {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    generation: std::sync::atomic::AtomicU8,
}

impl TranspositionTable {
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.max(1) * 1024 * 1024;
        let buckets = (bytes / (16 * BUCKET)).max(1);
        let mut slots = Vec::new();
        slots.resize_with(buckets * BUCKET, || Slot {
            key_xor_data: AtomicU64::new(0),
            data: AtomicU64::new(0),
        });
        TranspositionTable {
            slots,
            buckets,
            generation: std::sync::atomic::AtomicU8::new(0),
        }
    }

    pub fn size_mb(&self) -> usize {
        self.buckets * BUCKET * 16 / (1024 * 1024)
    }

    pub fn clear(&self) {
        for s in &self.slots {
            s.key_xor_data.store(0, Relaxed);
            s.data.store(0, Relaxed);
        }
        self.generation.store(0, Relaxed);
    }

    /// Called once per `go`, so that entries from earlier searches are replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) & 63, Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (((key as u128) * (self.buckets as u128)) >> 64) as usize * BUCKET
    }

    #[inline]
    pub fn probe<M: GameMove>(&self, key: u64) -> Option<TtEntry<M>> {
        let b = self.bucket(key);
        for s in &self.slots[b..b + BUCKET] {
            let d = s.data.load(Relaxed);
            if let Some(eval) = matches(key, d, s.key_xor_data.load(Relaxed)) {
                return Some(TtEntry::unpack(d, eval));
            }
        }
        None
    }

    pub fn store<M: GameMove>(&self, key: u64, mut e: TtEntry<M>) {
        let generation = self.generation.load(Relaxed);
        let b = self.bucket(key);
        let bucket = &self.slots[b..b + BUCKET];
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let d = s.data.load(Relaxed);
            let same = matches(key, d, s.key_xor_data.load(Relaxed));
            if d == 0 || same.is_some() {
                // Same position: keep the old move when the new result has none.
                if let Some(eval) = same {
                    let old = TtEntry::<M>::unpack(d, eval);
                    if e.mv.is_none() {
                        e.mv = old.mv;
                    }
                    if e.bound != Bound::Exact && old.depth > e.depth + 4 {
                        return;
                    }
                }
                victim = i;
                break;
            }
            let old = TtEntry::<M>::unpack(d, 0);
            let age = ((generation as i32) - ((d >> 58) as i32)).rem_euclid(64);
            let worth = old.depth - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let d = e.pack(generation);
        bucket[victim].data.store(d, Relaxed);
        bucket[victim].key_xor_data.store(e.check(key, d), Relaxed);
    }

    /// Per mille of sampled slots written during the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Relaxed) as u64;
        let n = self.slots.len().min(4000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Relaxed);
                d != 0 && (d >> 58) == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::test_move::TestMove as Move;

    #[test]
    fn stores_and_finds_with_signed_fields() {
        let tt = TranspositionTable::new(1);
        // A 16-bit move, as standard shogi's.
        let m = Move(0x1e3b);
        for (key, value, depth) in [
            (0x1234_5678_9abc_def0u64, -31990, -3),
            (42, 31000, 40),
            (7, 0, 0),
        ] {
            tt.store(
                key,
                TtEntry {
                    mv: m,
                    value,
                    eval: -value / 2,
                    depth,
                    bound: Bound::Lower,
                },
            );
            let e = tt.probe::<Move>(key).unwrap();
            assert_eq!(
                (e.mv, e.value, e.eval, e.depth, e.bound),
                (m, value, -value / 2, depth, Bound::Lower)
            );
        }
        assert!(tt.probe::<Move>(99).is_none());
        // A 32-bit move (as dai shogi's) keeps all its bits.
        let wide = Move(0x01ab_cdef);
        let e = TtEntry {
            mv: wide,
            value: -5,
            eval: 7,
            depth: 3,
            bound: Bound::Exact,
        };
        tt.store(5, e);
        let got = tt.probe::<Move>(5).unwrap();
        assert_eq!((got.mv, got.value, got.eval), (wide, -5, 7));
        // Another key in the same bucket does not read it.
        assert!(tt.probe::<Move>(5 ^ (1 << 20)).is_none());
    }
}
