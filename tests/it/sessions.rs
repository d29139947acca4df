//! Sessions of the pending-action store (docs/DESIGN.md section 3.8) through the
//! real entry points: each MCP server process is a session of its own and the
//! command line is the session `cli`. Without an id, `resolve` takes the
//! caller's own newest action and `undo` / `ast_undo` its own last apply; another
//! session's only by id. Listings name every action's owner, the nothing-pending
//! texts name the other sessions' ids, the standing handler answers only when
//! the caller has nothing pending, a preview identical to one pending in the
//! same session is not staged twice, and one of the same ops and paths
//! supersedes it.

use crate::common::Tree;
use crate::common::mcp::{Named, call, is_error, serve_as, structured, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

/// A tree with three small Python files.
fn tree() -> Tree {
    let t = Tree::empty();
    t.write("a.py", "x = fetch_data(1)\n");
    t.write("b.py", "y = fetch_data(2)\n");
    t.write("c.py", "z = fetch_data(3)\n");
    t
}

/// A server of its own on `t` (same root, same state dir), its client named `name`.
async fn server(t: &Tree, name: &str) -> Named {
    serve_as(t.path(), t.state.path(), name, &[]).await
}

/// Stages `fetch_data($A)` -> `<to>($A)` in `path` through `ast_edit`; returns the id.
async fn stage(c: &Named, path: &str, to: &str) -> String {
    let r = call(c, "ast_edit", json!({"ops": [{"pat": "fetch_data($A)", "out": format!("{to}($A)")}], "paths": [path]})).await;
    assert!(!is_error(&r), "{r:?}");
    structured(&r)["id"].as_str().expect("staged").to_string()
}

async fn resolve(c: &Named, args: Value) -> CallToolResult {
    call(c, "resolve", args).await
}

/// The `actions` rows of `ast_pending` without arguments.
async fn listed(c: &Named) -> (Vec<Value>, String) {
    let r = call(c, "ast_pending", json!({})).await;
    assert!(!is_error(&r), "{r:?}");
    (structured(&r)["actions"].as_array().unwrap().clone(), text(&r).to_string())
}

/// The owner of `c`'s session: the owner of an action it staged.
async fn owner_of(c: &Named, id: &str) -> String {
    let (rows, _) = listed(c).await;
    let row = rows.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("{id} listed: {rows:?}"));
    row["owner"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn two_servers_on_one_root_resolve_and_undo_their_own_and_the_others_only_by_id() {
    let t = tree();
    let a = server(&t, "agent-a").await;
    let b = server(&t, "agent-b").await;
    let id_a = stage(&a, "a.py", "load_data").await;
    let id_b = stage(&b, "b.py", "get_data").await;
    let (owner_a, owner_b) = (owner_of(&a, &id_a).await, owner_of(&b, &id_b).await);
    assert!(owner_a.starts_with("mcp-") && owner_a.len() == 10, "{owner_a}");
    assert_ne!(owner_a, owner_b, "each server process is a session of its own");

    // Each lists both, newest first, with their owners; its own is `mine`.
    for (c, me) in [(&a, &owner_a), (&b, &owner_b)] {
        let (rows, said) = listed(c).await;
        let got: Vec<(Value, Value, Value, Value)> =
            rows.iter().map(|r| (r["id"].clone(), r["owner"].clone(), r["ownerClient"].clone(), r["mine"].clone())).collect();
        assert_eq!(
            got,
            [(json!(id_b), json!(owner_b), json!("agent-b"), json!(&owner_b == me)), (json!(id_a), json!(owner_a), json!("agent-a"), json!(&owner_a == me)),]
        );
        let mine = if &owner_a == me { format!("by {owner_a} (agent-a), yours") } else { format!("by {owner_a} (agent-a)") };
        assert!(said.contains(&format!("  {id_a}  ")) && said.contains(&mine), "{said}");
    }

    // A's resolve without id applies A's own action, though B's is newer.
    let r = resolve(&a, json!({"action": "apply", "reason": "mine"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["label"], "AST Edit: 1 replacement in 1 file");
    assert_eq!((t.read("a.py").as_str(), t.read("b.py").as_str()), ("x = load_data(1)\n", "y = fetch_data(2)\n"));
    // Nothing of A's is left: B's is named, with how to take it by id.
    let r = resolve(&a, json!({"action": "apply", "reason": "again"})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        format!(
            "{NOTHING_PENDING}\nOther sessions have 1 pending action, which a session resolves only by id:\n  {id_b}  {owner_b} (agent-b)  AST Edit: 1 replacement in 1 file\nResolve one by its id: call `resolve` with `\"id\": \"{id_b}\"`."
        )
    );
    assert_eq!(t.read("b.py"), "y = fetch_data(2)\n", "nothing written");

    // B stages a second action; A takes it, by id only.
    let id_b2 = stage(&b, "c.py", "get_data").await;
    let r = resolve(&a, json!({"action": "apply", "reason": "for b", "id": id_b2})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(t.read("c.py"), "z = get_data(3)\n");
    // B's own newest is now its first.
    let r = resolve(&b, json!({"action": "apply", "reason": "mine"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(t.read("b.py"), "y = get_data(2)\n");

    // Undo: B's ast_undo without id undoes B's own last apply (b.py), not A's
    // newer-than-A's-first apply of c.py.
    let r = call(&b, "ast_undo", json!({})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(structured(&r)["id"], id_b.as_str());
    assert_eq!(t.read("b.py"), "y = fetch_data(2)\n");
    assert_eq!(t.read("c.py"), "z = get_data(3)\n", "A's apply of B's action is A's to undo");
    let r = call(&b, "ast_undo", json!({})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        format!(
            "Nothing to undo: no applied action of this session in the journal.\nOther sessions' applies, newest first, which a session undoes only by id (2 applies):\n  {id_b2}  {owner_a} (agent-a)  1 file\n  {id_a}  {owner_a} (agent-a)  1 file\nUndo one by its id: call `ast_undo` with `\"id\": \"{id_b2}\"`."
        )
    );
    // A's undoes its own, newest first.
    let r = call(&a, "ast_undo", json!({})).await;
    assert_eq!(structured(&r)["id"], id_b2.as_str(), "{r:?}");
    let r = call(&a, "ast_undo", json!({})).await;
    assert_eq!(structured(&r)["id"], id_a.as_str(), "{r:?}");
    assert_eq!(t.snapshot(), tree().snapshot(), "every file as it was");

    // A restarted server is a new session: B's pending action is listed as
    // another's and taken only by id.
    let id_b3 = stage(&b, "a.py", "get_data").await;
    let _ = b.cancel().await;
    let c = server(&t, "agent-b").await;
    let (rows, _) = listed(&c).await;
    assert_eq!((rows[0]["id"].clone(), rows[0]["owner"].clone(), rows[0]["mine"].clone()), (json!(id_b3), json!(owner_b), json!(false)));
    let r = resolve(&c, json!({"action": "apply", "reason": "r"})).await;
    assert!(is_error(&r) && text(&r).starts_with(&format!("{NOTHING_PENDING}\nOther sessions have 1 pending action")), "{}", text(&r));
    assert!(text(&r).contains(&format!("  {id_b3}  {owner_b} (agent-b)  ")), "{}", text(&r));
    let r = resolve(&c, json!({"action": "apply", "reason": "r", "id": id_b3})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(t.read("a.py"), "x = get_data(1)\n");
    let new_owner = {
        let id = stage(&c, "b.py", "load_data").await;
        owner_of(&c, &id).await
    };
    assert!(new_owner != owner_b && new_owner != owner_a, "{new_owner}");
    let _ = a.cancel().await;
    let _ = c.cancel().await;
}

#[tokio::test]
async fn the_command_line_takes_an_agents_action_and_undoes_its_apply_only_by_id() {
    let t = tree();
    let m = server(&t, "claude-code").await;
    let id = stage(&m, "a.py", "load_data").await;
    let owner = owner_of(&m, &id).await;

    // Not taken without --id; the message names it.
    let r = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert_eq!(
        r.stderr,
        format!(
            "{NOTHING_PENDING}\nOther sessions have 1 pending action, which a session resolves only by id:\n  {id}  {owner} (claude-code)  AST Edit: 1 replacement in 1 file\nResolve one by its id: `--id {id}`, e.g. `ast-edit resolve apply --reason \"why\" --id {id}`.\n"
        )
    );
    assert_eq!(t.read("a.py"), "x = fetch_data(1)\n");
    let r = t.run(&["resolve", "apply", "--reason", "r", "--json"]).code(1);
    let v: Value = r.json();
    assert!(v["content"].as_str().unwrap().starts_with(&format!("{NOTHING_PENDING}\nOther sessions")), "{v}");

    // `pending` names its owner; the command line's own are `yours`.
    let mine = t.run(&["propose", "--label", "Regenerate", "--apply-cmd", "true", "--json"]).ok().json::<Value>()["id"].as_str().unwrap().to_string();
    let out = t.run(&["pending"]).ok().stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with(&format!("{mine}  ")) && lines[0].ends_with("  Regenerate  [custom_tool]  by cli, yours"), "{out}");
    assert!(
        lines[1].starts_with(&format!("{id}  "))
            && lines[1].ends_with(&format!("  AST Edit: 1 replacement in 1 file (`fetch_data($A)` -> `load_data($A)`)  [ast_edit]  by {owner} (claude-code)")),
        "{out}"
    );
    let rows: Vec<crate::common::json::PendingRow> = t.run(&["pending", "--json"]).ok().json();
    let got: Vec<(&str, &str, Option<&str>, bool)> = rows.iter().map(|r| (r.id.as_str(), r.owner.as_str(), r.owner_client.as_deref(), r.mine)).collect();
    assert_eq!(got, [(mine.as_str(), "cli", None, true), (id.as_str(), owner.as_str(), Some("claude-code"), false)]);
    // Over MCP, the command line's action is another's.
    let (listed_rows, said) = listed(&m).await;
    assert_eq!(
        (listed_rows[0]["owner"].clone(), listed_rows[0]["ownerClient"].clone(), listed_rows[0]["mine"].clone()),
        (json!("cli"), Value::Null, json!(false))
    );
    assert!(said.contains("  Regenerate  [custom_tool]  0 files  by cli\n"), "{said}");
    t.run(&["resolve", "discard", "--reason", "r"]).ok();

    // By --id, the command line applies it; the apply is the command line's.
    t.run(&["resolve", "apply", "--reason", "r", "--id", &id]).ok();
    assert_eq!(t.read("a.py"), "x = load_data(1)\n");
    let r = call(&m, "ast_undo", json!({})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        format!(
            "Nothing to undo: no applied action of this session in the journal.\nOther sessions' applies, newest first, which a session undoes only by id (1 apply):\n  {id}  cli  1 file\nUndo one by its id: call `ast_undo` with `\"id\": \"{id}\"`."
        )
    );

    // The agent applies its own next action; a person undoes it by --id only.
    let id2 = stage(&m, "b.py", "get_data").await;
    assert!(!is_error(&resolve(&m, json!({"action": "apply", "reason": "r"})).await));
    assert_eq!(t.read("b.py"), "y = get_data(2)\n");
    let r = t.run(&["undo"]).ok();
    assert!(r.stdout.starts_with(&format!("Undid {id} (AST Edit: 1 replacement in 1 file): restored 1 file.")), "the command line's own apply: {}", r.stdout);
    assert_eq!(t.read("a.py"), "x = fetch_data(1)\n");
    let r = t.run(&["undo"]).code(1);
    assert_eq!(
        r.stderr,
        format!(
            "Nothing to undo: no applied action of this session in the journal.\nOther sessions' applies, newest first, which a session undoes only by id (1 apply):\n  {id2}  {owner} (claude-code)  1 file\nUndo one by its id: `ast-edit undo --id {id2}`.\n"
        )
    );
    assert_eq!(t.read("b.py"), "y = get_data(2)\n");
    let r = t.run(&["undo", "--id", &id2, "--json"]).ok();
    let v: Value = r.json();
    assert_eq!(v["details"]["id"], id2.as_str());
    assert_eq!(t.read("b.py"), "y = fetch_data(2)\n");
    let r = t.run(&["undo", "--id", &id2]).code(1);
    assert!(r.stderr.starts_with(&format!("Action `{id2}` was applied, then undone at ")), "{}", r.stderr);
    let r = t.run(&["undo", "--id", "ae-000000"]).code(1);
    assert_eq!(r.stderr, "Nothing to undo: the journal holds no apply of `ae-000000` (it keeps the newest 20 applies).\n");
    let _ = m.cancel().await;
}

#[tokio::test]
async fn an_apply_under_a_later_apply_of_the_same_file_is_not_undone() {
    let t = tree();
    // The command line writes a.py; then an agent writes a.py again.
    let cli = crate::common::undo_id(&t.run(&["run", "-U", "-p", "fetch_data($A)", "-r", "load_data($A)", "a.py"]).ok().stdout);
    let m = server(&t, "agent").await;
    let r = call(&m, "ast_edit", json!({"ops": [{"pat": "load_data($A)", "out": "get_data($A)"}], "paths": ["a.py"]})).await;
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    let owner = owner_of(&m, &id).await;
    assert!(!is_error(&resolve(&m, json!({"action": "apply", "reason": "r"})).await));
    assert_eq!(t.read("a.py"), "x = get_data(1)\n");
    // The command line's own last apply lies under the agent's: refused.
    let r = t.run(&["undo"]).code(1);
    assert_eq!(
        r.stderr,
        format!(
            "Cannot undo {cli}: a later apply, {id} by {owner} (agent), also wrote a.py; undo {id} first: `ast-edit undo --id {id}`. Nothing was written.\n"
        )
    );
    assert_eq!(t.read("a.py"), "x = get_data(1)\n");
    let r = call(&m, "ast_undo", json!({"id": cli})).await;
    assert!(is_error(&r));
    assert!(text(&r).ends_with(&format!("undo {id} first: call `ast_undo` with `\"id\": \"{id}\"`. Nothing was written.")), "{}", text(&r));
    // In order, both go back.
    t.run(&["undo", "--id", &id]).ok();
    assert_eq!(t.read("a.py"), "x = load_data(1)\n");
    t.run(&["undo"]).ok();
    assert_eq!(t.read("a.py"), "x = fetch_data(1)\n");
    let _ = m.cancel().await;
}

#[tokio::test]
async fn the_standing_handler_answers_only_when_the_callers_session_has_nothing_pending() {
    let t = tree();
    let standing = [("AST_EDIT_STANDING_CMD", "echo standing: $AST_EDIT_ACTION")];
    let m = serve_as(t.path(), t.state.path(), "agent", &standing).await;
    let id = stage(&m, "a.py", "load_data").await;
    // The command line has nothing of its own: the standing handler answers,
    // the agent's action stays pending.
    let r = t.run_env(&["resolve", "apply", "--reason", "r"], &standing).ok();
    assert_eq!(r.stdout, "standing: apply\n");
    assert_eq!(t.read("a.py"), "x = fetch_data(1)\n");
    assert_eq!(crate::common::store::pending(&t).iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    // With an action of its own, that one is taken, not the standing handler.
    t.run(&["propose", "--label", "Mine", "--apply-cmd", "echo mine ran"]).ok();
    let r = t.run_env(&["resolve", "apply", "--reason", "r"], &standing).ok();
    assert_eq!(r.stdout, "mine ran\n");
    // The server's own action goes first; then, with only another session's
    // action pending (the command line's), the standing handler answers there too.
    let r = resolve(&m, json!({"action": "discard", "reason": "r"})).await;
    assert_eq!(text(&r), "Discarded: AST Edit: 1 replacement in 1 file. Reason: r");
    t.run(&["propose", "--label", "Theirs", "--apply-cmd", "true"]).ok();
    let r = resolve(&m, json!({"action": "apply", "reason": "r"})).await;
    assert!(!is_error(&r), "{r:?}");
    assert_eq!(text(&r), "standing: apply");
    assert_eq!(crate::common::store::pending(&t)[0].label, "Theirs", "the command line's action is left alone");
    let _ = m.cancel().await;
}

#[tokio::test]
async fn an_identical_preview_is_staged_once_per_session() {
    let t = tree();
    let a = server(&t, "a").await;
    let b = server(&t, "b").await;
    let first = stage(&a, "a.py", "load_data").await;
    let r = call(&a, "ast_edit", json!({"ops": [{"pat": "fetch_data($A)", "out": "load_data($A)"}], "paths": ["a.py"]})).await;
    assert_eq!(structured(&r)["id"], first.as_str(), "the same session gets the same action");
    assert_eq!(structured(&r)["status"], "pending");
    let warned = structured(&r)["warnings"].as_array().unwrap();
    assert_eq!(warned.len(), 1, "{warned:?}");
    let w = warned[0].as_str().unwrap();
    assert!(w.starts_with(&format!("this preview is identical to pending action {first}, staged at ")), "{w}");
    assert!(w.ends_with(" by this session: nothing new was staged, and its id is given again"), "{w}");
    assert!(text(&r).contains(w), "the text says so too: {}", text(&r));
    // Another session stages its own; so does the command line, once.
    let other = stage(&b, "a.py", "load_data").await;
    assert_ne!(other, first);
    let cli: Value = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "a.py", "--json"]).ok().json();
    let again: Value = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "a.py", "--json"]).ok().json();
    assert_eq!(cli["id"], again["id"]);
    let said = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "a.py"]).ok().stdout;
    let id = cli["id"].as_str().unwrap();
    assert!(said.contains(&format!("\nAlready pending as action {id} (the same preview; nothing new was staged). Nothing was written yet.\n  apply:   ast-edit resolve apply --reason \"why\" --id {id}\n")), "{said}");
    assert!(cli["id"] != json!(first) && cli["id"] != json!(other), "{cli}");
    assert_eq!(crate::common::store::pending(&t).len(), 3);
    // A changed file makes a new plan: staged anew.
    t.write("a.py", "x = fetch_data(10)\n");
    assert_ne!(stage(&a, "a.py", "load_data").await, first);
    let _ = a.cancel().await;
    let _ = b.cancel().await;
}

/// A new preview of the same ops and paths by the same session, whose files
/// changed since the first, supersedes it: the old id is no longer pending
/// and answers with the new one, so `resolve` without an id never applies the
/// older preview after the newer was applied and undone. Another session's
/// action of the same ops and paths is left alone; on the command line too.
#[tokio::test]
async fn a_new_preview_of_the_same_ops_and_paths_supersedes_the_old_one() {
    let t = tree();
    let a = server(&t, "agent-a").await;
    let b = server(&t, "agent-b").await;
    let others = stage(&b, "a.py", "load_data").await;
    let old = stage(&a, "a.py", "load_data").await;
    t.write("a.py", "x = fetch_data(1)\nw = fetch_data(4)\n");
    let r = call(&a, "ast_edit", json!({"ops": [{"pat": "fetch_data($A)", "out": "load_data($A)"}], "paths": ["a.py"]})).await;
    let new = structured(&r)["id"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    let warning = format!("this preview supersedes pending action {old} (the same ops and paths, staged at ");
    assert!(structured(&r)["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with(&warning)), "{}", text(&r));
    assert!(text(&r).contains(&warning), "{}", text(&r));
    let listed = text(&call(&a, "ast_pending", json!({})).await).to_string();
    assert!(!listed.contains(&old) && listed.contains(&new) && listed.contains(&others), "{listed}");
    // The old id says what became of it.
    let r = resolve(&a, json!({"action": "apply", "reason": "r", "id": old})).await;
    assert!(is_error(&r));
    assert!(
        text(&r).starts_with(&format!("Action `{old}` was superseded by {new} at ")) && text(&r).ends_with(&format!("Resolve {new} instead.")),
        "{}",
        text(&r)
    );
    // Apply and undo the newer: nothing of this session is pending any more.
    assert!(!is_error(&resolve(&a, json!({"action": "apply", "reason": "r"})).await));
    assert!(!is_error(&call(&a, "ast_undo", json!({})).await));
    let r = resolve(&a, json!({"action": "apply", "reason": "r"})).await;
    assert!(is_error(&r) && text(&r).starts_with(NOTHING_PENDING), "{}", text(&r));
    assert_eq!(t.read("a.py"), "x = fetch_data(1)\nw = fetch_data(4)\n");
    let _ = a.cancel().await;
    let _ = b.cancel().await;
    // The command line: `show` of the old id names the new one.
    let cli_stage = || {
        let p: crate::common::json::Preview = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "b.py", "--json"]).ok().json();
        p.id.expect("staged")
    };
    let first = cli_stage();
    t.write("b.py", "y = fetch_data(2)\nv = fetch_data(5)\n");
    let second = cli_stage();
    let r = t.run(&["show", &first]).code(1);
    assert!(r.stderr.contains(&format!("was superseded by {second} at ")), "{}", r.stderr);
}
