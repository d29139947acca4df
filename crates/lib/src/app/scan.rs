//! The `scan` use case's rules, as `ast-grep scan` picks them: the rules given
//! (inline or a rule file) or the project's (named, or the nearest
//! `sgconfig.yml`), filtered, with the command line's severities, and the
//! suppression checks added (docs/RULES.md, "Projects and rule tests").

use std::path::Path;

use crate::request::ruleset::RuleSet;
use crate::rules::inspect::{RuleTrace, RulesFrom};
use crate::rules::overwrite::Overwrite;
use crate::rules::project::{self, Project};
use crate::rules::suppression;
use crate::shared::error::{Error, ProjectFault, Result};

/// Which rules a scan runs, as its command line gives them.
#[derive(Debug, Default)]
pub struct ScanInput<'a> {
    /// The project's config file (`-c FILE`); else the nearest `sgconfig.yml`.
    pub config: Option<&'a Path>,
    /// A rule file (`-r FILE`), run instead of the project's rules.
    pub rule_file: Option<&'a Path>,
    /// Rules as YAML text (`--inline-rules`), run instead of the project's.
    pub inline_rules: Option<&'a str>,
    /// Only the rules whose id matches this regular expression (`--filter`).
    pub filter: Option<&'a str>,
    /// The code comes on standard input: its rules must be given.
    pub stdin: bool,
    /// The severities the command line sets (`--error`, ..., `--off`,
    /// `--min-severity`). One that turns rules off means an unused
    /// suppression is reported only when a severity flag names it.
    pub overwrite: Overwrite,
}

/// The rules a scan runs, and what to tell about them.
#[derive(Debug)]
pub struct ScanRules {
    /// The rules, the suppression checks among them.
    pub rule_set: RuleSet,
    /// The rules for the trace (`--inspect`): `None` for standard input, whose
    /// scan traces its project only.
    pub trace: Option<RuleTrace>,
    /// Warnings of loading the rules and the project.
    pub warnings: Vec<String>,
    /// The found project's `noIgnore` (none without a project): the scan's
    /// walk leaves those ignore files unread too, as ast-grep's does.
    pub no_ignore: project::NoIgnoreConfig,
    /// No rule is left to run (all `severity: off`, below `--min-severity`,
    /// or none at all); as for ast-grep, no failure.
    pub none: bool,
}

/// The rules of a scan in `cwd`. `on_project` is told the project found (its
/// folder), before its rules are read, and `check_project` may refuse the
/// project whose own rules would run.
pub fn rules(input: ScanInput<'_>, cwd: &Path, on_project: &mut dyn FnMut(Option<&Path>), check_project: &dyn Fn(&Project) -> Result<()>) -> Result<ScanRules> {
    if input.stdin && input.rule_file.is_none() && input.inline_rules.is_none() {
        // ast-grep's code for rules not given (3).
        return Err(Error::project(
            ProjectFault::NotFound,
            "--stdin needs its rules given with -r FILE or --inline-rules TEXT (a project's rules are for its files)",
        ));
    }
    let filter = input.filter.map(project::parse_filter).transpose()?;
    // The project (`-c FILE`, else the nearest sgconfig.yml): rules given on
    // their own may still call its utilities, and the trace names it either way.
    let found = match input.config {
        Some(file) => Some(Project::open(file)?),
        None => project::find_config(cwd).map(|file| Project::open(&file)).transpose()?,
    };
    on_project(found.as_ref().map(|p| p.dir.as_path()));
    let mut no_ignore = found.as_ref().map(|p| p.no_ignore.clone()).unwrap_or_default();
    let utils = || found.as_ref().map_or_else(|| Ok(project::Utils::none()), |p| p.load_utils());
    let (mut loaded, from) = if let Some(text) = input.inline_rules {
        (project::parse_inline(text, utils()?, filter.as_ref())?, RulesFrom::Given)
    } else if let Some(file) = input.rule_file {
        (project::load_rule_file(file, utils()?, filter.as_ref())?, RulesFrom::Given)
    } else {
        // No project: discover's error says where it looked.
        let p = match found {
            Some(p) => p,
            None => project::discover(cwd, None)?,
        };
        check_project(&p)?;
        no_ignore = p.no_ignore.clone();
        // The project's warnings come with its rules (`loaded.warnings`).
        (p.load_rules(filter.as_ref())?, RulesFrom::Project)
    };
    input.overwrite.apply(&mut loaded);
    let trace = (!input.stdin).then(|| RuleTrace::of(&loaded, from, &input.overwrite));
    let none = loaded.rules.is_empty();
    // As ast-grep: the comments that suppress nothing are reported (a hint;
    // -U deletes them) when the scan runs every rule of a project, since a
    // comment may serve a rule left out; `--error=unused-suppression` (and the
    // other severity flags) decide otherwise.
    let every_rule = input.rule_file.is_none() && input.inline_rules.is_none() && input.filter.is_none() && !input.overwrite.leaves_rules_out();
    let default = every_rule.then_some(crate::engine::Severity::Hint);
    let mut checks = suppression::rules_for(suppression::UNUSED, &loaded.rules, input.overwrite.severity_of(suppression::UNUSED, default));
    checks.extend(suppression::rules_for(suppression::NO_SUPPRESS_ALL, &loaded.rules, input.overwrite.severity_of(suppression::NO_SUPPRESS_ALL, None)));
    loaded.rules.extend(checks);
    Ok(ScanRules { rule_set: loaded.rule_set(), trace, warnings: std::mem::take(&mut loaded.warnings), no_ignore, none })
}
