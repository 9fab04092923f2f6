//! Search statistics for `occam bench --stats` and the `SearchStats` UCI option:
//! effective branching factor per iteration, fail-high on the first move and within
//! the first four, time to depth, TT hit rate and the q-search share of nodes.

use std::time::Duration;

/// One iteration depth, summed over every search that completed it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IterationStats {
    /// Searches that completed this depth.
    pub count: u64,
    /// Nodes spent in this iteration alone.
    pub nodes: u64,
    /// Time from the start of the search to the end of this iteration.
    pub time_to_depth: Duration,
}

/// Statistics accumulated since the last [`super::Searcher::reset_stats`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Main-search nodes.
    pub nodes: u64,
    /// Quiescence nodes.
    pub qnodes: u64,
    /// Probes by the main search and the q-search.
    pub tt_probes: u64,
    pub tt_hits: u64,
    /// The q-search's share of the probes and hits above.
    pub tt_probes_qs: u64,
    pub tt_hits_qs: u64,
    /// Main-search probes whose entry had a (legal) move.
    pub tt_moves: u64,
    /// Beta cut-offs in the main search's move loop.
    pub cutoffs: u64,
    pub cutoffs_first: u64,
    pub cutoffs_first4: u64,
    pub searches: u64,
    pub time: Duration,
    /// Cut-offs at nodes without a TT move, and of those on the first move.
    pub cutoffs_no_tt: u64,
    pub cutoffs_no_tt_first: u64,
    /// Cut-offs on a later move (not the first searched), by what the move was
    /// (indexed by [`CutKind`]).
    pub cutoffs_later: [u64; CutKind::COUNT],
    /// ext_: singular searches run, and what they decided for the TT move.
    pub singular_searches: u64,
    pub singular_extensions: u64,
    pub multi_cuts: u64,
    /// iir_: nodes searched at a draft reduced for want of a hash move.
    pub iir_reductions: u64,
    /// hist_prune_: quiets skipped for their histories.
    pub hist_prunes: u64,
    /// lmr_deeper_ / lmr_shallower_: re-searches one ply deeper or shallower than
    /// the unreduced draft.
    pub lmr_deeper: u64,
    pub lmr_shallower: u64,
    /// lmr_capture_: late losing captures given a share of the quiets' reduction.
    pub lmr_capture_reductions: u64,
    /// lmr_noisy_: other late noisy moves reduced a ply or more for their capture
    /// history.
    pub lmr_noisy_reductions: u64,
    /// ext_history_: quiets at PV nodes extended for their continuation histories.
    pub history_extensions: u64,
    /// qs_see_: q-search captures skipped under a SEE threshold raised above 0.
    pub qs_see_skips: u64,
    /// qs_check_: quiet checks searched by the q-search.
    pub qs_quiet_checks: u64,
    /// asp_fail_high_: root re-searches a ply shallower after a fail high.
    pub asp_fail_high_reductions: u64,
    /// ext_se_limit_: singular searches stopped by their move limits.
    pub singular_limits: u64,
    /// Index 0 is depth 1.
    pub iterations: Vec<IterationStats>,
}

/// What a move that cut off after the first move was, for move-ordering work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutKind {
    TtMove,
    GoodCapture,
    Killer1,
    Killer2,
    Counter,
    /// A quiet ordered by the histories.
    Quiet,
    BadCapture,
    /// Any move of a node in check (evasions are ordered as one list).
    Evasion,
}

impl CutKind {
    pub const COUNT: usize = 8;
    pub const NAMES: [&str; CutKind::COUNT] = [
        "tt", "goodcap", "killer1", "killer2", "counter", "quiet", "badcap", "evasion",
    ];
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

impl SearchStats {
    /// A cut-off happened on the `move_number`-th move searched (1-based).
    #[inline]
    pub fn record_cutoff(&mut self, move_number: usize) {
        self.cutoffs += 1;
        if move_number == 1 {
            self.cutoffs_first += 1;
        }
        if move_number <= 4 {
            self.cutoffs_first4 += 1;
        }
    }

    /// Where the cut-off came from: whether the node had a TT move, and what the
    /// move was (`kind`) when it was not the first searched.
    #[inline]
    pub fn record_cutoff_source(
        &mut self,
        move_number: usize,
        had_tt_move: bool,
        kind: Option<CutKind>,
    ) {
        debug_assert_eq!(kind.is_some(), move_number > 1);
        if !had_tt_move {
            self.cutoffs_no_tt += 1;
            self.cutoffs_no_tt_first += (move_number == 1) as u64;
        }
        if let Some(kind) = kind {
            self.cutoffs_later[kind as usize] += 1;
        }
    }

    pub fn record_iteration(&mut self, depth: usize, nodes: u64, elapsed: Duration) {
        if self.iterations.len() < depth {
            self.iterations.resize(depth, IterationStats::default());
        }
        let it = &mut self.iterations[depth - 1];
        it.count += 1;
        it.nodes += nodes;
        it.time_to_depth += elapsed;
    }

    /// Percentage of cut-offs produced by the first move searched.
    pub fn first_move_cutoff_pct(&self) -> f64 {
        pct(self.cutoffs_first, self.cutoffs)
    }

    pub fn first4_cutoff_pct(&self) -> f64 {
        pct(self.cutoffs_first4, self.cutoffs)
    }

    pub fn tt_hit_pct(&self) -> f64 {
        pct(self.tt_hits, self.tt_probes)
    }

    pub fn qnode_pct(&self) -> f64 {
        pct(self.qnodes, self.nodes + self.qnodes)
    }

    /// Effective branching factor of each iteration: its nodes over the previous
    /// iteration's, summed over searches (index 0 is depth 2).
    pub fn ebf(&self) -> Vec<(usize, f64)> {
        self.iterations
            .windows(2)
            .enumerate()
            .filter(|(_, w)| w[0].nodes > 0 && w[0].count == w[1].count)
            .map(|(i, w)| (i + 2, w[1].nodes as f64 / w[0].nodes as f64))
            .collect()
    }
}

impl std::fmt::Display for SearchStats {
    /// One line: `nodes … qnodes … ` then the derived figures.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nodes {} qnodes {} qshare {:.1}% tthit {:.1}% cutoffs {} fh1 {:.1}% fh4 {:.1}%",
            self.nodes,
            self.qnodes,
            self.qnode_pct(),
            self.tt_hit_pct(),
            self.cutoffs,
            self.first_move_cutoff_pct(),
            self.first4_cutoff_pct()
        )?;
        let ebf: Vec<String> = self
            .ebf()
            .iter()
            .map(|(d, e)| format!("{d}:{e:.2}"))
            .collect();
        write!(f, " ebf {}", ebf.join(","))?;
        let ttd: Vec<String> = self
            .iterations
            .iter()
            .enumerate()
            .filter(|(_, it)| it.count > 0)
            .map(|(i, it)| {
                format!(
                    "{}:{:.1}ms",
                    i + 1,
                    it.time_to_depth.as_secs_f64() * 1000.0 / it.count as f64
                )
            })
            .collect();
        write!(f, " time-to-depth {}", ttd.join(","))?;
        write!(
            f,
            " cutoffs-no-tt {} fh1-no-tt {:.1}% later",
            self.cutoffs_no_tt,
            pct(self.cutoffs_no_tt_first, self.cutoffs_no_tt)
        )?;
        for (name, n) in CutKind::NAMES.iter().zip(self.cutoffs_later) {
            write!(f, " {name}:{n}")?;
        }
        write!(
            f,
            " tthit-main {:.1}% ttmove-main {:.1}% tthit-qs {:.1}%",
            pct(
                self.tt_hits - self.tt_hits_qs,
                self.tt_probes - self.tt_probes_qs
            ),
            pct(self.tt_moves, self.tt_probes - self.tt_probes_qs),
            pct(self.tt_hits_qs, self.tt_probes_qs)
        )?;
        write!(
            f,
            " singular {} ext {} multicut {} iir {}",
            self.singular_searches, self.singular_extensions, self.multi_cuts, self.iir_reductions
        )?;
        write!(
            f,
            " histprune {} lmr-deeper {} lmr-shallower {} lmr-badcap {} lmr-noisy {} ext-hist {} qs-see {} qs-checks {} asp-fh {} se-limit {}",
            self.hist_prunes,
            self.lmr_deeper,
            self.lmr_shallower,
            self.lmr_capture_reductions,
            self.lmr_noisy_reductions,
            self.history_extensions,
            self.qs_see_skips,
            self.qs_quiet_checks,
            self.asp_fail_high_reductions,
            self.singular_limits
        )
    }
}
