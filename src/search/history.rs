//! Move-ordering statistics learnt during the search: which quiet moves caused cut-offs, on their
//! own (butterfly), after a given previous move (continuation), and which captures worked.

use super::params::Params;
use crate::game::Color;
use crate::game::{Game, GameMove};

/// Entries move towards a bonus by a fraction of the distance, so they stay within ±LIMIT.
const LIMIT: i32 = 16384;

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let b = bonus.clamp(-LIMIT, LIMIT);
    let e = *entry as i32;
    *entry = (e + b - e * b.abs() / LIMIT) as i16;
}

/// Index of (piece, destination), the key of continuation histories and counter moves
/// ([`Game::piece_to`]).
pub type PieceTo = usize;

/// Sizes come from the game ([`Game::BUTTERFLY`], [`Game::PIECE_TO`]), so each board gets
/// tables of its own size.
pub struct Histories<G: Game> {
    butterfly: Vec<i16>,       // [color][butterfly index]
    continuation: Vec<i16>,    // [previous piece-to][piece-to]
    no_continuation: Vec<i16>, // [piece-to], all zero: the row of a node without that move
    capture: Vec<i16>,         // [piece-to][captured kind 16]
    pub counter: Vec<G::Move>, // [previous piece-to]
    correction: Vec<i16>,      // [table 2][color][CORRECTION_SIZE]
}

/// Entries per colour in each correction table (indexed by the low bits of a key).
const CORRECTION_SIZE: usize = 16384;
/// Correction entries stay within ±CORRECTION_LIMIT; a table's correction is entry / 8.
pub(crate) const CORRECTION_LIMIT: i32 = 1024;

impl<G: Game> Histories<G> {
    pub fn new() -> Box<Histories<G>> {
        Box::new(Histories {
            butterfly: vec![0; 2 * G::BUTTERFLY],
            continuation: vec![0; G::PIECE_TO * G::PIECE_TO],
            no_continuation: vec![0; G::PIECE_TO],
            capture: vec![0; G::PIECE_TO * 16],
            counter: vec![G::Move::NONE; G::PIECE_TO],
            correction: vec![0; 2 * 2 * CORRECTION_SIZE],
        })
    }

    #[inline]
    pub fn butterfly(&self, c: Color, m: G::Move) -> i32 {
        self.butterfly[c.index() * G::BUTTERFLY + G::butterfly_index(m)] as i32
    }

    /// Side `c`'s butterfly entries, indexed by [`Game::butterfly_index`].
    #[inline]
    pub fn butterfly_row(&self, c: Color) -> &[i16] {
        &self.butterfly[c.index() * G::BUTTERFLY..(c.index() + 1) * G::BUTTERFLY]
    }

    #[inline]
    pub fn update_butterfly(&mut self, c: Color, m: G::Move, bonus: i32) {
        gravity(
            &mut self.butterfly[c.index() * G::BUTTERFLY + G::butterfly_index(m)],
            bonus,
        );
    }

    #[inline]
    pub fn continuation(&self, prev: Option<PieceTo>, cur: PieceTo) -> i32 {
        match prev {
            Some(p) => self.continuation[p * G::PIECE_TO + cur] as i32,
            None => 0,
        }
    }

    /// The continuation row that follows `prev`, or a row of zeros where there is none: what
    /// move ordering reads for every quiet move of a node, found once per node.
    #[inline]
    pub fn continuation_row(&self, prev: Option<PieceTo>) -> &[i16] {
        match prev {
            Some(p) => &self.continuation[p * G::PIECE_TO..(p + 1) * G::PIECE_TO],
            None => &self.no_continuation,
        }
    }

    #[inline]
    pub fn update_continuation(&mut self, prev: Option<PieceTo>, cur: PieceTo, bonus: i32) {
        if let Some(p) = prev {
            gravity(&mut self.continuation[p * G::PIECE_TO + cur], bonus);
        }
    }

    fn correction_slots(c: Color, keys: [u64; 2]) -> [usize; 2] {
        let slot = |t: usize| (t * 2 + c.index()) * CORRECTION_SIZE;
        [
            slot(0) + (keys[0] as usize) % CORRECTION_SIZE,
            slot(1) + (keys[1] as usize) % CORRECTION_SIZE,
        ]
    }

    /// What the static evaluation of a position with these keys has been off by, on average,
    /// in the searches of similar positions (pawn structure, hands) so far.
    #[inline]
    pub fn correction(&self, c: Color, keys: [u64; 2]) -> i32 {
        Self::correction_slots(c, keys)
            .iter()
            .map(|&i| self.correction[i] as i32 / 8)
            .sum()
    }

    /// Moves the corrections towards `error` (search result minus static evaluation), by more
    /// the deeper the search that found it.
    pub fn update_correction(&mut self, c: Color, keys: [u64; 2], error: i32, depth: i32) {
        let b = (error * depth / 8).clamp(-CORRECTION_LIMIT / 4, CORRECTION_LIMIT / 4);
        for i in Self::correction_slots(c, keys) {
            let e = self.correction[i] as i32;
            self.correction[i] = (e + b - e * b.abs() / CORRECTION_LIMIT) as i16;
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
pub fn stat_bonus(p: &Params, depth: i32) -> i32 {
    (depth * depth * p.bonus_quad + depth * p.bonus_lin).min(p.bonus_max)
}
