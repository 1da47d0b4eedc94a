//! Move generation: pseudo-legal (moving into check is allowed), lion moves counted by effect
//! (one move per distinct resulting position: a double move only when the first step captures,
//! one pass per position), both promotion choices where promotion is optional.

use super::attacks::{
    DIRS, MAILBOX, MB_RANK, MB_TO_SQ, PATTERNS, Pattern, SQ_TO_MB, relative_rank,
};
use super::position::{DeclinedPawnRule, Position, RepetitionRule, color_bit};
use super::types::{Move, PieceType, Square, WHITE_BIT, parse_move_text};
use crate::shogi::Color;

thread_local! {
    /// One piece's moves, for `is_legal_move`.
    static PIECE_MOVES: std::cell::RefCell<Vec<Move>> = std::cell::RefCell::new(Vec::with_capacity(256));
}

/// Which moves to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GenType {
    All,
    /// Captures (igui and double captures included) and promotions.
    Tactical,
    /// Everything else: non-capturing non-promotions, the pass.
    Quiet,
}

/// A cell's content as seen by one side: an enemy piece is exactly `1..=63` after xor with the
/// enemy's colour bit; empty is 0 only before the xor, off-board and own pieces are 64 and up.
#[inline]
fn is_enemy(c: u8, them_bit: u8) -> bool {
    let x = c ^ them_bit;
    (1..64).contains(&x)
}

/// Calls `visit(cell, content, jumped)` for each cell the piece with pattern `pat` on cell `from`
/// reaches, whoever stands there: along each slide or step up to and including the first
/// occupied cell, then each jump (`jumped` set). `sign` turns Black's pattern for White. Move
/// generation and mobility both walk a piece's reach this way. The walk is inlined, and visits
/// empty and occupied cells from separate branches, so that each caller's visit is compiled once
/// for an empty cell and once for a piece: as cheap as when each caller wrote the walk out.
#[inline(always)]
fn visit_reach(
    board: &[u8; MAILBOX],
    pat: &Pattern,
    from: usize,
    sign: i32,
    mut visit: impl FnMut(usize, u8, bool),
) {
    for (&r, &dir) in pat.range.iter().zip(DIRS.iter()) {
        if r == 0 {
            continue;
        }
        let d = dir * sign;
        let mut t = from as i32;
        for _ in 0..r {
            t += d;
            let c = board[t as usize];
            if c == 0 {
                visit(t as usize, 0, false);
            } else {
                visit(t as usize, c, false);
                break;
            }
        }
    }
    for &j in &pat.jumps[..pat.jump_count as usize] {
        let t = (from as i32 + i32::from(j) * sign) as usize;
        let c = board[t];
        if c == 0 {
            visit(t, 0, true);
        } else {
            visit(t, c, true);
        }
    }
}

#[inline]
pub(crate) fn in_zone(mb: usize, white: bool) -> bool {
    relative_rank(MB_RANK[mb], white) <= 4
}

#[inline]
fn sq(mb: usize) -> Square {
    // Only on-board cells reach here.
    match Square::from_index(MB_TO_SQ[mb] as usize) {
        Some(s) => s,
        None => unreachable!("off-board cell {mb} in a move"),
    }
}

/// Whether a move from cell `from` to cell `to` gives a promotion chance (to a piece of a
/// promotable kind): a non-capture that enters the zone, a capture that starts or ends in it;
/// for a pawn that has declined one under [`DeclinedPawnRule::LastRankOnly`], only a capture
/// onto the last rank.
#[inline]
fn chance(from: usize, to: usize, capture: bool, white: bool, declined: bool) -> bool {
    if declined {
        capture && relative_rank(MB_RANK[to], white) == 0
    } else if capture {
        in_zone(from, white) || in_zone(to, white)
    } else {
        !in_zone(from, white) && in_zone(to, white)
    }
}

/// Whether `kind` reaching `to` with a promotion chance must promote (reference rule).
#[inline]
fn must_promote(kind: u8, to: usize, white: bool) -> bool {
    let rr = relative_rank(MB_RANK[to], white);
    match kind {
        k if k == PieceType::Pawn as u8
            || k == PieceType::Lance as u8
            || k == PieceType::Iron as u8
            || k == PieceType::Stone as u8 =>
        {
            rr == 0
        }
        k if k == PieceType::Knight as u8 => rr <= 1,
        _ => false,
    }
}

struct Gen<'a> {
    list: &'a mut Vec<Move>,
    which: GenType,
    white: bool,
    forced_promotion: bool,
    /// The piece is a pawn that has declined a promotion, under the rule where that counts.
    declined: bool,
}

impl Gen<'_> {
    #[inline]
    fn push(&mut self, from: usize, to: usize, kind: u8, capture: bool) {
        if (2..=27).contains(&kind) && chance(from, to, capture, self.white, self.declined) {
            if self.which != GenType::Quiet {
                self.list.push(Move::normal(sq(from), sq(to), true));
            }
            if self.forced_promotion && must_promote(kind, to, self.white) {
                return;
            }
        }
        let wanted = match self.which {
            GenType::All => true,
            GenType::Tactical => capture,
            GenType::Quiet => !capture,
        };
        if wanted {
            self.list.push(Move::normal(sq(from), sq(to), false));
        }
    }

    #[inline]
    fn push_lion(&mut self, from: usize, mid: usize, to: usize) {
        // Every move through a mid square but the pass captures.
        if self.which != GenType::Quiet {
            self.list.push(Move::with_mid(sq(from), sq(mid), sq(to)));
        }
    }
}

impl Position {
    /// Every legal move (pseudo-legal, with the repetition rule if it is on).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = Vec::with_capacity(256);
        self.generate(GenType::All, &mut list);
        list
    }

    /// Captures and promotions, appended to `list`.
    pub fn captures(&self, list: &mut Vec<Move>) {
        self.generate(GenType::Tactical, list);
    }

    /// Every legal move `captures` leaves out, appended to `list`.
    pub fn quiets(&self, list: &mut Vec<Move>) {
        self.generate(GenType::Quiet, list);
    }

    pub fn generate(&self, which: GenType, list: &mut Vec<Move>) {
        let start = list.len();
        let us = self.side.index();
        for i in 0..self.count[us] {
            self.generate_piece(self.list[us][i] as usize, which, list);
        }
        if which != GenType::Tactical
            && let Some(pass) = self.canonical_pass()
        {
            list.push(pass);
        }
        if self.rules.repetition == RepetitionRule::Illegal && self.state().reversible > 0 {
            let mut i = start;
            while i < list.len() {
                if self.repeats(list[i]) {
                    list.swap_remove(i);
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Whether the piece of the side to move on cell `from` gets a promotion chance by moving
    /// to cell `to` (capturing there or not), by kind and rules.
    pub(crate) fn promotion_chance(&self, from: usize, to: usize, capture: bool) -> bool {
        let kind = self.board[from] & 63;
        (2..=27).contains(&kind)
            && chance(
                from,
                to,
                capture,
                self.side == Color::White,
                self.declined_counts(from),
            )
    }

    /// Whether the piece on cell `from` is a pawn whose declined promotion limits its chances.
    #[inline]
    fn declined_counts(&self, from: usize) -> bool {
        self.rules.declined_pawn == DeclinedPawnRule::LastRankOnly && self.is_declined(from)
    }

    pub(crate) fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    /// The moves of the piece on cell `from` (of the side to move), without the pass.
    fn generate_piece(&self, from: usize, which: GenType, list: &mut Vec<Move>) {
        let white = self.side == Color::White;
        let sign = if white { -1 } else { 1 };
        let them_bit = color_bit(self.side.flip());
        let board = &self.board;
        let p = board[from];
        let kind = p & 63;
        let pat = &PATTERNS[kind as usize];
        let mut g = Gen {
            list,
            which,
            white,
            forced_promotion: self.rules.forced_promotion,
            declined: self.declined_counts(from),
        };
        visit_reach(board, pat, from, sign, |t, c, jumped| {
            if c == 0 {
                if jumped || which != GenType::Tactical || (2..=27).contains(&kind) {
                    g.push(from, t, kind, false);
                }
            } else if is_enemy(c, them_bit) {
                g.push(from, t, kind, true);
            }
        });
        if pat.lion_dirs != 0 {
            for (k, &dir) in DIRS.iter().enumerate() {
                if pat.lion_dirs & 1 << k == 0 {
                    continue;
                }
                let d = dir * sign;
                let a1 = (from as i32 + d) as usize;
                if !is_enemy(board[a1], them_bit) {
                    continue;
                }
                if self.igui_owner(a1) == Some(from) {
                    g.push_lion(from, a1, from);
                }
                if pat.full_lion {
                    for &d2 in DIRS.iter() {
                        let a2 = (a1 as i32 + d2) as usize;
                        if a2 != from && (board[a2] == 0 || is_enemy(board[a2], them_bit)) {
                            g.push_lion(from, a1, a2);
                        }
                    }
                } else {
                    let a2 = (a1 as i32 + d) as usize;
                    if board[a2] == 0 || is_enemy(board[a2], them_bit) {
                        g.push_lion(from, a1, a2);
                    }
                }
            }
        }
    }

    /// How many squares the piece on `sq` (of either side) could move to by one step, slide or
    /// jump: the empty ones and those holding an enemy piece, whoever is to move. The
    /// evaluation's mobility. A lion's double moves add nothing: they end within the 5x5 area
    /// its jumps already count.
    pub fn reach(&self, sq: Square) -> u32 {
        let board = &self.board;
        let from = SQ_TO_MB[sq.index()] as usize;
        let p = board[from];
        if p == 0 {
            return 0;
        }
        let white = p & WHITE_BIT != 0;
        let sign = if white { -1 } else { 1 };
        let them_bit = if white { 0 } else { WHITE_BIT };
        let pat = &PATTERNS[(p & 63) as usize];
        let mut n = 0;
        visit_reach(board, pat, from, sign, |_, c, _| {
            n += u32::from(c == 0 || is_enemy(c, them_bit));
        });
        n
    }

    /// The one pass of this position: by the piece with lion power on the lowest square that
    /// has an empty square next to it in a lion direction, through the first such square.
    pub(crate) fn canonical_pass(&self) -> Option<Move> {
        let us = self.side.index();
        let mut best: Option<(usize, usize)> = None;
        for &from in &self.list[us][..self.count[us]] {
            let from = from as usize;
            if best.is_some_and(|(b, _)| MB_TO_SQ[b] < MB_TO_SQ[from]) {
                continue;
            }
            if let Some(mid) = self.pass_square(from) {
                best = Some((from, mid));
            }
        }
        best.map(|(from, mid)| Move::with_mid(sq(from), sq(mid), sq(from)))
    }

    /// Whether the piece on `from` (of the side to move) has lion power towards the adjacent
    /// cell `target`.
    fn lion_reaches(&self, from: usize, target: usize) -> bool {
        let c = self.board[from];
        if c == 0 || c & 128 != 0 || c & WHITE_BIT != color_bit(self.side) {
            return false;
        }
        let pat = &PATTERNS[(c & 63) as usize];
        let sign = if self.side == Color::White { -1 } else { 1 };
        (0..8).any(|k| {
            pat.lion_dirs & 1 << k != 0 && (from as i32 + DIRS[k] * sign) as usize == target
        })
    }

    /// The piece that makes the one igui on the enemy on cell `victim`: every igui on it leaves
    /// the same position, so the piece with lion power towards it on the lowest square does.
    pub(crate) fn igui_owner(&self, victim: usize) -> Option<usize> {
        DIRS.iter()
            .map(|&d| (victim as i32 + d) as usize)
            .filter(|&n| self.lion_reaches(n, victim))
            .min_by_key(|&n| MB_TO_SQ[n])
    }

    /// The first empty square next to the piece on `from` in one of its lion directions.
    fn pass_square(&self, from: usize) -> Option<usize> {
        let pat = &PATTERNS[(self.board[from] & 63) as usize];
        if pat.lion_dirs == 0 {
            return None;
        }
        let sign = if self.side == Color::White { -1 } else { 1 };
        (0..8)
            .filter(|k| pat.lion_dirs & 1 << k != 0)
            .map(|k| (from as i32 + DIRS[k] * sign) as usize)
            .find(|&a| self.board[a] == 0)
    }

    fn own_piece_at(&self, mb: usize) -> bool {
        let c = self.board[mb];
        c != 0 && c & 128 == 0 && c & WHITE_BIT == color_bit(self.side)
    }

    /// Whether `m` is a pass by some piece of the side to move: a lion-power piece going
    /// through an empty square next to it in a lion direction and back.
    fn is_pass_shape(&self, m: Move) -> bool {
        let Some(mid) = m.mid() else { return false };
        let mid = SQ_TO_MB[mid.index()] as usize;
        m.origin_index() == m.dest_index()
            && self.board[mid] == 0
            && self.lion_reaches(SQ_TO_MB[m.origin_index()] as usize, mid)
    }

    /// Whether any 32-bit value `m` is a legal move here.
    pub fn is_legal_move(&self, m: Move) -> bool {
        let raw = m.raw();
        if m.is_none() || raw >> 25 != 0 || m.from().is_none() || m.to().is_none() {
            return false;
        }
        if m.mid_code() > 225 || (m.mid_code() != 0 && m.is_promotion()) {
            return false;
        }
        let from = SQ_TO_MB[m.origin_index()] as usize;
        if !self.own_piece_at(from) {
            return false;
        }
        let legal = if m.mid().is_some() && m.origin_index() == m.dest_index() && {
            let mid = SQ_TO_MB[m.mid_code() - 1] as usize;
            self.board[mid] == 0
        } {
            self.canonical_pass() == Some(m)
        } else {
            // Hash-table moves are checked at every node that has one: reuse one buffer per
            // thread instead of allocating.
            PIECE_MOVES.with(|buffer| {
                let mut list = buffer.borrow_mut();
                list.clear();
                self.generate_piece(from, GenType::All, &mut list);
                list.contains(&m)
            })
        };
        legal && !(self.rules.repetition == RepetitionRule::Illegal && self.repeats(m))
    }

    /// Reads a move in this position: `8m10n`, `8m10n+`, `8h8g9f`, igui `8h8g8h`, a pass as
    /// `8h8g8h` through an empty square or `pass`. Only legal moves are accepted; any pass text
    /// is read as the position's one pass.
    pub fn parse_move(&self, text: &str) -> Result<Move, String> {
        let t = text.trim();
        if t == "pass" {
            return match self.canonical_pass() {
                Some(m) if self.is_legal_move(m) => Ok(m),
                _ => Err("no pass is possible in this dai position".to_string()),
            };
        }
        let Some((from, mid, to, promote)) = parse_move_text(t) else {
            return Err(format!(
                "bad dai move {t:?}: expected squares like 8m10n, 8m10n+, 8h8g9f or pass"
            ));
        };
        let m = match mid {
            None => Move::normal(from, to, promote),
            Some(mid) => Move::with_mid(from, mid, to),
        };
        if self.is_pass_shape(m) {
            return match self.canonical_pass() {
                Some(p) if self.is_legal_move(p) => Ok(p),
                _ => Err(format!("illegal dai move {t}: passing repeats a position")),
            };
        }
        // Igui by any piece that can make it is the position's one igui on that piece.
        if let Some(mid) = m.mid()
            && m.origin_index() == m.dest_index()
        {
            let from = SQ_TO_MB[m.origin_index()] as usize;
            let victim = SQ_TO_MB[mid.index()] as usize;
            if is_enemy(self.board[victim], color_bit(self.side.flip()))
                && self.lion_reaches(from, victim)
                && let Some(owner) = self.igui_owner(victim)
            {
                let canonical = Move::with_mid(sq(owner), mid, sq(owner));
                if self.is_legal_move(canonical) {
                    return Ok(canonical);
                }
            }
        }
        if self.is_legal_move(m) {
            Ok(m)
        } else {
            Err(format!("illegal dai move {t} in this position"))
        }
    }
}
