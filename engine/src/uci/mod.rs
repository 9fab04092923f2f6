//! The UCI protocol shell around the search library.
//!
//! A reader thread turns stdin into lines; the command loop takes lines and "task
//! finished" messages from one channel and never waits on a search. A search (or
//! `bench`, `go perft`, `genfens`) runs on a worker thread, taking the [`Searcher`]
//! with it and handing it back when done. While it runs, `isready`, `uci`, `stop`,
//! `ponderhit` and `quit` are answered at once; commands that change or read the
//! state wait in a queue and are applied, in order, when it ends (`docs/engine.md`
//! has the table). With `go infinite` or while pondering, the shell holds the
//! finished search's `bestmove` until `stop`/`ponderhit`: the search itself knows
//! nothing of the protocol.
//!
//! Bad input of any kind gets exactly one `info string error: …` line naming what was
//! wrong and what is allowed; the state stays as it was.
//!
//! The parts: `commands.rs` (the command table, each row with its handler and what
//! it does while a task runs, and the dispatch), `options.rs` (the option table, each
//! row with its setter, and the `Settings` they set), `go.rs` (parsing `go`),
//! `output.rs` (what is printed), `shell.rs` (the commands' handlers), `task.rs`
//! (the search or job on the worker thread: its start, the commands that steer it,
//! its end).
//! This file holds the command loop and the state they share.
//!
//! The shell is the top of the engine: it may use any other engine module (the
//! search, the evaluation for `eval`, the tablebases for `SyzygyPath`, the tools
//! `bench`, `perft` and `genfens`), and none of them uses it.

mod commands;
mod go;
mod options;
mod output;
mod shell;
mod task;

use std::collections::VecDeque;
use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};

use crate::position::Game;
use crate::search::Searcher;
pub use go::GO_KEYWORDS;
use options::Settings;
pub use options::option_lines;
use output::Out;
use shell::PositionSpec;
use task::Task;

/// Longest input line kept (a long game's `position … moves` is a few kB); longer
/// lines are skipped, so endless input without a newline cannot exhaust memory.
const MAX_LINE_BYTES: u64 = 1 << 20;

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
/// `stop` and `quit` are answered at any time (see the table in `docs/engine.md` for
/// what each command does while a search runs).
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

/// The engine state the commands act on.
struct Shell {
    out: Out,
    /// Input lines and finished tasks arrive here; workers get clones of `sender`.
    events: Receiver<Event>,
    sender: Sender<Event>,
    /// What the options set, for the next search.
    settings: Settings,
    position: PositionSpec,
    game: Game,
    /// `None` while a search thread owns it.
    searcher: Option<Searcher>,
    task: Option<Task>,
    /// Commands received while a task runs, applied in order when it ends.
    queue: VecDeque<String>,
    input_closed: bool,
    /// Hash size the searcher currently has; differs from `settings.hash_mb` until applied.
    searcher_hash_mb: usize,
    clear_pending: bool,
}
