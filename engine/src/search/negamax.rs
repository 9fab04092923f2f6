//! The main search, [`Worker::negamax`], and one helper per technique it applies:
//! null move, ProbCut, singular extensions, late-move pruning and the late-move
//! reduction. The helpers are inlined into the one function the compiler sees.

use std::ops::ControlFlow;

use shakmaty::{Color, Move, MoveList, Position as _};

use super::correction::CorrectionKeys;
use super::history::{ContKeys, ContScores, History};
use super::movepick::MovePicker;
use super::see::see_below;
use super::stats::CutKind;
use super::tt::{Bound, TtHit};
use super::{Ctx, Shared, Worker};
use crate::movegen::is_noisy;
use crate::params::Params;
use crate::position::Position;
use crate::score::{INF, MATE, MATE_BOUND, MAX_PLY, NO_SCORE, TB_WIN_BOUND};

/// What the sections of one node read once its static eval is known. Passed by
/// value to the inlined helpers: by reference it compiles to more instructions.
#[derive(Clone, Copy)]
struct Node {
    /// Draft; internal iterative reduction lowers it before the move loop.
    depth: i32,
    ply: usize,
    pv_node: bool,
    /// A null-window node expected to fail high (never a PV node).
    cut_node: bool,
    in_check: bool,
    /// Move excluded by the singular search this node is (`None`: a normal node).
    excluded: Option<Move>,
    /// The evaluator's eval (what the TT stores) and the corrected one (corr_).
    raw_eval: i32,
    static_eval: i32,
    /// The static eval refined by a TT score whose bound points the right way.
    eval: i32,
    /// improving_: better than our previous static eval, and Integral's rate (0..=100).
    improving: bool,
    improving_rate: i32,
    tt: Option<TtHit>,
    tt_move: Option<Move>,
    /// lmr_tt_capture: the best move known is a capture.
    tt_move_noisy: bool,
    /// tt_pv: this node is or once was on a PV (the flag stays with the entry).
    tt_pv: bool,
    /// corr_: the correction-table keys (`None`: nothing to correct or learn).
    corr_keys: Option<CorrectionKeys>,
    /// Inside a mate search (a window bound is already a mate score) the static
    /// eval says nothing: no eval-based pruning.
    mate_hunt: bool,
}

/// What the move loop's sections read about the move being searched.
struct Candidate {
    mv: Move,
    noisy: bool,
    /// cont_hist_: the quiet's continuation-history scores (zero for a noisy move).
    cont_scores: ContScores,
    /// A quiet's butterfly plus both continuation scores, as pruning and LMR read
    /// them; a noisy move's capture history (lmr_noisy_).
    hist: i32,
}

impl Worker {
    /// Principal variation search. `depth` is the draft (plies to the horizon),
    /// `ply` the distance from the root: extensions and reductions change the
    /// former, stacks are indexed by the latter. `cut_node`: a null-window node
    /// expected to fail high (Stockfish's flag; never set at PV nodes).
    ///
    /// 1. Node entry: q-search at the horizon, the stop test, draws, the `MAX_PLY`
    ///    guard and mate distance pruning.
    /// 2. Transposition table and static eval (`tt_`, `corr_`): a cut-off by the
    ///    stored score, else the corrected static eval.
    /// 3. Tablebases (`tb_`): a WDL probe right after a capture or pawn move.
    /// 4. Improving (`improving_`), against our static eval two or four plies back.
    /// 5. Node pruning at non-PV nodes out of check: razoring (`razor_`), reverse
    ///    futility pruning (`rfp_`), null move ([`Self::null_move`], `nmp_`) and
    ///    ProbCut ([`Self::probcut`], `probcut_`).
    /// 6. Internal iterative reduction (`iir_`).
    /// 7. The move loop: late-move pruning ([`Self::prunes_late_move`]: `lmp_`,
    ///    `fp_`, `cont_hist_prune_`, `hist_prune_`, `seeprune_`), extensions
    ///    ([`Self::singular_extension`]: `ext_se_`, `ext_double_`; check: `ext_check_`;
    ///    [`Self::history_extends`]: `ext_history_`),
    ///    the principal variation search with late-move reductions
    ///    ([`Self::late_move_reduction`]: `lmr_`) and its re-search draft
    ///    (`lmr_deeper_`, `lmr_shallower_`), and the history updates of a cut-off
    ///    (`hist_`).
    /// 8. Mate or stalemate, then the correction update and the TT store
    ///    ([`Self::store_node`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax(
        &mut self,
        ctx: &Ctx,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        // 1. Node entry.
        self.pv_len[ply] = ply;
        if depth <= 0 {
            return self.qsearch(ctx, pos, alpha, beta, ply, 0);
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
                return self.draw_score(p);
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

        // 2. tt_ / static eval: never while a move is excluded (singular search),
        // where the node's eval is the one its outer search already computed.
        let excluded = self.stack[ply].excluded;
        let corr_keys = self.correction_keys(p, pos, ply, !in_check && excluded.is_none());
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

        // 3. tb_: a WDL probe right after a capture or pawn move (tablebase.rs).
        if !root
            && ctx.shared.may_probe_tablebase(pos)
            && let Some(score) = self.probe_tablebase(ctx, pos, alpha, beta, depth, ply)
        {
            return score;
        }

        // hist_: the children start without killers from an unrelated subtree.
        self.history.clear_killers_at(ply + 1);
        let eval = refined_eval(static_eval, tt, in_check);
        self.stack[ply].static_eval = static_eval;
        if !in_check && excluded.is_none() {
            self.learn_from_eval_diff(p, ply, static_eval);
        }

        // 4. improving_
        let (improving, improving_rate) = self.improving(p, ply, in_check, static_eval);
        self.stack[ply].improving_rate = improving_rate;
        let mut node = Node {
            depth,
            ply,
            pv_node,
            cut_node,
            in_check,
            excluded,
            raw_eval,
            static_eval,
            eval,
            improving,
            improving_rate,
            tt,
            tt_move,
            tt_move_noisy: tt_move.is_some_and(|t| is_noisy(&t)),
            tt_pv: pv_node || tt.is_some_and(|h| h.pv),
            corr_keys,
            mate_hunt: alpha >= MATE_BOUND || beta <= -MATE_BOUND,
        };

        // 5. Node pruning.
        if !pv_node && !in_check && excluded.is_none() && !node.mate_hunt {
            // razor_: Stockfish's form; a hopeless node drops into q-search and returns
            // its value when that still fails low with a non-mate score.
            if depth <= p.razor_max_depth()
                && eval < alpha - p.razor_base() - p.razor_depth_sq() * depth * depth
            {
                let v = self.qsearch(ctx, pos, alpha - 1, alpha, ply, 0);
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
            if let Some(score) = self.null_move(ctx, pos, beta, node) {
                return score;
            }
            if let Some(score) = self.probcut(ctx, pos, beta, node) {
                return score;
            }
        }

        // 6. iir_: internal iterative reduction. A PV or expected cut-node high in the
        // tree without a hash move would pay for full-depth work with poor ordering;
        // searching it a little shallower is cheaper than IID and leaves a move in
        // the TT for the next visit. Placed after the pruning above (as Ethereal and
        // Stockfish place it after null move), so razoring, RFP, null move and
        // ProbCut keep judging the node at the draft their margins were tuned for;
        // from here on (move loop, singular extension, the TT store) the node is one
        // of the reduced draft. Never at the root (the iteration's depth stays what
        // it says) nor in a singular search (which probes no TT). Never below one ply.
        if p.iir_reduction() > 0
            && tt_move.is_none()
            && (pv_node || cut_node)
            && depth >= p.iir_min_depth()
            && !root
            && excluded.is_none()
        {
            self.stats.iir_reductions += 1;
            node.depth = (depth - p.iir_reduction()).max(1);
        }
        let depth = node.depth;

        // 7. The move loop.
        let color = pos.turn();
        let prev_move = self.previous_move(ply);
        let cont = self.cont_keys(p, ply);
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
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        while let Some(m) = picker.next(pos, &self.history, &sh.derived.ordering) {
            if Some(m) == excluded || root && self.skips_root_move(&m) {
                continue;
            }
            let c = self.candidate(pos, &mut picker, m, color, cont);

            // Pruning of late moves, once a move has been searched and we are not mated.
            if !root
                && best_score > -MATE_BOUND
                && self.prunes_late_move(sh, pos, &mut picker, node, &c, moves_searched, alpha)
            {
                continue;
            }

            // Prefetch the child's TT bucket before making the move (and before a
            // singular search), so the load overlaps the work until the child probes.
            let child_key = self.prefetch_child(sh, pos, &m);
            let mut extension = match self.singular_extension(ctx, pos, m, beta, node) {
                ControlFlow::Break(score) => return score,
                ControlFlow::Continue(extension) => extension,
            };
            moves_searched += 1;
            let nodes_before = self.nodes;
            let butterfly_key = (!c.noisy
                && (p.hist_eval_diff_mult() != 0 || p.hist_fail_low_pct() != 0))
                .then(|| History::butterfly_key(color, picker.threats(pos), &m));
            let score = self.make_child(pos, m, child_key, |this, child| {
                this.set_current_move(ply, Some(m), color, butterfly_key);
                let gives_check = child.is_check();
                // ext_check_: check extension, guarded by the ply so the tree cannot explode.
                if extension == 0
                    && gives_check
                    && (ply as i32) * 100 < p.ext_check_max_ply_pct() * this.root_depth
                {
                    extension = 1;
                }
                if extension == 0 && pv_node && this.history_extends(p, &c) {
                    extension = 1;
                }
                let new_depth = depth - 1 + extension;
                this.stack[ply + 1].double_extensions += (extension >= 2) as i32;

                // PVS: full window for the first move, null window (maybe reduced) for the rest.
                if moves_searched == 1 {
                    // The first move of a PV node is a PV node; at other nodes the
                    // child's expected type is the opposite of this one's.
                    let child_cut = !pv_node && !cut_node;
                    return -this.negamax(ctx, child, -beta, -alpha, new_depth, ply + 1, child_cut);
                }
                let (reduction, reduced) = this.late_move_reduction(
                    sh,
                    &picker,
                    node,
                    &c,
                    moves_searched,
                    gives_check,
                    new_depth,
                );
                // A reduced late move is expected to fail high (cut node); an
                // unreduced one is the opposite of this node.
                let child_cut = reduced || !cut_node;
                let reduced_depth = new_depth - reduction;
                let (a, b) = (-alpha - 1, -alpha);
                let mut score = -this.negamax(ctx, child, a, b, reduced_depth, ply + 1, child_cut);
                if score > alpha && reduction > 0 {
                    let research_depth = this.research_depth(p, score, best_score, new_depth);
                    if research_depth > reduced_depth {
                        score = -this.negamax(ctx, child, a, b, research_depth, ply + 1, !cut_node);
                    }
                }
                // pvs_: a PV node confirms a late move's null-window score with the full
                // window; at or above beta only when pvs_research_fail_high is on.
                if pv_node && score > alpha && (score < beta || p.pvs_research_fail_high() != 0) {
                    score = -this.negamax(ctx, child, -beta, -alpha, new_depth, ply + 1, false);
                }
                score
            });
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
                        let threats = if c.noisy { 0 } else { picker.threats(pos) };
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
            let tried = if c.noisy {
                &mut captures_tried
            } else {
                &mut quiets_tried
            };
            if tried.len() < tried.capacity() {
                tried.push(m);
            }
            if excluded.is_some()
                && self.ends_singular_search(p, &mut picker, &quiets_tried, &captures_tried)
            {
                break;
            }
        }

        // 8. No legal move (besides an excluded one): mate, stalemate, or a singular
        // search with nothing else to try.
        if moves_searched == 0 {
            return if excluded.is_some() {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                0
            };
        }
        // hist_fail_low_pct: the move that led here refuted every move of this node.
        if best_move.is_none() && excluded.is_none() && !root && p.hist_fail_low_pct() != 0 {
            self.learn_from_fail_low(p, color, ply, depth);
        }
        // The best of the moves left to a later MultiPV line is no value of the root.
        if excluded.is_none() && (!root || self.root_excluded.is_empty()) {
            self.store_node(sh, pos, node, beta, best_score, best_move);
        }
        best_score
    }

    /// improving_: Alexandria's rule (2 plies back, else 4, else true; never in
    /// check) and Integral's dynamic rate, both relative to our previous eval.
    #[inline(always)]
    fn improving(&self, p: &Params, ply: usize, in_check: bool, static_eval: i32) -> (bool, i32) {
        let reference = if ply >= 2 && self.stack[ply - 2].static_eval != NO_SCORE {
            Some(self.stack[ply - 2])
        } else if ply >= 4 && self.stack[ply - 4].static_eval != NO_SCORE {
            Some(self.stack[ply - 4])
        } else {
            None
        };
        match (in_check, reference) {
            (true, _) => (false, 0),
            (false, Some(r)) => (
                static_eval > r.static_eval,
                (r.improving_rate + (static_eval - r.static_eval) * 100 / p.improving_rate_div())
                    .clamp(0, 100),
            ),
            (false, None) => (true, 100),
        }
    }

    /// nmp_: null-move pruning, not in pawn endings, verified at high depth. The
    /// node's score when giving the opponent a free move still fails high (0 when
    /// the search stopped meanwhile).
    #[inline(always)]
    fn null_move(&mut self, ctx: &Ctx, pos: &Position, beta: i32, n: Node) -> Option<i32> {
        let p = &ctx.shared.params;
        let (depth, ply, eval) = (n.depth, n.ply, n.eval);
        let us = pos.turn();
        let board = pos.board().board();
        let has_pieces = (board.by_color(us) & !(board.pawns() | board.kings())).any();
        if depth >= p.nmp_min_depth()
            && eval >= beta
            && n.static_eval >= beta
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
            self.set_current_move(ply, None, us, None);
            self.keys.push(pos.hash());
            let v = -self.negamax(
                ctx,
                &null,
                -beta,
                -beta + 1,
                depth - r,
                ply + 1,
                !n.cut_node,
            );
            self.keys.pop();
            if self.stopped {
                return Some(0);
            }
            if v >= beta {
                // A mate or tablebase win after a pass proves no win here: a pass is
                // no legal move, and it may escape a zugzwang the real moves meet.
                let v = if v >= TB_WIN_BOUND { beta } else { v };
                if depth < verify_depth {
                    return Some(v);
                }
                // A nested verification keeps the outer one's limit afterwards.
                let outer_min_ply = self.nmp_min_ply;
                self.nmp_min_ply = ply + (3 * (depth - r) / 4).max(0) as usize;
                let w = self.negamax(ctx, pos, beta - 1, beta, depth - r, ply, false);
                self.nmp_min_ply = outer_min_ply;
                if self.stopped {
                    return Some(0);
                }
                if w >= beta {
                    return Some(v);
                }
            }
        }
        None
    }

    /// probcut_: a capture that beats a raised beta in q-search and at reduced
    /// depth is taken as proof the node fails high. Its score then (0 when the
    /// search stopped meanwhile).
    #[inline(always)]
    fn probcut(&mut self, ctx: &Ctx, pos: &Position, beta: i32, n: Node) -> Option<i32> {
        let (sh, p) = (ctx.shared, &ctx.shared.params);
        let depth = n.depth;
        let pc_beta = beta + p.probcut_margin() - n.improving as i32 * p.probcut_improving();
        if depth < p.probcut_min_depth()
            || beta.abs() >= MATE_BOUND
            || n.tt
                .is_some_and(|h| h.depth >= depth - 3 && h.score < pc_beta)
        {
            return None;
        }
        let pc_depth = depth - p.probcut_reduction();
        let mut picker = MovePicker::new_qsearch(n.tt_move, false, false);
        while let Some(m) = picker.next(pos, &self.history, &sh.derived.ordering) {
            let threshold = pc_beta - n.static_eval;
            if see_below(
                pos,
                &m,
                &sh.derived.ordering.see,
                picker.known_see(),
                threshold,
            ) {
                continue;
            }
            let key = self.prefetch_child(sh, pos, &m);
            let v = self.make_child(pos, m, key, |this, child| {
                this.set_current_move(n.ply, Some(m), pos.turn(), None);
                let (a, b) = (-pc_beta, -pc_beta + 1);
                let v = -this.qsearch(ctx, child, a, b, n.ply + 1, 0);
                if v >= pc_beta && pc_depth > 0 {
                    return -this.negamax(ctx, child, a, b, pc_depth, n.ply + 1, !n.cut_node);
                }
                v
            });
            if self.stopped {
                return Some(0);
            }
            if v >= pc_beta {
                let (hash, ply, eval) = (pos.hash(), n.ply, n.raw_eval);
                sh.tt.store(
                    hash,
                    ply,
                    Some(m),
                    v,
                    eval,
                    pc_depth + 1,
                    Bound::Lower,
                    // The node keeps the PV flag an earlier visit gave it (lmr_ttpv).
                    n.tt_pv,
                );
                return Some(v);
            }
        }
        None
    }

    /// The move loop's view of `m`: noisy or quiet, and a quiet's history scores.
    #[inline(always)]
    fn candidate(
        &self,
        pos: &Position,
        picker: &mut MovePicker,
        m: Move,
        color: Color,
        cont: ContKeys,
    ) -> Candidate {
        let noisy = is_noisy(&m);
        let cont_scores = if noisy {
            ContScores::default()
        } else {
            self.history.cont_scores(&m, cont)
        };
        let hist = if noisy {
            self.history.capture_score(color, &m)
        } else {
            self.history.score(color, picker.threats(pos), &m)
                + cont_scores.counter
                + cont_scores.follow_up
        };
        Candidate {
            mv: m,
            noisy,
            cont_scores,
            hist,
        }
    }

    /// ext_history_: a quiet at a PV node that both continuation histories rate
    /// highly (each at least `ext_history_min`) is searched a ply deeper: the
    /// replies to this line have proved it again and again. PV nodes are few, so
    /// the tree stays bounded.
    #[inline(always)]
    fn history_extends(&mut self, p: &Params, c: &Candidate) -> bool {
        let min = p.ext_history_min();
        let extends =
            min > 0 && !c.noisy && c.cont_scores.counter >= min && c.cont_scores.follow_up >= min;
        self.stats.history_extensions += u64::from(extends);
        extends
    }

    /// Whether a move after the first is pruned: late quiets by move count
    /// (`lmp_`), futility (`fp_`), both continuation histories
    /// (`cont_hist_prune_`), the histories together (`hist_prune_`) and SEE
    /// (`seeprune_`, captures too). Quiet checks are spared from move-count and
    /// futility pruning until the move count is large (`lmp_check_pct`), and no
    /// move count prunes while a shorter mate than the one in hand is looked for.
    /// May tell the picker to skip the remaining quiets.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn prunes_late_move(
        &mut self,
        sh: &Shared,
        pos: &Position,
        picker: &mut MovePicker,
        n: Node,
        c: &Candidate,
        moves_searched: usize,
        alpha: i32,
    ) -> bool {
        let (p, depth, m) = (&sh.params, n.depth, &c.mv);
        let lmr_depth = (depth - sh.lmr_reduction(depth, moves_searched + 1) / 100).max(0);
        if c.noisy {
            return depth <= p.seeprune_max_depth()
                && see_below(
                    pos,
                    m,
                    &sh.derived.ordering.see,
                    picker.known_see(),
                    -p.seeprune_capture_margin() * depth * depth,
                );
        }
        // lmp_: late move pruning with Integral's dynamic improving rate.
        let lmp_limit =
            (p.lmp_base() + p.lmp_depth_sq() * depth * depth) / (p.lmp_div() - n.improving_rate);
        let lmp_depth = depth <= p.lmp_max_depth();
        let lmp = lmp_depth && moves_searched as i32 >= lmp_limit;
        // fp_: futility pruning of quiets, except one whose butterfly and continuation
        // histories together reach fp_history_max (halved when improving, as
        // Ethereal's): the move has done well from here.
        let futile = !n.in_check
            && lmr_depth <= p.fp_max_depth()
            && n.static_eval + p.fp_base() + p.fp_depth() * lmr_depth <= alpha
            && c.hist < p.fp_history_max() >> u32::from(n.improving);
        if (lmp || futile) && !n.mate_hunt {
            // lmp_check_: this late, checks go with the other quiets (and need not
            // be looked for at all).
            if lmp_depth && moves_searched as i32 * 100 >= lmp_limit * p.lmp_check_pct() {
                picker.skip_quiets = true;
                picker.skip_quiet_checks = true;
                return true;
            }
            if !picker.quiet_gives_check(pos, m) {
                picker.skip_quiets = true;
                return true;
            }
        }
        // cont_hist_prune_: a quiet both continuation histories call bad.
        if lmr_depth <= p.cont_hist_prune_depth()
            && c.cont_scores.counter < -p.cont_hist_prune_margin()
            && c.cont_scores.follow_up < -p.cont_hist_prune_margin()
        {
            return true;
        }
        // hist_prune_: a quiet the histories together call bad, at low depth
        // (butterfly + counter-move + follow-up, as LMR reads them).
        if lmr_depth <= p.hist_prune_depth() && c.hist < -p.hist_prune_margin() * depth {
            self.stats.hist_prunes += 1;
            return true;
        }
        // seeprune_: quiets that lose material at low depth (`see_below` plays no
        // exchange out when losing the moved piece is still above the threshold).
        lmr_depth <= p.seeprune_max_depth()
            && see_below(
                pos,
                m,
                &sh.derived.ordering.see,
                None,
                -p.seeprune_quiet_margin() * lmr_depth,
            )
    }

    /// ext_se_: singular extension of the TT move, searched first: the node without
    /// it at half depth decides. `Continue` with the extension (ext_double_: 2 when
    /// far below, the TT move being the only move here; ext_se_negative: less than
    /// none when the TT move beats beta but so might others); `Break` with the
    /// node's score for a multi-cut (the alternatives beat beta too) or a stop.
    #[inline(always)]
    fn singular_extension(
        &mut self,
        ctx: &Ctx,
        pos: &Position,
        m: Move,
        beta: i32,
        n: Node,
    ) -> ControlFlow<i32, i32> {
        let p = &ctx.shared.params;
        let (depth, ply) = (n.depth, n.ply);
        if ply != 0
            && Some(m) == n.tt_move
            && n.excluded.is_none()
            && depth >= p.ext_se_min_depth()
            && (ply as i32) < 2 * self.root_depth
            && let Some(h) = n.tt
            && h.depth >= depth - 3
            && h.bound != Bound::Upper
            && h.score.abs() < MATE_BOUND
        {
            let s_beta = h.score - p.ext_se_beta_mult() * depth;
            self.stack[ply].excluded = Some(m);
            let v = self.negamax(
                ctx,
                pos,
                s_beta - 1,
                s_beta,
                (depth - 1) / 2,
                ply,
                n.cut_node,
            );
            self.stack[ply].excluded = None;
            self.stack[ply].static_eval = n.static_eval;
            self.stack[ply].improving_rate = n.improving_rate;
            if self.stopped {
                return ControlFlow::Break(0);
            }
            self.stats.singular_searches += 1;
            if v < s_beta {
                // ext_double_: capped per path so the tree cannot explode.
                self.stats.singular_extensions += 1;
                let double = !n.pv_node
                    && p.ext_double_margin() > 0
                    && v < s_beta - p.ext_double_margin()
                    && self.stack[ply].double_extensions < p.ext_double_max();
                return ControlFlow::Continue(if double { 2 } else { 1 });
            } else if s_beta >= beta {
                self.stats.multi_cuts += 1;
                return ControlFlow::Break(s_beta);
            } else if h.score >= beta {
                return ControlFlow::Continue(-p.ext_se_negative());
            }
        }
        ControlFlow::Continue(0)
    }

    /// ext_se_limit_: Ethereal's verification looks at a few quiets and a few
    /// captures: once a singular search has tried `ext_se_limit_quiets` quiets it
    /// skips the rest, and with `ext_se_limit_noisy` captures tried as well it stops
    /// (true); no alternative beating singular beta among them makes the TT move
    /// singular.
    #[inline(always)]
    fn ends_singular_search(
        &mut self,
        p: &Params,
        picker: &mut MovePicker,
        quiets: &MoveList,
        captures: &MoveList,
    ) -> bool {
        if (quiets.len() as i32) < p.ext_se_limit_quiets() {
            return false;
        }
        picker.skip_quiets = true;
        picker.skip_quiet_checks = true;
        let ends = captures.len() as i32 >= p.ext_se_limit_noisy();
        self.stats.singular_limits += u64::from(ends);
        ends
    }

    /// lmr_: the reduction in plies of the `move_number`th move, searched with a
    /// null window to `new_depth`, and whether it is a reduced quiet. Late quiets
    /// by the log-log table, adjusted in hundredths of a ply; late losing captures,
    /// the picker's last stage, by lmr_capture_pct of the table (lmr_capture_);
    /// other late noisy moves by their poor capture history (lmr_noisy_).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn late_move_reduction(
        &mut self,
        sh: &Shared,
        picker: &MovePicker,
        n: Node,
        c: &Candidate,
        move_number: usize,
        gives_check: bool,
        new_depth: i32,
    ) -> (i32, bool) {
        let (p, depth) = (&sh.params, n.depth);
        let late = depth >= p.lmr_min_depth() && move_number > 1 + n.pv_node as usize;
        let reduced = late && !c.noisy;
        let table_r = if reduced {
            let mut r = sh.lmr_reduction(depth, move_number);
            if !n.improving {
                r += p.lmr_improving();
            }
            if n.pv_node {
                r -= p.lmr_pv();
            } else if n.tt_pv {
                // lmr_ttpv: a former PV node is searched more carefully.
                r -= p.lmr_ttpv();
            }
            // lmr_refutation: killers and the counter move refuted a sibling (the
            // picker's move comparisons only when the term is on).
            if p.lmr_refutation() != 0
                && matches!(
                    picker.cut_kind(&c.mv, n.in_check),
                    CutKind::Killer1 | CutKind::Killer2 | CutKind::Counter
                )
            {
                r -= p.lmr_refutation();
            }
            // lmr_tt_capture: when the best move known is a capture, quiets are
            // less likely to matter.
            if n.tt_move_noisy {
                r += p.lmr_tt_capture();
            }
            // lmr_cut_node: where a fail high is expected, the first moves usually
            // give it and a late quiet seldom matters.
            if n.cut_node {
                r += p.lmr_cut_node();
            }
            r -= (c.hist * 100 / p.lmr_history_div())
                .clamp(-p.lmr_history_max(), p.lmr_history_max());
            Some(r)
        } else if late
            && p.lmr_capture_pct() > 0
            && picker.cut_kind(&c.mv, n.in_check) == CutKind::BadCapture
        {
            self.stats.lmr_capture_reductions += 1;
            Some(sh.lmr_reduction(depth, move_number) * p.lmr_capture_pct() / 100)
        } else if late && c.noisy && p.lmr_noisy_hist_div() > 0 {
            // lmr_noisy_: a late capture or promotion the capture history calls
            // poor (Ethereal's noisy LMR): a ply for each lmr_noisy_hist_div below
            // zero begun, as Ethereal rounds; good history never reduces it.
            let div = p.lmr_noisy_hist_div();
            let plies = if c.hist < 0 {
                (div - 1 - c.hist) / div
            } else {
                0
            };
            let r = (plies * 100).min(p.lmr_noisy_max());
            self.stats.lmr_noisy_reductions += u64::from(r >= 100);
            Some(r)
        } else {
            None
        };
        let reduction = table_r.map_or(0, |r| {
            let r = if gives_check { r - p.lmr_check() } else { r };
            (r / 100).clamp(0, (new_depth - 1).max(0))
        });
        (reduction, reduced)
    }

    /// lmr_deeper_ / lmr_shallower_: the draft of the re-search after a reduced
    /// search beat alpha, from its margin over the best score so far (Stockfish's
    /// rule): far above, one ply deeper; barely above, one ply shallower.
    #[inline(always)]
    fn research_depth(&mut self, p: &Params, score: i32, best_score: i32, new_depth: i32) -> i32 {
        if p.lmr_deeper_margin() > 0 && score > best_score + p.lmr_deeper_margin() + 2 * new_depth {
            self.stats.lmr_deeper += 1;
            new_depth + 1
        } else if score < best_score + p.lmr_shallower_margin() {
            self.stats.lmr_shallower += 1;
            new_depth - 1
        } else {
            new_depth
        }
    }

    /// corr_ and tt_: the end of a searched node. Learns the static eval's error
    /// from a quiet (or no) best move whose score is a bound on the right side of
    /// it (a capture's gain is no error of the static eval of this position), and
    /// stores the result.
    #[inline(always)]
    fn store_node(
        &mut self,
        sh: &Shared,
        pos: &Position,
        n: Node,
        beta: i32,
        best_score: i32,
        best_move: Option<Move>,
    ) {
        let bound = if best_score >= beta {
            Bound::Lower
        } else if n.pv_node && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if let Some(k) = n.corr_keys
            && best_score.abs() < MATE_BOUND
            && best_move.is_none_or(|m| !is_noisy(&m))
            && match bound {
                Bound::Exact => true,
                Bound::Lower => best_score > n.static_eval,
                Bound::Upper => best_score < n.static_eval,
            }
        {
            self.correction
                .update(&sh.params, k, n.depth, best_score - n.static_eval);
        }
        let mv = best_move.or(n.tt_move);
        sh.tt.store(
            pos.hash(),
            n.ply,
            mv,
            best_score,
            n.raw_eval,
            n.depth,
            bound,
            n.tt_pv,
        );
    }
}

/// The static eval refined by a TT score whose bound points the right way.
#[inline(always)]
fn refined_eval(static_eval: i32, tt: Option<TtHit>, in_check: bool) -> i32 {
    match tt {
        Some(h)
            if !in_check
                && h.score.abs() < MATE_BOUND
                && match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => h.score > static_eval,
                    Bound::Upper => h.score < static_eval,
                } =>
        {
            h.score
        }
        _ => static_eval,
    }
}
