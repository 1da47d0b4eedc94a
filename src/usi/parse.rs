//! Reading GUI commands. GUIs differ in small ways (stray whitespace, `\r\n`, extra
//! tokens in `go`), so the grammar forgives noise, but it refuses anything that
//! would change what the engine is asked to do: a bad number, a bad move.

mod go;
mod lex;
mod response;

pub use response::parse_response;

use nom::{
    Parser,
    branch::alt,
    combinator::{all_consuming, map, not, opt, rest, value, verify},
    multi::{fold_many0, many0},
    sequence::{preceded, terminated},
};

use self::go::{go, ponderhit};
use self::lex::{
    Res, checked_move, committed, count, is_separator, keyword, one_of_words, refuse, sep, word,
};
use super::command::{Command, GameResult, PositionStart};

/// Reads one line from the GUI. Never panics: whatever cannot be understood comes
/// back as [`Command::Unknown`] with a reason fit for an `info string`.
pub fn parse_one(line: &str) -> Command {
    let line = line
        .trim_start_matches('\u{feff}')
        .trim_matches(is_separator);
    if line.is_empty() {
        return unknown(line, "empty line".to_string());
    }
    match all_consuming(command).parse(line) {
        Ok((_, command)) => command,
        Err(nom::Err::Error(reject) | nom::Err::Failure(reject)) => {
            unknown(line, reject.into_reason())
        }
        Err(nom::Err::Incomplete(_)) => unknown(line, "incomplete line".to_string()),
    }
}

fn unknown(line: &str, reason: String) -> Command {
    Command::Unknown {
        line: line.to_string(),
        reason,
    }
}

fn command(input: &str) -> Res<'_, Command> {
    alt((
        bare("usi", Command::Usi),
        debug,
        bare("isready", Command::IsReady),
        setoption,
        register,
        bare("usinewgame", Command::UsiNewGame),
        position,
        go,
        bare("stop", Command::Stop),
        ponderhit,
        gameover,
        bare("quit", Command::Quit),
        bare("eval", Command::Eval),
        bare("d", Command::Display),
        unknown_command,
    ))
    .parse(input)
}

/// A command without arguments. Anything after it is ignored: refusing `stop now`
/// would leave a search running that the GUI wants stopped.
fn bare<'a>(
    name: &'static str,
    command: Command,
) -> impl Parser<&'a str, Output = Command, Error = lex::Reject<'a>> {
    value(command, terminated(keyword(name), rest))
}

fn unknown_command(input: &str) -> Res<'_, Command> {
    Err(refuse(format!("unknown command {}", lex::next_word(input))))
}

fn debug(input: &str) -> Res<'_, Command> {
    let switch = alt((value(true, keyword("on")), value(false, keyword("off"))));
    map(
        preceded(keyword("debug"), opt(preceded(sep, switch))),
        |on| Command::Debug(on.unwrap_or(true)),
    )
    .parse(input)
}

/// `setoption name <id> [value <text>]`: the name runs to the word `value` (USI allows
/// spaces in names, as in `Skill Level`), the value is the rest of the line, so that file
/// paths with spaces survive.
fn setoption(input: &str) -> Res<'_, Command> {
    let name = preceded((sep, keyword("name"), sep), (word, rest));
    let args = committed(name, |got| {
        format!("`setoption` needs `name <id>`, got {got}")
    });
    map(preceded(keyword("setoption"), args), |(first, more)| {
        let (rest_of_name, value) = split_at_value(more);
        Command::SetOption {
            name: format!("{first}{rest_of_name}")
                .trim_matches(is_separator)
                .to_string(),
            value,
        }
    })
    .parse(input)
}

/// Splits what follows an option name's first word at the word `value`: the rest of the
/// name (with its spaces) and the value, trimmed.
fn split_at_value(text: &str) -> (&str, Option<String>) {
    let mut at = 0;
    while let Some(start) = text[at..].find(|c: char| !is_separator(c)) {
        let start = at + start;
        let end = text[start..]
            .find(is_separator)
            .map_or(text.len(), |len| start + len);
        if &text[start..end] == "value" && start > 0 {
            let value = text[end..].trim_matches(is_separator).to_string();
            return (&text[..start], Some(value));
        }
        at = end;
    }
    (text, None)
}

/// `register later` or `register name <words> code <words>`.
fn register(input: &str) -> Res<'_, Command> {
    enum Part {
        Later,
        Name(String),
        Code(String),
    }
    let is_key = |word: &str| matches!(word, "later" | "name" | "code");
    let words = || {
        let word = verify(word, move |w: &str| !is_key(w));
        map(many0(preceded(sep, word)), |words| words.join(" "))
    };
    let part = alt((
        map(keyword("later"), |_| Part::Later),
        map(preceded(keyword("name"), words()), Part::Name),
        map(preceded(keyword("code"), words()), Part::Code),
    ));
    let parts = fold_many0(
        preceded(sep, part),
        || (false, None, None),
        |(later, name, code), part| match part {
            Part::Later => (true, name, code),
            Part::Name(words) => (later, Some(words), code),
            Part::Code(words) => (later, name, Some(words)),
        },
    );
    map(
        preceded(keyword("register"), parts),
        |(later, name, code)| Command::Register { later, name, code },
    )
    .parse(input)
}

fn position(input: &str) -> Res<'_, Command> {
    let start = alt((
        value(PositionStart::StartPos, keyword("startpos")),
        preceded(keyword("sfen"), sfen),
    ));
    let start = committed(preceded(sep, start), |got| {
        format!("`position` needs `startpos` or `sfen`, got {got}")
    });
    let moves = preceded((sep, keyword("moves")), many0(preceded(sep, checked_move)));
    map(
        preceded(keyword("position"), (start, opt(moves))),
        |(start, moves)| Command::Position {
            start,
            moves: moves.unwrap_or_default(),
        },
    )
    .parse(input)
}

/// Board, side and hands, then the ply if given. The fields are taken as they come:
/// the engine's SFEN reader knows what they mean and explains what is wrong.
fn sfen(input: &str) -> Res<'_, PositionStart> {
    let field = || preceded(sep, preceded(not(keyword("moves")), word));
    let fields = committed((field(), field(), field()), |got| {
        format!("`position sfen` needs board, side and hands, got {got}")
    });
    let ply = preceded(sep, count::<u64>);
    map((fields, opt(ply)), |((board, side, hands), ply)| {
        let sfen = format!("{board} {side} {hands}");
        PositionStart::Sfen(match ply {
            Some(ply) => format!("{sfen} {ply}"),
            None => sfen,
        })
    })
    .parse(input)
}

/// The game is over whatever follows, so an unknown result still stops the engine.
fn gameover(input: &str) -> Res<'_, Command> {
    let result = one_of_words([
        ("win", GameResult::Win),
        ("lose", GameResult::Lose),
        ("draw", GameResult::Draw),
    ]);
    map(
        preceded(
            keyword("gameover"),
            terminated(opt(preceded(sep, result)), rest),
        ),
        Command::GameOver,
    )
    .parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::command::GoParams;

    pub(super) fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    pub(super) fn go(line: &str) -> GoParams {
        match parse_one(line) {
            Command::Go(params) => params,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    pub(super) fn reason(line: &str) -> String {
        match parse_one(line) {
            Command::Unknown { reason, .. } => reason,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    #[test]
    fn handshake_and_simple_commands() {
        assert_eq!(parse_one("usi"), Command::Usi);
        assert_eq!(parse_one("isready"), Command::IsReady);
        assert_eq!(parse_one("usinewgame"), Command::UsiNewGame);
        assert_eq!(parse_one("stop"), Command::Stop);
        assert_eq!(parse_one("quit"), Command::Quit);
        assert_eq!(parse_one("eval"), Command::Eval);
        assert_eq!(parse_one("d"), Command::Display);
    }

    #[test]
    fn whitespace_is_forgiven() {
        assert_eq!(parse_one("  isready \r\n"), Command::IsReady);
        assert_eq!(parse_one("\u{feff}usi\r"), Command::Usi);
        assert_eq!(
            go("go\tbtime  100 \t wtime 200"),
            go("go btime 100 wtime 200")
        );
        assert_eq!(go("go\tbtime  100 \t wtime 200").clock.wtime, Some(200));
    }

    #[test]
    fn words_after_argumentless_commands_are_ignored() {
        assert_eq!(parse_one("stop now"), Command::Stop);
        assert_eq!(parse_one("quit 0"), Command::Quit);
    }

    #[test]
    fn debug_switch() {
        assert_eq!(parse_one("debug"), Command::Debug(true));
        assert_eq!(parse_one("debug on"), Command::Debug(true));
        assert_eq!(parse_one("debug off"), Command::Debug(false));
        assert_eq!(reason("debug maybe"), "unexpected `maybe`");
    }

    #[test]
    fn setoption_forms() {
        let set = |name: &str, value: Option<&str>| Command::SetOption {
            name: name.into(),
            value: value.map(String::from),
        };
        assert_eq!(
            parse_one("setoption name USI_Hash value 256"),
            set("USI_Hash", Some("256"))
        );
        assert_eq!(
            parse_one("setoption name ClearHash"),
            set("ClearHash", None)
        );
        assert_eq!(
            parse_one("setoption  name BookFile value  C:\\my books\\a.db  "),
            set("BookFile", Some("C:\\my books\\a.db"))
        );
        assert_eq!(
            parse_one("setoption name BookFile value"),
            set("BookFile", Some(""))
        );
        assert_eq!(
            parse_one("setoption name Comment value a value b"),
            set("Comment", Some("a value b"))
        );
        assert_eq!(
            reason("setoption"),
            "`setoption` needs `name <id>`, got end of line"
        );
        assert_eq!(
            reason("setoption USI_Hash 256"),
            "`setoption` needs `name <id>`, got `USI_Hash`"
        );
        assert_eq!(
            parse_one("setoption name Skill Level value 3"),
            set("Skill Level", Some("3"))
        );
        assert_eq!(
            parse_one("setoption name Clear  Hash "),
            set("Clear  Hash", None)
        );
        assert_eq!(
            parse_one("setoption name value value 3"),
            set("value", Some("3"))
        );
        assert_eq!(
            parse_one("setoption name Values value"),
            set("Values", Some(""))
        );
    }

    #[test]
    fn register_forms() {
        assert_eq!(
            parse_one("register later"),
            Command::Register {
                later: true,
                name: None,
                code: None
            }
        );
        assert_eq!(
            parse_one("register name Taro Yamada code 1234"),
            Command::Register {
                later: false,
                name: Some("Taro Yamada".into()),
                code: Some("1234".into())
            }
        );
        assert_eq!(reason("register soon"), "unexpected `soon`");
    }

    #[test]
    fn position_startpos() {
        let start = |moves: &[&str]| Command::Position {
            start: PositionStart::StartPos,
            moves: strings(moves),
        };
        assert_eq!(parse_one("position startpos"), start(&[]));
        assert_eq!(parse_one("position startpos moves"), start(&[]));
        assert_eq!(
            parse_one("position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e"),
            start(&["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"])
        );
    }

    #[test]
    fn position_sfen_with_and_without_ply() {
        let sfen = |sfen: &str, moves: &[&str]| Command::Position {
            start: PositionStart::Sfen(sfen.into()),
            moves: strings(moves),
        };
        let board = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL";
        assert_eq!(
            parse_one(&format!("position sfen {board} b - 1")),
            sfen(&format!("{board} b - 1"), &[])
        );
        assert_eq!(
            parse_one(&format!("position sfen {board} b -")),
            sfen(&format!("{board} b -"), &[])
        );
        assert_eq!(
            parse_one(&format!("position sfen {board}  w  RG4P2b2s3p  moves 7g7f")),
            sfen(&format!("{board} w RG4P2b2s3p"), &["7g7f"])
        );
        assert_eq!(
            parse_one(&format!("position sfen {board} b - 12 moves P*5e")),
            sfen(&format!("{board} b - 12"), &["P*5e"])
        );
    }

    #[test]
    fn malformed_positions() {
        assert_eq!(
            reason("position"),
            "`position` needs `startpos` or `sfen`, got end of line"
        );
        assert_eq!(
            reason("position start"),
            "`position` needs `startpos` or `sfen`, got `start`"
        );
        assert_eq!(
            reason("position sfen 9/9/9 b"),
            "`position sfen` needs board, side and hands, got end of line"
        );
        assert_eq!(
            reason("position sfen 9/9/9 b moves 7g7f"),
            "`position sfen` needs board, side and hands, got `moves`"
        );
        assert_eq!(reason("position sfen 9/9/9 b - x"), "unexpected `x`");
        assert_eq!(reason("position startpos 7g7f"), "unexpected `7g7f`");
        assert_eq!(
            reason("position startpos moves 7g7f 7z7f 3c3d"),
            "bad move `7z7f`"
        );
        assert_eq!(
            reason("position startpos moves 7g7f resign"),
            "bad move `resign`"
        );
    }

    #[test]
    fn gameover_with_and_without_result() {
        assert_eq!(
            parse_one("gameover win"),
            Command::GameOver(Some(GameResult::Win))
        );
        assert_eq!(
            parse_one("gameover lose"),
            Command::GameOver(Some(GameResult::Lose))
        );
        assert_eq!(
            parse_one("gameover draw"),
            Command::GameOver(Some(GameResult::Draw))
        );
        assert_eq!(parse_one("gameover"), Command::GameOver(None));
        assert_eq!(parse_one("gameover timeup"), Command::GameOver(None));
    }

    #[test]
    fn unknown_and_empty_lines() {
        assert_eq!(
            parse_one(""),
            Command::Unknown {
                line: String::new(),
                reason: "empty line".into()
            }
        );
        assert_eq!(reason(" \t\r\n"), "empty line");
        assert_eq!(
            parse_one(" hello  world "),
            Command::Unknown {
                line: "hello  world".into(),
                reason: "unknown command `hello`".into()
            }
        );
        assert_eq!(reason("USI"), "unknown command `USI`");
        assert_eq!(reason("usinewgam"), "unknown command `usinewgam`");
        assert_eq!(reason("gox"), "unknown command `gox`");
    }
}
