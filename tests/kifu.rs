//! Game records: the readers against cshogi's readers on the real records of `tests/data/kifu`, Japanese move text
//! against cshogi's KIF and KI2 move readers on every legal move of many positions, round trips
//! of generated records through every writer and reader, and bad input.
//!
//! `tests/oracle/kifu_oracle.py` runs cshogi (an independent shogi library) under `timeout`.

mod common;

use kirin::kifu::encoding::encode_text;
use kirin::kifu::japanese::{mark, move_to_ki2, move_to_kif, parse_ki2_move, parse_kif_move};
use kirin::kifu::{
    self, Encoding, Ending, Format, Record, read_bytes, read_file, write_csa, write_jkf, write_ki2,
    write_kif, write_usi,
};
use kirin::shogi::{Color, Move, Piece, PieceType, Position, START_SFEN, Square, legal_moves};
use std::path::{Path, PathBuf};

// ---- helpers -------------------------------------------------------------------------------

/// cshogi's reading of records and move text (`tests/oracle/kifu_oracle.py`).
fn oracle(args: &[&str], input: &str) -> String {
    common::python_oracle("kifu_oracle.py", args, input)
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kifu")
}

/// A small deterministic generator (xorshift64*), so failures replay.
struct Rng(u64);

impl Rng {
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

/// A random legal move, preferring captures and drops half the time so hands fill up and
/// recaptures (`同`) and drops are common.
fn random_move(pos: &Position, rng: &mut Rng) -> Option<Move> {
    let moves = legal_moves(pos);
    if moves.is_empty() {
        return None;
    }
    if rng.chance(50) {
        let lively: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| m.is_drop() || pos.piece_on(m.to()).is_some() || m.is_promotion())
            .collect();
        if !lively.is_empty() {
            return Some(lively[rng.below(lively.len())]);
        }
    }
    Some(moves[rng.below(moves.len())])
}

const HANDICAP_SFENS: [&str; 4] = [
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// A random legal set-up: both kings and a random share of the other pieces on the board
/// (often promoted) or in hand, so several pieces of one kind often reach one square. `crowd`
/// packs the board pieces into a 5x5 box and keeps hands small, which makes three or four
/// pieces of a kind around one square (the KI2 cases that need two words) common.
fn random_setup(rng: &mut Rng, crowd: bool) -> Position {
    let pool: Vec<PieceType> = PieceType::HAND
        .iter()
        .flat_map(|&pt| std::iter::repeat_n(pt, usize::from(pt.count_in_set())))
        .collect();
    loop {
        let mut board = [Piece::NONE; 81];
        let mut hands = [[0u32; 8]; 2];
        let bk = rng.below(81);
        let mut wk = rng.below(81);
        while wk == bk {
            wk = rng.below(81);
        }
        board[bk] = Piece::new(Color::Black, PieceType::King);
        board[wk] = Piece::new(Color::White, PieceType::King);
        let density = 30 + rng.below(50) as u64;
        for &pt in &pool {
            let color = if rng.chance(50) {
                Color::Black
            } else {
                Color::White
            };
            if rng.chance(density) {
                let sq = rng.below(81);
                if board[sq].is_some() {
                    continue;
                }
                let promoted = pt.can_promote() && rng.chance(40);
                board[sq] = Piece::new(color, if promoted { pt.promote() } else { pt });
            } else if rng.chance(if crowd { 10 } else { 60 }) {
                hands[color.index()][pt as usize] += 1;
            }
        }
        let side = if rng.chance(50) {
            Color::Black
        } else {
            Color::White
        };
        let sfen = setup_sfen(&board, side, &hands);
        if let Ok(pos) = Position::from_sfen(&sfen)
            && !legal_moves(&pos).is_empty()
        {
            return pos;
        }
    }
}

/// Where cshogi's KI2 reader (1.x) misreads text that follows the rules, so a move is compared
/// through cshogi's KIF reader only and whole KI2 records holding one are left to the KIF and
/// CSA comparisons. Two cases, both checked in `ki2_disambiguation_follows_the_rules`:
/// - it counts a drop among the pieces that 右/左/直/上/引/寄 choose between (taking the drop's
///   origin for a square), so with a piece of the kind in hand it may read a board move as the
///   drop or find nothing; KI2 writes 打 on every drop a board piece could also make, so the
///   text is unambiguous;
/// - it reads 直 as "from the destination's file", so a piece in front that could step back
///   onto the square (引) makes 直 ambiguous for it, while 直 means moving straight forward.
fn cshogi_ki2_quirk(pos: &Position, m: Move, ki2: &str) -> bool {
    if m.is_drop() || ki2.ends_with('打') {
        return false;
    }
    let kind = pos.piece_on(m.from()).kind();
    let drop = ki2.contains(['右', '左', '直', '上', '引', '寄'])
        && PieceType::HAND.contains(&kind)
        && legal_moves(pos).contains(&Move::drop(kind, m.to()));
    let straight = ki2.contains('直')
        && legal_moves(pos).iter().any(|o| {
            !o.is_drop()
                && o.to() == m.to()
                && o.from() != m.from()
                && o.from().file() == m.to().file()
                && pos.piece_on(o.from()).kind() == kind
        });
    drop || straight
}

fn has_ki2_quirk(record: &Record) -> bool {
    let mut pos = record.start.clone();
    let mut prev = None;
    for &m in &record.moves {
        if cshogi_ki2_quirk(&pos, m, &move_to_ki2(&pos, m, prev)) {
            return true;
        }
        prev = Some(m.to());
        pos.do_move(m);
    }
    false
}

/// The SFEN of a board array (by square index), side and hand counts.
fn setup_sfen(board: &[Piece; 81], side: Color, hands: &[[u32; 8]; 2]) -> String {
    let mut sfen = String::new();
    for r in 0..9u8 {
        if r > 0 {
            sfen.push('/');
        }
        let mut empty = 0;
        for f in (0..9u8).rev() {
            let p = board[Square::from_file_rank(f, r).index()];
            if p.is_none() {
                empty += 1;
            } else {
                if empty > 0 {
                    sfen.push_str(&empty.to_string());
                    empty = 0;
                }
                sfen.push_str(&p.to_string());
            }
        }
        if empty > 0 {
            sfen.push_str(&empty.to_string());
        }
    }
    sfen.push_str(if side == Color::Black { " b " } else { " w " });
    let mut hand_text = String::new();
    for c in Color::ALL {
        for pt in PieceType::SFEN_HAND_ORDER {
            let n = hands[c.index()][pt as usize];
            if n > 0 {
                if n > 1 {
                    hand_text.push_str(&n.to_string());
                }
                let l = pt.letter();
                hand_text.push(if c == Color::White {
                    l.to_ascii_lowercase()
                } else {
                    l
                });
            }
        }
    }
    sfen.push_str(if hand_text.is_empty() {
        "-"
    } else {
        &hand_text
    });
    sfen.push_str(" 1");
    sfen
}

/// Two to four pieces of one kind and colour around one square, with both kings elsewhere:
/// the positions where KI2 needs 右/左/直 and 上/引/寄, often both.
fn cluster_setup(rng: &mut Rng) -> Position {
    const KINDS: [PieceType; 7] = [
        PieceType::Gold,
        PieceType::Silver,
        PieceType::ProPawn,
        PieceType::ProSilver,
        PieceType::Gold,
        PieceType::Dragon,
        PieceType::Horse,
    ];
    loop {
        let mut board = [Piece::NONE; 81];
        let color = if rng.chance(50) {
            Color::Black
        } else {
            Color::White
        };
        let kind = KINDS[rng.below(KINDS.len())];
        let target = Square::from_file_rank(1 + rng.below(7) as u8, 1 + rng.below(7) as u8);
        let most = if matches!(kind, PieceType::Dragon | PieceType::Horse) {
            2
        } else {
            4
        };
        let count = 2 + rng.below(most - 1);
        let mut placed = 0;
        while placed < count {
            let Some(sq) = target.offset(rng.below(3) as i8 - 1, rng.below(3) as i8 - 1) else {
                continue;
            };
            if sq != target && board[sq.index()].is_none() {
                board[sq.index()] = Piece::new(color, kind);
                placed += 1;
            }
        }
        for c in Color::ALL {
            let sq = rng.below(81);
            if board[sq].is_none() {
                board[sq] = Piece::new(c, PieceType::King);
            }
        }
        let mut hands = [[0u32; 8]; 2];
        if rng.chance(50) && PieceType::HAND.contains(&kind) {
            hands[color.index()][kind as usize] = 1;
        }
        if let Ok(pos) = Position::from_sfen(&setup_sfen(&board, color, &hands))
            && !legal_moves(&pos).is_empty()
        {
            return pos;
        }
    }
}

// ---- the real records against cshogi ---------------------------------------------------------

/// cshogi's ending code for one of ours, as its KIF, KI2 and CSA readers report them.
fn cshogi_ending(record: &Record) -> &'static str {
    match record.ending {
        Ending::Resign | Ending::Mate => "%TORYO",
        Ending::EnteringKing => "%KACHI",
        Ending::Interrupted => "%CHUDAN",
        Ending::IllegalMove => "%ILLEGAL_MOVE",
        Ending::Sennichite => "%SENNICHITE",
        Ending::Jishogi => "%JISHOGI",
        _ => "-",
    }
}

#[test]
fn real_records_agree_with_cshogi() {
    let mut paths = Vec::new();
    for sub in ["kif", "ki2", "csa"] {
        let dir = data_dir().join(sub);
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        paths.extend(entries);
    }
    assert_eq!(paths.len(), 12, "the kifu set has 12 records: {paths:?}");
    // cshogi's KIF reader ignores board diagrams, so the one record that starts from a diagram
    // is checked below through cshogi's move replay instead.
    let diagram = data_dir().join("kif/taichitsume.kif");
    let compared: Vec<&PathBuf> = paths.iter().filter(|p| **p != diagram).collect();
    let args: Vec<String> = std::iter::once("files".to_string())
        .chain(compared.iter().map(|p| p.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = oracle(&args, "");
    let lines: Vec<&str> = out.lines().collect();
    let mut index = 0;
    for path in &compared {
        let records = read_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (g, record) in records.iter().enumerate() {
            let name = format!("{} game {}", path.display(), g + 1);
            assert!(record.error.is_none(), "{name}: {:?}", record.error);
            let line = lines
                .get(index)
                .unwrap_or_else(|| panic!("{name}: cshogi read fewer games"));
            index += 1;
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 7, "{name}: oracle line {line:?}");
            assert_eq!(f[0], path.display().to_string());
            assert_eq!(record.start_sfen(), f[1], "{name}: start");
            assert_eq!(record.moves.len().to_string(), f[2], "{name}: move count");
            assert_eq!(
                record.final_position().to_sfen(),
                f[3],
                "{name}: final position"
            );
            assert_eq!(record.usi_moves().join(" "), f[6], "{name}: moves");
            assert_eq!(
                cshogi_ending(record),
                f[4],
                "{name}: ending {:?}",
                record.ending
            );
            let winner = match f[5] {
                "1" => Some(Color::Black),
                "2" => Some(Color::White),
                _ => None,
            };
            assert_eq!(record.winner, winner, "{name}: winner");
        }
    }
    assert_eq!(index, lines.len(), "cshogi read more games than kirin");

    // The seven-move mate problem: start from the diagram (read by hand from the file), every
    // move legal for cshogi, and the last position checkmate.
    let problem = &read_file(&diagram).expect("the mate problem reads")[0];
    assert_eq!(
        problem.start_sfen(),
        "6+Pnl/6Sk1/6sp1/9/8P/9/9/9/9 b GS2r2b3gs3n3l15p 1"
    );
    assert_eq!(problem.moves.len(), 7);
    assert_eq!(
        (problem.ending, problem.winner),
        (Ending::Mate, Some(Color::Black))
    );
    let replay = oracle(
        &["replay"],
        &format!(
            "{}\t{}\n",
            problem.start_sfen(),
            problem.usi_moves().join(" ")
        ),
    );
    assert_eq!(
        replay.trim(),
        format!("{}\t1", problem.final_position().to_sfen()),
        "cshogi replays the problem to the same mate"
    );

    // Facts the records state in words, beyond what cshogi reports.
    let one = |rel: &str| read_file(data_dir().join(rel)).expect(rel).remove(0);
    let kyoochi = one("kif/20081220kyoochi.kif");
    assert_eq!(kyoochi.header("手合割"), Some("香落ち"));
    assert_eq!(kyoochi.black.as_deref(), Some("糸谷哲郎"));
    assert_eq!(kyoochi.white.as_deref(), Some("深浦康市"));
    let chudan = one("kif/chudan.kif");
    assert_eq!(chudan.times, vec![Some(2), Some(5), Some(6)]);
    let illegal = one("kif/illegal.kif");
    assert_eq!(
        (illegal.ending, illegal.winner),
        (Ending::IllegalMove, Some(Color::White))
    );
    let kachi = one("csa/floodgate-300-5F-kachi.csa");
    assert_eq!(
        (kachi.ending, kachi.winner),
        (Ending::EnteringKing, Some(Color::Black))
    );
    assert_eq!(
        kachi.header("EVENT").map(|e| e.contains("aobazero")),
        Some(true)
    );
    assert_eq!(kachi.times[0], Some(10));
    assert!(
        kachi.comments[1]
            .iter()
            .any(|c| c.starts_with("** 130 7g7f"))
    );
    let oui = one("kif/oui201407080101.kif");
    assert!(oui.comments[0].len() >= 12 && oui.comments[0][0] == "comment comment");
}

// ---- Japanese move text ----------------------------------------------------------------------

#[derive(Default, Debug)]
struct Coverage {
    moves: usize,
    drops: usize,
    promotions: usize,
    declined: usize,
    same: usize,
    ki2_place: usize,
    ki2_motion: usize,
    ki2_both: usize,
    ki2_drop_word: usize,
    cshogi_quirk: usize,
}

/// Every legal move of `pos` written in KIF and KI2, read back by kirin, and queued for cshogi.
fn check_all_moves(
    start: &Position,
    played: &[Move],
    lines: &mut String,
    expected: &mut Vec<(String, bool)>,
    cov: &mut Coverage,
) {
    let mut pos = start.clone();
    for &m in played {
        pos.do_move(m);
    }
    let prev = played.last().map(|m| m.to());
    let played_text: Vec<String> = played.iter().map(|m| m.to_string()).collect();
    for m in legal_moves(&pos) {
        let kif = move_to_kif(&pos, m, prev);
        let ki2 = format!("{}{}", mark(pos.side_to_move()), move_to_ki2(&pos, m, prev));
        let (back, rest) = parse_kif_move(&pos, &kif, prev).unwrap_or_else(|e| {
            panic!(
                "{}: kirin cannot read its own '{kif}' for {m}: {e}",
                pos.to_sfen()
            )
        });
        assert_eq!((back, rest), (m, ""), "{}: KIF '{kif}'", pos.to_sfen());
        let (back, rest) = parse_ki2_move(&pos, &ki2, prev).unwrap_or_else(|e| {
            panic!(
                "{}: kirin cannot read its own '{ki2}' for {m}: {e}",
                pos.to_sfen()
            )
        });
        assert_eq!((back, rest), (m, ""), "{}: KI2 '{ki2}'", pos.to_sfen());
        cov.moves += 1;
        cov.drops += usize::from(m.is_drop());
        cov.promotions += usize::from(m.is_promotion());
        // A declined promotion: `不成` in KI2 only. KIF names the origin, and ShogiHome's reader
        // stops at a KIF move with `不成`; kirin still reads that form from other writers.
        let declined = ki2.ends_with("不成");
        assert!(!kif.contains("不成"), "{}: KIF '{kif}'", pos.to_sfen());
        if declined {
            let other = kif.replacen('(', "不成(", 1);
            let back = parse_kif_move(&pos, &other, prev).map(|(b, _)| b);
            assert_eq!(back, Ok(m), "{}: KIF '{other}'", pos.to_sfen());
        }
        cov.declined += usize::from(declined);
        cov.same += usize::from(kif.starts_with('同'));
        let place = ki2.contains(['右', '左', '直']);
        let motion = ki2.contains(['上', '引', '寄']);
        cov.ki2_place += usize::from(place);
        cov.ki2_motion += usize::from(motion);
        cov.ki2_both += usize::from(place && motion);
        cov.ki2_drop_word += usize::from(ki2.ends_with('打'));
        lines.push_str(&format!(
            "{}\t{}\t{kif}\t{ki2}\n",
            start.to_sfen(),
            played_text.join(" ")
        ));
        let quirk = cshogi_ki2_quirk(&pos, m, &ki2);
        cov.cshogi_quirk += usize::from(quirk);
        expected.push((m.to_string(), quirk));
    }
}

#[test]
fn japanese_move_text_agrees_with_cshogi() {
    let mut rng = Rng(0x6b69_7269_6e4b_4946);
    let mut lines = String::new();
    let mut expected = Vec::new();
    let mut cov = Coverage::default();
    // Positions from random games from the even and handicap starts.
    for game in 0..60 {
        let sfen = if game % 3 == 0 {
            HANDICAP_SFENS[game / 3 % HANDICAP_SFENS.len()]
        } else {
            START_SFEN
        };
        let start = Position::from_sfen(sfen).expect("start");
        let mut pos = start.clone();
        let mut played = Vec::new();
        let length = 10 + rng.below(140);
        for ply in 0..length {
            let Some(m) = random_move(&pos, &mut rng) else {
                break;
            };
            pos.do_move(m);
            played.push(m);
            if ply % 25 == 24 || pos.piece_on(m.to()).is_some() && rng.chance(10) {
                check_all_moves(&start, &played, &mut lines, &mut expected, &mut cov);
            }
        }
    }
    // Random set-ups, crowded enough that several pieces of a kind reach one square.
    for k in 0..400 {
        let start = random_setup(&mut rng, k % 2 == 0);
        check_all_moves(&start, &[], &mut lines, &mut expected, &mut cov);
    }
    for _ in 0..400 {
        let start = cluster_setup(&mut rng);
        check_all_moves(&start, &[], &mut lines, &mut expected, &mut cov);
    }
    println!("{cov:?}");
    let out = oracle(&["moves"], &lines);
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got.len(), expected.len(), "one oracle line per move");
    let input: Vec<&str> = lines.lines().collect();
    let mut disagreements = Vec::new();
    for (i, (line, (want, quirk))) in got.iter().zip(&expected).enumerate() {
        let (kif, ki2) = line.split_once('\t').expect("two oracle columns");
        let ki2_ok = ki2 == want || (*quirk && (ki2.contains('*') || ki2 == "ERROR"));
        if kif != want || !ki2_ok {
            disagreements.push(format!(
                "{}  -> kif {kif}, ki2 {ki2}, want {want}",
                input[i]
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} moves read differently by cshogi, e.g.:\n{}",
        disagreements.len(),
        expected.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
    assert!(cov.moves > 20_000, "{cov:?}");
    assert!(
        cov.drops > 2_000 && cov.promotions > 500 && cov.declined > 200,
        "{cov:?}"
    );
    assert!(cov.same > 200, "{cov:?}");
    assert!(
        cov.ki2_place > 200 && cov.ki2_motion > 200 && cov.ki2_both > 10,
        "{cov:?}"
    );
    assert!(cov.ki2_drop_word > 50, "{cov:?}");
    assert!(cov.cshogi_quirk * 50 < cov.moves, "{cov:?}");
}

#[test]
fn ki2_disambiguation_follows_the_rules() {
    // The usual textbook cases, each from Black's side and mirrored for White.
    let cases = [
        // Golds on 6i and 4i to 5h: left and right.
        ("4k4/9/9/9/9/9/9/9/3G1G2K b - 1", "6i5h", "５八金左"),
        ("4k4/9/9/9/9/9/9/9/3G1G2K b - 1", "4i5h", "５八金右"),
        // Golds on 5i and 4i to 5h: straight up, and the other from the right.
        ("4k4/9/9/9/9/9/9/9/4GG2K b - 1", "5i5h", "５八金直"),
        ("4k4/9/9/9/9/9/9/9/4GG2K b - 1", "4i5h", "５八金右"),
        // Golds on 4i (up) and 4h (sideways) to 5h: the motion decides.
        ("4k4/9/9/9/9/9/9/5G3/5G2K b - 1", "4i5h", "５八金上"),
        ("4k4/9/9/9/9/9/9/5G3/5G2K b - 1", "4h5h", "５八金寄"),
        // Silvers on 6g (down) and 4i (up) to 5h.
        ("4k4/9/9/9/9/9/3S5/9/5S2K b - 1", "6g5h", "５八銀引"),
        ("4k4/9/9/9/9/9/3S5/9/5S2K b - 1", "4i5h", "５八銀上"),
        // Three golds: 6i, 4i and 4h to 5h; the one from 4i needs place and motion.
        ("4k4/9/9/9/9/9/9/5G3/3G1G2K b - 1", "4i5h", "５八金右上"),
        ("4k4/9/9/9/9/9/9/5G3/3G1G2K b - 1", "4h5h", "５八金寄"),
        ("4k4/9/9/9/9/9/9/5G3/3G1G2K b - 1", "6i5h", "５八金左"),
        // Two dragons on one rank: left and right.
        ("4k4/9/9/9/9/9/9/4K4/+R7+R b - 1", "9i5i", "５九龍左"),
        ("4k4/9/9/9/9/9/9/4K4/+R7+R b - 1", "1i5i", "５九龍右"),
        // 直 is straight forward only: the tokin in front that steps back is 引.
        ("1k7/9/6+P2/9/5+P+P2/9/5K3/9/9 b - 1", "3e3d", "３四と直"),
        ("1k7/9/6+P2/9/5+P+P2/9/5K3/9/9 b - 1", "3c3d", "３四と引"),
        ("1k7/9/6+P2/9/5+P+P2/9/5K3/9/9 b - 1", "4e3d", "３四と左"),
        // Three silvers and one in hand: place and motion together, and the drop says 打.
        ("1S7/9/1SS1k4/9/9/9/7K1/9/9 b S 1", "8c7b+", "７二銀左上成"),
        ("1S7/9/1SS1k4/9/9/9/7K1/9/9 b S 1", "8a7b", "７二銀引不成"),
        ("1S7/9/1SS1k4/9/9/9/7K1/9/9 b S 1", "S*7b", "７二銀打"),
        // A drop where a piece on the board could also go: 打.
        ("4k4/9/9/9/9/9/9/4G4/5G2K b G 1", "G*5g", "５七金打"),
        ("4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5e", "５五金"),
    ];
    for (sfen, usi, want) in cases {
        let pos = Position::from_sfen(sfen).expect(sfen);
        let m = pos
            .parse_move(usi)
            .unwrap_or_else(|e| panic!("{sfen} {usi}: {e}"));
        assert_eq!(move_to_ki2(&pos, m, None), want, "{sfen} {usi}");
        assert_eq!(
            parse_ki2_move(&pos, want, None).map(|r| r.0),
            Ok(m),
            "{sfen} {want}"
        );
    }
    // White's golds on 6a and 4a to 5b: from White's side 4a is on the left.
    let pos = Position::from_sfen("3g1g3/9/9/9/9/9/9/9/4K3k w - 1").expect("white golds");
    let from_4a = pos.parse_move("4a5b").expect("4a5b");
    let from_6a = pos.parse_move("6a5b").expect("6a5b");
    assert_eq!(move_to_ki2(&pos, from_4a, None), "５二金左");
    assert_eq!(move_to_ki2(&pos, from_6a, None), "５二金右");
    // Words that fit no piece, or two, are errors, not guesses.
    let golds = Position::from_sfen("4k4/9/9/9/9/9/9/9/3G1G2K b - 1").expect("golds");
    assert!(parse_ki2_move(&golds, "５八金", None).is_err());
    assert!(parse_ki2_move(&golds, "５八金直", None).is_err());
    assert!(parse_ki2_move(&golds, "５八銀", None).is_err());
}

// ---- generated records round-tripped through every format ---------------------------------------

const ENDINGS: [Ending; 12] = [
    Ending::Resign,
    Ending::Interrupted,
    Ending::TimeUp,
    Ending::Sennichite,
    Ending::PerpetualCheck,
    Ending::Jishogi,
    Ending::EnteringKing,
    Ending::IllegalMove,
    Ending::Draw,
    Ending::MaxMoves,
    Ending::NoMate,
    Ending::Unknown,
];

fn generated_record(rng: &mut Rng, i: usize) -> Record {
    let start = match i % 4 {
        0 | 1 => Position::startpos(),
        2 => {
            Position::from_sfen(HANDICAP_SFENS[rng.below(HANDICAP_SFENS.len())]).expect("handicap")
        }
        _ => random_setup(rng, false),
    };
    let mut record = Record::new(start.clone(), Format::Usi);
    let mut pos = start;
    for _ in 0..rng.below(160) {
        let Some(m) = random_move(&pos, rng) else {
            break;
        };
        pos.do_move(m);
        record.moves.push(m);
    }
    let n = record.moves.len();
    let timed = rng.chance(50);
    record.times = (0..n)
        .map(|_| timed.then(|| rng.below(4000) as u32))
        .collect();
    record.comments = (0..=n)
        .map(|ply| {
            if rng.chance(15) {
                vec![
                    format!("comment {ply} 評価値 {}", rng.below(1000)),
                    "二行目".to_string(),
                ]
            } else {
                Vec::new()
            }
        })
        .collect();
    if rng.chance(80) {
        record.black = Some(format!("先手{}", rng.below(100)));
        record.white = Some(format!("white {}", rng.below(100)));
    }
    record
        .headers
        .push(("開始日時".into(), "2024/01/02 10:00:00".into()));
    if pos.is_mated() {
        record.set_ending(Ending::Mate);
    } else {
        record.set_ending(ENDINGS[rng.below(ENDINGS.len())]);
        if record.ending == Ending::IllegalMove && rng.chance(50) {
            record.winner = record.winner.map(|w| !w);
        }
    }
    record
}

/// What a format keeps of a record, for comparing round trips.
fn summary(r: &Record, times: bool, comments: bool, ending: bool) -> String {
    format!(
        "start {}\nmoves {}\nending {:?} winner {:?}\nnames {:?} {:?}\ntimes {:?}\ncomments {:?}\nerror {:?}",
        r.start_sfen(),
        r.usi_moves().join(" "),
        if ending { r.ending } else { Ending::Unknown },
        if ending { r.winner } else { None },
        r.black,
        r.white,
        if times { r.times.clone() } else { Vec::new() },
        if comments {
            r.comments.clone()
        } else {
            Vec::new()
        },
        r.error
    )
}

fn read_one(bytes: &[u8], hint: Option<&str>, what: &str) -> Record {
    let mut v = read_bytes(bytes, hint).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(v.len(), 1, "{what}");
    v.remove(0)
}

#[test]
fn generated_records_round_trip_through_every_format() {
    let mut rng = Rng(0x726f_756e_6474_7270);
    let mut for_cshogi = Vec::new();
    let mut all = Vec::new();
    for i in 0..300 {
        let record = generated_record(&mut rng, i);
        let full = summary(&record, true, true, true);
        let what = format!("record {i} ({})", record.start_sfen());

        // KIF, as UTF-8 and as Shift_JIS, found by content alone.
        let kif = write_kif(&record, &[]);
        for enc in [Encoding::Utf8, Encoding::ShiftJis] {
            let back = read_one(&encode_text(&kif, enc), None, &what);
            assert_eq!(back.format, Format::Kif, "{what}");
            assert_eq!(
                summary(&back, true, true, true),
                full,
                "{what} KIF {enc:?}:\n{kif}"
            );
        }
        // KI2 keeps no times; EUC-JP here to cover the third encoding.
        let ki2 = write_ki2(&record, &[]);
        let back = read_one(&encode_text(&ki2, Encoding::EucJp), None, &what);
        assert_eq!(back.format, Format::Ki2, "{what}");
        let want = summary(&record, false, true, true);
        assert_eq!(
            summary(&back, false, true, true),
            want,
            "{what} KI2:\n{ki2}"
        );
        // CSA; players' names and comments are kept, the date goes to $START_TIME.
        let csa = write_csa(&record, &[]);
        let back = read_one(csa.as_bytes(), None, &what);
        assert_eq!(back.format, Format::Csa, "{what}");
        assert_eq!(summary(&back, true, true, true), full, "{what} CSA:\n{csa}");
        assert_eq!(back.header("START_TIME"), Some("2024/01/02 10:00:00"));
        // JKF.
        let jkf = write_jkf(&record, &[]);
        let back = read_one(jkf.as_bytes(), None, &what);
        assert_eq!(back.format, Format::Jkf, "{what}");
        assert_eq!(summary(&back, true, true, true), full, "{what} JKF:\n{jkf}");
        // USI keeps the start and the moves (and a mate, which the position shows).
        let usi = write_usi(&record);
        let back = read_one(usi.as_bytes(), None, &what);
        assert_eq!(back.format, Format::Usi);
        assert_eq!(back.start_sfen(), record.start_sfen(), "{what}");
        assert_eq!(back.moves, record.moves, "{what}");
        assert_eq!(
            back.ending == Ending::Mate,
            record.ending == Ending::Mate,
            "{what}"
        );

        if i % 4 != 3 && for_cshogi.len() < 60 {
            let ki2 = (!has_ki2_quirk(&record)).then_some(ki2);
            for_cshogi.push((i, record.clone(), kif, ki2, csa));
        }
        all.push(record);
    }

    // Several games in one CSA file.
    let many = kifu::csa::write_games(&all[..20]);
    let back = read_bytes(many.as_bytes(), Some("many.csa")).expect("multi-game CSA");
    assert_eq!(back.len(), 20);
    for (a, b) in all[..20].iter().zip(&back) {
        assert_eq!(summary(a, true, true, true), summary(b, true, true, true));
    }

    // cshogi reads what kirin wrote: the same moves and final position from KIF, KI2 and CSA.
    let dir = std::env::temp_dir().join(format!("kirin-kifu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut args = vec!["files".to_string()];
    for (i, _, kif, ki2, csa) in &for_cshogi {
        for (ext, text) in [
            ("kifu", Some(kif)),
            ("ki2u", ki2.as_ref()),
            ("csa", Some(csa)),
        ] {
            let Some(text) = text else { continue };
            let path = dir.join(format!("g{i}.{ext}"));
            std::fs::write(&path, text).expect("write a record");
            args.push(path.display().to_string());
        }
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = oracle(&arg_refs, "");
    let lines: Vec<&str> = out.lines().collect();
    let written = args.len() - 1;
    assert_eq!(lines.len(), written);
    let ki2_compared = for_cshogi.iter().filter(|g| g.3.is_some()).count();
    println!("cshogi read {written} written records ({ki2_compared} KI2)");
    assert!(
        ki2_compared * 10 >= for_cshogi.len() * 7,
        "{ki2_compared} KI2 records compared"
    );
    for (line, path) in lines.iter().zip(&args[1..]) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let i: usize = Path::new(path)
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s[1..].parse().ok())
            .expect("g<i>");
        let record = &for_cshogi.iter().find(|g| g.0 == i).expect("record").1;
        let f: Vec<&str> = line.split('\t').collect();
        assert_ne!(f[1], "ERROR", "{line}\n{text}");
        assert_eq!(f[1], record.start_sfen(), "{line}");
        assert_eq!(f[6], record.usi_moves().join(" "), "{line}");
        assert_eq!(f[3], record.final_position().to_sfen(), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- bad input --------------------------------------------------------------------------------

fn ryuou_text() -> String {
    let bytes = std::fs::read(data_dir().join("kif/ryuou201409020101.kif")).expect("ryuou kif");
    kifu::decode_text(&bytes).0
}

#[test]
fn a_broken_record_keeps_its_legal_prefix_and_names_the_line() {
    let text = ryuou_text();
    let full = kifu::read_as(&text, Format::Kif).expect("full")[0].clone();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("  50 "))
        .expect("move 50");

    // Cut in the middle of move 50.
    let cut: String =
        lines[..at].join("\n") + "\n" + &lines[at].chars().take(7).collect::<String>();
    let r = &kifu::read_as(&cut, Format::Kif).expect("truncated")[0];
    assert_eq!(r.moves, full.moves[..49]);
    assert_eq!(
        r.error.as_ref().map(|e| e.line),
        Some(at + 1),
        "{:?}",
        r.error
    );

    // An illegal move: the king to its own square.
    let mut broken: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    broken[at] = "  50 ５五玉(55)".to_string();
    let r = &kifu::read_as(&broken.join("\n"), Format::Kif).expect("illegal")[0];
    assert_eq!(r.moves, full.moves[..49]);
    let err = r.error.as_ref().expect("an error");
    assert_eq!(err.line, at + 1);
    assert!(
        !err.message.contains('\n') && err.message.contains("move 50"),
        "{err}"
    );
    assert_eq!(r.ending, Ending::Unknown);

    // The same in CSA: a move from an empty square in the middle of a game.
    let csa = std::fs::read_to_string(data_dir().join("csa/v2.csa")).expect("v2.csa");
    let mut lines: Vec<String> = csa.lines().map(str::to_string).collect();
    let moves: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.len() == 7 && (l.starts_with('+') || l.starts_with('-')))
        .map(|(i, _)| i)
        .collect();
    let at = moves[30];
    lines[at] = format!("{}5555FU", &lines[at][..1]);
    let r = &kifu::read_as(&lines.join("\n"), Format::Csa).expect("csa")[0];
    assert_eq!(r.moves.len(), 30);
    assert_eq!(r.error.as_ref().map(|e| e.line), Some(at + 1));

    // KI2: a piece that cannot reach the square.
    let ki2 = "先手：a\n後手：b\n▲７六歩 △３四歩 ▲５五飛\n";
    let r = &kifu::read_as(ki2, Format::Ki2).expect("ki2")[0];
    assert_eq!(r.usi_moves(), ["7g7f", "3c3d"]);
    assert_eq!(r.error.as_ref().map(|e| e.line), Some(3));

    // USI and JKF.
    let r = &kifu::read_as("startpos moves 7g7f 3c3d 2b8h\n", Format::Usi).expect("usi")[0];
    assert_eq!(
        (r.moves.len(), r.error.as_ref().map(|e| e.line)),
        (2, Some(1))
    );
    let jkf = r#"{"moves":[{},{"move":{"from":{"x":7,"y":7},"to":{"x":7,"y":6},"piece":"FU"}},
        {"move":{"from":{"x":2,"y":2},"to":{"x":8,"y":8},"piece":"KA"}}]}"#;
    let r = &kifu::read_as(jkf, Format::Jkf).expect("jkf")[0];
    assert_eq!(r.usi_moves(), ["7g7f"]);
    assert!(
        r.error
            .as_ref()
            .is_some_and(|e| e.message.contains("moves[2]"))
    );
}

#[test]
fn unreadable_input_is_an_error_not_a_panic() {
    assert!(read_bytes(b"", None).is_err());
    assert!(read_bytes(b"hello world\n", None).is_err());
    let e = read_bytes(b"sfen lnsgkgsnl/9 b - 1 moves 7g7f\n", None).unwrap_err();
    assert_eq!(e.line, 1);
    let e = read_bytes(b"{\"moves\": [", Some("x.jkf")).unwrap_err();
    assert!(e.message.contains("JSON"), "{e}");
    let e = read_bytes("手合割：九枚落ち\n   1 ７六歩(77)\n".as_bytes(), None).unwrap_err();
    assert_eq!(e.line, 1);
    let e = read_file("../no/such/file.kif").unwrap_err();
    assert!(e.message.contains("cannot read"));

    // Random bytes and damaged real records: never a panic, and whatever is returned replays.
    let mut rng = Rng(0x6761_7262_6167_6521);
    let mut sources: Vec<Vec<u8>> = Vec::new();
    for sub in ["kif", "ki2", "csa"] {
        for e in std::fs::read_dir(data_dir().join(sub)).expect("data dir") {
            sources.push(std::fs::read(e.expect("entry").path()).expect("record"));
        }
    }
    let mut checked = 0;
    for round in 0..1500 {
        let mut bytes = if round % 5 == 0 {
            (0..rng.below(400)).map(|_| rng.next() as u8).collect()
        } else {
            sources[rng.below(sources.len())].clone()
        };
        if !bytes.is_empty() {
            let cut = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes.truncate(cut),
                1 => bytes[cut] = rng.next() as u8,
                _ => {
                    let n = rng.below(40).min(bytes.len() - cut);
                    bytes.drain(cut..cut + n);
                }
            }
        }
        if let Ok(records) = read_bytes(&bytes, None) {
            for r in records {
                let mut pos = r.start.clone();
                for &m in &r.moves {
                    assert!(legal_moves(&pos).contains(&m));
                    pos.do_move(m);
                }
                assert_eq!(r.comments.len(), r.moves.len() + 1);
                assert_eq!(r.times.len(), r.moves.len());
                if let Some(e) = r.error {
                    assert!(!e.message.contains('\n'));
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 500,
        "only {checked} damaged records were readable at all"
    );
}
