use super::*;
use crate::test_rng::xorshift;

fn ok(line: &str) -> Command {
    parse_command(line).unwrap_or_else(|e| panic!("{line:?} refused: {e:?}"))
}

fn refused(line: &str) -> String {
    match parse_command(line) {
        Ok(command) => panic!("{line:?} read as {command:?}"),
        Err(error) => error.reason,
    }
}

#[test]
fn every_command_xboard_sends_is_read() {
    assert_eq!(ok("xboard"), Command::Xboard);
    assert_eq!(ok("protover 2"), Command::Protover(2));
    assert_eq!(
        ok("accepted setboard"),
        Command::Accepted("setboard".into())
    );
    assert_eq!(
        ok("rejected highlight"),
        Command::Rejected("highlight".into())
    );
    assert_eq!(ok("new"), Command::New);
    assert_eq!(ok("variant dai"), Command::Variant("dai".into()));
    assert_eq!(ok("force"), Command::Force);
    assert_eq!(ok("go"), Command::Go);
    assert_eq!(ok("playother"), Command::PlayOther);
    assert_eq!(
        ok("usermove h8h9,h9g10"),
        Command::UserMove("h8h9,h9g10".into())
    );
    assert_eq!(ok("?"), Command::MoveNow);
    assert_eq!(ok("ping 17"), Command::Ping(17));
    assert_eq!(ok("draw"), Command::Draw);
    assert_eq!(
        ok("setboard 15/15 w - - 0 1"),
        Command::SetBoard("15/15 w - - 0 1".into())
    );
    assert_eq!(ok("hint"), Command::Hint);
    assert_eq!(ok("bk"), Command::Book);
    assert_eq!(ok("undo"), Command::Undo);
    assert_eq!(ok("remove"), Command::Remove);
    assert_eq!(ok("hard"), Command::Hard);
    assert_eq!(ok("easy"), Command::Easy);
    assert_eq!(ok("post"), Command::Post);
    assert_eq!(ok("nopost"), Command::NoPost);
    assert_eq!(ok("analyze"), Command::Analyze);
    assert_eq!(ok("exit"), Command::Exit);
    assert_eq!(ok("."), Command::AnalyzeStatus);
    assert_eq!(ok("name HaChu 0.21"), Command::Name("HaChu 0.21".into()));
    assert_eq!(
        ok("rating 2100 -5"),
        Command::Rating {
            own: 2100,
            opponent: -5
        }
    );
    assert_eq!(ok("computer"), Command::Computer);
    assert_eq!(ok("sd 12"), Command::Depth(12));
    assert_eq!(ok("time 30000"), Command::Time(30000));
    assert_eq!(ok("otim -120"), Command::OpponentTime(-120));
    assert_eq!(ok("memory 256"), Command::Memory(256));
    assert_eq!(ok("cores 4"), Command::Cores(4));
    assert_eq!(ok("lift h8"), Command::Lift("h8".into()));
    assert_eq!(ok("put o15"), Command::Put("o15".into()));
    assert_eq!(ok("hover g10"), Command::Hover("g10".into()));
    assert_eq!(ok("quit"), Command::Quit);
    assert_eq!(ok("white"), Command::White);
    assert_eq!(ok("black"), Command::Black);
    assert_eq!(ok("edit"), Command::Edit);
    assert_eq!(ok("random"), Command::Random);
    assert_eq!(ok("nps 50000"), Command::Nps(50000));
    assert_eq!(ok("exclude all"), Command::Exclude(None));
    assert_eq!(ok("include h5h6"), Command::Include(Some("h5h6".into())));
    assert_eq!(
        ok("setscore -35 8"),
        Command::SetScore {
            score: -35,
            depth: 8
        }
    );
}

#[test]
fn time_controls_read_minutes_seconds_and_fractions() {
    let level = |mps, base_ms, increment_ms| Command::Level {
        moves_per_session: mps,
        base_ms,
        increment_ms,
    };
    assert_eq!(ok("level 40 5 0"), level(40, 300_000, 0));
    assert_eq!(ok("level 0 2:30 12"), level(0, 150_000, 12_000));
    assert_eq!(ok("level 0 0:05 0.5"), level(0, 5_000, 500));
    assert_eq!(ok("level 0 0.5 0"), level(0, 30_000, 0));
    assert_eq!(ok("st 10"), Command::SearchTime { ms: 10_000 });
    assert_eq!(ok("st 0.25"), Command::SearchTime { ms: 250 });
    assert_eq!(refused("level 40 5"), "bad time control");
    assert_eq!(refused("level x 5 0"), "bad time control");
    assert_eq!(
        refused("level 0 99999999999999999999 0"),
        "bad time control"
    );
}

#[test]
fn results_keep_their_comment() {
    assert_eq!(
        ok("result 1-0 {White mates}"),
        Command::Result {
            result: GameResult::WhiteWins,
            comment: "White mates".into()
        }
    );
    assert_eq!(
        ok("result 1/2-1/2 {Draw by repetition}"),
        Command::Result {
            result: GameResult::Draw,
            comment: "Draw by repetition".into()
        }
    );
    assert_eq!(
        ok("result *"),
        Command::Result {
            result: GameResult::Unknown,
            comment: String::new()
        }
    );
    assert_eq!(refused("result 2-0 {nonsense}"), "bad result");
}

#[test]
fn options_keep_blanks_in_names_and_values() {
    assert_eq!(
        ok("option Full analysis PV=1"),
        Command::Option {
            name: "Full analysis PV".into(),
            value: Some("1".into())
        }
    );
    assert_eq!(
        ok("option Book File=/usr/share/a b.bin"),
        Command::Option {
            name: "Book File".into(),
            value: Some("/usr/share/a b.bin".into())
        }
    );
    assert_eq!(
        ok("option Clear Hash"),
        Command::Option {
            name: "Clear Hash".into(),
            value: None
        }
    );
}

#[test]
fn bare_moves_are_moves_and_misspelt_commands_are_not() {
    assert_eq!(ok("h5h6"), Command::Move("h5h6".into()));
    assert_eq!(ok("h8h9,h9g10"), Command::Move("h8h9,h9g10".into()));
    assert_eq!(ok("@@@@"), Command::Move("@@@@".into()));
    assert_eq!(ok("P@e5"), Command::Move("P@e5".into()));
    assert_eq!(refused("prtover 2"), "unknown command");
    assert_eq!(refused("gogo"), "unknown command");
}

#[test]
fn windows_line_ends_and_blanks_are_ignored() {
    assert_eq!(ok("ping 3\r"), Command::Ping(3));
    assert_eq!(ok("  usermove   h5h6  "), Command::UserMove("h5h6".into()));
}

#[test]
fn wrong_arguments_are_refused_with_a_reason() {
    assert_eq!(refused(""), "empty line");
    assert_eq!(refused("new game"), "too many parameters");
    assert_eq!(refused("ping"), "bad ping");
    assert_eq!(refused("protover two"), "bad version");
    assert_eq!(refused("sd -1"), "bad depth");
    assert_eq!(refused("memory 99999999999999999999999"), "bad memory size");
    assert_eq!(refused("usermove h5h6 h6h7"), "bad move");
    assert_eq!(refused("lift 8h"), "bad square");
    assert_eq!(refused("setboard"), "missing position");
    let error = parse_command("frobnicate 3").unwrap_err();
    assert_eq!(error.line, "frobnicate 3");
}

/// Random bytes, random words from the protocol and random arguments: the reader must answer
/// every line with a command or a refusal, never a panic.
#[test]
fn random_lines_never_panic() {
    let words = [
        "level",
        "st",
        "time",
        "otim",
        "result",
        "option",
        "rating",
        "usermove",
        "ping",
        "setboard",
        "lift",
        "egtpath",
        "setscore",
        "protover",
        "name",
        "exclude",
        "?",
        ".",
        "1-0",
        "{",
        "}",
        "=",
        ":",
        "-",
        "@@@@",
        "h10",
        "0.5",
        "99999999999999999999",
    ];
    let mut next = xorshift(0x5eed_cec9);
    let mut read = 0;
    for _ in 0..20_000 {
        let length = (next() % 40) as usize;
        let line: Vec<u8> = if next().is_multiple_of(2) {
            (0..length).map(|_| next() as u8).collect()
        } else {
            let mut text = String::new();
            for _ in 0..(length % 6) {
                text.push_str(words[(next() % words.len() as u64) as usize]);
                if !next().is_multiple_of(3) {
                    text.push(' ');
                }
            }
            text.into_bytes()
        };
        let line = String::from_utf8_lossy(&line);
        if parse_command(&line).is_ok() {
            read += 1;
        }
    }
    // Some random word lines do form commands, so the reader was exercised past refusals.
    assert!(read > 0);
}
