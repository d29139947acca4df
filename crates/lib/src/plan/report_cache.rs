//! The scan cache's side in the report (docs/DESIGN.md section 2.14): what a
//! file's report is stored under, and as what. A file's matches depend only on
//! the engine build, the rules and the options that change results (the
//! cache's [`ReportCache::run_key`], given by its keeper), the file's path
//! (the rules' `files`/`ignores`, `languageGlobs`), its language and its bytes
//! (a SHA-256 of them, never a time or a size); [`file_key`] joins them. The
//! keeper (`store/scan_cache.rs`) stores entries and bounds them; a file a
//! limit skipped or that failed is never stored.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{Captures, Label, Replacement, RuleInfo, RuleMatch, Span};

/// Where a report keeps and finds the reports of files it saw before.
pub trait ReportCache: Sync {
    /// What every key of this run starts with: the engine build, the rules'
    /// digest and the options that change results.
    fn run_key(&self) -> &str;
    /// The entry stored under `key`, if any; anything unreadable is none.
    fn get(&self, key: &str) -> Option<Vec<u8>>;
    /// Stores `entry` under `key` (atomically: a reader sees all of it or
    /// nothing); a failure to store is no failure of the run.
    fn put(&self, key: &str, entry: Vec<u8>);
}

/// The entries' format; a change of it changes every key.
const FORMAT: &str = "ast-edit report cache 1";

/// The key of one file's report: the run's, the file's path as shown and its
/// language, and `sha256:` of its bytes.
pub(crate) fn file_key(cache: &dyn ReportCache, path: &str, lang: &str, bytes: &[u8]) -> String {
    format!("{FORMAT}\n{}\n{path}\n{lang}\n{}", cache.run_key(), crate::shared::hash::digest(bytes))
}

/// One match as stored: the rule's facts inline (a hit rebuilds its shared
/// [`RuleInfo`]).
#[derive(Serialize, Deserialize)]
struct StoredMatch {
    rule: RuleInfo,
    span: Span,
    message: String,
    labels: Vec<Label>,
    replacement: Option<Replacement>,
    captures: Option<Captures>,
}

/// An entry: the key it was stored under (checked on reading, so a collision
/// of names is a miss), and per list of the file (its own code, then each
/// region of embedded code) the language and the matches.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    lists: Vec<(String, Vec<StoredMatch>)>,
}

/// `lists` (language name, matches) as an entry under `key`.
pub(crate) fn encode(key: &str, lists: &[(String, Vec<RuleMatch>)]) -> Vec<u8> {
    let lists = lists
        .iter()
        .map(|(lang, matches)| {
            let matches = matches
                .iter()
                .map(|m| StoredMatch {
                    rule: (*m.rule).clone(),
                    span: m.span,
                    message: m.message.clone(),
                    labels: m.labels.clone(),
                    replacement: m.replacement.clone(),
                    captures: m.captures.clone(),
                })
                .collect();
            (lang.clone(), matches)
        })
        .collect();
    serde_json::to_vec(&Entry { key: key.to_string(), lists }).expect("plain data serializes")
}

/// The lists of an entry stored under `key`; `None` when it does not parse or
/// was stored under another key.
pub(crate) fn decode(key: &str, bytes: &[u8]) -> Option<Vec<(String, Vec<RuleMatch>)>> {
    let entry: Entry = serde_json::from_slice(bytes).ok()?;
    if entry.key != key {
        return None;
    }
    Some(
        entry
            .lists
            .into_iter()
            .map(|(lang, matches)| {
                let mut rules: Vec<Arc<RuleInfo>> = Vec::new();
                let matches = matches
                    .into_iter()
                    .map(|m| {
                        let rule = match rules.iter().find(|r| ***r == m.rule) {
                            Some(r) => r.clone(),
                            None => {
                                rules.push(Arc::new(m.rule));
                                rules.last().expect("just pushed").clone()
                            }
                        };
                        RuleMatch { rule, span: m.span, message: m.message, labels: m.labels, replacement: m.replacement, captures: m.captures }
                    })
                    .collect();
                (lang, matches)
            })
            .collect(),
    )
}
