//! Records in: files, folders and standard input, read into games.

use super::game::Game;
use crate::kifu::Record;
use std::path::{Path, PathBuf};

/// Why (part of) an input could not be read: 1-based line, 0 when it belongs to no line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub line: usize,
    pub message: String,
}

/// One game of an input, with the error that cut it short if any (the legal moves before the
/// error are kept).
#[derive(Clone, Debug)]
pub struct ReadGame {
    pub game: Game,
    /// The record as read, for the annotated copy.
    pub record: Record,
    pub error: Option<ReadError>,
}

/// An input's games, and the errors that lost whole games.
#[derive(Debug, Default)]
pub struct ReadResult {
    pub games: Vec<ReadGame>,
    pub errors: Vec<ReadError>,
}

/// Where games come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
}

impl Source {
    pub fn display(&self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Stdin => "-".to_string(),
        }
    }

    /// The output name: the file's name without its extension.
    pub fn stem(&self) -> String {
        match self {
            Source::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "game".to_string()),
            Source::Stdin => "stdin".to_string(),
        }
    }
}

/// Extensions of record files looked for in folders.
const RECORD_EXTENSIONS: [&str; 9] = [
    "kif", "kifu", "ki2", "ki2u", "csa", "usi", "sfen", "jkf", "json",
];

/// Expands the command line's paths: files as given, folders walked recursively (sorted, so
/// the order and the output names are the same on every run), `-` for standard input. A folder
/// met on the walk that is `skip` (the output folder) is left out, so that earlier outputs are
/// not read back as records.
pub fn expand(paths: &[String], skip: &Path) -> (Vec<Source>, Vec<String>) {
    let skip = std::fs::canonicalize(skip).ok();
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p == "-" {
            sources.push(Source::Stdin);
            continue;
        }
        let path = Path::new(p);
        if path.is_dir() {
            walk(path, skip.as_deref(), &mut sources, &mut errors);
        } else {
            sources.push(Source::File(path.to_path_buf()));
        }
    }
    (sources, errors)
}

fn walk(dir: &Path, skip: Option<&Path>, sources: &mut Vec<Source>, errors: &mut Vec<String>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(format!("{}: cannot read folder: {e}", dir.display()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if skip.is_none() || std::fs::canonicalize(&path).ok().as_deref() != skip {
                walk(&path, skip, sources, errors);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| RECORD_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            sources.push(Source::File(path));
        }
    }
}

/// Reads a source's bytes.
pub fn read_source(source: &Source) -> Result<Vec<u8>, String> {
    match source {
        Source::File(p) => std::fs::read(p).map_err(|e| format!("cannot read: {e}")),
        Source::Stdin => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(bytes)
        }
    }
}
