//! Retention of the store (the limits in the docs of `store/pending.rs`):
//! pending actions, resolved records and undo records past their age, count or
//! size are dropped when a front end opens the store, with a message for each;
//! and what the store keeps, for `ast-edit pending` to say.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::pending::*;
use super::pending_format;
use crate::shared::error::Result;
use crate::shared::status::Resolution;
use crate::shared::text::human_bytes;

impl Locked<'_> {
    /// What a front end runs when it opens the store (after crash recovery):
    /// applies the retention of the module docs to pending actions, resolved
    /// records and undo records, and returns the messages to show: one per pending
    /// action the retention dropped, one per file it could not remove, and one per
    /// bad pending entry (its path, what is wrong, and that deleting the file
    /// drops it). Reads `pending/` once.
    pub(crate) fn maintain(&self) -> Result<Vec<String>> {
        let Scan { actions, problems } = self.scan()?;
        let now = SystemTime::now();
        let mut msgs = Vec::new();
        let sizes: Vec<u64> = actions.iter().map(|(_, n)| *n).collect();
        let keep = kept_count(&sizes, PENDING_MAX_COUNT, PENDING_MAX_BYTES);
        for (i, (a, _)) in actions.iter().enumerate() {
            let why = if older_than(humantime::parse_rfc3339(&a.created_at).ok(), now, PENDING_MAX_AGE_DAYS) {
                format!("staged more than {PENDING_MAX_AGE_DAYS} days ago")
            } else if i >= keep {
                format!("beyond the newest {PENDING_MAX_COUNT} pending actions or their {} in all", human_bytes(PENDING_MAX_BYTES))
            } else {
                continue;
            };
            match self.finish_head(a, Resolution::Expired) {
                Ok(_) => msgs.push(format!(
                    "dropped pending action {} ({}, staged {}): {why}; the store keeps pending actions {} days, at most {} of them",
                    a.id, a.label, a.created_at, PENDING_MAX_AGE_DAYS, PENDING_MAX_COUNT
                )),
                Err(e) => msgs.push(format!("could not drop the expired pending action {}: {e}", a.id)),
            }
        }
        msgs.extend(self.prune_resolved(now));
        msgs.extend(self.prune_journal());
        msgs.extend(problems);
        Ok(msgs)
    }

    /// Drops resolved records last written more than [`RESOLVED_MAX_AGE_DAYS`]
    /// days ago, and all but the newest [`RESOLVED_MAX_COUNT`]; returns a message
    /// per record that could not be removed. Reads no record: the age is the
    /// file's modification time (a record is written when its resolution is).
    pub(super) fn prune_resolved(&self, now: SystemTime) -> Vec<String> {
        let Ok(files) = self.json_files("resolved") else { return Vec::new() };
        let mut dated: Vec<(SystemTime, PathBuf)> = files.into_iter().filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p))).collect();
        dated.sort_by(|a, b| b.cmp(a));
        let mut msgs = Vec::new();
        for (i, (when, p)) in dated.iter().enumerate() {
            let expired = i >= RESOLVED_MAX_COUNT || older_than(Some(*when), now, RESOLVED_MAX_AGE_DAYS);
            if expired
                && let Err(e) = std::fs::remove_file(p)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                msgs.push(format!("could not remove the old resolved record {}: {e}", p.display()));
            }
        }
        msgs
    }

    /// Applies the journal's retention (module docs): keeps the newest
    /// [`JOURNAL_MAX_RECORDS`] undo records while their originals total at most
    /// [`JOURNAL_MAX_BYTES`] (the newest always), and removes folders without a
    /// `record.json`. A record still marked in flight is left to crash recovery.
    /// Returns a message per folder that could not be removed.
    pub(crate) fn prune_journal(&self) -> Vec<String> {
        let mut msgs = Vec::new();
        let mut records: Vec<((u64, String), PathBuf, u64)> = Vec::new();
        for r in self.journal_records() {
            if r.inflight {
                continue;
            }
            if !r.complete {
                remove_journal_folder(&r.path, &mut msgs);
                continue;
            }
            records.push(((r.order, r.name), r.path, r.bytes));
        }
        records.sort_by(|a, b| b.0.cmp(&a.0));
        let sizes: Vec<u64> = records.iter().map(|r| r.2).collect();
        let keep = kept_count(&sizes, JOURNAL_MAX_RECORDS, JOURNAL_MAX_BYTES);
        for (_, path, _) in &records[keep..] {
            remove_journal_folder(path, &mut msgs);
        }
        msgs
    }

    /// The folders of `journal/`, as the retention sees them.
    pub(super) fn journal_records(&self) -> Vec<JournalFolder> {
        let Ok(rd) = std::fs::read_dir(self.journal_dir()) else { return Vec::new() };
        let mut v = Vec::new();
        for e in rd.flatten() {
            let path = e.path();
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            v.push(JournalFolder {
                order: pending_format::journal_order(&name).unwrap_or(0),
                complete: path.join(JOURNAL_RECORD).is_file(),
                inflight: path.join(JOURNAL_INFLIGHT).exists(),
                bytes: std::fs::metadata(path.join(JOURNAL_ORIGINALS)).map_or(0, |m| m.len()),
                name,
                path,
            });
        }
        v
    }

    /// What the store keeps now, for `ast-edit pending` to say.
    pub fn kept(&self) -> Kept {
        let undo: Vec<JournalFolder> = self.journal_records().into_iter().filter(|r| r.complete).collect();
        Kept { undo_records: undo.len(), undo_bytes: undo.iter().map(|r| r.bytes).sum(), resolved: self.json_files("resolved").map_or(0, |v| v.len()) }
    }
}

/// One folder of `journal/`.
pub(super) struct JournalFolder {
    name: String,
    path: PathBuf,
    order: u64,
    /// Has its `record.json`.
    complete: bool,
    /// Still marked in flight (left to crash recovery).
    inflight: bool,
    /// Size of its `originals.bin`.
    bytes: u64,
}

pub(super) fn remove_journal_folder(path: &Path, msgs: &mut Vec<String>) {
    if let Err(e) = std::fs::remove_dir_all(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        msgs.push(format!("could not remove the old undo record {}: {e}", path.display()));
    }
}

/// The file names of a journal record (written by [`crate::apply`]).
pub(super) const JOURNAL_RECORD: &str = "record.json";
pub(super) const JOURNAL_INFLIGHT: &str = "inflight";
pub(super) const JOURNAL_ORIGINALS: &str = "originals.bin";

/// Pending actions staged more than this many days ago are dropped.
pub const PENDING_MAX_AGE_DAYS: u64 = 30;
/// At most this many pending actions are kept (the newest).
pub const PENDING_MAX_COUNT: usize = 100;
/// Pending entries are kept, newest first, while they hold at most this many
/// bytes in all (the newest is always kept).
pub const PENDING_MAX_BYTES: u64 = 1 << 30;
/// At most this many undo records are kept (the newest).
pub const JOURNAL_MAX_RECORDS: usize = 20;
/// Undo records are kept, newest first, while their originals total at most this
/// many bytes (the newest is always kept, whatever its size).
pub const JOURNAL_MAX_BYTES: u64 = 1 << 30;
/// Resolved records are kept this many days after they were last written.
pub const RESOLVED_MAX_AGE_DAYS: u64 = 30;
/// At most this many resolved records are kept (the newest).
pub const RESOLVED_MAX_COUNT: usize = 1000;

/// What the store keeps, as `ast-edit pending` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kept {
    /// Undo records in the journal.
    pub undo_records: usize,
    /// The bytes of their originals.
    pub undo_bytes: u64,
    /// Resolved records (ids `resolve --id` and `show` still know).
    pub resolved: usize,
}

impl Kept {
    /// The footer line of `ast-edit pending` (docs/DESIGN.md section 5.8).
    pub fn footer(&self) -> String {
        format!(
            "Keeping {} ({}; the newest {JOURNAL_MAX_RECORDS}, up to {}) and {} for {RESOLVED_MAX_AGE_DAYS} days; pending actions are dropped after {PENDING_MAX_AGE_DAYS} days.",
            crate::shared::text::plural(self.undo_records, "undo record"),
            human_bytes(self.undo_bytes),
            human_bytes(JOURNAL_MAX_BYTES),
            crate::shared::text::plural(self.resolved, "resolved id"),
        )
    }
}

/// How many of `sizes` (newest first) a retention of `max_count` items and
/// `max_bytes` in all keeps: a prefix, never empty when `sizes` is not.
pub(super) fn kept_count(sizes: &[u64], max_count: usize, max_bytes: u64) -> usize {
    let mut total = 0u64;
    for (i, n) in sizes.iter().enumerate() {
        total = total.saturating_add(*n);
        if i >= max_count || (i > 0 && total > max_bytes) {
            return i;
        }
    }
    sizes.len()
}

/// True when `when` is more than `days` days before `now` (false when unknown).
pub(super) fn older_than(when: Option<SystemTime>, now: SystemTime, days: u64) -> bool {
    when.and_then(|w| now.duration_since(w).ok()).is_some_and(|age| age > Duration::from_secs(days * 86_400))
}
