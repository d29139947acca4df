//! The exit codes of `ast-edit scan` and `ast-edit test` (src/cli/exit.rs,
//! docs/RULES.md "Exit codes"): ast-grep 0.51.1's, since both are a drop-in for
//! `ast-grep scan` / `ast-grep test` in CI. Each case is a small project; the
//! binary must exit with the code of the table, say what is wrong, and leave
//! every byte on disk as it was. Where ast-grep 0.51.1 is installed (always in
//! CI), the same table is checked against `ast-grep scan` / `ast-grep test` on
//! an identical copy.

use crate::common::{Tree, ast_grep};

const CONFIG: &str = "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n";
const RULE: &str = "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n";
const TEST: &str = "id: no-print\nvalid: [log(1)]\ninvalid: [print(1)]\n";
const SNAPSHOT: &str =
    "id: no-print\nsnapshots:\n  print(1):\n    fixed: log(1)\n    labels:\n    - source: print(1)\n      style: primary\n      start: 0\n      end: 8\n";

/// A project whose rule and test pass, changed by `edit`.
fn project(edit: &[(&str, &[u8])]) -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", CONFIG);
    t.write("rules/no-print.yml", RULE);
    t.write("tests/no-print-test.yml", TEST);
    t.write("tests/__snapshots__/no-print-snapshot.yml", SNAPSHOT);
    t.write("src/a.py", "x = 1\n");
    for (path, bytes) in edit {
        if bytes.is_empty() {
            std::fs::remove_file(t.path().join(path)).unwrap();
        } else {
            t.write(path, bytes);
        }
    }
    t
}

/// One row of the table: a project, the command, the code (ast-edit's and
/// ast-grep's unless `peer` says otherwise) and what the message must hold.
struct Case {
    name: &'static str,
    edit: &'static [(&'static str, &'static [u8])],
    args: &'static [&'static str],
    code: i32,
    peer: Option<i32>,
    says: &'static str,
}

const fn case(name: &'static str, edit: &'static [(&'static str, &'static [u8])], args: &'static [&'static str], code: i32, says: &'static str) -> Case {
    Case { name, edit, args, code, peer: None, says }
}

fn cases() -> Vec<Case> {
    const BAD_TEST: &[(&str, &[u8])] = &[("tests/bad-test.yml", b"id: [\n")];
    const NO_TEST_DIR: &[(&str, &[u8])] = &[("sgconfig.yml", b"ruleDirs: [rules]\ntestConfigs:\n  - testDir: nowhere\n")];
    const LATIN1_TEST: &[(&str, &[u8])] = &[("tests/l.yml", b"id: x\nvalid: [\"\xe9\"]\n")];
    vec![
        case("passing tests", &[], &["test"], 0, "test result: ok. 1 passed; 0 failed;"),
        case("a scan with no findings", &[], &["scan"], 0, ""),
        case("no project: test", &[("sgconfig.yml", b"")], &["test"], 3, "no ast-grep project"),
        case("no project: scan", &[("sgconfig.yml", b"")], &["scan"], 3, "no ast-grep project"),
        case("a filter that matches no rule: test", &[], &["test", "--filter", "^zzz"], 3, "matches no rule id; the ids are: no-print"),
        case("a filter that matches no rule: scan", &[], &["scan", "--filter", "^zzz"], 3, "matches no rule id"),
        case("a filter that is no regex", &[], &["test", "--filter", "("], 2, "not a valid regular expression"),
        case("a failed test", &[("tests/no-print-test.yml", b"id: no-print\nvalid: [print(2)]\ninvalid: [print(1)]\n")], &["test"], 4, "FAIL no-print  N."),
        case(
            "only a snapshot differs",
            &[("rules/no-print.yml", b"id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: logger($A)\n")],
            &["test"],
            4,
            "[Wrong] no-print snapshot is different",
        ),
        case("no testConfigs", &[("sgconfig.yml", b"ruleDirs: [rules]\n")], &["test"], 0, "test result: ok. 0 passed; 0 failed;"),
        case("-c names no file", &[], &["test", "-c", "nope.yml"], 6, "cannot read config file nope.yml"),
        case("a config file that is not UTF-8", &[("sgconfig.yml", b"ruleDirs: [rules] # \xe9\n")], &["scan"], 6, "cannot read config file"),
        case("a config file that does not parse: test", &[("sgconfig.yml", b"ruleDirs: [rules\n")], &["test"], 8, "unclosed bracket"),
        case("a config file that does not parse: scan", &[("sgconfig.yml", b"ruleDirs: [rules\n")], &["scan"], 8, "unclosed bracket"),
        case(
            "a ruleDirs folder that is not there",
            &[("sgconfig.yml", b"ruleDirs: [rules, lints]\n")],
            &["scan"],
            6,
            "`ruleDirs` names lints, which is not a folder",
        ),
        case(
            "a ruleDirs entry that is a file",
            &[("sgconfig.yml", b"ruleDirs: [sgconfig.yml]\n")],
            &["test"],
            8,
            "`ruleDirs` names sgconfig.yml, which is not a folder",
        ),
        case(
            "a utilDirs folder that is not there",
            &[("sgconfig.yml", b"ruleDirs: [rules]\nutilDirs: [utils]\n")],
            &["scan"],
            6,
            "`utilDirs` names utils, which is not a folder",
        ),
        case(
            "a rule file that is not UTF-8",
            &[("rules/l.yml", b"id: l\nlanguage: python\nrule: {pattern: \"\xe9\"}\n")],
            &["test"],
            6,
            "cannot read rules/l.yml",
        ),
        case(
            "a rule file that does not parse: test",
            &[("rules/bad.yml", b"id: x\nlanguage: python\nrule: {patern: f()}\n")],
            &["test"],
            8,
            "unknown field `patern`",
        ),
        case(
            "a rule file that does not parse: scan",
            &[("rules/bad.yml", b"id: x\nlanguage: python\nrule: {patern: f()}\n")],
            &["scan"],
            8,
            "unknown field `patern`",
        ),
        case(
            "a rule that does not build",
            &[("rules/bad.yml", b"id: x\nlanguage: python\nrule: {pattern: f($A)}\nfix: g($B)\n")],
            &["scan"],
            8,
            "Undefined meta var `B`",
        ),
        case(
            "two rules with one id",
            &[("rules/again.yml", b"id: no-print\nlanguage: python\nrule: {pattern: print($A)}\n")],
            &["test"],
            8,
            "duplicate rule id `no-print`",
        ),
        case(
            "a utility that does not build",
            &[("sgconfig.yml", b"ruleDirs: [rules]\nutilDirs: [utils]\n"), ("utils/u.yml", b"id: u\nlanguage: python\nrule: {kind: no_such_kind}\n")],
            &["scan"],
            8,
            "utility rules of `utilDirs`",
        ),
        Case {
            peer: Some(1),
            ..case(
                "a utility file that does not parse",
                &[("sgconfig.yml", b"ruleDirs: [rules]\nutilDirs: [utils]\n"), ("utils/u.yml", b"id: u\nlanguage: python\nrule: {patern: x}\n")],
                &["scan"],
                8,
                "utility file utils/u.yml",
            )
        },
        case("a test file that does not parse", BAD_TEST, &["test"], 8, "test file tests/bad-test.yml"),
        case(
            "a snapshot file that does not parse",
            &[("tests/__snapshots__/no-print-snapshot.yml", b"id: no-print\nsnapshots: [\n")],
            &["test"],
            8,
            "test file tests/__snapshots__/no-print-snapshot.yml",
        ),
        case("a test file that does not parse is no matter to scan", BAD_TEST, &["scan"], 0, ""),
        case("a testDir that is not there", NO_TEST_DIR, &["test"], 6, "`testConfigs` names nowhere, which is not a folder"),
        case("a testDir that is not there is no matter to scan", NO_TEST_DIR, &["scan"], 0, ""),
        case("a test file that is not UTF-8", LATIN1_TEST, &["test"], 6, "cannot read test file tests/l.yml"),
        case(
            "a languageGlobs language that is not built in",
            &[("sgconfig.yml", b"ruleDirs: [rules]\nlanguageGlobs:\n  mojo: ['*.mojo']\n")],
            &["scan"],
            33,
            "unknown language `mojo`",
        ),
        case("a rule file that scan -r cannot read", &[], &["scan", "-r", "nope.yml"], 6, "cannot read rule file nope.yml"),
        case(
            "a rule file of scan -r that does not parse",
            &[("one.yml", b"id: x\nlanguage: python\nrule: {patern: f()}\n")],
            &["scan", "-r", "one.yml"],
            8,
            "unknown field `patern`",
        ),
        case("a test flag that test does not have", &[], &["test", "--no-such-flag"], 2, "unexpected argument"),
        // ast-grep has no limits: it refuses the flag.
        Case {
            peer: Some(2),
            ..case(
                "a file a limit left unsearched",
                &[("a.py", b"print(1)\n")],
                &["scan", "--max-steps", "1", "--json"],
                13,
                "skipped a.py: matching took more than 1 steps here",
            )
        },
    ]
}

#[test]
fn scan_and_test_exit_with_the_code_of_each_case_and_write_nothing() {
    for c in cases() {
        let t = project(c.edit);
        let before = t.snapshot();
        let r = t.run(c.args);
        assert_eq!(r.code, c.code, "{}: exit code\nstdout:\n{}\nstderr:\n{}", c.name, r.stdout, r.stderr);
        let both = format!("{}{}", r.stdout, r.stderr);
        assert!(both.contains(c.says), "{}: missing {:?} in:\n{both}", c.name, c.says);
        if ![0, 4, 13].contains(&c.code) {
            assert!(r.stderr.starts_with("error: "), "{}: {}", c.name, r.stderr);
        }
        assert_eq!(t.snapshot(), before, "{}: the run changed files", c.name);
    }
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn ast_grep_exits_with_the_same_codes() {
    let ag = ast_grep();
    for c in cases() {
        let t = project(c.edit);
        let before = t.snapshot();
        let o = std::process::Command::new(&ag).args(c.args).current_dir(t.path()).env("NO_COLOR", "1").output().unwrap();
        let want = c.peer.unwrap_or(c.code);
        assert_eq!(o.status.code(), Some(want), "{}: ast-grep's exit code\n{}", c.name, String::from_utf8_lossy(&o.stderr));
        assert_eq!(t.snapshot(), before, "{}: ast-grep changed files", c.name);
    }
}

/// Exit codes are ast-grep's for `scan` and `test` only: the same project
/// faults keep ast-edit's own code (2, bad input) for `run`.
#[test]
fn run_keeps_its_own_codes_for_the_same_faults() {
    let t = project(&[("rules/bad.yml", b"id: x\nlanguage: python\nrule: {patern: f()}\n")]);
    t.write("req.json", r#"{"rule": "id: x\nlanguage: python\nrule: {patern: f()}\n", "paths": ["src"]}"#);
    let r = t.run(&["run", "--request", "req.json"]).code(2);
    assert!(r.stderr.contains("unknown field `patern`"), "{}", r.stderr);
    t.run(&["undo"]).code(1);
}
