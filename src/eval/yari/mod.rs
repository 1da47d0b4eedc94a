//! The yari shogi evaluation: material on the board and in hand, placement by rank, and the
//! king's shelter. Its parameters are data (`yari_weights.txt`), read once and shared.

use crate::eval::WholePositionEvaluation;
use crate::shogi::{Color, HandCounts, Kind, Square};
use crate::yari::{PieceType, Position, attacks};
use std::sync::{Arc, OnceLock};

const WEIGHTS_TEXT: &str = include_str!("yari_weights.txt");

/// Parameters indexed by `PieceType::index()` (below 16) and by rank from the far side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YariWeights {
    board: [i32; 16],
    hand: [i32; 16],
    rank: [[i32; 9]; 16],
    king_guard: i32,
    king_pressure: i32,
    tempo: i32,
}

/// The kind a weights file names: `P N B R K` and the promoted `+P +N +B +R`.
fn kind_of(name: &str) -> Option<PieceType> {
    let (promoted, letter) = match name.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, name),
    };
    let [c] = letter.as_bytes() else {
        return None;
    };
    let kind = PieceType::from_letter(*c)?;
    if promoted {
        kind.can_promote().then(|| kind.promote())
    } else {
        Some(kind)
    }
}

impl YariWeights {
    /// Reads the text format of `yari_weights.txt`; the error names the line.
    pub fn parse(text: &str) -> Result<YariWeights, String> {
        let mut w = YariWeights {
            board: [0; 16],
            hand: [0; 16],
            rank: [[0; 9]; 16],
            king_guard: 0,
            king_pressure: 0,
            tempo: 0,
        };
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("yari weights line {}: `{line}`", i + 1);
            let mut words = line.split_whitespace();
            let name = words.next().ok_or_else(bad)?;
            let mut kind = None;
            if name == "material" || name == "rank" {
                kind = Some(words.next().and_then(kind_of).ok_or_else(bad)?);
            }
            let numbers = words
                .map(str::parse::<i32>)
                .collect::<Result<Vec<i32>, _>>()
                .map_err(|_| bad())?;
            match (name, kind, numbers.as_slice()) {
                // A captured piece goes to hand unpromoted: only unpromoted kinds have a
                // value in hand.
                ("material", Some(k), &[on_board, in_hand]) if !k.is_promoted() => {
                    w.board[k.index()] = on_board;
                    w.hand[k.index()] = in_hand;
                }
                ("material", Some(k), &[on_board]) if k.is_promoted() => {
                    w.board[k.index()] = on_board;
                }
                ("rank", Some(k), ranks) if ranks.len() == 9 => {
                    w.rank[k.index()].copy_from_slice(ranks);
                }
                ("king_guard", None, &[v]) => w.king_guard = v,
                ("king_pressure", None, &[v]) => w.king_pressure = v,
                ("tempo", None, &[v]) => w.tempo = v,
                _ => return Err(bad()),
            }
        }
        Ok(w)
    }

    /// The embedded parameters.
    pub fn embedded() -> Arc<YariWeights> {
        static WEIGHTS: OnceLock<Arc<YariWeights>> = OnceLock::new();
        crate::eval::embedded_weights(&WEIGHTS, WEIGHTS_TEXT, YariWeights::parse)
    }

    /// What colour `c` owns: pieces, their placement, its hand and its king's shelter.
    fn side(&self, pos: &Position, c: Color) -> i32 {
        let mut v = 0;
        for sq in pos.pieces_of(c) {
            let k = pos.piece_on(sq).kind().index();
            v += self.board[k] + self.rank[k][usize::from(sq.relative_rank(c))];
        }
        let hand = pos.hand(c);
        for k in PieceType::HAND {
            v += self.hand[k.index()] * hand.count(k) as i32;
        }
        if let Some(ksq) = pos.king_square(c) {
            v += self.king_safety(pos, c, ksq);
        }
        v
    }

    fn king_safety(&self, pos: &Position, c: Color, ksq: Square) -> i32 {
        let (guards, pressed) = shelter(pos, c, ksq);
        self.king_guard * guards as i32 - self.king_pressure * pressed as i32
    }
}

impl WholePositionEvaluation<Position> for YariWeights {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        self.side(pos, us) - self.side(pos, !us) + self.tempo
    }
}

/// Parameters as one vector, in this order: on-board values by kind index (16), in-hand values
/// (16), rank bonuses by kind index and rank (16 x 9), king guard, king pressure, tempo. The
/// evaluation is the dot product of this vector with [`YariWeights::features`], which is how
/// `kirin-tune yari-fit` fits it.
pub const NUM_PARAMS: usize = 16 + 16 + 16 * 9 + 3;
const RANK_AT: usize = 32;
const GUARD_AT: usize = RANK_AT + 16 * 9;

impl YariWeights {
    pub fn to_params(&self) -> Vec<f64> {
        let mut p = Vec::with_capacity(NUM_PARAMS);
        p.extend(self.board.iter().map(|&v| f64::from(v)));
        p.extend(self.hand.iter().map(|&v| f64::from(v)));
        for ranks in &self.rank {
            p.extend(ranks.iter().map(|&v| f64::from(v)));
        }
        p.extend([self.king_guard, self.king_pressure, self.tempo].map(f64::from));
        p
    }

    /// The weights nearest to `p` (rounded to integers); `p` must have `NUM_PARAMS` entries.
    pub fn from_params(p: &[f64]) -> YariWeights {
        let at = |i: usize| p.get(i).copied().unwrap_or(0.0).round() as i32;
        let mut w = YariWeights {
            board: [0; 16],
            hand: [0; 16],
            rank: [[0; 9]; 16],
            king_guard: at(GUARD_AT),
            king_pressure: at(GUARD_AT + 1),
            tempo: at(GUARD_AT + 2),
        };
        for k in 0..16 {
            w.board[k] = at(k);
            w.hand[k] = at(16 + k);
            for r in 0..9 {
                w.rank[k][r] = at(RANK_AT + k * 9 + r);
            }
        }
        w
    }

    /// What the parameters multiply, from the side to move's point of view: the mover's counts
    /// minus the opponent's.
    pub fn features(pos: &Position) -> Vec<f64> {
        let mut f = vec![0.0; NUM_PARAMS];
        let us = pos.side_to_move();
        for (c, sign) in [(us, 1.0), (!us, -1.0)] {
            for sq in pos.pieces_of(c) {
                let k = pos.piece_on(sq).kind().index();
                f[k] += sign;
                f[RANK_AT + k * 9 + usize::from(sq.relative_rank(c))] += sign;
            }
            let hand = pos.hand(c);
            for k in PieceType::HAND {
                f[16 + k.index()] += sign * f64::from(hand.count(k));
            }
            if let Some(ksq) = pos.king_square(c) {
                let (guards, pressed) = shelter(pos, c, ksq);
                f[GUARD_AT] += sign * f64::from(guards);
                f[GUARD_AT + 1] -= sign * f64::from(pressed);
            }
        }
        f[GUARD_AT + 2] = 1.0;
        f
    }

    /// The file format `parse` reads, for the kinds yari shogi has.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = crate::eval::comment_lines(header);
        out.push_str("# material KIND on-board in-hand (in hand: unpromoted kinds only)\n");
        for k in PieceType::ALL {
            if k == PieceType::King {
                continue;
            }
            let (name, board) = (kind_name(k), self.board[k.index()]);
            if k.is_promoted() {
                out.push_str(&format!("material {name} {board}\n"));
            } else {
                out.push_str(&format!(
                    "material {name} {board} {}\n",
                    self.hand[k.index()]
                ));
            }
        }
        out.push_str(
            "# rank KIND, nine bonuses by rank from the mover's far side (0 = last rank)\n",
        );
        for k in PieceType::ALL {
            let ranks: Vec<String> = self.rank[k.index()].iter().map(i32::to_string).collect();
            out.push_str(&format!("rank {} {}\n", kind_name(k), ranks.join(" ")));
        }
        out.push_str(&format!(
            "king_guard {}\nking_pressure {}\ntempo {}\n",
            self.king_guard, self.king_pressure, self.tempo
        ));
        out
    }
}

fn kind_name(k: PieceType) -> String {
    let letter = k.letter();
    if k.is_promoted() {
        format!("+{letter}")
    } else {
        letter.to_string()
    }
}

/// Own pieces next to `c`'s king, and the squares next to it that the enemy attacks.
fn shelter(pos: &Position, c: Color, ksq: Square) -> (u32, u32) {
    let around = attacks::king_steps(ksq);
    let guards = (around & pos.pieces_of(c)).count();
    let occ = pos.occupied();
    let pressed = around
        .into_iter()
        .filter(|&sq| pos.is_attacked(!c, sq, occ))
        .count() as u32;
    (guards, pressed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_weights_parse_and_cover_every_kind() {
        let w = YariWeights::parse(WEIGHTS_TEXT).unwrap();
        for k in PieceType::ALL {
            if k != PieceType::King {
                assert!(w.board[k.index()] > 0, "{k:?} has no value");
            }
        }
        for k in PieceType::HAND {
            assert!(w.hand[k.index()] > 0, "{k:?} has no hand value");
        }
    }

    #[test]
    fn the_evaluation_is_the_dot_product_of_parameters_and_features() {
        let w = YariWeights::embedded();
        let p = w.to_params();
        assert_eq!(p.len(), NUM_PARAMS);
        assert_eq!(YariWeights::from_params(&p), *w);
        assert_eq!(YariWeights::parse(&w.to_text("round trip")).unwrap(), *w);
        let mut pos = Position::startpos();
        let mut next = crate::test_rng::xorshift(7);
        for _ in 0..120 {
            let f = YariWeights::features(&pos);
            let dot: f64 = p.iter().zip(&f).map(|(a, b)| a * b).sum();
            assert_eq!(dot as i32, w.evaluate(&pos), "{}", pos.to_sfen());
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.do_move(moves[(next() % moves.len() as u64) as usize]);
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let e = YariWeights::parse("material P 1 2\nmaterial L 3 4\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(YariWeights::parse("rank P 1 2 3\n").is_err());
        assert!(YariWeights::parse("tempo x\n").is_err());
    }

    #[test]
    fn the_start_is_balanced_and_material_counts() {
        let w = YariWeights::embedded();
        let start = Position::startpos();
        // The same army on each side: only the tempo remains.
        assert_eq!(w.evaluate(&start), w.tempo);
        // Black a yari rook up (White's removed): good for Black to move, bad for White.
        let up = Position::from_sfen("1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1").unwrap();
        assert!(w.evaluate(&up) > 500);
        let down = Position::from_sfen("1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR w - 1").unwrap();
        assert!(w.evaluate(&down) < -500);
    }
}
