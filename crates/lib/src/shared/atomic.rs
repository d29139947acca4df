//! Writing a whole file so that a reader (or a crash) sees the old bytes or the
//! new ones, never a mix: a temp file in the same folder, fsync, rename. Used for
//! the store's own files; source files go through [`stage_beside`] and
//! [`replace_keeping`], which also give the new file the old one's mode, owner
//! and group (docs/DESIGN.md §4.3): apply stages every file before the first
//! rename, its rollback and `undo` put originals back with [`replace_keeping`].

use std::io::Write;
use std::path::Path;

use tempfile::NamedTempFile;

/// Writes `bytes` to `path` atomically: temp file in the same folder, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] for content produced by `fill` (streamed through a buffer).
pub(crate) fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new().prefix(".ast-edit-").suffix(".tmp").tempfile_in(dir)?;
    let mut w = std::io::BufWriter::new(tmp);
    fill(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// What a file written in place of another keeps from it: every permission bit
/// (setuid, setgid and sticky included) and, on unix, the owner and the group.
#[derive(Clone, Debug)]
pub struct Kept {
    #[cfg(unix)]
    mode: u32,
    #[cfg(unix)]
    uid: u32,
    #[cfg(unix)]
    gid: u32,
    #[cfg(not(unix))]
    perms: std::fs::Permissions,
}

impl Kept {
    /// What `meta` (the file about to be replaced) has.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Kept { mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() }
        }
        #[cfg(not(unix))]
        {
            Kept { perms: meta.permissions() }
        }
    }

    /// Gives `file` (a new temp file, still empty) these attributes: owner and
    /// group first (a change of owner may clear the setuid and setgid bits), then
    /// the mode.
    fn give_to(&self, file: &std::fs::File) -> Result<(), StageError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let now = file.metadata()?;
            let (uid, gid) = (now.uid() != self.uid, now.gid() != self.gid);
            // Only what differs: on filesystems without owners (vfat) a chown to
            // the same ids may fail too, and that must not refuse anything.
            if uid || gid {
                let r = std::os::unix::fs::fchown(file, uid.then_some(self.uid), gid.then_some(self.gid));
                if let Err(e) = r {
                    if e.kind() != std::io::ErrorKind::PermissionDenied {
                        return Err(e.into());
                    }
                    return Err(StageError::Owner(format!(
                        "owned by uid {}, gid {}, an owner that uid {} cannot give to a new file: writing it would make it yours; edit it by hand, or apply as its owner or as root",
                        self.uid,
                        self.gid,
                        now.uid()
                    )));
                }
            }
            file.set_permissions(std::fs::Permissions::from_mode(self.mode))?;
        }
        #[cfg(not(unix))]
        file.set_permissions(self.perms.clone())?;
        Ok(())
    }
}

/// Why a file could not be staged.
#[derive(Debug)]
pub enum StageError {
    /// The new file cannot have the old one's owner or group (this process may not
    /// give them): the reason, worded for the user. Writing would change who owns
    /// the file, so the file is refused (docs/DESIGN.md §4.3).
    Owner(String),
    /// Creating, writing or syncing the temp file failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for StageError {
    fn from(e: std::io::Error) -> Self {
        StageError::Io(e)
    }
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::Owner(reason) => f.write_str(reason),
            StageError::Io(e) => e.fmt(f),
        }
    }
}

/// Writes `bytes` to a new temp file beside `target` (same folder, so the later
/// rename is atomic), with `kept`'s owner, group and mode, fsynced. Nothing is
/// renamed: the caller persists it over `target` (dropping it removes it).
pub(crate) fn stage_beside(target: &Path, mut bytes: &[u8], kept: &Kept) -> Result<NamedTempFile, StageError> {
    stage_from(target, None, &mut bytes, kept)
}

/// [`stage_beside`] under the temp name `name` (created new, never over a file
/// that is there), which the caller recorded before, so a run killed while
/// staging leaves temp files the next run can find and remove.
pub(crate) fn stage_named(target: &Path, name: &str, mut bytes: &[u8], kept: &Kept) -> Result<NamedTempFile, StageError> {
    stage_from(target, Some(name), &mut bytes, kept)
}

/// [`stage_beside`] with the bytes read from `from` (to its end), streamed,
/// under a random temp name or `name`.
fn stage_from(target: &Path, name: Option<&str>, from: &mut dyn std::io::Read, kept: &Kept) -> Result<NamedTempFile, StageError> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let mut b = tempfile::Builder::new();
    match name {
        Some(name) => b.prefix(name).suffix("").rand_bytes(0),
        None => b.prefix(".ast-edit-").suffix(".tmp"),
    };
    let mut tmp = b.tempfile_in(dir)?;
    kept.give_to(tmp.as_file())?;
    std::io::copy(from, &mut tmp)?;
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// Replaces `target` with `bytes` atomically, the new file keeping `kept`
/// (the replaced file's mode, owner and group).
pub(crate) fn replace_keeping(target: &Path, bytes: &[u8], kept: &Kept) -> Result<(), StageError> {
    stage_beside(target, bytes, kept)?.persist(target).map_err(|e| StageError::Io(e.error))?;
    Ok(())
}

/// [`replace_keeping`] with the bytes read from `from` (to its end), streamed.
pub(crate) fn replace_from(target: &Path, from: &mut dyn std::io::Read, kept: &Kept) -> Result<(), StageError> {
    stage_from(target, None, from, kept)?.persist(target).map_err(|e| StageError::Io(e.error))?;
    Ok(())
}

/// Writes a user's own file (a rule test's snapshot) atomically: in place of a
/// regular file, keeping its mode, owner and group; a new file gets the mode
/// the umask leaves of 0666, as any editor's would (the store's private files
/// use [`write_atomic`], 0600).
pub(crate) fn write_user_file(path: &Path, bytes: &[u8]) -> Result<(), StageError> {
    if let Ok(m) = std::fs::symlink_metadata(path)
        && m.is_file()
    {
        return replace_keeping(path, bytes, &Kept::of(&m));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut b = tempfile::Builder::new();
    b.prefix(".ast-edit-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The kernel takes the umask off the mode asked for at creation.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = b.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| StageError::Io(e.error))?;
    Ok(())
}
