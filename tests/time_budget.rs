//! Time-budget rules checked from the outside: the properties a tournament clock imposes, and
//! whole simulated games in which the search always runs to its hard limit plus a latency.

use kirin::search::time::{
    BYOYOMI_MAIN_MAX_PERCENT, Clock, INCREMENT_MAX_PERCENT, ReactionTime, SUDDEN_DEATH_MAX_PERCENT,
    TINY_BUDGET_MS, TimeManager, TimeOptions, estimate_moves_to_go,
};
use proptest::prelude::*;
use std::time::{Duration, Instant};

fn manager(clock: Clock, opts: &TimeOptions, ply: u32) -> TimeManager {
    TimeManager::new(&clock, opts, ply, Instant::now())
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap()
}

fn main_and_byoyomi(time_left: u64, byoyomi: u64) -> Clock {
    Clock {
        time_left,
        byoyomi,
        ..Clock::default()
    }
}

fn sudden_death(time_left: u64) -> Clock {
    Clock {
        time_left,
        ..Clock::default()
    }
}

fn fischer(time_left: u64, increment: u64) -> Clock {
    Clock {
        time_left,
        increment,
        ..Clock::default()
    }
}

fn any_options() -> impl Strategy<Value = TimeOptions> {
    (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        any::<u32>(),
        any::<bool>(),
        any::<u32>(),
    )
        .prop_map(|(nd, nd2, min, slow, round, draw)| TimeOptions {
            network_delay: nd,
            network_delay2: nd2,
            minimum_thinking_time: min,
            slow_mover: slow,
            round_up_to_full_second: round,
            max_moves_to_draw: draw,
            auto_network_delay: false,
        })
}

/// Options a user might really set: margins up to a few seconds, the rest anywhere sensible.
fn plausible_options() -> impl Strategy<Value = TimeOptions> {
    (
        0..2_000u64,
        0..3_000u64,
        0..5_000u64,
        10..=500u32,
        any::<bool>(),
        prop_oneof![Just(0u32), 100..400u32],
    )
        .prop_map(|(nd, nd2, min, slow, round, draw)| TimeOptions {
            network_delay: nd,
            network_delay2: nd2,
            minimum_thinking_time: min,
            slow_mover: slow,
            round_up_to_full_second: round,
            max_moves_to_draw: draw,
            auto_network_delay: false,
        })
}

fn any_clock() -> impl Strategy<Value = Clock> {
    (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        proptest::option::of(any::<u64>()),
    )
        .prop_map(|(time_left, byoyomi, increment, movetime)| Clock {
            time_left,
            byoyomi,
            increment,
            movetime,
        })
}

/// Clocks in the ranges GUIs really send, where the interesting boundaries are.
fn plausible_clock() -> impl Strategy<Value = Clock> {
    prop_oneof![
        (0..3_600_000u64, 1..60_000u64).prop_map(|(t, b)| main_and_byoyomi(t, b)),
        (0..3_600_000u64, 1..60_000u64).prop_map(|(t, i)| fischer(t, i)),
        (0..3_600_000u64).prop_map(sudden_death),
        (0..60_000u64).prop_map(|m| Clock {
            movetime: Some(m),
            ..Clock::default()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_panic_for_any_input(
        clock in any_clock(), opts in any_options(), ply in any::<u32>(),
        elapsed in any::<u64>(), changes in any::<f64>(), drop in any::<i32>(), single in any::<bool>(),
    ) {
        let start = Instant::now();
        let mut t = TimeManager::new(&clock, &opts, ply, start);
        prop_assert!(t.optimum() <= t.maximum());
        prop_assert!(!t.maximum().is_zero());
        let _ = t.deadline();
        let _ = t.should_stop_after_iteration(Duration::from_millis(elapsed), changes, drop, single);
        t.restart(start + Duration::from_secs(1));
        prop_assert!(t.deadline() >= t.start());
    }

    #[test]
    fn maximum_stays_inside_the_clock(clock in any_clock(), opts in any_options(), ply in any::<u32>()) {
        check_inside_the_clock(&clock, &opts, ply)?;
    }

    #[test]
    fn maximum_stays_inside_plausible_clocks(clock in plausible_clock(), opts in plausible_options(), ply in 0..400u32) {
        check_inside_the_clock(&clock, &opts, ply)?;
    }

    #[test]
    fn stopping_never_comes_after_the_maximum(
        clock in plausible_clock(), opts in plausible_options(), ply in 0..400u32,
        changes in any::<f64>(), drop in any::<i32>(),
    ) {
        let t = manager(clock, &opts, ply);
        prop_assert!(t.should_stop_after_iteration(t.maximum(), changes, drop, false));
        prop_assert_eq!(t.deadline(), t.start() + t.maximum());
    }

    #[test]
    fn pure_byoyomi_uses_the_period_minus_the_margin(byo in 1..600_000u64, ply in 0..400u32, draw in 0..400u32) {
        let opts = TimeOptions { max_moves_to_draw: draw, ..TimeOptions::default() };
        let t = manager(main_and_byoyomi(0, byo), &opts, ply);
        let expected = byo.saturating_sub(opts.network_delay2);
        if expected > 0 {
            prop_assert_eq!(ms(t.maximum()), expected);
        }
        prop_assert_eq!(t.optimum(), t.maximum());
    }

    #[test]
    fn sudden_death_stays_under_its_fraction(tl in any::<u64>(), opts in plausible_options(), ply in 0..400u32) {
        let t = manager(sudden_death(tl), &opts, ply);
        let fraction = u64::try_from(u128::from(tl) * u128::from(SUDDEN_DEATH_MAX_PERCENT) / 100).unwrap();
        if fraction >= TINY_BUDGET_MS {
            prop_assert!(ms(t.maximum()) <= fraction, "{:?} > {}", t.maximum(), fraction);
        }
    }

    #[test]
    fn increment_stays_under_its_fraction(tl in 1_000..100_000_000u64, inc in 1..100_000u64, opts in plausible_options(), ply in 0..400u32) {
        let t = manager(fischer(tl, inc), &opts, ply);
        prop_assert!(ms(t.maximum()) <= tl * INCREMENT_MAX_PERCENT / 100);
    }

    #[test]
    fn increment_uses_share_plus_increment(tl in 10_000..10_000_000u64, inc_per_mille in 1..50u64, ply in 0..400u32) {
        let inc = (tl * inc_per_mille / 1000).max(1);
        let opts = TimeOptions::default();
        let t = manager(fischer(tl, inc), &opts, ply);
        let planned = tl / estimate_moves_to_go(ply, 0) + inc;
        // The only deduction is the expected delay the GUI will add on top of our thinking.
        prop_assert_eq!(ms(t.optimum()), planned - opts.network_delay);
    }

    #[test]
    fn round_up_ends_just_before_a_second_or_not_at_all(
        clock in plausible_clock(), opts in plausible_options(), ply in 0..400u32,
    ) {
        let rounded = manager(clock, &TimeOptions { round_up_to_full_second: true, ..opts.clone() }, ply);
        let plain = manager(clock, &TimeOptions { round_up_to_full_second: false, ..opts.clone() }, ply);
        let margin = opts.network_delay2.max(opts.network_delay);
        for (r, p) in [(rounded.maximum(), plain.maximum()), (rounded.optimum(), plain.optimum())] {
            prop_assert!(r >= p && r <= p + Duration::from_secs(1));
            prop_assert!(r == p || (ms(r) + margin).is_multiple_of(1000), "{:?} vs {:?}", r, p);
        }
        prop_assert!(rounded.optimum() <= rounded.maximum());
    }
}

fn check_inside_the_clock(
    clock: &Clock,
    opts: &TimeOptions,
    ply: u32,
) -> Result<(), TestCaseError> {
    let t = manager(*clock, opts, ply);
    // The engine's hard margin is the larger of the two delays: a soft delay above
    // `NetworkDelay2` is also time the GUI takes.
    let margin = opts.network_delay2.max(opts.network_delay);
    let total = clock
        .time_left
        .saturating_add(clock.byoyomi)
        .saturating_add(clock.increment);
    let allowed = total.saturating_sub(margin);
    if allowed > 0 {
        prop_assert!(
            ms(t.maximum()) <= allowed,
            "{:?} allows {} but maximum is {:?}",
            clock,
            allowed,
            t.maximum()
        );
    }
    if let Some(mt) = clock.movetime {
        let allowed = mt.saturating_sub(margin);
        if allowed > 0 {
            prop_assert!(ms(t.maximum()) <= allowed);
        }
    }
    Ok(())
}

#[test]
fn one_second_byoyomi_is_used_at_least_90_percent() {
    let t = manager(main_and_byoyomi(0, 1000), &TimeOptions::default(), 100);
    assert!((900..1000).contains(&ms(t.maximum())), "{:?}", t.maximum());
    assert!((900..1000).contains(&ms(t.optimum())), "{:?}", t.optimum());
}

#[test]
fn hundred_ms_byoyomi_stays_under_100_ms() {
    let t = manager(main_and_byoyomi(0, 100), &TimeOptions::default(), 100);
    assert!(ms(t.maximum()) < 100 && !t.maximum().is_zero());
}

#[test]
fn no_time_at_all_gives_a_tiny_budget() {
    for clock in [
        Clock::default(),
        sudden_death(0),
        fischer(0, 0),
        Clock {
            movetime: Some(0),
            ..Clock::default()
        },
    ] {
        let t = manager(clock, &TimeOptions::default(), 0);
        assert!(
            !t.maximum().is_zero() && ms(t.maximum()) <= TINY_BUDGET_MS,
            "{clock:?}"
        );
    }
}

#[test]
fn main_time_runs_smoothly_into_byoyomi() {
    let opts = TimeOptions::default();
    let pure = manager(main_and_byoyomi(0, 1000), &opts, 120);
    let mut prev: Option<(u64, u64)> = None;
    for tl in (0..=30_000u64).rev() {
        let t = manager(main_and_byoyomi(tl, 1000), &opts, 120);
        let now = (ms(t.optimum()), ms(t.maximum()));
        assert!(
            now.0 >= ms(pure.optimum()) && now.1 >= ms(pure.maximum()),
            "time_left {tl}: {now:?}"
        );
        assert!(
            now.1 <= tl + 1000 - opts.network_delay2,
            "time_left {tl}: {now:?}"
        );
        if let Some(p) = prev {
            // One millisecond less on the clock may cost at most a millisecond of budget.
            assert!(
                now.0 <= p.0 && now.1 <= p.1,
                "time_left {tl}: {now:?} after {p:?}"
            );
            assert!(
                p.0 - now.0 <= 1 && p.1 - now.1 <= 1,
                "time_left {tl}: {now:?} after {p:?}"
            );
        }
        prev = Some(now);
    }
    assert_eq!(prev, Some((ms(pure.optimum()), ms(pure.maximum()))));
    // Long main time: a share on top of the period, with room for an unstable search.
    let t = manager(main_and_byoyomi(30_000, 1000), &opts, 120);
    assert!(
        ms(t.optimum()) > 1000 && ms(t.maximum()) <= 1000 + 30_000 * BYOYOMI_MAIN_MAX_PERCENT / 100
    );
}

#[test]
fn sudden_death_shrinks_as_time_runs_out() {
    let opts = TimeOptions::default();
    let mut prev = u64::MAX;
    for tl in (1000..=600_000u64).rev().step_by(7) {
        let t = manager(sudden_death(tl), &opts, 100);
        let max = ms(t.maximum());
        assert!(max <= prev, "time_left {tl}: {max} after {prev}");
        assert!(max <= tl * SUDDEN_DEATH_MAX_PERCENT / 100);
        prev = max;
    }
    let one_second = manager(sudden_death(1000), &opts, 100);
    assert!(
        ms(one_second.maximum()) <= 100,
        "{:?}",
        one_second.maximum()
    );
}

#[test]
fn increment_game_example() {
    let opts = TimeOptions::default();
    let t = manager(fischer(60_000, 2_000), &opts, 0);
    // 90 moves to go at the start: 666 ms of share plus the 2 s increment, less the delay.
    assert_eq!(ms(t.optimum()), 60_000 / 90 + 2_000 - 40);
    assert!(t.maximum() > t.optimum());
}

#[test]
fn draw_limit_spends_the_rest_near_the_end() {
    let with_limit = TimeOptions {
        max_moves_to_draw: 256,
        ..TimeOptions::default()
    };
    let clock = main_and_byoyomi(60_000, 5_000);
    let near = manager(clock, &with_limit, 250);
    let unlimited = manager(clock, &TimeOptions::default(), 250);
    assert!(near.optimum() > unlimited.optimum());
    assert!(ms(near.maximum()) <= 5_000 + 60_000 * BYOYOMI_MAIN_MAX_PERCENT / 100);
}

#[test]
fn slow_mover_scales_the_optimum() {
    let clock = sudden_death(300_000);
    let normal = manager(clock, &TimeOptions::default(), 40);
    let slow = manager(
        clock,
        &TimeOptions {
            slow_mover: 200,
            ..TimeOptions::default()
        },
        40,
    );
    let fast = manager(
        clock,
        &TimeOptions {
            slow_mover: 50,
            ..TimeOptions::default()
        },
        40,
    );
    assert!(fast.optimum() < normal.optimum() && normal.optimum() < slow.optimum());
    assert!(slow.optimum() <= slow.maximum());
}

#[test]
fn minimum_thinking_time_is_a_floor_below_the_ceiling() {
    let opts = TimeOptions {
        minimum_thinking_time: 3_000,
        ..TimeOptions::default()
    };
    // Here the formula alone would give about 2.4 s.
    let t = manager(sudden_death(60_000), &opts, 170);
    assert_eq!(ms(t.optimum()), 3_000);
    let t = manager(main_and_byoyomi(0, 1000), &opts, 0);
    assert_eq!(ms(t.maximum()), 1000 - opts.network_delay2);
    let t = manager(sudden_death(10_000), &opts, 0);
    assert_eq!(ms(t.maximum()), 1_000);
}

/// Plays our side of a game on a GUI's clock, thinking `think(tm)` per move plus `latency`,
/// and returns the clock after `moves` moves, or the move at which we flagged.
fn play(
    mut clock: Clock,
    opts: &TimeOptions,
    moves: u32,
    latency: u64,
    think: impl Fn(&TimeManager) -> Duration,
) -> Result<Clock, u32> {
    for m in 0..moves {
        let t = manager(clock, opts, 2 * m);
        let used = ms(think(&t)) + latency;
        if used <= clock.time_left {
            clock.time_left -= used;
        } else if used - clock.time_left <= clock.byoyomi {
            clock.time_left = 0;
        } else {
            return Err(m);
        }
        clock.time_left += clock.increment;
    }
    Ok(clock)
}

#[test]
fn byoyomi_games_never_flag_even_at_the_hard_limit() {
    let options = TimeOptions::default();
    for (main, byo) in [
        (0, 1000),
        (30_000, 1000),
        (10_000, 3_000),
        (600_000, 10_000),
        (1_500, 100),
    ] {
        // The margins the engine plays with before it has measured anything (at byoyomi 100
        // `AutoNetworkDelay` lowers the options' margin, which is the whole period).
        let clock = main_and_byoyomi(main, byo);
        let opts = ReactionTime::default().apply(&options, Some(&clock));
        // Any overrun below the hard margin must be survivable, move after move.
        let overrun = opts.network_delay2 - 1;
        let end = play(clock, &opts, 300, overrun, TimeManager::maximum);
        assert!(
            end.is_ok(),
            "main {main} byoyomi {byo}: flagged at move {end:?}"
        );
    }
}

#[test]
fn increment_games_never_flag() {
    let opts = TimeOptions::default();
    for (main, inc) in [
        (60_000, 1_000),
        (10_000, 100),
        (300_000, 5_000),
        (1_000, 500),
    ] {
        let end = play(fischer(main, inc), &opts, 300, 30, TimeManager::maximum);
        assert!(
            end.is_ok(),
            "main {main} inc {inc}: flagged at move {end:?}"
        );
    }
}

#[test]
fn sudden_death_lasts_a_long_game() {
    let opts = TimeOptions::default();
    // A long game (300 plies) where every move runs well past its optimum.
    let end = play(sudden_death(300_000), &opts, 150, 10, |t| {
        t.optimum().mul_f64(1.5).min(t.maximum())
    })
    .expect("flagged in a 5-minute sudden-death game");
    // The per-move reserve is still there for the moves after that.
    assert!(end.time_left >= 500, "{end:?}");
    // Even when every search runs to its hard limit, a 60-ply stretch survives from 1 minute.
    assert!(play(sudden_death(60_000), &opts, 60, 10, TimeManager::maximum).is_ok());
}
