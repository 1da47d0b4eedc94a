//! The transposition table shared by all search threads.
//!
//! Each entry is two `AtomicU64`s: the data word and the key xor-ed with the data. A reader that
//! races a writer sees a key that does not match and treats the slot as empty, so threads share
//! the table without locks and without `unsafe`.

use crate::shogi::Move;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

#[derive(Copy, Clone, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub value: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

impl TtEntry {
    fn pack(&self, generation: u8) -> u64 {
        (self.mv.raw() as u64)
            | ((self.value as i16 as u16 as u64) << 16)
            | ((self.eval as i16 as u16 as u64) << 32)
            | (((self.depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48)
            | ((((generation << 2) | self.bound as u8) as u64) << 56)
    }

    fn unpack(d: u64) -> TtEntry {
        TtEntry {
            mv: Move::from_raw(d as u16),
            value: (d >> 16) as u16 as i16 as i32,
            eval: (d >> 32) as u16 as i16 as i32,
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
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let b = self.bucket(key);
        for s in &self.slots[b..b + BUCKET] {
            let d = s.data.load(Relaxed);
            if s.key_xor_data.load(Relaxed) ^ d == key && d != 0 {
                return Some(TtEntry::unpack(d));
            }
        }
        None
    }

    pub fn store(&self, key: u64, mut e: TtEntry) {
        let generation = self.generation.load(Relaxed);
        let b = self.bucket(key);
        let bucket = &self.slots[b..b + BUCKET];
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let d = s.data.load(Relaxed);
            if d == 0 || s.key_xor_data.load(Relaxed) ^ d == key {
                // Same position: keep the old move when the new result has none.
                if d != 0 && e.mv.is_none() {
                    e.mv = TtEntry::unpack(d).mv;
                }
                if d != 0 && e.bound != Bound::Exact && TtEntry::unpack(d).depth > e.depth + 4 {
                    return;
                }
                victim = i;
                break;
            }
            let old = TtEntry::unpack(d);
            let age = ((generation as i32) - ((d >> 58) as i32)).rem_euclid(64);
            let worth = old.depth - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let d = e.pack(generation);
        bucket[victim].data.store(d, Relaxed);
        bucket[victim].key_xor_data.store(key ^ d, Relaxed);
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
    use crate::shogi::Square;

    #[test]
    fn stores_and_finds_with_signed_fields() {
        let tt = TranspositionTable::new(1);
        let m = Move::normal(Square::new(60), Square::new(59), false);
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
            let e = tt.probe(key).unwrap();
            assert_eq!(
                (e.mv, e.value, e.eval, e.depth, e.bound),
                (m, value, -value / 2, depth, Bound::Lower)
            );
        }
        assert!(tt.probe(99).is_none());
    }
}
