//! The scan cache's side in the report (docs/DESIGN.md section 2.14): what a
//! file's report is stored under, and as what. A file's matches depend only on
//! the engine build, the rules and the options that change results (the
//! cache's [`ReportCache::run_key`], given by its keeper), the file's path
//! (the rules' `files`/`ignores`, `languageGlobs`), its language and its bytes
//! (a SHA-256 of them, never a time or a size); [`file_key`] joins them. The
//! keeper (`store/scan_cache.rs`) stores entries and bounds them; a file a
//! limit skipped or that failed is never stored.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{Capture, Captures, Label, Replacement, RuleInfo, RuleMatch, Span};

/// Where a report keeps and finds the reports of files it saw before.
pub trait ReportCache: Sync {
    /// What every key of this run starts with: the engine build, the rules'
    /// digest and the options that change results.
    fn run_key(&self) -> &str;
    /// The entry stored under exactly `key` (the keeper checks the whole
    /// key: one whose hash collides is none), if any; anything unreadable is
    /// none.
    fn get(&self, key: &str) -> Option<Vec<u8>>;
    /// Stores `entry` under `key` (atomically: a reader sees all of it or
    /// nothing); a failure to store is no failure of the run.
    fn put(&self, key: &str, entry: Vec<u8>);
}

/// The entries' format; a change of it changes every key.
const FORMAT: &str = "ast-edit report cache 3";

/// The key of one file's report: the run's, the file's path as shown and its
/// language, and `sha256:` of its bytes.
pub(crate) fn file_key(cache: &dyn ReportCache, path: &str, lang: &str, bytes: &[u8]) -> String {
    format!("{FORMAT}\n{}\n{path}\n{lang}\n{}", cache.run_key(), crate::shared::hash::digest(bytes))
}

/// One match as written: borrowed from the report, the rule's facts inline
/// (a hit rebuilds its shared [`RuleInfo`]), each capture by its place only
/// (its text is the file's bytes there, and a hit has the file's text).
#[derive(Serialize)]
struct MatchOut<'a> {
    rule: &'a RuleInfo,
    span: Span,
    message: &'a str,
    labels: &'a [Label],
    replacement: &'a Option<Replacement>,
    captures: Option<CapturesOut<'a>>,
}

/// [`Captures`] as written: places, and the transforms' text.
#[derive(Serialize)]
struct CapturesOut<'a> {
    single: BTreeMap<&'a str, Span>,
    multi: BTreeMap<&'a str, Vec<Span>>,
    transformed: &'a BTreeMap<String, String>,
}

/// [`MatchOut`] as read back.
#[derive(Deserialize)]
struct MatchIn {
    rule: RuleInfo,
    span: Span,
    message: String,
    labels: Vec<Label>,
    replacement: Option<Replacement>,
    captures: Option<CapturesIn>,
}

/// [`CapturesOut`] as read back.
#[derive(Deserialize)]
struct CapturesIn {
    single: BTreeMap<String, Span>,
    multi: BTreeMap<String, Vec<Span>>,
    transformed: BTreeMap<String, String>,
}

/// An entry: per list of the file (its own code, then each region of
/// embedded code) the language and the matches. Its key is the keeper's to
/// check ([`ReportCache::get`]), and the key holds the file's bytes' hash,
/// so a hit is of the very text the entry was made of.
#[derive(Serialize)]
struct EntryOut<'a> {
    lists: Vec<(&'a str, Vec<MatchOut<'a>>)>,
}

/// [`EntryOut`] as read back.
#[derive(Deserialize)]
struct EntryIn {
    lists: Vec<(String, Vec<MatchIn>)>,
}

/// `lists` (language name, matches) of a file as an entry.
pub(crate) fn encode(lists: &[(String, Vec<RuleMatch>)]) -> Vec<u8> {
    let lists = lists
        .iter()
        .map(|(lang, matches)| {
            let matches = matches
                .iter()
                .map(|m| MatchOut {
                    rule: &m.rule,
                    span: m.span,
                    message: &m.message,
                    labels: &m.labels,
                    replacement: &m.replacement,
                    captures: m.captures.as_ref().map(|c| CapturesOut {
                        single: c.single.iter().map(|(k, v)| (k.as_str(), v.span)).collect(),
                        multi: c.multi.iter().map(|(k, v)| (k.as_str(), v.iter().map(|c| c.span).collect())).collect(),
                        transformed: &c.transformed,
                    }),
                })
                .collect();
            (lang.as_str(), matches)
        })
        .collect();
    serde_json::to_vec(&EntryOut { lists }).expect("plain data serializes")
}

/// The lists of an entry made of the file `text`; `None` when it does not
/// parse or a place in it is not in the text.
pub(crate) fn decode(text: &str, bytes: &[u8]) -> Option<Vec<(String, Vec<RuleMatch>)>> {
    let entry: EntryIn = serde_json::from_slice(bytes).ok()?;
    let capture = |span: Span| Some(Capture { text: text.get(span.start..span.end)?.to_string(), span });
    let mut lists = Vec::with_capacity(entry.lists.len());
    for (lang, matches) in entry.lists {
        let mut rules: Vec<Arc<RuleInfo>> = Vec::new();
        let mut out = Vec::with_capacity(matches.len());
        for m in matches {
            let rule = match rules.iter().find(|r| ***r == m.rule) {
                Some(r) => r.clone(),
                None => {
                    rules.push(Arc::new(m.rule));
                    rules.last().expect("just pushed").clone()
                }
            };
            let captures = match m.captures {
                None => None,
                Some(c) => Some(Captures {
                    single: c.single.into_iter().map(|(k, span)| Some((k, capture(span)?))).collect::<Option<_>>()?,
                    multi: c
                        .multi
                        .into_iter()
                        .map(|(k, spans)| Some((k, spans.into_iter().map(capture).collect::<Option<Vec<_>>>()?)))
                        .collect::<Option<_>>()?,
                    transformed: c.transformed,
                }),
            };
            out.push(RuleMatch { rule, span: m.span, message: m.message, labels: m.labels, replacement: m.replacement, captures });
        }
        lists.push((lang, out));
    }
    Some(lists)
}
