//! The `occam` binary: a UCI engine; `occam bench [depth]` prints the bench signature.

use occam::{Params, bench};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        let depth = args
            .get(1)
            .and_then(|d| d.parse().ok())
            .unwrap_or(bench::DEFAULT_DEPTH);
        let (nodes, nps) = bench::run(&Params::default(), depth);
        println!("{nodes} nodes {nps} nps");
        return;
    }
    occam::uci::run(std::io::stdin().lock(), std::io::stdout());
}
