//! `genfens`: opening positions for OpenBench's datagen workloads.
//!
//! OpenBench runs `occam "genfens N seed S book <path|None> [extra]" "quit"` and
//! reads `N` lines `info string genfens <FEN>`, failing after 15 s without one. Each
//! position is a start position (the book's, or the standard one) followed by a few
//! uniformly random legal plies; a short node-limited search then drops lopsided ones,
//! and every position printed is new (board, side to move, castling rights and en
//! passant square). The same seed, book, parameters and extras always give the same
//! positions in the same order, and `N` only says where to stop: `genfens 100` prints
//! the first 100 lines of `genfens 1000`.
//!
//! These are tool settings, not engine strength, so they are constants (prefix
//! `genfens_`) and extras of the command, not entries in `params/*.json`.

use std::collections::HashSet;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use shakmaty::EnPassantMode;
use shakmaty::Position as _;
use shakmaty::zobrist::Zobrist64;

use crate::params::Params;
use crate::position::{Game, Position, START_FEN};
use crate::score::Score;
use crate::search::{Control, Limits, Searcher};

/// Most positions one command may ask for (the set of positions already seen grows with it).
pub const GENFENS_MAX_COUNT: u64 = 10_000_000;
/// Random plies after the standard start position (one more on every other position,
/// by the seed, so both sides get to move first).
pub const GENFENS_STARTPOS_PLIES: u32 = 8;
/// Random plies after a book position (a book line is already an opening).
pub const GENFENS_BOOK_PLIES: u32 = 2;
/// Most random plies the `plies` extra accepts.
pub const GENFENS_MAX_PLIES: u32 = 100;
/// Node budget of the verification search: depth 2-3 with q-search, enough to see a
/// hanging piece (its verdicts agree with a 1,000-node search on ~95% of candidates).
pub const GENFENS_NODES: u64 = 300;
/// Range the `nodes` extra accepts.
pub const GENFENS_MIN_NODES: u64 = 100;
pub const GENFENS_MAX_NODES: u64 = 10_000_000;
/// Positions whose verification score is further from 0 than this (centipawns, side
/// to move) are dropped as decided before the game starts.
pub const GENFENS_MAX_SCORE_CP: i32 = 300;
/// Largest `maxscore` extra (a mate score is never accepted).
pub const GENFENS_MAX_SCORE_LIMIT_CP: i32 = 10_000;
/// Candidates in a row that may fail (a repeat, a dead end, a lopsided score) before
/// the command gives up: a tiny or one-sided book cannot yield `N` new positions.
pub const GENFENS_MAX_FAILURES_IN_A_ROW: u32 = 2_000;
/// Hash of the verification searcher (MB); cleared before every candidate so each
/// verdict depends on the position alone.
pub const GENFENS_HASH_MB: usize = 1;

const USAGE: &str =
    "expected 'genfens <N> [seed <S>] [book <path|None>] [plies <P>] [nodes <K>] [maxscore <cp>]'";

/// One `genfens` command, checked before any work starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    /// `None`: the standard start position.
    pub book: Option<PathBuf>,
    /// Random plies from the start position; by default [`GENFENS_STARTPOS_PLIES`]
    /// or [`GENFENS_BOOK_PLIES`].
    pub plies: Option<u32>,
    pub nodes: u64,
    pub max_score_cp: i32,
}

fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display>(
    keyword: &str,
    value: Option<&&str>,
    min: T,
    max: T,
) -> Result<T, String> {
    let Some(text) = value else {
        return Err(format!(
            "genfens: '{keyword}' needs a value from {min} to {max}; {USAGE}"
        ));
    };
    text.parse::<T>()
        .ok()
        .filter(|v| *v >= min && *v <= max)
        .ok_or_else(|| {
            format!("genfens: '{keyword} {text}' is not a number from {min} to {max}; {USAGE}")
        })
}

/// Parses the words after `genfens`: the count first, then keyword/value pairs in any
/// order (OpenBench writes `seed S book B` and appends the test's extra arguments).
pub fn parse_args(args: &[&str]) -> Result<Request, String> {
    let Some((first, rest)) = args.split_first() else {
        return Err(format!(
            "genfens: the number of positions is missing; {USAGE}"
        ));
    };
    let count = first
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=GENFENS_MAX_COUNT).contains(n))
        .ok_or_else(|| {
            format!(
                "genfens: '{first}' is not a number of positions from 1 to {GENFENS_MAX_COUNT}; {USAGE}"
            )
        })?;
    let mut request = Request {
        count,
        seed: 0,
        book: None,
        plies: None,
        nodes: GENFENS_NODES,
        max_score_cp: GENFENS_MAX_SCORE_CP,
    };
    let mut given: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let keyword = rest[i];
        let value = rest.get(i + 1);
        if given.contains(&keyword) {
            return Err(format!("genfens: '{keyword}' is given twice; {USAGE}"));
        }
        match keyword {
            "seed" => request.seed = number(keyword, value, 0, u64::MAX)?,
            "book" => {
                let Some(path) = value else {
                    return Err(format!(
                        "genfens: 'book' needs a file path or None; {USAGE}"
                    ));
                };
                request.book = (!path.eq_ignore_ascii_case("none")).then(|| PathBuf::from(path));
            }
            "plies" => request.plies = Some(number(keyword, value, 0, GENFENS_MAX_PLIES)?),
            "nodes" => {
                request.nodes = number(keyword, value, GENFENS_MIN_NODES, GENFENS_MAX_NODES)?
            }
            "maxscore" => {
                request.max_score_cp = number(keyword, value, 0, GENFENS_MAX_SCORE_LIMIT_CP)?
            }
            other => {
                return Err(format!(
                    "genfens: unknown argument '{other}' (allowed after the count: seed, book, plies, nodes, maxscore); {USAGE}"
                ));
            }
        }
        given.push(keyword);
        i += 2;
    }
    Ok(request)
}

// ---------------------------------------------------------------------------
// The book
// ---------------------------------------------------------------------------

/// A book of start positions, one FEN or EPD per line. The text is kept with the
/// line ranges that hold a playable position, and a line is parsed again when drawn:
/// a book of millions of lines costs 8 bytes a line, not a position each.
struct Book {
    text: String,
    lines: Vec<Range<usize>>,
    chess960: bool,
}

/// The FEN of a book line: the four EPD/FEN position fields, with the halfmove and
/// fullmove counters from fields 5-6 (FEN) or the `hmvc`/`fmvn` operations (EPD).
fn book_line_fen(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        // Let the FEN parser name what is missing.
        return fields.join(" ");
    }
    let is_counter = |s: Option<&&str>| s.is_some_and(|s| s.parse::<u32>().is_ok());
    let (halfmove, fullmove) = if is_counter(fields.get(4)) && is_counter(fields.get(5)) {
        (fields[4].to_string(), fields[5].to_string())
    } else {
        let op = |name: &str, default: &str| {
            fields
                .iter()
                .position(|f| *f == name)
                .and_then(|i| fields.get(i + 1))
                .map(|v| v.trim_end_matches(';'))
                .filter(|v| v.parse::<u32>().is_ok())
                .unwrap_or(default)
                .to_string()
        };
        (op("hmvc", "0"), op("fmvn", "1"))
    };
    format!("{} {halfmove} {fullmove}", fields[..4].join(" "))
}

/// A book line's position; Shredder/X-FEN castling is read in Chess960 mode when the
/// standard reading refuses it (DFRC books).
fn book_position(line: &str, chess960: bool) -> Result<Position, String> {
    let fen = book_line_fen(line);
    match Position::from_fen(&fen, chess960) {
        Ok(p) => Ok(p),
        Err(e) if !chess960 => Position::from_fen(&fen, true).map_err(|_| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

impl Book {
    /// Reads and checks every line: a line that is not a legal position is an error
    /// naming it; positions without a legal move (mate, stalemate) are skipped.
    fn load(path: &std::path::Path, chess960: bool) -> Result<Book, String> {
        const FORMAT: &str = "one FEN or EPD position per line, or None for the start position";
        let bytes = std::fs::read(path).map_err(|e| {
            format!(
                "genfens: cannot read book '{}': {e} ({FORMAT})",
                path.display()
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let mut lines = Vec::new();
        let mut positions = 0;
        let mut start = 0;
        for (number, line) in text.split_inclusive('\n').enumerate() {
            let range = start..start + line.len();
            start = range.end;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            positions += 1;
            let pos = book_position(trimmed, chess960).map_err(|e| {
                format!(
                    "genfens: book '{}' line {}: {e} ({FORMAT})",
                    path.display(),
                    number + 1
                )
            })?;
            if !pos.legal_moves().is_empty() {
                lines.push(range);
            }
        }
        if lines.is_empty() {
            return Err(if positions == 0 {
                format!(
                    "genfens: book '{}' holds no positions ({FORMAT})",
                    path.display()
                )
            } else {
                format!(
                    "genfens: no position of book '{}' has a legal move ({positions} checkmates or stalemates)",
                    path.display()
                )
            });
        }
        Ok(Book {
            text,
            lines,
            chess960,
        })
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn position(&self, index: usize) -> Position {
        let line = self.text[self.lines[index].clone()].trim();
        book_position(line, self.chess960).expect("book lines were checked when loaded")
    }
}

// ---------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------

/// SplitMix64: tiny, and the same on every platform and compiler version, so a seed
/// names the same positions for good (rand's generators may change between versions).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// `plies` uniformly random legal moves from `start`; `None` at a dead end (no legal
/// move on the way or at the end, or a draw by insufficient material).
fn random_walk(start: Position, plies: u32, rng: &mut SplitMix64) -> Option<Position> {
    let mut pos = start;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos = pos.play(moves[rng.below(moves.len())]);
    }
    (!pos.legal_moves().is_empty() && !pos.is_insufficient_material()).then_some(pos)
}

/// What makes two positions the same opening: board, side to move, castling rights and
/// en passant square as the FEN shows it (a legal capture only); not the move counters.
fn opening_key(pos: &Position) -> u64 {
    pos.board()
        .zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
        .0
}

/// Generates `request.count` positions, passing each line (`info string genfens
/// <FEN>`) to `emit` as soon as it is found. Returns how many were emitted: fewer only
/// when `control.stop` was set. An unusable book or a run of
/// [`GENFENS_MAX_FAILURES_IN_A_ROW`] failed candidates is an error.
pub fn generate(
    request: &Request,
    params: &Params,
    chess960: bool,
    control: &Control,
    emit: &mut dyn FnMut(&str),
) -> Result<u64, String> {
    let book = match &request.book {
        Some(path) => Some(Book::load(path, chess960)?),
        None => None,
    };
    let startpos = Position::from_fen(START_FEN, chess960).expect("the start position is valid");
    let plies = request.plies.unwrap_or(if book.is_some() {
        GENFENS_BOOK_PLIES
    } else {
        GENFENS_STARTPOS_PLIES
    });
    let limits = Limits {
        nodes: Some(request.nodes),
        ..Limits::default()
    };
    let mut rng = SplitMix64(request.seed);
    let mut searcher = Searcher::new(params.clone(), GENFENS_HASH_MB);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut emitted = 0;
    let mut failures_in_a_row = 0;
    while emitted < request.count {
        if control.stop.load(Ordering::Relaxed) {
            break;
        }
        if failures_in_a_row >= GENFENS_MAX_FAILURES_IN_A_ROW {
            return Err(format!(
                "genfens: {failures_in_a_row} candidates in a row were repeats, dead ends or lopsided (|score| > {} cp) after {emitted} of {} positions; try more 'plies', a larger 'maxscore' or a bigger book",
                request.max_score_cp, request.count
            ));
        }
        failures_in_a_row += 1;
        let start = match &book {
            Some(b) => b.position(rng.below(b.len())),
            None => startpos.clone(),
        };
        let walk = plies + (rng.next() & 1) as u32;
        let Some(candidate) = random_walk(start, walk, &mut rng) else {
            continue;
        };
        // Every candidate is searched at most once, kept or not.
        if !seen.insert(opening_key(&candidate)) {
            continue;
        }
        // Verification: a short search from a cleared searcher; a mate score, an
        // unfinished first iteration or a large score drops the position.
        searcher.clear();
        let result = searcher.search(&Game::new(candidate.clone()), &limits, control, &mut |_| {});
        if control.stop.load(Ordering::Relaxed) {
            break;
        }
        let balanced = result.depth >= 1
            && matches!(result.score, Score::Cp(cp) if cp.abs() <= request.max_score_cp);
        if !balanced {
            continue;
        }
        emit(&format!("info string genfens {}", candidate.fen()));
        emitted += 1;
        failures_in_a_row = 0;
    }
    Ok(emitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_as_openbench_writes_them() {
        let r = parse_args(&["100", "seed", "7", "book", "None"]).unwrap();
        assert_eq!((r.count, r.seed, r.book.clone()), (100, 7, None));
        assert_eq!(
            (r.plies, r.nodes, r.max_score_cp),
            (None, GENFENS_NODES, GENFENS_MAX_SCORE_CP)
        );
        let r = parse_args(&[
            "5",
            "seed",
            "1",
            "book",
            "Books/x.epd",
            "plies",
            "4",
            "maxscore",
            "50",
        ])
        .unwrap();
        assert_eq!(r.book, Some(PathBuf::from("Books/x.epd")));
        assert_eq!((r.plies, r.max_score_cp), (Some(4), 50));
        for bad in [
            &[][..],
            &["x"],
            &["0"],
            &["-3"],
            &["10", "seed"],
            &["10", "seed", "-1"],
            &["10", "book"],
            &["10", "nodes", "5"],
            &["10", "seed", "1", "seed", "2"],
            &["10", "depth", "3"],
        ] {
            let e = parse_args(bad).unwrap_err();
            assert!(e.contains("expected 'genfens <N>"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn epd_and_fen_lines_give_the_same_position() {
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
        assert_eq!(book_line_fen(fen), fen);
        assert_eq!(
            book_line_fen(
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 hmvc 0; fmvn 2;"
            ),
            fen
        );
        assert_eq!(
            book_line_fen(
                "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x\";"
            ),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
        );
    }

    #[test]
    fn the_random_generator_is_fixed_by_its_seed() {
        // A change here would change every seed's positions: keep SplitMix64 as it is.
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        let mut r = SplitMix64(1);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
        }
    }

    #[test]
    fn positions_are_new_balanced_and_reproducible() {
        let request = parse_args(&["30", "seed", "3"]).unwrap();
        let params = Params::default();
        let run = || {
            let mut lines = Vec::new();
            let n = generate(&request, &params, false, &Control::default(), &mut |l| {
                lines.push(l.to_string())
            })
            .unwrap();
            assert_eq!(n, 30);
            lines
        };
        let a = run();
        assert_eq!(a, run());
        let keys: HashSet<u64> = a
            .iter()
            .map(|l| {
                let fen = l.strip_prefix("info string genfens ").unwrap();
                opening_key(&Position::from_fen(fen, false).unwrap())
            })
            .collect();
        assert_eq!(keys.len(), 30);
        let stopped = Control::default();
        stopped.stop.store(true, Ordering::Relaxed);
        assert_eq!(
            generate(&request, &params, false, &stopped, &mut |_| {}),
            Ok(0)
        );
    }
}
