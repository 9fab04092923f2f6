//! Where a tuner command writes, and one writer per file.
//!
//! - **The run folder.** Files a command writes for a run (an SPSA journal and its
//!   checkpoint, tables and plots, verified headers) go by default to `runs/` under the
//!   current folder, never beside the parameter files: the engine's build reads the
//!   parameter folder, and a run's files there would stop it. A path the user gives
//!   that points into a folder of parameter files is refused ([`refuse_params_folder`]).
//! - **One writer per file.** Every file a command writes is locked for the whole
//!   command ([`WriteLocks`]), so two runs can never append to one journal or write
//!   one parameter file. The lock is an OS lock on a sidecar `.NAME.lock` beside the
//!   file, which is never renamed (the file itself is replaced atomically, so its own
//!   inode cannot carry a lock) and is released by the OS when the process dies, even
//!   by `kill -9`: no stale lock is ever left.
//!
//! A base module: uses nothing of the crate.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

/// The run folder, relative to the current folder.
pub const RUN_DIR: &str = "runs";

/// `runs/<name>`: the default place of a run file.
pub fn in_run_dir(name: impl AsRef<Path>) -> PathBuf {
    Path::new(RUN_DIR).join(name)
}

/// The folder `path` lies in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Refuses `path` (given as `flag`) when its folder holds parameter files (a
/// `schema.json` beside them, as in `params/`): the engine's build reads that folder.
pub fn refuse_params_folder(path: &Path, flag: &str) -> Result<()> {
    let dir = folder_of(path);
    if dir.join("schema.json").is_file() {
        bail!(
            "{flag} {}: {} holds parameter files, which the engine's build reads; write run files elsewhere (by default they go to {RUN_DIR}/)",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Locks the files a command writes, each given with the flag that named it, after
/// refusing any in a folder of parameter files.
pub fn lock_outputs<'a>(
    outputs: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Result<WriteLocks> {
    let outputs: Vec<(&Path, &str)> = outputs.into_iter().collect();
    for &(path, flag) in &outputs {
        refuse_params_folder(path, flag)?;
    }
    WriteLocks::acquire(&outputs.iter().map(|&(path, _)| path).collect::<Vec<_>>())
}

/// Creates the folder of a file about to be written (the run folder, say).
pub fn create_folder_of(path: &Path) -> Result<()> {
    let dir = folder_of(path);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// The locks a command holds on the files it writes; released when dropped (or when
/// the process ends, however it ends).
#[derive(Default)]
pub struct WriteLocks {
    /// (the locked file's key, the open lock file holding the lock)
    held: Vec<(PathBuf, File)>,
}

impl WriteLocks {
    /// Locks each of `paths` for writing, or fails at once with one line naming the
    /// file and the process that holds it. Paths may be given more than once.
    pub fn acquire<P: AsRef<Path>>(paths: &[P]) -> Result<WriteLocks> {
        let mut locks = WriteLocks::default();
        for path in paths {
            locks.add(path.as_ref())?;
        }
        Ok(locks)
    }

    /// Locks one more file (a file whose name is known only later). The run folder is
    /// created when the file goes there; any other folder must exist (a typo in a path
    /// is an error, not a new folder).
    pub fn add(&mut self, path: &Path) -> Result<()> {
        if folder_of(path) == Path::new(RUN_DIR) {
            create_folder_of(path)?;
        }
        let key = key_of(path)?;
        if self.held.iter().any(|(k, _)| *k == key) {
            return Ok(());
        }
        let sidecar = sidecar_of(&key);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&sidecar)
            .with_context(|| format!("cannot open the lock file {}", sidecar.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                bail!(
                    "{} is being written by another run ({}): wait for it to end or stop it first",
                    path.display(),
                    if holder.is_empty() {
                        "a process that has just started"
                    } else {
                        holder
                    }
                );
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", sidecar.display()));
            }
        }
        // Who holds it, for the message of a refused second writer.
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", holder_text()))
            .with_context(|| format!("cannot write the lock file {}", sidecar.display()))?;
        self.held.push((key, file));
        Ok(())
    }
}

/// The canonical path of a file that may not exist yet: its folder canonicalised, so
/// `params/eval.json` and `./params/../params/eval.json` lock the same file.
fn key_of(path: &Path) -> Result<PathBuf> {
    let dir = folder_of(path);
    let dir = dir.canonicalize().with_context(|| {
        format!(
            "cannot write {}: its folder {} does not exist",
            path.display(),
            dir.display()
        )
    })?;
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    Ok(dir.join(name))
}

/// `dir/name` → `dir/.name.lock`.
fn sidecar_of(key: &Path) -> PathBuf {
    let name = key.file_name().unwrap_or_default().to_string_lossy();
    folder_of(key).join(format!(".{name}.lock"))
}

/// `pid 4242 (tuner spsa params/search.json), since 2026-11-26 09:40:12 UTC`.
fn holder_text() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!(
        "pid {} (tuner {}), since {}",
        std::process::id(),
        args.join(" "),
        utc_text(now)
    )
}

/// Unix seconds as `YYYY-MM-DD hh:mm:ss UTC` (the proleptic Gregorian calendar, by
/// the days-to-civil conversion of Howard Hinnant's date algorithms).
fn utc_text(unix: u64) -> String {
    let (days, secs) = ((unix / 86_400) as i64, unix % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("occam-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = scratch("second");
        let file = dir.join("search.json");
        let first = WriteLocks::acquire(&[&file]).unwrap();
        // Another spelling of the same file is the same file.
        let other = dir
            .join("..")
            .join(dir.file_name().unwrap())
            .join("search.json");
        let err = WriteLocks::acquire(&[&other]).err().unwrap().to_string();
        assert!(err.contains("search.json"), "{err}");
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        let again = WriteLocks::acquire(&[&file, &file]).unwrap();
        assert_eq!(again.held.len(), 1);
        // The sidecar stays where it is; the file itself was never created.
        assert!(dir.join(".search.json.lock").exists());
        assert!(!file.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lock_holders_tell_the_time_in_utc() {
        assert_eq!(utc_text(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_text(951_827_696), "2000-02-29 12:34:56 UTC");
        assert_eq!(utc_text(1_795_685_431), "2026-11-26 09:30:31 UTC");
    }

    #[test]
    fn a_path_into_a_folder_of_parameter_files_is_refused() {
        let dir = scratch("params");
        std::fs::write(dir.join("schema.json"), "{}").unwrap();
        let err = refuse_params_folder(&dir.join("x.jsonl"), "--journal")
            .unwrap_err()
            .to_string();
        assert!(err.contains("--journal") && err.contains("runs/"), "{err}");
        std::fs::remove_file(dir.join("schema.json")).unwrap();
        refuse_params_folder(&dir.join("x.jsonl"), "--journal").unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
