//! Occam's parameter files, `params/*.json`: the one place that knows their shape.
//!
//! - [`Param`]: one entry (name, value, start, bounds, SPSA constants, unit,
//!   description). The engine's compiled table is `[Param<&'static str>]`
//!   ([`ParamSpec`]); a loaded file holds `Param<String>`s.
//! - [`Table`]: what a set of values following a compiled table offers (the engine's
//!   `Params` implements it), so files can be laid over it ([`overlay`]).
//! - [`RENAMED`]: parameters that changed name; their old names are still read.
//! - [`Selector`]: the `--params` rule of every tuner command (exact names and
//!   `prefix_*`).
//! - [`render`]: the frozen Rust module, the C header and OpenBench's SPSA lines.
//! - With feature `json`: [`ParamFile`] reads and checks a file (bounds, unique names;
//!   with feature `schema` also `params/schema.json`) and writes new values back,
//!   changing only the `value` numbers, atomically.

mod param;
pub mod render;
mod select;

#[cfg(feature = "json")]
mod file;

pub use param::{Error, MeasuredBy, Param, ParamSpec, RENAMED, Table, rename_note, renamed};
pub use select::Selector;

#[cfg(feature = "json")]
pub use file::{Field, MARKER, ParamFile, load_all, overlay, parameter_files_in, write_atomically};
