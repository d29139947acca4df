//! Reading a file the walk found, for the engine: the size cap, regular files
//! only, text the engine can edit (no NUL byte, valid UTF-8); and the record of
//! a file that was not searched, with its reason.

use std::path::Path;

use crate::shared::message::{Say, Text};

/// Why a file was not searched or edited: a [`SkipReason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip(pub SkipReason);

/// Why a file was not searched or edited, with its figures; each front end
/// words it ([`SkipReason::text`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// It holds a NUL byte.
    Binary,
    /// It is not UTF-8.
    NotUtf8 {
        /// The offset of its first invalid byte.
        offset: usize,
    },
    /// Opening or reading it failed.
    Unreadable {
        /// The system's error.
        error: String,
    },
    /// It is not a regular file.
    NotRegular {
        /// What it is.
        file: FileKind,
    },
    /// It is larger than the size cap.
    TooLarge {
        /// Its size in bytes.
        len: u64,
        /// The cap in bytes.
        cap: u64,
        /// ast-grep 0.51.1 skips it too: over 3 MB and over 200,000 lines.
        ast_grep_skips: bool,
    },
    /// Its name is not UTF-8, so it cannot be named without loss.
    NameNotUtf8,
    /// Its syntax tree was too deep for a pattern that uses a metavariable
    /// twice: no longer given (the stack limit of [`SkipReason::OverLimit`]
    /// replaced it), read from actions stored by earlier versions.
    TreeTooDeep {
        /// The most levels such a pattern is matched on.
        limit: usize,
    },
    /// The rewrite would build too much replacement text.
    ReplacementTooLarge {
        /// The most bytes of replacement text for the file.
        budget: usize,
    },
    /// Matching it met one of the limits of one file's work
    /// (`engine::budget`): its steps, its stack, the text it built.
    OverLimit {
        /// Which limit.
        what: WorkLimit,
        /// Its value (steps, or bytes).
        limit: u64,
    },
    /// The request's time limit ran out before the file was done
    /// (`engine::budget`: the CLI's `--timeout`, the MCP server's limit).
    TookTooLong {
        /// The limit, in seconds.
        limit_secs: u64,
    },
    /// The request was cancelled while the file was searched.
    Stopped,
    /// A reason as a store of format version 1 kept it: already worded.
    Worded(String),
}

pub use crate::shared::named::FileKind;

/// Which limit of one file's work a file met ([`SkipReason::OverLimit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkLimit {
    /// The steps (node visits) of matching.
    Steps,
    /// The stack matching used.
    Stack,
    /// The text transforms and fixes built.
    Text,
}

/// The reason of a file whose name is not valid UTF-8 (docs/DESIGN.md §5.5).
const NAME_NOT_UTF8: &str = "file name is not valid UTF-8; rename it to edit it";

impl SkipReason {
    /// True when one of ast-edit's own limits left the file unsearched (or
    /// unrewritten) where ast-grep 0.51.1 would have searched it: the run
    /// fails (docs/DESIGN.md section 7). The skips ast-grep makes too (a
    /// binary file, a file not UTF-8, one it finds too large itself), a file
    /// that cannot be read and a cancelled request are not.
    pub fn is_limit(&self) -> bool {
        match self {
            SkipReason::TooLarge { ast_grep_skips, .. } => !ast_grep_skips,
            SkipReason::TreeTooDeep { .. } | SkipReason::ReplacementTooLarge { .. } | SkipReason::OverLimit { .. } | SkipReason::TookTooLong { .. } => true,
            SkipReason::Binary
            | SkipReason::NotUtf8 { .. }
            | SkipReason::Unreadable { .. }
            | SkipReason::NotRegular { .. }
            | SkipReason::NameNotUtf8
            | SkipReason::Stopped
            | SkipReason::Worded(_) => false,
        }
    }

    /// The reason as a text: only the size cap's way out is a front end's
    /// clause ([`Say::RaiseFileCap`]: the CLI has a flag that raises it, the MCP
    /// server reads with the default cap, docs/DESIGN.md §7).
    pub fn text(&self) -> Text {
        Text::from(match self {
            SkipReason::Binary => "binary file (contains NUL bytes)".to_string(),
            SkipReason::NotUtf8 { offset } => format!("not valid UTF-8 (invalid byte at offset {offset}); convert it to UTF-8 to edit it"),
            SkipReason::Unreadable { error } => format!("unreadable: {error}"),
            SkipReason::NotRegular { file } => format!("not a regular file ({})", file.text()),
            SkipReason::TooLarge { len, cap, .. } => {
                return Text::from(format!("too large ({len} bytes; the cap is {cap} bytes, ")).say(Say::RaiseFileCap).lit(")");
            }
            SkipReason::NameNotUtf8 => NAME_NOT_UTF8.to_string(),
            SkipReason::TreeTooDeep { limit } => format!(
                "syntax tree nested more than {limit} levels deep, the limit for a rule that compares code by recursion (a metavariable used twice, or a `matches` utility; matching it would overflow the stack); search this file with a rule that does neither"
            ),
            SkipReason::ReplacementTooLarge { budget } => format!(
                "the rewrite would build more than {budget} bytes of replacement text here (4 times the file's size plus 64 MiB, the limit per file): it copies large matches many times, or matches nest deeply; narrow the pattern or shorten the rewrite"
            ),
            SkipReason::OverLimit { what: WorkLimit::Steps, limit } => format!(
                "matching took more than {limit} steps here, the limit per file (a rule that walks far from each node, such as nested `inside`/`has` with `stopBy: end`, or one that refers to itself); narrow the rule or leave this file out"
            ),
            SkipReason::OverLimit { what: WorkLimit::Stack, limit } => format!(
                "matching recursed deeper than {} KiB of stack here, the limit per file (a rule or utility that refers to itself, or a rewriter that rewrites its own match, recurses without end); make the recursion end, for example with a `not: {{inside: ...}}`",
                limit >> 10
            ),
            SkipReason::OverLimit { what: WorkLimit::Text, limit } => format!(
                "the transforms and fixes would build more than {limit} bytes of text here (16 times the file's size plus 256 MiB, the limit per file): a `replace`, `convert` or `rewrite` step multiplies its text and the steps chain; shorten what they insert or chain fewer steps"
            ),
            SkipReason::TookTooLong { limit_secs } => {
                format!("not finished: the request's files took more than {limit_secs} s together, its time limit; search fewer paths at a time")
            }
            SkipReason::Stopped => "not finished: the request was cancelled".to_string(),
            SkipReason::Worded(text) => text.clone(),
        })
    }

    /// True for a name that is not UTF-8 (also as a version-1 store worded it).
    fn is_name_not_utf8(&self) -> bool {
        match self {
            SkipReason::NameNotUtf8 => true,
            SkipReason::Worded(text) => text == NAME_NOT_UTF8,
            _ => false,
        }
    }
}

/// A file that was not searched, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Display path; for a name that is not valid UTF-8 (reason
    /// [`SkipReason::NameNotUtf8`]), its git-quoted form (`"\377.py"`).
    pub path: String,
    /// Why it was skipped.
    pub reason: SkipReason,
}

impl Skipped {
    /// The path as shown to people: git-quoted when it needs it
    /// (`shared::quote::display_name`), except a name that is not UTF-8, whose
    /// `path` already is its quoted form.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        if self.reason.is_name_not_utf8() { self.path.as_str().into() } else { crate::shared::quote::display_name(&self.path) }
    }
}

/// Checks that `bytes` are text the engine can edit safely.
pub fn check_text(bytes: &[u8]) -> std::result::Result<&str, Skip> {
    if memchr::memchr(0, bytes).is_some() {
        return Err(Skip(SkipReason::Binary));
    }
    std::str::from_utf8(bytes).map_err(|e| Skip(SkipReason::NotUtf8 { offset: e.valid_up_to() }))
}

/// Whether ast-grep 0.51.1 skips the file at `path` of `len` bytes as too
/// large: over 3,000,000 bytes and over 200,000 lines (its
/// `crates/cli/src/utils/mod.rs`, `file_too_large`). Only the line breaks are
/// counted, reading no further than the 200,001st; a file that cannot be read
/// counts as not skipped.
fn ast_grep_skips(path: &Path, len: u64) -> bool {
    use std::io::Read;
    const MAX_FILE_SIZE: u64 = 3_000_000;
    const MAX_LINE_COUNT: u64 = 200_000;
    if len <= MAX_FILE_SIZE {
        return false;
    }
    let Ok((mut file, _)) = crate::shared::named::open_regular(path) else { return false };
    let (mut breaks, mut last) = (0u64, b'\n');
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                breaks += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                last = buf[n - 1];
                if breaks > MAX_LINE_COUNT {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    // `str::lines` counts a last line without its line break too.
    breaks + u64::from(last != b'\n') > MAX_LINE_COUNT
}

/// Reads a file for the engine, with the size cap and the text checks: a
/// regular file only, opened without waiting (`shared::named`).
pub(crate) fn read_text(path: &Path, max_filesize: u64) -> std::result::Result<Vec<u8>, Skip> {
    use crate::shared::named::{Unread, read_capped};
    read_capped(path, max_filesize).map_err(|e| {
        Skip(match e {
            Unread::NotRegular(file) => SkipReason::NotRegular { file },
            Unread::TooLarge { len, cap } => SkipReason::TooLarge { len, cap, ast_grep_skips: ast_grep_skips(path, len) },
            Unread::Io(e) => SkipReason::Unreadable { error: e.to_string() },
        })
    })
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
        let r = read_text(&fifo, 1 << 20);
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        helper.join().unwrap();
        assert_eq!(r, Err(Skip(SkipReason::NotRegular { file: FileKind::Fifo })));
        assert_eq!(read_text(Path::new("/dev/zero"), 1 << 20), Err(Skip(SkipReason::NotRegular { file: FileKind::CharDevice })));
    }

    #[test]
    fn binary_and_non_utf8_are_refused() {
        assert_eq!(check_text(b"a\0b").unwrap_err().0, SkipReason::Binary);
        assert!(check_text(b"a\0b").unwrap_err().0.text().to_string().contains("binary"));
        assert_eq!(check_text(b"caf\xe9").unwrap_err().0, SkipReason::NotUtf8 { offset: 3 });
        assert!(check_text(b"caf\xe9").unwrap_err().0.text().to_string().contains("not valid UTF-8"));
    }

    /// Only the size cap's way out is a front end's clause (each front end's
    /// words are tested in the binary: src/cli/words.rs, src/mcp/words.rs); a
    /// version-1 reason is shown as it was worded.
    #[test]
    fn the_size_cap_leaves_its_way_out_to_the_front_end() {
        use crate::shared::message::Part;
        let big = SkipReason::TooLarge { len: 20, cap: 10, ast_grep_skips: false };
        assert_eq!(big.text().parts()[1], Part::Say(Say::RaiseFileCap));
        assert_eq!(big.text().to_string(), "too large (20 bytes; the cap is 10 bytes, raise the cap to search it)");
        let old = SkipReason::Worded("binary file (contains NUL bytes)".into());
        assert_eq!(old.text().to_string(), "binary file (contains NUL bytes)");
    }
}
