//! Who plays: a side is a parameter set played in-process or an external UCI engine.
//! It describes the participant (named, compared, fingerprinted in results files);
//! for each game slot it puts a [`Player`] at the board, the live engine that moves.
//! `match` and `verify` play sides against each other, and `spsa --verify` plays its
//! tuned values against its start values as two sides.

use std::path::PathBuf;

use anyhow::{Result, bail};
use occam::Params;

pub use crate::param_files::Field;
use crate::param_files::{ParamFile, load_all, overlay};
use crate::play::game::{EnginePlayer, Player};
use crate::play::uci_engine::{EngineSpec, UciEngine};

/// One participant of a match. (A handful exist per match: the size of the
/// in-process variant's parameter table does not matter.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Side {
    /// The engine library in-process, with these parameters (each game slot gets its own
    /// searcher and hash table).
    InProcess {
        name: String,
        /// What it was built from, for logs and the results file fingerprint.
        source: String,
        params: Params,
    },
    /// An external engine; each game slot runs its own process.
    External(EngineSpec),
}

/// Parameters: the compiled values with the chosen field of every entry of `files`
/// laid over them.
pub fn params_from_files(files: &[PathBuf], field: Field) -> Result<Params> {
    let mut params = Params::default();
    overlay(&mut params, &load_all(files)?, field)?;
    Ok(params)
}

impl Side {
    /// Parses `--a`/`--b`: comma-separated `FILE`, `FILE@start` (that file's `start`
    /// fields; `@default` is the old spelling), `compiled` (nothing over the compiled
    /// values) and `name=NAME`.
    pub fn parse_params(text: &str, fallback_name: &str) -> Result<Side> {
        let mut name = None;
        let mut params = Params::default();
        let mut parts = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some(n) = item.strip_prefix("name=") {
                if n.is_empty() {
                    bail!("'{text}': name= needs a name");
                }
                name = Some(n.to_string());
                continue;
            }
            if item == "compiled" {
                parts.push("compiled".to_string());
                continue;
            }
            let old_spelling = item.strip_suffix("@default");
            if old_spelling.is_some() {
                eprintln!(
                    "note: '{item}': `@default` is now called `@start`; the old spelling is still read for now"
                );
            }
            let (path, field) = match item.strip_suffix("@start").or(old_spelling) {
                Some(p) => (p, Field::Start),
                None => (item.strip_suffix("@value").unwrap_or(item), Field::Value),
            };
            let file = ParamFile::load(std::path::Path::new(path))?;
            overlay(&mut params, std::slice::from_ref(&file), field)?;
            parts.push(item.to_string());
        }
        if parts.is_empty() {
            bail!(
                "'{text}' names no parameter set: give FILE[@start],... (e.g. params/search.json,params/eval.json) or 'compiled'"
            );
        }
        Ok(Side::InProcess {
            name: name.unwrap_or_else(|| fallback_name.to_string()),
            source: parts.join(","),
            params,
        })
    }

    pub fn name(&self) -> &str {
        match self {
            Side::InProcess { name, .. } => name,
            Side::External(spec) => &spec.name,
        }
    }

    /// A stable description (for the results-file fingerprint).
    pub fn describe(&self) -> String {
        match self {
            Side::InProcess {
                name,
                source,
                params,
            } => {
                // The values themselves, so editing a file between runs is noticed.
                let values: Vec<String> = (0..occam::params::PARAM_SPECS.len())
                    .map(|i| params.get(i).to_string())
                    .collect();
                format!("{name}=params[{source}]{{{}}}", values.join(","))
            }
            Side::External(spec) => format!("{}={}", spec.name, spec.describe()),
        }
    }

    /// A player for one game slot. External engines are started and handshaken here,
    /// so a wrong command fails the match before its first game.
    pub fn player(&self, hash_mb: usize) -> Result<Box<dyn Player>> {
        Ok(match self {
            Side::InProcess { name, params, .. } => {
                Box::new(EnginePlayer::new(name.clone(), params.clone(), hash_mb))
            }
            Side::External(spec) => Box::new(UciEngine::start(spec.clone())?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(name: &str) -> String {
        format!("{}/../params/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn parameter_sides_parse_and_merge() {
        let side = Side::parse_params(
            &format!(
                "name=tuned,{},{}@start",
                repo("search.json"),
                repo("eval.json")
            ),
            "A",
        )
        .unwrap();
        assert_eq!(side.name(), "tuned");
        let compiled = Side::parse_params("compiled", "B").unwrap();
        assert_eq!(compiled.name(), "B");
        for bad in ["", "name=x", "no/such/file.json", "name=,compiled"] {
            assert!(Side::parse_params(bad, "A").is_err(), "{bad}");
        }
    }

    #[test]
    fn files_override_compiled_values_by_field() {
        let dir = crate::test_util::scratch_dir("side");
        let path = dir.join("eval.json");
        let file = ParamFile::load(std::path::Path::new(&repo("eval.json"))).unwrap();
        let values: Vec<i32> = file.entries.iter().map(|e| e.max).collect();
        std::fs::write(&path, file.render_with_values(&values).unwrap()).unwrap();
        let tuned = params_from_files(std::slice::from_ref(&path), Field::Value).unwrap();
        let start = params_from_files(std::slice::from_ref(&path), Field::Start).unwrap();
        let old_spelling = Side::parse_params(&format!("{}@default", path.display()), "A").unwrap();
        let Side::InProcess { params: old, .. } = old_spelling else {
            panic!("a parameter side")
        };
        assert_eq!(old, start);
        for e in &file.entries {
            assert_eq!(tuned.get_by_name(&e.name), Some(e.max));
            assert_eq!(start.get_by_name(&e.name), Some(e.start));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
