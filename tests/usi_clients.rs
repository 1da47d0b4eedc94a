//! Third-party USI clients drive the binary: cshogi's `usi.Engine`, cshogi's match runner
//! and ShogiArena's tournament runner, the last two as referees of short matches between two
//! kirin processes. They read our output with their own parsers, which is the point.
//!
//! Python comes from `.venv/bin/python` at the repository root when present (what `.ci/run`
//! makes), else `python3`. A missing interpreter or package fails the test: these checks
//! are never skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// Runs `python <script> <args>` under `timeout`, since cshogi waits forever on an engine
/// that died, and returns its stdout; panics with everything it printed unless it passed.
fn run_client(script: &str, args: &[&str], limit_secs: u32) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(script);
    let output = Command::new("timeout")
        .arg("--kill-after=5")
        .arg(limit_secs.to_string())
        .arg(python())
        .arg(&script)
        .args(args)
        // cshogi pipes the engine's stderr and never reads it: keep the engine quiet.
        .env_remove("RUST_LOG")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `timeout` for {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let verdict = match output.status.code() {
        Some(0) => return stdout,
        Some(124) | Some(137) => format!("timed out after {limit_secs} s"),
        Some(127) => format!("no interpreter: {}", python().display()),
        _ => format!("failed ({})", output.status),
    };
    panic!(
        "{} {verdict}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        script.display()
    );
}

fn kirin() -> &'static str {
    env!("CARGO_BIN_EXE_kirin")
}

#[test]
fn python_clients_are_installed() {
    let output = Command::new(python())
        .args([
            "-c",
            "import cshogi, cshogi.cli, cshogi.usi, shogiarena.tournament",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
    assert!(
        output.status.success(),
        "{} lacks the clients (pip install cshogi shogiarena): {}",
        python().display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn cshogi_usi_engine_client() {
    let out = run_client("cshogi_client.py", &[kirin()], 120);
    assert!(out.contains("cshogi client: ok"), "{out}");
}

#[test]
fn cshogi_match_runner_referees_a_short_match() {
    let out = run_client("cshogi_match.py", &[kirin(), "6"], 180);
    assert!(out.contains("cshogi match: ok"), "{out}");
}

#[test]
fn shogiarena_referees_a_short_match() {
    let out = run_client("shogiarena_match.py", &[kirin(), "4"], 180);
    assert!(out.contains("shogiarena match: ok"), "{out}");
}
