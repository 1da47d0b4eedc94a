//! Yari shogi behind the game interface.
//!
//! The search leaves out the non-promotions that are never better: a pawn becomes a yari
//! silver, which keeps the pawn's step, and a yari rook becomes a rook, which keeps all its
//! moves. A yari knight or yari bishop gives up its forward slide when it promotes, so both
//! choices stay. The mate in one the search asks for at each node is `yari::mate_in_one`,
//! exact (stalemates included, since no legal move loses in yari).
//!
//! Yari's impasse rule settles a game whose kings have both entered by a count of points (yari
//! rook and bishop 5, other pieces 1, board and hand): fewer than 26 loses, both at least 26 is
//! a draw. A side calls it as standard shogi's entering-king declaration is called, with
//! `bestmove win`, and the referee (tuning/yari_match.py) judges the count, so the search takes
//! a position whose count wins for the side to move as won, like a declaration: it then reaches
//! for such positions and keeps the opponent from them. The draw the count gives when both have
//! 26 is not claimed: the search has no draw declaration.

use super::board::{BoardGame, MoveSet};
use super::{MoveList, SharedWeights};
use crate::eval::yari::YariWeights;
use crate::shogi::{EnteringKingRule, Move};
use crate::yari::{PieceType, Position, YariPieces, in_zone};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

impl Position {
    /// Whether the search may skip `m` because promoting instead is never worse.
    #[inline]
    fn skippable(&self, m: Move) -> bool {
        if m.is_drop() || m.is_promotion() {
            return false;
        }
        let us = self.side_to_move();
        matches!(
            self.piece_on(m.from()).kind(),
            PieceType::Pawn | PieceType::YariRook
        ) && (in_zone(us, m.from()) || in_zone(us, m.to()))
    }
}

impl BoardGame for YariPieces {
    const NAME: &'static str = "yarishogi";
    const BENCH: &'static [(&'static str, &'static str)] = &BENCH_POSITIONS;
    type Evaluator = Arc<YariWeights>;
    type EvalStack = SharedWeights<YariWeights>;

    #[inline]
    fn is_legal_move(pos: &Position, m: Move) -> bool {
        pos.is_legal_move(m)
    }
    fn legal_moves(pos: &Position) -> MoveList<Move> {
        pos.legal_moves()
    }
    fn search_mode_moves(pos: &Position, set: MoveSet, list: &mut MoveList<Move>) {
        match set {
            MoveSet::All => list.extend(pos.legal_moves()),
            MoveSet::Tactical => pos.tactical_moves(list),
            MoveSet::Quiet => pos.quiet_moves(list),
            MoveSet::Evasions => pos.evasions(list),
        }
        list.retain(|m| !pos.skippable(*m));
    }
    #[inline]
    fn is_useless_non_promotion(pos: &Position, m: Move) -> bool {
        pos.skippable(m)
    }
    /// The impasse count's win, whatever entering-king rule the options name: those are
    /// standard shogi's, yari has this one.
    #[inline]
    fn can_declare_win(pos: &Position, _rule: EnteringKingRule) -> bool {
        pos.impasse_win()
    }
    fn mate_in_one(pos: &mut Position) -> Option<Move> {
        let key = pos.key();
        let slot = &MATES[key as usize % MATES.len()];
        let entry = slot.load(Ordering::Relaxed);
        if entry != 0 && (entry ^ key) >> 16 == 0 {
            let m = Move::from_raw(entry as u16);
            if m.is_none() {
                return None;
            }
            // Another position with the same key (as rare as in the hash table) may have left a
            // move that is not legal here: then the answer is found afresh.
            if pos.is_legal_move(m) {
                return Some(m);
            }
        }
        let found = crate::yari::mate_in_one(pos);
        let m = found.map_or(0, |m| u64::from(m.raw()));
        slot.store((key & !0xffff) | m, Ordering::Relaxed);
        found
    }

    fn parse_move(pos: &Position, text: &str) -> Result<Move, String> {
        pos.parse_move(text)
    }
    fn default_evaluator() -> Arc<YariWeights> {
        YariWeights::embedded()
    }
    /// A weights file in the format of `yari_weights.txt` (what `kirin-tune yari-fit` writes).
    fn load_evaluator(path: &str) -> Option<Result<(Arc<YariWeights>, &'static str), String>> {
        Some(crate::eval::weights_file(path, YariWeights::parse).map(|w| (w, "yari weights")))
    }
}

/// The answers of `mate_in_one` for the positions last asked about, by key: the search asks
/// again of every position each iteration revisits, and the answer, found at some cost, is the
/// position's own. An entry is the key's upper 48 bits and the move (0 for none); shared by
/// all search threads, which may overwrite each other's entries but never tear one.
static MATES: [AtomicU64; 1 << 16] = [const { AtomicU64::new(0) }; 1 << 16];

/// Yari shogi: the start, an opening, and the two middlegames of the perft table (one with
/// promoted pieces of every kind, one with drops that mate).
const BENCH_POSITIONS: [(&str, &str); 4] = [
    ("startpos", crate::yari::START_SFEN),
    (
        "opening",
        "rnnkb1r/5b1/pppp1pp/4p2/7/2P4/PP1PPPP/3B3/R1BKNNR b - 5",
    ),
    (
        "mixed",
        "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1",
    ),
    ("drops", "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    /// The remembered answers are the ones found afresh, asked once or again.
    #[test]
    fn remembered_mates_are_the_found_ones() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut mates = 0;
        for g in 0..40 {
            let mut p = Position::from_sfen(BENCH_POSITIONS[g % BENCH_POSITIONS.len()].1).unwrap();
            for _ in 0..80 {
                if !p.in_check() {
                    let fresh = crate::yari::mate_in_one(&mut p);
                    assert_eq!(Game::mate_in_one(&mut p), fresh, "{}", p.to_sfen());
                    assert_eq!(Game::mate_in_one(&mut p), fresh, "{}", p.to_sfen());
                    mates += usize::from(fresh.is_some());
                }
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                p.do_move(moves[(x % moves.len() as u64) as usize]);
            }
        }
        assert!(mates > 0);
    }
}
