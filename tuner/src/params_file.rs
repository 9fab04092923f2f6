//! Reading and writing `params/*.json`.
//!
//! Files are validated against `params/schema.json` (embedded) and checked for
//! bounds and names the engine knows. Writing changes only the `value` numbers in
//! the original text, so schema fields, key order and formatting survive, and the
//! file is replaced atomically (temporary file + rename).

use std::collections::HashSet;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;

/// The JSON Schema every parameter file must satisfy.
pub const SCHEMA: &str = include_str!("../../params/schema.json");

/// One parameter entry as written in a file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Entry {
    pub name: String,
    pub value: i32,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub c_end: f64,
    pub r_end: f64,
    pub unit: String,
    pub description: String,
    /// Which games can measure the parameter: `Some("clock")` for time management;
    /// absent (or `any`) for every kind of game. The schema allows only these.
    #[serde(default)]
    pub measured_by: Option<String>,
}

#[derive(Deserialize)]
struct Document {
    group: String,
    params: Vec<Entry>,
}

/// A loaded parameter file, with the text spans of its `value` numbers.
#[derive(Clone, Debug)]
pub struct ParamFile {
    pub path: PathBuf,
    /// The file's `group` (`search`, `eval`), shown in reports.
    #[allow(dead_code)]
    pub group: String,
    pub entries: Vec<Entry>,
    text: String,
    value_spans: Vec<Range<usize>>,
}

impl ParamFile {
    /// Loads and validates one file. Every problem is reported with the file and field.
    pub fn load(path: &Path) -> Result<ParamFile> {
        let text = fs::read_to_string(path)
            .with_context(|| format!("cannot read parameter file {}", path.display()))?;
        Self::parse(path, text)
    }

    /// Validates `text` as the content of `path`.
    pub fn parse(path: &Path, text: String) -> Result<ParamFile> {
        let shown = path.display();
        let json: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{shown}: not valid JSON"))?;
        let schema: serde_json::Value =
            serde_json::from_str(SCHEMA).expect("embedded schema is JSON");
        let validator =
            jsonschema::validator_for(&schema).expect("embedded schema is a valid JSON Schema");
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| {
                format!(
                    "  at {}: {}",
                    describe_pointer(&json, &e.instance_path.to_string()),
                    e
                )
            })
            .collect();
        if !errors.is_empty() {
            bail!(
                "{shown} does not match params/schema.json:\n{}",
                errors.join("\n")
            );
        }
        let doc: Document = serde_json::from_value(json)
            .with_context(|| format!("{shown}: unexpected structure"))?;
        let mut seen = HashSet::new();
        for e in &doc.params {
            if !seen.insert(e.name.as_str()) {
                bail!("{shown}: parameter '{}' is declared more than once", e.name);
            }
            if e.min > e.max {
                bail!(
                    "{shown}: parameter '{}': min {} is greater than max {}",
                    e.name,
                    e.min,
                    e.max
                );
            }
            for (what, v) in [("value", e.value), ("default", e.default)] {
                if v < e.min || v > e.max {
                    bail!(
                        "{shown}: parameter '{}': {what} {v} lies outside [{}, {}]",
                        e.name,
                        e.min,
                        e.max
                    );
                }
            }
        }
        let value_spans = scan_value_spans(&text)
            .with_context(|| format!("{shown}: cannot locate `value` fields"))?;
        if value_spans.len() != doc.params.len() {
            bail!(
                "{shown}: found {} `value` fields for {} parameters",
                value_spans.len(),
                doc.params.len()
            );
        }
        Ok(ParamFile {
            path: path.to_path_buf(),
            group: doc.group,
            entries: doc.params,
            text,
            value_spans,
        })
    }

    /// Checks that every parameter exists in the engine this tuner was built with.
    pub fn check_known_to_engine(&self) -> Result<()> {
        let unknown: Vec<&str> = self
            .entries
            .iter()
            .filter(|e| occam::params::index_of(&e.name).is_none())
            .map(|e| e.name.as_str())
            .collect();
        if !unknown.is_empty() {
            bail!(
                "{}: the engine has no parameter named {} (rebuild after editing params/, or check the spelling)",
                self.path.display(),
                unknown.join(", ")
            );
        }
        Ok(())
    }

    /// The file's text with each parameter's `value` replaced by `values[i]` (same order
    /// as `entries`); everything else is kept byte for byte.
    pub fn render_with_values(&self, values: &[i32]) -> Result<String> {
        if values.len() != self.entries.len() {
            bail!(
                "{}: {} values given for {} parameters",
                self.path.display(),
                values.len(),
                self.entries.len()
            );
        }
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut last = 0;
        for ((span, &v), e) in self.value_spans.iter().zip(values).zip(&self.entries) {
            if v < e.min || v > e.max {
                bail!(
                    "parameter '{}': value {v} lies outside [{}, {}]",
                    e.name,
                    e.min,
                    e.max
                );
            }
            out.push_str(&self.text[last..span.start]);
            out.push_str(&v.to_string());
            last = span.end;
        }
        out.push_str(&self.text[last..]);
        Ok(out)
    }

    /// Writes new values back to the file atomically and updates this object.
    pub fn write_values(&mut self, values: &[i32]) -> Result<()> {
        let text = self.render_with_values(values)?;
        write_atomically(&self.path, &text)?;
        let reloaded = ParamFile::parse(&self.path, text)?;
        *self = reloaded;
        Ok(())
    }
}

/// Replaces `path` with `contents` so that a reader (or a crash) sees either the old
/// or the new file, never a half-written one.
pub fn write_atomically(path: &Path, contents: &str) -> Result<()> {
    use std::io::Write as _;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{} is not a file path", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> Result<()> {
        let mut f =
            fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Loads several files and checks that no parameter is declared in two of them.
pub fn load_all(paths: &[PathBuf]) -> Result<Vec<ParamFile>> {
    if paths.is_empty() {
        bail!("no parameter file given (e.g. params/search.json)");
    }
    let files: Vec<ParamFile> = paths
        .iter()
        .map(|p| ParamFile::load(p))
        .collect::<Result<_>>()?;
    let mut seen = HashSet::new();
    for f in &files {
        for e in &f.entries {
            if !seen.insert(e.name.clone()) {
                bail!(
                    "parameter '{}' is declared in more than one of the given files",
                    e.name
                );
            }
        }
    }
    Ok(files)
}

/// Turns a JSON pointer such as `/params/3/min` into `params[3] (razor_base).min`.
fn describe_pointer(root: &serde_json::Value, pointer: &str) -> String {
    if pointer.is_empty() {
        return "the top level".to_string();
    }
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    if parts.len() >= 2
        && parts[0] == "params"
        && let Ok(i) = parts[1].parse::<usize>()
    {
        let name = root["params"][i]["name"]
            .as_str()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        let rest: String = parts[2..].iter().map(|p| format!(".{p}")).collect();
        return format!("params[{i}]{name}{rest}");
    }
    parts.join(".")
}

/// Finds, in document order, the text span of the `value` number of every object that
/// has a `name` key (the parameter entries). A tiny JSON scanner: the text was already
/// parsed successfully, so it only needs to track nesting, strings and keys.
fn scan_value_spans(text: &str) -> Result<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    // One frame per open object: (span of its `value` number, has a `name` key).
    let mut objects: Vec<(Option<Range<usize>>, bool)> = Vec::new();
    let mut containers: Vec<u8> = Vec::new();
    let mut pending_key: Option<String> = None;
    let mut expecting_key = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                containers.push(b'{');
                objects.push((None, false));
                expecting_key = true;
                pending_key = None;
            }
            b'[' => {
                containers.push(b'[');
                pending_key = None;
            }
            b'}' => {
                containers.pop();
                let (span, named) = objects.pop().ok_or_else(|| anyhow!("unbalanced braces"))?;
                if named {
                    spans.push(span.ok_or_else(|| anyhow!("a parameter entry has no `value`"))?);
                }
                pending_key = None;
            }
            b']' => {
                containers.pop();
                pending_key = None;
            }
            b',' => {
                expecting_key = containers.last() == Some(&b'{');
                pending_key = None;
            }
            b':' => expecting_key = false,
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let s = &text[start..i.min(bytes.len())];
                if expecting_key && containers.last() == Some(&b'{') {
                    if s == "name"
                        && let Some(top) = objects.last_mut()
                    {
                        top.1 = true;
                    }
                    pending_key = Some(s.to_string());
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i + 1 < bytes.len()
                    && matches!(bytes[i + 1], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                if pending_key.as_deref() == Some("value")
                    && containers.len() >= 3
                    && let Some(top) = objects.last_mut()
                {
                    top.0 = Some(start..i + 1);
                }
                pending_key = None;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_file(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../params")
            .join(name)
    }

    #[test]
    fn every_shipped_file_validates_and_is_known_to_the_engine() {
        for name in ["search.json", "eval.json"] {
            let f = ParamFile::load(&repo_file(name)).unwrap();
            f.check_known_to_engine().unwrap();
            assert!(!f.entries.is_empty());
        }
    }

    #[test]
    fn rewriting_values_changes_only_the_values() {
        let f = ParamFile::load(&repo_file("search.json")).unwrap();
        let same: Vec<i32> = f.entries.iter().map(|e| e.value).collect();
        assert_eq!(
            f.render_with_values(&same).unwrap(),
            fs::read_to_string(repo_file("search.json")).unwrap()
        );
        let moved: Vec<i32> = f.entries.iter().map(|e| e.min).collect();
        let text = f.render_with_values(&moved).unwrap();
        let g = ParamFile::parse(&f.path, text.clone()).unwrap();
        for (a, b) in f.entries.iter().zip(&g.entries) {
            assert_eq!(b.value, a.min);
            assert_eq!(
                (&a.name, a.default, a.min, a.max, &a.unit),
                (&b.name, b.default, b.min, b.max, &b.unit)
            );
        }
        // Only digits changed: the text outside the value numbers is identical.
        let strip = |s: &str| {
            s.chars()
                .filter(|c| !c.is_ascii_digit() && *c != '-')
                .collect::<String>()
        };
        assert_eq!(strip(&text), strip(&g.text));
        let out_of_range: Vec<i32> = f.entries.iter().map(|e| e.max + 1).collect();
        assert!(f.render_with_values(&out_of_range).is_err());
    }

    #[test]
    fn schema_violations_are_named_by_field() {
        let text = r#"{"group": "x", "description": "d", "params": [
            {"name": "razor_base", "value": 1, "default": 1, "min": 0, "max": "9", "c_end": 1, "r_end": 0.002, "unit": "cp", "description": "d"}]}"#;
        let err = ParamFile::parse(Path::new("bad.json"), text.to_string())
            .unwrap_err()
            .to_string();
        assert!(err.contains("params[0] (razor_base).max"), "{err}");
        let text = r#"{"group": "x", "description": "d", "params": [
            {"name": "razor_base", "value": 10, "default": 1, "min": 0, "max": 9, "c_end": 1, "r_end": 0.002, "unit": "cp", "description": "d"}]}"#;
        let err = ParamFile::parse(Path::new("bad.json"), text.to_string())
            .unwrap_err()
            .to_string();
        assert!(err.contains("value 10 lies outside [0, 9]"), "{err}");
        assert!(ParamFile::parse(Path::new("bad.json"), "{".to_string()).is_err());
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = std::env::temp_dir().join(format!("occam-params-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("search.json");
        fs::copy(repo_file("search.json"), &path).unwrap();
        let mut f = ParamFile::load(&path).unwrap();
        let values: Vec<i32> = f.entries.iter().map(|e| e.max).collect();
        f.write_values(&values).unwrap();
        let g = ParamFile::load(&path).unwrap();
        assert!(g.entries.iter().all(|e| e.value == e.max));
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left behind"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
