//! Move-ordering statistics learnt during the search: which quiet moves caused cut-offs, on their
//! own (butterfly), after a given previous move (continuation), and which captures worked.

use crate::shogi::{Color, Move};

/// Entries move towards a bonus by a fraction of the distance, so they stay within ±LIMIT.
const LIMIT: i32 = 16384;

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let b = bonus.clamp(-LIMIT, LIMIT);
    let e = *entry as i32;
    *entry = (e + b - e * b.abs() / LIMIT) as i16;
}

/// Index of a move's origin for the butterfly table: the square, or 81 + kind for drops.
#[inline]
pub fn from_index(m: Move) -> usize {
    if m.is_drop() {
        81 + m.dropped().index()
    } else {
        m.from().index()
    }
}

/// Index of (piece, destination), the key of continuation histories and counter moves.
pub type PieceTo = usize;
pub const PIECE_TO: usize = 32 * 81;

pub struct Histories {
    butterfly: Vec<i16>,    // [color][from 96][to 81]
    continuation: Vec<i16>, // [previous piece-to][piece-to]
    capture: Vec<i16>,      // [piece-to][captured kind 16]
    pub counter: Vec<Move>, // [previous piece-to]
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: vec![0; 2 * 96 * 81],
            continuation: vec![0; PIECE_TO * PIECE_TO],
            capture: vec![0; PIECE_TO * 16],
            counter: vec![Move::NONE; PIECE_TO],
        })
    }

    #[inline]
    pub fn butterfly(&self, c: Color, m: Move) -> i32 {
        self.butterfly[(c.index() * 96 + from_index(m)) * 81 + m.to().index()] as i32
    }

    #[inline]
    pub fn update_butterfly(&mut self, c: Color, m: Move, bonus: i32) {
        gravity(
            &mut self.butterfly[(c.index() * 96 + from_index(m)) * 81 + m.to().index()],
            bonus,
        );
    }

    #[inline]
    pub fn continuation(&self, prev: Option<PieceTo>, cur: PieceTo) -> i32 {
        match prev {
            Some(p) => self.continuation[p * PIECE_TO + cur] as i32,
            None => 0,
        }
    }

    #[inline]
    pub fn update_continuation(&mut self, prev: Option<PieceTo>, cur: PieceTo, bonus: i32) {
        if let Some(p) = prev {
            gravity(&mut self.continuation[p * PIECE_TO + cur], bonus);
        }
    }

    #[inline]
    pub fn capture(&self, cur: PieceTo, captured: usize) -> i32 {
        self.capture[cur * 16 + captured] as i32
    }

    #[inline]
    pub fn update_capture(&mut self, cur: PieceTo, captured: usize, bonus: i32) {
        gravity(&mut self.capture[cur * 16 + captured], bonus);
    }
}

/// Bonus for a move that caused a cut-off at `depth`.
#[inline]
pub fn stat_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + depth * 32).min(2400)
}
