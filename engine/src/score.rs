//! Score units, a leaf every other module may use: the tapered middlegame/endgame
//! pair [`S`] of the evaluation, the search's internal scores (centipawns, mate and
//! tablebase-win bands) and their UCI form [`Score`].
//!
//! From the side to move's point of view, internal scores are ordered
//! `-INF < -MATE ..= -MATE_BOUND < -TB_WIN ..= -TB_WIN_BOUND < centipawns <
//! TB_WIN_BOUND ..= TB_WIN < MATE_BOUND ..= MATE < INF`; [`NO_SCORE`] lies outside.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Deepest ply the search stacks are sized for.
pub const MAX_PLY: usize = 128;
/// Score of delivering mate at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Larger than any score.
pub const INF: i32 = MATE + 1;
/// Marks "no static eval" (in check) in the search stack and the TT.
pub const NO_SCORE: i32 = -INF - 1;

/// A tablebase win `n` plies from the root scores `TB_WIN - n`: above every
/// evaluation, below every mate score (a mate found by the search stays preferred).
pub const TB_WIN: i32 = MATE_BOUND - 1 - MAX_PLY as i32;
/// Scores at or beyond this magnitude are tablebase wins (or mates).
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// The static evaluation's largest magnitude: whatever the parameters, an evaluation
/// stays below every tablebase-win and mate score.
pub const EVAL_MAX: i32 = TB_WIN_BOUND - 1;

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// Converts an internal score (centipawns or `±(MATE - plies)`).
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

/// A middlegame/endgame score pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

impl S {
    pub const fn new(mg: i32, eg: i32) -> S {
        S { mg, eg }
    }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        S::new(self.mg + o.mg, self.eg + o.eg)
    }
}
impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        S::new(self.mg - o.mg, self.eg - o.eg)
    }
}
impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        S::new(-self.mg, -self.eg)
    }
}
impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, n: i32) -> S {
        S::new(self.mg * n, self.eg * n)
    }
}
impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}
impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}
