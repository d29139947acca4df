//! Where `test -U` writes the snapshot files, and the writing: the kept
//! snapshots with the accepted ones added, each file's target checked (an id
//! without a path separator, a name that fits, a folder of the project's
//! `testConfigs` inside the project) before the first is written. Part of
//! the port of ast-grep's `crates/cli/src/verify.rs` (0.51.1) in
//! `rules/ruletest.rs`, under the MIT License notice there.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{Harness, RuleOutcome, TestSnapshots, Verdict, to_yaml};
use crate::rules::project::{self, MAX_RULE_FILE_BYTES, Project};
use crate::shared::error::{Error, Result};
use crate::shared::named::{Unread, read_capped};

/// The path of the snapshot file of rule `id` in `dir`.
/// Where `test -U` writes the snapshot of rule `id`: refused (bad input,
/// nothing written) when the id holds a path separator (`../../x` or `/tmp/x`
/// would put the file elsewhere) or when a snapshot folder of the project's
/// `testConfigs` lies outside the project (its real location when it exists).
pub(in crate::rules) fn snapshot_target(project: &Project, dir: &Path, id: &str, confined: bool) -> Result<PathBuf> {
    if id.contains(['/', '\\']) || id.is_empty() || id == ".." {
        return Err(Error::bad(format!(
            "rule `{}`: its id holds a path separator, so its snapshot file would be written outside {}; `test -U` writes no snapshot for it: give the rule an id without `/`. Nothing was written",
            crate::shared::quote::escape_controls(id),
            project.show(dir)
        )));
    }
    // A file name holds at most 255 bytes on the usual file systems.
    let name = format!("{id}-snapshot.yml");
    if name.len() > MAX_FILE_NAME_BYTES {
        return Err(Error::bad(format!(
            "rule `{}…`: its id is {} bytes, too long for the name of its snapshot file `<id>-snapshot.yml` (at most {MAX_FILE_NAME_BYTES} bytes); `test -U` writes no snapshot for it: give the rule a shorter id. Nothing was written",
            crate::shared::quote::escape_controls(&id.chars().take(40).collect::<String>()),
            id.len()
        )));
    }
    if confined {
        confine_snapshots(project, dir, id)?;
    }
    Ok(snapshot_path(dir, id))
}

/// Refuses a snapshot folder of the project's `testConfigs` (`testDir`,
/// `snapshotDir`) that really lies outside the project: symlinks followed as
/// far as the folder exists, so a symlinked `testDir` or a link on the way to a
/// `snapshotDir` not created yet is judged by where the write would land.
/// `write_snapshots` checks again once the folder exists, just before writing.
fn confine_snapshots(project: &Project, dir: &Path, id: &str) -> Result<()> {
    let real = crate::shared::paths::real_location(dir);
    if real.as_ref().is_some_and(|r| r.starts_with(&project.dir)) {
        return Ok(());
    }
    Err(Error::bad(format!(
        "the snapshot folder of `{}` ({}, from the project's testConfigs testDir and snapshotDir) {} the project {}; `test -U` writes snapshots only inside it: move the folder into the project, or give the folders with --test-dir and --snapshot-dir. Nothing was written",
        crate::shared::quote::escape_controls(id),
        real.as_deref().unwrap_or(dir).display(),
        if real.is_some() { "is outside" } else { "passes a symlink that cannot be followed, so it may lead outside" },
        project.dir.display()
    )))
}

/// The longest file name `test -U` writes (255 bytes: ext4, xfs, btrfs, APFS).
const MAX_FILE_NAME_BYTES: usize = 255;

pub(super) fn snapshot_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}-snapshot.yml"))
}

/// Writes the snapshot file of every rule with tests, as `ast-grep test -U`:
/// the kept snapshots with the accepted ones added (kept entries of cases no
/// longer in the tests stay). Files whose bytes would not change are left alone.
pub(super) fn write_snapshots(project: &Project, h: &Harness, reports: &[RuleOutcome]) -> Result<Vec<String>> {
    let mut merged = h.snapshots.clone();
    for r in reports {
        let entry = merged.entry(r.id.clone()).or_insert_with(|| TestSnapshots { id: r.id.clone(), snapshots: BTreeMap::new() });
        for c in r.cases.iter().filter(|c| c.verdict == Verdict::Updated) {
            entry.snapshots.insert(c.code.clone(), c.actual.clone().expect("an updated case has its snapshot"));
        }
    }
    let dirs: HashMap<&str, (&Path, bool)> = h.cases.iter().map(|t| (t.case.id.as_str(), (t.snapshot_dir.as_path(), t.confined))).collect();
    // Every target is checked before the first is written: a refusal writes nothing.
    let mut todo: Vec<(&Path, bool, &str, PathBuf, String)> = Vec::new();
    for (id, snaps) in &merged {
        let Some(&(dir, confined)) = dirs.get(id.as_str()) else { continue };
        let path = snapshot_target(project, dir, id, confined)?;
        let text = to_yaml(snaps);
        // The snapshot there is read as any named file (never a FIFO, never
        // past the cap); one that is not a regular file is not replaced.
        match read_capped(&path, MAX_RULE_FILE_BYTES) {
            Ok(old) if old == text.as_bytes() => continue,
            Ok(_) => {}
            Err(e) if e.is_not_found() => {}
            Err(e @ Unread::Io(_)) => return Err(project::unread(&format!("snapshot file {}", project.show(&path)), &e)),
            Err(e) => {
                return Err(Error::bad(format!(
                    "snapshot file {} {}: remove it to let `test -U` write the snapshot there. Nothing was written",
                    project.show(&path),
                    e.reason()
                )));
            }
        }
        todo.push((dir, confined, id, path, text));
    }
    let cannot = |what: &str, at: &Path, e: &dyn std::fmt::Display| {
        Error::bad(format!("cannot {what} {}: {e}; check the folder's permissions, or give another --snapshot-dir", project.show(at)))
    };
    let mut written = Vec::new();
    for (dir, confined, id, path, text) in todo {
        std::fs::create_dir_all(dir).map_err(|e| cannot("create", dir, &e))?;
        // Where the folder really is now that it exists: a link made since the
        // first check must not carry the write out of the project.
        if confined {
            confine_snapshots(project, dir, id)?;
        }
        crate::shared::atomic::write_user_file(&path, text.as_bytes()).map_err(|e| cannot("write", &path, &e))?;
        written.push(project.show(&path));
    }
    Ok(written)
}
