//! Legal move generation.
//!
//! Every generator here returns legal moves only: pins, check evasions, king safety, nifu, dead
//! squares and pawn-drop mate are handled while generating, so neither perft nor the search ever
//! plays a move and then finds it illegal. `ALL` selects the full mode (every legal move, for
//! perft and for validating input) or the search mode, which leaves out non-promotions that are
//! never better than promoting (pawn, bishop and rook in the zone, lance to the second rank).

use super::attacks::{self, between, line};
use super::bitboard::Bitboard;
use super::position::{GOLDS, Position};
use super::types::{Color, Move, PieceType, Square};
use arrayvec::ArrayVec;

/// The most legal moves any shogi position has is 593.
pub const MAX_MOVES: usize = 600;
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Which classes of moves to produce. Tactical: captures (with every legal promotion choice) and
/// promotions to empty squares. Quiet: the rest, drops included. The two never overlap. Yari
/// shogi's generator asks for the same classes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct Classes {
    pub(crate) tactical: bool,
    pub(crate) quiet: bool,
}

impl Classes {
    pub(crate) const BOTH: Classes = Classes {
        tactical: true,
        quiet: true,
    };
    pub(crate) const TACTICAL: Classes = Classes {
        tactical: true,
        quiet: false,
    };
    pub(crate) const QUIET: Classes = Classes {
        tactical: false,
        quiet: true,
    };

    /// Pushes the board move from `from` to `to` in these classes: promoting where it
    /// `can_promote` (tactical either way), and not promoting where `keep_unpromoted` (tactical
    /// for a `capture`, quiet otherwise).
    #[inline]
    pub(crate) fn push_choices(
        self,
        list: &mut MoveList,
        from: Square,
        to: Square,
        capture: bool,
        can_promote: bool,
        keep_unpromoted: bool,
    ) {
        if can_promote && self.tactical {
            list.push(Move::normal(from, to, true));
        }
        if keep_unpromoted && (if capture { self.tactical } else { self.quiet }) {
            list.push(Move::normal(from, to, false));
        }
    }

    /// The squares of `to_bb` (none of them ours) that a move which cannot promote may go to:
    /// a capture, onto `theirs`, is tactical, any other move quiet.
    #[inline]
    pub(crate) fn unpromoted_to(self, to_bb: Bitboard, theirs: Bitboard) -> Bitboard {
        match (self.tactical, self.quiet) {
            (true, true) => to_bb,
            (true, false) => to_bb & theirs,
            (false, true) => to_bb.and_not(theirs),
            (false, false) => Bitboard::EMPTY,
        }
    }
}

/// Pushes the king's steps from `k` to the squares of `to_bb` that `attacked` finds safe; the
/// caller tests each square with the king taken off the board, so that the king cannot hide
/// behind itself from a slider.
#[inline]
pub(crate) fn push_king_steps(
    list: &mut MoveList,
    k: Square,
    to_bb: Bitboard,
    attacked: impl Fn(Square) -> bool,
) {
    for to in to_bb {
        if !attacked(to) {
            list.push(Move::normal(k, to, false));
        }
    }
}

/// Where pieces other than the king may go, as (captures, quiet moves): onto `theirs` and onto
/// `empty`, or, in check, only onto the checker and the squares between it and the king. The
/// caller has already returned in double check.
#[inline]
pub(crate) fn destinations(
    checkers: Bitboard,
    king: Option<Square>,
    theirs: Bitboard,
    empty: Bitboard,
) -> (Bitboard, Bitboard) {
    match (checkers.is_some(), king) {
        (true, Some(k)) => (checkers, between(k, checkers.lsb())),
        _ => (theirs, empty),
    }
}

/// Every legal move (full mode), as perft counts them.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    all_moves(pos, &mut list);
    list
}

/// `legal_moves` into the caller's list, which saves copying the list out where that matters
/// (perft).
pub fn all_moves(pos: &Position, list: &mut MoveList) {
    generate::<true>(pos, list, Classes::BOTH);
}

/// Legal moves for the search: no useless non-promotions.
pub fn search_moves(pos: &Position, list: &mut MoveList) {
    generate::<false>(pos, list, Classes::BOTH);
}

/// Captures and promotions (search mode). In check these are the tactical evasions.
pub fn tactical_moves(pos: &Position, list: &mut MoveList) {
    generate::<false>(pos, list, Classes::TACTICAL);
}

/// Non-capturing non-promotions and drops (search mode); complements `tactical_moves`.
pub fn quiet_moves(pos: &Position, list: &mut MoveList) {
    generate::<false>(pos, list, Classes::QUIET);
}

/// All legal replies to a check (search mode). The position must be in check.
pub fn evasions(pos: &Position, list: &mut MoveList) {
    debug_assert!(pos.in_check());
    generate::<false>(pos, list, Classes::BOTH);
}

/// Quiet moves that give check (search mode), for quiescence and mate search.
pub fn quiet_checks(pos: &Position, list: &mut MoveList) {
    let mut quiets = MoveList::new();
    quiet_moves(pos, &mut quiets);
    list.extend(quiets.into_iter().filter(|&m| pos.gives_check(m)));
}

/// All legal moves that give check (search mode, plus the non-promotions the full mode would add,
/// since a mate search must not miss a checking non-promotion such as an unpromoted bishop).
pub fn checks(pos: &Position, list: &mut MoveList) {
    let mut all = MoveList::new();
    generate::<true>(pos, &mut all, Classes::BOTH);
    list.extend(all.into_iter().filter(|&m| pos.gives_check(m)));
}

/// The rank a pawn or lance of `c` can never stand on.
fn last_rank(c: Color) -> Bitboard {
    match c {
        Color::Black => Bitboard::rank_mask(0),
        Color::White => Bitboard::rank_mask(8),
    }
}

#[inline]
fn in_zone(c: Color, sq: Square) -> bool {
    sq.relative_rank(c) <= 2
}

/// Whether a board move of `pt` from `from` to `to` may promote, and whether it must (a pawn or
/// lance reaching the last rank, a knight the last two, could never move again unpromoted).
#[inline]
pub fn promotion_options(us: Color, pt: PieceType, from: Square, to: Square) -> (bool, bool) {
    let can = pt.can_promote() && (in_zone(us, to) || in_zone(us, from));
    let rel = to.relative_rank(us);
    let must = match pt {
        PieceType::Pawn | PieceType::Lance => rel == 0,
        PieceType::Knight => rel <= 1,
        _ => false,
    };
    (can, must)
}

#[inline]
fn push<const ALL: bool>(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    to: Square,
    capture: bool,
    classes: Classes,
) {
    let (can_promote, must_promote) = promotion_options(us, pt, from, to);
    let rel = to.relative_rank(us);
    let useless = can_promote
        && match pt {
            PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
            PieceType::Lance => rel == 1,
            _ => false,
        };
    let keep_unpromoted = !must_promote && (ALL || !useless);
    classes.push_choices(list, from, to, capture, can_promote, keep_unpromoted);
}

fn generate<const ALL: bool>(pos: &Position, list: &mut MoveList, classes: Classes) {
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied();
    let ours = pos.pieces_of(us);
    let theirs = pos.pieces_of(them);
    let empty = !occ;
    let checkers = pos.checkers();
    let king = pos.king_square(us);

    if let Some(k) = king {
        let to_bb = classes.unpromoted_to(attacks::king_attacks(k).and_not(ours), theirs);
        let without_king = occ ^ Bitboard::from_square(k);
        // Most kings have no enemy stepper within reach of their neighbours (always so in
        // opening positions): then each destination needs only the sliders' test.
        if (attacks::king_step_zone(k) & pos.steppers(them)).is_some() {
            push_king_steps(list, k, to_bb, |to| pos.is_attacked(them, to, without_king));
        } else {
            push_king_steps(list, k, to_bb, |to| {
                pos.is_attacked_by_slider(them, to, without_king)
            });
        }
        if checkers.more_than_one() {
            return;
        }
    }

    let (capture_to, quiet_to) = destinations(checkers, king, theirs, empty);
    // Promotions to empty squares are tactical, so quiet destinations matter to both classes.
    let target = capture_to | quiet_to;
    let pinned = pos.pinned(us);

    // One loop per kind, so each attack function is called directly and inlined. Gold-like,
    // horse and dragon moves never promote, so one kind stands for each group.
    //
    // Most moves can neither promote nor have to: those are pushed without looking at promotion,
    // and without telling captures from quiet moves when both classes are wanted.
    let zone = match us {
        Color::Black => Bitboard::ranks(0, 2),
        Color::White => Bitboard::ranks(6, 8),
    };
    let plain_to = classes.unpromoted_to(target, theirs);
    // Positions with a pinned piece are rare: only they pay for a pin test per piece.
    macro_rules! moves_from {
        ($from:expr, $to_bb:expr, $pt:expr) => {
            let (from, to_bb) = ($from, $to_bb);
            if $pt.can_promote() && (zone.has(from) || (to_bb & zone).is_some()) {
                for to in to_bb {
                    push::<ALL>(list, us, $pt, from, to, theirs.has(to), classes);
                }
            } else {
                for to in to_bb & plain_to {
                    list.push(Move::normal(from, to, false));
                }
            }
        };
    }
    macro_rules! moves_of {
        ($pieces:expr, $pt:expr, $attacks:expr) => {
            match king {
                Some(k) if pinned.is_some() => {
                    for from in $pieces {
                        let mut to_bb = $attacks(from) & target;
                        if pinned.has(from) {
                            to_bb &= line(k, from);
                        }
                        moves_from!(from, to_bb, $pt);
                    }
                }
                _ => {
                    for from in $pieces {
                        moves_from!(from, $attacks(from) & target, $pt);
                    }
                }
            }
        };
    }
    let mine = |pt: PieceType| pos.pieces_cp(us, pt);
    let pawns = mine(PieceType::Pawn);
    if king.is_some() && pinned.is_some() {
        moves_of!(pawns, PieceType::Pawn, |f| attacks::pawn_attacks(us, f));
    } else {
        // Every pawn's step at once: forward is one square index down for Black and up for
        // White, and no pawn stands on its last rank, so no step leaves its file. Squares come
        // in increasing order, as the pawns would, so the move order is unchanged.
        debug_assert!((pawns & last_rank(us)).is_empty());
        let steps = match us {
            Color::Black => Bitboard(pawns.0 >> 1),
            Color::White => Bitboard(pawns.0 << 1),
        } & target;
        for to in steps {
            let from = match us {
                Color::Black => Square::new(to.index() as u8 + 1),
                Color::White => Square::new(to.index() as u8 - 1),
            };
            if zone.has(to) {
                push::<ALL>(list, us, PieceType::Pawn, from, to, theirs.has(to), classes);
            } else if plain_to.has(to) {
                list.push(Move::normal(from, to, false));
            }
        }
    }
    moves_of!(mine(PieceType::Lance), PieceType::Lance, |f| {
        attacks::lance_attacks(us, f, occ)
    });
    moves_of!(mine(PieceType::Knight), PieceType::Knight, |f| {
        attacks::knight_attacks(us, f)
    });
    moves_of!(mine(PieceType::Silver), PieceType::Silver, |f| {
        attacks::silver_attacks(us, f)
    });
    moves_of!(pos.slot(us, GOLDS), PieceType::Gold, |f| {
        attacks::gold_attacks(us, f)
    });
    moves_of!(mine(PieceType::Bishop), PieceType::Bishop, |f| {
        attacks::bishop_attacks(f, occ)
    });
    moves_of!(mine(PieceType::Rook), PieceType::Rook, |f| {
        attacks::rook_attacks(f, occ)
    });
    moves_of!(
        mine(PieceType::Horse),
        PieceType::Horse,
        |f| attacks::bishop_attacks(f, occ) | attacks::king_attacks(f)
    );
    moves_of!(
        mine(PieceType::Dragon),
        PieceType::Dragon,
        |f| attacks::rook_attacks(f, occ) | attacks::king_attacks(f)
    );

    if classes.quiet {
        generate_drops(pos, list, us, quiet_to);
    }
}

fn generate_drops(pos: &Position, list: &mut MoveList, us: Color, target: Bitboard) {
    let hand = pos.hand(us);
    if hand.is_empty() || target.is_empty() {
        return;
    }
    for pt in PieceType::HAND {
        if !hand.has(pt) {
            continue;
        }
        for to in drop_squares(pos, us, pt, target) {
            if pt == PieceType::Pawn && is_pawn_drop_mate(pos, us, to) {
                continue;
            }
            list.push(Move::drop(pt, to));
        }
    }
}

/// The squares of `target` where `us` may drop a `pt` by the dead-square and two-pawn rules
/// (pawn-drop mate is checked separately, per square).
pub fn drop_squares(pos: &Position, us: Color, pt: PieceType, target: Bitboard) -> Bitboard {
    let last = last_rank(us);
    let last_two = match us {
        Color::Black => Bitboard::ranks(0, 1),
        Color::White => Bitboard::ranks(7, 8),
    };
    match pt {
        PieceType::Pawn => {
            let nifu = pos.pieces_cp(us, PieceType::Pawn).fill_files();
            target.and_not(last | nifu)
        }
        PieceType::Lance => target.and_not(last),
        PieceType::Knight => target.and_not(last_two),
        _ => target,
    }
}

/// Pushes the pawn drop on `to` if the pawn-drop-mate rule allows it (the caller has checked the
/// other conditions).
pub(crate) fn pawn_drop_if_legal(pos: &Position, to: Square, list: &mut MoveList) {
    if !is_pawn_drop_mate(pos, pos.side_to_move(), to) {
        list.push(Move::drop(PieceType::Pawn, to));
    }
}

/// Would dropping a pawn of `us` on `to` checkmate? Only a drop right in front of the enemy king
/// can: the pawn checks, no interposition is possible, so the king must capture or flee, or
/// another piece must capture the pawn without exposing its own king.
fn is_pawn_drop_mate(pos: &Position, us: Color, to: Square) -> bool {
    let them = !us;
    let Some(ksq) = pos.king_square(them) else {
        return false;
    };
    if !attacks::pawn_attacks(us, to).has(ksq) {
        return false;
    }
    let to_bb = Bitboard::from_square(to);
    let occ = pos.occupied() | to_bb;

    let capturers = pos
        .attackers_to(them, to, occ)
        .and_not(Bitboard::from_square(ksq));
    for from in capturers {
        let after = occ ^ Bitboard::from_square(from);
        if !slider_hits(pos, us, ksq, after) {
            return false;
        }
    }

    let without_king = occ ^ Bitboard::from_square(ksq);
    for flight in attacks::king_attacks(ksq).and_not(pos.pieces_of(them)) {
        if !pos.is_attacked(us, flight, without_king) {
            return false;
        }
    }
    true
}

/// Whether a slider of `us` reaches `ksq` given occupancy `occ`.
#[inline]
pub(crate) fn slider_hits(pos: &Position, us: Color, ksq: Square, occ: Bitboard) -> bool {
    use super::position::{BISHOP_HORSE, ROOK_DRAGON};
    ((attacks::rook_attacks(ksq, occ) & pos.slot(us, ROOK_DRAGON))
        | (attacks::bishop_attacks(ksq, occ) & pos.slot(us, BISHOP_HORSE))
        | (attacks::lance_attacks(!us, ksq, occ) & pos.pieces_cp(us, PieceType::Lance)))
    .is_some()
}

impl Position {
    /// Whether the side to move has no legal move (checkmate, or the rare stalemate).
    pub fn is_mated(&self) -> bool {
        legal_moves(self).is_empty()
    }

    /// Whether `m` is legal here, in the full sense perft counts.
    pub fn is_legal(&self, m: Move) -> bool {
        legal_moves(self).contains(&m)
    }
}
