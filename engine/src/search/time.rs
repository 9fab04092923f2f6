//! Time management (`tm_*`): a per-move budget from the clock, a soft limit after
//! which no new iteration starts (scaled after each iteration by how settled the
//! best move is: its stability across iterations, its share of the search's nodes,
//! a fail low) and a hard limit checked inside the search. On the clock the hard limit never
//! eats into the move overhead, so the engine does not lose on time; a fixed
//! `movetime` gives the overhead at most a small share of itself.

use std::time::Instant;

use super::Limits;
use crate::params::Params;

/// The most of a `go movetime` the move overhead may take, in percent (a protocol
/// safety margin, not a strength setting: more time never plays worse).
const MOVETIME_MAX_OVERHEAD_PCT: u64 = 5;

/// `pct` percent of `ms`, exact for any clock a GUI may send (no overflow).
fn percent_of(ms: u64, pct: u64) -> u64 {
    (u128::from(ms) * u128::from(pct) / 100).min(u128::from(u64::MAX)) as u64
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    pub start: Instant,
    /// No new iteration once this many ms have passed (None: no time limit).
    pub soft_ms: Option<u64>,
    /// Abort the search once this many ms have passed.
    pub hard_ms: Option<u64>,
    base_soft_ms: u64,
    /// The soft limit is the engine's own to scale (a clock, no fixed `movetime`).
    scalable: bool,
    /// tm_instability_: best-move changes remembered across iterations, in
    /// hundredths of a change (each iteration keeps `tm_instability_decay_pct` of it).
    instability: u64,
}

/// What an iteration says about how settled the root is (input to `adjust`).
#[derive(Clone, Copy, Debug, Default)]
pub struct IterationVerdict {
    /// The best move differs from the previous iteration's.
    pub best_move_changed: bool,
    /// Earlier iterations in a row whose best move was this one (0 when it changed).
    pub stable_iterations: u32,
    /// The score fell by more than the aspiration window, or the root failed low.
    pub score_dropped: bool,
    /// Share of this search's nodes spent under the best move, in percent.
    pub best_move_node_pct: u64,
}

impl TimeManager {
    pub fn new(limits: &Limits, p: &Params) -> Self {
        let overhead = limits.move_overhead_ms;
        let mut soft = None;
        let mut hard = None;
        if let Some(c) = limits.clock {
            // Never plan beyond what the clock holds once the overhead is set aside.
            let left = c.time_ms.saturating_sub(overhead).max(1);
            let mtg = c
                .movestogo
                .map(|m| m.clamp(1, 60) as u64)
                .unwrap_or(p.tm_moves_to_go() as u64);
            let cap = percent_of(left, p.tm_max_pct() as u64).max(1);
            let budget = (left / mtg)
                .saturating_add(percent_of(c.inc_ms, p.tm_inc_pct() as u64))
                .min(cap);
            soft = Some(percent_of(budget, p.tm_soft_pct() as u64).max(1));
            hard = Some(percent_of(budget, p.tm_hard_pct() as u64).clamp(1, cap));
        }
        if let Some(mt) = limits.movetime_ms {
            // A fixed time per move is thought about in full: the overhead is a reserve
            // for clock play, and here it may take only a small share of the time.
            let reserve = overhead.min(percent_of(mt, MOVETIME_MAX_OVERHEAD_PCT));
            let mt = (mt - reserve).max(1);
            soft = Some(soft.map_or(mt, |s: u64| s.min(mt)));
            hard = Some(hard.map_or(mt, |h: u64| h.min(mt)));
        }
        TimeManager {
            start: Instant::now(),
            soft_ms: soft,
            hard_ms: hard,
            base_soft_ms: soft.unwrap_or(0),
            scalable: limits.clock.is_some() && limits.movetime_ms.is_none(),
            instability: 0,
        }
    }

    #[inline]
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Scales the soft limit after an iteration, never past the hard limit:
    /// - `tm_instability_pct` more for each best-move change, remembered with
    ///   `tm_instability_decay_pct` kept per iteration (0: only the last iteration's
    ///   change counts; Ethereal's extension fades over nine), and
    ///   `tm_stable_pct` less for each iteration it has stayed (at most
    ///   `tm_stable_max` of them): a settled move needs no confirming;
    /// - `tm_fail_low_pct` more when the score dropped;
    /// - by (`tm_node_base` - the best move's share of the nodes, in percent) *
    ///   `tm_node_mult` / 100 (Stockfish's and Alexandria's node-share rule): a move
    ///   that took nearly all of the effort is clear, one that took little is not
    ///   (`tm_node_mult` 0: off).
    pub fn adjust(&mut self, p: &Params, v: &IterationVerdict) {
        let (Some(_), Some(hard)) = (self.soft_ms, self.hard_ms) else {
            return;
        };
        if !self.scalable {
            return;
        }
        let mut pct: u64 = 100;
        self.instability = self.instability * p.tm_instability_decay_pct() as u64 / 100
            + if v.best_move_changed { 100 } else { 0 };
        pct += p.tm_instability_pct() as u64 * self.instability / 100;
        if !v.best_move_changed {
            let stable = u64::from(v.stable_iterations.min(p.tm_stable_max() as u32));
            pct = pct.saturating_sub(stable * p.tm_stable_pct() as u64);
        }
        if v.score_dropped {
            pct += p.tm_fail_low_pct() as u64;
        }
        let node_pct = if p.tm_node_mult() == 0 {
            100 // off
        } else {
            let share = v.best_move_node_pct.min(100);
            ((p.tm_node_base() as u64).saturating_sub(share) * p.tm_node_mult() as u64 / 100).max(1)
        };
        let soft = percent_of(percent_of(self.base_soft_ms, pct), node_pct);
        self.soft_ms = Some(soft.clamp(1, hard));
    }

    /// Past the soft limit: do not start another iteration.
    pub fn soft_expired(&self) -> bool {
        self.soft_ms.is_some_and(|s| self.elapsed_ms() >= s)
    }

    /// Past the hard limit: stop now.
    pub fn hard_expired(&self) -> bool {
        self.hard_ms.is_some_and(|h| self.elapsed_ms() >= h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    #[test]
    fn hard_limit_leaves_the_overhead_and_soft_is_below_hard() {
        let p = Params::default();
        for (time, inc, mtg) in [
            (100, 0, None),
            (60_000, 1000, None),
            (5_000, 0, Some(1)),
            (30, 10, None),
        ] {
            let limits = Limits {
                clock: Some(Clock {
                    time_ms: time,
                    inc_ms: inc,
                    movestogo: mtg,
                }),
                move_overhead_ms: 20,
                ..Limits::default()
            };
            let tm = TimeManager::new(&limits, &p);
            let hard = tm.hard_ms.unwrap();
            let soft = tm.soft_ms.unwrap();
            assert!(hard + 20 <= time.max(21), "{time}: hard {hard}");
            assert!(soft <= hard.max(soft), "{time}");
            assert!(hard * 100 <= time.max(1) * p.tm_max_pct() as u64 + 100);
        }
        let limits = Limits {
            movetime_ms: Some(500),
            move_overhead_ms: 50,
            ..Limits::default()
        };
        let tm = TimeManager::new(&limits, &p);
        assert_eq!(
            tm.hard_ms,
            Some(475),
            "5% of 500 ms, not the 50 ms overhead"
        );
    }

    #[test]
    fn huge_clocks_and_movetimes_do_not_overflow() {
        let p = Params::default();
        let huge = i64::MAX as u64;
        for (clock, movetime) in [
            (Some((huge, huge, None)), None),
            (Some((100, huge, Some(1))), None),
            (Some((huge, 0, Some(1))), Some(huge)),
            (None, Some(huge)),
        ] {
            let limits = Limits {
                clock: clock.map(|(time_ms, inc_ms, movestogo)| Clock {
                    time_ms,
                    inc_ms,
                    movestogo,
                }),
                movetime_ms: movetime,
                move_overhead_ms: 10,
                ..Limits::default()
            };
            let mut tm = TimeManager::new(&limits, &p);
            tm.adjust(
                &p,
                &IterationVerdict {
                    best_move_changed: true,
                    score_dropped: true,
                    ..Default::default()
                },
            );
            assert!(tm.soft_ms.unwrap() <= tm.hard_ms.unwrap(), "{limits:?}");
        }
    }

    #[test]
    fn movetime_is_thought_about_nearly_in_full() {
        let p = Params::default();
        for (movetime, overhead, expected) in
            [(10, 10, 10), (100, 10, 95), (1000, 10, 990), (0, 10, 1)]
        {
            let limits = Limits {
                movetime_ms: Some(movetime),
                move_overhead_ms: overhead,
                ..Limits::default()
            };
            let tm = TimeManager::new(&limits, &p);
            assert_eq!(tm.hard_ms, Some(expected), "movetime {movetime}");
            assert_eq!(tm.soft_ms, Some(expected), "movetime {movetime}");
        }
    }

    /// A clock of a minute and 0.6 s a move, no moves to go.
    fn minute_clock() -> Limits {
        Limits {
            clock: Some(Clock {
                time_ms: 60_000,
                inc_ms: 600,
                movestogo: None,
            }),
            ..Limits::default()
        }
    }

    /// A settled best move (kept for several iterations, nearly all the nodes)
    /// shortens the soft limit, a contested one lengthens it, never past the hard
    /// limit; a fixed movetime is never scaled.
    #[test]
    fn soft_limit_follows_how_settled_the_best_move_is() {
        // The scalings as params/variants/tm_scaling_on.json sets them (off by default).
        let mut p = Params::default();
        p.set_by_name("tm_stable_pct", "8").unwrap();
        p.set_by_name("tm_node_mult", "135").unwrap();
        let clock = minute_clock();
        let soft_after = |limits: &Limits, v: IterationVerdict| {
            let mut tm = TimeManager::new(limits, &p);
            tm.adjust(&p, &v);
            (tm.soft_ms.unwrap(), tm.hard_ms.unwrap())
        };
        let base = TimeManager::new(&clock, &p).soft_ms.unwrap();
        let settled = IterationVerdict {
            stable_iterations: 6,
            best_move_node_pct: 95,
            ..Default::default()
        };
        let contested = IterationVerdict {
            best_move_changed: true,
            score_dropped: true,
            best_move_node_pct: 20,
            ..Default::default()
        };
        let (s_settled, _) = soft_after(&clock, settled);
        let (s_contested, hard) = soft_after(&clock, contested);
        assert!(
            s_settled < base && base < s_contested,
            "{s_settled} {base} {s_contested}"
        );
        assert!(s_contested <= hard);
        // Stability counts only up to tm_stable_max iterations.
        let capped = IterationVerdict {
            stable_iterations: p.tm_stable_max() as u32,
            ..settled
        };
        assert_eq!(soft_after(&clock, capped).0, s_settled);
        // Both scalings off (tm_stable_pct 0, tm_node_mult 0): the rule before them.
        let mut off = Params::default();
        off.set_by_name("tm_stable_pct", "0").unwrap();
        off.set_by_name("tm_node_mult", "0").unwrap();
        let mut tm = TimeManager::new(&clock, &off);
        tm.adjust(&off, &settled);
        assert_eq!(tm.soft_ms, Some(base));
        let movetime = Limits {
            movetime_ms: Some(1000),
            ..Limits::default()
        };
        let fixed = TimeManager::new(&movetime, &p).soft_ms.unwrap();
        assert_eq!(soft_after(&movetime, settled).0, fixed);
    }

    /// tm_instability_decay_pct: at 0 a change extends only the next iteration's
    /// limit; above 0 the extension fades over the following iterations, and changes
    /// in a row add up.
    #[test]
    fn best_move_changes_fade_by_the_decay() {
        let clock = minute_clock();
        let changed = IterationVerdict {
            best_move_changed: true,
            ..Default::default()
        };
        let kept = IterationVerdict::default();
        let limits_after = |decay: &str, verdicts: &[IterationVerdict]| {
            let mut p = Params::default();
            p.set_by_name("tm_instability_decay_pct", decay).unwrap();
            let mut tm = TimeManager::new(&clock, &p);
            verdicts
                .iter()
                .map(|v| {
                    tm.adjust(&p, v);
                    tm.soft_ms.unwrap()
                })
                .collect::<Vec<_>>()
        };
        let base = TimeManager::new(&clock, &Params::default())
            .soft_ms
            .unwrap();
        let off = limits_after("0", &[changed, kept, kept]);
        assert!(off[0] > base && off[1] == base && off[2] == base, "{off:?}");
        let fading = limits_after("50", &[changed, kept, kept]);
        assert_eq!(fading[0], off[0]);
        assert!(fading[0] > fading[1] && fading[1] > fading[2] && fading[2] > base);
        let in_a_row = limits_after("50", &[changed, changed]);
        assert!(in_a_row[1] > in_a_row[0], "{in_a_row:?}");
    }
}
