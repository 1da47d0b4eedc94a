//! What the main search thread does besides searching: it keeps the clock and the node limit,
//! takes `ponderhit`, and counts how often the best move changes, which the time manager reads.
//! Helper threads have none of this; they only watch the shared deadline.

use super::time::TimeManager;
use super::{SearchControl, SearchOptions};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Default)]
pub struct MainDuties {
    /// `None` without a clock (`go infinite`, depth or node limits, analysis).
    pub time: Option<TimeManager>,
    /// Nodes of all threads together; 0 = none.
    pub node_limit: u64,
    /// Best-move changes at the root, halved every iteration.
    pub best_move_changes: f64,
}

impl MainDuties {
    /// Takes a pending `ponderhit`, then stops the search on the clock or the node limit.
    pub fn check_limits(
        &mut self,
        control: &SearchControl,
        opts: &SearchOptions,
        game_ply: u32,
        node_counters: &[AtomicU64],
    ) {
        if control.stopped() {
            return;
        }
        if let Ok(mut hit) = control.ponderhit.lock()
            && let Some(new_clock) = hit.take()
        {
            let now = Instant::now();
            match (new_clock, self.time.as_mut()) {
                (Some(clock), _) => {
                    self.time = Some(TimeManager::new(&clock, &opts.time, game_ply, now));
                }
                (None, Some(tm)) => tm.restart(now),
                (None, None) => {}
            }
        }
        if control.pondering.load(Ordering::Relaxed) {
            return;
        }
        control.set_deadline(self.time.as_ref().map(TimeManager::deadline));
        if let Some(tm) = &self.time
            && Instant::now() >= tm.deadline()
        {
            control.halt();
        }
        if self.node_limit > 0 {
            let total: u64 = node_counters
                .iter()
                .map(|n| n.load(Ordering::Relaxed))
                .sum();
            if total >= self.node_limit {
                control.halt();
            }
        }
    }
}
