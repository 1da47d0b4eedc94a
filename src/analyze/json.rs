//! The machine-readable report: one JSON object per game (schema in README.md).

use super::engine::SearchSettings;
use super::game::{Game, GameAnalysis, MoveAnalysis, PlayerSummary, result_text};
use super::score::{Eval, Mark, Marks};
use crate::shogi::{Color, Move};
use serde::Serialize;

#[derive(Serialize)]
pub struct GameReport {
    pub name: String,
    /// The input file (or `-`), and which game of it this is (1-based).
    pub source: String,
    pub game: usize,
    pub start: String,
    pub black: Option<String>,
    pub white: Option<String>,
    pub result: String,
    /// Set when the record broke off: the moves before the break were analysed.
    pub error: Option<String>,
    pub engine: EngineInfo,
    pub moves: Vec<MoveReport>,
    pub turning_points: Vec<TurningPointReport>,
    pub summary: Summary,
}

/// A turning point: Black's winning probability with the best move (`from`) and with the move
/// played (`to`).
#[derive(Serialize)]
pub struct TurningPointReport {
    pub ply: usize,
    pub from: f64,
    pub to: f64,
}

#[derive(Serialize)]
pub struct EngineInfo {
    pub name: String,
    pub limit: String,
    pub multipv: usize,
    pub threads: usize,
    pub hash_mb: usize,
    /// Thresholds in winning-probability percent: inaccuracy, dubious, mistake, blunder.
    pub marks: [f64; 4],
}

#[derive(Serialize)]
pub struct MoveReport {
    pub ply: usize,
    /// `"black"` or `"white"`.
    pub side: &'static str,
    #[serde(rename = "move")]
    pub played: String,
    pub best: Option<String>,
    /// Evaluation of the position after the move, Black's view.
    pub score_cp: i32,
    /// Mate after the move in plies, Black's view (positive: Black mates); 0 when the move
    /// checkmated; null without a mate.
    pub mate: Option<i32>,
    /// Black's winning probability after the move, 0..=1.
    pub win_probability: f64,
    /// Evaluation of the position before the move (the best move's value), Black's view.
    pub before_cp: i32,
    pub before_mate: Option<i32>,
    pub before_win_probability: f64,
    /// The best line from the position before the move, starting with `best`.
    pub pv: Vec<String>,
    /// Value of the move played, mover's view.
    pub played_cp: i32,
    pub loss_cp: i32,
    /// Winning probability the move gave away, percent.
    pub loss_percent: f64,
    pub mark: Mark,
    /// Other MultiPV lines before the move, best first (only with `--multipv` > 1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    pub depth: u32,
    pub nodes: u64,
}

#[derive(Serialize)]
pub struct Candidate {
    #[serde(rename = "move")]
    pub mv: String,
    /// Black's view.
    pub score_cp: i32,
    pub mate: Option<i32>,
    pub pv: Vec<String>,
}

#[derive(Serialize)]
pub struct Summary {
    pub black: PlayerReport,
    pub white: PlayerReport,
}

#[derive(Serialize)]
pub struct PlayerReport {
    pub moves: usize,
    pub average_loss_cp: f64,
    pub accuracy: f64,
    pub inaccuracy: usize,
    pub dubious: usize,
    pub mistake: usize,
    pub blunder: usize,
}

fn usi(moves: &[Move]) -> Vec<String> {
    moves.iter().map(Move::to_string).collect()
}

pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn mover_to_black(e: Eval, mover: Color) -> Eval {
    if mover == Color::Black { e } else { e.flip() }
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn move_report(m: &MoveAnalysis, multipv: usize) -> MoveReport {
    let candidates = if multipv > 1 {
        m.candidates
            .iter()
            .map(|l| {
                let e = mover_to_black(l.eval, m.mover);
                Candidate {
                    mv: l.pv.first().map(Move::to_string).unwrap_or_default(),
                    score_cp: e.cp,
                    mate: e.mate,
                    pv: usi(&l.pv),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    MoveReport {
        ply: m.ply,
        side: side_name(m.mover),
        played: m.played.to_string(),
        best: m.best.map(|b| b.to_string()),
        score_cp: m.after.cp,
        mate: m.after.mate,
        win_probability: round(m.after.win_probability(), 4),
        before_cp: m.before.cp,
        before_mate: m.before.mate,
        before_win_probability: round(m.before.win_probability(), 4),
        pv: usi(&m.pv),
        played_cp: m.played_value.cp,
        loss_cp: m.loss_cp,
        loss_percent: round(m.loss * 100.0, 2),
        mark: m.mark,
        candidates,
        depth: m.depth,
        nodes: m.nodes,
    }
}

fn player(s: &PlayerSummary) -> PlayerReport {
    PlayerReport {
        moves: s.moves,
        average_loss_cp: round(s.average_loss_cp, 1),
        accuracy: round(s.accuracy, 1),
        inaccuracy: s.marks[Mark::Inaccuracy as usize],
        dubious: s.marks[Mark::Dubious as usize],
        mistake: s.marks[Mark::Mistake as usize],
        blunder: s.marks[Mark::Blunder as usize],
    }
}

pub struct Context<'a> {
    pub name: &'a str,
    pub source: &'a str,
    pub index: usize,
    pub error: Option<String>,
    pub settings: &'a SearchSettings,
    pub marks: &'a Marks,
}

pub fn report(ctx: &Context, game: &Game, analysis: &GameAnalysis) -> GameReport {
    GameReport {
        name: ctx.name.to_string(),
        source: ctx.source.to_string(),
        game: ctx.index,
        start: game.start.to_sfen(),
        black: game.black.clone(),
        white: game.white.clone(),
        result: result_text(game),
        error: ctx.error.clone(),
        engine: EngineInfo {
            name: format!("kirin {}", env!("CARGO_PKG_VERSION")),
            limit: ctx.settings.budget.describe(),
            multipv: ctx.settings.multipv,
            threads: ctx.settings.threads,
            hash_mb: ctx.settings.hash_mb,
            marks: ctx.marks.0,
        },
        moves: analysis
            .moves
            .iter()
            .map(|m| move_report(m, ctx.settings.multipv))
            .collect(),
        turning_points: analysis
            .turning_points
            .iter()
            .map(|t| TurningPointReport {
                ply: t.ply,
                from: round(t.from, 4),
                to: round(t.to, 4),
            })
            .collect(),
        summary: Summary {
            black: player(&analysis.black),
            white: player(&analysis.white),
        },
    }
}

pub fn to_json(report: &GameReport) -> String {
    // Serialising plain structs of strings and numbers cannot fail.
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}
