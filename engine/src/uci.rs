//! The UCI protocol loop. (Placeholder until the full shell lands.)

use std::io::{BufRead, Write};

/// Runs the UCI loop until `quit` or end of input.
pub fn run(input: impl BufRead, mut output: impl Write + Send + 'static) {
    for line in input.lines().map_while(Result::ok) {
        match line.trim() {
            "uci" => {
                let _ = writeln!(
                    output,
                    "id name Occam\nid author The Occam developers\nuciok"
                );
            }
            "isready" => {
                let _ = writeln!(output, "readyok");
            }
            "quit" => break,
            _ => {}
        }
        let _ = output.flush();
    }
}
