//! The datagen file: labelled positions grouped by game, which `tuner datagen` writes
//! and `tuner texel` reads (docs/texel.md, "File format").
//!
//! All little-endian, in 32-byte units so a damaged file is easy to inspect:
//! - header: `MAGIC`, u32 format version, u32 length of the settings text, 16 zero
//!   bytes; then the settings text (UTF-8), zero-padded to a multiple of 32. The text
//!   names everything a game depends on, so a resumed run cannot mix settings.
//! - per game, in game order: a block header (`GAME`, u64 game index, u32 number of
//!   positions, u8 result as White's half points 0/1/2, u16 plies, zeros), then its
//!   positions, one 32-byte record each (see `pack_record`).
//!
//! A million positions take 32.5 MB (with ~70 positions a game); the older
//! `FEN | result` text takes 56 MB for the same positions and has no score.
//!
//! In the commands' layer as the file two commands share (`datagen` writes it, `texel`
//! reads it): it uses nothing of the crate, only the engine's `Position`.

use std::io::{Read, Seek, SeekFrom};
use std::num::NonZeroU32;
use std::path::Path;

use anyhow::{Result, bail};
use occam::position::Position;
use shakmaty::packed::PackedSetup;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position as _};

/// First 8 bytes of a datagen file.
pub const MAGIC: &[u8; 8] = b"OCCAMDG\x1a";
/// Format version written after the magic.
const VERSION: u32 = 1;
/// Size of every record (header unit, game header, position).
pub const RECORD: usize = 32;
/// Marks a game's block header.
const GAME_MARK: &[u8; 4] = b"GAME";
/// Score field of a position whose move had no score.
const NO_SCORE: i16 = i16::MIN;
/// Scores are clipped to this (cp) when stored; mates are never stored.
const SCORE_CLIP: i32 = 20_000;

/// Label of a position: the game result and the search score, White's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    pub position: Position,
    /// 1.0 White won, 0.5 draw, 0.0 Black won.
    pub result: f64,
    /// Score of the move played here (cp, White's view), when there was one.
    pub score: Option<i32>,
}

/// One position record, 32 bytes:
/// - 0..24: the board, side to move, castling rights and legal en passant square in
///   shakmaty's stable `PackedSetup` encoding without move counters (at most 24
///   bytes for legal positions), zero-padded. Equal positions have equal bytes, so
///   these bytes are also the duplicate key.
/// - 24: result, White's half points (0, 1, 2).
/// - 25: half-move clock (saturated at 255).
/// - 26..28: i16 search score, cp, White's view (`i16::MIN`: none).
/// - 28..30: u16 full-move number (saturated).
/// - 30..32: zero.
pub fn pack_record(pos: &Position, result_half_points: u8, score: Option<i32>) -> [u8; RECORD] {
    try_pack_record(pos, result_half_points, score).expect("a legal position packs losslessly")
}

/// [`pack_record`] for positions from outside (a FEN file): an error when the
/// position cannot be packed losslessly.
pub fn try_pack_record(
    pos: &Position,
    result_half_points: u8,
    score: Option<i32>,
) -> Result<[u8; RECORD], String> {
    let setup = pos.board().to_setup(EnPassantMode::Legal);
    let packed = PackedSetup::pack_standard_normalized(&setup).map_err(|e| e.to_string())?;
    let bytes = packed.as_bytes();
    if bytes.len() > 24 {
        return Err(format!("packs into {} bytes, more than 24", bytes.len()));
    }
    let mut rec = [0u8; RECORD];
    rec[..bytes.len()].copy_from_slice(bytes);
    rec[24] = result_half_points;
    rec[25] = pos.halfmoves().min(255) as u8;
    let score = score.map_or(NO_SCORE, |s| s.clamp(-SCORE_CLIP, SCORE_CLIP) as i16);
    rec[26..28].copy_from_slice(&score.to_le_bytes());
    let fullmoves = pos.board().fullmoves().get().min(u32::from(u16::MAX)) as u16;
    rec[28..30].copy_from_slice(&fullmoves.to_le_bytes());
    Ok(rec)
}

/// The bytes of a record that name its position (see [`pack_record`]): equal
/// positions, counters aside, have equal keys.
pub fn position_key(rec: &[u8; RECORD]) -> &[u8] {
    &rec[..24]
}

/// A record's game result as White's half points (0, 1, 2), unchecked.
pub fn result_half_points(rec: &[u8; RECORD]) -> u8 {
    rec[24]
}

/// A record's search score (cp, White's view), when it has one.
pub fn score(rec: &[u8; RECORD]) -> Option<i32> {
    let score = i16::from_le_bytes([rec[26], rec[27]]);
    (score != NO_SCORE).then_some(i32::from(score))
}

/// Reads a position record back (see [`pack_record`]).
pub fn unpack_record(rec: &[u8]) -> Result<Labelled, String> {
    if rec.len() != RECORD {
        return Err(format!("a record is {RECORD} bytes, got {}", rec.len()));
    }
    let packed = PackedSetup::try_from_bytes(&rec[..24]).map_err(|e| e.to_string())?;
    let mut setup = packed
        .unpack_standard()
        .map_err(|_| "position bytes do not decode".to_string())?;
    setup.halfmoves = u32::from(rec[25]);
    setup.fullmoves = NonZeroU32::new(u32::from(u16::from_le_bytes([rec[28], rec[29]])))
        .unwrap_or(NonZeroU32::MIN);
    let board = match Chess::from_setup(setup.clone(), CastlingMode::Standard) {
        Ok(board) => board,
        Err(_) => Chess::from_setup(setup, CastlingMode::Chess960)
            .map_err(|e| format!("illegal position: {e}"))?,
    };
    let result = match rec[24] {
        0 => 0.0,
        1 => 0.5,
        2 => 1.0,
        r => return Err(format!("result byte {r} is not 0, 1 or 2")),
    };
    Ok(Labelled {
        position: Position::from_chess(board),
        result,
        score: score(rec.try_into().expect("RECORD bytes")),
    })
}

/// A game's block: its header record (index, number of positions, result as White's
/// half points, plies played), then one record per position with its score (White's
/// view).
pub fn game_block(
    index: u64,
    result_half_points: u8,
    plies: usize,
    positions: &[(Position, i32)],
) -> Vec<u8> {
    let mut block = Vec::with_capacity(RECORD * (positions.len() + 1));
    let mut head = [0u8; RECORD];
    head[..4].copy_from_slice(GAME_MARK);
    head[4..12].copy_from_slice(&index.to_le_bytes());
    head[12..16].copy_from_slice(&(positions.len() as u32).to_le_bytes());
    head[16] = result_half_points;
    let plies = plies.min(usize::from(u16::MAX)) as u16;
    head[17..19].copy_from_slice(&plies.to_le_bytes());
    block.extend_from_slice(&head);
    for (pos, score) in positions {
        block.extend_from_slice(&pack_record(pos, result_half_points, Some(*score)));
    }
    block
}

/// The header bytes for `settings`.
pub fn header(settings: &str) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&(settings.len() as u32).to_le_bytes());
    h.resize(RECORD, 0);
    h.extend_from_slice(settings.as_bytes());
    h.resize(h.len().div_ceil(RECORD) * RECORD, 0);
    h
}

/// What a datagen file holds, from its bytes.
pub struct Contents {
    pub settings: String,
    /// Complete games.
    pub games: u64,
    /// Positions of the complete games.
    pub positions: u64,
    /// Byte length of the header and the complete games.
    pub complete_len: u64,
    /// Bytes after the last complete game (an interrupted write).
    pub partial_tail: u64,
}

/// Called with each complete game's index and position records.
pub type GameVisitor<'a> = dyn FnMut(u64, &[u8]) + 'a;

/// Reads the header and walks the game blocks of a datagen file. `visit` gets each
/// complete game's index and position records. An unfinished block at the end is
/// reported in `partial_tail`, anything else that does not fit the format is an error.
pub fn scan<R: Read + Seek>(
    reader: &mut R,
    path: &Path,
    mut visit: Option<&mut GameVisitor>,
) -> Result<Contents> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let mut head = [0u8; RECORD];
    let not_ours = |what: &str| {
        anyhow::anyhow!(
            "{} is not a datagen file of this tuner ({what}); datagen writes and continues only its own binary files",
            path.display()
        )
    };
    if len < RECORD as u64 {
        return Err(not_ours("too short for the header"));
    }
    reader.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        let text = head
            .iter()
            .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
        return Err(not_ours(if text {
            "it is text, e.g. the older `FEN | result` lines"
        } else {
            "unknown first bytes"
        }));
    }
    let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        bail!(
            "{} is datagen format version {version}; this tuner reads version {VERSION}",
            path.display()
        );
    }
    let text_len = u64::from(u32::from_le_bytes(
        head[12..16].try_into().expect("4 bytes"),
    ));
    let text_units = text_len.div_ceil(RECORD as u64) * RECORD as u64;
    if RECORD as u64 + text_units > len || text_len > 1 << 16 {
        return Err(not_ours("damaged header"));
    }
    let mut text = vec![0u8; text_len as usize];
    reader.read_exact(&mut text)?;
    let settings = String::from_utf8(text).map_err(|_| not_ours("damaged header"))?;
    let mut offset = RECORD as u64 + text_units;
    reader.seek(SeekFrom::Start(offset))?;
    let (mut games, mut positions) = (0u64, 0u64);
    let mut buf = Vec::new();
    loop {
        if len - offset < RECORD as u64 {
            break;
        }
        let mut block = [0u8; RECORD];
        reader.read_exact(&mut block)?;
        let index = u64::from_le_bytes(block[4..12].try_into().expect("8 bytes"));
        if &block[..4] != GAME_MARK || index != games || block[16] > 2 {
            bail!(
                "{} is damaged at byte {offset}: expected the header of game {games} there; nothing was changed",
                path.display()
            );
        }
        let count = u64::from(u32::from_le_bytes(
            block[12..16].try_into().expect("4 bytes"),
        ));
        let size = RECORD as u64 * (count + 1);
        if len - offset < size {
            break;
        }
        match visit.as_deref_mut() {
            Some(f) => {
                buf.resize(size as usize - RECORD, 0);
                reader.read_exact(&mut buf)?;
                f(index, &buf);
            }
            None => {
                reader.seek(SeekFrom::Current(size as i64 - RECORD as i64))?;
            }
        }
        offset += size;
        games += 1;
        positions += count;
    }
    Ok(Contents {
        settings,
        games,
        positions,
        complete_len: offset,
        partial_tail: len - offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_with_castling_en_passant_counters_and_scores() {
        for (fen, result, score) in [
            (occam::position::START_FEN, 2u8, Some(35)),
            // Legal en passant (d5 pawn can take e6), castling rights on one side.
            (
                "r3k2r/pppp1ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w Kq e6 0 12",
                1,
                Some(-20_000),
            ),
            ("8/5pk1/6p1/8/3B4/6P1/5PK1/2b5 b - - 37 140", 0, None),
        ] {
            let pos = Position::from_fen(fen, false).unwrap();
            let rec = pack_record(&pos, result, score);
            let back = unpack_record(&rec).unwrap();
            assert_eq!(back.position.fen(), pos.fen(), "{fen}");
            assert_eq!(back.result, f64::from(result) / 2.0);
            assert_eq!(back.score, score);
        }
        // Mates are never stored; large scores are clipped.
        let pos = Position::startpos();
        let back = unpack_record(&pack_record(&pos, 1, Some(99_999))).unwrap();
        assert_eq!(back.score, Some(SCORE_CLIP));
        let mut bad = pack_record(&pos, 1, None);
        bad[24] = 7;
        assert!(unpack_record(&bad).unwrap_err().contains("result"));
    }
}
