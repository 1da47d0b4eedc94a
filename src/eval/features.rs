//! The evaluation is linear: a sum of weights, each counted +1 for a Black feature and -1 for the
//! same feature of White (seen from White's side of the board). Listing the active features is
//! therefore all the evaluation does, and the tuner fits weights with the very same list.

use crate::shogi::attacks::{
    bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks, rook_attacks,
    silver_attacks, within_three,
};
use crate::shogi::position::GOLDS;
use crate::shogi::{Bitboard, Color, PieceType, Position, Square};

/// Table layout inside the flat weight vector.
pub const BOARD: usize = 0; // [kind 15]: a piece on the board
pub const HAND: usize = BOARD + 15; // [kind 8][count 19]: the n-th piece of a kind in hand
pub const PSQ: usize = HAND + 8 * 19; // [kind 15][square 81], square from the owner's side
pub const OWN_KING: usize = PSQ + 15 * 81; // [kind 15][dfile 17][drank 17] from the own king
pub const ENEMY_KING: usize = OWN_KING + 15 * 289; // [kind 15][dfile 17][drank 17] from the enemy king
// King safety, each counted for the king's owner (+1 for Black's king, -1 for White's); the
// king zone is the king's square and its eight neighbours.
/// [attacks 16]: enemy attacks on the king zone, counted with multiplicity, capped at 15.
pub const KS_ATTACKS: usize = ENEMY_KING + 15 * 289;
/// [defences 16]: attacks of the owner's other pieces on the king zone, capped at 15.
pub const KS_DEFENCES: usize = KS_ATTACKS + 16;
/// [escapes 9]: king moves to squares neither own-occupied nor attacked.
pub const KS_ESCAPES: usize = KS_DEFENCES + 16;
/// [hand kind 7][holes 9]: the enemy holds a piece of the kind, and so many empty neighbours of
/// the king are defended by no other own piece (drop targets).
pub const KS_HAND_DROP: usize = KS_ESCAPES + 9;
/// [attacks 8][enemy hand pieces 8]: zone attacks (capped at 7) times enemy hand size (capped).
pub const KS_ATTACKS_HAND: usize = KS_HAND_DROP + 7 * 9;
/// [kind 15]: an enemy piece of the kind attacks the king zone (count of such pieces).
pub const KS_ATTACKER: usize = KS_ATTACKS_HAND + 8 * 8;
/// [bishop, rook, horse, dragon][squares 21]: squares the piece attacks that hold no own piece.
pub const MOBILITY: usize = KS_ATTACKER + 15;
pub const MOBILITY_BUCKETS: usize = 21;
/// [kind 15][phase 4]: a piece on the board, by game phase (see `phase`), on top of `board`.
pub const BOARD_PHASE: usize = MOBILITY + 4 * MOBILITY_BUCKETS;
/// [kind 8][phase 4]: a piece in hand, by game phase, on top of `hand`.
pub const HAND_PHASE: usize = BOARD_PHASE + 15 * PHASES;
pub const PHASES: usize = 4;
pub const NUM_WEIGHTS: usize = HAND_PHASE + 8 * PHASES;

/// Names of the tables in the weights file, with their offsets and lengths.
pub const TABLES: [(&str, usize, usize); 14] = [
    ("board", BOARD, 15),
    ("hand", HAND, 8 * 19),
    ("psq", PSQ, 15 * 81),
    ("own_king", OWN_KING, 15 * 289),
    ("enemy_king", ENEMY_KING, 15 * 289),
    ("ks_attacks", KS_ATTACKS, 16),
    ("ks_defences", KS_DEFENCES, 16),
    ("ks_escapes", KS_ESCAPES, 9),
    ("ks_hand_drop", KS_HAND_DROP, 7 * 9),
    ("ks_attacks_hand", KS_ATTACKS_HAND, 8 * 8),
    ("ks_attacker", KS_ATTACKER, 15),
    ("mobility", MOBILITY, 4 * MOBILITY_BUCKETS),
    ("board_phase", BOARD_PHASE, 15 * PHASES),
    ("hand_phase", HAND_PHASE, 8 * PHASES),
];

/// Game phase from the pieces in both hands: captured material is what turns a shogi game from
/// manoeuvring into a race of drops and mating attacks, so it is the clock the values follow.
#[inline]
pub fn phase(pos: &Position) -> usize {
    match pos.hand(Color::Black).total() + pos.hand(Color::White).total() {
        0 => 0,
        1..=3 => 1,
        4..=7 => 2,
        _ => 3,
    }
}

/// Slot of a mobility-scored kind.
#[inline]
fn mobility_slot(pt: PieceType) -> Option<usize> {
    match pt {
        PieceType::Bishop => Some(0),
        PieceType::Rook => Some(1),
        PieceType::Horse => Some(2),
        PieceType::Dragon => Some(3),
        _ => None,
    }
}

/// A square as its owner sees it: Black's view for Black, the rotated board for White.
#[inline]
fn owner_view(c: Color, sq: Square) -> Square {
    if c == Color::Black { sq } else { sq.flip() }
}

#[inline]
fn relative(c: Color, king: Square, sq: Square) -> usize {
    let k = owner_view(c, king);
    let s = owner_view(c, sq);
    let df = s.file() as i32 - k.file() as i32 + 8;
    let dr = s.rank() as i32 - k.rank() as i32 + 8;
    (df * 17 + dr) as usize
}

#[inline]
pub fn sign_of(c: Color) -> i32 {
    if c == Color::Black { 1 } else { -1 }
}

/// Calls `f(weight_index, sign)` for every active feature; sign is +1 for Black, -1 for White.
#[inline]
pub fn for_each_feature(pos: &Position, mut f: impl FnMut(usize, i32)) {
    for_each_piece_feature(pos, &mut f);
    for_each_phase_feature(pos, &mut f);
    for_each_dynamic_feature(pos, &mut f);
}

/// The features of one piece on the board, given both kings: what changes when that piece
/// moves. Kept apart so the search can update their sum move by move.
#[inline]
pub fn for_each_feature_of_piece(
    c: Color,
    kind: PieceType,
    sq: Square,
    kings: [Option<Square>; 2],
    mut f: impl FnMut(usize, i32),
) {
    let k = kind.index();
    let sign = sign_of(c);
    f(BOARD + k, sign);
    f(PSQ + k * 81 + owner_view(c, sq).index(), sign);
    if kind == PieceType::King {
        return;
    }
    if let Some(own) = kings[c.index()] {
        f(OWN_KING + k * 289 + relative(c, own, sq), sign);
    }
    if let Some(enemy) = kings[(!c).index()] {
        f(ENEMY_KING + k * 289 + relative(c, enemy, sq), sign);
    }
}

/// The features of the pieces on the board relative to the king of `owner`, on `king`: the
/// owner's pieces' `own_king` and the enemy's `enemy_king` terms. This is all of the piece part
/// that a move of that king changes besides the king itself (and what it captures).
#[inline]
pub fn for_each_feature_relative_to_king(
    pos: &Position,
    owner: Color,
    king: Square,
    mut f: impl FnMut(usize, i32),
) {
    let others = pos.occupied().and_not(pos.pieces(PieceType::King));
    for sq in others {
        let p = pos.piece_on(sq);
        let (c, k) = (p.color(), p.kind().index());
        let table = if c == owner { OWN_KING } else { ENEMY_KING };
        f(table + k * 289 + relative(c, king, sq), sign_of(c));
    }
}

/// The first of the `PHASES` material-by-phase features of a piece of the kind on the board.
#[inline]
pub fn board_phase_features(kind: PieceType) -> usize {
    BOARD_PHASE + kind.index() * PHASES
}

/// The first of the `PHASES` material-by-phase features of a piece of the kind in a hand.
#[inline]
pub fn hand_phase_features(pt: PieceType) -> usize {
    HAND_PHASE + pt.index() * PHASES
}

/// The feature of the `n`-th (0-based) piece of a kind in a hand.
#[inline]
pub fn hand_feature(pt: PieceType, n: u32) -> usize {
    HAND + pt.index() * 19 + n as usize
}

/// Material, hands and piece placement relative to the board and both kings: the part of the
/// evaluation that depends on each piece alone (given the kings), so it can be updated
/// incrementally.
#[inline]
pub fn for_each_piece_feature(pos: &Position, mut f: impl FnMut(usize, i32)) {
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    for sq in pos.occupied() {
        let p = pos.piece_on(sq);
        for_each_feature_of_piece(p.color(), p.kind(), sq, kings, &mut f);
    }
    for c in Color::ALL {
        let sign = sign_of(c);
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            for n in 0..hand.count(pt) {
                f(hand_feature(pt, n), sign);
            }
        }
    }
}

/// Material by phase, as net counts: each kind on the board and in hand contributes
/// (Black's - White's) x its weight in the phase of `pos`. The search keeps these sums for every
/// phase move by move (`linear::PiecePart`), so only the tuner lists them.
#[inline]
pub fn for_each_phase_feature(pos: &Position, mut f: impl FnMut(usize, i32)) {
    let ph = phase(pos);
    for pt in PieceType::ALL {
        let net = pos.pieces_cp(Color::Black, pt).count() as i32
            - pos.pieces_cp(Color::White, pt).count() as i32;
        for _ in 0..net.unsigned_abs() {
            f(board_phase_features(pt) + ph, net.signum());
        }
    }
    let (black_hand, white_hand) = (pos.hand(Color::Black), pos.hand(Color::White));
    for pt in PieceType::HAND {
        let net = black_hand.count(pt) as i32 - white_hand.count(pt) as i32;
        for _ in 0..net.unsigned_abs() {
            f(hand_phase_features(pt) + ph, net.signum());
        }
    }
}

/// King safety and mobility: features that depend on attacks, computed from scratch.
#[inline]
pub fn for_each_dynamic_feature(pos: &Position, mut f: impl FnMut(usize, i32)) {
    let kings = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    let zone_of = |k: Option<Square>| {
        k.map_or(Bitboard::EMPTY, |k| {
            king_attacks(k) | Bitboard::from_square(k)
        })
    };
    // Only from within three king steps can a stepping piece (a knight included) attack a
    // king zone.
    let near_of = |k: Option<Square>| k.map_or(Bitboard::EMPTY, within_three);
    let zone = [zone_of(kings[0]), zone_of(kings[1])];
    let near = near_of(kings[0]) | near_of(kings[1]);
    let occ = pos.occupied();
    let own_pieces = [pos.pieces_of(Color::Black), pos.pieces_of(Color::White)];
    // Per king (indexed by its owner): enemy attacks on its zone and the squares they cover;
    // the owner's own (non-king) attacks on it and the squares they cover.
    let mut att_count = [0u32; 2];
    let mut att_union = [Bitboard::EMPTY; 2];
    let mut def_count = [0u32; 2];
    let mut def_union = [Bitboard::EMPTY; 2];
    // Only sliders and pieces near a king can attack or defend a king zone, and only sliders
    // carry mobility terms; kings count for neither.
    let active = (pos.sliders() | near) & occ & !pos.pieces(PieceType::King);
    let mut visit = |c: Color, kind: PieceType, a: Bitboard| {
        let sign = sign_of(c);
        if let Some(slot) = mobility_slot(kind) {
            let m = (a.and_not(own_pieces[c.index()]).count() as usize).min(MOBILITY_BUCKETS - 1);
            f(MOBILITY + slot * MOBILITY_BUCKETS + m, sign);
        }
        let e = (!c).index();
        let hit = a & zone[e];
        if hit.is_some() {
            att_count[e] += hit.count();
            att_union[e] |= hit;
            // A piece counts once as an attacker; the pawns, visited all at once, once each.
            let attackers = if kind == PieceType::Pawn {
                hit.count()
            } else {
                1
            };
            for _ in 0..attackers {
                f(KS_ATTACKER + kind.index(), -sign);
            }
        }
        let d = a & zone[c.index()];
        def_count[c.index()] += d.count();
        def_union[c.index()] |= d;
    };
    // Kind by kind, so that each kind's attack function is called directly (the sum does not
    // depend on the order).
    for c in Color::ALL {
        let mine = |pt: PieceType| pos.pieces_cp(c, pt) & active;
        // Pawns all at once: each attacks the square ahead of it (on the board: no pawn stands
        // on its last rank) and no two pawns the same square, so the counts are those of one
        // pawn at a time.
        let pawns = pos.pieces_cp(c, PieceType::Pawn).0;
        let ahead = if c == Color::Black {
            pawns >> 1
        } else {
            pawns << 1
        };
        visit(c, PieceType::Pawn, Bitboard(ahead));
        for sq in mine(PieceType::Lance) {
            visit(c, PieceType::Lance, lance_attacks(c, sq, occ));
        }
        for sq in mine(PieceType::Knight) {
            visit(c, PieceType::Knight, knight_attacks(c, sq));
        }
        for sq in mine(PieceType::Silver) {
            visit(c, PieceType::Silver, silver_attacks(c, sq));
        }
        for sq in pos.slot(c, GOLDS) & active {
            visit(c, pos.piece_on(sq).kind(), gold_attacks(c, sq));
        }
        for sq in mine(PieceType::Bishop) {
            visit(c, PieceType::Bishop, bishop_attacks(sq, occ));
        }
        for sq in mine(PieceType::Rook) {
            visit(c, PieceType::Rook, rook_attacks(sq, occ));
        }
        for sq in mine(PieceType::Horse) {
            visit(
                c,
                PieceType::Horse,
                bishop_attacks(sq, occ) | king_attacks(sq),
            );
        }
        for sq in mine(PieceType::Dragon) {
            visit(
                c,
                PieceType::Dragon,
                rook_attacks(sq, occ) | king_attacks(sq),
            );
        }
    }
    for c in Color::ALL {
        let sign = sign_of(c);
        let Some(ksq) = kings[c.index()] else {
            continue;
        };
        let ci = c.index();
        let a = att_count[ci];
        f(KS_ATTACKS + a.min(15) as usize, sign);
        f(KS_DEFENCES + def_count[ci].min(15) as usize, sign);
        let around = king_attacks(ksq);
        let escapes = around.and_not(own_pieces[ci] | att_union[ci]).count() as usize;
        f(KS_ESCAPES + escapes, sign);
        let holes = around.and_not(occ | def_union[ci]).count() as usize;
        let enemy_hand = pos.hand(!c);
        for pt in PieceType::HAND {
            if enemy_hand.has(pt) {
                f(KS_HAND_DROP + (pt.index() - 1) * 9 + holes, sign);
            }
        }
        let hb = enemy_hand.total().min(7) as usize;
        f(KS_ATTACKS_HAND + a.min(7) as usize * 8 + hb, sign);
    }
}
