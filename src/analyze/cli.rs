//! `kirin analyze` options.

use super::engine::{Budget, SearchSettings};
use super::game::Selection;
use super::score::Marks;
use crate::shogi::Color;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: kirin analyze [OPTIONS] PATH...
  Analyses game records (files, folders searched recursively, `-` for standard input) and
  writes per game DIR/<name>.json, DIR/<name>.kif, DIR/<name>.kifu and DIR/<name>.svg.
options:
  --movetime MS | --nodes N | --depth D   search per position (default --movetime 500)
  --multipv K        lines per position (default 1)
  --threads T        search threads per game (default 1)
  --hash MB          hash table per game (default 64)
  --jobs J           games analysed at once (default: cores / threads)
  --side black|white|both   whose moves to judge (default both)
  --from PLY --to PLY       range of moves to judge
  --out DIR          output folder (default .)
  --format LIST      any of json,kifu,kif,svg,png (default json,kif,kifu,svg;
                     kif is Shift_JIS, kifu UTF-8)
  --marks A,B,C,D    winning-probability loss in percent for inaccuracy, dubious,
                     mistake, blunder (default 5,10,20,50)
  --resume           skip games whose outputs are already complete
  --quiet            no progress bar and no summary tables";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Formats {
    pub json: bool,
    pub kifu: bool,
    pub kif: bool,
    pub svg: bool,
    pub png: bool,
}

impl Formats {
    pub fn parse(text: &str) -> Result<Formats, String> {
        let mut f = Formats::default();
        for word in text.split(',').map(str::trim) {
            match word {
                "json" => f.json = true,
                "kifu" => f.kifu = true,
                "kif" => f.kif = true,
                "svg" => f.svg = true,
                "png" => f.png = true,
                "all" => {
                    f = Formats {
                        json: true,
                        kifu: true,
                        kif: true,
                        svg: true,
                        png: true,
                    }
                }
                other => return Err(format!("unknown format `{other}` in --format")),
            }
        }
        Ok(f)
    }

    /// The file extensions written, in the order they are written (JSON last, so that a game
    /// with its JSON in place has all of its outputs).
    pub fn extensions(&self) -> Vec<&'static str> {
        [
            (self.svg, "svg"),
            (self.png, "png"),
            (self.kifu, "kifu"),
            (self.kif, "kif"),
            (self.json, "json"),
        ]
        .into_iter()
        .filter_map(|(on, ext)| on.then_some(ext))
        .collect()
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub paths: Vec<String>,
    pub settings: SearchSettings,
    pub jobs: usize,
    pub selection: Selection,
    pub out: PathBuf,
    pub formats: Formats,
    pub resume: bool,
    pub quiet: bool,
}

fn number<T: std::str::FromStr>(option: &str, value: &str) -> Result<T, String> {
    value
        .parse::<T>()
        .map_err(|_| format!("{option} wants a number, not `{value}`"))
}

pub fn parse(args: &[&str]) -> Result<Config, String> {
    let mut paths = Vec::new();
    let mut budget = None;
    let mut multipv = 1usize;
    let mut threads = 1usize;
    let mut hash_mb = 64usize;
    let mut jobs = None;
    let mut selection = Selection::default();
    let mut out = PathBuf::from(".");
    // The files scripts rely on: JSON, the annotated record in both KIF encodings (Shift_JIS
    // `.kif` for the GUIs that expect it, UTF-8 `.kifu`), and the graph.
    let mut formats = Formats {
        json: true,
        kif: true,
        kifu: true,
        svg: true,
        ..Formats::default()
    };
    let mut resume = false;
    let mut quiet = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        i += 1;
        if arg == "-" || !arg.starts_with("--") {
            paths.push(arg.to_string());
            continue;
        }
        let (option, inline) = match arg.split_once('=') {
            Some((o, v)) => (o, Some(v)),
            None => (arg, None),
        };
        match option {
            "--resume" => {
                resume = true;
                continue;
            }
            "--quiet" => {
                quiet = true;
                continue;
            }
            "--" => {
                paths.extend(args[i..].iter().map(|s| s.to_string()));
                break;
            }
            _ => {}
        }
        let value = match inline {
            Some(v) => v,
            None => {
                let v = args
                    .get(i)
                    .ok_or_else(|| format!("{option} needs a value"))?;
                i += 1;
                v
            }
        };
        let set_budget = |b: Budget, budget: &mut Option<Budget>| match budget {
            Some(_) => Err("give only one of --movetime, --nodes and --depth".to_string()),
            None => {
                *budget = Some(b);
                Ok(())
            }
        };
        match option {
            "--movetime" => set_budget(Budget::Movetime(number(option, value)?), &mut budget)?,
            "--nodes" => set_budget(Budget::Nodes(number(option, value)?), &mut budget)?,
            "--depth" => set_budget(Budget::Depth(number(option, value)?), &mut budget)?,
            "--multipv" => multipv = number(option, value)?,
            "--threads" => threads = number(option, value)?,
            "--hash" => hash_mb = number(option, value)?,
            "--jobs" => jobs = Some(number(option, value)?),
            "--side" => {
                selection.side = match value {
                    "black" | "b" => Some(Color::Black),
                    "white" | "w" => Some(Color::White),
                    "both" => None,
                    _ => return Err(format!("--side wants black, white or both, not `{value}`")),
                }
            }
            "--from" => selection.from = number(option, value)?,
            "--to" => selection.to = number(option, value)?,
            "--out" => out = PathBuf::from(value),
            "--format" => formats = Formats::parse(value)?,
            "--marks" => selection.marks = Marks::parse(value)?,
            _ => return Err(format!("unknown option {option}")),
        }
    }
    if paths.is_empty() {
        return Err("no input: give files, folders or - for standard input".into());
    }
    if multipv == 0 || threads == 0 || hash_mb == 0 || jobs == Some(0) {
        return Err("--multipv, --threads, --hash and --jobs must be at least 1".into());
    }
    if matches!(
        budget,
        Some(Budget::Movetime(0) | Budget::Nodes(0) | Budget::Depth(0))
    ) {
        return Err("the search limit must be at least 1".into());
    }
    if selection.from > selection.to {
        return Err("--from must not be after --to".into());
    }
    if formats == Formats::default() {
        return Err("--format names no format".into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = jobs.unwrap_or((cores / threads).max(1));
    Ok(Config {
        paths,
        settings: SearchSettings {
            budget: budget.unwrap_or(Budget::Movetime(500)),
            multipv: multipv.min(crate::shogi::MAX_MOVES),
            threads: threads.min(256),
            hash_mb: hash_mb.min(1 << 16),
        },
        jobs: jobs.min(256),
        selection,
        out,
        formats,
        resume,
        quiet,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read() {
        let c = parse(&[
            "--nodes",
            "1000",
            "--multipv=3",
            "--side",
            "white",
            "--from",
            "5",
            "--to",
            "20",
            "--format",
            "json,png",
            "--marks",
            "1,2,3,4",
            "--jobs",
            "1",
            "a.kif",
            "-",
        ])
        .unwrap();
        assert_eq!(c.settings.budget, Budget::Nodes(1000));
        assert_eq!(c.settings.multipv, 3);
        assert_eq!(c.selection.side, Some(Color::White));
        assert_eq!((c.selection.from, c.selection.to), (5, 20));
        assert_eq!(c.formats.extensions(), vec!["png", "json"]);
        assert_eq!(c.paths, vec!["a.kif", "-"]);
        assert_eq!(c.jobs, 1);
    }

    #[test]
    fn bad_options_are_refused() {
        for bad in [
            &["--nodes", "10", "--depth", "3", "x"][..],
            &["--nodes", "ten", "x"],
            &["--side", "red", "x"],
            &["--format", "pdf", "x"],
            &["--threads"],
            &["--nodes", "5"],
            &["--bogus", "x"],
            &["--from", "9", "--to", "3", "x"],
            &["--threads", "0", "x"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
