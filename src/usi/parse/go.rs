//! The `go` command and `ponderhit`, which shares its clock fields: the clocks, the search
//! limits and `searchmoves`, in any order, with unknown words skipped (and their numbers).

use nom::{
    Parser,
    branch::alt,
    combinator::{map, not, value, verify},
    multi::{fold_many0, many0},
    sequence::preceded,
};

use super::lex::{self, Res, checked_move, committed, count, keyword, millis, noise, sep, word};
use crate::usi::command::{ClockTimes, Command, GoParams, MateLimit};

/// Where a `btime`-like number is stored.
type ClockSlot = fn(&mut ClockTimes) -> &mut Option<u64>;

/// A clock field of `go` or `ponderhit`.
fn clock_field(input: &str) -> Res<'_, (ClockSlot, u64)> {
    fn slot<'a>(
        key: &'static str,
        slot: ClockSlot,
    ) -> impl Parser<&'a str, Output = (ClockSlot, u64), Error = lex::Reject<'a>> {
        map(keyed(key, millis), move |ms| (slot, ms))
    }
    alt((
        slot("btime", |clock| &mut clock.btime),
        slot("wtime", |clock| &mut clock.wtime),
        slot("byoyomi", |clock| &mut clock.byoyomi),
        slot("binc", |clock| &mut clock.binc),
        slot("winc", |clock| &mut clock.winc),
    ))
    .parse(input)
}

/// `key <number>`, the number required once the key is seen.
fn keyed<'a, O>(
    key: &'static str,
    number: impl Parser<&'a str, Output = O, Error = lex::Reject<'a>>,
) -> impl Parser<&'a str, Output = O, Error = lex::Reject<'a>> {
    let number = committed(preceded(sep, number), move |got| {
        format!("`{key}` needs a number, got {got}")
    });
    preceded(keyword(key), number)
}

/// One `go` parameter, read in any order.
#[derive(Clone)]
enum GoParam {
    Ponder,
    Infinite,
    Clock(ClockSlot, u64),
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
    Mate(MateLimit),
    Perft(u32),
    SearchMoves(Vec<String>),
    Noise,
}

impl GoParam {
    fn apply(self, mut go: GoParams) -> GoParams {
        match self {
            GoParam::Ponder => go.ponder = true,
            GoParam::Infinite => go.infinite = true,
            GoParam::Clock(slot, ms) => *slot(&mut go.clock) = Some(ms),
            GoParam::MoveTime(ms) => go.movetime = Some(ms),
            GoParam::Depth(depth) => go.depth = Some(depth),
            GoParam::Nodes(nodes) => go.nodes = Some(nodes),
            GoParam::Mate(limit) => go.mate = Some(limit),
            GoParam::Perft(depth) => go.perft = Some(depth),
            GoParam::SearchMoves(moves) => go.searchmoves = moves,
            GoParam::Noise => {}
        }
        go
    }
}

/// The words that begin a `go` parameter, which end a `searchmoves` list.
const GO_KEYWORDS: &str =
    "ponder infinite btime wtime byoyomi binc winc movetime depth nodes mate perft searchmoves";

pub(super) fn go(input: &str) -> Res<'_, Command> {
    let params = fold_many0(preceded(sep, go_param), GoParams::default, |go, param| {
        param.apply(go)
    });
    map(preceded(keyword("go"), params), Command::Go).parse(input)
}

fn go_param(input: &str) -> Res<'_, GoParam> {
    alt((
        value(GoParam::Ponder, keyword("ponder")),
        value(GoParam::Infinite, keyword("infinite")),
        map(clock_field, |(slot, ms)| GoParam::Clock(slot, ms)),
        map(keyed("movetime", millis), GoParam::MoveTime),
        map(keyed("depth", count), GoParam::Depth),
        map(keyed("nodes", count), GoParam::Nodes),
        map(mate, GoParam::Mate),
        map(keyed("perft", count), GoParam::Perft),
        map(searchmoves, GoParam::SearchMoves),
        value(GoParam::Noise, noise),
    ))
    .parse(input)
}

/// `mate <ms>` or `mate infinite`; a bare `mate` has no limit to search under.
fn mate(input: &str) -> Res<'_, MateLimit> {
    let limit = alt((
        value(MateLimit::Infinite, keyword("infinite")),
        map(millis, MateLimit::Millis),
    ));
    let limit = committed(preceded(sep, limit), |got| {
        format!("`go mate` needs milliseconds or `infinite`, got {got}")
    });
    preceded(keyword("mate"), limit).parse(input)
}

/// Moves up to the next `go` keyword; anything else in the list refuses the line,
/// since searching a different set of moves would answer a different question.
fn searchmoves(input: &str) -> Res<'_, Vec<String>> {
    let go_keyword = verify(word, |word: &str| {
        GO_KEYWORDS.split(' ').any(|keyword| keyword == word)
    });
    let moves = many0(preceded(sep, preceded(not(go_keyword), checked_move)));
    preceded(keyword("searchmoves"), moves).parse(input)
}

pub(super) fn ponderhit(input: &str) -> Res<'_, Command> {
    let part = alt((map(clock_field, Some), value(None, noise)));
    let clock = fold_many0(
        preceded(sep, part),
        ClockTimes::default,
        |mut clock, part| {
            if let Some((slot, ms)) = part {
                *slot(&mut clock) = Some(ms);
            }
            clock
        },
    );
    map(preceded(keyword("ponderhit"), clock), |clock| {
        Command::PonderHit((!clock.is_empty()).then_some(clock))
    })
    .parse(input)
}

#[cfg(test)]
mod tests {
    use super::super::parse_one;
    use super::super::tests::{go, reason, strings};
    use super::*;

    fn clock(btime: u64, wtime: u64, byoyomi: u64) -> ClockTimes {
        ClockTimes {
            btime: Some(btime),
            wtime: Some(wtime),
            byoyomi: Some(byoyomi),
            ..ClockTimes::default()
        }
    }

    #[test]
    fn go_with_clocks() {
        assert_eq!(
            go("go btime 0 wtime 0 byoyomi 1000").clock,
            clock(0, 0, 1000)
        );
        assert_eq!(
            go("go byoyomi 1000").clock,
            ClockTimes {
                byoyomi: Some(1000),
                ..ClockTimes::default()
            }
        );
        let fischer = go("go btime 300000 wtime 290000 binc 10000 winc 10000").clock;
        assert_eq!(
            (fischer.binc, fischer.winc, fischer.byoyomi),
            (Some(10000), Some(10000), None)
        );
        let ponder = go("go ponder btime 1000 wtime 2000 byoyomi 3000");
        assert_eq!(
            ponder,
            GoParams {
                ponder: true,
                clock: clock(1000, 2000, 3000),
                ..GoParams::default()
            }
        );
        assert_eq!(go("go wtime 2000 byoyomi 3000 ponder btime 1000"), ponder);
    }

    #[test]
    fn go_limits() {
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(
            go("go infinite"),
            GoParams {
                infinite: true,
                ..GoParams::default()
            }
        );
        assert_eq!(go("go movetime 500").movetime, Some(500));
        assert_eq!(go("go depth 10").depth, Some(10));
        assert_eq!(go("go nodes 1000000").nodes, Some(1_000_000));
        assert_eq!(go("go perft 3").perft, Some(3));
        assert_eq!(go("go mate infinite").mate, Some(MateLimit::Infinite));
        assert_eq!(go("go mate 5000").mate, Some(MateLimit::Millis(5000)));
    }

    #[test]
    fn go_searchmoves() {
        let analysis = go("go infinite searchmoves 7g7f 2g2f");
        assert_eq!(
            analysis,
            GoParams {
                infinite: true,
                searchmoves: strings(&["7g7f", "2g2f"]),
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go searchmoves 7g7f P*5e depth 3").searchmoves,
            strings(&["7g7f", "P*5e"])
        );
        assert_eq!(go("go searchmoves 7g7f depth 3").depth, Some(3));
        assert_eq!(go("go searchmoves").searchmoves, Vec::<String>::new());
        assert_eq!(reason("go searchmoves 7g7f 2g2"), "bad move `2g2`");
    }

    #[test]
    fn go_skips_unknown_words_with_their_numbers() {
        assert_eq!(
            go("go byoyomi 1000 rtime 5 wtime 20"),
            GoParams {
                clock: ClockTimes {
                    byoyomi: Some(1000),
                    wtime: Some(20),
                    ..ClockTimes::default()
                },
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go fast depth 4"),
            GoParams {
                depth: Some(4),
                ..GoParams::default()
            }
        );
        assert_eq!(go("go 42 -1"), GoParams::default());
    }

    #[test]
    fn go_clamps_negative_times() {
        assert_eq!(
            go("go btime -5 wtime 100 byoyomi 1000").clock,
            clock(0, 100, 1000)
        );
        assert_eq!(go("go movetime -1").movetime, Some(0));
    }

    #[test]
    fn go_refuses_numbers_it_cannot_read() {
        assert_eq!(
            reason("go btime"),
            "`btime` needs a number, got end of line"
        );
        assert_eq!(
            reason("go btime fast"),
            "`btime` needs a number, got `fast`"
        );
        assert_eq!(reason("go btime 10s"), "`btime` needs a number, got `10s`");
        assert_eq!(
            reason("go byoyomi 99999999999999999999999"),
            "number `99999999999999999999999` is out of range"
        );
        assert_eq!(
            reason("go btime -99999999999999999999999"),
            "number `99999999999999999999999` is out of range"
        );
        assert_eq!(reason("go depth -3"), "`depth` needs a number, got `-3`");
        assert_eq!(
            reason("go depth 4294967296"),
            "number `4294967296` is out of range"
        );
        assert_eq!(
            reason("go mate"),
            "`go mate` needs milliseconds or `infinite`, got end of line"
        );
        assert_eq!(
            reason("go mate btime 5"),
            "`go mate` needs milliseconds or `infinite`, got `btime`"
        );
        assert_eq!(reason("go perft x"), "`perft` needs a number, got `x`");
    }

    #[test]
    fn ponderhit_with_and_without_times() {
        assert_eq!(parse_one("ponderhit"), Command::PonderHit(None));
        assert_eq!(
            parse_one("ponderhit btime 1000 wtime 2000 byoyomi 3000"),
            Command::PonderHit(Some(clock(1000, 2000, 3000)))
        );
        let fischer = ClockTimes {
            binc: Some(5),
            winc: Some(6),
            ..ClockTimes::default()
        };
        assert_eq!(
            parse_one("ponderhit binc 5 foo 3 winc 6"),
            Command::PonderHit(Some(fischer))
        );
        assert_eq!(
            reason("ponderhit btime soon"),
            "`btime` needs a number, got `soon`"
        );
    }
}
