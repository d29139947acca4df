//! The `ast_tree` tool: the syntax tree of a snippet or a pattern
//! ([`ast_edit::app::tree`]), so that an agent sees how code parses before it writes a
//! pattern. Read-only: it touches no file and no store.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::Deserialize;
use serde_json::Value;

use super::words;
use ast_edit::app::tree::{self, TreeOptions};

/// The arguments of `ast_tree` (its input schema is `tools::ast_tree_input_schema`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TreeArgs {
    code: String,
    lang: String,
    #[serde(default)]
    is_pattern: bool,
    #[serde(default = "named_default")]
    named: bool,
}

fn named_default() -> bool {
    true
}

/// Runs `ast_tree`: the text is [`tree::render`], `structuredContent` the
/// [`tree::TreeDump`]. Bad arguments, an unknown language and code over
/// [`tree::MAX_CODE_BYTES`] are `isError` results.
pub(super) async fn ast_tree(args: Option<JsonObject>) -> CallToolResult {
    let args = match parse(args) {
        Ok(a) => a,
        Err(msg) => return error(msg),
    };
    let opts = TreeOptions { is_pattern: args.is_pattern, all: !args.named };
    let done = tokio::task::spawn_blocking(move || tree::dump_named(&args.code, &args.lang, opts, super::words::WORDS)).await;
    let dump = match done {
        Ok(Ok(d)) => d,
        Ok(Err(e)) => return error(words::error(&e)),
        Err(e) => return error(format!("internal error while parsing: {e}")),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(tree::render(&dump))]);
    result.structured_content = Some(serde_json::to_value(&dump).expect("a tree serializes"));
    result
}

/// Deserializes the arguments, naming the field at fault.
fn parse(args: Option<JsonObject>) -> std::result::Result<TreeArgs, String> {
    let value = Value::Object(args.unwrap_or_default());
    serde_path_to_error::deserialize::<_, TreeArgs>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." || path.is_empty() { String::new() } else { format!("`{path}`: ") };
        format!("invalid arguments for `ast_tree`: {at}{inner}. Expected an object like {{\"code\": \"foo(x=1)\", \"lang\": \"py\"}}.")
    })
}

fn error(msg: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(msg)])
}
