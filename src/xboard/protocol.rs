//! The lines XBoard and WinBoard send an engine under CECP protocol 2, read into a typed
//! [`Command`]. The reader never panics: a line it cannot read becomes a [`CommandError`]
//! whose reason goes back to the GUI as `Error (reason): line`, which is how CECP asks an
//! engine to refuse a command.

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_till, take_while1},
    character::complete::{char, digit1, space0, space1},
    combinator::{all_consuming, map, map_res, opt, recognize, rest},
    sequence::{preceded, terminated},
};

/// A game result as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`: the side XBoard calls White won; in shogi variants that is the first mover, sente.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: the game stopped without a result (aborted, adjourned).
    Unknown,
}

impl GameResult {
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }
}

/// One GUI-to-engine line of CECP protocol 2.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Xboard,
    Protover(u32),
    Accepted(String),
    Rejected(String),
    New,
    Variant(String),
    Random,
    Force,
    Go,
    PlayOther,
    /// Protocol 1 colour commands, still sent to engines that do not set `colors=0`.
    White,
    Black,
    /// `level MPS BASE INC`: moves per session (0 = the whole game), base time and increment.
    Level {
        moves_per_session: u32,
        base_ms: u64,
        increment_ms: u64,
    },
    /// `st SEC`: a fixed time per move.
    SearchTime {
        ms: u64,
    },
    /// `sd DEPTH`.
    Depth(u32),
    /// `nps N`: play as if searching N nodes per second of clock time.
    Nps(u64),
    /// `time N`: the engine's own clock, in centiseconds (negative once the flag fell).
    Time(i64),
    /// `otim N`: the opponent's clock, in centiseconds.
    OpponentTime(i64),
    /// `usermove MOVE`, in XBoard's move text.
    UserMove(String),
    /// A bare move, as XBoard sends it to engines that did not ask for `usermove=1`.
    Move(String),
    /// `?`: move now.
    MoveNow,
    Ping(i64),
    Draw,
    Result {
        result: GameResult,
        comment: String,
    },
    SetBoard(String),
    Edit,
    Hint,
    Book,
    Undo,
    Remove,
    Hard,
    Easy,
    Post,
    NoPost,
    Analyze,
    /// `exit`: leave analyze mode.
    Exit,
    /// `.`: send a status line of the running analysis.
    AnalyzeStatus,
    Name(String),
    Rating {
        own: i32,
        opponent: i32,
    },
    Ics(String),
    Computer,
    Pause,
    Resume,
    Memory(u64),
    Cores(u32),
    EgtPath {
        kind: String,
        path: String,
    },
    /// `option NAME=VALUE`; a button option arrives without `=VALUE`.
    Option {
        name: String,
        value: Option<String>,
    },
    /// `exclude MOVE` / `exclude all` (None) during analysis.
    Exclude(Option<String>),
    Include(Option<String>),
    SetScore {
        score: i32,
        depth: u32,
    },
    /// Highlight protocol: the user picked a piece up from, dropped it on, or hovers over a square.
    Lift(String),
    Put(String),
    Hover(String),
    Quit,
}

/// Why a line was refused, and the line itself, for `Error (reason): line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError {
    pub reason: String,
    pub line: String,
}

type Res<'a, T> = IResult<&'a str, T>;

/// Reads one line (without its newline). Trailing `\r` and surrounding blanks are ignored, as
/// WinBoard on Windows ends its lines with CR LF.
pub fn parse_command(line: &str) -> Result<Command, CommandError> {
    let text = line.trim_matches(|c: char| c == '\r' || c == '\n' || c == ' ' || c == '\t');
    let fail = |reason: &str| CommandError {
        reason: reason.to_string(),
        line: text.to_string(),
    };
    if text.is_empty() {
        return Err(fail("empty line"));
    }
    let (word, args) = match text.find([' ', '\t']) {
        Some(at) => (&text[..at], text[at..].trim_start()),
        None => (text, ""),
    };
    let no_args = |command: Command| {
        if args.is_empty() {
            Ok(command)
        } else {
            Err(fail("too many parameters"))
        }
    };
    let with = |parser: fn(&str) -> Res<'_, Command>, what: &str| match all_consuming(parser)
        .parse(args)
    {
        Ok((_, command)) => Ok(command),
        Err(_) => Err(fail(what)),
    };
    // A command whose argument is one word or one square.
    let text_arg = |reader: fn(&str) -> Res<'_, &str>, make: fn(String) -> Command, what: &str| {
        match all_consuming(reader).parse(args) {
            Ok((_, arg)) => Ok(make(arg.to_string())),
            Err(_) => Err(fail(what)),
        }
    };
    match word {
        "xboard" => no_args(Command::Xboard),
        "protover" => with(|i| map(unsigned, Command::Protover).parse(i), "bad version"),
        "accepted" => text_arg(one_word, Command::Accepted, "bad feature"),
        "rejected" => text_arg(one_word, Command::Rejected, "bad feature"),
        "new" => no_args(Command::New),
        "variant" => text_arg(one_word, Command::Variant, "bad variant"),
        "random" => no_args(Command::Random),
        "force" => no_args(Command::Force),
        "go" => no_args(Command::Go),
        "playother" => no_args(Command::PlayOther),
        "white" => no_args(Command::White),
        "black" => no_args(Command::Black),
        "level" => with(level, "bad time control"),
        "st" => with(
            |i| map(seconds_ms, |ms| Command::SearchTime { ms }).parse(i),
            "bad time",
        ),
        "sd" => with(|i| map(unsigned, Command::Depth).parse(i), "bad depth"),
        "nps" => with(|i| map(unsigned, Command::Nps).parse(i), "bad node rate"),
        "time" => with(|i| map(signed, Command::Time).parse(i), "bad time"),
        "otim" => with(|i| map(signed, Command::OpponentTime).parse(i), "bad time"),
        "usermove" => text_arg(one_word, Command::UserMove, "bad move"),
        "?" => no_args(Command::MoveNow),
        "ping" => with(|i| map(signed, Command::Ping).parse(i), "bad ping"),
        "draw" => no_args(Command::Draw),
        "result" => with(result, "bad result"),
        "setboard" if !args.is_empty() => Ok(Command::SetBoard(args.to_string())),
        "setboard" => Err(fail("missing position")),
        "edit" => no_args(Command::Edit),
        "hint" => no_args(Command::Hint),
        "bk" => no_args(Command::Book),
        "undo" => no_args(Command::Undo),
        "remove" => no_args(Command::Remove),
        "hard" => no_args(Command::Hard),
        "easy" => no_args(Command::Easy),
        "post" => no_args(Command::Post),
        "nopost" => no_args(Command::NoPost),
        "analyze" => no_args(Command::Analyze),
        "exit" => no_args(Command::Exit),
        "." => no_args(Command::AnalyzeStatus),
        "name" => Ok(Command::Name(args.to_string())),
        "rating" => with(rating, "bad ratings"),
        "ics" => Ok(Command::Ics(args.to_string())),
        "computer" => no_args(Command::Computer),
        "pause" => no_args(Command::Pause),
        "resume" => no_args(Command::Resume),
        "memory" => with(
            |i| map(unsigned, Command::Memory).parse(i),
            "bad memory size",
        ),
        "cores" => with(|i| map(unsigned, Command::Cores).parse(i), "bad core count"),
        "egtpath" => with(egtpath, "bad egtpath"),
        "option" => with(option, "bad option"),
        "exclude" => with(|i| map(all_or_move, Command::Exclude).parse(i), "bad move"),
        "include" => with(|i| map(all_or_move, Command::Include).parse(i), "bad move"),
        "setscore" => with(setscore, "bad score"),
        "lift" => text_arg(square, Command::Lift, "bad square"),
        "put" => text_arg(square, Command::Put, "bad square"),
        "hover" => text_arg(square, Command::Hover, "bad square"),
        "quit" => no_args(Command::Quit),
        _ if args.is_empty() && looks_like_move(word) => Ok(Command::Move(word.to_string())),
        _ => Err(fail("unknown command")),
    }
}

/// Coordinate move text XBoard sends without `usermove`: a square (`h8`, `h10`), a drop
/// (`P@e5`) or the null move `@@@@`, optionally more legs after commas. Anything else is an
/// unknown command, so that a misspelt command is not taken for a move.
fn looks_like_move(word: &str) -> bool {
    let bytes = word.as_bytes();
    let square_start =
        |b: &[u8]| b.len() >= 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit();
    word == "@@@@"
        || square_start(bytes)
        || (bytes.len() >= 4 && bytes[1] == b'@' && bytes[0].is_ascii_uppercase())
}

fn unsigned<T: std::str::FromStr>(input: &str) -> Res<'_, T> {
    map_res(digit1, str::parse).parse(input)
}

fn signed(input: &str) -> Res<'_, i64> {
    map_res(recognize((opt(char('-')), digit1)), str::parse).parse(input)
}

fn one_word(input: &str) -> Res<'_, &str> {
    take_while1(|c: char| !c.is_whitespace()).parse(input)
}

fn square(input: &str) -> Res<'_, &str> {
    recognize((
        take_while1(|c: char| c.is_ascii_lowercase()),
        take_while1(|c: char| c.is_ascii_digit()),
    ))
    .parse(input)
}

/// Seconds as `12` or `0.5`, in milliseconds.
fn seconds_ms(input: &str) -> Res<'_, u64> {
    map_res(
        recognize((digit1, opt((char('.'), digit1)))),
        |text: &str| -> Result<u64, String> {
            let seconds: f64 = text.parse().map_err(|_| text.to_string())?;
            let ms = (seconds * 1000.0).round();
            if ms < u64::MAX as f64 {
                Ok(ms as u64)
            } else {
                Err(text.to_string())
            }
        },
    )
    .parse(input)
}

/// The base time of `level`: whole minutes (`5`), minutes and seconds (`2:30`), or, as
/// some GUIs write it, fractional minutes (`0.5`).
fn base_ms(input: &str) -> Res<'_, u64> {
    alt((
        map_res(
            (unsigned::<u64>, preceded(char(':'), unsigned::<u64>)),
            |(minutes, seconds)| {
                minutes
                    .checked_mul(60_000)
                    .and_then(|ms| ms.checked_add(seconds.checked_mul(1000)?))
                    .ok_or("time too long")
            },
        ),
        map_res(seconds_ms, |ms| ms.checked_mul(60).ok_or("time too long")),
    ))
    .parse(input)
}

fn level(input: &str) -> Res<'_, Command> {
    map(
        (
            terminated(unsigned::<u32>, space1),
            terminated(base_ms, space1),
            seconds_ms,
        ),
        |(moves_per_session, base_ms, increment_ms)| Command::Level {
            moves_per_session,
            base_ms,
            increment_ms,
        },
    )
    .parse(input)
}

fn result(input: &str) -> Res<'_, Command> {
    let code = alt((
        map(tag("1/2-1/2"), |_| GameResult::Draw),
        map(tag("1-0"), |_| GameResult::WhiteWins),
        map(tag("0-1"), |_| GameResult::BlackWins),
        map(tag("*"), |_| GameResult::Unknown),
    ));
    let comment = preceded(
        space0,
        opt(preceded(
            char('{'),
            terminated(take_till(|c| c == '}'), opt(char('}'))),
        )),
    );
    map((code, comment), |(result, comment)| Command::Result {
        result,
        comment: comment.unwrap_or("").to_string(),
    })
    .parse(input)
}

fn rating(input: &str) -> Res<'_, Command> {
    let number = || map_res(recognize((opt(char('-')), digit1)), str::parse::<i32>);
    map(
        (terminated(number(), space1), number()),
        |(own, opponent)| Command::Rating { own, opponent },
    )
    .parse(input)
}

fn egtpath(input: &str) -> Res<'_, Command> {
    map(
        (terminated(one_word, space1), rest),
        |(kind, path): (&str, &str)| Command::EgtPath {
            kind: kind.to_string(),
            path: path.to_string(),
        },
    )
    .parse(input)
}

/// `option NAME=VALUE`: option names hold blanks ("Full analysis PV"), values may too.
fn option(input: &str) -> Res<'_, Command> {
    map(
        (take_while1(|c| c != '='), opt(preceded(char('='), rest))),
        |(name, value): (&str, Option<&str>)| Command::Option {
            name: name.trim_end().to_string(),
            value: value.map(str::to_string),
        },
    )
    .parse(input)
}

fn all_or_move(input: &str) -> Res<'_, Option<String>> {
    alt((
        map(tag("all"), |_| None),
        map(one_word, |w| Some(w.to_string())),
    ))
    .parse(input)
}

fn setscore(input: &str) -> Res<'_, Command> {
    let score = map_res(recognize((opt(char('-')), digit1)), str::parse::<i32>);
    map(
        (terminated(score, space1), unsigned::<u32>),
        |(score, depth)| Command::SetScore { score, depth },
    )
    .parse(input)
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
