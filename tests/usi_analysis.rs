//! What a GUI displays and stores from kirin's output, read line by line the way ShogiHome's
//! analysis and evaluation graph read it: MultiPV indices, the score before `bestmove resign`
//! and `bestmove win`, the last variation before `bestmove`, queued `go`s, rejected positions,
//! and the output options (`PvInterval`, `OutputFailLHPV`, `ConsiderationMode`).

mod common;

use std::time::Duration;

use common::{Engine, best_of, errors, is_legal};
use kirin::shogi::{Position, legal_moves};
use kirin::usi::{InfoField, Response, Score, ScoreValue, parse_response};

/// White to move, one legal move (1a2a): the MultiPV reproduction of the defect report.
const ONE_REPLY: &str = "8k/9/7G1/9/9/9/9/9/K8 w - 1";
/// White to move and checkmated: gold on 1b, backed by the pawn on 1c.
const WHITE_MATED: &str = "8k/8G/8P/9/9/9/9/9/K8 w - 1";
/// Black's king in the enemy camp with ten pieces and 28 points: a CSA-27 declaration.
const DECLARES: &str = "+R+B1G1GSS1/4K4/PPPN5/9/9/9/9/4k4/9 b 10P 1";
/// Black mates in one (G*5b).
const MATE_IN_ONE: &str = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";

/// The fields of an `info` line; `None` for any other line.
fn info(line: &str) -> Option<Vec<InfoField>> {
    match parse_response(line) {
        Some(Response::Info(fields)) => Some(fields),
        _ => None,
    }
}

fn multipv_of(fields: &[InfoField]) -> Option<u32> {
    fields.iter().find_map(|f| match f {
        InfoField::MultiPv(k) => Some(*k),
        _ => None,
    })
}

fn pv_of(fields: &[InfoField]) -> Option<&Vec<String>> {
    fields.iter().find_map(|f| match f {
        InfoField::Pv(pv) => Some(pv),
        _ => None,
    })
}

fn score_of(fields: &[InfoField]) -> Option<Score> {
    fields.iter().find_map(|f| match f {
        InfoField::Score(score) => Some(*score),
        _ => None,
    })
}

fn depth_of(fields: &[InfoField]) -> Option<u32> {
    fields.iter().find_map(|f| match f {
        InfoField::Depth(d) => Some(*d),
        _ => None,
    })
}

/// Lines with a `pv`, as (multipv, fields).
fn pv_lines(lines: &[String]) -> Vec<(Option<u32>, Vec<InfoField>)> {
    lines
        .iter()
        .filter_map(|l| info(l))
        .filter(|fields| pv_of(fields).is_some())
        .map(|fields| (multipv_of(&fields), fields))
        .collect()
}

/// The checks a GUI's display relies on, for one search: `lines` came before `best`, the
/// position is the start position after `moves`, and `multipv` lines were asked for.
fn check_search(lines: &[String], best: &str, moves: &[String], multipv: u32) {
    let context = || format!("after {moves:?}: {lines:#?}\n{best}");
    assert!(errors(lines).is_empty(), "{}", context());
    assert!(best.starts_with("bestmove "), "{}", context());
    let mv = best_of(best);
    assert!(is_legal(None, moves, mv), "illegal {mv}: {}", context());
    for line in lines {
        let fields = info(line).unwrap_or_else(|| panic!("not info: {line}; {}", context()));
        match multipv_of(&fields) {
            Some(k) => assert!(
                multipv > 1 && (1..=multipv).contains(&k),
                "multipv {k}: {}",
                context()
            ),
            None => assert!(
                multipv == 1 || pv_of(&fields).is_none(),
                "pv line without multipv: {}",
                context()
            ),
        }
        // Each pv is legal from the searched position.
        if let Some(pv) = pv_of(&fields) {
            let mut pos = start_after(moves);
            for m in pv {
                let parsed = pos
                    .parse_move(m)
                    .unwrap_or_else(|_| panic!("pv move {m} illegal in {line}; {}", context()));
                pos.do_move(parsed);
            }
        }
    }
    // The evaluation a GUI keeps is the last main line, and it must be about the move played.
    let main_lines: Vec<_> = pv_lines(lines)
        .into_iter()
        .filter(|(k, _)| k.is_none_or(|k| k == 1))
        .collect();
    let (_, last) = main_lines
        .last()
        .unwrap_or_else(|| panic!("no main line: {}", context()));
    assert_eq!(
        pv_of(last).and_then(|pv| pv.first()).map(String::as_str),
        Some(mv),
        "last main line does not start with the move played: {}",
        context()
    );
}

fn start_after(moves: &[String]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        pos.do_move(pos.parse_move(m).expect("legal test move"));
    }
    pos
}

/// A game of `plies` moves, the same on every run: a fixed-seed pick among the legal moves,
/// preferring the ones that keep the game going.
fn fixed_game(plies: usize) -> Vec<String> {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    while moves.len() < plies {
        let list = legal_moves(&pos);
        if list.is_empty() {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let m = list[(seed % list.len() as u64) as usize];
        moves.push(m.to_string());
        pos.do_move(m);
    }
    moves
}

fn position_line(moves: &[String]) -> String {
    if moves.is_empty() {
        "position startpos".to_string()
    } else {
        format!("position startpos moves {}", moves.join(" "))
    }
}

impl Engine {
    /// Reads until `bestmove`, allowing only `info` lines before it.
    fn search_result(&mut self) -> (String, Vec<String>) {
        let (best, lines) = self.bestmove();
        for line in &lines {
            assert!(line.starts_with("info"), "unexpected {line:?} in {lines:?}");
        }
        (best, lines)
    }
}

#[test]
fn multipv_indices_start_at_one() {
    let mut engine = Engine::ready();
    engine.send("setoption name MultiPV value 3");
    engine.send(&format!("position sfen {ONE_REPLY}"));
    engine.send("go depth 3");
    let (best, lines) = engine.search_result();
    assert_eq!(best_of(&best), "1a2a");
    let lines = pv_lines(&lines);
    assert!(!lines.is_empty());
    for (k, fields) in &lines {
        assert_eq!(*k, Some(1), "{fields:?}");
    }
    // With three moves to show, the last iteration shows 1, 2 and 3.
    engine.send("position startpos");
    engine.send("go depth 4");
    let (best, lines) = engine.search_result();
    check_search(&lines, &best, &[], 3);
    let ks: Vec<Option<u32>> = pv_lines(&lines).iter().map(|(k, _)| *k).collect();
    assert_eq!(ks[ks.len() - 3..], [Some(1), Some(2), Some(3)], "{lines:?}");
    engine.quit();
}

#[test]
fn go_after_a_rejected_position_never_plays_a_move() {
    let mut engine = Engine::ready();
    for bad in [
        // A move that does not parse, an illegal move, a truncated SFEN.
        "position startpos moves 7g7f 9z9z",
        "position startpos moves 7g7f 7g7f",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPP",
    ] {
        engine.send("position startpos moves 7g7f");
        engine.send(bad);
        let rejected = engine.sync();
        assert_eq!(errors(&rejected).len(), 1, "{bad}: {rejected:?}");
        engine.send("go depth 3");
        let (best, before) = engine.bestmove();
        assert_eq!(best, "bestmove resign", "{bad}: {before:?}");
        assert_eq!(errors(&before).len(), 1, "{bad}: {before:?}");
        assert_eq!(before.len(), 1, "{bad}: {before:?}");
        // Also in ponder mode, where the answer still waits for `ponderhit`.
        engine.send("go ponder");
        engine.send("ponderhit");
        let (best, _) = engine.bestmove();
        assert_eq!(best, "bestmove resign", "{bad}");
        // `go mate` has its own answer.
        engine.send("go mate 100");
        let lines = engine.read_until(|l| l.starts_with("checkmate"));
        assert_eq!(lines.last().unwrap(), "checkmate timeout", "{bad}");
    }
    // A valid position ends it.
    engine.send("position startpos moves 7g7f");
    engine.send("go depth 3");
    let (best, before) = engine.search_result();
    check_search(&before, &best, &["7g7f".to_string()], 1);
    engine.quit();
}

#[test]
fn a_go_during_a_search_waits_for_it_and_quit_keeps_both() {
    // The report's piped script, all lines at once.
    let mut engine = Engine::ready();
    for line in [
        "position startpos",
        "go depth 7",
        "position startpos moves 7g7f",
        "go depth 7",
        "quit",
    ] {
        engine.send(line);
    }
    let (first, before) = engine.search_result();
    check_search(&before, &first, &[], 1);
    assert!(
        pv_lines(&before)
            .iter()
            .any(|(_, f)| depth_of(f) == Some(7)),
        "first search cut short: {before:?}"
    );
    let (second, before) = engine.search_result();
    check_search(&before, &second, &["7g7f".to_string()], 1);
    assert!(
        pv_lines(&before)
            .iter()
            .any(|(_, f)| depth_of(f) == Some(7)),
        "second search cut short: {before:?}"
    );
    let status = engine.wait_exit(Duration::from_secs(20));
    assert!(status.success(), "{status}");
}

#[test]
fn stop_answers_the_running_and_the_queued_searches() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go infinite");
    // An open-ended search is stopped by the next `go`, which then waits for nothing.
    engine.send("position startpos moves 2g2f");
    engine.send("go depth 60");
    engine.send("position startpos moves 7g7f");
    engine.send("go depth 60");
    engine.send("stop");
    let (first, _) = engine.search_result();
    assert!(is_legal(None, &[], best_of(&first)), "{first}");
    let (second, before) = engine.search_result();
    check_search(&before, &second, &["2g2f".to_string()], 1);
    let (third, before) = engine.search_result();
    check_search(&before, &third, &["7g7f".to_string()], 1);
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn settled_roots_print_their_score_first() {
    let mut engine = Engine::ready();
    engine.send(&format!("position sfen {WHITE_MATED}"));
    engine.send("go byoyomi 100");
    let (best, before) = engine.search_result();
    assert_eq!(best, "bestmove resign");
    let last = info(before.last().expect("a score line before resign")).unwrap();
    let mated = Score {
        value: ScoreValue::Checkmated,
        bound: None,
    };
    assert_eq!(score_of(&last), Some(mated), "{before:?}");
    assert_eq!(depth_of(&last), Some(0), "{before:?}");

    engine.send(&format!("position sfen {DECLARES}"));
    engine.send("go byoyomi 100");
    let (best, before) = engine.search_result();
    assert_eq!(best, "bestmove win");
    let scored: Vec<Score> = before
        .iter()
        .filter_map(|l| info(l))
        .filter_map(|f| score_of(&f))
        .collect();
    assert_eq!(
        scored,
        [Score {
            value: ScoreValue::Mate(1),
            bound: None
        }],
        "{before:?}"
    );
    engine.quit();
}

/// Node-limited single-thread searches are deterministic, and a node limit ends most of them
/// in the middle of an iteration, where a new best move may have been found but not yet shown.
#[test]
fn the_last_main_line_starts_with_the_move_played() {
    let mut engine = Engine::ready();
    let game = fixed_game(40);
    for plies in (0..40).step_by(4) {
        let moves = &game[..plies];
        engine.send(&position_line(moves));
        for nodes in (2_000..40_000).step_by(3_100) {
            engine.send(&format!("go nodes {nodes}"));
            let (best, before) = engine.search_result();
            if best != "bestmove resign" {
                check_search(&before, &best, moves, 1);
            }
        }
    }
    engine.quit();
}

#[test]
fn an_instant_mate_in_analysis_does_not_flood() {
    let mut engine = Engine::ready();
    engine.send(&format!("position sfen {MATE_IN_ONE}"));
    engine.send("go infinite");
    // Whatever comes while the GUI waits is what it has to render.
    let mut lines = Vec::new();
    while let Some(line) = engine.next_line_within(Duration::from_millis(300), false) {
        lines.push(line);
    }
    engine.send("stop");
    let (best, after) = engine.search_result();
    lines.extend(after);
    assert_eq!(best_of(&best), "G*5b");
    let pv = pv_lines(&lines);
    assert!(pv.len() <= 4, "{} lines: {lines:?}", pv.len());
    let (_, last) = pv.last().unwrap();
    assert_eq!(
        score_of(last).map(|s| s.value),
        Some(ScoreValue::Mate(1)),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn output_options_exist_and_shape_the_output() {
    let mut engine = Engine::start();
    let options = engine.handshake();
    for (name, decl) in [
        ("PvInterval", "option name PvInterval type spin default 300"),
        (
            "OutputFailLHPV",
            "option name OutputFailLHPV type check default true",
        ),
    ] {
        assert!(
            options.iter().any(|l| l.starts_with(decl)),
            "{name}: {options:?}"
        );
    }
    engine.send("setoption name USI_Hash value 16");
    engine.send("setoption name Threads value 1");
    engine.send("setoption name OutputFailLHPV value false");
    engine.send("setoption name PvInterval value 100000");
    assert!(engine.sync().is_empty());
    // A long interval holds back the iterations after the first; the final line still comes.
    engine.send("position startpos moves 7g7f 3c3d");
    engine.send("go depth 8");
    let moves = ["7g7f".to_string(), "3c3d".to_string()];
    let (best, before) = engine.search_result();
    check_search(&before, &best, &moves, 1);
    let depths: Vec<Option<u32>> = pv_lines(&before).iter().map(|(_, f)| depth_of(f)).collect();
    assert_eq!(depths, [Some(1), Some(8)], "{before:?}");
    // Analysis mode reports every iteration whatever the interval.
    engine.send("setoption name ConsiderationMode value true");
    engine.send("go depth 10");
    let (best, before) = engine.search_result();
    check_search(&before, &best, &moves, 1);
    let deep = pv_lines(&before);
    let depths: Vec<u32> = deep.iter().filter_map(|(_, f)| depth_of(f)).collect();
    assert_eq!(depths, (1..=10).collect::<Vec<u32>>(), "{before:?}");
    // Its variations are extended from the hash table: two plies into the line just found,
    // whose positions the table holds with their best moves, a search of depth 3 reports
    // lines that go on past its depth. (Reductions such as IIR at PV nodes can leave a line a
    // ply or two shorter than its depth, so the line comes from a depth-10 search.)
    let line = pv_of(&deep[9].1).unwrap().clone();
    assert!(line.len() >= 8, "{before:?}");
    engine.send(&format!(
        "position startpos moves 7g7f 3c3d {} {}",
        line[0], line[1]
    ));
    engine.send("go depth 3");
    let moves: Vec<String> = [&moves[..], &line[..2]].concat();
    let (best, before) = engine.search_result();
    check_search(&before, &best, &moves, 1);
    let pv = pv_lines(&before);
    assert!(
        pv.iter()
            .any(|(_, f)| pv_of(f).unwrap().len() > depth_of(f).unwrap() as usize + 2),
        "no variation extended: {before:?}"
    );
    for (_, fields) in &pv {
        assert_eq!(score_of(fields).and_then(|s| s.bound), None, "{before:?}");
    }
    engine.quit();
}

#[test]
fn option_names_with_spaces_and_empty_values() {
    let mut engine = Engine::ready();
    // A name with spaces is read whole (`Skill Level`, a known alias, is in tests/strength.rs).
    engine.send("setoption name Contempt Factor value 3");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("unknown option `Contempt Factor`"),
        "{lines:?}"
    );
    // `<empty>` is the empty string, as in an `option` line's `default <empty>`.
    engine.send("setoption name BookFile value <empty>");
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn long_iterations_show_progress() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f 3c3d 2g2f 4c4d");
    engine.send("go infinite");
    let lines = engine.read_until(|l| {
        info(l).is_some_and(|f| {
            pv_of(&f).is_none()
                && f.iter().any(|x| matches!(x, InfoField::CurrMove(_)))
                && f.iter().any(|x| matches!(x, InfoField::Nps(_)))
        })
    });
    let progress = info(lines.last().unwrap()).unwrap();
    assert!(depth_of(&progress).is_some(), "{lines:?}");
    engine.send("stop");
    engine.search_result();
    engine.quit();
}

/// ShogiHome's analysis: MultiPV 3, `go infinite`, `stop` and the next position, through a
/// 50-move game, every line read as ShogiHome reads it.
#[test]
fn shogihome_style_analysis_of_fifty_positions() {
    let mut engine = Engine::ready();
    engine.send("setoption name MultiPV value 3");
    engine.send("usinewgame");
    assert!(engine.sync().is_empty());
    let game = fixed_game(50);
    for plies in 0..50 {
        let moves = &game[..plies];
        engine.send(&position_line(moves));
        engine.send("go infinite");
        let mut lines = Vec::new();
        while let Some(line) = engine.next_line_within(Duration::from_millis(60), false) {
            assert!(!line.starts_with("bestmove"), "{line} before stop");
            lines.push(line);
        }
        engine.send("stop");
        let (best, after) = engine.search_result();
        lines.extend(after);
        if best == "bestmove resign" {
            assert!(legal_moves(&start_after(moves)).is_empty());
            continue;
        }
        check_search(&lines, &best, moves, 3);
    }
    engine.quit();
}

/// A piped script of 20 `position`/`go depth` pairs and `quit`, written all at once: 20
/// answers, in order, each checked line by line.
#[test]
fn piped_script_of_twenty_searches() {
    let mut engine = Engine::ready();
    let game = fixed_game(40);
    let positions: Vec<&[String]> = (0..20).map(|i| &game[..2 * i]).collect();
    for (i, moves) in positions.iter().enumerate() {
        engine.send(&position_line(moves));
        engine.send(&format!("go depth {}", 3 + i % 4));
    }
    engine.send("quit");
    for (i, moves) in positions.iter().enumerate() {
        let (best, before) = engine.search_result();
        check_search(&before, &best, moves, 1);
        let depth = 3 + (i % 4) as u32;
        assert!(
            pv_lines(&before)
                .iter()
                .any(|(_, f)| depth_of(f) == Some(depth)),
            "search {i} did not reach depth {depth}: {before:?}"
        );
    }
    let status = engine.wait_exit(Duration::from_secs(20));
    assert!(status.success(), "{status}");
}

/// The internal score of a single-thread, depth-limited search, which the binary repeats
/// exactly from the same empty table.
fn library_score(sfen: &str, depth: u32) -> i32 {
    use kirin::search::{Limits, Report, Score as SearchScore, SearchOptions, Searcher};
    let pos = Position::from_sfen(sfen).unwrap();
    let mut searcher = Searcher::new(16);
    let opts = SearchOptions {
        threads: 1,
        ..SearchOptions::default()
    };
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut last = None;
    let evaluator = kirin::eval::Evaluator::default();
    searcher.think(&pos, &evaluator, &limits, &opts, &mut |r| {
        if let Report::Pv(info) = r {
            last = Some(info.score);
        }
    });
    match last {
        Some(SearchScore::Cp(cp)) => cp,
        other => panic!("{other:?}"),
    }
}

/// `score cp` is on the GUI's 600 scale, and `ResignValue` is compared with the reported
/// score: a user who resigns "at -1000" means what the GUI shows as -1000.
#[test]
fn scores_and_resign_value_are_on_the_gui_scale() {
    // Two-piece handicap, White (the giver) to move and far behind.
    let sfen = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
    let internal = library_score(sfen, 4);
    let reported = kirin::eval::to_reported_cp(internal);
    assert!(reported < -300, "{internal} -> {reported}");
    for (resign_value, resigns) in [(-reported, true), (-reported + 1, false)] {
        let mut engine = Engine::ready();
        engine.send(&format!("setoption name ResignValue value {resign_value}"));
        engine.send(&format!("position sfen {sfen}"));
        engine.send("go depth 4");
        let (best, before) = engine.search_result();
        let last = pv_lines(&before).pop().expect("a pv line").1;
        assert_eq!(
            score_of(&last).map(|s| s.value),
            Some(ScoreValue::Cp(reported)),
            "{before:?}"
        );
        assert_eq!(best == "bestmove resign", resigns, "{resign_value}: {best}");
        engine.quit();
    }
}
