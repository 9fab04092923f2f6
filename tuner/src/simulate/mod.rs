//! `tuner simulate`: SPSA rule sets on a true Elo landscape, with game pairs drawn from
//! a pentanomial model, and the games each needs to end near the optimum.
//!
//! `landscape` holds the true Elo of parameter values, `outcome` how a pair between
//! two values ends, `experiment` one simulated tune of a rule set
//! (`rules`), `sweep` the search for the games needed. docs/SIMULATOR.md shows
//! how each published figure is rerun.
//!
//! A command: may use every layer below. It uses the update rules (`rules`), the
//! design's maths (`design`) and the base (`stats`, `text`); it plays no real games.

mod experiment;
mod landscape;
mod outcome;
mod sweep;

use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::rules::ProbePlan;
use crate::rules::openbench::DEFAULT_PAIRS_PER;
use crate::stats::{GATE_Z, Z95, gate_opens, opens_at};
use crate::text::thousands;
use experiment::{Experiment, Handouts, RuleSet, Tuner};
use landscape::{Family, Landscape};
use outcome::Outcome;
use sweep::{Crossing, Evaluations, Options, Point};

#[derive(clap::Args)]
pub struct Args {
    /// The rule set to simulate.
    #[arg(long, value_enum, default_value_t = RuleSet::Fishtest)]
    pub rules: RuleSet,
    /// The shape of the true Elo landscape.
    #[arg(long, value_enum, default_value_t = Family::Bowls)]
    pub landscape: Family,
    /// Number of tuned parameters.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub params: u64,
    /// Elo each parameter loses at the edge of its range, the others at their optimum
    /// (`unequal` spreads 0.5..8 Elo instead).
    #[arg(long, default_value_t = 2.0)]
    pub worth: f64,
    /// Correlation of the parameter pairs of the `correlated` landscape.
    #[arg(long, default_value_t = 0.8, allow_negative_numbers = true)]
    pub correlation: f64,
    /// Elo the starting values lose against the optimum.
    #[arg(long, default_value_t = 2.0)]
    pub start_loss: f64,
    /// A tune succeeds when its result loses at most this many Elo.
    #[arg(long, default_value_t = 0.5)]
    pub precision: f64,
    /// Share of seeds that must succeed at the games needed.
    #[arg(long, default_value_t = 0.95)]
    pub target: f64,
    /// Draw ratio of the reference outcome model (independent games).
    #[arg(long, default_value_t = Outcome::REFERENCE_DRAW_RATIO)]
    pub draw_ratio: f64,
    /// Measured pair outcomes at equal strength instead of --draw-ratio: counts or
    /// frequencies of LL, LD, DD+WL, WD, WW (e.g. an SPSA journal's penta counts).
    #[arg(long, value_delimiter = ',', value_name = "LL,LD,DD,WD,WW")]
    pub penta: Option<Vec<f64>>,
    /// c_end as a multiple of range/20 (Stockfish's TUNE default), of --rules design as
    /// a multiple of the design's own c; a comma-separated list sweeps each and reports
    /// the best.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub c_scale: Vec<f64>,
    /// r_end of every parameter [default: 0.002]; a list sweeps each.
    #[arg(long, value_delimiter = ',')]
    pub r_end: Vec<f64>,
    /// The r of --rules constant as a multiple of Autoselect's, of --rules design as a
    /// multiple of the design's own; a list sweeps each.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub r_scale: Vec<f64>,
    /// Share of the run, at its end, that --rules constant averages, and --rules design
    /// plays its gain pairs in (and averages, with --average-power 0).
    #[arg(long, default_value_t = crate::design::AVERAGING.fraction)]
    pub average_fraction: f64,
    /// --rules design weights θ after pair k by k^P in its average, over the whole run;
    /// 0: equal weights over --average-fraction.
    #[arg(long, value_name = "P", default_value_t = crate::design::AVERAGING.power)]
    pub average_power: f64,
    /// Share of the pairs that --rules design spends on its probe.
    #[arg(long, default_value_t = ProbePlan::DEFAULT.share)]
    pub probe_share: f64,
    /// Stages of the probe of --rules design.
    #[arg(long, default_value_t = ProbePlan::DEFAULT.stages)]
    pub probe_stages: u64,
    /// Pairs handed out at one θ± (an OpenBench client's runners sharing one
    /// perturbation); their results are applied one by one when they come back.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Handouts out at once: each is drawn at θ as it stands and applied after the ones
    /// drawn before it, as a server with that many workers applies their results.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub in_flight: u64,
    /// Pairs per batch of --rules openbench.
    #[arg(long, default_value_t = DEFAULT_PAIRS_PER, value_parser = clap::value_parser!(u64).range(1..))]
    pub pairs_per: u64,
    /// Elo per parameter that --rules autoselect's design assumes.
    #[arg(long, default_value_t = 2.0)]
    pub design_worth: f64,
    /// Evaluate this budget (games) only, instead of sweeping for the games needed.
    #[arg(long)]
    pub games: Option<u64>,
    /// With --games: also play gain pairs as `tuner spsa --gain-every N` does and report
    /// how often their 95% interval covers the true gain, and how wide it is.
    #[arg(long, value_name = "N", requires = "games")]
    pub gain_every: Option<u64>,
    /// Budget the sweep starts from [default: Autoselect's plan for the precision].
    #[arg(long)]
    pub from_games: Option<u64>,
    /// Seeds per budget while the sweep brackets the crossing (twice as many while it
    /// narrows it).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..))]
    pub coarse_seeds: u64,
    /// Seeds at each end of the final bracket, or at --games.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Ratio of the final bracket's ends.
    #[arg(long, default_value_t = 1.1)]
    pub resolution: f64,
    /// The largest budget a sweep tries.
    #[arg(long, default_value_t = 100_000_000)]
    pub max_games: u64,
    /// Base of every seed's random stream.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

/// `tuner simulate`.
pub fn run(args: Args) -> Result<()> {
    if !(args.resolution > 1.0 && args.target > 0.0 && args.target < 1.0 && args.precision > 0.0) {
        bail!("--resolution must exceed 1, --target lie in (0, 1) and --precision be positive");
    }
    if !(args.correlation.abs() < 1.0 && args.draw_ratio >= 0.0 && args.draw_ratio < 1.0) {
        bail!("--correlation must lie in (−1, 1) and --draw-ratio in [0, 1)");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start the worker threads")?;
    pool.install(|| simulate(&args))
}

fn simulate(args: &Args) -> Result<()> {
    let landscape = Landscape::new(
        args.landscape,
        args.params as usize,
        args.worth,
        args.correlation,
    );
    let outcome = match &args.penta {
        Some(counts) => {
            let counts: [f64; 5] = counts.as_slice().try_into().map_err(|_| {
                anyhow::anyhow!(
                    "--penta takes 5 comma-separated numbers (LL,LD,DD,WD,WW), got {}",
                    counts.len()
                )
            })?;
            if counts.iter().any(|&c| c < 0.0) || counts.iter().sum::<f64>() <= 0.0 {
                bail!("--penta: counts must be non-negative and not all zero");
            }
            Outcome::pentanomial(counts)
        }
        None => Outcome::DrawRatio(args.draw_ratio),
    };
    let start = landscape.start(args.start_loss);
    println!("landscape: {}", landscape.describe());
    println!(
        "start loses {:.3} Elo; outcome: {}; success: within {} Elo in {}% of seeds",
        landscape.loss(&start),
        describe_outcome(&outcome),
        args.precision,
        100.0 * args.target
    );
    let mut needed: Vec<(String, Option<f64>)> = vec![];
    for tuner in grid(args) {
        let experiment = Experiment {
            landscape: landscape.clone(),
            outcome: outcome.clone(),
            tuner,
            start: start.clone(),
            seed: args.seed,
        };
        println!("\nrules: {}", experiment.tuner.describe());
        match args.games {
            Some(games) => evaluate_one(&experiment, games, args),
            None => {
                let crossing = sweep(&experiment, args);
                needed.push((experiment.tuner.describe(), crossing.map(|c| c.games)));
            }
        }
    }
    if needed.len() > 1 {
        report_best(&needed);
    }
    Ok(())
}

/// Every combination of the listed settings.
fn grid(args: &Args) -> Vec<Tuner> {
    let r_ends: Vec<Option<f64>> = if args.r_end.is_empty() {
        vec![None]
    } else {
        args.r_end.iter().map(|&r| Some(r)).collect()
    };
    let mut tuners = vec![];
    for &c_scale in &args.c_scale {
        for &r_end in &r_ends {
            for &r_scale in &args.r_scale {
                tuners.push(Tuner {
                    rules: args.rules,
                    c_scale,
                    r_end,
                    pairs_per: args.pairs_per,
                    design_worth: args.design_worth,
                    r_scale,
                    average_fraction: args.average_fraction,
                    average_power: args.average_power,
                    probe: ProbePlan {
                        share: args.probe_share,
                        stages: args.probe_stages,
                    },
                    handouts: Handouts {
                        batch: args.batch,
                        in_flight: args.in_flight,
                    },
                });
            }
        }
    }
    tuners
}

fn describe_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::DrawRatio(d) => format!("independent games, draw ratio {d}"),
        Outcome::Pentanomial(p) => format!(
            "pentanomial at equal strength {:.4}/{:.4}/{:.4}/{:.4}/{:.4} (variance {:.4} per game)",
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            outcome.game_variance()
        ),
    }
}

fn options(args: &Args) -> Options {
    Options {
        target: args.target,
        precision: args.precision,
        coarse_seeds: args.coarse_seeds as usize,
        final_seeds: args.seeds as usize,
        resolution: args.resolution,
        min_games: 100,
        max_games: args.max_games,
        log: true,
    }
}

/// `--games`: one budget, every seed.
fn evaluate_one(experiment: &Experiment, games: u64, args: &Args) {
    let clock = Instant::now();
    let losses = experiment.final_losses(games, 0..args.seeds as usize);
    print_header(args);
    print_point(&Point::new(games, &losses, &options(args)));
    if let Some(every) = args.gain_every {
        print_gain_coverage(experiment, games, every, args.seeds as usize);
    }
    println!("({:.0} s)", clock.elapsed().as_secs_f64());
}

/// How often the gain pairs' 95% interval covers the true gain of the result.
fn print_gain_coverage(experiment: &Experiment, games: u64, every: u64, seeds: usize) {
    use rayon::prelude::*;
    let checks: Vec<(f64, Option<(f64, f64)>)> = (0..seeds)
        .into_par_iter()
        .map(|seed| experiment.gain_check(games, seed, every))
        .collect();
    let estimated: Vec<(f64, f64, f64)> = checks
        .iter()
        .filter_map(|&(gain, e)| {
            e.filter(|(_, w)| w.is_finite())
                .map(|(elo, w)| (gain, elo, w))
        })
        .collect();
    let n = estimated.len().max(1) as f64;
    let covered = estimated
        .iter()
        .filter(|(gain, elo, w)| (gain - elo).abs() <= *w)
        .count();
    let mean = |f: &dyn Fn(&(f64, f64, f64)) -> f64| estimated.iter().map(f).sum::<f64>() / n;
    println!(
        "gain pairs (one per {every} in the window): the 95% interval covers the true gain in {:.1}% of {} seeds; true gain {:.2}, estimate {:.2} ± {:.2} Elo on average",
        100.0 * covered as f64 / n,
        estimated.len(),
        mean(&|e| e.0),
        mean(&|e| e.1),
        mean(&|e| e.2)
    );
    let start_loss = experiment.landscape.loss(&experiment.start);
    print_gate(&checks, start_loss);
    print_gate_frontier(&checks, start_loss);
}

/// The gate at `z` standard errors on these tunes (seed: true gain, and the estimate
/// with its 95% half-width): the seeds where it opened, and the mean loss left when
/// a seed that it keeps closed stays at the start.
fn gated_at(z: f64, checks: &[(f64, Option<(f64, f64)>)], start_loss: f64) -> (usize, f64) {
    let opens = |e: &Option<(f64, f64)>| e.is_some_and(|(elo, w)| opens_at(z, elo, w));
    let opened = checks.iter().filter(|(_, e)| opens(e)).count();
    let loss = checks
        .iter()
        .map(|(gain, e)| start_loss - if opens(e) { *gain } else { 0.0 })
        .sum::<f64>()
        / checks.len().max(1) as f64;
    (opened, loss)
}

/// The gate at other thresholds, from 1.96 standard errors (the 95% interval above 0)
/// down to 0 (the estimate above 0): how often each opened and the mean loss it left,
/// the trade between harm from a tuned start and gain missed that `GATE_Z` settles.
fn print_gate_frontier(checks: &[(f64, Option<(f64, f64)>)], start_loss: f64) {
    let n = checks.len().max(1) as f64;
    let cells: Vec<String> = [Z95, 1.0, 0.75, 0.5, 0.25, 0.0]
        .iter()
        .map(|&z| {
            let (opened, loss) = gated_at(z, checks, start_loss);
            format!("z {z:.2}: {:.1}% {loss:.2}", 100.0 * opened as f64 / n)
        })
        .collect();
    println!("gate frontier (opened, mean loss): {}", cells.join("; "));
}

/// The write-back gate on these tunes: the result is written only when the gain pairs'
/// estimate lies more than `GATE_Z` standard errors above 0, else the start is kept (a
/// tune without a finite interval keeps it too). How often it opened, and the mean
/// loss left with and without it.
fn print_gate(checks: &[(f64, Option<(f64, f64)>)], start_loss: f64) {
    let n = checks.len().max(1) as f64;
    let (opened, gated) = gated_at(GATE_Z, checks, start_loss);
    let ungated = checks
        .iter()
        .map(|(gain, _)| start_loss - gain)
        .sum::<f64>()
        / n;
    let wrote_worse = checks
        .iter()
        .filter(|(gain, e)| e.is_some_and(|(elo, w)| gate_opens(elo, w)) && *gain < 0.0)
        .count();
    println!(
        "gate (write only when the gain's estimate is over {GATE_Z} standard errors above 0): opened in {:.1}% of {} seeds ({wrote_worse} of them worse than the start); mean loss {gated:.2} Elo gated, {ungated:.2} ungated, {start_loss:.2} at the start",
        100.0 * opened as f64 / n,
        checks.len()
    );
}

/// The sweep for the games needed, with every point it evaluated.
fn sweep(experiment: &Experiment, args: &Args) -> Option<Crossing> {
    let clock = Instant::now();
    let from = args.from_games.unwrap_or_else(|| {
        let plan =
            experiment
                .tuner
                .planned_games(&experiment.start, &experiment.outcome, args.precision);
        plan.round() as u64
    });
    let mut evaluations = Evaluations::new(
        |games, seeds| experiment.final_losses(games, seeds),
        options(args),
    );
    let crossing = evaluations.games_needed(from);
    print_header(args);
    for point in evaluations.points() {
        print_point(&point);
    }
    match &crossing {
        Some(c) => {
            let interval = c.interval.map_or(String::new(), |(lo, hi)| {
                format!(" (95% interval {}..{})", thousands(lo), thousands(hi))
            });
            println!(
                "games needed: {}{interval}; bracket {} games {:.1}% and {} games {:.1}% of {} seeds",
                thousands(c.games),
                thousands(c.below.games as f64),
                100.0 * c.below.rate(),
                thousands(c.above.games as f64),
                100.0 * c.above.rate(),
                c.below.seeds.min(c.above.seeds)
            );
        }
        None => println!(
            "games needed: more than {} (not reached)",
            thousands(args.max_games as f64)
        ),
    }
    println!("({:.0} s)", clock.elapsed().as_secs_f64());
    crossing
}

fn print_header(args: &Args) {
    println!(
        "{:>12} {:>6} {:>9} {:>10} {:>12}",
        "games",
        "seeds",
        format!("≤{} Elo", args.precision),
        "mean loss",
        format!("{}% within", 100.0 * args.target)
    );
}

fn print_point(p: &Point) {
    println!(
        "{:>12} {:>6} {:>8.1}% {:>10.3} {:>12.3}",
        thousands(p.games as f64),
        p.seeds,
        100.0 * p.rate(),
        p.mean_loss,
        p.quantile_loss
    );
}

fn report_best(needed: &[(String, Option<f64>)]) {
    println!("\ngames needed by setting:");
    for (name, games) in needed {
        let games = games.map_or("not reached".to_string(), thousands);
        println!("  {games:>12}  {name}");
    }
    if let Some((name, Some(games))) = needed
        .iter()
        .filter(|(_, g)| g.is_some())
        .min_by(|a, b| a.1.unwrap().total_cmp(&b.1.unwrap()))
    {
        println!("best: {} games, {name}", thousands(*games));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Autoselect on `n` equal bowls, each worth `worth` Elo and designed for it,
    /// from a start that loses 2 Elo, on the reference outcome model.
    fn autoselect(n: usize, worth: f64) -> Experiment {
        let landscape = Landscape::new(Family::Bowls, n, worth, 0.0);
        Experiment {
            start: landscape.start(2.0),
            landscape,
            outcome: Outcome::DrawRatio(Outcome::REFERENCE_DRAW_RATIO),
            tuner: Tuner {
                rules: RuleSet::Autoselect,
                c_scale: 1.0,
                r_end: None,
                pairs_per: DEFAULT_PAIRS_PER,
                design_worth: worth,
                r_scale: 1.0,
                average_fraction: 0.25,
                average_power: 0.0,
                probe: ProbePlan::DEFAULT,
                handouts: Handouts::SERIAL,
            },
            seed: 1,
        }
    }

    /// The design on `n` equal bowls from a start `off` Elo away, handing out pairs as
    /// `handouts` says.
    fn design(n: usize, off: f64, handouts: Handouts) -> Experiment {
        let landscape = Landscape::new(Family::Bowls, n, 2.0, 0.0);
        let mut e = autoselect(n, 2.0);
        e.start = landscape.start(off);
        e.landscape = landscape;
        e.tuner.rules = RuleSet::Design;
        e.tuner.average_fraction = crate::design::AVERAGING.fraction;
        e.tuner.average_power = crate::design::AVERAGING.power;
        e.tuner.handouts = handouts;
        e
    }

    /// Stale θ± still tune: handing out 4 pairs at one θ± with 8 handouts out at once
    /// (32 pairs stale) the design still wins back most of a 40 Elo loss in 6,000 games,
    /// and it does not end where the serial run ends (the handouts change the run).
    #[test]
    fn handouts_in_flight_are_applied_late_and_still_tune() {
        let mean = |e: &Experiment| e.final_losses(6000, 0..40).iter().sum::<f64>() / 40.0;
        let serial = design(4, 40.0, Handouts::SERIAL);
        let stale = design(
            4,
            40.0,
            Handouts {
                batch: 4,
                in_flight: 8,
            },
        );
        let (serial_loss, stale_loss) = (mean(&serial), mean(&stale));
        assert!(
            stale_loss < 10.0,
            "stale handouts left {stale_loss} of 40 Elo"
        );
        assert_ne!(serial_loss, stale_loss);
        assert!(
            (stale_loss - serial_loss).abs() < 5.0,
            "serial {serial_loss}, stale {stale_loss}"
        );
    }

    fn sweep_options(precision: f64, coarse_seeds: usize, final_seeds: usize) -> Options {
        Options {
            target: 0.95,
            precision,
            coarse_seeds,
            final_seeds,
            resolution: 1.1,
            min_games: 100,
            max_games: 100_000_000,
            log: false,
        }
    }

    /// The design scales as 1/(worth·precision): with 2 parameters worth 8 Elo and a
    /// precision of 2 Elo, Autoselect plans 237,991/16 = 14,874 games. Below the plan
    /// the noise ball is too wide for 95% of seeds, above it narrow enough, and the
    /// sweep lands near the plan.
    #[test]
    fn autoselect_needs_about_the_games_it_plans_at_a_small_scale() {
        let experiment = autoselect(2, 8.0);
        let plan = experiment
            .tuner
            .planned_games(&experiment.start, &experiment.outcome, 2.0);
        assert!((plan - 237_991.0 / 16.0).abs() < 1.0, "{plan}");
        let mut evaluations = Evaluations::new(
            |games, seeds| experiment.final_losses(games, seeds),
            sweep_options(2.0, 50, 300),
        );
        // Asymptotically 1 − e^(−5.99·f/2) of seeds pass at f times the plan: 83% at
        // 0.6, 99% at 1.5.
        let short = evaluations.at((0.6 * plan) as u64 & !1, 300);
        let long = evaluations.at((1.5 * plan) as u64 & !1, 300);
        assert!(short.rate() < 0.93, "{short:?}");
        assert!(long.rate() > 0.96, "{long:?}");
        let crossing = evaluations.games_needed(plan as u64).expect("reached");
        assert!((crossing.games / plan - 1.0).abs() < 0.25, "{crossing:?}");
    }

    /// fishtest's published Autoselect figures, each parameter worth 2 Elo, draw ratio
    /// 0.61, within 0.5 Elo in 95% of seeds: the sweep finds each within 10%, with the
    /// settings of docs/SIMULATOR.md (so it prints that page's figures). About 9 minutes
    /// on two cores: `cargo test -p tuner -- --ignored autoselect_reproduces`.
    #[test]
    #[ignore]
    fn autoselect_reproduces_fishtests_figures() {
        for (n, published, coarse_seeds, seeds) in [
            (1, 152_589.0, 200, 4_000),
            (2, 237_991.0, 100, 1_000),
            (4, 376_868.0, 100, 1_000),
            (6, 500_158.0, 100, 1_000),
        ] {
            let experiment = autoselect(n, 2.0);
            let mut evaluations = Evaluations::new(
                |games, seeds| experiment.final_losses(games, seeds),
                sweep_options(0.5, coarse_seeds, seeds),
            );
            let plan = experiment
                .tuner
                .planned_games(&experiment.start, &experiment.outcome, 0.5);
            let crossing = evaluations
                .games_needed(plan.round() as u64)
                .expect("reached");
            eprintln!("n = {n}: {crossing:?}");
            assert!(
                (crossing.games / published - 1.0).abs() < 0.10,
                "n = {n}: {} games against {published}",
                crossing.games
            );
        }
    }
}
