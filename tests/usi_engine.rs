//! The engine binary driven like real GUIs drive it. These tests check protocol behaviour
//! only (order, counts, errors, timing of `bestmove`), never the strength of the search.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, best_of, errors, is_legal, last_nodes};
use kirin::shogi::{Position, perft};
use kirin::usi::{OptionKind, Response, parse_response};

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
/// Two-piece handicap: White (the handicap giver) moves first.
const TWO_PIECE: &str = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
/// White to move and checkmated: gold on 1b, backed by the pawn on 1c.
const WHITE_MATED: &str = "8k/8G/8P/9/9/9/9/9/K8 w - 1";
/// What "the engine is still thinking" means in these tests.
const QUIET: Duration = Duration::from_millis(150);

fn strings(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

/// The `setoption` line a GUI sends to keep an option at its declared default.
fn setoption_default(line: &str) -> String {
    let Some(Response::Option(decl)) = parse_response(line) else {
        panic!("not an option line: {line}");
    };
    let value = match decl.kind {
        OptionKind::Check { default } => default.to_string(),
        OptionKind::Spin { default, .. } => default.to_string(),
        OptionKind::Combo { default, .. } => default,
        OptionKind::String { default } | OptionKind::Filename { default } => default,
        OptionKind::Button => return format!("setoption name {}", decl.name),
    };
    // ShogiHome leaves the trailing space of an empty value.
    format!("setoption name {} value {value}", decl.name)
}

/// The `sfen` line of the `d` output.
fn displayed_sfen(engine: &mut Engine) -> String {
    engine.send("d");
    let lines = engine.sync();
    lines
        .iter()
        .find_map(|l| l.strip_prefix("info string sfen "))
        .unwrap_or_else(|| panic!("no sfen in {lines:?}"))
        .to_string()
}

#[test]
fn usi_is_answered_at_once_with_every_option() {
    let started = Instant::now();
    let mut engine = Engine::start();
    let options = engine.handshake();
    // Nothing heavy happens before `isready`; the bound is loose for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let names: Vec<String> = options
        .iter()
        .filter_map(|l| match parse_response(l) {
            Some(Response::Option(decl)) => Some(decl.name),
            _ => None,
        })
        .collect();
    for name in [
        "USI_Hash",
        "USI_Ponder",
        "Threads",
        "MultiPV",
        "NetworkDelay",
        "NetworkDelay2",
        "MinimumThinkingTime",
        "SlowMover",
        "RoundUpToFullSecond",
        "EnteringKingRule",
        "MaxMovesToDraw",
        "DrawValueBlack",
        "DrawValueWhite",
        "ResignValue",
        "USI_OwnBook",
        "BookFile",
        "DepthLimit",
        "NodesLimit",
        "ConsiderationMode",
        "MateHash",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
    }
    assert!(options.iter().any(|l| l.contains(
        "EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule24 var CSARule24H var CSARule27 var CSARule27H var TryRule"
    )));
    engine.quit();
}

#[test]
fn shogihome_game_analysis_and_early_ponder() {
    let mut engine = Engine::start();
    let options = engine.handshake();
    // One setoption per option, each at its default except the hash.
    for line in &options {
        let set = setoption_default(line);
        if set.contains("name USI_Hash ") {
            engine.send("setoption name USI_Hash value 16");
        } else {
            engine.send(&set);
        }
    }
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    engine.send("usinewgame");
    engine.send(&format!("position sfen {START} moves 7g7f"));
    engine.send("go btime 60000 wtime 60000 byoyomi 1000");
    let (best, _) = engine.bestmove();
    assert!(
        is_legal(None, &strings(&["7g7f"]), best_of(&best)),
        "{best}"
    );

    // Analysis: `go infinite` until `stop`, which comes before each new position.
    for moves in [&["7g7f"][..], &["7g7f", "3c3d"], &["7g7f", "3c3d", "2g2f"]] {
        engine.send(&format!("position sfen {START} moves {}", moves.join(" ")));
        engine.send("go infinite");
        engine.assert_silent_except_info(QUIET);
        engine.send("stop");
        let (best, _) = engine.bestmove();
        assert!(is_legal(None, &strings(moves), best_of(&best)), "{best}");
    }

    // Early ponder: `go ponder` without times, the times come with `ponderhit`.
    engine.send(&format!("position sfen {START} moves 7g7f 3c3d"));
    engine.send("go ponder");
    engine.assert_silent_except_info(QUIET);
    engine.send("ponderhit btime 59000 wtime 58000 byoyomi 1000");
    let (best, _) = engine.bestmove();
    assert!(is_legal(None, &strings(&["7g7f", "3c3d"]), best_of(&best)));
    engine.send("gameover win");
    assert!(engine.sync().is_empty());
    engine.quit();
}

impl Engine {
    /// Like `assert_silent`, but `info` lines (search progress) are allowed.
    fn assert_silent_except_info(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            if let Some(line) = self.next_line_within(left, false) {
                assert!(line.starts_with("info"), "unexpected {line:?}");
            }
        }
    }
}

#[test]
fn shogidokoro_game_with_ponder() {
    let mut engine = Engine::start();
    engine.handshake();
    // Shogidokoro sends these two whether declared or not, before its own options.
    engine.send("setoption name USI_Ponder value true");
    engine.send("setoption name USI_Hash value 16");
    engine.send("setoption name Threads value 1");
    assert!(engine.sync().is_empty());
    engine.send("usinewgame");
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..6 {
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        engine.send(&position);
        engine.send("go btime 0 wtime 0 byoyomi 3000");
        let (best, _) = engine.bestmove();
        let mv = best_of(&best).to_string();
        assert!(is_legal(None, &moves, &mv), "{best}");
        moves.push(mv);
        // Then ponder on some reply: a miss (`stop`) on even plies, a hit on odd ones.
        let mut pos = Position::startpos();
        for m in &moves {
            pos.do_move(pos.parse_move(m).unwrap());
        }
        let Some(reply) = kirin::shogi::legal_moves(&pos).into_iter().next() else {
            break;
        };
        engine.send(&format!(
            "position startpos moves {} {reply}",
            moves.join(" ")
        ));
        engine.send("go ponder btime 0 wtime 0 byoyomi 3000");
        engine.assert_silent_except_info(Duration::from_millis(30));
        if ply % 2 == 0 {
            engine.send("stop");
            engine.bestmove();
        } else {
            engine.send("ponderhit");
            let (best, _) = engine.bestmove();
            let mut after = moves.clone();
            after.push(reply.to_string());
            assert!(is_legal(None, &after, best_of(&best)), "{best}");
            moves = after;
            moves.push(best_of(&best).to_string());
        }
    }
    engine.send("gameover lose");
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn a_short_game_to_gameover_playing_both_sides() {
    let mut engine = Engine::ready();
    engine.send("usinewgame");
    let mut moves: Vec<String> = Vec::new();
    let mut result = "draw";
    for _ in 0..40 {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send("go btime 10000 wtime 10000 binc 100 winc 100");
        let (best, _) = engine.bestmove();
        match best_of(&best) {
            "resign" => {
                result = "lose";
                break;
            }
            "win" => panic!("no entering-king win this early: {best}"),
            mv => {
                assert!(is_legal(None, &moves, mv), "{best} after {moves:?}");
                moves.push(mv.to_string());
            }
        }
    }
    assert!(!moves.is_empty());
    engine.send(&format!("gameover {result}"));
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn handicap_positions_with_white_to_move() {
    let mut engine = Engine::ready();
    engine.send(&format!("position sfen {TWO_PIECE}"));
    engine.send("go byoyomi 100");
    let (best, _) = engine.bestmove();
    assert!(is_legal(Some(TWO_PIECE), &[], best_of(&best)), "{best}");
    // A handicap game a few moves in, written with and without the ply number.
    let moves = strings(&["5a4b", "7g7f", "4b3b"]);
    for sfen in [
        TWO_PIECE,
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ] {
        engine.send(&format!("position sfen {sfen} moves {}", moves.join(" ")));
        engine.send("go btime 1000 wtime 1000 byoyomi 100");
        let (best, _) = engine.bestmove();
        assert!(is_legal(Some(TWO_PIECE), &moves, best_of(&best)), "{best}");
    }
    engine.quit();
}

#[test]
fn stop_after_bestmove_is_ignored() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go depth 1");
    engine.bestmove();
    engine.send("stop");
    engine.send("stop");
    engine.send("ponderhit");
    assert!(engine.sync().is_empty());
    // And the next search is not stopped by them.
    engine.send("go infinite");
    engine.assert_silent_except_info(QUIET);
    engine.send("stop");
    engine.bestmove();
    engine.quit();
}

#[test]
fn quit_during_a_search_exits_promptly() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.assert_silent_except_info(Duration::from_millis(50));
    let asked = Instant::now();
    engine.quit();
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
}

#[test]
fn end_of_input_during_a_ponder_search_is_quit() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    engine.close_stdin();
    let status = engine.wait_exit(Duration::from_secs(5));
    assert!(status.success(), "{status}");
}

#[test]
fn repeated_position_go_pairs_get_one_bestmove_each() {
    let mut engine = Engine::ready();
    let mut moves: Vec<String> = Vec::new();
    for i in 0..60 {
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send(if i % 2 == 0 {
            "go depth 1"
        } else {
            "go nodes 100"
        });
        let (best, _) = engine.bestmove();
        let mv = best_of(&best).to_string();
        if mv == "resign" {
            break;
        }
        assert!(is_legal(None, &moves, &mv), "{best}");
        if i % 3 == 0 {
            moves.push(mv);
        }
    }
    // No stray second answer to any of them.
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn go_and_stop_or_ponderhit_back_to_back_never_hang() {
    // The signals may arrive before the search has even started.
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f");
    for i in 0..40 {
        if i % 2 == 0 {
            engine.send("go infinite");
            engine.send("stop");
        } else {
            engine.send("go ponder btime 1000 wtime 1000 byoyomi 100");
            engine.send("ponderhit btime 900 wtime 1000 byoyomi 100");
        }
        engine.bestmove();
    }
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn isready_setoption_and_usinewgame_during_a_search() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    // Applied when the search ends: its note comes after the bestmove.
    engine.send("setoption name MultiPV value 0");
    engine.send("usinewgame");
    engine.assert_silent_except_info(QUIET);
    engine.send("stop");
    engine.bestmove();
    let lines = engine.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("MultiPV") && lines[0].contains("clamped"),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn gameover_during_ponder_stops_and_returns_to_idle() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f");
    engine.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    engine.assert_silent_except_info(QUIET);
    engine.send("gameover draw");
    let (best, _) = engine.bestmove();
    assert!(is_legal(None, &strings(&["7g7f"]), best_of(&best)));
    assert!(engine.sync().is_empty());
    engine.send("usinewgame");
    engine.send("position startpos");
    engine.send("go byoyomi 100");
    engine.bestmove();
    engine.quit();
}

#[test]
fn go_during_a_search_still_answers_each_go() {
    // `go infinite` would never end: the next `go` stops it instead of waiting for it.
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.send("position startpos moves 7g7f");
    engine.send("go depth 1");
    let (first, _) = engine.bestmove();
    let (second, _) = engine.bestmove();
    assert!(is_legal(None, &[], best_of(&first)), "{first}");
    assert!(
        is_legal(None, &strings(&["7g7f"]), best_of(&second)),
        "{second}"
    );
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn no_legal_move_means_resign() {
    let mut engine = Engine::ready();
    engine.send(&format!("position sfen {WHITE_MATED}"));
    engine.send("go byoyomi 100");
    assert_eq!(engine.bestmove().0, "bestmove resign");
    engine.quit();
}

#[test]
fn bad_lines_each_give_one_error_and_keep_the_position() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f 3c3d");
    let kept = displayed_sfen(&mut engine);
    let bad_lines: &[&[u8]] = &[
        b"hello",
        b"USI",
        b"position",
        b"position sfen garbage b - 1",
        b"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
        b"position sfen 9/9/9/9/9/9/9/9/9 b - 1",
        b"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 7f7e 9z9z",
        b"position startpos moves 7g7f resign",
        b"position startpos moves 7g7f 3c3d 2b3c",
        b"go btime fast",
        b"go depth -3",
        b"go byoyomi 99999999999999999999999",
        b"go mate",
        b"\xff\xfe\xfd",
        b"position startpos moves 7g7f \xe2\x98\x83",
        b"setoption",
    ];
    for &line in bad_lines {
        engine.send_bytes(&[line, b"\n"].concat());
        let lines = engine.sync();
        assert_eq!(
            errors(&lines).len(),
            1,
            "{:?} gave {lines:?}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(lines.len(), 1, "{lines:?}");
    }
    assert_eq!(displayed_sfen(&mut engine), kept);
    engine.quit();
}

#[test]
fn illegal_moves_are_named_with_their_index() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f 3c3d 8h2b+ 3a2b 2b3c");
    let lines = engine.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("move 5 of 5") && lines[0].contains("2b3c"),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn go_before_any_position_searches_the_start_position() {
    let mut engine = Engine::ready();
    engine.send("go depth 1");
    let (best, before) = engine.bestmove();
    assert_eq!(errors(&before).len(), 1, "{before:?}");
    assert!(is_legal(None, &[], best_of(&best)), "{best}");
    engine.quit();
}

#[test]
fn bad_searchmoves_search_all_moves_after_one_error() {
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go depth 1 searchmoves 7g7f 7c7d");
    let (best, before) = engine.bestmove();
    assert_eq!(errors(&before).len(), 1, "{before:?}");
    assert!(errors(&before)[0].contains("7c7d"), "{before:?}");
    assert!(is_legal(None, &[], best_of(&best)));
    // A good list is taken without complaint.
    engine.send("go depth 1 searchmoves 2g2f");
    let (_, before) = engine.bestmove();
    assert!(errors(&before).is_empty(), "{before:?}");
    engine.quit();
}

#[test]
fn option_errors_and_notes() {
    let mut engine = Engine::ready();
    for bad in [
        "setoption name NoSuchOption value 1",
        "setoption name USI_Hash value lots",
        "setoption name USI_Hash",
        "setoption name USI_Ponder value maybe",
        "setoption name EnteringKingRule value Anything",
        "setoption name MultiPV value 1.5",
    ] {
        engine.send(bad);
        let lines = engine.sync();
        assert_eq!(errors(&lines).len(), 1, "{bad} gave {lines:?}");
        assert_eq!(lines.len(), 1, "{bad} gave {lines:?}");
    }
    // Out of range: clamped, and said so (not an error: the setting took effect).
    engine.send("setoption name MultiPV value 1000");
    let lines = engine.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("clamped to the maximum 600"), "{lines:?}");
    assert!(errors(&lines).is_empty());
    // Names match whatever their case; good values are taken silently.
    for good in [
        "setoption name usi_hash value 8",
        "setoption name USI_PONDER value TRUE",
        "setoption name enteringkingrule value tryrule",
        "setoption name BookFile value",
        "setoption name MultiPV value 3",
    ] {
        engine.send(good);
        assert!(engine.sync().is_empty(), "{good}");
    }
    // A book that is not there: one error when it is loaded, at `isready`.
    engine.send("setoption name BookFile value book/my book.db");
    let lines = engine.sync();
    assert!(
        lines.len() == 1 && lines[0].contains("my book.db"),
        "{lines:?}"
    );
    engine.send("position startpos");
    engine.send("go depth 1");
    engine.bestmove();
    engine.quit();
}

#[test]
fn go_perft_prints_the_divide_and_no_bestmove() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f");
    engine.send("go perft 3");
    let lines = engine.read_until_opts(|l| l.starts_with("Nodes searched"), true);
    let mut pos = Position::startpos();
    pos.do_move(pos.parse_move("7g7f").unwrap());
    let mut want: Vec<String> = Vec::new();
    let mut total = 0;
    for (m, n) in perft::divide(&mut pos, 3) {
        want.push(format!("{m}: {n}"));
        total += n;
    }
    want.push(format!("Nodes searched: {total}"));
    assert_eq!(lines, want);
    assert!(engine.sync().is_empty());
    // A deep perft ends on `stop`, without a bestmove.
    engine.send("go perft 12");
    engine.send("stop");
    let lines = engine.read_until_opts(|l| l == "info string perft stopped", true);
    assert!(lines.iter().any(|l| l.contains("capped at 9")), "{lines:?}");
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn go_mate_answers_with_checkmate() {
    let mut engine = Engine::ready();
    engine.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    engine.send("go mate 1000");
    let lines = engine.read_until(|l| l.starts_with("checkmate"));
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    engine.send("go mate infinite");
    engine.send("stop");
    engine.read_until(|l| l.starts_with("checkmate"));
    assert!(engine.sync().is_empty());
    engine.quit();
}

#[test]
fn eval_and_display_extensions() {
    let mut engine = Engine::ready();
    engine.send(&format!("position sfen {TWO_PIECE}"));
    engine.send("eval");
    let lines = engine.sync();
    // One line per part of the evaluation, then the total from the side to move's view.
    let (total, parts) = lines.split_last().unwrap_or_else(|| panic!("{lines:?}"));
    let cp: i32 = total
        .strip_prefix("info string eval ")
        .and_then(|rest| rest.split_once(" (side to move"))
        .and_then(|(cp, _)| cp.parse().ok())
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(parts.len() >= 5, "{lines:?}");
    let sum: i32 = parts
        .iter()
        .map(|l| {
            l.rsplit(' ')
                .next()
                .and_then(|v| v.parse::<i32>().ok())
                .unwrap_or_else(|| panic!("{l}"))
        })
        .sum();
    assert_eq!(sum, cp, "{lines:?}");
    // White is two big pieces down.
    assert!(cp < -500, "{cp}");
    assert_eq!(displayed_sfen(&mut engine), TWO_PIECE);
    engine.quit();
}

#[test]
fn overlong_lines_are_refused_whole() {
    let mut engine = Engine::ready();
    engine.send("position startpos moves 7g7f");
    // Two megabytes of one `position` line: refused unread, position kept.
    let mut line = b"position startpos moves".to_vec();
    while line.len() < 2 << 20 {
        line.extend_from_slice(b" 7g7f 3c3d");
    }
    line.push(b'\n');
    engine.send_unlogged(&line);
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(lines[0].contains("too long"), "{lines:?}");
    assert_eq!(
        displayed_sfen(&mut engine),
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    );
    engine.quit();
}

/// `go btime 0 wtime 0 nodes N` is how ShogiArena asks for a node-limited move: the nodes are
/// searched, the empty clock dropped. An empty clock alone still gets an answer at once.
#[test]
fn a_node_limit_beside_an_empty_clock_is_searched() {
    let mut engine = Engine::ready();
    engine.send("setoption name USI_OwnBook value false");
    engine.send("setoption name Threads value 1");
    engine.send("position startpos moves 7g7f");
    engine.send("go btime 0 wtime 0 nodes 30000");
    let (_, lines) = engine.bestmove();
    // The last line is the last iteration that ended under the limit, or the whole count when
    // the stopped iteration changed the first move: either way thousands of nodes, where an
    // empty clock alone answers after one short iteration.
    let searched = last_nodes(&lines);
    assert!(searched >= 10_000, "{searched} nodes");
    engine.send("go btime 0 wtime 0");
    let (_, lines) = engine.bestmove();
    let at_once = last_nodes(&lines);
    assert!(at_once < searched, "{at_once} nodes on an empty clock");
    engine.quit();
}
