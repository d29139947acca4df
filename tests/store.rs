//! The pending-action store's format (version 1) through the real binary: the shape
//! of a new entry, entries written before version 1, the order of actions without
//! a counter file, bad entries that are reported and skipped, and the records of
//! resolved actions.

mod common;

use std::path::{Path, PathBuf};

use ast_edit::pending::{Resolution, Store};
use common::json::PendingRow;
use common::{ast_grep, Tree, ASSERT_OUT, ASSERT_PAT};
use serde_json::{json, Value};

const APPLIED_TEST_APP: &str = "import unittest\n\nfrom app import fetch_data\n\n\nclass AppTest(unittest.TestCase):\n    def test_fetch(self):\n        self.assertEqual(fetch_data(\"a.txt\"), \"a\")\n        self.assertEqual(len(fetch_data(\"b.txt\")), 1)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

fn pending_dir(t: &Tree) -> PathBuf {
    t.state.path().join("pending")
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

fn pending(t: &Tree) -> Vec<PendingRow> {
    t.run(&["pending", "--json"]).ok().json()
}

fn preview_id(t: &Tree, extra: &[&str]) -> String {
    let mut args = vec!["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "--json"];
    args.extend_from_slice(extra);
    let v: Value = t.run(&args).ok().json();
    v["id"].as_str().expect("staged").to_string()
}

fn propose(t: &Tree, label: &str) -> String {
    let v: Value = t.run(&["propose", "--label", label, "--apply-cmd", "true", "--json"]).ok().json();
    v["id"].as_str().unwrap().to_string()
}

fn resolved(t: &Tree, id: &str) -> Value {
    read_json(&t.state.path().join("resolved").join(format!("{id}.json")))
}

fn is_rfc3339(s: &str) -> bool {
    humantime::parse_rfc3339(s).is_ok()
}

#[test]
fn a_new_entry_has_the_version_1_shape() {
    let t = Tree::fixtures();
    let id = preview_id(&t, &["-l", "py", "--strictness", "ast"]);
    let e = read_json(&pending_dir(&t).join(format!("{id}.json")));
    assert_eq!(e["formatVersion"], 1);
    assert_eq!(e["id"], id.as_str());
    let order = e["order"].as_u64().unwrap();
    assert_eq!(e["seq"].as_u64(), Some(order), "seq repeats order for older readers");
    assert!(is_rfc3339(e["createdAt"].as_str().unwrap()), "{e}");
    assert_eq!(e["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(e["sourceToolName"], "ast_edit");
    assert_eq!(e["files"], json!(["python/test_app.py"]));
    assert_eq!(e["kind"]["type"], "astEdit");
    // The build that planned it: the hash of the binary that ran.
    let bin = std::fs::read(env!("CARGO_BIN_EXE_ast-edit")).unwrap();
    assert_eq!(e["engineBuild"].as_str(), Some(ast_edit::engine::digest(&bin).as_str()));
    assert_eq!(
        e["rules"],
        json!([{"id": "op-0", "language": "python",
                "rule": {"pattern": {"context": ASSERT_PAT, "strictness": "ast"}}, "fix": ASSERT_OUT}])
    );
    let digest = e["rulesDigest"].as_str().unwrap();
    assert!(digest.starts_with("sha256:") && digest.len() == 71, "{digest}");
    // The same rules give the same digest; another rewrite another.
    let same = preview_id(&t, &["-l", "py", "--strictness", "ast"]);
    let same = read_json(&pending_dir(&t).join(format!("{same}.json")));
    assert_eq!(same["rulesDigest"], e["rulesDigest"]);
    assert!(same["order"].as_u64().unwrap() > order);
    // A command action records no rules.
    let c = propose(&t, "Cmd");
    let c = read_json(&pending_dir(&t).join(format!("{c}.json")));
    assert_eq!(c["formatVersion"], 1);
    assert_eq!(c["rules"], json!([]));
    assert_eq!(c["rulesDigest"], Value::Null);
    assert!(c["engineBuild"].is_string());
    assert!(!t.state.path().join("seq").exists(), "no counter file any more");
}

/// Copies the store left by the ast-edit of commit 47dbae5 (see
/// tests/data/pending-before-v1/README.md) into `t`'s state dir.
fn old_store(t: &Tree) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pending-before-v1");
    let tree = t.path().canonicalize().unwrap();
    std::fs::create_dir_all(pending_dir(t)).unwrap();
    for name in ["ae-e53778.json", "ae-57c4c3.json"] {
        let text = std::fs::read_to_string(data.join(name)).unwrap();
        let text = text.replace("/tmp/tmp.9iZtdrWatq", tree.to_str().unwrap());
        std::fs::write(pending_dir(t).join(name), text).unwrap();
    }
    std::fs::copy(data.join("seq"), t.state.path().join("seq")).unwrap();
    t.write("test_app.py", std::fs::read(common::fixtures().join("python/test_app.py")).unwrap());
}

#[test]
fn entries_written_before_version_1_load_and_sort_before_new_ones() {
    let t = Tree::empty();
    old_store(&t);
    let r = t.run(&["pending", "--json"]).ok();
    assert_eq!(r.stderr, "", "old entries are not bad entries");
    let rows: Vec<PendingRow> = r.json();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["ae-57c4c3", "ae-e53778"], "newest (highest seq) first");
    assert_eq!(rows[1].label, "AST Edit: 2 replacements in 1 file");
    assert_eq!(rows[1].files, ["test_app.py"]);
    assert_eq!(rows[1].created_at, "2026-11-24T06:55:16Z");
    // A new action sorts before both, whatever the old counter file says.
    let new = propose(&t, "New one");
    let ids: Vec<String> = pending(&t).into_iter().map(|r| r.id).collect();
    assert_eq!(ids, [new.as_str(), "ae-57c4c3", "ae-e53778"]);
    assert_eq!(std::fs::read_to_string(t.state.path().join("seq")).unwrap(), "2", "the seq file is left alone");
    t.run(&["show", "ae-e53778"]).ok();
    // LIFO across old and new: the new one, then the old command, then the old edit.
    let r = t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert_eq!(r.stdout, "Discarded: New one. Reason: r\n");
    let r = t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(r.stdout, "hi\n");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("test_app.py"), APPLIED_TEST_APP);
    // Their records keep their old order.
    assert_eq!(resolved(&t, "ae-e53778")["order"], 1);
    assert_eq!(resolved(&t, "ae-57c4c3")["order"], 2);
    assert_eq!(resolved(&t, "ae-57c4c3")["resolution"], "applied");
}

#[test]
fn a_stale_or_corrupt_seq_file_does_not_change_which_action_resolve_takes() {
    let t = Tree::empty();
    propose(&t, "A");
    propose(&t, "B");
    // The counter file of older builds, set back: it used to give C the number of A.
    std::fs::write(t.state.path().join("seq"), "0").unwrap();
    propose(&t, "C");
    std::fs::write(t.state.path().join("seq"), "garbage").unwrap();
    propose(&t, "D");
    std::fs::write(t.state.path().join("seq"), "18446744073709551615").unwrap();
    for label in ["D", "C", "B", "A"] {
        let r = t.run(&["resolve", "discard", "--reason", "r"]).ok();
        assert_eq!(r.stdout, format!("Discarded: {label}. Reason: r\n"));
    }
    t.run(&["resolve", "discard", "--reason", "r"]).code(1);
}

#[test]
fn orders_stay_increasing_when_the_clock_is_behind_the_store() {
    let t = Tree::empty();
    let a = propose(&t, "A");
    // An entry from a clock far ahead (or a copied store): the next order is past it.
    let p = pending_dir(&t).join(format!("{a}.json"));
    let mut e = read_json(&p);
    let ahead = 4_000_000_000_000_000_000u64;
    e["order"] = json!(ahead);
    std::fs::write(&p, e.to_string()).unwrap();
    let b = propose(&t, "B");
    let order = |id: &str| read_json(&pending_dir(&t).join(format!("{id}.json")))["order"].as_u64().unwrap();
    assert_eq!(order(&b), ahead + 1);
    // Also past a resolved one that held the largest order.
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert_eq!(resolved(&t, &b)["order"].as_u64(), Some(ahead + 1));
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    let c = propose(&t, "C");
    assert_eq!(order(&c), ahead + 2);
}

#[test]
fn a_bad_entry_is_reported_and_skipped_and_the_others_still_resolve() {
    let t = Tree::fixtures();
    let good = preview_id(&t, &[]);
    let bad = pending_dir(&t).join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let newer = pending_dir(&t).join("ae-future.json");
    std::fs::write(&newer, r#"{"formatVersion": 2, "id": "ae-future", "whatever": "shape v2 has"}"#).unwrap();

    let r = t.run(&["pending", "--json"]).ok();
    let rows: Vec<PendingRow> = r.json();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, good);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stderr);
    let bad_line = lines.iter().find(|l| l.contains("bad.json")).expect("names the bad file");
    assert!(bad_line.starts_with("warning: "), "{bad_line}");
    assert!(bad_line.contains(&bad.display().to_string()), "{bad_line}");
    assert!(bad_line.ends_with("delete the file to drop it"), "{bad_line}");
    let newer_line = lines.iter().find(|l| l.contains("ae-future.json")).unwrap();
    assert!(newer_line.contains("written by a newer ast-edit (format version 2"), "{newer_line}");

    let r = t.run(&["show", "--json"]).ok();
    assert!(r.stderr.contains("bad.json"), "{}", r.stderr);
    // Naming a bad entry finds nothing (and says so), as for any unknown id.
    t.run(&["resolve", "apply", "--reason", "r", "--id", "ae-future"]).code(1);
    let r = t.run(&["resolve", "apply", "--reason", "ship it"]).ok();
    assert!(r.stdout.starts_with("Applied 2 replacements in 1 file."), "{}", r.stdout);
    assert!(r.stderr.contains("bad.json"), "{}", r.stderr);
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
    // The MCP server says the same when it opens the store.
    let r = t.run_stdin(&["mcp"], "");
    assert!(r.stderr.contains(&format!("ast-edit mcp: warning: {}", bad.display())), "{}", r.stderr);
    // The bad files are left for the user to look at.
    assert!(bad.exists() && newer.exists());
    assert_eq!(pending(&t).len(), 0);
    std::fs::remove_file(&bad).unwrap();
    std::fs::remove_file(&newer).unwrap();
    assert_eq!(t.run(&["pending"]).ok().stderr, "");
}

#[test]
fn an_entry_whose_id_is_not_its_file_name_is_a_bad_entry() {
    let t = Tree::empty();
    let id = propose(&t, "Moved");
    std::fs::rename(pending_dir(&t).join(format!("{id}.json")), pending_dir(&t).join("copy.json")).unwrap();
    let r = t.run(&["pending", "--json"]).ok();
    assert_eq!(r.stdout.trim(), "[]");
    assert!(r.stderr.contains(&format!("its id `{id}` does not match its file name")), "{}", r.stderr);
}

#[test]
fn resolved_records_follow_apply_discard_and_undo() {
    let t = Tree::fixtures();
    let applied = preview_id(&t, &[]);
    let order = read_json(&pending_dir(&t).join(format!("{applied}.json")))["order"].as_u64().unwrap();
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let rec = resolved(&t, &applied);
    assert_eq!(rec["formatVersion"], 1);
    assert_eq!(rec["id"], applied.as_str());
    assert_eq!(rec["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(rec["sourceToolName"], "ast_edit");
    assert_eq!(rec["resolution"], "applied");
    assert_eq!(rec["order"].as_u64(), Some(order));
    assert!(is_rfc3339(rec["at"].as_str().unwrap()), "{rec}");
    assert_eq!(rec.as_object().unwrap().len(), 7, "{rec}");

    let discarded = propose(&t, "Dropped");
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert_eq!(resolved(&t, &discarded)["resolution"], "discarded");
    assert_eq!(resolved(&t, &discarded)["sourceToolName"], "custom_tool");

    // A failed apply leaves no record.
    let failing = {
        let v: Value = t.run(&["propose", "--label", "F", "--apply-cmd", "exit 1", "--json"]).ok().json();
        v["id"].as_str().unwrap().to_string()
    };
    t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(!t.state.path().join("resolved").join(format!("{failing}.json")).exists());
    t.run(&["resolve", "discard", "--reason", "r"]).ok();

    t.run(&["undo"]).ok();
    assert_eq!(resolved(&t, &applied)["resolution"], "undone");
    assert_eq!(resolved(&t, &applied)["order"].as_u64(), Some(order));

    // The library reads them typed.
    let store = Store::open(t.state.path()).unwrap();
    let locked = store.lock().unwrap();
    assert_eq!(locked.resolution(&applied).unwrap().unwrap().resolution, Resolution::Undone);
    assert_eq!(locked.resolution(&discarded).unwrap().unwrap().resolution, Resolution::Discarded);
    assert_eq!(locked.resolution("ae-000000").unwrap(), None);
    assert_eq!(locked.resolution("../pending/x").unwrap(), None);
}

#[test]
fn undo_takes_the_newest_journal_record_over_one_named_before_version_1() {
    let t = Tree::fixtures();
    t.run(&["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "-l", "py", "-U"]).ok();
    // Give that record a name of the old `{seq:012}-{id}` kind.
    let journal = t.state.path().join("journal");
    let first: Vec<_> = std::fs::read_dir(&journal).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(first.len(), 1);
    let name = first[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with("-run-U") && name.split('-').next().unwrap().len() == 20, "{name}");
    std::fs::rename(&first[0], journal.join("000000000999-run-U")).unwrap();
    let go_before = t.read("go/main.go");
    t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "go", "-U"]).ok();
    assert_ne!(t.read("go/main.go"), go_before);
    t.run(&["undo"]).ok();
    assert_eq!(t.read("go/main.go"), go_before, "the newer apply is undone first");
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
    t.run(&["undo"]).ok();
    assert_ne!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}


#[test]
fn the_recorded_rules_are_configs_ast_grep_reads_and_writes_the_same_files_with() {
    let Some(ag) = ast_grep() else { return };
    let t = Tree::fixtures();
    let id = preview_id(&t, &["-l", "py", "--selector", "call", "--strictness", "ast"]);
    let e = read_json(&pending_dir(&t).join(format!("{id}.json")));
    let rule = &e["rules"][0];
    assert_eq!(rule["rule"]["pattern"], json!({"context": ASSERT_PAT, "selector": "call", "strictness": "ast"}));
    let peer = Tree::fixtures();
    let out = std::process::Command::new(&ag)
        .args(["scan", "--inline-rules", &rule.to_string(), "-U", "python"])
        .current_dir(peer.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(peer.read("python/test_app.py"), t.read("python/test_app.py"));
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}
