//! The game-playing core shared by SPSA, matches and data generation: players
//! (in-process engines or external UCI engines), time controls, adjudication and
//! game records. A game is always played through [`occam::position::Game`], so the
//! engine's own rules decide draws.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use occam::Params;
use occam::position::{Game, GameEnd, Position};
use occam::search::{Clock, Control, Limits, Score, Searcher};
use occam::tablebase::Tablebases;
use shakmaty::{Color, Move, Position as _};

/// How each move is limited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// A fixed node budget per move (deterministic; the SPSA default).
    Nodes(u64),
    /// A fixed depth per move.
    Depth(u32),
    /// Fixed time per move, in milliseconds.
    MoveTime(u64),
    /// A game clock: base time plus increment, in milliseconds.
    Clock { base_ms: u64, inc_ms: u64 },
}

impl TimeControl {
    /// Parses `5+0.05` (seconds + increment seconds) or `10` (seconds, no increment).
    pub fn parse_clock(text: &str) -> Result<TimeControl> {
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let secs = |s: &str| -> Option<u64> {
            let v: f64 = s.trim().parse().ok()?;
            (0.0..1e7).contains(&v).then(|| (v * 1000.0).round() as u64)
        };
        match (secs(base), secs(inc)) {
            (Some(base_ms), Some(inc_ms)) if base_ms > 0 => {
                Ok(TimeControl::Clock { base_ms, inc_ms })
            }
            _ => bail!(
                "time control '{text}' is not of the form BASE+INC in seconds, e.g. 5+0.05 or 10+0.1"
            ),
        }
    }
}

/// A move chosen by a player, with the score it reported (side to move's view).
#[derive(Clone, Debug)]
pub struct PlayerMove {
    pub mv: Move,
    pub score: Option<Score>,
}

/// Something a player did wrong; the game is scored as a loss for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerFault {
    #[error("crashed or stopped answering: {0}")]
    Crash(String),
    #[error("played an illegal move '{0}'")]
    IllegalMove(String),
    #[error("lost on time")]
    Timeout,
}

/// A side at the board: what chooses the moves of one game, in-process
/// ([`EnginePlayer`]) or an external engine's client. A [`Side`](super::side::Side)
/// puts one at the board for each game slot.
pub trait Player: Send {
    fn name(&self) -> &str;
    /// Called before every game (clear hash, `ucinewgame`). A player that keeps
    /// nothing from one game to the next has nothing to do.
    fn new_game(&mut self) -> Result<(), PlayerFault> {
        Ok(())
    }
    /// Chooses a move in `game.position` within `limits`.
    fn go(&mut self, game: &Game, limits: &Limits) -> Result<PlayerMove, PlayerFault>;
    /// Under a game clock, the opponent's remaining time, told before each `go` (UCI
    /// engines are sent both clocks). Players that do not use it ignore it.
    fn set_opponent_clock(&mut self, _time_ms: u64) {}
}

/// The engine library playing in-process with its own parameters and hash table.
pub struct EnginePlayer {
    name: String,
    searcher: Searcher,
    control: Control,
}

impl EnginePlayer {
    pub fn new(name: impl Into<String>, params: Params, hash_mb: usize) -> Self {
        EnginePlayer {
            name: name.into(),
            searcher: Searcher::new(params, hash_mb),
            control: Control::default(),
        }
    }

    /// Switches to other parameters (derived tables are rebuilt).
    pub fn set_params(&mut self, params: Params) {
        self.searcher.set_params(params);
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerFault> {
        self.searcher.clear();
        Ok(())
    }

    fn go(&mut self, game: &Game, limits: &Limits) -> Result<PlayerMove, PlayerFault> {
        let result = self
            .searcher
            .search(game, limits, &self.control, &mut |_| {});
        match result.best_move {
            Some(mv) => Ok(PlayerMove {
                mv,
                score: Some(result.score),
            }),
            None => Err(PlayerFault::Crash(
                "no move returned in a position with legal moves".into(),
            )),
        }
    }
}

/// When a game is decided without playing it out.
#[derive(Clone, Debug)]
pub struct Adjudication {
    /// A side resigns when its own score (as it reports it for its move) is at least this
    /// many centipawns below zero...
    pub resign_score: i32,
    /// ...for this many of its consecutive moves (0 disables). The opponent's score is
    /// not consulted: the loser admitting the loss is the one-sided rule of cutechess
    /// and fastchess (`twosided=false`), and it does not depend on the winner's eval,
    /// which is often the very thing being tuned.
    pub resign_moves: u32,
    /// Draw once this full move number is reached...
    pub draw_move_number: u32,
    /// ...and both scores stayed within ±draw_score centipawns...
    pub draw_score: i32,
    /// ...for this many consecutive moves of each side (0 disables).
    pub draw_moves: u32,
    /// Declare a draw after this many plies (0: no limit).
    pub max_plies: u32,
    /// Decide a game as soon as its position is in these tables (`tuner match
    /// --syzygy`), by the result under the fifty-move rule.
    pub tablebases: Option<Arc<Tablebases>>,
}

/// The termination of a game decided by [`Adjudication::tablebases`].
pub const TABLEBASE_REASON: &str = "adjudication: tablebase";

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            resign_score: 1000,
            resign_moves: 3,
            draw_move_number: 40,
            draw_score: 10,
            draw_moves: 8,
            max_plies: 400,
            tablebases: None,
        }
    }
}

/// Result of one game from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

impl Outcome {
    pub fn win_for(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }

    /// Points (0, 1 = half a point, 2) scored by `color`.
    pub fn half_points_for(self, color: Color) -> u32 {
        match (self, color) {
            (Outcome::Draw, _) => 1,
            (Outcome::WhiteWins, Color::White) | (Outcome::BlackWins, Color::Black) => 2,
            _ => 0,
        }
    }

    /// PGN result tag.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// Everything about a finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub white: String,
    pub black: String,
    /// The opening position (start of the game, before the opening moves).
    pub start: Position,
    /// All moves from `start`, opening moves included.
    pub moves: Vec<Move>,
    /// How many of `moves` came from the opening.
    pub opening_plies: usize,
    /// Score each engine reported for its own moves (side to move's view), after the opening.
    pub scores: Vec<Option<Score>>,
    pub outcome: Outcome,
    /// Human-readable termination ("checkmate", "adjudication: resign", "black lost on time"...).
    pub reason: String,
    /// Set when a player faulted (crash, illegal move, time forfeit).
    pub fault: Option<(Color, PlayerFault)>,
    /// The time each move after the opening took, in milliseconds, as the clock
    /// charged it (one entry per entry of `scores`).
    pub move_ms: Vec<u64>,
    /// On a game clock, what White and Black had left when the game ended (negative
    /// for a side that lost on time); `None` for other time controls.
    pub clock_left_ms: Option<[i64; 2]>,
}

/// How one side of a finished game used its clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClockUse {
    /// Moves it played after the opening.
    pub moves: u64,
    /// Milliseconds those moves took.
    pub used_ms: u64,
    /// Milliseconds left on its clock at the end.
    pub left_ms: i64,
}

impl GameRecord {
    /// How `color` used its clock; `None` unless the game was played on a clock.
    pub fn clock_use(&self, color: Color) -> Option<ClockUse> {
        let left = self.clock_left_ms?;
        // The side to move when the opening ended made the first timed move.
        let even_opening = self.opening_plies.is_multiple_of(2);
        let first_timed = if even_opening {
            self.start.board().turn()
        } else {
            !self.start.board().turn()
        };
        let skip = usize::from(first_timed != color);
        let mine = self.move_ms.iter().skip(skip).step_by(2);
        Some(ClockUse {
            moves: mine.clone().count() as u64,
            used_ms: mine.sum(),
            left_ms: left[usize::from(color == Color::Black)],
        })
    }
}

fn centipawns(score: Option<Score>) -> Option<i32> {
    match score? {
        Score::Cp(cp) => Some(cp),
        Score::Mate(n) if n > 0 => Some(30_000),
        Score::Mate(_) => Some(-30_000),
    }
}

/// The two clocks of a game on a clock (unused otherwise), in milliseconds.
struct Clocks {
    left: [i64; 2],
}

impl Clocks {
    fn new(tc: TimeControl) -> Clocks {
        Clocks {
            left: match tc {
                TimeControl::Clock { base_ms, .. } => [base_ms as i64; 2],
                _ => [0; 2],
            },
        }
    }

    /// What the player at `index` (0 = White) may use for its next move.
    fn limits(&self, tc: TimeControl, index: usize) -> Limits {
        match tc {
            TimeControl::Nodes(n) => Limits {
                nodes: Some(n),
                ..Limits::default()
            },
            TimeControl::Depth(d) => Limits {
                depth: Some(d),
                ..Limits::default()
            },
            TimeControl::MoveTime(ms) => Limits {
                movetime_ms: Some(ms),
                ..Limits::default()
            },
            TimeControl::Clock { inc_ms, .. } => Limits {
                clock: Some(Clock {
                    time_ms: self.left[index].max(0) as u64,
                    inc_ms,
                    movestogo: None,
                }),
                move_overhead_ms: 10,
                ..Limits::default()
            },
        }
    }

    /// Charges a move's time to the player at `index`: a time forfeit when its clock
    /// ran out, else the increment is added.
    fn charge(&mut self, tc: TimeControl, index: usize, used: Duration) -> Option<PlayerFault> {
        let TimeControl::Clock { inc_ms, .. } = tc else {
            return None;
        };
        self.left[index] -= used.as_millis() as i64;
        if self.left[index] < 0 {
            return Some(PlayerFault::Timeout);
        }
        self.left[index] += inc_ms as i64;
        None
    }
}

/// Resignation and draw adjudication, fed the score the mover reported for each move.
struct Adjudicator<'a> {
    rules: &'a Adjudication,
    /// Consecutive moves of each side with its own score at or below −resign_score.
    resign_streak: [u32; 2],
    /// Consecutive moves (of both sides) with the score within ±draw_score.
    draw_streak: u32,
}

impl<'a> Adjudicator<'a> {
    fn new(rules: &'a Adjudication) -> Self {
        Adjudicator {
            rules,
            resign_streak: [0; 2],
            draw_streak: 0,
        }
    }

    /// After `side` moved reporting `score`: the adjudicated end of the game, if any.
    /// Resignation goes by the mover's own view alone, draws by both sides' recent scores.
    fn after_move(
        &mut self,
        side: Color,
        score: Option<i32>,
        move_number: u32,
    ) -> Option<(Outcome, &'static str)> {
        let rules = self.rules;
        let index = usize::from(side == Color::Black);
        if rules.resign_moves > 0 {
            match score {
                Some(s) if s <= -rules.resign_score => self.resign_streak[index] += 1,
                _ => self.resign_streak[index] = 0,
            }
            if self.resign_streak[index] >= rules.resign_moves {
                return Some((Outcome::win_for(!side), "adjudication: resign"));
            }
        }
        if rules.draw_moves > 0 {
            match score {
                Some(s) if s.abs() <= rules.draw_score => self.draw_streak += 1,
                _ => self.draw_streak = 0,
            }
            if move_number >= rules.draw_move_number && self.draw_streak >= 2 * rules.draw_moves {
                return Some((Outcome::Draw, "adjudication: draw"));
            }
        }
        None
    }
}

/// Ends `record` with `side`'s fault: the game is its loss.
fn forfeit(record: &mut GameRecord, side: Color, fault: PlayerFault) {
    record.outcome = Outcome::win_for(!side);
    record.reason = format!(
        "{} {fault}",
        if side == Color::White {
            "white"
        } else {
            "black"
        }
    );
    record.fault = Some((side, fault));
}

/// Plays one game from `opening` (its moves are replayed first) and returns its record.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    opening: &Game,
    tc: TimeControl,
    adjudication: &Adjudication,
) -> GameRecord {
    let mut game = Game::new(opening.start.clone());
    for &m in &opening.moves {
        game.play(m);
    }
    let mut record = GameRecord {
        white: white.name().to_string(),
        black: black.name().to_string(),
        start: opening.start.clone(),
        moves: opening.moves.clone(),
        opening_plies: opening.moves.len(),
        scores: Vec::new(),
        outcome: Outcome::Draw,
        reason: String::new(),
        fault: None,
        move_ms: Vec::new(),
        clock_left_ms: None,
    };
    let mut clocks = Clocks::new(tc);
    play_out(
        &mut record,
        game,
        &mut clocks,
        [white, black],
        tc,
        adjudication,
    );
    if let TimeControl::Clock { .. } = tc {
        record.clock_left_ms = Some(clocks.left);
    }
    record
}

/// Plays `game` on from the opening into `record` until it ends, one move at a time
/// from `players` (White, Black), charging each move to `clocks`.
fn play_out(
    record: &mut GameRecord,
    mut game: Game,
    clocks: &mut Clocks,
    players: [&mut dyn Player; 2],
    tc: TimeControl,
    adjudication: &Adjudication,
) {
    let [white, black] = players;
    for color in [Color::White, Color::Black] {
        let player: &mut dyn Player = if color == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        if let Err(fault) = player.new_game() {
            record.outcome = Outcome::win_for(!color);
            record.reason = format!("{color} {fault}");
            record.fault = Some((color, fault));
            return;
        }
    }
    let mut adjudicator = Adjudicator::new(adjudication);
    loop {
        if let Some(end) = game.end() {
            record.outcome = match end {
                GameEnd::Checkmate { winner } => Outcome::win_for(winner),
                _ => Outcome::Draw,
            };
            record.reason = end.reason().to_string();
            return;
        }
        if let Some(tables) = &adjudication.tablebases
            && let Some(wdl) = tables.adjudicate(game.position.board())
        {
            let mover = game.position.turn();
            record.outcome = match wdl.signum() {
                1 => Outcome::win_for(mover),
                -1 => Outcome::win_for(!mover),
                _ => Outcome::Draw,
            };
            record.reason = TABLEBASE_REASON.into();
            return;
        }
        let plies_played = record.moves.len() - record.opening_plies;
        if adjudication.max_plies > 0 && plies_played as u32 >= adjudication.max_plies {
            record.reason = "adjudication: maximum game length".into();
            return;
        }
        let side = game.position.turn();
        let index = usize::from(side == Color::Black);
        let limits = clocks.limits(tc, index);
        let started = Instant::now();
        let player: &mut dyn Player = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        if let TimeControl::Clock { .. } = tc {
            player.set_opponent_clock(clocks.left[1 - index].max(0) as u64);
        }
        let reply = match player.go(&game, &limits) {
            Ok(reply) => reply,
            Err(fault) => {
                forfeit(record, side, fault);
                return;
            }
        };
        let used = started.elapsed();
        if let Some(fault) = clocks.charge(tc, index, used) {
            forfeit(record, side, fault);
            return;
        }
        if !game.position.board().is_legal(reply.mv) {
            let text = game.position.move_to_uci(reply.mv);
            forfeit(record, side, PlayerFault::IllegalMove(text));
            return;
        }
        game.play(reply.mv);
        record.moves.push(reply.mv);
        record.scores.push(reply.score);
        record.move_ms.push(used.as_millis() as u64);
        let move_number = game.position.board().fullmoves().get();
        if let Some((outcome, reason)) =
            adjudicator.after_move(side, centipawns(reply.score), move_number)
        {
            record.outcome = outcome;
            record.reason = reason.into();
            return;
        }
    }
}

/// Result of a game pair from the first player's point of view, as the pentanomial
/// index 0..=4: half points scored over the two games (0 = lost both, 4 = won both).
pub fn pair_score(first_as_white: &GameRecord, first_as_black: &GameRecord) -> usize {
    let [white, black] = pair_points(first_as_white.outcome, first_as_black.outcome);
    usize::from(white + black)
}

/// The half points (0, 1 or 2) the first player scored in each game of a pair: the
/// game it had White in, then the game it had Black in (what `stats::Tally` counts).
pub fn pair_points(first_as_white: Outcome, first_as_black: Outcome) -> [u8; 2] {
    [
        first_as_white.half_points_for(Color::White) as u8,
        first_as_black.half_points_for(Color::Black) as u8,
    ]
}

/// Plays a pair from one opening, colours swapped: `a` has White in the first game.
pub fn play_pair(
    a: &mut dyn Player,
    b: &mut dyn Player,
    opening: &Game,
    tc: TimeControl,
    adjudication: &Adjudication,
) -> [GameRecord; 2] {
    let first = play_game(a, b, opening, tc, adjudication);
    let second = play_game(b, a, opening, tc, adjudication);
    [first, second]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_strings_parse_or_explain() {
        assert_eq!(
            TimeControl::parse_clock("5+0.05").unwrap(),
            TimeControl::Clock {
                base_ms: 5000,
                inc_ms: 50
            }
        );
        assert_eq!(
            TimeControl::parse_clock("10").unwrap(),
            TimeControl::Clock {
                base_ms: 10_000,
                inc_ms: 0
            }
        );
        for bad in ["", "x+1", "-1+0", "0+0", "5+nan"] {
            assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clock_use_gives_each_side_its_own_moves() {
        // One opening ply: Black makes the first timed move.
        let mut record = ended(Outcome::Draw);
        record.opening_plies = 1;
        record.move_ms = vec![100, 10, 200, 20, 300];
        assert_eq!(record.clock_use(Color::White), None, "not on a clock");
        record.clock_left_ms = Some([4_000, -5]);
        assert_eq!(
            record.clock_use(Color::Black),
            Some(ClockUse {
                moves: 3,
                used_ms: 600,
                left_ms: -5
            })
        );
        assert_eq!(
            record.clock_use(Color::White),
            Some(ClockUse {
                moves: 2,
                used_ms: 30,
                left_ms: 4_000
            })
        );
    }

    #[test]
    fn a_pair_at_low_nodes_ends_legally() {
        let mut a = EnginePlayer::new("a", Params::default(), 1);
        let mut b = EnginePlayer::new("b", Params::default(), 1);
        let opening = Game::new(Position::startpos());
        let adj = Adjudication {
            max_plies: 60,
            ..Adjudication::default()
        };
        let [g1, g2] = play_pair(&mut a, &mut b, &opening, TimeControl::Nodes(200), &adj);
        for g in [&g1, &g2] {
            assert!(g.fault.is_none(), "{}", g.reason);
            assert!(!g.reason.is_empty());
            let mut replay = Game::new(g.start.clone());
            for &m in &g.moves {
                assert!(replay.position.board().is_legal(m));
                replay.play(m);
            }
        }
        assert_eq!(
            (g1.white.as_str(), g2.white.as_str()),
            ("a", "b"),
            "colours swap"
        );
        // Every game hands out two half points: what one player scores, the other lost.
        assert_eq!(pair_score(&g1, &g2) + pair_score(&g2, &g1), 4);
    }

    /// A finished game with only its outcome filled in.
    fn ended(outcome: Outcome) -> GameRecord {
        GameRecord {
            white: String::new(),
            black: String::new(),
            start: Position::startpos(),
            moves: Vec::new(),
            opening_plies: 0,
            scores: Vec::new(),
            outcome,
            reason: String::new(),
            fault: None,
            move_ms: Vec::new(),
            clock_left_ms: None,
        }
    }

    /// The pentanomial index counts the first player's half points: White's in the
    /// first game, Black's in the second.
    #[test]
    fn a_pair_scores_the_first_players_half_points() {
        use Outcome::{BlackWins, Draw, WhiteWins};
        for (first, second, score) in [
            (WhiteWins, BlackWins, 4),
            (WhiteWins, Draw, 3),
            (WhiteWins, WhiteWins, 2),
            (Draw, Draw, 2),
            (BlackWins, BlackWins, 2),
            (Draw, WhiteWins, 1),
            (BlackWins, WhiteWins, 0),
        ] {
            let pair = [ended(first), ended(second)];
            assert_eq!(
                pair_score(&pair[0], &pair[1]),
                score,
                "{first:?} {second:?}"
            );
        }
    }

    /// A player that always plays an illegal move: the game is scored as its loss.
    struct Cheater;
    impl Player for Cheater {
        fn name(&self) -> &str {
            "cheater"
        }
        fn go(&mut self, _game: &Game, _limits: &Limits) -> Result<PlayerMove, PlayerFault> {
            let mv = Move::Normal {
                role: shakmaty::Role::Queen,
                from: shakmaty::Square::D1,
                capture: None,
                to: shakmaty::Square::D8,
                promotion: None,
            };
            Ok(PlayerMove { mv, score: None })
        }
    }

    #[test]
    fn an_illegal_move_loses_the_game() {
        let mut good = EnginePlayer::new("good", Params::default(), 1);
        let g = play_game(
            &mut Cheater,
            &mut good,
            &Game::new(Position::startpos()),
            TimeControl::Nodes(100),
            &Adjudication::default(),
        );
        assert_eq!(g.outcome, Outcome::BlackWins);
        assert!(matches!(
            g.fault,
            Some((Color::White, PlayerFault::IllegalMove(_)))
        ));
    }

    /// Plays the first legal move and reports a fixed score.
    struct Scripted(i32);
    impl Player for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }
        fn go(&mut self, game: &Game, _limits: &Limits) -> Result<PlayerMove, PlayerFault> {
            Ok(PlayerMove {
                mv: game.position.legal_moves()[0],
                score: Some(Score::Cp(self.0)),
            })
        }
    }

    /// Resignation goes by the mover's own score alone (as documented on
    /// `Adjudication`): a side that reports itself lost for `resign_moves` moves loses,
    /// whatever its opponent thinks; an opponent that claims a win does not end the game.
    #[test]
    fn resignation_follows_the_losers_own_score() {
        let adj = Adjudication {
            resign_score: 500,
            resign_moves: 3,
            draw_moves: 0,
            max_plies: 40,
            ..Adjudication::default()
        };
        let start = Game::new(Position::startpos());
        // Scores as each side reports them, from its own point of view.
        let game = |white: i32, black: i32| {
            let (mut w, mut b) = (Scripted(white), Scripted(black));
            play_game(&mut w, &mut b, &start, TimeControl::Nodes(1), &adj)
        };
        let g = game(0, -600);
        assert_eq!(
            (g.outcome, g.reason.as_str()),
            (Outcome::WhiteWins, "adjudication: resign")
        );
        assert_eq!(g.moves.len(), 6, "black resigns after its third move");
        let g = game(900, -499);
        assert_ne!(g.reason, "adjudication: resign", "{}", g.reason);
    }

    /// `--syzygy`: a game in the tables ends with their result, at once or as soon as
    /// a capture brings it there.
    #[test]
    fn tablebase_adjudication_ends_games_in_the_tables() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");
        let tables = Tablebases::open(dir)
            .expect("fixture tables")
            .expect("a path");
        let adj = Adjudication {
            tablebases: Some(Arc::new(tables)),
            ..Adjudication::default()
        };
        let mut a = EnginePlayer::new("a", Params::default(), 1);
        let mut b = EnginePlayer::new("b", Params::default(), 1);
        for (fen, outcome, plies) in [
            // KRvK with the defender to move, KRvKP drawn (pawn on the 7th).
            ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", Outcome::WhiteWins, 0),
            ("7K/8/8/8/8/8/1pk5/4R3 w - - 0 1", Outcome::Draw, 0),
            // KRvKRP (no table): Rxa8+ enters KRvKP, won for White.
            ("r3k3/7p/8/8/8/8/8/R3K3 w - - 0 1", Outcome::WhiteWins, 1),
        ] {
            let opening = Game::new(Position::from_fen(fen, false).unwrap());
            let g = play_game(&mut a, &mut b, &opening, TimeControl::Nodes(300), &adj);
            assert_eq!(
                (g.outcome, g.reason.as_str()),
                (outcome, TABLEBASE_REASON),
                "{fen}"
            );
            assert_eq!(g.moves.len(), plies, "{fen}");
        }
        // Without tables the same won position is played on.
        let opening =
            Game::new(Position::from_fen("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", false).unwrap());
        let g = play_game(
            &mut a,
            &mut b,
            &opening,
            TimeControl::Nodes(300),
            &Adjudication::default(),
        );
        assert_ne!(g.reason, TABLEBASE_REASON);
        assert!(!g.moves.is_empty());
    }
}
