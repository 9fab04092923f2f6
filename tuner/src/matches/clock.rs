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
    fn add(&mut self, game: ClockUse) {
        self.games += 1;
        self.moves += game.moves;
        self.used_ms += game.used_ms;
        self.left_ms += game.left_ms;
    }

    /// `name 9.81 s a game (57.3 moves of 171 ms), 3.42 s left at the end: 74% of its clock used`,
    /// where its clock is what it used plus what it had left.
    fn describe(&self, name: &str) -> String {
        let games = self.games.max(1) as f64;
        let left = self.left_ms.max(0) as f64;
        let granted = (self.used_ms as f64 + left).max(1.0);
        format!(
            "{name} {:.2} s a game ({:.1} moves of {:.0} ms), {:.2} s left at the end: {:.0}% of its clock used",
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

    /// The report's line; `None` before any game on a clock was counted.
    pub fn report(&self, a: &str, b: &str) -> Option<String> {
        (self.sides[0].games > 0).then(|| {
            format!(
                "Clock use over {} games: {}; {}\n",
                self.sides[0].games,
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
        assert_eq!(tally.report("a", "b"), None);
        tally.add_pair(&[
            [used(40, 8_000, 6_000), used(40, 12_000, 2_000)],
            [used(60, 10_000, 6_000), used(60, 15_000, 1_000)],
        ]);
        assert_eq!(tally.sides[0].games, 2);
        assert_eq!(tally.sides[0].used_ms, 18_000);
        assert_eq!(tally.sides[1].left_ms, 3_000);
        let line = tally.report("new", "base").unwrap();
        assert_eq!(
            line,
            "Clock use over 2 games: new 9.00 s a game (50.0 moves of 180 ms), 6.00 s left at the end: 60% of its clock used; \
             base 13.50 s a game (50.0 moves of 270 ms), 1.50 s left at the end: 90% of its clock used\n"
        );
    }
}
