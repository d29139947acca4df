//! `ast-edit test` on ast-grep projects (crates/lib/src/rules/ruletest.rs, docs/RULES.md
//! "Projects and rule tests"): the verdicts, snapshots, `-U`, `--filter`,
//! `--skip-snapshot-tests` and `--json`, through the binary, on copies of
//! tests/data/projects/basic (Python, Rust, TypeScript and Go rules). Where
//! ast-grep 0.51.1 is installed (always in CI) each case also runs `ast-grep
//! test` on an identical copy and compares: the same `PASS`/`FAIL` line per rule
//! with the same mark per case, the same pass/fail exit, the same snapshot bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{Run, Tree, ast_grep, copy_dir};
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/projects/basic")
}

/// A copy of the fixture project.
fn project() -> Tree {
    let t = Tree::empty();
    copy_dir(&fixture(), t.path());
    t
}

const SNAPSHOTS: &str = "rule-tests/__snapshots__";

/// `PASS id  marks` / `FAIL id  marks` lines, by rule id.
fn summary(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("PASS ") || l.starts_with("FAIL ") || l.starts_with("SKIP "))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let word = parts.next().unwrap();
            let id = parts.next().unwrap();
            let marks = parts.next().unwrap_or("");
            (id.to_string(), format!("{word} {marks}"))
        })
        .collect()
}

/// The `PASS`/`FAIL`/`SKIP` lines, sorted (ast-grep prints them in its walk's order).
fn summary_lines(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> =
        stdout.lines().filter(|l| l.starts_with("PASS ") || l.starts_with("FAIL ") || l.starts_with("SKIP ")).map(|l| l.trim_end().to_string()).collect();
    v.sort();
    v
}

/// `ast-grep test ARGS` in `dir`: its exit code and stdout.
fn peer_test(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, stdout, _) = peer_test_all(dir, args);
    (code, stdout)
}

/// [`peer_test`] with its stderr.
fn peer_test_all(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let ag = ast_grep();
    let o = std::process::Command::new(ag).arg("test").args(args).current_dir(dir).env("NO_COLOR", "1").output().unwrap();
    (o.status.code().unwrap(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A text report as parts to compare with ast-grep's: its lines in order, but
/// the case details (blocks parted by a blank line) and the lines per rule
/// sorted (ast-grep lists the test files in the order its folder walk meets
/// them; ast-edit by path). Left out: the lines each tool has of its own
/// (ast-grep's `Configuration not found!` and ast-edit's `Rule not found:`,
/// the same cases, counted apart; `wrote FILE`; the whole-file checks).
fn report_parts(report: &str) -> (String, Vec<String>, Vec<String>) {
    let report = report.split("\nRunning 1 whole-file check").next().unwrap_or_default();
    let report = report.split(" whole-file checks (astEdit.checkDirs)").next().unwrap_or_default();
    let kept: Vec<&str> =
        report.lines().filter(|l| !l.starts_with("Configuration not found!") && !l.starts_with("Rule not found:") && !l.starts_with("wrote ")).collect();
    let is_rule_line = |l: &str| ["PASS ", "FAIL ", "SKIP "].iter().any(|p| l.starts_with(p));
    let mut rules: Vec<String> = kept.iter().filter(|l| is_rule_line(l)).map(|l| l.to_string()).collect();
    rules.sort();
    let rest: Vec<&str> = kept.into_iter().filter(|l| !is_rule_line(l)).collect();
    let rest = rest.join("\n");
    let (head, details) = rest.split_once("----------- Case Details -----------").unwrap_or((rest.as_str(), ""));
    let mut blocks: Vec<String> = details.split("\n\n").map(|b| b.trim_matches('\n').to_string()).filter(|b| !b.is_empty()).collect();
    blocks.sort();
    (head.to_string(), blocks, rules)
}

/// Runs `ast-edit test ARGS` in `ours` and `ast-grep test ARGS` in `peer` (two
/// identical trees) and asserts the same verdict per rule and per case, and the
/// same exit code (0, or 4 when a test fails).
#[track_caller]
fn same_verdicts_as_ast_grep(ours: &Tree, peer: &Tree, args: &[&str]) -> Run {
    let mut full = vec!["test"];
    full.extend_from_slice(args);
    let r = ours.run(&full);
    assert!(r.code == 0 || r.code == 4, "exit {}\n{}\n{}", r.code, r.stdout, r.stderr);
    let (code, stdout, stderr) = peer_test_all(peer.path(), args);
    assert_eq!(summary_lines(&r.stdout), summary_lines(&stdout), "ours:\n{}\nast-grep:\n{stdout}", r.stdout);
    assert_eq!(code, r.code, "ours:\n{}\nast-grep:\n{stdout}", r.stdout);
    // The report is laid out as ast-grep's, byte for byte: the case details
    // (snapshot diffs numbered as ast-grep numbers them), the lines per rule,
    // and the verdict (a failure's on stderr, `Error: test failed. ...`).
    assert_eq!(report_parts(&r.stdout), report_parts(&stdout), "ours:\n{}\nast-grep:\n{stdout}", r.stdout);
    assert_eq!(
        r.stderr.lines().find(|l| l.starts_with("Error:")),
        stderr.lines().find(|l| l.starts_with("Error:")),
        "ours:\n{}\nast-grep:\n{stderr}",
        r.stderr
    );
    let peer_missing = stdout.lines().filter(|l| l.starts_with("Configuration not found!")).count();
    let our_missing = r.stdout.lines().filter(|l| l.starts_with("Rule not found:")).count();
    assert_eq!(peer_missing, our_missing, "ours:\n{}\nast-grep:\n{stdout}", r.stdout);
    r
}

/// The two trees hold the same files with the same bytes (the paths that differ
/// are named).
#[track_caller]
fn assert_same_tree(ours: &Tree, peer: &Tree) {
    let (a, b) = (ours.snapshot(), peer.snapshot());
    let differ: Vec<&String> = a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).collect();
    assert!(differ.is_empty(), "differ from ast-grep's: {differ:?}");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn fixture_project_passes_from_a_subfolder_with_ast_grep_verdicts() {
    let (ours, peer) = (project(), project());
    let mut c = ours.command(&["test"]);
    c.current_dir(ours.path().join("src/app"));
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let s = summary(&stdout);
    let want: BTreeMap<String, String> = [
        ("as-any-0", "PASS .."),
        ("as-any-1", "PASS .."),
        ("go-ioutil-readfile", "PASS ..."),
        ("no-print", "PASS ...."),
        ("py-assert-equals", "PASS ..."),
        ("rs-unwrap", "PASS ...."),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(s, want, "{stdout}");
    assert!(stdout.contains("Running 7 tests"), "{stdout}");
    assert!(stdout.contains("Rule not found: `py-disabled` (rule-tests/python/off-test.yml): the rule has `severity: off`"), "{stdout}");
    assert!(stdout.contains("\ntest result: ok. 6 passed; 0 failed;\n"), "{stdout}");
    // Then ast-edit's whole-file checks (astEdit.checkDirs).
    assert!(stdout.ends_with("\nRunning 1 whole-file check (astEdit.checkDirs)\nchecks: ok. 1 passed; 0 failed;\n"), "{stdout}");
    same_verdicts_as_ast_grep(&ours, &peer, &[]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn update_all_writes_the_snapshots_ast_grep_wrote_byte_for_byte() {
    let (ours, peer) = (project(), project());
    std::fs::remove_dir_all(ours.path().join(SNAPSHOTS)).unwrap();
    std::fs::remove_dir_all(peer.path().join(SNAPSHOTS)).unwrap();
    // A rule whose tests are all valid gets a snapshot file without snapshots.
    for t in [&ours, &peer] {
        t.write("rules/python/no-eval.yml", "id: no-eval\nlanguage: python\nrule: {pattern: eval($X)}\n");
        t.write("rule-tests/no-eval-test.yml", "id: no-eval\nvalid: [\"x = 1\"]\n");
    }
    let before = ours.run(&["test"]).code(4);
    assert!(before.stdout.contains("[Wrong] No no-print baseline found."), "{}", before.stdout);
    let r = ours.run(&["test", "-U"]).ok();
    assert!(r.stdout.contains("wrote rule-tests/__snapshots__/no-print-snapshot.yml"), "{}", r.stdout);
    assert!(r.stdout.contains("PASS no-print  ..UU"), "{}", r.stdout);
    // The fixture's snapshots were written by `ast-grep test -U` 0.51.1.
    let shipped = fixture().join(SNAPSHOTS);
    for e in std::fs::read_dir(&shipped).unwrap() {
        let e = e.unwrap();
        let ours_bytes = std::fs::read(ours.path().join(SNAPSHOTS).join(e.file_name())).unwrap();
        assert_eq!(String::from_utf8(ours_bytes).unwrap(), std::fs::read_to_string(e.path()).unwrap(), "{:?}", e.file_name());
    }
    assert_eq!(ours.read("rule-tests/__snapshots__/no-eval-snapshot.yml"), "id: no-eval\nsnapshots: {}\n");
    // A blank line of a block scalar keeps the block's indentation, as ast-grep
    // 0.51.1 writes it (serde-saphyr 2.0.0; 2.1 drops the spaces).
    assert!(
        ours.read("rule-tests/__snapshots__/no-print-snapshot.yml")
            .contains("    fixed: |\n      def f():\n          log.info(1)\n      \n          print(2)\n")
    );
    let (code, stdout) = peer_test(peer.path(), &["-U"]);
    assert_eq!(code, 0, "{stdout}");
    assert_same_tree(&ours, &peer);
    // A second -U changes nothing and says it wrote nothing.
    let again = ours.run(&["test", "-U"]).ok();
    assert!(!again.stdout.contains("wrote "), "{}", again.stdout);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn stale_snapshot_fails_with_a_diff_and_exit_4_and_nothing_is_written() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        let rule = t.read("rules/python/no-print.yml").replace("fix: log.info($$$ARGS)", "fix: logger.debug($$$ARGS)");
        t.write("rules/python/no-print.yml", rule);
    }
    let before = ours.snapshot();
    let r = same_verdicts_as_ast_grep(&ours, &peer, &[]).code(4);
    assert_eq!(summary(&r.stdout)["no-print"], "FAIL ..WW", "{}", r.stdout);
    for line in ["[Wrong] no-print snapshot is different from baseline.", "1  │-fixed: log.info(\"a\")", "  1│+fixed: logger.debug(\"a\")"] {
        assert!(r.stdout.lines().any(|l| l == line), "missing line {line:?} in:\n{}", r.stdout);
    }
    for line in [
        "Error: test failed. 5 passed; 1 failed;",
        "Help: only snapshots differ or are missing: check the diffs, then run `ast-edit test -U` to accept them all, or `ast-edit test -i` to choose.",
    ] {
        assert!(r.stderr.lines().any(|l| l == line), "missing line {line:?} in:\n{}", r.stderr);
    }
    assert_eq!(ours.snapshot(), before, "a failing run writes nothing");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn noisy_and_missing_cases_fail_like_ast_grep() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        t.write("rule-tests/rust/more-test.yml", "id: rs-unwrap\nvalid:\n  - \"fn f() { x.unwrap(); }\"\ninvalid:\n  - \"fn f() { x.expect(\\\"y\\\"); }\"\n");
    }
    let r = same_verdicts_as_ast_grep(&ours, &peer, &[]).code(4);
    assert!(r.stdout.contains("[Noisy] Expect rs-unwrap to report no issue, but some issues found in:"), "{}", r.stdout);
    assert!(r.stdout.contains("[Missing] Expect rule rs-unwrap to report issues, but none found in:"), "{}", r.stdout);
    assert!(r.stdout.contains("FAIL rs-unwrap  NM"), "{}", r.stdout);
    assert!(!r.stderr.contains("only snapshots differ"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn skip_snapshot_tests_judges_invalid_cases_by_a_match_alone() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        let rule = t.read("rules/rust/unwrap.yml").replace("expect(\"checked\")", "expect(\"sure\")");
        t.write("rules/rust/unwrap.yml", rule);
        std::fs::remove_file(t.path().join(SNAPSHOTS).join("as-any-0-snapshot.yml")).unwrap();
    }
    same_verdicts_as_ast_grep(&ours, &peer, &[]).code(4);
    let r = same_verdicts_as_ast_grep(&ours, &peer, &["--skip-snapshot-tests"]).ok();
    assert!(r.stdout.contains("PASS rs-unwrap  ...."), "{}", r.stdout);
    let both = ours.run(&["test", "-U", "--skip-snapshot-tests"]).code(2);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn filter_runs_only_the_matching_rules_and_matching_nothing_is_exit_3() {
    let (ours, peer) = (project(), project());
    let r = same_verdicts_as_ast_grep(&ours, &peer, &["--filter", "^as-any"]).ok();
    assert_eq!(summary(&r.stdout).keys().collect::<Vec<_>>(), ["as-any-0", "as-any-1"], "{}", r.stdout);
    assert!(r.stdout.contains("Running 2 tests"), "{}", r.stdout);
    let none = ours.run(&["test", "--filter", "^zzz"]).code(3);
    assert!(
        none.stderr.contains(
            "`--filter` `^zzz` matches no rule id; the ids are: go-ioutil-readfile, py-assert-equals, no-print, py-disabled, rs-unwrap, as-any-0, as-any-1"
        ),
        "{}",
        none.stderr
    );
    let (code, _) = peer_test(peer.path(), &["--filter", "^zzz"]);
    assert_eq!(code, 3, "ast-grep refuses a filter that matches no rule with the same code");
    let bad = ours.run(&["test", "--filter", "("]).code(2);
    assert_eq!(peer_test(peer.path(), &["--filter", "("]).0, 2, "a bad regex is a bad flag to both (clap's 2)");
    assert!(bad.stderr.contains("`--filter` `(` is not a valid regular expression"), "{}", bad.stderr);
}

#[test]
fn json_report_has_a_value_per_rule_and_case_with_the_diff() {
    let t = project();
    let rule = t.read("rules/typescript/as-any.yml").replacen("fix: $E as unknown", "fix: $E as never", 1);
    t.write("rules/typescript/as-any.yml", rule);
    t.write("rule-tests/extra.yml", "id: nope\nvalid: [x]\n");
    let r = t.run(&["test", "--json"]).code(4);
    let v: Value = r.json();
    assert_eq!(v["project"], Value::String(t.path().canonicalize().unwrap().to_string_lossy().into_owned()));
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64(), v["snapshotsOnly"].as_bool()), (Some(5), Some(1), Some(true)));
    let rules = v["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 6);
    let bad = rules.iter().find(|r| r["id"] == "as-any-0").unwrap();
    assert_eq!(bad["testFile"], "rule-tests/typescript/as-any-test.yml");
    assert_eq!(bad["snapshotFile"], "rule-tests/__snapshots__/as-any-0-snapshot.yml");
    assert_eq!(bad["passed"], false);
    let cases = bad["cases"].as_array().unwrap();
    assert_eq!(cases[0], serde_json::json!({"kind": "valid", "code": "let x = y as unknown;", "verdict": "validated"}));
    assert_eq!(cases[1]["kind"], "invalid");
    assert_eq!(cases[1]["verdict"], "wrong");
    assert_eq!(cases[1]["expected"]["fixed"], "let x = y as unknown;");
    assert_eq!(cases[1]["actual"]["fixed"], "let x = y as never;");
    assert_eq!(cases[1]["actual"]["labels"][0], serde_json::json!({"source": "y as any", "style": "primary", "start": 8, "end": 16}));
    let diff = cases[1]["diff"].as_str().unwrap();
    assert!(diff.contains("-fixed: let x = y as unknown;\n+fixed: let x = y as never;\n"), "{diff}");
    let missing = v["missingRules"].as_array().unwrap();
    let ids: Vec<&str> = missing.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["nope", "py-disabled"]);
    assert_eq!(missing[0]["testFile"], "rule-tests/extra.yml");
    assert_eq!(v["snapshotsWritten"], serde_json::json!([]));
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_test_file_whose_rule_is_missing_is_reported_but_does_not_fail() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        t.write("rule-tests/ghost-test.yml", "id: ghost\nvalid: [\"x = 1\"]\ninvalid: [\"y = 2\"]\n");
    }
    let r = same_verdicts_as_ast_grep(&ours, &peer, &[]).ok();
    assert!(
        r.stdout.contains("Rule not found: `ghost` (rule-tests/ghost-test.yml): no rule has this id in the project's ruleDirs; its tests are not run"),
        "{}",
        r.stdout
    );
}

#[test]
fn config_flag_names_the_project_from_outside_it() {
    let t = Tree::empty();
    copy_dir(&fixture(), &t.path().join("tools/lint"));
    let none = t.run(&["test"]).code(3);
    assert!(none.stderr.contains("no ast-grep project: neither sgconfig.yml nor sgconfig.yaml is in"), "{}", none.stderr);
    assert!(none.stderr.contains("name it with -c FILE"), "{}", none.stderr);
    let r = t.run(&["test", "-c", "tools/lint/sgconfig.yml"]).ok();
    assert!(r.stdout.contains("test result: ok. 6 passed; 0 failed;"), "{}", r.stdout);
    let missing = t.run(&["test", "-c", "tools/nope.yml"]).code(6);
    assert!(missing.stderr.contains("cannot read config file tools/nope.yml"), "{}", missing.stderr);
    // A project folder (or its config file) given as PATH is a project, not a catalog.
    let r = t.run(&["test", "tools/lint"]).ok();
    assert!(r.stdout.contains("test result: ok. 6 passed; 0 failed;"), "{}", r.stdout);
}

#[test]
fn test_path_names_a_project_and_a_retired_json_catalog_is_refused() {
    let t = Tree::empty();
    t.write(
        "rules/r.json",
        r#"{"id": "py-x", "language": "python", "description": "d", "ops": [{"pat": "f($A)", "out": "g($A)"}],
            "tests": {"valid": ["g(1)\n"], "invalid": [{"before": "f(1)\n", "after": "g(1)\n"}]}}"#,
    );
    let r = t.run(&["test", "rules"]).code(2);
    assert!(r.stderr.contains("r.json is a rule file of the retired JSON catalog format"), "{}", r.stderr);
    assert!(r.stderr.contains("id: py-x\n"), "{}", r.stderr);
    t.write("other/a.txt", "x");
    let r = t.run(&["test", "other"]).code(2);
    assert!(r.stderr.contains("other is not an ast-grep project: neither sgconfig.yml nor sgconfig.yaml is there"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn an_empty_valid_or_invalid_list_reads_as_no_cases_like_ast_grep() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        t.write("rule-tests/python/no-print-test.yml", "id: no-print\nvalid:\ninvalid:\n  - print(\"a\")\n");
    }
    let r = same_verdicts_as_ast_grep(&ours, &peer, &[]).ok();
    assert!(r.stdout.contains("PASS no-print  ."), "{}", r.stdout);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn snapshot_dir_setting_is_read_and_written_like_ast_grep() {
    let (ours, peer) = (project(), project());
    for t in [&ours, &peer] {
        t.write("sgconfig.yml", "ruleDirs: [rules]\nutilDirs: [utils]\ntestConfigs:\n  - testDir: rule-tests\n    snapshotDir: snaps\n");
        std::fs::rename(t.path().join(SNAPSHOTS), t.path().join("rule-tests/snaps")).unwrap();
    }
    same_verdicts_as_ast_grep(&ours, &peer, &[]).ok();
    for t in [&ours, &peer] {
        std::fs::remove_dir_all(t.path().join("rule-tests/snaps")).unwrap();
    }
    let r = same_verdicts_as_ast_grep(&ours, &peer, &[]).code(4);
    assert!(r.stdout.contains("[Wrong] No rs-unwrap baseline found."), "{}", r.stdout);
    ours.run(&["test", "-U"]).ok();
    assert_eq!(ours.read("rule-tests/snaps/no-print-snapshot.yml"), std::fs::read_to_string(fixture().join(SNAPSHOTS).join("no-print-snapshot.yml")).unwrap());
    let (code, stdout) = peer_test(peer.path(), &["-U"]);
    assert_eq!(code, 0, "{stdout}");
    assert_same_tree(&ours, &peer);
}
