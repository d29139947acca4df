//! `ast-edit search` and the MCP tool `ast_search`: count and locate matches
//! without staging anything, through the real binary and the real server
//! (rmcp's client). Counts and pages, paging that reaches every match once,
//! rules that exclude sites, the enclosing names, zero matches, bad input, the
//! budgets on 2,000 files, and nothing staged or written.

use crate::common::Tree;
use crate::common::mcp::{self, Client, connect, structured, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// The budgets of docs/DESIGN.md section 7, as the server must keep them.
const TEXT_BUDGET: usize = 20_000;
const STRUCTURED_BUDGET: usize = 40_000;
/// `search::MAX_LIMIT` and `search::MAX_MATCH_TEXT_CHARS`.
const MAX_LIMIT: usize = 200;
const MAX_MATCH_TEXT_CHARS: usize = 200;

/// Three Python files: 5 calls of `fetch` in 3 files, one in a comment-free
/// top level, the others in functions and methods.
fn small_tree() -> Tree {
    let t = Tree::empty();
    t.write("app/a.py", "import os\n\ndef load(path):\n    return fetch(path)\n\nx = fetch(\"top\")\n");
    t.write("app/b.py", "class AdminConfig:\n    def refresh(self):\n        fetch(self.url)\n        fetch(self.backup)\n\n    name = fetch(\"n\")\n");
    t.write("lib/c.py", "def other():\n    return 1\n");
    t.write("lib/d.py", "def nested():\n    return fetch(fetch(1))\n");
    t
}

/// The small tree's matches, as `ast-edit search` lists them.
const SMALL_TEXT: &str = "\
Found 7 matches in 3 files (searched 4 files)
app/a.py:4:12: fetch(path) (in function load)
app/a.py:6:5: fetch(\"top\")
app/b.py:3:9: fetch(self.url) (in function refresh)
app/b.py:4:9: fetch(self.backup) (in function refresh)
app/b.py:6:12: fetch(\"n\") (in class AdminConfig)
lib/d.py:2:12: fetch(fetch(1)) (in function nested)
lib/d.py:2:18: fetch(1) (in function nested)
";

#[test]
fn counts_and_the_first_page_on_a_small_tree_and_nothing_is_staged() {
    let t = small_tree();
    let before = t.snapshot();
    let out = t.run(&["search", "-p", "fetch($A)"]).ok();
    assert_eq!(out.stdout, SMALL_TEXT);
    let v: Value = t.run(&["search", "-p", "fetch($A)", "--json", "--limit", "2"]).ok().json();
    assert_eq!(
        v,
        json!({
            "totalMatches": 7, "filesWithMatches": 3, "filesSearched": 4, "offset": 0, "truncated": false, "nextOffset": 2, "warnings": [], "skippedByLimits": 0,
            "matches": [
                {"path": "app/a.py", "line": 4, "column": 12, "endLine": 4, "text": "fetch(path)", "enclosing": "function load"},
                {"path": "app/a.py", "line": 6, "column": 5, "endLine": 6, "text": "fetch(\"top\")"}
            ]
        })
    );
    let page = t.run(&["search", "-p", "fetch($A)", "--limit", "2"]).ok().stdout;
    assert_eq!(
        page,
        "Found 7 matches in 3 files (searched 4 files; showing 1-2 of 7)\n\
         app/a.py:4:12: fetch(path) (in function load)\n\
         app/a.py:6:5: fetch(\"top\")\n\
         Next page: run the same search with --offset 2.\n"
    );
    assert_eq!(t.snapshot(), before, "a search writes nothing");
    assert_eq!(t.run(&["pending", "--json"]).ok().stdout.trim(), "[]", "nothing is staged");
    assert!(t.run(&["resolve", "apply", "--reason", "r"]).stderr.contains("No pending action to resolve"));
}

#[test]
fn paging_with_offset_reaches_every_match_exactly_once() {
    let t = Tree::empty();
    for i in 0..7 {
        let calls: String = (0..i).map(|k| format!("    fetch({k})\n")).collect();
        t.write(&format!("pkg/m{i}.py"), format!("def f{i}():\n{calls}    return 0\n"));
    }
    let all: Value = t.run(&["search", "-p", "fetch($A)", "--json", "--limit", "200"]).ok().json();
    assert_eq!(all["totalMatches"], 21);
    assert!(all.get("nextOffset").is_none());
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let page: Value = t.run(&["search", "-p", "fetch($A)", "--json", "--limit", "4", "--offset", &offset.to_string()]).ok().json();
        assert_eq!(page["offset"], offset);
        assert_eq!(page["totalMatches"], 21, "every page counts every match");
        seen.extend(page["matches"].as_array().unwrap().iter().cloned());
        match page.get("nextOffset") {
            Some(next) => offset = next.as_u64().unwrap() as usize,
            None => break,
        }
    }
    assert_eq!(seen, all["matches"].as_array().unwrap().clone(), "the pages, joined, are the whole list, in order");
    let keys: Vec<(String, u64, u64)> =
        seen.iter().map(|m| (m["path"].as_str().unwrap().to_string(), m["line"].as_u64().unwrap(), m["column"].as_u64().unwrap())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "path order, then offset, each match once");
    // Past the last match: bad input, with the counts.
    let past = t.run(&["search", "-p", "fetch($A)", "--offset", "21"]).code(2);
    assert!(past.stderr.contains("offset 21 is past the last match: the search found 21 matches in 6 files (offset 0 to 20)"), "{}", past.stderr);
}

#[test]
fn the_same_bytes_at_any_thread_count() {
    let t = Tree::empty();
    for i in 0..40 {
        // Sizes that differ, so that the largest-first schedule differs from path order.
        let calls: String = (0..(i * 7) % 13).map(|k| format!("    fetch({k})\n")).collect();
        t.write(&format!("d{}/m{i:02}.py", i % 3), format!("def f{i}():\n{calls}    return 0\n"));
    }
    for args in [&["search", "-p", "fetch($A)", "--limit", "30", "--offset", "17"][..], &["search", "-p", "fetch($A)", "--json", "--limit", "200"][..]] {
        let one = t.run_env(args, &[("RAYON_NUM_THREADS", "1")]).ok().stdout;
        let four = t.run_env(args, &[("RAYON_NUM_THREADS", "4")]).ok().stdout;
        assert_eq!(one, four);
    }
}

const RUST_LIB: &str = "\
pub fn parse(s: &str) -> u32 {
    s.parse().unwrap()
}

impl Config {
    fn load() -> Self { read().unwrap() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() { super::parse(\"1\").to_string().parse::<u8>().unwrap(); }
}
";

#[test]
fn a_rule_with_not_inside_excludes_sites_and_its_fix_is_ignored() {
    let t = Tree::empty();
    t.write("src/lib.rs", RUST_LIB);
    let all = t.run(&["search", "-p", "$X.unwrap()", "src"]).ok().stdout;
    assert!(all.starts_with("Found 3 matches in 1 file (searched 1 file)\n"), "{all}");
    // A fix that would not even compile as a rewrite is left out, not refused.
    let rule = "id: no-unwrap\nlanguage: rust\nrule:\n  pattern: $X.unwrap()\n  not:\n    inside:\n      kind: mod_item\n      has: {field: name, regex: ^tests$}\n      stopBy: end\nfix: $UNDEFINED.expect(\n";
    let out = t.run(&["search", "--inline-rules", rule]).ok().stdout;
    assert_eq!(
        out,
        "Found 2 matches in 1 file (searched 1 file)\n\
         src/lib.rs:2:5: s.parse().unwrap() (in function parse) [no-unwrap]\n\
         src/lib.rs:6:25: read().unwrap() (in function load) [no-unwrap]\n"
    );
    t.write("rules/no-unwrap.yml", rule);
    assert_eq!(t.run(&["search", "--rule", "rules/no-unwrap.yml", "src"]).ok().stdout, out);
}

#[test]
fn enclosing_names_in_python_rust_typescript_and_go() {
    let t = Tree::empty();
    t.write("p.py", "class Cache:\n    def get(self, k):\n        return log(k)\n");
    t.write("r.rs", "mod store {\n    impl Key {\n        fn hash(&self) { log(1); }\n    }\n    impl Key { const K: u8 = log(2); }\n}\n");
    t.write("t.ts", "class Api {\n  get(id: string) { return log(id); }\n}\nexport const load = async () => log(2);\n");
    t.write("g.go", "package p\n\nfunc (s *Server) Serve() { log(1) }\n\nfunc main() { log(2) }\n");
    let v: Value = t.run(&["search", "-p", "log($A)", "--json"]).ok().json();
    let got: Vec<(String, u64, Option<String>)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["path"].as_str().unwrap().into(), m["line"].as_u64().unwrap(), m["enclosing"].as_str().map(String::from)))
        .collect();
    let want = |p: &str, l: u64, e: &str| (p.to_string(), l, Some(e.to_string()));
    assert_eq!(
        got,
        vec![
            want("g.go", 3, "method Serve"),
            want("g.go", 5, "function main"),
            want("p.py", 3, "function get"),
            want("r.rs", 3, "function hash"),
            want("r.rs", 5, "impl Key"),
            want("t.ts", 2, "method get"),
            want("t.ts", 4, "function load"),
        ]
    );
}

#[test]
fn columns_count_characters_and_a_match_shows_its_first_line_cut() {
    let t = Tree::empty();
    let long = "x".repeat(300);
    t.write("u.py", format!("\u{feff}é = fetch(1)\ny = \"ü\"; fetch(\n    {long})\n"));
    let v: Value = t.run(&["search", "-p", "fetch($A)", "--json"]).ok().json();
    let m = &v["matches"];
    assert_eq!((m[0]["line"].clone(), m[0]["column"].clone(), m[0]["text"].clone()), (json!(1), json!(5), json!("fetch(1)")));
    assert_eq!((m[1]["line"].clone(), m[1]["column"].clone(), m[1]["endLine"].clone()), (json!(2), json!(10), json!(3)));
    assert_eq!(m[1]["text"], "fetch(", "the first line of a multi-line match");
    t.write("w.py", format!("fetch({long})\n"));
    let v: Value = t.run(&["search", "-p", "fetch($A)", "--json", "w.py"]).ok().json();
    let text = v["matches"][0]["text"].as_str().unwrap();
    assert_eq!(text.chars().count(), MAX_MATCH_TEXT_CHARS + 1);
    assert!(text.ends_with('…'), "{text}");
}

#[test]
fn zero_matches_is_success_with_the_counts() {
    let t = small_tree();
    let out = t.run(&["search", "-p", "never_called($A)"]).ok();
    // The diagnosis of an edit says why (docs/DESIGN.md §2.12).
    let why = "ops[0].pat `never_called($A)` matched nothing: no python file searched holds all of its words (`never_called`), so none was parsed for it.";
    assert_eq!(out.stdout, format!("Found 0 matches (searched 4 files)\nwarning: {why}\n"));
    let v: Value = t.run(&["search", "-p", "never_called($A)", "--json"]).ok().json();
    assert_eq!(
        v,
        json!({"totalMatches": 0, "filesWithMatches": 0, "filesSearched": 4, "matches": [], "offset": 0, "truncated": false, "warnings": [why], "skippedByLimits": 0})
    );
}

/// A lowercase `$a` is the code `$a`, not a metavariable: a search that finds
/// nothing says so, in JavaScript and Rust as in Python (over MCP too, below).
#[test]
fn zero_matches_with_a_lowercase_metavariable_say_why() {
    let t = Tree::empty();
    t.write("a.js", "QUnit.test(\"a\", function () {});\n");
    t.write("b.rs", "fn f() { let v = x.unwrap(); }\n");
    for (args, var) in [(&["-p", "QUnit.test($a, $B)"][..], "$a"), (&["-p", "$x.unwrap()", "-l", "rust"], "$x")] {
        let v: Value = t.run(&[&["search"][..], args, &["--json"]].concat()).ok().json();
        assert_eq!(v["totalMatches"], 0);
        let upper = var.to_uppercase();
        assert_eq!(
            v["warnings"],
            json!([format!(
                "ops[0].pat: `{var}` is not a metavariable: metavariables are upper case (`{upper}`), so `{var}` stands for the code `{var}` only."
            )])
        );
        let fixed: Vec<String> = args.iter().map(|a| a.replace(var, &upper)).collect();
        let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
        let v: Value = t.run(&[&["search"][..], &fixed, &["--json"]].concat()).ok().json();
        assert_eq!((v["totalMatches"].clone(), v["warnings"].clone()), (json!(1), json!([])), "{fixed:?}");
    }
}

#[test]
fn bad_input_exits_2_and_help_teaches_with_an_example() {
    let t = small_tree();
    let no_pattern = t.run(&["search"]).code(2);
    assert!(no_pattern.stderr.contains("no pattern given"), "{}", no_pattern.stderr);
    let broken = t.run(&["search", "-l", "py", "-p", "fetch("]).code(2);
    assert!(broken.stderr.contains("does not parse cleanly as python"), "{}", broken.stderr);
    for (limit, msg) in [("0", "limit must be at least 1"), ("201", "the limit is 200 matches per page (MAX_LIMIT)")] {
        let r = t.run(&["search", "-p", "fetch($A)", "--limit", limit]).code(2);
        assert!(r.stderr.contains(msg), "{}", r.stderr);
    }
    let both = t.run(&["search", "-p", "fetch($A)", "--inline-rules", "rule: {pattern: a}"]).code(2);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
    let help = t.run(&["search", "--help"]).ok().stdout;
    assert!(help.contains("Example:") && help.contains("ast-edit search -p 'fetch_data($$$ARGS)' src/"), "{help}");
    assert!(help.contains("--offset") && help.contains("--rule"), "{help}");
}

// ---- the MCP tool ----

async fn call(client: &Client, args: Value) -> CallToolResult {
    mcp::call(client, "ast_search", args).await
}

fn json_chars(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().chars().count()
}

#[tokio::test]
async fn ast_search_is_listed_read_only_with_a_strict_flat_schema() {
    let t = Tree::empty();
    let service = connect(&t).await;
    let tools = service.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == "ast_search").expect("ast_search is listed");
    let a = tool.annotations.as_ref().unwrap();
    assert_eq!((a.read_only_hint, a.destructive_hint, a.open_world_hint), (Some(true), Some(false), Some(false)));
    let input = Value::Object((*tool.input_schema).clone());
    assert_eq!(input["additionalProperties"], false);
    let props: Vec<&str> = input["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(props, ["filter", "globs", "lang", "limit", "offset", "ops", "paths", "project", "rule", "selector", "strictness"]);
    assert_eq!(input["properties"]["ops"]["items"]["required"], json!(["pat"]));
    assert_eq!(input["properties"]["ops"]["items"]["additionalProperties"], false);
    assert_eq!(input["properties"]["limit"]["maximum"], MAX_LIMIT);
    // Every property the schema lists is accepted, and nothing else.
    for (key, value) in [
        ("globs", json!(["*.py"])),
        ("lang", json!("py")),
        ("limit", json!(1)),
        ("offset", json!(0)),
        ("paths", json!(["."])),
        ("selector", json!("call")),
        ("strictness", json!("ast")),
    ] {
        let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}], key: value})).await;
        assert_ne!(r.is_error, Some(true), "{key}: {}", text(&r));
    }
    let r = call(&service, json!({"rule": "rule: {pattern: fetch($A)}", "lang": "py"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}], "maxFiles": 3})).await;
    assert!(r.is_error == Some(true) && text(&r).contains("unknown field `maxFiles`"), "{}", text(&r));
    let _ = service.cancel().await;
}

/// Over MCP too, a search that finds nothing names each lowercase `$a` as the cause.
#[tokio::test]
async fn ast_search_names_a_lowercase_metavariable_when_nothing_matched() {
    let t = Tree::empty();
    t.write("a.js", "QUnit.test(\"a\", function () {});\n");
    let service = connect(&t).await;
    let r = call(&service, json!({"ops": [{"pat": "QUnit.test($a, $b)"}]})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let w = structured(&r)["warnings"].as_array().unwrap();
    assert!(w[0].as_str().unwrap().contains("`$a` and `$b` are not metavariables: metavariables are upper case (`$A`, `$B`)"), "{}", text(&r));
    assert_eq!(w.len(), 1, "{}", text(&r));
    let _ = service.cancel().await;
}

#[tokio::test]
async fn mcp_gives_the_cli_text_and_the_result_as_structured_content_and_stages_nothing() {
    let t = small_tree();
    let before = t.snapshot();
    let service = connect(&t).await;
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}]})).await;
    assert_ne!(r.is_error, Some(true));
    assert_eq!(format!("{}\n", text(&r)), SMALL_TEXT);
    assert_eq!(structured(&r), &t.run(&["search", "-p", "fetch($A)", "--json"]).ok().json::<Value>());
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}], "limit": 5, "offset": 2, "paths": ["app", "lib"]})).await;
    let d = structured(&r);
    assert_eq!((d["offset"].clone(), d["nextOffset"].clone(), d["matches"].as_array().unwrap().len()), (json!(2), Value::Null, 5));
    assert!(text(&r).starts_with("Found 7 matches in 3 files (searched 4 files; showing 3-7 of 7)\n"), "{}", text(&r));
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}], "limit": 2})).await;
    assert!(text(&r).ends_with("\nNext page: call `ast_search` with the same arguments and \"offset\": 2."), "{}", text(&r));
    // Zero matches is no error.
    let r = call(&service, json!({"ops": [{"pat": "never_called($A)"}]})).await;
    assert_ne!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        "Found 0 matches (searched 4 files)\nwarning: ops[0].pat `never_called($A)` matched nothing: no python file searched holds all of its words (`never_called`), so none was parsed for it."
    );
    assert_eq!(structured(&r)["totalMatches"], 0);
    // A rule excludes sites here too (`not: inside` a class).
    let rule = "rule:\n  pattern: fetch($A)\n  not: {inside: {kind: class_definition, stopBy: end}}\nfix: nope(";
    let r = call(&service, json!({"rule": rule, "lang": "py"})).await;
    assert_eq!(structured(&r)["totalMatches"], 4, "{}", text(&r));
    let _ = service.cancel().await;
    assert_eq!(t.snapshot(), before, "nothing written");
    let pending = t.run(&["pending"]).ok().stdout;
    assert!(pending.starts_with("No pending actions."), "nothing staged: {pending}");
}

#[tokio::test]
async fn ops_with_out_and_bad_arguments_are_tool_errors() {
    let t = small_tree();
    let service = connect(&t).await;
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)", "out": "load($A)"}]})).await;
    assert_eq!(r.is_error, Some(true));
    assert!(
        text(&r).starts_with(
            "invalid arguments for `ast_search`: `ops[0].out`: unknown field `out`, expected `pat`. ast_search only finds; to rewrite, call `ast_edit`."
        ),
        "{}",
        text(&r)
    );
    for (args, msg) in [
        (json!({}), "no pattern given"),
        (json!({"ops": [{"pat": "fetch($A)"}], "limit": 0}), "limit must be at least 1"),
        (json!({"ops": [{"pat": "fetch($A)"}], "offset": 99}), "offset 99 is past the last match"),
        (json!({"ops": [{"pat": "fetch($A)"}], "paths": ["/etc"]}), "is outside the server's root"),
        (json!({"ops": [{"pat": "fetch($A)"}], "rule": "rule: {pattern: a}"}), "give either `ops` or `rule`"),
    ] {
        let r = call(&service, args.clone()).await;
        assert!(r.is_error == Some(true) && text(&r).contains(msg), "{args}: {}", text(&r));
    }
    let _ = service.cancel().await;
}

/// A line of code 180 characters long with three matches, so that a page of 200
/// matches is far over both budgets.
fn wide_source(i: usize) -> String {
    let arg = format!("\"{}\"", "v".repeat(150));
    format!("def handler_{i}():\n    fetch({arg})\n    fetch({arg})\n    return fetch({arg})\n")
}

#[tokio::test]
async fn bounded_on_a_2000_file_tree_with_every_count_intact() {
    let t = Tree::empty();
    for i in 0..2000 {
        t.write(&format!("pkg{:02}/mod_{i:04}.py", i % 20), wide_source(i));
    }
    let service = connect(&t).await;
    let r = call(&service, json!({"ops": [{"pat": "fetch($A)"}], "limit": MAX_LIMIT})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let d = structured(&r);
    assert!(json_chars(d) <= STRUCTURED_BUDGET, "structuredContent of {} characters", json_chars(d));
    assert!(text(&r).chars().count() <= TEXT_BUDGET, "text of {} characters", text(&r).chars().count());
    assert_eq!((d["totalMatches"].clone(), d["filesWithMatches"].clone(), d["filesSearched"].clone()), (json!(6000), json!(2000), json!(2000)));
    let shown = d["matches"].as_array().unwrap().len();
    assert!(shown > 20 && shown < MAX_LIMIT, "the budget ends the page: {shown}");
    assert_eq!((d["truncated"].clone(), d["nextOffset"].clone()), (json!(true), json!(shown)));
    assert_eq!(text(&r).lines().count(), 1 + shown + 1, "header, one line per match, the next page");
    // The next page goes on exactly where this one stopped.
    let last = d["matches"][shown - 1].clone();
    let r2 = call(&service, json!({"ops": [{"pat": "fetch($A)"}], "limit": 2, "offset": shown - 1})).await;
    assert_eq!(structured(&r2)["matches"][0], last);
    let _ = service.cancel().await;
}
