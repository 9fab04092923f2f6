//! The root: iterative deepening with aspiration windows (`asp_*`), MultiPV lines,
//! `searchmoves`, the iteration reports and the checks between iterations (time
//! `tm_*`, nodes, `go mate`).

use std::cmp::Reverse;
use std::sync::atomic::Ordering;

use shakmaty::Move;

use super::time::IterationVerdict;
use super::{Ctx, Frame, Game, Limits, SearchInfo, SearchResult, Worker, smp};
use crate::position::Position;
use crate::score::{INF, MATE_BOUND, MAX_PLY, Score};

/// One completed principal variation of an iteration (MultiPV line).
#[derive(Clone, Debug)]
pub(super) struct Line {
    score: i32,
    pv: Vec<Move>,
}

/// The root of one search, as set up before its first iteration.
struct Root {
    /// The position, carrying its material + PST sum so its children need not sum it.
    position: Position,
    /// The moves searched: the legal ones among `searchmoves`, else every legal move.
    allowed: Vec<Move>,
    /// Lines searched per iteration: MultiPV for the main thread, one for a helper.
    multi_pv: usize,
    max_depth: i32,
}

/// What the completed iterations found, and how steady it was (for `tm_`).
struct Progress {
    /// The last completed iteration's lines, best first (none before the first).
    lines: Vec<Line>,
    /// What the search returns if it ends now.
    result: SearchResult,
    /// The last completed iteration's best move (`None` before the first).
    best_move: Option<Move>,
    /// Completed iterations in a row, before the last, with its best move.
    stable_iterations: u32,
}

impl Worker {
    /// Searches `game.position` deeper and deeper until a limit is reached.
    ///
    /// 1. Root set-up ([`Self::set_up_root`]): the thread's per-search state, the
    ///    root moves `searchmoves` allows, the move played should no iteration
    ///    complete, and the answer of a root without a legal move (mate, stalemate).
    /// 2. Each depth (a helper skips some, [`smp::skips_depth`]): the MultiPV lines
    ///    ([`Self::search_lines`]), each an aspiration search ([`Self::aspiration`])
    ///    of the root without the better lines' first moves.
    /// 3. An interrupted iteration ([`Self::keep_interrupted_iteration`]) ends the
    ///    search; what it settled before the stop still counts.
    /// 4. A completed one becomes the result, ordered by score, and is reported
    ///    ([`Self::report_iteration`]).
    /// 5. Whether another iteration starts: `go mate` ([`Self::mate_found`]), the
    ///    clock adjusted to the iteration (`tm_`, [`Self::adjust_time`]), then a
    ///    forced move, the soft time limit, the node limit and `stop`
    ///    ([`Self::search_is_over`]).
    pub(super) fn iterative_deepening(
        &mut self,
        ctx: &mut Ctx,
        game: &Game,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let root = match self.set_up_root(ctx, game, limits) {
            Ok(root) => root,
            Err(no_legal_move) => return no_legal_move,
        };
        let mut progress = Progress {
            lines: Vec::with_capacity(root.multi_pv),
            result: self.fallback_result(ctx, &root),
            best_move: None,
            stable_iterations: 0,
        };
        for depth in 1..=root.max_depth {
            if ctx.helper.is_some_and(|h| smp::skips_depth(h, depth)) {
                continue;
            }
            self.root_depth = depth;
            self.seldepth = 0;
            let iteration_start_nodes = self.nodes;
            let (mut lines, failed_low) = self.search_lines(ctx, &root, depth, &progress.lines);
            if self.stopped {
                self.keep_interrupted_iteration(&lines, &mut progress.result);
                break;
            }
            // Lines are found best first; a later one may still score higher (search
            // instability): order them by score, stably.
            lines.sort_by_key(|l| Reverse(l.score));
            let prev_score = progress.lines.first().map_or(0, |l| l.score);
            let score = lines[0].score;
            let best = lines[0].pv.first().copied().or(progress.result.best_move);
            progress.result = SearchResult {
                best_move: best,
                ponder_move: lines[0].pv.get(1).copied(),
                score: Score::from_internal(score),
                depth: depth as u32,
                nodes: self.nodes,
            };
            self.report_iteration(ctx, &lines, best, iteration_start_nodes, on_info);
            progress.lines = lines;
            if self.mate_found(ctx, limits, &progress.result) {
                break;
            }
            let dropped = failed_low || score < prev_score - ctx.shared.params.asp_delta();
            self.adjust_time(ctx, &mut progress, best, depth > 1 && dropped);
            if self.search_is_over(ctx, limits, &root) {
                break;
            }
        }
        self.flush_nodes(ctx);
        self.stats.searches += 1;
        self.stats.time += ctx.tm.start.elapsed();
        progress.result.nodes = self.nodes;
        progress.result
    }

    /// Step 1: resets the thread's per-search state and sets up the root, or answers
    /// a root without a legal move (`Err`: mate or stalemate, no move).
    fn set_up_root(
        &mut self,
        ctx: &Ctx,
        game: &Game,
        limits: &Limits,
    ) -> Result<Root, SearchResult> {
        self.history.clear_killers();
        self.nodes = 0;
        self.reported = 0;
        self.stopped = false;
        self.nmp_min_ply = 0;
        self.keys.clear();
        self.keys.extend_from_slice(&game.history);
        self.root_keys = self.keys.len();
        self.stack.fill(Frame::default());
        let position = game.position.with_psq(self.eval.psq_table());
        let legal = position.legal_moves();
        // searchmoves: the legal ones among them; none legal (or none given) is all.
        self.root_moves.clear();
        self.root_moves
            .extend(legal.iter().filter(|m| limits.searchmoves.contains(m)));
        self.root_excluded.clear();
        self.root_move_nodes.clear();
        if legal.is_empty() {
            let score = if position.is_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            return Err(SearchResult {
                best_move: None,
                ponder_move: None,
                score,
                depth: 0,
                nodes: 0,
            });
        }
        let allowed: Vec<Move> = if self.root_moves.is_empty() {
            legal.to_vec()
        } else {
            self.root_moves.clone()
        };
        // MultiPV: the main thread searches that many lines (helpers one).
        let multi_pv = if ctx.helper.is_some() {
            1
        } else {
            limits.multi_pv.clamp(1, allowed.len())
        };
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .clamp(1, MAX_PLY as u32 - 8) as i32;
        Ok(Root {
            position,
            allowed,
            multi_pv,
            max_depth,
        })
    }

    /// Step 1: the result before any iteration completes: the TT move, else the
    /// first allowed move.
    fn fallback_result(&self, ctx: &Ctx, root: &Root) -> SearchResult {
        let pos = &root.position;
        let tt_move = ctx
            .shared
            .tt
            .probe(pos, 0)
            .and_then(|h| h.mv(pos))
            .filter(|m| root.allowed.contains(m));
        SearchResult {
            best_move: tt_move.or_else(|| root.allowed.first().copied()),
            ponder_move: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
        }
    }

    /// Step 2: the iteration's lines, best first as found (the k-th searches the
    /// root without the first moves of lines 1..k), and whether the first failed
    /// low. Stops early when the search stops or a line has no move.
    fn search_lines(
        &mut self,
        ctx: &Ctx,
        root: &Root,
        depth: i32,
        previous: &[Line],
    ) -> (Vec<Line>, bool) {
        let mut lines: Vec<Line> = Vec::with_capacity(root.multi_pv);
        let mut failed_low = false;
        self.root_excluded.clear();
        for k in 0..root.multi_pv {
            let prev_score = previous.get(k).map_or(0, |l| l.score);
            let (score, fl) = self.aspiration(ctx, &root.position, depth, prev_score);
            if self.stopped {
                break;
            }
            failed_low |= k == 0 && fl;
            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]]
                .iter()
                .flatten()
                .copied()
                .collect();
            let Some(&first) = pv.first() else {
                // No move raised the root's alpha: nothing to exclude for a next line.
                lines.push(Line { score, pv });
                break;
            };
            self.root_excluded.push(first);
            lines.push(Line { score, pv });
        }
        self.root_excluded.clear();
        (lines, failed_low)
    }

    /// Step 3: what an iteration the stop interrupted adds to `result`: the best line
    /// if it completed (later lines did not), else a root move searched to the end
    /// above alpha (it failed high or became the new best), else the move that
    /// failed high in an earlier window of this iteration, its re-search cut short:
    /// it beat the previous best move, which was searched before it.
    pub(super) fn keep_interrupted_iteration(&self, lines: &[Line], result: &mut SearchResult) {
        if let Some(line) = lines.first() {
            result.best_move = line.pv.first().copied().or(result.best_move);
            result.ponder_move = line.pv.get(1).copied();
        } else if let Some((best, reply)) = self.root_line().or(self.root_fail_high) {
            result.best_move = Some(best);
            result.ponder_move = reply;
        }
    }

    /// The root's best move and reply of the current search, if a move raised alpha.
    fn root_line(&self) -> Option<(Move, Option<Move>)> {
        let best = self.pv[0][0].filter(|_| self.pv_len[0] > 0)?;
        let reply = if self.pv_len[0] > 1 {
            self.pv[0][1]
        } else {
            None
        };
        Some((best, reply))
    }

    /// Step 4: records the iteration's statistics and sends one `info` per line
    /// (the first line's PV, if empty, is the best move).
    fn report_iteration(
        &mut self,
        ctx: &Ctx,
        lines: &[Line],
        best: Option<Move>,
        iteration_start_nodes: u64,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) {
        let sh = ctx.shared;
        let depth = self.root_depth;
        let time_ms = ctx.tm.elapsed_ms();
        let nodes = self.total_nodes(ctx);
        self.stats.record_iteration(
            depth as usize,
            self.nodes - iteration_start_nodes,
            ctx.tm.start.elapsed(),
        );
        let hashfull = sh.tt.hashfull();
        for (k, line) in lines.iter().enumerate() {
            on_info(&SearchInfo {
                depth: depth as u32,
                seldepth: self.seldepth as u32,
                multipv: k + 1,
                score: Score::from_internal(line.score),
                nodes,
                nps: nodes * 1000 / time_ms.max(1),
                hashfull,
                tbhits: sh.tb_hits.load(Ordering::Relaxed),
                time_ms,
                pv: if line.pv.is_empty() && k == 0 {
                    best.into_iter().collect()
                } else {
                    line.pv.clone()
                },
            });
        }
    }

    /// Step 5, `go mate`: the main thread has proven a mate in at most that many moves.
    fn mate_found(&self, ctx: &Ctx, limits: &Limits, result: &SearchResult) -> bool {
        ctx.helper.is_none()
            && matches!((limits.mate, result.score), (Some(n), Score::Mate(m)) if m > 0 && m as u32 <= n)
    }

    /// Step 5, tm_: the time budget extended on instability or a dropped score
    /// (`score_dropped`), shortened while the best move holds.
    fn adjust_time(
        &self,
        ctx: &mut Ctx,
        progress: &mut Progress,
        best: Option<Move>,
        score_dropped: bool,
    ) {
        let changed = progress.best_move.is_some() && progress.best_move != best;
        ctx.tm.adjust(
            &ctx.shared.params,
            &IterationVerdict {
                best_move_changed: changed,
                stable_iterations: progress.stable_iterations,
                score_dropped,
                best_move_node_pct: best.map_or(100, |m| self.root_move_node_pct(m)),
            },
        );
        progress.stable_iterations = if changed {
            0
        } else {
            progress.stable_iterations + 1
        };
        progress.best_move = best;
    }

    /// Step 5: whether no further iteration starts: the soft time limit passed or
    /// the move is forced on the clock (the main thread alone keeps the clock, and
    /// stops its helpers), the node limit is reached, or the search was stopped.
    fn search_is_over(&self, ctx: &Ctx, limits: &Limits, root: &Root) -> bool {
        // A forced reply on the clock needs no thinking: save the time.
        let forced = root.allowed.len() == 1 && limits.clock.is_some();
        let keeps_clock =
            ctx.helper.is_none() && !ctx.infinite && !ctx.control.pondering.load(Ordering::Relaxed);
        (keeps_clock && (ctx.tm.soft_expired() || forced))
            || ctx.node_limit.is_some_and(|n| self.total_nodes(ctx) >= n)
            || ctx.control.stop.load(Ordering::Relaxed)
            || Worker::team_aborted(ctx)
    }

    /// asp_: the root searched in a window around the previous score, widened on
    /// failure until the score falls inside. Returns the score and whether it failed
    /// low on the way. asp_fail_high_: each fail high searches again a ply shallower
    /// (at most `asp_fail_high_plies` plies in all, never below 1; a fail low goes back
    /// to the full depth): a move that already beats the window needs less depth to
    /// confirm it, and the iteration ends sooner.
    fn aspiration(
        &mut self,
        ctx: &Ctx,
        root: &Position,
        depth: i32,
        prev_score: i32,
    ) -> (i32, bool) {
        let p = &ctx.shared.params;
        let mut delta = p.asp_delta();
        let (mut alpha, mut beta) = (-INF, INF);
        if depth >= p.asp_min_depth() && prev_score.abs() < MATE_BOUND {
            alpha = (prev_score - delta).max(-INF);
            beta = (prev_score + delta).min(INF);
        }
        let mut failed_low = false;
        let mut search_depth = depth;
        self.root_fail_high = None;
        loop {
            let s = self.negamax(ctx, root, alpha, beta, search_depth, 0, false);
            if self.stopped {
                return (s, failed_low);
            }
            if s <= alpha {
                // A move that failed high before has now fallen below the window.
                self.root_fail_high = None;
                failed_low = true;
                search_depth = depth;
                beta = (alpha + beta) / 2;
                alpha = (s - delta).max(-INF);
            } else if s >= beta {
                self.root_fail_high = self.root_line();
                beta = (s + delta).min(INF);
                if depth - search_depth < p.asp_fail_high_plies()
                    && search_depth > 1
                    && s < MATE_BOUND
                {
                    search_depth -= 1;
                    self.stats.asp_fail_high_reductions += 1;
                }
            } else {
                return (s, failed_low);
            }
            delta += (delta * (p.asp_widen_pct() - 100) / 100).max(1);
        }
    }
}
