//! The dai board state: the mailbox, piece lists, side to move, keys, royal counts and the
//! history needed to undo moves and to apply the repetition rule.

use super::attacks::{
    DIRS, MAILBOX, MB_TO_SQ, OFF, PATTERNS, SIDE_KEY, SQ_TO_MB, ZOBRIST, has_jump,
};
use super::types::{Move, Piece, PieceType, SQUARES, Square, WHITE_BIT};
use crate::shogi::Color;

pub const START_SFEN: &str = "lnuicsgkgsciunl/a1c'1f1tet1f1c'1a/1x'1a'1wxl!ow1a'1x'1/rf'mvbhdqdhbvmf'r/ppppppppppppppp/4p'5p'4/15/15/15/4P'5P'4/PPPPPPPPPPPPPPP/RF'MVBHDQDHBVMF'R/1X'1A'1WOL!XW1A'1X'1/A1C'1F1TET1F1C'1A/LNUICSGKGSCIUNL b - 1";

/// What the repetition rule does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum RepetitionRule {
    /// The reference engine's rule: a move that recreates a position seen since the last
    /// irreversible move (capture, promotion, or a move of an unpromoted pawn, lance, knight,
    /// iron or stone), with the same side to move, is illegal.
    #[default]
    Illegal,
    /// Repetitions are legal; the fourth occurrence of a position is a draw.
    FourfoldDraw,
    /// No repetition rule at all (perft).
    Off,
}

/// What becomes of a pawn's later promotion chances once it has declined one.
///
/// The default is the rule of `../shared/docs/dai.md`, which states the promotion chances
/// outright (every capture that starts or ends in the zone is one) and names the reference
/// engine only for forced promotion and repetition. HaChu 0.21, the reference engine, has
/// one exception (in move-reading code its other shogi variants share): a pawn that declines
/// a promotion loses it for good but on the last rank. HaChu never declines a pawn's promotion
/// itself, so the rule only shows when an opponent declines one; a rule HaChu applies to its
/// opponents' moves only is no reason to leave dai.md's default.
/// [`DeclinedPawnRule::LastRankOnly`] plays by it, for games against HaChu.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum DeclinedPawnRule {
    /// Declining changes nothing: the pawn's next capture in the zone is a chance again.
    #[default]
    KeepsChances,
    /// A pawn that has declined a promotion has no chance afterwards but a capture onto the
    /// last rank (where it must promote under `forced_promotion`).
    LastRankOnly,
}

impl DeclinedPawnRule {
    /// The names the command line and the USI option use, with their rules.
    pub const NAMES: [(&'static str, DeclinedPawnRule); 2] = [
        ("keep-chances", DeclinedPawnRule::KeepsChances),
        ("last-rank", DeclinedPawnRule::LastRankOnly),
    ];

    pub fn from_name(name: &str) -> Option<DeclinedPawnRule> {
        Self::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, r)| r)
    }

    pub fn name(self) -> &'static str {
        match self {
            DeclinedPawnRule::KeepsChances => Self::NAMES[0].0,
            DeclinedPawnRule::LastRankOnly => Self::NAMES[1].0,
        }
    }
}

/// The rule choices where sources disagree; `Rules::default()` follows
/// `../shared/docs/dai.md` (the reference engine's rule where it names one).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    pub repetition: RepetitionRule,
    /// A pawn, lance, iron or stone reaching the last rank, or a knight the last two, with a
    /// promotion chance must promote (true, the reference rule); false leaves it optional.
    pub forced_promotion: bool,
    /// Set before any move is played: which pawns have declined is tracked only under
    /// [`DeclinedPawnRule::LastRankOnly`].
    pub declined_pawn: DeclinedPawnRule,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            repetition: RepetitionRule::Illegal,
            forced_promotion: true,
            declined_pawn: DeclinedPawnRule::KeepsChances,
        }
    }
}

/// How the game stands for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ongoing,
    /// The game is over and this side has won.
    Won(Color),
    Drawn,
}

/// What a move changed, so `undo_move` needs no search and repetition checks no replay.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateInfo {
    pub key: u64,
    /// Pieces captured on the mid square and on the destination (0 for none).
    pub captured: [u8; 2],
    pub last_move: Move,
    /// Plies since the last irreversible move or null move.
    pub reversible: u16,
    pub null: bool,
    /// Which pieces the move touched were declined pawns before it ([`Declined`] bits), so
    /// `undo_move` can mark them again.
    pub declined: u8,
}

/// Bits of [`StateInfo::declined`].
pub(crate) struct Declined;

impl Declined {
    pub const MOVER: u8 = 1;
    pub const CAPTURED_TO: u8 = 2;
    pub const CAPTURED_MID: u8 = 4;
}

#[derive(Clone)]
pub struct Position {
    pub(crate) board: [u8; MAILBOX],
    /// Mailbox cells of each side's pieces, in no particular order.
    pub(crate) list: [[u16; SQUARES]; 2],
    pub(crate) count: [usize; 2],
    /// Each occupied cell's index in its side's list.
    pub(crate) list_index: [u8; MAILBOX],
    pub(crate) side: Color,
    pub(crate) royals: [u32; 2],
    pub(crate) start_ply: u32,
    pub(crate) states: Vec<StateInfo>,
    pub(crate) rules: Rules,
    /// Squares (by index) of the pawns that have declined a promotion, kept under
    /// [`DeclinedPawnRule::LastRankOnly`] only. An SFEN cannot say it: a position read from
    /// one has none.
    pub(crate) declined: [u64; 4],
}

#[inline]
pub(crate) fn color_bit(c: Color) -> u8 {
    match c {
        Color::Black => 0,
        Color::White => WHITE_BIT,
    }
}

#[inline]
fn is_royal_raw(p: u8) -> bool {
    matches!(Piece::from_raw(p).kind(), Some(k) if k.is_royal())
}

/// Kinds whose move is irreversible for the repetition rule.
#[inline]
fn irreversible_kind(p: u8) -> bool {
    use PieceType::*;
    matches!(
        Piece::from_raw(p).kind(),
        Some(Pawn | Lance | Knight | Iron | Stone)
    )
}

#[inline]
fn zkey(p: u8, mb: usize) -> u64 {
    ZOBRIST[p as usize & 127][MB_TO_SQ[mb] as usize]
}

/// Kind 63 is no piece: its keys mark a declined pawn on a square.
#[inline]
fn declined_key(mb: usize) -> u64 {
    ZOBRIST[63][MB_TO_SQ[mb] as usize]
}

impl Position {
    pub(crate) fn empty() -> Position {
        let mut board = [OFF; MAILBOX];
        for &mb in SQ_TO_MB.iter() {
            board[mb as usize] = 0;
        }
        Position {
            board,
            list: [[0; SQUARES]; 2],
            count: [0; 2],
            list_index: [0; MAILBOX],
            side: Color::Black,
            royals: [0; 2],
            start_ply: 1,
            states: Vec::with_capacity(256),
            rules: Rules::default(),
            declined: [0; 4],
        }
    }

    pub fn startpos() -> Position {
        match Position::from_sfen(START_SFEN) {
            Ok(p) => p,
            Err(e) => unreachable!("the dai start position must parse: {e}"),
        }
    }

    // ---- queries ---------------------------------------------------------------------------

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// Whether the piece on cell `mb` is a pawn that has declined a promotion (tracked under
    /// [`DeclinedPawnRule::LastRankOnly`] only).
    #[inline]
    pub(crate) fn is_declined(&self, mb: usize) -> bool {
        let sq = MB_TO_SQ[mb] as usize;
        self.declined[sq / 64] >> (sq % 64) & 1 != 0
    }

    /// Whether the pawn on `sq` has declined a promotion (always false unless the rules
    /// track it).
    pub fn declined_pawn_on(&self, sq: Square) -> bool {
        self.is_declined(SQ_TO_MB[sq.index()] as usize)
    }

    #[inline]
    fn set_declined(&mut self, mb: usize, on: bool) {
        let sq = MB_TO_SQ[mb] as usize;
        let bit = 1u64 << (sq % 64);
        if on {
            self.declined[sq / 64] |= bit;
        } else {
            self.declined[sq / 64] &= !bit;
        }
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn piece_on(&self, sq: Square) -> Piece {
        Piece::from_raw(self.board[SQ_TO_MB[sq.index()] as usize])
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.state().key
    }

    /// The SFEN move number of the current position.
    pub fn game_ply(&self) -> u32 {
        self.start_ply + self.states.len() as u32 - 1
    }

    /// `Move::NONE` at the root and after a null move.
    pub fn last_move(&self) -> Move {
        self.state().last_move
    }

    /// Royal pieces (king, crown princes) `c` has on the board.
    pub fn royals(&self, c: Color) -> u32 {
        self.royals[c.index()]
    }

    /// Pieces of `c` on the board.
    pub fn piece_count(&self, c: Color) -> usize {
        self.count[c.index()]
    }

    /// The squares of `c`'s pieces.
    pub fn pieces(&self, c: Color) -> impl Iterator<Item = Square> + '_ {
        self.list[c.index()][..self.count[c.index()]]
            .iter()
            .filter_map(|&mb| Square::from_index(MB_TO_SQ[mb as usize] as usize))
    }

    #[inline]
    pub(crate) fn state(&self) -> &StateInfo {
        // The history always holds the current position's entry.
        &self.states[self.states.len() - 1]
    }

    /// Whether a royal of the side to move is attacked. Moves are pseudo-legal in dai shogi,
    /// so this only informs (the search's extensions, the display).
    pub fn in_check(&self) -> bool {
        self.royal_attacked(&self.board, self.side)
    }

    /// Whether some royal of `victim` is attacked by the other side.
    pub fn royal_attacked_of(&self, victim: Color) -> bool {
        self.royal_attacked(&self.board, victim)
    }

    /// Whether some royal of `victim` on `board` is attacked by the other side.
    fn royal_attacked(&self, board: &[u8; MAILBOX], victim: Color) -> bool {
        let v = victim.index();
        self.list[v][..self.count[v]].iter().any(|&mb| {
            let p = board[mb as usize];
            p != 0
                && p != OFF
                && Piece::from_raw(p).color() == victim
                && is_royal_raw(p)
                && attacked(board, mb as usize, victim.flip())
        })
    }

    /// Whether `m` (a legal move) leaves a royal of the opponent attacked.
    pub fn gives_check(&self, m: Move) -> bool {
        let mut board = self.board;
        let from = SQ_TO_MB[m.origin_index()] as usize;
        let to = SQ_TO_MB[m.dest_index()] as usize;
        let p = board[from];
        if m.mid_code() != 0 {
            board[SQ_TO_MB[m.mid_code() - 1] as usize] = 0;
        }
        board[from] = 0;
        board[to] = if m.is_promotion() { p + 28 } else { p };
        // The opponent's royals: those on the list still on the board after the move.
        self.royal_attacked(&board, self.side.flip())
    }

    /// The piece that `m` moves (none for a value that moves nothing).
    pub fn moved_piece(&self, m: Move) -> Piece {
        Piece::from_raw(self.board[SQ_TO_MB[m.origin_index()] as usize] & 127)
    }

    /// The pieces `m` captures: on its mid square, then on its destination.
    pub fn captured_pieces(&self, m: Move) -> [Piece; 2] {
        let at = |mb: usize| Piece::from_raw(self.board[mb] & 127);
        let mid = match m.mid_code() {
            0 => Piece::NONE,
            c => at(SQ_TO_MB[c - 1] as usize),
        };
        let to = if m.origin_index() == m.dest_index() {
            Piece::NONE
        } else {
            at(SQ_TO_MB[m.dest_index()] as usize)
        };
        [mid, to]
    }

    pub fn is_capture(&self, m: Move) -> bool {
        self.captured_pieces(m).iter().any(|p| !p.is_none())
    }

    /// Exchange value of everything `m` captures (0 for none).
    pub fn captured_value(&self, m: Move) -> i32 {
        self.captured_pieces(m)
            .iter()
            .filter_map(|p| p.kind())
            .map(super::value)
            .sum()
    }

    /// Whether `sq` is attacked by `by` (a capture on it is among `by`'s moves).
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        attacked(&self.board, SQ_TO_MB[sq.index()] as usize, by)
    }

    // ---- making moves ----------------------------------------------------------------------

    pub(crate) fn put(&mut self, mb: usize, p: u8) {
        let c = Piece::from_raw(p).color().index();
        self.board[mb] = p;
        self.list_index[mb] = self.count[c] as u8;
        self.list[c][self.count[c]] = mb as u16;
        self.count[c] += 1;
        if is_royal_raw(p) {
            self.royals[c] += 1;
        }
    }

    fn remove(&mut self, mb: usize) {
        let p = self.board[mb];
        let c = Piece::from_raw(p).color().index();
        let i = self.list_index[mb] as usize;
        self.count[c] -= 1;
        let last = self.list[c][self.count[c]];
        self.list[c][i] = last;
        self.list_index[last as usize] = i as u8;
        self.board[mb] = 0;
        if is_royal_raw(p) {
            self.royals[c] -= 1;
        }
    }

    fn relocate(&mut self, from: usize, to: usize, p: u8) {
        let c = Piece::from_raw(p).color().index();
        let i = self.list_index[from] as usize;
        self.list[c][i] = to as u16;
        self.list_index[to] = i as u8;
        let old = self.board[from];
        self.board[from] = 0;
        self.board[to] = p;
        // A promotion (drunk elephant to crown prince) or its undo changes the royal count.
        match (is_royal_raw(old), is_royal_raw(p)) {
            (false, true) => self.royals[c] += 1,
            (true, false) => self.royals[c] -= 1,
            _ => {}
        }
    }

    /// Takes the piece on cell `at` off the board as a capture, and it and its declined mark
    /// out of `key`. Returns `mark` if the piece had a declined mark (for the undo), else 0.
    #[inline]
    fn capture(&mut self, at: usize, mark: u8, key: &mut u64) -> u8 {
        *key ^= zkey(self.board[at], at);
        let had = self.is_declined(at);
        if had {
            *key ^= declined_key(at);
            self.set_declined(at, false);
        }
        self.remove(at);
        if had { mark } else { 0 }
    }

    /// Plays `m`, which must be legal here (from the move list or `is_legal_move`).
    pub fn do_move(&mut self, m: Move) {
        let prev = *self.state();
        let from = SQ_TO_MB[m.origin_index()] as usize;
        let to = SQ_TO_MB[m.dest_index()] as usize;
        let p = self.board[from];
        let mut key = prev.key ^ SIDE_KEY;
        let mut captured = [0u8; 2];
        let mut irreversible = irreversible_kind(p) || m.is_promotion();
        let track = self.rules.declined_pawn == DeclinedPawnRule::LastRankOnly;
        let mut declined = 0;
        if m.mid_code() != 0 {
            let mid = SQ_TO_MB[m.mid_code() - 1] as usize;
            let c = self.board[mid];
            if c != 0 {
                captured[0] = c;
                declined |= self.capture(mid, Declined::CAPTURED_MID, &mut key);
                irreversible = true;
            }
        }
        if to != from {
            let c = self.board[to];
            // Asked before the capture: the chance depends on it.
            let declines = track
                && !m.is_promotion()
                && p & 63 == PieceType::Pawn as u8
                && self.promotion_chance(from, to, c != 0);
            if c != 0 {
                captured[1] = c;
                declined |= self.capture(to, Declined::CAPTURED_TO, &mut key);
                irreversible = true;
            }
            let moved = if m.is_promotion() { p + 28 } else { p };
            key ^= zkey(p, from) ^ zkey(moved, to);
            self.relocate(from, to, moved);
            if self.is_declined(from) {
                declined |= Declined::MOVER;
                key ^= declined_key(from);
                self.set_declined(from, false);
            }
            if declines || (declined & Declined::MOVER != 0 && !m.is_promotion()) {
                key ^= declined_key(to);
                self.set_declined(to, true);
            }
        }
        self.side = self.side.flip();
        self.states.push(StateInfo {
            key,
            captured,
            last_move: m,
            reversible: if irreversible { 0 } else { prev.reversible + 1 },
            null: false,
            declined,
        });
    }

    pub fn undo_move(&mut self) {
        if self.states.len() < 2 {
            return;
        }
        let Some(st) = self.states.pop() else { return };
        self.side = self.side.flip();
        let m = st.last_move;
        let from = SQ_TO_MB[m.origin_index()] as usize;
        let to = SQ_TO_MB[m.dest_index()] as usize;
        if to != from {
            let moved = self.board[to];
            let p = if m.is_promotion() { moved - 28 } else { moved };
            self.relocate(to, from, p);
            self.set_declined(to, st.declined & Declined::CAPTURED_TO != 0);
            self.set_declined(from, st.declined & Declined::MOVER != 0);
            if st.captured[1] != 0 {
                self.put(to, st.captured[1]);
            }
        }
        if st.captured[0] != 0 {
            let mid = SQ_TO_MB[m.mid_code() - 1] as usize;
            self.set_declined(mid, st.declined & Declined::CAPTURED_MID != 0);
            self.put(mid, st.captured[0]);
        }
    }

    pub fn do_null_move(&mut self) {
        let prev = *self.state();
        self.side = self.side.flip();
        self.states.push(StateInfo {
            key: prev.key ^ SIDE_KEY,
            captured: [0; 2],
            last_move: Move::NONE,
            reversible: 0,
            null: true,
            declined: 0,
        });
    }

    pub fn undo_null_move(&mut self) {
        if self.states.len() >= 2 && self.state().null {
            self.states.pop();
            self.side = self.side.flip();
        }
    }

    /// The key from scratch, to check the incremental one.
    pub fn compute_key(&self) -> u64 {
        let mut key = if self.side == Color::White {
            SIDE_KEY
        } else {
            0
        };
        for &mb in SQ_TO_MB.iter() {
            let p = self.board[mb as usize];
            if p != 0 {
                key ^= zkey(p, mb as usize);
            }
            if self.is_declined(mb as usize) {
                key ^= declined_key(mb as usize);
            }
        }
        key
    }

    /// The key after `m`, a reversible move (no capture, no promotion).
    #[inline]
    pub(crate) fn key_after_quiet(&self, m: Move) -> u64 {
        let from = SQ_TO_MB[m.origin_index()] as usize;
        let to = SQ_TO_MB[m.dest_index()] as usize;
        let mut key = self.state().key ^ SIDE_KEY;
        if to != from {
            let p = self.board[from];
            key ^= zkey(p, from) ^ zkey(p, to);
        }
        key
    }

    /// Under the illegal-repetition rule, whether `m` recreates a position seen since the last
    /// irreversible move with the same side to move.
    pub(crate) fn repeats(&self, m: Move) -> bool {
        let st = self.state();
        let from = SQ_TO_MB[m.origin_index()] as usize;
        let p = self.board[from];
        if m.is_promotion() || irreversible_kind(p) {
            return false;
        }
        if m.mid_code() != 0 && self.board[SQ_TO_MB[m.mid_code() - 1] as usize] != 0 {
            return false;
        }
        if m.origin_index() != m.dest_index() && self.board[SQ_TO_MB[m.dest_index()] as usize] != 0
        {
            return false;
        }
        let key = self.key_after_quiet(m);
        // The new position sits one ply after the current; earlier positions with its side to
        // move are 2, 4, ... plies before it, back to the last irreversible move.
        let n = self.states.len();
        let window = st.reversible as usize + 1;
        let mut back = 2;
        while back <= window {
            if self.states[n - back].key == key {
                return true;
            }
            back += 2;
        }
        false
    }

    /// How many times the current position occurred since the last irreversible move,
    /// counting itself.
    pub fn occurrences(&self) -> u32 {
        let n = self.states.len();
        let st = self.state();
        let mut count = 1;
        let mut back = 2;
        while back <= st.reversible as usize {
            if self.states[n - 1 - back].key == st.key {
                count += 1;
            }
            back += 2;
        }
        count
    }

    /// Whether the game is over: all royals of a side captured, the side to move without a
    /// move, or (under the fourfold rule) a fourth occurrence.
    pub fn outcome(&self) -> Outcome {
        let us = self.side;
        if self.royals(us) == 0 {
            return Outcome::Won(us.flip());
        }
        if self.royals(us.flip()) == 0 {
            return Outcome::Won(us);
        }
        if self.rules.repetition == RepetitionRule::FourfoldDraw && self.occurrences() >= 4 {
            return Outcome::Drawn;
        }
        if !self.has_legal_move() {
            return Outcome::Won(us.flip());
        }
        Outcome::Ongoing
    }
}

/// The index in `DIRS` of each direction's opposite.
const OPPOSITE: [usize; 8] = [1, 0, 3, 2, 7, 6, 5, 4];

/// Whether cell `target` on `board` is attacked by `by`: looked at from the target outwards
/// along the eight lines (slides, steps and blocked two-square moves), then over the 5x5
/// square round it (jumps and lion powers, which pass over a blocker).
pub(crate) fn attacked(board: &[u8; MAILBOX], target: usize, by: Color) -> bool {
    let white = by == Color::White;
    let by_bit = color_bit(by);
    let ours = |p: u8| p != 0 && p != OFF && p & WHITE_BIT == by_bit;
    for (j, &d) in DIRS.iter().enumerate() {
        // The attacker moves along -d; in its own frame that is direction k.
        let k = if white { j } else { OPPOSITE[j] };
        let mut t = target as i32;
        for dist in 1..=14u8 {
            t += d;
            let p = board[t as usize];
            if p == 0 {
                continue;
            }
            if ours(p) {
                let pat = &PATTERNS[(p & 63) as usize];
                if pat.range[k] >= dist {
                    return true;
                }
            }
            break;
        }
    }
    for dr in -2i32..=2 {
        for df in -2i32..=2 {
            if dr == 0 && df == 0 {
                continue;
            }
            let delta = dr * 17 + df;
            let p = board[(target as i32 + delta) as usize];
            if ours(p) {
                let pat = &PATTERNS[(p & 63) as usize];
                // The attacker jumps by -delta; in Black's frame that is -delta for Black.
                let frame = if white { delta } else { -delta };
                if pat.jump_count > 0 && has_jump(pat, frame) {
                    return true;
                }
            }
        }
    }
    false
}
