//! The board state: pieces, hands, side to move, keys and the history needed to undo moves and
//! to recognise repetitions.

use super::attacks::{self, between};
use super::bitboard::Bitboard;
use super::hand::Hand;
use super::movegen;
use super::types::{Color, Move, Piece, PieceType, Square};
use super::zobrist;

pub const START_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Extra bitboard slots after the 15 per-kind ones: pieces grouped the way attack tests ask.
pub(crate) const GOLDS: usize = 15; // gold and the four small promoted kinds
pub(crate) const HDK: usize = 16; // horse, dragon, king: the king-step movers
pub(crate) const BISHOP_HORSE: usize = 17;
pub(crate) const ROOK_DRAGON: usize = 18;
const SLOTS: usize = 19;

/// What a move changed, kept so `undo_move` needs no search and repetition checks need no replay.
#[derive(Clone, Copy, Debug)]
pub struct StateInfo {
    pub board_key: u64,
    pub hand_key: u64,
    /// The hand of the side to move, for repetition-with-superior-hand tests.
    pub hand_to_move: Hand,
    pub checkers: Bitboard,
    pub captured: Piece,
    pub last_move: Move,
    /// Plies for which each side has given check with every move, counting both sides' plies;
    /// a repetition within that span is a perpetual check.
    pub continuous_check: [u16; 2],
    /// Plies since the last null move, bounding how far back repetition may look.
    pub plies_from_null: u16,
}

#[derive(Clone)]
pub struct Position {
    board: [Piece; 81],
    by_kind: [Bitboard; SLOTS],
    by_color: [Bitboard; 2],
    hands: [Hand; 2],
    side: Color,
    /// SFEN move number of the current position.
    ply: u32,
    kings: [Option<Square>; 2],
    states: Vec<StateInfo>,
}

impl Position {
    pub(crate) fn empty() -> Position {
        Position {
            board: [Piece::NONE; 81],
            by_kind: [Bitboard::EMPTY; SLOTS],
            by_color: [Bitboard::EMPTY; 2],
            hands: [Hand::EMPTY; 2],
            side: Color::Black,
            ply: 1,
            kings: [None; 2],
            states: Vec::with_capacity(256),
        }
    }

    pub fn startpos() -> Position {
        match Position::from_sfen(START_SFEN) {
            Ok(p) => p,
            Err(e) => unreachable!("start position must parse: {e}"),
        }
    }

    // ---- queries -------------------------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }

    #[inline]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline]
    pub fn pieces(&self, pt: PieceType) -> Bitboard {
        self.by_kind[pt.index()]
    }

    #[inline]
    pub fn pieces_cp(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_kind[pt.index()] & self.by_color[c.index()]
    }

    /// Lances, bishops, rooks, horses and dragons of both sides: the pieces whose reach depends
    /// on the occupancy.
    #[inline]
    pub fn sliders(&self) -> Bitboard {
        self.by_kind[PieceType::Lance.index()]
            | self.by_kind[BISHOP_HORSE]
            | self.by_kind[ROOK_DRAGON]
    }

    #[inline]
    pub(crate) fn slot(&self, c: Color, slot: usize) -> Bitboard {
        self.by_kind[slot] & self.by_color[c.index()]
    }

    #[inline]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.kings[c.index()]
    }

    #[inline]
    fn state(&self) -> &StateInfo {
        // The stack always holds the current position's state; `set_up` pushes the first one.
        &self.states[self.states.len() - 1]
    }

    /// Previous states, oldest first, the current one last.
    pub fn history(&self) -> &[StateInfo] {
        &self.states
    }

    /// Key of the whole position: board, side to move and both hands.
    #[inline]
    pub fn key(&self) -> u64 {
        let st = self.state();
        st.board_key ^ st.hand_key
    }

    #[inline]
    pub fn board_key(&self) -> u64 {
        self.state().board_key
    }

    #[inline]
    pub fn hand_key(&self) -> u64 {
        self.state().hand_key
    }

    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.state().checkers
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.state().checkers.is_some()
    }

    #[inline]
    pub fn last_move(&self) -> Move {
        self.state().last_move
    }

    #[inline]
    pub fn captured_piece(&self) -> Piece {
        self.state().captured
    }

    /// The SFEN move number.
    #[inline]
    pub fn game_ply(&self) -> u32 {
        self.ply
    }

    /// Moves played since the position was set up.
    #[inline]
    pub fn moves_played(&self) -> usize {
        self.states.len() - 1
    }

    /// Pieces of colour `c` attacking `sq`, given occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c; // attacks of `c` onto `sq` are the reverse attacks of the other colour
        let bb = (attacks::pawn_attacks(them, sq) & self.by_kind[PieceType::Pawn as usize])
            | (attacks::knight_attacks(them, sq) & self.by_kind[PieceType::Knight as usize])
            | (attacks::silver_attacks(them, sq) & self.by_kind[PieceType::Silver as usize])
            | (attacks::gold_attacks(them, sq) & self.by_kind[GOLDS])
            | (attacks::king_attacks(sq) & self.by_kind[HDK])
            | (attacks::bishop_attacks(sq, occ) & self.by_kind[BISHOP_HORSE])
            | (attacks::rook_attacks(sq, occ) & self.by_kind[ROOK_DRAGON])
            | (attacks::lance_attacks(them, sq, occ) & self.by_kind[PieceType::Lance as usize]);
        bb & self.by_color[c.index()]
    }

    /// Whether `by` attacks `sq` with occupancy `occ`. Cheaper than `attackers_to`: the step
    /// attackers are tested first, and a slider's blocked reach is computed only when the
    /// slider stands on one of `sq`'s lines at all.
    #[inline]
    pub fn is_attacked(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !by;
        let steps = (attacks::pawn_attacks(them, sq) & self.by_kind[PieceType::Pawn as usize])
            | (attacks::knight_attacks(them, sq) & self.by_kind[PieceType::Knight as usize])
            | (attacks::silver_attacks(them, sq) & self.by_kind[PieceType::Silver as usize])
            | (attacks::gold_attacks(them, sq) & self.by_kind[GOLDS])
            | (attacks::king_attacks(sq) & self.by_kind[HDK]);
        (steps & self.by_color[by.index()]).is_some() || self.is_attacked_by_slider(by, sq, occ)
    }

    /// `by`'s pieces that attack by steps: pawns, knights, silvers, gold movers, and the king,
    /// horses and dragons (whose slides `is_attacked_by_slider` covers).
    #[inline]
    pub fn steppers(&self, by: Color) -> Bitboard {
        (self.by_kind[PieceType::Pawn as usize]
            | self.by_kind[PieceType::Knight as usize]
            | self.by_kind[PieceType::Silver as usize]
            | self.by_kind[GOLDS]
            | self.by_kind[HDK])
            & self.by_color[by.index()]
    }

    /// Whether a rook, bishop, lance, horse or dragon of `by` reaches `sq` with occupancy `occ`;
    /// the half of `is_attacked` that remains when no stepper of `by` is near.
    #[inline]
    pub fn is_attacked_by_slider(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !by;
        let rooks = self.slot(by, ROOK_DRAGON);
        if (attacks::rook_pseudo(sq) & rooks).is_some()
            && (attacks::rook_attacks(sq, occ) & rooks).is_some()
        {
            return true;
        }
        let bishops = self.slot(by, BISHOP_HORSE);
        if (attacks::bishop_pseudo(sq) & bishops).is_some()
            && (attacks::bishop_attacks(sq, occ) & bishops).is_some()
        {
            return true;
        }
        let lances = self.pieces_cp(by, PieceType::Lance);
        (attacks::lance_pseudo(them, sq) & lances).is_some()
            && (attacks::lance_attacks(them, sq, occ) & lances).is_some()
    }

    /// Pieces (of either colour) that alone stand between `c`'s king and an enemy slider, and the
    /// enemy sliders doing the pinning.
    pub fn blockers_for_king(&self, c: Color) -> Bitboard {
        let Some(ksq) = self.kings[c.index()] else {
            return Bitboard::EMPTY;
        };
        let them = !c;
        let snipers = ((attacks::rook_pseudo(ksq) & self.slot(them, ROOK_DRAGON))
            | (attacks::bishop_pseudo(ksq) & self.slot(them, BISHOP_HORSE))
            | (attacks::lance_pseudo(c, ksq) & self.pieces_cp(them, PieceType::Lance)))
        .and_not(Bitboard::EMPTY);
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_some() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// `c`'s pieces pinned to `c`'s own king.
    #[inline]
    pub fn pinned(&self, c: Color) -> Bitboard {
        self.blockers_for_king(c) & self.by_color[c.index()]
    }

    // ---- building ------------------------------------------------------------------------

    #[inline]
    fn put(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = p;
        self.by_color[p.color().index()] |= bb;
        let k = p.kind();
        self.by_kind[k.index()] |= bb;
        for &s in aggregate_slots(k) {
            self.by_kind[s] |= bb;
        }
    }

    #[inline]
    fn remove(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = Piece::NONE;
        self.by_color[p.color().index()] ^= bb;
        let k = p.kind();
        self.by_kind[k.index()] ^= bb;
        for &s in aggregate_slots(k) {
            self.by_kind[s] ^= bb;
        }
    }

    /// Fills a freshly parsed board in: keys, kings, checkers and the first history entry.
    pub(crate) fn set_up(&mut self, board: &[Piece; 81], hands: [Hand; 2], side: Color, ply: u32) {
        *self = Position::empty();
        for sq in Square::all() {
            let p = board[sq.index()];
            if p.is_some() {
                self.put(p, sq);
                if p.kind() == PieceType::King {
                    self.kings[p.color().index()] = Some(sq);
                }
            }
        }
        self.hands = hands;
        self.side = side;
        self.ply = ply;
        let mut board_key = if side == Color::White {
            zobrist::SIDE
        } else {
            0
        };
        for sq in self.occupied() {
            board_key ^= zobrist::piece_square(self.board[sq.index()], sq);
        }
        let checkers = match self.kings[side.index()] {
            Some(k) => self.attackers_to(!side, k, self.occupied()),
            None => Bitboard::EMPTY,
        };
        self.states.push(StateInfo {
            board_key,
            hand_key: Self::hand_key_of(&hands),
            hand_to_move: hands[side.index()],
            checkers,
            captured: Piece::NONE,
            last_move: Move::NONE,
            continuous_check: [0; 2],
            plies_from_null: 0,
        });
    }

    fn hand_key_of(hands: &[Hand; 2]) -> u64 {
        let mut k = 0u64;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                k = k.wrapping_add(
                    zobrist::hand(c, pt).wrapping_mul(hands[c.index()].count(pt) as u64),
                );
            }
        }
        k
    }

    /// Keys recomputed from nothing; tests compare them with the incremental ones.
    pub fn keys_from_scratch(&self) -> (u64, u64) {
        let mut board_key = if self.side == Color::White {
            zobrist::SIDE
        } else {
            0
        };
        for sq in self.occupied() {
            board_key ^= zobrist::piece_square(self.board[sq.index()], sq);
        }
        (board_key, Self::hand_key_of(&self.hands))
    }

    // ---- making moves --------------------------------------------------------------------

    /// Plays a move that must be legal in this position (from the generator or `parse_move`).
    pub fn do_move(&mut self, m: Move) {
        let gives_check = self.gives_check(m);
        self.do_move_with_check(m, gives_check);
    }

    /// `do_move` when the caller already knows whether `m` gives check (the search does).
    pub fn do_move_with_check(&mut self, m: Move, gives_check: bool) {
        let us = self.side;
        let them = !us;
        let prev = *self.state();
        let mut board_key = prev.board_key ^ zobrist::SIDE;
        let mut hand_key = prev.hand_key;
        let to = m.to();
        let mut captured = Piece::NONE;

        if m.is_drop() {
            let pt = m.dropped();
            let p = Piece::new(us, pt);
            self.hands[us.index()].remove(pt);
            hand_key = hand_key.wrapping_sub(zobrist::hand(us, pt));
            self.put(p, to);
            board_key ^= zobrist::piece_square(p, to);
        } else {
            let from = m.from();
            let p = self.board[from.index()];
            captured = self.board[to.index()];
            if captured.is_some() {
                let cpt = captured.kind().unpromote();
                self.remove(captured, to);
                board_key ^= zobrist::piece_square(captured, to);
                self.hands[us.index()].add(cpt);
                hand_key = hand_key.wrapping_add(zobrist::hand(us, cpt));
            }
            self.remove(p, from);
            board_key ^= zobrist::piece_square(p, from);
            let np = if m.is_promotion() {
                Piece::new(us, p.kind().promote())
            } else {
                p
            };
            self.put(np, to);
            board_key ^= zobrist::piece_square(np, to);
            if np.kind() == PieceType::King {
                self.kings[us.index()] = Some(to);
            }
        }

        self.side = them;
        self.ply += 1;
        let checkers = if gives_check {
            match self.kings[them.index()] {
                Some(k) => self.attackers_to(us, k, self.occupied()),
                None => Bitboard::EMPTY,
            }
        } else {
            Bitboard::EMPTY
        };
        debug_assert_eq!(
            checkers,
            self.kings[them.index()].map_or(Bitboard::EMPTY, |k| self.attackers_to(
                us,
                k,
                self.occupied()
            )),
            "gives_check disagrees with the board after {m}"
        );
        let mut continuous_check = prev.continuous_check;
        continuous_check[us.index()] = if gives_check {
            continuous_check[us.index()] + 2
        } else {
            0
        };
        self.states.push(StateInfo {
            board_key,
            hand_key,
            hand_to_move: self.hands[them.index()],
            checkers,
            captured,
            last_move: m,
            continuous_check,
            plies_from_null: prev.plies_from_null.saturating_add(1),
        });
    }

    /// Takes back the last move made with `do_move`.
    pub fn undo_move(&mut self) {
        if self.states.len() < 2 {
            return;
        }
        let st = self.states.pop().unwrap_or_else(|| unreachable!());
        let m = st.last_move;
        self.side = !self.side;
        self.ply -= 1;
        let us = self.side;
        let to = m.to();
        if m.is_drop() {
            let p = self.board[to.index()];
            self.remove(p, to);
            self.hands[us.index()].add(m.dropped());
        } else {
            let from = m.from();
            let np = self.board[to.index()];
            self.remove(np, to);
            let p = if m.is_promotion() {
                Piece::new(us, np.kind().unpromote())
            } else {
                np
            };
            self.put(p, from);
            if p.kind() == PieceType::King {
                self.kings[us.index()] = Some(from);
            }
            if st.captured.is_some() {
                self.put(st.captured, to);
                self.hands[us.index()].remove(st.captured.kind().unpromote());
            }
        }
    }

    /// Passes the move, for null-move pruning. Never called in check.
    pub fn do_null_move(&mut self) {
        let prev = *self.state();
        self.side = !self.side;
        self.ply += 1;
        self.states.push(StateInfo {
            board_key: prev.board_key ^ zobrist::SIDE,
            hand_key: prev.hand_key,
            hand_to_move: self.hands[self.side.index()],
            checkers: Bitboard::EMPTY,
            captured: Piece::NONE,
            last_move: Move::NONE,
            continuous_check: prev.continuous_check,
            plies_from_null: 0,
        });
    }

    pub fn undo_null_move(&mut self) {
        if self.states.len() < 2 {
            return;
        }
        self.states.pop();
        self.side = !self.side;
        self.ply -= 1;
    }

    /// The kind a move puts on its destination.
    #[inline]
    pub fn moved_piece_after(&self, m: Move) -> PieceType {
        if m.is_drop() {
            m.dropped()
        } else {
            let k = self.board[m.from().index()].kind();
            if m.is_promotion() { k.promote() } else { k }
        }
    }

    /// The piece a move starts with (for drops, the dropped piece).
    #[inline]
    pub fn moved_piece(&self, m: Move) -> Piece {
        if m.is_drop() {
            Piece::new(self.side, m.dropped())
        } else {
            self.board[m.from().index()]
        }
    }

    /// Whether legal move `m` checks the opponent's king, directly or by uncovering a slider.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let Some(ksq) = self.kings[(!us).index()] else {
            return false;
        };
        let to = m.to();
        let pt = self.moved_piece_after(m);
        let mut occ = self.occupied() | Bitboard::from_square(to);
        if !m.is_drop() {
            occ ^= Bitboard::from_square(m.from());
        }
        // Most moves land out of reach of the king even on an empty board.
        if attacks::pseudo_attacks(us, pt, to).has(ksq)
            && attacks::attacks(us, pt, to, occ).has(ksq)
        {
            return true;
        }
        if m.is_drop() {
            return false;
        }
        let from = m.from();
        // Only a slider that the moved piece was shielding can start checking; the position is
        // legal, so no slider was checking before.
        let line = attacks::line(ksq, from);
        if line.is_empty() || line.has(to) {
            return false;
        }
        let (orthogonal, diagonal, lances) = (
            self.slot(us, ROOK_DRAGON),
            self.slot(us, BISHOP_HORSE),
            self.pieces_cp(us, PieceType::Lance),
        );
        // Usually no slider of ours stands on that line at all.
        if (line & (orthogonal | diagonal | lances)).is_empty() {
            return false;
        }
        // None of our pieces stands on `to` before the move, so any slider that now reaches the
        // king through the vacated square is a discovered check.
        movegen::slider_hits(self, us, ksq, occ)
    }

    // ---- text ----------------------------------------------------------------------------

    /// Board diagram for the `d` command and debugging, with hands and the SFEN.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("White hand: {:?}\n", self.hands[1]));
        s.push_str("  9  8  7  6  5  4  3  2  1\n");
        for r in 0..9 {
            for f in (0..9).rev() {
                let p = self.board[Square::from_file_rank(f, r).index()];
                let t = p.to_string();
                s.push_str(&format!("{t:>3}"));
            }
            s.push_str(&format!("  {}\n", (b'a' + r) as char));
        }
        s.push_str(&format!("Black hand: {:?}\n", self.hands[0]));
        s.push_str(&format!("sfen {}\nkey {:016x}", self.to_sfen(), self.key()));
        s
    }

    pub(crate) fn board_array(&self) -> &[Piece; 81] {
        &self.board
    }
}

/// Aggregate slots a kind belongs to besides its own.
#[inline]
fn aggregate_slots(k: PieceType) -> &'static [usize] {
    match k {
        PieceType::Gold
        | PieceType::ProPawn
        | PieceType::ProLance
        | PieceType::ProKnight
        | PieceType::ProSilver => &[GOLDS],
        PieceType::King => &[HDK],
        PieceType::Horse => &[HDK, BISHOP_HORSE],
        PieceType::Dragon => &[HDK, ROOK_DRAGON],
        PieceType::Bishop => &[BISHOP_HORSE],
        PieceType::Rook => &[ROOK_DRAGON],
        _ => &[],
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl PartialEq for Position {
    /// Same board, hands, side and move number; history is not compared.
    fn eq(&self, other: &Position) -> bool {
        self.board == other.board
            && self.hands == other.hands
            && self.side == other.side
            && self.ply == other.ply
            && self.by_kind == other.by_kind
            && self.by_color == other.by_color
            && self.kings == other.kings
            && self.key() == other.key()
            && self.checkers() == other.checkers()
    }
}
