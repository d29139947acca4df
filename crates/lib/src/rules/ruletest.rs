//! `ast-edit test` on an ast-grep project: the rule tests of `testConfigs`, judged as
//! `ast-grep test` 0.51.1 judges them, so a project's tests give the same verdicts in
//! both tools, and snapshots (the first match's labels and `fixed`) written by `-U` in
//! the bytes `ast-grep test -U` writes. The test files, the verdicts and the snapshots:
//! docs/RULES.md, "Rule tests: `ast-edit test`"; where a snapshot may be written:
//! docs/DESIGN.md §7.

// Ported in part from ast-grep's `crates/cli/src/verify.rs` and `verify/*.rs`
// (0.51.1):
//
// MIT License. Copyright (c) 2022 Herrington Darkholme. Permission is hereby
// granted, free of charge, to any person obtaining a copy of this software and
// associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy,
// modify, merge, publish, distribute, sublicense, and/or sell copies of the
// Software, and to permit persons to whom the Software is furnished to do so,
// subject to the following conditions: The above copyright notice and this
// permission notice shall be included in all copies or substantial portions of
// the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
// EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
// MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
// EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
// OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
// ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ast_grep_config::RuleConfig;
use ast_grep_language::SupportLang;
use rayon::prelude::*;
use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::engine::budget::{self, Budget};
use crate::engine::metered;
use crate::plan::cache::EntryCache;
use crate::request::read::SkipReason;
use crate::rules::project::MAX_RULE_FILE_BYTES;
use crate::rules::project::{self, LoadedRule, LoadedRules, Project, TestConfig};
use crate::shared::error::{Error, ProjectFault, Result, error_chain};
use crate::shared::named::read_capped_text;

mod stored;
mod write;

#[cfg(test)]
pub(super) use write::snapshot_target;
use write::{snapshot_path, write_snapshots};

/// The snapshot folder of a test folder when `snapshotDir` is not given.
pub const SNAPSHOT_DIR: &str = "__snapshots__";

/// How to run the tests.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only the rules and tests whose id matches.
    pub filter: Option<Regex>,
    /// Accept every differing or missing snapshot and write the snapshot files.
    pub update_all: bool,
    /// Judge invalid cases by "the rule matches" alone.
    pub skip_snapshot_tests: bool,
    /// Read the tests from this folder (and its snapshot folder) instead of
    /// the project's `testConfigs`; a relative path is relative to the
    /// project folder.
    pub test_dir: Option<TestConfig>,
    /// Also test the rules of `severity: off` (as ast-grep's `--include-off`).
    pub include_off: bool,
    /// Follow symbolic links while walking the test folders.
    pub follow: bool,
}

/// One document of a test file.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TestCase {
    id: String,
    #[serde(default)]
    valid: Vec<String>,
    #[serde(default)]
    invalid: Vec<String>,
}

/// A snapshot file: the snapshot of each invalid case of one rule, by its code.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestSnapshots {
    /// The rule id.
    pub id: String,
    /// Code -> snapshot (written in code order, as ast-grep writes them).
    pub snapshots: BTreeMap<String, TestSnapshot>,
}

/// What a rule reports on one invalid case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestSnapshot {
    /// The code after the rule's fix replaced the first match (no fix: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed: Option<String>,
    /// The labels of the first match.
    pub labels: Vec<LabelSnapshot>,
}

/// One label of a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSnapshot {
    /// The labelled code.
    pub source: String,
    /// The label's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `primary` or `secondary`.
    pub style: LabelStyle,
    /// Byte offset where the label starts.
    pub start: usize,
    /// Byte offset where it ends.
    pub end: usize,
}

/// A label's style, written as ast-grep-config writes its own `LabelStyle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LabelStyle {
    /// The label of the match itself.
    Primary,
    /// A label around it.
    Secondary,
}

/// The verdict on one case (ast-grep's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// A valid case the rule does not match.
    Validated,
    /// An invalid case the rule matches (with the kept snapshot, when checked).
    Reported,
    /// An invalid case whose new snapshot `-U` accepted.
    Updated,
    /// An invalid case whose snapshot differs from the kept one, or has none kept.
    Wrong,
    /// An invalid case the rule does not match.
    Missing,
    /// A valid case the rule matches.
    Noisy,
    /// The rule's fix could not be applied to the case.
    Error,
}

impl Verdict {
    /// True for the verdicts that pass.
    pub fn passes(self) -> bool {
        matches!(self, Verdict::Validated | Verdict::Reported | Verdict::Updated)
    }

    /// ast-grep's one-letter mark of the verdict (`.` passes).
    pub fn mark(self) -> char {
        match self {
            Verdict::Validated | Verdict::Reported => '.',
            Verdict::Updated => 'U',
            Verdict::Wrong => 'W',
            Verdict::Missing => 'M',
            Verdict::Noisy => 'N',
            Verdict::Error => 'E',
        }
    }
}

/// `valid` or `invalid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CaseKind {
    /// From `valid`: the rule must not match.
    Valid,
    /// From `invalid`: the rule must match.
    Invalid,
}

/// The result of one case.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseOutcome {
    /// Which list the case is from.
    pub kind: CaseKind,
    /// The case's code.
    pub code: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The kept snapshot, for a `wrong` case that has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<TestSnapshot>,
    /// The snapshot the rule gives now (`wrong` and `updated` cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<TestSnapshot>,
    /// For a `wrong` case with a kept snapshot: the unified diff from the kept
    /// snapshot to the new one, both as YAML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// For a `error` case: why the fix failed, or why the case was not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The case was not run: the rule's transforms or rewriters would do more
    /// work on it than a file may (`compile::work`; `error` says which).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_run: bool,
}

/// The results of one test document (one rule).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleOutcome {
    /// The rule id.
    pub id: String,
    /// The test file (relative to the project folder).
    pub test_file: String,
    /// The snapshot file of the rule (relative to the project folder), whether it exists or not.
    pub snapshot_file: String,
    /// True when every case passes.
    pub passed: bool,
    /// Valid cases, then invalid cases, in file order.
    pub cases: Vec<CaseOutcome>,
}

/// A test document whose rule is not loaded (not run; not a failure, as in ast-grep).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRule {
    /// The id the tests name.
    pub id: String,
    /// The test file.
    pub test_file: String,
    /// Why the rule is not there.
    pub reason: String,
}

/// Everything `ast-edit test` found.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestOutcome {
    /// The project folder.
    pub project: PathBuf,
    /// How many test documents (rules) passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// True when every failure is a snapshot that differs or is missing (`-U` would fix them).
    pub snapshots_only: bool,
    /// The results, in test file order.
    pub rules: Vec<RuleOutcome>,
    /// Tests whose rule is missing.
    pub missing_rules: Vec<MissingRule>,
    /// Snapshot files written by `-U` (relative to the project folder).
    pub snapshots_written: Vec<String>,
    /// What was ignored (unknown config keys, duplicate snapshot files).
    pub warnings: Vec<String>,
}

/// One test document with where it came from.
struct Located {
    case: TestCase,
    file: PathBuf,
    snapshot_dir: PathBuf,
    /// The snapshot folder comes from the project's `testConfigs`, so `test
    /// -U` writes there only inside the project (one given on the command line
    /// is the user's own choice).
    confined: bool,
}

/// The test documents and kept snapshots of a project.
#[derive(Default)]
struct Harness {
    cases: Vec<Located>,
    snapshots: BTreeMap<String, TestSnapshots>,
    warnings: Vec<String>,
}

/// Runs the rule tests of `project`; with `update_all`, accepts every
/// `wrong` snapshot and writes the snapshot files. With a `cache`, what a
/// rule gives on a case is read and stored there ([`evaluate`]).
pub fn run(project: &Project, opts: &Options, cache: Option<&dyn EntryCache>) -> Result<TestOutcome> {
    let mut tests = evaluate(project, opts, cache)?;
    if opts.update_all {
        tests.accept_all();
    }
    tests.finish(opts.update_all)
}

/// The verdicts of a project's rule tests, before any snapshot is written:
/// [`Evaluated::accept`] takes the new snapshot of a `wrong` case, and
/// [`Evaluated::finish`] writes the accepted ones.
pub struct Evaluated<'p> {
    project: &'p Project,
    harness: Harness,
    reports: Vec<RuleOutcome>,
    missing_rules: Vec<MissingRule>,
    warnings: Vec<String>,
    skip_snapshot_tests: bool,
}

/// Runs every test of `project` (no snapshot written). With a `cache`, what
/// a rule gives on a case (whether it matches, or its snapshot) is read from
/// there when it was stored under the case's key, and stored when made
/// (`rules/ruletest/stored.rs`); a case a limit stopped is not stored. The
/// verdicts are the same.
pub fn evaluate<'p>(project: &'p Project, opts: &Options, cache: Option<&dyn EntryCache>) -> Result<Evaluated<'p>> {
    let loaded = project.load_rules(opts.filter.as_ref())?;
    let tested: Vec<&LoadedRule> = loaded.rules.iter().chain(loaded.off.iter().filter(|_| opts.include_off)).collect();
    let globals = loaded.utils.globals();
    let built: HashMap<String, Built<'_>> = tested
        .iter()
        .map(|r| {
            let json = r.config.json();
            let growth = crate::compile::work::growth(&json);
            let keys = cache.and_then(|cache| stored::CaseKeys::new(cache, &json, &loaded.utils));
            Ok((r.id.clone(), (project::build_rule(&r.config, globals)?, growth, keys)))
        })
        .collect::<Result<_>>()?;
    let harness = read_tests(project, opts)?;
    let snapshots = (!opts.skip_snapshot_tests).then_some(&harness.snapshots);
    let reports: Vec<RuleOutcome> = harness.cases.par_iter().filter_map(|t| built.get(&t.case.id).map(|b| verify(project, t, b, snapshots))).collect();
    let missing_rules = harness.cases.iter().filter(|t| !built.contains_key(&t.case.id)).map(|t| missing(project, t, &loaded)).collect();
    let mut warnings = loaded.warnings.clone();
    warnings.extend(harness.warnings.iter().cloned());
    Ok(Evaluated { project, harness, reports, missing_rules, warnings, skip_snapshot_tests: opts.skip_snapshot_tests })
}

impl Evaluated<'_> {
    /// The results so far, in test file order.
    pub fn reports(&self) -> &[RuleOutcome] {
        &self.reports
    }

    /// The test documents whose rule is not loaded (not run).
    pub fn missing_rules(&self) -> &[MissingRule] {
        &self.missing_rules
    }

    /// Takes the new snapshot of case `case` of rule report `rule` when it is
    /// `wrong`; returns whether it was.
    pub fn accept(&mut self, rule: usize, case: usize) -> bool {
        let Some(r) = self.reports.get_mut(rule) else { return false };
        let Some(c) = r.cases.get_mut(case).filter(|c| c.verdict == Verdict::Wrong) else { return false };
        c.verdict = Verdict::Updated;
        c.expected = None;
        c.diff = None;
        r.passed = r.cases.iter().all(|c| c.verdict.passes());
        true
    }

    /// Takes the new snapshot of every `wrong` case.
    pub fn accept_all(&mut self) {
        for rule in 0..self.reports.len() {
            for case in 0..self.reports[rule].cases.len() {
                self.accept(rule, case);
            }
        }
    }

    /// The report; with `write` (and snapshots not skipped), the snapshot
    /// files are written as `ast-grep test` writes them after a review: the
    /// kept snapshots with the accepted ones added.
    pub fn finish(self, write: bool) -> Result<TestOutcome> {
        let written = if write && !self.skip_snapshot_tests { write_snapshots(self.project, &self.harness, &self.reports)? } else { Vec::new() };
        let reports = self.reports;
        let failed = reports.iter().filter(|r| !r.passed).count();
        let snapshots_only =
            failed > 0 && reports.iter().filter(|r| !r.passed).all(|r| r.cases.iter().all(|c| c.verdict.passes() || c.verdict == Verdict::Wrong));
        Ok(TestOutcome {
            project: self.project.dir.clone(),
            passed: reports.len() - failed,
            failed,
            snapshots_only,
            rules: reports,
            missing_rules: self.missing_rules,
            snapshots_written: written,
            warnings: self.warnings,
        })
    }
}

fn missing(project: &Project, t: &Located, loaded: &LoadedRules) -> MissingRule {
    let reason = if loaded.off.iter().any(|r| r.id == t.case.id) {
        "the rule has `severity: off`; its tests are not run (as in ast-grep)".to_string()
    } else {
        "no rule has this id in the project's ruleDirs; its tests are not run".to_string()
    };
    MissingRule { id: t.case.id.clone(), test_file: project.show(&t.file), reason }
}

/// The test files and snapshot files of every `testConfigs` entry (or of
/// `opts.test_dir`), walked as ast-grep walks them, in path order; the filter
/// keeps the ids it matches.
fn read_tests(project: &Project, opts: &Options) -> Result<Harness> {
    let mut h = Harness::default();
    let keep = |id: &str| opts.filter.as_ref().is_none_or(|re| re.is_match(id));
    let configs = match &opts.test_dir {
        Some(one) => std::slice::from_ref(one),
        None => project.test_configs.as_slice(),
    };
    for tc in configs {
        let test_dir = project.dir.join(&tc.test_dir);
        let snapshot_dir = test_dir.join(tc.snapshot_dir.as_deref().unwrap_or(Path::new(SNAPSHOT_DIR)));
        let named_by = if opts.test_dir.is_some() { None } else { Some(project) };
        for path in test_files(project, &test_dir, named_by, opts.follow)? {
            // A snapshot that is not a regular file is no kept snapshot: its
            // cases fail for want of one, and `test -U` refuses to replace it
            // (`write_snapshots`), each saying so.
            if path.starts_with(&snapshot_dir) && std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
                continue;
            }
            let shown = project.show(&path);
            let text = read_capped_text(&path, MAX_RULE_FILE_BYTES).map_err(|e| project::unread(&format!("test file {shown}"), &e))?;
            let bad =
                |e: &dyn std::error::Error| Error::project(ProjectFault::Invalid, format!("test file {shown}: {}", error_chain(e).replace("<input>", &shown)));
            if path.starts_with(&snapshot_dir) {
                let snaps: TestSnapshots = ast_grep_config::from_str(&text).map_err(|e| bad(&e))?;
                if keep(&snaps.id) && h.snapshots.insert(snaps.id.clone(), snaps.clone()).is_some() {
                    h.warnings.push(format!("{shown}: a second snapshot file for `{}`; this one is used", snaps.id));
                }
            } else {
                let docs: Vec<TestCase> = ast_grep_config::from_multiple(&text).map_err(|e| bad(&e))?;
                h.cases.extend(docs.into_iter().filter(|c| keep(&c.id)).map(|case| Located {
                    case,
                    file: path.clone(),
                    snapshot_dir: snapshot_dir.clone(),
                    confined: opts.test_dir.is_none(),
                }));
            }
        }
    }
    Ok(h)
}

/// The YAML files under `test_dir`; `config` is the project whose
/// `testConfigs` names the folder (`None`: the caller named it).
fn test_files(project: &Project, test_dir: &Path, config: Option<&Project>, follow: bool) -> Result<Vec<PathBuf>> {
    if !test_dir.is_dir() {
        let message = match config {
            Some(p) => {
                format!("config file {}: `testConfigs` names {}, which is not a folder: create it or fix `testDir`", p.config_file.display(), p.show(test_dir))
            }
            None => format!("the test folder {} is not a folder: create it or name another", test_dir.display()),
        };
        return Err(Error::project(ProjectFault::Unreadable, message));
    }
    let mut builder = ignore::WalkBuilder::new(test_dir);
    builder.types(ast_grep_language::config_file_type()).follow_links(follow).sort_by_file_name(|a, b| a.cmp(b));
    project::walk_yaml(builder, test_dir, project)
}

/// A rule built for its tests, with what bounds its transforms' work and,
/// with a cache, the keys of its cases.
type Built<'c> = (RuleConfig<SupportLang>, u64, Option<stored::CaseKeys<'c>>);

/// Judges every case of one test document. Each case is matched under the
/// budget of one file (`engine::budget`, with `growth` the rule's transform
/// growth): a case that meets a limit is an error with the reason, as a file
/// of a scan is skipped with it. What the rule gives on a case goes through
/// the cache of the rule's `keys`, if any.
fn verify(project: &Project, t: &Located, (rule, growth, keys): &Built<'_>, snapshots: Option<&BTreeMap<String, TestSnapshots>>) -> RuleOutcome {
    let growth = *growth;
    let over =
        |kind: CaseKind, code: &str, why: SkipReason| CaseOutcome { error: Some(why.text().to_string()), not_run: true, ..case(kind, code, Verdict::Error) };
    let matched = |code: &str| stored::through(keys.as_ref().map(|k| k.matches(code)), || metered(code, growth, || matches(rule, code)));
    let valid = t.case.valid.iter().map(|code| match matched(code) {
        Err(why) => over(CaseKind::Valid, code, why),
        Ok(true) => case(CaseKind::Valid, code, Verdict::Noisy),
        Ok(false) => case(CaseKind::Valid, code, Verdict::Validated),
    });
    let invalid = t.case.invalid.iter().map(|code| {
        let judged = match snapshots {
            None => matched(code).map(|m| case(CaseKind::Invalid, code, if m { Verdict::Reported } else { Verdict::Missing })),
            Some(all) => {
                let kept = all.get(&t.case.id).and_then(|s| s.snapshots.get(code));
                stored::through(keys.as_ref().map(|k| k.snapshot(code)), || metered(code, growth, || generate(rule, code)))
                    .map(|made| verify_snapshot(rule, code, kept, made))
            }
        };
        judged.unwrap_or_else(|why| over(CaseKind::Invalid, code, why))
    });
    let cases: Vec<CaseOutcome> = valid.chain(invalid).collect();
    let snapshot_file = snapshot_path(&t.snapshot_dir, &t.case.id);
    let mut report = RuleOutcome {
        id: t.case.id.clone(),
        test_file: project.show(&t.file),
        snapshot_file: project.show(&snapshot_file),
        passed: cases.iter().all(|c| c.verdict.passes()),
        cases,
    };
    for c in &mut report.cases {
        if let (Some(old), Some(new)) = (&c.expected, &c.actual) {
            c.diff = Some(snapshot_diff(&report.snapshot_file, old, new));
        }
    }
    report
}

/// The unified diff from the kept snapshot to the new one, both as YAML.
fn snapshot_diff(file: &str, kept: &TestSnapshot, now: &TestSnapshot) -> String {
    let (old, new) = (to_yaml(kept), to_yaml(now));
    similar::TextDiff::from_lines(&old, &new).unified_diff().context_radius(3).header(&format!("{file} (kept)"), "the rule's output now").to_string()
}

fn case(kind: CaseKind, code: &str, verdict: Verdict) -> CaseOutcome {
    CaseOutcome { kind, code: code.to_string(), verdict, expected: None, actual: None, diff: None, error: None, not_run: false }
}

fn matches(rule: &RuleConfig<SupportLang>, code: &str) -> bool {
    metered::parse(code, rule.language).root().find(&rule.matcher).is_some()
}

/// What [`generate`] gives: the snapshot, none (no match), or why the fix
/// could not be applied.
type Generated = std::result::Result<Option<TestSnapshot>, String>;

/// `judge` (of the case `code`) run under a fresh budget of one file; the
/// reason instead when the case met one of its limits.
fn metered<R>(code: &str, growth: u64, judge: impl FnOnce() -> R) -> std::result::Result<R, SkipReason> {
    Budget::new().within(|| {
        budget::set_text(code.len(), growth);
        let judged = judge();
        budget::spent().map_or(Ok(judged), Err)
    })
}

/// An invalid case against its kept snapshot (ast-grep's `verify_snapshot`),
/// with what the rule gives on it (`made`: [`generate`]'s).
fn verify_snapshot(rule: &RuleConfig<SupportLang>, code: &str, kept: Option<&TestSnapshot>, made: Generated) -> CaseOutcome {
    let actual = match made {
        Ok(Some(snap)) => snap,
        Ok(None) => return case(CaseKind::Invalid, code, Verdict::Missing),
        Err(e) => return CaseOutcome { error: Some(e), ..case(CaseKind::Invalid, code, Verdict::Error) },
    };
    if kept.is_some_and(|k| same_snapshot(rule, k, &actual)) {
        return case(CaseKind::Invalid, code, Verdict::Reported);
    }
    CaseOutcome { expected: kept.cloned(), actual: Some(actual), ..case(CaseKind::Invalid, code, Verdict::Wrong) }
}

/// Snapshot equality. A rule with a `labels:` map gets its labels in the map's
/// order, which varies from run to run (a `HashMap` in ast-grep-config): its
/// labels are compared as a set, so the verdict does not depend on the run.
fn same_snapshot(rule: &RuleConfig<SupportLang>, kept: &TestSnapshot, actual: &TestSnapshot) -> bool {
    if kept == actual {
        return true;
    }
    if rule.labels.as_ref().is_none_or(|l| l.len() < 2) || kept.fixed != actual.fixed {
        return false;
    }
    let key = |l: &LabelSnapshot| (l.start, l.end, matches!(l.style, LabelStyle::Secondary), l.message.clone(), l.source.clone());
    let (mut a, mut b): (Vec<_>, Vec<_>) = (kept.labels.iter().map(key).collect(), actual.labels.iter().map(key).collect());
    a.sort();
    b.sort();
    a == b
}

/// The snapshot of `code`: the labels of the rule's first match and, when the
/// rule has a fix, the code with that first match replaced by the first fixer
/// (ast-grep's `TestSnapshot::generate`). `None`: no match.
fn generate(rule: &RuleConfig<SupportLang>, code: &str) -> Generated {
    let mut sg = metered::parse(code, rule.language);
    let labels = {
        let Some(found) = sg.root().find(&rule.matcher) else { return Ok(None) };
        rule.get_labels(&found)
            .into_iter()
            .map(|l| {
                let range = l.range();
                LabelSnapshot {
                    source: code[range.clone()].to_string(),
                    message: l.message.map(str::to_string),
                    style: match l.style {
                        ast_grep_config::LabelStyle::Primary => LabelStyle::Primary,
                        ast_grep_config::LabelStyle::Secondary => LabelStyle::Secondary,
                    },
                    start: range.start,
                    end: range.end,
                }
            })
            .collect()
    };
    let Some(fix) = rule.fixer.first() else { return Ok(Some(TestSnapshot { fixed: None, labels })) };
    sg.replace(&rule.matcher, fix)?;
    Ok(Some(TestSnapshot { fixed: Some(sg.root().get_doc().text().to_string()), labels }))
}

/// A snapshot as YAML, as ast-grep prints and writes it.
pub fn to_yaml<T: Serialize>(v: &T) -> String {
    serde_saphyr::to_string(v).expect("snapshots serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_config::GlobalRules;

    fn rule(yaml: &str) -> RuleConfig<SupportLang> {
        let mut v = ast_grep_config::from_yaml_string::<SupportLang>(yaml, &GlobalRules::default()).unwrap();
        v.remove(0)
    }

    #[test]
    fn snapshot_fixes_the_first_match_only() {
        let r = rule("id: p\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
        let s = generate(&r, "print(1)\nprint(2)").unwrap().unwrap();
        assert_eq!(s.fixed.as_deref(), Some("log(1)\nprint(2)"));
        assert_eq!(s.labels.len(), 1);
        assert_eq!((s.labels[0].start, s.labels[0].end, s.labels[0].source.as_str()), (0, 8, "print(1)"));
    }

    #[test]
    fn snapshot_yaml_is_written_as_ast_grep_writes_it() {
        let r = rule("id: p\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
        let mut snaps = TestSnapshots { id: "p".into(), snapshots: BTreeMap::new() };
        snaps.snapshots.insert("print(1)\nprint(2)".into(), generate(&r, "print(1)\nprint(2)").unwrap().unwrap());
        assert_eq!(
            to_yaml(&snaps),
            "id: p\nsnapshots:\n  \"print(1)\\nprint(2)\":\n    fixed: |-\n      log(1)\n      print(2)\n    labels:\n    - source: print(1)\n      style: primary\n      start: 0\n      end: 8\n"
        );
    }

    #[test]
    fn labels_of_a_labels_map_compare_as_a_set() {
        let two = rule("id: l\nlanguage: python\nrule: {pattern: 'f($A, $B)'}\nlabels:\n  A: {style: primary}\n  B: {style: secondary}\n");
        let snap = generate(&two, "f(1, 2)").unwrap().unwrap();
        assert_eq!(snap.labels.len(), 2);
        let mut swapped = snap.clone();
        swapped.labels.reverse();
        assert!(same_snapshot(&two, &snap, &swapped));
        let mut moved = snap.clone();
        moved.labels[0].start += 1;
        assert!(!same_snapshot(&two, &moved, &snap));
        // Default labels come in a fixed order: compared as a list.
        let plain = rule("id: p\nlanguage: python\nrule: {pattern: 'f($A)', inside: {kind: expression_statement}}\n");
        let snap = generate(&plain, "f(1)").unwrap().unwrap();
        assert_eq!(snap.labels.len(), 2);
        let mut swapped = snap.clone();
        swapped.labels.reverse();
        assert!(!same_snapshot(&plain, &snap, &swapped));
    }
}
