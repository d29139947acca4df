//! Minimal rewrites, the default (docs/DESIGN.md section 2.5.9), and `--verbatim`
//! (ast-grep's template output), through the binary: the bytes written and the
//! counts reported, on small trees in Python, Rust, TypeScript/JavaScript, Go
//! and C.

use crate::common::{Tree, ast_grep};
use serde_json::Value;

/// `run ARGS -U` in a tree holding `files`; returns the tree.
fn applied(files: &[(&str, &str)], args: &[&str]) -> Tree {
    let t = Tree::empty();
    for (p, c) in files {
        t.write(p, c);
    }
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-U", "."]);
    t.run(&all).ok();
    t
}

/// `run ARGS`, then `resolve apply` allowing syntax errors, moved code and
/// text that does not say what the template says, in a tree holding `files`:
/// ast-grep's own output (`--verbatim`) may not parse or mean the template.
fn forced(files: &[(&str, &str)], args: &[&str]) -> Tree {
    let t = Tree::empty();
    for (p, c) in files {
        t.write(p, c);
    }
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.push(".");
    t.run(&all).ok();
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowSyntaxErrors": true, "allowStructureChanges": true, "allowTemplateMismatch": true}"#])
        .ok();
    t
}

/// The preview's JSON of `run ARGS --json` in a tree holding `files`.
fn preview(files: &[(&str, &str)], args: &[&str]) -> Value {
    let t = Tree::empty();
    for (p, c) in files {
        t.write(p, c);
    }
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "."]);
    t.run(&all).ok().json()
}

const RUST_CHAIN: &str = "fn main() {\n    let c = Client::builder()\n        .timeout(5)\n        .build()\n        .unwrap();\n    let d = x.unwrap();\n}\n";

const GO_CALL: &str = "package p\n\nfunc f() {\n\tfetchData(\n\t\tctx,\n\t\t\"a  b\",\n\t)\n}\n";

const TS_CALL: &str = "function f() {\n  const x = load(\n    a, // first\n    b,\n  );\n  return x;\n}\n";

const C_CALL: &str = "int main() {\n    foo(a,\n        b);\n    return 0;\n}\n";

const PY_CALL: &str = "import warnings\n\n\ndef f():\n    warnings.warn(\n        \"this is deprecated\",\n        DeprecationWarning,\n    )\n";

#[test]
fn an_identity_rewrite_is_no_edit_in_any_language() {
    for (file, text, pat) in [
        ("a.rs", RUST_CHAIN, "$X.unwrap()"),
        ("a.py", PY_CALL, "warnings.warn($MSG, $CAT)"),
        ("a.go", GO_CALL, "fetchData($$$A)"),
        ("a.ts", TS_CALL, "load($$$A)"),
        ("a.c", C_CALL, "foo($$$A);"),
    ] {
        let v = preview(&[(file, text)], &["-p", pat, "-r", pat]);
        assert_eq!(v["status"], "no_changes", "{file}: {v}");
        assert_eq!(v["totalReplacements"], 0, "{file}");
    }
    // ast-grep's template joins the chain: 1 "replacement" that changes only layout.
    let v = preview(&[("a.rs", RUST_CHAIN)], &["-p", "$X.unwrap()", "-r", "$X.unwrap()", "--verbatim"]);
    assert_eq!(v["totalReplacements"], 1, "{v}");
}

#[test]
fn unwrap_to_expect_keeps_the_line_break_of_the_chain() {
    let t = applied(&[("a.rs", RUST_CHAIN)], &["-p", "$X.unwrap()", "-r", "$X.expect(\"ok\")"]);
    assert_eq!(t.read("a.rs"), RUST_CHAIN.replace(".unwrap()", ".expect(\"ok\")"));
    let t = applied(&[("a.rs", RUST_CHAIN)], &["-p", "$X.unwrap()", "-r", "$X.expect(\"ok\")", "--verbatim"]);
    assert!(t.read("a.rs").contains("        .build().expect(\"ok\");"), "{}", t.read("a.rs"));
}

#[test]
fn renaming_a_call_keeps_a_multi_line_argument_list() {
    for (file, text, pat, out, from, to) in [
        ("a.py", PY_CALL, "warnings.warn($$$A)", "logger.warning($$$A)", "warnings.warn(", "logger.warning("),
        ("a.go", GO_CALL, "fetchData($$$A)", "loadData($$$A)", "fetchData(", "loadData("),
        ("a.ts", TS_CALL, "load($$$A)", "fetch($$$A)", "load(", "fetch("),
        ("a.c", C_CALL, "foo($$$A);", "bar($$$A);", "foo(", "bar("),
    ] {
        let t = applied(&[(file, text)], &["-p", pat, "-r", out]);
        assert_eq!(t.read(file), text.replace(from, to), "{file}");
    }
}

#[test]
fn a_black_formatted_call_keeps_its_lines_when_an_argument_is_added() {
    let src = "def f():\n    warnings.warn(\n        \"this is deprecated\",\n        DeprecationWarning\n    )\n";
    let t = applied(&[("a.py", src)], &["-p", "warnings.warn($MSG, $CAT)", "-r", "warnings.warn($MSG, $CAT, stacklevel=2)"]);
    assert_eq!(t.read("a.py"), "def f():\n    warnings.warn(\n        \"this is deprecated\",\n        DeprecationWarning, stacklevel=2\n    )\n");
}

#[test]
fn a_capture_ending_in_a_comma_followed_by_the_templates_comma_gives_one() {
    let t = applied(&[("a.py", PY_CALL)], &["-p", "warnings.warn($$$ARGS)", "-r", "warnings.warn($$$ARGS, stacklevel=2)"]);
    let got = t.read("a.py");
    assert!(!got.contains(",,"), "{got}");
    assert_eq!(got, PY_CALL.replace("DeprecationWarning,\n", "DeprecationWarning, stacklevel=2\n"));
    let js = "f(\n  a,\n  b,\n);\n";
    let t = applied(&[("a.js", js)], &["-p", "f($$$A)", "-r", "f($$$A, c)"]);
    assert_eq!(t.read("a.js"), "f(\n  a,\n  b, c\n);\n");
    // ast-grep writes the two commas, which V8 rejects: flagged, written when forced.
    let v = preview(&[("a.js", js)], &["-p", "f($$$A)", "-r", "f($$$A, c)", "--verbatim"]);
    assert_eq!(
        v["files"][0]["templateMismatches"][0]["message"],
        "the language reads this otherwise than tree-sitter: a list holds `,,` (an empty element) only in an array",
        "{v}"
    );
    let t = forced(&[("a.js", js)], &["-p", "f($$$A)", "-r", "f($$$A, c)", "--verbatim"]);
    assert!(t.read("a.js").contains(",,"), "{}", t.read("a.js"));
}

/// Django 5.1.3's `apps.py` shape: a return annotation added to methods.
const DJANGO: &str = "from django.apps import AppConfig\n\n\nclass AuthConfig(AppConfig):\n    default_auto_field = \"django.db.models.AutoField\"\n    name = \"django.contrib.auth\"\n\n    def ready(self):\n        post_migrate.connect(\n            create_permissions,\n            dispatch_uid=\"x\",\n        )\n        if x:\n            checks.register(check_user_model)\n        checks.register(check_models_permissions)\n\n    def other(self):\n        return 1\n";

/// `python3` says each method of the class holds `n` statements.
fn method_body_sizes(src: &str) -> Option<String> {
    let code = "import ast,sys\nt=ast.parse(sys.stdin.read())\nc=[n for n in t.body if isinstance(n,ast.ClassDef)][0]\nprint([(f.name,len(f.body)) for f in c.body if isinstance(f,ast.FunctionDef)])";
    let mut child = std::process::Command::new("python3")
        .args(["-c", code])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write;
    child.stdin.take().unwrap().write_all(src.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    Some(if o.status.success() { String::from_utf8_lossy(&o.stdout).trim().to_string() } else { "does not parse".into() })
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn adding_a_return_annotation_keeps_method_bodies_in_their_methods() {
    let (pat, out) = ("def $F(self): $$$B", "def $F(self) -> None: $$$B");
    let t = applied(&[("apps.py", DJANGO)], &["-l", "py", "-p", pat, "-r", out]);
    let got = t.read("apps.py");
    assert_eq!(got, DJANGO.replace("(self):", "(self) -> None:"));
    if let Some(sizes) = method_body_sizes(&got) {
        assert_eq!(sizes, "[('ready', 3), ('other', 1)]");
    }
    // --verbatim writes ast-grep's bytes, which move the bodies out: the
    // structure guard (docs/DESIGN.md section 2.5.10) refuses them unless allowed.
    let v = Tree::empty();
    v.write("apps.py", DJANGO);
    v.run(&["run", "-l", "py", "-p", pat, "-r", out, "--verbatim", "."]).ok();
    let refused = v.run(&["resolve", "apply", "--reason", "r"]);
    assert!(refused.stderr.contains("the rewrite moves code in the syntax tree"), "{}", refused.stderr);
    assert_eq!(v.read("apps.py"), DJANGO);
    v.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowStructureChanges": true, "allowTemplateMismatch": true}"#]).ok();
    if let Some(sizes) = method_body_sizes(&v.read("apps.py")) {
        assert_ne!(sizes, "[('ready', 3), ('other', 1)]");
    }
    let ag = ast_grep();
    let peer = Tree::empty();
    peer.write("apps.py", DJANGO);
    let o = std::process::Command::new(ag).args(["run", "-l", "py", "-p", pat, "-r", out, "-U", "."]).current_dir(peer.path()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(v.read("apps.py"), peer.read("apps.py"));
}

#[test]
fn a_comment_between_concatenated_strings_keeps_the_lines_after_it_in_the_method() {
    // Django's tests/admin_scripts/tests.py: a comment after the first string of
    // an implicit concatenation made the gap after it look like the inside of a
    // literal, so the output's re-indented gap was kept and the rest of the body
    // landed at class depth.
    let src = "class A:\n    def f(self):\n        x = (\n            \"a\"  # No \"b\" part\n            \"c\"\n        )\n        g(x)\n";
    let t = applied(&[("t.py", src)], &["-l", "py", "-p", "def $F(self): $$$B", "-r", "def $F(self) -> None: $$$B"]);
    assert_eq!(t.read("t.py"), src.replace("(self):", "(self) -> None:"));
}

#[test]
fn a_block_moved_deeper_is_re_indented_as_a_block() {
    let src = "def f():\n    a()\n    if x:\n        b()\n";
    let t = applied(&[("a.py", src)], &["-l", "py", "-p", "def f(): $$$B", "-r", "def f():\n    with lock:\n        $$$B"]);
    assert_eq!(t.read("a.py"), "def f():\n    with lock:\n        a()\n        if x:\n            b()\n");
}

#[test]
fn a_change_inside_a_string_or_comment_is_written_as_asked() {
    for (file, src, pat, out) in [
        ("a.py", "x = f(\n    \"a  b\",\n    'c  d',\n)\n", "f($$$A)", "f(\n    \"a b\",\n    'c d',\n)"),
        ("a.py", "x = f(\n    \"\"\"a\n  b\"\"\",\n)\n", "f($$$A)", "f(\n    \"\"\"a\n    b\"\"\",\n)"),
        ("a.ts", "g(\n  `a ${x}  b`,\n  /* c  d */ y,\n);\n", "g($$$A)", "g(\n  `a ${x} b`,\n  /* c d */ y,\n)"),
        ("a.rs", "fn m() {\n    g(\n        r#\"a  \" b\"#,\n        'x',\n    );\n}\n", "g($$$A)", "g(\n        r#\"a \" b\"#,\n        'x',\n    )"),
        ("a.go", "package p\n\nfunc m() {\n\tg(\n\t\t`a  b`,\n\t)\n}\n", "g($$$A)", "g(\n\t\t`a b`,\n\t)"),
    ] {
        let t = applied(&[(file, src)], &["-p", pat, "-r", out]);
        let got = t.read(file);
        for literal in ["\"a b\"", "'c d'", "    b\"\"\"", "`a ${x} b`", "/* c d */", "r#\"a \" b\"#", "`a b`"] {
            if out.contains(literal) {
                assert!(got.contains(literal), "{file}: {literal} missing from\n{got}");
            }
        }
        assert_ne!(got, src, "{file}");
    }
}

#[test]
fn a_crlf_file_keeps_its_line_endings_and_layout() {
    let src = "int main() {\r\n    foo(a,\r\n        b);\r\n    x = y.unwrap();\r\n}\r\n";
    let t = applied(&[("a.c", src)], &["-p", "foo($$$A);", "-r", "bar($$$A, c);"]);
    assert_eq!(t.read("a.c"), "int main() {\r\n    bar(a,\r\n        b, c);\r\n    x = y.unwrap();\r\n}\r\n");
    let rs = "fn main() {\r\n    let c = b()\r\n        .build()\r\n        .unwrap();\r\n}\r\n";
    let t = applied(&[("a.rs", rs)], &["-p", "$X.unwrap()", "-r", "$X.expect(\"ok\")"]);
    assert_eq!(t.read("a.rs"), rs.replace("unwrap()", "expect(\"ok\")"));
    let v = preview(&[("a.rs", rs)], &["-p", "$X.unwrap()", "-r", "$X.unwrap()"]);
    assert_eq!(v["status"], "no_changes");
}

#[test]
fn deleting_a_statement_leaves_no_stray_semicolon_or_blank_line() {
    let js = "function g() {\n  console.log(\"a\");\n  foo();\n  console.log(\"b\"); bar();\n}\n";
    let t = applied(&[("a.js", js)], &["-p", "console.log($A)", "-r", ""]);
    assert_eq!(t.read("a.js"), "function g() {\n  foo();\n  bar();\n}\n");
    let rs = "fn m() {\n    x.unwrap();\n    let y = z.unwrap();\n}\n";
    let t = applied(&[("a.rs", rs)], &["-p", "x.unwrap()", "-r", ""]);
    assert_eq!(t.read("a.rs"), "fn m() {\n    let y = z.unwrap();\n}\n");
    let py = "def f():\n    print(1)\n    return 2\n";
    let t = applied(&[("a.py", py)], &["-p", "print($A)", "-r", ""]);
    assert_eq!(t.read("a.py"), "def f():\n    return 2\n");
    // ast-grep leaves the `;` and the line.
    let t = applied(&[("a.js", js)], &["-p", "console.log($A)", "-r", "", "--verbatim"]);
    assert!(t.read("a.js").contains("  ;\n"), "{}", t.read("a.js"));
}

#[test]
fn verbatim_is_stored_and_apply_with_verify_rerun_re_runs_it() {
    for (flags, expect) in [(vec!["--verbatim"], "        .build().expect(\"ok\");"), (vec![], "        .build()\n        .expect(\"ok\");")] {
        let t = Tree::empty();
        t.write("a.rs", RUST_CHAIN);
        let mut args = vec!["run", "-p", "$X.unwrap()", "-r", "$X.expect(\"ok\")", "--json"];
        args.extend_from_slice(&flags);
        let v: Value = t.run(&args).ok().json();
        assert_eq!(v["status"], "pending");
        t.run(&["resolve", "apply", "--reason", "r", "--verify", "rerun"]).ok();
        assert!(t.read("a.rs").contains(expect), "{flags:?}:\n{}", t.read("a.rs"));
    }
    // A JSON request says it too.
    let t = Tree::empty();
    t.write("a.rs", RUST_CHAIN);
    let req = r#"{"ops": [{"pat": "$X.unwrap()", "out": "$X.unwrap()"}], "verbatim": true}"#;
    let v: Value = t.run_stdin(&["run", "--request", "-", "--json"], req).ok().json();
    assert_eq!(v["totalReplacements"], 1, "{v}");
}

#[test]
fn a_trailing_comma_the_template_does_not_spell_is_kept() {
    let py = "x = f(\n    a,\n)\n";
    let t = applied(&[("a.py", py)], &["-p", "f($A)", "-r", "g($A)"]);
    assert_eq!(t.read("a.py"), "x = g(\n    a,\n)\n");
    // ast-grep drops it and joins the lines.
    let t = applied(&[("a.py", py)], &["-p", "f($A)", "-r", "g($A)", "--verbatim"]);
    assert_eq!(t.read("a.py"), "x = g(a)\n");
}

#[test]
fn a_wrapped_capture_keeps_its_closing_bracket_on_its_line() {
    // Two `)` end the output; the capture's aligns with the original's.
    let py = "if k not in (\n    \"a\",\n    \"b\",\n):\n    pass\n";
    let t = applied(&[("a.py", py)], &["-p", "$A not in $B", "-r", "absent($A, $B)"]);
    assert_eq!(t.read("a.py"), "if absent(k, (\n    \"a\",\n    \"b\",\n)):\n    pass\n");
    // Removed arguments: the line break before `)` stays.
    let py = "if isinstance(\n    x, str\n):\n    pass\n";
    let t = applied(&[("a.py", py)], &["-p", "isinstance($A, str)", "-r", "is_str($A)"]);
    assert_eq!(t.read("a.py"), "if is_str(\n    x\n):\n    pass\n");
}

#[test]
fn a_comment_the_template_cannot_spell_stays() {
    let rs = "fn m() {\n    let v = xs\n        .iter()\n        .max()\n        // never empty here\n        .unwrap();\n}\n";
    let t = applied(&[("a.rs", rs)], &["-p", "$A.unwrap()", "-r", "$A.expect(\"x\")"]);
    assert_eq!(t.read("a.rs"), rs.replace(".unwrap()", ".expect(\"x\")"));
    // ast-grep's template loses it.
    let t = applied(&[("a.rs", rs)], &["-p", "$A.unwrap()", "-r", "$A.expect(\"x\")", "--verbatim"]);
    assert!(!t.read("a.rs").contains("never empty"), "{}", t.read("a.rs"));
}

#[test]
fn a_multi_line_literal_in_a_capture_keeps_its_value() {
    // ast-grep-core re-indents the captured body, and with it the lines inside
    // the docstring and the concatenated strings; the minimal rewrite keeps them.
    let py = "class A:\n    def f(self):\n        \"\"\"Doc.\n\n        More.\n        \"\"\"\n        return [\n            g(\n                \"a \"\n                \"b\",\n            ),\n        ]\n";
    let t = applied(&[("a.py", py)], &["-l", "py", "-p", "def $F(self): $$$B", "-r", "def $F(self) -> None: $$$B"]);
    assert_eq!(t.read("a.py"), py.replace("(self):", "(self) -> None:"));
    // The identity of a Rust call holding a raw string with blank lines is no edit.
    let rs = "fn m() {\n    check(\n        r#\"\n        a\n\n        b\n        \"#,\n    )\n    .unwrap();\n}\n";
    let v = preview(&[("a.rs", rs)], &["-p", "$A.unwrap()", "-r", "$A.unwrap()"]);
    assert_eq!(v["status"], "no_changes", "{v}");
}

/// One multi-line capture moved a level shallower (its block unwrapped) and one
/// a level deeper (wrapped), per language: each line of the capture moves by
/// the same step, so the block keeps its shape at its new depth.
#[test]
fn a_capture_moved_to_another_depth_keeps_its_block_shape() {
    let py = "def f():\n    if True:\n        a = 1\n        foo(\n            a,\n        )\n    return 2\n";
    let ts = "function m() {\n  if (x) {\n    const a = 1;\n    foo(\n      a,\n    );\n  }\n}\n";
    let rs = "fn m() {\n    if true {\n        let a = 1;\n        foo(\n            a,\n        );\n    }\n}\n";
    let go = "package p\n\nfunc m() {\n\tif true {\n\t\ta := 1\n\t\tfoo(\n\t\t\ta,\n\t\t)\n\t}\n}\n";
    let c = "int m(int x) {\n    if (x) {\n        int a = 1;\n        foo(a,\n            b);\n    }\n    return 0;\n}\n";
    let c_if = ["-p", "void f() { if ($C) { $$$B } }", "--selector", "if_statement"];
    let cases: [(&str, &str, Vec<&str>, &str); 10] = [
        ("a.py", py, vec!["-p", "if True: $$$B", "-r", "$$$B"], "def f():\n    a = 1\n    foo(\n        a,\n    )\n    return 2\n"),
        (
            "a.py",
            py,
            vec!["-p", "if True: $$$B", "-r", "if True:\n    with lock:\n        $$$B"],
            "def f():\n    if True:\n        with lock:\n            a = 1\n            foo(\n                a,\n            )\n    return 2\n",
        ),
        ("a.ts", ts, vec!["-p", "if (x) { $$$B }", "-r", "$$$B"], "function m() {\n  const a = 1;\n  foo(\n    a,\n  );\n}\n"),
        (
            "a.ts",
            ts,
            vec!["-p", "if (x) { $$$B }", "-r", "if (x) {\n  try {\n    $$$B\n  } finally {\n    done();\n  }\n}"],
            "function m() {\n  if (x) {\n    try {\n      const a = 1;\n      foo(\n        a,\n      );\n    } finally {\n      done();\n    }\n  }\n}\n",
        ),
        ("a.rs", rs, vec!["-p", "if true { $$$B }", "-r", "$$$B"], "fn m() {\n    let a = 1;\n    foo(\n        a,\n    );\n}\n"),
        (
            "a.rs",
            rs,
            vec!["-p", "if true { $$$B }", "-r", "if true {\n    loop {\n        $$$B\n    }\n}"],
            "fn m() {\n    if true {\n        loop {\n            let a = 1;\n            foo(\n                a,\n            );\n        }\n    }\n}\n",
        ),
        // Tabs, and a statement list that ends in its line break.
        ("a.go", go, vec!["-p", "if true { $$$B }", "-r", "$$$B"], "package p\n\nfunc m() {\n\ta := 1\n\tfoo(\n\t\ta,\n\t)\n}\n"),
        // ast-grep-core indents a template's lines by the spaces of the match's
        // line, none for a tab.
        (
            "a.go",
            go,
            vec!["-p", "if true { $$$B }", "-r", "if true {\n\tfor {\n\t\t$$$B\n\t}\n}"],
            "package p\n\nfunc m() {\n\tif true {\n\t\tfor {\n\t\t\ta := 1\n\t\t\tfoo(\n\t\t\t\ta,\n\t\t\t)\n\t\t}\n\t}\n}\n",
        ),
        ("a.c", c, [&c_if[..], &["-r", "$$$B"]].concat(), "int m(int x) {\n    int a = 1;\n    foo(a,\n        b);\n    return 0;\n}\n"),
        (
            "a.c",
            c,
            [&c_if[..], &["-r", "if ($C) {\n    lock();\n    {\n        $$$B\n    }\n}"]].concat(),
            "int m(int x) {\n    if (x) {\n        lock();\n        {\n            int a = 1;\n            foo(a,\n                b);\n        }\n    }\n    return 0;\n}\n",
        ),
    ];
    for (file, src, args, want) in cases {
        let t = applied(&[(file, src)], &args);
        assert_eq!(t.read(file), want, "{file} {args:?}");
    }
}

#[test]
fn a_token_the_template_changes_gets_the_templates_spacing() {
    let asserts = "class T:\n    def t(self):\n        self.assertIn(\"WHERE\", x)\n        self.assertEqual(a0, b0)\n";
    for (file, src, pat, out, want) in [
        ("a.py", "r = contains(a, b)\ns = contains(a,b)\n", "contains($A, $B)", "$A in $B", "r = a in b\ns = a in b\n"),
        ("a.py", "t = both(a, b)\n", "both($A, $B)", "$A and $B", "t = a and b\n"),
        ("t.py", asserts, "self.assertIn($A, $B)", "assert $A in $B", &asserts.replace("self.assertIn(\"WHERE\", x)", "assert \"WHERE\" in x")),
        ("t.py", asserts, "self.assertEqual($A, $B)", "assert $A == $B", &asserts.replace("self.assertEqual(a0, b0)", "assert a0 == b0")),
        // Not `--y`, a decrement.
        ("a.js", "neg(y);\n", "neg($X)", "- -$X", "- -y;\n"),
    ] {
        // ast-grep writes the same bytes.
        for verbatim in [false, true] {
            let mut args = vec!["-p", pat, "-r", out];
            if verbatim {
                args.push("--verbatim");
            }
            assert_eq!(applied(&[(file, src)], &args).read(file), want, "{pat} -> {out}, verbatim: {verbatim}");
        }
        // The minimal layout itself says what the template says: no edit falls
        // back to ast-grep's text (docs/DESIGN.md section 2.5.9).
        let v = preview(&[(file, src)], &["-p", pat, "-r", out]);
        assert_eq!(v["layoutFallbacks"], 0, "{pat} -> {out}: {v}");
        assert!(v["editsChecked"].as_u64().unwrap() > 0, "{pat} -> {out}: {v}");
    }
}

#[test]
fn a_comment_ending_a_call_keeps_the_closing_bracket_on_its_own_line() {
    let src = "old_name(\n    first,\n    second,  # why\n)\n";
    let t = applied(&[("a.py", src)], &["-p", "old_name($$$A)", "-r", "new_name($$$A)"]);
    assert_eq!(t.read("a.py"), src.replace("old_name", "new_name"));
    // ast-grep puts the `)` inside the comment.
    let t = forced(&[("a.py", src)], &["-p", "old_name($$$A)", "-r", "new_name($$$A)", "--verbatim"]);
    assert_eq!(t.read("a.py"), "new_name(first,\nsecond,  # why)\n");
}

/// A generator callback unwrapped from its wrapper, once from a line of its
/// own (its block moves a level shallower) and once from the wrapper's line.
const GENERATORS: &str = "export class Jobs {
  register() {
    this.queue.add(
      \"sync\",
      wrap(
        function* (
          id: string,
          b: number,
        ) {
          const user = yield* load(id);
          if (user) {
            yield* save(user, b);
          }
        },
      ),
    );
    this.queue.add(\"flush\", wrap(function* (
      id: string,
    ) {
      yield* flush(id);
    }));
  }
}
";

#[test]
fn an_unwrapped_callback_keeps_its_block_shape_and_the_template_its_spelling() {
    let (pat, out) = ("wrap(function* ($$$P) { $$$B })", "function*($$$P) { $$$B }");
    let t = applied(&[("a.ts", GENERATORS)], &["-p", pat, "-r", out]);
    let want = "export class Jobs {
  register() {
    this.queue.add(
      \"sync\",
      function*(
        id: string,
        b: number,
      ) {
        const user = yield* load(id);
        if (user) {
          yield* save(user, b);
        }
      },
    );
    this.queue.add(\"flush\", function*(
      id: string,
    ) {
      yield* flush(id);
    });
  }
}
";
    assert_eq!(t.read("a.ts"), want);
    let t = forced(&[("a.ts", GENERATORS)], &["-p", pat, "-r", out, "--verbatim"]);
    let ast_grep = "export class Jobs {
  register() {
    this.queue.add(
      \"sync\",
      function*(id: string,
      b: number,) { const user = yield* load(id);
      if (user) {
        yield* save(user, b);
      } },
    );
    this.queue.add(\"flush\", function*(id: string,) { yield* flush(id); });
  }
}
";
    assert_eq!(t.read("a.ts"), ast_grep);
}

#[test]
fn a_seam_the_template_writes_as_the_pattern_does_keeps_the_originals_spacing() {
    // GNU style: the rename does not respell `foo(` as `bar(`, so the space stays.
    let c = "int main() {\n    foo (a,\n         b);\n    foo ( );\n}\n";
    let t = applied(&[("a.c", c)], &["-p", "foo($$$A);", "-r", "bar($$$A);"]);
    assert_eq!(t.read("a.c"), c.replace("foo", "bar"));
    let v = preview(&[("a.c", c)], &["-p", "foo($$$A);", "-r", "foo($$$A);"]);
    assert_eq!(v["status"], "no_changes", "{v}");
    // ast-grep writes the template's `bar(`.
    let t = applied(&[("a.c", c)], &["-p", "foo($$$A);", "-r", "bar($$$A);", "--verbatim"]);
    assert_eq!(t.read("a.c"), "int main() {\n    bar(a,\n         b);\n    bar();\n}\n");
}

#[test]
fn a_line_break_of_the_original_goes_back_to_its_depth_when_the_code_before_it_moved() {
    // `)` under the line of its `(`, though the capture before it came from a
    // deeper line; `{` at the depth of `match`, though the capture before it
    // was joined onto the `match` line.
    let py = "def f(t, setting_value):\n    if t and not isinstance(\n        setting_value, (list, tuple)\n    ):\n        pass\n";
    let t = applied(&[("a.py", py)], &["-p", "isinstance($A, $B)", "-r", "is_a($B, $A)"]);
    assert_eq!(t.read("a.py"), "def f(t, setting_value):\n    if t and not is_a((list, tuple), setting_value\n    ):\n        pass\n");
    let rs = "fn m() {\n    if let Some(w) =\n        unsafe { take(x) }\n    {\n        w.wake();\n    }\n}\n";
    let out = "match $Y {\n    Some($X) => {\n        $$$B\n    }\n    None => {}\n}";
    let t = applied(&[("a.rs", rs)], &["-p", "if let Some($X) = $Y { $$$B }", "-r", out]);
    assert_eq!(
        t.read("a.rs"),
        "fn m() {\n    match unsafe { take(x) }\n    {\n        Some(w) => {\n            w.wake();\n        }\n        None => {}\n    }\n}\n"
    );
}

/// A file with thousands of edits has their minimal layouts built on two
/// threads, after the walk over the matches has settled which are kept; what
/// is written is what a file of one such edit gets, copied. The second rule
/// set holds a match whose minimal layout re-creates the code it replaces
/// (no edit), with a match of another rule inside it: that inner match is
/// kept as in the small file, not dropped as overlapping an edit that is none.
#[test]
fn thousands_of_edits_in_one_file_are_written_as_one_edit_is() {
    const COPIES: usize = 3000;
    let unit = "f(\n    g(1),\n    2)\n";
    let cases = [
        // Renamed: the line breaks of each call stay.
        ("id: k\nlanguage: python\nrule: {pattern: 'f($A, $B)'}\nfix: 'k($A, $B)'\n", "k(\n    g(1),\n    2)\n"),
        // The outer call only re-spelled (no edit); the inner one renamed.
        (
            "id: same\nlanguage: python\nrule: {pattern: 'f($A, $B)'}\nfix: 'f($A, $B)'\n---\nid: h\nlanguage: python\nrule: {pattern: 'g($C)'}\nfix: 'h($C)'\n",
            "f(\n    h(1),\n    2)\n",
        ),
    ];
    for (rules, want) in cases {
        for copies in [1, COPIES] {
            let t = Tree::empty();
            t.write("a.py", unit.repeat(copies));
            t.run(&["scan", "--inline-rules", rules, "-U", "."]).ok();
            assert_eq!(t.read("a.py"), want.repeat(copies), "{copies} copies, rules:\n{rules}");
        }
    }
}
