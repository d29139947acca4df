//! Reviewing one file of a big action over MCP: `ast_pending` with `id` and
//! `path` (a file, a folder or a glob, as `extra.files`) pages through only the
//! files it selects; a path that selects none names the files there are.
//! Through the real server.

use crate::common::Tree;
use crate::common::mcp::{call, connect, text};
use serde_json::json;

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
    assert!(text(&r).starts_with("fileOffset, limit and path page through one action's files: give its `id` too"), "{}", text(&r));
    c.cancel().await.unwrap();
}
