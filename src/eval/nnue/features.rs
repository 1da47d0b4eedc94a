//! The network's inputs: every piece on the board by owner, kind and square, and every piece in
//! hand as a slot ("the k-th pawn in hand"), each seen from one side's point of view. From White's
//! side the board is rotated 180 degrees and the owners swap, so one weight matrix serves both.
//! With the full set of 40 pieces exactly 40 inputs are on per perspective.

use crate::shogi::{Color, Move, PieceType, Position, Square};

/// Board kinds in input order: the 14 kinds of `PieceType` (index 1..=14) map to 0..14.
pub const KINDS: usize = 14;
const BOARD_INPUTS: usize = 2 * KINDS * Square::NUM;
/// Slots per hand kind, in `PieceType::HAND` order (P L N S B R G).
const HAND_SLOTS: [usize; 7] = [18, 4, 4, 4, 2, 2, 4];
const HAND_INPUTS_PER_SIDE: usize = 38;
/// Offset of each hand kind's first slot, indexed by `PieceType` value (0 unused).
const HAND_OFFSET: [usize; 8] = [0, 0, 18, 22, 26, 30, 32, 34];
pub const INPUTS: usize = BOARD_INPUTS + 2 * HAND_INPUTS_PER_SIDE;
/// Inputs on at most, per perspective: one per piece.
pub const MAX_ACTIVE: usize = 40;

#[inline]
fn relative(perspective: Color, owner: Color) -> usize {
    usize::from(perspective != owner)
}

/// Input of a piece of `owner` and `kind` on `sq`, seen by `perspective`.
#[inline]
pub fn board_input(perspective: Color, owner: Color, kind: PieceType, sq: Square) -> usize {
    let sq = if perspective == Color::Black {
        sq
    } else {
        sq.flip()
    };
    (relative(perspective, owner) * KINDS + kind.index() - 1) * Square::NUM + sq.index()
}

/// Input of the `slot`-th (from 0) piece of `kind` in `owner`'s hand, seen by `perspective`.
#[inline]
pub fn hand_input(perspective: Color, owner: Color, kind: PieceType, slot: u32) -> usize {
    let k = kind.index();
    let slot = (slot as usize).min(HAND_SLOTS[k - 1] - 1);
    BOARD_INPUTS + relative(perspective, owner) * HAND_INPUTS_PER_SIDE + HAND_OFFSET[k] + slot
}

/// Every input that is on in `pos` from `perspective`.
pub fn active(pos: &Position, perspective: Color, mut f: impl FnMut(usize)) {
    for owner in Color::ALL {
        let mut bb = pos.pieces_of(owner);
        while let Some(sq) = bb.pop() {
            f(board_input(perspective, owner, pos.piece_on(sq).kind(), sq));
        }
        let hand = pos.hand(owner);
        for kind in PieceType::HAND {
            for slot in 0..hand.count(kind) {
                f(hand_input(perspective, owner, kind, slot));
            }
        }
    }
}

/// The inputs that the last move of `pos` turned off and on, for `perspective`. At most two of
/// each: the moved piece leaves its square (or its hand slot) and arrives, and a captured piece
/// leaves the board and fills a hand slot. `None` when the position has no last move.
pub fn changes(pos: &Position, perspective: Color) -> Option<Changes> {
    let m: Move = pos.last_move();
    if m.is_none() {
        return None;
    }
    let to = m.to();
    let moved = pos.piece_on(to);
    let us = moved.color();
    let mut c = Changes::default();
    if m.is_drop() {
        let kind = m.dropped();
        c.off(hand_input(perspective, us, kind, pos.hand(us).count(kind)));
        c.on(board_input(perspective, us, kind, to));
    } else {
        let before = if m.is_promotion() {
            moved.kind().unpromote()
        } else {
            moved.kind()
        };
        c.off(board_input(perspective, us, before, m.from()));
        c.on(board_input(perspective, us, moved.kind(), to));
        let captured = pos.captured_piece();
        if captured.is_some() {
            c.off(board_input(
                perspective,
                captured.color(),
                captured.kind(),
                to,
            ));
            let kind = captured.kind().unpromote();
            c.on(hand_input(
                perspective,
                us,
                kind,
                pos.hand(us).count(kind) - 1,
            ));
        }
    }
    Some(c)
}

#[derive(Default, Debug, Clone, Copy)]
pub struct Changes {
    pub removed: [usize; 2],
    pub added: [usize; 2],
    pub n_removed: usize,
    pub n_added: usize,
}

impl Changes {
    fn off(&mut self, i: usize) {
        self.removed[self.n_removed] = i;
        self.n_removed += 1;
    }
    fn on(&mut self, i: usize) {
        self.added[self.n_added] = i;
        self.n_added += 1;
    }
}

/// The same input seen by the other side: board rotated, owners swapped. Used by the trainer,
/// which stores one perspective and derives the other.
pub fn flip_input(i: usize) -> usize {
    if i < BOARD_INPUTS {
        let (rel_kind, sq) = (i / Square::NUM, i % Square::NUM);
        let (rel, kind) = (rel_kind / KINDS, rel_kind % KINDS);
        ((1 - rel) * KINDS + kind) * Square::NUM + (Square::NUM - 1 - sq)
    } else {
        let j = i - BOARD_INPUTS;
        let (rel, slot) = (j / HAND_INPUTS_PER_SIDE, j % HAND_INPUTS_PER_SIDE);
        BOARD_INPUTS + (1 - rel) * HAND_INPUTS_PER_SIDE + slot
    }
}

/// The same input with the board mirrored left to right (file f becomes file 10 - f): shogi's
/// rules are symmetric that way, so a mirrored position is an equally valid training sample.
pub fn mirror_input(i: usize) -> usize {
    if i < BOARD_INPUTS {
        let (rest, sq) = (i / Square::NUM, i % Square::NUM);
        let (file0, rank0) = (sq / 9, sq % 9);
        rest * Square::NUM + (8 - file0) * 9 + rank0
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::legal_moves;

    #[test]
    fn inputs_are_distinct_and_in_range_and_forty_in_a_full_set() {
        let pos = Position::from_sfen(
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR2Ps 1",
        )
        .unwrap();
        let on_board = pos.occupied().count() as usize;
        let in_hand = (pos.hand(Color::Black).total() + pos.hand(Color::White).total()) as usize;
        for p in Color::ALL {
            let mut seen = vec![false; INPUTS];
            let mut n = 0;
            active(&pos, p, |i| {
                assert!(i < INPUTS);
                assert!(!seen[i], "{i} twice");
                seen[i] = true;
                n += 1;
            });
            assert_eq!(n, on_board + in_hand);
        }
        let mut n = 0;
        active(&Position::startpos(), Color::White, |_| n += 1);
        assert_eq!(n, MAX_ACTIVE);
    }

    #[test]
    fn flip_maps_one_perspective_onto_the_other_and_mirror_is_an_involution() {
        let mut pos = Position::startpos();
        let mut rng = crate::tune::selfplay::Rng(3);
        for _ in 0..120 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
            let mut black = Vec::new();
            let mut white = Vec::new();
            active(&pos, Color::Black, |i| black.push(flip_input(i)));
            active(&pos, Color::White, |i| white.push(i));
            black.sort_unstable();
            white.sort_unstable();
            assert_eq!(black, white, "{}", pos.to_sfen());
            for i in 0..INPUTS {
                assert_eq!(mirror_input(mirror_input(i)), i);
                assert_eq!(flip_input(flip_input(i)), i);
            }
        }
    }
}
