//! `kirin book ...`: the command-line tools that make, combine and inspect books.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use super::build::{self, GameRecord, RecordParams};
use super::think::{self, ThinkParams};
use super::{Book, FileBook, Source, split_ply};
use crate::shogi::{Color, Position};

pub const USAGE: &str = "\
  kirin book think --out <book> [--nodes N] [--movetime MS] [--multipv K] [--positions N]
                   [--max-ply P] [--expand-diff CP] [--width W] [--ply-cost CP] [--hash MB]
                   [--roots <file of startpos/sfen lines>]
                               grow a book best-first by kirin's own MultiPV analysis;
                               continues a book already at <book>
  kirin book build-records <file or folder>... --out <book> [--min-count N] [--max-ply P]
                   [--side black|white|winner]
                               count the moves of game records (KIF, KI2, CSA, JKF, or
                               USI/SFEN lines one game each); winner: only the winner's moves
  kirin book merge <book>... --out <book>
                               several books (or one unsorted book) into one sorted book
  kirin book minimax <book> --out <book> [--draw CP]
                               propagate values through the book graph by negamax
  kirin book check <book>      read a book and report bad lines and sort order
  kirin book probe <book> [--on-the-fly] [startpos|sfen ...] [moves ...]
                               the book moves of a position
  kirin book bench <book> [--on-the-fly] [--probes N]
                               microseconds per lookup over the book's own positions";

/// Flags (`--name value`, or `--name` alone for switches) and the other words, in order.
struct Args<'a> {
    flags: Vec<(&'a str, Option<&'a str>)>,
    words: Vec<&'a str>,
}

const SWITCHES: [&str; 1] = ["--on-the-fly"];

impl<'a> Args<'a> {
    fn parse(args: &[&'a str]) -> Args<'a> {
        let mut flags = Vec::new();
        let mut words = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i];
            if a.starts_with("--") && !SWITCHES.contains(&a) {
                flags.push((a, args.get(i + 1).copied()));
                i += 2;
            } else if a.starts_with("--") {
                flags.push((a, None));
                i += 1;
            } else {
                words.push(a);
                i += 1;
            }
        }
        Args { flags, words }
    }

    fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| *n == name)
    }

    fn text(&self, name: &str) -> Result<Option<&'a str>, String> {
        match self.flags.iter().rev().find(|(n, _)| *n == name) {
            None => Ok(None),
            Some((_, Some(v))) => Ok(Some(v)),
            Some((_, None)) => Err(format!("{name} needs a value")),
        }
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.text(name)? {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name}: not a number: {v}")),
        }
    }

    fn check(&self, known: &[&str]) -> Result<(), String> {
        for (name, _) in &self.flags {
            if !known.contains(name) {
                return Err(format!("unknown option {name}"));
            }
        }
        Ok(())
    }

    fn out(&self) -> Result<PathBuf, String> {
        self.text("--out")?
            .map(PathBuf::from)
            .ok_or_else(|| "--out <book> is required".to_string())
    }
}

/// Runs `kirin book <args>`.
pub fn main(args: &[&str]) -> ExitCode {
    let result = match args {
        ["think", rest @ ..] => think_command(&Args::parse(rest)),
        ["build-records", rest @ ..] => records_command(&Args::parse(rest)),
        ["merge", rest @ ..] => merge_command(&Args::parse(rest)),
        ["minimax", rest @ ..] => minimax_command(&Args::parse(rest)),
        ["check", rest @ ..] => check_command(&Args::parse(rest)),
        ["probe", rest @ ..] => probe_command(&Args::parse(rest)),
        ["bench", rest @ ..] => bench_command(&Args::parse(rest)),
        _ => Err(format!("unknown book command\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kirin book: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads a whole book; bad lines are reported on stderr and left out.
fn load(path: &Path) -> Result<Book, String> {
    let (book, problems) = Book::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for p in &problems {
        eprintln!("{}: {p}", path.display());
    }
    Ok(book)
}

fn save(book: &Book, path: &Path) -> Result<(), String> {
    book.save(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("{}: {} positions", path.display(), book.len());
    Ok(())
}

fn think_command(args: &Args) -> Result<(), String> {
    args.check(&[
        "--out",
        "--nodes",
        "--movetime",
        "--multipv",
        "--positions",
        "--max-ply",
        "--expand-diff",
        "--width",
        "--ply-cost",
        "--hash",
        "--roots",
    ])?;
    let out = args.out()?;
    let d = ThinkParams::default();
    let movetime_ms = args.number("--movetime", 0)?;
    let params = ThinkParams {
        // A time limit alone means no node limit.
        nodes: args.number("--nodes", if movetime_ms > 0 { 0 } else { d.nodes })?,
        movetime_ms,
        multipv: args.number("--multipv", d.multipv)?,
        positions: args.number("--positions", d.positions)?,
        max_ply: args.number("--max-ply", d.max_ply)?,
        expand_diff: args.number("--expand-diff", d.expand_diff)?,
        width: args.number("--width", d.width)?,
        ply_cost: args.number("--ply-cost", d.ply_cost)?,
        hash_mb: args.number("--hash", d.hash_mb)?,
        save_every: d.save_every,
    };
    let roots = think::roots_from(args.text("--roots")?.map(Path::new))?;
    let mut book = if out.exists() {
        load(&out)?
    } else {
        Book::new()
    };
    let started = Instant::now();
    let mut failed = None;
    let analysed = think::expand(&roots, &mut book, &params, &mut |b| {
        if let Err(e) = b.save(&out) {
            failed = Some(format!("cannot write {}: {e}", out.display()));
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    eprintln!(
        "{analysed} positions analysed in {:.0} s; {}: {} positions",
        started.elapsed().as_secs_f64(),
        out.display(),
        book.len()
    );
    Ok(())
}

/// The games of a records file: USI/SFEN lines, or a game record format the kifu reader
/// knows.
fn games_of(path: &Path) -> Result<Vec<GameRecord>, String> {
    build::read_games(path)
}

fn records_command(args: &Args) -> Result<(), String> {
    args.check(&["--out", "--min-count", "--max-ply", "--side"])?;
    let out = args.out()?;
    let d = RecordParams::default();
    let (side, winner_only) = match args.text("--side")? {
        None | Some("both") => (None, false),
        Some("black") => (Some(Color::Black), false),
        Some("white") => (Some(Color::White), false),
        Some("winner") => (None, true),
        Some(other) => return Err(format!("--side: black, white, winner or both, not {other}")),
    };
    let params = RecordParams {
        min_count: args.number("--min-count", d.min_count)?,
        max_ply: args.number("--max-ply", d.max_ply)?,
        side,
        winner_only,
    };
    if args.words.is_empty() {
        return Err("no records given".into());
    }
    let mut games = Vec::new();
    for word in &args.words {
        let files = build::files_under(Path::new(word)).map_err(|e| format!("{word}: {e}"))?;
        for file in files {
            match games_of(&file) {
                Ok(g) => games.extend(g),
                // One bad file costs its games, not the build.
                Err(e) => eprintln!("skipped {e}"),
            }
        }
    }
    eprintln!("{} games", games.len());
    save(&build::from_records(&games, &params), &out)
}

fn merge_command(args: &Args) -> Result<(), String> {
    args.check(&["--out"])?;
    let out = args.out()?;
    if args.words.is_empty() {
        return Err("no books given".into());
    }
    let books = args
        .words
        .iter()
        .map(|w| load(Path::new(w)))
        .collect::<Result<Vec<_>, _>>()?;
    save(&build::merge(&books), &out)
}

fn minimax_command(args: &Args) -> Result<(), String> {
    args.check(&["--out", "--draw"])?;
    let out = args.out()?;
    let [input] = args.words.as_slice() else {
        return Err("minimax takes one book".into());
    };
    let book = load(Path::new(input))?;
    save(&build::minimax(&book, args.number("--draw", 0)?), &out)
}

fn check_command(args: &Args) -> Result<(), String> {
    args.check(&[])?;
    let [input] = args.words.as_slice() else {
        return Err("check takes one book".into());
    };
    let path = Path::new(input);
    let (book, problems) = Book::read(path).map_err(|e| format!("{input}: {e}"))?;
    for p in &problems {
        println!("{input}: {p}");
    }
    let sorted = FileBook::open(path)
        .map_err(|e| format!("{input}: {e}"))?
        .check_sorted();
    match &sorted {
        Ok(()) => println!("{input}: {} positions, sorted", book.len()),
        Err(e) => println!("{e}"),
    }
    if problems.is_empty() && sorted.is_ok() {
        Ok(())
    } else {
        Err(format!("{input} has problems"))
    }
}

fn open_source(path: &Path, on_the_fly: bool) -> Result<Source, String> {
    if on_the_fly {
        FileBook::open(path)
            .map(Source::File)
            .map_err(|e| format!("{}: {e}", path.display()))
    } else {
        load(path).map(Source::Memory)
    }
}

fn probe_command(args: &Args) -> Result<(), String> {
    args.check(&["--on-the-fly"])?;
    let Some((input, position)) = args.words.split_first() else {
        return Err("probe takes a book and a position".into());
    };
    let mut source = open_source(Path::new(input), args.has("--on-the-fly"))?;
    let line = if position.is_empty() {
        "startpos".to_string()
    } else {
        position.join(" ")
    };
    let game = build::parse_usi_game(&line)?;
    let mut pos = game.start.clone();
    for &m in &game.moves {
        pos.do_move(m);
    }
    let found = source.find(&pos, false);
    for p in &found.problems {
        eprintln!("{p}");
    }
    if found.mirrored {
        println!("(from the mirror image)");
    }
    for m in &found.moves {
        let mut text = Vec::new();
        let _ = super::format::write_move(m, &mut text);
        print!("{}", String::from_utf8_lossy(&text));
    }
    Ok(())
}

/// Every `sfen` line of a book file, read as text, for sampling positions.
fn positions_of(path: &Path) -> Result<Vec<Position>, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        if let Some(rest) = line.strip_prefix(b"sfen ") {
            let text = String::from_utf8_lossy(rest);
            if let Ok(pos) = Position::from_sfen(split_ply(&text).0) {
                out.push(pos);
            }
        }
    }
    Ok(out)
}

fn bench_command(args: &Args) -> Result<(), String> {
    args.check(&["--on-the-fly", "--probes"])?;
    let [input] = args.words.as_slice() else {
        return Err("bench takes one book".into());
    };
    let path = Path::new(input);
    let probes: usize = args.number("--probes", 10_000)?;
    let load_start = Instant::now();
    let mut source = open_source(path, args.has("--on-the-fly"))?;
    let load_ms = load_start.elapsed().as_millis();
    let all = positions_of(path)?;
    if all.is_empty() {
        return Err(format!("{input} has no positions"));
    }
    // Spread the probes over the whole file, so on-disk lookups do not hit one cached page.
    let step = (all.len() / probes.max(1)).max(1);
    let sample: Vec<&Position> = all.iter().step_by(step).take(probes).collect();
    let t = Instant::now();
    let mut hits = 0;
    for pos in &sample {
        if !source.find(pos, false).moves.is_empty() {
            hits += 1;
        }
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / sample.len() as f64;
    println!(
        "{input}: {} positions, loaded in {load_ms} ms; {} probes, {hits} hits, {us:.2} us per probe",
        all.len(),
        sample.len()
    );
    Ok(())
}
