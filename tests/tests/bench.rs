//! `occam bench` through the real binary: deterministic signature on the last line,
//! statistics with `--stats`, and a clear refusal of bad arguments.

use std::process::Command;

use occam_tests::binary;

fn bench(args: &[&str]) -> (bool, i32, String, String) {
    let out = Command::new(binary("occam"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run occam bench");
    (
        out.status.success(),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn signature(stdout: &str) -> (u64, u64) {
    let last = stdout.lines().last().expect("bench prints something");
    let f: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(f.len(), 4, "last line '{last}'");
    assert_eq!((f[1], f[3]), ("nodes", "nps"), "last line '{last}'");
    (f[0].parse().unwrap(), f[2].parse().unwrap())
}

#[test]
fn bench_signature_is_deterministic_and_last() {
    let (ok, _, a, _) = bench(&["5"]);
    assert!(ok);
    let (ok, _, b, _) = bench(&["5"]);
    assert!(ok);
    let (na, _) = signature(&a);
    let (nb, _) = signature(&b);
    assert!(na > 0);
    assert_eq!(na, nb);
}

#[test]
fn bench_stats_reports_the_measurements() {
    let (ok, _, out, _) = bench(&["4", "--stats"]);
    assert!(ok);
    for needle in [
        "fail-high first move",
        "tt hit rate",
        "ebf",
        "time-to-depth",
        "perft",
        "ratio",
    ] {
        assert!(out.contains(needle), "missing '{needle}' in:\n{out}");
    }
    let (nodes, _) = signature(&out);
    let (_, _, plain, _) = bench(&["4"]);
    assert_eq!(
        signature(&plain).0,
        nodes,
        "--stats must not change the search"
    );
}

#[test]
fn bench_refuses_bad_arguments() {
    for bad in ["0", "65", "deep"] {
        let (ok, code, _, err) = bench(&[bad]);
        assert!(!ok && code == 2, "bench {bad}");
        assert!(err.contains(bad) && err.contains("depth"), "{err}");
    }
}
