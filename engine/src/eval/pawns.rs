//! Pawn structure: isolated, doubled, backward, connected (defended), phalanx,
//! candidate passers and passed pawns by rank. Beside each of the first four's single
//! weight, tables by file, rank or square as Ethereal keeps them (isolated and doubled
//! by file, backward by rank and whether an enemy pawn closes its file, connected by
//! square folded to files a..d) add to it: shipped at 0 for a Texel fit to fill.
//! These depend on the pawns alone, so the result is cached in a small pawn hash
//! table keyed by both pawn bitboards (an exact key: no collisions); the entry also
//! keeps the squares no enemy pawn can ever attack, where outposts lie. Passed-pawn
//! terms that depend on other pieces (advance, king distance, path) are scored each
//! time from the cached passed-pawn sets (`passed.rs`).

use super::Tracer;
use super::features::{self as f, Section};
use super::pknet::PawnSums;
use crate::rays::{FILE_A, FRONT, PASSED, adjacent_files, pawn_attacks, relative_rank};
use crate::score::S;
use shakmaty::Color;

/// Pawn-only score (White minus Black) and the passed pawns of each side.
#[derive(Clone, Copy, Debug, Default)]
pub struct PawnEntry {
    white: u64,
    black: u64,
    pub score: S,
    /// Passed pawns of White and Black.
    pub passed: [u64; 2],
    /// Squares of White and Black no enemy pawn can ever attack (`outposts.rs`).
    pub holes: [u64; 2],
    /// King squares (64: none yet) for which `shelter` holds each side's king shelter
    /// and storm score (`shelter.rs`): they depend on the pawns and that king only,
    /// and kings move rarely, so the entry keeps the last one.
    pub king: [u8; 2],
    pub shelter: [S; 2],
    /// Both king squares (White's + 64 × Black's; [`NO_KINGS`]: none yet) for which
    /// `network` holds the pawn-king network's score (`pknet.rs`).
    pub kings: u16,
    pub network: S,
    /// The network's hidden sums over these pawns (valid once `kings` is not
    /// [`NO_KINGS`]), so that a king move costs two rows of weights a view.
    pub network_pawns: PawnSums,
}

/// `PawnEntry::kings` of an entry whose network score is not computed yet (no pair of
/// squares gives it).
pub(super) const NO_KINGS: u16 = u16::MAX;

impl PawnEntry {
    /// The entry of no pawns at all, valid as it stands (no king shelter cached yet):
    /// a probe of no pawns hits it without computing anything, so its holes are the
    /// whole of each side's outpost ranks (no enemy pawn guards any).
    fn empty() -> PawnEntry {
        PawnEntry {
            king: [64; 2],
            kings: NO_KINGS,
            holes: enemy_pawn_holes(0, 0),
            ..PawnEntry::default()
        }
    }
}

/// The pawn terms shipped at weight 0 that an evaluation looks for: skipped while their
/// weights are all zero, they cost nothing then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PawnTerms {
    /// Candidate passers (`pawn_candidate_*`).
    pub candidates: bool,
    /// The tables by file, rank and square beside the single weights.
    pub tables: bool,
}

impl PawnTerms {
    /// Every term, for the trace.
    pub const ALL: PawnTerms = PawnTerms {
        candidates: true,
        tables: true,
    };
}

/// Direct-mapped pawn hash table.
#[derive(Clone, Debug)]
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

const PAWN_TABLE_BITS: u32 = 13;

impl PawnTable {
    pub fn new() -> Self {
        PawnTable {
            entries: vec![PawnEntry::empty(); 1 << PAWN_TABLE_BITS],
        }
    }

    /// Forgets every entry (the weights changed).
    pub fn clear(&mut self) {
        self.entries.fill(PawnEntry::empty());
    }

    /// The slot of these pawns.
    #[inline(always)]
    fn slot(white: u64, black: u64) -> usize {
        let key =
            (white ^ black.rotate_left(32) ^ (black >> 7)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (key >> (64 - PAWN_TABLE_BITS)) as usize
    }

    /// Hints the CPU to load the entry of these pawns (its first cache line, which
    /// holds the pawns compared by the probe).
    #[inline(always)]
    pub fn prefetch(&self, white: u64, black: u64) {
        crate::prefetch::prefetch(&self.entries[Self::slot(white, black)]);
    }

    /// The entry for these pawns, computing and storing it on a miss; `terms`: which
    /// of the terms shipped at weight 0 to look for (their weights are not all zero).
    #[inline]
    pub fn probe(
        &mut self,
        weights: &[S],
        white: u64,
        black: u64,
        terms: PawnTerms,
    ) -> &mut PawnEntry {
        let e = &mut self.entries[Self::slot(white, black)];
        // The empty entry (no pawns) is valid: its score is zero.
        if e.white != white || e.black != black {
            let (score, passed) = evaluate(weights, white, black, terms, &mut super::NoTrace);
            *e = PawnEntry {
                white,
                black,
                score,
                passed,
                holes: enemy_pawn_holes(white, black),
                ..PawnEntry::empty()
            };
        }
        e
    }
}

/// Every feature of the tables beside the single pawn weights ([`tables`]), table by
/// table: the evaluation skips them while their weights are all zero.
pub(super) const TABLES: [&[usize]; 8] = [
    &f::PAWN_ISOLATED_FILE,
    &f::PAWN_DOUBLED_FILE,
    &f::PAWN_BACKWARD_RANK,
    &f::PAWN_BACKWARD_OPEN_RANK,
    &f::PAWN_CONNECTED_FILE_A_RANK,
    &f::PAWN_CONNECTED_FILE_B_RANK,
    &f::PAWN_CONNECTED_FILE_C_RANK,
    &f::PAWN_CONNECTED_FILE_D_RANK,
];

/// Connected pawns by file folded to a..d (a/h, b/g, c/f, d/e), then relative rank
/// 2..7.
const CONNECTED: [[usize; 6]; 4] = [
    f::PAWN_CONNECTED_FILE_A_RANK,
    f::PAWN_CONNECTED_FILE_B_RANK,
    f::PAWN_CONNECTED_FILE_C_RANK,
    f::PAWN_CONNECTED_FILE_D_RANK,
];

/// Relative ranks 4, 5 and 6 of each side, where outposts lie.
const WHITE_RANKS: u64 = 0x0000_FFFF_FF00_0000;
const BLACK_RANKS: u64 = 0x0000_00FF_FFFF_0000;

/// The squares on relative ranks 4..=6 of White and Black that no enemy pawn attacks
/// now or after advancing (`outposts.rs` scores the pieces on them, and pays more
/// where an own pawn guards them): they depend on the pawns alone, so the pawn cache
/// keeps them.
pub(super) fn enemy_pawn_holes(white: u64, black: u64) -> [u64; 2] {
    // Every square an enemy pawn attacks now or after advancing: the pawns filled
    // towards the other side, then their attacks.
    let (mut down, mut up) = (black, white);
    for shift in [8, 16, 32] {
        down |= down >> shift;
        up |= up << shift;
    }
    [
        WHITE_RANKS & !pawn_attacks(Color::Black, down),
        BLACK_RANKS & !pawn_attacks(Color::White, up),
    ]
}

/// Scores both sides' pawn structures (White minus Black) and finds the passed pawns;
/// candidate passers and the tables by file, rank and square only as `terms` asks.
pub fn evaluate<T: Tracer>(
    weights: &[S],
    white: u64,
    black: u64,
    terms: PawnTerms,
    t: &mut T,
) -> (S, [u64; 2]) {
    let mut score = S::default();
    let mut passed = [0u64; 2];
    for color in Color::ALL {
        let (own, opp) = match color {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let ci = color as usize ^ 1; // shakmaty: Black = 0, White = 1; tables: White = 0
        let opp_attacks = pawn_attacks(!color, opp);
        let defended = pawn_attacks(color, own);
        let mut side = S::default();
        let mut add = |section: Section, feature: usize, t: &mut T| {
            side += weights[feature];
            t.add(section, feature, color, 1);
        };
        // The pawns each single weight scored, for the tables by file, rank and square.
        let mut scored = Scored::default();
        let mut bb = own;
        while bb != 0 {
            let sq = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            let file = sq % 8;
            let bit = 1u64 << sq;
            let rr = relative_rank(color, sq);
            let doubled = FRONT[ci][sq] & own != 0;
            let isolated = adjacent_files(file) & own == 0;
            let is_passed = !doubled && PASSED[ci][sq] & opp == 0;
            if doubled {
                add(Section::PawnStructure, f::PAWN_DOUBLED, t);
                scored.doubled |= bit;
            }
            if isolated {
                add(Section::PawnStructure, f::PAWN_ISOLATED, t);
                scored.isolated |= bit;
            }
            if defended & bit != 0 {
                add(Section::PawnStructure, f::PAWN_CONNECTED, t);
                scored.connected |= bit;
            }
            let beside = ((bit & !(FILE_A << 7)) << 1) | ((bit & !FILE_A) >> 1);
            if beside & own != 0 {
                add(Section::PawnStructure, f::PAWN_PHALANX, t);
                scored.connected |= bit;
            }
            // Backward: every own pawn on the adjacent files is in front of it, and the
            // stop square is attacked by an enemy pawn, so it cannot advance safely.
            if !isolated && !is_passed {
                let stop = match color {
                    Color::White => bit << 8,
                    Color::Black => bit >> 8,
                };
                let behind_or_level = adjacent_files(file) & !PASSED[ci][sq] & own;
                if behind_or_level == 0 && stop & opp_attacks != 0 {
                    add(Section::PawnStructure, f::PAWN_BACKWARD, t);
                    scored.backward |= bit;
                }
            }
            if is_passed && (1..=6).contains(&rr) {
                passed[color as usize] |= bit;
                add(Section::PassedPawns, f::PAWN_PASSED_RANK[rr - 1], t);
            }
        }
        if terms.tables {
            side += tables(weights, color, scored, opp, t);
        }
        if terms.candidates {
            side += candidate_passers(weights, color, own, opp, t);
        }
        match color {
            Color::White => score += side,
            Color::Black => score -= side,
        }
    }
    // Report passed pawns White first.
    (
        score,
        [passed[Color::White as usize], passed[Color::Black as usize]],
    )
}

/// Our pawns that the single weights scored as doubled (the rear one), isolated,
/// connected (defended or beside another) and backward.
#[derive(Clone, Copy, Default)]
struct Scored {
    doubled: u64,
    isolated: u64,
    connected: u64,
    backward: u64,
}

/// The tables beside the single pawn weights, as Ethereal keeps them: isolated and
/// doubled by file, backward by rank and whether an enemy pawn closes its file,
/// connected by square folded to files a..d, ranks 2..7.
// Not inlined: skipped while its weights are all zero, it should cost nothing then.
#[inline(never)]
fn tables<T: Tracer>(weights: &[S], color: Color, scored: Scored, opp: u64, t: &mut T) -> S {
    let ci = color as usize ^ 1; // tables: White = 0
    let mut s = S::default();
    let mut add = |feature: usize, t: &mut T| {
        s += weights[feature];
        t.add(Section::PawnStructure, feature, color, 1);
    };
    for (pawns, table) in [
        (scored.doubled, &f::PAWN_DOUBLED_FILE),
        (scored.isolated, &f::PAWN_ISOLATED_FILE),
    ] {
        let mut bb = pawns;
        while bb != 0 {
            let sq = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            add(table[sq % 8], t);
        }
    }
    let mut bb = scored.connected;
    while bb != 0 {
        let sq = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        let (file, rr) = (sq % 8, relative_rank(color, sq));
        if (1..=6).contains(&rr) {
            add(CONNECTED[file.min(7 - file)][rr - 1], t);
        }
    }
    let mut bb = scored.backward;
    while bb != 0 {
        let sq = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        // Its stop square is attacked, so it stands on ranks 2..6.
        let table = if FRONT[ci][sq] & opp == 0 {
            &f::PAWN_BACKWARD_OPEN_RANK
        } else {
            &f::PAWN_BACKWARD_RANK
        };
        if let Some(&feature) = table.get(relative_rank(color, sq).wrapping_sub(1)) {
            add(feature, t);
        }
    }
    s
}

/// Our candidate passers' score: pawns on ranks 2..=6, neither passed nor doubled,
/// whose stoppers all attack them or their push square, with own pawns guarding the
/// push square at least as often as enemy pawns attack it: one push and the trades
/// make them passed (Ethereal's rule; Ethereal also counts the rear pawn of a doubled
/// pair, which Occam's passed pawns leave out too). Scored by rank, apart for those
/// own pawns defend now at least as often as enemy pawns attack them.
// Not inlined: skipped while its weights are all zero, it should cost nothing then.
#[inline(never)]
fn candidate_passers<T: Tracer>(weights: &[S], color: Color, own: u64, opp: u64, t: &mut T) -> S {
    let ci = color as usize ^ 1; // tables: White = 0
    let mut s = S::default();
    let mut bb = own;
    while bb != 0 {
        let sq = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        let bit = 1u64 << sq;
        let rr = relative_rank(color, sq);
        let stoppers = PASSED[ci][sq] & opp;
        if !(1..=5).contains(&rr) || stoppers == 0 || FRONT[ci][sq] & own != 0 {
            continue;
        }
        let push = match color {
            Color::White => bit << 8,
            Color::Black => bit >> 8,
        };
        // Enemy pawns on the squares a pawn of ours there would attack attack that square.
        let threats = pawn_attacks(color, bit) & opp;
        let push_threats = pawn_attacks(color, push) & opp;
        let push_support = pawn_attacks(!color, push) & own;
        if stoppers & !(threats | push_threats) != 0
            || push_support.count_ones() < push_threats.count_ones()
        {
            continue;
        }
        let support = pawn_attacks(!color, bit) & own;
        let family = if support.count_ones() >= threats.count_ones() {
            &f::PAWN_CANDIDATE_SUPPORTED_RANK
        } else {
            &f::PAWN_CANDIDATE_RANK
        };
        s += weights[family[rr - 1]];
        t.add(Section::PawnStructure, family[rr - 1], color, 1);
    }
    s
}
