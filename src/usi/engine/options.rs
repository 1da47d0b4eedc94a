//! The engine's USI options: what `usi` declares, how a `setoption` value is checked,
//! and the typed settings the loop and the search read.
//!
//! One table drives everything, so a declared option can never be one that `setoption`
//! refuses, and the defaults the GUI is shown are the values the engine starts with.

use std::path::{Path, PathBuf};

use crate::book::{BookOptions, Choice};
use crate::engine::VARIANTS;
use crate::game::{DeclinedPawnRule, EnteringKingRule, RuleOptions};
use crate::search::SearchOptions;
use crate::search::params::Params;
use crate::search::skill::{self, Skill};
use crate::search::time::TimeOptions;
use crate::usi::{EMPTY, OptionDecl};

/// Typed values of every option.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub hash_mb: usize,
    pub ponder: bool,
    pub threads: usize,
    pub multipv: usize,
    pub network_delay: u64,
    pub network_delay2: u64,
    pub auto_network_delay: bool,
    pub minimum_thinking_time: u64,
    pub slow_mover: u32,
    pub round_up_to_full_second: bool,
    pub entering_king_rule: EnteringKingRule,
    pub max_moves_to_draw: u32,
    pub draw_value_black: i32,
    pub draw_value_white: i32,
    pub resign_value: i32,
    pub own_book: bool,
    /// As the GUI sent it; see [`Options::book_path`].
    pub book_file: String,
    /// How book moves are chosen (`BookMoves`, `BookEvalDiff`, ...).
    pub book: BookOptions,
    pub depth_limit: u32,
    pub nodes_limit: u64,
    pub consideration_mode: bool,
    pub pv_interval_ms: u64,
    pub output_fail_lh_pv: bool,
    pub mate_hash_mb: usize,
    /// Evaluation file (network or linear weights); empty = the embedded network.
    pub eval_file: String,
    /// The game `position startpos` and SFENs belong to: one of [`VARIANTS`].
    pub variant: &'static str,
    /// Dai shogi: whether a pawn that declined a promotion keeps its later chances.
    pub dai_declined_pawn: DeclinedPawnRule,
    /// Search margins and reductions; options only in a build with the `tune` feature.
    pub params: Params,
    /// `UCI_LimitStrength`: play at `UCI_Elo`.
    pub limit_strength: bool,
    pub uci_elo: i32,
    /// `SkillLevel` (YaneuraOu's name; `Skill Level` is read as the same option): 20 is full
    /// strength. `UCI_LimitStrength` wins when both are set.
    pub skill_level: u8,
    /// Whether a weakened level holds its answer for a moment (off for calibration runs).
    pub limit_strength_hold: bool,
    /// Seed of a weakened level's choices; 0 draws one when the engine starts.
    pub limit_strength_seed: u64,
}

/// Other names GUIs send for an option.
const ALIASES: [(&str, &str); 1] = [("Skill Level", "SkillLevel")];

/// What `setoption` may carry for one option, with its bounds.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Check(bool),
    Spin { default: i64, min: i64, max: i64 },
    Combo(&'static str, &'static [&'static str]),
    Filename(&'static str),
}

/// A value that has passed the option's type check and bounds.
#[derive(Clone, Copy)]
enum Value<'a> {
    Bool(bool),
    Int(i64),
    Text(&'a str),
}

struct Spec {
    name: &'static str,
    kind: Kind,
    set: fn(&mut Options, Value<'_>),
}

/// Above what this machine class holds, and far below where `usize` arithmetic on
/// megabytes could overflow; whether the memory is really there is checked at `isready`.
const MAX_HASH_MB: i64 = 32 * 1024;
const MAX_THREADS: i64 = 256;

/// The options that select the game: Fairy-Stockfish's GUIs send `UCI_Variant`; `USI_Variant`
/// is the same option under the protocol's own prefix.
pub const VARIANT_OPTIONS: [&str; 2] = ["UCI_Variant", "USI_Variant"];

const DAI_DECLINED_PAWN_RULES: [&str; 2] =
    [DeclinedPawnRule::NAMES[0].0, DeclinedPawnRule::NAMES[1].0];

const ENTERING_KING_RULES: [&str; 6] = [
    EnteringKingRule::NAMES[0].0,
    EnteringKingRule::NAMES[1].0,
    EnteringKingRule::NAMES[2].0,
    EnteringKingRule::NAMES[3].0,
    EnteringKingRule::NAMES[4].0,
    EnteringKingRule::NAMES[5].0,
];

/// Spin values arrive as `i64` already clamped to the declared range, so the casts
/// below cannot wrap: every range fits its field.
fn int(value: Value<'_>) -> i64 {
    match value {
        Value::Int(n) => n,
        Value::Bool(b) => i64::from(b),
        Value::Text(_) => 0,
    }
}

fn flag(value: Value<'_>) -> bool {
    matches!(value, Value::Bool(true))
}

fn text(value: Value<'_>) -> String {
    match value {
        Value::Text(text) => text.to_string(),
        _ => String::new(),
    }
}

fn spin(default: i64, min: i64, max: i64) -> Kind {
    Kind::Spin { default, min, max }
}

fn specs() -> Vec<Spec> {
    let time = TimeOptions::default();
    let search = SearchOptions::default();
    let cores = (search.threads as i64).clamp(1, MAX_THREADS);
    let mut specs = vec![
        Spec {
            name: "USI_Hash",
            kind: spin(256, 1, MAX_HASH_MB),
            set: |o, v| o.hash_mb = int(v) as usize,
        },
        Spec {
            name: "USI_Ponder",
            kind: Kind::Check(false),
            set: |o, v| o.ponder = flag(v),
        },
        Spec {
            name: "Threads",
            kind: spin(cores, 1, MAX_THREADS),
            set: |o, v| o.threads = int(v) as usize,
        },
        Spec {
            name: "MultiPV",
            kind: spin(1, 1, 600),
            set: |o, v| o.multipv = int(v) as usize,
        },
        Spec {
            name: "NetworkDelay",
            kind: spin(time.network_delay as i64, 0, 10_000),
            set: |o, v| o.network_delay = int(v) as u64,
        },
        Spec {
            name: "NetworkDelay2",
            kind: spin(time.network_delay2 as i64, 0, 10_000),
            set: |o, v| o.network_delay2 = int(v) as u64,
        },
        Spec {
            name: "AutoNetworkDelay",
            kind: Kind::Check(time.auto_network_delay),
            set: |o, v| o.auto_network_delay = flag(v),
        },
        Spec {
            name: "MinimumThinkingTime",
            kind: spin(time.minimum_thinking_time as i64, 0, 100_000),
            set: |o, v| o.minimum_thinking_time = int(v) as u64,
        },
        Spec {
            name: "SlowMover",
            kind: spin(i64::from(time.slow_mover), 1, 1000),
            set: |o, v| o.slow_mover = int(v) as u32,
        },
        Spec {
            name: "RoundUpToFullSecond",
            kind: Kind::Check(time.round_up_to_full_second),
            set: |o, v| o.round_up_to_full_second = flag(v),
        },
        Spec {
            name: "EnteringKingRule",
            kind: Kind::Combo("CSARule27", &ENTERING_KING_RULES),
            set: |o, v| {
                if let Some(rule) = EnteringKingRule::from_name(&text(v)) {
                    o.entering_king_rule = rule;
                }
            },
        },
        Spec {
            name: "MaxMovesToDraw",
            kind: spin(0, 0, 100_000),
            set: |o, v| o.max_moves_to_draw = int(v) as u32,
        },
        Spec {
            name: "DrawValueBlack",
            kind: spin(i64::from(search.draw_value_black), -30_000, 30_000),
            set: |o, v| o.draw_value_black = int(v) as i32,
        },
        Spec {
            name: "DrawValueWhite",
            kind: spin(i64::from(search.draw_value_white), -30_000, 30_000),
            set: |o, v| o.draw_value_white = int(v) as i32,
        },
        Spec {
            name: "ResignValue",
            kind: spin(i64::from(search.resign_value), 0, 99_999),
            set: |o, v| o.resign_value = int(v) as i32,
        },
        Spec {
            name: "UCI_LimitStrength",
            kind: Kind::Check(false),
            set: |o, v| o.limit_strength = flag(v),
        },
        Spec {
            name: "UCI_Elo",
            kind: spin(
                i64::from(skill::MAX_ELO),
                i64::from(skill::MIN_ELO),
                i64::from(skill::MAX_ELO),
            ),
            set: |o, v| o.uci_elo = int(v) as i32,
        },
        Spec {
            name: "SkillLevel",
            kind: spin(20, 0, 20),
            set: |o, v| o.skill_level = int(v) as u8,
        },
        Spec {
            name: "LimitStrengthDelay",
            kind: Kind::Check(true),
            set: |o, v| o.limit_strength_hold = flag(v),
        },
        Spec {
            name: "LimitStrengthSeed",
            kind: spin(0, 0, i64::from(i32::MAX)),
            set: |o, v| o.limit_strength_seed = int(v) as u64,
        },
        Spec {
            name: "USI_OwnBook",
            kind: Kind::Check(true),
            set: |o, v| o.own_book = flag(v),
        },
        Spec {
            name: "BookFile",
            kind: Kind::Filename(crate::book::DEFAULT_BOOK_NAME),
            set: |o, v| o.book_file = text(v),
        },
        Spec {
            name: "BookMoves",
            kind: spin(16, 0, 10_000),
            set: |o, v| o.book.moves = int(v) as u32,
        },
        Spec {
            name: "BookEvalDiff",
            kind: spin(30, 0, 99_999),
            set: |o, v| o.book.eval_diff = int(v) as i32,
        },
        Spec {
            name: "BookEvalBlackLimit",
            kind: spin(0, -99_999, 99_999),
            set: |o, v| o.book.black_limit = int(v) as i32,
        },
        Spec {
            name: "BookEvalWhiteLimit",
            kind: spin(-140, -99_999, 99_999),
            set: |o, v| o.book.white_limit = int(v) as i32,
        },
        Spec {
            name: "BookDepthLimit",
            kind: spin(0, 0, 99_999),
            set: |o, v| o.book.depth_limit = int(v) as i32,
        },
        Spec {
            name: "BookIgnoreRate",
            kind: spin(0, 0, 100),
            set: |o, v| o.book.ignore_rate = int(v) as u32,
        },
        Spec {
            name: "BookMoveChoice",
            kind: Kind::Combo("Uniform", &Choice::NAMES),
            set: |o, v| {
                if let Some(choice) = Choice::from_name(&text(v)) {
                    o.book.choice = choice;
                }
            },
        },
        Spec {
            name: "BookPvMoves",
            kind: spin(8, 1, 246),
            set: |o, v| o.book.pv_moves = int(v) as u32,
        },
        Spec {
            name: "IgnoreBookPly",
            kind: Kind::Check(true),
            set: |o, v| o.book.ignore_ply = flag(v),
        },
        Spec {
            name: "BookOnTheFly",
            kind: Kind::Check(false),
            set: |o, v| o.book.on_the_fly = flag(v),
        },
        Spec {
            name: "DepthLimit",
            kind: spin(0, 0, 1000),
            set: |o, v| o.depth_limit = int(v) as u32,
        },
        Spec {
            name: "NodesLimit",
            kind: spin(0, 0, i64::MAX),
            set: |o, v| o.nodes_limit = int(v) as u64,
        },
        Spec {
            name: "ConsiderationMode",
            kind: Kind::Check(false),
            set: |o, v| o.consideration_mode = flag(v),
        },
        Spec {
            name: "PvInterval",
            kind: spin(300, 0, 100_000),
            set: |o, v| o.pv_interval_ms = int(v) as u64,
        },
        Spec {
            name: "OutputFailLHPV",
            kind: Kind::Check(true),
            set: |o, v| o.output_fail_lh_pv = flag(v),
        },
        Spec {
            name: "MateHash",
            kind: spin(64, 1, MAX_HASH_MB),
            set: |o, v| o.mate_hash_mb = int(v) as usize,
        },
        Spec {
            name: "EvalFile",
            kind: Kind::Filename(""),
            set: |o, v| o.eval_file = text(v),
        },
        // The game; see `VARIANT_OPTIONS`.
        Spec {
            name: VARIANT_OPTIONS[0],
            kind: Kind::Combo(VARIANTS[0], &VARIANTS),
            set: set_variant,
        },
        Spec {
            name: VARIANT_OPTIONS[1],
            kind: Kind::Combo(VARIANTS[0], &VARIANTS),
            set: set_variant,
        },
        Spec {
            name: "DaiDeclinedPawn",
            kind: Kind::Combo(
                DeclinedPawnRule::KeepsChances.name(),
                &DAI_DECLINED_PAWN_RULES,
            ),
            set: |o, v| {
                if let Some(rule) = DeclinedPawnRule::from_name(&text(v)) {
                    o.dai_declined_pawn = rule;
                }
            },
        },
    ];
    if cfg!(feature = "tune") {
        specs.extend(tune_specs());
    }
    specs
}

/// Options named `Tune_<parameter>` set the search parameter of that name.
const TUNE_PREFIX: &str = "Tune_";

/// One spin option per search parameter, for tuning by games; set through [`Options::apply`].
fn tune_specs() -> Vec<Spec> {
    use crate::search::params::TABLE;
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        TABLE
            .iter()
            .map(|p| format!("{TUNE_PREFIX}{}", p.name))
            .collect()
    });
    TABLE
        .iter()
        .zip(names)
        .map(|(p, name)| Spec {
            name,
            kind: spin(p.default.into(), p.min.into(), p.max.into()),
            set: |_, _| {},
        })
        .collect()
}

fn set_variant(o: &mut Options, v: Value<'_>) {
    let name = text(v);
    if let Some(variant) = VARIANTS.into_iter().find(|n| n.eq_ignore_ascii_case(&name)) {
        o.variant = variant;
    }
}

impl Default for Options {
    fn default() -> Self {
        let mut options = Options {
            hash_mb: 0,
            ponder: false,
            threads: 1,
            multipv: 1,
            network_delay: 0,
            network_delay2: 0,
            auto_network_delay: false,
            minimum_thinking_time: 0,
            slow_mover: 100,
            round_up_to_full_second: false,
            entering_king_rule: EnteringKingRule::Csa27,
            max_moves_to_draw: 0,
            draw_value_black: 0,
            draw_value_white: 0,
            resign_value: 0,
            own_book: false,
            book_file: String::new(),
            book: BookOptions::default(),
            depth_limit: 0,
            nodes_limit: 0,
            consideration_mode: false,
            pv_interval_ms: 0,
            output_fail_lh_pv: true,
            mate_hash_mb: 1,
            eval_file: String::new(),
            variant: VARIANTS[0],
            dai_declined_pawn: DeclinedPawnRule::KeepsChances,
            params: Params::default(),
            limit_strength: false,
            uci_elo: 0,
            skill_level: 0,
            limit_strength_hold: false,
            limit_strength_seed: 0,
        };
        // The declared defaults are the starting values, by construction.
        for spec in specs() {
            let value = match spec.kind {
                Kind::Check(default) => Value::Bool(default),
                Kind::Spin { default, .. } => Value::Int(default),
                Kind::Combo(default, _) | Kind::Filename(default) => Value::Text(default),
            };
            options.apply(&spec, value);
        }
        options
    }
}

impl Options {
    /// The `option` lines of the `usi` answer, in a stable order.
    pub fn declarations() -> Vec<OptionDecl> {
        specs()
            .into_iter()
            .map(|spec| match spec.kind {
                Kind::Check(default) => OptionDecl::check(spec.name, default),
                Kind::Spin { default, min, max } => OptionDecl::spin(spec.name, default, min, max),
                Kind::Combo(default, vars) => OptionDecl::combo(spec.name, default, vars),
                Kind::Filename(default) => OptionDecl::filename(spec.name, default),
            })
            .collect()
    }

    /// Applies one `setoption`. `Ok` carries notes worth telling the user (a value that was
    /// clamped, a setting that has no effect yet); `Err` says why nothing changed.
    /// Names match whatever their case, because GUIs differ in what they send back.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Vec<String>, String> {
        self.set_in(&specs(), name, value)
    }

    fn set_in(
        &mut self,
        specs: &[Spec],
        name: &str,
        value: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let name = ALIASES
            .iter()
            .find(|(alias, _)| alias.eq_ignore_ascii_case(name.trim()))
            .map_or(name, |(_, real)| real);
        let Some(spec) = specs.iter().find(|s| s.name.eq_ignore_ascii_case(name)) else {
            return Err(format!("unknown option `{name}`"));
        };
        let name = spec.name;
        let mut notes = Vec::new();
        let value = match (spec.kind, value) {
            // `<empty>` is how USI writes the empty string (`default <empty>`), and some
            // GUIs send it back as the value.
            (Kind::Filename(_), Some(EMPTY) | None) => Value::Text(""),
            (Kind::Filename(_), Some(value)) => Value::Text(value),
            (_, None) => return Err(format!("option {name} needs a value")),
            (Kind::Check(_), Some(value)) => Value::Bool(check_value(name, value)?),
            (Kind::Spin { min, max, .. }, Some(value)) => {
                let (n, note) = spin_value(name, value, min, max)?;
                notes.extend(note);
                Value::Int(n)
            }
            (Kind::Combo(_, vars), Some(value)) => {
                Value::Text(combo_value(name, value.trim(), vars)?)
            }
        };
        self.apply(spec, value);
        if ["UCI_LimitStrength", "UCI_Elo", "SkillLevel"].contains(&name)
            && self.limit_strength
            && self.skill_level < 20
        {
            notes.push(format!(
                "UCI_LimitStrength is on: UCI_Elo {} is played and SkillLevel {} is not used",
                self.uci_elo, self.skill_level
            ));
        }
        Ok(notes)
    }

    /// The strength below full that `go` plays at, if any: `UCI_Elo` when `UCI_LimitStrength`
    /// is on, else `SkillLevel` below 20. MultiPV analysis and `ConsiderationMode` are never
    /// weakened.
    pub fn skill(&self) -> Option<Skill> {
        if self.multipv > 1 || self.consideration_mode {
            return None;
        }
        let level = if self.limit_strength {
            Skill::level_of_elo(self.uci_elo)
        } else {
            f64::from(self.skill_level)
        };
        let seed = match self.limit_strength_seed {
            0 => process_seed(),
            seed => seed,
        };
        Skill::from_level(level, seed, self.limit_strength_hold)
    }

    fn apply(&mut self, spec: &Spec, value: Value<'_>) {
        (spec.set)(self, value);
        if let Some(param) = spec.name.strip_prefix(TUNE_PREFIX) {
            // Spin values are within the table's i32 range.
            self.params.set(param, int(value) as i32);
        }
    }

    /// `BookFile` as a path: relative names resolve against the executable's folder,
    /// because GUIs start engines from arbitrary working directories.
    pub fn book_path(&self) -> Option<PathBuf> {
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf));
        resolve_against(&self.book_file, exe_dir.as_deref())
    }

    /// `EvalFile` as a path, resolved like `BookFile`; `linear` and `nnue` (the embedded
    /// evaluations) stay names.
    pub fn eval_path(&self) -> String {
        if self.eval_file == "linear" || self.eval_file == "nnue" {
            return self.eval_file.clone();
        }
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf));
        resolve_against(&self.eval_file, exe_dir.as_deref())
            .map_or_else(String::new, |p| p.to_string_lossy().into_owned())
    }

    /// What the search is told for one `go`.
    /// The rule choices the options make, for the games they belong to.
    pub fn rule_options(&self) -> RuleOptions {
        RuleOptions {
            dai_declined_pawn: self.dai_declined_pawn,
        }
    }

    pub fn search_options(&self) -> SearchOptions {
        let skill = self.skill();
        SearchOptions {
            threads: self.threads,
            // A weakened level chooses among several searched lines.
            multipv: if skill.is_some() {
                skill::CANDIDATES
            } else {
                self.multipv
            },
            entering_king_rule: self.entering_king_rule,
            max_moves_to_draw: self.max_moves_to_draw,
            draw_value_black: self.draw_value_black,
            draw_value_white: self.draw_value_white,
            resign_value: self.resign_value,
            depth_limit: self.depth_limit,
            nodes_limit: self.nodes_limit,
            time: TimeOptions {
                network_delay: self.network_delay,
                network_delay2: self.network_delay2,
                auto_network_delay: self.auto_network_delay,
                minimum_thinking_time: self.minimum_thinking_time,
                slow_mover: self.slow_mover,
                round_up_to_full_second: self.round_up_to_full_second,
                max_moves_to_draw: self.max_moves_to_draw,
            },
            consideration_mode: self.consideration_mode,
            pv_interval_ms: self.pv_interval_ms,
            output_fail_lh_pv: self.output_fail_lh_pv,
            params: self.params,
            skill,
        }
    }
}

/// One seed per run of the engine, from the clock, for `LimitStrengthSeed 0`: games differ
/// from one run to the next, and within a run the seed and the position decide each choice.
fn process_seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1
    })
}

fn resolve_against(file: &str, base: Option<&Path>) -> Option<PathBuf> {
    let file = file.trim();
    if file.is_empty() {
        return None;
    }
    let path = PathBuf::from(file);
    match base {
        Some(base) if path.is_relative() => Some(base.join(path)),
        _ => Some(path),
    }
}

fn check_value(name: &str, value: &str) -> Result<bool, String> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(format!(
            "option {name} is a check: value must be true or false, got `{value}`"
        ))
    }
}

/// An integer within `min..=max`; integers outside it, however long, are clamped and
/// the note says so, since the user clearly meant "as much as allowed".
fn spin_value(
    name: &str,
    value: &str,
    min: i64,
    max: i64,
) -> Result<(i64, Option<String>), String> {
    let value = value.trim();
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "option {name} is a spin: value must be an integer, got `{value}`"
        ));
    }
    let n = match value.parse::<i64>() {
        Ok(n) => n,
        // Only overflow is left: all digits, but too many of them.
        Err(_) if value.starts_with('-') => i64::MIN,
        Err(_) => i64::MAX,
    };
    let clamped = n.clamp(min, max);
    let note = (clamped != n || value.parse::<i64>().is_err()).then(|| {
        let side = if clamped == min { "minimum" } else { "maximum" };
        format!("option {name}: {value} is outside {min}..{max}, clamped to the {side} {clamped}")
    });
    Ok((clamped, note))
}

fn combo_value(name: &str, value: &str, vars: &[&'static str]) -> Result<&'static str, String> {
    vars.iter()
        .find(|var| var.eq_ignore_ascii_case(value))
        .copied()
        .ok_or_else(|| {
            format!(
                "option {name} must be one of {}, got `{value}`",
                vars.join(", ")
            )
        })
}

#[cfg(test)]
mod tests;
