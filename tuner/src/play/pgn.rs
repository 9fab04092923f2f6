//! PGN in and out: game records written with their tags (parameter values, results)
//! and opening books read from PGN movetext. Moves always go through the engine's
//! own [`Game`], so what is read is checked by the same rules the games use.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use occam::position::{Game, Position, START_FEN};
use occam::search::Score;
use shakmaty::san::{San, SanPlus};

use crate::play::game::GameRecord;

/// The PGN text of one game. `tags` come after the seven-tag roster (e.g. the
/// parameter values each side played with).
pub fn render(record: &GameRecord, round: &str, tags: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| {
        out.push_str(&format!(
            "[{k} \"{}\"]\n",
            v.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    };
    tag("Event", "Occam tuner");
    tag("Site", "in-process");
    tag("Date", "????.??.??");
    tag("Round", round);
    tag("White", &record.white);
    tag("Black", &record.black);
    tag("Result", record.outcome.pgn());
    let start_fen = record.start.fen();
    if start_fen != START_FEN {
        tag("SetUp", "1");
        tag("FEN", &start_fen);
    }
    tag("Termination", &record.reason);
    tag("PlyCount", &record.moves.len().to_string());
    for (k, v) in tags {
        tag(k, v);
    }
    out.push('\n');

    let mut pos = record.start.board().clone();
    let mut line = String::new();
    let flush = |line: &mut String, out: &mut String, token: &str| {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    };
    for (i, &m) in record.moves.iter().enumerate() {
        use shakmaty::Position as _;
        let number = pos.fullmoves().get();
        if pos.turn().is_white() {
            flush(&mut line, &mut out, &format!("{number}."));
        } else if i == 0 {
            flush(&mut line, &mut out, &format!("{number}..."));
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        flush(&mut line, &mut out, &san.to_string());
        if i + 1 == record.opening_plies {
            flush(&mut line, &mut out, "{end of opening}");
        }
        if let Some(comment) = i
            .checked_sub(record.opening_plies)
            .and_then(|k| move_comment(record, k))
        {
            flush(&mut line, &mut out, &comment);
        }
    }
    flush(&mut line, &mut out, record.outcome.pgn());
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// The comment after the `k`th move past the opening, as cutechess writes it: the
/// mover's score in pawns (`+M3`/`-M3` for mates) and the time the move took, e.g.
/// `{+0.35 0.231s}`. `None` when the record has neither.
fn move_comment(record: &GameRecord, k: usize) -> Option<String> {
    let score = record.scores.get(k).copied().flatten().map(|s| match s {
        Score::Cp(cp) => format!(
            "{}{:.2}",
            if cp < 0 { "-" } else { "+" },
            f64::from(cp.abs()) / 100.0
        ),
        Score::Mate(n) => format!("{}M{}", if n < 0 { "-" } else { "+" }, n.abs()),
    });
    let time = record
        .move_ms
        .get(k)
        .map(|&ms| format!("{:.3}s", ms as f64 / 1000.0));
    let parts: Vec<String> = score.into_iter().chain(time).collect();
    (!parts.is_empty()).then(|| format!("{{{}}}", parts.join(" ")))
}

/// Appends games to a PGN file from several worker threads.
pub struct PgnWriter {
    path: PathBuf,
    file: Mutex<File>,
}

impl PgnWriter {
    /// Opens `path` for appending (created if missing).
    pub fn append(path: &Path) -> Result<PgnWriter> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open PGN file {}", path.display()))?;
        Ok(PgnWriter {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Writes one game (a whole game per write, so games never interleave).
    pub fn write(&self, pgn: &str) -> Result<()> {
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        f.write_all(pgn.as_bytes())
            .with_context(|| format!("cannot write to {}", self.path.display()))
    }
}

/// The games of a PGN text as [`Game`]s (start position from a `FEN` tag, or the
/// standard one, plus the mainline moves). Comments, variations, NAGs, move numbers
/// and results are skipped. Errors name the line.
pub fn parse_games(text: &str, chess960: bool) -> Result<Vec<Game>> {
    let mut games = Vec::new();
    let mut current: Option<Game> = None;
    let mut fen_tag: Option<String> = None;
    let mut in_movetext = false;
    let mut comment_depth = 0usize; // inside { ... }
    let mut variation_depth = 0usize; // inside ( ... )
    for (number, raw) in text.lines().enumerate() {
        let line_no = number + 1;
        let line = raw.trim();
        if comment_depth == 0 && variation_depth == 0 && line.starts_with('[') {
            if in_movetext {
                games.extend(current.take());
                in_movetext = false;
                fen_tag = None;
            }
            if let Some(rest) = line.strip_prefix("[FEN ") {
                let value = rest.trim_end_matches(']').trim().trim_matches('"');
                fen_tag = Some(value.to_string());
            }
            continue;
        }
        if line.starts_with('%') {
            continue;
        }
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if comment_depth > 0 {
                if c == '}' {
                    comment_depth = 0;
                }
                continue;
            }
            match c {
                '{' => comment_depth = 1,
                ';' => break,
                '(' => variation_depth += 1,
                ')' => variation_depth = variation_depth.saturating_sub(1),
                c if c.is_whitespace() => {}
                _ => {
                    let mut end = line.len();
                    while let Some(&(j, d)) = chars.peek() {
                        if d.is_whitespace() || "{}();".contains(d) {
                            end = j;
                            break;
                        }
                        chars.next();
                    }
                    let token = &line[i..end];
                    if variation_depth > 0 {
                        continue;
                    }
                    if !in_movetext {
                        in_movetext = true;
                        let start = match &fen_tag {
                            Some(fen) => Position::from_fen(fen, chess960)
                                .with_context(|| format!("line {line_no}: FEN tag"))?,
                            None => Position::startpos(),
                        };
                        current = Some(Game::new(start));
                    }
                    if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
                        games.extend(current.take());
                        in_movetext = false;
                        fen_tag = None;
                        continue;
                    }
                    let token = token.trim_start_matches(|c: char| c.is_ascii_digit());
                    let token = token.trim_start_matches('.');
                    if token.is_empty() || token.starts_with('$') {
                        continue;
                    }
                    let san_text = token.trim_end_matches(['!', '?']);
                    let game = current.as_mut().expect("movetext has a game");
                    let san: San = match san_text.parse::<SanPlus>() {
                        Ok(s) => s.san,
                        Err(_) => bail!("line {line_no}: '{token}' is not a move in SAN"),
                    };
                    let m = san.to_move(game.position.board()).map_err(|_| {
                        anyhow::anyhow!(
                            "line {line_no}: '{token}' is not legal in {}",
                            game.position.fen()
                        )
                    })?;
                    game.play(m);
                }
            }
        }
    }
    games.extend(current.take());
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::game::{GameRecord, Outcome};

    #[test]
    fn written_games_read_back_identically() {
        let mut game = Game::new(Position::startpos());
        for m in ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7", "e1g1"] {
            game.play_uci(m).unwrap();
        }
        let record = GameRecord {
            white: "theta+".into(),
            black: "theta-".into(),
            start: game.start.clone(),
            moves: game.moves.clone(),
            opening_plies: 2,
            scores: vec![
                Some(Score::Cp(35)),
                Some(Score::Cp(-4)),
                None,
                None,
                Some(Score::Mate(-3)),
            ],
            outcome: Outcome::Draw,
            reason: "adjudication: draw".into(),
            fault: None,
            move_ms: vec![231, 1005, 40],
            clock_left_ms: None,
        };
        let text = render(&record, "3.1", &[("razor_base".into(), "250".into())]);
        assert!(text.contains("[razor_base \"250\"]"), "{text}");
        let movetext: String = text
            .split("\n\n")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            movetext,
            "1. e4 c5 {end of opening} 2. Nf3 {+0.35 0.231s} d6 {-0.04 1.005s} 3. Bb5+ {0.040s} Bd7 4. O-O {-M3} 1/2-1/2"
        );
        let parsed = parse_games(&format!("{text}{text}"), false).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].moves, game.moves);
        assert_eq!(parsed[1].position, game.position);
    }

    #[test]
    fn books_with_fen_tags_comments_and_variations() {
        let text = "[Event \"x\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 {a comment (with parens)} Kd7 (1... Kf7 2. e5) 2. Kd2 $1 *\n\n[Event \"y\"]\n\n1.d4 d5 2.c4!? 1/2-1/2\n";
        let games = parse_games(text, false).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 3);
        assert_eq!(games[1].moves.len(), 3);
        let err = parse_games("1. e4 e4 *", false).unwrap_err().to_string();
        assert!(
            err.contains("line 1") && err.contains("'e4' is not legal"),
            "{err}"
        );
    }
}
