//! Move-ordering memory (`hist_*`, `cont_hist_*`, `caphist_*`): butterfly history
//! (side, from, to, and with `hist_threats` whether the enemy attacks the origin
//! and the target), continuation histories (the move's piece and target square
//! after the previous move's, after the move two plies back and, with
//! `cont_hist_ply4`, after our move four plies back), capture history
//! (piece, target, captured role), killer moves per ply and counter moves indexed
//! by the opponent's last move. Every table is updated with gravity, so an entry
//! saturates at ±`hist_max`.

use shakmaty::{Color, Move, Position as _, Role, Square, attacks};

use crate::movegen::is_noisy;
use crate::params::Params;
use crate::position::Position;
use crate::rays::pawn_attacks;
use crate::score::MAX_PLY;

/// Pieces (colour × role) times target squares: one continuation-history slot.
pub const PIECE_TO: usize = 12 * 64;

/// Index of a move by its piece and target square (continuation history and
/// capture history key). `color` is the side making the move.
#[inline(always)]
pub fn piece_to(color: Color, m: &Move) -> usize {
    piece_to_parts(color, m.role(), m.to())
}

/// [`piece_to`] of a move already taken apart into its role and `m.to()`.
#[inline(always)]
fn piece_to_parts(color: Color, role: Role, to: Square) -> usize {
    (color as usize) * ROLE_TO + role_to(role, to)
}

/// Roles times target squares: one continuation-history column.
const ROLE_TO: usize = 6 * 64;

/// The column of a move in a continuation-history row. The row (the move one or two
/// plies back) fixes the colour of every move scored under it, the opponent's or
/// ours, so the column needs no colour: a row holds 384 entries, not 768 of which
/// half would never be used, and the tables take half the cache.
#[inline(always)]
fn role_to(role: Role, to: Square) -> usize {
    (role as usize - 1) * 64 + to as usize
}

/// Whether `keys` are rows `color`'s moves may be scored under: the move one ply
/// back is the opponent's, the ones two and four plies back ours (see [`role_to`]).
fn rows_fit(color: Color, keys: ContKeys) -> bool {
    let colour_of = |piece_to: usize| piece_to / ROLE_TO;
    keys.counter
        .is_none_or(|k| colour_of(k) == (!color) as usize)
        && [keys.follow_up, keys.ply4]
            .iter()
            .all(|k| k.is_none_or(|k| colour_of(k) == color as usize))
}

/// The continuation-history rows of a node: the piece-to slots of the move played
/// one ply back (counter-move history), two plies back (follow-up history) and four
/// plies back (`cont_hist_ply4`), or `None` after a null move, near the root or, for
/// the fourth ply, with that table off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContKeys {
    pub counter: Option<usize>,
    pub follow_up: Option<usize>,
    pub ply4: Option<usize>,
}

/// The continuation-history scores of one quiet move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContScores {
    pub counter: i32,
    pub follow_up: i32,
}

pub struct History {
    /// hist_: `[side][threat bits, from, to]`. 16 bits like the other tables (every
    /// entry stays within ±`hist_max` <= 32000): 64 KB instead of 128 KB, so more
    /// of it stays in the caches that `score_quiets` reads it through.
    butterfly: Vec<i16>,
    /// cont_hist_: `[previous piece-to][role-to]`, one ply back.
    counter_hist: Vec<i16>,
    /// cont_hist_: `[piece-to two plies back][role-to]`.
    follow_up_hist: Vec<i16>,
    /// cont_hist_ply4: `[piece-to four plies back][role-to]`, for move ordering only.
    ply4_hist: Vec<i16>,
    /// caphist_: `[piece-to][captured role, 0 = none (quiet promotion)]`.
    capture_hist: Vec<i16>,
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    counters: Vec<Option<Move>>,
}

#[inline(always)]
fn from_to(m: &Move) -> (Square, Square) {
    match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    }
}

/// Butterfly entries per side: (origin attacked, target attacked, from, to).
const BUTTERFLY_SIDE: usize = 4 * 64 * 64;

// hist_threats: threat-aware butterfly history (Stockfish, Alexandria, Stormphrax).
// A piece stepping out of an attack and one stepping into an attack are different
// moves to learn: the butterfly key gets a bit for "the origin is attacked" and one
// for "the target is attacked" by the side not to move. `threats` is 0 when the
// parameter is off, which leaves every move in the first quarter of the table.

/// Every square the side not to move attacks (pawns, pieces and king), as the
/// threat bits of the butterfly index read it.
pub fn threats(pos: &Position) -> u64 {
    let board = pos.board().board();
    let them = board.by_color(!pos.turn());
    let occupied = board.occupied();
    let mut t = pawn_attacks(!pos.turn(), (board.pawns() & them).0);
    for sq in board.knights() & them {
        t |= attacks::knight_attacks(sq).0;
    }
    for sq in board.bishops_and_queens() & them {
        t |= attacks::bishop_attacks(sq, occupied).0;
    }
    for sq in board.rooks_and_queens() & them {
        t |= attacks::rook_attacks(sq, occupied).0;
    }
    for sq in board.kings() & them {
        t |= attacks::king_attacks(sq).0;
    }
    t
}

/// Index of a move within its side's butterfly table: the threat bits above
/// from * 64 + to.
#[inline(always)]
fn butterfly_slot(threats: u64, from: Square, to: Square) -> usize {
    let (from, to) = (from as usize, to as usize);
    let from_attacked = (threats >> from) as usize & 1;
    let to_attacked = (threats >> to) as usize & 1;
    from_attacked << 13 | to_attacked << 12 | from << 6 | to
}

#[inline(always)]
fn butterfly_index(color: Color, threats: u64, m: &Move) -> usize {
    let (from, to) = from_to(m);
    (color as usize) * BUTTERFLY_SIDE + butterfly_slot(threats, from, to)
}

#[inline(always)]
fn capture_index(color: Color, m: &Move) -> usize {
    capture_index_parts(color, m.role(), m.to(), m.capture())
}

/// [`capture_index`] of a move already taken apart (`capture`: `m.capture()`).
#[inline(always)]
fn capture_index_parts(color: Color, role: Role, to: Square, capture: Option<Role>) -> usize {
    piece_to_parts(color, role, to) * 8 + capture.map_or(0, |r| r as usize)
}

/// Counter-move slot: the piece (colour, role) and target square of the previous move.
#[inline(always)]
fn counter_index(color: Color, prev: &Move) -> usize {
    ((color as usize) * 8 + prev.role() as usize) * 64 + prev.to() as usize
}

/// Gravity update: the entry moves towards ±max and saturates there.
#[inline(always)]
fn gravity(e: &mut i32, delta: i32, max: i32) {
    let delta = delta.clamp(-max, max);
    *e += delta - *e * delta.abs() / max;
}

#[inline(always)]
fn gravity16(e: &mut i16, delta: i32, max: i32) {
    let mut v = *e as i32;
    gravity(&mut v, delta, max.min(i16::MAX as i32));
    *e = v as i16;
}

/// hist_: the reward of a cut-off at `depth`, growing quadratically up to a cap.
#[inline]
pub fn bonus(p: &Params, depth: i32) -> i32 {
    (p.hist_bonus_sq() * depth * depth + p.hist_bonus_mult() * depth).min(p.hist_bonus_max())
}

/// hist_: the penalty of a move tried before the cut-off move at `depth`.
#[inline]
pub fn malus(p: &Params, depth: i32) -> i32 {
    (p.hist_malus_sq() * depth * depth + p.hist_malus_mult() * depth).min(p.hist_malus_max())
}

/// A continuation-history row of zeros, read when there is no previous move: adding
/// 0 is what [`History::cont_scores`] does then, without a branch per move.
static ZERO_ROW: [i16; ROLE_TO] = [0; ROLE_TO];

/// [`History::quiet_score`] for the quiets of one node (see [`History::quiet_scorer`]);
/// fixed-size rows, so no bounds checks per move.
pub struct QuietScorer<'a> {
    butterfly: &'a [i16; BUTTERFLY_SIDE],
    counter: &'a [i16; ROLE_TO],
    follow_up: &'a [i16; ROLE_TO],
    ply4: &'a [i16; ROLE_TO],
    threats: u64,
}

impl QuietScorer<'_> {
    /// Equal to `quiet_score(color, threats, m, keys)` of the history it was made from.
    #[inline(always)]
    pub fn score(&self, m: &Move) -> i32 {
        let (from, to) = from_to(m);
        self.score_parts(m.role(), from, to)
    }

    /// [`QuietScorer::score`] of a move already taken apart: its role, and its
    /// origin and target as `from_to` gives them (castling: king and rook squares).
    #[inline(always)]
    pub fn score_parts(&self, role: Role, from: Square, to: Square) -> i32 {
        let rt = role_to(role, to);
        self.butterfly[butterfly_slot(self.threats, from, to)] as i32
            + self.counter[rt] as i32
            + self.follow_up[rt] as i32
            + self.ply4[rt] as i32
    }
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: vec![0; 2 * BUTTERFLY_SIDE],
            counter_hist: vec![0; PIECE_TO * ROLE_TO],
            follow_up_hist: vec![0; PIECE_TO * ROLE_TO],
            ply4_hist: vec![0; PIECE_TO * ROLE_TO],
            capture_hist: vec![0; PIECE_TO * 8],
            killers: [[None; 2]; MAX_PLY + 2],
            counters: vec![None; 2 * 8 * 64],
        }
    }
}

impl History {
    /// Zeroes every table in place. A fresh allocation would be zeroed by the kernel
    /// page by page on first touch, i.e. inside the next search (`occam bench` clears
    /// before every position and times only the searches).
    pub fn clear(&mut self) {
        self.butterfly.fill(0);
        self.counter_hist.fill(0);
        self.follow_up_hist.fill(0);
        self.ply4_hist.fill(0);
        self.capture_hist.fill(0);
        self.clear_killers();
        self.counters.fill(None);
    }

    /// Killers are only meaningful within one search.
    pub fn clear_killers(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 2];
    }

    /// A new node at `ply` starts its children with no killers of their own from
    /// an unrelated subtree.
    #[inline(always)]
    pub fn clear_killers_at(&mut self, ply: usize) {
        if ply < self.killers.len() {
            self.killers[ply] = [None; 2];
        }
    }

    /// Butterfly score only (`threats`: see [`threats`], or 0).
    #[inline(always)]
    pub fn score(&self, color: Color, threats: u64, m: &Move) -> i32 {
        self.butterfly[butterfly_index(color, threats, m)] as i32
    }

    /// hist_eval_diff_: the butterfly entry of quiet `m` played by `color` where
    /// the side not to move attacks `threats`, for a later [`History::learn_eval_diff`].
    #[inline(always)]
    pub fn butterfly_key(color: Color, threats: u64, m: &Move) -> usize {
        butterfly_index(color, threats, m)
    }

    /// hist_eval_diff_: reward (or, negative, penalise) the quiet move behind the
    /// butterfly entry `key` by what its reply's static eval says it gained.
    #[inline]
    pub fn learn_eval_diff(&mut self, p: &Params, key: usize, parent_eval: i32, child_eval: i32) {
        let gain = p.hist_eval_diff_base() - parent_eval - child_eval;
        let max = p.hist_eval_diff_max();
        let delta = (p.hist_eval_diff_mult() * gain).clamp(-max, max);
        gravity16(&mut self.butterfly[key], delta, p.hist_max());
    }

    /// hist_fail_low_pct: reward the quiet move `m` (`color` moved it; its butterfly
    /// entry `butterfly_key`, when its parent kept it) after which no move reached
    /// alpha, in that entry and in the continuation rows `keys` of the parent.
    pub fn reward_fail_low(
        &mut self,
        p: &Params,
        color: Color,
        butterfly_key: Option<usize>,
        m: &Move,
        keys: ContKeys,
        delta: i32,
    ) {
        let max = p.hist_max();
        if let Some(key) = butterfly_key {
            gravity16(&mut self.butterfly[key], delta, max);
        }
        self.update_cont(color, m, keys, delta, max);
    }

    /// cont_hist_: counter-move and follow-up history of a quiet move.
    #[inline(always)]
    pub fn cont_scores(&self, m: &Move, keys: ContKeys) -> ContScores {
        let rt = role_to(m.role(), m.to());
        ContScores {
            counter: keys
                .counter
                .map_or(0, |k| self.counter_hist[k * ROLE_TO + rt] as i32),
            follow_up: keys
                .follow_up
                .map_or(0, |k| self.follow_up_hist[k * ROLE_TO + rt] as i32),
        }
    }

    /// Ordering score of a quiet move: butterfly plus the continuation histories
    /// (the fourth ply's too, which only ordering reads).
    #[inline(always)]
    pub fn quiet_score(&self, color: Color, threats: u64, m: &Move, keys: ContKeys) -> i32 {
        let c = self.cont_scores(m, keys);
        let rt = role_to(m.role(), m.to());
        let ply4 = keys
            .ply4
            .map_or(0, |k| self.ply4_hist[k * ROLE_TO + rt] as i32);
        self.score(color, threats, m) + c.counter + c.follow_up + ply4
    }

    /// The rows [`History::quiet_score`] reads for the quiets of one node, looked up
    /// once: the picker scores all of a node's quiets with them.
    #[inline]
    pub fn quiet_scorer(&self, color: Color, threats: u64, keys: ContKeys) -> QuietScorer<'_> {
        fn row(table: &[i16], key: Option<usize>) -> &[i16; ROLE_TO] {
            key.map_or(&ZERO_ROW, |k| {
                table[k * ROLE_TO..(k + 1) * ROLE_TO]
                    .try_into()
                    .expect("a continuation-history row has ROLE_TO entries")
            })
        }
        debug_assert!(rows_fit(color, keys), "{color:?} {keys:?}");
        let side = color as usize * BUTTERFLY_SIDE;
        QuietScorer {
            butterfly: self.butterfly[side..side + BUTTERFLY_SIDE]
                .try_into()
                .expect("a butterfly side has 4 x 64 x 64 entries"),
            counter: row(&self.counter_hist, keys.counter),
            follow_up: row(&self.follow_up_hist, keys.follow_up),
            ply4: row(&self.ply4_hist, keys.ply4),
            threats,
        }
    }

    /// caphist_: history of a capture (or promotion) by piece, target and victim.
    #[inline(always)]
    pub fn capture_score(&self, color: Color, m: &Move) -> i32 {
        self.capture_hist[capture_index(color, m)] as i32
    }

    /// [`History::capture_score`] of a move already taken apart: its role, target
    /// and captured role (`m.capture()`: a pawn for en passant).
    #[inline(always)]
    pub fn capture_score_parts(
        &self,
        color: Color,
        role: Role,
        to: Square,
        capture: Option<Role>,
    ) -> i32 {
        self.capture_hist[capture_index_parts(color, role, to, capture)] as i32
    }

    fn update_quiet(
        &mut self,
        color: Color,
        threats: u64,
        m: &Move,
        keys: ContKeys,
        delta: i32,
        max: i32,
    ) {
        gravity16(
            &mut self.butterfly[butterfly_index(color, threats, m)],
            delta,
            max,
        );
        self.update_cont(color, m, keys, delta, max);
    }

    /// The continuation-history entries of a quiet move (`color` moves it).
    #[inline(always)]
    fn update_cont(&mut self, color: Color, m: &Move, keys: ContKeys, delta: i32, max: i32) {
        debug_assert!(rows_fit(color, keys), "{color:?} {keys:?}");
        let rt = role_to(m.role(), m.to());
        if let Some(k) = keys.counter {
            gravity16(&mut self.counter_hist[k * ROLE_TO + rt], delta, max);
        }
        if let Some(k) = keys.follow_up {
            gravity16(&mut self.follow_up_hist[k * ROLE_TO + rt], delta, max);
        }
        if let Some(k) = keys.ply4 {
            gravity16(&mut self.ply4_hist[k * ROLE_TO + rt], delta, max);
        }
    }

    fn update_capture(&mut self, color: Color, m: &Move, delta: i32, max: i32) {
        gravity16(&mut self.capture_hist[capture_index(color, m)], delta, max);
    }

    /// A move caused a cut-off at `depth`: reward it; penalise the quiets (when it
    /// is quiet) and the captures tried before it.
    #[allow(clippy::too_many_arguments)]
    pub fn on_cutoff(
        &mut self,
        p: &Params,
        color: Color,
        threats: u64,
        ply: usize,
        depth: i32,
        best: Move,
        quiets_tried: &[Move],
        captures_tried: &[Move],
        prev: Option<Move>,
        keys: ContKeys,
    ) {
        let max = p.hist_max();
        let bonus = bonus(p, depth);
        let malus = malus(p, depth);
        if is_noisy(&best) {
            self.update_capture(color, &best, bonus, max);
        } else {
            // hist_single_skip_depth: a quiet that cut as the first quiet tried at a
            // shallow draft says little about how it compares with the others
            // (Ethereal's rule); the killers and the counter move below still learn it.
            if !quiets_tried.is_empty() || depth > p.hist_single_skip_depth() {
                self.update_quiet(color, threats, &best, keys, bonus, max);
                for m in quiets_tried {
                    if *m != best {
                        self.update_quiet(color, threats, m, keys, -malus, max);
                    }
                }
            }
            let k = &mut self.killers[ply];
            if k[0] != Some(best) {
                k[1] = k[0];
                k[0] = Some(best);
            }
            if let Some(prev) = prev {
                self.counters[counter_index(!color, &prev)] = Some(best);
            }
        }
        for m in captures_tried {
            if *m != best {
                self.update_capture(color, m, -malus, max);
            }
        }
    }

    #[inline(always)]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply]
    }

    /// The reply that last refuted `prev` (played by `!color`).
    #[inline(always)]
    pub fn counter(&self, color: Color, prev: Option<Move>) -> Option<Move> {
        prev.and_then(|p| self.counters[counter_index(!color, &p)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    /// Kiwipete, its legal moves and continuation keys made of two of them: what
    /// these tests update histories with.
    fn kiwipete() -> (Params, Position, Vec<Move>, ContKeys) {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        )
        .unwrap();
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let keys = ContKeys {
            counter: Some(piece_to(Color::Black, &moves[3])),
            follow_up: Some(piece_to(Color::White, &moves[7])),
            ply4: Some(piece_to(Color::White, &moves[11])),
        };
        (Params::default(), pos, moves, keys)
    }

    /// Every table is 16 bits wide and its entries stay within ±`hist_max`, so the
    /// parameter's range must end at or below `i16::MAX` (`gravity16` would clamp
    /// beyond it, and the butterfly values would silently change).
    #[test]
    fn hist_max_fits_the_16_bit_tables() {
        let i = crate::params::index_of("hist_max").expect("hist_max is a parameter");
        let spec = &crate::params::PARAM_SPECS[i];
        assert!(
            spec.max <= i16::MAX as i32,
            "hist_max may reach {}",
            spec.max
        );
    }

    /// hist_eval_diff_: a quiet after which the reply's eval fell (for the side that
    /// moved, it gained) is rewarded, one after which it rose is penalised, by the
    /// multiplier per centipawn beyond the base and never beyond the cap; at 0 the
    /// table does not move.
    #[test]
    fn eval_differences_reward_gains_and_penalise_losses_within_the_cap() {
        let (mut p, pos, moves, _) = kiwipete();
        let quiet = moves.iter().find(|m| !m.is_capture()).copied().unwrap();
        let key = History::butterfly_key(Color::White, threats(&pos), &quiet);
        let learned = |p: &Params, parent: i32, child: i32| {
            let mut h = History::default();
            h.learn_eval_diff(p, key, parent, child);
            h.score(Color::White, threats(&pos), &quiet)
        };
        assert_eq!(learned(&p, 30, -80), 0, "off by default");
        for (name, value) in [
            ("hist_eval_diff_mult", "10"),
            ("hist_eval_diff_base", "20"),
            ("hist_eval_diff_max", "500"),
        ] {
            p.set_by_name(name, value).unwrap();
        }
        // The parent's 30 and the child's -40 sum to -10: 30 cp gained beyond the base.
        let gained = learned(&p, 30, -40);
        assert!(gained > 0 && gained <= 300, "{gained}");
        assert!(learned(&p, 30, 0) < 0, "lost 10 cp");
        assert_eq!(learned(&p, 20, 0), 0, "the base: no change");
        let capped = learned(&p, 30, -400);
        assert!(capped > 0 && capped <= 500, "{capped}");
    }

    /// The rows a side's quiets are scored under are told apart by colour: the
    /// opponent's move one ply back, ours two plies back; not the other way round.
    #[test]
    fn rows_fit_only_the_colours_of_the_search_path() {
        let (_, _, moves, _) = kiwipete();
        for color in Color::ALL {
            let keys = |counter: Color, follow_up: Color, ply4: Color| ContKeys {
                counter: Some(piece_to(counter, &moves[3])),
                follow_up: Some(piece_to(follow_up, &moves[7])),
                ply4: Some(piece_to(ply4, &moves[11])),
            };
            assert!(rows_fit(color, keys(!color, color, color)));
            assert!(rows_fit(color, ContKeys::default()));
            assert!(!rows_fit(color, keys(color, color, color)));
            assert!(!rows_fit(color, keys(!color, !color, color)));
            assert!(!rows_fit(color, keys(!color, color, !color)));
        }
    }

    /// `clear` zeroes in place: every table equals a fresh one afterwards.
    #[test]
    fn clear_forgets_every_table() {
        let (p, pos, moves, keys) = kiwipete();
        let (quiet, capture) = (
            moves.iter().find(|m| !m.is_capture()).copied().unwrap(),
            moves.iter().find(|m| m.is_capture()).copied().unwrap(),
        );
        let mut h = History::default();
        for m in [quiet, capture] {
            h.on_cutoff(
                &p,
                Color::White,
                threats(&pos),
                3,
                6,
                m,
                &moves[..4],
                &moves[4..9],
                Some(moves[2]),
                keys,
            );
        }
        let fresh = History::default();
        assert!(h.butterfly != fresh.butterfly && h.counter_hist != fresh.counter_hist);
        assert!(h.capture_hist != fresh.capture_hist && h.killers != fresh.killers);
        assert!(h.counters != fresh.counters && h.follow_up_hist != fresh.follow_up_hist);
        assert!(h.ply4_hist != fresh.ply4_hist);
        h.clear();
        assert!(h.butterfly == fresh.butterfly && h.counter_hist == fresh.counter_hist);
        assert!(h.capture_hist == fresh.capture_hist && h.killers == fresh.killers);
        assert!(h.counters == fresh.counters && h.follow_up_hist == fresh.follow_up_hist);
        assert!(h.ply4_hist == fresh.ply4_hist);
    }

    /// The per-node scorer gives exactly `quiet_score`, with and without
    /// continuation rows and threats, for every move of a position after many
    /// updates.
    #[test]
    fn quiet_scorer_equals_quiet_score() {
        let (p, pos, moves, _) = kiwipete();
        // Rows as the search makes them: the move one ply back the opponent's, the
        // ones two and four plies back ours.
        let keys_of = |color: Color| ContKeys {
            counter: Some(piece_to(!color, &moves[3])),
            follow_up: Some(piece_to(color, &moves[7])),
            ply4: Some(piece_to(color, &moves[11])),
        };
        let mut h = History::default();
        let t = threats(&pos);
        for (i, m) in moves.iter().enumerate() {
            for color in Color::ALL {
                let keys = keys_of(color);
                let tried = &moves[..i % 5];
                for t in [0, t] {
                    h.on_cutoff(
                        &p,
                        color,
                        t,
                        2,
                        1 + i as i32 % 9,
                        *m,
                        tried,
                        &[],
                        None,
                        keys,
                    );
                }
            }
        }
        let mut nonzero = 0;
        for color in Color::ALL {
            let keys = keys_of(color);
            for k in [
                keys,
                ContKeys::default(),
                ContKeys {
                    counter: None,
                    ..keys
                },
                ContKeys { ply4: None, ..keys },
            ] {
                for t in [0, t] {
                    let scorer = h.quiet_scorer(color, t, k);
                    for m in &moves {
                        assert_eq!(scorer.score(m), h.quiet_score(color, t, m, k), "{m:?}");
                        nonzero += (scorer.score(m) != 0) as usize;
                    }
                }
            }
        }
        assert!(nonzero > 100, "{nonzero}");
    }

    /// hist_threats: `threats` is the set of squares the side not to move attacks,
    /// square by square as shakmaty's `attacks_to` sees them.
    #[test]
    fn threats_are_the_squares_the_enemy_attacks() {
        let mut checked = 0;
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            let board = pos.board().board();
            let them = !pos.turn();
            let t = threats(pos);
            for sq in Square::ALL {
                let attacked = board.attacks_to(sq, them, board.occupied()).any();
                assert_eq!(t >> sq as u32 & 1 == 1, attacked, "{} {sq}", pos.fen());
            }
            checked += 1;
        });
        assert!(checked > 10_000, "{checked}");
    }
}
