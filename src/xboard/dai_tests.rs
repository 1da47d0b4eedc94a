use super::*;
use crate::dai::types::PieceType;

/// The `betza` table of the move-generator cross-check in `tests/dai.rs`, which kirin's dai
/// move generator is tested against: the description must say the same moves.
const REFERENCE: &str = include_str!("../../tests/dai.rs");

/// The Betza text `tests/dai.rs` gives a kind, following `betza(Other)` aliases.
fn reference_betza(name: &str) -> String {
    let table = &REFERENCE[REFERENCE.find("fn betza(").expect("betza table")..];
    let table = &table[..table.find("\n}\n").expect("end of table")];
    let at = table
        .match_indices(name)
        .map(|(at, _)| at)
        .find(|&at| {
            let after = table.as_bytes()[at + name.len()];
            let before = table.as_bytes()[at - 1];
            !after.is_ascii_alphanumeric() && !before.is_ascii_alphanumeric()
        })
        .unwrap_or_else(|| panic!("{name} not in the table"));
    let arm = &table[at..];
    let arm = arm[arm.find("=>").expect("arm") + 2..].trim_start();
    if let Some(alias) = arm.strip_prefix("betza(") {
        return reference_betza(&alias[..alias.find(')').expect("alias")]);
    }
    let text = arm.strip_prefix("(\"").expect("quoted betza");
    text[..text.find('"').expect("closing quote")].to_string()
}

#[test]
fn kinds_are_kirins_kinds_with_its_letters() {
    assert_eq!(KINDS.len(), 29);
    for kind in &KINDS {
        let piece = PieceType::from_letters(kind.letters)
            .unwrap_or_else(|| panic!("kirin has no kind {}", kind.letters));
        assert_eq!(
            kind.promotes_to.is_some(),
            piece.can_promote(),
            "{}",
            kind.name
        );
    }
    assert_eq!(KINDS.iter().filter(|k| k.promotes_to.is_some()).count(), 26);
}

#[test]
fn moves_match_the_table_kirins_move_generator_is_tested_against() {
    for kind in &KINDS {
        let piece = PieceType::from_letters(kind.letters).unwrap();
        let wanted = reference_betza(&format!("{piece:?}"));
        // The reference writes lion powers as step lists beside the Betza text: its
        // text is the part before the lion power here.
        assert!(
            kind.betza.starts_with(&wanted),
            "{}: {} vs {wanted}",
            kind.name,
            kind.betza
        );
        if let (Some((name, betza)), Some(promoted)) = (kind.promotes_to, piece.promote()) {
            let wanted = reference_betza(&format!("{promoted:?}"));
            assert!(betza.starts_with(&wanted), "{name}: {betza} vs {wanted}");
        }
    }
    // The lion and the lion-power pieces hold every part of the power.
    for betza in [LION, HORNED_FALCON, SOARING_EAGLE] {
        assert!(betza.contains("ca") && betza.contains("mab"), "{betza}");
    }
}

#[test]
fn start_position_is_kirins() {
    let board = |fen: &str| fen.split(' ').next().unwrap().to_string();
    assert_eq!(board(START_FEN), board(crate::dai::START_SFEN));
    // XBoard's White moves first, as sente does.
    assert_eq!(START_FEN.split(' ').nth(1), Some("w"));
}

/// Splits a PIECETOCHAR into its slots: `.`, a letter, `^` + letter, each maybe dressed.
fn slots(table: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in table.chars() {
        match (c, out.last_mut()) {
            ('\'' | '!', Some(last)) => last.push(c),
            (c, Some(last)) if last == "^" => last.push(c),
            _ => out.push(c.to_string()),
        }
    }
    out
}

#[test]
fn every_kind_has_its_own_slot_and_the_king_the_last() {
    for white in [true, false] {
        let table = slots(&piece_to_char(white));
        // 28 base kinds, 26 promoted ones and the king, within XBoard's 66 a side.
        assert_eq!(table.len(), 55);
        assert!(table.len() <= XBOARD_PIECE_TYPES);
        let mut distinct = table.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 55);
        assert_eq!(
            table.last().map(String::as_str),
            Some(if white { "K" } else { "k" })
        );
        let case = |s: &str| {
            if white {
                s.to_string()
            } else {
                s.to_lowercase()
            }
        };
        assert_eq!(&table[..5], ["P", "N", "B", "R", "Q"].map(case));
        // Every promoting kind is paired with a promoted slot.
        for kind in KINDS.iter().filter(|k| k.promotes_to.is_some()) {
            assert!(table.contains(&case(&format!("^{}", kind.letters))));
        }
    }
}

#[test]
fn every_piece_in_the_start_position_is_in_the_table() {
    let table = slots(&format!("{}{}", piece_to_char(true), piece_to_char(false)));
    let board = START_FEN.split(' ').next().unwrap();
    let mut pieces = 0;
    for row in board.split('/') {
        for piece in slots(&row.replace(|c: char| c.is_ascii_digit(), "")) {
            assert!(table.contains(&piece), "{piece} has no slot");
            pieces += 1;
        }
    }
    assert_eq!(pieces, 130);
}

#[test]
fn the_answer_to_variant_dai_is_one_setup_and_one_piece_line_per_kind() {
    let lines: Vec<String> = description().iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 1 + 55);
    assert!(lines[0].starts_with(
        "setup (PNBRQLUICSGAFTEOXWMVHDA'C'F'X'P'L!^P^N^B^R^L^U^I^C^S^G^A^F^T^E^O^X^W^M^V^H^D\
         ^A'^C'^F'^X'^P'K"
    ));
    // The parent under which XBoard relays every promotion's `+`.
    assert!(lines[0].contains(") 15x15+0_chu lnuicsgkgsciunl/"));
    assert!(lines.contains(&"piece L!& KNADcaKmabK".to_string()));
    assert!(lines.contains(&"piece +L& vRfB".to_string()));
    assert!(lines.contains(&"piece X'& W2".to_string()));
    assert!(lines.contains(&"piece +N& WfF".to_string()));
    assert!(lines.contains(&"piece +O& KNADcaKmabK".to_string()));
    assert!(lines.contains(&"piece +P'& FfsW".to_string()));
    let mut ids: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 55);
}
