//! The engine's tunable parameters.
//!
//! `params/*.json` is the single source of truth; `build.rs` turns it into the
//! plain [`Params`] struct (one `i32` field per parameter, read in the hot path
//! through `#[inline(always)]` accessors) and the [`PARAM_SPECS`] table of names,
//! bounds and SPSA constants. This module knows nothing of who reads them: it
//! uses no other engine module, only the `occam-params` crate.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Static description of one parameter: its JSON entry, compiled in.
pub use occam_params::ParamSpec;

#[cfg(feature = "frozen")]
#[allow(dead_code)]
mod frozen {
    include!(concat!(env!("OUT_DIR"), "/params_frozen.rs"));
}

include!(concat!(env!("OUT_DIR"), "/params_generated.rs"));

/// True when this binary was built with every parameter compiled in as a constant.
pub const FROZEN: bool = cfg!(feature = "frozen");

/// Why a parameter could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("unknown parameter '{0}'")]
    Unknown(String),
    #[error("parameter '{name}' takes an integer from {min} to {max}, got '{got}'")]
    OutOfRange {
        name: &'static str,
        min: i32,
        max: i32,
        got: String,
    },
    #[error("parameter '{0}' is a compile-time constant in this frozen build")]
    Frozen(&'static str),
}

impl Default for Params {
    fn default() -> Self {
        Params::compiled()
    }
}

/// Index of a parameter in [`PARAM_SPECS`] by exact name.
pub fn index_of(name: &str) -> Option<usize> {
    static INDEX: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            PARAM_SPECS
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name, i))
                .collect()
        })
        .get(name)
        .copied()
}

/// Index of a parameter by name, ignoring ASCII case (UCI option names are case-insensitive).
pub fn index_of_ignore_case(name: &str) -> Option<usize> {
    index_of(name).or_else(|| {
        PARAM_SPECS
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
    })
}

impl Params {
    /// Every parameter at its declared `start`, which no tune rewrites: for work that
    /// must stay the same when a tune writes values back (the balance check that picks
    /// the tuner's built-in openings). A frozen build reads its compiled values still.
    pub fn starts() -> Params {
        let mut params = Params::compiled();
        for (index, spec) in PARAM_SPECS.iter().enumerate() {
            params.set_unchecked(index, spec.start);
        }
        params
    }

    /// Sets the parameter at `index`, checking its bounds. On error nothing changes.
    pub fn set(&mut self, index: usize, value: i32) -> Result<(), ParamError> {
        let spec = &PARAM_SPECS[index];
        if FROZEN {
            return Err(ParamError::Frozen(spec.name));
        }
        if value < spec.min || value > spec.max {
            return Err(ParamError::OutOfRange {
                name: spec.name,
                min: spec.min,
                max: spec.max,
                got: value.to_string(),
            });
        }
        self.set_unchecked(index, value);
        Ok(())
    }

    /// Parses `value` and sets the parameter called `name` (case-insensitive).
    pub fn set_by_name(&mut self, name: &str, value: &str) -> Result<(), ParamError> {
        let index =
            index_of_ignore_case(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        let spec = &PARAM_SPECS[index];
        let parsed: i32 = value.trim().parse().map_err(|_| ParamError::OutOfRange {
            name: spec.name,
            min: spec.min,
            max: spec.max,
            got: value.trim().to_string(),
        })?;
        self.set(index, parsed)
    }

    /// Value by exact name, if the parameter exists.
    pub fn get_by_name(&self, name: &str) -> Option<i32> {
        index_of(name).map(|i| self.get(i))
    }

    /// All parameters with their current values, one OpenBench SPSA line each (the
    /// short `name, int, value, min, max` for one whose file leaves `c_end`/`r_end` to
    /// the tuner's design: `tuner export --format openbench` writes the designed ones).
    pub fn openbench_lines(&self) -> String {
        let entries = self.render_entries();
        let ends: Vec<_> = entries.iter().map(ParamSpec::ends).collect();
        occam_params::render::openbench(&entries, &ends)
    }

    /// Every parameter with its current value, as the renderers take them.
    pub fn render_entries(&self) -> Vec<ParamSpec> {
        PARAM_SPECS
            .iter()
            .enumerate()
            .map(|(i, s)| ParamSpec {
                value: self.get(i),
                ..*s
            })
            .collect()
    }
}

/// Parameter files are laid over a `Params` through this (see `occam_params::overlay`).
impl occam_params::Table for Params {
    type Error = ParamError;
    fn specs() -> &'static [ParamSpec] {
        &PARAM_SPECS
    }
    fn index_of(name: &str) -> Option<usize> {
        index_of(name)
    }
    fn set(&mut self, index: usize, value: i32) -> Result<(), ParamError> {
        Params::set(self, index, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_values_match_the_table_and_accessors() {
        let p = Params::default();
        for (i, spec) in PARAM_SPECS.iter().enumerate() {
            assert_eq!(p.get(i), spec.value, "{}", spec.name);
            assert_eq!(index_of(spec.name), Some(i));
        }
        assert_eq!(
            p.razor_base(),
            PARAM_SPECS[index_of("razor_base").unwrap()].value
        );
    }

    #[cfg(not(feature = "frozen"))]
    #[test]
    fn set_checks_bounds_and_keeps_state_on_error() {
        let mut p = Params::default();
        let i = index_of("razor_base").unwrap();
        let spec = PARAM_SPECS[i];
        let before = p.clone();
        assert!(matches!(
            p.set(i, spec.max + 1),
            Err(ParamError::OutOfRange { .. })
        ));
        assert!(matches!(
            p.set_by_name("razor_base", "abc"),
            Err(ParamError::OutOfRange { .. })
        ));
        assert!(matches!(
            p.set_by_name("no_such_param", "1"),
            Err(ParamError::Unknown(_))
        ));
        assert_eq!(p, before);
        p.set_by_name("RAZOR_BASE", &spec.min.to_string()).unwrap();
        assert_eq!(p.razor_base(), spec.min);
        assert!(
            p.openbench_lines()
                .contains(&format!("razor_base, int, {}, ", spec.min))
        );
    }
}
