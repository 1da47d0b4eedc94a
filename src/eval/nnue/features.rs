//! The network's inputs: every piece on the board by owner, kind and square, and every piece in
//! hand as a slot ("the k-th pawn in hand"), each seen from one side's point of view and placed
//! in the block of that side's king bucket (where its own king stands, in `KING_BUCKETS`
//! regions), so that the network can value a piece by where it stands against its own king.
//! From White's side the board is rotated 180 degrees and the owners swap, so one weight matrix
//! serves both. With the full set of 40 pieces exactly 40 inputs are on per perspective.

use crate::shogi::{Color, Move, PieceType, Position, Square};

/// Board kinds in input order: the 14 kinds of `PieceType` (index 1..=14) map to 0..14.
pub const KINDS: usize = 14;
const BOARD_INPUTS: usize = 2 * KINDS * Square::NUM;
/// Slots per hand kind, in `PieceType::HAND` order (P L N S B R G).
const HAND_SLOTS: [usize; 7] = [18, 4, 4, 4, 2, 2, 4];
const HAND_INPUTS_PER_SIDE: usize = 38;
/// Offset of each hand kind's first slot, indexed by `PieceType` value (0 unused).
const HAND_OFFSET: [usize; 8] = [0, 0, 18, 22, 26, 30, 32, 34];
/// Inputs of one king bucket: the board and both hands.
pub const BUCKET_INPUTS: usize = BOARD_INPUTS + 2 * HAND_INPUTS_PER_SIDE;
/// Regions of the own king's square (seen from its owner's side): the left, centre and right
/// three files, times the back rank, the second rank, the third rank and the rest of the board
/// (a king that has left its camp). Castles differ in exactly these terms, and a region keeps
/// enough positions per weight for the data a few rounds of self-play give.
pub const KING_BUCKETS: usize = 12;
pub const INPUTS: usize = KING_BUCKETS * BUCKET_INPUTS;
/// Inputs on at most, per perspective: one per piece.
pub const MAX_ACTIVE: usize = 40;

#[inline]
fn relative(perspective: Color, owner: Color) -> usize {
    usize::from(perspective != owner)
}

/// The square as `perspective` sees it: White's view is the board rotated.
#[inline]
fn seen(perspective: Color, sq: Square) -> Square {
    if perspective == Color::Black {
        sq
    } else {
        sq.flip()
    }
}

/// The king bucket of a king on `sq` (in its owner's view), by file group and rank group.
#[inline]
fn bucket_of_square(sq: usize) -> usize {
    const FILE_GROUP: [usize; 9] = [0, 0, 0, 1, 1, 1, 2, 2, 2];
    const RANK_GROUP: [usize; 9] = [3, 3, 3, 3, 3, 3, 2, 1, 0];
    let (file0, rank0) = (sq / 9, sq % 9);
    RANK_GROUP[rank0] * 3 + FILE_GROUP[file0]
}

/// The block of inputs `perspective` uses in `pos`: its own king's bucket. A position without
/// that king (a mate problem's attacker) uses the bucket of the king's home square.
#[inline]
pub fn king_bucket(pos: &Position, perspective: Color) -> usize {
    match pos.king_square(perspective) {
        Some(k) => bucket_of_square(seen(perspective, k).index()),
        None => bucket_of_square(4 * 9 + 8),
    }
}

/// Input of a piece of `owner` and `kind` on `sq`, seen by `perspective` in king bucket `bucket`.
#[inline]
pub fn board_input(
    perspective: Color,
    bucket: usize,
    owner: Color,
    kind: PieceType,
    sq: Square,
) -> usize {
    let sq = seen(perspective, sq);
    bucket * BUCKET_INPUTS
        + (relative(perspective, owner) * KINDS + kind.index() - 1) * Square::NUM
        + sq.index()
}

/// Input of the `slot`-th (from 0) piece of `kind` in `owner`'s hand, seen by `perspective` in
/// king bucket `bucket`.
#[inline]
pub fn hand_input(
    perspective: Color,
    bucket: usize,
    owner: Color,
    kind: PieceType,
    slot: u32,
) -> usize {
    let k = kind.index();
    let slot = (slot as usize).min(HAND_SLOTS[k - 1] - 1);
    bucket * BUCKET_INPUTS
        + BOARD_INPUTS
        + relative(perspective, owner) * HAND_INPUTS_PER_SIDE
        + HAND_OFFSET[k]
        + slot
}

/// Every input that is on in `pos` from `perspective`.
pub fn active(pos: &Position, perspective: Color, mut f: impl FnMut(usize)) {
    let bucket = king_bucket(pos, perspective);
    for owner in Color::ALL {
        let mut bb = pos.pieces_of(owner);
        while let Some(sq) = bb.pop() {
            f(board_input(
                perspective,
                bucket,
                owner,
                pos.piece_on(sq).kind(),
                sq,
            ));
        }
        let hand = pos.hand(owner);
        for kind in PieceType::HAND {
            for slot in 0..hand.count(kind) {
                f(hand_input(perspective, bucket, owner, kind, slot));
            }
        }
    }
}

/// What the last move of `pos` did to `perspective`'s inputs.
pub enum Update {
    /// No move was made (a null move): the inputs are the parent's.
    Same,
    /// The perspective's own king changed bucket: every input moved to another block.
    Refresh,
    /// At most two inputs off and two on: the moved piece leaves its square (or its hand slot)
    /// and arrives, and a captured piece leaves the board and fills a hand slot.
    Delta(Changes),
}

/// How the last move of `pos` changed the inputs of `perspective`.
pub fn changes(pos: &Position, perspective: Color) -> Update {
    let m: Move = pos.last_move();
    if m.is_none() {
        return Update::Same;
    }
    let to = m.to();
    let moved = pos.piece_on(to);
    let us = moved.color();
    let bucket = king_bucket(pos, perspective);
    if moved.kind() == PieceType::King
        && us == perspective
        && bucket_of_square(seen(perspective, m.from()).index()) != bucket
    {
        return Update::Refresh;
    }
    let mut c = Changes::default();
    if m.is_drop() {
        let kind = m.dropped();
        c.off(hand_input(
            perspective,
            bucket,
            us,
            kind,
            pos.hand(us).count(kind),
        ));
        c.on(board_input(perspective, bucket, us, kind, to));
    } else {
        let before = if m.is_promotion() {
            moved.kind().unpromote()
        } else {
            moved.kind()
        };
        c.off(board_input(perspective, bucket, us, before, m.from()));
        c.on(board_input(perspective, bucket, us, moved.kind(), to));
        let captured = pos.captured_piece();
        if captured.is_some() {
            c.off(board_input(
                perspective,
                bucket,
                captured.color(),
                captured.kind(),
                to,
            ));
            let kind = captured.kind().unpromote();
            c.on(hand_input(
                perspective,
                bucket,
                us,
                kind,
                pos.hand(us).count(kind) - 1,
            ));
        }
    }
    Update::Delta(c)
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

/// The same input with the board mirrored left to right (file f becomes file 10 - f), the king
/// bucket with it: shogi's rules are symmetric that way, so a mirrored position is an equally
/// valid training sample.
pub fn mirror_input(i: usize) -> usize {
    const MIRROR_BUCKET: [usize; KING_BUCKETS] = [2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9];
    let (bucket, j) = (i / BUCKET_INPUTS, i % BUCKET_INPUTS);
    let j = if j < BOARD_INPUTS {
        let (rest, sq) = (j / Square::NUM, j % Square::NUM);
        let (file0, rank0) = (sq / 9, sq % 9);
        rest * Square::NUM + (8 - file0) * 9 + rank0
    } else {
        j
    };
    MIRROR_BUCKET[bucket] * BUCKET_INPUTS + j
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

    fn inputs(pos: &Position, p: Color, map: impl Fn(usize) -> usize) -> Vec<usize> {
        let mut v = Vec::new();
        active(pos, p, |i| v.push(map(i)));
        v.sort_unstable();
        v
    }

    #[test]
    fn each_side_sees_the_position_turned_around_as_the_other_and_mirroring_agrees() {
        let mut pos = Position::startpos();
        let mut rng = crate::tune::selfplay::Rng(3);
        let mut buckets = [false; KING_BUCKETS];
        for _ in 0..160 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
            let turned = crate::eval::test_sfen::rotated(&pos);
            let mirrored = crate::eval::test_sfen::mirrored(&pos);
            for p in Color::ALL {
                buckets[king_bucket(&pos, p)] = true;
                assert_eq!(
                    inputs(&pos, p, |i| i),
                    inputs(&turned, !p, |i| i),
                    "{}",
                    pos.to_sfen()
                );
                assert_eq!(
                    inputs(&pos, p, mirror_input),
                    inputs(&mirrored, p, |i| i),
                    "{}",
                    pos.to_sfen()
                );
            }
        }
        for i in (0..INPUTS).step_by(7) {
            assert_eq!(mirror_input(mirror_input(i)), i);
        }
        // Random games walk the kings about: the test saw several buckets, not one.
        assert!(buckets.iter().filter(|&&b| b).count() >= 4, "{buckets:?}");
    }

    #[test]
    fn buckets_split_the_files_in_three_and_the_ranks_by_camp() {
        let bucket = |sfen: &str, p: Color| king_bucket(&Position::from_sfen(sfen).unwrap(), p);
        // Both kings at home: the centre file, back rank, for either side.
        let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
        assert_eq!(bucket(start, Color::Black), 1);
        assert_eq!(bucket(start, Color::White), 1);
        // Black's king on 1i (the right-hand corner from Black's side) and White's on 9a: each
        // is in the same corner from its own side.
        let corner = "k8/9/9/9/9/9/9/9/8K b - 1";
        assert_eq!(bucket(corner, Color::Black), bucket(corner, Color::White));
        // A king in the enemy camp is in the last rank group, different from the home buckets.
        let entered = "4K4/9/9/9/9/9/9/9/4k4 b - 1";
        assert_eq!(bucket(entered, Color::Black), 10);
        assert_ne!(bucket(entered, Color::Black), bucket(start, Color::Black));
    }
}
