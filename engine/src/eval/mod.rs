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
//!
//! The files: one per group of terms (`pawns.rs`, `passed.rs`, `king_danger.rs`,
//! `king_defenders.rs`, `shelter.rs`, `threats.rs`, `outposts.rs`, `space.rs`,
//! `closedness.rs`, `complexity.rs`), the pawn-king network (`pknet.rs`, its weights
//! in `params/pknet.json`), the feature numbering
//! Texel tuning reads (`features.rs`), the term-by-term trace (`trace.rs`) and the
//! eval and pawn caches (`cache.rs`); this file sums them.
//!
//! It may use the board modules (`score`, `rays`, `position`, `prefetch`) and
//! `params`, nothing above them: never the search, the tablebases or the shell. Its
//! tests also walk `perft`'s suite of positions.

mod cache;
mod closedness;
mod complexity;
pub mod features;
mod king_danger;
mod king_defenders;
mod outposts;
mod passed;
mod pawns;
pub mod pknet;
mod shelter;
mod space;
#[cfg(test)]
mod tests;
mod threats;
mod trace;

use crate::params::Params;
use crate::position::{Position, PsqTable};
use crate::rays::{self, pawn_attacks, pawn_double_attacks, relative_rank};
use crate::score::EVAL_MAX;
/// The tapered score pair, re-exported for the evaluation's users.
pub use crate::score::S;
use cache::EvalCache;
use complexity::Complexity;
use features::{self as f, Section};
use king_danger::KingDanger;
use pawns::{PawnTable, PawnTerms};
use pknet::PkNet;
use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, Color, File, Position as _, Role, Square};
pub use trace::{Coefficients, EvalTrace, NoTrace, Tracer};

/// Full phase: 1 per minor, 2 per rook, 4 per queen, capped.
pub const PHASE_MAX: i32 = 24;

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
    /// mobility_xray: sliders see through own sliders of their kind and queens.
    mobility_xray: bool,
    king_danger: KingDanger,
    complexity: Complexity,
    learnt: Learnt,
    pknet: PkNet,
    pawns: PawnTable,
    cache: EvalCache,
}

/// Which of the terms learnt from Ethereal 12.75 (space, closedness, king defenders,
/// king-pawn file distance, the queen's discovered attack, candidate passers) have a
/// non-zero weight. A group whose weights are all zero is skipped, so shipping it at
/// zero costs one test; the trace counts every term, so Texel tuning fits them from
/// zero.
#[derive(Clone, Copy, Debug, Default)]
struct Learnt {
    space: bool,
    closedness: bool,
    defenders: bool,
    file_distance: bool,
    discovered: bool,
    candidates: bool,
    pawn_tables: bool,
}

impl Learnt {
    fn new(weights: &[S; f::COUNT]) -> Learnt {
        let any = |features: &[usize]| features.iter().any(|&i| weights[i] != S::default());
        Learnt {
            space: any(&[
                f::SPACE_RESTRICT_PIECE,
                f::SPACE_RESTRICT_EMPTY,
                f::SPACE_CENTER_CONTROL,
            ]),
            closedness: any(&f::CLOSEDNESS_KNIGHT) || any(&f::CLOSEDNESS_ROOK),
            defenders: any(&f::KING_DEFENDERS),
            file_distance: any(&f::KING_PAWN_FILE_DISTANCE),
            discovered: any(&[f::THREAT_QUEEN_DISCOVERED]),
            candidates: any(&f::PAWN_CANDIDATE_RANK) || any(&f::PAWN_CANDIDATE_SUPPORTED_RANK),
            pawn_tables: pawns::TABLES.iter().any(|table| any(table)),
        }
    }

    /// Every term, for the trace.
    const ALL: Learnt = Learnt {
        space: true,
        closedness: true,
        defenders: true,
        file_distance: true,
        discovered: true,
        candidates: true,
        pawn_tables: true,
    };
}

/// Rows of the mobility table: more than the 28 counts (0..=27) of a queen.
const MOBILITY_MAX: usize = 32;

impl Evaluator {
    pub fn new(params: &Params) -> Self {
        let mut e = Evaluator {
            weights: Box::new([S::default(); f::COUNT]),
            mobility: [[S::default(); MOBILITY_MAX]; 4],
            psq: [[S::default(); 64]; 6],
            psq_table: PsqTable::new(|_, _| S::default()),
            scale_opposite_bishops: 100,
            scale_no_pawns: 100,
            mobility_xray: false,
            king_danger: KingDanger::default(),
            complexity: Complexity::default(),
            learnt: Learnt::default(),
            pknet: PkNet::off(),
            pawns: PawnTable::new(),
            cache: EvalCache::new(),
        };
        // Every table derived from the parameters is built here, the ones above
        // being placeholders.
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
        self.mobility_xray = params.mobility_xray() != 0;
        self.king_danger = KingDanger::new(params, &self.weights);
        self.complexity = Complexity::new(params);
        self.learnt = Learnt::new(&self.weights);
        self.pknet = PkNet::new(params);
        self.pawns.clear();
        self.cache.clear();
    }

    /// Score in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let key = pos.hash();
        let slot = EvalCache::slot(key);
        if let Some(score) = self.cache.score(slot, key) {
            return score;
        }
        let psq = pos.psq(&self.psq_table);
        let (white, _, _) = self.white_score_psq(pos.board(), psq, &mut NoTrace);
        // Parameters at the ends of their ranges (a steep king danger) could pass
        // the mate band, which the search would take for a proven result.
        let white = white.clamp(-EVAL_MAX, EVAL_MAX);
        let score = if pos.turn() == Color::White {
            white
        } else {
            -white
        };
        self.cache.store(slot, key, score);
        score
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
        // squares no enemy pawn can attack (where outposts lie), each side's king
        // shelter (White first) and the pawn-king network's score
        let kings = [Color::White, Color::Black]
            .map(|c| board.king_of(c).expect("legal positions have kings") as u8);
        let (passed, holes, shelter, network) = if T::ON {
            let (s, passed) = pawns::evaluate(
                &self.weights[..],
                white_pawns,
                black_pawns,
                PawnTerms::ALL,
                t,
            );
            score += s;
            let shelter = [Color::White, Color::Black]
                .map(|color| shelter::evaluate(&self.weights, board, color, t));
            let holes = pawns::enemy_pawn_holes(white_pawns, black_pawns);
            let mut network = S::default();
            if self.pknet.on {
                let [white, black] = self.pknet.views(white_pawns, black_pawns, kings);
                t.offset(Section::PawnKingNetwork, Color::White, white);
                t.offset(Section::PawnKingNetwork, Color::Black, black);
                network = white - black;
            }
            (passed, holes, shelter, network)
        } else {
            let e = self.pawns.probe(
                &self.weights[..],
                white_pawns,
                black_pawns,
                PawnTerms {
                    candidates: self.learnt.candidates,
                    tables: self.learnt.pawn_tables,
                },
            );
            score += e.score;
            for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
                if e.king[i] != kings[i] {
                    e.king[i] = kings[i];
                    e.shelter[i] = shelter::evaluate(&self.weights, board, color, &mut NoTrace);
                }
            }
            if self.pknet.on {
                let key = u16::from(kings[0]) + 64 * u16::from(kings[1]);
                if e.kings != key {
                    if e.kings == pawns::NO_KINGS {
                        e.network_pawns = self.pknet.pawn_sums(white_pawns, black_pawns);
                    }
                    e.kings = key;
                    e.network = self.pknet.evaluate_with_kings(&e.network_pawns, kings);
                }
            }
            // Zero while the network is off (a new entry's).
            (e.passed, e.holes, e.shelter, e.network)
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
        let learnt = if T::ON { Learnt::ALL } else { self.learnt };
        let closedness = if learnt.closedness {
            closedness::index(white_pawns, black_pawns)
        } else {
            0
        };
        let mut maps = [AttackMap::default(); 2];
        for_each_color!(color => {
            maps[color as usize] = AttackMap::pawns_and_king(board, color, self.king_danger.zone_deep);
        });
        for_each_color!(color => {
            let map = &mut maps[color as usize];
            let side = self.side_terms(board, color, occupied, map, t);
            score += signed(color, side);
        });
        for_each_color!(color => {
            let side = white_first(color);
            let shelter_mg = shelter[side].mg;
            score += signed(color, self.king_danger.evaluate(board, color, &maps, shelter_mg, t));
            let guarded = maps[color as usize].by[Role::Pawn as usize - 1];
            let o = outposts::evaluate(&self.weights, board, color, holes[side], guarded, t);
            score += signed(color, o);
            score += signed(
                color,
                threats::evaluate(&self.weights, board, color, &maps, learnt.discovered, t),
            );
            let ours = passed[side];
            let p = passed::evaluate(&self.weights, board, color, ours, &maps, t);
            score += signed(color, p);
            let w = &self.weights;
            let mut rest = S::default();
            if learnt.space {
                rest += space::evaluate(w, board, color, &maps, t);
            }
            if learnt.defenders {
                rest += king_defenders::evaluate(w, board, color, t);
            }
            if learnt.file_distance {
                rest += shelter::pawn_file_distance(w, board, color, t);
            }
            if learnt.closedness {
                rest += closedness::evaluate(w, board, color, closedness, t);
            }
            score += signed(color, rest);
        });

        // Complexity: the endgame score away from or towards a draw
        score.eg += self.complexity.adjust(board, score.eg, t);

        // The pawn-king network, after complexity: its fit takes the rest as fixed
        score += network;

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
        // king_danger_zone_pawn_filter: squares two enemy pawns guard are no target for
        // our pieces; our pawns' hits count on the whole zone (the map's), as Ethereal's.
        let mut king_zone = map.enemy_king_zone;
        if self.king_danger.zone_pawn_filter {
            king_zone &= !pawn_double_attacks(them, enemy_pawns);
        }
        // bishop_rammed_pawns_: own pawns blocked by an enemy pawn, fixed on their colour.
        let rammed = match us {
            Color::White => own_pawns & (enemy_pawns >> 8),
            Color::Black => own_pawns & (enemy_pawns << 8),
        };
        let seventh_rank = match us {
            Color::White => 0xFFu64 << 48,
            Color::Black => 0xFFu64 << 8,
        };
        let enemy_king_on_back_rank = relative_rank(us, enemy_king as usize) == 7;
        // mobility_xray: a bishop looks through our bishops and queens, a rook through
        // our rooks and queens (a battery's rear piece attacks through its front).
        let (bishop_occ, rook_occ) = if self.mobility_xray {
            let own = board.by_color(us);
            let queens = board.queens() & own;
            (
                occ & !((board.bishops() & own) | queens),
                occ & !((board.rooks() & own) | queens),
            )
        } else {
            (occ, occ)
        };
        // One copy of the loop per piece type (a macro, not a loop over the roles):
        // with the role a constant, the attack lookup and the role-specific terms are
        // chosen at compile time instead of by a jump table for every piece.
        macro_rules! piece_terms {
            ($i:expr, $role:expr) => {{
                let (i, role): (usize, Role) = ($i, $role);
                for sq in board.by_piece(role.of(us)) {
                    let attacks = match role {
                        Role::Knight => knight_attacks(sq),
                        Role::Bishop => bishop_attacks(sq, bishop_occ),
                        Role::Rook => rook_attacks(sq, rook_occ),
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
                            let to_enemy_king = rays::distance(sq, enemy_king);
                            add(Section::KnightTropism, f::KNIGHT_TROPISM, -to_enemy_king, t);
                            // knight_far_from_kings_: out of play on both wings.
                            let far = to_enemy_king.min(rays::distance(sq, king));
                            if far >= 4 {
                                let feature = f::KNIGHT_FAR_FROM_KINGS[far as usize - 4];
                                add(Section::KnightTropism, feature, 1, t);
                            }
                        }
                        Role::Bishop if rammed != 0 => {
                            let colour = if sq_bb & Bitboard::LIGHT_SQUARES.0 != 0 {
                                Bitboard::LIGHT_SQUARES.0
                            } else {
                                Bitboard::DARK_SQUARES.0
                            };
                            let n = (rammed & colour).count_ones() as i32;
                            if n > 0 {
                                add(Section::BadBishop, f::BISHOP_RAMMED_PAWNS, n, t);
                            }
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
    /// The enemy king's zone (`king_zone`), drawn once for every term that reads it.
    enemy_king_zone: u64,
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
    fn pawns_and_king(board: &Board, color: Color, zone_deep: bool) -> AttackMap {
        let pawns = pawn_attacks(color, (board.pawns() & board.by_color(color)).0);
        let king = king_attacks(board.king_of(color).expect("legal positions have kings")).0;
        let enemy_king = board.king_of(!color).expect("legal positions have kings");
        let enemy_king_zone = king_zone(enemy_king, !color, zone_deep);
        let mut by = [0; 6];
        by[Role::Pawn as usize - 1] = pawns;
        by[Role::King as usize - 1] = king;
        AttackMap {
            by,
            all: pawns | king,
            twice: pawns & king,
            enemy_king_zone,
            zone_hits: (pawns & enemy_king_zone).count_ones() as i32,
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

/// The king's square and its neighbours; `deep` (`king_danger_zone_deep`): also the
/// rank in front of them, from the side of `owner`, and on an edge file one more file
/// (Ethereal's three files by four ranks).
#[inline(always)]
fn king_zone(king: Square, owner: Color, deep: bool) -> u64 {
    let ring = king_attacks(king).0 | (1u64 << king as u32);
    if !deep {
        return ring;
    }
    let zone = ring
        | match owner {
            Color::White => ring << 8,
            Color::Black => ring >> 8,
        };
    match king.file() {
        File::A => zone | (zone << 1),
        File::H => zone | (zone >> 1),
        _ => zone,
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

/// 0 for White, 1 for Black: the order of the evaluation's per-side pairs (shelter,
/// passed pawns, outpost holes), which is not shakmaty's `color as usize`.
#[inline(always)]
fn white_first(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// `s` of `color` as White's score.
#[inline(always)]
fn signed(color: Color, s: S) -> S {
    match color {
        Color::White => s,
        Color::Black => -s,
    }
}
