//! The search: a library API (position, limits, parameters, an `info` callback)
//! that knows no protocol. Iterative deepening with aspiration windows over a
//! principal variation search with a transposition table, staged move ordering,
//! quiescence search and the usual selectivity, every margin a parameter of
//! `params/search.json`. Each technique has one section named after its prefix.
//!
//! The files: `root.rs` (iterative deepening, aspiration windows, MultiPV),
//! `negamax.rs` (the main search, one helper per technique), `qsearch.rs`, move
//! ordering (`movepick.rs`, `history.rs`, `see.rs`), `tt.rs` (the transposition
//! table), `correction.rs` (correction history), `time.rs` (time management),
//! `smp.rs` (Lazy SMP), `tablebase.rs` (the Syzygy probes) and `stats.rs` (counters
//! for `bench --stats` and `SearchStats`); this file holds the API and the state
//! they share.
//!
//! It may use every module below it: the board modules (`score`, `rays`,
//! `position`, `movegen`, `prefetch`), `params`, `eval` and `tablebase`; never the
//! shell (`uci`) or the tools (`bench`, `genfens`, `openings`), which call it. Its
//! tests also walk `perft`'s suite of positions.

mod correction;
pub mod history;
pub mod movepick;
mod negamax;
mod qsearch;
mod root;
pub mod see;
mod smp;
pub mod stats;
mod tablebase;
pub mod time;
pub mod tt;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Move, Position as _};

use crate::eval::Evaluator;
use crate::params::Params;
use crate::position::{Game, Position};
pub use crate::score::{INF, MATE, MATE_BOUND, MAX_PLY, NO_SCORE, Score};
use crate::tablebase::{ProbeSettings, Tablebases};
use correction::{CorrectionHistory, CorrectionKeys};
use history::{ContKeys, History, piece_to};
use movepick::OrderingValues;
pub use stats::{CutKind, SearchStats};
use time::TimeManager;
use tt::{TranspositionTable, TtHit, eval_from_tt};

/// How often (in nodes) the clock and the stop flag are polled.
const CHECK_EVERY_NODES: u64 = 1024;
/// tt_: no cut-off from a stored score once the fifty-move counter reaches this: the
/// entry may come from a path with a lower counter, blind to a draw a few plies away.
const TT_CUT_HALFMOVES: u32 = 90;
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
    /// hist_eval_diff_ / hist_fail_low_pct: butterfly entry of `current_move` when
    /// the main search played it as a quiet with either on, for the child to reward
    /// or penalise.
    butterfly_key: Option<usize>,
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
            butterfly_key: None,
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
    derived: DerivedTables,
    tt: TranspositionTable,
    /// tb_: Syzygy tables (read-only), how to probe them, probes answered by any thread.
    tablebases: Option<Arc<Tablebases>>,
    tb_settings: ProbeSettings,
    tb_hits: AtomicU64,
}

/// What the search derives from the parameters: built in this one place, for a new
/// searcher and after every change of the parameters.
struct DerivedTables {
    /// see_, caphist_: what move ordering and the SEE tests read.
    ordering: OrderingValues,
    /// LMR table in hundredths of a ply, `[depth][move number]`, built from `lmr_*`.
    lmr: Vec<i32>,
}

impl DerivedTables {
    fn new(p: &Params) -> Self {
        DerivedTables {
            ordering: OrderingValues::new(p),
            lmr: lmr_table(p),
        }
    }
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
            derived: DerivedTables::new(&params),
            params,
            tt: TranspositionTable::new(hash_mb),
            tablebases: None,
            tb_settings: ProbeSettings::default(),
            tb_hits: AtomicU64::new(0),
        }
    }

    /// Replaces the parameters and rebuilds every table derived from them.
    fn set_params(&mut self, params: Params) {
        self.derived = DerivedTables::new(&params);
        self.params = params;
    }

    /// lmr_: the base reduction in hundredths of a ply.
    #[inline(always)]
    fn lmr_reduction(&self, depth: i32, move_number: usize) -> i32 {
        self.derived.lmr
            [(depth as usize).min(LMR_SIZE - 1) * LMR_SIZE + move_number.min(LMR_SIZE - 1)]
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
    /// asp_: the line (best move, reply) of this iteration's latest root fail high,
    /// kept in case the stop cuts its re-search short (the re-search resets the PV).
    root_fail_high: Option<(Move, Option<Move>)>,
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
            root_fail_high: None,
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
        // tb_: a root the tables cover is answered without searching (tablebase.rs),
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

    /// draw_: the score of a draw by the rules in the tree. With `draw_jitter` on, +1 or
    /// -1 by a bit of the node count (Ethereal's rule): a repetition no longer scores
    /// exactly what the transposition table recalls for the same position reached
    /// otherwise, so a line that only repeats is not taken for a safe 0 everywhere.
    #[inline(always)]
    fn draw_score(&self, p: &Params) -> i32 {
        if p.draw_jitter() != 0 {
            1 - (self.nodes & 2) as i32
        } else {
            0
        }
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
    /// counter moves and continuation histories; `butterfly_key`: see [`Frame`].
    #[inline(always)]
    fn set_current_move(
        &mut self,
        ply: usize,
        m: Option<Move>,
        color: shakmaty::Color,
        butterfly_key: Option<usize>,
    ) {
        self.stack[ply].current_move = m;
        self.stack[ply].cont_key = m.map(|m| piece_to(color, &m));
        self.stack[ply].butterfly_key = butterfly_key;
        self.stack[ply].null_move = m.is_none();
        // The child starts from this path's count of double extensions (the move
        // loop adds its own), not from what an earlier sibling's subtree left there.
        self.stack[ply + 1].double_extensions = self.stack[ply].double_extensions;
    }

    /// The move that led to the node at `ply` (`None` at the root or after a null move).
    #[inline(always)]
    fn previous_move(&self, ply: usize) -> Option<Move> {
        ply.checked_sub(1)
            .and_then(|up| self.stack[up].current_move)
    }

    /// hist_tt_cut: a quiet TT move whose stored score settles a node by failing
    /// high learns as a move that cut off in the move loop would.
    #[cold]
    fn learn_from_tt_cut(
        &mut self,
        p: &Params,
        pos: &Position,
        ply: usize,
        depth: i32,
        tt_move: Option<Move>,
    ) {
        let Some(m) = tt_move.filter(|m| !crate::movegen::is_noisy(m)) else {
            return;
        };
        let prev = self.previous_move(ply);
        let threats = if p.hist_threats() != 0 {
            history::threats(pos)
        } else {
            0
        };
        let keys = self.cont_keys(p, ply);
        let color = pos.turn();
        self.history
            .on_cutoff(p, color, threats, ply, depth, m, &[], &[], prev, keys);
    }

    /// hist_fail_low_pct: no move of the node at `ply` (not the root) reached alpha,
    /// so the opponent's quiet move that led here beat every reply: it learns as a
    /// cut-off at this node's depth would teach it (killers and counter aside).
    fn learn_from_fail_low(&mut self, p: &Params, color: shakmaty::Color, ply: usize, depth: i32) {
        let parent = &self.stack[ply - 1];
        let Some(m) = parent.current_move.filter(|m| !crate::movegen::is_noisy(m)) else {
            return;
        };
        let butterfly_key = parent.butterfly_key;
        let keys = self.cont_keys(p, ply - 1);
        let delta = history::bonus(p, depth) * p.hist_fail_low_pct() / 100;
        self.history
            .reward_fail_low(p, !color, butterfly_key, &m, keys, delta);
    }

    /// hist_eval_diff_: a node out of check at `ply` with its static eval judges the
    /// quiet move that led to it by how much that eval moved from its parent's.
    #[inline(always)]
    fn learn_from_eval_diff(&mut self, p: &Params, ply: usize, static_eval: i32) {
        if ply == 0 {
            return;
        }
        let parent = &self.stack[ply - 1];
        if let Some(key) = parent.butterfly_key
            && parent.static_eval != NO_SCORE
            && p.hist_eval_diff_mult() != 0
        {
            let parent_eval = parent.static_eval;
            self.history
                .learn_eval_diff(p, key, parent_eval, static_eval);
        }
    }

    /// The hash of `pos` after `m`, with the child's TT bucket, eval-cache slot and
    /// pawn-table entry prefetched: called before the work that precedes making
    /// the move, so the loads overlap it instead of stalling the child's probes.
    #[inline(always)]
    fn prefetch_child(&self, sh: &Shared, pos: &Position, m: &Move) -> u64 {
        let key = pos.child_hash(*m);
        sh.tt.prefetch(key);
        self.eval.prefetch(key);
        self.eval.prefetch_pawns(pos, m);
        key
    }

    /// Copy-make: `search` applied to `pos` with `m` made (its hash `child_key`,
    /// from [`Self::prefetch_child`]), `pos`'s hash on the search path meanwhile
    /// for the child's repetition test. The child lives in this frame: returned by
    /// value, the copy would be copied once more.
    #[inline(always)]
    fn make_child<R>(
        &mut self,
        pos: &Position,
        m: Move,
        child_key: u64,
        search: impl FnOnce(&mut Self, &Position) -> R,
    ) -> R {
        let mut child = pos.copy();
        child.make_psq_keyed(m, self.eval.psq_table(), child_key);
        self.keys.push(pos.hash());
        let result = search(self, &child);
        self.keys.pop();
        result
    }

    /// cont_hist_: the continuation-history rows of the node at `ply` (the fourth
    /// ply's only with `cont_hist_ply4` on).
    #[inline(always)]
    fn cont_keys(&self, p: &Params, ply: usize) -> ContKeys {
        ContKeys {
            ply4: if ply >= 4 && p.cont_hist_ply4() != 0 {
                self.stack[ply - 4].cont_key
            } else {
                None
            },
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
    /// making the move, so a probe at once would wait on memory. Evaluating first
    /// lets that load complete meanwhile, which gains more speed than the evaluations
    /// thrown away cost. The stored eval still wins when there is one: barring a key
    /// collision or a parameter change since it was stored it is the same value, and
    /// taking it leaves the search unchanged by the order.
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
            && pos.halfmoves() < TT_CUT_HALFMOVES
        {
            // The move of an entry that settles the node is unpacked for the count
            // (the other nodes count it in `negamax`) and for hist_tt_cut only.
            if depth != 0 {
                let tt_move = h.mv(pos);
                self.stats.tt_moves += tt_move.is_some() as u64;
                if h.score >= beta && ctx.shared.params.hist_tt_cut() != 0 {
                    self.learn_from_tt_cut(&ctx.shared.params, pos, ply, depth, tt_move);
                }
            }
            return ControlFlow::Break(h.score);
        }
        let static_eval = match tt.map(|h| eval_from_tt(h.eval)) {
            Some(e) if e != NO_SCORE && !in_check => e,
            _ => evaluated,
        };
        ControlFlow::Continue((tt, static_eval))
    }

    /// corr_: the correction-table keys of the node at `ply` whose static eval is
    /// corrected (`correct`: not in check, not a singular search; and the tables
    /// on), with their entries prefetched. Taken before the TT probe, so that the
    /// loads overlap the probe and the evaluation instead of waiting after them.
    #[inline(always)]
    fn correction_keys(
        &self,
        p: &Params,
        pos: &Position,
        ply: usize,
        correct: bool,
    ) -> Option<CorrectionKeys> {
        (correct && CorrectionHistory::enabled(p)).then(|| {
            let cont = self.cont_keys(p, ply);
            let keys = CorrectionHistory::keys(p, pos, [cont.counter, cont.follow_up]);
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
}

#[cfg(test)]
mod tests;
