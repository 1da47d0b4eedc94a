//! The `kirin` subcommands other than the USI loop.

use std::process::{Command, Output};

use kirin::shogi::{Position, perft};

fn kirin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kirin"))
        .args(args)
        .output()
        .expect("run kirin")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn perft_prints_the_divide_and_the_total() {
    let output = kirin(&["perft", "3"]);
    assert!(output.status.success());
    let mut want = String::new();
    let mut total = 0;
    for (m, n) in perft::divide(&mut Position::startpos(), 3) {
        want.push_str(&format!("{m}: {n}\n"));
        total += n;
    }
    want.push_str(&format!("Nodes searched: {total}\n"));
    assert_eq!(stdout(&output), want);
    assert_eq!(total, 25_470);
}

#[test]
fn perft_takes_an_sfen_in_words_and_refuses_bad_ones() {
    let sfen = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
    let mut args = vec!["perft", "2"];
    args.extend(sfen.split(' '));
    let output = kirin(&args);
    assert!(output.status.success());
    let total = perft::perft(&mut Position::from_sfen(sfen).unwrap(), 2);
    assert!(stdout(&output).ends_with(&format!("Nodes searched: {total}\n")));
    assert_eq!(
        kirin(&["perft", "2", "not", "an", "sfen"]).status.code(),
        Some(2)
    );
    assert_eq!(kirin(&["perft", "two"]).status.code(), Some(2));
}

#[test]
fn eval_of_start_and_handicap_positions() {
    let output = kirin(&["eval"]);
    assert!(output.status.success());
    // The start position is symmetric: whoever is to move, the value is the same for the side to
    // move (a network may give the move itself a small value), and Black's view follows.
    let last_line = |text: &str| text.lines().last().unwrap_or_default().to_string();
    let black = last_line(&stdout(&output));
    let start_white = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let mut args = vec!["eval", "sfen"];
    args.extend(start_white.split(' '));
    let white = last_line(&stdout(&kirin(&args)));
    let value: i32 = black
        .strip_prefix("eval ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{black}"));
    assert!(value.abs() < 100, "{black}");
    assert_eq!(
        black,
        format!("eval {value} (side to move), {value} (Black's view)")
    );
    assert_eq!(
        white,
        format!("eval {value} (side to move), {} (Black's view)", -value)
    );
    // The parts come first, one per line, and add up to the total.
    let parts: Vec<(String, i32)> = stdout(&output)
        .lines()
        .filter(|l| !l.starts_with("eval "))
        .map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next().unwrap_or_default().to_string();
            (
                name,
                w.next().and_then(|v| v.parse().ok()).unwrap_or(i32::MIN),
            )
        })
        .collect();
    let total = parts.iter().find(|(n, _)| n == "total").map(|p| p.1);
    let sum: i32 = parts
        .iter()
        .filter(|(n, _)| n != "total")
        .map(|p| p.1)
        .sum();
    assert_eq!(total, Some(sum));
    let two_piece = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let mut args = vec!["eval", "sfen"];
    args.extend(two_piece.split(' '));
    let text = stdout(&kirin(&args));
    let last = text.lines().last().unwrap_or_default().to_string();
    let cp: i32 = last
        .strip_prefix("eval ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|cp| cp.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(cp < -500, "{text}");
    assert_eq!(kirin(&["eval", "9/9/9 b -"]).status.code(), Some(2));
}

#[test]
fn help_and_unknown_arguments() {
    let help = kirin(&["--help"]);
    assert!(help.status.success());
    let text = stdout(&help);
    for subcommand in ["kirin perft", "kirin bench perft", "kirin eval"] {
        assert!(text.contains(subcommand), "{text}");
    }
    let bad = kirin(&["frobnicate"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty(), "usage errors go to stderr");
}

/// `bench --eval` searches with another evaluation: the embedded network is the default, the
/// linear weights search differently, and a file that is not an evaluation is refused in one
/// line with the usage's exit status.
#[test]
fn bench_takes_another_evaluation() {
    let nodes = |args: &[&str]| {
        let out = kirin(args);
        assert!(out.status.success(), "kirin {args:?}");
        stdout(&out)
            .lines()
            .find_map(|l| l.strip_prefix("Nodes searched: ").map(str::to_string))
            .expect("a node count")
    };
    let default = nodes(&["bench", "5"]);
    assert_eq!(nodes(&["bench", "--eval", "nnue", "5"]), default);
    let linear = nodes(&["bench", "--eval", "linear", "5"]);
    assert_ne!(
        linear, default,
        "the linear weights search like the network"
    );
    assert_eq!(nodes(&["bench", "--eval", "linear", "5"]), linear);

    let missing = kirin(&["bench", "--eval", "/nonexistent/kirin.nnue", "5"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stdout(&missing).is_empty());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.lines()
            .next()
            .unwrap()
            .contains("/nonexistent/kirin.nnue"),
        "{err}"
    );
}
