//! Move ordering. Moves are generated legal and whole (most shogi nodes have a hundred or more),
//! scored once, and sorted: hash move, winning captures and promotions, killers and the counter
//! move, quiet moves by history, losing captures last.

use super::history::{Histories, PieceTo};
use super::see::{see_ge, value};
use crate::shogi::{Move, MoveList, Position};

pub const TT_SCORE: i32 = i32::MAX;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 27;
const BAD_CAPTURE: i32 = -(1 << 28);

#[inline]
pub fn piece_to(pos: &Position, m: Move) -> PieceTo {
    pos.moved_piece(m).index() * 81 + m.to().index()
}

#[inline]
pub fn is_capture(pos: &Position, m: Move) -> bool {
    !m.is_drop() && pos.piece_on(m.to()).is_some()
}

pub struct OrderContext<'a> {
    pub tt_move: Move,
    pub killers: [Move; 2],
    pub counter: Move,
    /// Piece-to of the moves 1, 2 and 4 plies back, for continuation histories.
    pub cont: [Option<PieceTo>; 3],
    pub hist: &'a Histories,
}

/// Scores and sorts `moves` in place, best first, returning the scores alongside.
pub fn order(pos: &Position, moves: &MoveList, ctx: &OrderContext) -> Vec<(Move, i32)> {
    let us = pos.side_to_move();
    let mut scored: Vec<(Move, i32)> = moves
        .iter()
        .map(|&m| {
            let score = if m == ctx.tt_move {
                TT_SCORE
            } else if is_capture(pos, m) || m.is_promotion() {
                let victim = pos.piece_on(m.to());
                let vk = if victim.is_some() { victim.kind().index() } else { 0 };
                let mvv = if victim.is_some() { value(victim.kind()) } else { 0 } * 8
                    + if m.is_promotion() { 300 } else { 0 }
                    + ctx.hist.capture(piece_to(pos, m), vk) / 16;
                if see_ge(pos, m, 0) { GOOD_CAPTURE + mvv } else { BAD_CAPTURE + mvv }
            } else if m == ctx.killers[0] {
                KILLER + 2
            } else if m == ctx.killers[1] {
                KILLER + 1
            } else if m == ctx.counter {
                KILLER
            } else {
                let pt = piece_to(pos, m);
                ctx.hist.butterfly(us, m)
                    + ctx.hist.continuation(ctx.cont[0], pt)
                    + ctx.hist.continuation(ctx.cont[1], pt)
                    + ctx.hist.continuation(ctx.cont[2], pt) / 2
            };
            (m, score)
        })
        .collect();
    scored.sort_unstable_by(|a, b| b.1.cmp(&a.1));
    scored
}

/// Captures and promotions for quiescence: most valuable victim first.
pub fn order_tactical(pos: &Position, moves: &MoveList, tt_move: Move) -> Vec<(Move, i32)> {
    let mut scored: Vec<(Move, i32)> = moves
        .iter()
        .map(|&m| {
            let s = if m == tt_move {
                TT_SCORE
            } else {
                let victim = pos.piece_on(m.to());
                let v = if !m.is_drop() && victim.is_some() { value(victim.kind()) } else { 0 };
                v * 16 - value(pos.moved_piece(m).kind()) + if m.is_promotion() { 400 } else { 0 }
            };
            (m, s)
        })
        .collect();
    scored.sort_unstable_by(|a, b| b.1.cmp(&a.1));
    scored
}
