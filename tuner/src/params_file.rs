//! Parameter files (`params/*.json`): read, checked, laid over the compiled values and
//! rewritten by the `occam_params` crate, shared with `engine/build.rs`.

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
