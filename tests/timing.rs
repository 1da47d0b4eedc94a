//! Overrun check under load: `tuning/timing.py --quick` plays at least 100 moves of
//! `go btime 0 wtime 0 byoyomi 1000` (kirin against itself, from `tests/data/random_openings.sfen`)
//! while two busy-loop processes load the cores, and exits non-zero if any `bestmove` arrived
//! after the period or never arrived. This asserts that no move loses on time, not how fast the
//! engine is. About two minutes.
//!
//! Needs Python 3 (`.venv/bin/python` when present, else `python3`).

use std::path::Path;
use std::process::Command;

#[test]
fn no_overruns_at_one_second_byoyomi_under_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join(".venv/bin/python");
    let python = if venv.exists() {
        venv.into_os_string()
    } else {
        "python3".into()
    };
    let openings = root.join("tests/data/random_openings.sfen");
    let output = Command::new(&python)
        .arg(root.join("tuning/timing.py"))
        .arg("--quick")
        .arg("--engine")
        .arg(env!("CARGO_BIN_EXE_kirin"))
        .arg("--openings")
        .arg(&openings)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python:?} (Python 3 is required): {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "timing harness reported overruns or hangs ({}):\n{stdout}\n{stderr}",
        output.status
    );
}
