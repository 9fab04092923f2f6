//! Helpers for the workspace-level integration tests in `tests/tests/`: locate (and
//! build, once) the real binaries, and talk to an engine process over UCI.

pub mod fuzz;
pub mod selfplay;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The workspace root (the directory holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies inside the workspace")
        .to_path_buf()
}

/// A fresh, empty scratch directory for one test (`name` tells the tests apart).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("occam-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `target/<profile>` of the running test binary (`.../target/debug/deps/x` -> `.../target/debug`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("profile dir").to_path_buf()
}

/// Path of a workspace binary (`occam` or `tuner`), built once per test process with the
/// same profile as the tests, so a plain `cargo test --workspace` always tests fresh binaries.
pub fn binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let dir = profile_dir();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root())
            .args(["build", "--quiet", "-p", "occam", "-p", "tuner", "--bins"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        match cmd.status() {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(format!("cargo build of the binaries failed: {s}")),
            Err(e) => Err(format!("cannot run cargo: {e}")),
        }
    });
    if let Err(e) = built {
        panic!("{e}");
    }
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// An engine process spoken to over UCI, with a reader thread so reads can time out.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts `program` with `args`.
    pub fn spawn(program: &Path, args: &[&str]) -> Engine {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    /// Starts the `occam` binary.
    pub fn occam() -> Engine {
        Engine::spawn(&binary("occam"), &[])
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine stdin");
        self.stdin.flush().expect("engine stdin");
    }

    /// Reads lines until one satisfies `done` (returned with everything before it), or
    /// panics after `timeout`.
    pub fn read_until(&mut self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.try_read_until(timeout, done)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`Engine::read_until`], but a timeout or a closed output is an `Err`
    /// describing what was seen.
    pub fn try_read_until(
        &mut self,
        timeout: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let finished = done(&line);
                    seen.push(line);
                    if finished {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "no matching line within {timeout:?}; got {seen:#?}"
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("engine closed its output; got {seen:#?}"));
                }
            }
        }
    }

    /// Every line that arrives within `wait` (for asserting that nothing, or nothing
    /// of a kind, is sent).
    pub fn lines_within(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(line);
        }
        seen
    }

    /// Waits up to `timeout` for the process to exit; true if it did.
    pub fn exited_within(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sends `line`, then reads up to the line starting with `until`.
    pub fn ask(&mut self, line: &str, until: &str, timeout: Duration) -> Vec<String> {
        self.send(line);
        self.read_until(timeout, |l| l.starts_with(until))
    }

    /// Sends `isready` and waits for `readyok`; returns the lines before it.
    pub fn sync(&mut self) -> Vec<String> {
        let mut lines = self.ask("isready", "readyok", Duration::from_secs(10));
        lines.pop();
        lines
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
