//! Lazy SMP (`Threads` > 1): helper threads search the same root at the same time,
//! each with its own [`Worker`] (stacks, histories, killers, evaluator caches), and
//! share only the lock-free transposition table, where their results meet. Helpers
//! skip some iteration depths so the threads spread over different depths. The main
//! thread alone manages time and prints `info`; nodes are counted over all threads.
//!
//! bestmove: the deepest completed iteration of any thread, ties to the main thread;
//! a mate the main thread proved is kept unless a helper proves one as short.
//! A helper that skips depths can finish an iteration the main thread has not
//! reached; its move was then searched deeper than anything the main thread has.
//! A vote weighting score and depth (Stockfish) pays with many threads; with the
//! few threads this runs with, the plain rule keeps the reported line and the
//! played move together (a helper's line is printed as a last `info` when it wins).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{
    CHECK_EVERY_NODES, Control, Ctx, Game, Limits, SEARCH_STACK_BYTES, Score, SearchInfo,
    SearchResult, Searcher, TimeManager, Worker,
};

/// What the threads of one multi-threaded search share besides [`super::Shared`].
pub(super) struct Team {
    /// Set when the main thread's search ends: the helpers stop.
    abort: AtomicBool,
    /// Nodes of all threads, each adding its own every `poll_every` nodes.
    nodes: AtomicU64,
    /// Nodes between two reports of a thread (fewer under a node limit, so the team
    /// stops close to it).
    pub(super) poll_every: u64,
}

/// Reports per thread within a node limit: the team overshoots `go nodes N` by at
/// most about N / this.
const NODE_LIMIT_REPORTS: u64 = 64;

// Depth skipping (the scheme of Stockfish 9-10): helper `i` uses pattern
// `(i - 1) % 20` and skips `depth` when `(depth + phase) / size` is odd, so half of
// the helpers work one iteration ahead of the others and the rest spread wider.
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// Whether helper `helper` (1-based) leaves out the iteration at `depth`.
pub(super) fn skips_depth(helper: usize, depth: i32) -> bool {
    let i = (helper - 1) % SKIP_SIZE.len();
    (depth + SKIP_PHASE[i]) / SKIP_SIZE[i] % 2 != 0
}

impl Worker {
    /// Adds this thread's new nodes to the team's count and decides whether to stop:
    /// the main thread is done, `stop`, the node limit over all threads, or (main
    /// thread only) the hard time limit.
    #[cold]
    pub(super) fn poll_team(&mut self, ctx: &Ctx, team: &Team) {
        let new = self.nodes - self.reported;
        let total = team.nodes.fetch_add(new, Ordering::Relaxed) + new;
        self.reported = self.nodes;
        let time_up = ctx.helper.is_none()
            && self.root_depth > 1
            && !ctx.infinite
            && !ctx.control.pondering.load(Ordering::Relaxed)
            && ctx.tm.hard_expired();
        if team.abort.load(Ordering::Relaxed)
            || ctx.control.stop.load(Ordering::Relaxed)
            || ctx.node_limit.is_some_and(|n| total > n)
            || time_up
        {
            self.stopped = true;
        }
    }

    /// Nodes searched so far by every thread (this one's exactly, the others' up to
    /// their last report).
    pub(super) fn total_nodes(&self, ctx: &Ctx) -> u64 {
        match ctx.team {
            Some(team) => team.nodes.load(Ordering::Relaxed) + self.nodes - self.reported,
            None => self.nodes,
        }
    }

    /// Reports the nodes not yet counted (at the end of a thread's search).
    pub(super) fn flush_nodes(&mut self, ctx: &Ctx) {
        if let Some(team) = ctx.team {
            team.nodes
                .fetch_add(self.nodes - self.reported, Ordering::Relaxed);
            self.reported = self.nodes;
        }
    }

    /// Whether the search of the whole team is over (checked between iterations).
    pub(super) fn team_aborted(ctx: &Ctx) -> bool {
        ctx.team
            .is_some_and(|team| team.abort.load(Ordering::Relaxed))
    }
}

/// Whether a helper's result is played instead of the main thread's: a deeper
/// completed iteration, except that a mate the main thread proved is kept unless the
/// helper proves one as short. A helper's deeper iteration can miss a short mate that
/// needs a quiet move its reductions cut; the proof still stands.
fn replaces(main: &SearchResult, helper: &SearchResult) -> bool {
    if helper.depth <= main.depth || helper.best_move.is_none() {
        return false;
    }
    match (main.score, helper.score) {
        (Score::Mate(m), Score::Mate(h)) if m > 0 => h > 0 && h <= m,
        (Score::Mate(m), _) => m <= 0,
        _ => true,
    }
}

impl Searcher {
    /// [`Searcher::search`] with the helpers running beside the main thread.
    pub(super) fn search_with_helpers(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &Control,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let threads = self.threads() as u64;
        let team = Team {
            abort: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            poll_every: limits.nodes.map_or(CHECK_EVERY_NODES, |n| {
                (n / (threads * NODE_LIMIT_REPORTS)).clamp(1, CHECK_EVERY_NODES)
            }),
        };
        let tm = TimeManager::new(limits, &self.shared.params);
        let ctx_for = |helper: Option<usize>| Ctx {
            shared: &self.shared,
            team: Some(&team),
            helper,
            control,
            tm: tm.clone(),
            node_limit: limits.nodes,
            infinite: limits.infinite,
        };
        let (main, helpers) = (&mut self.main, &mut self.helpers);
        std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .filter_map(|(i, worker)| {
                    let mut ctx = ctx_for(Some(i + 1));
                    // A helper that cannot be started is done without: the search
                    // still runs on the threads that could.
                    std::thread::Builder::new()
                        .name(format!("helper {}", i + 1))
                        .stack_size(SEARCH_STACK_BYTES)
                        .spawn_scoped(scope, move || {
                            let mut last: Option<SearchInfo> = None;
                            let result =
                                worker.iterative_deepening(&mut ctx, game, limits, &mut |info| {
                                    last = Some(info.clone())
                                });
                            (result, last)
                        })
                        .ok()
                })
                .collect();
            let mut ctx = ctx_for(None);
            let mut result = main.iterative_deepening(&mut ctx, game, limits, on_info);
            team.abort.store(true, Ordering::Relaxed);
            let finished: Vec<_> = running.into_iter().filter_map(|h| h.join().ok()).collect();
            let nodes = team.nodes.load(Ordering::Relaxed);
            // bestmove: deepest completed iteration, ties to the main thread (see the
            // module doc).
            if let Some((helper, info)) = finished
                .into_iter()
                .filter_map(|(r, info)| info.map(|i| (r, i)))
                .filter(|(r, _)| replaces(&result, r))
                .max_by_key(|(r, _)| r.depth)
            {
                let time_ms = ctx.tm.elapsed_ms();
                on_info(&SearchInfo {
                    nodes,
                    nps: nodes * 1000 / time_ms.max(1),
                    time_ms,
                    hashfull: self.shared.tt.hashfull(),
                    ..info
                });
                result = helper;
            }
            result.nodes = nodes;
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position as _};

    fn result(depth: u32, score: Score) -> SearchResult {
        SearchResult {
            best_move: Chess::default().legal_moves().first().cloned(),
            ponder_move: None,
            score,
            depth,
            nodes: 0,
        }
    }

    #[test]
    fn a_deeper_helper_wins_but_never_over_a_proven_mate() {
        let main = result(3, Score::Cp(40));
        assert!(replaces(&main, &result(4, Score::Cp(-10))));
        assert!(!replaces(&main, &result(3, Score::Mate(1))), "not deeper");
        let mating = result(3, Score::Mate(2));
        assert!(!replaces(&mating, &result(4, Score::Cp(538))));
        assert!(!replaces(&mating, &result(4, Score::Mate(3))));
        assert!(!replaces(&mating, &result(4, Score::Mate(-5))));
        assert!(replaces(&mating, &result(4, Score::Mate(2))));
        assert!(replaces(&mating, &result(5, Score::Mate(1))));
        let mated = result(3, Score::Mate(-2));
        assert!(replaces(&mated, &result(4, Score::Cp(-900))));
        let no_move = SearchResult {
            best_move: None,
            ..result(6, Score::Cp(0))
        };
        assert!(!replaces(&main, &no_move));
    }
}
