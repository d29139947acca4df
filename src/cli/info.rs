//! `test` (an ast-grep project's rule tests) and `langs` (the supported
//! languages).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::exit::TEST_FAILED;
use super::print;
use super::{ColorChoice, JsonFlag, TestArgs, style, write_json};
use ast_edit::app::cache::EntryCache;
use ast_edit::app::error::Error;
use ast_edit::app::lang;
use ast_edit::app::project;
use ast_edit::app::quote::{escape_controls, escape_in_lines};
use ast_edit::app::retired;
use ast_edit::app::ruletest::{self, CaseOutcome, MissingRule, RuleOutcome, TestOutcome, Verdict};
use ast_edit::app::text::plural;
use ast_edit::app::workspace::Workspace;

/// `ast-edit test`: the project's rule tests; PATH names the project by its
/// folder or config file.
pub(super) fn test(a: TestArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let Some(dir) = a.dir.clone() else {
        let config = a.config.clone();
        return project_test(a, config, color, out);
    };
    if let Some(config) = config_of(&dir) {
        if a.config.is_some() {
            return Err(Error::bad("give the project once: either -c FILE or PATH").into());
        }
        return project_test(a, Some(config), color, out);
    }
    retired::refuse(&dir)?;
    Err(Error::bad(format!(
        "{} is not an ast-grep project: neither sgconfig.yml nor sgconfig.yaml is there; give a project's folder or its config file, or drop PATH to test the nearest project",
        dir.display()
    ))
    .into())
}

/// PATH as a project: an sgconfig file, or a folder holding one.
fn config_of(path: &Path) -> Option<PathBuf> {
    let named = |p: &Path| p.file_name().is_some_and(|n| project::CONFIG_FILE_NAMES.iter().any(|c| n == *c));
    if path.is_file() && named(path) {
        return Some(path.to_path_buf());
    }
    project::CONFIG_FILE_NAMES.iter().map(|n| path.join(n)).find(|p| p.is_file())
}

/// The rule tests of the project of `config` (or the nearest one).
fn project_test(a: TestArgs, config: Option<PathBuf>, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = ast_edit::app::files::current_dir()?;
    let project = project::discover(&cwd, config.as_deref())?;
    a.custom_languages.check(&project)?;
    if a.snapshot_dir.is_some() && a.test_dir.is_none() {
        eprintln!(
            "warning: --snapshot-dir is ignored without --test-dir (as ast-grep ignores it): the snapshots of `testConfigs` are in each entry's `snapshotDir`"
        );
    }
    let opts = ruletest::Options {
        filter: a.filter.as_deref().map(project::parse_filter).transpose()?,
        // -i wins over -U, as in ast-grep.
        update_all: a.update_all && !a.interactive,
        skip_snapshot_tests: a.skip_snapshot_tests,
        test_dir: a.test_dir.as_ref().map(|d| project::TestConfig { test_dir: cwd.join(d), snapshot_dir: a.snapshot_dir.clone() }),
        include_off: a.include_off,
        follow: a.follow,
    };
    let color = style(color, false).color;
    // The scan cache (docs/DESIGN.md section 2.14), unless `--no-cache`.
    let cache = (!a.no_cache).then(|| Workspace::new(&cwd).test_cache());
    let entries = cache.as_ref().map(|c| c as &dyn EntryCache);
    let report =
        if a.interactive { super::test_review::run(&project, &opts, entries, color, out) } else { ruletest::run(&project, &opts, entries).map_err(Into::into) };
    if let Some(c) = &cache {
        c.finish();
    }
    let report = report?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    let loaded = project.load_rules(opts.filter.as_ref())?;
    let checks = ast_edit::app::checks::run(&project, &loaded, opts.filter.is_some())?;
    let failed_checks = checks.iter().filter(|c| !c.passed).count();
    if a.json {
        let mut v = serde_json::to_value(&report)?;
        v["checks"] = serde_json::to_value(&checks)?;
        write_json(out, &v)?;
    } else {
        let shown = if a.interactive { Shown::AfterReview } else { Shown::All };
        print_report(&report, color, shown, out)?;
        print_checks(&checks, color, out)?;
        out.flush()?;
        if report.failed > 0 {
            print_failed(&report);
        }
    }
    Ok(if report.failed == 0 && failed_checks == 0 { 0 } else { TEST_FAILED })
}

/// What [`print_report`] prints: everything, or (after `-i` showed the
/// cases one by one) only the lines per rule and the verdict.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shown {
    All,
    AfterReview,
}

/// The whole-file checks (docs/RULES.md): a line per failed case with its diff,
/// and the count.
fn print_checks(checks: &[ast_edit::app::checks::CheckResult], color: bool, out: &mut impl Write) -> std::io::Result<()> {
    if checks.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nRunning {} (astEdit.checkDirs)", plural(checks.len(), "whole-file check"))?;
    for c in checks.iter().filter(|c| !c.passed) {
        writeln!(out, "{} {} case {} ({})", print::paint(color, "31", "[check failed]"), c.file, c.case, c.ids.join(", "))?;
        if let Some(p) = &c.problem {
            writeln!(out, "{p}")?;
        }
    }
    let failed = checks.iter().filter(|c| !c.passed).count();
    if failed == 0 {
        writeln!(out, "checks: {}. {} passed; 0 failed;", print::paint(color, "32", "ok"), checks.len())
    } else {
        writeln!(out, "checks failed. {} passed; {failed} failed;", checks.len() - failed)
    }
}

/// The text report, laid out as `ast-grep test` lays it out: the tests'
/// count, the details of each case that did not pass, a line per rule
/// (`PASS id  ..W`: a mark per case), and the verdict.
fn print_report(r: &TestOutcome, color: bool, parts: Shown, out: &mut impl Write) -> std::io::Result<()> {
    if parts == Shown::All {
        print_header(r.rules.len(), &r.missing_rules, out)?;
        let shown: Vec<(&RuleOutcome, &CaseOutcome)> = r
            .rules
            .iter()
            .flat_map(|rule| rule.cases.iter().filter(|c| c.verdict != Verdict::Validated && c.verdict != Verdict::Reported).map(move |c| (rule, c)))
            .collect();
        // As ast-grep: the header even when every case passed.
        writeln!(out, "\n----------- Case Details -----------")?;
        for (rule, c) in shown {
            print_case(rule, c, color, out)?;
        }
    } else {
        writeln!(out)?;
    }
    for rule in &r.rules {
        let (word, code) = match (rule.cases.is_empty(), rule.passed) {
            (true, _) => ("SKIP", "33"),
            (false, true) => ("PASS", "32"),
            (false, false) => ("FAIL", "31"),
        };
        let marks = marks(&rule.cases);
        writeln!(out, "{} {}  {marks}", print::paint(color, code, word), escape_controls(&rule.id))?;
    }
    for w in &r.snapshots_written {
        writeln!(out, "wrote {w}")?;
    }
    writeln!(out)?;
    if r.failed == 0 {
        writeln!(out, "test result: {}. {} passed; 0 failed;", print::paint(color, "32", "ok"), r.passed)?;
    }
    Ok(())
}

/// A failed run's verdict, on stderr as ast-grep prints it (`Error: test
/// failed. ...`), with what to do next.
fn print_failed(r: &TestOutcome) {
    eprintln!("Error: test failed. {} passed; {} failed;", r.passed, r.failed);
    if r.snapshots_only {
        eprintln!(
            "Help: only snapshots differ or are missing: check the diffs, then run `ast-edit test -U` to accept them all, or `ast-edit test -i` to choose."
        );
    } else {
        eprintln!("Help: the cases above say what each rule got wrong: `Noisy`, a valid case it matched; `Missing`, an invalid case it did not match.");
    }
}

/// `Running N tests` (always plural, ast-grep's words) and a line per test
/// document whose rule is not loaded.
pub(super) fn print_header(rules: usize, missing: &[MissingRule], out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "Running {} tests", rules + missing.len())?;
    for m in missing {
        writeln!(out, "Rule not found: `{}` ({}): {}", escape_controls(&m.id), m.test_file, m.reason)?;
    }
    Ok(())
}

/// A mark per case (`.` passes, `W`rong, `M`issing, `N`oisy, `U`pdated,
/// `E`rror); over 40 cases, the count of each, centred in dots (as ast-grep).
fn marks(cases: &[CaseOutcome]) -> String {
    const MAX_MARKS: usize = 40;
    if cases.len() <= MAX_MARKS {
        return cases.iter().map(|c| c.verdict.mark()).collect();
    }
    let kinds: [(&str, &[Verdict]); 6] = [
        ("Pass", &[Verdict::Validated, Verdict::Reported]),
        ("Updated", &[Verdict::Updated]),
        ("Wrong", &[Verdict::Wrong]),
        ("Missing", &[Verdict::Missing]),
        ("Noisy", &[Verdict::Noisy]),
        ("Error", &[Verdict::Error]),
    ];
    let counts: Vec<String> = kinds
        .iter()
        .map(|(label, vs)| (label, cases.iter().filter(|c| vs.contains(&c.verdict)).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(label, n)| format!("{label} \u{d7} {n}"))
        .collect();
    format!("{:.^50}", counts.join(", "))
}

/// The details of one case that did not simply pass.
pub(super) fn print_case(rule: &RuleOutcome, c: &CaseOutcome, color: bool, out: &mut impl Write) -> std::io::Result<()> {
    let id = escape_controls(&rule.id);
    let label = |w: &str| print::paint(color, "4", w);
    match c.verdict {
        Verdict::Validated | Verdict::Reported => return Ok(()),
        Verdict::Updated => writeln!(out, "[{}] Rule {id}'s snapshot baseline has been updated.\n", label("Updated"))?,
        Verdict::Wrong => {
            match (&c.expected, &c.actual) {
                (Some(expected), actual) => {
                    writeln!(out, "[{}] {id} snapshot is different from baseline.", label("Wrong"))?;
                    writeln!(out, "{}", print::paint(color, "3", "Diff:"))?;
                    let yaml = |s: Option<&ruletest::TestSnapshot>| s.map(ruletest::to_yaml).unwrap_or_default();
                    super::numbered_diff::draw(out, &escape_in_lines(&yaml(Some(expected))), &escape_in_lines(&yaml(actual.as_ref())), 3, color)?;
                }
                (None, actual) => {
                    writeln!(out, "[{}] No {id} baseline found.", label("Wrong"))?;
                    writeln!(out, "{}", print::paint(color, "3", "Generated Snapshot:"))?;
                    indented(out, &actual.as_ref().map(ruletest::to_yaml).unwrap_or_default())?;
                }
            }
            writeln!(out, "{}", print::paint(color, "3", "For Code:"))?;
        }
        Verdict::Missing => writeln!(out, "[{}] Expect rule {id} to report issues, but none found in:\n", label("Missing"))?,
        Verdict::Noisy => writeln!(out, "[{}] Expect {id} to report no issue, but some issues found in:\n", label("Noisy"))?,
        Verdict::Error if c.not_run => {
            writeln!(out, "[{}] Cannot test {id} on this case: {}", label("Error"), c.error.as_deref().unwrap_or_default())?;
            writeln!(out, "For Code:")?;
        }
        Verdict::Error => {
            writeln!(out, "[{}] Fail to apply fix to {id}: {}", label("Error"), c.error.as_deref().unwrap_or_default())?;
            writeln!(out, "For Code:")?;
        }
    }
    indented(out, &c.code)?;
    writeln!(out)
}

/// `text` (a case's code, a snapshot), each line indented, its controls
/// escaped but its tabs kept.
fn indented(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    for line in escape_in_lines(text).lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// `ast-edit langs`.
pub(super) fn langs(a: JsonFlag, out: &mut impl Write) -> anyhow::Result<i32> {
    let rows = lang::rows();
    if a.json {
        write_json(out, &rows)?;
        return Ok(0);
    }
    writeln!(out, "{:<12} {:<28} extensions", "language", "names")?;
    for r in rows {
        let exts: Vec<String> = r.extensions.iter().map(|e| format!(".{e}")).collect();
        writeln!(out, "{:<12} {:<28} {}", r.name, r.aliases.join(", "), exts.join(" "))?;
    }
    Ok(0)
}
