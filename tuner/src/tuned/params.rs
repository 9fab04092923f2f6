//! The parameters a tune is asked for ([`Requested`]: gains where a file gives them)
//! and the parameters it plays ([`TunedParam`]: gains resolved), shared by the tuned
//! side, the probe, the run's journal and its reports.

use serde::{Deserialize, Serialize};

use crate::design::Request;
use crate::rules::Param;

/// One tuned parameter as the server sees it: its `c_end` and `r_end` are what the run
/// plays (the file's, or designed), resolved when the run began.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedParam {
    pub name: String,
    pub start: f64,
    pub min: i32,
    pub max: i32,
    pub c_end: f64,
    pub r_end: f64,
}

impl TunedParam {
    /// The parameter as a rule set tunes it.
    pub fn rule_param(&self) -> Param {
        Param {
            start: self.start,
            min: self.min,
            max: self.max,
            c_end: self.c_end,
            r_end: self.r_end,
        }
    }

    /// How far `theta` lies from the start, in units of `c_end` (signed).
    pub fn change_c_end(&self, theta: f64) -> f64 {
        (theta - self.start) / self.c_end
    }
}

/// The indices of `params`, those whose `theta` moved furthest from their start (in
/// units of `c_end`) first; equal movers keep the run's order.
pub fn by_movement(params: &[TunedParam], theta: &[f64]) -> Vec<usize> {
    let moved = |i: usize| params[i].change_c_end(theta[i]).abs();
    let mut order: Vec<usize> = (0..params.len()).collect();
    order.sort_by(|&a, &b| moved(b).total_cmp(&moved(a)));
    order
}

/// A parameter a new run is asked to tune, in the server's units, before its gains are
/// resolved: `c_end`/`r_end` where its file gives them, `None` where it leaves them to
/// the design.
#[derive(Clone, Debug, PartialEq)]
pub struct Requested {
    pub name: String,
    pub start: f64,
    pub min: i32,
    pub max: i32,
    pub c_end: Option<f64>,
    pub r_end: Option<f64>,
}

impl Requested {
    /// Whether the file gives both `c_end` and `r_end`.
    pub fn given(&self) -> bool {
        self.c_end.is_some() && self.r_end.is_some()
    }

    /// The parameter as the design sees it.
    pub fn design_request(&self) -> Request {
        Request {
            min: f64::from(self.min),
            max: f64::from(self.max),
            c_end: self.c_end,
            r_end: self.r_end,
        }
    }

    /// The parameter as the run tunes it, with the gains it plays.
    pub fn resolve(&self, c_end: f64, r_end: f64) -> TunedParam {
        TunedParam {
            name: self.name.clone(),
            start: self.start,
            min: self.min,
            max: self.max,
            c_end,
            r_end,
        }
    }
}

impl From<&occam_params::Param> for Requested {
    /// A file entry as a run tunes it: from its current `value`.
    fn from(e: &occam_params::Param) -> Requested {
        Requested {
            name: e.name.clone(),
            start: f64::from(e.value),
            min: e.min,
            max: e.max,
            c_end: e.c_end,
            r_end: e.r_end,
        }
    }
}
