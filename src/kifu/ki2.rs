//! KI2 (`.ki2` in Shift_JIS, `.ki2u` in UTF-8): the KIF header, then moves as players write
//! them, several to a line, with no origin squares and no times:
//!
//! ```text
//! ▲７六歩    △８四歩    ▲５六歩    △３四歩
//! ▲５八金右  △同　歩
//! まで98手で後手の勝ち
//! ```

use super::japanese::{mark, move_to_ki2, parse_ki2_move};
use super::kif::{apply_summary, read_lines, summary_text, write_comments, write_header};
use super::{Format, Record, RecordError, Replay};

const MARKS: [char; 6] = ['▲', '△', '☗', '☖', '▼', '▽'];

/// Reads a KI2 record (the main line).
pub fn read(text: &str) -> Result<Record, RecordError> {
    let (mut record, summary) = read_lines(
        text,
        |line| line.trim_start().starts_with(MARKS),
        read_moves,
    )?;
    record.format = Format::Ki2;
    if record.error.is_none() {
        apply_summary(&mut record, summary);
    }
    Ok(record)
}

/// Plays every move of one line, stopping at the first that cannot be read.
fn read_moves(r: &mut Replay, line: &str, no: usize) {
    let starts: Vec<usize> = line.match_indices(MARKS).map(|(i, _)| i).collect();
    for (k, &at) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(line.len());
        let token = line[at..end].trim();
        let ply = r.record.moves.len() + 1;
        let expected = mark(r.pos.side_to_move());
        let given = token.chars().next().unwrap_or(expected);
        let given_black = matches!(given, '▲' | '☗' | '▼');
        if given_black != (expected == '▲') {
            r.fail(
                no,
                format!("move {ply} '{token}' is marked for the side not to move"),
            );
            return;
        }
        match parse_ki2_move(&r.pos, token, r.last_to()) {
            Ok((m, rest)) if rest.trim().is_empty() => {
                r.play(m, None, no, token);
            }
            Ok((_, rest)) => {
                r.fail(
                    no,
                    format!("move {ply} '{token}': unexpected '{}'", rest.trim()),
                );
                return;
            }
            Err(e) => {
                r.fail(no, format!("move {ply}: {e}"));
                return;
            }
        }
    }
}

/// Writes a record as KI2, eight moves to a line; a move with comments ends its line so the
/// comments follow it. `notes` as in [`super::kif::write`].
pub fn write(record: &Record, notes: &[Vec<String>]) -> String {
    let mut s = String::from("# KI2 written by kirin\n");
    s.push_str(&write_header(record));
    write_comments(&mut s, record, notes, 0);
    let mut pos = record.start.clone();
    let mut prev = None;
    let mut on_line = 0;
    for (i, &m) in record.moves.iter().enumerate() {
        let text = format!("{}{}", mark(pos.side_to_move()), move_to_ki2(&pos, m, prev));
        if on_line > 0 {
            s.push(' ');
        }
        s.push_str(&text);
        on_line += 1;
        let has_comments = record.comments.get(i + 1).is_some_and(|c| !c.is_empty())
            || notes.get(i + 1).is_some_and(|c| !c.is_empty());
        if on_line == 8 || has_comments || i + 1 == record.moves.len() {
            s.push('\n');
            on_line = 0;
        }
        write_comments(&mut s, record, notes, i + 1);
        prev = Some(m.to());
        pos.do_move(m);
    }
    if let Some(summary) = summary_text(record) {
        s.push_str(&summary);
        s.push('\n');
    }
    s
}
