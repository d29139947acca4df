//! A plan's skipped files ([`Skipped`]) as the store writes them: the path and
//! the [`SkipReason`] as `{"kind": ..., figures}`, every kind and field under a
//! name of the store's own, so that renaming a variant or a field of
//! `request::read` cannot change what is on disk. A plain string, as a store of
//! format version 1 kept a worded reason, reads as [`SkipReason::Worded`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::request::read::{FileKind, SkipReason, Skipped, WorkLimit};

/// A [`Skipped`] as written.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredSkipped<'a> {
    #[serde(rename = "path")]
    path: Cow<'a, str>,
    #[serde(rename = "reason")]
    reason: StoredSkipReason<'a>,
}

/// A [`SkipReason`] as written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
enum StoredSkipReason<'a> {
    #[serde(rename = "binary")]
    Binary,
    #[serde(rename = "notUtf8")]
    NotUtf8 {
        #[serde(rename = "offset")]
        offset: usize,
    },
    #[serde(rename = "unreadable")]
    Unreadable {
        #[serde(rename = "error")]
        error: Cow<'a, str>,
    },
    #[serde(rename = "notRegular")]
    NotRegular {
        #[serde(rename = "file")]
        file: StoredFileKind,
    },
    #[serde(rename = "tooLarge")]
    TooLarge {
        #[serde(rename = "len")]
        len: u64,
        #[serde(rename = "cap")]
        cap: u64,
        #[serde(rename = "astGrepSkips", default, skip_serializing_if = "std::ops::Not::not")]
        ast_grep_skips: bool,
    },
    #[serde(rename = "nameNotUtf8")]
    NameNotUtf8,
    #[serde(rename = "treeTooDeep")]
    TreeTooDeep {
        #[serde(rename = "limit")]
        limit: usize,
    },
    #[serde(rename = "replacementTooLarge")]
    ReplacementTooLarge {
        #[serde(rename = "budget")]
        budget: usize,
    },
    #[serde(rename = "overLimit")]
    OverLimit {
        #[serde(rename = "what")]
        what: StoredWorkLimit,
        #[serde(rename = "limit")]
        limit: u64,
    },
    #[serde(rename = "tookTooLong")]
    TookTooLong {
        #[serde(rename = "limitSecs")]
        limit_secs: u64,
    },
    #[serde(rename = "stopped")]
    Stopped,
    /// Format version 1's worded reason: a plain string.
    #[serde(untagged)]
    Worded(Cow<'a, str>),
}

/// A [`FileKind`] as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
enum StoredFileKind {
    #[serde(rename = "fifo")]
    Fifo,
    #[serde(rename = "charDevice")]
    CharDevice,
    #[serde(rename = "blockDevice")]
    BlockDevice,
    #[serde(rename = "socket")]
    Socket,
    #[serde(rename = "symlink")]
    Symlink,
    #[serde(rename = "folder")]
    Folder,
    #[serde(rename = "special")]
    Special,
}

/// A [`WorkLimit`] as written.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
enum StoredWorkLimit {
    #[serde(rename = "steps")]
    Steps,
    #[serde(rename = "stack")]
    Stack,
    #[serde(rename = "text")]
    Text,
}

impl<'a> From<&'a Skipped> for StoredSkipped<'a> {
    fn from(s: &'a Skipped) -> Self {
        StoredSkipped { path: (&s.path).into(), reason: (&s.reason).into() }
    }
}

impl From<StoredSkipped<'_>> for Skipped {
    fn from(s: StoredSkipped<'_>) -> Self {
        Skipped { path: s.path.into_owned(), reason: s.reason.into() }
    }
}

impl<'a> From<&'a SkipReason> for StoredSkipReason<'a> {
    fn from(r: &'a SkipReason) -> Self {
        match r {
            SkipReason::Binary => StoredSkipReason::Binary,
            SkipReason::NotUtf8 { offset } => StoredSkipReason::NotUtf8 { offset: *offset },
            SkipReason::Unreadable { error } => StoredSkipReason::Unreadable { error: error.into() },
            SkipReason::NotRegular { file } => StoredSkipReason::NotRegular { file: (*file).into() },
            SkipReason::TooLarge { len, cap, ast_grep_skips } => StoredSkipReason::TooLarge { len: *len, cap: *cap, ast_grep_skips: *ast_grep_skips },
            SkipReason::NameNotUtf8 => StoredSkipReason::NameNotUtf8,
            SkipReason::TreeTooDeep { limit } => StoredSkipReason::TreeTooDeep { limit: *limit },
            SkipReason::ReplacementTooLarge { budget } => StoredSkipReason::ReplacementTooLarge { budget: *budget },
            SkipReason::OverLimit { what, limit } => StoredSkipReason::OverLimit { what: (*what).into(), limit: *limit },
            SkipReason::TookTooLong { limit_secs } => StoredSkipReason::TookTooLong { limit_secs: *limit_secs },
            SkipReason::Stopped => StoredSkipReason::Stopped,
            SkipReason::Worded(text) => StoredSkipReason::Worded(text.into()),
        }
    }
}

impl From<StoredSkipReason<'_>> for SkipReason {
    fn from(r: StoredSkipReason<'_>) -> Self {
        match r {
            StoredSkipReason::Binary => SkipReason::Binary,
            StoredSkipReason::NotUtf8 { offset } => SkipReason::NotUtf8 { offset },
            StoredSkipReason::Unreadable { error } => SkipReason::Unreadable { error: error.into_owned() },
            StoredSkipReason::NotRegular { file } => SkipReason::NotRegular { file: file.into() },
            StoredSkipReason::TooLarge { len, cap, ast_grep_skips } => SkipReason::TooLarge { len, cap, ast_grep_skips },
            StoredSkipReason::NameNotUtf8 => SkipReason::NameNotUtf8,
            StoredSkipReason::TreeTooDeep { limit } => SkipReason::TreeTooDeep { limit },
            StoredSkipReason::ReplacementTooLarge { budget } => SkipReason::ReplacementTooLarge { budget },
            StoredSkipReason::OverLimit { what, limit } => SkipReason::OverLimit { what: what.into(), limit },
            StoredSkipReason::TookTooLong { limit_secs } => SkipReason::TookTooLong { limit_secs },
            StoredSkipReason::Stopped => SkipReason::Stopped,
            StoredSkipReason::Worded(text) => SkipReason::Worded(text.into_owned()),
        }
    }
}

impl From<FileKind> for StoredFileKind {
    fn from(k: FileKind) -> Self {
        match k {
            FileKind::Fifo => StoredFileKind::Fifo,
            FileKind::CharDevice => StoredFileKind::CharDevice,
            FileKind::BlockDevice => StoredFileKind::BlockDevice,
            FileKind::Socket => StoredFileKind::Socket,
            FileKind::Symlink => StoredFileKind::Symlink,
            FileKind::Folder => StoredFileKind::Folder,
            FileKind::Special => StoredFileKind::Special,
        }
    }
}

impl From<StoredFileKind> for FileKind {
    fn from(k: StoredFileKind) -> Self {
        match k {
            StoredFileKind::Fifo => FileKind::Fifo,
            StoredFileKind::CharDevice => FileKind::CharDevice,
            StoredFileKind::BlockDevice => FileKind::BlockDevice,
            StoredFileKind::Socket => FileKind::Socket,
            StoredFileKind::Symlink => FileKind::Symlink,
            StoredFileKind::Folder => FileKind::Folder,
            StoredFileKind::Special => FileKind::Special,
        }
    }
}

impl From<WorkLimit> for StoredWorkLimit {
    fn from(w: WorkLimit) -> Self {
        match w {
            WorkLimit::Steps => StoredWorkLimit::Steps,
            WorkLimit::Stack => StoredWorkLimit::Stack,
            WorkLimit::Text => StoredWorkLimit::Text,
        }
    }
}

impl From<StoredWorkLimit> for WorkLimit {
    fn from(w: StoredWorkLimit) -> Self {
        match w {
            StoredWorkLimit::Steps => WorkLimit::Steps,
            StoredWorkLimit::Stack => WorkLimit::Stack,
            StoredWorkLimit::Text => WorkLimit::Text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason, with the JSON format version 3 wrote for a file skipped
    /// for it (what that build's serialization of `Skipped` gave).
    fn every_reason() -> Vec<(SkipReason, String)> {
        let kinds = [
            (FileKind::Fifo, "fifo"),
            (FileKind::CharDevice, "charDevice"),
            (FileKind::BlockDevice, "blockDevice"),
            (FileKind::Socket, "socket"),
            (FileKind::Symlink, "symlink"),
            (FileKind::Folder, "folder"),
            (FileKind::Special, "special"),
        ];
        let mut all = vec![
            (SkipReason::Binary, r#"{"path":"f","reason":{"kind":"binary"}}"#.to_string()),
            (SkipReason::NotUtf8 { offset: 1 }, r#"{"path":"f","reason":{"kind":"notUtf8","offset":1}}"#.to_string()),
            (SkipReason::Unreadable { error: "e".into() }, r#"{"path":"f","reason":{"kind":"unreadable","error":"e"}}"#.to_string()),
        ];
        for (file, name) in kinds {
            all.push((SkipReason::NotRegular { file }, format!(r#"{{"path":"f","reason":{{"kind":"notRegular","file":"{name}"}}}}"#)));
        }
        let rest = [
            (SkipReason::TooLarge { len: 2, cap: 1, ast_grep_skips: false }, r#"{"path":"f","reason":{"kind":"tooLarge","len":2,"cap":1}}"#),
            (SkipReason::TooLarge { len: 2, cap: 1, ast_grep_skips: true }, r#"{"path":"f","reason":{"kind":"tooLarge","len":2,"cap":1,"astGrepSkips":true}}"#),
            (SkipReason::NameNotUtf8, r#"{"path":"f","reason":{"kind":"nameNotUtf8"}}"#),
            (SkipReason::TreeTooDeep { limit: 3 }, r#"{"path":"f","reason":{"kind":"treeTooDeep","limit":3}}"#),
            (SkipReason::ReplacementTooLarge { budget: 4 }, r#"{"path":"f","reason":{"kind":"replacementTooLarge","budget":4}}"#),
            (SkipReason::OverLimit { what: WorkLimit::Steps, limit: 5 }, r#"{"path":"f","reason":{"kind":"overLimit","what":"steps","limit":5}}"#),
            (SkipReason::OverLimit { what: WorkLimit::Stack, limit: 6 }, r#"{"path":"f","reason":{"kind":"overLimit","what":"stack","limit":6}}"#),
            (SkipReason::OverLimit { what: WorkLimit::Text, limit: 7 }, r#"{"path":"f","reason":{"kind":"overLimit","what":"text","limit":7}}"#),
            (SkipReason::TookTooLong { limit_secs: 8 }, r#"{"path":"f","reason":{"kind":"tookTooLong","limitSecs":8}}"#),
            (SkipReason::Stopped, r#"{"path":"f","reason":{"kind":"stopped"}}"#),
            (SkipReason::Worded("w".into()), r#"{"path":"f","reason":"w"}"#),
        ];
        all.extend(rest.into_iter().map(|(r, j)| (r, j.to_string())));
        all
    }

    #[test]
    fn every_skip_reason_is_written_as_version_3_wrote_it_and_read_back() {
        for (reason, json) in every_reason() {
            let skipped = Skipped { path: "f".into(), reason };
            assert_eq!(serde_json::to_string(&StoredSkipped::from(&skipped)).unwrap(), json);
            let back: StoredSkipped<'_> = serde_json::from_str(&json).unwrap();
            assert_eq!(Skipped::from(back), skipped, "{json}");
        }
    }

    #[test]
    fn a_worded_reason_of_version_1_reads_as_it_was_worded() {
        let v1: StoredSkipped<'_> = serde_json::from_str(r#"{"path":"bin.py","reason":"binary file (contains NUL bytes)"}"#).unwrap();
        let s = Skipped::from(v1);
        assert_eq!(s.reason, SkipReason::Worded("binary file (contains NUL bytes)".into()));
        assert_eq!(s.reason.text().to_string(), "binary file (contains NUL bytes)");
    }
}
