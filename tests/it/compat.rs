//! Compatibility with the peer on public rule sets (the data, its licences and where it
//! comes from: `tests/compat/*/NOTICE`):
//!
//! - DataDog/dd-trace-py's ast-grep project (`tests/compat/dd-trace-py`: rules, rule
//!   tests, snapshots): `ast-edit test` must give every rule the verdict `ast-grep test`
//!   0.51.1 gives it;
//! - the ast-grep website's rule catalog (`tests/compat/catalog/cases`, one rule file and
//!   one example input per case): `ast-edit scan -r rule.yml -U` must write the bytes
//!   `ast-grep scan -r rule.yml -U` writes, except the cases listed with a reason in
//!   `tests/compat/catalog/expected-differences.txt`, and that list must be exact.
//!
//! As in tests/it/parity.rs, the tests that run ast-grep are reported ignored when
//! ast-grep 0.51.1 is missing (build.rs); CI installs it.

use crate::common::{Tree, ast_grep, copy_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn compat() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat")
}

// ---------------------------------------------------------------- dd-trace-py

/// The rule that fails in both tools: its test file holds a case that its snapshot file
/// has no entry for ("No pin-import-deprecated baseline found").
const DD_STALE_SNAPSHOT: &str = "pin-import-deprecated";

/// A run of a test command: its exit code and the verdict per rule id (true = pass).
#[derive(Debug)]
struct Verdicts {
    code: i32,
    rules: BTreeMap<String, bool>,
    output: String,
}

/// A fresh copy of tests/compat/dd-trace-py (its sgconfig.yml at the root).
fn dd_trace_py() -> Tree {
    let t = Tree::empty();
    copy_dir(&compat().join("dd-trace-py"), t.path());
    t
}

/// The ids of the project's rule files (`id:` of each `sg/rules/*.yml`).
fn dd_rule_ids() -> BTreeSet<String> {
    let dir = compat().join("dd-trace-py/sg/rules");
    let mut ids = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let id = text.lines().find_map(|l| l.strip_prefix("id: ")).expect("a rule file without `id:`");
        ids.insert(id.trim().to_string());
    }
    ids
}

/// `ast-grep test -c sgconfig.yml`: stdout has one line `PASS <id>  ...` or
/// `FAIL <id>  ...` per rule (in any order: rules run in parallel); exit 4 on a failure.
fn ast_grep_test(ag: &str, flags: &[&str]) -> Verdicts {
    let t = dd_trace_py();
    let o = Command::new(ag).args(["test", "-c", "sgconfig.yml", "--color", "never"]).args(flags).current_dir(t.path()).output().unwrap();
    let output = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let mut rules = BTreeMap::new();
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let (pass, rest) = match (line.strip_prefix("PASS "), line.strip_prefix("FAIL ")) {
            (Some(rest), _) => (true, rest),
            (_, Some(rest)) => (false, rest),
            _ => continue,
        };
        let id = rest.split_whitespace().next().unwrap().to_string();
        assert!(rules.insert(id.clone(), pass).is_none(), "ast-grep reported {id} twice:\n{output}");
    }
    Verdicts { code: o.status.code().unwrap_or(-1), rules, output }
}

/// `ast-edit test -c sgconfig.yml --json`. The plan fixes the flags and the exit codes
/// (ast-grep's: 0 all pass, 4 a case fails), not the JSON; this reads the shape
/// `{"rules": [{"id": ID, "passed": BOOL, ...}, ...], ...}` (adjust here if it differs).
fn ast_edit_test(flags: &[&str]) -> Verdicts {
    let t = dd_trace_py();
    let mut args = vec!["test", "-c", "sgconfig.yml", "--json"];
    args.extend_from_slice(flags);
    let r = t.run(&args);
    let v: serde_json::Value = r.json();
    let shape = || format!("expected {{\"rules\": [{{\"id\": ID, \"passed\": BOOL}}]}}, got:\n{:#}", v);
    let mut rules = BTreeMap::new();
    for rule in v["rules"].as_array().unwrap_or_else(|| panic!("{}", shape())) {
        let id = rule["id"].as_str().unwrap_or_else(|| panic!("{}", shape()));
        let pass = rule["passed"].as_bool().unwrap_or_else(|| panic!("{}", shape()));
        assert!(rules.insert(id.to_string(), pass).is_none(), "ast-edit reported {id} twice:\n{}", r.stdout);
    }
    Verdicts { code: r.code, rules, output: format!("{}{}", r.stdout, r.stderr) }
}

/// Pins the data and the reading of ast-grep's output that the ast-edit comparison
/// relies on: every rule has tests, one has a stale snapshot, and without snapshot
/// checks all pass.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn dd_trace_py_gets_the_recorded_verdicts_from_ast_grep_test() {
    let ag = ast_grep();
    let ids = dd_rule_ids();
    assert_eq!(ids.len(), 24);
    let full = ast_grep_test(&ag, &[]);
    assert_eq!(full.rules.keys().cloned().collect::<BTreeSet<_>>(), ids, "{}", full.output);
    let failed: Vec<_> = full.rules.iter().filter(|(_, pass)| !**pass).map(|(id, _)| id.as_str()).collect();
    assert_eq!(failed, [DD_STALE_SNAPSHOT], "{}", full.output);
    assert_eq!(full.code, 4, "{}", full.output);
    assert!(full.output.contains("23 passed; 1 failed"), "{}", full.output);
    let quick = ast_grep_test(&ag, &["--skip-snapshot-tests"]);
    assert_eq!(quick.rules.keys().cloned().collect::<BTreeSet<_>>(), ids, "{}", quick.output);
    assert!(quick.rules.values().all(|pass| *pass), "{}", quick.output);
    assert_eq!(quick.code, 0, "{}", quick.output);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn dd_trace_py_rule_tests_get_ast_grep_test_verdicts() {
    let ag = ast_grep();
    for flags in [&[][..], &["--skip-snapshot-tests"][..]] {
        let (peer, ours) = (ast_grep_test(&ag, flags), ast_edit_test(flags));
        assert_eq!(ours.rules, peer.rules, "verdicts per rule (true = pass) with {flags:?}\nast-edit:\n{}\nast-grep:\n{}", ours.output, peer.output);
        assert_eq!(ours.code, peer.code, "ast-edit's exit code with {flags:?} (ast-grep's: {})\n{}", peer.code, ours.output);
    }
}

// -------------------------------------------------------------------- catalog

/// One case folder: `rule.yml` and one `input.<ext>`.
struct Case {
    name: String,
    dir: PathBuf,
    input: String,
}

fn catalog() -> PathBuf {
    compat().join("catalog")
}

fn catalog_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for e in std::fs::read_dir(catalog().join("cases")).unwrap() {
        let dir = e.unwrap().path();
        let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|f| f.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(files.len() == 2 && files[0].starts_with("input.") && files[1] == "rule.yml", "{name}: a case holds input.<ext> and rule.yml, found {files:?}");
        cases.push(Case { name, dir, input: files.swap_remove(0) });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// `<case> <reason>` lines of a list file (`#` comments and blank lines ignored).
fn listed(file: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(catalog().join(file)).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (case, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(!reason.trim().is_empty(), "{file}: `{case}` needs a reason");
        assert!(out.insert(case.to_string(), reason.trim().to_string()).is_none(), "{file}: `{case}` twice");
    }
    out
}

/// Who writes the files in a comparison.
#[derive(Clone, Copy)]
enum Side<'a> {
    AstGrep(&'a str),
    AstEdit,
    /// Nobody: the input as it was.
    Untouched,
}

/// What one side left: every file of the tree, the exit code and stderr.
struct Outcome {
    files: BTreeMap<String, Vec<u8>>,
    code: i32,
    stderr: String,
}

/// Runs `scan -r <case>/rule.yml -U src` in a tree holding `src/<input>`.
fn run_side(side: Side, case: &Case) -> Outcome {
    let t = Tree::empty();
    t.write(&format!("src/{}", case.input), std::fs::read(case.dir.join(&case.input)).unwrap());
    let rule = case.dir.join("rule.yml");
    let rule = rule.to_str().unwrap();
    let (code, stderr) = match side {
        Side::AstGrep(ag) => {
            let o = Command::new(ag).args(["scan", "-r", rule, "-U", "src"]).current_dir(t.path()).output().unwrap();
            let (code, stderr) = (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned());
            // 1: diagnostics of severity error. Anything else means the rule did not load,
            // which extract.py checks before writing a case.
            assert!(code == 0 || code == 1, "{}: ast-grep exit {code}:\n{stderr}", case.name);
            (code, stderr)
        }
        Side::AstEdit => {
            let r = t.run(&["scan", "-r", rule, "-U", "--verbatim", "src"]);
            (r.code, r.stderr)
        }
        Side::Untouched => (0, String::new()),
    };
    Outcome { files: t.snapshot(), code, stderr }
}

/// How outcome `a` (ours) differs from `b` (the peer's): other bytes in any file, or an
/// exit code other than 0 and 1 (2 = ast-edit refused the rule or the input).
fn difference(a: &Outcome, b: &Outcome) -> Option<String> {
    let mut how = Vec::new();
    if a.code != 0 && a.code != 1 {
        how.push(format!("exit {}: {}", a.code, a.stderr.trim()));
    }
    if a.files != b.files {
        for path in a.files.keys().chain(b.files.keys()).collect::<BTreeSet<_>>() {
            let show = |f: &BTreeMap<String, Vec<u8>>| f.get(path).map_or("(no file)".into(), |b| String::from_utf8_lossy(b).into_owned());
            if a.files.get(path) != b.files.get(path) {
                how.push(format!("{path}:\n--- got\n{}\n--- want\n{}", show(&a.files), show(&b.files)));
            }
        }
        if !a.stderr.trim().is_empty() {
            how.push(format!("stderr: {}", a.stderr.trim()));
        }
    }
    (!how.is_empty()).then(|| how.join("\n"))
}

/// The lists beside the cases only name cases that exist (skipped ones are not cases).
#[test]
fn catalog_lists_name_existing_cases_only() {
    let names: BTreeSet<String> = catalog_cases().into_iter().map(|c| c.name).collect();
    assert!(names.len() >= 20, "{names:?}");
    for case in listed("expected-differences.txt").keys() {
        assert!(names.contains(case), "expected-differences.txt: no case `{case}`");
    }
    for case in listed("skipped.txt").keys() {
        assert!(!names.contains(case), "skipped.txt: `{case}` is a case");
    }
}

/// The comparison itself, run with ast-grep on both sides: two runs agree (no stray
/// files, nothing that depends on the run), and each differs from the untouched input
/// (a case whose input ast-grep leaves alone would compare nothing).
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn catalog_comparison_with_ast_grep_on_both_sides_agrees_and_every_case_changes_its_input() {
    let ag = ast_grep();
    for case in catalog_cases() {
        let (a, b) = (run_side(Side::AstGrep(&ag), &case), run_side(Side::AstGrep(&ag), &case));
        if let Some(how) = difference(&a, &b) {
            panic!("{}: two ast-grep runs differ:\n{how}", case.name);
        }
        assert!(difference(&a, &run_side(Side::Untouched, &case)).is_some(), "{}: ast-grep changes nothing", case.name);
    }
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn catalog_cases_are_written_as_ast_grep_writes_them() {
    let ag = ast_grep();
    let mut diffs = BTreeMap::new();
    for case in catalog_cases() {
        if let Some(how) = difference(&run_side(Side::AstEdit, &case), &run_side(Side::AstGrep(&ag), &case)) {
            diffs.insert(case.name, how);
        }
    }
    let expected = listed("expected-differences.txt");
    let unlisted: Vec<String> = diffs.iter().filter(|(c, _)| !expected.contains_key(*c)).map(|(c, how)| format!("{c}:\n{how}")).collect();
    let agreeing: Vec<&String> = expected.keys().filter(|c| !diffs.contains_key(*c)).collect();
    assert!(
        unlisted.is_empty() && agreeing.is_empty(),
        "tests/compat/catalog/expected-differences.txt is not exact.\n\
         Differences not listed (fix ast-edit, or list them with the reason):\n{}\n\
         Listed cases that now agree (remove them): {agreeing:?}",
        unlisted.join("\n\n")
    );
}
