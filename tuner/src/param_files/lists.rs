//! Parameter lists of external engines: what `tuner spsa --engine` tunes and `tuner
//! import` fills in.
//!
//! Three formats are read, each written back in its own format, changing only the
//! text of the values (everything else in the file stays byte for byte) and replacing
//! the file atomically:
//! - OpenBench SPSA input: `name, int|float, value, min, max, c_end, r_end`, one per line
//!   (or `name, int|float, value, min, max`: `c_end` and `r_end` left to the design);
//! - a weather-factory config: `{"name": {"value", "min_value", "max_value", "step"}}`
//!   (`step` is the perturbation, so it becomes `c_end`; `r_end` is OpenBench's default
//!   0.002);
//! - Occam's own `params/*.json` schema (read and written by `occam_params`), where
//!   `c_end`/`r_end` may be left out for the design.

use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use occam_params::{MeasuredBy, ParamFile};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::write_atomically;

/// OpenBench's default learning rate at the end of a tune, used where a format has none.
pub const DEFAULT_R_END: f64 = 0.002;

/// The file formats of a parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    OpenBench,
    WeatherFactory,
    Occam,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::OpenBench => "OpenBench SPSA text",
            Format::WeatherFactory => "weather-factory config",
            Format::Occam => "Occam parameter file",
        }
    }
}

/// One parameter of a list, in the file's own units.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalParam {
    pub name: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation at the end of a tune, if the file gives it (else designed).
    pub c_end: Option<f64>,
    /// The learning rate at the end of a tune, if the file gives it (else designed).
    pub r_end: Option<f64>,
    /// Declared `float` (OpenBench); everything else is an integer.
    pub float: bool,
    /// Which games can measure it (Occam files only; any game otherwise).
    pub measured_by: MeasuredBy,
}

/// A parameter list as read from its file.
#[derive(Clone, Debug)]
pub struct ParamList {
    pub path: PathBuf,
    pub format: Format,
    pub params: Vec<ExternalParam>,
    text: String,
    /// The text of each parameter's value (OpenBench and weather-factory files).
    spans: Vec<Range<usize>>,
    /// The file itself when it is an Occam parameter file (it writes itself back).
    occam: Option<ParamFile>,
}

impl ParamList {
    /// Reads and checks a list, recognising its format by its content: a JSON object
    /// with a `params` array is an Occam file, any other JSON object a weather-factory
    /// config, anything else OpenBench text.
    pub fn load(path: &Path) -> Result<ParamList> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read parameter list {}", path.display()))?;
        ParamList::parse(path, text)
    }

    pub fn parse(path: &Path, text: String) -> Result<ParamList> {
        let json: Option<serde_json::Value> = serde_json::from_str(&text).ok();
        let list = match json {
            Some(serde_json::Value::Object(map)) if map.contains_key("params") => {
                let file = ParamFile::parse(path, text.clone())?;
                let params = file
                    .entries
                    .iter()
                    .map(|e| ExternalParam {
                        name: e.name.clone(),
                        value: f64::from(e.value),
                        min: f64::from(e.min),
                        max: f64::from(e.max),
                        c_end: e.c_end,
                        r_end: e.r_end,
                        float: false,
                        measured_by: e.measured_by,
                    })
                    .collect();
                ParamList {
                    path: path.to_path_buf(),
                    format: Format::Occam,
                    params,
                    text,
                    spans: Vec::new(),
                    occam: Some(file),
                }
            }
            Some(serde_json::Value::Object(_)) => weather_factory(path, text)?,
            Some(_) => bail!(
                "{}: a JSON parameter list is an object: {{\"name\": {{\"value\", \"min_value\", \"max_value\", \"step\"}}}} (weather-factory) or an Occam file with \"params\"",
                path.display()
            ),
            None if path.extension().is_some_and(|e| e == "json") => {
                let err = serde_json::from_str::<serde_json::Value>(&text).unwrap_err();
                bail!("{}: not valid JSON: {err}", path.display())
            }
            None => openbench(path, text)?,
        };
        list.check()?;
        Ok(list)
    }

    /// Bounds, step sizes (where given) and unique names.
    fn check(&self) -> Result<()> {
        let shown = self.path.display();
        if self.params.is_empty() {
            bail!("{shown}: no parameters in this {}", self.format.label());
        }
        let mut seen = std::collections::HashSet::new();
        for p in &self.params {
            if !seen.insert(p.name.to_ascii_lowercase()) {
                bail!("{shown}: parameter '{}' is listed twice", p.name);
            }
            if !(p.min <= p.value && p.value <= p.max) {
                bail!(
                    "{shown}: parameter '{}': value {} lies outside [{}, {}]",
                    p.name,
                    p.value,
                    p.min,
                    p.max
                );
            }
            let positive = |v: Option<f64>| v.is_none_or(|v| v > 0.0 && v.is_finite());
            if !(positive(p.c_end) && positive(p.r_end)) {
                let shown_end =
                    |v: Option<f64>| v.map_or("none (designed)".to_string(), |v| v.to_string());
                bail!(
                    "{shown}: parameter '{}': c_end (step) and r_end must be positive, got {} and {}",
                    p.name,
                    shown_end(p.c_end),
                    shown_end(p.r_end)
                );
            }
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }

    /// The file's text with new values (same order as `params`), each written as its
    /// format writes numbers; everything else is kept byte for byte.
    pub fn render(&self, values: &[f64]) -> Result<String> {
        if values.len() != self.params.len() {
            bail!(
                "{}: {} values given for {} parameters",
                self.path.display(),
                values.len(),
                self.params.len()
            );
        }
        for (p, &v) in self.params.iter().zip(values) {
            if !(p.min <= v && v <= p.max) {
                bail!(
                    "parameter '{}': value {v} lies outside [{}, {}]",
                    p.name,
                    p.min,
                    p.max
                );
            }
        }
        if let Some(file) = &self.occam {
            let ints: Vec<i32> = values.iter().map(|v| v.round() as i32).collect();
            return Ok(file.render_with_values(&ints)?);
        }
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut last = 0;
        for ((span, &v), p) in self.spans.iter().zip(values).zip(&self.params) {
            out.push_str(&self.text[last..span.start]);
            out.push_str(&number_text(v, p.float));
            last = span.end;
        }
        out.push_str(&self.text[last..]);
        Ok(out)
    }

    /// Writes new values back atomically and rereads the file.
    pub fn write_values(&mut self, values: &[f64]) -> Result<()> {
        let text = self.render(values)?;
        write_atomically(&self.path, &text)?;
        *self = ParamList::parse(&self.path, text)?;
        Ok(())
    }
}

/// A number as a parameter file holds it: integers plainly; floats with up to six
/// decimals (trailing zeros dropped) and always a decimal point.
pub fn number_text(v: f64, float: bool) -> String {
    if !float {
        return format!("{}", v.round() as i64);
    }
    let mut s = format!("{v:.6}");
    while s.ends_with('0') && !s.ends_with(".0") {
        s.pop();
    }
    s
}

/// OpenBench SPSA input: seven comma-separated fields per line, or five (no `c_end`,
/// `r_end`: the design chooses them). Blank lines and `#` comments are allowed here
/// (OpenBench itself refuses them, and five fields too).
fn openbench(path: &Path, text: String) -> Result<ParamList> {
    let shown = path.display();
    let mut params = Vec::new();
    let mut spans = Vec::new();
    let mut offset = 0;
    for (number, raw) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let at = || format!("{shown} line {}", number + 1);
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 7 && fields.len() != 5 {
            bail!(
                "{}: expected 7 comma-separated fields `name, int|float, value, min, max, c_end, r_end` (or the first 5, leaving c_end and r_end to the design), got {}: '{line}'",
                at(),
                fields.len()
            );
        }
        let kind = fields[1].trim();
        let float = match kind {
            "int" => false,
            "float" => true,
            other => bail!("{}: type '{other}' is neither int nor float", at()),
        };
        let num = |i: usize, what: &str| -> Result<f64> {
            let t = fields[i].trim();
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| anyhow!("{}: {what} '{t}' is not a number", at()))
        };
        let name = fields[0].trim().to_string();
        if name.is_empty() {
            bail!("{}: no parameter name", at());
        }
        // The value's text: field 2 without its surrounding blanks.
        let before: usize = fields[..2].iter().map(|f| f.len() + 1).sum();
        let lead = fields[2].len() - fields[2].trim_start().len();
        let start = line_start + before + lead;
        spans.push(start..start + fields[2].trim().len());
        params.push(ExternalParam {
            name,
            value: num(2, "value")?,
            min: num(3, "min")?,
            max: num(4, "max")?,
            c_end: (fields.len() == 7).then(|| num(5, "c_end")).transpose()?,
            r_end: (fields.len() == 7).then(|| num(6, "r_end")).transpose()?,
            float,
            measured_by: MeasuredBy::Any,
        });
    }
    Ok(ParamList {
        path: path.to_path_buf(),
        format: Format::OpenBench,
        params,
        text,
        spans,
        occam: None,
    })
}

#[derive(Deserialize)]
struct WfEntry {
    value: f64,
    min_value: f64,
    max_value: f64,
    step: Option<f64>,
}

#[derive(Deserialize)]
struct WfSpan<'a> {
    #[serde(borrow)]
    value: &'a RawValue,
}

/// A weather-factory config (its parameters are integers: it sends them rounded).
fn weather_factory(path: &Path, text: String) -> Result<ParamList> {
    let shown = path.display();
    let entries: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)?;
    let spans_by_name: Vec<(String, WfSpan<'_>)> =
        serde_json::from_str::<indexed::Ordered<'_>>(&text)
            .map_err(|e| anyhow!("{shown}: {e}"))?
            .0;
    let mut params = Vec::new();
    let mut spans = Vec::new();
    let base = text.as_ptr() as usize;
    for ((name, value), (span_name, span)) in entries.into_iter().zip(&spans_by_name) {
        debug_assert_eq!(&name, span_name);
        let e: WfEntry = serde_json::from_value(value).map_err(|e| {
            anyhow!(
                "{shown}: parameter '{name}': {e} (a weather-factory entry is {{\"value\", \"min_value\", \"max_value\", \"step\"}})"
            )
        })?;
        let step = e.step.ok_or_else(|| {
            anyhow!("{shown}: parameter '{name}' has no \"step\" (its perturbation size)")
        })?;
        let start = span.value.get().as_ptr() as usize - base;
        spans.push(start..start + span.value.get().len());
        params.push(ExternalParam {
            name,
            value: e.value,
            min: e.min_value,
            max: e.max_value,
            c_end: Some(step),
            r_end: Some(DEFAULT_R_END),
            float: false,
            measured_by: MeasuredBy::Any,
        });
    }
    Ok(ParamList {
        path: path.to_path_buf(),
        format: Format::WeatherFactory,
        params,
        text,
        spans,
        occam: None,
    })
}

/// The entries of a JSON object in file order, with their values borrowed from the text.
mod indexed {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

    use super::WfSpan;

    pub struct Ordered<'a>(pub Vec<(String, WfSpan<'a>)>);

    impl<'de> Deserialize<'de> for Ordered<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Ordered<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object of parameters")
                }
                fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = m.next_entry::<String, WfSpan<'de>>()? {
                        out.push((k, v));
                    }
                    Ok(Ordered(out))
                }
            }
            d.deserialize_map(V)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` read as the file `name`: it must be taken for `format` and hold `names`.
    fn read_as(format: Format, name: &str, text: &str, names: &[&str]) -> ParamList {
        let list = ParamList::parse(Path::new(name), text.to_string()).unwrap();
        assert_eq!(list.format, format);
        assert_eq!(list.names(), names);
        list
    }

    #[test]
    fn openbench_text_is_read_and_rewritten_in_place() {
        let text = "# my engine\nFutMargin, int, 100, 0, 300, 10, 0.002\r\n\n  LmrBase ,float, 0.75 ,0.0, 2.0, 0.05, 0.002";
        let list = read_as(Format::OpenBench, "e.spsa", text, &["FutMargin", "LmrBase"]);
        assert!(list.params[1].float && !list.params[0].float);
        assert_eq!(list.params[1].value, 0.75);
        let out = list.render(&[123.0, 1.25]).unwrap();
        assert_eq!(
            out,
            "# my engine\nFutMargin, int, 123, 0, 300, 10, 0.002\r\n\n  LmrBase ,float, 1.25 ,0.0, 2.0, 0.05, 0.002"
        );
        assert!(list.render(&[301.0, 1.0]).is_err());
        for bad in [
            "a, int, 1, 0, 3, 1",
            "a, int, 1, 0",
            "a, int, 1, 0, 3, 1, 0.002, 5",
            "a, int, 1, 0, 3, -1, 0.002",
            "a, int, 1, 0, 3, 1, 0",
            "a, long, 1, 0, 3, 1, 0.002",
            "a, int, x, 0, 3, 1, 0.002",
            "a, int, 5, 0, 3, 1, 0.002",
            "a, int, 1, 0, 3, 0, 0.002",
            "a, int, 1, 0, 3, 1, 0.002\nA, int, 1, 0, 3, 1, 0.002",
        ] {
            assert!(
                ParamList::parse(Path::new("e.spsa"), bad.to_string()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn openbench_lines_may_leave_c_end_and_r_end_to_the_design() {
        let text = "FutMargin, int, 100, 0, 300\nLmrBase, float, 0.75, 0.0, 2.0\nRfp, int, 70, 0, 200, 6, 0.002";
        let list = read_as(
            Format::OpenBench,
            "e.spsa",
            text,
            &["FutMargin", "LmrBase", "Rfp"],
        );
        let ends: Vec<_> = list.params.iter().map(|p| (p.c_end, p.r_end)).collect();
        assert_eq!(ends, [(None, None), (None, None), (Some(6.0), Some(0.002))]);
        assert!(list.params[1].float);
        assert_eq!(
            list.render(&[120.0, 1.5, 71.0]).unwrap(),
            "FutMargin, int, 120, 0, 300\nLmrBase, float, 1.5, 0.0, 2.0\nRfp, int, 71, 0, 200, 6, 0.002"
        );
    }

    #[test]
    fn occam_files_may_leave_c_end_and_r_end_to_the_design() {
        let text = r#"{"group": "x", "description": "d", "params": [
{"name": "razor_base", "value": 5, "start": 5, "min": 0, "max": 9, "unit": "cp", "description": "d"},
{"name": "razor_max", "value": 5, "start": 5, "min": 0, "max": 9, "c_end": 1, "r_end": 0.002, "unit": "cp", "description": "d"}
]}"#;
        let list = read_as(Format::Occam, "x.json", text, &["razor_base", "razor_max"]);
        assert_eq!((list.params[0].c_end, list.params[0].r_end), (None, None));
        assert_eq!(list.params[1].c_end, Some(1.0));
        assert_eq!(
            list.render(&[6.0, 4.0]).unwrap(),
            text.replacen("\"value\": 5", "\"value\": 6", 1).replacen(
                "\"value\": 5",
                "\"value\": 4",
                1
            )
        );
    }

    #[test]
    fn weather_factory_configs_are_read_and_rewritten_in_place() {
        let text = "{\n  \"Tempo\": {\"value\": 20, \"min_value\": 0, \"max_value\": 50, \"step\": 2},\n  \"Aspiration\": {\"step\": 1.5, \"value\": 15.0, \"min_value\": 5, \"max_value\": 40}\n}\n";
        let list = read_as(
            Format::WeatherFactory,
            "config.json",
            text,
            &["Tempo", "Aspiration"],
        );
        assert_eq!(
            (list.params[1].c_end, list.params[1].r_end),
            (Some(1.5), Some(DEFAULT_R_END))
        );
        let out = list.render(&[22.0, 17.0]).unwrap();
        assert_eq!(out, text.replace("20,", "22,").replace("15.0", "17"));
        let no_step = "{\"a\": {\"value\": 1, \"min_value\": 0, \"max_value\": 3}}";
        let err = ParamList::parse(Path::new("c.json"), no_step.into())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no \"step\""), "{err}");
        assert!(ParamList::parse(Path::new("c.json"), "{\"a\": 1".into()).is_err());
    }

    #[test]
    fn occam_files_are_lists_too() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/search.json");
        let list = ParamList::load(&path).unwrap();
        assert_eq!(list.format, Format::Occam);
        let values: Vec<f64> = list.params.iter().map(|p| p.value).collect();
        assert_eq!(
            list.render(&values).unwrap(),
            std::fs::read_to_string(&path).unwrap()
        );
    }

    #[test]
    fn numbers_are_written_as_their_format_writes_them() {
        assert_eq!(number_text(150.0, false), "150");
        assert_eq!(number_text(149.6, false), "150");
        assert_eq!(number_text(150.0, true), "150.0");
        assert_eq!(number_text(0.125, true), "0.125");
        assert_eq!(number_text(-2.5, true), "-2.5");
    }
}
