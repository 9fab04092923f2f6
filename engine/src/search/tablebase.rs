//! tb_: Syzygy tablebases in the search. The tables and the scoring rules live in
//! [`crate::tablebase`]; this file holds the two places the search consults them:
//!
//! - the root ([`Searcher::tablebase_root`]): a root the tables cover is answered
//!   by the DTZ ranking without searching;
//! - the nodes right after a capture or pawn move ([`Worker::probe_tablebase`]):
//!   a WDL probe gives an exact score or a bound that cuts.
//!
//! Without tables both are a single `None` check.

use shakmaty::Position as _;

use super::tt::Bound;
use std::sync::atomic::Ordering;

use super::{Ctx, SearchInfo, SearchResult, Searcher, Shared, Worker};
use crate::position::{Game, Position};
use crate::score::{MAX_PLY, NO_SCORE, Score};
use crate::tablebase::{root_score, tb_score};

impl Searcher {
    /// tb_: the root's DTZ ranking, reported as one depth-1 iteration, or `None`
    /// (no tables, too many pieces, castling rights, a DTZ table missing).
    pub(super) fn tablebase_root(
        &mut self,
        game: &Game,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<SearchResult> {
        let sh = &self.shared;
        let tables = sh.tablebases.as_deref()?;
        let settings = sh.tb_settings;
        let probe = tables.root_probe(game.position.board(), &settings)?;
        let score = Score::from_internal(root_score(&probe, settings.rule50));
        sh.tb_hits.store(probe.probes, Ordering::Relaxed);
        on_info(&SearchInfo {
            depth: 1,
            seldepth: 1,
            multipv: 1,
            score,
            nodes: 0,
            nps: 0,
            hashfull: sh.tt.hashfull(),
            time_ms: 0,
            tbhits: probe.probes,
            pv: vec![probe.best_move],
        });
        Some(SearchResult {
            best_move: Some(probe.best_move),
            ponder_move: None,
            score,
            depth: 1,
            nodes: 0,
        })
    }
}

impl Shared {
    /// tb_: whether a node may be probed at all: tables are loaded and the half-move
    /// clock is zero (the node was reached by a capture or pawn move; the WDL tables
    /// assume that). Inlined in front of the out-of-line probe, so the search pays one
    /// test at the nodes that never probe.
    #[inline(always)]
    pub(super) fn may_probe_tablebase(&self, pos: &Position) -> bool {
        self.tablebases.is_some() && pos.halfmoves() == 0
    }
}

impl Worker {
    /// tb_: WDL probe of a node that [`Shared::may_probe_tablebase`] admits. Returns
    /// the node's score when the probe decides it: a draw always, a win at or above
    /// `beta`, a loss at or below `alpha`, and at a PV node a win or loss inside the
    /// window; the result is stored in the TT like a search result.
    #[inline(never)]
    pub(super) fn probe_tablebase(
        &self,
        ctx: &Ctx,
        pos: &Position,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
    ) -> Option<i32> {
        let sh = ctx.shared;
        let tables = sh.tablebases.as_deref()?;
        let settings = sh.tb_settings;
        let pieces = pos.board().board().occupied().count() as u32;
        let cardinality = tables.cardinality(settings.limit);
        if pieces > cardinality
            || (pieces == cardinality && depth < settings.depth)
            || self.stack[ply].excluded.is_some()
        {
            return None;
        }
        let wdl = tables.probe_wdl(pos.board())?;
        sh.tb_hits.fetch_add(1, Ordering::Relaxed);
        let score = tb_score(wdl, ply, settings.rule50);
        // A tablebase win may still be a mate the search can find: a lower bound.
        let bound = match score.signum() {
            _ if score.abs() <= 1 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        // By the bound as usual; at a PV node also when the score lies inside the
        // window (the line ends in a known result, its exact mate distance is not
        // looked for), but not while a mate score is the window's target.
        let pv_node = beta - alpha > 1;
        let decides = match bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta || (pv_node && score > alpha),
            Bound::Upper => score <= alpha || (pv_node && score < beta),
        };
        if !decides {
            return None;
        }
        // Deeper than any search of this node will be: the value is final.
        let draft = (depth + 6).min(MAX_PLY as i32 - 1);
        sh.tt.store(
            pos.hash(),
            ply,
            None,
            score,
            NO_SCORE,
            draft,
            bound,
            pv_node,
        );
        Some(score)
    }
}
