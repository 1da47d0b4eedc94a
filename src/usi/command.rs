//! What a GUI sends to the engine. `Display` writes the canonical USI line, so a
//! command read with [`parse_one`](super::parse_one) and written again means the same.

use std::fmt::{self, Write};

use super::ascii::AsciiLine;

/// One line from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Usi,
    /// `debug` alone switches debugging on.
    Debug(bool),
    IsReady,
    /// `value` is `None` for buttons; otherwise the rest of the line, trimmed.
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register {
        later: bool,
        name: Option<String>,
        code: Option<String>,
    },
    UsiNewGame,
    /// Moves are checked for syntax only: legality needs the position.
    Position {
        start: PositionStart,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    /// Early ponder (YaneuraOu, used by ShogiHome) sends the clock with `ponderhit`
    /// because the `go ponder` before it carried none.
    PonderHit(Option<ClockTimes>),
    /// Bare `gameover` happens; the engine must stop all the same.
    GameOver(Option<GameResult>),
    Quit,
    /// `eval`: print the static evaluation (engine extension).
    Eval,
    /// `d`: print the board (engine extension).
    Display,
    /// A line the engine cannot act on; `reason` is meant for an `info string`.
    Unknown {
        line: String,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionStart {
    StartPos,
    /// Board, side to move, hands and optionally the ply, joined by single spaces.
    Sfen(String),
}

/// Everything `go` may carry. Times are milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    pub ponder: bool,
    pub infinite: bool,
    pub clock: ClockTimes,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// `go mate`: a tsume search that must answer with `checkmate`, not `bestmove`.
    pub mate: Option<MateLimit>,
    pub perft: Option<u32>,
    /// Empty means every legal move.
    pub searchmoves: Vec<String>,
}

/// The game clock as the GUI reports it, in milliseconds. A GUI sends either
/// `byoyomi` or the increments, never both, but nothing here depends on that.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClockTimes {
    pub btime: Option<u64>,
    pub wtime: Option<u64>,
    pub byoyomi: Option<u64>,
    pub binc: Option<u64>,
    pub winc: Option<u64>,
}

impl ClockTimes {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MateLimit {
    Millis(u64),
    Infinite,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win,
    Lose,
    Draw,
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out = &mut AsciiLine(f);
        match self {
            Command::Usi => out.write_str("usi"),
            Command::Debug(on) => write!(out, "debug {}", if *on { "on" } else { "off" }),
            Command::IsReady => out.write_str("isready"),
            Command::SetOption { name, value } => {
                write!(out, "setoption name {name}")?;
                match value {
                    Some(value) => keyed_text(out, " value", value),
                    None => Ok(()),
                }
            }
            Command::Register { later, name, code } => {
                out.write_str("register")?;
                if *later {
                    out.write_str(" later")?;
                }
                if let Some(name) = name {
                    keyed_text(out, " name", name)?;
                }
                match code {
                    Some(code) => keyed_text(out, " code", code),
                    None => Ok(()),
                }
            }
            Command::UsiNewGame => out.write_str("usinewgame"),
            Command::Position { start, moves } => {
                write!(out, "position {start}")?;
                if !moves.is_empty() {
                    out.write_str(" moves")?;
                    words(out, moves)?;
                }
                Ok(())
            }
            Command::Go(go) => {
                out.write_str("go")?;
                write_go(out, go)
            }
            Command::Stop => out.write_str("stop"),
            Command::PonderHit(clock) => {
                out.write_str("ponderhit")?;
                clock
                    .as_ref()
                    .map_or(Ok(()), |clock| write_clock(out, clock))
            }
            Command::GameOver(None) => out.write_str("gameover"),
            Command::GameOver(Some(result)) => write!(out, "gameover {result}"),
            Command::Quit => out.write_str("quit"),
            Command::Eval => out.write_str("eval"),
            Command::Display => out.write_str("d"),
            Command::Unknown { line, .. } => out.write_str(line),
        }
    }
}

impl fmt::Display for PositionStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionStart::StartPos => f.write_str("startpos"),
            PositionStart::Sfen(sfen) => write!(AsciiLine(f), "sfen {sfen}"),
        }
    }
}

impl fmt::Display for MateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MateLimit::Millis(ms) => write!(f, "{ms}"),
            MateLimit::Infinite => f.write_str("infinite"),
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::Win => "win",
            GameResult::Lose => "lose",
            GameResult::Draw => "draw",
        })
    }
}

/// `key text`, leaving out the space when the text is empty so lines never end in one.
pub(super) fn keyed_text(out: &mut impl Write, key: &str, text: &str) -> fmt::Result {
    out.write_str(key)?;
    if text.is_empty() {
        Ok(())
    } else {
        write!(out, " {text}")
    }
}

/// Each word preceded by a space.
pub(super) fn words(out: &mut impl Write, words: &[String]) -> fmt::Result {
    words.iter().try_for_each(|word| write!(out, " {word}"))
}

fn number(out: &mut impl Write, key: &str, n: Option<impl fmt::Display>) -> fmt::Result {
    match n {
        Some(n) => write!(out, " {key} {n}"),
        None => Ok(()),
    }
}

fn write_clock(out: &mut impl Write, clock: &ClockTimes) -> fmt::Result {
    number(out, "btime", clock.btime)?;
    number(out, "wtime", clock.wtime)?;
    number(out, "byoyomi", clock.byoyomi)?;
    number(out, "binc", clock.binc)?;
    number(out, "winc", clock.winc)
}

/// The order GUIs use (`go ponder btime .. wtime .. byoyomi ..`), with `searchmoves`
/// last because its list runs to the next keyword.
fn write_go(out: &mut impl Write, go: &GoParams) -> fmt::Result {
    if go.ponder {
        out.write_str(" ponder")?;
    }
    write_clock(out, &go.clock)?;
    number(out, "movetime", go.movetime)?;
    number(out, "depth", go.depth)?;
    number(out, "nodes", go.nodes)?;
    number(out, "mate", go.mate)?;
    number(out, "perft", go.perft)?;
    if go.infinite {
        out.write_str(" infinite")?;
    }
    if !go.searchmoves.is_empty() {
        out.write_str(" searchmoves")?;
        words(out, &go.searchmoves)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(params: GoParams) -> String {
        Command::Go(params).to_string()
    }

    #[test]
    fn simple_commands_are_single_words() {
        assert_eq!(Command::Usi.to_string(), "usi");
        assert_eq!(Command::IsReady.to_string(), "isready");
        assert_eq!(Command::UsiNewGame.to_string(), "usinewgame");
        assert_eq!(Command::Stop.to_string(), "stop");
        assert_eq!(Command::Quit.to_string(), "quit");
        assert_eq!(Command::Eval.to_string(), "eval");
        assert_eq!(Command::Display.to_string(), "d");
        assert_eq!(Command::Debug(false).to_string(), "debug off");
        assert_eq!(Command::PonderHit(None).to_string(), "ponderhit");
        assert_eq!(Command::GameOver(None).to_string(), "gameover");
        assert_eq!(
            Command::GameOver(Some(GameResult::Lose)).to_string(),
            "gameover lose"
        );
    }

    #[test]
    fn setoption_writes_value_only_when_present() {
        let button = Command::SetOption {
            name: "ClearHash".into(),
            value: None,
        };
        assert_eq!(button.to_string(), "setoption name ClearHash");
        let book = Command::SetOption {
            name: "BookFile".into(),
            value: Some("my book.db".into()),
        };
        assert_eq!(book.to_string(), "setoption name BookFile value my book.db");
        let empty = Command::SetOption {
            name: "BookFile".into(),
            value: Some(String::new()),
        };
        assert_eq!(empty.to_string(), "setoption name BookFile value");
    }

    #[test]
    fn position_leaves_out_an_empty_move_list() {
        let start = Command::Position {
            start: PositionStart::StartPos,
            moves: vec![],
        };
        assert_eq!(start.to_string(), "position startpos");
        let sfen = Command::Position {
            start: PositionStart::Sfen("9/9/9/9/4k4/9/9/9/4K4 b 2P 1".into()),
            moves: vec!["P*5e".into(), "5a4b".into()],
        };
        assert_eq!(
            sfen.to_string(),
            "position sfen 9/9/9/9/4k4/9/9/9/4K4 b 2P 1 moves P*5e 5a4b"
        );
    }

    #[test]
    fn go_writes_in_gui_order() {
        let clock = ClockTimes {
            btime: Some(1000),
            wtime: Some(2000),
            byoyomi: Some(3000),
            ..ClockTimes::default()
        };
        assert_eq!(
            go(GoParams {
                ponder: true,
                clock,
                ..GoParams::default()
            }),
            "go ponder btime 1000 wtime 2000 byoyomi 3000"
        );
        assert_eq!(go(GoParams::default()), "go");
        let analysis = GoParams {
            infinite: true,
            searchmoves: vec!["7g7f".into(), "2g2f".into()],
            mate: Some(MateLimit::Infinite),
            ..GoParams::default()
        };
        assert_eq!(
            go(analysis),
            "go mate infinite infinite searchmoves 7g7f 2g2f"
        );
    }

    #[test]
    fn unknown_lines_are_written_back_cleaned() {
        let odd = Command::Unknown {
            line: "こんにちは\nquit".into(),
            reason: "x".into(),
        };
        assert_eq!(odd.to_string(), "????? quit");
    }
}
