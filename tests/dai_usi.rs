//! Dai shogi through the USI front end and the command line: the variant option, positions
//! with dai move text, searches that keep and take royals, perft against the reference table,
//! and one-line errors. Move legality is checked with `kirin::dai`, whose move generation
//! `tests/dai.rs` checks against the perft table and an independent generator.

mod common;

use common::{Engine, bench_nodes, best_of, errors, kirin_cli, last_score};
use kirin::dai::Position;

fn dai_engine() -> Engine {
    let mut engine = Engine::ready();
    engine.send("setoption name UCI_Variant value daishogi");
    let noise = engine.sync();
    assert!(errors(&noise).is_empty(), "{noise:?}");
    assert_eq!(noise.len(), 1, "{noise:?}");
    assert!(noise[0].contains("opening book"), "{noise:?}");
    engine
}

/// The position after `moves` from the dai start, checking each move is legal there.
fn dai_after(moves: &[String]) -> Position {
    let mut pos = Position::startpos();
    for m in moves {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{m} after {moves:?}: {e}"));
        pos.do_move(mv);
    }
    pos
}

/// A dai SFEN with the given pieces (`(file, rank letter, SFEN letters)`) on an empty board.
fn sfen_with(pieces: &[(u8, char, &str)], side: char) -> String {
    let mut ranks = Vec::new();
    for rank in 'a'..='o' {
        let mut text = String::new();
        let mut empty = 0;
        for file in (1..=15u8).rev() {
            match pieces.iter().find(|p| p.0 == file && p.1 == rank) {
                Some(p) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push_str(p.2);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        ranks.push(text);
    }
    format!("{} {side} - 1", ranks.join("/"))
}

/// The dai perft count of the start position at `depth`, from the reference table (`tests/data/perft.tsv`).
fn table_count(depth: u32) -> u64 {
    let text = std::fs::read_to_string("tests/data/perft.tsv").expect("tests/data/perft.tsv");
    text.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.len() >= 5 && f[0] == "dai" && f[1] == "startpos" && f[3] == depth.to_string())
        .and_then(|f| f[4].parse().ok())
        .expect("a dai startpos row")
}

#[test]
fn a_game_of_dai_shogi_is_played_with_legal_moves_only() {
    let mut engine = dai_engine();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..30 {
        let pos = dai_after(&moves);
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send("go nodes 3000");
        let (best, info) = engine.bestmove();
        assert!(errors(&info).is_empty(), "{info:?}");
        let mv = best_of(&best).to_string();
        assert!(
            pos.parse_move(&mv).is_ok(),
            "{mv} is not legal after {moves:?}; {best}"
        );
        if let Some(ponder) = best.split_whitespace().nth(3) {
            let mut after = pos.clone();
            after.do_move(pos.parse_move(&mv).unwrap());
            assert!(after.parse_move(ponder).is_ok(), "{best} after {moves:?}");
        }
        moves.push(mv);
    }
    engine.quit();
}

#[test]
fn the_last_royal_is_taken_when_it_can_be() {
    let mut engine = dai_engine();
    // White's only royal on 8a, Black's rook on 8c with nothing between.
    let sfen = sfen_with(
        &[(8, 'a', "k"), (3, 'a', "g"), (8, 'c', "R"), (8, 'o', "K")],
        'b',
    );
    engine.send(&format!("position sfen {sfen}"));
    engine.send("go depth 3");
    let (best, info) = engine.bestmove();
    assert!(best_of(&best).starts_with("8c8a"), "{best} {info:?}");
    assert!(info.iter().any(|l| l.contains("score mate 1 ")), "{info:?}");
    engine.quit();
}

#[test]
fn a_royal_en_prise_is_saved() {
    let mut engine = dai_engine();
    // White's rook on 8f attacks Black's only royal on 8o down the open file.
    let sfen = sfen_with(
        &[(8, 'a', "k"), (8, 'f', "r"), (8, 'o', "K"), (1, 'o', "G")],
        'b',
    );
    engine.send(&format!("position sfen {sfen}"));
    engine.send("go depth 4");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    let mut pos = Position::from_sfen(&sfen).unwrap();
    let mv = pos
        .parse_move(best_of(&best))
        .unwrap_or_else(|e| panic!("{best}: {e}"));
    pos.do_move(mv);
    for reply in pos.legal_moves() {
        pos.do_move(reply);
        assert!(
            pos.royals(kirin::shogi::Color::Black) > 0,
            "{best} lets {reply} take the king"
        );
        pos.undo_move();
    }
    engine.quit();
}

#[test]
fn the_declined_pawn_rule_is_an_option() {
    // Black's pawn enters the zone on 11e declining the promotion; White's rook waits on 11d.
    let sfen = sfen_with(
        &[
            (15, 'a', "k"),
            (11, 'd', "r"),
            (11, 'f', "P"),
            (8, 'o', "K"),
        ],
        'b',
    );
    let game = format!("position sfen {sfen} moves 11f11e 15a15b");
    let mut engine = dai_engine();
    // dai.md's rule (the default): taking the rook is a promotion chance, and kirin takes it.
    engine.send(&game);
    engine.send("go depth 3");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    assert_eq!(best_of(&best), "11e11d+", "{best} {info:?}");
    // HaChu's rule: the pawn that declined takes without promoting; the promotion is refused.
    engine.send("setoption name DaiDeclinedPawn value last-rank");
    engine.send(&game);
    engine.send("go depth 3");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    assert_eq!(best_of(&best), "11e11d", "{best} {info:?}");
    engine.send(&format!("{game} 11e11d+"));
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.send("setoption name DaiDeclinedPawn value sometimes");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.quit();
}

#[test]
fn perft_counts_dai_moves_as_the_table_does() {
    let mut engine = dai_engine();
    engine.send("position startpos");
    engine.send("go perft 2");
    let lines = engine.read_until_opts(|l| l.starts_with("Nodes searched"), true);
    assert_eq!(
        lines.last().cloned(),
        Some(format!("Nodes searched: {}", table_count(2)))
    );
    assert_eq!(lines.len() as u64, table_count(1) + 1, "{lines:?}");
    engine.quit();
}

#[test]
fn other_games_input_in_dai_shogi_gets_one_line_errors() {
    let mut engine = dai_engine();
    engine.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(lines[0].contains("bad sfen"), "{lines:?}");
    engine.send("go btime 0 wtime 0 byoyomi 100");
    let (best, _) = engine.bestmove();
    assert_eq!(best, "bestmove resign");

    // 7g7f is move syntax, but no dai piece stands on 7g.
    engine.send("position startpos moves 7g7f");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.send("position startpos moves P*5e");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");

    engine.send("position startpos");
    engine.send("go mate 1000");
    let lines = engine.read_until(|l| l.starts_with("checkmate"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some("checkmate notimplemented")
    );

    // Back to standard shogi: the same text is a standard move again.
    engine.send("setoption name UCI_Variant value shogi");
    engine.send("position startpos moves 7g7f");
    engine.send("go depth 2");
    let (best, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    assert!(
        common::is_legal(None, &["7g7f".to_string()], best_of(&best)),
        "{best}"
    );
    engine.quit();
}

/// The score of `go depth 1` in `sfen`, in a new game.
fn depth_one_score(engine: &mut Engine, sfen: &str) -> i64 {
    // A new game: nothing from the hash table of an earlier search.
    engine.send("usinewgame");
    engine.send(&format!("position sfen {sfen}"));
    engine.send("go depth 1");
    let (_, info) = engine.bestmove();
    assert!(errors(&info).is_empty(), "{info:?}");
    let score = last_score(&info);
    let cp = score
        .strip_prefix("cp ")
        .unwrap_or_else(|| panic!("{score}"));
    cp.parse().unwrap()
}

#[test]
fn eval_file_takes_a_dai_weights_file() {
    let mut engine = dai_engine();
    // One thread: the same search gives the same answer.
    engine.send("setoption name Threads value 1");
    // Black has a rook more; the royals far apart.
    let sfen = sfen_with(&[(8, 'a', "k"), (1, 'h', "R"), (8, 'o', "K")], 'b');
    let default = depth_one_score(&mut engine, &sfen);
    assert!((400..=1200).contains(&default), "{default}");

    // The shipped file with the rook worth ten times as much.
    let dir = std::env::temp_dir().join(format!("kirin-dai-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("src/eval/dai_weights.txt").unwrap();
    let rook = text
        .lines()
        .find_map(|l| l.strip_prefix("material rook "))
        .unwrap()
        .trim()
        .parse::<i64>()
        .unwrap();
    let heavy = dir.join("heavy-rook.txt");
    std::fs::write(
        &heavy,
        text.replace(
            &format!("material rook {rook}\n"),
            &format!("material rook {}\n", rook * 10),
        ),
    )
    .unwrap();
    engine.send(&format!(
        "setoption name EvalFile value {}",
        heavy.display()
    ));
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("dai weights")), "{lines:?}");
    let scored = depth_one_score(&mut engine, &sfen);
    // The score reported is not in evaluation units, but grows with them.
    assert!(scored >= default + 2 * rook, "{default} then {scored}");

    // A file with a line the format does not have: one error, the shipped weights play.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, text.replace("tempo ", "tempo_typo ")).unwrap();
    engine.send(&format!("setoption name EvalFile value {}", bad.display()));
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(errors(&lines)[0].contains("tempo_typo"), "{lines:?}");
    assert_eq!(depth_one_score(&mut engine, &sfen), default);
    engine.quit();
}

#[test]
fn the_command_line_counts_and_benches_dai_shogi() {
    let out = kirin_cli(&["perft", "--variant", "dai", "2"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().last().map(str::to_string),
        Some(format!("Nodes searched: {}", table_count(2)))
    );
    // With one thread the node count is the search's signature: the same twice.
    let a = bench_nodes(&["bench", "--variant", "daishogi", "5"]);
    let b = bench_nodes(&["bench", "--variant", "daishogi", "5"]);
    assert_eq!(a, b);
    assert!(a.parse::<u64>().unwrap() > 0);
}

/// Ply 522 of a game at 300 ms a move: kirin (Black) played `6j6k`, HaChu answered `8k8m` and
/// took Black's king three plies later with a horned falcon's double move. The search alone
/// still picks `6j6k` at 50,000 and 100,000 nodes; the safety test of the move to play must
/// turn it down, and what is played instead must not lose to a mate the solver finds with
/// far more nodes. (Should the search one day avoid `6j6k` by itself at every count, the
/// position no longer exercises the test and needs replacing.)
#[test]
fn a_move_that_loses_by_force_is_not_played() {
    let sfen = "7t7/5x'k8/5c'gtga'2n2/5iweiux'4/m13m/7dp6/10pP2f'/2P3s3p'1X2/N10+R3/1PX'M1U3M5/3I3+x7/9E2A'X'1/3A'1CO8/2C'2TKT2F1C'2/5SGG1S5 b - 523";
    let mut turned_down = 0;
    for nodes in [50_000, 100_000] {
        let mut engine = dai_engine();
        engine.send("setoption name DaiDeclinedPawn value last-rank");
        engine.send(&format!("position sfen {sfen}"));
        engine.send(&format!("go nodes {nodes}"));
        let (best, info) = engine.bestmove();
        assert!(errors(&info).is_empty(), "{info:?}");
        if info
            .iter()
            .any(|l| l.starts_with("info string 6j6k loses by force; playing "))
        {
            turned_down += 1;
        }
        let mut pos = Position::from_sfen(sfen).unwrap();
        pos.set_rules(kirin::dai::Rules {
            declined_pawn: kirin::dai::DeclinedPawnRule::LastRankOnly,
            ..pos.rules()
        });
        let mv = pos.parse_move(best_of(&best)).unwrap();
        assert_ne!(best_of(&best), "6j6k", "{info:?}");
        pos.do_move(mv);
        let found = kirin::dai::mate::MateSearch::new(200_000, 21).solve(&mut pos);
        assert!(
            !matches!(found, kirin::dai::mate::MateResult::Mate(_)),
            "{best} loses: {found:?}"
        );
        engine.quit();
    }
    assert!(turned_down > 0, "the search never chose 6j6k here");
}
