//! Dai shogi described to a GUI that does not know it: XBoard 4.9 plays any variant an engine
//! answers `variant dai` for with a `setup` line (piece letters, board size, parent variant,
//! start position) and one `piece` line per kind with its moves in Betza notation.
//!
//! The letters are kirin's SFEN letters, which are also HaChu's FEN letters for dai, so an XBoard
//! FEN of a dai position is kirin's SFEN board as it stands. XBoard's White is the first mover,
//! sente, whose pieces are upper case in both.

use super::output::Output;

/// One of dai shogi's 29 base kinds: its letters, its name, its moves in Betza notation (from
/// its owner's side) and, for the 26 that promote, the promoted kind's name and moves.
pub struct Kind {
    pub letters: &'static str,
    pub name: &'static str,
    pub betza: &'static str,
    pub promotes_to: Option<(&'static str, &'static str)>,
}

/// Gold's moves, which most small pieces take on promotion.
const GOLD: &str = "WfF";

/// The lion in XBoard's multi-leg Betza: every square at distance one (`K`) or two (the jumps
/// `N`, `A`, `D`); a capture on an adjacent square followed by a second king step
/// (`caK`, which holds the double capture and igui, the step back to the start); and a step to
/// an empty adjacent square and back (`mabK`), the pass.
const LION: &str = "KNADcaKmabK";

/// The lion powers along one set of directions, written with XBoard's relative leg directions
/// (`f` on the second leg goes on, `b` comes back): a step, a jump to two, a capture followed by
/// a step on or back (igui), and the pass.
const HORNED_FALCON: &str = "BsbRfWfDfcavWfmabW";
const SOARING_EAGLE: &str = "RbBfFfAfcavFfmabF";

/// The table, following the rules document's piece table (and the Betza table that
/// `tests/dai.rs` checks kirin's move generator against).
pub const KINDS: [Kind; 29] = [
    kind("P", "Pawn", "fW", Some(("Tokin", GOLD))),
    kind("N", "Knight", "ffN", Some(("Promoted knight", GOLD))),
    kind("B", "Bishop", "B", Some(("Dragon horse", "BW"))),
    kind("R", "Rook", "R", Some(("Dragon king", "RF"))),
    kind("Q", "Free king", "Q", None),
    kind("L", "Lance", "fR", Some(("White horse", "vRfB"))),
    kind("U", "Stone general", "fF", Some(("Promoted stone", GOLD))),
    kind("I", "Iron general", "fWfF", Some(("Promoted iron", GOLD))),
    kind(
        "C",
        "Copper general",
        "vWfF",
        Some(("Promoted copper", "sRvW")),
    ),
    kind(
        "S",
        "Silver general",
        "FfW",
        Some(("Promoted silver", "vRsW")),
    ),
    kind("G", "Gold general", GOLD, Some(("Promoted gold", "R"))),
    kind("A", "Reverse chariot", "vR", Some(("Whale", "vRbB"))),
    kind(
        "F",
        "Ferocious leopard",
        "FvW",
        Some(("Promoted leopard", "B")),
    ),
    kind("T", "Blind tiger", "FbsW", Some(("Flying stag", "vRK"))),
    kind("E", "Drunk elephant", "FfsW", Some(("Crown prince", "K"))),
    kind("O", "Kirin", "FD", Some(("Promoted kirin", LION))),
    kind("X", "Phoenix", "WA", Some(("Promoted phoenix", "Q"))),
    kind("W", "Evil wolf", "fsWfF", Some(("Promoted wolf", GOLD))),
    kind("M", "Side mover", "sRvW", Some(("Free boar", "sRB"))),
    kind("V", "Vertical mover", "vRsW", Some(("Flying ox", "vRB"))),
    kind(
        "H",
        "Dragon horse",
        "BW",
        Some(("Horned falcon", HORNED_FALCON)),
    ),
    kind(
        "D",
        "Dragon king",
        "RF",
        Some(("Soaring eagle", SOARING_EAGLE)),
    ),
    kind("A'", "Angry boar", "W", Some(("Promoted boar", GOLD))),
    kind("C'", "Cat sword", "F", Some(("Promoted cat sword", GOLD))),
    kind(
        "F'",
        "Flying dragon",
        "F2",
        Some(("Promoted flying dragon", GOLD)),
    ),
    kind("X'", "Violent ox", "W2", Some(("Promoted ox", GOLD))),
    kind(
        "P'",
        "Go-between",
        "vW",
        Some(("Promoted go-between", "FfsW")),
    ),
    kind("L!", "Lion", LION, None),
    kind("K", "King", "K", None),
];

const fn kind(
    letters: &'static str,
    name: &'static str,
    betza: &'static str,
    promotes_to: Option<(&'static str, &'static str)>,
) -> Kind {
    Kind {
        letters,
        name,
        betza,
        promotes_to,
    }
}

/// The most piece types XBoard 4.9.1 holds per side, the king's included (its piece list is 66
/// a side); a longer PIECETOCHAR is ignored. Dai needs 55: 28 base kinds, 26 promoted, the king.
pub const XBOARD_PIECE_TYPES: usize = 66;

/// The parent variant named in `setup`. Under `chu` XBoard reads a `+` after any move as a
/// promotion, turns the piece into its `^` partner and relays the `+`. Under any other parent,
/// `fairy` included, it keeps the `+` only for a piece of its first 11 types (pawn to man) that
/// has a `+` partner: a dragon king's `l7l11+` reached the other engine as `l7l11`, and the two
/// engines' boards parted.
/// Chu is also the parent whose pass XBoard relays as `@@@@` rather than as a `setboard`.
pub const PARENT: &str = "chu";

/// The start position, sente (XBoard's White) to move.
pub const START_FEN: &str = concat!(
    "lnuicsgkgsciunl/a1c'1f1tet1f1c'1a/1x'1a'1wxl!ow1a'1x'1/rf'mvbhdqdhbvmf'r/",
    "ppppppppppppppp/4p'5p'4/15/15/15/4P'5P'4/PPPPPPPPPPPPPPP/",
    "RF'MVBHDQDHBVMF'R/1X'1A'1WOL!XW1A'1X'1/A1C'1F1TET1F1C'1A/LNUICSGKGSCIUNL w - - 0 1"
);

/// XBoard's PIECETOCHAR for one side: the base kinds from the first slot on (so pawn, knight,
/// bishop, rook and free king get the chess images of P, N, B, R, Q), then every promoted kind
/// as `^` + base letter, which XBoard pairs with that letter and shows and reads as `+` +
/// letter, and the king last, where XBoard wants it.
pub fn piece_to_char(white: bool) -> String {
    let case = |text: &str| {
        if white {
            text.to_string()
        } else {
            text.to_ascii_lowercase()
        }
    };
    let base = KINDS
        .iter()
        .filter(|k| k.letters != "K")
        .map(|k| case(k.letters));
    let promoted = KINDS
        .iter()
        .filter(|k| k.promotes_to.is_some())
        .map(|k| format!("^{}", case(k.letters)));
    let king = std::iter::once(case("K"));
    base.chain(promoted).chain(king).collect()
}

/// `(PIECETOCHAR) 15x15+0_PARENT FEN`: no holdings, as captured pieces leave the game.
pub fn setup(parent: &str) -> String {
    format!(
        "({}{}) 15x15+0_{parent} {START_FEN}",
        piece_to_char(true),
        piece_to_char(false)
    )
}

/// The whole answer to `variant dai`: `setup`, then one `piece` line per XBoard piece type,
/// promoted ones with XBoard's `+` prefix. Every kind has a type of its own, so an XBoard FEN
/// of a dai position is kirin's SFEN board as it stands.
pub fn description() -> Vec<Output> {
    let mut lines = vec![Output::Setup(setup(PARENT))];
    for kind in &KINDS {
        lines.push(Output::Piece {
            id: kind.letters.to_string(),
            betza: kind.betza.to_string(),
        });
        if let Some((_, betza)) = kind.promotes_to {
            lines.push(Output::Piece {
                id: format!("+{}", kind.letters),
                betza: betza.to_string(),
            });
        }
    }
    lines
}

#[cfg(test)]
#[path = "dai_tests.rs"]
mod tests;
