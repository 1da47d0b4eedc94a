//! Reading engine output, for tests and our own test clients. Unlike the command
//! reader it is strict: output that does not read back exactly is a bug to see.

use nom::{
    Parser,
    branch::alt,
    combinator::{all_consuming, map, opt, value},
    multi::many0,
    sequence::preceded,
};

use super::lex::{
    Res, count, is_separator, keyword, one_of_words, rest_text, sep, signed, usi_move, word,
};
use crate::usi::response::{
    BestMove, Bound, CheckmateAnswer, EMPTY, InfoField, OptionDecl, OptionKind, Response, Score,
    ScoreValue,
};

/// Reads one line of engine output; `None` if it is not a well-formed response.
pub fn parse_response(line: &str) -> Option<Response> {
    let line = line.trim_matches(is_separator);
    all_consuming(response)
        .parse(line)
        .ok()
        .map(|(_, response)| response)
}

fn response(input: &str) -> Res<'_, Response> {
    alt((
        id,
        map(option, Response::Option),
        value(Response::UsiOk, keyword("usiok")),
        value(Response::ReadyOk, keyword("readyok")),
        map(bestmove, Response::BestMove),
        map(checkmate, Response::Checkmate),
        map(
            preceded(keyword("info"), many0(preceded(sep, info_field))),
            Response::Info,
        ),
    ))
    .parse(input)
}

fn id(input: &str) -> Res<'_, Response> {
    let name = map(preceded(keyword("name"), rest_text), Response::IdName);
    let author = map(preceded(keyword("author"), rest_text), Response::IdAuthor);
    preceded((keyword("id"), sep), alt((name, author))).parse(input)
}

fn option(input: &str) -> Res<'_, OptionDecl> {
    let name = preceded((keyword("option"), sep, keyword("name"), sep), word);
    let kind = preceded((sep, keyword("type"), sep), option_kind);
    map((name, kind), |(name, kind)| OptionDecl {
        name: name.to_string(),
        kind,
    })
    .parse(input)
}

fn option_kind(input: &str) -> Res<'_, OptionKind> {
    let boolean = alt((value(true, keyword("true")), value(false, keyword("false"))));
    let check = map(arg("default", boolean), |default| OptionKind::Check {
        default,
    });
    let spin = map(
        (
            arg("default", signed),
            arg("min", signed),
            arg("max", signed),
        ),
        |(default, min, max)| OptionKind::Spin { default, min, max },
    );
    let combo = map(
        (arg("default", map(word, unempty)), many0(arg("var", word))),
        |(default, vars)| OptionKind::Combo {
            default,
            vars: vars.into_iter().map(String::from).collect(),
        },
    );
    alt((
        preceded(keyword("check"), check),
        preceded(keyword("spin"), spin),
        preceded(keyword("combo"), combo),
        value(OptionKind::Button, keyword("button")),
        preceded(
            keyword("string"),
            map(default_text, |default| OptionKind::String { default }),
        ),
        preceded(
            keyword("filename"),
            map(default_text, |default| OptionKind::Filename { default }),
        ),
    ))
    .parse(input)
}

/// ` key value` inside an `option` line.
fn arg<'a, O>(
    key: &'static str,
    value: impl Parser<&'a str, Output = O, Error = super::lex::Reject<'a>>,
) -> impl Parser<&'a str, Output = O, Error = super::lex::Reject<'a>> {
    preceded((sep, keyword(key), sep), value)
}

/// A text default runs to the end of the line, so paths may hold spaces.
fn default_text(input: &str) -> Res<'_, String> {
    map(preceded((sep, keyword("default")), rest_text), |text| {
        unempty(&text)
    })
    .parse(input)
}

fn unempty(text: &str) -> String {
    if text == EMPTY {
        String::new()
    } else {
        text.to_string()
    }
}

fn bestmove(input: &str) -> Res<'_, BestMove> {
    let ponder = preceded((sep, keyword("ponder"), sep), usi_move);
    let play = map(
        (usi_move, opt(ponder)),
        |(mv, ponder): (&str, Option<&str>)| BestMove::Move {
            mv: mv.to_string(),
            ponder: ponder.map(String::from),
        },
    );
    let best = alt((
        value(BestMove::Resign, keyword("resign")),
        value(BestMove::Win, keyword("win")),
        play,
    ));
    preceded((keyword("bestmove"), sep), best).parse(input)
}

fn moves(input: &str) -> Res<'_, Vec<String>> {
    map(many0(preceded(sep, usi_move)), |moves| {
        moves.into_iter().map(String::from).collect()
    })
    .parse(input)
}

fn checkmate(input: &str) -> Res<'_, CheckmateAnswer> {
    let verdict = one_of_words([
        ("nomate", CheckmateAnswer::NoMate),
        ("timeout", CheckmateAnswer::Timeout),
        ("notimplemented", CheckmateAnswer::NotImplemented),
    ]);
    let answer = alt((preceded(sep, verdict), map(moves, CheckmateAnswer::Moves)));
    preceded(keyword("checkmate"), answer).parse(input)
}

fn info_field(input: &str) -> Res<'_, InfoField> {
    fn number<'a, T: std::str::FromStr>(
        key: &'static str,
    ) -> impl Parser<&'a str, Output = T, Error = super::lex::Reject<'a>> {
        preceded((keyword(key), sep), count)
    }
    alt((
        map(number("depth"), InfoField::Depth),
        map(number("seldepth"), InfoField::SelDepth),
        map(number("time"), InfoField::Time),
        map(number("nodes"), InfoField::Nodes),
        map(number("nps"), InfoField::Nps),
        map(number("hashfull"), InfoField::HashFull),
        map(number("multipv"), InfoField::MultiPv),
        map(preceded((keyword("currmove"), sep), usi_move), |mv| {
            InfoField::CurrMove(mv.to_string())
        }),
        map(score, InfoField::Score),
        map(preceded(keyword("pv"), moves), InfoField::Pv),
        map(preceded(keyword("string"), rest_text), InfoField::String),
    ))
    .parse(input)
}

fn score(input: &str) -> Res<'_, Score> {
    let cp = map(preceded((keyword("cp"), sep), signed), ScoreValue::Cp);
    let plies = alt((
        value(ScoreValue::MatePlus, keyword("+")),
        value(ScoreValue::MateMinus, keyword("-")),
        value(ScoreValue::Checkmated, keyword("-0")),
        map(signed, ScoreValue::Mate),
    ));
    let mate = preceded((keyword("mate"), sep), plies);
    let bound = one_of_words([("lowerbound", Bound::Lower), ("upperbound", Bound::Upper)]);
    let score = (alt((cp, mate)), opt(preceded(sep, bound)));
    map(
        preceded((keyword("score"), sep), score),
        |(value, bound)| Score { value, bound },
    )
    .parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Response {
        parse_response(line).unwrap_or_else(|| panic!("could not read {line:?}"))
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn handshake() {
        assert_eq!(
            read("id name kirin 0.1"),
            Response::IdName("kirin 0.1".into())
        );
        assert_eq!(
            read("id author  the kirin team "),
            Response::IdAuthor("the kirin team".into())
        );
        assert_eq!(read("usiok\r"), Response::UsiOk);
        assert_eq!(read("readyok"), Response::ReadyOk);
    }

    #[test]
    fn options() {
        let option = |line| match read(line) {
            Response::Option(decl) => decl,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            option("option name USI_Ponder type check default false"),
            OptionDecl::check("USI_Ponder", false)
        );
        assert_eq!(
            option("option name Threads type spin default 1 min 1 max 512"),
            OptionDecl::spin("Threads", 1, 1, 512)
        );
        assert_eq!(
            option(
                "option name EnteringKingRule type combo default TryRule var NoEnteringKing var TryRule"
            ),
            OptionDecl::combo(
                "EnteringKingRule",
                "TryRule",
                &["NoEnteringKing", "TryRule"]
            )
        );
        assert_eq!(
            option("option name ClearHash type button"),
            OptionDecl::button("ClearHash")
        );
        assert_eq!(
            option("option name Comment type string default <empty>"),
            OptionDecl::string("Comment", "")
        );
        assert_eq!(
            option("option name BookFile type filename default my book.db"),
            OptionDecl::filename("BookFile", "my book.db")
        );
    }

    #[test]
    fn bestmove_and_checkmate() {
        assert_eq!(
            read("bestmove 7g7f"),
            Response::BestMove(BestMove::Move {
                mv: "7g7f".into(),
                ponder: None
            })
        );
        assert_eq!(
            read("bestmove P*5e ponder 5a4b"),
            Response::BestMove(BestMove::Move {
                mv: "P*5e".into(),
                ponder: Some("5a4b".into())
            })
        );
        assert_eq!(
            read("bestmove resign"),
            Response::BestMove(BestMove::Resign)
        );
        assert_eq!(read("bestmove win"), Response::BestMove(BestMove::Win));
        assert_eq!(
            read("checkmate nomate"),
            Response::Checkmate(CheckmateAnswer::NoMate)
        );
        assert_eq!(
            read("checkmate G*5b"),
            Response::Checkmate(CheckmateAnswer::Moves(strings(&["G*5b"])))
        );
    }

    #[test]
    fn info_lines() {
        let line = "info depth 8 seldepth 12 score mate -3 lowerbound multipv 2 nodes 9 nps 90 time 100 hashfull 5 currmove 2g2f pv 2g2f 8c8d string ok then";
        let expected = vec![
            InfoField::Depth(8),
            InfoField::SelDepth(12),
            InfoField::Score(Score {
                value: ScoreValue::Mate(-3),
                bound: Some(Bound::Lower),
            }),
            InfoField::MultiPv(2),
            InfoField::Nodes(9),
            InfoField::Nps(90),
            InfoField::Time(100),
            InfoField::HashFull(5),
            InfoField::CurrMove("2g2f".into()),
            InfoField::Pv(strings(&["2g2f", "8c8d"])),
            InfoField::String("ok then".into()),
        ];
        assert_eq!(read(line), Response::Info(expected));
        let unknown_length = Score {
            value: ScoreValue::MatePlus,
            bound: None,
        };
        assert_eq!(
            read("info score mate +"),
            Response::Info(vec![InfoField::Score(unknown_length)])
        );
    }

    #[test]
    fn malformed_output_is_refused() {
        for line in [
            "",
            "bestmove",
            "bestmove 7g7z",
            "usiok now",
            "info depth -1",
            "info depth x",
            "info pv 7g7f nonsense",
            "option name X type spin default 1",
            "option name X type colour",
            "checkmate maybe",
        ] {
            assert_eq!(parse_response(line), None, "{line:?}");
        }
    }

    #[test]
    fn checkmated_reads_apart_from_mate_zero() {
        let score = |line: &str| match read(line) {
            Response::Info(fields) => fields,
            other => panic!("{other:?}"),
        };
        let mated = Score {
            value: ScoreValue::Checkmated,
            bound: None,
        };
        assert_eq!(
            score("info depth 0 score mate -0"),
            vec![InfoField::Depth(0), InfoField::Score(mated)]
        );
        assert_eq!(
            read(&Response::Info(vec![InfoField::Score(mated)]).to_string()),
            Response::Info(vec![InfoField::Score(mated)])
        );
        assert_eq!(
            score("info score mate 0"),
            vec![InfoField::Score(Score {
                value: ScoreValue::Mate(0),
                bound: None
            })]
        );
    }
}
