use kirin::shogi::{Position, perft};
use std::time::Instant;

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        let depth = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(12);
        let threads = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(1);
        let r = kirin::bench::run(depth, threads, 64);
        let ms = r.elapsed.as_millis().max(1) as u64;
        println!(
            "Nodes searched: {}\nNodes/second: {}",
            r.nodes,
            r.nodes * 1000 / ms
        );
        return;
    }
    if args.first().map(String::as_str) == Some("perft") {
        let depth: u32 = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(1);
        let mut pos = if args.len() > 2 {
            match Position::from_sfen(&args[2..].join(" ")) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("bad sfen: {e}");
                    std::process::exit(2);
                }
            }
        } else {
            Position::startpos()
        };
        let t = Instant::now();
        let mut total = 0;
        for (m, n) in perft::divide(&mut pos, depth) {
            println!("{m}: {n}");
            total += n;
        }
        println!("Nodes searched: {total}");
        eprintln!("{:.3}s", t.elapsed().as_secs_f64());
    }
}
