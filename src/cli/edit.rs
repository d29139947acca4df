//! `run` and `scan`: build the request (from flags, a JSON request or rule files),
//! plan it with a progress bar, then stage it (the preview), apply it at once
//! (`-U`) or hand it to the interactive review (`-i`), and render the result.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::time::Instant;

use super::inspect::Inspect;
use super::print::{self, Style};
use super::report::{self, Report};
use super::words::WORDS;
use super::{ColorChoice, OutputArgs, RunArgs, ScanArgs, open_store, review, spinner, style, write_json};
use ast_edit::app::apply::ApplyOptions;
use ast_edit::app::cache::EntryCache;
use ast_edit::app::error::{Error, Result};
use ast_edit::app::overwrite::{Overwrite, parse_severity};
use ast_edit::app::plan::{self, Plan};
use ast_edit::app::project::NoIgnoreConfig;
use ast_edit::app::quote::escape_controls;
use ast_edit::app::report::RuleSeverity as Severity;
use ast_edit::app::request::{Op, RawRequest, Request, WalkOptions};
use ast_edit::app::retired;
use ast_edit::app::scan::{self, ScanInput};
use ast_edit::app::workflow::{self, Preview};
use ast_edit::app::workspace::Workspace;

/// How to present a plan.
pub(super) struct Emit {
    json: bool,
    update_all: bool,
    interactive: bool,
    style: Style,
    /// What `-U` may write (`--skip-flagged`, `--allow-flagged`).
    apply: ApplyOptions,
    /// A scan: a match of a `severity: error` rule fails it, fix or not, unless
    /// the fixes are written (`-U`, `-i`), as `ast-grep scan`.
    scan: bool,
    /// `--stats`: the end-of-run table on stderr.
    stats: bool,
    /// The scan cache is read and written (no `--no-cache`).
    cache: bool,
}

impl OutputArgs {
    fn emit(&self, color: ColorChoice, json: bool, scan: bool) -> Result<Emit> {
        if self.interactive && !std::io::stdin().is_terminal() {
            return Err(Error::bad("--interactive needs a terminal on stdin; without one, preview and `resolve`, or apply everything with -U"));
        }
        let allow = self.allow_flagged;
        let apply = ApplyOptions {
            skip_flagged: self.skip_flagged,
            allow_syntax_errors: allow,
            allow_structure_changes: allow,
            allow_template_mismatch: allow,
            ..ApplyOptions::default()
        };
        let cache = !self.no_cache;
        Ok(Emit { json, update_all: self.update_all, interactive: self.interactive, style: style(color, self.full), apply, scan, stats: self.stats, cache })
    }

    /// `-C N`, checked against [`ast_edit::app::request::MAX_CONTEXT_LINES`]; it overrides a
    /// `--request`'s `contextLines`.
    fn context_lines(&self) -> Result<Option<usize>> {
        self.context.map(|n| ast_edit::app::request::check_context(n, "-C")).transpose()
    }
}

/// `ast-edit run`.
pub(super) fn run(a: RunArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    // `run` uses no project (ast-grep's trace names the one it finds).
    let trace = Inspect::run(a.output.inspect);
    trace.project(None);
    let cwd = ast_edit::app::files::current_dir()?;
    let context = a.output.context_lines()?;
    // A `--request` may name a `project` (docs/MCP.md, "A project's rules").
    let checked = ast_edit::app::project_rules::validate(build_raw(&a)?, &cwd, None, a.input.walk(), a.input.max_filesize)?;
    for w in &checked.warnings {
        eprintln!("warning: {w}");
    }
    let mut req = checked.request;
    a.input.limit(&mut req);
    req.no_prefilter = a.no_prefilter;
    req.verbatim |= a.verbatim;
    req.context_lines = context.unwrap_or(req.context_lines);
    let how = a.output.emit(color, a.json, false)?;
    let started = Instant::now();
    let plan = build_plan(&req, &cwd, !a.output.no_cache)?;
    traced(&trace, &req, &cwd, plan, |plan| emit(plan, how, started, out))
}

/// `emit(plan)`, then the end of the trace: the files are traced before
/// `emit` may write the fixes.
fn traced(trace: &Inspect, req: &Request, cwd: &Path, plan: Plan, emit: impl FnOnce(Plan) -> anyhow::Result<i32>) -> anyhow::Result<i32> {
    let files = trace.trace_files(req, cwd, &plan.skipped);
    let code = emit(plan)?;
    trace.finish(files.as_ref());
    Ok(code)
}

/// `ast-edit scan`.
pub(super) fn scan(a: ScanArgs, color: ColorChoice, out: &mut impl Write) -> anyhow::Result<i32> {
    let cwd = ast_edit::app::files::current_dir()?;
    let context = a.output.context_lines()?;
    // ast-grep's choice of files: hidden files are scanned, hidden folders not.
    let walk = WalkOptions { hidden_files: true, ..a.input.walk() };
    let mut trace = Inspect::scan(a.output.inspect);
    // The same checks as `run` for the paths and globs, then the rules.
    // The project's `noIgnore` widens the walk, as ast-grep's.
    let mut no_ignore = Default::default();
    let rules = || {
        if let Some(file) = &a.rule {
            retired::refuse(file)?;
        }
        load_rule_set(&a, &cwd, &mut trace, &mut no_ignore)
    };
    let paths = scanned_paths(&a.paths, &cwd);
    let mut req = RawRequest { paths, globs: a.input.globs.clone(), ..Default::default() }.validate_rules(rules, &cwd, walk, a.input.max_filesize)?;
    no_ignore.widen(&mut req.walk);
    a.input.limit(&mut req);
    req.rewrite_nested = a.rewrite_nested;
    req.verbatim = a.verbatim;
    if let Some(how) = report_of(&a, color) {
        let source = if a.stdin { report::Source::Stdin(read_stdin(a.input.max_filesize)?) } else { report::Source::Files };
        let shown = report::Shown { max_results: a.max_results.map(usize::from), fixes_pass: a.output.update_all, cache: !a.output.no_cache };
        return report::run(&req, &cwd, source, how, shown, &trace, out);
    }
    if a.max_results.is_some() {
        return Err(Error::bad(
            "--max-results limits a report: give it with --json, --format, --files-with-matches or --report-style (a preview stages every fix)",
        )
        .into());
    }
    req.context_lines = context.unwrap_or(req.context_lines);
    let how = a.output.emit(color, a.preview_json, true)?;
    let started = Instant::now();
    let plan = build_plan(&req, &cwd, !a.output.no_cache)?;
    traced(&trace, &req, &cwd, plan, |plan| emit(plan, how, started, out))
}

/// The paths `scan` searches: as ast-grep, a path that does not exist is
/// named on stderr and the others are scanned (the exit code is theirs);
/// when none exists, all are kept and the request refuses them (exit 2).
fn scanned_paths(paths: &[String], cwd: &Path) -> Vec<String> {
    let (found, missing): (Vec<&String>, Vec<&String>) = paths.iter().partition(|p| std::fs::symlink_metadata(cwd.join(p.as_str())).is_ok());
    if found.is_empty() {
        return paths.to_vec();
    }
    for p in missing {
        eprintln!("error: path not found: {} (relative to {}); the other paths are scanned", escape_controls(p), escape_controls(&cwd.display().to_string()));
    }
    found.into_iter().cloned().collect()
}

/// Standard input, at most `cap` bytes, as text.
fn read_stdin(cap: u64) -> Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin().take(cap + 1).read_to_end(&mut bytes).map_err(|e| Error::io("cannot read standard input", e))?;
    if bytes.len() as u64 > cap {
        return Err(Error::bad(format!("standard input is over {cap} bytes, the cap of --max-filesize; raise it to scan more")));
    }
    String::from_utf8(bytes).map_err(|_| Error::bad("standard input is not valid UTF-8 text; give the code as UTF-8"))
}

/// The report `a` asks for, if any (`--json`, `--format`,
/// `--files-with-matches`, `--report-style`; `--stdin` is a rich report unless
/// another is named).
fn report_of(a: &ScanArgs, color: ColorChoice) -> Option<Report> {
    if let Some(style) = a.json {
        return Some(Report::Json { style, metadata: a.include_metadata });
    }
    if let Some(f) = a.format {
        return Some(Report::Format(f));
    }
    if a.files_with_matches {
        return Some(Report::FilesWithMatches);
    }
    let style = a.report_style.or(a.stdin.then_some(report::ReportStyle::Rich))?;
    let (before, after) = match a.output.context {
        Some(c) => (c as usize, c as usize),
        None => (a.before.unwrap_or(0) as usize, a.after.unwrap_or(0) as usize),
    };
    Some(Report::Text { style, before, after, print: super::style(color, false) })
}

/// The rules of `scan` (`app::scan::rules`): `--inline-rules`, `-r FILE`, or
/// the project's (the nearest sgconfig.yml, or `-c FILE`). Loading warnings go
/// to stderr, and so do the project's and the rules' lines of the trace.
fn load_rule_set(a: &ScanArgs, cwd: &Path, trace: &mut Inspect, no_ignore: &mut NoIgnoreConfig) -> Result<ast_edit::app::request::RuleSet> {
    let input = ScanInput {
        config: a.config.as_deref(),
        rule_file: a.rule.as_deref(),
        inline_rules: a.inline_rules.as_deref(),
        filter: a.filter.as_deref(),
        stdin: a.stdin,
        overwrite: overwrite(a)?,
    };
    let custom = a.custom_languages;
    let rules = scan::rules(input, cwd, &mut |dir| trace.project(dir), &|p| custom.check(p))?;
    if let Some(t) = rules.trace {
        trace.rules(t);
    }
    *no_ignore = rules.no_ignore;
    for w in &rules.warnings {
        eprintln!("warning: {w}");
    }
    if rules.none {
        // As ast-grep: nothing to report is no failure.
        eprintln!("warning: no rule to run: the rules loaded are all `severity: off` (or below --min-severity), or there are none");
    }
    Ok(rules.rule_set)
}

/// The severity overrides of `scan`'s flags, in ast-grep's order.
fn overwrite(a: &ScanArgs) -> Result<Overwrite> {
    let mut o = Overwrite::default();
    for (severity, ids) in [
        (Some(Severity::Error), &a.error),
        (Some(Severity::Warning), &a.warning),
        (Some(Severity::Info), &a.info),
        (Some(Severity::Hint), &a.hint),
        (None, &a.off),
    ] {
        if let Some(ids) = ids {
            o.set(severity, ids);
        }
    }
    if let Some(min) = &a.min_severity {
        let s = parse_severity(min).ok_or_else(|| Error::bad(format!("--min-severity `{min}` is not a severity; give one of hint, info, warning, error")))?;
        o.min_severity(s);
    }
    Ok(o)
}

fn build_raw(a: &RunArgs) -> Result<RawRequest> {
    if let Some(src) = &a.request {
        // Read one byte past the limit at most: `from_json` refuses the rest.
        let cap = ast_edit::app::request::MAX_REQUEST_JSON_BYTES as u64 + 1;
        let mut text = String::new();
        if src == "-" {
            std::io::stdin().take(cap).read_to_string(&mut text).map_err(|e| Error::io("cannot read the request from stdin", e))?;
        } else {
            super::open_named(Path::new(src), "the request file")?
                .take(cap)
                .read_to_string(&mut text)
                .map_err(|e| Error::bad(format!("cannot read the request file {src}: {e}")))?;
        }
        return RawRequest::from_json(&text);
    }
    if a.pattern.is_empty() {
        return Err(Error::bad("no ops given: pass a pattern and a rewrite (`-p PAT -r REW`) or a JSON request (`--request FILE`)"));
    }
    if a.pattern.len() != a.rewrite.len() {
        return Err(Error::bad(format!(
            "got {} pattern(s) (-p) but {} rewrite(s) (-r): give one -r for each -p, in the same order (`-r ''` deletes the match)",
            a.pattern.len(),
            a.rewrite.len()
        )));
    }
    Ok(RawRequest {
        ops: a.pattern.iter().zip(&a.rewrite).map(|(p, r)| Op { pat: p.clone(), out: r.clone() }).collect(),
        paths: a.paths.clone(),
        lang: a.lang.clone(),
        selector: a.selector.clone(),
        strictness: a.strictness.clone(),
        globs: a.input.globs.clone(),
        max_files: a.max_files,
        rule: None,
        rewrite_nested: Some(a.rewrite_nested),
        verbatim: Some(a.verbatim),
        context_lines: None,
        project: None,
        filter: None,
    })
}

/// Plans with a progress bar on stderr when it is a terminal, and with the
/// scan cache (docs/DESIGN.md section 2.14) when `cache` (no `--no-cache`).
fn build_plan(req: &Request, cwd: &Path, cache: bool) -> Result<Plan> {
    let cache = cache.then(|| Workspace::new(cwd).scan_cache(req));
    let entries = cache.as_ref().map(|c| c as &dyn EntryCache);
    let plan = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(indicatif::ProgressStyle::with_template("{spinner} planning {pos}/{len} files [{elapsed}]").expect("valid template"));
        let plan = plan::build_with_progress(
            req,
            cwd,
            &|done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            },
            entries,
        );
        bar.finish_and_clear();
        plan
    } else {
        plan::build_with_progress(req, cwd, &|_, _| {}, entries)
    };
    if let Some(c) = &cache {
        c.finish();
    }
    plan
}

/// Stages (or with -U applies, or with -i reviews) a plan and prints it, then
/// with `--stats` the end-of-run table on stderr (after stdout is flushed, so on a terminal it
/// really comes last; it holds a time, so it is not part of the output proper).
fn emit(plan: Plan, how: Emit, started: Instant, out: &mut impl Write) -> anyhow::Result<i32> {
    // As `ast-grep scan` without -U: a match of a `severity: error` rule fails
    // the run, fix or not (with -U or -i only the findings count, below).
    let fails = how.scan && !how.interactive && !how.update_all && fixes_of_error_rules(&plan);
    let work = plan.work.clone();
    let (code, details) = if how.interactive {
        review::review(plan, how.style, how.cache, out)?
    } else if how.update_all {
        update_all(plan, &how, out)?
    } else {
        let findings = if how.json { None } else { report::preview_findings(&plan, how.style, how.cache) };
        let (_, store) = open_store()?;
        let shown = workflow::stage(&store, plan, WORDS)?;
        if how.json {
            write_json(out, &shown.details)?;
        } else {
            print_preview(out, &shown, findings.as_deref(), how.style)?;
            match &shown.details.id {
                Some(id) if shown.already_pending => print::already_pending(out, id)?,
                Some(id) => print::how_to_resolve(out, id)?,
                None => writeln!(out, "No changes: nothing staged.")?,
            }
        }
        (0, shown.details)
    };
    if how.stats && !how.json {
        out.flush()?;
        print::table(&mut std::io::stderr(), &details, &work, started.elapsed())?;
    }
    // `scan` exits with ast-grep's codes, which give 1 and 3 other meanings:
    // an apply that failed is 11 there, an incomplete one 12 (docs/RULES.md,
    // "Exit codes").
    let code = match (how.scan, code) {
        (true, 1) => super::exit::SCAN_APPLY_FAILED,
        (true, 3) => super::exit::SCAN_APPLY_INCOMPLETE,
        _ => code,
    };
    // A file one of our limits left unsearched fails the run, ahead of
    // findings: the answer is incomplete (docs/DESIGN.md section 7).
    if (code == 0 || code == 1) && details.skipped_by_limits > 0 {
        eprintln!("{}", super::exit::limit_skipped_line(details.skipped_by_limits));
        return Ok(super::exit::LIMIT_SKIPPED);
    }
    // As `ast-grep scan`: a finding of a `severity: error` rule fails the run
    // (after the preview was staged or applied), and so does its fix unless written.
    if code == 0 && (fails || details.findings.iter().any(|f| f.severity == "error")) {
        eprintln!("error: rules with `severity: error` matched; the scan fails (exit 1), as `ast-grep scan` does");
        return Ok(1);
    }
    Ok(code)
}

/// True when a rule of `severity: error` has a fix in the plan (an edit, or a
/// match an edit overlapped).
fn fixes_of_error_rules(plan: &Plan) -> bool {
    let names = plan.request.rule_names();
    let error: Vec<bool> = (0..names.len()).map(|i| plan.request.severity(i) == "error").collect();
    plan.files.iter().flat_map(|f| &f.edits).any(|e| error.get(e.op).copied().unwrap_or(false))
        || plan.overlapped.iter().any(|o| names.iter().position(|n| *n == o.rule).is_some_and(|i| error[i]))
}

/// Prints a preview: diffs, findings (`drawn` when they could be drawn with
/// their code, else one line each), the table of rules, the summary.
fn print_preview(out: &mut impl Write, shown: &Preview, drawn: Option<&[u8]>, style: Style) -> std::io::Result<()> {
    print::diffs(out, &shown.details, style)?;
    findings(out, shown, drawn)?;
    print::per_rule(out, &shown.per_rule)?;
    print::summary(out, &shown.details, style)
}

/// The findings: `drawn` with their code, or one line each.
fn findings(out: &mut impl Write, shown: &Preview, drawn: Option<&[u8]>) -> std::io::Result<()> {
    match drawn {
        Some(bytes) => out.write_all(bytes),
        None => print::findings(out, &shown.details),
    }
}

/// `-U`: the plan applied at once with the verified writer, journalled for undo.
fn update_all(plan: Plan, how: &Emit, out: &mut impl Write) -> anyhow::Result<(i32, ast_edit::app::preview::PreviewDetails)> {
    let (json, style) = (how.json, how.style);
    let mut shown = Preview::of(&plan, WORDS);
    // Drawn before the fixes are written: the findings are those of the code
    // the plan was made from.
    let drawn = if json { None } else { report::preview_findings(&plan, style, how.cache) };
    if plan.files.is_empty() {
        if json {
            write_json(out, &shown.details)?;
        } else {
            findings(out, &shown, drawn.as_deref())?;
            print::summary(out, &shown.details, style)?;
            writeln!(out, "No changes: nothing written.")?;
        }
        return Ok((0, shown.details));
    }
    let (_, store) = open_store()?;
    let bar = spinner("applying (verifying and writing files)");
    let applied = workflow::apply_fresh(&store, &plan, how.apply.clone(), &shown.details.label, how.cache);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let (id, report) = match applied {
        Ok(r) => r,
        Err(e) => {
            let message = super::words::update_error(&e);
            if !json {
                eprintln!("error: {message}");
            }
            shown.details.record_failure(message);
            if json {
                write_json(out, &shown.details)?;
            }
            return Ok((1, shown.details));
        }
    };
    shown.details.record_apply(&report);
    if json {
        write_json(out, &shown.details)?;
    } else {
        print::diffs(out, &shown.details, style)?;
        findings(out, &shown, drawn.as_deref())?;
        print::summary(out, &shown.details, style)?;
        writeln!(out, "{}", report.text())?;
        if report.applied {
            print::undo_line(out, &id)?;
        }
    }
    let code = if report.status == ast_edit::app::status::ApplyStatus::Incomplete { 3 } else { 0 };
    Ok((code, shown.details))
}
