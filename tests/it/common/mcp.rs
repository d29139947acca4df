//! The MCP side of the harness: the real server started in a tree, and the
//! calls an rmcp client makes to it.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

use super::Tree;

/// A connected client.
pub type Client = RunningService<RoleClient, ()>;

/// A connected client that gave a name in `initialize` ([`serve_as`]).
pub type Named = RunningService<RoleClient, ClientConfig>;

/// `ast-edit mcp` rooted in `root`, with the pending store in `state`; its
/// stderr is dropped.
pub async fn serve(root: &Path, state: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"));
    cmd.arg("mcp").current_dir(root).env("AST_EDIT_STATE_DIR", state);
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    ().serve(transport).await.expect("initialize")
}

/// `ast-edit mcp` rooted in `root`, with the pending store in `state` and the
/// extra environment `env`, connected by a client that calls itself `name`
/// (`clientInfo.name` of `initialize`); its stderr is dropped. Each call starts a
/// new server process: a session of its own.
pub async fn serve_as(root: &Path, state: &Path, name: &str, env: &[(&str, &str)]) -> Named {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"));
    cmd.arg("mcp").current_dir(root).env("AST_EDIT_STATE_DIR", state).env_remove("AST_EDIT_STANDING_CMD");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    let config = ClientConfig::new(ClientCapabilities::default(), Implementation::new(name, "1.0.0"));
    config.serve(transport).await.expect("initialize")
}

/// The server rooted in tree `t`, with the tree's own store.
pub async fn connect(t: &Tree) -> Client {
    serve(t.path(), t.state.path()).await
}

/// Calls `tool` with `args` (a JSON object); the result is checked against the
/// tool's output schema ([`super::conform::conforms`]).
pub async fn call<H: ClientHandler>(client: &RunningService<RoleClient, H>, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else { panic!("arguments must be an object") };
    let r = client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map)).await.expect("a tool result");
    super::conform::conforms(tool, &r);
    r
}

/// The result's text: its one content block.
pub fn text(r: &CallToolResult) -> &str {
    assert_eq!(r.content.len(), 1, "one text block: {r:?}");
    &r.content[0].as_text().expect("text content").text
}

/// The result's `structuredContent`, which it must have.
pub fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structuredContent")
}

/// Whether the result is a tool error (`isError: true`).
pub fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

/// A temp folder for a server: `root/` (its root), `state/`
/// (`AST_EDIT_STATE_DIR`) and `outside/` (beside the root, where it must not
/// reach).
pub struct Env {
    _dir: tempfile::TempDir,
    /// The folder holding the three.
    pub base: PathBuf,
    pub root: PathBuf,
    pub state: PathBuf,
}

impl Env {
    /// An empty root.
    pub fn empty() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (root, state) = (base.join("root"), base.join("state"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        Env { _dir: dir, base, root, state }
    }

    /// A root holding a copy of `fixtures/`, and `outside/secret.py`, which
    /// the server must never touch.
    pub fn fixtures() -> Self {
        let env = Env::empty();
        super::copy_dir(&super::fixtures(), &env.root);
        // A git work tree, as a checkout: its `.gitignore` counts only inside one.
        std::fs::create_dir(env.root.join(".git")).unwrap();
        std::fs::write(env.base.join("outside/secret.py"), "self.assertEquals(1, 1)\n").unwrap();
        env
    }

    /// The text of `rel` under the root.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// Runs the CLI in `cwd` with this env's state dir.
    pub fn cli(&self, cwd: &Path, args: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"))
            .args(args)
            .current_dir(cwd)
            .env("AST_EDIT_STATE_DIR", &self.state)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }
}
