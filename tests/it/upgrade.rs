//! A store written by an earlier build still works after the upgrade: the pending
//! entry and the undo journal in tests/data/store-v1/ were written by the build of
//! commit 382ad14 (store format version 1, with the `seq` copy of `order` that
//! later builds no longer write), on `def f(): return fetch_data(1)` and friends
//! with `fetch_data($A)` -> `load_data($A)`. Their absolute paths are written
//! `@ROOT@` there; each test puts the work tree in a temporary folder and the
//! store in its state folder with `@ROOT@` replaced by that folder.
//!
//! - `staged/`: a preview staged and not resolved: it is listed, applies (its
//!   engine build and rules digest are not this build's, so apply re-runs the
//!   edit and proves it equals the plan), and undo puts the files back.
//! - `applied/`: the same edit applied with `-U`, journalled: undo puts the files
//!   back.
//! - `worded/`: written by the build of commit 3f2f5f0 (format version 1), a
//!   preview with a warning (a nested match) and a skipped file (`bin.py` holds
//!   a NUL byte), both kept worded as version 1 kept them: shown as they were
//!   worded, and the action applies.
//! - `rules/`: written by the build of commit 3f2f5f0 (format version 1), a
//!   `scan --inline-rules` with a rule that has `constraints` (a hash map in
//!   ast-grep-config's typed rule), stored as that build kept rules (plain JSON):
//!   read as typed rules, listed, applied (re-run: the constraint still holds)
//!   and undone.
//!
//! tests/data/store-v2/ holds a store of format version 2, which records no
//! session:
//!
//! - `mixed/`: written by a build of commit b550992 on `x = fetch_data(3)` and
//!   friends: `run -U` of `fetch_data($A)` -> `load_data($A)` on `a.py` (an
//!   undo record), a preview of `c.py` discarded (a resolved record), and a
//!   preview of `b.py` left pending. All three belong to the session `cli`: the
//!   command line resolves and undoes them by default, an MCP server lists them
//!   as another session's and takes them only by id.

use std::path::Path;

use crate::common::{Tree, copy_dir};
use serde_json::json;

fn data(which: &str) -> std::path::PathBuf {
    let (version, case) = which.split_once('/').unwrap_or(("store-v1", which));
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(version).join(case)
}

/// A tree holding `which`'s work tree and store (`store-v2/mixed`, or a case
/// of store-v1 by its name), with `@ROOT@` replaced.
fn tree(which: &str) -> Tree {
    let t = Tree::empty();
    copy_dir(&data(which).join("ws"), t.path());
    copy_dir(&data(which).join("state"), t.state.path());
    let root = t.path().to_str().expect("a UTF-8 temporary folder");
    fill(t.state.path(), root);
    t
}

/// Puts the tree's root in the fixture's JSON files, and stages its pending
/// actions today: the store drops a pending action staged more than 30 days
/// ago when it is opened, so the fixtures' own dates would make these tests
/// fail a month after they were written.
fn fill(dir: &Path, root: &str) {
    let staged = regex::Regex::new(r#""createdAt":"[^"]*""#).unwrap();
    let today = format!("\"createdAt\":\"{}\"", humantime::format_rfc3339_seconds(std::time::SystemTime::now()));
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            fill(&p, root);
        } else if p.extension().is_some_and(|x| x == "json") {
            let text = std::fs::read_to_string(&p).unwrap().replace("@ROOT@", root);
            std::fs::write(&p, staged.replace_all(&text, today.as_str()).as_bytes()).unwrap();
        }
    }
}

const BEFORE_A: &str = "def f():\n    return fetch_data(1)\n\n\ndef g():\n    return fetch_data(2)\n";
const AFTER_A: &str = "def f():\n    return load_data(1)\n\n\ndef g():\n    return load_data(2)\n";

#[test]
fn a_pending_entry_of_format_version_1_lists_applies_and_undoes() {
    let t = tree("staged");
    let pending: serde_json::Value = t.run(&["pending", "--json"]).ok().json();
    assert_eq!(pending[0]["id"], "ae-e22a6f", "{pending}");
    assert_eq!(pending[0]["label"], "AST Edit: 3 replacements in 2 files", "{pending}");
    let r: serde_json::Value = t.run(&["resolve", "apply", "--reason", "upgrade", "--json"]).ok().json();
    assert_eq!(r["details"]["sourceResultDetails"]["status"], "applied", "{r}");
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), (AFTER_A, "x = load_data(3)\n"));
    t.run(&["undo"]).ok();
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), (BEFORE_A, "x = fetch_data(3)\n"));
}

#[test]
fn an_undo_journal_of_format_version_1_undoes() {
    let t = tree("applied");
    assert_eq!(t.read("a.py"), AFTER_A);
    let r = t.run(&["undo"]).ok();
    assert!(r.stdout.contains("a.py") && r.stdout.contains("b.py"), "{}", r.stdout);
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), (BEFORE_A, "x = fetch_data(3)\n"));
}

#[test]
fn the_worded_warnings_and_skip_reasons_of_format_version_1_are_shown_as_they_were() {
    let t = tree("worded");
    let d: serde_json::Value = t.run(&["show", "--json"]).ok().json();
    assert_eq!(d["id"], "ae-aacb19", "{d}");
    assert_eq!(
        d["warnings"],
        serde_json::json!([
            "1 match(es) nested in or overlapping another match were not rewritten (the outermost wins); run the same edit again after applying to rewrite them."
        ])
    );
    assert_eq!(d["skipped"], serde_json::json!([{"path": "bin.py", "reason": "binary file (contains NUL bytes)", "limit": false}]));
    let text = t.run(&["show"]).ok().stdout;
    assert!(text.contains("skipped bin.py: binary file (contains NUL bytes)"), "{text}");
    t.run(&["resolve", "apply", "--reason", "upgrade"]).ok();
    assert_eq!(t.read("a.py"), "x = load_data(fetch_data(1))\n");
}

#[test]
fn a_rule_set_of_format_version_1_is_read_as_typed_rules_and_applies() {
    let t = tree("rules");
    let pending: serde_json::Value = t.run(&["pending", "--json"]).ok().json();
    assert_eq!(pending[0]["label"], "AST Scan: 2 replacements in 2 files (rules: fetch-to-load)", "{pending}");
    let r: serde_json::Value = t.run(&["resolve", "apply", "--reason", "upgrade", "--json"]).ok().json();
    assert_eq!(r["details"]["sourceResultDetails"]["status"], "applied", "{r}");
    let after_a = "def f():\n    return load_data(1)\n\n\ndef g():\n    return fetch_data(x)\n";
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), (after_a, "x = load_data(3)\n"));
    t.run(&["undo"]).ok();
    let before_a = "def f():\n    return fetch_data(1)\n\n\ndef g():\n    return fetch_data(x)\n";
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), (before_a, "x = fetch_data(3)\n"));
}

#[tokio::test]
async fn a_store_of_format_version_2_belongs_to_the_command_line_session() {
    use crate::common::mcp::{call, serve_as, text};
    let t = tree("store-v2/mixed");
    let b_before = "x = fetch_data(3)\n";
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), ("def f():\n    return load_data(1)\n", b_before));
    let rows: Vec<crate::common::json::PendingRow> = t.run(&["pending", "--json"]).ok().json();
    let got: Vec<(&str, &str, Option<&str>, bool)> = rows.iter().map(|r| (r.id.as_str(), r.owner.as_str(), r.owner_client.as_deref(), r.mine)).collect();
    assert_eq!(got, [("ae-0318e3", "cli", None, true)]);
    // The resolved record of version 2 still answers.
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", "ae-e61166"]).code(1);
    assert_eq!(r.stderr, "Action `ae-e61166` was already discarded at 2026-11-28T16:04:07Z; nothing to do.\n");

    // An MCP server sees the entry and the undo record as another session's.
    let m = serve_as(t.path(), t.state.path(), "agent", &[]).await;
    let r = call(&m, "ast_pending", json!({})).await;
    let row = &r.structured_content.as_ref().unwrap()["actions"][0];
    assert_eq!((row["id"].clone(), row["owner"].clone(), row["mine"].clone()), (json!("ae-0318e3"), json!("cli"), json!(false)));
    let r = call(&m, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("\n  ae-0318e3  cli  AST Edit: 1 replacement in 1 file\n"), "{}", text(&r));
    let r = call(&m, "ast_undo", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("\n  run-U  cli  1 file\n"), "{}", text(&r));
    let _ = m.cancel().await;
    assert_eq!(t.read("b.py"), b_before, "nothing written");

    // The command line takes both by default.
    let r: serde_json::Value = t.run(&["resolve", "apply", "--reason", "upgrade", "--json"]).ok().json();
    assert_eq!(r["details"]["sourceResultDetails"]["status"], "applied", "{r}");
    assert_eq!(t.read("b.py"), "x = load_data(3)\n");
    t.run(&["undo"]).ok();
    assert_eq!(t.read("b.py"), b_before);
    let r = t.run(&["undo"]).ok();
    assert!(r.stdout.starts_with("Undid run-U: restored 1 file."), "{}", r.stdout);
    assert_eq!(t.read("a.py"), "def f():\n    return fetch_data(1)\n");
}
