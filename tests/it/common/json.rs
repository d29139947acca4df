//! The JSON shapes of docs/DESIGN.md section 5, as test-only types that refuse unknown fields:
//! any drift in what the binary prints fails a test.

#![allow(dead_code)]

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Preview {
    pub id: Option<String>,
    pub label: String,
    pub source_tool_name: String,
    pub status: String,
    pub applied: bool,
    pub total_replacements: usize,
    pub files_touched: usize,
    pub files_searched: usize,
    pub files: Vec<PreviewFile>,
    pub overlaps: usize,
    pub skipped: Vec<Skipped>,
    pub skipped_by_limits: usize,
    pub warnings: Vec<String>,
    pub limit_reached: bool,
    pub overlapped: Vec<Overlapped>,
    pub findings: Vec<Finding>,
    pub broken_before: Vec<BrokenFile>,
    pub broken_before_omitted: usize,
    pub edits_checked: usize,
    pub layout_fallbacks: usize,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BrokenFile {
    pub path: String,
    pub line: usize,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub node: String,
    pub excerpt: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Overlapped {
    pub path: String,
    pub line: usize,
    pub rule: String,
    pub kept_rule: String,
    pub same_node: bool,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: String,
    pub severity: String,
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PreviewFile {
    pub path: String,
    pub replacements: usize,
    pub diff: String,
    pub syntax_errors_introduced: bool,
    pub syntax_errors: Vec<SyntaxError>,
    pub structure_changed: bool,
    pub structure_changes: Vec<StructureChange>,
    pub layout_fallbacks: usize,
    pub layout_notes: Vec<StructureChange>,
    pub template_mismatch: bool,
    pub template_mismatches: Vec<StructureChange>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StructureChange {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
    pub limit: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResolveResult {
    pub content: String,
    pub is_error: bool,
    pub details: ResolveDetails,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResolveDetails {
    pub action: String,
    pub reason: String,
    pub extra: Option<Value>,
    pub source_tool_name: Option<String>,
    pub label: Option<String>,
    pub source_result_details: Option<ApplyOutcome>,
    /// A refused apply's files and ways on.
    pub refused: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApplyOutcome {
    pub status: String,
    pub applied: bool,
    pub total_replacements: usize,
    pub files_touched: usize,
    pub files: Vec<AppliedFile>,
    pub outstanding: Vec<Outstanding>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppliedFile {
    pub path: String,
    pub replacements: usize,
    pub status: String,
    pub diff: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Outstanding {
    pub path: String,
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PendingRow {
    pub id: String,
    pub label: String,
    pub source_tool_name: String,
    pub created_at: String,
    pub files: Vec<String>,
    pub owner: String,
    pub owner_client: Option<String>,
    pub mine: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UndoResult {
    pub content: String,
    pub is_error: bool,
    pub details: Option<UndoOutcome>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UndoOutcome {
    pub id: String,
    /// The action's label (absent for undo records of older builds).
    pub label: Option<String>,
    pub status: String,
    pub restored: Vec<String>,
    pub outstanding: Vec<Outstanding>,
}
