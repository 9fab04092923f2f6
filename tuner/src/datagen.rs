//! `tuner datagen`: self-play games in-process, streamed to a compact binary file of
//! labelled quiet positions for Texel tuning (`tuner texel` reads it, and the older
//! `FEN | result` text).
//!
//! Games start from openings (built-in, or --book) and are played by the engine with
//! its compiled parameters at a fixed node budget, on all cores. From each game we keep
//! the quiet positions: after the opening and the first --skip-plies plies, not in
//! check, and where the engine's chosen move was neither a capture nor a promotion and
//! its score was not a mate. Each is stored with the game result and the search score
//! of the move played there (both White's view).
//!
//! Scale: game `i` depends only on (--seed, `i`) (its own opening stream; fresh
//! players), so a run is reproducible and restartable. Finished games are appended
//! to the output in game order as they come in (a short reorder buffer holds the
//! games that finish early), each block written whole; a killed run keeps every
//! finished game, and running the same command again continues after the last
//! complete game (an unfinished block at the end is cut off). A file made with other
//! settings, or not made by datagen, is refused and left as it is. The file's layout
//! is [`datagen_file`]'s.
//!
//! A command: may use every layer below. It uses the games (`play`), its file
//! (`datagen_file`, a module of its own layer), `run_files` and `interrupt`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use occam::Params;
use occam::params::PARAM_SPECS;
use occam::position::{Game, Position};
use occam::search::{Score, Searcher};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::datagen_file::{game_block, header, scan};
use crate::play::args::GameArgs;
use crate::play::game::{Adjudication, EnginePlayer, GameRecord, Outcome, TimeControl, play_game};
use crate::play::openings::{GeneratorConfig, random_opening};
use crate::{interrupt, run_files};

#[derive(clap::Args)]
pub struct Args {
    /// Output file (binary, see docs/texel.md, "File format"). When it exists and was
    /// made by the same command, the run continues after its last complete game.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Number of games the file should hold when done.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
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

/// Game `i`'s opening stream: the seed and the index mixed (splitmix64), so
/// neighbouring games and seeds get unrelated streams.
fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index)
        .wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of the compiled parameter values: a resumed run must play the same engine.
fn params_fingerprint() -> u64 {
    let p = Params::default();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for i in 0..PARAM_SPECS.len() {
        for b in p.get(i).to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Everything a game depends on, one line; stored in the header and compared on resume.
fn settings_text(args: &Args) -> String {
    let g = &args.game;
    let openings = match &g.book {
        Some(_) => g.describe(),
        None => format!("{} opening_max_score={}", g.describe(), g.opening_max_score),
    };
    format!(
        "occam {} params {:016x}; {openings}; skip_plies={}; resign {} cp x{}; draw from move {} within {} cp x{}; max_plies={}; opening stream v1",
        env!("CARGO_PKG_VERSION"),
        params_fingerprint(),
        args.skip_plies,
        g.resign_score,
        g.resign_moves,
        g.draw_move_number,
        g.draw_score,
        g.draw_moves,
        g.max_plies
    )
}

/// Result as White's half points (0, 1, 2).
fn half_points(outcome: Outcome) -> u8 {
    outcome.half_points_for(shakmaty::Color::White) as u8
}

/// The quiet positions of a game (see the module comment), each with the score of the
/// move played there (White's view). Games a player forfeited are skipped: their
/// result says nothing about the positions.
pub fn quiet_positions(record: &GameRecord, skip_plies: usize) -> Vec<(Position, i32)> {
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
            if let Some(Score::Cp(cp)) = score {
                let white = if pos.turn() == shakmaty::Color::White {
                    cp
                } else {
                    -cp
                };
                out.push((pos.clone(), white));
            }
        }
        pos = pos.play(m);
    }
    out
}

/// The output file, positioned after its last complete game.
struct Output {
    file: File,
    games: u64,
    positions: u64,
}

impl Output {
    /// Creates the file, or checks an existing one and cuts off an unfinished last game.
    fn open(path: &Path, settings: &str) -> Result<Output> {
        let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
        let cannot = |e: std::io::Error| {
            anyhow::anyhow!(
                "cannot write the output file {}: {e} (give a path in a writable directory)",
                path.display()
            )
        };
        if !exists {
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .open(path)
                .map_err(cannot)?;
            file.write_all(&header(settings)).map_err(cannot)?;
            file.sync_all().map_err(cannot)?;
            return Ok(Output {
                file,
                games: 0,
                positions: 0,
            });
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(cannot)?;
        let contents = scan(&mut file, path, None)?;
        if contents.settings != settings {
            bail!(
                "{} was made with other settings, so this run cannot continue it (nothing was changed):\n  file: {}\n  now:  {}\nRun the same command as before to continue it, or give another --output.",
                path.display(),
                contents.settings,
                settings
            );
        }
        if contents.partial_tail > 0 {
            eprintln!(
                "datagen: {} ends in an unfinished game ({} bytes), cut off",
                path.display(),
                contents.partial_tail
            );
            file.set_len(contents.complete_len).map_err(cannot)?;
        }
        file.seek(SeekFrom::Start(contents.complete_len))
            .map_err(cannot)?;
        Ok(Output {
            file,
            games: contents.games,
            positions: contents.positions,
        })
    }
}

/// Where game `i`'s opening comes from.
enum Openings {
    Book(Vec<Game>),
    Generated { seed: u64, config: GeneratorConfig },
}

impl Openings {
    /// Game `index`'s opening: the book's position `index` (cyclically), or one drawn
    /// from the game's own random stream.
    fn get(&self, index: u64, searcher: &mut Searcher) -> Result<Game> {
        match self {
            Openings::Book(book) => Ok(book[(index % book.len() as u64) as usize].clone()),
            Openings::Generated { seed, config } => {
                let mut rng = StdRng::seed_from_u64(game_seed(*seed, index));
                for _ in 0..1000 {
                    if let Some(game) = random_opening(&mut rng, searcher, *config) {
                        return Ok(game);
                    }
                }
                bail!(
                    "could not generate an opening within ±{} cp after {} plies for game {index}; raise --opening-max-score",
                    config.max_abs_score,
                    config.plies
                )
            }
        }
    }
}

/// A finished game on its way to the writer.
struct Finished {
    index: u64,
    block: Vec<u8>,
    positions: u64,
}

pub fn run(args: Args) -> Result<()> {
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    let tc = args.game.time_control()?;
    let adjudication = args.game.adjudication();
    let openings = match args.game.book {
        Some(_) => Openings::Book(args.game.openings(0)?),
        None => Openings::Generated {
            seed: args.game.seed,
            config: GeneratorConfig {
                plies: args.game.opening_plies,
                max_abs_score: args.game.opening_max_score,
                ..GeneratorConfig::default()
            },
        },
    };
    let settings = settings_text(&args);
    let outputs = [(args.output.as_path(), "--output")].into_iter();
    let _locks = run_files::lock_outputs(outputs.chain(args.game.pgn_output()))?;
    let mut out = Output::open(&args.output, &settings)?;
    if out.games >= args.games {
        eprintln!(
            "datagen: {} already holds {} games ({} positions); nothing to do",
            args.output.display(),
            out.games,
            out.positions
        );
        return Ok(());
    }
    eprintln!(
        "datagen: games {}..{} of {}, {}, {threads} threads -> {}",
        out.games,
        args.games,
        args.games,
        args.game.describe(),
        args.output.display()
    );
    let first = out.games;
    let setup = Setup {
        next: AtomicU64::new(first),
        games: args.games,
        stop: AtomicBool::new(false),
        openings,
        tc,
        adjudication,
        hash: args.game.hash_mb(),
        skip_plies: args.skip_plies,
    };
    let mut progress = Progress::new(first, args.games, out.positions);
    interrupt::install("finishing the games in flight");
    let (tx, rx) = mpsc::sync_channel::<Result<Finished>>(threads * 4);
    let written = std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let setup = &setup;
            scope.spawn(move || setup.work(&tx));
        }
        drop(tx);
        let result = write_in_order(&rx, &mut out, first, &mut progress);
        if result.is_err() {
            setup.stop.store(true, Ordering::Relaxed);
            // Drain so no worker blocks on a full channel.
            for _ in rx.iter() {}
        }
        result
    });
    progress.finish(&out);
    written?;
    out.file
        .sync_all()
        .with_context(|| format!("cannot sync {}", args.output.display()))?;
    eprintln!(
        "datagen: {} holds {} games, {} positions ({:.1} MB)",
        args.output.display(),
        out.games,
        out.positions,
        out.file.metadata().map_or(0, |m| m.len()) as f64 / 1e6
    );
    if out.games < args.games {
        eprintln!(
            "datagen: stopped; to continue (the file is extended to {} games):  {}",
            args.games,
            interrupt::command_again(&[], "")
        );
        return Err(interrupt::Stopped.into());
    }
    Ok(())
}

/// What the workers share.
struct Setup {
    next: AtomicU64,
    games: u64,
    stop: AtomicBool,
    openings: Openings,
    tc: TimeControl,
    adjudication: Adjudication,
    hash: usize,
    skip_plies: usize,
}

impl Setup {
    /// One worker: takes the next game index until all are taken, plays it with fresh
    /// players (so the game depends on its index alone) and sends its block.
    fn work(&self, tx: &mpsc::SyncSender<Result<Finished>>) {
        // The start values: a game's opening stays the same after a tune's write-back.
        let mut opening_searcher = Searcher::new(Params::starts(), 4);
        while !self.stop.load(Ordering::Relaxed) && !interrupt::requested() {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.games {
                break;
            }
            let finished = self
                .openings
                .get(index, &mut opening_searcher)
                .map(|opening| {
                    let mut white = EnginePlayer::new("occam", Params::default(), self.hash);
                    let mut black = EnginePlayer::new("occam", Params::default(), self.hash);
                    let record = play_game(
                        &mut white,
                        &mut black,
                        &opening,
                        self.tc,
                        &self.adjudication,
                    );
                    let positions = quiet_positions(&record, self.skip_plies);
                    let block = game_block(
                        index,
                        half_points(record.outcome),
                        record.moves.len(),
                        &positions,
                    );
                    Finished {
                        index,
                        block,
                        positions: positions.len() as u64,
                    }
                });
            let failed = finished.is_err();
            if tx.send(finished).is_err() || failed {
                break;
            }
        }
    }
}

/// Appends the games in index order as they arrive; each block is one write, so an
/// interruption leaves at most one unfinished block (cut off on the next run).
fn write_in_order(
    rx: &mpsc::Receiver<Result<Finished>>,
    out: &mut Output,
    first: u64,
    progress: &mut Progress,
) -> Result<()> {
    let mut pending: BTreeMap<u64, Finished> = BTreeMap::new();
    let mut next = first;
    for finished in rx.iter() {
        let finished = finished?;
        pending.insert(finished.index, finished);
        while let Some(game) = pending.remove(&next) {
            out.file
                .write_all(&game.block)
                .context("cannot append to the output file (the games written so far are kept)")?;
            out.games += 1;
            out.positions += game.positions;
            next += 1;
            progress.game(out.positions);
        }
    }
    Ok(())
}

/// Progress: a bar with games/s, positions and ETA on a terminal; a line per minute
/// otherwise (logs).
struct Progress {
    bar: ProgressBar,
    interactive: bool,
    started: Instant,
    first: u64,
    games: u64,
    done: u64,
    last_line: Instant,
}

impl Progress {
    fn new(first: u64, games: u64, positions: u64) -> Progress {
        let interactive = std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(games),
            if interactive {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30.cyan/blue} {pos}/{len} games  {per_sec}  eta {eta}  {msg}",
            )
            .expect("valid template"),
        );
        bar.set_position(first);
        bar.reset_eta();
        bar.set_message(format!("{positions} positions"));
        Progress {
            bar,
            interactive,
            started: Instant::now(),
            first,
            games,
            done: first,
            last_line: Instant::now(),
        }
    }

    fn game(&mut self, positions: u64) {
        self.done += 1;
        self.bar.inc(1);
        self.bar.set_message(format!("{positions} positions"));
        if !self.interactive
            && (self.last_line.elapsed() >= Duration::from_secs(60) || self.done == self.games)
        {
            self.last_line = Instant::now();
            eprintln!("datagen: {}", self.line(positions));
        }
    }

    fn line(&self, positions: u64) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = (self.done - self.first) as f64 / secs;
        let eta = if rate > 0.0 {
            (self.games - self.done) as f64 / rate
        } else {
            0.0
        };
        format!(
            "{}/{} games, {positions} positions, {rate:.2} games/s, eta {:.0} s",
            self.done, self.games, eta
        )
    }

    fn finish(&self, out: &Output) {
        self.bar.finish_and_clear();
        let secs = self.started.elapsed().as_secs_f64();
        eprintln!(
            "datagen: {} in {secs:.1} s this run",
            self.line(out.positions)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen_file::RECORD;
    use crate::play::game::{Adjudication, TimeControl};
    use clap::Parser;
    use occam::position::Game;

    #[test]
    fn quiet_positions_skip_opening_checks_and_captures_and_carry_white_scores() {
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
        let kept = quiet_positions(&record, 4);
        assert!(!kept.is_empty());
        assert!(kept.len() <= record.moves.len() - 2 - 4);
        // Replaying the game, every kept position is one of the game's, quiet and not in
        // check, with the mover's score turned to White's view.
        let mut pos = record.start.clone();
        let mut seen = 0;
        for (i, &m) in record.moves.iter().enumerate() {
            if let Some((_, score)) = kept.iter().find(|(p, _)| *p == pos) {
                assert!(i >= 6 && !pos.is_check() && !m.is_capture(), "ply {i}");
                let Some(Score::Cp(mover)) = record.scores[i - 2] else {
                    panic!("kept without a cp score")
                };
                let white = if pos.turn() == shakmaty::Color::White {
                    mover
                } else {
                    -mover
                };
                assert_eq!(*score, white);
                seen += 1;
            }
            pos = pos.play(m);
        }
        assert_eq!(seen, kept.len());
    }

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn args_with(out: &Path, games: u64, nodes: u64, threads: usize) -> Args {
        let (games, nodes, threads) = (games.to_string(), nodes.to_string(), threads.to_string());
        let argv = [
            "datagen",
            "-o",
            out.to_str().unwrap(),
            "--nodes",
            &nodes,
            "--max-plies",
            "24",
            "--skip-plies",
            "2",
            "--threads",
            &threads,
            "--seed",
            "5",
            "--games",
            &games,
        ];
        Cli::try_parse_from(argv).unwrap().args
    }

    fn args(out: &Path, games: u64) -> Args {
        args_with(out, games, 150, 2)
    }

    /// Every complete game's (index, position records) of a file.
    fn games_of(path: &Path) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        let mut f = File::open(path).unwrap();
        scan(
            &mut f,
            path,
            Some(&mut |i, recs: &[u8]| out.push((i, recs.to_vec()))),
        )
        .unwrap();
        out
    }

    #[test]
    fn a_killed_run_resumes_to_the_same_positions_as_an_uninterrupted_one() {
        let dir = crate::test_util::scratch_dir("datagen-resume");
        let whole = dir.join("whole.bin");
        run(args(&whole, 6)).unwrap();
        let reference = games_of(&whole);
        assert_eq!(
            reference.iter().map(|g| g.0).collect::<Vec<_>>(),
            (0..6).collect::<Vec<_>>()
        );
        assert!(reference.iter().any(|g| !g.1.is_empty()));
        // Simulated kill: the file cut in the middle of game 4's block.
        let cut = dir.join("cut.bin");
        let bytes = std::fs::read(&whole).unwrap();
        let block = |g: usize| RECORD + reference[g].1.len();
        let end_of_four = bytes.len() - block(5);
        std::fs::write(&cut, &bytes[..end_of_four - 3]).unwrap();
        let mut f = File::open(&cut).unwrap();
        let partial = scan(&mut f, &cut, None).unwrap();
        assert_eq!(
            (partial.games, partial.partial_tail),
            (4, block(4) as u64 - 3)
        );
        // Same command again: continues at game 4 (one thread this time: the threads
        // do not change the games).
        run(args_with(&cut, 6, 150, 1)).unwrap();
        assert_eq!(std::fs::read(&cut).unwrap(), bytes);
        // Asking for more games extends the file with games 6.. of the same seed.
        run(args(&cut, 7)).unwrap();
        let longer = games_of(&cut);
        assert_eq!(longer.len(), 7);
        assert_eq!(&longer[..6], &reference[..]);
        // A complete file is left alone.
        run(args(&cut, 7)).unwrap();
        assert_eq!(games_of(&cut).len(), 7);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn foreign_damaged_or_other_settings_files_are_refused_unchanged() {
        let dir = crate::test_util::scratch_dir("datagen-refuse");
        let text = dir.join("legacy.txt");
        let legacy = "4k3/8/8/8/8/8/PP4PP/4K3 w - - 0 1 | 1.0\n";
        std::fs::write(&text, legacy).unwrap();
        let err = run(args(&text, 2)).unwrap_err().to_string();
        assert!(
            err.contains("not a datagen file") && err.contains("text"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&text).unwrap(), legacy);

        let data = dir.join("data.bin");
        run(args(&data, 2)).unwrap();
        let before = std::fs::read(&data).unwrap();
        let err = run(args_with(&data, 3, 151, 2)).unwrap_err().to_string();
        assert!(
            err.contains("other settings") && err.contains("nodes=150"),
            "{err}"
        );
        assert_eq!(std::fs::read(&data).unwrap(), before);

        // A damaged game header in the middle (not an unfinished end) is an error.
        let mut damaged = before.clone();
        let header_len = header(&settings_text(&args(&data, 2))).len();
        damaged[header_len] = b'X';
        std::fs::write(&data, &damaged).unwrap();
        let err = run(args(&data, 3)).unwrap_err().to_string();
        assert!(err.contains("damaged") && err.contains("game 0"), "{err}");
        assert_eq!(std::fs::read(&data).unwrap(), damaged);

        let err = run(args(&dir.join("no/such/dir/x.bin"), 1))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cannot write") && err.contains("no/such/dir"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
