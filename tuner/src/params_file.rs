//! Parameter files (`params/*.json`): read, checked, laid over the compiled values and
//! rewritten by the `occam_params` crate, shared with `engine/build.rs`.

pub use occam_params::{
    Field, MeasuredBy, ParamFile, Selector, load_all, overlay, write_atomically,
};
