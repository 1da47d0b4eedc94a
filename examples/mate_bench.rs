//! Mate solver benchmark.
//!
//! ```text
//! cargo run --release --example mate_bench -- tsv /work/shared/data/tsume/mates.tsv
//! cargo run --release --example mate_bench -- microcosmos /work/shared/data/tsume/microcosmos_1525.usi \
//!     [--hash MB] [--secs S] [--tail PLIES]
//! ```
//!
//! `tsv` solves every row of a `sfen<TAB>length` file and prints time, nodes and the length found.
//! `microcosmos` reads `sfen ... moves ...` (the known solution), and solves the position reached
//! `--tail` plies before the end of that solution (the whole problem without `--tail`), so a
//! solver too slow for the whole problem can still show how far it gets.
//!
//! Recorded 2026-11-22 (release, 8192 MB table, 2 shared cores under a load average of 6-10, so
//! about half a core): `RUST_LOG=debug ... microcosmos ... --hash 8192 --secs 600` proved the
//! whole of Microcosmos after 34.4M nodes and 186 s wall (a 1585-ply line, verified), then cut it
//! to 1559 plies by the 600 s deadline (128M nodes); the 1525-ply shortest was not reached. Tails
//! of the solution were solved to their exact length: 31, 61, 101 and 151 plies.

use kirin::mate::{MateLimits, MateResult, MateSolver};
use kirin::shogi::Position;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| -> Option<u64> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
    };
    let hash = flag("--hash").unwrap_or(256) as usize;
    let secs = flag("--secs").unwrap_or(60);
    let code = match (args.first().map(String::as_str), args.get(1)) {
        (Some("tsv"), Some(path)) => tsv(path, hash, secs),
        (Some("microcosmos"), Some(path)) => microcosmos(path, hash, secs, flag("--tail")),
        _ => {
            eprintln!(
                "usage: mate_bench tsv FILE | microcosmos FILE [--hash MB] [--secs S] [--tail PLIES] [--nodes N]"
            );
            2
        }
    };
    std::process::exit(code);
}

fn solve(
    solver: &mut MateSolver,
    pos: &mut Position,
    secs: u64,
    verbose: bool,
) -> (MateResult, u64, f64) {
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let limits = MateLimits {
        deadline: Some(start + Duration::from_secs(secs)),
        max_nodes: std::env::args()
            .skip_while(|a| a != "--nodes")
            .nth(1)
            .and_then(|v| v.parse().ok()),
    };
    let mut nodes = 0;
    let mut last_print = Instant::now();
    let r = solver.solve(pos, limits, &stop, &mut |p| {
        nodes = p.nodes;
        if verbose && last_print.elapsed() >= Duration::from_secs(10) {
            last_print = Instant::now();
            let s = p.elapsed.as_secs_f64().max(1e-3);
            eprintln!(
                "info time {:.0} nodes {} nps {:.0} hashfull {}",
                s * 1000.0,
                p.nodes,
                p.nodes as f64 / s,
                p.hashfull
            );
        }
    });
    (r, nodes, start.elapsed().as_secs_f64())
}

fn describe(r: &MateResult) -> String {
    match r {
        MateResult::Mate(line) => format!("mate {}", line.len()),
        MateResult::NoMate => "nomate".into(),
        MateResult::Timeout => "timeout".into(),
    }
}

fn tsv(path: &str, hash: usize, secs: u64) -> i32 {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("cannot read {path}");
        return 1;
    };
    let mut solver = MateSolver::new(hash);
    let mut total = 0.0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let Some((sfen, expect)) = line.split_once('\t') else {
            continue;
        };
        let mut pos = match Position::from_sfen(sfen) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{sfen}: {e}");
                continue;
            }
        };
        solver.clear();
        let (r, nodes, t) = solve(&mut solver, &mut pos, secs, false);
        total += t;
        println!(
            "{t:>9.4}s {nodes:>10} nodes  expect {expect:<8} got {:<10} {sfen}",
            describe(&r)
        );
    }
    println!("total {total:.3}s");
    0
}

/// An independent replay of a claimed mate through the rules core.
fn replays_to_mate(pos: &Position, line: &[kirin::shogi::Move]) -> bool {
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if !p.is_legal(m) || (i % 2 == 0 && !p.gives_check(m)) {
            return false;
        }
        p.do_move(m);
    }
    line.len() % 2 == 1 && p.in_check() && p.is_mated()
}

fn microcosmos(path: &str, hash: usize, secs: u64, tail: Option<u64>) -> i32 {
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("cannot read {path}");
        return 1;
    };
    let text = text.trim();
    let body = text.strip_prefix("sfen ").unwrap_or(text);
    let (sfen, moves) = match body.split_once(" moves ") {
        Some((s, m)) => (s, m.split_whitespace().collect::<Vec<_>>()),
        None => (body, Vec::new()),
    };
    let mut pos = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bad sfen: {e}");
            return 1;
        }
    };
    let skip = tail.map_or(0, |t| moves.len().saturating_sub(t as usize));
    for m in &moves[..skip] {
        match pos.parse_move(m) {
            Ok(mv) => pos.do_move(mv),
            Err(e) => {
                eprintln!("solution move {m}: {e}");
                return 1;
            }
        }
    }
    let root = pos.to_sfen();
    let mut solver = MateSolver::new(hash);
    eprintln!(
        "solving {} plies before the end ({} MB table, {} s): {root}",
        moves.len() - skip,
        solver.table_bytes() >> 20,
        secs
    );
    let (r, nodes, t) = solve(&mut solver, &mut pos, secs, true);
    if let MateResult::Mate(line) = &r {
        let known = &moves[skip..];
        let same =
            line.len() == known.len() && line.iter().zip(known).all(|(m, k)| m.to_string() == *k);
        println!(
            "line replayed: {}; identical to the known solution: {same}",
            if replays_to_mate(&pos, line) {
                "every attacker move checks, ends in mate"
            } else {
                "INVALID"
            }
        );
    }
    println!(
        "tail {} -> {} in {t:.1}s, {nodes} nodes ({:.0} nps)",
        moves.len() - skip,
        describe(&r),
        nodes as f64 / t.max(1e-3)
    );
    0
}
