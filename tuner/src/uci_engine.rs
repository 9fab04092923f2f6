//! An external UCI engine as a [`Player`]: a child process spoken to over pipes.
//!
//! Robustness is the point: a crash, a hang, an illegal or unparsable move and a
//! time forfeit all come back as a [`PlayerFault`] (the game is scored as that
//! engine's loss by `play_game`), the process is killed, and the next game starts a
//! fresh one, so a match never stops because of a broken engine.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use occam::position::{Game, Position, START_FEN};
use occam::search::{Limits, Score};
use shakmaty::{Color, Position as _};

use crate::games::{Player, PlayerFault, PlayerMove};

/// How long an engine may take to answer `uci` and `isready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default wait for `bestmove` under node or depth limits before calling it a hang.
const DEFAULT_MOVE_TIMEOUT_MS: u64 = 60_000;
/// Extra wait beyond the clock (or the fixed move time) before giving up on an engine.
const CLOCK_GRACE_MS: u64 = 1_000;

/// How to start and configure one external engine, from
/// `--engine cmd=PATH [name=NAME] [args="A B"] [dir=DIR] [option.NAME=VALUE]… [timeout=SECS]`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    /// UCI options set after the handshake, in the given order.
    pub options: Vec<(String, String)>,
    /// Wait for a move under node/depth limits before declaring a hang, in ms.
    pub move_timeout_ms: u64,
}

impl EngineSpec {
    /// The engine as results files and journals record it (to notice a changed
    /// engine on resume): command, arguments and the user's options.
    pub fn describe(&self) -> String {
        let options: Vec<String> = self
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "uci[{} {}]{{{}}}",
            self.cmd,
            self.args.join(" "),
            options.join(",")
        )
    }

    /// Parses the `KEY=VALUE` words of one `--engine`.
    pub fn parse(words: &[String]) -> Result<EngineSpec> {
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: String::new(),
            args: Vec::new(),
            dir: None,
            options: Vec::new(),
            move_timeout_ms: DEFAULT_MOVE_TIMEOUT_MS,
        };
        const KEYS: &str = "cmd, name, args, dir, timeout, proto, option.NAME";
        for word in words {
            let Some((key, value)) = word.split_once('=') else {
                bail!("--engine: '{word}' is not KEY=VALUE (keys: {KEYS})");
            };
            match key {
                "cmd" => spec.cmd = value.to_string(),
                "name" => spec.name = value.to_string(),
                "args" => spec.args = value.split_whitespace().map(String::from).collect(),
                "dir" => spec.dir = Some(PathBuf::from(value)),
                // Accepted for cutechess/fastchess command lines; only UCI is spoken.
                "proto" if value == "uci" => {}
                "proto" => bail!("--engine: proto={value} is not supported (only uci)"),
                "timeout" => {
                    let secs: f64 = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e6)
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "--engine: timeout='{value}' is not a positive number of seconds"
                            )
                        })?;
                    spec.move_timeout_ms = (secs * 1000.0).round().max(1.0) as u64;
                }
                _ => match key.strip_prefix("option.") {
                    Some(option) if !option.is_empty() => {
                        spec.options.push((option.to_string(), value.to_string()))
                    }
                    _ => bail!("--engine: unknown key '{key}' (keys: {KEYS})"),
                },
            }
        }
        if spec.cmd.is_empty() {
            bail!("--engine needs cmd=PATH, e.g. --engine cmd=/usr/games/stockfish name=sf");
        }
        if spec.name.is_empty() {
            spec.name = std::path::Path::new(&spec.cmd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.cmd.clone());
        }
        Ok(spec)
    }
}

/// A running engine process with a reader thread, so every read can time out.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One `option` line of an engine's `uci` answer.
#[derive(Clone, Debug, PartialEq)]
pub struct UciOption {
    /// As the engine spells it (UCI option names are matched case-insensitively).
    pub name: String,
    /// `spin`, `check`, `combo`, `button` or `string`.
    pub kind: String,
    pub default: Option<String>,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

impl UciOption {
    /// Parses `option name <NAME…> type <T> [default <D…>] [min <A>] [max <B>] [var …]`.
    pub fn parse(line: &str) -> Option<UciOption> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"option") || words.get(1) != Some(&"name") {
            return None;
        }
        const KEYS: [&str; 5] = ["type", "default", "min", "max", "var"];
        // The value of each keyword runs until the next keyword (names and defaults
        // may contain spaces).
        let mut fields: Vec<(&str, String)> = Vec::new();
        let mut key = "name";
        let mut value: Vec<&str> = Vec::new();
        for &w in &words[2..] {
            if KEYS.contains(&w) && !(key == "name" && w != "type") {
                fields.push((key, value.join(" ")));
                key = w;
                value.clear();
            } else {
                value.push(w);
            }
        }
        fields.push((key, value.join(" ")));
        let get = |k: &str| fields.iter().find(|(f, _)| *f == k).map(|(_, v)| v.clone());
        let name = get("name").filter(|n| !n.is_empty())?;
        Some(UciOption {
            name,
            kind: get("type")?.to_ascii_lowercase(),
            default: get("default"),
            min: get("min").and_then(|v| v.parse().ok()),
            max: get("max").and_then(|v| v.parse().ok()),
        })
    }
}

/// An external UCI engine playing games.
pub struct UciEngine {
    spec: EngineSpec,
    process: Option<Process>,
    opponent_clock_ms: Option<u64>,
    /// Processes started so far (1 + restarts after faults).
    pub starts: u32,
    /// The options the engine declared in its last `uci` answer.
    options: Vec<UciOption>,
    /// Options set on top of the spec's (SPSA's θ± values): sent now, and again after
    /// the spec's options whenever the process is restarted.
    overlay: Vec<(String, String)>,
}

impl UciEngine {
    /// Starts the engine and completes the handshake, so a wrong command or an engine
    /// that is not UCI is reported before any game is played.
    pub fn start(spec: EngineSpec) -> Result<UciEngine> {
        let mut engine = UciEngine::lazy(spec);
        engine.ensure_running().map_err(|e| {
            anyhow::anyhow!("engine '{}' ({}): {e}", engine.spec.name, engine.spec.cmd)
        })?;
        Ok(engine)
    }

    /// An engine whose process is started by the first game.
    pub fn lazy(spec: EngineSpec) -> UciEngine {
        UciEngine {
            spec,
            process: None,
            opponent_clock_ms: None,
            starts: 0,
            options: Vec::new(),
            overlay: Vec::new(),
        }
    }

    /// The options the engine declared (empty before its first start).
    pub fn options(&self) -> &[UciOption] {
        &self.options
    }

    /// Sets options on top of the spec's (each `(name, value)` replaces an earlier
    /// overlay value of that name). A running engine gets the `setoption` lines now; a
    /// restarted one gets them after its handshake. An engine that cannot take them is
    /// stopped, so its next game starts a fresh process with the values.
    pub fn set_overlay(&mut self, values: &[(String, String)]) {
        for (name, value) in values {
            match self.overlay.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1.clone_from(value),
                None => self.overlay.push((name.clone(), value.clone())),
            }
        }
        if self.process.is_some() {
            for (name, value) in values {
                if self
                    .send(&format!("setoption name {name} value {value}"))
                    .is_err()
                {
                    self.stop();
                    break;
                }
            }
        }
    }

    fn ensure_running(&mut self) -> Result<(), PlayerFault> {
        if let Some(p) = &mut self.process {
            if matches!(p.child.try_wait(), Ok(None)) {
                return Ok(());
            }
            self.stop();
        }
        let mut command = Command::new(&self.spec.cmd);
        command
            .args(&self.spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &self.spec.dir {
            command.current_dir(dir);
        }
        // A process group of its own: a Ctrl-C at the terminal goes to the tuner alone,
        // which stops cleanly, instead of killing engines in the middle of a game.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| PlayerFault::Crash(format!("cannot start '{}': {e}", self.spec.cmd)))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        self.process = Some(Process {
            child,
            stdin,
            lines,
        });
        self.starts += 1;
        let result = (|| {
            self.send("uci")?;
            let lines = self
                .read_until(Instant::now() + HANDSHAKE_TIMEOUT, |l| l == "uciok")
                .map_err(|e| with_context(e, "during the uci handshake"))?;
            self.options = lines.iter().filter_map(|l| UciOption::parse(l)).collect();
            let options: Vec<(String, String)> = self
                .spec
                .options
                .iter()
                .chain(&self.overlay)
                .cloned()
                .collect();
            for (name, value) in options {
                self.send(&format!("setoption name {name} value {value}"))?;
            }
            self.sync()
        })();
        if result.is_err() {
            self.stop();
        }
        result
    }

    /// `isready` / `readyok`.
    fn sync(&mut self) -> Result<(), PlayerFault> {
        self.send("isready")?;
        self.read_until(Instant::now() + HANDSHAKE_TIMEOUT, |l| l == "readyok")
            .map(|_| ())
            .map_err(|e| with_context(e, "waiting for readyok"))
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerFault> {
        let process = self
            .process
            .as_mut()
            .ok_or_else(|| PlayerFault::Crash("not running".into()))?;
        writeln!(process.stdin, "{line}")
            .and_then(|_| process.stdin.flush())
            .map_err(|e| PlayerFault::Crash(format!("cannot write to the engine: {e}")))
    }

    /// Reads lines until `done` accepts one (returned with the lines before it). A
    /// closed pipe is a crash; the deadline passing is reported as `Timeout` and
    /// turned into the right fault by the caller.
    fn read_until(
        &mut self,
        deadline: Instant,
        done: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, PlayerFault> {
        let process = self
            .process
            .as_mut()
            .ok_or_else(|| PlayerFault::Crash("not running".into()))?;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match process.lines.recv_timeout(left) {
                Ok(line) => {
                    let finished = done(line.trim());
                    seen.push(line);
                    if finished {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(PlayerFault::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    // Give a dying process a moment to be reaped, but never block on
                    // one that closed its output and kept running.
                    let mut status = None;
                    for _ in 0..20 {
                        if let Ok(Some(s)) = process.child.try_wait() {
                            status = Some(s);
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    return Err(PlayerFault::Crash(match status {
                        Some(s) => format!("exited ({s})"),
                        None => "closed its output".to_string(),
                    }));
                }
            }
        }
    }

    /// Kills the process; the next game starts a new one.
    fn stop(&mut self) {
        if let Some(p) = self.process.take() {
            p.kill();
        }
    }

    /// The `position` command for a game.
    fn position_command(game: &Game) -> String {
        let fen = game.start.fen();
        let mut cmd = if fen == START_FEN {
            "position startpos".to_string()
        } else {
            format!("position fen {fen}")
        };
        if !game.moves.is_empty() {
            cmd.push_str(" moves");
            let mut pos: Position = game.start.clone();
            for &m in &game.moves {
                cmd.push(' ');
                cmd.push_str(&pos.move_to_uci(m));
                pos.play_in_place(m);
            }
        }
        cmd
    }

    /// The `go` command and how long to wait for its `bestmove`; `true` when running
    /// out of that time is a time forfeit rather than a hang.
    fn go_command(&self, game: &Game, limits: &Limits) -> (String, Duration, bool) {
        let mut cmd = String::from("go");
        let mut wait_ms = None;
        let mut on_clock = false;
        if let Some(clock) = limits.clock {
            let other = self.opponent_clock_ms.unwrap_or(clock.time_ms);
            let (w, b) = match game.position.turn() {
                Color::White => (clock.time_ms, other),
                Color::Black => (other, clock.time_ms),
            };
            cmd.push_str(&format!(
                " wtime {w} btime {b} winc {0} binc {0}",
                clock.inc_ms
            ));
            if let Some(n) = clock.movestogo {
                cmd.push_str(&format!(" movestogo {n}"));
            }
            wait_ms = Some(clock.time_ms + CLOCK_GRACE_MS);
            on_clock = true;
        }
        if let Some(ms) = limits.movetime_ms {
            cmd.push_str(&format!(" movetime {ms}"));
            wait_ms = Some(wait_ms.unwrap_or(u64::MAX).min(ms + CLOCK_GRACE_MS));
        }
        if let Some(d) = limits.depth {
            cmd.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = limits.nodes {
            cmd.push_str(&format!(" nodes {n}"));
        }
        if limits.infinite || cmd == "go" {
            // Nothing bounds the search: never wait forever.
            cmd = "go infinite".into();
        }
        let wait = Duration::from_millis(wait_ms.unwrap_or(self.spec.move_timeout_ms));
        (cmd, wait, on_clock)
    }
}

fn with_context(fault: PlayerFault, what: &str) -> PlayerFault {
    match fault {
        PlayerFault::Timeout => PlayerFault::Crash(format!("no answer {what}")),
        PlayerFault::Crash(m) => PlayerFault::Crash(format!("{m} {what}")),
        other => other,
    }
}

/// The score of an `info` line, if it has one.
fn parse_score(line: &str) -> Option<Score> {
    let mut words = line.split_whitespace();
    words.next().filter(|w| *w == "info")?;
    while let Some(w) = words.next() {
        if w == "score" {
            let kind = words.next()?;
            let value: i32 = words.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(Score::Cp(value)),
                "mate" => Some(Score::Mate(value)),
                _ => None,
            };
        }
    }
    None
}

impl Player for UciEngine {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn new_game(&mut self) -> Result<(), PlayerFault> {
        self.opponent_clock_ms = None;
        self.ensure_running()?;
        let result = self.send("ucinewgame").and_then(|_| self.sync());
        if result.is_err() {
            self.stop();
        }
        result
    }

    fn set_opponent_clock(&mut self, time_ms: u64) {
        self.opponent_clock_ms = Some(time_ms);
    }

    fn go(&mut self, game: &Game, limits: &Limits) -> Result<PlayerMove, PlayerFault> {
        let (go, wait, on_clock) = self.go_command(game, limits);
        let started = Instant::now();
        let result = self
            .send(&Self::position_command(game))
            .and_then(|_| self.send(&go))
            .and_then(|_| {
                self.read_until(Instant::now() + wait, |l| {
                    l.split_whitespace().next() == Some("bestmove")
                })
            });
        let lines = match result {
            Ok(lines) => lines,
            Err(fault) => {
                // A hung or dead engine is replaced before its next game.
                self.stop();
                return Err(match fault {
                    PlayerFault::Timeout if !on_clock => PlayerFault::Crash(format!(
                        "no bestmove within {:.1} s",
                        wait.as_secs_f64()
                    )),
                    other => other,
                });
            }
        };
        // Over its clock, an engine has lost whatever it answered.
        if let Some(clock) = limits.clock
            && started.elapsed() > Duration::from_millis(clock.time_ms)
        {
            return Err(PlayerFault::Timeout);
        }
        let score = lines.iter().rev().find_map(|l| parse_score(l));
        let text = lines
            .last()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("")
            .to_string();
        match game.position.parse_uci_move(&text) {
            Ok(mv) if game.position.board().is_legal(mv) => Ok(PlayerMove { mv, score }),
            _ => Err(PlayerFault::IllegalMove(text)),
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Some(mut p) = self.process.take() {
            let _ = writeln!(p.stdin, "quit").and_then(|_| p.stdin.flush());
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = p.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            p.kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn engine_specs_parse_or_explain() {
        let spec = EngineSpec::parse(&words(
            "cmd=/usr/games/stockfish option.Hash=16 option.Threads=1 timeout=2.5",
        ))
        .unwrap();
        assert_eq!(spec.name, "stockfish");
        assert_eq!(spec.move_timeout_ms, 2500);
        assert_eq!(
            spec.options,
            vec![
                ("Hash".to_string(), "16".to_string()),
                ("Threads".to_string(), "1".to_string())
            ]
        );
        let spec = EngineSpec::parse(&["cmd=x".into(), "name=X Y".into(), "args=--uci -q".into()])
            .unwrap();
        assert_eq!((spec.name.as_str(), spec.args.len()), ("X Y", 2));
        assert!(EngineSpec::parse(&words("cmd=x proto=uci")).is_ok());
        for bad in [
            "cmd=x proto=xboard",
            "name=sf",
            "cmd=x foo",
            "cmd=x colour=red",
            "cmd=x timeout=-1",
            "cmd=x option.=1",
        ] {
            assert!(EngineSpec::parse(&words(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn commands_and_info_scores() {
        let mut game = Game::new(Position::startpos());
        assert_eq!(UciEngine::position_command(&game), "position startpos");
        game.play_uci("e2e4").unwrap();
        game.play_uci("e7e5").unwrap();
        assert_eq!(
            UciEngine::position_command(&game),
            "position startpos moves e2e4 e7e5"
        );
        let mut engine = UciEngine::lazy(EngineSpec::parse(&words("cmd=x")).unwrap());
        engine.set_opponent_clock(900);
        let limits = Limits {
            clock: Some(occam::search::Clock {
                time_ms: 1000,
                inc_ms: 10,
                movestogo: None,
            }),
            ..Limits::default()
        };
        let (cmd, wait, on_clock) = engine.go_command(&game, &limits);
        assert_eq!(cmd, "go wtime 1000 btime 900 winc 10 binc 10");
        assert!(on_clock && wait == Duration::from_millis(2000));
        let (cmd, _, on_clock) = engine.go_command(
            &game,
            &Limits {
                nodes: Some(5000),
                ..Limits::default()
            },
        );
        assert_eq!((cmd.as_str(), on_clock), ("go nodes 5000", false));
        assert_eq!(
            parse_score("info depth 3 seldepth 4 score cp -25 nodes 100 pv e2e4"),
            Some(Score::Cp(-25))
        );
        assert_eq!(
            parse_score("info depth 9 score mate 3 lowerbound"),
            Some(Score::Mate(3))
        );
        assert_eq!(parse_score("info string score cp"), None);
    }

    #[test]
    fn option_lines_parse() {
        let o = UciOption::parse("option name Hash type spin default 16 min 1 max 1024").unwrap();
        assert_eq!(
            (o.name.as_str(), o.kind.as_str(), o.min, o.max),
            ("Hash", "spin", Some(1), Some(1024))
        );
        assert_eq!(o.default.as_deref(), Some("16"));
        let o = UciOption::parse("option name Clear Hash type button").unwrap();
        assert_eq!((o.name.as_str(), o.kind.as_str()), ("Clear Hash", "button"));
        let o = UciOption::parse("option name Max Min type string default a b").unwrap();
        assert_eq!(o.name, "Max Min");
        assert_eq!(o.default.as_deref(), Some("a b"));
        assert_eq!(o.min, None);
        let o =
            UciOption::parse("option name Style type combo default Normal var Solid var Normal")
                .unwrap();
        assert_eq!(
            (o.kind.as_str(), o.default.as_deref()),
            ("combo", Some("Normal"))
        );
        for bad in [
            "option name type spin",
            "info string x",
            "option name X",
            "option",
        ] {
            assert_eq!(UciOption::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_missing_program_is_reported_not_panicked() {
        let err = UciEngine::start(EngineSpec::parse(&words("cmd=/no/such/engine")).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("cannot start '/no/such/engine'"), "{err}");
    }
}
