//! The MCP side of the harness: the real server started in a tree, and the
//! calls an rmcp client makes to it.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use super::Tree;

/// A connected client.
pub type Client = RunningService<RoleClient, ()>;

/// `ast-edit mcp` rooted in `root`, with the pending store in `state`; its
/// stderr is dropped.
pub async fn serve(root: &Path, state: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"));
    cmd.arg("mcp").current_dir(root).env("AST_EDIT_STATE_DIR", state);
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("initialize")
}

/// The server rooted in tree `t`, with the tree's own store.
pub async fn connect(t: &Tree) -> Client {
    serve(t.path(), t.state.path()).await
}

/// Calls `tool` with `args` (a JSON object).
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else { panic!("arguments must be an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map)).await.expect("a tool result")
}

/// The result's text: its one content block.
pub fn text(r: &CallToolResult) -> &str {
    assert_eq!(r.content.len(), 1, "one text block: {r:?}");
    &r.content[0].as_text().expect("text content").text
}
