//! Protocol fuzz: over 100,000 random, truncated and malformed lines, mixed with valid
//! commands, piped into one engine process. It must never die, never write anything but
//! protocol lines, answer every `go` and `isready` exactly once, and still answer `isready`
//! at the end. Seeded, so a failure replays: `KIRIN_FUZZ_SEED=<n> cargo test --test usi_fuzz`.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, TIMEOUT};
use kirin::shogi::{Position, legal_moves};
use kirin::usi::{Command, parse_one};

const LINES: usize = 100_000;

/// xorshift64*: enough randomness for inputs, and no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "usi",
    "isready",
    "usinewgame",
    "position",
    "startpos",
    "sfen",
    "moves",
    "go",
    "ponder",
    "infinite",
    "btime",
    "wtime",
    "byoyomi",
    "binc",
    "winc",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "perft",
    "searchmoves",
    "stop",
    "ponderhit",
    "gameover",
    "win",
    "lose",
    "draw",
    "setoption",
    "name",
    "value",
    "register",
    "later",
    "debug",
    "on",
    "eval",
    "d",
    "MultiPV",
    "USI_Ponder",
    "true",
    "false",
    "EnteringKingRule",
    "TryRule",
    "-",
    "b",
    "w",
    "+",
    "*",
    "0",
    "1",
    "-1",
    "100",
    "4294967296",
    "18446744073709551616",
    "99999999999999999999999",
    "-0",
    "1e9",
    "0x10",
    "将棋",
    "\u{feff}",
    "\t",
    "\r",
    "\0",
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
];

const VALID_GOS: &[&str] = &[
    "go depth 1",
    "go nodes 100",
    "go movetime 10",
    "go byoyomi 10",
    "go btime 100 wtime 100 byoyomi 10",
    "go btime 100 wtime 100 binc 10 winc 10",
    "go infinite",
    "go ponder",
    "go ponder btime 100 wtime 100 byoyomi 10",
    "go mate 10",
    "go mate infinite",
    "go perft 1",
    "go perft 2",
    "go",
];

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(120);
    (0..len)
        .map(|_| match rng.next() as u8 {
            b'\n' => b'?',
            b => b,
        })
        .collect()
}

fn random_move(rng: &mut Rng) -> String {
    let file = |rng: &mut Rng| char::from(b'1' + rng.below(9) as u8);
    let rank = |rng: &mut Rng| char::from(b'a' + rng.below(9) as u8);
    match rng.below(10) {
        0 => format!(
            "{}*{}{}",
            rng.pick(&['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K', 'p']),
            file(rng),
            rank(rng)
        ),
        1 => rng.pick(WORDS).to_string(),
        2 => format!("{}{}{}{}+", file(rng), rank(rng), file(rng), rank(rng)),
        _ => format!("{}{}{}{}", file(rng), rank(rng), file(rng), rank(rng)),
    }
}

/// A legal game prefix of random length, as a GUI would send it.
fn legal_moves_from_start(rng: &mut Rng) -> Vec<String> {
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    for _ in 0..rng.below(60) {
        let list = legal_moves(&pos);
        let Some(&m) = list.get(rng.below(list.len())) else {
            break;
        };
        moves.push(m.to_string());
        pos.do_move(m);
    }
    moves
}

fn garbage_sfen(rng: &mut Rng) -> String {
    let mut sfen: Vec<char> = START.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(sfen.len());
        match rng.below(3) {
            0 => {
                sfen.remove(at);
            }
            1 => sfen.insert(
                at,
                *rng.pick(&['k', 'K', '+', '9', '/', 'x', ' ', 'P', 'p']),
            ),
            _ => sfen[at] = *rng.pick(&['1', '2', 'r', 'B', '+', 'w', '0', '/']),
        }
    }
    sfen.into_iter().collect()
}

fn valid_command(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "usi".into(),
        1 | 2 => "isready".into(),
        3 => "usinewgame".into(),
        4..=6 => {
            let moves = legal_moves_from_start(rng);
            if moves.is_empty() {
                "position startpos".into()
            } else if rng.chance(50) {
                format!("position startpos moves {}", moves.join(" "))
            } else {
                format!("position sfen {START} moves {}", moves.join(" "))
            }
        }
        7..=10 => rng.pick(VALID_GOS).to_string(),
        11 => format!(
            "go depth 1 searchmoves {} {}",
            random_move(rng),
            random_move(rng)
        ),
        12 | 13 => "stop".into(),
        14 => "ponderhit".into(),
        15 => format!(
            "ponderhit btime {} wtime {} byoyomi 10",
            rng.below(1000),
            rng.below(1000)
        ),
        16 => rng
            .pick(&["gameover win", "gameover lose", "gameover draw", "gameover"])
            .to_string(),
        17 => rng.pick(&["eval", "d"]).to_string(),
        18 => format!(
            "setoption name {} value {}",
            rng.pick(&[
                "MultiPV",
                "USI_Ponder",
                "EnteringKingRule",
                "NodesLimit",
                "Nonsense",
                "BookFile",
                "ResignValue",
                "ConsiderationMode"
            ]),
            rng.pick(WORDS)
        ),
        _ => rng
            .pick(&["debug", "register later", "d", "eval"])
            .to_string(),
    }
}

/// A valid command, cut short or with a word swapped or inserted.
fn mutated(rng: &mut Rng) -> Vec<u8> {
    let line = valid_command(rng);
    match rng.below(4) {
        0 => {
            let mut bytes = line.into_bytes();
            bytes.truncate(rng.below(bytes.len() + 1));
            bytes
        }
        1 => {
            let mut words: Vec<String> = line.split(' ').map(String::from).collect();
            let at = rng.below(words.len());
            words[at] = rng.pick(WORDS).to_string();
            words.join(" ").into_bytes()
        }
        2 => {
            let mut words: Vec<String> = line.split(' ').map(String::from).collect();
            let at = rng.below(words.len() + 1);
            words.insert(at, rng.pick(WORDS).to_string());
            words
                .join(*rng.pick(&[" ", "  ", "\t", " \r "]))
                .into_bytes()
        }
        _ => {
            let mut bytes = line.into_bytes();
            let at = rng.below(bytes.len() + 1);
            bytes.insert(at, rng.next() as u8 | 0x80);
            bytes
        }
    }
}

fn random_line(rng: &mut Rng) -> Vec<u8> {
    match rng.below(10) {
        0..=2 => valid_command(rng).into_bytes(),
        3..=5 => mutated(rng),
        6 => random_bytes(rng),
        7 => {
            let n = 1 + rng.below(12);
            let words: Vec<&str> = (0..n).map(|_| *rng.pick(WORDS)).collect();
            words.join(" ").into_bytes()
        }
        8 => format!("position sfen {}", garbage_sfen(rng)).into_bytes(),
        _ => {
            let mut moves = legal_moves_from_start(rng);
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(moves.len() + 1);
                moves.insert(at, random_move(rng));
            }
            format!("position startpos moves {}", moves.join(" ")).into_bytes()
        }
    }
}

/// What the engine owes for the lines sent.
#[derive(Default, Debug, PartialEq, Eq)]
struct Owed {
    readyok: usize,
    usiok: usize,
    bestmove: usize,
    checkmate: usize,
}

/// Reads a line the way the engine does, and says whether it is safe to send: no `quit`
/// (the engine would leave), no hash sizes (the memory is not ours to take), no thread
/// counts or deep perfts (they would only make the run slow).
fn classify(line: &[u8], owed: &mut Owed) -> bool {
    match parse_one(&String::from_utf8_lossy(line)) {
        Command::Quit => false,
        Command::SetOption { name, .. }
            if ["USI_Hash", "MateHash", "Threads"]
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&name)) =>
        {
            false
        }
        Command::Go(go) if go.perft.is_some_and(|depth| depth > 2) => false,
        Command::Go(go) => {
            if go.perft.is_none() {
                if go.mate.is_some() {
                    owed.checkmate += 1;
                } else {
                    owed.bestmove += 1;
                }
            }
            true
        }
        Command::IsReady => {
            owed.readyok += 1;
            true
        }
        Command::Usi => {
            owed.usiok += 1;
            true
        }
        _ => true,
    }
}

#[test]
fn random_and_malformed_lines_never_break_the_engine() {
    let seed = std::env::var("KIRIN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x6b69_7269_6e21_u64);
    let mut rng = Rng(seed | 1);
    let started = Instant::now();

    let mut owed = Owed::default();
    let mut input = Vec::new();
    // A small table: `usinewgame` clears it, and the fuzz sends many.
    for line in [
        "setoption name USI_Hash value 1",
        "setoption name Threads value 1",
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let mut sent = 0;
    while sent < LINES {
        let line = random_line(&mut rng);
        if classify(&line, &mut owed) {
            input.extend_from_slice(&line);
            input.push(b'\n');
            sent += 1;
        }
    }
    // Whatever was left pondering ends, and the engine must still be there.
    input.extend_from_slice(b"stop\nisready\n");
    owed.readyok += 1;

    let mut engine = Engine::start();
    // Written in pieces while the harness drains stdout, so neither pipe fills up.
    for chunk in input.chunks(64 * 1024) {
        engine.send_unlogged(chunk);
    }

    let mut got = Owed::default();
    let deadline = Instant::now() + Duration::from_secs(120);
    while got != owed {
        assert!(
            Instant::now() < deadline,
            "seed {seed}: still owed after 120 s: got {got:?}, owed {owed:?}"
        );
        let Some(line) = engine.next_line_within(TIMEOUT, true) else {
            panic!("seed {seed}: silent for {TIMEOUT:?}: got {got:?}, owed {owed:?}");
        };
        match line.split(' ').next() {
            Some("readyok") => got.readyok += 1,
            Some("usiok") => got.usiok += 1,
            Some("bestmove") => got.bestmove += 1,
            Some("checkmate") => got.checkmate += 1,
            _ => {}
        }
        if engine.transcript.len() > 1000 {
            engine.transcript.drain(..800);
        }
    }
    // Nothing more is owed, so nothing more may come.
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert_eq!(lines, ["readyok"], "seed {seed}");
    engine.quit();
    eprintln!(
        "fuzz: {LINES} lines, seed {seed}, {owed:?}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
