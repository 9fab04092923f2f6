//! Self-play sanity: 20 short games occam vs occam over UCI with a real clock, two at a
//! time. Every bestmove must be legal (checked by shakmaty) and no side may lose on time.

use std::time::Duration;

use occam_tests::Engine;
use occam_tests::selfplay::{GameResult, TimeControl, play_game};

/// Ten openings, each played once with either colour.
const OPENINGS: [&[&str]; 10] = [
    &["e2e4", "e7e5"],
    &["d2d4", "d7d5"],
    &["e2e4", "c7c5"],
    &["d2d4", "g8f6", "c2c4", "e7e6"],
    &["c2c4", "e7e5"],
    &["g1f3", "d7d5"],
    &["e2e4", "e7e6", "d2d4", "d7d5"],
    &["e2e4", "c7c6"],
    &["d2d4", "f7f5"],
    &["b2b3", "e7e5"],
];

/// 1 s + 10 ms per side.
const TC: TimeControl = TimeControl {
    base_ms: 1_000,
    inc_ms: 10,
};
/// Lag tolerated beyond the clock: pipe and scheduling delays on a shared 2-core machine.
const GRACE_MS: u64 = 250;
/// Longer games are adjudicated drawn; enough moves to reach endgames and low clocks.
const MAX_PLIES: usize = 160;

fn ready() -> Engine {
    let mut e = Engine::occam();
    e.ask("uci", "uciok", Duration::from_secs(30));
    e.send("setoption name Hash value 4");
    e.send("setoption name Move Overhead value 20");
    assert!(e.sync().is_empty());
    e
}

#[test]
fn twenty_games_without_illegal_moves_or_time_losses() {
    let games: Vec<(usize, bool)> = (0..OPENINGS.len())
        .flat_map(|i| [(i, false), (i, true)])
        .collect();
    let results: Vec<Result<GameResult, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = games
            .chunks(games.len() / 2)
            .map(|share| {
                scope.spawn(move || {
                    let (mut a, mut b) = (ready(), ready());
                    share
                        .iter()
                        .map(|&(opening, swap)| {
                            let (white, black) = if swap {
                                (&mut b, &mut a)
                            } else {
                                (&mut a, &mut b)
                            };
                            play_game(white, black, OPENINGS[opening], TC, GRACE_MS, MAX_PLIES)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), 20);
    let faults: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(faults.is_empty(), "{faults:#?}");
    for r in results.iter().flatten() {
        eprintln!("{} {} after {} plies", r.result, r.reason, r.moves.len());
        assert!(r.moves.len() > 4);
    }
}
