//! Textbook endings with their result for the side to move: the positions both the
//! tablebase unit tests (`tests.rs` beside this file) and the binary's tests
//! (`tests/tests/syzygy.rs`, which declares this file as a module by its path)
//! check, kept in one place. The declaring module provides `Wdl`.

use super::Wdl;

pub(super) const KNOWN: &[(&str, &str, Wdl)] = &[
    ("KQvK", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", Wdl::Win),
    (
        "KQvK, queen hangs",
        "8/8/8/8/8/8/1k6/1Q1K4 b - - 0 1",
        Wdl::Draw,
    ),
    ("KRvK", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", Wdl::Win),
    (
        "KRvK, defender",
        "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
        Wdl::Loss,
    ),
    // KPvK: the white king beside its pawn on the 5th rank facing the black king:
    // whoever must move gives way (opposition).
    (
        "KPvK, opposition, W",
        "8/4k3/8/4K3/4P3/8/8/8 w - - 0 1",
        Wdl::Draw,
    ),
    (
        "KPvK, opposition, B",
        "8/4k3/8/4K3/4P3/8/8/8 b - - 0 1",
        Wdl::Loss,
    ),
    // On a key square (d6 for a pawn on e4) the pawn queens whoever moves.
    (
        "KPvK, key square",
        "4k3/8/3K4/8/4P3/8/8/8 b - - 0 1",
        Wdl::Loss,
    ),
    // The defending king in front of a pawn on its 2nd rank.
    (
        "KPvK, blocked",
        "8/8/8/8/8/4k3/4P3/4K3 w - - 0 1",
        Wdl::Draw,
    ),
    ("KBNvK", "8/8/8/4k3/8/8/8/KBN5 w - - 0 1", Wdl::Win),
    (
        "KBNvK, defender",
        "8/8/8/4k3/8/8/8/KBN5 b - - 0 1",
        Wdl::Loss,
    ),
    (
        "KRvKP, pawn too slow",
        "8/1p6/8/8/8/8/2R5/K6k w - - 0 1",
        Wdl::Win,
    ),
    (
        "KRvKP, pawn side",
        "8/1p6/8/8/8/8/2R5/K6k b - - 0 1",
        Wdl::Loss,
    ),
    // Pawn on the 7th with its king beside it, the white king far away.
    (
        "KRvKP, pawn on 7th",
        "7K/8/8/8/8/8/1pk5/4R3 w - - 0 1",
        Wdl::Draw,
    ),
];
