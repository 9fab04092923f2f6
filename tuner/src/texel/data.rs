//! Reading and merging positions: datagen files and `FEN | result` text, each
//! position a datagen record with its split group, and equal positions merged into
//! one with the mean labels.

use std::path::Path;

use anyhow::{Context, Result, bail};
use occam::position::Position;
use rayon::prelude::*;

use crate::datagen_file::{self, RECORD};

/// Lines of a text file that form one split group (a game is ~70 positions).
const TEXT_GROUP_LINES: usize = 128;

/// One position as read: its record (see `datagen_file::pack_record`) and its split group.
pub struct Entry {
    pub rec: [u8; RECORD],
    pub group: u64,
}

/// The positions of one file: datagen's binary format by its magic bytes, else text.
pub fn read_file(path: &Path, file_index: u64) -> Result<Vec<Entry>> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read positions file {}", path.display()))?;
    if bytes.starts_with(datagen_file::MAGIC) {
        let mut records = Vec::new();
        let mut visit = |game: u64, recs: &[u8]| {
            for rec in recs.chunks_exact(RECORD) {
                records.push(Entry {
                    rec: rec.try_into().expect("32 bytes"),
                    group: (file_index << 40) ^ game,
                });
            }
        };
        let contents =
            datagen_file::scan(&mut std::io::Cursor::new(&bytes), path, Some(&mut visit))?;
        if contents.partial_tail > 0 {
            eprintln!(
                "texel: {}: {} complete games read, an unfinished one at the end skipped (a run still going or killed)",
                path.display(),
                contents.games
            );
        }
        // Records are checked when decoded; a bad one names the file here.
        if let Some((i, e)) = records
            .par_iter()
            .enumerate()
            .find_map_any(|(i, e)| datagen_file::unpack_record(&e.rec).err().map(|e| (i, e)))
        {
            bail!("{}: position record {i} is damaged: {e}", path.display());
        }
        return Ok(records);
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is neither a datagen file nor text (expected `FEN | result` lines or datagen's binary output)",
            path.display()
        )
    })?;
    let parsed = parse_positions(&text).with_context(|| path.display().to_string())?;
    parsed
        .into_par_iter()
        .map(|(line, pos, result)| {
            let rec =
                datagen_file::try_pack_record(&pos, (result * 2.0) as u8, None).map_err(|e| {
                    anyhow::anyhow!(
                        "{} line {}: cannot store the position: {e}",
                        path.display(),
                        line + 1
                    )
                })?;
            Ok(Entry {
                rec,
                group: (file_index << 40) ^ (line / TEXT_GROUP_LINES) as u64,
            })
        })
        .collect()
}

/// A distinct position with its merged label.
pub struct Merged {
    pub rec: [u8; RECORD],
    /// Mean game result (White's view).
    pub result: f32,
    /// Mean search score (cp, White's view) of the copies that have one; NaN if none.
    pub score: f32,
    pub group: u64,
}

/// Sorts by position (the record's position key, counters excluded) and merges equal
/// ones: mean result, mean score, the first copy's split group.
pub fn merge_duplicates(mut entries: Vec<Entry>) -> Vec<Merged> {
    fn key(e: &Entry) -> &[u8] {
        datagen_file::position_key(&e.rec)
    }
    entries.par_sort_by(|a, b| key(a).cmp(key(b)));
    let mut out: Vec<Merged> = Vec::with_capacity(entries.len());
    let mut i = 0;
    while i < entries.len() {
        let mut j = i;
        let (mut results, mut scores, mut scored) = (0.0f64, 0.0f64, 0u32);
        while j < entries.len() && key(&entries[j]) == key(&entries[i]) {
            let r = &entries[j].rec;
            results += f64::from(datagen_file::result_half_points(r)) / 2.0;
            if let Some(s) = datagen_file::score(r) {
                scores += f64::from(s);
                scored += 1;
            }
            j += 1;
        }
        let n = (j - i) as f64;
        out.push(Merged {
            rec: entries[i].rec,
            result: (results / n) as f32,
            score: if scored > 0 {
                (scores / f64::from(scored)) as f32
            } else {
                f32::NAN
            },
            group: entries[i].group,
        });
        i = j;
    }
    out
}

/// The position of a record already checked by `read_file`.
pub fn decode(rec: &[u8; RECORD]) -> Position {
    datagen_file::unpack_record(rec)
        .expect("records are checked when read")
        .position
}

/// Parses `FEN | result` / `FEN [result]` lines into (line index, position, result);
/// blank lines and `#` comments are skipped.
fn parse_positions(text: &str) -> Result<Vec<(usize, Position, f64)>> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if lines.is_empty() {
        bail!("no positions found");
    }
    let parsed: Result<Vec<_>> = lines
        .par_iter()
        .map(|&(n, line)| parse_line(line).map(|(p, r)| (n, p, r)).map_err(|why| {
            anyhow::anyhow!(
                "line {}: {why} (expected 'FEN | result' with result 1.0, 0.5 or 0.0 for White, or 'FEN [1.0]')",
                n + 1
            )
        }))
        .collect();
    parsed
}

fn parse_line(line: &str) -> Result<(Position, f64), String> {
    let (fen, result) = if let Some((fen, r)) = line.rsplit_once('|') {
        (fen, r.trim())
    } else if line.ends_with(']')
        && let Some(open) = line.rfind('[')
    {
        (&line[..open], line[open + 1..line.len() - 1].trim())
    } else {
        return Err("no result".into());
    };
    let result = match result.trim_matches('"') {
        "1.0" | "1" | "1-0" => 1.0,
        "0.5" | "1/2-1/2" | "1/2" => 0.5,
        "0.0" | "0" | "0-1" => 0.0,
        other => return Err(format!("unknown result '{other}'")),
    };
    let fen = fen.trim().trim_end_matches(';').trim();
    let pos = Position::from_fen(fen, false).map_err(|e| e.to_string())?;
    Ok((pos, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_in_both_styles_and_bad_lines_are_named() {
        let text = "# comment\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 1.0\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]\n\
            4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0-1\n";
        let p = parse_positions(text).unwrap();
        assert_eq!(
            p.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>(),
            vec![(1, 1.0), (2, 0.5), (3, 0.0)]
        );
        let err = parse_positions("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 2.0\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 1") && err.contains("'2.0'"), "{err}");
        let err = parse_positions("\nnot a fen | 1.0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(parse_positions("# only a comment\n").is_err());
    }
}
