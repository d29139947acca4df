//! Every tool result the MCP tests receive is checked against the `outputSchema`
//! its tool declares in `tools/list`, with a real JSON Schema validator (the
//! `jsonschema` crate), as strict SDK clients check it: a result that is not an
//! error must carry `structuredContent` that the schema accepts (the official
//! Python SDK raises "Invalid structured content returned by tool ..." otherwise),
//! and an error's `structuredContent`, where it has one, must be accepted too.
//! [`conforms`] is called by every helper that makes a tool call.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rmcp::model::CallToolResult;
use serde_json::Value;

/// Each tool's declared output schema, compiled, read once from the server's `tools/list`.
fn validators() -> &'static BTreeMap<String, (Value, jsonschema::Validator)> {
    static VALIDATORS: OnceLock<BTreeMap<String, (Value, jsonschema::Validator)>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        super::tool_tables::tools_list()
            .into_iter()
            .map(|t| {
                let name = t["name"].as_str().expect("a tool's name").to_string();
                let schema = t.get("outputSchema").cloned().unwrap_or_else(|| panic!("tool `{name}` declares an outputSchema"));
                let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the outputSchema of `{name}` is a valid JSON Schema: {e}"));
                (name, (schema, validator))
            })
            .collect()
    })
}

/// The schema errors of `structured` as a result of `tool`, one line each (empty: valid).
pub fn schema_errors(tool: &str, structured: &Value) -> Vec<String> {
    let (_, validator) = validators().get(tool).unwrap_or_else(|| panic!("`{tool}` is a tool of tools/list"));
    validator.iter_errors(structured).map(|e| format!("{e} at `{}`", e.instance_path())).collect()
}

/// Panics unless `r`, a result of `tool`, is valid against the tool's output schema:
/// a success has `structuredContent` the schema accepts; an error's, if any, too.
#[track_caller]
pub fn conforms(tool: &str, r: &CallToolResult) {
    let error = r.is_error == Some(true);
    let Some(structured) = r.structured_content.as_ref() else {
        assert!(error, "`{tool}` succeeded without structuredContent, which its outputSchema requires: {r:?}");
        return;
    };
    let errors = schema_errors(tool, structured);
    assert!(
        errors.is_empty(),
        "`{tool}` returned structuredContent its own outputSchema refuses (isError: {error}):\n  {}\nstructuredContent: {structured}",
        errors.join("\n  ")
    );
}
