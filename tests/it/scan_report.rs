//! `scan` as a report (docs/RULES.md, "Reports"): `--json[=STYLE]`,
//! `--include-metadata`, `--format github|sarif`, `--files-with-matches` and
//! `--report-style`, through the binary on a small project, each compared with
//! `ast-grep scan` 0.51.1 on an identical copy; reports stage nothing; the exit
//! code of error-severity matches, fix or not; and `-U --skip-flagged` /
//! `--allow-flagged`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::{Run, Tree, ast_grep};
use serde_json::Value;

/// Rules of every kind a report shows: a fix (error, with note and metadata),
/// labels with a message (warning), a multi-capture (info), a hint, a fix
/// widened by `expandEnd`, and a rule for another language.
const RULES: &str = r#"id: no-print
language: python
severity: error
message: do not print $A
note: use logging
metadata: {owner: core}
rule: {pattern: print($A)}
fix: log($A)
---
id: eq-none
language: python
severity: warning
message: compare with `is`
labels:
  A: {style: secondary, message: the left side}
rule: {pattern: $A == None}
---
id: many-args
language: python
severity: info
message: "call with $$$ARGS"
rule: {pattern: "f($$$ARGS)"}
---
id: hint-pass
language: python
severity: hint
message: a pass
rule: {kind: pass_statement}
---
id: drop-comma
language: python
severity: warning
message: drop the element and its comma
rule: {pattern: "drop_me", inside: {kind: list}}
fix:
  template: ''
  expandEnd: {regex: ','}
---
id: js-console
language: javascript
severity: error
message: no console
rule: {pattern: console.log($$$A)}
"#;

const PY: &str = "print(1)\nif x == None:\n    print(x == None)\nf(1, 2, 3)\nxs = [drop_me, 2]\ndef g():\n    pass\n";
const JS: &str = "console.log('a', b);\nconst ü = 1; console.log(ü)\n";

/// The project, once for us and once for the peer.
fn project() -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/all.yml", RULES);
    t.write("src/a.py", PY);
    t.write("src/b.js", JS);
    t.write("src/clean.py", "x = 1\n");
    t
}

/// `ast-grep scan ARGS` in `t`.
fn peer(t: &Tree, args: &[&str]) -> Run {
    t.peer(&[&["scan"][..], args].concat())
}

/// Records sorted by file, offset and rule (ast-grep's order among rules
/// changes from run to run; ast-edit's is by offset).
fn sorted(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by_key(|r| (r["file"].as_str().unwrap().to_string(), r["range"]["byteOffset"]["start"].as_u64(), r["ruleId"].as_str().unwrap().to_string()));
    v
}

/// Nothing is pending in `t`'s store.
fn nothing_staged(t: &Tree) {
    let pending: Vec<Value> = t.run(&["pending", "--json"]).ok().json();
    assert!(pending.is_empty(), "a report staged something: {pending:?}");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn json_records_are_ast_greps_in_every_style() {
    let t = project();
    let ours = t.run(&["scan", "--json"]).code(1);
    let theirs = peer(&t, &["--json"]).code(1);
    let (a, b): (Vec<Value>, Vec<Value>) = (ours.json(), theirs.json());
    assert_eq!(a.len(), 9, "{}", ours.stdout);
    assert_eq!(sorted(a.clone()), sorted(b));
    // Path order, then offset: the same bytes on every run.
    assert_eq!(a, sorted(a.clone()));
    assert!(ours.stdout.starts_with("[\n{\n  \"text\": "), "pretty layout: {}", &ours.stdout[..40]);
    // compact: one line; stream: one object per line, as the peer.
    let compact = t.run(&["scan", "--json=compact"]).code(1);
    assert_eq!(compact.stdout.lines().count(), 1);
    let c: Vec<Value> = compact.json();
    assert_eq!(c, a);
    let stream = t.run(&["scan", "--json=stream"]).code(1);
    let s: Vec<Value> = stream.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(s, a);
    let peer_stream = peer(&t, &["--json=stream"]);
    assert_eq!(peer_stream.stdout.lines().count(), s.len());
    // metadata only when asked, as the peer.
    assert!(a.iter().all(|r| r.get("metadata").is_none()));
    let m: Vec<Value> = t.run(&["scan", "--json=compact", "--include-metadata"]).code(1).json();
    let pm: Vec<Value> = peer(&t, &["--json=compact", "--include-metadata"]).json();
    assert_eq!(sorted(m.clone()), sorted(pm));
    assert_eq!(m[0]["metadata"], serde_json::json!({"owner": "core"}));
    nothing_staged(&t);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn github_annotations_are_ast_greps() {
    let t = project();
    let ours = t.run(&["scan", "--format", "github"]).code(1);
    let theirs = peer(&t, &["--format", "github"]).code(1);
    let a: BTreeSet<&str> = ours.stdout.lines().collect();
    let b: BTreeSet<&str> = theirs.stdout.lines().collect();
    assert_eq!(a, b);
    // Hints are left out; a message's `:` and `,` are kept, a property's escaped.
    assert!(ours.stdout.contains("::error file=src/a.py,line=1,endLine=1,title=no-print::do not print 1\n"), "{}", ours.stdout);
    assert!(ours.stdout.contains("::notice file=src/a.py,line=4,endLine=4,title=many-args::call with 1, 2, 3\n"));
    assert!(!ours.stdout.contains("hint-pass"));
    nothing_staged(&t);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn sarif_is_ast_greps_and_valid_sarif_2_1_0() {
    let t = project();
    let ours = t.run(&["scan", "--format", "sarif"]).code(1);
    let theirs = peer(&t, &["--format", "sarif"]).code(1);
    let (a, b): (Value, Value) = (ours.json(), theirs.json());
    let results = |v: &Value| {
        let mut r = v["runs"][0]["results"].as_array().unwrap().clone();
        r.sort_by_key(|x| {
            (
                x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].to_string(),
                x["locations"][0]["physicalLocation"]["region"]["byteOffset"].as_u64(),
                x["ruleId"].to_string(),
            )
        });
        r
    };
    assert_eq!(results(&a), results(&b));
    assert_eq!(a["version"], "2.1.0");
    assert_eq!(a["runs"][0]["tool"]["driver"]["name"], "ast-edit");
    // The SARIF 2.1.0 schema (as serde-sarif 0.8.0 ships it). Its `run.language`
    // pattern holds a stray `]` that the validator's regex engine refuses; it is
    // escaped here (ast-edit writes no `language`).
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json")).unwrap();
    let stray = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(text.contains(stray));
    let schema: Value = serde_json::from_str(&text.replace(stray, r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#)).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&a).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0: {errors:?}");
    // The validator is not a rubber stamp: a result without its message fails.
    let mut broken = a.clone();
    broken["runs"][0]["results"][0].as_object_mut().unwrap().remove("message");
    assert!(!validator.is_valid(&broken));
    nothing_staged(&t);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn files_with_matches_lists_each_file_once() {
    let t = project();
    let ours = t.run(&["scan", "--files-with-matches"]).code(1);
    assert_eq!(ours.stdout, "src/a.py\nsrc/b.js\n");
    let theirs = peer(&t, &["--files-with-matches"]);
    let b: BTreeSet<&str> = theirs.stdout.lines().collect();
    assert_eq!(b, ["src/a.py", "src/b.js"].into_iter().collect());
    nothing_staged(&t);
}

/// A project of one rule without a fix: its rich, medium and short reports are
/// ast-grep's byte for byte (codespan-reporting draws both).
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn findings_are_drawn_as_ast_grep_draws_them() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write(
        "rules/r.yml",
        "id: eq-none\nlanguage: python\nseverity: warning\nmessage: compare with `is`\nnote: PEP 8 says so\nlabels:\n  A: {style: primary, message: this side}\n  B: {style: secondary}\nrule: {pattern: $A == $B}\n",
    );
    t.write("a.py", "a = 1\nif x == None:\n    pass\nb = 2\nc = 3\n");
    for style in ["rich", "medium", "short"] {
        let ours = t.run(&["scan", "--report-style", style]).ok();
        let theirs = peer(&t, &["--report-style", style]).ok();
        assert_eq!(ours.stdout, theirs.stdout, "--report-style {style}");
    }
    let ours = t.run(&["scan", "--report-style", "rich", "-C", "1"]).ok();
    assert_eq!(ours.stdout, peer(&t, &["--report-style", "rich", "-C", "1"]).stdout);
    let ours = t.run(&["scan", "--report-style", "rich", "-A", "2", "-B", "0"]).ok();
    assert_eq!(ours.stdout, peer(&t, &["--report-style", "rich", "-A", "2", "-B", "0"]).stdout);
    nothing_staged(&t);
}

#[test]
fn a_fix_is_shown_under_its_rules_severity_and_message() {
    let t = project();
    let r = t.run(&["scan", "--report-style", "rich"]).code(1);
    let want = "src/a.py\nerror[no-print]: do not print 1\n@@ -0,4 +0,4 @@\n1  │-print(1)\n  1│+log(1)\n2 2│ if x == None:\n";
    assert!(r.stdout.contains(want), "{}", r.stdout);
    assert!(r.stdout.contains("Note:\nuse logging\n\n"), "{}", r.stdout);
    let short = t.run(&["scan", "--report-style", "short"]).code(1);
    assert!(short.stdout.contains("src/a.py:1:1: error[no-print]: do not print 1\n"), "{}", short.stdout);
    assert!(!short.stdout.contains("Note:"));
    assert!(r.stderr.contains("error: 4 match(es) of rules with `severity: error`"), "{}", r.stderr);
    nothing_staged(&t);
}

/// The rule of a C project that ast-grep fails on and ast-edit let through: an
/// error rule with a fix fails `scan` (report or preview) unless `-U` writes
/// the fix, as ast-grep.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn an_error_rule_with_a_fix_fails_the_scan_unless_written() {
    let t = Tree::empty();
    let rule = "{id: c-int-reserve, language: c, severity: error, rule: {pattern: int $VAR = $FUNC($$$ARGS)}, fix: 'uint32_t $VAR = $FUNC($$$ARGS);'}";
    t.write("q.c", "void f(void){ int n = qm_reserve(q,3); }\n");
    for args in [&["--inline-rules", rule][..], &["--inline-rules", rule, "--json"][..]] {
        let code = peer(&t, args).code;
        assert_eq!(code, 1, "peer {args:?}");
        t.run(&[&["scan"][..], args].concat()).code(code);
    }
    // The preview is staged all the same, for `resolve`.
    let pending: Vec<Value> = t.run(&["pending", "--json"]).ok().json();
    assert_eq!(pending.len(), 1);
    t.run(&["resolve", "discard", "--reason", "test"]).ok();
    // Written: the fix answers the rule (exit 0), as with the peer.
    let peer_copy = Tree::empty();
    peer_copy.write("q.c", "void f(void){ int n = qm_reserve(q,3); }\n");
    assert_eq!(peer(&peer_copy, &["--inline-rules", rule, "-U"]).code, 0);
    t.run(&["scan", "--inline-rules", rule, "-U", "--verbatim"]).ok();
    assert_eq!(t.read("q.c"), peer_copy.read("q.c"));
    // A warning rule with a fix does not fail the scan.
    let warn = rule.replace("severity: error", "severity: warning");
    t.write("q.c", "void f(void){ int n = qm_reserve(q,3); }\n");
    t.run(&["scan", "--inline-rules", &warn, "--json"]).ok();
    t.run(&["scan", "--inline-rules", &warn]).ok();
}

/// `-U` and flagged files: by default one flagged file stops the apply;
/// `--skip-flagged` writes the others and lists it; `--allow-flagged` writes it.
#[test]
fn update_all_skips_or_allows_flagged_files_on_request() {
    let rule = "{id: break-it, language: python, rule: {pattern: 'go($A)'}, fix: 'go($A'}\n---\n{id: fine, language: python, rule: {pattern: 'old($A)'}, fix: 'new($A)'}";
    let fresh = || {
        let t = Tree::empty();
        t.write("bad.py", "go(1)\n");
        t.write("good.py", "old(1)\n");
        t
    };
    let t = fresh();
    // ast-grep gives 1 another meaning in `scan`: an apply that failed is 11.
    let r = t.run(&["scan", "--inline-rules", rule, "-U"]).code(11);
    assert!(r.stderr.contains("bad.py"), "{}", r.stderr);
    assert_eq!((t.read("bad.py"), t.read("good.py")), ("go(1)\n".into(), "old(1)\n".into()));

    let t = fresh();
    // Written but for the flagged file, which is outstanding: incomplete, 12 in `scan`.
    let r = t.run(&["scan", "--inline-rules", rule, "-U", "--skip-flagged", "--preview-json"]).code(12);
    assert_eq!((t.read("bad.py"), t.read("good.py")), ("go(1)\n".into(), "new(1)\n".into()), "{}", r.stderr);
    let details: Value = r.json();
    assert!(details.to_string().contains("bad.py"), "the flagged file is listed: {details}");

    let t = fresh();
    t.run(&["scan", "--inline-rules", rule, "-U", "--allow-flagged"]).ok();
    assert_eq!((t.read("bad.py"), t.read("good.py")), ("go(1\n".into(), "new(1)\n".into()));

    // Both flags need -U.
    let r = t.run(&["scan", "--inline-rules", rule, "--skip-flagged"]).code(2);
    assert!(r.stderr.contains("--update-all"), "{}", r.stderr);
}

/// Reports cannot be combined with writing, and `--include-metadata` needs `--json`.
#[test]
fn report_flags_refuse_what_they_cannot_do() {
    let t = project();
    for args in [
        &["scan", "--json", "-i"][..],
        &["scan", "--format", "sarif", "-i"][..],
        &["scan", "--files-with-matches", "-U"][..],
        &["scan", "--report-style", "short", "-U"][..],
        &["scan", "--include-metadata"][..],
        &["scan", "--json", "--format", "github"][..],
        &["scan", "--json", "--preview-json"][..],
        &["scan", "-A", "2"][..],
    ] {
        let r = t.run(args).code(2);
        assert!(r.stderr.contains("error:"), "{args:?}: {}", r.stderr);
    }
    assert_eq!(std::fs::read_to_string(t.path().join("src/a.py")).unwrap(), PY);
}

/// docs/RULES.md, "Reports": the rules and commands it shows give exactly the
/// output it shows, stdout then stderr (tests/it/doc_examples.rs runs the block too).
#[test]
fn the_report_example_of_the_docs_is_what_the_binary_prints() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/RULES.md")).unwrap();
    let section = &doc[doc.find("\n## Reports\n").expect("a Reports section")..];
    let yaml_at = section.find("```yaml\nid: eq-none\n").expect("the example's rules") + "```yaml\n".len();
    let yaml = &section[yaml_at..yaml_at + section[yaml_at..].find("```").unwrap()];
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    let (eq, print) = yaml.split_once("---\n").expect("two rules");
    t.write("rules/eq-none.yml", eq);
    t.write("rules/no-print.yml", print);
    t.write("app.py", "def check(x):\n    if x == None:\n        print(x)\n");
    let mut shown = String::new();
    for args in [&["--report-style", "rich"][..], &["--report-style", "short"], &["--format", "github"]] {
        let r = t.run(&[&["scan"][..], args].concat()).code(1);
        shown.push_str(&format!("$ ast-edit scan {}\n{}{}", args.join(" "), r.stdout, r.stderr));
    }
    assert!(section.contains(&format!("```console\n{shown}```\n")), "docs/RULES.md should show:\n{shown}");
}

/// `--error/--warning/--info/--hint/--off[=RULE]` and `--min-severity` give the
/// annotations and exit codes ast-grep gives.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn severity_overrides_are_ast_greps() {
    let t = project();
    for flags in [
        &["--warning"][..],
        &["--off=no-print", "--off=js-console"],
        &["--error", "--hint=eq-none"],
        &["--error=hint-pass", "--off=hint-pass"],
        &["--min-severity=warning"],
        &["--min-severity=error", "--error=many-args", "--off=no-print"],
    ] {
        let args = [&["--format", "github"][..], flags].concat();
        let theirs = peer(&t, &args);
        let ours = t.run(&[&["scan"][..], &args].concat());
        assert_eq!(ours.code, theirs.code, "{flags:?}: {}", ours.stderr);
        let a: BTreeSet<&str> = ours.stdout.lines().collect();
        let b: BTreeSet<&str> = theirs.stdout.lines().collect();
        assert_eq!(a, b, "{flags:?}");
    }
    let r = t.run(&["scan", "--min-severity=loud"]).code(2);
    assert!(r.stderr.contains("--min-severity `loud` is not a severity"), "{}", r.stderr);
}

/// `-j N` changes how many threads work, never the output.
#[test]
fn threads_do_not_change_the_output() {
    let t = project();
    let one = t.run(&["scan", "-j", "1", "--json=compact"]).code(1);
    let four = t.run(&["scan", "--threads", "4", "--json=compact"]).code(1);
    assert_eq!(one.stdout, four.stdout);
    assert!(one.stdout.len() > 100);
}

/// A report of more files than one batch (`plan::report`'s `BATCH_FILES`,
/// 256; each matched largest first) hands every file over in path order, once,
/// with the same bytes at any thread count and from the cache: the largest
/// files here sit in every batch, first, middle and last.
#[test]
fn a_report_of_many_files_is_in_path_order_whatever_their_sizes() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/p.yml", "id: p\nlanguage: python\nrule: {pattern: print($A)}\n");
    let n = 700;
    for i in 0..n {
        // Every 9th file is the biggest of its neighbours, and the biggest of
        // all come last in path order.
        let pad = if i % 9 == 0 { 400 + i } else { i % 5 };
        t.write(&format!("f{i:04}.py"), format!("{}print({i})\n", "x = 1\n".repeat(pad)));
    }
    let one = t.run(&["scan", "-j", "1", "--no-cache", "--json=stream"]).ok();
    let two = t.run(&["scan", "-j", "2", "--no-cache", "--json=stream"]).ok();
    assert_eq!(one.stdout, two.stdout);
    let files: Vec<String> = one.stdout.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["file"].as_str().unwrap().to_string()).collect();
    let want: Vec<String> = (0..n).map(|i| format!("f{i:04}.py")).collect();
    assert_eq!(files, want);
    let cached = t.run(&["scan", "-j", "2", "--json=stream"]).ok();
    assert_eq!(cached.stdout, one.stdout);
    assert_eq!(t.run(&["scan", "-j", "2", "--json=stream"]).ok().stdout, one.stdout, "from the cache");
}

/// Which files a scan reads: ast-grep's choice by default (hidden files yes,
/// hidden folders no, `.gitignore` only inside a git repository, as ripgrep),
/// in and out of a git repository; `--no-require-git` reads `.gitignore`
/// everywhere, `--hidden` (or `--no-ignore hidden`) reads hidden folders too,
/// and the other `--no-ignore` kinds leave their files unread, as ast-grep's.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn hidden_files_and_require_git_choose_files_as_ast_grep() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/p.yml", "id: p\nlanguage: python\nrule: {pattern: print($A)}\n");
    for f in ["a.py", ".dot.py", ".hid/h.py", "sub/ign.py"] {
        t.write(f, "print(1)\n");
    }
    t.write(".gitignore", "sub/ign.py\n");
    let files = |r: Run| -> BTreeSet<String> { r.stdout.lines().map(str::to_string).collect() };
    let set = |v: &[&str]| -> BTreeSet<String> { v.iter().map(|s| s.to_string()).collect() };
    for git in [false, true] {
        if git {
            assert!(Command::new("git").args(["init", "-q", "."]).current_dir(t.path()).status().unwrap().success());
        }
        let theirs = files(peer(&t, &["--files-with-matches"]));
        let ours = files(t.run(&["scan", "--files-with-matches"]).ok());
        assert_eq!(ours, theirs, "git: {git}");
        let want: &[&str] = if git { &["a.py", ".dot.py"] } else { &["a.py", ".dot.py", "sub/ign.py"] };
        assert_eq!(ours, set(want), "git: {git}");
        assert_eq!(files(t.run(&["scan", "--files-with-matches", "--no-require-git"]).ok()), set(&["a.py", ".dot.py"]), "git: {git}");
        for kind in [&["--no-ignore", "hidden"][..], &["--no-ignore", "vcs"], &["--no-ignore", "dot"], &["--no-ignore=parent"], &["--hidden"]] {
            let theirs = if kind == ["--hidden"] {
                files(peer(&t, &["--files-with-matches", "--no-ignore", "hidden"]))
            } else {
                files(peer(&t, &[&["--files-with-matches"][..], kind].concat()))
            };
            let ours = files(t.run(&[&["scan", "--files-with-matches"][..], kind].concat()).ok());
            assert_eq!(ours, theirs, "git: {git}, {kind:?}");
        }
        // Alone, the flag leaves every ignore file unread (hidden files stay as they are).
        assert_eq!(files(t.run(&["scan", "--files-with-matches", "--no-ignore"]).ok()), set(&["a.py", ".dot.py", "sub/ign.py"]), "git: {git}");
    }
}

/// A project's `noIgnore` (sgconfig.yml) widens the walk as ast-grep's does,
/// for its own rules and for rules given with `-r` alike.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_project_s_no_ignore_chooses_files_as_ast_grep() {
    let t = Tree::empty();
    t.write("rules/p.yml", "id: p\nlanguage: python\nrule: {pattern: print($A)}\n");
    t.write("p.yml", "id: p\nlanguage: python\nrule: {pattern: print($A)}\n");
    for f in ["a.py", ".hid/h.py", "sub/ign.py", "sub/dot.py"] {
        t.write(f, "print(1)\n");
    }
    t.write(".gitignore", "sub/ign.py\n");
    t.write(".ignore", "sub/dot.py\n");
    assert!(Command::new("git").args(["init", "-q", "."]).current_dir(t.path()).status().unwrap().success());
    let files = |r: Run| -> BTreeSet<String> { r.stdout.lines().map(str::to_string).collect() };
    for kinds in ["[]", "[vcs]", "[hidden]", "[dot]", "[hidden, vcs, dot, exclude, global, parent]"] {
        t.write("sgconfig.yml", format!("ruleDirs: [rules]\nnoIgnore: {kinds}\n"));
        for given in [&[][..], &["-r", "p.yml"]] {
            let args = [&["--files-with-matches"][..], given].concat();
            let theirs = files(peer(&t, &args));
            let ours = files(t.run(&[&["scan"][..], &args].concat()).ok());
            assert_eq!(ours, theirs, "noIgnore: {kinds}, {given:?}");
        }
    }
    // Not read without the key: the ignored files stay out.
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    assert_eq!(files(t.run(&["scan", "--files-with-matches"]).ok()), BTreeSet::from(["a.py".to_string()]));
}

const SUPPRESSED: &str = "# ast-grep-ignore: no-print\nprint(1)\n# ast-grep-ignore\nx = 1\ny = 2  # ast-grep-ignore: other\n";

/// `ast-grep-ignore` comments that suppress nothing are reported (a hint) when a
/// scan runs every rule of a project, and `-U` deletes them, as ast-grep does;
/// the severity flags turn the check (and `no-suppress-all`) on or off.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn unused_suppressions_are_reported_and_deleted_as_ast_grep_does() {
    let fresh = || {
        let t = Tree::empty();
        t.write("sgconfig.yml", "ruleDirs: [rules]\n");
        t.write("rules/p.yml", "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A)\n");
        t.write("a.py", SUPPRESSED);
        t
    };
    let t = fresh();
    let key = |v: Vec<Value>| -> Vec<(String, String, u64, String)> {
        let mut k: Vec<_> = v
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().into(),
                    r["severity"].as_str().unwrap().into(),
                    r["range"]["start"]["line"].as_u64().unwrap(),
                    r["message"].as_str().unwrap().into(),
                )
            })
            .collect();
        k.sort();
        k
    };
    for flags in [
        &[][..],
        &["--filter", "no-print"],
        &["--error=unused-suppression", "--filter", "no-print"],
        &["--error"],
        &["--warning=no-suppress-all"],
        &["-r", "rules/p.yml"],
        &["--off=unused-suppression"],
    ] {
        let args = [&["--json=compact"][..], flags].concat();
        let ours = t.run(&[&["scan"][..], &args].concat());
        let theirs = peer(&t, &args);
        assert_eq!(ours.code, theirs.code, "{flags:?}: {}", ours.stderr);
        assert_eq!(key(ours.json()), key(theirs.json()), "{flags:?}");
    }
    let all: Vec<Value> = t.run(&["scan", "--json=compact"]).ok().json();
    assert_eq!(all.len(), 2);
    assert_eq!((all[0]["ruleId"].as_str(), all[0]["severity"].as_str(), all[0]["replacement"].as_str()), (Some("unused-suppression"), Some("hint"), Some("")));
    // -U deletes them: --verbatim as ast-grep, byte for byte; the default
    // takes the emptied line along.
    let peer_copy = fresh();
    peer(&peer_copy, &["-U"]).ok();
    t.run(&["scan", "-U", "--verbatim"]).ok();
    assert_eq!(t.read("a.py"), peer_copy.read("a.py"));
    let t = fresh();
    t.run(&["scan", "-U"]).ok();
    assert_eq!(t.read("a.py"), "# ast-grep-ignore: no-print\nprint(1)\nx = 1\ny = 2  \n");
}

/// A scan left with no rule (all `off`, or below `--min-severity`) reports
/// nothing and succeeds, as ast-grep does, with a warning.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_scan_with_no_rule_left_reports_nothing_and_succeeds() {
    let t = project();
    let theirs = peer(&t, &["--json", "--min-severity=error", "--off=no-print", "--off=js-console"]);
    let ours = t.run(&["scan", "--json", "--min-severity=error", "--off=no-print", "--off=js-console"]);
    assert_eq!((ours.code, ours.stdout.as_str()), (theirs.code, theirs.stdout.as_str()));
    assert!(ours.stderr.contains("warning: no rule to run"), "{}", ours.stderr);
    nothing_staged(&t);
}

/// `--stdin`: the code on standard input, as the first rule's language, shown as
/// `STDIN`, as ast-grep; without rules given it is ast-grep's exit 3.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn stdin_is_scanned_as_ast_grep_scans_it() {
    let t = Tree::empty();
    let rule = "id: no-print\nlanguage: python\nseverity: warning\nmessage: print $A\nrule: {pattern: print($A)}\nfix: log($A)\nfiles: ['src/**']\n";
    let code = "print(1)\nx = print(2)\n";
    let peer_run = |args: &[&str]| {
        use std::io::Write;
        let mut c = Command::new(ast_grep())
            .arg("scan")
            .args(args)
            .current_dir(t.path())
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A peer that exits before it has read everything closes the pipe: its
        // exit code and output say why, so the write's error is shown with them.
        let wrote = c.stdin.take().unwrap().write_all(code.as_bytes());
        let o = c.wait_with_output().unwrap();
        let code = o.status.code().unwrap();
        assert!(wrote.is_ok() || code != 0, "ast-grep exited 0 without reading stdin ({wrote:?}): {}", String::from_utf8_lossy(&o.stderr));
        (code, String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let ours = t.run_stdin(&["scan", "--inline-rules", rule, "--stdin", "--json=compact"], code).ok();
    let (code_peer, theirs) = peer_run(&["--inline-rules", rule, "--stdin", "--json=compact"]);
    assert_eq!(code_peer, 0);
    let (a, b): (Vec<Value>, Vec<Value>) = (ours.json(), serde_json::from_str(&theirs).unwrap());
    assert_eq!(a.len(), 2, "{}", ours.stdout);
    assert_eq!(sorted(a.clone()), sorted(b));
    assert_eq!(a[0]["file"], "STDIN");
    // The default is a rich report.
    let rich = t.run_stdin(&["scan", "--inline-rules", rule, "--stdin"], code).ok();
    assert!(rich.stdout.starts_with("STDIN\nwarning[no-print]: print 1\n@@ -0,2 +0,2 @@\n"), "{}", rich.stdout);
    assert_eq!(rich.stdout, peer_run(&["--inline-rules", rule, "--stdin"]).1);
    nothing_staged(&t);
    // Without rules: ast-grep's 3.
    let (code_peer, _) = peer_run(&["--stdin"]);
    let r = t.run_stdin(&["scan", "--stdin"], code).code(code_peer);
    assert!(r.stderr.contains("--stdin needs its rules given with -r FILE or --inline-rules TEXT"), "{}", r.stderr);
    // Nothing on disk, nothing to write: -U is refused.
    t.run_stdin(&["scan", "--inline-rules", rule, "--stdin", "-U"], code).code(2);
}
