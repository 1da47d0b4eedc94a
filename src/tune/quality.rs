//! What a setting of the self-play generator costs and what its data is worth: training
//! positions per node and per second of play, the labels' error against a search with more
//! nodes, and how often an adjudicated game would have ended otherwise.
//!
//! A game is the generator's own (same seed, game number, opening and node budgets as
//! `kirin-tune gen`), so a report describes exactly the data a `gen` run with the same settings
//! writes. The checks run after each game and are not counted in its time.

use super::selfplay::{GenSettings, Player, generator_game, play_game, search_move};
use super::sigmoid;
use super::smooth::{Smoothing, smoothed};
use crate::eval::{CP_PER_LOGIT, Evaluator};
use crate::search::Score;
use crate::shogi::Position;
use std::time::Instant;

/// What to measure: the games, their node budgets, the checks.
#[derive(Clone, Debug)]
pub struct QualityRun {
    pub seed: u64,
    pub first: usize,
    pub games: usize,
    pub nodes_min: u64,
    pub nodes_max: u64,
    pub settings: GenSettings,
    /// Every this-many-th training position is searched again (0: none).
    pub check_every: usize,
    /// The check's node budget, as a multiple of the position's own.
    pub deep: u64,
    /// Whether adjudicated games are played on to their end without adjudication.
    pub replay_adjudicated: bool,
    /// Each of these smoothings also has its labels checked (`smooth.rs`).
    pub smooth: Vec<Smoothing>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct QualityReport {
    pub games: usize,
    pub plies: u64,
    /// Training positions: what `gen` writes as text, and what the trainers keep of a chained game.
    pub positions: usize,
    pub nodes: u64,
    /// Seconds of play, the checks left out.
    pub seconds: f64,
    pub checked: usize,
    /// Mean absolute difference in winning probability between a label and its check.
    pub label_error: f64,
    /// The same for a fresh search of each checked position with these settings' limits, and
    /// with the budget as a hard limit only: the two differ only by the settings, on the same
    /// positions (the labels of different settings come from different games).
    pub fresh_error: f64,
    pub fresh_error_hard: f64,
    /// For each of the run's smoothings, the labels smoothed along the game with it, against
    /// the same checks.
    pub smoothed_error: Vec<(Smoothing, f64)>,
    pub adjudicated: usize,
    pub replayed: usize,
    /// Replayed games whose end differs from the adjudication (a draw included), and of those
    /// the draws (at the ply cap or by repetition).
    pub adjudication_errors: usize,
    pub adjudication_draws: usize,
    /// One line for each of those games: its number, the adjudication (winner, ply, the movers'
    /// scores of the two plies before it: the adjudicating ply's own score has no move, so the
    /// record does not keep it), how the game played on ended and where, and the position.
    pub wrong_adjudications: Vec<String>,
}

impl QualityReport {
    pub fn positions_per_million_nodes(&self) -> f64 {
        self.positions as f64 * 1e6 / self.nodes.max(1) as f64
    }

    pub fn positions_per_minute(&self) -> f64 {
        self.positions as f64 * 60.0 / self.seconds.max(1e-9)
    }
}

/// Winning probability of a score from the side to move's view; mates count as certain.
pub fn win_probability(score: Score) -> f64 {
    match score {
        Score::Cp(cp) => sigmoid(f64::from(cp) / f64::from(CP_PER_LOGIT)),
        Score::Mate(n) if n > 0 => 1.0,
        Score::Mate(_) => 0.0,
    }
}

/// Plays `run.games` generator games from `openings` and measures them (see the module's text).
pub fn measure(openings: &[Position], evaluator: &Evaluator, run: &QualityRun) -> QualityReport {
    let mut report = QualityReport::default();
    let mut players = [
        Player::new(evaluator.clone()),
        Player::new(evaluator.clone()),
    ];
    let mut checker = Player::new(evaluator.clone());
    let (mut error_sum, mut fresh_sum, mut hard_sum) = (0.0f64, 0.0f64, 0.0f64);
    let mut smooth_sums = vec![0.0f64; run.smooth.len()];
    let no_adjudication = GenSettings {
        adjudicate_cp: i32::MAX,
        adjudicate_plies: u32::MAX,
        ..run.settings.clone()
    };
    for g in run.first..run.first + run.games {
        let (opening, mut rng) = generator_game(openings, run.seed, g);
        let clock = Instant::now();
        let rec = play_game(
            opening,
            &mut players,
            |_| rng.budget(run.nodes_min, run.nodes_max),
            true,
            &run.settings,
        );
        report.seconds += clock.elapsed().as_secs_f64();
        report.games += 1;
        report.plies += rec.moves.len() as u64;
        report.nodes += rec.nodes;
        for sample in &rec.samples {
            report.positions += 1;
            if run.check_every == 0 || report.positions % run.check_every != 0 {
                continue;
            }
            let Ok(pos) = Position::from_sfen(&sample.sfen) else {
                continue;
            };
            let mut score = |budget: u64, settings: &GenSettings| {
                checker.searcher.new_game();
                search_move(&mut checker, &pos, budget, settings).1
            };
            let hard_budget = GenSettings::default();
            let deep = score(sample.budget * run.deep, &hard_budget);
            let fresh = score(sample.budget, &run.settings);
            let hard = score(sample.budget, &hard_budget);
            if let (Some(deep), Some(fresh), Some(hard)) = (deep, fresh, hard) {
                let truth = win_probability(deep);
                error_sum += (win_probability(Score::Cp(sample.score)) - truth).abs();
                fresh_sum += (win_probability(fresh) - truth).abs();
                hard_sum += (win_probability(hard) - truth).abs();
                for (sum, &by) in smooth_sums.iter_mut().zip(&run.smooth) {
                    let label = smoothed(&rec.scores, sample.index, by);
                    *sum += (win_probability(Score::Cp(label)) - truth).abs();
                }
                report.checked += 1;
            }
        }
        if rec.adjudicated {
            report.adjudicated += 1;
            if run.replay_adjudicated {
                let mut pos = opening.clone();
                for &m in &rec.moves {
                    pos.do_move(m);
                }
                let rest = play_game(
                    &pos,
                    &mut players,
                    |_| rng.budget(run.nodes_min, run.nodes_max),
                    false,
                    &no_adjudication,
                );
                report.replayed += 1;
                if rest.black_result != rec.black_result {
                    report.adjudication_errors += 1;
                    report.adjudication_draws += usize::from(rest.black_result == 0.5);
                    let side = |r: f64| match r {
                        1.0 => "Black wins",
                        0.0 => "White wins",
                        _ => "draw",
                    };
                    report.wrong_adjudications.push(format!(
                        "game {g}: adjudicated at ply {} ({}; the movers' scores two and one plies before {:?}), played on: {} by {} at ply {}; sfen {}",
                        pos.game_ply(),
                        side(rec.black_result),
                        &rec.scores[rec.scores.len().saturating_sub(2)..],
                        side(rest.black_result),
                        rest.ending,
                        rest.plies,
                        pos.to_sfen()
                    ));
                }
            }
        }
    }
    let checked = report.checked.max(1) as f64;
    report.label_error = error_sum / checked;
    report.fresh_error = fresh_sum / checked;
    report.fresh_error_hard = hard_sum / checked;
    report.smoothed_error = run
        .smooth
        .iter()
        .zip(&smooth_sums)
        .map(|(&by, sum)| (by, sum / checked))
        .collect();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(settings: GenSettings) -> QualityRun {
        QualityRun {
            seed: 3,
            first: 0,
            games: 2,
            nodes_min: 300,
            nodes_max: 400,
            settings,
            check_every: 5,
            deep: 4,
            replay_adjudicated: true,
            smooth: vec![Smoothing::NONE, Smoothing::parse("0.5:0.5").unwrap()],
        }
    }

    #[test]
    fn win_probability_is_the_evaluations_logistic() {
        assert_eq!(win_probability(Score::Cp(0)), 0.5);
        let p = win_probability(Score::Cp(CP_PER_LOGIT));
        assert!((p - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert_eq!(win_probability(Score::Mate(3)), 1.0);
        assert_eq!(win_probability(Score::Mate(-2)), 0.0);
    }

    #[test]
    fn reports_the_generators_own_games_and_checks_them() {
        let openings = vec![Position::startpos()];
        let evaluator = Evaluator::linear();
        let r = measure(&openings, &evaluator, &run(GenSettings::default()));
        assert_eq!(r.games, 2);
        assert!(r.positions > 0 && r.nodes > 0 && r.plies > 0);
        assert_eq!(r.checked, r.positions / 5);
        assert!((0.0..=1.0).contains(&r.label_error));
        // No smoothing is the label itself.
        assert_eq!(r.smoothed_error[0], (Smoothing::NONE, r.label_error));
        assert!((0.0..=1.0).contains(&r.smoothed_error[1].1));
        assert_ne!(r.smoothed_error[1].1, r.label_error);
        // Without a soft limit a fresh search is the hard-limited one.
        assert_eq!(r.fresh_error, r.fresh_error_hard);
        assert!(r.replayed == r.adjudicated && r.adjudication_errors <= r.replayed);
        assert!(r.adjudication_draws <= r.adjudication_errors);
        assert_eq!(r.wrong_adjudications.len(), r.adjudication_errors);
        // The same settings measure the same games.
        let again = measure(&openings, &evaluator, &run(GenSettings::default()));
        assert_eq!((again.positions, again.nodes), (r.positions, r.nodes));
    }

    #[test]
    fn a_game_says_how_it_ended() {
        let mut players = [
            Player::new(Evaluator::linear()),
            Player::new(Evaluator::linear()),
        ];
        let play = |sfen: &str, players: &mut [Player; 2], settings: &GenSettings| {
            let start = Position::from_sfen(sfen).unwrap();
            play_game(&start, players, |_| 2000, false, settings)
        };
        let settings = GenSettings::default();
        // Black mates with the gold drop; White, mated, has no move.
        let mate = play("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", &mut players, &settings);
        assert_eq!(
            (mate.ending, mate.black_result, mate.moves.len()),
            ("mate", 1.0, 1)
        );
        // A game that starts at the ply cap is a draw there.
        let cap = play("4k4/9/9/9/9/9/9/9/4K4 b - 400", &mut players, &settings);
        assert_eq!((cap.ending, cap.black_result), ("ply cap", 0.5));
        // A rook up on both kings' views for two plies: adjudicated.
        let tight = GenSettings {
            adjudicate_cp: 500,
            adjudicate_plies: 2,
            ..GenSettings::default()
        };
        let won = play("4k4/9/9/9/9/9/9/9/R3K4 b - 1", &mut players, &tight);
        assert_eq!((won.ending, won.black_result), ("adjudication", 1.0));
        assert!(won.adjudicated);
    }

    #[test]
    fn a_shared_search_plays_both_sides_with_the_first_players_search() {
        let start = Position::startpos();
        let shared = GenSettings {
            shared_search: true,
            ..GenSettings::default()
        };
        let network = Evaluator::embedded_network().unwrap();
        let game = |first: &Evaluator, second: &Evaluator, settings: &GenSettings| {
            let mut players = [Player::new(first.clone()), Player::new(second.clone())];
            play_game(
                &start,
                &mut players,
                |ply| 300 + u64::from(ply),
                false,
                settings,
            )
            .moves
        };
        let linear = Evaluator::linear();
        let own = game(&linear, &network, &GenSettings::default());
        let one = game(&linear, &linear, &shared);
        // White's evaluation changes the game when each side searches for itself, and not at
        // all when both search with Black's.
        assert_ne!(own, game(&linear, &linear, &GenSettings::default()));
        assert_eq!(game(&linear, &network, &shared), one);
        // The shared searcher starts each game afresh: a second game replays the first.
        let mut players = [Player::new(linear.clone()), Player::new(linear.clone())];
        for _ in 0..2 {
            let again = play_game(
                &start,
                &mut players,
                |ply| 300 + u64::from(ply),
                false,
                &shared,
            );
            assert_eq!(again.moves, one);
        }
    }

    #[test]
    fn a_probe_plays_a_capture_on_its_share_and_searches_a_quiet_move_in_full() {
        use crate::search::Outcome;
        use crate::shogi::position::START_SFEN;
        use crate::tune::selfplay::is_quiet;
        let probe = GenSettings {
            probe_share: 0.1,
            ..GenSettings::default()
        };
        let mut player = Player::new(Evaluator::linear());
        let mut nodes = |sfen: &str, settings: &GenSettings| {
            let pos = Position::from_sfen(sfen).unwrap();
            player.searcher.new_game();
            let (outcome, _, used) = search_move(&mut player, &pos, 4000, settings);
            let Outcome::Move { best, .. } = outcome else {
                panic!("no move in {sfen}");
            };
            (is_quiet(&pos, best), used)
        };
        // Black's rook takes White's, which stands unguarded in front of it.
        let capture = "8k/9/4r4/9/9/9/9/4R4/4K4 b - 1";
        let (quiet, used) = nodes(capture, &probe);
        assert!(!quiet && used < 800, "capture: {used} nodes");
        assert!(nodes(capture, &GenSettings::default()).1 > 2000);
        let (quiet, used) = nodes(START_SFEN, &probe);
        assert!(quiet && used > 2000, "opening move: {used} nodes");
    }

    #[test]
    fn a_soft_limit_and_a_cheap_check_search_fewer_nodes() {
        let openings = vec![Position::startpos()];
        let evaluator = Evaluator::linear();
        let mut base = run(GenSettings::default());
        base.check_every = 0;
        let hard = measure(&openings, &evaluator, &base);
        let mut cheap = base.clone();
        cheap.settings.soft_share = 0.5;
        cheap.settings.check_share = 0.25;
        let soft = measure(&openings, &evaluator, &cheap);
        let per_move = |r: &QualityReport| r.nodes as f64 / r.plies as f64;
        assert!(
            per_move(&soft) < per_move(&hard),
            "nodes a move: soft {:.0}, hard {:.0}",
            per_move(&soft),
            per_move(&hard)
        );
    }
}
