//! The options' declarations, values and settings against what GUIs send.

use super::*;
use crate::usi::OptionKind;

#[test]
fn defaults_match_declarations() {
    let options = Options::default();
    assert_eq!(options.hash_mb, 256);
    assert!(!options.ponder);
    assert!(options.threads >= 1);
    assert_eq!(options.multipv, 1);
    assert_eq!(options.entering_king_rule, EnteringKingRule::Csa27);
    assert!(options.own_book);
    assert_eq!(options.book_file, crate::book::DEFAULT_BOOK_NAME);
    assert_eq!(options.book, BookOptions::default());
    let decls = Options::declarations();
    let find = |name: &str| decls.iter().find(|d| d.name == name).map(|d| &d.kind);
    assert_eq!(
        find("USI_Hash"),
        Some(&OptionKind::Spin {
            default: 256,
            min: 1,
            max: MAX_HASH_MB
        })
    );
    assert_eq!(
        find("MultiPV"),
        Some(&OptionKind::Spin {
            default: 1,
            min: 1,
            max: 600
        })
    );
    match find("EnteringKingRule") {
        Some(OptionKind::Combo { default, vars }) => {
            assert_eq!(default, "CSARule27");
            assert_eq!(vars.len(), 6);
        }
        other => panic!("{other:?}"),
    }
    for name in [
        "USI_Ponder",
        "Threads",
        "NetworkDelay",
        "NetworkDelay2",
        "AutoNetworkDelay",
        "MinimumThinkingTime",
        "SlowMover",
        "RoundUpToFullSecond",
        "MaxMovesToDraw",
        "DrawValueBlack",
        "DrawValueWhite",
        "ResignValue",
        "USI_OwnBook",
        "BookFile",
        "DepthLimit",
        "NodesLimit",
        "ConsiderationMode",
        "PvInterval",
        "OutputFailLHPV",
        "MateHash",
        "EvalFile",
    ] {
        assert!(find(name).is_some(), "{name} not declared");
    }
}

#[test]
fn names_match_any_case_and_values_are_typed() {
    let mut o = Options::default();
    assert_eq!(o.set("usi_hash", Some("16")), Ok(vec![]));
    assert_eq!(o.hash_mb, 16);
    assert_eq!(o.set("USI_PONDER", Some("TRUE")), Ok(vec![]));
    assert!(o.ponder);
    assert_eq!(o.set("enteringkingrule", Some("tryrule")), Ok(vec![]));
    assert_eq!(o.entering_king_rule, EnteringKingRule::Try);
    assert_eq!(o.set("DrawValueWhite", Some("-50")), Ok(vec![]));
    assert_eq!(o.draw_value_white, -50);
    assert_eq!(o.set("BookFile", Some("my book.db")), Ok(vec![]));
    assert_eq!(o.book_file, "my book.db");
    assert_eq!(o.set("BookFile", None), Ok(vec![]));
    assert_eq!(o.book_file, "");
    o.set("BookFile", Some("a.db")).unwrap();
    assert_eq!(o.set("BookFile", Some("<empty>")), Ok(vec![]));
    assert_eq!(o.book_file, "");
    assert_eq!(o.book_path(), None);
}

#[test]
fn bad_values_change_nothing() {
    let mut o = Options::default();
    let before = o.clone();
    assert!(o.set("Nonsense", Some("1")).is_err());
    assert!(o.set("USI_Hash", Some("lots")).is_err());
    assert!(o.set("USI_Hash", Some("1.5")).is_err());
    assert!(o.set("USI_Hash", Some("")).is_err());
    assert!(o.set("USI_Hash", None).is_err());
    assert!(o.set("USI_Ponder", Some("yes")).is_err());
    assert!(o.set("EnteringKingRule", Some("Whatever")).is_err());
    assert_eq!(o, before);
}

#[test]
fn out_of_range_spins_are_clamped_and_said_so() {
    let mut o = Options::default();
    let notes = o.set("MultiPV", Some("0")).unwrap();
    assert_eq!(o.multipv, 1);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("clamped to the minimum 1"), "{notes:?}");
    let notes = o.set("Threads", Some("99999999999999999999999")).unwrap();
    assert_eq!(o.threads, 256);
    assert!(notes[0].contains("maximum 256"), "{notes:?}");
    let notes = o
        .set("DrawValueBlack", Some("-99999999999999999999999"))
        .unwrap();
    assert_eq!(o.draw_value_black, -30_000);
    assert_eq!(notes.len(), 1);
    assert_eq!(o.set("NodesLimit", Some("9223372036854775807")), Ok(vec![]));
    assert_eq!(o.nodes_limit, i64::MAX as u64);
}

#[test]
fn book_options_are_typed() {
    let mut o = Options::default();
    assert_eq!(o.set("USI_OwnBook", Some("false")), Ok(vec![]));
    assert!(!o.own_book);
    o.set("BookMoves", Some("24")).unwrap();
    o.set("BookEvalDiff", Some("0")).unwrap();
    o.set("BookEvalWhiteLimit", Some("-300")).unwrap();
    o.set("BookMoveChoice", Some("weightedbycount")).unwrap();
    o.set("IgnoreBookPly", Some("false")).unwrap();
    assert_eq!(
        (o.book.moves, o.book.eval_diff, o.book.white_limit),
        (24, 0, -300)
    );
    assert_eq!(o.book.choice, Choice::WeightedByCount);
    assert!(!o.book.ignore_ply);
    assert!(o.set("BookMoveChoice", Some("Sometimes")).is_err());
}

#[test]
fn relative_book_paths_resolve_against_the_executable_folder() {
    let base = Path::new("/opt/kirin");
    assert_eq!(resolve_against("", Some(base)), None);
    assert_eq!(
        resolve_against("book/a.db", Some(base)),
        Some(PathBuf::from("/opt/kirin/book/a.db"))
    );
    assert_eq!(
        resolve_against("/data/a.db", Some(base)),
        Some(PathBuf::from("/data/a.db"))
    );
    let mut o = Options::default();
    o.set("BookFile", Some("x.db")).unwrap();
    let path = o.book_path().unwrap();
    assert!(path.is_absolute() && path.ends_with("x.db"), "{path:?}");
}

#[test]
fn search_options_carry_the_settings() {
    let mut o = Options::default();
    o.set("DepthLimit", Some("7")).unwrap();
    o.set("NodesLimit", Some("1000")).unwrap();
    o.set("NetworkDelay2", Some("900")).unwrap();
    o.set("MaxMovesToDraw", Some("256")).unwrap();
    let s = o.search_options();
    assert_eq!((s.depth_limit, s.nodes_limit), (7, 1000));
    assert_eq!(s.time.network_delay2, 900);
    assert_eq!((s.max_moves_to_draw, s.time.max_moves_to_draw), (256, 256));
}

#[test]
fn tune_options_set_search_parameters_within_their_ranges() {
    use crate::search::params::TABLE;
    let tune = tune_specs();
    assert_eq!(tune.len(), TABLE.len());
    let mut o = Options::default();
    o.set_in(&tune, "Tune_rfp_margin", Some("150")).unwrap();
    assert_eq!(o.search_options().params.rfp_margin, 150);
    let notes = o.set_in(&tune, "tune_razor_base", Some("99999")).unwrap();
    assert_eq!(notes.len(), 1, "a clamped value is reported");
    let max = TABLE.iter().find(|p| p.name == "razor_base").unwrap().max;
    assert_eq!(o.params.razor_base, max);
    assert_eq!(o.params.rfp_margin, 150);
    assert!(o.set_in(&tune, "Tune_nothing", Some("1")).is_err());
    // Without the feature the options are not declared.
    assert_eq!(
        Options::declarations()
            .iter()
            .any(|d| d.name.starts_with(TUNE_PREFIX)),
        cfg!(feature = "tune")
    );
}
