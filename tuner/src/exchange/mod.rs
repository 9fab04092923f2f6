//! The commands that move values between parameter files and other engines' formats:
//! `tuner export` (the values as a Rust module, a C header or OpenBench's SPSA lines,
//! with the design's gains where a file leaves them out) and `tuner import` (a tune's
//! final `name, value` lines written back into the files they came from), and `tuner
//! openbench` (the design's gains for an OpenBench tune, following it, and its average).
//!
//! A command: may use every layer below (the parameter files, the design's maths, the
//! base).

pub mod export;
pub mod import;
pub mod openbench;
