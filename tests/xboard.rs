//! kirin under XBoard's protocol (CECP 2), driven the way XBoard drives it: the real binary over
//! pipes, every read with a deadline so that a hang fails the test, and every move the engine
//! sends checked against kirin's own rules through the library.

use kirin::engine::engine_for;
use kirin::game::RuleOptions;
use kirin::xboard::notation::{self, Board};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// Long enough for a loaded two-core machine, short enough that a hang is noticed.
const TIMEOUT: Duration = Duration::from_secs(30);

struct Cecp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    transcript: Vec<String>,
}

impl Cecp {
    /// `kirin xboard`, or plain `kirin` (the USI loop, which hands over on `xboard`).
    fn start(args: &[&str]) -> Cecp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kirin"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kirin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Cecp {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        if let Err(e) = writeln!(stdin, "{line}").and_then(|()| stdin.flush()) {
            panic!("engine gone ({e}):\n{}", self.transcript.join("\n"));
        }
        self.transcript.push(format!("> {line}"));
    }

    /// Lines up to and including the first for which `done` holds.
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + TIMEOUT;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    assert!(is_cecp_line(&line), "not a protocol line: {line:?}");
                    self.transcript.push(format!("< {line}"));
                    let finished = done(&line);
                    got.push(line);
                    if finished {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out:\n{}", self.transcript.join("\n"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine closed stdout:\n{}", self.transcript.join("\n"))
                }
            }
        }
    }

    /// Sends `ping n` and returns what came before `pong n`: everything the earlier lines
    /// answered, since the engine answers in order.
    fn sync(&mut self, n: i64) -> Vec<String> {
        self.send(&format!("ping {n}"));
        let pong = format!("pong {n}");
        let mut got = self.read_until(|l| l == pong);
        got.pop();
        got
    }

    /// The handshake XBoard opens with.
    fn handshake(&mut self) -> Vec<String> {
        self.send("xboard");
        self.send("protover 2");
        self.read_until(|l| l == "feature done=1")
    }

    /// The engine's next move, its legs joined, in XBoard's text.
    fn engine_move(&mut self) -> String {
        let mut text = String::new();
        loop {
            let lines = self.read_until(|l| l.starts_with("move "));
            let leg = &lines.last().expect("a line")["move ".len()..];
            text.push_str(leg);
            if !leg.ends_with(',') {
                return text;
            }
        }
    }

    /// `quit`, and the exit status within the deadline.
    fn quit(mut self) {
        self.send("quit");
        self.end_of_input();
    }

    /// Closes the input, which a GUI that has gone leaves behind, and checks the exit status.
    fn end_of_input(mut self) {
        self.stdin = None;
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "no exit after quit");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Whether `line` is one of the lines an engine sends XBoard: anything else on stdout (a log
/// line, a USI `info`) would confuse the GUI.
fn is_cecp_line(line: &str) -> bool {
    const STARTS: [&str; 13] = [
        "feature ",
        "setup (",
        "piece ",
        "move ",
        "pong ",
        "Illegal move",
        "Error (",
        "telluser ",
        "tellusererror ",
        "# ",
        "highlight ",
        "Hint: ",
        "resign",
    ];
    let thinking =
        line.split(' ').take(4).all(|n| n.parse::<i64>().is_ok()) && line.split(' ').count() >= 4;
    let result = ["1-0 {", "0-1 {", "1/2-1/2 {"]
        .iter()
        .any(|r| line.starts_with(r));
    line.is_ascii()
        && !line.contains('\r')
        && (STARTS.iter().any(|s| line.starts_with(s)) || thinking || result)
}

impl Drop for Cecp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks XBoard `text` against kirin's rules for `game` after `moves` (kirin text), and
/// returns it in kirin's text.
fn legal(game: &str, board: Board, moves: &[String], text: &str) -> String {
    let mut engine = engine_for(game).expect("a kirin game");
    engine
        .set_position(None, moves, &RuleOptions::default())
        .expect("the moves so far are legal");
    let kirin = board.to_kirin(text).expect("readable move text");
    engine
        .parse_move(&kirin)
        .unwrap_or_else(|e| panic!("{text} ({kirin}) is not legal: {e}"));
    kirin
}

/// The first legal move in `game`'s start position, in XBoard's text.
fn first_legal(game: &str, board: Board) -> (String, String) {
    let engine = engine_for(game).expect("a kirin game");
    let kirin = engine.legal_moves().into_iter().next().expect("a move");
    let xboard = board.to_xboard(&kirin).expect("writable move");
    (kirin, xboard)
}

#[test]
fn handshake_announces_the_features_and_the_variants() {
    let mut e = Cecp::start(&["xboard"]);
    let lines = e.handshake();
    assert_eq!(lines[0], "feature done=0", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("feature myname=\"kirin"))
    );
    assert!(lines.contains(&"feature variants=\"shogi,dai\"".to_string()));
    for flag in ["setboard=1", "usermove=1", "ping=1", "sigint=0"] {
        assert!(
            lines.contains(&format!("feature {flag}")),
            "{flag}: {lines:?}"
        );
    }
    assert!(
        lines.contains(&"feature option=\"SkillLevel -spin 20 0 20\"".to_string()),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn dai_game_through_the_usi_loop_handing_over() {
    // Started without arguments, as GUIs start engines, and told `xboard` first.
    let mut e = Cecp::start(&[]);
    e.handshake();
    e.send("new");
    e.send("variant dai");
    let description = e.sync(1);
    let setup = description
        .iter()
        .find(|l| l.starts_with("setup ("))
        .unwrap_or_else(|| panic!("no setup: {description:?}"));
    assert!(setup.contains(") 15x15+0_chu "), "{setup}");
    let pieces = description
        .iter()
        .filter(|l| l.starts_with("piece "))
        .count();
    assert!(pieces >= 40, "{pieces} piece lines");

    e.send("force");
    let (kirin, xboard) = first_legal("daishogi", notation::DAI);
    e.send(&format!("usermove {xboard}"));
    assert_eq!(
        e.sync(2),
        Vec::<String>::new(),
        "a legal move is taken silently"
    );
    e.send("post");
    e.send("st 1");
    e.send("go");
    let reply = e.engine_move();
    legal("daishogi", notation::DAI, &[kirin], &reply);
    e.quit();
}

#[test]
fn standard_shogi_game_with_a_move_from_each_side() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("force");
    let (kirin, xboard) = first_legal("shogi", notation::SHOGI);
    e.send(&format!("usermove {xboard}"));
    e.send("st 1");
    e.send("go");
    let reply = e.engine_move();
    let reply_kirin = legal(
        "shogi",
        notation::SHOGI,
        std::slice::from_ref(&kirin),
        &reply,
    );
    // The engine played gote; sente's next move is answered at once, without `go`.
    let mut engine = engine_for("shogi").unwrap();
    engine
        .set_position(None, &[kirin, reply_kirin], &RuleOptions::default())
        .unwrap();
    let third = engine.legal_moves()[0].clone();
    let third_xboard = notation::SHOGI.to_xboard(&third).unwrap();
    e.send(&format!("usermove {third_xboard}"));
    let answer = e.engine_move();
    assert!(!answer.is_empty());
    e.quit();
}

#[test]
fn illegal_moves_and_bad_commands_are_refused_and_the_engine_stays_up() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("force");
    // Sente's bishop cannot jump its own pawn to the far corner.
    e.send("usermove b2i9");
    e.send("usermove zz");
    e.send("variant chess");
    e.send("setboard");
    e.send("setboard this-is-no-position w - - 0 1");
    e.send("option SkillLevel=strong");
    e.send("option SkillLevel=5");
    let answers = e.sync(7);
    assert!(
        answers[0].starts_with("Illegal move") && answers[0].ends_with("b2i9"),
        "{answers:?}"
    );
    assert!(answers[1].starts_with("Illegal move"), "{answers:?}");
    assert!(
        answers[2].starts_with("Error (") && answers[2].ends_with("variant chess"),
        "{answers:?}"
    );
    assert!(answers[3].starts_with("Error ("), "{answers:?}");
    assert!(answers[4].contains("Illegal position"), "{answers:?}");
    assert!(
        answers[5].starts_with("Error (") && answers[5].contains("SkillLevel"),
        "{answers:?}"
    );
    assert_eq!(
        answers.len(),
        6,
        "a good option value is taken silently: {answers:?}"
    );
    // Still playing: a legal move is taken after all that.
    let (_, xboard) = first_legal("shogi", notation::SHOGI);
    e.send(&format!("usermove {xboard}"));
    assert_eq!(e.sync(8), Vec::<String>::new());
    e.quit();
}

#[test]
fn move_now_ends_a_long_search_with_a_move() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("level 0 10 0");
    e.send("time 60000");
    e.send("otim 60000");
    e.send("st 300");
    e.send("go");
    thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    e.send("?");
    let reply = e.engine_move();
    assert!(asked.elapsed() < Duration::from_secs(10), "slow to stop");
    legal("shogi", notation::SHOGI, &[], &reply);
    e.quit();
}

#[test]
fn force_during_a_search_sends_no_move() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("st 300");
    e.send("go");
    thread::sleep(Duration::from_millis(300));
    e.send("force");
    let after = e.sync(3);
    assert!(
        after.iter().all(|l| !l.starts_with("move ")),
        "a move after force: {after:?}"
    );
    e.quit();
}

#[test]
fn analysis_runs_until_exit_and_quit_ends_it() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("post");
    e.send("analyze");
    // Thinking lines come while the analysis runs, not only once it is stopped.
    let first = e.read_until(|l| l.starts_with(|c: char| c.is_ascii_digit()));
    assert!(first.iter().all(|l| !l.starts_with("move ")), "{first:?}");
    // `ping` is answered during the analysis, which never ends by itself.
    e.send("ping 5");
    e.read_until(|l| l == "pong 5");
    e.send("exit");
    let lines = e.sync(4);
    assert!(lines.iter().all(|l| !l.starts_with("move ")), "{lines:?}");
    // Analysis again, ended by `quit` alone.
    e.send("analyze");
    e.quit();
}

#[test]
fn end_of_input_during_analysis_ends_the_process() {
    let mut e = Cecp::start(&["xboard"]);
    e.handshake();
    e.send("new");
    e.send("analyze");
    thread::sleep(Duration::from_millis(200));
    e.end_of_input();
}
