//! King danger (`king_danger_*`).
//!
//! The enemy's attack on our king zone (king square and its neighbours, or with
//! `king_danger_zone_deep` Ethereal's three files by four ranks; with
//! `king_danger_zone_pawn_filter` squares two of our pawns guard are no target for the
//! enemy's pieces; its pawns' hits count on the whole zone, as Ethereal's) as one
//! count: attackers times their summed weights, attacked zone squares, weak zone
//! squares, safe checks by piece type, minus own pawns in the zone and a missing
//! enemy queen, plus a share of the king's broken shelter (`king_danger_shelter_pct`
//! of how far its shelter-and-storm score falls short of an intact castled king's: the
//! open king is punished more while the attack lasts, as Ethereal 12.75 feeds its
//! shelter and storm into the count, and a king behind f2 g2 h2 is where it was).
//! In the deep zone the hits are scaled to a zone of nine squares, as Ethereal scales
//! them: a king in the open has more squares to hit, not more danger per hit.
//! Scored only when at least two pieces (or one and a queen) attack,
//! quadratically in the middlegame (a lone attacker is harmless, a combined attack
//! decisive) and linearly in the endgame. Not linear in its parameters: the trace
//! reports the score as an offset and the count itself (`Coefficients::danger`), from
//! which Texel tuning takes the shelter weights' path into it; the danger weights it
//! fits by central differences.

use shakmaty::attacks::{bishop_attacks, knight_attacks, rook_attacks};
use shakmaty::{Board, Color, Role};

use super::AttackMap;
use super::features::{self as f, Section};
use super::shelter;
use super::trace::{NoTrace, Tracer};
use crate::params::Params;
use crate::score::{EVAL_MAX, S};

/// The king-danger parameters, read once per `refresh`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KingDanger {
    /// Per attacker: knight, bishop, rook, queen.
    pub(super) weight: [i32; 4],
    zone_attack: i32,
    weak_square: i32,
    friendly_pawn: i32,
    no_queen: i32,
    /// Per safe check square: knight, bishop, rook, queen.
    check: [i32; 4],
    base: i32,
    shelter_pct: i32,
    /// The middlegame shelter score of a king on g1 behind f2 g2 h2 against f7 g7 h7
    /// (`shelter::SHELTER_REFERENCE`): the shelter share counts the shortfall from it.
    shelter_reference: i32,
    quadratic_div: i32,
    linear_div: i32,
    /// The zone's shape and what counts in it (`super::king_zone`, read through the
    /// attack maps, and `side_terms`).
    pub(super) zone_deep: bool,
    pub(super) zone_pawn_filter: bool,
}

/// The zone size the deep zone's hits are scaled to (Ethereal's "usually 9 squares").
const ZONE_SQUARES: i32 = 9;

impl KingDanger {
    /// From the parameters and the evaluation's weights (`weights`, for the shelter
    /// reference).
    pub(super) fn new(p: &Params, weights: &[S; f::COUNT]) -> KingDanger {
        let shelter_pct = p.king_danger_shelter_pct();
        let shelter_reference = if shelter_pct == 0 {
            0
        } else {
            let board: Board = shelter::SHELTER_REFERENCE.parse().expect("a valid board");
            shelter::evaluate(weights, &board, Color::White, &mut NoTrace).mg
        };
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
            shelter_pct,
            shelter_reference,
            quadratic_div: p.king_danger_quadratic_div().max(1),
            linear_div: p.king_danger_linear_div().max(1),
            zone_deep: p.king_danger_zone_deep() != 0,
            zone_pawn_filter: p.king_danger_zone_pawn_filter() != 0,
        }
    }

    /// Our king-danger penalty (negative), from the attack maps of both sides and our
    /// king's middlegame shelter score (`shelter_mg`, [`super::shelter`]).
    #[inline(always)]
    pub(super) fn evaluate<T: Tracer>(
        &self,
        board: &Board,
        us: Color,
        maps: &[AttackMap; 2],
        shelter_mg: i32,
        t: &mut T,
    ) -> S {
        let k = self;
        let them = !us;
        let (ours, theirs) = (&maps[us as usize], &maps[them as usize]);
        let enemy_queens = (board.queens() & board.by_color(them)).count() as i32;
        if theirs.zone_attackers <= 1 - enemy_queens {
            return S::default();
        }
        let king = board.king_of(us).expect("legal positions have kings");
        let zone = theirs.enemy_king_zone;
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
        let hits = if k.zone_deep {
            theirs.zone_hits * ZONE_SQUARES / zone.count_ones() as i32
        } else {
            theirs.zone_hits
        };
        let mut danger = theirs.zone_attackers * theirs.zone_weight
            + k.zone_attack * hits
            + k.weak_square * (weak & zone).count_ones() as i32
            + k.base
            + k.shelter_pct * (k.shelter_reference - shelter_mg) / 100;
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
        // Squared in i64: a count past 46,340 (weights at the ends of their ranges)
        // would wrap in i32.
        let quadratic = i64::from(danger).pow(2) / i64::from(k.quadratic_div);
        let mg = quadratic.min(i64::from(EVAL_MAX)) as i32;
        let s = S::new(-mg, -danger / k.linear_div);
        t.offset(Section::KingSafety, us, s);
        t.king_danger(us, danger);
        s
    }
}
