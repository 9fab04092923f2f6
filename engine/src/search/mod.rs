//! The search: a library API (position, limits, parameters, an `info` callback)
//! that knows no protocol. (Placeholder: plain iterative-deepening alpha-beta,
//! until the full search lands.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::Move;

use crate::eval::Evaluator;
use crate::params::Params;
use crate::position::{Game, Position};

/// Deepest ply the search stacks are sized for.
pub const MAX_PLY: usize = 128;
/// Score of delivering mate at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;

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

/// The side to move's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time_ms: u64,
    pub inc_ms: u64,
    pub movestogo: Option<u32>,
}

/// What bounds one search. Several limits may be combined; the first reached stops it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<Clock>,
    /// Search until stopped (also while pondering).
    pub infinite: bool,
    /// Time kept in reserve for communication lag, subtracted from every time budget.
    pub move_overhead_ms: u64,
}

/// Shared flags another thread uses to steer a running search.
#[derive(Debug, Default)]
pub struct Control {
    /// Set to stop the search as soon as possible.
    pub stop: AtomicBool,
    /// While set, time limits are ignored (pondering); clearing it is `ponderhit`.
    pub pondering: AtomicBool,
}

/// One iteration's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    /// Per mille of the transposition table in use.
    pub hashfull: u32,
    pub time_ms: u64,
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the root has no legal move.
    pub best_move: Option<Move>,
    pub ponder_move: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
}

/// Search statistics accumulated since the last [`Searcher::reset_stats`]
/// (`occam bench --stats`, the `SearchStats` UCI option).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    pub nodes: u64,
    pub qnodes: u64,
}

impl std::fmt::Display for SearchStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "nodes {} qnodes {}", self.nodes, self.qnodes)
    }
}

/// A search instance: owns its parameters, evaluator and tables.
pub struct Searcher {
    params: Params,
    eval: Evaluator,
    hash_mb: usize,
    nodes: u64,
    seldepth: u32,
    start: Instant,
    stopped: bool,
    stats: SearchStats,
}

impl Searcher {
    pub fn new(params: Params, hash_mb: usize) -> Self {
        let eval = Evaluator::new(&params);
        Searcher {
            params,
            eval,
            hash_mb,
            nodes: 0,
            seldepth: 0,
            start: Instant::now(),
            stopped: false,
            stats: SearchStats::default(),
        }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Replaces the parameters and rebuilds every table derived from them.
    pub fn set_params(&mut self, params: Params) {
        self.eval.refresh(&params);
        self.params = params;
    }

    /// Resizes the transposition table (clears it).
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.hash_mb = mb;
    }

    /// Statistics since the last reset.
    pub fn stats(&self) -> &SearchStats {
        &self.stats
    }

    pub fn reset_stats(&mut self) {
        self.stats = SearchStats::default();
    }

    /// Forgets everything learned (new game).
    pub fn clear(&mut self) {}

    /// Per mille of the transposition table in use.
    pub fn hashfull(&self) -> u32 {
        0
    }

    /// Static evaluation of a position with this searcher's parameters.
    pub fn evaluator(&mut self) -> &mut Evaluator {
        &mut self.eval
    }

    /// Searches `game.position` within `limits`, reporting each iteration to `on_info`.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &Control,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.start = Instant::now();
        self.nodes = 0;
        self.stopped = false;
        let root = &game.position;
        let moves = root.legal_moves();
        let mut result = SearchResult {
            best_move: moves.first().copied(),
            ponder_move: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
        };
        if moves.is_empty() {
            return result;
        }
        let max_depth = limits.depth.unwrap_or(64).clamp(1, MAX_PLY as u32 - 1);
        for depth in 1..=max_depth {
            self.seldepth = 0;
            let mut best = -MATE - 1;
            let mut best_move = moves[0];
            for &m in moves.iter() {
                let v = -self.negamax(
                    &root.play(m),
                    depth - 1,
                    1,
                    -MATE - 1,
                    -best,
                    limits,
                    control,
                );
                if self.stopped {
                    break;
                }
                if v > best {
                    best = v;
                    best_move = m;
                }
            }
            if self.stopped && depth > 1 {
                break;
            }
            result = SearchResult {
                best_move: Some(best_move),
                ponder_move: None,
                score: Score::from_internal(best),
                depth,
                nodes: self.nodes,
            };
            let time_ms = self.start.elapsed().as_millis() as u64;
            on_info(&SearchInfo {
                depth,
                seldepth: self.seldepth,
                score: result.score,
                nodes: self.nodes,
                nps: self.nodes * 1000 / time_ms.max(1),
                hashfull: 0,
                time_ms,
                pv: vec![best_move],
            });
            if self.stopped || self.out_of_time(limits, control, true) {
                break;
            }
        }
        result.nodes = self.nodes;
        self.stats.nodes += self.nodes;
        result
    }

    fn out_of_time(&self, limits: &Limits, control: &Control, soft: bool) -> bool {
        if control.stop.load(Ordering::Relaxed) {
            return true;
        }
        if limits.nodes.is_some_and(|n| self.nodes >= n) {
            return true;
        }
        if limits.infinite || control.pondering.load(Ordering::Relaxed) {
            return false;
        }
        let elapsed = self.start.elapsed().as_millis() as u64;
        if let Some(mt) = limits.movetime_ms {
            return elapsed + limits.move_overhead_ms >= mt;
        }
        if let Some(c) = limits.clock {
            let budget = c.time_ms.saturating_sub(limits.move_overhead_ms) / 30 + c.inc_ms / 2;
            return elapsed >= if soft { budget / 2 } else { budget };
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
        limits: &Limits,
        control: &Control,
    ) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes % 1024 == 0 && self.out_of_time(limits, control, false) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() {
                -MATE + ply as i32
            } else {
                0
            };
        }
        if depth == 0 || ply as usize >= MAX_PLY - 1 {
            return self.eval.evaluate(pos);
        }
        for &m in moves.iter() {
            let v = -self.negamax(
                &pos.play(m),
                depth - 1,
                ply + 1,
                -beta,
                -alpha,
                limits,
                control,
            );
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        alpha
    }
}
