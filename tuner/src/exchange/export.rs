//! `tuner export`: the parameter values as a frozen Rust module, a C header or
//! OpenBench SPSA input lines. OpenBench needs every parameter's `c_end` and `r_end`:
//! where a file leaves them out, the export writes the design's (`design`): its
//! prior c, which no probe has checked, and its r.
//!
//! The text comes from `occam_params::render`, the same renderer `engine/build.rs`
//! uses for the `frozen` feature, so an exported module and the frozen build agree.
//! Other subcommands (`verify`, SPSA) call [`render`] with provenance lines (tuning
//! parameters, games, SPRT result, bench) that end up in the header comment.

use std::path::PathBuf;

use anyhow::{Context, Result};
use occam_params::render;

use crate::design;
use crate::param_files::{ParamFile, load_all, write_atomically};
use crate::run_files;

/// Output format of the export.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A Rust module of `pub const NAME: i32 = value;`.
    Rust,
    /// A C header of `#define OCCAM_NAME (value)`.
    C,
    /// OpenBench SPSA input: `name, int, value, min, max, c_end, r_end` (c_end and
    /// r_end designed where a file leaves them out).
    Openbench,
}

#[derive(clap::Args)]
pub struct Args {
    /// Parameter files to export, e.g. params/search.json params/eval.json params/pknet.json.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Rust)]
    pub format: Format,
    /// Write to this file (atomically: a temporary file, then a rename) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Extra provenance line for the header comment (repeatable), e.g. "SPRT: H1 accepted".
    #[arg(long, value_name = "TEXT")]
    pub note: Vec<String>,
}

/// The `(c_end, r_end)` of every entry for an OpenBench tune: the file's where given, as
/// written; the design's elsewhere (four significant digits), its prior c unprobed and
/// its r for fishtest's reference game variance with no bound on the games (the
/// precision's r before averaging, [`design::r_within`]: an OpenBench tune is long
/// and writes back its last θ).
pub fn openbench_ends(entries: &[occam_params::Param]) -> Vec<Option<(f64, f64)>> {
    let requests: Vec<design::Request> = entries
        .iter()
        .map(|e| design::Request {
            min: f64::from(e.min),
            max: f64::from(e.max),
            c_end: e.c_end,
            r_end: e.r_end,
        })
        .collect();
    // OpenBench writes back the last θ, not an average: the r whose noise ball in θ
    // itself is the precision.
    let r = design::r_within(
        design::PRECISION,
        requests.len(),
        design::PRIOR_GAME_VARIANCE,
    );
    design::gains(&requests, 1.0, r)
        .into_iter()
        .map(|g| {
            let shown = |v: f64, designed: bool| if designed { design::rounded(v) } else { v };
            Some((shown(g.c, g.designed_c), shown(g.r, g.designed_r)))
        })
        .collect()
}

/// Renders the `value` of every parameter in `files` (in the given order).
/// `provenance` lines go into the header comment of the Rust and C formats; the
/// OpenBench format has no comment syntax, so it carries none, and writes designed
/// `c_end`/`r_end` where a file leaves them out.
pub fn render(files: &[ParamFile], format: Format, provenance: &[String]) -> String {
    let entries: Vec<_> = files.iter().flat_map(|f| &f.entries).cloned().collect();
    match format {
        Format::Rust => render::rust_consts(&entries, provenance),
        Format::C => render::c_header(&entries, provenance),
        Format::Openbench => render::openbench(&entries, &openbench_ends(&entries)),
    }
}

pub fn run(args: Args) -> Result<()> {
    let files = load_all(&args.files)?;
    let sources: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    let mut provenance = vec![format!(
        "Exported by `tuner export` from {}.",
        sources.join(", ")
    )];
    provenance.extend(args.note.iter().cloned());
    let text = render(&files, args.format, &provenance);
    match &args.output {
        Some(path) => {
            let _lock = run_files::lock_outputs([(path.as_path(), "--output")])?;
            write_atomically(path, &text)
                .with_context(|| format!("cannot write the export to {}", path.display()))
        }
        None => {
            // A reader that stops early (`| head`) is no error: nothing more is wanted.
            match std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("cannot write the export to standard output")
                }
                _ => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use occam::params::PARAM_SPECS;
    use std::collections::BTreeSet;
    use std::path::Path;

    fn shipped() -> Vec<ParamFile> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../params");
        load_all(&[
            dir.join("search.json"),
            dir.join("eval.json"),
            dir.join("pknet.json"),
        ])
        .unwrap()
    }

    #[test]
    fn rust_export_declares_every_parameter_value_once() {
        let text = render(&shipped(), Format::Rust, &["tuned by test".to_string()]);
        assert!(text.contains("// tuned by test"), "{text}");
        for spec in &PARAM_SPECS {
            let decl = format!(
                "pub const {}: i32 = {};",
                spec.name.to_ascii_uppercase(),
                spec.value
            );
            assert_eq!(text.matches(&decl).count(), 1, "{decl}");
        }
        assert_eq!(text.matches("pub const ").count(), PARAM_SPECS.len());
    }

    #[test]
    fn c_export_is_guarded_and_defines_every_parameter() {
        let text = render(&shipped(), Format::C, &["a */ comment breaker".to_string()]);
        assert!(text.starts_with("/*"));
        assert_eq!(text.matches("*/").count(), PARAM_SPECS.len() + 2, "{text}");
        assert!(
            text.contains("#ifndef OCCAM_PARAMS_H")
                && text.trim_end().ends_with("#endif /* OCCAM_PARAMS_H */")
        );
        for spec in &PARAM_SPECS {
            let define = format!(
                "#define OCCAM_{} ({})",
                spec.name.to_ascii_uppercase(),
                spec.value
            );
            assert!(text.contains(&define), "{define}");
        }
    }

    /// The checks OpenBench's server applies to SPSA input, as it applies them: split
    /// on `\n`, seven comma-separated fields in every piece, type `int` or `float`,
    /// min <= value <= max, r_end > 0, and c_end > 0 for floats.
    fn openbench_accepts(text: &str) -> Result<(), String> {
        for (i, piece) in text.split('\n').enumerate() {
            let fields: Vec<&str> = piece.split(',').map(str::trim).collect();
            let [_name, kind, value, min, max, c_end, r_end] = fields[..] else {
                return Err(format!("piece {i} {piece:?}: not 7 fields"));
            };
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|e| format!("piece {i}: {s:?}: {e}"))
            };
            let (value, min, max, c_end, r_end) =
                (num(value)?, num(min)?, num(max)?, num(c_end)?, num(r_end)?);
            if kind != "int" && kind != "float" {
                return Err(format!("piece {i}: type {kind:?}"));
            }
            if !(min <= value && value <= max) {
                return Err(format!("piece {i}: value outside [min, max]"));
            }
            if r_end <= 0.0 || (kind == "float" && c_end <= 0.0) {
                return Err(format!("piece {i}: c_end {c_end} / r_end {r_end}"));
            }
        }
        Ok(())
    }

    #[test]
    fn openbench_export_passes_openbench_input_rules() {
        let text = render(&shipped(), Format::Openbench, &[]);
        assert!(
            !text.ends_with('\n'),
            "a trailing newline is a malformed empty piece"
        );
        openbench_accepts(&text).unwrap();
        // The checker itself rejects what OpenBench rejects.
        assert!(openbench_accepts(&format!("{text}\n")).is_err());
        assert!(openbench_accepts("a, int, 5, 0, 3, 1, 0.002").is_err());
    }

    #[test]
    fn openbench_export_matches_the_engine_params_command() {
        let text = render(&shipped(), Format::Openbench, &["ignored".to_string()]);
        let exported: BTreeSet<&str> = text.lines().collect();
        let engine = occam::Params::default().openbench_lines();
        let from_engine: BTreeSet<&str> = engine.lines().collect();
        assert_eq!(exported, from_engine);
        assert_eq!(text.lines().count(), PARAM_SPECS.len());
    }

    #[test]
    fn openbench_export_designs_what_a_file_leaves_out() {
        let text = r#"{"group": "x", "description": "d", "params": [
{"name": "razor_base", "value": 20, "start": 20, "min": 5, "max": 150, "unit": "cp", "description": "d"},
{"name": "razor_max", "value": 5, "start": 5, "min": 0, "max": 9, "c_end": 1, "r_end": 0.002, "unit": "cp", "description": "d"},
{"name": "razor_depth", "value": 5, "start": 5, "min": 0, "max": 9, "c_end": 1.5, "unit": "cp", "description": "d"}
]}"#;
        let file = ParamFile::parse(Path::new("x.json"), text.to_string()).unwrap();
        let ends = openbench_ends(&file.entries);
        let r = design::rounded(design::r_within(
            design::PRECISION,
            3,
            design::PRIOR_GAME_VARIANCE,
        ));
        assert_eq!(
            ends,
            [
                Some(((150.0 - 5.0) / 4.0, r)),
                Some((1.0, 0.002)),
                Some((1.5, r))
            ]
        );
        let lines = render(std::slice::from_ref(&file), Format::Openbench, &[]);
        assert_eq!(
            lines,
            format!(
                "razor_base, int, 20, 5, 150, 36.25, {r}\nrazor_max, int, 5, 0, 9, 1, 0.002\nrazor_depth, int, 5, 0, 9, 1.5, {r}"
            )
        );
        openbench_accepts(&lines).unwrap();
    }
}
