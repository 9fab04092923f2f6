//! Parsing `go`: its keywords into search [`Limits`], the clock of the side to move.

use shakmaty::Color;

use crate::position::Position;
use crate::score::MAX_PLY;
use crate::search::{Clock, Limits};

/// Longest mate `go mate` may ask for (in moves; the search reaches MAX_PLY plies).
const MAX_MATE_MOVES: i64 = MAX_PLY as i64 / 2 - 8;

/// A parsed `go` (its `perft` form aside, which the shell runs as a job).
#[derive(Debug)]
pub(super) struct GoRequest {
    pub(super) limits: Limits,
    pub(super) ponder: bool,
    /// Said to the GUI as `info string` (e.g. a clock without the side to move's time).
    pub(super) note: Option<String>,
}

/// Every keyword of `go` (what ends a `searchmoves` list; the fuzzer draws from it).
pub const GO_KEYWORDS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "perft",
];

/// The integer after `keyword`, checked against `range`.
fn go_number(
    keyword: &str,
    token: Option<&&str>,
    min: i64,
    max: i64,
    what: &str,
) -> Result<i64, String> {
    let text = token.copied().unwrap_or("");
    let v: i64 = text.parse().map_err(|_| {
        if text.is_empty() {
            format!("'go {keyword}' needs a value: {what}")
        } else {
            format!("'go {keyword} {text}': expected {what}")
        }
    })?;
    if v < min || v > max {
        return Err(format!("'go {keyword} {text}': expected {what}"));
    }
    Ok(v)
}

pub(super) fn parse_go(
    args: &[&str],
    root: &Position,
    move_overhead_ms: u64,
) -> Result<GoRequest, String> {
    const TIME: &str = "a non-negative number of milliseconds";
    const CLOCK: &str = "a number of milliseconds";
    let max_depth = MAX_PLY as i64 - 1;
    let mut limits = Limits {
        move_overhead_ms,
        ..Limits::default()
    };
    let mut ponder = false;
    let (mut wtime, mut btime, mut winc, mut binc, mut movestogo) = (None, None, 0, 0, None);
    let mut i = 0;
    while i < args.len() {
        let keyword = args[i];
        let next = args.get(i + 1);
        let time = || go_number(keyword, next, 0, i64::MAX, TIME).map(|v| v as u64);
        // An overdrawn clock counts as no time left, not as bad input: cutechess with a
        // time margin sends a side's time below zero once it has used part of the
        // margin, and a `go` refused would leave no bestmove and lose on time.
        let clock = || go_number(keyword, next, i64::MIN, i64::MAX, CLOCK).map(|v| v.max(0) as u64);
        match keyword {
            "depth" => {
                let what = format!("a depth from 1 to {max_depth}");
                limits.depth = Some(go_number(keyword, next, 1, max_depth, &what)? as u32);
            }
            "nodes" => {
                limits.nodes =
                    Some(go_number(keyword, next, 1, i64::MAX, "a positive node count")? as u64)
            }
            "movetime" => limits.movetime_ms = Some(time()?),
            "wtime" => wtime = Some(clock()?),
            "btime" => btime = Some(clock()?),
            "winc" => winc = time()?,
            "binc" => binc = time()?,
            "movestogo" => {
                movestogo =
                    Some(go_number(keyword, next, 1, 10_000, "a positive number of moves")? as u32)
            }
            "infinite" | "ponder" => {
                if keyword == "infinite" {
                    limits.infinite = true;
                } else {
                    ponder = true;
                }
                i += 1;
                continue;
            }
            "searchmoves" => {
                i += 1;
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    let m = root
                        .parse_uci_move(args[i])
                        .map_err(|e| format!("go searchmoves: {e}"))?;
                    limits.searchmoves.push(m);
                    i += 1;
                }
                if limits.searchmoves.is_empty() {
                    return Err("'go searchmoves' needs at least one legal move".into());
                }
                continue;
            }
            "mate" => {
                let what = format!("a number of moves from 1 to {MAX_MATE_MOVES}");
                limits.mate = Some(go_number(keyword, next, 1, MAX_MATE_MOVES, &what)? as u32);
            }
            "perft" => return Err("'perft' must come first: 'go perft <depth>'".into()),
            other => {
                return Err(format!(
                    "unknown go parameter '{other}' (allowed: {})",
                    GO_KEYWORDS.join(", ")
                ));
            }
        }
        i += 2;
    }
    let (time, inc, other_time, name) = match root.turn() {
        Color::White => (wtime, winc, btime, "wtime"),
        Color::Black => (btime, binc, wtime, "btime"),
    };
    limits.clock = time.map(|time_ms| Clock {
        time_ms,
        inc_ms: inc,
        movestogo,
    });
    // As Stockfish: only the opponent's clock given means no time limit for us.
    let note = (time.is_none() && other_time.is_some()).then(|| {
        format!(
            "no {name} for {} to move: this clock sets no limit, searching until 'stop' or another limit",
            root.turn()
        )
    });
    Ok(GoRequest {
        limits,
        ponder,
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_of_the_side_to_move_is_used() {
        let args = [
            "wtime",
            "1000",
            "btime",
            "2000",
            "winc",
            "10",
            "binc",
            "20",
            "movestogo",
            "7",
        ];
        let white = parse_go(&args, &Position::startpos(), 30).unwrap();
        let clock = white.limits.clock.unwrap();
        assert_eq!(
            (clock.time_ms, clock.inc_ms, clock.movestogo),
            (1000, 10, Some(7))
        );
        assert_eq!(white.limits.move_overhead_ms, 30);
        let black_to_move =
            Position::startpos().play(Position::startpos().parse_uci_move("e2e4").unwrap());
        let black = parse_go(&args, &black_to_move, 30).unwrap();
        let clock = black.limits.clock.unwrap();
        assert_eq!((clock.time_ms, clock.inc_ms), (2000, 20));
    }

    #[test]
    fn an_overdrawn_clock_is_no_time_left_and_other_negatives_are_refused() {
        let args = ["wtime", "-37", "btime", "5000", "winc", "100"];
        let clock = parse_go(&args, &Position::startpos(), 30)
            .unwrap()
            .limits
            .clock
            .unwrap();
        assert_eq!((clock.time_ms, clock.inc_ms), (0, 100));
        for bad in [["winc", "-1"], ["movetime", "-5"], ["wtime", "x"]] {
            let err = parse_go(&bad, &Position::startpos(), 30).unwrap_err();
            assert!(err.contains(bad[0]), "{err}");
        }
    }

    #[test]
    fn go_keywords_combine() {
        let req = parse_go(
            &[
                "infinite",
                "depth",
                "5",
                "nodes",
                "100",
                "searchmoves",
                "e2e4",
                "d2d4",
                "movetime",
                "50",
            ],
            &Position::startpos(),
            0,
        )
        .unwrap();
        assert!(req.limits.infinite && !req.ponder);
        assert_eq!(req.limits.depth, Some(5));
        assert_eq!(req.limits.nodes, Some(100));
        assert_eq!(req.limits.movetime_ms, Some(50));
        assert_eq!(req.limits.searchmoves.len(), 2);
        assert!(
            parse_go(&["ponder"], &Position::startpos(), 0)
                .unwrap()
                .ponder
        );
    }
}
