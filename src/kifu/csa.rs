//! CSA (V2, V2.2 and V3.0), the Computer Shogi Association's format that servers such as
//! floodgate write:
//!
//! ```text
//! V2.2
//! N+black player
//! N-white player
//! $EVENT:an event
//! PI
//! +
//! +7776FU,T2
//! -3334FU
//! T5
//! 'a comment
//! %TORYO
//! ```
//!
//! The start is `PI` (the even game, optionally with pieces taken off: `PI82HI22KA`), rows
//! `P1`..`P9`, or pieces placed one by one with `P+`/`P-` (`00` is the hand, `00AL` the rest of
//! the set). A line may hold several statements separated by commas; `'` starts a comment that
//! runs to the end of the line. `/` on its own line separates games in one file.

use super::bod::diagram_sfen;
use super::{Ending, Format, Record, RecordError, Replay, split_lines};
use crate::shogi::{Color, Hand, Piece, PieceType, Position, START_SFEN, Square};

/// The two-letter piece codes, which JKF uses too.
pub(super) const CODES: [(&str, PieceType); 14] = [
    ("FU", PieceType::Pawn),
    ("KY", PieceType::Lance),
    ("KE", PieceType::Knight),
    ("GI", PieceType::Silver),
    ("KI", PieceType::Gold),
    ("KA", PieceType::Bishop),
    ("HI", PieceType::Rook),
    ("OU", PieceType::King),
    ("TO", PieceType::ProPawn),
    ("NY", PieceType::ProLance),
    ("NK", PieceType::ProKnight),
    ("NG", PieceType::ProSilver),
    ("UM", PieceType::Horse),
    ("RY", PieceType::Dragon),
];

/// Header keys CSA writes with `$`, and the KIF keys for the same fields.
pub const INFO_KEYS: [(&str, &str); 6] = [
    ("EVENT", "棋戦"),
    ("SITE", "場所"),
    ("START_TIME", "開始日時"),
    ("END_TIME", "終了日時"),
    ("TIME_LIMIT", "持ち時間"),
    ("OPENING", "戦型"),
];

/// CSA's two-letter code of a kind (JKF uses the same codes).
pub(crate) fn piece_code(pt: PieceType) -> &'static str {
    CODES
        .iter()
        .find(|(_, p)| *p == pt)
        .map_or("FU", |(c, _)| c)
}

pub(crate) fn piece_from_code(code: &str) -> Option<PieceType> {
    CODES.iter().find(|(c, _)| *c == code).map(|(_, p)| *p)
}

fn sign(c: Color) -> char {
    if c == Color::Black { '+' } else { '-' }
}

/// `77` -> the square on file 7, rank 7; `00` -> None (the hand).
fn square(text: &str) -> Result<Option<Square>, String> {
    let b = text.as_bytes();
    match b {
        [b'0', b'0'] => Ok(None),
        [f @ b'1'..=b'9', r @ b'1'..=b'9'] => Ok(Some(Square::from_file_rank(f - b'1', r - b'1'))),
        _ => Err(format!("bad square '{text}'")),
    }
}

/// Reads every game of a CSA file.
pub fn read(text: &str) -> Result<Vec<Record>, RecordError> {
    let lines = split_lines(text);
    let mut games = Vec::new();
    let mut start = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim() == "/" {
            games.push((start, &lines[start..i]));
            start = i + 1;
        }
    }
    games.push((start, &lines[start..]));
    let results: Vec<_> = games
        .into_iter()
        .filter(|(_, g)| g.iter().any(|l| !l.trim().is_empty()))
        .map(|(first, g)| read_game(g, first))
        .collect();
    super::collect_games(results, Format::Csa)
}

/// The start position while its statements are read.
struct Setup {
    board: [Piece; 81],
    hands: [Hand; 2],
    used: bool,
}

impl Setup {
    fn apply(&mut self, stmt: &str) -> Result<(), String> {
        self.used = true;
        if let Some(rest) = stmt.strip_prefix("PI") {
            let start = Position::startpos();
            for sq in Square::all() {
                self.board[sq.index()] = start.piece_on(sq);
            }
            for chunk in chunks(rest, 4)? {
                let sq = square(&chunk[..2])?.ok_or("PI cannot take pieces from a hand")?;
                let pt = piece_from_code(&chunk[2..])
                    .ok_or_else(|| format!("bad piece in '{chunk}'"))?;
                if self.board[sq.index()].is_none() || self.board[sq.index()].kind() != pt {
                    return Err(format!("PI: no {chunk} to take off"));
                }
                self.board[sq.index()] = Piece::NONE;
            }
            return Ok(());
        }
        let body = &stmt[1..];
        if let Some(rest) = body.strip_prefix('+').or_else(|| body.strip_prefix('-')) {
            let color = if body.starts_with('+') {
                Color::Black
            } else {
                Color::White
            };
            for chunk in chunks(rest, 4)? {
                if chunk == "00AL" {
                    self.rest_to_hand(color);
                    continue;
                }
                let pt = piece_from_code(&chunk[2..])
                    .ok_or_else(|| format!("bad piece in '{chunk}'"))?;
                match square(&chunk[..2])? {
                    Some(sq) => self.board[sq.index()] = Piece::new(color, pt),
                    None => {
                        if !PieceType::HAND.contains(&pt) {
                            return Err(format!("'{chunk}' cannot be in hand"));
                        }
                        let h = &mut self.hands[color.index()];
                        if h.count(pt) >= u32::from(pt.count_in_set()) {
                            return Err(format!("too many {chunk} in hand"));
                        }
                        h.add(pt);
                    }
                }
            }
            return Ok(());
        }
        // P1 .. P9: nine cells of three characters, ` * ` for an empty square.
        let rank = body
            .as_bytes()
            .first()
            .map(|b| b.wrapping_sub(b'1'))
            .filter(|&r| r < 9);
        let rank = rank.ok_or_else(|| format!("bad board statement '{stmt}'"))?;
        let mut cells: Vec<char> = body[1..].chars().collect();
        // Trimming the line may have taken the last square's trailing space.
        if cells.len() >= 25 {
            cells.resize(cells.len().max(27), ' ');
        }
        if cells.len() < 27 {
            return Err(format!("rank {} has fewer than nine squares", rank + 1));
        }
        for (i, cell) in cells.chunks(3).take(9).enumerate() {
            let text: String = cell.iter().collect();
            let sq = Square::from_file_rank(8 - i as u8, rank);
            self.board[sq.index()] = match text.as_str() {
                " * " => Piece::NONE,
                _ => {
                    let color = match cell[0] {
                        '+' => Color::Black,
                        '-' => Color::White,
                        _ => return Err(format!("bad square '{text}' on rank {}", rank + 1)),
                    };
                    let pt =
                        piece_from_code(&text[1..]).ok_or_else(|| format!("bad piece '{text}'"))?;
                    Piece::new(color, pt)
                }
            };
        }
        Ok(())
    }

    /// `00AL`: every piece of the set not on the board or in the other hand.
    fn rest_to_hand(&mut self, c: Color) {
        for pt in PieceType::HAND {
            let on_board = self
                .board
                .iter()
                .filter(|p| p.is_some() && p.kind().unpromote() == pt)
                .count() as u32;
            let other = self.hands[(!c).index()].count(pt);
            let n = u32::from(pt.count_in_set()).saturating_sub(on_board + other);
            self.hands[c.index()].set(pt, n);
        }
    }

    fn position(&self, side: Color) -> Result<Position, String> {
        if !self.used {
            let mut pos = Position::startpos();
            if side == Color::White {
                pos = Position::from_sfen(&START_SFEN.replace(" b ", " w "))
                    .map_err(|e| e.to_string())?;
            }
            return Ok(pos);
        }
        let mut rows = [[Piece::NONE; 9]; 9];
        for sq in Square::all() {
            rows[sq.rank() as usize][8 - sq.file() as usize] = self.board[sq.index()];
        }
        Position::from_sfen(&diagram_sfen(&rows, &self.hands, side))
            .map_err(|e| format!("bad start position: {e}"))
    }
}

fn chunks(text: &str, n: usize) -> Result<Vec<&str>, String> {
    let text = text.trim_end();
    if !text.is_ascii() || !text.len().is_multiple_of(n) {
        return Err(format!("'{text}' is not a list of {n}-character pieces"));
    }
    Ok((0..text.len())
        .step_by(n)
        .map(|i| &text[i..i + n])
        .collect())
}

fn ending_of(stmt: &str) -> Option<(Ending, Option<Color>)> {
    Some(match stmt {
        "%TORYO" => (Ending::Resign, None),
        "%TSUMI" => (Ending::Mate, None),
        "%CHUDAN" | "%ERROR" => (Ending::Interrupted, None),
        "%SENNICHITE" => (Ending::Sennichite, None),
        "%OUTE_SENNICHITE" => (Ending::PerpetualCheck, None),
        "%JISHOGI" => (Ending::Jishogi, None),
        "%KACHI" => (Ending::EnteringKing, None),
        "%ILLEGAL_MOVE" => (Ending::IllegalMove, None),
        "%+ILLEGAL_ACTION" => (Ending::IllegalMove, Some(Color::White)),
        "%-ILLEGAL_ACTION" => (Ending::IllegalMove, Some(Color::Black)),
        "%TIME_UP" => (Ending::TimeUp, None),
        "%HIKIWAKE" => (Ending::Draw, None),
        "%MAX_MOVES" => (Ending::MaxMoves, None),
        "%MATTA" => (Ending::Matta, None),
        "%FUZUMI" => (Ending::NoMate, None),
        _ => return None,
    })
}

fn read_game(lines: &[&str], first: usize) -> Result<Record, RecordError> {
    let mut setup = Setup {
        board: [Piece::NONE; 81],
        hands: [Hand::EMPTY; 2],
        used: false,
    };
    let mut names: [Option<String>; 2] = [None, None];
    let mut headers = Vec::new();
    let mut early_comments = Vec::new();
    let mut replay: Option<Replay> = None;
    let mut ended = false;
    for (i, raw) in lines.iter().enumerate() {
        let no = first + i + 1;
        let line = raw.trim_end();
        let (code, comment) = match line.find('\'') {
            Some(q) => (&line[..q], Some(&line[q + 1..])),
            None => (line, None),
        };
        for stmt in code.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if ended {
                continue;
            }
            let fail = |m: String| RecordError::new(no, m);
            if let Some(r) = replay.as_mut() {
                if r.failed() {
                    continue;
                }
                if let Some(t) = stmt.strip_prefix('T') {
                    match t.parse::<f64>() {
                        Ok(secs) if secs >= 0.0 && r.record.times.last().is_some() => {
                            if let Some(last) = r.record.times.last_mut() {
                                *last = Some(secs as u32);
                            }
                        }
                        Ok(_) => {}
                        Err(_) => r.fail(no, format!("bad time '{stmt}'")),
                    }
                } else if stmt.starts_with('%') {
                    match ending_of(stmt) {
                        Some((ending, winner)) => {
                            r.record.normalise();
                            r.record.set_ending(ending);
                            if winner.is_some() {
                                r.record.winner = winner;
                            }
                            ended = true;
                        }
                        None => r.fail(no, format!("unknown special move '{stmt}'")),
                    }
                } else if stmt.len() == 7 && (stmt.starts_with('+') || stmt.starts_with('-')) {
                    read_move(r, stmt, no);
                } else {
                    r.fail(no, format!("unexpected '{stmt}' among the moves"));
                }
                continue;
            }
            // The header: everything before the side-to-move line.
            if stmt == "+" || stmt == "-" {
                let side = if stmt == "+" {
                    Color::Black
                } else {
                    Color::White
                };
                replay = Some(begin(&setup, side, &mut early_comments, no)?);
            } else if stmt.len() == 7 && (stmt.starts_with('+') || stmt.starts_with('-')) {
                // Moves with no side line: the first move says who starts.
                let side = if stmt.starts_with('+') {
                    Color::Black
                } else {
                    Color::White
                };
                let r = replay.insert(begin(&setup, side, &mut early_comments, no)?);
                read_move(r, stmt, no);
            } else if let Some(version) = stmt.strip_prefix('V') {
                headers.push(("V".to_string(), version.to_string()));
            } else if let Some(name) = stmt.strip_prefix("N+") {
                names[0] = Some(name.to_string());
            } else if let Some(name) = stmt.strip_prefix("N-") {
                names[1] = Some(name.to_string());
            } else if let Some(info) = stmt.strip_prefix('$') {
                let (k, v) = info.split_once(':').unwrap_or((info, ""));
                headers.push((k.to_string(), v.to_string()));
            } else if stmt.starts_with('P') {
                setup.apply(stmt).map_err(fail)?;
            } else if stmt.starts_with('%') {
                return Err(fail(format!(
                    "'{stmt}' before the start position is complete"
                )));
            } else {
                return Err(fail(format!("unknown CSA statement '{stmt}'")));
            }
        }
        if let Some(c) = comment {
            match replay.as_mut() {
                Some(r) => r.comment(c),
                None => early_comments.push(c.to_string()),
            }
        }
    }
    let replay = match replay {
        Some(r) => r,
        None => begin(
            &setup,
            Color::Black,
            &mut early_comments,
            first + lines.len(),
        )?,
    };
    let mut record = replay.finish();
    record.headers = headers;
    let [black, white] = names;
    record.black = black;
    record.white = white;
    Ok(record)
}

fn begin(
    setup: &Setup,
    side: Color,
    comments: &mut Vec<String>,
    no: usize,
) -> Result<Replay, RecordError> {
    let start = setup.position(side).map_err(|e| RecordError::new(no, e))?;
    let mut r = Replay::new(start, Format::Csa);
    for c in comments.drain(..) {
        r.comment(c);
    }
    Ok(r)
}

/// Plays `+7776FU`: origin (`00` for a drop), destination and the piece as it stands after the
/// move, so `+8822UM` from a bishop is a promotion.
fn read_move(r: &mut Replay, stmt: &str, no: usize) {
    let ply = r.record.moves.len() + 1;
    let color = if stmt.starts_with('+') {
        Color::Black
    } else {
        Color::White
    };
    if color != r.pos.side_to_move() {
        r.fail(
            no,
            format!("move {ply} '{stmt}' is by the side not to move"),
        );
        return;
    }
    let parsed = (|| -> Result<crate::shogi::Move, String> {
        if !stmt.is_ascii() {
            return Err(format!("'{stmt}' is not a move"));
        }
        let to = square(&stmt[3..5])?.ok_or("a move to square 00")?;
        let pt = piece_from_code(&stmt[5..7]).ok_or_else(|| format!("bad piece in '{stmt}'"))?;
        match square(&stmt[1..3])? {
            None => Ok(crate::shogi::Move::drop(pt, to)),
            Some(from) => {
                let p = r.pos.piece_on(from);
                if p.is_none() || p.color() != color {
                    return Err(format!("no piece of the mover on {}", &stmt[1..3]));
                }
                let promote = if p.kind() == pt {
                    false
                } else if p.kind().can_promote() && p.kind().promote() == pt {
                    true
                } else {
                    return Err(format!(
                        "the piece on {} is not {}",
                        &stmt[1..3],
                        &stmt[5..7]
                    ));
                };
                Ok(crate::shogi::Move::normal(from, to, promote))
            }
        }
    })();
    match parsed {
        Ok(m) => {
            r.play(m, None, no, stmt);
        }
        Err(e) => r.fail(no, format!("move {ply}: {e}")),
    }
}

/// The start position as CSA statements: `PI` for the even game, else rows and hands.
fn write_start(pos: &Position) -> String {
    let mut s = String::new();
    if pos
        .to_sfen()
        .split(' ')
        .take(3)
        .eq(START_SFEN.split(' ').take(3))
    {
        s.push_str("PI\n");
    } else {
        for r in 0..9u8 {
            s.push_str(&format!("P{}", r + 1));
            for f in (0..9u8).rev() {
                let p = pos.piece_on(Square::from_file_rank(f, r));
                if p.is_none() {
                    s.push_str(" * ");
                } else {
                    s.push(sign(p.color()));
                    s.push_str(piece_code(p.kind()));
                }
            }
            s.push('\n');
        }
        for c in Color::ALL {
            let hand = pos.hand(c);
            if hand.is_empty() {
                continue;
            }
            s.push('P');
            s.push(sign(c));
            for pt in PieceType::SFEN_HAND_ORDER {
                for _ in 0..hand.count(pt) {
                    s.push_str("00");
                    s.push_str(piece_code(pt));
                }
            }
            s.push('\n');
        }
    }
    s.push(sign(pos.side_to_move()));
    s.push('\n');
    s
}

fn ending_text(record: &Record) -> Option<String> {
    let to_move = record.side_to_move_at_end();
    Some(match record.ending {
        Ending::Resign => "%TORYO".into(),
        Ending::Mate => "%TSUMI".into(),
        Ending::Sennichite => "%SENNICHITE".into(),
        Ending::PerpetualCheck => "%OUTE_SENNICHITE".into(),
        Ending::Jishogi => "%JISHOGI".into(),
        Ending::EnteringKing => "%KACHI".into(),
        Ending::IllegalMove => match record.winner {
            Some(w) if w == to_move => format!("%{}ILLEGAL_ACTION", sign(!w)),
            _ => "%ILLEGAL_MOVE".into(),
        },
        Ending::TimeUp => "%TIME_UP".into(),
        Ending::Interrupted => "%CHUDAN".into(),
        Ending::Draw => "%HIKIWAKE".into(),
        Ending::MaxMoves => "%MAX_MOVES".into(),
        Ending::Matta => "%MATTA".into(),
        Ending::NoMate => "%FUZUMI".into(),
        Ending::Unknown => return None,
    })
}

fn write_comments(s: &mut String, record: &Record, notes: &[Vec<String>], ply: usize) {
    for line in record
        .comments
        .get(ply)
        .into_iter()
        .chain(notes.get(ply))
        .flatten()
    {
        for part in line.split('\n') {
            s.push('\'');
            s.push_str(part.trim_end_matches('\r'));
            s.push('\n');
        }
    }
}

/// Writes one game as CSA V2.2. Header fields read from KIF (`棋戦`, `開始日時`, ...) become
/// their `$` equivalents; `notes` as in [`super::kif::write`], written as `'` comments.
pub fn write(record: &Record, notes: &[Vec<String>]) -> String {
    let mut s = String::from("V2.2\n");
    if let Some(b) = &record.black {
        s.push_str(&format!("N+{b}\n"));
    }
    if let Some(w) = &record.white {
        s.push_str(&format!("N-{w}\n"));
    }
    for (k, v) in &record.headers {
        let key = INFO_KEYS
            .iter()
            .find(|(csa, kif)| csa == k || kif == k)
            .map(|(csa, _)| *csa);
        if let Some(key) = key {
            s.push_str(&format!("${key}:{v}\n"));
        }
    }
    s.push_str(&write_start(&record.start));
    write_comments(&mut s, record, notes, 0);
    let mut pos = record.start.clone();
    for (i, &m) in record.moves.iter().enumerate() {
        let us = pos.side_to_move();
        let (from, pt) = if m.is_drop() {
            ("00".to_string(), m.dropped())
        } else {
            let f = m.from();
            (
                format!("{}{}", f.file() + 1, f.rank() + 1),
                pos.moved_kind_after(m),
            )
        };
        s.push_str(&format!(
            "{}{}{}{}{}",
            sign(us),
            from,
            m.to().file() + 1,
            m.to().rank() + 1,
            piece_code(pt)
        ));
        if let Some(Some(t)) = record.times.get(i) {
            s.push_str(&format!(",T{t}"));
        }
        s.push('\n');
        write_comments(&mut s, record, notes, i + 1);
        pos.do_move(m);
    }
    if let Some(e) = ending_text(record) {
        s.push_str(&e);
        s.push('\n');
    }
    s
}

/// Several games in one file, separated by `/` lines.
pub fn write_games(records: &[Record]) -> String {
    records
        .iter()
        .map(|r| write(r, &[]))
        .collect::<Vec<_>>()
        .join("/\n")
}
