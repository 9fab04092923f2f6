//! Playing a match: game pairs from the openings, colours swapped, on `concurrency`
//! worker threads that each own their two players (in-process searchers with their own
//! hash tables, or their own engine processes). The main thread collects finished
//! pairs, keeps the statistics and the SPRT, prints the live line, writes PGN and
//! appends every pair to the results file, from which `--resume` continues.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use occam::position::Game;
use serde::{Deserialize, Serialize};

use super::clock::{ClockTally, PairClock, pair_clock};
use super::sprt::{Decision, Sprt};
use crate::interrupt;
use crate::play::game::{
    Adjudication, GameRecord, Outcome, PlayerFault, TABLEBASE_REASON, TimeControl, pair_points,
    play_pair,
};
use crate::play::pgn::{PgnWriter, render};
use crate::play::side::Side;
use crate::stats::Tally;

/// How often the live line is logged when stderr is not a terminal.
const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Everything a match needs.
pub struct MatchConfig<'a> {
    pub a: &'a Side,
    pub b: &'a Side,
    /// Pairs to play at most (the SPRT may stop earlier).
    pub pairs: u64,
    pub concurrency: usize,
    pub tc: TimeControl,
    pub adjudication: Adjudication,
    /// Pair `i` starts from `openings[i % len]`.
    pub openings: &'a [Game],
    pub hash_mb: usize,
    pub sprt: Option<Sprt>,
    pub pgn: Option<&'a PgnWriter>,
    /// JSON-lines record of every pair; with `resume`, pairs found in it are not replayed.
    pub results: Option<PathBuf>,
    pub resume: bool,
    /// Print the full report every this many pairs (0: only at the end).
    pub report_every: u64,
    /// Describes the settings that must not change across a resume (limits, openings…).
    pub settings: String,
    /// Print progress and reports (off for quiet callers such as tests).
    pub verbose: bool,
}

/// What a match found.
#[derive(Clone, Debug)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    pub tally: Tally,
    pub sprt: Option<(Sprt, f64, Decision)>,
    /// Faults per engine name: (crashes/hangs, illegal moves, time forfeits).
    pub faults: BTreeMap<String, [u64; 3]>,
    /// Games decided by `--syzygy` tablebase adjudication, from A's view: (wins,
    /// draws, losses); `None` without tables. Part of `tally` too.
    pub tablebase: Option<[u64; 3]>,
    /// How A and B spent their clocks (games on a clock only).
    pub clock: ClockTally,
    /// Pairs played in this run (not counting resumed ones) and the time they took.
    pub played_pairs: u64,
    pub elapsed: Duration,
    /// Stopped by Ctrl-C before the last pair (and before the SPRT decided).
    pub stopped: bool,
}

impl MatchResult {
    pub fn games_per_second(&self) -> f64 {
        2.0 * self.played_pairs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The fastchess-style result block.
    pub fn report(&self, settings: &str) -> String {
        let mut out = format!("Results of {} vs {} ({settings}):\n", self.a, self.b);
        match self.tally.summary() {
            Some(s) => out.push_str(&s.report(&self.tally)),
            None => out.push_str("no games played"),
        }
        out.push('\n');
        if let Some((sprt, llr, _)) = &self.sprt {
            out.push_str(&sprt.status(*llr));
            out.push('\n');
        }
        if let Some([w, d, l]) = self.tablebase {
            out.push_str(&format!(
                "Tablebase adjudications: {} games ({} W, {w}-{d}-{l} W-D-L), included above\n",
                w + d + l,
                self.a
            ));
        }
        if let Some(line) = self.clock.report(&self.a, &self.b, self.tally.games()) {
            out.push_str(&line);
        }
        for (name, [crash, illegal, time]) in &self.faults {
            out.push_str(&format!(
                "Faults of {name}: {} (crash/hang {crash}, illegal move {illegal}, time forfeit {time}), each scored as a loss\n",
                crash + illegal + time
            ));
        }
        if let Some((sprt, _, decision)) = &self.sprt
            && *decision != Decision::Continue
        {
            out.push_str(&format!(
                "SPRT ([{:.2}, {:.2}]) completed - {decision}\n",
                sprt.elo0, sprt.elo1
            ));
        }
        out
    }

    /// One line: W-D-L, Elo ± error, LLR.
    pub fn live_line(&self) -> String {
        let t = &self.tally;
        let mut line = format!("{}-{}-{} (W-D-L)", t.wins, t.draws, t.losses);
        if let Some(s) = t.summary() {
            let [elo, elo_error, nelo, nelo_error] = s.elo_texts();
            line.push_str(&format!(
                "  Elo {elo} ± {elo_error}  nElo {nelo} ± {nelo_error}"
            ));
        }
        if let Some((sprt, llr, _)) = &self.sprt {
            line.push_str(&format!(
                "  LLR {llr:.2} ({:.2}, {:.2})",
                sprt.lower(),
                sprt.upper()
            ));
        }
        line
    }
}

/// One line of the results file after its header.
#[derive(Serialize, Deserialize)]
struct PairLine {
    pair: u64,
    /// Results of the game with A as White, then with A as Black (PGN notation).
    results: [String; 2],
    reasons: [String; 2],
    /// On a clock, how each game's sides spent it (absent in files of other matches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clock: Option<PairClock>,
}

#[derive(Serialize, Deserialize)]
struct HeaderLine {
    occam_match: u32,
    fingerprint: String,
}

fn outcome_of(pgn: &str) -> Option<Outcome> {
    match pgn {
        "1-0" => Some(Outcome::WhiteWins),
        "0-1" => Some(Outcome::BlackWins),
        "1/2-1/2" => Some(Outcome::Draw),
        _ => None,
    }
}

/// The results file: done pairs and their tally, the file opened for appending.
struct ResultsFile {
    file: File,
    done: HashSet<u64>,
    tally: Tally,
    /// Tablebase adjudications among the done pairs (see [`MatchResult::tablebase`]).
    tablebase: [u64; 3],
    /// Clock use of the done pairs.
    clock: ClockTally,
}

impl ResultsFile {
    fn open(path: &Path, fingerprint: &str, resume: bool) -> Result<ResultsFile> {
        let shown = path.display();
        let mut done = HashSet::new();
        let mut tally = Tally::default();
        let mut tablebase = [0; 3];
        let mut clock = ClockTally::default();
        if !resume {
            if path.exists() {
                bail!(
                    "results file {shown} already exists: pass --resume to continue that match, or choose another --results file"
                );
            }
            let mut file = File::create(path).with_context(|| format!("cannot create {shown}"))?;
            let header = HeaderLine {
                occam_match: 1,
                fingerprint: fingerprint.to_string(),
            };
            writeln!(file, "{}", serde_json::to_string(&header)?)?;
            return Ok(ResultsFile {
                file,
                done,
                tally,
                tablebase,
                clock,
            });
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--resume: cannot read results file {shown}"))?;
        // A run killed mid-write leaves a partial last line: keep only complete lines.
        let complete = match text.rfind('\n') {
            Some(i) => &text[..=i],
            None => "",
        };
        let mut lines = complete.lines();
        let header: HeaderLine = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .with_context(|| format!("--resume: {shown} is not a match results file"))?;
        if header.fingerprint != fingerprint {
            bail!(
                "--resume: {shown} belongs to a different match:\n  file:    {}\n  current: {fingerprint}\nuse the same sides and game settings, or another --results file",
                header.fingerprint
            );
        }
        for (number, line) in lines.enumerate() {
            let pair: PairLine = serde_json::from_str(line)
                .with_context(|| format!("--resume: {shown} line {} is corrupt", number + 2))?;
            let (Some(first), Some(second)) =
                (outcome_of(&pair.results[0]), outcome_of(&pair.results[1]))
            else {
                bail!("--resume: {shown} line {}: unknown result", number + 2);
            };
            if done.insert(pair.pair) {
                tally.add_pair(pair_points(first, second));
                count_tablebase(&mut tablebase, &pair.reasons[0], first, true);
                count_tablebase(&mut tablebase, &pair.reasons[1], second, false);
                if let Some(pair_clock) = &pair.clock {
                    clock.add_pair(pair_clock);
                }
            }
        }
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open {shown}"))?;
        file.set_len(complete.len() as u64)?;
        let mut file = file;
        use std::io::Seek as _;
        file.seek(std::io::SeekFrom::End(0))?;
        Ok(ResultsFile {
            file,
            done,
            tally,
            tablebase,
            clock,
        })
    }

    fn append(
        &mut self,
        pair: u64,
        games: &[GameRecord; 2],
        clock: Option<PairClock>,
    ) -> Result<()> {
        let line = PairLine {
            pair,
            results: [
                games[0].outcome.pgn().to_string(),
                games[1].outcome.pgn().to_string(),
            ],
            reasons: [games[0].reason.clone(), games[1].reason.clone()],
            clock,
        };
        // One write per line, flushed: a crash loses at most the line being written.
        let text = format!("{}\n", serde_json::to_string(&line)?);
        self.file.write_all(text.as_bytes())?;
        self.file.flush()?;
        Ok(())
    }
}

/// Counts a game in (A wins, draws, A losses) when the tables decided it; `a_white`
/// says whether A had White.
fn count_tablebase(counts: &mut [u64; 3], reason: &str, outcome: Outcome, a_white: bool) {
    if reason != TABLEBASE_REASON {
        return;
    }
    let index = match (outcome, a_white) {
        (Outcome::Draw, _) => 1,
        (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 0,
        _ => 2,
    };
    counts[index] += 1;
}

fn fault_index(fault: &PlayerFault) -> usize {
    match fault {
        PlayerFault::Crash(_) => 0,
        PlayerFault::IllegalMove(_) => 1,
        PlayerFault::Timeout => 2,
    }
}

/// Plays the match (or what is left of it) and returns its result: the results file
/// is opened (resumed), the players started, then the workers play the pending pairs
/// while this thread collects them.
pub fn play_match(config: &MatchConfig<'_>) -> Result<MatchResult> {
    if config.openings.is_empty() {
        bail!("no openings to play from");
    }
    if config.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    let fingerprint = format!(
        "{} vs {} | {}",
        config.a.describe(),
        config.b.describe(),
        config.settings
    );
    let results = config
        .results
        .as_deref()
        .map(|p| ResultsFile::open(p, &fingerprint, config.resume))
        .transpose()?;
    let mut collector = Collector::new(config, results)?;
    let pending: Vec<u64> = (0..config.pairs)
        .filter(|i| {
            collector
                .results
                .as_ref()
                .is_none_or(|r| !r.done.contains(i))
        })
        .collect();
    if pending.is_empty() || collector.decided() {
        if config.verbose && config.resume {
            eprintln!("resume: nothing left to play");
        }
        return Ok(collector.result);
    }
    if config.verbose && collector.result.tally.pairs() > 0 {
        eprintln!(
            "resume: {} pairs already played, {} to go",
            collector.result.tally.pairs(),
            pending.len()
        );
    }
    // Players first, on this thread: a broken engine command fails here, clearly.
    let slots = config.concurrency.min(pending.len());
    let mut players = Vec::with_capacity(slots);
    for _ in 0..slots {
        players.push((
            config.a.player(config.hash_mb)?,
            config.b.player(config.hash_mb)?,
        ));
    }
    collector.start(pending.len() as u64, slots);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = channel::<(u64, [GameRecord; 2])>();
    let outcome: Result<()> = std::thread::scope(|scope| {
        for (mut a, mut b) in players {
            let tx = tx.clone();
            let (next, stop, pending) = (&next, &stop, &pending);
            scope.spawn(move || {
                // After a Ctrl-C no new pair starts; the ones in flight are recorded.
                while !stop.load(Ordering::Relaxed) && !interrupt::requested() {
                    let Some(&pair) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let opening = &config.openings[(pair % config.openings.len() as u64) as usize];
                    let games = play_pair(
                        a.as_mut(),
                        b.as_mut(),
                        opening,
                        config.tc,
                        &config.adjudication,
                    );
                    if tx.send((pair, games)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut failure = Ok(());
        for (pair, games) in rx {
            if stop.load(Ordering::Relaxed) {
                // Pairs finishing after the decision are not counted: the test stopped.
                continue;
            }
            match collector.record(pair, &games) {
                Ok(true) => {}
                Ok(false) => stop.store(true, Ordering::Relaxed),
                Err(e) => {
                    failure = Err(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        failure
    });
    collector.finish(outcome, pending.len() as u64)
}

/// The main thread's side of a match: the tally and SPRT, the results file, PGN and
/// the live line, fed one finished pair at a time.
struct Collector<'c, 'a> {
    config: &'c MatchConfig<'a>,
    result: MatchResult,
    results: Option<ResultsFile>,
    bar: ProgressBar,
    last_log: Instant,
    started: Instant,
}

impl<'c, 'a> Collector<'c, 'a> {
    /// The result so far: the pairs of a resumed results file, with their SPRT.
    fn new(config: &'c MatchConfig<'a>, results: Option<ResultsFile>) -> Result<Self> {
        let mut collector = Collector {
            config,
            result: MatchResult {
                a: config.a.name().to_string(),
                b: config.b.name().to_string(),
                tally: results.as_ref().map(|r| r.tally).unwrap_or_default(),
                sprt: None,
                faults: BTreeMap::new(),
                tablebase: config
                    .adjudication
                    .tablebases
                    .as_ref()
                    .map(|_| results.as_ref().map_or([0; 3], |r| r.tablebase)),
                clock: results.as_ref().map(|r| r.clock).unwrap_or_default(),
                played_pairs: 0,
                elapsed: Duration::ZERO,
                stopped: false,
            },
            results,
            bar: ProgressBar::hidden(),
            last_log: Instant::now(),
            started: Instant::now(),
        };
        collector.update_sprt()?;
        Ok(collector)
    }

    fn update_sprt(&mut self) -> Result<()> {
        if let Some(sprt) = self.config.sprt {
            let llr = sprt.checked_llr(&self.result.tally.penta)?;
            self.result.sprt = Some((sprt, llr, sprt.decide(llr)));
        }
        Ok(())
    }

    /// The SPRT has stopped at a bound.
    fn decided(&self) -> bool {
        matches!(self.result.sprt, Some((_, _, d)) if d != Decision::Continue)
    }

    /// Shows the match line and the progress bar; the clock starts now.
    fn start(&mut self, pending: u64, slots: usize) {
        let config = self.config;
        if config.verbose {
            let bar = ProgressBar::new(config.pairs);
            bar.set_style(
                ProgressStyle::with_template("{pos}/{len} pairs [{elapsed_precise}] {msg}")
                    .expect("valid template"),
            );
            bar.set_position(config.pairs - pending);
            self.bar = bar;
            eprintln!(
                "{} vs {}: up to {} pairs, {}, concurrency {}{}",
                config.a.name(),
                config.b.name(),
                config.pairs,
                config.settings,
                slots,
                match &config.sprt {
                    Some(s) => format!(
                        ", SPRT [{}, {}] {:?} alpha={} beta={}",
                        s.elo0, s.elo1, s.model, s.alpha, s.beta
                    ),
                    None => String::new(),
                }
            );
        }
        self.last_log = Instant::now();
        self.started = Instant::now();
    }

    /// Counts a finished pair, reports its faults, writes it (PGN, results file) and
    /// updates the SPRT. Returns whether the match goes on (false once the SPRT has
    /// decided); an error stops it.
    fn record(&mut self, pair: u64, games: &[GameRecord; 2]) -> Result<bool> {
        let config = self.config;
        self.result
            .tally
            .add_pair(pair_points(games[0].outcome, games[1].outcome));
        self.result.played_pairs += 1;
        if let Some(counts) = &mut self.result.tablebase {
            for (k, g) in games.iter().enumerate() {
                count_tablebase(counts, &g.reason, g.outcome, k == 0);
            }
        }
        let clock = pair_clock(games);
        if let Some(clock) = &clock {
            self.result.clock.add_pair(clock);
        }
        for g in games {
            if let Some((color, fault)) = &g.fault {
                let name = if color.is_white() { &g.white } else { &g.black };
                self.result.faults.entry(name.clone()).or_default()[fault_index(fault)] += 1;
                if config.verbose {
                    self.bar
                        .suspend(|| eprintln!("pair {pair}: {} {}", name, g.reason));
                }
            }
        }
        // The results file first: it is what a resume trusts. A run killed between the
        // two writes leaves the pair's games out of the PGN rather than in it twice (the
        // pair replayed on resume).
        let mut failure = Ok(());
        if let Some(file) = &mut self.results
            && let Err(e) = file.append(pair, games, clock)
        {
            failure = Err(e);
        }
        if let Some(pgn) = config.pgn {
            for (k, g) in games.iter().enumerate() {
                if let Err(e) = pgn.write(&render(g, &format!("{}.{}", pair + 1, k + 1), &[])) {
                    failure = Err(e);
                }
            }
        }
        if let Err(e) = self.update_sprt() {
            failure = Err(e);
        }
        self.show();
        failure.map(|()| !self.decided())
    }

    /// The live line; without a terminal (the bar invisible) logged now and then; the
    /// full report every --report-every pairs.
    fn show(&mut self) {
        let config = self.config;
        self.bar.inc(1);
        self.bar.set_message(self.result.live_line());
        if config.verbose && self.bar.is_hidden() && self.last_log.elapsed() >= LOG_INTERVAL {
            self.last_log = Instant::now();
            eprintln!(
                "{}/{} pairs: {}",
                self.result.tally.pairs(),
                config.pairs,
                self.result.live_line()
            );
        }
        if config.verbose
            && config.report_every > 0
            && self
                .result
                .tally
                .pairs()
                .is_multiple_of(config.report_every)
        {
            self.result.elapsed = self.started.elapsed();
            let report = self.result.report(&config.settings);
            self.bar.suspend(|| println!("{report}"));
        }
    }

    fn finish(mut self, outcome: Result<()>, pending: u64) -> Result<MatchResult> {
        self.bar.finish_and_clear();
        self.result.elapsed = self.started.elapsed();
        self.result.stopped = self.result.played_pairs < pending && !self.decided();
        outcome?;
        Ok(self.result)
    }
}
