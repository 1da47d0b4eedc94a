//! Game-ending rules beyond checkmate: repetition (sennichite, perpetual check, repetition with a
//! better or worse hand) and entering-king declaration.

use super::attacks::king_attacks;
use super::bitboard::Bitboard;
use super::board::{Board, PieceSet};
use super::position::Position;
use super::types::{Color, PieceType, Square};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Repetition {
    None,
    /// Same board, hands and side to move: sennichite, a draw.
    Draw,
    /// The opponent gave check with every move of the cycle: perpetual check, they lose.
    Win,
    /// The side to move gave check with every move of the cycle.
    Loss,
    /// Same board, but the side to move now holds at least every piece it held before, and more.
    Superior,
    /// Same board, but the side to move now holds fewer pieces.
    Inferior,
}

/// Which entering-king rule is in force (the `EnteringKingRule` option).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EnteringKingRule {
    None,
    Csa24,
    Csa24H,
    Csa27,
    Csa27H,
    Try,
}

impl EnteringKingRule {
    pub const NAMES: [(&'static str, EnteringKingRule); 6] = [
        ("NoEnteringKing", EnteringKingRule::None),
        ("CSARule24", EnteringKingRule::Csa24),
        ("CSARule24H", EnteringKingRule::Csa24H),
        ("CSARule27", EnteringKingRule::Csa27),
        ("CSARule27H", EnteringKingRule::Csa27H),
        ("TryRule", EnteringKingRule::Try),
    ];

    pub fn from_name(name: &str) -> Option<EnteringKingRule> {
        Self::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, r)| r)
    }
}

impl<S: PieceSet> Board<S> {
    /// Looks back through at most `max_plies` plies of history (and never past a null move) for
    /// an earlier occurrence of this board with the same side to move. With the same hand for
    /// the side to move (and so, the set being fixed, the same other hand) it is a repetition,
    /// lost by the side that gave check throughout; with other hands the set decides.
    pub fn repetition(&self, max_plies: usize) -> Repetition {
        let history = self.history();
        let cur = history[history.len() - 1];
        let limit = (cur.plies_from_null as usize)
            .min(max_plies)
            .min(history.len() - 1);
        let us = self.side_to_move();
        let mut i = 4;
        while i <= limit {
            let st = &history[history.len() - 1 - i];
            if st.board_key == cur.board_key {
                if st.hand_to_move == cur.hand_to_move {
                    if cur.continuous_check[(!us).index()] as usize >= i {
                        return Repetition::Win;
                    }
                    if cur.continuous_check[us.index()] as usize >= i {
                        return Repetition::Loss;
                    }
                    return Repetition::Draw;
                }
                let by_hands = S::board_repeated_with_hands(cur.hand_to_move, st.hand_to_move);
                if by_hands != Repetition::None {
                    return by_hands;
                }
            }
            i += 2;
        }
        Repetition::None
    }
}

impl Position {
    /// Whether the side to move may declare a win (`bestmove win`) under `rule`.
    /// Under the try rule the win is a move, not a declaration: see `try_move`.
    pub fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        let (threshold_black, threshold_white, handicap) = match rule {
            EnteringKingRule::None | EnteringKingRule::Try => return false,
            EnteringKingRule::Csa24 => (31, 31, false),
            EnteringKingRule::Csa24H => (31, 31, true),
            EnteringKingRule::Csa27 => (28, 27, false),
            EnteringKingRule::Csa27H => (28, 27, true),
        };
        let us = self.side_to_move();
        let Some(ksq) = self.king_square(us) else {
            return false;
        };
        let camp = enemy_camp(us);
        if !camp.has(ksq) || self.in_check() {
            return false;
        }
        let ours = self.pieces_of(us) & camp;
        // The king itself is not counted among the ten pieces nor in the points.
        if ours.count() - 1 < 10 {
            return false;
        }
        let big = self.pieces(PieceType::Bishop)
            | self.pieces(PieceType::Rook)
            | self.pieces(PieceType::Horse)
            | self.pieces(PieceType::Dragon);
        let hand = self.hand(us);
        let mut points = (ours & big).count() * 5 + (ours.and_not(big)).count() - 1
            + 5 * (hand.count(PieceType::Rook) + hand.count(PieceType::Bishop))
            + hand.total()
            - hand.count(PieceType::Rook)
            - hand.count(PieceType::Bishop);
        if handicap && us == Color::White {
            points += self.missing_points();
        }
        let threshold = if us == Color::Black {
            threshold_black
        } else {
            threshold_white
        };
        points >= threshold
    }

    /// Points of the pieces absent from board and hands: the pieces a handicap removed, which the
    /// `H` rule sets credit to the side that gave the handicap (White).
    fn missing_points(&self) -> u32 {
        let mut points = 0;
        for pt in PieceType::HAND {
            let on_board = (self.pieces(pt) | self.pieces_of_promoted(pt)).count();
            let in_hands = self.hand(Color::Black).count(pt) + self.hand(Color::White).count(pt);
            let missing = (pt.count_in_set() as u32).saturating_sub(on_board + in_hands);
            let worth = if matches!(pt, PieceType::Rook | PieceType::Bishop) {
                5
            } else {
                1
            };
            points += missing * worth;
        }
        points
    }

    fn pieces_of_promoted(&self, pt: PieceType) -> Bitboard {
        if pt.can_promote() {
            self.pieces(pt.promote())
        } else {
            Bitboard::EMPTY
        }
    }

    /// Under the try rule: the king move onto the enemy king's start square, when legal.
    pub fn try_move(&self) -> Option<super::types::Move> {
        let us = self.side_to_move();
        let ksq = self.king_square(us)?;
        let target = match us {
            Color::Black => Square::from_file_rank(4, 0),
            Color::White => Square::from_file_rank(4, 8),
        };
        if !king_attacks(ksq).has(target) || self.pieces_of(us).has(target) {
            return None;
        }
        let m = super::types::Move::normal(ksq, target, false);
        let occ = self.occupied() ^ Bitboard::from_square(ksq);
        (!self.is_attacked(!us, target, occ)).then_some(m)
    }
}

/// The three ranks farthest from `c`.
#[inline]
pub fn enemy_camp(c: Color) -> Bitboard {
    match c {
        Color::Black => Bitboard::ranks(0, 2),
        Color::White => Bitboard::ranks(6, 8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(s: &str) -> Position {
        Position::from_sfen(s).unwrap()
    }

    #[test]
    fn declaration_thresholds() {
        // Black king on 5b; ten pieces in the camp: dragon, horse and eight small ones = 18 points.
        let base = "+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b ";
        let full = |hand: &str| pos(&format!("{base}{hand} 1"));
        assert!(full("10P").can_declare_win(EnteringKingRule::Csa27)); // 28
        assert!(!full("9P").can_declare_win(EnteringKingRule::Csa27)); // one point short
        assert!(!full("10P").can_declare_win(EnteringKingRule::Csa24));
        assert!(full("R8P").can_declare_win(EnteringKingRule::Csa24)); // 18 + 5 + 8 = 31
        assert!(!full("R7P").can_declare_win(EnteringKingRule::Csa24));
        assert!(!full("10P").can_declare_win(EnteringKingRule::None));
        assert!(!full("10P").can_declare_win(EnteringKingRule::Try));
        // One piece too few in the camp, even with points to spare.
        let nine = pos("+R+B1G1GSS1/4K4/PPP6/9/9/9/9/4k4/9 b N2G10P 1");
        assert!(!nine.can_declare_win(EnteringKingRule::Csa27));
    }

    #[test]
    fn no_declaration_in_check_or_outside_the_camp() {
        let in_check = pos("+R+B1GlGSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1");
        assert!(in_check.in_check());
        assert!(!in_check.can_declare_win(EnteringKingRule::Csa27));
        let third_rank = pos("+R+B1G1GSS1/9/PPPNK4/9/9/9/9/4k4/9 b 10P 1");
        assert!(third_rank.can_declare_win(EnteringKingRule::Csa27));
        let outside = pos("+R+B1G1GSS1/9/PPPN5/4K4/9/9/9/4k4/9 b 10P 1");
        assert!(!outside.can_declare_win(EnteringKingRule::Csa27));
    }

    #[test]
    fn white_needs_27_and_handicap_credit() {
        let w = pos("9/4K4/9/9/9/9/5nppp/4k4/1ssg1g1+b+r w 9p 1");
        assert!(w.can_declare_win(EnteringKingRule::Csa27)); // 18 + 9 = 27
        let w = pos("9/4K4/9/9/9/9/5nppp/4k4/1ssg1g1+b+r w 8p 1");
        assert!(!w.can_declare_win(EnteringKingRule::Csa27));
        // Under 27H the 28 points of pieces missing from the set count for White.
        assert!(w.can_declare_win(EnteringKingRule::Csa27H));
        assert!(!w.can_declare_win(EnteringKingRule::Csa24));
    }

    fn play(p: &mut Position, moves: &str) {
        for m in moves.split_whitespace() {
            let m = p.parse_move(m).unwrap();
            p.do_move(m);
        }
    }

    #[test]
    fn repetition_kinds() {
        let mut p = pos("4k4/9/9/9/9/9/9/9/4K4 b - 1");
        play(&mut p, "5i5h 5a5b 5h5i");
        assert_eq!(p.repetition(16), Repetition::None);
        play(&mut p, "5b5a");
        assert_eq!(p.repetition(16), Repetition::Draw);
        assert_eq!(p.repetition(2), Repetition::None);

        // Black's rook checks with every move of the cycle: perpetual check, Black loses.
        let mut p = pos("8k/9/9/9/9/9/9/9/K6R1 b - 1");
        play(&mut p, "2i1i 1a2a 1i2i 2a1a");
        assert_eq!(p.repetition(16), Repetition::Loss);
        play(&mut p, "2i1i");
        assert_eq!(p.repetition(16), Repetition::Win);

        // The same board with a piece more in hand for the side to move.
        let mut p = pos("4k4/9/9/9/4p4/9/4R4/9/4K4 b p 1");
        play(&mut p, "5g5e P*5d 5e5g 5d5e");
        assert_eq!(p.repetition(16), Repetition::Superior);
    }
}
