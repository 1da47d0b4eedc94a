//! Mate solver (df-pn) for `go mate`.
//!
//! The side to move attacks: it may only give check, the defender may make any legal reply.
//! Solving runs in stages:
//! 1. an unlimited df-pn search decides whether there is a mate at all, and a line is read off
//!    the proof at once (attacker: shortest proven check; defender: longest proven reply);
//! 2. for long lines, budget-limited searches at the line's attacker nodes cut out detours;
//! 3. length-limited searches from the root shrink the proof until no shorter mate exists;
//! 4. the mating line is read off with the defender resisting longest and the attacker mating
//!    fastest, child by child with length-limited searches.
//!
//! Every line is replayed through the rules before it is kept. If the limits end any stage after
//! the first, the solver returns the shortest verified line it has rather than nothing; that line
//! is then a correct mate but possibly not the shortest.
//!
//! Defender replies are every legal move, useless non-promotions included (see `dfpn::mid`).
//! Repetition is judged on the search path only, not on the game history before the root.

mod checks;
mod dfpn;
mod hands;
mod tt;

use checks::checks as checking_moves;

use crate::shogi::movegen::MoveList;
use crate::shogi::{Move, Position, legal_moves};
use dfpn::{Limits, Outcome, PATH_CAP, ROOT_PATH, Search, Shared, path_key};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tt::{INF_LEN, Probe, Table};

/// When to give up.
#[derive(Copy, Clone, Debug, Default)]
pub struct MateLimits {
    pub deadline: Option<Instant>,
    pub max_nodes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// The mating line, attacker's move first; every attacker move checks. When the search
    /// finished, it is the shortest mate with the defender resisting longest. When the limits cut
    /// the shortening short, it is still a forced mate (every defender reply was proven to lose),
    /// but possibly not the shortest, and the defender's replies shown are only the longest by
    /// the solver's bounds.
    Mate(Vec<Move>),
    NoMate,
    Timeout,
}

/// Reported about every 100 ms while solving, and once at the end.
#[derive(Copy, Clone, Debug)]
pub struct MateProgress {
    pub nodes: u64,
    pub elapsed: Duration,
    /// Per mille of the table in use.
    pub hashfull: u32,
}

pub struct MateSolver {
    tt: Table,
}

/// The search recurses once per ply and mate lines can run past a thousand plies, so it runs on
/// a thread of its own with room for `dfpn::MAX_PLY` frames (the memory is reserved, and only
/// committed as deep paths touch it).
const STACK_BYTES: usize = 256 << 20;

impl MateSolver {
    pub fn new(hash_mb: usize) -> Self {
        MateSolver {
            tt: Table::new(hash_mb.max(1)),
        }
    }

    /// Forgets everything learned (e.g. at `usinewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    pub fn table_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    /// Runs until proven/disproven, the deadline passes, the node limit is hit, or `stop` becomes
    /// true. `pos` is left as it was given.
    pub fn solve(
        &mut self,
        pos: &mut Position,
        limits: MateLimits,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(MateProgress),
    ) -> MateResult {
        let start = Instant::now();
        let shared = Shared::default();
        let backup = pos.clone();
        let tt = &mut self.tt;
        let result = std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let worker_pos = &mut *pos;
            let worker_shared = &shared;
            let spawned = std::thread::Builder::new()
                .name("mate".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let r = run(tt, worker_pos, limits, stop, worker_shared);
                    // The receiver may be gone only if the caller panicked; nothing to tell then.
                    let _ = done_tx.send(());
                    r
                });
            let Ok(handle) = spawned else {
                log::warn!("mate: could not start the solver thread");
                return None;
            };
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                done_rx.recv_timeout(Duration::from_millis(100))
            {
                progress(MateProgress {
                    nodes: shared.nodes.load(Ordering::Relaxed),
                    elapsed: start.elapsed(),
                    hashfull: shared.hashfull.load(Ordering::Relaxed),
                });
            }
            handle.join().ok()
        });
        progress(MateProgress {
            nodes: shared.nodes.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            hashfull: self.tt.hashfull(),
        });
        match result {
            Some(r) => r,
            None => {
                // The worker died part-way through a line; give the caller its position back.
                *pos = backup;
                MateResult::Timeout
            }
        }
    }
}

fn run(
    tt: &mut Table,
    pos: &mut Position,
    limits: MateLimits,
    stop: &AtomicBool,
    shared: &Shared,
) -> MateResult {
    let mut s = Search::new(
        tt,
        pos,
        Limits {
            deadline: limits.deadline,
            max_nodes: limits.max_nodes,
            stop,
        },
        shared,
    );
    let out = s.solve_node(pos, INF_LEN, ROOT_PATH);
    s.publish();
    log::debug!(
        "mate: unlimited search pn {} dn {} len {} after {} nodes, deepest path {}",
        out.pn,
        out.dn,
        out.len,
        s.nodes,
        s.max_path
    );
    if out.disproven() {
        return if out.flags & PATH_CAP != 0 {
            MateResult::Timeout
        } else {
            MateResult::NoMate
        };
    }
    if !out.proven() {
        return MateResult::Timeout;
    }

    // A verified line now, so that running out of time later still leaves an answer. The bound
    // that comes with it (a proven upper bound on the shortest mate) is what later stages shrink.
    let mut fallback = greedy_line(&mut s, pos).filter(|(l, _)| verify(pos, l));
    let show = |f: &Option<(Vec<Move>, u16)>| f.as_ref().map(|(l, b)| (l.len(), *b));
    log::debug!(
        "mate: greedy line (plies, bound) {:?} after {} nodes",
        show(&fallback),
        s.nodes
    );
    // Long proofs first get their detours cut locally (cheap, but proves nothing about the
    // shortest); only then does the root-level search for a shorter mate start.
    // Budgets grow fourfold after a pass that finds nothing, since the table keeps the work of
    // the failed attempts and the next pass resumes it.
    let mut scale = 1;
    while let Some((line, bound)) = fallback
        .as_ref()
        .filter(|(l, _)| l.len() > REFINE_ABOVE)
        .cloned()
    {
        if s.aborted || scale > REFINE_MAX_SCALE {
            break;
        }
        if !refine(&mut s, pos, &line, scale) {
            scale *= 4;
            continue;
        }
        if let Some(next) = greedy_line(&mut s, pos).filter(|(l, _)| verify(pos, l))
            && next.1 <= bound
        {
            fallback = Some(next);
        }
        log::debug!(
            "mate: refined line (plies, bound) {:?} after {} nodes",
            show(&fallback),
            s.nodes
        );
    }
    let mut len = out.len;
    if let Some((_, bound)) = &fallback {
        len = len.min(*bound);
    }
    let mut exact = false;
    while !s.aborted {
        if len <= 1 {
            exact = true;
            break;
        }
        let shorter = s.solve_node(pos, len - 2, ROOT_PATH);
        log::debug!(
            "mate: within {}: pn {} dn {} len {} after {} nodes",
            len - 2,
            shorter.pn,
            shorter.dn,
            shorter.len,
            s.nodes
        );
        if shorter.proven() {
            len = shorter.len;
            if let Some(next) = greedy_line(&mut s, pos).filter(|(l, _)| verify(pos, l))
                && fallback.as_ref().is_none_or(|(_, b)| next.1 < *b)
            {
                fallback = Some(next);
            }
        } else if shorter.disproven() {
            exact = true;
        } else {
            break;
        }
        if exact {
            break;
        }
    }
    s.publish();
    log::debug!(
        "mate: shortest {len} (exact {exact}) after {} nodes",
        s.nodes
    );
    if exact && let Some(line) = shortest_line(&mut s, pos, len).filter(|l| verify(pos, l)) {
        return MateResult::Mate(line);
    }
    match fallback {
        Some((line, _)) => MateResult::Mate(line),
        None => {
            log::warn!("mate: proven, but no line could be read off in time");
            MateResult::Timeout
        }
    }
}

/// Lines at most this long go straight to the root-level search for shorter mates.
const REFINE_ABOVE: usize = 31;
/// The largest budget multiplier `refine` is tried with before the root-level search takes over.
const REFINE_MAX_SCALE: u64 = 64;

/// Looks for a shortcut below `line`: at each attacker node of the line, deepest first, a
/// budget-limited search for a mate two or more plies shorter than the line's remainder. Returns
/// whether one was found (the table then holds it, and the next greedy walk uses it).
fn refine(s: &mut Search, pos: &mut Position, line: &[Move], scale: u64) -> bool {
    let mut keys = Vec::with_capacity(line.len());
    let mut pk = ROOT_PATH;
    for &m in line {
        keys.push(pk);
        s.push_path(pos);
        pos.do_move(m);
        pk = path_key(pk, m);
    }
    let mut ply = line.len();
    let mut improved = false;
    while ply > 0 {
        pos.undo_move();
        s.pop_path();
        ply -= 1;
        if improved || s.aborted || ply % 2 == 1 {
            continue;
        }
        let left = (line.len() - ply) as u16;
        if left < 3 {
            continue;
        }
        let budget = scale * (10_000 + 50 * u64::from(left));
        let before = s.nodes;
        let out = s.with_budget(budget, |s| s.solve_node(pos, left - 2, keys[ply]));
        log::trace!(
            "refine ply {ply} left {left}: pn {} dn {} len {} in {} nodes",
            out.pn,
            out.dn,
            out.len,
            s.nodes - before
        );
        improved = out.proven();
    }
    improved
}

/// Replays `line` from `pos`: odd length, every attacker move legal and checking, every defender
/// move legal, and the defender mated at the end.
pub fn verify(pos: &Position, line: &[Move]) -> bool {
    if line.len().is_multiple_of(2) {
        return false;
    }
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if !p.is_legal(m) || (i % 2 == 0 && !p.gives_check(m)) {
            return false;
        }
        p.do_move(m);
    }
    p.in_check() && p.is_mated()
}

/// Walks a line down the proof already in the table: the attacker takes the shortest proven check,
/// the defender the reply with the longest proven mate. Cheap (gaps left by replaced entries are
/// filled by re-searching), but the table's lengths are only upper bounds, so the defender's
/// replies are not proven to resist longest and the line can be shorter than the true shortest
/// forced mate. What is proven is the returned bound: a mate in at most that many plies.
fn greedy_line(s: &mut Search, pos: &mut Position) -> Option<(Vec<Move>, u16)> {
    walk(s, pos, |s, pos, pk, or_node| {
        let mut moves = MoveList::new();
        if or_node {
            checking_moves(pos, &mut moves);
        } else {
            moves = legal_moves(pos);
        }
        // Proven children with their mate lengths; at a defender node all must be proven.
        let mut proven: Vec<(Move, u16)> = Vec::new();
        let mut unknown = Vec::new();
        for &m in &moves {
            pos.do_move(m);
            let cpk = path_key(pk, m);
            let repeats = s.repeats_ancestor(pos);
            let probe = s.probe(pos, cpk, INF_LEN);
            pos.undo_move();
            if repeats {
                if or_node {
                    continue;
                }
                return None;
            }
            match probe {
                Probe::Proven { len, .. } => proven.push((m, len)),
                Probe::Disproven { .. } if !or_node => return None,
                Probe::Disproven { .. } => {}
                _ => unknown.push(m),
            }
        }
        if !or_node || proven.is_empty() {
            for m in unknown {
                pos.do_move(m);
                let out = s.solve_node(pos, INF_LEN, path_key(pk, m));
                pos.undo_move();
                if out.proven() {
                    proven.push((m, out.len));
                    if or_node {
                        break;
                    }
                } else if !or_node {
                    return None;
                }
            }
        }
        if or_node {
            return proven.iter().min_by_key(|&&(_, l)| l).map(|&(m, _)| (m, 0));
        }
        let &(m, _) = proven.iter().max_by_key(|&&(_, l)| l)?;
        // The longest of the replies not taken bounds what the defender could get elsewhere.
        let others = proven
            .iter()
            .filter(|&&(o, _)| o != m)
            .map(|&(_, l)| l)
            .max()
            .unwrap_or(0);
        Some((m, others))
    })
}

/// Reads off the line of a mate known to take exactly `len` plies and no fewer: the attacker's
/// move must leave a mate in `len - 1`, and the defender's reply must leave no mate shorter than
/// the remaining length, which length-limited searches settle child by child.
fn shortest_line(s: &mut Search, pos: &mut Position, len: u16) -> Option<Vec<Move>> {
    let mut left = len;
    walk(s, pos, move |s, pos, pk, or_node| {
        let mut moves = MoveList::new();
        if or_node {
            checking_moves(pos, &mut moves);
        } else {
            moves = legal_moves(pos);
        }
        // Children that the table already answers first: cheap and usually right.
        let mut order: Vec<(u16, Move)> = moves
            .iter()
            .map(|&m| {
                pos.do_move(m);
                let hint = match s.probe(pos, path_key(pk, m), INF_LEN) {
                    Probe::Proven { len, .. } => len,
                    _ => INF_LEN,
                };
                pos.undo_move();
                (hint, m)
            })
            .collect();
        if or_node {
            order.sort_by_key(|&(h, _)| h);
        } else {
            order.sort_by_key(|&(h, _)| std::cmp::Reverse(if h == INF_LEN { 0 } else { h }));
        }
        let chosen = if or_node {
            let need = left.checked_sub(1)?;
            order.iter().map(|&(_, m)| m).find(|&m| {
                pos.do_move(m);
                let ok =
                    !s.repeats_ancestor(pos) && s.solve_node(pos, need, path_key(pk, m)).proven();
                pos.undo_move();
                ok
            })
        } else if left == 2 {
            order.first().map(|&(_, m)| m)
        } else {
            let shorter = left.checked_sub(3)?;
            order.iter().map(|&(_, m)| m).find(|&m| {
                pos.do_move(m);
                let out: Outcome = s.solve_node(pos, shorter, path_key(pk, m));
                pos.undo_move();
                out.disproven()
            })
        };
        if chosen.is_some() {
            left = left.saturating_sub(1);
        }
        // Every other reply is known to mate no later than the chosen one.
        chosen.map(|m| (m, 0))
    })
    .map(|(line, _)| line)
}

/// Plays moves chosen by `choose` from `pos` until the defender is mated, keeping the line on the
/// search's path (so repetitions are seen), then takes them all back. `choose` also returns, at
/// defender nodes, a proven bound on the mate after any reply not chosen; the walk returns the
/// line with the bound on the whole mate that follows from those and the line itself.
fn walk(
    s: &mut Search,
    pos: &mut Position,
    mut choose: impl FnMut(&mut Search, &mut Position, u64, bool) -> Option<(Move, u16)>,
) -> Option<(Vec<Move>, u16)> {
    let base = s.path_len();
    let mut line = Vec::new();
    let mut others = Vec::new();
    let mut pk = ROOT_PATH;
    let result = loop {
        let or_node = pos.side_to_move() == s.attacker;
        if !or_node && pos.is_mated() {
            break Some(());
        }
        if line.len() >= dfpn::MAX_PLY || s.aborted {
            break None;
        }
        let Some((m, other)) = choose(s, pos, pk, or_node) else {
            break None;
        };
        s.push_path(pos);
        pos.do_move(m);
        line.push(m);
        others.push(other);
        pk = path_key(pk, m);
    };
    for _ in &line {
        pos.undo_move();
        s.pop_path();
    }
    debug_assert_eq!(s.path_len(), base);
    result.map(|()| {
        let mut bound: u16 = 0;
        for &other in others.iter().rev() {
            bound = bound.max(other).saturating_add(1);
        }
        (line, bound)
    })
}
