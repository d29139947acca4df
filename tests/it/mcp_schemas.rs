//! Every tool result is valid against the `outputSchema` its tool declares, as a
//! strict SDK client checks it (the official Python SDK refuses a result whose
//! `structuredContent` its tool's schema does not accept, and tells the agent the
//! call failed). Every MCP test checks each result it receives
//! (`common::conform`); this one drives each tool through each kind of result
//! (success, refusal, error, paged or cut) through the real server and checks that
//! it saw them all, and that the validator refuses what the schemas rule out.

use std::collections::BTreeSet;

use crate::common::conform::schema_errors;
use crate::common::mcp::{Env, call, is_error, serve, structured, text};
use serde_json::{Value, json};

/// `count` Python files under `root/pkg/`, each with one `old_name` call.
fn many_files(env: &Env, count: usize) {
    let dir = env.root.join("pkg");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..count {
        std::fs::write(dir.join(format!("mod_{i:04}.py")), format!("def handler_{i}():\n    x = old_name({i})\n    return x\n")).unwrap();
    }
}

fn rename(paths: &[&str]) -> Value {
    json!({"ops": [{"pat": "old_name($A)", "out": "new_name($A)"}], "lang": "py", "paths": paths})
}

#[tokio::test]
async fn every_tool_gives_results_its_own_output_schema_accepts_in_every_kind() {
    let env = Env::empty();
    many_files(&env, 400);
    std::fs::write(env.root.join("one.py"), "y = old_name(1)\n").unwrap();
    let c = serve(&env.root, &env.state).await;
    // (tool, kind) of every result seen; `call` has checked each against its schema.
    let mut seen = BTreeSet::new();
    let mut saw = |tool: &str, kind: &str, r: &rmcp::model::CallToolResult| {
        let error = is_error(r);
        assert_eq!(error, kind.starts_with("error") || kind.starts_with("refusal"), "{tool} {kind}: {}", text(r));
        seen.insert(format!("{tool} {kind}"));
    };

    // ast_edit: staged and cut (400 files do not fit 40,000 characters), no changes, error.
    let r = call(&c, "ast_edit", rename(&["pkg"])).await;
    assert_eq!(structured(&r)["truncated"], true);
    let big = structured(&r)["id"].as_str().unwrap().to_string();
    saw("ast_edit", "success, cut", &r);
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "not_there($A)", "out": "x($A)"}], "lang": "py"})).await;
    assert_eq!(structured(&r)["status"], "no_changes");
    saw("ast_edit", "success, no changes", &r);
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "foo(", "out": "x"}], "lang": "py"})).await;
    saw("ast_edit", "error", &r);

    // ast_pending: the list, a page that leaves files out, the last page, an error.
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(structured(&r)["actions"].is_array());
    saw("ast_pending", "success, list", &r);
    let r = call(&c, "ast_pending", json!({"id": big, "limit": 5})).await;
    assert_eq!(structured(&r)["nextFileOffset"], 5);
    saw("ast_pending", "success, paged", &r);
    let r = call(&c, "ast_pending", json!({"id": big, "fileOffset": 399})).await;
    saw("ast_pending", "success, last page", &r);
    let r = call(&c, "ast_pending", json!({"id": "ae-ffffff"})).await;
    saw("ast_pending", "error", &r);

    // resolve: a refusal (a file changed since the preview), an apply, a discard, an error.
    std::fs::write(env.root.join("pkg/mod_0000.py"), "x = old_name(0)  # changed\n").unwrap();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "id": big})).await;
    assert!(structured(&r)["error"].is_string(), "{}", text(&r));
    saw("resolve", "refusal, stale", &r);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r", "id": big, "extra": {"stale": "skip"}})).await;
    saw("resolve", "success, partial", &r);
    let r = call(&c, "ast_edit", rename(&["one.py"])).await;
    saw("ast_edit", "success, staged", &r);
    let r = call(&c, "resolve", json!({"action": "discard", "reason": "r"})).await;
    saw("resolve", "success, discard", &r);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    saw("resolve", "error, nothing pending", &r);
    let r = call(&c, "ast_edit", rename(&["one.py"])).await;
    saw("ast_edit", "success, staged", &r);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    saw("resolve", "success, apply", &r);

    // ast_undo: an undo (of one file), one cut (399 files fit 40,000 characters
    // whole, so only counted), a refusal.
    let r = call(&c, "ast_undo", json!({})).await;
    assert_eq!(structured(&r)["status"], "restored", "{}", text(&r));
    saw("ast_undo", "success", &r);
    let r = call(&c, "ast_undo", json!({"id": big})).await;
    saw("ast_undo", "success, many files", &r);
    let r = call(&c, "ast_undo", json!({})).await;
    saw("ast_undo", "refusal, nothing to undo", &r);

    // ast_search: a page that leaves matches out, zero matches, an error.
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "old_name($A)"}], "lang": "py", "limit": 3})).await;
    assert_eq!(structured(&r)["nextOffset"], 3);
    saw("ast_search", "success, paged", &r);
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "not_there($A)"}], "lang": "py"})).await;
    saw("ast_search", "success, zero", &r);
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "old_name($A)"}], "lang": "py", "offset": 100000})).await;
    saw("ast_search", "error", &r);

    // ast_tree: a snippet, a pattern, one cut at its caps, an error.
    let r = call(&c, "ast_tree", json!({"code": "f(x)", "lang": "py"})).await;
    saw("ast_tree", "success", &r);
    let r = call(&c, "ast_tree", json!({"code": "f($A)", "lang": "py", "isPattern": true})).await;
    assert!(structured(&r)["patternRoot"].is_string());
    saw("ast_tree", "success, pattern", &r);
    let r = call(&c, "ast_tree", json!({"code": "x = [".to_string() + &"1, ".repeat(400) + "]", "lang": "py"})).await;
    assert_eq!(structured(&r)["truncated"], true);
    saw("ast_tree", "success, cut", &r);
    let r = call(&c, "ast_tree", json!({"code": "x", "lang": "klingon"})).await;
    saw("ast_tree", "error", &r);

    let tools: BTreeSet<&str> = seen.iter().map(|k| k.split(' ').next().unwrap()).collect();
    assert_eq!(tools, BTreeSet::from(["ast_edit", "ast_pending", "ast_search", "ast_tree", "ast_undo", "resolve"]));
    assert_eq!(seen.len(), 23, "{seen:#?}");
}

/// The validator is no rubber stamp: what a schema rules out (a key it does not
/// list, a required key missing, a value of another type) is refused.
#[tokio::test]
async fn the_check_refuses_what_the_schemas_rule_out() {
    let env = Env::empty();
    std::fs::write(env.root.join("one.py"), "y = old_name(1)\n").unwrap();
    let c = serve(&env.root, &env.state).await;
    call(&c, "ast_edit", rename(&["one.py"])).await;
    call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    let r = call(&c, "ast_undo", json!({})).await;
    let good = structured(&r).clone();
    assert!(schema_errors("ast_undo", &good).is_empty());
    let mut extra = good.clone();
    extra["notInTheSchema"] = json!(1);
    assert!(!schema_errors("ast_undo", &extra).is_empty());
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("status");
    assert!(!schema_errors("ast_undo", &missing).is_empty());
    let mut wrong = good;
    wrong["restored"] = json!("one.py");
    assert!(!schema_errors("ast_undo", &wrong).is_empty());
}
