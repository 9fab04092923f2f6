//! What the shell prints: whole lines under one lock (the command loop and the
//! search thread both write), `info` lines, `bestmove`, and the `d` command's board.

use std::io::Write;
use std::sync::{Arc, Mutex};

use shakmaty::{File, Move, Position as _, Rank, Square};

use crate::position::Position;
use crate::score::Score;
use crate::search::{SearchInfo, SearchResult};

/// The shell's output, shared by the command loop and the search thread.
#[derive(Clone)]
pub(super) struct Out(pub(super) Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub(super) fn text(&self, text: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for line in text.lines() {
            let _ = writeln!(w, "{line}");
        }
        let _ = w.flush();
    }

    pub(super) fn error(&self, message: &str) {
        // One printable line, whatever the message holds (it may quote raw input).
        let one_line = message
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(char::is_control, "?");
        self.text(&format!("info string error: {one_line}"));
    }
}

/// `bestmove` when no search result exists: the first legal move, or `0000`.
pub(super) fn fallback_bestmove(root: &Position) -> String {
    match root.legal_moves().first() {
        Some(&m) => format!("bestmove {}", root.move_to_uci(m)),
        None => "bestmove 0000".into(),
    }
}

fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    }
}

/// `info depth … pv …` for one iteration (one line of it under MultiPV, then with
/// `multipv k`). Castling is written in the root's mode, which every position of a
/// game shares.
pub(super) fn info_line(root: &Position, info: &SearchInfo, multi_pv: bool) -> String {
    let multipv = if multi_pv {
        format!(" multipv {}", info.multipv)
    } else {
        String::new()
    };
    let mut line = format!(
        "info depth {} seldepth {}{multipv} score {} nodes {} nps {} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time_ms
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for &m in &info.pv {
            line.push(' ');
            line.push_str(&root.move_to_uci(m));
        }
    }
    line
}

/// `bestmove X [ponder Y]`, or `bestmove 0000` without a legal move. A move the
/// search returns is checked for legality before it is sent to the GUI.
pub(super) fn bestmove_line(
    root: &Position,
    result: &SearchResult,
    last_pv: &[Move],
    out: &Out,
) -> String {
    let legal = root.legal_moves();
    let Some(&first_legal) = legal.first() else {
        return "bestmove 0000".into();
    };
    let best = match result.best_move {
        Some(m) if legal.contains(&m) => m,
        Some(m) => {
            out.error(&format!(
                "the search returned the illegal move {}; playing {} instead",
                root.move_to_uci(m),
                root.move_to_uci(first_legal)
            ));
            first_legal
        }
        None => first_legal,
    };
    let after = root.play(best);
    let ponder = result
        .ponder_move
        .or_else(|| {
            (last_pv.first() == Some(&best))
                .then(|| last_pv.get(1).copied())
                .flatten()
        })
        .filter(|p| after.legal_moves().contains(p));
    match ponder {
        Some(p) => format!(
            "bestmove {} ponder {}",
            root.move_to_uci(best),
            after.move_to_uci(p)
        ),
        None => format!("bestmove {}", root.move_to_uci(best)),
    }
}

/// The `d` command: the board, its FEN and its hash.
pub(super) fn describe(pos: &Position) -> String {
    let board = pos.board().board();
    let mut text = String::from(" +---+---+---+---+---+---+---+---+\n");
    for rank in Rank::ALL.iter().rev() {
        text.push(' ');
        for file in File::ALL {
            let c = board
                .piece_at(Square::from_coords(file, *rank))
                .map_or(' ', |p| p.char());
            text.push_str(&format!("| {c} "));
        }
        text.push_str(&format!(
            "| {}\n +---+---+---+---+---+---+---+---+\n",
            rank.char()
        ));
    }
    text.push_str("   a   b   c   d   e   f   g   h\n\n");
    text.push_str(&format!("Fen: {}\n", pos.fen()));
    text.push_str(&format!("Key: {:016X}\n", pos.hash()));
    let checkers: Vec<String> = pos
        .board()
        .checkers()
        .into_iter()
        .map(|sq| sq.to_string())
        .collect();
    text.push_str(&format!(
        "Side to move: {}\nCheckers: {}",
        pos.turn(),
        if checkers.is_empty() {
            "none".to_string()
        } else {
            checkers.join(" ")
        }
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_carry_every_field_and_mate_scores() {
        let root = Position::startpos();
        let e4 = root.parse_uci_move("e2e4").unwrap();
        let info = SearchInfo {
            depth: 7,
            seldepth: 11,
            score: Score::Mate(-3),
            nodes: 1234,
            nps: 5678,
            hashfull: 12,
            tbhits: 3,
            time_ms: 90,
            pv: vec![e4],
            multipv: 2,
        };
        assert_eq!(
            info_line(&root, &info, false),
            "info depth 7 seldepth 11 score mate -3 nodes 1234 nps 5678 hashfull 12 tbhits 3 time 90 pv e2e4"
        );
        assert_eq!(
            info_line(&root, &info, true),
            "info depth 7 seldepth 11 multipv 2 score mate -3 nodes 1234 nps 5678 hashfull 12 tbhits 3 time 90 pv e2e4"
        );
    }
}
