use super::*;

fn engine() -> KirinEngine {
    KirinEngine::new(Arc::new(Interrupts::default()))
}

fn timed(ms: u64) -> Limits {
    Limits {
        move_time: Some(ms),
        ..Limits::default()
    }
}

#[test]
fn variants_come_from_the_one_table() {
    let mut e = engine();
    assert_eq!(e.variants(), vec!["shogi", "dai"]);
    assert!(e.new_game("dai").is_ok());
    assert_eq!(e.game.name(), "daishogi");
    assert!(e.new_game("shogi").is_ok());
    assert_eq!(e.game.name(), "shogi");
    assert!(e.new_game("chess").is_err());
    assert_eq!(e.game.name(), "shogi", "a refused variant keeps the game");
}

#[test]
fn moves_are_played_refused_and_taken_back() {
    let mut e = engine();
    e.new_game("shogi").unwrap();
    assert_eq!(
        e.side_to_move(),
        Side::White,
        "sente moves first, XBoard's White"
    );
    assert!(e.play("7g7f").is_ok());
    assert_eq!(e.side_to_move(), Side::Black);
    assert!(
        e.play("7g7f").is_err(),
        "sente's pawn again, but gote is to move"
    );
    assert!(e.play("3c3d").is_ok());
    let after_two = e.game.sfen();
    assert!(e.undo());
    assert!(e.play("3c3d").is_ok());
    assert_eq!(e.game.sfen(), after_two);
    assert!(e.undo() && e.undo());
    assert!(!e.undo(), "nothing left to take back");
    assert_eq!(e.side_to_move(), Side::White);
}

#[test]
fn undo_after_setboard_returns_to_that_position() {
    let mut e = engine();
    e.new_game("shogi").unwrap();
    let sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    e.set_position(sfen).unwrap();
    assert_eq!(e.side_to_move(), Side::Black);
    e.play("3c3d").unwrap();
    assert!(e.undo());
    assert_eq!(e.game.sfen(), sfen);
    assert!(e.set_position("not a position").is_err());
    assert_eq!(e.game.sfen(), sfen, "a refused position changes nothing");
}

#[test]
fn no_legal_move_loses_for_the_side_to_move() {
    let mut e = engine();
    e.new_game("shogi").unwrap();
    assert_eq!(e.outcome(), None);
    // Gote's king on 1a; sente's gold on 1b, guarded by a lance, covers every square.
    e.set_position("8k/8G/8L/9/9/9/9/9/K8 w - 1").unwrap();
    assert!(e.legal_moves().is_empty());
    let outcome = e.outcome().expect("over");
    assert_eq!(outcome.winner, Some(Side::White));
}

#[test]
fn a_timed_search_returns_a_legal_move_in_dai() {
    let mut e = engine();
    e.new_game("dai").unwrap();
    e.set_hash_mb(8);
    let mut lines = 0;
    let best = e
        .search(&timed(200), &AtomicBool::new(false), &mut |_| lines += 1)
        .expect("a move");
    assert!(e.legal_moves().contains(&best), "{best}");
    assert!(lines > 0, "thinking lines are reported");
}

#[test]
fn a_pending_interrupt_ends_an_infinite_search() {
    let interrupts = Arc::new(Interrupts::default());
    let mut e = KirinEngine::new(Arc::clone(&interrupts));
    e.set_hash_mb(8);
    let analyse = Limits {
        infinite: true,
        ..Limits::default()
    };
    interrupts.raise(Interrupt::Stop);
    let best = e.search(&analyse, &AtomicBool::new(false), &mut |_| {});
    assert!(best.is_some(), "a stopped search keeps its move");
    interrupts.lower(Interrupt::Stop);
    interrupts.raise(Interrupt::Abandon);
    let best = e.search(&analyse, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(best, None, "an abandoned search sends nothing");
    interrupts.lower(Interrupt::Abandon);
    interrupts.lower(Interrupt::Abandon);
    assert!(!interrupts.stopping(), "counts never go below zero");
}

#[test]
fn the_session_stop_flag_ends_a_search() {
    let mut e = engine();
    e.set_hash_mb(8);
    let analyse = Limits {
        infinite: true,
        ..Limits::default()
    };
    let best = e.search(&analyse, &AtomicBool::new(true), &mut |_| {});
    assert!(best.is_some());
}

#[test]
fn a_lions_pass_is_told_from_its_other_moves() {
    let mut e = engine();
    e.new_game("dai").unwrap();
    e.set_position("7k7/15/15/15/15/15/15/7L!7/15/15/15/15/15/15/7K7 b - 1")
        .unwrap();
    let pass = e.game.parse_move("pass").expect("the lion can pass");
    assert!(e.is_pass(&pass), "{pass}");
    let others: Vec<String> = e.legal_moves().into_iter().filter(|m| *m != pass).collect();
    assert!(others.len() > 20);
    assert!(others.iter().all(|m| !e.is_pass(m)));
    e.new_game("shogi").unwrap();
    assert!(!e.is_pass("7g7f"), "standard shogi has no pass");
}

#[test]
fn moves_to_go_caps_the_time_share() {
    let e = engine();
    let limits = Limits {
        own_time: Some(600_000),
        moves_to_go: Some(1000),
        ..Limits::default()
    };
    let clock = e.clock(&limits).expect("a clock");
    assert!(clock.time_left < 600_000);
    let st = e.clock(&timed(60_000)).expect("a clock");
    assert_eq!(
        st.movetime,
        Some(57_000),
        "a twentieth of `st` is left for the pipes"
    );
    assert_eq!(e.clock(&Limits::default()), None);
}

#[test]
fn mate_scores_use_xboards_convention() {
    let info = |score| search::PvInfo {
        depth: 3,
        seldepth: 3,
        multipv: 1,
        score,
        bound: search::ScoreBound::Exact,
        nodes: 10,
        nps: 0,
        time_ms: 5,
        hashfull: 0,
        pv: vec!["7g7f".to_string()],
    };
    assert_eq!(thinking(&info(Score::Mate(3))).unwrap().score, 100_002);
    assert_eq!(thinking(&info(Score::Mate(-2))).unwrap().score, -100_001);
    assert_eq!(thinking(&info(Score::Mate(0))).unwrap().score, -100_000);
}

#[test]
fn the_strength_levels_and_the_dai_rule_are_offered_as_usi_declares_them() {
    let e = engine();
    let offered: Vec<String> = e.options().iter().map(ToString::to_string).collect();
    assert_eq!(
        offered,
        [
            "SkillLevel -spin 20 0 20",
            "LimitStrengthDelay -check 1",
            "DaiDeclinedPawn -combo keep-chances /// last-rank",
        ]
    );
}

#[test]
fn options_are_checked_and_a_check_reads_xboards_zero_and_one() {
    let mut e = engine();
    assert!(e.set_option("SkillLevel", Some("3")).is_ok());
    assert!(e.set_option("LimitStrengthDelay", Some("0")).is_ok());
    assert!(!e.options.search_options().skill.expect("level 3").holds());
    assert!(e.set_option("LimitStrengthDelay", Some("1")).is_ok());
    assert!(e.options.search_options().skill.expect("level 3").holds());
    assert!(e.set_option("SkillLevel", Some("strong")).is_err());
    assert!(e.set_option("DaiDeclinedPawn", Some("never")).is_err());
    assert!(
        e.set_option("Threads", Some("4")).is_err(),
        "USI options XBoard has commands for are not offered"
    );
    e.new_game("dai").unwrap();
    e.play(&e.legal_moves()[0].clone()).unwrap();
    assert!(e.set_option("DaiDeclinedPawn", Some("last-rank")).is_ok());
    assert_eq!(e.moves.len(), 1, "the game is replayed under the new rule");
}

#[test]
fn a_weak_level_searches_within_its_node_budget_but_never_when_analysing() {
    let mut e = engine();
    e.set_hash_mb(8);
    e.set_option("SkillLevel", Some("0")).unwrap();
    e.set_option("LimitStrengthDelay", Some("0")).unwrap();
    let mut nodes = 0;
    let best = e
        .search(&timed(2_000), &AtomicBool::new(false), &mut |t| {
            nodes = nodes.max(t.nodes)
        })
        .expect("a move");
    assert!(e.legal_moves().contains(&best));
    // Level 0's budget is 600 nodes (search::skill); a search may finish its last node batch.
    assert!(0 < nodes && nodes < 5_000, "{nodes} nodes at level 0");
    assert!(
        e.search_options(true).skill.is_none(),
        "analysis is never weakened"
    );
    assert_eq!(e.search_options(true).multipv, 1);
    assert!(
        e.search_options(false).multipv > 1,
        "a weak level chooses among lines"
    );
}
