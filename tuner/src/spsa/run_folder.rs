//! The run's folder: where the journal and the verified header go, the locks that
//! make a run the one writer of its files, and opening a run (new, resumed, or an
//! earlier run moved aside by `--restart`).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::args::Args;
use super::journal::{RunConfig, RunFiles};
use super::plan_text::r_end_text;
use super::server::Server;
use crate::run_files::{self, WriteLocks};

/// The journal: --journal, or `runs/<first file's stem>.spsa.jsonl`. A run whose
/// files still lie beside the parameter files (where older versions wrote them) is
/// pointed to the run folder.
pub(super) fn journal_path(args: &Args) -> Result<PathBuf> {
    if let Some(journal) = &args.journal {
        run_files::refuse_params_folder(journal, "--journal")?;
        return Ok(journal.clone());
    }
    let journal = RunFiles::default_journal(&args.files[0]);
    let beside = args.files[0].with_extension("spsa.jsonl");
    if beside.exists() && !journal.exists() {
        let stem = beside.with_extension("");
        let moving = format!(
            "`mkdir -p {} && mv {}.* {}/`",
            run_files::RUN_DIR,
            stem.display(),
            run_files::RUN_DIR
        );
        if args.resume || args.finish {
            bail!(
                "the run to continue lies beside the parameter files ({}), where the build cannot have it; move its files to the run folder with {moving} and run this again",
                beside.display()
            );
        }
        eprintln!(
            "note: an earlier run's files lie beside the parameter files ({}); to keep it, move them with {moving}",
            beside.display()
        );
    }
    Ok(journal)
}

/// Where --verify writes its header: --header, or `runs/<first file's stem>.verified.rs`.
pub(super) fn header_path(args: &Args) -> Result<PathBuf> {
    if let Some(header) = &args.header {
        run_files::refuse_params_folder(header, "--header")?;
        return Ok(header.clone());
    }
    let stem = args.files[0]
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy();
    Ok(run_files::in_run_dir(format!("{stem}.verified.rs")))
}

/// Locks every file the run writes, for the whole run: the journal (and so its
/// siblings), the parameter files unless --no-write, the header and the PGN.
pub(super) fn lock_run(args: &Args, journal: &Path, header: Option<&Path>) -> Result<WriteLocks> {
    run_files::create_folder_of(journal)?;
    let mut locks = run_files::lock_outputs(args.games.pgn_output())?;
    let files = args.files.iter().filter(|_| !args.no_write);
    for path in [journal]
        .into_iter()
        .chain(files.map(PathBuf::as_path))
        .chain(header)
    {
        locks.add(path)?;
    }
    Ok(locks)
}

/// The run: resumed from its journal with --resume (which must use the run's own files
/// and game options), else new, after --restart has moved an earlier run aside.
pub(super) fn open_run(
    args: &Args,
    config: RunConfig,
    run_files: &RunFiles,
    new_run: bool,
) -> Result<Server> {
    let journal = &run_files.journal;
    Ok(if !new_run {
        let server = Server::resume(run_files.clone())?;
        let was = &server.config;
        if was.rules != config.rules {
            bail!(
                "--resume must play the run's own rules: it was started with --rules {}, not --rules {}",
                was.rules.name(),
                config.rules.name()
            );
        }
        if was.engine != config.engine {
            bail!(
                "--resume must tune the run's own engine: {}",
                was.engine
                    .as_deref()
                    .unwrap_or("Occam in-process (no --engine)")
            );
        }
        if was.files != config.files || was.games != config.games {
            bail!(
                "--resume must use the run's own files and game options: {} with {}",
                crate::param_files::paths_text(&was.files, " "),
                was.games
            );
        }
        let names = |c: &RunConfig| c.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        let r_ends = |c: &RunConfig| c.params.iter().map(|p| p.r_end).collect::<Vec<_>>();
        if names(was) != names(&config)
            || was.hyper.pairs != config.hyper.pairs
            || r_ends(was) != r_ends(&config)
        {
            eprintln!(
                "note: resuming with the run's own settings ({} parameters, {} pairs, r_end {}); other flags are ignored",
                was.params.len(),
                was.hyper.pairs,
                r_end_text(was)
            );
        }
        eprintln!(
            "{} {}: {} of {} pairs done",
            if args.finish { "finishing" } else { "resuming" },
            journal.display(),
            server.pairs_done(),
            server.config.hyper.pairs
        );
        server
    } else {
        Server::new(config, Some(run_files.clone()))?
    })
}

/// Before a new run (and its probe): --restart moves an earlier run's files aside;
/// without it an earlier journal is refused.
pub(super) fn make_room(args: &Args, run_files: &RunFiles) -> Result<()> {
    let journal = &run_files.journal;
    if args.restart {
        if let Some(n) = run_files.rotate()? {
            eprintln!(
                "--restart: the earlier run's files are kept as {}.old.{n} and its siblings",
                journal.display()
            );
        }
    } else if journal.exists() {
        bail!(
            "{} holds an earlier run: add --resume to continue it or --restart to start over",
            journal.display()
        );
    }
    Ok(())
}
