//! The pending-action store: previews staged on disk so that a later process
//! (a later CLI call, or the MCP server on the same tree) can resolve them.
//! Every change happens under the store's lock; each process opens it as one
//! session (`store/session.rs`). The layout, the locking, the order rule, the
//! format of entries and resolved records (version 4: `pending_format`, the
//! store's own plan types in `stored_plan.rs`), bad entries and retention are
//! docs/DESIGN.md sections 3.2 to 3.7.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::plan::Plan;
use crate::shared::atomic::{write_atomic, write_atomic_with};
use crate::shared::error::{Error, Result};
use crate::shared::named::FileKind;
use crate::shared::status::Resolution;
use crate::store::pending_format::{self, Head};
use crate::store::session::Session;

/// What a pending action does when applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ActionKind {
    /// A structural edit previewed by `ast_edit`.
    AstEdit {
        /// The plan to apply, written as the store's own type
        /// (`store/stored_plan.rs`).
        #[serde(with = "crate::store::stored_plan::as_stored")]
        plan: Box<Plan>,
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

/// A staged action, as stored (the shape of format version 4; see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingAction {
    /// Handle used by `resolve --id`.
    pub id: String,
    /// Order of staging (higher = newer), per the order rule of the module docs.
    pub order: u64,
    /// When it was staged (RFC 3339, UTC).
    pub created_at: String,
    /// Human label.
    pub label: String,
    /// The tool that staged it.
    pub source_tool_name: String,
    /// Paths it would touch.
    pub files: Vec<String>,
    /// The session that staged it ([`crate::store::session`]);
    /// [`CLI_OWNER`](crate::store::session::CLI_OWNER) for an entry of format
    /// version 1 or 2, which recorded none.
    #[serde(default = "crate::store::session::cli_owner")]
    pub owner: String,
    /// The name its MCP client gave that session, for display; `None` when it
    /// gave none (and for the command line).
    #[serde(default)]
    pub owner_client: Option<String>,
    /// The build that staged it (`crate::store::pending_format::engine_build`); `None`
    /// when unknown (an entry older than format version 1, or an unreadable
    /// executable).
    #[serde(default)]
    pub engine_build: Option<String>,
    /// For an `ast_edit` action, the ops of its plan's request as ast-grep rule
    /// configs ([`crate::store::pending_format::rules_of`]); empty for command actions and
    /// entries older than format version 1.
    #[serde(default)]
    pub rules: Vec<serde_json::Value>,
    /// For an `ast_edit` action, [`crate::store::pending_format::rules_digest`] of its
    /// rules and request; `None` otherwise.
    #[serde(default)]
    pub rules_digest: Option<String>,
    /// What it does.
    pub kind: ActionKind,
}

/// What the store keeps of a resolved action: `resolved/<id>.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedRecord {
    /// The action's id.
    pub id: String,
    /// Its label.
    pub label: String,
    /// The tool that staged it.
    pub source_tool_name: String,
    /// How it ended (the latest of applied/discarded, then undone).
    pub resolution: Resolution,
    /// When that happened (RFC 3339, UTC).
    pub at: String,
    /// The order the action had while pending.
    pub order: u64,
    /// The session that staged it; [`CLI_OWNER`](crate::store::session::CLI_OWNER)
    /// for a record of format version 1 or 2.
    #[serde(default = "crate::store::session::cli_owner")]
    pub owner: String,
    /// The name its MCP client gave that session, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_client: Option<String>,
    /// For [`Resolution::Superseded`]: the action that replaced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
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
    /// The session that staged it (`cli`, or `mcp-<6 hex>` for an MCP server).
    pub owner: String,
    /// The name that session's MCP client gave, or `null`.
    pub owner_client: Option<String>,
    /// True when it is the caller's own: resolved without an id.
    pub mine: bool,
}

impl PendingAction {
    /// What the action does, shown beside its label in listings (whose labels
    /// are all alike): an `ast_edit`'s first op (`` `pat` -> `out` ``, with
    /// how many more ops), on one line, at most 100 characters; `None` for a
    /// rule scan (its label names its rules: `(rules: a, b)`) and a command
    /// action.
    pub fn what(&self) -> Option<String> {
        let ActionKind::AstEdit { plan } = &self.kind else { return None };
        let req = &plan.request;
        if req.rule_set.is_some() {
            return None;
        }
        let op = req.ops.first()?;
        let more = if req.ops.len() > 1 { format!(" +{} more ops", req.ops.len() - 1) } else { String::new() };
        let s = format!("`{}` -> `{}`{more}", op.pat, op.out);
        Some(crate::shared::text::ellipsized(&crate::shared::text::one_line(&s), 100))
    }

    /// The summary row, as `session` sees it (`mine`).
    pub fn summary(&self, session: &Session) -> PendingSummary {
        PendingSummary {
            id: self.id.clone(),
            label: self.label.clone(),
            source_tool_name: self.source_tool_name.clone(),
            created_at: self.created_at.clone(),
            files: self.files.clone(),
            owner: self.owner.clone(),
            owner_client: self.owner_client.clone(),
            mine: session.owns(&self.owner),
        }
    }
}

/// The store, opened by one session ([`Store::in_session`]; the command line's
/// by default).
pub struct Store {
    dir: PathBuf,
    session: Session,
}

/// Holds the store's exclusive lock until dropped.
pub struct Locked<'a> {
    store: &'a Store,
    _file: File,
}

impl Store {
    /// Opens (creating if needed) the store in `dir`, as the command line's
    /// session ([`Session::cli`]).
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        for d in [dir.clone(), dir.join("pending"), dir.join("resolved"), dir.join("journal")] {
            std::fs::create_dir_all(&d)
                .map_err(|e| Error::Store { path: d.clone(), message: format!("cannot create it ({e}); set AST_EDIT_STATE_DIR to a writable folder") })?;
        }
        Ok(Store { dir, session: Session::cli() })
    }

    /// This store as seen by `session`: what it stages is that session's, and
    /// `resolve` and `undo` without an id take that session's own.
    pub fn in_session(mut self, session: Session) -> Self {
        self.session = session;
        self
    }

    /// The session that opened the store.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The state dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes the store's exclusive lock (blocking). When another process holds it
    /// for longer than [`LOCK_QUIET_WAIT`] (a long apply), says once on stderr that
    /// this one waits ([`LOCK_WAIT_MESSAGE`]), then blocks until it is free.
    pub fn lock(&self) -> Result<Locked<'_>> {
        let (path, file) = self.lock_file()?;
        if !try_lock_for(&file, LOCK_QUIET_WAIT).map_err(|e| self.err(&path, e))? {
            eprintln!("{LOCK_WAIT_MESSAGE}");
            file.lock().map_err(|e| self.err(&path, e))?;
        }
        Ok(Locked { store: self, _file: file })
    }

    /// [`Store::lock`] waiting at most `wait`, silently: `None` when another
    /// process still holds the lock then.
    pub fn lock_within(&self, wait: Duration) -> Result<Option<Locked<'_>>> {
        let (path, file) = self.lock_file()?;
        Ok(try_lock_for(&file, wait).map_err(|e| self.err(&path, e))?.then_some(Locked { store: self, _file: file }))
    }

    /// The store's lock file, opened (created when missing) without waiting
    /// and checked to be a regular file: opened for writing, a FIFO put in its
    /// place would wait for a reader forever. Read and write, so that a FIFO
    /// opens at once and is named for what it is; a symbolic link is not
    /// followed (the store makes the lock itself).
    fn lock_file(&self) -> Result<(PathBuf, File)> {
        let path = self.dir.join("lock");
        let mut opts = File::options();
        opts.create(true).truncate(false).read(true).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
        }
        let not_regular = |kind: &str| Error::Store {
            path: path.clone(),
            message: format!("the store's lock is {kind}, not a regular file: delete it; ast-edit makes it again"),
        };
        let file = match opts.open(&path) {
            Ok(file) => file,
            // A link (O_NOFOLLOW) or a folder fails to open: named as they are.
            Err(e) => match std::fs::symlink_metadata(&path).map(|m| m.file_type()) {
                Ok(t) if t.is_symlink() => return Err(not_regular("a symbolic link")),
                Ok(t) if !t.is_file() => return Err(not_regular(FileKind::of(&t).text())),
                _ => return Err(self.err(&path, e)),
            },
        };
        let meta = file.metadata().map_err(|e| self.err(&path, e))?;
        if !meta.is_file() {
            return Err(not_regular(FileKind::of(&meta.file_type()).text()));
        }
        Ok((path, file))
    }

    fn err(&self, path: &Path, e: std::io::Error) -> Error {
        Error::Store { path: path.to_path_buf(), message: e.to_string() }
    }
}

/// How long [`Store::lock`] waits for a held lock before it says so.
pub const LOCK_QUIET_WAIT: Duration = Duration::from_millis(200);

/// What [`Store::lock`] prints on stderr when it has to wait for the lock.
pub const LOCK_WAIT_MESSAGE: &str = "waiting for another ast-edit process (pending-action store locked)...";

/// Tries to take `file`'s exclusive lock for up to `wait` (polling every 10 ms);
/// false when it is still held by someone else after that.
fn try_lock_for(file: &File, wait: Duration) -> std::io::Result<bool> {
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        if start.elapsed() >= wait {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn new_id(salt: u64) -> String {
    let h = crate::shared::hash::digest(format!("{}-{}-{salt}", now_nanos(), std::process::id()).as_bytes());
    format!("ae-{}", &h[7..13])
}

/// Nanoseconds since the Unix epoch (0 for a clock before it).
pub(crate) fn now_nanos() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)).unwrap_or(0)
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// An id as handed out by the store: used in file names, so nothing but ASCII
/// letters, digits, `-` and `_`.
fn is_plain_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What [`Locked::scan`] found in `pending/`.
pub(super) struct Scan<T = Head> {
    /// The good entries (what [`Head`] holds of them, unless read in full),
    /// newest first, with the size of their file.
    pub(super) actions: Vec<(T, u64)>,
    pub(super) problems: Vec<String>,
}

impl Locked<'_> {
    fn pending_path(&self, id: &str) -> PathBuf {
        self.store.dir.join("pending").join(format!("{id}.json"))
    }

    fn resolved_path(&self, id: &str) -> PathBuf {
        self.store.dir.join("resolved").join(format!("{id}.json"))
    }

    /// The `*.json` files of the store's folder `sub`; none if it is missing.
    pub(super) fn json_files(&self, sub: &str) -> Result<Vec<PathBuf>> {
        let dir = self.store.dir.join(sub);
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.store.err(&dir, e)),
        };
        let mut v = Vec::new();
        for entry in rd {
            let p = entry.map_err(|e| self.store.err(&dir, e))?.path();
            if p.extension().is_some_and(|x| x == "json") {
                v.push(p);
            }
        }
        Ok(v)
    }

    /// The order for something new: the larger of now (nanoseconds since the
    /// epoch) and one more than the largest order of every pending entry, resolved
    /// record and journal record (an order past `pending_format::MAX_ORDER` is
    /// no store's and not counted), at most that. Nothing is written: the
    /// caller stores it.
    pub(crate) fn next_order(&self) -> Result<u64> {
        let mut last: Option<u64> = None;
        for p in self.json_files("pending")?.into_iter().chain(self.json_files("resolved")?) {
            if let Some(o) = super::read_entry(&p).ok().and_then(|b| pending_format::order_of(&b)).filter(|o| pending_format::sane_order(*o)) {
                last = last.max(Some(o));
            }
        }
        let jdir = self.journal_dir();
        if let Ok(rd) = std::fs::read_dir(&jdir) {
            for e in rd.flatten() {
                last = last.max(pending_format::journal_order(&e.file_name().to_string_lossy()).filter(|o| pending_format::sane_order(*o)));
            }
        }
        let now = now_nanos();
        Ok(last.map_or(now, |l| now.max(l.saturating_add(1))).min(pending_format::MAX_ORDER))
    }

    /// An action id that no pending or resolved action has: for a staged
    /// action, and for an apply that stages none (`run -U`, `run -i`), whose undo
    /// record it names.
    pub fn fresh_id(&self) -> Result<String> {
        Ok(self.fresh_id_at(self.next_order()?))
    }

    /// [`Locked::fresh_id`] drawn with `order` (the new action's).
    fn fresh_id_at(&self, order: u64) -> String {
        let mut id = new_id(order);
        let mut n = 0;
        while self.pending_path(&id).exists() || self.resolved_path(&id).exists() {
            n += 1;
            id = new_id(order.wrapping_add(n * 1_000_003));
        }
        id
    }

    /// Stages `new` under a fresh id, as the newest action; returns it as stored.
    pub fn push(&self, new: NewAction) -> Result<PendingAction> {
        let order = self.next_order()?;
        let id = self.fresh_id_at(order);
        let NewAction { label, source_tool_name, files, kind } = new;
        let (rules, rules_digest) = match &kind {
            ActionKind::AstEdit { plan } => {
                let rules = pending_format::rules_of(&plan.request);
                let digest = pending_format::rules_digest(&rules, &plan.request);
                (rules, Some(digest))
            }
            ActionKind::Command { .. } => (Vec::new(), None),
        };
        let action = PendingAction {
            id,
            order,
            created_at: now_rfc3339(),
            label,
            source_tool_name,
            files,
            owner: self.store.session.owner().to_string(),
            owner_client: self.store.session.client().map(str::to_string),
            engine_build: pending_format::engine_build(&self.store.dir),
            rules,
            rules_digest,
            kind,
        };
        self.save(&action)?;
        Ok(action)
    }

    /// Writes (or rewrites) an action, in the current format version.
    pub fn save(&self, action: &PendingAction) -> Result<()> {
        let path = self.pending_path(&action.id);
        write_atomic_with(&path, |w| pending_format::encode_entry(action, w)).map_err(|e| self.store.err(&path, e))
    }

    /// Reads what [`Head`] holds of every entry of `pending/`: the good ones
    /// newest first, and one message per bad one.
    pub(super) fn scan(&self) -> Result<Scan> {
        self.read_all(|b| pending_format::decode_head(b).map_err(Some), |s| (&s.id, s.order), true)
    }

    /// Reads every entry of `pending/` with `decode`: the good ones newest first
    /// (by `key`: id and order) with the size of their file, and one message per
    /// bad one: each that `decode` gives a reason for (`None`: left out without
    /// one), and when `ids`, each whose id is not its file name.
    fn read_all<T>(
        &self,
        decode: impl Fn(&[u8]) -> std::result::Result<T, Option<pending_format::Unreadable>>,
        key: impl Fn(&T) -> (&String, u64),
        ids: bool,
    ) -> Result<Scan<T>> {
        let mut actions = Vec::new();
        let mut problems = Vec::new();
        for p in self.json_files("pending")? {
            let bad = |what: String| format!("{}: {what}; delete the file to drop it", p.display());
            let bytes = match super::read_entry(&p) {
                Ok(b) => b,
                Err(e) if e.is_not_found() => continue,
                Err(e) => {
                    problems.push(bad(format!("this pending action {}", e.reason())));
                    continue;
                }
            };
            match decode(&bytes) {
                Err(Some(e)) => problems.push(bad(e.to_string())),
                Err(None) => {}
                Ok(a) if p.file_stem() != Some(std::ffi::OsStr::new(key(&a).0)) || !is_plain_id(key(&a).0) => {
                    if ids {
                        problems.push(bad(format!("its id `{}` does not match its file name", key(&a).0)));
                    }
                }
                Ok(a) => actions.push((a, bytes.len() as u64)),
            }
        }
        actions.sort_by(|(a, _), (b, _)| key(b).1.cmp(&key(a).1).then_with(|| key(b).0.cmp(key(a).0)));
        problems.sort();
        Ok(Scan { actions, problems })
    }

    /// Every pending action, newest first. Unreadable entries are skipped (the
    /// store's upkeep reports them when it is opened, [`Self::listed`] those
    /// whose plan alone cannot be read).
    pub fn list(&self) -> Result<Vec<PendingAction>> {
        Ok(self.listed()?.0)
    }

    /// [`Self::list`], and a message for each entry left out whose plan cannot
    /// be read though the rest of it can: the store's upkeep reads no plan, so
    /// it reported the other bad entries when the store was opened, not these.
    pub fn listed(&self) -> Result<(Vec<PendingAction>, Vec<String>)> {
        let decode = |b: &[u8]| pending_format::decode_entry(b).map_err(|e| pending_format::decode_head(b).is_ok().then_some(e));
        let Scan { actions, problems } = self.read_all(decode, |a| (&a.id, a.order), false)?;
        Ok((actions.into_iter().map(|(a, _)| a).collect(), problems))
    }

    /// The action `id` (whichever session staged it), or when `id` is `None`
    /// the newest one of the caller's session. Only that one is read in full:
    /// an error says why when it cannot be.
    pub fn get(&self, id: Option<&str>) -> Result<Option<PendingAction>> {
        let found = self.scan()?.actions.into_iter().map(|(s, _)| s).find(|s| match id {
            Some(id) => s.id == id,
            None => self.store.session.owns(&s.owner),
        });
        found.map(|s| self.read(&s.id)).transpose()
    }

    /// The pending action `id` read in full; an error names its file and why it
    /// cannot be read.
    pub(super) fn read(&self, id: &str) -> Result<PendingAction> {
        let p = self.pending_path(id);
        let bad = |message: String| Error::Store { path: p.clone(), message: format!("{message}; delete the file to drop it") };
        let bytes = super::read_entry(&p).map_err(|e| bad(format!("this pending action {}", e.reason())))?;
        pending_format::decode_entry(&bytes).map_err(|e| bad(e.to_string()))
    }

    /// The session that took the lock.
    pub fn session(&self) -> &Session {
        &self.store.session
    }

    /// Drops the action `id` without a record.
    pub fn remove(&self, id: &str) -> Result<()> {
        let p = self.pending_path(id);
        std::fs::remove_file(&p).map_err(|e| self.store.err(&p, e))
    }

    /// Ends the pending `action`: writes its record `resolved/<id>.json` with
    /// `resolution` and the time, then drops its entry. The entry is dropped even
    /// if the record cannot be written (the action was carried out); that error is
    /// returned after.
    pub fn finish(&self, action: &PendingAction, resolution: Resolution) -> Result<ResolvedRecord> {
        self.finish_head(&action.head(), resolution)
    }

    /// [`Self::finish`] of the action `action` summarizes.
    pub(super) fn finish_head(&self, action: &Head, resolution: Resolution) -> Result<ResolvedRecord> {
        let record = ResolvedRecord {
            id: action.id.clone(),
            label: action.label.clone(),
            source_tool_name: action.source_tool_name.clone(),
            resolution,
            at: now_rfc3339(),
            order: action.order,
            owner: action.owner.clone(),
            owner_client: action.owner_client.clone(),
            superseded_by: None,
        };
        let written = self.write_resolved(&record);
        self.remove(&action.id)?;
        written?;
        Ok(record)
    }

    /// Ends the pending `action` as superseded by the action `by` (a later
    /// preview of the same session, ops and paths): its record names `by`.
    pub fn supersede(&self, action: &PendingAction, by: &str) -> Result<()> {
        let mut record = self.finish(action, Resolution::Superseded)?;
        record.superseded_by = Some(by.to_string());
        self.write_resolved(&record)
    }

    /// Sets the resolution of the resolved action `id` (with the time); `None`
    /// when it has no record.
    pub fn mark(&self, id: &str, resolution: Resolution) -> Result<Option<ResolvedRecord>> {
        let Some(mut record) = self.resolution(id)? else { return Ok(None) };
        record.resolution = resolution;
        record.at = now_rfc3339();
        self.write_resolved(&record)?;
        Ok(Some(record))
    }

    fn write_resolved(&self, record: &ResolvedRecord) -> Result<()> {
        let path = self.resolved_path(&record.id);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.store.err(dir, e))?;
        }
        write_atomic(&path, &pending_format::encode_resolved(record)).map_err(|e| self.store.err(&path, e))
    }

    /// The record of the resolved action `id`, if it has one. An unreadable record
    /// is an error naming its file.
    pub fn resolution(&self, id: &str) -> Result<Option<ResolvedRecord>> {
        if !is_plain_id(id) {
            return Ok(None);
        }
        let path = self.resolved_path(id);
        let bytes = match super::read_entry(&path) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(Error::Store { path, message: format!("this resolved record {}; delete it to drop it", e.reason()) }),
        };
        let record =
            pending_format::decode_resolved(&bytes).map_err(|e| Error::Store { path: path.clone(), message: format!("{e}; delete the file to drop it") })?;
        if record.id != id {
            return Err(Error::Store { path, message: format!("its id `{}` does not match its file name; delete the file to drop it", record.id) });
        }
        Ok(Some(record))
    }

    /// The journal folder.
    pub(crate) fn journal_dir(&self) -> PathBuf {
        self.store.dir.join("journal")
    }

    /// The state dir.
    pub fn dir(&self) -> &Path {
        &self.store.dir
    }

    /// Drops the pending actions `ids` that are still pending, unresolved (no
    /// command runs), each leaving a `cleared` record; returns those dropped,
    /// newest first. Ids no longer pending are left out.
    pub fn clear(&self, ids: &[String]) -> Result<Vec<PendingAction>> {
        let mut dropped = Vec::new();
        for a in self.list()? {
            if ids.contains(&a.id) {
                self.finish(&a, Resolution::Cleared)?;
                dropped.push(a);
            }
        }
        Ok(dropped)
    }
}
