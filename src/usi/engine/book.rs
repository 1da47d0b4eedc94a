//! The opening book as the engine uses it: loaded at `isready` (or at the first `go` that
//! wants it), asked at each timed `go`, and answered with an `info` line (score and PV from
//! the book) before `bestmove`, without searching.
//!
//! A book that cannot be read, or whose lines are partly bad, costs one `info string error`
//! naming the file and the first bad line; the engine plays on with what was readable.

use super::io::Out;
use super::options::Options;
use crate::book::{
    Book, BookRequest, DEFAULT_BOOK, DEFAULT_BOOK_NAME, FileBook, Problem, Rng, Source,
};
use crate::engine::GameEngine;
use crate::search::Limits;
use crate::usi::{BestMove, InfoField, Response, Score, ScoreValue};

/// What the book option settings were when the book was (not) loaded.
#[derive(Clone, PartialEq, Eq)]
struct Loaded {
    file: String,
    on_the_fly: bool,
}

pub struct BookSlot {
    loaded: Option<Loaded>,
    source: Option<Source>,
    rng: Rng,
    /// `USI_OwnBook` and `BookFile` when last checked by [`BookSlot::option_set`].
    checked: Option<(bool, String)>,
    /// A book file already reported missing, so loading it does not say so again.
    missing: Option<String>,
}

impl BookSlot {
    pub fn new() -> BookSlot {
        BookSlot {
            loaded: None,
            source: None,
            rng: Rng::from_time(),
            checked: None,
            missing: None,
        }
    }

    /// After a `setoption`: a book file that is not there is said at once, where the GUI
    /// sees it next to the option it set, and not again when loading.
    pub fn option_set(&mut self, options: &Options, out: &Out) {
        let setting = (options.own_book, options.book_file.trim().to_string());
        if self.checked.as_ref() == Some(&setting) {
            return;
        }
        let (own_book, name) = setting.clone();
        self.checked = Some(setting);
        if !own_book || is_no_book(&name) {
            return;
        }
        let Some(path) = options.book_path() else {
            return;
        };
        // The default name without a file next to the executable means the built-in copy.
        let built_in = name == DEFAULT_BOOK_NAME && !path.exists();
        if !path.is_file() && !built_in {
            out.error(format!(
                "book {}: no such file; playing without a book",
                path.display()
            ));
            self.missing = Some(name);
        }
    }

    /// Loads the book the options name, unless that is what is loaded already. Nothing is
    /// loaded while `USI_OwnBook` is off.
    pub fn ensure(&mut self, options: &Options, out: &Out) {
        if !options.own_book {
            return;
        }
        let wanted = Loaded {
            file: options.book_file.trim().to_string(),
            on_the_fly: options.book.on_the_fly,
        };
        if self.loaded.as_ref() == Some(&wanted) {
            return;
        }
        let quiet = self.missing.as_deref() == Some(wanted.file.as_str());
        self.source = load(&wanted, options, quiet, out);
        self.loaded = Some(wanted);
    }

    /// The book's answer to a `go`, with its `info` line already sent, or `None` when the
    /// engine should search: book off, a `go` that is not a timed game move (analysis,
    /// pondering, fixed depth or nodes, searchmoves), a game without a book, or no allowed book
    /// move here. The game's engine looks its position up ([`GameEngine::book_answer`]).
    pub fn answer<M>(
        &mut self,
        game: &dyn GameEngine,
        limits: &Limits<M>,
        options: &Options,
        out: &Out,
    ) -> Option<BestMove> {
        if !options.own_book
            || options.consideration_mode
            || limits.clock.is_none()
            || limits.infinite
            || limits.ponder
            || limits.depth.is_some()
            || limits.nodes.is_some()
            || !limits.searchmoves.is_empty()
            || options.skill().is_some_and(|s| !s.uses_book())
        {
            return None;
        }
        self.ensure(options, out);
        let source = self.source.as_mut()?;
        let answer = game.book_answer(BookRequest {
            source,
            options: &options.book,
            rng: &mut self.rng,
        })?;
        if let Some(first) = answer.problems.first() {
            let more = answer.problems.len() - 1;
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            out.error(format!(
                "book {}: {first}{tail}; that entry is not used",
                options.book_file.trim()
            ));
        }
        let chosen = answer.chosen?;
        out.send(&Response::Info(vec![
            InfoField::Depth(chosen.depth.max(0) as u32),
            InfoField::Score(Score {
                value: ScoreValue::Cp(chosen.value),
                bound: None,
            }),
            InfoField::Pv(chosen.pv.clone()),
        ]));
        Some(BestMove::Move {
            mv: chosen.pv[0].clone(),
            ponder: chosen.ponder,
        })
    }
}

fn is_no_book(name: &str) -> bool {
    name.is_empty() || name.eq_ignore_ascii_case("no_book")
}

/// The book `wanted` names; `quiet` when its absence was already reported.
fn load(wanted: &Loaded, options: &Options, quiet: bool, out: &Out) -> Option<Source> {
    let name = &wanted.file;
    if is_no_book(name) {
        return None;
    }
    let path = options.book_path()?;
    if quiet && !path.is_file() {
        return None;
    }
    let report = |book: Book, problems: Vec<Problem>| {
        if let Some(first) = problems.first() {
            out.error(format!(
                "book {name}: {first}; {} bad line(s) left out",
                problems.len()
            ));
        }
        log::info!("book {name}: {} positions", book.len());
        Some(Source::Memory(book))
    };
    if !path.exists() && name == DEFAULT_BOOK_NAME {
        // Not next to the executable: the copy built into it.
        let (book, problems) = Book::parse(DEFAULT_BOOK);
        return report(book, problems);
    }
    if wanted.on_the_fly {
        // A binary search in an unsorted file misses entries without a sign; one pass over
        // the file at `isready` rules that out.
        return match FileBook::open(&path) {
            Ok(mut file) => match file.check_sorted() {
                Ok(()) => Some(Source::File(file)),
                Err(e) => {
                    out.error(format!(
                        "{e}; playing without a book (`kirin book merge` sorts it)"
                    ));
                    None
                }
            },
            Err(e) => {
                out.error(format!(
                    "book {}: {e}; playing without a book",
                    path.display()
                ));
                None
            }
        };
    }
    match Book::read(&path) {
        Ok((book, problems)) => report(book, problems),
        Err(e) => {
            out.error(format!(
                "book {}: {e}; playing without a book",
                path.display()
            ));
            None
        }
    }
}
