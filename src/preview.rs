//! The preview details object of contract section 3 (what `run --json` prints and
//! what MCP puts in `structuredContent`), derived from a [`Plan`]; and the label.

use serde::{Deserialize, Serialize};

use crate::plan::{Plan, Skipped};

/// The tool name of built-in previews.
pub const SOURCE_TOOL: &str = "ast_edit";

/// `AST Edit: <N> replacement(s) in <M> file(s)`, singular for 1.
pub fn label(replacements: usize, files: usize) -> String {
    format!("AST Edit: {} in {}", plural(replacements, "replacement"), plural(files, "file"))
}

/// The label of a plan: [`label`] for an ad-hoc edit; for a rule scan
/// `AST Scan: <N> replacement(s) in <M> file(s) (rules: a, b)` naming the rules
/// that changed something.
pub fn plan_label(plan: &Plan) -> String {
    let base = label(plan.total_replacements(), plan.files.len());
    if plan.request.scopes.is_empty() {
        return base;
    }
    let rules: Vec<String> = plan.per_rule().into_iter().map(|r| r.0).collect();
    let scan = base.replacen("AST Edit", "AST Scan", 1);
    match rules.len() {
        0 => scan,
        n if n <= 5 => format!("{scan} (rules: {})", rules.join(", ")),
        n => format!("{scan} (rules: {} and {} more)", rules[..5].join(", "), n - 5),
    }
}

/// `1 file`, `2 files`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// One changed file in the preview.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreviewFile {
    /// Display path.
    pub path: String,
    /// Replacements in this file.
    pub replacements: usize,
    /// Unified diff (never cut).
    pub diff: String,
    /// True when the rewrite adds syntax errors.
    pub syntax_errors_introduced: bool,
}

/// The preview details (contract section 3), camelCase keys, every key always present.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreviewDetails {
    /// Pending action id; `null` when nothing was staged.
    pub id: Option<String>,
    /// The label.
    pub label: String,
    /// `ast_edit`.
    pub source_tool_name: String,
    /// `pending`, `no_changes`, or after `run -U`: `applied` / `incomplete`.
    pub status: String,
    /// True only after `run -U` wrote the files.
    pub applied: bool,
    /// Replacements over all files.
    pub total_replacements: usize,
    /// Files with at least one replacement.
    pub files_touched: usize,
    /// Files searched.
    pub files_searched: usize,
    /// Changed files, sorted by path.
    pub files: Vec<PreviewFile>,
    /// Matches dropped because they nest in or overlap another.
    pub overlaps: usize,
    /// Files not searched, with reasons.
    pub skipped: Vec<Skipped>,
    /// Messages for the user.
    pub warnings: Vec<String>,
    /// True when `maxFiles` cut the walk.
    pub limit_reached: bool,
}

/// Builds the details of `plan` under `id` with `status`.
pub fn details(plan: &Plan, id: Option<String>, status: &str) -> PreviewDetails {
    let total = plan.total_replacements();
    PreviewDetails {
        id,
        label: plan_label(plan),
        source_tool_name: SOURCE_TOOL.to_string(),
        status: status.to_string(),
        applied: matches!(status, "applied" | "incomplete"),
        total_replacements: total,
        files_touched: plan.files.len(),
        files_searched: plan.files_searched,
        files: plan
            .files
            .iter()
            .map(|f| PreviewFile {
                path: f.path.clone(),
                replacements: f.edits.len(),
                diff: f.diff.clone(),
                syntax_errors_introduced: f.syntax_errors_introduced(),
            })
            .collect(),
        overlaps: plan.overlaps,
        skipped: plan.skipped.clone(),
        warnings: plan.warnings.clone(),
        limit_reached: plan.limit_reached,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_is_singular_for_one() {
        assert_eq!(label(1, 1), "AST Edit: 1 replacement in 1 file");
        assert_eq!(label(3, 2), "AST Edit: 3 replacements in 2 files");
        assert_eq!(label(0, 0), "AST Edit: 0 replacements in 0 files");
    }
}
