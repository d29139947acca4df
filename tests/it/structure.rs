//! The structure guard (docs/DESIGN.md section 2.5.10), through the binary and
//! the MCP server: a rewrite that parses but moves code in the syntax tree (the
//! Django case: a Python method body written at class level; a JavaScript
//! body written after its function; statements an `if` without braces splits;
//! a capture the template regroups) is flagged per
//! file with located messages, listed first, refused at apply (also on
//! `verify: rerun`) unless `allowStructureChanges`, and left out by
//! `skipFlagged`; edits that keep the structure (renames, an argument added, a
//! statement deleted, a statement replaced by a multi-line block, a match over
//! several lines, captures moved into new expressions or to the template's top
//! level in place of the block that held them, as it says: chai to
//! node:assert, `$O.$M($$$A)` -> `$M($O, $$$A)`) are not flagged in Python,
//! Rust, TypeScript, JavaScript, Go and C.

use crate::common::Tree;
use crate::common::json::{ApplyOutcome, Preview, ResolveResult, StructureChange};
use crate::common::mcp::{call, connect, text};
use crate::common::store::pending;
use serde_json::{Value, json};

/// The flags that ask for ast-grep's own layout of a replacement: the default,
/// a minimal rewrite (docs/DESIGN.md section 2.5.9), keeps the Django bodies in
/// their methods, so the tests that use [`ast_grep_layout`] ask for ast-grep's
/// output to reproduce the damage.
const VERBATIM: &[&str] = &["--verbatim"];

/// `args` with [`VERBATIM`] after the subcommand: for every test whose rewrite
/// damages the structure only in ast-grep's layout.
fn ast_grep_layout<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![args[0]];
    v.extend_from_slice(VERBATIM);
    v.extend_from_slice(&args[1..]);
    v
}

/// The MCP form of [`VERBATIM`]: `ast_edit` arguments that ask for ast-grep's
/// layout.
fn ast_grep_layout_args(mut args: Value) -> Value {
    args["verbatim"] = Value::Bool(true);
    args
}

/// Django 5.1.3's `AdminConfig` in small: two methods of several statements.
const APPS: &str = "\
class AdminConfig(AppConfig):
    default_site = \"django.contrib.admin.sites.AdminSite\"

    def ready(self):
        super().ready()
        self.module.autodiscover()
        checks.register(check_admin_app)

    def label(self):
        name = self.name
        return name
";

/// What ast-grep 0.51.1 writes for [`DJANGO`]: the first statement of each body
/// on the `def` line, the rest at class level.
const APPS_DAMAGED: &str = "\
class AdminConfig(AppConfig):
    default_site = \"django.contrib.admin.sites.AdminSite\"

    def ready(self) -> None: super().ready()
    self.module.autodiscover()
    checks.register(check_admin_app)

    def label(self) -> None: name = self.name
    return name
";

/// The rewrite of the Django case.
const DJANGO: [&str; 6] = ["-p", "def $F(self): $$$B", "-r", "def $F(self) -> None: $$$B", "-l", "python"];

fn change(line: usize, message: &str) -> StructureChange {
    StructureChange { line, message: message.into() }
}

/// The Django tree, with a file the same rewrite leaves alone (`ok.py`).
fn django() -> Tree {
    let t = Tree::empty();
    t.write("apps.py", APPS);
    t.write("ok.py", "def ready(self):\n    pass\n");
    t
}

fn stage(t: &Tree) -> String {
    let mut args = vec!["run", "--json"];
    args.extend(DJANGO);
    let p: Preview = t.run(&ast_grep_layout(&args)).ok().json();
    p.id.expect("staged")
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn ast_grep_itself_writes_the_django_method_bodies_at_class_level() {
    let ag = crate::common::ast_grep();
    let t = django();
    let out =
        std::process::Command::new(ag).args(["run", "-p", DJANGO[1], "-r", DJANGO[3], "-l", "python", "-U", "apps.py"]).current_dir(t.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(t.read("apps.py"), APPS_DAMAGED);
    // And ast-edit's default output is the same text today.
    let t2 = django();
    let mut args = vec!["run", "--json"];
    args.extend(DJANGO);
    let p: Preview = t2.run(&ast_grep_layout(&args)).ok().json();
    let f = p.files.iter().find(|f| f.path == "apps.py").expect("apps.py changed");
    assert!(f.diff.contains("+    def ready(self) -> None: super().ready()\n+    self.module.autodiscover()\n"), "{}", f.diff);
}

#[test]
fn the_django_rewrite_keeps_its_bodies_by_default_and_nothing_is_flagged() {
    let t = django();
    let mut args = vec!["run", "--json"];
    args.extend(DJANGO);
    let p: Preview = t.run(&args).ok().json();
    assert_eq!(p.files.len(), 2);
    for f in &p.files {
        assert!(!f.structure_changed && f.structure_changes.is_empty(), "{}: {:?}", f.path, f.structure_changes);
    }
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    t.run(&["resolve", "apply", "--reason", "annotate"]).ok();
    assert_eq!(t.read("apps.py"), APPS.replace("(self):", "(self) -> None:"));
}

#[test]
fn the_django_rewrite_is_flagged_with_where_each_body_went() {
    let t = django();
    let mut args = vec!["run", "--json"];
    args.extend(DJANGO);
    let p: Preview = t.run(&ast_grep_layout(&args)).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["apps.py", "ok.py"]);
    let apps = &p.files[0];
    assert!(apps.structure_changed);
    assert!(!apps.syntax_errors_introduced, "it parses: the syntax check cannot see it");
    assert_eq!(
        apps.structure_changes,
        [
            change(5, "2 expression statements left `def ready` for `class AdminConfig`"),
            change(9, "1 return statement left `def label` for `class AdminConfig`")
        ]
    );
    assert!(!p.files[1].structure_changed, "a one-statement body stays in its def");
    assert_eq!(p.files[1].structure_changes, []);
    assert!(p.warnings.iter().any(|w| w.starts_with("apps.py: the rewrite moves code in the syntax tree outside the replaced text (line 5: 2 expression statements left `def ready` for `class AdminConfig`); apply refuses this file unless extra {\"allowStructureChanges\": true}.")), "{:?}", p.warnings);
    // The text lists the flagged file first, with its changes under its diff.
    let mut args = vec!["run"];
    args.extend(DJANGO);
    let out = t.run(&ast_grep_layout(&args)).ok().stdout;
    let flagged = out.find("warning: apps.py: this rewrite moves code in the syntax tree outside the replaced text\n  apps.py:5: 2 expression statements left `def ready` for `class AdminConfig`\n  apps.py:9: 1 return statement left `def label` for `class AdminConfig`\n");
    let ok = out.find("--- a/ok.py");
    assert!(flagged.is_some() && ok.is_some() && flagged < ok, "{out}");
    assert!(out.find("--- a/apps.py") < ok, "{out}");
}

#[test]
fn apply_refuses_moved_code_writes_nothing_and_writes_it_with_allow_structure_changes() {
    let t = django();
    let id = stage(&t);
    for extra in [None, Some(r#"{"verify":"rerun"}"#)] {
        let mut args = vec!["resolve", "apply", "--reason", "r", "--id", &id];
        if let Some(e) = extra {
            args.extend(["--extra", e]);
        }
        let r = t.run(&args).code(1);
        assert!(
            r.stderr.starts_with("Apply failed: nothing was written: apply refuses 1 of the 2 files selected, whose rewrite is flagged:\n  apps.py: the rewrite moves code in the syntax tree outside the replaced text (line 5: 2 expression statements left `def ready` for `class AdminConfig`); the rewrite does not say what the template says (line 4: the captured `super().ready() self.module.autodiscover…` is no longer one piece of code: the new text parses it as part of `default_site = \"django.contrib.admin.sit…`)\nTo write the other 1 file and leave these as they are, run `ast-edit resolve apply --extra "),
            "{}",
            r.stderr
        );
        assert_eq!(t.read("apps.py"), APPS, "nothing written");
        assert_eq!(pending(&t).len(), 1, "the action stays pending");
    }
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowStructureChanges":"yes"}"#]).code(2);
    assert!(r.stderr.contains("extra.allowStructureChanges must be true or false, not \"yes\"."), "{}", r.stderr);
    let r = t
        .run(&[
            "resolve",
            "apply",
            "--reason",
            "r",
            "--id",
            &id,
            "--extra",
            r#"{"allowStructureChanges":true,"allowTemplateMismatch":true,"verify":"rerun"}"#,
            "--json",
        ])
        .ok();
    let res: ResolveResult = r.json();
    let report: ApplyOutcome = res.details.source_result_details.expect("a report");
    assert_eq!(report.status, "applied");
    assert_eq!(t.read("apps.py"), APPS_DAMAGED);
}

#[test]
fn skip_flagged_leaves_out_a_file_whose_rewrite_moves_code() {
    let t = django();
    let id = stage(&t);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"skipFlagged":true,"allowStructureChanges":true}"#]).code(2);
    assert!(r.stderr.contains("extra.skipFlagged leaves out the files whose rewrite moves code in the syntax tree and extra.allowStructureChanges writes them: pass one of the two."), "{}", r.stderr);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &id, "--extra", r#"{"skipFlagged":true}"#, "--json"]).code(3);
    let res: ResolveResult = r.json();
    let report: ApplyOutcome = res.details.source_result_details.expect("a report");
    assert_eq!(report.files.iter().map(|f| (f.path.as_str(), f.status.as_str())).collect::<Vec<_>>(), [("ok.py", "applied")]);
    let o = &report.outstanding[0];
    assert_eq!(
        (o.path.as_str(), o.status.as_str(), o.reason.as_str()),
        ("apps.py", "not_selected", "its rewrite moves code in the syntax tree (left out by extra.skipFlagged)")
    );
    assert_eq!(t.read("apps.py"), APPS);
    assert_eq!(t.read("ok.py"), "def ready(self) -> None: pass\n");
}

/// The JavaScript function of the tests below.
const START: &str = "function start() {\n  if (ready) {\n    init();\n    run();\n  }\n}\n";

#[test]
fn statements_that_an_if_without_braces_splits_are_flagged() {
    // The template puts the whole body under the `if`; JavaScript puts only
    // the first statement there, and the second after the `if`.
    let t = Tree::empty();
    t.write("a.js", START);
    for layout in [&[][..], VERBATIM] {
        let mut args = vec!["run", "--json", "-p", "if ($C) { $$$B }", "-r", "if ($C) $$$B", "-l", "javascript"];
        args.extend(layout);
        let p: Preview = t.run(&args).ok().json();
        assert!(p.files[0].diff.contains("+  if (ready) init();\n+  run();\n"), "{}", p.files[0].diff);
        assert_eq!(p.files[0].structure_changes, [change(3, "1 expression statement left `if (ready) init();` for `function start`")], "{layout:?}");
    }
}

#[test]
fn a_javascript_function_body_written_after_the_function_is_flagged() {
    // The function is still there and its body left it.
    let t = Tree::empty();
    t.write("a.js", "function start() {\n  init();\n  run();\n}\n");
    let args = ["run", "--json", "-p", "function $F() { $$$B }", "-r", "function $F() {} $$$B", "-l", "javascript"];
    let p: Preview = t.run(&ast_grep_layout(&args)).ok().json();
    assert_eq!(p.files[0].structure_changes, [change(1, "2 expression statements left `function start` for the top level")]);
}

#[test]
fn statements_written_where_the_template_says_are_not_flagged() {
    // The template's own top level, instead of the `if` or `with` that held
    // them, which are gone.
    keeps("a.js", START, "javascript", "if (ready) { $$$B }", "$$$B", "function start() {\n  init();\n  run();\n}\n");
    keeps(
        "a.py",
        "def f():\n    with lock:\n        a()\n        b()\n",
        "python",
        "with lock: $$$B",
        "lock.acquire()\n$$$B",
        "def f():\n    lock.acquire()\n    a()\n    b()\n",
    );
}

/// A test file with the chai assertions of the tests below.
const CHAI: &str = "\
it(\"x\", () => {
  expect(fn()).to.be.greaterThan(303);
  expect(res.body).to.equal(expected);
  expect(list).to.have.lengthOf(3);
});
";

#[test]
fn chai_assertions_rewritten_to_node_assert_are_not_flagged_and_apply() {
    for layout in [&[][..], VERBATIM] {
        let t = Tree::empty();
        t.write("a.test.js", CHAI);
        for (pat, out) in [
            ("expect($A).to.be.greaterThan($B)", "assert.ok($A > $B)"),
            ("expect($A).to.equal($B)", "assert.strictEqual($A, $B)"),
            ("expect($A).to.have.lengthOf($B)", "assert.strictEqual($A.length, $B)"),
        ] {
            let mut args = vec!["run", "--json", "-l", "javascript", "-p", pat, "-r", out];
            args.extend(layout);
            let p: Preview = t.run(&args).ok().json();
            let f = &p.files[0];
            assert!(!f.structure_changed, "{pat} -> {out} {layout:?}: {:?}\n{}", f.structure_changes, f.diff);
            t.run(&["resolve", "apply", "--reason", "chai to node:assert"]).ok();
        }
        assert_eq!(
            t.read("a.test.js"),
            CHAI.replace("expect(fn()).to.be.greaterThan(303)", "assert.ok(fn() > 303)")
                .replace("expect(res.body).to.equal(expected)", "assert.strictEqual(res.body, expected)")
                .replace("expect(list).to.have.lengthOf(3)", "assert.strictEqual(list.length, 3)"),
            "{layout:?}"
        );
    }
}

#[test]
fn a_capture_the_template_regroups_is_flagged() {
    // `>` binds tighter than `||`: the captured `a || b` is no longer a node.
    let t = Tree::empty();
    t.write("a.test.js", "expect(a || b).to.be.greaterThan(3);\n");
    let p: Preview = t.run(&["run", "--json", "-l", "javascript", "-p", "expect($A).to.be.greaterThan($B)", "-r", "assert.ok($A > $B)"]).ok().json();
    assert_eq!(p.files[0].structure_changes, [change(1, "1 binary expression captured by `$A` no longer parsed as before")]);
    assert!(t.run(&["resolve", "apply", "--reason", "r"]).code(1).stderr.contains("1 binary expression captured by `$A` no longer parsed as before"));
    assert_eq!(t.read("a.test.js"), "expect(a || b).to.be.greaterThan(3);\n");
}

#[test]
fn a_method_call_turned_into_a_function_call_is_not_flagged() {
    // `$M` was a property name and is an identifier now: the tokens and their
    // nesting are what count, not their kinds.
    let src = "obj.method(first, second);\nthis.server.close(done);\n$(\"sel\").on(\"click\", handler);\n";
    let want = "method(obj, first, second);\nclose(this.server, done);\non($(\"sel\"), \"click\", handler);\n";
    keeps("a.js", src, "javascript", "$O.$M($$$A)", "$M($O, $$$A)", want);
}

/// Runs `pat` -> `out` in `lang` with `run -U --json` on a tree holding `file`
/// = `src`, and asserts that nothing was flagged and the file was written as
/// `want` (in ast-grep's layout: a `$$$A` over several lines is written
/// joined, `calculate(items,\n    tax=True,)`).
fn keeps(file: &str, src: &str, lang: &str, pat: &str, out: &str, want: &str) {
    let t = Tree::empty();
    t.write(file, src);
    let p: Preview = t.run(&ast_grep_layout(&["run", "-U", "--json", "-l", lang, "-p", pat, "-r", out])).ok().json();
    assert_eq!(p.files.len(), 1, "{pat} -> {out}: one file changed");
    let f = &p.files[0];
    assert!(!f.structure_changed && !f.syntax_errors_introduced, "{pat} -> {out} flagged: {:?}\n{}", f.structure_changes, f.diff);
    assert_eq!(p.status, "applied", "{pat} -> {out}: {:?}", p.warnings);
    assert_eq!(t.read(file), want, "{pat} -> {out}");
}

const PY: &str = "\
class Shop:
    def total(self, items):
        result = compute(
            items,
            tax=True,
        )
        log(result)
        return result.unwrap()

    def name(self):
        return self.label
";

#[test]
fn python_edits_that_keep_the_structure_are_not_flagged() {
    let r = |pat: &str, out: &str, want: &str| keeps("a.py", PY, "python", pat, out, want);
    r(
        "compute($$$A)",
        "calculate($$$A)",
        &PY.replace("compute(\n            items,\n            tax=True,\n        )", "calculate(items,\n        tax=True,)"),
    );
    r("$X.unwrap()", "$X.expect(\"x\")", &PY.replace("result.unwrap()", "result.expect(\"x\")"));
    r("log($A)", "log($A, level=1)", &PY.replace("log(result)", "log(result, level=1)"));
    r("log($A)", "", &PY.replace("log(result)", ""));
    r("return self.label", "label = self.label\nreturn label", &PY.replace("return self.label", "label = self.label\n        return label"));
    // A one-statement body written on the `def` line stays in the def.
    r("def name(self): $$$B", "def title(self): $$$B", &PY.replace("def name(self):\n        return", "def title(self): return"));
}

const RS: &str = "\
fn main() {
    let v = parse(
        input,
        1,
    );
    let x = v.unwrap();
    log(x);
}

fn name() -> u32 { 1 }
";

#[test]
fn rust_edits_that_keep_the_structure_are_not_flagged() {
    let r = |pat: &str, out: &str, want: &str| keeps("a.rs", RS, "rust", pat, out, want);
    r("parse($$$A)", "read($$$A)", &RS.replace("parse(\n        input,\n        1,\n    )", "read(input,\n    1,)"));
    r("$X.unwrap()", "$X.expect(\"x\")", &RS.replace("v.unwrap()", "v.expect(\"x\")"));
    r("log($A)", "log($A, 2)", &RS.replace("log(x)", "log(x, 2)"));
    r("log($A);", "", &RS.replace("log(x);", ""));
    r(
        "let x = v.unwrap();",
        "let x = match v {\n    Some(x) => x,\n    None => 0,\n};",
        &RS.replace("let x = v.unwrap();", "let x = match v {\n        Some(x) => x,\n        None => 0,\n    };"),
    );
    r("fn name() -> u32 { 1 }", "fn name() -> u32 {\n    1\n}", &RS.replace("fn name() -> u32 { 1 }", "fn name() -> u32 {\n    1\n}"));
}

const TS: &str = "\
export class Shop {
  total(items: Item[]): number {
    const result = compute(
      items,
      true,
    );
    log(result);
    return result.unwrap();
  }
}
";

#[test]
fn typescript_and_javascript_edits_that_keep_the_structure_are_not_flagged() {
    let r = |pat: &str, out: &str, want: &str| keeps("a.ts", TS, "typescript", pat, out, want);
    r("compute($$$A)", "calculate($$$A)", &TS.replace("compute(\n      items,\n      true,\n    )", "calculate(items,\n    true,)"));
    r("$X.unwrap()", "$X.expect(\"x\")", &TS.replace("result.unwrap()", "result.expect(\"x\")"));
    r("log($A)", "log($A, 1)", &TS.replace("log(result)", "log(result, 1)"));
    r("log($A);", "", &TS.replace("log(result);", ""));
    r(
        "return $A;",
        "if ($A === undefined) {\n  throw new Error(\"x\");\n}\nreturn $A;",
        &TS.replace("return result.unwrap();", "if (result.unwrap() === undefined) {\n      throw new Error(\"x\");\n    }\n    return result.unwrap();"),
    );
    let js = TS.replace("(items: Item[]): number", "(items)");
    let r = |pat: &str, out: &str, want: &str| keeps("a.js", &js, "javascript", pat, out, want);
    r("compute($$$A)", "calculate($$$A)", &js.replace("compute(\n      items,\n      true,\n    )", "calculate(items,\n    true,)"));
    r("log($A)", "log($A, 1)", &js.replace("log(result)", "log(result, 1)"));
}

const GO: &str = "\
package main

func main() {
\tv := parse(
\t\tinput,
\t\t1,
\t)
\tlog(v)
\tif v == nil { return }
}
";

#[test]
fn go_edits_that_keep_the_structure_are_not_flagged() {
    let r = |pat: &str, out: &str, want: &str| keeps("a.go", GO, "go", pat, out, want);
    r("parse($$$A)", "read($$$A)", &GO.replace("parse(\n\t\tinput,\n\t\t1,\n\t)", "read(input,\n\t\t1,)"));
    r("log($A)", "log($A, 2)", &GO.replace("log(v)", "log(v, 2)"));
    r("log($A)", "", &GO.replace("log(v)", ""));
    r("if $C { return }", "if $C {\n\treturn\n}", &GO.replace("if v == nil { return }", "if v == nil {\n\treturn\n}"));
}

const C: &str = "\
int main(void) {
    int v = parse(
        input,
        1);
    log(v);
    if (v) { return 1; }
    return 0;
}
";

#[test]
fn c_edits_that_keep_the_structure_are_not_flagged() {
    let r = |pat: &str, out: &str, want: &str| keeps("a.c", C, "c", pat, out, want);
    r("int v = parse($$$A);", "int v = read($$$A);", &C.replace("parse(\n        input,\n        1);", "read(input,\n    1);"));
    r("log($A);", "log($A, 2);", &C.replace("log(v)", "log(v, 2)"));
    r("log($A);", "", &C.replace("log(v);", ""));
    r("if ($C) { return 1; }", "if ($C) {\n    return 1;\n}", &C.replace("if (v) { return 1; }", "if (v) {\n        return 1;\n    }"));
}

// ---------------------------------------------------------------------------
// The same through the MCP server
// ---------------------------------------------------------------------------

#[tokio::test]
async fn mcp_flags_the_django_rewrite_lists_it_first_and_refuses_it_until_allowed() {
    let t = django();
    let client = connect(&t).await;
    let args = ast_grep_layout_args(json!({"lang": "python", "ops": [{"pat": DJANGO[1], "out": DJANGO[3]}]}));
    let r = call(&client, "ast_edit", args).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let s = r.structured_content.as_ref().expect("structuredContent");
    assert_eq!(s["files"][0]["structureChanged"], true);
    assert_eq!(s["files"][0]["structureChanges"][0], json!({"line": 5, "message": "2 expression statements left `def ready` for `class AdminConfig`"}));
    assert_eq!(s["files"][1]["structureChanged"], false);
    let body = text(&r);
    assert!(
        body.contains("\nFiles:\n  apps.py  2 replacements  [moves code in the syntax tree: apply refuses it unless extra {\"allowStructureChanges\": true}]  [does not say what the template says: apply refuses it unless extra {\"allowTemplateMismatch\": true}]\n    apps.py:5: 2 expression statements left `def ready` for `class AdminConfig`\n    apps.py:9: 1 return statement left `def label` for `class AdminConfig`\n    apps.py:4: the captured `super().ready() self.module.autodiscover…` is no longer one piece of code: the new text parses it as part of `default_site = \"django.contrib.admin.sit…`\n    apps.py:8: the captured `name = self.name return name` is no longer one piece of code: the new text parses it as part of `default_site = \"django.contrib.admin.sit…`\n  ok.py  1 replacement\n"),
        "{body}"
    );
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).ends_with("To write the other 1 file and leave these as they are, call `resolve` again with extra {\"skipFlagged\":true}. To write these too, call `resolve` with extra {\"allowStructureChanges\":true,\"allowTemplateMismatch\":true}. Or fix the pattern or the rewrite and preview again."), "{}", text(&r));
    let refused = &r.structured_content.as_ref().unwrap()["refused"];
    assert_eq!(refused["applyRest"], json!({"skipFlagged": true}));
    assert_eq!(refused["files"][0]["path"], "apps.py");
    assert_eq!(t.read("apps.py"), APPS);
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "r", "extra": {"allowStructureChanges": true, "allowTemplateMismatch": true}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(t.read("apps.py"), APPS_DAMAGED);
    let _ = client.cancel().await;
}
