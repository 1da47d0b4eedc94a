//! Training data formats against their real producers: sbinpack against rsshogi and ShogiArena's
//! serializer, YaneuraOu's PackedSfenValue (`.bin`) against cshogi, both ways, on random legal
//! games from the even start and handicap starts; then `kirin-tune convert` round trips and the
//! trainers' reader.
//!
//! `tests/oracle/data_oracle.py` runs the Python libraries under `timeout`.

mod common;

use kirin::book::Rng;
use kirin::shogi::{Position, START_SFEN, legal_moves};
use kirin::tune::records::{self, ChainReader, ChainWriter};
use kirin::tune::sbinpack::{self, Chain};
use kirin::tune::smooth::Smoothing;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python producers' reading or writing of `path` (`tests/oracle/data_oracle.py`: rsshogi,
/// ShogiArena and cshogi).
fn oracle(cmd: &str, path: &Path, input: &str) -> String {
    let path = path.to_string_lossy();
    common::python_oracle("data_oracle.py", &[cmd, &path], input)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kirin-data-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A uniform index below `n` from the seeded generator, so failures replay.
fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(n as u64) as usize
}

/// The even start and handicap starts (pieces missing from board and hands, White to move),
/// and one start with pieces in hand at a later move number.
const STARTS: [&str; 6] = [
    START_SFEN,
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN1 w - 1",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r5b1/pppp1pppp/9/9/9/PPPP1PPPP/1B5R1/LNSGKGSNL b Pp 9",
];

/// Random legal games of random length with random scores (some large, to exercise long score
/// deltas) and results.
fn random_games(n: usize, seed: u64) -> Vec<Chain> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|g| {
            let start = Position::from_sfen(STARTS[g % STARTS.len()]).unwrap();
            let mut pos = start.clone();
            let (mut moves, mut scores) = (Vec::new(), Vec::new());
            let len = 1 + below(&mut rng, 160);
            for _ in 0..len {
                let legal = legal_moves(&pos);
                if legal.is_empty() {
                    break;
                }
                let m = legal[below(&mut rng, legal.len())];
                let score = match below(&mut rng, 10) {
                    0 => below(&mut rng, 64001) as i32 - 32000,
                    _ => below(&mut rng, 2001) as i32 - 1000,
                };
                moves.push(m);
                scores.push(score);
                pos.do_move(m);
            }
            Chain {
                start,
                moves,
                scores,
                result: [0, 1, 2, 6, 10, 16, 21][below(&mut rng, 7)],
                stem_score: 0,
                metadata: Vec::new(),
            }
        })
        .collect()
}

fn game_json(c: &Chain) -> Value {
    json!({
        "start": c.start.to_sfen(),
        "moves": c.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "scores": c.scores,
        "result": c.result,
    })
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("oracle JSON"))
        .collect()
}

fn read_chains(path: &Path) -> Vec<Chain> {
    let mut r = ChainReader::open(path.to_str().unwrap()).unwrap();
    let mut out = Vec::new();
    while let Some(c) = r.next_chain().unwrap() {
        out.push(c);
    }
    out
}

#[test]
fn sbinpack_written_by_shogiarena_reads_back_in_kirin_and_re_encodes_byte_for_byte() {
    let dir = temp_dir("sbin-from-arena");
    let games = random_games(60, 1);
    let input: String = games
        .iter()
        .map(|g| format!("{}\n", game_json(g)))
        .collect();
    let path = dir.join("arena.sbinpack");
    oracle("sbinpack-write", &path, &input);
    let read = read_chains(&path);
    assert_eq!(read.len(), games.len());
    for (i, (got, want)) in read.iter().zip(&games).enumerate() {
        assert_eq!(got.start.to_sfen(), want.start.to_sfen(), "game {i}: start");
        assert_eq!(got.moves, want.moves, "game {i}: moves");
        assert_eq!(got.scores, want.scores, "game {i}: scores");
        assert_eq!(got.result, want.result, "game {i}: result");
    }
    // Byte for byte: each chunk's payload is what kirin encodes for the chains it holds.
    let bytes = std::fs::read(&path).unwrap();
    let (mut at, mut chains, mut chunks) = (0, 0, 0);
    while at < bytes.len() {
        assert_eq!(&bytes[at..at + 4], sbinpack::MAGIC);
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let payload = &bytes[at + 8..at + 8 + size];
        let (mut p, mut mine) = (0, Vec::new());
        while p < payload.len() {
            let c = sbinpack::decode_chain(payload, &mut p).unwrap();
            sbinpack::encode_chain(&c, &mut mine).unwrap();
            chains += 1;
        }
        assert_eq!(mine, payload, "chunk {chunks} differs");
        at += 8 + size;
        chunks += 1;
    }
    assert_eq!(chains, games.len());
    assert!(
        chunks > 1 && chunks < games.len(),
        "both chunk layouts: {chunks} chunks"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sbinpack_written_by_kirin_reads_back_in_rsshogi() {
    let dir = temp_dir("sbin-to-rsshogi");
    let games = random_games(60, 2);
    let path = dir.join("kirin.sbinpack");
    let mut w = ChainWriter::create(path.to_str().unwrap()).unwrap();
    for g in &games {
        w.write(g).unwrap();
    }
    w.finish().unwrap();
    let read = json_lines(&oracle("sbinpack-read", &path, ""));
    assert_eq!(read.len(), games.len());
    for (i, (got, want)) in read.iter().zip(&games).enumerate() {
        let want = game_json(want);
        // rsshogi writes the start's SFEN as kirin does (hands in R B G S N L P order).
        assert_eq!(got["start"], want["start"], "game {i}: start");
        assert_eq!(got["moves"], want["moves"], "game {i}: moves");
        assert_eq!(got["scores"], want["scores"], "game {i}: scores");
        assert_eq!(got["result"], want["result"], "game {i}: result");
        assert_eq!(got["metadata"], "", "game {i}: metadata");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every position of `games` as the PSV rows cshogi prints.
fn psv_rows(games: &[Chain]) -> Vec<Value> {
    let mut rows = Vec::new();
    for g in games {
        let black = sbinpack::black_result(g.result).unwrap();
        let mut pos = g.start.clone();
        for (&m, &score) in g.moves.iter().zip(&g.scores) {
            let r = if pos.side_to_move() == kirin::shogi::Color::Black {
                black
            } else {
                1.0 - black
            };
            rows.push(json!({
                "sfen": pos.to_sfen(),
                "score": score.clamp(-32000, 32000),
                "move": m.to_string(),
                "ply": pos.game_ply(),
                "result": if r > 0.75 { 1 } else if r < 0.25 { -1 } else { 0 },
            }));
            pos.do_move(m);
        }
    }
    rows
}

#[test]
fn psv_written_by_kirin_reads_back_in_cshogi_handicaps_included() {
    let dir = temp_dir("psv-to-cshogi");
    let games = random_games(40, 3);
    let path = dir.join("kirin.bin");
    let mut w = ChainWriter::create(path.to_str().unwrap()).unwrap();
    for g in &games {
        w.write(g).unwrap();
    }
    w.finish().unwrap();
    let want = psv_rows(&games);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        40 * want.len() as u64
    );
    let got = json_lines(&oracle("psv-read", &path, ""));
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "position {i}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn psv_written_by_cshogi_reads_back_in_kirin_and_kirin_writes_the_same_bytes() {
    let dir = temp_dir("psv-from-cshogi");
    let games = random_games(40, 4);
    let rows = psv_rows(&games);
    let input: String = rows.iter().map(|r| format!("{r}\n")).collect();
    let path = dir.join("cshogi.bin");
    oracle("psv-write", &path, &input);
    // Read back as chains: the stored moves join each game's positions into one chain again.
    let read = read_chains(&path);
    let mut got = Vec::new();
    for c in &read {
        let mut pos = c.start.clone();
        for (&m, &score) in c.moves.iter().zip(&c.scores) {
            got.push((pos.to_sfen(), score, m.to_string()));
            pos.do_move(m);
        }
    }
    let want: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r["sfen"].as_str().unwrap().to_string(),
                r["score"].as_i64().unwrap() as i32,
                r["move"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert!(read.len() <= games.len(), "{} chains", read.len());
    let mine = dir.join("kirin.bin");
    records::convert(path.to_str().unwrap(), mine.to_str().unwrap()).unwrap();
    assert_eq!(std::fs::read(&mine).unwrap(), std::fs::read(&path).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

/// The generator's text for `games`, keeping a random two thirds of the positions not in check
/// (as its quiet filter keeps some), with the game each line comes from.
fn text_of(games: &[Chain], seed: u64) -> (String, Vec<usize>) {
    let mut rng = Rng::new(seed);
    let (mut out, mut source) = (String::new(), Vec::new());
    for (n, g) in games.iter().enumerate() {
        let black = sbinpack::black_result(g.result).unwrap();
        let mut pos = g.start.clone();
        for (&m, &score) in g.moves.iter().zip(&g.scores) {
            if below(&mut rng, 3) > 0 && !pos.in_check() {
                let r = if pos.side_to_move() == kirin::shogi::Color::Black {
                    black
                } else {
                    1.0 - black
                };
                out.push_str(&format!(
                    "{}\t{}\t{r}\n",
                    pos.to_sfen(),
                    score.clamp(-2999, 2999)
                ));
                source.push(n);
            }
            pos.do_move(m);
        }
    }
    (out, source)
}

fn convert(input: &Path, output: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_kirin-tune"))
        .args(["convert", "--in"])
        .arg(input)
        .arg("--out")
        .arg(output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn text_converts_to_sbinpack_and_psv_and_back_unchanged() {
    let dir = temp_dir("convert");
    let games = random_games(30, 5);
    let (text, _) = text_of(&games, 6);
    let tsv = dir.join("a.tsv");
    std::fs::write(&tsv, &text).unwrap();
    let (sbin, bin, back) = (dir.join("b.sbinpack"), dir.join("c.bin"), dir.join("d.tsv"));
    convert(&tsv, &sbin);
    convert(&sbin, &bin);
    convert(&bin, &back);
    assert_eq!(std::fs::read_to_string(&back).unwrap(), text);
    // The chained file is what rsshogi reads too, and smaller than the 40-byte records.
    let read = json_lines(&oracle("sbinpack-read", &sbin, ""));
    let positions: usize = read
        .iter()
        .map(|c| c["moves"].as_array().unwrap().len())
        .sum();
    assert_eq!(positions, text.lines().count());
    let sbin_len = std::fs::metadata(&sbin).unwrap().len();
    assert!(sbin_len * 2 < std::fs::metadata(&bin).unwrap().len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_trainers_read_every_format_alike_with_games_kept_whole() {
    let dir = temp_dir("trainer");
    let games = random_games(30, 7);
    let (text, source) = text_of(&games, 8);
    let tsv = dir.join("a.tsv");
    std::fs::write(&tsv, &text).unwrap();
    let sbin = dir.join("a.sbinpack");
    records::convert(tsv.to_str().unwrap(), sbin.to_str().unwrap()).unwrap();
    let read = |path: &Path| {
        records::read_positions(
            &[path.to_str().unwrap()],
            Smoothing::NONE,
            |pos, score, result, game| (pos.to_sfen(), score, result, game),
        )
        .unwrap()
    };
    let from_text = read(&tsv);
    // The text reader the trainers used before, for the same lines.
    let old = kirin::tune::read_labelled(&text, 0, |pos, score, result, game| {
        (pos.to_sfen(), score, result, game)
    })
    .unwrap();
    assert_eq!(from_text, old);
    // The binary reader leaves out positions in check and captures; the rest match.
    let from_sbin = read(&sbin);
    assert!(
        from_sbin.len() * 10 >= from_text.len() * 6,
        "{}",
        from_sbin.len()
    );
    let mut it = from_text.iter();
    for p in &from_sbin {
        assert!(it.any(|q| q == p), "{p:?} is not in the text's order");
    }
    // Games stay whole: every position of a game gets that game's number, numbers never
    // decrease, so holding out games by number (`--holdout-every`) never splits one.
    for (i, p) in from_text.iter().enumerate().skip(1) {
        let q = &from_text[i - 1];
        assert!(p.3 >= q.3);
        if source[i] == source[i - 1] {
            assert_eq!(p.3, q.3, "line {i} left its game");
        }
    }
    assert!(from_text.last().unwrap().3 as usize + 1 >= games.len() - 5);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn smoothed_labels_keep_the_same_positions_and_blend_each_games_own_scores() {
    let dir = temp_dir("smooth");
    let games = random_games(40, 11);
    let sbin = dir.join("a.sbinpack");
    let mut w = ChainWriter::create(sbin.to_str().unwrap()).unwrap();
    for g in &games {
        w.write(g).unwrap();
    }
    w.finish().unwrap();
    let read = |smooth: Smoothing| {
        records::read_positions(&[sbin.to_str().unwrap()], smooth, |pos, score, _, game| {
            (pos.to_sfen(), score, game)
        })
        .unwrap()
    };
    let by = Smoothing::parse("0.5:0.3").unwrap();
    let (raw, smoothed) = (read(Smoothing::NONE), read(by));
    assert_eq!(raw.len(), smoothed.len());
    assert!(raw.len() > 100, "{}", raw.len());
    // Every position of every game with the label smooth.rs gives it, in file order.
    let mut expected = Vec::new();
    for g in &games {
        let labels = kirin::tune::smooth::smooth_all(&g.scores, by).unwrap();
        let mut pos = g.start.clone();
        for (&m, &label) in g.moves.iter().zip(&labels) {
            expected.push((pos.to_sfen(), f64::from(label)));
            pos.do_move(m);
        }
    }
    let mut it = expected.iter();
    let mut changed = 0;
    for (r, s) in raw.iter().zip(&smoothed) {
        assert_eq!((&r.0, r.2), (&s.0, s.2), "the same positions and games");
        let (_, label) = it.find(|e| e.0 == s.0).expect("in the games' order");
        assert_eq!(s.1, *label, "{}", s.0);
        changed += usize::from(s.1 != r.1);
    }
    // Random scores hardly ever agree from one ply to the next.
    assert!(changed * 10 > raw.len() * 9, "{changed} of {}", raw.len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_generator_writes_whole_games_that_train_on_the_positions_of_its_text() {
    let dir = temp_dir("gen");
    let openings = dir.join("openings.sfen");
    std::fs::write(
        &openings,
        "startpos moves 7g7f 3c3d\nsfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN1 w - 1\n",
    )
    .unwrap();
    let gen_to = |out: &Path| {
        let res = Command::new(env!("CARGO_BIN_EXE_kirin-tune"))
            .args([
                "gen",
                "--games",
                "3",
                "--nodes-min",
                "200",
                "--nodes-max",
                "400",
            ])
            .arg("--openings")
            .arg(&openings)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(
            res.status.success(),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
    };
    let (tsv, sbin) = (dir.join("g.tsv"), dir.join("g.sbinpack"));
    gen_to(&tsv);
    gen_to(&sbin);
    // The same games (same seeds), the text holding their quiet positions and the chained
    // file holding every move: read for training, the two give the same positions.
    let read = |path: &Path| {
        records::read_positions(
            &[path.to_str().unwrap()],
            Smoothing::NONE,
            |pos, score, result, _| (pos.to_sfen(), score, result),
        )
        .unwrap()
    };
    let (from_text, from_sbin) = (read(&tsv), read(&sbin));
    assert!(!from_text.is_empty());
    assert_eq!(from_sbin, from_text);
    let chains = read_chains(&sbin);
    assert_eq!(chains.len(), 3);
    let moves: usize = chains.iter().map(|c| c.moves.len()).sum();
    assert!(moves > from_text.len());
    // Each game names the evaluation and node budget that made it, and rsshogi reads the games
    // and those bytes as kirin does.
    let fingerprint = kirin::tune::selfplay::eval_fingerprint(&kirin::eval::Evaluator::default());
    assert_ne!(
        fingerprint,
        kirin::tune::selfplay::eval_fingerprint(&kirin::eval::Evaluator::linear())
    );
    let mut metadata = b"KRN1".to_vec();
    metadata.extend_from_slice(&fingerprint.to_le_bytes());
    metadata.extend_from_slice(&200u32.to_le_bytes());
    metadata.extend_from_slice(&400u32.to_le_bytes());
    let hex: String = metadata.iter().map(|b| format!("{b:02x}")).collect();
    let theirs = json_lines(&oracle("sbinpack-read", &sbin, ""));
    assert_eq!(theirs.len(), chains.len());
    for (c, t) in chains.iter().zip(&theirs) {
        assert_eq!(c.metadata, metadata);
        assert_eq!(t["metadata"], hex.as_str());
        let mut g = game_json(c);
        g["metadata"] = hex.as_str().into();
        assert_eq!(t, &g);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn damaged_or_lost_files_are_errors_not_short_data() {
    let dir = temp_dir("damaged");
    let games = random_games(4, 9);
    for name in ["a.bin", "a.sbinpack"] {
        let path = dir.join(name);
        let mut w = ChainWriter::create(path.to_str().unwrap()).unwrap();
        for g in &games {
            w.write(g).unwrap();
        }
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let res =
            records::for_each_position(path.to_str().unwrap(), 0, Smoothing::NONE, |_| Ok(()));
        assert!(res.is_err(), "{name}: a cut file read without an error");
    }
    // Text through xz: a cut archive is xz's error, not the lines before the cut.
    let (text, _) = text_of(&games, 9);
    let tsv = dir.join("b.tsv");
    std::fs::write(&tsv, &text).unwrap();
    let status = Command::new("xz").arg("-k").arg(&tsv).status().unwrap();
    assert!(status.success());
    let xz = dir.join("b.tsv.xz");
    let whole = records::for_each_position(xz.to_str().unwrap(), 0, Smoothing::NONE, |_| Ok(()));
    assert!(whole.is_ok_and(|games| games > 0));
    let bytes = std::fs::read(&xz).unwrap();
    std::fs::write(&xz, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let cut = records::for_each_position(xz.to_str().unwrap(), 0, Smoothing::NONE, |_| Ok(()))
        .unwrap_err();
    assert!(cut.contains("cut or damaged"), "{cut}");
    // A lost file says so, and where the seeds that made it are kept, in every format.
    for name in ["lost.tsv.xz", "lost.sbinpack", "lost.bin", "lost.tsv"] {
        let path = dir.join(name);
        let e = records::for_each_position(path.to_str().unwrap(), 0, Smoothing::NONE, |_| Ok(()))
            .unwrap_err();
        assert!(
            e.contains("No such file") && e.contains("Seeds used"),
            "{name}: {e}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_round_started_from_the_embedded_network_starts_at_its_loss_and_refuses_a_wrong_base() {
    let dir = temp_dir("init");
    let (text, _) = text_of(&random_games(40, 9), 10);
    let tsv = dir.join("a.tsv");
    std::fs::write(&tsv, &text).unwrap();
    let train = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kirin-tune"))
            .args(["train", "--data"])
            .arg(&tsv)
            .arg("--out")
            .arg(dir.join("n.nnue"))
            .args([
                "--epochs",
                "1",
                "--holdout-every",
                "4",
                "--baseline",
                "default",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = train(&["--init", "default", "--base", "linear"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The engine's integer evaluation of the held-out games and the trainer's float copy of the
    // same network, before any step: two computations, one loss.
    let loss_in = |prefix: &str, tail: &str| -> f64 {
        let line = err
            .lines()
            .find(|l| l.starts_with(prefix) && l.contains(tail))
            .unwrap();
        let v = line[prefix.len()..].split_whitespace().next().unwrap();
        v.parse().unwrap()
    };
    let engine = loss_in("validation loss of default: ", "");
    let copy = loss_in("validation loss ", "before training");
    assert!(engine > 0.0 && (engine - copy).abs() < 2e-4, "{err}");
    let net = std::fs::read(dir.join("n.nnue")).unwrap();
    assert!(
        kirin::eval::nnue::Network::from_bytes(&net)
            .unwrap()
            .adds_linear()
    );
    // The shipped network corrects the linear evaluation: without `--base linear` it would be
    // trained against the wrong targets, so the trainer refuses.
    let out = train(&["--init", "default"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base linear"));
    let out = train(&["--init", "default", "--base", "linear", "--hidden", "32"]);
    assert!(!out.status.success());
    std::fs::remove_dir_all(&dir).ok();
}
