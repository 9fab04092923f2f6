//! `tuner verify FILES…`: an SPRT of the tuned values (`value`) against the starting
//! values (`start`) of the given parameter files; only when it accepts H1 (or with
//! `--force`) is a frozen header written, stamped with where it came from.

use std::path::PathBuf;

use anyhow::{Result, bail};
use occam_params::render;

use super::runner::{MatchConfig, play_match};
use super::sprt::{Decision, Model, Sprt};
use crate::param_files::{paths_text, write_atomically};
use crate::play::args::GameArgs;
use crate::play::side::{Field, Side, params_from_files};
use crate::run_files;
use crate::stats::fmt2;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Parameter files whose `value`s are tested against their `start`s.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The test: elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", default_values = ["elo0=0", "elo1=5"])]
    pub sprt: Vec<String>,
    /// Elo model of the SPRT bounds.
    #[arg(long, value_enum, default_value_t = Model::Normalized)]
    pub model: Model,
    /// Upper limit of game pairs.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub pairs: u64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// Where to write the verified parameters: a Rust module when the name ends in
    /// `.rs`, otherwise a C header. Never in a folder of parameter files.
    #[arg(
        long,
        default_value = "runs/occam_params.verified.h",
        value_name = "FILE"
    )]
    pub header: PathBuf,
    /// Write the header even when the SPRT did not accept H1.
    #[arg(long)]
    pub force: bool,
    /// Record every pair in this JSON-lines file (needed for --resume).
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Continue the test recorded in --results.
    #[arg(long, requires = "results")]
    pub resume: bool,
    #[command(flatten)]
    pub games_args: GameArgs,
}

/// A verification, however it was asked for (`tuner verify`, `tuner spsa --verify`):
/// tuned values against start values under an SPRT, and where the header goes.
pub struct VerifyPlan {
    /// The parameter files the values belong to (named in the report and the header).
    pub files: Vec<PathBuf>,
    /// The tuned values and the values they started from: Occam in-process at each,
    /// or one external engine set to each (no frozen header is written for an
    /// engine: its values are in its own parameter file).
    pub tuned: Side,
    pub start: Side,
    pub sprt: Sprt,
    /// Upper limit of game pairs.
    pub pairs: u64,
    pub concurrency: usize,
    pub header: PathBuf,
    /// Write the header even when the SPRT did not accept H1.
    pub force: bool,
    pub results: Option<PathBuf>,
    pub resume: bool,
    pub games: GameArgs,
    /// Lines for the header saying where the tuned values came from.
    pub provenance: Vec<String>,
}

impl VerifyPlan {
    /// `tuner verify FILES…`: the files' `value`s against their `start`s.
    pub fn from_args(args: VerifyArgs) -> Result<VerifyPlan> {
        let files = paths_text(&args.files, ",");
        let side = |name: &str, field: Field, label: &str| -> Result<Side> {
            Ok(Side::InProcess {
                name: name.to_string(),
                source: format!("{files}@{label}"),
                params: params_from_files(&args.files, field)?,
            })
        };
        Ok(VerifyPlan {
            sprt: Sprt::parse(&args.sprt, args.model)?,
            tuned: side("tuned", Field::Value, "value")?,
            start: side("start", Field::Start, "start")?,
            files: args.files,
            pairs: args.pairs,
            concurrency: args.concurrency as usize,
            header: args.header,
            force: args.force,
            results: args.results,
            resume: args.resume,
            games: args.games_args,
            provenance: Vec::new(),
        })
    }
}

/// `tuner verify`: the header, results and PGN it writes are locked for the whole run.
pub fn verify(args: VerifyArgs) -> Result<()> {
    run_files::create_folder_of(&args.header)?;
    let outputs = [(args.header.as_path(), "--header")]
        .into_iter()
        .chain(args.results.as_deref().map(|p| (p, "--results")))
        .chain(args.games_args.pgn_output());
    let _locks = run_files::lock_outputs(outputs)?;
    crate::interrupt::install("finishing the games in flight");
    run_plan(VerifyPlan::from_args(args)?)
}

/// Plays the SPRT of the plan and writes the header when it accepts H1 (or on `force`).
pub fn run_plan(plan: VerifyPlan) -> Result<()> {
    let sprt = plan.sprt;
    let files: Vec<String> = plan.files.iter().map(|p| p.display().to_string()).collect();
    let same = match (&plan.tuned, &plan.start) {
        (Side::InProcess { params: tuned, .. }, Side::InProcess { params: start, .. }) => {
            tuned == start
        }
        (Side::External(tuned), Side::External(start)) => tuned.options == start.options,
        _ => false,
    };
    if same {
        eprintln!(
            "note: every value equals its start value in {}: expect H0",
            files.join(", ")
        );
    }
    let tc = plan.games.time_control()?;
    let openings = plan.games.openings(plan.pairs.min(1_000) as usize)?;
    let pgn = plan.games.pgn_writer()?;
    let settings = plan.games.describe();
    let result = play_match(&MatchConfig {
        a: &plan.tuned,
        b: &plan.start,
        pairs: plan.pairs,
        concurrency: plan.concurrency,
        tc,
        adjudication: plan.games.adjudication(),
        openings: &openings,
        hash_mb: plan.games.hash_mb(),
        sprt: Some(sprt),
        pgn: pgn.as_ref(),
        results: plan.results.clone(),
        resume: plan.resume,
        report_every: 0,
        settings: settings.clone(),
        verbose: true,
    })?;
    println!("--------------------------------------------------");
    print!("{}", result.report(&settings));
    println!("--------------------------------------------------");
    if result.stopped {
        super::report_stop(&result, plan.results.is_some());
        return Err(crate::interrupt::Stopped.into());
    }
    let (_, llr, decision) = result.sprt.expect("an SPRT was configured");
    if decision != Decision::AcceptH1 && !plan.force {
        bail!(
            "verification did not accept H1 ({decision} after {} games): {} not written (--force writes it anyway)",
            result.tally.games(),
            plan.header.display()
        );
    }
    let Side::InProcess { params: tuned, .. } = &plan.tuned else {
        println!(
            "verified: the tuned values in {} beat the start values",
            files.join(", ")
        );
        return Ok(());
    };
    let summary = result.tally.summary();
    let (bench_nodes, _) = occam::bench::run(tuned, occam::bench::DEFAULT_DEPTH);
    let mut provenance = vec![format!("verified by: tuner verify {}", files.join(" "))];
    provenance.extend(plan.provenance.iter().cloned());
    provenance.extend([
        format!("files: {}", files.join(", ")),
        format!(
            "games: {} ({} pairs), {settings}",
            result.tally.games(),
            result.tally.pairs()
        ),
        format!(
            "SPRT [{}, {}] {:?} alpha={} beta={}: {decision}{}, LLR {llr:.2} ({:.2}, {:.2})",
            sprt.elo0,
            sprt.elo1,
            sprt.model,
            sprt.alpha,
            sprt.beta,
            if decision == Decision::AcceptH1 {
                ""
            } else {
                " (written with --force)"
            },
            sprt.lower(),
            sprt.upper()
        ),
        match summary {
            Some(s) => format!(
                "Elo tuned vs start: {} +/- {} (95%), nElo {} +/- {}, Ptnml(0-2) {:?}",
                fmt2(s.elo),
                fmt2(s.elo_error),
                fmt2(s.nelo),
                fmt2(s.nelo_error),
                result.tally.penta
            ),
            None => "Elo tuned vs start: no games".to_string(),
        },
        format!(
            "bench: {bench_nodes} nodes (depth {}, tuned values)",
            occam::bench::DEFAULT_DEPTH
        ),
        format!("date: {}", utc_now()),
    ]);
    let entries = tuned.render_entries();
    let text = if plan.header.extension().is_some_and(|e| e == "rs") {
        render::rust_consts(&entries, &provenance)
    } else {
        render::c_header(&entries, &provenance)
    };
    write_atomically(&plan.header, &text)?;
    println!("wrote {}", plan.header.display());
    Ok(())
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs % 86_400 / 3600,
        secs % 3600 / 60
    )
}

/// Calendar date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
