//! `ast-edit tree` and the MCP tool `ast_tree`: the syntax tree of a snippet or a
//! pattern, through the real binary and the real server (rmcp's client), so that
//! a pattern's writer sees how code parses before an edit.

use std::io::Write;
use std::process::Stdio;

use crate::common::Tree;
use crate::common::mcp::{self, Client, connect, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_ast-edit");

/// The caps of docs/DESIGN.md section 7 (`tree::MAX_*`).
const MAX_TREE_NODES: u64 = 300;
const MAX_TREE_CHARS: usize = 40_000;
const MAX_TREE_DEPTH: usize = 50;
const MAX_CODE_BYTES: usize = 65_536;

const KWARG_ALONE: &str = "\
module 1:1-1:25
  expression_statement 1:1-1:25
    assignment 1:1-1:25
      left: identifier 1:1-1:10 \"on_delete\"
      right: attribute 1:11-1:25
        object: identifier 1:11-1:17 \"models\"
        attribute: identifier 1:18-1:25 \"CASCADE\"
";

const KWARG_IN_CALL: &str = "\
module 1:1-1:41
  expression_statement 1:1-1:41
    call 1:1-1:41
      function: identifier 1:1-1:11 \"ForeignKey\"
      arguments: argument_list 1:11-1:41
        identifier 1:12-1:14 metavariable $M
        keyword_argument 1:16-1:40
          name: identifier 1:16-1:25 \"on_delete\"
          value: attribute 1:26-1:40
            object: identifier 1:26-1:32 \"models\"
            attribute: identifier 1:33-1:40 \"CASCADE\"
Pattern root: `call` at 1:1-1:41: the pattern matches `call` nodes (a rule's `kind`/`selector` would name `call`); to match a node inside it, give this code as context with `--selector` set to that node's kind.
";

/// The tree's JSON, compact, as the MCP server sends it.
fn compact_len(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().chars().count()
}

/// Levels of nodes under (and with) `node`.
fn depth(node: &Value) -> usize {
    1 + node["children"].as_array().unwrap().iter().map(depth).max().unwrap_or(0)
}

#[test]
fn a_keyword_argument_alone_parses_as_an_assignment_but_inside_a_call_as_a_keyword_argument() {
    let t = Tree::empty();
    let alone = t.run(&["tree", "-l", "py", "on_delete=models.CASCADE"]).ok();
    assert_eq!(alone.stdout, KWARG_ALONE);
    let inside = t.run(&["tree", "-l", "py", "--pattern", "ForeignKey($M, on_delete=models.CASCADE)"]).ok();
    assert_eq!(inside.stdout, KWARG_IN_CALL);

    let v: Value = t.run(&["tree", "-l", "python", "on_delete=models.CASCADE", "--json"]).ok().json();
    assert_eq!(v["lang"], "python");
    assert_eq!(v["isPattern"], false);
    assert_eq!((v["errors"].clone(), v["truncated"].clone(), v["nodes"].clone()), (json!(0), json!(false), json!(7)));
    let assignment = &v["root"]["children"][0]["children"][0];
    assert_eq!(assignment["kind"], "assignment");
    assert_eq!(assignment["start"], json!({"line": 1, "column": 1}));
    assert_eq!(assignment["end"], json!({"line": 1, "column": 25}));
    assert_eq!(
        assignment["children"][0],
        json!({"kind": "identifier", "field": "left", "start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 10}, "text": "on_delete", "children": []})
    );
    assert!(v.get("patternRoot").is_none() && v.get("patternNote").is_none(), "{v}");
}

#[test]
fn a_lowercase_metavariable_is_code_not_a_capture() {
    let t = Tree::empty();
    let r = t.run(&["tree", "-l", "py", "--pattern", "print($a)"]).ok();
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "module 1:1-1:10",
            "  print_statement 1:1-1:10",
            "    argument: parenthesized_expression 1:6-1:10",
            "      ERROR 1:7-1:8",
            "        ERROR 1:7-1:8 \"$\"",
            "      identifier 1:8-1:9 \"a\"",
        ],
        "{}",
        r.stdout
    );
    assert_eq!(lines[6], "2 ERROR or MISSING nodes: this code does not parse cleanly as python.");
    assert!(lines[7].starts_with("Pattern root: `print_statement` at 1:1-1:10"), "{}", lines[7]);
    assert!(lines[7].contains("Its tree holds 2 ERROR or MISSING nodes: it would match nothing or the wrong code"), "{}", lines[7]);
    assert!(lines[7].ends_with("Note: `$a` is not a metavariable (names are capital letters, digits and `_`: `$A`), so it is parsed as code."), "{}", lines[7]);
    assert_eq!(lines.len(), 8);

    // With a capital name it is a call whose argument is the metavariable.
    let v: Value = t.run(&["tree", "-l", "py", "--pattern", "print($A)", "--json"]).ok().json();
    assert_eq!(v["patternRoot"], "call");
    assert_eq!(v["errors"], 0);
    let arg = &v["root"]["children"][0]["children"][0]["children"][1]["children"][0];
    assert_eq!((arg["kind"].as_str(), arg["metaVar"].as_str(), arg["text"].as_str()), (Some("identifier"), Some("$A"), Some("$A")));
}

#[test]
fn an_error_node_is_marked_in_the_text_and_the_json() {
    let t = Tree::empty();
    let r = t.run(&["tree", "-l", "c", "kfree(x)"]).ok();
    assert_eq!(
        r.stdout,
        "translation_unit 1:1-1:9\n  ERROR 1:1-1:9\n    macro_type_specifier 1:1-1:9\n      name: identifier 1:1-1:6 \"kfree\"\n      type: type_descriptor 1:7-1:8\n        type: type_identifier 1:7-1:8 \"x\"\n1 ERROR or MISSING node: this code does not parse cleanly as c.\n"
    );
    let v: Value = t.run(&["tree", "-l", "c", "kfree(x)", "--json"]).ok().json();
    assert_eq!(v["errors"], 1);
    assert_eq!(v["root"]["children"][0]["kind"], "ERROR");
    assert_eq!(v["root"]["children"][0]["error"], true);
    assert!(v["root"]["children"][0]["children"][0].get("error").is_none(), "only ERROR nodes carry `error`");
}

#[test]
fn a_c_call_pattern_without_its_semicolon_shows_the_missing_semicolon() {
    let t = Tree::empty();
    let r = t.run(&["tree", "-l", "c", "--pattern", "kfree($A)"]).ok();
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "translation_unit 1:1-1:10");
    assert_eq!(lines[1], "  macro_type_specifier 1:1-1:10");
    assert!(lines.contains(&"  MISSING ; 1:10-1:10"), "the MISSING `;` is shown although it is unnamed:\n{}", r.stdout);
    assert!(!r.stdout.contains("\"(\""), "named nodes only by default");
    let note = lines.last().unwrap();
    assert!(note.starts_with("Pattern root: `macro_type_specifier` at 1:1-1:10"), "{note}");
    assert!(note.ends_with("an edit or search refuses it (in c a statement needs its `;`: try `kfree($A);`)."), "{note}");

    let v: Value = t.run(&["tree", "-l", "c", "--pattern", "kfree($A)", "--json"]).ok().json();
    let missing = &v["root"]["children"][1];
    assert_eq!(
        missing,
        &json!({"kind": ";", "start": {"line": 1, "column": 10}, "end": {"line": 1, "column": 10}, "named": false, "missing": true, "children": []})
    );
    // With the `;` it is a statement, cleanly.
    let ok = t.run(&["tree", "-l", "c", "--pattern", "kfree($A);"]).ok();
    assert!(ok.stdout.contains("  expression_statement 1:1-1:11\n    call_expression 1:1-1:10\n"), "{}", ok.stdout);
    assert!(!ok.stdout.contains("MISSING") && !ok.stdout.contains("ERROR"), "{}", ok.stdout);
}

#[test]
fn all_shows_unnamed_nodes_quoted() {
    let t = Tree::empty();
    let r = t.run(&["tree", "-l", "py", "--all", "f(x)"]).ok();
    assert_eq!(
        r.stdout,
        "module 1:1-1:5\n  expression_statement 1:1-1:5\n    call 1:1-1:5\n      function: identifier 1:1-1:2 \"f\"\n      arguments: argument_list 1:2-1:5\n        \"(\" 1:2-1:3\n        identifier 1:3-1:4 \"x\"\n        \")\" 1:4-1:5\n"
    );
}

#[test]
fn code_comes_from_a_file_with_its_language_from_the_extension_or_from_stdin() {
    let t = Tree::empty();
    t.write("models.py", "on_delete=models.CASCADE\n");
    let before = t.snapshot();
    let r = t.run(&["tree", "-f", "models.py"]).ok();
    assert!(r.stdout.starts_with("module 1:1-2:1\n  expression_statement 1:1-1:25\n    assignment 1:1-1:25\n"), "{}", r.stdout);
    let piped = t.run_stdin(&["tree", "-l", "py", "-"], "on_delete=models.CASCADE").ok();
    assert_eq!(piped.stdout, KWARG_ALONE);
    assert_eq!(t.snapshot(), before, "tree writes nothing");
    assert_eq!(std::fs::read_dir(t.state.path()).unwrap().count(), 0, "and stages nothing");
}

#[test]
fn bad_input_exits_2_naming_the_fix() {
    let t = Tree::empty();
    let r = t.run(&["tree", "-l", "cobol", "x"]).code(2);
    assert!(r.stderr.contains("unknown language `cobol`") && r.stderr.contains("ast-edit langs"), "{}", r.stderr);
    assert!(r.stderr.contains("python") && r.stderr.contains("rust"), "names the languages: {}", r.stderr);
    let r = t.run(&["tree", "x = 1"]).code(2);
    assert!(r.stderr.contains("pass -l LANG"), "{}", r.stderr);
    t.write("notes.txt", "x");
    let r = t.run(&["tree", "-f", "notes.txt"]).code(2);
    assert!(r.stderr.contains("cannot tell the language of notes.txt") && r.stderr.contains("-l LANG"), "{}", r.stderr);
    let r = t.run(&["tree", "-l", "py"]).code(2);
    assert!(r.stderr.contains("<CODE|--file <FILE>>"), "clap names the missing input: {}", r.stderr);
}

#[test]
fn the_help_example_is_what_tree_prints() {
    let t = Tree::empty();
    let help = t.run(&["tree", "--help"]).ok().stdout;
    let indent = |s: &str| s.lines().map(|l| format!("  {l}\n")).collect::<String>();
    assert!(help.contains(&indent(KWARG_ALONE)), "{help}");
    let tree_lines: String = KWARG_IN_CALL.lines().filter(|l| !l.starts_with("Pattern root")).map(|l| format!("{l}\n")).collect();
    assert!(help.contains(&indent(&tree_lines)), "{help}");
    assert!(help.contains("  Pattern root: `call` at 1:1-1:41: the pattern matches `call` nodes (...)\n"), "{help}");
}

#[test]
fn code_over_64_kib_is_refused_from_an_argument_a_file_or_stdin() {
    let t = Tree::empty();
    let at_limit = format!("x = 1{}\n", " ".repeat(MAX_CODE_BYTES - 6));
    assert_eq!(at_limit.len(), MAX_CODE_BYTES);
    t.write("ok.py", &at_limit);
    t.run(&["tree", "-f", "ok.py"]).ok();
    let over = format!("{at_limit}#");
    t.write("big.py", &over);
    let r = t.run(&["tree", "-f", "big.py"]).code(2);
    assert!(r.stderr.contains("the file big.py is 65537 bytes; the limit is 65536 bytes: show a smaller snippet"), "{}", r.stderr);
    let r = t.run_stdin(&["tree", "-l", "py", "-"], &over).code(2);
    assert!(r.stderr.contains("stdin holds more than 65536 bytes; the limit is 65536 bytes per tree"), "{}", r.stderr);
    let r = t.run(&["tree", "-l", "py", &over]).code(2);
    assert!(r.stderr.contains("the code is 65537 bytes; the limit is 65536 bytes per tree: show a smaller snippet"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}

#[test]
fn a_long_list_stops_at_the_node_cap() {
    let t = Tree::empty();
    t.write("list.py", format!("x = [{}]\n", "1, ".repeat(1_000)));
    let v: Value = t.run(&["tree", "-f", "list.py", "--json"]).ok().json();
    assert_eq!((v["truncated"].clone(), v["truncatedBy"].clone()), (json!(true), json!(["nodes"])));
    assert_eq!(v["nodes"], MAX_TREE_NODES);
    assert_eq!(v["totalNodes"], 1_005);
    let text = t.run(&["tree", "-f", "list.py"]).ok().stdout;
    assert_eq!(text.lines().count() as u64, MAX_TREE_NODES + 1);
    assert!(text.ends_with("… truncated: showed 300 of 1005 nodes, at the cap of 300 nodes; show a smaller snippet.\n"), "{text}");
}

#[test]
fn long_leaves_are_cut_and_stop_at_the_character_cap() {
    let t = Tree::empty();
    t.write("comments.py", format!("# {}\n", "a".repeat(100)).repeat(290));
    let v: Value = t.run(&["tree", "-f", "comments.py", "--json"]).ok().json();
    assert_eq!((v["truncated"].clone(), v["truncatedBy"].clone()), (json!(true), json!(["chars"])));
    let nodes = v["nodes"].as_u64().unwrap();
    assert!(nodes < MAX_TREE_NODES && nodes > 100, "{nodes}");
    let json_len = compact_len(&v["root"]);
    assert!(json_len <= MAX_TREE_CHARS && json_len > MAX_TREE_CHARS - 1_000, "{json_len}");
    let leaf = v["root"]["children"][0]["text"].as_str().unwrap();
    assert_eq!(leaf, format!("# {}…", "a".repeat(78)), "a leaf is cut at 80 characters");
    let text = t.run(&["tree", "-f", "comments.py"]).ok().stdout;
    assert!(text.chars().count() <= MAX_TREE_CHARS + 200, "{}", text.len());
    assert!(
        text.ends_with(&format!("… truncated: showed {nodes} of 291 nodes, at the cap of 40000 characters (of JSON or of text); show a smaller snippet.\n")),
        "{text}"
    );
}

#[test]
fn deep_code_stops_at_the_depth_cap_and_counts_what_is_below() {
    let t = Tree::empty();
    let deep = format!("{}x{}", "(".repeat(100), ")".repeat(100));
    let v: Value = t.run(&["tree", "-l", "py", &deep, "--json"]).ok().json();
    assert_eq!(v["truncatedBy"], json!(["depth"]));
    assert_eq!(depth(&v["root"]), MAX_TREE_DEPTH);
    assert_eq!((v["nodes"].clone(), v["totalNodes"].clone()), (json!(50), json!(103)));
    let text = t.run(&["tree", "-l", "py", &deep]).ok().stdout;
    assert!(text.contains("parenthesized_expression 1:48-1:155 … 53 nodes below not shown (depth cap 50)\n"), "{text}");
}

// ---- the MCP tool ----

async fn call(client: &Client, args: Value) -> CallToolResult {
    mcp::call(client, "ast_tree", args).await
}

#[tokio::test]
async fn ast_tree_is_listed_read_only_with_a_strict_flat_input_schema() {
    let t = Tree::empty();
    let service = connect(&t).await;
    let tools = service.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == "ast_tree").expect("ast_tree is listed");
    let a = tool.annotations.as_ref().unwrap();
    assert_eq!((a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint), (Some(true), Some(false), Some(true), Some(false)));
    let input = Value::Object((*tool.input_schema).clone());
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(input["required"], json!(["code", "lang"]));
    let props = input["properties"].as_object().unwrap();
    let types: Vec<(&str, &str)> = props.iter().map(|(k, v)| (k.as_str(), v["type"].as_str().expect("one type per property"))).collect();
    assert_eq!(types, [("code", "string"), ("isPattern", "boolean"), ("lang", "string"), ("named", "boolean")]);
    // Defaults are said in the descriptions (the portability lint allows no `default` key).
    assert!(props["isPattern"]["description"].as_str().unwrap().contains("default false"));
    assert!(props["named"]["description"].as_str().unwrap().contains("default true"));
    assert!(!input.to_string().contains("$ref") && !input.to_string().contains("null"), "{input}");
    let output = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
    assert_eq!(output["required"], json!(["lang", "isPattern", "root", "errors", "truncated", "nodes", "totalNodes"]));
    let desc = tool.description.as_deref().unwrap();
    assert!(desc.contains("`keyword_argument`") && desc.contains("`assignment`") && desc.contains("isPattern"), "{desc}");
    let _ = service.cancel().await;
}

/// The response line to one request (id 2), as the server writes it: the raw
/// bytes, unparsed.
fn raw_response(t: &Tree, request: Value) -> String {
    let mut child = std::process::Command::new(BIN)
        .arg("mcp")
        .current_dir(t.path())
        .env("AST_EDIT_STATE_DIR", t.state.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut request = request;
    request["jsonrpc"] = json!("2.0");
    request["id"] = json!(2);
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            .to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        request.to_string(),
    ];
    child.stdin.take().unwrap().write_all(format!("{}\n", lines.join("\n")).as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout.lines().find(|l| l.contains(r#""id":2"#)).expect("the response").to_string()
}

/// How deep `json` nests objects and arrays, counted in its text.
fn nesting(json: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for c in json.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (true, false, _) => {}
            (false, _, '"') => in_string = true,
            (false, _, '{' | '[') => {
                depth += 1;
                max = max.max(depth);
            }
            (false, _, '}' | ']') => depth -= 1,
            _ => {}
        }
    }
    max
}

#[test]
fn every_tool_description_and_schema_fits_in_12_kib() {
    let t = Tree::empty();
    let line = raw_response(&t, json!({"method": "tools/list"}));
    let v: Value = serde_json::from_str(&line).unwrap();
    assert!(v["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "ast_tree"), "{line}");
    let bytes = line.len();
    assert!(bytes < 15_360, "the tools/list response is {bytes} bytes; an agent reads all of it on every session");
}

#[tokio::test]
async fn ast_tree_gives_the_cli_text_and_the_tree_as_structured_content() {
    let t = Tree::empty();
    let service = connect(&t).await;
    let r = call(&service, json!({"code": "on_delete=models.CASCADE", "lang": "py"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(text(&r), KWARG_ALONE);
    let s = r.structured_content.clone().unwrap();
    let cli: Value = t.run(&["tree", "-l", "py", "on_delete=models.CASCADE", "--json"]).ok().json();
    assert_eq!(s, cli, "the same library call");
    assert_eq!(s["root"]["children"][0]["children"][0]["kind"], "assignment");

    let r = call(&service, json!({"code": "ForeignKey($M, on_delete=models.CASCADE)", "lang": "python", "isPattern": true})).await;
    // The same tree, the note in the server's words.
    assert_eq!(text(&r), KWARG_IN_CALL.replace("`--selector`", "`selector`"));
    let s = r.structured_content.clone().unwrap();
    assert_eq!((s["isPattern"].clone(), s["patternRoot"].clone()), (json!(true), json!("call")));
    assert_eq!(s["root"]["children"][0]["children"][0]["children"][1]["children"][1]["kind"], "keyword_argument");

    let r = call(&service, json!({"code": "print($a)", "lang": "py", "isPattern": true})).await;
    assert!(text(&r).contains("        ERROR 1:7-1:8 \"$\"\n") && text(&r).contains("`$a` is not a metavariable"), "{}", text(&r));
    assert_eq!(r.structured_content.as_ref().unwrap()["errors"], 2);

    let r = call(&service, json!({"code": "kfree($A)", "lang": "c", "isPattern": true})).await;
    assert!(text(&r).contains("\n  MISSING ; 1:10-1:10\n"), "{}", text(&r));
    let r = call(&service, json!({"code": "f(x)", "lang": "py", "named": false})).await;
    assert!(text(&r).contains("        \"(\" 1:2-1:3\n"), "{}", text(&r));
    let _ = service.cancel().await;
}

#[tokio::test]
async fn ast_tree_refuses_bad_input_and_keeps_serving() {
    let t = Tree::empty();
    let service = connect(&t).await;
    let cases = [
        (json!({"code": "x", "lang": "cobol"}), "unknown language `cobol`; use one of: bash, c, cpp,"),
        (json!({"code": "x".repeat(MAX_CODE_BYTES + 1), "lang": "py"}), "the code is 65537 bytes; the limit is 65536 bytes per tree"),
        (
            json!({"code": "x", "lang": "py", "pattern": true}),
            "invalid arguments for `ast_tree`: `pattern`: unknown field `pattern`, expected one of `code`, `lang`, `isPattern`, `named`",
        ),
        (json!({"lang": "py"}), "invalid arguments for `ast_tree`: missing field `code`"),
        (json!({"code": "x", "lang": "py", "named": "no"}), "`named`: invalid type"),
    ];
    for (args, want) in cases {
        let r = call(&service, args).await;
        assert_eq!(r.is_error, Some(true), "{r:?}");
        assert!(text(&r).contains(want), "`{want}` not in `{}`", text(&r));
        assert!(r.structured_content.is_none());
    }
    let unknown = text(&call(&service, json!({"code": "x", "lang": "cobol"})).await).to_string();
    assert!(unknown.contains("unknown language `cobol`") && unknown.contains("Aliases work too: cc (cpp)") && !unknown.contains("ast-edit"), "{unknown}");
    let r = call(&service, json!({"code": "x", "lang": "py"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let _ = service.cancel().await;
}

#[tokio::test]
async fn a_deep_tree_reaches_the_client_whole_within_the_caps() {
    // Without the depth cap, 100 nested parentheses nest the response's JSON past
    // the 128 levels that serde_json parses, and rmcp's client never sees the
    // response (it waited forever when the cap was 1,000).
    let t = Tree::empty();
    let deep = format!("{}x{}", "(".repeat(100), ")".repeat(100));
    let line = raw_response(&t, json!({"method": "tools/call", "params": {"name": "ast_tree", "arguments": {"code": deep, "lang": "py"}}}));
    assert!(nesting(&line) <= 128, "the response nests {} levels deep", nesting(&line));
    let service = connect(&t).await;
    let r = call(&service, json!({"code": deep, "lang": "py"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!((s["truncated"].clone(), depth(&s["root"])), (json!(true), MAX_TREE_DEPTH));
    let list = format!("x = [{}]", "1, ".repeat(5_000));
    let r = call(&service, json!({"code": list, "lang": "py", "named": false})).await;
    let s = r.structured_content.clone().unwrap();
    assert_eq!(s["nodes"], MAX_TREE_NODES);
    assert!(compact_len(&s["root"]) <= MAX_TREE_CHARS);
    assert!(text(&r).ends_with("at the cap of 300 nodes; show a smaller snippet.\n"), "{}", text(&r));
    let _ = service.cancel().await;
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn the_pattern_root_is_the_node_kind_ast_grep_matches_with() {
    let sg = crate::common::ast_grep();
    let t = Tree::empty();
    let cases = [
        ("go", "$A = 0"),
        ("rs", "$A.bar()"),
        ("c", "kfree($A)"),
        ("c", "kfree($A);"),
        ("py", "print($A)"),
        ("py", "print($a)"),
        ("py", "models.ForeignKey(User, on_delete=models.CASCADE)"),
        ("ts", "const $A = $B"),
        ("java", "foo($A)"),
        ("js", "a"),
    ];
    for (lang, pat) in cases {
        // ast-grep prints the pattern it compiled on stderr: "Debug Pattern:", then its root.
        let out = std::process::Command::new(&sg).args(["run", "--debug-query=pattern", "-l", lang, "-p", pat, "/dev/null"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let theirs = stderr.lines().nth(1).and_then(|l| l.split_whitespace().next()).unwrap_or_else(|| panic!("{stderr}"));
        let v: Value = t.run(&["tree", "-l", lang, "--pattern", pat, "--json"]).ok().json();
        assert_eq!(v["patternRoot"], theirs, "{lang} `{pat}`");
    }
}
