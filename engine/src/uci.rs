//! The UCI protocol shell around the search library.
//!
//! The main thread reads commands; a search runs on its own thread (taking the
//! [`Searcher`] with it and handing it back when done), so `stop`, `ponderhit`,
//! `isready` and `quit` are answered while it thinks. Option changes made during a
//! search are kept in this shell's state and reach the searcher at the next `go`.
//!
//! Bad input of any kind gets exactly one `info string error: …` line naming what was
//! wrong and what is allowed; the state stays as it was.

use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::{Color, File, Move, Position as _, Rank, Square};

use crate::bench;
use crate::eval::Evaluator;
use crate::params::{self, PARAM_SPECS, Params};
use crate::perft;
use crate::position::{Game, Position, START_FEN};
use crate::search::{Clock, Control, Limits, MAX_PLY, Score, SearchInfo, SearchResult, Searcher};

// ---------------------------------------------------------------------------
// Engine options (besides the tunable parameters, which are generated from PARAM_SPECS)
// ---------------------------------------------------------------------------

const OPT_HASH: &str = "Hash";
const OPT_THREADS: &str = "Threads";
const OPT_CLEAR_HASH: &str = "Clear Hash";
const OPT_MOVE_OVERHEAD: &str = "Move Overhead";
const OPT_PONDER: &str = "Ponder";
const OPT_CHESS960: &str = "UCI_Chess960";
const OPT_SEARCH_STATS: &str = "SearchStats";

const DEFAULT_HASH_MB: i64 = 16;
const MAX_HASH_MB: i64 = 65_536;
const DEFAULT_MOVE_OVERHEAD_MS: i64 = 10;
const MAX_MOVE_OVERHEAD_MS: i64 = 5_000;
/// Deepest `go perft` accepted (perft 7 of the start position is already 3.2 billion leaves).
const MAX_PERFT_DEPTH: u32 = 10;
/// Stack of the search thread: the search recurses up to MAX_PLY deep with a copied position per frame.
const SEARCH_STACK_BYTES: usize = 64 << 20;

#[derive(Clone, Copy)]
enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
}

/// The standard options, in the order `uci` lists them.
const ENGINE_OPTIONS: &[(&str, OptionKind)] = &[
    (
        OPT_HASH,
        OptionKind::Spin {
            default: DEFAULT_HASH_MB,
            min: 1,
            max: MAX_HASH_MB,
        },
    ),
    (
        OPT_THREADS,
        OptionKind::Spin {
            default: 1,
            min: 1,
            max: 1,
        },
    ),
    (OPT_CLEAR_HASH, OptionKind::Button),
    (
        OPT_MOVE_OVERHEAD,
        OptionKind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS,
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS,
        },
    ),
    (OPT_PONDER, OptionKind::Check { default: false }),
    (OPT_CHESS960, OptionKind::Check { default: false }),
    (OPT_SEARCH_STATS, OptionKind::Check { default: false }),
];

fn option_line(name: &str, kind: OptionKind) -> String {
    match kind {
        OptionKind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        OptionKind::Check { default } => format!("option name {name} type check default {default}"),
        OptionKind::Button => format!("option name {name} type button"),
    }
}

/// Every option line `uci` prints: the standard options, then one spin per parameter.
pub fn option_lines() -> Vec<String> {
    let mut lines: Vec<String> = ENGINE_OPTIONS
        .iter()
        .map(|&(name, kind)| option_line(name, kind))
        .collect();
    lines.extend(PARAM_SPECS.iter().map(|s| {
        option_line(
            s.name,
            OptionKind::Spin {
                default: s.value.into(),
                min: s.min.into(),
                max: s.max.into(),
            },
        )
    }));
    lines
}

// ---------------------------------------------------------------------------
// Output shared by the command loop and the search thread (whole lines under one lock)
// ---------------------------------------------------------------------------

#[derive(Clone)]
struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    fn text(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for line in text.lines() {
            let _ = writeln!(w, "{line}");
        }
        let _ = w.flush();
    }

    fn error(&self, message: &str) {
        // One line, whatever the message holds.
        let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
        self.text(&format!("info string error: {one_line}"));
    }
}

// ---------------------------------------------------------------------------
// The command loop
// ---------------------------------------------------------------------------

/// Runs the UCI loop until `quit` or end of input. At end of input a search with a
/// limit is allowed to finish (so `echo "go depth 8" | occam` works); an infinite or
/// pondering search is stopped.
pub fn run(mut input: impl BufRead, output: impl Write + Send + 'static) {
    let mut shell = Shell::new(Box::new(output));
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                // Invalid UTF-8 becomes an unknown command, not the end of the session.
                let line = String::from_utf8_lossy(&bytes);
                if !shell.handle(&line) {
                    return;
                }
            }
        }
    }
    shell.finish_at_end_of_input();
}

/// What the last `position` command said, kept so UCI_Chess960 can re-read it.
#[derive(Clone, Debug, Default)]
struct PositionSpec {
    fen: Option<String>,
    moves: Vec<String>,
}

impl PositionSpec {
    fn build(&self, chess960: bool) -> Result<Game, String> {
        let fen = self.fen.as_deref().unwrap_or(START_FEN);
        let start = Position::from_fen(fen, chess960).map_err(|e| e.to_string())?;
        let mut game = Game::new(start);
        for (i, text) in self.moves.iter().enumerate() {
            game.play_uci(text)
                .map_err(|e| format!("position move {} of {}: {e}", i + 1, self.moves.len()))?;
        }
        Ok(game)
    }
}

struct Running {
    handle: JoinHandle<Searcher>,
    control: Arc<Control>,
    /// `go infinite`: only `stop` ends it.
    infinite: bool,
}

impl Running {
    /// An infinite or (still) pondering search never ends by itself.
    fn waits_for_stop(&self) -> bool {
        self.infinite || self.control.pondering.load(Ordering::SeqCst)
    }
}

/// The engine state the commands act on.
struct Shell {
    out: Out,
    /// The parameters the next search uses.
    params: Params,
    hash_mb: usize,
    move_overhead_ms: u64,
    chess960: bool,
    search_stats: bool,
    position: PositionSpec,
    game: Game,
    /// `None` while a search thread owns it.
    searcher: Option<Searcher>,
    running: Option<Running>,
    /// Hash size the searcher currently has; differs from `hash_mb` until applied.
    searcher_hash_mb: usize,
    clear_pending: bool,
}

impl Shell {
    fn new(output: Box<dyn Write + Send>) -> Shell {
        let params = Params::default();
        let hash_mb = DEFAULT_HASH_MB as usize;
        Shell {
            out: Out(Arc::new(Mutex::new(output))),
            searcher: Some(Searcher::new(params.clone(), hash_mb)),
            params,
            hash_mb,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS as u64,
            chess960: false,
            search_stats: false,
            position: PositionSpec::default(),
            game: Game::new(Position::startpos()),
            running: None,
            searcher_hash_mb: hash_mb,
            clear_pending: false,
        }
    }

    /// Handles one command line; returns false on `quit`.
    fn handle(&mut self, line: &str) -> bool {
        self.reap_finished_search();
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return true;
        };
        let result = match command {
            "uci" => {
                self.cmd_uci();
                Ok(())
            }
            "isready" => {
                self.apply_pending_if_idle();
                self.out.text("readyok");
                Ok(())
            }
            "ucinewgame" => {
                self.clear_pending = true;
                self.apply_pending_if_idle();
                Ok(())
            }
            "setoption" => self.cmd_setoption(args),
            "position" => self.cmd_position(args),
            "go" => self.cmd_go(args),
            "stop" => {
                self.stop_search();
                Ok(())
            }
            "ponderhit" => {
                if let Some(r) = &self.running {
                    r.control.pondering.store(false, Ordering::SeqCst);
                }
                Ok(())
            }
            "quit" => {
                self.stop_search();
                return false;
            }
            // Accepted and ignored, as the protocol allows.
            "debug" | "register" => Ok(()),
            "d" => {
                self.cmd_d();
                Ok(())
            }
            "eval" => {
                self.cmd_eval();
                Ok(())
            }
            "params" => {
                self.out.text(&self.params.openbench_lines());
                Ok(())
            }
            "bench" => self.cmd_bench(args),
            other => Err(format!(
                "unknown command '{other}' (known: uci, isready, ucinewgame, setoption, position, go, stop, ponderhit, quit, d, eval, params, bench)"
            )),
        };
        if let Err(message) = result {
            self.out.error(&message);
        }
        true
    }

    fn finish_at_end_of_input(&mut self) {
        if let Some(r) = self.running.as_ref().filter(|r| r.waits_for_stop()) {
            r.control.stop.store(true, Ordering::SeqCst);
        }
        self.join_search();
    }

    /// Commands that need the searcher or the CPU (`go`, `bench`, `go perft`) wait
    /// for a search that will end by itself, so scripts can pipe commands without
    /// waiting for `bestmove`; an infinite or pondering search must be stopped first.
    fn wait_for_finite_search(&mut self, command: &str) -> Result<(), String> {
        match &self.running {
            Some(r) if r.waits_for_stop() => Err(format!(
                "an infinite or pondering search is running: send 'stop' before '{command}'"
            )),
            Some(_) => {
                self.join_search();
                Ok(())
            }
            None => Ok(()),
        }
    }

    // --- search thread management -------------------------------------------------

    fn reap_finished_search(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.handle.is_finished())
        {
            self.join_search();
        }
    }

    /// Waits for the running search (if any) and takes the searcher back.
    fn join_search(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    self.out
                        .error("the search thread panicked; starting a fresh searcher");
                    self.searcher = Some(Searcher::new(self.params.clone(), self.hash_mb));
                    self.searcher_hash_mb = self.hash_mb;
                }
            }
        }
    }

    fn stop_search(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop.store(true, Ordering::SeqCst);
        }
        self.join_search();
    }

    /// Hands queued option changes to the searcher when no search owns it.
    fn apply_pending_if_idle(&mut self) {
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        if searcher.params() != &self.params {
            searcher.set_params(self.params.clone());
        }
        if self.searcher_hash_mb != self.hash_mb {
            searcher.set_hash_mb(self.hash_mb);
            self.searcher_hash_mb = self.hash_mb;
        }
        if self.clear_pending {
            searcher.clear();
            self.clear_pending = false;
        }
    }

    // --- uci / setoption ------------------------------------------------------------

    fn cmd_uci(&self) {
        let mut text = format!(
            "id name Occam {}\nid author The Occam developers\n",
            env!("CARGO_PKG_VERSION")
        );
        for line in option_lines() {
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str("uciok");
        self.out.text(&text);
    }

    fn cmd_setoption(&mut self, args: &[&str]) -> Result<(), String> {
        const USAGE: &str = "expected 'setoption name <option> [value <value>]'";
        if args.first() != Some(&"name") || args.len() < 2 {
            return Err(format!("malformed setoption: {USAGE}"));
        }
        let value_at = args.iter().position(|t| *t == "value");
        let name_end = value_at.unwrap_or(args.len());
        let name = args[1..name_end].join(" ");
        if name.is_empty() {
            return Err(format!("setoption without an option name: {USAGE}"));
        }
        let value = value_at.map(|i| args[i + 1..].join(" "));

        if let Some(&(canonical, kind)) = ENGINE_OPTIONS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            return self.set_engine_option(canonical, kind, value.as_deref());
        }
        if let Some(index) = params::index_of_ignore_case(&name) {
            let spec = &PARAM_SPECS[index];
            let text = value.ok_or_else(|| {
                format!(
                    "option '{}' needs a value: an integer from {} to {}",
                    spec.name, spec.min, spec.max
                )
            })?;
            let mut next = self.params.clone();
            return match next.set_by_name(spec.name, &text) {
                Ok(()) => {
                    self.params = next;
                    self.apply_pending_if_idle();
                    Ok(())
                }
                Err(params::ParamError::Frozen(n)) => Err(format!(
                    "parameter '{n}' is a compile-time constant in this frozen build (build without --features frozen to change it)"
                )),
                Err(e) => Err(e.to_string()),
            };
        }
        Err(format!(
            "unknown option '{name}' (send 'uci' for the list of options)"
        ))
    }

    fn set_engine_option(
        &mut self,
        name: &'static str,
        kind: OptionKind,
        value: Option<&str>,
    ) -> Result<(), String> {
        match kind {
            OptionKind::Button => {
                if name == OPT_CLEAR_HASH {
                    self.clear_pending = true;
                }
            }
            OptionKind::Spin { min, max, .. } => {
                let text = value.unwrap_or("");
                let v: i64 = text
                    .parse()
                    .ok()
                    .filter(|v| (min..=max).contains(v))
                    .ok_or_else(|| {
                        format!(
                            "option '{name}' takes an integer from {min} to {max}, got '{text}'"
                        )
                    })?;
                match name {
                    OPT_HASH => {
                        // An allocation failure would abort the process: probe first.
                        if Vec::<u8>::new()
                            .try_reserve_exact((v as usize) << 20)
                            .is_err()
                        {
                            return Err(format!(
                                "cannot allocate {v} MB for the hash table on this machine; Hash stays {} MB",
                                self.hash_mb
                            ));
                        }
                        self.hash_mb = v as usize
                    }
                    OPT_MOVE_OVERHEAD => self.move_overhead_ms = v as u64,
                    _ => {} // Threads: only 1 is allowed, nothing to change.
                }
            }
            OptionKind::Check { .. } => {
                let text = value.unwrap_or("");
                let on = match text.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!("option '{name}' takes true or false, got '{text}'"));
                    }
                };
                match name {
                    OPT_CHESS960 => self.set_chess960(on),
                    OPT_SEARCH_STATS => self.search_stats = on,
                    _ => {} // Ponder: the GUI tells us when to ponder with `go ponder`.
                }
            }
        }
        self.apply_pending_if_idle();
        Ok(())
    }

    /// Castling notation and FEN castling semantics follow the mode, so the current
    /// position is read again in the new mode.
    fn set_chess960(&mut self, on: bool) {
        if on == self.chess960 {
            return;
        }
        self.chess960 = on;
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

    // --- position ---------------------------------------------------------------------

    fn cmd_position(&mut self, args: &[&str]) -> Result<(), String> {
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
        self.game = spec.build(self.chess960)?;
        self.position = spec;
        Ok(())
    }

    // --- go -----------------------------------------------------------------------------

    fn cmd_go(&mut self, args: &[&str]) -> Result<(), String> {
        if args.first() == Some(&"perft") {
            return self.cmd_perft(&args[1..]);
        }
        self.wait_for_finite_search("go")?;
        let request = parse_go(args, &self.game.position, self.move_overhead_ms)?;
        self.apply_pending_if_idle();
        self.start_search(request);
        Ok(())
    }

    fn start_search(&mut self, request: GoRequest) {
        let mut searcher = self
            .searcher
            .take()
            .expect("no search is running, so the shell owns the searcher");
        let control = Arc::new(Control::default());
        control.pondering.store(request.ponder, Ordering::SeqCst);
        let infinite = request.limits.infinite;
        if !request.searchmoves.is_empty() {
            self.out.text(
                "info string searchmoves is not supported by this search; searching all moves",
            );
        }
        let game = self.game.clone();
        let out = self.out.clone();
        let stats = self.search_stats;
        let thread_control = Arc::clone(&control);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                search_thread(
                    &mut searcher,
                    &game,
                    &request.limits,
                    &thread_control,
                    &out,
                    stats,
                );
                searcher
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    control,
                    infinite,
                })
            }
            Err(e) => {
                // The searcher moved into the closure that was never run; start afresh.
                self.out
                    .error(&format!("cannot start the search thread: {e}"));
                self.searcher = Some(Searcher::new(self.params.clone(), self.hash_mb));
                self.searcher_hash_mb = self.hash_mb;
                self.out.text("bestmove 0000");
            }
        }
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
        self.wait_for_finite_search("go perft")?;
        let counts = perft::divide(&self.game.position, depth);
        let total: u64 = counts.iter().map(|(_, n)| n).sum();
        let mut text = String::new();
        for (mv, n) in counts {
            text.push_str(&format!("{mv}: {n}\n"));
        }
        text.push_str(&format!("\nNodes searched: {total}"));
        self.out.text(&text);
        Ok(())
    }

    // --- non-standard commands ---------------------------------------------------------

    fn cmd_d(&self) {
        self.out.text(&describe(&self.game.position));
    }

    fn cmd_eval(&self) {
        let mut evaluator = Evaluator::new(&self.params);
        let trace = evaluator.trace(&self.game.position);
        self.out.text(&trace.to_string());
    }

    fn cmd_bench(&mut self, args: &[&str]) -> Result<(), String> {
        self.wait_for_finite_search("bench")?;
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let mut buffer = Vec::new();
        bench::cli(&args, &self.params, &mut buffer)?;
        self.out.text(&String::from_utf8_lossy(&buffer));
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// go parsing
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct GoRequest {
    limits: Limits,
    ponder: bool,
    searchmoves: Vec<Move>,
}

const GO_KEYWORDS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

/// The integer after `keyword`, checked against `range`.
fn go_number(
    keyword: &str,
    token: Option<&&str>,
    min: i64,
    max: i64,
    what: &str,
) -> Result<i64, String> {
    let text = token.copied().unwrap_or("");
    let v: i64 = text.parse().map_err(|_| {
        if text.is_empty() {
            format!("'go {keyword}' needs a value: {what}")
        } else {
            format!("'go {keyword} {text}': expected {what}")
        }
    })?;
    if v < min || v > max {
        return Err(format!("'go {keyword} {text}': expected {what}"));
    }
    Ok(v)
}

fn parse_go(args: &[&str], root: &Position, move_overhead_ms: u64) -> Result<GoRequest, String> {
    const TIME: &str = "a non-negative number of milliseconds";
    let max_depth = MAX_PLY as i64 - 1;
    let mut limits = Limits {
        move_overhead_ms,
        ..Limits::default()
    };
    let mut ponder = false;
    let mut searchmoves = Vec::new();
    let (mut wtime, mut btime, mut winc, mut binc, mut movestogo) = (None, None, 0, 0, None);
    let mut i = 0;
    while i < args.len() {
        let keyword = args[i];
        let next = args.get(i + 1);
        let time = || go_number(keyword, next, 0, i64::MAX, TIME).map(|v| v as u64);
        match keyword {
            "depth" => {
                let what = format!("a depth from 1 to {max_depth}");
                limits.depth = Some(go_number(keyword, next, 1, max_depth, &what)? as u32);
            }
            "nodes" => {
                limits.nodes =
                    Some(go_number(keyword, next, 1, i64::MAX, "a positive node count")? as u64)
            }
            "movetime" => limits.movetime_ms = Some(time()?),
            "wtime" => wtime = Some(time()?),
            "btime" => btime = Some(time()?),
            "winc" => winc = time()?,
            "binc" => binc = time()?,
            "movestogo" => {
                movestogo =
                    Some(go_number(keyword, next, 1, 10_000, "a positive number of moves")? as u32)
            }
            "infinite" | "ponder" => {
                if keyword == "infinite" {
                    limits.infinite = true;
                } else {
                    ponder = true;
                }
                i += 1;
                continue;
            }
            "searchmoves" => {
                i += 1;
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    let m = root
                        .parse_uci_move(args[i])
                        .map_err(|e| format!("go searchmoves: {e}"))?;
                    searchmoves.push(m);
                    i += 1;
                }
                if searchmoves.is_empty() {
                    return Err("'go searchmoves' needs at least one legal move".into());
                }
                continue;
            }
            "perft" => return Err("'perft' must come first: 'go perft <depth>'".into()),
            other => {
                return Err(format!(
                    "unknown go parameter '{other}' (allowed: depth, nodes, movetime, wtime, btime, winc, binc, movestogo, infinite, ponder, searchmoves, perft)"
                ));
            }
        }
        i += 2;
    }
    let (time, inc) = match root.turn() {
        Color::White => (wtime, winc),
        Color::Black => (btime, binc),
    };
    limits.clock = time.map(|time_ms| Clock {
        time_ms,
        inc_ms: inc,
        movestogo,
    });
    Ok(GoRequest {
        limits,
        ponder,
        searchmoves,
    })
}

// ---------------------------------------------------------------------------
// The search thread and its output
// ---------------------------------------------------------------------------

fn search_thread(
    searcher: &mut Searcher,
    game: &Game,
    limits: &Limits,
    control: &Control,
    out: &Out,
    print_stats: bool,
) {
    let root = &game.position;
    searcher.reset_stats();
    let mut last_pv: Vec<Move> = Vec::new();
    let result = searcher.search(game, limits, control, &mut |info| {
        out.text(&info_line(root, info));
        last_pv.clone_from(&info.pv);
    });
    // The protocol forbids `bestmove` before `stop` in infinite mode, and before
    // `stop` or `ponderhit` while pondering, even if the search ended on its own.
    while !control.stop.load(Ordering::SeqCst)
        && (limits.infinite || control.pondering.load(Ordering::SeqCst))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    if print_stats {
        out.text(&format!("info string stats {}", searcher.stats()));
    }
    out.text(&bestmove_line(root, &result, &last_pv, out));
}

fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// `info depth … pv …` for one iteration. Castling is written in the root's mode,
/// which every position of a game shares.
fn info_line(root: &Position, info: &SearchInfo) -> String {
    let mut line = format!(
        "info depth {} seldepth {} score {} nodes {} nps {} hashfull {} time {}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.nodes,
        info.nps,
        info.hashfull,
        info.time_ms
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for &m in &info.pv {
            line.push(' ');
            line.push_str(&root.move_to_uci(m));
        }
    }
    line
}

/// `bestmove X [ponder Y]`, or `bestmove 0000` without a legal move. A move the
/// search returns is checked for legality before it is sent to the GUI.
fn bestmove_line(root: &Position, result: &SearchResult, last_pv: &[Move], out: &Out) -> String {
    let legal = root.legal_moves();
    let Some(&first_legal) = legal.first() else {
        return "bestmove 0000".into();
    };
    let best = match result.best_move {
        Some(m) if legal.contains(&m) => m,
        Some(m) => {
            out.error(&format!(
                "the search returned the illegal move {}; playing {} instead",
                root.move_to_uci(m),
                root.move_to_uci(first_legal)
            ));
            first_legal
        }
        None => first_legal,
    };
    let after = root.play(best);
    let ponder = result
        .ponder_move
        .or_else(|| {
            (last_pv.first() == Some(&best))
                .then(|| last_pv.get(1).copied())
                .flatten()
        })
        .filter(|p| after.legal_moves().contains(p));
    match ponder {
        Some(p) => format!(
            "bestmove {} ponder {}",
            root.move_to_uci(best),
            after.move_to_uci(p)
        ),
        None => format!("bestmove {}", root.move_to_uci(best)),
    }
}

/// The `d` command: the board, its FEN and its hash.
fn describe(pos: &Position) -> String {
    let board = pos.board().board();
    let mut text = String::from(" +---+---+---+---+---+---+---+---+\n");
    for rank in Rank::ALL.iter().rev() {
        text.push(' ');
        for file in File::ALL {
            let c = board
                .piece_at(Square::from_coords(file, *rank))
                .map_or(' ', |p| p.char());
            text.push_str(&format!("| {c} "));
        }
        text.push_str(&format!(
            "| {}\n +---+---+---+---+---+---+---+---+\n",
            rank.char()
        ));
    }
    text.push_str("   a   b   c   d   e   f   g   h\n\n");
    text.push_str(&format!("Fen: {}\n", pos.fen()));
    text.push_str(&format!("Key: {:016X}\n", pos.hash()));
    let checkers: Vec<String> = pos
        .board()
        .checkers()
        .into_iter()
        .map(|sq| sq.to_string())
        .collect();
    text.push_str(&format!(
        "Side to move: {}\nCheckers: {}",
        pos.turn(),
        if checkers.is_empty() {
            "none".to_string()
        } else {
            checkers.join(" ")
        }
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_of_the_side_to_move_is_used() {
        let args = [
            "wtime",
            "1000",
            "btime",
            "2000",
            "winc",
            "10",
            "binc",
            "20",
            "movestogo",
            "7",
        ];
        let white = parse_go(&args, &Position::startpos(), 30).unwrap();
        let clock = white.limits.clock.unwrap();
        assert_eq!(
            (clock.time_ms, clock.inc_ms, clock.movestogo),
            (1000, 10, Some(7))
        );
        assert_eq!(white.limits.move_overhead_ms, 30);
        let black_to_move =
            Position::startpos().play(Position::startpos().parse_uci_move("e2e4").unwrap());
        let black = parse_go(&args, &black_to_move, 30).unwrap();
        let clock = black.limits.clock.unwrap();
        assert_eq!((clock.time_ms, clock.inc_ms), (2000, 20));
    }

    #[test]
    fn go_keywords_combine() {
        let req = parse_go(
            &[
                "infinite",
                "depth",
                "5",
                "nodes",
                "100",
                "searchmoves",
                "e2e4",
                "d2d4",
                "movetime",
                "50",
            ],
            &Position::startpos(),
            0,
        )
        .unwrap();
        assert!(req.limits.infinite && !req.ponder);
        assert_eq!(req.limits.depth, Some(5));
        assert_eq!(req.limits.nodes, Some(100));
        assert_eq!(req.limits.movetime_ms, Some(50));
        assert_eq!(req.searchmoves.len(), 2);
        assert!(
            parse_go(&["ponder"], &Position::startpos(), 0)
                .unwrap()
                .ponder
        );
    }

    #[test]
    fn info_lines_carry_every_field_and_mate_scores() {
        let root = Position::startpos();
        let e4 = root.parse_uci_move("e2e4").unwrap();
        let info = SearchInfo {
            depth: 7,
            seldepth: 11,
            score: Score::Mate(-3),
            nodes: 1234,
            nps: 5678,
            hashfull: 12,
            time_ms: 90,
            pv: vec![e4],
        };
        assert_eq!(
            info_line(&root, &info),
            "info depth 7 seldepth 11 score mate -3 nodes 1234 nps 5678 hashfull 12 time 90 pv e2e4"
        );
    }

    #[test]
    fn one_option_per_parameter_after_the_standard_ones() {
        let lines = option_lines();
        assert_eq!(lines.len(), ENGINE_OPTIONS.len() + PARAM_SPECS.len());
        for (line, spec) in lines[ENGINE_OPTIONS.len()..].iter().zip(PARAM_SPECS.iter()) {
            assert_eq!(
                line,
                &format!(
                    "option name {} type spin default {} min {} max {}",
                    spec.name, spec.value, spec.min, spec.max
                )
            );
        }
    }
}
