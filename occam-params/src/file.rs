//! Reading, checking and rewriting one parameter file.
//!
//! A file is parsed once into [`Param`]s and checked (with feature `schema` first
//! against `params/schema.json`, for messages that name the field; then entry rules
//! and unique names). Writing changes only the text of the `value` numbers, located by
//! serde_json itself (raw values borrowed from the text), so fields, key order and
//! formatting survive; the file is replaced atomically.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::{Error, MeasuredBy, Param, Table, rename_note, renamed};

/// The JSON Schema every parameter file satisfies.
#[cfg(feature = "schema")]
pub const SCHEMA: &str = include_str!("../../params/schema.json");

/// An entry as written. `start` was called `default` before; both are read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: String,
    value: i32,
    start: Option<i32>,
    #[serde(rename = "default")]
    legacy_start: Option<i32>,
    min: i32,
    max: i32,
    c_end: Option<f64>,
    r_end: Option<f64>,
    unit: String,
    description: String,
    #[serde(default)]
    measured_by: MeasuredBy,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(rename = "$schema")]
    _schema: Option<String>,
    group: String,
    #[allow(dead_code)]
    description: String,
    params: Vec<RawEntry>,
}

/// The `value` of every entry, as the slice of the text it was parsed from.
#[derive(Deserialize)]
struct ValueSpans<'a> {
    #[serde(borrow)]
    params: Vec<ValueSpan<'a>>,
}

#[derive(Deserialize)]
struct ValueSpan<'a> {
    #[serde(borrow)]
    value: &'a RawValue,
}

/// Which field of the entries a value set is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The current, tuned values (`value`).
    Value,
    /// The values before tuning (`start`).
    Start,
}

impl Field {
    pub fn of<S>(self, e: &Param<S>) -> i32 {
        match self {
            Field::Value => e.value,
            Field::Start => e.start,
        }
    }
}

/// A loaded and checked parameter file.
#[derive(Clone, Debug)]
pub struct ParamFile {
    pub path: PathBuf,
    /// The file's `group` (`search`, `eval`).
    pub group: String,
    pub entries: Vec<Param>,
    /// Entries that still spell `start` as `default` (read, but deprecated).
    pub legacy_start: Vec<String>,
    /// Entries still written under an old parameter name (see [`crate::RENAMED`]),
    /// as (old name, current name); `entries` holds the current name.
    pub legacy_names: Vec<(String, &'static str)>,
    text: String,
    value_spans: Vec<Range<usize>>,
}

impl ParamFile {
    /// Loads and checks one file. The first load of a file that still uses the old
    /// field name `default` or an old parameter name prints its deprecation notes to
    /// stderr.
    pub fn load(path: &Path) -> Result<ParamFile, Error> {
        let text = fs::read_to_string(path).map_err(|e| {
            Error::new(format!(
                "cannot read parameter file {}: {e}",
                path.display()
            ))
        })?;
        let file = Self::parse(path, text)?;
        let notes = file.deprecations();
        if !notes.is_empty() {
            static NOTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
            let mut noted = NOTED.lock().unwrap_or_else(|e| e.into_inner());
            if !noted.contains(&file.path) {
                noted.push(file.path.clone());
                for note in notes {
                    eprintln!("note: {note}");
                }
            }
        }
        Ok(file)
    }

    /// Checks `text` as the content of `path`.
    pub fn parse(path: &Path, text: String) -> Result<ParamFile, Error> {
        let shown = path.display();
        #[cfg(feature = "schema")]
        validate(&text).map_err(|e| e.within(&shown))?;
        let doc: Document = serde_json::from_str(&text)
            .map_err(|e| Error::new(format!("{shown}: not a parameter file: {e}")))?;
        let mut entries = Vec::with_capacity(doc.params.len());
        let mut legacy_start = Vec::new();
        let mut legacy_names = Vec::new();
        let mut seen = HashSet::new();
        for mut raw in doc.params {
            if let Some(current) = renamed(&raw.name) {
                legacy_names.push((
                    std::mem::replace(&mut raw.name, current.to_string()),
                    current,
                ));
            }
            let start = match (raw.start, raw.legacy_start) {
                (Some(s), None) => s,
                (None, Some(s)) => {
                    legacy_start.push(raw.name.clone());
                    s
                }
                (Some(_), Some(_)) => {
                    return Err(Error::new(format!(
                        "{shown}: parameter '{}' has both `start` and its old name `default`: keep `start`",
                        raw.name
                    )));
                }
                (None, None) => {
                    return Err(Error::new(format!(
                        "{shown}: parameter '{}' has no `start` (the value before tuning)",
                        raw.name
                    )));
                }
            };
            let e = Param {
                name: raw.name,
                value: raw.value,
                start,
                min: raw.min,
                max: raw.max,
                c_end: raw.c_end,
                r_end: raw.r_end,
                unit: raw.unit,
                description: raw.description,
                measured_by: raw.measured_by,
            };
            e.check().map_err(|err| err.within(&shown))?;
            if !seen.insert(e.name.clone()) {
                let old = legacy_names.iter().find(|(_, new)| *new == e.name);
                return Err(Error::new(format!(
                    "{shown}: parameter '{}' is declared more than once{}",
                    e.name,
                    old.map(|(o, _)| format!(" (once under its old name '{o}')"))
                        .unwrap_or_default()
                )));
            }
            entries.push(e);
        }
        let spans: ValueSpans<'_> = serde_json::from_str(&text)
            .map_err(|e| Error::new(format!("{shown}: cannot locate the `value` fields: {e}")))?;
        let base = text.as_ptr() as usize;
        let value_spans: Vec<Range<usize>> = spans
            .params
            .iter()
            .map(|s| {
                let start = s.value.get().as_ptr() as usize - base;
                start..start + s.value.get().len()
            })
            .collect();
        assert!(
            value_spans.len() == entries.len() && value_spans.iter().all(|r| r.end <= text.len()),
            "serde_json hands out raw values as slices of the parsed text"
        );
        Ok(ParamFile {
            path: path.to_path_buf(),
            group: doc.group,
            entries,
            legacy_start,
            legacy_names,
            text,
            value_spans,
        })
    }

    /// One deprecation note (a line) per old spelling the file still uses: the field
    /// `default`, and each old parameter name.
    pub fn deprecations(&self) -> Vec<String> {
        let path = self.path.display();
        let n = self.legacy_start.len();
        let field = (n > 0).then(|| {
            format!(
                "{path}: {n} parameter{} ({}{}) still call the value before tuning `default`; rename the field to `start` (`default` is read for now)",
                if n == 1 { "" } else { "s" },
                self.legacy_start[..n.min(3)].join(", "),
                if n > 3 { ", …" } else { "" }
            )
        });
        let names = self
            .legacy_names
            .iter()
            .map(|(old, new)| format!("{path}: {}", rename_note(old, new)));
        field.into_iter().chain(names).collect()
    }

    /// The position in `T`'s compiled table of every entry, in file order. Names the
    /// engine does not know are an error.
    pub fn bind<T: Table>(&self) -> Result<Vec<usize>, Error> {
        let found: Vec<Option<usize>> = self.entries.iter().map(|e| T::index_of(&e.name)).collect();
        let unknown: Vec<&str> = self
            .entries
            .iter()
            .zip(&found)
            .filter(|(_, i)| i.is_none())
            .map(|(e, _)| e.name.as_str())
            .collect();
        if !unknown.is_empty() {
            return Err(Error::new(format!(
                "{}: the engine has no parameter named {} (rebuild after editing params/, or check the spelling)",
                self.path.display(),
                unknown.join(", ")
            )));
        }
        Ok(found.into_iter().flatten().collect())
    }

    /// The names of the entries, in file order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// The file's text with each entry's `value` replaced by `values[i]` (same order as
    /// `entries`); everything else is kept byte for byte.
    pub fn render_with_values(&self, values: &[i32]) -> Result<String, Error> {
        if values.len() != self.entries.len() {
            return Err(Error::new(format!(
                "{}: {} values given for {} parameters",
                self.path.display(),
                values.len(),
                self.entries.len()
            )));
        }
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut last = 0;
        for ((span, &v), e) in self.value_spans.iter().zip(values).zip(&self.entries) {
            if v < e.min || v > e.max {
                return Err(Error::new(format!(
                    "parameter '{}': value {v} lies outside [{}, {}]",
                    e.name, e.min, e.max
                )));
            }
            out.push_str(&self.text[last..span.start]);
            out.push_str(&v.to_string());
            last = span.end;
        }
        out.push_str(&self.text[last..]);
        Ok(out)
    }

    /// Writes new values back to the file atomically and updates this object.
    pub fn write_values(&mut self, values: &[i32]) -> Result<(), Error> {
        let text = self.render_with_values(values)?;
        write_atomically(&self.path, &text)?;
        *self = ParamFile::parse(&self.path, text)?;
        Ok(())
    }
}

/// Lays the chosen field of every entry of `files` over `target`. On error (an unknown
/// name, a value outside the compiled bounds) `target` is left as it was.
pub fn overlay<T: Table + Clone>(
    target: &mut T,
    files: &[ParamFile],
    field: Field,
) -> Result<(), Error> {
    let mut next = target.clone();
    for file in files {
        for (e, index) in file.entries.iter().zip(file.bind::<T>()?) {
            next.set(index, field.of(e)).map_err(|err| {
                Error::new(format!(
                    "{}: parameter '{}': {err}",
                    file.path.display(),
                    e.name
                ))
            })?;
        }
    }
    *target = next;
    Ok(())
}

/// Loads several files and checks that no parameter is declared in two of them.
pub fn load_all(paths: &[PathBuf]) -> Result<Vec<ParamFile>, Error> {
    if paths.is_empty() {
        return Err(Error::new(
            "no parameter file given (e.g. params/search.json)",
        ));
    }
    let files: Vec<ParamFile> = paths
        .iter()
        .map(|p| ParamFile::load(p))
        .collect::<Result<_, _>>()?;
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    for file in &files {
        for e in &file.entries {
            if let Some(first) = seen.insert(e.name.as_str(), &file.path) {
                return Err(Error::new(format!(
                    "parameter '{}' is declared in both {} and {}: a name belongs to one file",
                    e.name,
                    first.display(),
                    file.path.display()
                )));
            }
        }
    }
    Ok(files)
}

/// The key that marks a parameter file: `"$schema"` naming the schema (`./schema.json`
/// in `params/`). Only files that carry it are parameter files; anything else in a
/// folder of parameter files is an error, so that nothing is compiled in by accident.
pub const MARKER: &str = "$schema";

/// The parameter files of a folder such as `params/`, sorted by name: every `*.json`
/// at its top level but `schema.json` must be one (carry [`MARKER`] naming
/// `schema.json`). Any other JSON file is refused with an error that names it and
/// says what to do; other files (lock files, notes) are ignored.
pub fn parameter_files_in(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries =
        fs::read_dir(dir).map_err(|e| Error::new(format!("cannot read {}: {e}", dir.display())))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| Error::new(format!("cannot read {}: {e}", dir.display())))?
            .path();
        let is_json = path.extension().is_some_and(|e| e == "json");
        if !is_json || path.file_name().is_some_and(|n| n == "schema.json") || path.is_dir() {
            continue;
        }
        check_marker(&path)?;
        files.push(path);
    }
    files.sort();
    Ok(files)
}

/// Refuses a JSON file without [`MARKER`], saying how to clear the folder.
fn check_marker(path: &Path) -> Result<(), Error> {
    let text = fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    let marked = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get(MARKER)?.as_str().map(|s| s.ends_with("schema.json")))
        .unwrap_or(false);
    if marked {
        return Ok(());
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let dir = path.parent().unwrap_or(Path::new("."));
    let shown = path.display();
    let what_to_do = if let Some(stem) = name.split_once(".spsa.").map(|(stem, _)| stem) {
        format!(
            "it is a file of an SPSA run, whose files belong in the run folder: `mkdir -p runs && mv {}/{stem}.spsa.* runs/`, then resume from there",
            dir.display()
        )
    } else if is_run_file(&name) {
        format!(
            "it is a file of a tuner run, which belongs in the run folder: `mkdir -p runs && mv {shown} runs/`, with its journal"
        )
    } else {
        format!(
            "{} holds parameter files only: move it elsewhere, or, if it is one, give it \"{MARKER}\": \"./schema.json\"",
            dir.display()
        )
    };
    Err(Error::new(format!(
        "{shown} is not a parameter file (no \"{MARKER}\" naming schema.json): {what_to_do}"
    )))
}

/// Whether a file name is one a tuner run writes beside a journal of another name
/// (`x.checkpoint.json`, `x.result.json`).
fn is_run_file(name: &str) -> bool {
    name.ends_with(".checkpoint.json") || name.ends_with(".result.json")
}

/// Replaces `path` with `contents` so that a reader (or a crash) sees either the old
/// or the new file, never a half-written one.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), Error> {
    use std::io::Write as _;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::new(format!("{} is not a file path", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::new(format!("cannot write {}: {e}", path.display()))
    })
}

/// Checks `text` against `params/schema.json`, naming every offending field.
#[cfg(feature = "schema")]
fn validate(text: &str) -> Result<(), Error> {
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Error::new(format!("not valid JSON: {e}")))?;
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).expect("embedded schema is JSON");
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
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "does not match params/schema.json:\n{}",
            errors.join("\n")
        )))
    }
}

/// Turns a JSON pointer such as `/params/3/min` into `params[3] (razor_base).min`.
#[cfg(feature = "schema")]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_file(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../params")
            .join(name)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("occam-params-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    const ENTRY: &str = r#""name": "razor_base", "value": 1, "min": 0, "max": 9, "c_end": 1, "r_end": 0.002, "unit": "cp", "description": "d""#;

    fn doc(entries: &[String]) -> String {
        format!(
            "{{\"group\": \"x\", \"description\": \"d\", \"params\": [\n{}\n]}}",
            entries.join(",\n")
        )
    }

    #[test]
    fn every_shipped_file_loads() {
        for name in ["search.json", "eval.json", "variants/material_only.json"] {
            let f = ParamFile::load(&repo_file(name)).unwrap();
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
            assert_eq!(a.with_value(a.min), b.with_value(b.value));
        }
        // Only digits changed: the text outside the value numbers is identical.
        let strip = |s: &str| {
            s.chars()
                .filter(|c| !c.is_ascii_digit() && *c != '-')
                .collect::<String>()
        };
        assert_eq!(strip(&text), strip(&f.text));
        let out_of_range: Vec<i32> = f.entries.iter().map(|e| e.max + 1).collect();
        assert!(f.render_with_values(&out_of_range).is_err());
        assert!(f.render_with_values(&same[1..]).is_err());
    }

    #[test]
    fn values_are_found_whatever_the_layout() {
        // Keys in another order, nested strings that look like keys, odd spacing.
        let text = "{ \"params\" : [ {\"description\": \"a \\\"value\\\": 5 {\", \"value\"  :\n -3, \"name\": \"a_b\", \"start\": 0, \"min\": -9, \"max\": 9, \"c_end\": 1, \"r_end\": 0, \"unit\": \"u\"} ],\n \"group\": \"g\", \"description\": \"value\" }";
        let f = ParamFile::parse(Path::new("x.json"), text.to_string()).unwrap();
        let out = f.render_with_values(&[7]).unwrap();
        assert_eq!(out, text.replace(":\n -3,", ":\n 7,"));
    }

    #[test]
    fn start_may_still_be_called_default() {
        let old = format!("{{{ENTRY}, \"default\": 2}}");
        let new = format!("{{{ENTRY}, \"start\": 2}}").replace("razor_base", "razor_max");
        let f = ParamFile::parse(Path::new("mixed.json"), doc(&[old.clone(), new])).unwrap();
        assert_eq!(f.entries[0].start, 2);
        assert_eq!(f.entries[1].start, 2);
        assert_eq!(f.legacy_start, vec!["razor_base".to_string()]);
        let [note] = &f.deprecations()[..] else {
            panic!("one note: {:?}", f.deprecations())
        };
        assert!(
            note.contains("mixed.json") && note.contains("`start`"),
            "{note}"
        );
        let both = format!("{{{ENTRY}, \"default\": 2, \"start\": 2}}");
        let err = ParamFile::parse(Path::new("b.json"), doc(&[both])).unwrap_err();
        // (With the schema, its `oneOf` reports it first.)
        assert!(
            cfg!(feature = "schema") || err.to_string().contains("both `start`"),
            "{err}"
        );
        let neither = format!("{{{ENTRY}}}");
        assert!(ParamFile::parse(Path::new("n.json"), doc(&[neither])).is_err());
    }

    #[test]
    fn renamed_parameters_are_read_under_their_old_name() {
        let old = format!("{{{ENTRY}, \"start\": 2}}").replace("razor_base", "see_max_depth");
        let other = format!("{{{ENTRY}, \"default\": 2}}");
        let f = ParamFile::parse(Path::new("old.json"), doc(&[old.clone(), other])).unwrap();
        assert_eq!(f.names(), vec!["seeprune_max_depth", "razor_base"]);
        assert_eq!(
            f.legacy_names,
            vec![("see_max_depth".to_string(), "seeprune_max_depth")]
        );
        // One line per old spelling: the field `default`, then the renamed parameter.
        let notes = f.deprecations();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[1].starts_with(
                "old.json: parameter 'see_max_depth' is now called 'seeprune_max_depth'"
            ),
            "{notes:?}"
        );
        // Writing values back keeps the file as written, old name included.
        let text = f.render_with_values(&[3, 1]).unwrap();
        assert!(text.contains("\"see_max_depth\", \"value\": 3"), "{text}");
        // The old and the new name together declare one parameter twice.
        let new = old.replace("see_max_depth", "seeprune_max_depth");
        let err = ParamFile::parse(Path::new("twice.json"), doc(&[old, new]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'seeprune_max_depth' is declared more than once (once under its old name 'see_max_depth')"),
            "{err}"
        );
    }

    #[test]
    fn broken_entries_are_named() {
        let bad_value =
            format!("{{{ENTRY}, \"start\": 1}}").replace("\"value\": 1", "\"value\": 10");
        let err = ParamFile::parse(Path::new("bad.json"), doc(&[bad_value]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("value 10 lies outside [0, 9]"), "{err}");
        let twice = format!("{{{ENTRY}, \"start\": 1}}");
        let err = ParamFile::parse(Path::new("bad.json"), doc(&[twice.clone(), twice]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than once"), "{err}");
        let extra = format!("{{{ENTRY}, \"start\": 1, \"extra\": 1}}");
        assert!(ParamFile::parse(Path::new("bad.json"), doc(&[extra])).is_err());
        assert!(ParamFile::parse(Path::new("bad.json"), "{".to_string()).is_err());
    }

    #[test]
    fn c_end_and_r_end_may_be_left_to_the_design() {
        let designed = ENTRY.replace(", \"c_end\": 1, \"r_end\": 0.002", "");
        assert!(!designed.contains("c_end") && !designed.contains("r_end"));
        let c_only = ENTRY
            .replace(", \"r_end\": 0.002", "")
            .replace("razor_base", "razor_max");
        let text = doc(&[
            format!("{{{designed}, \"start\": 1}}"),
            format!("{{{c_only}, \"start\": 2}}"),
        ]);
        let dir = scratch("designed");
        let path = dir.join("designed.json");
        fs::write(&path, &text).unwrap();
        let mut f = ParamFile::load(&path).unwrap();
        assert_eq!(
            (f.entries[0].c_end, f.entries[0].r_end),
            (None, None),
            "absent, not defaulted"
        );
        assert_eq!((f.entries[1].c_end, f.entries[1].r_end), (Some(1.0), None));
        // A value write-back keeps the absent fields absent and the given ones as they are.
        f.write_values(&[7, 3]).unwrap();
        let written = fs::read_to_string(&path).unwrap();
        assert_eq!(
            written,
            text.replacen("\"value\": 1", "\"value\": 7", 1).replacen(
                "\"value\": 1",
                "\"value\": 3",
                1
            )
        );
        assert_eq!(f.entries[0].value, 7);
        assert_eq!((f.entries[0].c_end, f.entries[1].c_end), (None, Some(1.0)));
        // Written back unchanged, the text is the same byte for byte.
        f.write_values(&[1, 1]).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_given_c_end_must_still_be_positive() {
        for bad in ["0", "-1", "-0.5"] {
            let entry = format!("{{{ENTRY}, \"start\": 1}}")
                .replace("\"c_end\": 1", &format!("\"c_end\": {bad}"));
            let err = ParamFile::parse(Path::new("bad.json"), doc(&[entry]))
                .unwrap_err()
                .to_string();
            // The schema names the field first; without it the entry check refuses it.
            let expected = if cfg!(feature = "schema") {
                "params[0] (razor_base).c_end"
            } else {
                "parameter 'razor_base': c_end must be positive and r_end non-negative, got"
            };
            assert!(
                err.starts_with("bad.json: ") && err.contains(expected),
                "{bad}: {err}"
            );
        }
    }

    #[cfg(feature = "schema")]
    #[test]
    fn schema_violations_are_named_by_field() {
        let entry = format!("{{{ENTRY}, \"start\": 1}}").replace("\"max\": 9", "\"max\": \"9\"");
        let err = ParamFile::parse(Path::new("bad.json"), doc(&[entry]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("params[0] (razor_base).max"), "{err}");
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = scratch("write");
        let path = dir.join("search.json");
        fs::copy(repo_file("search.json"), &path).unwrap();
        let mut f = ParamFile::load(&path).unwrap();
        let values: Vec<i32> = f.entries.iter().map(|e| e.max).collect();
        f.write_values(&values).unwrap();
        assert!(f.entries.iter().all(|e| e.value == e.max));
        let g = ParamFile::load(&path).unwrap();
        assert!(g.entries.iter().all(|e| e.value == e.max));
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left behind"
        );
        assert!(write_atomically(&dir.join("no/such/dir/x"), "x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A compiled table of two parameters.
    #[derive(Clone, Debug, PartialEq)]
    struct Two([i32; 2]);

    static TWO: [crate::ParamSpec; 2] = [
        Param {
            name: "razor_base",
            value: 1,
            start: 1,
            min: 0,
            max: 9,
            c_end: Some(1.0),
            r_end: Some(0.002),
            unit: "cp",
            description: "d",
            measured_by: MeasuredBy::Any,
        },
        Param {
            name: "razor_max",
            value: 1,
            start: 1,
            min: 0,
            max: 5,
            c_end: Some(1.0),
            r_end: Some(0.002),
            unit: "cp",
            description: "d",
            measured_by: MeasuredBy::Any,
        },
    ];

    impl Table for Two {
        type Error = String;
        fn specs() -> &'static [crate::ParamSpec] {
            &TWO
        }
        fn index_of(name: &str) -> Option<usize> {
            TWO.iter().position(|s| s.name == name)
        }
        fn set(&mut self, index: usize, value: i32) -> Result<(), String> {
            let s = &TWO[index];
            if value < s.min || value > s.max {
                return Err(format!("{value} is outside [{}, {}]", s.min, s.max));
            }
            self.0[index] = value;
            Ok(())
        }
    }

    #[test]
    fn overlay_sets_the_chosen_field_by_name_or_changes_nothing() {
        let a = format!("{{{ENTRY}, \"start\": 3}}")
            .replace("razor_base", "razor_max")
            .replace("\"value\": 1", "\"value\": 4");
        let f = ParamFile::parse(Path::new("a.json"), doc(&[a])).unwrap();
        let mut t = Two([1, 1]);
        overlay(&mut t, std::slice::from_ref(&f), Field::Value).unwrap();
        assert_eq!(t, Two([1, 4]));
        overlay(&mut t, std::slice::from_ref(&f), Field::Start).unwrap();
        assert_eq!(t, Two([1, 3]));
        // razor_max's compiled bounds are [0, 5]: 9 is refused, nothing changes.
        let b = format!("{{{ENTRY}, \"start\": 3}}").replace("\"value\": 1", "\"value\": 2");
        let c = format!("{{{ENTRY}, \"start\": 3}}")
            .replace("razor_base", "razor_max")
            .replace("\"value\": 1", "\"value\": 9");
        let both = ParamFile::parse(Path::new("b.json"), doc(&[b, c])).unwrap();
        let err = overlay(&mut t, std::slice::from_ref(&both), Field::Value).unwrap_err();
        assert!(
            err.to_string().contains("b.json: parameter 'razor_max'"),
            "{err}"
        );
        assert_eq!(t, Two([1, 3]));
        let unknown = format!("{{{ENTRY}, \"start\": 3}}").replace("razor_base", "lmr_base");
        let u = ParamFile::parse(Path::new("u.json"), doc(&[unknown])).unwrap();
        let err = u.bind::<Two>().unwrap_err().to_string();
        assert!(err.contains("no parameter named lmr_base"), "{err}");
    }

    /// A copy of the shipped `params/` folder (its top level).
    fn params_copy(name: &str) -> PathBuf {
        let dir = scratch(name);
        for file in ["schema.json", "search.json", "eval.json"] {
            fs::copy(repo_file(file), dir.join(file)).unwrap();
        }
        dir
    }

    #[test]
    fn a_params_folder_yields_its_parameter_files_and_ignores_other_kinds() {
        let dir = params_copy("picks");
        // What a tuner run may leave beside the files that is not JSON: journals, old
        // copies, tables, plots, lock files, match results, datagen output, headers.
        for name in [
            "search.spsa.jsonl",
            "search.spsa.jsonl.old.1",
            "search.spsa.checkpoint.json.old.1",
            "search.spsa.csv",
            "search.spsa.svg",
            ".search.json.lock",
            "match.jsonl",
            "games.pgn",
            "positions.bin",
            "search.verified.rs",
            "occam_params.verified.h",
        ] {
            fs::write(dir.join(name), "x").unwrap();
        }
        let files = parameter_files_in(&dir).unwrap();
        let names: Vec<_> = files.iter().map(|p| p.file_name().unwrap()).collect();
        assert_eq!(names, ["eval.json", "search.json"]);
        let loaded = load_all(&files).unwrap();
        assert_eq!(loaded.len(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn any_other_json_in_a_params_folder_is_refused_by_name_with_what_to_do() {
        let checkpoint = r#"{"journal": "4f1c", "state": {"seq": 3, "theta": [1.5]}}"#;
        let result =
            r#"{"pairs": 4, "params": [{"name": "asp_delta", "start": 20, "written": 21}]}"#;
        for (name, text, hint) in [
            ("search.spsa.checkpoint.json", checkpoint, "mv "),
            ("search.spsa.result.json", result, "search.spsa.* runs/"),
            ("x.checkpoint.json", checkpoint, "mv "),
            (
                "notes.json",
                r#"{"todo": []}"#,
                "holds parameter files only",
            ),
            ("broken.json", "{\"group\": ", "holds parameter files only"),
        ] {
            let dir = params_copy("refuses");
            fs::write(dir.join(name), text).unwrap();
            let err = parameter_files_in(&dir).unwrap_err().to_string();
            assert!(
                err.contains(name) && err.contains("not a parameter file"),
                "{err}"
            );
            assert!(err.contains(hint), "{name}: {err}");
            assert!(!err.contains('\n'), "one line: {err}");
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    #[test]
    fn a_copy_of_a_parameter_file_beside_it_is_refused_naming_both_files() {
        let dir = params_copy("copy");
        // What `texel -o params/eval.tuned.json` would have left: a second eval file.
        fs::copy(repo_file("eval.json"), dir.join("eval.tuned.json")).unwrap();
        let files = parameter_files_in(&dir).unwrap();
        let err = load_all(&files).unwrap_err().to_string();
        assert!(
            err.contains("eval.json") && err.contains("eval.tuned.json"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
