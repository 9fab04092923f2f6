//! Playing games: everything between "these two sides play from this opening" and
//! the finished game's record. The commands that play (`spsa`, `match`, `verify`,
//! `datagen`) build on this layer; it knows nothing of tuning or statistics.
//!
//! - [`side`]: who plays, a parameter set in-process or an external UCI engine, and
//!   the [`game::Player`] it puts at the board for each game slot;
//! - [`game`]: the game loop, time controls, adjudication and the game record;
//! - [`uci_engine`]: the client that plays an external engine over UCI;
//! - [`openings`]: the openings games start from (built-in or a book);
//! - [`pgn`]: game records written as PGN, and PGN opening books read;
//! - [`args`]: the command-line options every playing command shares.
//!
//! May use its own layer's parameter files (`param_files`, for the sets a side
//! plays) and the base, and the engine (`occam`) that plays in-process.

pub mod args;
pub mod game;
pub mod openings;
pub mod pgn;
pub mod side;
pub mod uci_engine;
