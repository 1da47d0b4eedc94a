//! Time management by the tournament rules.

use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct TimeOptions {
    pub network_delay: u64,
    pub network_delay2: u64,
    pub minimum_thinking_time: u64,
    pub slow_mover: u32,
    pub round_up_to_full_second: bool,
    pub max_moves_to_draw: u32,
}

impl Default for TimeOptions {
    fn default() -> Self {
        TimeOptions {
            network_delay: 60,
            network_delay2: 60,
            minimum_thinking_time: 20,
            slow_mover: 100,
            round_up_to_full_second: false,
            max_moves_to_draw: 0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Clock {
    pub time_left: u64,
    pub byoyomi: u64,
    pub increment: u64,
    pub movetime: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    optimum: Duration,
    maximum: Duration,
}

impl TimeManager {
    pub fn new(clock: &Clock, opts: &TimeOptions, _game_ply: u32, start: Instant) -> TimeManager {
        let margin = opts.network_delay;
        let max = if let Some(mt) = clock.movetime {
            mt.saturating_sub(margin)
        } else {
            let share = clock.time_left / 30 + clock.increment;
            (share + clock.byoyomi)
                .min((clock.time_left + clock.byoyomi + clock.increment).saturating_sub(margin))
        }
        .max(5);
        TimeManager {
            start,
            optimum: Duration::from_millis(max * 6 / 10),
            maximum: Duration::from_millis(max),
        }
    }
    pub fn optimum(&self) -> Duration {
        self.optimum
    }
    pub fn maximum(&self) -> Duration {
        self.maximum
    }
    pub fn should_stop_after_iteration(
        &self,
        elapsed: Duration,
        best_move_changes: f64,
        _score_drop_cp: i32,
        single: bool,
    ) -> bool {
        single
            || elapsed.as_secs_f64()
                > self.optimum.as_secs_f64() * (1.0 + best_move_changes).min(2.0) * 0.6
    }
    pub fn restart(&mut self, now: Instant) {
        self.start = now;
    }
    pub fn deadline(&self) -> Instant {
        self.start + self.maximum
    }
}
