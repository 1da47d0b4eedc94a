//! `kirin analyze` end to end: the binary run on small records with a node limit, so that every
//! run searches the same trees.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use kirin::shogi::{Position, legal_moves};
use serde_json::Value;

/// A scratch folder of its own per test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("kirin-analyze-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn analyze(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kirin"))
        .arg("analyze")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kirin");
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin.unwrap_or("").as_bytes());
    }
    child.wait_with_output().expect("wait for kirin")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// An opening of 12 plies with a rook exchange and a bishop trade.
const OPENING: &str = "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f";

/// Black can mate at once with G*5b but pushes a pawn; White then mates with G*9h.
const MISSED_MATE: &str = "sfen 4k4/9/4P4/9/9/9/p7P/9/K8 b Gg 1 moves 1g1f G*9h";

fn gui_probability(cp: i64) -> f64 {
    1.0 / (1.0 + (-(cp as f64) / 600.0).exp())
}

fn mark_for(loss_percent: f64, marks: [f64; 4]) -> &'static str {
    if loss_percent >= marks[3] {
        "blunder"
    } else if loss_percent >= marks[2] {
        "mistake"
    } else if loss_percent >= marks[1] {
        "dubious"
    } else if loss_percent >= marks[0] {
        "inaccuracy"
    } else {
        "good"
    }
}

/// Checks one game's JSON against the moves of `line` (a USI position line).
fn check_game(json: &Value, line: &str, marks: [f64; 4]) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "moves").unwrap();
    let moves = &words[at + 1..];
    let entries = json["moves"].as_array().unwrap();
    assert_eq!(entries.len(), moves.len(), "one entry per move");
    let mut pos = if words[0] == "startpos" {
        Position::startpos()
    } else {
        Position::from_sfen(&words[1..at].join(" ")).unwrap()
    };
    assert_eq!(json["start"].as_str().unwrap(), pos.to_sfen());
    assert!(json["result"].is_string());
    for (i, (entry, played)) in entries.iter().zip(moves).enumerate() {
        assert_eq!(entry["ply"].as_u64(), Some(i as u64 + 1));
        assert_eq!(entry["move"].as_str(), Some(*played));
        let black = pos.side_to_move() == kirin::shogi::Color::Black;
        assert_eq!(
            entry["side"].as_str(),
            Some(if black { "black" } else { "white" })
        );
        // The best move is legal where it was found, and the line starts with it.
        let best = entry["best"].as_str().unwrap();
        assert!(
            pos.parse_move(best).is_ok(),
            "{best} legal at ply {}",
            i + 1
        );
        let pv: Vec<&str> = entry["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(pv.first(), Some(&best));
        assert!(entry["score_cp"].is_i64());
        assert!(entry["mate"].is_null() || entry["mate"].is_i64());
        let wp = entry["win_probability"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&wp));
        if entry["mate"].is_null() {
            let cp = entry["score_cp"].as_i64().unwrap();
            assert!(
                (wp - gui_probability(cp)).abs() < 1e-3,
                "win probability of {cp}"
            );
        }
        // The loss is the best move's value minus the played move's, from the mover's view.
        let sign = if black { 1 } else { -1 };
        let best_value = sign * entry["before_cp"].as_i64().unwrap();
        let played_value = entry["played_cp"].as_i64().unwrap();
        let loss_cp = entry["loss_cp"].as_i64().unwrap();
        let loss_percent = entry["loss_percent"].as_f64().unwrap();
        if best == *played {
            assert_eq!(loss_cp, 0);
            assert_eq!(loss_percent, 0.0);
        } else {
            assert_eq!(loss_cp, (best_value - played_value).max(0));
            let want =
                100.0 * (gui_probability(best_value) - gui_probability(played_value)).max(0.0);
            assert!(
                (loss_percent - want).abs() < 0.02,
                "loss {loss_percent} vs {want}"
            );
        }
        assert_eq!(
            entry["mark"].as_str(),
            Some(mark_for(loss_percent, marks)),
            "mark at ply {}",
            i + 1
        );
        pos.do_move(pos.parse_move(played).unwrap());
    }
}

#[test]
fn json_has_one_typed_entry_per_move_and_marks_follow_the_thresholds() {
    let dir = Scratch::new("json");
    let input = dir.write("games.usi", &format!("{OPENING}\n{MISSED_MATE}\n"));
    let out = dir.path("out");
    // Small thresholds so that ordinary moves get marks too.
    let marks = [0.5, 1.0, 2.0, 30.0];
    let output = analyze(
        &[
            "--nodes",
            "3000",
            "--marks",
            "0.5,1,2,30",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    check_game(&read_json(&out.join("games.json")), OPENING, marks);
    check_game(&read_json(&out.join("games-2.json")), MISSED_MATE, marks);
    // Only JSON was asked for.
    assert!(!out.join("games.svg").exists());
    // The terminal summary names both games.
    let summary = text(&output.stdout);
    assert!(
        summary.contains("games: ") && summary.contains("games-2: "),
        "{summary}"
    );
}

#[test]
fn a_missed_mate_that_allows_mate_is_a_blunder() {
    // Independently of the search: G*5b mates (White has no legal reply), and after 1g1f
    // White's G*9h mates.
    let mut pos = Position::from_sfen("4k4/9/4P4/9/9/9/p7P/9/K8 b Gg 1").unwrap();
    let mut mated = pos.clone();
    mated.do_move(mated.parse_move("G*5b").unwrap());
    assert!(legal_moves(&mated).is_empty());
    pos.do_move(pos.parse_move("1g1f").unwrap());
    pos.do_move(pos.parse_move("G*9h").unwrap());
    assert!(legal_moves(&pos).is_empty());

    let dir = Scratch::new("blunder");
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "3000",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            "-",
        ],
        Some(&format!("{MISSED_MATE}\n")),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json = read_json(&out.join("stdin.json"));
    let first = &json["moves"][0];
    assert_eq!(first["best"].as_str(), Some("G*5b"));
    assert_eq!(first["before_mate"].as_i64(), Some(1));
    assert_eq!(
        first["mate"].as_i64(),
        Some(-1),
        "White mates in 1 after the move"
    );
    assert_eq!(first["mark"].as_str(), Some("blunder"));
    assert_eq!(first["loss_percent"].as_f64(), Some(100.0));
    let second = &json["moves"][1];
    assert_eq!(second["mark"].as_str(), Some("good"));
    assert_eq!(second["mate"].as_i64(), Some(0), "the move mates");
    assert!(second["score_cp"].as_i64().unwrap() < -10_000);
    assert_eq!(json["result"].as_str(), Some("White wins (mate)"));
    assert_eq!(json["summary"]["black"]["blunder"].as_u64(), Some(1));
    assert_eq!(json["summary"]["white"]["blunder"].as_u64(), Some(0));
    assert_eq!(json["turning_points"][0]["ply"].as_u64(), Some(1));
    assert_eq!(json["turning_points"][0]["from"].as_f64(), Some(1.0));
    assert_eq!(json["turning_points"][0]["to"].as_f64(), Some(0.0));
}

#[test]
fn the_graph_has_one_point_per_move_and_the_png_decodes() {
    let dir = Scratch::new("graph");
    let input = dir.write("g.usi", &format!("{OPENING}\n{MISSED_MATE}\n"));
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "2000",
            "--format",
            "svg,png",
            "--out",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    for (name, plies, blunders) in [("g", 12, None), ("g-2", 2, Some(1))] {
        let svg = std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
        let line = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("evaluation"))
            .expect("an evaluation line");
        let points = line.attribute("points").unwrap().split_whitespace().count();
        assert_eq!(points, plies, "{name}: one point per move");
        if let Some(b) = blunders {
            let marked = doc
                .descendants()
                .filter(|n| n.has_tag_name("circle") && n.attribute("class") == Some("blunder"))
                .count();
            assert_eq!(marked, b, "{name}: blunders marked");
        }
        let png = std::fs::read(out.join(format!("{name}.png"))).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .expect("a PNG header");
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).expect("PNG pixels");
        assert_eq!((info.width, info.height), (800, 320));
        // Not a blank picture: the curve is drawn in dark pixels.
        assert!(
            pixels
                .chunks(4)
                .any(|p| p[0] < 100 && p[1] < 100 && p[2] < 100)
        );
    }
}

#[test]
fn resume_skips_games_whose_outputs_are_complete() {
    let dir = Scratch::new("resume");
    let a = dir.write("a.usi", "startpos moves 7g7f 3c3d\n");
    let b = dir.write("b.usi", "startpos moves 2g2f 8c8d\n");
    let out = dir.path("out");
    let args = |resume: bool| {
        let mut v = vec![
            "--nodes".to_string(),
            "1000".into(),
            "--format".into(),
            "json,svg".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
            a.to_str().unwrap().into(),
            b.to_str().unwrap().into(),
        ];
        if resume {
            v.push("--resume".into());
        }
        v
    };
    let run = |resume: bool| {
        let a = args(resume);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        analyze(&a, None)
    };
    let first = run(false);
    assert!(first.status.success());
    let before = std::fs::read(out.join("a.json")).unwrap();
    // b loses one of its outputs: only b is analysed again.
    std::fs::remove_file(out.join("b.svg")).unwrap();
    std::fs::write(out.join("a.json"), b"{\"kept\": true}").unwrap();
    let second = run(true);
    assert!(second.status.success());
    let summary = text(&second.stdout);
    assert!(
        summary.contains("b: ") && !summary.contains("a: "),
        "{summary}"
    );
    assert_eq!(
        std::fs::read(out.join("a.json")).unwrap(),
        b"{\"kept\": true}"
    );
    assert!(out.join("b.svg").exists());
    assert_ne!(before.len(), 0);
    // No temporary files are left behind.
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name}");
    }
    // Everything complete: nothing to do.
    let third = run(true);
    assert!(third.status.success());
    assert_eq!(text(&third.stdout), "");
}

#[test]
fn bad_files_get_an_error_line_and_good_ones_are_still_analysed() {
    let dir = Scratch::new("bad");
    dir.write("records/good.usi", "startpos moves 7g7f 3c3d\n");
    dir.write("records/garbage.usi", "this is not a record\n");
    // Line 2 breaks off at its third move: the two legal moves are analysed.
    dir.write(
        "records/sub/broken.usi",
        "startpos moves 2g2f\nstartpos moves 7g7f 3c3d 7f7e 9z9z 8c8d\n",
    );
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "1000",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            dir.path("records").to_str().unwrap(),
            dir.path("missing.kif").to_str().unwrap(),
        ],
        None,
    );
    assert!(
        !output.status.success(),
        "any bad file makes the exit status non-zero"
    );
    let stderr = text(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.iter().any(|l| l.contains("garbage.usi:1:")),
        "{stderr}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("broken.usi:2:") && l.contains("move 4")),
        "{stderr}"
    );
    assert!(lines.iter().any(|l| l.contains("missing.kif")), "{stderr}");
    assert_eq!(lines.len(), 3, "one line per problem: {stderr}");
    assert_eq!(
        read_json(&out.join("good.json"))["moves"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        read_json(&out.join("broken.json"))["moves"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let broken = read_json(&out.join("broken-2.json"));
    assert_eq!(broken["moves"].as_array().unwrap().len(), 3);
    assert!(broken["error"].as_str().unwrap().contains("line 2"));
    assert!(!out.join("garbage.json").exists());
}

#[test]
fn side_range_and_multipv_select_what_is_reported() {
    let dir = Scratch::new("select");
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "2000",
            "--side",
            "white",
            "--from",
            "3",
            "--to",
            "9",
            "--multipv",
            "3",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            "-",
        ],
        Some(OPENING),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json = read_json(&out.join("stdin.json"));
    let plies: Vec<u64> = json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["ply"].as_u64().unwrap())
        .collect();
    assert_eq!(plies, vec![4, 6, 8]);
    for m in json["moves"].as_array().unwrap() {
        assert_eq!(m["side"].as_str(), Some("white"));
        let candidates = m["candidates"].as_array().unwrap();
        assert_eq!(candidates.len(), 3);
        assert_eq!(candidates[0]["move"], m["best"]);
        // Best first, from the mover's (White's) view: Black's view ascends.
        let scores: Vec<i64> = candidates
            .iter()
            .map(|c| c["score_cp"].as_i64().unwrap())
            .collect();
        assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
    }
    assert_eq!(json["summary"]["black"]["moves"].as_u64(), Some(0));
    assert_eq!(json["summary"]["white"]["moves"].as_u64(), Some(3));
}

#[test]
fn bad_options_are_refused_with_status_2() {
    for args in [
        &["--nodes", "5", "--depth", "3", "x.usi"][..],
        &["--format", "gif", "x.usi"],
        &["--marks", "5,10", "x.usi"],
        &[],
    ] {
        let output = analyze(args, None);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(text(&output.stderr).starts_with("kirin analyze: "));
    }
}

#[test]
fn ctrl_c_stops_the_batch_and_leaves_only_complete_outputs() {
    let dir = Scratch::new("ctrlc");
    let games: String = (0..6).map(|_| format!("{OPENING}\n")).collect();
    let input = dir.write("many.usi", &games);
    let out = dir.path("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kirin"))
        .args([
            "analyze",
            "--movetime",
            "30",
            "--jobs",
            "1",
            "--format",
            "json,svg",
            "--out",
        ])
        .arg(&out)
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kirin");
    // Wait for the first finished game, then interrupt as a terminal's Ctrl-C would.
    let mut waited = 0;
    while !out.join("many.json").exists() && waited < 6000 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    }
    assert!(out.join("many.json").exists(), "the first game finishes");
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let status = child.wait().expect("wait for kirin");
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let mut jsons = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name} left behind");
        if name.ends_with(".json") {
            jsons += 1;
            let json = read_json(&path);
            assert_eq!(
                json["moves"].as_array().unwrap().len(),
                12,
                "{name} complete"
            );
            let svg = path.with_extension("svg");
            assert!(svg.exists(), "{name}: the SVG is written before the JSON");
        }
    }
    // Either the interrupt arrived while games were left (status 130), or the batch had just
    // finished (every game written, success).
    if jsons < 6 {
        assert_eq!(status.code(), Some(130), "{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
    } else {
        assert!(status.success());
    }
}

fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// cshogi's KIF parser, an independent reader, takes both annotated files: the same moves, and
/// under each move the `#評価値=` of the JSON and a `#読み筋=` line.
#[test]
fn annotated_kif_is_read_back_by_cshogi() {
    let dir = Scratch::new("kif");
    let input = dir.write("game.usi", &format!("{OPENING}\n{MISSED_MATE}\n"));
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "2000",
            "--format",
            "json,kif,kifu",
            "--out",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let script = r#"
import sys, json
import cshogi, cshogi.KIF
for path in sys.argv[1:]:
    p = cshogi.KIF.Parser.parse_file(path)
    print(json.dumps({"moves": [cshogi.move_to_usi(m) for m in p.moves], "comments": p.comments}))
"#;
    for name in ["game", "game-2"] {
        let kif = out.join(format!("{name}.kif"));
        let kifu = out.join(format!("{name}.kifu"));
        // The `.kif` is Shift_JIS, not UTF-8.
        assert!(std::str::from_utf8(&std::fs::read(&kif).unwrap()).is_err());
        let result = Command::new(python())
            .args(["-c", script])
            .arg(&kif)
            .arg(&kifu)
            .output()
            .expect("run python");
        assert!(result.status.success(), "{}", text(&result.stderr));
        let json = read_json(&out.join(format!("{name}.json")));
        let entries = json["moves"].as_array().unwrap();
        for line in text(&result.stdout).lines() {
            let parsed: Value = serde_json::from_str(line).unwrap();
            let moves: Vec<&str> = parsed["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            let want: Vec<&str> = entries
                .iter()
                .map(|e| e["move"].as_str().unwrap())
                .collect();
            assert_eq!(moves, want);
            for (entry, comment) in entries.iter().zip(parsed["comments"].as_array().unwrap()) {
                let comment = comment.as_str().unwrap();
                let score = format!("#評価値={}", entry["score_cp"].as_i64().unwrap());
                assert!(comment.lines().any(|l| l == score), "{comment}");
                if entry["mate"].as_i64() != Some(0) {
                    assert!(comment.contains("#読み筋="), "{comment}");
                }
                if entry["mark"] == "blunder" {
                    assert!(comment.contains("大悪手"), "{comment}");
                }
            }
        }
    }
}

#[test]
fn outputs_never_replace_inputs_and_are_not_read_back() {
    let dir = Scratch::new("overwrite");
    let kifu = dir.write(
        "records/game.kifu",
        "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n",
    );
    let original = std::fs::read(&kifu).unwrap();
    let records = dir.path("records");
    // Writing next to the input would replace it: refused, input untouched.
    let output = analyze(
        &[
            "--nodes",
            "500",
            "--format",
            "kifu",
            "--out",
            records.to_str().unwrap(),
            kifu.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("would overwrite the input"));
    assert_eq!(std::fs::read(&kifu).unwrap(), original);
    // An output folder inside the input folder is not walked: the second run reads one game.
    let out = records.join("analysis");
    for _ in 0..2 {
        let output = analyze(
            &[
                "--nodes",
                "500",
                "--out",
                out.to_str().unwrap(),
                records.to_str().unwrap(),
            ],
            None,
        );
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout).matches("game: ").count(), 1);
    }
    assert!(!out.join("game_2.json").exists());
    assert_eq!(
        read_json(&out.join("game.json"))["moves"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn several_search_threads_and_games_at_once_give_complete_reports() {
    let dir = Scratch::new("threads");
    let input = dir.write(
        "pair.usi",
        &format!("{OPENING}\n{OPENING}\n{MISSED_MATE}\n"),
    );
    let out = dir.path("out");
    let output = analyze(
        &[
            "--nodes",
            "4000",
            "--threads",
            "2",
            "--jobs",
            "2",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let marks = [5.0, 10.0, 20.0, 50.0];
    check_game(&read_json(&out.join("pair.json")), OPENING, marks);
    check_game(&read_json(&out.join("pair-2.json")), OPENING, marks);
    let mate = read_json(&out.join("pair-3.json"));
    check_game(&mate, MISSED_MATE, marks);
    assert_eq!(mate["moves"][0]["mark"].as_str(), Some("blunder"));
    assert_eq!(mate["engine"]["threads"].as_u64(), Some(2));
}
