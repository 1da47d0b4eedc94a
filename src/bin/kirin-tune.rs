//! kirin-tune: generates self-play data, fits the evaluation weights to it, and measures weight
//! sets against each other. See tuning/README.md ("How the shipped files are made") for the
//! commands that made the shipped weights.

use kirin::eval::Evaluator;
use kirin::eval::dai::DaiWeights;
use kirin::eval::linear::Weights;
use kirin::eval::yari::YariWeights;
use kirin::shogi::{Color, Position};
use kirin::tune::quality::{QualityRun, measure};
use kirin::tune::records::read_positions;
use kirin::tune::selfplay::{GenSettings, Player, Rng, generator_game, play_game, read_openings};
use kirin::tune::sfen_games::{FitSettings, Fitted, SelfPlay, SfenResult};
use kirin::tune::smooth::Smoothing;
use kirin::tune::{FitConfig, fit};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

const USAGE: &str = "usage:
  kirin-tune gen   --openings FILE --out FILE|FILE.sbinpack [--games N] [--first N] [--seed S]
                   [--nodes-min N] [--nodes-max N] [--minutes M] [--eval EVAL] [--append true]
                   [SETTINGS]
  kirin-tune quality --openings FILE [--games N] [--first N] [--seed S] [--nodes-min N]
                   [--nodes-max N] [--eval EVAL] [SETTINGS] [--check-every K] [--deep X]
                   [--replay true|false] [--smooth A[:B][,A[:B]..]]
  kirin-tune fit   --data FILE[,FILE..] --init WEIGHTS --prior WEIGHTS --out WEIGHTS
                   [--epochs N] [--lambda X] [--l2 X] [--lr X] [--threads N] [--holdout X]
                   [--holdout-every N] [--k K]
  kirin-tune train --data FILE[,FILE..] --out NET [--hidden N] [--epochs N] [--batch N]
                   [--lr X] [--lr-end X] [--lambda X] [--threads N] [--holdout-every N]
                   [--seed S] [--checkpoint FILE] [--resume true] [--baseline EVAL] [--decay X]
                   [--base linear] [--init NET|default] [--dedup false] [--smooth A[:B]]
  kirin-tune convert --in FILE --out FILE
  kirin-tune match --a EVAL --b EVAL --openings FILE [--games N] [--nodes N] [--first N]
  kirin-tune yari-gen --out FILE [--games N] [--nodes N] [--random-plies K] [--seed S]
                   [--weights FILE]
  kirin-tune yari-fit --data FILE[,FILE..] --out FILE [--init FILE] [--epochs N] [--lr X]
                   [--l2 X] [--lambda X] [--holdout-every N]
  kirin-tune dai-gen --out FILE [--games N] [--nodes N] [--random-plies K] [--seed S]
                   [--max-plies N] [--weights FILE]
  kirin-tune dai-fit --data FILE[,FILE..] --out FILE [--init FILE] [--epochs N] [--lr X]
                   [--l2 X] [--lambda X] [--holdout-every N]
Data FILEs: `.sbinpack` (chained games), `.bin` (YaneuraOu PackedSfenValue), anything else
kirin's text lines (`.xz` read through xz); tuning/notes/data-formats.md describes them.
SETTINGS (gen and quality): [--adjudicate-cp CP] [--adjudicate-plies N] [--soft-share X]
[--check-share X] [--shared-search true] [--probe-share X]: tuning/notes/generation.md measures
them.
EVAL: a network file, a linear weights file, `linear` (embedded weights), `nnue` (the
embedded network) or `default` (what the engine plays with).";

struct Args(HashMap<String, String>);

impl Args {
    fn parse(args: &[String]) -> Result<Args, String> {
        let mut m = HashMap::new();
        let mut it = args.iter();
        while let Some(k) = it.next() {
            let key = k
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected '{k}'"))?;
            let v = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
            m.insert(key.to_string(), v.clone());
        }
        Ok(Args(m))
    }
    fn str(&self, k: &str) -> Result<&str, String> {
        self.0
            .get(k)
            .map(String::as_str)
            .ok_or_else(|| format!("--{k} is required"))
    }
    fn num<T: std::str::FromStr>(&self, k: &str, default: T) -> Result<T, String> {
        Ok(self.opt_num(k)?.unwrap_or(default))
    }
    /// A number that has no default: `None` when the option is not given.
    fn opt_num<T: std::str::FromStr>(&self, k: &str) -> Result<Option<T>, String> {
        self.0
            .get(k)
            .map(|v| v.parse().map_err(|_| format!("--{k}: bad value '{v}'")))
            .transpose()
    }
}

fn load_weights(path: &str) -> Result<Weights, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Weights::parse(&text).map_err(|e| format!("{path}: {e}"))
}

/// An evaluation by file (network or linear weights), `linear` or `nnue` for the embedded
/// ones, or `default` for what the engine plays with.
fn load_evaluator(name: &str) -> Result<Evaluator, String> {
    match name {
        "default" => Ok(Evaluator::default()),
        _ => Evaluator::load(name),
    }
}

/// The openings file named by `--openings`, one SFEN a line.
fn openings_of(a: &Args) -> Result<Vec<Position>, String> {
    let path = a.str("openings")?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    read_openings(&text)
}

/// The generator's speed levers (`GenSettings`), defaults as every round so far played.
fn gen_settings(a: &Args) -> Result<GenSettings, String> {
    let d = GenSettings::default();
    let s = GenSettings {
        adjudicate_cp: a.num("adjudicate-cp", d.adjudicate_cp)?,
        adjudicate_plies: a.num("adjudicate-plies", d.adjudicate_plies)?,
        soft_share: a.num("soft-share", d.soft_share)?,
        check_share: a.num("check-share", d.check_share)?,
        shared_search: a.num("shared-search", d.shared_search)?,
        probe_share: a.num("probe-share", d.probe_share)?,
    };
    if s.adjudicate_cp < 1 || s.adjudicate_plies < 1 {
        return Err("--adjudicate-cp and --adjudicate-plies must be at least 1".into());
    }
    let share = |x: f64| x > 0.0 && x <= 1.0;
    if !(share(s.soft_share) && share(s.check_share) && share(s.probe_share)) {
        return Err(
            "--soft-share, --check-share and --probe-share must be above 0 and at most 1".into(),
        );
    }
    Ok(s)
}

/// `--smooth A[:B][,A[:B]..]`: the smoothings whose labels `quality` checks too.
fn smoothings(a: &Args) -> Result<Vec<Smoothing>, String> {
    let Some(list) = a.0.get("smooth") else {
        return Ok(Vec::new());
    };
    list.split(',')
        .map(|x| Smoothing::parse(x).map_err(|e| format!("--smooth: {e}")))
        .collect()
}

fn quality_cmd(a: &Args) -> Result<(), String> {
    let openings = openings_of(a)?;
    let run = QualityRun {
        seed: a.num("seed", 1)?,
        first: a.num("first", 0)?,
        games: a.num("games", 100)?,
        nodes_min: a.num("nodes-min", 3000)?,
        nodes_max: a.num("nodes-max", 6000)?,
        settings: gen_settings(a)?,
        check_every: a.num("check-every", 10)?,
        deep: a.num("deep", 4)?,
        replay_adjudicated: a.num("replay", true)?,
        smooth: smoothings(a)?,
    };
    let evaluator = load_evaluator(a.str("eval").unwrap_or("default"))?;
    let r = measure(&openings, &evaluator, &run);
    println!(
        "{} games, {} plies, {} training positions, {} nodes ({:.0} positions a million nodes), \
         {:.1} s of play ({:.0} positions a minute)",
        r.games,
        r.plies,
        r.positions,
        r.nodes,
        r.positions_per_million_nodes(),
        r.seconds,
        r.positions_per_minute()
    );
    println!(
        "labels: {} checked with {}x the nodes, mean winning-probability error {:.4}; \
         the same positions searched afresh: {:.4} with these settings, {:.4} with a hard budget",
        r.checked, run.deep, r.label_error, r.fresh_error, r.fresh_error_hard
    );
    println!(
        "adjudication: {} of {} games adjudicated, {} replayed to their end, {} ended otherwise \
         ({} of them drawn)",
        r.adjudicated, r.games, r.replayed, r.adjudication_errors, r.adjudication_draws
    );
    for (by, error) in &r.smoothed_error {
        println!("labels smoothed along the game (ahead:behind {by}): mean error {error:.4}");
    }
    for line in &r.wrong_adjudications {
        println!("  {line}");
    }
    Ok(())
}

fn gen_cmd(a: &Args) -> Result<(), String> {
    let openings = openings_of(a)?;
    let settings = gen_settings(a)?;
    let games: usize = a.num("games", 1_000_000)?;
    let first: usize = a.num("first", 0)?;
    let seed: u64 = a.num("seed", 1)?;
    let nmin: u64 = a.num("nodes-min", 3000)?;
    let nmax: u64 = a.num("nodes-max", 6000)?.max(nmin);
    let minutes: f64 = a.num("minutes", f64::INFINITY)?;
    let out_path = a.str("out")?;
    let chained = match kirin::tune::records::format_of(out_path) {
        kirin::tune::records::Format::Sbinpack => true,
        kirin::tune::records::Format::Text => false,
        kirin::tune::records::Format::Psv => {
            return Err("gen writes text or .sbinpack; `convert` makes .bin from either".into());
        }
    };
    // Games already in the file are kept only when asked: a repeated command would otherwise
    // add the same games (same seed and numbers) a second time, unseen.
    let append: bool = a.num("append", false)?;
    if !append && std::fs::metadata(out_path).is_ok_and(|m| m.len() > 0) {
        return Err(format!(
            "{out_path} already holds games: --append true adds to them"
        ));
    }
    let mut out = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(out_path)
            .map_err(|e| format!("{out_path}: {e}"))?,
    );
    let start = Instant::now();
    let evaluator = load_evaluator(a.str("eval").unwrap_or("default"))?;
    let mut players = [
        Player::new(evaluator.clone()),
        Player::new(evaluator.clone()),
    ];
    // Each chained game says what made it: `KRN1`, the evaluation's fingerprint (u64) and
    // the node budget (two u32), little-endian.
    let mut metadata = b"KRN1".to_vec();
    metadata.extend_from_slice(&kirin::tune::selfplay::eval_fingerprint(&evaluator).to_le_bytes());
    metadata.extend_from_slice(&(nmin.min(u64::from(u32::MAX)) as u32).to_le_bytes());
    metadata.extend_from_slice(&(nmax.min(u64::from(u32::MAX)) as u32).to_le_bytes());
    let (mut total_samples, mut wins, mut draws) = (0usize, 0usize, 0usize);
    let mut played = 0;
    for g in first..first + games {
        if start.elapsed().as_secs_f64() > minutes * 60.0 {
            break;
        }
        let (opening, mut rng) = generator_game(&openings, seed, g);
        let rec = play_game(
            opening,
            &mut players,
            |_| rng.budget(nmin, nmax),
            !chained,
            &settings,
        );
        if chained {
            // The whole game, one chunk per game so that a stopped run loses at most one game;
            // the trainers pick the quiet positions out when they read it.
            let chain = kirin::tune::sbinpack::Chain {
                start: opening.clone(),
                moves: rec.moves.clone(),
                scores: rec.scores.clone(),
                result: kirin::tune::sbinpack::result_code(Some(rec.black_result)),
                stem_score: 0,
                metadata: metadata.clone(),
            };
            let mut w = kirin::tune::sbinpack::Writer::new(&mut out);
            w.write(&chain)?;
            w.finish()?;
        } else {
            for s in &rec.samples {
                let r = if s.side == Color::Black {
                    rec.black_result
                } else {
                    1.0 - rec.black_result
                };
                writeln!(out, "{}\t{}\t{}", s.sfen, s.score, r).map_err(|e| e.to_string())?;
            }
        }
        out.flush().map_err(|e| e.to_string())?;
        total_samples += if chained {
            rec.moves.len()
        } else {
            rec.samples.len()
        };
        played += 1;
        if rec.black_result == 1.0 {
            wins += 1;
        } else if rec.black_result == 0.5 {
            draws += 1;
        }
        if played % 20 == 0 {
            eprintln!(
                "game {g}: {played} games, {total_samples} positions, black wins {wins} draws {draws}, {:.0}s",
                start.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "done: {played} games (from {first}), {total_samples} positions, black wins {wins} draws {draws}, {:.0}s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Sizes rayon's pool to `--threads` (default 2) for the fitting and training loops.
fn use_threads(a: &Args) -> Result<(), String> {
    let threads: usize = a.num("threads", 2)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .map_err(|e| e.to_string())
}

fn fit_cmd(a: &Args) -> Result<(), String> {
    use_threads(a)?;
    let paths: Vec<&str> = a.str("data")?.split(',').collect();
    let samples = read_positions(&paths, Smoothing::NONE, kirin::tune::Sample::new)?;
    let init = load_weights(a.str("init")?)?;
    let prior = load_weights(a.str("prior")?)?;
    let cfg = FitConfig {
        epochs: a.num("epochs", 200)?,
        lambda: a.num("lambda", 0.7)?,
        l2: a.num("l2", 1e-8)?,
        lr: a.num("lr", 2.0)?,
        holdout: a.num("holdout", 0.1)?,
        holdout_every: a.opt_num("holdout-every")?,
        k: a.opt_num("k")?,
        verbose: true,
    };
    let t = Instant::now();
    let res = fit(&samples, &init, &prior, &cfg);
    eprintln!(
        "positions {} (train {}, holdout {}), K {:.1}, train loss {:.6} -> {:.6}, holdout loss {:.6} -> {:.6}, {:.0}s",
        samples.len(),
        res.train_n,
        res.holdout_n,
        res.k,
        res.train_loss_before,
        res.train_loss_after,
        res.holdout_loss_before,
        res.holdout_loss_after,
        t.elapsed().as_secs_f64()
    );
    let out = a.str("out")?;
    std::fs::write(out, res.weights.to_text()).map_err(|e| format!("{out}: {e}"))?;
    Ok(())
}

/// Reads a data file as text; `.xz` files through the `xz` program.
fn read_data(path: &str) -> Result<String, String> {
    if path.ends_with(".xz") {
        let out = std::process::Command::new("xz")
            .args(["-dc", path])
            .output()
            .map_err(|e| format!("{path}: cannot run xz ({e})"))?;
        if !out.status.success() {
            return Err(format!("{path}: xz failed"));
        }
        String::from_utf8(out.stdout).map_err(|_| format!("{path}: not text"))
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
    }
}

fn train_cmd(a: &Args) -> Result<(), String> {
    use kirin::tune::nnue::{Adam, FloatNet, Labelled, TrainConfig, split_by_game, train};
    use_threads(a)?;
    let t = Instant::now();
    // `--base linear`: train the network as a correction to the embedded linear evaluation.
    let base = match a.str("base") {
        Ok("linear") => Some(kirin::eval::linear::weights()),
        Ok(other) => return Err(format!("--base: only `linear` is known, not '{other}'")),
        Err(_) => None,
    };
    let paths: Vec<&str> = a.str("data")?.split(',').collect();
    let every: u32 = a.num("holdout-every", 20)?;
    let lambda: f32 = a.num("lambda", 0.5)?;
    // `--baseline EVAL`: the loss another evaluation has on the same held-out positions.
    let baseline = match a.str("baseline") {
        Ok(name) => Some((name, load_evaluator(name)?)),
        Err(_) => None,
    };
    let smooth = match a.0.get("smooth") {
        Some(text) => Smoothing::parse(text).map_err(|e| format!("--smooth: {e}"))?,
        None => Smoothing::NONE,
    };
    let rows = read_positions(&paths, smooth, |pos, score, result, game| {
        let mut p = Labelled::new(pos, score, result, game);
        if let Some(w) = base.as_deref() {
            p.base = w.evaluate(pos) as f32 / kirin::eval::CP_PER_LOGIT as f32;
        }
        // Only held-out positions are measured against the baseline.
        let other = match &baseline {
            Some((_, e)) if game % every.max(1) == 0 => e.evaluate(pos),
            _ => 0,
        };
        (pos.key(), other, p)
    })?;
    let split = split_by_game(rows, every, a.num("dedup", true)?);
    if let Some((name, _)) = &baseline {
        let k = f64::from(kirin::eval::CP_PER_LOGIT);
        let sum: f64 = split
            .valid
            .iter()
            .map(|(v, p)| {
                let err = kirin::tune::sigmoid(f64::from(*v) / k) - f64::from(p.target(lambda));
                err * err
            })
            .sum();
        eprintln!(
            "validation loss of {name}: {:.6}",
            sum / split.valid.len().max(1) as f64
        );
    }
    eprintln!(
        "{} training positions ({} repeats merged), {} held out (games 0 mod {every}; {} dropped \
         as trained on or repeated), read in {:.0}s",
        split.train.len(),
        split.merged,
        split.valid.len(),
        split.dropped,
        t.elapsed().as_secs_f64()
    );
    let data: Vec<Labelled> = split.train.into_iter().map(|(_, p)| p).collect();
    let valid: Vec<Labelled> = split.valid.into_iter().map(|(_, p)| p).collect();
    let cfg = TrainConfig {
        epochs: a.num("epochs", 20)?,
        batch: a.num("batch", 16384)?,
        lr: a.num("lr", 1e-3)?,
        lr_end: a.num("lr-end", 0.05)?,
        lambda,
        seed: a.num("seed", 1)?,
        decay: a.num("decay", 0.0)?,
    };
    let checkpoint = a.0.get("checkpoint").cloned();
    let resume: bool = a.num("resume", false)?;
    let (mut net, mut adam, first_epoch) = match (&checkpoint, resume) {
        (Some(path), true) if std::path::Path::new(path).exists() => {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
            let (n, ad, e) =
                FloatNet::from_checkpoint(&bytes).map_err(|e| format!("{path}: {e}"))?;
            eprintln!("resuming {path} after epoch {e}");
            (n, ad, e)
        }
        _ => {
            let n = match a.str("init") {
                // `--init NET`: go on from a network (`default`: the embedded one) rather than
                // from random weights, so that a round can add new games to what the last
                // network learnt from games that are no longer on hand.
                Ok(name) => {
                    let net = match name {
                        "default" => kirin::eval::embedded_network()
                            .ok_or("the embedded network is unusable")?,
                        path => std::sync::Arc::new(kirin::eval::nnue::Network::from_bytes(
                            &std::fs::read(path).map_err(|e| format!("{path}: {e}"))?,
                        )?),
                    };
                    if net.adds_linear() != base.is_some() {
                        return Err(format!(
                            "--init {name}: {}",
                            if net.adds_linear() {
                                "that network corrects the linear evaluation; give --base linear too"
                            } else {
                                "that network does not correct the linear evaluation; leave out --base"
                            }
                        ));
                    }
                    if a.str("hidden").is_ok() {
                        return Err("--hidden: the width comes from --init's network".into());
                    }
                    FloatNet::from_network(&net)
                }
                Err(_) => {
                    let mut n =
                        FloatNet::random(a.num("hidden", kirin::eval::nnue::HIDDEN)?, cfg.seed);
                    n.adds_linear = base.is_some();
                    n
                }
            };
            let ad = Adam::new(n.params.len());
            (n, ad, 0)
        }
    };
    eprintln!(
        "validation loss {:.6} before training (hidden {})",
        net.loss(&valid, cfg.lambda),
        net.h
    );
    let out = a.str("out")?.to_string();
    let mut failure = None;
    train(
        &mut net,
        &mut adam,
        first_epoch,
        &data,
        &valid,
        &cfg,
        |n, ad, epoch, tl, vl| {
            let secs = t.elapsed().as_secs_f64();
            eprintln!(
                "epoch {epoch}: train loss {tl:.6}, validation loss {vl:.6}, {secs:.0}s ({:.0} positions/s)",
                (data.len() * (epoch - first_epoch)) as f64 / secs.max(1e-9)
            );
            if let Some(path) = &checkpoint
                && let Err(e) = std::fs::write(path, n.checkpoint_bytes(ad, epoch))
            {
                failure = Some(format!("{path}: {e}"));
            }
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    match net.quantise() {
        Ok(q) => std::fs::write(&out, q.to_bytes()).map_err(|e| format!("{out}: {e}"))?,
        Err(e) => eprintln!("not exported: {e}"),
    }
    Ok(())
}

fn convert_cmd(a: &Args) -> Result<(), String> {
    let t = Instant::now();
    let (input, output) = (a.str("in")?, a.str("out")?);
    let (chains, positions) = kirin::tune::records::convert(input, output)?;
    let bytes = std::fs::metadata(output).map_or(0, |m| m.len());
    eprintln!(
        "{input} -> {output}: {positions} positions in {chains} chains, {bytes} bytes ({:.1} a position), {:.1}s",
        bytes as f64 / positions.max(1) as f64,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

fn match_cmd(a: &Args) -> Result<(), String> {
    let ea = load_evaluator(a.str("a")?)?;
    let eb = load_evaluator(a.str("b")?)?;
    let openings = openings_of(a)?;
    let games: usize = a.num("games", 200)?;
    let nodes: u64 = a.num("nodes", 5000)?;
    let first: usize = a.num("first", 0)?;
    let start = Instant::now();
    let (mut w, mut d, mut l) = (0u32, 0u32, 0u32);
    for g in 0..games {
        // Each opening twice, colours swapped.
        let opening = &openings[(first + g / 2) % openings.len()];
        let a_black = g % 2 == 0;
        let mut players = if a_black {
            [Player::new(ea.clone()), Player::new(eb.clone())]
        } else {
            [Player::new(eb.clone()), Player::new(ea.clone())]
        };
        let rec = play_game(
            opening,
            &mut players,
            |_| nodes,
            false,
            &GenSettings::default(),
        );
        let a_score = if a_black {
            rec.black_result
        } else {
            1.0 - rec.black_result
        };
        match a_score {
            1.0 => w += 1,
            0.0 => l += 1,
            _ => d += 1,
        }
        if (g + 1) % 20 == 0 {
            eprintln!(
                "{} games: A {w} wins, {d} draws, {l} losses, {:.0}s",
                g + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    let (elo, margin) = kirin::tune::elo(w, d, l);
    println!(
        "A vs B: {} games, W {w} D {d} L {l}, Elo {elo:+.1} +- {margin:.1} (95%), {:.0}s",
        w + d + l,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Weights from the file the option `key` names, read by `parse`, or else the embedded ones.
fn weights_arg<W>(
    a: &Args,
    key: &str,
    parse: fn(&str) -> Result<W, String>,
    embedded: fn() -> Arc<W>,
) -> Result<Arc<W>, String> {
    match a.str(key) {
        Ok(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            parse(&text)
                .map(Arc::new)
                .map_err(|e| format!("{path}: {e}"))
        }
        Err(_) => Ok(embedded()),
    }
}

/// Writes the samples of `games` generated games to `out` and says how long they took.
fn write_generated(
    out: &str,
    samples: &[SfenResult],
    games: usize,
    start: Instant,
) -> Result<(), String> {
    let text = kirin::tune::sfen_games::write_sfen_results(samples);
    std::fs::write(out, text).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "{games} games, {} positions in {:.0} s",
        samples.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes fitted weights (their file text) to `out` and reports the loss before and after.
fn write_fitted(a: &Args, text: String, samples: usize, loss: (f64, f64)) -> Result<(), String> {
    let out = a.str("out")?;
    std::fs::write(out, text).map_err(|e| format!("{out}: {e}"))?;
    eprintln!("{samples} samples: loss {:.5} -> {:.5}", loss.0, loss.1);
    Ok(())
}

/// The samples of every `sfen<TAB>result[<TAB>score]` file in `data=` (comma-separated).
fn sfen_result_files(a: &Args) -> Result<Vec<kirin::tune::sfen_games::SfenResult>, String> {
    let mut samples = Vec::new();
    for path in a.str("data")?.split(',') {
        let text = read_data(path)?;
        samples.extend(kirin::tune::sfen_games::read_sfen_results(&text, path)?);
    }
    Ok(samples)
}

fn yari_gen_cmd(a: &Args) -> Result<(), String> {
    let out = a.str("out")?;
    let weights = weights_arg(a, "weights", YariWeights::parse, YariWeights::embedded)?;
    let play = SelfPlay {
        games: a.num("games", 100)?,
        nodes: a.num("nodes", 3000)?,
        random_plies: a.num("random-plies", 6)?,
    };
    let mut rng = Rng(a.num("seed", 1)?);
    let t = Instant::now();
    let samples = kirin::tune::yari::generate(&weights, &play, &mut rng);
    write_generated(out, &samples, play.games, t)
}

fn yari_fit_cmd(a: &Args) -> Result<(), String> {
    let samples = sfen_result_files(a)?;
    let init = weights_arg(a, "init", YariWeights::parse, YariWeights::embedded)?;
    let fitted = kirin::tune::yari::fit(&samples, &init, &variant_fit_settings(a)?)?;
    let header = fitted_header(
        "Yari shogi evaluation parameters, in evaluation units (about 2 per reported centipawn).\n\
         Read by src/eval/yari/. Fitted by `kirin-tune yari-fit`",
        &fitted,
        "tuning/notes/yari.md",
    );
    write_variant_fit(a, fitted.weights.to_text(&header), &fitted)
}

fn dai_gen_cmd(a: &Args) -> Result<(), String> {
    let out = a.str("out")?;
    let weights = weights_arg(a, "weights", DaiWeights::parse, kirin::eval::dai::embedded)?;
    let play = SelfPlay {
        games: a.num("games", 100)?,
        nodes: a.num("nodes", 2000)?,
        random_plies: a.num("random-plies", 8)?,
    };
    let max_plies: u32 = a.num("max-plies", 600)?;
    let mut rng = Rng(a.num("seed", 1)?);
    let t = Instant::now();
    let samples = kirin::tune::dai::generate(&weights, &play, max_plies, &mut rng);
    write_generated(out, &samples, play.games, t)
}

fn dai_fit_cmd(a: &Args) -> Result<(), String> {
    let samples = sfen_result_files(a)?;
    let init = weights_arg(a, "init", DaiWeights::parse, kirin::eval::dai::embedded)?;
    let fitted = kirin::tune::dai::fit(&samples, &init, &variant_fit_settings(a)?)?;
    let header = fitted_header(
        "Dai shogi evaluation parameters, in evaluation units (a pawn is about 100).\n\
         Read by src/eval/dai/. Fitted by `kirin-tune dai-fit`",
        &fitted,
        "tuning/notes/dai.md",
    );
    write_variant_fit(a, fitted.weights.to_text(&header), &fitted)
}

/// `yari-fit` and `dai-fit`'s settings, `FitSettings::default()` where not given.
fn variant_fit_settings(a: &Args) -> Result<FitSettings, String> {
    let d = FitSettings::default();
    Ok(FitSettings {
        epochs: a.num("epochs", d.epochs)?,
        lr: a.num("lr", d.lr)?,
        l2: a.num("l2", d.l2)?,
        lambda: a.num("lambda", d.lambda)?,
        holdout_every: a.num("holdout-every", d.holdout_every)?,
    })
}

/// A fitted weights file's opening comment: `what`, then what it was fitted to and how well.
fn fitted_header<W>(what: &str, fitted: &Fitted<W>, notes: &str) -> String {
    let (n, before, after) = fitted.train;
    let mut header = format!(
        "{what} to {n} positions\n(loss {before:.5} -> {after:.5}); {notes} has the commands."
    );
    if let Some((held, before, after)) = fitted.held_out {
        header.push_str(&format!(
            "\nOn {held} positions of held-out games: loss {before:.5} -> {after:.5}."
        ));
    }
    header
}

/// Writes a variant's fitted weights to `out` and reports the losses.
fn write_variant_fit<W>(a: &Args, text: String, fitted: &Fitted<W>) -> Result<(), String> {
    if let Some((held, before, after)) = fitted.held_out {
        eprintln!("{held} held-out positions: loss {before:.5} -> {after:.5}");
    }
    let (n, before, after) = fitted.train;
    write_fitted(a, text, n, (before, after))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let res = Args::parse(&args[1..]).and_then(|a| match cmd.as_str() {
        "gen" => gen_cmd(&a),
        "quality" => quality_cmd(&a),
        "fit" => fit_cmd(&a),
        "match" => match_cmd(&a),
        "convert" => convert_cmd(&a),
        "train" => train_cmd(&a),
        "yari-gen" => yari_gen_cmd(&a),
        "yari-fit" => yari_fit_cmd(&a),
        "dai-gen" => dai_gen_cmd(&a),
        "dai-fit" => dai_fit_cmd(&a),
        _ => Err(USAGE.to_string()),
    });
    if let Err(e) = res {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
