//! Reading a file the walk found, for the engine: the size cap, regular files
//! only, text the engine can edit (no NUL byte, valid UTF-8); and the record of
//! a file that was not searched, with its reason.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::shared::message::{Say, Text};

/// Why a file was not searched or edited: a [`SkipReason`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip(pub SkipReason);

/// Why a file was not searched or edited, with its figures; each front end
/// words it ([`SkipReason::text`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
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
    },
    /// Its name is not UTF-8, so it cannot be named without loss.
    NameNotUtf8,
    /// Its syntax tree is too deep for a pattern that uses a metavariable
    /// twice (matching would overflow the stack).
    TreeTooDeep {
        /// The most levels such a pattern is matched on.
        limit: usize,
    },
    /// The rewrite would build too much replacement text.
    ReplacementTooLarge {
        /// The most bytes of replacement text for the file.
        budget: usize,
    },
    /// A rule's `transform` (or `rewriters`) could build more text than the
    /// budget (`compile::work`).
    TransformTooLarge {
        /// The rule's id.
        rule: String,
        /// The most bytes of transform text for the file.
        budget: usize,
    },
    /// A rule's rewriters reach themselves and would apply themselves at
    /// more levels than the work limit allows (`compile::work`).
    RewriteTooCostly {
        /// The rule's id.
        rule: String,
        /// How deep the rewriters' kinds nest in the file.
        nesting: usize,
        /// The most node visits for the file.
        limit: u64,
    },
    /// Matching it took longer than the limit per file, or the request's time
    /// ran out (`engine::budget`).
    TookTooLong {
        /// The limit, in seconds.
        limit_secs: u64,
        /// The request's limit ran out (else the file's).
        request: bool,
    },
    /// The request was cancelled while the file was searched.
    Stopped,
    /// A reason as a store of format version 1 kept it: already worded.
    #[serde(untagged)]
    Worded(String),
}

pub use crate::shared::named::FileKind;

/// The reason of a file whose name is not valid UTF-8 (docs/DESIGN.md §5.5).
const NAME_NOT_UTF8: &str = "file name is not valid UTF-8; rename it to edit it";

impl SkipReason {
    /// The reason as a text: only the size cap's way out is a front end's
    /// clause ([`Say::RaiseFileCap`]: the CLI has a flag that raises it, the MCP
    /// server reads with the default cap, docs/DESIGN.md §7).
    pub fn text(&self) -> Text {
        Text::from(match self {
            SkipReason::Binary => "binary file (contains NUL bytes)".to_string(),
            SkipReason::NotUtf8 { offset } => format!("not valid UTF-8 (invalid byte at offset {offset}); convert it to UTF-8 to edit it"),
            SkipReason::Unreadable { error } => format!("unreadable: {error}"),
            SkipReason::NotRegular { file } => format!("not a regular file ({})", file.text()),
            SkipReason::TooLarge { len, cap } => {
                return Text::from(format!("too large ({len} bytes; the cap is {cap} bytes, ")).say(Say::RaiseFileCap).lit(")");
            }
            SkipReason::NameNotUtf8 => NAME_NOT_UTF8.to_string(),
            SkipReason::TreeTooDeep { limit } => format!(
                "syntax tree nested more than {limit} levels deep, the limit for a rule that compares code by recursion (a metavariable used twice, or a `matches` utility; matching it would overflow the stack); search this file with a rule that does neither"
            ),
            SkipReason::ReplacementTooLarge { budget } => format!(
                "the rewrite would build more than {budget} bytes of replacement text here (4 times the file's size plus 64 MiB, the limit per file): it copies large matches many times, or matches nest deeply; narrow the pattern or shorten the rewrite"
            ),
            SkipReason::TransformTooLarge { rule, budget } => format!(
                "rule `{rule}`'s transforms could build more than {budget} bytes of text here (16 times the file's size plus 256 MiB, the limit per file): a `replace`, `convert` or `rewrite` step multiplies its text and the steps chain; shorten what they insert or chain fewer steps"
            ),
            SkipReason::RewriteTooCostly { rule, nesting, limit } => format!(
                "rule `{rule}`'s rewriters apply themselves to their own matches, nested {nesting} levels deep here: work that doubles with each level, over the limit of {limit} node visits per file; match fewer levels (a `not: {{inside: ...}}`) or rewrite in several runs"
            ),
            SkipReason::TookTooLong { limit_secs, request: false } => format!(
                "matching took more than {limit_secs} s here, the limit per file; narrow the rule or leave this file out"
            ),
            SkipReason::TookTooLong { limit_secs, request: true } => format!(
                "not finished: the request's files took more than {limit_secs} s together, the limit per request; search fewer paths at a time"
            ),
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Reads a file for the engine, with the size cap and the text checks: a
/// regular file only, opened without waiting (`shared::named`).
pub(crate) fn read_text(path: &Path, max_filesize: u64) -> std::result::Result<Vec<u8>, Skip> {
    use crate::shared::named::{read_capped, Unread};
    read_capped(path, max_filesize).map_err(|e| {
        Skip(match e {
            Unread::NotRegular(file) => SkipReason::NotRegular { file },
            Unread::TooLarge { len, cap } => SkipReason::TooLarge { len, cap },
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
        let big = SkipReason::TooLarge { len: 20, cap: 10 };
        assert_eq!(big.text().parts()[1], Part::Say(Say::RaiseFileCap));
        assert_eq!(big.text().to_string(), "too large (20 bytes; the cap is 10 bytes, raise the cap to search it)");
        let old: SkipReason = serde_json::from_str("\"binary file (contains NUL bytes)\"").unwrap();
        assert_eq!(old.text().to_string(), "binary file (contains NUL bytes)");
        assert_eq!(serde_json::to_string(&big).unwrap(), r#"{"kind":"tooLarge","len":20,"cap":10}"#);
    }
}
