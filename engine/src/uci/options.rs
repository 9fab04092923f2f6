//! The options: the standard ones, each a row of [`ENGINE_OPTIONS`] that carries
//! its setter (so an option cannot be listed without being handled), then one spin
//! option per tunable parameter, generated from `PARAM_SPECS`. What they set is one
//! [`Settings`], which the next search uses.

use std::sync::Arc;

use super::Shell;
use crate::params::{self, PARAM_SPECS, Params};
use crate::score::MAX_PLY;
use crate::search::{MAX_MULTI_PV, MAX_THREADS};
use crate::tablebase::{self, MAX_PROBE_LIMIT, ProbeSettings, Tablebases};

const DEFAULT_HASH_MB: i64 = 16;
const MAX_HASH_MB: i64 = 65_536;
const DEFAULT_MOVE_OVERHEAD_MS: i64 = 10;
const MAX_MOVE_OVERHEAD_MS: i64 = 5_000;

/// What the options are set to: what the next search uses.
pub(super) struct Settings {
    /// The parameters (one spin option each).
    pub(super) params: Params,
    pub(super) hash_mb: usize,
    pub(super) threads: usize,
    pub(super) multi_pv: usize,
    pub(super) move_overhead_ms: u64,
    pub(super) chess960: bool,
    pub(super) search_stats: bool,
    /// The tables of `SyzygyPath` (`None`: no path set) and how the search uses them.
    pub(super) tablebases: Option<Arc<Tablebases>>,
    pub(super) tb_settings: ProbeSettings,
}

impl Default for Settings {
    /// Every option at its default.
    fn default() -> Settings {
        Settings {
            params: Params::default(),
            hash_mb: DEFAULT_HASH_MB as usize,
            threads: 1,
            multi_pv: 1,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS as u64,
            chess960: false,
            search_stats: false,
            tablebases: None,
            tb_settings: ProbeSettings::default(),
        }
    }
}

/// A standard option: its name, and its type with what `uci` lists and what
/// `setoption` does with a valid value (`Err`: refused, the state unchanged).
struct EngineOption {
    name: &'static str,
    kind: OptionKind,
}

#[derive(Clone, Copy)]
enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
        set: fn(&mut Shell, i64) -> Result<(), String>,
    },
    Check {
        default: bool,
        set: fn(&mut Shell, bool),
    },
    Button {
        press: fn(&mut Shell),
    },
    String {
        default: &'static str,
        set: fn(&mut Shell, &str) -> Result<(), String>,
    },
}

const fn spin(
    name: &'static str,
    (default, min, max): (i64, i64, i64),
    set: fn(&mut Shell, i64) -> Result<(), String>,
) -> EngineOption {
    EngineOption {
        name,
        kind: OptionKind::Spin {
            default,
            min,
            max,
            set,
        },
    }
}

const fn check(name: &'static str, default: bool, set: fn(&mut Shell, bool)) -> EngineOption {
    EngineOption {
        name,
        kind: OptionKind::Check { default, set },
    }
}

/// The standard options, in the order `uci` lists them.
const ENGINE_OPTIONS: &[EngineOption] = &[
    spin("Hash", (DEFAULT_HASH_MB, 1, MAX_HASH_MB), set_hash),
    spin("Threads", (1, 1, MAX_THREADS as i64), |shell, v| {
        shell.settings.threads = v as usize;
        Ok(())
    }),
    spin("MultiPV", (1, 1, MAX_MULTI_PV as i64), |shell, v| {
        shell.settings.multi_pv = v as usize;
        Ok(())
    }),
    EngineOption {
        name: "Clear Hash",
        kind: OptionKind::Button {
            press: |shell| shell.clear_pending = true,
        },
    },
    spin(
        "Move Overhead",
        (DEFAULT_MOVE_OVERHEAD_MS, 0, MAX_MOVE_OVERHEAD_MS),
        |shell, v| {
            shell.settings.move_overhead_ms = v as u64;
            Ok(())
        },
    ),
    // The GUI says when to ponder (`go ponder`): the option only announces support.
    check("Ponder", false, |_, _| {}),
    check("UCI_Chess960", false, |shell, on| shell.set_chess960(on)),
    check("SearchStats", false, |shell, on| {
        shell.settings.search_stats = on
    }),
    EngineOption {
        name: "SyzygyPath",
        kind: OptionKind::String {
            default: tablebase::EMPTY_PATH,
            set: |shell, path| shell.set_syzygy_path(path),
        },
    },
    spin("SyzygyProbeDepth", (1, 1, MAX_PLY as i64), |shell, v| {
        shell.settings.tb_settings.depth = v as i32;
        Ok(())
    }),
    spin(
        "SyzygyProbeLimit",
        (MAX_PROBE_LIMIT as i64, 0, MAX_PROBE_LIMIT as i64),
        |shell, v| {
            shell.settings.tb_settings.limit = v as u32;
            Ok(())
        },
    ),
    check("Syzygy50MoveRule", true, |shell, on| {
        shell.settings.tb_settings.rule50 = on
    }),
];

/// `Hash`: checked against what this machine can allocate now (a failed allocation
/// would abort the process later).
fn set_hash(shell: &mut Shell, mb: i64) -> Result<(), String> {
    if Vec::<u8>::new()
        .try_reserve_exact((mb as usize) << 20)
        .is_err()
    {
        return Err(format!(
            "cannot allocate {mb} MB for the hash table on this machine; Hash stays {} MB",
            shell.settings.hash_mb
        ));
    }
    shell.settings.hash_mb = mb as usize;
    Ok(())
}

fn spin_line(name: &str, default: i64, min: i64, max: i64) -> String {
    format!("option name {name} type spin default {default} min {min} max {max}")
}

fn option_line(option: &EngineOption) -> String {
    let name = option.name;
    match option.kind {
        OptionKind::Spin {
            default, min, max, ..
        } => spin_line(name, default, min, max),
        OptionKind::Check { default, .. } => {
            format!("option name {name} type check default {default}")
        }
        OptionKind::Button { .. } => format!("option name {name} type button"),
        OptionKind::String { default, .. } => {
            format!("option name {name} type string default {default}")
        }
    }
}

/// Every option line `uci` prints: the standard options, then one spin per parameter.
pub fn option_lines() -> Vec<String> {
    let mut lines: Vec<String> = ENGINE_OPTIONS.iter().map(option_line).collect();
    lines.extend(
        PARAM_SPECS
            .iter()
            .map(|s| spin_line(s.name, s.value.into(), s.min.into(), s.max.into())),
    );
    lines
}

impl Shell {
    pub(super) fn cmd_uci(&self) {
        let mut text = format!(
            "id name Occam {}\nid author The Occam developers\n",
            env!("CARGO_PKG_VERSION")
        );
        for line in option_lines() {
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str("uciok");
        self.out.text(&text);
    }

    pub(super) fn cmd_setoption(&mut self, args: &[&str]) -> Result<(), String> {
        const USAGE: &str = "expected 'setoption name <option> [value <value>]'";
        if args.first() != Some(&"name") || args.len() < 2 {
            return Err(format!("malformed setoption: {USAGE}"));
        }
        let value_at = args.iter().position(|t| *t == "value");
        let name_end = value_at.unwrap_or(args.len());
        let name = args[1..name_end].join(" ");
        if name.is_empty() {
            return Err(format!("setoption without an option name: {USAGE}"));
        }
        let value = value_at.map(|i| args[i + 1..].join(" "));

        if let Some(option) = ENGINE_OPTIONS
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(&name))
        {
            return self.set_engine_option(option, value.as_deref());
        }
        let index = params::index_of_ignore_case(&name).or_else(|| {
            // An old parameter name still works, with a note (GUI configurations and
            // tuning scripts written before a rename).
            let current = occam_params::renamed(&name.to_ascii_lowercase())?;
            self.out.text(&format!(
                "info string note: {}",
                occam_params::rename_note(&name, current)
            ));
            params::index_of(current)
        });
        if let Some(index) = index {
            let spec = &PARAM_SPECS[index];
            let text = value.ok_or_else(|| {
                format!(
                    "option '{}' needs a value: an integer from {} to {}",
                    spec.name, spec.min, spec.max
                )
            })?;
            let mut next = self.settings.params.clone();
            return match next.set_by_name(spec.name, &text) {
                Ok(()) => {
                    self.settings.params = next;
                    self.apply_pending_if_idle();
                    Ok(())
                }
                Err(params::ParamError::Frozen(n)) => Err(format!(
                    "parameter '{n}' is a compile-time constant in this frozen build (build without --features frozen to change it)"
                )),
                Err(e) => Err(e.to_string()),
            };
        }
        Err(format!(
            "unknown option '{name}' (send 'uci' for the list of options)"
        ))
    }

    /// Checks `value` against the option's type and hands it to its setter.
    fn set_engine_option(
        &mut self,
        option: &EngineOption,
        value: Option<&str>,
    ) -> Result<(), String> {
        let (name, text) = (option.name, value.unwrap_or(""));
        match option.kind {
            OptionKind::Button { press } => press(self),
            OptionKind::Spin { min, max, set, .. } => {
                let v: i64 = text
                    .parse()
                    .ok()
                    .filter(|v| (min..=max).contains(v))
                    .ok_or_else(|| {
                        format!(
                            "option '{name}' takes an integer from {min} to {max}, got '{text}'"
                        )
                    })?;
                set(self, v)?;
            }
            OptionKind::Check { set, .. } => {
                let on = match text.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("option '{name}' takes true or false, got '{text}'")),
                };
                set(self, on);
            }
            OptionKind::String { set, .. } => set(self, text)?,
        }
        self.apply_pending_if_idle();
        Ok(())
    }

    /// Opens the tables of a `SyzygyPath` value (checked now, so a bad path is one
    /// error line at `setoption`, not a surprise in the middle of a game). On an error
    /// the tables in use, if any, stay.
    fn set_syzygy_path(&mut self, value: &str) -> Result<(), String> {
        match Tablebases::open(value) {
            Ok(Some(tables)) => {
                self.out.text(&format!("info string {}", tables.summary()));
                self.settings.tablebases = Some(Arc::new(tables));
                Ok(())
            }
            Ok(None) => {
                self.settings.tablebases = None;
                Ok(())
            }
            Err(e) => Err(match &self.settings.tablebases {
                Some(kept) => format!(
                    "SyzygyPath: {e}; the tables in use stay ({})",
                    kept.summary()
                ),
                None => format!("SyzygyPath: {e}; no tablebases are in use"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_option_per_parameter_after_the_standard_ones() {
        let lines = option_lines();
        assert_eq!(lines.len(), ENGINE_OPTIONS.len() + PARAM_SPECS.len());
        for (line, spec) in lines[ENGINE_OPTIONS.len()..].iter().zip(PARAM_SPECS.iter()) {
            assert_eq!(
                line,
                &format!(
                    "option name {} type spin default {} min {} max {}",
                    spec.name, spec.value, spec.min, spec.max
                )
            );
        }
    }
}
