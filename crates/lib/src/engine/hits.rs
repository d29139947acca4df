//! Search hits: the matches of ops in one file, located, for `search` and
//! `ast_search` (docs/DESIGN.md section 2.11); nothing is rewritten.

use super::*;

/// A match found by [`search`].
pub struct Hit<'t> {
    /// Index of the op or rule.
    pub rule: usize,
    /// Byte offset where the match starts (in the whole file, BOM included).
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// The matched node, in the tree of the text without its BOM.
    pub node: tree_sitter::Node<'t>,
}

/// Every match of `ops` in one file's text, for a search (`crate::plan::search`): the
/// same prefilter, anchored walk and matchers as [`rewrite`], but nothing is
/// rewritten or dropped, so nested and overlapping matches all count and a
/// rule's fix is never used. Calls `each(i, hit)` for every match in order
/// (start, then the longest first, then the rule's index), `i` counting from 0;
/// returns how many matches there were. `Err` is the reason to skip the file
/// (too deep, as in [`rewrite`]).
pub fn search(ops: &[&CompiledOp], lang: SupportLang, text: &str, prefilter: bool, mut each: impl FnMut(usize, &Hit<'_>)) -> std::result::Result<usize, Skip> {
    let Some(Parsed { bom, body, grep, live }) = parse_for(ops, lang, text, prefilter).map_err(Skip)? else {
        return Ok(0);
    };
    let opts = RewriteOptions { prefilter, check_syntax: false, rewrite_nested: false, verbatim: true };
    let found = scan::scan(&grep, &live, body, opts);
    let mut hits: Vec<Hit<'_>> = found
        .diffs
        .iter()
        .chain(found.findings.iter())
        .map(|(k, nm)| {
            let node = nm.get_node().get_inner_node();
            Hit { rule: live[*k].index, start: node.start_byte() + bom, end: node.end_byte() + bom, node }
        })
        .collect();
    drop(found);
    hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end), h.rule));
    for (i, hit) in hits.iter().enumerate() {
        each(i, hit);
    }
    let n = hits.len();
    drop(hits);
    drop_later(grep);
    Ok(n)
}
