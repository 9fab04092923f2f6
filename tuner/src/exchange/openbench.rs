//! `tuner openbench`: Occam's design on an OpenBench instance, whose workers play the
//! games while the design's gains and its averaged result stay Occam's.
//!
//! - **plan**: the tune's input lines with the design's constant gains for its budget
//!   (c and r of every parameter a file leaves without `c_end`/`r_end`, as `tuner
//!   spsa` would play them for that many pairs), and the form fields that make
//!   OpenBench keep them constant: α = γ = 0 (its update then plays c = c_end and
//!   R = r_end at every iteration).
//! - **follow**: polls the tune's digest (`/api/spsa/<id>/digest/`, θ to four
//!   decimals) and its workload's info (`/api/workload/<id>/info/`, the games played)
//!   and appends a snapshot to a journal whenever the games grew, until the tune ends.
//!   OpenBench keeps only the current θ; the journal is what an average is built from.
//! - **average**: the design's result from a journal, θ after pair k weighted by k²
//!   ([`design::AVERAGING`]) with each pair's θ taken from the first snapshot at or
//!   after it, written into parameter files as `tuner import` writes.
//!
//! A command: uses the parameter files, the design's maths and the base.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::import::{self, Imported};
use crate::design;
use crate::param_files::lists::{ExternalParam, ParamList};
use crate::param_files::write_atomically;
use crate::run_files;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Print an OpenBench tune's input lines with the design's constant gains for its
    /// budget, and the form fields (α = γ = 0) that keep them constant.
    Plan(PlanArgs),
    /// Poll a running OpenBench tune and journal θ with the games played, until it ends.
    Follow(FollowArgs),
    /// Write the design's average of a followed tune's θ into parameter files.
    Average(AverageArgs),
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// The parameter files to tune: params/*.json, or an engine's OpenBench SPSA text.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The tune's budget in game pairs (iterations × pairs per iteration).
    #[arg(long)]
    pub pairs: u64,
    /// Pairs each iteration plays with one perturbation (OpenBench's `spsa_pairs_per`).
    #[arg(long, default_value_t = 1)]
    pub pairs_per: u64,
    /// Factor on every designed c, as a probe of the start found it (`tuner spsa`
    /// prints it on the same files: "next c × F"); 1 is the prior, a quarter of the range.
    #[arg(long, default_value_t = 1.0)]
    pub c_scale: f64,
    /// Write the input lines to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct FollowArgs {
    /// The instance's address, e.g. http://127.0.0.1:8000 or https://chess.example.org.
    pub server: String,
    /// The tune's workload id.
    pub id: u64,
    /// The journal of snapshots (appended to; a run stopped midway continues it).
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// Seconds between polls.
    #[arg(long, default_value_t = 30.0)]
    pub every: f64,
    /// Take one snapshot and stop (for a cron job, or to look).
    #[arg(long)]
    pub once: bool,
}

#[derive(clap::Args)]
pub struct AverageArgs {
    /// The journal `tuner openbench follow` wrote.
    pub journal: PathBuf,
    /// The files to write the values into (as `tuner import`).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The last θ the journal holds instead of the average (what OpenBench writes back).
    #[arg(long)]
    pub last: bool,
    /// Show what would change without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args) -> Result<()> {
    match args.action {
        Action::Plan(a) => plan(a),
        Action::Follow(a) => follow(a),
        Action::Average(a) => average(a),
    }
}

// ---------------------------------------------------------------- plan

/// OpenBench's form fields for a constant-gain tune of `pairs` pairs.
pub struct FormFields {
    pub iterations: u64,
    pub pairs_per: u64,
}

impl FormFields {
    /// The fields as `name value` lines, α and γ 0 (the ORM takes them; a stock web
    /// form refuses 0, and its smallest values, 1e-6, change c and R by under 0.01%
    /// over 10⁵ iterations).
    pub fn text(&self) -> String {
        format!(
            "spsa_alpha 0\nspsa_gamma 0\nspsa_A_ratio 0\nspsa_iterations {}\nspsa_pairs_per {}\nspsa_reporting_type BATCHED\nspsa_distribution_type SINGLE\n",
            self.iterations, self.pairs_per
        )
    }
}

/// The input lines `name, int|float, value, min, max, c, r` of `params`, with the
/// design's c and r for `pairs` pairs where a file leaves them out.
pub fn input_lines(params: &[ExternalParam], pairs: u64, c_scale: f64) -> String {
    let requests: Vec<design::Request> = params
        .iter()
        .map(|p| design::Request {
            min: p.min,
            max: p.max,
            c_end: p.c_end,
            r_end: p.r_end,
        })
        .collect();
    let r = design::designed_r(
        design::PRECISION,
        params.len(),
        design::PRIOR_GAME_VARIANCE,
        2.0 * pairs as f64,
    );
    let gains = design::gains(&requests, c_scale, r);
    let mut lines = Vec::with_capacity(params.len());
    for (p, g) in params.iter().zip(gains) {
        let shown = |v: f64, designed: bool| if designed { design::rounded(v) } else { v };
        // OpenBench floors an integer's c at 0.5 (`spsa_utils.py`): say so in the input.
        let floor = if p.float { 0.0 } else { 0.5 };
        lines.push(format!(
            "{}, {}, {}, {}, {}, {}, {}",
            p.name,
            if p.float { "float" } else { "int" },
            p.value,
            p.min,
            p.max,
            shown(g.c, g.designed_c).max(floor),
            shown(g.r, g.designed_r)
        ));
    }
    lines.join("\n")
}

fn load_params(files: &[PathBuf]) -> Result<Vec<ExternalParam>> {
    let mut params = Vec::new();
    for path in files {
        params.extend(ParamList::load(path)?.params);
    }
    Ok(params)
}

fn plan(args: PlanArgs) -> Result<()> {
    if args.pairs == 0 || args.pairs_per == 0 {
        bail!("--pairs and --pairs-per must be at least 1");
    }
    if !args.pairs.is_multiple_of(args.pairs_per) {
        bail!(
            "--pairs {} is not a whole number of iterations of --pairs-per {}: OpenBench plays iterations × pairs per iteration",
            args.pairs,
            args.pairs_per
        );
    }
    if !(args.c_scale.is_finite() && args.c_scale > 0.0) {
        bail!("--c-scale must be a positive number, got {}", args.c_scale);
    }
    let params = load_params(&args.files)?;
    let lines = input_lines(&params, args.pairs, args.c_scale);
    let form = FormFields {
        iterations: args.pairs / args.pairs_per,
        pairs_per: args.pairs_per,
    };
    match &args.output {
        Some(path) => {
            let _lock = run_files::lock_outputs([(path.as_path(), "--output")])?;
            write_atomically(path, &lines)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!(
                "openbench: wrote {} input lines to {}",
                params.len(),
                path.display()
            );
        }
        None => println!("{lines}"),
    }
    let designed = params
        .iter()
        .filter(|p| p.c_end.is_none() || p.r_end.is_none())
        .count();
    eprintln!(
        "openbench: constant gains for {} pairs ({} games): the design's c or r for {designed} of {} parameters, the files' c_end and r_end elsewhere; OpenBench keeps them constant with these form fields:\n{}",
        args.pairs,
        2 * args.pairs,
        params.len(),
        form.text().trim_end()
    );
    eprintln!(
        "openbench: a stock web form refuses α = γ = 0: give 0.000001 (c and R change by under 0.01% over 10⁵ iterations), or create the tune through the ORM. Follow it with `tuner openbench follow SERVER ID`."
    );
    Ok(())
}

// ---------------------------------------------------------------- follow

/// One line of a follow journal: θ as the digest showed it after `games` games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub games: u64,
    pub finished: bool,
    pub names: Vec<String>,
    pub theta: Vec<f64>,
}

/// The games played and whether the workload is over, from `/api/workload/<id>/info/`.
pub fn parse_info(text: &str) -> Result<(u64, bool)> {
    let json: serde_json::Value =
        serde_json::from_str(text).context("the workload's info is not JSON")?;
    let info = &json["info"];
    let games = info["games"]
        .as_u64()
        .context("the workload's info has no `games` count")?;
    let over = ["finished", "deleted", "error"]
        .iter()
        .any(|k| info[*k].as_bool() == Some(true));
    if info["test_mode"].as_str() != Some("SPSA") {
        bail!(
            "workload {} is a {} workload, not an SPSA tune",
            info["id"],
            info["test_mode"].as_str().unwrap_or("unknown")
        );
    }
    Ok((games, over))
}

/// A snapshot from the digest's text and the info's figures.
pub fn snapshot(digest: &str, games: u64, finished: bool) -> Result<Snapshot> {
    if !digest.trim_start().starts_with(import::DIGEST_HEADER) {
        bail!(
            "the digest does not start with OpenBench's header `{}`",
            import::DIGEST_HEADER
        );
    }
    let values = import::parse_values(digest, "the digest")?;
    Ok(Snapshot {
        games,
        finished,
        names: values.iter().map(|v| v.name.clone()).collect(),
        theta: values.iter().map(|v| v.value).collect(),
    })
}

/// The snapshots of a journal. A last line cut short (a follow killed while writing)
/// is left out; any other bad line is an error.
pub fn read_journal(text: &str, source: &str) -> Result<Vec<Snapshot>> {
    let mut out: Vec<Snapshot> = Vec::new();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let complete = line.ends_with('\n');
        match serde_json::from_str::<Snapshot>(line) {
            Ok(s) => {
                if let Some(prev) = out.last()
                    && (s.games < prev.games || s.names != prev.names)
                {
                    bail!(
                        "{source} line {}: its games ({}) or names do not follow the line before: a journal of one tune only",
                        i + 1,
                        s.games
                    );
                }
                if s.names.len() != s.theta.len() {
                    bail!(
                        "{source} line {}: {} names but {} values",
                        i + 1,
                        s.names.len(),
                        s.theta.len()
                    );
                }
                out.push(s);
            }
            Err(_) if !complete && i + 1 == lines.len() => {
                eprintln!("openbench: {source}: its last line was cut short and is left out");
            }
            Err(e) => bail!("{source} line {}: not a snapshot ({e})", i + 1),
        }
    }
    Ok(out)
}

fn default_journal(id: u64) -> PathBuf {
    run_files::in_run_dir(format!("openbench-{id}.follow.jsonl"))
}

/// Polls a server misses in a row before `follow` gives up: at the default interval,
/// ten minutes of an instance down or unreachable.
const MAX_MISSED_POLLS: u32 = 20;

/// One workload of one instance, as `follow` polls it.
struct Instance {
    agent: ureq::Agent,
    server: String,
    id: u64,
}

impl Instance {
    fn new(server: &str, id: u64) -> Result<Instance> {
        let server = server.trim_end_matches('/');
        if !(server.starts_with("http://") || server.starts_with("https://")) {
            bail!("the server must be an http:// or https:// address, got '{server}'");
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Ok(Instance {
            agent,
            server: server.to_string(),
            id,
        })
    }

    /// GET `<server>/api/<kind>/<id>/<what>/`.
    fn fetch(&self, kind: &str, what: &str) -> Result<String> {
        let url = format!("{}/api/{kind}/{}/{what}/", self.server, self.id);
        self.agent
            .get(&url)
            .call()
            .with_context(|| format!("cannot fetch {url}"))?
            .body_mut()
            .read_to_string()
            .with_context(|| format!("cannot read the answer of {url}"))
    }

    /// The workload's θ and games now, `Ok(None)` when the server did not answer (said
    /// on stderr: the next poll tries again); an answer that is not a tune's is an error.
    fn poll(&self) -> Result<Option<Snapshot>> {
        let texts = self
            .fetch("workload", "info")
            .and_then(|info| Ok((info, self.fetch("spsa", "digest")?)));
        let (info, digest) = match texts {
            Ok(texts) => texts,
            Err(e) => {
                eprintln!("openbench: {e:#}; trying again at the next poll");
                return Ok(None);
            }
        };
        let (games, over) = parse_info(&info)?;
        snapshot(&digest, games, over).map(Some)
    }
}

/// Waits `seconds`, or returns `Stopped` on Ctrl-C after saying how to go on.
fn wait_or_stop(seconds: f64, journal: &Path) -> Result<()> {
    let until = std::time::Instant::now() + Duration::from_secs_f64(seconds);
    while std::time::Instant::now() < until {
        if crate::interrupt::requested() {
            eprintln!(
                "openbench: stopped; run the same command again to go on following ({})",
                journal.display()
            );
            return Err(crate::interrupt::Stopped.into());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// The last snapshot a journal holds, if any.
fn last_snapshot(journal: &Path) -> Result<Option<Snapshot>> {
    match std::fs::read_to_string(journal) {
        Ok(text) => Ok(read_journal(&text, &journal.display().to_string())?.pop()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", journal.display())),
    }
}

fn follow(args: FollowArgs) -> Result<()> {
    if !(args.every.is_finite() && args.every >= 1.0) {
        bail!("--every must be at least 1 second, got {}", args.every);
    }
    let instance = Instance::new(&args.server, args.id)?;
    let journal = args
        .journal
        .clone()
        .unwrap_or_else(|| default_journal(args.id));
    let _lock = run_files::lock_outputs([(journal.as_path(), "--journal")])?;
    let mut last = last_snapshot(&journal)?;
    if last.as_ref().is_some_and(|s| s.finished) {
        eprintln!(
            "openbench: {} already ends with the finished tune",
            journal.display()
        );
        return Ok(());
    }
    crate::interrupt::install("after this poll");
    let mut missed = 0;
    loop {
        match instance.poll()? {
            None => {
                missed += 1;
                if missed >= MAX_MISSED_POLLS {
                    bail!(
                        "{} did not answer {missed} polls in a row; the journal keeps what was followed: run the same command again to go on",
                        instance.server
                    );
                }
            }
            Some(snap) => {
                missed = 0;
                if record(&journal, last.as_ref(), &snap, args.id)? {
                    last = Some(snap);
                }
            }
        }
        if last.as_ref().is_some_and(|s| s.finished) || args.once {
            break;
        }
        wait_or_stop(args.every, &journal)?;
    }
    eprintln!(
        "openbench: the average: tuner openbench average {} <files>",
        journal.display()
    );
    Ok(())
}

/// Appends `snap` when the games grew or the tune ended since `last`; refuses a
/// journal of another tune. Whether it appended.
fn record(journal: &Path, last: Option<&Snapshot>, snap: &Snapshot, id: u64) -> Result<bool> {
    if let Some(prev) = last {
        if snap.names != prev.names {
            bail!(
                "{} follows another tune (its parameters differ from workload {id}'s): give another --journal",
                journal.display()
            );
        }
        if prev.games == snap.games && prev.finished == snap.finished {
            return Ok(false);
        }
    }
    append(journal, snap)?;
    eprintln!(
        "openbench: workload {id} {} games{}: {}",
        snap.games,
        if snap.finished { " (over)" } else { "" },
        journal.display()
    );
    Ok(true)
}

/// Appends one whole line; a journal left without its final newline by a kill is
/// first cut back to its last complete line.
fn append(journal: &Path, snap: &Snapshot) -> Result<()> {
    run_files::create_folder_of(journal)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(journal)
        .with_context(|| format!("cannot open {}", journal.display()))?;
    let text = std::fs::read(journal)?;
    if !text.is_empty() && !text.ends_with(b"\n") {
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        file.set_len(keep as u64)?;
    }
    let mut line = serde_json::to_string(snap)?;
    line.push('\n');
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_data())
        .with_context(|| format!("cannot append to {}", journal.display()))
}

// ---------------------------------------------------------------- average

/// The design's average of the journaled θ: the θ after pair k weighted by k², each
/// pair's θ that of the first snapshot taken at or after it. `None` before any pair.
pub fn averaged(snapshots: &[Snapshot]) -> Option<Vec<f64>> {
    let first = snapshots.first()?;
    let mut sum = vec![0.0; first.theta.len()];
    let (mut total, mut done) = (0.0, 0u64);
    let planned = snapshots.last()?.games / 2;
    for s in snapshots {
        let pairs = s.games / 2;
        let weight: f64 = (done + 1..=pairs)
            .map(|k| design::AVERAGING.weight(k, planned))
            .sum();
        for (acc, v) in sum.iter_mut().zip(&s.theta) {
            *acc += weight * v;
        }
        total += weight;
        done = done.max(pairs);
    }
    (total > 0.0).then(|| sum.iter().map(|s| s / total).collect())
}

fn average(args: AverageArgs) -> Result<()> {
    let source = args.journal.display().to_string();
    let text =
        std::fs::read_to_string(&args.journal).with_context(|| format!("cannot read {source}"))?;
    let snapshots = read_journal(&text, &source)?;
    let Some(last) = snapshots.last() else {
        bail!("{source} holds no snapshot: nothing to write");
    };
    let theta = if args.last {
        last.theta.clone()
    } else {
        averaged(&snapshots).with_context(|| {
            format!(
                "{source}: no pair was played yet, so there is no average (--last writes the start)"
            )
        })?
    };
    eprintln!(
        "openbench: {} of {} games ({} snapshots){}",
        if args.last {
            "the last θ"
        } else {
            "the average of θ, weighted by k² over the pairs"
        },
        last.games,
        snapshots.len(),
        if last.finished {
            ""
        } else {
            "; the tune had not ended at the last snapshot"
        }
    );
    let imported: Vec<Imported> = last
        .names
        .iter()
        .zip(theta)
        .enumerate()
        .map(|(i, (name, value))| Imported {
            name: name.clone(),
            value,
            line: i + 1,
        })
        .collect();
    import::write(&imported, &source, &args.files, args.dry_run)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/openbench");
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    fn snap(games: u64, theta: &[f64]) -> Snapshot {
        Snapshot {
            games,
            finished: false,
            names: (0..theta.len()).map(|i| format!("p{i}")).collect(),
            theta: theta.to_vec(),
        }
    }

    /// The texts a real instance returned make a snapshot of its three parameters.
    #[test]
    fn a_real_instances_digest_and_info_make_a_snapshot() {
        let (games, over) = parse_info(&data("info.json")).unwrap();
        let s = snapshot(&data("digest.txt"), games, over).unwrap();
        assert_eq!(
            s.names,
            ["asp_delta", "asp_widen_pct", "asp_min_depth", "rfp_margin"]
        );
        assert_eq!(s.theta, [15.15, 196.85, 3.045, 20.0]);
        assert_eq!((s.games, s.finished), (640, true));
    }

    /// The info a real instance returned for a finished GAMES workload.
    #[test]
    fn info_of_a_games_workload_is_refused() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/openbench-games");
        let text = std::fs::read_to_string(dir.join("info.json")).unwrap();
        let e = parse_info(&text).unwrap_err().to_string();
        assert!(e.contains("is a GAMES workload, not an SPSA tune"), "{e}");
    }

    /// Snapshots every pair: the average is Σ k²·θ_k / Σ k².
    #[test]
    fn average_weights_the_theta_after_pair_k_by_k_squared() {
        let snaps = [snap(2, &[10.0]), snap(4, &[20.0]), snap(6, &[30.0])];
        let want = (10.0 + 4.0 * 20.0 + 9.0 * 30.0) / 14.0;
        assert!((averaged(&snaps).unwrap()[0] - want).abs() < 1e-12);
    }

    /// A snapshot stands for the pairs since the one before it.
    #[test]
    fn a_sparse_snapshot_stands_for_the_pairs_since_the_last() {
        let snaps = [snap(0, &[0.0]), snap(2, &[10.0]), snap(6, &[30.0])];
        let want = (10.0 + (4.0 + 9.0) * 30.0) / 14.0;
        assert!((averaged(&snaps).unwrap()[0] - want).abs() < 1e-12);
        assert_eq!(averaged(&[snap(0, &[5.0])]), None);
    }

    #[test]
    fn a_journal_cut_short_keeps_its_whole_lines() {
        let whole = serde_json::to_string(&snap(2, &[1.0])).unwrap();
        let text = format!("{whole}\n{}", &whole[..whole.len() / 2]);
        assert_eq!(read_journal(&text, "j").unwrap(), [snap(2, &[1.0])]);
        let bad = format!("{}\n{whole}\n", &whole[..whole.len() / 2]);
        assert!(read_journal(&bad, "j").is_err());
    }

    #[test]
    fn a_journal_of_two_tunes_is_refused() {
        let a = serde_json::to_string(&snap(4, &[1.0])).unwrap();
        let b = serde_json::to_string(&snap(2, &[1.0])).unwrap();
        let e = read_journal(&format!("{a}\n{b}\n"), "j")
            .unwrap_err()
            .to_string();
        assert!(e.contains("one tune only"), "{e}");
    }

    /// A killed follow's half line is cut away before the next snapshot is appended.
    #[test]
    fn append_repairs_a_journal_cut_short() {
        let dir = crate::test_util::scratch_dir("append");
        let path = dir.join("j.jsonl");
        let whole = serde_json::to_string(&snap(2, &[1.0])).unwrap();
        std::fs::write(&path, format!("{whole}\n{{\"games\": 4, \"fin")).unwrap();
        append(&path, &snap(4, &[2.0])).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            read_journal(&text, "j").unwrap(),
            [snap(2, &[1.0]), snap(4, &[2.0])]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A server on 127.0.0.1 that answers `requests` GETs with the texts a real
    /// instance returned: the workload's info, or the tune's digest.
    fn serve_recorded(requests: usize) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(requests) {
                let mut stream = stream.unwrap();
                let mut request = [0u8; 4096];
                let n = std::io::Read::read(&mut stream, &mut request).unwrap();
                let head = String::from_utf8_lossy(&request[..n]).to_string();
                let body = if head.starts_with("GET /api/workload/5/info/") {
                    data("info.json")
                } else {
                    assert!(head.starts_with("GET /api/spsa/5/digest/"), "{head}");
                    data("digest.txt")
                };
                write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .unwrap();
            }
        });
        address
    }

    /// Following a finished tune journals it once; following it again fetches nothing.
    #[test]
    fn follow_journals_what_an_instance_answers_and_stops_when_the_tune_is_over() {
        let dir = crate::test_util::scratch_dir("follow");
        let journal = dir.join("j.jsonl");
        let args = |server: String| FollowArgs {
            server,
            id: 5,
            journal: Some(journal.clone()),
            every: 1.0,
            once: false,
        };
        follow(args(serve_recorded(2))).unwrap();
        let snaps = read_journal(&std::fs::read_to_string(&journal).unwrap(), "j").unwrap();
        assert_eq!(snaps.len(), 1);
        assert_eq!((snaps[0].games, snaps[0].finished), (640, true));
        follow(args("http://127.0.0.1:9".to_string())).unwrap();
        assert_eq!(
            read_journal(&std::fs::read_to_string(&journal).unwrap(), "j").unwrap(),
            snaps
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_server_that_is_not_http_is_refused() {
        let e = Instance::new("ftp://example.org", 1)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("http:// or https://"), "{e}");
    }

    /// A snapshot of other parameters is refused; one with the same games is not journaled.
    #[test]
    fn record_appends_only_a_tune_that_moved() {
        let dir = crate::test_util::scratch_dir("record");
        let path = dir.join("j.jsonl");
        assert!(record(&path, None, &snap(2, &[1.0]), 7).unwrap());
        assert!(!record(&path, Some(&snap(2, &[1.0])), &snap(2, &[1.5]), 7).unwrap());
        let mut other = snap(4, &[1.0]);
        other.names = vec!["q0".into()];
        assert!(record(&path, Some(&snap(2, &[1.0])), &other, 7).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// With α = γ = 0 OpenBench plays c = c_end and R = r_end: the plan's lines carry the
    /// design's gains for the budget, the file's where it gives them.
    #[test]
    fn plan_lines_carry_the_files_gains_and_the_designs_elsewhere() {
        let given = ExternalParam {
            name: "given".into(),
            value: 20.0,
            min: 5.0,
            max: 80.0,
            c_end: Some(3.0),
            r_end: Some(0.002),
            float: false,
            measured_by: Default::default(),
        };
        let designed = ExternalParam {
            name: "designed".into(),
            c_end: None,
            r_end: None,
            ..given.clone()
        };
        let text = input_lines(&[given, designed], 1500, 1.0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "given, int, 20, 5, 80, 3, 0.002");
        let r = design::rounded(design::designed_r(
            design::PRECISION,
            2,
            design::PRIOR_GAME_VARIANCE,
            3000.0,
        ));
        assert_eq!(
            lines[1],
            format!(
                "designed, int, 20, 5, 80, {}, {r}",
                design::rounded(75.0 / 4.0)
            )
        );
    }
}
