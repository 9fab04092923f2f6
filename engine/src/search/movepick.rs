//! Staged move ordering: TT move -> good captures by MVV/LVA -> killer 1 -> killer 2
//! -> counter move -> quiets by history -> bad captures. The stages are lazy in what
//! costs: the TT move is tried before any generation, the captures and promotions
//! come from [`crate::movegen`]'s noisy generator (outside check), and the quiets
//! are generated, and scored, only when the earlier stages failed to cut.
//!
//! Moves of equal score come out in generation order (the TT move taken out):
//! captures and evasions in `legal_moves()` order, quiets pieces first, then pawns,
//! then the king ([`movegen::quiet_group`]). A test checks the staged generation
//! against the full list generated at once and put in that order.

use std::mem::MaybeUninit;

use shakmaty::{Move, MoveList, Role, Square};

use super::history::{ContKeys, History};
use super::see::{SeeValues, captured_value, see};
use super::stats::CutKind;
use crate::movegen::{self, is_noisy};
use crate::params::Params;
use crate::position::{CheckSquares, Position};

/// What move ordering reads from the parameters: the SEE piece values (MVV/LVA and
/// the good/bad capture split) and the capture history's weight in both (caphist_).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderingValues {
    pub see: SeeValues,
    /// caphist_: capture history units per centipawn of ordering score.
    pub caphist_div: i32,
    /// caphist_: capture history units per centipawn the SEE of a good capture may lose.
    pub caphist_see_div: i32,
    /// order_quiet_check: history units added to a quiet that gives check.
    pub quiet_check: i32,
}

impl OrderingValues {
    pub fn new(p: &Params) -> Self {
        OrderingValues {
            see: SeeValues::new(p),
            caphist_div: p.caphist_div(),
            caphist_see_div: p.caphist_see_div(),
            quiet_check: p.order_quiet_check(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    TtMove,
    Generate,
    GoodCaptures,
    ScoreQuiets,
    Quiets,
    BadCaptures,
    Done,
}

/// One list per node, partitioned in place: `[0, bad_end)` losing captures already
/// seen, then the captures still to pick up to `noisy_end`, then the quiets.
pub struct MovePicker {
    pub stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    /// Continuation-history rows for scoring the quiets.
    cont: ContKeys,
    /// hist_threats: the squares the enemy attacks, for the butterfly index (0 with
    /// the feature off). Computed on first use, [`MovePicker::threats`]: many nodes
    /// cut off before they look at any quiet.
    threats: Option<u64>,
    moves: MoveList,
    /// Ordering score of `moves[i]`. Never initialised as a whole: a slot is written
    /// when its move is generated (captures) or scored (quiets) and only read
    /// afterwards (see [`MovePicker::pick_best`]).
    scores: [MaybeUninit<i32>; MAX_MOVES],
    cursor: usize,
    noisy_end: usize,
    bad_end: usize,
    /// The captures came from the noisy generator; the quiets are still to generate.
    quiets_pending: bool,
    /// Set by the search (late move pruning/futility): the remaining quiets are
    /// skipped, except those that give check.
    pub skip_quiets: bool,
    /// lmp_check_: with `skip_quiets`, the checking quiets are skipped too.
    pub skip_quiet_checks: bool,
    /// Q-search outside check: no quiets and no losing captures at all...
    noisy_only: bool,
    /// ...except, with this (qs_check_), the quiets that give check, unsorted.
    quiet_checks: bool,
    /// Built on the first [`MovePicker::quiet_gives_check`] of the node.
    check_squares: Option<CheckSquares>,
    /// Generate every legal move at once, even outside check (the reference order
    /// the staged generation must give; tests only).
    full_list: bool,
}

/// More than the legal moves of any chess position (218).
const MAX_MOVES: usize = 256;

// Quiet keys
//
// A quiet move (a normal move without capture or promotion, or castling) as one
// integer: two quiets are equal exactly when their keys are. A killer or counter
// move that is not such a quiet gets `NO_KEY`, which no quiet has (it cannot equal
// one either: a quiet has no capture and no promotion).

const NO_KEY: u32 = u32::MAX;

#[inline(always)]
fn normal_key(role: Role, from: Square, to: Square) -> u32 {
    role as u32 | (from as u32) << 3 | (to as u32) << 9
}

/// Castling keys have bit 15 set, above every normal key.
#[inline(always)]
fn castle_key(king: Square, rook: Square) -> u32 {
    1 << 15 | king as u32 | (rook as u32) << 6
}

/// The key of `m` if it is a quiet move, else `NO_KEY`.
#[inline(always)]
fn quiet_key(m: Move) -> u32 {
    match m {
        Move::Normal {
            role,
            from,
            capture: None,
            to,
            promotion: None,
        } => normal_key(role, from, to),
        Move::Castle { king, rook } => castle_key(king, rook),
        _ => NO_KEY,
    }
}

/// A score slot of a returned capture whose SEE the picker did not compute.
const NO_SEE: i32 = i32::MIN;

/// Killer/counter bonuses sit far above any history score.
const KILLER_1: i32 = 1 << 30;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;

impl MovePicker {
    /// Main search picker; `tt_move` must already be validated as legal.
    pub fn new(
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        cont: ContKeys,
        threats_on: bool,
    ) -> Self {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers,
            counter,
            cont,
            threats: (!threats_on).then_some(0),
            moves: MoveList::new(),
            // One uninitialised value, not `[MaybeUninit::uninit(); MAX_MOVES]`: the
            // repeat expression compiles to a 1 KB memset at every node.
            // SAFETY: an array of `MaybeUninit` is valid uninitialised.
            scores: unsafe { MaybeUninit::uninit().assume_init() },
            cursor: 0,
            noisy_end: 0,
            bad_end: 0,
            quiets_pending: false,
            skip_quiets: false,
            skip_quiet_checks: false,
            noisy_only: false,
            quiet_checks: false,
            check_squares: None,
            full_list: false,
        }
    }

    /// Q-search picker: good captures and promotions, then with `quiet_checks` the
    /// quiets that give check (qs_check_); or every evasion when in check.
    #[inline]
    pub fn new_qsearch(tt_move: Option<Move>, in_check: bool, quiet_checks: bool) -> Self {
        let mut p = MovePicker::new(
            tt_move.filter(|m| in_check || is_noisy(m)),
            [None; 2],
            None,
            ContKeys::default(),
            false,
        );
        p.noisy_only = !in_check;
        p.quiet_checks = !in_check && quiet_checks;
        // The quiets' stage then offers only the checks (see `Stage::Quiets`).
        p.skip_quiets = p.quiet_checks;
        p
    }

    // The stages that run once per node (generation, scoring) are kept out of line:
    // inlined, their set-up code was hoisted into `next` and paid on every call.
    #[inline(never)]
    fn generate(&mut self, pos: &Position, history: &History, ordering: &OrderingValues) {
        let values = &ordering.see;
        if self.noisy_only || !(self.full_list || pos.is_check()) {
            // Only the noisy moves; the main search generates its quiets in a later
            // stage.
            movegen::noisy_moves_for_picker(pos.board(), self.tt_move, &mut self.moves);
            self.quiets_pending = !self.noisy_only || self.quiet_checks;
        } else {
            // In check: every evasion at once. Only the moves are copied into the
            // picker's list (assigning the returned list copied all its 1.3 KB).
            debug_assert!(!self.quiets_pending && self.moves.is_empty());
            let legal = pos.legal_moves();
            self.moves
                .try_extend_from_slice(&legal)
                .expect("the legal moves fit in a move list");
            if let Some(tt) = self.tt_move
                && let Some(i) = self.moves.iter().position(|m| *m == tt)
            {
                self.moves.remove(i);
            }
            // Captures and promotions to the front, both parts in order (a stable
            // partition by rotation: evasions are few).
            let mut n = 0;
            for i in 0..self.moves.len() {
                if is_noisy(&self.moves[i]) {
                    self.moves[n..=i].rotate_right(1);
                    n += 1;
                }
            }
            // The reference order outside check: the quiets as their generator
            // orders them.
            if self.full_list && !pos.is_check() {
                self.moves[n..].sort_by_key(movegen::quiet_group);
            }
        }
        // The captures and promotions, now in front, scored by MVV/LVA (the victim
        // dominates, the cheaper attacker breaks ties) plus caphist_: the capture
        // history in centipawns (history / caphist_div).
        let color = pos.turn();
        let mut n = 0;
        for i in 0..self.moves.len() {
            // Each move taken apart once (what `is_noisy`, `captured_value`,
            // `capture_score` and `role` would each match on again).
            let (role, to, capture, promotion) = match self.moves[i] {
                Move::Normal {
                    role,
                    to,
                    capture,
                    promotion,
                    ..
                } => (role, to, capture, promotion),
                Move::EnPassant { to, .. } => (Role::Pawn, to, Some(Role::Pawn), None),
                Move::Castle { rook, .. } => (Role::King, rook, None, None),
                Move::Put { role, to } => (role, to, None, None),
            };
            if capture.is_none() && promotion.is_none() {
                break;
            }
            debug_assert!(is_noisy(&self.moves[i]));
            let promo = promotion.map_or(0, |r| values.of(r));
            let hist = history.capture_score_parts(color, role, to, capture) / ordering.caphist_div;
            let victim = capture.map_or(0, |r| values.of(r));
            let score = (victim + promo + hist) * 16 - role as i32;
            self.scores[i] = MaybeUninit::new(score);
            n = i + 1;
        }
        self.noisy_end = n;
        self.cursor = 0;
    }

    /// Appends the quiets after the captures (whose slots the earlier stages used),
    /// in generation order (pieces, pawns, king) without the TT move.
    #[inline(never)]
    fn generate_quiets(&mut self, pos: &Position) {
        debug_assert_eq!(self.moves.len(), self.noisy_end);
        self.moves.truncate(self.noisy_end);
        movegen::quiets_for_picker(pos.board(), self.tt_move, &mut self.moves);
        self.quiets_pending = false;
    }

    /// Selection sort step over `[cursor, end)`: the first best-scored move is
    /// returned and swapped to the cursor (exactly `swap(cursor, best)`, except that
    /// the score of the cursor slot, never read again, is left as it was).
    #[inline]
    fn pick_best(&mut self, end: usize) -> Option<Move> {
        let cursor = self.cursor;
        if cursor >= end {
            return None;
        }
        // One bounds check for the scan, not one per slot.
        let scores = &self.scores[cursor..end];
        // SAFETY: only slots in `[cursor, end)` are read: below `noisy_end` every slot
        // was written by `generate` with its capture, above it by `score_quiets` (the
        // quiets are sorted only when they were scored, and `skip_quiets` never goes
        // back to false). The swap below keeps both slots written.
        let score = |s: &MaybeUninit<i32>| unsafe { s.assume_init() };
        // One scan keeping the first maximum, written to compile to conditional
        // moves: the maximum's position, scanned for afterwards, was a mispredicted
        // branch.
        let mut best = cursor;
        let mut best_score = i32::MIN;
        for (i, s) in scores.iter().enumerate() {
            let s = score(s);
            let better = s > best_score;
            best_score = if better { s } else { best_score };
            best = if better { cursor + i } else { best };
        }
        // The picked move is returned from a register: read back from the list after
        // the swap's byte-wise stores, it stalled on store forwarding.
        let m = self.moves[best];
        self.moves[best] = self.moves[cursor];
        self.moves[cursor] = m;
        self.scores[best] = self.scores[cursor];
        self.cursor = cursor + 1;
        Some(m)
    }

    /// hist_threats: the enemy's attacks in `pos` (the picker's position), for the
    /// butterfly history of its quiets; 0 with the feature off.
    #[inline]
    pub fn threats(&mut self, pos: &Position) -> u64 {
        *self
            .threats
            .get_or_insert_with(|| super::history::threats(pos))
    }

    #[inline(never)]
    fn score_quiets(&mut self, pos: &Position, history: &History, ordering: &OrderingValues) {
        let threats = self.threats(pos);
        // order_quiet_check: a checking quiet ordered up (the node's check squares
        // are built only when the term is on; pruning reuses them).
        let checks = (ordering.quiet_check != 0).then(|| {
            *self
                .check_squares
                .get_or_insert_with(|| pos.check_squares())
        });
        let scorer = history.quiet_scorer(pos.turn(), threats, self.cont);
        let [killer_1, killer_2, counter] =
            [self.killers[0], self.killers[1], self.counter].map(|r| r.map_or(NO_KEY, quiet_key));
        for i in self.noisy_end..self.moves.len() {
            // Each quiet is taken apart once: the killer/counter tests compare one
            // integer, the history lookups need no further matching on the move.
            let (role, from, to, key) = match self.moves[i] {
                Move::Normal { role, from, to, .. } => (role, from, to, normal_key(role, from, to)),
                Move::Castle { king, rook } => (Role::King, king, rook, castle_key(king, rook)),
                Move::EnPassant { .. } | Move::Put { .. } => {
                    unreachable!("the quiets are normal moves and castling")
                }
            };
            debug_assert!(!is_noisy(&self.moves[i]));
            let score = if key == killer_1 {
                KILLER_1
            } else if key == killer_2 {
                KILLER_2
            } else if key == counter {
                COUNTER
            } else {
                let check = checks.is_some_and(|c| c.quiet_gives_check(&self.moves[i]));
                scorer.score_parts(role, from, to) + check as i32 * ordering.quiet_check
            };
            self.scores[i] = MaybeUninit::new(score);
        }
    }

    /// Whether the quiet move `m` of `pos` (the picker's position) gives check; the
    /// node's check squares are built once, on the first call.
    #[inline]
    pub fn quiet_gives_check(&mut self, pos: &Position, m: &Move) -> bool {
        self.check_squares
            .get_or_insert_with(|| pos.check_squares())
            .quiet_gives_check(m)
    }

    /// stats: what the move `m` this picker just gave was (TT move, good or bad
    /// capture, killer, counter, history-ordered quiet; any move in check).
    pub fn cut_kind(&self, m: &Move, in_check: bool) -> CutKind {
        if Some(*m) == self.tt_move {
            CutKind::TtMove
        } else if in_check {
            CutKind::Evasion
        } else if is_noisy(m) {
            if self.stage >= Stage::BadCaptures {
                CutKind::BadCapture
            } else {
                CutKind::GoodCapture
            }
        } else if Some(*m) == self.killers[0] {
            CutKind::Killer1
        } else if Some(*m) == self.killers[1] {
            CutKind::Killer2
        } else if Some(*m) == self.counter {
            CutKind::Counter
        } else {
            CutKind::Quiet
        }
    }

    /// SEE of the move [`MovePicker::next`] returned last, if the picker computed it
    /// (captures it had to test, and every losing capture): the search's SEE pruning
    /// reuses it instead of playing out the same exchange again. The value sits in
    /// the score slot of the move just returned (its score is never read again);
    /// captures returned without a SEE leave `NO_SEE` there.
    #[inline(always)]
    pub fn known_see(&self) -> Option<i32> {
        if !matches!(self.stage, Stage::GoodCaptures | Stage::BadCaptures) || self.cursor == 0 {
            return None;
        }
        // SAFETY: in these stages the slot before the cursor was written when its
        // move was returned (see the writes in `next`).
        let see = unsafe { self.scores[self.cursor - 1].assume_init() };
        (see != NO_SEE).then_some(see)
    }

    /// The next move to search, or `None` when all are exhausted.
    ///
    /// Inlined into the two searches' move loops: it is called once per move, and a
    /// call's prologue and epilogue would cost about 2% of all instructions. The
    /// stages' heavy work (generation, quiet scoring) stays out of line.
    #[inline(always)]
    pub fn next(
        &mut self,
        pos: &Position,
        history: &History,
        ordering: &OrderingValues,
    ) -> Option<Move> {
        let values = &ordering.see;
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::Generate => {
                    self.generate(pos, history, ordering);
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => match self.pick_best(self.noisy_end) {
                    Some(m) => {
                        // Good: promotion, victim at least the attacker, or SEE not
                        // below a threshold that capture history lowers (caphist_see_div).
                        // The q-search keeps the plain SEE >= 0 rule.
                        // `known_see` reads the SEE from the slot of the move returned.
                        let slot = self.cursor - 1;
                        if m.is_promotion() || captured_value(&m, values) >= values.of(m.role()) {
                            self.scores[slot] = MaybeUninit::new(NO_SEE);
                            return Some(m);
                        }
                        // Only now: a division may panic, so the compiler cannot put it
                        // after the return above by itself.
                        let threshold = if self.noisy_only {
                            0
                        } else {
                            -history.capture_score(pos.turn(), &m) / ordering.caphist_see_div
                        };
                        let see = see(pos, &m, values);
                        if see >= threshold.min(0) {
                            self.scores[slot] = MaybeUninit::new(see);
                            return Some(m);
                        }
                        // Park it among the losing captures (slots already yielded),
                        // its SEE in the score slot, which nothing reads any more.
                        self.moves[self.bad_end] = m;
                        self.scores[self.bad_end] = MaybeUninit::new(see);
                        self.bad_end += 1;
                    }
                    None => {
                        self.stage = if self.noisy_only && !self.quiet_checks {
                            Stage::Done
                        } else {
                            Stage::ScoreQuiets
                        }
                    }
                },
                Stage::ScoreQuiets => {
                    if self.quiets_pending {
                        self.generate_quiets(pos);
                    }
                    if !self.skip_quiets {
                        self.score_quiets(pos, history, ordering);
                    }
                    self.cursor = self.noisy_end;
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if !self.skip_quiets {
                        if let Some(m) = self.pick_best(self.moves.len()) {
                            return Some(m);
                        }
                    } else if !self.skip_quiet_checks {
                        // Pruned quiets: only checking ones are still offered, unsorted.
                        while self.cursor < self.moves.len() {
                            let m = self.moves[self.cursor];
                            self.cursor += 1;
                            if self.quiet_gives_check(pos, &m) {
                                return Some(m);
                            }
                        }
                    }
                    self.cursor = 0;
                    // The q-search never tries its losing captures.
                    self.stage = if self.noisy_only {
                        Stage::Done
                    } else {
                        Stage::BadCaptures
                    };
                }
                Stage::BadCaptures => {
                    if self.cursor < self.bad_end {
                        self.cursor += 1;
                        return Some(self.moves[self.cursor - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(fen: &str, tt: Option<&str>, killers: [Option<&str>; 2]) -> Vec<String> {
        let pos = Position::from_fen(fen, false).unwrap();
        let mv = |s: &str| pos.parse_uci_move(s).unwrap();
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let mut p = MovePicker::new(
            tt.map(mv),
            killers.map(|k| k.map(mv)),
            None,
            ContKeys::default(),
            false,
        );
        let mut out = Vec::new();
        while let Some(m) = p.next(&pos, &history, &values) {
            out.push(pos.move_to_uci(m));
        }
        out
    }

    #[test]
    fn tt_first_then_good_captures_killers_quiets_and_bad_captures_last() {
        // White: Qd1xd7 loses the queen to the king... set-up: Nxe5 (pawn defended: bad),
        // Rxa8 (rook takes undefended rook: good), quiet moves.
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K3 w - - 0 1";
        let moves = order(fen, Some("e1d2"), [Some("a1a2"), Some("f3g5")]);
        let legal = Position::from_fen(fen, false).unwrap().legal_moves().len();
        assert_eq!(moves.len(), legal, "every legal move exactly once");
        assert_eq!(moves[0], "e1d2");
        assert_eq!(moves[1], "a1a8");
        assert_eq!(moves[2], "a1a2");
        assert_eq!(moves[3], "f3g5");
        assert_eq!(moves.last().unwrap(), "f3e5");
        let mut dedup = moves.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), moves.len());
    }

    /// The staged picker (noisy generator, quiets later) yields exactly the moves of
    /// the one-list picker (`legal_moves()`, the quiets grouped as generated) in the
    /// same order, ties included (all histories zero), with TT moves, killers and a
    /// counter move, and with the quiets pruned part-way.
    #[test]
    fn staged_generation_keeps_the_full_list_order_at_perft_nodes() {
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let (mut nodes, mut compared) = (0u64, 0u64);
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            nodes += 1;
            if nodes % 3 != 0 {
                return;
            }
            let legal = pos.legal_moves();
            let quiets: Vec<Move> = legal.iter().copied().filter(|m| !is_noisy(m)).collect();
            let noisy = legal.iter().copied().find(is_noisy);
            let killers = [quiets.first().copied(), quiets.last().copied()];
            let counter = quiets.get(quiets.len() / 2).copied();
            for tt in [None, legal.first().copied(), noisy, quiets.get(1).copied()] {
                for skip_after in [None, Some(3)] {
                    let run = |full_list: bool| {
                        let mut p =
                            MovePicker::new(tt, killers, counter, ContKeys::default(), false);
                        p.full_list = full_list;
                        let mut out = Vec::new();
                        while let Some(m) = p.next(pos, &history, &values) {
                            out.push(m);
                            if skip_after == Some(out.len()) {
                                p.skip_quiets = true;
                            }
                        }
                        out
                    };
                    assert_eq!(run(false), run(true), "{} tt {tt:?}", pos.fen());
                    compared += 1;
                }
            }
        });
        assert!(compared > 100_000, "{compared}");
    }

    /// `known_see` gives the SEE of the capture just returned exactly when the
    /// picker computed it (every losing capture among them), and nothing for other
    /// moves, in the main search's and the q-search's pickers.
    #[test]
    fn known_see_is_the_see_of_the_move_just_returned() {
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let (mut known, mut bad) = (0u64, 0u64);
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            let legal = pos.legal_moves();
            let tt = legal.iter().copied().find(is_noisy);
            for qsearch in [false, true] {
                let mut p = if qsearch {
                    MovePicker::new_qsearch(tt, pos.is_check(), false)
                } else {
                    MovePicker::new(tt, [None; 2], None, ContKeys::default(), false)
                };
                while let Some(m) = p.next(pos, &history, &values) {
                    match p.known_see() {
                        Some(s) => {
                            assert_eq!(s, see(pos, &m, &values.see), "{} {m}", pos.fen());
                            known += 1;
                        }
                        None => assert!(
                            Some(m) == tt
                                || !is_noisy(&m)
                                || m.is_promotion()
                                || captured_value(&m, &values.see) >= values.see.of(m.role()),
                            "{} {m}",
                            pos.fen()
                        ),
                    }
                    if p.stage == Stage::BadCaptures {
                        assert!(p.known_see().is_some_and(|s| s < 0));
                        bad += 1;
                    }
                }
            }
        });
        assert!(known > 10_000 && bad > 1_000, "{known} {bad}");
    }

    /// Quiet keys tell moves apart exactly as `==` does: every quiet of a perft node
    /// against every legal move of that node and of the node before (stale killers:
    /// captures, promotions, en passant, other pieces on the same squares).
    #[test]
    fn quiet_keys_are_equal_exactly_when_the_moves_are() {
        let mut previous: Vec<Move> = Vec::new();
        let (mut pairs, mut equal, mut castles) = (0u64, 0u64, 0u64);
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            for m in legal.iter().filter(|m| !is_noisy(m)) {
                assert_ne!(quiet_key(*m), NO_KEY);
                castles += u64::from(m.is_castle());
                for k in legal.iter().chain(&previous) {
                    assert_eq!(quiet_key(*m) == quiet_key(*k), m == k, "{m:?} {k:?}");
                    pairs += 1;
                    equal += u64::from(m == k);
                }
            }
            previous = legal;
        });
        assert!(pairs > 1_000_000 && equal > 100_000 && castles > 1_000);
    }

    /// Perft through the search's own move path: every move the picker yields
    /// (TT move, staged captures, killers, quiets, bad captures), made with the
    /// search's copy-make.
    fn picker_perft(pos: &Position, depth: u32, tt: bool) -> u64 {
        fn go(pos: &Position, depth: u32, tt: bool, h: &History, v: &OrderingValues) -> u64 {
            if depth == 0 {
                return 1;
            }
            // A legal TT move from the first few legal moves, to exercise its removal.
            let tt_move = tt
                .then(|| pos.legal_moves().get(depth as usize % 3).copied())
                .flatten();
            let mut p = MovePicker::new(tt_move, [None; 2], None, ContKeys::default(), false);
            let mut nodes = 0;
            while let Some(m) = p.next(pos, h, v) {
                nodes += go(&pos.play(m), depth - 1, tt, h, v);
            }
            nodes
        }
        let values = OrderingValues::new(&Params::default());
        go(pos, depth, tt, &History::default(), &values)
    }

    #[test]
    fn perft_through_the_picker() {
        let cases: &[(&str, bool, &[u64])] = &[
            (crate::position::START_FEN, false, &[20, 400, 8_902]),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                false,
                &[48, 2_039, 97_862],
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                false,
                &[14, 191, 2_812, 43_238],
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                false,
                &[6, 264, 9_467],
            ),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                false,
                &[44, 1_486, 62_379],
            ),
            (
                "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
                false,
                &[18, 92, 1_670, 10_138],
            ),
            (
                "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
                false,
                &[26, 1_141, 27_826],
            ),
            (
                "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
                false,
                &[44, 1_494, 50_509],
            ),
            (
                "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1",
                false,
                &[29, 165, 5_160, 31_961],
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                true,
                &[21, 528, 12_189],
            ),
        ];
        for &(fen, chess960, counts) in cases {
            let pos = Position::from_fen(fen, chess960).unwrap();
            for (i, &expected) in counts.iter().enumerate() {
                for tt in [false, true] {
                    let depth = i as u32 + 1;
                    assert_eq!(
                        picker_perft(&pos, depth, tt),
                        expected,
                        "{fen} depth {depth} tt {tt}"
                    );
                }
            }
        }
    }

    /// Positions made to catch the mistakes a quiet generator can make, counted
    /// through the picker and by shakmaty's `legal_moves()`.
    #[test]
    fn perft_through_the_picker_on_quiet_move_edge_cases() {
        for (fen, chess960) in [
            // Castling through an attacked square (f1): only the long castle.
            ("4k3/8/8/8/8/5r2/8/R3K2R w KQ - 0 1", false),
            // The queen-side rook and b1 attacked: the long castle is still legal.
            ("4k3/8/8/8/8/8/1r6/R3K2R w KQ - 0 1", false),
            // Castling with a piece in the way (b1) and the target square attacked (g1).
            ("4k3/8/8/8/8/6r1/8/RN2K2R w KQ - 0 1", false),
            // Pinned rook, pawn and bishop: moves along the pin only; a pawn pinned
            // diagonally cannot push, one pinned on its file can.
            ("4k3/4r3/8/8/8/4R3/4K3/8 w - - 0 1", false),
            ("4k3/4r3/8/8/8/8/4P3/4K3 w - - 0 1", false),
            ("4k3/8/8/8/7b/8/5P2/4K3 w - - 0 1", false),
            ("4k3/8/8/8/b7/8/2B5/3K4 w - - 0 1", false),
            // A pinned knight never moves; a queen pinned on a diagonal.
            ("4k3/8/8/8/1b6/2N5/8/4K3 w - - 0 1", false),
            ("4k3/8/8/8/1b6/8/3Q4/4K3 w - - 0 1", false),
            // The king may not step along the line of a slider or next to the enemy king.
            ("8/8/8/3k4/8/3K4/8/7r w - - 0 1", false),
            // En passant that would expose the king along the rank, and a legal one.
            ("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", false),
            ("8/8/8/3pP3/8/8/8/K3k3 w - d6 0 1", false),
            // Promotions by a push and by a capture between the quiets.
            ("1n2k3/P1P5/8/8/8/5p2/8/4K1N1 w - - 0 1", false),
            // Chess960: the king does not move when castling; the rook stands on the
            // king's target square.
            ("1r2k3/8/8/8/8/8/8/R5KR w AHb - 0 1", true),
            ("4k3/8/8/8/8/8/8/2R1K1R1 w CG - 0 1", true),
        ] {
            let pos = Position::from_fen(fen, chess960).unwrap();
            for depth in 1..=3 {
                for tt in [false, true] {
                    assert_eq!(
                        picker_perft(&pos, depth, tt),
                        crate::perft::perft(&pos, depth, false),
                        "{fen} depth {depth} tt {tt}"
                    );
                }
            }
        }
    }

    /// lmp_check_: after `skip_quiets` only the quiet checks still come (then the bad
    /// captures); with `skip_quiet_checks` no quiet at all.
    #[test]
    fn skipped_quiets_leave_only_checks_unless_checks_are_skipped_too() {
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K2Q w - - 0 1";
        let pos = Position::from_fen(fen, false).unwrap();
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let run = |checks_too: bool| {
            let mut p = MovePicker::new(None, [None; 2], None, ContKeys::default(), false);
            let mut out = Vec::new();
            while let Some(m) = p.next(&pos, &history, &values) {
                if !is_noisy(&m) && !p.skip_quiets {
                    p.skip_quiets = true;
                    p.skip_quiet_checks = checks_too;
                    continue;
                }
                out.push(m);
            }
            out
        };
        let quiet_checks: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !is_noisy(m) && pos.play(*m).is_check())
            .collect();
        assert!(!quiet_checks.is_empty());
        let spared = run(false);
        let quiets: Vec<Move> = spared.iter().copied().filter(|m| !is_noisy(m)).collect();
        assert!(!quiets.is_empty());
        assert!(
            quiets.iter().all(|m| quiet_checks.contains(m)),
            "{quiets:?}"
        );
        let skipped = run(true);
        assert!(skipped.iter().all(is_noisy), "{skipped:?}");
        assert_eq!(
            skipped.last().map(|m| pos.move_to_uci(*m)),
            Some("f3e5".to_string()),
            "the bad capture still comes last"
        );
    }

    #[test]
    fn no_quiets_when_skipped_and_qsearch_only_good_noisy() {
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K3 w - - 0 1";
        let pos = Position::from_fen(fen, false).unwrap();
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let mut p = MovePicker::new_qsearch(None, false, false);
        let mut out = Vec::new();
        while let Some(m) = p.next(&pos, &history, &values) {
            out.push(pos.move_to_uci(m));
        }
        assert_eq!(out, vec!["a1a8"]);
    }

    /// qs_check_: the q-search picker with quiet checks gives the good captures,
    /// then exactly the quiet moves that give check, and never the losing capture;
    /// in check it gives every evasion as without them.
    #[test]
    fn qsearch_with_quiet_checks_adds_exactly_the_checking_quiets() {
        let values = OrderingValues::new(&Params::default());
        let history = History::default();
        let picked = |pos: &Position, in_check: bool, checks: bool| {
            let mut p = MovePicker::new_qsearch(None, in_check, checks);
            let mut out = Vec::new();
            while let Some(m) = p.next(pos, &history, &values) {
                out.push(m);
            }
            out
        };
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K2Q w - - 0 1";
        let pos = Position::from_fen(fen, false).unwrap();
        let mut quiet_checks: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !is_noisy(m) && pos.play(*m).is_check())
            .collect();
        assert_eq!(quiet_checks.len(), 2, "Qh5+ and Qh8+: {quiet_checks:?}");
        let without = picked(&pos, false, false);
        let with = picked(&pos, false, true);
        assert_eq!(
            with[..without.len()],
            without[..],
            "the captures come first"
        );
        let mut added = with[without.len()..].to_vec();
        let key = |m: &Move| pos.move_to_uci(*m);
        added.sort_by_key(key);
        quiet_checks.sort_by_key(key);
        assert_eq!(added, quiet_checks);
        assert!(
            with.iter().all(|m| pos.move_to_uci(*m) != "f3e5"),
            "no losing capture"
        );

        let evading = Position::from_fen("4k3/8/8/8/8/8/3q4/R3K3 w - - 0 1", false).unwrap();
        assert!(evading.is_check());
        assert_eq!(picked(&evading, true, true), picked(&evading, true, false));
    }
}
