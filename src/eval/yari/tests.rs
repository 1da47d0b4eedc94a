use super::*;

#[test]
fn the_embedded_weights_parse_and_cover_every_kind() {
    let w = YariWeights::parse(file::WEIGHTS_TEXT).unwrap();
    for k in PieceType::ALL {
        if k != PieceType::King {
            assert!(w.on_board(k) > 0, "{k:?} has no value");
        }
    }
    for k in PieceType::HAND {
        assert!(w.in_hand(k) > 0, "{k:?} has no hand value");
    }
}

/// Parameters that differ from their neighbours: `(i * step) % modulus - offset`.
fn distinct_params(step: usize, modulus: usize, offset: i32) -> Vec<f64> {
    (0..NUM_PARAMS)
        .map(|i| f64::from((i * step % modulus) as i32 - offset))
        .collect()
}

/// Positions along a seeded random game from the start.
fn random_walk(seed: u64, plies: usize) -> Vec<Position> {
    let mut pos = Position::startpos();
    let mut next = crate::test_rng::xorshift(seed);
    let mut out = vec![pos.clone()];
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.do_move(moves[(next() % moves.len() as u64) as usize]);
        out.push(pos.clone());
    }
    out
}

#[test]
fn the_evaluation_is_the_dot_product_of_parameters_and_features() {
    // Neighbouring parameters differ, so that a feature counted in the wrong place shows.
    let p = distinct_params(37, 101, 50);
    let w = YariWeights::from_params(&p);
    assert_eq!(w.to_params(), p);
    for pos in random_walk(7, 120) {
        let f = YariWeights::features(&pos);
        let dot: f64 = f.iter().map(|&(i, n)| p[i as usize] * f64::from(n)).sum();
        assert_eq!(dot as i32, w.evaluate(&pos), "{}", pos.to_sfen());
    }
}

#[test]
fn the_text_format_keeps_every_parameter() {
    let mut w = YariWeights::from_params(&distinct_params(53, 97, 40));
    // The king has no hand value, no mobility and no place near itself, the pawn no mobility; in hand only the
    // unpromoted kinds count: those parameters are not in the file and read back as 0.
    let read = YariWeights::parse(&w.to_text("round trip\ntwo lines")).unwrap();
    for (i, a) in w.params.iter_mut().enumerate() {
        if *a != read.params[i] {
            assert_eq!(read.params[i], 0, "parameter {i}");
            *a = 0;
        }
    }
    assert_eq!(read, w);
    let embedded = YariWeights::embedded();
    assert_eq!(
        YariWeights::parse(&embedded.to_text("x")).unwrap(),
        *embedded
    );
}

#[test]
fn a_rank_line_sets_every_file_of_its_ranks() {
    let w = YariWeights::parse("rank N 1 2 3 4 5 6 7 8 9\n").unwrap();
    let by_square = (0..9)
        .map(|r| format!("square N {r} {0} {0} {0} {0}\n", r + 1))
        .collect::<String>();
    assert_eq!(w, YariWeights::parse(&by_square).unwrap());
}

#[test]
fn bad_lines_are_named() {
    let e = YariWeights::parse("material P 1 2\nmaterial L 3 4\n").unwrap_err();
    assert!(e.contains("line 2"), "{e}");
    for bad in [
        "rank P 1 2 3\n",
        "tempo x\n",
        "square P 9 1 2 3 4\n",
        "square P 0 1 2 3\n",
        "enemy_king P 4 1 2 3 4\n",
        "own_king K 0 1 2 3 4\n",
        "mobility K 3\n",
        "mobility P 3\n",
        "material +P 1 2\n",
    ] {
        assert!(YariWeights::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_start_is_balanced_and_material_counts() {
    let w = YariWeights::embedded();
    let start = Position::startpos();
    // The same army on each side: only the tempo remains.
    assert_eq!(w.evaluate(&start), w.tempo());
    // Black a yari rook up (White's removed): the same lead for Black to move as against
    // White to move, by more than half a yari rook, and only the tempo between them.
    let up = Position::from_sfen("1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1").unwrap();
    let down = Position::from_sfen("1nnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR w - 1").unwrap();
    let (up, down) = (w.evaluate(&up), w.evaluate(&down));
    assert_eq!(up + down, 2 * w.tempo(), "{up} {down}");
    assert!(up - w.tempo() > w.on_board(PieceType::YariRook) / 2, "{up}");
}

/// A board row of an SFEN as one token per square (`None` for empty).
fn row_tokens(row: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut promoted = false;
    for ch in row.chars() {
        match ch {
            '+' => promoted = true,
            '1'..='9' => out.extend((0..ch.to_digit(10).unwrap()).map(|_| None)),
            _ => {
                out.push(Some(if promoted {
                    format!("+{ch}")
                } else {
                    ch.to_string()
                }));
                promoted = false;
            }
        }
    }
    out
}

fn row_text(tokens: &[Option<String>]) -> String {
    let mut out = String::new();
    let mut empty = 0;
    for t in tokens {
        match t {
            None => empty += 1,
            Some(p) => {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push_str(p);
            }
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
    out
}

fn swap_case(s: &str) -> String {
    s.chars()
        .map(|c| match c.is_ascii_uppercase() {
            true => c.to_ascii_lowercase(),
            false => c.to_ascii_uppercase(),
        })
        .collect()
}

/// The position seen in a mirror (files 1-7 reversed), and with the colours exchanged (the
/// board turned round, every piece changing side, the other side to move).
fn mirrored_and_exchanged(sfen: &str) -> (String, String) {
    let fields: Vec<&str> = sfen.split(' ').collect();
    let rows: Vec<Vec<Option<String>>> = fields[0].split('/').map(row_tokens).collect();
    let reversed = |r: &Vec<Option<String>>| r.iter().rev().cloned().collect::<Vec<_>>();
    let mirror: Vec<String> = rows.iter().map(|r| row_text(&reversed(r))).collect();
    let turned: Vec<String> = rows
        .iter()
        .rev()
        .map(|r| swap_case(&row_text(&reversed(r))))
        .collect();
    let side = if fields[1] == "b" { "w" } else { "b" };
    let hand = if fields[2] == "-" {
        "-".to_string()
    } else {
        swap_case(fields[2])
    };
    (
        format!("{} {} {} 1", mirror.join("/"), fields[1], fields[2]),
        format!("{} {side} {hand} 1", turned.join("/")),
    )
}

#[test]
fn the_evaluation_is_the_same_in_a_mirror_and_for_the_other_colour() {
    // Neighbouring parameters differ, so that a square or a king row read for the wrong
    // colour or file shows.
    let w = YariWeights::from_params(&distinct_params(37, 101, 50));
    let mut checked = 0;
    for seed in [3, 11] {
        for pos in random_walk(seed, 150) {
            let (mirror, exchanged) = mirrored_and_exchanged(&pos.to_sfen());
            let v = w.evaluate(&pos);
            let m = Position::from_sfen(&mirror).unwrap();
            assert_eq!(w.evaluate(&m), v, "{} / {mirror}", pos.to_sfen());
            let x = Position::from_sfen(&exchanged).unwrap();
            assert_eq!(w.evaluate(&x), v, "{} / {exchanged}", pos.to_sfen());
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}
