//! Every parameter file under `params/` (recursively, variants included) passes the
//! checks of the `occam_params` crate: `params/schema.json`, bounds and unique names.

use std::path::{Path, PathBuf};

use occam_params::ParamFile;
use occam_tests::workspace_root;
use serde_json::Value;

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "json") && !path.ends_with("schema.json") {
            out.push(path);
        }
    }
}

#[test]
fn every_parameter_file_is_valid_and_consistent() {
    let root = workspace_root().join("params");
    let mut files = Vec::new();
    json_files(&root, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("search.json"))
            && files.iter().any(|f| f.ends_with("eval.json")),
        "{files:?}"
    );
    for file in &files {
        ParamFile::load(file).unwrap_or_else(|e| panic!("{e}"));
    }
    // Names may repeat across variants (alternative sets), but not across the files
    // the engine is built from (the top level of params/).
    let top_level: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| f.parent() == Some(root.as_path()))
        .collect();
    occam_params::load_all(&top_level).unwrap_or_else(|e| panic!("{e}"));
}

fn first(d: &mut Value) -> &mut Value {
    &mut d["params"][0]
}

#[test]
fn the_checks_reject_broken_files() {
    let good: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("params/search.json")).unwrap(),
    )
    .unwrap();
    let check = |doc: &Value| {
        ParamFile::parse(
            Path::new("edited.json"),
            serde_json::to_string_pretty(doc).unwrap(),
        )
    };
    assert!(check(&good).is_ok());
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = good.clone();
        edit(&mut doc);
        check(&doc).is_err()
    };
    assert!(
        broken(&|d| first(d)["value"] = Value::from(1.5)),
        "fractional value"
    );
    assert!(
        broken(&|d| first(d)["name"] = Value::from("Razor Base")),
        "bad name"
    );
    assert!(
        broken(&|d| {
            first(d).as_object_mut().unwrap().remove("min");
        }),
        "missing key"
    );
    // c_end and r_end are optional (the tuner designs them), but a given one is checked.
    let mut designed = good.clone();
    for key in ["c_end", "r_end"] {
        first(&mut designed).as_object_mut().unwrap().remove(key);
    }
    assert!(check(&designed).is_ok(), "c_end and r_end left out");
    assert!(broken(&|d| first(d)["c_end"] = Value::from(0)), "c_end 0");
    assert!(
        broken(&|d| first(d)["r_end"] = Value::from(-0.001)),
        "negative r_end"
    );
    assert!(
        broken(&|d| first(d)["extra"] = Value::from(1)),
        "unknown key"
    );
    assert!(
        broken(&|d| {
            let max = first(d)["max"].as_i64().unwrap();
            first(d)["value"] = Value::from(max + 1);
        }),
        "value above max"
    );
    let start_key = |d: &Value| {
        if d["params"][0].get("start").is_some() {
            "start"
        } else {
            "default"
        }
    };
    let key = start_key(&good);
    assert!(
        broken(&|d| {
            let min = first(d)["min"].as_i64().unwrap();
            first(d)[key] = Value::from(min - 1);
        }),
        "start below min"
    );
    assert!(
        broken(&|d| {
            first(d)["start"] = Value::from(0);
            first(d)["default"] = Value::from(0);
        }),
        "both start and its old name default"
    );
    assert!(
        broken(&|d| {
            let copy = d["params"][0].clone();
            d["params"].as_array_mut().unwrap().push(copy);
        }),
        "duplicate name"
    );
    // The old name of `start` is still read.
    let mut old = good.clone();
    let v = first(&mut old)
        .as_object_mut()
        .unwrap()
        .remove(key)
        .unwrap();
    first(&mut old)["default"] = v;
    assert!(check(&old).is_ok());
}
