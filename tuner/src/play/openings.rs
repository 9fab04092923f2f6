//! Openings for game pairs. Built in: generated deterministically from a seed by
//! random legal plies from the start position, kept only when a shallow search
//! finds them near balanced, so the tuner needs no file.

use std::path::Path;

use anyhow::{Context, Result, bail};
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
        if let Some(game) = random_opening(&mut rng, &mut searcher, config)
            && seen.insert(game.position.hash())
        {
            openings.push(game);
        }
    }
    openings
}

/// One attempt at a near-balanced opening: `config.plies` random legal plies, kept
/// when the game is not over, not in check, and a shallow search scores it within
/// `config.max_abs_score`.
pub fn random_opening(
    rng: &mut StdRng,
    searcher: &mut Searcher,
    config: GeneratorConfig,
) -> Option<Game> {
    let mut game = Game::new(Position::startpos());
    for _ in 0..config.plies {
        let moves = game.position.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let m = moves[rng.random_range(0..moves.len())];
        game.play(m);
    }
    if game.end().is_some() || game.position.is_check() {
        return None;
    }
    let limits = Limits {
        nodes: Some(config.check_nodes),
        ..Limits::default()
    };
    searcher.clear();
    let result = searcher.search(&game, &limits, &Control::default(), &mut |_| {});
    matches!(result.score, Score::Cp(cp) if cp.abs() <= config.max_abs_score).then_some(game)
}

/// Reads an opening book: EPD (one position per line: the four FEN fields, then
/// optional operations or move counters) or PGN (each game's moves from its start), by
/// the file's extension (`.epd`, `.pgn`; anything else is tried as EPD).
pub fn load_book(path: &Path, chess960: bool) -> Result<Vec<Game>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read opening book {}", path.display()))?;
    let is_pgn = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let games = if is_pgn {
        crate::play::pgn::parse_games(&text, chess960)
            .with_context(|| format!("opening book {}", path.display()))?
    } else {
        parse_epd(&text, chess960).with_context(|| format!("opening book {}", path.display()))?
    };
    if games.is_empty() {
        bail!(
            "opening book {} holds no positions (expected EPD lines or PGN games)",
            path.display()
        );
    }
    let playable = games
        .into_iter()
        .filter(|g| g.end().is_none())
        .collect::<Vec<_>>();
    if playable.is_empty() {
        bail!(
            "every position in opening book {} is already decided",
            path.display()
        );
    }
    Ok(playable)
}

/// EPD lines: the first four FEN fields; counters are taken when the next two fields are
/// numbers, EPD operations (`bm`, `id`, `c0`...) are ignored. Blank and `#` lines skipped.
fn parse_epd(text: &str, chess960: bool) -> Result<Vec<Game>> {
    let mut games = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            bail!(
                "line {}: '{line}' is not an EPD position (expected board, side, castling, en passant)",
                number + 1
            );
        }
        let counters = match (fields.get(4), fields.get(5)) {
            (Some(a), Some(b)) if a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok() => {
                format!("{a} {b}")
            }
            _ => "0 1".to_string(),
        };
        let fen = format!("{} {counters}", fields[..4].join(" "));
        let position =
            Position::from_fen(&fen, chess960).with_context(|| format!("line {}", number + 1))?;
        games.push(Game::new(position));
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_and_pgn_books_load_and_bad_lines_are_named() {
        let dir = crate::test_util::scratch_dir("book");
        let epd = dir.join("book.epd");
        std::fs::write(
            &epd,
            "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";\n\n4k3/8/8/8/8/8/4P3/4K3 w - - 3 40\n",
        )
        .unwrap();
        let games = load_book(&epd, false).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].position.halfmoves(), 3);
        let pgn = dir.join("book.pgn");
        std::fs::write(&pgn, "1. e4 e5 2. Nf3 *\n").unwrap();
        assert_eq!(load_book(&pgn, false).unwrap()[0].moves.len(), 3);
        std::fs::write(&epd, "8/8/8 w - -\n").unwrap();
        let err = format!("{:#}", load_book(&epd, false).unwrap_err());
        assert!(err.contains("line 1"), "{err}");
        assert!(load_book(&dir.join("missing.epd"), false).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
