//! The SPSA parameter server: the one object that owns θ, the iteration counter, the
//! random streams and the journal. Workers take a [`WorkItem`], play the pair without
//! holding any lock, and hand the pentanomial result back to [`Server::apply`]
//! (asynchronous SPSA, as fishtest does).
//!
//! Everything random about iteration k (flips, rounding) comes from a stream seeded by
//! (seed, k), so a run is reproducible, and a resumed run re-issues exactly the
//! iterations that were in flight when it was killed.
//!
//! The journal is the truth; the checkpoint only saves replaying it. A checkpoint names
//! the journal it belongs to (a hash of the journal's header line, which carries a
//! fresh nonce per run) and is written right after the header, so a checkpoint left
//! behind by another run can never be adopted. The state moves only after its pair is
//! in the journal, and after a failed write the journal takes nothing more, so the file
//! always ends on a pair it can be resumed from.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Bernoulli, Distribution};
use serde::{Deserialize, Serialize};

use super::schedule::{Gains, Hyper, Realised, realise, step};
use crate::params_file::write_atomically;

/// One tuned parameter as the server sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedParam {
    pub name: String,
    pub start: f64,
    pub min: i32,
    pub max: i32,
    pub c_end: f64,
    pub r_end: f64,
}

impl TunedParam {
    /// How far `theta` lies from the start, in units of `c_end` (signed).
    pub fn change_c_end(&self, theta: f64) -> f64 {
        (theta - self.start) / self.c_end
    }
}

/// The indices of `params`, those whose `theta` moved furthest from their start (in
/// units of `c_end`) first; equal movers keep the run's order.
pub fn by_movement(params: &[TunedParam], theta: &[f64]) -> Vec<usize> {
    let moved = |i: usize| params[i].change_c_end(theta[i]).abs();
    let mut order: Vec<usize> = (0..params.len()).collect();
    order.sort_by(|&a, &b| moved(b).total_cmp(&moved(a)));
    order
}

impl From<&occam_params::Param> for TunedParam {
    /// A file entry as a run tunes it: from its current `value`.
    fn from(e: &occam_params::Param) -> TunedParam {
        TunedParam {
            name: e.name.clone(),
            start: f64::from(e.value),
            min: e.min,
            max: e.max,
            c_end: e.c_end,
            r_end: e.r_end,
        }
    }
}

/// What defines a run; stored as the journal's first line and checked on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub version: u32,
    pub files: Vec<PathBuf>,
    pub params: Vec<TunedParam>,
    pub hyper: Hyper,
    pub seed: u64,
    /// Fraction of the run (at its end) over which θ is averaged.
    pub average_fraction: f64,
    /// The game settings, as a description (limits, openings, hash).
    pub games: String,
    pub openings: usize,
    /// Drawn afresh for every new run, so that two runs with the same settings still
    /// have different headers (a checkpoint is bound to its journal's header).
    #[serde(default)]
    pub nonce: u64,
    /// Parameters of the files that this run does not tune because its games cannot
    /// measure them (clock-only parameters in fixed-node games), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// The external UCI engine the run tunes (command, arguments, options); absent for
    /// Occam in-process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
}

/// A parameter a run leaves out, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftOut {
    pub name: String,
    pub reason: String,
}

/// One game pair to play.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkItem {
    pub k: u64,
    pub flips: Vec<i8>,
    pub realised: Vec<Realised>,
    /// Index into the opening list.
    pub opening: usize,
}

impl WorkItem {
    pub fn plus(&self) -> Vec<i32> {
        self.realised.iter().map(|r| r.plus).collect()
    }
    pub fn minus(&self) -> Vec<i32> {
        self.realised.iter().map(|r| r.minus).collect()
    }
}

/// One finished pair, as written to the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PairRecord {
    seq: u64,
    k: u64,
    flips: Vec<i8>,
    plus: Vec<i32>,
    minus: Vec<i32>,
    /// Half points θ+ scored over the pair, 0..=4 (the pentanomial index).
    penta: u8,
    /// θ+'s wins, draws and losses over the two games.
    wdl: [u64; 3],
    /// θ after this update (for plots and for checking a replay).
    theta: Vec<f64>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum JournalLine {
    Header(RunConfig),
    Pair(PairRecord),
}

/// The checkpoint file: the state after `state.seq` journaled pairs, and the identity
/// of the journal it belongs to.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    /// [`header_id`] of the journal's header line.
    journal: String,
    state: State,
}

/// Identifies a journal by its header line (FNV-1a, stable across builds).
fn header_id(header_line: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in header_line.trim_end().bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Where journal lines go: the journal file or, in tests, a writer that fails on cue.
pub trait JournalSink: Send {
    /// Appends one whole line (one write call, so a failure tears at most this line).
    fn append(&mut self, line: &[u8]) -> std::io::Result<()>;
    /// Cuts the journal back to `len` bytes (drops what a failed append left).
    fn truncate(&mut self, len: u64) -> std::io::Result<()>;
    /// Makes everything appended durable (before a checkpoint refers to it).
    fn sync(&self) -> std::io::Result<()>;
}

impl JournalSink for File {
    fn append(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.write_all(line)?;
        self.flush()
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        self.set_len(len)
    }
    fn sync(&self) -> std::io::Result<()> {
        self.sync_data()
    }
}

/// The server state that a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Results applied so far (the journal sequence number of the last one).
    pub seq: u64,
    pub theta: Vec<f64>,
    /// Sum and count of θ over the averaging window.
    pub average_sum: Vec<f64>,
    pub average_count: u64,
    pub min_seen: Vec<f64>,
    pub max_seen: Vec<f64>,
    /// θ+ results: wins, draws, losses (games) and pentanomial pair counts.
    pub wdl: [u64; 3],
    pub penta: [u64; 5],
    /// Every iteration k ≤ `done_below` is finished, plus those in `done_above`.
    pub done_below: u64,
    pub done_above: BTreeSet<u64>,
}

/// Journal, checkpoint and result files of a run, derived from the first parameter file.
#[derive(Clone, Debug)]
pub struct RunFiles {
    pub journal: PathBuf,
    pub checkpoint: PathBuf,
}

impl RunFiles {
    pub fn new(journal: PathBuf) -> RunFiles {
        let checkpoint = journal.with_extension("checkpoint.json");
        RunFiles {
            journal,
            checkpoint,
        }
    }

    /// `params/search.json` → `runs/search.spsa.jsonl`: in the run folder, never
    /// beside the parameter files (the engine's build reads their folder).
    pub fn default_journal(first_file: &Path) -> PathBuf {
        let stem = first_file.file_stem().unwrap_or_default().to_string_lossy();
        crate::run_files::in_run_dir(format!("{stem}.spsa.jsonl"))
    }

    /// A sibling of the journal with another suffix (`csv`, `result.json`).
    pub fn sibling(&self, extension: &str) -> PathBuf {
        self.journal.with_extension(extension)
    }

    /// Every file of a run: journal, checkpoint, table, result and plot.
    fn all(&self) -> Vec<PathBuf> {
        vec![
            self.journal.clone(),
            self.checkpoint.clone(),
            self.sibling("csv"),
            self.sibling("result.json"),
            self.sibling("svg"),
        ]
    }

    /// `--restart`: moves every file of the earlier run aside as `<name>.old.N`, with the
    /// first N that none of them uses yet, so no earlier journal is ever overwritten.
    /// Returns N, or `None` when there was nothing to move.
    pub fn rotate(&self) -> Result<Option<u32>> {
        let present: Vec<PathBuf> = self.all().into_iter().filter(|p| p.exists()).collect();
        if present.is_empty() {
            return Ok(None);
        }
        let aside = |p: &Path, n: u32| PathBuf::from(format!("{}.old.{n}", p.display()));
        let n = (1..)
            .find(|&n| self.all().iter().all(|p| !aside(p, n).exists()))
            .expect("a free number");
        for p in &present {
            // A hard link never replaces an existing file; the original goes only once
            // its copy is in place.
            let to = aside(p, n);
            std::fs::hard_link(p, &to)
                .or_else(|_| std::fs::copy(p, &to).map(|_| ()))
                .and_then(|()| std::fs::remove_file(p))
                .with_context(|| format!("--restart: cannot move {} aside", p.display()))?;
        }
        Ok(Some(n))
    }
}

pub struct Server {
    pub config: RunConfig,
    gains: Vec<Gains>,
    pub state: State,
    /// Iterations issued but not yet finished (in flight).
    in_flight: BTreeSet<u64>,
    /// Iterations to issue before new ones (lost in flight by a killed run).
    reissue: BTreeSet<u64>,
    next_k: u64,
    journal: Option<Box<dyn JournalSink>>,
    /// Bytes of the journal that hold whole lines (where a torn append is cut back to).
    journal_len: u64,
    /// [`header_id`] of the journal, stored in every checkpoint.
    journal_id: String,
    /// Set by a failed journal write: from then on no pair is accepted.
    journal_failed: bool,
    files: Option<RunFiles>,
    last_checkpoint: Instant,
    checkpoint_every: Duration,
}

impl Server {
    /// A fresh run. With `files`, the journal is created (refusing to overwrite one)
    /// with a fresh nonce in its header, and a checkpoint bound to it is written at once
    /// (replacing any checkpoint an earlier run left behind).
    pub fn new(mut config: RunConfig, files: Option<RunFiles>) -> Result<Server> {
        let n = config.params.len();
        let theta: Vec<f64> = config.params.iter().map(|p| p.start).collect();
        let state = State {
            seq: 0,
            theta: theta.clone(),
            average_sum: vec![0.0; n],
            average_count: 0,
            min_seen: theta.clone(),
            max_seen: theta,
            wdl: [0; 3],
            penta: [0; 5],
            done_below: 0,
            done_above: BTreeSet::new(),
        };
        let Some(f) = &files else {
            return Ok(Server::assemble(
                config,
                state,
                None,
                0,
                String::new(),
                None,
            ));
        };
        config.nonce = fresh_nonce();
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&f.journal)
            .with_context(|| format!("cannot create journal {}", f.journal.display()))?;
        let header = format!(
            "{}\n",
            serde_json::to_string(&JournalLine::Header(config.clone()))?
        );
        file.write_all(header.as_bytes())
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write journal {}", f.journal.display()))?;
        let id = header_id(&header);
        let mut server = Server::assemble(
            config,
            state,
            Some(Box::new(file)),
            header.len() as u64,
            id,
            files,
        );
        server.checkpoint()?;
        Ok(server)
    }

    fn assemble(
        config: RunConfig,
        state: State,
        journal: Option<Box<dyn JournalSink>>,
        journal_len: u64,
        journal_id: String,
        files: Option<RunFiles>,
    ) -> Server {
        let gains = config
            .params
            .iter()
            .map(|p| Gains::new(p.c_end, p.r_end, &config.hyper))
            .collect();
        let next_k = state
            .done_above
            .last()
            .copied()
            .unwrap_or(0)
            .max(state.done_below)
            + 1;
        let reissue = (state.done_below + 1..next_k)
            .filter(|k| !state.done_above.contains(k))
            .collect();
        Server {
            config,
            gains,
            state,
            in_flight: BTreeSet::new(),
            reissue,
            next_k,
            journal,
            journal_len,
            journal_id,
            journal_failed: false,
            files,
            last_checkpoint: Instant::now(),
            checkpoint_every: Duration::from_secs(5),
        }
    }

    /// Continues a run from its journal, starting from its checkpoint when that belongs
    /// to this journal (a checkpoint of another run is refused, not adopted).
    pub fn resume(files: RunFiles) -> Result<Server> {
        Server::resume_with(files, |file| Box::new(file))
    }

    /// [`Server::resume`] with the journal file wrapped by `sink` (tests inject faults).
    fn resume_with(
        files: RunFiles,
        sink: impl FnOnce(File) -> Box<dyn JournalSink>,
    ) -> Result<Server> {
        let Journal {
            config,
            records,
            good_len,
            id,
        } = read_journal(&files.journal)?;
        // Drop a line torn by a kill in mid-write, so appending continues cleanly.
        let file = OpenOptions::new()
            .write(true)
            .open(&files.journal)
            .with_context(|| format!("cannot open journal {}", files.journal.display()))?;
        file.set_len(good_len)?;
        drop(file);
        let fresh = Server::new(config, None)?;
        let mut server = Server::assemble(fresh.config, fresh.state, None, 0, id, None);
        if let Some(state) = read_checkpoint(&files, &server.journal_id)? {
            if state.seq as usize > records.len() || state.theta.len() != server.state.theta.len() {
                bail!(
                    "checkpoint {} is at pair {} but journal {} holds {} pairs of {} parameters: they do not match; remove the checkpoint and resume again (the journal alone replays the run)",
                    files.checkpoint.display(),
                    state.seq,
                    files.journal.display(),
                    records.len(),
                    server.state.theta.len()
                );
            }
            server.state = state;
        }
        let from = server.state.seq as usize;
        for record in &records[from..] {
            server.replay(record)?;
        }
        let journal = OpenOptions::new()
            .append(true)
            .open(&files.journal)
            .with_context(|| format!("cannot append to journal {}", files.journal.display()))?;
        let mut server = Server::assemble(
            server.config,
            server.state,
            Some(sink(journal)),
            good_len,
            server.journal_id,
            Some(files),
        );
        server.checkpoint()?;
        Ok(server)
    }

    pub fn finished(&self) -> bool {
        self.state.done_below >= self.config.hyper.pairs
    }

    pub fn pairs_done(&self) -> u64 {
        self.state.seq
    }

    /// The pairs before the averaging window: θ is averaged from the pair after this.
    pub fn averaging_window_start(&self) -> u64 {
        let pairs = self.config.hyper.pairs as f64;
        ((1.0 - self.config.average_fraction) * pairs).floor() as u64
    }

    /// The next pair to play, or `None` when every planned iteration has been issued.
    pub fn next_work(&mut self) -> Option<WorkItem> {
        let k = match self.reissue.pop_first() {
            Some(k) => k,
            None if self.next_k <= self.config.hyper.pairs => {
                self.next_k += 1;
                self.next_k - 1
            }
            None => return None,
        };
        self.in_flight.insert(k);
        Some(self.work_item(k))
    }

    /// The work item for iteration k at the current θ.
    fn work_item(&self, k: u64) -> WorkItem {
        let mut rng = iteration_rng(self.config.seed, k);
        let coin = Bernoulli::new(0.5).expect("p = 0.5");
        let u: f64 = rng.random();
        let mut flips = Vec::with_capacity(self.gains.len());
        let mut realised = Vec::with_capacity(self.gains.len());
        for (i, p) in self.config.params.iter().enumerate() {
            let flip = if coin.sample(&mut rng) { 1 } else { -1 };
            let c_k = self.gains[i].c_k(k, &self.config.hyper);
            flips.push(flip);
            realised.push(realise(self.state.theta[i], c_k, flip, u, p.min, p.max));
        }
        WorkItem {
            k,
            flips,
            realised,
            opening: ((k - 1) as usize) % self.config.openings.max(1),
        }
    }

    /// Applies the result of a pair: `penta` = half points θ+ scored (0..=4), `wdl` =
    /// θ+'s game results. Journals the pair and checkpoints every few seconds.
    ///
    /// The state moves only once the pair is in the journal. A failed write cuts the
    /// journal back to its last whole line and closes it: this and every later pair is
    /// refused (the run stops; `--resume` plays them again).
    pub fn apply(&mut self, item: &WorkItem, penta: u8, wdl: [u64; 3]) -> Result<()> {
        if self.journal_failed {
            bail!(
                "pair {} not recorded: the journal stopped after a write error",
                item.k
            );
        }
        let mut state = self.state.clone();
        let record = self.update(&mut state, item.k, &item.flips, &item.realised, penta, wdl);
        if let Some(journal) = &mut self.journal {
            let line = format!("{}\n", serde_json::to_string(&JournalLine::Pair(record))?);
            if let Err(e) = journal.append(line.as_bytes()) {
                self.journal_failed = true;
                let _ = journal.truncate(self.journal_len);
                return Err(anyhow!(e).context(format!(
                    "cannot write pair {} to journal {}",
                    state.seq,
                    self.files
                        .as_ref()
                        .map_or_else(String::new, |f| f.journal.display().to_string())
                )));
            }
            self.journal_len += line.len() as u64;
        }
        self.in_flight.remove(&item.k);
        self.state = state;
        if self.last_checkpoint.elapsed() >= self.checkpoint_every || self.finished() {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Moves `s` by one pair's result and returns the pair's journal record.
    fn update(
        &self,
        s: &mut State,
        k: u64,
        flips: &[i8],
        realised: &[Realised],
        penta: u8,
        wdl: [u64; 3],
    ) -> PairRecord {
        let hyper = self.config.hyper;
        let result = i32::from(penta) - 2;
        for (i, p) in self.config.params.iter().enumerate() {
            let a_k = self.gains[i].a_k(k, &hyper);
            let moved = s.theta[i] + step(a_k, realised[i], flips[i], result);
            s.theta[i] = moved.clamp(f64::from(p.min), f64::from(p.max));
            s.min_seen[i] = s.min_seen[i].min(s.theta[i]);
            s.max_seen[i] = s.max_seen[i].max(s.theta[i]);
        }
        s.seq += 1;
        // Polyak–Ruppert: average θ over the last part of the run.
        if s.seq > self.averaging_window_start() {
            for (sum, t) in s.average_sum.iter_mut().zip(&s.theta) {
                *sum += t;
            }
            s.average_count += 1;
        }
        for (total, n) in s.wdl.iter_mut().zip(wdl) {
            *total += n;
        }
        s.penta[usize::from(penta.min(4))] += 1;
        s.done_above.insert(k);
        while s.done_above.remove(&(s.done_below + 1)) {
            s.done_below += 1;
        }
        PairRecord {
            seq: s.seq,
            k,
            flips: flips.to_vec(),
            plus: realised.iter().map(|r| r.plus).collect(),
            minus: realised.iter().map(|r| r.minus).collect(),
            penta,
            wdl,
            theta: s.theta.clone(),
        }
    }

    /// Re-applies a journaled pair (resume), checking it reproduces the recorded θ.
    fn replay(&mut self, record: &PairRecord) -> Result<()> {
        let realised: Vec<Realised> = record
            .plus
            .iter()
            .zip(&record.minus)
            .map(|(&plus, &minus)| Realised { plus, minus })
            .collect();
        if realised.len() != self.config.params.len() || record.flips.len() != realised.len() {
            bail!(
                "journal pair {} has {} values for {} parameters",
                record.seq,
                realised.len(),
                self.config.params.len()
            );
        }
        let mut state = self.state.clone();
        let replayed = self.update(
            &mut state,
            record.k,
            &record.flips,
            &realised,
            record.penta,
            record.wdl,
        );
        let drift = replayed
            .theta
            .iter()
            .zip(&record.theta)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if drift > 1e-6 {
            bail!(
                "journal pair {} does not replay to the recorded values (off by {drift}); the journal was edited or belongs to another run",
                record.seq
            );
        }
        self.state = state;
        Ok(())
    }

    /// Writes the server state atomically next to the journal, bound to the journal.
    pub fn checkpoint(&mut self) -> Result<()> {
        self.last_checkpoint = Instant::now();
        if let (Some(files), Some(journal)) = (&self.files, &self.journal) {
            journal.sync()?;
            let checkpoint = Checkpoint {
                journal: self.journal_id.clone(),
                state: self.state.clone(),
            };
            write_atomically(&files.checkpoint, &serde_json::to_string(&checkpoint)?)?;
        }
        Ok(())
    }

    /// θ averaged over the window (the last θ when the window is still empty).
    pub fn average(&self) -> Vec<f64> {
        if self.state.average_count == 0 {
            return self.state.theta.clone();
        }
        self.state
            .average_sum
            .iter()
            .map(|s| s / self.state.average_count as f64)
            .collect()
    }

    /// Iterations in flight (issued, not finished).
    #[cfg(test)]
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

/// The state in the run's checkpoint, if there is one; a checkpoint of another journal
/// (or of an older format that names none) is refused.
fn read_checkpoint(files: &RunFiles, journal_id: &str) -> Result<Option<State>> {
    let text = match std::fs::read_to_string(&files.checkpoint) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read {}", files.checkpoint.display()));
        }
    };
    let remedy = "remove it and resume again (the journal alone replays the run)";
    let checkpoint: Checkpoint = serde_json::from_str(&text).map_err(|_| {
        anyhow!(
            "{} is not a checkpoint bound to a journal (damaged, or written by an older tuner): {remedy}",
            files.checkpoint.display()
        )
    })?;
    if checkpoint.journal != journal_id {
        bail!(
            "{} belongs to another run than journal {} (a stale checkpoint left by an earlier run): {remedy}",
            files.checkpoint.display(),
            files.journal.display()
        );
    }
    Ok(Some(checkpoint.state))
}

/// A new run's nonce: the clock and the process id, mixed.
fn fresh_nonce() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut rng = iteration_rng(nanos, u64::from(std::process::id()));
    rng.random()
}

fn iteration_rng(seed: u64, k: u64) -> StdRng {
    // SplitMix-style mixing so neighbouring (seed, k) give unrelated streams.
    let mut z = seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    StdRng::seed_from_u64(z ^ (z >> 31))
}

/// A journal as read back.
struct Journal {
    config: RunConfig,
    records: Vec<PairRecord>,
    /// Byte length of the intact part (a final line torn by a kill is left out).
    good_len: u64,
    /// [`header_id`] of the header line.
    id: String,
}

/// Reads a journal: its header, the pairs, and the byte length of the intact part.
fn read_journal(path: &Path) -> Result<Journal> {
    let file = File::open(path).with_context(|| {
        format!(
            "cannot resume: no journal at {} (start the run without --resume)",
            path.display()
        )
    })?;
    let mut reader = BufReader::new(file);
    let mut config = None;
    let mut id = String::new();
    let mut records = Vec::new();
    let mut good_len = 0u64;
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = reader.read_line(&mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        let complete = line.ends_with('\n');
        match serde_json::from_str::<JournalLine>(line.trim_end()) {
            Ok(JournalLine::Header(c)) if number == 1 && complete => {
                id = header_id(&line);
                config = Some(c)
            }
            Ok(JournalLine::Pair(r)) if config.is_some() && complete => {
                if r.seq != records.len() as u64 + 1 {
                    bail!(
                        "{} line {number}: pair sequence {} follows {}",
                        path.display(),
                        r.seq,
                        records.len()
                    );
                }
                records.push(r)
            }
            _ if !complete => break, // torn final line
            _ => bail!(
                "{} line {number} is not a journal record of this tuner",
                path.display()
            ),
        }
        good_len += read as u64;
    }
    let config = config
        .with_context(|| format!("{} has no run header: not an SPSA journal", path.display()))?;
    Ok(Journal {
        config,
        records,
        good_len,
        id,
    })
}

/// The θ trajectories recorded in a journal: parameter names and, per pair, θ.
pub fn trajectories(path: &Path) -> Result<(RunConfig, Vec<Vec<f64>>)> {
    let journal = read_journal(path)?;
    Ok((
        journal.config,
        journal.records.into_iter().map(|r| r.theta).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn config(params: Vec<TunedParam>, pairs: u64, seed: u64) -> RunConfig {
        RunConfig {
            version: 1,
            files: vec![],
            params,
            hyper: Hyper::new(pairs, None, Hyper::ALPHA, Hyper::GAMMA),
            seed,
            average_fraction: 0.25,
            games: "synthetic".into(),
            openings: 10,
            nonce: 0,
            left_out: Vec::new(),
            engine: None,
        }
    }

    fn param(name: &str, start: f64) -> TunedParam {
        TunedParam {
            name: name.into(),
            start,
            min: 0,
            max: 200,
            c_end: 4.0,
            r_end: 0.01,
        }
    }

    /// A synthetic "game pair": θ+ scores better the closer it is to `optimum`. Returns
    /// the pentanomial index from a deterministic hash of k.
    fn synthetic_pair(item: &WorkItem, optimum: &[f64], k_noise: u64) -> u8 {
        let loss = |v: &[i32]| -> f64 {
            v.iter()
                .zip(optimum)
                .map(|(&x, o)| ((f64::from(x) - o) / 20.0).powi(2))
                .sum()
        };
        let edge = (loss(&item.minus()) - loss(&item.plus())).clamp(-1.0, 1.0);
        let mut rng = iteration_rng(k_noise, item.k);
        let mut half_points = 0u8;
        for _ in 0..2 {
            let x: f64 = rng.random();
            let p_win = 0.3 + 0.3 * edge;
            let p_loss = 0.3 - 0.3 * edge;
            half_points += if x < p_win {
                2
            } else if x < 1.0 - p_loss {
                1
            } else {
                0
            };
        }
        half_points
    }

    fn wdl(penta: u8) -> [u64; 3] {
        [u64::from(penta / 2), u64::from(penta % 2), 0]
    }

    #[test]
    fn converges_towards_a_known_optimum() {
        let optimum = [140.0, 40.0, 100.0];
        let cfg = config(
            vec![param("a", 60.0), param("b", 120.0), param("c", 100.0)],
            6000,
            3,
        );
        let mut server = Server::new(cfg, None).unwrap();
        while let Some(item) = server.next_work() {
            let p = synthetic_pair(&item, &optimum, 99);
            server.apply(&item, p, wdl(p)).unwrap();
        }
        assert!(server.finished());
        let avg = server.average();
        for (i, (a, o)) in avg.iter().zip(optimum).enumerate() {
            assert!(
                (a - o).abs() < 15.0,
                "param {i}: {a} vs optimum {o} ({avg:?})"
            );
        }
        // It really moved: the first two started 80 away.
        assert!((avg[0] - 60.0).abs() > 50.0 && (avg[1] - 120.0).abs() > 50.0);
    }

    #[test]
    fn a_killed_run_resumes_to_the_same_result() {
        let dir = crate::test_util::scratch_dir("spsa-resume");
        let optimum = [150.0, 50.0];
        let make = || config(vec![param("a", 100.0), param("b", 100.0)], 300, 11);

        // Uninterrupted, in order.
        let mut straight = Server::new(make(), None).unwrap();
        while let Some(item) = straight.next_work() {
            let p = synthetic_pair(&item, &optimum, 5);
            straight.apply(&item, p, wdl(p)).unwrap();
        }

        // Killed after 120 pairs with 2 more in flight, and a torn final journal line.
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        let mut first = Server::new(make(), Some(files.clone())).unwrap();
        first.checkpoint_every = Duration::ZERO;
        for _ in 0..120 {
            let item = first.next_work().unwrap();
            let p = synthetic_pair(&item, &optimum, 5);
            first.apply(&item, p, wdl(p)).unwrap();
        }
        first.checkpoint_every = Duration::from_secs(3600);
        for _ in 0..5 {
            let item = first.next_work().unwrap();
            let p = synthetic_pair(&item, &optimum, 5);
            first.apply(&item, p, wdl(p)).unwrap();
        }
        let _lost_in_flight = (first.next_work().unwrap(), first.next_work().unwrap());
        drop(first);
        let mut j = OpenOptions::new()
            .append(true)
            .open(&files.journal)
            .unwrap();
        write!(j, "{{\"type\":\"pair\",\"seq\":126,\"k\"").unwrap();
        drop(j);

        let mut resumed = Server::resume(files.clone()).unwrap();
        assert_eq!(resumed.pairs_done(), 125);
        let mut issued = vec![];
        while let Some(item) = resumed.next_work() {
            issued.push(item.k);
            let p = synthetic_pair(&item, &optimum, 5);
            resumed.apply(&item, p, wdl(p)).unwrap();
        }
        assert_eq!(&issued[..2], &[126, 127]);
        assert_eq!(resumed.state, straight.state);
        assert_eq!(resumed.average(), straight.average());
        // The journal replays to the same trajectory.
        let (_, thetas) = trajectories(&files.journal).unwrap();
        assert_eq!(thetas.len(), 300);
        assert_eq!(thetas.last().unwrap(), &straight.state.theta);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pairs_lost_in_flight_are_played_again_first() {
        let dir = crate::test_util::scratch_dir("spsa-lost");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        let mut first =
            Server::new(config(vec![param("a", 100.0)], 50, 2), Some(files.clone())).unwrap();
        let items: Vec<WorkItem> = (0..5).map(|_| first.next_work().unwrap()).collect();
        // Pairs 1, 2 and 5 finish; 3 and 4 are still being played when the run dies.
        for i in [0, 1, 4] {
            first.apply(&items[i], 3, [1, 1, 0]).unwrap();
        }
        drop(first);
        let mut resumed = Server::resume(files).unwrap();
        assert_eq!(resumed.pairs_done(), 3);
        let next: Vec<u64> = (0..3).map(|_| resumed.next_work().unwrap().k).collect();
        assert_eq!(next, [3, 4, 6]);
        assert_eq!(resumed.in_flight(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_is_never_overwritten_and_garbage_is_refused() {
        let dir = crate::test_util::scratch_dir("spsa-journal");
        let files = RunFiles::new(dir.join("x.spsa.jsonl"));
        let cfg = config(vec![param("a", 100.0)], 10, 1);
        Server::new(cfg.clone(), Some(files.clone())).unwrap();
        assert!(Server::new(cfg, Some(files.clone())).is_err());
        std::fs::write(&files.journal, "hello\n").unwrap();
        let err = Server::resume(files.clone()).err().unwrap().to_string();
        assert!(err.contains("line 1"), "{err}");
        let missing = RunFiles::new(dir.join("none.spsa.jsonl"));
        let err = Server::resume(missing).err().unwrap().to_string();
        assert!(err.contains("without --resume"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn scratch(name: &str) -> PathBuf {
        crate::test_util::scratch_dir(&format!("spsa-{name}"))
    }

    /// Plays `n` pairs of `server` on the synthetic game, one at a time.
    fn play(server: &mut Server, n: usize, optimum: &[f64]) {
        for _ in 0..n {
            let item = server.next_work().unwrap();
            let p = synthetic_pair(&item, optimum, 5);
            server.apply(&item, p, wdl(p)).unwrap();
        }
    }

    /// Issue 12: an earlier run's checkpoint stayed behind after its journal was removed;
    /// a new run was killed before its first timed checkpoint, and the resume took the
    /// old run's θ without a word. The new run's own checkpoint (written right after its
    /// header) is used instead, and a checkpoint of another journal is refused.
    #[test]
    fn a_stale_checkpoint_is_never_adopted() {
        let dir = scratch("stale");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        let optimum = [150.0];
        let mut old =
            Server::new(config(vec![param("a", 100.0)], 20, 1), Some(files.clone())).unwrap();
        play(&mut old, 20, &optimum); // finished: checkpointed
        drop(old);
        let stale = std::fs::read_to_string(&files.checkpoint).unwrap();
        std::fs::remove_file(&files.journal).unwrap();

        let mut new =
            Server::new(config(vec![param("a", 20.0)], 40, 2), Some(files.clone())).unwrap();
        new.checkpoint_every = Duration::from_secs(3600);
        play(&mut new, 20, &optimum);
        let killed_at = new.state.clone();
        drop(new);

        let resumed = Server::resume(files.clone()).unwrap();
        assert_eq!(resumed.state, killed_at);
        drop(resumed);

        std::fs::write(&files.checkpoint, &stale).unwrap();
        let err = Server::resume(files.clone()).err().expect("refused");
        assert!(err.to_string().contains("another run"), "{err}");
        // A checkpoint in the old format (a bare state) names no journal: refused too.
        let bare = serde_json::to_string(&killed_at).unwrap();
        std::fs::write(&files.checkpoint, bare).unwrap();
        let err = Server::resume(files.clone()).err().expect("refused");
        assert!(err.to_string().contains("not a checkpoint"), "{err}");
        // Without a checkpoint the journal alone replays the run.
        std::fs::remove_file(&files.checkpoint).unwrap();
        assert_eq!(Server::resume(files).unwrap().state, killed_at);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A journal file whose append number `fail_at` (0-based) writes half the line and
    /// fails; appends after it work again (a disk that was full for a moment).
    struct FailingJournal {
        file: File,
        appends: usize,
        fail_at: usize,
    }

    impl JournalSink for FailingJournal {
        fn append(&mut self, line: &[u8]) -> std::io::Result<()> {
            self.appends += 1;
            if self.appends - 1 == self.fail_at {
                self.file.write_all(&line[..line.len() / 2])?;
                return Err(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "injected: no space left on device",
                ));
            }
            self.file.write_all(line)
        }
        fn truncate(&mut self, len: u64) -> std::io::Result<()> {
            self.file.set_len(len)
        }
        fn sync(&self) -> std::io::Result<()> {
            self.file.sync_data()
        }
    }

    /// Issue 12: a failed journal write advanced θ anyway, and the other workers kept
    /// appending after it, so the journal had a gap or a glued line and could not be
    /// resumed. Now the run stops at the failed pair and resumes to the same result as
    /// a run that never failed.
    #[test]
    fn a_failed_journal_write_leaves_a_resumable_run() {
        let dir = scratch("failing");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        let optimum = [150.0, 50.0];
        let make = || config(vec![param("a", 100.0), param("b", 100.0)], 60, 4);
        let mut straight = Server::new(make(), None).unwrap();
        play(&mut straight, 60, &optimum);

        drop(Server::new(make(), Some(files.clone())).unwrap());
        let mut failing = Server::resume_with(files.clone(), |file| {
            Box::new(FailingJournal {
                file,
                appends: 0,
                fail_at: 10,
            })
        })
        .unwrap();
        failing.checkpoint_every = Duration::ZERO;
        play(&mut failing, 10, &optimum);
        // Pair 11 fails to be written; three other workers hand in their pairs after it.
        let items: Vec<WorkItem> = (0..4).map(|_| failing.next_work().unwrap()).collect();
        for (i, item) in items.iter().enumerate() {
            let p = synthetic_pair(item, &optimum, 5);
            let err = failing.apply(item, p, wdl(p)).expect_err("refused");
            let text = format!("{err:#}");
            if i == 0 {
                assert!(text.contains("no space left"), "{text}");
            } else {
                assert!(text.contains("stopped after a write error"), "{text}");
            }
            assert_eq!(failing.pairs_done(), 10);
        }
        failing.checkpoint().unwrap();
        drop(failing);

        let mut resumed = Server::resume(files.clone()).unwrap();
        assert_eq!(resumed.pairs_done(), 10);
        play(&mut resumed, 50, &optimum);
        assert!(resumed.next_work().is_none());
        assert_eq!(resumed.state, straight.state);
        assert_eq!(trajectories(&files.journal).unwrap().1.len(), 60);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn restart_moves_every_file_aside_without_overwriting() {
        let dir = scratch("rotate");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        assert_eq!(files.rotate().unwrap(), None);
        for round in 1..=3u32 {
            drop(
                Server::new(
                    config(vec![param("a", 100.0)], 5, round.into()),
                    Some(files.clone()),
                )
                .unwrap(),
            );
            std::fs::write(files.sibling("csv"), format!("table {round}")).unwrap();
            assert_eq!(files.rotate().unwrap(), Some(round));
            assert!(!files.journal.exists() && !files.checkpoint.exists());
        }
        for round in 1..=3u32 {
            let old = |p: &Path| PathBuf::from(format!("{}.old.{round}", p.display()));
            let table = std::fs::read_to_string(old(&files.sibling("csv"))).unwrap();
            assert_eq!(table, format!("table {round}"));
            let (cfg, _) = trajectories(&old(&files.journal)).unwrap();
            assert_eq!(cfg.seed, u64::from(round));
            assert!(old(&files.checkpoint).exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn work_items_depend_only_on_seed_k_and_theta() {
        let cfg = config(vec![param("a", 100.0), param("b", 50.0)], 100, 7);
        let mut s1 = Server::new(cfg.clone(), None).unwrap();
        let mut s2 = Server::new(cfg, None).unwrap();
        for _ in 0..10 {
            assert_eq!(s1.next_work(), s2.next_work());
        }
        let item = s1.work_item(3);
        for (r, f) in item.realised.iter().zip(&item.flips) {
            assert!(r.half_difference() * f64::from(*f) > 0.0);
        }
    }
}
