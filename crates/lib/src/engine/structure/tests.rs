//! Unit tests of the structure guard: rules (a) and (b) on small programs, and
//! the pruned walk against the full one on random programs and edits.

use super::*;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use proptest::prelude::*;

/// The report for `edits` on `src` in `lang`, as the syntax check makes it:
/// the new text re-parsed incrementally, only the changed regions walked.
fn check(lang: SupportLang, src: &str, edits: &[Edit]) -> Changes {
    check_with(lang, src, edits, Vec::new())
}

/// [`check`], with per edit what its metavariables captured.
fn check_with(lang: SupportLang, src: &str, edits: &[Edit], captures: Vec<Vec<CapturedNodes>>) -> Changes {
    let old = lang.ast_grep(src).root().get_doc().tree.clone();
    let before = Before::of(old.root_node(), edits, captures, 0);
    let new_text = String::from_utf8(crate::engine::splice(src.as_bytes(), edits)).unwrap();
    let (new, changed) = crate::engine::parse::reparse(old, lang, src, &new_text, edits, 0).expect("an incremental re-parse");
    compare(&before, src, new.root_node(), &new_text, edits, 0, Some(&changed))
}

/// The reference: the report for `edits` on `src` in `lang`, both trees
/// (the new one parsed afresh) walked whole.
fn check_full(lang: SupportLang, src: &str, edits: &[Edit], captures: &[Vec<CapturedNodes>]) -> Changes {
    let old = lang.ast_grep(src);
    let new_text = String::from_utf8(crate::engine::splice(src.as_bytes(), edits)).unwrap();
    let new = lang.ast_grep(&new_text);
    let (old_flat, new_flat) = (Flat::of(old.root().get_inner_node()), Flat::of(new.root().get_inner_node()));
    let texts = Texts { old: src, new: &new_text, ranges: &ranges(edits, 0), captures };
    compare_flats(&old_flat, &new_flat, &texts, new.root().get_inner_node())
}

fn edit(src: &str, from: &str, to: &str) -> Edit {
    let start = src.find(from).expect("in the source");
    Edit { start, end: start + from.len(), text: to.to_string(), op: 0 }
}

/// The report for replacing the first `from` of `src` with `to`, where
/// metavariable `name` captured `nodes` (texts found in order inside `from`).
fn rewrite(lang: SupportLang, src: &str, from: &str, to: &str, captures: &[(&str, &[&str])]) -> Changes {
    let e = edit(src, from, to);
    let caps = captures
        .iter()
        .map(|(name, nodes)| {
            let mut at = e.start;
            let nodes = nodes
                .iter()
                .map(|n| {
                    let s = at + src[at..e.end].find(n).expect("captured inside the match");
                    at = s + n.len();
                    (s, at)
                })
                .collect();
            CapturedNodes { name: name.to_string(), multi: name.starts_with("$$$"), nodes }
        })
        .collect();
    check_with(lang, src, &[e], vec![caps])
}

fn change(line: usize, message: &str) -> StructureChange {
    StructureChange { line, message: message.into() }
}

#[test]
fn myers_finds_the_longest_common_subsequence() {
    let lcs = |a: &str, b: &str| {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        myers(a.len(), b.len(), |i, j| a[i] == b[j]).map(|p| p.iter().map(|&(i, _)| a[i]).collect::<String>())
    };
    assert_eq!(lcs("abcabba", "cbabac").map(|s| s.len()), Some(4));
    assert_eq!(lcs("", "abc"), Some(String::new()));
    assert_eq!(lcs("abc", "abc"), Some("abc".to_string()));
    assert_eq!(lcs("unwrap(", "expect(\"x\""), Some("p(".to_string()));
    let long: String = "ab".repeat(MAX_ALIGN_EDITS);
    assert_eq!(lcs(&long, "c"), None, "more edits than MAX_ALIGN_EDITS");
}

#[test]
fn a_method_body_written_at_class_level_is_a_move_and_a_wrapped_expression_is_not() {
    let src = "class A:\n    def f(self):\n        a()\n        b()\n";
    let (from, bad) = ("def f(self):\n        a()\n        b()", "def f(self) -> None: a()\n    b()");
    let r = rewrite(SupportLang::Python, src, from, bad, &[("$F", &["f"]), ("$$$B", &["a()", "b()"])]);
    assert_eq!(r.changes, [change(3, "1 expression statement left `def f` for `class A`")]);
    // ast-grep's `$$$B` there matches the `block`, which stands for its
    // statements.
    let r = rewrite(SupportLang::Python, src, from, bad, &[("$$$B", &["a()\n        b()"])]);
    assert_eq!(r.changes, [change(3, "1 expression statement left `def f` for `class A`")]);
    // Written at the template's top level, they are where it says.
    assert!(!rewrite(SupportLang::Python, src, from, "a()\n    b()", &[("$$$B", &["a()\n        b()"])]).changed);
    // A comment on the `def` line leaves the `def` without a body.
    let src = "class A:\n    def f(self):\n        # Why.\n        raise E\n";
    let (from, bad) = ("def f(self):\n        # Why.\n        raise E", "def f(self) -> None: # Why.\n    raise E");
    // The comment is the function's: `$$$B` matches it and the `block`.
    let r = rewrite(SupportLang::Python, src, from, bad, &[("$$$B", &["# Why.", "raise E"])]);
    assert_eq!(r.changes, [change(3, "1 raise statement left `def f` for `class A`")]);
    // Rule (b) sees it: nothing clear of the edit moved.
    assert!(!check(SupportLang::Python, src, &[edit(src, from, bad)]).changed);
    // A docstring the template re-indents is still the capture's.
    let src = "class A:\n    def f(self):\n        \"\"\"Doc\n        more.\"\"\"\n        b()\n";
    let from = "def f(self):\n        \"\"\"Doc\n        more.\"\"\"\n        b()";
    let r = rewrite(
        SupportLang::Python,
        src,
        from,
        "def f(self) -> None: \"\"\"Doc\n    more.\"\"\"\n    b()",
        &[("$$$B", &["\"\"\"Doc\n        more.\"\"\"", "b()"])],
    );
    assert_eq!(r.changes, [change(4, "1 expression statement left `def f` for `class A`")]);
    let src = "fn f() { let v = a.b; }\n";
    assert!(!rewrite(SupportLang::Rust, src, "a.b", "Some(a.b)", &[("$A", &["a.b"])]).changed);
    assert!(!rewrite(SupportLang::Rust, src, "let v = a.b;", "let v = {\n    a.b\n};", &[("$A", &["a.b"])]).changed);
}

#[test]
fn captured_code_moved_into_a_new_expression_as_the_template_says_is_no_move() {
    let js = SupportLang::JavaScript;
    let src = "it(\"x\", () => {\n  expect(fn()).to.be.greaterThan(303);\n});\n";
    let r = rewrite(js, src, "expect(fn()).to.be.greaterThan(303)", "assert.ok(fn() > 303)", &[("$A", &["fn()"]), ("$B", &["303"])]);
    assert!(!r.changed, "{r:?}");
    // A property name becomes an identifier.
    let src = "a.b.run(x, f(y));\n";
    let r = rewrite(js, src, "a.b.run(x, f(y))", "run(a.b, x, f(y))", &[("$O", &["a.b"]), ("$M", &["run"]), ("$$$A", &["x", ",", "f(y)"])]);
    assert!(!r.changed, "{r:?}");
    let src = "fn f() { let v = g(a).unwrap(); }\n";
    let r = rewrite(SupportLang::Rust, src, "g(a).unwrap()", "g(a).expect(\"x\")", &[("$A", &["g(a)"])]);
    assert!(!r.changed, "{r:?}");
    // A statement written before the captured one, which stays in its own
    // statement (as wide as the capture).
    let src = "def f():\n    bar()\n";
    assert!(!rewrite(SupportLang::Python, src, "bar()", "bar()\n    foo()", &[("$A", &["bar()"])]).changed);
    // In a Rust macro the captured expression's tokens are flat.
    let src = "fn f() -> R { return Err(E { at: u64::from(id) }); }\n";
    let r = rewrite(SupportLang::Rust, src, "return Err(E { at: u64::from(id) });", "bail!(E { at: u64::from(id) });", &[("$E", &["E { at: u64::from(id) }"])]);
    assert!(!r.changed, "{r:?}");
    // Written at the template's top level, the statements take the place of
    // the block they leave, which is gone.
    let src = "function f() {\n  if (FLAG) {\n    a();\n    b();\n  }\n}\n";
    let r = rewrite(js, src, "if (FLAG) {\n    a();\n    b();\n  }", "a();\n  b();", &[("$$$B", &["a();", "b();"])]);
    assert!(!r.changed, "{r:?}");
}

#[test]
fn captured_code_nested_otherwise_or_split_from_its_siblings_is_flagged() {
    // The template's `*` takes `b` from the captured `a + b`.
    let src = "fn f() { let v = a + b; }\n";
    let r = rewrite(SupportLang::Rust, src, "a + b", "a + b * 2", &[("$A", &["a + b"])]);
    assert_eq!(r.changes, [change(1, "1 binary expression captured by `$A` no longer parsed as before")]);
    // Written after the function, the body left it: the function is still there.
    let src = "function start() {\n  init();\n  run();\n}\n";
    let r =
        rewrite(SupportLang::JavaScript, src, src.trim_end(), "function start() {} init();\n  run();", &[("$F", &["start"]), ("$$$B", &["init();", "run();"])]);
    assert_eq!(r.changes, [change(1, "2 expression statements left `function start` for the top level")]);
    // Without braces only the first statement stays under the `if`.
    let src = "function start() {\n  if (c) {\n    init();\n    run();\n  }\n}\n";
    let r = rewrite(
        SupportLang::JavaScript,
        src,
        "if (c) {\n    init();\n    run();\n  }",
        "if (c) init();\n  run();",
        &[("$C", &["c"]), ("$$$B", &["init();", "run();"])],
    );
    assert_eq!(r.changes, [change(3, "1 expression statement left `if (c) init();` for `function start`")]);
}

#[test]
fn a_capture_that_cannot_be_located_exactly_is_not_judged() {
    let src = "fn f() { let v = a + b; }\n";
    // Written twice: which is which is not known.
    assert!(!rewrite(SupportLang::Rust, src, "a + b", "a + b + a + b * 2", &[("$A", &["a + b"])]).changed);
    // Transformed: its tokens are not there.
    assert!(!rewrite(SupportLang::Rust, src, "a + b", "A + B * 2", &[("$A", &["a + b"])]).changed);
}

#[test]
fn closing_brackets_that_align_with_the_wrong_one_are_no_move() {
    // Found on sympy: the common tail pairs each `)` with the one after it.
    let src = "assert x not in Tuple(1, Tuple(t2))\n";
    let r = rewrite(
        SupportLang::Python,
        src,
        "x not in Tuple(1, Tuple(t2))",
        "absent(x, Tuple(1, Tuple(t2)))",
        &[("$A", &["x"]), ("$B", &["Tuple(1, Tuple(t2))"])],
    );
    assert!(!r.changed, "{r:?}");
    let src = "fn f() -> usize { ((a >> 5) & 7) as usize }\n";
    let r = rewrite(SupportLang::Rust, src, "((a >> 5) & 7) as usize", "usize::from(((a >> 5) & 7))", &[("$A", &["((a >> 5) & 7)"])]);
    assert!(!r.changed, "{r:?}");
}

#[test]
fn code_after_an_edit_taken_into_a_new_block_is_a_move() {
    // The edit opens a block that takes the next statement, clear of the
    // edit, from the function body.
    let src = "function f() {\n  a();\n  b();\n}\n";
    let r = check(
        SupportLang::JavaScript,
        src,
        &[Edit { start: 17, end: 21, text: "if (c) { a();".into(), op: 0 }, Edit { start: 29, end: 29, text: " }\n".into(), op: 0 }],
    );
    assert_eq!(r.changes, [StructureChange { line: 3, message: "1 expression statement left `function f` for `if (c) { a();`".into() }]);
}

#[test]
fn a_tree_five_thousand_levels_deep_is_compared_without_recursion() {
    let depth = 5000;
    let src = format!("fn f() {{ let v = {}a{}; }}\n", "(".repeat(depth), ")".repeat(depth));
    let r = check(SupportLang::Rust, &src, &[edit(&src, "a", "b")]);
    assert!(!r.changed);
}

/// Python and Rust programs over a few identifiers, with nesting.
fn program(lang: SupportLang, ids: &[String]) -> String {
    let i = |k: usize| ids[k % ids.len()].as_str();
    match lang {
        SupportLang::Python => format!(
            "class {0}:\n    def {1}(self, {2}):\n        {3} = {4}({2}, 1)\n        if {3}:\n            return {5}.{6}({3})\n        return {2}\n\n    def {7}(self):\n        {0}.{1}({4})\n",
            i(0),
            i(1),
            i(2),
            i(3),
            i(4),
            i(5),
            i(6),
            i(7)
        ),
        _ => format!(
            "fn {0}({1}: u32) -> u32 {{\n    let {2} = {3}({1}, 1);\n    if {2} > 0 {{ return {4}.{5}({2}); }}\n    match {1} {{ {6} => {7}, _ => {1} }}\n}}\n",
            i(0),
            i(1),
            i(2),
            i(3),
            i(4),
            i(5),
            i(6),
            i(7)
        ),
    }
}

/// Renames the identifiers spelt `target` that `mask` selects to `to`.
fn renames(lang: SupportLang, src: &str, target: &str, to: &str, mask: u64) -> Vec<Edit> {
    let grep = lang.ast_grep(src);
    let mut found = Vec::new();
    let mut cursor = grep.root().get_inner_node().walk();
    'walk: loop {
        let n = cursor.node();
        if n.kind().ends_with("identifier") && &src[n.byte_range()] == target {
            found.push(n.byte_range());
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    found.iter().enumerate().filter(|(k, _)| mask >> (k % 64) & 1 == 1).map(|(_, r)| Edit { start: r.start, end: r.end, text: to.to_string(), op: 0 }).collect()
}

/// Texts that random edits write: brackets, statements, indentation.
const PIECES: [&str; 12] = ["", "{", "}", "(", ")", ";", "\n    ", "x", "if a:\n        ", "return b", "Some(", "f(1, 2)"];

/// Sorted, disjoint edits of `src` in `lang`, with what each captured: each
/// cut (start, length, piece, keep) replaces up to `length` bytes at `start`
/// with [`PIECES`]`[piece]`; with `keep` 1, the outermost node that starts at
/// `start` is kept between two pieces, captured as `$A`; with `keep` 2, its
/// children, captured as `$$$A`.
fn random_edits(lang: SupportLang, src: &str, cuts: &[(usize, usize, usize, usize)]) -> (Vec<Edit>, Vec<Vec<CapturedNodes>>) {
    let grep = lang.ast_grep(src);
    let root = grep.root().get_inner_node();
    let mut cuts: Vec<(usize, usize, usize, usize)> = cuts.iter().map(|&(s, l, p, k)| (s % src.len(), l, p, k)).collect();
    cuts.sort_unstable();
    let (mut edits, mut captures): (Vec<Edit>, Vec<Vec<CapturedNodes>>) = (Vec::new(), Vec::new());
    for (start, len, piece, keep) in cuts {
        let mut end = (start + len).min(src.len());
        let (mut text, mut caps) = (PIECES[piece].to_string(), Vec::new());
        let mut node = root.descendant_for_byte_range(start, start).filter(|n| n.start_byte() == start && n.end_byte() > start);
        while let Some(p) = node.and_then(|n| n.parent()).filter(|p| p.start_byte() == start && p.parent().is_some()) {
            node = Some(p);
        }
        if let Some(n) = node.filter(|_| keep > 0) {
            let nodes: Vec<(usize, usize)> = if keep == 1 {
                vec![(n.start_byte(), n.end_byte())]
            } else {
                (0..n.child_count())
                    .filter_map(|i| n.child(i))
                    .filter(|c| c.end_byte() > c.start_byte() && !c.is_extra())
                    .map(|c| (c.start_byte(), c.end_byte()))
                    .collect()
            };
            if let (Some(first), Some(last)) = (nodes.first(), nodes.last()) {
                text = format!("{}{}{}", PIECES[piece], &src[first.0..last.1], PIECES[(piece + keep) % PIECES.len()]);
                end = end.max(n.end_byte());
                caps.push(CapturedNodes { name: if keep == 1 { "$A" } else { "$$$A" }.into(), multi: keep == 2, nodes });
            }
        }
        if edits.last().is_some_and(|e| e.end > start) {
            continue;
        }
        edits.push(Edit { start, end, text, op: 0 });
        captures.push(caps);
    }
    (edits, captures)
}

/// The outermost nodes of `kinds` in `src` that `mask` selects, each wrapped in
/// parentheses, captured as `$A`.
fn parenthesized(lang: SupportLang, src: &str, kinds: &[&str], mask: u64) -> (Vec<Edit>, Vec<Vec<CapturedNodes>>) {
    let grep = lang.ast_grep(src);
    let mut out = (Vec::new(), Vec::new());
    let mut cursor = grep.root().get_inner_node().walk();
    let mut k = 0;
    'walk: loop {
        let n = cursor.node();
        let take = kinds.contains(&n.kind()) && {
            k += 1;
            mask >> (k % 64) & 1 == 1
        };
        if take {
            out.0.push(Edit { start: n.start_byte(), end: n.end_byte(), text: format!("({})", &src[n.byte_range()]), op: 0 });
            out.1.push(vec![CapturedNodes { name: "$A".into(), multi: false, nodes: vec![(n.start_byte(), n.end_byte())] }]);
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn random_identifier_renames_never_flag(
        ids in proptest::collection::vec("[a-e]{1,2}", 8),
        pick in 0usize..8,
        to in "v[a-z_]{0,6}",
        mask in any::<u64>(),
        python in any::<bool>(),
    ) {
        let lang = if python { SupportLang::Python } else { SupportLang::Rust };
        let src = program(lang, &ids);
        let edits = renames(lang, &src, &ids[pick], &to, mask);
        let r = check(lang, &src, &edits);
        prop_assert!(!r.changed, "{src}\n{edits:?}\n{r:?}");
    }

    #[test]
    fn captured_expressions_wrapped_in_parentheses_never_flag(
        ids in proptest::collection::vec("[a-e]{1,2}", 8),
        mask in any::<u64>(),
        python in any::<bool>(),
    ) {
        let (lang, kinds): (_, &[&str]) = if python {
            (SupportLang::Python, &["call", "attribute"])
        } else {
            (SupportLang::Rust, &["call_expression", "field_expression", "binary_expression"])
        };
        let src = program(lang, &ids);
        let (edits, captures) = parenthesized(lang, &src, kinds, mask);
        let r = check_with(lang, &src, &edits, captures);
        prop_assert!(!r.changed, "{src}\n{edits:?}\n{r:?}");
    }

    #[test]
    fn the_pruned_walk_reports_what_the_full_walk_reports(
        ids in proptest::collection::vec("[a-e]{1,2}", 8),
        cuts in proptest::collection::vec((0usize..800, 0usize..12, 0usize..PIECES.len(), 0usize..3), 1..4),
        python in any::<bool>(),
    ) {
        let lang = if python { SupportLang::Python } else { SupportLang::Rust };
        // Two definitions, so that most edits leave one of them whole.
        let rotated: Vec<String> = ids.iter().cycle().skip(3).take(ids.len()).cloned().collect();
        let src = program(lang, &ids) + &program(lang, &rotated);
        let (edits, captures) = random_edits(lang, &src, &cuts);
        let full = check_full(lang, &src, &edits, &captures);
        prop_assert_eq!(check_with(lang, &src, &edits, captures), full, "{}\n{:?}", src, edits);
    }
}
