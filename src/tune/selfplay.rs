//! Games between two kirin players at a fixed number of nodes per move, in one process and on one
//! thread: the data generator for the fitting and the match that measures its result.

use crate::eval::Evaluator;
use crate::search::{Limits, Outcome, Report, Score, SearchOptions, Searcher};
use crate::shogi::{Color, Move, Position, Repetition};

/// Game ply after which a game is a draw (the usual 320 of engine tournaments).
pub const MAX_GAME_PLY: u32 = 320;
/// A score at least this large for the side to move, confirmed by the opponent's next search,
/// ends the game as a win for that side (the default of [`GenSettings`]); training positions
/// stay below it.
pub const ADJUDICATE_CP: i32 = 3000;

/// How self-play games are played and cut short: the levers of generation's speed, each
/// measured against the labels' quality (`kirin-tune quality`). The default is the generator
/// every round up to round 5 used.
#[derive(Clone, Debug, PartialEq)]
pub struct GenSettings {
    /// A score at least this large (or a mate) for one side, in this many searches in a row
    /// (the two sides' searches alternate), ends the game as that side's win.
    pub adjudicate_cp: i32,
    pub adjudicate_plies: u32,
    /// A search starts no new iteration past this share of its node budget (1.0: the budget is
    /// only a hard limit, and the iteration it cuts is lost work).
    pub soft_share: f64,
    /// The share of the budget a position in check gets: it is never a training position, and
    /// its replies are few.
    pub check_share: f64,
    /// Both sides search with the first player's searcher and evaluation: one transposition
    /// table and one set of histories for the game, so that each search starts from what the
    /// opponent's last search found below this very position (it searched it as the reply to
    /// its best move). Only for self-play, where both players are the same evaluation.
    pub shared_search: bool,
    /// A position not in check is first searched with this share of its budget; when that
    /// search's best move is a capture or a promotion (so the position will not be a training
    /// position) it is played, and otherwise a second search spends the rest of the budget on
    /// the first one's transposition table. 1.0: one search with the whole budget.
    pub probe_share: f64,
}

impl Default for GenSettings {
    fn default() -> Self {
        GenSettings {
            adjudicate_cp: ADJUDICATE_CP,
            adjudicate_plies: 2,
            soft_share: 1.0,
            check_share: 1.0,
            shared_search: false,
            probe_share: 1.0,
        }
    }
}

/// One side of a game: a searcher with the evaluation it plays with.
pub struct Player {
    pub searcher: Searcher,
    pub evaluator: Evaluator,
}

impl Player {
    pub fn new(evaluator: Evaluator) -> Player {
        Player {
            searcher: Searcher::new(16),
            evaluator,
        }
    }
}

/// A position seen in a game, with the search's score from the side to move's view.
#[derive(Clone, Debug)]
pub struct Sample {
    pub sfen: String,
    pub score: i32,
    pub side: Color,
    /// The node budget the position's search had.
    pub budget: u64,
    /// Which move of the game was played from it: its index in [`GameRecord::moves`] and
    /// [`GameRecord::scores`].
    pub index: usize,
}

#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1.0 Black won, 0.5 draw, 0.0 White won.
    pub black_result: f64,
    pub plies: u32,
    /// Quiet positions after the opening (not in check, best move not a capture, score not a
    /// mate), when recording was asked for.
    pub samples: Vec<Sample>,
    /// Every move played and the mover's score before it (mates as +-(32000 - plies), 0 where
    /// the search reported none): the game as the chained data format stores it.
    pub moves: Vec<Move>,
    pub scores: Vec<i32>,
    /// Nodes searched over the whole game.
    pub nodes: u64,
    /// Whether the game ended by adjudication (after `moves`, in the position they reach).
    pub adjudicated: bool,
    /// How it ended: "mate" (the side to move mated or resigning), "declaration" (an
    /// entering-king win declared), "repetition", "ply cap" or "adjudication".
    pub ending: &'static str,
}

/// Reads an openings file: one `startpos moves ...` (or `sfen ... moves ...`) line per opening.
pub fn read_openings(text: &str) -> Result<Vec<Position>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, moves) = match line.split_once(" moves ") {
            Some((h, m)) => (h.trim(), m),
            None => (line, ""),
        };
        let mut pos = if head == "startpos" {
            Position::startpos()
        } else if let Some(s) = head.strip_prefix("sfen ") {
            Position::from_sfen(s).map_err(|e| format!("line {}: {e}", n + 1))?
        } else {
            return Err(format!("line {}: expected startpos or sfen", n + 1));
        };
        for mv in moves.split_whitespace() {
            let m = pos
                .parse_move(mv)
                .map_err(|e| format!("line {}: {e}", n + 1))?;
            pos.do_move(m);
        }
        out.push(pos);
    }
    Ok(out)
}

/// Game `number` of a generator run with `seed`: its opening and the source of its node
/// budgets. `kirin-tune gen` and `quality` play their games through it, so that both play the
/// very same games.
pub fn generator_game(openings: &[Position], seed: u64, number: usize) -> (&Position, Rng) {
    let rng = Rng(seed.wrapping_mul(0x1_0000_0001).wrapping_add(number as u64));
    (&openings[number % openings.len()], rng)
}

/// A search's limits for a node budget, soft past `soft_share` of it (see [`GenSettings`]).
pub fn budget_limits(budget: u64, soft_share: f64) -> Limits<Move> {
    Limits {
        nodes: Some(budget),
        soft_nodes: (soft_share < 1.0).then_some((budget as f64 * soft_share) as u64),
        ..Limits::default()
    }
}

/// Plays one game from `start`; `players[0]` plays Black. `nodes(ply)` gives the node budget of
/// each move (vary it to vary the games).
pub fn play_game(
    start: &Position,
    players: &mut [Player; 2],
    mut nodes: impl FnMut(u32) -> u64,
    record: bool,
    settings: &GenSettings,
) -> GameRecord {
    let mut pos = start.clone();
    let mut samples = Vec::new();
    let (mut moves, mut scores) = (Vec::new(), Vec::new());
    for p in players.iter_mut() {
        p.searcher.new_game();
    }
    let mut big_score_streak = 0;
    let mut last_big: Option<Color> = None;
    let mut searched = 0u64;
    let mut adjudicated = false;
    let mut ending = "ply cap";
    let result_for = |winner: Color| if winner == Color::Black { 1.0 } else { 0.0 };
    let black_result = loop {
        if pos.game_ply() >= MAX_GAME_PLY {
            break 0.5;
        }
        let us = pos.side_to_move();
        let player = &mut players[if settings.shared_search {
            0
        } else {
            us.index()
        }];
        let budget = nodes(pos.game_ply());
        let budget = if pos.in_check() {
            ((budget as f64 * settings.check_share) as u64).max(1)
        } else {
            budget
        };
        let (outcome, score, used) = search_move(player, &pos, budget, settings);
        searched += used;
        let best = match outcome {
            Outcome::Win => {
                ending = "declaration";
                break result_for(us);
            }
            Outcome::Resign => {
                ending = "mate";
                break result_for(!us);
            }
            Outcome::Move { best, .. } => best,
        };
        // Adjudication: both sides agree one of them is far ahead.
        let winning = match score {
            Some(Score::Mate(n)) => Some(if n > 0 { us } else { !us }),
            Some(Score::Cp(cp)) if cp.abs() >= settings.adjudicate_cp => {
                Some(if cp > 0 { us } else { !us })
            }
            _ => None,
        };
        match winning {
            Some(w) if last_big == Some(w) => big_score_streak += 1,
            Some(w) => {
                last_big = Some(w);
                big_score_streak = 1;
            }
            None => {
                last_big = None;
                big_score_streak = 0;
            }
        }
        if big_score_streak >= settings.adjudicate_plies {
            adjudicated = true;
            ending = "adjudication";
            break result_for(last_big.unwrap_or(us));
        }
        if record
            && !pos.in_check()
            && is_quiet(&pos, best)
            && let Some(Score::Cp(cp)) = score
            && cp.abs() < ADJUDICATE_CP.min(settings.adjudicate_cp)
        {
            samples.push(Sample {
                sfen: pos.to_sfen(),
                score: cp,
                side: us,
                budget,
                index: moves.len(),
            });
        }
        moves.push(best);
        scores.push(match score {
            Some(Score::Cp(cp)) => cp,
            Some(Score::Mate(n)) if n > 0 => 32000 - n.min(1000),
            Some(Score::Mate(n)) => -32000 + n.abs().min(1000),
            None => 0,
        });
        pos.do_move(best);
        let repeated = match pos.repetition(usize::MAX) {
            Repetition::Draw => Some(0.5),
            Repetition::Win => Some(result_for(pos.side_to_move())),
            Repetition::Loss => Some(result_for(!pos.side_to_move())),
            _ => None,
        };
        if let Some(result) = repeated {
            ending = "repetition";
            break result;
        }
    };
    GameRecord {
        black_result,
        plies: pos.game_ply(),
        samples,
        moves,
        scores,
        nodes: searched,
        adjudicated,
        ending,
    }
}

/// One move's search under the generator's settings: the outcome, the best line's score and the
/// nodes searched (see [`GenSettings::probe_share`]).
pub fn search_move(
    player: &mut Player,
    pos: &Position,
    budget: u64,
    settings: &GenSettings,
) -> (Outcome<Move>, Option<Score>, u64) {
    let opts = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    let mut search = |budget: u64| {
        let limits = budget_limits(budget, settings.soft_share);
        let (mut score, mut used) = (None, 0);
        let outcome = player
            .searcher
            .think(pos, &player.evaluator, &limits, &opts, &mut |r| {
                if let Report::Pv(info) = r
                    && info.multipv <= 1
                {
                    score = Some(info.score);
                    used = info.nodes;
                }
            });
        (outcome, score, used)
    };
    if settings.probe_share >= 1.0 || pos.in_check() {
        return search(budget);
    }
    let probe = (budget as f64 * settings.probe_share) as u64;
    match search(probe.max(1)) {
        (Outcome::Move { best, .. }, _, first) if is_quiet(pos, best) => {
            let (outcome, score, rest) = search(budget.saturating_sub(probe).max(1));
            (outcome, score, first + rest)
        }
        played => played,
    }
}

/// Positions whose best move is one of these are trained on: the score of a capture or a
/// promotion is a tactic's, not the position's.
pub fn is_quiet(pos: &Position, m: Move) -> bool {
    m.is_drop() || (pos.piece_on(m.to()).is_none() && !m.is_promotion())
}

/// An evaluation's fingerprint: FNV-1a of its values on 64 fixed positions (the start and a
/// fixed random walk from it). Equal for the same network or weights, different for others
/// with near certainty, whether the evaluation came from a file or is embedded; `gen` stores it
/// with every game so that data can be traced to the evaluation that made it.
pub fn eval_fingerprint(evaluator: &Evaluator) -> u64 {
    let mut pos = Position::startpos();
    let mut rng = Rng(0x006b_6972_696e);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..64 {
        for b in evaluator.evaluate(&pos).to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        let moves = crate::shogi::legal_moves(&pos);
        if moves.is_empty() {
            pos = Position::startpos();
            continue;
        }
        pos.do_move(moves[rng.below(moves.len() as u64) as usize]);
    }
    h
}

/// Small deterministic generator (splitmix64), so runs are reproducible from a seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A node budget uniform in `min..=max` (`max` below `min` counts as `min`).
    pub fn budget(&mut self, min: u64, max: u64) -> u64 {
        min + self.below(max.max(min) - min + 1)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
