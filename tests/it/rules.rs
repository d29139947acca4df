//! ast-grep's rule language through the binary: each rule feature on a small
//! tree, with the bytes `ast-edit scan -r RULE -U` writes equal to what
//! `ast-grep scan -r RULE -U` 0.51.1 writes (CI installs the peer; elsewhere the
//! comparison is skipped with a message, and fails when `CI` is set); the overlap
//! order, nested rewrites, findings, the request's `rule` field, and the rules a
//! pending action stores.

use crate::common::json::Preview;
use crate::common::{Tree, ast_grep};
use serde_json::{Value, json};

/// Writes `files` and `rule.yml` into two trees, runs `ast-grep scan -r rule.yml
/// -U .` in one and `ast-edit scan -r rule.yml -U .` in the other, and requires
/// the same bytes (and a change). Returns ast-edit's tree.
fn same_as_ast_grep(rule: &str, files: &[(&str, &str)]) -> Tree {
    let make = || {
        let t = Tree::empty();
        t.write("rule.yml", rule);
        for (p, c) in files {
            t.write(p, c);
        }
        t
    };
    let (ours, peer) = (make(), make());
    let before = ours.snapshot();
    let r = ours.run(&["scan", "-r", "rule.yml", "-U", "--verbatim", "."]);
    assert!(r.code == 0 || r.code == 1, "exit {}\n{}{}", r.code, r.stdout, r.stderr);
    assert_ne!(ours.snapshot(), before, "the case must change something:\n{}{}", r.stdout, r.stderr);
    let ag = ast_grep();
    let o = std::process::Command::new(ag).args(["scan", "-r", "rule.yml", "-U", "."]).current_dir(peer.path()).output().unwrap();
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (ours.snapshot(), peer.snapshot());
    for (path, bytes) in &b {
        assert_eq!(String::from_utf8_lossy(&a[path]), String::from_utf8_lossy(bytes), "{path} differs from ast-grep for\n{rule}");
    }
    assert_eq!(a.len(), b.len());
    ours
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn relational_not_inside_skips_the_test_module_as_ast_grep_does() {
    let rule = "id: no-unwrap\nlanguage: rust\nrule:\n  pattern: $X.unwrap()\n  not:\n    inside:\n      kind: mod_item\n      has: {field: name, regex: ^tests$}\n      stopBy: end\nfix: $X.expect(\"checked\")\n";
    let src = "fn main() {\n    let a = read().unwrap();\n}\n\nmod tests {\n    fn t() {\n        let b = read().unwrap();\n    }\n}\n";
    let t = same_as_ast_grep(rule, &[("src/lib.rs", src)]);
    assert_eq!(t.read("src/lib.rs"), src.replacen("read().unwrap()", "read().expect(\"checked\")", 1));
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn has_and_inside_with_field_match_as_ast_grep_does() {
    let rule = "id: load-print\nlanguage: python\nrule:\n  pattern: print($$$A)\n  inside:\n    kind: function_definition\n    has: {field: name, regex: ^load$}\n    stopBy: end\nfix: log.debug($$$A)\n";
    let src = "def load():\n    print(\"a\", 1)\n\ndef save():\n    print(\"b\")\n";
    let t = same_as_ast_grep(rule, &[("m.py", src)]);
    assert!(t.read("m.py").contains("log.debug(\"a\", 1)") && t.read("m.py").contains("print(\"b\")"));
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn composite_any_all_not_and_follows_match_as_ast_grep_does() {
    let rule = "id: eq\nlanguage: javascript\nrule:\n  any:\n    - pattern: $A == null\n    - pattern: $A == undefined\n  not:\n    follows: {pattern: 'use($A)'}\nfix: $A === undefined\n";
    same_as_ast_grep(rule, &[("a.js", "if (x == null) {}\nif (y == undefined) {}\nuse(z);\nz == null;\n")]);
    let rule = "id: both\nlanguage: python\nrule:\n  all:\n    - pattern: print($A)\n    - not: {has: {kind: string, stopBy: end}}\nfix: log($A)\n";
    same_as_ast_grep(rule, &[("a.py", "print(x)\nprint(\"s\")\n")]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn constraints_filter_captures_as_ast_grep_does() {
    let rule = "id: warn-stacklevel\nlanguage: python\nrule: {pattern: 'warnings.warn($MSG, $CAT)'}\nconstraints:\n  CAT: {regex: Warning$}\nfix: warnings.warn($MSG, $CAT, stacklevel=2)\n";
    let t = same_as_ast_grep(rule, &[("w.py", "import warnings\nwarnings.warn(\"a\", DeprecationWarning)\nwarnings.warn(\"b\", category)\n")]);
    assert!(t.read("w.py").contains("warnings.warn(\"b\", category)\n"));
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn transforms_with_rewriters_rewrite_inside_captures_as_ast_grep_does() {
    let rule = r#"id: barrel
language: typescript
rule: {pattern: 'import {$$$IDENTS} from "./module"'}
rewriters:
  - id: rewrite-identifer
    rule: {pattern: $IDENT, kind: import_specifier}
    transform:
      E: {replace: {source: $IDENT, replace: '(?<ID>.+)', by: '$ID'}}
    fix: 'import $E from "./module/$E"'
transform:
  IMPORTS:
    rewrite:
      rewriters: [rewrite-identifer]
      source: $$$IDENTS
      joinBy: "\n"
fix: $IMPORTS
"#;
    let t = same_as_ast_grep(rule, &[("i.ts", "import {a, b, c} from \"./module\";\nconsole.log(a);\n")]);
    assert!(t.read("i.ts").contains("import a from \"./module/a\"\nimport b from"), "{}", t.read("i.ts"));
    let rule = "id: snake\nlanguage: python\nrule: {pattern: def $F($$$P)}\ntransform:\n  G: {convert: {source: $F, toCase: snakeCase}}\n  H: {substring: {source: $G, startChar: 0, endChar: 3}}\nfix: def $G_$H($$$P)\n";
    let _ = rule; // `def` alone is not a complete pattern; the convert case below is.
    let rule = "id: snake\nlanguage: python\nrule: {pattern: $F(), kind: call}\ntransform:\n  G: {convert: {source: $F, toCase: snakeCase}}\nfix: $G()\n";
    same_as_ast_grep(rule, &[("c.py", "doThing()\nOtherThing()\n")]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn expand_end_takes_the_trailing_comma_as_ast_grep_does() {
    // A keyword argument is a `keyword_argument` only inside a call: a contextual
    // pattern picks it. ast-grep expands the range one character at a time while
    // the regex matches it (so `,` goes and the space stays).
    let rule = "id: drop-arg\nlanguage: python\nrule:\n  pattern: {context: 'f(debug=True)', selector: keyword_argument}\nfix:\n  template: ''\n  expandEnd: {regex: ','}\n";
    let t = same_as_ast_grep(rule, &[("f.py", "run(debug=True, port=1)\nrun(x, debug=True, port=2)\n")]);
    assert_eq!(t.read("f.py"), "run( port=1)\nrun(x,  port=2)\n");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn local_utils_and_matches_work_as_ast_grep_does() {
    let rule = "id: util\nlanguage: python\nutils:\n  is-print: {pattern: print($$$A)}\nrule:\n  matches: is-print\n  inside: {kind: function_definition, stopBy: end}\nfix: log($$$A)\n";
    let t = same_as_ast_grep(rule, &[("u.py", "print(0)\ndef f():\n    print(1)\n")]);
    assert_eq!(t.read("u.py"), "print(0)\ndef f():\n    log(1)\n");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn files_and_ignores_choose_the_files_as_ast_grep_does() {
    let rule = "id: scoped\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\nfiles: [\"src/**\"]\nignores: [\"src/gen/**\"]\n";
    let t = same_as_ast_grep(rule, &[("src/a.py", "print(1)\n"), ("src/gen/b.py", "print(2)\n"), ("c.py", "print(3)\n")]);
    assert_eq!((t.read("src/a.py"), t.read("src/gen/b.py"), t.read("c.py")), ("log(1)\n".into(), "print(2)\n".into(), "print(3)\n".into()));
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn ast_grep_ignore_comments_suppress_matches_as_ast_grep_does() {
    let rule = "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n";
    let src = "print(1)\n# ast-grep-ignore\nprint(2)\nprint(3)  # ast-grep-ignore: no-print\nprint(4)  # ast-grep-ignore: other-rule\n";
    let t = same_as_ast_grep(rule, &[("s.py", src)]);
    assert_eq!(t.read("s.py"), "log(1)\n# ast-grep-ignore\nprint(2)\nprint(3)  # ast-grep-ignore: no-print\nlog(4)  # ast-grep-ignore: other-rule\n");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn overlapping_rules_keep_the_edit_ast_grep_keeps_and_report_the_other() {
    // Two rules on the same call: ast-grep orders rules at one node by id and
    // keeps the first edit; the outer rule wins over the nested one.
    let rules = "id: b-outer\nlanguage: python\nrule: {pattern: f(g($A))}\nfix: outer($A)\n---\nid: a-inner\nlanguage: python\nrule: {pattern: g($A)}\nfix: inner($A)\n---\nid: a-same\nlanguage: python\nrule: {pattern: f($A)}\nfix: same($A)\n";
    let t = same_as_ast_grep(rules, &[("o.py", "f(g(1))\ng(2)\n")]);
    assert_eq!(t.read("o.py"), "same(g(1))\ninner(2)\n");
    // The preview lists what was dropped, with the rule that was kept.
    t.write("o.py", "f(g(1))\n");
    let p: Preview = t.run(&["scan", "-r", "rule.yml", "--preview-json", "."]).ok().json();
    let dropped: Vec<(String, String)> = p.overlapped.iter().map(|o| (o.rule.clone(), o.kept_rule.clone())).collect();
    assert_eq!(dropped, [("b-outer".to_string(), "a-same".to_string()), ("a-inner".to_string(), "a-same".to_string())]);
    assert_eq!(p.overlaps, 2);
    assert!(p.overlapped.iter().all(|o| o.path == "o.py" && o.line == 1));
}

#[test]
fn rewrite_nested_rewrites_inner_matches_in_one_preview() {
    let t = Tree::empty();
    let src = "fn f() {\n    let a = x.unwrap().y.unwrap().z.unwrap();\n    let b = q.unwrap();\n}\n";
    t.write("a.rs", src);
    // Default: the outermost wins, as in ast-grep; the nested ones are listed.
    let p: Preview = t.run(&["run", "-p", "$A.unwrap()", "-r", "$A.expect(\"x\")", "--json", "."]).ok().json();
    assert_eq!((p.total_replacements, p.overlaps), (2, 2));
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    // With --rewrite-nested: every level in one preview, one edit per outermost
    // match; the counts are the sites rewritten (4), nested ones included.
    let p: Preview = t.run(&["run", "-p", "$A.unwrap()", "-r", "$A.expect(\"x\")", "--rewrite-nested", "--json", "."]).ok().json();
    assert_eq!((p.total_replacements, p.overlaps), (4, 0));
    assert_eq!(p.files.iter().map(|f| f.replacements).sum::<usize>(), 4);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("a.rs"), "fn f() {\n    let a = x.expect(\"x\").y.expect(\"x\").z.expect(\"x\");\n    let b = q.expect(\"x\");\n}\n");
    // Undo puts the file back.
    t.run(&["undo"]).ok();
    assert_eq!(t.read("a.rs"), src);
    // The same through a JSON request, for rules too.
    let req = json!({"rule": "id: u\nlanguage: rust\nrule: {pattern: $A.unwrap()}\nfix: $A.expect(\"y\")\n", "rewriteNested": true});
    t.write("req.json", req.to_string());
    let p: Preview = t.run(&["run", "--request", "req.json", "--json"]).ok().json();
    assert_eq!((p.total_replacements, p.overlaps), (4, 0));
}

#[test]
fn rewrite_nested_stops_after_its_round_limit_and_counts_the_rest() {
    // Nine levels of one pattern nested in itself: eight rounds rewrite all but
    // the innermost, which is counted as an overlap.
    let t = Tree::empty();
    let mut src = String::from("1");
    for _ in 0..10 {
        src = format!("f({src})");
    }
    t.write("n.py", format!("x = {src}\n"));
    let p: Preview = t.run(&["run", "-p", "f($A)", "-r", "g($A)", "--rewrite-nested", "--json", "."]).ok().json();
    // One edit holding the nine sites it rewrote.
    assert_eq!(p.total_replacements, 9);
    assert_eq!(p.overlaps, 1, "{:?}", p.warnings);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("n.py"), format!("x = {}f(1){}\n", "g(".repeat(9), ")".repeat(9)));
}

#[test]
fn rules_without_fix_are_findings_and_error_severity_fails_the_run() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\neval(x)\n");
    t.write("rules.yml", "id: no-eval\nlanguage: python\nseverity: warning\nmessage: eval of $X is unsafe\nrule: {pattern: eval($X)}\n---\nid: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
    let r = t.run(&["scan", "-r", "rules.yml", "--preview-json", "."]).ok();
    let p: Preview = r.json();
    assert_eq!(p.total_replacements, 1);
    assert_eq!(p.findings.len(), 1);
    let f = &p.findings[0];
    assert_eq!((f.path.as_str(), f.line, f.rule.as_str(), f.severity.as_str(), f.message.as_str()), ("a.py", 2, "no-eval", "warning", "eval of x is unsafe"));
    let r = t.run(&["scan", "-r", "rules.yml", "."]).ok();
    // Drawn as `ast-grep scan` draws it: the code, the column, the label.
    assert!(r.stdout.contains("warning[no-eval]: eval of x is unsafe\n  ┌─ a.py:2:1\n  │\n2 │ eval(x)\n  │ ^^^^^^^\n"), "{}", r.stdout);
    // A finding of an `error` rule fails the run (exit 1), after staging the preview.
    t.write("rules.yml", "id: no-eval\nlanguage: python\nseverity: error\nrule: {pattern: eval($X)}\n");
    let r = t.run(&["scan", "-r", "rules.yml", "."]).code(1);
    assert!(r.stdout.contains("error[no-eval]: \n  ┌─ a.py:2:1\n"), "{}", r.stdout);
    assert!(r.stdout.contains("No changes: nothing staged."), "{}", r.stdout);
    // With -U too.
    let r = t.run(&["scan", "-r", "rules.yml", "-U", "."]).code(1);
    assert!(r.stdout.contains("error[no-eval]: \n  ┌─ a.py:2:1\n"), "{}", r.stdout);
}

#[test]
fn request_rule_with_ops_selector_or_another_language_is_bad_input() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\n");
    let rule = "id: p\nrule: {pattern: print($A)}\nfix: log($A)\n";
    let cases = [
        (json!({"rule": rule, "lang": "py", "ops": [{"pat": "a", "out": "b"}]}), "give either `ops` or `rule`, not both"),
        (json!({"rule": rule, "lang": "py", "selector": "call"}), "`selector` and `strictness` apply to `ops` only"),
        (json!({"rule": rule}), "rule `p` has no `language`"),
        (json!({"rule": format!("{rule}language: rust\n"), "lang": "py"}), "has `language: rust` but the request's `lang` is python"),
        (json!({"rule": "id: p\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($B)\n"}), "Undefined meta var `B` used in `fix`"),
        (json!({"rule": "id: p\nlanguage: python\nrule: {patern: print($A)}\n"}), "unknown field `patern`"),
        (json!({"rule": "id: c\nlanguage: c\nrule: {pattern: kfree($A)}\nfix: kvfree($A)\n"}), "try `kfree($A);`"),
    ];
    for (req, want) in cases {
        t.write("req.json", req.to_string());
        let r = t.run(&["run", "--request", "req.json"]).code(2);
        assert!(r.stderr.contains(want), "{req}: expected {want:?} in\n{}", r.stderr);
    }
    assert_eq!(t.read("a.py"), "print(1)\n");
    assert!(t.run(&["pending", "--json"]).ok().stdout.trim() == "[]");
}

#[test]
fn a_pending_action_stores_its_rules_and_a_later_process_applies_them() {
    let t = Tree::empty();
    t.write("a.py", "def load():\n    print(1)\nprint(2)\n");
    let rule = "id: load-print\nlanguage: python\nrule:\n  pattern: print($A)\n  inside: {kind: function_definition, stopBy: end}\nfix: log($A)\n";
    t.write("req.json", json!({"rule": rule}).to_string());
    let p: Preview = t.run(&["run", "--request", "req.json", "--json"]).ok().json();
    let id = p.id.unwrap();
    let entry: Value = serde_json::from_slice(&std::fs::read(t.state.path().join("pending").join(format!("{id}.json"))).unwrap()).unwrap();
    assert_eq!(entry["rules"][0]["id"], "load-print");
    assert_eq!(entry["rules"][0]["rule"]["inside"]["kind"], "function_definition");
    // Re-run from the stored rules (not the stored edits), in another process.
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"verify": "rerun"}"#]).ok();
    assert_eq!(t.read("a.py"), "def load():\n    log(1)\nprint(2)\n");
}

#[test]
fn project_pattern_problems_are_warnings_with_the_rule_id_and_request_ones_are_errors() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write(
        "rules/c.yml",
        "id: c-kfree\nlanguage: c\nrule: {pattern: kfree($A)}\nfix: kvfree($A)\n---\nid: c-ok\nlanguage: c\nrule: {pattern: 'free($A);'}\nfix: 'kfree($A);'\n",
    );
    t.write("a.c", "void f(void *p) {\n\tfree(p);\n}\n");
    let r = t.run(&["scan", "."]).ok();
    assert!(
        r.stdout.contains("rule `c-kfree`: pattern `kfree($A)` does not parse cleanly as c") && r.stdout.contains("try `kfree($A);`"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains("AST Scan: 1 replacement in 1 file"), "{}", r.stdout);
}

/// A project's pattern whose tree is not clean but that matches real code (its
/// own text with sample code for the metavariables) is not warned of, and finds
/// what ast-grep finds.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn patterns_that_match_real_code_are_not_warned_of() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write(
        "rules/r.yml",
        "id: c-int-reserve\nlanguage: c\nrule: {pattern: int $VAR = $FUNC($$$ARGS)}\nfix: 'uint32_t $VAR = $FUNC($$$ARGS);'\n---\nid: rs-struct\nlanguage: rust\nrule: {pattern: 'pub struct $NAME { $$$FIELDS }'}\n",
    );
    t.write("q.c", "void f(void){ int n = qm_reserve(q,3); int m = g(); }\n");
    t.write("s.rs", "pub struct A { x: u8 }\npub struct B {}\n");
    let r = t.run(&["scan", "--json=compact"]).ok();
    assert!(!r.stderr.contains("parse cleanly"), "{}", r.stderr);
    let ours: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    let theirs: Vec<serde_json::Value> = t.peer(&["scan", "--json=compact"]).json();
    assert_eq!(ours.len(), 4, "{}", r.stdout);
    assert_eq!(ours.len(), theirs.len());
    // Still warned of: a pattern that matches no call (`kfree($A)` is a type in C).
    t.write("rules/k.yml", "id: c-kfree\nlanguage: c\nrule: {pattern: kfree($A)}\n");
    let r = t.run(&["scan", "--json=compact"]).ok();
    assert!(r.stderr.contains("rule `c-kfree`: pattern `kfree($A)` does not parse cleanly as c"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn language_globs_of_a_project_read_other_files_as_that_language_as_ast_grep_does() {
    let make = || {
        let t = Tree::empty();
        t.write("sgconfig.yml", "ruleDirs: [rules]\nlanguageGlobs:\n  python: [\"*.pyi\", \"*.pysrc\"]\n");
        t.write("rules/p.yml", "id: p\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
        t.write("a.pysrc", "print(1)\n");
        t.write("b.py", "print(2)\n");
        t.write("c.txt", "print(3)\n");
        t
    };
    let (ours, peer) = (make(), make());
    ours.run(&["scan", "-U"]).ok();
    assert_eq!((ours.read("a.pysrc"), ours.read("b.py"), ours.read("c.txt")), ("log(1)\n".into(), "log(2)\n".into(), "print(3)\n".into()));
    let ag = ast_grep();
    std::process::Command::new(ag).args(["scan", "-U"]).current_dir(peer.path()).output().unwrap();
    assert_eq!(ours.snapshot(), peer.snapshot());
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn expand_start_takes_the_leading_comment_as_ast_grep_does() {
    let rule = "id: drop-debug\nlanguage: python\nrule: {pattern: debug_dump($A)}\nfix:\n  template: ''\n  expandStart: {kind: comment}\n";
    let t = same_as_ast_grep(rule, &[("d.py", "x = 1\n# dump it\ndebug_dump(x)\ny = 2\n")]);
    assert!(!t.read("d.py").contains("debug_dump"), "{}", t.read("d.py"));
}

#[test]
fn scan_without_a_project_is_exit_3_and_retired_json_rules_are_refused() {
    let t = Tree::empty();
    t.write("a.py", "print(1)\n");
    let r = t.run(&["scan"]).code(3);
    assert!(r.stderr.contains("no ast-grep project: neither sgconfig.yml nor sgconfig.yaml is in") && r.stderr.contains("-c FILE"), "{}", r.stderr);
    t.write("old.json", r#"{"id": "py-p", "language": "python", "description": "d", "ops": [{"pat": "print($A)", "out": "log($A)"}], "tests": {"valid": ["x\n"], "invalid": [{"before": "print(1)\n", "after": "log(1)\n"}]}}"#);
    let r = t.run(&["scan", "--rules", "old.json", "-U", "a.py"]).code(2);
    assert!(r.stderr.contains("old.json is a rule file of the retired JSON catalog format"), "{}", r.stderr);
    assert!(r.stderr.contains("id: py-p\nlanguage: python\nmessage: d\nrule:\n  pattern: print($A)\nfix: log($A)\n"), "{}", r.stderr);
    assert_eq!(t.read("a.py"), "print(1)\n");
    let r = t.run(&["test", "old.json"]).code(2);
    assert!(r.stderr.contains("retired JSON catalog format"), "{}", r.stderr);
}
