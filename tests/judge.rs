//! `kirin judge`: the dai shogi rules service that tuning/dai_match.py talks to. One answer line
//! per request, bad requests included, and the process keeps reading after them.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `kirin judge ARGS` on `input`; (exit success, stdout lines, stderr).
fn judge(args: &[&str], input: &[u8]) -> (bool, Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kirin"))
        .arg("judge")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kirin judge");
    // With bad arguments the judge exits before it reads: a broken pipe here is not a failure,
    // the exit status and the output below are what is checked.
    let written = child.stdin.take().expect("stdin").write_all(input);
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "write requests: {e}"
        );
    }
    let out = child.wait_with_output().expect("judge output");
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (
        out.status.success(),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The depth-1 dai row of the reference perft table: the number of legal moves at the start.
fn start_moves_from_perft_table() -> usize {
    let text = std::fs::read_to_string("tests/data/perft.tsv").expect("tests/data/perft.tsv");
    text.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f[0] == "dai" && f[3] == "1")
        .map(|f| f[4].parse().expect("count"))
        .expect("a dai depth-1 row")
}

#[test]
fn every_request_gets_one_line_and_bad_ones_do_not_stop_it() {
    let mut input = Vec::new();
    input.extend_from_slice(b"check startpos\n");
    input.extend_from_slice(b"nonsense\n");
    input.extend_from_slice(b"check startpos moves 8k8j 8e8f 8j8i\n");
    input.extend_from_slice(b"check sfen not/a/board b - 1\n");
    input.extend_from_slice(b"\xff\xfe not utf-8\n");
    input.extend_from_slice(b"targets 16z startpos\n");
    input.extend_from_slice(b"legal startpos\n");
    input.extend_from_slice(b"check startpos moves 8k8j 8k8i\n");
    input.extend_from_slice(b"sfen startpos moves 8k8j\n");
    input.extend_from_slice(b"quit\ncheck startpos\n");
    let (ok, lines, stderr) = judge(&["--variant", "dai"], &input);
    assert!(ok, "{stderr}");
    assert_eq!(lines.len(), 9, "{lines:#?}");
    assert_eq!(lines[0], "ok ongoing");
    assert!(
        lines[1].starts_with("error unknown request"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "ok ongoing");
    assert!(lines[3].starts_with("error bad sfen"), "{}", lines[3]);
    assert!(lines[4].starts_with("error "), "{}", lines[4]);
    assert!(lines[5].starts_with("error bad dai square"), "{}", lines[5]);
    let legal: Vec<&str> = lines[6].split(' ').skip(1).collect();
    assert_eq!(legal.len(), start_moves_from_perft_table());
    assert!(lines[7].starts_with("illegal 2 8k8i"), "{}", lines[7]);
    assert!(
        lines[8].starts_with("sfen ") && lines[8].ends_with(" w - 2"),
        "{}",
        lines[8]
    );
}

#[test]
fn bad_arguments_are_a_usage_error() {
    let (ok, lines, stderr) = judge(&["--variant", "chu"], b"check startpos\n");
    assert!(!ok);
    assert!(lines.is_empty());
    assert!(stderr.contains("dai shogi only"), "{stderr}");
    let (ok, _, stderr) = judge(&["--repetition"], b"");
    assert!(!ok && stderr.contains("--repetition needs"), "{stderr}");
}
