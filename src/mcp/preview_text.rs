//! The texts of the tools' results, budgeted for a model's context: the
//! `ast_edit` preview, the pages and list of `ast_pending`, and the bounded form
//! of the `resolve` and `ast_undo` texts and of error messages.
//!
//! The preview puts the summary, the changed files (one line each up to
//! [`MAX_FILE_LINES`], else counts per folder), skipped files and warnings first;
//! the diffs fill what is left, whole lines at a time, and a note says where the
//! rest is (`ast_pending` from the first file, in path order, not shown whole).
//! Files whose rewrite adds syntax errors come first in the list and in the
//! diffs, each with where the errors are; `structuredContent` keeps path order.

use super::paging::Page;
use super::{MAX_FILE_LINES, MAX_FOLDER_LINES, PREVIEW_CHAR_BUDGET};
use ast_edit::app::pending::{ActionKind, PendingAction};
use ast_edit::app::preview::{PreviewDetails, PreviewFile};
use ast_edit::app::quote::{display_name, escape_controls};
use ast_edit::app::session::Session;
use ast_edit::app::text::{self, Fit, Unit, plural};

/// Skipped files and warnings shown (each) before the rest are counted.
const MAX_NOTE_LINES: usize = 20;

/// Longest diff or warning line shown in full in the preview text (characters).
const MAX_LINE_CHARS: usize = 400;

/// Room kept at the end of a text for the closing fence and the notes after it.
const TAIL_RESERVE: usize = 600;

/// `line` cut to [`MAX_LINE_CHARS`] characters with a note.
fn cut_line(line: &str) -> String {
    text::cut_with_note(line, MAX_LINE_CHARS, Unit::Chars, "")
}

/// The preview text of an `ast_edit` result (without the reminder block), at
/// most about `PREVIEW_CHAR_BUDGET` characters: summary, pending id, the
/// changed files, skipped files, warnings, then the diffs while they fit.
pub fn preview_text(d: &PreviewDetails) -> String {
    let mut s = String::new();
    s.push_str(&d.summary_line());
    s.push('\n');
    if d.skipped_by_limits > 0 {
        s.push_str(&format!(
            "Incomplete: {} not searched to the end because of ast-edit's limits (each under Skipped with its limit): this result leaves out their matches.\n",
            plural(d.skipped_by_limits, "file")
        ));
    }
    match &d.id {
        Some(id) => s.push_str(&format!(
            "Pending action id: {id}. Nothing was written: call `resolve` with action \"apply\" or \"discard\".\n"
        )),
        None if !d.findings.is_empty() => s.push_str(
            "No replacements: the rules that matched have no `fix`, so nothing was staged and there is nothing to resolve. Their findings are listed below.\n",
        ),
        None if !d.warnings.is_empty() => s.push_str(
            "No matches: nothing was staged and there is nothing to resolve. If you expected matches, the warnings below may say why.\n",
        ),
        None => s.push_str(
            "No matches: nothing was staged and there is nothing to resolve. If you expected matches, check that the pattern is complete code of the language (C statements end with `;`), that `lang` fits the files, and that metavariables stand for whole nodes (`$A` one node, `$$$ARGS` many).\n",
        ),
    }
    push_files(&mut s, d);
    push_findings(&mut s, d);
    push_notes(
        &mut s,
        "\nSkipped ",
        &plural(d.skipped.len(), "file"),
        d.skipped.iter().map(|k| format!("  {}: {}", k.shown, escape_controls(&k.reason))),
        "skipped",
    );
    push_notes(&mut s, "\nWarnings", "", d.warnings.iter().map(|w| format!("  - {}", escape_controls(w))), "warnings");
    if let Some(line) = d.broken_before_line() {
        s.push('\n');
        s.push_str(&cut_line(&line));
        s.push('\n');
    }
    if !d.files.is_empty() {
        let shown = push_diffs(&mut s, d.files_flagged_first());
        if let Some(first) = shown.first_incomplete {
            let id = d.id.as_deref().unwrap_or("ID");
            s.push_str(&format!(
                "\n… {} omitted to keep this preview under {PREVIEW_CHAR_BUDGET} characters. The pending action still covers every changed file. See the rest with `ast_pending` {{\"id\": \"{id}\", \"fileOffset\": {first}}}.\n",
                shown.what()
            ));
        }
    }
    s.trim_end().to_string()
}

/// The line of one changed file, and under it one line per syntax error its
/// rewrite adds (`<path>:<line>:<column>: <node>: <excerpt>`).
fn file_line(f: &PreviewFile) -> String {
    let mut line = format!("  {}  {}", display_name(&f.path), plural(f.replacements, "replacement"));
    if f.syntax_errors_introduced {
        line.push_str("  [adds syntax errors: apply refuses it unless extra {\"allowSyntaxErrors\": true}]");
    }
    if f.structure_changed {
        line.push_str("  [moves code in the syntax tree: apply refuses it unless extra {\"allowStructureChanges\": true}]");
    }
    if f.template_mismatch {
        line.push_str("  [does not say what the template says: apply refuses it unless extra {\"allowTemplateMismatch\": true}]");
    }
    line.push('\n');
    for e in f.syntax_error_lines().into_iter().chain(f.structure_change_lines()).chain(f.template_mismatch_lines()) {
        line.push_str(&cut_line(&format!("    {e}")));
        line.push('\n');
    }
    line
}

/// The changed files: one line each up to [`MAX_FILE_LINES`]; past that, counts
/// per folder (at most [`MAX_FOLDER_LINES`] lines) and the files that add syntax
/// errors, with where to list them all.
fn push_files(s: &mut String, d: &PreviewDetails) {
    if d.files.is_empty() {
        return;
    }
    if d.files.len() <= MAX_FILE_LINES {
        s.push_str("\nFiles:\n");
        d.files_flagged_first().into_iter().for_each(|(_, f)| s.push_str(&file_line(f)));
        return;
    }
    let folders = folders(&d.files);
    let id = d.id.as_deref().unwrap_or("ID");
    s.push_str(&format!("\nFiles: {} in {} (each file with its diff: `ast_pending` {{\"id\": \"{id}\"}}):\n", d.files.len(), plural(folders.len(), "folder")));
    for (name, files, replacements) in folders.iter().take(MAX_FOLDER_LINES) {
        s.push_str(&cut_line(&format!("  {}  {}, {}", display_name(name), plural(*files, "file"), plural(*replacements, "replacement"))));
        s.push('\n');
    }
    if folders.len() > MAX_FOLDER_LINES {
        let rest = &folders[MAX_FOLDER_LINES..];
        s.push_str(&format!("  … and {} more ({})\n", plural(rest.len(), "folder"), plural(rest.iter().map(|f| f.1).sum(), "file")));
    }
    let broken: Vec<&PreviewFile> = d.files.iter().filter(|f| f.syntax_errors_introduced).collect();
    push_notes(
        s,
        "\nFiles whose rewrite adds syntax errors (apply refuses them unless extra {\"allowSyntaxErrors\": true}), ",
        &broken.len().to_string(),
        broken.iter().map(|f| first_error_line(f)),
        "files",
    );
    let mismatched: Vec<&PreviewFile> = d.files.iter().filter(|f| f.template_mismatch).collect();
    push_notes(
        s,
        "\nFiles whose rewrite does not say what the template says (apply refuses them unless extra {\"allowTemplateMismatch\": true}), ",
        &mismatched.len().to_string(),
        mismatched.iter().map(|f| f.template_mismatch_lines().first().map_or_else(|| format!("  {}", display_name(&f.path)), |l| format!("  {l}"))),
        "files",
    );
    let moved: Vec<&PreviewFile> = d.files.iter().filter(|f| f.structure_changed).collect();
    push_notes(
        s,
        "\nFiles whose rewrite moves code in the syntax tree (apply refuses them unless extra {\"allowStructureChanges\": true}), ",
        &moved.len().to_string(),
        moved.iter().map(|f| f.structure_change_lines().first().map_or_else(|| format!("  {}", display_name(&f.path)), |l| format!("  {l}"))),
        "files",
    );
}

/// A flagged file in the folder view: its first located syntax error
/// (`  <path>:<line>:<column>: <node>: <excerpt>`, then how many more are
/// listed), or its name alone (a plan stored before errors were located).
fn first_error_line(f: &PreviewFile) -> String {
    let lines = f.syntax_error_lines();
    match lines.split_first() {
        None => format!("  {}", display_name(&f.path)),
        Some((first, [])) => format!("  {first}"),
        Some((first, rest)) => format!("  {first} (and {} more)", rest.len()),
    }
}

/// The changed files counted per folder, in path order: `(folder/, files,
/// replacements)`. Folders are cut to fewer levels (from the top) until at most
/// [`MAX_FOLDER_LINES`] remain, or to one level.
fn folders(files: &[PreviewFile]) -> Vec<(String, usize, usize)> {
    let dir = |p: &str| p.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_string());
    let deepest = files.iter().map(|f| dir(&f.path).split('/').count()).max().unwrap_or(1);
    let mut levels = deepest;
    loop {
        let mut out: Vec<(String, usize, usize)> = Vec::new();
        for f in files {
            let d = dir(&f.path);
            let key = match d.as_str() {
                "" => "./".to_string(),
                d => format!("{}/", d.split('/').take(levels).collect::<Vec<_>>().join("/")),
            };
            match out.last_mut() {
                Some(last) if last.0 == key => {
                    last.1 += 1;
                    last.2 += f.replacements;
                }
                _ => match out.iter_mut().find(|o| o.0 == key) {
                    Some(o) => {
                        o.1 += 1;
                        o.2 += f.replacements;
                    }
                    None => out.push((key, 1, f.replacements)),
                },
            }
        }
        if out.len() <= MAX_FOLDER_LINES || levels <= 1 {
            out.sort_by(|a, b| a.0.cmp(&b.0));
            return out;
        }
        levels -= 1;
    }
}

/// Characters the findings may take in a preview that also shows diffs, and
/// in one that shows none (rules without a fix only).
const FINDINGS_CHARS_BESIDE_DIFFS: usize = PREVIEW_CHAR_BUDGET / 5;
const FINDINGS_CHARS_ALONE: usize = PREVIEW_CHAR_BUDGET * 3 / 4;

/// The findings (matches of rules without a fix), one line each
/// (`path:line:col: severity[rule]: message`, without `: message` when the
/// rule has none), in path order while they fit in
/// their share of the budget; the rest counted, with where to list them all.
fn push_findings(s: &mut String, d: &PreviewDetails) {
    let n = d.findings.len();
    if n == 0 {
        return;
    }
    let room = if d.files.is_empty() { FINDINGS_CHARS_ALONE } else { FINDINGS_CHARS_BESIDE_DIFFS };
    s.push_str(&format!("\nFindings ({n}, of rules without a fix; nothing to apply):\n"));
    let (mut used, mut shown) = (0, 0);
    for f in &d.findings {
        let message = if f.message.is_empty() { String::new() } else { format!(": {}", escape_controls(&f.message)) };
        let line = cut_line(&format!("  {}:{}:{}: {}[{}]{message}", escape_controls(&f.path), f.line, f.column, f.severity, escape_controls(&f.rule)));
        let chars = line.chars().count() + 1;
        if shown > 0 && used + chars > room {
            break;
        }
        s.push_str(&line);
        s.push('\n');
        used += chars;
        shown += 1;
    }
    if shown < n {
        s.push_str(&format!(
            "  … and {} more. `ast_search` with the same `rule` or `project` (and paths, globs) lists every match with its rule and message, page by page.\n",
            n - shown
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

/// What [`push_diffs`] left out.
struct Shown {
    hidden: text::Hidden,
    /// The first file not shown whole, when one was not.
    first_incomplete: Option<usize>,
}

impl Shown {
    /// `<n> more diff lines (<k files> cut short, <m files> not shown)`.
    fn what(&self) -> String {
        let h = self.hidden;
        let mut what = format!("{} more diff lines", h.lines);
        let mut parts = Vec::new();
        if h.partial_files > 0 {
            parts.push(format!("{} cut short", plural(h.partial_files, "file")));
        }
        if h.files > 0 {
            parts.push(format!("{} not shown", plural(h.files, "file")));
        }
        if !parts.is_empty() {
            what.push_str(&format!(" ({})", parts.join(", ")));
        }
        what
    }
}

/// The diffs of `files` (in the order given, each with its index in path
/// order) in a `diff` fence, whole lines, while they fit in the budget after
/// what `s` holds. `first_incomplete` is the lowest index of a file not shown
/// whole, so that paging in path order from there shows every such file.
fn push_diffs<'a>(s: &mut String, files: impl IntoIterator<Item = (usize, &'a PreviewFile)>) -> Shown {
    let open = "\n```diff\n";
    let close = "```\n";
    let mut used = s.chars().count() + open.len() + close.len();
    let mut body = String::new();
    let mut fit = Fit::default();
    let mut first_incomplete: Option<usize> = None;
    for (i, f) in files {
        let before = fit.hidden().lines;
        fit.file(&f.diff, |raw| {
            let line = cut_line(raw);
            let n = line.chars().count() + 1;
            if used + n + TAIL_RESERVE > PREVIEW_CHAR_BUDGET {
                return false;
            }
            body.push_str(&line);
            body.push('\n');
            used += n;
            true
        });
        if fit.hidden().lines > before {
            first_incomplete = Some(first_incomplete.map_or(i, |k| k.min(i)));
        }
    }
    if !body.is_empty() {
        s.push_str(open);
        s.push_str(&body);
        s.push_str(close);
    }
    Shown { hidden: fit.hidden(), first_incomplete }
}

/// Characters that `f` adds to a page's text: its file line and its diff lines.
pub fn page_file_chars(f: &PreviewFile) -> usize {
    file_line(f).chars().count() + f.diff.lines().map(diff_line_chars).sum::<usize>()
}

/// Characters that one diff line takes in a text (cut at [`MAX_LINE_CHARS`]), with its newline.
pub fn diff_line_chars(line: &str) -> usize {
    cut_line(line).chars().count() + 1
}

/// The room a page's files may take in its text (the header and the notes
/// around them are kept out).
pub const PAGE_TEXT_ROOM: usize = PREVIEW_CHAR_BUDGET - 2 * TAIL_RESERVE;

/// The first line of an action's page: `Pending action <id>: <label> (staged <at> by <tool>).`
fn action_line(a: &PendingAction) -> String {
    cut_line(&format!("Pending action {}: {} (staged {} by {}).", a.id, labelled(a), a.created_at, a.source_tool_name))
}

/// An action's label with what it does (`PendingAction::what`), escaped.
fn labelled(a: &PendingAction) -> String {
    match a.what() {
        Some(w) => escape_controls(&format!("{} ({w})", a.label)).into_owned(),
        None => escape_controls(&a.label).into_owned(),
    }
}

/// The text of an `ast_pending` page of `action`'s files.
pub fn page_text(action: &PendingAction, page: &Page) -> String {
    let mut s = action_line(action);
    s.push('\n');
    if let ActionKind::Command { .. } = action.kind {
        s.push_str("It runs a command when resolved (a person staged it from a shell): it has no per-file diffs. Apply or discard it with `resolve`.");
        return s;
    }
    let (first, last) = (page.offset + 1, page.offset + page.files.len());
    let of = match &page.path {
        Some(p) => format!("{} selected by path `{p}`", page.total),
        None => page.total.to_string(),
    };
    s.push_str(&format!("Files {first} to {last} of {of} (fileOffset {}):\n", page.offset));
    page.files.iter().for_each(|f| s.push_str(&file_line(f)));
    if let Some(d) = &page.diff {
        s.push_str(&format!("Diff lines {} to {} of {} (diffOffset {}):\n", d.start + 1, d.start + d.shown, d.total, d.start));
    }
    let shown = push_diffs(&mut s, page.files.iter().enumerate());
    if shown.hidden.lines > 0 {
        s.push_str(&format!(
            "\n… {} omitted to keep this page under {PREVIEW_CHAR_BUDGET} characters; this result's `structuredContent.files[].diff` holds them.\n",
            shown.what(),
        ));
    }
    let path = page.path.as_ref().map_or(String::new(), |p| format!(", \"path\": {}", serde_json::to_string(p).expect("a string serializes")));
    match (page.diff.and_then(|d| d.next()), page.next()) {
        (Some(line), next) => {
            let then = match next {
                Some(n) => format!(" The next file: `ast_pending` {{\"id\": \"{}\"{path}, \"fileOffset\": {n}}}.", action.id),
                None => String::new(),
            };
            s.push_str(&format!(
                "\nRest of this diff: `ast_pending` {{\"id\": \"{}\"{path}, \"fileOffset\": {}, \"diffOffset\": {line}}}.{then} Apply or discard the whole action with `resolve`.",
                action.id, page.offset
            ));
        }
        (None, Some(next)) => {
            s.push_str(&format!(
                "\nNext page: `ast_pending` {{\"id\": \"{}\"{path}, \"fileOffset\": {next}}}. Apply or discard the whole action with `resolve`.",
                action.id
            ));
        }
        (None, None) => s.push_str("\nThis is the last page. Apply or discard the whole action with `resolve`."),
    }
    s
}

/// The text of `ast_pending` without `id`: one line per pending action (the
/// first `shown` of them), newest first, each with its owner (`, yours` for
/// `session`'s own).
pub fn list_text(actions: &[PendingAction], shown: usize, session: &Session) -> String {
    if actions.is_empty() {
        return "No pending actions: nothing to page through or resolve.".to_string();
    }
    let mut s = format!("{}, newest first:\n", plural(actions.len(), "pending action"));
    let mut used = s.chars().count() + TAIL_RESERVE;
    let mut listed = 0;
    for a in actions.iter().take(shown) {
        let mine = if session.owns(&a.owner) { ", yours" } else { "" };
        let line = cut_line(&format!(
            "  {}  {}  {}  [{}]  {}  by {}{mine}",
            a.id,
            a.created_at,
            labelled(a),
            a.source_tool_name,
            plural(a.files.len(), "file"),
            a.owner_label()
        ));
        if used + line.chars().count() + 1 > PREVIEW_CHAR_BUDGET {
            break;
        }
        used += line.chars().count() + 1;
        s.push_str(&line);
        s.push('\n');
        listed += 1;
    }
    if listed < actions.len() {
        s.push_str(&format!("  … and {} more\n", actions.len() - listed));
    }
    s.push_str("See an action's files and diffs with `ast_pending` {\"id\": \"<id>\"}; apply or discard it with `resolve` (without `id`, `resolve` takes your newest; another session's only with its `id`).");
    s
}

/// A `resolve` or `ast_undo` text within the budget: each run of indented lines
/// (one per file) keeps its first [`MAX_FILE_LINES`] lines and counts the rest
/// by their first word (`… and 1950 more: 1948 applied, 2 stale`); every line is
/// cut at [`MAX_LINE_CHARS`]. A text still over [`PREVIEW_CHAR_BUDGET`] (a long
/// error naming many files) keeps its head and its tail.
pub fn bounded_result_text(t: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let flush = |out: &mut Vec<String>, run: &mut Vec<&str>| {
        out.extend(run.iter().take(MAX_FILE_LINES).map(|l| cut_line(l)));
        if run.len() > MAX_FILE_LINES {
            let mut words: Vec<(&str, usize)> = Vec::new();
            for l in &run[MAX_FILE_LINES..] {
                let w = l.split_whitespace().next().unwrap_or("");
                match words.iter_mut().find(|x| x.0 == w) {
                    Some(x) => x.1 += 1,
                    None => words.push((w, 1)),
                }
            }
            let counts: Vec<String> = words.iter().map(|(w, n)| format!("{n} {w}")).collect();
            out.push(format!("  … and {} more: {}", run.len() - MAX_FILE_LINES, counts.join(", ")));
        }
        run.clear();
    };
    for line in t.split('\n') {
        if line.starts_with("  ") {
            run.push(line);
        } else {
            flush(&mut out, &mut run);
            out.push(cut_line(line));
        }
    }
    flush(&mut out, &mut run);
    bounded_message(&out.join("\n"))
}

/// `msg` within [`PREVIEW_CHAR_BUDGET`] characters: its head and its tail (where
/// the fix is usually said), with a note on what was cut between them.
pub fn bounded_message(msg: &str) -> String {
    let n = msg.chars().count();
    if n <= PREVIEW_CHAR_BUDGET {
        return msg.to_string();
    }
    let keep = (PREVIEW_CHAR_BUDGET - 200) / 2;
    let head: String = msg.chars().take(keep).collect();
    let tail: String = msg.chars().skip(n - keep).collect();
    format!("{head}\n… [{} characters cut to keep this result under {PREVIEW_CHAR_BUDGET} characters] …\n{tail}", n - 2 * keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::fixtures::{details, file_at};

    fn file(i: usize, lines: usize) -> PreviewFile {
        file_at(format!("f{i}.py"), lines)
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
        assert!(!t.contains("ast-edit show"), "{t}");
        // The note names the first file not shown whole: the pages go on from there.
        let body = t.split("```diff\n").nth(1).unwrap().split("```").next().unwrap();
        let whole = d.files.iter().take_while(|f| body.contains(f.diff.as_str())).count();
        assert!(t.contains(&format!("`ast_pending` {{\"id\": \"ae-abcdef\", \"fileOffset\": {whole}}}")), "{t}");
        // Whole lines only: every shown diff line is a line of some diff.
        for line in body.lines() {
            assert!(d.files.iter().any(|f| f.diff.lines().any(|l| l == line)), "{line}");
        }
    }

    #[test]
    fn a_long_file_list_is_counted_per_folder() {
        let files: Vec<_> = (0..666).map(|i| file_at(format!("src/pkg{:02}/mod/f{i:03}.py", i % 30), 1)).collect();
        let d = details(files, Some("ae-abcdef"));
        let t = preview_text(&d);
        assert!(t.chars().count() <= PREVIEW_CHAR_BUDGET);
        // 30 folders are more than 20 lines: one level up, `src/` holds them all.
        assert!(
            t.contains("\nFiles: 666 in 1 folder (each file with its diff: `ast_pending` {\"id\": \"ae-abcdef\"}):\n  src/  666 files, 666 replacements\n"),
            "{t}"
        );
        let files: Vec<_> = (0..666).map(|i| file_at(format!("pkg{:02}/f{i:03}.py", i % 3), 2)).collect();
        let t = preview_text(&details(files, Some("ae-abcdef")));
        assert!(t.contains("  pkg00/  222 files, 444 replacements\n  pkg01/  222 files, 444 replacements\n"), "{t}");
        // The diffs take most of the budget, not the list.
        let diffs = t.split("```diff\n").nth(1).unwrap().len();
        assert!(diffs > PREVIEW_CHAR_BUDGET * 3 / 4, "{diffs}");
    }

    #[test]
    fn no_changes_says_nothing_is_staged() {
        let t = preview_text(&details(Vec::new(), None));
        assert!(t.contains("No matches: nothing was staged"), "{t}");
        assert!(!t.contains("```"));
    }

    #[test]
    fn a_long_result_text_keeps_the_first_lines_and_counts_the_rest() {
        let mut t = "Applied 4000 replacements in 2000 files.".to_string();
        for i in 0..2000 {
            t.push_str(&format!("\n  {:<8} dir/f{i:04}.py (2 replacements)", if i % 500 == 7 { "stale" } else { "applied" }));
        }
        t.push_str("\nIncomplete: 1 file not applied:\n  stale    dir/f0007.py: changed since the preview");
        let b = bounded_result_text(&t);
        assert!(b.chars().count() <= PREVIEW_CHAR_BUDGET);
        assert!(b.starts_with("Applied 4000 replacements in 2000 files.\n  applied  dir/f0000.py (2 replacements)\n"), "{b}");
        assert!(
            b.contains(&format!(
                "\n  … and {} more: 1947 applied, 3 stale\nIncomplete: 1 file not applied:\n  stale    dir/f0007.py: changed since the preview",
                2000 - MAX_FILE_LINES
            )),
            "{b}"
        );
        let short = "Applied 2 replacements in 1 file.\n  applied  a.py (2 replacements)";
        assert_eq!(bounded_result_text(short), short);
    }

    #[test]
    fn a_long_message_keeps_its_head_and_tail() {
        let msg = format!("Apply failed: {}. Nothing was written; discard it", "x.py, ".repeat(10_000));
        let b = bounded_message(&msg);
        assert!(b.chars().count() <= PREVIEW_CHAR_BUDGET);
        assert!(b.starts_with("Apply failed: x.py, "));
        assert!(b.ends_with(". Nothing was written; discard it"));
        assert!(b.contains("characters cut to keep this result under 20000 characters"));
    }
}
