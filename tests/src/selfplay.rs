//! A minimal UCI game runner for sanity tests: one game between two engine processes
//! with a real clock, every move checked with shakmaty (independently of the engine's
//! own move generation).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Position};

use crate::Engine;

/// Base time and increment per side, in milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct TimeControl {
    pub base_ms: u64,
    pub inc_ms: u64,
}

/// How a finished game ended.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    pub reason: &'static str,
    /// Every move of the game in UCI notation, the opening included.
    pub moves: Vec<String>,
}

/// Plays one game from the start position after `opening` (UCI moves). `grace_ms` is
/// the lag tolerated beyond a side's clock before it counts as a time forfeit (the
/// measured time includes process scheduling and pipes on a shared machine);
/// `max_plies` adjudicates overly long games as draws. An `Err` names the fault:
/// an illegal or malformed `bestmove`, a time forfeit, or no reply at all.
pub fn play_game(
    white: &mut Engine,
    black: &mut Engine,
    opening: &[&str],
    tc: TimeControl,
    grace_ms: u64,
    max_plies: usize,
) -> Result<GameResult, String> {
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
    for text in opening {
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(|| format!("opening move {text} is illegal"))?;
        pos.play_unchecked(m);
        moves.push(text.to_string());
    }
    *seen.entry(key(&pos)).or_default() += 1;
    for engine in [&mut *white, &mut *black] {
        engine.send("ucinewgame");
        engine.sync();
    }
    let mut clock = [tc.base_ms as i64, tc.base_ms as i64];
    loop {
        if pos.is_checkmate() {
            let result = if pos.turn() == Color::White {
                "0-1"
            } else {
                "1-0"
            };
            return Ok(finished(result, "checkmate", moves));
        }
        if pos.is_stalemate() {
            return Ok(finished("1/2-1/2", "stalemate", moves));
        }
        if pos.is_insufficient_material() {
            return Ok(finished("1/2-1/2", "insufficient material", moves));
        }
        if pos.halfmoves() >= 100 {
            return Ok(finished("1/2-1/2", "fifty-move rule", moves));
        }
        if seen.get(&key(&pos)).copied().unwrap_or(0) >= 3 {
            return Ok(finished("1/2-1/2", "threefold repetition", moves));
        }
        if moves.len() >= max_plies {
            return Ok(finished("1/2-1/2", "adjudicated: move limit", moves));
        }

        let side = pos.turn();
        let idx = if side == Color::White { 0 } else { 1 };
        let engine = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        let go = format!(
            "go wtime {} btime {} winc {} binc {}",
            clock[0].max(0),
            clock[1].max(0),
            tc.inc_ms,
            tc.inc_ms
        );
        engine.send(&go);
        let start = Instant::now();
        let allowed = Duration::from_millis(clock[idx].max(0) as u64 + grace_ms + 5_000);
        let lines = engine
            .try_read_until(allowed, |l| l.starts_with("bestmove"))
            .map_err(|e| format!("{side:?} gave no bestmove after {moves:?} ({go}): {e}"))?;
        let used = start.elapsed().as_millis() as i64;
        if used > clock[idx] + grace_ms as i64 {
            return Err(format!(
                "{side:?} forfeits on time: used {used} ms with {} ms left (+{grace_ms} ms grace) after {moves:?}",
                clock[idx]
            ));
        }
        clock[idx] = (clock[idx] - used).max(0) + tc.inc_ms as i64;

        let last = lines.last().expect("read_until returns the matching line");
        let text = last.split_whitespace().nth(1).unwrap_or("");
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(|| {
                format!(
                    "{side:?} played the illegal move '{text}' ({last}) in {} after {moves:?}",
                    shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal)
                )
            })?;
        pos.play_unchecked(m);
        moves.push(text.to_string());
        *seen.entry(key(&pos)).or_default() += 1;
    }
}

fn finished(result: &'static str, reason: &'static str, moves: Vec<String>) -> GameResult {
    GameResult {
        result,
        reason,
        moves,
    }
}
