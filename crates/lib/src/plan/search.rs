//! Counting and locating matches without staging anything (`ast-edit search`, MCP
//! `ast_search`; docs/MCP.md, "ast_search"). The request becomes the same [`Request`] as
//! an edit and goes through the same walk, engine, prefilter and anchored walk
//! (`plan::prepare`, `engine::search`), so a search finds exactly the matches an edit
//! would see, nested and overlapping ones included. A first pass keeps one count per
//! file and only the page's files are searched again, so memory does not grow with the
//! matches; every part of a result is bounded ([`MAX_LIMIT`], [`SearchResult::fit`]).
//! docs/DESIGN.md §2.11; the limits: §7.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diagnose::{self, FileSeen};
use crate::engine::{Engine, FileOps, Hit};
use crate::plan;
use crate::plan::cache::{self, EntryCache};
use crate::request::read::{self, Skip, Skipped};
use crate::request::walk::Candidate;
use crate::request::{Op, RawRequest, Request, WalkOptions};
use crate::shared::error::{Error, Result};
use crate::shared::message::{Say, Text, Words};
use crate::shared::text::{self, Unit, plural};

mod scope;
mod stored;
use scope::{Scope, enclosing_among, scopes_of};

/// Matches listed per page when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;

/// Most matches listed per page (`limit`); the character budgets of
/// [`SearchResult::fit`] may end a page sooner.
pub const MAX_LIMIT: usize = 200;

/// Most characters of a match's text (its first line); a longer one is cut and
/// ends with `…`.
pub const MAX_MATCH_TEXT_CHARS: usize = 200;

/// Most characters of an enclosing name (`function load`); a longer one is cut
/// and ends with `…`.
pub const MAX_ENCLOSING_CHARS: usize = 100;

/// Most warnings in a result (skipped files included); a last one counts the rest.
pub const MAX_WARNINGS: usize = 20;

/// Most characters of one warning.
pub const MAX_WARNING_CHARS: usize = 400;

/// One pattern to find. Unlike an `ast_edit` op it has no rewrite: `out` is
/// refused as an unknown field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchOp {
    /// ast-grep pattern (`$A`, `$$$ARGS`, `$_`).
    pub pat: String,
}

/// A search as typed: the MCP `ast_search` arguments, or the same built from the
/// CLI's flags. Unknown keys are refused.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawSearch {
    /// Patterns to find (or `rule`).
    #[serde(default)]
    pub ops: Vec<SearchOp>,
    /// Instead of `ops`: ast-grep rule configs, as the `rule` of an `ast_edit`
    /// (a YAML string, an object or an array); a `fix` in them is ignored.
    #[serde(default)]
    pub rule: Option<Value>,
    /// Language name or alias; absent: inferred per file.
    #[serde(default)]
    pub lang: Option<String>,
    /// Files or directories (default `["."]`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Include/exclude globs (`!` excludes).
    #[serde(default)]
    pub globs: Vec<String>,
    /// Node kind to match inside the pattern.
    #[serde(default)]
    pub selector: Option<String>,
    /// Match strictness.
    #[serde(default)]
    pub strictness: Option<String>,
    /// Instead of `ops` or `rule`: an ast-grep project or rule file, as the
    /// `project` of an `ast_edit` (loaded by `crate::app::project_rules`).
    #[serde(default)]
    pub project: Option<String>,
    /// With `project`: only the rules whose id this regex matches.
    #[serde(default)]
    pub filter: Option<String>,
    /// Matches listed (default [`DEFAULT_LIMIT`], at most [`MAX_LIMIT`]).
    #[serde(default)]
    pub limit: Option<u64>,
    /// Matches skipped before the page (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
}

/// A checked search: the request it runs and the page it lists.
#[derive(Clone, Debug)]
pub struct Search {
    /// The request: ops with an empty rewrite, or rules without `fix`.
    pub request: Request,
    /// Matches listed, 1 to [`MAX_LIMIT`].
    pub limit: usize,
    /// Matches skipped before the page.
    pub offset: usize,
}

impl RawSearch {
    /// Checks every field (the checks of [`RawRequest::validate`]) and the page.
    pub fn validate(self, cwd: &Path, walk: WalkOptions, max_filesize: u64) -> Result<Search> {
        self.validate_with(|raw| raw.validate(cwd, walk, max_filesize))
    }

    /// [`RawSearch::validate`] with `check` in place of [`RawRequest::validate`]
    /// (a front end's, which loads a `project`).
    pub fn validate_with(self, check: impl FnOnce(RawRequest) -> Result<Request>) -> Result<Search> {
        if self.ops.is_empty() && self.rule.is_none() && self.project.is_none() {
            return Err(Error::bad(
                Text::from("no pattern given: pass at least one pattern (`ops: [{\"pat\": \"foo($A)\"}]`").say(Say::OtherPatternInputs).lit("), or a `rule`"),
            ));
        }
        let limit = match self.limit {
            None => DEFAULT_LIMIT,
            Some(0) => return Err(Error::bad("limit must be at least 1 (matches per page)")),
            Some(n) if n > MAX_LIMIT as u64 => {
                return Err(Error::bad(format!(
                    "limit is {n}; the limit is {MAX_LIMIT} matches per page (MAX_LIMIT): ask for {MAX_LIMIT} or fewer and page on with offset"
                )));
            }
            Some(n) => n as usize,
        };
        let offset = usize::try_from(self.offset.unwrap_or(0)).unwrap_or(usize::MAX);
        let raw = RawRequest {
            ops: self.ops.into_iter().map(|o| Op { pat: o.pat, out: String::new() }).collect(),
            rule: self.rule,
            paths: self.paths,
            lang: self.lang,
            selector: self.selector,
            strictness: self.strictness,
            globs: self.globs,
            project: self.project,
            filter: self.filter,
            ..Default::default()
        };
        let mut request = check(raw)?;
        if let Some(set) = &mut request.rule_set {
            // Only the matcher counts: a fix (even a broken one) changes nothing here.
            set.rules = std::mem::take(&mut set.rules).into_iter().map(|r| r.without_fix()).collect();
        }
        Ok(Search { request, limit, offset })
    }
}

/// One match of a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchMatch {
    /// Display path of the file.
    pub path: String,
    /// 1-based line of the match's start.
    pub line: usize,
    /// 1-based column of the match's start, in characters.
    pub column: usize,
    /// 1-based line of the match's end.
    pub end_line: usize,
    /// The match's first line, cut at [`MAX_MATCH_TEXT_CHARS`].
    pub text: String,
    /// The nearest named function, method, class (or `impl`, `mod`, ...)
    /// around the match: `function load`, `class AdminConfig`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
    /// The id of the rule that matched, when the search ran rules (`rule`,
    /// `project`); absent for patterns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// That rule's message for this match (metavariables filled in), when it
    /// has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a search found: every count, and one page of matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// Matches in all files searched (every one counted, whatever the page).
    pub total_matches: usize,
    /// Files holding at least one match.
    pub files_with_matches: usize,
    /// Files searched.
    pub files_searched: usize,
    /// The page: matches `offset` to `offset + matches.len() - 1`, in order.
    pub matches: Vec<SearchMatch>,
    /// Matches skipped before the page.
    pub offset: usize,
    /// True when a character budget ended the page before `limit` matches.
    pub truncated: bool,
    /// Where the next page starts; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Files skipped (with the reason; those of [`SearchResult::skipped_by_limits`]
    /// first), walk problems, ops that cannot run in some language; at most
    /// [`MAX_WARNINGS`].
    pub warnings: Vec<String>,
    /// Files one of ast-edit's own limits left unsearched where ast-grep would
    /// have searched them: the counts leave out their matches, and the search
    /// fails (docs/DESIGN.md section 7).
    pub skipped_by_limits: usize,
}

/// Runs `s` from `cwd`; the warnings are in the words of `words` (the front end
/// that shows the result). With a `cache`, a search of rules reads and stores
/// each file's count and page there (docs/DESIGN.md section 2.14): the result
/// is the same.
pub fn search(s: &Search, cwd: &Path, words: &dyn Words, cache: Option<&dyn EntryCache>) -> Result<SearchResult> {
    search_with(s, cwd, words, &|| false, cache)
}

/// [`search`] that stops early when `stop()` turns true (a cancelled MCP
/// request): the result is then [`Error::Cancelled`]. An `offset` past the last
/// match is bad input, whose message gives the counts.
pub fn search_with(s: &Search, cwd: &Path, words: &dyn Words, stop: &(dyn Fn() -> bool + Sync), cache: Option<&dyn EntryCache>) -> Result<SearchResult> {
    let (root, walked, engine) = plan::prepare(&s.request, cwd)?;
    // The counting, the diagnosis and the page are read under one request
    // budget, which a cancel stops.
    let r = plan::watched(&s.request, stop, |budget| searched(s, (&root, &walked, &engine), words, (stop, cache), budget));
    if stop() {
        return Err(Error::Cancelled);
    }
    r
}

/// The body of [`search_with`] under the request's budget.
fn searched(
    s: &Search,
    (root, walked, engine): (&Path, &crate::request::walk::Walked, &Engine),
    words: &dyn Words,
    (stop, cache): (&(dyn Fn() -> bool + Sync), Option<&dyn EntryCache>),
    budget: &crate::engine::budget::Budget,
) -> Result<SearchResult> {
    let req = &s.request;
    let counted =
        plan::largest_first(&walked.files, |c| c.size, budget, |c| if stop() { Ok((0, FileSeen::default())) } else { count_file(engine, req, c, cache) });
    if stop() {
        return Err(Error::Cancelled);
    }
    let mut skipped: Vec<Skipped> = walked.skipped.iter().map(|(_, s)| s.clone()).collect();
    let (counts, seen): (Vec<usize>, Vec<FileSeen>) = counted
        .into_iter()
        .zip(&walked.files)
        .map(|(r, c)| {
            r.unwrap_or_else(|skip| {
                skipped.push(Skipped { path: c.display.clone(), reason: skip.0 });
                (0, FileSeen::default())
            })
        })
        .unzip();
    // The files a limit left unsearched first: the warnings are capped.
    skipped.sort_by(|a, b| (!a.reason.is_limit(), &a.path).cmp(&(!b.reason.is_limit(), &b.path)));
    let skipped_by_limits = skipped.iter().filter(|s| s.reason.is_limit()).count();
    let total: usize = counts.iter().sum();
    let files_with_matches = counts.iter().filter(|&&n| n > 0).count();
    if s.offset > 0 && s.offset >= total {
        let found = match total {
            0 => "no match".to_string(),
            n => format!("{} in {} (offset 0 to {})", plural(n, "match"), plural(files_with_matches, "file"), n - 1),
        };
        return Err(Error::bad(format!("offset {} is past the last match: the search found {found}. Start again from offset 0.", s.offset)));
    }
    let jobs = page_jobs(&counts, s.offset, s.limit);
    let pages: Vec<(Vec<SearchMatch>, std::result::Result<usize, Skip>)> =
        jobs.par_iter().map(|(i, range, _)| budget.within(|| page_of_file(engine, req, &walked.files[*i], range.clone(), cache))).collect();
    // The diagnosis of an edit (docs/DESIGN.md §2.12), on what the counting saw.
    let diagnosis = diagnose::diagnose(&diagnose::RunFacts { req, engine, files: &walked.files, seen: &seen, budget });
    let mut warnings: Vec<String> =
        plan::warning::run_warnings(req, root, engine, walked, 0, Vec::new(), diagnosis, &[]).iter().map(|w| w.text().render(words)).collect();
    warnings.extend(skipped.iter().map(|s| format!("skipped {}: {}", s.shown(), s.reason.text().render(words))));
    if total == 0 {
        let mut langs: Vec<_> = walked.files.iter().map(|c| c.lang).collect();
        langs.sort_by_key(|l| crate::request::lang::name(*l));
        langs.dedup();
        // The likeliest cause first.
        let notes = diagnose::lowercase_notes(req, &langs);
        warnings.retain(|w| !notes.contains(w));
        warnings.splice(0..0, notes);
    }
    let mut matches = Vec::new();
    for ((i, _, n), (found, now)) in jobs.iter().zip(pages) {
        if now.as_ref().ok() != Some(n) {
            warnings.push(format!(
                "{} changed during the search: its matches on this page are those of the file as it is now",
                crate::shared::quote::display_name(&walked.files[*i].display)
            ));
        }
        matches.extend(found);
    }
    let next = s.offset + matches.len();
    Ok(SearchResult {
        total_matches: total,
        files_with_matches,
        files_searched: walked.files.len(),
        matches,
        offset: s.offset,
        truncated: false,
        next_offset: (next < total).then_some(next),
        warnings: capped(warnings),
        skipped_by_limits,
    })
}

/// For the page `offset..offset + limit` of the matches counted per file:
/// `(file index, the file's matches on the page, the file's count)`.
fn page_jobs(counts: &[usize], offset: usize, limit: usize) -> Vec<(usize, Range<usize>, usize)> {
    let end = offset.saturating_add(limit);
    let mut before = 0usize;
    let mut jobs = Vec::new();
    for (i, &n) in counts.iter().enumerate() {
        if before >= end {
            break;
        }
        let (from, to) = (offset.max(before), end.min(before + n));
        if from < to {
            jobs.push((i, from - before..to - before, n));
        }
        before += n;
    }
    jobs
}

/// The warnings, each cut at [`MAX_WARNING_CHARS`], at most [`MAX_WARNINGS`]
/// (the last one counting the rest).
fn capped(mut warnings: Vec<String>) -> Vec<String> {
    if warnings.len() > MAX_WARNINGS {
        let rest = warnings.len() - (MAX_WARNINGS - 1);
        warnings.truncate(MAX_WARNINGS - 1);
        warnings.push(format!("... and {rest} more warnings (skipped files and notes)"));
    }
    warnings.into_iter().map(|w| text::cut_with_note(&w, MAX_WARNING_CHARS, Unit::Chars, "")).collect()
}

/// The text of candidate `c` and the ops that apply to it, or why it was
/// skipped; `None` when no op applies (a search and a report, `plan::report`,
/// read a file alike).
pub(crate) fn read_for_search<'e>(engine: &'e Engine, req: &Request, c: &Candidate) -> std::result::Result<Option<(String, FileOps<'e>)>, Skip> {
    let bytes = read::read_text(&c.path, req.max_filesize)?;
    read::check_text(&bytes)?;
    let ops = engine.file_ops(c.lang, &c.path);
    if ops.is_empty() {
        return Ok(None);
    }
    Ok(Some((String::from_utf8(bytes).expect("checked as UTF-8"), ops)))
}

/// How many matches `c` holds and what the diagnosis needs to know of it (was
/// it parsed, which ops matched), or why it was skipped; the count and the
/// rules through the `cache`.
fn count_file(engine: &Engine, req: &Request, c: &Candidate, cache: Option<&dyn EntryCache>) -> std::result::Result<(usize, FileSeen), Skip> {
    let Some((text, ops)) = read_for_search(engine, req, c)? else { return Ok((0, FileSeen::default())) };
    let count = || {
        let mut matched: Vec<usize> = Vec::new();
        let n = engine.search(&ops, &text, !req.no_prefilter, |_, hit| {
            if !matched.contains(&hit.rule) {
                matched.push(hit.rule);
            }
        })?;
        matched.sort_unstable();
        Ok((n, matched))
    };
    let key = cache::keyed(cache, req, &ops, c, &text, stored::COUNT);
    let (n, matched) = cache::through(key, stored::decode_count, count, |counted| Some(stored::encode_count(counted)))?;
    let parsed = n > 0 || req.no_prefilter || ops.own.iter().any(|op| op.may_match(text.as_bytes()));
    Ok((n, FileSeen { parsed, matched, left_alone: false }))
}

/// The matches `range` (by their index in the file) of `c`, and the file's count
/// now (or why it was skipped); through the `cache`, keyed with the range.
fn page_of_file(
    engine: &Engine,
    req: &Request,
    c: &Candidate,
    range: Range<usize>,
    cache: Option<&dyn EntryCache>,
) -> (Vec<SearchMatch>, std::result::Result<usize, Skip>) {
    let (text, ops) = match read_for_search(engine, req, c) {
        Ok(Some(t)) => t,
        Ok(None) => return (Vec::new(), Ok(0)),
        Err(skip) => return (Vec::new(), Err(skip)),
    };
    let key = cache::keyed(cache, req, &ops, c, &text, &stored::page_kind(&range));
    let page = cache::through(
        key,
        |entry| stored::decode_page(entry).map(|(found, n)| (found, Ok(n))),
        || Ok::<_, std::convert::Infallible>(page_made(engine, req, c, &text, &ops, range)),
        |(found, n)| n.as_ref().ok().map(|&n| stored::encode_page(found, n)),
    );
    page.unwrap_or_else(|never| match never {})
}

/// [`page_of_file`] of the file `c` holding `text`, made.
fn page_made(
    engine: &Engine,
    req: &Request,
    c: &Candidate,
    text: &str,
    ops: &FileOps<'_>,
    range: Range<usize>,
) -> (Vec<SearchMatch>, std::result::Result<usize, Skip>) {
    let mut found = Vec::with_capacity(range.len());
    let names = req.rule_set.as_ref().map(|_| req.rule_names());
    // The named scopes of each tree a listed match is in, found once per tree.
    let mut scopes: Vec<(usize, Vec<Scope>)> = Vec::new();
    let n = engine.search(ops, text, !req.no_prefilter, |i, hit| {
        if range.contains(&i) {
            let body = &text[hit.source.clone()];
            let k = match scopes.iter().position(|(id, _)| *id == hit.root.id()) {
                Some(k) => k,
                None => {
                    scopes.push((hit.root.id(), scopes_of(body, hit.root)));
                    scopes.len() - 1
                }
            };
            let mut m = located(&c.display, text, hit, &scopes[k].1);
            m.rule = names.as_ref().and_then(|n| n.get(hit.rule).cloned());
            m.message = hit.message.as_deref().map(|t| text::ellipsized(t, MAX_MATCH_TEXT_CHARS));
            found.push(m);
        }
    });
    (found, n)
}

/// A match's position, first line and enclosing name (`scopes`: its tree's).
fn located(path: &str, text: &str, hit: &Hit<'_>, scopes: &[Scope]) -> SearchMatch {
    let column = text[hit.line_start()..hit.start].chars().count() + 1;
    let matched = &text[hit.start..hit.end];
    let first = matched.split('\n').next().unwrap_or("").trim_end_matches('\r');
    SearchMatch {
        path: path.to_string(),
        line: hit.line() + 1,
        column,
        end_line: hit.end_line() + 1,
        text: text::ellipsized(first, MAX_MATCH_TEXT_CHARS),
        enclosing: enclosing_among(scopes, &text[hit.source.clone()], hit.node),
        rule: None,
        message: None,
    }
}

impl SearchResult {
    /// The line of one match: `path:line:column: text (in function load)`, the
    /// path quoted as git quotes it and control characters escaped.
    pub(crate) fn match_line(m: &SearchMatch) -> String {
        let mut line = format!("{}:{}:{}: {}", crate::shared::quote::display_name(&m.path), m.line, m.column, crate::shared::quote::escape_controls(&m.text));
        if let Some(e) = &m.enclosing {
            line.push_str(&format!(" (in {})", crate::shared::quote::escape_controls(e)));
        }
        if let Some(rule) = &m.rule {
            line.push_str(&format!(" [{}]", crate::shared::quote::escape_controls(rule)));
        }
        if let Some(message) = &m.message {
            line.push(' ');
            line.push_str(&crate::shared::quote::escape_controls(message));
        }
        line
    }

    /// The first line: the counts, and which matches the page shows.
    fn header(&self) -> String {
        let searched = plural(self.files_searched, "file");
        if self.total_matches == 0 {
            return format!("Found 0 matches (searched {searched})");
        }
        let found = format!("Found {} in {}", plural(self.total_matches, "match"), plural(self.files_with_matches, "file"));
        if self.offset == 0 && self.next_offset.is_none() {
            return format!("{found} (searched {searched})");
        }
        let shown = match self.matches.len() {
            0 => "none shown".to_string(),
            n => format!("showing {}-{} of {}", self.offset + 1, self.offset + n, self.total_matches),
        };
        format!("{found} (searched {searched}; {shown})")
    }

    /// The result as text: the header, one line per match, the warnings, and
    /// how to get the next page (in the words of `words`).
    pub fn render(&self, words: &dyn Words) -> String {
        let mut out = self.header();
        for m in &self.matches {
            out.push('\n');
            out.push_str(&Self::match_line(m));
        }
        for w in &self.warnings {
            out.push_str("\nwarning: ");
            out.push_str(&crate::shared::quote::escape_controls(w));
        }
        if let Some(next) = self.next_offset {
            out.push('\n');
            out.push_str(&words.say(&Say::NextPage(next)));
        }
        if self.skipped_by_limits > 0 {
            out.push_str(&format!(
                "\nincomplete: {} not searched to the end because of ast-edit's limits (named above); the counts leave out their matches",
                plural(self.skipped_by_limits, "file")
            ));
        }
        out
    }

    /// Ends the page early, if needed, so that [`SearchResult::render`] keeps
    /// within `text_chars` characters and the JSON within `json_chars`: whole
    /// matches, a prefix of the page (at least one). `truncated` is then true
    /// and `next_offset` goes on from the first match left out.
    pub fn fit(&mut self, words: &dyn Words, text_chars: usize, json_chars: usize) {
        if self.matches.is_empty() {
            return;
        }
        let all = std::mem::take(&mut self.matches);
        let next = self.next_offset;
        // The fixed parts, at their widest: a next page, the widest header.
        self.next_offset = Some(usize::MAX);
        let chars = |s: &str| s.chars().count();
        const HEADER_SLACK: usize = 64;
        let mut used_text = chars(&self.render(words)) + HEADER_SLACK;
        let mut used_json = chars(&serde_json::to_string(self).expect("a result serializes"));
        let mut keep = 0;
        for m in &all {
            let t = chars(&Self::match_line(m)) + 1;
            let j = chars(&serde_json::to_string(m).expect("a match serializes")) + usize::from(keep > 0);
            if keep > 0 && (used_text + t > text_chars || used_json + j > json_chars) {
                break;
            }
            used_text += t;
            used_json += j;
            keep += 1;
        }
        let cut = keep < all.len();
        self.matches = all;
        self.matches.truncate(keep);
        self.truncated |= cut;
        self.next_offset = if cut { Some(self.offset + keep) } else { next };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_cut_from_the_counts_per_file() {
        // Files of 3, 0, 2 and 4 matches; page 2..6 takes 1 of the first, 2 of the
        // third, 1 of the fourth.
        assert_eq!(page_jobs(&[3, 0, 2, 4], 2, 4), vec![(0, 2..3, 3), (2, 0..2, 2), (3, 0..1, 4)]);
        assert_eq!(page_jobs(&[3, 0, 2, 4], 0, 20), vec![(0, 0..3, 3), (2, 0..2, 2), (3, 0..4, 4)]);
        assert!(page_jobs(&[0, 0], 0, 20).is_empty());
    }

    #[test]
    fn fit_keeps_whole_matches_within_both_budgets() {
        let m = |i: usize| SearchMatch {
            path: format!("d/f{i}.py"),
            line: i + 1,
            column: 1,
            end_line: i + 1,
            text: "x".repeat(150),
            enclosing: None,
            rule: None,
            message: None,
        };
        let mut r = SearchResult {
            total_matches: 500,
            files_with_matches: 500,
            files_searched: 500,
            matches: (0..200).map(m).collect(),
            offset: 100,
            truncated: false,
            next_offset: Some(300),
            warnings: Vec::new(),
            skipped_by_limits: 0,
        };
        r.fit(&crate::shared::message::Plain, 5_000, 40_000);
        assert!(r.truncated && r.matches.len() < 200 && !r.matches.is_empty());
        assert_eq!(r.next_offset, Some(100 + r.matches.len()));
        assert!(r.render(&crate::shared::message::Plain).chars().count() <= 5_000);
        r.fit(&crate::shared::message::Plain, 100_000, 2_000);
        assert!(serde_json::to_string(&r).unwrap().len() <= 2_000);
    }
}
