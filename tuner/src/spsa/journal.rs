//! A run's record on disk. The journal is the truth: its first line defines the run
//! ([`RunConfig`]), then one line per finished pair ([`PairRecord`], θ after it
//! included), each appended whole. The checkpoint only saves replaying the journal;
//! it names the journal it belongs to (a hash of the journal's header line, which
//! carries a fresh nonce per run), so a checkpoint left behind by another run is
//! never adopted. [`RunFiles`] names a run's files (journal, checkpoint, table,
//! result, plot) and moves an earlier run's aside for `--restart`.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use crate::design::Averaging;
use crate::param_files::write_atomically;
use crate::rules::RunRules;
use crate::rules::schedule::Hyper;
use crate::stats::Tally;
use crate::tuned::params::TunedParam;

/// What defines a run; stored as the journal's first line and checked on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub version: u32,
    pub files: Vec<PathBuf>,
    pub params: Vec<TunedParam>,
    pub hyper: Hyper,
    pub seed: u64,
    /// Fraction of the run (at its end) over which θ is averaged (under a power, where
    /// gain pairs are played).
    pub average_fraction: f64,
    /// θ after pair k is weighted by k^power over the whole run ([`Averaging`]); 0,
    /// and absent from the journal: equal weights over the `average_fraction`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub average_power: f64,
    /// The run plays the design (`design`): constant gains, some or all of them
    /// designed, because a tuned parameter's file left out `c_end` or `r_end`. False
    /// (and absent from the journal): fishtest's decaying gains from the files' values.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub designed: bool,
    /// The rules the run plays. Absent from the journal for Occam's (as in the
    /// journals written before there was a choice).
    #[serde(default, skip_serializing_if = "RunRules::is_occam")]
    pub rules: RunRules,
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

impl RunConfig {
    /// The pairs before this run's averaging window.
    pub fn averaging_window_start(&self) -> u64 {
        self.averaging().window_start(self.hyper.pairs)
    }

    pub fn averaging(&self) -> Averaging {
        Averaging {
            fraction: self.average_fraction,
            power: self.average_power,
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A parameter a run leaves out, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftOut {
    pub name: String,
    pub reason: String,
}

/// The server state that a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Results applied so far (the journal sequence number of the last one).
    pub seq: u64,
    pub theta: Vec<f64>,
    /// The weighted sum of θ ([`RunConfig::averaging`]), and the pairs applied in the
    /// averaging window.
    pub average_sum: Vec<f64>,
    pub average_count: u64,
    /// The sum of the weights; absent from checkpoints of runs with equal weights,
    /// whose sum is `average_count`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub average_weight: f64,
    pub min_seen: Vec<f64>,
    pub max_seen: Vec<f64>,
    /// θ+ results: wins, draws, losses (games) and pentanomial pair counts.
    pub wdl: [u64; 3],
    pub penta: [u64; 5],
    /// Every iteration k ≤ `done_below` is finished, plus those in `done_above`.
    pub done_below: u64,
    pub done_above: BTreeSet<u64>,
    /// The gain pairs (the averaged θ against the start, beside the SPSA pairs in the
    /// averaging window), from the averaged side's point of view. Kept in the
    /// checkpoint only: they do not move θ.
    #[serde(default)]
    pub gain: Tally,
}

impl State {
    /// A run's state before its first pair: θ at the parameters' start values.
    pub fn start(params: &[TunedParam]) -> State {
        let theta: Vec<f64> = params.iter().map(|p| p.start).collect();
        State {
            seq: 0,
            theta: theta.clone(),
            average_sum: vec![0.0; theta.len()],
            average_count: 0,
            average_weight: 0.0,
            min_seen: theta.clone(),
            max_seen: theta,
            wdl: [0; 3],
            penta: [0; 5],
            done_below: 0,
            done_above: BTreeSet::new(),
            gain: Tally::default(),
        }
    }
}

/// One finished pair, as written to the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    pub seq: u64,
    pub k: u64,
    pub flips: Vec<i8>,
    pub plus: Vec<i32>,
    pub minus: Vec<i32>,
    /// Half points θ+ scored over the pair, 0..=4 (the pentanomial index).
    pub penta: u8,
    /// θ+'s wins, draws and losses over the two games.
    pub wdl: [u64; 3],
    /// θ after this update (for plots and for checking a replay).
    pub theta: Vec<f64>,
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

/// Journal, checkpoint and result files of a run, named after its journal.
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
            self.sibling("probe.json"),
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

/// Creates the journal of a new run (never over an existing file) holding the
/// header line of `config`: the open file, its length and the journal's id.
pub fn create(path: &Path, config: &RunConfig) -> Result<(File, u64, String)> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot create journal {}", path.display()))?;
    let header = format!(
        "{}\n",
        serde_json::to_string(&JournalLine::Header(config.clone()))?
    );
    file.write_all(header.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write journal {}", path.display()))?;
    Ok((file, header.len() as u64, header_id(&header)))
}

/// The journal line of a finished pair.
pub fn pair_line(record: PairRecord) -> Result<String> {
    Ok(format!(
        "{}\n",
        serde_json::to_string(&JournalLine::Pair(record))?
    ))
}

/// Writes `state` atomically as the checkpoint of the journal `journal_id`.
pub fn write_checkpoint(files: &RunFiles, journal_id: &str, state: &State) -> Result<()> {
    let checkpoint = Checkpoint {
        journal: journal_id.to_string(),
        state: state.clone(),
    };
    write_atomically(&files.checkpoint, &serde_json::to_string(&checkpoint)?)?;
    Ok(())
}

/// The state in the run's checkpoint, if there is one; a checkpoint of another journal
/// (or of an older format that names none) is refused.
pub fn read_checkpoint(files: &RunFiles, journal_id: &str) -> Result<Option<State>> {
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

/// A journal as read back.
pub struct Journal {
    pub config: RunConfig,
    pub records: Vec<PairRecord>,
    /// Byte length of the intact part (a final line torn by a kill is left out).
    pub good_len: u64,
    /// [`header_id`] of the header line.
    pub id: String,
}

/// Reads a journal: its header, the pairs, and the byte length of the intact part.
pub fn read_journal(path: &Path) -> Result<Journal> {
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
pub mod tests {
    use super::*;

    /// A run of `params` over `pairs` pairs with the default gains.
    pub fn config(params: Vec<TunedParam>, pairs: u64, seed: u64) -> RunConfig {
        RunConfig {
            version: 1,
            files: vec![],
            params,
            hyper: Hyper::new(pairs, None, Hyper::ALPHA, Hyper::GAMMA),
            seed,
            average_fraction: 0.25,
            average_power: 0.0,
            designed: false,
            rules: RunRules::OCCAM,
            games: "synthetic".into(),
            openings: 10,
            nonce: 0,
            left_out: Vec::new(),
            engine: None,
        }
    }

    /// A parameter on [0, 200] with c_end 4 and r_end 0.01.
    pub fn param(name: &str, start: f64) -> TunedParam {
        TunedParam {
            name: name.into(),
            start,
            min: 0,
            max: 200,
            c_end: 4.0,
            r_end: 0.01,
        }
    }

    /// What a run leaves behind before its first pair: its journal and checkpoint.
    fn start_run(files: &RunFiles, seed: u64) {
        let run = config(vec![param("a", 100.0)], 5, seed);
        let (_, _, id) = create(&files.journal, &run).unwrap();
        let state = State::start(&run.params);
        write_checkpoint(files, &id, &state).unwrap();
        assert_eq!(read_checkpoint(files, &id).unwrap(), Some(state));
    }

    #[test]
    fn a_journal_is_never_created_over_another() {
        let dir = crate::test_util::scratch_dir("spsa-create");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        start_run(&files, 1);
        let before = std::fs::read(&files.journal).unwrap();
        assert!(create(&files.journal, &config(vec![param("a", 1.0)], 5, 2)).is_err());
        assert_eq!(std::fs::read(&files.journal).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn restart_moves_every_file_aside_without_overwriting() {
        let dir = crate::test_util::scratch_dir("spsa-rotate");
        let files = RunFiles::new(dir.join("run.spsa.jsonl"));
        assert_eq!(files.rotate().unwrap(), None);
        for round in 1..=3u32 {
            start_run(&files, round.into());
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

    /// The rules are in the header of a run of fishtest's rules only: a header without
    /// them (every journal written before there was a choice) is Occam's.
    #[test]
    fn a_header_without_rules_is_occams() {
        let occam = config(vec![param("a", 100.0)], 5, 1);
        let text = serde_json::to_string(&occam).unwrap();
        assert!(!text.contains("rules"), "{text}");
        let read: RunConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(read.rules, RunRules::OCCAM);
        let fishtest = RunConfig {
            rules: RunRules::named("fishtest").unwrap(),
            ..occam
        };
        let text = serde_json::to_string(&fishtest).unwrap();
        assert!(text.contains(r#""rules":"fishtest""#), "{text}");
        assert_eq!(serde_json::from_str::<RunConfig>(&text).unwrap(), fishtest);
    }
}
