//! Time management by the tournament rules.
//!
//! Pure budget arithmetic: nothing here reads the clock except through the `Instant` the caller
//! passes in, so every rule can be tested exhaustively without a search. A time loss is the worst
//! result a game can have, so every formula ends in a hard ceiling derived only from what the
//! opponent's clock would allow, and all arithmetic saturates: a GUI sending absurd numbers must
//! get a small legal budget, never a panic or a wrapped-around huge one.

use std::time::{Duration, Instant};

/// Without a draw limit we assume the game runs to about this ply: engine games at short time
/// controls are longer than the ~120 plies of professional games, and erring long only makes the
/// early moves a little more frugal.
pub const EXPECTED_GAME_PLIES: u32 = 180;

/// However late in the game, main time is spread over at least this many of our moves (unless
/// a draw limit ends the game sooner): a game that has outlived the estimate is likely to go on
/// for a while (entering kings, long mating attacks), and running dry in sudden death loses.
pub const MIN_MOVES_TO_GO: u64 = 25;

/// The maximum lets an unstable search run this many times its share, like mainstream engines
/// (5-7x); the per-mode fractions below bound it where that would be unsafe.
pub const MAX_TO_OPTIMUM_RATIO: u64 = 5;

/// With byoyomi to come, one move may take at most this share of the remaining main time (plus
/// the period itself), so a single hard position cannot drop us into byoyomi early.
pub const BYOYOMI_MAIN_MAX_PERCENT: u64 = 20;

/// With an increment a move may use at most this share of the clock: the increment is counted as
/// arriving only after the move (USI does not say when GUIs add it), so the clock alone must
/// carry the move.
pub const INCREMENT_MAX_PERCENT: u64 = 25;

/// In sudden death nothing ever comes back, so no move may use more than this share of what is
/// left; with 1 s left that is at most 100 ms.
pub const SUDDEN_DEATH_MAX_PERCENT: u64 = 10;

/// The budget when the clock allows nothing at all: zero would let the search stop before it has
/// a move, and a few milliseconds is enough to finish a shallow search.
pub const TINY_BUDGET_MS: u64 = 5;

/// A best-move change in the last iterations extends the optimum by this fraction of itself.
const INSTABILITY_PER_CHANGE: f64 = 0.8;
const MAX_INSTABILITY: f64 = 3.0;
/// Each this many centipawns of score drop adds the optimum once more (within the clamp below);
/// a rise shortens it, as the position is resolving in our favour.
const FALLING_EVAL_CP_PER_DOUBLING: f64 = 200.0;
const MIN_FALLING_FACTOR: f64 = 0.75;
const MAX_FALLING_FACTOR: f64 = 1.75;

const SECOND_MS: u64 = 1000;

/// Engine options that shape the budget (USI: `NetworkDelay`, `NetworkDelay2`,
/// `MinimumThinkingTime`, `SlowMover`, a round-up switch and `MaxMovesToDraw`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeOptions {
    /// Expected delay (ms) between our `bestmove` and the GUI stopping our clock; taken off every
    /// soft budget so that what the GUI charges matches what we planned.
    pub network_delay: u64,
    /// Worst-case delay (ms) including our own reaction to the stop flag; every hard limit keeps
    /// this margin to the point where the opponent's clock would flag us. Never treated as smaller
    /// than `network_delay`.
    pub network_delay2: u64,
    /// Floor (ms) on the optimum and maximum, never lifted beyond the hard ceiling.
    pub minimum_thinking_time: u64,
    /// Percent applied to the discretionary part of the optimum (100 = normal). Byoyomi that
    /// would be lost anyway is not scaled.
    pub slow_mover: u32,
    /// CSA-style servers charge whole seconds, truncated, at least 1 s per move: extend budgets
    /// to just before the next whole second when the ceiling allows it.
    pub round_up_to_full_second: bool,
    /// Ply at which the game is adjudicated a draw, 0 = none.
    pub max_moves_to_draw: u32,
    /// Lower both delays to what the engine's own measured lateness needs ([`ReactionTime`]):
    /// right on one machine, where the delays are the engine's own; off for network play,
    /// where they are outside what the engine can measure.
    pub auto_network_delay: bool,
}

impl Default for TimeOptions {
    /// Margins sized for local play (GUI or match runner on the same machine) at 1-10 s byoyomi:
    /// the stop flag is seen within ~1 ms of the deadline, `bestmove` crosses the pipe in 1-3 ms,
    /// and a wake-up on a lightly loaded 2-core machine was measured at up to ~6 ms late. But a
    /// noisy virtual machine at load 2 once delivered a byoyomi-1000 answer 82 ms past an 80 ms
    /// margin (1002 ms, a CI run of 2026-12-04): the hard margin is 100 ms, the most that still
    /// uses 90% of a 1 s period; `AutoNetworkDelay` lowers it for short periods, where 100 ms
    /// would leave a 100 ms byoyomi no time at all. Network play should raise both (mainstream
    /// engines default to 120 / 1120 there).
    fn default() -> Self {
        TimeOptions {
            network_delay: 40,
            network_delay2: 100,
            // Enough for a few plies of search when the formulas say "almost nothing", small
            // enough not to distort fast games.
            minimum_thinking_time: 20,
            slow_mover: 100,
            round_up_to_full_second: false,
            max_moves_to_draw: 0,
            auto_network_delay: true,
        }
    }
}

/// The learnt worst lateness forgets by this factor per search, so a burst of load is
/// remembered for about a hundred moves.
const REACTION_DECAY: f64 = 0.98;
/// The hard margin is this many times the worst lateness, plus `REACTION_SLACK_MS`, and at
/// least `MIN_AUTO_HARD_MARGIN_MS` and a tenth of the period (byoyomi or movetime): a sudden
/// burst of load can be a few times worse than what was seen, and at long periods the time a
/// smaller margin would win is not worth the risk.
const REACTION_FACTOR: f64 = 4.0;
const REACTION_SLACK_MS: f64 = 15.0;
const MIN_AUTO_HARD_MARGIN_MS: u64 = 50;
const PERIOD_MARGIN_DIVISOR: u64 = 10;

/// How late the engine's answers come after a hard deadline (stop noticed, threads joined,
/// `bestmove` written), learnt over the searches that ran into one. With `AutoNetworkDelay`,
/// the margins follow it instead of the worst case for every machine: at byoyomi 100 the
/// budget is then 50 ms instead of none. The least margin of 50 ms comes from runs at load 5 on
/// two cores, where single answers came 30-55 ms late whatever the margin. Before any search
/// has run into its deadline the least margins apply: the lateness term only ever raises them.
#[derive(Clone, Debug, Default)]
pub struct ReactionTime {
    worst_ms: f64,
}

impl ReactionTime {
    /// One search that ended `late` after its hard deadline.
    pub fn record(&mut self, late: Duration) {
        let ms = late.as_secs_f64() * 1000.0;
        self.worst_ms = (self.worst_ms * REACTION_DECAY).max(ms);
    }

    /// `opts` for a move on `clock`, with `network_delay2` lowered to the margin the
    /// measurements call for, and `network_delay` to half of it; never raised above the
    /// options, and unchanged when `auto_network_delay` is off.
    pub fn apply(&self, opts: &TimeOptions, clock: Option<&Clock>) -> TimeOptions {
        if !opts.auto_network_delay {
            return opts.clone();
        }
        let period = clock.map_or(0, |c| c.movetime.unwrap_or(c.byoyomi));
        let hard = (self.worst_ms * REACTION_FACTOR + REACTION_SLACK_MS).ceil();
        // `as` saturates: an absurd measurement gives a huge margin, which `min` then caps.
        let hard = (hard as u64)
            .max(MIN_AUTO_HARD_MARGIN_MS)
            .max(period / PERIOD_MARGIN_DIVISOR);
        TimeOptions {
            network_delay2: opts.network_delay2.min(hard),
            network_delay: opts.network_delay.min(hard / 2),
            ..opts.clone()
        }
    }
}

/// The clock for the side to move, in milliseconds, as `go` reported it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time_left: u64,
    pub byoyomi: u64,
    pub increment: u64,
    pub movetime: Option<u64>,
}

impl Clock {
    /// Picks our side's numbers out of a `go` command; doing it in one place keeps the USI layer
    /// from ever budgeting with the opponent's clock. `byoyomi` is shared by both sides in USI.
    pub fn for_side_to_move(
        black_to_move: bool,
        btime: Option<u64>,
        wtime: Option<u64>,
        byoyomi: Option<u64>,
        binc: Option<u64>,
        winc: Option<u64>,
        movetime: Option<u64>,
    ) -> Clock {
        let (time, inc) = if black_to_move {
            (btime, binc)
        } else {
            (wtime, winc)
        };
        Clock {
            time_left: time.unwrap_or(0),
            byoyomi: byoyomi.unwrap_or(0),
            increment: inc.unwrap_or(0),
            movetime,
        }
    }
}

/// Our moves still to play, for spreading main time.
pub fn estimate_moves_to_go(game_ply: u32, max_moves_to_draw: u32) -> u64 {
    let by_length =
        u64::from(EXPECTED_GAME_PLIES.saturating_sub(game_ply) / 2).max(MIN_MOVES_TO_GO);
    if max_moves_to_draw == 0 {
        return by_length;
    }
    // Past the draw ply nothing needs saving for; the per-mode fractions still bound each move,
    // so a GUI counting plies differently from us cannot make us spend everything at once.
    let our_moves_to_draw = u64::from(max_moves_to_draw.saturating_sub(game_ply)).div_ceil(2);
    by_length.min(our_moves_to_draw.max(1))
}

/// `x * num / den` without intermediate overflow, and without the staircase that dividing
/// first would cut into budgets that should follow the clock smoothly.
fn mul_div(x: u64, num: u64, den: u64) -> u64 {
    let v = u128::from(x) * u128::from(num) / u128::from(den.max(1));
    u64::try_from(v).unwrap_or(u64::MAX)
}

fn percent(x: u64, pct: u64) -> u64 {
    mul_div(x, pct, 100)
}

/// Extends `t` to just before the next whole-second boundary the server would charge for,
/// unless that passes `limit`. `margin` is the worst-case delay the server adds to our time.
fn round_up_to_second(t: u64, limit: u64, margin: u64) -> u64 {
    let charged_secs = (t.saturating_add(margin) / SECOND_MS).max(1);
    let end = charged_secs
        .saturating_add(1)
        .saturating_mul(SECOND_MS)
        .saturating_sub(margin);
    if end > t && end <= limit { end } else { t }
}

/// Budget for one move, fixed at `go` (or `ponderhit`) time.
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    optimum_ms: u64,
    maximum_ms: u64,
    /// Stopping before the optimum saves nothing when the time would be lost anyway (pure or
    /// imminent byoyomi, `movetime`), so stability may extend but never shorten it.
    no_early_stop: bool,
    round_up: bool,
    hard_margin: u64,
}

impl TimeManager {
    pub fn new(clock: &Clock, opts: &TimeOptions, game_ply: u32, start: Instant) -> TimeManager {
        let soft = opts.network_delay;
        let hard = opts.network_delay2.max(soft);
        let slow = u64::from(opts.slow_mover);
        let mtg = estimate_moves_to_go(game_ply, opts.max_moves_to_draw);
        let tl = clock.time_left;
        let byo = clock.byoyomi;
        let inc = clock.increment;
        // The increment is deliberately left out: we cannot know whether the GUI credits it
        // before or after this move.
        let clock_ceiling = tl.saturating_add(byo).saturating_sub(hard);

        // (optimum, maximum, ceiling): the first two are wishes, the ceiling is what the clock
        // allows and is applied last.
        let (optimum, maximum, ceiling, mut no_early_stop) = if let Some(mt) = clock.movetime {
            let mut ceiling = mt.saturating_sub(hard);
            // A GUI sending both is unusual; the real clock still wins.
            if tl.saturating_add(byo).saturating_add(inc) > 0 {
                ceiling = ceiling.min(clock_ceiling);
            }
            (ceiling, ceiling, ceiling, true)
        } else if byo > 0 {
            // Main time and byoyomi together: the period is the floor of every move, and a share
            // of main time comes on top. As main time runs out the share shrinks to nothing, so
            // the budget slides continuously into pure byoyomi with no cliff.
            let base = byo.saturating_add(inc);
            let share = mul_div(percent(tl, slow), 1, mtg);
            let optimum = base.saturating_add(share).saturating_sub(soft);
            let extra =
                mul_div(tl, MAX_TO_OPTIMUM_RATIO, mtg).min(percent(tl, BYOYOMI_MAIN_MAX_PERCENT));
            let maximum = base.saturating_add(extra).saturating_sub(soft);
            (optimum, maximum, clock_ceiling, false)
        } else if inc > 0 {
            let ceiling = percent(tl, INCREMENT_MAX_PERCENT).min(tl.saturating_sub(hard));
            let base = (tl / mtg).saturating_add(inc).saturating_sub(soft);
            (
                percent(base, slow),
                base.saturating_mul(MAX_TO_OPTIMUM_RATIO),
                ceiling,
                false,
            )
        } else {
            // Sudden death: every future move costs at least the delay on the GUI's clock even
            // if we think for nothing, so that much is held back before sharing out the rest.
            let ceiling = percent(tl, SUDDEN_DEATH_MAX_PERCENT).min(tl.saturating_sub(hard));
            let reserve = hard.saturating_add(soft.saturating_mul(mtg));
            let base = tl.saturating_sub(reserve) / mtg;
            (
                percent(base, slow),
                base.saturating_mul(MAX_TO_OPTIMUM_RATIO),
                ceiling,
                false,
            )
        };

        // With no safe time at all we have already lost on a real clock, or the GUI sent
        // nonsense; either way a tiny budget beats stopping before a move exists.
        let floor = if ceiling > 0 {
            TINY_BUDGET_MS.min(ceiling)
        } else {
            TINY_BUDGET_MS
        };
        let cap = ceiling.max(floor);
        let min_think = opts.minimum_thinking_time;
        let mut maximum = maximum.max(min_think).min(cap).max(floor);
        let mut optimum = optimum.max(min_think).min(maximum).max(floor);
        if opts.round_up_to_full_second {
            maximum = round_up_to_second(maximum, cap, hard);
            optimum = round_up_to_second(optimum, maximum, hard);
        }
        if byo > 0 && optimum >= tl {
            no_early_stop = true;
        }

        TimeManager {
            start,
            optimum_ms: optimum,
            maximum_ms: maximum,
            no_early_stop,
            round_up: opts.round_up_to_full_second,
            hard_margin: hard,
        }
    }

    pub fn optimum(&self) -> Duration {
        Duration::from_millis(self.optimum_ms)
    }

    pub fn maximum(&self) -> Duration {
        Duration::from_millis(self.maximum_ms)
    }

    /// When the budgets started counting (the `go` or the `ponderhit`).
    pub fn start(&self) -> Instant {
        self.start
    }

    /// Called at the end of each iteration; returns true when the search should stop now.
    /// `best_move_changes` is a decaying count of recent best-move changes (e.g. halved every
    /// iteration), `score_drop_cp` is how far the score fell against the previous iterations
    /// (negative when it rose).
    pub fn should_stop_after_iteration(
        &self,
        elapsed: Duration,
        best_move_changes: f64,
        score_drop_cp: i32,
        single_legal_move: bool,
    ) -> bool {
        // Nothing to decide: spend no clock (and under round-up it costs the minimum anyway).
        if single_legal_move || elapsed >= self.maximum() {
            return true;
        }
        // NaN and negative counts mean "no information", not "stop"; infinity just hits the cap.
        let changes = if best_move_changes > 0.0 {
            best_move_changes
        } else {
            0.0
        };
        let instability = (1.0 + INSTABILITY_PER_CHANGE * changes).min(MAX_INSTABILITY);
        let falling = (1.0 + f64::from(score_drop_cp) / FALLING_EVAL_CP_PER_DOUBLING)
            .clamp(MIN_FALLING_FACTOR, MAX_FALLING_FACTOR);
        // `as` saturates, and the product is finite, so this cannot wrap.
        let mut target = ((self.optimum_ms as f64) * instability * falling) as u64;
        if self.no_early_stop {
            target = target.max(self.optimum_ms);
        }
        target = target.min(self.maximum_ms);
        if self.round_up {
            target = round_up_to_second(target, self.maximum_ms, self.hard_margin);
        }
        elapsed >= Duration::from_millis(target)
    }

    /// For `ponderhit`: our clock only starts now, and the time spent pondering was the
    /// opponent's.
    pub fn restart(&mut self, now: Instant) {
        self.start = now;
    }

    /// `start + maximum`; the search compares `Instant::now()` against it every millisecond or so.
    pub fn deadline(&self) -> Instant {
        // Absurd clocks can put the deadline past what `Instant` can represent; any deadline
        // centuries away is as good as the exact one.
        let mut budget = self.maximum();
        loop {
            if let Some(deadline) = self.start.checked_add(budget) {
                return deadline;
            }
            budget /= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tm(clock: Clock, opts: &TimeOptions, ply: u32) -> TimeManager {
        TimeManager::new(&clock, opts, ply, Instant::now())
    }

    fn byoyomi(ms: u64) -> Clock {
        Clock {
            byoyomi: ms,
            ..Clock::default()
        }
    }

    fn ms(d: Duration) -> u64 {
        d.as_millis() as u64
    }

    #[test]
    fn defaults_use_at_least_90_percent_of_one_second_byoyomi() {
        let t = tm(byoyomi(1000), &TimeOptions::default(), 80);
        assert!(
            ms(t.maximum()) >= 900 && ms(t.maximum()) < 1000,
            "{:?}",
            t.maximum()
        );
        // Unused byoyomi is lost, so the soft target is the whole usable period.
        assert_eq!(t.optimum(), t.maximum());
    }

    #[test]
    fn pure_byoyomi_never_stops_early_on_a_stable_move() {
        let t = tm(byoyomi(5000), &TimeOptions::default(), 60);
        assert!(!t.should_stop_after_iteration(Duration::from_millis(3000), 0.0, -500, false));
        assert!(t.should_stop_after_iteration(t.maximum(), 0.0, 0, false));
    }

    #[test]
    fn short_byoyomi_stays_inside_the_period() {
        for b in [1, 50, 80, 81, 100, 200] {
            let t = tm(byoyomi(b), &TimeOptions::default(), 0);
            assert!(
                ms(t.maximum()) < b.max(TINY_BUDGET_MS + 1),
                "byoyomi {b}: {:?}",
                t.maximum()
            );
            assert!(!t.maximum().is_zero());
        }
    }

    #[test]
    fn movetime_is_that_minus_the_margin() {
        let opts = TimeOptions::default();
        let t = tm(
            Clock {
                movetime: Some(3000),
                ..Clock::default()
            },
            &opts,
            0,
        );
        assert_eq!(ms(t.maximum()), 3000 - opts.network_delay2);
        assert_eq!(t.optimum(), t.maximum());
        assert!(!t.should_stop_after_iteration(Duration::from_millis(1000), 0.0, -300, false));
    }

    #[test]
    fn single_legal_move_stops_after_the_first_iteration() {
        let t = tm(
            Clock {
                time_left: 600_000,
                byoyomi: 10_000,
                ..Clock::default()
            },
            &TimeOptions::default(),
            40,
        );
        assert!(t.should_stop_after_iteration(Duration::from_millis(1), 0.0, 0, true));
    }

    #[test]
    fn instability_extends_and_stability_stops_at_the_optimum() {
        let t = tm(
            Clock {
                time_left: 300_000,
                increment: 0,
                ..Clock::default()
            },
            &TimeOptions::default(),
            40,
        );
        let opt = t.optimum();
        assert!(t.should_stop_after_iteration(opt, 0.0, 0, false));
        assert!(!t.should_stop_after_iteration(opt, 2.0, 0, false));
        assert!(!t.should_stop_after_iteration(opt, 0.0, 150, false));
        assert!(t.should_stop_after_iteration(t.maximum(), 3.0, 500, false));
        assert!(t.should_stop_after_iteration(opt, f64::NAN, 0, false));
        assert!(!t.should_stop_after_iteration(opt, f64::INFINITY, i32::MAX, false));
    }

    #[test]
    fn measured_lateness_lowers_the_margins_and_a_burst_raises_them_again() {
        let opts = TimeOptions::default();
        let mut reaction = ReactionTime::default();
        let ms = Duration::from_millis;
        let byo100 = byoyomi(100);
        // Before any measurement the least margins stand: 50 ms at byoyomi 100, where the
        // options' 100 would leave no time at all.
        let fresh = reaction.apply(&opts, Some(&byo100));
        assert_eq!((fresh.network_delay2, fresh.network_delay), (50, 25));
        assert_eq!(tm(byo100, &fresh, 1).maximum(), ms(50));
        assert_eq!(tm(byo100, &opts, 1).maximum(), ms(TINY_BUDGET_MS));
        reaction.record(ms(1));
        reaction.record(ms(2));
        let calm = reaction.apply(&opts, Some(&byo100));
        assert_eq!((calm.network_delay2, calm.network_delay), (50, 25));
        // From a one-second period on, a tenth of it is at least the options' 100: they stand.
        assert_eq!(reaction.apply(&opts, Some(&byoyomi(1000))), opts);
        assert_eq!(reaction.apply(&opts, Some(&byoyomi(3000))), opts);
        // A late answer raises the margin at once, up to the options' own value.
        reaction.record(ms(10));
        assert_eq!(reaction.apply(&opts, Some(&byo100)).network_delay2, 55);
        reaction.record(ms(30));
        assert_eq!(reaction.apply(&opts, Some(&byo100)).network_delay2, 100);
        // Never above what the user set, and off when asked.
        let set = TimeOptions {
            network_delay2: 10,
            ..TimeOptions::default()
        };
        assert_eq!(reaction.apply(&set, None).network_delay2, 10);
        let off = TimeOptions {
            auto_network_delay: false,
            ..TimeOptions::default()
        };
        assert_eq!(reaction.apply(&off, None), off);
    }

    #[test]
    fn round_up_extends_to_just_under_a_whole_second() {
        let opts = TimeOptions {
            round_up_to_full_second: true,
            ..TimeOptions::default()
        };
        let t = tm(
            Clock {
                time_left: 600_000,
                byoyomi: 10_000,
                ..Clock::default()
            },
            &opts,
            20,
        );
        for d in [t.optimum(), t.maximum()] {
            let end = ms(d) + opts.network_delay2;
            assert_eq!(end % 1000, 0, "{d:?} does not end just before a second");
        }
        let plain = tm(
            Clock {
                time_left: 600_000,
                byoyomi: 10_000,
                ..Clock::default()
            },
            &TimeOptions::default(),
            20,
        );
        assert!(
            t.maximum() >= plain.maximum()
                && t.maximum() < plain.maximum() + Duration::from_secs(1)
        );
    }

    #[test]
    fn round_up_never_passes_the_ceiling() {
        let opts = TimeOptions {
            round_up_to_full_second: true,
            ..TimeOptions::default()
        };
        let t = tm(byoyomi(1000), &opts, 0);
        assert_eq!(ms(t.maximum()), 1000 - opts.network_delay2);
        assert_eq!(round_up_to_second(300, 10_000, 80), 1920);
        assert_eq!(round_up_to_second(1919, 10_000, 80), 1920);
        assert_eq!(round_up_to_second(1921, 10_000, 80), 2920);
        assert_eq!(round_up_to_second(1921, 2500, 80), 1921);
        assert_eq!(round_up_to_second(u64::MAX, u64::MAX, 80), u64::MAX);
    }

    #[test]
    fn moves_to_go_follows_ply_and_draw_limit() {
        assert_eq!(estimate_moves_to_go(0, 0), 90);
        assert_eq!(estimate_moves_to_go(170, 0), MIN_MOVES_TO_GO);
        assert_eq!(estimate_moves_to_go(u32::MAX, 0), MIN_MOVES_TO_GO);
        assert_eq!(estimate_moves_to_go(0, 320), 90);
        assert_eq!(estimate_moves_to_go(240, 256), 8);
        assert_eq!(estimate_moves_to_go(300, 256), 1);
    }

    #[test]
    fn ponderhit_restarts_the_deadline() {
        let start = Instant::now();
        let mut t = TimeManager::new(&byoyomi(1000), &TimeOptions::default(), 0, start);
        let later = start + Duration::from_secs(7);
        t.restart(later);
        assert_eq!(t.start(), later);
        assert_eq!(t.deadline(), later + t.maximum());
    }

    #[test]
    fn absurd_clock_gives_a_representable_deadline() {
        let clock = Clock {
            time_left: u64::MAX,
            byoyomi: u64::MAX,
            increment: u64::MAX,
            movetime: None,
        };
        let t = tm(clock, &TimeOptions::default(), 0);
        assert!(t.deadline() > t.start());
    }

    #[test]
    fn clock_picks_our_side() {
        let c = Clock::for_side_to_move(false, Some(1), Some(2), Some(3), Some(4), Some(5), None);
        assert_eq!(
            c,
            Clock {
                time_left: 2,
                byoyomi: 3,
                increment: 5,
                movetime: None
            }
        );
        let c = Clock::for_side_to_move(true, None, None, Some(1000), None, None, None);
        assert_eq!(c, byoyomi(1000));
    }

    proptest! {
        #[test]
        fn optimum_never_exceeds_maximum(
            tl in any::<u64>(), byo in any::<u64>(), inc in any::<u64>(),
            mt in proptest::option::of(any::<u64>()), ply in any::<u32>(),
            nd in any::<u64>(), nd2 in any::<u64>(), min in any::<u64>(), slow in any::<u32>(),
            round in any::<bool>(), draw in any::<u32>(),
        ) {
            let opts = TimeOptions {
                network_delay: nd, network_delay2: nd2, minimum_thinking_time: min,
                slow_mover: slow, round_up_to_full_second: round, max_moves_to_draw: draw,
                auto_network_delay: false,
            };
            let t = tm(Clock { time_left: tl, byoyomi: byo, increment: inc, movetime: mt }, &opts, ply);
            prop_assert!(t.optimum() <= t.maximum());
            prop_assert!(!t.optimum().is_zero());
            let _ = t.deadline();
        }
    }
}
