//! `tuner simulate` through the real binary: one budget of every rule set and
//! landscape, a small sweep over a grid, and refused arguments.

mod common;
use common::{text, tuner};

#[test]
fn every_rule_set_runs_on_every_landscape() {
    for rules in [
        "fishtest",
        "autoselect",
        "openbench",
        "occam",
        "constant",
        "design",
    ] {
        for landscape in ["bowls", "unequal", "quartic", "asymmetric", "correlated"] {
            let out = tuner(&[
                "simulate",
                "--rules",
                rules,
                "--landscape",
                landscape,
                "--params",
                "3",
                "--games",
                "400",
                "--seeds",
                "3",
            ]);
            assert!(out.status.success(), "{rules} {landscape}: {}", text(&out));
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(stdout.contains(&format!("rules: {rules}")), "{stdout}");
            assert!(
                stdout.contains("400") && stdout.contains("mean loss"),
                "{stdout}"
            );
        }
    }
}

#[test]
fn a_grid_reports_each_setting_and_the_best() {
    // Worth 8 Elo and a precision of 2 Elo keep the budgets small (a few thousand games).
    let out = tuner(&[
        "simulate",
        "--rules",
        "occam",
        "--params",
        "2",
        "--worth",
        "8",
        "--design-worth",
        "8",
        "--precision",
        "2",
        "--c-scale",
        "2",
        "--r-end",
        "0.002,0.004",
        "--coarse-seeds",
        "10",
        "--seeds",
        "20",
        "--max-games",
        "200000",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("games needed").count(), 3, "{stdout}");
    assert!(
        stdout.contains("r_end 0.004") && stdout.contains("best:"),
        "{stdout}"
    );
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        vec!["simulate", "--correlation", "1.5"],
        vec!["simulate", "--penta", "1,2,3"],
        vec!["simulate", "--penta", "0,0,0,0,0"],
        vec!["simulate", "--target", "1"],
    ] {
        let out = tuner(&args);
        assert!(!out.status.success(), "{args:?} accepted: {}", text(&out));
    }
}
