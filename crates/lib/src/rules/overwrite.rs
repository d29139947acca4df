//! Severity overrides given on a command line (`ast-edit scan --error`,
//! `--warning`, `--info`, `--hint`, `--off`, each for every rule or for named
//! ids, and `--min-severity`), applied to loaded rules as ast-grep 0.51.1's
//! `RuleOverwrite` applies them (docs/RULES.md, "Severity overrides"): a named
//! id wins over an override of every rule; among the flags for one id the last
//! in the order error, warning, info, hint, off wins; a rule below the minimum
//! (or `off`) is set aside.

use std::collections::HashMap;

pub use ast_grep_config::Severity;

use super::project::LoadedRules;

/// The overrides of one command line.
#[derive(Clone, Debug, Default)]
pub struct Overwrite {
    every: Option<Severity>,
    by_id: HashMap<String, Severity>,
    min: Option<Severity>,
}

impl Overwrite {
    /// Gives `severity` to the rules `ids`, or to every rule when `ids` is empty.
    /// Call in the order error, warning, info, hint, off (a later call wins).
    pub fn set(&mut self, severity: Severity, ids: &[String]) {
        if ids.is_empty() {
            self.every = Some(severity.clone());
        }
        for id in ids {
            self.by_id.insert(id.clone(), severity.clone());
        }
    }

    /// Sets aside the rules whose severity is below `min`.
    pub fn min_severity(&mut self, min: Severity) {
        self.min = Some(min);
    }

    /// The minimum severity given (`--min-severity`), if any.
    pub fn minimum(&self) -> Option<&Severity> {
        self.min.as_ref()
    }

    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self.every.is_none() && self.by_id.is_empty() && self.min.as_ref().is_none_or(|m| *m == Severity::Off)
    }

    /// The severity rule `id` of severity `own` runs with.
    pub fn severity_of(&self, id: &str, own: &Severity) -> Severity {
        let s = self.by_id.get(id).or(self.every.as_ref()).unwrap_or(own).clone();
        match &self.min {
            Some(min) if s < *min => Severity::Off,
            _ => s,
        }
    }

    /// Applies the overrides to `loaded`: each rule gets its severity, and the
    /// rules that end `off` are set aside (a rule `off` in its file that an
    /// override turns on runs). Rules keep their order (file, then place).
    pub fn apply(&self, loaded: &mut LoadedRules) {
        if self.is_empty() {
            return;
        }
        let mut all: Vec<_> = loaded.rules.drain(..).chain(loaded.off.drain(..)).collect();
        all.sort_by(|a, b| (&a.file, a.index).cmp(&(&b.file, b.index)));
        for r in all {
            let severity = self.severity_of(&r.id, r.config.severity());
            let r = super::project::LoadedRule { config: r.config.with_severity(severity.clone()), severity: severity.clone(), ..r };
            if severity == Severity::Off { loaded.off.push(r) } else { loaded.rules.push(r) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_id_wins_over_every_rule_and_the_minimum_sets_rules_aside() {
        let mut o = Overwrite::default();
        o.set(Severity::Error, &[]);
        o.set(Severity::Hint, &["a".into()]);
        o.set(Severity::Off, &["b".into()]);
        assert_eq!(o.severity_of("a", &Severity::Warning), Severity::Hint);
        assert_eq!(o.severity_of("b", &Severity::Error), Severity::Off);
        assert_eq!(o.severity_of("c", &Severity::Hint), Severity::Error);
        o.min_severity(Severity::Info);
        assert_eq!(o.severity_of("a", &Severity::Warning), Severity::Off);
        assert_eq!(o.severity_of("c", &Severity::Hint), Severity::Error);
        assert!(Overwrite::default().is_empty());
    }
}
