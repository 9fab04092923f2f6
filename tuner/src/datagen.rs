//! `tuner datagen`: self-play games in-process, written as `FEN | result` lines for
//! Texel tuning.
//!
//! Games start from the usual openings (built-in or --book) and are played by the
//! engine with its compiled parameters at a fixed node budget, in parallel. From each
//! game we keep the quiet positions: after the opening and the first --skip-plies
//! plies, not in check, and where the engine's chosen move was neither a capture nor a
//! promotion and its score was not a mate. The result is from White's point of view
//! (1.0, 0.5, 0.0), the format `tuner texel` reads.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use occam::Params;
use occam::position::Position;
use occam::search::Score;
use rayon::prelude::*;

use crate::game_args::GameArgs;
use crate::games::{EnginePlayer, GameRecord, Outcome, play_game};
use crate::params_file::write_atomically;

#[derive(clap::Args)]
pub struct Args {
    /// Output file (`FEN | result` per line, White's view); replaced atomically at the end.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Number of games to play.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub games: u64,
    /// Plies after the opening whose positions are never written.
    #[arg(long, default_value_t = 8)]
    pub skip_plies: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub game: GameArgs,
}

pub fn run(args: Args) -> Result<()> {
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    let tc = args.game.time_control()?;
    let adjudication = args.game.adjudication();
    let games = args.games as usize;
    let openings = args.game.openings(games)?;
    let hash = args.game.hash_mb();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the worker threads")?;
    let done = AtomicUsize::new(0);
    eprintln!(
        "datagen: {games} games, {}, {threads} threads -> {}",
        args.game.describe(),
        args.output.display()
    );
    let records: Vec<GameRecord> = pool.install(|| {
        (0..games)
            .into_par_iter()
            .map(|i| {
                let mut white = EnginePlayer::new("occam", Params::default(), hash);
                let mut black = EnginePlayer::new("occam", Params::default(), hash);
                let record = play_game(
                    &mut white,
                    &mut black,
                    &openings[i % openings.len()],
                    tc,
                    &adjudication,
                );
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_multiple_of(50) || n == games {
                    eprintln!("datagen: {n}/{games} games");
                }
                record
            })
            .collect()
    });
    let mut text = String::new();
    let (mut positions, mut results) = (0usize, [0usize; 3]);
    for record in &records {
        let lines = quiet_positions(record, args.skip_plies);
        positions += lines.len();
        results[match record.outcome {
            Outcome::WhiteWins => 0,
            Outcome::Draw => 1,
            Outcome::BlackWins => 2,
        }] += 1;
        for fen in lines {
            text.push_str(&format!("{fen} | {}\n", result_text(record.outcome)));
        }
    }
    write_atomically(&args.output, &text)?;
    eprintln!(
        "datagen: wrote {positions} positions from {games} games (+{} ={} -{} for White) to {}",
        results[0],
        results[1],
        results[2],
        args.output.display()
    );
    Ok(())
}

fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::WhiteWins => "1.0",
        Outcome::Draw => "0.5",
        Outcome::BlackWins => "0.0",
    }
}

/// FENs of the quiet positions of a game (see the module comment). Games a player
/// forfeited are skipped: their result says nothing about the positions.
pub fn quiet_positions(record: &GameRecord, skip_plies: usize) -> Vec<String> {
    if record.fault.is_some() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut pos: Position = record.start.clone();
    for (i, &m) in record.moves.iter().enumerate() {
        let after_opening = i >= record.opening_plies + skip_plies;
        if after_opening && !pos.is_check() && !m.is_capture() && !m.is_promotion() {
            let score = record
                .scores
                .get(i - record.opening_plies)
                .copied()
                .flatten();
            if !matches!(score, Some(Score::Mate(_))) {
                out.push(pos.fen());
            }
        }
        pos = pos.play(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Adjudication, TimeControl};
    use occam::position::Game;

    #[test]
    fn quiet_positions_skip_opening_checks_and_captures() {
        let mut a = EnginePlayer::new("a", Params::default(), 1);
        let mut b = EnginePlayer::new("b", Params::default(), 1);
        let mut opening = Game::new(Position::startpos());
        for m in ["e2e4", "e7e5"] {
            opening.play_uci(m).unwrap();
        }
        let adj = Adjudication {
            max_plies: 40,
            ..Adjudication::default()
        };
        let record = play_game(&mut a, &mut b, &opening, TimeControl::Nodes(300), &adj);
        let fens = quiet_positions(&record, 4);
        assert!(!fens.is_empty());
        assert!(fens.len() <= record.moves.len() - 2 - 4);
        // Replaying the game, every kept position is one of the game's, quiet and not in check.
        let mut pos = record.start.clone();
        let mut seen = Vec::new();
        for (i, &m) in record.moves.iter().enumerate() {
            if fens.contains(&pos.fen()) {
                assert!(i >= 6 && !pos.is_check() && !m.is_capture(), "ply {i}");
                seen.push(pos.fen());
            }
            pos = pos.play(m);
        }
        assert_eq!(seen.len(), fens.len());
        assert_eq!(result_text(Outcome::Draw), "0.5");
    }
}

/// Match between two evaluation parameter files, for the numbers in reports (not a unit
/// test: it plays hundreds of games). `tuner match` is the general tool; this one only
/// needs the game core. Run, e.g.:
/// `EVAL_A=params/eval.json EVAL_B=params/variants/material_only.json EVAL_PAIRS=200
/// EVAL_NODES=4000 cargo test --release -p tuner eval_match -- --ignored --nocapture`
#[cfg(test)]
mod eval_match {
    use super::*;
    use crate::games::{Adjudication, TimeControl, pair_score};
    use crate::openings::{GeneratorConfig, generate};
    use crate::params_file::ParamFile;

    fn load(path: &str) -> Params {
        let file = ParamFile::load(std::path::Path::new(path)).unwrap();
        let mut p = Params::default();
        crate::params_file::overlay(&mut p, &[file], crate::params_file::Field::Value).unwrap();
        p
    }

    #[test]
    #[ignore]
    fn eval_match() {
        let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
        let (a_path, b_path) = (
            var("EVAL_A", "../params/eval.json"),
            var("EVAL_B", "../params/variants/material_only.json"),
        );
        let pairs: usize = var("EVAL_PAIRS", "100").parse().unwrap();
        let nodes: u64 = var("EVAL_NODES", "4000").parse().unwrap();
        let (a, b) = (load(&a_path), load(&b_path));
        let openings = generate(pairs, 99, GeneratorConfig::default());
        let adj = Adjudication::default();
        let scores: Vec<usize> = openings
            .par_iter()
            .map(|o| {
                let mut pa = EnginePlayer::new("a", a.clone(), 4);
                let mut pb = EnginePlayer::new("b", b.clone(), 4);
                let g1 = play_game(&mut pa, &mut pb, o, TimeControl::Nodes(nodes), &adj);
                let g2 = play_game(&mut pb, &mut pa, o, TimeControl::Nodes(nodes), &adj);
                pair_score(&g1, &g2)
            })
            .collect();
        let mut penta = [0usize; 5];
        for s in &scores {
            penta[*s] += 1;
        }
        let n = scores.len() as f64;
        let mean = scores.iter().map(|&s| s as f64 / 4.0).sum::<f64>() / n;
        let var_ = scores
            .iter()
            .map(|&s| (s as f64 / 4.0 - mean).powi(2))
            .sum::<f64>()
            / n;
        let elo = |p: f64| -400.0 * (1.0 / p.clamp(1e-3, 1.0 - 1e-3) - 1.0).log10();
        let se = (var_ / n).sqrt();
        println!(
            "{a_path} vs {b_path}: {} pairs at {nodes} nodes, pentanomial {penta:?}, score {:.3}, Elo {:+.1} (95% {:+.1} .. {:+.1})",
            scores.len(),
            mean,
            elo(mean),
            elo(mean - 1.96 * se),
            elo(mean + 1.96 * se)
        );
    }
}
