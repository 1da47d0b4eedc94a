//! Japanese move text, read and written against a position.
//!
//! KIF writes a move with its destination, the piece, a promotion mark and the origin in ASCII
//! digits: `７六歩(77)`, `同　銀(31)` (same square as the last move), `５五角打` (drop),
//! `２二角成(88)`. A declined promotion has no mark in KIF: the origin already tells the move,
//! and ShogiHome's reader stops at `不成`; kirin still reads `２二角不成(88)` from other
//! writers. KI2 leaves the origin out and writes `不成`, so when two pieces of one kind
//! can reach the square it adds the words players use: 上/引/寄 for the motion (forward,
//! backward, sideways from the mover's side) and 右/左/直 for the piece's place (rightmost,
//! leftmost, straight forward), and 打 for a drop only when a piece on the board could also go
//! there.

use crate::shogi::attacks::attacks;
use crate::shogi::{Color, Move, PieceType, Position, Square, legal_moves};

const FILES: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// `▲` for Black, `△` for White, as records mark the mover.
pub fn mark(c: Color) -> char {
    match c {
        Color::Black => '▲',
        Color::White => '△',
    }
}

/// `７六`: file in full-width digits, rank in kanji.
pub fn square_name(sq: Square) -> String {
    let mut s = String::with_capacity(6);
    s.push(FILES[sq.file() as usize]);
    s.push(RANKS[sq.rank() as usize]);
    s
}

/// The kanji of a 0-based rank (`一` for rank a).
pub fn rank_char(rank: u8) -> char {
    RANKS[usize::from(rank.min(8))]
}

/// The name records use for a kind (`成銀`, not the one-character `全`, as most programs write).
pub fn piece_name(pt: PieceType) -> &'static str {
    match pt {
        PieceType::Pawn => "歩",
        PieceType::Lance => "香",
        PieceType::Knight => "桂",
        PieceType::Silver => "銀",
        PieceType::Gold => "金",
        PieceType::Bishop => "角",
        PieceType::Rook => "飛",
        PieceType::King => "玉",
        PieceType::ProPawn => "と",
        PieceType::ProLance => "成香",
        PieceType::ProKnight => "成桂",
        PieceType::ProSilver => "成銀",
        PieceType::Horse => "馬",
        PieceType::Dragon => "龍",
    }
}

/// The one-character name used in board diagrams (`杏`, `圭`, `全` for the promoted ones).
pub fn piece_char(pt: PieceType) -> char {
    match pt {
        PieceType::ProLance => '杏',
        PieceType::ProKnight => '圭',
        PieceType::ProSilver => '全',
        PieceType::Dragon => '龍',
        other => piece_name(other).chars().next().unwrap_or('・'),
    }
}

/// The kind a one-character name stands for, with the variants records use (`王`, `竜`, `全`...).
pub fn piece_from_char(c: char) -> Option<PieceType> {
    Some(match c {
        '歩' => PieceType::Pawn,
        '香' => PieceType::Lance,
        '桂' => PieceType::Knight,
        '銀' => PieceType::Silver,
        '金' => PieceType::Gold,
        '角' => PieceType::Bishop,
        '飛' => PieceType::Rook,
        '玉' | '王' => PieceType::King,
        'と' => PieceType::ProPawn,
        '杏' => PieceType::ProLance,
        '圭' => PieceType::ProKnight,
        '全' => PieceType::ProSilver,
        '馬' => PieceType::Horse,
        '龍' | '竜' => PieceType::Dragon,
        _ => return None,
    })
}

/// A move in KIF: `７六歩(77)`, `同　銀(31)`, `５五角打`, `２二角成(88)`, and `２二角(88)` for a
/// declined promotion, as ShogiHome writes it (its reader refuses `不成` in a KIF move line).
/// `prev_to` is the destination of the previous move, which turns a recapture into `同`.
pub fn move_to_kif(pos: &Position, m: Move, prev_to: Option<Square>) -> String {
    let mut s = destination(m, prev_to);
    if m.is_drop() {
        s.push_str(piece_name(m.dropped()));
        s.push('打');
        return s;
    }
    s.push_str(piece_name(pos.piece_on(m.from()).kind()));
    if m.is_promotion() {
        s.push('成');
    }
    s.push_str(&format!("({}{})", m.from().file() + 1, m.from().rank() + 1));
    s
}

/// A move in KI2 (without the `▲`/`△` mark): `７六歩`, `同　銀`, `５八金右`, `５五角打`.
pub fn move_to_ki2(pos: &Position, m: Move, prev_to: Option<Square>) -> String {
    let mut s = destination(m, prev_to);
    if m.is_drop() {
        let pt = m.dropped();
        s.push_str(piece_name(pt));
        if !reachers(pos, m.to(), pt).is_empty() {
            s.push('打');
        }
        return s;
    }
    let us = pos.side_to_move();
    let kind = pos.piece_on(m.from()).kind();
    s.push_str(piece_name(kind));
    let origins = reachers(pos, m.to(), kind);
    if origins.len() > 1 {
        let motion = Some(motion_of(us, m.from(), m.to()));
        let mut places = vec![Place::Right, Place::Left];
        if !matches!(kind, PieceType::Horse | PieceType::Dragon) {
            places.insert(0, Place::Straight);
        }
        let mut options = vec![(None, motion)];
        options.extend(places.iter().map(|&p| (Some(p), None)));
        options.extend(places.iter().map(|&p| (Some(p), motion)));
        let chosen = options.into_iter().find(|&(place, motion)| {
            select(us, m.to(), &origins, place, motion).as_slice() == [m.from()]
        });
        // Some combination always singles the piece out (a rank and a side of the file cannot
        // hold two pieces that both reach one square by the same motion), but fall back to
        // place and motion together rather than assume it.
        let (place, motion) = chosen.unwrap_or((Some(Place::Right), motion));
        if let Some(p) = place {
            s.push(p.word());
        }
        if let Some(mo) = motion {
            s.push(mo.word());
        }
    }
    s.push_str(promotion_word(pos, m));
    s
}

/// A sequence of moves as `▲７六歩(77)△３四歩(33)`, the form GUIs show a principal variation in
/// (ShogiHome's `*#読み筋=` comment). Stops quietly at the first move that is not legal.
pub fn line_to_kif(pos: &Position, moves: &[Move], prev_to: Option<Square>) -> String {
    write_line(pos, moves, prev_to, move_to_kif)
}

/// Like [`line_to_kif`] in KI2 words: `▲７六歩△３四歩`.
pub fn line_to_ki2(pos: &Position, moves: &[Move], prev_to: Option<Square>) -> String {
    write_line(pos, moves, prev_to, move_to_ki2)
}

/// Each legal move of `moves` in turn, marked with its side and written by `word`.
fn write_line(
    pos: &Position,
    moves: &[Move],
    prev_to: Option<Square>,
    word: fn(&Position, Move, Option<Square>) -> String,
) -> String {
    let mut pos = pos.clone();
    let mut prev = prev_to;
    let mut s = String::new();
    for &m in moves {
        if !legal_moves(&pos).contains(&m) {
            break;
        }
        s.push(mark(pos.side_to_move()));
        s.push_str(&word(&pos, m, prev));
        prev = Some(m.to());
        pos.do_move(m);
    }
    s
}

fn destination(m: Move, prev_to: Option<Square>) -> String {
    if prev_to == Some(m.to()) {
        "同　".to_string()
    } else {
        square_name(m.to())
    }
}

/// `成`, `不成` where the move could have promoted but did not, or nothing: KI2's words, which
/// need `不成` since a KI2 move names no origin.
fn promotion_word(pos: &Position, m: Move) -> &'static str {
    if m.is_drop() {
        ""
    } else if m.is_promotion() {
        "成"
    } else if legal_moves(pos).contains(&Move::normal(m.from(), m.to(), true)) {
        "不成"
    } else {
        ""
    }
}

/// The squares of the mover's pieces of `kind` that reach `to`, legally or not: the pieces a
/// KI2 move must be told apart from. A piece pinned to its king counts, since ShogiHome's
/// reader (tsshogi) and the writers it follows tell apart every piece that attacks the square;
/// words that single a piece out among these also single it out among the legal moves.
fn reachers(pos: &Position, to: Square, kind: PieceType) -> Vec<Square> {
    let us = pos.side_to_move();
    let mut pieces = pos.pieces_cp(us, kind);
    let mut v = Vec::new();
    while let Some(sq) = pieces.pop() {
        if attacks(us, kind, sq, pos.occupied()).has(to) {
            v.push(sq);
        }
    }
    v
}

/// The squares from which a piece of `kind` legally moves to `to`.
fn origins(pos: &Position, legal: &[Move], to: Square, kind: PieceType) -> Vec<Square> {
    let mut v: Vec<Square> = legal
        .iter()
        .filter(|b| !b.is_drop() && b.to() == to && pos.piece_on(b.from()).kind() == kind)
        .map(|b| b.from())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Motion {
    Up,
    Down,
    Sideways,
}

impl Motion {
    fn word(self) -> char {
        match self {
            Motion::Up => '上',
            Motion::Down => '引',
            Motion::Sideways => '寄',
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Place {
    Right,
    Left,
    Straight,
}

impl Place {
    fn word(self) -> char {
        match self {
            Place::Right => '右',
            Place::Left => '左',
            Place::Straight => '直',
        }
    }
}

fn motion_of(us: Color, from: Square, to: Square) -> Motion {
    let (f, t) = (from.relative_rank(us), to.relative_rank(us));
    match t.cmp(&f) {
        std::cmp::Ordering::Less => Motion::Up,
        std::cmp::Ordering::Greater => Motion::Down,
        std::cmp::Ordering::Equal => Motion::Sideways,
    }
}

/// How far to the mover's left a square lies: Black's right is file 1, White's is file 9.
fn leftness(us: Color, sq: Square) -> u8 {
    match us {
        Color::Black => sq.file(),
        Color::White => 8 - sq.file(),
    }
}

/// The origins that fit the words: the motion filters first, then the place picks the
/// rightmost or leftmost of what is left, or the one straight behind the destination.
fn select(
    us: Color,
    to: Square,
    origins: &[Square],
    place: Option<Place>,
    motion: Option<Motion>,
) -> Vec<Square> {
    let mut v: Vec<Square> = origins
        .iter()
        .copied()
        .filter(|&f| motion.is_none_or(|mo| motion_of(us, f, to) == mo))
        .collect();
    match place {
        None => {}
        Some(Place::Straight) => {
            v.retain(|&f| f.file() == to.file() && motion_of(us, f, to) == Motion::Up)
        }
        Some(side) => {
            let key = |f: &Square| leftness(us, *f);
            let extreme = if side == Place::Right {
                v.iter().map(key).min()
            } else {
                v.iter().map(key).max()
            };
            v.retain(|f| Some(key(f)) == extreme);
        }
    }
    v
}

// ---- reading ---------------------------------------------------------------------------------

/// The parts of a Japanese move before it is matched against a position.
#[derive(Debug, Default)]
struct Words {
    /// `None` for `同`.
    to: Option<Square>,
    kind: Option<PieceType>,
    place: Option<Place>,
    motion: Option<Motion>,
    promote: Option<bool>,
    drop: bool,
    from: Option<Square>,
}

fn digit_value(c: char) -> Option<u8> {
    let v = match c {
        '1'..='9' => c as u32 - '0' as u32,
        '１'..='９' => c as u32 - '１' as u32 + 1,
        _ => RANKS.iter().position(|&r| r == c)? as u32 + 1,
    };
    Some(v as u8)
}

/// Reads the words of a move; `text` may start with `▲`/`△`/`☗`/`☖` and carry trailing text.
fn parse_words(text: &str) -> Result<(Words, &str), String> {
    let mut rest = text
        .trim_start()
        .trim_start_matches(['▲', '△', '☗', '☖', '▽', '▼'])
        .trim_start();
    let mut w = Words::default();
    let mut chars = rest.chars();
    let first = chars.next().ok_or("empty move")?;
    if first == '同' || first == '仝' {
        rest = chars.as_str().trim_start_matches([' ', '\u{3000}']);
    } else {
        let file = digit_value(first).ok_or_else(|| format!("no square in '{text}'"))?;
        let rank = chars
            .next()
            .and_then(digit_value)
            .ok_or_else(|| format!("no rank in '{text}'"))?;
        w.to = Some(Square::from_file_rank(file - 1, rank - 1));
        rest = chars.as_str();
        // `７六同　歩` is written by a few programs; the explicit square wins.
        if let Some(r) = rest.strip_prefix('同') {
            rest = r.trim_start_matches([' ', '\u{3000}']);
        }
    }
    // Piece: `成銀`/`成桂`/`成香` are two characters.
    let (kind, r) = if let Some(r) = rest.strip_prefix('成') {
        let mut c = r.chars();
        let base = c.next().and_then(piece_from_char);
        match base {
            Some(PieceType::Silver) => (PieceType::ProSilver, c.as_str()),
            Some(PieceType::Knight) => (PieceType::ProKnight, c.as_str()),
            Some(PieceType::Lance) => (PieceType::ProLance, c.as_str()),
            _ => return Err(format!("unknown piece in '{text}'")),
        }
    } else {
        let mut c = rest.chars();
        let k = c
            .next()
            .and_then(piece_from_char)
            .ok_or_else(|| format!("unknown piece in '{text}'"))?;
        (k, c.as_str())
    };
    w.kind = Some(kind);
    rest = r;
    loop {
        if let Some(r) = rest.strip_prefix('右') {
            w.place = Some(Place::Right);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('左') {
            w.place = Some(Place::Left);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('直') {
            w.place = Some(Place::Straight);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('上').or_else(|| rest.strip_prefix('行')) {
            w.motion = Some(Motion::Up);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('引') {
            w.motion = Some(Motion::Down);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('寄') {
            w.motion = Some(Motion::Sideways);
            rest = r;
        } else if let Some(r) = rest
            .strip_prefix("不成")
            .or_else(|| rest.strip_prefix('生'))
        {
            w.promote = Some(false);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('成') {
            w.promote = Some(true);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('打') {
            w.drop = true;
            rest = r;
        } else {
            break;
        }
    }
    if let Some(r) = rest.strip_prefix('(') {
        let close = r
            .find(')')
            .ok_or_else(|| format!("unclosed '(' in '{text}'"))?;
        let inner = r[..close].trim();
        let digits: Vec<u8> = inner.chars().filter_map(digit_value).collect();
        match digits.as_slice() {
            // `(00)` marks a drop in some writers.
            [] if inner == "00" => w.drop = true,
            [f, r] => w.from = Some(Square::from_file_rank(f - 1, r - 1)),
            _ if inner.chars().all(|c| c == '0') => w.drop = true,
            _ => return Err(format!("bad origin '({inner})' in '{text}'")),
        }
        rest = &r[close + 1..];
    }
    Ok((w, rest))
}

/// The words of a move with the square it goes to (`同`: `prev_to`) and the kind it names (a
/// pawn where it names none), and the text after it.
fn parse_target(
    text: &str,
    prev_to: Option<Square>,
) -> Result<(Words, Square, PieceType, &str), String> {
    let (w, rest) = parse_words(text)?;
    let to =
        w.to.or(prev_to)
            .ok_or_else(|| "'同' with no previous move".to_string())?;
    let kind = w.kind.unwrap_or(PieceType::Pawn);
    Ok((w, to, kind, rest))
}

/// Reads one KIF move (`７六歩(77)`, `同　銀(31)`, `５五角打`); the move must be legal in `pos`.
/// Returns the move and the text after it (a time column, for instance).
pub fn parse_kif_move<'a>(
    pos: &Position,
    text: &'a str,
    prev_to: Option<Square>,
) -> Result<(Move, &'a str), String> {
    let (w, to, kind, rest) = parse_target(text, prev_to)?;
    let m = if let Some(from) = w.from {
        let p = pos.piece_on(from);
        if p.is_none() || p.color() != pos.side_to_move() {
            return Err(format!(
                "no piece of the side to move on {}{}",
                from.file() + 1,
                from.rank() + 1
            ));
        }
        if p.kind() != kind {
            return Err(format!(
                "the piece on {}{} is {}, not {}",
                from.file() + 1,
                from.rank() + 1,
                piece_name(p.kind()),
                piece_name(kind)
            ));
        }
        Move::normal(from, to, w.promote == Some(true))
    } else if w.drop {
        if !PieceType::HAND.contains(&kind) {
            return Err(format!("cannot drop {}", piece_name(kind)));
        }
        Move::drop(kind, to)
    } else {
        // No origin: read it as KI2 words.
        return parse_ki2_move(pos, text, prev_to);
    };
    if legal_moves(pos).contains(&m) {
        Ok((m, rest))
    } else {
        Err(format!("illegal move ({m})"))
    }
}

/// Reads one KI2 move (`▲７六歩`, `同　銀上`, `５八金右`, `２二角成`, `５五角打`); the words
/// must single out exactly one legal move in `pos`. Returns the move and the text after it.
pub fn parse_ki2_move<'a>(
    pos: &Position,
    text: &'a str,
    prev_to: Option<Square>,
) -> Result<(Move, &'a str), String> {
    let (w, to, kind, rest) = parse_target(text, prev_to)?;
    let us = pos.side_to_move();
    let legal = legal_moves(pos);
    if let Some(from) = w.from {
        let m = Move::normal(from, to, w.promote == Some(true));
        return if legal.contains(&m) && pos.piece_on(from).kind() == kind {
            Ok((m, rest))
        } else {
            Err(format!("illegal move ({m})"))
        };
    }
    let drop = Move::drop(kind, to);
    let drop_legal = PieceType::HAND.contains(&kind) && legal.contains(&drop);
    if w.drop {
        return if drop_legal {
            Ok((drop, rest))
        } else {
            Err(format!("illegal drop ({drop})"))
        };
    }
    let origins = origins(pos, &legal, to, kind);
    let chosen = select(us, to, &origins, w.place, w.motion);
    match chosen.as_slice() {
        [] if drop_legal && w.place.is_none() && w.motion.is_none() && w.promote.is_none() => {
            Ok((drop, rest))
        }
        [] => Err(format!(
            "no {} can move to {}",
            piece_name(kind),
            square_name(to)
        )),
        [from] => {
            let plain = Move::normal(*from, to, false);
            let promoted = Move::normal(*from, to, true);
            let m = match w.promote {
                Some(true) => promoted,
                // With neither word, the non-promotion (a move that must promote says `成`).
                Some(false) | None => plain,
            };
            if legal.contains(&m) {
                Ok((m, rest))
            } else if w.promote.is_none() && legal.contains(&promoted) {
                Err(format!("'{text}' must say 成 (the piece has to promote)"))
            } else {
                Err(format!("illegal move ({m})"))
            }
        }
        _ => Err(format!(
            "'{}' fits {} pieces; it needs 右, 左, 直, 上, 引 or 寄",
            text.trim(),
            chosen.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kif_text_of_plain_moves() {
        let p = Position::startpos();
        let m = p.parse_move("7g7f").unwrap();
        assert_eq!(move_to_kif(&p, m, None), "７六歩(77)");
        let (back, rest) = parse_kif_move(&p, "７六歩(77)   ( 0:01/00:00:01)", None).unwrap();
        assert_eq!((back, rest.trim()), (m, "( 0:01/00:00:01)"));
    }

    #[test]
    fn ki2_words_for_two_golds() {
        // Black golds on 6i and 4i both reach 5h.
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/3GKG3 b - 1").unwrap();
        let left = p.parse_move("6i5h").unwrap();
        let right = p.parse_move("4i5h").unwrap();
        assert_eq!(move_to_ki2(&p, left, None), "５八金左");
        assert_eq!(move_to_ki2(&p, right, None), "５八金右");
        assert_eq!(parse_ki2_move(&p, "▲５八金左", None).unwrap().0, left);
        assert!(parse_ki2_move(&p, "▲５八金", None).is_err());
    }
}
