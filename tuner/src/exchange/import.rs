//! `tuner import`: the final values of a tune run elsewhere, written into parameter
//! files.
//!
//! Input: OpenBench's final values (`name, value` lines as its tune page and
//! `/api/spsa/<id>/outputs/` show them, values possibly printed as floats such as
//! `150.0`), its digest (`/api/spsa/<id>/digest/`: a `Name,Curr,Start,…` header and
//! one row per parameter, the current value taken to its four decimals), a
//! fishtest-style `name,value` list, or full OpenBench SPSA input lines (`name, int,
//! value, min, max, c_end, r_end`, or without `c_end, r_end`: the value is taken). Targets: Occam's `params/*.json` or an external
//! engine's list (OpenBench text, weather-factory config), each written in its own
//! format. Integers are rounded, values outside a parameter's bounds are clamped (one
//! message each), unknown names are refused before anything is written, and every
//! file is replaced atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::param_files::lists::{ParamList, number_text};
use crate::run_files::WriteLocks;

#[derive(clap::Args)]
pub struct Args {
    /// The tune's final values: `name, value` lines (OpenBench, fishtest), OpenBench's
    /// digest (`/api/spsa/<id>/digest/`) or OpenBench SPSA input lines. `-` reads stdin.
    #[arg(value_name = "VALUES")]
    pub values: PathBuf,
    /// The files to write the values into: params/*.json, or an external engine's
    /// OpenBench SPSA text or weather-factory config.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Show what would change without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

/// One imported value and where its text came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub name: String,
    pub value: f64,
    pub line: usize,
}

/// The header of OpenBench's SPSA digest (`/api/spsa/<id>/digest/`): a row per
/// parameter follows, its current value in `Curr`.
pub const DIGEST_HEADER: &str = "Name,Curr,Start,Min,Max,C,C_end,R,R_end";

/// Reads `name, value` (or seven- or five-field OpenBench) lines, or an OpenBench
/// digest (its header first); blank lines and `#` comments are skipped. A name given
/// twice is refused.
pub fn parse_values(text: &str, source: &str) -> Result<Vec<Imported>> {
    let mut out: Vec<Imported> = Vec::new();
    let mut digest = false;
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if out.is_empty() && !digest && line == DIGEST_HEADER {
            digest = true;
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (name, value) = match (digest, &fields[..]) {
            (true, [name, current, _, _, _, _, _, _, _]) => (*name, *current),
            (true, _) => bail!(
                "{source} line {}: expected a digest row of 9 fields ({DIGEST_HEADER}), got '{line}'",
                number + 1
            ),
            (false, [name, value]) => (*name, *value),
            (false, [name, _kind, value, _, _, _, _] | [name, _kind, value, _, _]) => {
                (*name, *value)
            }
            _ => bail!(
                "{source} line {}: expected `name, value` (or OpenBench's `name, int, value, min, max[, c_end, r_end]`, or its digest), got '{line}'",
                number + 1
            ),
        };
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .with_context(|| {
                format!(
                    "{source} line {}: value '{value}' of '{name}' is not a number",
                    number + 1
                )
            })?;
        if name.is_empty() {
            bail!("{source} line {}: no parameter name", number + 1);
        }
        if let Some(earlier) = out.iter().find(|i| i.name == name) {
            bail!(
                "{source}: '{name}' is given twice (lines {} and {})",
                earlier.line,
                number + 1
            );
        }
        out.push(Imported {
            name: name.to_string(),
            value,
            line: number + 1,
        });
    }
    if out.is_empty() {
        bail!("{source} holds no `name, value` lines");
    }
    Ok(out)
}

/// What an import does to the files: the new values per file, and one message per
/// value that was clamped.
pub struct Plan {
    pub values: Vec<Vec<f64>>,
    pub clamped: Vec<String>,
    pub rounded: usize,
    pub changed: usize,
    pub untouched: usize,
}

/// Matches the imported values to the files' parameters: rounds integers, clamps to
/// the bounds, and refuses names no file has (all of them in one message).
pub fn plan(lists: &[ParamList], imported: &[Imported]) -> Result<Plan> {
    let mut place: HashMap<&str, (usize, usize)> = HashMap::new();
    for (fi, list) in lists.iter().enumerate() {
        for (ei, p) in list.params.iter().enumerate() {
            place.insert(p.name.as_str(), (fi, ei));
        }
    }
    let unknown: Vec<&str> = imported
        .iter()
        .map(|i| i.name.as_str())
        .filter(|n| !place.contains_key(n))
        .collect();
    if !unknown.is_empty() {
        let files: Vec<String> = lists.iter().map(|l| l.path.display().to_string()).collect();
        bail!(
            "{} has no parameter named {}: nothing was written (import into the files that declare them, or check the spelling)",
            files.join(", "),
            unknown.join(", ")
        );
    }
    let mut values: Vec<Vec<f64>> = lists
        .iter()
        .map(|l| l.params.iter().map(|p| p.value).collect())
        .collect();
    let (mut clamped, mut rounded, mut changed) = (Vec::new(), 0, 0);
    for i in imported {
        let (fi, ei) = place[i.name.as_str()];
        let p = &lists[fi].params[ei];
        let mut v = i.value;
        if !p.float && v != v.round() {
            v = v.round();
            rounded += 1;
        }
        let bounded = v.clamp(p.min, p.max);
        if bounded != v {
            clamped.push(format!(
                "{}: {} lies outside [{}, {}]: clamped to {}",
                i.name,
                number_text(i.value, p.float || i.value != i.value.round()),
                number_text(p.min, p.float),
                number_text(p.max, p.float),
                number_text(bounded, p.float)
            ));
        }
        if bounded != p.value {
            changed += 1;
        }
        values[fi][ei] = bounded;
    }
    let total: usize = lists.iter().map(|l| l.params.len()).sum();
    Ok(Plan {
        values,
        clamped,
        rounded,
        changed,
        untouched: total - imported.len(),
    })
}

pub fn run(args: Args) -> Result<()> {
    let (text, source) = if args.values == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read the values from stdin")?;
        (text, "stdin".to_string())
    } else {
        let text = std::fs::read_to_string(&args.values)
            .with_context(|| format!("cannot read {}", args.values.display()))?;
        (text, args.values.display().to_string())
    };
    let imported = parse_values(&text, &source)?;
    write(&imported, &source, &args.files, args.dry_run)
}

/// Writes `imported` (read from `source`) into `files`, each replaced atomically after
/// all of them rendered, under their write locks; `dry_run` only says what would change.
pub fn write(imported: &[Imported], source: &str, files: &[PathBuf], dry_run: bool) -> Result<()> {
    let _locks = if dry_run {
        WriteLocks::default()
    } else {
        WriteLocks::acquire(files)?
    };
    let mut lists = files
        .iter()
        .map(|p| ParamList::load(p))
        .collect::<Result<Vec<_>>>()?;
    let plan = plan(&lists, imported)?;
    for message in &plan.clamped {
        eprintln!("import: {message}");
    }
    // Every file is rendered before any is written: an error leaves all of them as they were.
    for (list, values) in lists.iter().zip(&plan.values) {
        list.render(values)?;
    }
    if !dry_run {
        for (list, values) in lists.iter_mut().zip(&plan.values) {
            list.write_values(values)?;
        }
    }
    eprintln!(
        "import: {} values from {source}{}: {} changed, {} rounded to integers, {} clamped; {} parameters of the files were not in the list and kept their values{}",
        imported.len(),
        if dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        },
        plan.changed,
        plan.rounded,
        plan.clamped.len(),
        plan.untouched,
        if dry_run {
            String::new()
        } else {
            format!("; wrote {}", crate::param_files::paths_text(files, ", "))
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(name: &str, text: &str) -> ParamList {
        ParamList::parse(Path::new(name), text.to_string()).unwrap()
    }

    /// The texts a real OpenBench instance returned for a tune that played 640 games
    /// (tests/data/openbench): its outputs are the digest's current values rounded to
    /// integers, and its input lines give the digest's start values.
    #[test]
    fn openbench_outputs_digest_and_inputs_agree() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/openbench");
        let read = |name: &str| std::fs::read_to_string(data.join(name)).unwrap();
        let values = |name: &str| -> Vec<(String, f64)> {
            parse_values(&read(name), name)
                .unwrap()
                .into_iter()
                .map(|i| (i.name, i.value))
                .collect()
        };
        let (outputs, digest, inputs) = (
            values("outputs.txt"),
            values("digest.txt"),
            values("inputs.txt"),
        );
        assert_eq!(outputs.len(), 4, "{outputs:?}");
        let rounded: Vec<(String, f64)> =
            digest.iter().map(|(n, v)| (n.clone(), v.round())).collect();
        assert_eq!(outputs, rounded);
        assert_ne!(digest, inputs, "the tune moved its values");
        let starts: Vec<(String, f64)> = read("digest.txt")
            .lines()
            .skip(1)
            .map(|row| {
                let f: Vec<&str> = row.split(',').collect();
                (f[0].to_string(), f[2].parse().unwrap())
            })
            .collect();
        assert_eq!(inputs, starts);
    }

    #[test]
    fn a_digest_takes_the_current_value_to_four_decimals() {
        let text = format!("{DIGEST_HEADER}\nlmr_div,176.4321,177,100,400,12.0,10.0,0.003,0.002\n");
        let v = parse_values(&text, "t").unwrap();
        assert_eq!(
            (v[0].name.as_str(), v[0].value, v[0].line),
            ("lmr_div", 176.4321, 2)
        );
        let short = format!("{DIGEST_HEADER}\nlmr_div, 176\n");
        let err = parse_values(&short, "t").unwrap_err().to_string();
        assert!(err.contains("line 2") && err.contains("9 fields"), "{err}");
    }

    #[test]
    fn value_lines_of_every_shape_are_read() {
        let text = "# final values\nrazor_base, 150.0\r\nlmr_div,2\n\nfut, int, 101, 0, 300, 10, 0.002\nrfp, int, 70, 0, 200\n";
        let v = parse_values(text, "t").unwrap();
        let pairs: Vec<(&str, f64)> = v.iter().map(|i| (i.name.as_str(), i.value)).collect();
        assert_eq!(
            pairs,
            [
                ("razor_base", 150.0),
                ("lmr_div", 2.0),
                ("fut", 101.0),
                ("rfp", 70.0)
            ]
        );
        for bad in [
            "a",
            "a, 1, 2",
            "a, x",
            "a, inf",
            ", 3",
            "a, 1\na, 2",
            "",
            "# only\n",
        ] {
            assert!(parse_values(bad, "t").is_err(), "{bad:?}");
        }
        let err = parse_values("a, 1\nb, 2\na, 3", "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("lines 1 and 3"), "{err}");
    }

    #[test]
    fn integers_are_rounded_and_out_of_range_values_clamped() {
        let l = list(
            "e.spsa",
            "A, int, 10, 0, 100, 5, 0.002\nB, float, 0.5, 0.0, 1.0, 0.05, 0.002\nC, int, 7, 0, 9, 1, 0.002",
        );
        let imported = parse_values("A, 150.0\nB, 0.123\nC, 3.6", "t").unwrap();
        let p = plan(std::slice::from_ref(&l), &imported).unwrap();
        assert_eq!(p.values[0], [100.0, 0.123, 4.0]);
        assert_eq!(p.clamped.len(), 1);
        assert!(
            p.clamped[0].contains("A: 150 lies outside [0, 100]: clamped to 100"),
            "{:?}",
            p.clamped
        );
        assert_eq!((p.rounded, p.changed, p.untouched), (1, 3, 0));
        let err = plan(
            std::slice::from_ref(&l),
            &parse_values("A, 1\nZ, 2\nY, 3", "t").unwrap(),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("no parameter named Z, Y"), "{err}");
    }
}
