//! Severity overrides given on a command line (`ast-edit scan --error`,
//! `--warning`, `--info`, `--hint`, `--off`, each for every rule or for named
//! ids, and `--min-severity`), applied to loaded rules as ast-grep 0.51.1's
//! `RuleOverwrite` applies them (docs/RULES.md, "Severity overrides"): a named
//! id wins over an override of every rule; among the flags for one id the last
//! in the order error, warning, info, hint, off wins; a rule below the minimum
//! (or `off`) is set aside.

use std::collections::HashMap;

use ast_grep_config::Severity as Given;

use super::project::LoadedRules;
use crate::engine::Severity;

/// The overrides of one command line. A severity given is a [`Severity`], or
/// `None` for `off`.
#[derive(Clone, Debug, Default)]
pub struct Overwrite {
    every: Option<Given>,
    by_id: HashMap<String, Given>,
    min: Option<Given>,
}

/// A severity as a rule config writes it: `None` is `off`.
pub(crate) fn given(s: Option<Severity>) -> Given {
    match s {
        None => Given::Off,
        Some(Severity::Hint) => Given::Hint,
        Some(Severity::Info) => Given::Info,
        Some(Severity::Warning) => Given::Warning,
        Some(Severity::Error) => Given::Error,
    }
}

/// A severity named on a command line (`--min-severity`), as ast-grep reads it:
/// `hint`, `info`, `warning`, `error` in any case; `off` and anything else are
/// none.
pub fn parse_severity(name: &str) -> Option<Severity> {
    name.parse::<Given>().ok().and_then(|s| Severity::of(&s))
}

impl Overwrite {
    /// Gives `severity` (`None`: `off`) to the rules `ids`, or to every rule
    /// when `ids` is empty. Call in the order error, warning, info, hint, off
    /// (a later call wins).
    pub fn set(&mut self, severity: Option<Severity>, ids: &[String]) {
        let severity = given(severity);
        if ids.is_empty() {
            self.every = Some(severity.clone());
        }
        for id in ids {
            self.by_id.insert(id.clone(), severity.clone());
        }
    }

    /// Sets aside the rules whose severity is below `min`.
    pub fn min_severity(&mut self, min: Severity) {
        self.min = Some(given(Some(min)));
    }

    /// The minimum severity given (`--min-severity`), if any.
    pub fn minimum(&self) -> Option<Severity> {
        self.min.as_ref().and_then(Severity::of)
    }

    /// True when the command line turns rules off (`--off`, `--min-severity`).
    pub fn leaves_rules_out(&self) -> bool {
        self.min.is_some() || self.every == Some(Given::Off) || self.by_id.values().any(|g| *g == Given::Off)
    }

    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self.every.is_none() && self.by_id.is_empty() && self.min.as_ref().is_none_or(|m| *m == Given::Off)
    }

    /// The severity rule `id` of severity `own` runs with (`None`: `off`).
    pub fn severity_of(&self, id: &str, own: Option<Severity>) -> Option<Severity> {
        Severity::of(&self.given_of(id, &given(own)))
    }

    /// [`Overwrite::severity_of`] as rule configs write severities.
    fn given_of(&self, id: &str, own: &Given) -> Given {
        let s = self.by_id.get(id).or(self.every.as_ref()).unwrap_or(own).clone();
        match &self.min {
            Some(min) if s < *min => Given::Off,
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
            let severity = self.given_of(&r.id, r.config.severity());
            let r = super::project::LoadedRule { config: r.config.with_severity(severity.clone()), severity: severity.clone(), ..r };
            if severity == Given::Off { loaded.off.push(r) } else { loaded.rules.push(r) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_id_wins_over_every_rule_and_the_minimum_sets_rules_aside() {
        let mut o = Overwrite::default();
        o.set(Some(Severity::Error), &[]);
        o.set(Some(Severity::Hint), &["a".into()]);
        o.set(None, &["b".into()]);
        assert_eq!(o.severity_of("a", Some(Severity::Warning)), Some(Severity::Hint));
        assert_eq!(o.severity_of("b", Some(Severity::Error)), None);
        assert_eq!(o.severity_of("c", Some(Severity::Hint)), Some(Severity::Error));
        o.min_severity(Severity::Info);
        assert_eq!(o.severity_of("a", Some(Severity::Warning)), None);
        assert_eq!(o.severity_of("c", Some(Severity::Hint)), Some(Severity::Error));
        assert!(Overwrite::default().is_empty());
    }
}
