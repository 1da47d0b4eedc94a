//! Text encodings of record files.
//!
//! Records come as UTF-8 (`.kifu`, `.ki2u`, JKF, most CSA), Shift_JIS/CP932 (`.kif`, `.ki2`, older
//! CSA) or EUC-JP (old Unix tools). Files rarely say which, so the bytes decide: a UTF-8 BOM or
//! valid UTF-8 is UTF-8; otherwise the candidate that decodes without a single error wins, and
//! when both legacy encodings decode cleanly the one that yields more kana and kanji (the text of
//! a record) does.

use encoding_rs::{EUC_JP, SHIFT_JIS, UTF_8};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Utf8,
    /// UTF-8 with a byte-order mark.
    Utf8Bom,
    /// Shift_JIS as Windows writes it (CP932, a superset).
    ShiftJis,
    EucJp,
}

/// Decodes a record file's bytes, detecting the encoding. Bytes no candidate can decode become
/// U+FFFD, so the readers report the line they are on instead of failing the whole file.
pub fn decode_text(bytes: &[u8]) -> (String, Encoding) {
    if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
        let (text, _) = UTF_8.decode_without_bom_handling(rest);
        return (text.into_owned(), Encoding::Utf8Bom);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), Encoding::Utf8);
    }
    // encoding_rs's Shift_JIS is the WHATWG one, which is CP932 (NEC and IBM extensions included).
    let sjis = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes);
    let euc = EUC_JP.decode_without_bom_handling_and_without_replacement(bytes);
    match (sjis, euc) {
        (Some(s), Some(e)) => {
            if japanese_chars(&e) > japanese_chars(&s) {
                (e.into_owned(), Encoding::EucJp)
            } else {
                (s.into_owned(), Encoding::ShiftJis)
            }
        }
        (Some(s), None) => (s.into_owned(), Encoding::ShiftJis),
        (None, Some(e)) => (e.into_owned(), Encoding::EucJp),
        (None, None) => {
            // Neither is clean: keep the one with fewer replacement characters.
            let (s, _, _) = SHIFT_JIS.decode(bytes);
            let (e, _, _) = EUC_JP.decode(bytes);
            if replacements(&e) < replacements(&s) {
                (e.into_owned(), Encoding::EucJp)
            } else {
                (s.into_owned(), Encoding::ShiftJis)
            }
        }
    }
}

/// Encodes text for writing: UTF-8 as is, Shift_JIS for `.kif`/`.ki2` files that older programs
/// read. Characters Shift_JIS lacks become HTML numeric references (encoding_rs's rule), which
/// keeps the file readable rather than failing.
pub fn encode_text(text: &str, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => {
            let mut v = b"\xef\xbb\xbf".to_vec();
            v.extend_from_slice(text.as_bytes());
            v
        }
        Encoding::ShiftJis => SHIFT_JIS.encode(text).0.into_owned(),
        Encoding::EucJp => EUC_JP.encode(text).0.into_owned(),
    }
}

/// Hiragana, katakana, CJK ideographs and full-width forms: what shogi records are written in.
fn japanese_chars(text: &str) -> usize {
    text.chars()
        .filter(|&c| {
            matches!(c,
                '\u{3000}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}' | '▲' | '△')
        })
        .count()
}

fn replacements(text: &str) -> usize {
    text.chars().filter(|&c| c == '\u{fffd}').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_encoding() {
        let text = "先手：羽生善治\n   1 ７六歩(77)   ( 0:00/00:00:00)\nまで1手で中断\n";
        for enc in [
            Encoding::Utf8,
            Encoding::Utf8Bom,
            Encoding::ShiftJis,
            Encoding::EucJp,
        ] {
            let bytes = encode_text(text, enc);
            assert_eq!(decode_text(&bytes), (text.to_string(), enc), "{enc:?}");
        }
    }

    #[test]
    fn undecodable_bytes_do_not_panic() {
        let (text, _) = decode_text(&[0xff, 0xfe, 0x80, b'a', 0x81]);
        assert!(text.contains('a'));
    }
}
