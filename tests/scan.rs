//! Rule files: `scan` (many rules, one pass, one pending action), overlaps between
//! rules, validation errors that name file/rule/field, and `ast-edit test`.

mod common;

use common::json::Preview;
use common::Tree;

const ASSERT_RULE: &str = r#"{
  "id": "py-assert-equals",
  "language": "python",
  "description": "assertEquals -> assertEqual",
  "ops": [{"pat": "$S.assertEquals($A, $B)", "out": "$S.assertEqual($A, $B)"}],
  "tests": {"valid": ["self.assertEqual(a, b)\n"],
            "invalid": [{"before": "self.assertEquals(a, b)\n", "after": "self.assertEqual(a, b)\n"}]}
}"#;

const RENAME_RULES: &str = r#"[
  {"id": "py-fetch", "language": "py", "description": "rename fetch_data",
   "ops": [{"pat": "fetch_data($$$A)", "out": "load_data($$$A)"}], "globs": ["!test_*"]},
  {"id": "js-console", "language": "js", "description": "console.log -> logger.debug",
   "ops": [{"pat": "console.log($$$A)", "out": "logger.debug($$$A)"}]}
]"#;

fn rules(t: &Tree) {
    t.write("rules/py-assert.json", ASSERT_RULE);
    t.write("rules/more/renames.json", RENAME_RULES);
}

#[test]
fn scan_runs_every_rule_in_one_pass_as_one_pending_action() {
    let t = Tree::fixtures();
    rules(&t);
    let before = t.snapshot();
    let p: Preview = t.run(&["scan", "--rules", "rules", "python", "js", "--json"]).ok().json();
    assert_eq!(t.snapshot(), before, "a scan previews only");
    // Rules run in the order of their files (sorted by path).
    assert_eq!(p.label, "AST Scan: 6 replacements in 4 files (rules: py-fetch, js-console, py-assert-equals)");
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    // The py-fetch glob excludes test_*; py-assert-equals still edits test_app.py.
    assert_eq!(paths, vec!["js/lib/util.js", "python/app.py", "python/crlf.py", "python/test_app.py"]);
    assert!(p.files[3].diff.contains("+        self.assertEqual(fetch_data(\"a.txt\"), \"a\")"));
    let h = t.run(&["scan", "--rules", "rules", "python", "js"]).ok();
    assert!(h.stdout.contains("py-assert-equals             2       1"), "{}", h.stdout);
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(t.read("python/app.py").contains("text = load_data(os.path.join"));
    assert!(t.read("js/lib/util.js").contains("logger.debug(\"loaded\", name)"));
    assert!(t.read("python/test_app.py").contains("self.assertEqual(fetch_data(\"a.txt\")"));
}

#[test]
fn scan_update_all_applies_with_the_safe_writer() {
    let t = Tree::fixtures();
    rules(&t);
    let p: Preview = t.run(&["scan", "--rules", "rules/py-assert.json", "-U", "--json"]).ok().json();
    assert_eq!((p.status.as_str(), p.total_replacements), ("applied", 2));
    assert!(t.read("python/test_app.py").contains("self.assertEqual(len("));
    t.run(&["undo"]).ok();
    assert_eq!(t.read("python/test_app.py"), Tree::fixtures().read("python/test_app.py"));
}

#[test]
fn overlapping_edits_of_different_rules_are_reported_with_their_line() {
    let t = Tree::empty();
    t.write("a.py", "x = 1\ny = f(f(2))\n");
    t.write(
        "r.json",
        r#"[{"id": "outer", "language": "python", "description": "d", "ops": [{"pat": "f(f($X))", "out": "ff($X)"}]},
            {"id": "inner", "language": "python", "description": "d", "ops": [{"pat": "f($X)", "out": "g($X)"}]}]"#,
    );
    let p: Preview = t.run(&["scan", "--rules", "r.json", "--json"]).ok().json();
    assert_eq!(p.total_replacements, 1);
    assert_eq!(p.overlaps, 2);
    assert!(
        p.warnings.iter().any(|w| w == "a.py:2: rule `inner` overlaps an edit of rule `outer` and was not applied here; run the scan again after applying to apply it"),
        "{:?}",
        p.warnings
    );
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("a.py"), "x = 1\ny = ff(2)\n");
}

#[test]
fn rule_file_errors_name_the_file_the_rule_and_the_field() {
    let t = Tree::fixtures();
    let cases: &[(&str, &str)] = &[
        (r#"{"id": "r1", "language": "pyton", "description": "d", "ops": [{"pat": "a", "out": "b"}]}"#, "bad.json: rule `r1`: field `language`: unknown language `pyton`"),
        (r#"{"id": "r2", "language": "py", "description": "d", "ops": [{"pat": "a", "out": "b"}], "extra": 1}"#, "bad.json: rule `r2`: field `extra`: unknown field `extra`"),
        (r#"{"id": "r3", "language": "py", "description": "d", "ops": []}"#, "bad.json: rule `r3`: field `ops`: give at least one"),
        (r#"{"id": "r4", "language": "py", "description": "d", "ops": [{"pat": "foo(", "out": "b"}]}"#, "bad.json: rule `r4`: field `ops[0].pat`:"),
        (r#"{"id": "r5", "language": "py", "description": "d", "ops": [{"pat": "foo($A)", "out": "bar($B)"}]}"#, "bad.json: rule `r5`: field `ops[0].out`: ops[0].out uses $B"),
        (r#"{"id": "r6", "language": "c", "description": "d", "ops": [{"pat": "kfree($A)", "out": "kvfree($A)"}]}"#, "try `kfree($A);`"),
        (r#"{"id": "r7", "language": "py", "description": "d", "ops": [{"pat": "a", "out": "b"}], "strictness": "loose"}"#, "bad.json: rule `r7`: field `strictness`"),
        (r#"{"id": "r8", "language": "py", "ops": [{"pat": "a", "out": "b"}]}"#, "bad.json: rule `r8`: field `description`: missing field `description`"),
        (r#"[{"id": "r9", "language": "py", "description": "d", "ops": [{"pat": "a", "out": "b"}]}, {"id": "r9", "language": "py", "description": "d", "ops": [{"pat": "c", "out": "b"}]}]"#, "bad.json: rule `r9`: field `id`: already used"),
        ("{not json", "bad.json: not valid JSON"),
    ];
    for (text, msg) in cases {
        t.write("bad.json", text);
        let r = t.run(&["scan", "--rules", "bad.json"]).code(2);
        assert!(r.stderr.contains(msg), "expected {msg:?} in:\n{}", r.stderr);
        let r = t.run(&["test", "bad.json"]).code(2);
        assert!(r.stderr.contains(msg), "expected {msg:?} in:\n{}", r.stderr);
    }
    let r = t.run(&["scan", "--rules", "no/such/rules"]).code(2);
    assert!(r.stderr.contains("cannot read rule file no/such/rules"), "{}", r.stderr);
}

#[test]
fn test_command_checks_every_case_and_fails_with_a_diff() {
    let t = Tree::empty();
    t.write("rules/ok.json", ASSERT_RULE);
    let r = t.run(&["test", "rules"]).ok();
    assert!(r.stdout.contains("PASS py-assert-equals (2 cases)"), "{}", r.stdout);
    assert!(r.stdout.ends_with("1 rule checked\ntest: 2 passed, 0 failed\n"), "{}", r.stdout);
    t.write(
        "rules/wrong.json",
        r#"{"id": "py-wrong", "language": "python", "description": "d",
            "ops": [{"pat": "print($A)", "out": "log($A)"}],
            "tests": {"valid": ["print(1)\n"], "invalid": [{"before": "print(2)\n", "after": "logger(2)\n"}]}}"#,
    );
    t.write("rules/none.json", r#"{"id": "py-none", "language": "python", "description": "d", "ops": [{"pat": "a", "out": "b"}]}"#);
    let r = t.run(&["test", "rules"]).code(1);
    assert!(r.stdout.contains("FAIL py-wrong valid[0]"), "{}", r.stdout);
    assert!(r.stdout.contains("FAIL py-wrong invalid[0]"), "{}", r.stdout);
    assert!(r.stdout.contains("-logger(2)\n+log(2)\n"), "{}", r.stdout);
    assert!(r.stdout.contains("FAIL py-none tests"), "{}", r.stdout);
    assert!(r.stdout.ends_with("test: 2 passed, 3 failed\n"), "{}", r.stdout);
}
