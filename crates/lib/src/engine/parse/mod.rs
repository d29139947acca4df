//! Parsing one file for the rewrite: the text parsed once for the ops the
//! literal prefilter leaves, the new text re-parsed incrementally from the old
//! tree and the edits (with the ranges whose structure changed), and trees
//! freed off the file's path.

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;

use crate::compile::CompiledOp;
use crate::engine::metered::Grep;
use crate::engine::{BOM, Edit, budget, metered};
use crate::request::read::SkipReason;

/// A file's text parsed for the ops that may match it.
pub(in crate::engine) struct Parsed<'t, 'o> {
    /// Length of the UTF-8 BOM the text starts with (0 or 3).
    pub(in crate::engine) bom: usize,
    /// The text without its BOM.
    pub(in crate::engine) body: &'t str,
    pub(in crate::engine) grep: Grep,
    /// The ops the literal prefilter left (all of them when it is off).
    pub(in crate::engine) live: Vec<&'o CompiledOp>,
}

/// Parses `text` for `ops` (the rewrite and the search share it): `Ok(None)`
/// when the prefilter leaves no op, so the file is not parsed; `Err` with the
/// reason when the file's budget is spent already (`engine::budget`).
pub(in crate::engine) fn parse_for<'t, 'o>(
    ops: &[&'o CompiledOp],
    lang: SupportLang,
    text: &'t str,
    prefilter: bool,
) -> std::result::Result<Option<Parsed<'t, 'o>>, SkipReason> {
    let live: Vec<&CompiledOp> = ops.iter().copied().filter(|op| !prefilter || op.may_match(text.as_bytes())).collect();
    if live.is_empty() {
        return Ok(None);
    }
    if let Some(why) = budget::spent() {
        return Err(why);
    }
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (BOM.len(), rest),
        None => (0, text),
    };
    let grep = metered::parse(body, lang);
    budget::set_text(body.len(), live.iter().map(|op| op.growth).max().unwrap_or(1));
    Ok(Some(Parsed { bom, body, grep, live }))
}

thread_local! {
    static PARSER: std::cell::RefCell<tree_sitter::Parser> = std::cell::RefCell::new(tree_sitter::Parser::new());
}

/// The tree of the new text, parsed incrementally: the old tree is told about
/// every edit (last first, so earlier offsets stay valid) and tree-sitter
/// re-parses only what changed, much cheaper than a second full parse. Falls
/// back to a full parse if the incremental one is not available.
///
/// With it, the byte ranges of `new` whose syntactic structure changed
/// (`Tree::changed_ranges`), when the re-parse was incremental.
pub(in crate::engine) fn tree_after_edit(
    tree: tree_sitter::Tree,
    lang: SupportLang,
    old: &str,
    new: &str,
    edits: &[Edit],
    bom: usize,
) -> (tree_sitter::Tree, Option<Vec<std::ops::Range<usize>>>) {
    match reparse(tree, lang, old, new, edits, bom) {
        Some((t, changed)) => (t, Some(changed)),
        None => (tree_after_edit_full(lang, new), None),
    }
}

/// The tree of `new`, parsed whole.
pub(in crate::engine) fn tree_after_edit_full(lang: SupportLang, new: &str) -> tree_sitter::Tree {
    lang.ast_grep(new).root().get_doc().tree.clone()
}

/// The tree of `new`, re-parsed incrementally from `tree` (the tree of `old`) and
/// the edits that turn `old` into `new`, and the byte ranges of `new` whose
/// syntactic structure changed (`Tree::changed_ranges` of the edited `tree`).
pub(crate) fn reparse(
    mut tree: tree_sitter::Tree,
    lang: SupportLang,
    old: &str,
    new: &str,
    edits: &[Edit],
    bom: usize,
) -> Option<(tree_sitter::Tree, Vec<std::ops::Range<usize>>)> {
    tell(&mut tree, old, new, edits, bom);
    PARSER.with(|p| {
        let mut p = p.borrow_mut();
        p.set_language(&lang.get_ts_language()).ok()?;
        p.reset();
        let new_tree = p.parse(new.as_bytes(), Some(&tree))?;
        let changed = tree.changed_ranges(&new_tree).map(|r| r.start_byte..r.end_byte).collect();
        drop_later(tree);
        Some((new_tree, changed))
    })
}

/// The byte ranges of `new` whose syntactic structure differs between
/// `new_tree` (parsed whole from `new`) and `tree`, the tree of `old`, told
/// of the `edits` that turn `old` into `new`: what [`reparse`] gives with
/// its tree (`Tree::changed_ranges` compares the two trees node by node,
/// however the new one was parsed).
pub(in crate::engine) fn changed_since(
    mut tree: tree_sitter::Tree,
    old: &str,
    new: &str,
    edits: &[Edit],
    bom: usize,
    new_tree: &tree_sitter::Tree,
) -> Vec<std::ops::Range<usize>> {
    tell(&mut tree, old, new, edits, bom);
    let changed = tree.changed_ranges(new_tree).map(|r| r.start_byte..r.end_byte).collect();
    drop_later(tree);
    changed
}

/// Tells `tree` (of `old`) of the edits that turn `old` into `new`.
fn tell(tree: &mut tree_sitter::Tree, old: &str, new: &str, edits: &[Edit], bom: usize) {
    let lines = crate::shared::text::Breaks::of(old);
    let point = |at: usize| tree_sitter::Point { row: lines.line(at) - 1, column: at - lines.line_start(at) };
    for (start, old_end, new_start, new_end) in told(edits, bom).into_iter().rev() {
        let start_position = point(start);
        let inserted = &new.as_bytes()[new_start..new_end];
        let new_end_position = match memchr::memrchr(b'\n', inserted) {
            None => tree_sitter::Point { row: start_position.row, column: start_position.column + inserted.len() },
            Some(last) => tree_sitter::Point { row: start_position.row + memchr::memchr_iter(b'\n', inserted).count(), column: inserted.len() - last - 1 },
        };
        tree.edit(&tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: old_end,
            new_end_byte: start + inserted.len(),
            start_position,
            old_end_position: point(old_end),
            new_end_position,
        });
    }
}

/// Edits closer than this (bytes of the old text between them) are told to
/// the tree as one edit. Telling the tree of an edit walks it from the root to
/// the edit (`ts_tree_edit`), so a file whose edits lie ever deeper paid the
/// square of its depth (2,000 levels: a quarter of its run); one edit for a run
/// of close edits costs the run's depth once, and the re-parse reads at most
/// this many more bytes per edit.
const TOLD_GAP: usize = 256;

/// The edits (sorted, offsets of the text with its BOM of `bom` bytes) as the
/// tree is told of them: each run of edits less than [`TOLD_GAP`] bytes apart
/// as one, `(start, old end, new start, new end)` in offsets of the old and
/// the new body.
fn told(edits: &[Edit], bom: usize) -> Vec<(usize, usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut shift: isize = 0;
    for e in edits {
        let (start, end) = (e.start - bom, e.end - bom);
        let new_start = (start as isize + shift) as usize;
        shift += e.text.len() as isize - (end - start) as isize;
        let new_end = (end as isize + shift) as usize;
        match out.last_mut() {
            Some(run) if start <= run.1 + TOLD_GAP => (run.1, run.3) = (end, new_end),
            _ => out.push((start, end, new_start, new_end)),
        }
    }
    out
}

/// Frees `value` (a syntax tree, or a parsed document holding one: freeing a tree
/// visits every node, 5-7 ms for a 300 KB file) on whichever worker is free first,
/// off the path to this file's result. When every worker is busy, the one that
/// spawned it takes it next (rayon runs a worker's own jobs last-in first-out), so
/// trees do not pile up.
pub(in crate::engine) fn drop_later<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_edits_are_told_as_one_and_far_ones_apart() {
        let edit = |start: usize, end: usize, text: &str| Edit { start, end, text: text.into(), op: 0 };
        // Two edits 10 bytes apart, then one 1,000 bytes on; a BOM of 3 bytes.
        let edits = [edit(3, 5, "abcd"), edit(15, 16, ""), edit(1016, 1018, "x")];
        assert_eq!(told(&edits, 3), vec![(0, 13, 0, 14), (1013, 1015, 1014, 1015)]);
    }
}
