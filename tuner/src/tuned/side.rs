//! The side a tune moves: Occam's parameters in-process, or any UCI engine whose
//! options are set by `setoption` (its parameter list in an OpenBench, weather-factory
//! or Occam file). Everything else about a run (server, schedule, journal, workers,
//! report) is the same for both; this module is where they differ: which parameters
//! there are, how θ± reaches a player, how the result is written back, and which
//! [`Side`]s the verification plays.

use anyhow::{Result, bail};
use occam::Params;
use occam::params::PARAM_SPECS;
use occam_params::{MeasuredBy, ParamFile, Selector};

use super::binding::{Binding, bind};
use super::params::{Requested, TunedParam};
use crate::param_files::lists::ParamList;
use crate::param_files::paths_text;
use crate::play::game::{EnginePlayer, Player};
use crate::play::side::Side;
use crate::play::uci_engine::{EngineSpec, UciEngine};

/// A tuned parameter's place: file (or list) and entry, and for Occam in-process its
/// index in the engine's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub file: usize,
    pub entry: usize,
    pub engine_index: usize,
}

/// Occam in-process: the parameter files, laid over the compiled values.
pub struct InProcess {
    pub files: Vec<ParamFile>,
    /// Every parameter at its file value; each pair overrides only the slots.
    pub base: Params,
}

/// An external UCI engine and its parameter lists.
pub struct External {
    /// The engine as given, plus the hash size and every listed parameter at its file
    /// value: what each process is set to after its handshake, before any θ.
    pub spec: EngineSpec,
    /// The engine as the user gave it (stored in the journal, checked on resume).
    pub described: String,
    pub lists: Vec<ParamList>,
    /// Per list, per parameter: the option it is sent to and its grid.
    pub bindings: Vec<Vec<Binding>>,
}

/// The side a tune moves, with the files its values live in. (One exists per run: the
/// size of the in-process variant's table does not matter.)
#[allow(clippy::large_enum_variant)]
pub enum TunedSide {
    InProcess(InProcess),
    External(External),
}

/// A player of a tune: θ+ or θ−, whose tuned values are loaded before each pair.
pub trait TunedPlayer: Send {
    fn set_values(&mut self, slots: &[Slot], values: &[i32]);
    fn player(&mut self) -> &mut dyn Player;
}

struct InProcessTuned<'a> {
    player: EnginePlayer,
    base: &'a Params,
}

impl TunedPlayer for InProcessTuned<'_> {
    fn set_values(&mut self, slots: &[Slot], values: &[i32]) {
        self.player
            .set_params(with_values(self.base, slots, values));
    }
    fn player(&mut self) -> &mut dyn Player {
        &mut self.player
    }
}

struct ExternalTuned<'a> {
    engine: UciEngine,
    bindings: &'a [Vec<Binding>],
}

impl TunedPlayer for ExternalTuned<'_> {
    fn set_values(&mut self, slots: &[Slot], values: &[i32]) {
        let options: Vec<(String, String)> = slots
            .iter()
            .zip(values)
            .map(|(s, &v)| {
                let b = &self.bindings[s.file][s.entry];
                (b.option.clone(), b.text(v))
            })
            .collect();
        self.engine.set_overlay(&options);
    }
    fn player(&mut self) -> &mut dyn Player {
        &mut self.engine
    }
}

/// Occam's parameters with `values` at the slots.
pub fn with_values(base: &Params, slots: &[Slot], values: &[i32]) -> Params {
    let mut p = base.clone();
    for (s, &v) in slots.iter().zip(values) {
        // Bounds were checked against the engine's table when the run started.
        p.set(s.engine_index, v)
            .expect("value within the engine's bounds");
    }
    p
}

impl External {
    /// Starts the engine once, reads its options and checks every listed parameter
    /// against them; then builds the spec every worker's processes start from.
    pub fn connect(spec: EngineSpec, lists: Vec<ParamList>, hash_mb: usize) -> Result<External> {
        let described = spec.describe();
        let probe = UciEngine::start(spec.clone())?;
        let engine = format!("engine '{}' ({})", spec.name, spec.cmd);
        let bindings = bind(&lists, probe.options(), &engine)?;
        let mut spec = spec;
        // The tuner's --hash, unless the user set the engine's Hash: both sides of a
        // cross-check with in-process Occam then use the same table size.
        let has_hash = probe
            .options()
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case("Hash") && o.kind == "spin");
        if has_hash
            && !spec
                .options
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("Hash"))
        {
            spec.options.push(("Hash".into(), hash_mb.to_string()));
        }
        for (list, row) in lists.iter().zip(&bindings) {
            for (p, b) in list.params.iter().zip(row) {
                let units = b.units(p.value).round() as i32;
                spec.options.push((b.option.clone(), b.text(units)));
            }
        }
        Ok(External {
            spec,
            described,
            lists,
            bindings,
        })
    }
}

/// A file of values that can be rewritten in place: an Occam parameter file or an
/// external engine's parameter list.
trait ValueFile {
    type Value: Copy;
    fn values(&self) -> Vec<Self::Value>;
    /// Renders `values` without writing: the same checks as [`ValueFile::write`].
    fn check(&self, values: &[Self::Value]) -> Result<()>;
    fn write(&mut self, values: &[Self::Value]) -> Result<()>;
}

impl ValueFile for ParamFile {
    type Value = i32;
    fn values(&self) -> Vec<i32> {
        self.entries.iter().map(|e| e.value).collect()
    }
    fn check(&self, values: &[i32]) -> Result<()> {
        self.render_with_values(values)?;
        Ok(())
    }
    fn write(&mut self, values: &[i32]) -> Result<()> {
        Ok(self.write_values(values)?)
    }
}

impl ValueFile for ParamList {
    type Value = f64;
    fn values(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.value).collect()
    }
    fn check(&self, values: &[f64]) -> Result<()> {
        self.render(values)?;
        Ok(())
    }
    fn write(&mut self, values: &[f64]) -> Result<()> {
        self.write_values(values)
    }
}

/// Sets each (slot, value) in `files`. Every file is rendered first, so an error
/// leaves all of them untouched; each is then replaced atomically and only its
/// values change.
fn write_files<F: ValueFile>(
    files: &mut [F],
    new: impl IntoIterator<Item = (Slot, F::Value)>,
) -> Result<()> {
    let mut values: Vec<Vec<F::Value>> = files.iter().map(F::values).collect();
    for (s, v) in new {
        values[s.file][s.entry] = v;
    }
    for (f, v) in files.iter().zip(&values) {
        f.check(v)?;
    }
    for (f, v) in files.iter_mut().zip(&values) {
        f.write(v)?;
    }
    Ok(())
}

/// One candidate for tuning: its name, which games measure it, and its slot.
pub struct Candidate {
    pub name: String,
    pub measured_by: MeasuredBy,
    pub slot: Slot,
    /// As the run would tune it; its gains are resolved when the run begins.
    pub param: Requested,
}

impl TunedSide {
    /// Every parameter of the files, in file order, as the server would tune it (in
    /// grid units for floats sent as decimals), with its slot. In-process, names the
    /// engine does not know and bounds beyond the compiled ones are refused.
    pub fn candidates(&self) -> Result<Vec<Candidate>> {
        let mut all = Vec::new();
        match self {
            TunedSide::InProcess(t) => {
                for (fi, f) in t.files.iter().enumerate() {
                    for (ei, index) in f.bind::<Params>()?.into_iter().enumerate() {
                        let e = &f.entries[ei];
                        let spec = &PARAM_SPECS[index];
                        if e.min < spec.min || e.max > spec.max {
                            bail!(
                                "{}: parameter '{}' allows [{}, {}] but this engine was built with [{}, {}]; rebuild after editing params/",
                                f.path.display(),
                                e.name,
                                e.min,
                                e.max,
                                spec.min,
                                spec.max
                            );
                        }
                        all.push(Candidate {
                            name: e.name.clone(),
                            measured_by: e.measured_by,
                            slot: Slot {
                                file: fi,
                                entry: ei,
                                engine_index: index,
                            },
                            param: Requested::from(e),
                        });
                    }
                }
            }
            TunedSide::External(t) => {
                for (fi, (list, row)) in t.lists.iter().zip(&t.bindings).enumerate() {
                    for (ei, (p, b)) in list.params.iter().zip(row).enumerate() {
                        let (min, max) = b.unit_bounds(p.min, p.max);
                        all.push(Candidate {
                            name: p.name.clone(),
                            measured_by: p.measured_by,
                            slot: Slot {
                                file: fi,
                                entry: ei,
                                engine_index: usize::MAX,
                            },
                            param: Requested {
                                name: p.name.clone(),
                                start: b.units(p.value),
                                min,
                                max,
                                c_end: p.c_end.map(|c| b.units(c)),
                                // r_end = a/c² is the same in any unit.
                                r_end: p.r_end,
                            },
                        });
                    }
                }
            }
        }
        Ok(all)
    }

    /// The candidates named by `--params` (all without it); a parameter with nothing
    /// to tune (min == max) is refused.
    pub fn select(&self, wanted: &[String]) -> Result<Vec<Candidate>> {
        let all = self.candidates()?;
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        let chosen = Selector::parse(wanted).pick(&names)?;
        let mut picked = Vec::new();
        for (k, c) in all.into_iter().enumerate() {
            if !chosen.contains(&k) {
                continue;
            }
            if c.param.min >= c.param.max {
                bail!(
                    "{}: parameter '{}' has min {} and max {}: nothing to tune (leave it out with --params)",
                    self.paths()[c.slot.file].display(),
                    c.name,
                    c.param.min,
                    c.param.max
                );
            }
            picked.push(c);
        }
        if picked.is_empty() {
            bail!("no parameters to tune");
        }
        Ok(picked)
    }

    /// The slots of a (possibly resumed) run's parameters, in its order.
    pub fn reselect(&self, params: &[TunedParam]) -> Result<Vec<Slot>> {
        let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let chosen = self.select(&names)?;
        names
            .iter()
            .map(|n| {
                chosen
                    .iter()
                    .find(|c| &c.name == n)
                    .map(|c| c.slot)
                    .ok_or_else(|| {
                        anyhow::anyhow!("parameter '{n}' of the run is not in the files")
                    })
            })
            .collect()
    }

    pub fn paths(&self) -> Vec<std::path::PathBuf> {
        match self {
            TunedSide::InProcess(t) => t.files.iter().map(|f| f.path.clone()).collect(),
            TunedSide::External(t) => t.lists.iter().map(|l| l.path.clone()).collect(),
        }
    }

    /// The engine the run tunes, as its journal records it (`None`: Occam in-process).
    pub fn engine(&self) -> Option<String> {
        match self {
            TunedSide::InProcess(_) => None,
            TunedSide::External(t) => Some(t.described.clone()),
        }
    }

    /// θ+ and θ− of one worker. External engines are started (and handshaken) here,
    /// so a broken command fails before the first game.
    pub fn players(
        &self,
        hash_mb: usize,
    ) -> Result<(Box<dyn TunedPlayer + '_>, Box<dyn TunedPlayer + '_>)> {
        Ok(match self {
            TunedSide::InProcess(t) => {
                let side = |name: &str| -> Box<dyn TunedPlayer + '_> {
                    Box::new(InProcessTuned {
                        player: EnginePlayer::new(name, t.base.clone(), hash_mb),
                        base: &t.base,
                    })
                };
                (side("theta+"), side("theta-"))
            }
            TunedSide::External(t) => {
                let side = |name: &str| -> Result<Box<dyn TunedPlayer + '_>> {
                    let mut spec = t.spec.clone();
                    spec.name = name.to_string();
                    Ok(Box::new(ExternalTuned {
                        engine: UciEngine::start(spec)?,
                        bindings: &t.bindings,
                    }))
                };
                (side("theta+")?, side("theta-")?)
            }
        })
    }

    /// Writes the tuned values (in the server's units) into their files (see
    /// [`write_files`]).
    pub fn write_back(&mut self, slots: &[Slot], written: &[i32]) -> Result<()> {
        let new = slots.iter().copied().zip(written.iter().copied());
        match self {
            TunedSide::InProcess(t) => write_files(&mut t.files, new),
            TunedSide::External(t) => {
                // The server's integer units back into the engine's (floats, steps).
                let new: Vec<(Slot, f64)> = new
                    .map(|(s, v)| {
                        let p = &t.lists[s.file].params[s.entry];
                        (s, t.bindings[s.file][s.entry].value(v, p.min, p.max))
                    })
                    .collect();
                write_files(&mut t.lists, new)
            }
        }
    }

    /// The two sides of `--verify`: the tuned values against those the run started
    /// from, named `tuned` and `start`.
    pub fn verify_sides(&self, slots: &[Slot], tuned: &[i32], start: &[i32]) -> (Side, Side) {
        match self {
            TunedSide::InProcess(t) => {
                let files = paths_text(&self.paths(), ",");
                let side = |name: &str, field: &str, values: &[i32]| Side::InProcess {
                    name: name.to_string(),
                    source: format!("{files}@{field}"),
                    params: with_values(&t.base, slots, values),
                };
                (side("tuned", "value", tuned), side("start", "start", start))
            }
            TunedSide::External(t) => {
                let side = |name: &str, values: &[i32]| {
                    let mut spec = t.spec.clone();
                    spec.name = name.to_string();
                    for (s, &v) in slots.iter().zip(values) {
                        let b = &t.bindings[s.file][s.entry];
                        spec.options.push((b.option.clone(), b.text(v)));
                    }
                    Side::External(spec)
                };
                (side("tuned", tuned), side("start", start))
            }
        }
    }
}
