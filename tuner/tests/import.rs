//! `tuner import` through the real binary: the OpenBench round trip export → (values
//! changed, printed as floats) → import, clamping, and refusal of unknown names.

use std::path::{Path, PathBuf};

mod common;
use common::{fresh_dir, param_values, root, text, tuner};

fn scratch(name: &str) -> PathBuf {
    let dir = fresh_dir("import", name);
    for f in ["search.json", "eval.json"] {
        std::fs::copy(root().join("params").join(f), dir.join(f)).unwrap();
    }
    dir
}

/// (name, value) of every entry of an Occam parameter file.
fn values(path: &Path) -> Vec<(String, i64)> {
    param_values(&std::fs::read_to_string(path).unwrap())
}

#[test]
fn openbench_export_then_import_round_trips() {
    let dir = scratch("round");
    let (search, eval) = (dir.join("search.json"), dir.join("eval.json"));
    let (s, e) = (search.to_str().unwrap(), eval.to_str().unwrap());
    let out = tuner(&["export", s, e, "--format", "openbench"]);
    assert!(out.status.success(), "{}", text(&out));
    let exported = String::from_utf8(out.stdout).unwrap();
    // What a tune page shows: `name, value` with floats; every value moved by one step
    // inside its bounds, the first one pushed 1000 above its max.
    let mut expected = Vec::new();
    let mut lines = Vec::new();
    for (i, line) in exported.split('\n').enumerate() {
        let f: Vec<&str> = line.split(", ").collect();
        let (value, min, max): (i64, i64, i64) = (
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
            f[4].parse().unwrap(),
        );
        let moved = if value < max { value + 1 } else { value - 1 };
        if i == 0 {
            lines.push(format!("{}, {:.1}", f[0], (max + 1000) as f64));
            expected.push((f[0].to_string(), max));
        } else {
            // 0.4 above: rounds back to `moved`.
            lines.push(format!("{}, {:.1}", f[0], moved as f64 + 0.4));
            expected.push((f[0].to_string(), moved));
        }
        assert!(min <= moved);
    }
    let results = dir.join("final.txt");
    std::fs::write(&results, lines.join("\n")).unwrap();
    let before = (
        std::fs::read_to_string(&search).unwrap(),
        std::fs::read_to_string(&eval).unwrap(),
    );
    let out = tuner(&["import", results.to_str().unwrap(), s, e]);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert_eq!(all.matches("clamped to").count(), 1, "{all}");
    let mut got = values(&search);
    got.extend(values(&eval));
    assert_eq!(got, expected);
    // Only the values changed: the start fields and everything else are as they were.
    let strip = |t: &str| -> String {
        let mut out = String::new();
        let mut rest = t;
        while let Some(i) = rest.find("\"value\": ") {
            out.push_str(&rest[..i + 9]);
            rest = rest[i + 9..].trim_start_matches(|c: char| c == '-' || c.is_ascii_digit());
        }
        out + rest
    };
    assert_eq!(
        strip(&before.0),
        strip(&std::fs::read_to_string(&search).unwrap())
    );
    assert_eq!(
        strip(&before.1),
        strip(&std::fs::read_to_string(&eval).unwrap())
    );
    // Exported again, the file gives back the imported values.
    let again = tuner(&["export", s, e, "--format", "openbench"]);
    let reexported: Vec<(String, i64)> = String::from_utf8(again.stdout)
        .unwrap()
        .split('\n')
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            (f[0].to_string(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(reexported, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_names_are_refused_and_nothing_is_written() {
    let dir = scratch("unknown");
    let search = dir.join("search.json");
    let before = std::fs::read_to_string(&search).unwrap();
    let results = dir.join("final.csv");
    // fishtest style; one name of eval.json, which is not among the targets.
    std::fs::write(
        &results,
        "asp_delta,30\nmaterial_queen_mg,1000\nno_such_param,3\n",
    )
    .unwrap();
    let out = tuner(&[
        "import",
        results.to_str().unwrap(),
        search.to_str().unwrap(),
    ]);
    let all = text(&out);
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("no parameter named material_queen_mg, no_such_param"),
        "{all}"
    );
    assert_eq!(std::fs::read_to_string(&search).unwrap(), before);
    // --dry-run reports and writes nothing.
    std::fs::write(&results, "asp_delta,30\n").unwrap();
    let out = tuner(&[
        "import",
        results.to_str().unwrap(),
        search.to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("1 changed"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&search).unwrap(), before);
    std::fs::remove_dir_all(&dir).unwrap();
}
