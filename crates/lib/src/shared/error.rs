//! Typed errors of the library, and the exit code each maps to.
//!
//! Every message names the thing that is wrong and says what to do about it. The
//! binary prints them with `anyhow` at the edge; the MCP layer turns them into tool
//! results with `isError: true`. Exit codes follow docs/DESIGN.md section 5.10: 1 for "nothing to
//! resolve" and failed applies (the action is kept), 2 for bad input (nothing done).

use std::path::PathBuf;

/// The exact text when `resolve` finds nothing to act on (docs/DESIGN.md section 5.3).
pub const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

/// Errors of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request (flags, JSON, pattern, rewrite) is invalid; nothing was done.
    #[error("{0}")]
    BadInput(String),
    /// `resolve` found no pending action and no standing handler.
    #[error("{}", NOTHING_PENDING)]
    NothingPending,
    /// `resolve --id` named an action that is not pending.
    #[error(
        "No pending action with id `{0}`. Run `ast-edit pending` to list the pending actions."
    )]
    UnknownId(String),
    /// `resolve --id` or `show ID` named an action that is no longer pending
    /// because it was resolved: what became of it, and when (docs/DESIGN.md
    /// section 5.3).
    #[error("{}", resolved_text(id, *resolution, at, crate::shared::message::Front::Cli))]
    Resolved {
        /// The action's id.
        id: String,
        /// What became of it.
        resolution: crate::shared::status::Resolution,
        /// When (RFC 3339, UTC).
        at: String,
    },
    /// Applying an action failed; the action stays pending.
    #[error("Apply failed: {0}")]
    ApplyFailed(String),
    /// The pending-action store could not be read or written.
    #[error("pending-action store at {path}: {message}")]
    Store {
        /// The file or folder involved.
        path: PathBuf,
        /// What went wrong and how to fix it.
        message: String,
    },
    /// The caller cancelled the run before it finished; nothing was staged.
    #[error("Cancelled: the run was stopped before it finished; nothing was staged")]
    Cancelled,
    /// An I/O error outside any single file of the run.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Shorthand for a bad-input error.
    pub fn bad(msg: impl Into<String>) -> Self {
        Error::BadInput(msg.into())
    }

    /// Shorthand for an I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }

    /// The process exit code for this error (docs/DESIGN.md section 5.10).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::BadInput(_) => 2,
            Error::NothingPending | Error::UnknownId(_) | Error::Resolved { .. } | Error::ApplyFailed(_) => 1,
            Error::Store { .. } | Error::Io { .. } | Error::Cancelled => 1,
        }
    }
}

/// The text of [`Error::Resolved`]: ``Action `<id>` was already applied at <at>;
/// nothing to do.`` and likewise for the other resolutions, worded for `front`
/// where it names a command (docs/DESIGN.md §5.3, §5.14).
pub fn resolved_text(id: &str, resolution: crate::shared::status::Resolution, at: &str, front: crate::shared::message::Front) -> String {
    use crate::shared::message::{Front, Name};
    use crate::shared::status::Resolution;
    let what = match (resolution, front) {
        (Resolution::Applied, _) => "was already applied".to_string(),
        (Resolution::Discarded, _) => "was already discarded".to_string(),
        (Resolution::Undone, _) => "was applied, then undone".to_string(),
        (Resolution::Cleared, Front::Cli) => "was dropped by `ast-edit pending --clear`".to_string(),
        (Resolution::Cleared, Front::Mcp) => "was dropped unresolved when the pending actions were cleared".to_string(),
        (Resolution::Expired, Front::Cli) => {
            format!("was dropped unresolved by the store's retention ({} says what is kept)", front.name(Name::PendingList))
        }
        (Resolution::Expired, Front::Mcp) => {
            format!("was dropped unresolved by the store's retention ({} lists what is pending)", front.name(Name::PendingList))
        }
    };
    format!("Action `{id}` {what} at {at}; nothing to do.")
}

/// Result alias for the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The message of `e` with every cause under it, as `a: b: c` (a cause that
/// repeats its parent's text is left out). ast-grep-config's errors say "Fail
/// to parse yaml as Rule." at the top and the real reason below.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut at = e.source();
    while let Some(s) = at {
        let text = s.to_string();
        // serde-saphyr repeats its message below the snippet, with " at line N, column M".
        let core = text.split(" at line ").next().unwrap_or(&text).trim();
        if !parts.iter().any(|p| p.contains(core)) {
            parts.push(text);
        }
        at = s.source();
    }
    parts.join(": ")
}

