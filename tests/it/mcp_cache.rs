//! The scan cache through the MCP server (docs/DESIGN.md section 2.14; the
//! CLI's side: scan_cache.rs): `ast_edit` and `ast_search` with rules read and
//! store it in the workspace's state folder, which the CLI shares; `resolve`
//! stores what the rules make of the files it wrote; `mcp --no-cache` reads
//! and writes nothing. Warm results are the cold ones byte for byte, and an
//! entry edited by hand shows (how a test knows a hit is not a second parse).

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolResult;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::common::Tree;
use crate::common::mcp::{Client, call, connect, structured, text};
use crate::scan_cache::{COUNT, PREVIEW, no_ids, packs, project, records, tamper};

/// `ast-edit mcp --no-cache` in `t`, with `t`'s state folder.
async fn serve_without_cache(t: &Tree) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"));
    cmd.args(["mcp", "--no-cache"]).current_dir(t.path()).env("AST_EDIT_STATE_DIR", t.state.path());
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("initialize")
}

/// A result's text and `structuredContent`, with the pending ids masked.
fn shown(r: &CallToolResult) -> (String, String) {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    (no_ids(text(r)), no_ids(&structured(r).to_string()))
}

/// `ast_edit` of the project's rules, the action it stages dropped after.
async fn edit(c: &Client) -> CallToolResult {
    let r = call(c, "ast_edit", json!({"project": "."})).await;
    call(c, "resolve", json!({"action": "discard", "reason": "preview again"})).await;
    r
}

#[tokio::test]
async fn ast_edit_of_rules_is_served_from_the_cache_the_cli_shares() {
    let t = project();
    let c = connect(&t).await;
    let cold = edit(&c).await;
    assert_eq!(records(t.state.path(), PREVIEW), 2, "a.py and c.py");
    let stored = packs(t.state.path());
    assert_eq!(shown(&edit(&c).await), shown(&cold));
    assert_eq!(packs(t.state.path()), stored, "a hit stores nothing new");
    // The CLI's preview of the same request reads the server's entries
    // (`scan` runs one rule more, `unused-suppression`: other keys; a text
    // preview draws its findings from reports: other entries).
    t.write("req.json", r#"{"project": "."}"#);
    t.run(&["run", "--request", "req.json", "--json"]).ok();
    assert_eq!(packs(t.state.path()), stored);
    tamper(t.state.path(), "compare with is", "COMPARE WITH IS");
    assert!(text(&edit(&c).await).contains("COMPARE WITH IS"));
    let fresh = serve_without_cache(&t).await;
    assert_eq!(shown(&edit(&fresh).await), shown(&cold));
}

#[tokio::test]
async fn ast_search_of_rules_is_served_from_the_cache() {
    let t = project();
    let c = connect(&t).await;
    let rules: Value = json!({"rule": std::fs::read_to_string(t.path().join("rules/r.yml")).unwrap()});
    let cold = call(&c, "ast_search", rules.clone()).await;
    assert_eq!(records(t.state.path(), COUNT), 2, "a.py and c.py");
    let stored = packs(t.state.path());
    assert_eq!(shown(&call(&c, "ast_search", rules.clone()).await), shown(&cold));
    assert_eq!(packs(t.state.path()), stored);
    tamper(t.state.path(), "compare with is", "COMPARE WITH IS");
    assert!(text(&call(&c, "ast_search", rules.clone()).await).contains("COMPARE WITH IS"));
    let fresh = serve_without_cache(&t).await;
    assert_eq!(shown(&call(&fresh, "ast_search", rules).await), shown(&cold));
    // `mcp --no-cache` reads and writes nothing.
    let t = project();
    call(&serve_without_cache(&t).await, "ast_search", json!({"project": "."})).await;
    assert!(packs(t.state.path()).is_empty());
}

/// `ast_edit` of the project's rules, then `resolve` applying it.
async fn edit_and_apply(c: &Client) {
    call(c, "ast_edit", json!({"project": "."})).await;
    let r = call(c, "resolve", json!({"action": "apply", "reason": "fix"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
}

#[tokio::test]
async fn resolve_stores_what_the_rules_make_of_the_files_it_wrote() {
    let t = project();
    let c = connect(&t).await;
    edit_and_apply(&c).await;
    assert_eq!(records(t.state.path(), PREVIEW), 3, "a.py's old and new bytes, c.py's old ones");
    let stored = packs(t.state.path());
    let warm = call(&c, "ast_edit", json!({"project": "."})).await;
    assert_eq!(packs(t.state.path()), stored, "served from the cache");
    assert_eq!(structured(&warm)["status"], "no_changes");
    assert_eq!(shown(&warm), shown(&call(&serve_without_cache(&t).await, "ast_edit", json!({"project": "."})).await));
}

#[tokio::test]
async fn mcp_no_cache_reads_and_writes_nothing() {
    let t = project();
    edit_and_apply(&serve_without_cache(&t).await).await;
    assert!(packs(t.state.path()).is_empty());
}
