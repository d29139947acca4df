//! Unit tests of the template check (`engine/template/mod.rs`), with the real parsers.

use super::*;
use crate::engine::layout::reference;

use ast_grep_core::Pattern;

/// The template check of one edit of `src`: the match of `pat` replaced by
/// `written`, where ast-grep writes `verbatim` from `template`.
fn enforce_one(lang: SupportLang, src: &str, pat: &str, template: &str, written: &str, verbatim: &str) -> (String, TemplateOutcome) {
    let grep = crate::engine::metered::parse(src, lang);
    let nm = grep.root().find(Pattern::new(pat, lang)).expect("the pattern matches");
    let r = reference::build(lang, template, &[], &nm, src).expect("a language with a lexer");
    let range = nm.range();
    let mut edits = vec![Edit { start: range.start, end: range.end, text: written.to_string(), op: 0 }];
    let checks = vec![Some(EditCheck {
        reference: r,
        verbatim: (written != verbatim).then(|| verbatim.to_string()),
        parent: None,
        one_piece: false,
        kinds: Vec::new(),
    })];
    let new_text = splice(src.as_bytes(), &edits);
    let tree = crate::engine::parse::tree_after_edit_full(lang, std::str::from_utf8(&new_text).unwrap());
    let new = std::str::from_utf8(&new_text).unwrap();
    let ((), failed) = failed(lang, src, 0, &edits, &checks, &[], (new, &tree), || ());
    let (redone, report) = settle(lang, src, 0, &mut edits, &checks, &[], (&new_text, &tree, None), failed);
    (String::from_utf8(redone.map_or(new_text, |r| r.0)).unwrap(), report)
}

#[test]
fn a_layout_that_glues_tokens_falls_back_to_ast_greps_text() {
    let (text, report) = enforce_one(SupportLang::Python, "r = contains(a, b)\n", "contains($A, $B)", "$A in $B", "ain b", "a in b");
    assert_eq!(text, "r = a in b\n");
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 1, 0));
    assert_eq!(report.fell_back, [TemplateNote { line: 1, message: "`a` and `in` run together as `ain`".into() }]);
    let (text, report) = enforce_one(SupportLang::JavaScript, "x = neg(y);\n", "neg($X)", "- -$X", "--y", "- -y");
    assert_eq!(text, "x = - -y;\n");
    assert_eq!(report.fallbacks, 1);
}

#[test]
fn a_layout_that_loses_or_adds_a_token_falls_back() {
    let (text, report) = enforce_one(SupportLang::Rust, "fn f() { g(a, b); }\n", "g($A, $B)", "h($A, $B)", "h(a b)", "h(a, b)");
    assert_eq!(text, "fn f() { h(a, b); }\n");
    assert_eq!(report.fell_back[0].message, "the template says `,` where the new text has `b)`");
    let (_, report) = enforce_one(SupportLang::Go, "package p\nfunc f() { g(a) }\n", "g($A)", "h($A)", "h(a, z)", "h(a)");
    assert_eq!(report.fell_back[0].message, "the template says `)` where the new text has `, z)`");
}

#[test]
fn the_admitted_deviations_pass() {
    // One `,` where a capture ending in `,` meets the template's; a kept
    // trailing `,`; a kept comment.
    let src = "f(\n    a,\n    b,\n)\n";
    let (text, report) = enforce_one(SupportLang::Python, src, "f($$$A)", "f($$$A, c)", "f(\n    a,\n    b, c\n)", "f(a,\n    b,, c)");
    assert_eq!((report.fallbacks, report.mismatched), (0, 0), "{report:?}");
    assert_eq!(text, "f(\n    a,\n    b, c\n)\n");
    let (_, report) = enforce_one(SupportLang::Python, "g(a,\n)\n", "g($A)", "h($A)", "h(a,\n)", "h(a)");
    assert_eq!((report.fallbacks, report.mismatched), (0, 0), "{report:?}");
    let src = "let x = a\n    // why\n    .unwrap();\n";
    let (_, report) = enforce_one(SupportLang::Rust, src, "$A.unwrap()", "$A.expect(\"x\")", "a\n    // why\n    .expect(\"x\")", "a.expect(\"x\")");
    assert_eq!((report.fallbacks, report.mismatched), (0, 0), "{report:?}");
}

#[test]
fn a_comment_right_after_an_edit_and_a_line_continuation_are_no_mismatch() {
    let (text, report) = enforce_one(SupportLang::JavaScript, "foo(x)/*c*/;\n", "foo($A)", "bar($A)", "bar(x)", "bar(x)");
    assert_eq!((text.as_str(), report.mismatched), ("bar(x)/*c*/;\n", 0));
    let (_, report) = enforce_one(SupportLang::C, "void f(void) { g(a, \\\n  b); }\n", "g($A, $B)", "h($A, $B)", "h(a, \\\n  b)", "h(a, \\\n  b)");
    assert_eq!((report.checked, report.mismatched), (1, 0), "{report:?}");
}

#[test]
fn code_inside_a_template_string_or_f_string_is_checked_as_code() {
    // The literal around the edit is not one token: its substitution is code.
    let src = "const s = `{${k.map((u) => `${(u as any)[k]}`)}}`;\n";
    let (text, report) = enforce_one(SupportLang::TypeScript, src, "$A as any", "$A as unknown", "u as unknown", "u as unknown");
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
    assert_eq!(text, "const s = `{${k.map((u) => `${(u as unknown)[k]}`)}}`;\n");
    let (_, report) = enforce_one(SupportLang::Python, "s = f\"a {x == None} b\"\n", "$A == None", "$A is None", "x is None", "x is None");
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
    // A seam that glues inside the substitution is still found.
    let (_, report) = enforce_one(SupportLang::Python, "s = f\"{contains(a, b)}\"\n", "contains($A, $B)", "$A in $B", "ain b", "a in b");
    assert_eq!((report.fallbacks, report.mismatched), (1, 0), "{report:?}");
}

#[test]
fn a_string_part_that_starts_with_a_blank_and_tokens_the_original_wrote_together_are_no_mismatch() {
    // After `${x}` the template string goes on with ` (bad)`: a part that
    // starts with a blank, found where `}` ends.
    let src = "throw new Error(`Value ${x} (bad)`);\n";
    let (_, report) = enforce_one(SupportLang::JavaScript, src, "new Error($A)", "err($A)", "err(`Value ${x} (bad)`)", "err(`Value ${x} (bad)`)");
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
    let src = "print(f\"{a} {b}\")\n";
    let (_, report) = enforce_one(SupportLang::Python, src, "print($A)", "log($A)", "log(f\"{a} {b}\")", "log(f\"{a} {b}\")");
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
    // `>` `>` closing two generic lists, moved into a macro whose token
    // tree reads `>>`: the original's spelling, not a seam of the rewrite.
    let src = "fn f() -> R {\n    return Err(Vec::<Vec<u8>>::new());\n}\n";
    let out = "bail!(Vec::<Vec<u8>>::new());";
    let (_, report) = enforce_one(SupportLang::Rust, src, "return Err($E);", "bail!($E);", out, out);
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
}

#[test]
fn a_line_continuation_in_a_capture_is_blank() {
    let src = "print(\"%i\" % \\\n    (n, b))\n";
    let out = "log(\"%i\" % \\\n    (n, b))";
    let (_, report) = enforce_one(SupportLang::Python, src, "print($$$A)", "log($$$A)", out, out);
    assert_eq!((report.checked, report.fallbacks, report.mismatched), (1, 0, 0), "{report:?}");
}

#[test]
fn a_deletion_that_joins_its_neighbours_is_a_mismatch() {
    let (text, report) = enforce_one(SupportLang::JavaScript, "x = a -foo()- b;\n", "foo()", "", "", "");
    assert_eq!(text, "x = a -- b;\n");
    assert_eq!(report.mismatches[0].message, "the code on either side of the deleted text runs together as `--`");
    let (_, report) = enforce_one(SupportLang::JavaScript, "x = a - foo() - b;\n", "foo()", "", "", "");
    assert_eq!((report.checked, report.mismatched), (1, 0));
}

#[test]
fn a_comment_that_swallows_a_bracket_is_a_mismatch_when_ast_grep_writes_it_too() {
    let src = "old(\n    first,\n    second,  # why\n)\n";
    let out = "new(first,\n    second,  # why)";
    let (_, report) = enforce_one(SupportLang::Python, src, "old($$$A)", "new($$$A)", out, out);
    assert_eq!((report.fallbacks, report.mismatched), (0, 1));
    assert_eq!(report.mismatches[0].message, "`# why` and `)` run together as `# why)`");
}
