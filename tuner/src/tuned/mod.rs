//! What a tune plays: the parameters it is asked for and plays (`params`), the tuned
//! side of its games, Occam in-process or an external engine (`side`, with `binding`
//! for how a listed parameter reaches an engine's option), and the probe that measures
//! a designed run's perturbations before its first SPSA pair (`probe`).
//!
//! May use the layers below. It uses the update rules (`rules`, for the probe's plan),
//! the design's maths (`design`), the games (`play`), the parameter files
//! (`param_files`) and the base (`interrupt`).

pub mod binding;
pub mod params;
pub mod probe;
pub mod side;
