//! Renders parameter tables as source text: the frozen Rust module, a C header and
//! OpenBench's SPSA input. `engine/build.rs` renders the frozen build with the same
//! code `tuner export` and `tuner verify` use, so the two cannot drift apart.

use std::fmt::Write as _;

use crate::Param;

/// Upper-case constant name of a parameter (`razor_base` -> `RAZOR_BASE`).
pub fn const_name(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// A Rust module of `pub const NAME: i32 = value;`, one per parameter.
/// `provenance` lines become comments at the top (plain `//`, so the text can be
/// `include!`d as well as used as a module file).
pub fn rust_consts<S: AsRef<str>>(entries: &[Param<S>], provenance: &[String]) -> String {
    let mut out = String::new();
    out.push_str("// Frozen Occam parameters (generated; do not edit by hand).\n");
    for line in provenance {
        let _ = writeln!(out, "// {line}");
    }
    out.push('\n');
    for e in entries {
        let _ = writeln!(
            out,
            "/// {} [{}; range {}..={}]",
            e.description.as_ref(),
            e.unit.as_ref(),
            e.min,
            e.max
        );
        let _ = writeln!(
            out,
            "pub const {}: i32 = {};",
            const_name(e.name()),
            e.value
        );
    }
    out
}

/// A C header of `#define OCCAM_NAME value`, with an include guard.
pub fn c_header<S: AsRef<str>>(entries: &[Param<S>], provenance: &[String]) -> String {
    let mut out = String::new();
    out.push_str("/* Frozen Occam parameters (generated; do not edit by hand).\n");
    for line in provenance {
        let _ = writeln!(out, " * {}", line.replace("*/", "* /"));
    }
    out.push_str(" */\n#ifndef OCCAM_PARAMS_H\n#define OCCAM_PARAMS_H\n\n");
    for e in entries {
        let _ = writeln!(
            out,
            "#define OCCAM_{} ({}) /* {} [{}..{}] */",
            const_name(e.name()),
            e.value,
            e.unit.as_ref().replace("*/", "* /"),
            e.min,
            e.max
        );
    }
    out.push_str("\n#endif /* OCCAM_PARAMS_H */\n");
    out
}

/// OpenBench SPSA input: `name, int, value, min, max, c_end, r_end` per line, with
/// no newline after the last one: OpenBench's server splits the text on `\n` and
/// rejects the whole input ("Malformed SPSA Input") for a trailing empty piece.
pub fn openbench<S: AsRef<str>>(entries: &[Param<S>]) -> String {
    entries
        .iter()
        .map(|e| {
            format!(
                "{}, int, {}, {}, {}, {}, {}",
                e.name(),
                e.value,
                e.min,
                e.max,
                e.c_end,
                e.r_end
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
