//! Differential test against cshogi, an independent shogi library (C++ core derived from Apery).
//!
//! `tests/oracle/cshogi_oracle.py` plays random playouts with cshogi and prints, for every visited
//! position, its SFEN, the sorted legal moves, the in-check and no-legal-move flags and the sorted
//! checking moves. This test reads that stream and compares, position by position:
//!
//! - the SFEN parses and `to_sfen()` gives back cshogi's text exactly;
//! - `legal_moves` (full mode) has no duplicates and equals cshogi's `legal_moves` as a set. cshogi
//!   1.1's list is complete (it includes useless non-promotions and its perft counts equal
//!   `perft.tsv`), so no adjustment is made;
//! - `search_moves` equals cshogi's list minus the useless non-promotions (an unpromoted pawn,
//!   bishop or rook move that could promote, an unpromoted lance move to the second rank);
//! - `in_check()` and `is_mated()` equal cshogi's `is_check()` and `is_game_over()`;
//! - the legal moves for which `gives_check` holds, those for which `gives_check_with` holds
//!   (the search's test, from check squares found once per position), and `movegen::checks`,
//!   equal cshogi's `check_moves`.
//!
//! The interpreter is `.venv/bin/python` at the repository root when it exists, else `python3`.
//! A missing interpreter or cshogi is a failure, not a skip. The seed is fixed; set
//! `KIRIN_DIFF_SEED` to try another and `KIRIN_DIFF_POSITIONS` to change how many positions.

use kirin::shogi::movegen::{checks, search_moves};
use kirin::shogi::{Color, Move, MoveList, Piece, PieceType, Position, Square, legal_moves};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const DEFAULT_SEED: u64 = 0x006b_6972_696e; // "kirin" in ASCII
const DEFAULT_POSITIONS: usize = 200_000;
const EXAMPLES_PER_KIND: usize = 4;

/// Where playouts start. Handicap positions have White to move; the oracle also derives
/// positions with many pieces in hand from these, and makes random setups of its own.
const STARTS: &[&str] = &[
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    // Handicaps: lance, bishop, rook, rook+lance, two, four, six, eight and ten pieces.
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    // The perft positions: drops galore, the 593-move maximum, pawn-drop-mate traps.
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "R7g/2K1S1SSk/9/5B3/9/9/9/9/1L1L1L3 b RBGSNLP2g3n17p 3",
    "7lk/9/8S/9/9/9/9/7L1/8K b P 1",
    "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1",
    // Bare kings with everything in hand.
    "4k4/9/9/9/9/9/9/9/4K4 b RBG2S2N2L9Pr2g2s2n2l9p 1",
    "4k4/9/9/9/9/9/9/9/4K4 w R2G2S2NL9Prb2g2n3l9p 1",
];

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// A useless non-promotion: one the search-mode generators leave out.
fn useless_non_promotion(pos: &Position, m: Move, legal: &HashSet<String>) -> bool {
    if m.is_drop() || m.is_promotion() || !legal.contains(&format!("{m}+")) {
        return false;
    }
    let us = pos.side_to_move();
    match pos.piece_on(m.from()).kind() {
        PieceType::Pawn | PieceType::Bishop | PieceType::Rook => true,
        PieceType::Lance => m.to().relative_rank(us) == 1,
        _ => false,
    }
}

fn sorted_text(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
    let mut v: Vec<String> = moves.into_iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn split_moves(field: &str) -> Vec<&str> {
    field.split(' ').filter(|s| !s.is_empty()).collect()
}

/// What differs between two sorted lists, for failure messages.
fn diff(kirin: &[String], cshogi: &[&str]) -> String {
    let k: HashSet<&str> = kirin.iter().map(String::as_str).collect();
    let c: HashSet<&str> = cshogi.iter().copied().collect();
    let mut missing: Vec<&str> = c.difference(&k).copied().collect();
    let mut extra: Vec<&str> = k.difference(&c).copied().collect();
    missing.sort();
    extra.sort();
    format!("kirin lacks {missing:?}, kirin has extra {extra:?}")
}

#[derive(Default)]
struct Stats {
    positions: usize,
    in_check: usize,
    mated: usize,
    moves: usize,
    checking_moves: usize,
    useless_non_promotions: usize,
    max_moves: usize,
    max_hand: u32,
    pawn_drop_mates: usize,
}

/// Whether the side to move, not in check, has a pawn drop in front of the enemy king that is
/// otherwise possible (empty square, no own pawn on the file) yet not legal: a pawn-drop mate.
fn pawn_drop_mate_refused(pos: &Position, legal: &HashSet<String>) -> bool {
    let us = pos.side_to_move();
    if pos.in_check() || !pos.hand(us).has(PieceType::Pawn) {
        return false;
    }
    let Some(ksq) = pos.king_square(!us) else {
        return false;
    };
    let Some(to) = ksq.offset(0, if us == Color::Black { 1 } else { -1 }) else {
        return false;
    };
    let own_pawn_on_file = (0..9).any(|r| {
        pos.piece_on(Square::from_file_rank(to.file(), r)) == Piece::new(us, PieceType::Pawn)
    });
    pos.piece_on(to).is_none() && !own_pawn_on_file && !legal.contains(&format!("P*{to}"))
}

// What a disagreement is about, to group the failure report.
const FORMAT: &str = "malformed oracle output";
const SFEN: &str = "SFEN reading or writing";
const DUPLICATES: &str = "duplicate legal moves";
const LEGAL: &str = "legal move sets";
const SEARCH: &str = "search-mode move sets";
const IN_CHECK: &str = "in_check()";
const MATED: &str = "is_mated()";
const GIVES_CHECK: &str = "gives_check()";
const CHECKS: &str = "movegen::checks";
const PANIC: &str = "panics";

/// Compares one oracle line; returns each disagreement with its kind.
fn compare(line: &str, stats: &mut Stats) -> Vec<(&'static str, String)> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [sfen, moves, check, mate, checking] = fields[..] else {
        return vec![(FORMAT, format!("malformed oracle line {line:?}"))];
    };
    let pos = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => {
            return vec![(
                SFEN,
                format!("{sfen}: kirin rejects cshogi's position: {e}"),
            )];
        }
    };
    let mut errors = Vec::new();
    if pos.to_sfen() != sfen {
        errors.push((
            SFEN,
            format!("{sfen}: kirin writes it as {}", pos.to_sfen()),
        ));
    }

    let cs_moves = split_moves(moves);
    let cs_set: HashSet<String> = cs_moves.iter().map(|s| s.to_string()).collect();
    let legal = legal_moves(&pos);
    let legal_text = sorted_text(legal.iter().copied());
    if legal_text.windows(2).any(|w| w[0] == w[1]) {
        errors.push((
            DUPLICATES,
            format!("{sfen}: legal_moves has duplicates: {legal_text:?}"),
        ));
    }
    if legal_text != cs_moves {
        errors.push((
            LEGAL,
            format!(
                "{sfen}: legal moves differ: {}",
                diff(&legal_text, &cs_moves)
            ),
        ));
    }

    let mut search = MoveList::new();
    search_moves(&pos, &mut search);
    let search_text = sorted_text(search.iter().copied());
    let mut expected_search = Vec::new();
    for &m in &legal {
        if useless_non_promotion(&pos, m, &cs_set) {
            stats.useless_non_promotions += 1;
        } else {
            expected_search.push(m.to_string());
        }
    }
    expected_search.sort();
    if search_text != expected_search {
        let expected: Vec<&str> = expected_search.iter().map(String::as_str).collect();
        errors.push((
            SEARCH,
            format!(
                "{sfen}: search_moves is not the legal list less useless non-promotions: {}",
                diff(&search_text, &expected)
            ),
        ));
    }

    let cs_check = check == "1";
    let cs_mate = mate == "1";
    if pos.in_check() != cs_check {
        errors.push((
            IN_CHECK,
            format!(
                "{sfen}: in_check() is {}, cshogi says {cs_check}",
                pos.in_check()
            ),
        ));
    }
    if pos.is_mated() != cs_mate {
        errors.push((
            MATED,
            format!(
                "{sfen}: is_mated() is {}, cshogi says {cs_mate}",
                pos.is_mated()
            ),
        ));
    }

    let cs_checking = split_moves(checking);
    // `gives_check`, and the search's test from check squares found once for the position.
    let info = pos.check_info();
    let tests: [(&str, &dyn Fn(Move) -> bool); 2] = [
        ("gives_check", &|m| pos.gives_check(m)),
        ("gives_check_with", &|m| pos.gives_check_with(&info, m)),
    ];
    for (name, gives_check) in tests {
        let gives = sorted_text(legal.iter().copied().filter(|&m| gives_check(m)));
        if gives != cs_checking {
            errors.push((
                GIVES_CHECK,
                format!(
                    "{sfen}: moves with {name} differ from cshogi's check_moves: {}",
                    diff(&gives, &cs_checking)
                ),
            ));
        }
    }
    let mut check_list = MoveList::new();
    checks(&pos, &mut check_list);
    let check_text = sorted_text(check_list);
    if check_text != cs_checking {
        errors.push((
            CHECKS,
            format!(
                "{sfen}: movegen::checks differs from cshogi's check_moves: {}",
                diff(&check_text, &cs_checking)
            ),
        ));
    }

    stats.pawn_drop_mates += usize::from(pawn_drop_mate_refused(&pos, &cs_set));
    stats.positions += 1;
    stats.in_check += usize::from(cs_check);
    stats.mated += usize::from(cs_mate);
    stats.moves += cs_moves.len();
    stats.checking_moves += cs_checking.len();
    stats.max_moves = stats.max_moves.max(cs_moves.len());
    let hand = pos.hand(pos.side_to_move()).total();
    stats.max_hand = stats.max_hand.max(hand);
    errors
}

#[test]
fn move_generation_agrees_with_cshogi() {
    let seed: u64 = env_number("KIRIN_DIFF_SEED", DEFAULT_SEED);
    let wanted: usize = env_number("KIRIN_DIFF_POSITIONS", DEFAULT_POSITIONS);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cshogi_oracle.py");
    let interpreter = python();
    println!("differential seed {seed} ({wanted} positions)");
    let rerun = format!(
        "rerun with KIRIN_DIFF_SEED={seed} KIRIN_DIFF_POSITIONS={wanted} \
         cargo test --profile fast --test differential"
    );

    let mut child = Command::new(&interpreter)
        .arg(&script)
        .arg("--seed")
        .arg(seed.to_string())
        .arg("--positions")
        .arg(wanted.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} (the differential test needs Python with cshogi: \
                 python3 -m venv .venv && .venv/bin/pip install cshogi): {e}",
                interpreter.display()
            )
        });
    {
        let mut stdin = child.stdin.take().expect("piped stdin");
        for s in STARTS {
            writeln!(stdin, "{s}").expect("write start positions to the oracle");
        }
    }
    let mut stderr = child.stderr.take().expect("piped stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });

    let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped stdout"));
    let mut stats = Stats::default();
    let mut header = String::new();
    // Kind -> (positions where it occurred, the first few descriptions).
    let mut failures: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    let mut failing_positions = 0usize;
    for line in stdout.lines() {
        let line = line.expect("read oracle output");
        if let Some(h) = line.strip_prefix('#') {
            header = h.trim().to_string();
            continue;
        }
        // A panic inside kirin is reported like any other disagreement, with the seed.
        let errors = std::panic::catch_unwind(AssertUnwindSafe(|| compare(&line, &mut stats)))
            .unwrap_or_else(|_| {
                let sfen = line.split('\t').next().unwrap_or_default();
                vec![(PANIC, format!("{sfen}: kirin panicked"))]
            });
        if !errors.is_empty() {
            failing_positions += 1;
            for (kind, e) in errors {
                let entry = failures.entry(kind).or_default();
                entry.0 += 1;
                if entry.1.len() < EXAMPLES_PER_KIND {
                    entry.1.push(e);
                }
            }
        }
    }
    let status = child.wait().expect("wait for the oracle");
    let oracle_log = stderr_reader.join().unwrap_or_default();
    assert!(
        status.code() != Some(3),
        "{} cannot import cshogi; the differential test needs it: \
         python3 -m venv .venv && .venv/bin/pip install cshogi\n{oracle_log}",
        interpreter.display()
    );
    assert!(
        status.success(),
        "seed {seed}: the cshogi oracle failed ({status}) under {}:\n{oracle_log}",
        interpreter.display()
    );

    println!(
        "{header}: {} positions, {} in check, {} without a legal move, {:.1} moves per position \
         (max {}), {} checking moves, {} useless non-promotions, max {} pieces in the mover's hand, \
         {} positions where a pawn drop would mate",
        stats.positions,
        stats.in_check,
        stats.mated,
        stats.moves as f64 / stats.positions.max(1) as f64,
        stats.max_moves,
        stats.checking_moves,
        stats.useless_non_promotions,
        stats.max_hand,
        stats.pawn_drop_mates
    );
    if !failures.is_empty() {
        let mut report = String::new();
        for (kind, (count, examples)) in &failures {
            report.push_str(&format!("\n{kind}: {count} positions, e.g.\n"));
            for e in examples {
                report.push_str(&format!("  {e}\n"));
            }
        }
        panic!(
            "seed {seed}: {failing_positions} of {} positions disagree with cshogi:{report}{rerun}",
            stats.positions
        );
    }
    assert_eq!(
        stats.positions, wanted,
        "seed {seed}: the oracle produced too few positions; {oracle_log}"
    );
    // The comparison is only as good as what the playouts reach: make sure they reach checks,
    // mates, hands full of pieces and non-promotion choices (on runs big enough to expect them).
    if wanted < 50_000 {
        return;
    }
    assert!(
        stats.in_check * 50 >= stats.positions,
        "seed {seed}: few positions in check"
    );
    assert!(
        stats.mated >= 10,
        "seed {seed}: only {} mated positions",
        stats.mated
    );
    assert!(stats.useless_non_promotions > 0 && stats.max_hand >= 15);
    assert!(
        stats.pawn_drop_mates > 0,
        "seed {seed}: no position where a pawn drop would mate"
    );
}
