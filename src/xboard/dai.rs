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
    /// How XBoard shows the promoted kind: `None` for its own `+` letter and slot, or the ID of
    /// a piece that moves the same, as XBoard 4.9.1 has too few slots for all 55 kinds.
    pub promoted_shown_as: Option<&'static str>,
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
    kind("P", "Pawn", "fW", Some(("Tokin", GOLD)), None),
    kind(
        "N",
        "Knight",
        "ffN",
        Some(("Promoted knight", GOLD)),
        Some("+P"),
    ),
    kind("B", "Bishop", "B", Some(("Dragon horse", "BW")), None),
    kind("R", "Rook", "R", Some(("Dragon king", "RF")), None),
    kind("Q", "Free king", "Q", None, None),
    kind("L", "Lance", "fR", Some(("White horse", "vRfB")), None),
    kind(
        "U",
        "Stone general",
        "fF",
        Some(("Promoted stone", GOLD)),
        Some("+P"),
    ),
    kind(
        "I",
        "Iron general",
        "fWfF",
        Some(("Promoted iron", GOLD)),
        Some("+P"),
    ),
    kind(
        "C",
        "Copper general",
        "vWfF",
        Some(("Promoted copper", "sRvW")),
        None,
    ),
    kind(
        "S",
        "Silver general",
        "FfW",
        Some(("Promoted silver", "vRsW")),
        None,
    ),
    kind(
        "G",
        "Gold general",
        GOLD,
        Some(("Promoted gold", "R")),
        None,
    ),
    kind("A", "Reverse chariot", "vR", Some(("Whale", "vRbB")), None),
    kind(
        "F",
        "Ferocious leopard",
        "FvW",
        Some(("Promoted leopard", "B")),
        None,
    ),
    kind(
        "T",
        "Blind tiger",
        "FbsW",
        Some(("Flying stag", "vRK")),
        None,
    ),
    kind(
        "E",
        "Drunk elephant",
        "FfsW",
        Some(("Crown prince", "K")),
        None,
    ),
    kind(
        "O",
        "Kirin",
        "FD",
        Some(("Promoted kirin", LION)),
        Some("L!"),
    ),
    kind(
        "X",
        "Phoenix",
        "WA",
        Some(("Promoted phoenix", "Q")),
        Some("Q"),
    ),
    kind(
        "W",
        "Evil wolf",
        "fsWfF",
        Some(("Promoted wolf", GOLD)),
        Some("+P"),
    ),
    kind("M", "Side mover", "sRvW", Some(("Free boar", "sRB")), None),
    kind(
        "V",
        "Vertical mover",
        "vRsW",
        Some(("Flying ox", "vRB")),
        None,
    ),
    kind(
        "H",
        "Dragon horse",
        "BW",
        Some(("Horned falcon", HORNED_FALCON)),
        None,
    ),
    kind(
        "D",
        "Dragon king",
        "RF",
        Some(("Soaring eagle", SOARING_EAGLE)),
        None,
    ),
    kind(
        "A'",
        "Angry boar",
        "W",
        Some(("Promoted boar", GOLD)),
        Some("+P"),
    ),
    kind(
        "C'",
        "Cat sword",
        "F",
        Some(("Promoted cat sword", GOLD)),
        Some("+P"),
    ),
    kind(
        "F'",
        "Flying dragon",
        "F2",
        Some(("Promoted flying dragon", GOLD)),
        Some("+P"),
    ),
    kind(
        "X'",
        "Violent ox",
        "W2",
        Some(("Promoted ox", GOLD)),
        Some("+P"),
    ),
    kind(
        "P'",
        "Go-between",
        "vW",
        Some(("Promoted go-between", "FfsW")),
        Some("E"),
    ),
    kind("L!", "Lion", LION, None, None),
    kind("K", "King", "K", None, None),
];

const fn kind(
    letters: &'static str,
    name: &'static str,
    betza: &'static str,
    promotes_to: Option<(&'static str, &'static str)>,
    promoted_shown_as: Option<&'static str>,
) -> Kind {
    Kind {
        letters,
        name,
        betza,
        promotes_to,
        promoted_shown_as,
    }
}

/// How many piece types Debian's XBoard 4.9.1 holds per side, the king in the last slot (its
/// built-in tables are 44 letters a side); a longer PIECETOCHAR is ignored.
pub const XBOARD_PIECE_TYPES: usize = 44;

/// The start position, sente (XBoard's White) to move.
pub const START_FEN: &str = concat!(
    "lnuicsgkgsciunl/a1c'1f1tet1f1c'1a/1x'1a'1wxl!ow1a'1x'1/rf'mvbhdqdhbvmf'r/",
    "ppppppppppppppp/4p'5p'4/15/15/15/4P'5P'4/PPPPPPPPPPPPPPP/",
    "RF'MVBHDQDHBVMF'R/1X'1A'1WOL!XW1A'1X'1/A1C'1F1TET1F1C'1A/LNUICSGKGSCIUNL w - - 0 1"
);

/// XBoard's PIECETOCHAR for one side: the base kinds from the first slot on (so pawn, knight,
/// bishop, rook and free king get the chess images of P, N, B, R, Q), then the promoted kinds
/// that have a slot of their own as `^` + base letter, which XBoard shows and reads as `+` +
/// letter, unused slots as `.`, and the king in the last slot, where XBoard wants it.
pub fn piece_to_char(white: bool) -> String {
    let case = |text: &str| {
        if white {
            text.to_string()
        } else {
            text.to_ascii_lowercase()
        }
    };
    let mut slots: Vec<String> = KINDS
        .iter()
        .filter(|k| k.letters != "K")
        .map(|k| case(k.letters))
        .collect();
    slots.extend(
        KINDS
            .iter()
            .filter(|k| k.promotes_to.is_some() && k.promoted_shown_as.is_none())
            .map(|k| format!("^{}", case(k.letters))),
    );
    slots.resize(XBOARD_PIECE_TYPES - 1, ".".to_string());
    slots.push(case("K"));
    slots.concat()
}

/// `(PIECETOCHAR) 15x15+0_PARENT FEN`: no holdings, as captured pieces leave the game. The
/// parent is `fairy`, XBoard's catch-all, so that it draws what it is told.
pub fn setup(parent: &str) -> String {
    format!(
        "({}{}) 15x15+0_{parent} {START_FEN}",
        piece_to_char(true),
        piece_to_char(false)
    )
}

/// The whole answer to `variant dai`: `setup`, then one `piece` line per XBoard piece type,
/// promoted ones with XBoard's `+` prefix.
pub fn description() -> Vec<Output> {
    let mut lines = vec![Output::Setup(setup("fairy"))];
    for kind in &KINDS {
        lines.push(Output::Piece {
            id: kind.letters.to_string(),
            betza: kind.betza.to_string(),
        });
        if let (Some((_, betza)), None) = (kind.promotes_to, kind.promoted_shown_as) {
            lines.push(Output::Piece {
                id: format!("+{}", kind.letters),
                betza: betza.to_string(),
            });
        }
    }
    lines
}

/// The XBoard piece ID of a kirin piece (`+N`, `l!`, `a'`): itself, or for a promoted kind
/// without a slot the piece that stands in for it, in the piece's case. `None` when the text
/// is not a dai piece.
pub fn xboard_piece(kirin: &str) -> Option<String> {
    let (promoted, base) = match kirin.strip_prefix('+') {
        Some(base) => (true, base),
        None => (false, kirin),
    };
    let upper = base.to_ascii_uppercase();
    let kind = KINDS.iter().find(|k| k.letters == upper)?;
    let id = match (promoted, kind.promotes_to, kind.promoted_shown_as) {
        (false, _, _) => kind.letters.to_string(),
        (true, Some(_), Some(shown)) => shown.to_string(),
        (true, Some(_), None) => format!("+{}", kind.letters),
        (true, None, _) => return None,
    };
    let black = base.starts_with(|c: char| c.is_ascii_lowercase());
    Some(if black { id.to_ascii_lowercase() } else { id })
}

/// An XBoard FEN board of a kirin SFEN board: the same text but for promoted kinds without a
/// slot of their own. `None` when a piece is not a dai piece.
pub fn xboard_board(sfen_board: &str) -> Option<String> {
    let mut out = String::with_capacity(sfen_board.len());
    let mut piece = String::new();
    for c in sfen_board.chars().chain(std::iter::once(' ')) {
        let dressing = c == '\'' || c == '!';
        let ends_piece = !piece.is_empty() && !piece.ends_with('+') && !dressing;
        if ends_piece {
            out.push_str(&xboard_piece(&piece)?);
            piece.clear();
        }
        match c {
            ' ' => {}
            '0'..='9' | '/' => out.push(c),
            _ => piece.push(c),
        }
    }
    piece.is_empty().then_some(out)
}

#[cfg(test)]
#[path = "dai_tests.rs"]
mod tests;
