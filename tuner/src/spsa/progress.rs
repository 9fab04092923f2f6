//! The live progress of a tune: a bar on a terminal (games per second, W-D-L, the
//! pentanomial counts, the parameters that moved most), a line every 30 seconds in a
//! log, and each player's faults.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::server::Server;
use crate::play::game::{GameRecord, PlayerFault};

/// Pairs a gain estimate needs before it is shown.
const GAIN_PAIRS_SHOWN: u64 = 10;

/// The gain so far, e.g. `gain +4.1 ± 9.8 Elo (95%, 120 pairs of the average against
/// the start)`; `None` before [`GAIN_PAIRS_SHOWN`] pairs.
pub fn gain_text(server: &Server) -> Option<String> {
    let (elo, error, pairs) = server.gain_estimate()?;
    let tuned = if server.config.rules.is_occam() {
        "the average"
    } else {
        "the last θ"
    };
    (pairs >= GAIN_PAIRS_SHOWN).then(|| {
        format!("gain {elo:+.1} ± {error:.1} Elo (95%, {pairs} pairs of {tuned} against the start)")
    })
}

/// The live progress line.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    pairs_at_start: u64,
    last_log: Instant,
    interactive: bool,
    /// Faults per player (θ+, θ−) of this session: crash/hang, illegal move, time loss.
    faults: BTreeMap<String, [u64; 3]>,
}

impl Progress {
    pub fn new(server: &Server) -> Progress {
        let interactive = std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(server.config.hyper.pairs),
            if interactive {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} pairs  eta {eta}  {msg}")
                .expect("valid template"),
        );
        bar.set_position(server.pairs_done());
        Progress {
            bar,
            started: Instant::now(),
            pairs_at_start: server.pairs_done(),
            last_log: Instant::now(),
            interactive,
            faults: BTreeMap::new(),
        }
    }

    /// Reports the faults of a pair's games (each already scored as the faulting
    /// side's loss; an external engine is restarted for its next game) and counts them.
    pub fn faults(&mut self, k: u64, games: &[GameRecord; 2]) {
        for (i, g) in games.iter().enumerate() {
            if let Some((color, fault)) = &g.fault {
                let name = if color.is_white() { &g.white } else { &g.black };
                let kind = match fault {
                    PlayerFault::Crash(_) => 0,
                    PlayerFault::IllegalMove(_) => 1,
                    PlayerFault::Timeout => 2,
                };
                self.faults.entry(name.clone()).or_default()[kind] += 1;
                let line = format!("spsa: pair {k} game {}: {name} {}", i + 1, g.reason);
                self.bar.suspend(|| eprintln!("{line}"));
            }
        }
    }

    pub fn update(&mut self, server: &Server) {
        let s = &server.state;
        let games = 2 * (server.pairs_done() - self.pairs_at_start);
        let rate = games as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
        // The parameters that moved most, in units of their c_end.
        let movers: Vec<String> =
            crate::tuned::params::by_movement(&server.config.params, &s.theta)
                .into_iter()
                .take(3)
                .map(|i| {
                    let p = &server.config.params[i];
                    format!("{} {}→{:.1}", p.name, p.start, s.theta[i])
                })
                .collect();
        let msg = format!(
            "{rate:.1} games/s  W-D-L {}-{}-{}  penta {:?}{}  {}",
            s.wdl[0],
            s.wdl[1],
            s.wdl[2],
            s.penta,
            gain_text(server).map_or(String::new(), |g| format!("  {g}")),
            movers.join("  ")
        );
        self.bar.set_position(server.pairs_done());
        if self.interactive {
            self.bar.set_message(msg);
        } else if self.last_log.elapsed() >= Duration::from_secs(30) || server.finished() {
            self.last_log = Instant::now();
            eprintln!(
                "spsa: {}/{} pairs  {msg}",
                server.pairs_done(),
                server.config.hyper.pairs
            );
        }
    }

    pub fn finish(&self, server: &Server) {
        if let Some(g) = gain_text(server) {
            eprintln!("spsa: {g}");
        }
        // Before finishing: a finished bar stands at its end, not at the pairs played.
        let games = 2 * (self.bar.position() - self.pairs_at_start);
        self.bar.finish();
        let secs = self.started.elapsed().as_secs_f64();
        eprintln!(
            "spsa: {games} games in {secs:.1} s ({:.2} games/s)",
            games as f64 / secs.max(1e-3)
        );
        for (name, [crash, illegal, time]) in &self.faults {
            eprintln!(
                "spsa: faults of {name}: {} (crash/hang {crash}, illegal move {illegal}, time forfeit {time}), each scored as its loss",
                crash + illegal + time
            );
        }
    }
}
