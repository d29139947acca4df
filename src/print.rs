//! Human output: coloured, budgeted diffs and summaries. Consumes plain data
//! (preview details, reports); never decides anything and never touches the files.

use std::io::{self, Write};

use crate::preview::{plural, PreviewDetails};

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

fn cut(line: &str) -> String {
    if line.len() <= MAX_LINE {
        return line.to_string();
    }
    let mut end = MAX_LINE;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} … [{} more bytes cut; see --full or --json]", &line[..end], line.len() - end)
}

/// Prints the diffs of a preview, within the budget.
pub fn diffs(out: &mut impl Write, d: &PreviewDetails, style: Style) -> io::Result<()> {
    let mut printed = 0usize;
    let mut hidden_lines = 0usize;
    let mut hidden_files = 0usize;
    for f in &d.files {
        let lines: Vec<&str> = f.diff.split_inclusive('\n').collect();
        if !style.full && printed >= MAX_LINES {
            hidden_lines += lines.len();
            hidden_files += 1;
            continue;
        }
        for raw in lines {
            if !style.full && printed >= MAX_LINES {
                hidden_lines += 1;
                continue;
            }
            let line = raw.trim_end_matches(['\n', '\r']);
            let line = if style.full { line.to_string() } else { cut(line) };
            let code = if line.starts_with("+++") || line.starts_with("---") {
                "1"
            } else if line.starts_with('+') {
                "32"
            } else if line.starts_with('-') {
                "31"
            } else if line.starts_with("@@") {
                "36"
            } else {
                ""
            };
            if code.is_empty() {
                writeln!(out, "{line}")?;
            } else {
                writeln!(out, "{}", paint(style.color, code, &line))?;
            }
            printed += 1;
        }
        if f.syntax_errors_introduced {
            writeln!(out, "{}", paint(style.color, "33", &format!("warning: {}: this rewrite introduces syntax errors", f.path)))?;
        }
    }
    if hidden_lines > 0 {
        let how = match &d.id {
            Some(id) => format!("`ast-edit show {id} --full` or `--json`"),
            None => "`--full` or `--json`".to_string(),
        };
        writeln!(
            out,
            "… {} more diff lines ({} not shown at all) hidden to keep this preview short; see them all with {how}",
            hidden_lines,
            plural(hidden_files, "file")
        )?;
    }
    Ok(())
}

/// Prints skipped files, warnings and the summary line.
pub fn summary(out: &mut impl Write, d: &PreviewDetails, style: Style) -> io::Result<()> {
    for s in &d.skipped {
        writeln!(out, "{}", paint(style.color, "33", &format!("skipped {}: {}", s.path, s.reason)))?;
    }
    for w in &d.warnings {
        writeln!(out, "{}", paint(style.color, "33", &format!("warning: {w}")))?;
    }
    writeln!(out, "{}", paint(style.color, "1", &summary_line(d)))
}

/// `AST Edit: 2 replacements in 1 file (searched 4 files, 1 file skipped)`: the
/// one-line summary shared by the CLI and the MCP preview text.
pub fn summary_line(d: &PreviewDetails) -> String {
    let mut line = format!("{} (searched {}", d.label, plural(d.files_searched, "file"));
    if d.overlaps > 0 {
        line.push_str(&format!(", {} left for a second run", plural(d.overlaps, "nested match")));
    }
    if !d.skipped.is_empty() {
        line.push_str(&format!(", {} skipped", plural(d.skipped.len(), "file")));
    }
    if d.limit_reached {
        line.push_str(", limit reached");
    }
    line.push(')');
    line
}

/// For a rule scan, a table of what each rule changed.
pub fn per_rule(out: &mut impl Write, rows: &[(String, usize, usize)]) -> io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    writeln!(out, "{:<w$}  {:>12}  {:>6}", "rule", "replacements", "files")?;
    for (rule, n, files) in rows {
        writeln!(out, "{rule:<w$}  {n:>12}  {files:>6}")?;
    }
    Ok(())
}

/// The end-of-run table (on stderr: it holds a time, so it is not part of the
/// deterministic output): files searched, changed, skipped with reasons, time.
pub fn table(out: &mut impl Write, d: &PreviewDetails, elapsed: std::time::Duration) -> io::Result<()> {
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for s in &d.skipped {
        let key = s.reason.split([';', '(']).next().unwrap_or("").trim().to_string();
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
    writeln!(out, "  time            {:>7.2}s", elapsed.as_secs_f64())
}

/// Prints how to resolve a staged preview.
pub fn how_to_resolve(out: &mut impl Write, id: &str) -> io::Result<()> {
    writeln!(out, "Staged as pending action {id}. Nothing was written yet.")?;
    writeln!(out, "  apply:   ast-edit resolve apply --reason \"why\" --id {id}")?;
    writeln!(out, "  discard: ast-edit resolve discard --reason \"why\" --id {id}")
}
