//! What an apply reports (docs/DESIGN.md section 5.7): per file, its status,
//! and the files left outstanding; and how `run -U` records it in a preview.

use super::*;

/// Files of one status and reason listed by name in an apply's text; the
/// rest of them are counted.
const SAME_REASON_LISTED: usize = 3;

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
            // Many files left out for one reason (an `extra.files` of 8 out of
            // 173) are a few lines and a count; the report's list has them all.
            let mut shown: Vec<(OutstandingStatus, &str, usize)> = Vec::new();
            for o in &self.outstanding {
                let seen = match shown.iter_mut().find(|(st, r, _)| *st == o.status && *r == o.reason.as_str()) {
                    Some(entry) => {
                        entry.2 += 1;
                        entry.2
                    }
                    None => {
                        shown.push((o.status, o.reason.as_str(), 1));
                        1
                    }
                };
                if seen <= SAME_REASON_LISTED {
                    s.push_str(&format!("\n  {:<8} {}: {}", o.status, display_name(&o.path), escape_controls(&o.reason)));
                }
            }
            for (status, reason, n) in shown.into_iter().filter(|(_, _, n)| *n > SAME_REASON_LISTED) {
                let more = n - SAME_REASON_LISTED;
                s.push_str(&format!("\n  ... and {more} more {}, {status}: {}", if more == 1 { "file" } else { "files" }, escape_controls(reason)));
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
