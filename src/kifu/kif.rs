//! KIF (`.kif` in Shift_JIS, `.kifu` in UTF-8), the format of Kifu for Windows and most GUIs:
//!
//! ```text
//! 手合割：平手
//! 先手：羽生善治
//! 後手：木村一基
//! 手数----指手---------消費時間--
//! *a comment before the first move
//!    1 ７六歩(77)   ( 0:02/00:00:02)
//!    2 ３四歩(33)   ( 0:05/00:00:05)
//!    3 投了         ( 0:10/00:00:12)
//! まで2手で後手の勝ち
//! ```
//!
//! Variations (`変化：N手` and everything after) are skipped: the main line comes first.

use super::bod::{Header, handicap_name, write_diagram};
use super::japanese::{move_to_kif, parse_kif_move};
use super::{Ending, Format, Record, RecordError, Replay, split_lines};
use crate::shogi::{Color, Position};

/// Whether a line is a numbered KIF move line (`   1 ７六歩(77)`).
pub fn is_move_line(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.bytes().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && t[digits..].starts_with([' ', '\u{3000}'])
}

/// Reads a KIF record (the main line).
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut ended = false;
    let (mut record, summary) = read_lines(text, is_move_line, |r, line, no| {
        ended = ended || read_move_line(r, line, no);
    })?;
    if record.error.is_none() && record.ending == Ending::Unknown {
        apply_summary(&mut record, summary);
    }
    Ok(record)
}

/// How a `まで` line says the game ended: the ending and, where it names one, the winner.
pub(crate) type Summary = (Ending, Option<Color>);

/// The lines of a KIF or KI2 record, which differ only in how they write moves: `*` comments
/// (those before the first move go to the start), the `まで` summary, the header up to the first
/// move, and `変化` where the main line ends. `read_moves` reads each line `is_move` picks out,
/// until the replay fails.
pub(crate) fn read_lines(
    text: &str,
    is_move: impl Fn(&str) -> bool,
    mut read_moves: impl FnMut(&mut Replay, &str, usize),
) -> Result<(Record, Option<Summary>), RecordError> {
    let mut header = Header::default();
    let mut replay: Option<Replay> = None;
    let mut early_comments = Vec::new();
    let mut summary: Option<Summary> = None;
    for (i, raw) in split_lines(text).into_iter().enumerate() {
        let no = i + 1;
        let line = raw.trim_end();
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with('&') {
            continue;
        }
        if line.starts_with("変化") {
            break;
        }
        if let Some(c) = line.strip_prefix('*') {
            match replay.as_mut() {
                Some(r) => r.comment(c),
                None => early_comments.push(c.to_string()),
            }
            continue;
        }
        if is_move(line) {
            let r = match replay.as_mut() {
                Some(r) => r,
                None => replay.insert(begin(&header, &mut early_comments)?),
            };
            if !r.failed() {
                read_moves(r, line, no);
            }
            continue;
        }
        if line.starts_with("まで") {
            summary = summary.or(read_summary(line));
            continue;
        }
        if replay.is_none() {
            header.take(line, no)?;
        }
    }
    let replay = match replay {
        Some(r) => r,
        None => begin(&header, &mut early_comments)?,
    };
    Ok((finish(replay, header), summary))
}

/// Plays the move of a numbered move line, or ends the game where it holds a special move (which
/// it says by returning true: the lines after it are not moves of the game).
fn read_move_line(r: &mut Replay, line: &str, no: usize) -> bool {
    let body = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let body = body.trim_start_matches([' ', '\u{3000}']);
    if let Some((ending, winner_is_mover)) = ending_word(body) {
        r.record.normalise();
        r.record.set_ending(ending);
        if let Some(w) = winner_is_mover {
            let to_move = r.record.side_to_move_at_end();
            r.record.winner = Some(if w { to_move } else { !to_move });
        }
        return true;
    }
    match parse_kif_move(&r.pos, body, r.last_to()) {
        Ok((m, rest)) => {
            let move_text = body[..body.len() - rest.len()].trim_end();
            r.play(m, parse_time(rest), no, move_text);
        }
        Err(e) => r.fail(no, format!("move {}: {e}", r.record.moves.len() + 1)),
    }
    false
}

/// The replay starting at the header's position, with the comments read so far.
fn begin(header: &Header, comments: &mut Vec<String>) -> Result<Replay, RecordError> {
    let mut r = Replay::new(header.start()?, Format::Kif);
    for c in comments.drain(..) {
        r.comment(c);
    }
    Ok(r)
}

fn finish(replay: Replay, header: Header) -> Record {
    let mut record = replay.finish();
    record.headers = header.headers;
    record.black = header.black;
    record.white = header.white;
    record
}

/// A special move in the move column, with whether the side to move (`Some(true)`) or the other
/// side wins, where that differs from what [`Record::set_ending`] assumes.
fn ending_word(body: &str) -> Option<(Ending, Option<bool>)> {
    let word = body.split([' ', '\u{3000}', '(']).next().unwrap_or("");
    Some(match word {
        "投了" => (Ending::Resign, None),
        "詰み" | "詰" => (Ending::Mate, None),
        "中断" | "封じ手" => (Ending::Interrupted, None),
        "千日手" => (Ending::Sennichite, None),
        "連続王手の千日手" => (Ending::PerpetualCheck, None),
        "持将棋" => (Ending::Jishogi, None),
        "切れ負け" | "時間切れ" => (Ending::TimeUp, None),
        "反則勝ち" => (Ending::IllegalMove, Some(true)),
        "反則負け" => (Ending::IllegalMove, Some(false)),
        "入玉勝ち" | "宣言勝ち" => (Ending::EnteringKing, None),
        "不詰" => (Ending::NoMate, None),
        "引き分け" => (Ending::Draw, None),
        "最大手数" => (Ending::MaxMoves, None),
        "待った" => (Ending::Matta, None),
        _ => return None,
    })
}

/// Reads `まで98手で後手の勝ち`, `まで3手で中断`, `まで7手詰`: the ending and the winner.
fn read_summary(line: &str) -> Option<(Ending, Option<Color>)> {
    let rest = line.trim().strip_prefix("まで")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c));
    let rest = rest.strip_prefix('手')?.trim_start_matches('で');
    let side = side_named(rest);
    let time_up = rest.contains("時間切れ") || rest.contains("切れ負け");
    Some(if time_up {
        // `時間切れにより先手の勝ち`: the side named is the winner.
        let after = rest.split("により").nth(1).unwrap_or(rest);
        (Ending::TimeUp, side_named(after).or(side))
    } else if rest.starts_with('詰') || rest.starts_with("詰み") {
        (Ending::Mate, None)
    } else if rest.contains("反則負け") {
        (Ending::IllegalMove, side.map(|c| !c))
    } else if rest.contains("反則勝ち") {
        (Ending::IllegalMove, side)
    } else if rest.contains("入玉勝ち") || rest.contains("宣言勝ち") {
        (Ending::EnteringKing, side)
    } else if rest.contains("勝ち") {
        (Ending::Resign, side)
    } else if rest.contains("連続王手") {
        (Ending::PerpetualCheck, None)
    } else if rest.starts_with("千日手") {
        (Ending::Sennichite, None)
    } else if rest.starts_with("持将棋") {
        (Ending::Jishogi, None)
    } else if rest.starts_with("中断") {
        (Ending::Interrupted, None)
    } else if rest.starts_with("引き分け") {
        (Ending::Draw, None)
    } else if rest.starts_with("最大手数") {
        (Ending::MaxMoves, None)
    } else if rest.starts_with("不詰") {
        (Ending::NoMate, None)
    } else {
        return None;
    })
}

/// The side a summary names at the start of `text` (the handicap giver, `上手`, is White).
fn side_named(text: &str) -> Option<Color> {
    if text.starts_with("先手") || text.starts_with("下手") {
        Some(Color::Black)
    } else if text.starts_with("後手") || text.starts_with("上手") {
        Some(Color::White)
    } else {
        None
    }
}

/// Uses a `まで` line when no special move said how the game ended. A win with no reason given
/// is a resignation unless the loser is checkmated on the board.
pub(crate) fn apply_summary(record: &mut Record, summary: Option<(Ending, Option<Color>)>) {
    let Some((mut ending, winner)) = summary else {
        return;
    };
    if ending == Ending::Resign && record.final_position().is_mated() {
        ending = Ending::Mate;
    }
    record.set_ending(ending);
    if winner.is_some() {
        record.winner = winner;
    }
}

/// Seconds from a time column `( 0:02/00:00:02)`: the part before the slash, `m:ss` or `h:mm:ss`.
fn parse_time(rest: &str) -> Option<u32> {
    let inside = rest.trim().strip_prefix('(')?;
    let this_move = inside.split(['/', ')']).next()?.trim();
    let mut total: u32 = 0;
    for part in this_move.split(':') {
        let v: u32 = part.trim().parse().ok()?;
        total = total.checked_mul(60)?.checked_add(v)?;
    }
    Some(total)
}

/// The special-move word KIF writes for an ending (None where KIF has none; the `まで` line says
/// it instead).
pub(crate) fn ending_text(record: &Record) -> Option<&'static str> {
    let to_move = record.side_to_move_at_end();
    Some(match record.ending {
        Ending::Resign => "投了",
        Ending::Mate => "詰み",
        Ending::Sennichite => "千日手",
        Ending::PerpetualCheck => "連続王手の千日手",
        Ending::Jishogi => "持将棋",
        Ending::EnteringKing => "入玉勝ち",
        Ending::IllegalMove if record.winner == Some(to_move) => "反則勝ち",
        Ending::IllegalMove => "反則負け",
        Ending::TimeUp => "切れ負け",
        Ending::Interrupted => "中断",
        Ending::NoMate => "不詰",
        Ending::Draw | Ending::MaxMoves | Ending::Matta | Ending::Unknown => return None,
    })
}

/// The `まで` line for a record's ending, if it has one.
pub(crate) fn summary_text(record: &Record) -> Option<String> {
    let n = record.moves.len();
    let side = |c: Color| {
        if c == Color::Black {
            "先手"
        } else {
            "後手"
        }
    };
    let how = match (record.ending, record.winner) {
        (Ending::Unknown, _) => return None,
        (Ending::TimeUp, Some(w)) => format!("時間切れにより{}の勝ち", side(w)),
        (Ending::IllegalMove, Some(w)) => format!("{}の反則負け", side(!w)),
        (Ending::EnteringKing, Some(w)) => format!("{}の入玉勝ち", side(w)),
        (Ending::Resign | Ending::Mate, Some(w)) => format!("{}の勝ち", side(w)),
        (Ending::PerpetualCheck, _) => "連続王手の千日手".to_string(),
        (Ending::Sennichite, _) => "千日手".to_string(),
        (Ending::Jishogi, _) => "持将棋".to_string(),
        (Ending::Interrupted, _) => "中断".to_string(),
        (Ending::Draw, _) => "引き分け".to_string(),
        (Ending::MaxMoves, _) => "最大手数".to_string(),
        (Ending::Matta, _) => "待った".to_string(),
        (Ending::NoMate, _) => "不詰".to_string(),
        _ => return None,
    };
    Some(format!("まで{n}手で{how}"))
}

/// The header lines shared by KIF and KI2: fields, the handicap or a diagram, the players.
pub(crate) fn write_header(record: &Record) -> String {
    let mut s = String::new();
    for (key, v) in kif_fields(record) {
        s.push_str(&format!("{key}：{v}\n"));
    }
    match handicap_name(&record.start) {
        Some(name) => s.push_str(&format!("手合割：{name}\n")),
        None => s.push_str(&write_diagram(&record.start)),
    }
    s.push_str(&format!(
        "先手：{}\n",
        record.black.as_deref().unwrap_or("")
    ));
    s.push_str(&format!(
        "後手：{}\n",
        record.white.as_deref().unwrap_or("")
    ));
    s
}

/// The header fields that KIF, KI2 and JKF write as fields, under their KIF names (a field read
/// from CSA, `$EVENT`, ..., gets its KIF name): all but the handicap, which each writes its own
/// way, and CSA's version `V`.
pub(crate) fn kif_fields(record: &Record) -> impl Iterator<Item = (&str, &str)> {
    record
        .headers
        .iter()
        .filter(|(k, _)| k != "手合割" && k != "V")
        .map(|(k, v)| {
            let key = super::csa::INFO_KEYS
                .iter()
                .find(|(csa, _)| csa == k)
                .map_or(k.as_str(), |(_, kif)| kif);
            (key, v.as_str())
        })
}

/// The comments at `ply`: the record's, then the extra notes.
pub(crate) fn comments_at<'a>(
    record: &'a Record,
    notes: &'a [Vec<String>],
    ply: usize,
) -> impl Iterator<Item = &'a String> {
    record
        .comments
        .get(ply)
        .into_iter()
        .chain(notes.get(ply))
        .flatten()
}

/// Comment lines for one ply: the record's, then the extra notes (each line gets its `*`).
pub(crate) fn write_comments(s: &mut String, record: &Record, notes: &[Vec<String>], ply: usize) {
    for line in comments_at(record, notes, ply) {
        for part in line.split('\n') {
            s.push('*');
            s.push_str(part.trim_end_matches('\r'));
            s.push('\n');
        }
    }
}

/// Display width in half-width columns (full-width characters count two), for aligning columns.
fn width(text: &str) -> usize {
    text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

fn pad(text: &str, columns: usize) -> String {
    let w = width(text);
    format!("{text}{}", " ".repeat(columns.saturating_sub(w).max(1)))
}

/// Writes a record as KIF. `notes[i]` are extra comment lines after move `i` (index 0: before
/// the first move), written after the record's own comments; pass `&[]` for none. Each line
/// becomes a `*` comment, so `#評価値=120` is written `*#評価値=120`.
pub fn write(record: &Record, notes: &[Vec<String>]) -> String {
    let mut s = String::from("# KIF written by kirin\n");
    s.push_str(&write_header(record));
    s.push_str("手数----指手---------消費時間--\n");
    write_comments(&mut s, record, notes, 0);
    let with_times = record.times.iter().any(Option::is_some);
    let mut totals = [0u32; 2];
    let mut pos: Position = record.start.clone();
    let mut prev = None;
    for (i, &m) in record.moves.iter().enumerate() {
        let text = move_to_kif(&pos, m, prev);
        let mut line = format!("{:>4} ", i + 1);
        if with_times {
            let t = record.times.get(i).copied().flatten().unwrap_or(0);
            let side = pos.side_to_move().index();
            totals[side] += t;
            line.push_str(&pad(&text, 14));
            line.push_str(&time_column(t, totals[side]));
        } else {
            line.push_str(&text);
        }
        s.push_str(line.trim_end());
        s.push('\n');
        write_comments(&mut s, record, notes, i + 1);
        prev = Some(m.to());
        pos.do_move(m);
    }
    if let Some(word) = ending_text(record) {
        s.push_str(&format!("{:>4} {word}\n", record.moves.len() + 1));
    }
    if let Some(summary) = summary_text(record) {
        s.push_str(&summary);
        s.push('\n');
    }
    s
}

fn time_column(t: u32, total: u32) -> String {
    format!(
        "({:>2}:{:02}/{:02}:{:02}:{:02})",
        t / 60,
        t % 60,
        total / 3600,
        total / 60 % 60,
        total % 60
    )
}
