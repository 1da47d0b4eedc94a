//! Depth-first proof-number search (df-pn) with the shogi-specific fixes.
//!
//! - Proof and disproof hands with a table that answers for dominating/dominated hands.
//! - Repetitions: a position whose board repeats an ancestor's with the attacker no better off
//!   (same or dominated hand) counts as "no mate" on this path. A shortest mate never passes
//!   through such a position (its remaining length would have to be both shorter and not shorter),
//!   so this loses no mate. Because such a verdict depends on the path, it is never stored as a
//!   disproof in the shared table (the graph-history interaction problem); it goes into a side table
//!   keyed by a hash of the whole path from the root, where only the same path can find it.
//! - Double counting: interposing drops on one square lead to nearly the same subtrees, so a
//!   defender node sums the proof numbers of its drop replies per square with `max` rather than
//!   adding each piece kind again.
//! - Thresholds use the 1+epsilon trick (epsilon = 1/4) so the search does not thrash between two
//!   siblings of nearly equal cost.
//! - Length limits: every node carries the plies left (`INF_LEN` for none). Length-limited searches
//!   let the solver shrink a proof to the shortest mate.

use super::tt::{INF, INF_LEN, PN_MAX, Probe, Table};
use super::{checks, hands};
use crate::shogi::movegen::MoveList;
use crate::shogi::{Color, Hand, Move, PieceType, Position, legal_moves};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

mod children;
use children::{Aggregate, Child, aggregate, child_rem, epsilon_threshold, plus_one};

/// The verdict on a node depends on its path: the path grew longer than the search allows.
pub const PATH_CAP: u8 = 2;
/// `Outcome::rep` when the verdict relies on no repetition.
pub const NO_REP: u16 = u16::MAX;

/// Deeper paths are cut off (as a path-dependent "unknown"), which bounds the worker's stack.
pub const MAX_PLY: usize = 6000;

/// Path-dependent verdicts are kept for at most this many paths before the side table is dropped.
const PATH_TABLE_LIMIT: usize = 1 << 22;

/// What a search of one node found.
#[derive(Copy, Clone, Debug)]
pub struct Outcome {
    pub pn: u32,
    pub dn: u32,
    /// Mate length when proven.
    pub len: u16,
    /// Bound when disproven: no mate of this many plies or fewer.
    pub no_mate_le: u16,
    /// Proof hand when proven, disproof hand when disproven.
    pub hand: Hand,
    pub flags: u8,
    /// For a disproof that relies on repeating an ancestor: the shallowest such ancestor's index
    /// on the path (root 0). Once the search returns to that ancestor, the repetition lies inside
    /// the subtree and the verdict holds however the node is reached.
    pub rep: u16,
    pub best: Move,
}

impl Outcome {
    pub fn proven(&self) -> bool {
        self.pn == 0
    }
    pub fn disproven(&self) -> bool {
        self.dn == 0
    }
    fn proof(len: u16, hand: Hand, best: Move) -> Outcome {
        Outcome {
            pn: 0,
            dn: INF,
            len,
            no_mate_le: 0,
            hand,
            flags: 0,
            rep: NO_REP,
            best,
        }
    }
    fn disproof(no_mate_le: u16, hand: Hand) -> Outcome {
        Outcome {
            pn: INF,
            dn: 0,
            len: 0,
            no_mate_le,
            hand,
            flags: 0,
            rep: NO_REP,
            best: Move::NONE,
        }
    }
    fn on_path(mut self, flags: u8, rep: u16) -> Outcome {
        self.flags = flags;
        self.rep = rep;
        self
    }
    /// Whether the verdict holds only on the current path.
    pub fn path_dependent(&self) -> bool {
        self.flags != 0 || self.rep != NO_REP
    }
}

/// Counters the calling thread reads to report progress.
#[derive(Default)]
pub struct Shared {
    pub nodes: AtomicU64,
    pub hashfull: AtomicU32,
}

pub struct Limits<'a> {
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
    pub stop: &'a AtomicBool,
}

pub struct Search<'a> {
    pub tt: &'a mut Table,
    pub attacker: Color,
    /// Mixed into every key: the attacker's colour and the problem's piece set, because hand
    /// dominance is only sound among positions with the same pieces in play.
    salt: u64,
    pub nodes: u64,
    limits: Limits<'a>,
    shared: &'a Shared,
    last_report: Instant,
    pub aborted: bool,
    /// The longest path searched, for the debug log.
    pub max_path: usize,
    /// Node count at which the current sub-search gives up (see `with_budget`).
    soft_limit: Option<u64>,
    soft_hit: bool,
    /// Board key and attacker hand of every node on the current path, root first.
    path: Vec<(u64, Hand)>,
    /// Counts of path entries per low key bits, so most nodes skip the path scan.
    path_filter: Vec<u16>,
    /// Path-dependent disproofs: path hash -> (no mate within this many plies on that path, the
    /// shallowest repeated ancestor relied on).
    path_table: HashMap<u64, (u16, u16), BuildHasherDefault<PathHasher>>,
    /// One bit per path-hash bucket, set for every path in `path_table`: nearly every child is
    /// absent, and this answers that without touching the map.
    path_bits: Vec<u64>,
    pool: Vec<Vec<Child>>,
}

pub const ROOT_PATH: u64 = 0x6d61_7465_5f72_6f6f;

#[inline]
pub fn path_key(parent: u64, m: Move) -> u64 {
    let mut z = parent
        .rotate_left(7)
        .wrapping_add(u64::from(m.raw()).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const PATH_BITS: usize = 1 << 20;

#[inline]
fn path_bit(pk: u64) -> usize {
    (pk >> 44) as usize % PATH_BITS
}

/// Path hashes are already well mixed, so the table uses them as they are instead of paying for
/// SipHash on every child.
#[derive(Default)]
struct PathHasher(u64);

impl Hasher for PathHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl<'a> Search<'a> {
    pub fn new(
        tt: &'a mut Table,
        pos: &Position,
        limits: Limits<'a>,
        shared: &'a Shared,
    ) -> Search<'a> {
        let attacker = pos.side_to_move();
        Search {
            tt,
            attacker,
            salt: problem_salt(pos),
            nodes: 0,
            limits,
            shared,
            last_report: Instant::now(),
            aborted: false,
            max_path: 0,
            soft_limit: None,
            soft_hit: false,
            path: Vec::with_capacity(1024),
            path_filter: vec![0; 1 << 16],
            path_table: HashMap::default(),
            path_bits: vec![0; PATH_BITS / 64],
            pool: Vec::new(),
        }
    }

    #[inline]
    pub fn key_of(&self, pos: &Position) -> u64 {
        pos.board_key() ^ self.salt
    }

    pub fn push_path(&mut self, pos: &Position) {
        let bk = pos.board_key();
        self.path.push((bk, pos.hand(self.attacker)));
        let f = &mut self.path_filter[(bk & 0xffff) as usize];
        *f = f.saturating_add(1);
    }

    pub fn pop_path(&mut self) {
        if let Some((bk, _)) = self.path.pop() {
            let f = &mut self.path_filter[(bk & 0xffff) as usize];
            *f = f.saturating_sub(1);
        }
    }

    pub fn path_len(&self) -> usize {
        self.path.len()
    }

    /// Whether `pos` (about to be entered below the current path) repeats an ancestor with the
    /// attacker no better off. Only ancestors with the same side to move can match, so the scan
    /// steps two plies at a time.
    pub fn repeats_ancestor(&self, pos: &Position) -> bool {
        self.repeated_ancestor(pos).is_some()
    }

    /// The path index of the deepest ancestor that `pos` repeats (the one whose verdict
    /// dependency is resolved soonest on the way back up).
    fn repeated_ancestor(&self, pos: &Position) -> Option<u16> {
        let bk = pos.board_key();
        if self.path_filter[(bk & 0xffff) as usize] == 0 {
            return None;
        }
        let hand = pos.hand(self.attacker);
        // The new node would sit at index `path.len()`; same side is two back.
        let mut i = self.path.len();
        while i >= 2 {
            i -= 2;
            let (k, h) = self.path[i];
            if k == bk && h.dominates(hand) {
                return Some(i.min(usize::from(NO_REP - 1)) as u16);
            }
        }
        None
    }

    /// Path-dependent verdict stored for the node at path hash `pk`, valid for `rem` plies.
    pub fn path_verdict(&self, pk: u64, rem: u16) -> Option<(u16, u16)> {
        let b = path_bit(pk);
        if self.path_bits[b / 64] & (1 << (b % 64)) == 0 {
            return None;
        }
        self.path_table
            .get(&pk)
            .copied()
            .filter(|&(nml, _)| nml >= rem)
    }

    fn check_limits(&mut self) {
        self.shared.nodes.store(self.nodes, Ordering::Relaxed);
        if self.limits.stop.load(Ordering::Relaxed) {
            self.aborted = true;
        }
        if self.limits.max_nodes.is_some_and(|m| self.nodes >= m) {
            self.aborted = true;
        }
        if self.soft_limit.is_some_and(|l| self.nodes >= l) {
            self.aborted = true;
            self.soft_hit = true;
        }
        let now = Instant::now();
        if self.limits.deadline.is_some_and(|d| now >= d) {
            self.aborted = true;
        }
        if now.duration_since(self.last_report).as_millis() >= 50 {
            self.last_report = now;
            self.shared
                .hashfull
                .store(self.tt.hashfull(), Ordering::Relaxed);
        }
    }

    /// Runs `f` with at most about `nodes` more nodes; running out of that budget aborts only `f`.
    pub fn with_budget<T>(&mut self, nodes: u64, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.soft_limit;
        self.soft_limit = Some(self.nodes.saturating_add(nodes));
        let r = f(self);
        self.soft_limit = saved;
        if self.soft_hit {
            self.soft_hit = false;
            self.aborted = false;
            // The real limits may have run out at the same time.
            self.check_limits();
        }
        r
    }

    /// Makes the counters current for the progress reports.
    pub fn publish(&self) {
        self.shared.nodes.store(self.nodes, Ordering::Relaxed);
        self.shared
            .hashfull
            .store(self.tt.hashfull(), Ordering::Relaxed);
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 || self.limits.max_nodes.is_some_and(|m| self.nodes >= m) {
            self.check_limits();
        }
    }

    /// Looks a node up without searching it; `pk` is its path hash.
    pub fn probe(&self, pos: &Position, pk: u64, rem: u16) -> Probe {
        if let Some((nml, _)) = self.path_verdict(pk, rem) {
            return Probe::Disproven {
                no_mate_le: nml,
                hand: pos.hand(self.attacker),
            };
        }
        self.tt
            .probe(self.key_of(pos), pos.hand(self.attacker), rem)
    }

    /// Searches the current position (already on top of `path`'s parent) until it is solved or
    /// the search is aborted. The position must not repeat an ancestor (callers check).
    pub fn solve_node(&mut self, pos: &mut Position, rem: u16, pk: u64) -> Outcome {
        if let Some((nml, rep)) = self.path_verdict(pk, rem) {
            return Outcome::disproof(nml, pos.hand(self.attacker)).on_path(0, rep);
        }
        match self
            .tt
            .probe(self.key_of(pos), pos.hand(self.attacker), rem)
        {
            Probe::Proven { len, hand, best } => return Outcome::proof(len, hand, best),
            Probe::Disproven { no_mate_le, hand } => return Outcome::disproof(no_mate_le, hand),
            _ => {}
        }
        loop {
            let out = self.mid(pos, rem, INF, INF, pk);
            if out.proven() || out.disproven() || self.aborted {
                return out;
            }
        }
    }

    /// First half of a child's set-up: its key, and the verdicts that depend on the path. The
    /// table is probed in a second pass so that the memory reads of all children overlap.
    fn prepare_child(&mut self, pos: &mut Position, m: Move, rem: u16, pk: u64) -> Child {
        pos.do_move(m);
        let key = self.key_of(pos);
        let hand = pos.hand(self.attacker);
        let mut c = Child {
            mv: m,
            key,
            hand,
            pn: 1,
            dn: 1,
            len: 0,
            no_mate_le: 0,
            solved_hand: hand,
            flags: 0,
            rep: NO_REP,
        };
        if self.path.len() + 1 >= MAX_PLY {
            c.apply(&Outcome::disproof(INF_LEN, hand).on_path(PATH_CAP, NO_REP));
        } else if let Some(i) = self.repeated_ancestor(pos) {
            c.apply(&Outcome::disproof(INF_LEN, hand).on_path(0, i));
        } else if let Some((nml, rep)) = self.path_verdict(path_key(pk, m), child_rem(rem)) {
            c.apply(&Outcome::disproof(nml, hand).on_path(0, rep));
        } else {
            self.tt.prefetch(key);
        }
        pos.undo_move();
        c
    }

    /// Second half: what the table knows, else initial numbers. A check is scored by how many
    /// replies it leaves (and proven at once when there are none); a defender reply starts at 1/1.
    fn probe_child(&mut self, pos: &mut Position, c: &mut Child, or_node: bool, rem: u16) {
        if c.solved() {
            return;
        }
        let crem = child_rem(rem);
        match self.tt.probe(c.key, c.hand, crem) {
            Probe::Proven { len, hand, best } => c.apply(&Outcome::proof(len, hand, best)),
            Probe::Disproven { no_mate_le, hand } => c.apply(&Outcome::disproof(no_mate_le, hand)),
            Probe::Unknown { pn, dn, .. } => {
                c.pn = pn;
                c.dn = dn;
            }
            Probe::Missing if or_node => {
                pos.do_move(c.mv);
                let replies = legal_moves(pos).len() as u32;
                if replies == 0 {
                    let ph = hands::defender_proof_fixup(pos, self.attacker, Hand::EMPTY);
                    self.tt.store_proof(c.key, ph, 0, Move::NONE, 1);
                    c.apply(&Outcome::proof(0, ph, Move::NONE));
                } else if crem < 2 {
                    // A defender with a reply cannot be mated in fewer than 2 plies.
                    c.apply(&Outcome::disproof(1, c.hand));
                } else {
                    // Tried on Microcosmos tails against 1, n/2, n/3, 1+n/4 and log2 n:
                    // the plain count needed the fewest nodes overall.
                    c.pn = replies;
                }
                pos.undo_move();
            }
            Probe::Missing => {}
        }
    }

    fn refresh(&self, c: &mut Child, rem: u16) {
        if c.solved() {
            return;
        }
        match self.tt.probe(c.key, c.hand, child_rem(rem)) {
            Probe::Proven { len, hand, best } => c.apply(&Outcome::proof(len, hand, best)),
            Probe::Disproven { no_mate_le, hand } => c.apply(&Outcome::disproof(no_mate_le, hand)),
            Probe::Unknown { pn, dn, .. } => {
                c.pn = pn;
                c.dn = dn;
            }
            Probe::Missing => {}
        }
    }

    /// The multiple-iterative-deepening step of df-pn: expands the current node until its proof
    /// or disproof number reaches the given threshold.
    fn mid(&mut self, pos: &mut Position, rem: u16, th_pn: u32, th_dn: u32, pk: u64) -> Outcome {
        let start_nodes = self.nodes;
        self.count_node();
        let or_node = pos.side_to_move() == self.attacker;
        let hand = pos.hand(self.attacker);
        let key = self.key_of(pos);

        let mut moves = MoveList::new();
        if or_node {
            checks::checks(pos, &mut moves);
        } else {
            // Every legal evasion, useless non-promotions included: a defender's non-promotion
            // can matter in mate problems (it can turn an attacker's pawn drop into an illegal
            // pawn-drop mate), and evasions are few, so completeness costs little.
            moves = legal_moves(pos);
        }
        if moves.is_empty() {
            let out = if or_node {
                Outcome::disproof(INF_LEN, hands::no_check_disproof(hand))
            } else {
                Outcome::proof(
                    0,
                    hands::defender_proof_fixup(pos, self.attacker, Hand::EMPTY),
                    Move::NONE,
                )
            };
            self.store(key, hand, pk, &out, 1);
            return out;
        }
        if (or_node && rem < 1) || (!or_node && rem < 2) {
            return Outcome::disproof(if or_node { 0 } else { 1 }, hand);
        }

        self.push_path(pos);
        let ply = self.path.len();
        self.max_path = self.max_path.max(ply);
        if self.pool.len() <= ply {
            self.pool.resize_with(ply + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.pool[ply]);
        children.clear();
        for &m in &moves {
            let c = self.prepare_child(pos, m, rem, pk);
            children.push(c);
        }
        let mut kept = children.len();
        for (i, c) in children.iter_mut().enumerate() {
            self.probe_child(pos, c, or_node, rem);
            let decisive = if or_node {
                c.pn == 0
            } else {
                c.dn == 0 && !c.path_dependent()
            };
            if decisive {
                kept = i + 1;
                break;
            }
        }
        // Past a decisive child the rest were never looked at; the node is settled without them.
        children.truncate(kept);

        // Siblings can change through transpositions while one child is searched. Re-reading
        // every sibling after every child search costs a table probe each (most of the run time
        // on wide nodes), so all are re-read only every few rounds, and the chosen child just
        // before it is searched.
        let mut round = 0u32;
        let mut agg;
        loop {
            if round > 0 && round.is_multiple_of(8) {
                for c in children.iter_mut() {
                    self.refresh(c, rem);
                }
            }
            round += 1;
            agg = aggregate(or_node, &children);
            if agg.pn == 0 || agg.dn == 0 || agg.pn >= th_pn || agg.dn >= th_dn || self.aborted {
                break;
            }
            let b = agg.best;
            let (old_pn, old_dn) = (children[b].pn, children[b].dn);
            self.refresh(&mut children[b], rem);
            if (children[b].pn, children[b].dn) != (old_pn, old_dn) {
                continue;
            }
            let (cth_pn, cth_dn) = if or_node {
                (
                    th_pn.min(epsilon_threshold(agg.second)),
                    th_dn.saturating_sub(agg.dn - children[b].dn),
                )
            } else {
                (
                    th_pn.saturating_sub(agg.pn - agg.best_share),
                    th_dn.min(epsilon_threshold(agg.second)),
                )
            };
            let m = children[b].mv;
            pos.do_move(m);
            let out = self.mid(pos, child_rem(rem), cth_pn, cth_dn, path_key(pk, m));
            pos.undo_move();
            children[b].apply(&out);
        }

        let mut out = self.conclude(pos, or_node, hand, &children, &agg);
        // A repetition of this node or of one below it is met on every path to this node.
        if out.disproven() && out.rep != NO_REP && usize::from(out.rep) + 1 >= ply {
            out.rep = NO_REP;
        }
        self.pool[ply] = children;
        self.pop_path();
        let amount = (self.nodes - start_nodes).min(u64::from(u32::MAX)) as u32;
        self.store(key, hand, pk, &out, amount);
        out
    }

    fn conclude(
        &self,
        pos: &Position,
        or_node: bool,
        hand: Hand,
        children: &[Child],
        agg: &Aggregate,
    ) -> Outcome {
        if or_node {
            if agg.pn == 0 {
                // Keep the shortest proof known among the proven checks.
                let c = children
                    .iter()
                    .filter(|c| c.pn == 0)
                    .min_by_key(|c| c.len)
                    .unwrap_or(&children[agg.best]);
                let ph = hands::before_attacker_move(c.solved_hand, c.mv, pos.piece_on(c.mv.to()));
                // Never clip hands into shape: a hand that broke the invariant would make the
                // entry claim more than was shown.
                debug_assert!(hand.dominates(ph));
                return Outcome::proof(plus_one(c.len), ph, c.mv);
            }
            if agg.dn == 0 {
                let mut dh = hands::full();
                let mut nml = INF_LEN;
                let mut flags = 0;
                let mut rep = NO_REP;
                for c in children {
                    let before =
                        hands::before_attacker_move(c.solved_hand, c.mv, pos.piece_on(c.mv.to()));
                    dh = hands::meet(dh, before);
                    nml = nml.min(c.no_mate_le);
                    flags |= c.flags;
                    rep = rep.min(c.rep);
                }
                let dh = hands::limit_to_held_kinds(dh, hand);
                debug_assert!(dh.dominates(hand));
                return Outcome::disproof(plus_one(nml), dh).on_path(flags, rep);
            }
        } else {
            if agg.dn == 0 {
                // A refutation that holds on every path beats one that needs this path, and
                // one relying on a deeper ancestor beats one relying on a shallower.
                let c = children
                    .iter()
                    .filter(|c| c.dn == 0)
                    .max_by_key(|c| (c.flags == 0, c.rep, c.no_mate_le))
                    .unwrap_or(&children[agg.best]);
                let dh = hands::defender_disproof(c.solved_hand, c.mv, hand);
                let mut out = Outcome::disproof(plus_one(c.no_mate_le), dh).on_path(c.flags, c.rep);
                out.best = c.mv;
                return out;
            }
            if agg.pn == 0 {
                let mut ph = Hand::EMPTY;
                let mut len = 0;
                let mut longest = Move::NONE;
                for c in children {
                    ph = hands::join(ph, c.solved_hand);
                    if c.len >= len {
                        len = c.len;
                        longest = c.mv;
                    }
                }
                let ph = hands::defender_proof_fixup(pos, self.attacker, ph);
                debug_assert!(hand.dominates(ph));
                return Outcome::proof(plus_one(len), ph, longest);
            }
        }
        Outcome {
            pn: agg.pn,
            dn: agg.dn,
            len: 0,
            no_mate_le: 0,
            hand,
            flags: 0,
            rep: NO_REP,
            best: children[agg.best].mv,
        }
    }

    fn store(&mut self, key: u64, hand: Hand, pk: u64, out: &Outcome, amount: u32) {
        if out.proven() {
            self.tt
                .store_proof(key, out.hand, out.len, out.best, amount);
        } else if out.disproven() {
            if !out.path_dependent() {
                self.tt
                    .store_disproof(key, out.hand, out.no_mate_le, amount);
            } else {
                if self.path_table.len() >= PATH_TABLE_LIMIT {
                    self.path_table.clear();
                    self.path_bits.fill(0);
                }
                let b = path_bit(pk);
                self.path_bits[b / 64] |= 1 << (b % 64);
                let e = self.path_table.entry(pk).or_insert((0, NO_REP));
                if out.no_mate_le >= e.0 {
                    *e = (out.no_mate_le, out.rep);
                }
            }
        } else {
            self.tt
                .store_open(key, hand, out.pn, out.dn, out.best, amount);
        }
    }
}

/// A hash of the attacker's colour and how many of each kind are in play.
fn problem_salt(pos: &Position) -> u64 {
    let mut counts = [0u64; 8];
    for sq in pos.occupied() {
        let p = pos.piece_on(sq);
        let k = p.kind();
        if k != PieceType::King {
            counts[k.unpromote() as usize] += 1;
        } else {
            counts[0] += 1 << (4 * p.color().index());
        }
    }
    for c in Color::ALL {
        for pt in PieceType::HAND {
            counts[pt as usize] += u64::from(pos.hand(c).count(pt));
        }
    }
    let mut z = if pos.side_to_move() == Color::White {
        0x5747_4849_5445_u64
    } else {
        0x0042_4c41_434b_u64
    };
    for (i, &n) in counts.iter().enumerate() {
        z = path_key(z, Move::from_raw((n as u16) << 3 | i as u16));
    }
    // Bit 0 of board keys carries the side to move; keep the salt from flipping it.
    z & !1
}
