//! `scan` as a report: `--json[=STYLE]`, `--format github|sarif`,
//! `--files-with-matches` and `--report-style` print every match of every rule
//! as `ast-grep scan` does, file by file in path order, and stage nothing
//! (docs/RULES.md, "Reports"). The matches come from the library
//! (`ast_edit::app::report`); this module only renders them.
//!
//! Exit code: 13 when one of ast-edit's limits left a file unsearched (named
//! on stderr, as a `::error` annotation, in the SARIF invocation); else 1 when
//! a rule of `severity: error` matched (fix or not), as `ast-grep scan`
//! without `-U`; else 0.

mod cloud;
mod json;
mod text;

use std::io::Write;
use std::path::Path;

use ast_edit::app::cache::EntryCache;
use ast_edit::app::quote::escape_controls;
use ast_edit::app::report::{self, RuleSeverity};
use ast_edit::app::request::Request;
use ast_edit::app::workspace::Workspace;

pub use cloud::Format;
pub use json::JsonStyle;
pub use text::ReportStyle;

use super::inspect::Inspect;
use super::print::Style;
use super::words::WORDS;

/// Which report.
pub enum Report {
    /// `--json[=STYLE]`, with rule metadata when asked (`--include-metadata`).
    Json { style: JsonStyle, metadata: bool },
    /// `--format`.
    Format(Format),
    /// `--files-with-matches`: each file with a match, once.
    FilesWithMatches,
    /// `--report-style`, with lines of code before and after each match.
    Text { style: ReportStyle, before: usize, after: usize, print: Style },
}

/// What a report reads.
pub enum Source {
    /// The files of the request's paths.
    Files,
    /// Code read from standard input (`--stdin`), as the first rule's language.
    Stdin(String),
}

/// The name standard input's matches are shown under, as in ast-grep.
const STDIN: &str = "STDIN";

/// What a report shows of the matches, and what fails it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown {
    /// `--max-results`: the first this many matches (in path order, then by
    /// position) are shown and counted, and the scan stops there.
    pub max_results: Option<usize>,
    /// `-U` with `--json` or `--format`: as ast-grep, the report is printed
    /// and nothing is written, and a match of a rule with a fix fails nothing
    /// (`-U` is there to fix it).
    pub fixes_pass: bool,
    /// Read and keep the reports of files seen before (`--no-cache`: false).
    pub cache: bool,
}

/// Runs `req` as a report of `source` on `out`, with the files' end of
/// `trace`; returns the exit code.
pub fn run(req: &Request, cwd: &Path, source: Source, how: Report, shown: Shown, trace: &Inspect, out: &mut impl Write) -> anyhow::Result<i32> {
    // The scan cache (docs/DESIGN.md section 2.14), unless `--no-cache`.
    let cache = shown.cache.then(|| Workspace::new(cwd).scan_cache(req));
    let mut sarif = Vec::new();
    let mut json = match &how {
        Report::Json { style, metadata } => Some(json::Writer::start(out, *style, *metadata)?),
        _ => None,
    };
    let draw = match &how {
        Report::Text { style, before, after, print } => Some(text::Text::new(*style, *before, *after, *print)),
        _ => None,
    };
    let mut failed: Option<std::io::Error> = None;
    // The matches shown that fail the scan, and those left to show.
    let mut errors = 0usize;
    let mut left = shown.max_results;
    let mut each = |mut file: report::FileReport| {
        if let Some(n) = left.as_mut() {
            file.matches.truncate(*n);
            *n -= file.matches.len();
        }
        errors += file.matches.iter().filter(|m| m.rule.severity == RuleSeverity::Error && !(shown.fixes_pass && m.replacement.is_some())).count();
        let written = match &how {
            Report::Json { .. } => json.as_mut().expect("started").file(out, &file),
            Report::Format(Format::Github) => cloud::github(out, &file),
            Report::Format(Format::Sarif) => {
                sarif.extend(cloud::sarif_results(&file));
                Ok(())
            }
            Report::FilesWithMatches => writeln!(out, "{}", ast_edit::app::quote::display_name(&file.path)),
            Report::Text { .. } => draw.as_ref().expect("made").file(out, &file),
        };
        // A stream is read as it comes.
        let written = written.and_then(|()| if matches!(how, Report::Json { style: JsonStyle::Stream, .. }) { out.flush() } else { Ok(()) });
        match written {
            Ok(()) => left != Some(0),
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    };
    // As ast-grep, standard input has no file trace.
    let (summary, files) = match source {
        Source::Files => {
            let summary = report::report(req, cwd, cache.as_ref().map(|c| c as &dyn EntryCache), &mut each)?;
            if let Some(c) = &cache {
                c.finish();
            }
            let files = trace.trace_files(req, cwd, &summary.skipped);
            (summary, files)
        }
        Source::Stdin(text) => {
            let (file, summary) = report::report_text(req, cwd, text, STDIN)?;
            if let Some(file) = file {
                each(file);
            }
            (summary, None)
        }
    };
    if let Some(e) = failed {
        return Err(e.into());
    }
    if let Some(w) = json {
        w.finish(out)?;
    }
    // The files one of our limits left unsearched are named in every output:
    // stderr always, and the annotations and the SARIF log.
    let unsearched: Vec<(&str, String)> =
        summary.skipped.iter().filter(|s| s.reason.is_limit()).map(|s| (s.path.as_str(), s.reason.text().render(WORDS))).collect();
    if matches!(how, Report::Format(Format::Github)) {
        for (path, reason) in &unsearched {
            cloud::github_unsearched(out, path, reason)?;
        }
    }
    if matches!(how, Report::Format(Format::Sarif)) {
        cloud::sarif_log(out, sarif, &unsearched)?;
    }
    out.flush()?;
    for s in &summary.skipped {
        eprintln!("skipped {}: {}", s.shown(), escape_controls(&s.reason.text().render(WORDS)));
    }
    for w in &summary.warnings {
        eprintln!("warning: {}", escape_controls(&w.text().render(WORDS)));
    }
    trace.finish(files.as_ref());
    // A cap the user set stops the scan; it says so, never silently.
    if let (Some(n), Some(0)) = (shown.max_results, left) {
        eprintln!("note: --max-results {n}: the first {n} matches are shown and counted; the scan stopped there");
    }
    if !unsearched.is_empty() {
        eprintln!("{}", super::exit::limit_skipped_line(unsearched.len()));
        return Ok(super::exit::LIMIT_SKIPPED);
    }
    if errors > 0 {
        eprintln!("error: {errors} match(es) of rules with `severity: error` in {} searched file(s); the scan fails (exit 1)", summary.files_searched);
        return Ok(1);
    }
    Ok(0)
}

/// The findings of a preview's `plan` drawn as `--report-style rich` draws them
/// (code frame, labels, note), at most `print::MAX_FINDINGS_SHOWN`; `None` when
/// they cannot be matched again (a file changed since): the caller then prints
/// the plan's own one-line findings. With `cache` (no `--no-cache`), the files
/// are matched through the scan cache, as a report is.
pub fn preview_findings(plan: &ast_edit::app::plan::Plan, print: Style, cache: bool) -> Option<Vec<u8>> {
    if plan.findings.is_empty() {
        return Some(Vec::new());
    }
    let draw = text::Text::new(ReportStyle::Rich, 0, 0, print);
    let mut buf = Vec::new();
    let mut drawn = 0;
    let cache = cache.then(|| Workspace::new(&plan.cwd).scan_cache(&plan.request));
    let found = report::findings_of(plan, super::print::MAX_FINDINGS_SHOWN, cache.as_ref().map(|c| c as &dyn EntryCache), &mut |file| {
        drawn += file.matches.len();
        draw.file(&mut buf, &file).is_ok()
    });
    if let Some(c) = &cache {
        c.finish();
    }
    found.ok()?;
    if plan.findings.len() > drawn {
        let more = plan.findings.len() - drawn;
        buf.extend(format!("... and {more} more findings (--json lists them all)\n").into_bytes());
    }
    Some(buf)
}
