//! Reviewing one file of a big action over MCP: `ast_pending` with `id` and
//! `path` (a file, a folder or a glob, as `extra.files`) pages through only the
//! files it selects; a path that selects none names the files there are; a
//! diff too long for one page goes on with `diffOffset` until every line was
//! seen. Through the real server.

use crate::common::Tree;
use crate::common::mcp::{call, connect, text};
use serde_json::{Value, json};

#[tokio::test]
async fn ast_pending_shows_the_files_a_path_folder_or_glob_selects() {
    let t = Tree::empty();
    for i in 0..300 {
        t.write(&format!("pkg/m{i:03}.py"), format!("foo({i})\n"));
    }
    t.write("tests/test_a.py", "foo(1)\n");
    t.write("tests/deep/test_b.py", "foo(2)\n");
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]})).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    // Listed with what it does: labels alone are all alike.
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(
        text(&r).contains(&format!("{id}  ")) && text(&r).contains("AST Edit: 302 replacements in 302 files (`foo($A)` -> `bar($A)`)  [ast_edit]"),
        "{}",
        text(&r)
    );
    // One file among 302, by its path.
    let r = call(&c, "ast_pending", json!({"id": id, "path": "pkg/m137.py"})).await;
    let body = text(&r);
    assert!(body.contains("\nFiles 1 to 1 of 1 selected by path `pkg/m137.py` (fileOffset 0):\n"), "{body}");
    assert!(body.contains("-foo(137)\n+bar(137)"), "{body}");
    assert!(body.ends_with("This is the last page. Apply or discard the whole action with `resolve`."), "{body}");
    let s = r.structured_content.as_ref().unwrap();
    assert_eq!((s["fileCount"].as_u64(), s["path"].as_str()), (Some(1), Some("pkg/m137.py")));
    // A folder, and a glob by file name.
    let r = call(&c, "ast_pending", json!({"id": id, "path": "tests"})).await;
    assert_eq!(r.structured_content.as_ref().unwrap()["fileCount"], 2);
    let r = call(&c, "ast_pending", json!({"id": id, "path": "test_*.py"})).await;
    let files: Vec<&str> = r.structured_content.as_ref().unwrap()["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files, ["tests/deep/test_b.py", "tests/test_a.py"]);
    // Paging keeps the path.
    let r = call(&c, "ast_pending", json!({"id": id, "path": "pkg/m1*.py", "limit": 2})).await;
    assert!(
        text(&r).ends_with(&format!(
            "Next page: `ast_pending` {{\"id\": \"{id}\", \"path\": \"pkg/m1*.py\", \"fileOffset\": 2}}. Apply or discard the whole action with `resolve`."
        )),
        "{}",
        text(&r)
    );
    assert_eq!(r.structured_content.as_ref().unwrap()["fileCount"], 100);
    // Nothing selected: the files there are.
    let r = call(&c, "ast_pending", json!({"id": id, "path": "src"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).starts_with(&format!("path `src` selects none of the 302 files of pending action {id}: give a file, a folder or a glob of its files")),
        "{}",
        text(&r)
    );
    assert!(text(&r).ends_with(", and 282 more"), "{}", text(&r));
    let r = call(&c, "ast_pending", json!({"path": "tests"})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).starts_with("fileOffset, diffOffset, limit and path page through one action's files: give its `id` too"), "{}", text(&r));
    c.cancel().await.unwrap();
}

/// The diff of a file with 2,400 changed lines is longer than a page: each page
/// shows the lines that fit and the call for the rest (`diffOffset`), and the
/// pages hold the whole diff, each line once, in order, as `show --json` has it.
#[tokio::test]
async fn one_file_s_long_diff_pages_with_diff_offset_until_every_line_was_seen() {
    let t = Tree::empty();
    let body: String = (0..2400).map(|i| format!("x{i} = foo({i}, 'a rather long argument to make the lines of this diff longer')\n")).collect();
    t.write("big.py", &body);
    t.write("small.py", "foo(1, 2)\n");
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A, $B)", "out": "bar($A, $B)"}], "contextLines": 0})).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    let whole: Value = serde_json::from_slice(&t.command(&["show", &id, "--json"]).output().unwrap().stdout).unwrap();
    let whole = whole["files"][0]["diff"].as_str().unwrap().to_string();
    assert_eq!(whole.lines().count(), 3 + 2 * 2400, "headers and one hunk, then one - and one + line per call");

    let mut seen = String::new();
    let mut args = json!({"id": id, "path": "big.py"});
    let mut pages = 0;
    loop {
        let r = call(&c, "ast_pending", args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let s = r.structured_content.clone().unwrap();
        let diff = s["files"][0]["diff"].as_str().unwrap();
        pages += 1;
        let Some(next) = s["nextDiffOffset"].as_u64() else {
            assert_eq!(s["truncated"], false);
            seen.push_str(diff);
            assert!(text(&r).contains("This is the last page."), "{}", text(&r));
            break;
        };
        assert_eq!(s["truncated"], true);
        assert_eq!(s["diffLines"], 3 + 2 * 2400);
        let (shown, note) = diff.rsplit_once("… ").unwrap();
        assert!(note.contains(&format!("\"diffOffset\": {next}")), "{note}");
        seen.push_str(shown);
        assert_eq!(seen.lines().count() as u64, next, "the lines before nextDiffOffset");
        assert!(
            text(&r).ends_with(&format!("Rest of this diff: `ast_pending` {{\"id\": \"{id}\", \"path\": \"big.py\", \"fileOffset\": 0, \"diffOffset\": {next}}}. Apply or discard the whole action with `resolve`.")),
            "{}",
            text(&r)
        );
        args = json!({"id": id, "path": "big.py", "fileOffset": 0, "diffOffset": next});
    }
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(seen, whole, "the pages hold the whole diff, each line once");

    // Without `path`, the file at fileOffset; past its last line, an error that says how many there are.
    let r = call(&c, "ast_pending", json!({"id": id, "fileOffset": 1, "diffOffset": 3})).await;
    assert_eq!(r.structured_content.as_ref().unwrap()["files"][0]["path"], "small.py");
    assert_eq!(r.structured_content.as_ref().unwrap()["files"][0]["diff"], "-foo(1, 2)\n+bar(1, 2)\n");
    let r = call(&c, "ast_pending", json!({"id": id, "path": "small.py", "diffOffset": 5})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(text(&r), "diffOffset 5 is past the last line: the diff of small.py has 5 lines (diffOffset 0 to 4).");
    c.cancel().await.unwrap();
}
