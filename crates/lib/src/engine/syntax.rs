//! The syntax check of a rewrite: the new text re-parsed (incrementally, from
//! the old tree and the edits), its ERROR and MISSING nodes compared with the
//! original's, and the ones the rewrite added located in the new text
//! (docs/DESIGN.md section 2.5.6); and the checks of section 2.5.7 made before a
//! file is matched: its depth, and the work of its rules' transforms and rewriters.

use super::*;
#[allow(unused_imports)]
use crate::engine::metered::{Grep, Metered, Step};

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
pub(super) struct ErrorNode {
    /// Byte offset of its start.
    start: usize,
    /// 0-based row of its start.
    row: usize,
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
pub(super) fn excerpt(line: &str, at: usize) -> String {
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
pub(super) fn tree_errors(grep: &Grep) -> Vec<ErrorNode> {
    error_nodes(grep.root().get_inner_node().0)
}

/// ERROR and MISSING nodes at or under `node`, in pre-order. tree-sitter's
/// `has_error` flag is set on every node whose subtree holds one, so subtrees
/// without it are skipped: the cost is the path to each error, not the size of
/// the tree (a tree without errors costs one look at its root).
pub(super) fn error_nodes(node: tree_sitter::Node<'_>) -> Vec<ErrorNode> {
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
pub(super) fn first_error_line(grep: &Grep) -> Option<usize> {
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
pub(super) fn added_errors(before: &[ErrorNode], after: &[ErrorNode], edits: &[Edit], bom: usize) -> Vec<ErrorNode> {
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
pub(super) fn moved(at: usize, edits: &[Edit], bom: usize) -> Option<usize> {
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

/// What the syntax check found in one file (docs/DESIGN.md section 2.5.6).
#[derive(Default)]
pub(super) struct SyntaxCheck {
    pub(super) structure: structure::Report,
    pub(super) template: TemplateReport,
    pub(super) before: usize,
    pub(super) after: usize,
    pub(super) added: Vec<SyntaxError>,
    pub(super) broken_before: Option<usize>,
}

/// The new text of `text` (the old file, `bom` bytes of BOM, parsed as `grep`)
/// rewritten by `edits`, and what the checks found. The template check
/// (`engine/invariant.rs`, for the edits with a check) may put ast-grep's text
/// in place of an edit's minimal layout. When `check_syntax`: ERROR and MISSING
/// nodes before and after, the ones the rewrite adds located (only when there
/// are more after than before), the line of the first one before (without
/// edits, only that line), and the structure guard (`captures`: per edit,
/// what its template's metavariables captured).
#[allow(clippy::too_many_arguments)]
pub(super) fn syntax_check(
    grep: Grep,
    lang: SupportLang,
    text: &str,
    edits: &mut [Edit],
    (checks, captures): (&[Option<invariant::EditCheck>], Vec<Vec<structure::Capture>>),
    bom: usize,
    check_syntax: bool,
) -> (Vec<u8>, SyntaxCheck) {
    let old = &text[bom..];
    let templated = checks.iter().any(Option::is_some);
    if edits.is_empty() || !(check_syntax || templated) {
        let broken_before = if check_syntax { first_error_line(&grep) } else { None };
        drop_later(grep);
        return (splice(text.as_bytes(), edits), SyntaxCheck { broken_before, ..SyntaxCheck::default() });
    }
    let before = if check_syntax { tree_errors(&grep) } else { Vec::new() };
    let broken = if templated { error_spans(grep.root().get_inner_node().0) } else { Vec::new() };
    // The structure guard (docs/DESIGN.md section 2.5.10) needs the old tree as
    // it was: `Tree::edit` below moves its nodes. The template check changes
    // the text of an edit, never its range.
    let flat = check_syntax.then(|| structure::Before::of(grep.root().get_inner_node().0, edits, captures, bom));
    // Keep only the tree: with no other reference to it, `Tree::edit` changes
    // its nodes in place instead of copying each node on the way to an edit,
    // and the source copy inside `grep` is freed before the re-parse.
    let tree = grep.root().get_doc().tree.clone();
    drop(grep);
    let new_text = splice(text.as_bytes(), edits);
    let (new_tree, changed) = tree_after_edit(tree, lang, old, std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8"), edits, bom);
    // The structure guard of a new text (docs/DESIGN.md section 2.5.10): its
    // ERROR and MISSING nodes, and its structure against the old tree's where
    // it adds none (one that adds some is refused for its syntax errors).
    let guard = |new_text: &[u8], tree: &tree_sitter::Tree, changed: Option<&[std::ops::Range<usize>]>, edits: &[Edit]| {
        let flat = flat.as_ref()?;
        let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
        let after = error_nodes(tree.root_node());
        let structure =
            if after.len() > before.len() { structure::Report::default() } else { structure::compare(flat, old, tree.root_node(), new, edits, bom, changed) };
        Some((after, structure))
    };
    // The template check reads the new tree only, so the guard of the same
    // text runs beside it; it runs again on the text the check settles on
    // when that differs (an edit written as ast-grep writes it).
    let (template, new_text, new_tree, guarded) = if templated {
        let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
        let (guarded, failed) =
            invariant::failed(lang, text, bom, edits, checks, &broken, (new, &new_tree), || guard(&new_text, &new_tree, changed.as_deref(), edits));
        match invariant::settle(lang, text, bom, edits, checks, &broken, (&new_text, &new_tree, changed.as_deref()), failed) {
            (None, template) => (template, new_text, new_tree, guarded),
            (Some((text2, tree2, changed2)), template) => {
                drop_later(new_tree);
                let guarded = guard(&text2, &tree2, changed2.as_deref(), edits);
                (template, text2, tree2, guarded)
            }
        }
    } else {
        let guarded = guard(&new_text, &new_tree, changed.as_deref(), edits);
        (TemplateReport::default(), new_text, new_tree, guarded)
    };
    drop_later(new_tree);
    let Some((after, structure)) = guarded else {
        return (new_text, SyntaxCheck { template, ..SyntaxCheck::default() });
    };
    let added = if after.len() > before.len() {
        let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
        let ts = lang.get_ts_language();
        added_errors(&before, &after, edits, bom).iter().take(MAX_SYNTAX_ERRORS_LISTED).map(|e| e.locate(new, &ts)).collect()
    } else {
        Vec::new()
    };
    let check = SyntaxCheck { before: before.len(), after: after.len(), added, broken_before: before.first().map(|e| e.row + 1), structure, template };
    (new_text, check)
}

/// The byte ranges of the ERROR and MISSING nodes at or under `node`.
pub(super) fn error_spans(node: tree_sitter::Node<'_>) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    walk_pruned(node, |n| {
        if n.is_error() || n.is_missing() {
            found.push(n.start_byte()..n.end_byte());
        }
        n.has_error()
    });
    found
}

/// A file's text parsed for the ops that may match it.
pub(super) struct Parsed<'t, 'o> {
    /// Length of the UTF-8 BOM the text starts with (0 or 3).
    pub(super) bom: usize,
    /// The text without its BOM.
    pub(super) body: &'t str,
    pub(super) grep: Grep,
    /// The ops the literal prefilter left (all of them when it is off).
    pub(super) live: Vec<&'o CompiledOp>,
}

/// Parses `text` for `ops` (the rewrite and the search share it): `Ok(None)`
/// when the prefilter leaves no op, so the file is not parsed; `Err` with the
/// reason when the file's budget is spent already (`engine::budget`).
pub(super) fn parse_for<'t, 'o>(
    ops: &[&'o CompiledOp],
    lang: SupportLang,
    text: &'t str,
    prefilter: bool,
) -> std::result::Result<Option<Parsed<'t, 'o>>, SkipReason> {
    let live: Vec<&CompiledOp> = ops.iter().copied().filter(|op| !prefilter || op.may_match(text.as_bytes())).collect();
    if live.is_empty() {
        return Ok(None);
    }
    if let Some(why) = super::budget::spent() {
        return Err(why);
    }
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (BOM.len(), rest),
        None => (0, text),
    };
    let grep = super::metered::parse(body, lang);
    super::budget::set_text(body.len(), live.iter().map(|op| op.growth).max().unwrap_or(1));
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
pub(super) fn tree_after_edit(
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
pub(super) fn tree_after_edit_full(lang: SupportLang, new: &str) -> tree_sitter::Tree {
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
    let lines = crate::shared::text::Breaks::of(old);
    let point = |at: usize| tree_sitter::Point { row: lines.line(at) - 1, column: at - lines.line_start(at) };
    for e in edits.iter().rev() {
        let (start, old_end) = (e.start - bom, e.end - bom);
        let start_position = point(start);
        let inserted = e.text.as_bytes();
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

/// Frees `value` (a syntax tree, or a parsed document holding one: freeing a tree
/// visits every node, 5-7 ms for a 300 KB file) on whichever worker is free first,
/// off the path to this file's result. When every worker is busy, the one that
/// spawned it takes it next (rayon runs a worker's own jobs last-in first-out), so
/// trees do not pile up.
pub(super) fn drop_later<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}
