//! A refused apply leads on: over MCP, an action of many files with some
//! flagged is refused whole with which files, why, and the exact `extra` that
//! applies the rest (text never cut mid-way; `structuredContent.error` and
//! `refused`), and that `extra` then writes exactly the other files. A partial
//! apply leaves what it left out pending under the action's id. Files changed since
//! the preview are refused the same way (`stale: "skip"` applies the rest).
//! Through the real server, with the bytes on disk checked.

use crate::common::Tree;
use crate::common::mcp::{call, connect, text};
use serde_json::{Value, json};

/// The text budget of docs/DESIGN.md section 7.
const TEXT_BUDGET: usize = 20_000;

const GOOD: usize = 260;
const BAD: usize = 40;

/// `GOOD` files whose `foo` calls become `bar`, and `BAD` files whose rewrite
/// drops a `)` (a syntax error: flagged).
fn tree() -> Tree {
    let t = Tree::empty();
    for i in 0..GOOD {
        t.write(&format!("pkg/good_{i:03}.py"), format!("def f():\n    foo({i})\n"));
    }
    for i in 0..BAD {
        t.write(&format!("pkg/sub/bad_{i:03}_with_a_rather_long_name_to_fill_the_line.py"), format!("def g():\n    foo({i})\n"));
    }
    t
}

const RULES: &str = "id: good\nlanguage: python\nrule:\n  pattern: foo($A)\n  inside: {kind: function_definition, stopBy: end, has: {field: name, regex: ^f$}}\nfix: bar($A)\n---\nid: broken\nlanguage: python\nrule:\n  pattern: foo($A)\n  inside: {kind: function_definition, stopBy: end, has: {field: name, regex: ^g$}}\nfix: foo($A\n";

#[tokio::test]
async fn a_refusal_names_the_files_and_the_extra_that_applies_the_rest() {
    let t = tree();
    let before = t.snapshot();
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"rule": RULES})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"stale": "skip"}})).await;
    assert_eq!(r.is_error, Some(true));
    let body = text(&r);
    assert_eq!(t.snapshot(), before, "nothing written");
    assert!(body.chars().count() <= TEXT_BUDGET);
    assert!(!body.contains("characters cut"), "{body}");
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines[0], format!("Apply failed: nothing was written: apply refuses {BAD} of the {} files selected, whose rewrite is flagged:", GOOD + BAD));
    assert_eq!(lines[1], "  pkg/sub/bad_000_with_a_rather_long_name_to_fill_the_line.py: the rewrite introduces syntax errors");
    assert_eq!(lines[21], format!("  … and {} more (the result's `refused` lists them all)", BAD - 20));
    assert_eq!(
        lines[22],
        format!(
            "To write the other {GOOD} files and leave these as they are, call `resolve` again with extra {{\"skipFlagged\":true,\"stale\":\"skip\"}}. To write these too, call `resolve` with extra {{\"allowSyntaxErrors\":true,\"stale\":\"skip\"}}. Or fix the pattern or the rewrite and preview again."
        )
    );
    let s = r.structured_content.as_ref().unwrap();
    assert_eq!(s["error"], body);
    let refused = &s["refused"];
    assert_eq!(refused["selected"], GOOD + BAD);
    assert_eq!(refused["files"].as_array().unwrap().len(), BAD, "every refused file, within the budget");
    assert_eq!(refused["applyRest"], json!({"skipFlagged": true, "stale": "skip"}));
    assert_eq!(refused["applyAll"], json!({"allowSyntaxErrors": true, "stale": "skip"}));
    // The way on, as given, writes the other files and leaves the refused ones.
    let rest: Value = refused["applyRest"].clone();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": rest})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains(&format!("\nThe {BAD} files left out stay pending as ")), "{}", text(&r));
    assert!(!serde_json::to_string(&r.structured_content).unwrap().contains("\"diff\""), "no diffs in resolve's structuredContent");
    assert_eq!(t.read("pkg/good_007.py"), "def f():\n    bar(7)\n");
    assert_eq!(t.read("pkg/sub/bad_007_with_a_rather_long_name_to_fill_the_line.py"), "def g():\n    foo(7)\n");
    // The refused files stay pending, and `close` ends the action with an apply.
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(text(&r).contains(&format!("AST Edit: {BAD} replacements in {BAD} files")), "{}", text(&r));
    c.cancel().await.unwrap();
}

/// docs/MCP.md shows the refusal of a small action: it is what the server says.
#[tokio::test]
async fn the_refusal_of_the_docs_is_what_the_server_says() {
    let t = Tree::empty();
    for i in 1..=3 {
        t.write(&format!("ok{i}.py"), "def f():\n    foo(1)\n");
    }
    t.write("bad.py", "def g():\n    foo(2)\n");
    let c = connect(&t).await;
    call(&c, "ast_edit", json!({"rule": RULES})).await;
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/MCP.md")).unwrap();
    assert!(docs.contains(&format!("```text\n{}\n```", text(&r))), "docs/MCP.md should show:\n{}", text(&r));
    c.cancel().await.unwrap();
}

#[test]
fn the_cli_names_its_own_ways_on() {
    let t = tree();
    t.write("rules.yml", RULES);
    let r = t.run(&["scan", "-r", "rules.yml", "-U", "pkg/good_001.py", "pkg/sub"]).code(11);
    // -U staged nothing: the way on is the run's own flag, not `resolve --extra`.
    assert!(r.stderr.contains("To write the other 1 file and leave these as they are, run it again with `--skip-flagged`."), "{}", r.stderr);
    assert!(!r.stderr.contains("resolve apply"), "{}", r.stderr);
    assert_eq!(t.read("pkg/good_001.py"), "def f():\n    foo(1)\n");
    t.run(&["scan", "-r", "rules.yml", "-U", "--skip-flagged", "pkg/good_001.py", "pkg/sub"]).code(12);
    assert_eq!(t.read("pkg/good_001.py"), "def f():\n    bar(1)\n");
}

/// `extra.files` and `extra.exclude` take folders and globs as well as paths;
/// an entry that selects no file of the action is refused, nothing written.
#[tokio::test]
async fn files_and_exclude_take_folders_and_globs() {
    let t = Tree::empty();
    for p in ["src/a.py", "src/b_test.py", "tests/c.py", "tests/deep/d_test.py", "e.py"] {
        t.write(p, "foo(1)\n");
    }
    let c = connect(&t).await;
    let edit = json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]});
    call(&c, "ast_edit", edit.clone()).await;
    let before = t.snapshot();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["nothing/"]}})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).starts_with("extra.exclude names 1 path not in this action: nothing/; its files are: "), "{}", text(&r));
    assert_eq!(t.snapshot(), before);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["tests", "*_test.py"]}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let now = |p: &str| t.read(p) == "bar(1)\n";
    assert_eq!(["src/a.py", "src/b_test.py", "tests/c.py", "tests/deep/d_test.py", "e.py"].map(now), [true, false, false, false, true]);
    call(&c, "ast_edit", edit).await;
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"files": ["tests/**/*.py"]}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(["src/a.py", "src/b_test.py", "tests/c.py", "tests/deep/d_test.py", "e.py"].map(now), [true, false, true, true, true]);
    c.cancel().await.unwrap();
}

/// Files changed since the preview: the text names how many, lists the first
/// 20 one a line and keeps the way on (`stale: "skip"`) whole, never cut
/// mid-list; `structuredContent.refused` lists every stale file with why and
/// gives the `extra` that applies the others, which then writes exactly them.
#[tokio::test]
async fn a_stale_refusal_keeps_its_list_and_its_way_on() {
    const STALE: usize = 58;
    const FRESH: usize = 12;
    let t = Tree::empty();
    let path = |i: usize| format!("tests/admin_views/test_actions_and_their_permissions_{i:03}.py");
    for i in 0..STALE + FRESH {
        t.write(&path(i), format!("def f():\n    foo({i})\n"));
    }
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}], "lang": "py"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    for i in 0..STALE {
        t.write(&path(i), format!("def f():\n    foo({i})  # changed\n"));
    }
    let before = t.snapshot();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(t.snapshot(), before, "nothing written");
    let body = text(&r);
    assert!(!body.contains("characters cut") && !body.contains("more characters"), "{body}");
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines[0], format!("Apply failed: {STALE} files changed since the preview:"));
    assert_eq!(lines[1], format!("  {}", path(0)));
    assert_eq!(lines[20], format!("  {}", path(19)));
    assert_eq!(lines[21], format!("  … and {} more (the result's `refused` lists them all)", STALE - 20));
    assert_eq!(lines[22], "Nothing was written; discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the unchanged files");
    assert_eq!(lines.len(), 23, "{body}");
    let s = r.structured_content.as_ref().unwrap();
    assert_eq!(s["error"], body);
    assert_eq!(s["truncated"], false);
    let refused = &s["refused"];
    assert_eq!(refused["selected"], STALE + FRESH);
    let files = refused["files"].as_array().unwrap();
    assert_eq!(files.len(), STALE);
    assert_eq!(files[57], json!({"path": path(57), "reason": "changed since the preview"}));
    assert_eq!(refused["applyRest"], json!({"stale": "skip"}));
    assert!(refused.get("applyAll").is_none(), "no option writes a changed file: {refused}");
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": refused["applyRest"].clone()})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(t.read(&path(STALE)), format!("def f():\n    bar({STALE})\n"));
    assert_eq!(t.read(&path(0)), "def f():\n    foo(0)  # changed\n");
    c.cancel().await.unwrap();
}

/// A short list stays on one line, as docs/DESIGN.md §5.3 words it, with the
/// same `refused` list.
#[tokio::test]
async fn a_short_stale_refusal_is_one_line() {
    let t = Tree::empty();
    for p in ["a.py", "b.py", "c.py"] {
        t.write(p, "foo(1)\n");
    }
    let c = connect(&t).await;
    call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}], "lang": "py"})).await;
    t.write("a.py", "foo(2)\n");
    std::fs::remove_file(t.path().join("b.py")).unwrap();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"files": ["a.py", "b.py", "c.py"]}})).await;
    assert_eq!(
        text(&r),
        "Apply failed: 2 files changed since the preview: a.py, b.py. Nothing was written; discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the unchanged files"
    );
    let refused = &r.structured_content.as_ref().unwrap()["refused"];
    assert_eq!(refused["files"], json!([{"path": "a.py", "reason": "changed since the preview"}, {"path": "b.py", "reason": "deleted since the preview"}]));
    assert_eq!(refused["applyRest"], json!({"stale": "skip", "files": ["a.py", "b.py", "c.py"]}));
    c.cancel().await.unwrap();
}

/// An apply that would write nothing is no success: options that leave out
/// every file (`skipFlagged` with every file flagged, `exclude` of them all)
/// and `stale: "skip"` with every file changed are errors, nothing written,
/// and the action stays pending under its id.
#[tokio::test]
async fn an_apply_that_would_write_nothing_fails_and_keeps_the_action() {
    let t = Tree::empty();
    for i in 0..3 {
        t.write(&format!("pkg/sub/bad_{i:03}_with_a_rather_long_name_to_fill_the_line.py"), format!("def g():\n    foo({i})\n"));
    }
    let before = t.snapshot();
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"rule": RULES})).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"skipFlagged": true}})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(
        text(&r),
        "Apply failed: nothing was written: the options leave out every one of the 3 files of this action (3 files: its rewrite adds syntax errors (left out by extra.skipFlagged)). The action stays pending: apply it with other options, or discard it"
    );
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["pkg"]}})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("(3 files: named in extra.exclude)"), "{}", text(&r));
    assert_eq!(t.snapshot(), before);
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(text(&r).contains(&id), "still pending: {}", text(&r));
    // Every file changed since the preview: `stale: "skip"` would write nothing.
    for i in 0..3 {
        t.write(&format!("pkg/sub/bad_{i:03}_with_a_rather_long_name_to_fill_the_line.py"), format!("def g():\n    foo({i})  # changed\n"));
    }
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"stale": "skip", "allowSyntaxErrors": true}})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).starts_with("Apply failed: 3 files changed since the preview: "), "{}", text(&r));
    assert!(r.structured_content.as_ref().unwrap()["refused"].get("applyRest").is_none(), "no other file to apply");
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(text(&r).contains(&id), "still pending: {}", text(&r));
    c.cancel().await.unwrap();
}

/// A partial apply (`files`, `exclude`, `skipFlagged`) leaves the other files
/// pending under the same id, labelled with what remains; the next apply of
/// that id writes them; `close: true` ends the action with its apply.
#[tokio::test]
async fn a_partial_apply_leaves_the_rest_pending_under_the_same_id() {
    let t = Tree::empty();
    for i in 0..5 {
        t.write(&format!("m{i}.py"), "foo(1)\n");
    }
    let c = connect(&t).await;
    let edit = json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]});
    let r = call(&c, "ast_edit", edit.clone()).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"files": ["m1.py", "m3.py"]}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));

    assert!(
        text(&r).contains(&format!(
            "\nThe 3 files left out stay pending as {id}: apply or discard them with its id (extra {{\"close\": true}} ends an action with its apply)."
        )),
        "{}",
        text(&r)
    );
    let r = call(&c, "ast_pending", json!({"id": id})).await;
    let page = r.structured_content.as_ref().unwrap();
    assert_eq!(page["fileCount"], 3);
    assert!(text(&r).contains("AST Edit: 3 replacements in 3 files"), "{}", text(&r));
    // Without an id, resolve takes it: the rest is written.
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!((0..5).map(|i| t.read(&format!("m{i}.py"))).collect::<Vec<_>>(), vec!["bar(1)\n"; 5]);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "id": id})).await;
    assert!(text(&r).starts_with(&format!("Action `{id}` was already applied at ")), "{}", text(&r));
    // `close` ends it with the first apply.
    for i in 0..5 {
        t.write(&format!("m{i}.py"), "foo(1)\n");
    }
    call(&c, "ast_edit", edit).await;
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["m0.py"], "close": true}})).await;
    assert!(text(&r).contains("\nThe action is resolved: the files not applied are no longer pending"), "{}", text(&r));
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(!text(&r).contains("ae-"), "nothing pending: {}", text(&r));
    c.cancel().await.unwrap();
}

/// Many files left out of an apply for one reason are three lines and a
/// count in the text (a selection of 1 file out of 8 printed 7 lines, 165 out
/// of 173 in a real session); the structured list keeps every file.
#[tokio::test]
async fn many_files_left_out_for_one_reason_are_counted_not_listed() {
    let t = Tree::empty();
    for i in 0..8 {
        t.write(&format!("m{i}.py"), "foo(1)\n");
    }
    let c = connect(&t).await;
    call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]})).await;
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"files": ["m1.py"]}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(text(&r).matches("\n  not_selected ").count(), 3, "{}", text(&r));
    assert!(text(&r).contains("\n  ... and 4 more files, not_selected: not named in extra.files\n"), "{}", text(&r));
    let outstanding = &r.structured_content.as_ref().unwrap()["sourceResultDetails"]["outstanding"];
    assert_eq!(outstanding.as_array().map(Vec::len), Some(7), "{outstanding}");
    c.cancel().await.unwrap();
}
