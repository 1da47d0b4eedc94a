//! What the engine sends to the GUI. `Display` writes exactly one protocol line of
//! ASCII, without the newline: the caller adds it and flushes.

use std::fmt::{self, Write};

use super::ascii::AsciiLine;
use super::command::{keyed_text, words};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    IdName(String),
    IdAuthor(String),
    Option(OptionDecl),
    UsiOk,
    ReadyOk,
    BestMove(BestMove),
    /// The only valid answer to `go mate`.
    Checkmate(CheckmateAnswer),
    Info(Vec<InfoField>),
}

impl Response {
    /// The engine's way to tell a person something (errors included) without breaking the GUI.
    pub fn info_string(text: impl Into<String>) -> Self {
        Response::Info(vec![InfoField::String(text.into())])
    }
}

/// An `option` line of the `usi` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionDecl {
    /// Without spaces: GUIs send it back in `setoption name <id>`.
    pub name: String,
    pub kind: OptionKind,
}

/// The six option types. Empty text defaults are written `<empty>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    Check {
        default: bool,
    },
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    /// Neither the default nor the `var` choices may hold spaces.
    Combo {
        default: String,
        vars: Vec<String>,
    },
    Button,
    String {
        default: String,
    },
    Filename {
        default: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BestMove {
    Move {
        mv: String,
        ponder: Option<String>,
    },
    Resign,
    /// Entering-king declaration.
    Win,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckmateAnswer {
    Moves(Vec<String>),
    NoMate,
    Timeout,
    NotImplemented,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InfoField {
    Depth(u32),
    SelDepth(u32),
    /// Milliseconds.
    Time(u64),
    Nodes(u64),
    Nps(u64),
    /// Per mille.
    HashFull(u32),
    MultiPv(u32),
    CurrMove(String),
    Score(Score),
    /// Always written after every other field but `string`.
    Pv(Vec<String>),
    /// Always written last: GUIs take it to the end of the line.
    String(String),
}

/// From the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Score {
    pub value: ScoreValue,
    /// Set when a search window failed and the value is only a limit.
    pub bound: Option<Bound>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreValue {
    Cp(i32),
    /// Plies to mate: positive when the side to move mates, negative when it is mated.
    Mate(i32),
    /// `mate +`: the side to move mates, length unknown.
    MatePlus,
    /// `mate -`: the side to move is mated, length unknown.
    MateMinus,
    /// `mate -0`: the side to move is checkmated already (no legal move), what GUIs expect
    /// before `bestmove resign`.
    Checkmated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    Lower,
    Upper,
}

impl OptionDecl {
    pub fn check(name: &str, default: bool) -> Self {
        Self::new(name, OptionKind::Check { default })
    }

    pub fn spin(name: &str, default: i64, min: i64, max: i64) -> Self {
        Self::new(name, OptionKind::Spin { default, min, max })
    }

    pub fn combo(name: &str, default: &str, vars: &[&str]) -> Self {
        let vars = vars.iter().map(|var| var.to_string()).collect();
        Self::new(
            name,
            OptionKind::Combo {
                default: default.into(),
                vars,
            },
        )
    }

    pub fn button(name: &str) -> Self {
        Self::new(name, OptionKind::Button)
    }

    pub fn string(name: &str, default: &str) -> Self {
        Self::new(
            name,
            OptionKind::String {
                default: default.into(),
            },
        )
    }

    pub fn filename(name: &str, default: &str) -> Self {
        Self::new(
            name,
            OptionKind::Filename {
                default: default.into(),
            },
        )
    }

    fn new(name: &str, kind: OptionKind) -> Self {
        Self {
            name: name.into(),
            kind,
        }
    }
}

/// How an empty default travels: GUIs would otherwise read `default` with nothing after it.
pub const EMPTY: &str = "<empty>";

fn or_empty(text: &str) -> &str {
    if text.is_empty() { EMPTY } else { text }
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out = &mut AsciiLine(f);
        match self {
            Response::IdName(name) => keyed_text(out, "id name", name),
            Response::IdAuthor(author) => keyed_text(out, "id author", author),
            Response::Option(decl) => write!(out, "option {decl}"),
            Response::UsiOk => out.write_str("usiok"),
            Response::ReadyOk => out.write_str("readyok"),
            Response::BestMove(best) => write!(out, "bestmove {best}"),
            Response::Checkmate(CheckmateAnswer::Moves(moves)) => {
                out.write_str("checkmate")?;
                words(out, moves)
            }
            Response::Checkmate(CheckmateAnswer::NoMate) => out.write_str("checkmate nomate"),
            Response::Checkmate(CheckmateAnswer::Timeout) => out.write_str("checkmate timeout"),
            Response::Checkmate(CheckmateAnswer::NotImplemented) => {
                out.write_str("checkmate notimplemented")
            }
            Response::Info(fields) => {
                out.write_str("info")?;
                write_info(out, fields)
            }
        }
    }
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out = &mut AsciiLine(f);
        write!(out, "name {} type ", self.name)?;
        match &self.kind {
            OptionKind::Check { default } => write!(out, "check default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(out, "spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, vars } => {
                write!(out, "combo default {}", or_empty(default))?;
                vars.iter().try_for_each(|var| write!(out, " var {var}"))
            }
            OptionKind::Button => out.write_str("button"),
            OptionKind::String { default } => write!(out, "string default {}", or_empty(default)),
            OptionKind::Filename { default } => {
                write!(out, "filename default {}", or_empty(default))
            }
        }
    }
}

impl fmt::Display for BestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out = &mut AsciiLine(f);
        match self {
            BestMove::Move { mv, ponder: None } => out.write_str(mv),
            BestMove::Move {
                mv,
                ponder: Some(ponder),
            } => write!(out, "{mv} ponder {ponder}"),
            BestMove::Resign => out.write_str("resign"),
            BestMove::Win => out.write_str("win"),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            ScoreValue::Cp(cp) => write!(f, "cp {cp}")?,
            ScoreValue::Mate(plies) => write!(f, "mate {plies}")?,
            ScoreValue::MatePlus => f.write_str("mate +")?,
            ScoreValue::MateMinus => f.write_str("mate -")?,
            ScoreValue::Checkmated => f.write_str("mate -0")?,
        }
        match self.bound {
            Some(Bound::Lower) => f.write_str(" lowerbound"),
            Some(Bound::Upper) => f.write_str(" upperbound"),
            None => Ok(()),
        }
    }
}

/// Fields in the given order, except that `pv` and then `string` go last: a GUI
/// reads each of them to the end of the line and would swallow what followed.
fn write_info(out: &mut impl Write, fields: &[InfoField]) -> fmt::Result {
    let to_end_of_line =
        |field: &InfoField| matches!(field, InfoField::Pv(_) | InfoField::String(_));
    let ordinary = fields.iter().filter(|field| !to_end_of_line(field));
    let pvs = fields
        .iter()
        .filter(|field| matches!(field, InfoField::Pv(_)));
    let strings = fields
        .iter()
        .filter(|field| matches!(field, InfoField::String(_)));
    for field in ordinary.chain(pvs).chain(strings) {
        out.write_char(' ')?;
        write_field(out, field)?;
    }
    Ok(())
}

fn write_field(out: &mut impl Write, field: &InfoField) -> fmt::Result {
    match field {
        InfoField::Depth(depth) => write!(out, "depth {depth}"),
        InfoField::SelDepth(depth) => write!(out, "seldepth {depth}"),
        InfoField::Time(ms) => write!(out, "time {ms}"),
        InfoField::Nodes(nodes) => write!(out, "nodes {nodes}"),
        InfoField::Nps(nps) => write!(out, "nps {nps}"),
        InfoField::HashFull(permille) => write!(out, "hashfull {permille}"),
        InfoField::MultiPv(k) => write!(out, "multipv {k}"),
        InfoField::CurrMove(mv) => write!(out, "currmove {mv}"),
        InfoField::Score(score) => write!(out, "score {score}"),
        InfoField::Pv(moves) => {
            out.write_str("pv")?;
            words(out, moves)
        }
        InfoField::String(text) => keyed_text(out, "string", text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> String {
        text.to_string()
    }

    #[test]
    fn id_and_handshake_lines() {
        assert_eq!(
            Response::IdName("kirin 0.1".into()).to_string(),
            "id name kirin 0.1"
        );
        assert_eq!(
            Response::IdAuthor("the kirin team".into()).to_string(),
            "id author the kirin team"
        );
        assert_eq!(Response::UsiOk.to_string(), "usiok");
        assert_eq!(Response::ReadyOk.to_string(), "readyok");
    }

    #[test]
    fn all_six_option_types() {
        let line = |decl: OptionDecl| Response::Option(decl).to_string();
        assert_eq!(
            line(OptionDecl::check("USI_Ponder", true)),
            "option name USI_Ponder type check default true"
        );
        assert_eq!(
            line(OptionDecl::spin("DrawValueBlack", -2, -30000, 30000)),
            "option name DrawValueBlack type spin default -2 min -30000 max 30000"
        );
        assert_eq!(
            line(OptionDecl::combo(
                "EnteringKingRule",
                "CSARule27",
                &["NoEnteringKing", "CSARule27"]
            )),
            "option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule27"
        );
        assert_eq!(
            line(OptionDecl::button("ClearHash")),
            "option name ClearHash type button"
        );
        assert_eq!(
            line(OptionDecl::string("Comment", "")),
            "option name Comment type string default <empty>"
        );
        assert_eq!(
            line(OptionDecl::filename("BookFile", "")),
            "option name BookFile type filename default <empty>"
        );
        assert_eq!(
            line(OptionDecl::filename("BookFile", "book/standard.db")),
            "option name BookFile type filename default book/standard.db"
        );
    }

    #[test]
    fn bestmove_forms() {
        let best = |best: BestMove| Response::BestMove(best).to_string();
        assert_eq!(
            best(BestMove::Move {
                mv: mv("7g7f"),
                ponder: None
            }),
            "bestmove 7g7f"
        );
        assert_eq!(
            best(BestMove::Move {
                mv: mv("8h2b+"),
                ponder: Some(mv("3a2b"))
            }),
            "bestmove 8h2b+ ponder 3a2b"
        );
        assert_eq!(best(BestMove::Resign), "bestmove resign");
        assert_eq!(best(BestMove::Win), "bestmove win");
    }

    #[test]
    fn checkmate_forms() {
        let answer = |answer: CheckmateAnswer| Response::Checkmate(answer).to_string();
        assert_eq!(
            answer(CheckmateAnswer::Moves(vec![mv("G*5b"), mv("4a5b")])),
            "checkmate G*5b 4a5b"
        );
        assert_eq!(answer(CheckmateAnswer::NoMate), "checkmate nomate");
        assert_eq!(answer(CheckmateAnswer::Timeout), "checkmate timeout");
        assert_eq!(
            answer(CheckmateAnswer::NotImplemented),
            "checkmate notimplemented"
        );
    }

    #[test]
    fn info_puts_pv_then_string_last() {
        let info = Response::Info(vec![
            InfoField::String("book hit".into()),
            InfoField::Pv(vec![mv("7g7f"), mv("3c3d")]),
            InfoField::Depth(12),
            InfoField::Score(Score {
                value: ScoreValue::Cp(-35),
                bound: Some(Bound::Upper),
            }),
            InfoField::Nodes(123_456),
        ]);
        assert_eq!(
            info.to_string(),
            "info depth 12 score cp -35 upperbound nodes 123456 pv 7g7f 3c3d string book hit"
        );
    }

    #[test]
    fn mate_scores() {
        let score = |value| Score { value, bound: None }.to_string();
        assert_eq!(score(ScoreValue::Mate(5)), "mate 5");
        assert_eq!(score(ScoreValue::Mate(-4)), "mate -4");
        assert_eq!(score(ScoreValue::MatePlus), "mate +");
        assert_eq!(score(ScoreValue::MateMinus), "mate -");
        assert_eq!(score(ScoreValue::Checkmated), "mate -0");
        let lower = Score {
            value: ScoreValue::Cp(80),
            bound: Some(Bound::Lower),
        };
        assert_eq!(lower.to_string(), "cp 80 lowerbound");
    }

    #[test]
    fn info_string_is_cleaned_to_one_ascii_line() {
        let line = Response::info_string("bad sfen:\r\n「9/9」").to_string();
        assert_eq!(line, "info string bad sfen:  ?9/9?");
        assert_eq!(Response::info_string("").to_string(), "info string");
        assert_eq!(Response::Info(vec![]).to_string(), "info");
    }
}
