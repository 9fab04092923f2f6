//! The server: resume, lost pairs, journal faults, reproducible work items, and its
//! agreement with the update loop `tuner simulate` runs.

use super::*;
use crate::spsa::journal::tests::{config, param};
use crate::spsa::journal::trajectories;
use std::io::Write;
use std::path::PathBuf;

/// A synthetic "game pair": θ+ scores better the closer it is to `optimum`. Returns
/// the pentanomial index from a deterministic hash of k.
fn synthetic_pair(item: &WorkItem, optimum: &[f64], k_noise: u64) -> u8 {
    let loss = |v: &[i32]| -> f64 {
        v.iter()
            .zip(optimum)
            .map(|(&x, o)| ((f64::from(x) - o) / 20.0).powi(2))
            .sum()
    };
    let edge = (loss(&item.pair.minus) - loss(&item.pair.plus)).clamp(-1.0, 1.0);
    let mut rng = iteration_rng(k_noise, item.k);
    let mut half_points = 0u8;
    for _ in 0..2 {
        let x: f64 = rng.random();
        let p_win = 0.3 + 0.3 * edge;
        let p_loss = 0.3 - 0.3 * edge;
        half_points += if x < p_win {
            2
        } else if x < 1.0 - p_loss {
            1
        } else {
            0
        };
    }
    half_points
}

fn wdl(penta: u8) -> [u64; 3] {
    [u64::from(penta / 2), u64::from(penta % 2), 0]
}

#[test]
fn gain_pairs_play_the_average_against_the_start_inside_the_window() {
    use crate::play::game::Outcome::{BlackWins, Draw, WhiteWins};
    // 40 pairs, the last quarter (pairs 31..40) averaged; one gain pair per 2.
    let cfg = config(vec![param("a", 60.3), param("b", 120.0)], 40, 7);
    let mut server = Server::new(cfg, None).unwrap();
    let optimum = [140.0, 40.0];
    play(&mut server, 30, &optimum);
    assert!(!server.gain_pair_due(2), "not before the window");
    assert!(server.gain_estimate().is_none());
    play(&mut server, 1, &optimum);
    assert!(server.gain_pair_due(2) && !server.gain_pair_due(0));
    let pair = server.gain_pair();
    let rounded: Vec<i32> = server.average().iter().map(|v| v.round() as i32).collect();
    assert_eq!((pair.tuned, pair.start), (rounded, vec![60, 120]));
    // One handed out for 1 SPSA pair: the next waits for 2 more.
    assert!(!server.gain_pair_due(2));
    server.apply_gain(WhiteWins, BlackWins);
    play(&mut server, 1, &optimum);
    assert!(!server.gain_pair_due(2));
    play(&mut server, 1, &optimum);
    assert!(server.gain_pair_due(2));
    server.gain_pair();
    server.apply_gain(Draw, WhiteWins);
    // The average won both games, then drew and lost: 1 and ¼ of a pair.
    assert_eq!(server.state.gain.penta, [0, 1, 0, 0, 1]);
    // (Two pairs give an Elo but no interval yet: the progress shows ten or more.)
    let (elo, _, pairs) = server.gain_estimate().unwrap();
    assert_eq!(pairs, 2);
    assert!((elo - crate::stats::score_to_elo(0.625)).abs() < 1e-9);
    // A gain pair handed out and dropped (a stop) leaves the tally alone.
    play(&mut server, 2, &optimum);
    server.gain_pair();
    server.drop_gain();
    assert_eq!(server.state.gain.penta.iter().sum::<u64>(), 2);
    assert!(server.gain_pair_due(2));
    play(&mut server, 5, &optimum);
    assert!(server.finished() && !server.gain_pair_due(2));
}

#[test]
fn converges_towards_a_known_optimum() {
    let optimum = [140.0, 40.0, 100.0];
    let cfg = config(
        vec![param("a", 60.0), param("b", 120.0), param("c", 100.0)],
        6000,
        3,
    );
    let mut server = Server::new(cfg, None).unwrap();
    while let Some(item) = server.next_work() {
        let p = synthetic_pair(&item, &optimum, 99);
        server.apply(&item, p, wdl(p)).unwrap();
    }
    assert!(server.finished());
    let avg = server.average();
    for (i, (a, o)) in avg.iter().zip(optimum).enumerate() {
        assert!(
            (a - o).abs() < 15.0,
            "param {i}: {a} vs optimum {o} ({avg:?})"
        );
    }
    // It really moved: the first two started 80 away.
    assert!((avg[0] - 60.0).abs() > 50.0 && (avg[1] - 120.0).abs() > 50.0);
}

#[test]
fn a_killed_run_resumes_to_the_same_result() {
    let dir = crate::test_util::scratch_dir("spsa-resume");
    let optimum = [150.0, 50.0];
    let make = || config(vec![param("a", 100.0), param("b", 100.0)], 300, 11);

    // Uninterrupted, in order.
    let mut straight = Server::new(make(), None).unwrap();
    while let Some(item) = straight.next_work() {
        let p = synthetic_pair(&item, &optimum, 5);
        straight.apply(&item, p, wdl(p)).unwrap();
    }

    // Killed after 120 pairs with 2 more in flight, and a torn final journal line.
    let files = RunFiles::new(dir.join("run.spsa.jsonl"));
    let mut first = Server::new(make(), Some(files.clone())).unwrap();
    first.checkpoint_every = Duration::ZERO;
    for _ in 0..120 {
        let item = first.next_work().unwrap();
        let p = synthetic_pair(&item, &optimum, 5);
        first.apply(&item, p, wdl(p)).unwrap();
    }
    first.checkpoint_every = Duration::from_secs(3600);
    for _ in 0..5 {
        let item = first.next_work().unwrap();
        let p = synthetic_pair(&item, &optimum, 5);
        first.apply(&item, p, wdl(p)).unwrap();
    }
    let _lost_in_flight = (first.next_work().unwrap(), first.next_work().unwrap());
    drop(first);
    let mut j = OpenOptions::new()
        .append(true)
        .open(&files.journal)
        .unwrap();
    write!(j, "{{\"type\":\"pair\",\"seq\":126,\"k\"").unwrap();
    drop(j);

    let mut resumed = Server::resume(files.clone()).unwrap();
    assert_eq!(resumed.pairs_done(), 125);
    let mut issued = vec![];
    while let Some(item) = resumed.next_work() {
        issued.push(item.k);
        let p = synthetic_pair(&item, &optimum, 5);
        resumed.apply(&item, p, wdl(p)).unwrap();
    }
    assert_eq!(&issued[..2], &[126, 127]);
    assert_eq!(resumed.state, straight.state);
    assert_eq!(resumed.average(), straight.average());
    // The journal replays to the same trajectory.
    let (_, thetas) = trajectories(&files.journal).unwrap();
    assert_eq!(thetas.len(), 300);
    assert_eq!(thetas.last().unwrap(), &straight.state.theta);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pairs_lost_in_flight_are_played_again_first() {
    let dir = crate::test_util::scratch_dir("spsa-lost");
    let files = RunFiles::new(dir.join("run.spsa.jsonl"));
    let mut first =
        Server::new(config(vec![param("a", 100.0)], 50, 2), Some(files.clone())).unwrap();
    let items: Vec<WorkItem> = (0..5).map(|_| first.next_work().unwrap()).collect();
    // Pairs 1, 2 and 5 finish; 3 and 4 are still being played when the run dies.
    for i in [0, 1, 4] {
        first.apply(&items[i], 3, [1, 1, 0]).unwrap();
    }
    drop(first);
    let mut resumed = Server::resume(files).unwrap();
    assert_eq!(resumed.pairs_done(), 3);
    let next: Vec<u64> = (0..3).map(|_| resumed.next_work().unwrap().k).collect();
    assert_eq!(next, [3, 4, 6]);
    assert_eq!(resumed.in_flight(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_journal_is_never_overwritten_and_garbage_is_refused() {
    let dir = crate::test_util::scratch_dir("spsa-journal");
    let files = RunFiles::new(dir.join("x.spsa.jsonl"));
    let cfg = config(vec![param("a", 100.0)], 10, 1);
    Server::new(cfg.clone(), Some(files.clone())).unwrap();
    assert!(Server::new(cfg, Some(files.clone())).is_err());
    std::fs::write(&files.journal, "hello\n").unwrap();
    let err = Server::resume(files.clone()).err().unwrap().to_string();
    assert!(err.contains("line 1"), "{err}");
    let missing = RunFiles::new(dir.join("none.spsa.jsonl"));
    let err = Server::resume(missing).err().unwrap().to_string();
    assert!(err.contains("without --resume"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    crate::test_util::scratch_dir(&format!("spsa-{name}"))
}

/// Plays `n` pairs of `server` on the synthetic game, one at a time.
fn play(server: &mut Server, n: usize, optimum: &[f64]) {
    for _ in 0..n {
        let item = server.next_work().unwrap();
        let p = synthetic_pair(&item, optimum, 5);
        server.apply(&item, p, wdl(p)).unwrap();
    }
}

/// Once, an earlier run's checkpoint stayed behind after its journal was removed;
/// a new run was killed before its first timed checkpoint, and the resume took the
/// old run's θ without a word. The new run's own checkpoint (written right after its
/// header) is used instead, and a checkpoint of another journal is refused.
#[test]
fn a_stale_checkpoint_is_never_adopted() {
    let dir = scratch("stale");
    let files = RunFiles::new(dir.join("run.spsa.jsonl"));
    let optimum = [150.0];
    let mut old = Server::new(config(vec![param("a", 100.0)], 20, 1), Some(files.clone())).unwrap();
    play(&mut old, 20, &optimum); // finished: checkpointed
    drop(old);
    let stale = std::fs::read_to_string(&files.checkpoint).unwrap();
    std::fs::remove_file(&files.journal).unwrap();

    let mut new = Server::new(config(vec![param("a", 20.0)], 40, 2), Some(files.clone())).unwrap();
    new.checkpoint_every = Duration::from_secs(3600);
    play(&mut new, 20, &optimum);
    let killed_at = new.state.clone();
    drop(new);

    let resumed = Server::resume(files.clone()).unwrap();
    assert_eq!(resumed.state, killed_at);
    drop(resumed);

    std::fs::write(&files.checkpoint, &stale).unwrap();
    let err = Server::resume(files.clone()).err().expect("refused");
    assert!(err.to_string().contains("another run"), "{err}");
    // A checkpoint in the old format (a bare state) names no journal: refused too.
    let bare = serde_json::to_string(&killed_at).unwrap();
    std::fs::write(&files.checkpoint, bare).unwrap();
    let err = Server::resume(files.clone()).err().expect("refused");
    assert!(err.to_string().contains("not a checkpoint"), "{err}");
    // Without a checkpoint the journal alone replays the run.
    std::fs::remove_file(&files.checkpoint).unwrap();
    assert_eq!(Server::resume(files).unwrap().state, killed_at);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A journal file whose append number `fail_at` (0-based) writes half the line and
/// fails; appends after it work again (a disk that was full for a moment).
struct FailingJournal {
    file: File,
    appends: usize,
    fail_at: usize,
}

impl JournalSink for FailingJournal {
    fn append(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.appends += 1;
        if self.appends - 1 == self.fail_at {
            self.file.write_all(&line[..line.len() / 2])?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "injected: no space left on device",
            ));
        }
        self.file.write_all(line)
    }
    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        self.file.set_len(len)
    }
    fn sync(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

/// Once, a failed journal write advanced θ anyway, and the other workers kept
/// appending after it, so the journal had a gap or a glued line and could not be
/// resumed. Now the run stops at the failed pair and resumes to the same result as
/// a run that never failed.
#[test]
fn a_failed_journal_write_leaves_a_resumable_run() {
    let dir = scratch("failing");
    let files = RunFiles::new(dir.join("run.spsa.jsonl"));
    let optimum = [150.0, 50.0];
    let make = || config(vec![param("a", 100.0), param("b", 100.0)], 60, 4);
    let mut straight = Server::new(make(), None).unwrap();
    play(&mut straight, 60, &optimum);

    drop(Server::new(make(), Some(files.clone())).unwrap());
    let mut failing = Server::resume_with(files.clone(), |file| {
        Box::new(FailingJournal {
            file,
            appends: 0,
            fail_at: 10,
        })
    })
    .unwrap();
    failing.checkpoint_every = Duration::ZERO;
    play(&mut failing, 10, &optimum);
    // Pair 11 fails to be written; three other workers hand in their pairs after it.
    let items: Vec<WorkItem> = (0..4).map(|_| failing.next_work().unwrap()).collect();
    for (i, item) in items.iter().enumerate() {
        let p = synthetic_pair(item, &optimum, 5);
        let err = failing.apply(item, p, wdl(p)).expect_err("refused");
        let text = format!("{err:#}");
        if i == 0 {
            assert!(text.contains("no space left"), "{text}");
        } else {
            assert!(text.contains("stopped after a write error"), "{text}");
        }
        assert_eq!(failing.pairs_done(), 10);
    }
    failing.checkpoint().unwrap();
    drop(failing);

    let mut resumed = Server::resume(files.clone()).unwrap();
    assert_eq!(resumed.pairs_done(), 10);
    play(&mut resumed, 50, &optimum);
    assert!(resumed.next_work().is_none());
    assert_eq!(resumed.state, straight.state);
    assert_eq!(trajectories(&files.journal).unwrap().1.len(), 60);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn work_items_depend_only_on_seed_k_and_theta() {
    let cfg = config(vec![param("a", 100.0), param("b", 50.0)], 100, 7);
    let mut s1 = Server::new(cfg.clone(), None).unwrap();
    let mut s2 = Server::new(cfg, None).unwrap();
    for _ in 0..10 {
        assert_eq!(s1.next_work(), s2.next_work());
    }
    let item = s1.work_item(3);
    let pair = &item.pair;
    for ((plus, minus), flip) in pair.plus.iter().zip(&pair.minus).zip(&pair.flips) {
        assert!((plus - minus) * i32::from(*flip) > 0);
    }
}

/// The server's journaled θ and average are those of Occam's rules in the update
/// loop `tuner simulate` runs, pair for pair: its bookkeeping of real games (pairs
/// out of order, the checkpoint's equal-weights count) changes nothing.
#[test]
fn occam_rules_follow_the_server() {
    use crate::design::Averaging;
    use crate::rules::scripted::Run;
    use crate::rules::{AveragePlan, Occam, Param, occam};
    // The journal tests' run: parameters on [0, 200] with c_end 4, r_end 0.01, and
    // the averaging fraction the rules default to.
    let cfg = config(vec![param("a", 60.0), param("b", 199.0)], 40, 5);
    assert_eq!(cfg.average_fraction, occam::DEFAULT_AVERAGE_FRACTION);
    let mut server = Server::new(cfg, None).unwrap();
    let same = |start| Param::new(start, 0, 200, Some(4.0), Some(0.01));
    let params = vec![same(60.0), same(199.0)];
    let quarter = AveragePlan {
        averaging: Averaging::last(occam::DEFAULT_AVERAGE_FRACTION),
        skipped: 0,
        pairs: 40,
    };
    let mut rules = Run::averaged(Occam::new(params.clone(), 40), &params, Some(quarter));
    while let Some(item) = server.next_work() {
        let pair = pair_of(&item);
        apply_alike(&mut server, &mut rules, &item, &pair);
    }
    assert_eq!(rules.result(), server.average());
}

/// A designed run's average (every θ weighted by its pair's index squared) is the
/// same in the server and in the rules, and survives a resume from the journal.
#[test]
fn the_weighted_average_follows_the_server_and_survives_a_resume() {
    use crate::design::AVERAGING;
    use crate::rules::scripted::Run;
    use crate::rules::{AveragePlan, Occam, Param};
    let mut cfg = config(vec![param("a", 60.0), param("b", 150.0)], 40, 5);
    cfg.hyper = crate::rules::schedule::Hyper::new(40, Some(0.0), 0.0, 0.0);
    (cfg.average_fraction, cfg.average_power) = (AVERAGING.fraction, AVERAGING.power);
    let dir = scratch("weighted");
    let files = RunFiles::new(dir.join("w.spsa.jsonl"));
    let mut server = Server::new(cfg.clone(), Some(files.clone())).unwrap();
    let same = |start| Param::new(start, 0, 200, Some(4.0), Some(0.01));
    let params = vec![same(60.0), same(150.0)];
    let plan = AveragePlan {
        averaging: AVERAGING,
        skipped: 0,
        pairs: 40,
    };
    let mut rules = Run::averaged(Occam::with(params.clone(), cfg.hyper), &params, Some(plan));
    let mut weighted = [0.0; 2];
    let mut total = 0.0;
    while let Some(item) = server.next_work() {
        let pair = pair_of(&item);
        apply_alike(&mut server, &mut rules, &item, &pair);
        let w = (item.k as f64).powi(2);
        for (sum, t) in weighted.iter_mut().zip(&server.state.theta) {
            *sum += w * t;
        }
        total += w;
    }
    let by_hand: Vec<f64> = weighted.iter().map(|s| s / total).collect();
    let average = server.average();
    for (a, b) in average.iter().zip(&by_hand) {
        assert!((a - b).abs() < 1e-9, "{average:?} {by_hand:?}");
    }
    assert_eq!(rules.result(), average);
    // Gain pairs are counted in the last half only.
    assert_eq!(server.state.average_count, 20);
    drop(server);
    let resumed = Server::resume(files).unwrap();
    assert_eq!(resumed.average(), average);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Scores `item` alike in the server and in `rules` (a scripted pentanomial result)
/// and checks that both moved θ the same.
fn apply_alike(
    server: &mut Server,
    rules: &mut crate::rules::scripted::Run,
    item: &WorkItem,
    pair: &crate::rules::Pair,
) {
    let penta = (item.k * 7 % 5) as u8;
    server.apply(item, penta, [0, 0, 0]).unwrap();
    rules.update(item.k, pair, i32::from(penta) - 2);
    assert_eq!(
        rules.theta(),
        server.state.theta.as_slice(),
        "k = {}",
        item.k
    );
}

/// The values a work item plays, as the rule sets take them.
fn pair_of(item: &WorkItem) -> crate::rules::Pair {
    item.pair.clone()
}

/// A server of `params` playing fishtest's rules over `pairs` pairs, with
/// fishtest's constants.
fn fishtest_server(params: Vec<crate::tuned::params::TunedParam>, pairs: u64, seed: u64) -> Server {
    use crate::rules::Fishtest;
    use crate::rules::schedule::Hyper;
    let mut cfg = config(params, pairs, seed);
    cfg.rules = crate::rules::RunRules::named("fishtest").unwrap();
    let big_a = Fishtest::default_big_a(pairs);
    cfg.hyper = Hyper::new(pairs, Some(big_a), Hyper::ALPHA, Hyper::GAMMA);
    Server::new(cfg, None).unwrap()
}

/// With `--rules fishtest` the server sends and steps exactly as `rules::Fishtest`
/// does for the same draws (the stream of (seed, k)), pair for pair, and the result
/// is the last θ.
#[test]
fn fishtest_rules_follow_rules_fishtest() {
    use crate::rules::scripted::Run;
    use crate::rules::{Fishtest, Param};
    // 45 pairs: A = ⌊4.5⌋ = 4. b starts 1 below its bound, so θ+ or θ− is clipped.
    let mut server = fishtest_server(vec![param("a", 60.3), param("b", 199.0)], 45, 5);
    assert_eq!(server.config.hyper.big_a, 4.0);
    let same = |start| Param::new(start, 0, 200, Some(4.0), Some(0.01));
    let params = vec![same(60.3), same(199.0)];
    let mut rules = Run::new(Fishtest::new(params.clone(), 45), &params);
    let (mut clipped, mut uneven) = (false, false);
    while let Some(item) = server.next_work() {
        let expected = rules.perturb(item.k, &mut iteration_rng(5, item.k));
        let pair = pair_of(&item);
        assert_eq!(pair, expected, "k = {}", item.k);
        clipped |= pair.plus[1] == 200 || pair.minus[1] == 200;
        uneven |= (pair.plus[0] + pair.minus[0]) % 2 != 0;
        apply_alike(&mut server, &mut rules, &item, &pair);
    }
    assert!(clipped && uneven, "the run never clipped or rounded apart");
    assert_eq!(rules.result(), server.state.theta);
    assert_eq!(server.gain_side(), server.state.theta);
    assert_ne!(server.average(), server.state.theta);
}

/// One fishtest iteration by hand: each side clipped and rounded on its own, the
/// step divided by the nominal c_k.
#[test]
fn a_fishtest_iteration_by_hand() {
    // One pair planned: k = N = 1, so c_k = c_end = 4 and a_k/c_k² = r_end = 0.01.
    let mut server = fishtest_server(vec![param("a", 198.5)], 1, 3);
    let item = server.next_work().unwrap();
    let mut rng = iteration_rng(3, 1);
    let flip = crate::rules::Draws::flip(&mut rng);
    let (u_plus, u_minus) = (rng.random::<f64>(), rng.random::<f64>());
    assert_eq!(item.pair.flips, [flip]);
    // θ+ = ⌊clip(198.5 + 4·flip) + U⌋, θ− = ⌊clip(198.5 − 4·flip) + U′⌋: the side
    // above the bound is clipped to 200 on its own (200 + U rounds to 200).
    let (high, low) = (
        200,
        (194.5 + if flip == 1 { u_minus } else { u_plus }).floor(),
    );
    let expected = if flip == 1 {
        (high, low as i32)
    } else {
        (low as i32, high)
    };
    assert_eq!((item.pair.plus[0], item.pair.minus[0]), expected);
    // θ+ wins the pair 2-0: θ += a_k/c_k·2·flip = 0.01·4·2·flip = 0.08·flip, clipped.
    server.apply(&item, 4, [2, 0, 0]).unwrap();
    let moved = (198.5 + 0.08 * f64::from(flip)).min(200.0);
    assert!(
        (server.state.theta[0] - moved).abs() < 1e-12,
        "{:?}",
        server.state.theta
    );
}
