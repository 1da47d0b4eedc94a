//! The games kirin plays, as the USI layer switches between them: a `Variant` named by the
//! `UCI_Variant` option, and a position of whichever game is selected. The USI controller holds
//! one `GamePosition` and dispatches on it once per command; the search itself is compiled
//! per game (see [`super::Game`]).

use crate::shogi::{self, Color, EnteringKingRule, Move, MoveList};
use crate::yari;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    #[default]
    Standard,
    /// Yari shogi (lance shogi), on 7 files.
    Yari,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Standard, Variant::Yari];

    /// The name in `UCI_Variant`, as Fairy-Stockfish and its GUIs spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "shogi",
            Variant::Yari => "yarishogi",
        }
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(name))
    }

    /// Names as a USI combo option lists them.
    pub const NAMES: [&'static str; 2] = [Variant::Standard.name(), Variant::Yari.name()];
}

/// A position of the selected game.
#[derive(Clone)]
pub enum GamePosition {
    Standard(shogi::Position),
    Yari(yari::Position),
}

impl GamePosition {
    pub fn startpos(variant: Variant) -> GamePosition {
        match variant {
            Variant::Standard => GamePosition::Standard(shogi::Position::startpos()),
            Variant::Yari => GamePosition::Yari(yari::Position::startpos()),
        }
    }

    /// An SFEN of `variant`; the error is one line.
    pub fn from_sfen(variant: Variant, sfen: &str) -> Result<GamePosition, String> {
        match variant {
            Variant::Standard => shogi::Position::from_sfen(sfen)
                .map(GamePosition::Standard)
                .map_err(|e| e.to_string()),
            Variant::Yari => yari::Position::from_sfen(sfen)
                .map(GamePosition::Yari)
                .map_err(|e| e.to_string()),
        }
    }

    pub fn variant(&self) -> Variant {
        match self {
            GamePosition::Standard(_) => Variant::Standard,
            GamePosition::Yari(_) => Variant::Yari,
        }
    }

    /// The standard-shogi position, for what only standard shogi has (book, mate solver,
    /// the evaluation's `eval` breakdown).
    pub fn as_standard(&self) -> Option<&shogi::Position> {
        match self {
            GamePosition::Standard(p) => Some(p),
            GamePosition::Yari(_) => None,
        }
    }

    /// A legal move from USI text; the error is one line.
    pub fn parse_move(&self, text: &str) -> Result<Move, String> {
        match self {
            GamePosition::Standard(p) => p.parse_move(text).map_err(|e| e.to_string()),
            GamePosition::Yari(p) => p.parse_move(text),
        }
    }

    pub fn do_move(&mut self, m: Move) {
        match self {
            GamePosition::Standard(p) => p.do_move(m),
            GamePosition::Yari(p) => p.do_move(m),
        }
    }

    pub fn side_to_move(&self) -> Color {
        match self {
            GamePosition::Standard(p) => p.side_to_move(),
            GamePosition::Yari(p) => p.side_to_move(),
        }
    }

    pub fn legal_moves(&self) -> MoveList {
        match self {
            GamePosition::Standard(p) => shogi::legal_moves(p),
            GamePosition::Yari(p) => p.legal_moves(),
        }
    }

    pub fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        match self {
            GamePosition::Standard(p) => p.can_declare_win(rule),
            GamePosition::Yari(_) => false,
        }
    }

    pub fn to_sfen(&self) -> String {
        match self {
            GamePosition::Standard(p) => p.to_sfen(),
            GamePosition::Yari(p) => p.to_sfen(),
        }
    }

    /// Board diagram for the `d` command.
    pub fn diagram(&self) -> String {
        match self {
            GamePosition::Standard(p) => p.diagram(),
            GamePosition::Yari(p) => p.diagram(),
        }
    }
}
