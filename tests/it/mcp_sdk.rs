//! The official MCP Python SDK as the client: it checks each result that is
//! not an error against the tool's declared `outputSchema` and raises on one it
//! refuses, which an agent is then told is a failure (as every successful
//! `ast_undo` was, its `label` missing from the schema). `tests/data/sdk_session.py`
//! drives every tool through the real server; `common::conform` checks the same
//! with a JSON Schema validator in every other MCP test.

use crate::common::Tree;

#[test]
#[cfg_attr(not(mcp_sdk), ignore = "needs python3 with the MCP SDK: pip install mcp==1.12.4")]
fn the_python_sdk_accepts_every_result_of_every_tool() {
    let t = Tree::empty();
    t.write("a.py", "x = old_name(1)\n");
    t.write("b.py", "y = old_name(2)\nz = old_name(3)\n");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sdk_session.py");
    let out = std::process::Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_ast-edit"), &t.path().display().to_string()])
        .env("AST_EDIT_STATE_DIR", t.state.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the SDK refused a result:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let kinds: Vec<&str> = stdout.lines().collect();
    assert_eq!(kinds.len(), 14, "{stdout}");
    assert!(kinds.iter().all(|l| l.ends_with(" ok")), "{stdout}");
    for tool in ["ast_edit", "resolve", "ast_pending", "ast_undo", "ast_search", "ast_tree"] {
        assert!(kinds.iter().any(|l| l.starts_with(&format!("{tool} "))), "{tool}: {stdout}");
    }
}
