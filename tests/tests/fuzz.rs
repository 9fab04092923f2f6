//! The real `occam` binary under hostile input: seeded sessions of generated lines
//! (garbage, mutated commands, bad FENs and moves, extreme numbers, every option with
//! bad values, searches with commands arriving while they run). After each session
//! the engine must answer `readyok` within a second, must not have panicked or
//! exited, and every `bestmove` it printed must be a UCI move or `0000`.
//!
//! `cargo test` runs 20,000 lines; the soak run is
//! `OCCAM_FUZZ_LINES=1000000 cargo test -p occam-tests --test fuzz -- --ignored --nocapture`
//! (or `scripts/fuzz-soak.sh`).

use occam_tests::fuzz::{Generator, is_bestmove_line, soak};
use occam_tests::{binary, workspace_root};

const TEST_LINES: usize = 20_000;
const TEST_SEED: u64 = 12;

fn failure_dir() -> std::path::PathBuf {
    workspace_root().join("target").join("fuzz-failures")
}

#[test]
fn twenty_thousand_hostile_lines_never_wedge_the_engine() {
    let report = soak(&binary("occam"), TEST_SEED, TEST_LINES, &failure_dir());
    println!("fuzz: {report}");
    assert!(
        report.failures.is_empty(),
        "{report}\n{:#?}",
        report.failures
    );
    assert!(report.lines >= TEST_LINES);
    assert!(report.bestmoves > 0, "no search ever finished: {report}");
}

/// The soak run: `OCCAM_FUZZ_LINES` lines (default 10^6) from `OCCAM_FUZZ_SEED`,
/// against `OCCAM_FUZZ_BINARY` if set (e.g. a release build or an older engine).
#[test]
#[ignore = "soak run, minutes to hours: OCCAM_FUZZ_LINES=N cargo test --test fuzz -- --ignored"]
fn soak_run() {
    let env = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
            })
            .unwrap_or(default)
    };
    let lines = env("OCCAM_FUZZ_LINES", 1_000_000) as usize;
    let seed = env("OCCAM_FUZZ_SEED", 1);
    let started = std::time::Instant::now();
    let engine = std::env::var_os("OCCAM_FUZZ_BINARY")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| binary("occam"));
    let report = soak(&engine, seed, lines, &failure_dir());
    println!(
        "fuzz soak (seed {seed}): {report} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
}

#[test]
fn the_generator_is_deterministic_and_covers_every_kind_of_line() {
    let take = |seed| {
        let mut g = Generator::new(seed);
        (0..3_000).map(|_| g.line()).collect::<Vec<_>>()
    };
    let lines = take(7);
    assert_eq!(lines, take(7), "same seed, same lines");
    assert_ne!(lines, take(8));
    let text: Vec<String> = lines
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    let has = |p: &dyn Fn(&str) -> bool| text.iter().any(|l| p(l));
    assert!(lines.iter().all(|l| !l.contains(&b'\n')));
    assert!(
        lines.iter().any(|l| std::str::from_utf8(l).is_err()),
        "invalid UTF-8"
    );
    for search in [
        "go infinite",
        "go depth 3",
        "go nodes 500",
        "go wtime 50 btime 50",
        "go ponder",
    ] {
        assert!(has(&|l| l == search), "{search}");
    }
    for needle in [
        "18446744073709551616",
        "-1",
        "setoption name Hash value",
        "position fen",
        " moves ",
    ] {
        assert!(has(&|l| l.contains(needle)), "{needle}");
    }
    // Every engine option is named, right or wrong.
    for option in [
        "Hash",
        "Threads",
        "Clear Hash",
        "Move Overhead",
        "Ponder",
        "UCI_Chess960",
        "SearchStats",
    ] {
        let named = format!("setoption name {option}");
        assert!(has(&|l| l.starts_with(&named)), "{option}");
    }
}

#[test]
fn bestmove_lines_are_checked_for_shape() {
    for good in [
        "bestmove e2e4",
        "bestmove e7e8q ponder a1h8",
        "bestmove 0000",
    ] {
        assert!(is_bestmove_line(good), "{good}");
    }
    for bad in [
        "bestmove",
        "bestmove e2e9",
        "bestmove e2e4 ponder",
        "bestmove 0000 ponder e2e4",
        "bestmove e7e8k",
        "bestmove  e2e4",
    ] {
        assert!(!is_bestmove_line(bad), "{bad}");
    }
}
