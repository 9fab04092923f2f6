//! The design's probe in real games (`design::ProbeStage`), played before a designed
//! run's first SPSA pair: in each stage the start plays the start moved by the designed
//! perturbations (random signs, one rounding draw), and every designed c shrinks while
//! the games show that the perturbation costs clearly more than the target. The stages
//! also measure how much a pair's result varies, which sets r.
//!
//! Each finished stage is saved (atomically) in `<journal stem>.probe.json` beside the
//! journal, with what identifies the run; a run stopped during the probe continues from
//! its last finished stage.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, bail};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::side::{Slot, TunedSide};
use crate::design::{self, ProbeStage};
use crate::interrupt;
use crate::param_files::write_atomically;
use crate::play::game::{Adjudication, TimeControl, pair_score, play_pair};
use occam::position::Game;

/// The probe's share of a run's pairs, and its stages (as the simulator's rule set).
pub const SHARE: f64 = crate::rules::ProbePlan::DEFAULT.share;
pub const STAGES: u64 = crate::rules::ProbePlan::DEFAULT.stages;
/// Fewer pairs a stage than this measure nothing: the probe is skipped.
pub const MIN_STAGE_PAIRS: u64 = 10;
// Every probe that plays measures the variance of its games.
const _: () = assert!(MIN_STAGE_PAIRS * STAGES >= design::MIN_VARIANCE_PAIRS);

/// One tuned parameter as the probe moves it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbedParam {
    pub start: f64,
    pub min: i32,
    pub max: i32,
    /// The designed c before any probe; `None` for a c the file gives (not moved).
    pub prior_c: Option<f64>,
}

/// What a probe needs to know about its run; a probe file is continued only by a run
/// with the same identity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub files: Vec<PathBuf>,
    pub names: Vec<String>,
    pub params: Vec<ProbedParam>,
    pub games: String,
    pub seed: u64,
    pub stage_pairs: u64,
    pub stages: u64,
}

/// One finished stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Stage {
    scale: f64,
    pairs: u64,
    wins_minus_losses: i64,
    squares: i64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Record {
    identity: Identity,
    stages: Vec<Stage>,
}

/// How the games are played: the same as the run's.
pub struct Players<'a> {
    pub side: &'a TunedSide,
    pub slots: &'a [Slot],
    pub openings: &'a [Game],
    pub tc: TimeControl,
    pub adjudication: &'a Adjudication,
    pub threads: usize,
    pub hash_mb: usize,
}

/// What the probe found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeResult {
    /// The factor on every designed c.
    pub c_scale: f64,
    /// The variance of one game's W − L, as the stages measured it.
    pub game_variance: f64,
    /// Pairs the probe played (taken from the run's budget).
    pub pairs: u64,
    /// Games a second in the stages this process played (none when all were kept from
    /// an earlier process): what the plan's time estimates are made from.
    pub games_per_second: Option<f64>,
}

impl ProbeResult {
    /// No probe: the prior c and the prior game variance.
    pub const NONE: ProbeResult = ProbeResult {
        c_scale: 1.0,
        game_variance: design::PRIOR_GAME_VARIANCE,
        pairs: 0,
        games_per_second: None,
    };
}

/// The tune the probe is for: its precision, its tuned parameters and the games it
/// plays after the probe, which say how far it can reach ([`design::short_run_reach`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tune {
    pub precision: f64,
    pub params: usize,
    pub games: f64,
}

impl Tune {
    /// The reach with the variance the finished stages measured.
    fn reach(&self, stages: &[Stage]) -> f64 {
        let probes: Vec<ProbeStage> = stages.iter().map(probe_of).collect();
        let variance = design::pooled_game_variance(&probes);
        design::short_run_reach(self.precision, self.params, variance, self.games)
    }
}

/// The probe's pairs per stage for a run of `pairs` pairs (0: no probe).
pub fn stage_pairs(pairs: u64) -> u64 {
    let per_stage = (SHARE * pairs as f64 / STAGES as f64).floor() as u64;
    if per_stage < MIN_STAGE_PAIRS {
        0
    } else {
        per_stage
    }
}

/// Plays (or continues) the probe of the run `identity` and saves each stage in `file`.
/// Stops cleanly on Ctrl-C after the pairs in flight; the finished stages are kept.
pub fn run(
    identity: Identity,
    tune: Tune,
    file: &PathBuf,
    players: &Players,
) -> Result<ProbeResult> {
    let mut stages = earlier_stages(&identity, file)?;
    let n = identity
        .params
        .iter()
        .filter(|p| p.prior_c.is_some())
        .count();
    for (i, s) in stages.iter().enumerate() {
        eprintln!(
            "spsa: probe stage {}/{}: kept from {}",
            i + 1,
            identity.stages,
            file.display()
        );
        report(s, n, tune.reach(&stages[..=i]));
    }
    let clock = std::time::Instant::now();
    let kept = stages.len() as u64;
    while (stages.len() as u64) < identity.stages {
        let scale = match stages.last() {
            Some(s) => probe_of(s).next_scale(n, tune.reach(&stages)),
            None => 1.0,
        };
        let index = stages.len() as u64;
        eprintln!(
            "spsa: probe stage {}/{}: {} pairs, the start against the start moved by {} × the designed c",
            index + 1,
            identity.stages,
            identity.stage_pairs,
            design::rounded(scale)
        );
        let Some(stage) = play_stage(&identity, index, scale, players)? else {
            eprintln!(
                "spsa: stopped during the probe; {} of its {} stages are kept in {}",
                stages.len(),
                identity.stages,
                file.display()
            );
            return Err(interrupt::Stopped.into());
        };
        stages.push(stage);
        report(stages.last().expect("just pushed"), n, tune.reach(&stages));
        let record = Record {
            identity: identity.clone(),
            stages: stages.clone(),
        };
        let text = serde_json::to_string_pretty(&record)?;
        write_atomically(file, &text)
            .with_context(|| format!("cannot save the probe to {}", file.display()))?;
    }
    let last = stages.last().expect("at least one stage");
    let c_scale = probe_of(last).next_scale(n, tune.reach(&stages));
    let probes: Vec<ProbeStage> = stages.iter().map(probe_of).collect();
    let played_now = 2 * identity.stage_pairs * (identity.stages - kept);
    let seconds = clock.elapsed().as_secs_f64();
    Ok(ProbeResult {
        c_scale,
        game_variance: design::pooled_game_variance(&probes),
        pairs: identity.stage_pairs * identity.stages,
        games_per_second: (played_now > 0 && seconds > 0.0).then(|| played_now as f64 / seconds),
    })
}

fn probe_of(s: &Stage) -> ProbeStage {
    ProbeStage {
        scale: s.scale,
        pairs: s.pairs,
        wins_minus_losses: s.wins_minus_losses,
        squares: s.squares,
    }
}

/// One line per stage: what the perturbation cost against the target (raised by
/// `reach` in a short run).
fn report(s: &Stage, n: usize, reach: f64) {
    let probe = probe_of(s);
    let (cost, error) = probe.cost();
    eprintln!(
        "spsa:   {} pairs, W − L {}: the perturbation costs {:.1} ± {:.1} Elo (all {n} designed parameters; target {}): next c × {}",
        s.pairs,
        s.wins_minus_losses,
        cost,
        2.0 * error,
        design::rounded(design::cost_target(n, reach)),
        design::rounded(probe.next_scale(n, reach))
    );
}

/// The stages a probe file of this run holds; none without a file. A file of another
/// run is refused rather than overwritten.
fn earlier_stages(identity: &Identity, file: &PathBuf) -> Result<Vec<Stage>> {
    if !file.exists() {
        return Ok(vec![]);
    }
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the probe {}", file.display()))?;
    let record: Record = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a probe file of tuner spsa; remove it, or add --restart to move it aside",
            file.display()
        )
    })?;
    if &record.identity != identity {
        bail!(
            "{} holds the probe of another run (other files, parameters, games or seed); add --restart to move it aside",
            file.display()
        );
    }
    Ok(record.stages)
}

/// The values of both sides of probe pair `global` at `scale`: θ+ the start moved by
/// scale × c along random signs, θ− the start; one uniform draw rounds both.
fn pair_values(identity: &Identity, global: u64, scale: f64) -> (Vec<i32>, Vec<i32>) {
    let mut rng = StdRng::seed_from_u64(
        identity.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ global ^ 0x5052_4F42_4500_0000,
    );
    let u: f64 = rng.random();
    let (mut plus, mut minus) = (vec![], vec![]);
    for p in &identity.params {
        let flip = if rng.random::<bool>() { 1.0 } else { -1.0 };
        let shift = p.prior_c.map_or(0.0, |c| flip * scale * c);
        let (moved, start) = design::probe_values(p.start, shift, u, p.min, p.max);
        plus.push(moved);
        minus.push(start);
    }
    (plus, minus)
}

/// Plays one stage on the run's workers; `None` when Ctrl-C stopped it first.
fn play_stage(
    identity: &Identity,
    index: u64,
    scale: f64,
    players: &Players,
) -> Result<Option<Stage>> {
    let mut workers = Vec::with_capacity(players.threads);
    for _ in 0..players.threads {
        workers.push(players.side.players(players.hash_mb)?);
    }
    let next = AtomicU64::new(0);
    let tally = Mutex::new(Stage {
        scale,
        pairs: 0,
        wins_minus_losses: 0,
        squares: 0,
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(players.threads)
        .build()
        .context("cannot start worker threads")?;
    pool.scope(|scope| {
        for (mut plus, mut minus) in workers {
            let (next, tally) = (&next, &tally);
            scope.spawn(move |_| {
                while !interrupt::requested() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= identity.stage_pairs {
                        break;
                    }
                    let global = index * identity.stage_pairs + i;
                    let (plus_values, minus_values) = pair_values(identity, global, scale);
                    plus.set_values(players.slots, &plus_values);
                    minus.set_values(players.slots, &minus_values);
                    let opening = &players.openings[global as usize % players.openings.len()];
                    let games = play_pair(
                        plus.player(),
                        minus.player(),
                        opening,
                        players.tc,
                        players.adjudication,
                    );
                    let w_l = pair_score(&games[0], &games[1]) as i64 - 2;
                    let mut t = tally.lock().unwrap();
                    t.pairs += 1;
                    t.wins_minus_losses += w_l;
                    t.squares += w_l * w_l;
                }
            });
        }
    });
    let stage = tally.into_inner().unwrap();
    Ok((stage.pairs == identity.stage_pairs).then_some(stage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> Identity {
        Identity {
            files: vec![PathBuf::from("x.json")],
            names: vec!["a".into(), "b".into()],
            params: vec![
                ProbedParam {
                    start: 100.0,
                    min: 0,
                    max: 200,
                    prior_c: Some(50.0),
                },
                ProbedParam {
                    start: 7.0,
                    min: 0,
                    max: 9,
                    prior_c: None,
                },
            ],
            games: "nodes=1000".into(),
            seed: 3,
            stage_pairs: 20,
            stages: 3,
        }
    }

    #[test]
    fn probe_pairs_move_only_designed_parameters_and_depend_on_seed_and_index() {
        let id = identity();
        for global in 0..50 {
            let (plus, minus) = pair_values(&id, global, 0.5);
            // The start rounds to itself; θ+ moves by 25 either way.
            assert_eq!(minus, vec![100, 7]);
            assert!(plus[0] == 125 || plus[0] == 75, "{plus:?}");
            assert_eq!(plus[1], 7);
            assert_eq!((plus.clone(), minus), pair_values(&id, global, 0.5));
        }
        let signs: Vec<i32> = (0..50).map(|g| pair_values(&id, g, 0.5).0[0]).collect();
        assert!(signs.contains(&125) && signs.contains(&75));
    }

    #[test]
    fn stages_are_sized_from_the_budget() {
        assert_eq!(stage_pairs(2000), 20);
        assert_eq!(stage_pairs(100_000), 1000);
        // 3% of 900 pairs is 9 a stage: too few, no probe.
        assert_eq!(stage_pairs(1000), 10);
        assert_eq!(stage_pairs(900), 0);
    }

    #[test]
    fn a_probe_file_of_another_run_is_refused() {
        let dir = crate::test_util::scratch_dir("probe-file");
        let file = dir.join("x.probe.json");
        let record = Record {
            identity: identity(),
            stages: vec![Stage {
                scale: 1.0,
                pairs: 20,
                wins_minus_losses: -9,
                squares: 25,
            }],
        };
        std::fs::write(&file, serde_json::to_string(&record).unwrap()).unwrap();
        assert_eq!(earlier_stages(&identity(), &file).unwrap(), record.stages);
        let other = Identity {
            seed: 4,
            ..identity()
        };
        let err = earlier_stages(&other, &file).unwrap_err().to_string();
        assert!(
            err.contains("another run") && err.contains("--restart"),
            "{err}"
        );
        std::fs::write(&file, "{").unwrap();
        let err = format!("{:#}", earlier_stages(&identity(), &file).unwrap_err());
        assert!(err.contains("not a probe file"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
