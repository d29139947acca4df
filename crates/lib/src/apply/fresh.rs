//! Proving a file fresh before it is written: re-read it (a regular file, not
//! through a symlink, at its planned size) and compare its digest with the
//! preview's; refuse a file that cannot be written without harm (hard links);
//! and proving no other process wrote it while the apply ran (held open across
//! its rename, read again after it).

use super::*;

/// The stale check of one planned file, cheap tests first: what is at its path
/// (a symlink or something other than a regular file is stale, and a symlink is
/// never read through), its size against the planned size (a file that grew is
/// not read at all), then the digest of its bytes; a fresh file with several hard
/// links is refused. Returns the original bytes and the file's metadata.
pub(super) fn check_fresh(f: &FilePlan, cap: u64) -> std::result::Result<(Vec<u8>, std::fs::Metadata), Outcome<'static>> {
    let (mut file, meta) = match open_regular(&f.abs) {
        Opened::File(file, meta) => (file, meta),
        Opened::Missing => return Err(Outcome::Stale(Stale::Deleted)),
        Opened::Link => return Err(Outcome::Stale(Stale::NowLink)),
        Opened::NotRegular => return Err(Outcome::Stale(Stale::NotRegular)),
        Opened::Unreadable(e) => return Err(Outcome::Stale(Stale::Unreadable(e.to_string()))),
    };
    let expected = f.size;
    if meta.len() != expected || expected > cap {
        return Err(Outcome::Stale(Stale::Changed));
    }
    match read_sized(&mut file, expected) {
        Ok(Some(bytes)) if crate::shared::hash::digest(&bytes) == f.digest => {
            if let Some(reason) = hard_links(&meta, "writing") {
                return Err(Outcome::Refused(format!("{reason}; edit it by hand")));
            }
            Ok((bytes, meta))
        }
        Ok(_) => Err(Outcome::Stale(Stale::Changed)),
        Err(e) => Err(Outcome::Stale(Stale::Unreadable(e.to_string()))),
    }
}

/// The refusal of a file with several hard links (`doing`: "writing",
/// "restoring"): a rename gives this name a new file and leaves the other names
/// on the old bytes. `None` for a single link.
pub(super) fn hard_links(meta: &std::fs::Metadata, doing: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let n = meta.nlink();
        if n > 1 {
            return Some(format!("has {n} hard links: {doing} it would break them, as only this name would get the new bytes"));
        }
    }
    #[cfg(not(unix))]
    let _ = (meta, doing);
    None
}

/// What is at a path, opened for reading without following a symlink in its last
/// component (`O_NOFOLLOW` on Linux), with what `fstat` says of it.
pub(super) enum Opened {
    File(std::fs::File, std::fs::Metadata),
    Missing,
    Link,
    NotRegular,
    Unreadable(std::io::Error),
}

pub(super) fn open_regular(path: &Path) -> Opened {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO put in the file's place must not hang the apply (it is
        // then refused as not a regular file); it changes nothing for regular files.
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(target_os = "linux"))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Opened::Link;
    }
    match o.open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Opened::Missing,
        #[cfg(target_os = "linux")]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Opened::Link,
        Err(e) => Opened::Unreadable(e),
        Ok(file) => match file.metadata() {
            Ok(m) if m.is_file() => Opened::File(file, m),
            Ok(_) => Opened::NotRegular,
            Err(e) => Opened::Unreadable(e),
        },
    }
}

/// The bytes of `file` if it holds exactly `size` bytes, `None` if it holds
/// more or fewer. Never reads more than `size + 1` bytes, so a file that grows
/// after its `fstat` costs no more memory than the expected size.
pub(super) fn read_sized(file: &mut std::fs::File, size: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(usize::MAX).saturating_add(1));
    file.take(size.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 == size).then_some(bytes))
}

/// The bytes at `path` if it is a regular file (not read through a symlink) whose
/// size is one of `sizes` (any size when `sizes` is empty), with its metadata.
/// `Err(true)` when nothing is there, `Err(false)` for anything else.
pub(super) fn read_if_size(path: &Path, sizes: &[u64]) -> std::result::Result<(Vec<u8>, std::fs::Metadata), bool> {
    match open_regular(path) {
        Opened::File(mut file, meta) => {
            if !sizes.is_empty() && !sizes.contains(&meta.len()) {
                return Err(false);
            }
            match read_sized(&mut file, meta.len()) {
                Ok(Some(bytes)) => Ok((bytes, meta)),
                _ => Err(false),
            }
        }
        Opened::Missing => Err(true),
        _ => Err(false),
    }
}

/// Re-runs the rewrite on one fresh file, checks it reproduces the preview,
/// stages the new bytes beside the target (with the original's mode, owner and
/// group) and spools the original. A file whose owner cannot be kept is refused.
pub(super) fn prepare_file<'p>(
    f: &'p FilePlan,
    original: &[u8],
    meta: &std::fs::Metadata,
    engine: Option<&Engine>,
    plan: &Plan,
    spool: &Spool,
    temp: Option<&str>,
) -> Result<Outcome<'p>> {
    let new = match engine {
        None => engine::splice(original, &f.edits),
        Some(engine) => {
            let lang = lang::parse_lang(&f.lang)?;
            let text = crate::request::read::check_text(original).map_err(|s| Error::apply_failed(s.0.text().after(format!("{}: ", f.path))))?;
            let opts = engine::RewriteOptions {
                prefilter: !plan.request.no_prefilter,
                check_syntax: false,
                rewrite_nested: plan.request.rewrite_nested,
                verbatim: plan.request.verbatim,
            };
            engine.rewrite(&engine.file_ops(lang, &f.abs), text, opts).map(|r| r.new_text).unwrap_or_default()
        }
    };
    if crate::shared::hash::digest(&new) != f.new_digest {
        return Err(Error::apply_failed(format!(
            "re-running the edit on {} did not reproduce the preview (was ast-edit upgraded in between?); nothing was written. Discard this action and preview again",
            f.path
        )));
    }
    let kept = Kept::of(meta);
    let staged = match temp {
        Some(name) => atomic::stage_named(&f.abs, name, &new, &kept),
        None => atomic::stage_beside(&f.abs, &new, &kept),
    };
    injected_pause("AST_EDIT_PAUSE_AFTER_STAGE", 1);
    let tmp = match staged {
        Ok(tmp) => tmp.into_temp_path(),
        Err(StageError::Owner(reason)) => return Ok(Outcome::Refused(reason)),
        Err(StageError::Io(e)) => {
            return Err(Error::apply_failed(format!("cannot stage the new {}: {e}; nothing was written", display_name(&f.path))));
        }
    };
    let (offset, len) = spool.append(original)?;
    Ok(Outcome::Staged(Prepared { plan: f, offset, len, new_len: new.len() as u64, tmp, kept, id: FileId::of(meta) }))
}

/// Which file a path named: device and inode. Another file at the path (an
/// editor's save renames a new file over the old) has another identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileId(u64, u64);

impl FileId {
    pub(super) fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileId(meta.dev(), meta.ino())
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            FileId(0, 0)
        }
    }
}

/// The file at `path` just before its rename, opened by name (not through a
/// symlink) to be held open across the rename: `None` when it is not the file
/// that was checked (`id`) or no longer has that file's size.
pub(super) fn hold(path: &Path, id: FileId, size: u64) -> Option<std::fs::File> {
    match open_regular(path) {
        Opened::File(file, meta) if FileId::of(&meta) == id && meta.len() == size => Some(file),
        _ => None,
    }
}

/// Whether `old`, the file held open across its rename, still holds the bytes
/// it was checked to hold (`size` of them, of `digest`): its size, then the
/// digest of its bytes, read in blocks (never more than `size` and one byte).
pub(super) fn still_holds(old: &mut std::fs::File, size: u64, digest: &str) -> std::io::Result<bool> {
    use sha2::Digest;
    use std::io::{Read, Seek, SeekFrom};
    if old.metadata()?.len() != size {
        return Ok(false);
    }
    old.seek(SeekFrom::Start(0))?;
    let mut h = sha2::Sha256::new();
    let n = std::io::copy(&mut old.take(size.saturating_add(1)), &mut h)?;
    Ok(n == size && crate::shared::hash::finish(h) == digest)
}

/// Puts back what another process wrote to `old` (held open across the rename)
/// in place of the bytes just written at `path` (`ours`: their length and
/// digest), keeping the replaced file's mode, owner and group; only while the
/// path still holds those bytes, so a write made by name after the rename is
/// never undone. `doing` names the step ("apply", "undo") in the reason given
/// when it cannot.
pub(super) fn give_back(old: &mut std::fs::File, path: &Path, ours: (u64, &str), kept: &Kept, doing: &str) -> std::result::Result<(), String> {
    use std::io::{Seek, SeekFrom};
    let still_ours = read_if_size(path, &[ours.0]).is_ok_and(|(b, _)| crate::shared::hash::digest(&b) == ours.1);
    if !still_ours {
        return Err(format!("changed by another process during the {doing}, and again after it was written: left as it is now"));
    }
    old.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    atomic::replace_from(path, old, kept).map_err(|e| {
        format!("changed by another process during the {doing}; putting that process's bytes back failed ({e}): the file holds the bytes the {doing} wrote")
    })
}
