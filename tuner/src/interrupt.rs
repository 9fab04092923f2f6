//! A clean stop on Ctrl-C for the commands that play for a long time (`spsa`, `match`,
//! `verify`, `datagen`).
//!
//! The first Ctrl-C (SIGINT, or SIGTERM) asks the command to stop: it hands out no new
//! games, lets the ones in flight finish and records them, saves its state and says how
//! to go on. A second one ends the process at once; what was recorded stays valid,
//! since every record is appended whole and every file is replaced atomically. The
//! other commands keep the default: Ctrl-C ends them at once.
//!
//! A base module: uses nothing of the crate.

use std::ffi::OsString;
use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};

/// Exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const STOPPED: i32 = 130;

/// The error a command returns after a clean stop, once it has said how to go on:
/// `main` exits with [`STOPPED`] and prints nothing more.
#[derive(Debug, thiserror::Error)]
#[error("stopped by Ctrl-C")]
pub struct Stopped;

static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// Installs the handler, once per process; `what` says what the first Ctrl-C waits for.
pub fn install(what: &'static str) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let installed = ctrlc::set_handler(move || {
            if SIGNALS.fetch_add(1, Ordering::SeqCst) == 0 {
                eprintln!("\nstopping: {what} (Ctrl-C again to quit at once)");
            } else {
                eprintln!("quit at once: what was recorded so far stays valid");
                std::process::exit(STOPPED);
            }
        });
        if let Err(e) = installed {
            eprintln!("warning: no clean stop on Ctrl-C ({e}): Ctrl-C ends the command at once");
        }
    });
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    SIGNALS.load(Ordering::Relaxed) > 0
}

/// This command line again, as the user can paste it, with the flags in `drop` taken
/// out and `add` appended: `cargo run --release -p tuner -- spsa params/search.json
/// --resume` when it ran through `cargo run`, else the program as it was called.
pub fn command_again(drop: &[&str], add: &str) -> String {
    let mut args = std::env::args_os();
    let program = args.next().unwrap_or_else(|| OsString::from("tuner"));
    let program = program.to_string_lossy();
    let mut words = vec![
        if std::env::var_os("CARGO_PKG_NAME").is_some_and(|n| n == "tuner") {
            let release = if program.contains("release") {
                " --release"
            } else {
                ""
            };
            format!("cargo run{release} -p tuner --")
        } else {
            quoted(&program)
        },
    ];
    words.extend(
        args.map(|a| a.to_string_lossy().into_owned())
            .filter(|a| !drop.contains(&a.as_str()))
            .map(|a| quoted(&a)),
    );
    if !add.is_empty() {
        words.push(add.to_string());
    }
    words.join(" ")
}

/// `word` as a shell reads it back: single-quoted when it holds anything but plain
/// characters.
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:@+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_the_shell_needs_it() {
        assert_eq!(quoted("params/search.json"), "params/search.json");
        assert_eq!(quoted("option.Hash=16"), "option.Hash=16");
        assert_eq!(
            quoted("option.Mobility (Middle Game)=3"),
            "'option.Mobility (Middle Game)=3'"
        );
        assert_eq!(quoted("it's"), r"'it'\''s'");
        assert_eq!(quoted(""), "''");
    }
}
