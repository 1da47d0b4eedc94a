//! Records in and annotated records out, through the game-record library.

use super::game::{Game, GameAnalysis, MoveAnalysis};
use super::input::{ReadError, ReadGame, ReadResult};
use super::score::Mark;
use crate::kifu::Record;
use crate::kifu::encoding::{Encoding as KifuEncoding, encode_text};
use crate::kifu::japanese::line_to_ki2;
use crate::shogi::Square;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    ShiftJis,
}

/// Reads every game of an input (any format the record library knows, by content and then
/// by the name's extension). Games that broke off before their first move are reported as
/// errors, not analysed: there is nothing to analyse.
pub fn read_records(bytes: &[u8], name: &str) -> ReadResult {
    let mut result = ReadResult::default();
    let hint = std::path::Path::new(name)
        .file_name()
        .and_then(|n| n.to_str());
    let records = match crate::kifu::read_bytes(bytes, hint) {
        Ok(records) => records,
        Err(e) => {
            result.errors.push(ReadError {
                line: e.line,
                message: e.message,
            });
            return result;
        }
    };
    for record in records {
        let error = record.error.as_ref().map(|e| ReadError {
            line: e.line,
            message: e.message.clone(),
        });
        match error {
            Some(e) if record.moves.is_empty() => result.errors.push(e),
            error => result.games.push(ReadGame {
                game: Game::from_record(&record),
                record,
                error,
            }),
        }
    }
    result
}

/// The comment lines written under a move (without KIF's leading `*`).
pub fn notes_for(m: &MoveAnalysis, pv_text: &str, best_text: Option<&str>) -> Vec<String> {
    let mut lines = Vec::new();
    if m.mark != Mark::Good {
        lines.push(format!("{} 勝率-{:.1}%", m.mark.japanese(), m.loss * 100.0));
    }
    if let Some(best) = best_text {
        lines.push(format!("最善手={best}"));
    }
    match m.after.mate {
        Some(plies) if plies != 0 => lines.push(format!(
            "#詰み={}:{}手",
            if plies > 0 {
                "先手勝ち"
            } else {
                "後手勝ち"
            },
            plies.abs()
        )),
        _ => {}
    }
    lines.push(format!("#評価値={}", m.after.cp));
    if !pv_text.is_empty() {
        lines.push(format!("#読み筋={pv_text}"));
    }
    lines
}

/// The record written back as KIF with the analysis under each move, in the comment lines
/// GUIs read (`*#評価値=`, `*#読み筋=`, `*#詰み=`), plus the mark and the best move.
pub fn annotated(
    record: &Record,
    analysis: &GameAnalysis,
    encoding: Encoding,
) -> Result<Vec<u8>, String> {
    let mut notes = vec![Vec::new(); record.moves.len() + 1];
    let mut pos = record.start.clone();
    let mut prev_to: Option<Square> = None;
    let mut analysed = analysis.moves.iter().peekable();
    for (i, &m) in record.moves.iter().enumerate() {
        let ply = i + 1;
        if let Some(a) = analysed.next_if(|a| a.ply == ply) {
            let best = a
                .best
                .filter(|&b| b != m)
                .map(|b| line_to_ki2(&pos, &[b], prev_to));
            let mut after = pos.clone();
            after.do_move(m);
            // No previous square: ShogiHome reads this line from the position alone, so a
            // first move written as `同` would not be read at all.
            let pv = line_to_ki2(&after, &a.after_pv, None);
            notes[ply] = notes_for(a, &pv, best.as_deref());
        }
        prev_to = Some(m.to());
        pos.do_move(m);
    }
    let text = crate::kifu::write_kif(record, &notes);
    Ok(match encoding {
        Encoding::Utf8 => encode_text(&text, KifuEncoding::Utf8),
        Encoding::ShiftJis => encode_text(&text, KifuEncoding::ShiftJis),
    })
}
