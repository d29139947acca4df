//! A project's rules over MCP: `ast_edit` and `ast_search` with `project` (the
//! root's `sgconfig.yml`, a folder holding one, or one rule file) and
//! `filter`, confined to the root; the findings of rules without a fix in the
//! text and in `structuredContent`; `ast_search` hits with rule id and message;
//! and `run --request` with a `project` on the CLI. Through the real server
//! (rmcp's client) and the real binary, with the bytes on disk checked.

use crate::common::Tree;
use crate::common::mcp::{call, connect, structured, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// The budgets of docs/DESIGN.md section 7.
const TEXT_BUDGET: usize = 20_000;
const STRUCTURED_BUDGET: usize = 40_000;

const APP: &str = "class T:\n    def test(self):\n        self.assertEquals(f(1), 1)\n        print(\"done\", 2)\n";
const APPLIED: &str = "class T:\n    def test(self):\n        self.assertEqual(f(1), 1)\n        print(\"done\", 2)\n";

/// A project with a rule that fixes and a rule that only reports.
fn project() -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    t.write("rules/eq.yml", "id: assert-equal\nlanguage: python\nrule:\n  pattern: self.assertEquals($A, $B)\nfix: self.assertEqual($A, $B)\n");
    t.write("rules/print.yml", "id: no-print\nlanguage: python\nseverity: warning\nmessage: avoid print of $$$A\nrule:\n  pattern: print($$$A)\n");
    t.write("src/app.py", APP);
    t
}

fn ok(r: &CallToolResult) -> &str {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    text(r)
}

fn err(r: &CallToolResult) -> &str {
    assert_eq!(r.is_error, Some(true), "{}", text(r));
    text(r)
}

#[tokio::test]
async fn the_roots_project_runs_its_rules_stages_the_fixes_and_lists_the_findings() {
    let t = project();
    let c = connect(&t).await;
    for given in [".", "sgconfig.yml"] {
        let r = call(&c, "ast_edit", json!({"project": given})).await;
        let body = ok(&r);
        assert!(body.starts_with("AST Scan: 1 replacement in 1 file (rules: assert-equal) (searched 1 file, 1 finding)\n"), "{body}");
        assert!(
            body.contains("\nFindings (1, of rules without a fix; nothing to apply):\n  src/app.py:4:9: warning[no-print]: avoid print of \"done\", 2\n"),
            "{body}"
        );
        assert!(body.contains("+        self.assertEqual(f(1), 1)"), "{body}");
        assert_eq!(
            structured(&r)["findings"],
            json!([{"path": "src/app.py", "line": 4, "column": 9, "rule": "no-print", "severity": "warning", "message": "avoid print of \"done\", 2"}])
        );
    }
    assert_eq!(t.read("src/app.py"), APP, "a preview writes nothing");
    // The listing says what the action does: its label names its rules.
    let r = call(&c, "ast_pending", json!({})).await;
    assert!(ok(&r).contains("AST Scan: 1 replacement in 1 file (rules: assert-equal)  [ast_edit]"), "{}", text(&r));
    assert_eq!(structured(&r)["actions"][0]["what"], Value::Null);
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "project fixes"})).await;
    ok(&r);
    assert_eq!(t.read("src/app.py"), APPLIED);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn filter_and_a_rule_file_pick_the_rules_that_run() {
    let t = project();
    let c = connect(&t).await;
    // Only the rule without a fix: no contradiction between findings and "no matches".
    let r = call(&c, "ast_edit", json!({"project": ".", "filter": "^no-"})).await;
    let body = ok(&r);
    assert!(
        body.contains(
            "\nNo replacements: the rules that matched have no `fix`, so nothing was staged and there is nothing to resolve. Their findings are listed below.\n"
        ),
        "{body}"
    );
    assert!(!body.contains("No matches"), "{body}");
    assert!(body.ends_with("\n  src/app.py:4:9: warning[no-print]: avoid print of \"done\", 2"), "{body}");
    assert_eq!(structured(&r)["status"], "no_changes");
    // One rule file, by path.
    let r = call(&c, "ast_edit", json!({"project": "rules/eq.yml"})).await;
    let body = ok(&r);
    assert!(body.starts_with("AST Scan: 1 replacement in 1 file (rules: assert-equal)"), "{body}");
    assert!(!body.contains("Findings"), "{body}");
    // Bad filters say what to fix, in this interface's words.
    let r = call(&c, "ast_edit", json!({"project": ".", "filter": "zzz"})).await;
    assert_eq!(err(&r), "`filter` `zzz` matches no rule id; the ids are: assert-equal, no-print");
    let r = call(&c, "ast_edit", json!({"project": ".", "filter": "("})).await;
    assert!(err(&r).starts_with("`filter` `(` is not a valid regular expression: "), "{}", text(&r));
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "f($A)", "out": "g($A)"}], "filter": "x"})).await;
    assert_eq!(err(&r), "`filter` picks rules of a `project` by id: give `project` too, or leave `filter` out");
    let r = call(&c, "ast_edit", json!({"project": ".", "ops": [{"pat": "f($A)", "out": "g($A)"}]})).await;
    assert!(err(&r).starts_with("give one of `ops`, `rule` or `project`"), "{}", text(&r));
    let r = call(&c, "ast_edit", json!({"project": ".", "lang": "py"})).await;
    assert!(err(&r).starts_with("`lang` does not apply to a `project`"), "{}", text(&r));
    let r = call(&c, "ast_edit", json!({"project": "src"})).await;
    assert_eq!(
        err(&r),
        "project `src` is a folder without sgconfig.yml or sgconfig.yaml: give the path of an sgconfig.yml, of the folder holding one, or of a rule file"
    );
    assert_eq!(t.read("src/app.py"), APP);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_project_outside_the_root_or_reading_outside_it_is_refused() {
    let outer = Tree::empty();
    outer.write("rules/print.yml", "id: outside\nlanguage: python\nrule:\n  pattern: print($$$A)\nfix: log($$$A)\n");
    outer.write("root/src/app.py", APP);
    outer.write("root/sgconfig.yml", "ruleDirs: [../rules]\n");
    outer.write("root/inner/sgconfig.yml", "ruleDirs: [rules]\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outer.path().join("rules"), outer.path().join("root/inner/rules")).unwrap();
    let root = outer.path().join("root");
    let c = crate::common::mcp::serve(&root, outer.state.path()).await;
    let r = call(&c, "ast_edit", json!({"project": "../rules/print.yml"})).await;
    assert!(err(&r).starts_with("path `../rules/print.yml` is outside the server's root"), "{}", text(&r));
    let r = call(&c, "ast_edit", json!({"project": "."})).await;
    assert!(err(&r).contains(": `ruleDirs` leads outside the server's root"), "{}", text(&r));
    #[cfg(unix)]
    {
        let r = call(&c, "ast_search", json!({"project": "inner"})).await;
        assert!(err(&r).contains(": `ruleDirs` leads outside the server's root"), "{}", text(&r));
        // A config file or a rule file linked out of the root is not read, not
        // even to quote it in an error.
        outer.write("secret.yml", "password: hunter2\nnot: [valid\n");
        outer.write("root/v/.keep", "");
        std::os::unix::fs::symlink(outer.path().join("secret.yml"), root.join("v/sgconfig.yml")).unwrap();
        std::os::unix::fs::symlink(outer.path().join("rules/print.yml"), root.join("linked.yml")).unwrap();
        for (tool, project) in [("ast_search", "v"), ("ast_edit", "v"), ("ast_search", "linked.yml"), ("ast_edit", "linked.yml")] {
            let r = call(&c, tool, json!({"project": project})).await;
            let e = err(&r);
            assert!(e.contains(&format!("`{project}` leads outside the server's root ")), "{tool} {project}: {}", text(&r));
            assert!(!text(&r).contains("hunter2") && !text(&r).contains("log($$$A)"), "{}", text(&r));
        }
    }
    assert_eq!(std::fs::read_to_string(root.join("src/app.py")).unwrap(), APP);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn ast_search_runs_a_project_and_names_each_hits_rule_and_message() {
    let t = project();
    let c = connect(&t).await;
    let r = call(&c, "ast_search", json!({"project": "."})).await;
    assert_eq!(
        ok(&r),
        "Found 2 matches in 1 file (searched 1 file)\n\
         src/app.py:3:9: self.assertEquals(f(1), 1) (in function test) [assert-equal]\n\
         src/app.py:4:9: print(\"done\", 2) (in function test) [no-print] avoid print of \"done\", 2"
    );
    assert_eq!(
        structured(&r)["matches"][1],
        json!({"path": "src/app.py", "line": 4, "column": 9, "endLine": 4, "text": "print(\"done\", 2)", "enclosing": "function test",
               "rule": "no-print", "message": "avoid print of \"done\", 2"})
    );
    // docs/MCP.md ("A project's rules") shows this line and the request.
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/MCP.md")).unwrap();
    let line = text(&r).lines().nth(2).unwrap();
    assert!(docs.contains(&format!("```text\n{line}\n```")), "docs/MCP.md should show: {line}");
    assert!(docs.contains("```json\n{\"project\": \".\", \"filter\": \"^no-\"}\n```"));
    let r = call(&c, "ast_search", json!({"project": ".", "filter": "eq"})).await;
    assert!(ok(&r).starts_with("Found 1 match in 1 file"), "{}", text(&r));
    // Patterns carry no rule.
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "print($$$A)"}]})).await;
    assert!(structured(&r)["matches"][0].get("rule").is_none(), "{:?}", structured(&r));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn many_findings_stay_within_the_budgets_and_say_where_the_rest_are() {
    let t = project();
    let long = "x".repeat(60);
    let body: String = (0..1_500).map(|i| format!("print({i}, \"{long}\")\n")).collect();
    t.write("src/many.py", &body);
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"project": ".", "filter": "^no-", "paths": ["src/many.py"]})).await;
    let body = ok(&r);
    assert!(body.chars().count() <= TEXT_BUDGET, "{}", body.chars().count());
    let more = regex::Regex::new(r"\n  … and (\d+) more\. `ast_search` with the same `rule` or `project` \(and paths, globs\) lists every match with its rule and message, page by page\.").unwrap();
    let shown = body.lines().filter(|l| l.starts_with("  src/many.py:")).count();
    let left: usize = more.captures(body).unwrap_or_else(|| panic!("{body}"))[1].parse().unwrap();
    assert_eq!(shown + left, 1_500);
    assert!(shown > 50, "lint-only results give the findings most of the text: {shown}");
    let s = structured(&r);
    assert!(serde_json::to_string(s).unwrap().chars().count() <= STRUCTURED_BUDGET);
    let listed = s["findings"].as_array().unwrap().len();
    assert!(listed > 50 && listed < 1_500, "{listed}");
    let note = format!("structuredContent.findings leaves out {} more findings; `ast_search`", 1_500 - listed);
    assert!(s["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with(&note)), "{:?}", s["warnings"]);
    // ast_search pages through every one of them.
    let r = call(&c, "ast_search", json!({"project": ".", "filter": "^no-", "paths": ["src/many.py"], "limit": 200, "offset": 1_400})).await;
    let s = structured(&r);
    assert_eq!(s["totalMatches"], 1_500);
    assert_eq!(s["matches"][0]["message"], format!("avoid print of 1400, \"{long}\""));
    c.cancel().await.unwrap();
}

#[test]
fn run_request_takes_a_project_on_the_cli() {
    let t = project();
    t.write("req.json", r#"{"project": ".", "filter": "assert"}"#);
    let r = t.run(&["run", "--request", "req.json", "-U"]).ok();
    assert!(r.stdout.contains("1 replacement"), "{}", r.stdout);
    assert_eq!(t.read("src/app.py"), APPLIED);
    t.write("bad.json", r#"{"project": "missing"}"#);
    let r = t.run(&["run", "--request", "bad.json"]).code(2);
    assert!(r.stderr.contains("project `missing` cannot be read ("), "{}", r.stderr);
}

/// A key of the config that nothing reads is said once, over MCP and in
/// `run --request`, not once by the project and again by its rules.
#[tokio::test]
async fn a_config_key_nothing_reads_is_warned_of_once() {
    let t = project();
    t.write("sgconfig.yml", "ruleDirs: [rules]\nignoreFiles: [x]\n");
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"project": "."})).await;
    let warnings: Vec<&str> = structured(&r)["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).filter(|w| w.contains("ignoreFiles")).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(ok(&r).matches("unknown key `ignoreFiles`").count(), 1, "{}", text(&r));
    c.cancel().await.unwrap();
    t.write("req.json", r#"{"project": "."}"#);
    let r = t.run(&["run", "--request", "req.json"]).ok();
    assert_eq!(r.stderr.matches("unknown key `ignoreFiles` is ignored").count(), 1, "{}", r.stderr);
}
