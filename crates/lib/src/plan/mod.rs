//! The dry run: walk, read each file once, rewrite it with the engine (in parallel,
//! results in path order), render its diff, and return a [`Plan`]: plain data that
//! the printers, the pending store and the applier consume. Nothing here writes.
//!
//! Per file the plan keeps the digest of the bytes read, the edits, and the digest
//! of the new text; never a copy of the file.

pub mod cache;
pub(crate) mod diff;
pub mod inspect;
pub mod preview;
mod preview_cache;
pub mod report;
pub mod report_cache;
pub mod search;
pub mod tree;
pub mod warm;
pub mod warning;

use crate::engine::budget::Budget;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::diagnose;
use crate::engine::{self, Engine};

/// The engine's types that a plan's files hold: an edit, a located syntax
/// error, a note of the template check, a change the structure guard found.
pub use crate::engine::structure::StructureChange;
pub use crate::engine::{Edit, MAX_EXCERPT_CHARS, MAX_SYNTAX_ERRORS_LISTED, MAX_TEMPLATE_NOTES_LISTED, SyntaxError, TemplateNote};
use crate::request::Request;
use crate::request::lang;
use crate::request::read::{Skip, Skipped, check_text, read_text};
use crate::request::walk::{self, Candidate};
use crate::shared::error::Result;
use crate::shared::text::line_of;
use warning::{Warning, run_warnings};

/// A file the plan changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePlan {
    /// Display path (relative to the working directory of the preview).
    pub path: String,
    /// Absolute path the file was read from.
    pub abs: PathBuf,
    /// Language it was parsed as.
    pub lang: String,
    /// Digest of the bytes read at preview.
    pub digest: String,
    /// Length of the bytes read at preview: apply finds a file of another size
    /// changed without reading it.
    pub size: u64,
    /// Digest of the planned new bytes.
    pub new_digest: String,
    /// The replacements, sorted by offset.
    pub edits: Vec<Edit>,
    /// The op of each match nested in an edit that `rewriteNested` rewrote
    /// inside that edit's text: sites beyond one per edit.
    pub nested: Vec<usize>,
    /// ERROR/MISSING nodes before the rewrite.
    pub errors_before: usize,
    /// ERROR/MISSING nodes after the rewrite.
    pub errors_after: usize,
    /// When the rewrite adds syntax errors: the first ones it adds, located in
    /// the new text (at most [`engine::MAX_SYNTAX_ERRORS_LISTED`]). Empty
    /// otherwise.
    pub syntax_errors: Vec<SyntaxError>,
    /// The rewrite moved code in the syntax tree outside the replaced text
    /// (docs/DESIGN.md section 2.5.10): apply refuses the file unless allowed.
    pub structure_changed: bool,
    /// The first such moves, located in the new text (at most
    /// `crate::engine::structure::MAX_STRUCTURE_CHANGES_LISTED`).
    pub structure_changes: Vec<crate::engine::structure::StructureChange>,
    /// Edits the template check ran on (docs/DESIGN.md section 2.5.9): every
    /// edit of the default layout in a language with a layout lexer.
    pub edits_checked: usize,
    /// Edits written as ast-grep writes them because their minimal layout did
    /// not say what the template says.
    pub layout_fallbacks: usize,
    /// The first of those edits (at most [`engine::MAX_TEMPLATE_NOTES_LISTED`]).
    pub layout_notes: Vec<engine::TemplateNote>,
    /// Some edit says something other than its template in either layout
    /// (ast-grep's text substitution glued two tokens): apply refuses the file
    /// unless allowed.
    pub template_mismatch: bool,
    /// The first such edits (at most [`engine::MAX_TEMPLATE_NOTES_LISTED`]).
    pub template_mismatches: Vec<engine::TemplateNote>,
    /// The unified diff (lines over [`diff::MAX_DIFF_LINE`] bytes cut).
    pub diff: String,
    /// How many diff lines were cut.
    pub diff_lines_cut: usize,
}

impl FilePlan {
    /// True when the rewrite adds syntax errors to the file.
    pub fn syntax_errors_introduced(&self) -> bool {
        self.errors_after > self.errors_before
    }

    /// True when apply refuses the file unless allowed: the rewrite adds syntax
    /// errors, changes the structure outside the replaced text, or does not say
    /// what its template says.
    pub fn flagged(&self) -> bool {
        self.syntax_errors_introduced() || self.structure_changed || self.template_mismatch
    }
}

/// Most files listed in [`Plan::broken_before`] (docs/DESIGN.md section 7); the
/// rest are counted in [`Plan::broken_before_omitted`].
pub const MAX_BROKEN_BEFORE_LISTED: usize = 20;

/// A file the run parsed that held syntax errors before any edit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenFile {
    /// Display path.
    pub path: String,
    /// 1-based line of its first ERROR or MISSING node.
    pub line: usize,
}

/// What one rule of a scan changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCount {
    /// The rule id.
    pub rule: String,
    /// Replacements it made.
    pub replacements: usize,
    /// Files it changed.
    pub files: usize,
}

/// A match of a rule without a fix (a lint rule): reported, nothing staged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Display path.
    pub path: String,
    /// 1-based line of the match's start.
    pub line: usize,
    /// 1-based column of the match's start, in characters (0 in entries
    /// staged by builds before it was kept).
    #[serde(default)]
    pub column: usize,
    /// The rule id.
    pub rule: String,
    /// The rule's severity (`hint`, `info`, `warning`, `error`).
    pub severity: String,
    /// The rule's message for this match.
    pub message: String,
}

/// A match dropped because it nests in or overlaps an edit that was kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlapped {
    /// Display path.
    pub path: String,
    /// 1-based line of the dropped match's start.
    pub line: usize,
    /// The rule of the dropped match.
    pub rule: String,
    /// The rule of the kept edit it collides with.
    pub kept_rule: String,
    /// It matched exactly the code the kept edit replaces (two ops on one
    /// node): a second run cannot rewrite it.
    #[serde(default)]
    pub same_node: bool,
}

/// The result of a dry run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The request that produced it.
    pub request: Request,
    /// The working directory it ran in.
    pub cwd: PathBuf,
    /// Changed files, sorted by path.
    pub files: Vec<FilePlan>,
    /// Files searched (after the `maxFiles` cap).
    pub files_searched: usize,
    /// Matches dropped because they nest in or overlap another.
    pub overlaps: usize,
    /// Files not searched, with reasons, sorted by path.
    pub skipped: Vec<Skipped>,
    /// What the user should know, typed; each front end words it
    /// ([`Warning::text`]).
    pub warnings: Vec<Warning>,
    /// True when `maxFiles` cut the walk.
    pub limit_reached: bool,
    /// Matches of rules without a fix, in path order.
    pub findings: Vec<Finding>,
    /// Matches dropped because they nest in or overlap a kept edit, in path order
    /// (`overlaps` counts them).
    pub overlapped: Vec<Overlapped>,
    /// Files the run parsed that held ERROR/MISSING nodes before any edit (changed
    /// or not), in path order, at most [`MAX_BROKEN_BEFORE_LISTED`].
    pub broken_before: Vec<BrokenFile>,
    /// Such files past [`MAX_BROKEN_BEFORE_LISTED`].
    pub broken_before_omitted: usize,
    /// The most work one file did, against the limits (not stored: a
    /// stored plan has none).
    pub work: Work,
}

/// The most work one file of a dry run did under each limit of the meter
/// (`engine::budget`), with the file's display path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Steps.
    pub steps: (u64, Option<String>),
    /// Bytes of stack below the file's start.
    pub stack: (u64, Option<String>),
    /// Bytes of text transforms and fixes built.
    pub text: (u64, Option<String>),
    /// The limits: steps per file (the request's) and bytes of stack.
    pub limits: (u64, u64),
}

impl Work {
    fn of(peak: crate::engine::budget::Peak, files: &[Candidate], req: &Request) -> Work {
        let named = |(n, i): (u64, Option<usize>)| (n, i.map(|i| files[i].display.clone()));
        let limits = (req.max_steps, crate::engine::budget::MAX_STACK_USE as u64);
        Work { steps: named(peak.steps), stack: named(peak.stack), text: named(peak.text), limits }
    }
}

impl FilePlan {
    /// Sites rewritten: one per edit, and each nested match an edit's text
    /// holds rewritten (`rewriteNested`).
    pub fn replacements(&self) -> usize {
        self.edits.len() + self.nested.len()
    }
}

impl Plan {
    /// Total replacements over all files.
    pub fn total_replacements(&self) -> usize {
        self.files.iter().map(FilePlan::replacements).sum()
    }

    /// For a rule scan: each rule that changed something, in the order of the
    /// rules. Empty for an ad-hoc edit.
    pub fn per_rule(&self) -> Vec<RuleCount> {
        if self.request.rule_set.is_none() {
            return Vec::new();
        }
        let names = self.request.rule_names();
        let mut rows: Vec<RuleCount> = Vec::new();
        for n in &names {
            if !rows.iter().any(|r| &r.rule == n) {
                rows.push(RuleCount { rule: n.clone(), replacements: 0, files: 0 });
            }
        }
        for f in &self.files {
            let mut seen: Vec<usize> = Vec::new();
            for op in f.edits.iter().map(|e| e.op).chain(f.nested.iter().copied()) {
                let Some(name) = names.get(op) else { continue };
                let i = rows.iter().position(|r| &r.rule == name).expect("listed above");
                rows[i].replacements += 1;
                if !seen.contains(&i) {
                    seen.push(i);
                    rows[i].files += 1;
                }
            }
        }
        rows.retain(|r| r.replacements > 0);
        rows
    }
}

/// The whole diff of `f`, re-rendered from the file on disk and the planned edits
/// (for `show --full` when the stored diff had long lines cut). `None` when the
/// file changed since the preview: it is read as any named file is, so one that
/// is no longer a regular file of its planned size is not read.
pub fn full_diff(f: &FilePlan) -> Option<String> {
    let bytes = crate::shared::named::read_capped(&f.abs, f.size).ok()?;
    if crate::shared::hash::digest(&bytes) != f.digest {
        return None;
    }
    let old = std::str::from_utf8(&bytes).ok()?;
    let new = engine::splice(&bytes, &f.edits);
    Some(diff::unified_edits(&f.path, old, std::str::from_utf8(&new).ok()?, &f.edits))
}

enum FileOutcome {
    /// No edit; the notes say why matches were left alone, if any were.
    Unchanged(Reported),
    /// Boxed: a plan is much larger than the other variants.
    Changed(Box<FilePlan>, Reported),
    Skipped(Skipped),
}

/// What a file adds to the run's reports besides its edits.
#[derive(Default)]
struct Reported {
    notes: Vec<Warning>,
    findings: Vec<Finding>,
    overlapped: Vec<Overlapped>,
    /// What the file tells the diagnosis (docs/DESIGN.md §2.12).
    seen: diagnose::FileSeen,
    /// The line of the file's first syntax error before any edit, if parsed and broken.
    broken: Option<usize>,
}

/// One note per match left alone because the matched code does not parse.
fn unparsed_notes(path: &str, text: &str, starts: &[usize]) -> Vec<Warning> {
    starts.iter().map(|&at| Warning::Unparsed { path: path.to_string(), line: line_of(text, at) }).collect()
}

/// For a rule scan: one note per match of one rule dropped because it collides
/// with another rule's edit.
fn cross_rule_notes(req: &Request, overlapped: &[Overlapped]) -> Vec<Warning> {
    let ops = req.rule_set.is_none();
    overlapped
        .iter()
        .filter(|o| o.rule != o.kept_rule)
        .map(|o| Warning::CrossRule { path: o.path.clone(), line: o.line, rule: o.rule.clone(), kept_rule: o.kept_rule.clone(), same_node: o.same_node, ops })
        .collect()
}

/// The file's dropped matches and findings, named by rule.
fn reported(req: &Request, names: &[String], path: &str, text: &str, rw: &engine::Rewrite) -> Reported {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| crate::request::op_id(i));
    // Located with one index of the text: a file may hold many thousands.
    let mut at = crate::shared::text::Locator::new(if rw.dropped.is_empty() && rw.findings.is_empty() { "" } else { text });
    let overlapped = rw
        .dropped
        .iter()
        .map(|d| Overlapped { path: path.to_string(), line: at.line(d.at), rule: name(d.lost), kept_rule: name(d.won), same_node: d.same })
        .collect();
    let findings = rw
        .findings
        .iter()
        .map(|f| Finding {
            path: path.to_string(),
            line: at.line(f.start),
            column: at.column(f.start),
            rule: name(f.rule),
            severity: req.severity(f.rule),
            message: f.message.clone(),
        })
        .collect();
    Reported { notes: unparsed_notes(path, text, &rw.unparsed), findings, overlapped, seen: diagnose::FileSeen::default(), broken: rw.broken_before }
}

fn plan_file(engine: &Engine, req: &Request, names: &[String], c: &Candidate, cache: Option<&dyn cache::EntryCache>) -> FileOutcome {
    let skip = |s: Skip| FileOutcome::Skipped(Skipped { path: c.display.clone(), reason: s.0 });
    let bytes = match read_text(&c.path, req.max_filesize) {
        Ok(b) => b,
        Err(s) => return skip(s),
    };
    let text = match check_text(&bytes) {
        Ok(t) => t,
        Err(s) => return skip(s),
    };
    let ops = engine.file_ops(c.lang, &c.path);
    if text.is_empty() || ops.is_empty() {
        return FileOutcome::Unchanged(Reported::default());
    }
    let opts = engine::RewriteOptions { prefilter: !req.no_prefilter, check_syntax: true, rewrite_nested: req.rewrite_nested, verbatim: req.verbatim };
    let rw = rewritten(engine, req, cache, c, &ops, text, opts);
    let seen = diagnose::file_seen(req, &ops.own, text, rw.as_ref());
    let Some(rw) = rw else {
        return FileOutcome::Unchanged(Reported { seen, ..Reported::default() });
    };
    if let Some(s) = rw.refused {
        return skip(s);
    }
    let mut rep = reported(req, names, &c.display, text, &rw);
    rep.seen = seen;
    if rw.edits.is_empty() {
        return FileOutcome::Unchanged(rep);
    }
    let new_text = std::str::from_utf8(&rw.new_text).expect("edits keep UTF-8");
    rep.notes.extend(cross_rule_notes(req, &rep.overlapped));
    let (diff, diff_lines_cut) = diff::unified_bounded_with(&c.display, text, new_text, &rw.edits, diff::MAX_DIFF_LINE, req.context_lines);
    let plan = FilePlan {
        path: c.display.clone(),
        abs: c.path.clone(),
        lang: lang::name(c.lang).to_string(),
        digest: crate::shared::hash::digest(&bytes),
        size: bytes.len() as u64,
        new_digest: crate::shared::hash::digest(&rw.new_text),
        diff,
        diff_lines_cut,
        edits: rw.edits,
        nested: rw.nested,
        errors_before: rw.errors_before,
        errors_after: rw.errors_after,
        syntax_errors: rw.syntax_errors,
        structure_changed: rw.structure.changed,
        structure_changes: rw.structure.changes,
        edits_checked: rw.template.checked,
        layout_fallbacks: rw.template.fallbacks,
        layout_notes: rw.template.fell_back,
        template_mismatch: rw.template.mismatched > 0,
        template_mismatches: rw.template.mismatches,
    };
    FileOutcome::Changed(Box::new(plan), rep)
}

/// The engine's rewrite of the file `c` holding `text`, or the one stored in
/// the `cache` under the file's key (`plan/preview_cache.rs`; which runs and
/// files have entries: `cache::keyed`).
fn rewritten(
    engine: &Engine,
    req: &Request,
    cache: Option<&dyn cache::EntryCache>,
    c: &Candidate,
    ops: &engine::FileOps<'_>,
    text: &str,
    opts: engine::RewriteOptions,
) -> Option<engine::Rewrite> {
    let made = cache::through(
        cache::keyed(cache, req, ops, c, text, preview_cache::FORMAT),
        |entry| preview_cache::decode(text, entry),
        || Ok::<_, std::convert::Infallible>(engine.rewrite(ops, text, opts)),
        |rw| preview_cache::encode(rw.as_ref()),
    );
    made.unwrap_or_else(|never| match never {})
}

/// `f` over `items` in parallel, largest first (longest-processing-time
/// scheduling: a big file met last would run alone on one core while the other
/// idles), one item per rayon job (rayon otherwise runs a quarter of the list as
/// one sequential chunk, and with the largest first that chunk is most of the
/// work). The results come back in the order of `items`, so nothing downstream
/// depends on the scheduling.
///
/// Rayon still halves the list, so while one worker goes down the biggest files the
/// other starts on the small ones of the second half. That keeps two big trees from
/// being in memory at once: a shared counter that hands every worker the largest
/// file left (strict LPT) was measured and dropped, at +6-8 MB peak RSS on the
/// rust and ts corpora for ~4% less wall time on js-rare.
///
/// Each item's work runs under `budget` (`engine::budget`: its own deadline,
/// the request's, and the request's stop flag).
pub(crate) fn largest_first<T: Sync, R: Send>(items: &[T], size: impl Fn(&T) -> u64, budget: &Budget, f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    let mut order: Vec<(usize, u64)> = items.iter().enumerate().map(|(i, t)| (i, size(t))).collect();
    order.sort_by_key(|&(_, size)| std::cmp::Reverse(size));
    let mut out: Vec<(usize, R)> = order
        .into_par_iter()
        .with_max_len(1)
        .map(|(i, _)| {
            (
                i,
                budget.within(|| {
                    let r = f(&items[i]);
                    budget.note(i);
                    r
                }),
            )
        })
        .collect();
    out.sort_unstable_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Runs `f` with a fresh budget of `req` ([`Budget::of`]) whose stop flag is
/// raised as soon as `stop()` turns true: a thread polls it every 20 ms while
/// `f` runs, so a cancelled request stops the file in progress too, at its
/// next poll of the budget.
pub(crate) fn watched<R>(req: &Request, stop: &(dyn Fn() -> bool + Sync), f: impl FnOnce(&Budget) -> R) -> R {
    let budget = Budget::of(req);
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if stop() {
                    budget.stop();
                    return;
                }
                std::thread::park_timeout(std::time::Duration::from_millis(20));
            }
        });
        let r = f(&budget);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        watcher.thread().unpark();
        r
    })
}

/// Runs the dry run of `req` from `cwd`.
pub fn build(req: &Request, cwd: &Path) -> Result<Plan> {
    build_with_progress(req, cwd, &|_, _| {}, None)
}

/// [`build`], calling `progress(done, total)` as files are planned (from worker
/// threads, in no particular order), so a front end can show a progress bar.
/// With a `cache`, a rule scan reads and stores each file's rewrite there
/// (docs/DESIGN.md section 2.14): the plan is the same.
pub fn build_with_progress(req: &Request, cwd: &Path, progress: &(dyn Fn(usize, usize) + Sync), cache: Option<&dyn cache::EntryCache>) -> Result<Plan> {
    build_with(req, cwd, progress, &|| false, cache)
}

/// [`build_with_progress`] that stops early when `stop()` turns true (a cancelled
/// MCP request): the file in progress stops at its next poll of the budget
/// (`engine::budget`), the files not yet planned are skipped, and the result is
/// [`crate::Error::Cancelled`], so nothing can be staged from a partial plan.
pub fn build_with(
    req: &Request,
    cwd: &Path,
    progress: &(dyn Fn(usize, usize) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    cache: Option<&dyn cache::EntryCache>,
) -> Result<Plan> {
    let (cwd, walked, engine) = prepare(req, cwd)?;
    let total = walked.files.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let names = req.rule_names();
    // The files and the diagnosis of what they showed, under one request
    // budget, which a cancel stops.
    let (collected, diagnosis, work) = watched(req, stop, |budget| {
        let outcomes = largest_first(
            &walked.files,
            |c| c.size,
            budget,
            |c| {
                if stop() {
                    return FileOutcome::Unchanged(Reported::default());
                }
                let o = plan_file(&engine, req, &names, c, cache);
                progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
                o
            },
        );
        if stop() {
            return None;
        }
        let work = Work::of(budget.peak(), &walked.files, req);
        let collected = collect(outcomes, &walked.files);
        let diagnosis = diagnose::diagnose(&diagnose::RunFacts { req, engine: &engine, files: &walked.files, seen: &collected.seen, budget });
        Some((collected, diagnosis, work))
    })
    .filter(|_| !stop())
    .ok_or(crate::shared::error::Error::Cancelled)?;
    let Collected { files, mut skipped, all, broken, broken_omitted, .. } = collected;
    let (notes, overlaps) = (all.notes, all.overlapped.len());
    // Matches lost to another op on the same node are named one by one (the
    // cross-rule notes); the rest a second run (or `rewriteNested`) rewrites.
    let nested = all.overlapped.iter().filter(|o| !o.same_node).count();
    if !walked.skipped.is_empty() {
        skipped.extend(walked.skipped.iter().map(|(_, s)| s.clone()));
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
    }
    let warnings = run_warnings(req, &cwd, &engine, &walked, nested, notes, diagnosis, &files);
    Ok(Plan {
        request: req.clone(),
        cwd,
        files,
        files_searched: walked.files.len(),
        overlaps,
        skipped,
        warnings,
        limit_reached: walked.limit_reached(),
        findings: all.findings,
        overlapped: all.overlapped,
        broken_before: broken,
        broken_before_omitted: broken_omitted,
        work,
    })
}

/// The steps before any file is read, shared by the dry run and
/// [`crate::plan::search`]: the request's limits, the walk, the ops compiled for the
/// languages met (bad patterns are refused here), then the candidates of
/// languages no op runs on dropped and `maxFiles` applied. Returns the
/// normalised working directory, the walk and the engine.
pub(crate) fn prepare(req: &Request, cwd: &Path) -> Result<(PathBuf, walk::Walked, Engine)> {
    // Before any work, also for requests that did not come through
    // `RawRequest::validate` (rule files, library users).
    req.check_limits()?;
    let cwd = walk::normalize(cwd);
    let walked = walk::walk(req, &cwd)?;
    let mut langs: Vec<_> = Vec::new();
    // A file skipped for its name still counts as met, so that its skip is
    // reported whenever an op runs on its language.
    for lang in walked.files.iter().map(|c| c.lang).chain(walked.skipped.iter().filter_map(|s| s.0)) {
        if !langs.contains(&lang) {
            langs.push(lang);
        }
    }
    let engine = Engine::new(req, langs.iter().copied(), &cwd).map_err(|e| diagnose::compile_failed(req, &req.lang.map_or(langs, |l| vec![l]), &cwd, e))?;
    // Files of a language no op can run on (a scan's rules are all for other
    // languages, or the pattern cannot be expressed there, as warned) are not read.
    let mut walked = walked;
    walked.files.retain(|c| engine.has_ops(c.lang));
    walked.skipped.retain(|(lang, _)| lang.is_none_or(|l| engine.has_ops(l)));
    walked.total = walked.files.len();
    if let Some(cap) = req.max_files {
        walked.files.truncate(cap);
    }
    Ok((cwd, walked, engine))
}

/// The files' outcomes gathered in path order.
struct Collected {
    files: Vec<FilePlan>,
    skipped: Vec<Skipped>,
    /// Every file's notes, findings and overlapped matches, one after another.
    all: Reported,
    /// The files broken before the edit, at most [`MAX_BROKEN_BEFORE_LISTED`].
    broken: Vec<BrokenFile>,
    /// Such files past the cap.
    broken_omitted: usize,
    /// What each candidate told the diagnosis, in candidate order (docs/DESIGN.md §2.12).
    seen: Vec<diagnose::FileSeen>,
}

/// Gathers `outcomes` (one per candidate of `files`, in the same order).
fn collect(outcomes: Vec<FileOutcome>, files: &[Candidate]) -> Collected {
    let mut c = Collected {
        files: Vec::new(),
        skipped: Vec::new(),
        all: Reported::default(),
        broken: Vec::new(),
        broken_omitted: 0,
        seen: Vec::with_capacity(outcomes.len()),
    };
    for (o, file) in outcomes.into_iter().zip(files) {
        let rep = match o {
            FileOutcome::Unchanged(rep) => rep,
            FileOutcome::Changed(f, rep) => {
                c.files.push(*f);
                rep
            }
            FileOutcome::Skipped(s) => {
                c.skipped.push(s);
                c.seen.push(diagnose::FileSeen::default());
                continue;
            }
        };
        c.seen.push(rep.seen);
        c.all.notes.extend(rep.notes);
        c.all.findings.extend(rep.findings);
        c.all.overlapped.extend(rep.overlapped);
        if let Some(line) = rep.broken {
            c.broken.push(BrokenFile { path: file.display.clone(), line });
        }
    }
    c.broken_omitted = c.broken.len().saturating_sub(MAX_BROKEN_BEFORE_LISTED);
    c.broken.truncate(MAX_BROKEN_BEFORE_LISTED);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Op, RawRequest, WalkOptions};

    #[test]
    fn a_stopped_build_is_cancelled_and_plans_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(dir.path().join(format!("f{i}.py")), "f(1)\n").unwrap();
        }
        let raw = RawRequest { ops: vec![Op { pat: "f($A)".into(), out: "g($A)".into() }], ..Default::default() };
        let req = raw.validate(dir.path(), WalkOptions::default(), 1 << 20).unwrap();
        let planned = std::sync::atomic::AtomicUsize::new(0);
        let r = build_with(
            &req,
            dir.path(),
            &|_, _| {
                planned.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            },
            &|| planned.load(std::sync::atomic::Ordering::SeqCst) >= 3,
            None,
        );
        assert!(matches!(r, Err(crate::shared::error::Error::Cancelled)));
        assert!(planned.load(std::sync::atomic::Ordering::SeqCst) < 20, "stopped before the end");
        assert_eq!(build(&req, dir.path()).unwrap().files.len(), 20);
    }
}
