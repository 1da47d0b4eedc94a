//! Keeps every line we write a single line of ASCII. A GUI splits our stdout on
//! newlines, and some of them choke on other encodings, so text that came from
//! elsewhere (file names, error messages, option values) is cleaned on the way out.

use std::fmt;

/// A `fmt::Write` in front of a formatter that turns line breaks and other control
/// characters into spaces and anything beyond ASCII into `?`.
pub(super) struct AsciiLine<'a, 'b>(pub(super) &'a mut fmt::Formatter<'b>);

impl fmt::Write for AsciiLine<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.chars().all(is_plain) {
            return self.0.write_str(s);
        }
        s.chars().try_for_each(|c| self.0.write_char(clean(c)))
    }
}

fn is_plain(c: char) -> bool {
    c == '\t' || (c.is_ascii() && !c.is_ascii_control())
}

fn clean(c: char) -> char {
    match c {
        c if is_plain(c) => c,
        c if c.is_ascii_control() => ' ',
        _ => '?',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;

    struct Raw<'s>(&'s str);

    impl fmt::Display for Raw<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            AsciiLine(f).write_str(self.0)
        }
    }

    #[test]
    fn plain_text_passes_through() {
        assert_eq!(
            Raw("info string hello\tworld").to_string(),
            "info string hello\tworld"
        );
    }

    #[test]
    fn breaks_become_spaces_and_foreign_text_question_marks() {
        assert_eq!(Raw("a\r\nb\u{0}c").to_string(), "a  b c");
        assert_eq!(Raw("定跡 ok").to_string(), "?? ok");
        assert_eq!(Raw("x\u{2028}y").to_string(), "x?y");
    }
}
