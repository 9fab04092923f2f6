//! Openings for game pairs. Built in: generated deterministically from a seed by
//! random legal plies from the start position, kept only when a shallow search
//! finds them near balanced, so the tuner needs no file.

use occam::Params;
use occam::position::{Game, Position};
use occam::search::{Control, Limits, Score, Searcher};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How built-in openings are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratorConfig {
    /// Random plies played from the start position.
    pub plies: u32,
    /// Keep only openings whose shallow-search score is within ±this many centipawns.
    pub max_abs_score: i32,
    /// Node budget of the balance check.
    pub check_nodes: u64,
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            plies: 8,
            max_abs_score: 120,
            check_nodes: 3_000,
        }
    }
}

/// `count` distinct near-balanced openings, the same for the same seed.
pub fn generate(count: usize, seed: u64, config: GeneratorConfig) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut searcher = Searcher::new(Params::default(), 4);
    let mut seen = std::collections::HashSet::new();
    let mut openings = Vec::with_capacity(count);
    let mut attempts = 0usize;
    while openings.len() < count && attempts < count * 200 + 1000 {
        attempts += 1;
        let mut game = Game::new(Position::startpos());
        let mut ok = true;
        for _ in 0..config.plies {
            let moves = game.position.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            game.play(m);
        }
        if !ok
            || game.end().is_some()
            || game.position.is_check()
            || !seen.insert(game.position.hash())
        {
            continue;
        }
        let limits = Limits {
            nodes: Some(config.check_nodes),
            ..Limits::default()
        };
        searcher.clear();
        let result = searcher.search(&game, &limits, &Control::default(), &mut |_| {});
        if matches!(result.score, Score::Cp(cp) if cp.abs() <= config.max_abs_score) {
            openings.push(game);
        }
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_distinct() {
        let config = GeneratorConfig {
            check_nodes: 300,
            ..GeneratorConfig::default()
        };
        let a = generate(6, 7, config);
        let b = generate(6, 7, config);
        assert_eq!(a.len(), 6);
        let hashes = |v: &[Game]| v.iter().map(|g| g.position.hash()).collect::<Vec<_>>();
        assert_eq!(hashes(&a), hashes(&b));
        let mut unique = hashes(&a);
        unique.dedup();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 6);
        assert!(a.iter().all(|g| g.moves.len() == 8));
        assert_ne!(hashes(&a), hashes(&generate(6, 8, config)));
    }
}
