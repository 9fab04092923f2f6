//! The end of a run: the result table, the values written back into the parameter
//! files, the verification SPRT; and after a clean stop, how to go on.

use anyhow::Result;

use super::args::Output;
use super::plan::TunePlan;
use super::plan_text::r_end_text;
use super::report;
use super::server::Server;
use crate::interrupt::{self};
use crate::matches::verify::VerifyPlan;

/// What to do after a clean stop: the pairs done, where they are kept, and the two
/// commands that go on from there.
pub(super) fn report_stop(plan: &TunePlan, server: &Server) {
    let others = ["--restart", "--resume", "--finish"];
    eprintln!(
        "spsa: stopped after {} of {} pairs; the journal keeps every finished pair: {}",
        server.pairs_done(),
        server.config.hyper.pairs,
        plan.run_files.journal.display()
    );
    eprintln!(
        "spsa: to continue:  {}",
        interrupt::command_again(&others, "--resume")
    );
    eprintln!(
        "spsa: to write the values reached so far ({}):  {}",
        what_finish_writes(server, plan.output),
        interrupt::command_again(&others, "--finish")
    );
}

/// Which θ a write-back takes now: the average once it has begun, else the last θ.
pub(super) fn what_finish_writes(server: &Server, output: Output) -> String {
    let window = server.config.averaging_window_start() + 1;
    let done = server.pairs_done();
    match output {
        Output::Last => "the last θ".to_string(),
        Output::Average if !server.average_begun() => {
            format!("the last θ: the averaging window, from pair {window} on, has not begun")
        }
        Output::Average if server.config.average_power > 0.0 => format!(
            "the average of θ over pairs 1..{done}, weighted by the pair's index to the power {}",
            server.config.average_power
        ),
        Output::Average => format!("the average of θ over pairs {window}..{done}"),
    }
}

/// Prints and stores the result table, writes the values back and runs the
/// verification, as planned.
pub(super) fn finish(plan: TunePlan, server: Server) -> Result<()> {
    let TunePlan {
        mut side,
        slots,
        run_files,
        output,
        write,
        verify,
        threads,
        ..
    } = plan;

    let written = match output {
        Output::Average => server.average(),
        Output::Last => server.state.theta.clone(),
    };
    let written: Vec<i32> = written
        .iter()
        .zip(&server.config.params)
        .map(|(v, p)| (v.round() as i32).clamp(p.min, p.max))
        .collect();
    let table = report::Table::new(&server, &written, output);
    println!("{}", table.render());
    table.write_files(&run_files, &server)?;
    if !write {
        eprintln!("--no-write: parameter files left as they were");
    } else {
        side.write_back(&slots, &written)?;
        eprintln!(
            "wrote {} to {}",
            what_finish_writes(&server, output),
            crate::param_files::paths_text(&side.paths(), ", ")
        );
    }
    if let Some(verify) = verify {
        let started_from: Vec<i32> = server
            .config
            .params
            .iter()
            .map(|p| p.start.round() as i32)
            .collect();
        let (tuned, start) = side.verify_sides(&slots, &written, &started_from);
        let cfg = &server.config;
        let plan = VerifyPlan {
            files: cfg.files.clone(),
            tuned,
            start,
            sprt: verify.sprt,
            pairs: verify.pairs,
            concurrency: threads,
            header: verify.header,
            force: false,
            results: None,
            resume: false,
            games: verify.games,
            provenance: vec![
                format!(
                    "tuned by: tuner spsa, {} pairs ({} games), {} parameters ({}), seed {}, r_end {}, {}, written: {:?}",
                    server.pairs_done(),
                    2 * server.pairs_done(),
                    cfg.params.len(),
                    cfg.params
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    cfg.seed,
                    r_end_text(cfg),
                    if cfg.designed {
                        "constant gains (the design)".to_string()
                    } else {
                        format!(
                            "{}alpha {} gamma {} A {}",
                            cfg.rules
                                .baseline()
                                .map_or(String::new(), |b| format!("{}, ", b.title)),
                            cfg.hyper.alpha,
                            cfg.hyper.gamma,
                            cfg.hyper.big_a
                        )
                    },
                    output
                ),
                format!("tune games: {}", cfg.games),
            ],
        };
        crate::matches::verify::run_plan(plan)?;
    }
    Ok(())
}
