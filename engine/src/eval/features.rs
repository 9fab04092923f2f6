//! The evaluation's features: every weight the evaluation adds, numbered.
//!
//! A feature is one mg/eg weight pair of `params/eval.json`, `<name>_mg` /
//! `<name>_eg` (a feature may have only one of the two, e.g. king safety is
//! middlegame only; piece-square entries spell it `pst_<piece>_mg_<square>`).
//! `engine/build.rs` numbers them in file order and generates one constant per
//! feature (`PAWN_ISOLATED`), one 64-entry array per square table (`PST_KNIGHT`)
//! and one array per numbered family (`PAWN_PASSED_RANK`, index 0 = rank 2), plus
//! [`PARAMS`], the parameter indices of each feature's weights. The evaluation reads
//! weights only through these constants, so renaming or dropping a JSON entry is a
//! compile error; adding a term is one JSON entry plus the code that reads it.
//!
//! The evaluation is linear in the features: each term adds `count * weight`.

include!(concat!(env!("OUT_DIR"), "/eval_features.rs"));

/// Index of the middlegame weight in a [`PARAMS`] pair.
pub const MG: usize = 0;
/// Index of the endgame weight in a [`PARAMS`] pair.
pub const EG: usize = 1;

/// Material of pawn..queen, in `shakmaty::Role` order.
pub const MATERIAL: [usize; 5] = [
    MATERIAL_PAWN,
    MATERIAL_KNIGHT,
    MATERIAL_BISHOP,
    MATERIAL_ROOK,
    MATERIAL_QUEEN,
];

/// Piece-square tables of pawn..king, each by square (White's view, a1 = 0).
pub const PST: [[usize; 64]; 6] = [
    PST_PAWN, PST_KNIGHT, PST_BISHOP, PST_ROOK, PST_QUEEN, PST_KING,
];

/// Mobility tables of knight, bishop, rook, queen, by number of squares attacked in
/// the mobility area.
pub const MOBILITY: [&[usize]; 4] = [
    &MOBILITY_KNIGHT,
    &MOBILITY_BISHOP,
    &MOBILITY_ROOK,
    &MOBILITY_QUEEN,
];

/// For every feature, the `PARAM_SPECS` indices of its middlegame and endgame weight
/// (`None` when the feature has no weight in that phase).
pub fn params() -> &'static [[Option<usize>; 2]] {
    &PARAMS
}

/// The line of the `eval` breakdown a feature occurrence is reported under. Each
/// evaluation section names its own when it adds a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Material,
    Psqt,
    Mobility,
    PawnStructure,
    PassedPawns,
    RookFiles,
    MajorsOnSeventh,
    KnightTropism,
    KingSafety,
    KingShelter,
    KingStorm,
    Outposts,
    BishopPair,
    BadBishop,
    Threats,
    Space,
    Closedness,
    Complexity,
    PawnKingNetwork,
    Tempo,
}

impl Section {
    /// Trace lines in display order.
    pub const ALL: [Section; 20] = [
        Section::Material,
        Section::Psqt,
        Section::Mobility,
        Section::PawnStructure,
        Section::PassedPawns,
        Section::RookFiles,
        Section::MajorsOnSeventh,
        Section::KnightTropism,
        Section::KingSafety,
        Section::KingShelter,
        Section::KingStorm,
        Section::Outposts,
        Section::BishopPair,
        Section::BadBishop,
        Section::Threats,
        Section::Space,
        Section::Closedness,
        Section::Complexity,
        Section::PawnKingNetwork,
        Section::Tempo,
    ];

    /// The name printed by the `eval` command.
    pub fn name(self) -> &'static str {
        match self {
            Section::Material => "material",
            Section::Psqt => "psqt",
            Section::Mobility => "mobility",
            Section::PawnStructure => "pawn structure",
            Section::PassedPawns => "passed pawns",
            Section::RookFiles => "rook files",
            Section::MajorsOnSeventh => "majors on 7th",
            Section::KnightTropism => "knight tropism",
            Section::KingSafety => "king safety",
            Section::KingShelter => "king shelter",
            Section::KingStorm => "king storm",
            Section::Outposts => "outposts",
            Section::BishopPair => "bishop pair",
            Section::BadBishop => "bad bishop",
            Section::Threats => "threats",
            Section::Space => "space",
            Section::Closedness => "closedness",
            Section::Complexity => "complexity",
            Section::PawnKingNetwork => "pawn-king network",
            Section::Tempo => "tempo",
        }
    }
}
