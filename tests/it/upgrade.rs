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
//!
//! tests/data/store-v3/ holds stores of format version 3, the last that wrote
//! the library's plan as it serialized itself, written by the build of commit
//! d1ffb7d:
//!
//! - `run/`: `run -p 'print($A)' -r 'log($A)' -p 'len($A)' -r 'size($A)' -l
//!   python -C 1` on `app.py` (a nested match, a call `len($A)` does not
//!   match), `bin.py` (a NUL byte: skipped) and `broken.py` (a syntax error
//!   before the edit): a plan with typed warnings (a diagnosis that names a
//!   command), a skip reason, a dropped match, a file broken before, and a
//!   request with two ops, a forced language and a context of 1 line.
//! - `scan/`: `scan` of the project in `ws/sgconfig.yml` (a rule whose `has`
//!   calls a utility of `utilDirs`, a rule without `fix`, `languageGlobs`
//!   that read `tool.script` as Python): a plan whose request holds a rule
//!   set with utilities, its folder and language globs, and a finding.
//!
//! Each is listed, shown and applied by this build, with the bytes on disk
//! checked after apply and after undo. This build writes format version 4,
//! whose JSON has the shape of version 3: the same edit staged again on
//! `run/` gives an entry whose objects hold the keys of the fixture's, in the
//! same order.

use std::path::Path;

use crate::common::json::{BrokenFile, Finding, Overlapped, PendingRow, Preview, Skipped};
use crate::common::{Tree, copy_dir};
use serde_json::json;

fn data(which: &str) -> std::path::PathBuf {
    let (version, case) = which.split_once('/').unwrap_or(("store-v1", which));
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(version).join(case)
}

/// A tree holding `which`'s work tree and store (`store-v2/mixed`,
/// `store-v3/run`, or a case of store-v1 by its name), with `@ROOT@` replaced.
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

/// The rows of `pending --json`: id, label, owner, mine.
fn listed(t: &Tree) -> Vec<(String, String, String, bool)> {
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    rows.into_iter().map(|r| (r.id, r.label, r.owner, r.mine)).collect()
}

const V3_APP: &str = "def main():\n    print(print(1))\n    print(\"two\")\n    return len(a, b)\n";
const V3_APP_AFTER: &str = "def main():\n    log(print(1))\n    log(\"two\")\n    return len(a, b)\n";

#[test]
fn a_preview_of_format_version_3_lists_shows_applies_and_undoes() {
    let t = tree("store-v3/run");
    assert_eq!(listed(&t), [("ae-9c4438".into(), "AST Edit: 3 replacements in 2 files".into(), "cli".into(), true)]);

    let d: Preview = t.run(&["show", "--json"]).ok().json();
    assert_eq!((d.id.as_deref(), d.status.as_str(), d.total_replacements, d.files_searched), (Some("ae-9c4438"), "pending", 3, 3));
    let files: Vec<(&str, usize, &str)> = d.files.iter().map(|f| (f.path.as_str(), f.replacements, f.diff.as_str())).collect();
    assert_eq!(
        files,
        [
            (
                "app.py",
                2,
                "--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n def main():\n-    print(print(1))\n-    print(\"two\")\n+    log(print(1))\n+    log(\"two\")\n     return len(a, b)\n"
            ),
            ("broken.py", 1, "--- a/broken.py\n+++ b/broken.py\n@@ -1,2 +1,2 @@\n-print(2)\n+log(2)\n x = (\n"),
        ]
    );
    // The typed warnings, worded by this build: a diagnosis of literal text,
    // one that names the `tree` command, and a count.
    assert_eq!(
        d.warnings,
        [
            "ops[1].pat `len($A)` matched nothing in the 2 python files it was tried on: it parses as `call`, the kind of node it matches; 1 `call` node there starts like it (`len(`) but differs (e.g. app.py:4: `len(a, b)`).",
            "ops[1].pat: compare the trees of the pattern and of that code with `ast-edit tree -l python --pattern`.",
            "1 match nested in or overlapping another match was not rewritten (the outermost wins); run the same edit again after applying, or with `--rewrite-nested` set, to rewrite them.",
        ]
    );
    assert_eq!(d.skipped, [Skipped { path: "bin.py".into(), reason: "binary file (contains NUL bytes)".into(), limit: false }]);
    assert_eq!(d.overlaps, 1);
    assert_eq!(d.overlapped, [Overlapped { path: "app.py".into(), line: 2, rule: "op-0".into(), kept_rule: "op-0".into(), same_node: false }]);
    assert_eq!((d.broken_before, d.broken_before_omitted), (vec![BrokenFile { path: "broken.py".into(), line: 2 }], 0));
    assert_eq!(d.edits_checked, 3);
    let text = t.run(&["show"]).ok().stdout;
    assert!(text.contains("AST Edit: 3 replacements in 2 files (`print($A)` -> `log($A)` +1 more ops)"), "{text}");

    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(r.stdout.starts_with("Applied 3 replacements in 2 files.\n"), "{}", r.stdout);
    let mut after = before.clone();
    after.insert("app.py".into(), V3_APP_AFTER.into());
    after.insert("broken.py".into(), b"log(2)\nx = (\n".to_vec());
    assert_eq!(t.snapshot(), after, "the planned edits, and nothing else");
    assert_eq!(listed(&t), []);
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), before);
    assert_eq!(t.read("app.py"), V3_APP);
}

#[test]
fn a_rule_scan_of_format_version_3_lists_shows_applies_and_undoes() {
    let t = tree("store-v3/scan");
    assert_eq!(listed(&t), [("ae-34d8d9".into(), "AST Scan: 2 replacements in 2 files (rules: print-to-log)".into(), "cli".into(), true)]);

    let d: Preview = t.run(&["show", "--json"]).ok().json();
    assert_eq!(d.files.iter().map(|f| (f.path.as_str(), f.replacements)).collect::<Vec<_>>(), [("app.py", 1), ("tool.script", 1)]);
    assert_eq!(
        d.findings,
        [Finding {
            path: "app.py".into(),
            line: 4,
            column: 5,
            rule: "no-eval".into(),
            severity: "warning".into(),
            message: "eval runs any code it is given".into()
        }]
    );
    assert!(d.warnings.is_empty() && d.skipped.is_empty(), "{:?} {:?}", d.warnings, d.skipped);

    // A build other than the one that staged it (d1ffb7d's) runs the stored
    // rule set again (its utility, its folder, its language globs) and
    // applies only what gives the plan.
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(r.stdout.starts_with("Applied 2 replacements in 2 files.\n"), "{}", r.stdout);
    let mut after = before.clone();
    after.insert("app.py".into(), b"def main():\n    log(1)\n    print(\"two\")\n    eval(s)\n".to_vec());
    after.insert("tool.script".into(), b"log(4)\n".to_vec());
    assert_eq!(t.snapshot(), after, "the planned edits, and nothing else");
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), before);
}

/// JSON as written: each object's keys in their order (serde_json's `Value`
/// sorts them), the values left out.
enum Written {
    Object(Vec<(String, Written)>),
    Array(Vec<Written>),
    Scalar,
}

impl<'de> serde::Deserialize<'de> for Written {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Written;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Written, A::Error> {
                let mut keys = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, Written>()? {
                    keys.push((k, v));
                }
                Ok(Written::Object(keys))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Written, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = s.next_element::<Written>()? {
                    items.push(v);
                }
                Ok(Written::Array(items))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Written, E> {
                Ok(Written::Scalar)
            }
        }
        d.deserialize_any(Visit)
    }
}

impl Written {
    /// The value at `path` (object keys, or array indexes as numbers).
    fn at(&self, path: &[&str]) -> &Written {
        path.iter().fold(self, |w, step| match w {
            Written::Object(keys) => &keys.iter().find(|(k, _)| k == step).unwrap_or_else(|| panic!("no key `{step}`")).1,
            Written::Array(items) => &items[step.parse::<usize>().unwrap()],
            Written::Scalar => panic!("`{step}` of a scalar"),
        })
    }

    /// The keys of the object at `path`, in their order.
    fn keys(&self, path: &[&str]) -> Vec<&str> {
        match self.at(path) {
            Written::Object(keys) => keys.iter().map(|(k, _)| k.as_str()).collect(),
            _ => panic!("{path:?} is not an object"),
        }
    }
}

#[test]
fn an_entry_this_build_writes_has_format_version_4_and_the_keys_of_version_3() {
    let t = tree("store-v3/run");
    let read = |id: &str| std::fs::read(t.state.path().join("pending").join(format!("{id}.json"))).unwrap();
    let v3: Written = serde_json::from_slice(&read("ae-9c4438")).unwrap();
    // The same preview of the same bytes would be the same action: drop it first.
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    let staged: serde_json::Value =
        t.run(&["run", "-p", "print($A)", "-r", "log($A)", "-p", "len($A)", "-r", "size($A)", "-l", "python", "-C", "1", "--json"]).ok().json();
    let bytes = read(staged["id"].as_str().expect("staged"));
    let v4: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v4["formatVersion"], 4);
    assert!(bytes.starts_with(br#"{"formatVersion":4,"#), "the version comes first");
    let v4: Written = serde_json::from_slice(&bytes).unwrap();
    for path in [
        &[][..],
        &["kind"],
        &["kind", "plan"],
        &["kind", "plan", "request"],
        &["kind", "plan", "request", "ops", "0"],
        &["kind", "plan", "request", "walk"],
        &["kind", "plan", "files", "0"],
        &["kind", "plan", "files", "0", "edits", "0"],
        &["kind", "plan", "skipped", "0"],
        &["kind", "plan", "skipped", "0", "reason"],
        &["kind", "plan", "overlapped", "0"],
        &["kind", "plan", "brokenBefore", "0"],
    ] {
        assert_eq!(v4.keys(path), v3.keys(path), "{path:?}");
    }
}
