//! A report's entries in the scan cache (`plan/cache.rs`, docs/DESIGN.md
//! section 2.14): a file's matches per list (its own code, each region of
//! embedded code), each capture by its place only.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{Capture, Captures, Label, Replacement, RuleInfo, RuleMatch, Span};

/// The entries' format; a change of it changes every key.
pub(crate) const FORMAT: &str = "ast-edit report cache 4";

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
/// check ([`super::cache::EntryCache::get`]), and the key holds the file's bytes' hash,
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
