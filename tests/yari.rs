//! Yari shogi rules (`kirin::yari`): perft against the `yari` rows of `tests/data/perft.tsv`
//! (copied here as a table), legal move sets and checks against pyffish (Fairy-Stockfish's
//! rules, run by `tests/oracle/yari_oracle.py`), and the position's own invariants.
//!
//! Deep perft rows are `#[ignore]`d; run them with
//! `cargo test --profile fast --test yari -- --ignored`.

mod common;
use common::Rng;
use kirin::shogi::{Color, Kind, Move, Repetition, Square};
use kirin::yari::{self, Piece, PieceType, Position, START_SFEN, divide, perft};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const MIXED: &str = "rn1k1br/7/p1pp+Bp1/1p3P1/7/2P1+p2/PP1P2P/1+R5/R2K1N1 b BNPbnp 1";
const DROPS: &str = "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1";

/// The `yari` rows of `perft.tsv`: name, SFEN, depth, leaf count.
const TABLE: &[(&str, &str, u32, u64)] = &[
    ("startpos", START_SFEN, 1, 20),
    ("startpos", START_SFEN, 2, 400),
    ("startpos", START_SFEN, 3, 7_960),
    ("startpos", START_SFEN, 4, 158_404),
    ("startpos", START_SFEN, 5, 3_174_917),
    ("startpos", START_SFEN, 6, 63_607_658),
    ("startpos", START_SFEN, 7, 1_294_577_151),
    ("mixed", MIXED, 1, 119),
    ("mixed", MIXED, 2, 12_573),
    ("mixed", MIXED, 3, 1_101_286),
    ("mixed", MIXED, 4, 90_467_536),
    ("drops", DROPS, 1, 124),
    ("drops", DROPS, 2, 17_944),
    ("drops", DROPS, 3, 1_324_635),
    ("drops", DROPS, 4, 154_739_357),
];

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("SFEN {sfen:?} rejected: {e}"))
}

fn sq(text: &str) -> Square {
    Square::parse(text.as_bytes()).unwrap_or_else(|| panic!("bad square {text}"))
}

fn check_row(name: &str, depth: u32) {
    let &(_, sfen, _, expected) = TABLE
        .iter()
        .find(|r| r.0 == name && r.2 == depth)
        .unwrap_or_else(|| panic!("no row {name} {depth}"));
    let mut p = pos(sfen);
    let before = p.clone();
    assert_eq!(perft(&mut p, depth), expected, "{name} depth {depth}");
    assert_eq!(p, before, "perft must leave the position unchanged");
    assert_eq!(p.to_sfen(), sfen);
}

#[test]
fn the_table_is_the_reference_one() {
    // The copy above must match the reference table the other games' tests read.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("{} is needed to check the table", path.display());
    };
    let rows: Vec<(String, String, u32, u64)> = text
        .lines()
        .filter(|l| l.starts_with("yari\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[1].to_string(),
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), TABLE.len());
    for (r, t) in rows.iter().zip(TABLE) {
        assert_eq!((r.0.as_str(), r.1.as_str(), r.2, r.3), (t.0, t.1, t.2, t.3));
    }
}

#[test]
fn perft_startpos_1_to_5() {
    for d in 1..=5 {
        check_row("startpos", d);
    }
}

#[test]
fn perft_startpos_6() {
    check_row("startpos", 6);
}

#[test]
#[ignore = "about 30 s in the fast profile"]
fn perft_startpos_7() {
    check_row("startpos", 7);
}

#[test]
fn perft_mixed_1_to_3() {
    for d in 1..=3 {
        check_row("mixed", d);
    }
}

#[test]
fn perft_mixed_4() {
    check_row("mixed", 4);
}

#[test]
fn perft_drops_1_to_3() {
    for d in 1..=3 {
        check_row("drops", d);
    }
}

#[test]
fn perft_drops_4() {
    check_row("drops", 4);
}

#[test]
fn divide_sums_to_perft() {
    let mut p = pos(MIXED);
    let parts = divide(&mut p, 2);
    assert_eq!(parts.len(), 119);
    assert_eq!(parts.iter().map(|&(_, n)| n).sum::<u64>(), 12_573);
}

/// perft(5) from the start in whatever profile runs it; prints the time and speed.
/// `cargo test --release --test yari -- --ignored --nocapture perft_speed`
#[test]
#[ignore = "a measurement, not a check"]
fn perft_speed() {
    let mut p = Position::startpos();
    let t = std::time::Instant::now();
    let n = perft(&mut p, 5);
    let s = t.elapsed().as_secs_f64();
    assert_eq!(n, 3_174_917);
    eprintln!(
        "yari perft 5 from the start: {n} leaves in {:.3} s, {:.1} M leaves/s",
        s,
        n as f64 / s / 1e6
    );
}

// ---- pyffish -------------------------------------------------------------------------------

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

fn oracle(seed: u64, positions: usize) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/yari_oracle.py");
    let out = Command::new("timeout")
        .arg("900")
        .arg(python())
        .arg(&script)
        .arg(seed.to_string())
        .arg(positions.to_string())
        .output()
        .expect("run the yari oracle under timeout");
    assert!(
        out.status.success(),
        "the yari oracle failed ({}); pyffish is needed: bash tuning/setup.sh\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("oracle output is UTF-8")
}

/// Our legal moves, as sorted USI text.
fn move_set(p: &Position) -> BTreeSet<String> {
    p.legal_moves().iter().map(|m| m.to_string()).collect()
}

/// Legal move sets, in-check and gives-check compared with pyffish on random games from the
/// start and from random setups: at least 10,000 positions.
#[test]
fn legal_moves_and_checks_agree_with_pyffish() {
    let text = oracle(20261124, 10_000);
    let mut p: Option<Position> = None;
    let mut expect_check: Option<bool> = None;
    let (mut positions, mut games, mut checks, mut drops, mut promotions) = (0, 0, 0, 0, 0);
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "game" => {
                assert_eq!(f.len(), 3, "oracle line {line:?}");
                let start = pos(f[1]);
                expect_check = Some(f[2] == "1");
                p = Some(start);
                games += 1;
            }
            "pos" => {
                assert_eq!(f.len(), 4, "oracle line {line:?}");
                let p = p.as_mut().expect("a game line first");
                let sfen = p.to_sfen();
                let theirs: BTreeSet<String> =
                    f[1].split_whitespace().map(str::to_string).collect();
                let ours = move_set(p);
                assert_eq!(
                    ours,
                    theirs,
                    "{sfen}: only ours {:?}, only pyffish's {:?}",
                    ours.difference(&theirs).collect::<Vec<_>>(),
                    theirs.difference(&ours).collect::<Vec<_>>()
                );
                if let Some(c) = expect_check.take() {
                    assert_eq!(p.in_check(), c, "{sfen}: in check");
                }
                checks += p.in_check() as usize;
                drops += ours.iter().filter(|m| m.contains('*')).count().min(1);
                promotions += ours.iter().filter(|m| m.ends_with('+')).count().min(1);
                positions += 1;
                if f[2] != "-" {
                    let m = p.parse_move(f[2]).unwrap_or_else(|e| panic!("{sfen}: {e}"));
                    let gives = f[3] == "1";
                    assert_eq!(p.gives_check(m), gives, "{sfen}: {m} gives check");
                    p.do_move(m);
                    expect_check = Some(gives);
                }
            }
            _ => panic!("unexpected oracle line {line:?}"),
        }
    }
    eprintln!(
        "{positions} positions in {games} games: {checks} in check, {drops} with drops, \
         {promotions} with promotions"
    );
    assert!(positions >= 10_000 && games >= 10);
    // The sample must exercise what differs from standard shogi, not only quiet openings.
    assert!(checks >= 200 && drops >= 2_000 && promotions >= 1_000);
}

// ---- invariants ----------------------------------------------------------------------------

/// Positions along random games from the start and the table's positions.
fn sample_positions(games: usize, plies: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for g in 0..games {
        let mut p = pos([START_SFEN, MIXED, DROPS][g % 3]);
        for _ in 0..plies {
            out.push(p.clone());
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.do_move(moves[rng.below(moves.len())]);
        }
    }
    out
}

#[test]
fn keys_sfen_and_undo_stay_consistent_along_random_games() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for g in 0..60 {
        let mut p = pos([START_SFEN, MIXED, DROPS][g % 3]);
        let mut trail = vec![(p.clone(), p.to_sfen(), p.key())];
        for _ in 0..150 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            if rng.below(8) == 0 && !p.in_check() {
                p.do_null_move();
                assert_eq!(p.keys(), p.keys_from_scratch(), "null move keys");
                p.undo_null_move();
            }
            p.do_move(m);
            assert_eq!(p.keys(), p.keys_from_scratch(), "keys after {m}");
            let sfen = p.to_sfen();
            let again = pos(&sfen);
            assert_eq!(again.to_sfen(), sfen, "SFEN round trip");
            assert_eq!(again.key(), p.key(), "{sfen}: key after a round trip");
            assert_eq!(again.in_check(), p.in_check(), "{sfen}: checkers");
            assert_eq!(p.last_move(), m);
            trail.push((p.clone(), sfen, p.key()));
        }
        // Undo everything, checking every position on the way back.
        trail.pop();
        while let Some((before, sfen, key)) = trail.pop() {
            p.undo_move();
            assert_eq!(p, before);
            assert_eq!(p.to_sfen(), sfen);
            assert_eq!(p.key(), key);
            assert_eq!(p.moves_played(), trail.len());
        }
    }
}

#[test]
fn move_classes_partition_the_legal_moves() {
    for p in sample_positions(30, 120, 77) {
        let all: BTreeSet<Move> = p.legal_moves().into_iter().collect();
        let mut tactical = kirin::shogi::MoveList::new();
        let mut quiet = kirin::shogi::MoveList::new();
        p.tactical_moves(&mut tactical);
        p.quiet_moves(&mut quiet);
        let t: BTreeSet<Move> = tactical.iter().copied().collect();
        let q: BTreeSet<Move> = quiet.iter().copied().collect();
        assert_eq!(t.len(), tactical.len(), "no duplicates");
        assert!(t.is_disjoint(&q));
        assert_eq!(t.union(&q).copied().collect::<BTreeSet<_>>(), all);
        for &m in &t {
            let capture = !m.is_drop() && p.piece_on(m.to()).is_some();
            assert!(capture || m.is_promotion(), "{m} is tactical");
        }
        for &m in &q {
            assert!(!m.is_promotion() && (m.is_drop() || p.piece_on(m.to()).is_none()));
        }
        if p.in_check() {
            let mut ev = kirin::shogi::MoveList::new();
            p.evasions(&mut ev);
            assert_eq!(ev.iter().copied().collect::<BTreeSet<_>>(), all);
        }
    }
}

#[test]
fn is_legal_move_agrees_with_legal_moves_for_every_u16() {
    let mut chosen = vec![pos(START_SFEN), pos(MIXED), pos(DROPS)];
    let samples = sample_positions(12, 90, 4242);
    chosen.extend(samples.iter().filter(|p| p.in_check()).take(4).cloned());
    chosen.extend(samples.iter().step_by(97).take(6).cloned());
    assert!(chosen.iter().any(|p| p.in_check()));
    for p in &chosen {
        let legal: BTreeSet<u16> = p.legal_moves().iter().map(|m| m.raw()).collect();
        for raw in 0..=u16::MAX {
            assert_eq!(
                p.is_legal_move(Move::from_raw(raw)),
                legal.contains(&raw),
                "{}: raw move {raw:#06x} ({})",
                p.to_sfen(),
                Move::from_raw(raw)
            );
        }
    }
}

#[test]
fn gives_check_matches_the_position_after_the_move() {
    for mut p in sample_positions(20, 100, 99) {
        for m in p.legal_moves() {
            let gives = p.gives_check(m);
            p.do_move_with_check(m, gives);
            let checked = p
                .king_square(p.side_to_move())
                .is_some_and(|k| p.is_attacked(!p.side_to_move(), k, p.occupied()));
            assert_eq!(checked, gives, "{m}");
            p.undo_move();
        }
    }
}

// ---- text input ----------------------------------------------------------------------------

#[test]
fn sfen_errors_are_one_line() {
    let bad = [
        "",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7 b - 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNN b - 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR x - 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b G 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b P 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - x",
        "rnnk+kbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1",
        "P2k3/7/7/7/7/7/7/7/3K3 b - 1",
        "B2k3/7/7/7/7/7/7/7/3K3 b - 1",
        "N2k3/7/7/7/7/7/7/7/3K3 b - 1",
        "3k3/7/7/7/7/7/7/7/3Kp2 b - 1",
        "3k3/7/3P3/7/3P3/7/7/7/3K3 b - 1",
        "3k3/3R3/7/7/7/7/7/7/3K3 b - 1",
        "3kk2/7/7/7/7/7/7/7/3K3 b - 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b 99999999999P 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b 15P 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 99999999999999",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b 2 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b K 1",
        "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNN\u{e9} b - 1",
        "+/+/+/+/+/+/+/+/+ b - 1",
        "3k3/7/7/7/7/7/7/7/3K3+ b - 1",
        "3k3/7/7/7/7/7/7/7/3K3 b RRRRR 1",
    ];
    for s in bad {
        let e = Position::from_sfen(s).expect_err(s).to_string();
        assert!(!e.is_empty() && !e.contains('\n'), "{s}: {e:?}");
    }
    // A yari knight may stand on its second-last rank (it can still slide one square), a yari
    // rook on its last; promoted pawns do not count for nifu.
    pos("3k3/N6/7/7/7/7/7/7/3K3 b - 1");
    pos("R6/3k3/7/7/7/7/7/7/3K3 b - 1");
    pos("3k3/7/3+P3/7/3P3/7/7/7/3K3 b - 1");
}

#[test]
fn move_text_errors() {
    let p = Position::startpos();
    assert_eq!(
        p.parse_move("7g7f").map(|m| m.to_string()),
        Ok("7g7f".into())
    );
    for bad in [
        "", "7g7", "9g9f", "8i8h", "P*8e", "G*5e", "L*5e", "7g7e", "7g7f+", "7g7f++", "k*5e",
    ] {
        let e = p.parse_move(bad).expect_err(bad);
        assert!(!e.is_empty() && !e.contains('\n'), "{bad}: {e:?}");
    }
    assert!(p.parse_move("9g9f").unwrap_err().contains("7-file"));
}

#[test]
fn malformed_input_never_panics() {
    let mut rng = Rng(0xfeed_beef_1234_5678);
    let seeds = [START_SFEN, MIXED, DROPS];
    let alphabet = b"kKrRbBnNpPgGsSlL+/0123456789 -wb*";
    let p = Position::startpos();
    for i in 0..20_000 {
        let mut s: Vec<u8> = seeds[i % 3].as_bytes().to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(s.len() + 1);
            match rng.below(3) {
                0 if at < s.len() => {
                    s.remove(at);
                }
                1 if at < s.len() => s[at] = alphabet[rng.below(alphabet.len())],
                _ => s.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        let text = String::from_utf8_lossy(&s);
        if let Ok(q) = Position::from_sfen(&text) {
            // Whatever parses must be a position the generator can work with.
            let mut q2 = q.clone();
            let n = perft(&mut q2, 2);
            assert_eq!(pos(&q.to_sfen()).to_sfen(), q.to_sfen());
            assert!(n < 1_000_000);
        }
        let m: String = (0..rng.below(7))
            .map(|_| char::from(b"123456789abcdefghijPNBRLSGK*+x"[rng.below(30)]))
            .collect();
        let _ = p.parse_move(&m);
    }
}

// ---- rules ---------------------------------------------------------------------------------

fn play(p: &mut Position, moves: &str) {
    for m in moves.split_whitespace() {
        let m = p.parse_move(m).unwrap_or_else(|e| panic!("{e}"));
        p.do_move(m);
    }
}

#[test]
fn promotion_choices() {
    // A pawn reaching the last rank must promote; a yari knight reaching the second-last may stay.
    let p = pos("6k/3P3/N6/7/7/7/7/7/3K3 b - 1");
    let moves = move_set(&p);
    assert!(moves.contains("4b4a+") && !moves.contains("4b4a"));
    assert!(moves.contains("7c7b") && moves.contains("7c7b+"));
    // Leaving the zone may promote too; a yari rook on the last rank need not.
    let p = pos("R6/7/6k/7/7/7/7/7/3K3 b - 1");
    let moves = move_set(&p);
    assert!(moves.contains("7a6a") && moves.contains("7a6a+"));
    let p = pos("k6/7/3+B3/7/7/7/7/7/3K3 b - 1");
    assert!(
        move_set(&p).contains("4c4h"),
        "a yari gold slides straight back"
    );
}

#[test]
fn drops_follow_nifu_and_dead_squares_but_pawn_drop_mate_is_legal() {
    // Black to drop a pawn on 1b: the king on 1a has no escape (the yari silver on 2c guards 2b
    // and the pawn, the yari knight on 3c leaps to 2a). Legal in yari shogi.
    let p = pos("6k/7/4N+P1/7/7/7/7/7/3K3 b P 1");
    let m = p
        .parse_move("P*1b")
        .expect("pawn-drop mate is legal in yari");
    let mut q = p.clone();
    q.do_move(m);
    assert!(q.in_check() && q.legal_moves().is_empty(), "it is mate");
    let moves = move_set(&p);
    assert!(
        !moves
            .iter()
            .any(|m| m.starts_with("P*") && m.ends_with('a'))
    );
    // Nifu: no pawn drop on a file with an unpromoted pawn of one's own.
    let p = pos("3k3/7/7/7/7/3P3/7/7/3K3 b P 1");
    assert!(!move_set(&p).iter().any(|m| m.starts_with("P*4")));
    let p = pos("3k3/7/7/7/7/3+P3/7/7/3K3 b P 1");
    assert!(move_set(&p).contains("P*4e"));
    // Knights and bishops are not dropped on the last rank; rooks may be.
    let p = pos("3k3/7/7/7/7/7/7/7/3K3 b RBN 1");
    let moves = move_set(&p);
    assert!(moves.contains("R*1a") && !moves.contains("B*1a") && !moves.contains("N*1a"));
    assert!(moves.contains("N*1b"));
}

#[test]
fn repetition_and_perpetual_check() {
    let mut p = pos("3k3/7/7/7/7/7/7/7/3K3 b - 1");
    play(&mut p, "4i4h 4a4b 4h4i");
    assert_eq!(p.repetition(16), Repetition::None);
    play(&mut p, "4b4a");
    assert_eq!(p.repetition(16), Repetition::Draw);
    assert_eq!(p.repetition(2), Repetition::None);
    // Black's rook checks with every move of the cycle: perpetual check, Black loses.
    let mut p = pos("6k/7/7/7/7/7/7/7/K4+R1 b - 1");
    play(&mut p, "2i1i 1a2a 1i2i 2a1a");
    assert_eq!(p.repetition(16), Repetition::Loss);
    play(&mut p, "2i1i");
    assert_eq!(p.repetition(16), Repetition::Win);
    // A null move cuts the history repetition may look at.
    let mut p = pos("3k3/7/7/7/7/7/7/7/3K3 b - 1");
    play(&mut p, "4i4h 4a4b 4h4i");
    p.do_null_move();
    p.undo_null_move();
    play(&mut p, "4b4a");
    assert_eq!(p.repetition(16), Repetition::Draw);
}

#[test]
fn impasse_points_and_entered_kings() {
    let start = Position::startpos();
    // 7 pawns, 2 knights, 2 bishops (10) and 2 rooks (10): 29 each.
    assert_eq!(start.impasse_points(Color::Black), 29);
    assert_eq!(start.impasse_points(Color::White), 29);
    assert!(!start.both_kings_entered());
    // Promoted bishop and rook still count 5; hands count.
    let p = pos("+R+BK4/+N6/+P6/7/3k3/7/7/7/7 b RBNPb 1");
    assert_eq!(
        p.impasse_points(Color::Black),
        5 + 5 + 1 + 1 + 5 + 5 + 1 + 1
    );
    assert_eq!(p.impasse_points(Color::White), 5);
    assert!(!p.both_kings_entered());
    let p = pos("2K4/7/7/7/7/7/7/3k3/7 b - 1");
    assert!(p.both_kings_entered());
}

#[test]
fn piece_and_kind_numbers() {
    use kirin::shogi::PieceType as Std;
    let pairs = [
        (PieceType::Pawn, Std::Pawn),
        (PieceType::YariKnight, Std::Knight),
        (PieceType::YariBishop, Std::Bishop),
        (PieceType::YariRook, Std::Rook),
        (PieceType::King, Std::King),
    ];
    for (y, s) in pairs {
        assert_eq!(y as u8, s as u8);
    }
    for pt in PieceType::ALL {
        if pt.can_promote() {
            assert_eq!(pt.promote() as u8, pt as u8 | 8);
            assert_eq!(pt.promote().unpromote(), pt);
        }
        for c in Color::ALL {
            assert!(Piece::new(c, pt).index() < 32);
        }
    }
}

#[test]
fn static_exchange() {
    // Black's yari rook takes a pawn guarded by nothing: wins the pawn.
    let p = pos("3k3/7/7/7/p6/7/7/7/R2K3 b - 1");
    let m = p.parse_move("7i7e").unwrap();
    assert!(p.see_ge(m, 0) && p.see_ge(m, yari::value(PieceType::Pawn)));
    assert!(!p.see_ge(m, yari::value(PieceType::Pawn) + 1));
    // The same pawn guarded by White's yari silver on 7d (it steps forward onto 7e): rook for
    // pawn loses.
    let p = pos("3k3/7/7/+p6/p6/7/7/7/R2K3 b - 1");
    let m = p.parse_move("7i7e").unwrap();
    assert!(!p.see_ge(m, 0));
    assert!(p.see_ge(
        m,
        yari::value(PieceType::Pawn) - yari::value(PieceType::YariRook)
    ));
    // A pawn takes a guarded pawn: an even trade.
    let p = pos("3k3/7/7/+p6/p6/P6/7/7/3K3 b - 1");
    let m = p.parse_move("7f7e").unwrap();
    assert!(p.see_ge(m, 0) && !p.see_ge(m, 1));
    // Drops capture nothing: a drop onto an attacked square loses the piece.
    let p = pos("3k3/7/7/7/3p3/7/7/7/3K3 b B 1");
    let m = p.parse_move("B*4f").unwrap();
    assert!(!p.see_ge(m, 0));
    let m = p.parse_move("B*1f").unwrap();
    assert!(p.see_ge(m, 0));
    // A promotion counts its gain: the pawn to 4c promotes and nothing takes it.
    let p = pos("k6/7/7/3P3/7/7/7/7/3K3 b - 1");
    let m = p.parse_move("4d4c+").unwrap();
    assert!(p.see_ge(
        m,
        yari::value(PieceType::YariSilver) - yari::value(PieceType::Pawn)
    ));
    // The king may take last only when nothing guards the square: king takes a lone pawn.
    let p = pos("3k3/7/7/7/7/7/7/3p3/3K3 b - 1");
    let m = p.parse_move("4i4h").unwrap();
    assert!(p.see_ge(m, yari::value(PieceType::Pawn)));
    // X-ray: a yari rook behind a yari rook on the file joins the exchange.
    let p = pos("3k3/7/7/r6/p6/7/7/R6/R2K3 b - 1");
    let m = p.parse_move("7h7e").unwrap();
    // RxP, rxR, RxR: Black wins a pawn and a rook for a rook.
    assert!(p.see_ge(m, yari::value(PieceType::Pawn)));
    assert!(!p.see_ge(m, yari::value(PieceType::Pawn) + 1));
    assert_eq!(sq("7h"), m.from());
}
