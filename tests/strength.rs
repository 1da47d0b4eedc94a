//! Strength levels over USI: `SkillLevel` (and `Skill Level`), `UCI_LimitStrength` with
//! `UCI_Elo`, what they weaken and what they leave alone.

mod common;

use common::{Engine, best_of, is_legal, last_nodes};
use std::time::Duration;

/// A weakened engine, answering at once (`LimitStrengthDelay` off), without the book.
fn weakened(option: &str, value: &str, seed: u32) -> Engine {
    let mut e = Engine::ready();
    e.send("setoption name LimitStrengthDelay value false");
    e.send("setoption name USI_OwnBook value false");
    e.send(&format!("setoption name LimitStrengthSeed value {seed}"));
    e.send(&format!("setoption name {option} value {value}"));
    let noise = e.sync();
    assert!(noise.iter().all(|l| !l.contains("error")), "{noise:?}");
    e
}

/// Plays `go byoyomi 10000` from `position` and returns the move and the lines before it.
fn play(e: &mut Engine, position: &str) -> (String, Vec<String>) {
    e.send(position);
    e.send("go btime 0 wtime 0 byoyomi 10000");
    let (best, lines) = e.bestmove();
    (best_of(&best).to_string(), lines)
}

/// Reads what the engine says for `wait`; none of it may be `bestmove`.
fn no_bestmove_for(e: &mut Engine, wait: Duration) -> Vec<String> {
    let end = std::time::Instant::now() + wait;
    let mut lines = Vec::new();
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match e.next_line_within(left, false) {
            Some(line) => {
                assert!(!line.starts_with("bestmove"), "{line} too early");
                lines.push(line);
            }
            None => break,
        }
    }
    lines
}

const OPENING: &str = "position startpos moves 7g7f 3c3d 2g2f 4c4d";

#[test]
fn a_level_searches_its_node_budget_whatever_the_clock() {
    // Ten seconds a move, yet a weak level stops after its budget: the budget, not the
    // clock, sets its strength. Full strength on the same clock searches far more.
    let mut weak = weakened("SkillLevel", "3", 1);
    let (mv, lines) = play(&mut weak, OPENING);
    assert!(is_legal(
        None,
        &["7g7f", "3c3d", "2g2f", "4c4d"].map(String::from),
        &mv
    ));
    let weak_nodes = last_nodes(&lines);
    weak.quit();
    let mut full = Engine::ready();
    full.send("setoption name USI_OwnBook value false");
    full.send(OPENING);
    full.send("go btime 0 wtime 0 byoyomi 10000 nodes 200000");
    let (_, lines) = full.bestmove();
    let full_nodes = last_nodes(&lines);
    full.quit();
    assert!(weak_nodes < 20_000, "level 3 searched {weak_nodes} nodes");
    assert!(
        full_nodes > 10 * weak_nodes,
        "{full_nodes} against {weak_nodes}"
    );
}

#[test]
fn weak_levels_vary_their_moves_and_strong_levels_play_the_best() {
    // The same position under 12 seeds: level 0 plays several different moves, level 15
    // (whose noise mixes only near-equal lines) fewer.
    let moves_under = |level: &str| {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 1..=12 {
            let mut e = weakened("SkillLevel", level, seed);
            let (mv, _) = play(&mut e, OPENING);
            seen.insert(mv);
            e.quit();
        }
        seen
    };
    let weak = moves_under("0");
    let strong = moves_under("15");
    assert!(weak.len() >= 3, "level 0 played {weak:?}");
    assert!(strong.len() < weak.len(), "{strong:?} against {weak:?}");
}

#[test]
fn no_level_misses_a_mate_in_one() {
    for (level, seed) in [("0", 1), ("0", 2), ("0", 3), ("5", 4), ("12", 5)] {
        let mut e = weakened("SkillLevel", level, seed);
        let (mv, _) = play(&mut e, "position sfen 4k4/9/4P4/9/9/9/9/9/K8 b G 1");
        assert_eq!(mv, "G*5b", "level {level} seed {seed}");
        e.quit();
    }
}

#[test]
fn skill_level_with_a_space_is_the_same_option_and_limit_strength_wins() {
    let mut e = Engine::ready();
    e.send("setoption name Skill Level value 4");
    let lines = e.sync();
    assert!(lines.is_empty(), "{lines:?}");
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1500");
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string UCI_LimitStrength is on")
                && l.contains("UCI_Elo 1500")
                && l.contains("SkillLevel 4")),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn analysis_multipv_and_infinite_are_never_weakened() {
    // MultiPV 3 at level 0: three lines, searched as deep as asked.
    let mut e = weakened("SkillLevel", "0", 1);
    e.send("setoption name MultiPV value 3");
    e.sync();
    e.send(OPENING);
    e.send("go depth 6");
    let (_, lines) = e.bestmove();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(" depth 6 ") && l.contains("multipv 3"))
    );
    // go infinite at level 0 goes past the level's budget until `stop`.
    e.send("setoption name MultiPV value 1");
    e.sync();
    e.send(OPENING);
    e.send("go infinite");
    let mut lines = no_bestmove_for(&mut e, Duration::from_millis(1500));
    e.send("stop");
    lines.extend(e.bestmove().1);
    assert!(last_nodes(&lines) > 20_000, "{lines:?}");
    e.quit();
}

#[test]
fn a_pondering_level_waits_for_ponderhit() {
    let mut e = weakened("SkillLevel", "0", 1);
    e.send(OPENING);
    e.send("go ponder btime 0 wtime 0 byoyomi 1000");
    // Its budget is spent at once, but the answer waits for the GUI.
    no_bestmove_for(&mut e, Duration::from_millis(1000));
    e.send("ponderhit");
    let (best, _) = e.bestmove();
    assert!(best.starts_with("bestmove "));
    e.quit();
}
