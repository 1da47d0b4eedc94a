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
use crate::shogi::Color;
use arrayvec::ArrayVec;
use std::sync::{Arc, OnceLock};

const WEIGHTS_TEXT: &str = include_str!("dai_weights.txt");

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

impl DaiWeights {
    /// From the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        // Without mobility weights the piece loop keeps no trace of them.
        if self.mobility == [0; MOBILITY_GROUPS] {
            self.evaluate_with::<false>(pos)
        } else {
            self.evaluate_with::<true>(pos)
        }
    }

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

// ---- the parameters as data ----------------------------------------------------------------

/// The name a weights file gives `kind`: its English name in lower case, words joined by `-`
/// (`pawn`, `free-king`, `promoted-kirin`).
pub fn kind_name(kind: PieceType) -> String {
    let mut out = String::new();
    for (i, ch) in format!("{kind:?}").chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

impl DaiWeights {
    fn zero() -> DaiWeights {
        DaiWeights {
            material: [0; KINDS],
            advance: 0,
            in_zone: 0,
            royal_guard: 0,
            royal_danger: 0,
            lone_royal: 0,
            mobility: [0; MOBILITY_GROUPS],
            hunt: 0,
            hunt_lead: 0,
            tempo: 0,
        }
    }

    /// The parameters that are one number, by their names in the file, in the order it writes
    /// them; `scalar_mut` reads the same names.
    fn scalars(&self) -> [(&'static str, i32); 8] {
        [
            ("advance", self.advance),
            ("in_zone", self.in_zone),
            ("royal_guard", self.royal_guard),
            ("royal_danger", self.royal_danger),
            ("lone_royal", self.lone_royal),
            ("hunt", self.hunt),
            ("hunt_lead", self.hunt_lead),
            ("tempo", self.tempo),
        ]
    }

    fn scalar_mut(&mut self, name: &str) -> Option<&mut i32> {
        Some(match name {
            "advance" => &mut self.advance,
            "in_zone" => &mut self.in_zone,
            "royal_guard" => &mut self.royal_guard,
            "royal_danger" => &mut self.royal_danger,
            "lone_royal" => &mut self.lone_royal,
            "hunt" => &mut self.hunt,
            "hunt_lead" => &mut self.hunt_lead,
            "tempo" => &mut self.tempo,
            _ => return None,
        })
    }

    /// Reads the text format of `dai_weights.txt`: every parameter exactly once. The error
    /// names the line, or the parameter that is missing.
    pub fn parse(text: &str) -> Result<DaiWeights, String> {
        let mut w = DaiWeights::zero();
        let mut seen = std::collections::HashSet::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| format!("dai weights line {}: {why}: `{line}`", i + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let (key, value) = match *words.as_slice() {
                [table @ ("material" | "mobility"), name, value] => {
                    (format!("{table} {name}"), value)
                }
                [name, value] => (name.to_string(), value),
                _ => return Err(bad("expected a name and a number")),
            };
            let value: i32 = value.parse().map_err(|_| bad("not an integer"))?;
            let slot = if let Some(name) = key.strip_prefix("material ") {
                let kind = PieceType::ALL
                    .into_iter()
                    .find(|&k| !k.is_royal() && kind_name(k) == name)
                    .ok_or_else(|| bad("no such non-royal kind"))?;
                &mut w.material[kind.index()]
            } else if let Some(name) = key.strip_prefix("mobility ") {
                let group = GROUP_NAMES
                    .iter()
                    .position(|&g| g == name)
                    .ok_or_else(|| bad("no such mobility group"))?;
                &mut w.mobility[group]
            } else {
                w.scalar_mut(&key).ok_or_else(|| bad("unknown parameter"))?
            };
            *slot = value;
            if !seen.insert(key) {
                return Err(bad("given twice"));
            }
        }
        let expected = PieceType::ALL
            .into_iter()
            .filter(|k| !k.is_royal())
            .map(|k| format!("material {}", kind_name(k)))
            .chain(GROUP_NAMES.iter().map(|g| format!("mobility {g}")))
            .chain(w.scalars().map(|(name, _)| name.to_string()));
        for key in expected {
            if !seen.contains(&key) {
                return Err(format!("dai weights: no `{key}` line"));
            }
        }
        if w.hunt_lead <= 0 {
            return Err(format!(
                "dai weights: hunt_lead must be positive, not {}",
                w.hunt_lead
            ));
        }
        Ok(w)
    }

    /// The file format `parse` reads, every parameter on a line of its own.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str(&format!("# {line}\n"));
        }
        out.push_str("# material KIND: per piece on the board (royals have none)\n");
        for k in PieceType::ALL {
            if !k.is_royal() {
                let v = self.material[k.index()];
                out.push_str(&format!("material {} {v}\n", kind_name(k)));
            }
        }
        out.push_str("# mobility GROUP: per square a slider or lion can move to\n");
        for (name, v) in GROUP_NAMES.iter().zip(self.mobility) {
            out.push_str(&format!("mobility {name} {v}\n"));
        }
        for (name, v) in self.scalars() {
            out.push_str(&format!("{name} {v}\n"));
        }
        out
    }
}

/// The evaluation the engine plays dai shogi with: `dai_weights.txt`, read once.
pub fn embedded() -> Arc<DaiWeights> {
    static WEIGHTS: OnceLock<Arc<DaiWeights>> = OnceLock::new();
    Arc::clone(
        WEIGHTS.get_or_init(|| match DaiWeights::parse(WEIGHTS_TEXT) {
            Ok(w) => Arc::new(w),
            Err(e) => unreachable!("the embedded dai weights are checked by a test: {e}"),
        }),
    )
}

// ---- the parameters as a vector, for the fit -----------------------------------------------

/// Parameters as one vector, in this order: material by kind index (`KINDS`, the royals' and
/// index 0 unused), advance, in_zone, royal_guard, royal_danger, lone_royal, mobility by group,
/// tempo. The evaluation is the dot product of this vector with [`DaiFeatures::linear`] plus
/// the hunt term, which is not linear in the parameters and is left out of the vector:
/// `kirin-tune dai-fit` keeps `hunt` and `hunt_lead` as they are.
pub const NUM_PARAMS: usize = KINDS + 5 + MOBILITY_GROUPS + 1;
const ADVANCE_AT: usize = KINDS;
const IN_ZONE_AT: usize = KINDS + 1;
const GUARD_AT: usize = KINDS + 2;
const DANGER_AT: usize = KINDS + 3;
const LONE_AT: usize = KINDS + 4;
const MOBILITY_AT: usize = KINDS + 5;
const TEMPO_AT: usize = MOBILITY_AT + MOBILITY_GROUPS;

/// What the parameters multiply in one position, from the side to move's point of view (the
/// mover's counts minus the opponent's), and what the hunt term needs.
#[derive(Clone, Debug, PartialEq)]
pub struct DaiFeatures {
    pub linear: Vec<f64>,
    /// How close the mover's pieces stand to the opponent's royals, and the opponent's to the
    /// mover's (`hunt_closeness`; `None`: no royal to close in on).
    pub closeness: [Option<i32>; 2],
}

impl DaiFeatures {
    /// The evaluation for the parameter vector `params` with `weights`' hunt and hunt_lead.
    pub fn value(&self, params: &[f64], weights: &DaiWeights) -> f64 {
        let v: f64 = params.iter().zip(&self.linear).map(|(a, b)| a * b).sum();
        let lead = v - params[TEMPO_AT];
        let (hunt, hunt_lead) = (f64::from(weights.hunt), f64::from(weights.hunt_lead));
        // As `DaiWeights::hunt_bonus`, on the unrounded lead.
        let bonus = if lead >= hunt_lead {
            self.closeness[0].map_or(0.0, |n| hunt * f64::from(n))
        } else if -lead >= hunt_lead {
            -self.closeness[1].map_or(0.0, |n| hunt * f64::from(n))
        } else {
            0.0
        };
        v + bonus
    }
}

impl DaiWeights {
    pub fn to_params(&self) -> Vec<f64> {
        let mut p = Vec::with_capacity(NUM_PARAMS);
        p.extend(self.material.iter().map(|&v| f64::from(v)));
        p.extend(
            [
                self.advance,
                self.in_zone,
                self.royal_guard,
                self.royal_danger,
                self.lone_royal,
            ]
            .map(f64::from),
        );
        p.extend(self.mobility.iter().map(|&v| f64::from(v)));
        p.push(f64::from(self.tempo));
        p
    }

    /// These weights with the linear parameters nearest to `p` (rounded to integers; the
    /// royals' material stays at zero); `p` must have `NUM_PARAMS` entries.
    pub fn with_params(&self, p: &[f64]) -> DaiWeights {
        let at = |i: usize| p.get(i).copied().unwrap_or(0.0).round() as i32;
        let mut w = self.clone();
        for k in PieceType::ALL {
            if !k.is_royal() {
                w.material[k.index()] = at(k.index());
            }
        }
        w.advance = at(ADVANCE_AT);
        w.in_zone = at(IN_ZONE_AT);
        w.royal_guard = at(GUARD_AT);
        w.royal_danger = at(DANGER_AT);
        w.lone_royal = at(LONE_AT);
        for g in 0..MOBILITY_GROUPS {
            w.mobility[g] = at(MOBILITY_AT + g);
        }
        w.tempo = at(TEMPO_AT);
        w
    }

    /// The features of `pos`: the same counts `evaluate` makes, every term whatever its weight.
    pub fn features(pos: &Position) -> DaiFeatures {
        let mut f = vec![0.0; NUM_PARAMS];
        let us = pos.side_to_move();
        let royals = royals_of(pos);
        for (c, sign) in [(us, 1.0), (us.flip(), -1.0)] {
            for sq in pos.pieces(c) {
                let Some(kind) = pos.piece_on(sq).kind() else {
                    continue;
                };
                if kind.is_royal() {
                    continue;
                }
                f[kind.index()] += sign;
                let adv = advance_of(c, sq);
                if advances(kind) {
                    f[ADVANCE_AT] += sign * f64::from(adv);
                }
                if earns_in_zone(pos, kind, adv, sq) {
                    f[IN_ZONE_AT] += sign;
                }
                let group = MOBILITY_GROUP[kind.index()];
                if group != NO_GROUP {
                    f[MOBILITY_AT + usize::from(group)] += sign * f64::from(pos.reach(sq));
                }
            }
            if royals[c.index()].len() == 1 {
                f[LONE_AT] -= sign;
            }
            let (guards, attackers) = royal_counts(pos, &royals, c);
            f[GUARD_AT] += sign * f64::from(guards);
            f[DANGER_AT] -= sign * f64::from(attackers);
        }
        f[TEMPO_AT] = 1.0;
        let closeness = [us, us.flip()].map(|hunter| {
            let targets = &royals[hunter.flip().index()];
            (!targets.is_empty()).then(|| hunt_closeness(pos, hunter, targets))
        });
        DaiFeatures {
            linear: f,
            closeness,
        }
    }
}

/// The per-thread stack: the parameters only, since each evaluation starts from scratch.
pub struct DaiEvalStack {
    weights: Arc<DaiWeights>,
}

impl DaiEvalStack {
    pub fn new(weights: &Arc<DaiWeights>) -> DaiEvalStack {
        DaiEvalStack {
            weights: Arc::clone(weights),
        }
    }

    #[inline]
    pub fn weights(&self) -> &DaiWeights {
        &self.weights
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dai::{RepetitionRule, Rules, value};

    fn with_mobility() -> DaiWeights {
        DaiWeights {
            mobility: [3, 5, 7, 11],
            ..(*embedded()).clone()
        }
    }

    #[test]
    fn the_start_position_is_even_but_for_the_tempo() {
        for w in [(*embedded()).clone(), with_mobility()] {
            assert_eq!(w.evaluate(&Position::startpos()), w.tempo);
        }
    }

    #[test]
    fn material_and_a_lost_royal_count() {
        // The hunt for the royal (the lion's loss puts White far ahead) is left out here.
        let w = DaiWeights {
            hunt: 0,
            ..(*embedded()).clone()
        };
        let start = Position::startpos();
        // Black without its lion (the `L!` on rank m).
        let sfen = crate::dai::START_SFEN.replace("1X'1A'1WOL!XW1A'1X'1", "1X'1A'1WO1XW1A'1X'1");
        let no_lion = Position::from_sfen(&sfen).unwrap();
        let lost = w.evaluate(&start) - w.evaluate(&no_lion);
        let lion = w.material[PieceType::Lion.index()];
        assert!(
            (lion - 100..=lion + 100).contains(&lost),
            "lion worth {lost}, expected about {lion}"
        );
        // White to move sees the mirror image.
        let flipped = sfen.replace(" b - 1", " w - 1");
        let white = Position::from_sfen(&flipped).unwrap();
        assert_eq!(
            w.evaluate(&white) - w.tempo,
            -(w.evaluate(&no_lion) - w.tempo)
        );
    }

    /// Positions along random games from the start, captures half the time so that royals are
    /// approached and taken, with a fixed seed.
    fn random_positions(games: usize, plies: usize) -> Vec<Position> {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = Position::startpos();
            for _ in 0..plies {
                out.push(pos.clone());
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.royals(pos.side_to_move()) == 0 {
                    break;
                }
                let captures: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|&m| pos.is_capture(m))
                    .collect();
                let pool = if !captures.is_empty() && next().is_multiple_of(2) {
                    &captures
                } else {
                    &moves
                };
                pos.do_move(pool[(next() % pool.len() as u64) as usize]);
            }
        }
        out
    }

    /// The squares the piece on `sq` can move to, from the moves generated for it with its side
    /// to move (a null move gives the opponent the move): every destination but its own square.
    fn reach_by_moves(pos: &Position, sq: Square) -> i32 {
        let mut p = pos.clone();
        p.set_rules(Rules {
            repetition: RepetitionRule::Off,
            ..p.rules()
        });
        if p.piece_on(sq).color() != p.side_to_move() {
            p.do_null_move();
        }
        let mut to: Vec<Square> = p
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == Some(sq) && m.to() != Some(sq))
            .filter_map(|m| m.to())
            .collect();
        to.sort_by_key(|s| s.index());
        to.dedup();
        to.len() as i32
    }

    /// The evaluation as its terms are defined, piece by piece against every royal.
    fn by_definition(w: &DaiWeights, pos: &Position) -> i32 {
        let side = |c: Color| {
            let mut score = 0;
            let royals: Vec<Square> = pos
                .pieces(c)
                .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
                .collect();
            for sq in pos.pieces(c) {
                let kind = pos.piece_on(sq).kind().unwrap();
                if kind.is_royal() {
                    continue;
                }
                score += w.material[kind.index()];
                let adv = advance_of(c, sq);
                if matches!(
                    kind,
                    PieceType::Pawn
                        | PieceType::GoBetween
                        | PieceType::Iron
                        | PieceType::Stone
                        | PieceType::Copper
                ) {
                    score += adv * w.advance;
                }
                if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                    score += w.in_zone;
                }
                let group = mobility_group(kind);
                if group != NO_GROUP {
                    score += w.mobility[usize::from(group)] * reach_by_moves(pos, sq);
                }
            }
            if royals.len() == 1 {
                score -= w.lone_royal;
            }
            let dist = |a: Square, b: Square| {
                let df = (i32::from(a.file()) - i32::from(b.file())).abs();
                let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
                df.max(dr)
            };
            for &r in &royals {
                score +=
                    pos.pieces(c).filter(|&sq| dist(sq, r) == 1).count() as i32 * w.royal_guard;
                score -= pos.pieces(c.flip()).filter(|&sq| dist(sq, r) <= 2).count() as i32
                    * w.royal_danger;
            }
            score
        };
        let us = pos.side_to_move();
        let (mut a, mut b) = (side(us), side(us.flip()));
        let royals_of = |c: Color| -> Vec<Square> {
            pos.pieces(c)
                .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
                .collect()
        };
        let closeness = |c: Color, targets: &[Square]| -> i32 {
            let mut total = 0;
            for sq in pos.pieces(c) {
                let d = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
                total += 14 - d;
            }
            total
        };
        let (ra, rb) = (royals_of(us.flip()), royals_of(us));
        let (a0, b0) = (a, b);
        if a0 - b0 >= w.hunt_lead && !ra.is_empty() {
            a += w.hunt * closeness(us, &ra);
        }
        if b0 - a0 >= w.hunt_lead && !rb.is_empty() {
            b += w.hunt * closeness(us.flip(), &rb);
        }
        a - b + w.tempo
    }

    #[test]
    fn the_evaluation_equals_its_definition_along_random_games() {
        let positions = random_positions(6, 300);
        assert!(positions.len() > 500, "{} positions", positions.len());
        let plain = (*embedded()).clone();
        let mobile = with_mobility();
        for (i, pos) in positions.iter().enumerate() {
            assert_eq!(
                plain.evaluate(pos),
                by_definition(&plain, pos),
                "{}",
                pos.to_sfen()
            );
            // The move generator is slow next to `reach`: every fifth position.
            if i % 5 == 0 {
                assert_eq!(
                    mobile.evaluate(pos),
                    by_definition(&mobile, pos),
                    "{}",
                    pos.to_sfen()
                );
            }
        }
    }

    /// The evaluation as it was hand-set in code before its parameters became a file: the
    /// material from `dai::value`, the other terms fixed, no mobility.
    fn hand_set(pos: &Position) -> i32 {
        use PieceType::*;
        let (advance, in_zone, royal_guard, royal_danger, lone_royal) = (3, 15, 7, 20, 75);
        let (hunt, hunt_lead, tempo) = (2, 1500, 15);
        let mut score = [0i32; 2];
        let mut royals: [ArrayVec<Square, 4>; 2] = [ArrayVec::new(), ArrayVec::new()];
        for c in [Color::Black, Color::White] {
            let side = &mut score[c.index()];
            for sq in pos.pieces(c) {
                let kind = pos.piece_on(sq).kind().unwrap();
                if kind.is_royal() {
                    let _ = royals[c.index()].try_push(sq);
                    continue;
                }
                *side += value(kind);
                let adv = advance_of(c, sq);
                if matches!(kind, Pawn | GoBetween | Iron | Stone | Copper) {
                    *side += adv * advance;
                }
                if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                    *side += in_zone;
                }
            }
        }
        for c in [Color::Black, Color::White] {
            let mine = &royals[c.index()];
            if mine.len() == 1 {
                score[c.index()] -= lone_royal;
            }
            for &r in mine {
                for sq in Square::all() {
                    let p = pos.piece_on(sq);
                    if sq == r || p.is_none() || distance(sq, r) > 2 {
                        continue;
                    }
                    if p.color() == c {
                        if distance(sq, r) == 1 {
                            score[c.index()] += royal_guard;
                        }
                    } else {
                        score[c.index()] -= royal_danger;
                    }
                }
            }
        }
        for c in [Color::Black, Color::White] {
            let (i, them) = (c.index(), c.flip().index());
            if score[i] - score[them] >= hunt_lead && !royals[them].is_empty() {
                score[i] += hunt * hunt_closeness(pos, c, &royals[them]);
            }
        }
        let us = pos.side_to_move().index();
        score[us] - score[1 - us] + tempo
    }

    #[test]
    fn the_shipped_weights_are_the_hand_set_evaluation() {
        let w = embedded();
        let positions = random_positions(4, 300);
        let mut far_ahead = 0;
        for pos in &positions {
            let v = hand_set(pos);
            assert_eq!(w.evaluate(pos), v, "{}", pos.to_sfen());
            far_ahead += usize::from(v.abs() >= w.hunt_lead);
        }
        // The hunt term is among what was compared.
        assert!(far_ahead > 10, "{far_ahead} of {}", positions.len());
    }

    #[test]
    fn the_evaluation_is_the_dot_product_of_parameters_and_features_plus_the_hunt() {
        let w = with_mobility();
        let p = w.to_params();
        assert_eq!(p.len(), NUM_PARAMS);
        assert_eq!(w.with_params(&p), w);
        for pos in random_positions(3, 300) {
            let f = DaiWeights::features(&pos);
            assert_eq!(
                f.value(&p, &w),
                f64::from(w.evaluate(&pos)),
                "{}",
                pos.to_sfen()
            );
        }
    }

    #[test]
    fn the_weights_file_round_trips() {
        for w in [(*embedded()).clone(), with_mobility()] {
            assert_eq!(DaiWeights::parse(&w.to_text("round trip")).unwrap(), w);
        }
        assert_eq!(
            DaiWeights::parse(WEIGHTS_TEXT).unwrap().to_text(""),
            embedded().to_text("")
        );
    }

    #[test]
    fn bad_lines_are_named() {
        let good = embedded().to_text("");
        let with = |line: &str| format!("{good}{line}\n");
        let line_no = good.lines().count() + 1;
        for bad in [
            "material pawn x",
            "material king 5000",
            "material dragon 1",
            "mobility rook 3",
            "tempo",
            "tempo 1 2",
            "speed 3",
            "tempo 20",
        ] {
            let e = DaiWeights::parse(&with(bad)).unwrap_err();
            assert!(e.contains(&format!("line {line_no}:")), "{bad}: {e}");
        }
        let e = DaiWeights::parse(&good.replace("material lion 1900\n", "")).unwrap_err();
        assert!(e.contains("material lion"), "{e}");
        let e = DaiWeights::parse(&good.replace("hunt_lead 1500", "hunt_lead 0")).unwrap_err();
        assert!(e.contains("hunt_lead"), "{e}");
    }

    #[test]
    fn kind_names_are_english_words() {
        assert_eq!(kind_name(PieceType::Pawn), "pawn");
        assert_eq!(kind_name(PieceType::FreeKing), "free-king");
        assert_eq!(kind_name(PieceType::PromotedKirin), "promoted-kirin");
    }
}
