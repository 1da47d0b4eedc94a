//! The terminal summary of a game: per player, average loss, marks and accuracy.

use super::game::{Game, GameAnalysis, PlayerSummary};
use super::score::Mark;
use crate::shogi::Color;

/// The table for one game, several lines ending in a newline. Player names come last so that
/// wide (Japanese) names do not break the columns.
pub fn table(name: &str, game: &Game, analysis: &GameAnalysis, result: &str) -> String {
    let mut s = format!("{name}: {result}\n");
    s.push_str(&format!(
        "  {:<5} {:>5} {:>9} {:>10} {:>7} {:>7} {:>7} {:>8}  player\n",
        "side", "moves", "avg loss", "inaccuracy", "dubious", "mistake", "blunder", "accuracy"
    ));
    for (side, summary, player) in [
        (Color::Black, &analysis.black, &game.black),
        (Color::White, &analysis.white, &game.white),
    ] {
        s.push_str(&row(side, summary, player.as_deref()));
    }
    if !analysis.turning_points.is_empty() {
        let points: Vec<String> = analysis
            .turning_points
            .iter()
            .filter_map(|t| Some((t, analysis.moves.iter().find(|m| m.ply == t.ply)?)))
            .map(|(t, m)| {
                let mark = if m.mover == Color::Black {
                    "▲"
                } else {
                    "△"
                };
                format!(
                    "{} {mark}{} ({:.0}% -> {:.0}%)",
                    m.ply,
                    m.played,
                    t.from * 100.0,
                    t.to * 100.0
                )
            })
            .collect();
        s.push_str(&format!(
            "  turning points (Black's winning probability, best move -> move played): {}\n",
            points.join(", ")
        ));
    }
    s
}

fn row(side: Color, s: &PlayerSummary, player: Option<&str>) -> String {
    let count = |m: Mark| s.marks[m as usize];
    let side = match side {
        Color::Black => "black",
        Color::White => "white",
    };
    if s.moves == 0 {
        return format!("  {side:<5} {:>5}\n", 0);
    }
    format!(
        "  {side:<5} {:>5} {:>6.1} cp {:>10} {:>7} {:>7} {:>7} {:>7.1}%  {}\n",
        s.moves,
        s.average_loss_cp,
        count(Mark::Inaccuracy),
        count(Mark::Dubious),
        count(Mark::Mistake),
        count(Mark::Blunder),
        s.accuracy,
        player.unwrap_or("-")
    )
}
