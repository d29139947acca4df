//! The MCP server end to end: the real binary (`ast-edit mcp`) as a child process,
//! driven by rmcp's client over stdio, in a temp folder holding a copy of
//! `fixtures/` and with its own `AST_EDIT_STATE_DIR`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::files_under;
use crate::common::mcp::{Env, is_error, structured};
use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_ast-edit");

const REMINDER: &str = "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>";
const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

const PREVIEW_KEYS: [&str; 22] = [
    "applied",
    "brokenBefore",
    "brokenBeforeOmitted",
    "editsChecked",
    "files",
    "filesOmitted",
    "filesSearched",
    "filesTouched",
    "findings",
    "id",
    "label",
    "layoutFallbacks",
    "limitReached",
    "overlapped",
    "overlaps",
    "skipped",
    "skippedByLimits",
    "sourceToolName",
    "status",
    "totalReplacements",
    "truncated",
    "warnings",
];

/// The server of `env`, with a client that records progress notifications.
trait Connect {
    async fn connect(&self) -> Client;
    async fn connect_with(&self, vars: &[(&str, &str)]) -> Client;
}

impl Connect for Env {
    async fn connect(&self) -> Client {
        self.connect_with(&[]).await
    }

    async fn connect_with(&self, vars: &[(&str, &str)]) -> Client {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.arg("mcp").current_dir(&self.root).env("AST_EDIT_STATE_DIR", &self.state);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
        let handler = Recorder::default();
        let progress = handler.progress.clone();
        let service = handler.serve(transport).await.expect("initialize");
        Client { service, progress }
    }
}

/// The client side: records progress notifications.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params);
    }
}

struct Client {
    service: RunningService<RoleClient, Recorder>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl Client {
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args else { panic!("arguments must be an object") };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(map);
        let r = self.service.call_tool(params).await.expect("a tool result, not a protocol error");
        crate::common::conform::conforms(tool, &r);
        r
    }

    async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

fn text(r: &CallToolResult) -> String {
    assert_eq!(r.content.len(), 1, "one text block: {r:?}");
    r.content[0].as_text().expect("text content").text.clone()
}

fn assert_equals_op() -> Value {
    json!({"ops": [{"pat": "self.assertEquals($A, $B)", "out": "self.assertEqual($A, $B)"}], "lang": "py", "paths": ["python/test_app.py"]})
}

fn fetch_op(paths: &[&str]) -> Value {
    json!({"ops": [{"pat": "fetch_data($$$ARGS)", "out": "load_data($$$ARGS)"}], "paths": paths})
}

#[tokio::test]
async fn initialize_and_list_tools_with_strict_schemas_and_annotations() {
    let env = Env::fixtures();
    let client = env.connect().await;
    let info = client.service.peer_info().expect("server info after initialize");
    assert_eq!(info.server_info.as_ref().unwrap().name, "ast-edit");
    assert!(info.capabilities.tools.is_some());
    assert!(info.instructions.as_deref().unwrap_or("").contains("resolve"));

    let tools = client.service.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["ast_edit", "resolve", "ast_pending", "ast_undo", "ast_tree", "ast_search"]);
    // The server's instructions and `ast-edit mcp --help` name every tool it lists.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_ast-edit")).args(["mcp", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for name in &names {
        assert!(info.instructions.as_deref().unwrap_or("").contains(&format!("`{name}`")), "the instructions do not name {name}");
        assert!(help.contains(&format!("`{name}`")), "mcp --help does not name {name}:\n{help}");
    }
    for t in &tools {
        let input = Value::Object((*t.input_schema).clone());
        assert_eq!(input["type"], "object", "{}", t.name);
        assert!(input["properties"].is_object());
        assert!(!input.to_string().contains("$ref"), "no $ref in {}", t.name);
        assert!(!input.to_string().contains("$defs"), "no $defs in {}", t.name);
        let output = Value::Object((**t.output_schema.as_ref().expect("output schema")).clone());
        assert_eq!(output["type"], "object");
        assert!(t.title.is_some());
        assert!(t.description.as_deref().is_some_and(|d| d.len() > 200), "{} teaches its use", t.name);
    }
    let ast_edit = &tools[0];
    let input = Value::Object((*ast_edit.input_schema).clone());
    // `ops` or `rule`: neither is required by the schema.
    assert!(input.get("required").is_none(), "{input}");
    assert_eq!(input["properties"]["ops"]["minItems"], 1);
    assert_eq!(input["properties"]["ops"]["items"]["required"], json!(["pat", "out"]));
    assert_eq!(input["properties"]["strictness"]["enum"], json!(["cst", "smart", "ast", "relaxed", "signature"]));
    for key in ["paths", "lang", "selector", "globs", "maxFiles"] {
        assert!(input["properties"][key].is_object(), "{key}");
    }
    let desc = ast_edit.description.as_deref().unwrap();
    for must in ["$A", "$$$ARGS", "`;`", "`resolve`"] {
        assert!(desc.contains(must), "description teaches {must}");
    }
    let a = ast_edit.annotations.as_ref().unwrap();
    assert_eq!(a.read_only_hint, Some(true));
    let output = Value::Object((**ast_edit.output_schema.as_ref().unwrap()).clone());
    let mut required: Vec<String> = serde_json::from_value(output["required"].clone()).unwrap();
    required.sort();
    // `id` is absent when nothing was staged (one type per key: never null).
    assert_eq!(required, PREVIEW_KEYS.iter().filter(|k| **k != "id").copied().collect::<Vec<_>>());

    let resolve = &tools[1];
    let input = Value::Object((*resolve.input_schema).clone());
    assert_eq!(input["required"], json!(["action", "reason"]));
    assert_eq!(input["properties"]["action"]["enum"], json!(["apply", "discard"]));
    assert_eq!(input["properties"]["extra"]["type"], "object");
    assert_eq!(input["properties"]["id"]["type"], "string");
    let a = resolve.annotations.as_ref().unwrap();
    assert_eq!(a.destructive_hint, Some(true));
    assert_eq!(a.read_only_hint, Some(false));
    client.close().await;
}

#[tokio::test]
async fn preview_leaves_files_alone_then_apply_writes_exactly_the_preview() {
    let env = Env::fixtures();
    let before = files_under(&env.root);
    let original = env.read("python/test_app.py");
    let client = env.connect().await;

    let r = client.call("ast_edit", assert_equals_op()).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(files_under(&env.root), before, "a preview writes nothing");
    let t = text(&r);
    assert!(t.ends_with(&format!("\n\n{REMINDER}")), "reminder at the end, exactly:\n{t}");
    assert_eq!(t.matches("<system-reminder>").count(), 1);
    assert!(t.starts_with("AST Edit: 2 replacements in 1 file (searched 1 file)"), "{t}");
    assert!(t.contains("  python/test_app.py  2 replacements\n"), "{t}");
    let d = structured(&r);
    let mut keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, PREVIEW_KEYS);
    assert_eq!(d["status"], "pending");
    assert_eq!(d["applied"], false);
    assert_eq!(d["sourceToolName"], "ast_edit");
    assert_eq!(d["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(d["totalReplacements"], 2);
    assert_eq!(d["filesTouched"], 1);
    let id = d["id"].as_str().unwrap().to_string();
    assert!(t.contains(&id), "the text names the id");
    let diff = d["files"][0]["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- a/python/test_app.py\n+++ b/python/test_app.py\n"), "{diff}");
    assert!(t.contains(diff), "a small diff is shown whole in the text");

    // Progress: start at 0, strictly increasing, ending at its total.
    let mut seen = Vec::new();
    for _ in 0..50 {
        seen = client.progress.lock().unwrap().clone();
        if seen.last().is_some_and(|p| Some(p.progress) == p.total) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen.len() >= 2, "{seen:?}");
    assert_eq!(seen[0].progress, 0.0);
    assert!(seen.windows(2).all(|w| w[1].progress > w[0].progress), "{seen:?}");
    let last = seen.last().unwrap();
    assert_eq!(Some(last.progress), last.total);
    assert!(last.message.as_deref().unwrap().contains(&id), "{last:?}");

    let r = client.call("resolve", json!({"action": "apply", "reason": "assertEquals is a deprecated alias"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(
        text(&r),
        format!("Applied 2 replacements in 1 file.\n  applied  python/test_app.py (2 replacements)\nTo undo: call `ast_undo` with `\"id\": \"{id}\"`")
    );
    let expected = original.replace("self.assertEquals(", "self.assertEqual(");
    assert_ne!(expected, original);
    assert_eq!(env.read("python/test_app.py"), expected);
    let mut after = files_under(&env.root);
    after.insert(PathBuf::from("python/test_app.py"), before[Path::new("python/test_app.py")].clone());
    assert_eq!(after, before, "no other file changed");
    let d = structured(&r);
    assert_eq!(d["action"], "apply");
    assert_eq!(d["reason"], "assertEquals is a deprecated alias");
    assert_eq!(d["sourceToolName"], "ast_edit");
    assert_eq!(d["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(d["sourceResultDetails"]["status"], "applied");
    // The preview showed the diff: the apply report's files carry no second copy.
    assert_eq!(d["sourceResultDetails"]["files"][0], json!({"path": "python/test_app.py", "replacements": 2, "status": "applied"}));
    assert!(!serde_json::to_string(d).unwrap().contains(&diff[..40]), "no diff in resolve's structuredContent");

    let again = client.call("resolve", json!({"action": "apply", "reason": "once more"})).await;
    assert!(is_error(&again));
    assert_eq!(text(&again), NOTHING_PENDING);
    client.close().await;
}

#[tokio::test]
async fn discard_says_what_was_dropped_and_writes_nothing() {
    let env = Env::fixtures();
    let before = files_under(&env.root);
    let client = env.connect().await;
    let r = client.call("ast_edit", fetch_op(&["python"])).await;
    let label = structured(&r)["label"].as_str().unwrap().to_string();
    assert!(label.starts_with("AST Edit: "), "{label}");
    let r = client.call("resolve", json!({"action": "discard", "reason": "wrong rename"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(text(&r), format!("Discarded: {label}. Reason: wrong rename"));
    assert_eq!(structured(&r)["action"], "discard");
    assert_eq!(files_under(&env.root), before);
    let r = client.call("resolve", json!({"action": "discard", "reason": "again"})).await;
    assert_eq!(text(&r), NOTHING_PENDING);
    client.close().await;
}

#[tokio::test]
async fn stacked_previews_resolve_newest_first_and_id_picks_an_older_one() {
    let env = Env::fixtures();
    let client = env.connect().await;
    let go_before = env.read("go/main.go");
    let app_before = env.read("python/app.py");
    let test_before = env.read("python/test_app.py");

    let a = client.call("ast_edit", assert_equals_op()).await;
    let b = client.call("ast_edit", fetch_op(&["go"])).await;
    let c = client.call("ast_edit", fetch_op(&["python/app.py"])).await;
    let ids: Vec<String> = [&a, &b, &c].iter().map(|r| structured(r)["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);

    // Newest first: discarding without id drops c.
    let r = client.call("resolve", json!({"action": "discard", "reason": "not this one"})).await;
    let c_label = structured(&c)["label"].as_str().unwrap();
    assert_eq!(text(&r), format!("Discarded: {c_label}. Reason: not this one"));
    // `id` picks the oldest, a.
    let r = client.call("resolve", json!({"action": "apply", "reason": "alias", "id": ids[0]})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(env.read("python/test_app.py"), test_before.replace("self.assertEquals(", "self.assertEqual("));
    assert_eq!(env.read("go/main.go"), go_before, "b is still pending");
    // Then the only one left, b.
    let r = client.call("resolve", json!({"action": "apply", "reason": "rename"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(env.read("go/main.go"), go_before.replace("fetch_data(\"config.json\")", "load_data(\"config.json\")"));
    assert_eq!(env.read("python/app.py"), app_before, "c was discarded");
    let r = client.call("resolve", json!({"action": "apply", "reason": "nothing left"})).await;
    assert_eq!(text(&r), NOTHING_PENDING);
    // An id resolved already is a tool error that says what became of it.
    let r = client.call("resolve", json!({"action": "apply", "reason": "x", "id": ids[0]})).await;
    assert!(is_error(&r));
    assert!(text(&r).starts_with(&format!("Action `{}` was already applied at ", ids[0])), "{}", text(&r));
    // An unknown id is a tool error too.
    let r = client.call("resolve", json!({"action": "apply", "reason": "x", "id": "ae-000000"})).await;
    assert!(is_error(&r));
    assert!(text(&r).contains("No pending action with id `ae-000000`"), "{}", text(&r));
    client.close().await;
}

#[tokio::test]
async fn zero_matches_is_a_plain_result_with_nothing_staged() {
    let env = Env::fixtures();
    let client = env.connect().await;
    let r = client.call("ast_edit", json!({"ops": [{"pat": "no_such_function($A)", "out": "other($A)"}], "paths": ["python"]})).await;
    assert!(!is_error(&r), "{r:?}");
    let t = text(&r);
    assert!(!t.contains("<system-reminder>"), "{t}");
    assert!(t.contains("nothing was staged"), "{t}");
    let d = structured(&r);
    assert_eq!(d["status"], "no_changes");
    assert_eq!(d["id"], Value::Null);
    assert_eq!(d["totalReplacements"], 0);
    let r = client.call("resolve", json!({"action": "apply", "reason": "x"})).await;
    assert_eq!(text(&r), NOTHING_PENDING);
    client.close().await;
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_and_the_server_keeps_serving() {
    let env = Env::fixtures();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.base.join("outside"), env.root.join("escape")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.base.join("outside/secret.py"), env.root.join("python/linked.py")).unwrap();
    let before = files_under(&env.root);
    let client = env.connect().await;
    let op = json!([{"pat": "self.assertEquals($A, $B)", "out": "self.assertEqual($A, $B)"}]);
    let mut cases: Vec<(&str, Value, &str)> = vec![
        ("resolve", json!({"action": "apply"}), "`reason` is required"),
        ("resolve", json!({"action": "apply", "reason": "  "}), "`reason` is required"),
        ("resolve", json!({"reason": "why"}), "`action` is required"),
        ("resolve", json!({"action": "maybe", "reason": "why"}), "`action` must be \"apply\" or \"discard\", not \"maybe\""),
        ("resolve", json!({"action": "apply", "reason": "why", "extra": "skip"}), "`extra` must be a JSON object"),
        ("resolve", json!({"action": "apply", "reason": "why", "force": true}), "unknown field `force`"),
        ("ast_edit", json!({"ops": []}), "no ops given"),
        ("ast_edit", json!({}), "no ops given"),
        ("ast_edit", json!({"ops": [{"pat": "a"}]}), "`ops[0]`: missing field `out`"),
        ("ast_edit", json!({"ops": op, "bogus": 1}), "unknown field `bogus`"),
        ("ast_edit", json!({"ops": op, "paths": "python"}), "`paths`: invalid type"),
        ("ast_edit", json!({"ops": op, "strictness": "loose"}), "unknown strictness `loose`"),
        ("ast_edit", json!({"ops": op, "lang": "klingon"}), "klingon"),
        ("ast_edit", json!({"ops": op, "paths": ["nope/missing.py"]}), "path not found: nope/missing.py"),
        ("ast_edit", json!({"ops": [{"pat": "foo(", "out": "bar("}], "lang": "py"}), "`foo(` does not parse cleanly as python"),
        ("ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($B)"}], "lang": "py"}), "$B"),
        ("ast_edit", json!({"ops": op, "paths": ["/etc"]}), "path `/etc` is outside the server's root"),
        ("ast_edit", json!({"ops": op, "paths": ["../outside"]}), "path `../outside` is outside the server's root"),
        ("ast_edit", json!({"ops": op, "paths": ["python/../../outside/secret.py"]}), "outside the server's root"),
    ];
    #[cfg(unix)]
    {
        cases.push(("ast_edit", json!({"ops": op, "paths": ["escape"]}), "path `escape` leads outside the server's root"));
        cases.push(("ast_edit", json!({"ops": op, "paths": ["escape/secret.py"]}), "through a symlink"));
        cases.push(("ast_edit", json!({"ops": op, "paths": ["python/linked.py"]}), "through a symlink"));
    }
    for (tool, args, want) in &cases {
        let r = client.call(tool, args.clone()).await;
        assert!(is_error(&r), "{tool} {args}: expected a tool error, got {r:?}");
        let t = text(&r);
        assert!(t.contains(want), "{tool} {args}: `{t}` lacks `{want}`");
        if *tool == "ast_edit" {
            assert!(r.structured_content.is_none(), "no preview details on errors");
        }
    }
    // An unknown tool is a protocol error, and the server survives that too.
    let params = CallToolRequestParams::new("no_such_tool").with_arguments(serde_json::Map::new());
    assert!(client.service.call_tool(params).await.is_err());

    // Nothing was staged or written by any of that, nothing outside was touched...
    assert_eq!(files_under(&env.root), before);
    assert_eq!(std::fs::read_to_string(env.base.join("outside/secret.py")).unwrap(), "self.assertEquals(1, 1)\n");
    let r = client.call("resolve", json!({"action": "discard", "reason": "check"})).await;
    assert_eq!(text(&r), NOTHING_PENDING);
    // ...and the server still works.
    let r = client.call("ast_edit", assert_equals_op()).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["status"], "pending");
    // A directory walk inside the root does not follow the symlinks out of it.
    let r = client.call("ast_edit", json!({"ops": op, "lang": "py"})).await;
    let files: Vec<&str> = structured(&r)["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files, ["python/test_app.py"]);
    client.close().await;
}

#[tokio::test]
async fn cli_and_mcp_share_pending_actions() {
    let env = Env::fixtures();
    let original = env.read("python/test_app.py");
    // Staged by the CLI...
    let out = env.cli(&env.root, &["run", "--json", "-l", "py", "-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)", "python"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let staged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = staged["id"].as_str().unwrap().to_string();
    // ...resolved through MCP, by id.
    let client = env.connect().await;
    let r = client.call("resolve", json!({"action": "apply", "reason": "staged from the CLI", "id": id})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["label"], staged["label"]);
    assert_eq!(env.read("python/test_app.py"), original.replace("self.assertEquals(", "self.assertEqual("));

    // Staged through MCP, listed and resolved by the CLI.
    let r = client.call("ast_edit", fetch_op(&["go"])).await;
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    let out = env.cli(&env.root, &["pending", "--json"]);
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["sourceToolName"], "ast_edit");
    let out = env.cli(&env.root, &["resolve", "discard", "--reason", "from the shell", "--id", &id]);
    assert!(out.status.success());

    // A command action a person proposed is resolved through MCP, by its id
    // (the command line's actions are another session's).
    let out = env.cli(&env.root, &["propose", "--label", "Touch a marker", "--apply-cmd", "echo done > marker.txt; echo wrote marker", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let proposed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = client.call("resolve", json!({"action": "apply", "reason": "person approved", "id": proposed["id"]})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(text(&r).trim(), "wrote marker");
    assert_eq!(structured(&r)["sourceToolName"], "custom_tool");
    assert_eq!(env.read("marker.txt"), "done\n");
    client.close().await;
}

/// A skip reason is kept typed with the action and worded by the front end
/// that shows it: a file over the size cap, staged through MCP (which has no
/// field to raise the cap), reads as a `--max-filesize` matter in the CLI's
/// `show`.
#[tokio::test]
async fn a_skip_reason_staged_through_mcp_is_worded_by_the_cli_that_shows_it() {
    let env = Env::fixtures();
    let big = std::fs::File::create(env.root.join("go/big.go")).unwrap();
    big.set_len(ast_edit::app::request::DEFAULT_MAX_FILESIZE + 1).unwrap();
    let client = env.connect().await;
    let r = client.call("ast_edit", fetch_op(&["go"])).await;
    let cap = ast_edit::app::request::DEFAULT_MAX_FILESIZE;
    let reason = |how: &str| format!("too large ({} bytes; the cap is {cap} bytes, {how})", cap + 1);
    let mcp = reason("`ast_edit` has no field to raise it: edit this file another way");
    assert_eq!(structured(&r)["skipped"], json!([{"path": "go/big.go", "reason": mcp, "limit": true}]), "{r:?}");
    assert_eq!(structured(&r)["skippedByLimits"], 1, "{r:?}");
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    client.close().await;
    let out = env.cli(&env.root, &["show", "--json", &id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["skipped"], json!([{"path": "go/big.go", "reason": reason("raise it with --max-filesize"), "limit": true}]));
}

/// The messages of compiling a request (here a pattern's hint) are kept typed
/// in the staged plan and worded by the front end that shows them.
#[tokio::test]
async fn a_compile_hint_staged_through_mcp_is_worded_by_the_cli_that_shows_it() {
    let env = Env::fixtures();
    let client = env.connect().await;
    let ops = json!([{"pat": "fetch_data($$$ARGS)", "out": "load_data($$$ARGS)"}, {"pat": "defer $F()", "out": "$F()"}]);
    let r = client.call("ast_edit", json!({"ops": ops, "paths": ["go", "python"]})).await;
    let hint = |w: &Value| w.as_str().unwrap().starts_with("ops[1].pat `defer $F()` does not parse cleanly as python");
    let warnings = structured(&r)["warnings"].as_array().unwrap().clone();
    let mcp = warnings.iter().find(|w| hint(w)).unwrap_or_else(|| panic!("{warnings:?}")).as_str().unwrap();
    assert!(mcp.contains("pass the snippet as `pat` with `selector` set to the part's node kind"), "{mcp}");
    assert!(!mcp.contains("--selector"), "{mcp}");
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    client.close().await;
    let out = env.cli(&env.root, &["show", "--json", &id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cli = shown["warnings"].as_array().unwrap().iter().find(|w| hint(w)).unwrap().as_str().unwrap().to_string();
    assert!(cli.ends_with("pass the snippet with --selector KIND. Files of that language are not searched for ops[1]."), "{cli}");
}

#[tokio::test]
async fn apply_of_an_action_outside_the_root_is_refused_but_discard_works() {
    let env = Env::fixtures();
    // A person previews in the parent folder (same state dir) an edit of outside/.
    let out = env.cli(&env.base, &["run", "--json", "-l", "py", "-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)", "outside"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let staged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = staged["id"].as_str().unwrap();
    let client = env.connect().await;
    let r = client.call("resolve", json!({"action": "apply", "reason": "try", "id": id})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.contains("outside this server's root") && t.contains(id), "{t}");
    assert_eq!(std::fs::read_to_string(env.base.join("outside/secret.py")).unwrap(), "self.assertEquals(1, 1)\n");
    let r = client.call("resolve", json!({"action": "discard", "reason": "not mine", "id": id})).await;
    assert!(!is_error(&r), "{r:?}");
    assert!(text(&r).starts_with("Discarded: AST Edit: 1 replacement in 1 file."), "{}", text(&r));
    client.close().await;
}

// ---------------------------------------------------------------------------
// The server as a raw child process: JSON-RPC lines written to its stdin and read
// from its stdout, for what rmcp's client cannot do (send bad lines, close stdin or
// stdout in the middle of a call).

/// A server started by hand; its stderr goes to a file read at the end.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<std::io::BufReader<std::process::ChildStdout>>,
    stderr: PathBuf,
}

impl Raw {
    fn start(env: &Env, vars: &[(&str, &str)]) -> Raw {
        let stderr = env.base.join("server.stderr");
        let mut cmd = std::process::Command::new(BIN);
        cmd.arg("mcp")
            .current_dir(&env.root)
            .env("AST_EDIT_STATE_DIR", &env.state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(std::io::BufReader::new);
        let mut raw = Raw { child, stdin, stdout, stderr };
        raw.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
        );
        assert_eq!(raw.recv()["result"]["serverInfo"]["name"], "ast-edit");
        raw.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
        raw
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap()
    }

    /// The next line on stdout that is not a notification, or None at the end.
    fn next_reply(&mut self) -> Option<Value> {
        use std::io::BufRead;
        loop {
            let mut line = String::new();
            if self.stdout.as_mut().expect("stdout open").read_line(&mut line).unwrap() == 0 {
                return None;
            }
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout holds only JSON-RPC: {e}: {line}"));
            if v.get("method").is_none() {
                return Some(v);
            }
        }
    }

    fn recv(&mut self) -> Value {
        match self.next_reply() {
            Some(v) => v,
            None => panic!("the server ended; stderr:\n{}", self.stderr()),
        }
    }

    fn call_line(id: u64, tool: &str, args: Value, progress: bool) -> String {
        let mut params = json!({"name": tool, "arguments": args});
        if progress {
            params["_meta"] = json!({"progressToken": id});
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    }

    fn call(&mut self, id: u64, tool: &str, args: Value) -> Value {
        self.send(&Raw::call_line(id, tool, args, false));
        let reply = self.recv();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    fn wait(mut self) -> (std::process::ExitStatus, String) {
        self.stdin = None;
        let status = self.child.wait().unwrap();
        (status, self.stderr())
    }
}

/// `count` small Python files under `root/many/`, each with one call to rename.
fn many_files(env: &Env, count: usize) -> Vec<PathBuf> {
    let dir = env.root.join("many");
    std::fs::create_dir_all(&dir).unwrap();
    (0..count)
        .map(|i| {
            let p = dir.join(format!("f{i:04}.py"));
            std::fs::write(&p, format!("x = old_name({i})\n")).unwrap();
            p
        })
        .collect()
}

fn rename_op() -> Value {
    json!({"ops": [{"pat": "old_name($A)", "out": "new_name($A)"}], "paths": ["many"]})
}

/// The files hold either all the new text, or (`false`) all the old.
fn all_renamed(files: &[PathBuf]) -> bool {
    let renamed: Vec<bool> = files
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let now = std::fs::read_to_string(p).unwrap();
            assert!(now == format!("x = old_name({i})\n") || now == format!("x = new_name({i})\n"), "{}: {now}", p.display());
            now.contains("new_name")
        })
        .collect();
    let written = renamed.iter().filter(|r| **r).count();
    assert!(written == 0 || written == files.len(), "half-applied: {written} of {} files written", files.len());
    written > 0
}

/// Temp files an apply left behind anywhere under `dir`.
fn leftover_temp_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir).into_keys().filter(|p| p.to_string_lossy().contains(".ast-edit-")).collect()
}

/// After the server is gone: nothing pending, no interrupted apply to clean up, no
/// temp file left, and the journal complete (undo of the server's apply of `id`,
/// by id from the command line, puts every file back).
fn assert_apply_finished_cleanly(env: &Env, files: &[PathBuf], id: &str) {
    assert!(all_renamed(files), "every file written");
    assert_eq!(leftover_temp_files(&env.root), Vec::<PathBuf>::new());
    let out = env.cli(&env.root, &["pending", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), json!([]), "the action is resolved");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("interrupted"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = env.cli(&env.root, &["undo", "--id", id]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!all_renamed(files), "undo restored every file from a complete journal");
}

/// Pauses each apply after its first rename for longer than rmcp waits for
/// handlers after the end of stdin (5 s) plus the runtime's shutdown grace (1 s):
/// a server that exits then leaves the apply half done.
const PAUSE_PAST_SHUTDOWN: [(&str, &str); 2] = [("AST_EDIT_PAUSE_AFTER_RENAME", "1"), ("AST_EDIT_PAUSE_MS", "8000")];

/// Stages the rename of 300 files through `raw`; returns the action's id.
fn stage_300(raw: &mut Raw) -> String {
    let r = raw.call(1, "ast_edit", rename_op());
    assert_eq!(r["result"]["structuredContent"]["filesTouched"], 300, "{r}");
    r["result"]["structuredContent"]["id"].as_str().expect("staged").to_string()
}

#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn closing_stdin_right_after_resolve_apply_finishes_the_apply_before_exiting() {
    let env = Env::fixtures();
    let files = many_files(&env, 300);
    let mut raw = Raw::start(&env, &PAUSE_PAST_SHUTDOWN);
    let id = stage_300(&mut raw);
    raw.send(&Raw::call_line(2, "resolve", json!({"action": "apply", "reason": "rename"}), false));
    raw.stdin = None;
    // The client half-closed: it still reads, and gets the result.
    let reply = raw.recv();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Applied 300 replacements in 300 files."), "{text}");
    assert_eq!(raw.next_reply(), None);
    let (status, stderr) = raw.wait();
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("stdin closed; waiting for the `resolve` call in flight to finish before exiting"), "{stderr}");
    assert_apply_finished_cleanly(&env, &files, &id);
}

#[test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
fn a_client_gone_during_resolve_apply_still_gets_every_file_written() {
    let env = Env::fixtures();
    let files = many_files(&env, 300);
    let mut raw = Raw::start(&env, &PAUSE_PAST_SHUTDOWN);
    let id = stage_300(&mut raw);
    raw.send(&Raw::call_line(2, "resolve", json!({"action": "apply", "reason": "rename"}), true));
    // The client dies: both of its pipes close.
    raw.stdin = None;
    raw.stdout = None;
    let (status, stderr) = raw.wait();
    assert!(status.success(), "{status}: {stderr}");
    assert_apply_finished_cleanly(&env, &files, &id);
}

#[test]
fn a_closed_stdout_ends_the_session_after_the_resolve_in_flight() {
    let env = Env::fixtures();
    let files = many_files(&env, 300);
    let mut raw = Raw::start(&env, &[]);
    let id = stage_300(&mut raw);
    // stdin stays open; the progress notification or the result cannot be written.
    raw.send(&Raw::call_line(2, "resolve", json!({"action": "apply", "reason": "rename"}), true));
    raw.stdout = None;
    let mut raw = raw;
    // A watchdog, not a timing assertion: a server that keeps serving nobody would
    // hang this test.
    let mut waited = 0;
    let status = loop {
        if let Some(status) = raw.child.try_wait().unwrap() {
            break status;
        }
        waited += 1;
        if waited > 1200 {
            raw.child.kill().unwrap();
            panic!("the server kept running after its stdout closed; stderr:\n{}", raw.stderr());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = raw.stderr();
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    assert_apply_finished_cleanly(&env, &files, &id);
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_keeps_serving() {
    let env = Env::fixtures();
    let before = files_under(&env.root);
    let mut raw = Raw::start(&env, &[]);
    // Each bad line is followed by a ping, so that a line left unanswered shows as
    // the ping's reply coming first (not as a test waiting forever).
    raw.send("this is not json");
    raw.send(r#"{"jsonrpc": "2.0", "id": 2, "method": "ping"}"#);
    let r = raw.recv();
    assert_eq!(r["id"], Value::Null, "{r}");
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().starts_with("Parse error: "), "{r}");
    assert_eq!(raw.recv()["id"], 2);
    raw.send(r#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ast_edit", "arguments": "x"}}"#);
    let r = raw.recv();
    assert_eq!(r["id"], 3, "{r}");
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("`arguments` must be a JSON object"), "{r}");
    raw.send("[]");
    let r = raw.recv();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32600)), "{r}");
    // A malformed notification gets no reply: the next line answers the ping.
    raw.send(r#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}"#);
    raw.send(r#"{"jsonrpc": "2.0", "id": 4, "method": "ping"}"#);
    assert_eq!(raw.recv()["id"], 4);
    assert_eq!(files_under(&env.root), before, "nothing written");
    let r = raw.call(5, "ast_edit", assert_equals_op());
    assert_eq!(r["result"]["structuredContent"]["status"], "pending", "{r}");
    let (status, stderr) = raw.wait();
    assert!(status.success(), "{status}: {stderr}");
}

/// `pat` nested `depth` parentheses deep inside `foo(...)`.
fn nested_pattern(depth: usize) -> String {
    format!("foo({}1{})", "(".repeat(depth), ")".repeat(depth))
}

async fn deep_pattern_then_a_normal_call(depth: usize) -> CallToolResult {
    let env = Env::fixtures();
    let client = env.connect().await;
    let deep = client.call("ast_edit", json!({"ops": [{"pat": nested_pattern(depth), "out": "bar()"}], "lang": "py", "paths": ["python"]})).await;
    let r = client.call("ast_edit", assert_equals_op()).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["status"], "pending");
    client.close().await;
    deep
}

#[tokio::test]
async fn a_pattern_nested_5000_deep_does_not_end_the_server() {
    // Either answer is fine (no match, or refused by a request limit); the server
    // must answer and keep serving.
    let deep = deep_pattern_then_a_normal_call(5_000).await;
    assert_eq!(deep.content.len(), 1, "{deep:?}");
}

#[tokio::test]
async fn a_pattern_nested_50000_deep_is_an_error_and_the_server_keeps_serving() {
    let deep = deep_pattern_then_a_normal_call(50_000).await;
    assert!(is_error(&deep), "{deep:?}");
}

#[tokio::test]
#[cfg_attr(not(feature = "fault-injection"), ignore = "injects a fault: run with --features fault-injection")]
async fn a_panic_in_a_handler_is_a_tool_error_and_the_server_keeps_serving() {
    let env = Env::fixtures();
    let client = env.connect_with(&[("AST_EDIT_MCP_PANIC", "1")]).await;
    for place in ["handler", "plan"] {
        let args = json!({"ops": [{"pat": format!("panic_in_{place}()"), "out": "x()"}], "lang": "py"});
        // A watchdog, not a timing assertion: an unanswered request would hang.
        let r = tokio::time::timeout(Duration::from_secs(60), client.call("ast_edit", args))
            .await
            .unwrap_or_else(|_| panic!("no answer after a panic in the {place}"));
        assert!(is_error(&r), "{r:?}");
        let t = text(&r);
        assert!(t.starts_with("internal error") && t.contains(&format!("injected panic in the {place}")), "{t}");
    }
    let r = client.call("ast_edit", assert_equals_op()).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["status"], "pending");
    client.close().await;
}

#[tokio::test]
async fn ast_edit_with_a_rule_keeps_only_the_sites_the_rule_allows_and_a_bad_rule_is_an_error_with_its_cause() {
    let env = Env::fixtures();
    let src = "fn main() {\n    let a = read().unwrap();\n}\n\nmod tests {\n    fn t() {\n        let b = read().unwrap();\n    }\n}\n";
    std::fs::create_dir_all(env.root.join("crate")).unwrap();
    std::fs::write(env.root.join("crate/lib.rs"), src).unwrap();
    let c = env.connect().await;
    let rule = "id: no-unwrap\nlanguage: rust\nrule:\n  pattern: $X.unwrap()\n  not: {inside: {kind: mod_item, has: {field: name, regex: ^tests$}, stopBy: end}}\nfix: $X.expect(\"checked\")\n";
    let r = c.call("ast_edit", json!({"rule": rule, "paths": ["crate"]})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let d = structured(&r);
    assert_eq!((d["totalReplacements"].as_u64(), d["filesTouched"].as_u64()), (Some(1), Some(1)), "{d}");
    let r = c.call("resolve", json!({"action": "apply", "reason": "only non-test sites"})).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(std::fs::read_to_string(env.root.join("crate/lib.rs")).unwrap(), src.replacen("read().unwrap()", "read().expect(\"checked\")", 1));
    // A JSON object works as well as YAML text.
    let r = c
        .call("ast_edit", json!({"rule": {"id": "x", "language": "rust", "rule": {"pattern": "$X.unwrap()"}, "fix": "$X.expect(\"t\")"}, "paths": ["crate"]}))
        .await;
    assert_eq!(structured(&r)["totalReplacements"], 1, "{}", text(&r));
    // A malformed rule: isError with the real cause, not "Fail to parse yaml".
    let r = c.call("ast_edit", json!({"rule": "id: x\nlanguage: rust\nrule: {pattern: $X.unwrap()}\nfix: $Y\n"})).await;
    assert!(is_error(&r) && text(&r).contains("Undefined meta var `Y` used in `fix`"), "{}", text(&r));
    let r = c.call("ast_edit", json!({"rule": "id: x\nlanguage: rust\nrule: {patern: $X.unwrap()}\n"})).await;
    assert!(is_error(&r) && text(&r).contains("unknown field `patern`"), "{}", text(&r));
    c.close().await;
}
