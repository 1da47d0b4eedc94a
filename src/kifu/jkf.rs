//! JSON Kifu Format (JKF), the JSON form of KIF that web viewers use:
//!
//! ```json
//! {"header": {"先手": "...", "後手": "..."},
//!  "initial": {"preset": "HIRATE"},
//!  "moves": [{"comments": ["before the first move"]},
//!            {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU", "color": 0},
//!             "time": {"now": {"m": 0, "s": 2}, "total": {"h": 0, "m": 0, "s": 2}}},
//!            {"special": "TORYO"}]}
//! ```
//!
//! `initial` is a handicap `preset` or, for `OTHER`, `data` with the board (`board[x-1][y-1]`,
//! file x, rank y), the side to move (`color`, 0 for Black) and both hands. Branches (`forks`)
//! are skipped: the main line is read.

use super::bod::diagram_sfen;
use super::csa::{piece_code, piece_from_code};
use super::kif::{comments_at, kif_fields};
use super::{Ending, Format, Record, RecordError, Replay};
use crate::shogi::{Color, Hand, Move, Piece, PieceType, Position, Square};
use serde_json::{Map, Value, json};

/// JKF's preset names for the handicaps, by `手合割` name.
const PRESETS: [(&str, &str); 16] = [
    ("HIRATE", "平手"),
    ("KY", "香落ち"),
    ("KY_R", "右香落ち"),
    ("KA", "角落ち"),
    ("HI", "飛車落ち"),
    ("HIKY", "飛香落ち"),
    ("2", "二枚落ち"),
    ("3", "三枚落ち"),
    ("4", "四枚落ち"),
    ("5", "五枚落ち"),
    ("5_L", "左五枚落ち"),
    ("6", "六枚落ち"),
    ("7_L", "左七枚落ち"),
    ("7_R", "右七枚落ち"),
    ("8", "八枚落ち"),
    ("10", "十枚落ち"),
];

const SPECIALS: [(&str, Ending); 15] = [
    ("TORYO", Ending::Resign),
    ("TSUMI", Ending::Mate),
    ("CHUDAN", Ending::Interrupted),
    ("SENNICHITE", Ending::Sennichite),
    ("OUTE_SENNICHITE", Ending::PerpetualCheck),
    ("JISHOGI", Ending::Jishogi),
    ("KACHI", Ending::EnteringKing),
    ("ILLEGAL_MOVE", Ending::IllegalMove),
    ("+ILLEGAL_ACTION", Ending::IllegalMove),
    ("-ILLEGAL_ACTION", Ending::IllegalMove),
    ("TIME_UP", Ending::TimeUp),
    ("HIKIWAKE", Ending::Draw),
    ("MAX_MOVES", Ending::MaxMoves),
    ("MATTA", Ending::Matta),
    ("FUZUMI", Ending::NoMate),
];

fn color_of(v: &Value) -> Option<Color> {
    match v {
        Value::Number(n) => match n.as_u64()? {
            0 => Some(Color::Black),
            1 => Some(Color::White),
            _ => None,
        },
        // JKF before 1.0 wrote the colour as a boolean, true for Black.
        Value::Bool(b) => Some(if *b { Color::Black } else { Color::White }),
        _ => None,
    }
}

fn square_of(v: &Value) -> Option<Square> {
    let x = v.get("x")?.as_u64()?;
    let y = v.get("y")?.as_u64()?;
    ((1..=9).contains(&x) && (1..=9).contains(&y))
        .then(|| Square::from_file_rank(x as u8 - 1, y as u8 - 1))
}

/// Reads a JKF record. JSON has no useful line numbers here, so errors name the move (the
/// index in `moves`) and carry line 1.
pub fn read(text: &str) -> Result<Record, RecordError> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| RecordError::new(e.line(), format!("not valid JSON: {e}")))?;
    let err = |m: String| RecordError::new(1, m);
    let start = read_initial(root.get("initial")).map_err(err)?;
    let mut replay = Replay::new(start, Format::Jkf);
    let mut headers = Vec::new();
    if let Some(h) = root.get("header").and_then(Value::as_object) {
        for (k, v) in h {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            match k.as_str() {
                "先手" | "下手" => replay.record.black = Some(v),
                "後手" | "上手" => replay.record.white = Some(v),
                _ => headers.push((k.clone(), v)),
            }
        }
    }
    let moves = match root.get("moves") {
        None => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => return Err(err("'moves' is not a list".into())),
    };
    for (i, entry) in moves.iter().enumerate() {
        if let Some(comments) = entry.get("comments").and_then(Value::as_array)
            && entry.get("move").is_none()
        {
            for c in comments.iter().filter_map(Value::as_str) {
                replay.comment(c);
            }
        }
        if let Some(special) = entry.get("special").and_then(Value::as_str) {
            let Some(&(_, ending)) = SPECIALS.iter().find(|(s, _)| *s == special) else {
                replay.fail(1, format!("moves[{i}]: unknown special '{special}'"));
                break;
            };
            replay.record.normalise();
            replay.record.set_ending(ending);
            match special {
                "+ILLEGAL_ACTION" => replay.record.winner = Some(Color::White),
                "-ILLEGAL_ACTION" => replay.record.winner = Some(Color::Black),
                _ => {}
            }
            break;
        }
        let Some(mv) = entry.get("move") else {
            if i == 0 || entry.get("comments").is_some() {
                continue;
            }
            replay.fail(1, format!("moves[{i}] has neither a move nor a special"));
            break;
        };
        let m = match read_move(&replay, mv) {
            Ok(m) => m,
            Err(e) => {
                replay.fail(1, format!("moves[{i}]: {e}"));
                break;
            }
        };
        let time = entry.get("time").and_then(|t| t.get("now")).map(|now| {
            let part = |k: &str| now.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
            part("h") * 3600 + part("m") * 60 + part("s")
        });
        if !replay.play(m, time, 1, &format!("moves[{i}]")) {
            break;
        }
        if let Some(comments) = entry.get("comments").and_then(Value::as_array) {
            for c in comments.iter().filter_map(Value::as_str) {
                replay.comment(c);
            }
        }
    }
    let mut record = replay.finish();
    record.headers = headers;
    Ok(record)
}

fn read_initial(initial: Option<&Value>) -> Result<Position, String> {
    let Some(initial) = initial else {
        return Ok(Position::startpos());
    };
    let preset = initial
        .get("preset")
        .and_then(Value::as_str)
        .unwrap_or("HIRATE");
    if preset != "OTHER" {
        let name = PRESETS
            .iter()
            .find(|(p, _)| *p == preset)
            .map(|(_, n)| *n)
            .ok_or_else(|| format!("unknown preset '{preset}'"))?;
        let sfen = super::bod::HANDICAPS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| format!("unknown preset '{preset}'"))?;
        return Position::from_sfen(sfen).map_err(|e| e.to_string());
    }
    let data = initial.get("data").ok_or("preset OTHER without 'data'")?;
    let board = data
        .get("board")
        .and_then(Value::as_array)
        .filter(|b| b.len() == 9)
        .ok_or("'data.board' is not nine files")?;
    let mut rows = [[Piece::NONE; 9]; 9];
    for (x, file) in board.iter().enumerate() {
        let file = file
            .as_array()
            .filter(|f| f.len() == 9)
            .ok_or("a file of 'data.board' is not nine squares")?;
        for (y, cell) in file.iter().enumerate() {
            let Some(kind) = cell.get("kind").and_then(Value::as_str) else {
                continue;
            };
            let pt = piece_from_code(kind).ok_or_else(|| format!("unknown kind '{kind}'"))?;
            let c = cell
                .get("color")
                .and_then(color_of)
                .ok_or("a piece without a colour")?;
            rows[y][8 - x] = Piece::new(c, pt);
        }
    }
    let mut hands = [Hand::EMPTY; 2];
    if let Some(hs) = data.get("hands").and_then(Value::as_array) {
        for (c, h) in hs.iter().take(2).enumerate() {
            for pt in PieceType::HAND {
                let n = h.get(piece_code(pt)).and_then(Value::as_u64).unwrap_or(0);
                if n > u64::from(pt.count_in_set()) {
                    return Err(format!("{n} {} in hand", piece_code(pt)));
                }
                hands[c].set(pt, n as u32);
            }
        }
    }
    let side = data.get("color").and_then(color_of).unwrap_or(Color::Black);
    Position::from_sfen(&diagram_sfen(&rows, &hands, side))
        .map_err(|e| format!("bad initial position: {e}"))
}

fn read_move(replay: &Replay, mv: &Value) -> Result<Move, String> {
    let to = match mv.get("to") {
        Some(t) => square_of(t).ok_or("bad 'to'")?,
        None if mv.get("same").and_then(Value::as_bool) == Some(true) => {
            replay.last_to().ok_or("'same' with no previous move")?
        }
        None => return Err("a move without 'to'".into()),
    };
    let piece = mv
        .get("piece")
        .and_then(Value::as_str)
        .ok_or("a move without 'piece'")?;
    let pt = piece_from_code(piece).ok_or_else(|| format!("unknown piece '{piece}'"))?;
    if let Some(c) = mv.get("color").and_then(color_of)
        && c != replay.pos.side_to_move()
    {
        return Err("a move by the side not to move".into());
    }
    match mv.get("from") {
        None => Ok(Move::drop(pt, to)),
        Some(f) => {
            let from = square_of(f).ok_or("bad 'from'")?;
            let on = replay.pos.piece_on(from);
            if on.is_none() || on.kind() != pt {
                return Err(format!(
                    "no {piece} on {}{}",
                    from.file() + 1,
                    from.rank() + 1
                ));
            }
            let promote = mv.get("promote").and_then(Value::as_bool) == Some(true);
            Ok(Move::normal(from, to, promote))
        }
    }
}

fn write_initial(pos: &Position) -> Value {
    if let Some(name) = super::bod::handicap_name(pos)
        && let Some((preset, _)) = PRESETS.iter().find(|(_, n)| *n == name)
    {
        return json!({ "preset": preset });
    }
    let board: Vec<Value> = (0..9u8)
        .map(|x| {
            Value::Array(
                (0..9u8)
                    .map(|y| {
                        let p = pos.piece_on(Square::from_file_rank(x, y));
                        if p.is_none() {
                            json!({})
                        } else {
                            json!({ "color": p.color().index(), "kind": piece_code(p.kind()) })
                        }
                    })
                    .collect(),
            )
        })
        .collect();
    let hands: Vec<Value> = Color::ALL
        .iter()
        .map(|&c| {
            let mut m = Map::new();
            for pt in PieceType::SFEN_HAND_ORDER {
                m.insert(piece_code(pt).to_string(), json!(pos.hand(c).count(pt)));
            }
            Value::Object(m)
        })
        .collect();
    json!({
        "preset": "OTHER",
        "data": { "board": board, "color": pos.side_to_move().index(), "hands": hands }
    })
}

fn xy(sq: Square) -> Value {
    json!({ "x": sq.file() + 1, "y": sq.rank() + 1 })
}

/// Writes a record as JKF (pretty-printed JSON). Header fields read from CSA (`EVENT`, ...) get
/// their KIF names (`棋戦`, ...). `notes` as in [`super::kif::write`].
pub fn write(record: &Record, notes: &[Vec<String>]) -> String {
    let mut header = Map::new();
    if let Some(b) = &record.black {
        header.insert("先手".into(), json!(b));
    }
    if let Some(w) = &record.white {
        header.insert("後手".into(), json!(w));
    }
    for (key, v) in kif_fields(record) {
        header.insert(key.to_string(), json!(v));
    }
    let comments_at =
        |ply: usize| -> Vec<String> { comments_at(record, notes, ply).cloned().collect() };
    let mut moves = Vec::new();
    let first = comments_at(0);
    moves.push(if first.is_empty() {
        json!({})
    } else {
        json!({ "comments": first })
    });
    let mut pos = record.start.clone();
    let mut totals = [0u32; 2];
    let mut prev: Option<Square> = None;
    for (i, &m) in record.moves.iter().enumerate() {
        let us = pos.side_to_move();
        let mut mv = Map::new();
        mv.insert("color".into(), json!(us.index()));
        mv.insert("to".into(), xy(m.to()));
        if prev == Some(m.to()) {
            mv.insert("same".into(), json!(true));
        }
        if m.is_drop() {
            mv.insert("piece".into(), json!(piece_code(m.dropped())));
        } else {
            mv.insert("from".into(), xy(m.from()));
            mv.insert(
                "piece".into(),
                json!(piece_code(pos.piece_on(m.from()).kind())),
            );
            let captured = pos.piece_on(m.to());
            if captured.is_some() {
                mv.insert("capture".into(), json!(piece_code(captured.kind())));
            }
            if m.is_promotion() {
                mv.insert("promote".into(), json!(true));
            } else if crate::shogi::legal_moves(&pos).contains(&Move::normal(
                m.from(),
                m.to(),
                true,
            )) {
                mv.insert("promote".into(), json!(false));
            }
        }
        let mut entry = Map::new();
        entry.insert("move".into(), Value::Object(mv));
        if let Some(Some(t)) = record.times.get(i) {
            totals[us.index()] += t;
            let total = totals[us.index()];
            entry.insert(
                "time".into(),
                json!({
                    "now": { "m": t / 60, "s": t % 60 },
                    "total": { "h": total / 3600, "m": total / 60 % 60, "s": total % 60 }
                }),
            );
        }
        let c = comments_at(i + 1);
        if !c.is_empty() {
            entry.insert("comments".into(), json!(c));
        }
        moves.push(Value::Object(entry));
        prev = Some(m.to());
        pos.do_move(m);
    }
    if let Some(special) = special_of(record) {
        moves.push(json!({ "special": special }));
    }
    let root = json!({
        "header": Value::Object(header),
        "initial": write_initial(&record.start),
        "moves": moves,
    });
    let mut s = serde_json::to_string_pretty(&root).unwrap_or_default();
    s.push('\n');
    s
}

fn special_of(record: &Record) -> Option<String> {
    let to_move = record.side_to_move_at_end();
    if record.ending == Ending::IllegalMove && record.winner == Some(to_move) {
        let loser = if to_move == Color::Black { '-' } else { '+' };
        return Some(format!("{loser}ILLEGAL_ACTION"));
    }
    if record.ending == Ending::Unknown {
        return None;
    }
    SPECIALS
        .iter()
        .find(|(_, e)| *e == record.ending)
        .map(|(s, _)| s.to_string())
}
