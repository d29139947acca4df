//! `ast-edit mcp`: the Model Context Protocol server (stdio), built on the Rust SDK
//! `rmcp`. Six tools, always listed (`tools`; input schemas from `schema`): `ast_edit`
//! (preview and stage), `resolve`, `ast_pending`, `ast_undo`, `ast_tree` and
//! `ast_search`, each one library call through [`ast_edit::app`], its result bounded
//! (`PREVIEW_CHAR_BUDGET`, `paging`) and every failure an `isError` result. The process
//! is one session of the CLI's store, confined to one root; only JSON-RPC goes to stdout.
//! `server` holds the handlers, `transport`, `flow` and `in_flight` the stdio loop.
//! The tools, errors, confinement, progress, cancellation and shutdown: docs/MCP.md;
//! why: docs/DESIGN.md §2.10, §4.10 and §5.4 (the [`REMINDER`] block).

mod schema;

#[cfg(test)]
mod fixtures;
mod paging;
mod preview_text;
mod search_tool;
mod server;
mod tools;
mod flow;
mod in_flight;
mod transport;
mod tree_tool;
mod words;

use std::path::Path;
use std::time::Duration;

use rmcp::ServiceExt;

use ast_edit::app::error::Error;

use ast_edit::app::text::{PREVIEW_CHAR_BUDGET, STRUCTURED_CHAR_BUDGET};
pub use paging::{MAX_PAGE_FILES, PAGE_FILES};
pub use preview_text::preview_text;
pub use server::AstEditServer;
pub use transport::RESOLVE_START_GRACE;

/// The block that ends an `ast_edit` result text when something is pending
/// (docs/DESIGN.md section 5), byte for byte.
pub const REMINDER: &str = "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>";

/// Changed files listed one per line in a preview text; more are counted per
/// folder. Also the per-file lines of a `resolve` or `ast_undo` text (each run of
/// them) before the rest are counted.
pub const MAX_FILE_LINES: usize = 50;

/// Folder lines of a preview text whose files are counted per folder.
pub const MAX_FOLDER_LINES: usize = 20;

/// Stack of the server's worker threads: tokio's blocking threads (which plan,
/// stage and resolve) and rayon's (which match files). Compiling a pattern, and
/// matching it, recurse as deep as the pattern nests, and a stack overflow ends the
/// whole process, not one request. Measured on a debug build: 2 MiB (the default)
/// compiled a Python pattern nested about 830 parentheses deep, 64 MiB about
/// 27,000 (a release build, about 60,000); four files nested 2,000 deep matched by
/// a pattern as deep overflowed rayon's default 2 MiB threads, and 20,000 deep
/// passes with 64 MiB. Only the pages a thread touches become memory; the rest is
/// address space. The request limits (docs/DESIGN.md section 7) refuse deep
/// patterns before this matters; this is the second net. One file's matching
/// stops at 4 MiB of it (the library's per-file stack limit).
pub const THREAD_STACK_BYTES: usize = ast_edit::app::request::WORKER_STACK_BYTES;

/// How long calls that may be abandoned (an `ast_edit`'s planning, `ast_search`)
/// have to answer after stdin closed before they are stopped
/// (`in_flight::InFlight::closing`; they stop at their next poll of the budget);
/// also how long the runtime's shutdown waits for their threads. A `resolve` is
/// never left behind: it is waited for however long it takes.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Runs the server on stdin/stdout, confined to `root`, until the client closes
/// stdin or stdout (`ast-edit mcp [--root DIR] [--no-cache]`; the CLI passes the
/// working directory when `--root` is absent), with the scan cache when `cache`.
/// A `resolve` call read before that runs to its end before this returns.
pub fn serve(root: &Path, cache: bool) -> anyhow::Result<()> {
    let root = root.canonicalize().map_err(|e| Error::bad(format!("--root {}: {e}", root.display())))?;
    if !root.is_dir() {
        return Err(Error::bad(format!("--root {}: not a directory", root.display())).into());
    }
    // The root is the working directory of everything the server runs (the
    // standing handler of `resolve`, if configured, runs there too).
    std::env::set_current_dir(&root).map_err(|e| Error::io(format!("cannot enter {}", root.display()), e))?;
    let server = AstEditServer::new(root, cache)?;
    eprintln!(
        "ast-edit mcp {}: serving {} (pending actions in {}; this session is {})",
        env!("CARGO_PKG_VERSION"),
        server.root().display(),
        server.state_dir().display(),
        server.owner()
    );
    // rayon's pool is built once per process; this process is the server's alone. A
    // panic in a detached rayon job (freeing a tree) is logged, not an abort.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(THREAD_STACK_BYTES)
        .panic_handler(|p| eprintln!("ast-edit mcp: internal error in a worker thread: {}", panic_text(&*p)))
        .build_global();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_stack_size(THREAD_STACK_BYTES)
        .build()
        .map_err(|e| Error::io("cannot start the async runtime", e))?;
    let in_flight = server.in_flight();
    let outcome = rt.block_on(async move {
        let transport = transport::LineTransport::new(tokio::io::stdin(), stdout_writer()?, in_flight.clone());
        let running = server.serve(transport).await;
        let outcome = match running {
            Ok(running) => running.waiting().await.map(drop).map_err(anyhow::Error::from),
            Err(e) => Err(e.into()),
        };
        // The transport already waited before it reported the end of the input;
        // this covers a session that ended any other way.
        in_flight.finish("the session ended", tokio::time::Instant::now() + RESOLVE_START_GRACE).await;
        outcome
    });
    // A planning thread abandoned by a cancelled request may still run; do not wait long.
    rt.shutdown_timeout(SHUTDOWN_GRACE);
    outcome
}

/// The message of a panic payload.
fn panic_text(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<&str>().copied().or_else(|| p.downcast_ref::<String>().map(String::as_str)).unwrap_or("a panic")
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
