//! The SPSA parameter server: the one object that owns θ, the iteration counter, the
//! random streams and the journal. Workers take a [`WorkItem`], play the pair without
//! holding any lock, and hand the pentanomial result back to [`Server::apply`]
//! (asynchronous SPSA, as fishtest does).
//!
//! Everything random about iteration k (flips, rounding) comes from a stream seeded by
//! (seed, k), so a run is reproducible, and a resumed run re-issues exactly the
//! iterations that were in flight when it was killed.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
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

    /// `params/search.json` → `params/search.spsa.jsonl`.
    pub fn default_journal(first_file: &Path) -> PathBuf {
        first_file.with_extension("spsa.jsonl")
    }

    /// A sibling of the journal with another suffix (`csv`, `result.json`).
    pub fn sibling(&self, extension: &str) -> PathBuf {
        self.journal.with_extension(extension)
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
    journal: Option<File>,
    files: Option<RunFiles>,
    last_checkpoint: Instant,
    checkpoint_every: Duration,
}

impl Server {
    /// A fresh run. With `files`, the journal is created (refusing to overwrite one).
    pub fn new(config: RunConfig, files: Option<RunFiles>) -> Result<Server> {
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
        let journal = match &files {
            Some(f) => {
                let mut file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&f.journal)
                    .with_context(|| format!("cannot create journal {}", f.journal.display()))?;
                writeln!(
                    file,
                    "{}",
                    serde_json::to_string(&JournalLine::Header(config.clone()))?
                )?;
                file.sync_all()?;
                Some(file)
            }
            None => None,
        };
        Ok(Server::assemble(config, state, journal, files))
    }

    fn assemble(
        config: RunConfig,
        state: State,
        journal: Option<File>,
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
            files,
            last_checkpoint: Instant::now(),
            checkpoint_every: Duration::from_secs(5),
        }
    }

    /// Continues a run from its checkpoint and journal. Returns the server and the
    /// number of pairs recovered.
    pub fn resume(files: RunFiles) -> Result<Server> {
        let (config, records, good_len) = read_journal(&files.journal)?;
        // Drop a line torn by a kill in mid-write, so appending continues cleanly.
        let file = OpenOptions::new()
            .write(true)
            .open(&files.journal)
            .with_context(|| format!("cannot open journal {}", files.journal.display()))?;
        file.set_len(good_len)?;
        drop(file);
        let mut server =
            Server::assemble(config.clone(), Server::new(config, None)?.state, None, None);
        if let Ok(text) = std::fs::read_to_string(&files.checkpoint)
            && let Ok(state) = serde_json::from_str::<State>(&text)
            && state.seq as usize <= records.len()
            && state.theta.len() == server.config.params.len()
        {
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
        let state = server.state.clone();
        let mut server = Server::assemble(server.config, state, Some(journal), Some(files));
        server.checkpoint()?;
        Ok(server)
    }

    pub fn finished(&self) -> bool {
        self.state.done_below >= self.config.hyper.pairs
    }

    pub fn pairs_done(&self) -> u64 {
        self.state.seq
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
    pub fn apply(&mut self, item: &WorkItem, penta: u8, wdl: [u64; 3]) -> Result<()> {
        self.in_flight.remove(&item.k);
        let record = self.update(item.k, &item.flips, &item.realised, penta, wdl);
        if let Some(journal) = &mut self.journal {
            writeln!(
                journal,
                "{}",
                serde_json::to_string(&JournalLine::Pair(record))?
            )?;
            journal.flush()?;
        }
        if self.last_checkpoint.elapsed() >= self.checkpoint_every || self.finished() {
            self.checkpoint()?;
        }
        Ok(())
    }

    fn update(
        &mut self,
        k: u64,
        flips: &[i8],
        realised: &[Realised],
        penta: u8,
        wdl: [u64; 3],
    ) -> PairRecord {
        let hyper = self.config.hyper;
        let result = i32::from(penta) - 2;
        let s = &mut self.state;
        for (i, p) in self.config.params.iter().enumerate() {
            let a_k = self.gains[i].a_k(k, &hyper);
            let moved = s.theta[i] + step(a_k, realised[i], flips[i], result);
            s.theta[i] = moved.clamp(f64::from(p.min), f64::from(p.max));
            s.min_seen[i] = s.min_seen[i].min(s.theta[i]);
            s.max_seen[i] = s.max_seen[i].max(s.theta[i]);
        }
        s.seq += 1;
        // Polyak–Ruppert: average θ over the last part of the run.
        let window_start =
            ((1.0 - self.config.average_fraction) * hyper.pairs as f64).floor() as u64;
        if s.seq > window_start {
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
        let replayed = self.update(record.k, &record.flips, &realised, record.penta, record.wdl);
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
        Ok(())
    }

    /// Writes the server state atomically next to the journal.
    pub fn checkpoint(&mut self) -> Result<()> {
        self.last_checkpoint = Instant::now();
        if let (Some(files), Some(journal)) = (&self.files, &self.journal) {
            journal.sync_data()?;
            write_atomically(&files.checkpoint, &serde_json::to_string(&self.state)?)?;
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

fn iteration_rng(seed: u64, k: u64) -> StdRng {
    // SplitMix-style mixing so neighbouring (seed, k) give unrelated streams.
    let mut z = seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    StdRng::seed_from_u64(z ^ (z >> 31))
}

/// Reads a journal: its header, the pairs, and the byte length of the intact part (a
/// final line torn by a kill is left out).
fn read_journal(path: &Path) -> Result<(RunConfig, Vec<PairRecord>, u64)> {
    let file = File::open(path).with_context(|| {
        format!(
            "cannot resume: no journal at {} (start the run without --resume)",
            path.display()
        )
    })?;
    let mut reader = BufReader::new(file);
    let mut config = None;
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
            Ok(JournalLine::Header(c)) if number == 1 => config = Some(c),
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
    Ok((config, records, good_len))
}

/// The θ trajectories recorded in a journal: parameter names and, per pair, θ.
pub fn trajectories(path: &Path) -> Result<(RunConfig, Vec<Vec<f64>>)> {
    let (config, records, _) = read_journal(path)?;
    Ok((config, records.into_iter().map(|r| r.theta).collect()))
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
        let dir = std::env::temp_dir().join(format!("occam-spsa-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
        let dir = std::env::temp_dir().join(format!("occam-spsa-lost-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
        let dir = std::env::temp_dir().join(format!("occam-spsa-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
