//! The eval cache, and the prefetch hints the search gives the evaluation before
//! making a move: the child's eval-cache slot and, when the move changes the pawns,
//! its pawn-table entry.
//!
//! The eval cache is a direct-mapped table of recent evaluations keyed by the full
//! Zobrist hash (which determines the board and the side to move). The TT keeps
//! static evaluations too, but loses them when entries are replaced; this table
//! (fits in L2) catches the re-evaluations of recently seen positions. An entry is
//! one word: the key's upper 48 bits and the score as i16. The slot is the key's
//! lower 16 bits, so slot and stored bits together are the whole key and a hit is
//! exactly what the evaluation would return: the search is unchanged.

use shakmaty::{Color, Move, Position as _, Role};

use super::Evaluator;
use crate::position::{Position, en_passant_victim};

/// log2 of the number of entries: 64K entries of 8 bytes = 512 KB. At least 16, so
/// that the slot and the stored upper 48 bits cover the whole key.
const EVAL_CACHE_BITS: u32 = 16;
const _: () = assert!(EVAL_CACHE_BITS >= 16);

/// The key bits an entry stores; the lower 16 hold the score.
const CACHE_KEY_MASK: u64 = !0xFFFF;

/// One eval-cache word: key bits [`CACHE_KEY_MASK`], score in the low 16 bits. A
/// key whose upper 48 bits are all zero is never cached, so 0 marks an empty entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CacheEntry(u64);

impl CacheEntry {
    /// The entry for `key` and `score`, or `None` when they do not fit one.
    #[inline(always)]
    fn new(key: u64, score: i32) -> Option<CacheEntry> {
        let score = i16::try_from(score).ok()?;
        (key & CACHE_KEY_MASK != 0)
            .then_some(CacheEntry(key & CACHE_KEY_MASK | score as u16 as u64))
    }

    /// The cached score if this entry holds `key`.
    #[inline(always)]
    fn score(self, key: u64) -> Option<i32> {
        (self.0 & CACHE_KEY_MASK == key & CACHE_KEY_MASK && self.0 != 0)
            .then_some(self.0 as u16 as i16 as i32)
    }
}

/// The eval cache: one [`CacheEntry`] per slot.
#[derive(Clone, Debug)]
pub(super) struct EvalCache(Vec<CacheEntry>);

impl EvalCache {
    pub(super) fn new() -> EvalCache {
        EvalCache(vec![CacheEntry::default(); 1 << EVAL_CACHE_BITS])
    }

    /// Forgets every entry (the parameters changed).
    pub(super) fn clear(&mut self) {
        self.0.fill(CacheEntry::default());
    }

    /// The slot of the position with hash `key` (its lower bits), for
    /// [`Self::score`] and [`Self::store`]: computed once per evaluation.
    #[inline(always)]
    pub(super) fn slot(key: u64) -> usize {
        key as usize & ((1 << EVAL_CACHE_BITS) - 1)
    }

    /// Hints the CPU to load the slot of the position with hash `key`.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.0[Self::slot(key)]);
    }

    /// The cached evaluation of the position with hash `key` (in `slot`), if any.
    #[inline(always)]
    pub(super) fn score(&self, slot: usize, key: u64) -> Option<i32> {
        self.0[slot].score(key)
    }

    /// Caches `score` for the position with hash `key` (in `slot`) when an entry
    /// holds it.
    #[inline(always)]
    pub(super) fn store(&mut self, slot: usize, key: u64, score: i32) {
        if let Some(entry) = CacheEntry::new(key, score) {
            self.0[slot] = entry;
        }
    }
}

impl Evaluator {
    /// Hints the CPU to load the eval-cache slot of the position with hash `key`
    /// (the search calls it with the TT prefetch, before making the move).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        self.cache.prefetch(key);
    }

    /// Hints the CPU to load the pawn-table entry of the position after `m` when
    /// the move changes the pawns (a pawn moves or is taken); otherwise the child
    /// reads the entry this position used. Called with [`Evaluator::prefetch`].
    #[inline(always)]
    pub fn prefetch_pawns(&self, pos: &Position, m: &Move) {
        if let Some((white, black)) = changed_pawns(pos, m) {
            self.pawns.prefetch(white, black);
        }
    }
}

/// White's and Black's pawns after `m` in `pos` when the move changes them (a pawn
/// moves or is taken), else `None`.
#[inline(always)]
fn changed_pawns(pos: &Position, m: &Move) -> Option<(u64, u64)> {
    // The moving piece, its squares, what it takes and where that stood.
    let (role, from, to, capture, taken) = match *m {
        Move::Normal {
            role,
            from,
            to,
            capture,
            ..
        } => (role, from, to, capture, to),
        Move::EnPassant { from, to } => (
            Role::Pawn,
            from,
            to,
            Some(Role::Pawn),
            en_passant_victim(from, to),
        ),
        _ => return None,
    };
    if role != Role::Pawn && capture != Some(Role::Pawn) {
        return None;
    }
    let board = pos.board().board();
    let us = pos.turn();
    let mut own = (board.pawns() & board.by_color(us)).0;
    let mut theirs = (board.pawns() & board.by_color(!us)).0;
    if role == Role::Pawn {
        own ^= 1 << from as u32;
        if m.promotion().is_none() {
            own |= 1 << to as u32;
        }
    }
    if capture == Some(Role::Pawn) {
        theirs &= !(1 << taken as u32);
    }
    Some(match us {
        Color::White => (own, theirs),
        Color::Black => (theirs, own),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::features as f;
    use crate::params::Params;

    /// An entry answers only for its own key (slot bits aside), and only scores an
    /// i16 holds and keys with non-zero upper bits are stored.
    #[test]
    fn cache_entries_answer_only_for_their_key() {
        let key = 0x1234_5678_9ABC_DEF0;
        let e = CacheEntry::new(key, -321).unwrap();
        assert_eq!(e.score(key), Some(-321));
        assert_eq!(e.score(key ^ 1 << 16), None);
        assert_eq!(e.score(key ^ 1 << 63), None);
        assert_eq!(
            CacheEntry::new(key, 32_767).unwrap().score(key),
            Some(32_767)
        );
        assert_eq!(
            CacheEntry::new(key, -32_768).unwrap().score(key),
            Some(-32_768)
        );
        assert_eq!(CacheEntry::new(key, 40_000), None);
        assert_eq!(CacheEntry::new(0xFFFF, 5), None);
        assert_eq!(CacheEntry::default().score(0), None);
    }

    /// The pawns whose entry the parent prefetches are the child's, for every move
    /// of every perft node; a move said to leave them alone does.
    #[test]
    fn changed_pawns_are_the_pawns_after_the_move() {
        let pawns = |p: &Position| {
            let b = p.board().board();
            ((b.pawns() & b.white()).0, (b.pawns() & b.black()).0)
        };
        let (mut changed, mut unchanged) = (0u64, 0u64);
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            for m in pos.legal_moves() {
                let after = pawns(&pos.play(m));
                match changed_pawns(pos, &m) {
                    Some(child) => {
                        assert_eq!(child, after, "{} {m}", pos.fen());
                        changed += 1;
                    }
                    None => {
                        assert_eq!(pawns(pos), after, "{} {m}", pos.fen());
                        unchanged += 1;
                    }
                }
            }
        });
        assert!(
            changed > 10_000 && unchanged > 10_000,
            "{changed} {unchanged}"
        );
    }

    /// Cached evaluations equal fresh ones, also after the parameters changed.
    #[test]
    fn eval_cache_returns_what_the_evaluation_would() {
        let mut params = Params::default();
        let mut cached = Evaluator::new(&params);
        let mut positions = Vec::new();
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |p| {
            if positions.len() < 20_000 {
                positions.push(p.clone());
            }
        });
        for round in 0..3 {
            if round == 2 {
                let knight_mg = f::PARAMS[f::MATERIAL_KNIGHT][f::MG].unwrap();
                params.set(knight_mg, 400).unwrap();
                cached.refresh(&params);
            }
            let mut fresh = Evaluator::new(&params);
            for p in &positions {
                // A new evaluator per position would be slow; clearing its cache is the same.
                fresh.cache.clear();
                assert_eq!(
                    cached.evaluate(p),
                    fresh.evaluate(p),
                    "round {round} {}",
                    p.fen()
                );
            }
        }
    }
}
