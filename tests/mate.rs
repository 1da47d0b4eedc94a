//! The mate solver against the problems in `shared/data/tsume/mates.tsv`, copied here as facts:
//! each SFEN with the length of its shortest mate in which every attacking move checks, or
//! `NoneWithin(n)` when no such mate of `n` plies or fewer exists.
//!
//! Limits are node counts, never wall-clock times, so a loaded machine only makes the tests slower.

use kirin::mate::{MateLimits, MateResult, MateSolver};
use kirin::shogi::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Copy, Clone, Debug)]
enum Expect {
    Exactly(usize),
    NoneWithin(usize),
}

const PROBLEMS: &[(&str, Expect)] = &[
    (
        "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1",
        Expect::Exactly(1),
    ),
    (
        "kb7/p8/9/9/9/9/8B/9/8K b 2R4G4S4N4L17P 1",
        Expect::Exactly(1),
    ),
    (
        "4k4/9/4S4/9/9/9/9/9/9 b S2r2b4g2s4n4l18p 1",
        Expect::Exactly(1),
    ),
    (
        "9/2B6/3G2r2/3pkL1R1/3gsg3/3S2B2/3g5/4N4/4L4 b 2s3n2l17p 1",
        Expect::Exactly(1),
    ),
    (
        "l1+L6/9/p1pL3Gp/2s+Bp1pp1/2Np3P1/P1P6/1PKP1SB1P/2Gg+nr3/L4k3 b RG2SN5Pn 179",
        Expect::Exactly(1),
    ),
    (
        "k3l3R/p4s3/9/N8/4p4/4KBB2/9/1pp+l+l+l+n+n+n/+s+s+sggggr1 b 14p 1",
        Expect::NoneWithin(1),
    ),
    (
        "kn7/1s7/9/1N7/9/9/9/9/9 b P2r2b4g3s2n4l17p 1",
        Expect::NoneWithin(1),
    ),
    ("3sks3/9/4S4/9/9/8B/9/9/9 b S 1", Expect::Exactly(3)),
    (
        "9/6k2/9/5G3/4G4/4P4/9/9/9 b 2G2r2b4s4n4l17p 1",
        Expect::Exactly(3),
    ),
    (
        "9/5k3/9/5G3/4G4/4P4/9/9/9 b 2G2r2b4s4n4l17p 1",
        Expect::Exactly(3),
    ),
    (
        "7nl/7k1/5+Pppp/9/9/9/9/9/9 b GS2r2b2g3s3n3l14p 1",
        Expect::Exactly(3),
    ),
    (
        "5k3/7gR/4S4/7L1/9/9/9/9/9 b Sr2b3g2s4n3l18p 1",
        Expect::Exactly(3),
    ),
    (
        "9/9/9/9/9/7np/8k/8B/7LR b rb4g4s3n3l17p 1",
        Expect::Exactly(3),
    ),
    (
        "4kp+R2/1+B4n2/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl3p 105",
        Expect::Exactly(3),
    ),
    (
        "6+R2/1+B2k1n2/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl4p 105",
        Expect::Exactly(3),
    ),
    (
        "4k4/l1+P2pG2/7p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Prbgn 3",
        Expect::Exactly(3),
    ),
    (
        "lg3+B1nl/3s2p2/p1n1sS1k1/7pp/9/PKPpP4/1P2gPP1P/1s1r5/LN5NL b G6Prbg 3",
        Expect::Exactly(3),
    ),
    (
        "k8/9/9/1+R7/9/9/9/9/P8 b LPr2b4g4s4n3l16p 1",
        Expect::NoneWithin(3),
    ),
    (
        "6knl/6s2/5Pppp/9/9/9/9/9/9 b G2S2r2b3gs3n3l14p 1",
        Expect::Exactly(5),
    ),
    (
        "4R2nl/6sk1/6pp1/8p/9/9/9/9/9 b BGLrb3g3s3n2l15p 1",
        Expect::Exactly(5),
    ),
    (
        "l2k5/9/3S2S2/9/9/9/9/9/9 b B2N2rb4g2s2n3l18p 1",
        Expect::Exactly(5),
    ),
    (
        "7nl/7k1/9/9/7BL/5+r1R1/9/9/9 b 2Gb2g4s3n2l18p 1",
        Expect::Exactly(5),
    ),
    (
        "4k4/1+B4n+R1/4p1Sp1/2pps1l1g/1p3PR2/2P6/1GNPP+pN2/3S5/1+lBKG4 b GNL4Psl4p 1",
        Expect::Exactly(5),
    ),
    (
        "4+R4/l1+P2pG2/3k3p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Pbgn 3",
        Expect::Exactly(5),
    ),
    (
        "ln5kl/3+BR4/6pg1/p2G3p1/3PppP1p/PP7/2BGP1N1P/6K2/LN6L b G4SN4Pr2p 1",
        Expect::Exactly(5),
    ),
    (
        "9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1",
        Expect::Exactly(7),
    ),
    (
        "3nknB2/2G2g1G1/3p1ps2/7N1/9/9/9/9/9 b L2rbg3sn3l16p 1",
        Expect::Exactly(7),
    ),
    (
        "l8/1ks+P5/1ppp5/p8/9/2P6/9/9/9 b G2SN2r2b3gs3n3l12p 1",
        Expect::Exactly(7),
    ),
    (
        "ln1r4l/3k1gp2/pS1p1+P1+R1/6L1p/1pPP2S2/2S3P2/PP2p1+b1P/3K5/+b7L w 2GSN3Pg2n2p 118",
        Expect::Exactly(7),
    ),
    (
        "ln6l/3+B2k2/6pg1/p2G3p1/3PppP1p/PP7/2BGP1N1P/6K2/LN6L b RG4SN4Pr2p 135",
        Expect::Exactly(7),
    ),
    (
        "ln1p5/2k1p4/1pgP+P4/p8/1P7/P8/9/9/9 b RG2Sr2b2g2s3n3l10p 1",
        Expect::Exactly(9),
    ),
    (
        "ln1gkg1nl/6+P2/2sppps1p/2p3p2/p8/P1P1P3P/2NP1PP2/3s1KSR1/L1+b2G1NL w R2Pbgp 42",
        Expect::Exactly(3),
    ),
    (
        "l3k2nl/4g1gb1/1+S1pspp+P1/p1p6/3n4p/2PPR1P2/P2bPP2P/5GS2/LN1K4L w R2Pgsn2p 50",
        Expect::Exactly(3),
    ),
    (
        "1+P1gkg2l/2s3s+P1/3ppp2p/P1p2npp1/l2N1+b3/3KP1P2/N2P1PS1P/2+p1G2R1/L1+r3sNL w Pbgp 58",
        Expect::Exactly(3),
    ),
    (
        "l5+R1l/4kS3/p4pnpp/2Pppb3/6p1P/P2s5/NP2+nPPR1/2+bS2GK1/L6NL b 3GSP4p 93",
        Expect::Exactly(3),
    ),
    (
        "l1+R5l/2pS5/p2pp+P1pp/2k3p2/2N4P1/PP2R1P1P/2+pPP1N2/2GSG1bs1/LN1K4L b 2GSNPbp 73",
        Expect::Exactly(3),
    ),
    (
        "l2gkg2l/2s3s2/p1nppp1pp/2p3p2/P4P1P1/4n3P/1PPPG1N2/1BKS2+s2/LN3+r3 w RBgl3p 72",
        Expect::Exactly(5),
    ),
    (
        "lnG4nl/5k3/p1p+R1g1p1/1p1p3sp/5N3/2P1p1p2/PP1GP3P/1SG2+p1+b1/LN1K4L w Srbs4p 60",
        Expect::Exactly(5),
    ),
    (
        "ln5+Pl/3s1kg+R1/p2ppl2p/2ps1Bp2/P8/2P3P1P/N2gP4/5KS2/L+r3G1N+b b GS3Pn3p 57",
        Expect::Exactly(5),
    ),
    (
        "ln1g4l/2s2+R3/2kp2G2/p1r2pp1p/4S4/Pp1Gp1P2/BP1P4P/2GKs1+bP1/LNN5L w SN4Pp 88",
        Expect::Exactly(5),
    ),
    (
        "ln1s3nl/1+S4+B2/p1p1k2pp/3p2P2/7P1/P1Pnpp1R1/1P1P+lP2P/2G1G4/L1SKP2N+b b R2GPsp 73",
        Expect::Exactly(5),
    ),
    (
        "ln1g3+Rl/2sk1s+P2/2ppppb1p/p1b3p2/8P/P4P3/2PPP1P2/1+r2GS3/LN+p2KGNL w GN2Ps 36",
        Expect::Exactly(7),
    ),
    (
        "ln+P3s+Pl/2+R1Gsk2/p3pp1g1/4r1ppp/1NS6/6P2/PP1+bPPS1P/3+p1K3/LG3G1NL w Nb3p 72",
        Expect::Exactly(7),
    ),
    (
        "l+P1g2+S1l/2sk5/p1ppppngp/6p2/9/6P2/P1+bPPP2P/2+r2S3/+rN2GK1NL w SNbgl4p 56",
        Expect::Exactly(7),
    ),
    (
        "l6nl/3k2+B2/p1n1g2pp/2G1ppp2/2P2N1P1/3P2P1P/Ps1GP4/1+rSK2R2/LN6L b G3Pb2s2p 77",
        Expect::Exactly(7),
    ),
    (
        "3g4l/+R1sg2S2/p1npk1s+Rp/2pb2p2/4g2N1/1p7/P1PP1PP1P/1P1S5/LNK2G1+lL b N3Pb2p 71",
        Expect::Exactly(7),
    ),
];

/// Far more than any of these problems needs.
const NODE_LIMIT: u64 = 20_000_000;

/// Replays a claimed mate through the rules core: every move legal, every attacker move a check,
/// the defender mated at the end.
fn check_line(sfen: &str, line: &[Move]) -> Result<(), String> {
    let mut pos = Position::from_sfen(sfen).map_err(|e| format!("bad sfen: {e}"))?;
    for (i, &m) in line.iter().enumerate() {
        if !pos.is_legal(m) {
            return Err(format!("ply {}: {m} is illegal", i + 1));
        }
        if i % 2 == 0 && !pos.gives_check(m) {
            return Err(format!("ply {}: attacker move {m} does not check", i + 1));
        }
        pos.do_move(m);
    }
    if line.len() % 2 == 1 && pos.in_check() && pos.is_mated() {
        Ok(())
    } else {
        Err("the line does not end in checkmate".to_string())
    }
}

fn solve(solver: &mut MateSolver, sfen: &str) -> MateResult {
    let mut pos = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => panic!("test data: bad sfen {sfen}: {e}"),
    };
    let before = pos.to_sfen();
    let stop = AtomicBool::new(false);
    let limits = MateLimits {
        deadline: None,
        max_nodes: Some(NODE_LIMIT),
    };
    let r = solver.solve(&mut pos, limits, &stop, &mut |_| {});
    assert_eq!(
        pos.to_sfen(),
        before,
        "solve must leave the position as it was"
    );
    r
}

fn judge(sfen: &str, expect: Expect, result: &MateResult) -> Result<(), String> {
    let text = |l: &[Move]| {
        l.iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    match (expect, result) {
        (Expect::Exactly(n), MateResult::Mate(line)) => {
            check_line(sfen, line)?;
            if line.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "mate of {} plies, expected {n}: {}",
                    line.len(),
                    text(line)
                ))
            }
        }
        (Expect::Exactly(n), other) => Err(format!("expected a mate in {n}, got {other:?}")),
        (Expect::NoneWithin(n), MateResult::Mate(line)) => {
            check_line(sfen, line)?;
            if line.len() > n {
                Ok(())
            } else {
                Err(format!("claimed a mate within {n}: {}", text(line)))
            }
        }
        (Expect::NoneWithin(_), _) => Ok(()),
    }
}

fn run_rows(select: impl Fn(Expect) -> bool) {
    let mut solver = MateSolver::new(64);
    let mut failures = Vec::new();
    let mut count = 0;
    for &(sfen, expect) in PROBLEMS.iter().filter(|(_, e)| select(*e)) {
        count += 1;
        let t = Instant::now();
        let result = solve(&mut solver, sfen);
        eprintln!("{:>8.3}s  {expect:?}  {sfen}", t.elapsed().as_secs_f64());
        if let Err(e) = judge(sfen, expect, &result) {
            failures.push(format!("{sfen}: {e}"));
        }
    }
    assert!(count > 0, "no problems selected");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn mates_in_1() {
    run_rows(|e| matches!(e, Expect::Exactly(1)));
}

#[test]
fn mates_in_3() {
    run_rows(|e| matches!(e, Expect::Exactly(3)));
}

#[test]
fn mates_in_5() {
    run_rows(|e| matches!(e, Expect::Exactly(5)));
}

#[test]
fn mates_in_7_and_9() {
    run_rows(|e| matches!(e, Expect::Exactly(n) if n >= 7));
}

#[test]
fn no_short_mates() {
    run_rows(|e| matches!(e, Expect::NoneWithin(_)));
}

#[test]
fn every_row_is_covered() {
    assert_eq!(PROBLEMS.len(), 46);
}

#[test]
fn positions_without_checks_have_no_mate() {
    let mut solver = MateSolver::new(1);
    let r = solve(
        &mut solver,
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    );
    assert_eq!(r, MateResult::NoMate);
}

#[test]
fn a_fresh_table_and_a_reused_table_agree() {
    let sfen = "9/9/9/4k4/9/4P4/9/9/9 b 4G2r2b4s4n4l17p 1";
    let mut solver = MateSolver::new(16);
    let first = solve(&mut solver, sfen);
    let second = solve(&mut solver, sfen);
    solver.clear();
    let third = solve(&mut solver, sfen);
    for r in [&first, &second, &third] {
        assert!(judge(sfen, Expect::Exactly(7), r).is_ok(), "{r:?}");
    }
}

#[test]
fn white_attacker() {
    // The 7-ply row "l8/1ks+P5/... b G2SN..." with the board turned round and the colours swapped.
    let sfen = "9/9/9/6p2/9/8P/5PPP1/5+pSK1/8L w 2R2B3GS3N3L12Pg2sn 1";
    let mut solver = MateSolver::new(16);
    let r = solve(&mut solver, sfen);
    assert!(judge(sfen, Expect::Exactly(7), &r).is_ok(), "{r:?}");
}

#[test]
fn last_31_plies_of_microcosmos() {
    // The position 31 plies before the end of Microcosmos's 1525-ply solution: a long, narrow
    // mate with repetitions nearby, solved to its exact length.
    let sfen =
        "g2+P+P+P1+P+L/1p4k2/+Rn2ppppl/2+Psg+p+R2/+b+nL6/1PP+B1ssP1/4+Ps2N/4+P1P1L/6G1g b Np 1495";
    let mut solver = MateSolver::new(64);
    let r = solve(&mut solver, sfen);
    assert!(judge(sfen, Expect::Exactly(31), &r).is_ok(), "{r:?}");
}

#[test]
fn stop_from_another_thread_ends_the_search() {
    // Microcosmos: far too big to finish before the stop arrives.
    let sfen = "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1";
    let mut pos = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => panic!("bad sfen: {e}"),
    };
    let stop = AtomicBool::new(false);
    let mut solver = MateSolver::new(64);
    let mut reports = 0;
    let mut stopped_at = None;
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::Relaxed);
        });
        solver.solve(&mut pos, MateLimits::default(), &stop, &mut |p| {
            reports += 1;
            if stop.load(Ordering::Relaxed) && stopped_at.is_none() {
                stopped_at = Some((Instant::now(), p.nodes));
            }
        })
    });
    assert_eq!(result, MateResult::Timeout);
    assert!(reports >= 1);
    // "Promptly" with room for a loaded machine: well under the time a solve of this problem needs.
    if let Some((t, _)) = stopped_at {
        assert!(t.elapsed() < Duration::from_secs(10));
    }
    assert_eq!(
        pos.to_sfen(),
        Position::from_sfen(sfen)
            .map(|p| p.to_sfen())
            .unwrap_or_default()
    );
}

#[test]
fn node_limit_ends_the_search() {
    let sfen = "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1";
    let mut pos = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => panic!("bad sfen: {e}"),
    };
    let stop = AtomicBool::new(false);
    let mut solver = MateSolver::new(16);
    let mut last = 0;
    let limits = MateLimits {
        deadline: None,
        max_nodes: Some(50_000),
    };
    let r = solver.solve(&mut pos, limits, &stop, &mut |p| last = p.nodes);
    assert_eq!(r, MateResult::Timeout);
    assert!((50_000..60_000).contains(&last), "{last}");
}
