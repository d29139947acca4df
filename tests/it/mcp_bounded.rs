//! Every MCP result is bounded, and an agent is never at a dead end: the real
//! server (`ast-edit mcp`) driven by rmcp's client over stdio, on an edit of 2,000
//! files. The `ast_edit` and `resolve` results stay within their budgets with
//! every count intact, `ast_pending` pages through every file exactly once,
//! `ast_undo` puts the bytes back (and refuses what it must), `contextLines` sets
//! the diffs' context, and every tool schema passes a strict client's lint.

use crate::common::files_under;
use crate::common::mcp::{self, Client, Env, call, is_error, structured, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// The budgets of docs/DESIGN.md section 7, as the server must keep them.
const TEXT_BUDGET: usize = 20_000;
const STRUCTURED_BUDGET: usize = 40_000;
/// The bytes of the `tools/list` result (every tool's description and schemas, as
/// compact JSON): a client puts it into the model's context at the start of
/// every session. Raised from 12,288 by the template check's keys
/// (`templateMismatch`, `layoutFallbacks`, `editsChecked`,
/// `allowTemplateMismatch`), then to 14 KiB when `ast_search`'s fields got
/// `ast_edit`'s descriptions, then to 15 KiB when `ast_undo`'s output schema listed
/// the `label` every undo returns and `ast_pending` took a diff line offset.
const TOOLS_LIST_BUDGET: usize = 15_360;
const REMINDER: &str = "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>";

/// What this file's tests add to an [`Env`].
trait Files {
    fn many_files(&self, count: usize);
    async fn connect(&self) -> Client;
}

impl Files for Env {
    /// `count` Python files under `root/pkgNN/`, each with one call to rename
    /// between unchanged lines.
    fn many_files(&self, count: usize) {
        for i in 0..count {
            let dir = self.root.join(format!("pkg{:02}", i % 20));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("mod_{i:04}.py")), source(i)).unwrap();
        }
    }

    async fn connect(&self) -> Client {
        mcp::serve(&self.root, &self.state).await
    }
}

fn source(i: usize) -> String {
    format!("def handler_{i}():\n    a = 1\n    b = 2\n    c = 3\n    x = old_name({i})\n    d = 4\n    e = 5\n    return x\n")
}

/// (characters of the text, characters of `structuredContent` as compact JSON),
/// each checked against its budget.
fn sizes(r: &CallToolResult) -> (usize, usize) {
    let t = text(r).chars().count();
    let s = r.structured_content.as_ref().map_or(0, |v| serde_json::to_string(v).unwrap().chars().count());
    assert!(t <= TEXT_BUDGET + REMINDER.len() + 2, "text of {t} characters");
    assert!(s <= STRUCTURED_BUDGET, "structuredContent of {s} characters");
    (t, s)
}

fn rename(extra: Value) -> Value {
    let mut args = json!({"ops": [{"pat": "old_name($A)", "out": "new_name($A)"}], "lang": "py"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    args
}

/// The whole preview details of `id`, from the CLI (`show --json` is not bounded).
fn full_details(env: &Env, id: &str) -> Value {
    let out = env.cli(&env.root, &["show", id, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test]
async fn a_2000_file_edit_stays_within_the_budgets_and_pages_reach_every_file_once() {
    let env = Env::empty();
    env.many_files(2000);
    let client = env.connect().await;

    let r = call(&client, "ast_edit", rename(json!({}))).await;
    assert!(!is_error(&r), "{r:?}");
    let (t_chars, s_chars) = sizes(&r);
    eprintln!("ast_edit: text {t_chars} characters, structuredContent {s_chars}");
    let d = structured(&r);
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(d["totalReplacements"], 2000);
    assert_eq!(d["filesTouched"], 2000);
    assert_eq!(d["filesSearched"], 2000);
    assert_eq!(d["truncated"], true);
    let kept = d["files"].as_array().unwrap();
    assert!(!kept.is_empty());
    assert_eq!(d["filesOmitted"], 2000 - kept.len());
    // The entries kept are whole, the first ones in path order.
    let full = full_details(&env, &id);
    let all = full["files"].as_array().unwrap();
    assert_eq!(all.len(), 2000);
    assert_eq!(kept[..], all[..kept.len()]);
    let note = d["warnings"].as_array().unwrap().last().unwrap().as_str().unwrap();
    assert!(note.contains(&format!("`ast_pending` {{\"id\": \"{id}\", \"fileOffset\": {}}}", kept.len())), "{note}");
    // The text counts the files per folder, shows diffs, and says where to go on.
    let t = text(&r);
    assert!(
        t.contains(&format!(
            "\nFiles: 2000 in 20 folders (each file with its diff: `ast_pending` {{\"id\": \"{id}\"}}):\n  pkg00/  100 files, 100 replacements\n"
        )),
        "{t}"
    );
    assert!(t.contains("```diff\n--- a/pkg00/mod_0000.py\n"), "{t}");
    let offset: usize = t.split("\"fileOffset\": ").nth(1).and_then(|s| s.split('}').next()).unwrap().parse().unwrap();
    let body = t.split("```diff\n").nth(1).unwrap();
    assert!(body.contains(all[offset - 1]["diff"].as_str().unwrap()), "the file before fileOffset is shown whole");
    assert!(!body.contains(all[offset]["diff"].as_str().unwrap()), "the file at fileOffset is not");
    assert!(t.ends_with(REMINDER));

    // The list names the action; its pages reach every file exactly once.
    let r = call(&client, "ast_pending", json!({})).await;
    assert_eq!(structured(&r)["actions"][0]["id"], id.as_str());
    assert_eq!(structured(&r)["actions"][0]["fileCount"], 2000);
    let mut seen: Vec<Value> = Vec::new();
    let mut next = Some(0u64);
    let mut pages = 0;
    while let Some(at) = next {
        let r = call(&client, "ast_pending", json!({"id": id, "fileOffset": at, "limit": 100})).await;
        assert!(!is_error(&r), "{r:?}");
        sizes(&r);
        let p = structured(&r);
        assert_eq!(p["fileOffset"], at);
        assert_eq!(p["truncated"], false);
        let files = p["files"].as_array().unwrap();
        assert!(!files.is_empty() && files.len() <= 100);
        seen.extend(files.iter().cloned());
        next = p["nextFileOffset"].as_u64();
        assert_eq!(p["filesOmitted"], 2000 - seen.len(), "{p}");
        match next {
            Some(n) => {
                assert_eq!(n as usize, seen.len());
                assert!(text(&r).ends_with(&format!(
                    "Next page: `ast_pending` {{\"id\": \"{id}\", \"fileOffset\": {n}}}. Apply or discard the whole action with `resolve`."
                )));
            }
            None => assert!(text(&r).contains("This is the last page.")),
        }
        pages += 1;
    }
    assert_eq!(seen[..], all[..], "every file exactly once, whole, in path order");
    eprintln!("ast_pending: {pages} pages");

    let r = call(&client, "resolve", json!({"action": "apply", "reason": "rename old_name"})).await;
    assert!(!is_error(&r), "{r:?}");
    let (t_chars, s_chars) = sizes(&r);
    eprintln!("resolve: text {t_chars} characters, structuredContent {s_chars}");
    let d = structured(&r);
    assert_eq!(d["truncated"], true);
    let report = &d["sourceResultDetails"];
    assert_eq!(report["status"], "applied");
    assert_eq!(report["totalReplacements"], 2000);
    assert_eq!(report["filesTouched"], 2000);
    let files = report["files"].as_array().unwrap();
    assert!(!files.is_empty());
    assert_eq!(d["filesOmitted"], 2000 - files.len());
    assert_eq!(files[0]["path"], "pkg00/mod_0000.py");
    assert_eq!(files[0]["status"], "applied");
    let t = text(&r);
    assert!(t.starts_with("Applied 2000 replacements in 2000 files.\n  applied  pkg00/mod_0000.py (1 replacement)\n"), "{t}");
    assert!(t.ends_with(&format!("\n  … and 1950 more: 1950 applied\nTo undo: call `ast_undo` with `\"id\": \"{id}\"`")), "{t}");
    assert_eq!(std::fs::read_to_string(env.root.join("pkg19/mod_1999.py")).unwrap(), source(1999).replace("old_name", "new_name"));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn ast_undo_restores_the_bytes_and_refuses_an_unknown_id() {
    let env = Env::empty();
    env.many_files(60);
    let before = files_under(&env.root);
    let client = env.connect().await;
    let r = call(&client, "ast_undo", json!({})).await;
    assert!(is_error(&r));
    assert_eq!(text(&r), "Nothing to undo: no applied action in the journal.");

    let r = call(&client, "ast_edit", rename(json!({}))).await;
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    let r = call(&client, "resolve", json!({"action": "apply", "reason": "rename", "id": id})).await;
    assert!(!is_error(&r), "{r:?}");
    let applied = files_under(&env.root);
    assert_ne!(applied, before);

    let r = call(&client, "ast_undo", json!({"id": "ae-000000"})).await;
    assert!(is_error(&r));
    assert_eq!(text(&r), "Nothing to undo: the journal holds no apply of `ae-000000` (it keeps the newest 20 applies).");
    assert_eq!(files_under(&env.root), applied, "a refused undo writes nothing");

    let r = call(&client, "ast_undo", json!({"id": id})).await;
    assert!(!is_error(&r), "{r:?}");
    sizes(&r);
    assert_eq!(files_under(&env.root), before, "every byte put back");
    let t = text(&r);
    assert!(t.starts_with(&format!("Undid {id} (AST Edit: 60 replacements in 60 files): restored 60 files.\n  restored pkg00/mod_0000.py\n")), "{t}");
    assert!(t.ends_with("\n  … and 10 more: 10 restored"), "{t}");
    let d = structured(&r);
    assert_eq!(d["id"], id.as_str());
    assert_eq!(d["status"], "restored");
    assert_eq!(d["restored"].as_array().unwrap().len(), 60);
    assert_eq!((d["truncated"].clone(), d["filesOmitted"].clone()), (json!(false), json!(0)));

    let r = call(&client, "ast_undo", json!({})).await;
    assert_eq!(text(&r), "Nothing to undo: no applied action in the journal.");
    // After the undo, the action's id says what became of it.
    let r = call(&client, "ast_pending", json!({"id": id})).await;
    assert!(is_error(&r));
    assert!(
        text(&r).contains("was applied, then undone at") && text(&r).ends_with("Call `ast_pending` without `id` to list the pending actions and their ids."),
        "{}",
        text(&r)
    );
    let _ = client.cancel().await;
}

#[tokio::test]
async fn ast_undo_refuses_an_apply_that_wrote_outside_the_root() {
    let env = Env::empty();
    let secret = env.base.join("outside/secret.py");
    std::fs::write(&secret, "x = old_name(1)\n").unwrap();
    // A person applies an edit of outside/ from the parent folder (same state dir).
    let out = env.cli(&env.base, &["run", "-U", "-l", "py", "-p", "old_name($A)", "-r", "new_name($A)", "outside"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "x = new_name(1)\n");
    let client = env.connect().await;
    // The command line's apply is another session's: named by its id.
    let undo = crate::common::undo_id(&String::from_utf8_lossy(&out.stdout));
    let r = call(&client, "ast_undo", json!({"id": undo})).await;
    assert!(is_error(&r));
    let t = text(&r);
    assert!(t.starts_with(&format!("The apply of {undo} wrote 1 file outside this server's root")) && t.contains(secret.to_str().unwrap()), "{t}");
    assert!(t.ends_with("a person can undo it from a shell, with the ast-edit command line."), "{t}");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "x = new_name(1)\n", "nothing written");
    let _ = client.cancel().await;
    let out = env.cli(&env.base, &["undo"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "x = old_name(1)\n");
}

#[tokio::test]
async fn context_lines_zero_gives_diffs_without_context_and_eleven_is_refused() {
    let env = Env::empty();
    env.many_files(2);
    let client = env.connect().await;
    let r = call(&client, "ast_edit", rename(json!({"contextLines": 0, "paths": ["pkg00"]}))).await;
    assert!(!is_error(&r), "{r:?}");
    let diff = structured(&r)["files"][0]["diff"].as_str().unwrap().to_string();
    assert_eq!(diff, "--- a/pkg00/mod_0000.py\n+++ b/pkg00/mod_0000.py\n@@ -5 +5 @@\n-    x = old_name(0)\n+    x = new_name(0)\n");
    // The stored action keeps the diff it previewed.
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    let r = call(&client, "ast_pending", json!({"id": id})).await;
    assert_eq!(structured(&r)["files"][0]["diff"], diff.as_str());
    let r = call(&client, "ast_edit", rename(json!({"contextLines": 1, "paths": ["pkg00"]}))).await;
    let one = structured(&r)["files"][0]["diff"].as_str().unwrap();
    assert!(one.contains("@@ -4,3 +4,3 @@\n     c = 3\n-    x = old_name(0)\n+    x = new_name(0)\n     d = 4\n"), "{one}");
    let r = call(&client, "ast_edit", rename(json!({"contextLines": 11}))).await;
    assert!(is_error(&r));
    assert_eq!(text(&r), "contextLines is 11; the limit is 10 context lines: give 0 to 10 (default 3)");
    let _ = client.cancel().await;

    // The CLI's -C does the same.
    let out = env.cli(&env.root, &["run", "--json", "-C", "0", "-p", "old_name($A)", "-r", "new_name($A)", "pkg00"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["files"][0]["diff"], diff.as_str());
    let out = env.cli(&env.root, &["run", "-C", "11", "-p", "old_name($A)", "-r", "new_name($A)", "pkg00"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "error: -C is 11; the limit is 10 context lines: give 0 to 10 (default 3)");
}

#[tokio::test]
async fn one_diff_larger_than_the_budget_is_cut_at_a_line_and_says_so() {
    let env = Env::empty();
    let body: String = (0..3000).map(|i| format!("x{i} = old_name({i})\n")).collect();
    std::fs::write(env.root.join("big.py"), body).unwrap();
    let client = env.connect().await;
    let r = call(&client, "ast_edit", rename(json!({}))).await;
    sizes(&r);
    let d = structured(&r);
    assert_eq!((d["totalReplacements"].clone(), d["filesOmitted"].clone(), d["truncated"].clone()), (json!(3000), json!(0), json!(true)));
    let id = d["id"].as_str().unwrap();
    let diff = d["files"][0]["diff"].as_str().unwrap();
    assert!(
        diff.ends_with(&format!(
            "cut to keep this result under 40000 characters; the pending action {id} holds the whole diff (`ast_pending` with its id pages through it, \"diffOffset\" on from a cut), and apply writes it whole\n"
        )),
        "{}",
        &diff[diff.len() - 300..]
    );
    let r = call(&client, "ast_pending", json!({"id": id})).await;
    sizes(&r);
    assert_eq!(structured(&r)["truncated"], true);
    assert!(structured(&r).get("nextFileOffset").is_none());
    // The page shows the lines that fit both budgets and the call for the rest
    // (tests/it/mcp_review.rs pages to the end).
    let next = structured(&r)["nextDiffOffset"].as_u64().expect("the rest of the diff");
    assert!(text(&r).contains(&format!("\"diffOffset\": {next}}}")), "{}", text(&r));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn ast_pending_refuses_bad_pages_with_the_way_out() {
    let env = Env::empty();
    env.many_files(3);
    let client = env.connect().await;
    let r = call(&client, "ast_pending", json!({})).await;
    assert!(!is_error(&r));
    assert_eq!(text(&r), "No pending actions: nothing to page through or resolve.");
    assert_eq!(structured(&r), &json!({"actions": [], "actionsOmitted": 0, "truncated": false}));
    let r = call(&client, "ast_pending", json!({"id": "ae-ffffff"})).await;
    assert!(is_error(&r));
    assert_eq!(text(&r), "No pending action with id `ae-ffffff`. Call `ast_pending` without `id` to list the pending actions and their ids.");
    let r = call(&client, "ast_edit", rename(json!({}))).await;
    let id = structured(&r)["id"].as_str().unwrap().to_string();
    for (args, msg) in [
        (
            json!({"id": id, "fileOffset": 3}),
            format!("fileOffset 3 is past the last file: pending action {id} has 3 files (fileOffset 0 to 2). Start again from fileOffset 0."),
        ),
        (
            json!({"id": id, "limit": 101}),
            "limit is 101; the limit is 100 files per page (MAX_PAGE_FILES): ask for 100 or fewer and page on with fileOffset".into(),
        ),
        (json!({"id": id, "limit": 0}), "limit must be at least 1 (files per page)".into()),
        (
            json!({"fileOffset": 1}),
            "fileOffset, diffOffset, limit and path page through one action's files: give its `id` too (call `ast_pending` without arguments to list the pending actions)"
                .into(),
        ),
    ] {
        let r = call(&client, "ast_pending", args.clone()).await;
        assert!(is_error(&r), "{args}");
        assert_eq!(text(&r), msg);
    }
    let r = call(&client, "ast_pending", json!({"id": id, "bogus": 1})).await;
    assert!(is_error(&r));
    assert!(text(&r).starts_with("invalid arguments for `ast_pending`: `bogus`: unknown field `bogus`"), "{}", text(&r));
    let r = call(&client, "ast_pending", json!({"id": id, "fileOffset": 1, "limit": 1})).await;
    assert_eq!(structured(&r)["files"].as_array().unwrap().len(), 1);
    assert_eq!(structured(&r)["files"][0]["path"], "pkg01/mod_0001.py");
    assert_eq!(structured(&r)["nextFileOffset"], 2);
    let _ = client.cancel().await;
}

/// What a strict client's portability lint refuses, found anywhere in `v`: a
/// `type` that is not one string, a `$ref`, a property without a `type`, an
/// object with properties that is not closed (`additionalProperties: false`).
fn lint(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if o.get("type").is_some_and(|t| !t.is_string()) {
                out.push(format!("{at}: `type` is not one string"));
            }
            if o.contains_key("$ref") {
                out.push(format!("{at}: `$ref`"));
            }
            if let Some(Value::Object(props)) = o.get("properties") {
                if o.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(format!("{at}: object not closed"));
                }
                for (k, p) in props {
                    if p.get("type").is_none() {
                        out.push(format!("{at}/properties/{k}: no `type`"));
                    }
                }
            }
            o.iter().for_each(|(k, v)| lint(v, &format!("{at}/{k}"), out));
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| lint(v, &format!("{at}/{i}"), out)),
        _ => {}
    }
}

#[tokio::test]
async fn every_tool_schema_is_portable_and_tools_list_fits_its_budget() {
    let env = Env::empty();
    let client = env.connect().await;
    let tools = client.list_all_tools().await.unwrap();
    let mut found = Vec::new();
    for t in &tools {
        lint(&Value::Object((*t.input_schema).clone()), &format!("{}:input", t.name), &mut found);
        let output = t.output_schema.as_ref().unwrap_or_else(|| panic!("{} has an output schema", t.name));
        lint(&Value::Object((**output).clone()), &format!("{}:output", t.name), &mut found);
    }
    assert_eq!(found, Vec::<String>::new());
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for name in ["ast_pending", "ast_undo"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let pending = tools.iter().find(|t| t.name == "ast_pending").unwrap().annotations.clone().unwrap();
    assert_eq!((pending.read_only_hint, pending.destructive_hint), (Some(true), Some(false)));
    let undo = tools.iter().find(|t| t.name == "ast_undo").unwrap().annotations.clone().unwrap();
    assert_eq!((undo.read_only_hint, undo.destructive_hint), (Some(false), Some(true)));
    let list = serde_json::to_string(&rmcp::model::ListToolsResult::with_all_items(tools)).unwrap();
    eprintln!("tools/list: {} bytes", list.len());
    assert!(list.len() <= TOOLS_LIST_BUDGET, "tools/list is {} bytes", list.len());
    let _ = client.cancel().await;
}
