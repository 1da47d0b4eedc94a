//! Drives the real `kirin` binary the way a GUI does: lines in, lines out, every read with
//! a deadline so a broken engine fails a test instead of hanging it, and every line the
//! engine writes checked to be one ASCII protocol line.

#![allow(dead_code, reason = "each test file uses its own part of the harness")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use kirin::usi::parse_response;

/// Long enough for a loaded two-core machine, short enough that a hang is noticed.
pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    /// Everything read so far, for failure messages.
    pub transcript: Vec<String>,
}

/// `<move>: <count>` and `Nodes searched: <n>`: the only lines allowed outside USI.
pub fn is_perft_line(line: &str) -> bool {
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    if let Some(total) = line.strip_prefix("Nodes searched: ") {
        return number(total);
    }
    line.split_once(": ")
        .is_some_and(|(mv, count)| is_move_syntax(mv) && number(count))
}

/// USI move text of any of the games: `7g7f`, `P*5e`, dai shogi's `11j10k+` and lion moves
/// through a mid square (`8h8g9f`).
pub fn is_move_syntax(text: &str) -> bool {
    let drop_square = |f: u8, r: u8| (b'1'..=b'9').contains(&f) && (b'a'..=b'i').contains(&r);
    if let [p, b'*', f, r] = text.as_bytes() {
        return b"PLNSGBR".contains(p) && drop_square(*f, *r);
    }
    let body = text.strip_suffix('+').unwrap_or(text);
    let mut squares = 0;
    let mut rest = body;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Some(&rank) = rest.as_bytes().get(digits) else {
            return false;
        };
        let file: u32 = rest[..digits].parse().unwrap_or(0);
        if !(1..=15).contains(&file) || !(b'a'..=b'o').contains(&rank) || rest.starts_with('0') {
            return false;
        }
        squares += 1;
        rest = &rest[digits + 1..];
    }
    squares == 2 || (squares == 3 && body.len() == text.len())
}

/// Panics unless `bytes` is one ASCII line that reads back as a USI response (or, when
/// allowed, a perft line).
pub fn check_line(bytes: &[u8], allow_perft: bool) -> String {
    assert!(bytes.is_ascii(), "non-ASCII output: {bytes:?}");
    let line = String::from_utf8_lossy(bytes).into_owned();
    assert!(
        !line.contains('\r'),
        "carriage return in output line {line:?}"
    );
    let ok = parse_response(&line).is_some() || (allow_perft && is_perft_line(&line));
    assert!(ok, "not a protocol line: {line:?}");
    line
}

impl Engine {
    pub fn start() -> Engine {
        Self::start_with(&[])
    }

    pub fn start_with(env: &[(&str, &str)]) -> Engine {
        // `KIRIN_TEST_BIN` runs the tests against another build, e.g. an older commit's, to
        // check that a regression test fails there.
        let binary = std::env::var_os("KIRIN_TEST_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_kirin").into());
        let mut command = Command::new(binary);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Unread, a piped stderr could fill and block the engine.
            .stderr(Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("start kirin");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        assert_eq!(line.pop(), Some(b'\n'), "unterminated last line");
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            transcript: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        let sent = stdin.write_all(bytes).and_then(|()| stdin.flush());
        if let Err(e) = sent {
            panic!(
                "engine gone ({e}); transcript:\n{}",
                self.transcript.join("\n")
            );
        }
        self.transcript
            .push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
    }

    /// Sends without keeping a transcript, for inputs too large to print on failure.
    pub fn send_unlogged(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        if let Err(e) = stdin.write_all(bytes).and_then(|()| stdin.flush()) {
            panic!("engine gone ({e})");
        }
    }

    /// Closes stdin: end of input, which the engine must take as `quit`.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` if none comes within `wait`.
    pub fn next_line_within(&mut self, wait: Duration, allow_perft: bool) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(bytes) => {
                let line = check_line(&bytes, allow_perft);
                self.transcript.push(format!("< {line}"));
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!(
                    "engine closed stdout; transcript:\n{}",
                    self.transcript.join("\n")
                )
            }
        }
    }

    /// Lines up to and including the first one for which `done` holds.
    pub fn read_until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.read_until_opts(done, false)
    }

    pub fn read_until_opts(
        &mut self,
        done: impl Fn(&str) -> bool,
        allow_perft: bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + TIMEOUT;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line_within(left, allow_perft) {
                Some(line) => {
                    let finished = done(&line);
                    got.push(line);
                    if finished {
                        return got;
                    }
                }
                None => panic!(
                    "timed out waiting; transcript:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// Sends `isready` and returns what came before `readyok`: since the engine answers
    /// in order, that is everything the earlier commands printed (a running search's
    /// later output excepted).
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// `usi` .. `usiok`, returning the option lines.
    pub fn handshake(&mut self) -> Vec<String> {
        self.send("usi");
        let lines = self.read_until(|l| l == "usiok");
        assert!(lines.iter().any(|l| l.starts_with("id name ")), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.starts_with("id author ")),
            "{lines:?}"
        );
        lines
            .into_iter()
            .filter(|l| l.starts_with("option "))
            .collect()
    }

    /// Handshake with a small hash, so tests do not each allocate the default table.
    pub fn ready() -> Engine {
        let mut engine = Engine::start();
        engine.handshake();
        engine.send("setoption name USI_Hash value 16");
        engine.send("setoption name Threads value 1");
        let noise = engine.sync();
        assert!(noise.is_empty(), "{noise:?}");
        engine
    }

    /// Waits for `bestmove` and returns its line and what came before it.
    pub fn bestmove(&mut self) -> (String, Vec<String>) {
        let mut lines = self.read_until(|l| l.starts_with("bestmove"));
        let best = lines.pop().unwrap_or_default();
        (best, lines)
    }

    /// Asserts that nothing is written for `wait`.
    pub fn assert_silent(&mut self, wait: Duration) {
        if let Some(line) = self.next_line_within(wait, false) {
            panic!(
                "unexpected {line:?}; transcript:\n{}",
                self.transcript.join("\n")
            );
        }
    }

    /// Waits for the process to end; panics if it takes longer than `wait`.
    pub fn wait_exit(&mut self, wait: Duration) -> ExitStatus {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "engine still running {wait:?} later; transcript:\n{}",
                    self.transcript.join("\n")
                );
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// `quit`, then the process must be gone promptly and cleanly.
    pub fn quit(mut self) {
        self.send("quit");
        let status = self.wait_exit(Duration::from_secs(5));
        assert!(status.success(), "exit status {status}");
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A failed test must not leave engines behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What `read` makes of the words after `field` in the last line of `lines` that has it.
fn last_field<T>(
    lines: &[String],
    field: &str,
    read: impl Fn(&mut std::str::SplitWhitespace) -> Option<T>,
) -> Option<T> {
    lines.iter().rev().find_map(|l| {
        let mut words = l.split_whitespace();
        words.find(|&w| w == field)?;
        read(&mut words)
    })
}

/// The score of the last `info` line with one among `lines`, as written: `cp N` or `mate N`.
pub fn last_score(lines: &[String]) -> String {
    last_field(lines, "score", |w| {
        Some(format!("{} {}", w.next()?, w.next()?))
    })
    .expect("an info line with a score")
}

/// The nodes of the last `info` line with a node count among `lines`.
pub fn last_nodes(lines: &[String]) -> u64 {
    last_field(lines, "nodes", |w| w.next()?.parse().ok()).expect("an info line with nodes")
}

/// The move of a `bestmove <move> [ponder <move>]` line.
pub fn best_of(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap_or("")
}

/// Whether `mv` is legal after `moves` from `sfen` (or the start position).
pub fn is_legal(sfen: Option<&str>, moves: &[String], mv: &str) -> bool {
    let mut pos = match sfen {
        Some(sfen) => kirin::shogi::Position::from_sfen(sfen).expect("test sfen"),
        None => kirin::shogi::Position::startpos(),
    };
    for m in moves {
        let m = pos.parse_move(m).expect("test moves are legal");
        pos.do_move(m);
    }
    pos.parse_move(mv).is_ok()
}

/// The errors among `lines`.
pub fn errors(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect()
}

/// The `kirin` binary run with command-line `args`, its output collected.
pub fn kirin_cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kirin"))
        .args(args)
        .output()
        .expect("run kirin")
}

/// The total node count `kirin bench <args>` prints (it must succeed).
pub fn bench_nodes(args: &[&str]) -> String {
    let out = kirin_cli(args);
    assert!(out.status.success(), "kirin {args:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched: ").map(str::to_string))
        .expect("a node count")
}

/// Runs `tests/oracle/<script>` (an independent library's view, in Python) with `args` under
/// `timeout`, `input` on stdin, with `.venv/bin/python` when present; panics with its stderr
/// unless it succeeded.
pub fn python_oracle(script: &str, args: &[&str], input: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join(".venv/bin/python");
    let python = if venv.exists() {
        venv
    } else {
        std::path::PathBuf::from("python3")
    };
    let mut child = Command::new("timeout")
        .arg("600")
        .arg(python)
        .arg(root.join("tests/oracle").join(script))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run an oracle under timeout");
    let mut stdin = child.stdin.take().expect("oracle stdin");
    let input = input.to_string();
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for the oracle");
    let _ = writer.join();
    assert!(
        out.status.success(),
        "{script} failed ({}); `bash tuning/setup.sh` installs what it needs in .venv\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("oracle output is UTF-8")
}

/// A seeded xorshift64 source for random games and positions: the same on every run, so a
/// failure replays. The seed must not be zero.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
