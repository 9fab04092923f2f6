//! The search: a library API (position, limits, parameters, an `info` callback)
//! that knows no protocol. Iterative deepening with aspiration windows over a
//! principal variation search with a transposition table, staged move ordering,
//! quiescence search and the usual selectivity, every margin a parameter of
//! `params/search.json`. Each technique has one section named after its prefix.

mod correction;
pub mod history;
pub mod movepick;
mod qsearch;
mod root;
pub mod see;
mod smp;
pub mod stats;
mod syzygy;
pub mod time;
pub mod tt;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Move, Position as _};

use crate::eval::Evaluator;
use crate::movegen::is_noisy;
use crate::params::Params;
use crate::position::{Game, Position};
pub use crate::score::{INF, MATE, MATE_BOUND, MAX_PLY, NO_SCORE, Score};
use crate::tablebase::{ProbeSettings, Tablebases};
use correction::{CorrectionHistory, CorrectionKeys};
use history::{ContKeys, History, piece_to};
use movepick::MovePicker;
use see::{SeeValues, see_below};
pub use stats::{CutKind, SearchStats};
use time::TimeManager;
use tt::{Bound, TranspositionTable, TtHit, eval_from_tt};

/// How often (in nodes) the clock and the stop flag are polled.
const CHECK_EVERY_NODES: u64 = 1024;
/// Most search threads (`Threads`).
pub const MAX_THREADS: usize = 256;
/// Most lines `MultiPV` may ask for.
pub const MAX_MULTI_PV: usize = 256;
/// Stack of a search thread: the search recurses up to MAX_PLY deep with a copied
/// position and two move lists per frame.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

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
    /// No time limit (as while pondering): only the depth/node limit or `stop` ends
    /// the search. Holding the result until `stop` is the caller's business.
    pub infinite: bool,
    /// Time kept in reserve for communication lag, subtracted from the clock budget
    /// (from a movetime only up to a small share of it).
    pub move_overhead_ms: u64,
    /// `go searchmoves`: the root considers only these (those legal; empty: all).
    pub searchmoves: Vec<Move>,
    /// `go mate N`: stop once a mate in at most N moves is proven.
    pub mate: Option<u32>,
    /// MultiPV: how many best lines to search and report (0 and 1: one).
    pub multi_pv: usize,
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
    /// Which line this is (1 = best) when several are searched (MultiPV).
    pub multipv: usize,
    pub score: Score,
    pub nodes: u64,
    pub nps: u64,
    /// Per mille of the transposition table in use.
    pub hashfull: u32,
    /// Tablebase probes that answered (all threads).
    pub tbhits: u64,
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

/// Per-ply search state (the stack is indexed by ply, never by draft).
#[derive(Clone, Copy, Debug)]
struct Frame {
    static_eval: i32,
    /// Integral's dynamic improving rate in hundredths (0..=100).
    improving_rate: i32,
    /// Move played from this ply (`None` for a null move).
    current_move: Option<Move>,
    /// cont_hist_: piece-to slot of `current_move` (`None` for a null move).
    cont_key: Option<usize>,
    /// Move excluded by a singular-extension search at this ply.
    excluded: Option<Move>,
    /// A null move was played from this ply (repetitions are not looked for across it).
    null_move: bool,
    /// ext_double_: double extensions on the path from the root to this ply.
    double_extensions: i32,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            static_eval: NO_SCORE,
            improving_rate: 0,
            current_move: None,
            cont_key: None,
            excluded: None,
            null_move: false,
            double_extensions: 0,
        }
    }
}

/// Shared by every thread of a search and read-only while it runs: the parameters,
/// the tables derived from them and the transposition table (written through
/// atomics, see [`tt`]).
struct Shared {
    params: Params,
    see_values: SeeValues,
    /// LMR table in hundredths of a ply, `[depth][move number]`, built from `lmr_*`.
    lmr: Vec<i32>,
    tt: TranspositionTable,
    /// tb_: Syzygy tables (read-only), how to probe them, probes answered by any thread.
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    tb_hits: AtomicU64,
}

const LMR_SIZE: usize = 64;

fn lmr_table(p: &Params) -> Vec<i32> {
    let mut t = vec![0; LMR_SIZE * LMR_SIZE];
    for d in 1..LMR_SIZE {
        for m in 1..LMR_SIZE {
            let r = (d as f64).ln() * (m as f64).ln() * 10_000.0 / p.lmr_div() as f64;
            t[d * LMR_SIZE + m] = p.lmr_base() + r as i32;
        }
    }
    t
}

impl Shared {
    fn new(params: Params, hash_mb: usize) -> Self {
        Shared {
            see_values: SeeValues::new(&params),
            lmr: lmr_table(&params),
            params,
            tt: TranspositionTable::new(hash_mb),
            tablebases: None,
            tb_settings: ProbeSettings::default(),
            tb_hits: AtomicU64::new(0),
        }
    }

    /// Replaces the parameters and rebuilds every table derived from them.
    fn set_params(&mut self, params: Params) {
        self.see_values = SeeValues::new(&params);
        self.lmr = lmr_table(&params);
        self.params = params;
    }

    /// lmr_: the base reduction in hundredths of a ply.
    #[inline(always)]
    fn lmr_reduction(&self, depth: i32, move_number: usize) -> i32 {
        self.lmr[(depth as usize).min(LMR_SIZE - 1) * LMR_SIZE + move_number.min(LMR_SIZE - 1)]
    }
}

/// What one running search needs besides a thread's own state: the shared tables
/// and the limits.
struct Ctx<'a> {
    shared: &'a Shared,
    /// The other threads of a multi-threaded search (`None` with one thread).
    team: Option<&'a smp::Team>,
    /// Which helper this thread is (1-based); `None` for the main thread.
    helper: Option<usize>,
    control: &'a Control,
    tm: TimeManager,
    node_limit: Option<u64>,
    /// `go infinite`: only `stop` ends the search.
    infinite: bool,
}

/// One search thread's own mutable state. It outlives a search: the histories keep
/// what they learned for the next move of the game.
struct Worker {
    eval: Evaluator,
    history: History,
    correction: Box<CorrectionHistory>,
    stack: Vec<Frame>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Hashes of the game before the root and of the current search path (repetitions).
    keys: Vec<u64>,
    /// Entries of `keys` before the root (the game history).
    root_keys: usize,
    /// searchmoves: the only root moves searched (empty: all).
    root_moves: Vec<Move>,
    /// MultiPV: root moves of the better lines, left out of the current line's search.
    root_excluded: Vec<Move>,
    /// tm_: nodes this search has spent under each root move (all iterations).
    root_move_nodes: Vec<(Move, u64)>,
    nodes: u64,
    /// Nodes of this thread already added to the team's count.
    reported: u64,
    seldepth: usize,
    root_depth: i32,
    /// Null move is disabled below this ply while a null-move cut is verified.
    nmp_min_ply: usize,
    stopped: bool,
    stats: SearchStats,
}

impl Worker {
    fn new(params: &Params) -> Self {
        Worker {
            eval: Evaluator::new(params),
            history: History::default(),
            correction: CorrectionHistory::new_boxed(),
            stack: vec![Frame::default(); MAX_PLY + 4],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            keys: Vec::new(),
            root_keys: 0,
            root_moves: Vec::new(),
            root_excluded: Vec::new(),
            root_move_nodes: Vec::new(),
            nodes: 0,
            reported: 0,
            seldepth: 0,
            root_depth: 0,
            nmp_min_ply: 0,
            stopped: false,
            stats: SearchStats::default(),
        }
    }
}

/// A search instance: the shared part (parameters, derived tables, transposition
/// table) and the state of each thread that searches with it.
pub struct Searcher {
    shared: Shared,
    hash_mb: usize,
    /// The thread that manages time, reports and decides the move.
    main: Worker,
    /// Lazy SMP helpers (`Threads` - 1), see [`smp`].
    helpers: Vec<Worker>,
}

impl Searcher {
    pub fn new(params: Params, hash_mb: usize) -> Self {
        Searcher {
            main: Worker::new(&params),
            shared: Shared::new(params, hash_mb),
            hash_mb,
            helpers: Vec::new(),
        }
    }

    /// Number of search threads (1 to [`MAX_THREADS`]).
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Sets the number of search threads; new helpers start with empty histories.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(format!(
                "Threads must be from 1 to {MAX_THREADS}, got {threads}"
            ));
        }
        let params = &self.shared.params;
        self.helpers.truncate(threads - 1);
        self.helpers
            .resize_with(threads - 1, || Worker::new(params));
        Ok(())
    }

    pub fn params(&self) -> &Params {
        &self.shared.params
    }

    /// tb_: the Syzygy tables the next searches probe (`None`: none) and how.
    pub fn set_tablebases(&mut self, tables: Option<Arc<Tablebases>>, settings: ProbeSettings) {
        self.shared.tablebases = tables;
        self.shared.tb_settings = settings;
    }

    /// Replaces the parameters and rebuilds every table derived from them.
    pub fn set_params(&mut self, params: Params) {
        for w in std::iter::once(&mut self.main).chain(&mut self.helpers) {
            w.eval.refresh(&params);
        }
        self.shared.set_params(params);
    }

    /// Resizes the transposition table (clears it). If the memory cannot be had the
    /// old size is kept; [`Searcher::try_set_hash_mb`] reports that.
    pub fn set_hash_mb(&mut self, mb: usize) {
        let _ = self.try_set_hash_mb(mb);
    }

    /// Resizes the transposition table (clears it), or says why it could not.
    pub fn try_set_hash_mb(&mut self, mb: usize) -> Result<(), String> {
        self.shared.tt.resize(mb)?;
        self.hash_mb = mb;
        Ok(())
    }

    /// Size of the transposition table in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Statistics of the main thread since the last reset.
    pub fn stats(&self) -> &SearchStats {
        &self.main.stats
    }

    pub fn reset_stats(&mut self) {
        self.main.stats = SearchStats::default();
    }

    /// Forgets everything learned (new game): transposition table and histories.
    pub fn clear(&mut self) {
        self.shared.tt.clear();
        for w in std::iter::once(&mut self.main).chain(&mut self.helpers) {
            w.history.clear();
            w.correction.clear();
        }
    }

    /// Per mille of the transposition table in use.
    pub fn hashfull(&self) -> u32 {
        self.shared.tt.hashfull()
    }

    /// Static evaluation of a position with this searcher's parameters.
    pub fn evaluator(&mut self) -> &mut Evaluator {
        &mut self.main.eval
    }

    /// Searches `game.position` within `limits`, reporting each iteration to `on_info`
    /// (with several threads: the main thread's iterations, nodes of all threads).
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &Control,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.shared.tb_hits.store(0, Ordering::Relaxed);
        // tb_: a root the tables cover is answered without searching (syzygy.rs),
        // unless the user asked for what only a search gives (restricted root moves,
        // several lines, a proven mate).
        let plain_root =
            limits.searchmoves.is_empty() && limits.multi_pv <= 1 && limits.mate.is_none();
        if plain_root && let Some(result) = self.tablebase_root(game, on_info) {
            return result;
        }
        self.shared.tt.new_search();
        if !self.helpers.is_empty() {
            return self.search_with_helpers(game, limits, control, on_info);
        }
        let mut ctx = Ctx {
            shared: &self.shared,
            team: None,
            helper: None,
            control,
            tm: TimeManager::new(limits, &self.shared.params),
            node_limit: limits.nodes,
            infinite: limits.infinite,
        };
        self.main
            .iterative_deepening(&mut ctx, game, limits, on_info)
    }
}

impl Worker {
    /// Counts a node and decides whether the search must stop (stop flag, node
    /// limit, hard time limit; time is ignored while pondering or infinite). Once
    /// stopped, the calls made while the search unwinds (a re-search after a
    /// reduced search returned, ProbCut's search after its q-search) count nothing,
    /// so a node limit is never overshot.
    #[inline]
    fn count_node_and_check_stop(&mut self, ctx: &Ctx) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if let Some(team) = ctx.team {
            if self.nodes - self.reported >= team.poll_every {
                self.poll_team(ctx, team);
            }
            return self.stopped;
        }
        if ctx.node_limit.is_some_and(|n| self.nodes > n) {
            self.stopped = true;
        } else if self.nodes.is_multiple_of(CHECK_EVERY_NODES) {
            let time_counts = self.root_depth > 1
                && !ctx.infinite
                && !ctx.control.pondering.load(Ordering::Relaxed);
            if ctx.control.stop.load(Ordering::Relaxed) || time_counts && ctx.tm.hard_expired() {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// Draw by the rules inside the tree: fifty-move rule, insufficient material, or
    /// any earlier occurrence of this position (game history or search path) within
    /// the reversible stretch.
    #[inline(always)]
    fn is_draw(&self, pos: &Position) -> bool {
        // Most nodes come within three plies of a capture or pawn move, with more than
        // four pieces on the board: no repetition (a position recurs at the earliest
        // four plies later: each side must move away and back) and no material draw
        // to look for, answered without the call (the full test below keeps a move
        // list's stack frame).
        if pos.halfmoves() < 4 && pos.board().board().occupied().count() > 4 {
            return false;
        }
        self.is_draw_full(pos)
    }

    #[inline(never)]
    fn is_draw_full(&self, pos: &Position) -> bool {
        let halfmoves = pos.halfmoves() as usize;
        if halfmoves >= 100 {
            // Checkmate on the hundredth half-move still wins.
            return !(pos.is_check() && pos.legal_moves().is_empty());
        }
        let board = pos.board().board();
        if board.occupied().count() <= 4
            && (board.pawns() | board.rooks_and_queens()).is_empty()
            && pos.is_insufficient_material()
        {
            return true;
        }
        // Repetitions: one earlier occurrence inside the tree (after the root) is a
        // draw; before the root it takes two (a threefold with the game history).
        // No repetition is looked for across a null move.
        let h = pos.hash();
        let n = self.keys.len();
        let ply = n.saturating_sub(self.root_keys);
        let mut reps = 0;
        let mut back = 2;
        while back <= halfmoves && back <= n {
            if back <= ply
                && (self.stack[ply - back].null_move || self.stack[ply - back + 1].null_move)
            {
                return false;
            }
            if self.keys[n - back] == h {
                if back < ply {
                    return true;
                }
                reps += 1;
                if reps == 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// tm_: charges `nodes` to root move `m` (the time manager's node share).
    fn add_root_move_nodes(&mut self, m: Move, nodes: u64) {
        match self.root_move_nodes.iter_mut().find(|(rm, _)| *rm == m) {
            Some((_, n)) => *n += nodes,
            None => self.root_move_nodes.push((m, nodes)),
        }
    }

    /// tm_: share of this search's nodes spent under root move `m`, in percent.
    fn root_move_node_pct(&self, m: Move) -> u64 {
        let under = self
            .root_move_nodes
            .iter()
            .find(|(rm, _)| *rm == m)
            .map_or(0, |(_, n)| *n);
        under * 100 / self.nodes.max(1)
    }

    /// searchmoves / MultiPV: a root move this search leaves out.
    #[inline]
    fn skips_root_move(&self, m: &Move) -> bool {
        !self.root_moves.is_empty() && !self.root_moves.contains(m)
            || self.root_excluded.contains(m)
    }

    /// Records the move played from `ply` (`None`: null move) for the children's
    /// counter moves and continuation histories.
    #[inline(always)]
    fn set_current_move(&mut self, ply: usize, m: Option<Move>, color: shakmaty::Color) {
        self.stack[ply].current_move = m;
        self.stack[ply].cont_key = m.map(|m| piece_to(color, &m));
        self.stack[ply].null_move = m.is_none();
    }

    /// cont_hist_: the continuation-history rows of the node at `ply`.
    #[inline(always)]
    fn cont_keys(&self, ply: usize) -> ContKeys {
        ContKeys {
            counter: if ply >= 1 {
                self.stack[ply - 1].cont_key
            } else {
                None
            },
            follow_up: if ply >= 2 {
                self.stack[ply - 2].cont_key
            } else {
                None
            },
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// tt_ + static eval, the opening of every main-search and q-search node: probes
    /// the transposition table and returns the stored score (`Break`) when it settles
    /// a non-PV node searched with (alpha, beta) at `depth` or more; otherwise the
    /// entry and the static eval (`NO_SCORE` in check; the stored eval when there is
    /// one, else the evaluator's).
    ///
    /// The evaluation runs before the probe, even though a cut-off or a stored eval
    /// may make it unneeded: the parent prefetches the TT bucket only just before
    /// making the move, and a probe right after it waited on memory (~12% of all
    /// time). Evaluating first lets that load complete meanwhile, which is worth far
    /// more than the evaluations thrown away (issue 15: 1.046× NPS). The stored eval
    /// still wins when there is one: barring a key collision or a parameter change
    /// since it was stored it is the same value, and taking it keeps the search
    /// exactly as it was.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn probe_and_evaluate(
        &mut self,
        ctx: &Ctx,
        pos: &Position,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        in_check: bool,
    ) -> ControlFlow<i32, (Option<TtHit>, i32)> {
        let evaluated = if in_check {
            NO_SCORE
        } else {
            self.eval.evaluate(pos)
        };
        let tt = ctx.shared.tt.probe(pos, ply);
        self.stats.tt_probes += 1;
        self.stats.tt_hits += tt.is_some() as u64;
        if depth == 0 {
            self.stats.tt_probes_qs += 1;
            self.stats.tt_hits_qs += tt.is_some() as u64;
        }
        if let Some(h) = tt
            && beta - alpha <= 1
            && h.depth >= depth
            && h.cuts(alpha, beta)
        {
            // stats: the move of an entry that settles the node is not needed, and
            // is unpacked for the count alone (the other nodes count it in `negamax`).
            if depth != 0 {
                self.stats.tt_moves += h.mv(pos).is_some() as u64;
            }
            return ControlFlow::Break(h.score);
        }
        let static_eval = match tt.map(|h| eval_from_tt(h.eval)) {
            Some(e) if e != NO_SCORE && !in_check => e,
            _ => evaluated,
        };
        ControlFlow::Continue((tt, static_eval))
    }

    /// corr_: the correction-table keys of a node whose static eval is corrected
    /// (`correct`: not in check, not a singular search; and the tables on), with
    /// their three entries prefetched. Taken before the TT probe, so that the loads
    /// overlap the probe and the evaluation instead of waiting after them.
    #[inline(always)]
    fn correction_keys(&self, p: &Params, pos: &Position, correct: bool) -> Option<CorrectionKeys> {
        (correct && CorrectionHistory::enabled(p)).then(|| {
            let keys = CorrectionHistory::keys(pos);
            self.correction.prefetch(keys);
            keys
        })
    }

    /// corr_: the static eval a node works with, the evaluator's `raw_eval` plus
    /// what searches of similar positions found it to be wrong by (correction.rs);
    /// `raw_eval` itself without keys (see [`Self::correction_keys`]).
    #[inline(always)]
    fn corrected_eval(&self, p: &Params, keys: Option<CorrectionKeys>, raw_eval: i32) -> i32 {
        match keys {
            Some(keys) => self.correction.corrected(p, keys, raw_eval),
            None => raw_eval,
        }
    }

    /// Principal variation search. `depth` is the draft (plies to the horizon),
    /// `ply` the distance from the root: extensions and reductions change the
    /// former, stacks are indexed by the latter. `cut_node`: a null-window node
    /// expected to fail high (Stockfish's flag; never set at PV nodes).
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        ctx: &Ctx,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if depth <= 0 {
            return self.qsearch(ctx, pos, alpha, beta, ply);
        }
        if self.count_node_and_check_stop(ctx) {
            return 0;
        }
        self.stats.nodes += 1;
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        let in_check = pos.is_check();
        self.seldepth = self.seldepth.max(ply);
        let (sh, p) = (ctx.shared, &ctx.shared.params);

        if !root {
            // Draws: repetition, fifty moves, insufficient material.
            if self.is_draw(pos) {
                return 0;
            }
            // MAX_PLY guard: return the static eval instead of overflowing the stacks.
            if ply >= MAX_PLY - 4 {
                return if in_check { 0 } else { self.eval.evaluate(pos) };
            }
            // Mate distance pruning: no line from here beats a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // tt_ / static eval: never while a move is excluded (singular search), where the
        // node's eval is the one its outer search already computed.
        let excluded = self.stack[ply].excluded;
        let corr_keys = self.correction_keys(p, pos, !in_check && excluded.is_none());
        let (tt, raw_eval) = if excluded.is_none() {
            match self.probe_and_evaluate(ctx, pos, alpha, beta, depth, ply, in_check) {
                ControlFlow::Break(score) => return score,
                ControlFlow::Continue(node) => node,
            }
        } else {
            (None, self.stack[ply].static_eval)
        };
        // corr_: the TT keeps the raw eval; a singular search reuses its node's
        // already corrected value.
        let static_eval = self.corrected_eval(p, corr_keys, raw_eval);
        let tt_move = tt.and_then(|h| h.mv(pos));
        if excluded.is_none() {
            self.stats.tt_moves += tt_move.is_some() as u64;
        }
        let tt_move_noisy = tt_move.is_some_and(|t| is_noisy(&t));
        // tt_pv: this node is or once was on a PV (the flag stays with the entry).
        let tt_pv = pv_node || tt.is_some_and(|h| h.pv);

        // tb_: a WDL probe right after a capture or pawn move (syzygy.rs).
        if !root
            && ctx.shared.may_probe_tablebase(pos)
            && let Some(score) = self.probe_tablebase(ctx, pos, alpha, beta, depth, ply)
        {
            return score;
        }

        // hist_: the children start without killers from an unrelated subtree.
        self.history.clear_killers_at(ply + 1);

        // The static eval refined by a TT score whose bound points the right way.
        let mut eval = static_eval;
        if !in_check
            && let Some(h) = tt
            && h.score.abs() < MATE_BOUND
            && match h.bound {
                Bound::Exact => true,
                Bound::Lower => h.score > eval,
                Bound::Upper => h.score < eval,
            }
        {
            eval = h.score;
        }
        self.stack[ply].static_eval = static_eval;

        // improving_: Alexandria's rule (2 plies back, else 4, else true; never in
        // check) and Integral's dynamic rate, both relative to our previous eval.
        let reference = if ply >= 2 && self.stack[ply - 2].static_eval != NO_SCORE {
            Some(self.stack[ply - 2])
        } else if ply >= 4 && self.stack[ply - 4].static_eval != NO_SCORE {
            Some(self.stack[ply - 4])
        } else {
            None
        };
        let (improving, improving_rate) = match (in_check, reference) {
            (true, _) => (false, 0),
            (false, Some(r)) => (
                static_eval > r.static_eval,
                (r.improving_rate + (static_eval - r.static_eval) * 100 / p.improving_rate_div())
                    .clamp(0, 100),
            ),
            (false, None) => (true, 100),
        };
        self.stack[ply].improving_rate = improving_rate;

        // Inside a mate search (a window bound is already a mate score) the static
        // eval says nothing, so no eval-based pruning is done there.
        let mate_hunt = alpha >= MATE_BOUND || beta <= -MATE_BOUND;
        if !pv_node && !in_check && excluded.is_none() && !mate_hunt {
            // razor_: Stockfish's form; a hopeless node drops into q-search and returns
            // its value when that still fails low with a non-mate score.
            if depth <= p.razor_max_depth()
                && eval < alpha - p.razor_base() - p.razor_depth_sq() * depth * depth
            {
                let v = self.qsearch(ctx, pos, alpha - 1, alpha, ply);
                if v < alpha && v.abs() < MATE_BOUND {
                    return v;
                }
            }

            // rfp_: reverse futility pruning.
            if depth <= p.rfp_max_depth()
                && eval.abs() < MATE_BOUND
                && eval - p.rfp_margin() * (depth - improving as i32) >= beta
            {
                return eval;
            }

            // nmp_: null-move pruning, not in pawn endings, verified at high depth.
            let us = pos.turn();
            let board = pos.board().board();
            let has_pieces = (board.by_color(us) & !(board.pawns() | board.kings())).any();
            if depth >= p.nmp_min_depth()
                && eval >= beta
                && static_eval >= beta
                && has_pieces
                && ply >= self.nmp_min_ply
                && beta.abs() < MATE_BOUND
                && ply > 0
                && self.stack[ply - 1].current_move.is_some()
                && let Some(null) = pos.play_null()
            {
                let r = p.nmp_base()
                    + depth / p.nmp_depth_div()
                    + ((eval - beta) / p.nmp_eval_div()).min(p.nmp_eval_max());
                let verify_depth = p.nmp_verify_depth();
                self.set_current_move(ply, None, us);
                self.keys.push(pos.hash());
                let v = -self.negamax(ctx, &null, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    let v = if v >= MATE_BOUND { beta } else { v };
                    if depth < verify_depth {
                        return v;
                    }
                    // A nested verification keeps the outer one's limit afterwards.
                    let outer_min_ply = self.nmp_min_ply;
                    self.nmp_min_ply = ply + (3 * (depth - r) / 4).max(0) as usize;
                    let w = self.negamax(ctx, pos, beta - 1, beta, depth - r, ply, false);
                    self.nmp_min_ply = outer_min_ply;
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        return v;
                    }
                }
            }

            // probcut_: a capture that beats a raised beta in q-search and at reduced
            // depth is taken as proof the node fails high.
            let pc_beta = beta + p.probcut_margin() - improving as i32 * p.probcut_improving();
            if depth >= p.probcut_min_depth()
                && beta.abs() < MATE_BOUND
                && !tt.is_some_and(|h| h.depth >= depth - 3 && h.score < pc_beta)
            {
                let pc_depth = depth - p.probcut_reduction();
                let mut picker = MovePicker::new_qsearch(tt_move, false);
                while let Some(m) = picker.next(pos, &self.history, &sh.see_values) {
                    let threshold = pc_beta - static_eval;
                    if see_below(pos, &m, &sh.see_values, picker.known_see(), threshold) {
                        continue;
                    }
                    let key = pos.child_hash(m);
                    sh.tt.prefetch(key);
                    let mut child = pos.copy();
                    child.make_psq_keyed(m, self.eval.psq_table(), key);
                    self.set_current_move(ply, Some(m), pos.turn());
                    self.keys.push(pos.hash());
                    let mut v = -self.qsearch(ctx, &child, -pc_beta, -pc_beta + 1, ply + 1);
                    if v >= pc_beta && pc_depth > 0 {
                        v = -self.negamax(
                            ctx,
                            &child,
                            -pc_beta,
                            -pc_beta + 1,
                            pc_depth,
                            ply + 1,
                            !cut_node,
                        );
                    }
                    self.keys.pop();
                    if self.stopped {
                        return 0;
                    }
                    if v >= pc_beta {
                        sh.tt.store(
                            pos.hash(),
                            ply,
                            Some(m),
                            v,
                            raw_eval,
                            pc_depth + 1,
                            Bound::Lower,
                            false,
                        );
                        return v;
                    }
                }
            }
        }

        // iir_: internal iterative reduction. A PV or expected cut-node high in the
        // tree without a hash move would pay for full-depth work with poor ordering;
        // searching it a little shallower is cheaper than IID and leaves a move in
        // the TT for the next visit. Placed after the pruning above (as Ethereal and
        // Stockfish place it after null move), so razoring, RFP, null move and
        // ProbCut keep judging the node at the draft their margins were tuned for;
        // from here on (move loop, singular extension, the TT store) the node is one
        // of the reduced draft. Never at the root (the iteration's depth stays what
        // it says) nor in a singular search (which probes no TT). Never below one ply.
        let depth = if p.iir_reduction() > 0
            && tt_move.is_none()
            && (pv_node || cut_node)
            && depth >= p.iir_min_depth()
            && !root
            && excluded.is_none()
        {
            self.stats.iir_reductions += 1;
            (depth - p.iir_reduction()).max(1)
        } else {
            depth
        };

        // Move loop.
        let color = pos.turn();
        let prev_move = if ply > 0 {
            self.stack[ply - 1].current_move
        } else {
            None
        };
        let cont = self.cont_keys(ply);
        // hist_threats: the enemy's attacks index the butterfly history of this
        // node's quiets (the picker finds them when the first quiet needs them).
        let mut picker = MovePicker::new(
            tt_move,
            self.history.killers(ply),
            self.history.counter(color, prev_move),
            cont,
            p.hist_threats() != 0,
        );
        let mut best_score = -INF;
        let mut best_move: Option<Move> = None;
        let mut moves_searched = 0usize;
        let mut quiets_tried = shakmaty::MoveList::new();
        let mut captures_tried = shakmaty::MoveList::new();
        while let Some(m) = picker.next(pos, &self.history, &sh.see_values) {
            if Some(m) == excluded || root && self.skips_root_move(&m) {
                continue;
            }
            let noisy = is_noisy(&m);
            let cont_scores = if noisy {
                Default::default()
            } else {
                self.history.cont_scores(&m, cont)
            };
            let hist = if noisy {
                0
            } else {
                self.history.score(color, picker.threats(pos), &m)
                    + cont_scores.counter
                    + cont_scores.follow_up
            };

            // Pruning of late moves, once a move has been searched and we are not mated.
            // Quiet checks are spared until the move count is large (lmp_check_pct),
            // and no move count prunes while a shorter mate than the one in hand is
            // being looked for.
            if !root && best_score > -MATE_BOUND {
                let lmr_depth = (depth - sh.lmr_reduction(depth, moves_searched + 1) / 100).max(0);
                if !noisy {
                    // lmp_: late move pruning with Integral's dynamic improving rate.
                    let lmp_limit = (p.lmp_base() + p.lmp_depth_sq() * depth * depth)
                        / (p.lmp_div() - improving_rate);
                    let lmp_depth = depth <= p.lmp_max_depth();
                    let lmp = lmp_depth && moves_searched as i32 >= lmp_limit;
                    // fp_: futility pruning of quiets.
                    let futile = !in_check
                        && lmr_depth <= p.fp_max_depth()
                        && static_eval + p.fp_base() + p.fp_depth() * lmr_depth <= alpha;
                    if (lmp || futile) && !mate_hunt {
                        // lmp_check_: this late, checks go with the other quiets (and
                        // need not be looked for at all).
                        if lmp_depth && moves_searched as i32 * 100 >= lmp_limit * p.lmp_check_pct()
                        {
                            picker.skip_quiets = true;
                            picker.skip_quiet_checks = true;
                            continue;
                        }
                        if !picker.quiet_gives_check(pos, &m) {
                            picker.skip_quiets = true;
                            continue;
                        }
                    }
                    // cont_hist_: a quiet both continuation histories call bad.
                    if lmr_depth <= p.cont_hist_prune_depth()
                        && cont_scores.counter < -p.cont_hist_prune_margin()
                        && cont_scores.follow_up < -p.cont_hist_prune_margin()
                    {
                        continue;
                    }
                    // hist_prune_: a quiet the histories together call bad, at low
                    // depth (butterfly + counter-move + follow-up, as LMR reads them).
                    if lmr_depth <= p.hist_prune_depth() && hist < -p.hist_prune_margin() * depth {
                        continue;
                    }
                    // seeprune_: quiets that lose material at low depth (`see_below`
                    // plays no exchange out when losing the moved piece is still
                    // above the threshold).
                    if lmr_depth <= p.seeprune_max_depth()
                        && see_below(
                            pos,
                            &m,
                            &sh.see_values,
                            None,
                            -p.seeprune_quiet_margin() * lmr_depth,
                        )
                    {
                        continue;
                    }
                } else if depth <= p.seeprune_max_depth()
                    && see_below(
                        pos,
                        &m,
                        &sh.see_values,
                        picker.known_see(),
                        -p.seeprune_capture_margin() * depth * depth,
                    )
                {
                    continue;
                }
            }

            // Prefetch the child's TT bucket before making the move (and before a
            // singular search), so the load overlaps the work until the child probes.
            let child_key = pos.child_hash(m);
            sh.tt.prefetch(child_key);
            self.eval.prefetch(child_key);
            self.eval.prefetch_pawns(pos, &m);

            // ext_: singular extension of the TT move; multi-cut when even the
            // alternatives beat beta.
            let mut extension = 0;
            if !root
                && Some(m) == tt_move
                && excluded.is_none()
                && depth >= p.ext_se_min_depth()
                && (ply as i32) < 2 * self.root_depth
                && let Some(h) = tt
                && h.depth >= depth - 3
                && h.bound != Bound::Upper
                && h.score.abs() < MATE_BOUND
            {
                let s_beta = h.score - p.ext_se_beta_mult() * depth;
                self.stack[ply].excluded = Some(m);
                let v = self.negamax(ctx, pos, s_beta - 1, s_beta, (depth - 1) / 2, ply, cut_node);
                self.stack[ply].excluded = None;
                self.stack[ply].static_eval = static_eval;
                self.stack[ply].improving_rate = improving_rate;
                if self.stopped {
                    return 0;
                }
                self.stats.singular_searches += 1;
                if v < s_beta {
                    // ext_double_: far below, the TT move is the only move here;
                    // capped per path so the tree cannot explode.
                    self.stats.singular_extensions += 1;
                    extension = if !pv_node
                        && p.ext_double_margin() > 0
                        && v < s_beta - p.ext_double_margin()
                        && self.stack[ply].double_extensions < p.ext_double_max()
                    {
                        2
                    } else {
                        1
                    };
                } else if s_beta >= beta {
                    self.stats.multi_cuts += 1;
                    return s_beta;
                } else if h.score >= beta {
                    // ext_se_negative: the TT move beats beta, but so might others
                    // (the alternatives reach s_beta): it need not be searched as deep.
                    extension = -p.ext_se_negative();
                }
            }

            let mut child = pos.copy();
            child.make_psq_keyed(m, self.eval.psq_table(), child_key);
            self.set_current_move(ply, Some(m), color);
            let gives_check = child.is_check();
            // ext_: check extension, guarded by the ply so the tree cannot explode.
            if extension == 0
                && gives_check
                && (ply as i32) * 100 < p.ext_check_max_ply_pct() * self.root_depth
            {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;
            self.stack[ply + 1].double_extensions =
                self.stack[ply].double_extensions + (extension >= 2) as i32;
            self.keys.push(pos.hash());
            moves_searched += 1;
            let nodes_before = self.nodes;

            // PVS: full window for the first move, null window (maybe reduced) for the rest.
            let mut score;
            if moves_searched == 1 {
                // The first move of a PV node is a PV node; at other nodes the
                // child's expected type is the opposite of this one's.
                let child_cut = !pv_node && !cut_node;
                score = -self.negamax(ctx, &child, -beta, -alpha, new_depth, ply + 1, child_cut);
            } else {
                // lmr_: late move reductions from the log-log table, adjusted (in
                // hundredths of a ply): late quiets, and (lmr_capture_) late losing
                // captures, the picker's last stage, by lmr_capture_pct of the table.
                let late = depth >= p.lmr_min_depth() && moves_searched > 1 + pv_node as usize;
                let reduced = late && !noisy;
                let table_r = if reduced {
                    let mut r = sh.lmr_reduction(depth, moves_searched);
                    if !improving {
                        r += p.lmr_improving();
                    }
                    if pv_node {
                        r -= p.lmr_pv();
                    } else if tt_pv {
                        // lmr_ttpv: a former PV node is searched more carefully.
                        r -= p.lmr_ttpv();
                    }
                    // lmr_refutation: killers and the counter move refuted a sibling
                    // (the picker's move comparisons only when the term is on).
                    if p.lmr_refutation() != 0
                        && matches!(
                            picker.cut_kind(&m, in_check),
                            CutKind::Killer1 | CutKind::Killer2 | CutKind::Counter
                        )
                    {
                        r -= p.lmr_refutation();
                    }
                    // lmr_tt_capture: when the best move known is a capture, quiets
                    // are less likely to matter.
                    if tt_move_noisy {
                        r += p.lmr_tt_capture();
                    }
                    r -= (hist * 100 / p.lmr_history_div())
                        .clamp(-p.lmr_history_max(), p.lmr_history_max());
                    Some(r)
                } else if late
                    && p.lmr_capture_pct() > 0
                    && picker.cut_kind(&m, in_check) == CutKind::BadCapture
                {
                    Some(sh.lmr_reduction(depth, moves_searched) * p.lmr_capture_pct() / 100)
                } else {
                    None
                };
                let reduction = table_r.map_or(0, |r| {
                    let r = if gives_check { r - p.lmr_check() } else { r };
                    (r / 100).clamp(0, (new_depth - 1).max(0))
                });
                // A reduced late move is expected to fail high (cut node); an
                // unreduced one is the opposite of this node.
                let child_cut = reduced || !cut_node;
                score = -self.negamax(
                    ctx,
                    &child,
                    -alpha - 1,
                    -alpha,
                    new_depth - reduction,
                    ply + 1,
                    child_cut,
                );
                if score > alpha && reduction > 0 {
                    // lmr_deeper_ / lmr_shallower_: the reduced search's margin over the
                    // best score so far decides the re-search's draft (Stockfish's rule):
                    // far above, one ply deeper; barely above, one ply shallower.
                    let mut research_depth = new_depth;
                    if p.lmr_deeper_margin() > 0
                        && score > best_score + p.lmr_deeper_margin() + 2 * new_depth
                    {
                        research_depth += 1;
                    } else if score < best_score + p.lmr_shallower_margin() {
                        research_depth -= 1;
                    }
                    if research_depth > new_depth - reduction {
                        score = -self.negamax(
                            ctx,
                            &child,
                            -alpha - 1,
                            -alpha,
                            research_depth,
                            ply + 1,
                            !cut_node,
                        );
                    }
                }
                if pv_node && score > alpha && score < beta {
                    score = -self.negamax(ctx, &child, -beta, -alpha, new_depth, ply + 1, false);
                }
            }
            self.keys.pop();
            if root {
                self.add_root_move_nodes(m, self.nodes - nodes_before);
            }
            if self.stopped {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        // hist_: reward the cut-off move, penalise earlier quiets
                        // (after a quiet cut-off) and earlier captures.
                        self.stats.record_cutoff(moves_searched);
                        // stats: the kind of a later move only (most cut on the first).
                        let kind = (moves_searched > 1).then(|| picker.cut_kind(&m, in_check));
                        self.stats
                            .record_cutoff_source(moves_searched, tt_move.is_some(), kind);
                        // A quiet's threats are known (its `hist` needed them); a
                        // capture's update does not read them.
                        let threats = if noisy { 0 } else { picker.threats(pos) };
                        self.history.on_cutoff(
                            p,
                            color,
                            threats,
                            ply,
                            depth,
                            m,
                            &quiets_tried,
                            &captures_tried,
                            prev_move,
                            cont,
                        );
                        break;
                    }
                }
            }
            let tried = if noisy {
                &mut captures_tried
            } else {
                &mut quiets_tried
            };
            if tried.len() < tried.capacity() {
                tried.push(m);
            }
        }

        if moves_searched == 0 {
            // No legal move (besides an excluded one): mate, stalemate, or a singular
            // search with nothing else to try.
            return if excluded.is_some() {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                0
            };
        }

        // The best of the moves left to a later MultiPV line is no value of the root.
        if excluded.is_none() && (!root || self.root_excluded.is_empty()) {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if pv_node && best_move.is_some() {
                Bound::Exact
            } else {
                Bound::Upper
            };
            // corr_: learn from a quiet (or no) best move whose score is a bound on
            // the right side of the static eval; a capture's gain is no error of
            // the static eval of this position.
            if let Some(k) = corr_keys
                && best_score.abs() < MATE_BOUND
                && best_move.is_none_or(|m| !is_noisy(&m))
                && match bound {
                    Bound::Exact => true,
                    Bound::Lower => best_score > static_eval,
                    Bound::Upper => best_score < static_eval,
                }
            {
                self.correction
                    .update(p, k, depth, best_score - static_eval);
            }
            sh.tt.store(
                pos.hash(),
                ply,
                best_move.or(tt_move),
                best_score,
                raw_eval,
                depth,
                bound,
                tt_pv,
            );
        }
        best_score
    }
}

#[cfg(test)]
mod tests;
