//! How the two sides of a match on a clock spent it: time a game and a move, and
//! what each had left when its games ended. A side that ends its games with much
//! of its clock unused gave thinking time away; one that ends them near zero spent
//! it all (time management's two failures, which the score alone does not show).

use shakmaty::Color;

use crate::play::game::{ClockUse, GameRecord};

/// The clock use of a pair's two games, each as [A's, B's]: A has White in the first.
pub type PairClock = [[ClockUse; 2]; 2];

/// A pair's clock use; `None` unless both games were played on a clock.
pub fn pair_clock(games: &[GameRecord; 2]) -> Option<PairClock> {
    let [first, second] = games;
    Some([
        [
            first.clock_use(Color::White)?,
            first.clock_use(Color::Black)?,
        ],
        [
            second.clock_use(Color::Black)?,
            second.clock_use(Color::White)?,
        ],
    ])
}

/// One side's clock use summed over games.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockSum {
    pub games: u64,
    pub moves: u64,
    pub used_ms: u64,
    pub left_ms: i64,
}

impl ClockSum {
    /// Counts a game in which the side moved at all (one that faulted before its first
    /// move says nothing about its pacing); a clock overrun counts as nothing left.
    fn add(&mut self, game: ClockUse) {
        if game.moves == 0 {
            return;
        }
        self.games += 1;
        self.moves += game.moves;
        self.used_ms += game.used_ms;
        self.left_ms += game.left_ms.max(0);
    }

    /// `name 9.81 s a game (57.3 moves of 171 ms), 3.42 s left at the end: 74% of base and
    /// increments used`, as the report words it: its clock is what it used plus what it
    /// had left, the base plus every increment it received (more for a longer game).
    fn describe(&self, name: &str) -> String {
        let games = self.games.max(1) as f64;
        let granted = (self.used_ms as f64 + self.left_ms as f64).max(1.0);
        format!(
            "{name} {:.2} s a game ({:.1} moves of {:.0} ms), {:.2} s left at the end: {:.0}% of base + increments used",
            self.used_ms as f64 / 1000.0 / games,
            self.moves as f64 / games,
            self.used_ms as f64 / self.moves.max(1) as f64,
            self.left_ms as f64 / 1000.0 / games,
            100.0 * self.used_ms as f64 / granted,
        )
    }
}

/// Both sides' clock use over a match: A's, then B's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockTally {
    pub sides: [ClockSum; 2],
}

impl ClockTally {
    pub fn add_pair(&mut self, pair: &PairClock) {
        for game in pair {
            self.sides[0].add(game[0]);
            self.sides[1].add(game[1]);
        }
    }

    /// The report's line; `None` before any game on a clock was counted. `games` is
    /// every game of the match: results files written before the clock was recorded, or
    /// games a side faulted before moving, leave some of them out, and the line says so.
    pub fn report(&self, a: &str, b: &str, games: u64) -> Option<String> {
        let counted = self.sides[0].games.max(self.sides[1].games);
        (counted > 0).then(|| {
            let over = if counted < games {
                format!("{counted} of the {games} games")
            } else {
                format!("{counted} games")
            };
            format!(
                "Clock use over {over} (mean per game; games adjudicated early end with time unspent): {}; {}\n",
                self.sides[0].describe(a),
                self.sides[1].describe(b)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(moves: u64, used_ms: u64, left_ms: i64) -> ClockUse {
        ClockUse {
            moves,
            used_ms,
            left_ms,
        }
    }

    #[test]
    fn a_pair_sums_each_sides_games_and_reports_its_share() {
        let mut tally = ClockTally::default();
        assert_eq!(tally.report("a", "b", 0), None);
        tally.add_pair(&[
            [used(40, 8_000, 6_000), used(40, 12_000, 2_000)],
            [used(60, 10_000, 6_000), used(60, 15_000, 1_000)],
        ]);
        assert_eq!(tally.sides[0].games, 2);
        assert_eq!(tally.sides[0].used_ms, 18_000);
        assert_eq!(tally.sides[1].left_ms, 3_000);
        let line = tally.report("new", "base", 2).unwrap();
        assert_eq!(
            line,
            "Clock use over 2 games (mean per game; games adjudicated early end with time unspent): \
             new 9.00 s a game (50.0 moves of 180 ms), 6.00 s left at the end: 60% of base + increments used; \
             base 13.50 s a game (50.0 moves of 270 ms), 1.50 s left at the end: 90% of base + increments used\n"
        );
        // Games without figures (an older results file) are named as left out.
        assert!(
            tally
                .report("new", "base", 6)
                .unwrap()
                .starts_with("Clock use over 2 of the 6 games")
        );
    }

    #[test]
    fn a_side_that_never_moved_or_overran_its_clock_does_not_distort_the_sums() {
        let mut tally = ClockTally::default();
        tally.add_pair(&[
            [used(0, 0, 10_000), used(30, 9_000, 4_000)],
            [used(30, 10_400, -400), used(30, 6_000, 7_000)],
        ]);
        assert_eq!(
            tally.sides[0].games, 1,
            "the game without a move is left out"
        );
        assert_eq!(
            tally.sides[0].left_ms, 0,
            "an overrun is nothing left, not less"
        );
        assert_eq!(tally.sides[1].games, 2);
    }
}
