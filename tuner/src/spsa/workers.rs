//! The worker pool: rayon workers, each with its own θ+ and θ− players, take a work
//! item (or a gain pair) from the server, play the colour-swapped pair without any lock
//! held, and hand the result back.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

use super::plan::TunePlan;
use super::progress::Progress;
use super::server::{GainPair, Server, WorkItem};
use crate::interrupt;
use crate::play::game::{GameRecord, pair_points, pair_score, play_pair};
use crate::play::pgn;
use crate::tuned::side::TunedPlayer;

/// θ+ and θ− of one worker.
type Players<'a> = (Box<dyn TunedPlayer + 'a>, Box<dyn TunedPlayer + 'a>);

/// What the workers share: the plan, the server with the progress line (behind one
/// lock, taken only between games), and the first error, which stops them all.
struct Pool<'a> {
    plan: &'a TunePlan,
    run: Mutex<(Server, Progress)>,
    abort: AtomicBool,
    first_error: Mutex<Option<anyhow::Error>>,
}

/// Plays the planned pairs on `plan.threads` workers and returns the server with every
/// result applied. On an error the run stops (checkpointed, resumable) and nothing is
/// written to the parameter files.
pub(super) fn play(plan: &TunePlan, server: Server) -> Result<Server> {
    // Every worker's θ+ and θ− first, on this thread: an engine that does not start
    // fails the run here, before any game.
    let mut workers = Vec::with_capacity(plan.threads);
    for _ in 0..plan.threads {
        workers.push(plan.side.players(plan.hash_mb)?);
    }
    let progress = Progress::new(&server);
    let pool = Pool {
        plan,
        run: Mutex::new((server, progress)),
        abort: AtomicBool::new(false),
        first_error: Mutex::new(None),
    };
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.threads)
        .build()
        .context("cannot start worker threads")?;
    let shared = &pool;
    threads.scope(|scope| {
        for players in workers {
            scope.spawn(move |_| work(shared, players));
        }
    });
    let (mut server, progress) = pool.run.into_inner().unwrap();
    progress.finish(&server);
    if let Some(e) = pool.first_error.into_inner().unwrap() {
        server.checkpoint().ok();
        return Err(e.context(format!(
            "the run stopped; nothing was written to the parameter files (continue with --resume; journal {})",
            plan.run_files.journal.display()
        )));
    }
    server.checkpoint()?;
    Ok(server)
}

/// One worker: a gain pair when one is due, else the next SPSA pair, until every pair
/// is issued, Ctrl-C, or another worker's error.
fn work(pool: &Pool, mut players: Players) {
    while !pool.abort.load(Ordering::Relaxed) && !interrupt::requested() {
        let gain = {
            let mut guard = pool.run.lock().unwrap();
            let due = guard.0.gain_pair_due(pool.plan.gain_every);
            due.then(|| guard.0.gain_pair())
        };
        if let Some(pair) = gain {
            play_gain_pair(pool, &mut players, &pair);
            continue;
        }
        let Some(item) = pool.run.lock().unwrap().0.next_work() else {
            break;
        };
        if let Err(e) = play_spsa_pair(pool, &mut players, &item) {
            pool.abort.store(true, Ordering::Relaxed);
            pool.first_error.lock().unwrap().get_or_insert(e);
            break;
        }
    }
}

/// Plays the pair between `plus_values` (White in the first game) and `minus_values`.
fn play_values(
    plan: &TunePlan,
    (plus, minus): &mut Players,
    plus_values: &[i32],
    minus_values: &[i32],
    opening: usize,
) -> [GameRecord; 2] {
    plus.set_values(&plan.slots, plus_values);
    minus.set_values(&plan.slots, minus_values);
    let openings = &plan.openings;
    play_pair(
        plus.player(),
        minus.player(),
        &openings[opening % openings.len()],
        plan.tc,
        &plan.adjudication,
    )
}

/// A gain pair: the tuned θ plays the start; counted unless the run is stopping.
fn play_gain_pair(pool: &Pool, players: &mut Players, pair: &GainPair) {
    let games = play_values(pool.plan, players, &pair.tuned, &pair.start, pair.opening);
    let mut guard = pool.run.lock().unwrap();
    let (server, progress) = &mut *guard;
    if interrupt::requested() {
        server.drop_gain();
    } else {
        server.apply_gain(games[0].outcome, games[1].outcome);
        progress.update(server);
    }
}

/// An SPSA pair: played, written to the PGN, applied (and journaled) by the server.
fn play_spsa_pair(pool: &Pool, players: &mut Players, item: &WorkItem) -> Result<()> {
    let games = play_values(
        pool.plan,
        players,
        &item.pair.plus,
        &item.pair.minus,
        item.opening,
    );
    let penta = pair_score(&games[0], &games[1]) as u8;
    let wdl = plus_wdl(&games);
    if let Some(out) = &pool.plan.pgn {
        for (i, g) in games.iter().enumerate() {
            let tags = pgn_tags(&pool.run.lock().unwrap().0, item);
            out.write(&pgn::render(g, &format!("{}.{}", item.k, i + 1), &tags))?;
        }
    }
    let mut guard = pool.run.lock().unwrap();
    let (server, progress) = &mut *guard;
    server.apply(item, penta, wdl)?;
    progress.faults(item.k, &games);
    progress.update(server);
    Ok(())
}

/// Wins, draws, losses of θ+ over the pair (θ+ is White in the first game).
pub(super) fn plus_wdl(games: &[GameRecord; 2]) -> [u64; 3] {
    let mut wdl = [0; 3];
    for points in pair_points(games[0].outcome, games[1].outcome) {
        // 2 half points: a win, 1: a draw, 0: a loss.
        wdl[usize::from(2 - points)] += 1;
    }
    wdl
}

pub(super) fn pgn_tags(server: &Server, item: &WorkItem) -> Vec<(String, String)> {
    let mut tags = vec![("SPSAIteration".to_string(), item.k.to_string())];
    for ((p, plus), minus) in server
        .config
        .params
        .iter()
        .zip(&item.pair.plus)
        .zip(&item.pair.minus)
    {
        tags.push((p.name.clone(), format!("theta+ {plus} theta- {minus}")));
    }
    tags
}
