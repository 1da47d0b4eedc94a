//! `kirin`: the USI engine by default, developer tools as subcommands.

use kirin::engine::{GameEngine, PositionError, VARIANTS, engine_for};
use kirin::game::{Color, RuleOptions};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

const USAGE: &str = "\
usage:
  kirin                        speak USI on stdin/stdout (what GUIs run)
  kirin xboard                 speak XBoard's CECP protocol 2 (also when `xboard` is the
                               first line read); see docs/xboard.md
  kirin perft [--variant V] <depth> [<sfen>]
                               count leaf nodes, per root move
  kirin bench [--variant V] [--eval FILE] [<depth> [<threads>]]
                               search the bench positions (default depth 13, 1 thread);
                               with one thread the node count is the search's signature
                               (V: shogi, the default, yari or dai; FILE: an evaluation
                               file as for the EvalFile option, or linear / nnue, shogi only)
  kirin bench perft            perft speed on two reference positions
  kirin eval [--variant V] [<sfen>]
                               static evaluation (start position by default)
  kirin analyze [OPTIONS] PATH...
                               analyse game records (`kirin analyze --help` for options)
  kirin book ...               opening book tools (`kirin book help`)
  kirin judge [--variant dai] [OPTIONS]
                               dai shogi rules as a line service for referees
                               (`kirin judge --help`)
  kirin --help                 this text

Logs go to stderr; set RUST_LOG=debug for more.";

/// A middle-game position full of drops and captures, known as "matsuri".
const MATSURI: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => {
            kirin::usi::engine::run_stdio();
            ExitCode::SUCCESS
        }
        ["xboard"] => {
            kirin::xboard::run_stdio();
            ExitCode::SUCCESS
        }
        ["perft", rest @ ..] => match variant_arg(rest) {
            Ok((variant, rest)) => perft_command(variant, rest),
            Err(e) => usage_error(&e),
        },
        ["bench", "perft"] => bench_perft(),
        ["bench", "--eval", file, rest @ ..] => bench_search(VARIANTS[0], Some(file), rest),
        ["bench", "--eval"] => usage_error("--eval needs a file"),
        ["bench", rest @ ..] => match variant_arg(rest) {
            Ok((variant, rest)) => bench_search(variant, None, rest),
            Err(e) => usage_error(&e),
        },
        ["eval", rest @ ..] => match variant_arg(rest) {
            Ok((variant, rest)) => eval_command(variant, rest),
            Err(e) => usage_error(&e),
        },
        ["analyze", rest @ ..] => kirin::analyze::main(rest),
        ["book", "help" | "--help" | "-h"] => {
            println!("usage:\n{}", kirin::book::cli::USAGE);
            ExitCode::SUCCESS
        }
        ["book", rest @ ..] => kirin::book::cli::main(rest),
        ["judge", "help" | "--help" | "-h"] => {
            println!("usage:\n{}", kirin::judge::USAGE);
            ExitCode::SUCCESS
        }
        ["judge", rest @ ..] => kirin::judge::main(rest),
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage_error(&format!("unknown arguments: {}", args.join(" "))),
    }
}

/// A leading `--variant NAME` (`yari` and `dai` are short for `yarishogi` and `daishogi`: a
/// game's name without its `shogi`), and the arguments after it.
fn variant_arg<'a, 'b>(args: &'a [&'b str]) -> Result<(&'static str, &'a [&'b str]), String> {
    match args {
        ["--variant", name, rest @ ..] => {
            let short = |v: &str| {
                v.strip_suffix("shogi")
                    .is_some_and(|s| !s.is_empty() && s.eq_ignore_ascii_case(name))
            };
            match VARIANTS
                .into_iter()
                .find(|v| v.eq_ignore_ascii_case(name) || short(v))
            {
                Some(v) => Ok((v, rest)),
                None => Err(format!(
                    "unknown variant `{name}` (known: {})",
                    VARIANTS.join(", ")
                )),
            }
        }
        ["--variant"] => Err("--variant needs a name".into()),
        rest => Ok((VARIANTS[0], rest)),
    }
}

/// The engine of `variant`, one of [`VARIANTS`].
fn engine(variant: &str) -> Box<dyn GameEngine> {
    engine_for(variant).unwrap_or_else(|| panic!("{variant} is not among {VARIANTS:?}"))
}

/// `eval_file` replaces the game's default evaluation (standard shogi's only).
fn bench_search(variant: &str, eval_file: Option<&str>, args: &[&str]) -> ExitCode {
    let number = |i: usize, default: usize| match args.get(i) {
        None => Ok(default),
        Some(s) => s.parse::<usize>().map_err(|_| format!("not a number: {s}")),
    };
    let mut engine = engine(variant);
    if let Some(file) = eval_file
        && let Some(Err(e)) = engine.load_eval_file(file, file)
    {
        return usage_error(&e);
    }
    let (depth, threads) = match (number(0, 13), number(1, 1)) {
        (Ok(d), Ok(t)) if d >= 1 && t >= 1 => (d, t),
        (Err(e), _) | (_, Err(e)) => return usage_error(&e),
        _ => return usage_error("depth and threads must be at least 1"),
    };
    let (depth, threads) = (depth.min(64) as u32, threads.min(256));
    let r = engine.bench(depth, threads, 64);
    let ms = r.elapsed.as_millis().max(1) as u64;
    println!("Nodes searched: {}", r.nodes);
    println!("Nodes/second: {}", r.nodes * 1000 / ms);
    println!("Time (ms): {ms}");
    ExitCode::SUCCESS
}

fn usage_error(why: &str) -> ExitCode {
    eprintln!("kirin: {why}\n{USAGE}");
    ExitCode::from(2)
}

/// The SFEN in command-line words, `None` for the start position (no words); a leading `sfen`
/// is allowed so a USI `position` argument can be pasted as is.
fn sfen_from_args(words: &[&str]) -> Option<String> {
    match words {
        ["sfen", rest @ ..] => Some(rest.join(" ")),
        ["startpos"] | [] => None,
        words => Some(words.join(" ")),
    }
}

/// The engine of `variant` at the position in command-line words, under the game's own default
/// rules (`kirin perft` counts as the perft tables do).
fn engine_at(variant: &str, words: &[&str]) -> Result<Box<dyn GameEngine>, String> {
    let mut engine = engine(variant);
    match engine.set_position(
        sfen_from_args(words).as_deref(),
        &[],
        &RuleOptions::default(),
    ) {
        Ok(()) => Ok(engine),
        Err(PositionError::Sfen(e) | PositionError::Move { error: e, .. }) => {
            Err(format!("bad sfen: {e}"))
        }
    }
}

/// Counts the leaves `depth` plies below the engine's position, calling `each` per root move;
/// returns the total.
fn perft(engine: &mut dyn GameEngine, depth: u32, each: &mut dyn FnMut(&str, u64)) -> u64 {
    let mut total = 0;
    engine.divide(depth, &AtomicBool::new(false), &mut |m, n| {
        each(m, n);
        total += n;
    });
    total
}

fn perft_command(variant: &str, args: &[&str]) -> ExitCode {
    let depth = match args.first() {
        None => 1,
        Some(depth) => match depth.parse::<u32>() {
            Ok(depth) => depth,
            Err(_) => return usage_error(&format!("bad perft depth `{depth}`")),
        },
    };
    let words = args.get(1..).unwrap_or_default();
    let t = Instant::now();
    let mut engine = match engine_at(variant, words) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let total = perft(&mut *engine, depth, &mut |m, n| println!("{m}: {n}"));
    println!("Nodes searched: {total}");
    eprintln!("{:.3}s", t.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// Perft speed of the default game on its start position and on [`MATSURI`].
fn bench_perft() -> ExitCode {
    let cases = [("startpos", "startpos", 6), ("matsuri", MATSURI, 4)];
    for (name, sfen, depth) in cases {
        let mut engine = match engine_at(VARIANTS[0], &[sfen]) {
            Ok(engine) => engine,
            Err(e) => {
                eprintln!("{name}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let t = Instant::now();
        let nodes = perft(&mut *engine, depth, &mut |_, _| {});
        let elapsed = t.elapsed();
        let ms = elapsed.as_millis();
        let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-9)) as u64;
        println!("{name} depth {depth}: {nodes} nodes {ms} ms {nps} nps");
    }
    ExitCode::SUCCESS
}

/// The evaluation's terms, then its value from the side to move's and from Black's view.
fn eval_command(variant: &str, sfen: &[&str]) -> ExitCode {
    let engine = match engine_at(variant, sfen) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let Some(explained) = engine.explain() else {
        eprintln!("kirin eval: {variant} has no evaluation breakdown");
        return ExitCode::from(2);
    };
    let cp = explained.value;
    let black = if engine.side_to_move() == Color::Black {
        cp
    } else {
        -cp
    };
    for (part, value) in explained.parts {
        println!("{part:>24} {value:>7}");
    }
    println!("eval {cp} (side to move), {black} (Black's view)");
    ExitCode::SUCCESS
}
