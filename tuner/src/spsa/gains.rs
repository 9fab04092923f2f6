//! Where each tuned parameter's c and r come from (its file, Stockfish's `TUNE`
//! defaults, the design, `--r-end`), the schedule and averaging of a new run, and the
//! probe played first when the design chooses some c.

use std::path::PathBuf;

use anyhow::{Result, bail};
use occam::position::Game;

use super::args::Args;
use crate::design;
use crate::design::Averaging;
use crate::play::game::{Adjudication, TimeControl};
use crate::rules::Param;
use crate::rules::occam::DEFAULT_AVERAGE_FRACTION;
use crate::rules::schedule::Hyper;
use crate::tuned::params::{Requested, TunedParam};
use crate::tuned::probe::{self, ProbeResult};
use crate::tuned::side::TunedSide;

/// Where the c or the r a run plays for one parameter comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Source {
    /// The parameter file's `c_end` or `r_end`.
    File,
    /// Stockfish's `TUNE` default (`rules::Param::new`), under fishtest's rules.
    Default,
    /// The design (`design`).
    Designed,
    /// `--r-end`.
    Flag,
}

impl Source {
    pub(super) fn label(self) -> &'static str {
        match self {
            Source::File => "file",
            Source::Default => "TUNE default",
            Source::Designed => "designed",
            Source::Flag => "--r-end",
        }
    }
}

/// The gains, schedule and averaging of a new run.
pub(super) struct Resolved {
    /// The tuned parameters with the c_end and r_end the run plays.
    pub(super) params: Vec<TunedParam>,
    /// Per parameter, where its c and its r come from.
    pub(super) sources: Vec<(Source, Source)>,
    pub(super) hyper: Hyper,
    pub(super) average_fraction: f64,
    /// The power of the average's weights ([`Averaging::power`]).
    pub(super) average_power: f64,
    /// The run plays the design's constant gains.
    pub(super) designed: bool,
    /// The designed r is the short run's ([`design::r_for_budget`]), not the precision's.
    pub(super) short_run: bool,
    pub(super) probing: ProbeResult,
}

/// The designed gains: the files' c_end and r_end where given, the design's elsewhere,
/// every designed c multiplied by `c_scale` (1: the prior, a quarter of the range) and r
/// for games of `game_variance` and a noise ball of `precision` Elo, or larger where the
/// run's `pairs` are too few for that precision ([`design::r_for_budget`]). The one
/// place `tuner spsa` computes designed gains.
pub fn designed_gains(
    requested: &[Requested],
    c_scale: f64,
    game_variance: f64,
    precision: f64,
    pairs: u64,
) -> Vec<design::DesignedGains> {
    let requests: Vec<design::Request> = requested.iter().map(Requested::design_request).collect();
    let r = design::designed_r(precision, requests.len(), game_variance, 2.0 * pairs as f64);
    design::gains(&requests, c_scale, r)
}

/// The SPSA pairs the design expects to need to end within `precision` Elo of the
/// optimum (95%) with `n` parameters and games of `game_variance`, within --pairs'
/// limit.
pub(super) fn until_pairs(precision: f64, n: usize, game_variance: f64) -> u64 {
    let games = design::games_for(precision, n, game_variance, design::COST_TARGET);
    ((games / 2.0).ceil() as u64).clamp(1, 100_000_000)
}

/// How a new run plays. When every tuned parameter's file gives both `c_end` and
/// `r_end`: fishtest's decaying gains from them (`--spsa-a`, `--alpha`, `--gamma`), the
/// last quarter averaged. Otherwise the design: constant gains ([`designed_gains`],
/// scaled by what the probe found), every θ averaged with [`design::AVERAGING`]'s
/// weights, over the pairs the probe left. `--r-end` sets r and `--average-fraction`
/// an equally weighted average of that last share either way.
///
/// Under fishtest's rules always the decaying gains, A = ⌊0.1·N⌋ as fishtest has it,
/// with Stockfish's `TUNE` defaults where a file leaves out `c_end` or `r_end`. The
/// quarter "averaged" then only times the gain pairs: the result is the last θ.
pub(super) fn resolve(requested: &[Requested], args: &Args, probing: &ProbeResult) -> Resolved {
    let designed = args.rules.is_occam() && !requested.iter().all(Requested::given);
    let mut short_run = false;
    let (ends, hyper, averaging): (Vec<(f64, f64, Source, Source)>, _, _) = if designed {
        let from = |designed: bool| {
            if designed {
                Source::Designed
            } else {
                Source::File
            }
        };
        let precision = args.until.unwrap_or(design::PRECISION);
        let pairs = args.pairs.saturating_sub(probing.pairs).max(1);
        let (c_scale, variance) = (probing.c_scale, probing.game_variance);
        short_run = design::is_short_run(precision, requested.len(), variance, 2.0 * pairs as f64);
        let ends = designed_gains(requested, c_scale, variance, precision, pairs)
            .into_iter()
            .map(|g| (g.c, g.r, from(g.designed_c), from(g.designed_r)))
            .collect();
        let constant = Hyper::new(pairs, Some(0.0), 0.0, 0.0);
        (ends, constant, design::AVERAGING)
    } else {
        let ends = requested
            .iter()
            .map(|p| {
                let ends = Param::new(p.start, p.min, p.max, p.c_end, p.r_end);
                let from = |given: Option<f64>| match given {
                    Some(_) => Source::File,
                    None => Source::Default,
                };
                (ends.c_end, ends.r_end, from(p.c_end), from(p.r_end))
            })
            .collect();
        let big_a = match args.rules.baseline() {
            None => args.big_a,
            Some(baseline) => Some(args.big_a.unwrap_or_else(|| (baseline.big_a)(args.pairs))),
        };
        let decaying = Hyper::new(
            args.pairs,
            big_a,
            args.alpha.unwrap_or(Hyper::ALPHA),
            args.gamma.unwrap_or(Hyper::GAMMA),
        );
        (ends, decaying, Averaging::last(DEFAULT_AVERAGE_FRACTION))
    };
    // --average-fraction: θ of that last share, equally weighted.
    let averaging = args.average_fraction.map_or(averaging, Averaging::last);
    let (params, sources) = requested
        .iter()
        .zip(ends)
        .map(|(p, (c, r, c_from, r_from))| match args.r_end {
            Some(flag) => (p.resolve(c, flag), (c_from, Source::Flag)),
            None => (p.resolve(c, r), (c_from, r_from)),
        })
        .unzip();
    Resolved {
        params,
        sources,
        hyper,
        average_fraction: averaging.fraction,
        average_power: averaging.power,
        designed,
        short_run,
        probing: ProbeResult { ..*probing },
    }
}

/// What the probe plays its games with: the tuned side, the book (or as many generated
/// openings as the run will use), the games' settings and the workers, and the file
/// that keeps its finished stages.
pub(super) struct ProbeGames<'a> {
    pub(super) side: &'a TunedSide,
    pub(super) book: Option<&'a [Game]>,
    pub(super) openings_count: usize,
    pub(super) tc: TimeControl,
    pub(super) adjudication: &'a Adjudication,
    pub(super) threads: usize,
    pub(super) hash_mb: usize,
    pub(super) file: PathBuf,
}

/// The gains a run plays: --until's pairs by the prior game variance, then, for a new
/// run (`probe_games` given) where the design chooses some c, the probe played first
/// (resumable, `tuned::probe`) and the gains resolved again from what it found, with
/// --until's pairs from the variance it measured.
pub(super) fn resolve_run(
    args: &mut Args,
    requested: &[Requested],
    probe_games: Option<ProbeGames>,
) -> Result<Resolved> {
    if let Some(precision) = args.until {
        // (--rules fishtest refused --until before.)
        if requested.iter().all(Requested::given) {
            bail!(
                "--until {precision} plans the pairs by the design, which plays only when a tuned parameter leaves c_end or r_end to it; every parameter of this run gives both: plan with --pairs"
            );
        }
        args.pairs = until_pairs(precision, requested.len(), design::PRIOR_GAME_VARIANCE);
    }
    let resolved = resolve(requested, args, &ProbeResult::NONE);
    let designs_c = resolved.designed && requested.iter().any(|p| p.c_end.is_none());
    let stage_pairs = args
        .probe_pairs
        .unwrap_or_else(|| probe::stage_pairs(args.pairs));
    let Some(games) = probe_games.filter(|_| designs_c && stage_pairs > 0) else {
        return Ok(resolved);
    };
    let found = play_probe(args, requested, &resolved, stage_pairs, &games)?;
    if let Some(precision) = args.until {
        let n = requested.len();
        args.pairs = found.pairs + until_pairs(precision, n, found.game_variance);
    }
    Ok(resolve(requested, args, &found))
}

/// Plays (or continues) the probe of a new designed run at the prior gains of
/// `resolved`.
fn play_probe(
    args: &Args,
    requested: &[Requested],
    resolved: &Resolved,
    stage_pairs: u64,
    games: &ProbeGames,
) -> Result<ProbeResult> {
    let slots = games.side.reselect(&resolved.params)?;
    let openings = match games.book {
        Some(book) => book.to_vec(),
        None => args.games.openings(games.openings_count)?,
    };
    let identity = probe::Identity {
        files: args.files.clone(),
        names: requested.iter().map(|p| p.name.clone()).collect(),
        params: requested
            .iter()
            .zip(&resolved.params)
            .map(|(q, p)| probe::ProbedParam {
                start: q.start,
                min: q.min,
                max: q.max,
                prior_c: q.c_end.is_none().then_some(p.c_end),
            })
            .collect(),
        games: args.games.describe(),
        seed: args.games.seed,
        stage_pairs,
        stages: probe::STAGES,
    };
    let players = probe::Players {
        side: games.side,
        slots: &slots,
        openings: &openings,
        tc: games.tc,
        adjudication: games.adjudication,
        threads: games.threads,
        hash_mb: games.hash_mb,
    };
    let left = args
        .pairs
        .saturating_sub(stage_pairs * probe::STAGES)
        .max(1);
    let tune = probe::Tune {
        precision: args.until.unwrap_or(design::PRECISION),
        params: requested.len(),
        games: 2.0 * left as f64,
    };
    probe::run(identity, tune, &games.file, &players)
}
