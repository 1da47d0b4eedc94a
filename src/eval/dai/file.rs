//! The evaluation's parameters as data: the text format of `dai_weights.txt`, which a fit
//! writes and the engine reads once.

use super::{DaiWeights, GROUP_NAMES, MOBILITY_GROUPS};
use crate::dai::PieceType;
use crate::dai::types::KINDS;
use crate::eval::{comment_lines, embedded_weights};
use std::sync::{Arc, OnceLock};

pub(super) const WEIGHTS_TEXT: &str = include_str!("../dai_weights.txt");

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
            hunt_near: 0,
            hunt_net: 0,
            hunt_guard: 0,
            hunt_trade: 0,
            hunt_front: 0,
            tempo: 0,
        }
    }

    /// The parameters that are one number, by their names in the file, in the order it writes
    /// them; `scalar_mut` reads the same names.
    fn scalars(&self) -> [(&'static str, i32); 13] {
        [
            ("advance", self.advance),
            ("in_zone", self.in_zone),
            ("royal_guard", self.royal_guard),
            ("royal_danger", self.royal_danger),
            ("lone_royal", self.lone_royal),
            ("hunt", self.hunt),
            ("hunt_lead", self.hunt_lead),
            ("hunt_near", self.hunt_near),
            ("hunt_net", self.hunt_net),
            ("hunt_guard", self.hunt_guard),
            ("hunt_trade", self.hunt_trade),
            ("hunt_front", self.hunt_front),
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
            "hunt_near" => &mut self.hunt_near,
            "hunt_net" => &mut self.hunt_net,
            "hunt_guard" => &mut self.hunt_guard,
            "hunt_trade" => &mut self.hunt_trade,
            "hunt_front" => &mut self.hunt_front,
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
        let mut out = comment_lines(header);
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
    embedded_weights(&WEIGHTS, WEIGHTS_TEXT, DaiWeights::parse)
}
