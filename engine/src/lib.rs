//! Occam: a UCI chess engine whose every search margin and evaluation weight is a
//! run-time parameter.
//!
//! Data flows one way: `params/*.json` -> [`params::Params`] -> [`eval`] and
//! [`search`] -> games. The search is a library API that knows no protocol: the
//! [`uci`] loop and the tuner's in-process games drive the very same code.

pub mod bench;
pub mod eval;
pub mod genfens;
pub mod movegen;
pub mod params;
pub mod perft;
pub mod position;
pub mod prefetch;
pub mod rays;
pub mod score;
pub mod search;
pub mod tablebase;
pub mod uci;

pub use params::Params;
pub use position::{Game, Position};
