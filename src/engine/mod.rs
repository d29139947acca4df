//! The rewrite engine: for one file's bytes and the ops compiled for its language,
//! the list of edits, the new text and the syntax check. Plain data in, plain data
//! out; it never touches the disk (reading is [`crate::plan`]'s job, writing is
//! [`crate::apply`]'s).
//!
//! Rules (docs/DESIGN.md sections 2.5 and 6):
//! - all ops match the *original* tree in one pass; where matches nest or overlap the
//!   outermost (earliest start, then longest) wins, as `ast-grep -U` does, and the
//!   others are counted in `overlaps` without their replacement being built;
//! - the work per file is bounded (section 2.5.7): a file too deep for a pattern that
//!   compares code, or whose replacements would exceed a budget, is refused with a
//!   reason;
//! - a UTF-8 BOM is kept, and in a CRLF file every line the rewrite inserts ends in
//!   CRLF too;
//! - the new text is built in one forward pass;
//! - the file is re-parsed after the rewrite and ERROR/MISSING nodes are counted
//!   before and after.

pub mod structure;

use std::collections::HashMap;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::matcher::NodeMatch;
use ast_grep_core::replacer::Replacer;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::compile::{self, CompileError, CompiledOp};
use crate::shared::error::{Error, Result};
use crate::request::lang;
use crate::request::Request;

use crate::request::read::Skip;
use crate::shared::nodes::{tree_depth, walk_pruned};

mod captures;
mod invariant;
mod lexer;
mod minimal;
mod reference;
#[cfg(test)]
mod template_prop;

pub use invariant::{TemplateNote, TemplateReport, MAX_TEMPLATE_NOTES_LISTED};
mod nested;
mod scan;
mod spelling;

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One replacement: the bytes `start..end` of the original file become `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    /// Byte offset where the replaced range starts (in the whole file, BOM included).
    pub start: usize,
    /// Byte offset where it ends (exclusive).
    pub end: usize,
    /// Replacement text.
    pub text: String,
    /// Index of the op that produced it.
    pub op: usize,
}

/// What the engine made of one file.
#[derive(Debug)]
pub struct Rewrite {
    /// Edits kept, sorted by offset, non-overlapping, none a no-op.
    pub edits: Vec<Edit>,
    /// Matches dropped because they nest in or overlap a kept one.
    pub overlaps: usize,
    /// For each dropped match: (its op, the op of the kept edit it collides with,
    /// its start offset).
    pub dropped: Vec<(usize, usize, usize)>,
    /// Start offsets of matches left alone because the matched code holds a syntax
    /// error: the rewrite could drop the text of the ERROR node.
    pub unparsed: Vec<usize>,
    /// The whole new file.
    pub new_text: Vec<u8>,
    /// ERROR + MISSING nodes in the original tree.
    pub errors_before: usize,
    /// ERROR + MISSING nodes after the rewrite.
    pub errors_after: usize,
    /// When `errors_after > errors_before`: the error nodes the rewrite adds
    /// (see `added_errors`), located in the new text, at most
    /// [`MAX_SYNTAX_ERRORS_LISTED`]; else empty.
    pub syntax_errors: Vec<SyntaxError>,
    /// The 1-based line of the first ERROR/MISSING node of the original text,
    /// when the file was parsed with the syntax check on and holds one. A file
    /// that is broken but has no match still gives a `Rewrite` (no edits) for it.
    pub broken_before: Option<usize>,
    /// What the structure guard found (docs/DESIGN.md section 2.5.10): nothing
    /// when the syntax check is off or the rewrite adds syntax errors.
    pub structure: structure::Report,
    /// Set when the file was not searched after all (its syntax tree is deeper
    /// than [`MAX_CODE_DEPTH`] for an op that needs that): then there are no
    /// edits and `new_text` is the text.
    pub refused: Option<Skip>,
    /// Matches of rules without a fix, in walk order.
    pub findings: Vec<Finding>,
    /// What the template check found (docs/DESIGN.md section 2.5.9): nothing
    /// under `verbatim`.
    pub template: TemplateReport,
}

/// Deepest syntax tree of a searched file, in levels, for ops whose pattern uses
/// a metavariable twice (`$A == $A`; docs/DESIGN.md section 7). ast-grep-core
/// compares the second node with the first by recursion over the code's tree
/// (`does_node_match_exactly`): about 430 bytes of stack per level in a release
/// build, 1.1 KB in a debug one (measured with `ulimit -s`), on rayon workers and
/// tokio's blocking threads of 2 MiB. A deeper file is skipped with a reason
/// instead of overflowing the stack (`tests/limits.rs`). Real code is far
/// shallower: over 16,000 Rust, C, Go, JavaScript and Python files, 99.9% were at
/// most 73 levels deep and the deepest (a generated Unicode table) 741. Other
/// patterns match without recursing over the code, at any depth
/// (`tests/limits.rs` runs one on 100,000 nested parentheses).
pub const MAX_CODE_DEPTH: usize = 1000;

/// The most replacement text the engine builds for one file of `len` bytes: 4
/// times its size plus 64 MiB (docs/DESIGN.md section 7). Each replacement is
/// counted, also one that turns out to change nothing, and one whose bound
/// (`compile::FixBound::at_most`) does not fit in what is left is not built:
/// the file is skipped with a reason. It bounds the memory and time a rewrite
/// can take whatever its template: one that pastes a large match many times
/// (`$A$A$A...`), many matches of a large template, a chain of nested matches
/// that the rewrite leaves unchanged (each one built, then dropped).
pub fn replacement_budget(len: usize) -> usize {
    len.saturating_mul(4).saturating_add(64 << 20)
}

/// `sha256:<hex>` of some bytes: the content digest used to prove staleness.
pub fn digest(bytes: &[u8]) -> String {
    let h = Sha256::digest(bytes);
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in h {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// True when most line breaks of `text` are CRLF.
pub fn is_crlf(text: &str) -> bool {
    let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let crlf = memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count();
    crlf > 0 && crlf * 2 >= lf
}

/// Turns every bare `\n` into `\r\n`.
fn to_crlf(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = '\0';
    for c in s.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

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
struct ErrorNode {
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
fn excerpt(line: &str, at: usize) -> String {
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
fn tree_errors(grep: &AstGrep<StrDoc<SupportLang>>) -> Vec<ErrorNode> {
    error_nodes(grep.root().get_inner_node())
}

/// ERROR and MISSING nodes at or under `node`, in pre-order. tree-sitter's
/// `has_error` flag is set on every node whose subtree holds one, so subtrees
/// without it are skipped: the cost is the path to each error, not the size of
/// the tree (a tree without errors costs one look at its root).
fn error_nodes(node: tree_sitter::Node<'_>) -> Vec<ErrorNode> {
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
fn first_error_line(grep: &AstGrep<StrDoc<SupportLang>>) -> Option<usize> {
    let mut first = None;
    walk_pruned(grep.root().get_inner_node(), |node| {
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
fn added_errors(before: &[ErrorNode], after: &[ErrorNode], edits: &[Edit], bom: usize) -> Vec<ErrorNode> {
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
fn moved(at: usize, edits: &[Edit], bom: usize) -> Option<usize> {
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

/// How [`rewrite`] works.
#[derive(Clone, Copy, Debug)]
pub struct RewriteOptions {
    /// Skip ops (and the parse) when the text lacks their literal tokens.
    pub prefilter: bool,
    /// Re-parse the new text and count ERROR/MISSING nodes before and after
    /// (otherwise both counts are 0: apply only needs the new text).
    pub check_syntax: bool,
    /// Rewrite the matches nested inside a kept edit too (see [`rewrite`]).
    pub rewrite_nested: bool,
    /// Write the template output as ast-grep builds it, instead of the minimal
    /// rewrite of `engine/minimal.rs` (docs/DESIGN.md section 2.5.9).
    pub verbatim: bool,
}

/// A match of a rule without a fix, reported as a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Index of the rule.
    pub rule: usize,
    /// Byte offset where the match starts (in the whole file).
    pub start: usize,
    /// The rule's message for this match (metavariables filled in).
    pub message: String,
}

/// Rewrites one file's text. Returns `None` when nothing matched; a `Some` may
/// hold no edits when every match was left alone (see [`Rewrite::unparsed`]) or
/// only rules without a fix matched ([`Rewrite::findings`]), and then `new_text`
/// equals the text.
///
/// Rules whose required literals are missing from the text are not run, and when
/// no rule is left the file is not even parsed (the literal prefilter), unless
/// `opts.prefilter` is false.
pub fn rewrite(ops: &[&CompiledOp], lang: SupportLang, text: &str, opts: RewriteOptions) -> Option<Rewrite> {
    let live: Vec<&CompiledOp> = if opts.prefilter {
        ops.iter().copied().filter(|op| op.may_match(text.as_bytes())).collect()
    } else {
        ops.to_vec()
    };
    if live.is_empty() {
        return None;
    }
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (BOM.len(), rest),
        None => (0, text),
    };
    let grep = lang.ast_grep(body);
    if let Some(why) = too_deep(&grep, &live) {
        drop_later(grep);
        return Some(Rewrite::refused(text, why));
    }
    let found = scan::scan(&grep, &live, body, opts);
    let picked = match pick(&live, body, bom, found.diffs, opts.verbatim) {
        Ok(p) => p,
        Err(why) => {
            drop_later(grep);
            return Some(Rewrite::refused(text, why));
        }
    };
    let findings: Vec<Finding> = found
        .findings
        .iter()
        .map(|(k, nm)| Finding { rule: live[*k].index, start: nm.range().start + bom, message: live[*k].rule.get_message(nm) })
        .collect();
    let Picked { mut kept, mut checks, mut dropped, mut unparsed, captures } = picked;
    if opts.rewrite_nested && !dropped.is_empty() {
        let before: Vec<usize> = kept.iter().map(|e| e.text.len()).collect();
        let texts: Vec<String> = kept.iter().map(|e| e.text.clone()).collect();
        if let Err(why) = nested::rewrite_nested(&live, lang, text, bom, &mut kept, &mut dropped, opts) {
            drop_later(grep);
            return Some(Rewrite::refused(text, why));
        }
        // An edit that nested rewrites changed is no longer what its own
        // template says alone: it is not checked (docs/DESIGN.md 2.5.9).
        for (i, e) in kept.iter().enumerate() {
            if e.text.len() != before[i] || e.text != texts[i] {
                checks[i] = None;
            }
        }
    }
    if kept.is_empty() && unparsed.is_empty() && findings.is_empty() {
        let broken = if opts.check_syntax { first_error_line(&grep) } else { None };
        drop_later(grep);
        return broken.map(|line| Rewrite { broken_before: Some(line), ..Rewrite::unchanged(text) });
    }
    if is_crlf(text) {
        for e in &mut kept {
            if e.text.contains('\n') {
                e.text = to_crlf(&e.text);
            }
        }
        for v in checks.iter_mut().flatten().filter_map(|c| c.verbatim.as_mut()) {
            if v.contains('\n') {
                *v = to_crlf(v);
            }
        }
    }
    let (new_text, check) = syntax_check(grep, lang, text, &mut kept, (&checks, captures), bom, opts.check_syntax);
    unparsed.sort_unstable();
    let (errors_before, errors_after, syntax_errors, broken_before) = (check.before, check.after, check.added, check.broken_before);
    let (structure, template) = (check.structure, check.template);
    Some(Rewrite { edits: kept, overlaps: dropped.len(), dropped, unparsed, new_text, errors_before, errors_after, syntax_errors, broken_before, structure, refused: None, findings, template })
}

/// What the syntax check found in one file (docs/DESIGN.md section 2.5.6).
#[derive(Default)]
struct SyntaxCheck {
    structure: structure::Report,
    template: TemplateReport,
    before: usize,
    after: usize,
    added: Vec<SyntaxError>,
    broken_before: Option<usize>,
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
fn syntax_check(
    grep: AstGrep<StrDoc<SupportLang>>,
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
    let broken = if templated { error_spans(grep.root().get_inner_node()) } else { Vec::new() };
    // The structure guard (docs/DESIGN.md section 2.5.10) needs the old tree as
    // it was: `Tree::edit` below moves its nodes. The template check changes
    // the text of an edit, never its range.
    let flat = check_syntax.then(|| structure::Before::of(grep.root().get_inner_node(), edits, captures, bom));
    // Keep only the tree: with no other reference to it, `Tree::edit` changes
    // its nodes in place instead of copying each node on the way to an edit,
    // and the source copy inside `grep` is freed before the re-parse.
    let tree = grep.root().get_doc().tree.clone();
    drop(grep);
    let new_text = splice(text.as_bytes(), edits);
    let (new_tree, changed) = tree_after_edit(tree, lang, old, std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8"), edits, bom);
    let (new_text, new_tree, changed, template) = if templated {
        invariant::enforce(lang, text, bom, edits, checks, &broken, (new_text, new_tree, changed))
    } else {
        (new_text, new_tree, changed, TemplateReport::default())
    };
    let Some(flat) = flat else {
        drop_later(new_tree);
        return (new_text, SyntaxCheck { template, ..SyntaxCheck::default() });
    };
    let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
    let edits: &[Edit] = edits;
    let after = error_nodes(new_tree.root_node());
    let (added, structure) = if after.len() > before.len() {
        // Already refused for its syntax errors: the structure is not compared.
        let ts = lang.get_ts_language();
        let added = added_errors(&before, &after, edits, bom).iter().take(MAX_SYNTAX_ERRORS_LISTED).map(|e| e.locate(new, &ts)).collect();
        (added, structure::Report::default())
    } else {
        (Vec::new(), structure::compare(flat, old, new_tree.root_node(), new, edits, bom, changed.as_deref()))
    };
    drop_later(new_tree);
    let check = SyntaxCheck { before: before.len(), after: after.len(), added, broken_before: before.first().map(|e| e.row + 1), structure, template };
    (new_text, check)
}

/// The byte ranges of the ERROR and MISSING nodes at or under `node`.
fn error_spans(node: tree_sitter::Node<'_>) -> Vec<std::ops::Range<usize>> {
    let mut found = Vec::new();
    walk_pruned(node, |n| {
        if n.is_error() || n.is_missing() {
            found.push(n.start_byte()..n.end_byte());
        }
        n.has_error()
    });
    found
}

/// The reason to skip a file whose tree is too deep for one of `live` (a pattern
/// that uses a metavariable twice; docs/DESIGN.md section 2.5.7), if it is.
fn too_deep(grep: &AstGrep<StrDoc<SupportLang>>, live: &[&CompiledOp]) -> Option<String> {
    (live.iter().any(|op| op.compares_code) && tree_depth(grep.root().get_inner_node(), MAX_CODE_DEPTH) > MAX_CODE_DEPTH).then(|| {
        format!(
            "syntax tree nested more than {MAX_CODE_DEPTH} levels deep, the limit for a pattern that uses a metavariable twice (matching it would overflow the stack); search this file with a pattern that uses each metavariable once"
        )
    })
}

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
    let live: Vec<&CompiledOp> = ops.iter().copied().filter(|op| !prefilter || op.may_match(text.as_bytes())).collect();
    if live.is_empty() {
        return Ok(0);
    }
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (BOM.len(), rest),
        None => (0, text),
    };
    let grep = lang.ast_grep(body);
    if let Some(why) = too_deep(&grep, &live) {
        drop_later(grep);
        return Err(Skip(why));
    }
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

impl Rewrite {
    /// Nothing to change or report: no edits, the text unchanged.
    fn unchanged(text: &str) -> Rewrite {
        Rewrite {
            edits: Vec::new(),
            overlaps: 0,
            dropped: Vec::new(),
            unparsed: Vec::new(),
            new_text: text.as_bytes().to_vec(),
            errors_before: 0,
            errors_after: 0,
            syntax_errors: Vec::new(),
            broken_before: None,
            structure: structure::Report::default(),
            refused: None,
            findings: Vec::new(),
            template: TemplateReport::default(),
        }
    }

    /// The file is not searched after all: no edits, the text unchanged.
    fn refused(text: &str, why: String) -> Rewrite {
        Rewrite { refused: Some(Skip(why)), ..Rewrite::unchanged(text) }
    }
}

/// The edits kept from a file's matches, and what was left.
struct Picked {
    kept: Vec<Edit>,
    /// Parallel to `kept`: what the template check needs of each edit (`None`
    /// under `verbatim`, for a deletion, or in a language without a lexer).
    checks: Vec<Option<invariant::EditCheck>>,
    dropped: Vec<(usize, usize, usize)>,
    unparsed: Vec<usize>,
    /// Per kept edit, what its template's metavariables captured (for the
    /// structure guard; `engine/captures.rs`).
    captures: Vec<Vec<structure::Capture>>,
}

/// Picks the edits as `ast-grep scan -U` does: the fixable matches in walk order
/// (pre-order; at one node, the rules in their order), each replacing the range
/// its fixer gives (`expandStart`/`expandEnd` honoured), kept when it starts at
/// or after the end of the last kept edit; the others are dropped and counted. A
/// replacement is built only for a match that is kept: building one for every
/// nested match would cost the sum of their sizes, quadratic in the nesting depth
/// (80,000 nested parentheses took 6.6 GB that way; `tests/limits.rs`).
///
/// Our differences (docs/DESIGN.md section 2.5): a match around an ERROR node is
/// left alone and reported, and a replacement equal to the text it replaces is no
/// edit and does not hide the matches inside it. Unless `verbatim`, the
/// replacement is the minimal rewrite (`engine/minimal.rs`, section 2.5.9), so
/// one that only re-creates the matched code is no edit either. `Err` is the
/// reason to skip the file: its replacements would exceed [`replacement_budget`].
fn pick(
    live: &[&CompiledOp],
    body: &str,
    bom: usize,
    diffs: Vec<(usize, NodeMatch<'_, StrDoc<SupportLang>>)>,
    verbatim: bool,
) -> std::result::Result<Picked, String> {
    let mut kept: Vec<Edit> = Vec::new();
    let mut checks = Vec::new();
    // Per op: its first template, the names its transform defines, and the
    // seams its patterns spell.
    let mut templates: HashMap<usize, (String, Vec<String>, spelling::Spelling)> = HashMap::new();
    let mut dropped = Vec::new();
    let mut unparsed = Vec::new();
    let mut captured = Vec::new();
    // Per op, the metavariables its template writes, read at its first kept match.
    let mut vars: Vec<Option<Vec<captures::TemplateVar>>> = vec![None; live.len()];
    let mut last_end = 0;
    let budget = replacement_budget(body.len() + bom);
    let mut built = 0usize;
    let over = || {
        format!(
            "the rewrite would build more than {budget} bytes of replacement text here (4 times the file's size plus 64 MiB, the limit per file): it copies large matches many times, or matches nest deeply; narrow the pattern or shorten the rewrite"
        )
    };
    for (k, nm) in diffs {
        let op = live[k];
        let Some(fixer) = op.fixer() else { continue };
        let node = nm.get_node();
        if node.get_inner_node().has_error() {
            // A match around an ERROR node: ast-grep rewrites it and loses the
            // text no metavariable covers (a `)`, say). Leave it, report it.
            unparsed.push(node.range().start + bom);
            continue;
        }
        let range = fixer.get_replaced_range(&nm, &op.rule.matcher);
        if let Some(k) = kept.last().filter(|_| range.start + bom < last_end) {
            // Inside or across a kept edit: counted, never built.
            dropped.push((op.index, k.op, node.range().start + bom));
            continue;
        }
        if let Some(bound) = &op.fix_bound
            && built.saturating_add(replacement_bound(bound, body, range.start, range.end)) > budget
        {
            return Err(over());
        }
        let text = String::from_utf8(fixer.generate_replacement(&nm)).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        built += text.len();
        if built > budget {
            return Err(over());
        }
        let (range, text, check) = if verbatim {
            (range, text, None)
        } else {
            let floor = last_end.saturating_sub(bom);
            let (template, transformed, spelling) = templates
                .entry(op.index)
                .or_insert_with(|| (first_template(op), transform_names(op), spelling::Spelling::of(op.rule.language, &node_patterns(op))));
            // The reference tells the minimal layout which tokens the template
            // spells, and the template check what the edit must say. An identity
            // is no edit (below) and needs none: building one for each of many
            // nested identities would cost the square of their depth.
            let identity = text.as_bytes() == &body.as_bytes()[range.clone()];
            let reference = if identity { None } else { reference::build(op.rule.language, template, transformed, &nm, body) };
            let out = text.clone();
            let (range, new) = minimal::edit(op.rule.language, node.get_inner_node(), body, (range, text, template), floor, (reference.as_ref(), spelling));
            let check = reference.map(|reference| invariant::EditCheck { reference, verbatim: (out != new).then_some(out) });
            (range, new, check)
        };
        // A match the rewrite leaves as it is changes nothing and must not
        // shadow the matches nested in it.
        if text.as_bytes() == &body.as_bytes()[range.clone()] {
            continue;
        }
        last_end = range.end + bom;
        kept.push(Edit { start: range.start + bom, end: range.end + bom, text, op: op.index });
        checks.push(check);
        captured.push(captures::of(&nm, vars[k].get_or_insert_with(|| captures::template_vars(op)), bom));
    }
    Ok(Picked { kept, checks, dropped, unparsed, captures: captured })
}

/// The first template of `op`'s fix: the one ast-grep's fixer uses.
fn first_template(op: &CompiledOp) -> String {
    match serde_json::to_value(&op.rule.fix) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(o)) => o.get("template").and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        Ok(serde_json::Value::Array(a)) => a.first().and_then(|f| f.get("template")).and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// The patterns `op`'s rule matches its node with (not those of `inside`,
/// `not`, `any`, ...): their seams are not respelled by its template.
fn node_patterns(op: &CompiledOp) -> Vec<String> {
    let Ok(core) = serde_json::to_value(&op.rule.core) else { return Vec::new() };
    crate::request::ruleset::patterns(&core).into_iter().filter(|(_, need)| *need == crate::request::ruleset::Need::InNode).map(|(p, _)| p.text.to_string()).collect()
}

/// The names `op`'s `transform` defines.
fn transform_names(op: &CompiledOp) -> Vec<String> {
    op.rule.transform.as_ref().map(|t| t.keys().cloned().collect()).unwrap_or_default()
}

/// At least the length of `op`'s replacement of the match at `start..end` of
/// `body` ([`compile::FixBound::at_most`]): the match's length and line breaks,
/// and the indentation of its line.
fn replacement_bound(bound: &compile::FixBound, body: &str, start: usize, end: usize) -> usize {
    let bytes = body.as_bytes();
    // ast-grep-core looks for the line's indentation in the 512 bytes before the
    // match only (none when the line starts further back), so never scan more: on
    // a long minified line, scanning back to its start for every match would be
    // quadratic.
    let from = start.saturating_sub(compile::MAX_INDENT);
    let indent = match memchr::memrchr(b'\n', &bytes[from..start]) {
        Some(i) => bytes[from + i + 1..start].iter().take_while(|&&b| b == b' ').count(),
        None if from == 0 => bytes[..start].iter().take_while(|&&b| b == b' ').count(),
        None => 0,
    };
    bound.at_most(end - start, memchr::memchr_iter(b'\n', &bytes[start..end]).count(), indent)
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
fn tree_after_edit(tree: tree_sitter::Tree, lang: SupportLang, old: &str, new: &str, edits: &[Edit], bom: usize) -> (tree_sitter::Tree, Option<Vec<std::ops::Range<usize>>>) {
    match reparse(tree, lang, old, new, edits, bom) {
        Some((t, changed)) => (t, Some(changed)),
        None => (tree_after_edit_full(lang, new), None),
    }
}

/// The tree of `new`, parsed whole.
fn tree_after_edit_full(lang: SupportLang, new: &str) -> tree_sitter::Tree {
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
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', old.as_bytes()).collect();
    let point = |at: usize| {
        let row = newlines.partition_point(|&n| n < at);
        let line_start = if row == 0 { 0 } else { newlines[row - 1] + 1 };
        tree_sitter::Point { row, column: at - line_start }
    };
    for e in edits.iter().rev() {
        let (start, old_end) = (e.start - bom, e.end - bom);
        let start_position = point(start);
        let inserted = e.text.as_bytes();
        let new_end_position = match memchr::memrchr(b'\n', inserted) {
            None => tree_sitter::Point { row: start_position.row, column: start_position.column + inserted.len() },
            Some(last) => tree_sitter::Point {
                row: start_position.row + memchr::memchr_iter(b'\n', inserted).count(),
                column: inserted.len() - last - 1,
            },
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
fn drop_later<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

/// Applies sorted, non-overlapping edits in one forward pass.
pub fn splice(old: &[u8], edits: &[Edit]) -> Vec<u8> {
    let grow: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = Vec::with_capacity(old.len() + grow);
    let mut at = 0;
    for e in edits {
        out.extend_from_slice(&old[at..e.start]);
        out.extend_from_slice(e.text.as_bytes());
        at = e.end;
    }
    out.extend_from_slice(&old[at..]);
    out
}

/// The ops of a request compiled for every language the run meets.
pub struct Engine {
    by_lang: HashMap<SupportLang, Vec<CompiledOp>>,
    /// Per op, the rule's globs (scan only), rooted at the working directory: an
    /// index into `overrides`.
    globs: Vec<Option<usize>>,
    /// One matcher per rule that has globs.
    overrides: Vec<Override>,
    /// A rule set's `files`/`ignores` per rule, and the folder they are relative
    /// to (empty for ops).
    file_globs: Vec<crate::request::ruleset::FileGlobs>,
    base: std::path::PathBuf,
    /// Ops that do not compile for some (not all) languages: shown as warnings.
    pub warnings: Vec<String>,
}

impl Engine {
    /// Compiles `req`'s ops for each language in `langs`.
    ///
    /// An op that compiles for none of them is bad input; one that fails for only
    /// some languages is left out for those and reported in `warnings`. With a
    /// forced language every op must compile for it.
    pub fn new(req: &Request, langs: impl IntoIterator<Item = SupportLang>, cwd: &Path) -> Result<Self> {
        if let Some(set) = &req.rule_set {
            return Engine::for_rules(set, cwd);
        }
        let mut langs: Vec<SupportLang> = langs.into_iter().collect();
        if let Some(l) = req.lang {
            langs = vec![l];
        }
        langs.sort_by_key(|l| lang::name(*l));
        langs.dedup();
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
        let mut failures: Vec<Vec<(SupportLang, CompileError)>> = vec![Vec::new(); req.ops.len()];
        let mut tried = vec![0usize; req.ops.len()];
        for &l in &langs {
            let mut ops = Vec::new();
            for i in 0..req.ops.len() {
                if !req.op_applies_to(i, l) {
                    continue;
                }
                tried[i] += 1;
                match compile::compile_op(i, req, l) {
                    Ok(op) => ops.push(op),
                    Err(e) => failures[i].push((l, e)),
                }
            }
            by_lang.insert(l, ops);
        }
        let mut warnings = Vec::new();
        for (i, errs) in failures.iter().enumerate() {
            if errs.is_empty() {
                continue;
            }
            if errs.len() == tried[i] {
                let msgs: Vec<String> = errs.iter().map(|(_, e)| e.message.clone()).collect();
                return Err(Error::bad(msgs.join("\n")));
            }
            if let [(_, e)] = errs.as_slice() {
                warnings.push(format!("{e} Files of that language are not searched for ops[{i}]."));
            } else {
                let why: Vec<String> = errs.iter().map(|(l, e)| format!("{} ({})", lang::name(*l), e.short)).collect();
                warnings.push(not_searched_in(req, i, &why));
            }
        }
        // One matcher per rule, shared by its ops (they share its globs).
        let mut globs = Vec::with_capacity(req.ops.len());
        let mut overrides: Vec<(&str, Override)> = Vec::new();
        for i in 0..req.ops.len() {
            let Some(scope) = req.scopes.get(i).filter(|s| !s.globs.is_empty()) else {
                globs.push(None);
                continue;
            };
            if let Some(at) = overrides.iter().position(|(rule, _)| *rule == scope.rule) {
                globs.push(Some(at));
                continue;
            }
            let mut ob = OverrideBuilder::new(cwd);
            for g in &scope.globs {
                ob.add(g).map_err(|e| Error::bad(format!("rule `{}`: invalid glob `{g}`: {e}", scope.rule)))?;
            }
            let ov = ob.build().map_err(|e| Error::bad(format!("rule `{}`: invalid globs: {e}", scope.rule)))?;
            globs.push(Some(overrides.len()));
            overrides.push((&scope.rule, ov));
        }
        let overrides = overrides.into_iter().map(|(_, ov)| ov).collect();
        Ok(Engine { by_lang, globs, overrides, file_globs: Vec::new(), base: cwd.to_path_buf(), warnings })
    }

    /// Compiles every rule of a rule set for its language. A rule that does not
    /// compile is bad input (a project's loader has checked its rules already);
    /// a pattern that does not parse cleanly is one too for a request's rules,
    /// and a warning for a project's (ast-grep loads those).
    pub fn for_rules(set: &crate::request::ruleset::RuleSet, cwd: &Path) -> Result<Self> {
        let globals = crate::request::ruleset::globals(&set.utils)?;
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
        let mut file_globs = Vec::with_capacity(set.rules.len());
        let mut warnings = Vec::new();
        for (i, config) in set.rules.iter().enumerate() {
            let lang = crate::request::ruleset::language_of(config)
                .ok_or_else(|| Error::bad(format!("rule `{}` has no known `language`", crate::request::ruleset::id_of(config))))?;
            let op = compile::compile_rule(i, config, lang, (&globals, &set.utils), set.base.is_none()).map_err(|e| Error::bad(e.message))?;
            warnings.extend(op.lint.iter().cloned());
            by_lang.entry(lang).or_default().push(op);
            file_globs.push(crate::request::ruleset::FileGlobs::of(config)?);
        }
        let base = set.base.clone().unwrap_or_else(|| cwd.to_path_buf());
        Ok(Engine { by_lang, globs: vec![None; set.rules.len()], overrides: Vec::new(), file_globs, base, warnings })
    }

    /// True when at least one op is compiled for `lang`.
    pub fn has_ops(&self, lang: SupportLang) -> bool {
        self.by_lang.get(&lang).is_some_and(|ops| !ops.is_empty())
    }

    /// Every op or rule compiled for `lang`, whatever a file's path.
    pub fn all_for(&self, lang: SupportLang) -> Vec<&CompiledOp> {
        self.by_lang.get(&lang).map(|ops| ops.iter().collect()).unwrap_or_default()
    }

    /// The ops that apply to the file at `path` (absolute) of language `lang`.
    pub fn ops_for(&self, lang: SupportLang, path: &Path) -> Vec<&CompiledOp> {
        let Some(ops) = self.by_lang.get(&lang) else { return Vec::new() };
        let rel = path.strip_prefix(&self.base).unwrap_or(path);
        ops.iter()
            .filter(|op| match self.globs[op.index] {
                None => true,
                Some(at) => !self.overrides[at].matched(path, false).is_ignore(),
            })
            .filter(|op| self.file_globs.get(op.index).is_none_or(|g| g.allows(rel)))
            .collect()
    }
}

/// The warning for an op that some languages cannot express: `why` names each
/// language with a short reason.
fn not_searched_in(req: &Request, i: usize, why: &[String]) -> String {
    let how = match req.front {
        crate::shared::message::Front::Cli => "Pass -l LANG for the full error, or -l to pick the language you mean.",
        crate::shared::message::Front::Mcp => "Set `lang` to one of them for the full error, or to the language you mean.",
    };
    format!(
        "ops[{i}].pat `{}` is not searched in files of {} languages it cannot express there: {}. {how}",
        req.ops[i].pat,
        why.len(),
        why.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Op, RawRequest, WalkOptions};

    const FULL: RewriteOptions = RewriteOptions { prefilter: true, check_syntax: true, rewrite_nested: false, verbatim: true };

    fn engine(pat: &str, out: &str, l: SupportLang) -> Engine {
        let raw = RawRequest { ops: vec![Op { pat: pat.into(), out: out.into() }], ..Default::default() };
        let req = raw.validate(&std::env::current_dir().unwrap(), WalkOptions::default(), 1).unwrap();
        Engine::new(&req, [l], Path::new("/")).unwrap()
    }

    #[test]
    fn nested_matches_outermost_wins_and_rest_are_counted() {
        let e = engine("f($A)", "g($A)", SupportLang::Python);
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(f(1))\n", FULL).unwrap();
        assert_eq!(String::from_utf8(r.new_text).unwrap(), "g(f(1))\n");
        assert_eq!(r.overlaps, 1);
    }

    #[test]
    fn crlf_and_bom_are_kept() {
        let e = engine("f($A)", "g(\n$A)", SupportLang::Python);
        let src = "\u{feff}x = 1\r\nf(2)\r\n";
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, src, FULL).unwrap();
        assert_eq!(String::from_utf8(r.new_text).unwrap(), "\u{feff}x = 1\r\ng(\r\n2)\r\n");
    }

    #[test]
    fn no_op_rewrites_are_not_changes_and_do_not_shadow_nested_matches() {
        let e = engine("f($A)", "f($A)", SupportLang::Python);
        assert!(rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1)\n", FULL).is_none());
        // The outer match swaps two equal operands (no change); the inner ones do change.
        let e = engine("$A + $B", "$B + $A", SupportLang::Python);
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "x = (1 + 2) + (1 + 2)\n", FULL).unwrap();
        assert_eq!(String::from_utf8(r.new_text).unwrap(), "x = (2 + 1) + (2 + 1)\n");
        assert_eq!(r.overlaps, 0);
    }

    #[test]
    fn matches_around_syntax_errors_are_left_alone_and_reported() {
        let e = engine("f($A)", "g($A)", SupportLang::Python);
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1 2 3)\nf(4)\n", FULL).unwrap();
        assert_eq!(String::from_utf8(r.new_text).unwrap(), "f(1 2 3)\ng(4)\n");
        assert_eq!(r.unparsed, vec![0]);
    }

    #[test]
    fn syntax_errors_introduced_are_counted() {
        let e = engine("f($A)", "g($A", SupportLang::Python);
        let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, "f(1)\n", FULL).unwrap();
        assert!(r.errors_after > r.errors_before);
    }

    fn ts(pat: &str, out: &str, src: &str, opts: RewriteOptions) -> Option<Rewrite> {
        let e = engine(pat, out, SupportLang::TypeScript);
        rewrite(&e.ops_for(SupportLang::TypeScript, Path::new("/x.ts")), SupportLang::TypeScript, src, opts)
    }

    #[test]
    fn added_syntax_errors_are_located_in_the_new_text() {
        let r = ts("f($A)", "g($A", "const a = 1;\r\nconst b = f(2);\r\n", FULL).unwrap();
        let missing = SyntaxError { line: 2, column: 14, node: "MISSING )".into(), excerpt: "const b = g(2;".into() };
        assert_eq!(r.syntax_errors, vec![missing]);
        assert_eq!(r.broken_before, None);
        // Columns count characters, and the BOM is not part of the text.
        let r = ts("f($A)", "g($A", "\u{feff}const é = f(2);\n", FULL).unwrap();
        assert_eq!((r.syntax_errors[0].line, r.syntax_errors[0].column), (1, 14));
    }

    #[test]
    fn errors_that_were_there_before_are_not_listed_again() {
        // The old `]` is missing further down; the rewrite shortens the text
        // before it and adds a missing `)`. Only the `)` is listed.
        let r = ts("f($A)", "g($A", "const a = f(1);\nlet x = [1, 2;\n", FULL).unwrap();
        assert_eq!((r.errors_before, r.errors_after), (1, 2));
        let nodes: Vec<_> = r.syntax_errors.iter().map(|e| (e.line, e.node.as_str())).collect();
        assert_eq!(nodes, [(1, "MISSING )")]);
        assert_eq!(r.broken_before, Some(2));
        // A clean rewrite of a broken file lists nothing.
        let r = ts("f($A)", "gg($A)", "const a = f(1);\nlet x = [1, 2;\n", FULL).unwrap();
        assert_eq!((r.errors_before, r.errors_after, r.syntax_errors.len()), (1, 1, 0));
    }

    #[test]
    fn a_broken_file_without_a_match_says_where_it_is_broken() {
        // The file holds the pattern's tokens (the prefilter lets it through) but
        // no match.
        let src = "let y = f(2);\nlet x = [1, 2;\n";
        let r = ts("f($A, 1)", "g($A)", src, FULL).unwrap();
        assert!(r.edits.is_empty() && r.findings.is_empty() && r.unparsed.is_empty());
        assert_eq!(r.broken_before, Some(2));
        assert_eq!(r.new_text, src.as_bytes());
        // Without the syntax check (apply, rule tests), nothing matched is nothing.
        let quick = RewriteOptions { check_syntax: false, ..FULL };
        assert!(ts("f($A, 1)", "g($A)", src, quick).is_none());
        // A clean file without a match is nothing either.
        assert!(ts("f($A, 1)", "g($A)", "let y = f(2);\nlet x = [1, 2];\n", FULL).is_none());
    }

    #[test]
    fn a_long_line_is_excerpted_around_the_error() {
        let line = format!("{}ERR{}", "a".repeat(500), "b".repeat(500));
        let cut = excerpt(&line, 500);
        assert_eq!(cut.chars().count(), MAX_EXCERPT_CHARS);
        assert!(cut.starts_with('…') && cut.ends_with('…') && cut.contains("ERR"), "{cut}");
        assert_eq!(excerpt("short", 2), "short");
        let tail = excerpt(&line, line.len());
        assert!(tail.starts_with('…') && tail.ends_with('b') && tail.chars().count() == MAX_EXCERPT_CHARS - 1, "{tail}");
    }

    #[test]
    fn incremental_error_count_equals_a_full_parse() {
        let cases = [
            ("f($A)", "g($A", "x = 1\nf(1)\ny = [f(2),\n  f(3)]\n"),
            ("f($A)", "g(\n$A)", "\u{feff}def h():\n    return f(1) + f(2)\n"),
            ("f($A)", ")", "a = f(1)\nb = (f(2))\n"),
            ("f($A)", "g($A)", "broken = (\nf(1)\n"),
        ];
        for (pat, out, src) in cases {
            let e = engine(pat, out, SupportLang::Python);
            let r = rewrite(&e.ops_for(SupportLang::Python, Path::new("/x.py")), SupportLang::Python, src, FULL).unwrap();
            let new = String::from_utf8(r.new_text.clone()).unwrap();
            let body = new.strip_prefix('\u{feff}').unwrap_or(&new);
            assert_eq!(r.errors_after, full_error_count(&SupportLang::Python.ast_grep(body)), "{pat} -> {out} on {src:?}");
            let before = full_error_count(&SupportLang::Python.ast_grep(src.strip_prefix('\u{feff}').unwrap_or(src)));
            assert_eq!(r.errors_before, before, "{pat} -> {out} on {src:?}");
        }
    }

    /// ERROR and MISSING nodes of a fresh parse, every node visited (no pruning):
    /// the reference the pruned walk must equal.
    fn full_error_count(grep: &AstGrep<StrDoc<SupportLang>>) -> usize {
        grep.root().dfs().filter(|n| n.is_error() || n.is_missing()).count()
    }

    /// Rewrites that keep, drop or break what they matched, on random Rust and C:
    /// the incremental re-parse must give the tree a full parse of the new text
    /// gives (so every `InputEdit` describes its edit right), and the same error
    /// count. Dropping the edits, or a wrong old end, fails it at once. A file
    /// flagged for added errors has located ones, each on a line of the new text.
    fn incremental_is_full(lang: SupportLang, ext: &str, ops: &[(&str, &str)], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        for (pat, out) in ops {
            let e = engine(pat, out, lang);
            let Some(r) = rewrite(&e.ops_for(lang, Path::new(&format!("/x.{ext}"))), lang, src, FULL) else { continue };
            if r.edits.is_empty() {
                continue; // no re-parse, nothing counted
            }
            let new = std::str::from_utf8(&r.new_text).unwrap();
            let fresh = lang.ast_grep(new);
            proptest::prop_assert_eq!(r.errors_after, full_error_count(&fresh), "{} -> {} on {:?}", pat, out, src);
            // A flagged file always has located errors, on lines of the new text.
            let flagged = r.errors_after > r.errors_before;
            proptest::prop_assert_eq!(flagged, !r.syntax_errors.is_empty(), "{} -> {} on {:?}", pat, out, src);
            let lines: Vec<&str> = new.split('\n').collect();
            for e in &r.syntax_errors {
                let line = lines[e.line - 1];
                proptest::prop_assert!(e.column <= line.chars().count() + 1, "{:?} on {:?}", e, new);
                if line.chars().count() <= MAX_EXCERPT_CHARS {
                    proptest::prop_assert_eq!(&e.excerpt, line, "{:?}", e);
                }
            }
            let old_tree = lang.ast_grep(src).root().get_doc().tree.clone();
            let inc = reparse(old_tree, lang, src, new, &r.edits, 0).unwrap().0.root_node().to_sexp();
            let full = fresh.root().get_doc().tree.root_node().to_sexp();
            proptest::prop_assert_eq!(inc, full, "{} -> {} on {:?}", pat, out, src);
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        #[test]
        fn incremental_reparse_equals_a_full_parse_on_random_code(src in soup(&[
            "a", "b", "é", ".", "()", "(", ")", ";", "{", "}", "\"", "fn f() {", "/*", "*/", "->",
        ], &[" ", "\n", "// x\n"])) {
            let ops = [("$A.b()", "$A.c()"), ("$A.b()", "$A.b(1"), ("$A.b()", "{ $A"), ("a.b()", "a.é()"), ("$A.b()", "$A")];
            incremental_is_full(SupportLang::Rust, "rs", &ops, &src)?;
            let ops = [("$A.b();", "$A.bb();"), ("$A.b();", "$A.b(;"), ("$A->b();", "}$A->b();"), ("a.b();", "a.b();")];
            incremental_is_full(SupportLang::C, "c", &ops, &src)?;
        }
    }

    proptest::proptest! {
        /// The anchored walk must find exactly what ast-grep's `find_all` finds,
        /// in the same order, on any text: nested calls, comments and strings
        /// holding the literal, and broken code (ERROR nodes).
        #[test]
        fn anchored_walk_finds_what_find_all_finds(src in "[fgh()1, \n#x\"]{0,80}") {
            for pat in ["f($A)", "f(g($A))", "g($$$A)", "h"] {
                let e = engine(pat, "z", SupportLang::Python);
                let op = e.ops_for(SupportLang::Python, Path::new("/x.py"))[0];
                let grep = SupportLang::Python.ast_grep(&src);
                let all: Vec<_> = grep.root().find_all(&op.rule.matcher).map(|m| m.range()).collect();
                op.anchor(src.as_bytes()).expect("these patterns have a literal");
                let anchored: Vec<_> = scan::scan(&grep, &[op], &src, FULL).diffs.iter().map(|(_, m)| m.range()).collect();
                proptest::prop_assert_eq!(all, anchored, "{} on {:?}", pat, src);
            }
        }
    }

    /// The prefilter must never reject a file that has a match it could rewrite,
    /// and the walk anchored on its rarest literal must find what `find_all`
    /// finds. A match around a parse error is never rewritten; the chain check may
    /// miss one whose ERROR node (an extra, which the matcher skips like a
    /// comment) sits between two adjacent tokens of the pattern.
    fn prefilter_is_sound(lang: SupportLang, ext: &str, pats: &[&str], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        for pat in pats {
            let e = engine(pat, "z", lang);
            let op = e.ops_for(lang, Path::new(&format!("/x.{ext}")))[0];
            proptest::prop_assert!(!op.prefilters[0].0.literals.is_empty());
            let grep = lang.ast_grep(src);
            let all: Vec<_> = grep.root().find_all(&op.rule.matcher).map(|m| (m.range(), m.get_node().get_inner_node().has_error())).collect();
            if !op.may_match(src.as_bytes()) {
                proptest::prop_assert!(all.iter().all(|(_, err)| *err), "{} matches {:?} but the prefilter rejects it", pat, src);
                continue;
            }
            op.anchor(src.as_bytes()).expect("a literal");
            let anchored: Vec<_> = scan::scan(&grep, &[op], src, FULL).diffs.iter().map(|(_, m)| m.range()).collect();
            let all: Vec<_> = all.into_iter().map(|(r, _)| r).collect();
            proptest::prop_assert_eq!(all, anchored, "{} on {:?}", pat, src);
        }
        Ok(())
    }

    /// Random text: tokens from `words`, each followed by nothing (half the
    /// time) or by one of `seps` (whitespace, comments), so that matches with
    /// comments between their tokens are common.
    fn soup(words: &'static [&'static str], seps: &'static [&'static str]) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        let sep = proptest::prop_oneof![proptest::strategy::Just(""), proptest::sample::select(seps)];
        proptest::collection::vec((proptest::sample::select(words), sep), 0..30)
            .prop_map(|w| w.into_iter().flat_map(|(a, b)| [a, b]).collect())
    }

    /// A rule set's edits and findings with the literal prefilter (and the
    /// anchored walk) equal those without: the literals come only from the
    /// patterns that must match.
    fn rules_prefilter_is_sound(rules: &[serde_json::Value], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let set = crate::request::ruleset::RuleSet { rules: rules.to_vec(), ..Default::default() };
        let e = Engine::for_rules(&set, Path::new("/")).unwrap();
        let ops = e.all_for(SupportLang::Python);
        let run = |prefilter| {
            let opts = RewriteOptions { prefilter, check_syntax: false, rewrite_nested: false, verbatim: true };
            rewrite(&ops, SupportLang::Python, src, opts).map(|r| (r.new_text, r.findings.iter().map(|f| (f.rule, f.start)).collect::<Vec<_>>()))
        };
        let (with, without) = (run(true), run(false));
        // With the prefilter a file may be skipped (`None`) only when nothing matched.
        match (&with, &without) {
            (None, Some((text, found))) => proptest::prop_assert!(text.as_slice() == src.as_bytes() && found.is_empty(), "lost on {:?}", src),
            _ => proptest::prop_assert_eq!(with, without, "on {:?}", src),
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(500))]

        /// Rules whose patterns sit under `inside`, `not`, `any`, `has` and
        /// `stopBy`, on random Python.
        #[test]
        fn prefilter_loses_no_rule_match(src in soup(&[
            "def", "load", "save", "(", ")", ":", "print", "log", "x", "1", "if", "f", ",", "\n    ", "\n",
        ], &[" ", "\n", "# c\n"])) {
            let rules = [
                serde_json::json!({"id": "a", "language": "python", "rule": {"pattern": "print($A)", "inside": {"pattern": "def load(): $$$B", "stopBy": "end"}}, "fix": "log($A)"}),
                serde_json::json!({"id": "b", "language": "python", "rule": {"pattern": "f($A)", "not": {"inside": {"kind": "function_definition", "stopBy": {"pattern": "save"}}}}, "fix": "g($A)"}),
                serde_json::json!({"id": "c", "language": "python", "rule": {"any": [{"pattern": "x"}, {"pattern": "log"}], "has": {"pattern": "1", "stopBy": "end"}}}),
                serde_json::json!({"id": "d", "language": "python", "rule": {"kind": "call", "has": {"pattern": "print", "stopBy": "end"}}}),
            ];
            rules_prefilter_is_sound(&rules, &src)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(1000))]

        /// Keywords and chains on random TypeScript made of keywords,
        /// look-alike words, comments (also `<!--`) and strings.
        #[test]
        fn prefilter_loses_no_typescript_match(src in soup(&[
            "x", "as", "any", "many", "return", "Object", "assign", ".", "?.", "(", ")", ";", "\"", "({}, a)", "{", "}", ",",
        ], &[" ", "\n", "/* x */", "// x\n", "<!-- x\n"])) {
            prefilter_is_sound(SupportLang::TypeScript, "ts", &["$A as any", "return $A", "($A as any)", "Object.assign({}, $A)", "x.assign"], &src)?;
        }

        /// Pairs across the end of a node (`parse` ends a member expression, then
        /// the arguments start) on random JavaScript.
        #[test]
        fn prefilter_loses_no_javascript_match(src in soup(&[
            "JSON", "parse", "stringify", "a", ".", "?.", "(", ")", ",", "[", "]", ";", "new",
        ], &[" ", "\n", "/* x */", "// x\n"])) {
            prefilter_is_sound(SupportLang::JavaScript, "js", &["JSON.parse(JSON.stringify($A))", "a.parse(a)", "new a.parse($A)", "a[parse]"], &src)?;
        }

        /// Chains on random Rust: nested block comments, paths, calls, and `//`
        /// lines inside strings and block comments begun above.
        #[test]
        fn prefilter_loses_no_rust_match(src in soup(&[
            "foo", "bar", "x", "::", ".", "()", ";", "{", "}", "\"", "as", "u8", "\n// ", "/*", "*/", "\\",
        ], &[" ", "\n", "/* x /* y */ z */", "// x\n"])) {
            prefilter_is_sound(SupportLang::Rust, "rs", &["foo::bar()", "$A.bar()", "foo.bar", "$A as u8"], &src)?;
        }

        /// Occurrences on `//` lines on random Rust, C, Go and Java where such a
        /// line may sit in a string, a Go raw string or a block comment begun
        /// above, and end it, or follow a parse error that swallows the `//`. It
        /// caught a rule that took such lines for comments (see
        /// `prefilter::tests::a_comment_line_after_a_parse_error_may_be_code`).
        #[test]
        fn prefilter_loses_no_match_after_a_comment_line(src in soup(&[
            "a.b();", "\n// ", "\n  //", "/*", "\"", "`", "\\", "*/ a.b();", "\"; a.b();", "`; a.b();",
        ], &[" ", "\n"])) {
            // Inside a function body, where a statement parses without errors.
            prefilter_is_sound(SupportLang::Rust, "rs", &["$A.b()", "a.b()"], &format!("fn f() {{\n{src}\n}}"))?;
            prefilter_is_sound(SupportLang::C, "c", &["$A.b();", "a.b();"], &format!("void f() {{\n{src}\n}}"))?;
            prefilter_is_sound(SupportLang::Go, "go", &["$A.b()"], &format!("package p\nfunc f() {{\n{src}\n}}"))?;
            prefilter_is_sound(SupportLang::Java, "java", &["$A.b()"], &format!("class C {{ void f() {{\n{src}\n}} }}"))?;
        }

        /// Chains on random Python and C: `#` comments, C's `//` comments
        /// continued by a backslash, and `//` lines inside strings and comments.
        #[test]
        fn prefilter_loses_no_python_or_c_match(src in soup(&[
            "os", "getcwd", "a", "b", "()", "(", ")", ";", ".", "->", "=", "1", "\"", "not", "in", "\n// ", "/*", "*/", "\\",
        ], &[" ", "\n", "# x\n", "// x \\\n y\n", "/* x */"])) {
            prefilter_is_sound(SupportLang::Python, "py", &["os.getcwd()", "a not in b", "a.b = 1"], &src)?;
            prefilter_is_sound(SupportLang::C, "c", &["a.b = 1;", "os->getcwd();", "getcwd(a);"], &src)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        /// The bound on a replacement's size, checked before it is built, is never
        /// below its size: on calls spread over indented lines, with templates
        /// that paste and indent their metavariables and add lines.
        #[test]
        fn a_replacement_is_never_longer_than_its_bound(
            outer in 0usize..12,
            items in proptest::collection::vec((0usize..4, "[a-z]{1,3}"), 1..8),
            tindent in 0usize..40,
            copies in 1usize..4,
        ) {
            // A call whose one argument is a list over several short lines,
            // indented less than the template will indent them.
            let mut src = format!("def g():\n{}x = f([", " ".repeat(outer + 1));
            for (ind, item) in &items {
                src.push_str(&format!("\n{}{item},", " ".repeat(*ind)));
            }
            src.push_str("])\n");
            let pad = " ".repeat(tindent);
            for var in ["$A", "$$$A"] {
                let paste = vec![var; copies].join(&format!(",\n{pad}"));
                for out in [format!("h(\n{pad}{paste}\n)"), format!("{pad}[{paste}]"), var.to_string(), "k".to_string()] {
                    let e = engine(&format!("f({var})"), &out, SupportLang::Python);
                    let op = e.ops_for(SupportLang::Python, Path::new("/x.py"))[0];
                    let grep = SupportLang::Python.ast_grep(&src);
                    for nm in grep.root().find_all(&op.rule.matcher) {
                        let r = nm.range();
                        let built = op.fixer().unwrap().generate_replacement(&nm).len();
                        let bound = replacement_bound(op.fix_bound.as_ref().unwrap(), &src, r.start, r.end);
                        proptest::prop_assert!(built <= bound, "{} > {} for {:?} on {:?}", built, bound, out, src);
                    }
                }
            }
        }
    }

    /// Renames `foo` to `bar` (and leaves it) with minimal rewrites on `src`:
    /// the new text differs from `src` only where `foo` became `bar`, and the
    /// identity is no edit.
    fn rename_is_only_the_rename(lang: SupportLang, ext: &str, pats: &[(&str, &str)], src: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let minimal = RewriteOptions { verbatim: false, ..FULL };
        for (pat, out) in pats {
            let path = format!("/x.{ext}");
            let e = engine(pat, out, lang);
            if let Some(r) = rewrite(&e.ops_for(lang, Path::new(&path)), lang, src, minimal) {
                let new = String::from_utf8(r.new_text).unwrap();
                proptest::prop_assert_eq!(new.replace("bar", "foo"), src, "{} -> {}", pat, out);
            }
            let e = engine(pat, pat, lang);
            if let Some(r) = rewrite(&e.ops_for(lang, Path::new(&path)), lang, src, minimal) {
                proptest::prop_assert!(r.edits.is_empty(), "{} -> itself: {:?}", pat, r.edits);
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        /// Calls and method calls spread over lines, with comments and strings
        /// that hold whitespace, on random Python, Rust and JavaScript.
        #[test]
        fn a_minimal_rename_changes_only_the_identifier(src in soup(&[
            "foo", "x", "y", "(", ")", ",", ".", "\"a  b\"", "'c  d'", "1", "[", "]", "\n    ", "\n", "=",
        ], &[" ", "\n", "\n        ", "  "])) {
            let ops = [("foo($$$A)", "bar($$$A)"), ("$X.foo($$$A)", "$X.bar($$$A)"), ("foo($A, $B)", "bar($A, $B)")];
            rename_is_only_the_rename(SupportLang::Python, "py", &ops, &format!("{src}\n# foo  (x)\n"))?;
            rename_is_only_the_rename(SupportLang::JavaScript, "js", &ops, &format!("{src}\n// foo  (x)\n"))?;
            rename_is_only_the_rename(SupportLang::Rust, "rs", &ops, &format!("fn m() {{\n{src}\n}}\n/* foo  (x) */\n"))?;
        }
    }
}
