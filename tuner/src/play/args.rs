//! Command-line options shared by every subcommand that plays games (`spsa`, `match`,
//! `verify`, `datagen`): move limits, openings, adjudication, PGN output.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use occam::Params;
use occam::position::Game;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::play::game::{Adjudication, TimeControl};
use crate::play::openings::{self, GeneratorConfig};
use crate::play::pgn::PgnWriter;

/// Nodes per move when no limit is given: deterministic and fast enough for SPSA.
pub const DEFAULT_NODES: u64 = 8_000;

/// Mixed into --seed for the book shuffle.
const BOOK_SHUFFLE_SALT: u64 = 0x0B00_C5A1_7000_0001;

/// The order in which pairs take the positions of an opening book.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookOrder {
    /// The whole book shuffled by --seed (fastchess's `order=random`): any number of
    /// pairs is a random sample of the book, however the file is sorted.
    Random,
    /// File order.
    Sequential,
}

#[derive(clap::Args, Clone, Debug)]
pub struct GameArgs {
    /// Fixed nodes per move [default: 8000 when no other limit is given].
    #[arg(long, help_heading = "Games", conflicts_with_all = ["depth", "movetime", "tc"])]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, help_heading = "Games", conflicts_with_all = ["movetime", "tc"])]
    pub depth: Option<u32>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_name = "MS", help_heading = "Games", conflicts_with = "tc")]
    pub movetime: Option<u64>,
    /// Game clock in seconds, base plus increment, e.g. 5+0.05 or 10+0.1.
    #[arg(long, value_name = "BASE+INC", help_heading = "Games")]
    pub tc: Option<String>,
    /// Scale --tc/--movetime by REF / (this machine's bench NPS), so a time control
    /// means the same search effort on every machine.
    #[arg(long, value_name = "REF", help_heading = "Games")]
    pub nps_reference: Option<u64>,
    /// Opening book: FEN or EPD, one position per line (EPD `hmvc`/`fmvn` and X-FEN
    /// castling are read), or PGN (by extension). Default: built-in openings generated
    /// from --seed.
    #[arg(long, value_name = "FILE", help_heading = "Openings")]
    pub book: Option<PathBuf>,
    /// Order of the book's positions [default: random for spsa, sequential for
    /// match, verify and datagen].
    #[arg(long, value_enum, help_heading = "Openings")]
    pub book_order: Option<BookOrder>,
    /// Book positions are Chess960 (castling rights by rook file).
    #[arg(long, help_heading = "Openings")]
    pub chess960: bool,
    /// Random plies of the built-in openings.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..=20), help_heading = "Openings")]
    pub opening_plies: u32,
    /// Keep built-in openings only when a shallow search scores them within ±this (cp).
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(i32).range(10..=1000), help_heading = "Openings")]
    pub opening_max_score: i32,
    /// Seed of everything random: openings, SPSA flips and rounding.
    #[arg(long, default_value_t = 1, help_heading = "Games")]
    pub seed: u64,
    /// Hash table per engine instance, in MB.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096), help_heading = "Games")]
    pub hash: u64,
    /// Append every game to this PGN file.
    #[arg(long, value_name = "FILE", help_heading = "Games")]
    pub pgn: Option<PathBuf>,
    /// A side resigns when its own score is at least this many centipawns below zero...
    #[arg(long, default_value_t = 1000, help_heading = "Adjudication")]
    pub resign_score: i32,
    /// ...for this many of its consecutive moves (0 disables resign adjudication).
    #[arg(long, default_value_t = 3, help_heading = "Adjudication")]
    pub resign_moves: u32,
    /// Draw adjudication starts at this full move number...
    #[arg(long, default_value_t = 40, help_heading = "Adjudication")]
    pub draw_move_number: u32,
    /// ...when both scores stay within ±this many centipawns...
    #[arg(long, default_value_t = 10, help_heading = "Adjudication")]
    pub draw_score: i32,
    /// ...for this many moves of each side (0 disables draw adjudication).
    #[arg(long, default_value_t = 8, help_heading = "Adjudication")]
    pub draw_moves: u32,
    /// Declare a draw after this many plies after the opening (0: no limit).
    #[arg(long, default_value_t = 400, help_heading = "Adjudication")]
    pub max_plies: u32,
}

impl GameArgs {
    /// The per-move limit, scaled to this machine when --nps-reference is given.
    pub fn time_control(&self) -> Result<TimeControl> {
        let scale = match self.nps_reference {
            Some(0) => bail!("--nps-reference must be a positive nodes-per-second figure"),
            Some(reference) => {
                let measured = measure_nps().max(1);
                reference as f64 / measured as f64
            }
            None => 1.0,
        };
        let scaled = |ms: u64| ((ms as f64 * scale).round() as u64).max(1);
        Ok(if let Some(tc) = &self.tc {
            match TimeControl::parse_clock(tc)? {
                TimeControl::Clock { base_ms, inc_ms } => TimeControl::Clock {
                    base_ms: scaled(base_ms),
                    inc_ms: if inc_ms == 0 { 0 } else { scaled(inc_ms) },
                },
                other => other,
            }
        } else if let Some(ms) = self.movetime {
            if ms == 0 {
                bail!("--movetime must be at least 1 millisecond");
            }
            TimeControl::MoveTime(scaled(ms))
        } else if let Some(depth) = self.depth {
            if !(1..=64).contains(&depth) {
                bail!("--depth {depth} is out of range: use 1 to 64");
            }
            TimeControl::Depth(depth)
        } else {
            let nodes = self.nodes.unwrap_or(DEFAULT_NODES);
            if nodes == 0 {
                bail!("--nodes must be at least 1");
            }
            TimeControl::Nodes(nodes)
        })
    }

    pub fn adjudication(&self) -> Adjudication {
        Adjudication {
            resign_score: self.resign_score,
            resign_moves: self.resign_moves,
            draw_move_number: self.draw_move_number,
            draw_score: self.draw_score,
            draw_moves: self.draw_moves,
            max_plies: self.max_plies,
            tablebases: None,
        }
    }

    /// The opening list: the whole book when given (in --book-order, sequential unless
    /// set), else `count` generated openings.
    pub fn openings(&self, count: usize) -> Result<Vec<Game>> {
        if let Some(book) = &self.book {
            let mut games = openings::load_book(book, self.chess960)?;
            if self.book_order == Some(BookOrder::Random) {
                // Its own stream, so the order does not shift with other uses of the seed.
                games.shuffle(&mut StdRng::seed_from_u64(self.seed ^ BOOK_SHUFFLE_SALT));
            }
            return Ok(games);
        }
        let config = GeneratorConfig {
            plies: self.opening_plies,
            max_abs_score: self.opening_max_score,
            ..GeneratorConfig::default()
        };
        let list = openings::generate(count.max(1), self.seed, config);
        if list.is_empty() {
            bail!(
                "could not generate openings within ±{} cp after {} plies; raise --opening-max-score",
                self.opening_max_score,
                self.opening_plies
            );
        }
        Ok(list)
    }

    /// The PGN file with its flag, as [`crate::run_files::lock_outputs`] takes it.
    pub fn pgn_output(&self) -> Option<(&Path, &'static str)> {
        self.pgn.as_deref().map(|p| (p, "--pgn"))
    }

    /// The PGN sink, when --pgn was given (appends).
    pub fn pgn_writer(&self) -> Result<Option<PgnWriter>> {
        self.pgn.as_deref().map(PgnWriter::append).transpose()
    }

    /// Hash size per engine instance in MB.
    pub fn hash_mb(&self) -> usize {
        self.hash as usize
    }

    /// One line describing the game settings, for logs and PGN/headers.
    pub fn describe(&self) -> String {
        let tc = match self.time_control() {
            Ok(TimeControl::Nodes(n)) => format!("nodes={n}"),
            Ok(TimeControl::Depth(d)) => format!("depth={d}"),
            Ok(TimeControl::MoveTime(ms)) => format!("movetime={ms}ms"),
            Ok(TimeControl::Clock { base_ms, inc_ms }) => {
                format!("tc={}+{}", base_ms as f64 / 1000.0, inc_ms as f64 / 1000.0)
            }
            Err(_) => "invalid limit".into(),
        };
        let book = match &self.book {
            Some(b) if self.book_order == Some(BookOrder::Random) => {
                format!("book={} order=random seed={}", b.display(), self.seed)
            }
            Some(b) => format!("book={}", b.display()),
            None => format!(
                "openings=generated({} plies, seed {})",
                self.opening_plies, self.seed
            ),
        };
        format!("{tc} {book} hash={}MB", self.hash)
    }
}

/// This machine's search speed: a short bench with the compiled-in parameters.
fn measure_nps() -> u64 {
    let (_, nps) = occam::bench::run(&Params::default(), 4);
    nps
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        games: GameArgs,
    }

    fn parse(args: &[&str]) -> Result<GameArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("t").chain(args.iter().copied())).map(|c| c.games)
    }

    #[test]
    fn limits_default_to_nodes_and_conflicts_are_refused() {
        assert_eq!(
            parse(&[]).unwrap().time_control().unwrap(),
            TimeControl::Nodes(DEFAULT_NODES)
        );
        assert_eq!(
            parse(&["--tc", "2+0.02"]).unwrap().time_control().unwrap(),
            TimeControl::Clock {
                base_ms: 2000,
                inc_ms: 20
            }
        );
        assert!(parse(&["--nodes", "10", "--depth", "3"]).is_err());
        assert!(parse(&["--tc", "1+0", "--movetime", "5"]).is_err());
        assert!(parse(&["--depth", "0"]).unwrap().time_control().is_err());
        assert!(parse(&["--tc", "fast"]).unwrap().time_control().is_err());
        assert!(parse(&["--hash", "0"]).is_err());
        assert!(parse(&["--book-order", "shuffled"]).is_err());
        let adj = parse(&["--max-plies", "90", "--resign-moves", "0"])
            .unwrap()
            .adjudication();
        assert_eq!((adj.max_plies, adj.resign_moves), (90, 0));
    }

    /// A sorted book once gave SPSA a skewed sample (its first positions). Random
    /// order is a permutation of the whole book, fixed by --seed; sequential is the file.
    #[test]
    fn a_random_book_order_shuffles_the_whole_book_by_seed() {
        let dir = crate::test_util::scratch_dir("book-order");
        let book = dir.join("kings.epd");
        std::fs::write(&book, crate::test_util::sorted_book::sorted_epd()).unwrap();
        let keys = |args: &[&str]| -> Vec<u64> {
            let mut all = vec!["--book", book.to_str().unwrap()];
            all.extend_from_slice(args);
            parse(&all)
                .unwrap()
                .openings(5)
                .unwrap()
                .iter()
                .map(|g| g.position.hash())
                .collect()
        };
        let file_order = keys(&[]);
        assert_eq!(file_order.len(), 30);
        assert_eq!(keys(&["--book-order", "sequential"]), file_order);
        let random = keys(&["--book-order", "random", "--seed", "3"]);
        assert_ne!(random, file_order);
        assert_eq!(random, keys(&["--book-order", "random", "--seed", "3"]));
        assert_ne!(random, keys(&["--book-order", "random", "--seed", "4"]));
        let (mut a, mut b) = (random.clone(), file_order.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "a permutation of the whole book");
        // The first pairs do not all come from the start of the file.
        assert!(random[..5].iter().any(|h| !file_order[..5].contains(h)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
