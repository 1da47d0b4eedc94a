//! The yari board state: pieces, hands, side to move, keys and the history needed to undo moves
//! and to recognise repetitions.

use super::attacks::{self, SQUARES};
use super::types::{Hand, Piece, PieceType};
use super::zobrist;
use crate::shogi::attacks::{between, lance_pseudo, line};
use crate::shogi::{Bitboard, Color, Move, Square};

pub const START_SFEN: &str = "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1";

/// What a move changed, kept so `undo_move` needs no search and repetition checks need no replay.
#[derive(Clone, Copy, Debug)]
pub struct StateInfo {
    pub board_key: u64,
    pub hand_key: u64,
    /// The hand of the side to move: with the board key it identifies the whole position.
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
    board: [Piece; SQUARES],
    /// One bitboard per kind, indexed by the kind's number (1..=14).
    by_kind: [Bitboard; 16],
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
            board: [Piece::NONE; SQUARES],
            by_kind: [Bitboard::EMPTY; 16],
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
            Err(e) => unreachable!("the yari start position must parse: {e}"),
        }
    }

    // ---- queries -------------------------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`; squares off the 7-file board are empty.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board.get(sq.index()).copied().unwrap_or(Piece::NONE)
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

    /// Pieces that slide straight forward: yari knight, yari bishop, yari rook, rook.
    #[inline]
    fn forward_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariKnight)
            | self.pieces(PieceType::YariBishop)
            | self.pieces(PieceType::YariRook)
            | self.pieces(PieceType::Rook)
    }

    /// Pieces that slide straight back: yari silver, both yari golds, rook.
    #[inline]
    fn backward_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariSilver)
            | self.pieces(PieceType::YariGoldN)
            | self.pieces(PieceType::YariGoldB)
            | self.pieces(PieceType::Rook)
    }

    #[inline]
    fn sideways_sliders(&self) -> Bitboard {
        self.pieces(PieceType::YariRook) | self.pieces(PieceType::Rook)
    }

    /// Sliders of colour `c` attacking `sq` with occupancy `occ`.
    #[inline]
    fn slider_attackers(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let rays = attacks::rook_slides(sq, occ);
        // A piece of `c` sliding forward reaches `sq` from behind it (as `c` sees it), one sliding
        // back from in front of it.
        let behind = rays & lance_pseudo(!c, sq);
        let ahead = rays & lance_pseudo(c, sq);
        let side = rays.and_not(Bitboard::file_mask(sq.file()));
        ((behind & self.forward_sliders())
            | (ahead & self.backward_sliders())
            | (side & self.sideways_sliders()))
            & self.by_color[c.index()]
    }

    /// Pieces of colour `c` attacking `sq`, given occupancy `occ`. Step patterns are symmetric
    /// left to right, so the squares a `c` piece attacks `sq` from are the squares the same
    /// pattern of the other colour reaches from `sq`.
    #[inline]
    pub fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c;
        let steps = (attacks::pawn_steps(them, sq) & self.pieces(PieceType::Pawn))
            | (attacks::knight_leaps(them, sq) & self.pieces(PieceType::YariKnight))
            | (attacks::forward_diagonal_steps(them, sq) & self.pieces(PieceType::YariBishop))
            | (attacks::forward_three_steps(them, sq) & self.pieces(PieceType::YariSilver))
            | (attacks::gold_steps(them, sq)
                & (self.pieces(PieceType::YariGoldN) | self.pieces(PieceType::YariGoldB)))
            | (attacks::king_steps(sq) & self.pieces(PieceType::King));
        (steps & self.by_color[c.index()]) | self.slider_attackers(c, sq, occ)
    }

    #[inline]
    pub fn is_attacked(&self, by: Color, sq: Square, occ: Bitboard) -> bool {
        self.attackers_to(by, sq, occ).is_some()
    }

    /// `c`'s pieces that alone stand between `c`'s king and an enemy slider aimed at it.
    pub fn pinned(&self, c: Color) -> Bitboard {
        let Some(ksq) = self.kings[c.index()] else {
            return Bitboard::EMPTY;
        };
        let them = !c;
        let rays = attacks::rook_slides(ksq, Bitboard::EMPTY);
        let snipers = ((rays & lance_pseudo(c, ksq) & self.forward_sliders())
            | (rays & lance_pseudo(them, ksq) & self.backward_sliders())
            | (rays.and_not(Bitboard::file_mask(ksq.file())) & self.sideways_sliders()))
            & self.by_color[them.index()];
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_some() && !b.more_than_one() {
                pinned |= b;
            }
        }
        pinned & self.by_color[c.index()]
    }

    // ---- building ------------------------------------------------------------------------

    #[inline]
    fn put(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = p;
        self.by_color[p.color().index()] |= bb;
        self.by_kind[p.kind().index()] |= bb;
    }

    #[inline]
    fn remove(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = Piece::NONE;
        self.by_color[p.color().index()] ^= bb;
        self.by_kind[p.kind().index()] ^= bb;
    }

    /// Fills a freshly parsed board in: keys, kings, checkers and the first history entry.
    pub(crate) fn set_up(
        &mut self,
        board: &[Piece; SQUARES],
        hands: [Hand; 2],
        side: Color,
        ply: u32,
    ) {
        *self = Position::empty();
        for (i, &p) in board.iter().enumerate() {
            let sq = Square::new(i as u8);
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
        let (board_key, hand_key) = self.keys_from_scratch();
        let checkers = self.checkers_of(side);
        self.states.push(StateInfo {
            board_key,
            hand_key,
            hand_to_move: hands[side.index()],
            checkers,
            captured: Piece::NONE,
            last_move: Move::NONE,
            continuous_check: [0; 2],
            plies_from_null: 0,
        });
    }

    /// Enemy pieces attacking `c`'s king.
    fn checkers_of(&self, c: Color) -> Bitboard {
        match self.kings[c.index()] {
            Some(k) => self.attackers_to(!c, k, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Board and hand keys recomputed from nothing; tests compare them with the incremental ones.
    pub fn keys_from_scratch(&self) -> (u64, u64) {
        let mut board_key = if self.side == Color::White {
            zobrist::SIDE
        } else {
            0
        };
        for sq in self.occupied() {
            board_key ^= zobrist::piece_square(self.board[sq.index()], sq);
        }
        let mut hand_key = 0u64;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                hand_key = hand_key.wrapping_add(
                    zobrist::hand(c, pt).wrapping_mul(self.hands[c.index()].count(pt) as u64),
                );
            }
        }
        (board_key, hand_key)
    }

    /// Board key and hand key of the current position as kept incrementally.
    pub fn keys(&self) -> (u64, u64) {
        (self.state().board_key, self.state().hand_key)
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
            let pt = drop_kind(m);
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
            self.checkers_of(them)
        } else {
            Bitboard::EMPTY
        };
        debug_assert_eq!(
            checkers,
            self.checkers_of(them),
            "gives_check disagrees with the board after {m}"
        );
        let mut continuous_check = prev.continuous_check;
        continuous_check[us.index()] = if gives_check {
            continuous_check[us.index()].saturating_add(2)
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
        let Some(st) = self.states.pop() else { return };
        let m = st.last_move;
        self.side = !self.side;
        self.ply -= 1;
        let us = self.side;
        let to = m.to();
        if m.is_drop() {
            let p = self.board[to.index()];
            self.remove(p, to);
            self.hands[us.index()].add(drop_kind(m));
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
    pub fn moved_kind_after(&self, m: Move) -> PieceType {
        if m.is_drop() {
            drop_kind(m)
        } else {
            let k = self.board[m.from().index()].kind();
            if m.is_promotion() { k.promote() } else { k }
        }
    }

    /// The piece a move starts with (for drops, the dropped piece).
    #[inline]
    pub fn moved_piece(&self, m: Move) -> Piece {
        if m.is_drop() {
            Piece::new(self.side, drop_kind(m))
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
        let pt = self.moved_kind_after(m);
        let to_bb = Bitboard::from_square(to);
        let mut occ = self.occupied() | to_bb;
        if m.is_drop() {
            return attacks::attacks(us, pt, to, occ).has(ksq);
        }
        let from = m.from();
        occ ^= Bitboard::from_square(from);
        if attacks::attacks(us, pt, to, occ).has(ksq) {
            return true;
        }
        // Only a slider the moved piece was shielding can start checking: the position is legal,
        // so none was checking before. Yari has no diagonal sliders.
        let shield_line = line(ksq, from);
        if !(from.file() == ksq.file() || from.rank() == ksq.rank()) || shield_line.has(to) {
            return false;
        }
        self.slider_attackers(us, ksq, occ)
            .and_not(Bitboard::from_square(from))
            .is_some()
    }

    // ---- text ----------------------------------------------------------------------------

    /// Board diagram for debugging, with hands and the SFEN.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("White hand: {:?}\n", self.hands[1]));
        s.push_str("  7  6  5  4  3  2  1\n");
        for r in 0..9 {
            for f in (0..7).rev() {
                let p = self.board[Square::from_file_rank(f, r).index()];
                s.push_str(&format!("{:>3}", p.to_string()));
            }
            s.push_str(&format!("  {}\n", (b'a' + r) as char));
        }
        s.push_str(&format!("Black hand: {:?}\n", self.hands[0]));
        s.push_str(&format!("sfen {}\nkey {:016x}", self.to_sfen(), self.key()));
        s
    }

    pub(crate) fn board_array(&self) -> &[Piece; SQUARES] {
        &self.board
    }
}

/// The yari kind a drop move puts down (drop moves carry the standard kind with the same letter).
#[inline]
pub(crate) fn drop_kind(m: Move) -> PieceType {
    PieceType::from_shogi_drop(m.dropped()).unwrap_or(PieceType::Pawn)
}

/// Whether `sq` is on the yari board.
#[inline]
pub(crate) fn on_board(sq: Square) -> bool {
    sq.index() < SQUARES
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
