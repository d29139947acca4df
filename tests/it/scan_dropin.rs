//! `scan` and `test` as drop-ins for ast-grep 0.51.1 (docs/RULES.md,
//! "Reports" and "Exit codes"), each case beside the peer on an identical
//! tree: a note's markdown rendered as ast-grep renders it, a path that does
//! not exist, a `languageInjections` host that is not built in, the flags CI
//! files use (`--globs`, `--follow`, `--max-results`, `--color ansi`, `-U`
//! with a report, `--include-metadata` alone), and a generator of rules (note,
//! transform, fix, severity, labels) whose text, JSON, github and SARIF
//! reports must be ast-grep's byte for byte.

use std::collections::BTreeSet;

use crate::common::{Run, Tree};
use serde_json::Value;

/// `ast-grep scan ARGS` in `t`.
fn peer(t: &Tree, args: &[&str]) -> Run {
    t.peer(&[&["scan"][..], args].concat())
}

/// `ast-edit scan ARGS` in `t`.
fn ours(t: &Tree, args: &[&str]) -> Run {
    t.run(&[&["scan"][..], args].concat())
}

/// JSON records sorted by file, offset, rule and text (ast-grep's order
/// among the rules of a file changes from run to run).
fn records(r: &Run) -> Vec<Value> {
    let mut v: Vec<Value> = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", r.stdout, r.stderr));
    v.sort_by_key(|r| {
        (r["file"].as_str().unwrap_or_default().to_string(), r["range"]["byteOffset"]["start"].as_u64(), r["ruleId"].to_string(), r["text"].to_string())
    });
    v
}

/// A text report's blocks, sorted: a block starts at a severity line
/// (`error[id]: ...`, or `path:line:column: error[id]: ...`), with the path
/// line just before it for a fix (whose diff follows); ast-grep's order of
/// files changes from run to run.
fn blocks(s: &str) -> Vec<String> {
    let title_at = regex::Regex::new(r"^(\S+:\d+:\d+: )?(error|warning|note|help)\[").unwrap();
    let all: Vec<&str> = s.lines().collect();
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for (i, line) in all.iter().enumerate() {
        if title_at.is_match(line) {
            // A fix's block: its path, its title, then its diff.
            let fix = all.get(i + 1).is_some_and(|l| l.starts_with("@@ "));
            let current = out.last_mut().expect("a block");
            let prelude = if fix { current.pop() } else { None };
            out.push(prelude.into_iter().collect());
        }
        out.last_mut().expect("a block").push(line);
    }
    let mut v: Vec<String> = out.into_iter().map(|b| b.join("\n")).filter(|b| !b.is_empty()).collect();
    v.sort();
    v
}

/// The lines of `s`, sorted.
fn lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

/// Markdown of every kind a note holds in real projects.
const NOTE: &str = "Use `logging` instead of *print*, **always**.\n\n- one item\n- two ~~items~~\n\n# Why\n1. first\n2. second\n\n> quoted **bold**\n\n```python\nlog(x)\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n";

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_notes_markdown_is_rendered_as_ast_grep_renders_it_in_every_text_style() {
    let t = Tree::empty();
    let note: String = NOTE.lines().map(|l| format!("  {l}\n")).collect();
    t.write(
        "r.yml",
        format!(
            "id: fixed\nlanguage: python\nseverity: error\nmessage: \"no `print` of $A\"\nnote: |\n{note}rule: {{pattern: print($A)}}\nfix: log($A)\n---\nid: found\nlanguage: python\nseverity: warning\nmessage: compare **$A**\nnote: |\n{note}labels:\n  A: {{style: secondary, message: \"the *left* side\"}}\nrule: {{pattern: $A == None}}\n"
        ),
    );
    t.write("a.py", "print(1)\nif x == None:\n    print(x)\n");
    t.write("b.py", "y == None\n");
    for style in ["rich", "medium", "short"] {
        let (a, b) = (ours(&t, &["-r", "r.yml", "--report-style", style]), peer(&t, &["-r", "r.yml", "--report-style", style]));
        assert_eq!((a.code, blocks(&a.stdout)), (b.code, blocks(&b.stdout)), "--report-style {style}");
    }
    let rich = ours(&t, &["-r", "r.yml", "--report-style", "rich"]).stdout;
    assert!(rich.contains("Note:\nUse logging instead of print, always.\n"), "{rich}");
    assert!(rich.contains("= Use logging instead of print, always."), "{rich}");
    assert!(!rich.contains("`logging`") && !rich.contains("**always**"), "no markdown mark is left in a note: {rich}");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_path_that_does_not_exist_is_named_and_the_others_are_scanned() {
    let t = Tree::empty();
    t.write("r.yml", "id: p\nlanguage: python\nseverity: error\nmessage: m\nrule: {pattern: print($A)}\n");
    t.write("src/a.py", "print(1)\n");
    let (a, b) = (ours(&t, &["-r", "r.yml", "--format", "github", "src", "nope"]), peer(&t, &["-r", "r.yml", "--format", "github", "src", "nope"]));
    assert_eq!((a.code, lines(&a.stdout)), (b.code, lines(&b.stdout)));
    assert_eq!(a.code, 1);
    assert!(a.stderr.contains("path not found: nope") && b.stderr.contains("nope"), "{}\n{}", a.stderr, b.stderr);
    let (a, b) = (ours(&t, &["-r", "r.yml", "--json=compact", "nope", "src"]), peer(&t, &["-r", "r.yml", "--json=compact", "nope", "src"]));
    assert_eq!((a.code, records(&a)), (b.code, records(&b)));
    // Nothing at all to scan: ast-edit refuses it (ast-grep exits 0 on nothing).
    let r = ours(&t, &["-r", "r.yml", "nope"]).code(2);
    assert!(r.stderr.contains("path not found: nope"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn an_injection_host_that_is_not_built_in_exits_as_ast_grep_in_scan_and_test() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\nlanguageInjections:\n  - hostLanguage: scss\n    rule: {pattern: a}\n    injected: css\n");
    t.write("rules/r.yml", "id: r\nlanguage: python\nrule: {pattern: print($A)}\n");
    t.write("a.py", "print(1)\n");
    for cmd in ["scan", "test"] {
        let (a, b) = (t.run(&[cmd]), t.peer(&[cmd]));
        assert_eq!(a.code, b.code, "{cmd}: ours {}\nast-grep {}", a.stderr, b.stderr);
        assert_eq!(a.code, 1, "{cmd}");
        assert!(a.stderr.contains("`hostLanguage: scss` is not a language"), "{}", a.stderr);
    }
}

/// A project with a fix rule of `severity: error`, a rule without a fix, and
/// files in two languages; `linked` is a link to `src`.
fn flags_project() -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/fix.yml", "id: fix\nlanguage: python\nseverity: error\nmessage: print\nrule: {pattern: print($A)}\nfix: log($A)\n");
    t.write("rules/find.yml", "id: find\nlanguage: javascript\nseverity: warning\nmessage: console\nrule: {pattern: console.log($A)}\n");
    t.write("src/a.py", "print(1)\nprint(2)\n");
    t.write("src/b.js", "console.log(1)\n");
    t.write("other/c.py", "print(3)\n");
    std::os::unix::fs::symlink(t.path().join("src"), t.path().join("linked")).unwrap();
    t
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn the_flags_ci_files_use_are_taken_as_ast_grep_takes_them() {
    let t = flags_project();
    let before = t.snapshot();
    // --globs (ast-grep's name of -g), --follow, -U with a report: the same
    // records and exit code; nothing written.
    for args in [
        &["--json=compact"][..],
        &["--json=compact", "--globs", "*.py"],
        &["--json=compact", "--globs", "!src/**", "--globs", "src/b.js"],
        &["--json=compact", "--follow", "linked", "other"],
        &["--json=compact", "linked", "other"],
        &["--json=compact", "-U"],
        &["--json=compact", "-U", "--follow", "linked"],
    ] {
        let (a, b) = (ours(&t, args), peer(&t, args));
        assert_eq!((a.code, records(&a)), (b.code, records(&b)), "{args:?}\nours: {}\nast-grep: {}", a.stderr, b.stderr);
    }
    let (a, b) = (ours(&t, &["--format", "github", "-U"]), peer(&t, &["--format", "github", "-U"]));
    assert_eq!((a.code, lines(&a.stdout)), (b.code, lines(&b.stdout)));
    assert_eq!(a.code, 0, "-U: a match of a rule with a fix fails nothing");
    assert_eq!(t.snapshot(), before, "a report with -U writes nothing");
    // A file reached by two ways (the link and its target) is searched once,
    // under the first of its names, where ast-grep reports it under each.
    let followed = records(&ours(&t, &["--json=compact", "--follow"]));
    let files: Vec<&str> = followed.iter().filter_map(|r| r["file"].as_str()).collect();
    assert_eq!(files, ["linked/a.py", "linked/a.py", "linked/b.js", "other/c.py"]);
    let theirs = records(&peer(&t, &["--json=compact", "--follow"]));
    assert_eq!(theirs.len(), 7, "each of src/a.py's and src/b.js's under both names: {theirs:?}");
    // --max-results N: N matches shown, and only they count.
    for n in ["1", "2", "3"] {
        let (a, b) = (ours(&t, &["--json=compact", "--max-results", n]), peer(&t, &["--json=compact", "--max-results", n]));
        assert_eq!(records(&a).len(), records(&b).len(), "--max-results {n}");
        assert_eq!(records(&a).len(), n.parse::<usize>().unwrap());
    }
    let first = ours(&t, &["--json=compact", "--max-results", "1", "--globs", "*.js"]).code(0);
    assert_eq!(records(&first).len(), 1);
    assert!(first.stderr.contains("--max-results 1: the first 1 matches are shown and counted; the scan stopped there"), "{}", first.stderr);
    assert!(!ours(&t, &["--json=compact"]).stderr.contains("--max-results"));
    // --color ansi is --color always; --include-metadata needs --json.
    let coloured = ours(&t, &["--report-style", "short", "--color", "ansi"]);
    assert_eq!(coloured.code, peer(&t, &["--report-style", "short", "--color", "ansi"]).code);
    assert!(coloured.stdout.contains("\x1b["), "{}", coloured.stdout);
    // --include-metadata needs --json, as clap checks it for both tools:
    // alone or with -U it is a usage error (2); beside another report, that
    // report runs.
    for (args, code) in [
        (&["--include-metadata"][..], 2),
        (&["--include-metadata", "-U"], 2),
        (&["--include-metadata", "--report-style", "short"], 1),
        (&["--include-metadata", "--format", "github"], 1),
    ] {
        assert_eq!((ours(&t, args).code, peer(&t, args).code), (code, code), "{args:?}");
    }
    assert_eq!(t.snapshot(), before);
}

/// A generator of small rule sets: each rule with its own pattern (so a file,
/// which holds one pattern's matches, is reported under one rule, in an order
/// both tools share), a severity, a message with or without a metavariable,
/// a note of markdown or none, a transform or none, a fix or none, labels or
/// none; every report compared with ast-grep's.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn generated_rules_report_as_ast_grep_reports_them() {
    const PATTERNS: [(&str, &str, &str); 4] = [
        ("print($A)", "A", "print(alpha)\nx = 1\nprint(beta_gamma)\n"),
        ("foo($A, $B)", "B", "foo(one, TwoThree)\nfoo(x, y)\n"),
        ("$A == None", "A", "if value_x == None:\n    pass\n"),
        ("len($A)", "A", "n = len(items) + len(other_items)\n"),
    ];
    const NOTES: [&str; 6] = ["", "plain note", "Use `x` *here*", "line one\nline **two**", "- a\n- b", "# Head\n~~gone~~ kept"];
    const TRANSFORMS: [&str; 5] = [
        "",
        "transform:\n  T:\n    convert: {source: $V, toCase: upperCase}\n",
        "transform:\n  T:\n    convert: {source: $V, toCase: camelCase}\n",
        "transform:\n  T:\n    substring: {source: $V, startChar: 1}\n",
        "transform:\n  T:\n    replace: {source: $V, replace: a, by: O}\n",
    ];
    const SEVERITIES: [&str; 4] = ["error", "warning", "info", "hint"];
    let mut seed: u64 = 0x5eed_u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for case in 0..16 {
        let t = Tree::empty();
        let mut rules = Vec::new();
        let mut used = BTreeSet::new();
        for r in 0..1 + next(3) {
            let p = next(PATTERNS.len());
            if !used.insert(p) {
                continue;
            }
            let (pattern, var, code) = PATTERNS[p];
            t.write(&format!("f{p}.py"), code);
            let transform = TRANSFORMS[next(TRANSFORMS.len())].replace("$V", &format!("${var}"));
            let note = NOTES[next(NOTES.len())];
            let note = if note.is_empty() { String::new() } else { format!("note: |\n{}", note.lines().map(|l| format!("  {l}\n")).collect::<String>()) };
            let message = if next(2) == 0 { format!("rule {r} on ${var}") } else { format!("rule {r} `says` **so**") };
            let fix = match (next(3), transform.is_empty()) {
                (0, _) => String::new(),
                (1, false) => "fix: new($T)\n".to_string(),
                _ => format!("fix: new(${var})\n"),
            };
            let labels = if next(2) == 0 { format!("labels:\n  {var}: {{style: secondary, message: the *{var}*}}\n") } else { String::new() };
            let severity = SEVERITIES[next(SEVERITIES.len())];
            rules.push(format!(
                "id: r{r}\nlanguage: python\nseverity: {severity}\nmessage: \"{message}\"\n{note}{labels}rule: {{pattern: \"{pattern}\"}}\n{transform}{fix}"
            ));
        }
        let rules = rules.join("---\n");
        t.write("rules.yml", &rules);
        let what = format!("case {case}:\n{rules}");
        for style in ["rich", "medium", "short"] {
            let args = ["-r", "rules.yml", "--report-style", style];
            let (a, b) = (ours(&t, &args), peer(&t, &args));
            assert_eq!((a.code, blocks(&a.stdout)), (b.code, blocks(&b.stdout)), "{what}\n--report-style {style}");
        }
        let args = ["-r", "rules.yml", "--json=compact", "--include-metadata"];
        let (a, b) = (ours(&t, &args), peer(&t, &args));
        assert_eq!((a.code, records(&a)), (b.code, records(&b)), "{what}\n--json");
        let args = ["-r", "rules.yml", "--format", "github"];
        let (a, b) = (ours(&t, &args), peer(&t, &args));
        assert_eq!((a.code, lines(&a.stdout)), (b.code, lines(&b.stdout)), "{what}\n--format github");
        let args = ["-r", "rules.yml", "--format", "sarif"];
        let (a, b) = (ours(&t, &args), peer(&t, &args));
        assert_eq!(a.code, b.code, "{what}\n--format sarif");
        assert_eq!(sarif_results(&a.stdout), sarif_results(&b.stdout), "{what}\n--format sarif");
    }
}

/// A SARIF log's results and rules, sorted (the tool's name and version are each tool's own).
fn sarif_results(log: &str) -> (Vec<String>, Vec<String>) {
    let v: Value = serde_json::from_str(log).unwrap_or_else(|e| panic!("not SARIF ({e}): {log}"));
    let run = &v["runs"][0];
    let mut results: Vec<String> = run["results"].as_array().map(|a| a.iter().map(Value::to_string).collect()).unwrap_or_default();
    results.sort();
    let mut rules: Vec<String> = run["tool"]["driver"]["rules"].as_array().map(|a| a.iter().map(Value::to_string).collect()).unwrap_or_default();
    rules.sort();
    (results, rules)
}
