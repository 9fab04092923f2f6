//! The SPSA parameter server: the one object that owns θ, the iteration counter, the
//! random streams and the run's journal. Workers take a [`WorkItem`], play the pair
//! without holding any lock, and hand the pentanomial result back to [`Server::apply`]
//! (asynchronous SPSA, as fishtest does).
//!
//! Everything random about iteration k (flips, rounding) comes from a stream seeded by
//! (seed, k), so a run is reproducible, and a resumed run re-issues exactly the
//! iterations that were in flight when it was killed.
//!
//! The server plays the run's rule set (`--rules`, one of `rules::RUN_RULE_SETS`) in
//! the update loop `tuner simulate` runs ([`Tune`]): the rule set draws θ± and moves θ,
//! the loop averages θ as the run's averaging says. What the server adds is the
//! bookkeeping of real games: pairs in flight and out of order, the journal and the
//! checkpoint, the gain pairs.
//!
//! The run is recorded in its journal (see [`super::journal`]): the state moves only
//! after its pair is in the journal, and after a failed write the journal takes
//! nothing more, so the file always ends on a pair it can be resumed from. A resumed
//! run starts from its checkpoint and replays the journal's pairs after it.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::journal::{
    self, Journal, JournalSink, PairRecord, RunConfig, RunFiles, State, read_checkpoint,
    read_journal,
};
use crate::play::game::{Outcome, pair_points};
use crate::rules::{AveragePlan, Draws, Pair, Tune, TuneState, average_of};
use crate::tuned::params::TunedParam;

/// One game pair to play: iteration k's θ+ and θ−.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkItem {
    pub k: u64,
    pub pair: Pair,
    /// Index into the opening list.
    pub opening: usize,
}

pub struct Server {
    pub config: RunConfig,
    /// The run's rule set and averaging.
    tune: Tune,
    /// The draws of one iteration of the run's rule set, from the iteration's stream.
    draws: fn(StdRng) -> Box<dyn Draws>,
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
    /// Gain pairs handed out and not yet back.
    gain_in_flight: u64,
}

/// A gain pair: what the run would write now (rounded) against the start values.
#[derive(Clone, Debug, PartialEq)]
pub struct GainPair {
    /// The averaged θ (Occam's rules) or the last θ (fishtest's).
    pub tuned: Vec<i32>,
    pub start: Vec<i32>,
    /// Index into the opening list.
    pub opening: usize,
}

impl Server {
    /// A fresh run. With `files`, the journal is created (refusing to overwrite one)
    /// with a fresh nonce in its header, and a checkpoint bound to it is written at once
    /// (replacing any checkpoint an earlier run left behind).
    pub fn new(mut config: RunConfig, files: Option<RunFiles>) -> Result<Server> {
        let state = State::start(&config.params);
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
        let (file, header_len, id) = journal::create(&f.journal, &config)?;
        let mut server =
            Server::assemble(config, state, Some(Box::new(file)), header_len, id, files);
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
        let rule_set = config.rules.set();
        let params = config.params.iter().map(TunedParam::rule_param).collect();
        let average = AveragePlan {
            averaging: config.averaging(),
            skipped: 0,
            pairs: config.hyper.pairs,
        };
        let tune = Tune::new((rule_set.build)(params, config.hyper), Some(average));
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
            tune,
            draws: rule_set.draws,
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
            gain_in_flight: 0,
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
        let mut draws = (self.draws)(iteration_rng(self.config.seed, k));
        let pair = self.tune.rules.perturb(k, &self.state.theta, &mut *draws);
        WorkItem {
            k,
            pair,
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
        let record = self.update(&mut state, item.k, &item.pair, penta, wdl);
        if let Some(journal) = &mut self.journal {
            let line = journal::pair_line(record)?;
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

    /// Moves `s` by one pair's result through the run's update loop, and returns the
    /// pair's journal record.
    fn update(
        &mut self,
        s: &mut State,
        k: u64,
        pair: &Pair,
        penta: u8,
        wdl: [u64; 3],
    ) -> PairRecord {
        let mut tune = TuneState {
            seq: s.seq,
            average_weight: self.weight_sum(s),
            theta: std::mem::take(&mut s.theta),
            average_sum: std::mem::take(&mut s.average_sum),
        };
        self.tune.apply(&mut tune, k, pair, i32::from(penta) - 2);
        s.seq = tune.seq;
        s.theta = tune.theta;
        s.average_sum = tune.average_sum;
        // A checkpoint of equal weights keeps their sum as `average_count` alone.
        if self.config.average_power > 0.0 {
            s.average_weight = tune.average_weight;
        }
        if s.seq > self.config.averaging_window_start() {
            s.average_count += 1;
        }
        for (i, t) in s.theta.iter().enumerate() {
            s.min_seen[i] = s.min_seen[i].min(*t);
            s.max_seen[i] = s.max_seen[i].max(*t);
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
            flips: pair.flips.clone(),
            plus: pair.plus.clone(),
            minus: pair.minus.clone(),
            penta,
            wdl,
            theta: s.theta.clone(),
        }
    }

    /// Re-applies a journaled pair (resume), checking it reproduces the recorded θ.
    fn replay(&mut self, record: &PairRecord) -> Result<()> {
        let n = self.config.params.len();
        if [record.plus.len(), record.minus.len(), record.flips.len()] != [n; 3] {
            bail!(
                "journal pair {} has {} values for {n} parameters",
                record.seq,
                record.plus.len()
            );
        }
        let pair = Pair {
            flips: record.flips.clone(),
            plus: record.plus.clone(),
            minus: record.minus.clone(),
        };
        let mut state = self.state.clone();
        let replayed = self.update(&mut state, record.k, &pair, record.penta, record.wdl);
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
            journal::write_checkpoint(files, &self.journal_id, &self.state)?;
        }
        Ok(())
    }

    /// θ averaged (the last θ while nothing is).
    pub fn average(&self) -> Vec<f64> {
        let s = &self.state;
        average_of(&s.average_sum, self.weight_sum(s), &s.theta)
    }

    /// The weights summed in `s`: with equal weights, the pairs in the window.
    fn weight_sum(&self, s: &State) -> f64 {
        if self.config.average_power > 0.0 {
            s.average_weight
        } else {
            s.average_count as f64
        }
    }

    /// Whether the average has begun (under a power, from the first pair).
    pub fn average_begun(&self) -> bool {
        self.weight_sum(&self.state) > 0.0
    }

    /// Whether a gain pair is due: inside the averaging window, one for every `every`
    /// SPSA pairs applied there (0: never).
    pub fn gain_pair_due(&self, every: u64) -> bool {
        let started = self.state.gain.penta.iter().sum::<u64>() + self.gain_in_flight;
        every > 0 && !self.finished() && started * every < self.state.average_count
    }

    /// What a gain pair plays against the start: the average so far under Occam's
    /// rules, θ itself under a baseline's (which writes the last θ).
    pub fn gain_side(&self) -> Vec<f64> {
        if self.config.rules.is_occam() {
            self.average()
        } else {
            self.state.theta.clone()
        }
    }

    /// The next gain pair: [`Server::gain_side`], rounded, against the start.
    pub fn gain_pair(&mut self) -> GainPair {
        let started = self.state.gain.penta.iter().sum::<u64>() + self.gain_in_flight;
        self.gain_in_flight += 1;
        let params = &self.config.params;
        GainPair {
            tuned: self
                .gain_side()
                .iter()
                .zip(params)
                .map(|(v, p)| (v.round() as i32).clamp(p.min, p.max))
                .collect(),
            start: params
                .iter()
                .map(|p| (p.start.round() as i32).clamp(p.min, p.max))
                .collect(),
            // A stride through the openings, away from the SPSA pairs' order.
            opening: (started as usize).wrapping_mul(7919) % self.config.openings.max(1),
        }
    }

    /// Counts a finished gain pair: the outcomes of its games with the tuned side as
    /// White and as Black.
    pub fn apply_gain(&mut self, first_as_white: Outcome, first_as_black: Outcome) {
        self.gain_in_flight = self.gain_in_flight.saturating_sub(1);
        self.state
            .gain
            .add_pair(pair_points(first_as_white, first_as_black));
    }

    /// A gain pair handed out but not played (the run stopped first).
    pub fn drop_gain(&mut self) {
        self.gain_in_flight = self.gain_in_flight.saturating_sub(1);
    }

    /// The gain of [`Server::gain_side`] over the start, in Elo with its 95% half-width, and
    /// the pairs behind it; `None` before any.
    pub fn gain_estimate(&self) -> Option<(f64, f64, u64)> {
        let pairs = self.state.gain.penta.iter().sum::<u64>();
        let summary = self.state.gain.summary()?;
        Some((summary.elo, summary.elo_error, pairs))
    }

    /// Iterations in flight (issued, not finished).
    #[cfg(test)]
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }
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

#[cfg(test)]
mod tests;
