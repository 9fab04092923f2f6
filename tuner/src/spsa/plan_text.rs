//! The plan a new run prints before its first pair: its schedule and result, each
//! parameter's c and r with where they come from, and for a designed run the games it
//! expects to need.

use std::path::Path;

use super::args::Output;
use super::gains::{Resolved, Source};
use super::journal::RunConfig;
use crate::design;
use crate::rules::Param;
use crate::tuned::side::TunedSide;

/// The run's `r_end` (four significant digits): one figure when every tuned parameter
/// has the same, else its range.
pub(super) fn r_end_text(config: &RunConfig) -> String {
    let r = config.params.iter().map(|p| p.r_end);
    let (lo, hi) = r.fold((f64::INFINITY, 0.0_f64), |(lo, hi), r| {
        (lo.min(r), hi.max(r))
    });
    let (lo, hi) = (design::rounded(lo), design::rounded(hi));
    if lo == hi || config.params.is_empty() {
        format!("{hi}")
    } else {
        format!("{lo}..{hi}")
    }
}

/// Parameters the plan lists one by one; beyond, the first [`PLAN_ROWS_SHOWN`] and a
/// summary line.
pub(super) const PLAN_ROWS_ALL: usize = 12;

pub(super) const PLAN_ROWS_SHOWN: usize = 5;

/// A c or r as the plan shows it: four significant digits.
pub(super) fn short(x: f64) -> String {
    design::rounded(x).to_string()
}

/// Where a parameter's c and r come from, as the plan says it.
pub(super) fn source_text((c, r): (Source, Source)) -> String {
    if c == r {
        c.label().to_string()
    } else {
        format!("c {}, r {}", c.label(), r.label())
    }
}

/// The plan a new run prints before its first pair: the schedule and the averaging,
/// each tuned parameter's c and r and where they come from (above [`PLAN_ROWS_ALL`]
/// parameters the first few and a count per source), and for a designed run the games
/// the design expects to need, beside the planned games.
pub(super) fn plan_lines(config: &RunConfig, resolved: &Resolved, output: Output) -> Vec<String> {
    let mut lines = vec![headline(config, resolved, output)];
    lines.extend(param_rows(config, &resolved.sources));
    if config.designed {
        lines.extend(budget_lines(config, resolved));
    }
    lines
}

/// The plan's first line: the schedule, where the gains come from, and the result.
fn headline(config: &RunConfig, resolved: &Resolved, output: Output) -> String {
    let pairs = config.hyper.pairs;
    let result = match (config.rules, output) {
        _ if !config.rules.is_occam() => "result: the last θ".to_string(),
        (_, Output::Average) if config.average_power > 0.0 => format!(
            "result: θ averaged over the run, θ after pair k weighted by k^{}",
            config.average_power
        ),
        (_, Output::Average) => format!(
            "result: θ averaged over the last {}% of the pairs",
            short(100.0 * config.average_fraction)
        ),
        (_, Output::Last) => "result: the last θ (--output last)".to_string(),
    };
    if config.designed {
        format!(
            "spsa: plan: constant gains, the design's where a file leaves out c_end or r_end (c: the change that costs about {} Elo, a quarter of the range{}; r: leaves {} Elo of noise around the optimum, all parameters together, for games whose W − L varies by {} a game{}{}); {result}",
            design::COST_TARGET,
            match resolved.probing.pairs {
                0 => String::new(),
                p => format!(
                    " times {} as a probe of {p} pairs found",
                    short(resolved.probing.c_scale)
                ),
            },
            design::PRECISION,
            short(resolved.probing.game_variance),
            if resolved.probing.pairs == 0 {
                " (fishtest's reference)"
            } else {
                " (measured by the probe)"
            },
            if resolved.short_run {
                format!(
                    ", or where larger, as here, the r under which the start's offset shrinks by e over this run's {} games (at most {})",
                    crate::text::thousands(2.0 * pairs as f64),
                    design::SHORT_RUN_R_MAX
                )
            } else {
                String::new()
            }
        )
    } else if let Some(baseline) = config.rules.baseline() {
        format!(
            "spsa: plan: {} (a baseline): its decaying gains, each parameter reaching the c and r below (its file's c_end and r_end, else Stockfish's TUNE defaults (max − min)/20 and {}) at pair {pairs} (alpha {}, gamma {}, A {}); {}; {result}",
            baseline.title,
            Param::DEFAULT_R_END,
            config.hyper.alpha,
            config.hyper.gamma,
            short(config.hyper.big_a),
            baseline.mechanics
        )
    } else {
        format!(
            "spsa: plan: fishtest's decaying gains, each parameter reaching the c and r below (its file's c_end and r_end) at pair {pairs} (alpha {}, gamma {}, A {}); {result}",
            config.hyper.alpha,
            config.hyper.gamma,
            short(config.hyper.big_a)
        )
    }
}

/// A row per tuned parameter, its c and r and where they come from (beyond
/// [`PLAN_ROWS_ALL`] parameters the first few and a count per source).
fn param_rows(config: &RunConfig, sources: &[(Source, Source)]) -> Vec<String> {
    let n = config.params.len();
    let mut lines = vec![];
    let shown = if n > PLAN_ROWS_ALL {
        PLAN_ROWS_SHOWN
    } else {
        n
    };
    let width = config.params[..shown]
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for (p, &from) in config.params.iter().zip(sources).take(shown) {
        lines.push(format!(
            "spsa:   {:<width$}  c {:<8} r {:<8} ({})",
            p.name,
            short(p.c_end),
            short(p.r_end),
            source_text(from)
        ));
    }
    if n > shown {
        let mut counts: Vec<((Source, Source), usize)> = Vec::new();
        for &from in &sources[shown..] {
            match counts.iter_mut().find(|(s, _)| *s == from) {
                Some((_, count)) => *count += 1,
                None => counts.push((from, 1)),
            }
        }
        counts.sort();
        let counts: Vec<String> = counts
            .into_iter()
            .map(|(from, count)| format!("{count} {}", source_text(from)))
            .collect();
        lines.push(format!(
            "spsa:   … and {} more ({})",
            n - shown,
            counts.join("; ")
        ));
    }
    lines
}

/// A designed run's planned games beside the games the design expects to need, with
/// the times at the probe's rate.
fn budget_lines(config: &RunConfig, resolved: &Resolved) -> Vec<String> {
    let pairs = config.hyper.pairs;
    let n = config.params.len();
    let mut lines = vec![];
    let variance = resolved.probing.game_variance;
    let expected = design::rounded(design::games_for(
        design::PRECISION,
        n,
        variance,
        design::COST_TARGET,
    ));
    let rate = resolved.probing.games_per_second;
    let planned = 2.0 * pairs as f64;
    lines.push(format!(
        "spsa: planned {} games{}; the design expects about {} games{} to end within 0.5 Elo of the optimum of a quadratic landscape (95%, {n} parameters)",
        crate::text::thousands(planned),
        time_at(planned, rate),
        crate::text::thousands(expected),
        time_at(expected, rate)
    ));
    if let Some(rate) = rate {
        lines.push(format!(
            "spsa: times at the {rate:.1} games/s the probe's games were played at"
        ));
    }
    lines
}

/// " (≈ 2.1 h)": how long `games` take at `games_per_second`; empty without a rate.
pub(super) fn time_at(games: f64, games_per_second: Option<f64>) -> String {
    match games_per_second {
        Some(rate) if rate > 0.0 => format!(" (≈ {})", duration_text(games / rate)),
        _ => String::new(),
    }
}

/// A duration in the unit a person plans by: minutes below two hours, hours below
/// two days, days beyond.
pub(super) fn duration_text(seconds: f64) -> String {
    let minutes = seconds / 60.0;
    if minutes < 1.0 {
        "under a minute".to_string()
    } else if minutes < 120.0 {
        format!("{minutes:.0} min")
    } else if minutes < 48.0 * 60.0 {
        format!("{:.1} h", minutes / 60.0)
    } else {
        format!("{:.1} days", minutes / (24.0 * 60.0))
    }
}

/// The line every run prints before its first pair: what is tuned, from which files,
/// how many pairs under which rules, the workers, the games and the journal.
pub(super) fn summary_line(
    config: &RunConfig,
    side: &TunedSide,
    threads: usize,
    journal: &Path,
) -> String {
    format!(
        "spsa: {} parameters of {} from {}, {} pairs{}, r_end {}, {threads} threads, {}; journal {}",
        config.params.len(),
        match side {
            TunedSide::InProcess(_) => "Occam (in-process)".to_string(),
            TunedSide::External(t) => format!("engine '{}' ({})", t.spec.name, t.spec.cmd),
        },
        crate::param_files::paths_text(&config.files, ", "),
        config.hyper.pairs,
        config
            .rules
            .baseline()
            .map_or(String::new(), |b| format!(", {}", b.title)),
        r_end_text(config),
        config.games,
        journal.display()
    )
}
