//! The mate solver's own transposition table.
//!
//! Entries are keyed by the board (with side to move) and carry the attacker's hand, so that one
//! result answers many hands: a proof found with hand `H` holds for every hand that dominates `H`,
//! a disproof found with `H` for every hand that `H` dominates. Proofs and disproofs are stored with
//! the smallest (proof) or largest (disproof) hand the search could justify, which makes them reach
//! as far as possible.
//!
//! Lengths make the same table serve length-limited searches (used to find the shortest mate): a
//! proof records the length of the mate it found, and any entry may record `no_mate_le`, a length
//! up to which the node is known to have no mate. `INF_LEN` there means no mate at all.

use crate::shogi::{Hand, Move};

/// Proof and disproof numbers; `INF` marks a solved node and is never reached by sums, which
/// saturate at `PN_MAX`.
pub const INF: u32 = u32::MAX;
pub const PN_MAX: u32 = INF - 1;
/// "Unlimited" as a remaining length, and "no mate at all" as a lower bound.
pub const INF_LEN: u16 = u16::MAX;

const CLUSTER: usize = 8;
/// A cluster is 32 words: the eight keys first, so that a probe for an absent node (the usual
/// case) reads one cache line, then three words per entry. Keeping it all plain integers lets the
/// table be a `Vec` of zeroes, which the OS hands out lazily: a multi-gigabyte table costs nothing
/// until used, and clearing it is a reallocation rather than a pass over memory. (Large
/// allocations are page-aligned, so clusters do not straddle more lines than they must.)
type Cluster = [u64; 32];
const CLUSTER_BYTES: usize = std::mem::size_of::<Cluster>();

/// One stored node, unpacked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    /// Proof hand when `pn == 0`, otherwise the hand `no_mate_le` and the numbers belong to.
    pub hand: Hand,
    pub pn: u32,
    pub dn: u32,
    /// Work spent below this node; the replacement scheme keeps expensive entries.
    pub amount: u32,
    /// Length of the mate found (proofs only).
    pub len: u16,
    /// No mate of this many plies or fewer exists for any hand `hand` dominates.
    pub no_mate_le: u16,
    pub best: Move,
}

impl Entry {
    #[inline]
    fn is_proof(&self) -> bool {
        self.pn == 0
    }
}

#[inline]
fn data(i: usize) -> usize {
    CLUSTER + 3 * i
}

#[inline]
fn used(c: &Cluster, i: usize) -> bool {
    // A stored entry always has a non-zero amount.
    c[data(i) + 1] >> 32 != 0
}

/// Whether slot `i` of `c` holds an entry for `key`: every lookup skips the other slots.
#[inline]
fn holds(c: &Cluster, i: usize, key: u64) -> bool {
    c[i] == key && used(c, i)
}

#[inline]
fn amount(c: &Cluster, i: usize) -> u32 {
    (c[data(i) + 1] >> 32) as u32
}

#[inline]
fn read(c: &Cluster, i: usize) -> Entry {
    let d = data(i);
    Entry {
        key: c[i],
        hand: Hand::from_raw(c[d] as u32),
        pn: (c[d] >> 32) as u32,
        dn: c[d + 1] as u32,
        amount: (c[d + 1] >> 32) as u32,
        len: c[d + 2] as u16,
        no_mate_le: (c[d + 2] >> 16) as u16,
        best: Move::from_raw((c[d + 2] >> 32) as u16),
    }
}

#[inline]
fn write(c: &mut Cluster, i: usize, e: &Entry) {
    let d = data(i);
    c[i] = e.key;
    c[d] = u64::from(e.hand.raw()) | (u64::from(e.pn) << 32);
    c[d + 1] = u64::from(e.dn) | (u64::from(e.amount.max(1)) << 32);
    c[d + 2] = u64::from(e.len) | (u64::from(e.no_mate_le) << 16) | (u64::from(e.best.raw()) << 32);
}

#[inline]
fn erase(c: &mut Cluster, i: usize) {
    let d = data(i);
    c[i] = 0;
    c[d] = 0;
    c[d + 1] = 0;
    c[d + 2] = 0;
}

/// A failed allocation aborts the process, so a size the machine cannot back (a typo in an
/// option, say) is cut to three quarters of physical memory where the OS tells us how much there is.
fn clamp_mb(mb: usize) -> usize {
    let total_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb / 1024)
        });
    match total_mb {
        Some(t) if t > 0 => mb.min(t / 4 * 3),
        _ => mb,
    }
}

/// What the table knows about a node searched with attacker hand `hand` and `rem` plies left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Mate in `len` plies (at most `rem`) for any hand dominating `hand`.
    Proven {
        len: u16,
        hand: Hand,
        best: Move,
    },
    /// No mate within `no_mate_le >= rem` plies for any hand `hand` dominates.
    Disproven {
        no_mate_le: u16,
        hand: Hand,
    },
    /// Numbers from an earlier search of exactly this node.
    Unknown {
        pn: u32,
        dn: u32,
        best: Move,
    },
    Missing,
}

pub struct Table {
    clusters: Vec<Cluster>,
}

impl Table {
    pub fn new(mb: usize) -> Table {
        let n = (clamp_mb(mb).saturating_mul(1 << 20) / CLUSTER_BYTES).max(1);
        Table {
            clusters: vec![[0u64; 32]; n],
        }
    }

    pub fn clear(&mut self) {
        let n = self.clusters.len();
        // Drop first so that the old and new tables never coexist.
        self.clusters = Vec::new();
        self.clusters = vec![[0u64; 32]; n];
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.clusters.len() as u128) >> 64) as usize
    }

    /// The cluster `key`'s entries are stored in, for the stores to change.
    #[inline]
    fn cluster_mut(&mut self, key: u64) -> &mut Cluster {
        let idx = self.index(key);
        &mut self.clusters[idx]
    }

    /// Asks the CPU to start loading the line holding a cluster's keys, so that a probe soon
    /// after finds it in cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.clusters[self.index(key)].as_ptr().cast::<i8>();
            // SAFETY: `_mm_prefetch` is a hint that never faults, whatever the address, and SSE
            // is part of the x86_64 baseline, so the instruction always exists.
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p)
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64, hand: Hand, rem: u16) -> Probe {
        let c = &self.clusters[self.index(key)];
        let mut proven: Option<Entry> = None;
        let mut disproven: Option<Entry> = None;
        let mut exact: Option<Entry> = None;
        for i in 0..CLUSTER {
            if !holds(c, i, key) {
                continue;
            }
            let e = read(c, i);
            if e.is_proof() {
                if e.len <= rem
                    && hand.dominates(e.hand)
                    && proven.is_none_or(|p: Entry| e.len < p.len)
                {
                    proven = Some(e);
                }
                continue;
            }
            if e.no_mate_le >= rem
                && e.hand.dominates(hand)
                && disproven.is_none_or(|d: Entry| e.no_mate_le > d.no_mate_le)
            {
                disproven = Some(e);
            }
            if e.hand == hand && e.dn != 0 {
                exact = Some(e);
            }
        }
        if let Some(e) = proven {
            return Probe::Proven {
                len: e.len,
                hand: e.hand,
                best: e.best,
            };
        }
        if let Some(e) = disproven {
            return Probe::Disproven {
                no_mate_le: e.no_mate_le,
                hand: e.hand,
            };
        }
        match exact {
            Some(e) => Probe::Unknown {
                pn: e.pn,
                dn: e.dn,
                best: e.best,
            },
            None => Probe::Missing,
        }
    }

    /// Stores a proof: mate in `len` for any hand dominating `proof_hand`.
    pub fn store_proof(&mut self, key: u64, proof_hand: Hand, len: u16, best: Move, amount: u32) {
        let c = self.cluster_mut(key);
        let mut target = None;
        for i in 0..CLUSTER {
            if !holds(c, i, key) {
                continue;
            }
            let e = read(c, i);
            if e.is_proof() {
                if proof_hand.dominates(e.hand) && e.len <= len {
                    // Already known, as widely and as short.
                    return;
                }
                if e.hand.dominates(proof_hand) && len <= e.len {
                    // The new proof covers the old one.
                    erase(c, i);
                    target.get_or_insert(i);
                }
            } else if e.hand.dominates(proof_hand) && e.no_mate_le == 0 {
                // Open numbers for a hand this proof now covers only take up room.
                erase(c, i);
                target.get_or_insert(i);
            }
        }
        let entry = Entry {
            key,
            hand: proof_hand,
            pn: 0,
            dn: INF,
            amount,
            len,
            no_mate_le: 0,
            best,
        };
        Self::put(c, target, &entry);
    }

    /// Stores a disproof: no mate within `no_mate_le` plies (`INF_LEN`: none at all) for any hand
    /// dominated by `disproof_hand`.
    pub fn store_disproof(&mut self, key: u64, disproof_hand: Hand, no_mate_le: u16, amount: u32) {
        let c = self.cluster_mut(key);
        let mut target = None;
        for i in 0..CLUSTER {
            if !holds(c, i, key) {
                continue;
            }
            let mut e = read(c, i);
            if e.is_proof() {
                continue;
            }
            if e.hand == disproof_hand {
                e.no_mate_le = e.no_mate_le.max(no_mate_le);
                e.dn = 0;
                e.pn = INF;
                e.amount = e.amount.saturating_add(amount);
                write(c, i, &e);
                return;
            }
            if disproof_hand.dominates(e.hand) && e.no_mate_le <= no_mate_le {
                if no_mate_le == INF_LEN {
                    // Nothing more can be learned about a dominated hand.
                    erase(c, i);
                    target.get_or_insert(i);
                } else if e.hand.dominates(disproof_hand) {
                    return;
                }
            }
        }
        let entry = Entry {
            key,
            hand: disproof_hand,
            pn: INF,
            dn: 0,
            amount,
            len: 0,
            no_mate_le,
            best: Move::NONE,
        };
        Self::put(c, target, &entry);
    }

    /// Stores the numbers of an unsolved node searched with exactly `hand`.
    pub fn store_open(&mut self, key: u64, hand: Hand, pn: u32, dn: u32, best: Move, amount: u32) {
        debug_assert!(pn != 0 && dn != 0);
        let c = self.cluster_mut(key);
        for i in 0..CLUSTER {
            if !holds(c, i, key) {
                continue;
            }
            let mut e = read(c, i);
            if e.is_proof() || e.hand != hand {
                continue;
            }
            // Keep any length bound learned earlier; it stays true.
            e.pn = pn;
            e.dn = dn;
            e.best = best;
            e.amount = e.amount.saturating_add(amount);
            write(c, i, &e);
            return;
        }
        let entry = Entry {
            key,
            hand,
            pn,
            dn,
            amount,
            len: 0,
            no_mate_le: 0,
            best,
        };
        Self::put(c, None, &entry);
    }

    /// Writes into `target`, else a free slot, else over the entry that cost least to find.
    fn put(c: &mut Cluster, target: Option<usize>, entry: &Entry) {
        let i = target
            .or_else(|| (0..CLUSTER).find(|&i| !used(c, i)))
            .or_else(|| (0..CLUSTER).min_by_key(|&i| amount(c, i)));
        if let Some(i) = i {
            write(c, i, entry);
        }
    }

    /// Per mille of slots in use, from a sample at the start of the table.
    pub fn hashfull(&self) -> u32 {
        let n = self.clusters.len().min(125);
        if n == 0 {
            return 0;
        }
        let used_slots: usize = self.clusters[..n]
            .iter()
            .map(|c| (0..CLUSTER).filter(|&i| used(c, i)).count())
            .sum();
        (used_slots * 1000 / (n * CLUSTER)) as u32
    }

    pub fn size_bytes(&self) -> usize {
        self.clusters.len() * CLUSTER_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::PieceType;

    fn hand(pieces: &[(PieceType, u32)]) -> Hand {
        let mut h = Hand::EMPTY;
        for &(pt, n) in pieces {
            h.set(pt, n);
        }
        h
    }

    #[test]
    fn proof_applies_to_dominating_hands_only() {
        let mut t = Table::new(1);
        let key = 0x1234_5678_9abc_def1;
        let ph = hand(&[(PieceType::Gold, 1), (PieceType::Pawn, 2)]);
        t.store_proof(key, ph, 7, Move::NONE, 10);
        let more = hand(&[(PieceType::Gold, 2), (PieceType::Pawn, 2)]);
        let less = hand(&[(PieceType::Gold, 1), (PieceType::Pawn, 1)]);
        let other = hand(&[(PieceType::Silver, 1), (PieceType::Pawn, 5)]);
        assert!(matches!(
            t.probe(key, ph, INF_LEN),
            Probe::Proven { len: 7, .. }
        ));
        assert!(matches!(t.probe(key, more, INF_LEN), Probe::Proven { .. }));
        assert_eq!(t.probe(key, less, INF_LEN), Probe::Missing);
        assert_eq!(t.probe(key, other, INF_LEN), Probe::Missing);
        // A proof of length 7 does not answer "mate within 5".
        assert_eq!(t.probe(key, more, 5), Probe::Missing);
        assert_eq!(t.probe(key ^ 1, ph, INF_LEN), Probe::Missing);
    }

    #[test]
    fn disproof_applies_to_dominated_hands_only() {
        let mut t = Table::new(1);
        let key = 0x0fed_cba9_8765_4321;
        let dh = hand(&[(PieceType::Rook, 1), (PieceType::Pawn, 3)]);
        t.store_disproof(key, dh, INF_LEN, 5);
        let less = hand(&[(PieceType::Pawn, 1)]);
        let more = hand(&[(PieceType::Rook, 1), (PieceType::Pawn, 4)]);
        assert!(matches!(t.probe(key, dh, INF_LEN), Probe::Disproven { .. }));
        assert!(matches!(t.probe(key, less, 9), Probe::Disproven { .. }));
        assert!(matches!(
            t.probe(key, Hand::EMPTY, INF_LEN),
            Probe::Disproven { .. }
        ));
        assert_eq!(t.probe(key, more, INF_LEN), Probe::Missing);
    }

    #[test]
    fn length_bounded_disproof_answers_shorter_questions_only() {
        let mut t = Table::new(1);
        let key = 42;
        let h = hand(&[(PieceType::Knight, 1)]);
        t.store_disproof(key, h, 5, 1);
        assert!(matches!(
            t.probe(key, h, 5),
            Probe::Disproven { no_mate_le: 5, .. }
        ));
        assert!(matches!(t.probe(key, h, 3), Probe::Disproven { .. }));
        assert_eq!(t.probe(key, h, 7), Probe::Missing);
        // Open numbers for the same hand keep the bound.
        t.store_open(key, h, 3, 4, Move::NONE, 1);
        assert!(matches!(t.probe(key, h, 5), Probe::Disproven { .. }));
        assert_eq!(
            t.probe(key, h, 9),
            Probe::Unknown {
                pn: 3,
                dn: 4,
                best: Move::NONE
            }
        );
    }

    #[test]
    fn open_numbers_need_the_exact_hand() {
        let mut t = Table::new(1);
        let h = hand(&[(PieceType::Bishop, 1)]);
        t.store_open(7, h, 5, 6, Move::NONE, 1);
        assert!(matches!(
            t.probe(7, h, INF_LEN),
            Probe::Unknown { pn: 5, dn: 6, .. }
        ));
        assert_eq!(t.probe(7, Hand::EMPTY, INF_LEN), Probe::Missing);
        // A proof for a smaller hand supersedes the open entry.
        t.store_proof(7, Hand::EMPTY, 3, Move::NONE, 1);
        assert!(matches!(
            t.probe(7, h, INF_LEN),
            Probe::Proven { len: 3, .. }
        ));
    }

    #[test]
    fn shorter_proof_replaces_longer_and_full_cluster_replaces_cheapest() {
        let mut t = Table::new(1);
        t.store_proof(9, Hand::EMPTY, 9, Move::NONE, 1);
        t.store_proof(9, Hand::EMPTY, 5, Move::NONE, 1);
        assert!(matches!(
            t.probe(9, Hand::EMPTY, INF_LEN),
            Probe::Proven { len: 5, .. }
        ));
        // Many hands of one board overflow the cluster without panicking, and the costly entry
        // survives.
        t.store_open(
            11,
            hand(&[(PieceType::Pawn, 17)]),
            1,
            1,
            Move::NONE,
            1_000_000,
        );
        for n in 0..16 {
            t.store_open(11, hand(&[(PieceType::Pawn, n)]), 1, 1, Move::NONE, 1);
        }
        assert!(matches!(
            t.probe(11, hand(&[(PieceType::Pawn, 17)]), INF_LEN),
            Probe::Unknown { .. }
        ));
        assert!(t.hashfull() > 0);
    }
}
