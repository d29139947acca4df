//! The pending-action store's format (version 4) through the real binary: the shape
//! of a new entry, the order of actions without a counter file, bad entries (and
//! an entry without a format version) that are reported and skipped, the records of
//! resolved actions, the retention of what the store keeps and `pending --clear`
//! (docs/DESIGN.md section 3.7), and a command waiting for the store's lock.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::common::json::PendingRow;
use crate::common::store::{APPLIED_TEST_APP, edit_entry, entry_path, pending, propose_cmd, read_json, resolved_path, stage, time_after};
use crate::common::{ASSERT_OUT, ASSERT_PAT, Tree, ast_grep};
use ast_edit::app::pending::Store;
use ast_edit::app::status::Resolution;
use serde_json::{Value, json};

fn pending_dir(t: &Tree) -> PathBuf {
    t.state.path().join("pending")
}

fn preview_id(t: &Tree, extra: &[&str]) -> String {
    let mut args = vec!["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "--json"];
    args.extend_from_slice(extra);
    let v: Value = t.run(&args).ok().json();
    v["id"].as_str().expect("staged").to_string()
}

fn propose(t: &Tree, label: &str) -> String {
    propose_cmd(t, label, "true")
}

fn resolved(t: &Tree, id: &str) -> Value {
    read_json(&resolved_path(t, id))
}

fn is_rfc3339(s: &str) -> bool {
    humantime::parse_rfc3339(s).is_ok()
}

#[test]
fn a_new_entry_has_the_version_4_shape() {
    let t = Tree::fixtures();
    let id = preview_id(&t, &["-l", "py", "--strictness", "ast"]);
    let e = read_json(&pending_dir(&t).join(format!("{id}.json")));
    assert_eq!(e["formatVersion"], 4);
    assert_eq!(e["id"], id.as_str());
    let order = e["order"].as_u64().unwrap();
    assert!(e.get("seq").is_none(), "no `seq` copy of order (builds of version 1 wrote one): {e}");
    assert!(is_rfc3339(e["createdAt"].as_str().unwrap()), "{e}");
    assert_eq!(e["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(e["sourceToolName"], "ast_edit");
    assert_eq!(e["files"], json!(["python/test_app.py"]));
    // Staged from the command line: its session, `cli`, with no client name.
    assert_eq!((e["owner"].clone(), e["ownerClient"].clone()), (json!("cli"), Value::Null));
    assert_eq!(e["kind"]["type"], "astEdit");
    // The build that planned it: the hash of the binary that ran.
    let bin = std::fs::read(env!("CARGO_BIN_EXE_ast-edit")).unwrap();
    assert_eq!(e["engineBuild"].as_str(), Some(ast_edit::testing::digest(&bin).as_str()));
    assert_eq!(
        e["rules"],
        json!([{"id": "op-0", "language": "python",
                "rule": {"pattern": {"context": ASSERT_PAT, "strictness": "ast"}}, "fix": ASSERT_OUT}])
    );
    let digest = e["rulesDigest"].as_str().unwrap();
    assert!(digest.starts_with("sha256:") && digest.len() == 71, "{digest}");
    // The same rules give the same digest; another rewrite another. (The file
    // changes first: the same preview of the same bytes is the same action.)
    t.write("python/test_app.py", t.read("python/test_app.py") + "\n");
    let same = preview_id(&t, &["-l", "py", "--strictness", "ast"]);
    let same = read_json(&pending_dir(&t).join(format!("{same}.json")));
    assert_eq!(same["rulesDigest"], e["rulesDigest"]);
    assert!(same["order"].as_u64().unwrap() > order);
    // A command action records no rules.
    let c = propose(&t, "Cmd");
    let c = read_json(&pending_dir(&t).join(format!("{c}.json")));
    assert_eq!(c["formatVersion"], 4);
    assert_eq!(c["owner"], "cli");
    assert_eq!(c["rules"], json!([]));
    assert_eq!(c["rulesDigest"], Value::Null);
    assert!(c["engineBuild"].is_string());
    assert!(!t.state.path().join("seq").exists(), "no counter file any more");
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

/// Version 2 keeps a plan's warnings and skip reasons typed, with their
/// figures; the front end that shows the action words them.
#[test]
fn a_new_entry_keeps_warnings_and_skip_reasons_typed_and_show_words_them() {
    let t = Tree::empty();
    t.write("a.py", "x = fetch_data(fetch_data(1))\n");
    t.write("bin.py", "y = fetch_data(2)\u{0}\n");
    let v: Value = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "--json"]).ok().json();
    let id = v["id"].as_str().expect("staged");
    let e = read_json(&pending_dir(&t).join(format!("{id}.json")));
    assert_eq!(e["kind"]["plan"]["warnings"], json!([{"kind": "overlaps", "count": 1}]));
    assert_eq!(e["kind"]["plan"]["skipped"], json!([{"path": "bin.py", "reason": {"kind": "binary"}}]));
    let d: Value = t.run(&["show", "--json"]).ok().json();
    assert_eq!(
        d["warnings"],
        json!([
            "1 match nested in or overlapping another match was not rewritten (the outermost wins); run the same edit again after applying, or with `--rewrite-nested` set, to rewrite them."
        ])
    );
    assert_eq!(d["skipped"], json!([{"path": "bin.py", "reason": "binary file (contains NUL bytes)", "limit": false}]));
}

#[test]
fn a_bad_entry_is_reported_and_skipped_and_the_others_still_resolve() {
    let t = Tree::fixtures();
    let good = preview_id(&t, &[]);
    let bad = pending_dir(&t).join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let newer = pending_dir(&t).join("ae-future.json");
    std::fs::write(&newer, r#"{"formatVersion": 5, "id": "ae-future", "whatever": "shape v5 has"}"#).unwrap();
    // An entry of a build before the first release: no format version.
    let unversioned = pending_dir(&t).join("ae-old.json");
    std::fs::write(&unversioned, r#"{"id": "ae-old", "seq": 1, "label": "L", "kind": {}}"#).unwrap();

    let r = t.run(&["pending", "--json"]).ok();
    let rows: Vec<PendingRow> = r.json();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, good);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stderr);
    let old_line = lines.iter().find(|l| l.contains("ae-old.json")).unwrap();
    assert!(old_line.contains("unreadable pending action (no formatVersion)"), "{old_line}");
    let bad_line = lines.iter().find(|l| l.contains("bad.json")).expect("names the bad file");
    assert!(bad_line.starts_with("warning: "), "{bad_line}");
    assert!(bad_line.contains(&bad.display().to_string()), "{bad_line}");
    assert!(bad_line.ends_with("delete the file to drop it"), "{bad_line}");
    let newer_line = lines.iter().find(|l| l.contains("ae-future.json")).unwrap();
    assert!(newer_line.contains("written by a newer ast-edit (format version 5; this one reads up to version 4)"), "{newer_line}");

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
    assert!(bad.exists() && newer.exists() && unversioned.exists());
    assert_eq!(pending(&t).len(), 0);
    std::fs::remove_file(&bad).unwrap();
    std::fs::remove_file(&newer).unwrap();
    std::fs::remove_file(&unversioned).unwrap();
    assert_eq!(t.run(&["pending"]).ok().stderr, "");
}

/// The store's upkeep reads each entry's head but not its plan (a plan may be
/// megabytes, and every command reads the store): an entry whose plan alone is
/// damaged is still named, by the listing and by the action that reads it.
#[test]
fn an_entry_whose_plan_alone_is_damaged_is_named_where_it_is_read() {
    let t = Tree::fixtures();
    let good = preview_id(&t, &[]);
    let damaged = preview_id(&t, &["--lang", "python"]);
    assert_ne!(good, damaged);
    edit_entry(&t, &damaged, |e| e["kind"]["plan"] = json!(5));
    let path = pending_dir(&t).join(format!("{damaged}.json"));
    let said = format!("{}: unreadable pending action (invalid type: integer `5`, expected struct Plan", path.display());

    let r = t.run(&["pending", "--json"]).ok();
    let rows: Vec<PendingRow> = r.json();
    assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [good.as_str()]);
    assert_eq!(r.stderr.lines().filter(|l| l.starts_with(&format!("warning: {said}"))).count(), 1, "{}", r.stderr);
    assert!(r.stderr.trim_end().ends_with("delete the file to drop it"), "{}", r.stderr);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &damaged]).code(1);
    assert!(r.stderr.contains(&said), "{}", r.stderr);
    // Nothing was written, and the other action still applies.
    assert!(path.exists());
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &good]).ok();
    assert!(r.stdout.starts_with("Applied 2 replacements in 1 file."), "{}", r.stdout);
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}

/// An entry whose order no store gives (`u64::MAX`, hand-edited or damaged) is a
/// bad entry: it neither ranks as the newest nor makes every later order tie at
/// `u64::MAX` (`resolve` without an id used to pick it for 30 days).
#[test]
fn an_entry_with_an_order_no_store_gives_is_a_bad_entry_and_takes_no_turn() {
    let t = Tree::fixtures();
    let bogus = preview_id(&t, &[]);
    edit_entry(&t, &bogus, |e| e["order"] = json!(u64::MAX));
    let newer = preview_id(&t, &["--lang", "python"]);
    let order = read_json(&pending_dir(&t).join(format!("{newer}.json")))["order"].as_u64().unwrap();
    assert!(order < u64::MAX / 2, "the new action's order is the clock's: {order}");
    let r = t.run(&["pending", "--json"]).ok();
    let rows: Vec<PendingRow> = r.json();
    assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [newer.as_str()]);
    assert!(
        r.stderr
            .contains(&format!("its order {} is past 2^62 nanoseconds since 1970 (the year 2116), which no store gives; delete the file to drop it", u64::MAX)),
        "{}",
        r.stderr
    );
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(resolved(&t, &newer)["resolution"], "applied");
    assert!(pending_dir(&t).join(format!("{bogus}.json")).exists(), "left as it is");
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
    assert_eq!(rec["formatVersion"], 4);
    assert_eq!(rec["id"], applied.as_str());
    assert_eq!(rec["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(rec["sourceToolName"], "ast_edit");
    assert_eq!(rec["resolution"], "applied");
    assert_eq!(rec["order"].as_u64(), Some(order));
    assert!(is_rfc3339(rec["at"].as_str().unwrap()), "{rec}");
    assert_eq!(rec["owner"], "cli", "the session that staged it");
    assert_eq!(rec.as_object().unwrap().len(), 8, "{rec} (no ownerClient: the command line has none)");

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
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn the_recorded_rules_are_configs_ast_grep_reads_and_writes_the_same_files_with() {
    let ag = ast_grep();
    let t = Tree::fixtures();
    let id = preview_id(&t, &["-l", "py", "--selector", "call", "--strictness", "ast", "--verbatim"]);
    let e = read_json(&pending_dir(&t).join(format!("{id}.json")));
    let rule = &e["rules"][0];
    assert_eq!(rule["rule"]["pattern"], json!({"context": ASSERT_PAT, "selector": "call", "strictness": "ast"}));
    let peer = Tree::fixtures();
    let out = std::process::Command::new(&ag).args(["scan", "--inline-rules", &rule.to_string(), "-U", "python"]).current_dir(peer.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(peer.read("python/test_app.py"), t.read("python/test_app.py"));
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}

// ---------------------------------------------------------------------------
// Retention and pending --clear (docs/DESIGN.md section 3.7)
// ---------------------------------------------------------------------------

fn days_ago(days: u64) -> SystemTime {
    SystemTime::now() - Duration::from_secs(days * 86_400)
}

#[test]
fn pending_actions_older_than_30_days_are_dropped_and_remembered_as_expired() {
    let t = Tree::fixtures();
    let old = stage(&t);
    let young = propose_cmd(&t, "Young", "true");
    let stamp = humantime::format_rfc3339_seconds(days_ago(31)).to_string();
    edit_entry(&t, &old, |e| e["createdAt"] = json!(stamp));
    let r = t.run(&["pending"]).ok();
    assert_eq!(
        r.stderr,
        format!(
            "warning: dropped pending action {old} (AST Edit: 2 replacements in 1 file, staged {stamp}): staged more than 30 days ago; the store keeps pending actions 30 days, at most 100 of them\n"
        )
    );
    assert!(r.stdout.starts_with(&format!("{young}  ")), "{}", r.stdout);
    assert_eq!(pending(&t).len(), 1);
    assert!(!entry_path(&t, &old).exists());
    assert_eq!(read_json(&resolved_path(&t, &old))["resolution"], "expired");
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &old]).code(1);
    time_after(&r.stderr, &format!("Action `{old}` was dropped unresolved by the store's retention (`ast-edit pending` says what is kept) at "));
    assert_eq!(t.read("python/test_app.py"), Tree::fixtures().read("python/test_app.py"));
    // 29 days is kept.
    let stamp = humantime::format_rfc3339_seconds(days_ago(29)).to_string();
    edit_entry(&t, &young, |e| e["createdAt"] = json!(stamp));
    assert_eq!(t.run(&["pending"]).ok().stderr, "");
    assert_eq!(pending(&t).len(), 1);
}

#[test]
fn beyond_100_pending_actions_the_oldest_are_dropped() {
    let t = Tree::empty();
    let first = propose_cmd(&t, "A", "true");
    // 100 more entries, copies of the first with newer orders.
    let e = read_json(&entry_path(&t, &first));
    let base = e["order"].as_u64().unwrap();
    let mut ids = vec![first.clone()];
    for i in 1..=100u64 {
        let id = format!("ae-copy{i:03}");
        let mut c = e.clone();
        c["id"] = json!(id);
        c["order"] = json!(base + i);
        std::fs::write(entry_path(&t, &id), c.to_string()).unwrap();
        ids.push(id);
    }
    let r = t.run(&["pending", "--json"]).ok();
    assert!(r.stderr.contains(&format!("dropped pending action {first} (A, staged ")), "{}", r.stderr);
    assert!(r.stderr.contains("beyond the newest 100 pending actions or their 1.0 GiB in all"), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    let rows: Vec<PendingRow> = r.json();
    assert_eq!(rows.len(), 100);
    assert_eq!(rows[0].id, "ae-copy100");
    assert_eq!(rows[99].id, "ae-copy001");
    assert_eq!(read_json(&resolved_path(&t, &first))["resolution"], "expired");
}

/// A fake undo record: `journal/<order:020>-<id>/` with an empty `record.json`
/// file list and an `originals.bin` of `len` bytes (sparse, so no disk is used).
fn fake_undo_record(t: &Tree, order: u64, id: &str, len: u64) -> PathBuf {
    let dir = t.state.path().join("journal").join(format!("{order:020}-{id}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("record.json"), json!({"id": id, "files": []}).to_string()).unwrap();
    std::fs::File::create(dir.join("originals.bin")).unwrap().set_len(len).unwrap();
    dir
}

fn journal_names(t: &Tree) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(t.state.path().join("journal")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn the_journal_keeps_the_newest_20_undo_records() {
    let t = Tree::empty();
    t.run(&["pending"]).ok();
    for i in 1..=25u64 {
        fake_undo_record(&t, 1_000 + i, &format!("ae-old{i:03}"), 10);
    }
    // An apply killed before its record was written (so before any rename).
    let orphan = t.state.path().join("journal").join(format!("{:020}-ae-orphan", 2_000));
    std::fs::create_dir_all(&orphan).unwrap();
    std::fs::write(orphan.join("originals.bin"), "x").unwrap();
    let r = t.run(&["pending"]).ok();
    assert_eq!(r.stderr, "");
    let names = journal_names(&t);
    assert_eq!(names.len(), 20, "{names:?}");
    assert!(names[0].ends_with("-ae-old006") && names[19].ends_with("-ae-old025"), "{names:?}");
    assert_eq!(
        r.stdout,
        "No pending actions.\nKeeping 20 undo records (200 B; the newest 20, up to 1.0 GiB) and 0 resolved ids for 30 days; pending actions are dropped after 30 days.\n"
    );
    // Undo takes the newest of those kept.
    let r = t.run(&["undo", "--json"]).ok();
    assert!(r.stdout.contains("\"id\": \"ae-old025\""), "{}", r.stdout);
}

#[test]
fn the_journal_keeps_at_most_1_gib_of_originals_but_always_the_newest_record() {
    let t = Tree::empty();
    t.run(&["pending"]).ok();
    let mib = 1 << 20;
    fake_undo_record(&t, 1_001, "ae-a", 300 * mib);
    fake_undo_record(&t, 1_002, "ae-b", 600 * mib);
    fake_undo_record(&t, 1_003, "ae-c", 400 * mib);
    t.run(&["pending"]).ok();
    assert_eq!(journal_names(&t), [format!("{:020}-ae-b", 1_002), format!("{:020}-ae-c", 1_003)]);
    // One record larger than the budget is still kept when it is the newest.
    fake_undo_record(&t, 1_004, "ae-d", 1_200 * mib);
    let r = t.run(&["pending"]).ok();
    assert_eq!(journal_names(&t), [format!("{:020}-ae-d", 1_004)]);
    assert!(r.stdout.contains("Keeping 1 undo record (1.2 GiB; the newest 20, up to 1.0 GiB)"), "{}", r.stdout);
}

#[test]
fn an_apply_prunes_the_journal_right_away() {
    let t = Tree::fixtures();
    t.run(&["pending"]).ok();
    for i in 1..=20u64 {
        fake_undo_record(&t, 1_000 + i, &format!("ae-old{i:03}"), 10);
    }
    stage(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let names = journal_names(&t);
    assert_eq!(names.len(), 20, "{names:?}");
    assert!(names[0].ends_with("-ae-old002"), "the oldest went: {names:?}");
    assert!(!names.iter().any(|n| n.ends_with("-ae-old001")));
    // The apply's own record is the newest, and undo restores it.
    t.run(&["undo"]).ok();
    assert_eq!(t.read("python/test_app.py"), Tree::fixtures().read("python/test_app.py"));
}

#[test]
fn resolved_records_are_kept_30_days() {
    let t = Tree::empty();
    let old = propose_cmd(&t, "Old", "true");
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    let young = propose_cmd(&t, "Young", "true");
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    let f = std::fs::File::options().write(true).open(resolved_path(&t, &old)).unwrap();
    f.set_modified(days_ago(31)).unwrap();
    drop(f);
    let f = std::fs::File::options().write(true).open(resolved_path(&t, &young)).unwrap();
    f.set_modified(days_ago(29)).unwrap();
    drop(f);
    let r = t.run(&["pending"]).ok();
    assert!(r.stdout.contains("and 1 resolved id for 30 days"), "{}", r.stdout);
    assert!(!resolved_path(&t, &old).exists());
    let r = t.run(&["resolve", "discard", "--reason", "r", "--id", &old]).code(1);
    assert!(r.stderr.starts_with(&format!("No pending action with id `{old}`")), "{}", r.stderr);
    let r = t.run(&["resolve", "discard", "--reason", "r", "--id", &young]).code(1);
    assert!(r.stderr.starts_with(&format!("Action `{young}` was already discarded at ")), "{}", r.stderr);
}

#[test]
fn pending_clear_drops_every_action_once_confirmed() {
    let t = Tree::fixtures();
    let a = stage(&t);
    let b = propose_cmd(&t, "Cmd", "touch applied");
    let before = t.snapshot();
    // No terminal to ask on: --yes is required, and nothing is dropped without it.
    let r = t.run(&["pending", "--clear"]).code(2);
    assert_eq!(r.stderr, format!("error: pending --clear would drop 2 pending actions ({b}, {a}); confirm with --yes (stdin is not a terminal to ask on)\n"));
    assert_eq!(pending(&t).len(), 2);
    t.run(&["pending", "--yes"]).code(2);
    let r = t.run(&["pending", "--clear", "--yes", "--json"]).ok();
    let j: Value = r.json();
    let dropped: Vec<&str> = j["dropped"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(dropped, [b.as_str(), a.as_str()]);
    assert_eq!(j["dropped"][1]["files"], json!(["python/test_app.py"]));
    assert_eq!(t.snapshot(), before, "nothing applied, no command ran");
    assert!(pending(&t).is_empty());
    assert_eq!(read_json(&resolved_path(&t, &a))["resolution"], "cleared");
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", &b]).code(1);
    time_after(&r.stderr, &format!("Action `{b}` was dropped by `ast-edit pending --clear` at "));
    let r = t.run(&["pending", "--clear", "--yes"]).ok();
    assert_eq!(r.stdout, "No pending actions: nothing to clear.\n");
    let c = propose_cmd(&t, "C", "true");
    let r = t.run(&["pending", "--clear", "--yes"]).ok();
    assert_eq!(r.stdout, format!("Dropped 1 pending action: {c}.\n"));
}

// ---------------------------------------------------------------------------
// Waiting for the lock
// ---------------------------------------------------------------------------

/// True when a process waits for the flock of the file with inode `ino` (a
/// `->` line of `/proc/locks`).
#[cfg(target_os = "linux")]
fn someone_waits_for(ino: u64) -> bool {
    let locks = std::fs::read_to_string("/proc/locks").unwrap();
    locks.lines().any(|l| l.contains("->") && l.split_whitespace().any(|f| f.ends_with(&format!(":{ino}"))))
}

#[cfg(target_os = "linux")]
#[test]
fn a_command_waiting_for_the_store_lock_says_so_once() {
    use std::os::unix::fs::MetadataExt;
    let t = Tree::empty();
    propose_cmd(&t, "A", "true");
    let path = t.state.path().join("lock");
    let lock = std::fs::File::options().write(true).open(&path).unwrap();
    lock.lock().unwrap();
    let mut c = t.command(&["pending"]);
    c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    // Let it go only once the kernel lists it as waiting for the lock: it has
    // then given up on `try_lock` and blocks (without the message, before).
    let ino = std::fs::metadata(&path).unwrap().ino();
    while !someone_waits_for(ino) {
        assert!(child.try_wait().unwrap().is_none(), "`pending` ended while the lock was held");
        std::thread::sleep(Duration::from_millis(10));
    }
    lock.unlock().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "waiting for another ast-edit process (pending-action store locked)...\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("  A  [custom_tool]  by cli, yours\n"));
}

#[cfg(unix)]
#[test]
fn pending_clear_on_a_terminal_asks_how_many_before_dropping() {
    use rexpect::session::spawn_command;
    let t = Tree::empty();
    let a = propose_cmd(&t, "A", "true");
    let b = propose_cmd(&t, "B", "true");
    let mut p = spawn_command(t.command(&["pending", "--clear"]), Some(20_000)).unwrap();
    p.exp_string(&format!("  {b}  ")).unwrap();
    p.exp_string("  B  [custom_tool]  by cli, yours").unwrap();
    p.exp_string(&format!("  {a}  ")).unwrap();
    p.exp_string("Drop these 2 pending actions unresolved (no command runs)? [y/N] ").unwrap();
    p.send_line("").unwrap();
    p.exp_string("Nothing dropped.").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pending(&t).len(), 2, "declined: nothing dropped");
    let mut p = spawn_command(t.command(&["pending", "--clear"]), Some(20_000)).unwrap();
    p.exp_string("Drop these 2 pending actions unresolved (no command runs)? [y/N] ").unwrap();
    p.send_line("y").unwrap();
    p.exp_string(&format!("Dropped 2 pending actions: {b}, {a}.")).unwrap();
    p.exp_eof().unwrap();
    assert!(pending(&t).is_empty());
    assert_eq!(read_json(&resolved_path(&t, &a))["resolution"], "cleared");
}
