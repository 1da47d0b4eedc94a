//! A node's children as the proof-number search keeps them, and how their numbers combine into
//! the node's (OR at attacker nodes, AND at defender nodes). Split from the search (`super`).

use super::*;

#[derive(Copy, Clone, Debug)]
pub(super) struct Child {
    pub(super) mv: Move,
    pub(super) key: u64,
    /// Attacker hand in the child.
    pub(super) hand: Hand,
    pub(super) pn: u32,
    pub(super) dn: u32,
    pub(super) len: u16,
    pub(super) no_mate_le: u16,
    pub(super) solved_hand: Hand,
    pub(super) flags: u8,
    pub(super) rep: u16,
}

impl Child {
    pub(super) fn apply(&mut self, o: &Outcome) {
        self.pn = o.pn;
        self.dn = o.dn;
        self.len = o.len;
        self.no_mate_le = o.no_mate_le;
        self.solved_hand = o.hand;
        self.flags = o.flags;
        self.rep = o.rep;
    }
    pub(super) fn path_dependent(&self) -> bool {
        self.flags != 0 || self.rep != NO_REP
    }
    pub(super) fn solved(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

#[inline]
pub(super) fn child_rem(rem: u16) -> u16 {
    if rem == INF_LEN {
        INF_LEN
    } else {
        rem.saturating_sub(1)
    }
}

/// One more ply on a length, keeping `INF_LEN` for "unbounded" and finite values below it.
#[inline]
pub(super) fn plus_one(len: u16) -> u16 {
    if len == INF_LEN {
        INF_LEN
    } else {
        (len + 1).min(INF_LEN - 1)
    }
}

#[inline]
pub(super) fn epsilon_threshold(second: u32) -> u32 {
    let t = u64::from(second) + u64::from(second) / 4 + 1;
    t.min(u64::from(INF)) as u32
}

pub(super) struct Aggregate {
    pub(super) pn: u32,
    pub(super) dn: u32,
    /// Index of the child to search next.
    pub(super) best: usize,
    /// The second-best child's number (pn at attacker nodes, dn at defender nodes).
    pub(super) second: u32,
    /// How much of a defender node's pn rides on the best child (its drop group's share).
    pub(super) best_share: u32,
}

pub(super) fn aggregate(or_node: bool, children: &[Child]) -> Aggregate {
    let mut best = 0;
    let mut best_v = INF;
    let mut second = INF;
    let mut sum: u64 = 0;
    if or_node {
        for (i, c) in children.iter().enumerate() {
            if c.pn < best_v {
                second = best_v;
                best_v = c.pn;
                best = i;
            } else if c.pn < second {
                second = c.pn;
            }
            sum += u64::from(c.dn);
        }
        let dn = if children.iter().all(|c| c.dn == 0) {
            0
        } else if children.iter().any(|c| c.dn == INF) {
            INF
        } else {
            sum.min(u64::from(PN_MAX)) as u32
        };
        let pn = if dn == INF { 0 } else { best_v };
        return Aggregate {
            pn,
            dn,
            best,
            second,
            best_share: 0,
        };
    }
    // Defender node: drops on the same square share most of their subtrees, so each square
    // contributes its hardest drop once. (Weak proof numbers, max + count - 1, were also tried:
    // they avoid the blow-up on open, cyclic positions such as a lone rook and bishop chasing a
    // bare king, but needed 4x the nodes on the mates.tsv problems and did no better on
    // Microcosmos, so plain sums stay.)
    let mut drop_max = [0u32; 81];
    for (i, c) in children.iter().enumerate() {
        if c.dn < best_v {
            second = best_v;
            best_v = c.dn;
            best = i;
        } else if c.dn < second {
            second = c.dn;
        }
        // (Grouping every reply by destination, or none, both did worse on Microcosmos tails.)
        if c.mv.is_drop() {
            let s = c.mv.to().index();
            drop_max[s] = drop_max[s].max(c.pn);
        } else {
            sum += u64::from(c.pn);
        }
    }
    sum += drop_max.iter().map(|&v| u64::from(v)).sum::<u64>();
    let any_inf = children.iter().any(|c| c.pn == INF);
    let pn = if children.iter().all(|c| c.pn == 0) {
        0
    } else if any_inf {
        INF
    } else {
        sum.min(u64::from(PN_MAX)) as u32
    };
    let dn = if pn == INF { 0 } else { best_v };
    let best_share = match children.get(best) {
        Some(c) if c.mv.is_drop() => drop_max[c.mv.to().index()],
        Some(c) => c.pn,
        None => 0,
    };
    Aggregate {
        pn,
        dn,
        best,
        second,
        best_share: best_share.min(pn),
    }
}
