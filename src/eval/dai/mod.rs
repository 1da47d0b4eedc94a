//! The dai shogi evaluation: material on the reference engine's scale, the advance of the
//! pieces that promote on reaching the far zone, the shelter and danger round each royal, and
//! the squares each slider and lion can move to. Its parameters are data
//! (`dai_weights.txt`), read once and shared.
//!
//! Everything is counted from scratch at each evaluation (at most 130 pieces), so the
//! per-thread stack holds nothing but the parameters. The hand-set material values are the
//! exchange values of `dai::value` (a pawn is 100), which the game interface also gives the
//! search for move ordering and pruning, so that a capture's value means the same to both;
//! standard shogi's exchange values are on a similar scale (a pawn is 90).

use crate::dai::types::KINDS;
use crate::dai::{PieceType, Position, Square};
use crate::eval::WholePositionEvaluation;
use crate::shogi::Color;
use arrayvec::ArrayVec;

mod file;
mod fit;
#[cfg(test)]
mod tests;

pub use file::{embedded, kind_name};
pub use fit::{DaiFeatures, NUM_PARAMS};

/// Groups of kinds that share a mobility bonus, by how far they reach: a square counts for
/// more or less according to how far the piece reaches from it. Only the sliders and lions
/// have one: counting every stepper's squares as well (two thirds of the pieces) cost the
/// search of `kirin bench --variant dai` a third more instructions, the sliders and lions alone
/// about a tenth, and a stepper's few squares say little but whether it is hemmed in.
pub const MOBILITY_GROUPS: usize = 4;
const GROUP_NAMES: [&str; MOBILITY_GROUPS] = [
    // Slides along one or two lines: lance, reverse chariot, side and vertical movers,
    // flying stag.
    "narrow-slider",
    // Slides along four lines: bishop, rook, dragons, whale, white horse.
    "slider",
    // Slides along five lines or more: free king, free boar, flying ox, horned falcon, soaring
    // eagle.
    "wide-slider",
    // The full lions: lion and promoted kirin.
    "lion",
];

/// The group of a kind without a mobility bonus.
const NO_GROUP: u8 = u8::MAX;

/// The mobility group of each kind, by `PieceType::index()`.
const MOBILITY_GROUP: [u8; KINDS] = {
    let mut t = [NO_GROUP; KINDS];
    let mut i = 0;
    while i < PieceType::ALL.len() {
        let kind = PieceType::ALL[i];
        t[kind.index()] = mobility_group(kind);
        i += 1;
    }
    t
};

const fn mobility_group(kind: PieceType) -> u8 {
    use PieceType::*;
    match kind {
        Lance | ReverseChariot | SideMover | VerticalMover | FlyingStag | PromotedSilver
        | PromotedCopper => 0,
        Bishop
        | Rook
        | DragonHorse
        | DragonKing
        | Whale
        | WhiteHorse
        | PromotedFerociousLeopard
        | PromotedGold
        | PromotedBishop
        | PromotedRook => 1,
        FreeKing | FreeBoar | FlyingOx | HornedFalcon | SoaringEagle | PromotedPhoenix => 2,
        Lion | PromotedKirin => 3,
        _ => NO_GROUP,
    }
}

/// The evaluation's parameters, in evaluation units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaiWeights {
    /// Per piece on the board, by `PieceType::index()`; royals have none (losing them is the
    /// end of the game, not a material count).
    pub material: [i32; KINDS],
    /// Per rank advanced, for a pawn, go-between, iron, stone or copper (they promote to
    /// golds or better in the far zone and guard nothing from behind).
    pub advance: i32,
    /// For a promotable piece standing in the promotion zone (it may promote on its next move;
    /// not given to a pawn that declined under `DeclinedPawnRule::LastRankOnly`).
    pub in_zone: i32,
    /// Per own piece next to a royal.
    pub royal_guard: i32,
    /// Per enemy piece within two squares of a royal.
    pub royal_danger: i32,
    /// For a side with a single royal: losing it loses the game.
    pub lone_royal: i32,
    /// Per square a slider or lion can move to (`Position::reach`), by mobility group. All
    /// zero skips the count.
    pub mobility: [i32; MOBILITY_GROUPS],
    /// For a side ahead by at least `hunt_lead` (all other terms counted): per piece and per square closer
    /// to the nearest enemy royal (of 14). Without it a won game is drawn at the move limit,
    /// the pieces never closing in on the royal they must take.
    pub hunt: i32,
    /// Positive, so that at most one side hunts.
    pub hunt_lead: i32,
    pub tempo: i32,
}

/// Ranks from `c`'s own back rank: 0 there, 14 on the far side.
#[inline]
fn advance_of(c: Color, sq: Square) -> i32 {
    match c {
        Color::Black => 14 - i32::from(sq.rank()),
        Color::White => i32::from(sq.rank()),
    }
}

/// The kinds that earn `advance`.
#[inline]
fn advances(kind: PieceType) -> bool {
    use PieceType::*;
    matches!(kind, Pawn | GoBetween | Iron | Stone | Copper)
}

/// Whether the piece of `kind` on `sq` (of `c`) earns `in_zone`. A pawn that declined a
/// promotion under HaChu's rule has no chance left but a capture onto the last rank: standing
/// in the zone no longer helps it.
#[inline]
fn earns_in_zone(pos: &Position, kind: PieceType, adv: i32, sq: Square) -> bool {
    kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq)
}

/// The guards (own pieces next to them) and attackers (enemy pieces within two squares) of
/// `c`'s royals: the 5x5 square round each royal, not every piece on the board.
fn royal_counts(pos: &Position, royals: &[ArrayVec<Square, 4>; 2], c: Color) -> (i32, i32) {
    let (mut guards, mut attackers) = (0, 0);
    for &r in &royals[c.index()] {
        let (file, rank) = (r.file(), r.rank());
        for y in rank.saturating_sub(2)..=(rank + 2).min(14) {
            for x in file.saturating_sub(2).max(1)..=(file + 2).min(15) {
                let Some(sq) = Square::new(x, y) else {
                    continue;
                };
                let p = pos.piece_on(sq);
                if sq == r || p.is_none() {
                    continue;
                }
                if p.color() == c {
                    if x.abs_diff(file) <= 1 && y.abs_diff(rank) <= 1 {
                        guards += 1;
                    }
                } else {
                    attackers += 1;
                }
            }
        }
    }
    (guards, attackers)
}

/// Each side's royals; more than four only come from a hand-made SFEN and are not counted.
fn royals_of(pos: &Position) -> [ArrayVec<Square, 4>; 2] {
    let mut royals: [ArrayVec<Square, 4>; 2] = [ArrayVec::new(), ArrayVec::new()];
    for c in [Color::Black, Color::White] {
        for sq in pos.pieces(c) {
            if pos.piece_on(sq).kind().is_some_and(PieceType::is_royal) {
                let _ = royals[c.index()].try_push(sq);
            }
        }
    }
    royals
}

impl WholePositionEvaluation<Position> for DaiWeights {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        // Without mobility weights the piece loop keeps no trace of them.
        if self.mobility == [0; MOBILITY_GROUPS] {
            self.evaluate_with::<false>(pos)
        } else {
            self.evaluate_with::<true>(pos)
        }
    }
}

impl DaiWeights {
    fn evaluate_with<const MOBILITY: bool>(&self, pos: &Position) -> i32 {
        let mut score = [0i32; 2];
        let mut royals: [ArrayVec<Square, 4>; 2] = [ArrayVec::new(), ArrayVec::new()];
        for c in [Color::Black, Color::White] {
            let side = &mut score[c.index()];
            for sq in pos.pieces(c) {
                let Some(kind) = pos.piece_on(sq).kind() else {
                    continue;
                };
                if kind.is_royal() {
                    let _ = royals[c.index()].try_push(sq);
                    continue;
                }
                *side += self.material[kind.index()];
                let adv = advance_of(c, sq);
                if advances(kind) {
                    *side += adv * self.advance;
                }
                if earns_in_zone(pos, kind, adv, sq) {
                    *side += self.in_zone;
                }
                if MOBILITY {
                    let group = MOBILITY_GROUP[kind.index()];
                    if group != NO_GROUP {
                        *side += self.mobility[usize::from(group)] * pos.reach(sq) as i32;
                    }
                }
            }
        }
        for c in [Color::Black, Color::White] {
            if royals[c.index()].len() == 1 {
                score[c.index()] -= self.lone_royal;
            }
            let (guards, attackers) = royal_counts(pos, &royals, c);
            score[c.index()] += guards * self.royal_guard - attackers * self.royal_danger;
        }
        let us = pos.side_to_move();
        let lead = score[us.index()] - score[us.flip().index()];
        let hunt = self.hunt_bonus(lead, |mover| {
            let hunter = if mover { us } else { us.flip() };
            let targets = &royals[hunter.flip().index()];
            (!targets.is_empty()).then(|| hunt_closeness(pos, hunter, targets))
        });
        lead + hunt + self.tempo
    }

    /// The hunt term for the side to move, whose lead by every other term (the tempo aside) is
    /// `lead`: `closeness(true)` is how close its pieces stand to the opponent's royals,
    /// `closeness(false)` the opponent's to its own (`None`: no royal to close in on).
    /// `DaiFeatures::value` repeats it for the fit, on the unrounded lead.
    #[inline]
    fn hunt_bonus(&self, lead: i32, closeness: impl FnOnce(bool) -> Option<i32>) -> i32 {
        if lead >= self.hunt_lead {
            closeness(true).map_or(0, |n| self.hunt * n)
        } else if -lead >= self.hunt_lead {
            -closeness(false).map_or(0, |n| self.hunt * n)
        } else {
            0
        }
    }
}

/// How close `c`'s pieces stand to the nearest of `targets`: the sum over its pieces of 14 less
/// the distance in king moves.
fn hunt_closeness(pos: &Position, c: Color, targets: &[Square]) -> i32 {
    pos.pieces(c)
        .map(|sq| {
            let nearest = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
            14 - nearest
        })
        .sum()
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (i32::from(a.file()) - i32::from(b.file())).abs();
    let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
    df.max(dr)
}
