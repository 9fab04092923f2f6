//! `occam bench`: a fixed set of positions searched to a fixed depth. The node total
//! is the bench signature that goes into commit messages; it is deterministic
//! (one searcher, tables cleared before every position, no time limits).
//! `--stats` adds the search statistics and shakmaty's raw make-move perft rate
//! measured in the same run, as the ceiling the search NPS is compared with.

use std::io::Write;
use std::time::Instant;

use shakmaty::{Chess, Position as _};

use crate::params::Params;
use crate::position::{Game, Position};
use crate::search::{Control, Limits, SearchStats, Searcher};

/// Chosen so that a release bench takes a few seconds on the project's machine.
pub const DEFAULT_DEPTH: u32 = 12;

/// Hash size of the bench searcher (MB).
pub const BENCH_HASH_MB: usize = 16;

/// Openings, middlegames with tactics, endgames, promotions, en passant, checks.
pub const POSITIONS: &[&str] = &[
    crate::position::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 3 8",
    "r2q1rk1/pp1nbppp/2p1pn2/3p4/2PP1B2/2N1PN2/PPQ2PPP/R3KB1R w KQ - 1 9",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 1 7",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 4 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/R4R1K w - - 0 15",
    "r2qr1k1/1b1nbppp/pp1ppn2/8/2PNP3/1PN1BP2/P2QB1PP/R4RK1 w - - 1 13",
    "3r1rk1/p4ppp/2p1b3/q1p1P3/8/1PN3P1/P1Q2P1P/R4RK1 w - - 0 20",
    "r1bqr1k1/pp1n1pbp/3p1np1/2pP4/4P3/2N2N2/PP1BBPPP/R2Q1RK1 w - - 2 11",
    "2kr3r/pp1bqppp/2n1pn2/3p4/1bPP4/2NBPN2/PP1Q1PPP/R3K2R w KQ - 4 10",
    "r4rk1/pp3ppp/2n1b3/q1pp2B1/8/P1Q2NP1/1PP1PP1P/2KR3R w - - 0 15",
    "6k1/5p1p/4p1p1/3pP3/1r1P4/5P2/5KPP/R7 w - - 0 30",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 2 48",
    "8/5pk1/5p1p/2R5/5K2/1r4P1/7P/8 b - - 8 43",
    "8/8/1p1k4/5ppp/PPK1p3/6P1/5PP1/8 b - - 0 40",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/8/6KQ/1r6/q2b4/8/8 w - - 0 32",
    "8/3k4/8/8/8/4B3/4KB2/2B5 w - - 0 1",
    "8/8/8/4k3/8/8/3PK3/8 w - - 0 1",
    "8/6pk/7p/8/8/7P/5PPK/3q4 w - - 0 40",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "3r2k1/1p3ppp/2pq4/p1n5/P6P/1P6/1PB2QP1/1K2R3 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
    "8/3p4/p1bk3p/Pp6/1Kp1PpPp/2P2P1P/2P5/5B2 b - - 0 1",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
    "1k6/1pp4P/p7/8/8/8/6pp/K7 w - - 0 1",
];

/// Total nodes and nodes per second over the bench positions.
pub fn run(params: &Params, depth: u32) -> (u64, u64) {
    let (nodes, nps, _) = run_with_stats(params, depth);
    (nodes, nps)
}

/// [`run`] plus the accumulated search statistics.
pub fn run_with_stats(params: &Params, depth: u32) -> (u64, u64, SearchStats) {
    let mut searcher = Searcher::new(params.clone(), BENCH_HASH_MB);
    let mut search_time = std::time::Duration::ZERO;
    let mut nodes = 0;
    for fen in POSITIONS {
        // Clearing 16 MB is set-up, not search: only the searches are timed.
        searcher.clear();
        let game = Game::new(Position::from_fen(fen, false).expect("bench FEN"));
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let start = Instant::now();
        nodes += searcher
            .search(&game, &limits, &Control::default(), &mut |_| {})
            .nodes;
        search_time += start.elapsed();
    }
    let ms = search_time.as_millis().max(1) as u64;
    (nodes, nodes * 1000 / ms, searcher.stats().clone())
}

/// shakmaty's raw copy-make perft (clone + `play_unchecked` at every node, no
/// bulk counting): the ceiling a copy-make search could reach.
fn raw_perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        n += raw_perft(&child, depth - 1);
    }
    n
}

/// Raw make-move perft rate in nodes per second (startpos d5 + Kiwipete d4).
pub fn perft_rate() -> u64 {
    let start = Instant::now();
    let mut nodes = 0;
    for (fen, depth) in [(POSITIONS[0], 5), (POSITIONS[1], 4)] {
        let pos = Position::from_fen(fen, false).expect("perft FEN");
        nodes += raw_perft(pos.board(), depth);
    }
    let secs = start.elapsed().as_secs_f64().max(1e-6);
    (nodes as f64 / secs) as u64
}

/// The `(depth, --stats)` of `bench [depth] [--stats]`, checked before any work starts.
pub fn parse_args(args: &[String]) -> Result<(u32, bool), String> {
    let mut depth = DEFAULT_DEPTH;
    let mut stats = false;
    for a in args {
        match a.as_str() {
            "--stats" => stats = true,
            d => {
                depth = d
                    .parse()
                    .ok()
                    .filter(|d| (1..=64).contains(d))
                    .ok_or_else(|| format!("bench: '{d}' is not a depth from 1 to 64 or --stats"))?
            }
        }
    }
    Ok((depth, stats))
}

/// `bench [depth] [--stats]`, from the command line or the UCI loop. The last line
/// written is always `<nodes> nodes <nps> nps` (OpenBench convention).
pub fn cli(args: &[String], params: &Params, out: &mut dyn Write) -> Result<(), String> {
    let (depth, stats) = parse_args(args)?;
    let (nodes, nps, search_stats) = run_with_stats(params, depth);
    let io = |e: std::io::Error| e.to_string();
    if stats {
        let perft = perft_rate();
        writeln!(out, "positions {} depth {depth}", POSITIONS.len()).map_err(io)?;
        writeln!(
            out,
            "fail-high first move {:.1}% within first four {:.1}% ({} cut-offs)",
            search_stats.first_move_cutoff_pct(),
            search_stats.first4_cutoff_pct(),
            search_stats.cutoffs
        )
        .map_err(io)?;
        writeln!(
            out,
            "tt hit rate {:.1}%  q-search node share {:.1}%",
            search_stats.tt_hit_pct(),
            search_stats.qnode_pct()
        )
        .map_err(io)?;
        for (i, it) in search_stats.iterations.iter().enumerate() {
            let ebf = search_stats
                .ebf()
                .iter()
                .find(|(d, _)| *d == i + 1)
                .map_or("-".to_string(), |(_, e)| format!("{e:.2}"));
            writeln!(
                out,
                "depth {:>2}  nodes {:>10}  ebf {:>5}  time-to-depth {:>8.1} ms (mean)",
                i + 1,
                it.nodes,
                ebf,
                it.time_to_depth.as_secs_f64() * 1000.0 / it.count.max(1) as f64
            )
            .map_err(io)?;
        }
        writeln!(
            out,
            "search {nps} nps, shakmaty make-move perft {perft} nps, ratio {:.1}%",
            100.0 * nps as f64 / perft.max(1) as f64
        )
        .map_err(io)?;
        writeln!(out, "stats {search_stats}").map_err(io)?;
    }
    writeln!(out, "{nodes} nodes {nps} nps").map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_legal_and_varied() {
        assert!(POSITIONS.len() >= 40);
        for fen in POSITIONS {
            let pos = Position::from_fen(fen, false).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(!pos.legal_moves().is_empty(), "{fen} has no legal move");
        }
    }

    #[test]
    fn bench_is_deterministic_and_prints_the_signature_last() {
        let p = Params::default();
        let (a, _) = run(&p, 4);
        let (b, _, _) = run_with_stats(&p, 4);
        assert_eq!(a, b);
        let mut out = Vec::new();
        cli(&["4".into()], &p, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.starts_with(&format!("{a} nodes ")), "{last}");
        assert!(cli(&["0".into()], &p, &mut Vec::new()).is_err());
        assert!(cli(&["x".into()], &p, &mut Vec::new()).is_err());
    }
}
