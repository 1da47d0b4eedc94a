//! The board state that standard and yari shogi keep alike: pieces, hands, side to move, keys
//! and the history needed to undo moves and to recognise repetitions. A game brings its piece
//! set (kinds, hands, keys, how pieces attack); making, taking back and passing moves, SFEN's
//! board field and the queries are the same for both.

use super::attacks;
use super::bitboard::Bitboard;
use super::rules::Repetition;
use super::sfen::write_sfen_rank;
use super::types::{Color, ColoredPiece, Kind, Move, Square};

/// White to move is bit 0 of the board key, so the side is recoverable from any key.
pub const SIDE_KEY: u64 = 1;

/// One bitboard per kind number (1..=14), then slots a set may use to group kinds the way its
/// attack tests ask.
pub(crate) const SLOTS: usize = 19;

/// Counts of the kinds a side holds in hand.
pub trait HandCounts: Copy + Eq {
    type Kind: Kind;
    const EMPTY: Self;
    fn count(self, pt: Self::Kind) -> u32;
    fn add(&mut self, pt: Self::Kind);
    fn remove(&mut self, pt: Self::Kind);
}

/// What it takes to check a king, found once for a position (see [`PieceSet::check_squares`]).
#[derive(Clone, Copy)]
pub struct CheckSquares {
    /// Per kind index, the squares from which a piece of that kind checks the king directly.
    pub by_kind: [Bitboard; 16],
    /// The side to move's pieces that alone stand between one of its sliders and the king: a
    /// move of one off that line uncovers a check.
    pub shields: Bitboard,
}

/// A position's enemy king and, where its game finds them at once, its check squares.
#[derive(Clone, Copy)]
pub struct CheckInfo {
    ksq: Option<Square>,
    squares: Option<CheckSquares>,
}

/// What a game's pieces bring to the shared board.
pub trait PieceSet: Sized + 'static {
    type Kind: Kind;
    type Hand: HandCounts<Kind = Self::Kind>;
    /// Files of the board, counted from file 1; every game has nine ranks.
    const FILES: u8;
    /// The game's start position.
    const START_SFEN: &'static str;
    /// How many of an unpromoted kind one full set holds, both sides together.
    fn count_in_set(pt: Self::Kind) -> u32;
    /// Whether a piece of kind `pt` and colour `c` on `sq` has a move on an empty board; a setup
    /// may not leave a piece where it never could move.
    fn can_move_from(c: Color, pt: Self::Kind, sq: Square) -> bool;
    /// The kind a drop move puts down.
    fn drop_kind(m: Move) -> Self::Kind;
    /// Zobrist key of a piece on a square.
    fn piece_square_key(p: ColoredPiece<Self::Kind>, sq: Square) -> u64;
    /// Zobrist key of one piece of a kind in `c`'s hand; hand keys are additive, so holding n
    /// pieces contributes n times the key and a capture or drop is one add or subtract.
    fn hand_key(c: Color, pt: Self::Kind) -> u64;
    /// Group slots (at or above 15) a kind's bitboard is also counted in.
    #[inline]
    fn group_slots(_pt: Self::Kind) -> &'static [usize] {
        &[]
    }
    /// Pieces of colour `c` attacking `sq`, given occupancy `occ`.
    fn attackers_to(pos: &Board<Self>, c: Color, sq: Square, occ: Bitboard) -> Bitboard;
    /// Whether a piece of kind `pt` and colour `c` on `sq` attacks `target` with occupancy `occ`:
    /// how `gives_check` finds a direct check.
    fn attacks_square(c: Color, pt: Self::Kind, sq: Square, target: Square, occ: Bitboard) -> bool;
    /// Whether the side to move, playing board move `m`, uncovers a check by one of its sliders
    /// on the enemy king on `ksq`; `occ` is the occupancy after the move.
    fn uncovers_check(pos: &Board<Self>, m: Move, ksq: Square, occ: Bitboard) -> bool;
    /// The squares from which each kind of the side to move checks the enemy king on `ksq`,
    /// and the pieces shielding it from a slider: `gives_check` for all the moves of a
    /// position at once. `None` where a game tests each move as it comes.
    #[inline]
    fn check_squares(_pos: &Board<Self>, _ksq: Square) -> Option<CheckSquares> {
        None
    }

    /// Whether `sq` is on this game's board.
    #[inline]
    fn on_board(_sq: Square) -> bool {
        true
    }

    /// A kind's worth in static exchange evaluation: fixed, so that move ordering (and the bench
    /// node count) does not shift with every evaluation change.
    fn exchange_value(pt: Self::Kind) -> i32;

    /// Kinds in the order an exchange brings attackers in: cheapest first, the king last.
    const CHEAPEST_FIRST: &'static [Self::Kind];

    /// What it means that the board stands as it stood before with the side to move holding
    /// `now` in hand instead of `then`; `Repetition::None` looks further back.
    #[inline]
    fn board_repeated_with_hands(_now: Self::Hand, _then: Self::Hand) -> Repetition {
        Repetition::None
    }

    /// Pieces of either colour that may join an exchange on `sq` once a capture has emptied a
    /// square of `occ`; every attacker unless the set knows that only sliders can appear.
    #[inline]
    fn attackers_behind(pos: &Board<Self>, sq: Square, occ: Bitboard) -> Bitboard {
        (pos.attackers_to(Color::Black, sq, occ) | pos.attackers_to(Color::White, sq, occ)) & occ
    }
}

/// What a move changed, kept so `undo_move` needs no search and repetition checks need no replay.
#[derive(Clone, Copy, Debug)]
pub struct StateInfo<H: HandCounts> {
    pub board_key: u64,
    pub hand_key: u64,
    /// The hand of the side to move: with the board key it identifies the whole position, and
    /// repetition-with-superior-hand tests compare it.
    pub hand_to_move: H,
    pub checkers: Bitboard,
    pub captured: ColoredPiece<H::Kind>,
    pub last_move: Move,
    /// Plies for which each side has given check with every move, counting both sides' plies;
    /// a repetition within that span is a perpetual check.
    pub continuous_check: [u16; 2],
    /// Plies since the last null move, bounding how far back repetition may look.
    pub plies_from_null: u16,
}

/// A position of a game played with the piece set `S`. The fields are the crate's so that each
/// game's rules, attack tests and move generation read them directly.
pub struct Board<S: PieceSet> {
    /// Indexed by square; squares off a narrower board stay empty.
    pub(crate) board: [ColoredPiece<S::Kind>; 81],
    /// One bitboard per kind number, then the set's group slots.
    pub(crate) by_kind: [Bitboard; SLOTS],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) hands: [S::Hand; 2],
    pub(crate) side: Color,
    /// SFEN move number of the current position.
    pub(crate) ply: u32,
    pub(crate) kings: [Option<Square>; 2],
    pub(crate) states: Vec<StateInfo<S::Hand>>,
}

impl<S: PieceSet> Clone for Board<S> {
    fn clone(&self) -> Self {
        Board {
            board: self.board,
            by_kind: self.by_kind,
            by_color: self.by_color,
            hands: self.hands,
            side: self.side,
            ply: self.ply,
            kings: self.kings,
            states: self.states.clone(),
        }
    }
}

impl<S: PieceSet> Board<S> {
    pub(crate) fn empty() -> Self {
        Board {
            board: [ColoredPiece::NONE; 81],
            by_kind: [Bitboard::EMPTY; SLOTS],
            by_color: [Bitboard::EMPTY; 2],
            hands: [S::Hand::EMPTY; 2],
            side: Color::Black,
            ply: 1,
            kings: [None; 2],
            states: Vec::with_capacity(256),
        }
    }

    pub fn startpos() -> Self {
        match Board::from_sfen(S::START_SFEN) {
            Ok(p) => p,
            Err(e) => unreachable!("the start position must parse: {e}"),
        }
    }

    // ---- queries -------------------------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`; squares off a narrower board are empty.
    #[inline]
    pub fn piece_on(&self, sq: Square) -> ColoredPiece<S::Kind> {
        self.board[sq.index()]
    }

    #[inline]
    pub fn hand(&self, c: Color) -> S::Hand {
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
    pub fn pieces(&self, pt: S::Kind) -> Bitboard {
        self.by_kind[pt.index()]
    }

    #[inline]
    pub fn pieces_cp(&self, c: Color, pt: S::Kind) -> Bitboard {
        self.by_kind[pt.index()] & self.by_color[c.index()]
    }

    #[inline]
    pub fn king_square(&self, c: Color) -> Option<Square> {
        self.kings[c.index()]
    }

    #[inline]
    pub(crate) fn state(&self) -> &StateInfo<S::Hand> {
        // The stack always holds the current position's state; `set_up` pushes the first one.
        &self.states[self.states.len() - 1]
    }

    /// Previous states, oldest first, the current one last.
    pub fn history(&self) -> &[StateInfo<S::Hand>] {
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

    /// Board key and hand key of the current position as kept incrementally.
    pub fn keys(&self) -> (u64, u64) {
        (self.board_key(), self.hand_key())
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
    pub fn captured_piece(&self) -> ColoredPiece<S::Kind> {
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
        S::attackers_to(self, c, sq, occ)
    }

    /// Enemy pieces attacking `c`'s king.
    #[inline]
    fn checkers_of(&self, c: Color) -> Bitboard {
        match self.kings[c.index()] {
            Some(k) => self.attackers_to(!c, k, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// The kind a move puts on its destination.
    #[inline]
    pub fn moved_kind_after(&self, m: Move) -> S::Kind {
        if m.is_drop() {
            S::drop_kind(m)
        } else {
            let k = self.board[m.from().index()].kind();
            if m.is_promotion() { k.promote() } else { k }
        }
    }

    /// The piece a move starts with (for drops, the dropped piece).
    #[inline]
    pub fn moved_piece(&self, m: Move) -> ColoredPiece<S::Kind> {
        if m.is_drop() {
            ColoredPiece::new(self.side, S::drop_kind(m))
        } else {
            self.board[m.from().index()]
        }
    }

    // ---- building ------------------------------------------------------------------------

    #[inline]
    fn put(&mut self, p: ColoredPiece<S::Kind>, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = p;
        self.by_color[p.color().index()] |= bb;
        let k = p.kind();
        self.by_kind[k.index()] |= bb;
        for &s in S::group_slots(k) {
            self.by_kind[s] |= bb;
        }
    }

    #[inline]
    fn remove(&mut self, p: ColoredPiece<S::Kind>, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.board[sq.index()] = ColoredPiece::NONE;
        self.by_color[p.color().index()] ^= bb;
        let k = p.kind();
        self.by_kind[k.index()] ^= bb;
        for &s in S::group_slots(k) {
            self.by_kind[s] ^= bb;
        }
    }

    /// Fills a freshly parsed board in: keys, kings, checkers and the first history entry.
    pub(crate) fn set_up(
        &mut self,
        board: &[ColoredPiece<S::Kind>; 81],
        hands: [S::Hand; 2],
        side: Color,
        ply: u32,
    ) {
        *self = Board::empty();
        for sq in Square::all() {
            let p = board[sq.index()];
            if p.is_some() {
                self.put(p, sq);
                if p.kind() == S::Kind::KING {
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
            captured: ColoredPiece::NONE,
            last_move: Move::NONE,
            continuous_check: [0; 2],
            plies_from_null: 0,
        });
    }

    /// Board and hand keys recomputed from nothing; tests compare them with the incremental ones.
    pub fn keys_from_scratch(&self) -> (u64, u64) {
        let mut board_key = if self.side == Color::White {
            SIDE_KEY
        } else {
            0
        };
        for sq in self.occupied() {
            board_key ^= S::piece_square_key(self.board[sq.index()], sq);
        }
        let mut hand_key = 0u64;
        for c in Color::ALL {
            for &pt in S::Kind::HAND {
                hand_key = hand_key.wrapping_add(
                    S::hand_key(c, pt).wrapping_mul(self.hands[c.index()].count(pt) as u64),
                );
            }
        }
        (board_key, hand_key)
    }

    // ---- making moves --------------------------------------------------------------------

    /// Plays a move that must be legal in this position (from the generator or `parse_move`).
    pub fn do_move(&mut self, m: Move) {
        let gives_check = self.gives_check(m);
        self.do_move_with_check(m, gives_check);
    }

    /// What `gives_check_with` needs of this position, found once for all its moves.
    #[inline]
    pub fn check_info(&self) -> CheckInfo {
        let ksq = self.kings[(!self.side).index()];
        CheckInfo {
            ksq,
            squares: ksq.and_then(|k| S::check_squares(self, k)),
        }
    }

    /// `gives_check(m)`, with `info` from `check_info` of this position.
    #[inline(always)]
    pub fn gives_check_with(&self, info: &CheckInfo, m: Move) -> bool {
        let (Some(ksq), Some(squares)) = (info.ksq, &info.squares) else {
            return self.gives_check(m);
        };
        let to = m.to();
        if squares.by_kind[self.moved_kind_after(m).index()].has(to) {
            return true;
        }
        // A shield that leaves its line uncovers the check it held back.
        !m.is_drop() && squares.shields.has(m.from()) && !attacks::line(ksq, m.from()).has(to)
    }

    /// Whether legal move `m` checks the opponent's king, directly or by uncovering a slider.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let Some(ksq) = self.kings[(!us).index()] else {
            return false;
        };
        let to = m.to();
        let pt = self.moved_kind_after(m);
        let mut occ = self.occupied() | Bitboard::from_square(to);
        if !m.is_drop() {
            occ ^= Bitboard::from_square(m.from());
        }
        if S::attacks_square(us, pt, to, ksq, occ) {
            return true;
        }
        // Only a slider that the moved piece was shielding can start checking; the position is
        // legal, so no slider was checking before.
        !m.is_drop() && S::uncovers_check(self, m, ksq, occ)
    }

    /// `do_move` when the caller already knows whether `m` gives check (the search does).
    pub fn do_move_with_check(&mut self, m: Move, gives_check: bool) {
        let us = self.side;
        let them = !us;
        let prev = *self.state();
        let mut board_key = prev.board_key ^ SIDE_KEY;
        let mut hand_key = prev.hand_key;
        let to = m.to();
        let mut captured = ColoredPiece::NONE;

        if m.is_drop() {
            let pt = S::drop_kind(m);
            let p = ColoredPiece::new(us, pt);
            self.hands[us.index()].remove(pt);
            hand_key = hand_key.wrapping_sub(S::hand_key(us, pt));
            self.put(p, to);
            board_key ^= S::piece_square_key(p, to);
        } else {
            let from = m.from();
            let p = self.board[from.index()];
            captured = self.board[to.index()];
            if captured.is_some() {
                let cpt = captured.kind().unpromote();
                self.remove(captured, to);
                board_key ^= S::piece_square_key(captured, to);
                self.hands[us.index()].add(cpt);
                hand_key = hand_key.wrapping_add(S::hand_key(us, cpt));
            }
            self.remove(p, from);
            board_key ^= S::piece_square_key(p, from);
            let np = if m.is_promotion() {
                ColoredPiece::new(us, p.kind().promote())
            } else {
                p
            };
            self.put(np, to);
            board_key ^= S::piece_square_key(np, to);
            if np.kind() == S::Kind::KING {
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
        let Some(st) = self.states.pop() else { return };
        let m = st.last_move;
        self.side = !self.side;
        self.ply -= 1;
        let us = self.side;
        let to = m.to();
        if m.is_drop() {
            let p = self.board[to.index()];
            self.remove(p, to);
            self.hands[us.index()].add(S::drop_kind(m));
        } else {
            let from = m.from();
            let np = self.board[to.index()];
            self.remove(np, to);
            let p = if m.is_promotion() {
                ColoredPiece::new(us, np.kind().unpromote())
            } else {
                np
            };
            self.put(p, from);
            if p.kind() == S::Kind::KING {
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
            board_key: prev.board_key ^ SIDE_KEY,
            hand_key: prev.hand_key,
            hand_to_move: self.hands[self.side.index()],
            checkers: Bitboard::EMPTY,
            captured: ColoredPiece::NONE,
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

    // ---- text ----------------------------------------------------------------------------

    /// Appends SFEN's board field.
    pub(crate) fn write_sfen_board(&self, s: &mut String) {
        write_sfen_board(s, &self.board, S::FILES);
    }

    /// Board diagram for the `d` command and debugging: hands, the board and the SFEN.
    pub fn diagram(&self) -> String
    where
        S::Hand: std::fmt::Debug,
    {
        let mut s = String::new();
        s.push_str(&format!("White hand: {:?}\n", self.hands[1]));
        for f in (0..S::FILES).rev() {
            s.push_str(&format!("{:>3}", f + 1));
        }
        s.push('\n');
        for r in 0..9 {
            for f in (0..S::FILES).rev() {
                let p = self.board[Square::from_file_rank(f, r).index()];
                s.push_str(&format!("{:>3}", p.to_string()));
            }
            s.push_str(&format!("  {}\n", (b'a' + r) as char));
        }
        s.push_str(&format!("Black hand: {:?}\n", self.hands[0]));
        s.push_str(&format!("sfen {}\nkey {:016x}", self.to_sfen(), self.key()));
        s
    }
}

/// SFEN's board field for a board of `files` files: ranks a to i, each from the highest file
/// down, runs of empty squares as digits.
pub(crate) fn write_sfen_board<K: Kind>(s: &mut String, board: &[ColoredPiece<K>; 81], files: u8) {
    for r in 0..9 {
        if r > 0 {
            s.push('/');
        }
        let rank = (0..files)
            .rev()
            .map(|f| board[Square::from_file_rank(f, r).index()]);
        write_sfen_rank(s, rank.map(|p| (!p.is_none()).then_some(p)));
    }
}

impl<S: PieceSet> std::fmt::Debug for Board<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

/// Same board, hands, side and move number; history is not compared.
impl<S: PieceSet> PartialEq for Board<S> {
    fn eq(&self, other: &Self) -> bool {
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
