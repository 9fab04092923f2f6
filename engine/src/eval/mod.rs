//! Static evaluation: a pure function of the position and the parameters.
//!
//! A tapered hand-crafted evaluation. Every term adds `count * weight` to a
//! middlegame and an endgame score (White minus Black); the two are blended by the
//! game phase (24 = all pieces, 0 = bare kings) and the result is scaled down in
//! drawish endgames. Every weight is a parameter of `params/eval.json` (see
//! [`features`] for the names), so the evaluation is linear in its weights for a
//! given position: [`Evaluator::coefficients`] returns those per-position counts for
//! Texel tuning.
//!
//! Material and piece-square values are summed incrementally by the position
//! wrapper when the search moves with [`Position::play_psq`] and this evaluator's
//! [`Evaluator::psq_table`]; other positions are summed here.

pub mod features;
mod outposts;
mod passed;
mod pawns;
mod shelter;
#[cfg(test)]
mod tests;
mod threats;

use crate::params::Params;
use crate::position::{Position, PsqTable, en_passant_victim};
use crate::rays::{self, pawn_attacks, relative_rank};
/// The tapered score pair, re-exported for the evaluation's users.
pub use crate::score::S;
use features::{self as f, Section};
use pawns::PawnTable;
use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Color, Position as _, Role, Square};

/// Full phase: 1 per minor, 2 per rook, 4 per queen, capped.
pub const PHASE_MAX: i32 = 24;

/// Receives every feature occurrence during an evaluation (for the trace and for
/// Texel coefficients). [`NoTrace`] compiles to nothing.
pub trait Tracer {
    const ON: bool;
    /// `count` occurrences of `feature` for `color`, shown under `section` in the trace.
    fn add(&mut self, section: Section, feature: usize, color: Color, count: i32);
    /// A score of `color` that is not linear in the feature weights (king danger).
    fn offset(&mut self, section: Section, color: Color, s: S);
}

/// The tracer of the normal, fast evaluation.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn add(&mut self, _: Section, _: usize, _: Color, _: i32) {}
    #[inline(always)]
    fn offset(&mut self, _: Section, _: Color, _: S) {}
}

/// Per-feature counts of each side, and for the trace every occurrence with its section.
struct Counts {
    white: Vec<i32>,
    black: Vec<i32>,
    /// (section, feature, colour, count) when recording for the trace.
    occurrences: Option<Vec<(Section, usize, Color, i32)>>,
    /// Non-linear scores (White minus Black), and by section for the trace.
    offset: S,
    offsets: Vec<(Section, Color, S)>,
}

impl Counts {
    fn new(record: bool) -> Counts {
        Counts {
            white: vec![0; f::COUNT],
            black: vec![0; f::COUNT],
            occurrences: record.then(Vec::new),
            offset: S::default(),
            offsets: Vec::new(),
        }
    }
}

impl Tracer for Counts {
    const ON: bool = true;
    fn add(&mut self, section: Section, feature: usize, color: Color, count: i32) {
        match color {
            Color::White => self.white[feature] += count,
            Color::Black => self.black[feature] += count,
        }
        if let Some(o) = &mut self.occurrences {
            o.push((section, feature, color, count));
        }
    }
    fn offset(&mut self, section: Section, color: Color, s: S) {
        self.offset += signed(color, s);
        self.offsets.push((section, color, s));
    }
}

/// A position's evaluation as a linear function of the weights (White's view):
/// `white_score = scale/100 * (mg * phase + eg * (24 - phase)) / 24` with
/// `mg = offset.mg + Σ coef * weight_mg` and `eg = offset.eg + Σ coef * weight_eg`
/// over `features`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coefficients {
    /// (feature, White count minus Black count), only non-zero ones.
    pub features: Vec<(u16, i16)>,
    /// Game phase, 0..=24.
    pub phase: i32,
    /// Drawish-endgame scale in percent (100 = no scaling).
    pub scale: i32,
    /// The part not linear in the feature weights (king danger), White minus Black.
    pub offset: S,
}

/// Evaluates positions with tables derived from a [`Params`]; call [`Evaluator::refresh`]
/// after the parameters change.
#[derive(Clone, Debug)]
pub struct Evaluator {
    /// Weight of every feature (a fixed-size array: constant indices need no bounds check).
    weights: Box<[S; f::COUNT]>,
    /// Mobility weight by piece (knight, bishop, rook, queen) and count of safe
    /// squares: the `f::MOBILITY` weights looked up once per refresh, so the hot
    /// path loads one value instead of a table, an index and the weight.
    mobility: [[S; MOBILITY_MAX]; 4],
    /// Material plus piece-square value of each role on each square (White's view).
    psq: [[S; 64]; 6],
    /// The same values for the position's incremental sum, rebuilt with `psq`.
    psq_table: PsqTable,
    scale_opposite_bishops: i32,
    scale_no_pawns: i32,
    king_danger: KingDanger,
    pawns: PawnTable,
    cache: Vec<CacheEntry>,
}

/// Rows of the mobility table: more than the 28 counts (0..=27) of a queen.
const MOBILITY_MAX: usize = 32;

// Eval cache
//
// A direct-mapped table of recent evaluations keyed by the full Zobrist hash (which
// determines the board and the side to move). The TT keeps static evaluations too,
// but loses them when entries are replaced; this table (fits in L2) catches the
// re-evaluations of recently seen positions. An entry is one word: the key's upper
// 48 bits and the score as i16. The slot is the key's lower 16 bits, so slot and
// stored bits together are the whole key and a hit is exactly what the evaluation
// would return: the search is unchanged.

/// log2 of the number of entries: 64K entries of 8 bytes = 512 KB. At least 16, so
/// that the slot and the stored upper 48 bits cover the whole key.
const EVAL_CACHE_BITS: u32 = 16;
const _: () = assert!(EVAL_CACHE_BITS >= 16);

/// The eval-cache slot of the position with hash `key`: its lower bits.
#[inline(always)]
fn cache_slot(key: u64) -> usize {
    key as usize & ((1 << EVAL_CACHE_BITS) - 1)
}

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

/// Per-term breakdown of an evaluation, for the `eval` command and tuning.
#[derive(Clone, Debug, Default)]
pub struct EvalTrace {
    /// (term, white mg, white eg, black mg, black eg)
    pub terms: Vec<(String, i32, i32, i32, i32)>,
    /// Game phase, 0 (bare kings) ..= 24 (all pieces).
    pub phase: i32,
    /// Drawish-endgame scale in percent (100 = none).
    pub scale: i32,
    /// Final score from the side to move's point of view, in centipawns.
    pub score: i32,
}

impl Evaluator {
    pub fn new(params: &Params) -> Self {
        let mut e = Evaluator {
            weights: Box::new([S::default(); f::COUNT]),
            mobility: [[S::default(); MOBILITY_MAX]; 4],
            psq: [[S::default(); 64]; 6],
            psq_table: PsqTable::new(|_, _| S::default()),
            scale_opposite_bishops: 100,
            scale_no_pawns: 100,
            king_danger: KingDanger::new(params),
            pawns: PawnTable::new(),
            cache: vec![CacheEntry::default(); 1 << EVAL_CACHE_BITS],
        };
        e.refresh(params);
        e
    }

    /// Rebuilds the derived tables from the parameters.
    pub fn refresh(&mut self, params: &Params) {
        for (feature, [mg, eg]) in f::PARAMS.iter().enumerate() {
            self.weights[feature] = S::new(
                mg.map_or(0, |i| params.get(i)),
                eg.map_or(0, |i| params.get(i)),
            );
        }
        for (piece, features) in f::MOBILITY.iter().enumerate() {
            for (count, &feature) in features.iter().enumerate() {
                self.mobility[piece][count] = self.weights[feature];
            }
        }
        for role in 0..6 {
            let material = if role < 5 {
                self.weights[f::MATERIAL[role]]
            } else {
                S::default()
            };
            for sq in 0..64 {
                self.psq[role][sq] = material + self.weights[f::PST[role][sq]];
            }
        }
        self.psq_table = PsqTable::new(|role, sq| self.psq[role as usize - 1][sq as usize]);
        self.scale_opposite_bishops = params.scale_opposite_bishops_pct();
        self.scale_no_pawns = params.scale_no_pawns_pct();
        self.king_danger = KingDanger::new(params);
        self.pawns.clear();
        self.cache.fill(CacheEntry::default());
    }

    /// Hints the CPU to load the eval-cache slot of the position with hash `key`
    /// (the search calls it with the TT prefetch, before making the move).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.cache[cache_slot(key)]);
    }

    /// Hints the CPU to load the pawn-table entry of the position after `m` when
    /// the move changes the pawns (a pawn moves or is taken); otherwise the child
    /// reads the entry this position used. Called with [`Evaluator::prefetch`].
    #[inline(always)]
    pub fn prefetch_pawns(&self, pos: &Position, m: &shakmaty::Move) {
        if let Some((white, black)) = changed_pawns(pos, m) {
            self.pawns.prefetch(white, black);
        }
    }

    /// Score in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let key = pos.hash();
        let slot = cache_slot(key);
        if let Some(score) = self.cache[slot].score(key) {
            return score;
        }
        let psq = pos.psq(&self.psq_table);
        let (white, _, _) = self.white_score_psq(pos.board(), psq, &mut NoTrace);
        let score = if pos.turn() == Color::White {
            white
        } else {
            -white
        };
        if let Some(entry) = CacheEntry::new(key, score) {
            self.cache[slot] = entry;
        }
        score
    }

    /// The per-term breakdown printed by the `eval` command.
    pub fn trace(&mut self, pos: &Position) -> EvalTrace {
        let mut counts = Counts::new(true);
        let (score, phase, scale) = self.white_score(pos.board(), &mut counts);
        let mut terms: Vec<(String, i32, i32, i32, i32)> = Section::ALL
            .iter()
            .map(|s| (s.name().to_string(), 0, 0, 0, 0))
            .collect();
        let linear = counts.occurrences.unwrap_or_default().into_iter();
        let linear =
            linear.map(|(section, feature, color, n)| (section, color, self.weights[feature] * n));
        for (section, color, s) in linear.chain(counts.offsets) {
            let line = Section::ALL
                .iter()
                .position(|s| *s == section)
                .expect("every section is listed");
            let t = &mut terms[line];
            match color {
                Color::White => (t.1, t.2) = (t.1 + s.mg, t.2 + s.eg),
                Color::Black => (t.3, t.4) = (t.3 + s.mg, t.4 + s.eg),
            }
        }
        EvalTrace {
            terms,
            phase,
            scale,
            score: if pos.turn() == Color::White {
                score
            } else {
                -score
            },
        }
    }

    /// The evaluation as per-feature counts (White minus Black), phase and scale.
    pub fn coefficients(&mut self, pos: &Position) -> Coefficients {
        let mut counts = Counts::new(false);
        let (_, phase, scale) = self.white_score(pos.board(), &mut counts);
        let features = (0..f::COUNT)
            .filter_map(|i| {
                let c = counts.white[i] - counts.black[i];
                (c != 0).then_some((i as u16, c as i16))
            })
            .collect();
        Coefficients {
            features,
            phase,
            scale,
            offset: counts.offset,
        }
    }

    /// The weights (mg, eg) of every feature, as currently loaded.
    pub fn weights(&self) -> &[S] {
        &self.weights[..]
    }

    /// Material and piece-square values for [`Position::play_psq`], current with the parameters.
    pub fn psq_table(&self) -> &PsqTable {
        &self.psq_table
    }

    /// White's score, the phase and the scale (percent).
    fn white_score<T: Tracer>(&mut self, pos: &shakmaty::Chess, t: &mut T) -> (i32, i32, i32) {
        self.white_score_psq(pos, None, t)
    }

    /// [`Evaluator::white_score`] given the material + piece-square sum when the
    /// position kept it incrementally.
    fn white_score_psq<T: Tracer>(
        &mut self,
        pos: &shakmaty::Chess,
        psq: Option<S>,
        t: &mut T,
    ) -> (i32, i32, i32) {
        let board = pos.board();
        let occupied = board.occupied().0;
        let white_pawns = (board.pawns() & board.white()).0;
        let black_pawns = (board.pawns() & board.black()).0;
        let mut score = S::default();

        // Material and piece-square tables (summed here unless the position kept the
        // sum; the trace always sums, it needs every piece)
        let mut phase = 0;
        let incremental = psq.filter(|_| !T::ON);
        if let Some(sum) = incremental {
            debug_assert_eq!(
                sum,
                self.psq_table.full_sum(pos),
                "incremental material + PST"
            );
            score += sum;
        }
        for color in Color::ALL {
            if incremental.is_some() {
                break;
            }
            let mut side = S::default();
            for role in Role::ALL {
                let r = role as usize - 1;
                for sq in board.by_piece(role.of(color)) {
                    let rel = relative_square(color, sq);
                    side += self.psq[r][rel];
                    if T::ON {
                        if r < 5 {
                            t.add(Section::Material, f::MATERIAL[r], color, 1);
                        }
                        t.add(Section::Psqt, f::PST[r][rel], color, 1);
                    }
                }
            }
            score += signed(color, side);
        }
        phase += board.knights().count() as i32 + board.bishops().count() as i32;
        phase += 2 * board.rooks().count() as i32 + 4 * board.queens().count() as i32;
        let phase = phase.min(PHASE_MAX);

        // Pawn structure (cached in the pawn hash table unless tracing), with the
        // outpost squares and each side's king shelter (White first)
        let (passed, outposts, shelter) = if T::ON {
            let (s, passed) = pawns::evaluate(&self.weights[..], white_pawns, black_pawns, t);
            score += s;
            let shelter = [Color::White, Color::Black]
                .map(|color| shelter::evaluate(&self.weights, board, color, t));
            let outposts = pawns::outpost_squares(white_pawns, black_pawns);
            (passed, outposts, shelter)
        } else {
            let e = self
                .pawns
                .probe(&self.weights[..], white_pawns, black_pawns);
            score += e.score;
            for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
                let king = board.king_of(color).expect("legal positions have kings") as u8;
                if e.king[i] != king {
                    e.king[i] = king;
                    e.shelter[i] = shelter::evaluate(&self.weights, board, color, &mut NoTrace);
                }
            }
            (e.passed, e.outposts, e.shelter)
        };
        score += shelter[0] - shelter[1];

        // Attack maps of both sides: pawns and king here, the pieces in `side_terms`;
        // king danger, threats and passed pawns read both.
        // Each loop over the colours is written out once per colour (`for_each_color`):
        // with the colour a constant, its shifts, ranks and signs fold at compile time.
        macro_rules! for_each_color {
            ($color:ident => $body:block) => {{
                {
                    let $color = Color::White;
                    $body
                }
                {
                    let $color = Color::Black;
                    $body
                }
            }};
        }
        let mut maps = [AttackMap::default(); 2];
        for_each_color!(color => {
            maps[color as usize] = AttackMap::pawns_and_king(board, color);
        });
        for_each_color!(color => {
            let map = &mut maps[color as usize];
            let side = self.side_terms(board, color, occupied, map, t);
            score += signed(color, side);
        });
        for_each_color!(color => {
            score += signed(color, self.king_danger(board, color, &maps, t));
            let white_first = if color == Color::White { 0 } else { 1 };
            let o = outposts::evaluate(&self.weights, board, color, outposts[white_first], t);
            score += signed(color, o);
            score += signed(
                color,
                threats::evaluate(&self.weights, board, color, &maps, t),
            );
            let ours = passed[white_first];
            let p = passed::evaluate(&self.weights, board, color, ours, &maps, t);
            score += signed(color, p);
        });

        // Tempo
        score += signed(pos.turn(), self.weights[f::TEMPO]);
        t.add(Section::Tempo, f::TEMPO, pos.turn(), 1);

        let tapered = (score.mg * phase + score.eg * (PHASE_MAX - phase)) / PHASE_MAX;
        let scale = self.scale(pos, tapered);
        (tapered * scale / 100, phase, scale)
    }

    /// Everything of one side except material, PSTs and the cached pawn structure.
    #[inline(always)]
    fn side_terms<T: Tracer>(
        &self,
        board: &Board,
        us: Color,
        occupied: u64,
        map: &mut AttackMap,
        t: &mut T,
    ) -> S {
        let w = &self.weights;
        let them = !us;
        let mut s = S::default();
        // Summed apart from `s`, which the closure below holds.
        let mut mobility_sum = S::default();
        let mut add = |section: Section, feature: usize, n: i32, t: &mut T| {
            s += w[feature] * n;
            t.add(section, feature, us, n);
        };
        let own_pawns = (board.pawns() & board.by_color(us)).0;
        let enemy_pawns = (board.pawns() & board.by_color(them)).0;
        let all_pawns = own_pawns | enemy_pawns;
        let king = board.king_of(us).expect("legal positions have kings");
        let enemy_king = board.king_of(them).expect("legal positions have kings");
        let occ = Bitboard(occupied);

        // Mobility, king attacks, knight tropism, rooks and majors
        // Mobility area: not attacked by enemy pawns, not our king, not an own pawn that
        // cannot push. Other own pieces count (a piece that protects them is not trapped).
        let blocked_pawns = match us {
            Color::White => own_pawns & (occupied >> 8),
            Color::Black => own_pawns & (occupied << 8),
        };
        let own_king = 1u64 << king as u32;
        let mobility_area = !(pawn_attacks(them, enemy_pawns) | own_king | blocked_pawns);
        let king_zone = king_zone(enemy_king);
        let seventh_rank = match us {
            Color::White => 0xFFu64 << 48,
            Color::Black => 0xFFu64 << 8,
        };
        let enemy_king_on_back_rank = relative_rank(us, enemy_king as usize) == 7;
        // One copy of the loop per piece type (a macro, not a loop over the roles):
        // with the role a constant, the attack lookup and the role-specific terms are
        // chosen at compile time instead of by a jump table for every piece.
        macro_rules! piece_terms {
            ($i:expr, $role:expr) => {{
                let (i, role): (usize, Role) = ($i, $role);
                for sq in board.by_piece(role.of(us)) {
                    let attacks = match role {
                        Role::Knight => knight_attacks(sq),
                        Role::Bishop => bishop_attacks(sq, occ),
                        Role::Rook => rook_attacks(sq, occ),
                        _ => queen_attacks(sq, occ),
                    }
                    .0;
                    map.add(role, attacks);
                    // Mobility: a table per piece by count (low counts catch trapped pieces).
                    let mobility = (attacks & mobility_area).count_ones() as usize;
                    if T::ON {
                        add(Section::Mobility, f::MOBILITY[i][mobility], 1, t);
                    } else {
                        // A queen reaches at most 27 squares.
                        debug_assert!(mobility < f::MOBILITY[i].len());
                        mobility_sum += self.mobility[i][mobility % MOBILITY_MAX];
                    }
                    let zone = (attacks & king_zone).count_ones() as i32;
                    if zone > 0 {
                        map.zone_hits += zone;
                        map.zone_attackers += 1;
                        map.zone_weight += self.king_danger.weight[i];
                    }
                    let sq_bb = 1u64 << sq as u32;
                    match role {
                        Role::Knight => {
                            add(
                                Section::KnightTropism,
                                f::KNIGHT_TROPISM,
                                -rays::distance(sq, enemy_king),
                                t,
                            );
                        }
                        Role::Rook => {
                            let file = rays::FILE_A << (sq as usize % 8);
                            if file & all_pawns == 0 {
                                add(Section::RookFiles, f::ROOK_OPEN_FILE, 1, t);
                            } else if file & own_pawns == 0 {
                                add(Section::RookFiles, f::ROOK_SEMI_OPEN_FILE, 1, t);
                            }
                        }
                        _ => {}
                    }
                    if matches!(role, Role::Rook | Role::Queen)
                        && sq_bb & seventh_rank != 0
                        && enemy_king_on_back_rank
                    {
                        add(Section::MajorsOnSeventh, f::MAJOR_SEVENTH, 1, t);
                    }
                }
            }};
        }
        piece_terms!(0, Role::Knight);
        piece_terms!(1, Role::Bishop);
        piece_terms!(2, Role::Rook);
        piece_terms!(3, Role::Queen);

        // Majors on the 7th defending each other along the rank
        let majors_on_seventh = (board.rooks_and_queens() & board.by_color(us)).0 & seventh_rank;
        if enemy_king_on_back_rank && majors_on_seventh.count_ones() >= 2 {
            let first = Square::new(majors_on_seventh.trailing_zeros());
            if rook_attacks(first, occ).0 & majors_on_seventh != 0 {
                add(Section::MajorsOnSeventh, f::MAJOR_SEVENTH_CONNECTED, 1, t);
            }
        }

        // Bishop pair
        if (board.bishops() & board.by_color(us)).count() >= 2 {
            add(Section::BishopPair, f::BISHOP_PAIR, 1, t);
        }

        s + mobility_sum
    }

    // King danger
    //
    // The enemy's attack on our king zone (king square and its neighbours) as one
    // count: attackers times their summed weights, attacked zone squares, weak zone
    // squares, safe checks by piece type, minus own pawns in the zone and a missing
    // enemy queen. Scored only when at least two pieces (or one and a queen) attack,
    // quadratically in the middlegame (a lone attacker is harmless, a combined attack
    // decisive) and linearly in the endgame. Not linear in its parameters, so Texel
    // tuning sees it as a constant (`Coefficients::offset`).

    /// Our king-danger penalty (negative), from the attack maps of both sides.
    #[inline(always)]
    fn king_danger<T: Tracer>(
        &self,
        board: &Board,
        us: Color,
        maps: &[AttackMap; 2],
        t: &mut T,
    ) -> S {
        let k = &self.king_danger;
        let them = !us;
        let (ours, theirs) = (&maps[us as usize], &maps[them as usize]);
        let enemy_queens = (board.queens() & board.by_color(them)).count() as i32;
        if theirs.zone_attackers <= 1 - enemy_queens {
            return S::default();
        }
        let king = board.king_of(us).expect("legal positions have kings");
        let zone = king_zone(king);
        // Weak: attacked, defended at most once and only by our queen or king.
        let weak = theirs.all
            & !ours.twice
            & (!ours.all | ours.by[Role::Queen as usize - 1] | ours.by[Role::King as usize - 1]);
        // Safe check squares: not occupied by them, undefended (or weak and attacked twice).
        let safe = !board.by_color(them).0 & (!ours.all | (weak & theirs.twice));
        let occ = board.occupied();
        let diagonal = bishop_attacks(king, occ).0;
        let straight = rook_attacks(king, occ).0;
        let checks = [
            knight_attacks(king).0,
            diagonal,
            straight,
            diagonal | straight,
        ];
        let mut danger = theirs.zone_attackers * theirs.zone_weight
            + k.zone_attack * theirs.zone_hits
            + k.weak_square * (weak & zone).count_ones() as i32
            + k.base;
        let own_pawns = (board.pawns() & board.by_color(us)).0;
        danger += k.friendly_pawn * (own_pawns & zone & !weak).count_ones() as i32;
        if enemy_queens == 0 {
            danger += k.no_queen;
        }
        for (i, squares) in checks.into_iter().enumerate() {
            let n = (squares & safe & theirs.by[i + 1]).count_ones() as i32;
            danger += k.check[i] * n;
        }
        if danger <= 0 {
            return S::default();
        }
        let s = S::new(-danger * danger / k.quadratic_div, -danger / k.linear_div);
        t.offset(Section::KingSafety, us, s);
        s
    }

    /// Drawish endgames: opposite-coloured bishops, a stronger side without pawns
    /// that is less than a rook ahead, and dead draws. Inlined: most positions
    /// leave after two tests, cheaper than the call.
    #[inline(always)]
    fn scale(&self, pos: &shakmaty::Chess, white_score: i32) -> i32 {
        let board = pos.board();
        let strong = if white_score >= 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut scale = 100;
        if (board.pawns() & board.by_color(strong)).is_empty() {
            if board.pawns().is_empty() && pos.is_insufficient_material() {
                return 0;
            }
            let npm = |c: Color| -> i32 {
                [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
                    .into_iter()
                    .map(|r| {
                        self.weights[f::MATERIAL[r as usize - 1]].mg
                            * board.by_piece(r.of(c)).count() as i32
                    })
                    .sum()
            };
            if npm(strong) - npm(!strong) < self.weights[f::MATERIAL_ROOK].mg {
                scale = scale.min(self.scale_no_pawns);
            }
        }
        let bishops = board.bishops();
        if (board.knights() | board.rooks_and_queens()).is_empty()
            && (bishops & board.white()).count() == 1
            && (bishops & board.black()).count() == 1
            && (bishops & Bitboard::LIGHT_SQUARES).count() == 1
        {
            scale = scale.min(self.scale_opposite_bishops);
        }
        scale
    }
}

/// White's and Black's pawns after `m` in `pos` when the move changes them (a pawn
/// moves or is taken), else `None`.
#[inline(always)]
fn changed_pawns(pos: &Position, m: &shakmaty::Move) -> Option<(u64, u64)> {
    // The moving piece, its squares, what it takes and where that stood.
    let (role, from, to, capture, taken) = match *m {
        shakmaty::Move::Normal {
            role,
            from,
            to,
            capture,
            ..
        } => (role, from, to, capture, to),
        shakmaty::Move::EnPassant { from, to } => (
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

// Attack maps

/// The squares one side attacks, built once per evaluation and shared by the terms.
#[derive(Clone, Copy, Debug, Default)]
struct AttackMap {
    /// By pawns, knights, bishops, rooks, queens, king (`Role as usize - 1`).
    by: [u64; 6],
    /// By anything.
    all: u64,
    /// By two or more pieces (pawns count as one).
    twice: u64,
    /// Attacks on enemy king-zone squares, counted per attacking piece (pawns as one).
    zone_hits: i32,
    /// Pieces (knight to queen) attacking the enemy king zone.
    zone_attackers: i32,
    /// Sum of those attackers' `king_danger_weight_*`.
    zone_weight: i32,
}

impl AttackMap {
    /// The map of `color`'s pawns and king; `side_terms` adds the pieces.
    #[inline(always)]
    fn pawns_and_king(board: &Board, color: Color) -> AttackMap {
        let pawns = pawn_attacks(color, (board.pawns() & board.by_color(color)).0);
        let king = king_attacks(board.king_of(color).expect("legal positions have kings")).0;
        let enemy_king = board.king_of(!color).expect("legal positions have kings");
        let mut by = [0; 6];
        by[Role::Pawn as usize - 1] = pawns;
        by[Role::King as usize - 1] = king;
        AttackMap {
            by,
            all: pawns | king,
            twice: pawns & king,
            zone_hits: (pawns & king_zone(enemy_king)).count_ones() as i32,
            zone_attackers: 0,
            zone_weight: 0,
        }
    }

    #[inline(always)]
    fn add(&mut self, role: Role, attacks: u64) {
        self.twice |= self.all & attacks;
        self.all |= attacks;
        self.by[role as usize - 1] |= attacks;
    }
}

/// The king's square and its neighbours.
#[inline(always)]
fn king_zone(king: Square) -> u64 {
    king_attacks(king).0 | (1u64 << king as u32)
}

/// The king-danger parameters, read once per `refresh`.
#[derive(Clone, Copy, Debug)]
struct KingDanger {
    /// Per attacker: knight, bishop, rook, queen.
    weight: [i32; 4],
    zone_attack: i32,
    weak_square: i32,
    friendly_pawn: i32,
    no_queen: i32,
    /// Per safe check square: knight, bishop, rook, queen.
    check: [i32; 4],
    base: i32,
    quadratic_div: i32,
    linear_div: i32,
}

impl KingDanger {
    fn new(p: &Params) -> KingDanger {
        KingDanger {
            weight: [
                p.king_danger_weight_knight(),
                p.king_danger_weight_bishop(),
                p.king_danger_weight_rook(),
                p.king_danger_weight_queen(),
            ],
            zone_attack: p.king_danger_zone_attack(),
            weak_square: p.king_danger_weak_square(),
            friendly_pawn: p.king_danger_friendly_pawn(),
            no_queen: p.king_danger_no_queen(),
            check: [
                p.king_danger_check_knight(),
                p.king_danger_check_bishop(),
                p.king_danger_check_rook(),
                p.king_danger_check_queen(),
            ],
            base: p.king_danger_base(),
            quadratic_div: p.king_danger_quadratic_div().max(1),
            linear_div: p.king_danger_linear_div().max(1),
        }
    }
}

/// The square as seen from `color`'s side (Black's pieces read the tables mirrored).
#[inline(always)]
fn relative_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

#[inline(always)]
fn signed(color: Color, s: S) -> S {
    match color {
        Color::White => s,
        Color::Black => -s,
    }
}

impl std::fmt::Display for EvalTrace {
    /// A table of the terms (White, Black, total; mg and eg), the phase and the final score.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{:<20} {:>13} {:>13} {:>13}",
            "term", "white mg/eg", "black mg/eg", "total mg/eg"
        )?;
        for (name, wm, we, bm, be) in &self.terms {
            writeln!(
                f,
                "{name:<20} {wm:>6} {we:>6} {bm:>6} {be:>6} {:>6} {:>6}",
                wm - bm,
                we - be
            )?;
        }
        writeln!(f, "phase {} (24 = opening, 0 = bare kings)", self.phase)?;
        writeln!(f, "scale {}% (drawish endgames below 100)", self.scale)?;
        write!(f, "score {} cp (side to move)", self.score)
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;

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
                fresh.cache.fill(CacheEntry::default());
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
