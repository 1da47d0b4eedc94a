//! The dai shogi evaluation: material on the reference engine's scale, the advance of the
//! pieces that promote on reaching the far zone, the shelter and danger round each royal, the
//! squares each slider and lion can move to, and for a side far ahead the hunt for the enemy
//! royals ([`HuntCounts`]). Its parameters are data (`dai_weights.txt`), read once and shared.
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
static MOBILITY_GROUP: [u8; KINDS] = {
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
    /// For a side ahead by more than `hunt_lead` (all other terms counted; the hunt grows to
    /// its whole at twice that lead): per piece and per square closer to the nearest enemy
    /// royal (of 14). Without it a won game is drawn at the move limit,
    /// the pieces never closing in on the royal they must take.
    pub hunt: i32,
    /// Positive, so that at most one side hunts.
    pub hunt_lead: i32,
    /// While hunting: per unit of [`HuntCounts::near`], the weight of the hunter's pieces
    /// within four squares of an enemy royal. The attack that takes a royal is made by strong
    /// pieces next to it, not by a wall far away.
    pub hunt_near: i32,
    /// While hunting: per square round an enemy royal (its own included) that the hunter
    /// attacks. The net that takes a royal is drawn square by square, long before the search
    /// sees the capture.
    pub hunt_net: i32,
    /// While hunting: per enemy piece next to an enemy royal, the shelter to be torn down.
    pub hunt_guard: i32,
    /// While hunting: per enemy piece gone from the board, so that the side ahead trades its
    /// way to the royal instead of keeping its lead behind a closed front.
    pub hunt_trade: i32,
    /// While hunting: per unit of [`HuntCounts::front`], the closeness of the hunter's
    /// [`FRONT`] nearest pieces. Closeness summed over every piece is worth a few points a
    /// step, lost in a search among captures worth hundreds; this pull is strong per square
    /// yet cannot add up over thirty pieces, so it brings a raiding party, not the whole army.
    pub hunt_front: i32,
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
        let mut guards = [0; 2];
        for c in [Color::Black, Color::White] {
            if royals[c.index()].len() == 1 {
                score[c.index()] -= self.lone_royal;
            }
            let (g, attackers) = royal_counts(pos, &royals, c);
            guards[c.index()] = g;
            score[c.index()] += g * self.royal_guard - attackers * self.royal_danger;
        }
        let us = pos.side_to_move();
        let lead = score[us.index()] - score[us.flip().index()];
        let hunt = self.hunt_bonus(lead, |mover| {
            let hunter = if mover { us } else { us.flip() };
            hunt_counts(pos, &royals, guards[hunter.flip().index()], hunter)
        });
        lead + hunt + self.tempo
    }

    /// The hunt term for a hunter with these counts.
    #[inline]
    pub(super) fn hunt_value(&self, n: &HuntCounts) -> i32 {
        self.hunt * n.closeness + self.hunt_near * n.near + self.hunt_net * n.net
            - self.hunt_guard * n.guards
            + self.hunt_trade * n.taken
            + self.hunt_front * n.front
    }

    /// The hunt term for the side to move, whose lead by every other term (the tempo aside) is
    /// `lead`: `counts(true)` is what the side to move has against the opponent's royals,
    /// `counts(false)` the opponent's against its own (`None`: no royal to close in on). It
    /// grows from nothing at a lead of `hunt_lead` to the whole at twice that, so that no
    /// move gains or loses it all at once. `DaiFeatures::value` repeats it for the fit, on
    /// the unrounded lead.
    #[inline]
    fn hunt_bonus(&self, lead: i32, counts: impl FnOnce(bool) -> Option<HuntCounts>) -> i32 {
        let share = |lead: i32| (lead - self.hunt_lead).min(self.hunt_lead);
        if lead > self.hunt_lead {
            counts(true).map_or(0, |n| self.hunt_value(&n) * share(lead) / self.hunt_lead)
        } else if -lead > self.hunt_lead {
            -counts(false).map_or(0, |n| self.hunt_value(&n) * share(-lead) / self.hunt_lead)
        } else {
            0
        }
    }
}

/// Each side's pieces in the start position, royals aside.
const START_PIECES: i32 = 64;

/// What the hunt term counts for a hunter: see the `hunt*` parameters of [`DaiWeights`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HuntCounts {
    /// The sum over the hunter's pieces, its royals aside (they keep their shelter), of 14 less
    /// the distance in king moves to the nearest enemy royal.
    pub closeness: i32,
    /// The sum over the hunter's pieces within four squares (king moves) of an enemy royal,
    /// its royals aside, of 5 less that distance times the piece's exchange value in pawns
    /// (`dai::value` / 100): a lion next to the royal counts 4 x 19.
    pub near: i32,
    /// Squares round the enemy royals (theirs included, each square once per royal) that the
    /// hunter attacks.
    pub net: i32,
    /// Enemy pieces next to an enemy royal.
    pub guards: i32,
    /// Enemy pieces gone from the board: of the 64 each side starts with, royals aside.
    pub taken: i32,
    /// The sum of 14 less the distance to the nearest enemy royal over the hunter's [`FRONT`]
    /// pieces nearest to one (fewer when it has fewer), its royals aside.
    pub front: i32,
}

/// How many of the hunter's pieces [`HuntCounts::front`] counts.
pub const FRONT: usize = 8;

/// The hunt counts of `hunter`, whose opponent has `guards` pieces next to its royals; `None`
/// when the opponent has no royal to close in on.
fn hunt_counts(
    pos: &Position,
    royals: &[ArrayVec<Square, 4>; 2],
    guards: i32,
    hunter: Color,
) -> Option<HuntCounts> {
    let targets = &royals[hunter.flip().index()];
    if targets.is_empty() {
        return None;
    }
    let (mut closeness, mut near) = (0, 0);
    // Pieces by their distance to the nearest enemy royal, for the front.
    let mut at_distance = [0usize; 15];
    for sq in pos.pieces(hunter) {
        let Some(kind) = pos.piece_on(sq).kind().filter(|k| !k.is_royal()) else {
            continue;
        };
        let nearest = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
        closeness += 14 - nearest;
        at_distance[nearest as usize] += 1;
        if nearest <= 4 {
            near += (5 - nearest) * (crate::dai::value(kind) / 100);
        }
    }
    let (mut front, mut counted) = (0, 0);
    for (d, &n) in at_distance.iter().enumerate() {
        let take = n.min(FRONT - counted);
        front += take as i32 * (14 - d as i32);
        counted += take;
    }
    let mut net = 0;
    for &r in targets {
        let (file, rank) = (r.file(), r.rank());
        for y in rank.saturating_sub(1)..=(rank + 1).min(14) {
            for x in file.saturating_sub(1).max(1)..=(file + 1).min(15) {
                if Square::new(x, y).is_some_and(|sq| pos.is_attacked(sq, hunter)) {
                    net += 1;
                }
            }
        }
    }
    let defender = hunter.flip();
    let left = pos.piece_count(defender) as i32 - targets.len() as i32;
    Some(HuntCounts {
        closeness,
        near,
        net,
        guards,
        taken: (START_PIECES - left).max(0),
        front,
    })
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (i32::from(a.file()) - i32::from(b.file())).abs();
    let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
    df.max(dr)
}
