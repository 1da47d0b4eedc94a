//! Internal consistency of the rules core on random playouts, and `parse_move`'s errors.
//!
//! At every visited position (over 100,000 of them, from several start positions including
//! handicaps and positions with many pieces in hand):
//! - the incremental `board_key`/`hand_key` equal `keys_from_scratch()`, and `key()` is their xor;
//! - the position written as SFEN and read back has the same keys, checkers and legal moves;
//! - for every legal move, `gives_check` before it equals `in_check()` after it, the keys after it
//!   equal the recomputed ones, and `undo_move` gives back an equal position and key;
//! - for the move actually played, do/undo restores `to_sfen()`, `key()` and the exact legal list,
//!   and unwinding a whole playout gives back its start position;
//! - a null move (out of check) flips the side and key consistently and undoes exactly;
//! - the search-mode generators: `tactical_moves` and `quiet_moves` are disjoint and together
//!   equal `search_moves` out of check, `evasions` equals `search_moves` in check, `search_moves`
//!   is `legal_moves` less exactly the useless non-promotions, `checks` is the legal moves that
//!   give check and `quiet_checks` the quiet moves that do;
//! - every legal move's text parses back to it, and random text parses exactly when it is
//!   well-formed and legal, failing with `Syntax` or `Illegal` as appropriate.

use kirin::shogi::movegen::{
    checks, evasions, quiet_checks, quiet_moves, search_moves, tactical_moves,
};
use kirin::shogi::{Color, Move, MoveError, MoveList, PieceType, Position, Square, legal_moves};
use std::collections::HashSet;

/// xorshift64*: small, fast, and good enough to pick moves.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const STARTS: &[&str] = &[
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    // Handicaps, White to move: lance, bishop, two pieces, six pieces.
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    "R7g/2K1S1SSk/9/5B3/9/9/9/9/1L1L1L3 b RBGSNLP2g3n17p 3",
    "7lk/9/8S/9/9/9/9/7L1/8K b P 1",
    "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1",
    "4k4/9/9/9/9/9/9/9/4K4 b RBG2S2N2L9Pr2g2s2n2l9p 1",
    // Mate-problem style: Black has no king, so White can never give check.
    "6snl/6gk1/6ppp/9/9/9/9/9/9 b 2RBG2S2N2L9Pb2gsnl6p 1",
];

const POSITIONS: usize = 100_000;

/// `pos` with `n` random non-king pieces moved from the board into random hands and a random
/// side to move; `None` when that leaves the side not to move in check.
fn with_pieces_in_hand(rng: &mut Rng, pos: &Position, n: usize) -> Option<Position> {
    let mut board: Vec<String> = Square::all()
        .map(|sq| {
            let p = pos.piece_on(sq);
            if p.is_none() {
                String::new()
            } else {
                p.to_string()
            }
        })
        .collect();
    let mut hands = [[0u32; 16]; 2];
    for c in Color::ALL {
        for pt in PieceType::HAND {
            hands[c.index()][pt.index()] = pos.hand(c).count(pt);
        }
    }
    let mut candidates: Vec<Square> = Square::all()
        .filter(|&sq| {
            let p = pos.piece_on(sq);
            p.is_some() && p.kind() != PieceType::King
        })
        .collect();
    for _ in 0..n.min(candidates.len()) {
        let sq = candidates.swap_remove(rng.below(candidates.len()));
        let kind = pos.piece_on(sq).kind().unpromote();
        board[sq.index()].clear();
        hands[rng.below(2)][kind.index()] += 1;
    }
    let mut sfen = String::new();
    for r in 0..9 {
        let mut empty = 0;
        for f in (0..9).rev() {
            let t = &board[Square::from_file_rank(f, r).index()];
            if t.is_empty() {
                empty += 1;
            } else {
                if empty > 0 {
                    sfen.push_str(&empty.to_string());
                    empty = 0;
                }
                sfen.push_str(t);
            }
        }
        if empty > 0 {
            sfen.push_str(&empty.to_string());
        }
        sfen.push(if r < 8 { '/' } else { ' ' });
    }
    sfen.push_str(if rng.chance(50) { "b " } else { "w " });
    let mut hand = String::new();
    for c in Color::ALL {
        for pt in PieceType::SFEN_HAND_ORDER {
            let n = hands[c.index()][pt.index()];
            if n > 0 {
                if n > 1 {
                    hand.push_str(&n.to_string());
                }
                let l = pt.letter();
                hand.push(if c == Color::Black {
                    l
                } else {
                    l.to_ascii_lowercase()
                });
            }
        }
    }
    sfen.push_str(if hand.is_empty() { "-" } else { &hand });
    sfen.push_str(" 1");
    Position::from_sfen(&sfen).ok()
}

fn set(moves: &[Move]) -> HashSet<Move> {
    let s: HashSet<Move> = moves.iter().copied().collect();
    assert_eq!(s.len(), moves.len(), "duplicate moves in {moves:?}");
    s
}

fn is_capture(pos: &Position, m: Move) -> bool {
    !m.is_drop() && pos.piece_on(m.to()).is_some()
}

/// A non-promotion that the search mode leaves out: the piece could promote on this move and is a
/// pawn, bishop or rook, or it is a lance going to the second rank.
fn useless_non_promotion(pos: &Position, m: Move, legal: &HashSet<Move>) -> bool {
    if m.is_drop() || m.is_promotion() || !legal.contains(&Move::normal(m.from(), m.to(), true)) {
        return false;
    }
    match pos.piece_on(m.from()).kind() {
        PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
        PieceType::Lance => m.to().relative_rank(pos.side_to_move()) == 1,
        _ => false,
    }
}

/// Whether `text` is well-formed USI move text, written independently of the engine's parser.
fn well_formed(text: &str) -> bool {
    let b = text.as_bytes();
    let file = |c: u8| (b'1'..=b'9').contains(&c);
    let rank = |c: u8| (b'a'..=b'i').contains(&c);
    match b.len() {
        4 if b[1] == b'*' => b"PLNSBRG".contains(&b[0]) && file(b[2]) && rank(b[3]),
        4 | 5 => {
            file(b[0])
                && rank(b[1])
                && file(b[2])
                && rank(b[3])
                && b[..2] != b[2..4]
                && (b.len() == 4 || b[4] == b'+')
        }
        _ => false,
    }
}

#[derive(Default)]
struct Stats {
    positions: usize,
    in_check: usize,
    moves_tried: usize,
    useless: usize,
    texts: usize,
}

fn check_keys(pos: &Position, context: &dyn Fn() -> String) {
    let (board_key, hand_key) = pos.keys_from_scratch();
    assert_eq!(
        pos.board_key(),
        board_key,
        "board key drifted: {}",
        context()
    );
    assert_eq!(pos.hand_key(), hand_key, "hand key drifted: {}", context());
    assert_eq!(pos.key(), board_key ^ hand_key, "key: {}", context());
}

fn check_position(pos: &mut Position, rng: &mut Rng, stats: &mut Stats) {
    let sfen = pos.to_sfen();
    check_keys(pos, &|| sfen.clone());
    let legal = legal_moves(pos);
    let legal_set = set(&legal);
    stats.positions += 1;
    stats.in_check += usize::from(pos.in_check());

    // The same position read fresh from its SFEN.
    let fresh =
        Position::from_sfen(&sfen).unwrap_or_else(|e| panic!("{sfen} does not re-read: {e}"));
    assert_eq!(fresh.to_sfen(), sfen);
    assert_eq!(
        (fresh.board_key(), fresh.hand_key()),
        (pos.board_key(), pos.hand_key()),
        "{sfen}"
    );
    assert_eq!(
        fresh.checkers(),
        pos.checkers(),
        "{sfen}: checkers differ from a fresh read"
    );
    assert_eq!(fresh.in_check(), pos.in_check(), "{sfen}");
    assert_eq!(
        set(&legal_moves(&fresh)),
        legal_set,
        "{sfen}: legal moves differ from a fresh read"
    );
    assert_eq!(pos.is_mated(), legal.is_empty(), "{sfen}");

    // Every legal move: check flag, keys after it, exact undo.
    let before = pos.clone();
    let key = pos.key();
    for &m in &legal {
        let gives = pos.gives_check(m);
        pos.do_move(m);
        assert_eq!(pos.in_check(), gives, "{sfen}: gives_check({m}) is {gives}");
        assert_eq!(pos.checkers().is_some(), gives, "{sfen}: {m}");
        assert_eq!(pos.side_to_move(), !before.side_to_move());
        check_keys(pos, &|| format!("{sfen} after {m}"));
        pos.undo_move();
        assert_eq!(pos.key(), key, "{sfen}: key after {m} and undo");
        assert!(
            *pos == before,
            "{sfen}: {m} and undo give {}",
            pos.to_sfen()
        );
        stats.moves_tried += 1;
    }

    // A null move (never made in check) flips the side and key, and undoes exactly.
    if !pos.in_check() {
        pos.do_null_move();
        assert_eq!(pos.side_to_move(), !before.side_to_move());
        assert!(!pos.in_check(), "{sfen}: null move");
        check_keys(pos, &|| format!("{sfen} after a null move"));
        assert_ne!(pos.key(), key);
        pos.undo_null_move();
        assert!(*pos == before, "{sfen}: null move and undo");
    }

    // Search-mode generators.
    let mut search = MoveList::new();
    search_moves(pos, &mut search);
    let search_set = set(&search);
    let expected: HashSet<Move> = legal
        .iter()
        .copied()
        .filter(|&m| !useless_non_promotion(pos, m, &legal_set))
        .collect();
    stats.useless += legal.len() - expected.len();
    assert_eq!(
        search_set, expected,
        "{sfen}: search_moves is not legal_moves less useless non-promotions"
    );
    if pos.in_check() {
        let mut ev = MoveList::new();
        evasions(pos, &mut ev);
        assert_eq!(
            set(&ev),
            search_set,
            "{sfen}: evasions != search_moves in check"
        );
    } else {
        let mut tactical = MoveList::new();
        let mut quiet = MoveList::new();
        tactical_moves(pos, &mut tactical);
        quiet_moves(pos, &mut quiet);
        let t = set(&tactical);
        let q = set(&quiet);
        assert!(t.is_disjoint(&q), "{sfen}: tactical and quiet overlap");
        assert_eq!(
            &t | &q,
            search_set,
            "{sfen}: tactical + quiet != search_moves"
        );
        for &m in &t {
            assert!(
                is_capture(pos, m) || m.is_promotion(),
                "{sfen}: tactical {m}"
            );
        }
        for &m in &q {
            assert!(
                !is_capture(pos, m) && !m.is_promotion(),
                "{sfen}: quiet {m}"
            );
        }
        let mut qc = MoveList::new();
        quiet_checks(pos, &mut qc);
        let expected_qc: HashSet<Move> =
            q.iter().copied().filter(|&m| pos.gives_check(m)).collect();
        assert_eq!(set(&qc), expected_qc, "{sfen}: quiet_checks");
    }
    let mut ch = MoveList::new();
    checks(pos, &mut ch);
    let expected_checks: HashSet<Move> = legal
        .iter()
        .copied()
        .filter(|&m| pos.gives_check(m))
        .collect();
    assert_eq!(
        set(&ch),
        expected_checks,
        "{sfen}: checks != legal moves that give check"
    );

    // Text: every legal move round-trips; random candidates parse iff well-formed and legal.
    for &m in &legal {
        let text = m.to_string();
        assert_eq!(
            pos.parse_move(&text),
            Ok(m),
            "{sfen}: {text} does not round-trip"
        );
    }
    for _ in 0..6 {
        let text = random_move_text(rng);
        let got = pos.parse_move(&text);
        if !well_formed(&text) {
            assert_eq!(
                got,
                Err(MoveError::Syntax(text.clone())),
                "{sfen}: {text:?}"
            );
        } else {
            match legal.iter().find(|m| m.to_string() == text) {
                Some(&m) => assert_eq!(got, Ok(m), "{sfen}: {text}"),
                None => assert_eq!(got, Err(MoveError::Illegal(text.clone())), "{sfen}: {text}"),
            }
        }
        stats.texts += 1;
    }
    assert!(*pos == before);
}

/// Mostly plausible move text (random squares, drops, promotion marks), sometimes garbage.
fn random_move_text(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"123456789abcdefghij0PLNSBRGKpl*+ x";
    let square = |rng: &mut Rng| {
        format!(
            "{}{}",
            1 + rng.below(9),
            (b'a' + rng.below(9) as u8) as char
        )
    };
    match rng.below(4) {
        0 => format!(
            "{}*{}",
            ['P', 'L', 'N', 'S', 'B', 'R', 'G'][rng.below(7)],
            square(rng)
        ),
        1 | 2 => format!(
            "{}{}{}",
            square(rng),
            square(rng),
            if rng.chance(40) { "+" } else { "" }
        ),
        _ => (0..rng.below(7))
            .map(|_| ALPHABET[rng.below(ALPHABET.len())] as char)
            .collect(),
    }
}

/// Picks the next move: uniformly, or preferring captures, drops or checks so that hands fill
/// up and checks and mates occur.
fn pick(rng: &mut Rng, pos: &Position, legal: &[Move], policy: usize) -> Move {
    let prefer = |rng: &mut Rng, f: &dyn Fn(Move) -> bool, percent: u64| -> Option<Move> {
        let v: Vec<Move> = legal.iter().copied().filter(|&m| f(m)).collect();
        if !v.is_empty() && rng.chance(percent) {
            Some(v[rng.below(v.len())])
        } else {
            None
        }
    };
    let choice = match policy {
        1 => prefer(rng, &|m| is_capture(pos, m), 80),
        2 => prefer(rng, &|m| m.is_drop(), 60).or_else(|| prefer(rng, &|m| is_capture(pos, m), 60)),
        3 => prefer(rng, &|m| pos.gives_check(m), 50)
            .or_else(|| prefer(rng, &|m| is_capture(pos, m), 50)),
        _ => None,
    };
    choice.unwrap_or_else(|| legal[rng.below(legal.len())])
}

#[test]
fn random_playouts_keep_every_invariant() {
    let seed = match std::env::var("KIRIN_INVARIANTS_SEED") {
        Ok(v) => v
            .trim()
            .parse()
            .expect("KIRIN_INVARIANTS_SEED must be a number"),
        Err(_) => 0x0123_4567_89ab_cdef,
    };
    println!("invariants seed {seed} (set KIRIN_INVARIANTS_SEED to change it)");
    let mut rng = Rng::new(seed);
    let mut stats = Stats::default();
    let mut game = 0usize;
    let mut mates = 0usize;
    while stats.positions < POSITIONS {
        let base = Position::from_sfen(STARTS[game % STARTS.len()]).expect("start position");
        let mut pos = if game % 2 == 1 {
            let n = 1 + rng.below(30);
            match with_pieces_in_hand(&mut rng, &base, n) {
                Some(p) => p,
                None => base,
            }
        } else {
            base
        };
        let policy = (game / 2) % 4;
        game += 1;
        let start_sfen = pos.to_sfen();
        let start_key = pos.key();
        let plies = 1 + rng.below(200);
        for _ in 0..plies {
            check_position(&mut pos, &mut rng, &mut stats);
            let legal = legal_moves(&pos);
            if legal.is_empty() {
                mates += 1;
                break;
            }
            let m = pick(&mut rng, &pos, &legal, policy);
            let (sfen, key) = (pos.to_sfen(), pos.key());
            pos.do_move(m);
            pos.undo_move();
            assert_eq!(pos.to_sfen(), sfen, "do/undo of {m}");
            assert_eq!(pos.key(), key, "do/undo of {m}");
            assert_eq!(
                legal_moves(&pos),
                legal,
                "{sfen}: legal list after do/undo of {m}"
            );
            pos.do_move(m);
        }
        // Unwind the whole playout: the start position comes back exactly.
        let played = pos.moves_played();
        for _ in 0..played {
            pos.undo_move();
        }
        assert_eq!(pos.to_sfen(), start_sfen, "unwinding {played} moves");
        assert_eq!(pos.key(), start_key);
    }
    println!(
        "{} positions in {game} playouts ({} in check, {mates} with no legal move), {} moves made and \
         unmade, {} useless non-promotions, {} move texts tried",
        stats.positions, stats.in_check, stats.moves_tried, stats.useless, stats.texts
    );
    assert!(
        stats.in_check * 50 >= stats.positions,
        "too few positions in check"
    );
    assert!(mates > 0 && stats.useless > 0);
}

#[test]
fn parse_move_reports_syntax_errors() {
    let pos = Position::startpos();
    for text in [
        "", "7g", "7g7", "7g7f++", "7g7f=", "7g7f ", " 7g7f", "+7g7f", "7g-7f", "0a1b", "7j7f",
        "7g7z", "77gf", "7g7g", "7g7g+", "P*", "P*5", "P*5e+", "P*5j", "p*5e", "K*5e", "X*5e",
        "*5e", "P+5e", "７g7f", "7G7F", "pass", "resign", "none", "0000",
    ] {
        assert_eq!(
            pos.parse_move(text),
            Err(MoveError::Syntax(text.to_string())),
            "{text:?}"
        );
    }
}

#[test]
fn parse_move_reports_illegal_moves() {
    let cases: &[(&str, &[&str])] = &[
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            &[
                "7g7e",  // a pawn moves one step
                "7g7f+", // no promotion outside the zone
                "5e5d",  // nothing there
                "3c3d",  // the opponent's piece
                "8h2b",  // blocked bishop
                "5i4i",  // own piece on the square
                "P*5e",  // nothing in hand
                "2h2a",  // the rook cannot jump
            ],
        ),
        // Black pawn on 5b, knight on 3c, lance on 1c: each must promote on the last rank(s).
        (
            "k8/4P4/6N1L/9/9/9/9/9/4K4 b - 1",
            &["5b5a", "3c4a", "3c2a", "1c1a"],
        ),
        // Dead-square drops and nifu.
        (
            "4k4/9/9/9/9/9/4P4/9/4K4 b PLN 1",
            &["P*1a", "L*1a", "N*1a", "N*1b", "P*5e"],
        ),
        // White's dead squares are ranks i (and h for knights).
        (
            "4k4/9/9/9/9/9/9/9/K8 w pln 1",
            &["P*1i", "L*1i", "N*1i", "N*1h"],
        ),
        // Pawn-drop mate: P*1b would mate (silver guards 1b, the lance on 2h covers 2b).
        ("7lk/9/8S/9/9/9/9/7L1/8K b P 1", &["P*1b"]),
        // The silver on 5h is pinned by the rook on 5a.
        ("4r3k/9/9/9/9/9/9/4S4/4K4 b - 1", &["5h4g", "5h6g", "5h4i"]),
        // The king may not step onto the file of the rook on 6a, nor next to the other king.
        ("3r4k/9/9/9/9/9/9/9/4K4 b - 1", &["5i6h", "5i6i"]),
        ("9/9/9/9/9/9/4k4/9/4K4 b - 1", &["5i4h", "5i5h", "5i6h"]),
        // In check from the rook on 5a: only evasions.
        ("4r3k/9/9/9/9/9/9/9/4K4 b G 1", &["G*1e", "5i5h"]),
    ];
    for &(sfen, illegal) in cases {
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        let legal = legal_moves(&pos);
        for &text in illegal {
            assert_eq!(
                pos.parse_move(text),
                Err(MoveError::Illegal(text.to_string())),
                "{sfen}: {text} should be illegal; legal: {legal:?}"
            );
        }
    }
    // The promoting forms and useless non-promotions are legal and accepted.
    let ok: &[(&str, &[&str])] = &[
        (
            "k8/4P4/6N1L/9/9/9/9/9/4K4 b - 1",
            &["5b5a+", "3c4a+", "3c2a+", "1c1a+", "1c1b", "1c1b+"],
        ),
        (
            "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
            &["8h2b", "8h2b+"],
        ),
        (
            "4k4/9/9/9/9/9/4P4/9/4K4 b PLN 1",
            &["P*1b", "L*1b", "N*1c", "P*4e"],
        ),
        ("4r3k/9/9/9/9/9/9/9/4K4 b G 1", &["G*5h", "G*5b", "5i4h"]),
    ];
    for &(sfen, moves) in ok {
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        for &text in moves {
            let m = pos
                .parse_move(text)
                .unwrap_or_else(|e| panic!("{sfen}: {text} should be legal: {e}"));
            assert_eq!(m.to_string(), text);
        }
    }
}
