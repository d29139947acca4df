//! The preview details object of docs/DESIGN.md section 5.5 (what `run --json` prints and
//! what MCP puts in `structuredContent`), derived from a [`Plan`]; and the label.

use serde::{Deserialize, Serialize};

use crate::engine::SyntaxError;
use crate::plan::{BrokenFile, Finding, Overlapped, Plan, RuleCount};
use crate::request::read::Skipped;
use crate::shared::message::Words;
use crate::shared::status::PreviewStatus;
use crate::shared::text::plural;

/// The tool name of built-in previews.
pub(crate) const SOURCE_TOOL: &str = "ast_edit";

/// `AST Edit: <N> replacement(s) in <M> file(s)`, singular for 1.
pub fn label(replacements: usize, files: usize) -> String {
    counted("AST Edit", replacements, files)
}

/// `<what>: <N> replacement(s) in <M> file(s)`, singular for 1.
fn counted(what: &str, replacements: usize, files: usize) -> String {
    format!("{what}: {} in {}", plural(replacements, "replacement"), plural(files, "file"))
}

/// The label of a plan: [`label`] for an ad-hoc edit; for a rule scan
/// `AST Scan: <N> replacement(s) in <M> file(s) (rules: a, b)` naming the rules
/// that changed something (`per_rule`, from [`Plan::per_rule`]).
pub(crate) fn plan_label(plan: &Plan, per_rule: &[RuleCount]) -> String {
    let from_files = plan.request.rule_set.as_ref().is_some_and(|s| s.base.is_some());
    if !from_files {
        return label(plan.total_replacements(), plan.files.len());
    }
    // A rule id is the user's text: its control characters are escaped here,
    // so no listing or result that shows the label sends them to a terminal.
    let rules: Vec<String> = per_rule.iter().map(|r| crate::shared::quote::escape_controls(&r.rule).into_owned()).collect();
    let scan = counted("AST Scan", plan.total_replacements(), plan.files.len());
    match rules.len() {
        0 => scan,
        n if n <= 5 => format!("{scan} (rules: {})", rules.join(", ")),
        n => format!("{scan} (rules: {} and {} more)", rules[..5].join(", "), n - 5),
    }
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
    /// The syntax errors the rewrite adds, located in the new text (empty unless
    /// `syntax_errors_introduced`; docs/DESIGN.md section 5.5).
    pub syntax_errors: Vec<SyntaxError>,
    /// True when the rewrite moves code in the syntax tree outside the replaced
    /// text (docs/DESIGN.md section 2.5.10).
    #[serde(default)]
    pub structure_changed: bool,
    /// The first such moves, located in the new text (empty unless
    /// `structure_changed`).
    #[serde(default)]
    pub structure_changes: Vec<crate::engine::structure::StructureChange>,
    /// Edits written as ast-grep writes them because their minimal layout did
    /// not say what the template says (docs/DESIGN.md section 2.5.9).
    #[serde(default)]
    pub layout_fallbacks: usize,
    /// The first of those edits: line and why.
    #[serde(default)]
    pub layout_notes: Vec<crate::engine::TemplateNote>,
    /// True when an edit says something other than its template in either
    /// layout: apply refuses the file unless allowed.
    #[serde(default)]
    pub template_mismatch: bool,
    /// The first such edits (empty unless `template_mismatch`).
    #[serde(default)]
    pub template_mismatches: Vec<crate::engine::TemplateNote>,
}

/// The preview details (docs/DESIGN.md section 5.5), camelCase keys, every key always present.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreviewDetails {
    /// Pending action id; `null` when nothing was staged.
    pub id: Option<String>,
    /// The label.
    pub label: String,
    /// `ast_edit`.
    pub source_tool_name: String,
    /// `pending`, `no_changes`, or after `run -U`: `applied` / `incomplete` / `failed`.
    pub status: PreviewStatus,
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
    /// Files not searched, with reasons worded for the front end.
    pub skipped: Vec<SkippedFile>,
    /// How many of them one of ast-edit's own limits left unsearched where
    /// ast-grep would have searched them (`limit: true`): the run fails
    /// (docs/DESIGN.md section 7).
    #[serde(default)]
    pub skipped_by_limits: usize,
    /// Messages for the user.
    pub warnings: Vec<String>,
    /// True when `maxFiles` cut the walk.
    pub limit_reached: bool,
    /// Each match dropped because it nests in or overlaps a kept edit: where,
    /// its rule, and the rule of the edit that was kept.
    pub overlapped: Vec<Overlapped>,
    /// Matches of rules without a fix (lint rules): reported, nothing staged.
    pub findings: Vec<Finding>,
    /// Files the run parsed that held syntax errors before any edit: path and
    /// line of the first, in path order, at most
    /// [`crate::plan::MAX_BROKEN_BEFORE_LISTED`].
    pub broken_before: Vec<BrokenFile>,
    /// Such files not listed in `broken_before`.
    pub broken_before_omitted: usize,
    /// Edits the template check ran on (docs/DESIGN.md section 2.5.9).
    #[serde(default)]
    pub edits_checked: usize,
    /// Of those, edits written as ast-grep writes them because their minimal
    /// layout failed the check.
    #[serde(default)]
    pub layout_fallbacks: usize,
}

/// A file that was not searched, as the preview shows it: its reason worded
/// for the front end ([`crate::request::read::SkipReason::text`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Display path ([`Skipped::path`]).
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
    /// One of ast-edit's own limits left it unsearched
    /// ([`crate::request::read::SkipReason::is_limit`]): the run fails.
    #[serde(default)]
    pub limit: bool,
    /// The path as people read it ([`Skipped::shown`]); not in the JSON.
    #[serde(skip)]
    pub shown: String,
}

impl SkippedFile {
    /// `s` in the words of `words`.
    pub fn of(s: &Skipped, words: &dyn Words) -> Self {
        SkippedFile { path: s.path.clone(), reason: s.reason.text().render(words), limit: s.reason.is_limit(), shown: s.shown().into_owned() }
    }
}

/// Builds the details of `plan` as a dry run left them, in the words of the
/// front end that shows them (`words`): no
/// id, `no_changes` (staging sets the id and `pending`; `run -U` records its
/// apply).
pub fn details(plan: &Plan, per_rule: &[RuleCount], words: &dyn Words) -> PreviewDetails {
    let total = plan.total_replacements();
    PreviewDetails {
        id: None,
        label: plan_label(plan, per_rule),
        source_tool_name: SOURCE_TOOL.to_string(),
        status: PreviewStatus::NoChanges,
        applied: false,
        total_replacements: total,
        files_touched: plan.files.len(),
        files_searched: plan.files_searched,
        files: plan
            .files
            .iter()
            .map(|f| PreviewFile {
                path: f.path.clone(),
                replacements: f.replacements(),
                diff: f.diff.clone(),
                syntax_errors_introduced: f.syntax_errors_introduced(),
                syntax_errors: f.syntax_errors.clone(),
                structure_changed: f.structure_changed,
                structure_changes: f.structure_changes.clone(),
                layout_fallbacks: f.layout_fallbacks,
                layout_notes: f.layout_notes.clone(),
                template_mismatch: f.template_mismatch,
                template_mismatches: f.template_mismatches.clone(),
            })
            .collect(),
        overlaps: plan.overlaps,
        skipped: plan.skipped.iter().map(|s| SkippedFile::of(s, words)).collect(),
        skipped_by_limits: plan.skipped.iter().filter(|s| s.reason.is_limit()).count(),
        warnings: plan.warnings.iter().map(|w| w.text().render(words)).collect(),
        limit_reached: plan.limit_reached,
        overlapped: plan.overlapped.clone(),
        findings: plan.findings.clone(),
        broken_before: plan.broken_before.clone(),
        broken_before_omitted: plan.broken_before_omitted,
        edits_checked: plan.files.iter().map(|f| f.edits_checked).sum(),
        layout_fallbacks: plan.files.iter().map(|f| f.layout_fallbacks).sum(),
    }
}

impl PreviewDetails {
    /// Marks the details as staged under `id`.
    pub fn staged(mut self, id: String) -> Self {
        self.id = Some(id);
        self.status = PreviewStatus::Pending;
        self
    }

    /// Records that `run -U` failed and wrote nothing.
    pub fn record_failure(&mut self, message: String) {
        self.status = PreviewStatus::Failed;
        self.warnings.push(message);
    }

    /// `AST Edit: 2 replacements in 1 file (searched 4 files, 1 file skipped)`:
    /// the one-line summary of the CLI and the MCP preview text.
    pub fn summary_line(&self) -> String {
        let mut line = format!("{} (searched {}", self.label, plural(self.files_searched, "file"));
        let same = self.overlapped.iter().filter(|o| o.same_node).count();
        let nested = self.overlaps.saturating_sub(same);
        if nested > 0 {
            line.push_str(&format!(", {} left for a second run", plural(nested, "nested match")));
        }
        if same > 0 {
            line.push_str(&format!(", {} lost to another op on the same code", plural(same, "match")));
        }
        if !self.skipped.is_empty() {
            line.push_str(&format!(", {} skipped", plural(self.skipped.len(), "file")));
        }
        if self.skipped_by_limits > 0 {
            line.push_str(&format!(", incomplete: {} not searched to the end because of ast-edit's limits", plural(self.skipped_by_limits, "file")));
        }
        if !self.findings.is_empty() {
            line.push_str(&format!(", {}", plural(self.findings.len(), "finding")));
        }
        if self.layout_fallbacks > 0 {
            line.push_str(&format!(", {} as ast-grep writes it", plural(self.layout_fallbacks, "edit")));
        }
        if self.limit_reached {
            line.push_str(", limit reached");
        }
        line.push(')');
        line
    }

    /// The one line on files that were broken before the edit, when there are
    /// any: `Parse errors before this edit (not caused by it): a.ts:3, b.py:7 and
    /// 2 more files` (names quoted as docs/DESIGN.md section 5.12 says).
    pub fn broken_before_line(&self) -> Option<String> {
        if self.broken_before.is_empty() {
            return None;
        }
        let listed: Vec<String> = self.broken_before.iter().map(|b| format!("{}:{}", crate::shared::quote::display_name(&b.path), b.line)).collect();
        let mut line = format!("Parse errors before this edit (not caused by it): {}", listed.join(", "));
        if self.broken_before_omitted > 0 {
            line.push_str(&format!(" and {}", plural(self.broken_before_omitted, "more file")));
        }
        Some(line)
    }

    /// The changed files as texts for people list them: those whose rewrite
    /// adds syntax errors or changes the structure first, then the others, each
    /// group in path order; with each file its index in `files` (the JSON keeps
    /// path order).
    pub fn files_flagged_first(&self) -> Vec<(usize, &PreviewFile)> {
        let (mut flagged, rest): (Vec<_>, Vec<_>) = self.files.iter().enumerate().partition(|(_, f)| f.flagged());
        flagged.extend(rest);
        flagged
    }
}

impl PreviewFile {
    /// Apply refuses it unless allowed: it adds syntax errors or changes the
    /// structure.
    pub fn flagged(&self) -> bool {
        self.syntax_errors_introduced || self.structure_changed || self.template_mismatch
    }

    /// One line per listed template mismatch: `<path>:<line>: <message>`.
    pub fn template_mismatch_lines(&self) -> Vec<String> {
        let path = crate::shared::quote::display_name(&self.path);
        self.template_mismatches.iter().map(|c| format!("{path}:{}: {}", c.line, crate::shared::quote::escape_controls(&c.message))).collect()
    }

    /// One line per listed structure change: `<path>:<line>: <message>`.
    pub fn structure_change_lines(&self) -> Vec<String> {
        let path = crate::shared::quote::display_name(&self.path);
        self.structure_changes.iter().map(|c| format!("{path}:{}: {}", c.line, crate::shared::quote::escape_controls(&c.message))).collect()
    }

    /// One line per located syntax error: `<path>:<line>:<column>: <node>:
    /// <excerpt>` (the excerpt's leading whitespace and control characters
    /// escaped as in the rest of the text output).
    pub fn syntax_error_lines(&self) -> Vec<String> {
        let path = crate::shared::quote::display_name(&self.path);
        self.syntax_errors
            .iter()
            .map(|e| format!("{path}:{}:{}: {}: {}", e.line, e.column, e.node, crate::shared::quote::escape_controls(e.excerpt.trim_start())))
            .collect()
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
