use kirin::dai::mate::{MateResult, MateSearch};
use kirin::dai::{DeclinedPawnRule, Position, Rules};
use std::io::BufRead;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20000);
    let depth: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(21);
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let (head, moves) = match line.split_once(" moves ") {
            Some((h, m)) => (h.to_string(), m.to_string()),
            None => (line.clone(), String::new()),
        };
        let sfen = if head.trim() == "startpos" {
            kirin::dai::START_SFEN.to_string()
        } else {
            head.trim().trim_start_matches("sfen ").to_string()
        };
        let mut pos = Position::from_sfen(&sfen).unwrap();
        pos.set_rules(Rules {
            declined_pawn: DeclinedPawnRule::LastRankOnly,
            ..pos.rules()
        });
        for m in moves.split_whitespace() {
            let mv = pos.parse_move(m).unwrap();
            pos.do_move(mv);
        }
        let t = Instant::now();
        let mut s = MateSearch::new(limit, depth);
        let r = s.solve(&mut pos);
        let desc = match &r {
            MateResult::Mate(pv) => format!(
                "mate {} {}",
                pv.len(),
                pv.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            MateResult::NoMate => "nomate".into(),
            MateResult::Unknown => "unknown".into(),
        };
        println!(
            "{} nodes {} ms {}",
            desc,
            s.nodes(),
            t.elapsed().as_millis()
        );
    }
}
