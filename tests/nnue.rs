//! The evaluation as a USI user meets it: `EvalFile` loads another network or linear weights at
//! `isready`; a file that cannot be used gets one error line and the default evaluation plays.

mod common;

use common::{Engine, errors, is_legal};
use kirin::eval::nnue::{HIDDEN, INPUTS, Network};

fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("kirin-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

/// The `eval` command's last line names the evaluator that plays.
fn evaluator_in_use(engine: &mut Engine) -> String {
    engine.send("position startpos");
    engine.send("eval");
    let lines = engine.sync();
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info string eval "))
        .unwrap_or_else(|| panic!("{lines:?}"));
    last.rsplit(", ")
        .next()
        .unwrap_or("")
        .trim_end_matches(')')
        .to_string()
}

fn plays_a_legal_move(engine: &mut Engine) {
    engine.send("position startpos moves 7g7f 3c3d");
    engine.send("go depth 4");
    let (best, lines) = engine.bestmove();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    let mv = best.split_whitespace().nth(1).unwrap_or("");
    let moves = ["7g7f".to_string(), "3c3d".to_string()];
    assert!(is_legal(None, &moves, mv), "{best}");
}

#[test]
fn eval_file_loads_networks_and_weights_and_refuses_bad_files_with_one_error() {
    let mut engine = Engine::ready();
    assert!(
        engine
            .handshake()
            .iter()
            .any(|l| l.starts_with("option name EvalFile type filename")),
        "EvalFile not declared"
    );
    // The embedded network plays by default ("nnue", or "nnue+linear" for a network trained on
    // top of the linear evaluation); `nnue` names it.
    let embedded = kirin::eval::Evaluator::load("nnue").unwrap();
    assert!(embedded.name().starts_with("nnue"));
    let default = evaluator_in_use(&mut engine);
    assert_eq!(default, embedded.name());
    engine.send("setoption name EvalFile value nnue");
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert_eq!(evaluator_in_use(&mut engine), embedded.name());
    plays_a_legal_move(&mut engine);

    // A damaged network: one error at isready, the default evaluation plays.
    let mut bytes = std::fs::read("src/eval/nnue/kirin.nnue").unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x55;
    let damaged = temp_file("damaged.nnue", &bytes);
    engine.send(&format!("setoption name EvalFile value {damaged}"));
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(errors(&lines)[0].contains("checksum"), "{lines:?}");
    assert_eq!(evaluator_in_use(&mut engine), default);
    plays_a_legal_move(&mut engine);

    // A missing file, then the embedded linear evaluation by name, then back to the default.
    engine.send("setoption name EvalFile value /nonexistent/kirin/none.nnue");
    let lines = engine.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    engine.send("setoption name EvalFile value linear");
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    assert_eq!(evaluator_in_use(&mut engine), "linear");
    plays_a_legal_move(&mut engine);
    engine.send("setoption name EvalFile value <empty>");
    engine.sync();
    engine.send("setoption name EvalFile value ");
    engine.sync();
    assert_eq!(evaluator_in_use(&mut engine), default);

    // Another network file: a zero network evaluates every position as 0.
    let zero = Network::from_parts(
        [0; HIDDEN],
        vec![[0; HIDDEN]; INPUTS],
        [[0; HIDDEN]; 2],
        0,
        false,
    )
    .unwrap();
    let path = temp_file("zero.nnue", &zero.to_bytes());
    engine.send(&format!("setoption name EvalFile value {path}"));
    let lines = engine.sync();
    assert!(errors(&lines).is_empty(), "{lines:?}");
    engine.send("position sfen lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1");
    engine.send("eval");
    let lines = engine.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string eval 0 (side to move, nnue)")),
        "{lines:?}"
    );
    plays_a_legal_move(&mut engine);
    engine.quit();
}
