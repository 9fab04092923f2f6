//! The root: iterative deepening with aspiration windows (`asp_*`), the iteration
//! reports and the time checks between iterations (`tm_*`).

use std::sync::atomic::Ordering;

use shakmaty::Move;

use super::{
    Ctx, Frame, Game, INF, Limits, MATE_BOUND, MAX_PLY, Score, SearchInfo, SearchResult, Worker,
    smp,
};

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
        let root = &game.position;
        let legal = root.legal_moves();
        // Fallback before any iteration completes: the TT move, else the first legal move.
        let tt_move = sh.tt.probe(root, 0).and_then(|h| h.mv);
        let mut result = SearchResult {
            best_move: tt_move.or_else(|| legal.first().copied()),
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
        let mut prev_score: i32 = 0;
        let mut prev_best: Option<Move> = None;
        for depth in 1..=max_depth {
            if ctx.helper.is_some_and(|h| smp::skips_depth(h, depth)) {
                continue;
            }
            self.root_depth = depth;
            self.seldepth = 0;
            let iteration_start_nodes = self.nodes;

            // asp_: aspiration windows around the previous score, widened on failure.
            let mut delta = p.asp_delta();
            let (mut alpha, mut beta) = (-INF, INF);
            if depth >= p.asp_min_depth() && prev_score.abs() < MATE_BOUND {
                alpha = (prev_score - delta).max(-INF);
                beta = (prev_score + delta).min(INF);
            }
            let mut failed_low = false;
            let score = loop {
                let s = self.negamax(ctx, root, alpha, beta, depth, 0);
                if self.stopped {
                    break s;
                }
                if s <= alpha {
                    failed_low = true;
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-INF);
                } else if s >= beta {
                    beta = (s + delta).min(INF);
                } else {
                    break s;
                }
                delta += (delta * (p.asp_widen_pct() - 100) / 100).max(1);
            };
            if self.stopped {
                // An interrupted iteration still counts when a root move was searched
                // to the end above alpha: it failed high or became the new best.
                if self.pv_len[0] > 0
                    && let Some(best) = self.pv[0][0]
                {
                    result.best_move = Some(best);
                    result.ponder_move = if self.pv_len[0] > 1 {
                        self.pv[0][1]
                    } else {
                        None
                    };
                }
                break;
            }

            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]]
                .iter()
                .flatten()
                .copied()
                .collect();
            let best = pv.first().copied().or(result.best_move);
            result = SearchResult {
                best_move: best,
                ponder_move: pv.get(1).copied(),
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
            on_info(&SearchInfo {
                depth: depth as u32,
                seldepth: self.seldepth as u32,
                score: result.score,
                nodes,
                nps: nodes * 1000 / time_ms.max(1),
                hashfull: sh.tt.hashfull(),
                tbhits: sh.tb_hits.load(Ordering::Relaxed),
                time_ms,
                pv: if pv.is_empty() {
                    best.into_iter().collect()
                } else {
                    pv
                },
            });

            // tm_: extend on instability / fail low, stop before a hopeless iteration.
            let changed = prev_best.is_some() && prev_best != best;
            let dropped = failed_low || score < prev_score - p.asp_delta();
            ctx.tm.adjust(p, changed, depth > 1 && dropped);
            prev_best = best;
            prev_score = score;
            // A forced reply on the clock needs no thinking: save the time. Helpers
            // leave the clock to the main thread, which stops them.
            let forced = legal.len() == 1 && limits.clock.is_some();
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
}
