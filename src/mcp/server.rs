//! The server itself: the `ast_edit`, `resolve`, `ast_pending` and `ast_undo` handlers,
//! progress notifications and cancellation. Each handler checks its arguments, makes one
//! library call on a blocking thread and turns the result into a tool result, bounded
//! (`paging`, `preview_text`). The process is one session of the store
//! ([`ast_edit::app::session`]): its owner, `mcp-<6 hex>`, is drawn at start and shown
//! with the client's name from `initialize` (docs/DESIGN.md §3.8, §4.10).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::Value;

use super::paging::{self, MAX_PAGE_FILES, PAGE_FILES, PendingArgs, UndoArgs};
use super::preview_text::{self as texts, PAGE_TEXT_ROOM};
use super::tools::{INSTRUCTIONS, tools};
use super::transport::InFlight;
use super::words::{self, WORDS};
use super::{REMINDER, preview_text};
use ast_edit::app::cache::EntryCache;
use ast_edit::app::error::{Error, Result};
use ast_edit::app::message::{Say, Words};
use ast_edit::app::pending::{ActionKind, Store};
use ast_edit::app::plan;
use ast_edit::app::project_rules;
use ast_edit::app::request::{DEFAULT_MAX_FILESIZE, RawRequest, SERVED_TIME_LIMIT, WalkOptions};
use ast_edit::app::resolve::{self, Action, Ending, RawResolve, ResolveRequest};
use ast_edit::app::session::Session;
use ast_edit::app::workflow;
use ast_edit::app::workspace::Workspace;

/// The server: the workspace of its root, its session's owner, the work in
/// flight that the process waits for before it exits, and whether it uses the
/// scan cache (`--no-cache`: not).
#[derive(Clone, Debug)]
pub struct AstEditServer {
    ws: Arc<Workspace>,
    owner: Arc<str>,
    in_flight: Arc<InFlight>,
    cache: bool,
}

/// The longest the server waits at start for the store's lock, which another
/// process may hold (docs/DESIGN.md §7): then it serves without it.
pub const START_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The message of a cancelled `ast_edit`.
const CANCELLED: &str = "Cancelled: the preview was abandoned and nothing was staged.";

/// The result of a preview still planning `SHUTDOWN_GRACE` after stdin closed.
const ENDED: &str = "Stopped: the session ended (stdin closed) while the preview was planning; nothing was staged.";

impl AstEditServer {
    /// A server confined to `root` (canonical), with the CLI's state-dir rules,
    /// as a new session (its owner drawn now, unused in the store). Cleans up
    /// after an apply that was killed half-way (reported on stderr). With
    /// `cache`, previews and searches of rules use the scan cache of the
    /// workspace's state dir (docs/DESIGN.md section 2.14).
    pub fn new(root: PathBuf, cache: bool) -> Result<Self> {
        let ws = Arc::new(Workspace::new(root));
        let (_, owner) = ws.open_session("mcp", START_LOCK_WAIT, &mut |msg| eprintln!("ast-edit mcp: warning: {}", msg.render(WORDS)))?;
        Ok(AstEditServer { ws, owner: owner.into(), in_flight: Arc::default(), cache })
    }

    /// The owner of this server's session (`mcp-<6 hex>`).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The session of a call: this server's owner, with the name the client gave
    /// in `initialize`.
    fn session(&self, ctx: &RequestContext<RoleServer>) -> Session {
        let info = ctx.peer.peer_info();
        Session::new(self.owner.to_string(), info.as_ref().map(|i| i.client_info.name.as_str()))
    }

    /// The root the server is confined to.
    pub fn root(&self) -> &std::path::Path {
        self.ws.root()
    }

    /// The state dir of its store.
    pub fn state_dir(&self) -> &std::path::Path {
        self.ws.state_dir()
    }

    /// The work in flight that the process waits for before it exits, shared with
    /// the transport.
    pub(super) fn in_flight(&self) -> Arc<InFlight> {
        self.in_flight.clone()
    }

    /// Opens the store as `session`.
    fn store(&self, session: Session) -> Result<Store> {
        Ok(self.ws.store(&mut |msg| eprintln!("ast-edit mcp: warning: {}", msg.render(WORDS)))?.in_session(session))
    }

    async fn ast_edit(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let progress = Progress::new(&ctx);
        let raw: RawRequest = match parse_args("ast_edit", args) {
            Ok(r) => r,
            Err(msg) => return tool_error(msg),
        };
        injected_panic(&raw.ops, "handler");
        for p in raw.paths.iter().chain(&raw.project) {
            if let Err(e) = self.ws.confine(p) {
                return tool_error(words::error(&e));
            }
        }
        let root = self.ws.root();
        let (req, loading) = match project_rules::validate(raw, root, Some(root), WalkOptions::default(), DEFAULT_MAX_FILESIZE) {
            Ok(c) => (c.request.with_time_limit(SERVED_TIME_LIMIT), c.warnings),
            Err(e) => return tool_error(words::error(&e)),
        };
        progress.send(0.0, None, "searching files").await;
        let plan = match self.plan(req, &ctx, &progress).await {
            Ok(plan) => plan,
            Err(msg) => return tool_error(msg),
        };
        let searched = plan.files_searched;
        let server = self.clone();
        let session = self.session(&ctx);
        // Staging is waited for before the process exits (the planning is not).
        let staging = self.in_flight.start(&ctx.id, "ast_edit");
        let staged = tokio::task::spawn_blocking(move || {
            let _staging = staging;
            workflow::stage(&server.store(session)?, plan, WORDS)
        })
        .await;
        let mut details = match staged {
            Ok(Ok(shown)) => shown.details,
            Ok(Err(e)) => return tool_error(words::error(&e)),
            Err(e) => return tool_error(format!("internal error while staging: {e}")),
        };
        let end = searched as f64 + 1.0;
        let msg = match &details.id {
            Some(id) => format!("staged {id}: {}", details.label),
            None => "no changes".to_string(),
        };
        progress.send(end, Some(end), &msg).await;
        details.warnings.splice(0..0, loading);
        let mut text = preview_text(&details);
        if details.id.is_some() {
            text.push_str("\n\n");
            text.push_str(REMINDER);
        }
        let structured = paging::preview(&details);
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        result
    }

    /// Plans `req` on a blocking thread (whose stack is [`super::THREAD_STACK_BYTES`]:
    /// compiling a pattern recurses as deep as it nests), forwarding per-file progress
    /// (at most every 100 ms, strictly increasing). A cancelled request stops waiting
    /// at once, and the planning itself stops within the file it is on (the token is
    /// polled for `engine::budget`). `Err` is the message of the tool error.
    async fn plan(
        &self,
        req: ast_edit::app::request::Request,
        ctx: &RequestContext<RoleServer>,
        progress: &Progress,
    ) -> std::result::Result<plan::Plan, String> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, usize)>();
        let forward = {
            let progress = progress.clone();
            tokio::spawn(async move {
                let mut last_sent = 0usize;
                let mut last_at: Option<Instant> = None;
                while let Some((done, total)) = rx.recv().await {
                    let due = last_at.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) || done == total;
                    if done > last_sent && due {
                        progress.send(done as f64, Some(total as f64 + 1.0), "planning files").await;
                        last_sent = done;
                        last_at = Some(Instant::now());
                    }
                }
            })
        };
        let ws = self.ws.clone();
        let cached = self.cache;
        let token = ctx.ct.clone();
        let in_flight = self.in_flight.clone();
        let planning = tokio::task::spawn_blocking(move || {
            injected_panic(&req.ops, "plan");
            let report = |done, total| {
                let _ = tx.send((done, total));
            };
            let cache = cached.then(|| ws.scan_cache(&req));
            let plan =
                plan::build_with(&req, ws.root(), &report, &|| token.is_cancelled() || in_flight.closing(), cache.as_ref().map(|c| c as &dyn EntryCache));
            if let Some(c) = &cache {
                c.finish();
            }
            plan
        });
        let plan = tokio::select! {
            _ = ctx.ct.cancelled() => {
                forward.abort();
                eprintln!("ast-edit mcp: ast_edit request {} cancelled; nothing staged", ctx.id);
                return Err(CANCELLED.to_string());
            }
            _ = self.in_flight.wait_closing() => {
                forward.abort();
                eprintln!("ast-edit mcp: ast_edit request {} still planning when the session ended; nothing staged", ctx.id);
                return Err(ENDED.to_string());
            }
            joined = planning => joined,
        };
        let _ = forward.await;
        let plan = match plan {
            Ok(Ok(plan)) => plan,
            Ok(Err(e)) => return Err(words::error(&e)),
            Err(e) => return Err(format!("internal error while planning: {e}")),
        };
        if ctx.ct.is_cancelled() {
            return Err(CANCELLED.to_string());
        }
        Ok(plan)
    }

    async fn resolve(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let progress = Progress::new(&ctx);
        let args: RawResolve = match parse_args("resolve", args) {
            Ok(a) => a,
            Err(msg) => return tool_error(msg),
        };
        let mut req = match args.check() {
            Ok(r) => r,
            Err(e) => return tool_error(words::error(&e)),
        };
        req.cache = self.cache;
        progress.send(0.0, None, "resolving").await;
        let server = self.clone();
        let session = self.session(&ctx);
        // Not abandoned on cancellation: an apply writes all files or none, and
        // stopping half-way is exactly what it must not do.
        let joined = tokio::task::spawn_blocking(move || server.resolve_confined(&req, session)).await;
        progress.send(1.0, Some(1.0), "resolved").await;
        match joined {
            Ok(Ok(r)) => {
                let mut details = paging::resolve(&r.details);
                let content = texts::bounded_result_text(&r.content.render(WORDS));
                if r.is_error {
                    details["error"] = Value::String(content.clone());
                }
                let mut result = if r.is_error {
                    CallToolResult::error(vec![ContentBlock::text(content)])
                } else {
                    CallToolResult::success(vec![ContentBlock::text(content)])
                };
                result.structured_content = Some(details);
                result
            }
            Ok(Err(e)) => tool_error(words::error(&e)),
            Err(e) => tool_error(format!("internal error while resolving: {e}")),
        }
    }

    /// [`resolve::resolve`] as `session` (without `id`, its own newest action),
    /// after checking that an `ast_edit` action to apply touches only files inside
    /// the root. The action checked is pinned by id so that a newer action staged
    /// meanwhile is not applied unchecked.
    fn resolve_confined(&self, req: &ResolveRequest, session: Session) -> Result<resolve::ResolveResult> {
        let store = self.store(session)?;
        for _attempt in 0..3 {
            let chosen = store.lock()?.get(req.id.as_deref())?;
            let Some(action) = chosen else {
                // Nothing on disk: the library answers (standing handler, or the
                // exact nothing-pending / unknown-id message).
                return resolve::resolve(&store, req);
            };
            if req.action == Action::Apply
                && let ActionKind::AstEdit { plan } = &action.kind
            {
                let outside = self.ws.files_outside(plan);
                if !outside.is_empty() {
                    return Err(Error::bad(format!(
                        "pending action {} edits files outside this server's root {}: {}. The MCP server writes only inside its root: a person can apply it from a shell, with the ast-edit command line; or discard it with `resolve`.",
                        action.id,
                        self.ws.root().display(),
                        outside.join(", "),
                    )));
                }
            }
            let pinned = ResolveRequest { id: Some(action.id.clone()), ..req.clone() };
            let result = resolve::resolve(&store, &pinned)?;
            if result.ending == Ending::UnknownId && req.id.is_none() {
                // Resolved by another process between the check and now: pick again.
                continue;
            }
            return Ok(result);
        }
        resolve::resolve(&store, req)
    }

    async fn ast_pending(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let args: PendingArgs = match parse_args("ast_pending", args) {
            Ok(a) => a,
            Err(msg) => return tool_error(msg),
        };
        let server = self.clone();
        let session = self.session(&ctx);
        match tokio::task::spawn_blocking(move || server.pending(args, session)).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => tool_error(words::error(&e)),
            Err(e) => tool_error(format!("internal error in `ast_pending`: {e}")),
        }
    }

    /// `ast_pending`: without `id`, the pending actions of every session, each
    /// with its owner (`mine` for `session`'s own); with it, a page of that
    /// action's files. Reads the store only.
    fn pending(&self, args: PendingArgs, session: Session) -> Result<CallToolResult> {
        let limit = match args.limit {
            None => PAGE_FILES,
            Some(0) => return Ok(tool_error("limit must be at least 1 (files per page)".into())),
            Some(n) if n > MAX_PAGE_FILES as u64 => {
                return Ok(tool_error(format!(
                    "limit is {n}; the limit is {MAX_PAGE_FILES} files per page (MAX_PAGE_FILES): ask for {MAX_PAGE_FILES} or fewer and page on with fileOffset"
                )));
            }
            Some(n) => n as usize,
        };
        let store = self.store(session)?;
        let locked = store.lock()?;
        let Some(id) = args.id.filter(|id| !id.trim().is_empty()) else {
            if args.file_offset.is_some() || args.limit.is_some() || args.path.is_some() || args.diff_offset.is_some() {
                return Ok(tool_error(
                    "fileOffset, diffOffset, limit and path page through one action's files: give its `id` too (call `ast_pending` without arguments to list the pending actions)".into(),
                ));
            }
            let (actions, damaged) = locked.listed()?;
            for msg in damaged {
                eprintln!("ast-edit mcp: warning: {msg}");
            }
            let (value, shown) = paging::action_list(&actions, locked.session());
            return Ok(success(texts::list_text(&actions, shown, locked.session()), value));
        };
        let Some(action) = locked.get(Some(&id))? else {
            let said = match locked.resolution(&id)? {
                Some(r) => format!(
                    "{} {}",
                    ast_edit::app::error::resolved_text(&id, r.resolution, &r.at, r.superseded_by.as_deref()).render(WORDS),
                    WORDS.say(&Say::ListPending)
                ),
                None => words::error(&Error::UnknownId(id)),
            };
            return Ok(tool_error(said));
        };
        drop(locked);
        if let ActionKind::AstEdit { plan } = &action.kind {
            let outside = self.ws.files_outside(plan);
            if !outside.is_empty() {
                return Ok(tool_error(format!(
                    "pending action {} edits {} outside this server's root {}: its diffs are not shown here (a person can see them from a shell, with the ast-edit command line); discard it with `resolve`, or leave it.",
                    action.id,
                    ast_edit::app::text::plural(outside.len(), "file"),
                    self.ws.root().display(),
                )));
            }
        }
        let offset = usize::try_from(args.file_offset.unwrap_or(0)).unwrap_or(usize::MAX);
        let mut text_used = 0usize;
        let fits = |f: &ast_edit::app::preview::PreviewFile| {
            text_used += texts::page_file_chars(f);
            text_used <= PAGE_TEXT_ROOM
        };
        let diff_offset = args.diff_offset.map(|d| usize::try_from(d).unwrap_or(usize::MAX));
        let room = paging::TextRoom { room: PAGE_TEXT_ROOM, line: &texts::diff_line_chars };
        Ok(match paging::page(&action, args.path.as_deref().filter(|p| !p.trim().is_empty()), (offset, diff_offset), limit, &room, fits) {
            Ok(page) => success(texts::page_text(&action, &page), page.value.clone()),
            Err(msg) => tool_error(msg),
        })
    }

    async fn ast_undo(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let args: UndoArgs = match parse_args("ast_undo", args) {
            Ok(a) => a,
            Err(msg) => return tool_error(msg),
        };
        let server = self.clone();
        let session = self.session(&ctx);
        // Like an apply, an undo runs to its end once started.
        match tokio::task::spawn_blocking(move || server.undo(args, session)).await {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => tool_error(words::error(&e)),
            Err(e) => tool_error(format!("internal error in `ast_undo`: {e}")),
        }
    }

    /// `ast_undo`: the library's undo (as `ast-edit undo`) under the store's
    /// lock, as `session`: without `id` its own last apply, with `id` the last
    /// apply of that action; refused, nothing written, when the library refuses
    /// it ([`ast_edit::app::apply::pick_undo`]) or when it wrote files outside the root.
    fn undo(&self, args: UndoArgs, session: Session) -> Result<CallToolResult> {
        let store = self.store(session)?;
        let locked = store.lock()?;
        let id = args.id.as_deref().map(str::trim).filter(|id| !id.is_empty());
        let choice = match ast_edit::app::apply::pick_undo(&locked, id)? {
            Ok(choice) => choice,
            Err(refused) => return Ok(tool_error(refused.render(WORDS))),
        };
        let outside: Vec<String> =
            choice.files.iter().filter(|p| !ast_edit::app::workspace::really_inside(self.ws.root(), p)).map(|p| p.display().to_string()).collect();
        if !outside.is_empty() {
            return Ok(tool_error(format!(
                "The apply of {} wrote {} outside this server's root {}: {}. Nothing was written: the MCP server writes only inside its root; a person can undo it from a shell, with the ast-edit command line.",
                choice.id,
                ast_edit::app::text::plural(outside.len(), "file"),
                self.ws.root().display(),
                outside.join(", ")
            )));
        }
        let report = ast_edit::app::apply::undo(&locked, choice)?;
        Ok(success(texts::bounded_result_text(&report.text()), paging::undo(&report)))
    }
}

/// A successful tool result: `text` and `structured`.
fn success(text: String, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// Progress notifications for one request, when the client sent a token.
#[derive(Clone)]
struct Progress {
    target: Option<(Peer<RoleServer>, ProgressToken)>,
}

impl Progress {
    fn new(ctx: &RequestContext<RoleServer>) -> Self {
        Progress { target: ctx.meta.get_progress_token().map(|t| (ctx.peer.clone(), t)) }
    }

    async fn send(&self, progress: f64, total: Option<f64>, message: &str) {
        let Some((peer, token)) = &self.target else { return };
        let mut p = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
        if let Some(t) = total {
            p = p.with_total(t);
        }
        if let Err(e) = peer.notify_progress(p).await {
            eprintln!("ast-edit mcp: cannot send a progress notification: {e}");
        }
    }
}

/// Test-only fault injection, only with the `fault-injection` feature: with
/// `AST_EDIT_MCP_PANIC` set, an `ast_edit` whose first pattern is `panic_in_handler()`
/// panics in the async handler, one whose first pattern is `panic_in_plan()` on its
/// planning thread (docs/DESIGN.md section 8.7).
fn injected_panic(ops: &[ast_edit::app::request::Op], place: &str) {
    if cfg!(feature = "fault-injection")
        && std::env::var_os("AST_EDIT_MCP_PANIC").is_some()
        && ops.first().is_some_and(|op| op.pat == format!("panic_in_{place}()"))
    {
        panic!("injected panic in the {place} (AST_EDIT_MCP_PANIC)");
    }
}

/// A tool result with `isError: true` and `msg` (bounded), without structured content.
fn tool_error(msg: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(texts::bounded_message(&msg))])
}

/// Deserializes a tool's arguments, naming the field at fault.
fn parse_args<T: for<'de> Deserialize<'de>>(tool: &str, args: Option<JsonObject>) -> std::result::Result<T, String> {
    let value = Value::Object(args.unwrap_or_default());
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let hint = match tool {
            "ast_edit" => "Expected an object like {\"ops\": [{\"pat\": \"foo($A)\", \"out\": \"bar($A)\"}], \"paths\": [\"src\"]}.",
            "ast_pending" => "Expected an object like {\"id\": \"ae-1a2b3c\", \"fileOffset\": 20}, or {} to list the pending actions.",
            "ast_undo" => "Expected {} or an object like {\"id\": \"ae-1a2b3c\"}.",
            _ => "Expected an object like {\"action\": \"apply\", \"reason\": \"why, in one sentence\"}.",
        };
        if path == "." || path.is_empty() {
            format!("invalid arguments for `{tool}`: {inner}. {hint}")
        } else {
            format!("invalid arguments for `{tool}`: `{path}`: {inner}. {hint}")
        }
    })
}

/// True when `path` is `root` or inside it (both absolute).
impl ServerHandler for AstEditServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("ast-edit", env!("CARGO_PKG_VERSION"))
                    .with_title("ast-edit")
                    .with_description("Structural code edits with a preview -> resolve step"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> std::result::Result<CallToolResponse, McpError> {
        let tool = request.name.to_string();
        if !matches!(tool.as_str(), "ast_edit" | "resolve" | "ast_pending" | "ast_undo" | "ast_tree" | "ast_search") {
            return Err(McpError::invalid_params(
                format!("unknown tool `{tool}`: this server has `ast_edit`, `resolve`, `ast_pending`, `ast_undo`, `ast_tree` and `ast_search`"),
                None,
            ));
        }
        // A resolve (or an undo: it writes files too) is waited for before the
        // process exits, from here until its task ends (the guard lives in the task).
        let running = match tool.as_str() {
            "resolve" => Some(self.in_flight.start(&context.id, "resolve")),
            "ast_undo" => Some(self.in_flight.start(&context.id, "ast_undo")),
            _ => None,
        };
        let server = self.clone();
        let name = tool.clone();
        // Its own task, so that a panic anywhere in the handler is a tool error
        // like any other, not a request left without an answer.
        let task = tokio::spawn(async move {
            let _running = running;
            match name.as_str() {
                "ast_edit" => server.ast_edit(request.arguments, context).await,
                "ast_pending" => server.ast_pending(request.arguments, context).await,
                "ast_undo" => server.ast_undo(request.arguments, context).await,
                "ast_tree" => super::tree_tool::ast_tree(request.arguments).await,
                "ast_search" => super::search_tool::ast_search((server.ws.clone(), server.cache), server.in_flight.clone(), request.arguments, context).await,
                _ => server.resolve(request.arguments, context).await,
            }
        });
        let result = match task.await {
            Ok(result) => result,
            Err(e) => {
                eprintln!("ast-edit mcp: internal error in `{tool}`: {e}");
                tool_error(format!("internal error in `{tool}`: {e}. This is a bug in ast-edit; the server keeps serving."))
            }
        };
        Ok(result.into())
    }
}
