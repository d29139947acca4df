//! Syntax errors with places, files already broken, and leaving files out at
//! apply (docs/DESIGN.md sections 2.5.6, 4.2 and 5.5), through the binary and the
//! MCP server: a rewrite that breaks one of three TypeScript files says where
//! (line, column, node, excerpt) and lists that file first in the text; a file
//! broken before the edit is in `brokenBefore`; `skipFlagged` and `exclude`
//! apply the other files and leave those out as `not_selected` (exit 3); an
//! unknown `exclude` path is bad input and writes nothing.

use crate::common::Tree;
use crate::common::json::{ApplyOutcome, BrokenFile, Preview, ResolveResult, SyntaxError};
use crate::common::mcp::{call, connect, text};
use crate::common::store::pending;
use serde_json::{Value, json};

const A: &str = "export const one = alpha(1);\n";
const B: &str = "const one = 1;\nconst two = gamma(2);\n";
const C: &str = "export function c() {\n  return alpha(3);\n}\n";
const A_NEW: &str = "export const one = beta(1);\n";
const C_NEW: &str = "export function c() {\n  return beta(3);\n}\n";

/// The ops: `alpha(x)` -> `beta(x)` (clean), `gamma(x)` -> `delta(x` (drops the
/// `)`): only b.ts, second in path order, breaks.
const OPS: [&str; 8] = ["-p", "alpha($A)", "-r", "beta($A)", "-p", "gamma($A)", "-r", "delta($A"];

/// a.ts, b.ts and c.ts.
fn three_files() -> Tree {
    let t = Tree::empty();
    t.write("a.ts", A);
    t.write("b.ts", B);
    t.write("c.ts", C);
    t
}

/// What the rewrite adds to b.ts: the `)` that `delta(2;` lacks, where the `;` is.
fn b_error() -> SyntaxError {
    SyntaxError { line: 2, column: 20, node: "MISSING )".into(), excerpt: "const two = delta(2;".into() }
}

/// Stages the three-file edit through the CLI; returns its id.
fn stage(t: &Tree) -> String {
    let mut args = vec!["run", "--json"];
    args.extend(OPS);
    let p: Preview = t.run(&args).ok().json();
    p.id.expect("staged")
}

#[test]
fn a_rewrite_that_breaks_one_of_three_files_says_where_and_lists_it_first() {
    let t = three_files();
    let mut args = vec!["run", "--json"];
    args.extend(OPS);
    let p: Preview = t.run(&args).ok().json();
    // The JSON keeps path order; every entry has the key.
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.ts", "b.ts", "c.ts"]);
    assert_eq!(p.files[1].syntax_errors, vec![b_error()]);
    assert!(p.files[1].syntax_errors_introduced);
    assert!(p.files[0].syntax_errors.is_empty() && p.files[2].syntax_errors.is_empty());
    assert!(p.broken_before.is_empty());
    // The text puts b.ts first, with where its error is.
    let r = t.run(&["pending", "--clear", "--yes"]).ok();
    assert!(r.stdout.starts_with("Dropped 1 pending action"), "{}", r.stdout);
    let mut args = vec!["run"];
    args.extend(OPS);
    let out = t.run(&args).ok().stdout;
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("`{s}` not in:\n{out}"));
    assert!(at("--- a/b.ts") < at("--- a/a.ts") && at("--- a/a.ts") < at("--- a/c.ts"), "{out}");
    assert!(
        out.contains("+const two = delta(2;\nwarning: b.ts: this rewrite introduces syntax errors\n  b.ts:2:20: MISSING ): const two = delta(2;\n--- a/a.ts\n"),
        "{out}"
    );
}

#[test]
fn a_file_broken_before_the_edit_is_listed_with_its_first_error_line() {
    let t = three_files();
    // Parsed (it holds `alpha(`) but no match: broken all the same.
    t.write("broken/bad.ts", "alpha(1, 2);\nlet x = [1, 2;\n");
    // Changed by a clean rewrite, broken before it (and still).
    t.write("broken/changed.ts", "alpha(1);\n\nlet y = [1;\n");
    // Broken, but never parsed (nothing of the pattern in it): not listed.
    t.write("broken/unparsed.ts", "other();\nlet z = [1;\n");
    let p: Preview = t.run(&["run", "-p", "alpha($A)", "-r", "beta($A)", "--json"]).ok().json();
    let want = vec![BrokenFile { path: "broken/bad.ts".into(), line: 2 }, BrokenFile { path: "broken/changed.ts".into(), line: 3 }];
    assert_eq!(p.broken_before, want);
    assert_eq!(p.broken_before_omitted, 0);
    let changed = p.files.iter().find(|f| f.path == "broken/changed.ts").expect("changed");
    assert!(!changed.syntax_errors_introduced && changed.syntax_errors.is_empty(), "{changed:?}");
    assert_eq!(t.read("broken/changed.ts"), "alpha(1);\n\nlet y = [1;\n", "a preview writes nothing");
    t.run(&["pending", "--clear", "--yes"]).ok();
    let out = t.run(&["run", "-p", "alpha($A)", "-r", "beta($A)"]).ok().stdout;
    assert!(out.contains("\nnote: Parse errors before this edit (not caused by it): broken/bad.ts:2, broken/changed.ts:3\nAST Edit: "), "{out}");
}

#[test]
fn broken_before_lists_twenty_files_and_counts_the_rest() {
    let t = Tree::empty();
    for i in 0..23 {
        t.write(&format!("f{i:02}.ts"), "alpha(1, 2);\n\n\nlet x = [1;\n");
    }
    let p: Preview = t.run(&["run", "-p", "alpha($A)", "-r", "beta($A)", "--json"]).ok().json();
    assert_eq!(p.broken_before.len(), 20);
    assert_eq!(p.broken_before[19], BrokenFile { path: "f19.ts".into(), line: 4 });
    assert_eq!(p.broken_before_omitted, 3);
    assert!(p.id.is_none(), "nothing changed, nothing staged");
    let out = t.run(&["run", "-p", "alpha($A)", "-r", "beta($A)"]).ok().stdout;
    assert!(out.contains(", f19.ts:4 and 3 more files\n"), "{out}");
}

#[test]
fn skip_flagged_applies_the_good_files_and_leaves_the_flagged_one_out() {
    let t = three_files();
    let id = stage(&t);
    // Without an option the flagged file fails the whole apply, and says how out.
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(
        r.stderr.starts_with("Apply failed: nothing was written: apply refuses 1 of the 3 files selected, whose rewrite is flagged:\n  b.ts: the rewrite introduces syntax errors\nTo write the other 2 files and leave these as they are, run `ast-edit resolve apply --extra '{\"skipFlagged\":true}'` (with -U: `--skip-flagged`). To write these too, run `ast-edit resolve apply --extra '{\"allowSyntaxErrors\":true}'` (with -U: `--allow-flagged`). Or fix the pattern or the rewrite and preview again.\n"),
        "{}",
        r.stderr
    );
    assert_eq!((t.read("a.ts"), t.read("b.ts")), (A.to_string(), B.to_string()));
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &id, "--extra", r#"{"skipFlagged":true}"#, "--json"]).code(3);
    let res: ResolveResult = r.json();
    let report: ApplyOutcome = res.details.source_result_details.expect("a report");
    assert_eq!(report.status, "incomplete");
    assert_eq!(report.files.iter().map(|f| (f.path.as_str(), f.status.as_str())).collect::<Vec<_>>(), [("a.ts", "applied"), ("c.ts", "applied")]);
    assert_eq!(report.outstanding.len(), 1);
    let o = &report.outstanding[0];
    assert_eq!(
        (o.path.as_str(), o.status.as_str(), o.reason.as_str()),
        ("b.ts", "not_selected", "its rewrite adds syntax errors (left out by extra.skipFlagged)")
    );
    assert!(res.content.ends_with(&format!("\nIncomplete: 1 file not applied:\n  not_selected b.ts: its rewrite adds syntax errors (left out by extra.skipFlagged)\nThe 1 file left out stays pending as {id}: apply or discard it with its id (extra {{\"close\": true}} ends an action with its apply).\nTo undo: `ast-edit undo --id {id}`")), "{}", res.content);
    assert_eq!(t.read_bytes("a.ts"), A_NEW.as_bytes());
    assert_eq!(t.read_bytes("b.ts"), B.as_bytes());
    assert_eq!(t.read_bytes("c.ts"), C_NEW.as_bytes());
    let left = pending(&t);
    assert_eq!(left.len(), 1, "the file left out stays pending under the same id");
    assert_eq!((left[0].id.as_str(), left[0].files.as_slice()), (id.as_str(), &["b.ts".to_string()][..]));
}

#[test]
fn exclude_applies_the_other_files_and_leaves_the_named_ones_out() {
    let t = three_files();
    let id = stage(&t);
    // b.ts left out by name: the others need no allowSyntaxErrors.
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"exclude":["b.ts","c.ts"]}"#]).code(3);
    assert_eq!(
        r.stdout,
        format!(
            "Applied 1 replacement in 1 file.\n  applied  a.ts (1 replacement)\nIncomplete: 2 files not applied:\n  not_selected b.ts: named in extra.exclude\n  not_selected c.ts: named in extra.exclude\nThe 2 files left out stay pending as {id}: apply or discard them with its id (extra {{\"close\": true}} ends an action with its apply).\nTo undo: `ast-edit undo --id {id}`\n"
        )
    );
    assert_eq!(t.read_bytes("a.ts"), A_NEW.as_bytes());
    assert_eq!(t.read_bytes("b.ts"), B.as_bytes());
    assert_eq!(t.read_bytes("c.ts"), C.as_bytes());
}

#[test]
fn an_unknown_exclude_path_is_bad_input_and_writes_nothing() {
    let t = three_files();
    let id = stage(&t);
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"exclude":["b.ts","nope.ts"]}"#]).code(2);
    assert_eq!(
        r.stderr,
        "error: extra.exclude names 1 path not in this action: nope.ts; its files are: a.ts, b.ts, c.ts. Nothing was written; the action stays pending\n"
    );
    assert_eq!(r.stdout, "");
    for (extra, want) in [
        (r#"{"exclude":"b.ts"}"#, "error: extra.exclude must be an array of the action's paths (as `ast-edit show` lists them), not \"b.ts\"."),
        (r#"{"exclude":[1]}"#, "error: extra.exclude must be an array of the action's paths"),
        (r#"{"skipFlagged":"yes"}"#, "error: extra.skipFlagged must be true or false, not \"yes\"."),
        (
            r#"{"skipFlagged":true,"allowSyntaxErrors":true}"#,
            "error: extra.skipFlagged leaves out the files whose rewrite adds syntax errors and extra.allowSyntaxErrors writes them: pass one of the two.",
        ),
        (r#"{"skipflagged":true}"#, "error: extra has the key `skipflagged` (did you mean `skipFlagged`?)"),
    ] {
        let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", extra]).code(2);
        assert!(r.stderr.starts_with(want), "{extra}: {}", r.stderr);
    }
    for extra in [r#"{"exclude":["b.ts"]}"#, r#"{"skipFlagged":true}"#] {
        let r = t.run(&["resolve", "discard", "--reason", "r", "--extra", extra]).code(2);
        assert!(r.stderr.contains("but discard drops the whole action"), "{extra}: {}", r.stderr);
    }
    assert_eq!(t.snapshot(), before, "nothing written");
    let rows = pending(&t);
    assert_eq!((rows.len(), rows[0].id.as_str()), (1, id.as_str()), "the action stays pending");
}

// ---------------------------------------------------------------------------
// The same through the MCP server
// ---------------------------------------------------------------------------

fn edit_args() -> Value {
    json!({"ops": [{"pat": "alpha($A)", "out": "beta($A)"}, {"pat": "gamma($A)", "out": "delta($A"}]})
}

#[tokio::test]
async fn the_mcp_preview_locates_the_error_lists_that_file_first_and_names_broken_files() {
    let t = three_files();
    t.write("broken/bad.ts", "alpha(1, 2);\nlet x = [1, 2;\n");
    let client = connect(&t).await;
    let r = call(&client, "ast_edit", edit_args()).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let s = r.structured_content.as_ref().expect("structuredContent");
    let files = s["files"].as_array().unwrap();
    assert_eq!(files.iter().map(|f| f["path"].as_str().unwrap()).collect::<Vec<_>>(), ["a.ts", "b.ts", "c.ts"]);
    assert_eq!(files[1]["syntaxErrors"], json!([{"line": 2, "column": 20, "node": "MISSING )", "excerpt": "const two = delta(2;"}]));
    assert_eq!(files[0]["syntaxErrors"], json!([]));
    assert_eq!(s["brokenBefore"], json!([{"path": "broken/bad.ts", "line": 2}]));
    assert_eq!(s["brokenBeforeOmitted"], 0);
    let body = text(&r);
    assert!(
        body.contains("\nFiles:\n  b.ts  1 replacement  [adds syntax errors: apply refuses it unless extra {\"allowSyntaxErrors\": true}]\n    b.ts:2:20: MISSING ): const two = delta(2;\n  a.ts  1 replacement\n  c.ts  1 replacement\n"),
        "{body}"
    );
    assert!(body.contains("\nParse errors before this edit (not caused by it): broken/bad.ts:2\n"), "{body}");
    let diffs = body.split("```diff\n").nth(1).expect("diffs");
    assert!(diffs.starts_with("--- a/b.ts\n"), "{diffs}");
    // A page of ast_pending shows the located error with its file too.
    let id = s["id"].as_str().unwrap();
    let page = call(&client, "ast_pending", json!({"id": id})).await;
    assert!(text(&page).contains("  b.ts  1 replacement  [adds syntax errors: apply refuses it unless extra {\"allowSyntaxErrors\": true}]\n    b.ts:2:20: MISSING ): const two = delta(2;\n"), "{}", text(&page));
    assert_eq!(page.structured_content.as_ref().unwrap()["files"][1]["syntaxErrors"][0]["column"], 20);
    let _ = client.cancel().await;
}

#[tokio::test]
async fn mcp_resolve_leaves_files_out_with_skip_flagged_or_exclude_and_refuses_unknown_paths() {
    let t = three_files();
    let client = connect(&t).await;
    call(&client, "ast_edit", edit_args()).await;
    let before = t.snapshot();
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["nope.ts"]}})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).starts_with("extra.exclude names 1 path not in this action: nope.ts; its files are: a.ts, b.ts, c.ts."), "{}", text(&r));
    assert_eq!(t.snapshot(), before, "nothing written");
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "r", "extra": {"skipFlagged": true}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let report = &r.structured_content.as_ref().unwrap()["sourceResultDetails"];
    assert_eq!(report["status"], "incomplete");
    assert_eq!(
        report["outstanding"],
        json!([{"path": "b.ts", "status": "not_selected", "reason": "its rewrite adds syntax errors (left out by extra.skipFlagged)"}])
    );
    assert_eq!(t.read_bytes("a.ts"), A_NEW.as_bytes());
    assert_eq!(t.read_bytes("b.ts"), B.as_bytes());
    assert_eq!(t.read_bytes("c.ts"), C_NEW.as_bytes());
    // exclude, on a fresh preview of the same edit (a.ts and c.ts are done).
    t.write("a.ts", A);
    call(&client, "ast_edit", edit_args()).await;
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["b.ts"]}})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("\n  not_selected b.ts: named in extra.exclude\nThe 1 file left out stays pending as ae-"), "{}", text(&r));
    assert_eq!(t.read_bytes("a.ts"), A_NEW.as_bytes());
    assert_eq!(t.read_bytes("b.ts"), B.as_bytes());
    let _ = client.cancel().await;
}
