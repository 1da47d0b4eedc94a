//! The games kirin plays, as the USI layer switches between them: a `Variant` named by the
//! `UCI_Variant` option, and a position of whichever game is selected. The USI controller holds
//! one `GamePosition` and dispatches on it once per command; the search itself is compiled
//! per game (see [`super::Game`]).

use crate::shogi::{self, Color, EnteringKingRule};
use crate::{dai, yari};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    #[default]
    Standard,
    /// Yari shogi (lance shogi), on 7 files.
    Yari,
    /// Dai shogi, on 15x15 squares.
    Dai,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Standard, Variant::Yari, Variant::Dai];

    /// The name in `UCI_Variant`, as Fairy-Stockfish and its GUIs spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "shogi",
            Variant::Yari => "yarishogi",
            Variant::Dai => "daishogi",
        }
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(name))
    }

    /// Names as a USI combo option lists them.
    pub const NAMES: [&'static str; 3] = [
        Variant::Standard.name(),
        Variant::Yari.name(),
        Variant::Dai.name(),
    ];
}

/// A move of whichever game is selected: standard and yari shogi share the 9x9 board's move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VariantMove {
    Shogi(shogi::Move),
    Dai(dai::Move),
}

impl VariantMove {
    pub fn shogi(self) -> Option<shogi::Move> {
        match self {
            VariantMove::Shogi(m) => Some(m),
            VariantMove::Dai(_) => None,
        }
    }

    pub fn dai(self) -> Option<dai::Move> {
        match self {
            VariantMove::Dai(m) => Some(m),
            VariantMove::Shogi(_) => None,
        }
    }
}

impl fmt::Display for VariantMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantMove::Shogi(m) => m.fmt(f),
            VariantMove::Dai(m) => m.fmt(f),
        }
    }
}

/// A position of the selected game.
// The controller holds one and clones it per `go`: the dai board's size costs nothing there.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum GamePosition {
    Standard(shogi::Position),
    Yari(yari::Position),
    Dai(dai::Position),
}

impl GamePosition {
    pub fn startpos(variant: Variant) -> GamePosition {
        match variant {
            Variant::Standard => GamePosition::Standard(shogi::Position::startpos()),
            Variant::Yari => GamePosition::Yari(yari::Position::startpos()),
            Variant::Dai => GamePosition::Dai(dai::Position::startpos()),
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
            Variant::Dai => dai::Position::from_sfen(sfen)
                .map(GamePosition::Dai)
                .map_err(|e| e.to_string()),
        }
    }

    pub fn variant(&self) -> Variant {
        match self {
            GamePosition::Standard(_) => Variant::Standard,
            GamePosition::Yari(_) => Variant::Yari,
            GamePosition::Dai(_) => Variant::Dai,
        }
    }

    /// The standard-shogi position, for what only standard shogi has (book, mate solver,
    /// the evaluation's `eval` breakdown).
    pub fn as_standard(&self) -> Option<&shogi::Position> {
        match self {
            GamePosition::Standard(p) => Some(p),
            GamePosition::Yari(_) | GamePosition::Dai(_) => None,
        }
    }

    /// A legal move from USI text; the error is one line.
    pub fn parse_move(&self, text: &str) -> Result<VariantMove, String> {
        match self {
            GamePosition::Standard(p) => p
                .parse_move(text)
                .map(VariantMove::Shogi)
                .map_err(|e| e.to_string()),
            GamePosition::Yari(p) => p.parse_move(text).map(VariantMove::Shogi),
            GamePosition::Dai(p) => p.parse_move(text).map(VariantMove::Dai),
        }
    }

    /// Plays `m`, a legal move of this game (from `parse_move` or `legal_moves`); a move of
    /// another game is ignored.
    pub fn do_move(&mut self, m: VariantMove) {
        match (self, m) {
            (GamePosition::Standard(p), VariantMove::Shogi(m)) => p.do_move(m),
            (GamePosition::Yari(p), VariantMove::Shogi(m)) => p.do_move(m),
            (GamePosition::Dai(p), VariantMove::Dai(m)) => p.do_move(m),
            (pos, m) => log::error!("{m} is not a {} move", pos.variant().name()),
        }
    }

    pub fn side_to_move(&self) -> Color {
        match self {
            GamePosition::Standard(p) => p.side_to_move(),
            GamePosition::Yari(p) => p.side_to_move(),
            GamePosition::Dai(p) => p.side_to_move(),
        }
    }

    pub fn legal_moves(&self) -> Vec<VariantMove> {
        match self {
            GamePosition::Standard(p) => shogi::legal_moves(p)
                .into_iter()
                .map(VariantMove::Shogi)
                .collect(),
            GamePosition::Yari(p) => p
                .legal_moves()
                .into_iter()
                .map(VariantMove::Shogi)
                .collect(),
            GamePosition::Dai(p) => {
                // A side without royals has lost: no move is left to it.
                if p.royals(p.side_to_move()) == 0 {
                    return Vec::new();
                }
                p.legal_moves().into_iter().map(VariantMove::Dai).collect()
            }
        }
    }

    pub fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        match self {
            GamePosition::Standard(p) => p.can_declare_win(rule),
            GamePosition::Yari(_) | GamePosition::Dai(_) => false,
        }
    }

    pub fn to_sfen(&self) -> String {
        match self {
            GamePosition::Standard(p) => p.to_sfen(),
            GamePosition::Yari(p) => p.to_sfen(),
            GamePosition::Dai(p) => p.to_sfen(),
        }
    }

    /// Board diagram for the `d` command.
    pub fn diagram(&self) -> String {
        match self {
            GamePosition::Standard(p) => p.diagram(),
            GamePosition::Yari(p) => p.diagram(),
            GamePosition::Dai(p) => dai_diagram(p),
        }
    }
}

/// The dai board as the SFEN's ranks, one per line, with the side to move and the move number,
/// then the whole SFEN.
fn dai_diagram(p: &dai::Position) -> String {
    let sfen = p.to_sfen();
    let mut words = sfen.split(' ');
    let board = words.next().unwrap_or_default();
    let mut text: String = board.split('/').map(|rank| format!("{rank}\n")).collect();
    text.push_str(&format!(
        "side to move: {}, move {}\n",
        if p.side_to_move() == Color::Black {
            "black"
        } else {
            "white"
        },
        p.game_ply()
    ));
    text.push_str(&format!("sfen {sfen}\n"));
    text
}
