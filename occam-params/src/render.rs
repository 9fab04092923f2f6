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
///
/// `ends[i]` is the `(c_end, r_end)` written for `entries[i]`, resolved by the caller:
/// the entry's own where its file gives them ([`Param::ends`]), and for the others
/// what `tuner export` designs for its planned games (this crate does not design).
/// An entry with `None` gets the short line `name, int, value, min, max`, which
/// `tuner spsa` reads as "designed" and OpenBench refuses.
pub fn openbench<S: AsRef<str>>(entries: &[Param<S>], ends: &[Option<(f64, f64)>]) -> String {
    assert_eq!(entries.len(), ends.len(), "one (c_end, r_end) per entry");
    entries
        .iter()
        .zip(ends)
        .map(|(e, ends)| {
            let short = format!("{}, int, {}, {}, {}", e.name(), e.value, e.min, e.max);
            match ends {
                Some((c_end, r_end)) => format!("{short}, {c_end}, {r_end}"),
                None => short,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MeasuredBy;

    fn entry(name: &str, c_end: Option<f64>, r_end: Option<f64>) -> Param<&str> {
        Param {
            name,
            value: 20,
            start: 20,
            min: 5,
            max: 150,
            c_end,
            r_end,
            unit: "cp",
            description: "d",
            measured_by: MeasuredBy::Any,
        }
    }

    #[test]
    fn openbench_lines_carry_the_ends_they_are_given() {
        let entries = [
            entry("given", Some(2.0), Some(0.002)),
            entry("designed", None, None),
            entry("half", Some(3.0), None),
        ];
        let own: Vec<_> = entries.iter().map(Param::ends).collect();
        assert_eq!(
            openbench(&entries, &own),
            "given, int, 20, 5, 150, 2, 0.002\ndesigned, int, 20, 5, 150\nhalf, int, 20, 5, 150"
        );
        let resolved = [Some((2.0, 0.002)), Some((36.25, 0.13)), Some((3.0, 0.13))];
        assert_eq!(
            openbench(&entries, &resolved),
            "given, int, 20, 5, 150, 2, 0.002\ndesigned, int, 20, 5, 150, 36.25, 0.13\nhalf, int, 20, 5, 150, 3, 0.13"
        );
    }
}
