//! Parameter files in every format the tuner reads and writes.
//!
//! - Occam's own files (`params/*.json`): read, checked, laid over the compiled values
//!   and rewritten by the `occam_params` crate (shared with `engine/build.rs`), whose
//!   API is re-exported here;
//! - [`lists`]: the parameter lists of external engines (OpenBench SPSA text,
//!   weather-factory configs, Occam's schema), read and rewritten in their own format.
//!
//! May use only the base layer (`run_files`, `stats`, `text`); the commands that move
//! values between these files (`tuner export`, `tuner import`) live in `exchange`.

pub mod lists;

pub use occam_params::{
    Field, MeasuredBy, ParamFile, Selector, load_all, overlay, write_atomically,
};

/// File paths for a message, joined by `sep`.
pub fn paths_text<P: AsRef<std::path::Path>>(paths: &[P], sep: &str) -> String {
    paths
        .iter()
        .map(|p| p.as_ref().display().to_string())
        .collect::<Vec<_>>()
        .join(sep)
}
