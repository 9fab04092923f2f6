//! The shell's state and the commands' handlers (the table that dispatches to
//! them is `commands.rs`): the position, and the commands that start a search or a
//! job.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use super::go::parse_go;
use super::options::Settings;
use super::output::{Out, describe};
use super::{Event, Shell, Task};
use crate::bench;
use crate::eval::Evaluator;
use crate::genfens;
use crate::perft;
use crate::position::{Game, Position, START_FEN};
use crate::search::{Control, Searcher};

/// Deepest `go perft` accepted (perft 7 of the start position is already 3.2 billion leaves).
const MAX_PERFT_DEPTH: u32 = 10;

/// What the last `position` command said, kept so UCI_Chess960 can re-read it.
#[derive(Clone, Debug, Default)]
pub(super) struct PositionSpec {
    fen: Option<String>,
    moves: Vec<String>,
}

impl PositionSpec {
    pub(super) fn build(&self, chess960: bool) -> Result<Game, String> {
        let fen = self.fen.as_deref().unwrap_or(START_FEN);
        let start = Position::from_fen_lenient(fen, chess960).map_err(|e| e.to_string())?;
        let mut game = Game::new(start);
        for (i, text) in self.moves.iter().enumerate() {
            game.play_uci(text)
                .map_err(|e| format!("position move {} of {}: {e}", i + 1, self.moves.len()))?;
        }
        Ok(game)
    }
}

impl Shell {
    pub(super) fn new(
        output: Box<dyn Write + Send>,
        sender: Sender<Event>,
        events: Receiver<Event>,
    ) -> Shell {
        let settings = Settings::default();
        Shell {
            out: Out(Arc::new(Mutex::new(output))),
            events,
            sender,
            searcher: Some(Searcher::new(settings.params.clone(), settings.hash_mb)),
            searcher_hash_mb: settings.hash_mb,
            settings,
            position: PositionSpec::default(),
            game: Game::new(Position::startpos()),
            task: None,
            queue: VecDeque::new(),
            input_closed: false,
            clear_pending: false,
        }
    }

    pub(super) fn fresh_searcher(&mut self) {
        let mut searcher = Searcher::new(self.settings.params.clone(), self.settings.hash_mb);
        let _ = searcher.set_threads(self.settings.threads);
        self.searcher = Some(searcher);
        self.searcher_hash_mb = self.settings.hash_mb;
        self.clear_pending = false;
    }

    /// Hands queued option changes to the searcher when no search owns it.
    pub(super) fn apply_pending_if_idle(&mut self) {
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        if searcher.params() != &self.settings.params {
            searcher.set_params(self.settings.params.clone());
        }
        if self.searcher_hash_mb != self.settings.hash_mb {
            searcher.set_hash_mb(self.settings.hash_mb);
            self.searcher_hash_mb = self.settings.hash_mb;
        }
        if searcher.threads() != self.settings.threads {
            // In range: checked when the option was set.
            let _ = searcher.set_threads(self.settings.threads);
        }
        if self.clear_pending {
            searcher.clear();
            self.clear_pending = false;
        }
    }

    /// Castling notation and FEN castling semantics follow the mode, so the current
    /// position is read again in the new mode.
    pub(super) fn set_chess960(&mut self, on: bool) {
        if on == self.settings.chess960 {
            return;
        }
        self.settings.chess960 = on;
        match self.position.build(on) {
            Ok(game) => self.game = game,
            Err(e) => {
                self.out.text(&format!(
                    "info string the current position is not valid with UCI_Chess960 {on} ({e}); reset to startpos"
                ));
                self.position = PositionSpec::default();
                self.game = Game::new(
                    Position::from_fen(START_FEN, on).expect("the start position is valid"),
                );
            }
        }
    }

    pub(super) fn cmd_position(&mut self, args: &[&str]) -> Result<(), String> {
        const USAGE: &str = "expected 'position startpos [moves <m1> ...]' or 'position fen <FEN> [moves <m1> ...]'";
        let moves_at = args.iter().position(|t| *t == "moves");
        let head = &args[..moves_at.unwrap_or(args.len())];
        let fen = match head.split_first() {
            Some((&"startpos", [])) => None,
            Some((&"startpos", extra)) => {
                return Err(format!(
                    "unexpected '{}' after 'position startpos': {USAGE}",
                    extra.join(" ")
                ));
            }
            Some((&"fen", [])) => return Err(format!("'position fen' without a FEN: {USAGE}")),
            Some((&"fen", fields)) => Some(fields.join(" ")),
            Some((other, _)) => return Err(format!("unknown position kind '{other}': {USAGE}")),
            None => return Err(format!("'position' needs arguments: {USAGE}")),
        };
        let spec = PositionSpec {
            fen,
            moves: moves_at
                .map(|i| args[i + 1..].iter().map(|m| m.to_string()).collect())
                .unwrap_or_default(),
        };
        self.game = spec.build(self.settings.chess960)?;
        self.position = spec;
        Ok(())
    }

    pub(super) fn cmd_go(&mut self, args: &[&str]) -> Result<(), String> {
        if args.first() == Some(&"perft") {
            return self.cmd_perft(&args[1..]);
        }
        let mut request = parse_go(args, &self.game.position, self.settings.move_overhead_ms)?;
        request.limits.multi_pv = self.settings.multi_pv;
        if let Some(note) = &request.note {
            self.out.text(&format!("info string {note}"));
        }
        self.apply_pending_if_idle();
        self.start_search(request);
        Ok(())
    }

    fn cmd_perft(&mut self, args: &[&str]) -> Result<(), String> {
        let depth = match args {
            [d] => d
                .parse::<u32>()
                .ok()
                .filter(|d| (1..=MAX_PERFT_DEPTH).contains(d)),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "expected 'go perft <depth>' with a depth from 1 to {MAX_PERFT_DEPTH}, got 'go perft {}'",
                args.join(" ")
            )
        })?;
        let position = self.game.position.clone();
        self.start_job(move || {
            let counts = perft::divide(&position, depth);
            let total: u64 = counts.iter().map(|(_, n)| n).sum();
            let mut text = String::new();
            for (mv, n) in counts {
                text.push_str(&format!("{mv}: {n}\n"));
            }
            text.push_str(&format!("\nNodes searched: {total}"));
            Ok(text)
        });
        Ok(())
    }

    pub(super) fn cmd_d(&self) {
        self.out.text(&describe(&self.game.position));
    }

    pub(super) fn cmd_eval(&self) {
        let mut evaluator = Evaluator::new(&self.settings.params);
        let trace = evaluator.trace(&self.game.position);
        self.out.text(&trace.to_string());
    }

    pub(super) fn cmd_params(&self) {
        self.out.text(&self.settings.params.openbench_lines());
    }

    pub(super) fn cmd_bench(&mut self, args: &[&str]) -> Result<(), String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        // Bad arguments are reported now, before anything runs.
        bench::parse_args(&args)?;
        let params = self.settings.params.clone();
        self.start_job(move || {
            let mut buffer = Vec::new();
            bench::cli(&args, &params, &mut buffer)?;
            Ok(String::from_utf8_lossy(&buffer).into_owned())
        });
        Ok(())
    }

    /// `genfens N [seed S] [book <path|None>] [extras]`: opening positions for
    /// OpenBench datagen, one `info string genfens <FEN>` line each, printed as found.
    /// The arguments are checked now; the book is read on the worker thread.
    pub(super) fn cmd_genfens(&mut self, args: &[&str]) -> Result<(), String> {
        let request = genfens::parse_args(args)?;
        let params = self.settings.params.clone();
        let chess960 = self.settings.chess960;
        let control = Arc::new(Control::default());
        let job_control = Arc::clone(&control);
        let out = self.out.clone();
        self.start_worker(Task::Genfens(control), "genfens", move || {
            let emitted =
                genfens::generate(&request, &params, chess960, &job_control, &mut |line| {
                    out.text(line)
                })?;
            Ok(if emitted < request.count {
                format!(
                    "info string genfens stopped after {emitted} of {} positions",
                    request.count
                )
            } else {
                String::new()
            })
        });
        Ok(())
    }
}
