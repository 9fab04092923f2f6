//! Transposition table: buckets of three 10-byte entries (one 32-byte bucket per
//! index), depth-preferred replacement with ageing, mate scores stored relative to
//! the node so they stay correct when reached at another ply. Lock-free: shared by
//! every search thread, each entry guarded by a check of key XOR data.

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

use shakmaty::{Chess, Move, Position as _, Role, Square};

use crate::position::Position;
use crate::score::{NO_SCORE, TB_WIN_BOUND};

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Score is an upper bound (fail low).
    Upper = 1,
    /// Score is a lower bound (fail high).
    Lower = 2,
    /// Score is exact (PV node).
    Exact = 3,
}

/// One probe result, with the score already converted back to the probing ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    /// The stored move, packed; [`TtHit::mv`] unpacks it and checks it is legal.
    /// Left packed by the probe: most hits that settle a q-search node never use it.
    packed_move: u16,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
    /// tt_pv: the node was searched as a PV node, now or by an earlier visit whose
    /// flag the search carried over when it stored again (LMR reads it: `lmr_ttpv`).
    pub pv: bool,
}

impl TtHit {
    /// The stored move if it is legal in `pos`, the position probed.
    #[inline]
    pub fn mv(&self, pos: &Position) -> Option<Move> {
        unpack(self.packed_move, pos)
    }

    /// [`TtHit::mv`] when `keep` accepts the move: the cheap test runs before the
    /// legality check, which is skipped for a move that would be dropped anyway.
    #[inline]
    pub fn mv_if(&self, pos: &Position, keep: impl FnOnce(&Move) -> bool) -> Option<Move> {
        let m = decode_own(self.packed_move, pos)?;
        (keep(&m) && crate::movegen::is_legal(pos.board(), m)).then_some(m)
    }

    /// Whether the stored score settles a node searched with the window (alpha, beta):
    /// an exact score always, a lower bound at or above beta, an upper bound at or
    /// below alpha.
    #[inline]
    pub fn cuts(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        }
    }
}

/// One entry, decoded from its bucket.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Entry {
    /// The low 16 bits of the position's hash.
    key: u16,
    /// Packed move, 15 bits (see [`pack`]).
    mv: u16,
    /// The node was on (or next to) a principal variation when stored.
    pv: bool,
    score: i16,
    eval: i16,
    depth: u8,
    /// Generation in the upper 6 bits, bound in the lower 2 (0 = empty).
    gen_bound: u8,
}

/// Bit 15 of the move lane of the data word (a packed move uses 15 bits).
const PV_BIT: u16 = 1 << 15;

impl Entry {
    /// Everything but the key in one word: move and pv bit, score, eval, depth,
    /// generation and bound.
    #[inline(always)]
    fn data(&self) -> u64 {
        (self.mv | (self.pv as u16) << 15) as u64
            | (self.score as u16 as u64) << 16
            | (self.eval as u16 as u64) << 32
            | (self.depth as u64) << 48
            | (self.gen_bound as u64) << 56
    }

    #[inline(always)]
    fn from_data(key: u16, d: u64) -> Entry {
        Entry {
            key,
            mv: d as u16 & !PV_BIT,
            pv: d as u16 & PV_BIT != 0,
            score: (d >> 16) as u16 as i16,
            eval: (d >> 32) as u16 as i16,
            depth: (d >> 48) as u8,
            gen_bound: (d >> 56) as u8,
        }
    }
}

/// The 16-bit fold of a data word that the stored check mixes into the key.
#[inline(always)]
fn fold(d: u64) -> u16 {
    (d ^ d >> 16 ^ d >> 32 ^ d >> 48) as u16
}

const BUCKET_ENTRIES: usize = 3;

/// Three entries in one 32-byte line. Threads share the table without locks: each
/// entry is a data word and a 16-bit check (key XOR a fold of the data), stored and
/// loaded as separate relaxed atomics. An entry torn by two concurrent writers
/// (data of one, check of the other) decodes to a wrong key and is missed, like any
/// other position's entry; a single thread reads exactly what it wrote.
#[derive(Default)]
#[repr(C, align(32))]
struct Bucket {
    data: [AtomicU64; BUCKET_ENTRIES],
    checks: [AtomicU16; BUCKET_ENTRIES],
}

impl Bucket {
    /// The key and data word of entry `i` (the key recovered from the check).
    #[inline(always)]
    fn load_raw(&self, i: usize) -> (u16, u64) {
        let d = self.data[i].load(Ordering::Relaxed);
        (self.checks[i].load(Ordering::Relaxed) ^ fold(d), d)
    }

    #[inline(always)]
    fn load(&self, i: usize) -> Entry {
        let d = self.data[i].load(Ordering::Relaxed);
        let check = self.checks[i].load(Ordering::Relaxed);
        Entry::from_data(check ^ fold(d), d)
    }

    #[inline(always)]
    fn save(&self, i: usize, e: &Entry) {
        let d = e.data();
        self.data[i].store(d, Ordering::Relaxed);
        self.checks[i].store(e.key ^ fold(d), Ordering::Relaxed);
    }
}

// tt_ memory: huge pages
//
// Every probe is a random access into a table of many megabytes. With 4 KB pages a
// 16 MB table spans 4096 pages, more than the data TLB holds, so most probes (and
// the prefetches meant to hide them) first walk the page tables. The buckets live
// in one allocation aligned to 2 MB, and on Linux `madvise(MADV_HUGEPAGE)` asks for
// transparent huge pages before the memory is first touched (distributions often
// set THP to `madvise`, so without the call there are none). Without huge pages the
// table works the same, only slower.

/// Alignment (and granularity) of a transparent huge page on x86-64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// The bucket array: `len` zero-initialised buckets in one aligned allocation.
struct Buckets {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
    layout: std::alloc::Layout,
}

// SAFETY: `Buckets` owns its allocation, like a `Vec<Bucket>`, and `Bucket` (atomics
// only) is `Send + Sync`.
unsafe impl Send for Buckets {}
unsafe impl Sync for Buckets {}

#[cfg(target_os = "linux")]
mod madvise {
    use std::ffi::{c_int, c_void};

    unsafe extern "C" {
        /// From the C library std already links (no `libc` crate needed for one call).
        pub fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    /// `<sys/mman.h>`: back the range with transparent huge pages where possible.
    pub const MADV_HUGEPAGE: c_int = 14;
}

impl Buckets {
    /// `len` (at least 1) empty buckets, or `None` when the memory cannot be had.
    fn new(len: usize) -> Option<Buckets> {
        let len = len.max(1);
        let size = len.checked_mul(std::mem::size_of::<Bucket>())?;
        // Small tables (tests, tiny Hash values) need no page alignment.
        let align = if size >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<Bucket>()
        };
        let layout = std::alloc::Layout::from_size_align(size, align).ok()?;
        // SAFETY: `size` is non-zero.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = std::ptr::NonNull::new(raw as *mut Bucket)?;
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: the range is our own fresh allocation; the advice changes only how
            // it is backed, never its contents. A refusal (THP off) is harmless.
            unsafe {
                madvise::madvise(raw.cast(), size, madvise::MADV_HUGEPAGE);
            }
        }
        for i in 0..len {
            // SAFETY: `i < len` buckets fit the allocation; each is written before any
            // read, and this first touch also faults the (huge) pages in.
            unsafe { ptr.as_ptr().add(i).write(Bucket::default()) };
        }
        Some(Buckets { ptr, len, layout })
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];

    #[inline(always)]
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `ptr` holds `len` initialised buckets for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Buckets {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Bucket] {
        // SAFETY: as in `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        // SAFETY: allocated in `Buckets::new` with exactly this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) };
    }
}

const GEN_STEP: u8 = 4;
const GEN_CYCLE: i32 = 256;

/// The shared transposition table: probed and written through `&self` by every
/// search thread; resized, cleared and aged between searches.
pub struct TranspositionTable {
    buckets: Buckets,
    generation: u8,
}

/// Mate and tablebase-win scores are stored as distance from this node, not from
/// the root (no other score reaches `TB_WIN_BOUND`).
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Inverse of [`score_to_tt`].
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Packs a move into 16 bits: from (6), to (6), promotion role (3). Castling is
/// stored king-to-rook; unpacking rebuilds the move from the board.
fn pack(m: Move) -> u16 {
    let (from, to, promo) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion.map_or(0, |r| r as u16)),
        Move::EnPassant { from, to } => (from, to, 0),
        Move::Castle { king, rook } => (king, rook, 0),
        Move::Put { to, .. } => (to, to, 0),
    };
    (from as u16) | ((to as u16) << 6) | (promo << 12)
}

/// Rebuilds a packed move in `pos`, or `None` when it is not legal there (hash
/// collision, stale entry). Legality is checked because playing an illegal move
/// corrupts a shakmaty position.
pub fn unpack(packed: u16, pos: &Position) -> Option<Move> {
    let m = decode_own(packed, pos)?;
    crate::movegen::is_legal(pos.board(), m).then_some(m)
}

/// The move a packed entry names when its origin holds a piece of the side to move
/// (legal or not); `None` for no move.
#[inline]
fn decode_own(packed: u16, pos: &Position) -> Option<Move> {
    if packed == 0 {
        return None;
    }
    let board = pos.board();
    let from = Square::new((packed & 63) as u32);
    if board.board().piece_at(from)?.color != board.turn() {
        return None;
    }
    decode(packed, board)
}

/// The move a packed entry names in `board`, legal or not: the piece on the origin
/// decides its kind (a king onto its own rook castles, a pawn moving diagonally onto
/// an empty square takes en passant). `None` when the origin is empty.
pub(crate) fn decode(packed: u16, board: &Chess) -> Option<Move> {
    let from = Square::new((packed & 63) as u32);
    let to = Square::new(((packed >> 6) & 63) as u32);
    let promotion = match packed >> 12 {
        0 => None,
        r => Some(Role::try_from(r as u8).ok()?),
    };
    let piece = board.board().piece_at(from)?;
    let target = board.board().piece_at(to);
    Some(
        if piece.role == Role::King
            && target.is_some_and(|p| p.color == piece.color && p.role == Role::Rook)
        {
            Move::Castle {
                king: from,
                rook: to,
            }
        } else if piece.role == Role::Pawn && from.file() != to.file() && target.is_none() {
            Move::EnPassant { from, to }
        } else {
            Move::Normal {
                role: piece.role,
                from,
                capture: target.map(|p| p.role),
                to,
                promotion,
            }
        },
    )
}

impl TranspositionTable {
    pub fn new(mb: usize) -> Self {
        let buckets = Buckets::new(Self::bucket_count(mb))
            // Fall back to the smallest table rather than failing to construct.
            .or_else(|| Buckets::new(Self::bucket_count(1)))
            .expect("a 1 MB hash table can be allocated");
        TranspositionTable {
            buckets,
            generation: 0,
        }
    }

    /// Buckets of a table of `mb` megabytes (at least one).
    fn bucket_count(mb: usize) -> usize {
        (mb.max(1).saturating_mul(1024 * 1024) / std::mem::size_of::<Bucket>()).max(1)
    }

    /// Reallocates to `mb` megabytes (at least one bucket), empty. When the memory
    /// cannot be had, the table keeps its old size (cleared) and the error says why.
    pub fn resize(&mut self, mb: usize) -> Result<(), String> {
        let Some(buckets) = Buckets::new(Self::bucket_count(mb)) else {
            self.clear();
            return Err(format!(
                "cannot allocate a {mb} MB hash table; keeping {} MB",
                self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
            ));
        };
        self.buckets = buckets;
        self.generation = 0;
        Ok(())
    }

    pub fn clear(&mut self) {
        for b in self.buckets.iter_mut() {
            *b = Bucket::default();
        }
        self.generation = 0;
    }

    /// Called once per search so older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(GEN_STEP);
    }

    #[inline(always)]
    fn index(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Hints the CPU to fetch the bucket of `hash` (called right after a move is
    /// made, so the miss overlaps with the work before the child's probe).
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        crate::prefetch::prefetch(&self.buckets[self.index(hash)]);
    }

    /// Looks `pos` up; the TT move stays packed until [`TtHit::mv`] validates it.
    /// Inlined into the two searches' node openings: a call returned the hit
    /// through memory at every node.
    #[inline(always)]
    pub fn probe(&self, pos: &Position, ply: usize) -> Option<TtHit> {
        let hash = pos.hash();
        let key = hash as u16;
        let bucket = &self.buckets[self.index(hash)];
        // Only the matching entry is decoded (the probe is on every node's path).
        let e = (0..BUCKET_ENTRIES)
            .map(|i| bucket.load_raw(i))
            .find(|&(k, d)| k == key && (d >> 56) & 3 != 0)
            .map(|(k, d)| Entry::from_data(k, d))?;
        let bound = match e.gen_bound & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(TtHit {
            packed_move: e.mv,
            score: score_from_tt(e.score as i32, ply),
            eval: e.eval as i32,
            depth: e.depth as i32,
            bound,
            pv: e.pv,
        })
    }

    /// Stores a search result. Same-position entries are overwritten unless they are
    /// much deeper; otherwise the shallowest, oldest entry of the bucket is replaced.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        hash: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let key = hash as u16;
        let generation = self.generation;
        let bucket = &self.buckets[self.index(hash)];
        let entries: [Entry; BUCKET_ENTRIES] = std::array::from_fn(|i| bucket.load(i));
        let age = |e: &Entry| -> i32 {
            (GEN_CYCLE + generation as i32 - (e.gen_bound & !3) as i32) % GEN_CYCLE
                / GEN_STEP as i32
        };
        let slot = match entries.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => (0..BUCKET_ENTRIES)
                .min_by_key(|&i| {
                    let e = &entries[i];
                    if e.gen_bound & 3 == 0 {
                        i32::MIN
                    } else {
                        e.depth as i32 - 8 * age(e)
                    }
                })
                .unwrap_or(0),
        };
        let old = &entries[slot];
        let same = old.key == key && old.gen_bound & 3 != 0;
        if same && bound != Bound::Exact && depth + 4 < old.depth as i32 && age(old) == 0 {
            return;
        }
        let packed = mv.map(pack).unwrap_or(0);
        let e = Entry {
            key,
            mv: if packed != 0 || !same { packed } else { old.mv },
            pv,
            score: score_to_tt(score, ply).clamp(-32_767, 32_767) as i16,
            eval: if eval == NO_SCORE {
                i16::MIN
            } else {
                eval.clamp(-32_000, 32_000) as i16
            },
            depth: depth.clamp(0, 255) as u8,
            gen_bound: generation | bound as u8,
        };
        bucket.save(slot, &e);
    }

    /// Per mille of entries written during the current search (first 1000 entries sampled).
    pub fn hashfull(&self) -> u32 {
        let mut used: u32 = 0;
        let mut seen: u32 = 0;
        for b in self.buckets.iter().take(1000 / BUCKET_ENTRIES + 1) {
            for e in (0..BUCKET_ENTRIES).map(|i| b.load(i)) {
                if seen == 1000 {
                    break;
                }
                seen += 1;
                if e.gen_bound & 3 != 0 && e.gen_bound & !3 == self.generation {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

/// Decodes a stored eval (`i16::MIN` marks "none").
pub fn eval_from_tt(eval: i32) -> i32 {
    if eval == i16::MIN as i32 {
        NO_SCORE
    } else {
        eval
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;

    /// Every move a TT entry could decode to from a few origins of every 16th perft
    /// node is played only when legal: `is_legal` agrees with shakmaty's on them.
    #[test]
    fn decoded_moves_are_legal_exactly_when_shakmaty_says() {
        let (mut legal, mut illegal, mut node) = (0u64, 0u64, 0u64);
        crate::perft::walk_suite(&|p, m| p.play(m), &mut |pos| {
            node += 1;
            if !node.is_multiple_of(16) {
                return;
            }
            let board = pos.board();
            for from in board.board().by_color(board.turn()).into_iter().take(4) {
                for to in Square::ALL {
                    for promo in [0, Role::Queen as u16, Role::King as u16] {
                        let packed = from as u16 | (to as u16) << 6 | promo << 12;
                        if let Some(m) = decode(packed, board) {
                            let expected = board.is_legal(m);
                            assert_eq!(
                                crate::movegen::is_legal(board, m),
                                expected,
                                "{} {m:?}",
                                pos.fen()
                            );
                            legal += u64::from(expected);
                            illegal += u64::from(!expected);
                        }
                    }
                }
            }
        });
        assert!(
            legal > 100_000 && illegal > 1_000_000,
            "{legal} legal, {illegal} illegal"
        );
    }

    #[test]
    fn store_probe_and_mate_scores_round_trip() {
        let tt = TranspositionTable::new(1);
        let pos = Position::startpos();
        let m = pos.parse_uci_move("e2e4").unwrap();
        // Mate in 3 plies from this node found at ply 5: root-relative MATE - 8.
        tt.store(pos.hash(), 5, Some(m), MATE - 8, 12, 7, Bound::Exact, true);
        let hit = tt.probe(&pos, 5).unwrap();
        assert_eq!(hit.mv(&pos), Some(m));
        assert_eq!(hit.mv_if(&pos, |m| m.is_capture()), None);
        assert_eq!(hit.mv_if(&pos, |m| !m.is_capture()), Some(m));
        // Not legal for the other side to move (its pawn is not on e2).
        let after = pos.play(pos.parse_uci_move("g1f3").unwrap());
        assert_eq!(hit.mv(&after), None);
        assert_eq!(hit.mv_if(&after, |_| true), None);
        assert_eq!(hit.score, MATE - 8);
        assert_eq!(hit.depth, 7);
        assert_eq!(hit.bound, Bound::Exact);
        assert_eq!(hit.eval, 12);
        assert!(hit.pv);
        // Probed from ply 1 the same mate is 3 plies away: MATE - 4.
        assert_eq!(tt.probe(&pos, 1).unwrap().score, MATE - 4);
        tt.store(pos.hash(), 2, None, -MATE + 10, 0, 7, Bound::Upper, false);
        assert_eq!(tt.probe(&pos, 4).unwrap().score, -MATE + 12);
        // A move-less store keeps the old move.
        assert_eq!(tt.probe(&pos, 4).unwrap().mv(&pos), Some(m));
        assert!(!tt.probe(&pos, 4).unwrap().pv);
    }

    #[test]
    fn entries_round_trip_through_the_data_word() {
        let e = Entry {
            key: 0xbeef,
            mv: 0x7abc,
            pv: true,
            score: -31_000,
            eval: i16::MIN,
            depth: 255,
            gen_bound: 0xfd,
        };
        let b = Bucket::default();
        b.save(1, &e);
        assert_eq!(b.load(1), e);
        assert_eq!(b.load(0), Entry::default());
        let e = Entry { pv: false, ..e };
        b.save(2, &e);
        assert_eq!(b.load(2), e);
    }

    #[test]
    fn large_tables_are_huge_page_aligned_and_empty() {
        let mut tt = TranspositionTable::new(5);
        assert_eq!(tt.buckets.len(), 5 * 1024 * 1024 / 32);
        assert_eq!(tt.buckets.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(
            tt.buckets
                .iter()
                .all(|b| (0..BUCKET_ENTRIES).all(|i| b.load(i) == Entry::default()))
        );
        let pos = Position::startpos();
        tt.store(pos.hash(), 0, None, 5, 5, 3, Bound::Exact, false);
        assert!(tt.probe(&pos, 0).is_some());
        tt.clear();
        assert_eq!(tt.probe(&pos, 0), None);
        assert!(tt.resize(1).is_ok());
        assert_eq!(tt.buckets.len(), 1024 * 1024 / 32);
        assert_eq!(tt.probe(&pos, 0), None);
    }

    #[test]
    fn a_torn_entry_is_not_found() {
        // Two threads write two positions' entries; a torn write leaves one slot with
        // the data of one and the check of the other. Neither position may read it.
        let tt = TranspositionTable {
            buckets: Buckets::new(1).unwrap(),
            generation: 0,
        };
        let a = Position::startpos();
        let b = a.play(a.parse_uci_move("e2e4").unwrap());
        tt.store(a.hash(), 0, None, 17, 5, 9, Bound::Exact, false);
        tt.store(b.hash(), 0, None, -300, 8, 12, Bound::Lower, true);
        assert_eq!(tt.probe(&a, 0).map(|h| h.score), Some(17));
        assert_eq!(tt.probe(&b, 0).map(|h| h.score), Some(-300));
        let checks = &tt.buckets[0].checks;
        let (check_a, check_b) = (
            checks[0].load(Ordering::Relaxed),
            checks[1].load(Ordering::Relaxed),
        );
        checks[0].store(check_b, Ordering::Relaxed);
        checks[1].store(check_a, Ordering::Relaxed);
        assert_eq!(tt.probe(&a, 0), None);
        assert_eq!(tt.probe(&b, 0), None);
    }

    #[test]
    fn replacement_prefers_deep_and_current_entries() {
        // A one-bucket table: every store competes for the same three slots.
        let mut tt = TranspositionTable {
            buckets: Buckets::new(1).unwrap(),
            generation: 0,
        };
        for (i, depth) in [(1u64, 10), (2, 3), (3, 8)] {
            tt.store(i, 0, None, 0, 0, depth, Bound::Lower, false);
        }
        tt.store(4, 0, None, 0, 0, 5, Bound::Lower, false);
        let depths = |tt: &TranspositionTable| -> Vec<u8> {
            (0..BUCKET_ENTRIES)
                .map(|i| tt.buckets[0].load(i).depth)
                .collect()
        };
        let d = depths(&tt);
        assert!(d.contains(&10) && d.contains(&8) && d.contains(&5));
        assert!(!d.contains(&3));
        // After a few searches, an old deep entry gives way to a new shallow one.
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(5, 0, None, 0, 0, 1, Bound::Lower, false);
        assert!(depths(&tt).contains(&1));
        assert!(tt.hashfull() > 0);
    }
}
