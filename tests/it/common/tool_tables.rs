//! docs/MCP.md's tables of tools and of each tool's fields, made from what the
//! server answers to `tools/list` (`ast-edit mcp` over stdio, JSON-RPC lines), so
//! that the docs list exactly the tools, fields, types and required fields an
//! agent is given. Used by `tests/it/doc_examples.rs`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The marker lines around the list of tools.
pub const TOOLS_BEGIN: &str = "<!-- tools/list:begin (generated from the server's tools/list by tests/it/doc_examples.rs; UPDATE_DOCS=1 rewrites it) -->";
pub const TOOLS_END: &str = "<!-- tools/list:end -->";

/// The marker lines around a tool's table of fields.
pub fn fields_markers(tool: &str) -> (String, String) {
    (
        format!("<!-- fields:{tool}:begin (generated from the server's tools/list by tests/it/doc_examples.rs; UPDATE_DOCS=1 rewrites it) -->"),
        format!("<!-- fields:{tool}:end -->"),
    )
}

/// The `tools` of the server's `tools/list` answer. The server runs in an empty
/// folder with a store of its own.
pub fn tools_list() -> Vec<Value> {
    let root = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ast-edit"))
        .arg("mcp")
        .current_dir(root.path())
        .env("AST_EDIT_STATE_DIR", root.path().join(".state"))
        .env_remove("AST_EDIT_STANDING_CMD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "doc_examples", "version": "1"}}});
    let ready = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for m in [init, ready, list] {
        writeln!(stdin, "{m}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answer = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).expect("one JSON-RPC message a line");
        if v["id"] == 2 {
            answer = Some(v);
            break;
        }
    }
    drop(stdin);
    child.wait().unwrap();
    let answer = answer.expect("an answer to tools/list");
    answer["result"]["tools"].as_array().expect("result.tools").clone()
}

/// `s` on one line of a table: newlines as spaces, `|` and `*` escaped.
fn cell(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|").replace('*', "\\*")
}

/// The table of tools: name, title, annotations, and the first line of the description.
pub fn tools_table(tools: &[Value]) -> String {
    let mut out = String::from("| tool | title | annotations | what it does |\n| --- | --- | --- | --- |\n");
    for t in tools {
        let a = &t["annotations"];
        let hints: Vec<&str> =
            [("readOnlyHint", "read-only"), ("destructiveHint", "destructive"), ("idempotentHint", "idempotent"), ("openWorldHint", "open world")]
                .iter()
                .filter(|(k, _)| a[*k] == true)
                .map(|(_, w)| *w)
                .collect();
        let first = t["description"].as_str().unwrap_or("").lines().next().unwrap_or("");
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            t["name"].as_str().unwrap(),
            cell(t["title"].as_str().unwrap_or("")),
            hints.join(", "),
            cell(first)
        ));
    }
    out
}

/// A schema's type in words: `string`, `integer 0 to 10`, `[string]`,
/// `` `a` \| `b` ``, `[{pat, out}]`.
fn type_of(s: &Value) -> String {
    if let Some(e) = s["enum"].as_array() {
        return e.iter().map(|v| format!("`{}`", v.as_str().map_or(v.to_string(), str::to_string))).collect::<Vec<_>>().join(" \\| ");
    }
    let ty = match &s["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => "any".into(),
    };
    match ty.as_str() {
        "array" => match s["items"]["properties"].as_object() {
            Some(p) => format!("`[{{{}}}]`", p.keys().cloned().collect::<Vec<_>>().join(", ")),
            None => format!("`[{}]`", type_of(&s["items"]).trim_matches('`')),
        },
        "integer" | "number" => match (s["minimum"].as_i64(), s["maximum"].as_i64()) {
            (Some(lo), Some(hi)) => format!("{ty} {lo} to {hi}"),
            (Some(lo), None) => format!("{ty} >= {lo}"),
            _ => ty,
        },
        "string" if s["minLength"].as_u64().is_some_and(|n| n > 0) => "string, not empty".into(),
        _ => ty,
    }
}

/// The rows of `schema`'s properties, the required ones first, each under
/// `prefix` (`ops[].` for the items of `ops`).
fn rows(schema: &Value, prefix: &str, out: &mut String) {
    let required: Vec<&str> = schema["required"].as_array().map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).collect());
    let Some(props) = schema["properties"].as_object() else { return };
    let mut names: Vec<&String> = props.keys().collect();
    names.sort_by_key(|n| !required.contains(&n.as_str()));
    for name in names {
        let p = &props[name];
        let req = if required.contains(&name.as_str()) { ", required" } else { "" };
        out.push_str(&format!("| `{prefix}{name}` | {}{req} | {} |\n", type_of(p), cell(p["description"].as_str().unwrap_or(""))));
        if p["items"]["properties"].is_object() {
            rows(&p["items"], &format!("{prefix}{name}[]."), out);
        }
    }
}

/// The table of one tool's input fields.
pub fn fields_table(tool: &Value) -> String {
    let mut out = String::from("| field | type | meaning |\n| --- | --- | --- |\n");
    rows(&tool["inputSchema"], "", &mut out);
    out
}

/// `doc` with the list of tools and every tool's table of fields regenerated
/// from `tools`; an error names a marker the doc lacks.
pub fn regenerate(doc: &str, tools: &[Value]) -> Result<String, String> {
    let mut doc = doc.to_string();
    let mut sections = vec![(TOOLS_BEGIN.to_string(), TOOLS_END.to_string(), tools_table(tools))];
    for t in tools {
        let (b, e) = fields_markers(t["name"].as_str().unwrap());
        sections.push((b, e, fields_table(t)));
    }
    for (begin, end, table) in sections {
        let r = super::markdown::between(&doc, &begin, &end).ok_or_else(|| format!("docs/MCP.md lacks the marker lines\n{begin}\n{end}"))?;
        doc.replace_range(r, &table);
    }
    Ok(doc)
}

#[cfg(test)]
mod own {
    use super::*;

    #[test]
    fn types_read_as_the_docs_write_them() {
        assert_eq!(type_of(&json!({"type": "integer", "minimum": 0, "maximum": 10})), "integer 0 to 10");
        assert_eq!(type_of(&json!({"type": "array", "items": {"type": "string"}})), "`[string]`");
        assert_eq!(type_of(&json!({"enum": ["a", "b"], "type": "string"})), "`a` \\| `b`");
        assert_eq!(type_of(&json!({"type": "array", "items": {"properties": {"out": {}, "pat": {}}}})), "`[{out, pat}]`");
        assert_eq!(type_of(&json!({"type": "string", "minLength": 1})), "string, not empty");
    }
}
