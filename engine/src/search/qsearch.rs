//! Quiescence search: stand pat, then captures and promotions (generated alone by
//! [`crate::movegen`], never the full move list), every evasion when in check,
//! losing captures (SEE < 0) skipped, delta pruning (`qs_delta_`) and a SEE threshold
//! that rises with the distance to alpha (`qs_see_`). With `qs_check_plies` its first
//! plies also try the quiet moves that give check (`qs_check_`), so that the child,
//! in check, searches every evasion and sees a mate the captures alone miss.

use std::ops::ControlFlow;

use super::movepick::MovePicker;
use super::see::{captured_value, see_below};
use super::tt::Bound;
use super::{Ctx, Worker};
use crate::movegen::is_noisy;
use crate::params::Params;
use crate::position::Position;
use crate::score::{INF, MATE, MAX_PLY};

/// qs_check_: whether the q-search ply `qs_ply` (0 where the main search drops into
/// it) tries the quiet moves that give check.
#[inline(always)]
fn tries_quiet_checks(p: &Params, qs_ply: usize) -> bool {
    qs_ply < p.qs_check_plies() as usize
}

impl Worker {
    /// `qs_ply` counts the q-search's own plies: 0 where the main search calls it.
    pub(super) fn qsearch(
        &mut self,
        ctx: &Ctx,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qs_ply: usize,
    ) -> i32 {
        let (sh, p) = (ctx.shared, &ctx.shared.params);
        self.pv_len[ply] = ply;
        if self.count_node_and_check_stop(ctx) {
            return 0;
        }
        self.stats.qnodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;
        let in_check = pos.is_check();
        if self.is_draw(pos) {
            return self.draw_score(p);
        }
        if ply >= MAX_PLY - 4 {
            return if in_check { 0 } else { self.eval.evaluate(pos) };
        }

        // corr_: stand pat on the corrected eval, as the main search prunes on it
        // (q-search learns nothing into the tables).
        let corr_keys = self.correction_keys(p, pos, ply, !in_check);
        let (tt, raw_eval) = match self.probe_and_evaluate(ctx, pos, alpha, beta, 0, ply, in_check)
        {
            ControlFlow::Break(score) => return score,
            ControlFlow::Continue(node) => node,
        };
        let static_eval = self.corrected_eval(p, corr_keys, raw_eval);

        // Stand pat: outside check the side to move may decline every capture.
        let mut best_score = -INF;
        if !in_check {
            best_score = static_eval;
            if best_score >= beta {
                return best_score;
            }
            alpha = alpha.max(best_score);
        }

        let original_alpha = alpha;
        // qs_see_: far below alpha, a capture must win at least the gap (less the
        // margin) by SEE; the gap is the stand pat's, once for the node (Ethereal's
        // max(1, alpha - eval - 110)), not the alpha a capture raised.
        let see_threshold = p
            .qs_see_floor()
            .max(original_alpha - static_eval - p.qs_see_margin())
            .max(0);
        let mut best_move = None;
        // Only a move the picker keeps is checked for legality (see `new_qsearch`).
        let tt_move = tt.and_then(|h| h.mv_if(pos, |m| in_check || is_noisy(m)));
        let quiet_checks = tries_quiet_checks(p, qs_ply);
        let mut picker = MovePicker::new_qsearch(tt_move, in_check, quiet_checks);
        while let Some(m) = picker.next(pos, &self.history, &sh.derived.ordering) {
            if !in_check {
                // qs_check_: a quiet check is pruned as a capture of nothing, and
                // searched only when it does not lose the piece by SEE.
                let quiet = !is_noisy(&m);
                // qs_delta_: delta pruning. Even winning the victim outright cannot
                // reach alpha.
                if m.promotion().is_none()
                    && static_eval
                        + captured_value(&m, &sh.derived.ordering.see)
                        + p.qs_delta_margin()
                        <= alpha
                {
                    continue;
                }
                // qs_see_: promotions keep 0, as delta pruning spares them. The
                // picker already dropped losing captures; the TT move and
                // promotions were not screened there.
                let threshold = if m.is_promotion() || quiet {
                    0
                } else {
                    see_threshold
                };
                let unscreened = threshold > 0 || Some(m) == tt_move || m.is_promotion() || quiet;
                if unscreened
                    && see_below(
                        pos,
                        &m,
                        &sh.derived.ordering.see,
                        picker.known_see(),
                        threshold,
                    )
                {
                    self.stats.qs_see_skips += u64::from(threshold > 0);
                    continue;
                }
                self.stats.qs_quiet_checks += u64::from(quiet);
            }
            // Every move from this ply is a real one: the children's repetition test
            // walks past it, and their correction keys (corr_cont_) read it.
            self.set_current_move(ply, Some(m), pos.turn(), None);
            // Prefetch the child's TT bucket before making the move, so the load
            // overlaps the copy-make.
            let key = self.prefetch_child(sh, pos, &m);
            let score = self.make_child(pos, m, key, |this, child| {
                -this.qsearch(ctx, child, -beta, -alpha, ply + 1, qs_ply + 1)
            });
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && best_score == -INF {
            return -MATE + ply as i32;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        sh.tt.store(
            pos.hash(),
            ply,
            best_move,
            best_score,
            raw_eval,
            0,
            bound,
            pv_node,
        );
        best_score
    }
}
