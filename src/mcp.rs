//! `ast-edit mcp`: the Model Context Protocol server (stdio), built on the official
//! Rust SDK `rmcp`.
//!
//! Two tools, always listed, with hand-written JSON schemas (plain object roots, no
//! `$ref`, enums inline) so strict clients accept them:
//!
//! - `ast_edit` (read-only): validates the request of contract section 2, builds the
//!   dry-run plan, stages it in the same on-disk store as the CLI
//!   ([`pending::state_dir`], so `AST_EDIT_STATE_DIR` works and `ast-edit pending`
//!   sees MCP previews), and returns a preview text budgeted to
//!   [`PREVIEW_CHAR_BUDGET`] characters followed by the exact [`REMINDER`] block,
//!   with the whole preview details in `structuredContent`.
//! - `resolve` (destructive): applies or discards the newest pending action (or `id`)
//!   through [`resolve::resolve`]; the result text, `isError` and details are the
//!   library's, unchanged.
//!
//! Every failure of a tool call (bad arguments, bad patterns, paths outside the
//! root, store errors) is a tool result with `isError: true` and a message that
//! says what to fix; the server keeps serving. Nothing but JSON-RPC is written to
//! stdout; the few log lines go to stderr.
//!
//! Confinement: the server works inside one root (its working directory, or
//! `--root DIR`), canonicalised at start. Every path of a request must stay inside
//! it lexically (no absolute path elsewhere, no `..` escape) and after following
//! symlinks; the check runs before anything is read. `apply` of an `ast_edit`
//! action is refused when the action's files lie outside the root (a preview staged
//! by the CLI in another folder sharing the state dir); such an action can still be
//! discarded, which writes nothing. There is no MCP way to stage a shell command;
//! a command action that a person staged with `ast-edit propose` may be resolved.
//!
//! Cancellation and progress: `ast_edit` plans on a blocking thread. When the
//! client cancels the request (`notifications/cancelled`), the server stops waiting
//! at once and stages nothing; the planning thread sees the cancelled token between
//! files and stops too (`plan::build_with`). `resolve` is never abandoned half-way: an apply runs to completion (all
//! files or none) even when cancelled. When the request carries a `progressToken`,
//! both tools send `notifications/progress`: a start, per-file progress while
//! planning (at most every 100 ms), and an end.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::apply;
use crate::error::{Error, Result};
use crate::pending::{self, ActionKind, Store};
use crate::plan;
use crate::preview::{plural, PreviewDetails};
use crate::request::{RawRequest, WalkOptions, DEFAULT_MAX_FILESIZE};
use crate::message::Front;
use crate::resolve::{self, Action, RawResolve, ResolveRequest};
use crate::walk;

/// The block that ends an `ast_edit` result text when something is pending
/// (contract section 7), byte for byte.
pub const REMINDER: &str =
    "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>";

/// Cap on the characters of an `ast_edit` preview text (before [`REMINDER`]). The
/// summary, the per-file lines (up to [`MAX_FILE_LINES`]), skipped files and
/// warnings come first; diffs fill what is left, whole lines at a time, and a note
/// says how to see the rest. `structuredContent` always holds every diff in full.
pub const PREVIEW_CHAR_BUDGET: usize = 20_000;

/// Per-file summary lines shown before the rest are counted in one line.
pub const MAX_FILE_LINES: usize = 200;

/// Skipped files and warnings shown (each) before the rest are counted.
const MAX_NOTE_LINES: usize = 20;

/// Longest diff or warning line shown in full in the preview text (characters).
const MAX_LINE_CHARS: usize = 400;

/// The nothing-pending message of contract section 5, byte for byte.
pub use crate::error::NOTHING_PENDING;

const INSTRUCTIONS: &str = "\
ast-edit makes structural (syntax-aware) code edits with a preview step. Call `ast_edit` with \
one or more pattern -> rewrite ops: it shows a unified diff per file and stages the edit as a \
pending action without writing anything. Then call `resolve` with action \"apply\" (writes the \
files, after checking none changed since the preview) or \"discard\", and a one-sentence reason. \
Paths are relative to the server's root folder and must stay inside it.";

const AST_EDIT_DESCRIPTION: &str = "\
Preview a structural search-and-replace over code (ast-grep patterns on tree-sitter syntax trees). \
Nothing is written: the result is a unified diff per file, staged as a pending action with an `id`; \
then call `resolve` with action \"apply\" or \"discard\".

How to write `pat` and `out`:
- A pattern is code of the target language. `$A` (any capital name) matches exactly one node \
(an expression, identifier or argument); `$$$ARGS` matches zero or more nodes (arguments, statements); \
`$_` matches one node without capturing it. `out` reuses the captures: \
{\"pat\": \"self.assertEquals($A, $B)\", \"out\": \"self.assertEqual($A, $B)\"}, \
{\"pat\": \"fetch_data($$$ARGS)\", \"out\": \"load_data($$$ARGS)\"}.
- Everything else is literal and matches whole tokens only: a metavariable stands for a whole \
node, never part of a token (`get_$X()` does not work), and `foo` never matches `foobar`.
- A pattern must parse on its own: C, C++ and Java statements need their `;` (`kfree($A);`). \
Set `lang` (py, rs, ts, tsx, js, c, cpp, go, java, ...) when the file extensions do not say it.
- Several ops run in one pass; an empty `out` deletes the match. Zero matches is not an error: \
nothing is staged and there is nothing to resolve.";

const RESOLVE_DESCRIPTION: &str = "\
Apply or discard a pending action staged by `ast_edit` (or by a person with the ast-edit CLI). \
Without `id` it takes the newest pending action; pass the `id` from ast_edit's result to pick one. \
\"apply\" first checks that every file still has the bytes it had at the preview and that the edit \
gives exactly the previewed text, then writes all files or none. If a file changed since the \
preview it fails with `Apply failed: ...` and the action stays pending: discard it and preview again, \
or pass extra {\"stale\": \"skip\"} to write only the unchanged files. Other `extra` options: \
{\"files\": [\"path\", ...]} applies only those files; {\"allowSyntaxErrors\": true} applies files \
whose rewrite adds syntax errors. \"discard\" drops the action and writes nothing.";

/// Runs the server on stdin/stdout, confined to `root`, until the client closes
/// stdin (`ast-edit mcp [--root DIR]`; the CLI passes the working directory when
/// `--root` is absent).
pub fn serve(root: &Path) -> anyhow::Result<()> {
    let root = root.canonicalize().map_err(|e| Error::bad(format!("--root {}: {e}", root.display())))?;
    if !root.is_dir() {
        return Err(Error::bad(format!("--root {}: not a directory", root.display())).into());
    }
    // The root is the working directory of everything the server runs (the
    // standing handler of `resolve`, if configured, runs there too).
    std::env::set_current_dir(&root).map_err(|e| Error::io(format!("cannot enter {}", root.display()), e))?;
    let server = AstEditServer::new(root)?;
    eprintln!(
        "ast-edit mcp {}: serving {} (pending actions in {})",
        env!("CARGO_PKG_VERSION"),
        server.root.display(),
        server.state_dir.display()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the async runtime", e))?;
    let outcome = rt.block_on(async move {
        let running = server.serve((tokio::io::stdin(), stdout_writer()?)).await?;
        running.waiting().await?;
        anyhow::Ok(())
    });
    // A planning thread abandoned by a cancelled request may still run; do not wait long.
    rt.shutdown_timeout(Duration::from_secs(1));
    outcome
}

/// An async writer on a duplicate of file descriptor 1. The binary's `main` holds
/// the lock of `std::io::stdout()` for the whole run, so `tokio::io::stdout()`
/// (which writes through `std::io::stdout()` on another thread) would block forever;
/// a duplicated descriptor does not take that lock.
fn stdout_writer() -> std::io::Result<tokio::fs::File> {
    #[cfg(unix)]
    let owned = {
        use std::os::fd::AsFd;
        std::io::stdout().as_fd().try_clone_to_owned()?
    };
    #[cfg(windows)]
    let owned = {
        use std::os::windows::io::AsHandle;
        std::io::stdout().as_handle().try_clone_to_owned()?
    };
    Ok(tokio::fs::File::from_std(std::fs::File::from(owned)))
}

/// The server: a root and the state dir of its pending-action store.
#[derive(Clone, Debug)]
pub struct AstEditServer {
    root: Arc<PathBuf>,
    state_dir: Arc<PathBuf>,
}

impl AstEditServer {
    /// A server confined to `root` (canonical), with the CLI's state-dir rules.
    /// Cleans up after an apply that was killed half-way (reported on stderr).
    pub fn new(root: PathBuf) -> Result<Self> {
        let state_dir = pending::state_dir(&root);
        let server = AstEditServer { root: Arc::new(root), state_dir: Arc::new(state_dir) };
        server.store()?;
        Ok(server)
    }

    fn store(&self) -> Result<Store> {
        let store = Store::open(self.state_dir.as_path())?;
        let locked = store.lock()?;
        for msg in apply::recover(&locked)?.into_iter().chain(locked.problems()?) {
            eprintln!("ast-edit mcp: warning: {msg}");
        }
        drop(locked);
        Ok(store)
    }

    async fn ast_edit(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let progress = Progress::new(&ctx);
        let raw: RawRequest = match parse_args("ast_edit", args) {
            Ok(r) => r,
            Err(msg) => return tool_error(msg),
        };
        let root = self.root.clone();
        for p in &raw.paths {
            if let Err(e) = confine(&root, p) {
                return tool_error(e.to_string());
            }
        }
        let req = match raw.validate(&root, WalkOptions::default(), DEFAULT_MAX_FILESIZE) {
            Ok(r) => r,
            Err(e) => return tool_error(e.to_string()),
        };
        progress.send(0.0, None, "searching files").await;

        // Plan on a blocking thread; per-file progress flows through a channel to
        // a task that forwards it (rate-limited, strictly increasing).
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
        let plan_root = root.clone();
        // The token is checked between files: a cancelled request stops the planning
        // itself, not only the wait for it.
        let token = ctx.ct.clone();
        let planning = tokio::task::spawn_blocking(move || {
            plan::build_with(
                &req,
                &plan_root,
                &|done, total| {
                    let _ = tx.send((done, total));
                },
                &|| token.is_cancelled(),
            )
        });
        let plan = tokio::select! {
            _ = ctx.ct.cancelled() => {
                forward.abort();
                eprintln!("ast-edit mcp: ast_edit request {} cancelled; nothing staged", ctx.id);
                return tool_error("Cancelled: the preview was abandoned and nothing was staged.".to_string());
            }
            joined = planning => joined,
        };
        let _ = forward.await;
        let plan = match plan {
            Ok(Ok(plan)) => plan,
            Ok(Err(e)) => return tool_error(e.to_string()),
            Err(e) => return tool_error(format!("internal error while planning: {e}")),
        };
        if ctx.ct.is_cancelled() {
            return tool_error("Cancelled: the preview was abandoned and nothing was staged.".to_string());
        }
        let searched = plan.files_searched;
        let server = self.clone();
        let staged = tokio::task::spawn_blocking(move || {
            let store = server.store()?;
            pending::stage(&store, plan)
        })
        .await;
        let details = match staged {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => return tool_error(e.to_string()),
            Err(e) => return tool_error(format!("internal error while staging: {e}")),
        };
        let end = searched as f64 + 1.0;
        let msg = match &details.id {
            Some(id) => format!("staged {id}: {}", details.label),
            None => "no changes".to_string(),
        };
        progress.send(end, Some(end), &msg).await;
        let mut text = preview_text(&details);
        if details.id.is_some() {
            text.push_str("\n\n");
            text.push_str(REMINDER);
        }
        let structured = serde_json::to_value(&details).expect("preview details serialize");
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(structured);
        result
    }

    async fn resolve(&self, args: Option<JsonObject>, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let progress = Progress::new(&ctx);
        let args: RawResolve = match parse_args("resolve", args) {
            Ok(a) => a,
            Err(msg) => return tool_error(msg),
        };
        let req = match args.check(Front::Mcp) {
            Ok(r) => r,
            Err(e) => return tool_error(e.to_string()),
        };
        progress.send(0.0, None, "resolving").await;
        let server = self.clone();
        // Not abandoned on cancellation: an apply writes all files or none, and
        // stopping half-way is exactly what it must not do.
        let joined = tokio::task::spawn_blocking(move || server.resolve_confined(&req)).await;
        progress.send(1.0, Some(1.0), "resolved").await;
        match joined {
            Ok(Ok(r)) => {
                let details = serde_json::to_value(&r.details).expect("resolve details serialize");
                let mut result = if r.is_error {
                    CallToolResult::error(vec![ContentBlock::text(r.content)])
                } else {
                    CallToolResult::success(vec![ContentBlock::text(r.content)])
                };
                result.structured_content = Some(details);
                result
            }
            Ok(Err(e)) => tool_error(e.to_string()),
            Err(e) => tool_error(format!("internal error while resolving: {e}")),
        }
    }

    /// [`resolve::resolve`], after checking that an `ast_edit` action to apply
    /// touches only files inside the root. The action checked is pinned by id so
    /// that a newer action staged meanwhile is not applied unchecked.
    fn resolve_confined(&self, req: &ResolveRequest) -> Result<resolve::ResolveResult> {
        let store = self.store()?;
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
                let outside: Vec<&str> = plan
                    .files
                    .iter()
                    .filter(|f| !really_inside(&self.root, &f.abs))
                    .map(|f| f.abs.to_str().unwrap_or(f.path.as_str()))
                    .collect();
                if !outside.is_empty() {
                    return Err(Error::bad(format!(
                        "pending action {} edits files outside this server's root {}: {}. The MCP server writes only inside its root; apply it from a shell with `ast-edit resolve apply --id {} --reason ...`, or discard it.",
                        action.id,
                        self.root.display(),
                        outside.join(", "),
                        action.id
                    )));
                }
            }
            let pinned = ResolveRequest { id: Some(action.id.clone()), ..req.clone() };
            let result = resolve::resolve(&store, &pinned)?;
            let vanished = result.is_error && result.content == Error::UnknownId(action.id.clone()).to_string();
            if vanished && req.id.is_none() {
                // Resolved by another process between the check and now: pick again.
                continue;
            }
            return Ok(result);
        }
        resolve::resolve(&store, req)
    }
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

/// A tool result with `isError: true` and `msg`, without structured content.
fn tool_error(msg: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(msg)])
}

/// Deserializes a tool's arguments, naming the field at fault.
fn parse_args<T: for<'de> Deserialize<'de>>(tool: &str, args: Option<JsonObject>) -> std::result::Result<T, String> {
    let value = Value::Object(args.unwrap_or_default());
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let hint = match tool {
            "ast_edit" => "Expected an object like {\"ops\": [{\"pat\": \"foo($A)\", \"out\": \"bar($A)\"}], \"paths\": [\"src\"]}.",
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
fn inside(root: &Path, path: &Path) -> bool {
    walk::normalize(path).starts_with(root)
}

/// True when the file `path` lives inside `root`: its real location (symlinks
/// followed) when it exists, else its lexical path.
fn really_inside(root: &Path, path: &Path) -> bool {
    match path.canonicalize() {
        Ok(real) => real.starts_with(root),
        Err(_) => inside(root, path),
    }
}

/// Refuses a request path that leaves `root` (canonical): lexically (an absolute
/// path elsewhere, a `..` escape) or through a symlink. Runs before anything is
/// read. A path that does not exist passes here and is reported by validation.
pub fn confine(root: &Path, p: &str) -> Result<()> {
    if p.trim().is_empty() {
        return Ok(());
    }
    let given = Path::new(p);
    let joined = if given.is_absolute() { given.to_path_buf() } else { root.join(given) };
    if !inside(root, &joined) {
        return Err(Error::bad(format!(
            "path `{p}` is outside the server's root {}: give a path relative to the root (no `..` above it, no absolute path elsewhere)",
            root.display()
        )));
    }
    match joined.canonicalize() {
        Ok(real) if real.starts_with(root) => Ok(()),
        Ok(real) => Err(Error::bad(format!(
            "path `{p}` leads outside the server's root {} (through a symlink, to {}): only files inside the root can be searched",
            root.display(),
            real.display()
        ))),
        Err(_) if std::fs::symlink_metadata(&joined).is_ok() => Err(Error::bad(format!(
            "path `{p}` is a symlink whose target cannot be resolved: give a real file or directory inside the root"
        ))),
        Err(_) => Ok(()),
    }
}

/// Cuts `line` to [`MAX_LINE_CHARS`] characters with a note.
fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_string(),
        Some((at, _)) => format!("{} … [{} more characters cut]", &line[..at], line[at..].chars().count()),
    }
}

/// The preview text of an `ast_edit` result (without [`REMINDER`]), at most about
/// [`PREVIEW_CHAR_BUDGET`] characters: summary, pending id, one line per file,
/// skipped files, warnings, then the diffs while they fit.
pub fn preview_text(d: &PreviewDetails) -> String {
    let mut s = String::new();
    s.push_str(&crate::print::summary_line(d));
    s.push('\n');
    match &d.id {
        Some(id) => s.push_str(&format!(
            "Pending action id: {id}. Nothing was written: call `resolve` with action \"apply\" or \"discard\".\n"
        )),
        None => s.push_str(
            "No matches: nothing was staged and there is nothing to resolve. If you expected matches, check that the pattern is complete code of the language (C statements end with `;`), that `lang` fits the files, and that metavariables stand for whole nodes (`$A` one node, `$$$ARGS` many).\n",
        ),
    }
    if !d.files.is_empty() {
        s.push_str("\nFiles:\n");
        for f in d.files.iter().take(MAX_FILE_LINES) {
            s.push_str(&format!("  {}  {}", f.path, plural(f.replacements, "replacement")));
            if f.syntax_errors_introduced {
                s.push_str("  [adds syntax errors: apply refuses it unless extra {\"allowSyntaxErrors\": true}]");
            }
            s.push('\n');
        }
        if d.files.len() > MAX_FILE_LINES {
            s.push_str(&format!(
                "  … and {} more (all listed in structuredContent.files; `ast-edit pending --json` lists them too)\n",
                plural(d.files.len() - MAX_FILE_LINES, "file")
            ));
        }
    }
    if !d.skipped.is_empty() {
        s.push_str(&format!("\nSkipped {}:\n", plural(d.skipped.len(), "file")));
        for k in d.skipped.iter().take(MAX_NOTE_LINES) {
            s.push_str(&cut_line(&format!("  {}: {}", k.path, k.reason)));
            s.push('\n');
        }
        if d.skipped.len() > MAX_NOTE_LINES {
            s.push_str(&format!("  … and {} more (see structuredContent.skipped)\n", d.skipped.len() - MAX_NOTE_LINES));
        }
    }
    if !d.warnings.is_empty() {
        s.push_str("\nWarnings:\n");
        for w in d.warnings.iter().take(MAX_NOTE_LINES) {
            s.push_str(&cut_line(&format!("  - {w}")));
            s.push('\n');
        }
        if d.warnings.len() > MAX_NOTE_LINES {
            s.push_str(&format!("  … and {} more (see structuredContent.warnings)\n", d.warnings.len() - MAX_NOTE_LINES));
        }
    }
    if d.files.is_empty() {
        return s.trim_end().to_string();
    }
    // Diffs, whole lines, while they fit in the budget.
    let mut used = s.chars().count();
    let open = "\n```diff\n";
    let close = "```\n";
    let reserve = 400; // room for the closing fence and the cut note
    let mut body = String::new();
    let mut hidden_lines = 0usize;
    let mut hidden_files = 0usize;
    let mut partial_files = 0usize;
    used += open.len() + close.len();
    for f in &d.files {
        let mut shown_any = false;
        let mut hidden_here = 0usize;
        for raw in f.diff.split_inclusive('\n') {
            let line = cut_line(raw.trim_end_matches(['\n', '\r']));
            let n = line.chars().count() + 1;
            if hidden_lines > 0 || used + n + reserve > PREVIEW_CHAR_BUDGET {
                hidden_lines += 1;
                hidden_here += 1;
                continue;
            }
            body.push_str(&line);
            body.push('\n');
            used += n;
            shown_any = true;
        }
        if hidden_here > 0 {
            if shown_any { partial_files += 1 } else { hidden_files += 1 }
        }
    }
    if !body.is_empty() {
        s.push_str(open);
        s.push_str(&body);
        s.push_str(close);
    }
    if hidden_lines > 0 {
        let id = d.id.as_deref().unwrap_or("ID");
        let mut what = format!("{} more diff lines", hidden_lines);
        if hidden_files > 0 || partial_files > 0 {
            let mut parts = Vec::new();
            if partial_files > 0 {
                parts.push(format!("{} cut short", plural(partial_files, "file")));
            }
            if hidden_files > 0 {
                parts.push(format!("{} not shown", plural(hidden_files, "file")));
            }
            what.push_str(&format!(" ({})", parts.join(", ")));
        }
        s.push_str(&format!(
            "\n… {what} omitted to keep this preview under {PREVIEW_CHAR_BUDGET} characters. The pending action still covers every file listed above. See every diff in structuredContent.files[].diff, or run `ast-edit show {id} --full`.\n"
        ));
    }
    s.trim_end().to_string()
}

fn obj(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

/// The input schema of `ast_edit` (contract section 2).
pub fn ast_edit_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ops": {
                "type": "array",
                "minItems": 1,
                "description": "Pattern -> rewrite pairs, applied in one pass. At least one.",
                "items": {
                    "type": "object",
                    "properties": {
                        "pat": {"type": "string", "description": "ast-grep pattern: code of the language with $A (one node), $$$ARGS (zero or more nodes), $_ (one node, not captured). Example: self.assertEquals($A, $B)"},
                        "out": {"type": "string", "description": "Rewrite; may use the pattern's metavariables. Empty deletes the match. Example: self.assertEqual($A, $B)"}
                    },
                    "required": ["pat", "out"],
                    "additionalProperties": false
                }
            },
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Files or directories relative to the server's root (default [\".\"]). Must stay inside the root."
            },
            "lang": {"type": "string", "description": "Language name or alias: python/py, rust/rs, typescript/ts, tsx, javascript/js, c, cpp, go, java, ... Default: inferred per file from its extension."},
            "selector": {"type": "string", "description": "Tree-sitter node kind to match inside the pattern (as ast-grep --selector), e.g. call_expression."},
            "strictness": {
                "type": "string",
                "enum": ["cst", "smart", "ast", "relaxed", "signature"],
                "description": "Match strictness (default smart): cst every node; smart skips unnamed nodes in the code; ast named nodes only; relaxed also ignores comments; signature compares node kinds only."
            },
            "globs": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Include/exclude globs as ripgrep -g (`!` excludes), e.g. [\"*.py\", \"!tests/**\"]."
            },
            "maxFiles": {"type": "integer", "minimum": 1, "description": "Search at most this many files (in path order); reaching it is reported."}
        },
        "required": ["ops"],
        "additionalProperties": false
    })
}

/// The input schema of `resolve` (contract section 5).
pub fn resolve_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["apply", "discard"], "description": "apply writes the pending edit (verified against the preview); discard drops it."},
            "reason": {"type": "string", "minLength": 1, "description": "Why, in one sentence."},
            "extra": {
                "type": "object",
                "description": "Options for apply: {\"stale\": \"skip\"} writes the unchanged files and reports the changed ones; {\"files\": [\"path\", ...]} applies only these; {\"allowSyntaxErrors\": true} applies files whose rewrite adds syntax errors."
            },
            "id": {"type": "string", "description": "The pending action to resolve (the `id` of an ast_edit result). Default: the newest."}
        },
        "required": ["action", "reason"],
        "additionalProperties": false
    })
}

/// The output schema of `ast_edit`: the preview details (contract section 3).
pub fn ast_edit_output_schema() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    json!({
        "type": "object",
        "properties": {
            "id": {"type": ["string", "null"], "description": "The pending action's id; null when nothing was staged."},
            "label": {"type": "string"},
            "sourceToolName": {"type": "string"},
            "status": {"type": "string", "enum": ["pending", "no_changes"]},
            "applied": {"type": "boolean"},
            "totalReplacements": count,
            "filesTouched": count,
            "filesSearched": count,
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "replacements": count,
                        "diff": {"type": "string", "description": "Unified diff (a/ and b/ prefixes)."},
                        "syntaxErrorsIntroduced": {"type": "boolean"}
                    },
                    "required": ["path", "replacements", "diff", "syntaxErrorsIntroduced"]
                }
            },
            "overlaps": count,
            "skipped": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "reason": {"type": "string"}},
                    "required": ["path", "reason"]
                }
            },
            "warnings": {"type": "array", "items": {"type": "string"}},
            "limitReached": {"type": "boolean"}
        },
        "required": ["id", "label", "sourceToolName", "status", "applied", "totalReplacements", "filesTouched",
                     "filesSearched", "files", "overlaps", "skipped", "warnings", "limitReached"]
    })
}

/// The output schema of `resolve`: the details of contract section 5.
pub fn resolve_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["apply", "discard"]},
            "reason": {"type": "string"},
            "extra": {"type": "object"},
            "sourceToolName": {"type": "string", "description": "Who staged the action: ast_edit, or custom_tool / a name for actions staged with `ast-edit propose`."},
            "label": {"type": "string"},
            "sourceResultDetails": {"description": "What the action's apply/discard returned. For ast_edit: {status, applied, totalReplacements, filesTouched, files: [{path, replacements, status, diff}], outstanding}."}
        },
        "required": ["action", "reason"]
    })
}

/// The two tools, in a fixed order.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new("ast_edit", AST_EDIT_DESCRIPTION, obj(ast_edit_input_schema()))
            .with_title("Structural edit (preview)")
            .with_raw_output_schema(obj(ast_edit_output_schema()))
            .with_annotations(
                ToolAnnotations::with_title("Structural edit (preview)")
                    .read_only(true)
                    .destructive(false)
                    .idempotent(false)
                    .open_world(false),
            ),
        Tool::new("resolve", RESOLVE_DESCRIPTION, obj(resolve_input_schema()))
            .with_title("Apply or discard a pending edit")
            .with_raw_output_schema(obj(resolve_output_schema()))
            .with_annotations(
                ToolAnnotations::with_title("Apply or discard a pending edit")
                    .read_only(false)
                    .destructive(true)
                    .idempotent(false)
                    .open_world(false),
            ),
    ]
}

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

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        let result = match request.name.as_ref() {
            "ast_edit" => self.ast_edit(request.arguments, context).await,
            "resolve" => self.resolve(request.arguments, context).await,
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{other}`: this server has `ast_edit` and `resolve`"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::PreviewFile;

    fn details(files: Vec<PreviewFile>, id: Option<&str>) -> PreviewDetails {
        let total = files.iter().map(|f| f.replacements).sum();
        PreviewDetails {
            id: id.map(String::from),
            label: crate::preview::label(total, files.len()),
            source_tool_name: "ast_edit".into(),
            status: if id.is_some() { "pending" } else { "no_changes" }.into(),
            applied: false,
            total_replacements: total,
            files_touched: files.len(),
            files_searched: files.len(),
            files,
            overlaps: 0,
            skipped: Vec::new(),
            warnings: Vec::new(),
            limit_reached: false,
        }
    }

    fn file(i: usize, lines: usize) -> PreviewFile {
        let mut diff = format!("--- a/f{i}.py\n+++ b/f{i}.py\n@@ -1,{lines} +1,{lines} @@\n");
        for k in 0..lines {
            diff.push_str(&format!("-old_call_number_{k}(argument)\n+new_call_number_{k}(argument)\n"));
        }
        PreviewFile { path: format!("f{i}.py"), replacements: lines, diff, syntax_errors_introduced: false }
    }

    #[test]
    fn small_preview_shows_every_diff_line() {
        let d = details(vec![file(1, 2)], Some("ae-123456"));
        let t = preview_text(&d);
        assert!(t.starts_with("AST Edit: 2 replacements in 1 file (searched 1 file)\nPending action id: ae-123456."), "{t}");
        assert!(t.contains("  f1.py  2 replacements\n"));
        assert!(t.contains(&d.files[0].diff));
        assert!(!t.contains("omitted"));
    }

    #[test]
    fn big_preview_is_cut_under_the_budget_with_every_file_line() {
        let files: Vec<_> = (0..50).map(|i| file(i, 40)).collect();
        let d = details(files, Some("ae-abcdef"));
        let t = preview_text(&d);
        assert!(t.chars().count() <= PREVIEW_CHAR_BUDGET, "{}", t.chars().count());
        for i in 0..50 {
            assert!(t.contains(&format!("  f{i}.py  40 replacements\n")), "file line {i} missing");
        }
        assert!(t.contains("`ast-edit show ae-abcdef --full`"), "{t}");
        assert!(t.contains("structuredContent.files[].diff"));
        // Whole lines only: every shown diff line is a line of some diff.
        let body = t.split("```diff\n").nth(1).unwrap().split("```").next().unwrap();
        for line in body.lines() {
            assert!(d.files.iter().any(|f| f.diff.lines().any(|l| l == line)), "{line}");
        }
    }

    #[test]
    fn no_changes_says_nothing_is_staged() {
        let t = preview_text(&details(Vec::new(), None));
        assert!(t.contains("No matches: nothing was staged"), "{t}");
        assert!(!t.contains("```"));
    }

    #[test]
    fn confine_refuses_escapes_and_outside_symlinks() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(outer.path().join("secret.py"), "x = 1\n").unwrap();
        let root = root.canonicalize().unwrap();
        assert!(confine(&root, "sub").is_ok());
        assert!(confine(&root, ".").is_ok());
        assert!(confine(&root, "sub/../sub").is_ok());
        assert!(confine(&root, "missing/file.py").is_ok(), "left to validation");
        assert!(confine(&root, root.join("sub").to_str().unwrap()).is_ok());
        for bad in ["..", "../secret.py", "sub/../../secret.py", "/etc"] {
            let e = confine(&root, bad).unwrap_err().to_string();
            assert!(e.contains("outside the server's root"), "{bad}: {e}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("secret.py"), root.join("link.py")).unwrap();
            std::os::unix::fs::symlink(outer.path(), root.join("up")).unwrap();
            std::os::unix::fs::symlink(outer.path().join("nothing"), root.join("dangling")).unwrap();
            std::os::unix::fs::symlink(root.join("sub"), root.join("inner")).unwrap();
            for bad in ["link.py", "up", "up/secret.py"] {
                let e = confine(&root, bad).unwrap_err().to_string();
                assert!(e.contains("through a symlink"), "{bad}: {e}");
            }
            assert!(confine(&root, "dangling").unwrap_err().to_string().contains("cannot be resolved"));
            assert!(confine(&root, "inner").is_ok());
        }
    }

    #[test]
    fn schemas_are_plain_object_roots() {
        for t in tools() {
            let s = Value::Object((*t.input_schema).clone());
            assert_eq!(s["type"], "object");
            assert!(s.get("$ref").is_none() && s.get("$defs").is_none());
            assert!(s["required"].is_array());
            let o = Value::Object((*t.output_schema.unwrap()).clone());
            assert_eq!(o["type"], "object");
        }
    }
}
