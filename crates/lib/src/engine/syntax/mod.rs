//! The syntax check of a rewrite (docs/DESIGN.md section 2.5.6): the ERROR
//! and MISSING nodes of the new tree compared with the original's, and the
//! ones the rewrite added located in the new text.

use std::collections::HashMap;

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};

use crate::engine::Edit;
use crate::engine::metered::Grep;
use crate::shared::nodes::walk_pruned;

/// Most syntax errors listed per changed file (`syntaxErrors`, docs/DESIGN.md
/// sections 2.5.6 and 7): the first ones the rewrite adds are where to look; the
/// counts (`errorsBefore`, `errorsAfter`) say how many there are in all.
pub const MAX_SYNTAX_ERRORS_LISTED: usize = 5;

/// Longest `excerpt` of a located syntax error, in characters: a longer line is
/// shown as a window around the error's column, `…` marking each cut end.
pub const MAX_EXCERPT_CHARS: usize = 160;

/// A syntax error the rewrite adds, located in the new text (docs/DESIGN.md
/// section 5.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxError {
    /// 1-based line in the new text.
    pub line: usize,
    /// 1-based column, in characters (a BOM is not counted).
    pub column: usize,
    /// `ERROR`, or `MISSING <kind>` (`MISSING )`, `MISSING identifier`).
    pub node: String,
    /// The line's text (line ending removed), cut to [`MAX_EXCERPT_CHARS`].
    pub excerpt: String,
}

/// One ERROR or MISSING node of a tree: where it starts (offsets in the parsed
/// text, BOM left out) and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::engine) struct ErrorNode {
    /// Byte offset of its start.
    start: usize,
    /// 0-based row of its start.
    pub(in crate::engine) row: usize,
    /// Its kind (`ERROR`, or the kind of the missing node), by id.
    kind: u16,
    /// A MISSING node (zero width) rather than an ERROR node.
    missing: bool,
}

impl ErrorNode {
    fn of(node: tree_sitter::Node<'_>) -> Self {
        ErrorNode { start: node.start_byte(), row: node.start_position().row, kind: node.kind_id(), missing: node.is_missing() }
    }

    /// Where it is in `text` (the text its tree was parsed from, in `lang`), for
    /// people.
    fn locate(&self, text: &str, lang: &tree_sitter::Language) -> SyntaxError {
        let bytes = text.as_bytes();
        let start = self.start.min(text.len());
        let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[start..]).map_or(text.len(), |i| start + i);
        let line = text[line_start..line_end].trim_end_matches('\r');
        let column = text[line_start..start].chars().count() + 1;
        let node = match lang.node_kind_for_id(self.kind) {
            Some(kind) if self.missing => format!("MISSING {kind}"),
            None if self.missing => "MISSING".to_string(),
            _ => "ERROR".to_string(),
        };
        SyntaxError { line: self.row + 1, column, node, excerpt: excerpt(line, column - 1) }
    }
}

/// `line`, or a window of [`MAX_EXCERPT_CHARS`] characters of it around the
/// 0-based character column `at` (a third of the window before it), with `…`
/// where it was cut.
pub(in crate::engine) fn excerpt(line: &str, at: usize) -> String {
    let n = line.chars().count();
    if n <= MAX_EXCERPT_CHARS {
        return line.to_string();
    }
    let room = MAX_EXCERPT_CHARS - 2;
    let from = at.saturating_sub(room / 3).min(n - room);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.extend(line.chars().skip(from).take(room));
    if from + room < n {
        out.push('…');
    }
    out
}

/// ERROR and MISSING nodes of a tree, in pre-order (so the first is the one
/// that starts first).
pub(in crate::engine) fn tree_errors(grep: &Grep) -> Vec<ErrorNode> {
    error_nodes(grep.root().get_inner_node().0)
}

/// ERROR and MISSING nodes at or under `node`, in pre-order. tree-sitter's
/// `has_error` flag is set on every node whose subtree holds one, so subtrees
/// without it are skipped: the cost is the path to each error, not the size of
/// the tree (a tree without errors costs one look at its root).
pub(in crate::engine) fn error_nodes(node: tree_sitter::Node<'_>) -> Vec<ErrorNode> {
    let mut found = Vec::new();
    walk_pruned(node, |node| {
        if node.is_error() || node.is_missing() {
            found.push(ErrorNode::of(node));
        }
        node.has_error()
    });
    found
}

/// The 1-based line of the first ERROR or MISSING node of a tree, if it has one:
/// one look at the root for a tree without errors, else the way down to the
/// first.
pub(in crate::engine) fn first_error_line(grep: &Grep) -> Option<usize> {
    let mut first = None;
    walk_pruned(grep.root().get_inner_node().0, |node| {
        if first.is_some() {
            return false;
        }
        if node.is_error() || node.is_missing() {
            first = Some(node.start_position().row + 1);
        }
        node.has_error()
    });
    first
}

/// The error nodes of the new text (`after`) that the old ones (`before`) do not
/// explain, in pre-order: an old node explains a new one of the same kind that
/// starts where the old one's start lands once moved by the edits before it
/// (an old node starting strictly inside an edited range explains nothing).
/// Each old node explains at most one new node, so when `after` is longer than
/// `before` at least `after.len() - before.len()` nodes are left.
pub(in crate::engine) fn added_errors(before: &[ErrorNode], after: &[ErrorNode], edits: &[Edit], bom: usize) -> Vec<ErrorNode> {
    let mut explained: HashMap<(usize, u16, bool), usize> = HashMap::new();
    for e in before {
        if let Some(at) = moved(e.start, edits, bom) {
            *explained.entry((at, e.kind, e.missing)).or_default() += 1;
        }
    }
    after
        .iter()
        .filter(|e| match explained.get_mut(&(e.start, e.kind, e.missing)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .copied()
        .collect()
}

/// Where offset `at` of the old text (BOM left out) is in the new text, or
/// `None` when it lies strictly inside an edited range.
pub(in crate::engine) fn moved(at: usize, edits: &[Edit], bom: usize) -> Option<usize> {
    let mut shift: isize = 0;
    for e in edits {
        let (start, end) = (e.start - bom, e.end - bom);
        if at <= start {
            break;
        }
        if at < end {
            return None;
        }
        shift += e.text.len() as isize - (end - start) as isize;
    }
    Some((at as isize + shift) as usize)
}

/// The byte ranges of the ERROR and MISSING nodes at or under `node`.
pub(in crate::engine) fn error_spans(node: tree_sitter::Node<'_>) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    walk_pruned(node, |n| {
        if n.is_error() || n.is_missing() {
            found.push(n.start_byte()..n.end_byte());
        }
        n.has_error()
    });
    found
}

/// The syntax errors a rewrite adds, when the new tree has more ERROR and
/// MISSING nodes (`after`) than the old one had (`before`): those the old ones
/// do not explain ([`added_errors`]), the first [`MAX_SYNTAX_ERRORS_LISTED`],
/// located in the new body `new`.
pub(in crate::engine) fn added(lang: SupportLang, before: &[ErrorNode], after: &[ErrorNode], (edits, bom): (&[Edit], usize), new: &str) -> Vec<SyntaxError> {
    if after.len() <= before.len() {
        return Vec::new();
    }
    let ts = lang.get_ts_language();
    added_errors(before, after, edits, bom).iter().take(MAX_SYNTAX_ERRORS_LISTED).map(|e| e.locate(new, &ts)).collect()
}
