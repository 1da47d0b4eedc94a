//! A mate search for dai shogi: proof-number search (df-pn) over attacks on a lone royal.
//!
//! A dai check forces nothing in general: no move is illegal, and a side with a second royal
//! can let one go. But a side down to one royal that leaves it attacked loses it to the next
//! move, so against a lone royal an attack is as forcing as a check in standard shogi. The
//! attacker's moves here are those that take the last royal or attack it; the defender's are
//! every move after which its royal is no longer attacked (or which takes the attacker's last
//! royal, a refutation). A defender without such a move is mated.
//!
//! A proof holds whatever the attacker's other moves: the attacker needs one, the defender's
//! every move is searched. Only positions count, not paths: the table is keyed by the
//! position's key, so where the repetition rule (which makes moves illegal by the path) takes
//! a move away on one path and not on another, an answer can be off; a position repeated on
//! the search's own path counts as a failed attack. The search answers the move to play (the
//! driver's safety test), where a rare wrong answer costs one move choice, not the game.
//!
//! Its speed on a 2-core machine: about 130,000 nodes a second; the wins that HaChu found
//! against kirin took it 1 to 600 nodes.

use super::{GenType, Move, Position};
use std::collections::HashMap;

const INFINITE: u32 = u32::MAX / 4;

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A forced capture of the last royal; the moves of one proof, the attacker's first.
    Mate(Vec<Move>),
    /// No mate within the depth.
    NoMate,
    /// The node budget ran out first.
    Unknown,
}

#[derive(Clone, Copy)]
struct Entry {
    pn: u32,
    dn: u32,
}

pub struct MateSearch {
    table: HashMap<u64, Entry>,
    nodes: u64,
    limit: u64,
    max_depth: u32,
    path: Vec<u64>,
}

/// A node settled without searching its children.
enum Settled {
    /// The attacker takes the last royal with this move.
    RoyalFalls(Move),
    /// The defender takes the attacker's last royal.
    AttackerFalls,
}

/// Whether `m` takes a royal.
fn takes_royal(pos: &Position, m: Move) -> bool {
    pos.captured_pieces(m)
        .iter()
        .any(|p| p.kind().is_some_and(|k| k.is_royal()))
}

impl MateSearch {
    /// A search of at most `limit` nodes and `max_depth` plies.
    pub fn new(limit: u64, max_depth: u32) -> MateSearch {
        MateSearch {
            table: HashMap::new(),
            nodes: 0,
            limit,
            max_depth,
            path: Vec::new(),
        }
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches for a mate by the side to move.
    pub fn solve(&mut self, pos: &mut Position) -> MateResult {
        let attacker = pos.side_to_move();
        if pos.royals(attacker.flip()) != 1 || pos.royals(attacker) == 0 {
            return MateResult::NoMate;
        }
        let (pn, _) = self.mid(pos, INFINITE - 1, INFINITE - 1, true, 0);
        if pn == 0 {
            MateResult::Mate(self.proof(pos))
        } else if self.nodes >= self.limit {
            MateResult::Unknown
        } else {
            MateResult::NoMate
        }
    }

    /// The children of a node: for the attacker its attacking moves, for the defender the
    /// moves that save its royal. `Err` is a node settled without them; `Ok(vec![])` at a
    /// defender's node is a mate.
    fn children(&self, pos: &mut Position, attacker_to_move: bool) -> Result<Vec<Move>, Settled> {
        let mut moves = Vec::with_capacity(256);
        pos.generate(GenType::All, &mut moves);
        let us = pos.side_to_move();
        if attacker_to_move {
            if let Some(&m) = moves.iter().find(|&&m| takes_royal(pos, m)) {
                return Err(Settled::RoyalFalls(m));
            }
            moves.retain(|&m| pos.gives_check(m));
            Ok(moves)
        } else {
            let mut saving = Vec::with_capacity(moves.len());
            for &m in &moves {
                if takes_royal(pos, m) && pos.royals(us.flip()) == 1 {
                    return Err(Settled::AttackerFalls);
                }
                pos.do_move(m);
                let safe = pos.royals(us) > 0 && !pos.royal_attacked_of(us);
                pos.undo_move();
                if safe {
                    saving.push(m);
                }
            }
            Ok(saving)
        }
    }

    fn lookup(&self, key: u64) -> Entry {
        self.table
            .get(&key)
            .copied()
            .unwrap_or(Entry { pn: 1, dn: 1 })
    }

    /// Multiple iterative deepening: expands the node until its numbers pass the thresholds.
    /// Returns (proof number, disproof number) of the node from the attacker's side.
    fn mid(
        &mut self,
        pos: &mut Position,
        th_pn: u32,
        th_dn: u32,
        or: bool,
        depth: u32,
    ) -> (u32, u32) {
        self.nodes += 1;
        let key = pos.key();
        let children = match self.children(pos, or) {
            Err(Settled::RoyalFalls(_)) => return self.store(key, 0, INFINITE),
            Err(Settled::AttackerFalls) => return self.store(key, INFINITE, 0),
            Ok(c) => c,
        };
        if children.is_empty() {
            // The attacker has no attack left, or the defender no saving move.
            return if or {
                self.store(key, INFINITE, 0)
            } else {
                self.store(key, 0, INFINITE)
            };
        }
        if depth >= self.max_depth {
            // Not stored: deeper in another line it may be proven.
            return (INFINITE, 0);
        }
        self.path.push(key);
        let mut keys = Vec::with_capacity(children.len());
        for &m in &children {
            pos.do_move(m);
            keys.push(pos.key());
            pos.undo_move();
        }
        // What each child's own search returned: a disproof by the depth limit is not in the
        // table, since elsewhere the same position may have the depth it needs.
        let mut returned: Vec<Option<Entry>> = vec![None; children.len()];
        loop {
            // From the side to move's view: `a` is the number to minimise, `b` the sum.
            let mut best = 0;
            let (mut a_min, mut a2, mut b_sum) = (INFINITE, INFINITE, 0u32);
            for (i, &k) in keys.iter().enumerate() {
                let e = if self.path.contains(&k) {
                    // A repetition on the path proves nothing for the attacker.
                    Entry {
                        pn: INFINITE,
                        dn: 0,
                    }
                } else {
                    returned[i].unwrap_or_else(|| self.lookup(k))
                };
                let (a, b) = if or { (e.pn, e.dn) } else { (e.dn, e.pn) };
                if a < a_min {
                    a2 = a_min;
                    a_min = a;
                    best = i;
                } else if a < a2 {
                    a2 = a;
                }
                b_sum = (b_sum + b).min(INFINITE);
            }
            let (pn, dn) = if or { (a_min, b_sum) } else { (b_sum, a_min) };
            let (th_a, th_b) = if or { (th_pn, th_dn) } else { (th_dn, th_pn) };
            if a_min >= th_a || b_sum >= th_b || self.nodes >= self.limit {
                self.path.pop();
                return self.store(key, pn, dn);
            }
            let child = returned[best].unwrap_or_else(|| self.lookup(keys[best]));
            let child_b = if or { child.dn } else { child.pn };
            let next_a = th_a.min(a2.saturating_add(1));
            let next_b = (th_b - b_sum).saturating_add(child_b).min(INFINITE - 1);
            let (c_pn, c_dn) = if or {
                (next_a, next_b)
            } else {
                (next_b, next_a)
            };
            pos.do_move(children[best]);
            let (pn, dn) = self.mid(pos, c_pn, c_dn, !or, depth + 1);
            pos.undo_move();
            returned[best] = Some(Entry { pn, dn });
        }
    }

    fn store(&mut self, key: u64, pn: u32, dn: u32) -> (u32, u32) {
        self.table.insert(key, Entry { pn, dn });
        (pn, dn)
    }

    /// One proof's moves, following proven children (the attacker's first proven one, the
    /// defender's first saving one).
    fn proof(&mut self, pos: &mut Position) -> Vec<Move> {
        let mut line = Vec::new();
        let mut played = 0;
        let mut or = true;
        for _ in 0..self.max_depth {
            let children = match self.children(pos, or) {
                Err(Settled::RoyalFalls(m)) => {
                    line.push(m);
                    break;
                }
                Err(Settled::AttackerFalls) => break,
                Ok(c) => c,
            };
            let next = if or {
                children.iter().copied().find(|&m| {
                    pos.do_move(m);
                    let proven = self.lookup(pos.key()).pn == 0;
                    pos.undo_move();
                    proven
                })
            } else {
                children.first().copied()
            };
            let Some(m) = next else { break };
            pos.do_move(m);
            played += 1;
            line.push(m);
            or = !or;
        }
        for _ in 0..played {
            pos.undo_move();
        }
        line
    }
}
