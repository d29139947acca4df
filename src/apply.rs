//! The only code that writes source files: applies a [`Plan`] under the "verify,
//! don't trust" rules of docs/DESIGN.md section 4.3, and undoes the last apply.
//!
//! 1. Re-read every selected file and compare with the preview digest (a vanished
//!    file is stale too). Default: any stale file aborts the whole apply.
//! 2. Re-run the rewrite on the fresh bytes; the result must equal the plan.
//! 3. Stage every new file (temp in the same folder, mode kept, fsync) before the
//!    first rename; if a rename fails, put back the files already renamed.
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
use tempfile::NamedTempFile;

use crate::engine::{self, Engine};
use crate::error::{Error, Result};
use crate::lang;
use crate::atomic::write_atomic;
use crate::pending::{Locked, Resolution};
use crate::plan::{FilePlan, Plan};
use crate::status::{ApplyStatus, FileStatus, OutstandingStatus, UndoStatus};
use crate::text::plural;

/// Options taken from `resolve`'s `extra`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Write the fresh files and report stale ones (`extra.stale = "skip"`).
    pub skip_stale: bool,
    /// Apply only these display paths (`extra.files`).
    pub only: Option<Vec<String>>,
    /// Apply files whose rewrite adds syntax errors (`extra.allowSyntaxErrors`).
    pub allow_syntax_errors: bool,
    /// Build the new text by splicing the planned edits onto the verified bytes
    /// instead of re-running the rewrite: for `run -U` and `-i`, whose plan this
    /// same process made moments before. `resolve apply` always re-runs.
    pub trust_plan: bool,
}

impl ApplyOptions {
    /// Reads the options from `extra` (a JSON object). Unknown keys are allowed
    /// (they belong to other producers), but known keys must have the right type.
    pub fn from_extra(extra: Option<&serde_json::Value>) -> Result<Self> {
        let mut o = ApplyOptions::default();
        let Some(extra) = extra else { return Ok(o) };
        let obj = extra.as_object().ok_or_else(|| Error::bad("extra must be a JSON object, for example {\"stale\":\"skip\"}"))?;
        if let Some(v) = obj.get("stale") {
            o.skip_stale = match v.as_str() {
                Some("skip") => true,
                Some("abort") => false,
                _ => return Err(Error::bad("extra.stale must be \"skip\" or \"abort\"")),
            };
        }
        if let Some(v) = obj.get("files") {
            let arr = v.as_array().ok_or_else(|| Error::bad("extra.files must be an array of paths"))?;
            let mut files = Vec::new();
            for f in arr {
                files.push(f.as_str().ok_or_else(|| Error::bad("extra.files must be an array of paths"))?.to_string());
            }
            o.only = Some(files);
        }
        if let Some(v) = obj.get("allowSyntaxErrors") {
            o.allow_syntax_errors = v.as_bool().ok_or_else(|| Error::bad("extra.allowSyntaxErrors must be true or false"))?;
        }
        Ok(o)
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
            s.push_str(&format!("\n  {:<8} {} ({})", f.status, f.path, plural(f.replacements, "replacement")));
        }
        if !self.outstanding.is_empty() {
            s.push_str(&format!("\nIncomplete: {} not applied:", plural(self.outstanding.len(), "file")));
            for o in &self.outstanding {
                s.push_str(&format!("\n  {:<8} {}: {}", o.status, o.path, o.reason));
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
    /// The new file, staged beside the target (renamed over it at commit).
    tmp: tempfile::TempPath,
}

/// Re-runs the rewrite on one fresh file, checks it reproduces the preview,
/// stages the new bytes beside the target and spools the original.
fn prepare_file<'p>(
    f: &'p FilePlan,
    original: &[u8],
    engine: Option<&Engine>,
    plan: &Plan,
    spool: &Spool,
) -> Result<Prepared<'p>> {
    let new = match engine {
        None => engine::splice(original, &f.edits),
        Some(engine) => {
            let lang = lang::parse_lang(&f.lang)?;
            let text = engine::check_text(original).map_err(|s| Error::ApplyFailed(format!("{}: {}", f.path, s.0)))?;
            let opts = engine::RewriteOptions { prefilter: !plan.request.no_prefilter, check_syntax: false };
            engine::rewrite(&engine.ops_for(lang, &f.abs), lang, text, opts).map(|r| r.new_text).unwrap_or_default()
        }
    };
    if engine::digest(&new) != f.new_digest {
        return Err(Error::ApplyFailed(format!(
            "re-running the edit on {} did not reproduce the preview (was ast-edit upgraded in between?); nothing was written. Discard this action and preview again",
            f.path
        )));
    }
    let tmp = temp_beside(&f.abs, &new)
        .map_err(|e| Error::ApplyFailed(format!("cannot stage the new {}: {e}; nothing was written", f.path)))?
        .into_temp_path();
    let (offset, len) = spool.append(original)?;
    Ok(Prepared { plan: f, offset, len, tmp })
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

fn read_current(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
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
    let (selected, mut outstanding) = select(plan, opts.only.as_deref())?;
    if !opts.allow_syntax_errors {
        syntax_guard(&selected)?;
    }
    let spool = Spool::create(journal)?;
    let (staged, stale) = match prepare_all(plan, &selected, opts, &spool) {
        Ok(s) => s,
        Err(e) => {
            spool.abandon();
            return Err(e);
        }
    };
    for f in &stale {
        let reason = if f.abs.exists() { "changed since the preview" } else { "deleted since the preview" };
        outstanding.push(Outstanding { path: f.path.clone(), status: OutstandingStatus::Stale, reason: reason.into() });
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
    let done = rename_all(staged, &spool, jdir.as_deref())?;
    let mut files = verify_written(&done, &mut outstanding);
    if let Some(d) = &jdir {
        std::fs::remove_file(d.join(INFLIGHT)).map_err(|e| journal_err(d, e))?;
    }
    let applied: Vec<&AppliedFile> = files.iter().filter(|f| f.status == FileStatus::Applied).collect();
    let total = applied.iter().map(|f| f.replacements).sum();
    let touched = applied.len();
    for s in &stale {
        files.push(AppliedFile { path: s.path.clone(), replacements: s.edits.len(), status: FileStatus::Stale, diff: s.diff.clone() });
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

/// The files of `plan` to apply (all, or those named in `only`), and an
/// `outstanding` entry for each file left out.
fn select<'p>(plan: &'p Plan, only: Option<&[String]>) -> Result<(Vec<&'p FilePlan>, Vec<Outstanding>)> {
    let Some(only) = only else { return Ok((plan.files.iter().collect(), Vec::new())) };
    let unknown: Vec<&String> = only.iter().filter(|p| !plan.files.iter().any(|f| &f.path == *p)).collect();
    if !unknown.is_empty() {
        return Err(Error::ApplyFailed(format!(
            "extra.files names {} not in this action; its files are: {}",
            unknown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
            plan.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", ")
        )));
    }
    let left_out = plan.files.iter().filter(|f| !only.contains(&f.path)).map(|f| Outstanding {
        path: f.path.clone(),
        status: OutstandingStatus::NotSelected,
        reason: "not named in extra.files".into(),
    });
    Ok((plan.files.iter().filter(|f| only.contains(&f.path)).collect(), left_out.collect()))
}

/// Refuses files whose rewrite adds syntax errors.
fn syntax_guard(selected: &[&FilePlan]) -> Result<()> {
    let bad: Vec<&str> = selected.iter().filter(|f| f.syntax_errors_introduced()).map(|f| f.path.as_str()).collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::ApplyFailed(format!(
        "the rewrite introduces syntax errors in {}: {}; fix the pattern, leave the file out with extra {{\"files\": [...]}}, or pass extra {{\"allowSyntaxErrors\": true}}",
        plural(bad.len(), "file"),
        bad.join(", ")
    )))
}

/// Freshness, re-run and staging in one parallel pass (`plan::largest_first`,
/// as the dry run schedules it): re-reads each selected file, compares its
/// digest with the preview's, re-runs the rewrite (it must reproduce the plan)
/// and stages the new file. Each original goes to the spool (the journal's
/// originals.bin) and is dropped, so memory holds the files in flight, not every
/// original. Nothing is renamed here. Returns the staged files and the stale
/// ones, in path order; stale files are an error unless `opts.skip_stale`.
fn prepare_all<'p>(plan: &Plan, selected: &[&'p FilePlan], opts: &ApplyOptions, spool: &Spool) -> Result<(Vec<Prepared<'p>>, Vec<&'p FilePlan>)> {
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
    let results: Vec<Result<Option<Prepared>>> = crate::plan::largest_first(
        selected,
        |f| std::fs::metadata(&f.abs).map_or(0, |m| m.len()),
        |f| {
            let Some(original) = read_current(&f.abs).filter(|b| engine::digest(b) == f.digest) else {
                return Ok(None);
            };
            prepare_file(f, &original, engine.as_ref(), plan, spool).map(Some)
        },
    );
    let stale: Vec<&FilePlan> =
        results.iter().zip(selected).filter(|(r, _)| matches!(r, Ok(None))).map(|(_, f)| *f).collect();
    if !stale.is_empty() && !opts.skip_stale {
        return Err(Error::ApplyFailed(format!(
            "{} changed since the preview: {}",
            plural(stale.len(), "file"),
            stale.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", ")
        ) + ". Nothing was written; discard this action and preview again, or pass extra {\"stale\":\"skip\"} to apply the unchanged files"));
    }
    let staged = results.into_iter().filter_map(|r| r.transpose()).collect::<Result<Vec<_>>>()?;
    Ok((staged, stale))
}

/// Renames every staged file over its target, in order; on a failure, puts back
/// the files already renamed (from the spool) and fails. Returns what was renamed.
fn rename_all<'p>(staged: Vec<Prepared<'p>>, spool: &Spool, jdir: Option<&Path>) -> Result<Vec<&'p FilePlan>> {
    let mut done: Vec<(&FilePlan, u64, usize)> = Vec::new();
    for (k, s) in staged.into_iter().enumerate() {
        let result = if injected_rename_failure(k + 1) {
            Err(std::io::Error::other("injected rename failure (AST_EDIT_FAIL_RENAME_AT)"))
        } else {
            s.tmp.persist(&s.plan.abs).map_err(|e| e.error)
        };
        if let Err(e) = result {
            let mut restore_errors = Vec::new();
            for &(f, offset, len) in done.iter().rev() {
                if let Err(re) = spool.read(offset, len).and_then(|orig| write_atomic(&f.abs, &orig)) {
                    restore_errors.push(format!("{}: {re}", f.path));
                }
            }
            let mut msg = format!("cannot write {}: {e}; ", s.plan.path);
            if restore_errors.is_empty() {
                msg.push_str("every file already written was restored, nothing changed");
                if let Some(d) = jdir {
                    let _ = std::fs::remove_dir_all(d);
                }
            } else {
                msg.push_str(&format!("restoring failed for {} (run `ast-edit undo` to retry)", restore_errors.join(", ")));
                if let Some(d) = jdir {
                    let _ = std::fs::remove_file(d.join(INFLIGHT));
                }
            }
            return Err(Error::ApplyFailed(msg));
        }
        injected_pause(k + 1);
        done.push((s.plan, s.offset, s.len));
    }
    Ok(done.into_iter().map(|d| d.0).collect())
}

/// Verify after write, not trusting our own counters: re-reads every written
/// file and checks it against the planned digest.
fn verify_written(done: &[&FilePlan], outstanding: &mut Vec<Outstanding>) -> Vec<AppliedFile> {
    let verified: Vec<bool> =
        done.par_iter().map(|f| read_current(&f.abs).is_some_and(|b| engine::digest(&b) == f.new_digest)).collect();
    let mut files = Vec::new();
    for (f, ok) in done.iter().zip(verified) {
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

/// Writes `bytes` to a new temp file beside `target` with `target`'s mode, fsynced;
/// renamed over `target` later by [`rename_all`].
fn temp_beside(target: &Path, bytes: &[u8]) -> std::io::Result<NamedTempFile> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".ast-edit-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    let perms = std::fs::metadata(target)?.permissions();
    tmp.as_file().set_permissions(perms)?;
    tmp.as_file().sync_all()?;
    Ok(tmp)
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
            records.insert((crate::pending_format::journal_order(&name).unwrap_or(0), name), e.path());
        }
    }
    Ok(records.into_values().collect())
}

fn read_record(dir: &Path) -> Result<JournalRecord> {
    let rp = dir.join("record.json");
    serde_json::from_slice(&std::fs::read(&rp).map_err(|e| journal_err(&rp, e))?)
        .map_err(|e| Error::Store { path: rp.clone(), message: format!("unreadable undo record: {e}") })
}

/// Cleans up after an apply that was killed half-way: removes its temp files and
/// turns its journal into a normal undo record. Returns one message per interrupted
/// apply, for the caller to show. Every whole file is either the old or the new one
/// (renames are atomic); the messages say which were written.
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
            if read_current(&f.abs).is_some_and(|b| engine::digest(&b) == f.written_digest) {
                written.push(f.path.as_str());
            }
        }
        std::fs::remove_file(dir.join(INFLIGHT)).map_err(|e| journal_err(&dir, e))?;
        msgs.push(format!(
            "an earlier apply of {} was interrupted: {} of {} written ({}), {} removed; run `ast-edit undo` to restore them",
            rec.id,
            written.len(),
            plural(rec.files.len(), "file"),
            if written.is_empty() { "none".to_string() } else { written.join(", ") },
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
    /// Files restored.
    pub restored: Vec<String>,
    /// Files left alone, with reasons.
    pub outstanding: Vec<Outstanding>,
}

impl UndoReport {
    /// The result text.
    pub fn text(&self) -> String {
        let mut s = format!("Undid {}: restored {}.", self.id, plural(self.restored.len(), "file"));
        for r in &self.restored {
            s.push_str(&format!("\n  restored {r}"));
        }
        for o in &self.outstanding {
            s.push_str(&format!("\n  {:<8} {}: {}", o.status, o.path, o.reason));
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

/// Restores the files of the last applied action, where they still hold the bytes
/// apply wrote. Returns `Ok(None)` when there is nothing to undo.
pub fn undo(store: &Locked<'_>) -> Result<Option<UndoReport>> {
    let Some(dir) = journal_records(store)?.pop() else { return Ok(None) };
    let rec = read_record(&dir)?;
    let originals = std::fs::read(dir.join(ORIGINALS));
    let mut restored = Vec::new();
    let mut outstanding = Vec::new();
    for f in &rec.files {
        let current = read_current(&f.abs);
        let now = current.as_ref().map(|b| engine::digest(b));
        if now.as_deref() == Some(f.original_digest.as_str()) {
            // Never written (an interrupted apply) or already put back.
            restored.push(f.path.clone());
            continue;
        }
        if now.as_deref() != Some(f.written_digest.as_str()) {
            outstanding.push(Outstanding {
                path: f.path.clone(),
                status: OutstandingStatus::Stale,
                reason: if current.is_none() { "deleted since the apply; left alone".into() } else { "changed since the apply; left alone".into() },
            });
            continue;
        }
        let restore = originals.as_ref().map_err(|e| std::io::Error::new(e.kind(), e.to_string())).and_then(|blob| {
            let orig = blob.get(f.offset..f.offset + f.len).ok_or_else(|| std::io::Error::other("the undo journal is truncated"))?;
            let perms = std::fs::metadata(&f.abs)?.permissions();
            write_atomic(&f.abs, orig)?;
            std::fs::set_permissions(&f.abs, perms)
        });
        match restore {
            Ok(()) => restored.push(f.path.clone()),
            Err(e) => outstanding.push(Outstanding { path: f.path.clone(), status: OutstandingStatus::Failed, reason: e.to_string() }),
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
    }))
}
