//! Parameter files in every format the tuner reads and writes, and the two commands
//! that only move values between them.
//!
//! - Occam's own files (`params/*.json`): read, checked, laid over the compiled values
//!   and rewritten by the `occam_params` crate (shared with `engine/build.rs`), whose
//!   API is re-exported here;
//! - [`lists`]: the parameter lists of external engines (OpenBench SPSA text,
//!   weather-factory configs, Occam's schema), read and rewritten in their own format;
//! - [`import`]: `tuner import`, a tune's final values written into those files;
//! - [`export`]: `tuner export`, the values as a Rust module, C header or OpenBench lines.

pub mod export;
pub mod import;
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
