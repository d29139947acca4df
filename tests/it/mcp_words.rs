//! An agent that reaches ast-edit only over MCP must never be told to pass a
//! CLI flag or run an `ast-edit` command (docs/DESIGN.md §5.14). This drives
//! every tool of the real server (rmcp's client, as in tests/it/mcp.rs) through its
//! error and warning paths, with every kind of skipped file the walk and the
//! reader report, and checks each text and each string of `structuredContent`.

use crate::common::Tree;
use crate::common::mcp::connect;
use regex::Regex;
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use serde_json::{Value, json};

/// The subcommands of the CLI, as `ast-edit --help` lists them.
const SUBCOMMANDS: &str = "run|resolve|pending|show|undo|langs|scan|test|propose|mcp|tree|search|help";

/// The size cap of the MCP server (`DEFAULT_MAX_FILESIZE`, docs/DESIGN.md §7).
const MAX_FILESIZE: usize = 16 * 1024 * 1024;

/// The CLI words an MCP text must not hold: a long flag, a short flag of the
/// CLI (`-l`, `-g`, `-C`, `-p`, `-r`, `-U`), or an `ast-edit <subcommand>` line.
fn cli_words() -> Regex {
    Regex::new(&format!(r"--[a-z]|(^|[\s`(])-[lgCprU]([\s`)]|$)|ast-edit ({SUBCOMMANDS})\b")).unwrap()
}

/// Every call made and what came back, for the checks at the end.
struct Session {
    client: RunningService<RoleClient, ()>,
    seen: Vec<(String, CallToolResult)>,
}

impl Session {
    async fn call(&mut self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args.clone() else { panic!("arguments must be an object") };
        let r = self.client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map)).await.expect("a tool result");
        crate::common::conform::conforms(tool, &r);
        self.seen.push((format!("{tool} {args}"), r.clone()));
        r
    }

    /// A call that must fail (`isError`), its text returned.
    async fn error(&mut self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{tool} {args} should fail: {}", text(&r));
        text(&r)
    }

    /// A call that must succeed, its text returned.
    async fn ok(&mut self, tool: &str, args: Value) -> CallToolResult {
        let r = self.call(tool, args.clone()).await;
        assert_ne!(r.is_error, Some(true), "{tool} {args} should succeed: {}", text(&r));
        r
    }
}

fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect::<Vec<_>>().join("\n")
}

/// Every string inside `v` (keys included), with its JSON path.
fn strings(v: &Value, at: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((at, s.clone())),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| strings(x, format!("{at}[{i}]"), out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push((format!("{at} key"), k.clone()));
            strings(x, format!("{at}.{k}"), out)
        }),
        _ => {}
    }
}

/// The tree: a small Python package with one file of each kind the walk or the
/// reader skips, a file broken before any edit, a minified line, a file with a
/// large diff, many binary files (so that the bounded result leaves some out),
/// Rust and C files (languages some patterns cannot express), and a folder of
/// no language at all.
fn tree() -> Tree {
    let t = Tree::empty();
    t.write(
        "pkg/core.py",
        "from django.db import models\n\n\ndef load(client, name):\n    data = fetch_data(client, name, 1)\n    more = fetch_data(fetch_data(client, name), 2)\n    return data + more\n\n\nclass Book(models.Model):\n    author = models.ForeignKey(Author, on_delete=models.CASCADE)\n",
    );
    t.write("pkg/test_core.py", "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n        self.assertEquals(load(1, 2), 3)\n");
    t.write("pkg/latin1.py", b"name = '\xe9t\xe9'\nfetch_data(name)\n");
    t.write("pkg/binary.py", b"fetch_data(1)\0\n");
    let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    t.write("pkg/deep.py", format!("x = {deep} == {deep}\nfetch_data(x == x)\n"));
    t.write("pkg/minified.py", format!("x = [fetch_data(1), {}]\n", "1, ".repeat(1500)));
    t.write("pkg/big.py", format!("fetch_data(1)\n{}", "#".repeat(MAX_FILESIZE)));
    t.write("broken/bad.py", "fetch_data(1)\ndef f(:\n");
    t.write("huge/many.py", (0..3000).map(|i| format!("v{i} = fetch_data({i})\n")).collect::<String>());
    for i in 0..80 {
        t.write(&format!("bins/a_binary_file_with_a_rather_long_name_{i:03}.py"), b"fetch_data(1)\0\n");
    }
    t.write("lib/util.rs", "fn main() { let x = fetch_data(1, 2); }\n");
    t.write("lib/u.c", "int main() { return fetch_data(1, 2); }\n");
    t.write("notes/readme.txt", "fetch_data(1)\n");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"pkg/bad\xffname.py");
        std::fs::write(t.path().join(name), "fetch_data(1)\n").unwrap();
        let fifo = t.path().join("pkg/pipe.py");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    }
    t
}

fn op(pat: &str, out: &str) -> Value {
    json!({"pat": pat, "out": out})
}

/// `ast_edit`: bad arguments, then warnings and every skip reason.
async fn edit_paths(s: &mut Session) {
    for args in [
        json!({"ops": []}),
        json!({}),
        json!({"ops": [{"pat": "a"}]}),
        json!({"ops": [op("a", "b")], "bogus": 1}),
        json!({"ops": [op("foo(", "bar(")], "lang": "py"}),
        json!({"ops": [op("kfree($A)", "free($A)")], "lang": "c"}),
        json!({"ops": [op("a", "b")], "paths": ["nope"]}),
        json!({"ops": [op("a", "b")], "paths": ["pkg/*.py"]}),
        json!({"ops": [op("a", "b")], "paths": ["/etc"]}),
        json!({"ops": [op("a", "b")], "paths": ["../outside"]}),
        json!({"ops": [op("a", "b")], "lang": "cobol"}),
        json!({"ops": [op("a", "b")], "selector": " "}),
        json!({"ops": [op("a", "b")], "strictness": "loose"}),
        json!({"ops": [op("a", "b")], "maxFiles": 0}),
        json!({"ops": [op("a", "b"), op("a", "c")]}),
        json!({"ops": [op("a", "b")], "rule": "id: x"}),
        json!({"rule": "id: x\nlanguage: cobol\nrule: {pattern: a}\nfix: b"}),
        json!({"rule": "id: x\nlanguage: python\nrule: {pattern: 'foo('}\nfix: b"}),
        json!({"rule": "not: [valid"}),
        json!({"ops": [op("f(on_delete=$A)", "x")], "lang": "py", "selector": "no_such_kind"}),
        json!({"ops": [op("fetch_data($A)", "$B")], "lang": "py"}),
    ] {
        s.error("ast_edit", args).await;
    }
    // Zero matches, each with its diagnosis.
    for args in [
        json!({"ops": [op("on_delete=models.CASCADE", "x")]}),
        json!({"ops": [op("fetch_data($$$A, 2)", "g($$$A)")], "lang": "py", "paths": ["pkg/core.py"]}),
        json!({"ops": [op("lambda: $A", "f")]}),
        json!({"ops": [op("fetch_data($A)", "g($A)")], "paths": ["notes"]}),
        json!({"ops": [op("fetch_data($A)", "g($A)")], "lang": "rust", "paths": ["pkg"]}),
        json!({"ops": [op("f(on_delete=$A)", "f(on_delete=x)")], "lang": "py", "selector": "keyword_argument"}),
        json!({"rule": "id: no-fetch\nlanguage: python\nrule: {pattern: 'fetch_data($$$A)'}\nmessage: use load_data", "paths": ["pkg"]}),
        json!({"rule": "id: r\nlanguage: python\nrule: {pattern: 'fetch_data($$$A)'}\nfix: 'load_data($$$A)'", "paths": ["pkg"]}),
    ] {
        s.ok("ast_edit", args).await;
    }
    // Every skip reason, nested matches, a cut diff line, the maxFiles cap, a
    // file broken before, and added syntax errors.
    let r = s
        .ok(
            "ast_edit",
            json!({"ops": [op("fetch_data($$$A)", "load_data($$$A)"), op("self.assertEquals($A, $B)", "self.assertEqual($A, $B")], "paths": ["pkg", "broken"]}),
        )
        .await;
    let reasons = text(&r);
    for reason in [
        "binary file",
        "not valid UTF-8",
        "too large",
        "`ast_edit` has no field to raise it",
        "file name is not valid UTF-8",
        "diff line(s) longer than",
        "introduces syntax errors",
        "nested in or overlapping",
    ] {
        assert!(reasons.contains(reason), "{reason} in:\n{reasons}");
    }
    let r = s.ok("ast_edit", json!({"ops": [op("$A == $A", "True")], "lang": "py", "paths": ["pkg/deep.py", "pkg/pipe.py"]})).await;
    for reason in ["matching recursed deeper than 4096 KiB of stack here", "not a regular file"] {
        assert!(text(&r).contains(reason), "{reason} in:\n{}", text(&r));
    }
    s.ok("ast_edit", json!({"ops": [op("fetch_data($A)", "g($A)")], "paths": ["pkg"], "maxFiles": 1})).await;
    // A result over both budgets: the diff of one file cut, skipped files left out.
    let r = s.ok("ast_edit", json!({"ops": [op("fetch_data($A)", "load_data($A)")], "paths": ["huge", "bins"]})).await;
    let v = r.structured_content.as_ref().unwrap().to_string();
    assert!(v.contains("more diff lines cut") && v.contains("leaves out"), "bounded: {v:.600}");
}

/// `ast_search`: its own errors and its skipped-file warnings.
async fn search_paths(s: &mut Session) {
    for args in [
        json!({}),
        json!({"ops": [op("a", "b")]}),
        json!({"ops": [{"pat": "a"}], "limit": 0}),
        json!({"ops": [{"pat": "a"}], "limit": 500}),
        json!({"ops": [{"pat": "fetch_data($A)"}], "offset": 100000}),
        json!({"ops": [{"pat": "foo("}], "lang": "py"}),
        json!({"ops": [{"pat": "kfree($A)"}], "lang": "c"}),
        json!({"ops": [{"pat": "a"}], "lang": "cobol"}),
        json!({"ops": [{"pat": "a"}], "paths": ["pkg/*.py"]}),
        json!({"ops": [{"pat": "a"}], "paths": ["/etc"]}),
        json!({"rule": "id: x\nlanguage: cobol\nrule: {pattern: a}"}),
    ] {
        s.error("ast_search", args).await;
    }
    let r = s.ok("ast_search", json!({"ops": [{"pat": "fetch_data($A)"}], "paths": ["pkg"], "limit": 1})).await;
    assert!(text(&r).contains("too large"), "{}", text(&r));
    s.ok("ast_search", json!({"ops": [{"pat": "on_delete=models.CASCADE"}]})).await;
    s.ok("ast_search", json!({"ops": [{"pat": "lambda: $A"}]})).await;
    s.ok("ast_search", json!({"ops": [{"pat": "$A == $A"}], "lang": "py", "paths": ["pkg/deep.py", "pkg/pipe.py"]})).await;
}

/// `ast_tree`: errors, a pattern that cannot match, a truncated tree.
async fn tree_paths(s: &mut Session) {
    for args in [
        json!({"code": "x", "lang": "cobol"}),
        json!({"code": "x".repeat(70_000), "lang": "py"}),
        json!({"code": "x"}),
        json!({"code": "x", "lang": "py", "bogus": true}),
    ] {
        s.error("ast_tree", args).await;
    }
    s.ok("ast_tree", json!({"code": "kfree($A)", "lang": "c", "isPattern": true})).await;
    s.ok("ast_tree", json!({"code": "$a + $b", "lang": "py", "isPattern": true})).await;
    s.ok("ast_tree", json!({"code": "on_delete=models.CASCADE", "lang": "py", "isPattern": true})).await;
    s.ok("ast_tree", json!({"code": "x = [".to_string() + &"1, ".repeat(400) + "]", "lang": "py"})).await;
}

/// Discards every pending action, newest first.
async fn discard_all(s: &mut Session) {
    while s.call("resolve", json!({"action": "discard", "reason": "start afresh"})).await.is_error != Some(true) {}
}

/// `resolve`, `ast_pending` and `ast_undo`: every refusal, then each way an
/// action ends, and what each tool says of an id that ended that way.
async fn resolve_paths(s: &mut Session, t: &Tree) {
    discard_all(s).await;
    s.error("resolve", json!({"action": "apply", "reason": "r"})).await;
    s.error("resolve", json!({"action": "apply", "reason": "r", "id": "ae-ffffff"})).await;
    s.error("ast_undo", json!({})).await;
    s.error("ast_pending", json!({"id": "ae-ffffff"})).await;
    s.error("ast_pending", json!({"fileOffset": 2})).await;
    s.ok("ast_pending", json!({})).await;
    let flagged =
        json!({"ops": [op("fetch_data($$$A)", "load_data($$$A)"), op("self.assertEquals($A, $B)", "self.assertEqual($A, $B")], "paths": ["pkg", "broken"]});
    let r = s.ok("ast_edit", flagged.clone()).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    for args in [
        json!({"action": "apply"}),
        json!({"action": "maybe", "reason": "r"}),
        json!({"action": "apply", "reason": "r"}),
        json!({"action": "apply", "reason": "r", "extra": {"file": ["pkg/core.py"]}}),
        json!({"action": "apply", "reason": "r", "extra": {"files": "pkg/core.py"}}),
        json!({"action": "apply", "reason": "r", "extra": {"exclude": "pkg/test_core.py"}}),
        json!({"action": "apply", "reason": "r", "extra": {"exclude": ["nope.py"]}}),
        json!({"action": "apply", "reason": "r", "extra": {"skipFlagged": true, "allowSyntaxErrors": true}}),
        json!({"action": "apply", "reason": "r", "extra": {"stale": "maybe"}}),
        json!({"action": "apply", "reason": "r", "extra": {"verify": "never"}}),
        json!({"action": "discard", "reason": "r", "extra": {"exclude": ["pkg/test_core.py"]}}),
        json!({"action": "apply", "reason": "r", "extra": "skip"}),
    ] {
        s.error("resolve", args).await;
    }
    for args in [json!({"id": id, "fileOffset": 99}), json!({"id": id, "limit": 101}), json!({"id": id, "limit": 0})] {
        s.error("ast_pending", args).await;
    }
    s.ok("ast_pending", json!({"id": id})).await;
    // A file changed since the preview.
    t.write("pkg/core.py", t.read("pkg/core.py") + "\n# changed\n");
    s.error("resolve", json!({"action": "apply", "reason": "r", "extra": {"skipFlagged": true}})).await;
    let r = s.call("resolve", json!({"action": "apply", "reason": "r", "extra": {"skipFlagged": true, "stale": "skip"}})).await;
    assert!(text(&r).contains("not_selected") || text(&r).contains("Incomplete"), "{}", text(&r));
    // The flagged file left out stays pending under the id: refused again, then discarded.
    s.error("resolve", json!({"action": "apply", "reason": "r", "id": id})).await;
    s.ok("ast_pending", json!({"id": id})).await;
    s.error("ast_undo", json!({"id": "ae-000001"})).await;
    s.ok("ast_undo", json!({"id": id})).await;
    s.ok("resolve", json!({"action": "discard", "reason": "r", "id": id})).await;
    s.error("resolve", json!({"action": "discard", "reason": "r", "id": id})).await;
    s.error("ast_pending", json!({"id": id})).await;
    // Discarded, and cleared by a person from a shell.
    let r = s.ok("ast_edit", json!({"ops": [op("fetch_data($$$A)", "g($$$A)")], "paths": ["pkg/core.py"]})).await;
    let discarded = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    s.ok("resolve", json!({"action": "discard", "reason": "r"})).await;
    s.error("resolve", json!({"action": "apply", "reason": "r", "id": discarded})).await;
    let r = s.ok("ast_edit", json!({"ops": [op("fetch_data($$$A)", "g($$$A)")], "paths": ["pkg/core.py"]})).await;
    let cleared = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    t.run(&["pending", "--clear", "--yes"]).ok();
    let said = s.error("resolve", json!({"action": "apply", "reason": "r", "id": cleared})).await;
    assert!(said.contains("was dropped"), "{said}");
    s.error("ast_pending", json!({"id": cleared})).await;
    // A command action and an action outside the root, staged from a shell:
    // another session's, named in the nothing-pending text and taken by id.
    t.run(&["propose", "--label", "Regenerate", "--apply-cmd", "exit 3"]).ok();
    s.ok("ast_pending", json!({})).await;
    let listed = s.ok("ast_pending", json!({})).await;
    let command_id = listed.structured_content.as_ref().unwrap()["actions"][0]["id"].as_str().unwrap().to_string();
    s.ok("ast_pending", json!({"id": command_id})).await;
    let said = s.error("resolve", json!({"action": "apply", "reason": "r"})).await;
    assert!(said.contains(&command_id), "{said}");
    s.error("resolve", json!({"action": "apply", "reason": "r", "id": command_id})).await;
    s.ok("resolve", json!({"action": "discard", "reason": "r", "id": command_id})).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.py"), "fetch_data(1)\n").unwrap();
    let staged = std::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"))
        .args(["run", "-p", "fetch_data($A)", "-r", "g($A)", "o.py"])
        .current_dir(outside.path())
        .env("AST_EDIT_STATE_DIR", t.state.path())
        .output()
        .unwrap();
    assert!(staged.status.success(), "{}", String::from_utf8_lossy(&staged.stderr));
    let listed = s.ok("ast_pending", json!({})).await;
    let outside_id = listed.structured_content.as_ref().unwrap()["actions"][0]["id"].as_str().unwrap().to_string();
    s.error("resolve", json!({"action": "apply", "reason": "r", "id": outside_id})).await;
    s.error("ast_pending", json!({"id": outside_id})).await;
    s.ok("resolve", json!({"action": "discard", "reason": "r", "id": outside_id})).await;
    // An apply from a shell, then this session's over the same file: the
    // shell's is another session's, and lies under this session's.
    let shell = crate::common::undo_id(&t.run(&["run", "-U", "-p", "fetch_data($$$A)", "-r", "g($$$A)", "pkg/core.py"]).ok().stdout);
    s.error("ast_undo", json!({})).await;
    s.ok("ast_edit", json!({"ops": [op("g($$$A)", "h($$$A)")], "paths": ["pkg/core.py"]})).await;
    s.ok("resolve", json!({"action": "apply", "reason": "r"})).await;
    s.error("ast_undo", json!({"id": shell})).await;
    s.ok("ast_undo", json!({})).await;
    s.ok("ast_undo", json!({"id": shell})).await;
    // The big preview, paged.
    let r = s.ok("ast_edit", json!({"ops": [op("fetch_data($A)", "load_data($A)")], "paths": ["huge"]})).await;
    let big = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    let page = s.ok("ast_pending", json!({"id": big})).await;
    assert!(text(&page).contains("Rest of this diff: `ast_pending`"), "{}", text(&page));
    let next = page.structured_content.as_ref().unwrap()["nextDiffOffset"].clone();
    s.ok("ast_pending", json!({"id": big, "diffOffset": next})).await;
    s.ok("resolve", json!({"action": "discard", "reason": "r"})).await;
    s.error("resolve", json!({"action": "discard", "reason": "r"})).await;
}

#[tokio::test]
async fn no_mcp_result_names_a_cli_flag_or_an_ast_edit_command() {
    let t = tree();
    let mut s = Session { client: connect(&t).await, seen: Vec::new() };
    edit_paths(&mut s).await;
    search_paths(&mut s).await;
    tree_paths(&mut s).await;
    resolve_paths(&mut s, &t).await;
    let cli = cli_words();
    let mut found = Vec::new();
    for (call, r) in &s.seen {
        let mut all = vec![("text".to_string(), text(r))];
        if let Some(v) = &r.structured_content {
            strings(v, "structuredContent".into(), &mut all);
        }
        for (at, string) in all {
            if let Some(m) = cli.find(&string) {
                let from = string[..m.start()].char_indices().rev().nth(80).map_or(0, |(i, _)| i);
                let to = string[m.end()..].char_indices().nth(80).map_or(string.len(), |(i, _)| m.end() + i);
                found.push(format!("{call}\n  {at}: …{}…", &string[from..to]));
            }
        }
    }
    assert!(s.seen.len() > 80, "{} calls", s.seen.len());
    assert!(found.is_empty(), "{} CLI words in MCP results:\n{}", found.len(), found.join("\n"));
    let _ = s.client.cancel().await;
}
