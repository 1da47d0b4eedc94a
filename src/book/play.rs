//! The book as a player: the move it chooses in a position under the book options, and the line
//! it expects after it. What the engine answers when the USI layer asks it for a book move; the
//! answer carries moves as text, so the asker needs to know no game.

use super::Source;
use super::select::{self, BookOptions, Rng};
use crate::shogi::{Move, Position};

/// What the engine is asked to play from: the book, the options its moves are chosen under,
/// and the random source that picks among them.
pub struct BookRequest<'a> {
    pub source: &'a mut Source,
    pub options: &'a BookOptions,
    pub rng: &'a mut Rng,
}

/// A book's answer in a position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookAnswer {
    /// Entries that could not be used (an illegal move, an unreadable file), to be reported.
    pub problems: Vec<String>,
    /// The move to play; `None` when the book allows none here.
    pub chosen: Option<BookLine>,
}

/// The chosen book move with what the book says of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookLine {
    /// The chosen move first, then the ponder move, then the book's best move at each
    /// following position, up to `BookPvMoves` moves.
    pub pv: Vec<String>,
    /// The expected reply, when the book knows one (also when `pv` is cut before it).
    pub ponder: Option<String>,
    /// Centipawns from the view of the side to move, and the depth of the search that gave it.
    pub value: i32,
    pub depth: i32,
}

/// The book's answer in `pos`; `None` past the plies the book is used for (`BookMoves`), where
/// it is not even looked at.
pub fn answer(pos: &Position, book: BookRequest) -> Option<BookAnswer> {
    let BookRequest {
        source,
        options,
        rng,
    } = book;
    if pos.game_ply() > options.moves {
        return None;
    }
    let found = source.find(pos, !options.ignore_ply);
    let chosen = select::choose(
        &found.moves,
        pos.side_to_move(),
        pos.game_ply(),
        options,
        rng,
    )
    .map(|chosen| BookLine {
        pv: book_pv(source, pos, chosen.mv, chosen.ponder, options)
            .iter()
            .map(Move::to_string)
            .collect(),
        ponder: chosen.ponder.map(|m| m.to_string()),
        value: chosen.value,
        depth: chosen.depth,
    });
    Some(BookAnswer {
        problems: found.problems,
        chosen,
    })
}

/// The move, the ponder move, then the book's best move at each following position, up to
/// `BookPvMoves` moves.
fn book_pv(
    source: &mut Source,
    pos: &Position,
    mv: Move,
    ponder: Option<Move>,
    options: &BookOptions,
) -> Vec<Move> {
    let limit = options.pv_moves.max(1) as usize;
    let mut pv = vec![mv];
    let mut after = pos.clone();
    after.do_move(mv);
    if let Some(reply) = ponder.filter(|_| limit >= 2) {
        pv.push(reply);
        after.do_move(reply);
    }
    while pv.len() < limit {
        let found = source.find(&after, !options.ignore_ply);
        let Some(best) = found.moves.iter().max_by_key(|m| m.value) else {
            break;
        };
        pv.push(best.mv);
        after.do_move(best.mv);
    }
    pv
}
