//! `occam bench`: a fixed set of positions searched to a fixed depth. The node total
//! is the bench signature that goes into commit messages.

use std::io::Write;
use std::time::Instant;

use crate::params::Params;
use crate::position::{Game, Position};
use crate::search::{Control, Limits, Searcher};

pub const DEFAULT_DEPTH: u32 = 5;

/// Bench positions (placeholder set; the full ~40-position set lands with the search).
pub const POSITIONS: &[&str] = &[
    crate::position::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
];

/// Total nodes and nodes per second over the bench positions.
pub fn run(params: &Params, depth: u32) -> (u64, u64) {
    let start = Instant::now();
    let mut nodes = 0;
    for fen in POSITIONS {
        let mut searcher = Searcher::new(params.clone(), 16);
        let game = Game::new(Position::from_fen(fen, false).expect("bench FEN"));
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        nodes += searcher
            .search(&game, &limits, &Control::default(), &mut |_| {})
            .nodes;
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    (nodes, nodes * 1000 / ms)
}

/// `bench [depth] [--stats]`, from the command line or the UCI loop. The last line
/// written is always `<nodes> nodes <nps> nps` (OpenBench convention).
pub fn cli(args: &[String], params: &Params, out: &mut dyn Write) -> Result<(), String> {
    let mut depth = DEFAULT_DEPTH;
    for a in args {
        match a.as_str() {
            "--stats" => {}
            d => {
                depth = d
                    .parse()
                    .ok()
                    .filter(|d| (1..=64).contains(d))
                    .ok_or_else(|| format!("bench: '{d}' is not a depth from 1 to 64 or --stats"))?
            }
        }
    }
    let (nodes, nps) = run(params, depth);
    writeln!(out, "{nodes} nodes {nps} nps").map_err(|e| e.to_string())
}
