//! The undo journal: each original spooled (fsynced) before the first rename,
//! the records of each apply, and the recovery of an apply a crash interrupted
//! (docs/DESIGN.md sections 4.6 and 4.7).

use super::*;

/// Where the originals go while an apply runs: the journal's `originals.bin`
/// (when there is a journal) or an anonymous temp file, written as files are
/// staged and read back only to restore after a failed rename.
pub(super) struct Spool {
    /// The journal record's folder, the action's id and label, and the session
    /// applying it.
    pub(super) journal: Option<(PathBuf, Journalled, Session)>,
    /// The originals file and its length so far.
    pub(super) file: std::sync::Mutex<(std::fs::File, u64)>,
}

impl Spool {
    pub(super) fn create(journal: Option<(&Locked<'_>, &Journalled)>) -> Result<Self> {
        let (journal, file) = match journal {
            Some((store, what)) => {
                let order = store.next_order()?;
                let dir = store.journal_dir().join(format!("{order:020}-{}", what.id));
                std::fs::create_dir_all(&dir).map_err(|e| journal_err(&dir, e))?;
                let p = dir.join(ORIGINALS);
                let file = std::fs::File::options().read(true).write(true).create_new(true).open(&p).map_err(|e| journal_err(&p, e))?;
                (Some((dir, what.clone(), store.session().clone())), file)
            }
            None => (None, tempfile::tempfile().map_err(|e| Error::apply_failed(format!("cannot create a temp file for the originals: {e}")))?),
        };
        Ok(Spool { journal, file: std::sync::Mutex::new((file, 0)) })
    }

    pub(super) fn append(&self, bytes: &[u8]) -> Result<(u64, usize)> {
        use std::io::{Seek, SeekFrom};
        let mut g = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let at = g.1;
        let r = g.0.seek(SeekFrom::Start(at)).and_then(|_| g.0.write_all(bytes));
        r.map_err(|e| Error::apply_failed(format!("cannot save the original bytes for undo: {e}; nothing was written")))?;
        g.1 += bytes.len() as u64;
        Ok((at, bytes.len()))
    }

    pub(super) fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut g = self.file.lock().unwrap_or_else(|e| e.into_inner());
        g.0.seek(SeekFrom::Start(offset))?;
        let mut buf = vec![0; len];
        g.0.read_exact(&mut buf)?;
        Ok(buf)
    }

    /// The name of the temp file staged for the `k`-th selected file, when
    /// there is a journal: `.ast-edit-<record>-<k>.tmp`, beside the file.
    pub(super) fn temp_name(&self, k: usize) -> Option<String> {
        let (dir, _, _) = self.journal.as_ref()?;
        Some(staged_temp(&dir.file_name()?.to_string_lossy(), k))
    }

    /// Records the selected files before the first is staged (`staging`: their
    /// paths, each ended by a NUL), so that a run killed while staging leaves
    /// temp files [`recover`] can name ([`Spool::temp_name`]) and remove.
    pub(super) fn list_targets(&self, selected: &[&FilePlan]) -> Result<()> {
        let Some((dir, _, _)) = &self.journal else { return Ok(()) };
        let mut list = Vec::new();
        for f in selected {
            list.extend_from_slice(path_bytes(&f.abs));
            list.push(0);
        }
        let p = dir.join(STAGING);
        std::fs::write(&p, list).map_err(|e| journal_err(&p, e))
    }

    /// Nothing will be renamed: drop the record's folder.
    pub(super) fn abandon(&self) {
        if let Some((dir, _, _)) = &self.journal {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Makes the journal record durable before the first rename: originals
    /// fsynced, then the in-flight marker, then the record naming every file.
    /// An apply of fewer than the `planned` files is labelled with what it
    /// applies too ([`applied_label`]), which `undo` names.
    pub(super) fn commit(&self, staged: &[Prepared<'_>], planned: usize) -> Result<Option<PathBuf>> {
        let Some((dir, what, session)) = &self.journal else { return Ok(None) };
        let p = dir.join(ORIGINALS);
        self.file.lock().unwrap_or_else(|e| e.into_inner()).0.sync_all().map_err(|e| journal_err(&p, e))?;
        let files = staged
            .iter()
            .map(|s| JournalFile {
                path: s.plan.path.clone(),
                abs: s.plan.abs.clone(),
                written_digest: s.plan.new_digest.clone(),
                original_digest: s.plan.digest.clone(),
                offset: s.offset as usize,
                len: s.len,
                written_len: s.new_len,
                temp: s.tmp.to_path_buf(),
            })
            .collect();
        let marker = dir.join(INFLIGHT);
        std::fs::write(&marker, b"").map_err(|e| journal_err(&marker, e))?;
        let rec = JournalRecord {
            id: what.id.clone(),
            label: Some(if staged.len() < planned {
                applied_label(&what.label, staged.iter().map(|s| s.plan.replacements()).sum(), staged.len())
            } else {
                what.label.clone()
            }),
            owner: session.owner().to_string(),
            owner_client: session.client().map(str::to_string),
            files,
        };
        let p = dir.join("record.json");
        write_atomic(&p, &serde_json::to_vec(&rec).expect("serializes")).map_err(|e| journal_err(&p, e))?;
        Ok(Some(dir.clone()))
    }
}

/// The label of an apply that wrote part of its action: the action's label,
/// then what was applied (`AST Edit: 15 replacements in 10 files; applied 2
/// replacements in 1 file`).
fn applied_label(label: &str, replacements: usize, files: usize) -> String {
    format!("{label}; applied {} in {}", plural(replacements, "replacement"), plural(files, "file"))
}

/// What an apply is journalled as: the action's id (a pending action's, or a
/// fresh one for `run -U` and `run -i`, which stage none) and its label, which
/// `undo` names.
#[derive(Clone, Debug)]
pub struct Journalled {
    /// The action's id, which `undo --id` takes.
    pub id: String,
    /// Its label (`AST Edit: 2 replacements in 1 file`).
    pub label: String,
}

/// An undo record.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct JournalRecord {
    pub(super) id: String,
    /// The action's label, which `undo` names beside its id. Records of builds
    /// before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) label: Option<String>,
    /// The session that applied it (not always the one that staged the
    /// action): `undo` without an id takes its own session's last record.
    /// Records of builds before sessions have none: they are `cli`'s.
    #[serde(default = "crate::store::session::cli_owner")]
    pub(super) owner: String,
    /// The name that session's MCP client gave, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) owner_client: Option<String>,
    pub(super) files: Vec<JournalFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct JournalFile {
    pub(super) path: String,
    pub(super) abs: PathBuf,
    /// Digest of what apply wrote: undo restores only where the file still has it.
    pub(super) written_digest: String,
    /// Digest of the bytes before the apply.
    pub(super) original_digest: String,
    /// Where the original bytes sit in the record's `originals.bin`.
    pub(super) offset: usize,
    /// How many bytes.
    pub(super) len: usize,
    /// How many bytes apply wrote: a file of another size is not read to find
    /// it changed.
    pub(super) written_len: u64,
    /// The temp file staged for it (removed by `recover` if a crash left it).
    pub(super) temp: PathBuf,
}

pub(super) fn journal_err(path: &Path, e: std::io::Error) -> Error {
    Error::Store { path: path.to_path_buf(), message: format!("cannot write the undo journal: {e}") }
}

/// Marker file of a journal record whose apply has not finished.
pub(super) const INFLIGHT: &str = "inflight";

/// The files an apply selected, written before it stages the first
/// ([`Spool::list_targets`]).
const STAGING: &str = "staging";

#[cfg(unix)]
fn path_bytes(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> &[u8] {
    p.to_str().unwrap_or_default().as_bytes()
}

#[cfg(unix)]
fn path_of(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

#[cfg(not(unix))]
fn path_of(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

/// The name of the temp file staged beside the `k`-th selected file of the
/// apply whose record folder is `record`.
fn staged_temp(record: &str, k: usize) -> String {
    format!(".ast-edit-{record}-{k}.tmp")
}

/// Cleans up after an apply killed while it staged its files (a record folder
/// without `record.json`): nothing was renamed, so its temp files (named from
/// its `staging` list) and the folder go. The message to show, if any.
fn recover_staging(dir: &Path) -> Result<Option<Text>> {
    let listed = std::fs::read(dir.join(STAGING)).unwrap_or_default();
    let leaf = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut removed = 0;
    for (k, target) in listed.split(|&b| b == 0).filter(|b| !b.is_empty()).enumerate() {
        let target = path_of(target);
        let temp = target.with_file_name(staged_temp(&leaf, k));
        if std::fs::symlink_metadata(&temp).is_ok_and(|m| m.is_file()) && std::fs::remove_file(&temp).is_ok() {
            removed += 1;
        }
    }
    std::fs::remove_dir_all(dir).map_err(|e| journal_err(dir, e))?;
    Ok((removed > 0).then(|| {
        Text::from(format!(
            "an earlier apply was stopped while it staged its files, before it wrote any: {} removed, nothing to undo",
            plural(removed, "leftover temp file")
        ))
    }))
}

/// The file of a journal record holding every original, back to back.
pub(super) const ORIGINALS: &str = "originals.bin";

/// Test-only: `AST_EDIT_PAUSE_AFTER_RENAME=k` (`var`) stops after the k-th
/// rename, `AST_EDIT_PAUSE_BEFORE_RENAME=k` just before it,
/// `AST_EDIT_PAUSE_AFTER_STAGE=1` after each file is staged, for a minute or
/// `AST_EDIT_PAUSE_MS` milliseconds, or until the file `AST_EDIT_RESUME_FILE`
/// names exists, so a test can kill the process (or close an MCP server's
/// stdin, or write a file) in the middle of an apply. Only with the
/// `fault-injection` feature.
pub(super) fn injected_pause(var: &str, k: usize) {
    if super::injected_at(var, k) {
        let ms = std::env::var("AST_EDIT_PAUSE_MS").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(60_000);
        let resume = std::env::var_os("AST_EDIT_RESUME_FILE").map(PathBuf::from);
        // `paused after rename 1`, `paused before rename 1`, `paused after stage 1`.
        let when = var.trim_start_matches("AST_EDIT_PAUSE_").to_lowercase().replace('_', " ");
        eprintln!("paused {when} {k}");
        let until = std::time::Instant::now() + std::time::Duration::from_millis(ms);
        while std::time::Instant::now() < until && !resume.as_ref().is_some_and(|r| r.exists()) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Takes the files at `paths` (sorted) out of the journal record in `dir`: they
/// were left as another process wrote them, so `undo` must not put them back.
/// A record left with no file is removed whole; `Some(dir)` while it stays.
pub(super) fn drop_from_record(dir: &Path, paths: &[&str]) -> Result<Option<PathBuf>> {
    if paths.is_empty() {
        return Ok(Some(dir.to_path_buf()));
    }
    let mut rec = read_record(dir)?;
    rec.files.retain(|f| paths.binary_search(&f.path.as_str()).is_err());
    if rec.files.is_empty() {
        std::fs::remove_dir_all(dir).map_err(|e| journal_err(dir, e))?;
        return Ok(None);
    }
    let p = dir.join("record.json");
    write_atomic(&p, &serde_json::to_vec(&rec).expect("serializes")).map_err(|e| journal_err(&p, e))?;
    Ok(Some(dir.to_path_buf()))
}

/// The journal's records, oldest first: by the order their folder name starts
/// with (`{order:020}-{id}`), then by name.
pub(super) fn journal_records(store: &Locked<'_>) -> Result<Vec<PathBuf>> {
    Ok(journal_folders(store)?.into_iter().filter(|(_, record)| *record).map(|(dir, _)| dir).collect())
}

/// The journal's folders in the order of [`journal_records`], each with
/// whether it has its `record.json` (one without is an apply stopped while it
/// staged its files).
fn journal_folders(store: &Locked<'_>) -> Result<Vec<(PathBuf, bool)>> {
    let jdir = store.journal_dir();
    let mut folders: BTreeMap<(u64, String), (PathBuf, bool)> = BTreeMap::new();
    for e in std::fs::read_dir(&jdir).map_err(|e| journal_err(&jdir, e))?.flatten() {
        let rp = e.path().join("record.json");
        let record = rp.is_file();
        if !record && (rp.exists() || !e.file_type().is_ok_and(|t| t.is_dir())) {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        folders.insert((crate::store::pending_format::journal_order(&name).unwrap_or(0), name), (e.path(), record));
    }
    Ok(folders.into_values().collect())
}

pub(super) fn read_record(dir: &Path) -> Result<JournalRecord> {
    let rp = dir.join("record.json");
    let bytes = crate::store::read_entry(&rp).map_err(|e| Error::Store { path: rp.clone(), message: format!("this undo record {}", e.reason()) })?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Store { path: rp.clone(), message: format!("unreadable undo record: {e}") })
}

/// How many written paths the interrupted-apply warning of `recover` names;
/// the rest are counted (`and <n> more`). See docs/DESIGN.md §7.
pub const MAX_LISTED_WRITTEN: usize = 10;

/// The sizes at which a journalled file is worth reading to compare it with its
/// written bytes and / or its original bytes.
pub(super) fn sizes_of(f: &JournalFile, written: bool, original: bool) -> Vec<u64> {
    let mut sizes = Vec::new();
    if written {
        sizes.push(f.written_len);
    }
    if original {
        sizes.push(f.len as u64);
    }
    sizes
}

/// Cleans up after an apply that was killed half-way: removes its temp files and
/// turns its journal into a normal undo record; an apply killed before its
/// record was written (while it staged) leaves only temp files, which go. Returns one message per interrupted
/// apply, for the caller to show. Every whole file is either the old or the new one
/// (renames are atomic); the messages say how many were written and name the
/// first [`MAX_LISTED_WRITTEN`].
pub fn recover(store: &Locked<'_>) -> Result<Vec<Text>> {
    let mut msgs = Vec::new();
    for (dir, record) in journal_folders(store)? {
        if !record {
            msgs.extend(recover_staging(&dir)?);
            continue;
        }
        if !dir.join(INFLIGHT).exists() {
            continue;
        }
        let rec = read_record(&dir)?;
        let mut removed = 0;
        let mut written = Vec::new();
        for f in &rec.files {
            if f.temp.exists() && std::fs::remove_file(&f.temp).is_ok() {
                removed += 1;
            }
            if read_if_size(&f.abs, &sizes_of(f, true, false)).is_ok_and(|(b, _)| crate::shared::hash::digest(&b) == f.written_digest) {
                written.push(f.path.as_str());
            }
        }
        std::fs::remove_file(dir.join(INFLIGHT)).map_err(|e| journal_err(&dir, e))?;
        let mut names = written.iter().take(MAX_LISTED_WRITTEN).map(|p| display_name(p)).collect::<Vec<_>>().join(", ");
        if written.is_empty() {
            names = "none".into();
        } else if written.len() > MAX_LISTED_WRITTEN {
            names.push_str(&format!(" and {} more", written.len() - MAX_LISTED_WRITTEN));
        }
        msgs.push(
            Text::from(format!(
                "an earlier apply of {} was interrupted: {} of {} written ({names}), {} removed; run ",
                rec.id,
                written.len(),
                plural(rec.files.len(), "file"),
                plural(removed, "leftover temp file"),
            ))
            .name(Name::Undo)
            .lit(" to restore them"),
        );
    }
    Ok(msgs)
}
