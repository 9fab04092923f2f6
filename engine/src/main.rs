//! The `occam` binary: a UCI engine; `occam bench [depth] [--stats]` prints the bench signature.

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
    occam::uci::run(std::io::stdin().lock(), std::io::stdout());
}
