//! Search hits: the matches of ops in one file, located, for `search` and
//! `ast_search` (docs/DESIGN.md section 2.11); nothing is rewritten.

use crate::engine::RewriteOptions;
use crate::engine::matching::{inject, scan};
use crate::engine::parse::{Parsed, drop_later};
use crate::request::read::SkipReason;

/// A match found by [`Engine::search`].
pub struct Hit<'t> {
    /// Index of the op or rule.
    pub rule: usize,
    /// Byte offset where the match starts (in the whole file, BOM included).
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// The matched node, in the tree of the text `source` (the file without its
    /// BOM, or a region of embedded code).
    pub node: tree_sitter::Node<'t>,
    /// The root of that tree: one walk over it finds every named scope its
    /// matches are in (`Node::parent` walks down from the root on every call).
    pub root: tree_sitter::Node<'t>,
    /// The bytes of the file the node's tree was parsed from.
    pub source: std::ops::Range<usize>,
    /// The 0-based line of the file where `source` starts.
    pub line0: usize,
    /// The rule's message for this match (metavariables filled in); `None`
    /// when the rule has none (an op).
    pub message: Option<String>,
    /// The byte column (from its line's start, BOM excluded) where `source` starts.
    pub column0: usize,
}

impl Hit<'_> {
    /// 0-based line of the match's start in the file.
    pub fn line(&self) -> usize {
        self.line0 + self.node.start_position().row
    }

    /// 0-based line of the match's end in the file.
    pub fn end_line(&self) -> usize {
        self.line0 + self.node.end_position().row
    }

    /// Byte offset (in the whole file) where the line of the match's start
    /// starts (after the BOM on the first line).
    pub fn line_start(&self) -> usize {
        let p = self.node.start_position();
        self.start - if p.row == 0 { self.column0 + p.column } else { p.column }
    }
}

/// One parsed tree of a file to search: the file's own, or a region's.
pub(super) struct Tree<'t, 'o> {
    pub(super) parsed: Parsed<'t, 'o>,
    /// Where its text starts in the file (`base.byte`; a BOM there is left
    /// out of the parse).
    pub(super) base: inject::Base,
    /// Where its text ends in the file.
    pub(super) end: usize,
}

/// Every match in `trees` (a file's own tree and its regions'), for a search
/// (`crate::plan::search`): the same prefilter, anchored walk and matchers as
/// [`rewrite`], but nothing is rewritten or dropped, so nested and overlapping
/// matches all count and a rule's fix is never used. Calls `each(i, hit)` for
/// every match in order (start, then the longest first, then the rule's index),
/// `i` counting from 0; returns how many matches there were.
pub(super) fn search(trees: Vec<Tree<'_, '_>>, prefilter: bool, mut each: impl FnMut(usize, &Hit<'_>)) -> std::result::Result<usize, SkipReason> {
    let opts = RewriteOptions { prefilter, check_syntax: false, rewrite_nested: false, verbatim: true };
    let mut hits: Vec<Hit<'_>> = Vec::new();
    for t in &trees {
        let Parsed { bom, body, grep, live } = &t.parsed;
        let found = scan::scan(grep, live, body, opts);
        if let Some(why) = found.stopped {
            return Err(why);
        }
        // A tree's offsets start after the BOM of the text it was parsed
        // from: the file, or a region.
        let shift = t.base.byte + bom;
        let source = shift..t.end;
        let root = grep.root().get_inner_node().0;
        hits.extend(found.diffs.iter().chain(found.findings.iter()).map(|(k, nm)| {
            let node = nm.get_node().get_inner_node().0;
            let rule = &live[*k].rule;
            let message = (!rule.message.is_empty()).then(|| rule.get_message(nm));
            Hit {
                rule: live[*k].index,
                start: node.start_byte() + shift,
                end: node.end_byte() + shift,
                node,
                root,
                source: source.clone(),
                line0: t.base.line,
                column0: t.base.column_bytes,
                message,
            }
        }));
    }
    // The messages are built from the matches: text on the meter.
    if let Some(why) = super::budget::spent() {
        return Err(why);
    }
    hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end), h.rule));
    for (i, hit) in hits.iter().enumerate() {
        each(i, hit);
    }
    let n = hits.len();
    drop(hits);
    for t in trees {
        drop_later(t.parsed.grep);
    }
    Ok(n)
}
