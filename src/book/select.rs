//! Which book move to play, under the options YaneuraOu's users know.

use super::BookMove;
use crate::shogi::Color;

/// How to pick among the moves that pass the filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The highest value (the most played among equals).
    BestValue,
    /// At random, each move as likely as its count says.
    WeightedByCount,
    /// At random, all alike.
    Uniform,
}

impl Choice {
    /// The `BookMoveChoice` combo values.
    pub const NAMES: [&'static str; 3] = ["BestValue", "WeightedByCount", "Uniform"];

    pub fn from_name(name: &str) -> Option<Choice> {
        match name {
            n if n.eq_ignore_ascii_case("BestValue") => Some(Choice::BestValue),
            n if n.eq_ignore_ascii_case("WeightedByCount") => Some(Choice::WeightedByCount),
            n if n.eq_ignore_ascii_case("Uniform") => Some(Choice::Uniform),
            _ => None,
        }
    }
}

/// The book's USI options, defaults as YaneuraOu's where it has the option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    /// `BookMoves`: the last game ply (1-based, as in SFEN) at which the book is used.
    pub moves: u32,
    /// `BookEvalDiff`: only moves within this many centipawns of the best one.
    pub eval_diff: i32,
    /// `BookEvalBlackLimit` / `BookEvalWhiteLimit`: no book move below this value for the
    /// side to move.
    pub black_limit: i32,
    pub white_limit: i32,
    /// `BookDepthLimit`: only moves searched at least this deep (0: any).
    pub depth_limit: i32,
    /// `BookIgnoreRate`: the percentage of book positions played as if out of book.
    pub ignore_rate: u32,
    /// `BookMoveChoice`.
    pub choice: Choice,
    /// `BookPvMoves`: how long a PV the `info` line shows, following the book.
    pub pv_moves: u32,
    /// `IgnoreBookPly`: match positions whatever their ply number.
    pub ignore_ply: bool,
    /// `BookOnTheFly`: search the file on disk instead of loading it.
    pub on_the_fly: bool,
}

impl Default for BookOptions {
    fn default() -> Self {
        BookOptions {
            moves: 16,
            eval_diff: 30,
            black_limit: 0,
            white_limit: -140,
            depth_limit: 0,
            ignore_rate: 0,
            choice: Choice::Uniform,
            pv_moves: 8,
            ignore_ply: true,
            on_the_fly: false,
        }
    }
}

/// A small seeded generator (xorshift64*); the book needs variety, not cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// Seeded from the clock, so that games differ.
    pub fn from_time() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng::new(nanos ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// The moves the options allow, best value first.
pub fn allowed(moves: &[BookMove], side: Color, options: &BookOptions) -> Vec<BookMove> {
    let mut deep: Vec<BookMove> = moves
        .iter()
        .copied()
        .filter(|m| m.depth >= options.depth_limit)
        .collect();
    deep.sort_by_key(|m| (std::cmp::Reverse(m.value), std::cmp::Reverse(m.count)));
    let Some(best) = deep.first().map(|m| m.value) else {
        return deep;
    };
    let limit = match side {
        Color::Black => options.black_limit,
        Color::White => options.white_limit,
    };
    deep.retain(|m| m.value >= best.saturating_sub(options.eval_diff.max(0)) && m.value >= limit);
    deep
}

/// The move to play from `moves` (a position's legal book moves), or `None` when the options
/// rule the book out here: past `BookMoves`, skipped by `BookIgnoreRate`, or no move passes
/// the filters.
pub fn choose(
    moves: &[BookMove],
    side: Color,
    game_ply: u32,
    options: &BookOptions,
    rng: &mut Rng,
) -> Option<BookMove> {
    if game_ply > options.moves || moves.is_empty() {
        return None;
    }
    if options.ignore_rate > 0 && rng.below(100) < u64::from(options.ignore_rate) {
        return None;
    }
    let allowed = allowed(moves, side, options);
    if allowed.is_empty() {
        return None;
    }
    let pick = match options.choice {
        Choice::BestValue => 0,
        Choice::Uniform => rng.below(allowed.len() as u64) as usize,
        Choice::WeightedByCount => {
            let total: u64 = allowed.iter().map(|m| m.count).fold(0, u64::saturating_add);
            if total == 0 {
                rng.below(allowed.len() as u64) as usize
            } else {
                let mut r = rng.below(total);
                let mut pick = allowed.len() - 1;
                for (i, m) in allowed.iter().enumerate() {
                    if r < m.count {
                        pick = i;
                        break;
                    }
                    r -= m.count;
                }
                pick
            }
        }
    };
    Some(allowed[pick])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::parse_syntax;

    fn bm(mv: &str, value: i32, depth: i32, count: u64) -> BookMove {
        BookMove {
            mv: parse_syntax(mv).unwrap(),
            ponder: None,
            value,
            depth,
            count,
        }
    }

    #[test]
    fn filters_and_choices() {
        let moves = [
            bm("7g7f", 50, 20, 1),
            bm("2g2f", 40, 10, 9),
            bm("5g5f", -100, 20, 100),
        ];
        let o = BookOptions::default();
        let names = |v: Vec<BookMove>| v.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>();
        assert_eq!(names(allowed(&moves, Color::Black, &o)), ["7g7f", "2g2f"]);
        let deep = BookOptions {
            depth_limit: 15,
            ..o.clone()
        };
        assert_eq!(names(allowed(&moves, Color::Black, &deep)), ["7g7f"]);
        let wide = BookOptions {
            eval_diff: 1000,
            ..o.clone()
        };
        assert_eq!(names(allowed(&moves, Color::Black, &wide)).len(), 2);
        assert_eq!(names(allowed(&moves, Color::White, &wide)).len(), 3);
        let mut rng = Rng::new(7);
        let best = BookOptions {
            choice: Choice::BestValue,
            ..o.clone()
        };
        for _ in 0..20 {
            let m = choose(&moves, Color::Black, 1, &best, &mut rng).unwrap();
            assert_eq!(m.mv.to_string(), "7g7f");
        }
        assert!(choose(&moves, Color::Black, 17, &o, &mut rng).is_none());
        let never = BookOptions {
            ignore_rate: 100,
            ..o.clone()
        };
        assert!(choose(&moves, Color::Black, 1, &never, &mut rng).is_none());
        let weighted = BookOptions {
            choice: Choice::WeightedByCount,
            ..o
        };
        let mut seen = [0; 2];
        for _ in 0..1000 {
            let m = choose(&moves, Color::Black, 1, &weighted, &mut rng).unwrap();
            seen[usize::from(m.mv.to_string() == "2g2f")] += 1;
        }
        assert!(seen[1] > 800 && seen[0] > 30, "{seen:?}");
    }
}
