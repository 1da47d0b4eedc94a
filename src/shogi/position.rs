//! Standard shogi's piece set on the shared board, and the attack tests that use its grouped
//! bitboards.

use super::attacks::{self, between};
use super::bitboard::Bitboard;
use super::board::{Board, CheckSquares, PieceSet};
use super::hand::Hand;
use super::movegen;
use super::rules::Repetition;
use super::see;
use super::types::{Color, Move, Piece, PieceType, Square};
use super::zobrist;

pub const START_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Group slots after the 15 per-kind ones: pieces grouped the way attack tests ask.
pub(crate) const GOLDS: usize = 15; // gold and the four small promoted kinds
pub(crate) const HDK: usize = 16; // horse, dragon, king: the king-step movers
pub(crate) const BISHOP_HORSE: usize = 17;
pub(crate) const ROOK_DRAGON: usize = 18;

/// Standard shogi's pieces: the 9x9 board, seven kinds in hand.
#[derive(Clone, Copy, Debug)]
pub enum StandardPieces {}

impl PieceSet for StandardPieces {
    type Kind = PieceType;
    type Hand = Hand;
    const FILES: u8 = 9;
    const START_SFEN: &'static str = START_SFEN;

    fn count_in_set(pt: PieceType) -> u32 {
        pt.count_in_set() as u32
    }

    /// A pawn or lance on the last rank, or a knight on the last two, could never move.
    fn can_move_from(c: Color, pt: PieceType, sq: Square) -> bool {
        let rel = sq.relative_rank(c);
        match pt {
            PieceType::Pawn | PieceType::Lance => rel > 0,
            PieceType::Knight => rel > 1,
            _ => true,
        }
    }

    #[inline]
    fn drop_kind(m: Move) -> PieceType {
        m.dropped()
    }

    #[inline]
    fn piece_square_key(p: Piece, sq: Square) -> u64 {
        zobrist::BOARD[p.index()][sq.index()]
    }

    #[inline]
    fn hand_key(c: Color, pt: PieceType) -> u64 {
        zobrist::HAND[c.index()][pt.index()]
    }

    #[inline]
    fn group_slots(k: PieceType) -> &'static [usize] {
        match k {
            PieceType::Gold
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver => &[GOLDS],
            PieceType::King => &[HDK],
            PieceType::Horse => &[HDK, BISHOP_HORSE],
            PieceType::Dragon => &[HDK, ROOK_DRAGON],
            PieceType::Bishop => &[BISHOP_HORSE],
            PieceType::Rook => &[ROOK_DRAGON],
            _ => &[],
        }
    }

    /// The same board with a hand holding at least every piece it held before, and more, is a
    /// superior-hand repetition; with fewer, an inferior one.
    fn board_repeated_with_hands(now: Hand, then: Hand) -> Repetition {
        if now.dominates(then) {
            Repetition::Superior
        } else if then.dominates(now) {
            Repetition::Inferior
        } else {
            Repetition::None
        }
    }

    fn exchange_value(pt: PieceType) -> i32 {
        see::value(pt)
    }

    const CHEAPEST_FIRST: &'static [PieceType] = see::CHEAPEST_FIRST;

    /// Most moves land out of reach of the king even on an empty board.
    #[inline]
    fn attacks_square(c: Color, pt: PieceType, sq: Square, target: Square, occ: Bitboard) -> bool {
        attacks::pseudo_attacks(c, pt, sq).has(target)
            && attacks::attacks(c, pt, sq, occ).has(target)
    }

    #[inline]
    fn uncovers_check(pos: &Position, m: Move, ksq: Square, occ: Bitboard) -> bool {
        let (from, to) = (m.from(), m.to());
        let us = pos.side;
        let line = attacks::line(ksq, from);
        if line.is_empty() || line.has(to) {
            return false;
        }
        let (orthogonal, diagonal, lances) = (
            pos.slot(us, ROOK_DRAGON),
            pos.slot(us, BISHOP_HORSE),
            pos.pieces_cp(us, PieceType::Lance),
        );
        // Usually no slider of ours stands on that line at all.
        if (line & (orthogonal | diagonal | lances)).is_empty() {
            return false;
        }
        // None of our pieces stands on `to` before the move, so any slider that now reaches the
        // king through the vacated square is a discovered check.
        movegen::slider_hits(pos, us, ksq, occ)
    }

    /// A piece of ours on `sq` attacks the king on `ksq` exactly when the same piece of the
    /// king's colour on `ksq` attacks `sq`, through the same occupancy. The occupancy a move
    /// leaves differs from today's on its two squares only: its destination does not block a
    /// line from itself, and its origin cannot lie between the destination and the king on the
    /// destination's line, since a slider there would have been checking already (our pieces
    /// move along a line away from the king only as the same slider).
    #[inline]
    fn check_squares(pos: &Position, ksq: Square) -> Option<CheckSquares> {
        let them = !pos.side;
        let occ = pos.occupied();
        let gold = attacks::gold_attacks(them, ksq);
        let king = attacks::king_attacks(ksq);
        let bishop = attacks::bishop_attacks(ksq, occ);
        let rook = attacks::rook_attacks(ksq, occ);
        let mut t = [Bitboard::EMPTY; 16];
        t[PieceType::Pawn.index()] = attacks::pawn_attacks(them, ksq);
        t[PieceType::Lance.index()] = attacks::lance_attacks(them, ksq, occ);
        t[PieceType::Knight.index()] = attacks::knight_attacks(them, ksq);
        t[PieceType::Silver.index()] = attacks::silver_attacks(them, ksq);
        t[PieceType::Bishop.index()] = bishop;
        t[PieceType::Rook.index()] = rook;
        t[PieceType::King.index()] = king;
        for pt in [
            PieceType::Gold,
            PieceType::ProPawn,
            PieceType::ProLance,
            PieceType::ProKnight,
            PieceType::ProSilver,
        ] {
            t[pt.index()] = gold;
        }
        t[PieceType::Horse.index()] = bishop | king;
        t[PieceType::Dragon.index()] = rook | king;
        // Our sliders that would reach the king on an empty board, and what stands between.
        let us = pos.side;
        let snipers = (attacks::pseudo_attacks(them, PieceType::Rook, ksq)
            & pos.slot(us, ROOK_DRAGON))
            | (attacks::pseudo_attacks(them, PieceType::Bishop, ksq) & pos.slot(us, BISHOP_HORSE))
            | (attacks::pseudo_attacks(them, PieceType::Lance, ksq)
                & pos.pieces_cp(us, PieceType::Lance));
        let mut shields = Bitboard::EMPTY;
        for s in snipers {
            let blockers = between(ksq, s) & occ;
            if blockers.count() == 1 {
                shields |= blockers & pos.pieces_of(us);
            }
        }
        Some(CheckSquares {
            by_kind: t,
            shields,
        })
    }

    fn attackers_behind(pos: &Position, sq: Square, occ: Bitboard) -> Bitboard {
        see::slider_attackers(pos, sq, occ)
    }

    #[inline]
    fn attackers_to(pos: &Position, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c; // attacks of `c` onto `sq` are the reverse attacks of the other colour
        let bb = (attacks::pawn_attacks(them, sq) & pos.by_kind[PieceType::Pawn as usize])
            | (attacks::knight_attacks(them, sq) & pos.by_kind[PieceType::Knight as usize])
            | (attacks::silver_attacks(them, sq) & pos.by_kind[PieceType::Silver as usize])
            | (attacks::gold_attacks(them, sq) & pos.by_kind[GOLDS])
            | (attacks::king_attacks(sq) & pos.by_kind[HDK])
            | (attacks::bishop_attacks(sq, occ) & pos.by_kind[BISHOP_HORSE])
            | (attacks::rook_attacks(sq, occ) & pos.by_kind[ROOK_DRAGON])
            | (attacks::lance_attacks(them, sq, occ) & pos.by_kind[PieceType::Lance as usize]);
        bb & pos.by_color[c.index()]
    }
}

/// A standard shogi position.
pub type Position = Board<StandardPieces>;

/// What a move changed in a standard position.
pub type StateInfo = super::board::StateInfo<Hand>;

impl Position {
    // ---- queries -------------------------------------------------------------------------

    /// Lances, bishops, rooks, horses and dragons of both sides: the pieces whose reach depends
    /// on the occupancy.
    #[inline]
    pub fn sliders(&self) -> Bitboard {
        self.by_kind[PieceType::Lance.index()]
            | self.by_kind[BISHOP_HORSE]
            | self.by_kind[ROOK_DRAGON]
    }

    #[inline]
    pub(crate) fn slot(&self, c: Color, slot: usize) -> Bitboard {
        self.by_kind[slot] & self.by_color[c.index()]
    }

    /// Whether `by` attacks `sq` with occupancy `occ`. Cheaper than `attackers_to`: the step
    /// attackers are tested first, and a slider's blocked reach is computed only when the
    /// slider stands on one of `sq`'s lines at all.
    #[inline]
    pub fn is_attacked(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !by;
        let steps = (attacks::pawn_attacks(them, sq) & self.by_kind[PieceType::Pawn as usize])
            | (attacks::knight_attacks(them, sq) & self.by_kind[PieceType::Knight as usize])
            | (attacks::silver_attacks(them, sq) & self.by_kind[PieceType::Silver as usize])
            | (attacks::gold_attacks(them, sq) & self.by_kind[GOLDS])
            | (attacks::king_attacks(sq) & self.by_kind[HDK]);
        (steps & self.by_color[by.index()]).is_some() || self.is_attacked_by_slider(by, sq, occ)
    }

    /// `by`'s pieces that attack by steps: pawns, knights, silvers, gold movers, and the king,
    /// horses and dragons (whose slides `is_attacked_by_slider` covers).
    #[inline]
    pub fn steppers(&self, by: Color) -> Bitboard {
        (self.by_kind[PieceType::Pawn as usize]
            | self.by_kind[PieceType::Knight as usize]
            | self.by_kind[PieceType::Silver as usize]
            | self.by_kind[GOLDS]
            | self.by_kind[HDK])
            & self.by_color[by.index()]
    }

    /// Whether a rook, bishop, lance, horse or dragon of `by` reaches `sq` with occupancy `occ`;
    /// the half of `is_attacked` that remains when no stepper of `by` is near.
    #[inline]
    pub fn is_attacked_by_slider(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !by;
        let rooks = self.slot(by, ROOK_DRAGON);
        if (attacks::rook_pseudo(sq) & rooks).is_some()
            && (attacks::rook_attacks(sq, occ) & rooks).is_some()
        {
            return true;
        }
        let bishops = self.slot(by, BISHOP_HORSE);
        if (attacks::bishop_pseudo(sq) & bishops).is_some()
            && (attacks::bishop_attacks(sq, occ) & bishops).is_some()
        {
            return true;
        }
        let lances = self.pieces_cp(by, PieceType::Lance);
        (attacks::lance_pseudo(them, sq) & lances).is_some()
            && (attacks::lance_attacks(them, sq, occ) & lances).is_some()
    }

    /// Pieces (of either colour) that alone stand between `c`'s king and an enemy slider, and the
    /// enemy sliders doing the pinning.
    pub fn blockers_for_king(&self, c: Color) -> Bitboard {
        let Some(ksq) = self.kings[c.index()] else {
            return Bitboard::EMPTY;
        };
        let them = !c;
        let snipers = ((attacks::rook_pseudo(ksq) & self.slot(them, ROOK_DRAGON))
            | (attacks::bishop_pseudo(ksq) & self.slot(them, BISHOP_HORSE))
            | (attacks::lance_pseudo(c, ksq) & self.pieces_cp(them, PieceType::Lance)))
        .and_not(Bitboard::EMPTY);
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_some() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// `c`'s pieces pinned to `c`'s own king.
    #[inline]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.blockers_for_king(c) & self.by_color[c.index()]
    }
}
