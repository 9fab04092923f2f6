//! `--params`: which parameters a tuner command works on. One rule for every command:
//! a comma-separated list of exact names and `prefix_*` patterns; no list means all.

use crate::{Error, rename_note, renamed};

/// A parsed `--params` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    patterns: Vec<String>,
}

impl Selector {
    /// Takes the list as given on the command line: items may themselves hold commas;
    /// blanks are ignored. An empty list selects everything. An old name of a renamed
    /// parameter selects it, with a note on stderr.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Selector {
        let patterns = items
            .iter()
            .flat_map(|s| s.as_ref().split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match renamed(s) {
                Some(current) => {
                    eprintln!("note: --params: {}", rename_note(s, current));
                    current.to_string()
                }
                None => s.to_string(),
            })
            .collect();
        Selector { patterns }
    }

    /// True when no list was given.
    pub fn selects_all(&self) -> bool {
        self.patterns.is_empty()
    }

    fn hits(pattern: &str, name: &str) -> bool {
        match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        self.selects_all() || self.patterns.iter().any(|p| Self::hits(p, name))
    }

    /// Positions in `names` of the selected ones, in ascending order. A pattern that
    /// selects nothing is an error that lists the names there are.
    pub fn pick<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<usize>, Error> {
        let unknown: Vec<&str> = self
            .patterns
            .iter()
            .filter(|p| !names.iter().any(|n| Self::hits(p, n.as_ref())))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            let all: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
            let shown = if all.len() > 40 {
                format!("{}, … ({} in all)", all[..40].join(", "), all.len())
            } else {
                all.join(", ")
            };
            let hint = if unknown.iter().any(|p| !p.ends_with('*')) {
                " (exact names; `prefix_*` selects every name with that prefix)"
            } else {
                ""
            };
            return Err(Error::new(format!(
                "--params: nothing is named {}{hint}; the names are: {shown}",
                unknown.join(", ")
            )));
        }
        Ok((0..names.len())
            .filter(|&i| self.matches(names[i].as_ref()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["rfp_margin", "rfp_max_depth", "nmp_base", "lmp_base"];

    #[test]
    fn exact_names_and_prefixes() {
        let s = Selector::parse(&["rfp_*, lmp_base", ""]);
        assert_eq!(s.pick(&NAMES).unwrap(), vec![0, 1, 3]);
        assert!(!s.matches("nmp_base"));
        assert_eq!(
            Selector::parse::<&str>(&[]).pick(&NAMES).unwrap(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(Selector::parse(&["*"]).pick(&NAMES).unwrap().len(), 4);
    }

    #[test]
    fn an_old_name_selects_the_renamed_parameter() {
        let names = ["seeprune_max_depth", "see_pawn"];
        let s = Selector::parse(&["see_max_depth"]);
        assert_eq!(s, Selector::parse(&["seeprune_max_depth"]));
        assert_eq!(s.pick(&names).unwrap(), vec![0]);
    }

    #[test]
    fn a_pattern_that_selects_nothing_is_named() {
        // A bare prefix is not a pattern: `rfp_` names no parameter.
        let err = Selector::parse(&["rfp_", "nmp_base"])
            .pick(&NAMES)
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("nothing is named rfp_ ") && text.contains("prefix_*"),
            "{text}"
        );
        assert!(text.contains("lmp_base"), "{text}");
        assert!(Selector::parse(&["zz_*"]).pick(&NAMES).is_err());
    }
}
