//! Overlapping matches over MCP, in the server's words: two ops on one node
//! are named as `ops[i]`, with which wins and how to express the other (a second
//! run cannot help), and the advice works; nested matches point to a second
//! call or `rewriteNested`, whose counts are the sites rewritten (every nested
//! one included) in the text, the preview, the apply report and on disk.

use crate::common::Tree;
use crate::common::mcp::{call, connect, structured, text};
use serde_json::json;

const TEST: &str = "class T:\n    def test(self):\n        self.assertEqual(f(1), 2)\n        self.assertEqual(g(1), 3)\n";

#[tokio::test]
async fn two_ops_on_one_node_say_which_wins_and_how_to_write_the_other() {
    let t = Tree::empty();
    t.write("t.py", TEST);
    let c = connect(&t).await;
    let general = json!({"pat": "self.assertEqual($A, $B)", "out": "assert $A == $B"});
    let special = json!({"pat": "self.assertEqual($A, 2)", "out": "assert $A == 2, \"two\""});
    let r = call(&c, "ast_edit", json!({"ops": [general, special]})).await;
    let body = text(&r);
    assert!(body.starts_with("AST Edit: 2 replacements in 1 file (searched 1 file, 1 match lost to another op on the same code)\n"), "{body}");
    let note = "t.py:3: `ops[1]` matches the same code as `ops[0]`, which comes first and wins (one edit per node; applying and running again cannot help, the code is gone). To rewrite such code with `ops[1]`, put it first, or write `ops[0]` as a `rule` whose `not:` or `constraints` keep it off such code.";
    assert_eq!(structured(&r)["warnings"], json!([note]));
    assert_eq!(structured(&r)["overlapped"], json!([{"path": "t.py", "line": 3, "rule": "op-1", "keptRule": "op-0", "sameNode": true}]));
    for word in ["scan", "run the same edit", "second run"] {
        assert!(!body.contains(word), "{word}: {body}");
    }
    // The advice: the special op first.
    call(&c, "resolve", json!({"action": "discard", "reason": "reorder"})).await;
    let r = call(&c, "ast_edit", json!({"ops": [special, general]})).await;
    assert!(structured(&r)["warnings"][0].as_str().unwrap().starts_with("t.py:3: `ops[1]` matches the same code as `ops[0]`"));
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(t.read("t.py"), "class T:\n    def test(self):\n        assert f(1) == 2, \"two\"\n        assert g(1) == 3\n");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn nested_matches_point_to_rewrite_nested_whose_counts_are_every_site() {
    let t = Tree::empty();
    t.write("n.py", "y = f(f(f(1)))\nz = f(2)\n");
    let c = connect(&t).await;
    let op = json!([{"pat": "f($X)", "out": "g($X)"}]);
    let r = call(&c, "ast_edit", json!({"ops": op})).await;
    assert!(text(&r).starts_with("AST Edit: 2 replacements in 1 file (searched 1 file, 2 nested matches left for a second run)\n"), "{}", text(&r));
    assert_eq!(
        structured(&r)["warnings"],
        json!([
            "2 matches nested in or overlapping another match were not rewritten (the outermost wins); call `ast_edit` again after applying, or with `rewriteNested` set, to rewrite them."
        ])
    );
    call(&c, "resolve", json!({"action": "discard", "reason": "nested"})).await;
    let r = call(&c, "ast_edit", json!({"ops": op, "rewriteNested": true})).await;
    assert!(text(&r).starts_with("AST Edit: 4 replacements in 1 file (searched 1 file)\n"), "{}", text(&r));
    let s = structured(&r);
    assert_eq!((s["totalReplacements"].as_u64(), s["files"][0]["replacements"].as_u64(), s["overlaps"].as_u64()), (Some(4), Some(4), Some(0)));
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert!(text(&r).starts_with("Applied 4 replacements in 1 file.\n"), "{}", text(&r));
    assert_eq!(structured(&r)["sourceResultDetails"]["totalReplacements"], 4);
    assert_eq!(t.read("n.py"), "y = g(g(g(1)))\nz = g(2)\n");
    c.cancel().await.unwrap();
}
