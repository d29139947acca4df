//! Human output: coloured, budgeted diffs and summaries. Consumes plain data
//! (preview details, reports); never decides anything and never touches the files.
//!
//! File names are shown git-quoted when they need it (`ast_edit::app::quote`: a tab, a
//! newline, an ESC sequence or a non-ASCII byte in a name never reaches the
//! terminal raw), and free text (skip reasons, warnings) has its control
//! characters escaped; JSON output keeps the exact names.

use std::io::{self, Write};

use ast_edit::app::plan::{RuleCount, Work};
use ast_edit::app::preview::PreviewDetails;
use ast_edit::app::quote::{display_name, escape_controls};
use ast_edit::app::text::{self, Fit, Unit, plural};

/// Longest diff line printed in full; longer lines are cut with a note.
pub const MAX_LINE: usize = 400;
/// Diff lines printed before the rest of a preview is summarised (unless `--full`).
pub const MAX_LINES: usize = 2000;

/// How to print.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Use ANSI colours.
    pub color: bool,
    /// Print every diff line in full.
    pub full: bool,
}

/// Wraps `s` in an ANSI colour when `color` is on.
pub fn paint(color: bool, code: &str, s: &str) -> String {
    if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
}

/// A diff line as printed: cut to [`MAX_LINE`] bytes unless `--full`, and
/// coloured by its kind. Coloured, it is for a terminal, and what could drive
/// the terminal (an escape, a carriage return, a bidirectional override in the
/// code) is shown as `?`; plain, it stays the bytes `git apply` needs.
fn diff_line(line: &str, style: Style) -> String {
    let line = if style.full { line.to_string() } else { text::cut_with_note(line, MAX_LINE, Unit::Bytes, "; see --full or --json") };
    let line = if style.color { ast_edit::app::quote::shown_source(&line).into_owned() } else { line };
    let code = if line.starts_with("+++") || line.starts_with("---") {
        "1"
    } else if line.starts_with('+') {
        "32"
    } else if line.starts_with('-') {
        "31"
    } else if line.starts_with("@@") {
        "36"
    } else {
        return line;
    };
    paint(style.color, code, &line)
}

/// Prints the diffs of a preview, within the budget of [`MAX_LINES`] lines:
/// the files whose rewrite adds syntax errors first, each followed by where
/// (`PreviewFile::syntax_error_lines`), then the others (`--json` keeps path
/// order).
pub fn diffs(out: &mut impl Write, d: &PreviewDetails, style: Style) -> io::Result<()> {
    let mut printed = 0usize;
    let mut fit = Fit::default();
    let mut result: io::Result<()> = Ok(());
    for (_, f) in d.files_flagged_first() {
        let shown = fit.file(&f.diff, |line| {
            if !style.full && printed >= MAX_LINES {
                return false;
            }
            if result.is_ok() {
                result = writeln!(out, "{}", diff_line(line, style));
            }
            printed += 1;
            true
        });
        std::mem::replace(&mut result, Ok(()))?;
        if shown && f.syntax_errors_introduced {
            writeln!(out, "{}", paint(style.color, "33", &format!("warning: {}: this rewrite introduces syntax errors", display_name(&f.path))))?;
            for line in f.syntax_error_lines() {
                writeln!(out, "  {}", text::cut_with_note(&line, MAX_LINE, Unit::Bytes, ""))?;
            }
        }
        if shown && f.template_mismatch {
            let what = format!("warning: {}: this rewrite does not say what its template says", display_name(&f.path));
            writeln!(out, "{}", paint(style.color, "33", &what))?;
            for line in f.template_mismatch_lines() {
                writeln!(out, "  {}", text::cut_with_note(&line, MAX_LINE, Unit::Bytes, ""))?;
            }
        }
        if shown && f.structure_changed {
            let what = format!("warning: {}: this rewrite moves code in the syntax tree outside the replaced text", display_name(&f.path));
            writeln!(out, "{}", paint(style.color, "33", &what))?;
            for line in f.structure_change_lines() {
                writeln!(out, "  {}", text::cut_with_note(&line, MAX_LINE, Unit::Bytes, ""))?;
            }
        }
    }
    let hidden = fit.hidden();
    if hidden.lines > 0 {
        let how = match &d.id {
            Some(id) => format!("`ast-edit show {id} --full` or `--json`"),
            // -U wrote them: nothing is staged to show again.
            None if d.applied => "`--full` or `--json` on the next run, or in the files now (e.g. `git diff`)".to_string(),
            None => "`--full` or `--json`".to_string(),
        };
        writeln!(
            out,
            "… {} more diff lines ({} not shown at all) hidden to keep this preview short; see them all with {how}",
            hidden.lines,
            plural(hidden.files, "file")
        )?;
    }
    Ok(())
}

/// Prints skipped files, warnings and the summary line.
pub fn summary(out: &mut impl Write, d: &PreviewDetails, style: Style) -> io::Result<()> {
    for s in &d.skipped {
        writeln!(out, "{}", paint(style.color, "33", &format!("skipped {}: {}", s.shown, escape_controls(&s.reason))))?;
    }
    for w in &d.warnings {
        writeln!(out, "{}", paint(style.color, "33", &format!("warning: {}", escape_controls(w))))?;
    }
    if let Some(line) = d.broken_before_line() {
        writeln!(out, "{}", paint(style.color, "33", &format!("note: {line}")))?;
    }
    writeln!(out, "{}", paint(style.color, "1", &d.summary_line()))
}

/// For a rule scan, a table of what each rule changed.
pub fn per_rule(out: &mut impl Write, rows: &[RuleCount]) -> io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let w = rows.iter().map(|r| r.rule.len()).max().unwrap_or(4).max(4);
    writeln!(out, "{:<w$}  {:>12}  {:>6}", "rule", "replacements", "files")?;
    for r in rows {
        writeln!(out, "{:<w$}  {:>12}  {:>6}", escape_controls(&r.rule), r.replacements, r.files)?;
    }
    Ok(())
}

/// The findings of rules without a fix, one per line as a compiler prints them:
/// `path:line: severity[rule]: message`, at most [`MAX_FINDINGS_SHOWN`] (the rest
/// counted; `--json` lists them all).
pub fn findings(out: &mut impl Write, d: &PreviewDetails) -> io::Result<()> {
    for f in d.findings.iter().take(MAX_FINDINGS_SHOWN) {
        let message = if f.message.is_empty() { "matched" } else { f.message.as_str() };
        writeln!(
            out,
            "{}:{}: {}[{}]: {}",
            ast_edit::app::quote::display_name(&f.path),
            f.line,
            f.severity,
            escape_controls(&f.rule),
            escape_controls(message)
        )?;
    }
    if d.findings.len() > MAX_FINDINGS_SHOWN {
        writeln!(out, "... and {} more findings (--json lists them all)", d.findings.len() - MAX_FINDINGS_SHOWN)?;
    }
    Ok(())
}

/// Findings printed in text output; `--json` has them all.
pub const MAX_FINDINGS_SHOWN: usize = 200;

/// The end-of-run table (on stderr: it holds a time, so it is not part of the
/// deterministic output): files searched, changed, skipped with reasons, time.
pub fn table(out: &mut impl Write, d: &PreviewDetails, work: &Work, elapsed: std::time::Duration) -> io::Result<()> {
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for s in &d.skipped {
        let key = escape_controls(s.reason.split([';', '(']).next().unwrap_or("").trim()).into_owned();
        match reasons.iter_mut().find(|r| r.0 == key) {
            Some(r) => r.1 += 1,
            None => reasons.push((key, 1)),
        }
    }
    let why = reasons.iter().map(|(k, n)| format!("{k}: {n}")).collect::<Vec<_>>().join(", ");
    writeln!(out, "  files searched  {:>8}", d.files_searched)?;
    writeln!(out, "  files changed   {:>8}", d.files_touched)?;
    if why.is_empty() {
        writeln!(out, "  files skipped   {:>8}", 0)?;
    } else {
        writeln!(out, "  files skipped   {:>8}  ({why})", d.skipped.len())?;
    }
    writeln!(out, "  replacements    {:>8}", d.total_replacements)?;
    // The most work one file did under each limit of the meter: how far the
    // run stayed under it (docs/DESIGN.md section 2.5.7).
    let most = |(n, file): &(u64, Option<String>), limit: String| match file {
        Some(f) => format!("{n:>8}  (in {}; the limit is {limit})", escape_controls(&display_name(f))),
        None => format!("{n:>8}"),
    };
    writeln!(out, "  most steps      {}", most(&work.steps, format!("{} per file", work.limits.0)))?;
    writeln!(out, "  most stack      {}", most(&work.stack, format!("{} bytes per file", work.limits.1)))?;
    writeln!(out, "  most text built {}", most(&work.text, "256 MiB plus 16 times the file's size".to_string()))?;
    writeln!(out, "  time            {:>7.2}s", elapsed.as_secs_f64())
}

/// Prints how to resolve a staged preview.
pub fn how_to_resolve(out: &mut impl Write, id: &str) -> io::Result<()> {
    writeln!(out, "Staged as pending action {id}. Nothing was written yet.")?;
    resolve_lines(out, id)
}

/// After a preview identical to an action the command line already has pending
/// (nothing new staged): that action's id and how to resolve it.
pub fn already_pending(out: &mut impl Write, id: &str) -> io::Result<()> {
    writeln!(out, "Already pending as action {id} (the same preview; nothing new was staged). Nothing was written yet.")?;
    resolve_lines(out, id)
}

/// How to apply or discard the action `id`.
fn resolve_lines(out: &mut impl Write, id: &str) -> io::Result<()> {
    writeln!(out, "  apply:   ast-edit resolve apply --reason \"why\" --id {id}")?;
    writeln!(out, "  discard: ast-edit resolve discard --reason \"why\" --id {id}")
}

/// After a write: how to put the files back (the way resolve's text says it).
pub fn undo_line(out: &mut impl Write, id: &str) -> io::Result<()> {
    let text = ast_edit::app::message::Text::from("To undo: ").say(ast_edit::app::message::Say::UndoById(id.to_string()));
    writeln!(out, "{}", text.render(super::words::WORDS))
}
