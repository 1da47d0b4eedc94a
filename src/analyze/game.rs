//! A game's analysis: every position of the chosen range searched once, then each move judged
//! by comparing the value of the move played with the value of the engine's best move.

use super::engine::{Analyst, Interrupt, Line, PositionEval};
use super::score::{Eval, Mark, Marks};
use crate::shogi::{Color, Move, Position};

/// The game as the analysis needs it, whatever format it was read from.
#[derive(Clone, Debug)]
pub struct Game {
    pub start: Position,
    pub moves: Vec<Move>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// How the record says the game ended, in words (`"resign"`), if it says.
    pub ending: Option<String>,
    pub winner: Option<Color>,
}

impl Game {
    pub fn from_record(record: &crate::kifu::Record) -> Game {
        let ending = record.ending;
        Game {
            start: record.start.clone(),
            moves: record.moves.clone(),
            black: record.black.clone(),
            white: record.white.clone(),
            ending: (ending != crate::kifu::Ending::Unknown).then(|| ending.name().to_string()),
            winner: record.winner,
        }
    }
}

/// Which moves to judge.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Only this side's moves; `None` for both.
    pub side: Option<Color>,
    /// First and last ply judged (1-based, inclusive).
    pub from: usize,
    pub to: usize,
    pub marks: Marks,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            side: None,
            from: 1,
            to: usize::MAX,
            marks: Marks::default(),
        }
    }
}

/// Evaluations are clamped to this for averages, so that one missed mate (worth tens of
/// thousands of centipawns) does not swamp a player's average loss.
pub const AVERAGE_CLAMP_CP: i32 = 3000;

#[derive(Clone, Debug)]
pub struct MoveAnalysis {
    /// 1-based: the first move of the game is ply 1.
    pub ply: usize,
    pub mover: Color,
    pub played: Move,
    /// The engine's choice in the position before the move, its line and its value (mover's view).
    pub best: Option<Move>,
    pub pv: Vec<Move>,
    pub best_value: Eval,
    /// The MultiPV lines before the move, best first (mover's view).
    pub candidates: Vec<Line>,
    /// Value of the move played, mover's view.
    pub played_value: Eval,
    /// Evaluation of the positions before and after the move, Black's view.
    pub before: Eval,
    pub after: Eval,
    /// The engine's line from the position after the move.
    pub after_pv: Vec<Move>,
    pub loss_cp: i32,
    /// Loss in winning probability, 0..=1.
    pub loss: f64,
    pub mark: Mark,
    pub depth: u32,
    pub nodes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct PlayerSummary {
    pub moves: usize,
    /// Average loss in centipawns, evaluations clamped to ±AVERAGE_CLAMP_CP.
    pub average_loss_cp: f64,
    /// Counts per mark, in the order of `Mark::ALL`.
    pub marks: [usize; 5],
    /// 100 minus the average loss in winning-probability percent: the share of their winning
    /// chances a player kept, move by move.
    pub accuracy: f64,
}

/// A move that changed the game: Black's winning probability with the best move and with the
/// move played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurningPoint {
    pub ply: usize,
    pub from: f64,
    pub to: f64,
}

#[derive(Clone, Debug)]
pub struct GameAnalysis {
    pub moves: Vec<MoveAnalysis>,
    /// The largest swings in Black's winning probability, largest first.
    pub turning_points: Vec<TurningPoint>,
    pub black: PlayerSummary,
    pub white: PlayerSummary,
}

/// How many turning points a game reports, and the smallest swing (in winning probability)
/// that counts as one.
const TURNING_POINTS: usize = 3;
const MIN_TURNING_SWING: f64 = 0.10;

impl Game {
    /// The side that plays move `ply` (1-based).
    pub fn mover(&self, ply: usize) -> Color {
        if ply % 2 == 1 {
            self.start.side_to_move()
        } else {
            !self.start.side_to_move()
        }
    }

    /// The plies whose moves the selection judges.
    pub fn judged_plies(&self, sel: &Selection) -> Vec<usize> {
        (sel.from.max(1)..=sel.to.min(self.moves.len()))
            .filter(|&ply| sel.side.is_none_or(|s| s == self.mover(ply)))
            .collect()
    }

    /// The positions (by number of moves played) that need a search.
    pub fn positions_to_search(&self, sel: &Selection) -> Vec<usize> {
        let mut need = vec![false; self.moves.len() + 1];
        for ply in self.judged_plies(sel) {
            need[ply - 1] = true;
            need[ply] = true;
        }
        (0..need.len()).filter(|&i| need[i]).collect()
    }
}

fn black_view(eval: Eval, side_to_move: Color) -> Eval {
    match side_to_move {
        Color::Black => eval,
        Color::White => eval.flip(),
    }
}

/// Searches what `sel` needs and judges the moves; `progress` is called after each position.
/// `None` when interrupted.
pub fn analyse(
    game: &Game,
    sel: &Selection,
    analyst: &mut Analyst,
    interrupt: &Interrupt,
    progress: &mut dyn FnMut(),
) -> Option<GameAnalysis> {
    analyst.new_game();
    let wanted = game.positions_to_search(sel);
    let mut evals: Vec<Option<PositionEval>> = vec![None; game.moves.len() + 1];
    let mut pos = game.start.clone();
    let mut at = 0;
    for index in wanted {
        while at < index {
            pos.do_move(game.moves[at]);
            at += 1;
        }
        evals[index] = Some(analyst.evaluate(&pos, interrupt)?);
        progress();
    }
    let mut moves = Vec::new();
    for ply in game.judged_plies(sel) {
        let (Some(before), Some(after)) = (&evals[ply - 1], &evals[ply]) else {
            continue;
        };
        moves.push(judge(game, ply, before, after, &sel.marks));
    }
    let turning_points = turning_points(&moves);
    let black = summarise(&moves, Color::Black);
    let white = summarise(&moves, Color::White);
    Some(GameAnalysis {
        moves,
        turning_points,
        black,
        white,
    })
}

fn judge(
    game: &Game,
    ply: usize,
    before: &PositionEval,
    after: &PositionEval,
    marks: &Marks,
) -> MoveAnalysis {
    let mover = game.mover(ply);
    let played = game.moves[ply - 1];
    let best = before.best();
    // The search of the position after the move values it from the opponent's side.
    let after_mover = after.eval.flip();
    let played_value = if best == Some(played) {
        before.eval
    } else {
        // A MultiPV line for the move played was searched alongside the best one, with the
        // same depth: the fairest comparison. Otherwise the search after the move decides.
        before.value_of(played).unwrap_or(after_mover)
    };
    let (loss_cp, loss) = if best == Some(played) || best.is_none() {
        (0, 0.0)
    } else {
        (
            (before.eval.cp - played_value.cp).max(0),
            (before.eval.win_probability() - played_value.win_probability()).max(0.0),
        )
    };
    MoveAnalysis {
        ply,
        mover,
        played,
        best,
        pv: before.pv().to_vec(),
        best_value: before.eval,
        candidates: before.lines.clone(),
        played_value,
        before: black_view(before.eval, mover),
        after: black_view(after_mover, mover),
        after_pv: after.pv().to_vec(),
        loss_cp,
        loss,
        mark: marks.mark(loss),
        depth: before.depth,
        nodes: before.nodes,
    }
}

/// The moves that swung the game most: those that gave away the most winning probability
/// (at least `MIN_TURNING_SWING`), largest first. The swing is measured between the value of the
/// best move and the value of the move played, the same comparison that marks the move, so a
/// position the search misjudged once, whichever move follows it, does not make a turn.
fn turning_points(moves: &[MoveAnalysis]) -> Vec<TurningPoint> {
    let mut points: Vec<TurningPoint> = moves
        .iter()
        .filter(|m| m.loss >= MIN_TURNING_SWING)
        .map(|m| TurningPoint {
            ply: m.ply,
            from: m.before.win_probability(),
            to: black_view(m.played_value, m.mover).win_probability(),
        })
        .collect();
    points.sort_by(|a, b| {
        let swing = |t: &TurningPoint| (t.to - t.from).abs();
        swing(b).total_cmp(&swing(a)).then(a.ply.cmp(&b.ply))
    });
    points.truncate(TURNING_POINTS);
    points
}

fn summarise(moves: &[MoveAnalysis], side: Color) -> PlayerSummary {
    let mine: Vec<&MoveAnalysis> = moves.iter().filter(|m| m.mover == side).collect();
    let mut s = PlayerSummary {
        moves: mine.len(),
        ..PlayerSummary::default()
    };
    if mine.is_empty() {
        return s;
    }
    let clamp = |e: Eval| e.cp.clamp(-AVERAGE_CLAMP_CP, AVERAGE_CLAMP_CP);
    let mut total_cp = 0.0;
    let mut total_loss = 0.0;
    for m in &mine {
        if m.loss_cp > 0 {
            total_cp += f64::from((clamp(m.best_value) - clamp(m.played_value)).max(0));
        }
        total_loss += m.loss;
        s.marks[Mark::ALL.iter().position(|&k| k == m.mark).unwrap_or(0)] += 1;
    }
    let n = mine.len() as f64;
    s.average_loss_cp = total_cp / n;
    s.accuracy = 100.0 * (1.0 - total_loss / n);
    s
}

/// The result in words: what the record says, or what the final position shows.
pub fn result_text(game: &Game) -> String {
    let mut end = game.start.clone();
    for &m in &game.moves {
        end.do_move(m);
    }
    let side = |c: Color| match c {
        Color::Black => "Black",
        Color::White => "White",
    };
    let mated = crate::shogi::legal_moves(&end).is_empty();
    let drawn = ["sennichite", "jishogi", "draw", "max moves"];
    match (&game.ending, game.winner) {
        (Some(ending), Some(w)) => format!("{} wins ({ending})", side(w)),
        (Some(ending), None) if drawn.contains(&ending.as_str()) => format!("draw ({ending})"),
        (Some(ending), None) => format!("no result ({ending})"),
        _ if mated => format!("{} wins (mate)", side(!end.side_to_move())),
        _ => "no result (unfinished)".to_string(),
    }
}
