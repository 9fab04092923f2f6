//! The UCI protocol shell around the search library.
//!
//! A reader thread turns stdin into lines; the command loop takes lines and "task
//! finished" messages from one channel and never waits on a search. A search (or
//! `bench`, `go perft`, `genfens`) runs on a worker thread, taking the [`Searcher`] with it and
//! handing it back when done. While it runs, `isready`, `uci`, `stop`, `ponderhit`
//! and `quit` are answered at once; commands that change or read the state wait in
//! a queue and are applied, in order, when it ends (the README has the table). With
//! `go infinite` or while pondering, the shell holds the finished search's `bestmove`
//! until `stop`/`ponderhit`: the search itself knows nothing of the protocol.
//!
//! Bad input of any kind gets exactly one `info string error: …` line naming what was
//! wrong and what is allowed; the state stays as it was.

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::{Color, File, Move, Position as _, Rank, Square};

use crate::bench;
use crate::eval::Evaluator;
use crate::genfens;
use crate::params::{self, PARAM_SPECS, Params};
use crate::perft;
use crate::position::{Game, Position, START_FEN};
use crate::score::{MAX_PLY, Score};
use crate::search::{
    Clock, Control, Limits, MAX_MULTI_PV, MAX_THREADS, SEARCH_STACK_BYTES, SearchInfo,
    SearchResult, Searcher,
};
use crate::tablebase::{self, MAX_PROBE_LIMIT, ProbeSettings, Tablebases};

// ---------------------------------------------------------------------------
// Engine options (besides the tunable parameters, which are generated from PARAM_SPECS)
// ---------------------------------------------------------------------------

const OPT_HASH: &str = "Hash";
const OPT_THREADS: &str = "Threads";
const OPT_MULTI_PV: &str = "MultiPV";
const OPT_CLEAR_HASH: &str = "Clear Hash";
const OPT_MOVE_OVERHEAD: &str = "Move Overhead";
const OPT_PONDER: &str = "Ponder";
const OPT_CHESS960: &str = "UCI_Chess960";
const OPT_SEARCH_STATS: &str = "SearchStats";
const OPT_SYZYGY_PATH: &str = "SyzygyPath";
const OPT_SYZYGY_PROBE_DEPTH: &str = "SyzygyProbeDepth";
const OPT_SYZYGY_PROBE_LIMIT: &str = "SyzygyProbeLimit";
const OPT_SYZYGY_50_MOVE_RULE: &str = "Syzygy50MoveRule";

const DEFAULT_HASH_MB: i64 = 16;
const MAX_HASH_MB: i64 = 65_536;
const DEFAULT_MOVE_OVERHEAD_MS: i64 = 10;
const MAX_MOVE_OVERHEAD_MS: i64 = 5_000;
/// Longest mate `go mate` may ask for (in moves; the search reaches MAX_PLY plies).
const MAX_MATE_MOVES: i64 = MAX_PLY as i64 / 2 - 8;
/// Deepest `go perft` accepted (perft 7 of the start position is already 3.2 billion leaves).
const MAX_PERFT_DEPTH: u32 = 10;
/// Commands kept while a search runs; more are refused (a flood must not eat the memory).
const MAX_QUEUED_COMMANDS: usize = 10_000;
/// Longest input line kept (a long game's `position … moves` is a few kB); longer
/// lines are skipped, so endless input without a newline cannot exhaust memory.
const MAX_LINE_BYTES: u64 = 1 << 20;
/// How long `quit` waits for a stopped search to hand over its `bestmove`.
const QUIT_GRACE: Duration = Duration::from_secs(2);

#[derive(Clone, Copy)]
enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Button,
    String { default: &'static str },
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
            max: MAX_THREADS as i64,
        },
    ),
    (
        OPT_MULTI_PV,
        OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_MULTI_PV as i64,
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
    (
        OPT_SYZYGY_PATH,
        OptionKind::String {
            default: tablebase::EMPTY_PATH,
        },
    ),
    (
        OPT_SYZYGY_PROBE_DEPTH,
        OptionKind::Spin {
            default: 1,
            min: 1,
            max: MAX_PLY as i64,
        },
    ),
    (
        OPT_SYZYGY_PROBE_LIMIT,
        OptionKind::Spin {
            default: MAX_PROBE_LIMIT as i64,
            min: 0,
            max: MAX_PROBE_LIMIT as i64,
        },
    ),
    (OPT_SYZYGY_50_MOVE_RULE, OptionKind::Check { default: true }),
];

fn option_line(name: &str, kind: OptionKind) -> String {
    match kind {
        OptionKind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        OptionKind::Check { default } => format!("option name {name} type check default {default}"),
        OptionKind::Button => format!("option name {name} type button"),
        OptionKind::String { default } => {
            format!("option name {name} type string default {default}")
        }
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
        // One printable line, whatever the message holds (it may quote raw input).
        let one_line = message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(char::is_control, "?");
        self.text(&format!("info string error: {one_line}"));
    }
}

// ---------------------------------------------------------------------------
// The command loop
// ---------------------------------------------------------------------------

/// What the command loop reacts to: input lines (from the reader thread) and the end
/// of a search or job (from its worker thread).
enum Event {
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`], skipped unread.
    LineTooLong,
    EndOfInput,
    Finished(Box<Finished>),
}

/// What a worker thread hands back when it ends.
struct Finished {
    /// The searcher a search took with it (`None` for `bench`/`go perft`, and after a
    /// panic, when the shell starts a fresh one).
    searcher: Option<Searcher>,
    /// What to print now that it is over (a search: `bestmove …`; a job: its report).
    text: String,
}

/// Runs the UCI loop until `quit`, or until end of input and everything it asked
/// for is done: a search with a limit finishes and queued commands run (so
/// `echo "go depth 8" | occam` works); a search only `stop` would end (infinite,
/// pondering, or without any limit) is stopped.
///
/// A reader thread only reads lines; this loop never waits on a search, so `isready`,
/// `stop` and `quit` are answered at any time (see the README table for what each
/// command does while a search runs).
pub fn run(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) {
    let (sender, events) = mpsc::channel();
    let mut shell = Shell::new(Box::new(output), sender.clone(), events);
    let reader = std::thread::Builder::new()
        .name("input".into())
        .spawn(move || read_lines(input, &sender));
    if let Err(e) = reader {
        shell
            .out
            .error(&format!("cannot start the input thread: {e}"));
        return;
    }
    while let Ok(event) = shell.events.recv() {
        let go_on = match event {
            Event::Line(line) => shell.handle(&line),
            Event::LineTooLong => {
                shell.out.error(&format!(
                    "a line longer than {MAX_LINE_BYTES} bytes was ignored (commands are one line each)"
                ));
                true
            }
            Event::EndOfInput => {
                shell.input_closed = true;
                true
            }
            Event::Finished(finished) => shell.finished(finished),
        };
        if !go_on || shell.done_after_end_of_input() {
            return;
        }
    }
}

/// The reader thread: every line (invalid UTF-8 becomes an unknown command, not the
/// end of the session; a line over [`MAX_LINE_BYTES`] is skipped), then `EndOfInput`.
fn read_lines(mut input: impl BufRead, events: &Sender<Event>) {
    let mut bytes = Vec::new();
    let mut too_long = false;
    loop {
        bytes.clear();
        match (&mut input)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut bytes)
        {
            Ok(0) | Err(_) => break,
            Ok(_) if bytes.last() != Some(&b'\n') && bytes.len() as u64 == MAX_LINE_BYTES => {
                // Read on to the end of this line without keeping it.
                too_long = true;
            }
            Ok(_) => {
                let event = if std::mem::take(&mut too_long) {
                    Event::LineTooLong
                } else {
                    Event::Line(String::from_utf8_lossy(&bytes).into_owned())
                };
                if events.send(event).is_err() {
                    return;
                }
            }
        }
    }
    if too_long {
        let _ = events.send(Event::LineTooLong);
    }
    let _ = events.send(Event::EndOfInput);
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

/// What runs on the worker thread.
enum Task {
    Search(SearchTask),
    /// `bench` or `go perft`: runs to its end (only `quit` cuts it short).
    Job,
    /// `genfens`: `stop` ends it after the position it is on; `quit` waits for it
    /// (OpenBench sends `quit` right after `genfens` and needs every line).
    Genfens(Arc<Control>),
}

struct SearchTask {
    control: Arc<Control>,
    /// `go infinite`: `bestmove` only after `stop`.
    infinite: bool,
    /// No depth, node, time or clock limit: in practice only `stop` ends it.
    unbounded: bool,
    /// `stop` was sent: every other command waits until `bestmove` is out, so a GUI
    /// that sends `stop` then `isready` reads `bestmove` first.
    stopping: bool,
    /// What a search that ended by itself while infinite or pondering prints: the
    /// protocol withholds `bestmove` until `stop` (or `ponderhit`).
    held: Option<String>,
}

impl SearchTask {
    fn waits_for_stop(&self) -> bool {
        self.infinite || self.control.pondering.load(Ordering::SeqCst)
    }
}

/// Commands that wait for the running search or job and are then applied in order.
const QUEUED_COMMANDS: &[&str] = &[
    "ucinewgame",
    "setoption",
    "position",
    "go",
    "d",
    "eval",
    "params",
    "bench",
    "genfens",
];

fn unknown_command(command: &str) -> String {
    format!(
        "unknown command '{command}' (known: uci, isready, ucinewgame, setoption, position, go, stop, ponderhit, quit, d, eval, params, bench, genfens)"
    )
}

/// The engine state the commands act on.
struct Shell {
    out: Out,
    /// Input lines and finished tasks arrive here; workers get clones of `sender`.
    events: Receiver<Event>,
    sender: Sender<Event>,
    /// The parameters the next search uses.
    params: Params,
    hash_mb: usize,
    threads: usize,
    multi_pv: usize,
    move_overhead_ms: u64,
    chess960: bool,
    search_stats: bool,
    /// The tables of `SyzygyPath` (`None`: no path set) and how the search uses them.
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    position: PositionSpec,
    game: Game,
    /// `None` while a search thread owns it.
    searcher: Option<Searcher>,
    task: Option<Task>,
    /// Commands received while a task runs, applied in order when it ends.
    queue: VecDeque<String>,
    input_closed: bool,
    /// Hash size the searcher currently has; differs from `hash_mb` until applied.
    searcher_hash_mb: usize,
    clear_pending: bool,
}

impl Shell {
    fn new(output: Box<dyn Write + Send>, sender: Sender<Event>, events: Receiver<Event>) -> Shell {
        let params = Params::default();
        let hash_mb = DEFAULT_HASH_MB as usize;
        Shell {
            out: Out(Arc::new(Mutex::new(output))),
            events,
            sender,
            searcher: Some(Searcher::new(params.clone(), hash_mb)),
            params,
            hash_mb,
            threads: 1,
            multi_pv: 1,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS as u64,
            chess960: false,
            search_stats: false,
            tablebases: None,
            tb_settings: ProbeSettings::default(),
            position: PositionSpec::default(),
            game: Game::new(Position::startpos()),
            task: None,
            queue: VecDeque::new(),
            input_closed: false,
            searcher_hash_mb: hash_mb,
            clear_pending: false,
        }
    }

    /// Handles one command line; returns false when the loop must end (`quit`).
    fn handle(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return true;
        };
        if self.task.is_some() {
            return self.handle_while_busy(command, line);
        }
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
            // Nothing runs: nothing to stop, as the protocol allows.
            "stop" | "ponderhit" => Ok(()),
            "quit" => return false,
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
            "genfens" => self.cmd_genfens(args),
            other => Err(unknown_command(other)),
        };
        if let Err(message) = result {
            self.out.error(&message);
        }
        true
    }

    /// A command while a search or job runs: answered at once, queued, or refused;
    /// never waits. Returns false on `quit`.
    fn handle_while_busy(&mut self, command: &str, line: &str) -> bool {
        let stopping = matches!(&self.task, Some(Task::Search(s)) if s.stopping);
        let genfens = matches!(&self.task, Some(Task::Genfens(_)));
        match command {
            // Waits its turn, never dropped, even when the queue is full.
            "quit" if genfens => self.queue.push_back(line.to_string()),
            "quit" => {
                self.quit();
                return false;
            }
            _ if stopping => self.enqueue(line),
            "isready" => self.out.text("readyok"),
            "uci" => self.cmd_uci(),
            "stop" => return self.stop(),
            "ponderhit" => return self.ponderhit(),
            "debug" | "register" => {}
            c if QUEUED_COMMANDS.contains(&c) => self.enqueue(line),
            other => self.out.error(&unknown_command(other)),
        }
        true
    }

    fn enqueue(&mut self, line: &str) {
        if self.queue.len() >= MAX_QUEUED_COMMANDS {
            let shown: String = line.trim().chars().take(40).collect();
            self.out.error(&format!(
                "{MAX_QUEUED_COMMANDS} commands already wait for the running search, bench, perft or genfens; '{shown}' is dropped (send 'stop' or wait for bestmove)"
            ));
            return;
        }
        self.queue.push_back(line.to_string());
    }

    // --- tasks: start, end, stop ------------------------------------------------------

    /// `stop`: a running search is told to stop (its `bestmove` follows when it has);
    /// a held `bestmove` is sent now; `genfens` ends after the position it is on.
    /// `bench` and `go perft` run to their end.
    fn stop(&mut self) -> bool {
        match &mut self.task {
            Some(Task::Search(s)) if s.held.is_some() => return self.release_held(),
            Some(Task::Search(s)) => {
                s.control.stop.store(true, Ordering::SeqCst);
                s.stopping = true;
            }
            Some(Task::Genfens(control)) => control.stop.store(true, Ordering::SeqCst),
            Some(Task::Job) | None => {}
        }
        true
    }

    /// `ponderhit`: the pondering search now keeps to its clock; if it has already
    /// ended, its `bestmove` is sent now (unless it is also `infinite`).
    fn ponderhit(&mut self) -> bool {
        if let Some(Task::Search(s)) = &mut self.task {
            s.control.pondering.store(false, Ordering::SeqCst);
            if s.held.is_some() && !s.infinite {
                return self.release_held();
            }
        }
        true
    }

    /// `quit`: a running search is stopped and its `bestmove` sent before exiting
    /// (waiting at most [`QUIT_GRACE`]); `bench`/`go perft` and queued commands are
    /// dropped, except that every queued `isready` is still answered: a GUI that sent
    /// `stop`, `isready`, `quit` gets its `bestmove` and then its `readyok`.
    /// (During `genfens`, `quit` is queued instead: see [`Shell::handle_while_busy`].)
    fn quit(&mut self) {
        self.stop_for_quit();
        let ready = self
            .queue
            .iter()
            .filter(|line| line.split_whitespace().next() == Some("isready"))
            .count();
        for _ in 0..ready {
            self.out.text("readyok");
        }
        self.queue.clear();
    }

    /// The search part of `quit`: stop it and send its `bestmove`.
    fn stop_for_quit(&mut self) {
        let Some(Task::Search(s)) = self.task.take() else {
            return;
        };
        if let Some(text) = s.held {
            self.out.text(&text);
            return;
        }
        s.control.stop.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + QUIT_GRACE;
        loop {
            match self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Event::Finished(f)) => {
                    self.out.text(&f.text);
                    return;
                }
                // Input after `quit` is ignored.
                Ok(Event::Line(_) | Event::LineTooLong | Event::EndOfInput) => {}
                Err(_) => return,
            }
        }
    }

    /// A worker ended: take the searcher back, then print its output, or hold a
    /// search's `bestmove` while the protocol says to wait for `stop`/`ponderhit`.
    fn finished(&mut self, finished: Box<Finished>) -> bool {
        match finished.searcher {
            Some(searcher) => self.searcher = Some(searcher),
            None if self.searcher.is_none() => self.fresh_searcher(),
            None => {}
        }
        match &mut self.task {
            Some(Task::Search(s)) if !s.stopping && s.waits_for_stop() => {
                s.held = Some(finished.text);
                true
            }
            _ => {
                self.out.text(&finished.text);
                self.end_task()
            }
        }
    }

    fn release_held(&mut self) -> bool {
        if let Some(Task::Search(s)) = &mut self.task
            && let Some(text) = s.held.take()
        {
            self.out.text(&text);
        }
        self.end_task()
    }

    /// The task is over: apply the queued commands in order (a queued `go` starts the
    /// next task, and the commands after it wait for that one).
    fn end_task(&mut self) -> bool {
        self.task = None;
        for line in std::mem::take(&mut self.queue) {
            if !self.handle(&line) {
                return false;
            }
        }
        true
    }

    /// After end of input: sends a held `bestmove`, stops a search only `stop` would
    /// end, and says whether everything is done (then the loop ends).
    fn done_after_end_of_input(&mut self) -> bool {
        if !self.input_closed {
            return false;
        }
        loop {
            match &mut self.task {
                None => return true,
                Some(Task::Search(s)) if s.held.is_some() => {
                    if !self.release_held() {
                        return true;
                    }
                }
                Some(Task::Search(s)) => {
                    if !s.stopping && (s.unbounded || s.waits_for_stop()) {
                        s.control.stop.store(true, Ordering::SeqCst);
                        s.stopping = true;
                    }
                    return false;
                }
                Some(Task::Job | Task::Genfens(_)) => return false,
            }
        }
    }

    fn fresh_searcher(&mut self) {
        let mut searcher = Searcher::new(self.params.clone(), self.hash_mb);
        let _ = searcher.set_threads(self.threads);
        self.searcher = Some(searcher);
        self.searcher_hash_mb = self.hash_mb;
        self.clear_pending = false;
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
        if searcher.threads() != self.threads {
            // In range: checked when the option was set.
            let _ = searcher.set_threads(self.threads);
        }
        if self.clear_pending {
            searcher.clear();
            self.clear_pending = false;
        }
    }

    /// Runs `job` (bench, perft) on a worker thread; its text is printed when it ends.
    fn start_job(&mut self, job: impl FnOnce() -> Result<String, String> + Send + 'static) {
        self.start_worker(Task::Job, "bench/perft", job);
    }

    /// Runs `job` on a worker thread as `task`; its text (or its error) is printed when
    /// it ends. `name` says which command panicked, should one.
    fn start_worker(
        &mut self,
        task: Task,
        name: &'static str,
        job: impl FnOnce() -> Result<String, String> + Send + 'static,
    ) {
        let out = self.out.clone();
        let events = self.sender.clone();
        let spawned = worker_thread("job").spawn(move || {
            let text = match std::panic::catch_unwind(AssertUnwindSafe(job)) {
                Ok(Ok(text)) => text,
                Ok(Err(message)) => {
                    out.error(&message);
                    String::new()
                }
                Err(_) => {
                    out.error(&format!("the {name} thread panicked"));
                    String::new()
                }
            };
            let _ = events.send(Event::Finished(Box::new(Finished {
                searcher: None,
                text,
            })));
        });
        match spawned {
            Ok(_) => self.task = Some(task),
            Err(e) => self
                .out
                .error(&format!("cannot start a worker thread: {e}")),
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
        let index = params::index_of_ignore_case(&name).or_else(|| {
            // An old parameter name still works, with a note (GUI configurations and
            // tuning scripts written before a rename).
            let current = occam_params::renamed(&name.to_ascii_lowercase())?;
            self.out.text(&format!(
                "info string note: {}",
                occam_params::rename_note(&name, current)
            ));
            params::index_of(current)
        });
        if let Some(index) = index {
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
                    OPT_THREADS => self.threads = v as usize,
                    OPT_MULTI_PV => self.multi_pv = v as usize,
                    OPT_SYZYGY_PROBE_DEPTH => self.tb_settings.depth = v as i32,
                    OPT_SYZYGY_PROBE_LIMIT => self.tb_settings.limit = v as u32,
                    _ => {}
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
                    OPT_SYZYGY_50_MOVE_RULE => self.tb_settings.rule50 = on,
                    _ => {} // Ponder: the GUI tells us when to ponder with `go ponder`.
                }
            }
            OptionKind::String { .. } => {
                // SyzygyPath, the one string option.
                self.set_syzygy_path(value.unwrap_or(""))?;
            }
        }
        self.apply_pending_if_idle();
        Ok(())
    }

    /// Opens the tables of a `SyzygyPath` value (checked now, so a bad path is one
    /// error line at `setoption`, not a surprise in the middle of a game). On an error
    /// the tables in use, if any, stay.
    fn set_syzygy_path(&mut self, value: &str) -> Result<(), String> {
        match Tablebases::open(value) {
            Ok(Some(tables)) => {
                self.out.text(&format!("info string {}", tables.summary()));
                self.tablebases = Some(Arc::new(tables));
                Ok(())
            }
            Ok(None) => {
                self.tablebases = None;
                Ok(())
            }
            Err(e) => Err(match &self.tablebases {
                Some(kept) => format!(
                    "SyzygyPath: {e}; the tables in use stay ({})",
                    kept.summary()
                ),
                None => format!("SyzygyPath: {e}; no tablebases are in use"),
            }),
        }
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
        let mut request = parse_go(args, &self.game.position, self.move_overhead_ms)?;
        request.limits.multi_pv = self.multi_pv;
        if let Some(note) = &request.note {
            self.out.text(&format!("info string {note}"));
        }
        self.apply_pending_if_idle();
        self.start_search(request);
        Ok(())
    }

    fn start_search(&mut self, request: GoRequest) {
        let Some(mut searcher) = self.searcher.take() else {
            // Unreachable: a search is only started when no task runs.
            self.out
                .error("no searcher available; the search is not started");
            return;
        };
        searcher.set_tablebases(self.tablebases.clone(), self.tb_settings);
        let control = Arc::new(Control::default());
        control.pondering.store(request.ponder, Ordering::SeqCst);
        let limits = request.limits;
        let infinite = limits.infinite;
        let unbounded = limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.movetime_ms.is_none()
            && limits.clock.is_none();
        let game = self.game.clone();
        let out = self.out.clone();
        let events = self.sender.clone();
        let stats = self.search_stats;
        let thread_control = Arc::clone(&control);
        let spawned = worker_thread("search").spawn(move || {
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                search_and_report(&mut searcher, &game, &limits, &thread_control, &out, stats)
            }));
            let (searcher, text) = match run {
                Ok(text) => (Some(searcher), text),
                Err(_) => {
                    out.error("the search thread panicked; starting a fresh searcher");
                    (None, fallback_bestmove(&game.position))
                }
            };
            let _ = events.send(Event::Finished(Box::new(Finished { searcher, text })));
        });
        match spawned {
            Ok(_) => {
                self.task = Some(Task::Search(SearchTask {
                    control,
                    infinite,
                    unbounded,
                    stopping: false,
                    held: None,
                }))
            }
            Err(e) => {
                // The searcher moved into the closure that was never run; start afresh.
                self.out
                    .error(&format!("cannot start the search thread: {e}"));
                self.fresh_searcher();
                self.out.text(&fallback_bestmove(&self.game.position));
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
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        // Bad arguments are reported now, before anything runs.
        bench::parse_args(&args)?;
        let params = self.params.clone();
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
    fn cmd_genfens(&mut self, args: &[&str]) -> Result<(), String> {
        let request = genfens::parse_args(args)?;
        let params = self.params.clone();
        let chess960 = self.chess960;
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

/// A thread for a search or a job: the search recurses up to MAX_PLY deep.
fn worker_thread(name: &str) -> std::thread::Builder {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(SEARCH_STACK_BYTES)
}

// ---------------------------------------------------------------------------
// go parsing
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct GoRequest {
    limits: Limits,
    ponder: bool,
    /// Said to the GUI as `info string` (e.g. a clock without the side to move's time).
    note: Option<String>,
}

/// Every keyword of `go` (what ends a `searchmoves` list; the fuzzer draws from it).
pub const GO_KEYWORDS: &[&str] = &[
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
    "mate",
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
                    limits.searchmoves.push(m);
                    i += 1;
                }
                if limits.searchmoves.is_empty() {
                    return Err("'go searchmoves' needs at least one legal move".into());
                }
                continue;
            }
            "mate" => {
                let what = format!("a number of moves from 1 to {MAX_MATE_MOVES}");
                limits.mate = Some(go_number(keyword, next, 1, MAX_MATE_MOVES, &what)? as u32);
            }
            "perft" => return Err("'perft' must come first: 'go perft <depth>'".into()),
            other => {
                return Err(format!(
                    "unknown go parameter '{other}' (allowed: {})",
                    GO_KEYWORDS.join(", ")
                ));
            }
        }
        i += 2;
    }
    let (time, inc, other_time, name) = match root.turn() {
        Color::White => (wtime, winc, btime, "wtime"),
        Color::Black => (btime, binc, wtime, "btime"),
    };
    limits.clock = time.map(|time_ms| Clock {
        time_ms,
        inc_ms: inc,
        movestogo,
    });
    // As Stockfish: only the opponent's clock given means no time limit for us.
    let note = (time.is_none() && other_time.is_some()).then(|| {
        format!(
            "no {name} for {} to move: this clock sets no limit, searching until 'stop' or another limit",
            root.turn()
        )
    });
    Ok(GoRequest {
        limits,
        ponder,
        note,
    })
}

// ---------------------------------------------------------------------------
// The search thread and its output
// ---------------------------------------------------------------------------

/// Runs one search, streaming its `info` lines; returns what is printed when the
/// shell lets the result out (`info string stats …` if asked, then `bestmove …`).
fn search_and_report(
    searcher: &mut Searcher,
    game: &Game,
    limits: &Limits,
    control: &Control,
    out: &Out,
    print_stats: bool,
) -> String {
    let root = &game.position;
    searcher.reset_stats();
    let mut last_pv: Vec<Move> = Vec::new();
    let multi_pv = limits.multi_pv > 1;
    let result = searcher.search(game, limits, control, &mut |info| {
        out.text(&info_line(root, info, multi_pv));
        if info.multipv <= 1 {
            last_pv.clone_from(&info.pv);
        }
    });
    let mut text = String::new();
    if print_stats {
        text.push_str(&format!("info string stats {}\n", searcher.stats()));
    }
    text.push_str(&bestmove_line(root, &result, &last_pv, out));
    text
}

/// `bestmove` when no search result exists: the first legal move, or `0000`.
fn fallback_bestmove(root: &Position) -> String {
    match root.legal_moves().first() {
        Some(&m) => format!("bestmove {}", root.move_to_uci(m)),
        None => "bestmove 0000".into(),
    }
}

fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// `info depth … pv …` for one iteration (one line of it under MultiPV, then with
/// `multipv k`). Castling is written in the root's mode, which every position of a
/// game shares.
fn info_line(root: &Position, info: &SearchInfo, multi_pv: bool) -> String {
    let multipv = if multi_pv {
        format!(" multipv {}", info.multipv)
    } else {
        String::new()
    };
    let mut line = format!(
        "info depth {} seldepth {}{multipv} score {} nodes {} nps {} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
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
        assert_eq!(req.limits.searchmoves.len(), 2);
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
            tbhits: 3,
            time_ms: 90,
            pv: vec![e4],
            multipv: 2,
        };
        assert_eq!(
            info_line(&root, &info, false),
            "info depth 7 seldepth 11 score mate -3 nodes 1234 nps 5678 hashfull 12 tbhits 3 time 90 pv e2e4"
        );
        assert_eq!(
            info_line(&root, &info, true),
            "info depth 7 seldepth 11 multipv 2 score mate -3 nodes 1234 nps 5678 hashfull 12 tbhits 3 time 90 pv e2e4"
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
