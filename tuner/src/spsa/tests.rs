//! Tests of the plan: which parameters a run tunes, where their gains come from, and
//! what the plan says.

use occam::Params;

use super::args::*;
use super::gains::*;
use super::journal::RunConfig;
use super::plan::*;
use super::plan_text::*;
use crate::design;
use crate::param_files::{Field, load_all, overlay};
use crate::play::game::TimeControl;
use crate::rules::occam::DEFAULT_AVERAGE_FRACTION;
use crate::rules::schedule::Hyper;
use crate::tuned::params::Requested;
use crate::tuned::probe::ProbeResult;
use crate::tuned::side::{InProcess, TunedSide};

fn search_file() -> TunedSide {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/search.json");
    let files = load_all(&[path]).unwrap();
    let mut base = Params::default();
    overlay(&mut base, &files, Field::Value).unwrap();
    TunedSide::InProcess(InProcess { files, base })
}

fn tuned(side: &TunedSide, tc: TimeControl, force: bool) -> (Vec<String>, Vec<String>) {
    let (chosen, left_out) = measurable(side.select(&[]).unwrap(), &tc, force).unwrap();
    (
        chosen.into_iter().map(|c| c.name).collect(),
        left_out.into_iter().map(|l| l.name).collect(),
    )
}

#[test]
fn only_games_on_a_clock_tune_time_management() {
    let files = search_file();
    let all = files.candidates().unwrap().len();
    let clock = TimeControl::Clock {
        base_ms: 8000,
        inc_ms: 80,
    };
    let (on_clock, none) = tuned(&files, clock, false);
    assert_eq!((on_clock.len(), none.len()), (all, 0));
    for tc in [
        TimeControl::Nodes(8000),
        TimeControl::Depth(6),
        TimeControl::MoveTime(100),
    ] {
        let (kept, out) = tuned(&files, tc, false);
        let clock_only = on_clock.iter().filter(|n| n.starts_with("tm_")).count();
        assert!(clock_only >= 7, "{on_clock:?}");
        assert_eq!(out.len(), clock_only, "{tc:?}");
        assert!(out.iter().all(|n| n.starts_with("tm_")), "{out:?}");
        assert!(kept.iter().all(|n| !n.starts_with("tm_")), "{kept:?}");
        assert_eq!(kept.len() + out.len(), all);
        // Forced in: everything, in file order.
        let (forced, none) = tuned(&files, tc, true);
        assert_eq!((&forced, none.len()), (&on_clock, 0));
    }
}

/// `tuner spsa` arguments as a command line gives them.
fn args(line: &str) -> Args {
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }
    <Cli as clap::Parser>::try_parse_from(std::iter::once("spsa").chain(line.split_whitespace()))
        .unwrap()
        .args
}

fn requested(name: &str, c_end: Option<f64>, r_end: Option<f64>) -> Requested {
    Requested {
        name: name.into(),
        start: 100.0,
        min: 0,
        max: 200,
        c_end,
        r_end,
    }
}

#[test]
fn a_run_whose_files_give_every_c_end_and_r_end_decays_as_fishtest() {
    let given = [
        requested("a", Some(10.0), Some(0.002)),
        requested("b", Some(4.0), Some(0.01)),
    ];
    let r = resolve(&given, &args("x.json --pairs 1000"), &ProbeResult::NONE);
    assert!(!r.designed);
    assert_eq!(r.hyper, Hyper::new(1000, None, Hyper::ALPHA, Hyper::GAMMA));
    assert_eq!(r.average_fraction, DEFAULT_AVERAGE_FRACTION);
    let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
    assert_eq!(ends, [(10.0, 0.002), (4.0, 0.01)]);
    assert_eq!(r.sources, [(Source::File, Source::File); 2]);
    let r = resolve(
        &given,
        &args("x.json --pairs 1000 --alpha 0.5 --spsa-a 7 --r-end 0.02 --average-fraction 0.1"),
        &ProbeResult::NONE,
    );
    assert_eq!(
        (r.hyper.alpha, r.hyper.gamma, r.hyper.big_a),
        (0.5, Hyper::GAMMA, 7.0)
    );
    assert_eq!(
        (r.params[0].r_end, r.sources[0]),
        (0.02, (Source::File, Source::Flag))
    );
    assert_eq!(r.average_fraction, 0.1);
}

#[test]
fn a_run_with_a_parameter_left_to_the_design_plays_constant_designed_gains() {
    let mixed = [
        requested("a", Some(10.0), Some(0.002)),
        requested("b", None, None),
        requested("c", Some(4.0), None),
    ];
    // A run long enough for the precision: its r.
    let r = resolve(&mixed, &args("x.json --pairs 200000"), &ProbeResult::NONE);
    assert!(r.designed && !r.short_run);
    assert_eq!(r.hyper, Hyper::new(200_000, Some(0.0), 0.0, 0.0));
    let averaging = (r.average_fraction, r.average_power);
    assert_eq!(
        averaging,
        (design::AVERAGING.fraction, design::AVERAGING.power)
    );
    let designed_r = design::precision_r(design::PRECISION, 3, design::PRIOR_GAME_VARIANCE);
    let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
    assert_eq!(ends, [(10.0, 0.002), (50.0, designed_r), (4.0, designed_r)]);
    assert_eq!(
        r.sources,
        [
            (Source::File, Source::File),
            (Source::Designed, Source::Designed),
            (Source::File, Source::Designed)
        ]
    );
    // The schedule is constant: c_k and a_k/c_k² are the resolved c and r at every k.
    let g =
        crate::rules::schedule::DecayingGains::new(r.params[1].c_end, r.params[1].r_end, &r.hyper);
    for k in [1, 1000, 200_000] {
        let at = crate::rules::schedule::Decay::at(k, &r.hyper);
        assert_eq!(at.c_k(&g), 50.0);
        assert!((at.a_k(&g) / 2500.0 - designed_r).abs() < 1e-15);
    }
    // 2000 pairs are too few for that precision: the short run's r, larger.
    let r = resolve(&mixed, &args("x.json --pairs 2000"), &ProbeResult::NONE);
    let short = design::r_for_budget(4000.0);
    assert!(r.short_run && short > designed_r);
    assert_eq!((r.params[1].r_end, r.params[2].r_end), (short, short));
    assert_eq!(r.params[0].r_end, 0.002);
    let r = resolve(
        &mixed,
        &args("x.json --pairs 2000 --r-end 0.01 --average-fraction 0.3"),
        &ProbeResult::NONE,
    );
    assert!(r.params.iter().all(|p| p.r_end == 0.01));
    assert_eq!(r.sources[1], (Source::Designed, Source::Flag));
    // --average-fraction: that share, equally weighted.
    assert_eq!((r.average_fraction, r.average_power), (0.3, 0.0));
    // A probe that took 120 pairs, halved c and measured noisier games: c halves,
    // r follows the variance, the SPSA pairs are what is left.
    let probing = ProbeResult {
        c_scale: 0.5,
        game_variance: 0.78,
        pairs: 120,
        games_per_second: None,
    };
    let r = resolve(&mixed, &args("x.json --pairs 200000"), &probing);
    assert_eq!(r.hyper.pairs, 199_880);
    assert_eq!(
        (r.params[0].c_end, r.params[1].c_end, r.params[2].c_end),
        (10.0, 25.0, 4.0)
    );
    assert_eq!(
        r.params[1].r_end,
        design::precision_r(design::PRECISION, 3, 0.78)
    );
    assert_eq!(r.params[0].r_end, 0.002);
}

#[test]
fn until_plans_the_pairs_the_design_expects_to_need() {
    // n = 4 at fishtest's reference variance: 167,492 games for 0.5 Elo, so 83,746
    // pairs; ten times coarser, ten times fewer.
    let games = design::games_for(0.5, 4, 0.39, design::COST_TARGET);
    assert_eq!(until_pairs(0.5, 4, 0.39), (games / 2.0).ceil() as u64);
    assert_eq!(until_pairs(5.0, 4, 0.39), (games / 20.0).ceil() as u64);
    // Noisier games need more.
    assert!(until_pairs(0.5, 4, 0.78) > 2 * until_pairs(0.5, 4, 0.39) - 2);
    // r is the precision's: a coarser target plays a larger r.
    let mixed = [requested("b", None, None)];
    // (The pairs as the run plans them: enough for the precision, so its r.)
    let planned = |precision: f64| {
        let mut a = args(&format!("x.json --until {precision}"));
        a.pairs = until_pairs(precision, 1, design::PRIOR_GAME_VARIANCE);
        a
    };
    let fine = resolve(&mixed, &planned(0.5), &ProbeResult::NONE);
    let coarse = resolve(&mixed, &planned(5.0), &ProbeResult::NONE);
    assert!(!fine.short_run && !coarse.short_run);
    let ratio = coarse.params[0].r_end / fine.params[0].r_end;
    assert!((ratio - 10.0).abs() < 1e-9, "{ratio}");
}

fn plan_of(params: &[Requested], line: &str) -> Vec<String> {
    plan_after(params, line, &ProbeResult::NONE)
}

fn plan_after(params: &[Requested], line: &str, probing: &ProbeResult) -> Vec<String> {
    let a = args(line);
    let r = resolve(params, &a, probing);
    let config = RunConfig {
        version: 1,
        files: vec![],
        params: r.params.clone(),
        hyper: r.hyper,
        seed: 1,
        average_fraction: r.average_fraction,
        average_power: r.average_power,
        designed: r.designed,
        rules: a.rules,
        games: String::new(),
        openings: 1,
        nonce: 0,
        left_out: vec![],
        engine: None,
    };
    plan_lines(&config, &r, output_of(&a).unwrap())
}

#[test]
fn a_probed_plan_gives_its_games_in_time_at_the_probes_rate() {
    let probing = ProbeResult {
        c_scale: 1.0,
        game_variance: design::PRIOR_GAME_VARIANCE,
        pairs: 0,
        games_per_second: Some(10.0),
    };
    let plan = plan_after(
        &[requested("b", None, None)],
        "x.json --pairs 2000",
        &probing,
    );
    let games = plan[plan.len() - 2].as_str();
    assert!(
        games.starts_with("spsa: planned 4,000 games (≈ 7 min); "),
        "{games}"
    );
    let expected = design::rounded(design::games_for(0.5, 1, 0.39, design::COST_TARGET));
    let time = duration_text(expected / 10.0);
    assert!(
        games.contains(&format!(" games (≈ {time}) to end within")),
        "{games}"
    );
    assert_eq!(
        plan[plan.len() - 1],
        "spsa: times at the 10.0 games/s the probe's games were played at"
    );
}

#[test]
fn durations_read_in_the_unit_a_plan_is_made_in() {
    assert_eq!(duration_text(30.0), "under a minute");
    assert_eq!(duration_text(3600.0), "60 min");
    assert_eq!(duration_text(3.0 * 3600.0), "3.0 h");
    assert_eq!(duration_text(3.0 * 86400.0), "3.0 days");
}

#[test]
fn the_plan_says_where_each_c_and_r_comes_from() {
    let plan = plan_of(
        &[
            requested("a_long_name", Some(10.0), Some(0.002)),
            requested("b", None, None),
        ],
        "x.json --pairs 2000",
    );
    assert_eq!(plan.len(), 4, "{plan:#?}");
    assert!(
        plan[0].contains("constant gains")
            && plan[0].contains("θ averaged over the run, θ after pair k weighted by k^2"),
        "{}",
        plan[0]
    );
    // 4,000 games are too few for 0.5 Elo with 2 parameters: the short run's r.
    assert!(
        plan[0].contains("shrinks by e over this run's 4,000 games (at most 0.02)"),
        "{}",
        plan[0]
    );
    assert_eq!(plan[1], "spsa:   a_long_name  c 10       r 0.002    (file)");
    let r = design::rounded(design::r_for_budget(4000.0));
    assert_eq!(
        plan[2],
        format!("spsa:   b            c 50       r {r:<8} (designed)")
    );
    let expected = crate::text::thousands(design::rounded(design::games_for(
        0.5,
        2,
        0.39,
        design::COST_TARGET,
    )));
    assert_eq!(
        plan[3],
        format!(
            "spsa: planned 4,000 games; the design expects about {expected} games to end within 0.5 Elo of the optimum of a quadratic landscape (95%, 2 parameters)"
        )
    );
    // Above 12 parameters: the first five and a count per source.
    let mut many: Vec<Requested> = (0..20)
        .map(|i| requested(&format!("p{i}"), Some(2.0), Some(0.002)))
        .collect();
    let plan = plan_of(&many, "x.json --pairs 500 --output last");
    assert_eq!(plan.len(), 1 + 5 + 1, "{plan:#?}");
    assert!(
        plan[0].contains("decaying")
            && plan[0].contains("at pair 500")
            && plan[0].contains("the last θ"),
        "{}",
        plan[0]
    );
    assert_eq!(plan[6], "spsa:   … and 15 more (15 file)");
    many[17].c_end = None;
    many[18].r_end = None;
    let plan = plan_of(&many, "x.json --pairs 500");
    assert_eq!(
        plan[6],
        "spsa:   … and 15 more (13 file; 1 c file, r designed; 1 c designed, r file)"
    );
    assert!(
        plan[7].starts_with("spsa: planned 1,000 games"),
        "{}",
        plan[7]
    );
}

#[test]
fn fishtest_rules_decay_from_tune_defaults_and_write_the_last_theta() {
    let mixed = [
        requested("a", Some(10.0), Some(0.01)),
        requested("b", None, None),
        requested("c", Some(4.0), None),
    ];
    // 1005 pairs: A = ⌊100.5⌋ = 100, fishtest's integer A.
    let a = args("x.json --pairs 1005 --rules fishtest");
    let r = resolve(&mixed, &a, &ProbeResult::NONE);
    assert!(!r.designed);
    assert_eq!(
        r.hyper,
        Hyper::new(1005, Some(100.0), Hyper::ALPHA, Hyper::GAMMA)
    );
    // [0, 200]: Stockfish's TUNE defaults are c_end = 200/20 = 10 and r_end = 0.002.
    let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
    assert_eq!(ends, [(10.0, 0.01), (10.0, 0.002), (4.0, 0.002)]);
    assert_eq!(
        r.sources,
        [
            (Source::File, Source::File),
            (Source::Default, Source::Default),
            (Source::File, Source::Default)
        ]
    );
    assert_eq!(output_of(&a).unwrap(), Output::Last);
    // --spsa-a, --alpha, --gamma and --r-end set fishtest's constants as they do
    // Occam's decaying schedule.
    let r = resolve(
        &mixed,
        &args("x.json --pairs 1005 --rules fishtest --spsa-a 7 --r-end 0.02"),
        &ProbeResult::NONE,
    );
    assert_eq!(r.hyper.big_a, 7.0);
    assert!(r.params.iter().all(|p| p.r_end == 0.02));
    // Occam's rules keep A = 0.1·N and leave these parameters to the design.
    let r = resolve(&mixed, &args("x.json --pairs 1005"), &ProbeResult::NONE);
    assert!(r.designed);
    let given = [requested("a", Some(10.0), Some(0.01))];
    let r = resolve(&given, &args("x.json --pairs 1005"), &ProbeResult::NONE);
    assert_eq!(r.hyper.big_a, 100.5);
}

#[test]
fn fishtest_rules_refuse_the_flags_only_occams_rules_use() {
    assert_eq!(output_of(&args("x.json")).unwrap(), Output::Average);
    let last = args("x.json --rules occam --output last");
    assert_eq!(output_of(&last).unwrap(), Output::Last);
    let fishtest = args("x.json --rules fishtest --output last --gain-every 3");
    assert_eq!(output_of(&fishtest).unwrap(), Output::Last);
    for flag in [
        "--until 1",
        "--probe-pairs 10",
        "--average-fraction 0.5",
        "--output average",
    ] {
        let err = output_of(&args(&format!("x.json --rules fishtest {flag}")))
            .unwrap_err()
            .to_string();
        let name = flag.split(' ').next().unwrap();
        assert!(
            err.starts_with("--rules fishtest cannot take") && err.contains(name),
            "{err}"
        );
    }
}

#[test]
fn openbench_rules_decay_from_its_default_a_and_refuse_the_design() {
    let mixed = [
        requested("a", Some(10.0), Some(0.01)),
        requested("b", None, None),
    ];
    // 1005 pairs: OpenBench's A = 0.1·N, not floored.
    let a = args("x.json --pairs 1005 --rules openbench");
    let r = resolve(&mixed, &a, &ProbeResult::NONE);
    assert!(!r.designed);
    assert_eq!(r.hyper.big_a, 100.5);
    let ends: Vec<_> = r.params.iter().map(|p| (p.c_end, p.r_end)).collect();
    assert_eq!(ends, [(10.0, 0.01), (10.0, 0.002)]);
    assert_eq!(output_of(&a).unwrap(), Output::Last);
    let err = output_of(&args("x.json --rules openbench --until 1"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("--rules openbench cannot take --until: OpenBench's rules never use"),
        "{err}"
    );
    let plan = plan_of(&mixed, "x.json --pairs 1000 --rules openbench");
    assert!(
        plan[0].starts_with("spsa: plan: OpenBench's rules (a baseline)")
            && plan[0].contains("an integer c floored at 0.5"),
        "{plan:#?}"
    );
}

#[test]
fn the_plan_of_fishtest_rules_names_them_and_the_tune_defaults() {
    let plan = plan_of(
        &[
            requested("a", Some(10.0), Some(0.01)),
            requested("b", None, None),
        ],
        "x.json --pairs 1000 --rules fishtest",
    );
    assert_eq!(plan.len(), 3, "{plan:#?}");
    assert!(
        plan[0].starts_with("spsa: plan: fishtest's rules (a baseline)")
            && plan[0].contains("at pair 1000 (alpha 0.602, gamma 0.101, A 100)")
            && plan[0].contains("nominal c_k")
            && plan[0].ends_with("result: the last θ"),
        "{}",
        plan[0]
    );
    assert_eq!(plan[1], "spsa:   a  c 10       r 0.01     (file)");
    assert_eq!(plan[2], "spsa:   b  c 10       r 0.002    (TUNE default)");
}
