//! The pending-action store: previews staged on disk so that a later process (a
//! later CLI call, or the MCP server on the same tree) can resolve them.
//!
//! Layout of the state dir (`$AST_EDIT_STATE_DIR`, else a per-workspace folder under
//! `$XDG_STATE_HOME/ast-edit/` or `~/.local/state/ast-edit/`, see
//! [`crate::workspace::state_dir`]):
//!
//! ```text
//! lock                 exclusive lock held by every reader-writer of the store
//! seq                  last sequence number handed out
//! pending/<id>.json    one staged action each, written atomically (temp + rename)
//! journal/             undo records of applied actions (see crate::apply)
//! ```
//!
//! Every change happens under the lock, so two resolves of one action apply it once.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{write_atomic, write_atomic_with};
use crate::error::{Error, Result};
use crate::plan::Plan;

/// What a pending action does when applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ActionKind {
    /// A structural edit previewed by `ast_edit`.
    AstEdit {
        /// The plan to apply.
        plan: Plan,
    },
    /// A command-backed custom action staged by `ast-edit propose`.
    Command {
        /// Run with `sh -c` on apply.
        apply_cmd: String,
        /// Run with `sh -c` on discard, if any.
        reject_cmd: Option<String>,
        /// Where the commands run (the working directory of `propose`).
        cwd: PathBuf,
        /// Free-form details given at `propose`.
        details: Option<serde_json::Value>,
    },
}

/// A staged action, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingAction {
    /// Handle used by `resolve --id`.
    pub id: String,
    /// Order of staging (higher = newer).
    pub seq: u64,
    /// When it was staged (RFC 3339, UTC).
    pub created_at: String,
    /// Human label.
    pub label: String,
    /// The tool that staged it.
    pub source_tool_name: String,
    /// Paths it would touch.
    pub files: Vec<String>,
    /// What it does.
    pub kind: ActionKind,
}

/// What a producer stages; the store adds the id, the order and the time.
#[derive(Clone, Debug)]
pub struct NewAction {
    /// Human label.
    pub label: String,
    /// The tool that staged it.
    pub source_tool_name: String,
    /// Paths it would touch.
    pub files: Vec<String>,
    /// What it does.
    pub kind: ActionKind,
}

/// One row of `ast-edit pending --json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingSummary {
    /// Id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Source tool.
    pub source_tool_name: String,
    /// When staged.
    pub created_at: String,
    /// Paths it would touch.
    pub files: Vec<String>,
}

impl PendingAction {
    /// The summary row.
    pub fn summary(&self) -> PendingSummary {
        PendingSummary {
            id: self.id.clone(),
            label: self.label.clone(),
            source_tool_name: self.source_tool_name.clone(),
            created_at: self.created_at.clone(),
            files: self.files.clone(),
        }
    }
}

/// The store.
pub struct Store {
    dir: PathBuf,
}

/// Holds the store's exclusive lock until dropped.
pub struct Locked<'a> {
    store: &'a Store,
    _file: File,
}

impl Store {
    /// Opens (creating if needed) the store in `dir`.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        for d in [dir.clone(), dir.join("pending"), dir.join("journal")] {
            std::fs::create_dir_all(&d).map_err(|e| Error::Store {
                path: d.clone(),
                message: format!("cannot create it ({e}); set AST_EDIT_STATE_DIR to a writable folder"),
            })?;
        }
        Ok(Store { dir })
    }

    /// The state dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes the store's exclusive lock (blocking).
    pub fn lock(&self) -> Result<Locked<'_>> {
        let path = self.dir.join("lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| self.err(&path, e))?;
        file.lock().map_err(|e| self.err(&path, e))?;
        Ok(Locked { store: self, _file: file })
    }

    fn err(&self, path: &Path, e: std::io::Error) -> Error {
        Error::Store { path: path.to_path_buf(), message: e.to_string() }
    }
}

fn new_id(seq: u64) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let h = crate::engine::digest(format!("{t}-{}-{seq}", std::process::id()).as_bytes());
    format!("ae-{}", &h[7..13])
}

impl Locked<'_> {
    fn pending_path(&self, id: &str) -> PathBuf {
        self.store.dir.join("pending").join(format!("{id}.json"))
    }

    /// Hands out the next sequence number.
    pub fn next_seq(&self) -> Result<u64> {
        let path = self.store.dir.join("seq");
        let cur = match std::fs::read_to_string(&path) {
            Ok(s) => s.trim().parse::<u64>().unwrap_or(0),
            Err(_) => 0,
        };
        let next = cur + 1;
        write_atomic(&path, next.to_string().as_bytes()).map_err(|e| self.store.err(&path, e))?;
        Ok(next)
    }

    /// Stages `new` under a fresh id, as the newest action; returns it as stored.
    pub fn push(&self, new: NewAction) -> Result<PendingAction> {
        let seq = self.next_seq()?;
        let mut id = new_id(seq);
        let mut n = 0;
        while self.pending_path(&id).exists() {
            n += 1;
            id = new_id(seq + n * 1_000_003);
        }
        let created_at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let NewAction { label, source_tool_name, files, kind } = new;
        let action = PendingAction { id, seq, created_at, label, source_tool_name, files, kind };
        self.save(&action)?;
        Ok(action)
    }

    /// Writes (or rewrites) an action.
    pub fn save(&self, action: &PendingAction) -> Result<()> {
        let path = self.pending_path(&action.id);
        write_atomic_with(&path, |w| serde_json::to_writer(w, action).map_err(std::io::Error::from))
            .map_err(|e| self.store.err(&path, e))
    }

    /// Every pending action, newest first. Unreadable entries are reported as errors.
    pub fn list(&self) -> Result<Vec<PendingAction>> {
        let dir = self.store.dir.join("pending");
        let rd = std::fs::read_dir(&dir).map_err(|e| self.store.err(&dir, e))?;
        let mut v = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| self.store.err(&dir, e))?;
            let p = entry.path();
            if p.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let bytes = std::fs::read(&p).map_err(|e| self.store.err(&p, e))?;
            let a: PendingAction = serde_json::from_slice(&bytes).map_err(|e| Error::Store {
                path: p.clone(),
                message: format!("unreadable pending action ({e}); delete the file to drop it"),
            })?;
            v.push(a);
        }
        v.sort_by_key(|a| std::cmp::Reverse(a.seq));
        Ok(v)
    }

    /// The action `id`, or the newest one when `id` is `None`.
    pub fn get(&self, id: Option<&str>) -> Result<Option<PendingAction>> {
        let all = self.list()?;
        Ok(match id {
            Some(id) => all.into_iter().find(|a| a.id == id),
            None => all.into_iter().next(),
        })
    }

    /// Drops the action `id`.
    pub fn remove(&self, id: &str) -> Result<()> {
        let p = self.pending_path(id);
        std::fs::remove_file(&p).map_err(|e| self.store.err(&p, e))
    }

    /// The journal folder.
    pub fn journal_dir(&self) -> PathBuf {
        self.store.dir.join("journal")
    }
}
