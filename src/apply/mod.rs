//! The only code that writes source files: applies a [`Plan`] under the "verify,
//! don't trust" rules of docs/DESIGN.md section 4.3, and undoes the last apply.
//!
//! 1. Re-read every selected file and compare with the preview digest (a vanished
//!    file, a symlink now, a size other than the planned one are stale too, the
//!    last found without reading). Default: any stale file aborts the whole apply,
//!    and so does a file that cannot be written without harm (hard links, an owner
//!    that cannot be kept).
//! 2. Re-run the rewrite on the fresh bytes; the result must equal the plan.
//! 3. Stage every new file (temp in the same folder, mode, owner and group kept,
//!    fsync) before the first rename; if a rename fails, put back the files
//!    already renamed, with their mode, owner and group.
//!    Steps 1-3 are one parallel pass; each original is spooled to the journal as
//!    its file is staged, not kept in memory.
//! 4. Journal the original bytes (fsynced) before the first rename, so `undo`, and
//!    the next run after a crash, can restore them.
//! 5. Re-read every written file and check it against the planned digest.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::shared::atomic::{self, Kept, StageError, write_atomic};
use crate::engine::{self, Engine};
use crate::shared::error::{Error, Result};
use crate::request::lang;
use crate::shared::message::{Front, Name};
use crate::shared::status::Resolution;
use crate::store::pending::Locked;
use crate::plan::{FilePlan, Plan};
use crate::shared::quote::{display_name, escape_controls};
use crate::shared::status::{ApplyStatus, FileStatus, OutstandingStatus, UndoStatus};
use crate::shared::text::plural;

/// Options taken from `resolve`'s `extra`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Write the fresh files and report stale ones (`extra.stale = "skip"`).
    pub skip_stale: bool,
    /// Apply only these display paths (`extra.files`).
    pub only: Option<Vec<String>>,
    /// Apply files whose rewrite adds syntax errors (`extra.allowSyntaxErrors`).
    pub allow_syntax_errors: bool,
    /// Leave these display paths out (`extra.exclude`); each must be a file of
    /// the action ([`ApplyOptions::check_paths`]).
    pub exclude: Vec<String>,
    /// Apply files whose rewrite moves code in the syntax tree
    /// (`extra.allowStructureChanges`; docs/DESIGN.md section 2.5.10).
    pub allow_structure_changes: bool,
    /// Apply files whose rewrite does not say what its template says
    /// (`extra.allowTemplateMismatch`; docs/DESIGN.md section 2.5.9).
    pub allow_template_mismatch: bool,
    /// Leave out every file whose rewrite adds syntax errors, moves code in
    /// the syntax tree or does not say what its template says (`extra.skipFlagged`).
    pub skip_flagged: bool,
    /// Build the new text by splicing the planned edits onto the verified bytes
    /// instead of re-running the rewrite. Set by `run -U` and `-i`, whose plan this
    /// same process made moments before, and by `resolve apply` when the stored
    /// action proves it was planned by this build from the same rules
    /// (docs/DESIGN.md section 4.3, step 5) and `rerun` is not asked.
    pub trust_plan: bool,
    /// The caller asked to re-run the engine whatever the stored plan proves
    /// (`extra.verify = "rerun"`, CLI `--verify rerun`): `resolve` then never sets
    /// `trust_plan`.
    pub rerun: bool,
    /// The front end whose words the messages about `extra` use (docs/DESIGN.md §5.14).
    pub front: Front,
}

impl ApplyOptions {
    /// The keys of `extra` that an `ast_edit` apply reads, in the order messages
    /// list them (docs/DESIGN.md section 4.2).
    pub const EXTRA_KEYS: [&str; 8] = ["stale", "files", "allowSyntaxErrors", "verify", "exclude", "skipFlagged", "allowStructureChanges", "allowTemplateMismatch"];

    /// Reads the options from `extra` (a JSON object). A key that is not one of
    /// [`ApplyOptions::EXTRA_KEYS`], or a value of the wrong type or out of range, is bad input
    /// naming the key and what it takes (docs/DESIGN.md section 4.2): an
    /// `ast_edit` action takes nothing else, and a typo such as `file` for `files`
    /// must not apply every file.
    pub fn from_extra(extra: Option<&serde_json::Value>, front: Front) -> Result<Self> {
        let mut o = ApplyOptions { front, ..ApplyOptions::default() };
        let Some(extra) = extra else { return Ok(o) };
        let obj = extra.as_object().ok_or_else(|| Error::bad("extra must be a JSON object, for example {\"stale\":\"skip\"}"))?;
        let options = Self::EXTRA_KEYS.join(", ");
        for key in obj.keys() {
            if !Self::EXTRA_KEYS.contains(&key.as_str()) {
                let hint = Self::closest_key(key).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default();
                return Err(Error::bad(format!(
                    "extra has the key `{key}`{hint}, which an ast_edit action does not take; its options are: {options}. Nothing was written; the action stays pending"
                )));
            }
        }
        let bad = |key: &str, what: &str, got: &serde_json::Value| {
            Error::bad(format!("extra.{key} must be {what}, not {got}. Nothing was written; the action stays pending"))
        };
        if let Some(v) = obj.get("stale") {
            o.skip_stale = match v.as_str() {
                Some("skip") => true,
                Some("abort") => false,
                _ => return Err(bad("stale", "\"skip\" or \"abort\"", v)),
            };
        }
        if let Some(v) = obj.get("files") {
            let what = format!("a non-empty array of the action's paths (as {} lists them)", front.name(Name::ActionFiles));
            let arr = v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| bad("files", &what, v))?;
            let files = arr.iter().map(|f| f.as_str().map(str::to_string)).collect::<Option<Vec<_>>>();
            o.only = Some(files.ok_or_else(|| bad("files", &what, v))?);
        }
        if let Some(v) = obj.get("allowSyntaxErrors") {
            o.allow_syntax_errors = v.as_bool().ok_or_else(|| bad("allowSyntaxErrors", "true or false", v))?;
        }
        if let Some(v) = obj.get("allowStructureChanges") {
            o.allow_structure_changes = v.as_bool().ok_or_else(|| bad("allowStructureChanges", "true or false", v))?;
        }
        if let Some(v) = obj.get("allowTemplateMismatch") {
            o.allow_template_mismatch = v.as_bool().ok_or_else(|| bad("allowTemplateMismatch", "true or false", v))?;
        }
        if let Some(v) = obj.get("verify") {
            o.rerun = match v.as_str() {
                Some("rerun") => true,
                _ => return Err(bad("verify", "\"rerun\" (re-run the engine on every file; leave it out to let apply choose)", v)),
            };
        }
        o.read_leave_out(obj, bad)?;
        Ok(o)
    }

    /// `exclude` and `skipFlagged` (docs/DESIGN.md section 4.2); `skipFlagged`
    /// and `allowSyntaxErrors` both true contradict each other.
    fn read_leave_out(
        &mut self,
        obj: &serde_json::Map<String, serde_json::Value>,
        bad: impl Fn(&str, &str, &serde_json::Value) -> Error,
    ) -> Result<()> {
        if let Some(v) = obj.get("exclude") {
            let what = format!("an array of the action's paths (as {} lists them)", self.front.name(Name::ActionFiles));
            let arr = v.as_array().ok_or_else(|| bad("exclude", &what, v))?;
            let paths = arr.iter().map(|f| f.as_str().map(str::to_string)).collect::<Option<Vec<_>>>();
            self.exclude = paths.ok_or_else(|| bad("exclude", &what, v))?;
        }
        if let Some(v) = obj.get("skipFlagged") {
            self.skip_flagged = v.as_bool().ok_or_else(|| bad("skipFlagged", "true or false", v))?;
        }
        if self.skip_flagged && self.allow_syntax_errors {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite adds syntax errors and extra.allowSyntaxErrors writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        if self.skip_flagged && self.allow_structure_changes {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite moves code in the syntax tree and extra.allowStructureChanges writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        if self.skip_flagged && self.allow_template_mismatch {
            return Err(Error::bad(
                "extra.skipFlagged leaves out the files whose rewrite does not say what its template says and extra.allowTemplateMismatch writes them: pass one of the two. Nothing was written; the action stays pending",
            ));
        }
        Ok(())
    }

    /// Checks the paths of `exclude` against the action's files: a path that is
    /// not one of them is bad input naming it (a typo would otherwise write the
    /// file the caller meant to leave out).
    pub fn check_paths(&self, plan: &Plan) -> Result<()> {
        let unknown: Vec<&String> = self.exclude.iter().filter(|p| !plan.files.iter().any(|f| &f.path == *p)).collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let mut files: Vec<String> = plan.files.iter().take(MAX_LISTED_FILES).map(|f| display_name(&f.path).into_owned()).collect();
        if plan.files.len() > MAX_LISTED_FILES {
            files.push(format!("and {} more ({} lists them)", plan.files.len() - MAX_LISTED_FILES, self.front.name(Name::ActionFiles)));
        }
        Err(Error::bad(format!(
            "extra.exclude names {} not in this action: {}; its files are: {}. Nothing was written; the action stays pending",
            plural(unknown.len(), "path"),
            unknown.iter().map(|s| display_name(s)).collect::<Vec<_>>().join(", "),
            files.join(", ")
        )))
    }

    /// The key of [`ApplyOptions::EXTRA_KEYS`] that `key` most likely misspells:
    /// within two edits, ignoring case, `_` and `-`.
    fn closest_key(key: &str) -> Option<&'static str> {
        let fold = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect::<Vec<char>>();
        let k = fold(key);
        Self::EXTRA_KEYS
            .iter()
            .map(|cand| (Self::edit_distance(&k, &fold(cand)), *cand))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d)
            .map(|(_, cand)| cand)
    }

    /// Levenshtein distance.
    fn edit_distance(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, cb) in b.iter().enumerate() {
                cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }
}

/// Per-file result of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppliedFile {
    /// Display path.
    pub path: String,
    /// Replacements written.
    pub replacements: usize,
    /// `applied`, `stale` or `failed`.
    pub status: FileStatus,
    /// The diff that was applied.
    pub diff: String,
}

/// Something the apply did not do, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Outstanding {
    /// Display path.
    pub path: String,
    /// `stale`, `failed` or `not_selected`.
    pub status: OutstandingStatus,
    /// What happened.
    pub reason: String,
}

/// The apply report (`sourceResultDetails` of an `ast_edit` resolve).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyReport {
    /// `applied` or `incomplete`.
    pub status: ApplyStatus,
    /// True when at least one file was written.
    pub applied: bool,
    /// Replacements written.
    pub total_replacements: usize,
    /// Files written.
    pub files_touched: usize,
    /// Per-file results.
    pub files: Vec<AppliedFile>,
    /// What was not done.
    pub outstanding: Vec<Outstanding>,
}

impl ApplyReport {
    /// The result text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "Applied {} in {}.",
            plural(self.total_replacements, "replacement"),
            plural(self.files_touched, "file")
        );
        for f in &self.files {
            s.push_str(&format!("\n  {:<8} {} ({})", f.status, display_name(&f.path), plural(f.replacements, "replacement")));
        }
        if !self.outstanding.is_empty() {
            s.push_str(&format!("\nIncomplete: {} not applied:", plural(self.outstanding.len(), "file")));
            for o in &self.outstanding {
                s.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
            }
        }
        s
    }
}

/// A file ready to be written.
struct Prepared<'p> {
    plan: &'p FilePlan,
    /// Where the original bytes sit in the spool.
    offset: u64,
    len: usize,
    /// The length of the new file.
    new_len: u64,
    /// The new file, staged beside the target (renamed over it at commit).
    tmp: tempfile::TempPath,
    /// The original's mode, owner and group, for a rollback.
    kept: Kept,
}

/// What the apply makes of one selected file.
enum Outcome<'p> {
    /// Fresh, re-run and staged.
    Staged(Prepared<'p>),
    /// Not as previewed (changed, deleted, a symlink now): the reason.
    Stale(String),
    /// As previewed, but writing it would do harm (hard links, an owner that
    /// cannot be kept): the reason.
    Refused(String),
}

/// Files of the action named in the message about an unknown `extra.exclude`
/// path (docs/DESIGN.md section 7).
pub const MAX_LISTED_FILES: usize = 20;

/// `not_selected` reasons of `outstanding` (docs/DESIGN.md §4.4).
const NOT_IN_FILES: &str = "not named in extra.files";
const EXCLUDED: &str = "named in extra.exclude";
const FLAGGED: &str = "its rewrite adds syntax errors (left out by extra.skipFlagged)";
/// Why `skipFlagged` left out a file whose rewrite moves code in the syntax
/// tree (docs/DESIGN.md section 2.5.10).
const MOVED: &str = "its rewrite moves code in the syntax tree (left out by extra.skipFlagged)";

/// The reason of a file left out by `skipFlagged` because its rewrite does not
/// say what its template says.
const MISMATCHED: &str = "its rewrite does not say what its template says (left out by extra.skipFlagged)";

/// Stale reasons of `outstanding` (docs/DESIGN.md §4.4).
const CHANGED: &str = "changed since the preview";
const DELETED: &str = "deleted since the preview";

/// The stale check of one planned file, cheap tests first: what is at its path
/// (a symlink or something other than a regular file is stale, and a symlink is
/// never read through), its size against the planned size (a file that grew is
/// not read at all), then the digest of its bytes; a fresh file with several hard
/// links is refused. Returns the original bytes and the file's metadata.
fn check_fresh(f: &FilePlan, cap: u64) -> std::result::Result<(Vec<u8>, std::fs::Metadata), Outcome<'static>> {
    let (mut file, meta) = match open_regular(&f.abs) {
        Opened::File(file, meta) => (file, meta),
        Opened::Missing => return Err(Outcome::Stale(DELETED.into())),
        Opened::Link => {
            return Err(Outcome::Stale("now a symbolic link: writing would replace the link with a regular file".into()));
        }
        Opened::NotRegular => return Err(Outcome::Stale("no longer a regular file".into())),
        Opened::Unreadable(e) => return Err(Outcome::Stale(format!("unreadable: {e}"))),
    };
    // A plan stored before sizes were recorded has size 0 (no planned file is
    // empty): then the preview's size cap bounds the read.
    let expected = if f.size > 0 { f.size } else { meta.len() };
    if meta.len() != expected || expected > cap {
        return Err(Outcome::Stale(CHANGED.into()));
    }
    match read_sized(&mut file, expected) {
        Ok(Some(bytes)) if engine::digest(&bytes) == f.digest => {
            if let Some(reason) = hard_links(&meta, "writing") {
                return Err(Outcome::Refused(format!("{reason}; edit it by hand")));
            }
            Ok((bytes, meta))
        }
        Ok(_) => Err(Outcome::Stale(CHANGED.into())),
        Err(e) => Err(Outcome::Stale(format!("unreadable: {e}"))),
    }
}

/// The refusal of a file with several hard links (`doing`: "writing",
/// "restoring"): a rename gives this name a new file and leaves the other names
/// on the old bytes. `None` for a single link.
fn hard_links(meta: &std::fs::Metadata, doing: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let n = meta.nlink();
        if n > 1 {
            return Some(format!(
                "has {n} hard links: {doing} it would break them, as only this name would get the new bytes"
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, doing);
    None
}

/// What is at a path, opened for reading without following a symlink in its last
/// component (`O_NOFOLLOW` on Linux), with what `fstat` says of it.
enum Opened {
    File(std::fs::File, std::fs::Metadata),
    Missing,
    Link,
    NotRegular,
    Unreadable(std::io::Error),
}

fn open_regular(path: &Path) -> Opened {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO put in the file's place must not hang the apply (it is
        // then refused as not a regular file); it changes nothing for regular files.
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(target_os = "linux"))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Opened::Link;
    }
    match o.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Opened::Missing,
        #[cfg(target_os = "linux")]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Opened::Link,
        Err(e) => Opened::Unreadable(e),
        Ok(file) => match file.metadata() {
            Ok(m) if m.is_file() => Opened::File(file, m),
            Ok(_) => Opened::NotRegular,
            Err(e) => Opened::Unreadable(e),
        },
    }
}

/// The bytes of `file` if it holds exactly `size` bytes, `None` if it holds
/// more or fewer. Never reads more than `size + 1` bytes, so a file that grows
/// after its `fstat` costs no more memory than the expected size.
fn read_sized(file: &mut std::fs::File, size: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(usize::MAX).saturating_add(1));
    file.take(size.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 == size).then_some(bytes))
}

/// The bytes at `path` if it is a regular file (not read through a symlink) whose
/// size is one of `sizes` (any size when `sizes` is empty), with its metadata.
/// `Err(true)` when nothing is there, `Err(false)` for anything else.
fn read_if_size(path: &Path, sizes: &[u64]) -> std::result::Result<(Vec<u8>, std::fs::Metadata), bool> {
    match open_regular(path) {
        Opened::File(mut file, meta) => {
            if !sizes.is_empty() && !sizes.contains(&meta.len()) {
                return Err(false);
            }
            match read_sized(&mut file, meta.len()) {
                Ok(Some(bytes)) => Ok((bytes, meta)),
                _ => Err(false),
            }
        }
        Opened::Missing => Err(true),
        _ => Err(false),
    }
}

/// Re-runs the rewrite on one fresh file, checks it reproduces the preview,
/// stages the new bytes beside the target (with the original's mode, owner and
/// group) and spools the original. A file whose owner cannot be kept is refused.
fn prepare_file<'p>(
    f: &'p FilePlan,
    original: &[u8],
    meta: &std::fs::Metadata,
    engine: Option<&Engine>,
    plan: &Plan,
    spool: &Spool,
) -> Result<Outcome<'p>> {
    let new = match engine {
        None => engine::splice(original, &f.edits),
        Some(engine) => {
            let lang = lang::parse_lang(&f.lang)?;
            let text = crate::request::read::check_text(original).map_err(|s| Error::ApplyFailed(format!("{}: {}", f.path, s.0)))?;
            let opts = engine::RewriteOptions { prefilter: !plan.request.no_prefilter, check_syntax: false, rewrite_nested: plan.request.rewrite_nested, verbatim: plan.request.verbatim };
            engine::rewrite(&engine.ops_for(lang, &f.abs), lang, text, opts).map(|r| r.new_text).unwrap_or_default()
        }
    };
    if engine::digest(&new) != f.new_digest {
        return Err(Error::ApplyFailed(format!(
            "re-running the edit on {} did not reproduce the preview (was ast-edit upgraded in between?); nothing was written. Discard this action and preview again",
            f.path
        )));
    }
    let kept = Kept::of(meta);
    let tmp = match atomic::stage_beside(&f.abs, &new, &kept) {
        Ok(tmp) => tmp.into_temp_path(),
        Err(StageError::Owner(reason)) => return Ok(Outcome::Refused(reason)),
        Err(StageError::Io(e)) => {
            return Err(Error::ApplyFailed(format!("cannot stage the new {}: {e}; nothing was written", display_name(&f.path))));
        }
    };
    let (offset, len) = spool.append(original)?;
    Ok(Outcome::Staged(Prepared { plan: f, offset, len, new_len: new.len() as u64, tmp, kept }))
}

/// Where the originals go while an apply runs: the journal's `originals.bin`
/// (when there is a journal) or an anonymous temp file, written as files are
/// staged and read back only to restore after a failed rename.
struct Spool {
    /// The journal record's folder and the action's id.
    journal: Option<(PathBuf, String)>,
    /// The originals file and its length so far.
    file: std::sync::Mutex<(std::fs::File, u64)>,
}

impl Spool {
    fn create(journal: Option<(&Locked<'_>, &str)>) -> Result<Self> {
        let (journal, file) = match journal {
            Some((store, id)) => {
                let order = store.next_order()?;
                let dir = store.journal_dir().join(format!("{order:020}-{id}"));
                std::fs::create_dir_all(&dir).map_err(|e| journal_err(&dir, e))?;
                let p = dir.join(ORIGINALS);
                let file = std::fs::File::options()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(&p)
                    .map_err(|e| journal_err(&p, e))?;
                (Some((dir, id.to_string())), file)
            }
            None => (None, tempfile::tempfile().map_err(|e| Error::ApplyFailed(format!("cannot create a temp file for the originals: {e}")))?),
        };
        Ok(Spool { journal, file: std::sync::Mutex::new((file, 0)) })
    }

    fn append(&self, bytes: &[u8]) -> Result<(u64, usize)> {
        use std::io::{Seek, SeekFrom};
        let mut g = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let at = g.1;
        let r = g.0.seek(SeekFrom::Start(at)).and_then(|_| g.0.write_all(bytes));
        r.map_err(|e| Error::ApplyFailed(format!("cannot save the original bytes for undo: {e}; nothing was written")))?;
        g.1 += bytes.len() as u64;
        Ok((at, bytes.len()))
    }

    fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut g = self.file.lock().unwrap_or_else(|e| e.into_inner());
        g.0.seek(SeekFrom::Start(offset))?;
        let mut buf = vec![0; len];
        g.0.read_exact(&mut buf)?;
        Ok(buf)
    }

    /// Nothing will be renamed: drop the record's folder.
    fn abandon(&self) {
        if let Some((dir, _)) = &self.journal {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Makes the journal record durable before the first rename: originals
    /// fsynced, then the in-flight marker, then the record naming every file.
    fn commit(&self, staged: &[Prepared<'_>]) -> Result<Option<PathBuf>> {
        let Some((dir, id)) = &self.journal else { return Ok(None) };
        let p = dir.join(ORIGINALS);
        self.file.lock().unwrap_or_else(|e| e.into_inner()).0.sync_all().map_err(|e| journal_err(&p, e))?;
        let files = staged
            .iter()
            .map(|s| JournalFile {
                path: s.plan.path.clone(),
                abs: s.plan.abs.clone(),
                written_digest: s.plan.new_digest.clone(),
                original_digest: s.plan.digest.clone(),
                offset: s.offset as usize,
                len: s.len,
                written_len: Some(s.new_len),
                temp: s.tmp.to_path_buf(),
            })
            .collect();
        let marker = dir.join(INFLIGHT);
        std::fs::write(&marker, b"").map_err(|e| journal_err(&marker, e))?;
        let rec = JournalRecord { id: id.clone(), files };
        let p = dir.join("record.json");
        write_atomic(&p, &serde_json::to_vec(&rec).expect("serializes")).map_err(|e| journal_err(&p, e))?;
        Ok(Some(dir.clone()))
    }
}

/// Test-only fault injection: `AST_EDIT_FAIL_RENAME_AT=k` makes the k-th rename
/// (1-based) of an apply fail, to prove the rollback. Compiled in debug builds only.
fn injected_rename_failure(k: usize) -> bool {
    if cfg!(debug_assertions)
        && let Some(v) = std::env::var_os("AST_EDIT_FAIL_RENAME_AT")
    {
        return v.to_str().and_then(|s| s.parse::<usize>().ok()) == Some(k);
    }
    false
}

/// Applies `plan`. `journal` receives the undo record of what was written.
pub fn apply_plan(plan: &Plan, opts: &ApplyOptions, journal: Option<(&Locked<'_>, &str)>) -> Result<ApplyReport> {
    opts.check_paths(plan)?;
    let (selected, mut outstanding) = select(plan, opts)?;
    if !opts.allow_syntax_errors {
        syntax_guard(&selected)?;
    }
    if !opts.allow_structure_changes {
        structure_guard(&selected)?;
    }
    if !opts.allow_template_mismatch {
        template_guard(&selected)?;
    }
    let spool = Spool::create(journal)?;
    let (staged, left) = match prepare_all(plan, &selected, opts, &spool) {
        Ok(s) => s,
        Err(e) => {
            spool.abandon();
            return Err(e);
        }
    };
    for (f, reason, refused) in &left {
        let status = if *refused { OutstandingStatus::Failed } else { OutstandingStatus::Stale };
        outstanding.push(Outstanding { path: f.path.clone(), status, reason: reason.clone() });
    }
    // Journal before the first rename: the originals (fsynced), and the temp files
    // in flight, so that a run killed half-way can be cleaned up and undone by the
    // next one.
    let jdir = if staged.is_empty() {
        spool.abandon();
        None
    } else {
        spool.commit(&staged)?
    };
    let done = rename_all(staged, &spool, jdir.as_deref(), opts.front)?;
    let mut files = verify_written(&done, &mut outstanding);
    if let Some(d) = &jdir {
        std::fs::remove_file(d.join(INFLIGHT)).map_err(|e| journal_err(d, e))?;
    }
    let applied: Vec<&AppliedFile> = files.iter().filter(|f| f.status == FileStatus::Applied).collect();
    let total = applied.iter().map(|f| f.replacements).sum();
    let touched = applied.len();
    for (s, _, refused) in &left {
        let status = if *refused { FileStatus::Failed } else { FileStatus::Stale };
        files.push(AppliedFile { path: s.path.clone(), replacements: s.edits.len(), status, diff: s.diff.clone() });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    outstanding.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ApplyReport {
        status: if outstanding.is_empty() { ApplyStatus::Applied } else { ApplyStatus::Incomplete },
        applied: touched > 0,
        total_replacements: total,
        files_touched: touched,
        files,
        outstanding,
    })
}

/// The files of `plan` to apply (all, or those named in `opts.only`, less those
/// in `opts.exclude` and, with `opts.skip_flagged`, those whose rewrite adds
/// syntax errors or moves code in the syntax tree), and a `not_selected` entry in `outstanding` for each file
/// left out, with the first of those reasons that applies.
fn select<'p>(plan: &'p Plan, opts: &ApplyOptions) -> Result<(Vec<&'p FilePlan>, Vec<Outstanding>)> {
    if let Some(only) = &opts.only {
        check_only(plan, only)?;
    }
    let mut selected = Vec::new();
    let mut left_out = Vec::new();
    for f in &plan.files {
        let reason = if opts.only.as_ref().is_some_and(|only| !only.contains(&f.path)) {
            NOT_IN_FILES
        } else if opts.exclude.contains(&f.path) {
            EXCLUDED
        } else if opts.skip_flagged && f.syntax_errors_introduced() {
            FLAGGED
        } else if opts.skip_flagged && f.structure_changed {
            MOVED
        } else if opts.skip_flagged && f.template_mismatch {
            MISMATCHED
        } else {
            selected.push(f);
            continue;
        };
        left_out.push(Outstanding { path: f.path.clone(), status: OutstandingStatus::NotSelected, reason: reason.into() });
    }
    Ok((selected, left_out))
}

/// Fails the apply when `extra.files` names a path that is not in the action.
fn check_only(plan: &Plan, only: &[String]) -> Result<()> {
    let unknown: Vec<&String> = only.iter().filter(|p| !plan.files.iter().any(|f| &f.path == *p)).collect();
    if !unknown.is_empty() {
        return Err(Error::ApplyFailed(format!(
            "extra.files names {} not in this action; its files are: {}",
            unknown.iter().map(|s| display_name(s)).collect::<Vec<_>>().join(", "),
            plan.files.iter().map(|f| display_name(&f.path)).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// Refuses files whose rewrite adds syntax errors.
fn syntax_guard(selected: &[&FilePlan]) -> Result<()> {
    let bad: Vec<_> = selected.iter().filter(|f| f.syntax_errors_introduced()).map(|f| display_name(&f.path)).collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::ApplyFailed(format!(
        "the rewrite introduces syntax errors in {}: {}; fix the pattern, leave them out with extra {{\"skipFlagged\": true}} (or {{\"exclude\": [...]}}), or pass extra {{\"allowSyntaxErrors\": true}}",
        plural(bad.len(), "file"),
        bad.join(", ")
    )))
}

/// Refuses files whose rewrite moves code in the syntax tree (docs/DESIGN.md
/// section 2.5.10), naming each with its first listed change.
fn structure_guard(selected: &[&FilePlan]) -> Result<()> {
    let bad: Vec<_> = selected
        .iter()
        .filter(|f| f.structure_changed)
        .map(|f| match f.structure_changes.first() {
            Some(c) => format!("{}:{} ({})", display_name(&f.path), c.line, c.message),
            None => display_name(&f.path).to_string(),
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::ApplyFailed(format!(
        "the rewrite moves code in the syntax tree outside the replaced text in {}: {}; fix the pattern or the rewrite, leave them out with extra {{\"skipFlagged\": true}} (or {{\"exclude\": [...]}}), or pass extra {{\"allowStructureChanges\": true}}",
        plural(bad.len(), "file"),
        bad.join(", ")
    )))
}

/// Refuses files whose rewrite does not say what its template says
/// (docs/DESIGN.md section 2.5.9), naming each with its first listed edit.
fn template_guard(selected: &[&FilePlan]) -> Result<()> {
    let bad: Vec<_> = selected
        .iter()
        .filter(|f| f.template_mismatch)
        .map(|f| match f.template_mismatches.first() {
            Some(c) => format!("{}:{} ({})", display_name(&f.path), c.line, c.message),
            None => display_name(&f.path).to_string(),
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::ApplyFailed(format!(
        "the rewrite does not say what the template says in {}: {}; fix the rewrite (ast-grep's text substitution glues these tokens too), leave them out with extra {{\"skipFlagged\": true}} (or {{\"exclude\": [...]}}), or pass extra {{\"allowTemplateMismatch\": true}}",
        plural(bad.len(), "file"),
        bad.join(", ")
    )))
}

/// A selected file left unwritten: the file, the reason, and whether it was
/// refused (`failed`) rather than found stale.
type Left<'p> = (&'p FilePlan, String, bool);

/// Freshness, re-run and staging in one parallel pass (`plan::largest_first`,
/// as the dry run schedules it, by the planned sizes): checks each selected file
/// ([`check_fresh`]: a size other than the planned one is stale without a read),
/// re-runs the rewrite (it must reproduce the plan) and stages the new file. Each
/// original goes to the spool (the journal's originals.bin) and is dropped, so
/// memory holds the files in flight, not every original. Nothing is renamed here.
/// Returns the staged files and the files left (stale or refused), in path order;
/// any file left is an error unless `opts.skip_stale`.
fn prepare_all<'p>(plan: &Plan, selected: &[&'p FilePlan], opts: &ApplyOptions, spool: &Spool) -> Result<(Vec<Prepared<'p>>, Vec<Left<'p>>)> {
    let mut langs: Vec<_> = Vec::new();
    for f in selected {
        let l = lang::parse_lang(&f.lang)?;
        if !langs.contains(&l) {
            langs.push(l);
        }
    }
    let engine = if opts.trust_plan { None } else { Some(Engine::new(&plan.request, langs, &plan.cwd)?) };
    // Back in path order, so the journal, the renames and the error reported do
    // not depend on the scheduling.
    let results: Vec<Result<Outcome>> = crate::plan::largest_first(
        selected,
        |f| if f.size > 0 { f.size } else { std::fs::metadata(&f.abs).map_or(0, |m| m.len()) },
        |f| match check_fresh(f, plan.request.max_filesize) {
            Ok((original, meta)) => prepare_file(f, &original, &meta, engine.as_ref(), plan, spool),
            Err(left) => Ok(left),
        },
    );
    let mut staged = Vec::new();
    let mut left = Vec::new();
    for (r, f) in results.into_iter().zip(selected) {
        match r? {
            Outcome::Staged(p) => staged.push(p),
            Outcome::Stale(reason) => left.push((*f, reason, false)),
            Outcome::Refused(reason) => left.push((*f, reason, true)),
        }
    }
    if !left.is_empty() && !opts.skip_stale {
        return Err(Error::ApplyFailed(not_written_message(&left)));
    }
    Ok((staged, left))
}

/// The failure of an apply that found files it cannot write (and no
/// `stale: "skip"`). With stale files only, the exact text of docs/DESIGN.md
/// §5.3 (a reason other than "changed" or "deleted" follows its path).
fn not_written_message(left: &[Left<'_>]) -> String {
    let list = |refused: bool| -> Vec<String> {
        left.iter()
            .filter(|l| l.2 == refused)
            .map(|(f, reason, _)| {
                if !refused && (reason == CHANGED || reason == DELETED) { display_name(&f.path).into_owned() } else { format!("{} ({reason})", display_name(&f.path)) }
            })
            .collect()
    };
    let (stale, refused) = (list(false), list(true));
    let mut parts = Vec::new();
    if !stale.is_empty() {
        parts.push(format!("{} changed since the preview: {}", plural(stale.len(), "file"), stale.join(", ")));
    }
    if !refused.is_empty() {
        parts.push(format!("{} cannot be written safely: {}", plural(refused.len(), "file"), refused.join(", ")));
    }
    let todo = match (stale.is_empty(), refused.is_empty()) {
        (_, true) => "discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the unchanged files",
        (true, false) => "pass extra {\"stale\":\"skip\"} to apply the other files and leave these out",
        (false, false) => "discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the other files",
    };
    format!("{}. Nothing was written; {todo}", parts.join("; "))
}

/// Renames every staged file over its target, in order; on a failure, puts back
/// the files already renamed (from the spool, each checked against its original
/// digest, with its original mode, owner and group) and fails. Returns what was
/// renamed, with the length written.
fn rename_all<'p>(staged: Vec<Prepared<'p>>, spool: &Spool, jdir: Option<&Path>, front: Front) -> Result<Vec<(&'p FilePlan, u64)>> {
    let mut done: Vec<Renamed<'p>> = Vec::new();
    for (k, s) in staged.into_iter().enumerate() {
        let Prepared { plan, offset, len, new_len, tmp, kept } = s;
        let result = if injected_rename_failure(k + 1) {
            Err(std::io::Error::other("injected rename failure (AST_EDIT_FAIL_RENAME_AT)"))
        } else {
            tmp.persist(&plan.abs).map_err(|e| e.error)
        };
        if let Err(e) = result {
            let mut restore_errors = Vec::new();
            for d in done.iter().rev() {
                if let Err(re) = put_back(spool, d) {
                    restore_errors.push(format!("{}: {re}", display_name(&d.plan.path)));
                }
            }
            let mut msg = format!("cannot write {}: {e}; ", display_name(&plan.path));
            if restore_errors.is_empty() {
                msg.push_str("every file already written was restored, nothing changed");
                if let Some(d) = jdir {
                    let _ = std::fs::remove_dir_all(d);
                }
            } else {
                msg.push_str(&format!("restoring failed for {} (run {} to retry)", restore_errors.join(", "), front.name(Name::Undo)));
                if let Some(d) = jdir {
                    let _ = std::fs::remove_file(d.join(INFLIGHT));
                }
            }
            return Err(Error::ApplyFailed(msg));
        }
        injected_pause(k + 1);
        done.push(Renamed { plan, offset, len, new_len, kept });
    }
    Ok(done.into_iter().map(|d| (d.plan, d.new_len)).collect())
}

/// A file renamed into place: what a rollback needs to put its original back.
struct Renamed<'p> {
    plan: &'p FilePlan,
    offset: u64,
    len: usize,
    new_len: u64,
    kept: Kept,
}

/// Rollback of one renamed file: its original from the spool, checked against
/// the preview digest, written back with the original's mode, owner and group.
fn put_back(spool: &Spool, d: &Renamed<'_>) -> std::result::Result<(), String> {
    let orig = spool.read(d.offset, d.len).map_err(|e| e.to_string())?;
    if engine::digest(&orig) != d.plan.digest {
        return Err("the saved copy of the original is corrupted (digest mismatch)".into());
    }
    atomic::replace_keeping(&d.plan.abs, &orig, &d.kept).map_err(|e| e.to_string())
}

/// Verify after write, not trusting our own counters: re-reads every written
/// file (no more than its written length) and checks it against the planned digest.
fn verify_written(done: &[(&FilePlan, u64)], outstanding: &mut Vec<Outstanding>) -> Vec<AppliedFile> {
    let verified: Vec<bool> = done
        .par_iter()
        .map(|(f, len)| read_if_size(&f.abs, &[*len]).is_ok_and(|(b, _)| engine::digest(&b) == f.new_digest))
        .collect();
    let mut files = Vec::new();
    for ((f, _), ok) in done.iter().zip(verified) {
        let status = if ok { FileStatus::Applied } else { FileStatus::Failed };
        files.push(AppliedFile { path: f.path.clone(), replacements: f.edits.len(), status, diff: f.diff.clone() });
        if !ok {
            outstanding.push(Outstanding {
                path: f.path.clone(),
                status: OutstandingStatus::Failed,
                reason: "after writing, the file does not hold the planned bytes (changed by another process?)".into(),
            });
        }
    }
    files
}

/// An undo record.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JournalRecord {
    id: String,
    files: Vec<JournalFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct JournalFile {
    path: String,
    abs: PathBuf,
    /// Digest of what apply wrote: undo restores only where the file still has it.
    written_digest: String,
    /// Digest of the bytes before the apply.
    original_digest: String,
    /// Where the original bytes sit in the record's `originals.bin`.
    offset: usize,
    /// How many bytes.
    len: usize,
    /// How many bytes apply wrote (absent in records of older builds): a file of
    /// another size is not read to find it changed.
    #[serde(default)]
    written_len: Option<u64>,
    /// The temp file staged for it (removed by `recover` if a crash left it).
    temp: PathBuf,
}

fn journal_err(path: &Path, e: std::io::Error) -> Error {
    Error::Store { path: path.to_path_buf(), message: format!("cannot write the undo journal: {e}") }
}

/// Marker file of a journal record whose apply has not finished.
const INFLIGHT: &str = "inflight";

/// The file of a journal record holding every original, back to back.
const ORIGINALS: &str = "originals.bin";

/// Test-only: `AST_EDIT_PAUSE_AFTER_RENAME=k` stops after the k-th rename, for a
/// minute or `AST_EDIT_PAUSE_MS` milliseconds, so a test can kill the process (or
/// close an MCP server's stdin) in the middle of an apply. Debug builds only.
fn injected_pause(k: usize) {
    if cfg!(debug_assertions)
        && std::env::var("AST_EDIT_PAUSE_AFTER_RENAME").ok().and_then(|s| s.parse::<usize>().ok()) == Some(k)
    {
        let ms = std::env::var("AST_EDIT_PAUSE_MS").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60_000);
        eprintln!("paused after rename {k}");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// The journal's records, oldest first: by the order their folder name starts
/// with (`{order:020}-{id}`; folders from before the pending format's version 1
/// are `{seq:012}-{id}`, whose small numbers sort before every order), then by name.
fn journal_records(store: &Locked<'_>) -> Result<Vec<PathBuf>> {
    let jdir = store.journal_dir();
    let mut records: BTreeMap<(u64, String), PathBuf> = BTreeMap::new();
    for e in std::fs::read_dir(&jdir).map_err(|e| journal_err(&jdir, e))?.flatten() {
        if e.path().join("record.json").is_file() {
            let name = e.file_name().to_string_lossy().into_owned();
            records.insert((crate::store::pending_format::journal_order(&name).unwrap_or(0), name), e.path());
        }
    }
    Ok(records.into_values().collect())
}

fn read_record(dir: &Path) -> Result<JournalRecord> {
    let rp = dir.join("record.json");
    serde_json::from_slice(&std::fs::read(&rp).map_err(|e| journal_err(&rp, e))?)
        .map_err(|e| Error::Store { path: rp.clone(), message: format!("unreadable undo record: {e}") })
}

/// How many written paths the interrupted-apply warning of [`recover`] names;
/// the rest are counted (`and <n> more`). See docs/DESIGN.md §7.
pub const MAX_LISTED_WRITTEN: usize = 10;

/// The sizes at which a journalled file is worth reading to compare it with its
/// written bytes and / or its original bytes; empty (any size) for records of
/// older builds, which do not have the written length.
fn sizes_of(f: &JournalFile, written: bool, original: bool) -> Vec<u64> {
    let Some(w) = f.written_len else { return Vec::new() };
    let mut sizes = Vec::new();
    if written {
        sizes.push(w);
    }
    if original {
        sizes.push(f.len as u64);
    }
    sizes
}

/// Cleans up after an apply that was killed half-way: removes its temp files and
/// turns its journal into a normal undo record. Returns one message per interrupted
/// apply, for the caller to show. Every whole file is either the old or the new one
/// (renames are atomic); the messages say how many were written and name the
/// first [`MAX_LISTED_WRITTEN`].
pub fn recover(store: &Locked<'_>) -> Result<Vec<String>> {
    let mut msgs = Vec::new();
    for dir in journal_records(store)? {
        if !dir.join(INFLIGHT).exists() {
            continue;
        }
        let rec = read_record(&dir)?;
        let mut removed = 0;
        let mut written = Vec::new();
        for f in &rec.files {
            if f.temp.exists() && std::fs::remove_file(&f.temp).is_ok() {
                removed += 1;
            }
            if read_if_size(&f.abs, &sizes_of(f, true, false)).is_ok_and(|(b, _)| engine::digest(&b) == f.written_digest) {
                written.push(f.path.as_str());
            }
        }
        std::fs::remove_file(dir.join(INFLIGHT)).map_err(|e| journal_err(&dir, e))?;
        let mut names = written.iter().take(MAX_LISTED_WRITTEN).map(|p| display_name(p)).collect::<Vec<_>>().join(", ");
        if written.is_empty() {
            names = "none".into();
        } else if written.len() > MAX_LISTED_WRITTEN {
            names.push_str(&format!(" and {} more", written.len() - MAX_LISTED_WRITTEN));
        }
        msgs.push(format!(
            "an earlier apply of {} was interrupted: {} of {} written ({names}), {} removed; run `ast-edit undo` to restore them",
            rec.id,
            written.len(),
            plural(rec.files.len(), "file"),
            plural(removed, "leftover temp file"),
        ));
    }
    Ok(msgs)
}

/// Result of `undo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoReport {
    /// The action undone.
    pub id: String,
    /// `restored` or `incomplete`.
    pub status: UndoStatus,
    /// Files now holding their original bytes: those put back, and those that
    /// already held them (never written by an interrupted apply, or put back since).
    pub restored: Vec<String>,
    /// Files left alone, with reasons.
    pub outstanding: Vec<Outstanding>,
    /// The files of `restored` that already held their original bytes and were
    /// not written: counted apart in the text, not a key of the JSON.
    #[serde(skip)]
    pub unchanged: Vec<String>,
}

impl UndoReport {
    /// The result text.
    pub fn text(&self) -> String {
        let unchanged: std::collections::HashSet<&String> = self.unchanged.iter().collect();
        let put_back: Vec<&String> = self.restored.iter().filter(|r| !unchanged.contains(r)).collect();
        let mut s = format!("Undid {}: restored {}", self.id, plural(put_back.len(), "file"));
        match self.unchanged.len() {
            0 => {}
            1 => s.push_str("; 1 file already held its original bytes (never written, or put back since) and was left as it is"),
            n => s.push_str(&format!(
                "; {n} files already held their original bytes (never written, or put back since) and were left as they are"
            )),
        }
        s.push('.');
        for r in put_back {
            s.push_str(&format!("\n  restored {}", display_name(r)));
        }
        for o in &self.outstanding {
            s.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
        }
        s
    }
}

/// The result of `undo` as both front ends report it: `{content, isError,
/// details}` (the shape of a resolve result).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoResult {
    /// The result text.
    pub content: String,
    /// True when there was nothing to undo.
    pub is_error: bool,
    /// The report, when something was undone.
    pub details: Option<UndoReport>,
}

impl UndoResult {
    /// Undoes the last applied action (see [`undo`]).
    pub fn run(store: &Locked<'_>) -> Result<Self> {
        Ok(match undo(store)? {
            None => UndoResult {
                content: "Nothing to undo: no applied action in the journal.".into(),
                is_error: true,
                details: None,
            },
            Some(r) => UndoResult { content: r.text(), is_error: false, details: Some(r) },
        })
    }

    /// Exit code: 0 restored, 1 nothing to undo, 3 some files left alone.
    pub fn exit_code(&self) -> i32 {
        match &self.details {
            None => 1,
            Some(r) if r.status == UndoStatus::Restored => 0,
            Some(_) => 3,
        }
    }
}

/// The id of the action that [`undo`] would undo next and the absolute paths of
/// its files, changing nothing (the MCP server checks them before it undoes);
/// `None` when there is nothing to undo.
pub fn last_applied(store: &Locked<'_>) -> Result<Option<(String, Vec<PathBuf>)>> {
    let Some(dir) = journal_records(store)?.pop() else { return Ok(None) };
    let rec = read_record(&dir)?;
    Ok(Some((rec.id, rec.files.into_iter().map(|f| f.abs).collect())))
}

/// Restores the files of the last applied action, where they still hold the bytes
/// apply wrote: each original is read from the journal and checked against its
/// recorded digest first, and written back keeping the file's mode, owner and
/// group. Returns `Ok(None)` when there is nothing to undo.
pub fn undo(store: &Locked<'_>) -> Result<Option<UndoReport>> {
    let Some(dir) = journal_records(store)?.pop() else { return Ok(None) };
    let rec = read_record(&dir)?;
    let mut originals = std::fs::File::open(dir.join(ORIGINALS)).and_then(|f| Ok((f.metadata()?.len(), f)));
    let mut restored = Vec::new();
    let mut unchanged = Vec::new();
    let mut outstanding = Vec::new();
    for f in &rec.files {
        let left = |reason: String| Outstanding { path: f.path.clone(), status: OutstandingStatus::Stale, reason };
        let (current, meta) = match read_if_size(&f.abs, &sizes_of(f, true, true)) {
            Ok(c) => c,
            Err(true) => {
                outstanding.push(left("deleted since the apply; left alone".into()));
                continue;
            }
            Err(false) => {
                outstanding.push(left("changed since the apply; left alone".into()));
                continue;
            }
        };
        let now = engine::digest(&current);
        if now == f.original_digest {
            // Never written (an interrupted apply) or already put back.
            restored.push(f.path.clone());
            unchanged.push(f.path.clone());
            continue;
        }
        if now != f.written_digest {
            outstanding.push(left("changed since the apply; left alone".into()));
            continue;
        }
        let restore = match originals.as_mut() {
            Err(e) => Err(format!("cannot read the undo journal: {e}")),
            Ok((size, blob)) => restore_one(blob, *size, f, &meta),
        };
        match restore {
            Ok(()) => restored.push(f.path.clone()),
            Err(reason) => outstanding.push(Outstanding { path: f.path.clone(), status: OutstandingStatus::Failed, reason }),
        }
    }
    // The action's resolved record (a pending action's; `run -U` and `review` have
    // none) says it was undone. Before the journal record goes: if this fails, the
    // next undo finds the files restored and tries again. A record that cannot be
    // read is left as it is.
    if let Ok(Some(_)) = store.resolution(&rec.id) {
        store.mark(&rec.id, Resolution::Undone)?;
    }
    std::fs::remove_dir_all(&dir).map_err(|e| journal_err(&dir, e))?;
    Ok(Some(UndoReport {
        id: rec.id,
        status: if outstanding.is_empty() { UndoStatus::Restored } else { UndoStatus::Incomplete },
        restored,
        outstanding,
        unchanged,
    }))
}

/// Puts one file back from the journal's `originals.bin` (`blob`, of `size`
/// bytes): the saved bytes must have the recorded original digest, and the file (which holds what
/// apply wrote, `meta`) must have a single link; the original gets the file's
/// current mode, owner and group (those apply kept).
fn restore_one(blob: &mut std::fs::File, size: u64, f: &JournalFile, meta: &std::fs::Metadata) -> std::result::Result<(), String> {
    use std::io::{Read, Seek, SeekFrom};
    // Only this file's bytes, checked against the journal's size first (a damaged
    // record's length allocates nothing).
    if (f.offset as u64).checked_add(f.len as u64).is_none_or(|end| end > size) {
        return Err("the undo journal is truncated; left as it is".into());
    }
    let mut orig = vec![0; f.len];
    blob.seek(SeekFrom::Start(f.offset as u64)).and_then(|_| blob.read_exact(&mut orig)).map_err(|e| e.to_string())?;
    if engine::digest(&orig) != f.original_digest {
        return Err("the undo journal's copy of this file is corrupted (digest mismatch); left as it is".into());
    }
    if let Some(reason) = hard_links(meta, "restoring") {
        return Err(format!("{reason}; left as it is"));
    }
    atomic::replace_keeping(&f.abs, &orig, &Kept::of(meta)).map_err(|e| e.to_string())
}
impl crate::plan::preview::PreviewDetails {
    /// Records what `run -U` did: its status, and each outstanding file as a
    /// warning.
    pub fn record_apply(&mut self, report: &ApplyReport) {
        self.status = match report.status {
            ApplyStatus::Applied => crate::shared::status::PreviewStatus::Applied,
            ApplyStatus::Incomplete => crate::shared::status::PreviewStatus::Incomplete,
        };
        self.applied = report.applied;
        for o in &report.outstanding {
            self.warnings.push(format!("{}: {} ({})", o.path, o.reason, o.status));
        }
    }
}

