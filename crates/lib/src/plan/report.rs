//! A scan as a report (`ast-edit scan --json`, `--format`, `--files-with-matches`;
//! docs/RULES.md, "Reports"): every match of every rule, nested and overlapping ones
//! included, a fix's replacement beside it, per file in path order; nothing rewritten,
//! nothing staged. The request goes through the dry run's walk, engine, prefilter and
//! `ast-grep-ignore` handling (`plan::prepare`, `engine::report`). Memory is bounded by
//! the files in flight: files are matched in parallel in batches of [`BATCH_FILES`] and
//! handed to the caller in path order.

use std::path::Path;

use crate::engine::{self, Engine, RuleMatch};
use crate::plan;
use crate::plan::cache::{self, EntryCache};
use crate::plan::report_cache;
use crate::plan::warning::{Warning, run_warnings};
use crate::request::Request;
use crate::request::read::{self, Skip, Skipped};
use crate::request::walk::Candidate;
use crate::shared::error::Result;
use crate::shared::message::Text;

pub use crate::engine::{Capture, Captures, Label, Replacement, RuleInfo, Span};
pub use crate::engine::{RuleMatch as Match, Severity as RuleSeverity};

/// Files read and matched at once before their reports are handed on.
pub const BATCH_FILES: usize = 256;

/// One file's matches.
#[derive(Clone, Debug)]
pub struct FileReport {
    /// Display path (relative to the working directory, `/`-separated).
    pub path: String,
    /// The file's language as ast-grep spells it in its reports (`Python`,
    /// `TypeScript`, `Cpp`).
    pub language: String,
    /// The file's text.
    pub text: String,
    /// Its matches, by start (the longest first), then the rule.
    pub matches: Vec<RuleMatch>,
}

/// What a report found besides the matches.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched, with the reason, by path.
    pub skipped: Vec<Skipped>,
    /// What the run noticed: rules' pattern problems, the walk's errors, a
    /// limit reached (`maxFiles`).
    pub warnings: Vec<Warning>,
}

/// Reports `req` from `cwd`: `each` gets every file with a match, in path
/// order, and returns false to stop the run (its output is closed); the summary
/// then covers the files reported so far. With a `cache`, a file whose report
/// is stored under its key is not parsed, and each report made is stored
/// (`plan/cache.rs`, `plan/report_cache.rs`).
pub fn report(req: &Request, cwd: &Path, cache: Option<&dyn EntryCache>, each: &mut dyn FnMut(FileReport) -> bool) -> Result<Summary> {
    let (root, walked, engine) = plan::prepare(req, cwd)?;
    let mut summary = Summary { files_searched: walked.files.len(), ..Summary::default() };
    let budget = crate::engine::budget::Budget::of(req);
    for batch in walked.files.chunks(BATCH_FILES) {
        let done = plan::largest_first(batch, |c| c.size, &budget, |c| report_file(&engine, req, cache, c));
        for (c, outcome) in batch.iter().zip(done) {
            match outcome {
                Ok(files) => {
                    for file in files {
                        if !each(file) {
                            return Ok(summary);
                        }
                    }
                }
                Err(skip) => summary.skipped.push(Skipped { path: c.display.clone(), reason: skip.0 }),
            }
        }
    }
    summary.skipped.extend(walked.skipped.iter().map(|(_, s)| s.clone()));
    summary.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    summary.warnings = run_warnings(req, &root, &engine, &walked, 0, Vec::new(), Vec::new(), &[]);
    Ok(summary)
}

/// One file's reports: its own matches, then those of each region of code
/// embedded in it (as ast-grep reports them, one list per region, with the
/// region's language); empty when it holds no match.
fn report_file(engine: &Engine, req: &Request, cache: Option<&dyn EntryCache>, c: &Candidate) -> std::result::Result<Vec<FileReport>, Skip> {
    let Some((text, ops)) = plan::search::read_for_search(engine, req, c)? else { return Ok(Vec::new()) };
    let mut lists = cache::through(
        cache::keyed(cache, req, &ops, c, &text, report_cache::FORMAT),
        |entry| report_cache::decode(&text, entry),
        || -> std::result::Result<_, Skip> {
            Ok(engine.report(&ops, &text, !req.no_prefilter)?.into_iter().map(|(lang, matches)| (lang.to_string(), matches)).collect::<Vec<_>>())
        },
        |lists| Some(report_cache::encode(lists)),
    )?;
    let file = |(language, matches): (String, Vec<RuleMatch>), text: String| FileReport { path: c.display.clone(), language, text, matches };
    // Each list holds the file's text; the last one takes it.
    let last = lists.pop();
    let mut out: Vec<FileReport> = lists.into_iter().map(|l| file(l, text.clone())).collect();
    out.extend(last.map(|l| file(l, text)));
    Ok(out)
}

/// The findings of `plan` (matches of rules without a fix) with all a report
/// says of them (labels, note, column), for a front end that draws them as
/// `ast-grep scan` does: the files that hold the first `limit` findings are
/// matched again and their matches of fix-less rules handed to `each`, in path
/// order. Costs a second parse of those files only, none for a file whose
/// report the `cache` holds (the same entries as [`report`]'s: the request is
/// the plan's, narrowed to those paths).
pub fn findings_of(plan: &plan::Plan, limit: usize, cache: Option<&dyn EntryCache>, each: &mut dyn FnMut(FileReport) -> bool) -> Result<()> {
    let mut paths: Vec<String> = plan.findings.iter().take(limit).map(|f| f.path.clone()).collect();
    if paths.is_empty() {
        return Ok(());
    }
    paths.sort();
    paths.dedup();
    let req = Request { paths, max_files: None, ..plan.request.clone() };
    let mut left = limit;
    report(&req, &plan.cwd, cache, &mut |mut file| {
        file.matches.retain(|m| m.replacement.is_none());
        file.matches.truncate(left);
        left -= file.matches.len();
        if file.matches.is_empty() {
            return left > 0;
        }
        each(file) && left > 0
    })?;
    Ok(())
}

/// Reports `req` on `text` (standard input), parsed as the language of the
/// request's first rule and shown as `path`, as `ast-grep scan --stdin` does:
/// every rule of that language runs, whatever its `files`/`ignores`. `None`
/// when nothing matched.
pub fn report_text(req: &Request, cwd: &Path, text: String, path: &str) -> Result<(Option<FileReport>, Summary)> {
    let lang = req
        .rule_set
        .as_ref()
        .and_then(|s| s.rules.first())
        .map(|r| r.language())
        .or(req.lang)
        .ok_or_else(|| crate::shared::error::Error::bad("standard input needs rules, to know its language"))?;
    let refused = |skip: Skip| crate::shared::error::Error::bad(Text::from("standard input cannot be searched: ").then(skip.0.text()));
    read::check_text(text.as_bytes()).map_err(refused)?;
    let engine = Engine::new(req, [lang], cwd)?;
    let ops = engine.all_for(lang);
    let mut summary = Summary { files_searched: 1, ..Summary::default() };
    let matches = crate::engine::budget::Budget::of(req).within(|| engine::report(&ops, lang, &text, !req.no_prefilter)).map_err(refused)?;
    summary.warnings = engine.warnings.iter().map(|text| Warning::Rules { text: text.clone() }).collect();
    if matches.is_empty() {
        return Ok((None, summary));
    }
    Ok((Some(FileReport { path: path.to_string(), language: lang.to_string(), text, matches }), summary))
}
