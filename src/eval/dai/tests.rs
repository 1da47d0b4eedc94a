use super::file::WEIGHTS_TEXT;
use super::*;
use crate::dai::{RepetitionRule, Rules, value};

fn with_mobility() -> DaiWeights {
    DaiWeights {
        mobility: [3, 5, 7, 11],
        hunt_near: 11,
        hunt_net: 13,
        hunt_guard: 17,
        hunt_trade: 19,
        hunt_front: 23,
        ..(*embedded()).clone()
    }
}

#[test]
fn the_start_position_is_even_but_for_the_tempo() {
    for w in [(*embedded()).clone(), with_mobility()] {
        assert_eq!(w.evaluate(&Position::startpos()), w.tempo);
    }
}

#[test]
fn material_and_a_lost_royal_count() {
    // The hunt for the royal (the lion's loss puts White far ahead) is left out here.
    let w = DaiWeights {
        hunt: 0,
        hunt_near: 0,
        hunt_net: 0,
        hunt_guard: 0,
        hunt_trade: 0,
        hunt_front: 0,
        ..(*embedded()).clone()
    };
    let start = Position::startpos();
    // Black without its lion (the `L!` on rank m).
    let sfen = crate::dai::START_SFEN.replace("1X'1A'1WOL!XW1A'1X'1", "1X'1A'1WO1XW1A'1X'1");
    let no_lion = Position::from_sfen(&sfen).unwrap();
    let lost = w.evaluate(&start) - w.evaluate(&no_lion);
    let lion = w.material[PieceType::Lion.index()];
    assert!(
        (lion - 100..=lion + 100).contains(&lost),
        "lion worth {lost}, expected about {lion}"
    );
    // White to move sees the mirror image.
    let flipped = sfen.replace(" b - 1", " w - 1");
    let white = Position::from_sfen(&flipped).unwrap();
    assert_eq!(
        w.evaluate(&white) - w.tempo,
        -(w.evaluate(&no_lion) - w.tempo)
    );
}

/// Positions along random games from the start, captures half the time so that royals are
/// approached and taken, with a fixed seed.
fn random_positions(games: usize, plies: usize) -> Vec<Position> {
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos();
        for _ in 0..plies {
            out.push(pos.clone());
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.royals(pos.side_to_move()) == 0 {
                break;
            }
            let captures: Vec<_> = moves
                .iter()
                .copied()
                .filter(|&m| pos.is_capture(m))
                .collect();
            let pool = if !captures.is_empty() && next().is_multiple_of(2) {
                &captures
            } else {
                &moves
            };
            pos.do_move(pool[(next() % pool.len() as u64) as usize]);
        }
    }
    out
}

/// The squares the piece on `sq` can move to, from the moves generated for it with its side
/// to move (a null move gives the opponent the move): every destination but its own square.
fn reach_by_moves(pos: &Position, sq: Square) -> i32 {
    let mut p = pos.clone();
    p.set_rules(Rules {
        repetition: RepetitionRule::Off,
        ..p.rules()
    });
    if p.piece_on(sq).color() != p.side_to_move() {
        p.do_null_move();
    }
    let mut to: Vec<Square> = p
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == Some(sq) && m.to() != Some(sq))
        .filter_map(|m| m.to())
        .collect();
    to.sort_by_key(|s| s.index());
    to.dedup();
    to.len() as i32
}

/// The evaluation as its terms are defined, piece by piece against every royal.
fn by_definition(w: &DaiWeights, pos: &Position) -> i32 {
    let side = |c: Color| {
        let mut score = 0;
        let royals: Vec<Square> = pos
            .pieces(c)
            .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
            .collect();
        for sq in pos.pieces(c) {
            let kind = pos.piece_on(sq).kind().unwrap();
            if kind.is_royal() {
                continue;
            }
            score += w.material[kind.index()];
            let adv = advance_of(c, sq);
            if matches!(
                kind,
                PieceType::Pawn
                    | PieceType::GoBetween
                    | PieceType::Iron
                    | PieceType::Stone
                    | PieceType::Copper
            ) {
                score += adv * w.advance;
            }
            if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                score += w.in_zone;
            }
            let group = mobility_group(kind);
            if group != NO_GROUP {
                score += w.mobility[usize::from(group)] * reach_by_moves(pos, sq);
            }
        }
        if royals.len() == 1 {
            score -= w.lone_royal;
        }
        let dist = |a: Square, b: Square| {
            let df = (i32::from(a.file()) - i32::from(b.file())).abs();
            let dr = (i32::from(a.rank()) - i32::from(b.rank())).abs();
            df.max(dr)
        };
        for &r in &royals {
            score += pos.pieces(c).filter(|&sq| dist(sq, r) == 1).count() as i32 * w.royal_guard;
            score -=
                pos.pieces(c.flip()).filter(|&sq| dist(sq, r) <= 2).count() as i32 * w.royal_danger;
        }
        score
    };
    let us = pos.side_to_move();
    let (a, b) = (side(us), side(us.flip()));
    a - b + hunt_by_definition(w, pos, a - b) + w.tempo
}

/// The hunt term for the side to move, whose lead by the other terms is `lead`, counted piece
/// by piece and square by square.
fn hunt_by_definition(w: &DaiWeights, pos: &Position, lead: i32) -> i32 {
    let royals_of = |c: Color| -> Vec<Square> {
        pos.pieces(c)
            .filter(|&sq| pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
            .collect()
    };
    let value = |hunter: Color| -> i32 {
        let targets = royals_of(hunter.flip());
        if targets.is_empty() {
            return 0;
        }
        let (mut closeness, mut near) = (0, 0);
        let mut distances = Vec::new();
        for sq in pos.pieces(hunter) {
            let kind = pos.piece_on(sq).kind().unwrap();
            if kind.is_royal() {
                continue;
            }
            let d = targets.iter().map(|&t| distance(sq, t)).min().unwrap_or(14);
            distances.push(d);
            closeness += 14 - d;
            near += (5 - d).max(0) * (value(kind) / 100);
        }
        let (mut net, mut guards) = (0, 0);
        for &r in &targets {
            for sq in Square::all().filter(|&sq| distance(sq, r) <= 1) {
                net += i32::from(pos.is_attacked(sq, hunter));
                let p = pos.piece_on(sq);
                guards += i32::from(sq != r && !p.is_none() && p.color() != hunter);
            }
        }
        let left = pos
            .pieces(hunter.flip())
            .filter(|&sq| !pos.piece_on(sq).kind().is_some_and(PieceType::is_royal))
            .count() as i32;
        distances.sort_unstable();
        let front: i32 = distances.iter().take(FRONT).map(|d| 14 - d).sum();
        w.hunt * closeness + w.hunt_near * near + w.hunt_net * net - w.hunt_guard * guards
            + w.hunt_trade * (64 - left).max(0)
            + w.hunt_front * front
    };
    // From nothing at a lead of hunt_lead to all of it at twice that.
    let part = |v: i32, lead: i32| v * (lead - w.hunt_lead).min(w.hunt_lead) / w.hunt_lead;
    let us = pos.side_to_move();
    if lead > w.hunt_lead {
        part(value(us), lead)
    } else if -lead > w.hunt_lead {
        -part(value(us.flip()), -lead)
    } else {
        0
    }
}

#[test]
fn the_evaluation_equals_its_definition_along_random_games() {
    let positions = random_positions(6, 300);
    assert!(positions.len() > 500, "{} positions", positions.len());
    let plain = (*embedded()).clone();
    let mobile = with_mobility();
    for (i, pos) in positions.iter().enumerate() {
        assert_eq!(
            plain.evaluate(pos),
            by_definition(&plain, pos),
            "{}",
            pos.to_sfen()
        );
        // The move generator is slow next to `reach`: every fifth position.
        if i % 5 == 0 {
            assert_eq!(
                mobile.evaluate(pos),
                by_definition(&mobile, pos),
                "{}",
                pos.to_sfen()
            );
        }
    }
}

/// The evaluation as it was hand-set in code before its parameters became a file: the
/// material from `dai::value`, the other terms fixed, no mobility.
fn hand_set(pos: &Position) -> i32 {
    use PieceType::*;
    let (advance, in_zone, royal_guard, royal_danger, lone_royal) = (3, 15, 7, 20, 75);
    let (hunt, hunt_lead, tempo) = (2, 750, 15);
    let (hunt_near, hunt_net, hunt_guard, hunt_trade) = (3, 20, 30, 15);
    let mut score = [0i32; 2];
    let mut royals: [ArrayVec<Square, 4>; 2] = [ArrayVec::new(), ArrayVec::new()];
    for c in [Color::Black, Color::White] {
        let side = &mut score[c.index()];
        for sq in pos.pieces(c) {
            let kind = pos.piece_on(sq).kind().unwrap();
            if kind.is_royal() {
                let _ = royals[c.index()].try_push(sq);
                continue;
            }
            *side += value(kind);
            let adv = advance_of(c, sq);
            if matches!(kind, Pawn | GoBetween | Iron | Stone | Copper) {
                *side += adv * advance;
            }
            if kind.can_promote() && adv >= 10 && !pos.declined_pawn_on(sq) {
                *side += in_zone;
            }
        }
    }
    for c in [Color::Black, Color::White] {
        let mine = &royals[c.index()];
        if mine.len() == 1 {
            score[c.index()] -= lone_royal;
        }
        for &r in mine {
            for sq in Square::all() {
                let p = pos.piece_on(sq);
                if sq == r || p.is_none() || distance(sq, r) > 2 {
                    continue;
                }
                if p.color() == c {
                    if distance(sq, r) == 1 {
                        score[c.index()] += royal_guard;
                    }
                } else {
                    score[c.index()] -= royal_danger;
                }
            }
        }
    }
    let us = pos.side_to_move().index();
    let lead = score[us] - score[1 - us];
    // The hunt as defined (it is the same function of the lead and the position with any
    // weights), with the hand-set strength.
    let hunting = DaiWeights {
        hunt,
        hunt_lead,
        hunt_near,
        hunt_net,
        hunt_guard,
        hunt_trade,
        ..(*embedded()).clone()
    };
    lead + hunt_by_definition(&hunting, pos, lead) + tempo
}

#[test]
fn the_shipped_weights_are_the_hand_set_evaluation() {
    let w = embedded();
    let positions = random_positions(4, 300);
    let mut far_ahead = 0;
    for pos in &positions {
        let v = hand_set(pos);
        assert_eq!(w.evaluate(pos), v, "{}", pos.to_sfen());
        far_ahead += usize::from(v.abs() >= w.hunt_lead);
    }
    // The hunt term is among what was compared.
    assert!(far_ahead > 10, "{far_ahead} of {}", positions.len());
}

#[test]
fn the_evaluation_is_the_dot_product_of_parameters_and_features_plus_the_hunt() {
    let w = with_mobility();
    let p = w.to_params();
    assert_eq!(p.len(), NUM_PARAMS);
    assert_eq!(w.with_params(&p), w);
    for pos in random_positions(3, 300) {
        let f = DaiWeights::features(&pos);
        assert_eq!(
            f.value(&p, &w),
            f64::from(w.evaluate(&pos)),
            "{}",
            pos.to_sfen()
        );
    }
}

#[test]
fn the_weights_file_round_trips() {
    for w in [(*embedded()).clone(), with_mobility()] {
        assert_eq!(DaiWeights::parse(&w.to_text("round trip")).unwrap(), w);
    }
    assert_eq!(
        DaiWeights::parse(WEIGHTS_TEXT).unwrap().to_text(""),
        embedded().to_text("")
    );
}

#[test]
fn bad_lines_are_named() {
    let good = embedded().to_text("");
    let with = |line: &str| format!("{good}{line}\n");
    let line_no = good.lines().count() + 1;
    for bad in [
        "material pawn x",
        "material king 5000",
        "material dragon 1",
        "mobility rook 3",
        "tempo",
        "tempo 1 2",
        "speed 3",
        "tempo 20",
    ] {
        let e = DaiWeights::parse(&with(bad)).unwrap_err();
        assert!(e.contains(&format!("line {line_no}:")), "{bad}: {e}");
    }
    let e = DaiWeights::parse(&good.replace("material lion 1900\n", "")).unwrap_err();
    assert!(e.contains("material lion"), "{e}");
    let e = DaiWeights::parse(&good.replace("hunt_lead 750", "hunt_lead 0")).unwrap_err();
    assert!(e.contains("hunt_lead"), "{e}");
}

#[test]
fn kind_names_are_english_words() {
    assert_eq!(kind_name(PieceType::Pawn), "pawn");
    assert_eq!(kind_name(PieceType::FreeKing), "free-king");
    assert_eq!(kind_name(PieceType::PromotedKirin), "promoted-kirin");
}

/// `pos` turned round: each side's pieces where the other's stood, and the other side to move.
fn turned_round(pos: &Position) -> Position {
    let mut board = String::new();
    for rank in 0..15u8 {
        if rank > 0 {
            board.push('/');
        }
        // The turned board's files 15 down to 1 on this rank are files 1 up to 15 of the
        // original's rank 14 - rank.
        let squares = (1..=15u8).map(|file| {
            let p = pos.piece_on(Square::new(file, 14 - rank)?);
            Some(crate::dai::Piece::new(p.kind()?, p.color().flip()))
        });
        crate::shogi::write_sfen_rank(&mut board, squares);
    }
    let side = if pos.side_to_move() == Color::Black {
        'w'
    } else {
        'b'
    };
    Position::from_sfen(&format!("{board} {side} - 1")).unwrap()
}

#[test]
fn both_sides_are_valued_alike() {
    let w = with_mobility();
    let positions = random_positions(6, 300);
    assert!(positions.len() > 500, "{} positions", positions.len());
    for pos in positions {
        assert_eq!(
            w.evaluate(&pos),
            w.evaluate(&turned_round(&pos)),
            "{}",
            pos.to_sfen()
        );
    }
}
