//! Resolving under hostile input, through the real binary (and the MCP server where
//! the point is what an agent sees): `extra` keys an `ast_edit` action does not
//! take, ids resolved already, and apply re-using the stored plan only where the
//! entry proves it (docs/DESIGN.md sections 3.6, 4.1, 4.2, 4.3). The store's
//! retention and lock are in tests/it/store.rs.

use crate::common::Tree;
use crate::common::store::{APPLIED_TEST_APP, edit_entry, entry_path, pending, propose_cmd, read_json, resolved_path, stage, time_after};
use ast_edit::app::pending::{ActionKind, PendingAction};
use ast_edit::testing;
use serde_json::{Value, json};

/// Stages the fetch_data rename on python/ (3 files); returns its id.
fn stage_fetch(t: &Tree) -> String {
    let v: Value = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "py", "python", "--json"]).ok().json();
    v["id"].as_str().expect("staged").to_string()
}

// ---------------------------------------------------------------------------
// extra: an ast_edit action takes its four options and nothing else
// ---------------------------------------------------------------------------

#[test]
fn a_misspelt_extra_key_is_bad_input_and_applies_nothing() {
    let t = Tree::fixtures();
    let id = stage_fetch(&t);
    let before = t.snapshot();
    // `file` for `files`: it used to apply every file of the action.
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"file":["python/app.py"]}"#]).code(2);
    assert!(r.stderr.starts_with("error: extra has the key `file` (did you mean `files`?)"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("its options are: stale, files, allowSyntaxErrors, verify, exclude, skipFlagged, allowStructureChanges, allowTemplateMismatch, close."),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("Nothing was written; the action stays pending"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(t.snapshot(), before, "nothing written");
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"bogus":1}"#, "--json"]).code(2);
    assert!(r.stderr.contains("extra has the key `bogus`, which an ast_edit action does not take"), "{}", r.stderr);
    assert_eq!(r.stdout, "", "bad input prints no result");
    // A misspelt key is refused on discard too, and so is `files` (discard drops
    // the whole action, not those files).
    t.run(&["resolve", "discard", "--reason", "r", "--extra", r#"{"Stale":"skip"}"#]).code(2);
    let r = t.run(&["resolve", "discard", "--reason", "r", "--extra", r#"{"files":["python/app.py"]}"#]).code(2);
    assert!(r.stderr.contains("discard drops the whole action"), "{}", r.stderr);
    assert_eq!(t.snapshot(), before);
    let rows = pending(&t);
    assert_eq!(rows.len(), 1, "the action stays pending");
    assert_eq!(rows[0].id, id);
    assert!(!resolved_path(&t, &id).exists());
    // The right key applies only that file.
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files":["python/app.py"]}"#]).code(3);
    assert!(t.read("python/app.py").contains("load_data("));
    assert_eq!(t.read("python/test_app.py"), Tree::fixtures().read("python/test_app.py"));
}

#[test]
fn a_wrong_extra_value_is_bad_input_exit_2_naming_the_key() {
    let t = Tree::fixtures();
    stage_fetch(&t);
    let before = t.snapshot();
    for (extra, want) in [
        (r#"{"stale":1}"#, r#"extra.stale must be "skip" or "abort", not 1"#),
        (r#"{"stale":"maybe"}"#, r#"extra.stale must be "skip" or "abort", not "maybe""#),
        (r#"{"files":"python/app.py"}"#, "extra.files must be a non-empty array of the action's paths"),
        (r#"{"files":[]}"#, "extra.files must be a non-empty array"),
        (r#"{"files":[1]}"#, "extra.files must be a non-empty array"),
        (r#"{"allowSyntaxErrors":"yes"}"#, r#"extra.allowSyntaxErrors must be true or false, not "yes""#),
        (r#"{"verify":"splice"}"#, r#"extra.verify must be "rerun""#),
        (r#"{"files":null}"#, "extra.files must be a non-empty array of the action's paths (as `ast-edit show` lists them), not null"),
        (r#"{"verify":null}"#, r#"extra.verify must be "rerun" (re-run the engine on every file; leave it out to let apply choose), not null"#),
        (
            r#"{"exclude":["python/app.py",null]}"#,
            r#"extra.exclude must be an array of the action's paths (as `ast-edit show` lists them), not ["python/app.py",null]"#,
        ),
    ] {
        let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", extra]).code(2);
        assert!(r.stderr.starts_with("error: "), "{extra}: {}", r.stderr);
        assert!(r.stderr.contains(want), "{extra}: `{}` lacks `{want}`", r.stderr);
        assert!(!r.stderr.contains("Apply failed"), "{extra}: bad input, not a failed apply: {}", r.stderr);
    }
    assert_eq!(t.snapshot(), before);
    assert_eq!(pending(&t).len(), 1);
    // --verify takes only `rerun`, on apply, and agrees with extra.verify.
    t.run(&["resolve", "apply", "--reason", "r", "--verify", "splice"]).code(2);
    let r = t.run(&["resolve", "discard", "--reason", "r", "--verify", "rerun"]).code(2);
    assert!(r.stderr.contains("--verify rerun applies to `resolve apply` only"), "{}", r.stderr);
    assert_eq!(pending(&t).len(), 1);
}

#[test]
fn a_custom_actions_extra_stays_free_form() {
    let t = Tree::empty();
    propose_cmd(&t, "Echo", "printf '%s' \"$AST_EDIT_EXTRA\"");
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"file":["a.py"],"bogus":1}"#]).ok();
    assert_eq!(r.stdout, "{\"bogus\":1,\"file\":[\"a.py\"]}\n");
}

// ---------------------------------------------------------------------------
// Ids resolved already say what became of them
// ---------------------------------------------------------------------------

#[test]
fn an_id_resolved_already_says_what_became_of_it_and_when() {
    let t = Tree::fixtures();
    let applied = stage(&t);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let discarded = propose_cmd(&t, "Dropped", "true");
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    // A standing handler must not answer for a known id.
    let marker = t.path().join("standing-ran");
    let standing = format!("touch {}", marker.display());

    let r = t.run(&["resolve", "apply", "--reason", "again", "--id", &applied, "--standing-cmd", &standing]).code(1);
    let at = time_after(&r.stderr, &format!("Action `{applied}` was already applied at "));
    assert_eq!(at, read_json(&resolved_path(&t, &applied))["at"].as_str().unwrap());
    assert!(!marker.exists(), "the standing handler did not run");
    let r = t.run(&["resolve", "discard", "--reason", "again", "--id", &discarded, "--json"]).code(1);
    let j: Value = r.json();
    assert_eq!(j["isError"], true);
    time_after(&format!("{}\n", j["content"].as_str().unwrap()), &format!("Action `{discarded}` was already discarded at "));
    let r = t.run(&["show", &applied]).code(1);
    time_after(&r.stderr, &format!("Action `{applied}` was already applied at "));
    assert_eq!(r.stdout, "");
    t.run(&["undo"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "again", "--id", &applied]).code(1);
    time_after(&r.stderr, &format!("Action `{applied}` was applied, then undone at "));
    let r = t.run(&["show", &applied, "--json"]).code(1);
    time_after(&r.stderr, &format!("Action `{applied}` was applied, then undone at "));
    // An id never seen keeps its message.
    let r = t.run(&["show", "ae-000000"]).code(1);
    assert_eq!(r.stderr, "No pending action with id `ae-000000`. Run `ast-edit pending` to list the pending actions.\n");
    assert!(!marker.exists());
}

// ---------------------------------------------------------------------------
// MCP: the same answers as tool results
// ---------------------------------------------------------------------------

mod mcp {
    use super::*;
    use crate::common::mcp::connect;
    use rmcp::RoleClient;
    use rmcp::model::{CallToolRequestParams, CallToolResult};
    use rmcp::service::RunningService;

    async fn call(c: &RunningService<RoleClient, ()>, args: Value) -> CallToolResult {
        let Value::Object(map) = args else { panic!("an object") };
        let r = c.call_tool(CallToolRequestParams::new("resolve").with_arguments(map)).await.expect("a tool result");
        crate::common::conform::conforms("resolve", &r);
        r
    }

    fn text(r: &CallToolResult) -> String {
        r.content[0].as_text().expect("text").text.clone()
    }

    #[tokio::test]
    async fn mcp_refuses_a_misspelt_extra_key_as_a_tool_error_and_writes_nothing() {
        let t = Tree::fixtures();
        let id = stage_fetch(&t);
        let before = t.snapshot();
        let c = connect(&t).await;
        // Staged from the command line: another session's, taken by id.
        let r = call(&c, json!({"action": "apply", "reason": "r", "id": id, "extra": {"file": ["python/app.py"]}})).await;
        assert_eq!(r.is_error, Some(true), "{r:?}");
        let msg = text(&r);
        assert!(msg.contains("`file`") && msg.contains("stale, files, allowSyntaxErrors, verify"), "{msg}");
        let r = call(&c, json!({"action": "apply", "reason": "r", "id": id, "extra": {"allowSyntaxErrors": 1}})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("extra.allowSyntaxErrors must be true or false"), "{}", text(&r));
        assert_eq!(t.snapshot(), before);
        let _ = c.cancel().await;
        assert_eq!(pending(&t)[0].id, id, "still pending");
    }

    #[tokio::test]
    async fn mcp_says_what_became_of_a_resolved_id() {
        let t = Tree::fixtures();
        let id = stage(&t);
        let c = connect(&t).await;
        let r = call(&c, json!({"action": "discard", "reason": "r", "id": id})).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let r = call(&c, json!({"action": "apply", "reason": "r", "id": id})).await;
        assert_eq!(r.is_error, Some(true));
        time_after(&format!("{}\n", text(&r)), &format!("Action `{id}` was already discarded at "));
        let _ = c.cancel().await;
        assert_eq!(t.read("python/test_app.py"), Tree::fixtures().read("python/test_app.py"));
    }
}

// ---------------------------------------------------------------------------
// Apply in proportion to the change: splice the stored plan where it is proven
// ---------------------------------------------------------------------------

/// Changes the rewrite stored in the `ast_edit` entry `id`, so that re-running
/// the engine no longer gives the planned text; with `consistent`, also records
/// the rules and `rulesDigest` of the changed request (as if it had been staged
/// so), so that only the engine build tells a re-run from a splice.
fn tamper_rewrite(t: &Tree, id: &str, consistent: bool, build: Option<Option<String>>) {
    let p = entry_path(t, id);
    let mut a: PendingAction = testing::decode_entry(&std::fs::read(&p).unwrap()).unwrap();
    let ActionKind::AstEdit { plan } = &mut a.kind else { panic!("an ast_edit action") };
    plan.request.ops[0].out = "self.assertTrue($A == $B)".into();
    if consistent {
        a.rules = testing::rules_of(&plan.request);
        a.rules_digest = Some(testing::rules_digest(&a.rules, &plan.request));
    }
    if let Some(b) = build {
        a.engine_build = b;
    }
    let mut bytes = Vec::new();
    testing::encode_entry(&a, &mut bytes).unwrap();
    std::fs::write(&p, bytes).unwrap();
}

const DID_NOT_REPRODUCE: &str =
    "Apply failed: re-running the edit on python/test_app.py did not reproduce the preview (was ast-edit upgraded in between?); nothing was written.";

#[test]
fn apply_splices_the_stored_plan_when_this_build_staged_it_from_the_same_rules() {
    let t = Tree::fixtures();
    let id = stage(&t);
    // Re-running the engine would now write assertTrue; the stored edits say
    // assertEqual. Only a splice of the stored edits can succeed.
    tamper_rewrite(&t, &id, true, None);
    let r = t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(r.stdout, format!("Applied 2 replacements in 1 file.\n  applied  python/test_app.py (2 replacements)\nTo undo: `ast-edit undo --id {id}`\n"));
    assert_eq!(r.stderr, "verify: stored plan re-used (staged by this build from the same rules); each file's bytes and the result's digest checked\n");
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}

#[test]
fn a_stored_request_that_does_not_give_its_rules_digest_is_re_run() {
    let t = Tree::fixtures();
    let id = stage(&t);
    tamper_rewrite(&t, &id, false, None);
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(r.stderr.starts_with(DID_NOT_REPRODUCE), "{}", r.stderr);
    assert!(r.stderr.ends_with("verify: edit re-run on every file by this build (the stored request does not match its rulesDigest)\n"), "{}", r.stderr);
    assert_eq!(t.snapshot(), before);
    assert_eq!(pending(&t).len(), 1, "kept");
}

#[test]
fn verify_rerun_re_runs_the_engine_even_on_a_plan_this_build_staged() {
    let t = Tree::fixtures();
    let id = stage(&t);
    tamper_rewrite(&t, &id, true, None);
    let before = t.snapshot();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--verify", "rerun"]).code(1);
    assert!(r.stderr.starts_with(DID_NOT_REPRODUCE), "{}", r.stderr);
    assert!(r.stderr.ends_with("verify: edit re-run on every file by this build (asked: verify rerun)\n"), "{}", r.stderr);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"verify":"rerun"}"#]).code(1);
    assert!(r.stderr.starts_with(DID_NOT_REPRODUCE), "{}", r.stderr);
    assert_eq!(t.snapshot(), before);
    // Untampered, a re-run reproduces the preview.
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    stage(&t);
    let r = t.run(&["resolve", "apply", "--reason", "r", "--verify", "rerun"]).ok();
    assert!(r.stderr.contains("asked: verify rerun"), "{}", r.stderr);
    assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
}

#[test]
fn an_entry_from_another_build_or_without_one_is_re_run() {
    let other = format!("sha256:{}", "0".repeat(64));
    for (build, why) in
        [(Some(other.clone()), "(the action was staged by another ast-edit build)"), (None, "(the action does not record the build that staged it)")]
    {
        let t = Tree::fixtures();
        let id = stage(&t);
        tamper_rewrite(&t, &id, true, Some(build.clone()));
        let before = t.snapshot();
        let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
        assert!(r.stderr.starts_with(DID_NOT_REPRODUCE), "{}", r.stderr);
        assert!(r.stderr.ends_with(&format!("verify: edit re-run on every file by this build {why}\n")), "{}", r.stderr);
        assert_eq!(t.snapshot(), before);
        // The same entry, untampered: the re-run reproduces it and it applies.
        t.run(&["resolve", "discard", "--reason", "r"]).ok();
        let id = stage(&t);
        edit_entry(&t, &id, |e| e["engineBuild"] = json!(build));
        let r = t.run(&["resolve", "apply", "--reason", "r"]).ok();
        assert!(r.stderr.contains(why), "{}", r.stderr);
        assert_eq!(t.read("python/test_app.py"), APPLIED_TEST_APP);
    }
}
