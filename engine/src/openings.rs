//! Opening positions, read and made the same way by every tool that plays from them:
//! `genfens` (OpenBench's datagen openings) and the tuner's games (`--book`, and the
//! built-in openings).
//!
//! - **Books.** One position per line: a FEN (counters from its last two fields), or
//!   an EPD line (four fields, then operations; counters from `hmvc`/`fmvn`, else
//!   0 and 1). Castling in Shredder/X-FEN is read in Chess960 mode when the standard
//!   reading refuses it, so a DFRC book loads without being told. [`book_position`]
//!   reads a line, [`Book`] a whole file.
//! - **Random walks.** [`random_walk`] plays uniformly random legal plies. The caller
//!   draws them from its own generator, so each tool's seeds keep naming the same
//!   openings; what makes the end of a walk usable is the caller's rule too.
//! - **The balance check.** [`is_balanced`]: a short search decides whether a
//!   position is near balanced.

use std::ops::Range;
use std::path::Path;

use crate::position::{Game, Position};
use crate::score::Score;
use crate::search::{Control, Limits, Searcher};

/// Why a book cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// The file cannot be read.
    Read(String),
    /// Line `line` (counted from 1) is not a legal position.
    Line { line: usize, error: String },
    /// Nothing but blank and `#` lines.
    Empty,
    /// Every one of the `positions` is checkmate or stalemate.
    NoLegalMove { positions: usize },
}

/// The FEN of a book line: the four position fields, with the halfmove and fullmove
/// counters from fields 5-6 (FEN) or the `hmvc`/`fmvn` operations (EPD).
pub fn book_line_fen(line: &str) -> String {
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

/// A book line's position (see the module comment).
pub fn book_position(line: &str, chess960: bool) -> Result<Position, String> {
    if line.split_whitespace().count() < 4 {
        return Err(format!(
            "'{line}' is not an EPD position (expected board, side, castling, en passant)"
        ));
    }
    let fen = book_line_fen(line);
    match Position::from_fen(&fen, chess960) {
        Ok(p) => Ok(p),
        Err(e) if !chess960 => Position::from_fen(&fen, true).map_err(|_| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// A book of start positions, one per line, blank and `#` lines skipped. The text is
/// kept with the line ranges that hold a position with a legal move, and a line is
/// parsed again when drawn: a book of millions of lines costs 8 bytes a line, not a
/// position each.
pub struct Book {
    text: String,
    lines: Vec<Range<usize>>,
    chess960: bool,
}

impl Book {
    /// Reads the book at `path` (bytes that are not UTF-8 read as U+FFFD).
    pub fn read(path: &Path, chess960: bool) -> Result<Book, BookError> {
        let bytes = std::fs::read(path).map_err(|e| BookError::Read(e.to_string()))?;
        Book::parse(String::from_utf8_lossy(&bytes).into_owned(), chess960)
    }

    /// Checks every line: a line that is not a legal position is an error naming it;
    /// positions without a legal move (mate, stalemate) are skipped.
    pub fn parse(text: String, chess960: bool) -> Result<Book, BookError> {
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
            let pos = book_position(trimmed, chess960).map_err(|error| BookError::Line {
                line: number + 1,
                error,
            })?;
            if !pos.legal_moves().is_empty() {
                lines.push(range);
            }
        }
        if lines.is_empty() {
            return Err(if positions == 0 {
                BookError::Empty
            } else {
                BookError::NoLegalMove { positions }
            });
        }
        Ok(Book {
            text,
            lines,
            chess960,
        })
    }

    /// The number of positions with a legal move.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Never true: a book without a playable position is refused when read.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Position `index` (of [`Book::len`]), in file order.
    pub fn position(&self, index: usize) -> Position {
        let line = self.text[self.lines[index].clone()].trim();
        book_position(line, self.chess960).expect("book lines were checked when read")
    }

    /// Every position, in file order.
    pub fn positions(&self) -> impl Iterator<Item = Position> + '_ {
        (0..self.len()).map(|i| self.position(i))
    }
}

/// `plies` uniformly random legal moves from `start`, each the `pick(n)`-th of the
/// position's `n` legal moves (`pick` returns an index below `n`); `None` when a
/// position on the way has no legal move.
pub fn random_walk(start: Game, plies: u32, mut pick: impl FnMut(usize) -> usize) -> Option<Game> {
    let mut game = start;
    for _ in 0..plies {
        let moves = game.position.legal_moves();
        if moves.is_empty() {
            return None;
        }
        game.play(moves[pick(moves.len())]);
    }
    Some(game)
}

/// Whether `game`'s position is near balanced: a search of `nodes` nodes from a
/// cleared searcher (so the verdict depends on the game alone) finishes its first
/// iteration with a score within ±`max_cp` centipawns (a mate score never is).
pub fn is_balanced(
    searcher: &mut Searcher,
    game: &Game,
    nodes: u64,
    max_cp: i32,
    control: &Control,
) -> bool {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    searcher.clear();
    let result = searcher.search(game, &limits, control, &mut |_| {});
    result.depth >= 1 && matches!(result.score, Score::Cp(cp) if cp.abs() <= max_cp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::position::START_FEN;

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
    fn x_fen_castling_is_read_as_chess960_and_short_lines_are_named() {
        // A DFRC start: castling rights by rook file.
        let dfrc = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        let pos = book_position(dfrc, false).unwrap();
        assert_eq!(book_position(dfrc, true).unwrap(), pos);
        assert!(!pos.legal_moves().is_empty());
        let err = book_position("8/8/8 w", false).unwrap_err();
        assert!(err.contains("is not an EPD position"), "{err}");
    }

    #[test]
    fn a_book_keeps_its_playable_lines_in_order_and_names_a_bad_one() {
        let text = "# openings\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; hmvc 3; fmvn 7;\n\
            \n\
            7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\n\
            4k3/8/8/8/8/8/4P3/4K3 w - - 3 40\n";
        let book = Book::parse(text.into(), false).unwrap();
        assert_eq!(book.len(), 2, "the checkmate is skipped");
        let fens: Vec<String> = book.positions().map(|p| p.fen()).collect();
        assert_eq!(
            fens,
            [
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 3 7",
                "4k3/8/8/8/8/8/4P3/4K3 w - - 3 40"
            ]
        );
        let bad = format!("{START_FEN}\nnot a position at all\n");
        assert!(matches!(
            Book::parse(bad, false),
            Err(BookError::Line { line: 2, .. })
        ));
        assert_eq!(
            Book::parse("\n# nothing\n".into(), false).err(),
            Some(BookError::Empty)
        );
        assert_eq!(
            Book::parse("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\n".into(), false).err(),
            Some(BookError::NoLegalMove { positions: 1 })
        );
    }

    #[test]
    fn a_walk_plays_the_picked_moves_and_stops_at_a_dead_end() {
        let start = Game::new(Position::startpos());
        let walk = random_walk(start.clone(), 4, |_| 0).unwrap();
        assert_eq!(walk.moves.len(), 4);
        let mut replay = start;
        for _ in 0..4 {
            let first = replay.position.legal_moves()[0];
            replay.play(first);
        }
        assert_eq!(walk.position, replay.position);
        let mated = Position::from_fen("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", false).unwrap();
        assert!(random_walk(Game::new(mated), 1, |_| 0).is_none());
    }

    #[test]
    fn the_balance_check_keeps_even_positions_and_drops_lopsided_ones() {
        let mut searcher = Searcher::new(Params::default(), 1);
        let control = Control::default();
        let even = Game::new(Position::startpos());
        assert!(is_balanced(&mut searcher, &even, 300, 100, &control));
        let queen_up =
            Game::new(Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false).unwrap());
        assert!(!is_balanced(&mut searcher, &queen_up, 300, 100, &control));
    }
}
