//! Opening books: YaneuraOu's format read exactly (hand-made files), kirin's own books read
//! back identically, the on-disk search agreeing with the in-memory book everywhere, the
//! tools (records, merge, minimax), and the engine's use of a book through its USI options.

mod common;

use std::path::PathBuf;

use common::{Engine, best_of, errors, is_legal};
use kirin::book::build::{self, GameRecord, RecordParams};
use kirin::book::think::{self, ThinkParams};
use kirin::book::{Book, BookMove, FileBook, Source, key_of, mirror_key};
use kirin::shogi::{Color, Position, START_SFEN, legal_moves, parse_syntax};

const START_KEY: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -";

/// A fresh folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kirin-book-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn after(moves: &[&str]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        pos.do_move(pos.parse_move(m).unwrap());
    }
    pos
}

fn names(moves: &[BookMove]) -> Vec<String> {
    moves.iter().map(|m| m.mv.to_string()).collect()
}

/// Random legal games from the start position (a fixed seed), for books with many entries.
fn random_games(games: usize, plies: usize, seed: u64) -> Vec<GameRecord> {
    let mut rng = kirin::book::Rng::new(seed);
    (0..games)
        .map(|_| {
            let mut pos = Position::startpos();
            let mut moves = Vec::new();
            for _ in 0..plies {
                let legal = legal_moves(&pos);
                if legal.is_empty() {
                    break;
                }
                // Few distinct first moves, so games share their openings and counts grow.
                let n = if moves.len() < 4 {
                    legal.len().min(3)
                } else {
                    legal.len()
                };
                let m = legal[rng.below(n as u64) as usize];
                pos.do_move(m);
                moves.push(m);
            }
            GameRecord {
                start: Position::startpos(),
                moves,
                winner: Some(if rng.below(2) == 0 {
                    Color::Black
                } else {
                    Color::White
                }),
            }
        })
        .collect()
}

#[test]
fn yaneuraou_files_are_read_exactly() {
    // Unsorted, with comments, CRLF line ends, `none` ponder, a missing count, positions with
    // and without ply numbers, a non-canonical hand order, and a duplicated position.
    let text = "#YANEURAOU-DB2016 1.00\r\n\
        # a comment\r\n\
        sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3\r\n\
        2g2f 8c8d 40 18 3\r\n\
        8h2b+ 3a2b 12 18\r\n\
        \r\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        7g7f 3c3d 35 20 10\n\
        2g2f none -5 16 2\n\
        // another comment style\n\
        sfen 4k4/9/9/9/9/9/9/9/4K4 b P2p3P\n\
        P*5b none 900 1 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        5g5f 8c8d 0 10 1\n\
        7g7f none 0 0 1\n";
    let (book, problems) = Book::parse(text.as_bytes());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(book.len(), 3);
    let start = book.probe(START_KEY, None);
    assert_eq!(names(&start), ["7g7f", "2g2f", "5g5f"]);
    // The first reading of a move wins; fields are exact.
    assert_eq!(
        start[0],
        BookMove {
            mv: parse_syntax("7g7f").unwrap(),
            ponder: parse_syntax("3c3d"),
            value: 35,
            depth: 20,
            count: 10
        }
    );
    assert_eq!(
        (start[1].ponder, start[1].value, start[1].depth),
        (None, -5, 16)
    );
    let third = book.probe(&key_of(&after(&["7g7f", "3c3d"])), None);
    assert_eq!(names(&third), ["2g2f", "8h2b+"]);
    assert_eq!(
        (third[1].value, third[1].depth, third[1].count),
        (12, 18, 1)
    );
    // The hand is stored canonically (4P2p), without a ply number since none was given.
    let hands = book.get("4k4/9/9/9/9/9/9/9/4K4 b 4P2p").unwrap();
    assert_eq!(
        (hands[0].mv.to_string(), hands[0].value),
        ("P*5b".into(), 900)
    );
    // Written back sorted, with the header.
    let mut out = Vec::new();
    book.write(&mut out).unwrap();
    let written = String::from_utf8(out).unwrap();
    let sfens: Vec<&str> = written.lines().filter(|l| l.starts_with("sfen ")).collect();
    let mut sorted = sfens.clone();
    sorted.sort();
    assert_eq!(sfens, sorted);
    assert!(written.starts_with("#YANEURAOU-DB2016 1.00\n"));
    assert!(written.contains("\n2g2f none -5 16 2\n"), "{written}");
}

#[test]
fn bad_lines_are_reported_with_their_numbers_and_skipped() {
    let text = "#YANEURAOU-DB2016 1.00\n\
        7g7f 3c3d 0 0 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        7g7e none 0 0 1\n\
        7g7f 3c3d 10 12 1\n\
        2g2f 8c8d ten 12 1\n\
        5i5h\n\
        1a1b none 0 0 1\n\
        2h2g none 0 0 1 extra\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1\n\
        7g7f none 0 0 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n\
        3c3d none -10 12 1\n";
    let (book, problems) = Book::parse(text.as_bytes());
    let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
    // Line 2: no position; 4: 7g7e is no move of a pawn on 7g; 6: a value that is no
    // number; 8: not a Black move; 9: too many fields; 10: bad piece letter (its move on
    // line 11 is skipped with it).
    assert_eq!(lines, [2, 4, 6, 8, 9, 10], "{problems:?}");
    assert!(problems[1].message.contains("not legal"), "{problems:?}");
    assert_eq!(names(&book.probe(START_KEY, None)), ["7g7f", "5i5h"]);
    assert_eq!(book.probe(START_KEY, None)[1].count, 1);
    assert_eq!(book.len(), 2);
}

#[test]
fn ply_numbers_are_ignored_unless_asked() {
    let text = "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        7g7f none 10 10 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 5\n\
        2g2f none 20 10 1\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -\n\
        5g5f none 0 10 1\n";
    let (book, problems) = Book::parse(text.as_bytes());
    assert!(problems.is_empty());
    assert_eq!(book.len(), 3);
    assert_eq!(
        names(&book.probe(START_KEY, None)),
        ["5g5f", "7g7f", "2g2f"]
    );
    assert_eq!(names(&book.probe(START_KEY, Some(5))), ["5g5f", "2g2f"]);
    assert_eq!(names(&book.probe(START_KEY, Some(1))), ["5g5f", "7g7f"]);
    let mut source = Source::Memory(book);
    let start = Position::startpos();
    assert_eq!(source.find(&start, false).moves.len(), 3);
    assert_eq!(names(&source.find(&start, true).moves), ["5g5f", "7g7f"]);
    // The same position at ply 5 (rooks out and back).
    let again = after(&["2h3h", "8b7b", "3h2h", "7b8b"]);
    assert_eq!(key_of(&again), START_KEY);
    assert_eq!(names(&source.find(&again, true).moves), ["5g5f", "2g2f"]);
}

#[test]
fn mirror_images_answer_with_mirrored_moves() {
    // The book knows only the mirror image of the position after 7g7f 3c3d (files swapped
    // left and right: Black's rook on 8h, bishop on 2h); asked the real position, it answers
    // with its moves mirrored back.
    let asked = after(&["7g7f", "3c3d"]);
    let stored = Position::from_sfen(&format!("{} 3", mirror_key(&key_of(&asked)))).unwrap();
    assert_eq!(
        key_of(&stored),
        "lnsgkgsnl/1b5r1/pp1pppppp/2p6/9/6P2/PPPPPP1PP/1R5B1/LNSGKGSNL b -"
    );
    let text = format!(
        "sfen {}\n8h7h 2b3b 25 14 2\n3i4h none 10 14 1\n2h8b+ none -300 14 1\n8h8a none 5 14 1\n",
        stored.to_sfen()
    );
    let (book, problems) = Book::parse(text.as_bytes());
    // 8h8a: the rook cannot jump its own pawn.
    assert_eq!(problems.len(), 1, "{problems:?}");
    let mut source = Source::Memory(book);
    let found = source.find(&asked, false);
    assert!(found.mirrored);
    assert_eq!(names(&found.moves), ["2h3h", "7i6h", "8h2b+"]);
    assert_eq!(found.moves[0].ponder, parse_syntax("8b7b"));
    assert_eq!((found.moves[0].value, found.moves[0].count), (25, 2));
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    // The stored image is found directly.
    let direct = source.find(&stored, false);
    assert!(!direct.mirrored);
    assert_eq!(names(&direct.moves), ["8h7h", "3i4h", "2h8b+"]);
    // A position in neither orientation finds nothing.
    assert!(source.find(&after(&["5g5f"]), false).moves.is_empty());
}

#[test]
fn books_kirin_writes_read_back_identically() {
    let dir = scratch("roundtrip");
    let mut book = Book::new();
    let params = ThinkParams {
        nodes: 3000,
        multipv: 3,
        positions: 12,
        max_ply: 6,
        save_every: 0,
        hash_mb: 4,
        ..ThinkParams::default()
    };
    let analysed = think::expand(&[Position::startpos()], &mut book, &params, &mut |_| {});
    assert_eq!(analysed, 12);
    assert_eq!(book.len(), 12);
    let path = dir.join("think.db");
    book.save(&path).unwrap();
    let (read, problems) = Book::read(&path).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(read, book);
    let again = dir.join("again.db");
    read.save(&again).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
    // Every candidate is legal, values are sorted best first, depths are real.
    for (entry, moves) in book.entries() {
        let pos = Position::from_sfen(entry).unwrap();
        let legal = legal_moves(&pos);
        assert!(moves.iter().all(|m| legal.contains(&m.mv)), "{entry}");
        assert!(
            moves.windows(2).all(|w| w[0].value >= w[1].value),
            "{entry}"
        );
        assert!(moves.iter().all(|m| m.depth >= 1), "{entry}");
    }
    // Continuing a book analyses nothing already in it.
    let more = ThinkParams {
        positions: 3,
        ..params
    };
    let before = book.clone();
    assert_eq!(
        think::expand(&[Position::startpos()], &mut book, &more, &mut |_| {}),
        3
    );
    assert_eq!(book.len(), before.len() + 3);
    for (entry, moves) in before.entries() {
        assert_eq!(book.get(entry), Some(moves));
    }

    let records = build::from_records(&random_games(50, 20, 1), &RecordParams::default());
    let path = dir.join("records.db");
    records.save(&path).unwrap();
    assert_eq!(Book::read(&path).unwrap(), (records, vec![]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn on_disk_search_equals_the_book_in_memory() {
    let dir = scratch("ondisk");
    let games = random_games(400, 24, 7);
    let params = RecordParams {
        max_ply: 30,
        ..RecordParams::default()
    };
    let book = build::from_records(&games, &params);
    assert!(book.len() > 5000, "{}", book.len());
    // Comments and a second entry of one position with another ply number, as other tools
    // write them.
    let path = dir.join("big.db");
    book.save(&path).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 100_000);
    let mut file = FileBook::open(&path).unwrap();
    file.check_sorted().unwrap();
    let mut misses = 0;
    for (entry, _) in book.entries() {
        let key = kirin::book::split_ply(entry).0;
        assert_eq!(
            file.probe(key, None).unwrap(),
            book.probe(key, None),
            "{key}"
        );
        // A position next to this one, usually not in the book.
        let mut pos = Position::from_sfen(entry).unwrap();
        if let Some(&m) = legal_moves(&pos).last() {
            pos.do_move(m);
            let key = key_of(&pos);
            let expect = book.probe(&key, None);
            misses += usize::from(expect.is_empty());
            assert_eq!(file.probe(&key, None).unwrap(), expect, "{key}");
        }
    }
    assert!(misses > 100);
    // Through the engine's lookup too (legality, mirror), including with ply numbers.
    let mut memory = Source::Memory(book.clone());
    let mut disk = Source::File(FileBook::open(&path).unwrap());
    for game in games.iter().take(100) {
        let mut pos = game.start.clone();
        for &m in &game.moves {
            for match_ply in [false, true] {
                let (a, b) = (memory.find(&pos, match_ply), disk.find(&pos, match_ply));
                assert_eq!((a.moves, a.mirrored), (b.moves, b.mirrored));
            }
            pos.do_move(m);
        }
    }
    // Keys before the first and after the last entry.
    assert!(file.probe("1", None).unwrap().is_empty());
    assert!(file.probe("~", None).unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsorted_files_are_caught_by_the_check() {
    let dir = scratch("unsorted");
    let path = dir.join("u.db");
    let text = format!(
        "sfen {START_SFEN}\n7g7f none 0 0 1\nsfen {}\n2g2f none 0 0 1\n",
        after(&["7g7f", "3c3d"]).to_sfen(),
    );
    std::fs::write(&path, &text).unwrap();
    let mut file = FileBook::open(&path).unwrap();
    assert!(file.check_sorted().unwrap_err().contains("line 3"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn records_books_count_moves_with_filters() {
    let game = |line: &str, winner| GameRecord {
        winner,
        ..build::parse_usi_game(line).unwrap()
    };
    let games = [
        game("startpos moves 7g7f 3c3d 2g2f", Some(Color::Black)),
        game("startpos moves 7g7f 3c3d 6g6f", Some(Color::White)),
        game("position startpos moves 7g7f 8c8d", None),
        game("startpos moves 2g2f", Some(Color::Black)),
    ];
    let all = build::from_records(&games, &RecordParams::default());
    let start = all.probe(START_KEY, None);
    assert_eq!(names(&start), ["7g7f", "2g2f"]);
    assert_eq!((start[0].count, start[1].count), (3, 1));
    // The ponder move is the most played reply.
    assert_eq!(start[0].ponder, parse_syntax("3c3d"));
    let twice = build::from_records(
        &games,
        &RecordParams {
            min_count: 2,
            ..RecordParams::default()
        },
    );
    assert_eq!(names(&twice.probe(START_KEY, None)), ["7g7f"]);
    assert_eq!(twice.len(), 2);
    let white = build::from_records(
        &games,
        &RecordParams {
            side: Some(Color::White),
            ..RecordParams::default()
        },
    );
    assert!(white.probe(START_KEY, None).is_empty());
    assert_eq!(
        names(&white.probe(&key_of(&after(&["7g7f"])), None)),
        ["3c3d", "8c8d"]
    );
    let winners = build::from_records(
        &games,
        &RecordParams {
            winner_only: true,
            ..RecordParams::default()
        },
    );
    let start = winners.probe(START_KEY, None);
    assert_eq!(
        (names(&start), start[0].count),
        (vec!["7g7f".to_string(), "2g2f".into()], 1)
    );
    assert_eq!(
        names(&winners.probe(&key_of(&after(&["7g7f"])), None)),
        ["3c3d"]
    );
    let short = build::from_records(
        &games,
        &RecordParams {
            max_ply: 1,
            ..RecordParams::default()
        },
    );
    assert_eq!(short.len(), 1);
    assert!(build::parse_usi_game("startpos moves 7g7f 7g7f").is_err());
}

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
fn merge_keeps_the_deepest_analysis_and_sums_counts() {
    let mut a = Book::new();
    a.set(
        format!("{START_KEY} 1"),
        vec![bm("7g7f", 30, 10, 2), bm("2g2f", 20, 10, 1)],
    );
    let mut b = Book::new();
    b.set(
        format!("{START_KEY} 3"),
        vec![bm("7g7f", 50, 12, 5), bm("5g5f", -40, 8, 1)],
    );
    b.set(key_of(&after(&["7g7f"])), vec![bm("3c3d", -30, 12, 1)]);
    let merged = build::merge(&[a, b]);
    assert_eq!(merged.len(), 2);
    let start = merged.get(&format!("{START_KEY} 1")).unwrap();
    assert_eq!(names(start), ["7g7f", "2g2f", "5g5f"]);
    assert_eq!(
        (start[0].value, start[0].depth, start[0].count),
        (50, 12, 7)
    );
}

#[test]
fn minimax_takes_the_best_reply_and_survives_cycles() {
    let entry = |moves: &[&str]| format!("{} {}", key_of(&after(moves)), moves.len() + 1);
    let mut book = Book::new();
    // At the start 7g7f looks best by its own search, but White's best reply in the book
    // says otherwise; 2g2f leads out of the book and keeps its value.
    book.set(
        entry(&[]),
        vec![
            bm("7g7f", 80, 10, 1),
            bm("2g2f", 40, 10, 1),
            bm("2h3h", 0, 10, 1),
        ],
    );
    book.set(
        entry(&["7g7f"]),
        vec![bm("3c3d", -90, 10, 1), bm("8c8d", 20, 10, 1)],
    );
    // A rook dance back to the start position: a cycle through the root.
    book.set(entry(&["2h3h"]), vec![bm("8b7b", 10, 10, 1)]);
    book.set(entry(&["2h3h", "8b7b"]), vec![bm("3h2h", 5, 10, 1)]);
    book.set(entry(&["2h3h", "8b7b", "3h2h"]), vec![bm("7b8b", 0, 10, 1)]);
    let out = build::minimax(&book, 0);
    assert_eq!(out.len(), book.len());
    let reply = out.get(&entry(&["7g7f"])).unwrap();
    assert_eq!(
        (reply[0].mv.to_string(), reply[0].value),
        ("8c8d".into(), 20)
    );
    let start = out.get(&entry(&[])).unwrap();
    assert_eq!(names(start), ["2g2f", "2h3h", "7g7f"]);
    assert_eq!((start[0].value, start[2].value), (40, -20));
    assert_eq!(start[2].ponder, parse_syntax("8c8d"));
    // The dance ends in the start position, already on the path: a draw.
    assert_eq!(start[1].value, 0);
    // Depths and counts are kept.
    assert!(out.entries().all(|(_, m)| m.iter().all(|b| b.depth == 10)));
}

// --- the engine with a book ---

/// An engine with `book` as its BookFile (and these other options set), ready.
fn engine_with(book: &str, options: &[(&str, &str)]) -> (Engine, Vec<String>) {
    let mut engine = Engine::start();
    engine.handshake();
    engine.send("setoption name USI_Hash value 16");
    engine.send("setoption name Threads value 1");
    engine.send(&format!("setoption name BookFile value {book}"));
    for (name, value) in options {
        engine.send(&format!("setoption name {name} value {value}"));
    }
    let lines = engine.sync();
    (engine, lines)
}

/// The move played and whether it came from the book: a book answer's `info` line has a
/// score and PV but no node count.
fn play(engine: &mut Engine, moves: &[&str]) -> (String, bool) {
    if moves.is_empty() {
        engine.send("position startpos");
    } else {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
    }
    engine.send("go btime 0 wtime 0 byoyomi 200");
    let (best, before) = engine.bestmove();
    let mv = best_of(&best).to_string();
    let from_book = before.iter().any(|l| {
        l.starts_with("info depth ") && !l.contains(" nodes ") && l.contains(&format!(" pv {mv}"))
    });
    let played: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    assert!(is_legal(None, &played, &mv), "{best}");
    (best, from_book)
}

fn write_book(name: &str, text: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let path = dir.join("test.db");
    std::fs::write(&path, text).unwrap();
    let shown = path.display().to_string();
    (dir, shown)
}

const TEST_BOOK: &str = "#YANEURAOU-DB2016 1.00\n\
    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
    9g9f 9c9d 100 20 1\n\
    1g1f none 90 20 5\n\
    5g5f none 50 20 1\n";

#[test]
fn book_moves_are_announced_and_played() {
    let (dir, path) = write_book("announce", TEST_BOOK);
    let (mut engine, lines) = engine_with(&path, &[("BookEvalDiff", "0")]);
    assert!(lines.is_empty(), "{lines:?}");
    engine.send("position startpos");
    engine.send("go btime 0 wtime 0 byoyomi 1000");
    let (best, before) = engine.bestmove();
    assert_eq!(best, "bestmove 9g9f ponder 9c9d");
    assert_eq!(before, ["info depth 20 score cp 100 pv 9g9f 9c9d"]);
    // Fixed-depth searches and analysis are not answered from the book.
    engine.send("go depth 2");
    let (_, before) = engine.bestmove();
    assert!(before.iter().any(|l| l.contains(" nodes ")), "{before:?}");
    engine.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn book_options_filter_the_moves() {
    let (dir, path) = write_book("options", TEST_BOOK);
    // BookEvalDiff 20: 9g9f and 1g1f only, both seen.
    let (mut engine, _) = engine_with(&path, &[("BookEvalDiff", "20")]);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30 {
        let (best, from_book) = play(&mut engine, &[]);
        assert!(from_book);
        seen.insert(best_of(&best).to_string());
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["1g1f", "9g9f"]);
    // Weighted by count: 1g1f (count 5) comes up more often than 9g9f (count 1).
    engine.send("setoption name BookMoveChoice value WeightedByCount");
    let ones = (0..60)
        .filter(|_| best_of(&play(&mut engine, &[]).0) == "1g1f")
        .count();
    assert!(ones > 30, "{ones}");
    // A black limit above every value: no book move.
    engine.send("setoption name BookEvalBlackLimit value 200");
    assert!(!play(&mut engine, &[]).1);
    engine.send("setoption name BookEvalBlackLimit value 0");
    assert!(play(&mut engine, &[]).1);
    // Depth limit above every depth.
    engine.send("setoption name BookDepthLimit value 21");
    assert!(!play(&mut engine, &[]).1);
    engine.send("setoption name BookDepthLimit value 0");
    // BookMoves 0: the book is never used.
    engine.send("setoption name BookMoves value 0");
    assert!(!play(&mut engine, &[]).1);
    engine.send("setoption name BookMoves value 1");
    assert!(play(&mut engine, &[]).1);
    // Always ignored.
    engine.send("setoption name BookIgnoreRate value 100");
    assert!(!play(&mut engine, &[]).1);
    engine.send("setoption name BookIgnoreRate value 0");
    // Book off, then no_book.
    engine.send("setoption name USI_OwnBook value false");
    assert!(!play(&mut engine, &[]).1);
    engine.send("setoption name USI_OwnBook value true");
    assert!(play(&mut engine, &[]).1);
    engine.send("setoption name BookFile value no_book");
    assert!(engine.sync().is_empty());
    assert!(!play(&mut engine, &[]).1);
    engine.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn book_moves_ply_limit_and_mirror_images() {
    // Only the position after two moves is in the book; BookMoves 2 is too short for it.
    let text = format!(
        "sfen {}\n2g2f none 10 10 1\n",
        after(&["7g7f", "3c3d"]).to_sfen()
    );
    let (dir, path) = write_book("bookmoves", &text);
    let (mut engine, _) = engine_with(&path, &[("BookMoves", "2")]);
    assert!(!play(&mut engine, &["7g7f", "3c3d"]).1);
    engine.send("setoption name BookMoves value 3");
    assert_eq!(
        play(&mut engine, &["7g7f", "3c3d"]),
        ("bestmove 2g2f".into(), true)
    );
    // The mirror image of that position is answered with the mirrored move.
    let mirrored = mirror_key(&key_of(&after(&["7g7f", "3c3d"])));
    engine.send(&format!("position sfen {mirrored} 3"));
    engine.send("go btime 0 wtime 0 byoyomi 200");
    let (best, before) = engine.bestmove();
    assert_eq!(best, "bestmove 8g8f");
    assert_eq!(before, ["info depth 10 score cp 10 pv 8g8f"]);
    engine.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn illegal_book_moves_are_never_played() {
    // Only illegal moves at the start (the bishop is blocked by pawns, 5a holds White's
    // king, a pawn steps one square): one error at loading names the file and line, and the
    // engine searches instead.
    let text = "#YANEURAOU-DB2016 1.00\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        8h2b none 9000 30 100\n\
        5a5b none 9000 30 100\n\
        7g7e none 9000 30 100\n";
    let (dir, path) = write_book("illegal", text);
    let (mut engine, lines) = engine_with(&path, &[]);
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("test.db") && lines[0].contains("line 3"),
        "{lines:?}"
    );
    for _ in 0..3 {
        let (best, from_book) = play(&mut engine, &[]);
        assert!(!from_book);
        assert!(
            !["8h2b", "5a5b", "7g7e"].contains(&best_of(&best)),
            "{best}"
        );
    }
    engine.quit();
    let _ = std::fs::remove_dir_all(&dir);

    // On disk nothing is checked at loading: the error comes with the lookup, and the legal
    // move next to the illegal one is played.
    let text = "#YANEURAOU-DB2016 1.00\n\
        sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
        8h2b none 9000 30 100\n\
        2g2f none 10 30 1\n";
    let (dir, path) = write_book("illegal-disk", text);
    let (mut engine, lines) = engine_with(&path, &[("BookOnTheFly", "true")]);
    assert!(lines.is_empty(), "{lines:?}");
    engine.send("position startpos");
    engine.send("go btime 0 wtime 0 byoyomi 200");
    let (best, before) = engine.bestmove();
    assert_eq!(best, "bestmove 2g2f");
    assert_eq!(errors(&before).len(), 1, "{before:?}");
    assert!(before[0].contains("8h2b"), "{before:?}");
    engine.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_books_cost_one_error_and_the_engine_plays_on() {
    // A missing file, a folder, and a file of garbage.
    let dir = scratch("bad");
    std::fs::write(
        dir.join("garbage.db"),
        "hello\nworld\nsfen nonsense\n7g7f\n",
    )
    .unwrap();
    for name in ["missing.db", "", "garbage.db"] {
        let book = dir.join(name).display().to_string();
        let (mut engine, lines) = engine_with(&book, &[]);
        assert_eq!(errors(&lines).len(), 1, "{name}: {lines:?}");
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        assert!(lines[0].contains("book"), "{lines:?}");
        // Said once, not at every isready.
        assert!(engine.sync().is_empty());
        let (_, from_book) = play(&mut engine, &[]);
        assert!(!from_book);
        engine.quit();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_default_book_plays_out_of_the_box() {
    let mut engine = Engine::ready();
    let (best, from_book) = play(&mut engine, &[]);
    assert!(from_book, "{best}");
    // Along the book's best line (the default choice is at random among near-equal moves,
    // some of which the book does not follow further), each side's next move is in the book
    // too, for a few plies.
    engine.send("setoption name BookMoveChoice value BestValue");
    engine.sync();
    let (best, from_book) = play(&mut engine, &[]);
    assert!(from_book, "{best}");
    let mut moves: Vec<String> = vec![best_of(&best).to_string()];
    let mut in_book = 1;
    for _ in 0..5 {
        let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
        let (best, from_book) = play(&mut engine, &refs);
        in_book += usize::from(from_book);
        moves.push(best_of(&best).to_string());
    }
    assert!(in_book >= 3, "{in_book} of 6 from the book: {moves:?}");
    engine.quit();
}

#[test]
fn records_books_from_the_real_game_records() {
    // KIF, KI2 and CSA files through the game-record reader.
    let files = build::files_under(std::path::Path::new("tests/data/kifu")).unwrap();
    let games: Vec<GameRecord> = files
        .iter()
        .filter_map(|f| build::read_games(f).ok())
        .flatten()
        .collect();
    assert!(games.len() >= 10, "{}", games.len());
    for winner_only in [false, true] {
        let params = RecordParams {
            max_ply: 1000,
            winner_only,
            ..RecordParams::default()
        };
        let book = build::from_records(&games, &params);
        // Every counted move is in the book, and the counts add up to the moves counted.
        let mut counted = 0u64;
        for game in &games {
            if winner_only && game.winner.is_none() {
                continue;
            }
            let mut pos = game.start.clone();
            for &m in &game.moves {
                if !winner_only || game.winner == Some(pos.side_to_move()) {
                    counted += 1;
                    let moves = book.probe(&key_of(&pos), None);
                    assert!(moves.iter().any(|b| b.mv == m && b.count >= 1), "{m}");
                }
                pos.do_move(m);
            }
        }
        let total: u64 = book
            .entries()
            .flat_map(|(_, moves)| moves.iter().map(|m| m.count))
            .sum();
        assert_eq!(total, counted);
        assert!(counted > 100);
    }
}

#[test]
fn the_book_command_line() {
    let dir = scratch("cli");
    let kirin = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kirin"))
            .arg("book")
            .args(args)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // Two unsorted books with a duplicated position merge into one sorted book.
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    std::fs::write(
        &a,
        format!(
            "sfen {START_SFEN}\n7g7f 3c3d 30 10 2\nsfen {}\n3c3d none -20 10 1\n",
            after(&["7g7f"]).to_sfen()
        ),
    )
    .unwrap();
    std::fs::write(
        &b,
        format!("sfen {START_SFEN}\n2g2f none 10 12 1\n7g7f none 40 12 1\n"),
    )
    .unwrap();
    let merged = dir.join("m.db");
    let (code, _, err) = kirin(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, _) = kirin(&["check", merged.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    assert!(out.contains("2 positions, sorted"), "{out}");
    let (code, out, _) = kirin(&["probe", merged.to_str().unwrap(), "startpos"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "7g7f none 40 12 3\n2g2f none 10 12 1\n");
    // Minimax: 7g7f is worth what White's best reply says.
    let mm = dir.join("mm.db");
    let (code, _, err) = kirin(&[
        "minimax",
        merged.to_str().unwrap(),
        "--out",
        mm.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = kirin(&["probe", mm.to_str().unwrap(), "--on-the-fly", "startpos"]);
    assert_eq!(out, "7g7f 3c3d 20 12 3\n2g2f none 10 12 1\n");
    // Bad input: one clear line and exit code 2, never a panic.
    for args in [
        &["merge", "--out"][..],
        &["minimax", "nowhere.db", "--out", "x.db"],
        &["think", "--out", "x.db", "--nodes", "many"],
        &["build-records", "--out", "x.db", "--side", "left", "y"],
        &[
            "probe",
            merged.to_str().unwrap(),
            "startpos",
            "moves",
            "7g7e",
        ],
        &["frobnicate"],
    ] {
        let (code, _, err) = kirin(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("kirin book: ") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
