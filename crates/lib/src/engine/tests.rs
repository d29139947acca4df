//! Unit tests of the engine: the pick, minimal rewrites, the syntax check.

use std::path::Path;

use ast_grep_core::replacer::Replacer;
use ast_grep_core::tree_sitter::LanguageExt;

use super::*;
use crate::engine::layout::pick::replacement_bound;
use crate::engine::matching::scan;
use crate::engine::parse::reparse;
use crate::engine::syntax::excerpt;
use crate::request::{Op, RawRequest, WalkOptions};

const FULL: RewriteOptions = RewriteOptions { prefilter: true, check_syntax: true, rewrite_nested: false, verbatim: true };

fn engine(pat: &str, out: &str, l: SupportLang) -> Engine {
    let raw = RawRequest { ops: vec![Op { pat: pat.into(), out: out.into() }], ..Default::default() };
    let req = raw.validate(&std::env::current_dir().unwrap(), WalkOptions::default(), 1).unwrap();
    Engine::new(&req, [l], Path::new("/")).unwrap()
}

#[test]
fn nested_matches_outermost_wins_and_rest_are_counted() {
    let e = engine("f($A)", "g($A)", SupportLang::Python);
    let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(f(1))\n", FULL).unwrap();
    assert_eq!(String::from_utf8(r.new_text).unwrap(), "g(f(1))\n");
    assert_eq!(r.overlaps, 1);
}

#[test]
fn crlf_and_bom_are_kept() {
    let e = engine("f($A)", "g(\n$A)", SupportLang::Python);
    let src = "\u{feff}x = 1\r\nf(2)\r\n";
    let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, src, FULL).unwrap();
    assert_eq!(String::from_utf8(r.new_text).unwrap(), "\u{feff}x = 1\r\ng(\r\n2)\r\n");
}

#[test]
fn no_op_rewrites_are_not_changes_and_do_not_shadow_nested_matches() {
    let e = engine("f($A)", "f($A)", SupportLang::Python);
    assert!(rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1)\n", FULL).is_none());
    // The outer match swaps two equal operands (no change); the inner ones do change.
    let e = engine("$A + $B", "$B + $A", SupportLang::Python);
    let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "x = (1 + 2) + (1 + 2)\n", FULL).unwrap();
    assert_eq!(String::from_utf8(r.new_text).unwrap(), "x = (2 + 1) + (2 + 1)\n");
    assert_eq!(r.overlaps, 0);
}

#[test]
fn matches_around_syntax_errors_are_left_alone_and_reported() {
    let e = engine("f($A)", "g($A)", SupportLang::Python);
    let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1 2 3)\nf(4)\n", FULL).unwrap();
    assert_eq!(String::from_utf8(r.new_text).unwrap(), "f(1 2 3)\ng(4)\n");
    assert_eq!(r.unparsed, vec![0]);
}

#[test]
fn syntax_errors_introduced_are_counted() {
    let e = engine("f($A)", "g($A", SupportLang::Python);
    let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1)\n", FULL).unwrap();
    assert!(r.errors_after > r.errors_before);
}

fn ts(pat: &str, out: &str, src: &str, opts: RewriteOptions) -> Option<Rewrite> {
    let e = engine(pat, out, SupportLang::TypeScript);
    rewrite(&e.ops_for(SupportLang::TypeScript, Path::new("/x.ts")), SupportLang::TypeScript, src, opts)
}

#[test]
fn added_syntax_errors_are_located_in_the_new_text() {
    let r = ts("f($A)", "g($A", "const a = 1;\r\nconst b = f(2);\r\n", FULL).unwrap();
    let missing = SyntaxError { line: 2, column: 14, node: "MISSING )".into(), excerpt: "const b = g(2;".into() };
    assert_eq!(r.syntax_errors, vec![missing]);
    assert_eq!(r.broken_before, None);
    // Columns count characters, and the BOM is not part of the text.
    let r = ts("f($A)", "g($A", "\u{feff}const é = f(2);\n", FULL).unwrap();
    assert_eq!((r.syntax_errors[0].line, r.syntax_errors[0].column), (1, 14));
}

#[test]
fn errors_that_were_there_before_are_not_listed_again() {
    // The old `]` is missing further down; the rewrite shortens the text
    // before it and adds a missing `)`. Only the `)` is listed.
    let r = ts("f($A)", "g($A", "const a = f(1);\nlet x = [1, 2;\n", FULL).unwrap();
    assert_eq!((r.errors_before, r.errors_after), (1, 2));
    let nodes: Vec<_> = r.syntax_errors.iter().map(|e| (e.line, e.node.as_str())).collect();
    assert_eq!(nodes, [(1, "MISSING )")]);
    assert_eq!(r.broken_before, Some(2));
    // A clean rewrite of a broken file lists nothing.
    let r = ts("f($A)", "gg($A)", "const a = f(1);\nlet x = [1, 2;\n", FULL).unwrap();
    assert_eq!((r.errors_before, r.errors_after, r.syntax_errors.len()), (1, 1, 0));
}

#[test]
fn a_broken_file_without_a_match_says_where_it_is_broken() {
    // The file holds the pattern's tokens (the prefilter lets it through) but
    // no match.
    let src = "let y = f(2, 1 + 1);\nlet x = [1, 2;\n";
    let r = ts("f($A, 1)", "g($A)", src, FULL).unwrap();
    assert!(r.edits.is_empty() && r.findings.is_empty() && r.unparsed.is_empty());
    assert_eq!(r.broken_before, Some(2));
    assert_eq!(r.new_text, src.as_bytes());
    // Without the syntax check (apply, rule tests), nothing matched is nothing.
    let quick = RewriteOptions { check_syntax: false, ..FULL };
    assert!(ts("f($A, 1)", "g($A)", src, quick).is_none());
    // A clean file without a match is nothing either.
    assert!(ts("f($A, 1)", "g($A)", "let y = f(2, 1 + 1);\nlet x = [1, 2];\n", FULL).is_none());
}

#[test]
fn a_long_line_is_excerpted_around_the_error() {
    let line = format!("{}ERR{}", "a".repeat(500), "b".repeat(500));
    let cut = excerpt(&line, 500);
    assert_eq!(cut.chars().count(), MAX_EXCERPT_CHARS);
    assert!(cut.starts_with('…') && cut.ends_with('…') && cut.contains("ERR"), "{cut}");
    assert_eq!(excerpt("short", 2), "short");
    let tail = excerpt(&line, line.len());
    assert!(tail.starts_with('…') && tail.ends_with('b') && tail.chars().count() == MAX_EXCERPT_CHARS - 1, "{tail}");
}

#[test]
fn incremental_error_count_equals_a_full_parse() {
    let cases = [
        ("f($A)", "g($A", "x = 1\nf(1)\ny = [f(2),\n  f(3)]\n"),
        ("f($A)", "g(\n$A)", "\u{feff}def h():\n    return f(1) + f(2)\n"),
        ("f($A)", ")", "a = f(1)\nb = (f(2))\n"),
        ("f($A)", "g($A)", "broken = (\nf(1)\n"),
    ];
    for (pat, out, src) in cases {
        let e = engine(pat, out, SupportLang::Python);
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, src, FULL).unwrap();
        let new = String::from_utf8(r.new_text.clone()).unwrap();
        let body = new.strip_prefix('\u{feff}').unwrap_or(&new);
        assert_eq!(r.errors_after, full_error_count(&SupportLang::Python.ast_grep(body)), "{pat} -> {out} on {src:?}");
        let before = full_error_count(&SupportLang::Python.ast_grep(src.strip_prefix('\u{feff}').unwrap_or(src)));
        assert_eq!(r.errors_before, before, "{pat} -> {out} on {src:?}");
    }
}

/// ERROR and MISSING nodes of a fresh parse, every node visited (no pruning):
/// the reference the pruned walk must equal.
fn full_error_count(grep: &ast_grep_core::AstGrep<ast_grep_core::tree_sitter::StrDoc<SupportLang>>) -> usize {
    grep.root().dfs().filter(|n| n.is_error() || n.is_missing()).count()
}

/// Rewrites that keep, drop or break what they matched, on random Rust and C:
/// the incremental re-parse must give the tree a full parse of the new text
/// gives (so every `InputEdit` describes its edit right), and the same error
/// count. Dropping the edits, or a wrong old end, fails it at once. A file
/// flagged for added errors has located ones, each on a line of the new text.
fn incremental_is_full(lang: SupportLang, ext: &str, ops: &[(&str, &str)], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    for (pat, out) in ops {
        let e = engine(pat, out, lang);
        let Some(r) = rewrite(&e.ops_for(lang, Path::new(&format!("/x.{ext}"))), lang, src, FULL) else { continue };
        if r.edits.is_empty() {
            continue; // no re-parse, nothing counted
        }
        let new = std::str::from_utf8(&r.new_text).unwrap();
        let fresh = lang.ast_grep(new);
        proptest::prop_assert_eq!(r.errors_after, full_error_count(&fresh), "{} -> {} on {:?}", pat, out, src);
        // A flagged file always has located errors, on lines of the new text.
        let flagged = r.errors_after > r.errors_before;
        proptest::prop_assert_eq!(flagged, !r.syntax_errors.is_empty(), "{} -> {} on {:?}", pat, out, src);
        let lines: Vec<&str> = new.split('\n').collect();
        for e in &r.syntax_errors {
            let line = lines[e.line - 1];
            proptest::prop_assert!(e.column <= line.chars().count() + 1, "{:?} on {:?}", e, new);
            if line.chars().count() <= MAX_EXCERPT_CHARS {
                proptest::prop_assert_eq!(&e.excerpt, line, "{:?}", e);
            }
        }
        let old_tree = lang.ast_grep(src).root().get_doc().tree.clone();
        let inc = reparse(old_tree, lang, src, new, &r.edits, 0).unwrap().0.root_node().to_sexp();
        let full = fresh.root().get_doc().tree.root_node().to_sexp();
        proptest::prop_assert_eq!(inc, full, "{} -> {} on {:?}", pat, out, src);
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(300))]

    #[test]
    fn incremental_reparse_equals_a_full_parse_on_random_code(src in soup(&[
        "a", "b", "é", ".", "()", "(", ")", ";", "{", "}", "\"", "fn f() {", "/*", "*/", "->",
    ], &[" ", "\n", "// x\n"])) {
        let ops = [("$A.b()", "$A.c()"), ("$A.b()", "$A.b(1"), ("$A.b()", "{ $A"), ("a.b()", "a.é()"), ("$A.b()", "$A")];
        incremental_is_full(SupportLang::Rust, "rs", &ops, &src)?;
        let ops = [("$A.b();", "$A.bb();"), ("$A.b();", "$A.b(;"), ("$A->b();", "}$A->b();"), ("a.b();", "a.b();")];
        incremental_is_full(SupportLang::C, "c", &ops, &src)?;
    }
}

proptest::proptest! {
    /// The anchored walk must find exactly what ast-grep's `find_all` finds,
    /// in the same order, on any text: nested calls, comments and strings
    /// holding the literal, and broken code (ERROR nodes).
    #[test]
    fn anchored_walk_finds_what_find_all_finds(src in "[fgh()1, \n#x\"]{0,80}") {
        for pat in ["f($A)", "f(g($A))", "g($$$A)", "h"] {
            let e = engine(pat, "z", SupportLang::Python);
            let op = e.ops_for(SupportLang::Python, Path::new("/x.py"))[0];
            let grep = crate::engine::metered::parse(&src, SupportLang::Python);
            let all: Vec<_> = grep.root().find_all(&op.rule.matcher).map(|m| m.range()).collect();
            op.anchor(src.as_bytes()).expect("these patterns have a literal");
            let anchored: Vec<_> = scan::scan(&grep, &[op], &src, FULL).diffs.iter().map(|(_, m)| m.range()).collect();
            proptest::prop_assert_eq!(all, anchored, "{} on {:?}", pat, src);
        }
    }
}

/// The prefilter must never reject a file that has a match it could rewrite,
/// and the walk anchored on its rarest literal must find what `find_all`
/// finds. A match around a parse error is never rewritten; the chain check may
/// miss one whose ERROR node (an extra, which the matcher skips like a
/// comment) sits between two adjacent tokens of the pattern.
fn prefilter_is_sound(lang: SupportLang, ext: &str, pats: &[&str], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    for pat in pats {
        let e = engine(pat, "z", lang);
        let op = e.ops_for(lang, Path::new(&format!("/x.{ext}")))[0];
        proptest::prop_assert!(!op.prefilters[0].0.literals.is_empty());
        let grep = crate::engine::metered::parse(src, lang);
        let all: Vec<_> = grep.root().find_all(&op.rule.matcher).map(|m| (m.range(), m.get_node().get_inner_node().0.has_error())).collect();
        if !op.may_match(src.as_bytes()) {
            proptest::prop_assert!(all.iter().all(|(_, err)| *err), "{} matches {:?} but the prefilter rejects it", pat, src);
            continue;
        }
        op.anchor(src.as_bytes()).expect("a literal");
        let anchored: Vec<_> = scan::scan(&grep, &[op], src, FULL).diffs.iter().map(|(_, m)| m.range()).collect();
        let all: Vec<_> = all.into_iter().map(|(r, _)| r).collect();
        proptest::prop_assert_eq!(all, anchored, "{} on {:?}", pat, src);
    }
    Ok(())
}

/// Random text: tokens from `words`, each followed by nothing (half the
/// time) or by one of `seps` (whitespace, comments), so that matches with
/// comments between their tokens are common.
fn soup(words: &'static [&'static str], seps: &'static [&'static str]) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    let sep = proptest::prop_oneof![proptest::strategy::Just(""), proptest::sample::select(seps)];
    proptest::collection::vec((proptest::sample::select(words), sep), 0..30).prop_map(|w| w.into_iter().flat_map(|(a, b)| [a, b]).collect())
}

/// A rule set's edits and findings with the literal prefilter (and the
/// anchored walk) equal those without: the literals come only from the
/// patterns that must match.
fn rules_prefilter_is_sound(rules: &[serde_json::Value], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let rules = rules.iter().map(|r| crate::request::rule::Rule::from_json(r.clone()).unwrap()).collect();
    let set = crate::request::ruleset::RuleSet { rules, ..Default::default() };
    let e = Engine::for_rules(&set, Path::new("/")).unwrap();
    let ops = e.all_for(SupportLang::Python);
    let run = |prefilter| {
        let opts = RewriteOptions { prefilter, check_syntax: false, rewrite_nested: false, verbatim: true };
        rewrite(&ops, SupportLang::Python, src, opts).map(|r| (r.new_text, r.findings.iter().map(|f| (f.rule, f.start)).collect::<Vec<_>>()))
    };
    let (with, without) = (run(true), run(false));
    // With the prefilter a file may be skipped (`None`) only when nothing matched.
    match (&with, &without) {
        (None, Some((text, found))) => proptest::prop_assert!(text.as_slice() == src.as_bytes() && found.is_empty(), "lost on {:?}", src),
        _ => proptest::prop_assert_eq!(with, without, "on {:?}", src),
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(500))]

    /// Rules whose patterns sit under `inside`, `not`, `any`, `has` and
    /// `stopBy`, on random Python.
    #[test]
    fn prefilter_loses_no_rule_match(src in soup(&[
        "def", "load", "save", "(", ")", ":", "print", "log", "x", "1", "if", "f", ",", "\n    ", "\n",
    ], &[" ", "\n", "# c\n"])) {
        let rules = [
            serde_json::json!({"id": "a", "language": "python", "rule": {"pattern": "print($A)", "inside": {"pattern": "def load(): $$$B", "stopBy": "end"}}, "fix": "log($A)"}),
            serde_json::json!({"id": "b", "language": "python", "rule": {"pattern": "f($A)", "not": {"inside": {"kind": "function_definition", "stopBy": {"pattern": "save"}}}}, "fix": "g($A)"}),
            serde_json::json!({"id": "c", "language": "python", "rule": {"any": [{"pattern": "x"}, {"pattern": "log"}], "has": {"pattern": "1", "stopBy": "end"}}}),
            serde_json::json!({"id": "d", "language": "python", "rule": {"kind": "call", "has": {"pattern": "print", "stopBy": "end"}}}),
            // `any` lists gate the file too: at top level, inside `all` and
            // `inside`, through local utilities (one that calls itself).
            serde_json::json!({"id": "e", "language": "python", "rule": {"any": [{"pattern": "print($A)"}, {"pattern": "log($A)", "inside": {"pattern": "def save(): $$$B", "stopBy": "end"}}]}, "fix": "f($A)"}),
            serde_json::json!({"id": "g", "language": "python", "rule": {"all": [{"kind": "call"}, {"any": [{"pattern": "f(1)"}, {"has": {"pattern": "x", "stopBy": "end"}}]}]}}),
            serde_json::json!({"id": "h", "language": "python", "rule": {"pattern": "f($A)", "inside": {"any": [{"pattern": "if x: $$$B"}, {"matches": "u"}], "stopBy": "end"}},
                "utils": {"u": {"any": [{"pattern": "def load(): $$$B"}, {"has": {"matches": "u"}}]}}}),
            serde_json::json!({"id": "i", "language": "python", "rule": {"matches": "v", "not": {"pattern": "print(1)"}},
                "utils": {"v": {"any": [{"pattern": "print($$$A)"}, {"pattern": "1, $A", "kind": "tuple"}]}}}),
            // Every item holds `print` in the node: the walk is anchored on it.
            serde_json::json!({"id": "m", "language": "python", "rule": {"any": [{"pattern": "print($A)"}, {"pattern": "print($A, 1)"},
                {"all": [{"kind": "call"}, {"has": {"pattern": "print", "stopBy": "end"}}]}]}}),
            // A regex needs one of the texts its matches start with.
            serde_json::json!({"id": "j", "language": "python", "rule": {"kind": "identifier", "regex": "^(lo|sa)"}}),
            serde_json::json!({"id": "k", "language": "python", "rule": {"kind": "call", "has": {"regex": "(?i)PRINT\\b", "stopBy": "end"}}}),
            serde_json::json!({"id": "l", "language": "python", "rule": {"any": [{"regex": "^x$", "kind": "identifier"}, {"pattern": "f(1)"}], "inside": {"regex": "def", "stopBy": "end"}}}),
        ];
        rules_prefilter_is_sound(&rules, &src)?;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(1000))]

    /// Keywords and chains on random TypeScript made of keywords,
    /// look-alike words, comments (also `<!--`) and strings.
    #[test]
    fn prefilter_loses_no_typescript_match(src in soup(&[
        "x", "as", "any", "many", "return", "Object", "assign", ".", "?.", "(", ")", ";", "\"", "({}, a)", "{", "}", ",",
    ], &[" ", "\n", "/* x */", "// x\n", "<!-- x\n"])) {
        prefilter_is_sound(SupportLang::TypeScript, "ts", &["$A as any", "return $A", "($A as any)", "Object.assign({}, $A)", "x.assign"], &src)?;
    }

    /// Pairs across the end of a node (`parse` ends a member expression, then
    /// the arguments start) on random JavaScript.
    #[test]
    fn prefilter_loses_no_javascript_match(src in soup(&[
        "JSON", "parse", "stringify", "a", ".", "?.", "(", ")", ",", "[", "]", ";", "new",
    ], &[" ", "\n", "/* x */", "// x\n"])) {
        prefilter_is_sound(SupportLang::JavaScript, "js", &["JSON.parse(JSON.stringify($A))", "a.parse(a)", "new a.parse($A)", "a[parse]"], &src)?;
    }

    /// Chains on random Rust: nested block comments, paths, calls, and `//`
    /// lines inside strings and block comments begun above.
    #[test]
    fn prefilter_loses_no_rust_match(src in soup(&[
        "foo", "bar", "x", "::", ".", "()", ";", "{", "}", "\"", "as", "u8", "\n// ", "/*", "*/", "\\", "0", "1", "10", "==", "<", "0.",
    ], &[" ", "\n", "/* x /* y */ z */", "// x\n"])) {
        prefilter_is_sound(SupportLang::Rust, "rs", &["foo::bar()", "$A.bar()", "foo.bar", "$A as u8", "0 == $A.bar()", "1 < foo"], &src)?;
    }

    /// Occurrences on `//` lines on random Rust, C, Go and Java where such a
    /// line may sit in a string, a Go raw string or a block comment begun
    /// above, and end it, or follow a parse error that swallows the `//`. It
    /// caught a rule that took such lines for comments (see
    /// `prefilter::tests::a_comment_line_after_a_parse_error_may_be_code`).
    #[test]
    fn prefilter_loses_no_match_after_a_comment_line(src in soup(&[
        "a.b();", "\n// ", "\n  //", "/*", "\"", "`", "\\", "*/ a.b();", "\"; a.b();", "`; a.b();",
    ], &[" ", "\n"])) {
        // Inside a function body, where a statement parses without errors.
        prefilter_is_sound(SupportLang::Rust, "rs", &["$A.b()", "a.b()"], &format!("fn f() {{\n{src}\n}}"))?;
        prefilter_is_sound(SupportLang::C, "c", &["$A.b();", "a.b();"], &format!("void f() {{\n{src}\n}}"))?;
        prefilter_is_sound(SupportLang::Go, "go", &["$A.b()"], &format!("package p\nfunc f() {{\n{src}\n}}"))?;
        prefilter_is_sound(SupportLang::Java, "java", &["$A.b()"], &format!("class C {{ void f() {{\n{src}\n}} }}"))?;
    }

    /// Chains on random Python and C: `#` comments, C's `//` comments
    /// continued by a backslash, and `//` lines inside strings and comments.
    #[test]
    fn prefilter_loses_no_python_or_c_match(src in soup(&[
        "os", "getcwd", "a", "b", "()", "(", ")", ";", ".", "->", "=", "1", "\"", "not", "in", "\n// ", "/*", "*/", "\\",
    ], &[" ", "\n", "# x\n", "// x \\\n y\n", "/* x */"])) {
        prefilter_is_sound(SupportLang::Python, "py", &["os.getcwd()", "a not in b", "a.b = 1"], &src)?;
        prefilter_is_sound(SupportLang::C, "c", &["a.b = 1;", "os->getcwd();", "getcwd(a);"], &src)?;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(300))]

    /// The bound on a replacement's size, checked before it is built, is never
    /// below its size: on calls spread over indented lines, with templates
    /// that paste and indent their metavariables and add lines.
    #[test]
    fn a_replacement_is_never_longer_than_its_bound(
        outer in 0usize..12,
        items in proptest::collection::vec((0usize..4, "[a-z]{1,3}"), 1..8),
        tindent in 0usize..40,
        copies in 1usize..4,
    ) {
        // A call whose one argument is a list over several short lines,
        // indented less than the template will indent them.
        let mut src = format!("def g():\n{}x = f([", " ".repeat(outer + 1));
        for (ind, item) in &items {
            src.push_str(&format!("\n{}{item},", " ".repeat(*ind)));
        }
        src.push_str("])\n");
        let pad = " ".repeat(tindent);
        for var in ["$A", "$$$A"] {
            let paste = vec![var; copies].join(&format!(",\n{pad}"));
            for out in [format!("h(\n{pad}{paste}\n)"), format!("{pad}[{paste}]"), var.to_string(), "k".to_string()] {
                let e = engine(&format!("f({var})"), &out, SupportLang::Python);
                let op = e.ops_for(SupportLang::Python, Path::new("/x.py"))[0];
                let grep = crate::engine::metered::parse(&src, SupportLang::Python);
                for nm in grep.root().find_all(&op.rule.matcher) {
                    let r = nm.range();
                    let built = op.fixer().unwrap().generate_replacement(&nm).len();
                    let bound = replacement_bound(op.fix_bound.as_ref().unwrap(), &src, r.start, r.end);
                    proptest::prop_assert!(built <= bound, "{} > {} for {:?} on {:?}", built, bound, out, src);
                }
            }
        }
    }
}

/// Renames `foo` to `bar` (and leaves it) with minimal rewrites on `src`:
/// the new text differs from `src` only where `foo` became `bar`, and the
/// identity is no edit.
fn rename_is_only_the_rename(lang: SupportLang, ext: &str, pats: &[(&str, &str)], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let minimal = RewriteOptions { verbatim: false, ..FULL };
    for (pat, out) in pats {
        let path = format!("/x.{ext}");
        let e = engine(pat, out, lang);
        if let Some(r) = rewrite(&e.ops_for(lang, Path::new(&path)), lang, src, minimal) {
            let new = String::from_utf8(r.new_text).unwrap();
            proptest::prop_assert_eq!(new.replace("bar", "foo"), src, "{} -> {}", pat, out);
        }
        let e = engine(pat, pat, lang);
        if let Some(r) = rewrite(&e.ops_for(lang, Path::new(&path)), lang, src, minimal) {
            proptest::prop_assert!(r.edits.is_empty(), "{} -> itself: {:?}", pat, r.edits);
        }
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(300))]

    /// Calls and method calls spread over lines, with comments, strings that
    /// hold whitespace and line continuations (`\` ending a line, a token of
    /// Python's tree), on random Python, Rust and JavaScript.
    #[test]
    fn a_minimal_rename_changes_only_the_identifier(src in soup(&[
        "foo", "x", "y", "(", ")", ",", ".", "\"a  b\"", "'c  d'", "1", "[", "]", "\n    ", "\n", "=", "\\\n",
    ], &[" ", "\n", "\n        ", "  "])) {
        let ops = [("foo($$$A)", "bar($$$A)"), ("$X.foo($$$A)", "$X.bar($$$A)"), ("foo($A, $B)", "bar($A, $B)")];
        rename_is_only_the_rename(SupportLang::Python, "py", &ops, &format!("{src}\n# foo  (x)\n"))?;
        rename_is_only_the_rename(SupportLang::JavaScript, "js", &ops, &format!("{src}\n// foo  (x)\n"))?;
        rename_is_only_the_rename(SupportLang::Rust, "rs", &ops, &format!("fn m() {{\n{src}\n}}\n/* foo  (x) */\n"))?;
    }

    /// Python calls whose arguments go on after a line continuation (`\`
    /// ending a line, one token of Python's tree with its line break): a rename
    /// writes each continuation with its one line break.
    #[test]
    fn a_minimal_rename_keeps_python_line_continuations(src in soup(&[
        "foo(", "x", "y", ",", ")", "\\\n", "\\\n    ", "\n", "\"a  b\"",
    ], &["", " ", "  "])) {
        let ops = [("foo($$$A)", "bar($$$A)"), ("foo($A, $B)", "bar($A, $B)")];
        rename_is_only_the_rename(SupportLang::Python, "py", &ops, &format!("{src}\n"))?;
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(500))]

    /// A rule narrowed with a word check before its deep `has`
    /// (compile/narrow.rs) finds what the rule as written finds, on random C
    /// with and without ERROR and MISSING nodes, keywords inside strings,
    /// comments and longer words.
    #[test]
    fn a_narrowed_rule_finds_what_the_rule_as_written_finds(src in soup(&[
        "void f() {", "int g(void) {", "}", "{", "goto out;", "out:", "return 1;", "return", "for (;;)", "while (x)", "do",
        "x = 1;", "mutex_lock(&m);", "mutex_unlock(&m);", "\"goto\"", "gotox();", "(", ";", "if (x)", "else",
], &[" ", "\n", "/* goto */", "// return\n"])) {
        let rules = [
            serde_json::json!({"id": "a", "language": "c", "rule": {"kind": "function_definition", "has": {"kind": "goto_statement", "stopBy": "end"}}}),
            serde_json::json!({"id": "b", "language": "c", "rule": {"kind": "return_statement", "not": {"inside": {"kind": "function_definition", "stopBy": "end", "has": {"kind": "goto_statement", "stopBy": "end"}}}}}),
            serde_json::json!({"id": "c", "language": "c", "rule": {"kind": "compound_statement", "regex": "x", "has": {"pattern": "mutex_lock($L);", "stopBy": "end"}}}),
            serde_json::json!({"id": "d", "language": "c", "rule": {"kind": "function_definition", "has": {"any": [{"kind": "while_statement"}, {"kind": "do_statement"}], "stopBy": "end"}}}),
        ];
        let rules = rules.iter().map(|r| crate::request::rule::Rule::from_json(r.clone()).unwrap()).collect();
        let set = crate::request::ruleset::RuleSet { rules, ..Default::default() };
        let e = Engine::for_rules(&set, Path::new("/")).unwrap();
        let ops = e.all_for(SupportLang::C);
        proptest::prop_assert!(ops.iter().all(|op| op.narrow.is_some()), "every rule here is narrowed");
        let grep = crate::engine::metered::parse(&src, SupportLang::C);
        let found = scan::scan(&grep, &ops, &src, RewriteOptions { prefilter: false, ..FULL });
        for (k, op) in ops.iter().enumerate() {
            let written: Vec<_> = grep.root().find_all(&op.rule.matcher).map(|m| m.range()).collect();
            let mut narrowed: Vec<_> = found.findings.iter().filter(|(i, _)| *i == k).map(|(_, m)| m.range()).collect();
            narrowed.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
            let mut written = written;
            written.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
            proptest::prop_assert_eq!(written, narrowed, "{} on {:?}", op.id, src);
        }
    }
}

/// The narrowed rules' guard: a MISSING token is found (under an error), an
/// ERROR alone or a clean tree has none.
#[test]
fn a_missing_token_is_found_and_an_error_alone_is_not_one() {
    let has = |src: &str| scan::has_missing(crate::engine::metered::parse(src, SupportLang::C).root().get_inner_node().0);
    assert!(has("int f() { return 1 }"));
    assert!(!has("void f() { do {} }"), "an ERROR node, no MISSING one");
    assert!(!has("int f() { return 1; }"));
}
