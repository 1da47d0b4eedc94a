//! Properties of the USI layer: what we write reads back the same, what we read never
//! panics, and every line we write is one line of ASCII.

use kirin::usi::{
    BestMove, Bound, CheckmateAnswer, ClockTimes, Command, GameResult, GoParams, InfoField,
    MateLimit, OptionDecl, OptionKind, PositionStart, Response, Score, ScoreValue, parse_one,
    parse_response,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

fn usi_move() -> impl Strategy<Value = String> {
    prop_oneof!["[1-9][a-i][1-9][a-i]\\+?", "[PLNSGBR]\\*[1-9][a-i]"]
}

fn moves(max: usize) -> impl Strategy<Value = Vec<String>> {
    vec(usi_move(), 0..max)
}

/// A text default: `<empty>` itself stands for the empty string.
fn default_text() -> impl Strategy<Value = String> {
    text().prop_filter("not the empty marker", |text| text != "<empty>")
}

/// An option name or other single word.
fn name() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_]{0,15}"
}

/// Text that runs to the end of a line: printable ASCII, trimmed, maybe empty.
fn text() -> impl Strategy<Value = String> {
    "([!-~]([ -~]{0,20}[!-~])?)?"
}

/// Words joined by single spaces, in capitals so they cannot be `register` keywords.
fn register_words() -> impl Strategy<Value = String> {
    vec("[A-Z0-9]{1,8}", 0..3).prop_map(|words| words.join(" "))
}

fn sfen() -> impl Strategy<Value = String> {
    let board = "[1-9lnsgkrbpLNSGKRBP+/]{1,40}";
    let hands = "-|[0-9RBGSNLPrbgsnlp]{1,10}";
    (board, "[bw]", hands, option::of(1..1000u32)).prop_map(|(board, side, hands, ply)| match ply {
        Some(ply) => format!("{board} {side} {hands} {ply}"),
        None => format!("{board} {side} {hands}"),
    })
}

fn clock() -> impl Strategy<Value = ClockTimes> {
    let ms = || option::of(any::<u64>());
    (ms(), ms(), ms(), ms(), ms()).prop_map(|(btime, wtime, byoyomi, binc, winc)| ClockTimes {
        btime,
        wtime,
        byoyomi,
        binc,
        winc,
    })
}

fn go_params() -> impl Strategy<Value = GoParams> {
    let mate = option::of(prop_oneof![
        any::<u64>().prop_map(MateLimit::Millis),
        Just(MateLimit::Infinite)
    ]);
    let limits = (
        option::of(any::<u64>()),
        option::of(any::<u32>()),
        option::of(any::<u64>()),
        mate,
        option::of(any::<u32>()),
    );
    (any::<bool>(), any::<bool>(), clock(), limits, moves(5)).prop_map(
        |(ponder, infinite, clock, (movetime, depth, nodes, mate, perft), searchmoves)| GoParams {
            ponder,
            infinite,
            clock,
            movetime,
            depth,
            nodes,
            mate,
            perft,
            searchmoves,
        },
    )
}

fn command() -> impl Strategy<Value = Command> {
    let start = prop_oneof![
        Just(PositionStart::StartPos),
        sfen().prop_map(PositionStart::Sfen)
    ];
    let result = prop_oneof![
        Just(GameResult::Win),
        Just(GameResult::Lose),
        Just(GameResult::Draw)
    ];
    prop_oneof![
        Just(Command::Usi),
        any::<bool>().prop_map(Command::Debug),
        Just(Command::IsReady),
        (name(), option::of(text())).prop_map(|(name, value)| Command::SetOption { name, value }),
        (
            any::<bool>(),
            option::of(register_words()),
            option::of(register_words())
        )
            .prop_map(|(later, name, code)| Command::Register { later, name, code }),
        Just(Command::UsiNewGame),
        (start, moves(10)).prop_map(|(start, moves)| Command::Position { start, moves }),
        go_params().prop_map(Command::Go),
        Just(Command::Stop),
        // A ponderhit without any time reads back as a bare `ponderhit`, i.e. `None`.
        option::of(clock().prop_filter("some time", |clock| !clock.is_empty()))
            .prop_map(Command::PonderHit),
        option::of(result).prop_map(Command::GameOver),
        Just(Command::Quit),
        Just(Command::Eval),
        Just(Command::Display),
    ]
}

fn option_decl() -> impl Strategy<Value = OptionDecl> {
    let combo_default = prop_oneof![Just(String::new()), name()];
    let kind = prop_oneof![
        any::<bool>().prop_map(|default| OptionKind::Check { default }),
        (any::<i64>(), any::<i64>(), any::<i64>())
            .prop_map(|(default, min, max)| OptionKind::Spin { default, min, max }),
        (combo_default, vec(name(), 0..5))
            .prop_map(|(default, vars)| OptionKind::Combo { default, vars }),
        Just(OptionKind::Button),
        default_text().prop_map(|default| OptionKind::String { default }),
        default_text().prop_map(|default| OptionKind::Filename { default }),
    ];
    (name(), kind).prop_map(|(name, kind)| OptionDecl { name, kind })
}

fn score() -> impl Strategy<Value = Score> {
    let value = prop_oneof![
        any::<i32>().prop_map(ScoreValue::Cp),
        any::<i32>().prop_map(ScoreValue::Mate),
        Just(ScoreValue::MatePlus),
        Just(ScoreValue::MateMinus),
    ];
    let bound = option::of(prop_oneof![Just(Bound::Lower), Just(Bound::Upper)]);
    (value, bound).prop_map(|(value, bound)| Score { value, bound })
}

/// Fields in the order `Display` writes them: ordinary ones, then `pv`, then `string`.
fn info() -> impl Strategy<Value = Vec<InfoField>> {
    let field = prop_oneof![
        any::<u32>().prop_map(InfoField::Depth),
        any::<u32>().prop_map(InfoField::SelDepth),
        any::<u64>().prop_map(InfoField::Time),
        any::<u64>().prop_map(InfoField::Nodes),
        any::<u64>().prop_map(InfoField::Nps),
        any::<u32>().prop_map(InfoField::HashFull),
        any::<u32>().prop_map(InfoField::MultiPv),
        usi_move().prop_map(InfoField::CurrMove),
        score().prop_map(InfoField::Score),
    ];
    (vec(field, 0..8), option::of(moves(8)), option::of(text())).prop_map(
        |(mut fields, pv, string)| {
            fields.extend(pv.map(InfoField::Pv));
            fields.extend(string.map(InfoField::String));
            fields
        },
    )
}

fn response() -> impl Strategy<Value = Response> {
    let best = prop_oneof![
        (usi_move(), option::of(usi_move())).prop_map(|(mv, ponder)| BestMove::Move { mv, ponder }),
        Just(BestMove::Resign),
        Just(BestMove::Win),
    ];
    let mate = prop_oneof![
        moves(8).prop_map(CheckmateAnswer::Moves),
        Just(CheckmateAnswer::NoMate),
        Just(CheckmateAnswer::Timeout),
        Just(CheckmateAnswer::NotImplemented),
    ];
    prop_oneof![
        text().prop_map(Response::IdName),
        text().prop_map(Response::IdAuthor),
        option_decl().prop_map(Response::Option),
        Just(Response::UsiOk),
        Just(Response::ReadyOk),
        best.prop_map(Response::BestMove),
        mate.prop_map(Response::Checkmate),
        info().prop_map(Response::Info),
    ]
}

/// Any string at all, as text that could reach a `Display`.
fn wild_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[ -~\t\r\n\u{3000}\u{2028}あ]{0,30}"]
}

/// Commands and responses whose text fields hold anything, for the ASCII property.
fn wild_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (wild_text(), option::of(wild_text())).prop_map(|(name, value)| Command::SetOption {
            name,
            value
        }
        .to_string()),
        (wild_text(), vec(wild_text(), 0..3)).prop_map(|(sfen, moves)| Command::Position {
            start: PositionStart::Sfen(sfen),
            moves
        }
        .to_string()),
        (wild_text(), wild_text())
            .prop_map(|(line, reason)| Command::Unknown { line, reason }.to_string()),
        wild_text().prop_map(|name| Response::IdName(name).to_string()),
        (wild_text(), wild_text()).prop_map(|(name, default)| {
            Response::Option(OptionDecl {
                name,
                kind: OptionKind::String { default },
            })
            .to_string()
        }),
        (wild_text(), vec(wild_text(), 0..3)).prop_map(|(default, vars)| {
            Response::Option(OptionDecl {
                name: "X".into(),
                kind: OptionKind::Combo { default, vars },
            })
            .to_string()
        }),
        (wild_text(), wild_text()).prop_map(|(mv, text)| {
            Response::Info(vec![
                InfoField::String(text),
                InfoField::CurrMove(mv.clone()),
                InfoField::Pv(vec![mv]),
            ])
            .to_string()
        }),
        (wild_text(), wild_text()).prop_map(|(mv, ponder)| Response::BestMove(BestMove::Move {
            mv,
            ponder: Some(ponder)
        })
        .to_string()),
    ]
}

fn assert_one_ascii_line(line: &str) -> Result<(), TestCaseError> {
    prop_assert!(line.is_ascii(), "not ASCII: {line:?}");
    prop_assert!(!line.contains(['\n', '\r']), "line break in {line:?}");
    Ok(())
}

proptest! {
    #[test]
    fn commands_read_back_as_written(command in command()) {
        let line = command.to_string();
        prop_assert_eq!(parse_one(&line), command, "line {:?}", line);
    }

    #[test]
    fn responses_read_back_as_written(response in response()) {
        let line = response.to_string();
        prop_assert_eq!(parse_response(&line), Some(response), "line {:?}", line);
    }

    #[test]
    fn reading_any_string_never_panics(line in any::<String>()) {
        let _ = parse_one(&line);
        let _ = parse_response(&line);
    }

    #[test]
    fn reading_any_bytes_never_panics(bytes in vec(any::<u8>(), 0..200)) {
        let line = String::from_utf8_lossy(&bytes);
        let _ = parse_one(&line);
        let _ = parse_response(&line);
    }

    #[test]
    fn reading_near_usi_text_never_panics(line in "([a-z0-9+*/ -]{0,8} ?){0,12}") {
        let _ = parse_one(&line);
        let _ = parse_response(&line);
    }

    #[test]
    fn truncated_commands_never_panic(command in command()) {
        let line = command.to_string();
        for (end, _) in line.char_indices() {
            let _ = parse_one(&line[..end]);
        }
    }

    #[test]
    fn truncated_responses_never_panic(response in response()) {
        let line = response.to_string();
        for (end, _) in line.char_indices() {
            let _ = parse_response(&line[..end]);
        }
    }

    #[test]
    fn written_lines_are_one_line_of_ascii(command in command(), response in response(), wild in wild_line()) {
        assert_one_ascii_line(&command.to_string())?;
        assert_one_ascii_line(&response.to_string())?;
        assert_one_ascii_line(&wild)?;
    }

    #[test]
    fn unknown_lines_write_back_as_ascii(line in any::<String>()) {
        let command = parse_one(&line);
        if let Command::Unknown { .. } = command {
            assert_one_ascii_line(&command.to_string())?;
        }
    }
}

/// Real exchanges from GUIs, end to end through the public API.
#[test]
fn shogihome_early_ponder_session() {
    let lines = [
        "usi",
        "setoption name USI_Hash value 256",
        "setoption name USI_Ponder value true",
        "isready",
        "usinewgame",
        "position startpos moves 7g7f 3c3d",
        "go ponder",
        "ponderhit btime 1000 wtime 2000 byoyomi 3000",
        "gameover win",
        "quit",
    ];
    for line in lines {
        let command = parse_one(line);
        assert!(
            !matches!(command, Command::Unknown { .. }),
            "{line}: {command:?}"
        );
        assert_eq!(command.to_string(), line);
    }
}

#[test]
fn info_string_reads_back() {
    let response = Response::info_string("illegal move 7g7g in position");
    assert_eq!(parse_response(&response.to_string()), Some(response));
}
