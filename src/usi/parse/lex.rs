//! The words of a USI line — separators, tokens, numbers, move syntax — and the error
//! that carries a reason back to the `info string` the engine prints for a bad line.

use std::str::FromStr;

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_while1},
    character::complete::{char, digit1, one_of, satisfy},
    combinator::{map, map_opt, map_res, not, opt, recognize, rest, verify},
    error::{ErrorKind, FromExternalError, ParseError},
    sequence::{preceded, terminated},
};

pub(super) type Res<'a, T> = IResult<&'a str, T, Reject<'a>>;

/// Why a line was refused. Most misses are routine backtracking inside `alt`, so a
/// miss keeps only where it happened and is put into words once the line is lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reject<'a> {
    At(&'a str),
    Because(String),
}

impl Reject<'_> {
    pub(super) fn into_reason(self) -> String {
        match self {
            Reject::At(rest) => format!("unexpected {}", next_word(rest)),
            Reject::Because(why) => why,
        }
    }
}

impl<'a> ParseError<&'a str> for Reject<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        Reject::At(input)
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        match (&self, &other) {
            (Reject::Because(_), Reject::At(_)) => self,
            _ => other,
        }
    }
}

impl<'a, E> FromExternalError<&'a str, E> for Reject<'a> {
    fn from_external_error(input: &'a str, kind: ErrorKind, _: E) -> Self {
        Self::from_error_kind(input, kind)
    }
}

/// Ends the parse of the whole line: no other reading is tried.
pub(super) fn refuse<'a>(why: String) -> nom::Err<Reject<'a>> {
    nom::Err::Failure(Reject::Because(why))
}

/// The next word of `input` quoted, for reasons: "`7z7f`" or "end of line".
pub(super) fn next_word(input: &str) -> String {
    match input.split(is_separator).find(|word| !word.is_empty()) {
        Some(word) => format!("`{word}`"),
        None => "end of line".to_string(),
    }
}

/// Once a keyword has been read the line can mean one thing only: a miss after it
/// rejects the line with `why(next word)` rather than letting `alt` try other readings.
pub(super) fn committed<'a, O>(
    mut parser: impl Parser<&'a str, Output = O, Error = Reject<'a>>,
    why: impl Fn(&str) -> String,
) -> impl Parser<&'a str, Output = O, Error = Reject<'a>> {
    move |input: &'a str| match parser.parse(input) {
        Err(nom::Err::Error(Reject::At(at))) => Err(refuse(why(&next_word(word_start(input, at))))),
        Err(nom::Err::Error(because)) => Err(nom::Err::Failure(because)),
        other => other,
    }
}

/// Backs up from where a parse stopped, maybe mid-word as in `10s`, to that word's start.
fn word_start<'a>(input: &'a str, at: &'a str) -> &'a str {
    if at.is_empty() || at.starts_with(is_separator) {
        return at;
    }
    let stop = input.len().saturating_sub(at.len());
    let Some(before) = input.get(..stop) else {
        return at;
    };
    let start = before.rfind(is_separator).map_or(0, |sep| sep + 1);
    input.get(start..).unwrap_or(at)
}

/// GUIs on Windows end lines with `\r\n` and some pad with tabs: all ASCII whitespace
/// separates words.
pub(super) fn is_separator(c: char) -> bool {
    c.is_ascii_whitespace()
}

pub(super) fn sep(input: &str) -> Res<'_, &str> {
    take_while1(is_separator).parse(input)
}

pub(super) fn word(input: &str) -> Res<'_, &str> {
    take_while1(|c| !is_separator(c)).parse(input)
}

/// Succeeds where a word ends, so that `usi` does not match the start of `usinewgame`.
fn word_end(input: &str) -> Res<'_, ()> {
    not(satisfy(|c| !is_separator(c))).parse(input)
}

pub(super) fn keyword<'a>(
    key: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = Reject<'a>> {
    verify(word, move |word: &str| word == key)
}

/// One of the words `choices` names, read as the value paired with it.
pub(super) fn one_of_words<'a, T: Clone, const N: usize>(
    choices: [(&'static str, T); N],
) -> impl Parser<&'a str, Output = T, Error = Reject<'a>> {
    map_opt(word, move |word: &str| {
        choices
            .iter()
            .find(|(key, _)| *key == word)
            .map(|(_, value)| value.clone())
    })
}

/// The rest of the line with its ends trimmed, for values that may hold spaces.
pub(super) fn rest_text(input: &str) -> Res<'_, String> {
    map(rest, |text: &str| {
        text.trim_matches(is_separator).to_string()
    })
    .parse(input)
}

/// A whole word of decimal digits with an optional minus, sign apart: `true` if negative.
fn integer(input: &str) -> Res<'_, (bool, &str)> {
    terminated(
        (map(opt(char('-')), |minus| minus.is_some()), digit1),
        word_end,
    )
    .parse(input)
}

fn out_of_range<'a>(digits: &str) -> nom::Err<Reject<'a>> {
    refuse(format!("number `{digits}` is out of range"))
}

/// Milliseconds. A negative time (a GUI's clock running past zero) reads as 0; a
/// number too big for `u64` refuses the line rather than guessing.
pub(super) fn millis(input: &str) -> Res<'_, u64> {
    let (rest, (negative, digits)) = integer(input)?;
    let ms = digits.parse().map_err(|_| out_of_range(digits))?;
    Ok((rest, if negative { 0 } else { ms }))
}

/// A depth, node count or the like: never negative, refused if it does not fit.
pub(super) fn count<T: FromStr>(input: &str) -> Res<'_, T> {
    let (rest, (_, digits)) = verify(integer, |(negative, _)| !negative).parse(input)?;
    let n = digits.parse().map_err(|_| out_of_range(digits))?;
    Ok((rest, n))
}

/// A whole word holding a signed number that fits `T` (`+` allowed, as in `mate +3`).
pub(super) fn signed<T: FromStr>(input: &str) -> Res<'_, T> {
    let number = recognize((opt(one_of("+-")), digit1));
    terminated(map_res(number, str::parse), word_end).parse(input)
}

/// A word that is unknown noise: skipped together with a number after it, because
/// sloppy GUIs send `key value` pairs the engine has no use for.
pub(super) fn noise(input: &str) -> Res<'_, ()> {
    map((word, opt(preceded(sep, integer))), |_| ()).parse(input)
}

/// A square of any game's board: files 1-15 and ranks a-o (dai shogi's 15x15 board holds the
/// smaller boards').
fn square(input: &str) -> Res<'_, &str> {
    let rank = || one_of("abcdefghijklmno");
    let two_digit_file = (char('1'), one_of("012345"), rank());
    let one_digit_file = (one_of("123456789"), rank());
    alt((recognize(two_digit_file), recognize(one_digit_file))).parse(input)
}

/// Move syntax only — `7g7f`, `8h2b+`, `P*5e`, and dai shogi's `8m10n`, lion moves through a
/// mid square `8h8g9f` and `pass` — as one whole word. Whether the move is legal in the
/// game being played needs a position and is the engine's business.
pub(super) fn usi_move(input: &str) -> Res<'_, &str> {
    let board = recognize((square, square, opt(square), opt(char('+'))));
    let drop = recognize((one_of("PLNSGBR"), char('*'), square));
    terminated(alt((board, drop, tag("pass"))), word_end).parse(input)
}

/// A move where nothing else may stand: a bad one refuses the line, naming it.
pub(super) fn checked_move(input: &str) -> Res<'_, String> {
    committed(map(usi_move, String::from), |got| format!("bad move {got}")).parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole<'a, O>(
        parser: impl Parser<&'a str, Output = O, Error = Reject<'a>>,
        input: &'a str,
    ) -> Option<O> {
        nom::combinator::all_consuming(parser)
            .parse(input)
            .ok()
            .map(|(_, out)| out)
    }

    #[test]
    fn move_syntax() {
        let good = [
            "7g7f", "8h2b+", "P*5e", "R*1a", "1i9a", "9a9a", "8m10n", "15o1a+", "8h8g9f", "pass",
            "11j11i",
        ];
        for good in good {
            assert_eq!(whole(usi_move, good), Some(good), "{good}");
        }
        for bad in [
            "7g7", "7g7f++", "0a1a", "7p7f", "16a1a", "K*5e", "p*5e", "P*5e+", "7G7F", "P+5e",
            "7g7f=", "", "1a2b3c4d", "P*10e+", "passs",
        ] {
            assert_eq!(whole(usi_move, bad), None, "{bad}");
        }
    }

    #[test]
    fn moves_must_end_at_a_separator() {
        assert!(usi_move("7g7fx").is_err());
        assert_eq!(usi_move("7g7f 3c3d"), Ok((" 3c3d", "7g7f")));
    }

    #[test]
    fn millis_clamp_negatives_and_refuse_overflow() {
        assert_eq!(whole(millis, "1500"), Some(1500));
        assert_eq!(whole(millis, "-5"), Some(0));
        assert_eq!(whole(millis, "18446744073709551615"), Some(u64::MAX));
        assert!(matches!(
            millis("18446744073709551616"),
            Err(nom::Err::Failure(_))
        ));
        assert!(matches!(millis("12ms"), Err(nom::Err::Error(_))));
        assert!(matches!(millis("-"), Err(nom::Err::Error(_))));
    }

    #[test]
    fn counts_refuse_negatives_and_overflow() {
        assert_eq!(whole(count::<u32>, "7"), Some(7));
        assert!(matches!(count::<u32>("-7"), Err(nom::Err::Error(_))));
        assert!(matches!(
            count::<u32>("4294967296"),
            Err(nom::Err::Failure(_))
        ));
    }

    #[test]
    fn signed_numbers() {
        assert_eq!(whole(signed::<i32>, "-2147483648"), Some(i32::MIN));
        assert_eq!(whole(signed::<i32>, "+3"), Some(3));
        assert_eq!(whole(signed::<i32>, "2147483648"), None);
        assert_eq!(whole(signed::<i32>, "+"), None);
    }

    #[test]
    fn keywords_match_whole_words_only() {
        assert!(keyword("usi").parse("usinewgame").is_err());
        assert_eq!(keyword("usi").parse("usi x"), Ok((" x", "usi")));
    }

    #[test]
    fn reasons_name_the_next_word() {
        assert_eq!(next_word(" \t7z7f 1a1b"), "`7z7f`");
        assert_eq!(next_word("  "), "end of line");
        assert_eq!(Reject::At(" junk").into_reason(), "unexpected `junk`");
    }
}
