//! `kirin judge`: dai shogi's rules as a line-oriented service for referees written in other
//! languages (tuning/dai_match.py). Each request line gets exactly one answer line on stdout;
//! a bad request gets an `error ...` line and the judge reads on.
//!
//! Positions are written as in USI: `startpos` or `sfen <board> <side> <hand> <ply>`, then
//! optionally `moves <m1> <m2> ...` in the notation of `../shared/docs/dai.md` (any pass or igui
//! text is read as the position's one pass or igui, as the engine reads it).
//!
//! Requests and answers:
//! - `check <position>`: every move is checked in turn.
//!   `illegal <ply> <move> <reason>` names the first move that is not legal (ply counts from 1
//!   in the move list), `ok won <black|white> <royals-captured|no-moves>` or `ok draw repetition`
//!   a finished game (a move after the end is `illegal ... game over`), and for a game in play
//!   `ok ongoing`, `ok en-prise` (the side to move can capture all of the opponent's royals at
//!   once) or `ok mated` (whatever the side to move plays, the opponent can then capture all of
//!   its royals: the game is not over by the rules, but this is where engines that look for
//!   checkmate resign).
//! - `canonical <position>`: `canonical <m1> ...`, the moves as the engine writes them.
//! - `legal <position>`: `legal <m1> ...`, every legal move in the final position.
//! - `targets <square> <position>`: `targets <square> <sq1> ...`, the squares (sorted, each
//!   once) where the piece on `square` can end a move, for comparing with another program's
//!   move highlighting; the piece's own square is among them when it can pass or igui (both
//!   end where they start).
//! - `sfen <position>`: `sfen <sfen>` of the final position.
//! - `quit` (or end of input) stops.
//!
//! The judge is dai shogi's own tool, not a service behind the engine interface
//! ([`crate::engine`]): what it answers (royals captured or en prise, a piece's target squares,
//! pass and igui) is dai's rules in dai's terms, no other game has a referee asking, and a
//! referee that asks about a game knows which game it is.

use crate::dai::{DeclinedPawnRule, Move, Outcome, Position, RepetitionRule, Rules, Square};
use crate::shogi::Color;
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

pub const USAGE: &str = "\
kirin judge [--variant dai] [--repetition illegal|fourfold|off] [--optional-promotion]
            [--declined-pawn keep-chances|last-rank]
  --declined-pawn last-rank: a pawn that declined a promotion gets no chance again but a
                  capture onto the last rank (HaChu's rule); default keep-chances (dai.md)
  reads requests on stdin, one answer line each:
  check <pos>            ok ongoing|en-prise|mated, ok won <colour> <reason>, ok draw repetition,
                         or illegal <ply> <move> <reason>
  canonical <pos>        the moves as kirin writes them
  legal <pos>            every legal move of the final position
  targets <sq> <pos>     where the piece on <sq> can end a move (its own square: pass or igui)
  sfen <pos>             the final position
  <pos> is `startpos` or `sfen <board> <side> - <ply>`, then optionally `moves m1 m2 ...`";

/// Entry point of `kirin judge ARGS`.
pub fn main(args: &[&str]) -> ExitCode {
    let rules = match parse_args(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kirin judge: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut judge = Judge::new(rules);
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            // Not UTF-8 or a read error: answer it like any other bad request.
            if writeln!(out, "error unreadable input line").is_err() {
                break;
            }
            continue;
        };
        if line.trim() == "quit" {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        if writeln!(out, "{}", judge.answer(&line))
            .and_then(|_| out.flush())
            .is_err()
        {
            break;
        }
    }
    ExitCode::SUCCESS
}

fn parse_args(args: &[&str]) -> Result<Rules, String> {
    let mut rules = Rules::default();
    let mut rest = args;
    while let Some((&first, tail)) = rest.split_first() {
        rest = tail;
        match first {
            "--variant" => match rest.split_first() {
                Some((&("dai" | "daishogi"), tail)) => rest = tail,
                Some((v, _)) => return Err(format!("the judge knows dai shogi only, not `{v}`")),
                None => return Err("--variant needs a name".into()),
            },
            "--repetition" => match rest.split_first() {
                Some((&r, tail)) => {
                    rules.repetition = match r {
                        "illegal" => RepetitionRule::Illegal,
                        "fourfold" => RepetitionRule::FourfoldDraw,
                        "off" => RepetitionRule::Off,
                        _ => return Err(format!("unknown repetition rule `{r}`")),
                    };
                    rest = tail;
                }
                None => return Err("--repetition needs illegal, fourfold or off".into()),
            },
            "--optional-promotion" => rules.forced_promotion = false,
            "--declined-pawn" => match rest.split_first() {
                Some((&r, tail)) => {
                    rules.declined_pawn = DeclinedPawnRule::from_name(r)
                        .ok_or_else(|| format!("unknown declined-pawn rule `{r}`"))?;
                    rest = tail;
                }
                None => return Err("--declined-pawn needs keep-chances or last-rank".into()),
            },
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(rules)
}

/// The rules and the last position replayed. A referee asks about the same game ply after ply,
/// each request naming the whole game again: the judge keeps the last replay and plays only the
/// moves after the common beginning (taking back the ones that differ), so a request costs the
/// moves that changed, not the whole game.
pub struct Judge {
    rules: Rules,
    last: Option<Replay>,
}

struct Replay {
    /// The position words before `moves`.
    start: Vec<String>,
    /// The move texts played, as given.
    texts: Vec<String>,
    played: Vec<Move>,
    pos: Position,
}

impl Judge {
    pub fn new(rules: Rules) -> Judge {
        Judge { rules, last: None }
    }

    /// The answer line to one request line.
    pub fn answer(&mut self, line: &str) -> String {
        let words: Vec<&str> = line.split_whitespace().collect();
        let result = match words.as_slice() {
            ["check", pos @ ..] => self.replay(pos).map(check),
            ["canonical", pos @ ..] => self.replay(pos).map(|r| {
                let texts: Vec<String> = r.played.iter().map(Move::to_string).collect();
                join("canonical", &texts)
            }),
            ["legal", pos @ ..] => self.replay(pos).map(|r| {
                let texts: Vec<String> = r.pos.legal_moves().iter().map(Move::to_string).collect();
                join("legal", &texts)
            }),
            ["targets", square, pos @ ..] => match square.parse::<Square>() {
                Ok(sq) => self.replay(pos).map(|r| {
                    let texts: Vec<String> =
                        targets(&r.pos, sq).iter().map(Square::to_string).collect();
                    join(&format!("targets {sq}"), &texts)
                }),
                Err(e) => Err(e),
            },
            ["sfen", pos @ ..] => self
                .replay(pos)
                .map(|r| format!("sfen {}", r.pos.to_sfen())),
            [] => Err("empty request".into()),
            [other, ..] => Err(format!(
                "unknown request `{other}` (expected check, canonical, legal, targets or sfen)"
            )),
        };
        match result {
            Ok(text) => text,
            Err(e) if e.starts_with("illegal ") => e,
            Err(e) => format!("error {e}"),
        }
    }

    /// The position after the moves of `words`; an illegal move is an `Err` starting with
    /// `illegal`.
    fn replay(&mut self, words: &[&str]) -> Result<&mut Replay, String> {
        let (start, texts) = split_position(words)?;
        let reusable = self
            .last
            .as_ref()
            .is_some_and(|r| r.start.iter().map(String::as_str).eq(start.iter().copied()));
        if !reusable {
            self.last = None;
            let mut pos = start_position(start)?;
            pos.set_rules(self.rules);
            self.last = Some(Replay {
                start: start.iter().map(|w| w.to_string()).collect(),
                texts: Vec::new(),
                played: Vec::new(),
                pos,
            });
        }
        let Some(r) = self.last.as_mut() else {
            return Err("no position".into());
        };
        let common = r
            .texts
            .iter()
            .zip(texts.iter())
            .take_while(|(a, b)| a == b)
            .count();
        while r.texts.len() > common {
            r.texts.pop();
            r.played.pop();
            r.pos.undo_move();
        }
        for (i, text) in texts.iter().enumerate().skip(common) {
            if r.pos.outcome() != Outcome::Ongoing {
                return Err(format!("illegal {} {text} game over", i + 1));
            }
            match r.pos.parse_move(text) {
                Ok(m) => {
                    r.pos.do_move(m);
                    r.played.push(m);
                    r.texts.push(text.to_string());
                }
                Err(e) => return Err(format!("illegal {} {text} {e}", i + 1)),
            }
        }
        Ok(r)
    }
}

/// The answer line to one request line, from a fresh judge.
pub fn answer(line: &str, rules: Rules) -> String {
    Judge::new(rules).answer(line)
}

fn join(head: &str, items: &[String]) -> String {
    let mut s = head.to_string();
    for item in items {
        s.push(' ');
        s.push_str(item);
    }
    s
}

/// The words of the start position and the move texts of a USI-style position.
fn split_position<'a, 'b>(words: &'a [&'b str]) -> Result<(&'a [&'b str], &'a [&'b str]), String> {
    let n = words
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(words.len());
    let (start, rest) = words.split_at(n);
    let moves = rest.get(1..).unwrap_or_default();
    match start {
        ["startpos"] | ["sfen", ..] => Ok((start, moves)),
        ["startpos", other, ..] => Err(format!("expected `moves`, found `{other}`")),
        [] => Err("missing position (startpos or sfen ...)".into()),
        [other, ..] => Err(format!("bad position `{other}`: expected startpos or sfen")),
    }
}

fn start_position(start: &[&str]) -> Result<Position, String> {
    match start {
        ["startpos"] => Ok(Position::startpos()),
        ["sfen", sfen @ ..] => {
            Position::from_sfen(&sfen.join(" ")).map_err(|e| format!("bad sfen: {e}"))
        }
        _ => Err("missing position (startpos or sfen ...)".into()),
    }
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn check(r: &mut Replay) -> String {
    let pos = &mut r.pos;
    match pos.outcome() {
        Outcome::Won(c) => {
            let reason = if pos.royals(c.flip()) == 0 {
                "royals-captured"
            } else {
                "no-moves"
            };
            format!("ok won {} {reason}", colour_name(c))
        }
        Outcome::Drawn => "ok draw repetition".into(),
        Outcome::Ongoing if can_capture_all_royals(pos) => "ok en-prise".into(),
        Outcome::Ongoing if is_mated(pos) => "ok mated".into(),
        Outcome::Ongoing => "ok ongoing".into(),
    }
}

/// Whether the side to move has a move that captures every royal the opponent has.
fn can_capture_all_royals(pos: &Position) -> bool {
    let them = pos.side_to_move().flip();
    let need = pos.royals(them) as usize;
    pos.legal_moves().into_iter().any(|m| {
        pos.captured_pieces(m)
            .iter()
            .filter(|p| p.kind().is_some_and(|k| k.is_royal()) && p.color() == them)
            .count()
            >= need
    })
}

/// Whether every move of the side to move lets the opponent capture all of its royals next
/// (the side has moves: `outcome` is ongoing).
fn is_mated(pos: &mut Position) -> bool {
    let us = pos.side_to_move();
    for m in pos.legal_moves() {
        pos.do_move(m);
        let lost = match pos.outcome() {
            Outcome::Won(c) => c != us,
            Outcome::Drawn => false,
            Outcome::Ongoing => can_capture_all_royals(pos),
        };
        pos.undo_move();
        if !lost {
            return false;
        }
    }
    true
}

/// Where the piece on `sq` can end a move, sorted and without repeats. The move list holds
/// one pass and one igui per victim, each made by one chosen piece, so whether this piece can
/// pass or igui (ending on `sq`) is asked of the move reader, which takes such a move by any
/// piece able to make it.
fn targets(pos: &Position, sq: Square) -> Vec<Square> {
    let mut out: Vec<Square> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == Some(sq) && m.to() != Some(sq))
        .filter_map(Move::to)
        .collect();
    let returns = Square::all()
        .filter(|n| n.file().abs_diff(sq.file()) <= 1 && n.rank().abs_diff(sq.rank()) <= 1)
        .any(|n| n != sq && pos.parse_move(&format!("{sq}{n}{sq}")).is_ok());
    if returns {
        out.push(sq);
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(line: &str) -> String {
        answer(line, Rules::default())
    }

    #[test]
    fn start_position_is_in_play_with_71_moves() {
        assert_eq!(ask("check startpos"), "ok ongoing");
        let legal = ask("legal startpos");
        assert_eq!(legal.split_whitespace().count(), 1 + 71);
        assert!(legal.split_whitespace().any(|m| m == "8k8j"), "{legal}");
    }

    #[test]
    fn illegal_moves_are_named_with_their_ply() {
        assert_eq!(ask("check startpos moves 8k8j 8e8f"), "ok ongoing");
        let a = ask("check startpos moves 8k8j 8k8i");
        assert!(a.starts_with("illegal 2 8k8i "), "{a}");
        let a = ask("check startpos moves zz");
        assert!(a.starts_with("illegal 1 zz bad dai move"), "{a}");
    }

    #[test]
    fn bad_requests_are_one_line_errors() {
        for bad in [
            "",
            "frobnicate startpos",
            "check",
            "check sfen 1/2/3 b - 1",
            "check startpos 8k8j",
            "targets 99z startpos",
            "check position startpos",
        ] {
            let a = ask(bad);
            assert!(a.starts_with("error "), "{bad:?} -> {a}");
            assert!(!a.contains('\n'), "{a}");
        }
    }

    #[test]
    fn targets_of_the_lion_and_kirin_at_the_start() {
        // Black's lion on 8m reaches only 10n and 6n (everything else within two squares is
        // Black's own); the kirin on 9m jumps to 11m and steps to 10n.
        assert_eq!(ask("targets 8m startpos"), "targets 8m 6n 10n");
        assert_eq!(ask("targets 9m startpos"), "targets 9m 11m 10n");
        assert_eq!(ask("targets 8o startpos"), "targets 8o");
    }

    #[test]
    fn a_captured_king_ends_the_game_and_later_moves_are_refused() {
        // Black's rook on 1a takes White's king on 11a along the empty first rank.
        let sfen = "sfen 4k9R/15/15/15/15/15/15/15/15/15/15/15/15/15/7K7 b - 1";
        assert_eq!(ask(&format!("check {sfen}")), "ok en-prise");
        assert_eq!(
            ask(&format!("check {sfen} moves 1a11a")),
            "ok won black royals-captured"
        );
        let a = ask(&format!("check {sfen} moves 1a11a 8o8n"));
        assert!(a.starts_with("illegal 2 8o8n game over"), "{a}");
    }

    #[test]
    fn mated_when_every_move_loses_the_king() {
        // White's king on 1a is boxed in by two Black rooks: 2-file and b-rank covered.
        let sfen = "sfen 14k/15/R14/15/15/15/15/15/15/15/15/15/15/15/7K6R b - 1";
        let a = ask(&format!("check {sfen} moves 1o2o"));
        assert_eq!(a, "ok ongoing", "the king on 1a can still step to 1b");
        // Rooks on 2o and 3b: the king on 1a can go to 1b (attacked by 3b) or 2a/2b (2o).
        let sfen = "sfen 14k/12R2/15/15/15/15/15/15/15/15/15/15/15/15/7K5R1 w - 1";
        assert_eq!(ask(&format!("check {sfen}")), "ok mated");
    }

    #[test]
    fn canonical_reads_any_pass_as_the_positions_one_pass() {
        // A lion in the open: a pass through any empty neighbour is the position's one pass.
        let sfen = "sfen 7k7/15/15/15/15/15/15/7L!7/15/15/15/15/15/15/7K7 b - 1";
        assert_eq!(
            ask(&format!("targets 8h {sfen}")).split(' ').count(),
            2 + 24 + 1
        );
        let a = ask(&format!("canonical {sfen} moves 8h7g8h"));
        let b = ask(&format!("canonical {sfen} moves 8h9i8h"));
        assert_eq!(a, b);
        assert!(a.starts_with("canonical 8h"), "{a}");
        assert_eq!(ask(&format!("check {sfen} moves 8h7g8h")), "ok ongoing");
    }

    #[test]
    fn a_judge_that_reuses_its_last_replay_answers_as_a_fresh_one() {
        // A game of first legal moves, asked about ply by ply, then with branches, shorter
        // prefixes, an illegal move and another start position between requests.
        let mut game: Vec<String> = Vec::new();
        let mut pos = Position::startpos();
        for i in 0..40 {
            let moves = pos.legal_moves();
            let m = moves[(i * 7) % moves.len()];
            game.push(m.to_string());
            pos.do_move(m);
        }
        let mut requests = Vec::new();
        for n in 0..=game.len() {
            requests.push(format!("check startpos moves {}", game[..n].join(" ")));
            requests.push(format!("legal startpos moves {}", game[..n].join(" ")));
        }
        for n in [30, 5, 39, 0, 12] {
            requests.push(format!("sfen startpos moves {}", game[..n].join(" ")));
            requests.push(format!(
                "canonical startpos moves {} 8k8i",
                game[..n].join(" ")
            ));
            requests.push(format!("targets 8m startpos moves {}", game[..n].join(" ")));
            requests.push(format!("check {}", START_SFEN_WORDS));
        }
        let mut judge = Judge::new(Rules::default());
        for r in &requests {
            assert_eq!(judge.answer(r), ask(r), "{r}");
        }
    }

    const START_SFEN_WORDS: &str = "sfen lnuicsgkgsciunl/a1c'1f1tet1f1c'1a/1x'1a'1wxl!ow1a'1x'1/rf'mvbhdqdhbvmf'r/ppppppppppppppp/4p'5p'4/15/15/15/4P'5P'4/PPPPPPPPPPPPPPP/RF'MVBHDQDHBVMF'R/1X'1A'1WOL!XW1A'1X'1/A1C'1F1TET1F1C'1A/LNUICSGKGSCIUNL w - 1 moves 8e8f";

    #[test]
    fn repetition_rule_is_an_argument() {
        let shuffle = "moves 8m6n 8c10b 6n8m 10b8c";
        assert!(ask(&format!("check startpos {shuffle}")).starts_with("illegal 4 10b8c"));
        let rules = parse_args(&["--variant", "dai", "--repetition", "off"]).unwrap();
        assert_eq!(
            answer(&format!("check startpos {shuffle}"), rules),
            "ok ongoing"
        );
        assert!(parse_args(&["--variant", "chu"]).is_err());
        assert!(parse_args(&["--repetition", "sometimes"]).is_err());
        assert!(parse_args(&["--frob"]).is_err());
    }

    #[test]
    fn declined_pawn_rule_is_an_argument() {
        // Black's pawn enters the zone on 11e declining the promotion, then takes 11d: a
        // chance by dai.md's rule, none by HaChu's (only a capture onto the last rank).
        let sfen = "sfen k14/15/15/4p10/15/4P10/15/15/15/15/15/15/15/15/7K7 b - 1";
        let game = format!("check {sfen} moves 11f11e 15a15b 11e11d+");
        assert_eq!(ask(&game), "ok ongoing");
        let rules = parse_args(&["--declined-pawn", "last-rank"]).unwrap();
        let a = answer(&game, rules);
        assert!(a.starts_with("illegal 3 11e11d+"), "{a}");
        let plain = format!("check {sfen} moves 11f11e 15a15b 11e11d");
        assert_eq!(answer(&plain, rules), "ok ongoing");
        let promoted = format!("check {sfen} moves 11f11e+ 15a15b 11e11d");
        assert_eq!(answer(&promoted, rules), "ok ongoing");
        let rules = parse_args(&["--declined-pawn", "keep-chances"]).unwrap();
        assert_eq!(answer(&game, rules), "ok ongoing");
        assert!(parse_args(&["--declined-pawn", "never"]).is_err());
        assert!(parse_args(&["--declined-pawn"]).is_err());
    }
}
