//! The documentation says what the binaries do, and the repository speaks of itself only.
//!
//! - Every flag of every `tuner` subcommand's `--help` appears on that command's page in
//!   `docs/` (the game options shared by the game-playing commands on `docs/games.md`),
//!   and so does every key of `--engine`.
//! - Every `occam` UCI option (less the generated parameter options) and every extra
//!   command appears on `docs/engine.md`.
//! - Every fenced block in README.md and docs/ names its language, every shell block
//!   carries a marker for `scripts/run_docs.sh` (`runnable`, `runnable budget="…"` or
//!   `not-runnable (reason)`), and every repository path the pages name exists.
//! - No file mentions this project's issue numbers, development passes or work
//!   sessions, branch or tag names, or paths of a development machine.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use occam_tests::{binary, workspace_root};
use regex::Regex;

/// The page that documents each `tuner` subcommand.
const PAGES: &[(&str, &str)] = &[
    ("spsa", "docs/spsa.md"),
    ("plot", "docs/spsa.md"),
    ("match", "docs/matches.md"),
    ("verify", "docs/matches.md"),
    ("texel", "docs/texel.md"),
    ("datagen", "docs/texel.md"),
    ("export", "docs/parameters.md"),
    ("import", "docs/parameters.md"),
    ("simulate", "docs/SIMULATOR.md"),
    ("openbench", "docs/openbench.md"),
];

/// The page of the game options (the `--help` sections other than `Options:`).
const GAME_OPTIONS_PAGE: &str = "docs/games.md";

/// The engine's page.
const ENGINE_PAGE: &str = "docs/engine.md";

/// Commands every UCI engine has; the others `occam` knows are its extra commands.
const UCI_COMMANDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "setoption",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "debug",
    "register",
];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn page(rel: &str) -> String {
    read(&workspace_root().join(rel))
}

/// README.md and every `docs/*.md`, as (path relative to the root, text).
fn doc_pages() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut pages = vec![("README.md".to_string(), read(&root.join("README.md")))];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    for p in docs {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        pages.push((rel, read(&p)));
    }
    pages
}

fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Whether `text` holds `flag` (`--pairs`) as a whole flag, not as part of a longer one.
fn mentions_flag(text: &str, flag: &str) -> bool {
    let re = Regex::new(&format!(
        r"(^|[^A-Za-z0-9-]){}($|[^A-Za-z0-9-])",
        regex::escape(flag)
    ))
    .unwrap();
    re.is_match(text)
}

// ---------------------------------------------------------------------------------------
// `tuner --help` against the pages
// ---------------------------------------------------------------------------------------

/// The subcommands a `--help` text lists under `Commands:` (`help` left out).
fn subcommands_in(help: &str) -> Vec<String> {
    let mut in_commands = false;
    let mut commands = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') {
            in_commands = line.trim_end() == "Commands:";
            continue;
        }
        if in_commands
            && let Some(word) = line.split_whitespace().next()
            && word != "help"
        {
            commands.push(word.to_string());
        }
    }
    commands
}

/// The subcommands `tuner --help` lists.
fn tuner_subcommands() -> Vec<String> {
    let help = run(&binary("tuner"), &["--help"]);
    let commands = subcommands_in(&help);
    assert!(
        commands.len() >= 8,
        "too few subcommands in tuner --help:\n{help}"
    );
    commands
}

/// The words of every `tuner` command whose flags a page documents: each subcommand,
/// and for one with subcommands of its own (`openbench plan`), each of those.
fn tuner_commands() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for command in tuner_subcommands() {
        let help = run(&binary("tuner"), &[&command, "--help"]);
        for nested in subcommands_in(&help) {
            out.push(vec![command.clone(), nested]);
        }
        out.push(vec![command]);
    }
    out
}

/// One option of a `--help` text: its section (`Options`, `Games`, …), its long flag and
/// the lines that describe it.
struct HelpOption {
    section: String,
    flag: String,
    text: String,
}

fn help_options(help: &str) -> Vec<HelpOption> {
    let option_line = Regex::new(r"^\s+(?:-[A-Za-z], )?(--[a-z0-9][a-z0-9-]*)").unwrap();
    let mut section = String::new();
    let mut options: Vec<HelpOption> = Vec::new();
    let mut current: Option<HelpOption> = None;
    for line in help.lines() {
        if !line.starts_with(' ') && line.trim_end().ends_with(':') {
            options.extend(current.take());
            section = line.trim_end().trim_end_matches(':').to_string();
            continue;
        }
        if let Some(c) = option_line.captures(line) {
            options.extend(current.take());
            current = Some(HelpOption {
                section: section.clone(),
                flag: c[1].to_string(),
                text: line.to_string(),
            });
        } else if let Some(c) = current.as_mut() {
            c.text.push('\n');
            c.text.push_str(line);
        }
    }
    options.extend(current);
    options
        .into_iter()
        .filter(|o| o.flag != "--help" && o.flag != "--version")
        .collect()
}

#[test]
fn every_tuner_subcommand_has_a_page() {
    for command in tuner_subcommands() {
        let Some((_, page_path)) = PAGES.iter().find(|(c, _)| *c == command) else {
            panic!(
                "`tuner {command}` has no documentation page: add it to PAGES in {} and describe it in docs/",
                file!()
            );
        };
        let text = page(page_path);
        assert!(
            text.contains(&format!("tuner {command}")),
            "{page_path} does not mention `tuner {command}`"
        );
    }
}

#[test]
fn every_tuner_flag_is_documented_on_its_page() {
    let games = page(GAME_OPTIONS_PAGE);
    let engine_key = Regex::new(r"\b([a-z]+(?:\.NAME)?)=").unwrap();
    let mut missing = Vec::new();
    for words in tuner_commands() {
        let Some((_, page_path)) = PAGES.iter().find(|(c, _)| *c == words[0]) else {
            continue; // every_tuner_subcommand_has_a_page reports it
        };
        let command = words.join(" ");
        let text = page(page_path);
        let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
        args.push("--help");
        let help = run(&binary("tuner"), &args);
        for option in help_options(&help) {
            let (where_, body) = if option.section == "Options" {
                (*page_path, &text)
            } else {
                (GAME_OPTIONS_PAGE, &games)
            };
            if !mentions_flag(body, &option.flag) {
                missing.push(format!(
                    "tuner {command} {} ({} in --help) is not on {where_}",
                    option.flag, option.section
                ));
            }
            if option.flag == "--engine" {
                for key in engine_key.captures_iter(&option.text) {
                    let key = format!("{}=", &key[1]);
                    if !text.contains(&key) {
                        missing.push(format!(
                            "tuner {command} --engine key {key} is not on {page_path}"
                        ));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "undocumented:\n{}", missing.join("\n"));
}

// ---------------------------------------------------------------------------------------
// `occam`'s options and commands against the engine page
// ---------------------------------------------------------------------------------------

/// The names of the parameters in `params/*.json` (their UCI options are generated).
fn parameter_names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(workspace_root().join("params")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let doc: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
        if let Some(params) = doc.get("params").and_then(|p| p.as_array()) {
            for p in params {
                if let Some(name) = p.get("name").and_then(|n| n.as_str()) {
                    names.insert(name.to_string());
                }
            }
        }
    }
    assert!(names.len() > 100, "no parameters found in params/");
    names
}

fn occam_session(input: &str) -> String {
    let mut child = Command::new(binary("occam"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start occam");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("occam output");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn every_engine_option_and_command_is_on_the_engine_page() {
    let text = page(ENGINE_PAGE);
    let params = parameter_names();
    let mut missing = Vec::new();

    let uci = occam_session("uci\nquit\n");
    let option = Regex::new(r"^option name (.+?) type ").unwrap();
    let mut options = 0;
    for line in uci.lines() {
        let Some(c) = option.captures(line) else {
            continue;
        };
        let name = &c[1];
        if params.contains(name) {
            continue;
        }
        options += 1;
        if !text.contains(&format!("`{name}`")) {
            missing.push(format!("UCI option `{name}`"));
        }
    }
    assert!(
        options >= 5,
        "too few options in occam's uci answer:\n{uci}"
    );

    // The error for an unknown command lists the commands the engine knows.
    let answer = occam_session("no_such_command_for_the_docs_test\nquit\n");
    let known = Regex::new(r"\(known: ([^)]*)\)").unwrap();
    let list = known
        .captures(&answer)
        .unwrap_or_else(|| panic!("no '(known: …)' list in occam's answer: {answer}"))[1]
        .to_string();
    let mut extra = 0;
    for command in list.split(',').map(str::trim) {
        if UCI_COMMANDS.contains(&command) {
            continue;
        }
        extra += 1;
        let documented = Regex::new(&format!("`{}[` ]", regex::escape(command))).unwrap();
        if !documented.is_match(&text) {
            missing.push(format!("command `{command}`"));
        }
    }
    assert!(extra >= 3, "too few extra commands in '{list}'");
    assert!(
        missing.is_empty(),
        "not documented on {ENGINE_PAGE}:\n{}",
        missing.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Code blocks and paths
// ---------------------------------------------------------------------------------------

/// A fenced block: its page, its line, its info string and its lines.
struct Block {
    page: String,
    line: usize,
    info: String,
}

fn blocks(page: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match open.take() {
                None => open = Some((i + 1, info.trim().to_string())),
                Some((line, info)) => out.push(Block {
                    page: page.to_string(),
                    line,
                    info,
                }),
            }
        }
    }
    assert!(open.is_none(), "{page}: a code block is not closed");
    out
}

const SHELLS: &[&str] = &["sh", "bash", "shell", "console"];

#[test]
fn every_code_block_names_its_language_and_every_shell_block_its_marker() {
    let marker =
        Regex::new(r#"^(?:runnable(?: budget="(?:[^"]*)")?|not-runnable \([^)]+\))$"#).unwrap();
    let budget_item = Regex::new(r"^(?:--[a-z0-9-]+ \S+|[A-Z_]+=\S*)$").unwrap();
    let mut problems = Vec::new();
    let mut runnable = 0;
    for (page, text) in doc_pages() {
        for b in blocks(&page, &text) {
            let (language, rest) = b.info.split_once(' ').unwrap_or((&b.info, ""));
            if language.is_empty() {
                problems.push(format!(
                    "{}:{}: a code block without a language",
                    b.page, b.line
                ));
                continue;
            }
            if !SHELLS.contains(&language) {
                continue;
            }
            let rest = rest.trim();
            if !marker.is_match(rest) {
                problems.push(format!(
                    "{}:{}: shell block without a marker (```sh runnable, ```sh runnable budget=\"--pairs 4\" or ```sh not-runnable (why)): '{}'",
                    b.page, b.line, b.info
                ));
                continue;
            }
            if let Some(budget) = rest
                .strip_prefix("runnable budget=\"")
                .and_then(|s| s.strip_suffix('"'))
            {
                let words: Vec<&str> = budget.split_whitespace().collect();
                let mut items = Vec::new();
                let mut i = 0;
                while i < words.len() {
                    if words[i].starts_with("--") && i + 1 < words.len() {
                        items.push(format!("{} {}", words[i], words[i + 1]));
                        i += 2;
                    } else {
                        items.push(words[i].to_string());
                        i += 1;
                    }
                }
                for item in items {
                    if !budget_item.is_match(&item) {
                        problems.push(format!(
                            "{}:{}: budget item '{item}' is neither '--flag value' nor 'VAR=value'",
                            b.page, b.line
                        ));
                    }
                }
            }
            if rest.starts_with("runnable") {
                runnable += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(runnable >= 5, "only {runnable} runnable shell blocks");
}

/// The text of a page outside its fenced blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn every_repository_path_the_pages_name_exists() {
    let root = workspace_root();
    let code = Regex::new(r"`([^`\s]+)`").unwrap();
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let tops = [
        "params/",
        "scripts/",
        "docs/",
        "tests/",
        "engine/",
        "tuner/",
        "occam-params/",
        ".ci/",
        ".cargo/",
    ];
    let files = [
        "Makefile",
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "Cargo.toml",
    ];
    let mut missing = Vec::new();
    for (page, text) in doc_pages() {
        let dir = root.join(&page).parent().unwrap().to_path_buf();
        let prose = prose(&text);
        for c in code.captures_iter(&prose) {
            let token = c[1].trim_end_matches([',', '.', ':', ';']);
            let token = token.split(['@', '#']).next().unwrap();
            if token.contains(['*', '<', '{', '…', '$', '|', '[']) {
                continue;
            }
            let in_repository = tops.iter().any(|t| token.starts_with(t)) || files.contains(&token);
            if in_repository && !root.join(token).exists() {
                missing.push(format!("{page}: `{token}`"));
            }
        }
        for c in link.captures_iter(&prose) {
            let target = c[1].split('#').next().unwrap();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !dir.join(target).exists() {
                missing.push(format!("{page}: link ({target})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but not in the repository:\n{}",
        missing.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The project speaks of itself only
// ---------------------------------------------------------------------------------------

/// Where the grep looks: every text file under these, but `tests/data` (third-party
/// tables) and this file.
const SCANNED: &[&str] = &[
    "README.md",
    "CHANGELOG.md",
    "Makefile",
    "Cargo.toml",
    "docs",
    "engine",
    "tuner",
    "occam-params",
    "params",
    "scripts",
    "tests",
    ".ci",
    ".cargo",
];

/// Names of other projects: an issue number (`fishtest #719`, `fastchess issue 879`) on
/// a line that names one of them, or right after such a line, is theirs.
const OTHER_PROJECTS: &str = r"(?i)fishtest|fastchess|openbench|stockfish|cutechess|shakmaty|weather-factory|chess-tuning-tools|python-chess|rust-lang|rustc|clippy|llvm|chessprogramming|ethereal|github\.com";

/// Hits in files other engineers are changing at the time this test was written; their
/// owners remove them (and the entry here) in the commit that fixes the text. An entry
/// that matches nothing any more fails the test, so the list can only shrink.
const KNOWN: &[&str] = &[];

fn self_reference_patterns() -> Vec<(&'static str, Regex, bool)> {
    const ORDINALS: &str = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth";
    // Written in pieces, so that this file does not match its own patterns.
    let dev_paths = format!("/{}/|/{}/|/{}/", "work", "home", "root");
    let pass = format!(
        r"(?i)\b(?:(?:{ORDINALS})|\d+(?:st|nd|rd|th))[ -]pass(?:es)?\b|\b(?:speed|search|eval|tuning) pass(?:es)?\b|\bpass(?:es)? \d+"
    );
    let session = format!(
        r"(?i)\bsessions? \d+|\b(?:{ORDINALS}) session\b|\bsession legs?\b|\bacross sessions\b|\b(?:two|three|four|several) sessions\b|\bthe session's\b|\b(?:next|last|previous|same|later|earlier) session\b"
    );
    let branch = [
        r"\bbranch(?:es)? `",
        r"\bon branch\b",
        r"\(branch\b",
        r"\bbranch [a-z]+\d+\b",
        r"\btags? `",
        r"\btag try-",
        r"\btry-[a-z0-9]+-[a-z0-9-]+",
        r"\bmain [0-9a-f]{7,40}\b",
        r"\b(?:speed|search|eval|oldeval|spsa|tune|pgo|smp)\d{1,2}\b",
    ]
    .join("|");
    vec![
        (
            "an issue number",
            Regex::new(r"(?i)\bissues?\s*#?\d+").unwrap(),
            true,
        ),
        (
            "a #N reference",
            Regex::new(r"(?:^|[\s(\[])#\d+\b").unwrap(),
            true,
        ),
        ("a development pass", Regex::new(&pass).unwrap(), false),
        ("a work session", Regex::new(&session).unwrap(), false),
        (
            "a development machine's path",
            Regex::new(&dev_paths).unwrap(),
            false,
        ),
        ("a branch or tag", Regex::new(&branch).unwrap(), false),
    ]
}

fn scanned_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let this = root.join("tests").join("tests").join("docs.rs");
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = SCANNED.iter().map(|s| root.join(s)).collect();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            if path == root.join("tests").join("data") {
                continue;
            }
            for e in std::fs::read_dir(&path).unwrap() {
                stack.push(e.unwrap().path());
            }
        } else if path.is_file() && path != this {
            let text_like = match path.extension().and_then(|e| e.to_str()) {
                Some(ext) => {
                    ["md", "rs", "json", "sh", "py", "toml", "txt", "yml", "yaml"].contains(&ext)
                }
                None => true,
            };
            if text_like {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_file_speaks_of_the_projects_development_history() {
    let root = workspace_root();
    let other = Regex::new(OTHER_PROJECTS).unwrap();
    let patterns = self_reference_patterns();
    let mut hits = Vec::new();
    let mut known_seen = vec![false; KNOWN.len()];
    for path in scanned_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // not text
        };
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if let Some(k) = KNOWN.iter().position(|k| line.contains(k)) {
                known_seen[k] = true;
                continue;
            }
            let previous = if i > 0 { lines[i - 1] } else { "" };
            for (what, re, others_allowed) in &patterns {
                if *others_allowed && (other.is_match(line) || other.is_match(previous)) {
                    continue;
                }
                if let Some(m) = re.find(line) {
                    hits.push(format!("{rel}:{}: {what} ('{}')", i + 1, m.as_str()));
                }
            }
        }
    }
    for (k, seen) in KNOWN.iter().zip(known_seen) {
        if !seen {
            hits.push(format!(
                "{}: the known hit '{k}' is gone: remove it from KNOWN",
                file!()
            ));
        }
    }
    assert!(
        hits.is_empty(),
        "the repository speaks of itself only (describe what the code does; results go to docs/MEASUREMENTS.md with commit and date):\n{}",
        hits.join("\n")
    );
}
