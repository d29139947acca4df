//! Opening and reading a file the tool was given by name or keeps itself: a
//! file the walk found, a rule file, a project's config, a rule test, a
//! snapshot, a pending action of the store. The open never waits (a FIFO put
//! where a file was expected would block until a writer came), only a regular
//! file is read (`/dev/zero` never ends), and never past a cap, so a hostile
//! path costs one `open` and one `fstat` (docs/DESIGN.md §7).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a path that is not a regular file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A named pipe: reading it would wait for a writer.
    Fifo,
    /// A character device (`/dev/zero` never ends).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A socket.
    Socket,
    /// A symbolic link, which the walk does not follow.
    Symlink,
    /// A folder named where a file was expected.
    Folder,
    /// Anything else.
    Special,
}

impl FileKind {
    /// The kind of `ft` (a file type that is not a regular file's).
    pub fn of(ft: &std::fs::FileType) -> FileKind {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if ft.is_fifo() {
                return FileKind::Fifo;
            } else if ft.is_char_device() {
                return FileKind::CharDevice;
            } else if ft.is_block_device() {
                return FileKind::BlockDevice;
            } else if ft.is_socket() {
                return FileKind::Socket;
            }
        }
        if ft.is_symlink() {
            FileKind::Symlink
        } else if ft.is_dir() {
            FileKind::Folder
        } else {
            FileKind::Special
        }
    }

    /// What it is, in a few words (`a FIFO`).
    pub fn text(self) -> &'static str {
        match self {
            FileKind::Fifo => "a FIFO",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Socket => "a socket",
            FileKind::Symlink => "a symbolic link; links are not followed: name the file it points to",
            FileKind::Folder => "a folder",
            FileKind::Special => "a special file",
        }
    }
}

/// Why a named file was not read.
#[derive(Debug)]
pub enum Unread {
    /// It is not a regular file.
    NotRegular(FileKind),
    /// It is larger than the cap.
    TooLarge {
        /// Its size in bytes.
        len: u64,
        /// The cap in bytes.
        cap: u64,
    },
    /// Opening or reading it failed.
    Io(std::io::Error),
}

impl Unread {
    /// The reason after the file's name: `is a FIFO, not a regular file`.
    pub fn reason(&self) -> String {
        match self {
            Unread::NotRegular(k) => format!("is {}, not a regular file", k.text()),
            Unread::TooLarge { len, cap } => format!("is {len} bytes; the limit is {cap} bytes"),
            Unread::Io(e) => format!("cannot be read: {e}"),
        }
    }

    /// True when the file does not exist (or a folder on its path is a file).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Unread::Io(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory))
    }
}

/// Opens `path` for reading without waiting and returns it with its size, when
/// it is a regular file (through a symlink, as `open` follows it).
pub fn open_regular(path: &Path) -> Result<(File, u64), Unread> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    // One open, one fstat: the check and the read see the same file. A socket
    // cannot be opened at all (ENXIO): its kind says more than the error.
    let file = opts.open(path).map_err(|e| match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => Unread::NotRegular(FileKind::of(&m.file_type())),
        _ => Unread::Io(e),
    })?;
    let meta = file.metadata().map_err(Unread::Io)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular(FileKind::of(&meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// Reads `path` whole when it is a regular file of at most `cap` bytes; a file
/// that grows while it is read is not read past the cap.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, Unread> {
    let (file, len) = open_regular(path)?;
    if len > cap {
        return Err(Unread::TooLarge { len, cap });
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(Unread::Io)?;
    if bytes.len() as u64 > cap {
        return Err(Unread::TooLarge { len: bytes.len() as u64, cap });
    }
    Ok(bytes)
}

/// [`read_capped`] as text: `Err` also when it is not UTF-8.
pub fn read_capped_text(path: &Path, cap: u64) -> Result<String, Unread> {
    let bytes = read_capped(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        Unread::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())))
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_device_a_folder_and_a_large_file_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("rules.yml");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(matches!(read_capped(&fifo, 10), Err(Unread::NotRegular(FileKind::Fifo))));
        assert!(matches!(read_capped(Path::new("/dev/zero"), 10), Err(Unread::NotRegular(FileKind::CharDevice))));
        assert!(matches!(read_capped(dir.path(), 10), Err(Unread::NotRegular(FileKind::Folder))));
        let socket = dir.path().join("s.yml");
        let _listening = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(matches!(read_capped(&socket, 10), Err(Unread::NotRegular(FileKind::Socket))));
        let big = dir.path().join("big.yml");
        std::fs::write(&big, [b'x'; 11]).unwrap();
        assert!(matches!(read_capped(&big, 10), Err(Unread::TooLarge { len: 11, cap: 10 })));
        assert_eq!(read_capped(&big, 11).unwrap().len(), 11);
        assert!(read_capped(&dir.path().join("none"), 10).unwrap_err().is_not_found());
        assert_eq!(Unread::NotRegular(FileKind::Fifo).reason(), "is a FIFO, not a regular file");
    }
}
