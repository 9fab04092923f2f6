//! The real binaries start and answer the most basic requests.

use std::time::Duration;

use occam_tests::Engine;

#[test]
fn occam_answers_uci_and_isready() {
    let mut e = Engine::occam();
    let lines = e.ask("uci", "uciok", Duration::from_secs(10));
    assert!(
        lines.iter().any(|l| l.starts_with("id name Occam")),
        "{lines:?}"
    );
    e.sync();
}
