//! A task: the search or job (`bench`, `go perft`, `genfens`) that runs on the
//! worker thread, off the command loop, taking the [`Searcher`] with it and handing
//! it back when done. Starting it, `stop`, `ponderhit` and `quit` while it runs, and
//! its end: a held `bestmove`, then the commands queued meanwhile.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use shakmaty::Move;

use super::go::GoRequest;
use super::output::{Out, bestmove_line, fallback_bestmove, info_line};
use super::{Event, Finished, Shell};
use crate::position::Game;
use crate::search::{Control, Limits, SEARCH_STACK_BYTES, Searcher};

/// What runs on the worker thread.
pub(super) enum Task {
    Search(SearchTask),
    /// `bench` or `go perft`: runs to its end (only `quit` cuts it short).
    Job,
    /// `genfens`: `stop` ends it after the position it is on; `quit` waits for it
    /// (OpenBench sends `quit` right after `genfens` and needs every line).
    Genfens(Arc<Control>),
}

pub(super) struct SearchTask {
    control: Arc<Control>,
    /// `go infinite`: `bestmove` only after `stop`.
    infinite: bool,
    /// No depth, node, time or clock limit: in practice only `stop` ends it.
    unbounded: bool,
    /// `stop` was sent: every other command waits until `bestmove` is out, so a GUI
    /// that sends `stop` then `isready` reads `bestmove` first.
    pub(super) stopping: bool,
    /// What a search that ended by itself while infinite or pondering prints: the
    /// protocol withholds `bestmove` until `stop` (or `ponderhit`).
    held: Option<String>,
}

impl SearchTask {
    fn waits_for_stop(&self) -> bool {
        self.infinite || self.control.pondering.load(Ordering::SeqCst)
    }
}

/// How long `quit` waits for a stopped search to hand over its `bestmove`.
const QUIT_GRACE: Duration = Duration::from_secs(2);

impl Shell {
    /// Starts the search of `request` on the worker thread, which takes the
    /// searcher and hands it back with the `bestmove` line when done.
    pub(super) fn start_search(&mut self, request: GoRequest) {
        let Some(mut searcher) = self.searcher.take() else {
            // Unreachable: a search is only started when no task runs.
            self.out
                .error("no searcher available; the search is not started");
            return;
        };
        searcher.set_tablebases(self.settings.tablebases.clone(), self.settings.tb_settings);
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
        let stats = self.settings.search_stats;
        let thread_control = Arc::clone(&control);
        let spawned = worker_thread("search").spawn(move || {
            // Debug and test builds answer a panic with a fallback move; the release
            // profile has `panic = "abort"`, which ends the process instead.
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

    /// `stop`: a running search is told to stop (its `bestmove` follows when it has);
    /// a held `bestmove` is sent now; `genfens` ends after the position it is on.
    /// `bench` and `go perft` run to their end.
    pub(super) fn stop(&mut self) -> bool {
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
    pub(super) fn ponderhit(&mut self) -> bool {
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
    pub(super) fn quit(&mut self) {
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

    /// `quit` while a task runs: [`Shell::quit`], then the loop ends; during `genfens`
    /// it waits its turn instead, never dropped even when the queue is full (OpenBench
    /// sends `quit` right after `genfens` and needs every line).
    pub(super) fn quit_while_busy(&mut self, line: &str) -> bool {
        if matches!(self.task, Some(Task::Genfens(_))) {
            self.queue.push_back(line.to_string());
            return true;
        }
        self.quit();
        false
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
    pub(super) fn finished(&mut self, finished: Box<Finished>) -> bool {
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
    pub(super) fn done_after_end_of_input(&mut self) -> bool {
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

    /// Runs `job` (bench, perft) on a worker thread; its text is printed when it ends.
    pub(super) fn start_job(
        &mut self,
        job: impl FnOnce() -> Result<String, String> + Send + 'static,
    ) {
        self.start_worker(Task::Job, "bench/perft", job);
    }

    /// Runs `job` on a worker thread as `task`; its text (or its error) is printed when
    /// it ends. `name` says which command panicked, should one.
    pub(super) fn start_worker(
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
}

/// A thread for a search or a job: the search recurses up to MAX_PLY deep.
fn worker_thread(name: &str) -> std::thread::Builder {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(SEARCH_STACK_BYTES)
}

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
