//! The lines an engine sends XBoard under CECP protocol 2, each written by `Display` so the
//! session and the tests build the exact text the GUI reads.

use super::protocol::GameResult;
use std::fmt;

/// An engine option as a `feature option="..."` line offers it to the GUI.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    Check(bool),
    Spin {
        value: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: String,
        choices: Vec<String>,
    },
    String(String),
    Button,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EngineOption {
    pub name: String,
    pub kind: OptionKind,
}

impl fmt::Display for EngineOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.name)?;
        match &self.kind {
            OptionKind::Check(on) => write!(f, "-check {}", u8::from(*on)),
            OptionKind::Spin { value, min, max } => write!(f, "-spin {value} {min} {max}"),
            // XBoard marks the default choice by listing it first.
            OptionKind::Combo { default, choices } => {
                write!(f, "-combo {default}")?;
                for choice in choices.iter().filter(|c| *c != default) {
                    write!(f, " /// {choice}")?;
                }
                Ok(())
            }
            OptionKind::String(value) => write!(f, "-string {value}"),
            OptionKind::Button => write!(f, "-button"),
        }
    }
}

/// One engine-to-GUI line.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// `feature done=0`: holds XBoard's two-second feature timeout open while the rest is sent.
    FeaturesBegin,
    /// `feature NAME=VALUE` for a number or a flag.
    FeatureNumber(&'static str, i64),
    /// `feature NAME="VALUE"` for text.
    FeatureText(&'static str, String),
    FeatureOption(EngineOption),
    /// `feature done=1`.
    FeaturesEnd,
    /// `move MOVE`: one leg, with a trailing comma when more legs follow.
    Move(String),
    Pong(i64),
    /// `ply score time nodes pv`: depth, centipawns for the side to move, centiseconds.
    Thinking {
        depth: u32,
        score: i32,
        centiseconds: u64,
        nodes: u64,
        pv: String,
    },
    /// `1-0 {White mates}` style result claim.
    Result {
        result: GameResult,
        comment: String,
    },
    IllegalMove {
        reason: Option<String>,
        text: String,
    },
    Error {
        reason: String,
        command: String,
    },
    /// `setup (PIECETOCHAR) WxH+S_PARENT FEN`.
    Setup(String),
    /// `piece ID& BETZA`.
    Piece {
        id: String,
        betza: String,
    },
    /// `highlight COLORFEN`.
    Highlight(String),
    Hint(String),
    Resign,
    OfferDraw,
    TellUser(String),
    /// `# ...`: a comment XBoard writes to its debug file only.
    Debug(String),
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Output::FeaturesBegin => write!(f, "feature done=0"),
            Output::FeatureNumber(name, value) => write!(f, "feature {name}={value}"),
            Output::FeatureText(name, value) => write!(f, "feature {name}=\"{value}\""),
            Output::FeatureOption(option) => write!(f, "feature option=\"{option}\""),
            Output::FeaturesEnd => write!(f, "feature done=1"),
            Output::Move(text) => write!(f, "move {text}"),
            Output::Pong(n) => write!(f, "pong {n}"),
            Output::Thinking {
                depth,
                score,
                centiseconds,
                nodes,
                pv,
            } => {
                write!(f, "{depth} {score} {centiseconds} {nodes} {pv}")
            }
            Output::Result { result, comment } => write!(f, "{} {{{comment}}}", result.as_str()),
            Output::IllegalMove {
                reason: Some(reason),
                text,
            } => {
                write!(f, "Illegal move ({reason}): {text}")
            }
            Output::IllegalMove { reason: None, text } => write!(f, "Illegal move: {text}"),
            Output::Error { reason, command } => write!(f, "Error ({reason}): {command}"),
            Output::Setup(text) => write!(f, "setup {text}"),
            Output::Piece { id, betza } => write!(f, "piece {id}& {betza}"),
            Output::Highlight(colours) => write!(f, "highlight {colours}"),
            Output::Hint(text) => write!(f, "Hint: {text}"),
            Output::Resign => write!(f, "resign"),
            Output::OfferDraw => write!(f, "offer draw"),
            Output::TellUser(text) => write!(f, "telluser {text}"),
            Output::Debug(text) => write!(f, "# {text}"),
        }
    }
}

/// The reply to `protover 2`: `done=0` first so XBoard waits, the features kirin uses, then
/// `done=1`. `sigint=0`/`sigterm=0` because kirin reads `?` and `quit` from its input and a
/// signal would kill it; `colors=0` because it follows the side to move, not `white`/`black`.
pub fn features(name: &str, variants: &[&str], options: &[EngineOption]) -> Vec<Output> {
    let mut lines = vec![
        Output::FeaturesBegin,
        Output::FeatureText("myname", name.to_string()),
        Output::FeatureText("variants", variants.join(",")),
    ];
    for flag in [
        "setboard",
        "usermove",
        "ping",
        "memory",
        "cores",
        "highlight",
    ] {
        lines.push(Output::FeatureNumber(flag, 1));
    }
    for flag in ["sigint", "sigterm", "colors", "reuse"] {
        lines.push(Output::FeatureNumber(flag, 0));
    }
    lines.extend(options.iter().cloned().map(Output::FeatureOption));
    lines.push(Output::FeaturesEnd);
    lines
}

/// A `highlight` colour FEN for a board of `files` x `ranks`: `marks` gives each marked
/// square as (file index from XBoard's a-file, rank index from rank 1) and its colour letter
/// (`Y` target, `R` capture, `M` promotion choice, `C` multi-leg waypoint). Rows run from the
/// top rank down, as in a FEN.
pub fn highlight_fen(files: u8, ranks: u8, marks: &[(u8, u8, char)]) -> String {
    let mut rows = Vec::with_capacity(ranks as usize);
    for rank in (0..ranks).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..files {
            match marks.iter().find(|m| m.0 == file && m.1 == rank) {
                Some(&(_, _, colour)) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(colour);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    rows.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_the_protocol_writes_them() {
        let cases = [
            (Output::Move("h8h9,".into()), "move h8h9,"),
            (Output::Pong(4), "pong 4"),
            (
                Output::Thinking {
                    depth: 7,
                    score: -35,
                    centiseconds: 120,
                    nodes: 54321,
                    pv: "h5h6 h11h10".into(),
                },
                "7 -35 120 54321 h5h6 h11h10",
            ),
            (
                Output::Result {
                    result: GameResult::WhiteWins,
                    comment: "White mates".into(),
                },
                "1-0 {White mates}",
            ),
            (
                Output::Result {
                    result: GameResult::Draw,
                    comment: "Draw by repetition".into(),
                },
                "1/2-1/2 {Draw by repetition}",
            ),
            (
                Output::IllegalMove {
                    reason: Some("no such move".into()),
                    text: "h5h9".into(),
                },
                "Illegal move (no such move): h5h9",
            ),
            (
                Output::IllegalMove {
                    reason: None,
                    text: "z1".into(),
                },
                "Illegal move: z1",
            ),
            (
                Output::Error {
                    reason: "unknown command".into(),
                    command: "frob".into(),
                },
                "Error (unknown command): frob",
            ),
            (
                Output::Piece {
                    id: "L!".into(),
                    betza: "K".into(),
                },
                "piece L!& K",
            ),
            (Output::Highlight("3/1y1/3".into()), "highlight 3/1y1/3"),
            (Output::Debug("why".into()), "# why"),
        ];
        for (output, text) in cases {
            assert_eq!(output.to_string(), text);
        }
    }

    #[test]
    fn the_feature_reply_opens_and_closes_the_timeout() {
        let options = [
            EngineOption {
                name: "USI_Hash".into(),
                kind: OptionKind::Spin {
                    value: 64,
                    min: 1,
                    max: 4096,
                },
            },
            EngineOption {
                name: "Repetition".into(),
                kind: OptionKind::Combo {
                    default: "illegal".into(),
                    choices: vec!["fourfold draw".into(), "illegal".into()],
                },
            },
            EngineOption {
                name: "Ponder".into(),
                kind: OptionKind::Check(false),
            },
            EngineOption {
                name: "Clear Hash".into(),
                kind: OptionKind::Button,
            },
        ];
        let lines: Vec<String> = features("kirin 0.1.0", &["shogi", "dai"], &options)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(lines.first().map(String::as_str), Some("feature done=0"));
        assert_eq!(lines.last().map(String::as_str), Some("feature done=1"));
        for wanted in [
            "feature myname=\"kirin 0.1.0\"",
            "feature variants=\"shogi,dai\"",
            "feature setboard=1",
            "feature usermove=1",
            "feature ping=1",
            "feature memory=1",
            "feature cores=1",
            "feature highlight=1",
            "feature sigint=0",
            "feature sigterm=0",
            "feature option=\"USI_Hash -spin 64 1 4096\"",
            "feature option=\"Repetition -combo illegal /// fourfold draw\"",
            "feature option=\"Ponder -check 0\"",
            "feature option=\"Clear Hash -button\"",
        ] {
            assert!(lines.iter().any(|l| l == wanted), "missing {wanted}");
        }
    }

    #[test]
    fn highlight_rows_run_from_the_top_rank() {
        // e3 and e4 yellow, f3 red on 8x8: the example of the protocol document.
        let marks = [(4, 2, 'Y'), (4, 3, 'Y'), (5, 2, 'R')];
        assert_eq!(highlight_fen(8, 8, &marks), "8/8/8/8/4Y3/4YR2/8/8");
        assert_eq!(highlight_fen(15, 15, &[]).split('/').count(), 15);
        assert_eq!(
            highlight_fen(15, 15, &[(14, 14, 'C')]).split('/').next(),
            Some("14C")
        );
        // The line the real XBoard 4.9.1 took as "h6 is a promotion square" (docs/xboard.md).
        assert_eq!(
            highlight_fen(15, 15, &[(7, 5, 'M')]),
            "15/15/15/15/15/15/15/15/15/7M7/15/15/15/15/15"
        );
    }
}
