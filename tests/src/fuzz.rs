//! Hostile UCI input for the real `occam` binary: a seeded generator of lines
//! (garbage bytes, truncated and mutated commands, bad FENs, illegal and malformed
//! moves, out-of-range numbers, every option with bad values, well-formed commands
//! and searches, so that commands arrive while a search runs) and a session runner
//! that checks the engine stays alive and answers.
//!
//! Used by `tests/tests/fuzz.rs` (a short run in `cargo test`, a soak run on demand).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position as _};

// ---------------------------------------------------------------------------
// A small seeded generator (splitmix64): the same seed gives the same lines.
// ---------------------------------------------------------------------------

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------
// Material the lines are built from
// ---------------------------------------------------------------------------

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "8/P7/8/8/8/8/8/k6K w - - 0 1",
    "8/5pk1/6p1/8/3K4/8/5PPP/8 b - - 99 80",
    // In the fixture tables (tests/data/syzygy) once SyzygyPath is set.
    "7K/8/8/8/8/8/1pk5/4R3 w - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
];

/// Numbers (and non-numbers) that parsers get wrong: signs, zero, the edges of i64
/// and u64, 2^64, floats, hex, unicode digits, nothing.
const WEIRD_NUMBERS: &[&str] = &[
    "-1",
    "-0",
    "0",
    "1",
    "-9223372036854775808",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "99999999999999999999999999999999",
    "1e3",
    "0x10",
    "+5",
    "1.5",
    "-2147483649",
    "2147483648",
    "abc",
    "NaN",
    "inf",
    "\u{663}",
    "1_000",
    "",
    "--",
];

const GO_FORMS: &[&str] = &[
    "go infinite",
    "go depth 3",
    "go depth 1",
    "go nodes 500",
    "go wtime 50 btime 50",
    "go wtime 100 btime 100 winc 10 binc 10 movestogo 3",
    "go ponder wtime 100 btime 100",
    "go ponder",
    "go movetime 20",
    "go wtime 1000",
    "go btime 1000",
    "go",
    "go depth 2 searchmoves e2e4 d2d4",
    "go perft 2",
    "go perft 1",
];

const OTHER_WELL_FORMED: &[&str] = &[
    "stop",
    "stop",
    "stop",
    "ponderhit",
    "isready",
    "isready",
    "ucinewgame",
    "d",
    "eval",
    "position startpos",
    "setoption name Clear Hash",
    "setoption name Hash value 1",
    "setoption name Hash value 8",
    "setoption name Move Overhead value 0",
    "setoption name Move Overhead value 100",
    "setoption name UCI_Chess960 value true",
    "setoption name UCI_Chess960 value false",
    "setoption name SearchStats value true",
    "setoption name SearchStats value false",
    "setoption name Ponder value true",
    "setoption name Threads value 1",
    "setoption name Threads value 2",
    "setoption name MultiPV value 3",
    "setoption name MultiPV value 1",
    concat!(
        "setoption name SyzygyPath value ",
        env!("CARGO_MANIFEST_DIR"),
        "/data/syzygy"
    ),
    "setoption name SyzygyPath value <empty>",
    "setoption name Syzygy50MoveRule value false",
    "debug on",
    "register later",
];

/// Rare because their output is long or they take a while.
const RARE_WELL_FORMED: &[&str] = &["uci", "params", "bench 1", "go perft 3"];

const WORDS: &[&str] = &[
    "go",
    "position",
    "setoption",
    "name",
    "value",
    "moves",
    "fen",
    "startpos",
    "stop",
    "isready",
    "ponderhit",
    "infinite",
    "depth",
    "nodes",
    "wtime",
    "btime",
    "movetime",
    "perft",
    "searchmoves",
    "bench",
    "ucinewgame",
    "Hash",
    "--stats",
    "0000",
    "e2e4",
];

// ---------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------

pub struct Generator {
    rng: Rng,
    /// `(name, is_check)` of every option `uci` lists: the engine options and every
    /// parameter (picked at random, so a run hits the engine options and a sample of
    /// the parameters).
    options: Vec<(String, bool)>,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        let options: Vec<(String, bool)> = occam::uci::option_lines()
            .iter()
            .filter_map(|l| {
                let rest = l.strip_prefix("option name ")?;
                let at = rest.find(" type ")?;
                Some((rest[..at].to_string(), rest[at..].contains("type check")))
            })
            .collect();
        assert!(!options.is_empty(), "no options listed");
        Generator {
            rng: Rng::new(seed),
            options,
        }
    }

    /// One input line, without its newline (it may hold any byte but `\n`).
    pub fn line(&mut self) -> Vec<u8> {
        match self.rng.below(100) {
            0..=29 => self.well_formed().into_bytes(),
            30..=49 => {
                let base = self.well_formed();
                self.mutate(base.into_bytes())
            }
            50..=59 => self.bad_fen().into_bytes(),
            60..=69 => self.bad_moves().into_bytes(),
            70..=81 => self.bad_setoption().into_bytes(),
            82..=89 => self.bad_go().into_bytes(),
            _ => self.garbage(),
        }
    }

    fn well_formed(&mut self) -> String {
        match self.rng.below(100) {
            0..=34 => self.rng.pick(GO_FORMS).to_string(),
            35..=49 => self.position(),
            50..=57 => self.good_setoption(),
            58..=59 => self.rng.pick(RARE_WELL_FORMED).to_string(),
            _ => self.rng.pick(OTHER_WELL_FORMED).to_string(),
        }
    }

    /// `position startpos|fen … [moves …]` with legal moves (a random playout).
    fn position(&mut self) -> String {
        let (head, mut pos): (String, Chess) = if self.rng.chance(50) {
            ("position startpos".into(), Chess::default())
        } else {
            let fen = *self.rng.pick(&FENS[..FENS.len() - 1]);
            let pos = fen
                .parse::<shakmaty::fen::Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Standard).ok())
                .unwrap_or_default();
            (format!("position fen {fen}"), pos)
        };
        let plies = self.rng.below(30);
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[self.rng.below(legal.len())];
            moves.push(m.to_uci(CastlingMode::Standard).to_string());
            pos.play_unchecked(m);
        }
        if moves.is_empty() && self.rng.chance(50) {
            head
        } else {
            format!("{head} moves {}", moves.join(" "))
        }
    }

    fn good_setoption(&mut self) -> String {
        let (name, check) = self.rng.pick(&self.options).clone();
        if check {
            let v = if self.rng.chance(50) { "true" } else { "false" };
            return format!("setoption name {name} value {v}");
        }
        match name.as_str() {
            "Clear Hash" => "setoption name Clear Hash".into(),
            "Hash" => format!("setoption name Hash value {}", 1 + self.rng.below(16)),
            "Threads" => format!("setoption name Threads value {}", 1 + self.rng.below(2)),
            "MultiPV" => format!("setoption name MultiPV value {}", 1 + self.rng.below(3)),
            "Move Overhead" => format!("setoption name Move Overhead value {}", self.rng.below(50)),
            "SyzygyPath" => format!(
                "setoption name SyzygyPath value {}",
                [
                    concat!(env!("CARGO_MANIFEST_DIR"), "/data/syzygy"),
                    "<empty>",
                    "/no/such/syzygy/dir",
                ][self.rng.below(3)]
            ),
            "SyzygyProbeDepth" => format!(
                "setoption name SyzygyProbeDepth value {}",
                1 + self.rng.below(20)
            ),
            "SyzygyProbeLimit" => format!(
                "setoption name SyzygyProbeLimit value {}",
                self.rng.below(8)
            ),
            _ => {
                // A parameter: any value in its bounds.
                let spec = occam::params::PARAM_SPECS
                    .iter()
                    .find(|s| s.name == name)
                    .expect("listed parameter");
                let (min, max) = (i64::from(spec.min), i64::from(spec.max));
                let v = min + (self.rng.next_u64() % ((max - min) as u64 + 1)) as i64;
                format!("setoption name {name} value {v}")
            }
        }
    }

    fn bad_setoption(&mut self) -> String {
        let (name, _) = self.rng.pick(&self.options).clone();
        let value = *self.rng.pick(WEIRD_NUMBERS);
        match self.rng.below(8) {
            0 => format!("setoption name {name}"),
            1 => format!("setoption name {name} value"),
            2 => format!("setoption name {name} value {value} {value}"),
            3 => format!("setoption name {} value {value}", name.to_uppercase()),
            4 => format!("setoption {name} value {value}"),
            5 => format!("setoption name {name} value value {value}"),
            6 => format!(
                "setoption name {name} value {}",
                ["TRUE", "yes", "1", "on"][self.rng.below(4)]
            ),
            _ => format!("setoption name {name} value {value}"),
        }
    }

    fn bad_fen(&mut self) -> String {
        let fen = *self.rng.pick(FENS);
        let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
        match self.rng.below(10) {
            0 => {
                // Drop some fields.
                let keep = self.rng.below(fields.len());
                fields.truncate(keep);
            }
            1 => fields[1] = ["x", "W", "white", "-", ""][self.rng.below(5)].into(),
            2 => fields[2] = ["KQkqKQ", "X", "Kk-", "AHah", "kqKQ"][self.rng.below(5)].into(),
            3 => fields[3] = ["e9", "z3", "e4", "a1", "--"][self.rng.below(5)].into(),
            4 => fields[4] = self.rng.pick(WEIRD_NUMBERS).to_string(),
            5 => fields[5] = self.rng.pick(WEIRD_NUMBERS).to_string(),
            6 => {
                // Too many or too few ranks, or a rank too long.
                fields[0] = [
                    "8/8/8/8/8/8/8/8/8",
                    "8/8/8",
                    "9/8/8/8/8/8/8/8",
                    "rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
                    "8/8/8/8/8/8/8/8",
                    "kk6/8/8/8/8/8/8/KK6",
                    "P6k/8/8/8/8/8/8/K7",
                    "4k3/8/8/8/8/8/8/4K2Q1",
                ][self.rng.below(8)]
                .into()
            }
            7 => {
                // One piece letter replaced by something else.
                let mut board: Vec<char> = fields[0].chars().collect();
                let i = self.rng.below(board.len());
                board[i] = ['x', '0', '9', 'K', 'k', '/', ' ', 'é'][self.rng.below(8)];
                fields[0] = board.into_iter().collect();
            }
            8 => fields.push(self.rng.pick(WEIRD_NUMBERS).to_string()),
            _ => {
                let bytes = self.mutate(fen.as_bytes().to_vec());
                return format!("position fen {}", String::from_utf8_lossy(&bytes));
            }
        }
        let mut line = format!("position fen {}", fields.join(" "));
        if self.rng.chance(30) {
            line.push_str(" moves e2e4");
        }
        line
    }

    fn bad_moves(&mut self) -> String {
        let good = self.position();
        let mut line = if good.contains(" moves ") {
            good
        } else {
            format!("{good} moves")
        };
        let bad = match self.rng.below(8) {
            0 => "e2e5".to_string(),
            1 => "e7e8q".into(),
            2 => "e2e4e".into(),
            3 => "0000".into(),
            4 => "E2E4".into(),
            5 => "e1g1".into(),
            6 => {
                let files = b"abcdefghij";
                let ranks = b"0123456789";
                let mut s = String::new();
                for i in 0..(3 + self.rng.below(3)) {
                    let set: &[u8] = if i % 2 == 0 { files } else { ranks };
                    s.push(set[self.rng.below(set.len())] as char);
                }
                s
            }
            _ => self.rng.pick(WORDS).to_string(),
        };
        line.push(' ');
        line.push_str(&bad);
        if self.rng.chance(30) {
            line.push_str(" e7e5");
        }
        line
    }

    fn bad_go(&mut self) -> String {
        // The engine's keywords but those that would start a search with no end in
        // sight (`infinite`, `ponder`, and `mate` with a large number).
        let keywords: Vec<&str> = occam::uci::GO_KEYWORDS
            .iter()
            .copied()
            .filter(|k| !matches!(*k, "infinite" | "ponder" | "mate"))
            .collect();
        let mut line = String::from("go");
        for _ in 0..(1 + self.rng.below(3)) {
            line.push(' ');
            line.push_str(self.rng.pick::<&str>(&keywords));
            line.push(' ');
            line.push_str(self.rng.pick::<&str>(WEIRD_NUMBERS));
        }
        line
    }

    /// Random bytes: control characters, invalid UTF-8, sometimes a very long line.
    fn garbage(&mut self) -> Vec<u8> {
        let len = if self.rng.chance(3) {
            2_000 + self.rng.below(20_000)
        } else {
            self.rng.below(60)
        };
        (0..len)
            .map(|_| {
                loop {
                    let b = (self.next_byte_biased()) as u8;
                    if b != b'\n' {
                        break b;
                    }
                }
            })
            .collect()
    }

    fn next_byte_biased(&mut self) -> u64 {
        match self.rng.below(4) {
            0 => self.rng.next_u64() % 256,
            1 => [0u64, 9, 11, 12, 13, 27, 32, 127, 0xC3, 0xFF][self.rng.below(10)],
            _ => 32 + self.rng.next_u64() % 95,
        }
    }

    /// One to three edits of a real command.
    fn mutate(&mut self, mut line: Vec<u8>) -> Vec<u8> {
        for _ in 0..(1 + self.rng.below(3)) {
            let mut tokens: Vec<Vec<u8>> = line.split(|b| *b == b' ').map(<[u8]>::to_vec).collect();
            match self.rng.below(9) {
                0 => {
                    let cut = self.rng.below(line.len() + 1);
                    line.truncate(cut);
                    continue;
                }
                1 if tokens.len() > 1 => {
                    let i = self.rng.below(tokens.len());
                    tokens.remove(i);
                }
                2 => {
                    let i = self.rng.below(tokens.len());
                    let t = tokens[i].clone();
                    tokens.insert(i, t);
                }
                3 if tokens.len() > 1 => {
                    let (i, j) = (self.rng.below(tokens.len()), self.rng.below(tokens.len()));
                    tokens.swap(i, j);
                }
                4 => {
                    let i = self.rng.below(tokens.len());
                    tokens[i] = self.rng.pick(WEIRD_NUMBERS).as_bytes().to_vec();
                }
                5 if !line.is_empty() => {
                    let i = self.rng.below(line.len());
                    line[i] = loop {
                        let b = self.next_byte_biased() as u8;
                        if b != b'\n' {
                            break b;
                        }
                    };
                    continue;
                }
                6 => {
                    let i = self.rng.below(tokens.len());
                    let junk: &[u8] =
                        [&b"\t"[..], b"\r", b"\x0b", b"   ", b"\t \t"][self.rng.below(5)];
                    tokens[i].extend_from_slice(junk);
                }
                7 => line.make_ascii_uppercase(),
                _ => {
                    let i = self.rng.below(tokens.len() + 1);
                    tokens.insert(i, self.rng.pick(WORDS).as_bytes().to_vec());
                }
            }
            line = tokens.join(&b' ');
        }
        line
    }
}

// ---------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------

/// What went wrong in one session (empty when it passed).
#[derive(Debug, Default)]
pub struct SessionOutcome {
    /// No `readyok` within the allowed time after the last line.
    pub hang: Option<String>,
    /// A panic message on stderr, an engine-reported panic, or an abnormal exit.
    pub panic: Option<String>,
    /// `bestmove` lines that are not a move in UCI notation.
    pub bad_bestmoves: Vec<String>,
    pub bestmoves: usize,
}

impl SessionOutcome {
    pub fn passed(&self) -> bool {
        self.hang.is_none() && self.panic.is_none() && self.bad_bestmoves.is_empty()
    }
}

/// A UCI move (`e2e4`, `e7e8q`) or the null move `0000`.
pub fn is_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    text == "0000"
        || (b.len() == 4 || b.len() == 5)
            && square(b[0], b[1])
            && square(b[2], b[3])
            && (b.len() == 4 || b"qrbn".contains(&b[4]))
}

/// `bestmove <move>` or `bestmove <move> ponder <move>`.
pub fn is_bestmove_line(line: &str) -> bool {
    let t: Vec<&str> = line.split(' ').collect();
    match t.as_slice() {
        ["bestmove", m] => is_uci_move(m),
        ["bestmove", m, "ponder", p] => is_uci_move(m) && *m != "0000" && is_uci_move(p),
        _ => false,
    }
}

/// Feeds `lines` to a fresh `occam` process, then asks `isready` and expects `readyok`
/// within `ready_within`; then `quit`, and the process must exit cleanly.
pub fn run_session(binary: &Path, lines: &[Vec<u8>], ready_within: Duration) -> SessionOutcome {
    let mut outcome = SessionOutcome::default();
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut out = BufReader::new(stdout);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match out.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&bytes).trim_end().to_string();
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let errors = Arc::new(Mutex::new(String::new()));
    let errors_in = Arc::clone(&errors);
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        errors_in.lock().unwrap().push_str(&text);
    });

    let mut seen: Vec<String> = Vec::new();
    let mut pause = Rng::new(lines.len() as u64);
    let mut write_ok = true;
    for line in lines {
        let mut bytes = line.clone();
        bytes.push(b'\n');
        if stdin
            .write_all(&bytes)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            write_ok = false;
            break;
        }
        // Now and then let a search get going before the next command arrives.
        if line.starts_with(b"go") && pause.chance(20) {
            std::thread::sleep(Duration::from_millis(1 + pause.below(3) as u64));
        }
    }
    let asked = Instant::now();
    let ready = write_ok
        && stdin
            .write_all(b"isready\n")
            .and_then(|()| stdin.flush())
            .is_ok();
    let mut got_ready = false;
    if ready {
        let deadline = asked + ready_within;
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => {
                    let done = l == "readyok";
                    seen.push(l);
                    if done {
                        got_ready = true;
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    outcome.hang = Some(format!("no readyok within {ready_within:?}"));
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    outcome.panic = Some("the engine closed its output before readyok".into());
                    break;
                }
            }
        }
    } else {
        outcome.panic = Some("the engine stopped reading its input".into());
    }
    // Everything after readyok too (a held bestmove is printed at quit).
    let _ = stdin.write_all(b"quit\n").and_then(|()| stdin.flush());
    drop(stdin);
    let exit_deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if Instant::now() >= exit_deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = reader.join();
    let _ = err_reader.join();
    seen.extend(rx.try_iter());
    match status {
        None if got_ready && outcome.hang.is_none() => {
            outcome.hang = Some("no exit within 5 s of quit".into())
        }
        Some(s) if !s.success() => {
            outcome.panic.get_or_insert(format!("exit status {s}"));
        }
        _ => {}
    }
    let stderr_text = errors.lock().unwrap().clone();
    if stderr_text.contains("panicked") {
        outcome.panic = Some(stderr_text.lines().take(3).collect::<Vec<_>>().join(" | "));
    }
    if let Some(l) = seen.iter().find(|l| l.contains("panicked")) {
        outcome.panic.get_or_insert(l.clone());
    }
    for l in seen.iter().filter(|l| l.starts_with("bestmove")) {
        outcome.bestmoves += 1;
        if !is_bestmove_line(l) {
            outcome.bad_bestmoves.push(l.clone());
        }
    }
    outcome
}

/// Totals over many sessions.
#[derive(Debug, Default)]
pub struct SoakReport {
    pub lines: usize,
    pub sessions: usize,
    pub hangs: usize,
    pub panics: usize,
    pub bad_bestmoves: usize,
    pub bestmoves: usize,
    /// Seed and session number of each failure, with what went wrong.
    pub failures: Vec<String>,
}

impl std::fmt::Display for SoakReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} lines, {} sessions, {} hangs, {} panics, {} malformed bestmoves ({} bestmoves)",
            self.lines, self.sessions, self.hangs, self.panics, self.bad_bestmoves, self.bestmoves
        )
    }
}

/// Runs sessions of 100..=400 generated lines until `total_lines` have been sent.
/// Each failing session's input is written to `failure_dir` for replay
/// (`occam < file`).
pub fn soak(binary: &Path, seed: u64, total_lines: usize, failure_dir: &Path) -> SoakReport {
    let mut generator = Generator::new(seed);
    let mut sizes = Rng::new(seed ^ 0x5EED);
    let mut report = SoakReport::default();
    while report.lines < total_lines {
        let n = (100 + sizes.below(301)).min(total_lines - report.lines);
        let lines: Vec<Vec<u8>> = (0..n).map(|_| generator.line()).collect();
        let outcome = run_session(binary, &lines, Duration::from_secs(1));
        report.sessions += 1;
        report.lines += n;
        report.bestmoves += outcome.bestmoves;
        if !outcome.passed() {
            report.hangs += usize::from(outcome.hang.is_some());
            report.panics += usize::from(outcome.panic.is_some());
            report.bad_bestmoves += outcome.bad_bestmoves.len();
            let _ = std::fs::create_dir_all(failure_dir);
            let file = failure_dir.join(format!("fuzz-{seed}-{}.txt", report.sessions));
            let mut input = lines.join(&b'\n');
            input.push(b'\n');
            let _ = std::fs::write(&file, input);
            report.failures.push(format!(
                "session {} (input {}): {:?}",
                report.sessions,
                file.display(),
                outcome
            ));
        }
    }
    report
}
