//! Every parameter file under `params/` (recursively, variants included) is valid
//! against `params/schema.json` and internally consistent.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

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

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("params/schema.json")).unwrap(),
    )
    .expect("schema.json is JSON");
    jsonschema::validator_for(&schema).expect("schema.json is a valid JSON Schema")
}

/// Every problem of one document, empty when it is fine.
fn problems(validator: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    let mut found: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    if !found.is_empty() {
        return found;
    }
    let mut names = HashSet::new();
    for p in doc["params"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let get = |k: &str| p[k].as_i64().unwrap();
        let (value, default, min, max) = (get("value"), get("default"), get("min"), get("max"));
        if !(min <= default && default <= max) {
            found.push(format!("{name}: default {default} outside [{min}, {max}]"));
        }
        if !(min <= value && value <= max) {
            found.push(format!("{name}: value {value} outside [{min}, {max}]"));
        }
        if !names.insert(name.to_string()) {
            found.push(format!("{name}: declared twice"));
        }
    }
    found
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
    let validator = validator();
    // Names may repeat across variants (alternative sets), but not across the files
    // the engine is built from (the top level of params/).
    let mut top_level: HashMap<String, PathBuf> = HashMap::new();
    for file in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.display()));
        let found = problems(&validator, &doc);
        assert!(
            found.is_empty(),
            "{}:\n{}",
            file.display(),
            found.join("\n")
        );
        if file.parent() == Some(root.as_path()) {
            for p in doc["params"].as_array().unwrap() {
                let name = p["name"].as_str().unwrap().to_string();
                if let Some(other) = top_level.insert(name.clone(), file.clone()) {
                    panic!(
                        "{name} is declared in {} and {}",
                        other.display(),
                        file.display()
                    );
                }
            }
        }
    }
}

fn first(d: &mut Value) -> &mut Value {
    &mut d["params"][0]
}

#[test]
fn the_checks_reject_broken_files() {
    let validator = validator();
    let good: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("params/search.json")).unwrap(),
    )
    .unwrap();
    assert!(problems(&validator, &good).is_empty());
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = good.clone();
        edit(&mut doc);
        problems(&validator, &doc)
    };
    assert!(
        !broken(&|d| first(d)["value"] = Value::from(1.5)).is_empty(),
        "fractional value"
    );
    assert!(
        !broken(&|d| first(d)["name"] = Value::from("Razor Base")).is_empty(),
        "bad name"
    );
    assert!(
        !broken(&|d| {
            first(d).as_object_mut().unwrap().remove("c_end");
        })
        .is_empty(),
        "missing key"
    );
    assert!(
        !broken(&|d| first(d)["extra"] = Value::from(1)).is_empty(),
        "unknown key"
    );
    assert!(
        !broken(&|d| {
            let max = first(d)["max"].as_i64().unwrap();
            first(d)["value"] = Value::from(max + 1);
        })
        .is_empty(),
        "value above max"
    );
    assert!(
        !broken(&|d| {
            let min = first(d)["min"].as_i64().unwrap();
            first(d)["default"] = Value::from(min - 1);
        })
        .is_empty(),
        "default below min"
    );
    assert!(
        !broken(&|d| {
            let copy = d["params"][0].clone();
            d["params"].as_array_mut().unwrap().push(copy);
        })
        .is_empty(),
        "duplicate name"
    );
}
