//! Openings for game pairs. Built in: generated deterministically from a seed by
//! random legal plies from the start position, kept only when a shallow search
//! finds them near balanced, so the tuner needs no file. Or a book: EPD read as
//! `occam genfens` reads it ([`occam::openings`]), or PGN.

use std::path::Path;

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::openings::{Book, BookError, is_balanced, random_walk};
use occam::position::{Game, Position};
use occam::search::{Control, Searcher};
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

/// `count` distinct near-balanced openings, the same for the same seed whatever values
/// a tune has written back: the balance check searches with the files' start values.
pub fn generate(count: usize, seed: u64, config: GeneratorConfig) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut searcher = Searcher::new(Params::starts(), 4);
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

/// One attempt at a near-balanced opening: `config.plies` random legal plies drawn
/// from `rng`, kept when the game is not over, not in check, and a shallow search
/// scores it within `config.max_abs_score`.
pub fn random_opening(
    rng: &mut StdRng,
    searcher: &mut Searcher,
    config: GeneratorConfig,
) -> Option<Game> {
    let start = Game::new(Position::startpos());
    let game = random_walk(start, config.plies, |n| rng.random_range(0..n))?;
    if game.end().is_some() || game.position.is_check() {
        return None;
    }
    let control = Control::default();
    is_balanced(
        searcher,
        &game,
        config.check_nodes,
        config.max_abs_score,
        &control,
    )
    .then_some(game)
}

/// Reads an opening book: PGN (each game's moves from its start) when the file's
/// extension is `.pgn`, else EPD or FEN lines (see [`occam::openings`]). Positions
/// where the game is already over are left out.
pub fn load_book(path: &Path, chess960: bool) -> Result<Vec<Game>> {
    let is_pgn = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let games = if is_pgn {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read opening book {}", path.display()))?;
        super::pgn::parse_games(&text, chess960)
            .with_context(|| format!("opening book {}", path.display()))?
    } else {
        read_epd(path, chess960)?
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

/// The positions of an EPD book as games; a book without any is an empty list.
fn read_epd(path: &Path, chess960: bool) -> Result<Vec<Game>> {
    let shown = path.display();
    let book = match Book::read(path, chess960) {
        Ok(book) => book,
        Err(BookError::Empty) => return Ok(Vec::new()),
        Err(BookError::NoLegalMove { .. }) => {
            bail!("every position in opening book {shown} is already decided")
        }
        Err(BookError::Read(e)) => bail!("cannot read opening book {shown}: {e}"),
        Err(BookError::Line { line, error }) => bail!("opening book {shown}: line {line}: {error}"),
    };
    Ok(book.positions().map(Game::new).collect())
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
            "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";\n\n4k3/8/8/8/8/8/4P3/4K3 w - - 3 40\n4k3/8/8/8/8/8/3P4/4K3 w - - hmvc 7; fmvn 52;\n",
        )
        .unwrap();
        let games = load_book(&epd, false).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(games[1].position.halfmoves(), 3);
        // EPD counters as `occam genfens` reads them.
        assert_eq!(games[2].position.fen(), "4k3/8/8/8/8/8/3P4/4K3 w - - 7 52");
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
