//! The text format of `yari_weights.txt`: one line per group of parameters, named by its
//! section and kind, so that a person can read what a fit changed.

use super::{
    BOARD_AT, ENEMY_KING_AT, FILE_CLASSES, GUARD_AT, HAND_AT, MOBILITY_AT, NEAR, NEAR_FILES,
    NEAR_RANKS, NUM_PARAMS, OWN_KING_AT, PRESSURE_AT, RANKS, SQUARE_AT, TEMPO_AT, YariWeights,
};
use crate::shogi::Kind;
use crate::yari::PieceType;

pub(super) const WEIGHTS_TEXT: &str = include_str!("../yari_weights.txt");

/// The kind a weights file names: `P N B R K` and the promoted `+P +N +B +R`.
fn kind_of(name: &str) -> Option<PieceType> {
    let (promoted, letter) = match name.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, name),
    };
    let [c] = letter.as_bytes() else {
        return None;
    };
    let kind = PieceType::from_letter(*c)?;
    if promoted {
        kind.can_promote().then(|| kind.promote())
    } else {
        Some(kind)
    }
}

fn kind_name(k: PieceType) -> String {
    let letter = k.letter();
    if k.is_promoted() {
        format!("+{letter}")
    } else {
        letter.to_string()
    }
}

/// Where the four numbers of a `enemy_king`/`own_king KIND ranks-behind` line go.
fn near_row(at: usize, k: PieceType, behind: i32) -> impl Iterator<Item = usize> {
    let row = (behind + 3) as usize;
    (0..NEAR_FILES).map(move |files| at + k.index() * NEAR + files * NEAR_RANKS + row)
}

impl YariWeights {
    /// Reads the text format of `yari_weights.txt`; the error names the line. Parameters a
    /// file leaves out are 0. `rank KIND` (nine bonuses by rank, the older format) sets every
    /// file of each rank.
    pub fn parse(text: &str) -> Result<YariWeights, String> {
        let mut p = vec![0; NUM_PARAMS];
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("yari weights line {}: `{line}`", i + 1);
            let mut words = line.split_whitespace();
            let name = words.next().ok_or_else(bad)?;
            let takes_kind = [
                "material",
                "rank",
                "square",
                "enemy_king",
                "own_king",
                "mobility",
            ];
            let kind = match takes_kind.contains(&name) {
                true => Some(words.next().and_then(kind_of).ok_or_else(bad)?),
                false => None,
            };
            let n = words
                .map(str::parse::<i32>)
                .collect::<Result<Vec<i32>, _>>()
                .map_err(|_| bad())?;
            // Where each number goes, and the numbers (after a square's rank or a king row).
            let (slots, values): (Vec<usize>, Vec<i32>) = match (name, kind, n.as_slice()) {
                // A captured piece goes to hand unpromoted: only unpromoted kinds have a
                // value in hand.
                ("material", Some(k), [_, _]) if !k.is_promoted() => {
                    (vec![BOARD_AT + k.index(), HAND_AT + k.index()], n)
                }
                ("material", Some(k), [_]) if k.is_promoted() => (vec![BOARD_AT + k.index()], n),
                ("rank", Some(k), ranks) if ranks.len() == RANKS => {
                    let at = SQUARE_AT + k.index() * RANKS * FILE_CLASSES;
                    let every_file = ranks.iter().flat_map(|&v| [v; FILE_CLASSES]);
                    (
                        (at..at + RANKS * FILE_CLASSES).collect(),
                        every_file.collect(),
                    )
                }
                ("square", Some(k), [r, rest @ ..]) if (0..RANKS as i32).contains(r) => {
                    let at = SQUARE_AT + (k.index() * RANKS + *r as usize) * FILE_CLASSES;
                    ((at..at + FILE_CLASSES).collect(), rest.to_vec())
                }
                ("enemy_king", Some(k), [behind, rest @ ..]) if (-3..=3).contains(behind) => {
                    (near_row(ENEMY_KING_AT, k, *behind).collect(), rest.to_vec())
                }
                ("own_king", Some(k), [behind, rest @ ..])
                    if (-3..=3).contains(behind) && !is_king(k) =>
                {
                    (near_row(OWN_KING_AT, k, *behind).collect(), rest.to_vec())
                }
                ("mobility", Some(k), [_]) if has_mobility(k) => (vec![MOBILITY_AT + k.index()], n),
                ("king_guard", None, [_]) => (vec![GUARD_AT], n),
                ("king_pressure", None, [_]) => (vec![PRESSURE_AT], n),
                ("tempo", None, [_]) => (vec![TEMPO_AT], n),
                _ => return Err(bad()),
            };
            if slots.len() != values.len() {
                return Err(bad());
            }
            for (at, v) in slots.into_iter().zip(values) {
                p[at] = v;
            }
        }
        Ok(YariWeights { params: p })
    }

    /// The file format `parse` reads, for the kinds yari shogi has.
    pub fn to_text(&self, header: &str) -> String {
        let p = &self.params;
        let join = |at: &mut dyn Iterator<Item = usize>| {
            at.map(|i| p[i].to_string()).collect::<Vec<_>>().join(" ")
        };
        let mut out = crate::eval::comment_lines(header);
        out.push_str("# material KIND on-board in-hand (in hand: unpromoted kinds only)\n");
        for k in PieceType::ALL.into_iter().filter(|&k| !is_king(k)) {
            let (name, i) = (kind_name(k), k.index());
            match k.is_promoted() {
                true => out.push_str(&format!("material {name} {}\n", p[BOARD_AT + i])),
                false => out.push_str(&format!(
                    "material {name} {} {}\n",
                    p[BOARD_AT + i],
                    p[HAND_AT + i]
                )),
            }
        }
        out.push_str(
            "# square KIND RANK, with the rank from the mover's far side (0 = last rank): four\n\
             # bonuses, from the edge files (1 and 7) to the centre file (4)\n",
        );
        for k in PieceType::ALL {
            for r in 0..RANKS {
                let at = SQUARE_AT + (k.index() * RANKS + r) * FILE_CLASSES;
                let row = join(&mut (at..at + FILE_CLASSES));
                out.push_str(&format!("square {} {r} {row}\n", kind_name(k)));
            }
        }
        for (name, at, what) in [
            ("enemy_king", ENEMY_KING_AT, "the enemy king"),
            ("own_king", OWN_KING_AT, "its own king"),
        ] {
            out.push_str(&format!(
                "# {name} KIND RANKS-BEHIND: a piece near {what}, by how many ranks it stands\n\
                 # behind that king from its side (-3 or less to 3 or more): four bonuses, by\n\
                 # files apart (0, 1, 2, 3 or more)\n"
            ));
            for k in PieceType::ALL {
                if name == "own_king" && is_king(k) {
                    continue;
                }
                for behind in -3..=3 {
                    let row = join(&mut near_row(at, k, behind));
                    out.push_str(&format!("{name} {} {behind} {row}\n", kind_name(k)));
                }
            }
        }
        out.push_str("# mobility KIND: per square the piece attacks that its side does not hold\n");
        for k in PieceType::ALL.into_iter().filter(|&k| has_mobility(k)) {
            let v = p[MOBILITY_AT + k.index()];
            out.push_str(&format!("mobility {} {v}\n", kind_name(k)));
        }
        out.push_str(&format!(
            "king_guard {}\nking_pressure {}\ntempo {}\n",
            p[GUARD_AT], p[PRESSURE_AT], p[TEMPO_AT]
        ));
        out
    }

    /// Value of kind `k` on the board (tests).
    #[cfg(test)]
    pub(super) fn on_board(&self, k: PieceType) -> i32 {
        self.params[BOARD_AT + k.index()]
    }

    /// Value of kind `k` in hand (tests).
    #[cfg(test)]
    pub(super) fn in_hand(&self, k: PieceType) -> i32 {
        self.params[HAND_AT + k.index()]
    }

    #[cfg(test)]
    pub(super) fn tempo(&self) -> i32 {
        self.params[TEMPO_AT]
    }
}

fn is_king(k: PieceType) -> bool {
    k == PieceType::King
}

/// Kinds with a mobility term (`super::terms` leaves the king and the pawn out).
fn has_mobility(k: PieceType) -> bool {
    !matches!(k, PieceType::King | PieceType::Pawn)
}
