//! The template check of default rewrites (docs/DESIGN.md section 2.5.9), through
//! the binary: an edit whose text says something other than its template (two
//! tokens glued into one) is flagged in the preview, refused at apply unless
//! `allowTemplateMismatch`, left out by `skipFlagged`; `--verbatim` writes
//! ast-grep's bytes without the check; and the counts reach the JSON and the
//! summary line.

use crate::common::Tree;
use serde_json::Value;

/// A tree holding `files`.
fn tree(files: &[(&str, &str)]) -> Tree {
    let t = Tree::empty();
    for (p, c) in files {
        t.write(p, c);
    }
    t
}

/// `-$X` on `neg(-y)`: ast-grep's text substitution itself writes `--y` (a
/// pre-decrement), so neither layout says what the template says.
const NEG: (&str, &str) = ("a.js", "let r = neg(-y);\nlet s = neg(z);\n");

#[test]
fn a_rewrite_that_glues_tokens_in_both_layouts_is_flagged_and_refused() {
    let t = tree(&[NEG]);
    let v: Value = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "--json", "."]).ok().json();
    assert_eq!(v["editsChecked"], 2, "{v}");
    assert_eq!(v["layoutFallbacks"], 0, "{v}");
    let f = &v["files"][0];
    assert_eq!(f["templateMismatch"], true, "{f}");
    assert_eq!(f["templateMismatches"], serde_json::json!([{"line": 1, "message": "`-` and `-` run together as `--`"}]));
    let warning = v["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).find(|w| w.contains("allowTemplateMismatch"));
    assert_eq!(
        warning,
        Some(
            "a.js: the rewrite does not say what the template says, in the minimal layout or in ast-grep's (line 1: `-` and `-` run together as `--`); apply refuses this file unless extra {\"allowTemplateMismatch\": true}."
        )
    );

    let refused = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(
        refused.stderr.contains("\n  a.js: the rewrite does not say what the template says (line 1: `-` and `-` run together as `--`)\n"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("--extra '{\"allowTemplateMismatch\":true}'"), "{}", refused.stderr);
    assert_eq!(t.read("a.js"), NEG.1, "nothing written");

    let both = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"skipFlagged": true, "allowTemplateMismatch": true}"#]).code(2);
    assert!(both.stderr.contains("pass one of the two"), "{}", both.stderr);

    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowTemplateMismatch": true}"#]).ok();
    assert_eq!(t.read("a.js"), "let r = --y;\nlet s = -z;\n");
}

#[test]
fn skip_flagged_leaves_out_a_file_whose_rewrite_glues_tokens() {
    let t = tree(&[NEG, ("b.js", "let s = neg(z);\n")]);
    t.run(&["run", "-p", "neg($X)", "-r", "-$X", "."]).ok();
    let out = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"skipFlagged": true}"#, "--json"]);
    let v: Value = out.json();
    assert_eq!(t.read("b.js"), "let s = -z;\n");
    assert_eq!(t.read("a.js"), NEG.1);
    let outstanding = &v["details"]["sourceResultDetails"]["outstanding"];
    assert_eq!(outstanding[0]["path"], "a.js", "{v}");
    assert_eq!(outstanding[0]["reason"], "its rewrite does not say what its template says (left out by extra.skipFlagged)", "{v}");
}

#[test]
fn verbatim_writes_ast_greps_bytes_and_flags_them_when_they_fail_the_check() {
    // Under --verbatim ast-grep's text is judged too; it has no layout to fall
    // back to, so a failure is a flag (before, --verbatim was not checked and
    // apply wrote `--y` without a word).
    let t = tree(&[NEG]);
    let v: Value = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "--verbatim", "--json", "."]).ok().json();
    assert_eq!(v["editsChecked"], 2, "{v}");
    assert_eq!(v["layoutFallbacks"], 0, "{v}");
    assert_eq!(v["files"][0]["templateMismatch"], true, "{v}");
    assert_eq!(v["files"][0]["templateMismatches"], serde_json::json!([{"line": 1, "message": "`-` and `-` run together as `--`"}]), "{v}");
    assert_eq!(
        v["warnings"][0],
        "a.js: the rewrite does not say what the template says, in ast-grep's text (--verbatim) (line 1: `-` and `-` run together as `--`); apply refuses this file unless extra {\"allowTemplateMismatch\": true}."
    );
    t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert_eq!(t.read("a.js"), NEG.1, "nothing written");
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowTemplateMismatch": true}"#]).ok();
    assert_eq!(t.read("a.js"), "let r = --y;\nlet s = -z;\n");
}

#[test]
fn the_cli_text_names_the_glued_tokens() {
    let t = tree(&[NEG]);
    let out = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "."]).ok();
    assert!(
        out.stdout.contains("warning: a.js: this rewrite does not say what its template says\n  a.js:1: `-` and `-` run together as `--`"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_template_that_writes_its_own_tokens_together_is_not_flagged() {
    // `#include` is one token of C's grammar and two of the layout lexer's; the
    // template spells it so, and a capture glued by the template (`get_$N`) is
    // one token too.
    let t = tree(&[("a.c", "int x = old(y);\n"), ("b.py", "v = field(name)\n")]);
    let v: Value = t.run(&["run", "-l", "c", "-p", "int $V = old($Y);", "-r", "#include <new.h>\nint $V = fresh_$Y();", "--json", "."]).ok().json();
    assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
    assert_eq!(v["layoutFallbacks"], 0, "{v}");
    let v: Value = t.run(&["run", "-l", "py", "-p", "field($N)", "-r", "get_$N()", "--json", "."]).ok().json();
    assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("b.py"), "v = get_name()\n");
}

/// The default rewrite keeps what the code means, not only its tokens
/// (docs/DESIGN.md section 2.5.9, checks (c) to (e)). Each case failed on the
/// engine before those checks: it wrote the first text, unflagged.
mod meaning {
    use super::*;

    /// Runs `run -p PAT -r OUT [extra] --json .` on one file, applies it with
    /// `-U` when nothing is flagged, and returns the preview and the file's
    /// bytes after.
    fn rewrite(file: (&str, &str), pat: &str, out: &str, extra: &[&str]) -> (Value, String) {
        let t = tree(&[file]);
        let mut args = vec!["run", "-p", pat, "-r", out];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--json", "."]);
        let v: Value = t.run(&args).ok().json();
        let flagged = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["templateMismatch"] == true || f["syntaxErrorsIntroduced"] == true || f["structureChanged"] == true);
        if !flagged {
            t.run(&["resolve", "apply", "--reason", "r"]).ok();
        }
        (v, t.read(file.0))
    }

    /// A file of thousands of edits is judged on two threads
    /// (`shared::beside`): the one edit whose minimal layout fails, far down
    /// the file, is found and written as ast-grep writes it, as in a small file.
    #[test]
    fn many_edits_are_judged_as_one_edit_is() {
        let (mut src, mut want) = (String::new(), String::new());
        for i in 0..3000 {
            if i == 2900 {
                src.push_str("self.assertTrue(\n    some_value,\n)\n");
                want.push_str("assert (some_value)\n");
            } else {
                src.push_str(&format!("self.assertTrue(v{i})\n"));
                want.push_str(&format!("assert (v{i})\n"));
            }
        }
        let (v, after) = rewrite(("a.py", &src), "self.assertTrue($A)", "assert ($A)", &[]);
        assert_eq!((v["editsChecked"].as_u64(), v["layoutFallbacks"].as_u64()), (Some(3000), Some(1)), "{}", v["files"][0]);
        assert_eq!(v["files"][0]["layoutNotes"], serde_json::json!([{"line": 2901, "message": "the `,` before `)` makes a tuple"}]));
        assert_eq!(after, want);
    }

    /// A file of thousands of edits whose minimal layouts are ast-grep's
    /// texts has its new text parsed whole while the layouts are built
    /// (`engine/pipeline.rs`, `Overlap`): its verdicts are those of one such
    /// edit, copied: clean, moved code with a template mismatch, a syntax
    /// error. (The file above, whose one edit far down has another layout,
    /// goes the other way.)
    #[test]
    fn thousands_of_alike_edits_are_judged_as_one_edit_is() {
        const COPIES: usize = 3000;
        let cases = [("f(g(1), 2)\n", "f($A, $B)", "k($A, $B)"), ("x = a + b * c\n", "$A * $B", "$A + $B"), ("f(g(1), 2)\n", "f($A, $B)", "f($A $B)")];
        let verdict = |v: &Value, copies: usize| {
            let f = &v["files"][0];
            let first = |k: &str| f[k].as_array().and_then(|a| a.first()).map(|n| n["message"].clone());
            (
                f["replacements"].as_u64().map(|n| n as usize / copies),
                [&f["syntaxErrorsIntroduced"], &f["structureChanged"], &f["templateMismatch"]].map(|b| b.as_bool()),
                ["syntaxErrors", "structureChanges", "templateMismatches", "layoutNotes"].map(first),
                v["layoutFallbacks"].as_u64().map(|n| n as usize / copies),
            )
        };
        for (unit, pat, out) in cases {
            let (one, _) = rewrite(("a.py", unit), pat, out, &[]);
            let (many, after) = rewrite(("a.py", &unit.repeat(COPIES)), pat, out, &[]);
            assert_eq!(verdict(&many, COPIES), verdict(&one, 1), "{pat} -> {out} on {unit:?}: {}", one["files"][0]);
            assert_eq!(many["editsChecked"].as_u64(), Some(COPIES as u64));
            if one["files"][0]["syntaxErrorsIntroduced"] == false && one["files"][0]["structureChanged"] == false {
                let (_, one_after) = rewrite(("a.py", unit), pat, out, &[]);
                assert_eq!(after, one_after.repeat(COPIES));
            }
        }
    }

    #[test]
    fn a_kept_trailing_comma_never_makes_a_tuple() {
        // Was `assert (\n    some_value,\n)`: an assert of a tuple, always true.
        let py = ("a.py", "class T:\n    def test(self):\n        self.assertTrue(\n            some_value,\n        )\n");
        let (v, after) = rewrite(py, "self.assertTrue($A)", "assert ($A)", &[]);
        assert_eq!(after, "class T:\n    def test(self):\n        assert (some_value)\n");
        assert_eq!((v["layoutFallbacks"].as_u64(), v["files"][0]["templateMismatch"].as_bool()), (Some(1), Some(false)), "{v}");
        let note = v["files"][0]["layoutNotes"][0]["message"].as_str().unwrap();
        assert_eq!(note, "the `,` before `)` makes a tuple");
        // Rust: `(7,)` was printed instead of `7`.
        let rs = ("a.rs", "fn main() {\n    let x = wrap(\n        value,\n    );\n}\n");
        let (_, after) = rewrite(rs, "wrap($A)", "($A)", &[]);
        assert_eq!(after, "fn main() {\n    let x = (value);\n}\n");
        // In an argument list the grammar ignores it: kept.
        let (v, after) = rewrite(("b.py", "g(\n    a,\n)\n"), "g($A)", "h($A)", &[]);
        assert_eq!((after.as_str(), v["layoutFallbacks"].as_u64()), ("h(\n    a,\n)\n", Some(0)));
    }

    #[test]
    fn a_line_break_go_would_end_with_a_semicolon_is_not_kept() {
        // Was `a,)\n\t)`: gofmt and the compiler reject "missing ',' before newline".
        let go = ("a.go", "package p\n\nfunc f(a int) string {\n\treturn fmt.Sprintf(\"%d\",\n\t\ta,\n\t)\n}\n");
        let (v, after) = rewrite(go, "x := fmt.Sprintf($$$A)", "fmt.Sprint(fmt.Sprintf($$$A))", &["--selector", "call_expression"]);
        assert_eq!(after, "package p\n\nfunc f(a int) string {\n\treturn fmt.Sprint(fmt.Sprintf(\"%d\",\n\t\ta,))\n}\n");
        assert_eq!(v["files"][0]["layoutNotes"][0]["message"], "Go ends the line `a,)` with a `;` where none may stand", "{v}");
    }

    #[test]
    fn a_line_continuation_inside_a_string_keeps_the_string_as_it_is() {
        // Was `log("a \\\n    b",\n    x,)`: the string's value gained four blanks.
        let py = ("s.py", "def f(x):\n    print(\n        \"a \\\nb\",\n        x,\n    )\n");
        let (v, after) = rewrite(py, "print($$$A)", "log($$$A)", &[]);
        assert_eq!(after, "def f(x):\n    log(\n        \"a \\\nb\",\n        x,\n    )\n");
        assert_eq!(v["layoutFallbacks"], 0, "{v}");
    }

    #[test]
    fn a_layout_that_adds_a_syntax_error_falls_back_to_ast_greps_text() {
        // Was `else { return 0,\n    };`, flagged, where ast-grep's text is valid.
        let rs = ("m.rs", "fn f(x: Option<u8>) -> u8 {\n    let v = match x {\n        Some(v) => v,\n        None => return 0,\n    };\n    v\n}\n");
        let (v, after) = rewrite(rs, "match $X { Some($V) => $A, None => $B }", "if let Some($V) = $X { $A } else { $B }", &[]);
        assert_eq!(after, "fn f(x: Option<u8>) -> u8 {\n    let v = if let Some(v) = x { v } else { return 0 };\n    v\n}\n");
        assert_eq!(v["files"][0]["layoutNotes"][0]["message"], "the layout adds a syntax error", "{v}");
    }

    /// The preview of one file, which must be flagged `templateMismatch` with
    /// `message`; nothing is written.
    fn flagged(file: (&str, &str), pat: &str, out: &str, extra: &[&str], message: &str) {
        let (v, after) = rewrite(file, pat, out, extra);
        assert_eq!(after, file.1, "nothing written");
        assert_eq!(v["files"][0]["templateMismatch"], true, "{v}");
        assert_eq!(v["files"][0]["templateMismatches"][0]["message"], message, "{v}");
    }

    #[test]
    fn code_that_binds_otherwise_in_both_layouts_is_flagged() {
        // A comparison chain: `assert (a in b) == c` was meant.
        let py = ("b.py", "class T:\n    def test(self):\n        self.assertEqual(a in b, c)\n");
        flagged(
            py,
            "self.assertEqual($A, $B)",
            "assert $A == $B",
            &[],
            "the captured `a in b` is no longer one piece of code: the new text parses it as part of `a in b == c`",
        );
        // Member access and a call taking the new code's last part.
        let js = ("r.js", "const a = require(\"x\").foo;\n");
        flagged(
            js,
            "require($A)",
            "await import($A)",
            &[],
            "the new `await import(\"x\")` binds with the code around it: the new text parses it as part of `await import(\"x\").foo`",
        );
        let go = ("n.go", "package p\n\nfunc f() {\n\tnew(T).Run()\n}\n");
        flagged(go, "new($T)", "&$T{}", &[], "the new `&T{}` binds with the code around it: the new text parses it as part of `&T{}.Run()`");
    }

    #[test]
    fn a_multi_line_condition_without_its_brackets_is_flagged_in_python() {
        // Python ends the statement at the line break: CPython rejects both
        // layouts, which tree-sitter-python accepts.
        let py = ("c.py", "def f(x, y):\n    return bool(x and\n                y)\n");
        flagged(py, "return bool($A)", "return $A", &[], "the line `return x and` ends a statement in the middle of one");
    }

    /// Writes tree-sitter accepts and the language's compiler rejects or reads
    /// otherwise (check (f)); each was written unflagged before it, and the
    /// front-end property test found the kind.
    #[test]
    fn what_the_compiler_rejects_is_flagged_though_tree_sitter_accepts_it() {
        let rule = |r: &str| format!("the language reads this otherwise than tree-sitter: {r}");
        let py = ("l.py", "x = f(lambda: 1)\n");
        flagged(py, "f($A)", "not $A", &[], &rule("`lambda: 1` (lambda) may not stand as part of a not operator there"));
        let py = ("k.py", "x = f(k=1)\n");
        flagged(py, "f($$$A)", "g($$$A, e)", &[], &rule("the positional argument `e` follows a keyword argument"));
        let rs = ("c.rs", "fn m() -> R {\n    f(a as u8)\n}\n");
        flagged(rs, "f($A)", "$A?", &[], &rule("`a as u8` (type cast expression) may not stand as part of a try expression there"));
        let rs = ("e.rs", "fn m() {\n    let r = f(a == b, c);\n}\n");
        flagged(rs, "f($A, $B)", "$A == $B", &[], &rule("`a == b` (binary expression) may not stand as part of a binary expression there"));
        let js = ("w.js", "function m() {\n  return f(a);\n}\n");
        flagged(js, "f($A)", "await $A", &[], &rule("`await` in a function that is not `async`"));
        // tree-sitter reads `await (a, b,)` as a call of a function named `await`.
        let js = ("p.js", "async function m() {\n  return await f(a, b,);\n}\n");
        flagged(js, "f($$$A)", "($$$A)", &[], "the new `(a, b,)` is part of a call expression where the replaced code was part of an await expression");
        // ast-grep's `$$$A` brings the trailing `,`: a tuple in its text too.
        flagged(("t.py", "r = f(not a,).attr\n"), "f($$$A)", "($$$A)", &[], "the `,` before `)` makes a tuple");
    }

    /// More of check (f), found on real code by `engine::frontend_real` and by
    /// codemods over the corpora of `benches/`; each was written unflagged.
    #[test]
    fn what_the_compiler_rejects_on_real_code_is_flagged() {
        let rule = |r: &str| format!("the language reads this otherwise than tree-sitter: {r}");
        // Go's scanner reads `&&`; tree-sitter-go read `& &a`.
        flagged(("a.go", "package p\n\nvar v = f(&a)\n"), "f($A)", "&$A", &[], &rule("its scanner reads `&&` as one token"));
        // Go: `a...` only last; type arguments only after a named type.
        let go = ("b.go", "package p\n\nfunc m() {\n\tw = append(w, p...)\n}\n");
        flagged(go, "append($A, $B)", "g($B, $A)", &[], &rule("`p...` is not the last argument"));
        let go = ("c.go", "package p\n\nfunc m() {\n\tx := make([]int, n)\n}\n");
        flagged(go, "make($A, $B)", "$A[$B]", &[], &rule("`[]int` is no named type, so it takes no type arguments"));
        // JavaScript: a `{` after `=>` is a block; `(,` holds an empty argument.
        let js = ("d.js", "const f = (o) => key({\n  a: o.a,\n})\n");
        flagged(js, "key($A)", "$A", &[], &rule("the `{` after `=>` starts a block, not an object"));
        flagged(("e.js", "r = f();\n"), "f($$$A)", "g($$$A, e)", &[], &rule("a list holds `,,` (an empty element) only in an array"));
        // `$A, $B` is one sequence expression, not two elements of the array.
        flagged(
            ("s.js", "r = [f(a, b), 2];\n"),
            "f($A, $B)",
            "$A, $B",
            &[],
            "the new `a, b` binds with the code around it: the new text parses it as part of `[a, b, 2]`",
        );
        // Rust ends the statement after a block-like expression.
        let rs = ("f.rs", "fn m(l: u8) -> u8 {\n    Some(match l {\n        _ => 1,\n    })\n}\n");
        flagged(rs, "Some($A)", "$A + 1", &[], &rule("`match l { _ => 1, }` (match expression) may not stand as part of a binary expression there"));
        // A file with no `import` or `export` is a script: no `await` at its top level.
        flagged(
            ("t.cjs", "const p = require(\"path\");\n"),
            "require($A)",
            "await import($A)",
            &[],
            &rule("`await` at the top level of a script (a file with no `import` or `export`, which node reads as CommonJS)"),
        );
        // TypeScript: `as` takes no call; Rust: `if let` takes no `||`.
        flagged(
            ("h.ts", "r = f(a as T, b);\n"),
            "f($A, $B)",
            "$A($B)",
            &[],
            &rule("`a as T` (as expression) may not stand as part of a call expression there"),
        );
        let rs = ("i.rs", "fn m() {\n    if let Some(l) = f(a, b) {}\n}\n");
        flagged(rs, "f($A, $B)", "$A || $B", &[], &rule("`a || b` (binary expression) may not stand as part of a let condition there"));
        // Python before 3.12: the string's own quote in an f-string's braces.
        flagged(
            ("j.py", "s = str(a) + \" x\"\n"),
            "str($A) + $B",
            "f\"{$A}{$B}\"",
            &[],
            &rule("`{\" x\"}` in an f-string: its quote or `\\` ends or breaks the string before Python 3.12"),
        );
        // Python: `def $F(self)` matches an `async def`, whose template drops the `async`.
        let py = ("g.py", "class C:\n    async def f(self):\n        await g()\n");
        flagged(py, "def $F(self): $$$B", "def $F(self) -> None: $$$B", &[], &rule("`await` in a function that is not `async`"));
    }

    /// Writes that were flagged though right: a comment is nobody's code, an
    /// f-string's prefix is the template's own spelling, rustc reads `.` after
    /// a block-like expression, a macro's tokens are no expression, an index
    /// may be any expression.
    #[test]
    fn comments_at_an_edits_ends_and_f_strings_are_no_mismatch() {
        let py = ("a.py", "assert x, \"m\"  # note\ny = 1\n");
        let (v, after) = rewrite(py, "assert $A, $M", "if not $A:\n    raise AssertionError($M)", &[]);
        assert_eq!(after, "if not x:\n    raise AssertionError(\"m\")  # note\ny = 1\n", "{v}");
        let go = ("b.go", "package p\n\nfunc m(s []int) {\n\tfor i := 0; i < len(s); i++ { // note\n\t\tg(s[i])\n\t}\n}\n");
        let (v, after) = rewrite(go, "for $I := 0; $I < len($S); $I++ { $$$B }", "for $I := range $S { $$$B }", &[]);
        assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
        assert!(after.contains("for i := range s { // note\n\t\tg(s[i])"), "{after}");
        let (v, after) = rewrite(("c.py", "s = str(a) + b\n"), "str($A) + $B", "f\"{$A}{$B}\"", &[]);
        assert_eq!(after, "s = f\"{a}{b}\"\n", "{v}");
        // rustc goes on after a block-like expression with `.` and `?`.
        let rs = ("d.rs", "fn f(c: bool, a: Option<u8>) -> u8 {\n    if c { a } else { a }\n    .unwrap()\n}\n");
        let (v, after) = rewrite(rs, "$A.unwrap()", "$A.expect(\"x\")", &[]);
        assert_eq!(after, rs.1.replace(".unwrap()", ".expect(\"x\")"), "{v}");
        // A macro's tokens are no expression yet; `,,` is JavaScript's concern.
        let rs = ("e.rs", "fn g() {\n    let v = Some((1, 2));\n    let a = k(Token![,](v));\n}\n");
        let (v, after) = rewrite(rs, "Some($A)", "vec![$A]", &[]);
        assert!(after.contains("vec![(1, 2)]"), "{v}");
        let (v, after) = rewrite(rs, "k($A)", "h($A)", &[]);
        assert!(after.contains("h(Token![,](v))"), "{v}");
        // An index may be any expression.
        let (v, after) = rewrite(("f.ts", "const v = row[column as any];\n"), "$A as any", "$A as unknown", &[]);
        assert_eq!(after, "const v = row[column as unknown];\n", "{v}");
    }

    #[test]
    fn operand_chains_are_no_structure_change() {
        // Was refused: "1 && left `key && k == NULL && l == klen` for `key && k == NULL`".
        let c = ("n.c", "int f(char *key, char *k, int l, int klen) {\n    if (key != NULL && k == NULL && l == klen)\n        return 1;\n    return 0;\n}\n");
        let (v, after) = rewrite(c, "$A != NULL", "$A", &[]);
        assert_eq!(v["files"][0]["structureChanged"], false, "{v}");
        assert_eq!(after, c.1.replace("key != NULL", "key"));
    }
}

/// A rule whose match is a string's content (`./foo` of `'./foo'`), rewritten
/// inside the string as ast-grep rewrites it; it was refused ("`./foo` runs into
/// the code before it", exit 11).
#[test]
fn an_edit_inside_a_string_is_no_seam_of_code() {
    let t = tree(&[
        ("i.js", "import { a } from './foo';\n"),
        ("sgconfig.yml", "ruleDirs: [rules]\n"),
        ("rules/ext.yml", "id: js-ext\nlanguage: javascript\nrule:\n  pattern: $P\n  kind: string_fragment\n  regex: ^\\./\nfix: $P.js\n"),
    ]);
    t.run(&["scan", "-U", "i.js"]).ok();
    assert_eq!(t.read("i.js"), "import { a } from './foo.js';\n");
}
