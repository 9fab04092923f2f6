//! Staged move ordering: TT move -> good captures by MVV/LVA -> killer 1 -> killer 2
//! -> counter move -> quiets by history -> bad captures. shakmaty has no staged
//! generator, so the stages are lazy in what costs: the TT move is tried before any
//! generation, and no quiet is scored (nor any SEE computed for the losing
//! captures) unless the earlier stages failed to cut.

use shakmaty::{Color, Move, MoveList};

use super::history::{ContKeys, History};
use super::see::{SeeValues, captured_value, see};
use crate::movegen;
use crate::position::Position;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    TtMove,
    Generate,
    GoodCaptures,
    ScoreQuiets,
    Quiets,
    BadCaptures,
    Done,
}

/// True for moves the q-search and capture stages handle (captures and promotions).
#[inline(always)]
pub fn is_noisy(m: &Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// One list per node, partitioned in place: `[0, bad_end)` losing captures already
/// seen, then the captures still to pick up to `noisy_end`, then the quiets.
pub struct MovePicker {
    pub stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    /// Continuation-history rows for scoring the quiets.
    cont: ContKeys,
    moves: MoveList,
    scores: [i32; 256],
    cursor: usize,
    noisy_end: usize,
    bad_end: usize,
    /// Set by the search (late move pruning/futility): the remaining quiets are
    /// skipped, except those that give check.
    pub skip_quiets: bool,
    /// Q-search outside check: no quiets and no losing captures at all.
    noisy_only: bool,
}

/// Killer/counter bonuses sit far above any history score.
const KILLER_1: i32 = 1 << 30;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;

impl MovePicker {
    /// Main search picker; `tt_move` must already be validated as legal.
    pub fn new(
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        cont: ContKeys,
    ) -> Self {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers,
            counter,
            cont,
            moves: MoveList::new(),
            scores: [0; 256],
            cursor: 0,
            noisy_end: 0,
            bad_end: 0,
            skip_quiets: false,
            noisy_only: false,
        }
    }

    /// Q-search picker: good captures and promotions, or every evasion when in check.
    pub fn new_qsearch(tt_move: Option<Move>, in_check: bool) -> Self {
        let mut p = MovePicker::new(
            tt_move.filter(|m| in_check || is_noisy(m)),
            [None; 2],
            None,
            ContKeys::default(),
        );
        p.noisy_only = !in_check;
        p
    }

    fn generate(&mut self, pos: &Position, history: &History, values: &SeeValues) {
        if self.noisy_only {
            // Q-search outside check: only the noisy moves, in the order the full
            // list below would leave them.
            movegen::noisy_moves_for_picker(pos.board(), self.tt_move, &mut self.moves);
        } else {
            self.moves = pos.legal_moves();
            if let Some(tt) = self.tt_move
                && let Some(i) = self.moves.iter().position(|m| *m == tt)
            {
                self.moves.swap_remove(i);
            }
        }
        // Partition: captures and promotions first, scored by MVV/LVA (the victim
        // dominates, the cheaper attacker breaks ties) plus caphist_: the capture
        // history in centipawns (history / caphist_div).
        let color = pos.turn();
        let mut n = 0;
        for i in 0..self.moves.len() {
            let m = self.moves[i];
            if is_noisy(&m) {
                self.moves.swap(n, i);
                let promo = m.promotion().map_or(0, |r| values.of(r));
                let hist = history.capture_score(color, &m) / values.caphist_div;
                self.scores[n] = (captured_value(&m, values) + promo + hist) * 16 - m.role() as i32;
                n += 1;
            }
        }
        self.noisy_end = n;
        self.cursor = 0;
    }

    /// Selection sort step over `[cursor, end)`.
    #[inline]
    fn pick_best(&mut self, end: usize) -> Option<Move> {
        if self.cursor >= end {
            return None;
        }
        let mut best = self.cursor;
        for i in self.cursor + 1..end {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.cursor, best);
        self.scores.swap(self.cursor, best);
        self.cursor += 1;
        Some(self.moves[self.cursor - 1])
    }

    fn score_quiets(&mut self, history: &History, color: Color) {
        for i in self.noisy_end..self.moves.len() {
            let m = self.moves[i];
            self.scores[i] = if Some(m) == self.killers[0] {
                KILLER_1
            } else if Some(m) == self.killers[1] {
                KILLER_2
            } else if Some(m) == self.counter {
                COUNTER
            } else {
                history.quiet_score(color, &m, self.cont)
            };
        }
    }

    /// The next move to search, or `None` when all are exhausted.
    pub fn next(&mut self, pos: &Position, history: &History, values: &SeeValues) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::Generate => {
                    self.generate(pos, history, values);
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => match self.pick_best(self.noisy_end) {
                    Some(m) => {
                        // Good: promotion, victim at least the attacker, or SEE not
                        // below a threshold that capture history lowers (caphist_see_div).
                        // The q-search keeps the plain SEE >= 0 rule.
                        let threshold = if self.noisy_only {
                            0
                        } else {
                            -history.capture_score(pos.turn(), &m) / values.caphist_see_div
                        };
                        let good = m.is_promotion()
                            || captured_value(&m, values) >= values.of(m.role())
                            || see(pos, &m, values) >= threshold.min(0);
                        if good {
                            return Some(m);
                        }
                        // Park it among the losing captures (slots already yielded).
                        self.moves[self.bad_end] = m;
                        self.bad_end += 1;
                    }
                    None => {
                        self.stage = if self.noisy_only {
                            Stage::Done
                        } else {
                            Stage::ScoreQuiets
                        }
                    }
                },
                Stage::ScoreQuiets => {
                    if !self.skip_quiets {
                        self.score_quiets(history, pos.turn());
                    }
                    self.cursor = self.noisy_end;
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if !self.skip_quiets {
                        if let Some(m) = self.pick_best(self.moves.len()) {
                            return Some(m);
                        }
                    } else {
                        // Pruned quiets: only checking ones are still offered, unsorted.
                        while self.cursor < self.moves.len() {
                            let m = self.moves[self.cursor];
                            self.cursor += 1;
                            if pos.quiet_gives_check(&m) {
                                return Some(m);
                            }
                        }
                    }
                    self.cursor = 0;
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if self.cursor < self.bad_end {
                        self.cursor += 1;
                        return Some(self.moves[self.cursor - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn order(fen: &str, tt: Option<&str>, killers: [Option<&str>; 2]) -> Vec<String> {
        let pos = Position::from_fen(fen, false).unwrap();
        let mv = |s: &str| pos.parse_uci_move(s).unwrap();
        let values = SeeValues::new(&Params::default());
        let history = History::default();
        let mut p = MovePicker::new(
            tt.map(mv),
            killers.map(|k| k.map(mv)),
            None,
            ContKeys::default(),
        );
        let mut out = Vec::new();
        while let Some(m) = p.next(&pos, &history, &values) {
            out.push(pos.move_to_uci(m));
        }
        out
    }

    #[test]
    fn tt_first_then_good_captures_killers_quiets_and_bad_captures_last() {
        // White: Qd1xd7 loses the queen to the king... set-up: Nxe5 (pawn defended: bad),
        // Rxa8 (rook takes undefended rook: good), quiet moves.
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K3 w - - 0 1";
        let moves = order(fen, Some("e1d2"), [Some("a1a2"), Some("f3g5")]);
        let legal = Position::from_fen(fen, false).unwrap().legal_moves().len();
        assert_eq!(moves.len(), legal, "every legal move exactly once");
        assert_eq!(moves[0], "e1d2");
        assert_eq!(moves[1], "a1a8");
        assert_eq!(moves[2], "a1a2");
        assert_eq!(moves[3], "f3g5");
        assert_eq!(moves.last().unwrap(), "f3e5");
        let mut dedup = moves.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), moves.len());
    }

    #[test]
    fn no_quiets_when_skipped_and_qsearch_only_good_noisy() {
        let fen = "r3k3/8/3p4/4p3/8/5N2/8/R3K3 w - - 0 1";
        let pos = Position::from_fen(fen, false).unwrap();
        let values = SeeValues::new(&Params::default());
        let history = History::default();
        let mut p = MovePicker::new_qsearch(None, false);
        let mut out = Vec::new();
        while let Some(m) = p.next(&pos, &history, &values) {
            out.push(pos.move_to_uci(m));
        }
        assert_eq!(out, vec!["a1a8"]);
    }
}
