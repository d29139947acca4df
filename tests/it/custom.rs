//! Custom pending actions: `propose` with apply/reject commands (through the
//! binary), the library trait (through `resolve_with`), and the standing handler.

use crate::common::Tree;
use ast_edit::app::custom::{Handlers, Outcome, PendingHandler, StandingHandler};
use ast_edit::app::pending::Store;
use ast_edit::app::resolve::{Action, ResolveRequest, resolve_with};
use serde_json::Value;

fn json(r: &crate::common::Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn propose_apply_runs_the_command_with_reason_and_extra_and_its_stdout_is_the_result() {
    let t = Tree::empty();
    let p = json(
        &t.run(&[
            "propose",
            "--label",
            "Write marker",
            "--apply-cmd",
            "printf '%s|%s|%s' \"$AST_EDIT_ACTION\" \"$AST_EDIT_REASON\" \"$AST_EDIT_EXTRA\" > marker.txt; echo wrote marker",
            "--json",
        ])
        .ok(),
    );
    assert_eq!(p["sourceToolName"], "custom_tool");
    let rows = json(&t.run(&["pending", "--json"]).ok());
    assert_eq!(rows[0]["label"], "Write marker");
    let r = t.run(&["resolve", "apply", "--reason", "ship it", "--extra", r#"{"k":1}"#, "--json"]).ok();
    let j = json(&r);
    assert_eq!(j["content"], "wrote marker");
    assert_eq!(j["isError"], false);
    assert_eq!(j["details"]["label"], "Write marker");
    assert_eq!(j["details"]["sourceToolName"], "custom_tool");
    assert_eq!(j["details"]["extra"]["k"], 1);
    assert_eq!(j["details"]["sourceResultDetails"]["exitCode"], 0);
    assert_eq!(t.read("marker.txt"), r#"apply|ship it|{"k":1}"#);
    t.run(&["resolve", "apply", "--reason", "again"]).code(1);
}

#[test]
fn failing_apply_command_is_apply_failed_and_the_action_stays() {
    let t = Tree::empty();
    t.run(&["propose", "--label", "Flaky", "--apply-cmd", "echo boom >&2; exit 3", "--reject-cmd", "echo cleaned up", "--source", "my_tool"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "try"]).code(1);
    assert_eq!(r.stderr, "Apply failed: `echo boom >&2; exit 3` failed with exit status 3: boom\n");
    let rows = json(&t.run(&["pending", "--json"]).ok());
    assert_eq!(rows[0]["sourceToolName"], "my_tool");
    // Discard runs the reject command; its stdout is the result.
    let r = t.run(&["resolve", "discard", "--reason", "give up"]).ok();
    assert_eq!(r.stdout, "cleaned up\n");
    assert_eq!(json(&t.run(&["pending", "--json"]).ok()), serde_json::json!([]));
}

#[test]
fn discard_without_reject_command_prints_the_default_text() {
    let t = Tree::empty();
    t.run(&["propose", "--label", "Touch file", "--apply-cmd", "touch f"]).ok();
    let r = t.run(&["resolve", "discard", "--reason", "no need"]).ok();
    assert_eq!(r.stdout, "Discarded: Touch file. Reason: no need\n");
    assert!(!t.path().join("f").exists());
}

#[test]
fn custom_and_ast_edit_actions_share_one_lifo_stack() {
    let t = Tree::fixtures();
    t.run(&["run", "-p", crate::common::ASSERT_PAT, "-r", crate::common::ASSERT_OUT]).ok();
    t.run(&["propose", "--label", "Later one", "--apply-cmd", "true"]).ok();
    let r = t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert_eq!(r.stdout, "Discarded: Later one. Reason: r\n");
    let r = t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert_eq!(r.stdout, "Discarded: AST Edit: 2 replacements in 1 file. Reason: r\n");
    let s = t.run(&["propose", "--label", "Shown", "--apply-cmd", "echo hi"]).ok();
    assert!(s.stdout.contains("ast-edit resolve apply"), "{}", s.stdout);
    let shown = json(&t.run(&["show", "--json"]).ok());
    assert_eq!(shown["applyCmd"], "echo hi");
}

#[test]
fn standing_handler_is_consulted_only_when_nothing_is_pending() {
    let t = Tree::empty();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--standing-cmd", "echo standing $AST_EDIT_ACTION"]).ok();
    assert_eq!(r.stdout, "standing apply\n");
    let r = t.run_env(&["resolve", "discard", "--reason", "r"], &[("AST_EDIT_STANDING_CMD", "echo from env $AST_EDIT_ACTION")]).ok();
    assert_eq!(r.stdout, "from env discard\n");
    // With something pending, the action wins.
    t.run(&["propose", "--label", "Real", "--apply-cmd", "echo real"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--standing-cmd", "echo standing"]).ok();
    assert_eq!(r.stdout, "real\n");
    // A failing standing command is a failure.
    let r = t.run(&["resolve", "apply", "--reason", "r", "--standing-cmd", "exit 4"]).code(1);
    assert!(r.stderr.starts_with("Apply failed: `exit 4` failed with exit status 4"), "{}", r.stderr);
}

struct Recorder {
    label: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    fail: bool,
}

impl PendingHandler for Recorder {
    fn label(&self) -> String {
        self.label.clone()
    }
    fn details(&self) -> Option<Value> {
        Some(serde_json::json!({"kind": "recorder"}))
    }
    fn apply(&mut self, reason: &str, extra: Option<&Value>) -> Result<Outcome, String> {
        if self.fail {
            self.fail = false;
            return Err("disk full".into());
        }
        self.log.lock().unwrap().push(format!("apply {reason} {}", extra.map(|e| e.to_string()).unwrap_or_default()));
        Ok(Outcome { text: "recorded".into(), details: Some(serde_json::json!({"n": 1})) })
    }
}

struct Standing;

impl StandingHandler for Standing {
    fn label(&self) -> String {
        "plan mode".into()
    }
    fn handle(&mut self, action: Action, reason: &str, _extra: Option<&Value>) -> Result<Outcome, String> {
        Ok(Outcome { text: format!("standing {action}: {reason}"), details: None })
    }
}

#[test]
fn library_trait_actions_resolve_in_lifo_order_with_the_standing_handler_last() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("state")).unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut h = Handlers::default();
    h.standing = Some(Box::new(Standing));
    let first = h.push(&store, Box::new(Recorder { label: "first".into(), log: log.clone(), fail: false })).unwrap();
    h.push(&store, Box::new(Recorder { label: "second".into(), log: log.clone(), fail: true })).unwrap();
    let apply = |reason: &str, id: Option<String>| ResolveRequest::new(Action::Apply, Some(reason.into()), Some(serde_json::json!({"x": 1})), id).unwrap();
    // Newest first; its apply fails once: Apply failed, kept.
    let r = resolve_with(&store, &apply("a", None), &mut h).unwrap();
    assert!(r.is_error);
    assert_eq!(r.content.to_string(), "Apply failed: disk full");
    assert_eq!(r.details.label.as_deref(), Some("second"));
    assert_eq!(r.details.source_tool_name.as_deref(), Some("custom_tool"));
    // --id picks the older one.
    let r = resolve_with(&store, &apply("b", Some(first)), &mut h).unwrap();
    assert_eq!((r.content.to_string().as_str(), r.details.label.as_deref()), ("recorded", Some("first")));
    assert_eq!(r.details.source_result_details, Some(serde_json::json!({"n": 1})));
    let r = resolve_with(&store, &apply("c", None), &mut h).unwrap();
    assert_eq!((r.content.to_string().as_str(), r.details.label.as_deref()), ("recorded", Some("second")));
    assert_eq!(*log.lock().unwrap(), vec![r#"apply b {"x":1}"#, r#"apply c {"x":1}"#]);
    // Nothing pending: the standing handler.
    let r = resolve_with(&store, &apply("d", None), &mut h).unwrap();
    assert_eq!(r.content.to_string(), "standing apply: d");
    h.standing = None;
    let r = resolve_with(&store, &apply("e", None), &mut h).unwrap();
    assert_eq!(r.content.to_string(), "No pending action to resolve. Nothing to apply or discard.");
}
