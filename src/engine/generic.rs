//! The one implementation of [`GameEngine`], for any game: moves become text at its edges and
//! everything inside is compiled for the game `G`.

use super::{GameEngine, PositionError};
use crate::bench::BenchResult;
use crate::book::{BookAnswer, BookRequest};
use crate::game::{
    Color, EnteringKingRule, Explanation, MateAnswer, MateRequest, RuleOptions, Variant,
};
use crate::mate::MateProgress;
use crate::search::{Limits, Outcome, Report, SearchControl, SearchOptions, Searcher};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub struct Engine<G: Variant> {
    pos: G,
    evaluator: G::Evaluator,
    /// The `EvalFile` name `evaluator` was made from; empty for the default evaluation.
    eval_file: String,
    /// `None` until the first `ensure_searcher` (the table is allocated then, not at start-up,
    /// so `usi` is answered at once) and while it is lent out.
    searcher: Option<Searcher>,
}

impl<G: Variant> Engine<G> {
    /// At the start position, with the default evaluation and no searcher yet.
    pub fn new() -> Engine<G> {
        Engine {
            pos: G::startpos(),
            evaluator: G::default_evaluator(),
            eval_file: String::new(),
            searcher: None,
        }
    }

    /// Searches the game's bench positions with the engine's evaluation.
    fn bench_positions(&self) -> impl Iterator<Item = (&'static str, G)> {
        G::BENCH.iter().filter_map(|&(name, sfen)| {
            G::from_sfen(sfen)
                .map_err(|e| eprintln!("{name}: bad sfen: {e}"))
                .ok()
                .map(|p| (name, p))
        })
    }
}

impl<G: Variant> Default for Engine<G> {
    fn default() -> Self {
        Engine::new()
    }
}

impl<G: Variant> GameEngine for Engine<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn fork(&self) -> Box<dyn GameEngine> {
        Box::new(Engine::<G> {
            pos: self.pos.clone(),
            evaluator: self.evaluator.clone(),
            eval_file: self.eval_file.clone(),
            searcher: None,
        })
    }

    fn set_position(
        &mut self,
        sfen: Option<&str>,
        moves: &[String],
        rules: &RuleOptions,
    ) -> Result<(), PositionError> {
        let mut pos = match sfen {
            None => G::startpos(),
            Some(sfen) => G::from_sfen(sfen).map_err(PositionError::Sfen)?,
        };
        pos.apply_rule_options(rules);
        for (index, text) in moves.iter().enumerate() {
            let m = pos
                .parse_move(text)
                .map_err(|error| PositionError::Move { index, error })?;
            pos.do_move(m);
        }
        self.pos = pos;
        Ok(())
    }

    fn side_to_move(&self) -> Color {
        self.pos.side_to_move()
    }

    fn sfen(&self) -> String {
        self.pos.to_sfen()
    }

    fn diagram(&self) -> String {
        self.pos.diagram()
    }

    fn parse_move(&self, text: &str) -> Result<String, String> {
        self.pos.parse_move(text).map(|m| m.to_string())
    }

    fn legal_moves(&self) -> Vec<String> {
        texts(self.pos.all_legal_moves())
    }

    fn legal_replies(&self, first: &str) -> Vec<String> {
        let Ok(m) = self.pos.parse_move(first) else {
            return Vec::new();
        };
        let mut after = self.pos.clone();
        after.do_move(m);
        texts(after.all_legal_moves())
    }

    fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        self.pos.can_declare_win(rule)
    }

    fn book_answer(&self, book: BookRequest) -> Option<BookAnswer> {
        self.pos.book_answer(book)
    }

    fn load_eval_file(&mut self, name: &str, path: &str) -> Option<Result<&'static str, String>> {
        if name == self.eval_file {
            return None;
        }
        self.eval_file = name.to_string();
        if name.is_empty() {
            self.evaluator = G::default_evaluator();
            return None;
        }
        let loaded = G::load_evaluator(path)?;
        Some(match loaded {
            Ok((evaluator, loaded_name)) => {
                self.evaluator = evaluator;
                Ok(loaded_name)
            }
            Err(e) => {
                self.evaluator = G::default_evaluator();
                Err(e)
            }
        })
    }

    fn explain(&self) -> Option<Explanation> {
        self.pos.explain(&self.evaluator)
    }

    fn ensure_searcher(&mut self, hash_mb: usize) {
        match &mut self.searcher {
            Some(searcher) => searcher.set_hash_size(hash_mb),
            None => self.searcher = Some(Searcher::new(hash_mb)),
        }
    }

    fn take_searcher(&mut self) -> Option<Searcher> {
        self.searcher.take()
    }

    fn give_searcher(&mut self, searcher: Searcher) {
        self.searcher = Some(searcher);
    }

    fn new_game(&mut self) {
        if let Some(searcher) = &mut self.searcher {
            searcher.new_game();
        }
    }

    fn prepare(&mut self, pondering: bool) -> Arc<SearchControl> {
        self.searcher
            .get_or_insert_with(|| Searcher::new(1))
            .prepare(pondering)
    }

    fn search(
        &mut self,
        limits: &Limits<String>,
        opts: &SearchOptions,
        report: &mut (dyn FnMut(Report<String>) + Send),
    ) -> Outcome<String> {
        let pos = &self.pos;
        let limits = limits.map_moves(|text| pos.parse_move(text).ok());
        let searcher = self.searcher.get_or_insert_with(|| Searcher::new(1));
        let mut report = |r: Report<G::Move>| report(r.map_moves(|m| m.to_string()));
        searcher
            .think(pos, &self.evaluator, &limits, opts, &mut report)
            .map(|m| m.to_string())
    }

    fn solves_mate(&self) -> bool {
        G::SOLVES_MATE
    }

    fn solve_mate(
        &mut self,
        request: MateRequest,
        progress: &mut dyn FnMut(MateProgress),
    ) -> Option<MateAnswer> {
        self.pos.solve_mate(request, progress)
    }

    fn divide(&mut self, depth: u32, stop: &AtomicBool, each: &mut dyn FnMut(&str, u64)) -> bool {
        self.pos
            .divide(depth, stop, &mut |m, count| each(&m.to_string(), count))
    }

    fn bench(&mut self, depth: u32, threads: usize, hash_mb: usize) -> BenchResult {
        let positions: Vec<(&str, G)> = self.bench_positions().collect();
        crate::bench::run(positions, &self.evaluator, depth, threads, hash_mb)
    }
}

fn texts<M: ToString>(moves: Vec<M>) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}
