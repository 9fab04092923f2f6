//! The `frozen` build (every parameter a compile-time constant from the JSON values)
//! searches exactly the tree the runtime build searches with the same values.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use occam::params::PARAM_SPECS;
use occam_tests::{Engine, binary, workspace_root};

/// Builds `occam --features frozen` into its own target directory (so the runtime
/// binary of the other tests is not replaced), with the dev profile at opt-level 0:
/// node counts do not depend on the optimisation, and with every parameter a constant
/// the engine's code takes LLVM minutes at opt-level 2 against about one at 0 (its
/// bench runs about twelve times slower, seconds here).
fn frozen_binary() -> PathBuf {
    let target = workspace_root().join("target").join("frozen-check");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace_root())
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_DEV_OPT_LEVEL", "0")
        .args([
            "build",
            "--quiet",
            "-p",
            "occam",
            "--bin",
            "occam",
            "--features",
            "frozen",
        ])
        .status()
        .expect("run cargo");
    assert!(status.success(), "frozen build failed: {status}");
    target
        .join("debug")
        .join(format!("occam{}", std::env::consts::EXE_SUFFIX))
}

/// (nodes, whole output) of `occam bench <depth>`.
fn bench(exe: &Path, depth: u32) -> (u64, String) {
    let out = Command::new(exe)
        .args(["bench", &depth.to_string()])
        .output()
        .expect("run bench");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    let nodes = text
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no '<N> nodes <M> nps' line in {text}"));
    (nodes, text)
}

#[test]
fn frozen_build_has_the_runtime_bench_and_refuses_setoption() {
    let frozen = frozen_binary();
    let runtime = binary("occam");

    // The deepest bench (up to the default depth) the runtime build finishes in about
    // a second here, so the test stays quick whatever the search's speed.
    let mut depth = 3;
    let mut runtime_bench = bench(&runtime, depth);
    while depth < occam::bench::DEFAULT_DEPTH {
        let start = Instant::now();
        let deeper = bench(&runtime, depth + 1);
        depth += 1;
        runtime_bench = deeper;
        if start.elapsed() > Duration::from_millis(1_000) {
            break;
        }
    }
    let frozen_bench = bench(&frozen, depth);
    assert!(runtime_bench.0 > 0);
    assert_eq!(
        frozen_bench.0, runtime_bench.0,
        "bench {depth}: frozen {} vs runtime {}",
        frozen_bench.1, runtime_bench.1
    );

    // Same parameter values, and setting one is refused with a clear message.
    let mut e = Engine::spawn(&frozen, &[]);
    e.send("params");
    let frozen_params = e.sync();
    let mut r = Engine::spawn(&runtime, &[]);
    r.send("params");
    assert_eq!(frozen_params, r.sync());
    let spec = &PARAM_SPECS[0];
    e.send(&format!(
        "setoption name {} value {}",
        spec.name, spec.value
    ));
    let reply = e.sync();
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert!(
        reply[0].starts_with("info string error: ")
            && reply[0].contains("frozen")
            && reply[0].contains(spec.name),
        "{reply:?}"
    );
    e.send("params");
    assert_eq!(e.sync(), frozen_params);
}
