//! Runs dai shogi's mate search on positions read from stdin, one per line (`startpos` or a
//! dai SFEN, then optionally `moves ...`), under HaChu's declined-pawn rule, and prints per
//! line `mate N MOVES...`, `nomate` or `unknown`, with the nodes and milliseconds spent.
//! Arguments: the node limit (20,000) and the depth limit in plies (21). The notes
//! (`tuning/notes/dai.md`, "A mate search") used it on positions from match records:
//!
//! ```sh
//! cargo run --release --example dai_mate_scan -- 20000 25 < positions.txt
//! ```

use kirin::dai::mate::{MateResult, MateSearch};
use kirin::dai::{DeclinedPawnRule, Position, Rules, START_SFEN};
use std::io::BufRead;
use std::time::Instant;

fn position(line: &str) -> Result<Position, String> {
    let (head, moves) = line.split_once(" moves ").unwrap_or((line, ""));
    let head = head.trim();
    let sfen = if head == "startpos" {
        START_SFEN
    } else {
        head.trim_start_matches("sfen ")
    };
    let mut pos = Position::from_sfen(sfen).map_err(|e| e.to_string())?;
    pos.set_rules(Rules {
        declined_pawn: DeclinedPawnRule::LastRankOnly,
        ..pos.rules()
    });
    for text in moves.split_whitespace() {
        let m = pos.parse_move(text)?;
        pos.do_move(m);
    }
    Ok(pos)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let depth: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(21);
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let mut pos = match position(&line) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                println!("error");
                continue;
            }
        };
        let start = Instant::now();
        let mut search = MateSearch::new(limit, depth);
        let answer = match search.solve(&mut pos) {
            MateResult::Mate(line) => {
                let moves: Vec<String> = line.iter().map(|m| m.to_string()).collect();
                format!("mate {} {}", line.len(), moves.join(" "))
            }
            MateResult::NoMate => "nomate".to_string(),
            MateResult::Unknown => "unknown".to_string(),
        };
        println!(
            "{answer} nodes {} ms {}",
            search.nodes(),
            start.elapsed().as_millis()
        );
    }
}
