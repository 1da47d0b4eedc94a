//! Reading GUI commands. GUIs differ in small ways (stray whitespace, `\r\n`, extra
//! tokens in `go`), so the grammar forgives noise, but it refuses anything that
//! would change what the engine is asked to do: a bad number, a bad move.

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

use self::lex::{
    Res, checked_move, committed, count, is_separator, keyword, millis, noise, one_of_words,
    refuse, sep, word,
};
use super::command::{ClockTimes, Command, GameResult, GoParams, MateLimit, PositionStart};

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

/// Where a `btime`-like number is stored.
type ClockSlot = fn(&mut ClockTimes) -> &mut Option<u64>;

/// A clock field of `go` or `ponderhit`.
fn clock_field(input: &str) -> Res<'_, (ClockSlot, u64)> {
    fn slot<'a>(
        key: &'static str,
        slot: ClockSlot,
    ) -> impl Parser<&'a str, Output = (ClockSlot, u64), Error = lex::Reject<'a>> {
        map(keyed(key, millis), move |ms| (slot, ms))
    }
    alt((
        slot("btime", |clock| &mut clock.btime),
        slot("wtime", |clock| &mut clock.wtime),
        slot("byoyomi", |clock| &mut clock.byoyomi),
        slot("binc", |clock| &mut clock.binc),
        slot("winc", |clock| &mut clock.winc),
    ))
    .parse(input)
}

/// `key <number>`, the number required once the key is seen.
fn keyed<'a, O>(
    key: &'static str,
    number: impl Parser<&'a str, Output = O, Error = lex::Reject<'a>>,
) -> impl Parser<&'a str, Output = O, Error = lex::Reject<'a>> {
    let number = committed(preceded(sep, number), move |got| {
        format!("`{key}` needs a number, got {got}")
    });
    preceded(keyword(key), number)
}

/// One `go` parameter, read in any order.
#[derive(Clone)]
enum GoParam {
    Ponder,
    Infinite,
    Clock(ClockSlot, u64),
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
    Mate(MateLimit),
    Perft(u32),
    SearchMoves(Vec<String>),
    Noise,
}

impl GoParam {
    fn apply(self, mut go: GoParams) -> GoParams {
        match self {
            GoParam::Ponder => go.ponder = true,
            GoParam::Infinite => go.infinite = true,
            GoParam::Clock(slot, ms) => *slot(&mut go.clock) = Some(ms),
            GoParam::MoveTime(ms) => go.movetime = Some(ms),
            GoParam::Depth(depth) => go.depth = Some(depth),
            GoParam::Nodes(nodes) => go.nodes = Some(nodes),
            GoParam::Mate(limit) => go.mate = Some(limit),
            GoParam::Perft(depth) => go.perft = Some(depth),
            GoParam::SearchMoves(moves) => go.searchmoves = moves,
            GoParam::Noise => {}
        }
        go
    }
}

const GO_KEYWORDS: [&str; 13] = [
    "ponder",
    "infinite",
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "perft",
    "searchmoves",
];

fn go(input: &str) -> Res<'_, Command> {
    let params = fold_many0(preceded(sep, go_param), GoParams::default, |go, param| {
        param.apply(go)
    });
    map(preceded(keyword("go"), params), Command::Go).parse(input)
}

fn go_param(input: &str) -> Res<'_, GoParam> {
    alt((
        value(GoParam::Ponder, keyword("ponder")),
        value(GoParam::Infinite, keyword("infinite")),
        map(clock_field, |(slot, ms)| GoParam::Clock(slot, ms)),
        map(keyed("movetime", millis), GoParam::MoveTime),
        map(keyed("depth", count), GoParam::Depth),
        map(keyed("nodes", count), GoParam::Nodes),
        map(mate, GoParam::Mate),
        map(keyed("perft", count), GoParam::Perft),
        map(searchmoves, GoParam::SearchMoves),
        value(GoParam::Noise, noise),
    ))
    .parse(input)
}

/// `mate <ms>` or `mate infinite`; a bare `mate` has no limit to search under.
fn mate(input: &str) -> Res<'_, MateLimit> {
    let limit = alt((
        value(MateLimit::Infinite, keyword("infinite")),
        map(millis, MateLimit::Millis),
    ));
    let limit = committed(preceded(sep, limit), |got| {
        format!("`go mate` needs milliseconds or `infinite`, got {got}")
    });
    preceded(keyword("mate"), limit).parse(input)
}

/// Moves up to the next `go` keyword; anything else in the list refuses the line,
/// since searching a different set of moves would answer a different question.
fn searchmoves(input: &str) -> Res<'_, Vec<String>> {
    let go_keyword = verify(word, |word: &str| GO_KEYWORDS.contains(&word));
    let moves = many0(preceded(sep, preceded(not(go_keyword), checked_move)));
    preceded(keyword("searchmoves"), moves).parse(input)
}

fn ponderhit(input: &str) -> Res<'_, Command> {
    let part = alt((map(clock_field, Some), value(None, noise)));
    let clock = fold_many0(
        preceded(sep, part),
        ClockTimes::default,
        |mut clock, part| {
            if let Some((slot, ms)) = part {
                *slot(&mut clock) = Some(ms);
            }
            clock
        },
    );
    map(preceded(keyword("ponderhit"), clock), |clock| {
        Command::PonderHit((!clock.is_empty()).then_some(clock))
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

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    fn go(line: &str) -> GoParams {
        match parse_one(line) {
            Command::Go(params) => params,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    fn reason(line: &str) -> String {
        match parse_one(line) {
            Command::Unknown { reason, .. } => reason,
            other => panic!("{line:?} read as {other:?}"),
        }
    }

    fn clock(btime: u64, wtime: u64, byoyomi: u64) -> ClockTimes {
        ClockTimes {
            btime: Some(btime),
            wtime: Some(wtime),
            byoyomi: Some(byoyomi),
            ..ClockTimes::default()
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
    fn go_with_clocks() {
        assert_eq!(
            go("go btime 0 wtime 0 byoyomi 1000").clock,
            clock(0, 0, 1000)
        );
        assert_eq!(
            go("go byoyomi 1000").clock,
            ClockTimes {
                byoyomi: Some(1000),
                ..ClockTimes::default()
            }
        );
        let fischer = go("go btime 300000 wtime 290000 binc 10000 winc 10000").clock;
        assert_eq!(
            (fischer.binc, fischer.winc, fischer.byoyomi),
            (Some(10000), Some(10000), None)
        );
        let ponder = go("go ponder btime 1000 wtime 2000 byoyomi 3000");
        assert_eq!(
            ponder,
            GoParams {
                ponder: true,
                clock: clock(1000, 2000, 3000),
                ..GoParams::default()
            }
        );
        assert_eq!(go("go wtime 2000 byoyomi 3000 ponder btime 1000"), ponder);
    }

    #[test]
    fn go_limits() {
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(
            go("go infinite"),
            GoParams {
                infinite: true,
                ..GoParams::default()
            }
        );
        assert_eq!(go("go movetime 500").movetime, Some(500));
        assert_eq!(go("go depth 10").depth, Some(10));
        assert_eq!(go("go nodes 1000000").nodes, Some(1_000_000));
        assert_eq!(go("go perft 3").perft, Some(3));
        assert_eq!(go("go mate infinite").mate, Some(MateLimit::Infinite));
        assert_eq!(go("go mate 5000").mate, Some(MateLimit::Millis(5000)));
    }

    #[test]
    fn go_searchmoves() {
        let analysis = go("go infinite searchmoves 7g7f 2g2f");
        assert_eq!(
            analysis,
            GoParams {
                infinite: true,
                searchmoves: strings(&["7g7f", "2g2f"]),
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go searchmoves 7g7f P*5e depth 3").searchmoves,
            strings(&["7g7f", "P*5e"])
        );
        assert_eq!(go("go searchmoves 7g7f depth 3").depth, Some(3));
        assert_eq!(go("go searchmoves").searchmoves, Vec::<String>::new());
        assert_eq!(reason("go searchmoves 7g7f 2g2"), "bad move `2g2`");
    }

    #[test]
    fn go_skips_unknown_words_with_their_numbers() {
        assert_eq!(
            go("go byoyomi 1000 rtime 5 wtime 20"),
            GoParams {
                clock: ClockTimes {
                    byoyomi: Some(1000),
                    wtime: Some(20),
                    ..ClockTimes::default()
                },
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go fast depth 4"),
            GoParams {
                depth: Some(4),
                ..GoParams::default()
            }
        );
        assert_eq!(go("go 42 -1"), GoParams::default());
    }

    #[test]
    fn go_clamps_negative_times() {
        assert_eq!(
            go("go btime -5 wtime 100 byoyomi 1000").clock,
            clock(0, 100, 1000)
        );
        assert_eq!(go("go movetime -1").movetime, Some(0));
    }

    #[test]
    fn go_refuses_numbers_it_cannot_read() {
        assert_eq!(
            reason("go btime"),
            "`btime` needs a number, got end of line"
        );
        assert_eq!(
            reason("go btime fast"),
            "`btime` needs a number, got `fast`"
        );
        assert_eq!(reason("go btime 10s"), "`btime` needs a number, got `10s`");
        assert_eq!(
            reason("go byoyomi 99999999999999999999999"),
            "number `99999999999999999999999` is out of range"
        );
        assert_eq!(
            reason("go btime -99999999999999999999999"),
            "number `99999999999999999999999` is out of range"
        );
        assert_eq!(reason("go depth -3"), "`depth` needs a number, got `-3`");
        assert_eq!(
            reason("go depth 4294967296"),
            "number `4294967296` is out of range"
        );
        assert_eq!(
            reason("go mate"),
            "`go mate` needs milliseconds or `infinite`, got end of line"
        );
        assert_eq!(
            reason("go mate btime 5"),
            "`go mate` needs milliseconds or `infinite`, got `btime`"
        );
        assert_eq!(reason("go perft x"), "`perft` needs a number, got `x`");
    }

    #[test]
    fn ponderhit_with_and_without_times() {
        assert_eq!(parse_one("ponderhit"), Command::PonderHit(None));
        assert_eq!(
            parse_one("ponderhit btime 1000 wtime 2000 byoyomi 3000"),
            Command::PonderHit(Some(clock(1000, 2000, 3000)))
        );
        let fischer = ClockTimes {
            binc: Some(5),
            winc: Some(6),
            ..ClockTimes::default()
        };
        assert_eq!(
            parse_one("ponderhit binc 5 foo 3 winc 6"),
            Command::PonderHit(Some(fischer))
        );
        assert_eq!(
            reason("ponderhit btime soon"),
            "`btime` needs a number, got `soon`"
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
