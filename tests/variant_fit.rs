//! `kirin-tune yari-gen` and `yari-fit` as a user runs them: the games' files with the search's
//! score, older files without it, held-out games measured, and a bad file refused in one line.

use kirin::eval::yari::YariWeights;
use std::path::PathBuf;
use std::process::{Command, Output};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kirin-variant-fit-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tune(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kirin-tune"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn yari_games_keep_their_scores_and_the_fit_measures_held_out_games() {
    let dir = temp_dir("yari");
    let games = dir.join("games.tsv");
    let g = games.to_str().unwrap();
    let out = tune(&[
        "yari-gen", "--out", g, "--games", "6", "--nodes", "300", "--seed", "3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&games).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 60, "{}", lines.len());
    for line in &lines {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(["0", "0.5", "1"].contains(&fields[1]), "{line}");
        // The score is the search's, from the mover's view, below the adjudication score.
        let score: i32 = fields[2].parse().unwrap();
        assert!(score.abs() < 4000, "{line}");
    }
    // A file of before scores were kept: two columns.
    let old = dir.join("old.tsv");
    let two: String = lines
        .iter()
        .map(|l| l.rsplit_once('\t').unwrap().0.to_string() + "\n")
        .collect();
    std::fs::write(&old, two).unwrap();

    let fitted = dir.join("w.txt");
    let data = format!("{g},{}", old.to_str().unwrap());
    let out = tune(&[
        "yari-fit",
        "--data",
        &data,
        "--out",
        fitted.to_str().unwrap(),
        "--epochs",
        "20",
        "--lambda",
        "0.5",
        "--l2",
        "1e-9",
        "--holdout-every",
        "3",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(out.stdout.is_empty());
    // Games 0 and 3 of each file are held out: some positions, fewer than half.
    let held: usize = err
        .lines()
        .find_map(|l| l.split_once(" held-out positions: loss "))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(held > 0 && held < lines.len(), "{err}");
    let w = YariWeights::parse(&std::fs::read_to_string(&fitted).unwrap()).unwrap();
    assert_ne!(w, *YariWeights::embedded(), "twenty epochs moved nothing");
    let header = std::fs::read_to_string(&fitted).unwrap();
    assert!(header.contains("held-out games"), "{header}");

    let bad = dir.join("bad.tsv");
    std::fs::write(&bad, "lnsgk/7 b - 1\t1\tnot-a-score\n").unwrap();
    let out = tune(&[
        "yari-fit",
        "--data",
        bad.to_str().unwrap(),
        "--out",
        dir.join("w2.txt").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.tsv:1: bad score"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!dir.join("w2.txt").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dai_games_keep_their_scores_and_the_fit_aims_at_them_too() {
    let dir = temp_dir("dai");
    let games = dir.join("games.tsv");
    let g = games.to_str().unwrap();
    let out = tune(&[
        "dai-gen",
        "--out",
        g,
        "--games",
        "4",
        "--nodes",
        "200",
        "--max-plies",
        "60",
        "--seed",
        "5",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&games).unwrap();
    assert!(text.lines().count() > 100, "{}", text.lines().count());
    assert!(text.lines().all(|l| l.split('\t').count() == 3), "{text}");
    let fitted = dir.join("w.txt");
    let out = tune(&[
        "dai-fit",
        "--data",
        g,
        "--out",
        fitted.to_str().unwrap(),
        "--epochs",
        "10",
        "--lambda",
        "0.3",
        "--holdout-every",
        "2",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(" held-out positions: loss "), "{err}");
    let text = std::fs::read_to_string(&fitted).unwrap();
    assert!(text.contains("held-out games"), "{text}");
    kirin::eval::dai::DaiWeights::parse(&text).unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
