//! The held-out check per term group: the held-out loss with one group's fitted
//! values alone, every other weight at its start. A fit that lowers the loss overall
//! can still overfit one group (a table with few positions behind each entry); this
//! shows which groups carry the gain and which would be better left as they were.

use std::collections::BTreeMap;

use super::model::{Model, Set};

/// Two-word prefixes with at least this many tuned weights are a group of their own
/// (`pst_knight`, `king_shelter`); smaller ones join their first word's (`pawn`).
const OWN_GROUP_MIN: usize = 10;

/// One group's check.
#[derive(Debug)]
pub struct GroupCheck {
    pub group: String,
    pub weights: usize,
    pub changed: usize,
    /// Held-out loss (against the target) with only this group fitted.
    pub held_out: f64,
}

/// The group of each name: its first two words where that prefix names at least
/// `OWN_GROUP_MIN` of `names`, else its first word.
pub fn term_groups(names: &[&str]) -> Vec<String> {
    let first_two = |n: &str| n.splitn(3, '_').take(2).collect::<Vec<_>>().join("_");
    let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
    for n in names {
        *sizes.entry(first_two(n)).or_default() += 1;
    }
    names
        .iter()
        .map(|n| {
            let two = first_two(n);
            if sizes[&two] >= OWN_GROUP_MIN {
                two
            } else {
                n.split('_').next().unwrap_or(n).to_string()
            }
        })
        .collect()
}

/// For each group with a changed weight: the held-out loss with the tuned slots at
/// `start` except that group's, which take `fitted`. Leaves `valid` linearised at the
/// last mix; the caller re-linearises what it uses next.
pub fn check(
    model: &Model,
    names: &[&str],
    valid: &mut Set,
    start: &[f64],
    fitted: &[f64],
    k: f64,
) -> Vec<GroupCheck> {
    let groups = term_groups(names);
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (slot, g) in groups.iter().enumerate() {
        members.entry(g).or_default().push(slot);
    }
    let mut checks = Vec::new();
    for (group, slots) in members {
        let changed = slots.iter().filter(|&&s| fitted[s] != start[s]).count();
        if changed == 0 {
            continue;
        }
        let mut mix = start.to_vec();
        for &s in &slots {
            mix[s] = fitted[s];
        }
        model.linearise(valid, &mix);
        checks.push(GroupCheck {
            group: group.to_string(),
            weights: slots.len(),
            changed,
            held_out: model.losses(valid, &mix, k).target,
        });
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_two_word_prefixes_are_groups_and_small_ones_join_their_first_word() {
        let mut names: Vec<String> = (0..12).map(|i| format!("pst_knight_mg_{i}")).collect();
        names.extend((0..3).map(|i| format!("pst_king_eg_{i}")));
        names.extend(["pawn_isolated_mg", "pawn_doubled_eg", "tempo_mg"].map(String::from));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let groups = term_groups(&refs);
        assert_eq!(groups[0], "pst_knight");
        assert_eq!(groups[11], "pst_knight");
        assert_eq!(
            groups[12], "pst",
            "three pst_king weights are too few for a group"
        );
        assert_eq!(&groups[15..], ["pawn", "pawn", "tempo"]);
    }
}
