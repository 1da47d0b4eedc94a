//! Many games at once: read every input, analyse the games on a pool of `--jobs` threads, write
//! each game's outputs atomically (temporary file, then rename), and report errors per file.

use super::cli::Config;
use super::engine::{Analyst, Interrupt};
use super::game::{GameAnalysis, analyse, result_text};
use super::input::{ReadGame, Source, expand, read_source};
use super::{graph, json, kif, summary};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One game to analyse.
struct Job {
    source: Source,
    /// 1-based within its source.
    index: usize,
    name: String,
    read: ReadGame,
}

/// Exit status after Ctrl-C, as shells report SIGINT.
const INTERRUPTED_STATUS: u8 = 130;

fn report_error(source: &str, line: usize, message: &str) {
    if line == 0 {
        eprintln!("kirin analyze: {source}: {message}");
    } else {
        eprintln!("kirin analyze: {source}:{line}: {message}");
    }
}

/// Gives each game its output name: the file's stem, `-2`, `-3`, ... for further games of one
/// file, and `_2`, `_3`, ... on the stem when two inputs share one.
fn name_jobs(inputs: Vec<(Source, Vec<ReadGame>)>) -> Vec<Job> {
    let mut used = HashSet::new();
    let mut jobs = Vec::new();
    for (source, games) in inputs {
        let stem = source.stem();
        let mut base = stem.clone();
        let mut k = 2;
        while used.contains(&base) {
            base = format!("{stem}_{k}");
            k += 1;
        }
        used.insert(base.clone());
        for (i, read) in games.into_iter().enumerate() {
            let name = if i == 0 {
                base.clone()
            } else {
                format!("{base}-{}", i + 1)
            };
            used.insert(name.clone());
            jobs.push(Job {
                source: source.clone(),
                index: i + 1,
                name,
                read,
            });
        }
    }
    jobs
}

fn output_path(out: &Path, name: &str, ext: &str) -> PathBuf {
    out.join(format!("{name}.{ext}"))
}

/// Writes `bytes` so that the file is either absent or complete, whenever the program stops.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn complete(config: &Config, name: &str) -> bool {
    config
        .formats
        .extensions()
        .iter()
        .all(|ext| output_path(&config.out, name, ext).is_file())
}

/// Every output of one analysed game, written in `Formats::extensions` order.
fn write_outputs(config: &Config, job: &Job, analysis: &GameAnalysis) -> Result<(), String> {
    let game = &job.read.game;
    let result = result_text(game);
    let title = format!(
        "{}: {} vs {} — {}",
        job.name,
        game.black.as_deref().unwrap_or("Black"),
        game.white.as_deref().unwrap_or("White"),
        result
    );
    for ext in config.formats.extensions() {
        let bytes = match ext {
            "svg" => graph::svg(&title, &analysis.moves, &analysis.turning_points).into_bytes(),
            "png" => graph::png(&analysis.moves, &analysis.turning_points)?,
            "kifu" => kif::annotated(&job.read.record, analysis, kif::Encoding::Utf8)?,
            "kif" => kif::annotated(&job.read.record, analysis, kif::Encoding::ShiftJis)?,
            _ => {
                let ctx = json::Context {
                    name: &job.name,
                    source: &job.source.display(),
                    index: job.index,
                    error: job.read.error.as_ref().map(|e| {
                        if e.line == 0 {
                            e.message.clone()
                        } else {
                            format!("line {}: {}", e.line, e.message)
                        }
                    }),
                    settings: &config.settings,
                    marks: &config.selection.marks,
                };
                json::to_json(&json::report(&ctx, game, analysis)).into_bytes()
            }
        };
        let path = output_path(&config.out, &job.name, ext);
        if let Source::File(input) = &job.source
            && same_file(input, &path)
        {
            return Err(format!(
                "{} would overwrite the input; choose another --out",
                path.display()
            ));
        }
        write_atomically(&path, &bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

pub fn run(config: &Config) -> ExitCode {
    let interrupt = Arc::new(Interrupt::default());
    {
        let interrupt = Arc::clone(&interrupt);
        // Without a handler Ctrl-C still stops the program, and the atomic writes still
        // leave only complete files; the handler just lets running games stop cleanly.
        // A second Ctrl-C ends the program at once (say, while it waits on standard input);
        // the atomic writes still leave only complete files.
        let handler = move || {
            if interrupt.interrupted() {
                std::process::exit(i32::from(INTERRUPTED_STATUS));
            }
            interrupt.interrupt();
        };
        if let Err(e) = ctrlc::set_handler(handler) {
            log::warn!("cannot handle Ctrl-C: {e}");
        }
    }
    let failed = AtomicBool::new(false);
    let (sources, errors) = expand(&config.paths, &config.out);
    for e in errors {
        eprintln!("kirin analyze: {e}");
        failed.store(true, Ordering::Relaxed);
    }
    let mut inputs = Vec::new();
    for source in sources {
        if interrupt.interrupted() {
            return exit_status(&failed, &interrupt);
        }
        let name = source.display();
        let read = match read_source(&source) {
            Ok(bytes) => kif::read_records(&bytes, &name),
            Err(e) => {
                report_error(&name, 0, &e);
                failed.store(true, Ordering::Relaxed);
                continue;
            }
        };
        for e in &read.errors {
            report_error(&name, e.line, &e.message);
            failed.store(true, Ordering::Relaxed);
        }
        for g in &read.games {
            if let Some(e) = &g.error {
                report_error(&name, e.line, &e.message);
                failed.store(true, Ordering::Relaxed);
            }
        }
        inputs.push((source, read.games));
    }
    let mut jobs = name_jobs(inputs);
    if config.resume {
        jobs.retain(|job| !complete(config, &job.name));
    }
    if jobs.is_empty() {
        return exit_status(&failed, &interrupt);
    }
    if let Err(e) = std::fs::create_dir_all(&config.out) {
        eprintln!("kirin analyze: cannot create {}: {e}", config.out.display());
        return ExitCode::FAILURE;
    }

    let total: usize = jobs
        .iter()
        .map(|j| j.read.game.positions_to_search(&config.selection).len())
        .sum();
    let bar = progress_bar(config, total as u64);
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.min(jobs.len()).max(1))
        // The search recurses deeply on the thread that calls it.
        .stack_size(64 << 20)
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("kirin analyze: cannot start threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    pool.install(|| {
        jobs.par_iter().with_max_len(1).for_each(|job| {
            if interrupt.interrupted() {
                return;
            }
            let mut analyst = Analyst::new(&config.settings);
            let mut tick = || {
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
            };
            let Some(analysis) = analyse(
                &job.read.game,
                &config.selection,
                &mut analyst,
                &interrupt,
                &mut tick,
            ) else {
                return;
            };
            if let Err(e) = write_outputs(config, job, &analysis) {
                eprintln!("kirin analyze: {}: {e}", job.name);
                failed.store(true, Ordering::Relaxed);
                return;
            }
            if !config.quiet {
                let result = result_text(&job.read.game);
                let table = summary::table(&job.name, &job.read.game, &analysis, &result);
                let print = || {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(table.as_bytes());
                    let _ = out.flush();
                };
                match &bar {
                    Some(bar) => bar.suspend(print),
                    None => print(),
                }
            }
        });
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    exit_status(&failed, &interrupt)
}

fn progress_bar(config: &Config, total: u64) -> Option<ProgressBar> {
    if config.quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} positions  eta {eta}") {
        bar.set_style(style);
    }
    Some(bar)
}

fn exit_status(failed: &AtomicBool, interrupt: &Interrupt) -> ExitCode {
    if interrupt.interrupted() {
        eprintln!("kirin analyze: interrupted; finished games are complete");
        ExitCode::from(INTERRUPTED_STATUS)
    } else if failed.load(Ordering::Relaxed) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
