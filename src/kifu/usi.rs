//! USI position lines: `startpos moves 7g7f 3c3d`, `sfen <board> <side> <hands> [ply] moves ...`,
//! with or without the `position` command word; one game a line.

use super::{Ending, Format, Record, RecordError, Replay};
use crate::shogi::{Position, START_SFEN};

/// Reads one game per non-empty line (`#` starts a comment line).
pub fn read(text: &str) -> Result<Vec<Record>, RecordError> {
    let games = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(n, l)| read_line(l, n))
        .collect();
    super::collect_games(games, Format::Usi)
}

/// Reads one position line; `line_no` is used in errors.
pub fn read_line(line: &str, line_no: usize) -> Result<Record, RecordError> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&"position") {
        words.remove(0);
    }
    let moves_at = words.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (&words[..], &[][..]),
    };
    let start = match setup {
        ["startpos"] => Position::startpos(),
        ["sfen", fields @ ..] => Position::from_sfen(&fields.join(" "))
            .map_err(|e| RecordError::new(line_no, format!("bad SFEN: {e}")))?,
        _ => {
            return Err(RecordError::new(
                line_no,
                format!(
                    "expected 'startpos' or 'sfen ...', found '{}'",
                    setup.join(" ").escape_default()
                ),
            ));
        }
    };
    let mut replay = Replay::new(start, Format::Usi);
    for &text in moves {
        match replay.pos.parse_move(text) {
            Ok(m) => {
                replay.play(m, None, line_no, text);
            }
            Err(e) => {
                replay.fail(
                    line_no,
                    format!("move {}: {e}", replay.record.moves.len() + 1),
                );
                break;
            }
        }
    }
    // A USI line carries no result, but a game that ends in mate says so by itself.
    let mated = replay.pos.is_mated();
    let mut record = replay.finish();
    if mated && record.error.is_none() {
        record.set_ending(Ending::Mate);
    }
    Ok(record)
}

/// `startpos moves ...` or `sfen ... moves ...`, one line with a newline.
pub fn write(record: &Record) -> String {
    let sfen = record.start.to_sfen();
    let mut s = if sfen == START_SFEN {
        "startpos".to_string()
    } else {
        format!("sfen {sfen}")
    };
    if !record.moves.is_empty() {
        s.push_str(" moves");
        for m in &record.moves {
            s.push(' ');
            s.push_str(&m.to_string());
        }
    }
    s.push('\n');
    s
}
