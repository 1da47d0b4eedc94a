//! Yari shogi through the USI front end and the command line, as a GUI that speaks
//! Fairy-Stockfish's variant option drives it: the option, positions, searches, perft, the
//! one-line errors, and the way back to standard shogi. Move legality is checked with
//! `kirin::yari`, whose move sets `tests/yari.rs` compares with pyffish.

mod common;

use common::{Engine, bench_nodes, best_of, errors, kirin_cli, last_score};
use kirin::yari::Position;

const DROPS: &str = "5nk/1B1P3/2N2+P1/7/7/7/7/7/3K3 b RPrb2p 1";

fn yari_engine() -> Engine {
    let mut engine = Engine::ready();
    engine.send("setoption name UCI_Variant value yarishogi");
    let noise = engine.sync();
    assert!(errors(&noise).is_empty(), "{noise:?}");
    // One line says what of standard shogi does not carry over.
    assert_eq!(noise.len(), 1, "{noise:?}");
    assert!(noise[0].contains("opening book"), "{noise:?}");
    engine
}

/// The position after `moves` from the yari start, checking each move is legal there.
fn yari_after(moves: &[String]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{m} after {moves:?}: {e}"));
        pos.do_move(mv);
    }
    pos
}

#[test]
fn the_variant_options_are_declared_as_combos() {
    let mut engine = Engine::start();
    let options = engine.handshake();
    for name in ["UCI_Variant", "USI_Variant"] {
        let line = options
            .iter()
            .find(|l| l.starts_with(&format!("option name {name} ")))
            .unwrap_or_else(|| panic!("{name} not declared: {options:?}"));
        assert_eq!(
            line,
            &format!(
                "option name {name} type combo default shogi var shogi var yarishogi var daishogi"
            )
        );
    }
    engine.quit();
}

#[test]
fn a_game_of_yari_shogi_is_played_with_legal_moves_only() {
    let mut engine = yari_engine();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..40 {
        let pos = yari_after(&moves);
        if pos.legal_moves().is_empty() {
            break;
        }
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send("go nodes 4000");
        let (best, info) = engine.bestmove();
        assert!(errors(&info).is_empty(), "{info:?}");
        let mv = best_of(&best).to_string();
        if mv == "resign" {
            break;
        }
        assert!(
            pos.parse_move(&mv).is_ok(),
            "{mv} is not legal after {moves:?}; {best}"
        );
        // The pondered reply must be legal after the move too.
        if let Some(ponder) = best.split_whitespace().nth(3) {
            let mut after = pos.clone();
            after.do_move(pos.parse_move(&mv).unwrap());
            assert!(after.parse_move(ponder).is_ok(), "{best} after {moves:?}");
        }
        moves.push(mv);
    }
    assert!(moves.len() >= 20, "the game ended early: {moves:?}");
    engine.quit();
}

#[test]
fn a_pawn_drop_mate_is_played_in_yari_shogi() {
    let mut engine = yari_engine();
    engine.send(&format!("position sfen {DROPS}"));
    engine.send("go depth 3");
    let (best, info) = engine.bestmove();
    assert_eq!(best_of(&best), "P*1b", "{info:?}");
    assert!(info.iter().any(|l| l.contains("score mate 1 ")), "{info:?}");
    engine.quit();
}

#[test]
fn the_impasse_count_is_called_with_bestmove_win() {
    let mut engine = yari_engine();
    // Both kings have entered: 4 rooks, 4 bishops and 2 pawns (42 points) against 1.
    for (sfen, declares) in [
        ("3K3/7/7/7/7/7/7/7/3k3 b 4R4B2Pp 1", true),
        // The side with 1 point plays on (and loses to the call that follows).
        ("3K3/7/7/7/7/7/7/7/3k3 w 4R4B2Pp 1", false),
        // 2 rooks, 2 bishops and 6 pawns each: 26 to 26 is a draw, not a win to call.
        ("3K3/7/7/7/7/7/7/7/3k3 b 2R2B6P2r2b6p 1", false),
        // The same count with Black's king still at home.
        ("7/7/7/7/7/7/7/7/3K2k b 4R4B2Pp 1", false),
    ] {
        engine.send(&format!("position sfen {sfen}"));
        engine.send("go depth 2");
        let (best, info) = engine.bestmove();
        assert_eq!(best_of(&best) == "win", declares, "{sfen}: {best} {info:?}");
    }
    engine.quit();
}

#[test]
fn perft_counts_yari_moves() {
    let mut engine = yari_engine();
    engine.send("position startpos");
    engine.send("go perft 3");
    let lines = engine.read_until_opts(|l| l.starts_with("Nodes searched"), true);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 7960")
    );
    assert_eq!(lines.len(), 21, "one line per root move: {lines:?}");
    engine.quit();
}

#[test]
fn standard_input_in_yari_shogi_gets_one_line_errors() {
    let mut engine = yari_engine();
    engine.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(lines[0].contains("bad sfen"), "{lines:?}");
    // A rejected position is never searched: the answer is to resign.
    engine.send("go btime 0 wtime 0 byoyomi 100");
    let (best, _) = engine.bestmove();
    assert_eq!(best, "bestmove resign");

    engine.send("position startpos moves 9g9f");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(lines[0].contains("7-file"), "{lines:?}");

    engine.send("position startpos moves 7g7f");
    engine.send("go mate 1000");
    let lines = engine.read_until(|l| l.starts_with("checkmate"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some("checkmate notimplemented")
    );
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");

    engine.send("setoption name UCI_Variant value chess");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.quit();
}

#[test]
fn the_variant_can_be_switched_back_and_forth() {
    let mut engine = yari_engine();
    engine.send("position startpos");
    engine.send("go depth 2");
    let (best, _) = engine.bestmove();
    assert!(
        Position::startpos().parse_move(best_of(&best)).is_ok(),
        "{best}"
    );

    // `USI_Variant` is the same option; a position sent right after it is read in the new game,
    // even while a search is still running.
    engine.send("position startpos");
    engine.send("go infinite");
    engine.send("setoption name USI_Variant value shogi");
    engine.send("position startpos moves 7g7f");
    engine.send("stop");
    let (best, _) = engine.bestmove();
    assert!(
        Position::startpos().parse_move(best_of(&best)).is_ok(),
        "{best}"
    );
    engine.send("go depth 2");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    assert!(
        common::is_legal(None, &["7g7f".to_string()], best_of(&best)),
        "{best} is not a standard reply to 7g7f"
    );
    engine.quit();
}

/// The `go depth 6` search of the start position: its last score and its move.
fn start_search(engine: &mut Engine) -> (String, String) {
    // A new game: nothing from the hash table of an earlier search.
    engine.send("usinewgame");
    engine.send("position startpos");
    engine.send("go depth 6");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    (last_score(&info), best)
}

#[test]
fn eval_file_takes_a_yari_weights_file() {
    let mut engine = yari_engine();
    // One thread: the same search gives the same answer.
    engine.send("setoption name Threads value 1");
    let shipped = start_search(&mut engine);
    let dir = std::env::temp_dir().join(format!("kirin-yari-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("src/eval/yari_weights.txt").unwrap();

    // The tempo alone raised by a thousand: the start is worth that much more to the mover.
    let tempo: i64 = text
        .lines()
        .find_map(|l| l.strip_prefix("tempo "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let eager = dir.join("eager.txt");
    std::fs::write(
        &eager,
        text.replace(
            &format!("tempo {tempo}\n"),
            &format!("tempo {}\n", tempo + 1000),
        ),
    )
    .unwrap();
    engine.send(&format!(
        "setoption name EvalFile value {}",
        eager.display()
    ));
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("yari weights")),
        "{lines:?}"
    );
    let (score, best) = start_search(&mut engine);
    let cp = |s: &str| s.strip_prefix("cp ").unwrap().parse::<i64>().unwrap();
    assert!(
        cp(&score) > cp(&shipped.0) + 300,
        "{shipped:?} then {score}"
    );
    assert!(best.starts_with("bestmove "), "{best}");

    // A file that is not yari weights: one error, the shipped weights play.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "material 1 2 3\n").unwrap();
    engine.send(&format!("setoption name EvalFile value {}", bad.display()));
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert_eq!(start_search(&mut engine), shipped);
    engine.quit();
}

#[test]
fn the_command_line_counts_and_benches_yari_shogi() {
    let out = kirin_cli(&["perft", "--variant", "yari", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("Nodes searched: 7960"));
    let out = kirin_cli(&["perft", "--variant", "yarishogi", "2", "sfen", DROPS]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().last(),
        Some("Nodes searched: 17944")
    );
    let out = kirin_cli(&["perft", "--variant", "chess", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant"));

    // With one thread the node count is the search's signature: the same twice.
    let a = bench_nodes(&["bench", "--variant", "yari", "6"]);
    let b = bench_nodes(&["bench", "--variant", "yari", "6"]);
    assert_eq!(a, b);
    assert!(a.parse::<u64>().unwrap() > 1000, "{a}");
}
