//! The `ast_search` tool: count and locate the matches of patterns or rules
//! ([`ast_edit::app::search`]) inside the server's root. Read-only: nothing is staged,
//! nothing is written. The text is the CLI's (`ast-edit search`), the
//! `structuredContent` the [`ast_edit::app::search::SearchResult`], both bounded.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use rmcp::service::RequestContext;
use serde_json::Value;

use ast_edit::app::request::SERVED_TIME_LIMIT;

use super::transport::InFlight;
use super::words::{self, WORDS};
use super::{PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET};
use ast_edit::app::cache::EntryCache;
use ast_edit::app::project_rules;
use ast_edit::app::request::{DEFAULT_MAX_FILESIZE, WalkOptions};
use ast_edit::app::search::{self, RawSearch};
use ast_edit::app::workspace::Workspace;

/// The message of a cancelled `ast_search`.
const CANCELLED: &str = "Cancelled: the search was abandoned.";

/// The result of a search still running `SHUTDOWN_GRACE` after stdin closed.
const ENDED: &str = "Stopped: the session ended (stdin closed) while the search was running.";

/// Runs `ast_search` in `ws`'s root: arguments checked and paths confined
/// before any file is read, the search on a blocking thread (abandoned when the
/// request is cancelled; the search itself stops within the file it is on),
/// with the workspace's scan cache when `cached` (no `--no-cache`).
pub(super) async fn ast_search(
    (ws, cached): (Arc<Workspace>, bool),
    in_flight: Arc<InFlight>,
    args: Option<JsonObject>,
    ctx: RequestContext<RoleServer>,
) -> CallToolResult {
    let raw = match parse(args) {
        Ok(r) => r,
        Err(msg) => return error(msg),
    };
    for p in raw.paths.iter().chain(&raw.project) {
        if let Err(e) = ws.confine(p) {
            return error(words::error(&e));
        }
    }
    let root = ws.root().to_path_buf();
    let token = ctx.ct.clone();
    let closing = in_flight.clone();
    let work = tokio::task::spawn_blocking(move || {
        let mut loading = Vec::new();
        let s = raw.validate_with(|raw| {
            let checked = project_rules::validate(raw, &root, Some(&root), WalkOptions::default(), DEFAULT_MAX_FILESIZE)?;
            loading = checked.warnings;
            Ok(checked.request.with_time_limit(SERVED_TIME_LIMIT))
        })?;
        let cache = cached.then(|| ws.scan_cache(&s.request));
        let result = search::search_with(&s, &root, WORDS, &|| token.is_cancelled() || closing.closing(), cache.as_ref().map(|c| c as &dyn EntryCache));
        if let Some(c) = &cache {
            c.finish();
        }
        let mut result = result?;
        result.warnings.splice(0..0, loading);
        Ok::<_, ast_edit::app::error::Error>(result)
    });
    let done = tokio::select! {
        _ = ctx.ct.cancelled() => return error(CANCELLED.to_string()),
        _ = in_flight.wait_closing() => return error(ENDED.to_string()),
        done = work => done,
    };
    let mut result = match done {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return error(words::error(&e)),
        Err(e) => return error(format!("internal error while searching: {e}")),
    };
    result.fit(WORDS, PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET);
    let mut out = CallToolResult::success(vec![ContentBlock::text(result.render(WORDS))]);
    out.structured_content = Some(serde_json::to_value(&result).expect("a search result serializes"));
    out
}

/// Deserializes the arguments, naming the field at fault.
fn parse(args: Option<JsonObject>) -> std::result::Result<RawSearch, String> {
    let value = Value::Object(args.unwrap_or_default());
    serde_path_to_error::deserialize::<_, RawSearch>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let at = if path == "." || path.is_empty() { String::new() } else { format!("`{path}`: ") };
        let rewrite = if inner.contains("unknown field `out`") { " ast_search only finds; to rewrite, call `ast_edit`." } else { "" };
        format!(
            "invalid arguments for `ast_search`: {at}{inner}.{rewrite} Expected an object like {{\"ops\": [{{\"pat\": \"foo($A)\"}}], \"paths\": [\"src\"]}}."
        )
    })
}

/// A tool result with `isError: true` and `msg` (bounded).
fn error(msg: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(super::preview_text::bounded_message(&msg))])
}
