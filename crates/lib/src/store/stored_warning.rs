//! A plan's [`Warning`]s as the store writes them: `{"kind": ..., figures}`,
//! every kind and field under a name of the store's own, so that renaming a
//! variant or a field of `plan::warning` cannot change what is on disk. A
//! plain string, as a store of format version 1 kept a worded warning, reads
//! as [`Warning::Worded`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::stored_text::StoredText;
use crate::plan::warning::Warning;

/// A [`Warning`] as written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub(super) enum StoredWarning<'a> {
    #[serde(rename = "rules")]
    Rules {
        #[serde(rename = "text")]
        text: StoredText<'a>,
    },
    #[serde(rename = "noFileSearched")]
    NoFileSearched,
    #[serde(rename = "otherLanguages")]
    OtherLanguages {
        #[serde(rename = "forced")]
        forced: Cow<'a, str>,
        #[serde(rename = "found")]
        found: Vec<(Cow<'a, str>, usize)>,
    },
    #[serde(rename = "diagnosis")]
    Diagnosis {
        #[serde(rename = "text")]
        text: StoredText<'a>,
    },
    #[serde(rename = "walk")]
    Walk {
        #[serde(rename = "error")]
        error: Cow<'a, str>,
    },
    #[serde(rename = "limitReached")]
    LimitReached {
        #[serde(rename = "searched")]
        searched: usize,
        #[serde(rename = "total")]
        total: usize,
    },
    #[serde(rename = "overlaps")]
    Overlaps {
        #[serde(rename = "count")]
        count: usize,
    },
    #[serde(rename = "unparsed")]
    Unparsed {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "line")]
        line: usize,
    },
    #[serde(rename = "crossRule")]
    CrossRule {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "line")]
        line: usize,
        #[serde(rename = "rule")]
        rule: Cow<'a, str>,
        #[serde(rename = "keptRule")]
        kept_rule: Cow<'a, str>,
        #[serde(rename = "sameNode", default)]
        same_node: bool,
        #[serde(rename = "ops", default)]
        ops: bool,
    },
    #[serde(rename = "moreNotes")]
    MoreNotes {
        #[serde(rename = "count")]
        count: usize,
    },
    #[serde(rename = "diffLinesCut")]
    DiffLinesCut {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "lines")]
        lines: usize,
        #[serde(rename = "max")]
        max: usize,
    },
    #[serde(rename = "syntaxErrors")]
    SyntaxErrors {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "before")]
        before: usize,
        #[serde(rename = "after")]
        after: usize,
    },
    #[serde(rename = "layoutFallbacks")]
    LayoutFallbacks {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "edits")]
        edits: usize,
        #[serde(rename = "first")]
        first: Cow<'a, str>,
    },
    #[serde(rename = "templateMismatch")]
    TemplateMismatch {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "verbatim")]
        verbatim: bool,
        #[serde(rename = "first")]
        first: Cow<'a, str>,
    },
    #[serde(rename = "structureChanged")]
    StructureChanged {
        #[serde(rename = "path")]
        path: Cow<'a, str>,
        #[serde(rename = "first")]
        first: Cow<'a, str>,
    },
    /// Format version 1's worded warning: a plain string.
    #[serde(untagged)]
    Worded(Cow<'a, str>),
}

impl<'a> From<&'a Warning> for StoredWarning<'a> {
    fn from(w: &'a Warning) -> Self {
        match w {
            Warning::Rules { text } => StoredWarning::Rules { text: text.into() },
            Warning::NoFileSearched => StoredWarning::NoFileSearched,
            Warning::OtherLanguages { forced, found } => {
                StoredWarning::OtherLanguages { forced: forced.into(), found: found.iter().map(|(l, n)| (l.into(), *n)).collect() }
            }
            Warning::Diagnosis { text } => StoredWarning::Diagnosis { text: text.into() },
            Warning::Walk { error } => StoredWarning::Walk { error: error.into() },
            Warning::LimitReached { searched, total } => StoredWarning::LimitReached { searched: *searched, total: *total },
            Warning::Overlaps { count } => StoredWarning::Overlaps { count: *count },
            Warning::Unparsed { path, line } => StoredWarning::Unparsed { path: path.into(), line: *line },
            Warning::CrossRule { path, line, rule, kept_rule, same_node, ops } => {
                StoredWarning::CrossRule { path: path.into(), line: *line, rule: rule.into(), kept_rule: kept_rule.into(), same_node: *same_node, ops: *ops }
            }
            Warning::MoreNotes { count } => StoredWarning::MoreNotes { count: *count },
            Warning::DiffLinesCut { path, lines, max } => StoredWarning::DiffLinesCut { path: path.into(), lines: *lines, max: *max },
            Warning::SyntaxErrors { path, before, after } => StoredWarning::SyntaxErrors { path: path.into(), before: *before, after: *after },
            Warning::LayoutFallbacks { path, edits, first } => StoredWarning::LayoutFallbacks { path: path.into(), edits: *edits, first: first.into() },
            Warning::TemplateMismatch { path, verbatim, first } => {
                StoredWarning::TemplateMismatch { path: path.into(), verbatim: *verbatim, first: first.into() }
            }
            Warning::StructureChanged { path, first } => StoredWarning::StructureChanged { path: path.into(), first: first.into() },
            Warning::Worded(text) => StoredWarning::Worded(text.into()),
        }
    }
}

impl From<StoredWarning<'_>> for Warning {
    fn from(w: StoredWarning<'_>) -> Self {
        match w {
            StoredWarning::Rules { text } => Warning::Rules { text: text.into() },
            StoredWarning::NoFileSearched => Warning::NoFileSearched,
            StoredWarning::OtherLanguages { forced, found } => {
                Warning::OtherLanguages { forced: forced.into_owned(), found: found.into_iter().map(|(l, n)| (l.into_owned(), n)).collect() }
            }
            StoredWarning::Diagnosis { text } => Warning::Diagnosis { text: text.into() },
            StoredWarning::Walk { error } => Warning::Walk { error: error.into_owned() },
            StoredWarning::LimitReached { searched, total } => Warning::LimitReached { searched, total },
            StoredWarning::Overlaps { count } => Warning::Overlaps { count },
            StoredWarning::Unparsed { path, line } => Warning::Unparsed { path: path.into_owned(), line },
            StoredWarning::CrossRule { path, line, rule, kept_rule, same_node, ops } => {
                Warning::CrossRule { path: path.into_owned(), line, rule: rule.into_owned(), kept_rule: kept_rule.into_owned(), same_node, ops }
            }
            StoredWarning::MoreNotes { count } => Warning::MoreNotes { count },
            StoredWarning::DiffLinesCut { path, lines, max } => Warning::DiffLinesCut { path: path.into_owned(), lines, max },
            StoredWarning::SyntaxErrors { path, before, after } => Warning::SyntaxErrors { path: path.into_owned(), before, after },
            StoredWarning::LayoutFallbacks { path, edits, first } => Warning::LayoutFallbacks { path: path.into_owned(), edits, first: first.into_owned() },
            StoredWarning::TemplateMismatch { path, verbatim, first } => {
                Warning::TemplateMismatch { path: path.into_owned(), verbatim, first: first.into_owned() }
            }
            StoredWarning::StructureChanged { path, first } => Warning::StructureChanged { path: path.into_owned(), first: first.into_owned() },
            StoredWarning::Worded(text) => Warning::Worded(text.into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::message::{Input, Name, Text};

    /// Every kind of warning, with the JSON format version 3 wrote for it
    /// (what that build's serialization of `Warning` gave).
    fn every_kind() -> Vec<(Warning, &'static str)> {
        vec![
            (Warning::Rules { text: Text::from("r") }, r#"{"kind":"rules","text":[{"lit":"r"}]}"#),
            (Warning::NoFileSearched, r#"{"kind":"noFileSearched"}"#),
            (
                Warning::OtherLanguages { forced: "go".into(), found: vec![("python".into(), 3), ("rust".into(), 1)] },
                r#"{"kind":"otherLanguages","forced":"go","found":[["python",3],["rust",1]]}"#,
            ),
            (Warning::Diagnosis { text: Text::from("d").name(Name::Op(0)) }, r#"{"kind":"diagnosis","text":[{"lit":"d"},{"name":{"op":0}}]}"#),
            (Warning::Walk { error: "e".into() }, r#"{"kind":"walk","error":"e"}"#),
            (Warning::LimitReached { searched: 1, total: 2 }, r#"{"kind":"limitReached","searched":1,"total":2}"#),
            (Warning::Overlaps { count: 3 }, r#"{"kind":"overlaps","count":3}"#),
            (Warning::Unparsed { path: "p".into(), line: 4 }, r#"{"kind":"unparsed","path":"p","line":4}"#),
            (
                Warning::CrossRule { path: "p".into(), line: 5, rule: "a".into(), kept_rule: "b".into(), same_node: true, ops: true },
                r#"{"kind":"crossRule","path":"p","line":5,"rule":"a","keptRule":"b","sameNode":true,"ops":true}"#,
            ),
            (Warning::MoreNotes { count: 6 }, r#"{"kind":"moreNotes","count":6}"#),
            (Warning::DiffLinesCut { path: "p".into(), lines: 7, max: 8 }, r#"{"kind":"diffLinesCut","path":"p","lines":7,"max":8}"#),
            (Warning::SyntaxErrors { path: "p".into(), before: 0, after: 9 }, r#"{"kind":"syntaxErrors","path":"p","before":0,"after":9}"#),
            (
                Warning::LayoutFallbacks { path: "p".into(), edits: 10, first: "line 1: x".into() },
                r#"{"kind":"layoutFallbacks","path":"p","edits":10,"first":"line 1: x"}"#,
            ),
            (
                Warning::TemplateMismatch { path: "p".into(), verbatim: true, first: "line 2: y".into() },
                r#"{"kind":"templateMismatch","path":"p","verbatim":true,"first":"line 2: y"}"#,
            ),
            (Warning::StructureChanged { path: "p".into(), first: "line 3: z".into() }, r#"{"kind":"structureChanged","path":"p","first":"line 3: z"}"#),
            (Warning::Worded("w".into()), r#""w""#),
        ]
    }

    #[test]
    fn every_warning_is_written_as_version_3_wrote_it_and_read_back() {
        for (w, json) in every_kind() {
            assert_eq!(serde_json::to_string(&StoredWarning::from(&w)).unwrap(), json);
            let back: StoredWarning<'_> = serde_json::from_str(json).unwrap();
            assert_eq!(Warning::from(back), w, "{json}");
        }
    }

    /// Format version 2 kept the rules' and the diagnoses' messages worded
    /// (strings), version 1 whole warnings: both read as they were worded.
    #[test]
    fn worded_warnings_of_versions_1_and_2_read_as_literal_text() {
        let v2: StoredWarning<'_> = serde_json::from_str(r#"{"kind":"diagnosis","text":"ops[0].pat `f()` matched nothing"}"#).unwrap();
        assert_eq!(Warning::from(v2), Warning::Diagnosis { text: Text::from("ops[0].pat `f()` matched nothing") });
        let v1: StoredWarning<'_> = serde_json::from_str(r#""1 match(es) nested""#).unwrap();
        assert_eq!(Warning::from(v1), Warning::Worded("1 match(es) nested".into()));
        // A version 2 cross-rule note had neither `sameNode` nor `ops`.
        let old: StoredWarning<'_> = serde_json::from_str(r#"{"kind":"crossRule","path":"p","line":1,"rule":"a","keptRule":"b"}"#).unwrap();
        let Warning::CrossRule { same_node: false, ops: false, .. } = Warning::from(old) else { panic!("read with the defaults") };
        let named = Warning::Rules { text: Text::from("pass ").name(Name::Set(Input::Lang, "go".into())) };
        assert_eq!(serde_json::to_string(&StoredWarning::from(&named)).unwrap(), r#"{"kind":"rules","text":[{"lit":"pass "},{"name":{"set":["lang","go"]}}]}"#);
    }
}
