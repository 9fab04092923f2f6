//! The evaluation's features: every weight the evaluation adds, numbered.
//!
//! A feature is one mg/eg weight pair read from `params/eval.json` as
//! `<name>_mg` / `<name>_eg` (a feature may have only one of the two, e.g. king
//! safety is middlegame only). The evaluation is linear in the features: each term
//! adds `count * weight`. Naming each feature's parameters here, once, lets
//! [`super::Evaluator`] build its weight table, the `eval` trace group terms, and the
//! Texel tuner map each feature's coefficient back to its parameters.

use std::sync::OnceLock;

use crate::params::index_of;

/// Piece names in `shakmaty::Role` order (pawn = 0 .. king = 5), as used in parameter names.
pub const PIECE_NAMES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];

/// Material of pawn..queen: `material_<piece>`.
pub const MATERIAL: usize = 0;
/// Piece-square tables: `PST + role * 64 + square` (White's view, a1 = 0): `pst_<piece>_<sq>`.
pub const PST: usize = MATERIAL + 5;
/// Mobility of knight, bishop, rook, queen: `mobility_<piece>`.
pub const MOBILITY: usize = PST + 6 * 64;
/// Passed pawn by relative rank 2..=7: `PASSED_RANK + rank - 2`.
pub const PASSED_RANK: usize = MOBILITY + 4;
pub const ISOLATED: usize = PASSED_RANK + 6;
pub const DOUBLED: usize = ISOLATED + 1;
pub const BACKWARD: usize = DOUBLED + 1;
pub const CONNECTED: usize = BACKWARD + 1;
pub const PHALANX: usize = CONNECTED + 1;
pub const PASSED_FREE_PATH: usize = PHALANX + 1;
pub const PASSED_KING_OWN: usize = PASSED_FREE_PATH + 1;
pub const PASSED_KING_ENEMY: usize = PASSED_KING_OWN + 1;
pub const ROOK_OPEN: usize = PASSED_KING_ENEMY + 1;
pub const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 1;
pub const MAJOR_SEVENTH: usize = ROOK_SEMI_OPEN + 1;
pub const MAJOR_SEVENTH_CONNECTED: usize = MAJOR_SEVENTH + 1;
pub const KNIGHT_TROPISM: usize = MAJOR_SEVENTH_CONNECTED + 1;
pub const KING_SHIELD_NEAR: usize = KNIGHT_TROPISM + 1;
pub const KING_SHIELD_FAR: usize = KING_SHIELD_NEAR + 1;
pub const KING_OPEN_FILE: usize = KING_SHIELD_FAR + 1;
pub const KING_SEMI_OPEN_FILE: usize = KING_OPEN_FILE + 1;
/// King-zone squares attacked by knight, bishop, rook, queen.
pub const KING_ATTACK: usize = KING_SEMI_OPEN_FILE + 1;
/// Number of pieces attacking the enemy king zone, 1..=7 (7 = seven or more).
pub const KING_ATTACKERS: usize = KING_ATTACK + 4;
pub const BISHOP_PAIR: usize = KING_ATTACKERS + 7;
pub const TEMPO: usize = BISHOP_PAIR + 1;
pub const THREAT_BY_PAWN: usize = TEMPO + 1;
pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 1;
pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 1;
/// Number of features.
pub const COUNT: usize = THREAT_BY_ROOK + 1;

const SCALAR_NAMES: [(usize, &str); 22] = [
    (ISOLATED, "pawn_isolated"),
    (DOUBLED, "pawn_doubled"),
    (BACKWARD, "pawn_backward"),
    (CONNECTED, "pawn_connected"),
    (PHALANX, "pawn_phalanx"),
    (PASSED_FREE_PATH, "pawn_passed_free_path"),
    (PASSED_KING_OWN, "pawn_passed_king_own"),
    (PASSED_KING_ENEMY, "pawn_passed_king_enemy"),
    (ROOK_OPEN, "rook_open_file"),
    (ROOK_SEMI_OPEN, "rook_semi_open_file"),
    (MAJOR_SEVENTH, "major_seventh"),
    (MAJOR_SEVENTH_CONNECTED, "major_seventh_connected"),
    (KNIGHT_TROPISM, "knight_tropism"),
    (KING_SHIELD_NEAR, "king_shield_near"),
    (KING_SHIELD_FAR, "king_shield_far"),
    (KING_OPEN_FILE, "king_open_file"),
    (KING_SEMI_OPEN_FILE, "king_semi_open_file"),
    (BISHOP_PAIR, "bishop_pair"),
    (TEMPO, "tempo"),
    (THREAT_BY_PAWN, "threat_by_pawn"),
    (THREAT_BY_MINOR, "threat_by_minor"),
    (THREAT_BY_ROOK, "threat_by_rook"),
];

fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

/// The parameter name of feature `f` without its `_mg` / `_eg` suffix; for the
/// piece-square tables the phase sits inside the name, so this returns `pst_<piece>_{}_<sq>`.
pub fn base_name(f: usize) -> String {
    match f {
        _ if f < PST => format!("material_{}", PIECE_NAMES[f - MATERIAL]),
        _ if f < MOBILITY => {
            let (role, sq) = ((f - PST) / 64, (f - PST) % 64);
            format!("pst_{}_{{}}_{}", PIECE_NAMES[role], square_name(sq))
        }
        _ if f < PASSED_RANK => format!("mobility_{}", PIECE_NAMES[f - MOBILITY + 1]),
        _ if f < ISOLATED => format!("pawn_passed_rank_{}", f - PASSED_RANK + 2),
        _ if (KING_ATTACK..KING_ATTACK + 4).contains(&f) => {
            format!("king_attack_{}", PIECE_NAMES[f - KING_ATTACK + 1])
        }
        _ if (KING_ATTACKERS..KING_ATTACKERS + 7).contains(&f) => {
            format!("king_attackers_{}", f - KING_ATTACKERS + 1)
        }
        _ => SCALAR_NAMES
            .iter()
            .find(|(i, _)| *i == f)
            .map(|(_, n)| n.to_string())
            .unwrap_or_else(|| panic!("feature {f} has no name")),
    }
}

/// The parameter name of feature `f` in phase `phase` (`"mg"` or `"eg"`).
pub fn param_name(f: usize, phase: &str) -> String {
    let base = base_name(f);
    if base.contains("{}") {
        base.replace("{}", phase)
    } else {
        format!("{base}_{phase}")
    }
}

/// For every feature, the `PARAM_SPECS` indices of its middlegame and endgame weight
/// (`None` when the feature has no weight in that phase).
pub fn params() -> &'static [[Option<usize>; 2]] {
    static TABLE: OnceLock<Vec<[Option<usize>; 2]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..COUNT)
            .map(|f| {
                let table = [
                    index_of(&param_name(f, "mg")),
                    index_of(&param_name(f, "eg")),
                ];
                assert!(
                    table.iter().any(Option::is_some),
                    "feature {} has neither an _mg nor an _eg parameter in params/eval.json",
                    base_name(f)
                );
                table
            })
            .collect()
    })
}

/// The `eval` trace line a feature is reported under.
pub fn term_name(f: usize) -> &'static str {
    match f {
        _ if f < PST => "material",
        _ if f < MOBILITY => "psqt",
        _ if f < PASSED_RANK => "mobility",
        ISOLATED | DOUBLED | BACKWARD | CONNECTED | PHALANX => "pawn structure",
        _ if f < ISOLATED => "passed pawns",
        PASSED_FREE_PATH | PASSED_KING_OWN | PASSED_KING_ENEMY => "passed pawns",
        ROOK_OPEN | ROOK_SEMI_OPEN => "rook files",
        MAJOR_SEVENTH | MAJOR_SEVENTH_CONNECTED => "majors on 7th",
        KNIGHT_TROPISM => "knight tropism",
        _ if f < BISHOP_PAIR => "king safety",
        BISHOP_PAIR => "bishop pair",
        TEMPO => "tempo",
        _ => "threats",
    }
}

/// Trace lines in display order.
pub const TERM_ORDER: [&str; 12] = [
    "material",
    "psqt",
    "mobility",
    "pawn structure",
    "passed pawns",
    "rook files",
    "majors on 7th",
    "knight tropism",
    "king safety",
    "bishop pair",
    "threats",
    "tempo",
];
