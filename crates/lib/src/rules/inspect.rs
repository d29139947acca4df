//! What became of a scan's rules, for a front end that traces a scan as
//! `ast-grep scan --inspect` 0.51.1 does (docs/RULES.md, "Tracing a scan"):
//! each rule that runs with the severity it runs with, and how many rules were
//! set aside, counted as ast-grep counts them. The file side of the trace is
//! [`crate::plan::inspect`].

use super::overwrite::Overwrite;
use super::project::LoadedRules;
use crate::engine::Severity;

/// Where a scan's rules came from; it decides which rules set aside are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesFrom {
    /// A project's `ruleDirs`.
    Project,
    /// A rule file (`-r FILE`) or rules given as text (`--inline-rules`).
    Given,
}

/// A rule that runs, and the severity it runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedRule {
    /// Its id.
    pub id: String,
    /// Its severity after the overrides: never `None` (`off`), since a rule
    /// `off` does not run.
    pub severity: Option<Severity>,
}

/// The rules of a scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleTrace {
    /// The rules that run, in load order (file, then place in the file). The
    /// checks of `ast-grep-ignore` comments are not among them, as ast-grep
    /// leaves them out of its trace.
    pub rules: Vec<TracedRule>,
    /// The rules set aside, as ast-grep 0.51.1 counts them: for a project, every
    /// rule read that does not run (left out by `--filter`, `severity: off`, an
    /// override or `--min-severity`); for rules given on their own, only those
    /// that end `off` when no `--min-severity` is given (ast-grep drops the
    /// others, and every `off` rule below a minimum, before it counts).
    pub skipped: usize,
}

impl RuleTrace {
    /// The trace of `loaded`, after `overwrite` was applied to it and before
    /// the suppression checks are added.
    pub fn of(loaded: &LoadedRules, from: RulesFrom, overwrite: &Overwrite) -> RuleTrace {
        let rules = loaded.rules.iter().map(|r| TracedRule { id: r.id.clone(), severity: r.severity() }).collect();
        let skipped = match from {
            RulesFrom::Project => loaded.filtered + loaded.off.len(),
            RulesFrom::Given if overwrite.minimum().is_some() => 0,
            RulesFrom::Given => loaded.off.len(),
        };
        RuleTrace { rules, skipped }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::project::{Utils, parse_filter, parse_inline};

    const RULES: &str = "id: a\nlanguage: python\nseverity: warning\nrule: {pattern: a}\n---\nid: b\nlanguage: python\nseverity: off\nrule: {pattern: b}\n---\nid: c\nlanguage: python\nseverity: hint\nrule: {pattern: c}\n";

    fn trace(filter: Option<&str>, from: RulesFrom, o: &Overwrite) -> (Vec<(String, Option<Severity>)>, usize) {
        let filter = filter.map(|f| parse_filter(f).unwrap());
        let mut loaded = parse_inline(RULES, Utils::none(), filter.as_ref()).unwrap();
        o.apply(&mut loaded);
        let t = RuleTrace::of(&loaded, from, o);
        (t.rules.into_iter().map(|r| (r.id, r.severity)).collect(), t.skipped)
    }

    /// The counts `ast-grep scan --inspect summary` prints for the same rules
    /// (tests/it/inspect.rs compares them with the peer's through the binary).
    #[test]
    fn rules_set_aside_are_counted_as_ast_grep_counts_them() {
        let none = Overwrite::default();
        let ran = |v: &[(&str, Severity)]| v.iter().map(|(i, s)| (i.to_string(), Some(*s))).collect::<Vec<_>>();
        assert_eq!(trace(None, RulesFrom::Project, &none), (ran(&[("a", Severity::Warning), ("c", Severity::Hint)]), 1));
        assert_eq!(trace(Some("^a$"), RulesFrom::Project, &none), (ran(&[("a", Severity::Warning)]), 2));
        assert_eq!(trace(Some("^a$"), RulesFrom::Given, &none), (ran(&[("a", Severity::Warning)]), 0));
        let mut min = Overwrite::default();
        min.min_severity(Severity::Info);
        assert_eq!(trace(None, RulesFrom::Project, &min).1, 2);
        assert_eq!(trace(None, RulesFrom::Given, &min), (ran(&[("a", Severity::Warning)]), 0));
        let mut every = Overwrite::default();
        every.set(Some(Severity::Error), &[]);
        assert_eq!(trace(None, RulesFrom::Given, &every), (ran(&[("a", Severity::Error), ("b", Severity::Error), ("c", Severity::Error)]), 0));
    }
}
