//! A search's entries in the scan cache (`plan/cache.rs`, docs/DESIGN.md
//! section 2.14): per file, its count and the rules that matched (the first
//! pass, over every file), and the page of its matches a listing took (the
//! second pass, over the page's files only; keyed with the page's range).

use super::SearchMatch;

/// The format of a count's entries; a change of it changes every key.
pub(super) const COUNT: &str = "ast-edit search count cache 1";

/// The format of a page's entries, before the range.
const PAGE: &str = "ast-edit search page cache 1";

/// The kind of the entry of the matches `range` of a file.
pub(super) fn page_kind(range: &std::ops::Range<usize>) -> String {
    format!("{PAGE}\n{}..{}", range.start, range.end)
}

/// A count's entry: how many matches, and the rules that matched, in order.
pub(super) fn encode_count(count: &(usize, Vec<usize>)) -> Vec<u8> {
    serde_json::to_vec(count).expect("plain data serializes")
}

/// [`encode_count`] read back.
pub(super) fn decode_count(entry: &[u8]) -> Option<(usize, Vec<usize>)> {
    serde_json::from_slice(entry).ok()
}

/// A page's entry: the page's matches and the file's count.
pub(super) fn encode_page(found: &[SearchMatch], n: usize) -> Vec<u8> {
    serde_json::to_vec(&(found, n)).expect("plain data serializes")
}

/// [`encode_page`] read back.
pub(super) fn decode_page(entry: &[u8]) -> Option<(Vec<SearchMatch>, usize)> {
    serde_json::from_slice(entry).ok()
}
