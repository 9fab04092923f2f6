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
use crate::stats::{GATE_Z, gate_opens, gate_threshold};

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

/// The write-back gate: whether the gain pairs show the result better than the start
/// (their estimate more than [`GATE_Z`] standard errors above 0), and the figure that
/// says so or not.
struct Gate {
    open: bool,
    reason: String,
}

impl Gate {
    fn of(server: &Server) -> Gate {
        let Some((elo, error, pairs)) = server.gain_estimate() else {
            return Gate {
                open: false,
                reason: "no gain pairs were played (--gain-every 0, or a run too short for one)"
                    .to_string(),
            };
        };
        let open = gate_opens(elo, error);
        let figure =
            format!("the gain pairs measured {elo:+.1} ± {error:.1} Elo (95%, {pairs} pairs)");
        let threshold = gate_threshold(error);
        Gate {
            open,
            reason: if open {
                figure
            } else {
                format!(
                    "{figure}: not above the gate's {threshold:+.1} Elo ({GATE_Z} standard errors)"
                )
            },
        }
    }
}

/// Prints and stores the result table, writes the values back where the gate (or
/// --force-write) lets it, and runs the verification of what was written, as planned.
pub(super) fn finish(plan: TunePlan, server: Server) -> Result<()> {
    let TunePlan {
        mut side,
        slots,
        run_files,
        output,
        write,
        force_write,
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
    let gate = Gate::of(&server);
    let files = crate::param_files::paths_text(&side.paths(), ", ");
    let wrote = write && (gate.open || force_write);
    if !write {
        eprintln!("--no-write: parameter files left as they were");
    } else if !wrote {
        eprintln!(
            "spsa: kept the start values in {files}: {}; --force-write writes the result anyway",
            gate.reason
        );
    } else {
        side.write_back(&slots, &written)?;
        let forced = if gate.open { "" } else { " (--force-write)" };
        eprintln!(
            "wrote {} to {files}{forced}: {}",
            what_finish_writes(&server, output),
            gate.reason
        );
    }
    if verify.is_some() && !wrote {
        eprintln!("--verify: nothing was written, so there is nothing to verify");
    }
    if let Some(verify) = verify.filter(|_| wrote) {
        let started_from: Vec<i32> = server
            .config
            .params
            .iter()
            .map(|p| p.start.round() as i32)
            .collect();
        let (tuned, start) = side.verify_sides(&slots, &written, &started_from);
        let plan = VerifyPlan {
            files: server.config.files.clone(),
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
            provenance: provenance(&server, output),
        };
        crate::matches::verify::run_plan(plan)?;
    }
    Ok(())
}

/// What the verified header says of the tune that made it: its pairs, parameters,
/// seed, gains and schedule, what it wrote, and its games.
fn provenance(server: &Server, output: Output) -> Vec<String> {
    let cfg = &server.config;
    vec![
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
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spsa::journal::tests::{config, param};

    /// A run whose gain pairs ended with these pentanomial counts (LL, LD, DD+WL, WD, WW).
    fn gate_after(penta: [u64; 5]) -> Gate {
        let mut server = Server::new(config(vec![param("a", 100.0)], 40, 1), None).unwrap();
        server.state.gain.penta = penta;
        Gate::of(&server)
    }

    #[test]
    fn the_gate_opens_only_on_a_gain_over_a_quarter_standard_error() {
        let none = gate_after([0; 5]);
        assert!(
            !none.open && none.reason.contains("no gain pairs"),
            "{}",
            none.reason
        );
        let clear = gate_after([2, 6, 20, 30, 22]);
        assert!(clear.open, "{}", clear.reason);
        assert!(
            clear.reason.starts_with("the gain pairs measured +"),
            "{}",
            clear.reason
        );
        let unclear = gate_after([10, 18, 24, 18, 10]);
        assert!(!unclear.open, "{}", unclear.reason);
        assert!(
            unclear.reason.contains(": not above the gate's +"),
            "{}",
            unclear.reason
        );
        let worse = gate_after([22, 30, 20, 6, 2]);
        assert!(!worse.open, "{}", worse.reason);
    }
}
