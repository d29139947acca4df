//! Previews for the front end's unit tests (`paging`, `preview_text`): a
//! plan's details with made-up files, each diff `lines` long.

use ast_edit::app::preview::{PreviewDetails, PreviewFile, SkippedFile};
use ast_edit::app::status::PreviewStatus;

/// A preview of `files`, staged as `id` (`None`: nothing to stage).
pub(super) fn details(files: Vec<PreviewFile>, id: Option<&str>) -> PreviewDetails {
    let total = files.iter().map(|f| f.replacements).sum();
    PreviewDetails {
        edits_checked: 0,
        layout_fallbacks: 0,
        id: id.map(String::from),
        label: ast_edit::app::preview::label(total, files.len()),
        source_tool_name: "ast_edit".into(),
        status: if id.is_some() { PreviewStatus::Pending } else { PreviewStatus::NoChanges },
        applied: false,
        total_replacements: total,
        files_touched: files.len(),
        files_searched: files.len(),
        files,
        overlaps: 0,
        skipped: Vec::new(),
        skipped_by_limits: 0,
        warnings: Vec::new(),
        limit_reached: false,
        overlapped: Vec::new(),
        findings: Vec::new(),
        broken_before: Vec::new(),
        broken_before_omitted: 0,
    }
}

/// A changed file at `path` whose diff replaces `lines` lines.
pub(super) fn file_at(path: String, lines: usize) -> PreviewFile {
    let mut diff = format!("--- a/{path}\n+++ b/{path}\n@@ -1,{lines} +1,{lines} @@\n");
    for k in 0..lines {
        diff.push_str(&format!("-old_call_number_{k}(argument)\n+new_call_number_{k}(argument)\n"));
    }
    PreviewFile {
        path,
        replacements: lines,
        diff,
        syntax_errors_introduced: false,
        syntax_errors: Vec::new(),
        structure_changed: false,
        structure_changes: Vec::new(),
        layout_fallbacks: 0,
        layout_notes: Vec::new(),
        template_mismatch: false,
        template_mismatches: Vec::new(),
    }
}

/// `n` files skipped as binary, `s0.py` on.
pub(super) fn skipped(n: usize) -> Vec<SkippedFile> {
    (0..n)
        .map(|i| SkippedFile { path: format!("s{i}.py"), reason: "binary file (contains NUL bytes)".into(), limit: false, shown: format!("s{i}.py") })
        .collect()
}
