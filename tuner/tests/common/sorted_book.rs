//! A book sorted on purpose, for the tests of book order (`--book-order`) and of SPSA's
//! sampling of a book; included by tuner/tests/common/mod.rs and the tuner's unit tests.

/// 30 boards (piece placement only), sorted by the white king's square: files a-f,
/// ranks 3-7; black king h8, white pawn h2.
pub fn sorted_boards() -> Vec<String> {
    let empty = |n: usize| if n > 0 { n.to_string() } else { String::new() };
    (0..30)
        .map(|i| {
            let (file, rank) = (i / 5, 3 + i % 5);
            let mut rows = vec!["8".to_string(); 8];
            rows[0] = "7k".into();
            rows[8 - rank] = format!("{}K{}", empty(file), empty(7 - file));
            rows[6] = "7P".into();
            rows.join("/")
        })
        .collect()
}

/// The boards as EPD lines, White to move.
pub fn sorted_epd() -> String {
    let lines: Vec<String> = sorted_boards()
        .iter()
        .map(|b| format!("{b} w - -"))
        .collect();
    lines.join("\n")
}
