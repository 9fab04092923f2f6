//! The root: iterative deepening with aspiration windows (`asp_*`), MultiPV lines,
//! `searchmoves`, the iteration reports and the checks between iterations (time
//! `tm_*`, nodes, `go mate`).

use std::sync::atomic::Ordering;

use shakmaty::Move;

use super::time::IterationVerdict;
use super::{Ctx, Frame, Game, Limits, SearchInfo, SearchResult, Worker, smp};
use crate::score::{INF, MATE_BOUND, MAX_PLY, Score};

/// One completed principal variation of an iteration (MultiPV line).
#[derive(Clone, Debug)]
struct Line {
    score: i32,
    pv: Vec<Move>,
}

impl Worker {
    /// Searches `game.position` deeper and deeper until a limit is reached.
    pub(super) fn iterative_deepening(
        &mut self,
        ctx: &mut Ctx,
        game: &Game,
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let (sh, p) = (ctx.shared, &ctx.shared.params);
        self.history.clear_killers();
        self.nodes = 0;
        self.reported = 0;
        self.stopped = false;
        self.nmp_min_ply = 0;
        self.keys.clear();
        self.keys.extend_from_slice(&game.history);
        self.root_keys = self.keys.len();
        self.stack.fill(Frame::default());
        // The root carries its material + PST sum, so its children need not sum it.
        let root = &game.position.with_psq(self.eval.psq_table());
        let legal = root.legal_moves();
        // searchmoves: the legal ones among them; none legal (or none given) is all.
        self.root_moves.clear();
        self.root_moves
            .extend(legal.iter().filter(|m| limits.searchmoves.contains(m)));
        self.root_excluded.clear();
        self.root_move_nodes.clear();
        let allowed: Vec<Move> = if self.root_moves.is_empty() {
            legal.to_vec()
        } else {
            self.root_moves.clone()
        };
        // Fallback before any iteration completes: the TT move, else the first legal move.
        let tt_move = sh
            .tt
            .probe(root, 0)
            .and_then(|h| h.mv(root))
            .filter(|m| allowed.contains(m));
        let mut result = SearchResult {
            best_move: tt_move.or_else(|| allowed.first().copied()),
            ponder_move: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
        };
        if legal.is_empty() {
            result.score = if root.is_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            return result;
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .clamp(1, MAX_PLY as u32 - 8) as i32;
        // MultiPV: the main thread searches that many lines (helpers one).
        let multi_pv = if ctx.helper.is_some() {
            1
        } else {
            limits.multi_pv.clamp(1, allowed.len())
        };
        let mut lines: Vec<Line> = Vec::with_capacity(multi_pv);
        let mut prev_best: Option<Move> = None;
        let mut stable_iterations = 0u32;
        for depth in 1..=max_depth {
            if ctx.helper.is_some_and(|h| smp::skips_depth(h, depth)) {
                continue;
            }
            self.root_depth = depth;
            self.seldepth = 0;
            let iteration_start_nodes = self.nodes;

            // The k-th line searches the root without the first moves of lines 1..k.
            let mut current: Vec<Line> = Vec::with_capacity(multi_pv);
            let mut failed_low = false;
            self.root_excluded.clear();
            for k in 0..multi_pv {
                let prev_score = lines.get(k).map_or(0, |l| l.score);
                let (score, fl) = self.aspiration(ctx, root, depth, prev_score);
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
                    current.push(Line { score, pv });
                    break;
                };
                self.root_excluded.push(first);
                current.push(Line { score, pv });
            }
            self.root_excluded.clear();
            if self.stopped {
                if let Some(line) = current.first() {
                    // The best line completed this depth; later lines did not.
                    result.best_move = line.pv.first().copied().or(result.best_move);
                    result.ponder_move = line.pv.get(1).copied();
                } else if self.pv_len[0] > 0
                    && let Some(best) = self.pv[0][0]
                {
                    // An interrupted iteration still counts when a root move was
                    // searched to the end above alpha: it failed high or became the new
                    // best.
                    result.best_move = Some(best);
                    result.ponder_move = if self.pv_len[0] > 1 {
                        self.pv[0][1]
                    } else {
                        None
                    };
                }
                break;
            }
            // Lines are found best first; a later one may still score higher (search
            // instability): order them by score, stably.
            current.sort_by_key(|l| std::cmp::Reverse(l.score));

            let prev_score = lines.first().map_or(0, |l| l.score);
            let score = current[0].score;
            let best = current[0].pv.first().copied().or(result.best_move);
            result = SearchResult {
                best_move: best,
                ponder_move: current[0].pv.get(1).copied(),
                score: Score::from_internal(score),
                depth: depth as u32,
                nodes: self.nodes,
            };
            let time_ms = ctx.tm.elapsed_ms();
            let nodes = self.total_nodes(ctx);
            self.stats.record_iteration(
                depth as usize,
                self.nodes - iteration_start_nodes,
                ctx.tm.start.elapsed(),
            );
            let hashfull = sh.tt.hashfull();
            for (k, line) in current.iter().enumerate() {
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
            lines = current;

            // go mate: a mate in at most that many moves is proven.
            if ctx.helper.is_none()
                && let (Some(n), Score::Mate(m)) = (limits.mate, result.score)
                && m > 0
                && m as u32 <= n
            {
                break;
            }
            // tm_: extend on instability / fail low, stop before a hopeless iteration.
            let changed = prev_best.is_some() && prev_best != best;
            let dropped = failed_low || score < prev_score - p.asp_delta();
            ctx.tm.adjust(
                p,
                &IterationVerdict {
                    best_move_changed: changed,
                    stable_iterations,
                    score_dropped: depth > 1 && dropped,
                    best_move_node_pct: best.map_or(100, |m| self.root_move_node_pct(m)),
                },
            );
            stable_iterations = if changed { 0 } else { stable_iterations + 1 };
            prev_best = best;
            // A forced reply on the clock needs no thinking: save the time. Helpers
            // leave the clock to the main thread, which stops them.
            let forced = allowed.len() == 1 && limits.clock.is_some();
            if ctx.helper.is_none()
                && !ctx.infinite
                && !ctx.control.pondering.load(Ordering::Relaxed)
                && (ctx.tm.soft_expired() || forced)
            {
                break;
            }
            if ctx.node_limit.is_some_and(|n| self.total_nodes(ctx) >= n)
                || ctx.control.stop.load(Ordering::Relaxed)
                || Worker::team_aborted(ctx)
            {
                break;
            }
        }
        self.flush_nodes(ctx);
        self.stats.searches += 1;
        self.stats.time += ctx.tm.start.elapsed();
        result.nodes = self.nodes;
        result
    }

    /// asp_: the root searched in a window around the previous score, widened on
    /// failure until the score falls inside. Returns the score and whether it failed
    /// low on the way.
    fn aspiration(
        &mut self,
        ctx: &Ctx,
        root: &crate::position::Position,
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
        loop {
            let s = self.negamax(ctx, root, alpha, beta, depth, 0, false);
            if self.stopped {
                return (s, failed_low);
            }
            if s <= alpha {
                failed_low = true;
                beta = (alpha + beta) / 2;
                alpha = (s - delta).max(-INF);
            } else if s >= beta {
                beta = (s + delta).min(INF);
            } else {
                return (s, failed_low);
            }
            delta += (delta * (p.asp_widen_pct() - 100) / 100).max(1);
        }
    }
}
