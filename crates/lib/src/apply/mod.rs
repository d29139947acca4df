//! The only code that writes source files: applies a [`Plan`] under the "verify, don't
//! trust" rules of docs/DESIGN.md §4.3 (select, flag guard, stale check, new text by
//! splice or re-run, stage beside, journal, rename, verify after write), and undoes an
//! apply (§4.7: the caller's session's last one, or the one named by id). Each original
//! is spooled to the journal as its file is staged, never kept in memory.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::{self, Engine};
use crate::plan::{FilePlan, Plan};
use crate::request::lang;
use crate::shared::atomic::{self, Kept, StageError, write_atomic};
use crate::shared::error::{CHANGED_SINCE_PREVIEW, DELETED_SINCE_PREVIEW, Error, Refusal, RefusalCause, RefusedFile, Result};
use crate::shared::message::{Name, Text};
use crate::shared::quote::{display_name, escape_controls};
use crate::shared::status::Resolution;
use crate::shared::status::{ApplyStatus, FileStatus, OutstandingStatus, UndoStatus};
use crate::shared::text::plural;
use crate::store::pending::Locked;
use crate::store::session::Session;

mod fresh;
mod journal;
mod options;

pub use options::{selects, selects_none};
mod outcome;
mod undo;

use fresh::*;
pub(crate) use journal::recover;
use journal::*;
pub use journal::{Journalled, MAX_LISTED_WRITTEN};
pub use options::ApplyOptions;
pub use outcome::{AppliedFile, ApplyOutcome, Outstanding};
pub use undo::{NOTHING_TO_UNDO, UndoChoice, UndoOutcome, UndoResult, pick_undo, undo};

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
    /// The original's identity (device, inode), to find it the same file just
    /// before its rename.
    id: FileId,
}

/// What the apply makes of one selected file.
enum Outcome<'p> {
    /// Fresh, re-run and staged.
    Staged(Prepared<'p>),
    /// Not as previewed (changed, deleted, a symlink now): the reason.
    Stale(Stale),
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

/// Why a selected file is not as previewed: the stale reasons of
/// `outstanding` (docs/DESIGN.md §4.4).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stale {
    /// Its bytes (or its size) differ from the preview's.
    Changed,
    /// It is gone.
    Deleted,
    /// A symbolic link is at its path now.
    NowLink,
    /// Something other than a regular file is at its path now.
    NotRegular,
    /// It could not be read: the system's error.
    Unreadable(String),
    /// Another process wrote it after its stale check, while the apply ran
    /// (found before its rename, or after it on the old file held open): left
    /// as that process wrote it.
    ChangedDuring,
}

impl Stale {
    /// The reason as `outstanding` and the messages word it.
    fn text(&self) -> String {
        match self {
            Stale::Changed => CHANGED_SINCE_PREVIEW.to_string(),
            Stale::Deleted => DELETED_SINCE_PREVIEW.to_string(),
            Stale::NowLink => "now a symbolic link: writing would replace the link with a regular file".to_string(),
            Stale::NotRegular => "no longer a regular file".to_string(),
            Stale::Unreadable(e) => format!("unreadable: {e}"),
            Stale::ChangedDuring => "changed by another process during the apply: left as that process wrote it, not rewritten".to_string(),
        }
    }
}

/// Test-only fault injection: true when the environment variable `var` names
/// `k` (1-based): `AST_EDIT_FAIL_RENAME_AT=k` makes the k-th rename of an apply
/// fail, to prove the rollback; `AST_EDIT_FAIL_RESTORE_AT` the k-th file an
/// undo writes back (`undo.rs`); `AST_EDIT_PAUSE_AFTER_RENAME` pauses
/// (`journal.rs`). Only with the `fault-injection` feature.
pub(super) fn injected_at(var: &str, k: usize) -> bool {
    cfg!(feature = "fault-injection") && std::env::var(var).ok().and_then(|s| s.parse::<usize>().ok()) == Some(k)
}

/// Applies `plan`. `journal` receives the undo record of what was written.
pub fn apply_plan(plan: &Plan, opts: &ApplyOptions, journal: Option<(&Locked<'_>, &Journalled)>) -> Result<ApplyOutcome> {
    opts.check_paths(plan)?;
    let (selected, mut outstanding) = select(plan, opts)?;
    if selected.is_empty() && !plan.files.is_empty() {
        return Err(nothing_selected(&outstanding));
    }
    flag_guard(&selected, opts)?;
    let spool = Spool::create(journal)?;
    let (staged, left) = match prepare_all(plan, &selected, opts, &spool) {
        Ok(s) => s,
        Err(e) => {
            spool.abandon();
            return Err(e);
        }
    };
    // Journal before the first rename: the originals (fsynced), and the temp files
    // in flight, so that a run killed half-way can be cleaned up and undone by the
    // next one.
    let jdir = if staged.is_empty() {
        spool.abandon();
        None
    } else {
        spool.commit(&staged, plan.files.len())?
    };
    let (done, changed) = rename_all(staged, &spool, jdir.as_deref())?;
    let mut files = verify_written(&done, &mut outstanding);
    if let Some(d) = &jdir {
        // A file left as another process wrote it is not the apply's to undo;
        // one whose bytes could not be given back stays, so that `undo` can
        // still put its original back where the file holds the new bytes.
        let mut drop: Vec<&str> = changed.iter().filter(|(_, why)| why.is_ok()).map(|(f, _)| f.path.as_str()).collect();
        drop.sort_unstable();
        let d = drop_from_record(d, &drop)?;
        if let Some(d) = d {
            std::fs::remove_file(d.join(INFLIGHT)).map_err(|e| journal_err(&d, e))?;
        }
    }
    // The files left: stale or refused before the renames, or written by
    // another process during them.
    let left: Vec<Left<'_>> = left.into_iter().chain(changed).collect();
    for (f, why) in &left {
        let status = if why.is_ok() { OutstandingStatus::Stale } else { OutstandingStatus::Failed };
        outstanding.push(Outstanding { path: f.path.clone(), status, reason: why.as_ref().map_or_else(String::clone, Stale::text) });
    }
    let applied: Vec<&AppliedFile> = files.iter().filter(|f| f.status == FileStatus::Applied).collect();
    let total = applied.iter().map(|f| f.replacements).sum();
    let touched = applied.len();
    for (s, why) in &left {
        let status = if why.is_ok() { FileStatus::Stale } else { FileStatus::Failed };
        files.push(AppliedFile { path: s.path.clone(), replacements: s.replacements(), status, diff: s.diff.clone() });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    outstanding.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ApplyOutcome {
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
        let reason = if opts.only.as_ref().is_some_and(|only| !only.iter().any(|e| options::selects(e, &f.path))) {
            NOT_IN_FILES
        } else if opts.exclude.iter().any(|e| options::selects(e, &f.path)) {
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

/// The failure of an apply whose options leave out every file of its action:
/// writing nothing is no success (the action stays pending), and the text
/// counts the files by why each was left out.
fn nothing_selected(left_out: &[Outstanding]) -> Error {
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for o in left_out {
        match reasons.iter_mut().find(|(r, _)| *r == o.reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((&o.reason, 1)),
        }
    }
    let why: Vec<String> = reasons.iter().map(|(r, n)| format!("{}: {r}", plural(*n, "file"))).collect();
    Error::apply_failed(format!(
        "nothing was written: the options leave out every one of the {} of this action ({}). The action stays pending: apply it with other options, or discard it",
        plural(left_out.len(), "file"),
        why.join("; ")
    ))
}

/// Fails the apply when `extra.files` names a path that is not in the action.
fn check_only(plan: &Plan, only: &[String]) -> Result<()> {
    let unknown: Vec<&String> = only.iter().filter(|p| !plan.files.iter().any(|f| options::selects(p, &f.path))).collect();
    if !unknown.is_empty() {
        return Err(Error::apply_failed(format!(
            "extra.files names {} not in this action; its files are: {}",
            unknown.iter().map(|s| display_name(s)).collect::<Vec<_>>().join(", "),
            plan.files.iter().map(|f| display_name(&f.path)).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// Refuses the selected files whose rewrite is flagged and not allowed: it adds
/// syntax errors (`allowSyntaxErrors`), moves code in the syntax tree
/// (`allowStructureChanges`, docs/DESIGN.md section 2.5.10) or does not say
/// what its template says (`allowTemplateMismatch`, section 2.5.9). One
/// refusal names every such file with why, the `extra` that applies the others
/// (`skipFlagged`) and the one that writes them too.
fn flag_guard(selected: &[&FilePlan], opts: &ApplyOptions) -> Result<()> {
    let mut files = Vec::new();
    let mut allow: Vec<&str> = Vec::new();
    for f in selected {
        let mut why: Vec<String> = Vec::new();
        // The reason is only built for a file that is refused.
        let mut flag = |on: bool, allowed: bool, key: &'static str, what: &dyn Fn() -> String| {
            if on && !allowed {
                why.push(what());
                if !allow.contains(&key) {
                    allow.push(key);
                }
            }
        };
        flag(f.syntax_errors_introduced(), opts.allow_syntax_errors, "allowSyntaxErrors", &|| "the rewrite introduces syntax errors".into());
        flag(f.structure_changed, opts.allow_structure_changes, "allowStructureChanges", &|| {
            with_first("the rewrite moves code in the syntax tree outside the replaced text", f.structure_changes.first().map(|c| (c.line, c.message.as_str())))
        });
        flag(f.template_mismatch, opts.allow_template_mismatch, "allowTemplateMismatch", &|| {
            with_first("the rewrite does not say what the template says", f.template_mismatches.first().map(|c| (c.line, c.message.as_str())))
        });
        if !why.is_empty() {
            files.push(RefusedFile { path: display_name(&f.path).into_owned(), reason: why.join("; ") });
        }
    }
    if files.is_empty() {
        return Ok(());
    }
    let rest = (files.len() < selected.len()).then(|| serde_json::json!({"skipFlagged": true}));
    let all: serde_json::Map<String, serde_json::Value> = allow.iter().map(|k| (k.to_string(), serde_json::Value::Bool(true))).collect();
    Err(Error::ApplyRefused(Box::new(Refusal {
        selected: selected.len(),
        files,
        apply_rest: rest,
        apply_all: Some(serde_json::Value::Object(all)),
        cause: RefusalCause::Flagged,
    })))
}

/// `what (line N: message)` for a file's first listed problem, or `what`.
fn with_first(what: &str, first: Option<(usize, &str)>) -> String {
    match first {
        Some((line, message)) => format!("{what} (line {line}: {message})"),
        None => what.to_string(),
    }
}

/// A selected file left unwritten: the file, and why: found stale (`Ok`), or
/// refused (`Err`, `failed`) with the reason.
type Left<'p> = (&'p FilePlan, std::result::Result<Stale, String>);

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
    spool.list_targets(selected)?;
    let numbered: Vec<(usize, &&FilePlan)> = selected.iter().enumerate().collect();
    let results: Vec<Result<Outcome>> = crate::plan::largest_first(
        &numbered,
        |(_, f)| f.size,
        &crate::engine::budget::Budget::with_steps(plan.request.max_steps),
        |&(k, f)| match check_fresh(f, plan.request.max_filesize) {
            Ok((original, meta)) => prepare_file(f, &original, &meta, engine.as_ref(), plan, spool, spool.temp_name(k).as_deref()),
            Err(left) => Ok(left),
        },
    );
    let mut staged = Vec::new();
    let mut left = Vec::new();
    for (r, f) in results.into_iter().zip(selected) {
        match r? {
            Outcome::Staged(p) => staged.push(p),
            Outcome::Stale(why) => left.push((*f, Ok(why))),
            Outcome::Refused(reason) => left.push((*f, Err(reason))),
        }
    }
    // With `stale: "skip"`, an apply that would write nothing at all fails too.
    if !left.is_empty() && (!opts.skip_stale || left.len() == selected.len()) {
        return Err(not_written(&left, selected.len()));
    }
    Ok((staged, left))
}

/// The refusal of an apply that found files it cannot write (and no
/// `stale: "skip"`): every such file with why, the stale ones first, in the
/// exact text of docs/DESIGN.md §5.3 ([`Refusal::text`]), and `stale: "skip"`
/// as the way to apply the others.
fn not_written(left: &[Left<'_>], selected: usize) -> Error {
    let file = |(f, why): &Left<'_>| RefusedFile {
        path: display_name(&f.path).into_owned(),
        reason: match why {
            Ok(stale) => stale.text(),
            Err(reason) => reason.clone(),
        },
    };
    let stale: Vec<RefusedFile> = left.iter().filter(|(_, why)| why.is_ok()).map(file).collect();
    let n = stale.len();
    let files: Vec<RefusedFile> = stale.into_iter().chain(left.iter().filter(|(_, why)| why.is_err()).map(file)).collect();
    let rest = (files.len() < selected).then(|| serde_json::json!({"stale": "skip"}));
    Error::ApplyRefused(Box::new(Refusal { selected, files, apply_rest: rest, apply_all: None, cause: RefusalCause::Unwritten { stale: n } }))
}

/// Renames every staged file over its target, in order; on a failure, puts back
/// the files already renamed (from the spool, each checked against its original
/// digest, with its original mode, owner and group) and fails. Returns what was
/// renamed, with the length written, and the files another process wrote while
/// the apply ran, left as it wrote them ([`hold`], [`still_holds`]).
///
/// A file changed in place between its stale check and its rename would be
/// overwritten by the rename, so each file is opened by name just before its
/// rename (it must be the file the stale check read: same device and inode)
/// and held open across it; after the rename the held file, which no longer
/// has the name, must still hold the bytes the preview was made from. If it does
/// not, the other process's bytes are copied back over the new file (docs/DESIGN.md
/// §4.3).
fn rename_all<'p>(staged: Vec<Prepared<'p>>, spool: &Spool, jdir: Option<&Path>) -> Result<Renames<'p>> {
    let mut done: Vec<Renamed<'p>> = Vec::new();
    let mut changed: Vec<Left<'p>> = Vec::new();
    for (k, s) in staged.into_iter().enumerate() {
        let Prepared { plan, offset, len, new_len, tmp, kept, id } = s;
        injected_pause("AST_EDIT_PAUSE_BEFORE_RENAME", k + 1);
        let Some(mut old) = hold(&plan.abs, id, plan.size) else {
            // Replaced, deleted or changed in size since its stale check: the
            // staged file is dropped (and removed) unrenamed.
            changed.push((plan, Ok(Stale::ChangedDuring)));
            continue;
        };
        let result = if injected_at("AST_EDIT_FAIL_RENAME_AT", k + 1) {
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
            let mut msg = Text::from(format!("cannot write {}: {e}; ", display_name(&plan.path)));
            if restore_errors.is_empty() {
                msg.push_str("every file already written was restored, nothing changed");
                if let Some(d) = jdir {
                    let _ = std::fs::remove_dir_all(d);
                }
            } else {
                msg = msg.lit(format!("restoring failed for {} (run ", restore_errors.join(", "))).name(Name::Undo).lit(" to retry)");
                if let Some(d) = jdir {
                    let _ = std::fs::remove_file(d.join(INFLIGHT));
                }
            }
            return Err(Error::apply_failed(msg));
        }
        injected_pause("AST_EDIT_PAUSE_AFTER_RENAME", k + 1);
        match still_holds(&mut old, plan.size, &plan.digest) {
            Ok(true) => done.push(Renamed { plan, offset, len, new_len, kept }),
            Ok(false) => changed.push((plan, give_back(&mut old, &plan.abs, (new_len, &plan.new_digest), &kept, "apply").map(|()| Stale::ChangedDuring))),
            // The held file cannot be read again (an I/O error on a file just
            // read): nothing shows a change, and the file is the apply's.
            Err(_) => done.push(Renamed { plan, offset, len, new_len, kept }),
        }
    }
    Ok((done.into_iter().map(|d| (d.plan, d.new_len)).collect(), changed))
}

/// What [`rename_all`] gives: the files renamed, with the length written, and
/// the files another process wrote during the apply, with what became of them.
type Renames<'p> = (Vec<(&'p FilePlan, u64)>, Vec<Left<'p>>);

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
    if crate::shared::hash::digest(&orig) != d.plan.digest {
        return Err("the saved copy of the original is corrupted (digest mismatch)".into());
    }
    atomic::replace_keeping(&d.plan.abs, &orig, &d.kept).map_err(|e| e.to_string())
}

/// Verify after write, not trusting our own counters: re-reads every written
/// file (no more than its written length) and checks it against the planned digest.
fn verify_written(done: &[(&FilePlan, u64)], outstanding: &mut Vec<Outstanding>) -> Vec<AppliedFile> {
    let verified: Vec<bool> =
        done.par_iter().map(|(f, len)| read_if_size(&f.abs, &[*len]).is_ok_and(|(b, _)| crate::shared::hash::digest(&b) == f.new_digest)).collect();
    let mut files = Vec::new();
    for ((f, _), ok) in done.iter().zip(verified) {
        let status = if ok { FileStatus::Applied } else { FileStatus::Failed };
        files.push(AppliedFile { path: f.path.clone(), replacements: f.replacements(), status, diff: f.diff.clone() });
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
