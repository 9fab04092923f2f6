//! How a listed parameter reaches an external engine during a tune: the engine's own
//! `uci` option list decides. Integers go to `spin` options; a `float` parameter is
//! rounded when its option is a `spin`, and sent as a decimal on a fixed grid when it
//! is a `string`. The server tunes every parameter in grid steps (integers).

use anyhow::{Result, bail};

use crate::design::Request;
use crate::param_files::lists::{ExternalParam, ParamList, number_text};
use crate::play::uci_engine::UciOption;

/// How one parameter reaches the engine: the option's name as the engine spells it,
/// and the grid the tuner moves it on (1 for integers; a power of ten for a float sent
/// to a `string` option).
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub option: String,
    pub step: f64,
    /// Sent as a decimal number (a float to a `string` option).
    pub decimal: bool,
}

impl Binding {
    /// The text sent for `units` grid steps.
    pub fn text(&self, units: i32) -> String {
        number_text(f64::from(units) * self.step, self.decimal)
    }

    /// A file value in grid units.
    pub fn units(&self, value: f64) -> f64 {
        let u = value / self.step;
        // 2.0 / 0.0001 is 19999.999999999996: snap what is a grid point up to rounding.
        if (u - u.round()).abs() < 1e-6 {
            u.round()
        } else {
            u
        }
    }

    /// The grid points nearest inside [min, max].
    pub fn unit_bounds(&self, min: f64, max: f64) -> (i32, i32) {
        (
            self.units(min).ceil() as i32,
            self.units(max).floor() as i32,
        )
    }

    /// The file value of `units` grid steps, kept within [min, max].
    pub fn value(&self, units: i32, min: f64, max: f64) -> f64 {
        (f64::from(units) * self.step).clamp(min, max)
    }
}

/// The c a float parameter's grid is cut for: its `c_end`, or where the file leaves it
/// to the design, the design's prior c (a quarter of the range).
fn grid_c(p: &ExternalParam) -> f64 {
    Request {
        min: p.min,
        max: p.max,
        c_end: p.c_end,
        r_end: p.r_end,
    }
    .prior_c()
}

/// The grid of a float parameter: a power of ten at most a hundredth of its c_end, so a
/// perturbation spans a hundred steps or more.
fn float_step(c_end: f64) -> f64 {
    let exponent = (c_end / 100.0).log10().floor() as i32;
    // 1/10^n rather than 10^-n: the division rounds once, so 1e-4 is exactly 0.0001.
    if exponent < 0 {
        1.0 / 10f64.powi(-exponent)
    } else {
        10f64.powi(exponent)
    }
}

/// Checks every parameter of `lists` against the engine's options and returns their
/// bindings (per list, per parameter). Every problem is listed in one error: an unknown
/// name (with the names the engine has), an option that is not a number, file bounds
/// beyond the option's, or a grid too fine for 32-bit steps.
pub fn bind(lists: &[ParamList], options: &[UciOption], engine: &str) -> Result<Vec<Vec<Binding>>> {
    let mut problems = Vec::new();
    let mut bindings = Vec::new();
    for list in lists {
        let mut row = Vec::new();
        for p in &list.params {
            let Some(o) = options
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(&p.name))
            else {
                problems.push(format!("'{}' is not one of its options", p.name));
                continue;
            };
            let binding = match (o.kind.as_str(), p.float) {
                ("spin", _) => {
                    let (lo, hi) = (o.min.unwrap_or(i64::MIN), o.max.unwrap_or(i64::MAX));
                    let (min, max) = (p.min.ceil() as i64, p.max.floor() as i64);
                    if min < lo || max > hi {
                        problems.push(format!(
                            "'{}' may range over [{}, {}] in {} but the engine's spin allows [{lo}, {hi}]",
                            p.name,
                            p.min,
                            p.max,
                            list.path.display()
                        ));
                        continue;
                    }
                    Binding {
                        option: o.name.clone(),
                        step: 1.0,
                        decimal: false,
                    }
                }
                ("string", float) => Binding {
                    option: o.name.clone(),
                    step: if float { float_step(grid_c(p)) } else { 1.0 },
                    decimal: float,
                },
                (kind, _) => {
                    problems.push(format!(
                        "'{}' is a {kind} option; only spin (or string, for floats) options can be tuned",
                        p.name
                    ));
                    continue;
                }
            };
            let reach = p.min.abs().max(p.max.abs()) / binding.step;
            if reach >= f64::from(i32::MAX) {
                problems.push(format!(
                    "'{}': [{}, {}] on a grid of {} does not fit 32-bit steps",
                    p.name, p.min, p.max, binding.step
                ));
                continue;
            }
            row.push(binding);
        }
        bindings.push(row);
    }
    if !problems.is_empty() {
        let mut spins: Vec<&str> = options
            .iter()
            .filter(|o| o.kind == "spin" || o.kind == "string")
            .map(|o| o.name.as_str())
            .collect();
        let more = spins.len().saturating_sub(30);
        spins.truncate(30);
        bail!(
            "the parameter list does not fit {engine}: {}. Its spin/string options: {}{}",
            problems.join("; "),
            spins.join(", "),
            if more > 0 {
                format!(", … ({more} more)")
            } else {
                String::new()
            }
        );
    }
    Ok(bindings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ranges_are_checked_against_the_engine() {
        let dir = crate::test_util::scratch_dir("binding");
        let path = dir.join("e.spsa");
        std::fs::write(
            &path,
            "Fut, int, 100, 0, 300, 10, 0.002\nLmr, float, 0.75, 0.0, 2.0, 0.05, 0.002",
        )
        .unwrap();
        let list = ParamList::load(&path).unwrap();
        let option = |line: &str| UciOption::parse(line).unwrap();
        let ok = [
            option("option name fut type spin default 100 min -1000 max 1000"),
            option("option name LMR type string default 0.75"),
            option("option name Hash type spin default 16 min 1 max 1024"),
        ];
        let b = bind(std::slice::from_ref(&list), &ok, "e").unwrap();
        assert_eq!(b[0][0].option, "fut");
        assert_eq!((b[0][0].step, b[0][1].step), (1.0, 0.0001));
        assert_eq!(b[0][1].text(7500), "0.75");
        // What binding to an engine with these option lines says.
        let refusal = |lines: &[&str]| {
            let options: Vec<UciOption> = lines.iter().map(|l| option(l)).collect();
            bind(std::slice::from_ref(&list), &options, "e")
                .unwrap_err()
                .to_string()
        };
        let err = refusal(&[
            "option name Fut type spin default 100 min 0 max 200",
            "option name Hash type spin default 16 min 1 max 1024",
        ]);
        assert!(err.contains("[0, 200]"), "{err}");
        assert!(err.contains("'Lmr' is not one of its options"), "{err}");
        assert!(err.contains("Hash"), "lists what there is: {err}");
        let err = refusal(&[
            "option name Fut type check default false",
            "option name Lmr type spin default 1 min 0 max 2",
        ]);
        assert!(err.contains("check option"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_float_grid_is_a_power_of_ten_a_hundredth_of_c_end_or_finer() {
        assert_eq!(float_step(0.05), 0.0001);
        assert_eq!(float_step(10.0), 0.1);
        // Without c_end, the design's c: a quarter of [0, 2] is 0.5, so the grid is 0.001.
        let list = ParamList::parse(
            std::path::Path::new("e.spsa"),
            "Lmr, float, 0.75, 0.0, 2.0".to_string(),
        )
        .unwrap();
        assert_eq!(grid_c(&list.params[0]), 0.5);
        assert_eq!(float_step(grid_c(&list.params[0])), 0.001);
    }
}
