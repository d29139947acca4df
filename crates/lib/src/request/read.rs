//! Reading a file the walk found, for the engine: the size cap, regular files
//! only, text the engine can edit (no NUL byte, valid UTF-8); and the record of
//! a file that was not searched, with its reason.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::request::walk;

/// Why a file was not searched. The text is shown to users as the skip reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip(pub String);


/// A file that was not searched, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Display path; for a name that is not valid UTF-8 (reason
    /// [`walk::NAME_NOT_UTF8`]), its git-quoted form (`"\377.py"`).
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

impl Skipped {
    /// The path as shown to people: git-quoted when it needs it
    /// (`shared::quote::display_name`), except a name that is not UTF-8, whose
    /// `path` already is its quoted form.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        if self.reason == walk::NAME_NOT_UTF8 { self.path.as_str().into() } else { crate::shared::quote::display_name(&self.path) }
    }
}

/// Checks that `bytes` are text the engine can edit safely.
pub fn check_text(bytes: &[u8]) -> std::result::Result<&str, Skip> {
    if memchr::memchr(0, bytes).is_some() {
        return Err(Skip("binary file (contains NUL bytes)".into()));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Skip(format!(
            "not valid UTF-8 (invalid byte at offset {}); convert it to UTF-8 to edit it",
            e.valid_up_to()
        ))
    })
}

/// The skip reason of a file over the size cap: the CLI says which flag raises
/// it; the MCP server has no field for it (it reads with the default cap,
/// docs/DESIGN.md §7), so it says so.
fn too_large(len: u64, max_filesize: u64, front: crate::shared::message::Front) -> String {
    let raise = match front {
        crate::shared::message::Front::Cli => "raise it with --max-filesize",
        crate::shared::message::Front::Mcp => "`ast_edit` has no field to raise it: edit this file another way",
    };
    format!("too large ({len} bytes; the cap is {max_filesize} bytes, {raise})")
}

/// Reads a file for the engine, with the size cap and the text checks.
pub fn read_text(path: &Path, max_filesize: u64, front: crate::shared::message::Front) -> std::result::Result<Vec<u8>, Skip> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| Skip(format!("unreadable: {e}"));
    // One open, one fstat, one read: the size check and the read see the same file.
    // The open never waits (a FIFO put where the walk saw a file would block until
    // a writer came), and only a regular file is read (`/dev/zero` never ends).
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(not(target_os = "linux"))]
    {
        if let Ok(m) = std::fs::metadata(path)
            && !m.is_file()
        {
            return Err(Skip(walk::not_regular(&m.file_type())));
        }
    }
    let mut file = opts.open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(Skip(walk::not_regular(&meta.file_type())));
    }
    let len = meta.len();
    if len > max_filesize {
        return Err(Skip(too_large(len, max_filesize, front)));
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    file.read_to_end(&mut bytes).map_err(unreadable)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO put where the walk saw a file is not read: the open does not wait
    /// for a writer and the fstat refuses it. (Without that, the open would block;
    /// the helper below then opens the write end to let it go on, and the empty
    /// read would fail the assertion instead of hanging the test.)
    #[cfg(target_os = "linux")]
    #[test]
    fn read_text_never_waits_on_a_fifo() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.py");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let helper = {
            let (fifo, done) = (fifo.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    // Succeeds only while a reader holds the FIFO open.
                    let w = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&fifo);
                    drop(w);
                }
            })
        };
        let r = read_text(&fifo, 1 << 20, crate::shared::message::Front::Cli);
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        helper.join().unwrap();
        assert_eq!(r, Err(Skip("not a regular file (a FIFO)".into())));
        assert_eq!(read_text(Path::new("/dev/zero"), 1 << 20, crate::shared::message::Front::Cli), Err(Skip("not a regular file (a character device)".into())));
    }

    #[test]
    fn binary_and_non_utf8_are_refused() {
        assert!(check_text(b"a\0b").unwrap_err().0.contains("binary"));
        assert!(check_text(b"caf\xe9").unwrap_err().0.contains("not valid UTF-8"));
    }
}
