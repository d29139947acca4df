//! Typed errors of the library, and the exit code each maps to.
//!
//! Every message names the thing that is wrong and says what to do about it. The
//! binary prints them with `anyhow` at the edge; the MCP layer turns them into tool
//! results with `isError: true`. Exit codes follow docs/DESIGN.md section 5.10: 1 for "nothing to
//! resolve" and failed applies (the action is kept), 2 for bad input (nothing done).
//! An ast-grep project that cannot be used is bad input too, with a
//! [`ProjectFault`] that says which kind, so that a front end which follows
//! ast-grep's own exit codes can tell them apart (docs/RULES.md, "Exit codes").

use std::path::PathBuf;

use crate::shared::message::{Say, Text};

/// The exact text when `resolve` finds nothing to act on (docs/DESIGN.md section 5.3).
pub const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

/// Errors of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request (flags, JSON, pattern, rewrite) is invalid; nothing was done.
    #[error("{0}")]
    BadInput(Text),
    /// An ast-grep project (its config file, rules, utilities or tests) could
    /// not be found, read or understood; nothing was done.
    #[error("{message}")]
    Project {
        /// Which kind of fault.
        fault: ProjectFault,
        /// What is wrong and how to fix it.
        message: Text,
    },
    /// `resolve` found no pending action and no standing handler.
    #[error("{}", NOTHING_PENDING)]
    NothingPending,
    /// `resolve --id` named an action that is not pending.
    #[error("{}", unknown_id(.0))]
    UnknownId(String),
    /// `resolve --id` or `show ID` named an action that is no longer pending
    /// because it was resolved: what became of it, and when (docs/DESIGN.md
    /// section 5.3).
    #[error("{}", resolved_text(id, *resolution, at, by.as_deref()))]
    Resolved {
        /// The action's id.
        id: String,
        /// What became of it.
        resolution: crate::shared::status::Resolution,
        /// When (RFC 3339, UTC).
        at: String,
        /// The action that superseded it, if one did.
        by: Option<String>,
    },
    /// Applying an action failed; the action stays pending.
    #[error("Apply failed: {0}")]
    ApplyFailed(Text),
    /// Apply refused flagged files (nothing written); the action stays pending.
    #[error("Apply failed: {}", .0.text())]
    ApplyRefused(Box<Refusal>),
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
    pub fn bad(msg: impl Into<Text>) -> Self {
        Error::BadInput(msg.into())
    }

    /// Shorthand for a project fault.
    pub fn project(fault: ProjectFault, msg: impl Into<Text>) -> Self {
        Error::Project { fault, message: msg.into() }
    }

    /// The kind of project fault, for a [`Error::Project`].
    pub fn project_fault(&self) -> Option<ProjectFault> {
        match self {
            Error::Project { fault, .. } => Some(*fault),
            _ => None,
        }
    }

    /// Shorthand for a failed apply.
    pub(crate) fn apply_failed(msg: impl Into<Text>) -> Self {
        Error::ApplyFailed(msg.into())
    }

    /// The message, for a front end to word ([`Text::render`]); its `Display`
    /// is this text in the library's own words.
    pub fn text(&self) -> Text {
        match self {
            Error::BadInput(t) | Error::Project { message: t, .. } => t.clone(),
            Error::ApplyFailed(t) => t.clone().after("Apply failed: "),
            Error::ApplyRefused(r) => r.text().after("Apply failed: "),
            Error::UnknownId(id) => unknown_id(id),
            Error::Resolved { id, resolution, at, by } => resolved_text(id, *resolution, at, by.as_deref()),
            other => Text::from(other.to_string()),
        }
    }

    /// A bad input's message with `prefix` before it (`rule \`x\`: `); any
    /// other error as it is.
    pub(crate) fn prefixed(self, prefix: impl AsRef<str>) -> Self {
        match self {
            Error::BadInput(t) => Error::BadInput(t.after(prefix)),
            Error::Project { fault, message } => Error::Project { fault, message: message.after(prefix) },
            other => other,
        }
    }

    /// Shorthand for an I/O error with context.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }

    /// The process exit code for this error (docs/DESIGN.md section 5.10).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::BadInput(_) | Error::Project { .. } => 2,
            Error::NothingPending | Error::UnknownId(_) | Error::Resolved { .. } | Error::ApplyFailed(_) | Error::ApplyRefused(_) => 1,
            Error::Store { .. } | Error::Io { .. } | Error::Cancelled => 1,
        }
    }
}

/// Why an apply refused files, with the `extra` that applies the rest and (for
/// flagged rewrites) the one that writes them too: the refusal leads on
/// (docs/DESIGN.md §4.3). Its causes: rewrites that are flagged (syntax errors
/// added, code moved, a template not said), or files that changed since the
/// preview or cannot be written safely.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    /// Files the apply selected.
    pub selected: usize,
    /// The refused ones, in path order (for [`RefusalCause::Unwritten`], the
    /// stale ones first).
    pub files: Vec<RefusedFile>,
    /// The `extra` that applies the other selected files (the request's own
    /// keys and `skipFlagged`, or `stale: "skip"`); absent when every selected
    /// file is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply_rest: Option<serde_json::Value>,
    /// The `extra` that writes the refused files too (the request's own keys
    /// and the `allow...` keys their flags need); absent where no option can
    /// (a file changed since the preview).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_all: Option<serde_json::Value>,
    /// What the refusal is about, which its text says.
    #[serde(skip)]
    pub cause: RefusalCause,
}

/// What an apply refused files for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RefusalCause {
    /// Their rewrite is flagged and not allowed.
    #[default]
    Flagged,
    /// They changed since the preview (the first `stale` of the files), or
    /// cannot be written safely (the rest).
    Unwritten {
        /// How many of the files are stale.
        stale: usize,
    },
}

/// The reasons of a file that changed, or vanished, since the preview: such a
/// file is named bare in a refusal's one-line list.
pub const CHANGED_SINCE_PREVIEW: &str = "changed since the preview";
/// See [`CHANGED_SINCE_PREVIEW`].
pub const DELETED_SINCE_PREVIEW: &str = "deleted since the preview";

/// The longest a refusal's list of files runs on one line (the contract's
/// `N files changed since the preview: a, b`): a longer list goes one file a
/// line, which no front end cuts (the MCP server cuts a line at 400 characters).
pub const MAX_REFUSAL_LINE_CHARS: usize = 320;

/// A file an apply refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefusedFile {
    /// Display path.
    pub path: String,
    /// What its rewrite does (`the rewrite introduces syntax errors`, with the
    /// first listed place for the other flags).
    pub reason: String,
}

/// Refused files listed whole in a refusal's text; the rest are counted (the
/// result's `refused.files` holds them all).
pub const MAX_REFUSED_LISTED: usize = 20;

impl Refusal {
    /// Sets the request's own `extra` keys under both ways on (an `extra` that is
    /// not an object adds nothing).
    pub fn with_extra(mut self, extra: Option<&serde_json::Value>) -> Self {
        let Some(serde_json::Value::Object(given)) = extra else { return self };
        let merge = |v: &mut serde_json::Value| {
            if let serde_json::Value::Object(m) = v {
                for (k, x) in given {
                    m.entry(k.clone()).or_insert_with(|| x.clone());
                }
            }
        };
        for way in [&mut self.apply_rest, &mut self.apply_all].into_iter().flatten() {
            merge(way);
        }
        self
    }

    /// The message: what was refused and why, one line per file (at most
    /// [`MAX_REFUSED_LISTED`]), then the ways on, in the front end's words.
    pub fn text(&self) -> Text {
        if let RefusalCause::Unwritten { stale } = self.cause {
            return self.unwritten_text(stale);
        }
        let k = self.files.len();
        let which = match (k, self.selected) {
            (1, 1) => "the only file selected".to_string(),
            (k, n) if k == n => format!("all {n} files selected"),
            (k, n) => format!("{k} of the {n} files selected"),
        };
        let mut t = Text::from(format!("nothing was written: apply refuses {which}, whose rewrite is flagged:"));
        t = t.lit(listed(&self.files, MAX_REFUSED_LISTED, |f| format!("{}: {}", f.path, f.reason)));
        t = t.lit("\n");
        if let Some(rest) = &self.apply_rest {
            let other = crate::shared::text::plural(self.selected - k, "file");
            t = t.lit(format!("To write the other {other} and leave these as they are, ")).say(Say::ApplyRest(rest.to_string())).lit(". ");
        }
        if let Some(all) = &self.apply_all {
            t = t.lit("To write these too, ").say(Say::ApplyAll(all.to_string())).lit(". ");
        }
        t.lit("Or fix the pattern or the rewrite and preview again.")
    }

    /// The text of files left unwritten (docs/DESIGN.md §5.3): `<N file(s)>
    /// changed since the preview: <paths>[; <K file(s)> cannot be written
    /// safely: <path> (<reason>), ...]. Nothing was written; <the way on>` on
    /// one line while the list is short; else each list one file a line (at most
    /// [`MAX_REFUSED_LISTED`] in all, then a count), the way on whole on the last line.
    fn unwritten_text(&self, stale: usize) -> Text {
        let (changed, unsafe_) = self.files.split_at(stale.min(self.files.len()));
        let inline = |f: &RefusedFile| {
            if f.reason == CHANGED_SINCE_PREVIEW || f.reason == DELETED_SINCE_PREVIEW { f.path.clone() } else { format!("{} ({})", f.path, f.reason) }
        };
        let plural = crate::shared::text::plural;
        let groups = [(changed, "changed since the preview"), (unsafe_, "cannot be written safely")];
        let todo = match (changed.is_empty(), unsafe_.is_empty()) {
            (_, true) => "discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the unchanged files",
            (true, false) => "pass extra {\"stale\":\"skip\"} to apply the other files and leave these out",
            (false, false) => "discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the other files",
        };
        let parts: Vec<String> = groups
            .iter()
            .filter(|(files, _)| !files.is_empty())
            .map(|(files, what)| format!("{} {what}: {}", plural(files.len(), "file"), files.iter().map(inline).collect::<Vec<_>>().join(", ")))
            .collect();
        let one_line = parts.join("; ");
        if self.files.len() <= MAX_REFUSED_LISTED && one_line.chars().count() <= MAX_REFUSAL_LINE_CHARS {
            return Text::from(format!("{one_line}. Nothing was written; {todo}"));
        }
        let mut t = String::new();
        let mut room = MAX_REFUSED_LISTED;
        for (files, what) in groups.iter().filter(|(files, _)| !files.is_empty()) {
            if !t.is_empty() {
                t.push('\n');
            }
            t.push_str(&format!("{} {what}:", plural(files.len(), "file")));
            let shown = room.max(1).min(files.len());
            t.push_str(&listed(files, shown, inline));
            room = room.saturating_sub(shown);
        }
        Text::from(format!("{t}\nNothing was written; {todo}"))
    }
}

/// `files`, one a line as `  <line>`, the first `shown`, then how many more
/// (the result's `refused` lists them all).
fn listed(files: &[RefusedFile], shown: usize, line: impl Fn(&RefusedFile) -> String) -> String {
    let mut t = String::new();
    for f in files.iter().take(shown) {
        t.push_str(&format!("\n  {}", line(f)));
    }
    if files.len() > shown {
        t.push_str(&format!("\n  … and {} more (the result's `refused` lists them all)", files.len() - shown));
    }
    t
}

/// What is wrong with an ast-grep project, by kind: the classes that ast-grep
/// 0.51.1 gives distinct exit codes (docs/RULES.md, "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjectFault {
    /// No config file: none in the folder or any parent folder.
    NotFound,
    /// A rule filter matched no rule id.
    NoRuleMatches,
    /// A config, rule, utility or test file, or a folder of them, could not
    /// be read (missing, not UTF-8, no permission) or walked.
    Unreadable,
    /// A config, rule, utility or test file does not parse or does not
    /// build, or two rules or utilities share an id.
    Invalid,
    /// The config file's `languageGlobs` names a language that is not built in.
    UnknownLanguage,
    /// A fault ast-grep gives no class of its own (its exit code 1): a
    /// `languageInjections` entry whose `hostLanguage` is not built in.
    Unclassified,
}

/// The text of [`Error::Resolved`]: ``Action `<id>` was already applied at <at>;
/// nothing to do.`` and likewise for the other resolutions (docs/DESIGN.md §5.3,
/// §5.14); a superseded action names `by`, the action that replaced it.
pub fn resolved_text(id: &str, resolution: crate::shared::status::Resolution, at: &str, by: Option<&str>) -> Text {
    use crate::shared::status::Resolution;
    let what = match resolution {
        Resolution::Applied => Text::from("was already applied"),
        Resolution::Discarded => Text::from("was already discarded"),
        Resolution::Undone => Text::from("was applied, then undone"),
        Resolution::Cleared => Text::default().say(Say::Cleared),
        Resolution::Expired => Text::from("was dropped unresolved by the store's retention ").say(Say::Expired),
        Resolution::Superseded => {
            let by = by.unwrap_or("a later preview");
            return Text::from(format!(
                "Action `{id}` was superseded by {by} at {at}: a later preview of the same ops and paths by the same session replaced it. Resolve {by} instead."
            ));
        }
    };
    Text::from(format!("Action `{id}` ")).then(what).lit(format!(" at {at}; nothing to do."))
}

/// The text when `id` names no pending action (docs/DESIGN.md §5.3).
pub(crate) fn unknown_id(id: &str) -> Text {
    Text::from(format!("No pending action with id `{id}`. ")).say(Say::ListPending)
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
    // The YAML reader's advice names its own API; a user gives each key once.
    parts.join(": ").replace(", set DuplicateKeyPolicy in Options if acceptable", " (give each key once)")
}
