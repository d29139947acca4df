//! What an apply reports (docs/DESIGN.md section 5.7): per file, its status,
//! and the files left outstanding; and how `run -U` records it in a preview.

use super::*;

/// Per-file result of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppliedFile {
    /// Display path.
    pub path: String,
    /// Replacements written.
    pub replacements: usize,
    /// `applied`, `stale` or `failed`.
    pub status: FileStatus,
    /// The diff that was applied.
    pub diff: String,
}

/// Something the apply did not do, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Outstanding {
    /// Display path.
    pub path: String,
    /// `stale`, `failed` or `not_selected`.
    pub status: OutstandingStatus,
    /// What happened.
    pub reason: String,
}

/// The apply report (`sourceResultDetails` of an `ast_edit` resolve).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyOutcome {
    /// `applied` or `incomplete`.
    pub status: ApplyStatus,
    /// True when at least one file was written.
    pub applied: bool,
    /// Replacements written.
    pub total_replacements: usize,
    /// Files written.
    pub files_touched: usize,
    /// Per-file results.
    pub files: Vec<AppliedFile>,
    /// What was not done.
    pub outstanding: Vec<Outstanding>,
}

impl ApplyOutcome {
    /// The result text.
    pub fn text(&self) -> String {
        let mut s = format!("Applied {} in {}.", plural(self.total_replacements, "replacement"), plural(self.files_touched, "file"));
        for f in &self.files {
            s.push_str(&format!("\n  {:<8} {} ({})", f.status, display_name(&f.path), plural(f.replacements, "replacement")));
        }
        if !self.outstanding.is_empty() {
            s.push_str(&format!("\nIncomplete: {} not applied:", plural(self.outstanding.len(), "file")));
            for o in &self.outstanding {
                s.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
            }
        }
        s
    }
}

impl crate::plan::preview::PreviewDetails {
    /// Records what `run -U` did: its status, and each outstanding file as a
    /// warning.
    pub fn record_apply(&mut self, report: &ApplyOutcome) {
        self.status = match report.status {
            ApplyStatus::Applied => crate::shared::status::PreviewStatus::Applied,
            ApplyStatus::Incomplete => crate::shared::status::PreviewStatus::Incomplete,
        };
        self.applied = report.applied;
        for o in &report.outstanding {
            self.warnings.push(format!("{}: {} ({})", o.path, o.reason, o.status));
        }
    }
}
