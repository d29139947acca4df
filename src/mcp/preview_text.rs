//! The text of an `ast_edit` result: a preview budgeted for a model's context.
//! The summary, the per-file lines, skipped files and warnings come first; the
//! diffs fill what is left, whole lines at a time, and a note says how to see the
//! rest.

use super::{MAX_FILE_LINES, PREVIEW_CHAR_BUDGET};
use crate::preview::PreviewDetails;
use crate::text::{self, plural, Fit, Unit};

/// Skipped files and warnings shown (each) before the rest are counted.
const MAX_NOTE_LINES: usize = 20;

/// Longest diff or warning line shown in full in the preview text (characters).
const MAX_LINE_CHARS: usize = 400;

/// `line` cut to [`MAX_LINE_CHARS`] characters with a note.
fn cut_line(line: &str) -> String {
    text::cut_with_note(line, MAX_LINE_CHARS, Unit::Chars, "")
}

/// The preview text of an `ast_edit` result (without the reminder block), at
/// most about [`PREVIEW_CHAR_BUDGET`] characters: summary, pending id, one line
/// per file, skipped files, warnings, then the diffs while they fit.
pub fn preview_text(d: &PreviewDetails) -> String {
    let mut s = String::new();
    s.push_str(&d.summary_line());
    s.push('\n');
    match &d.id {
        Some(id) => s.push_str(&format!(
            "Pending action id: {id}. Nothing was written: call `resolve` with action \"apply\" or \"discard\".\n"
        )),
        None => s.push_str(
            "No matches: nothing was staged and there is nothing to resolve. If you expected matches, check that the pattern is complete code of the language (C statements end with `;`), that `lang` fits the files, and that metavariables stand for whole nodes (`$A` one node, `$$$ARGS` many).\n",
        ),
    }
    push_files(&mut s, d);
    push_notes(&mut s, "\nSkipped ", &plural(d.skipped.len(), "file"), d.skipped.iter().map(|k| format!("  {}: {}", k.shown(), crate::quote::escape_controls(&k.reason))), "skipped");
    push_notes(&mut s, "\nWarnings", "", d.warnings.iter().map(|w| format!("  - {}", crate::quote::escape_controls(w))), "warnings");
    if !d.files.is_empty() {
        push_diffs(&mut s, d);
    }
    s.trim_end().to_string()
}

/// One line per changed file (up to [`MAX_FILE_LINES`]), the rest counted.
fn push_files(s: &mut String, d: &PreviewDetails) {
    if d.files.is_empty() {
        return;
    }
    s.push_str("\nFiles:\n");
    for f in d.files.iter().take(MAX_FILE_LINES) {
        s.push_str(&format!("  {}  {}", crate::quote::display_name(&f.path), plural(f.replacements, "replacement")));
        if f.syntax_errors_introduced {
            s.push_str("  [adds syntax errors: apply refuses it unless extra {\"allowSyntaxErrors\": true}]");
        }
        s.push('\n');
    }
    if d.files.len() > MAX_FILE_LINES {
        s.push_str(&format!(
            "  … and {} more (all listed in structuredContent.files; `ast-edit pending --json` lists them too)\n",
            plural(d.files.len() - MAX_FILE_LINES, "file")
        ));
    }
}

/// A heading (`title` + `count` + `:`) and up to [`MAX_NOTE_LINES`] cut lines,
/// the rest counted and pointed to in `structuredContent.<key>`.
fn push_notes(s: &mut String, title: &str, count: &str, lines: impl ExactSizeIterator<Item = String>, key: &str) {
    let n = lines.len();
    if n == 0 {
        return;
    }
    s.push_str(&format!("{title}{count}:\n"));
    for line in lines.take(MAX_NOTE_LINES) {
        s.push_str(&cut_line(&line));
        s.push('\n');
    }
    if n > MAX_NOTE_LINES {
        s.push_str(&format!("  … and {} more (see structuredContent.{key})\n", n - MAX_NOTE_LINES));
    }
}

/// The diffs, whole lines, while they fit in the budget; then a note on what
/// was left out and where to see it.
fn push_diffs(s: &mut String, d: &PreviewDetails) {
    let open = "\n```diff\n";
    let close = "```\n";
    let reserve = 400; // room for the closing fence and the cut note
    let mut used = s.chars().count() + open.len() + close.len();
    let mut body = String::new();
    let mut fit = Fit::default();
    for f in &d.files {
        fit.file(&f.diff, |raw| {
            let line = cut_line(raw);
            let n = line.chars().count() + 1;
            if used + n + reserve > PREVIEW_CHAR_BUDGET {
                return false;
            }
            body.push_str(&line);
            body.push('\n');
            used += n;
            true
        });
    }
    if !body.is_empty() {
        s.push_str(open);
        s.push_str(&body);
        s.push_str(close);
    }
    let hidden = fit.hidden();
    if hidden.lines == 0 {
        return;
    }
    let id = d.id.as_deref().unwrap_or("ID");
    let mut what = format!("{} more diff lines", hidden.lines);
    let mut parts = Vec::new();
    if hidden.partial_files > 0 {
        parts.push(format!("{} cut short", plural(hidden.partial_files, "file")));
    }
    if hidden.files > 0 {
        parts.push(format!("{} not shown", plural(hidden.files, "file")));
    }
    if !parts.is_empty() {
        what.push_str(&format!(" ({})", parts.join(", ")));
    }
    s.push_str(&format!(
        "\n… {what} omitted to keep this preview under {PREVIEW_CHAR_BUDGET} characters. The pending action still covers every file listed above. See every diff in structuredContent.files[].diff, or run `ast-edit show {id} --full`.\n"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::PreviewFile;
    use crate::status::PreviewStatus;

    fn details(files: Vec<PreviewFile>, id: Option<&str>) -> PreviewDetails {
        let total = files.iter().map(|f| f.replacements).sum();
        PreviewDetails {
            id: id.map(String::from),
            label: crate::preview::label(total, files.len()),
            source_tool_name: "ast_edit".into(),
            status: if id.is_some() { PreviewStatus::Pending } else { PreviewStatus::NoChanges },
            applied: false,
            total_replacements: total,
            files_touched: files.len(),
            files_searched: files.len(),
            files,
            overlaps: 0,
            skipped: Vec::new(),
            warnings: Vec::new(),
            limit_reached: false,
            overlapped: Vec::new(),
            findings: Vec::new(),
        }
    }

    fn file(i: usize, lines: usize) -> PreviewFile {
        let mut diff = format!("--- a/f{i}.py\n+++ b/f{i}.py\n@@ -1,{lines} +1,{lines} @@\n");
        for k in 0..lines {
            diff.push_str(&format!("-old_call_number_{k}(argument)\n+new_call_number_{k}(argument)\n"));
        }
        PreviewFile { path: format!("f{i}.py"), replacements: lines, diff, syntax_errors_introduced: false }
    }

    #[test]
    fn small_preview_shows_every_diff_line() {
        let d = details(vec![file(1, 2)], Some("ae-123456"));
        let t = preview_text(&d);
        assert!(t.starts_with("AST Edit: 2 replacements in 1 file (searched 1 file)\nPending action id: ae-123456."), "{t}");
        assert!(t.contains("  f1.py  2 replacements\n"));
        assert!(t.contains(&d.files[0].diff));
        assert!(!t.contains("omitted"));
    }

    #[test]
    fn big_preview_is_cut_under_the_budget_with_every_file_line() {
        let files: Vec<_> = (0..50).map(|i| file(i, 40)).collect();
        let d = details(files, Some("ae-abcdef"));
        let t = preview_text(&d);
        assert!(t.chars().count() <= PREVIEW_CHAR_BUDGET, "{}", t.chars().count());
        for i in 0..50 {
            assert!(t.contains(&format!("  f{i}.py  40 replacements\n")), "file line {i} missing");
        }
        assert!(t.contains("`ast-edit show ae-abcdef --full`"), "{t}");
        assert!(t.contains("structuredContent.files[].diff"));
        // Whole lines only: every shown diff line is a line of some diff.
        let body = t.split("```diff\n").nth(1).unwrap().split("```").next().unwrap();
        for line in body.lines() {
            assert!(d.files.iter().any(|f| f.diff.lines().any(|l| l == line)), "{line}");
        }
    }

    #[test]
    fn no_changes_says_nothing_is_staged() {
        let t = preview_text(&details(Vec::new(), None));
        assert!(t.contains("No matches: nothing was staged"), "{t}");
        assert!(!t.contains("```"));
    }

}
