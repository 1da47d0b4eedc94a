//! Records in: files, folders and standard input, read into games.

use super::game::Game;
use crate::shogi::Position;
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
/// the order and the output names are the same on every run), `-` for standard input.
pub fn expand(paths: &[String]) -> (Vec<Source>, Vec<String>) {
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p == "-" {
            sources.push(Source::Stdin);
            continue;
        }
        let path = Path::new(p);
        if path.is_dir() {
            walk(path, &mut sources, &mut errors);
        } else {
            sources.push(Source::File(path.to_path_buf()));
        }
    }
    (sources, errors)
}

fn walk(dir: &Path, sources: &mut Vec<Source>, errors: &mut Vec<String>) {
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
            walk(&path, sources, errors);
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

/// Reads USI position lines (`[position] startpos|sfen ... [moves ...]`), one game a line.
pub fn read_usi_lines(text: &str) -> ReadResult {
    let mut result = ReadResult::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match usi_line(line, line_no) {
            Ok(game) => result.games.push(game),
            Err(e) => result.errors.push(e),
        }
    }
    result
}

fn usi_line(line: &str, line_no: usize) -> Result<ReadGame, ReadError> {
    let err = |message: String| ReadError {
        line: line_no,
        message,
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let words = match words.as_slice() {
        ["position", rest @ ..] => rest,
        w => w,
    };
    let (start, rest) = match words {
        ["startpos", rest @ ..] => (Position::startpos(), rest),
        ["sfen", rest @ ..] => {
            let end = rest
                .iter()
                .position(|w| *w == "moves")
                .unwrap_or(rest.len());
            let sfen = rest[..end].join(" ");
            let pos = Position::from_sfen(&sfen).map_err(|e| err(format!("bad sfen: {e}")))?;
            (pos, &rest[end..])
        }
        _ => return Err(err(format!("not a USI position line: `{line}`"))),
    };
    let moves = match rest {
        [] => &[][..],
        ["moves", moves @ ..] => moves,
        [other, ..] => return Err(err(format!("expected `moves`, found `{other}`"))),
    };
    let mut pos = start.clone();
    let mut game = Game {
        start,
        moves: Vec::new(),
        black: None,
        white: None,
        ending: None,
        winner: None,
    };
    let mut error = None;
    for (n, text) in moves.iter().enumerate() {
        match pos.parse_move(text) {
            Ok(m) => {
                pos.do_move(m);
                game.moves.push(m);
            }
            Err(e) => {
                error = Some(err(format!("move {}: {e}", n + 1)));
                break;
            }
        }
    }
    Ok(ReadGame { game, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_lines_keep_the_legal_prefix() {
        let r = read_usi_lines(
            "# comment\nstartpos moves 7g7f 3c3d\n\nposition sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f 2g2f\nnonsense\n",
        );
        assert_eq!(r.games.len(), 2);
        assert_eq!(r.games[0].game.moves.len(), 2);
        assert!(r.games[0].error.is_none());
        assert_eq!(r.games[1].game.moves.len(), 1);
        assert_eq!(r.games[1].error.as_ref().map(|e| e.line), Some(4));
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].line, 5);
    }
}
