//! Rule files: `scan` (many rules of a project's rule files, one pass, one pending
//! action), `-U` through the safe writer, and overlaps between rules.

use crate::common::Tree;
use crate::common::json::Preview;

const ASSERT_RULE: &str = "id: py-assert-equals
language: python
message: assertEquals -> assertEqual
rule: {pattern: '$S.assertEquals($A, $B)'}
fix: $S.assertEqual($A, $B)
";

const RENAME_RULES: &str = "id: py-fetch
language: py
message: rename fetch_data
rule: {pattern: fetch_data($$$A)}
fix: load_data($$$A)
ignores: ['**/test_*']
---
id: js-console
language: js
message: console.log -> logger.debug
rule: {pattern: console.log($$$A)}
fix: logger.debug($$$A)
";

/// A project whose rule folder holds the two rule files.
fn rules(t: &Tree) {
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/py-assert.yml", ASSERT_RULE);
    t.write("rules/more/renames.yml", RENAME_RULES);
}

#[test]
fn scan_runs_every_rule_in_one_pass_as_one_pending_action() {
    let t = Tree::fixtures();
    rules(&t);
    let before = t.snapshot();
    let p: Preview = t.run(&["scan", "python", "js", "--preview-json"]).ok().json();
    assert_eq!(t.snapshot(), before, "a scan previews only");
    // Rules run in the order of their files (sorted by path).
    assert_eq!(p.label, "AST Scan: 6 replacements in 4 files (rules: py-fetch, js-console, py-assert-equals)");
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    // The py-fetch glob excludes test_*; py-assert-equals still edits test_app.py.
    assert_eq!(paths, vec!["js/lib/util.js", "python/app.py", "python/crlf.py", "python/test_app.py"]);
    assert!(p.files[3].diff.contains("+        self.assertEqual(fetch_data(\"a.txt\"), \"a\")"));
    let h = t.run(&["scan", "python", "js"]).ok();
    assert!(h.stdout.contains("py-assert-equals             2       1"), "{}", h.stdout);
    // The same scan of the same files is the same pending action, not a second one.
    let id = p.id.as_deref().expect("staged");
    assert!(
        h.stdout.contains(&format!("\nAlready pending as action {id} (the same preview; nothing new was staged). Nothing was written yet.\n")),
        "{}",
        h.stdout
    );
    assert_eq!(crate::common::store::pending(&t).len(), 1);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(t.read("python/app.py").contains("text = load_data(os.path.join"));
    assert!(t.read("js/lib/util.js").contains("logger.debug(\"loaded\", name)"));
    assert!(t.read("python/test_app.py").contains("self.assertEqual(fetch_data(\"a.txt\")"));
}

#[test]
fn scan_update_all_applies_with_the_safe_writer() {
    let t = Tree::fixtures();
    rules(&t);
    let p: Preview = t.run(&["scan", "--rules", "rules/py-assert.yml", "-U", "--preview-json"]).ok().json();
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
        "r.yml",
        "id: outer\nlanguage: python\nrule: {pattern: f(f($X))}\nfix: ff($X)\n---\nid: inner\nlanguage: python\nrule: {pattern: f($X)}\nfix: g($X)\n",
    );
    let p: Preview = t.run(&["scan", "--rules", "r.yml", "--preview-json"]).ok().json();
    assert_eq!(p.total_replacements, 1);
    assert_eq!(p.overlaps, 2);
    // Both rules match the outer call; as `ast-grep scan -r r.yml -U` 0.51.1 does,
    // `inner`'s edit of it is the one written.
    assert!(
        p.warnings.iter().any(|w| w == "a.py:2: rule `outer` matches the same code as rule `inner`, whose edit is the one kept (one edit per node; applying and running again cannot help, the code is gone). To rewrite such code with rule `outer`, keep rule `inner` off it with `constraints` or a `not:` in its rule."),
        "{:?}",
        p.warnings
    );
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("a.py"), "x = 1\ny = g(f(2))\n");
}

#[test]
fn a_missing_rule_file_is_exit_6_as_in_ast_grep() {
    let t = Tree::fixtures();
    let r = t.run(&["scan", "--rules", "no/such/rules"]).code(6);
    assert!(r.stderr.contains("cannot read rule file no/such/rules"), "{}", r.stderr);
}
