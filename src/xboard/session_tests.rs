//! The session against a mock engine: a scripted stand-in that records every call and plays
//! from a fixed move list, so these tests check the protocol side only. The real engines are
//! wired to the `Engine` trait separately.

use super::*;
use crate::xboard::output::OptionKind;

#[derive(Default)]
struct MockEngine {
    calls: Vec<String>,
    played: Vec<String>,
    /// Legal in every position.
    legal: Vec<String>,
    /// Moves the engine answers with, in turn.
    replies: Vec<String>,
    /// After this many plies the first mover has won.
    won_after: Option<usize>,
}

impl MockEngine {
    fn new() -> MockEngine {
        MockEngine {
            legal: ["8k8j", "8h8g9f", "8h8g8h", "7e7d+", "7e7d", "pass"]
                .map(String::from)
                .to_vec(),
            replies: ["8e8f", "8h8g9f", "pass"].map(String::from).to_vec(),
            ..MockEngine::default()
        }
    }
}

impl Engine for MockEngine {
    fn variants(&self) -> Vec<&'static str> {
        vec!["shogi", "dai"]
    }
    fn new_game(&mut self, variant: &str) -> Result<(), String> {
        self.calls.push(format!("new_game {variant}"));
        self.played.clear();
        match variant {
            "shogi" | "dai" => Ok(()),
            _ => Err("unknown variant".into()),
        }
    }
    fn set_position(&mut self, sfen: &str) -> Result<(), String> {
        self.calls.push(format!("set_position {sfen}"));
        if sfen.starts_with("15/") {
            Ok(())
        } else {
            Err("not a dai board".into())
        }
    }
    fn play(&mut self, kirin_move: &str) -> Result<(), String> {
        self.calls.push(format!("play {kirin_move}"));
        let engine_move = self.replies.iter().any(|m| m == kirin_move);
        if self.legal.iter().any(|m| m == kirin_move) || engine_move {
            self.played.push(kirin_move.to_string());
            Ok(())
        } else {
            Err("no such move".into())
        }
    }
    fn undo(&mut self) -> bool {
        self.calls.push("undo".into());
        self.played.pop().is_some()
    }
    fn legal_moves(&self) -> Vec<String> {
        self.legal.clone()
    }
    fn side_to_move(&self) -> Side {
        if self.played.len().is_multiple_of(2) {
            Side::White
        } else {
            Side::Black
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        (Some(self.played.len()) == self.won_after).then(|| Outcome {
            winner: Some(Side::White),
            reason: "White captures the king".into(),
        })
    }
    fn search(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&Thinking),
    ) -> Option<String> {
        self.calls.push(format!(
            "search {limits:?} stopped={}",
            stop.load(Ordering::Relaxed)
        ));
        let best = self.replies.get(self.played.len() / 2)?.clone();
        report(&Thinking {
            depth: 3,
            score: 42,
            elapsed_ms: 1234,
            nodes: 999,
            pv: vec![best.clone(), "8k8j".into()],
        });
        Some(best)
    }
    fn options(&self) -> Vec<EngineOption> {
        vec![EngineOption {
            name: "Repetition".into(),
            kind: OptionKind::Check(true),
        }]
    }
    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        self.calls.push(format!("option {name}={value:?}"));
        if name == "Repetition" {
            Ok(())
        } else {
            Err("no such option".into())
        }
    }
    fn set_hash_mb(&mut self, megabytes: u64) {
        self.calls.push(format!("hash {megabytes}"));
    }
    fn set_threads(&mut self, threads: u32) {
        self.calls.push(format!("threads {threads}"));
    }
}

fn session() -> Session<MockEngine> {
    Session::new(MockEngine::new(), "kirin test")
}

/// Feeds lines and returns everything sent back, one string per line.
fn feed(session: &mut Session<MockEngine>, lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|line| session.handle(line))
        .map(|o| o.to_string())
        .collect()
}

fn dai_game() -> Session<MockEngine> {
    let mut s = session();
    feed(&mut s, &["xboard", "protover 2", "new", "variant dai"]);
    s
}

#[test]
fn the_handshake_announces_the_variants_and_options() {
    let mut s = session();
    let out = feed(&mut s, &["xboard", "protover 2"]);
    assert_eq!(out.first().map(String::as_str), Some("feature done=0"));
    assert!(out.contains(&"feature variants=\"shogi,dai\"".to_string()));
    assert!(out.contains(&"feature myname=\"kirin test\"".to_string()));
    assert!(out.contains(&"feature option=\"Repetition -check 1\"".to_string()));
    assert_eq!(out.last().map(String::as_str), Some("feature done=1"));
}

#[test]
fn variant_dai_is_answered_with_its_description() {
    let mut s = session();
    let out = feed(&mut s, &["new", "variant dai"]);
    assert!(out[0].starts_with("setup ("));
    assert!(out[0].contains("15x15+0_chu"));
    assert!(out.iter().filter(|l| l.starts_with("piece ")).count() > 40);
    assert_eq!(s.engine().calls, ["new_game shogi", "new_game dai"]);
    // Shogi XBoard knows: no description.
    assert!(feed(&mut s, &["variant shogi"]).is_empty());
    assert_eq!(
        feed(&mut s, &["variant chess"]),
        ["Error (unknown variant): variant chess"]
    );
}

#[test]
fn user_moves_reach_the_engine_in_kirins_text_and_it_answers() {
    let mut s = dai_game();
    let out = feed(&mut s, &["post", "usermove h5h6"]);
    // The engine plays Black after `new`: it thinks, shows the line in XBoard's text, moves.
    assert_eq!(out, ["3 42 123 999 h11h10 h5h6", "move h11h10"]);
    assert!(s.engine().calls.contains(&"play 8k8j".to_string()));
    assert!(s.engine().calls.contains(&"play 8e8f".to_string()));
    // The mock expected 8k8j after its move, which `hint` gives back in XBoard's text.
    assert_eq!(feed(&mut s, &["hint"]), ["Hint: h5h6"]);
}

#[test]
fn lion_moves_go_out_one_leg_per_move_command() {
    let mut s = dai_game();
    let out = feed(&mut s, &["force", "usermove h5h6", "usermove h11h10", "go"]);
    assert_eq!(out, ["move h8h9,", "move h9g10"]);
    assert_eq!(s.engine().played, ["8k8j", "8e8f", "8h8g9f"]);
    // XBoard relays a lion move as one comma-joined line.
    let mut s = dai_game();
    feed(&mut s, &["force", "usermove h8h9,h9g10"]);
    assert_eq!(s.engine().played, ["8h8g9f"]);
}

#[test]
fn illegal_and_unreadable_moves_are_refused() {
    let mut s = dai_game();
    assert_eq!(
        feed(&mut s, &["usermove h5h9"]),
        ["Illegal move (no such move): h5h9"]
    );
    assert_eq!(
        feed(&mut s, &["usermove z5h9"]),
        ["Illegal move (bad square): z5h9"]
    );
    assert_eq!(
        feed(&mut s, &["frobnicate"]),
        ["Error (unknown command): frobnicate"]
    );
    assert!(s.engine().played.is_empty());
}

#[test]
fn force_mode_plays_moves_without_thinking_and_go_takes_the_side_to_move() {
    let mut s = dai_game();
    assert!(feed(&mut s, &["force", "usermove h5h6"]).is_empty());
    assert_eq!(feed(&mut s, &["go"]), ["move h11h10"]);
    assert!(
        !s.engine()
            .calls
            .iter()
            .any(|c| c.starts_with("search") && c.contains("infinite: true"))
    );
    // `playother`: the engine takes the side not on move, so the user's move makes it think.
    let mut s = dai_game();
    assert!(feed(&mut s, &["force", "playother"]).is_empty());
    assert_eq!(feed(&mut s, &["usermove h5h6"]), ["move h11h10"]);
}

#[test]
fn the_pass_is_the_null_move() {
    let mut s = dai_game();
    feed(&mut s, &["force", "usermove @@@@"]);
    assert_eq!(s.engine().played, ["pass"]);
}

#[test]
fn clocks_and_limits_reach_the_search() {
    let mut s = dai_game();
    let out = feed(
        &mut s,
        &[
            "level 40 5 2",
            "time 30000",
            "otim 29000",
            "sd 9",
            "force",
            "usermove h5h6",
            "go",
        ],
    );
    assert_eq!(out, ["move h11h10"]);
    let search = s
        .engine()
        .calls
        .iter()
        .find(|c| c.starts_with("search"))
        .unwrap()
        .clone();
    let expected = Limits {
        move_time: None,
        depth: Some(9),
        own_time: Some(300_000),
        opponent_time: Some(290_000),
        increment: 2000,
        moves_to_go: Some(40),
        infinite: false,
    };
    assert_eq!(search, format!("search {expected:?} stopped=false"));
    let mut s = dai_game();
    feed(&mut s, &["st 3", "go"]);
    assert!(
        s.engine()
            .calls
            .iter()
            .any(|c| c.contains("move_time: Some(3000)"))
    );
}

#[test]
fn a_won_game_is_claimed_and_the_engine_stops_moving() {
    let mut s = dai_game();
    s.engine.won_after = Some(1);
    let out = feed(&mut s, &["go"]);
    assert_eq!(out, ["move h11h10", "1-0 {White captures the king}"]);
    assert!(
        feed(&mut s, &["usermove h5h6"])
            .iter()
            .all(|l| !l.starts_with("move"))
    );
}

#[test]
fn ping_undo_remove_and_result() {
    let mut s = dai_game();
    assert_eq!(feed(&mut s, &["ping 7"]), ["pong 7"]);
    feed(&mut s, &["force", "usermove h5h6", "usermove h11h10"]);
    assert!(feed(&mut s, &["remove"]).is_empty());
    assert!(s.engine().played.is_empty());
    assert_eq!(
        feed(&mut s, &["undo"]),
        ["Error (no move to take back): undo"]
    );
    feed(&mut s, &["result 1-0 {White mates}"]);
    assert!(feed(&mut s, &["usermove h5h6"]).is_empty());
}

#[test]
fn setboard_turns_xboards_fen_into_kirins_sfen() {
    let mut s = dai_game();
    let board = "15/15/15/15/15/15/15/7K7/15/15/15/15/15/15/7k7";
    assert!(feed(&mut s, &[&format!("setboard {board} w - - 0 1")]).is_empty());
    assert!(
        s.engine()
            .calls
            .contains(&format!("set_position {board} b - 1"))
    );
    let out = feed(&mut s, &["setboard 9/9 b - - 0 1"]);
    assert_eq!(out, ["telluser Illegal position: not a dai board"]);
    assert_eq!(
        feed(&mut s, &["setboard 15/15"]),
        ["telluser Illegal position: no side to move"]
    );
}

#[test]
fn options_memory_and_cores_reach_the_engine() {
    let mut s = dai_game();
    assert!(feed(&mut s, &["memory 256", "cores 4", "option Repetition=0"]).is_empty());
    assert_eq!(
        feed(&mut s, &["option Bogus=1"]),
        ["Error (no such option): option Bogus"]
    );
    let calls = &s.engine().calls;
    for wanted in ["hash 256", "threads 4", "option Repetition=Some(\"0\")"] {
        assert!(calls.contains(&wanted.to_string()), "{wanted}");
    }
}

#[test]
fn lifting_a_piece_marks_its_targets() {
    let mut s = dai_game();
    let out = feed(&mut s, &["lift h8", "lift i11", "lift h5"]);
    // The lion on h8: h9 begins its double move and igui: cyan, XBoard waits for the second leg.
    assert!(out[0].starts_with("highlight "));
    let rows: Vec<&str> = out[0]["highlight ".len()..].split('/').collect();
    assert_eq!(rows[15 - 9], "7C7");
    // 7e7d promotes or not: magenta, the promotion choice.
    let rows: Vec<&str> = out[1]["highlight ".len()..].split('/').collect();
    assert_eq!(rows[15 - 12], "8M6");
    let rows: Vec<&str> = out[2]["highlight ".len()..].split('/').collect();
    assert_eq!(rows[15 - 6], "7Y7");
    assert_eq!(feed(&mut s, &["lift 8h"]), ["Error (bad square): lift 8h"]);
}

#[test]
fn analysis_searches_every_new_position_until_exit() {
    let mut s = dai_game();
    let out = feed(&mut s, &["analyze"]);
    assert_eq!(out.len(), 1);
    feed(&mut s, &["usermove h5h6"]);
    let infinite = s
        .engine()
        .calls
        .iter()
        .filter(|c| c.contains("infinite: true"))
        .count();
    assert_eq!(infinite, 2);
    feed(&mut s, &["exit", "usermove h11h10"]);
    assert_eq!(
        s.engine()
            .calls
            .iter()
            .filter(|c| c.contains("infinite: true"))
            .count(),
        2
    );
}

#[test]
fn quit_raises_the_stop_flag() {
    let mut s = dai_game();
    let stop = s.stop_flag();
    feed(&mut s, &["quit"]);
    assert!(s.finished());
    assert!(stop.load(Ordering::Relaxed));
}
