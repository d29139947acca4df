//! Writing a whole file so that a reader (or a crash) sees the old bytes or the
//! new ones, never a mix: a temp file in the same folder, fsync, rename. Used for
//! the store's own files and by undo; apply stages its files the same way but
//! renames them only once every file is staged (see `apply`).

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: temp file in the same folder, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] for content produced by `fill` (streamed through a buffer).
pub fn write_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new().prefix(".ast-edit-").suffix(".tmp").tempfile_in(dir)?;
    let mut w = std::io::BufWriter::new(tmp);
    fill(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
