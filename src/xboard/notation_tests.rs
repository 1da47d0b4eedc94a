use super::*;

fn all_squares(board: Board) -> impl Iterator<Item = Square> {
    (0..board.files).flat_map(move |file| (0..board.ranks).map(move |rank| Square { file, rank }))
}

#[test]
fn squares_name_the_same_place_on_both_sides() {
    // From the rules document: XBoard's lion double move `h8h9,h9g10` is kirin's `8h8g9f`.
    assert_eq!(DAI.kirin_square(Square { file: 7, rank: 7 }), "8h");
    assert_eq!(DAI.xboard_square(Square { file: 6, rank: 9 }), "g10");
    // Corners: sente's left back corner is XBoard's a1 and kirin's 15o.
    assert_eq!(DAI.kirin_square(Square { file: 0, rank: 0 }), "15o");
    assert_eq!(DAI.kirin_square(Square { file: 14, rank: 14 }), "1a");
    assert_eq!(SHOGI.kirin_square(Square { file: 4, rank: 4 }), "5e");
    assert_eq!(YARI.kirin_square(Square { file: 0, rank: 8 }), "7a");
}

#[test]
fn kirin_squares_agree_with_the_dai_board() {
    // kirin's own dai square reader is the authority on kirin's text.
    for square in all_squares(DAI) {
        let text = DAI.kirin_square(square);
        let dai: crate::dai::types::Square = text.parse().expect("kirin reads its square");
        assert_eq!(dai.to_string(), text);
        assert_eq!(15 - dai.file(), square.file);
        assert_eq!(14 - dai.rank(), square.rank);
    }
}

#[test]
fn every_square_reads_back_on_every_board() {
    for board in [SHOGI, YARI, DAI] {
        for square in all_squares(board) {
            let xboard = board.xboard_square(square);
            let kirin = board.kirin_square(square);
            assert_eq!(
                board.read_xboard_square(xboard.as_bytes()),
                Some((square, xboard.len()))
            );
            assert_eq!(
                board.read_kirin_square(kirin.as_bytes()),
                Some((square, kirin.len()))
            );
        }
    }
}

#[test]
fn every_step_and_promotion_round_trips() {
    for board in [YARI, DAI] {
        for from in all_squares(board) {
            for to in all_squares(board) {
                for suffix in ["", "+"] {
                    let kirin = format!(
                        "{}{}{suffix}",
                        board.kirin_square(from),
                        board.kirin_square(to)
                    );
                    let xboard = board.to_xboard(&kirin).unwrap();
                    assert_eq!(
                        xboard,
                        format!(
                            "{}{}{suffix}",
                            board.xboard_square(from),
                            board.xboard_square(to)
                        )
                    );
                    assert_eq!(board.to_kirin(&xboard).unwrap(), kirin);
                }
            }
        }
    }
}

#[test]
fn lion_moves_igui_and_the_pass_round_trip() {
    let cases = [
        ("8h8g9f", "h8h9,h9g10"),
        ("8h8g8h", "h8h9,h9h8"),
        ("1o2n3m", "o1n2,n2m3"),
        ("15a14b15a", "a15b14,b14a15"),
        ("pass", "@@@@"),
    ];
    for (kirin, xboard) in cases {
        assert_eq!(DAI.to_xboard(kirin).unwrap(), xboard, "{kirin}");
        assert_eq!(DAI.to_kirin(xboard).unwrap(), kirin, "{xboard}");
    }
    // Every two-step path from every square reads back.
    let king_steps = [
        (-1i8, -1i8),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ];
    let on = |s: Square, (df, dr): (i8, i8)| {
        let (file, rank) = (s.file as i8 + df, s.rank as i8 + dr);
        ((0..15).contains(&file) && (0..15).contains(&rank)).then_some(Square {
            file: file as u8,
            rank: rank as u8,
        })
    };
    let mut paths = 0;
    for from in all_squares(DAI) {
        for first in king_steps {
            let Some(mid) = on(from, first) else { continue };
            for second in king_steps {
                let Some(to) = on(mid, second) else { continue };
                let kirin = [from, mid, to].map(|s| DAI.kirin_square(s)).concat();
                let xboard = DAI.to_xboard(&kirin).unwrap();
                assert_eq!(xboard.matches(',').count(), 1);
                assert_eq!(DAI.to_kirin(&xboard).unwrap(), kirin);
                paths += 1;
            }
        }
    }
    assert!(paths > 10_000);
}

#[test]
fn drops_and_explicit_non_promotion() {
    assert_eq!(SHOGI.to_xboard("P*5e").unwrap(), "P@e5");
    assert_eq!(SHOGI.to_kirin("P@e5").unwrap(), "P*5e");
    assert_eq!(SHOGI.to_kirin("b@a9").unwrap(), "B*9a");
    assert_eq!(SHOGI.to_kirin("c3c4=").unwrap(), "7g7f");
    assert_eq!(SHOGI.to_kirin("b8b9+").unwrap(), "8b8a+");
}

#[test]
fn bad_text_is_refused_with_a_reason() {
    for bad in [
        "",
        "h8",
        "p1p2",
        "h16h15",
        "h0h1",
        "h8h9,h10h11",
        "h8h9+,h9g10",
        "a1a2,a2a3,a3a4",
        "h8h9x",
        "PP@e5",
        "P@z9",
    ] {
        assert!(DAI.to_kirin(bad).is_err(), "{bad:?} was read");
    }
    for bad in [
        "", "16a1a", "8p8o", "0a1a", "8h", "8h8g9f8h", "P*16a", "pass+",
    ] {
        assert!(DAI.to_xboard(bad).is_err(), "{bad:?} was read");
    }
    assert_eq!(
        DAI.to_kirin("h8h9,h10h11").unwrap_err().reason,
        "legs do not join"
    );
}

#[test]
fn multi_leg_moves_go_out_one_leg_per_command() {
    assert_eq!(move_commands("h8h9,h9g10"), ["h8h9,", "h9g10"]);
    assert_eq!(move_commands("h5h6"), ["h5h6"]);
    assert_eq!(move_commands("@@@@"), ["@@@@"]);
}
