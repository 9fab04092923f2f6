//! The parameter entry and the compiled table it is looked up in.

use std::fmt;

/// One tunable parameter, as declared in `params/*.json`. `S` is the string type:
/// `String` for a loaded file, `&'static str` for the engine's compiled table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param<S = String> {
    /// snake_case, prefixed by its technique or eval term (`razor_base`).
    pub name: S,
    /// The current (tuned) value: compiled into the engine, the UCI option's default.
    pub value: i32,
    /// The value before any tuning (JSON `start`; files may still spell it `default`).
    pub start: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA perturbation size at the end of a tune, in the parameter's unit; absent
    /// (`None`), `tuner spsa` designs it.
    pub c_end: Option<f64>,
    /// SPSA learning rate at the end of a tune; absent (`None`), `tuner spsa` designs it.
    pub r_end: Option<f64>,
    pub unit: S,
    pub description: S,
    /// Which games can measure it (JSON `measured_by`; absent means any).
    pub measured_by: MeasuredBy,
}

/// Which games can measure a parameter: SPSA leaves a clock-only one (time
/// management) out of fixed-node, fixed-depth and fixed-movetime games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Deserialize))]
#[cfg_attr(feature = "json", serde(rename_all = "lowercase"))]
pub enum MeasuredBy {
    /// Any game: fixed nodes, depth, movetime or a clock.
    #[default]
    Any,
    /// Only games on a clock, where time management runs.
    Clock,
}

/// An entry of the engine's compiled table.
pub type ParamSpec = Param<&'static str>;

impl<S: AsRef<str>> Param<S> {
    pub fn name(&self) -> &str {
        self.name.as_ref()
    }

    /// The entry with `value` replaced (what the renderers print).
    pub fn with_value(&self, value: i32) -> Param<&str> {
        Param {
            name: self.name.as_ref(),
            value,
            start: self.start,
            min: self.min,
            max: self.max,
            c_end: self.c_end,
            r_end: self.r_end,
            unit: self.unit.as_ref(),
            description: self.description.as_ref(),
            measured_by: self.measured_by,
        }
    }

    /// The file's `c_end` and `r_end` when it gives both (what OpenBench's SPSA input
    /// needs); `None` when either is left to the design.
    pub fn ends(&self) -> Option<(f64, f64)> {
        self.c_end.zip(self.r_end)
    }

    /// Every rule an entry obeys beyond its JSON types: names become Rust identifiers,
    /// `min <= max`, `value` and `start` lie within them, and SPSA can use `c_end`/`r_end`
    /// where they are given.
    pub fn check(&self) -> Result<(), Error> {
        let name = self.name();
        let snake = name.split('_').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        }) && name.starts_with(|c: char| c.is_ascii_lowercase());
        if !snake {
            return Err(Error::new(format!(
                "parameter '{name}': names are snake_case (a-z, 0-9 and single '_', starting with a letter)"
            )));
        }
        if self.min > self.max {
            return Err(Error::new(format!(
                "parameter '{name}': min {} is greater than max {}",
                self.min, self.max
            )));
        }
        let c_ok = self.c_end.is_none_or(|c| c > 0.0 && c.is_finite());
        let r_ok = self.r_end.is_none_or(|r| r >= 0.0 && r.is_finite());
        if !(c_ok && r_ok) {
            let shown = |v: Option<f64>| v.map_or("none (designed)".to_string(), |v| v.to_string());
            return Err(Error::new(format!(
                "parameter '{name}': c_end must be positive and r_end non-negative, got {} and {}",
                shown(self.c_end),
                shown(self.r_end)
            )));
        }
        for (what, v) in [("value", self.value), ("start", self.start)] {
            if v < self.min || v > self.max {
                return Err(Error::new(format!(
                    "parameter '{name}': {what} {v} lies outside [{}, {}]",
                    self.min, self.max
                )));
            }
        }
        Ok(())
    }
}

/// Parameters that were renamed, as (old name, current name). Parameter files,
/// `setoption` and `--params` still accept an old name, with a deprecation note, so
/// files and GUI configurations written before the rename keep working.
pub const RENAMED: &[(&str, &str)] = &[
    // `see_` is the SEE piece values; the SEE pruning margins got their own prefix.
    ("see_quiet_margin", "seeprune_quiet_margin"),
    ("see_capture_margin", "seeprune_capture_margin"),
    ("see_max_depth", "seeprune_max_depth"),
];

/// The current name of a parameter that was renamed from `old` (exact name).
pub fn renamed(old: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(o, _)| *o == old).map(|&(_, new)| new)
}

/// The one-line note printed when an old name is read.
pub fn rename_note(old: &str, new: &str) -> String {
    format!("parameter '{old}' is now called '{new}'; the old name is still read for now")
}

/// A set of values that follows a compiled table (the engine's `Params`): what files
/// are laid over.
pub trait Table {
    type Error: fmt::Display;
    /// The compiled table, in index order.
    fn specs() -> &'static [ParamSpec];
    /// Index of a parameter by exact name.
    fn index_of(name: &str) -> Option<usize>;
    /// Sets one value, refusing values outside the compiled bounds (nothing changes then).
    fn set(&mut self, index: usize, value: i32) -> Result<(), Self::Error>;
}

/// What was wrong with a parameter file, an entry or a `--params` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }

    /// The same error with `context: ` in front (usually the file).
    pub fn within(self, context: impl fmt::Display) -> Error {
        Error(format!("{context}: {}", self.0))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, value: i32, start: i32, min: i32, max: i32) -> Param<&str> {
        Param {
            name,
            value,
            start,
            min,
            max,
            c_end: Some(1.0),
            r_end: Some(0.002),
            unit: "cp",
            description: "d",
            measured_by: MeasuredBy::Any,
        }
    }

    #[test]
    fn checks_names_and_bounds() {
        assert!(entry("razor_base", 1, 2, 0, 9).check().is_ok());
        for bad in [
            "Razor",
            "razor__base",
            "_razor",
            "razor_",
            "9razor",
            "razor-base",
        ] {
            assert!(entry(bad, 1, 1, 0, 9).check().is_err(), "{bad}");
        }
        let err = entry("x", 10, 1, 0, 9).check().unwrap_err().to_string();
        assert!(err.contains("value 10 lies outside [0, 9]"), "{err}");
        let err = entry("x", 1, -1, 0, 9).check().unwrap_err().to_string();
        assert!(err.contains("start -1"), "{err}");
        assert!(entry("x", 1, 1, 9, 0).check().is_err());
    }

    #[test]
    fn c_end_and_r_end_are_checked_only_where_given() {
        let designed = Param {
            c_end: None,
            r_end: None,
            ..entry("razor_base", 1, 2, 0, 9)
        };
        assert!(designed.check().is_ok());
        assert_eq!(designed.ends(), None);
        assert_eq!(entry("x", 1, 1, 0, 9).ends(), Some((1.0, 0.002)));
        let c_only = Param {
            r_end: None,
            ..entry("x", 1, 1, 0, 9)
        };
        assert!(c_only.check().is_ok());
        assert_eq!(c_only.ends(), None);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            for r_end in [None, Some(0.002)] {
                let e = Param {
                    c_end: Some(bad),
                    r_end,
                    ..entry("x", 1, 1, 0, 9)
                };
                let err = e.check().unwrap_err().to_string();
                assert!(
                    err.starts_with(&format!(
                        "parameter 'x': c_end must be positive and r_end non-negative, got {bad} and "
                    )),
                    "{err}"
                );
            }
        }
        let bad_r = Param {
            c_end: None,
            r_end: Some(-0.5),
            ..entry("x", 1, 1, 0, 9)
        };
        let err = bad_r.check().unwrap_err().to_string();
        assert!(err.ends_with("got none (designed) and -0.5"), "{err}");
    }
}
