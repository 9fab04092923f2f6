//! Syzygy endgame tablebases, read through the `shakmaty-syzygy` crate.
//!
//! A [`Tablebases`] is opened once from a `SyzygyPath` value and then only read, so
//! one `Arc<Tablebases>` serves every search thread and every game. Three uses:
//!
//! - **Root** ([`Tablebases::root_probe`]): when the root has at most
//!   `SyzygyProbeLimit` pieces, DTZ tables rank every legal move by the result it
//!   keeps under the fifty-move rule (given the root's half-move clock) and the move
//!   played is the fastest way to that result: the search is not run at all.
//! - **Search** ([`Tablebases::probe_wdl`]): right after a capture or pawn move (the
//!   only moment WDL tables are exact, the half-move clock being zero) a WDL probe
//!   gives the node an exact score or a bound ([`tb_score`]).
//! - **Adjudication** ([`Tablebases::adjudicate`]): the game result under the
//!   fifty-move rule, used by `tuner match --syzygy`.
//!
//! Probe errors (a table missing for some material, a corrupt block) are not
//! errors of the engine: the position is simply searched as without tables.
//!
//! The files: this one (the tables, their settings and the scoring rules), `tests.rs`
//! and the positions it shares with the binary's tests (`textbook_endings.rs`). The
//! search's two probes live in the search, `search/tablebase.rs`.
//!
//! Of the engine it uses `score` alone (the tablebase-win band), so that the search
//! and the shell, which use it, stay above it.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Move, Position as _};
/// Win/draw/loss as the tables see it, re-exported so callers need no dependency.
pub use shakmaty_syzygy::Wdl;
use shakmaty_syzygy::{Syzygy, Tablebase};

use crate::score::{MATE, MAX_PLY};
/// The tablebase-win score band, re-exported where its users looked for it first.
pub use crate::score::{TB_WIN, TB_WIN_BOUND};

/// Separator of the directories in a `SyzygyPath` value (`:` on Unix, `;` on Windows).
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The `SyzygyPath` value that means "no tables" (Stockfish's convention), besides "".
pub const EMPTY_PATH: &str = "<empty>";

/// Largest `SyzygyProbeLimit`: Syzygy tables exist for up to 7 pieces.
pub const MAX_PROBE_LIMIT: u32 = Chess::MAX_PIECES as u32;

/// How the search uses the tables (the `SyzygyProbeDepth`, `SyzygyProbeLimit` and
/// `Syzygy50MoveRule` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeSettings {
    /// Least remaining depth at which the search probes a position with exactly
    /// `limit` pieces (fewer pieces are probed at any depth).
    pub depth: i32,
    /// Most pieces (kings included) a probed position may have; 0 disables probing.
    pub limit: u32,
    /// Score wins and losses the fifty-move rule turns into draws as draws.
    pub rule50: bool,
}

impl Default for ProbeSettings {
    fn default() -> Self {
        ProbeSettings {
            depth: 1,
            limit: MAX_PROBE_LIMIT,
            rule50: true,
        }
    }
}

/// The tables of one `SyzygyPath`, opened lazily file by file as probes need them.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    dirs: Vec<PathBuf>,
    files: usize,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases")
            .field("dirs", &self.dirs)
            .field("files", &self.files)
            .field("max_pieces", &self.max_pieces())
            .finish_non_exhaustive()
    }
}

/// The outcome of the root probe: the move to play and what it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProbe {
    pub best_move: Move,
    /// The result the move keeps, from the side to move's view, with the fifty-move
    /// rule applied to the root's half-move clock when the settings ask for it.
    pub wdl: Wdl,
    /// Plies to the next capture or pawn move (or mate) on the tablebase line,
    /// this move included; negative when losing, 0 when drawn.
    pub dtz: i32,
    /// Every legal move that keeps `wdl`.
    pub keeping: Vec<Move>,
    /// Number of table probes made.
    pub probes: u64,
    /// `best_move` mates.
    pub mates: bool,
}

impl Tablebases {
    /// Opens the tables of a `SyzygyPath` value: one or more directories separated by
    /// [`PATH_SEPARATOR`]. `Ok(None)` for an empty value or `<empty>`. Every
    /// directory must exist, be readable and hold at least one table, and every
    /// `*.rtbw`/`*.rtbz` file must be readable and start with the Syzygy header;
    /// otherwise the error names what is wrong (and nothing is opened).
    pub fn open(value: &str) -> Result<Option<Tablebases>, String> {
        let value = value.trim();
        if value.is_empty() || value == EMPTY_PATH {
            return Ok(None);
        }
        let dirs: Vec<PathBuf> = value
            .split(PATH_SEPARATOR)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .collect();
        if dirs.is_empty() {
            return Err(format!(
                "'{value}' names no directory (expected directories separated by '{PATH_SEPARATOR}', or {EMPTY_PATH} for none)"
            ));
        }
        let mut tables = Tablebase::new();
        let mut files = 0;
        for dir in &dirs {
            files += add_directory(&mut tables, dir)?;
        }
        Ok(Some(Tablebases {
            tables,
            dirs,
            files,
        }))
    }

    /// Number of table files (WDL and DTZ) found.
    pub fn files(&self) -> usize {
        self.files
    }

    /// Most pieces of any table found.
    pub fn max_pieces(&self) -> u32 {
        self.tables.max_pieces() as u32
    }

    /// One line for the user: what was found where.
    pub fn summary(&self) -> String {
        format!(
            "{} Syzygy table files (up to {} pieces) in {}",
            self.files,
            self.max_pieces(),
            self.dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(&PATH_SEPARATOR.to_string())
        )
    }

    /// Most pieces a probe may see under `limit` (`SyzygyProbeLimit`).
    pub fn cardinality(&self, limit: u32) -> u32 {
        self.max_pieces().min(limit)
    }

    /// WDL of a position reached by a capture or pawn move (half-move clock zero),
    /// from the side to move's view; `None` when the tables cannot tell (castling
    /// rights, too many pieces, a table missing or unreadable).
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        if pos.castles().any() {
            return None;
        }
        self.tables.probe_wdl_after_zeroing(pos).ok()
    }

    /// The game result under the fifty-move rule, from the side to move's view,
    /// considering the half-move clock: a cursed win or blessed loss is a draw.
    /// `None` when the tables cannot tell (or, on a non-zero clock, the DTZ value is
    /// too close to the fifty-move boundary to be sure).
    pub fn adjudicate(&self, pos: &Chess) -> Option<Wdl> {
        if pos.castles().any() || pos.board().occupied().count() as u32 > self.max_pieces() {
            return None;
        }
        let wdl = if pos.halfmoves() == 0 {
            self.tables.probe_wdl_after_zeroing(pos).ok()?
        } else {
            self.tables.probe_wdl(pos).ok()?.unambiguous()?
        };
        Some(match wdl {
            Wdl::CursedWin | Wdl::BlessedLoss => Wdl::Draw,
            other => other,
        })
    }

    /// DTZ ranking of the root's moves (see the module documentation). `None` when
    /// the root has castling rights or more than `settings.limit` pieces, no legal
    /// move, or a probe fails (a DTZ table is missing): then the search decides.
    pub fn root_probe(&self, pos: &Chess, settings: &ProbeSettings) -> Option<RootProbe> {
        let pieces = pos.board().occupied().count() as u32;
        if pos.castles().any() || pieces > self.cardinality(settings.limit) {
            return None;
        }
        let clock = pos.halfmoves() as i32;
        let mut probes = 0;
        let mut ranked = Vec::new();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let dtz = if child.is_checkmate() {
                1
            } else if child.legal_moves().is_empty() {
                0
            } else if m.is_zeroing() {
                // Right after a capture or pawn move the WDL table is exact.
                probes += 1;
                dtz_before_zeroing(-self.tables.probe_wdl_after_zeroing(&child).ok()?)
            } else {
                probes += 1;
                let child_dtz = self.tables.probe_dtz(&child).ok()?;
                let d = -child_dtz.ignore_rounding().0;
                // This move adds a ply; a rounded value may be one ply short, which
                // matters only when winning (the fifty-move test must be safe).
                let rounding = i32::from(child_dtz.precise().is_none() && d > 0);
                d + d.signum() * (1 + rounding)
            };
            ranked.push((m, dtz, result_of(dtz, clock, settings.rule50)));
        }
        let wdl = ranked.iter().map(|&(_, _, r)| r).max()?;
        let keeping: Vec<Move> = ranked
            .iter()
            .filter(|&&(_, _, r)| r == wdl)
            .map(|&(m, _, _)| m)
            .collect();
        // Winning: the fewest plies to the next zeroing move (progress the fifty-move
        // rule cannot undo); losing: the most; drawn: the first drawing move. With
        // negative DTZ for losses that is the least DTZ in every case.
        let &(best_move, dtz, _) = ranked
            .iter()
            .filter(|&&(_, _, r)| r == wdl)
            .min_by_key(|&&(_, d, _)| d)?;
        let mut child = pos.clone();
        child.play_unchecked(best_move);
        let mates = child.is_checkmate();
        Some(RootProbe {
            best_move,
            wdl,
            dtz,
            keeping,
            probes,
            mates,
        })
    }
}

/// DTZ of a position whose best move is a capture or pawn move with outcome `wdl`.
fn dtz_before_zeroing(wdl: Wdl) -> i32 {
    match wdl {
        Wdl::Loss => -1,
        Wdl::BlessedLoss => -101,
        Wdl::Draw => 0,
        Wdl::CursedWin => 101,
        Wdl::Win => 1,
    }
}

/// The result of a root move with `dtz` plies to zeroing (sign: who wins) when the
/// root's half-move clock is `clock`: the game is drawn by the fifty-move rule when
/// a hundred half-moves pass without a capture or pawn move (a mate on the hundredth
/// still counts), so the win holds when `|dtz| + clock <= 100`.
fn result_of(dtz: i32, clock: i32, rule50: bool) -> Wdl {
    let in_time = dtz.abs() + clock <= 100;
    match dtz.signum() {
        0 => Wdl::Draw,
        1 if in_time || !rule50 => Wdl::Win,
        1 => Wdl::CursedWin,
        _ if in_time || !rule50 => Wdl::Loss,
        _ => Wdl::BlessedLoss,
    }
}

/// Search score of a WDL probed `ply` plies from the root, from the side to move's
/// view. Under the fifty-move rule a cursed win scores just above a draw and a
/// blessed loss just below (Stockfish's convention), so the search still prefers
/// the side with chances.
pub fn tb_score(wdl: Wdl, ply: usize, rule50: bool) -> i32 {
    let ply = ply as i32;
    match wdl {
        Wdl::Win => TB_WIN - ply,
        Wdl::CursedWin if !rule50 => TB_WIN - ply,
        Wdl::CursedWin => 1,
        Wdl::Draw => 0,
        Wdl::BlessedLoss if !rule50 => -TB_WIN + ply,
        Wdl::BlessedLoss => -1,
        Wdl::Loss => -TB_WIN + ply,
    }
}

/// Score of the root probe's result: a mate in one is a mate, any other win
/// [`TB_WIN`] less the plies to zeroing (at most [`MAX_PLY`]), so a GUI sees the
/// progress; a loss the negative of that.
pub fn root_score(probe: &RootProbe, rule50: bool) -> i32 {
    if probe.mates {
        return MATE - 1;
    }
    let distance = (probe.dtz.unsigned_abs() as usize).min(MAX_PLY);
    tb_score(probe.wdl, distance, rule50)
}

/// Adds every table file of `dir` to `tables`; returns how many.
fn add_directory(tables: &mut Tablebase<Chess>, dir: &Path) -> Result<usize, String> {
    let shown = dir.display();
    let entries = std::fs::read_dir(dir).map_err(|e| {
        if dir.exists() && !dir.is_dir() {
            format!("Syzygy path entry '{shown}' is not a directory")
        } else {
            format!("cannot read Syzygy directory '{shown}': {e}")
        }
    })?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list Syzygy directory '{shown}': {e}"))?;
        paths.push(entry.path());
    }
    paths.sort();
    let mut added = 0;
    for path in paths {
        let magic = match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext == Chess::TBW.ext => Chess::TBW.magic,
            Some(ext) if ext == Chess::TBZ.ext => Chess::TBZ.magic,
            _ => continue,
        };
        check_header(&path, magic)?;
        match tables.add_file(&path) {
            Ok(()) => added += 1,
            // A name that is no material signature (e.g. `notes.rtbw`): not a table.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {}
            Err(e) => {
                return Err(format!(
                    "Syzygy table '{}' is unusable: {e}",
                    path.display()
                ));
            }
        }
    }
    if added == 0 {
        return Err(format!(
            "Syzygy directory '{shown}' holds no Syzygy tables (*.{}, *.{})",
            Chess::TBW.ext,
            Chess::TBZ.ext
        ));
    }
    Ok(added)
}

/// A table file must be readable now and start with its magic bytes: a broken file
/// is reported when the path is set, not silently skipped in the middle of a game.
fn check_header(path: &Path, magic: [u8; 4]) -> Result<(), String> {
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .map_err(|e| format!("cannot read Syzygy table '{}': {e}", path.display()))?;
    if head != magic {
        return Err(format!(
            "'{}' is not a Syzygy table (its header is not the {} magic)",
            path.display(),
            path.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod textbook_endings;
