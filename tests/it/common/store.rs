//! Helpers for tests that look into the pending-action store of a [`Tree`]:
//! staging and proposing through the binary, the paths and JSON of its entries
//! and resolved records, and the "already resolved" time in a message.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::json::PendingRow;
use super::{ASSERT_OUT, ASSERT_PAT, Tree};

/// `python/test_app.py` of the fixtures after the assertEquals edit.
pub const APPLIED_TEST_APP: &str = "import unittest\n\nfrom app import fetch_data\n\n\nclass AppTest(unittest.TestCase):\n    def test_fetch(self):\n        self.assertEqual(fetch_data(\"a.txt\"), \"a\")\n        self.assertEqual(len(fetch_data(\"b.txt\")), 1)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

/// Stages the assertEquals edit (python/test_app.py, 2 replacements); returns its id.
pub fn stage(t: &Tree) -> String {
    let v: Value = t.run(&["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "-l", "py", "--json"]).ok().json();
    v["id"].as_str().expect("staged").to_string()
}

/// Stages a command action running `cmd`; returns its id.
pub fn propose_cmd(t: &Tree, label: &str, cmd: &str) -> String {
    let v: Value = t.run(&["propose", "--label", label, "--apply-cmd", cmd, "--json"]).ok().json();
    v["id"].as_str().unwrap().to_string()
}

/// `ast-edit pending --json`.
pub fn pending(t: &Tree) -> Vec<PendingRow> {
    t.run(&["pending", "--json"]).ok().json()
}

/// The file of the pending entry `id`.
pub fn entry_path(t: &Tree, id: &str) -> PathBuf {
    t.state.path().join("pending").join(format!("{id}.json"))
}

/// The file of the resolved record of `id`.
pub fn resolved_path(t: &Tree, id: &str) -> PathBuf {
    t.state.path().join("resolved").join(format!("{id}.json"))
}

/// The JSON in the file `p`.
pub fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// Rewrites the pending entry `id` with `change` applied to its JSON.
pub fn edit_entry(t: &Tree, id: &str, change: impl FnOnce(&mut Value)) {
    let p = entry_path(t, id);
    let mut e = read_json(&p);
    change(&mut e);
    std::fs::write(&p, e.to_string()).unwrap();
}

/// The RFC 3339 time in `text` right after `prefix` and before `; nothing to do.`
#[track_caller]
pub fn time_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    let rest = text.strip_prefix(prefix).unwrap_or_else(|| panic!("`{text}` does not start with `{prefix}`"));
    let at = rest.strip_suffix("; nothing to do.\n").unwrap_or_else(|| panic!("`{text}` does not end as expected"));
    assert!(humantime::parse_rfc3339(at).is_ok(), "`{at}` is not RFC 3339");
    at
}
