//! What ShogiHome reads back: every record format kirin writes (KIF and KIFU, KI2, CSA, JKF) and
//! the annotated KIF and KIFU of `kirin analyze`, read by tsshogi, the GUI's own record library
//! (`tests/oracle/tsshogi_oracle.mjs`, run with node; the package is pinned in
//! `tests/oracle/package.json` and installed by `tuning/setup.sh`). Records: the real ones of
//! `tests/data/kifu` (the illegal-move and interrupted ones up to their end) and a few hundred
//! random games from the even and handicap starts, in which declined promotions are common.

use std::path::{Path, PathBuf};
use std::process::Command;

use kirin::book::Rng;
use kirin::kifu::{
    Encoding, Ending, Format, Record, encode_text, read_file, write_csa, write_jkf, write_ki2,
    write_kif,
};
use kirin::shogi::{Position, legal_moves};
use serde_json::Value;

/// A scratch folder of its own per test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("kirin-tsshogi-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// tsshogi's reading of each file: one JSON object per path, in order.
fn tsshogi(paths: &[PathBuf]) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/oracle/tsshogi_oracle.mjs");
    assert!(
        root.join("tests/oracle/node_modules/tsshogi").exists(),
        "tsshogi is not installed: run `bash tuning/setup.sh` (npm ci --prefix tests/oracle)"
    );
    let mut values = Vec::new();
    // Several node runs keep each command line short.
    for chunk in paths.chunks(400) {
        let out = Command::new("timeout")
            .arg("600")
            .arg("node")
            .arg(&script)
            .args(chunk)
            .output()
            .expect("run node under timeout");
        assert!(
            out.status.success(),
            "the tsshogi oracle failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("UTF-8 from the oracle");
        values.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    assert_eq!(values.len(), paths.len(), "one answer per file");
    values
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// The board, side and hands of an SFEN, without the move number (tsshogi always writes 1).
fn without_number(sfen: &str) -> String {
    sfen.rsplit_once(' ')
        .map_or(sfen, |(head, _)| head)
        .to_string()
}

/// The real records, each game as kirin reads it (a broken record keeps its legal part).
fn real_records() -> Vec<(String, Record)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kifu");
    let mut files: Vec<PathBuf> = ["kif", "ki2", "csa"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).expect("tests/data/kifu"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut records = Vec::new();
    for file in files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let ext = file.extension().unwrap().to_string_lossy().into_owned();
        for (g, record) in read_file(&file).expect("a record").into_iter().enumerate() {
            records.push((format!("{stem}-{ext}-{}", g + 1), record));
        }
    }
    assert!(records.len() >= 12, "{} real games", records.len());
    records
}

const HANDICAPS: [&str; 3] = [
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// A random game of legal moves: the even start or a handicap one, up to `max_plies` plies.
/// Moves that may promote are common, and about half of them decline (the generator lists
/// both choices).
fn random_game(rng: &mut Rng, i: usize, max_plies: u64) -> Record {
    let start = if i % 3 == 2 {
        Position::from_sfen(HANDICAPS[i / 3 % HANDICAPS.len()]).expect("handicap")
    } else {
        Position::startpos()
    };
    let mut record = Record::new(start.clone(), Format::Usi);
    let mut pos = start;
    for _ in 0..20 + rng.below(max_plies - 20) {
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len() as u64) as usize];
        pos.do_move(m);
        record.moves.push(m);
    }
    record.set_ending(if pos.is_mated() {
        Ending::Mate
    } else {
        Ending::Resign
    });
    record
}

/// How many moves of a record declined a promotion they could have made (KI2 writes `不成`).
fn declined(record: &Record) -> usize {
    write_ki2(record, &[]).matches("不成").count()
}

/// Every format kirin writes, for one record: (extension, bytes).
fn written(record: &Record) -> Vec<(&'static str, Vec<u8>)> {
    let kif = write_kif(record, &[]);
    let ki2 = write_ki2(record, &[]);
    vec![
        ("kif", encode_text(&kif, Encoding::ShiftJis)),
        ("kifu", kif.into_bytes()),
        ("ki2", encode_text(&ki2, Encoding::ShiftJis)),
        ("ki2u", ki2.into_bytes()),
        ("csa", write_csa(record, &[]).into_bytes()),
        ("jkf", write_jkf(record, &[]).into_bytes()),
    ]
}

#[test]
fn every_format_kirin_writes_is_read_back_by_tsshogi_move_for_move() {
    let dir = Scratch::new("formats");
    let mut rng = Rng::new(0x7473_7368_6f67_6931);
    let mut records = real_records();
    records.extend((0..300).map(|i| (format!("random-{i}"), random_game(&mut rng, i, 160))));
    let declined_total: usize = records.iter().map(|(_, r)| declined(r)).sum();
    assert!(
        declined_total >= 300,
        "only {declined_total} declined promotions"
    );

    let mut paths = Vec::new();
    let mut expected = Vec::new();
    for (name, record) in &records {
        for (ext, bytes) in written(record) {
            let path = dir.0.join(format!("{name}.{ext}"));
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
            expected.push(record);
        }
    }
    let mut checked = 0;
    for ((answer, path), record) in tsshogi(&paths).iter().zip(&paths).zip(&expected) {
        let what = path.display();
        assert_eq!(answer["error"], Value::Null, "{what}: tsshogi refused it");
        assert_eq!(
            without_number(answer["start"].as_str().unwrap()),
            without_number(&record.start_sfen()),
            "{what}: start position"
        );
        assert_eq!(
            strings(&answer["moves"]),
            record.usi_moves(),
            "{what}: tsshogi read other moves\n{}",
            String::from_utf8_lossy(&std::fs::read(path).unwrap())
        );
        checked += record.moves.len();
    }
    println!(
        "tsshogi read {} files, {checked} moves, {declined_total} declined promotions per format",
        paths.len()
    );
}

#[test]
fn annotated_records_are_read_back_by_tsshogi_with_their_evaluations() {
    let dir = Scratch::new("analysis");
    let input = dir.0.join("records");
    std::fs::create_dir_all(&input).unwrap();
    for (name, record) in real_records() {
        std::fs::write(input.join(format!("{name}.kifu")), write_kif(&record, &[])).unwrap();
    }
    let mut rng = Rng::new(0x616e_616c_7973_6973);
    for i in 0..200 {
        let record = random_game(&mut rng, i, 100);
        std::fs::write(
            input.join(format!("random-{i}.kifu")),
            write_kif(&record, &[]),
        )
        .unwrap();
    }
    let out = dir.0.join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_kirin"))
        .args([
            "analyze",
            "--nodes",
            "300",
            "--quiet",
            "--format",
            "json,kif,kifu",
        ])
        .arg("--out")
        .arg(&out)
        .arg(&input)
        .output()
        .expect("run kirin analyze");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );

    let mut jsons: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    jsons.sort();
    assert!(jsons.len() >= 212, "{} games analysed", jsons.len());
    let paths: Vec<PathBuf> = jsons
        .iter()
        .flat_map(|j| [j.with_extension("kif"), j.with_extension("kifu")])
        .collect();
    let answers = tsshogi(&paths);
    let (mut moves_total, mut with_score, mut with_pv) = (0, 0, 0);
    for (answer, path) in answers.iter().zip(&paths) {
        let what = path.display();
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap())
                .unwrap();
        let entries = json["moves"].as_array().unwrap();
        assert_eq!(answer["error"], Value::Null, "{what}: tsshogi refused it");
        let want: Vec<String> = entries
            .iter()
            .map(|e| e["move"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(strings(&answer["moves"]), want, "{what}: moves");
        let scores = answer["scores"].as_array().unwrap();
        let pvs = answer["pvs"].as_array().unwrap();
        for (i, entry) in entries.iter().enumerate() {
            moves_total += 1;
            // The evaluation ShogiHome shows under move i is the one the JSON gives for it.
            if scores[i] != Value::Null {
                assert_eq!(scores[i], entry["score_cp"], "{what}: move {}", i + 1);
                with_score += 1;
            }
            // The line under it reads whole from the position after the move, as the GUI
            // reads it (a line for another position would stop at its first move).
            if pvs[i] != Value::Null {
                assert_eq!(pvs[i]["error"], Value::Null, "{what}: move {}", i + 1);
                assert!(
                    !strings(&pvs[i]["moves"]).is_empty(),
                    "{what}: move {}",
                    i + 1
                );
                with_pv += 1;
            }
        }
    }
    println!(
        "tsshogi read {moves_total} analysed moves: {with_score} with #評価値, {with_pv} with #読み筋"
    );
    // A move that mates, or after which the side to move declares a win, has no line.
    assert!(
        with_score * 10 >= moves_total * 9 && with_pv * 10 >= moves_total * 9,
        "{with_score} and {with_pv} of {moves_total} moves carry #評価値 and #読み筋"
    );
}
