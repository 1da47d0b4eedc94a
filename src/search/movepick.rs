//! Move ordering, in stages so that work is only done when the earlier moves did not refute the
//! node: the hash move before anything is generated; then captures and promotions, winning ones
//! first; then the killers and the counter move; then quiet moves by history; losing captures
//! last. In check every evasion is generated at once and ordered the same way.

use super::history::{Histories, PieceTo};
use crate::game::MAX_MOVES;
use crate::game::{Game, GameMove, MoveList};
use arrayvec::ArrayVec;

/// After this many picks by selection the rest is sorted once: cut-offs usually come early, and
/// nodes that try every move are cheaper to sort than to scan again and again.
const SELECT_FIRST: usize = 3;

pub struct OrderContext<M> {
    pub killers: [M; 2],
    pub counter: M,
    /// Piece-to of the moves 1, 2 and 4 plies back, for continuation histories.
    pub cont: [Option<PieceTo>; 3],
}

#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Every move: the main search.
    Main,
    /// Captures and promotions only: quiescence out of check.
    Tactical,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Stage {
    HashMove,
    GenerateTactical,
    GoodTactical,
    Refutations,
    GenerateQuiet,
    Quiet,
    BadTactical,
    GenerateEvasions,
    Evasions,
    Done,
}

type Scored<M> = ArrayVec<(M, i32), MAX_MOVES>;

pub struct MovePicker<G: Game> {
    kind: Kind,
    stage: Stage,
    tt_move: G::Move,
    moves: Scored<G::Move>,
    bad: ArrayVec<G::Move, MAX_MOVES>,
    refutations: [G::Move; 3],
    next: usize,
    in_check: bool,
}

/// Hands out the best remaining move of `moves[*next..]`: by selection for the first few picks,
/// then from a one-time sort.
#[inline(always)]
fn pick_best<M: Copy>(
    moves: &mut Scored<M>,
    next: &mut usize,
    first_sorted: &mut bool,
) -> Option<M> {
    if *next >= moves.len() {
        return None;
    }
    if *next < SELECT_FIRST {
        let rest = &mut moves[*next..];
        let mut best = 0;
        for i in 1..rest.len() {
            if rest[i].1 > rest[best].1 {
                best = i;
            }
        }
        rest.swap(0, best);
    } else if !*first_sorted {
        moves[*next..].sort_unstable_by_key(|m| std::cmp::Reverse(m.1));
        *first_sorted = true;
    }
    let m = moves[*next].0;
    *next += 1;
    Some(m)
}

impl<G: Game> MovePicker<G> {
    /// `in_check`: `pos.in_check()`, which the caller has already asked (in dai shogi it
    /// looks at every square round each royal).
    pub fn new(pos: &G, tt_move: G::Move, kind: Kind, in_check: bool) -> MovePicker<G> {
        let usable = !tt_move.is_none()
            && pos.is_legal_move(tt_move)
            && (kind == Kind::Main
                || in_check
                || pos.is_capture(tt_move)
                || tt_move.is_promotion());
        let after_hash = if in_check {
            Stage::GenerateEvasions
        } else {
            Stage::GenerateTactical
        };
        MovePicker {
            kind,
            stage: if usable { Stage::HashMove } else { after_hash },
            tt_move: if usable { tt_move } else { G::Move::NONE },
            moves: ArrayVec::new(),
            bad: ArrayVec::new(),
            refutations: [G::Move::NONE; 3],
            next: 0,
            in_check,
        }
    }

    #[inline]
    pub fn next_move(
        &mut self,
        pos: &G,
        hist: &Histories<G>,
        ctx: &OrderContext<G::Move>,
    ) -> Option<G::Move> {
        // Past the first picks of a sorted stage the next move is simply the next in the list:
        // most calls at nodes that try every move, handed out without the full call below.
        if matches!(self.stage, Stage::Quiet | Stage::Evasions)
            && self.next > SELECT_FIRST
            && self.next < self.moves.len()
        {
            self.next += 1;
            return Some(self.moves[self.next - 1].0);
        }
        self.next_move_staged(pos, hist, ctx)
    }

    #[inline(never)]
    fn next_move_staged(
        &mut self,
        pos: &G,
        hist: &Histories<G>,
        ctx: &OrderContext<G::Move>,
    ) -> Option<G::Move> {
        let mut sorted = self.next > SELECT_FIRST;
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = if self.in_check {
                        Stage::GenerateEvasions
                    } else {
                        Stage::GenerateTactical
                    };
                    return Some(self.tt_move);
                }
                Stage::GenerateTactical => {
                    let mut list = MoveList::new();
                    pos.tactical_moves(&mut list);
                    self.score_tactical(pos, hist, &list);
                    self.next = 0;
                    self.stage = Stage::GoodTactical;
                }
                Stage::GoodTactical => {
                    while let Some(m) = pick_best(&mut self.moves, &mut self.next, &mut sorted) {
                        if self.kind == Kind::Main && !pos.see_ge(m, 0) {
                            self.bad.push(m);
                            continue;
                        }
                        return Some(m);
                    }
                    if self.kind == Kind::Tactical {
                        self.stage = Stage::Done;
                        continue;
                    }
                    self.refutations = [ctx.killers[0], ctx.killers[1], ctx.counter];
                    self.next = 0;
                    self.stage = Stage::Refutations;
                }
                Stage::Refutations => {
                    while self.next < 3 {
                        let m = self.refutations[self.next];
                        self.next += 1;
                        let fresh = !m.is_none()
                            && m != self.tt_move
                            && !self.refutations[..self.next - 1].contains(&m)
                            && !m.is_promotion()
                            && !pos.is_capture(m)
                            && pos.is_legal_move(m)
                            && !pos.is_useless_non_promotion(m);
                        if fresh {
                            return Some(m);
                        }
                    }
                    self.stage = Stage::GenerateQuiet;
                }
                Stage::GenerateQuiet => {
                    let mut list = MoveList::new();
                    pos.quiet_moves(&mut list);
                    self.score_by_history::<false>(pos, hist, ctx, &list);
                    self.start_picking(Stage::Quiet, &mut sorted);
                }
                Stage::Quiet | Stage::Evasions => {
                    if let Some(m) = pick_best(&mut self.moves, &mut self.next, &mut sorted) {
                        return Some(m);
                    }
                    // After the quiet moves come the losing captures; evasions are all.
                    self.next = 0;
                    self.stage = if self.stage == Stage::Quiet {
                        Stage::BadTactical
                    } else {
                        Stage::Done
                    };
                }
                Stage::BadTactical => {
                    if self.next < self.bad.len() {
                        self.next += 1;
                        return Some(self.bad[self.next - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenerateEvasions => {
                    let mut list = MoveList::new();
                    pos.evasions(&mut list);
                    self.score_by_history::<true>(pos, hist, ctx, &list);
                    self.start_picking(Stage::Evasions, &mut sorted);
                }
                Stage::Done => return None,
            }
        }
    }

    /// The picking stage `stage` begins on the moves just scored, unsorted, from the first.
    fn start_picking(&mut self, stage: Stage, sorted: &mut bool) {
        self.next = 0;
        *sorted = false;
        self.stage = stage;
    }

    /// Scores `list` by history into `moves`, leaving out the hash move and the refutations
    /// already tried. Evasions (`EVASIONS`) mix tactical and quiet moves: their captures and
    /// promotions go first, by value. Kept out of line: inlined, the compiler looks the history
    /// rows up at every call of `next_move`.
    #[inline(never)]
    fn score_by_history<const EVASIONS: bool>(
        &mut self,
        pos: &G,
        hist: &Histories<G>,
        ctx: &OrderContext<G::Move>,
        list: &MoveList<G::Move>,
    ) {
        self.moves.clear();
        let score = QuietScore::new(pos, hist, ctx);
        for &m in list.iter() {
            if m == self.tt_move || self.refutations.contains(&m) {
                continue;
            }
            let s = if EVASIONS && (pos.is_capture(m) || m.is_promotion()) {
                (1 << 24) + tactical_score(pos, m)
            } else {
                score.of(pos, m)
            };
            self.moves.push((m, s));
        }
    }

    fn score_tactical(&mut self, pos: &G, hist: &Histories<G>, list: &MoveList<G::Move>) {
        self.moves.clear();
        for &m in list.iter() {
            if m == self.tt_move {
                continue;
            }
            let mut s = tactical_score(pos, m);
            if self.kind == Kind::Main {
                let vk = pos.captured_kind_index(m);
                s += hist.capture(pos.piece_to(m), vk) / 16;
            }
            self.moves.push((m, s));
        }
    }
}

/// Most valuable victim first, cheapest attacker first among equals; promotions count too.
#[inline]
fn tactical_score<G: Game>(pos: &G, m: G::Move) -> i32 {
    pos.captured_value(m) * 16 - pos.moved_value(m) + if m.is_promotion() { 400 } else { 0 }
}

/// A quiet move's history: its butterfly entry and its continuation entries after the moves 1,
/// 2 and 4 plies back (the last at half weight). The rows are looked up once per node.
struct QuietScore<'a> {
    butterfly: &'a [i16],
    cont: [&'a [i16]; 3],
}

impl<'a> QuietScore<'a> {
    #[inline]
    fn new<G: Game>(pos: &G, hist: &'a Histories<G>, ctx: &OrderContext<G::Move>) -> Self {
        QuietScore {
            butterfly: hist.butterfly_row(pos.side_to_move()),
            cont: ctx.cont.map(|c| hist.continuation_row(c)),
        }
    }

    #[inline(always)]
    fn of<G: Game>(&self, pos: &G, m: G::Move) -> i32 {
        let pt = pos.piece_to(m);
        self.butterfly[G::butterfly_index(m)] as i32
            + self.cont[0][pt] as i32
            + self.cont[1][pt] as i32
            + self.cont[2][pt] as i32 / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Position;

    /// Along random games with random histories, killers and hash moves: the picker hands out
    /// every search move exactly once, the tactical moves of an evasion before its quiet ones,
    /// and the quiet moves in order of their history score, read here entry by entry.
    #[test]
    fn picks_every_move_once_and_quiet_moves_by_history() {
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1d);
        let mut hist = Histories::<Position>::new();
        let mut pos = Position::startpos();
        let mut checked_quiet_runs = 0;
        for _ in 0..600 {
            let mut search = MoveList::new();
            pos.search_moves(&mut search);
            if search.is_empty() || pos.game_ply() > 200 {
                pos = Position::startpos();
                continue;
            }
            let mut pick = |n: u64| (next() % n) as usize;
            let any_move = |pick: &mut dyn FnMut(u64) -> usize| {
                if pick(4) == 0 {
                    <Position as Game>::Move::NONE
                } else {
                    search[pick(search.len() as u64)]
                }
            };
            let us = pos.side_to_move();
            let cont = [0, 1, 2]
                .map(|_| (pick(5) != 0).then(|| pick(<Position as Game>::PIECE_TO as u64)));
            for &m in search.iter() {
                hist.update_butterfly(us, m, pick(8001) as i32 - 4000);
                for c in cont {
                    hist.update_continuation(c, pos.piece_to(m), pick(8001) as i32 - 4000);
                }
            }
            let ctx = OrderContext {
                killers: [any_move(&mut pick), any_move(&mut pick)],
                counter: any_move(&mut pick),
                cont,
            };
            let tt_move = any_move(&mut pick);
            let in_check = pos.in_check();

            let mut picker = MovePicker::new(&pos, tt_move, Kind::Main, in_check);
            let mut got = Vec::new();
            while let Some(m) = picker.next_move(&pos, &hist, &ctx) {
                got.push(m);
            }
            let mut want: Vec<_> = search.iter().copied().collect();
            let mut sorted_got = got.clone();
            want.sort_by_key(|m| m.bits());
            sorted_got.sort_by_key(|m| m.bits());
            assert_eq!(sorted_got, want, "{}", pos.to_sfen());

            let score = |m| {
                let pt = pos.piece_to(m);
                hist.butterfly(us, m)
                    + hist.continuation(cont[0], pt)
                    + hist.continuation(cont[1], pt)
                    + hist.continuation(cont[2], pt) / 2
            };
            let tactical = |m: <Position as Game>::Move| pos.is_capture(m) || m.is_promotion();
            // The moves handed out by the history stage: after the hash move and, out of check,
            // the killers and the counter move.
            let ordered: Vec<_> = got
                .iter()
                .copied()
                .filter(|&m| {
                    m != tt_move
                        && !tactical(m)
                        && (in_check || ![ctx.killers[0], ctx.killers[1], ctx.counter].contains(&m))
                })
                .collect();
            for w in ordered.windows(2) {
                assert!(score(w[0]) >= score(w[1]), "{}", pos.to_sfen());
            }
            checked_quiet_runs += usize::from(ordered.len() > SELECT_FIRST + 2);
            if in_check {
                let first_quiet = got.iter().position(|&m| m != tt_move && !tactical(m));
                let last_tactical = got.iter().rposition(|&m| m != tt_move && tactical(m));
                if let (Some(q), Some(t)) = (first_quiet, last_tactical) {
                    assert!(t < q, "{}", pos.to_sfen());
                }
            }
            pos.do_move(search[pick(search.len() as u64)]);
        }
        assert!(checked_quiet_runs > 300, "{checked_quiet_runs}");
    }
}
