//! The `occam` binary: a UCI engine.
//!
//! - `occam` speaks UCI on stdin/stdout.
//! - `occam bench [depth] [--stats]` prints the bench signature (`<N> nodes <M> nps` last)
//!   and exits with status 2 on bad arguments.
//! - `occam <command…>` runs UCI commands given as arguments, then exits once any
//!   search they started has finished: either one command split over several
//!   arguments (`occam go perft 4`), or one command per argument when an argument
//!   holds a space (`occam "position startpos moves e2e4" "go depth 6"`). OpenBench's
//!   datagen runs `occam "genfens N seed S book <path|None>" "quit"` this way
//!   (see [`occam::genfens`]); `quit` waits for the last position.

use std::io::Cursor;

use occam::{Params, bench};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        if let Err(e) = bench::cli(&args[1..], &Params::default(), &mut std::io::stdout()) {
            eprintln!("{e}");
            std::process::exit(2);
        }
        return;
    }
    if args.is_empty() {
        occam::uci::run(std::io::BufReader::new(std::io::stdin()), std::io::stdout());
        return;
    }
    let script = if args.len() > 1 && args.iter().any(|a| a.contains(char::is_whitespace)) {
        args.join("\n")
    } else {
        args.join(" ")
    };
    occam::uci::run(Cursor::new(script.into_bytes()), std::io::stdout());
}
