//! The template check (docs/DESIGN.md §2.5.9, "The invariant, checked on every edit"):
//! the default rewrite of a match must say exactly what its template says. Over the
//! edited range of the new text, with the file's own parser: (a) its non-blank text is
//! the reference's (`engine/layout/reference.rs`) token by token, up to the admitted
//! deviations, and (b) every seam between two reference tokens is a token boundary of
//! the new parse (here); then checks (c) to (e) on the new tree (`shape`) and (f), what
//! the compiler rejects though tree-sitter accepts it (`strict`). An edit that fails is
//! written as ast-grep writes it when that passes, else its file is flagged
//! `templateMismatch`. The cost is linear in the edit (§2.5.9, "Cost").

use std::ops::Range;

use crate::engine::layout::reference::{Origin, Reference, is_literal_kind};
use crate::engine::parse::reparse;
use crate::engine::{Edit, splice};
use ast_grep_language::SupportLang;

pub(in crate::engine) mod around;
pub(in crate::engine) mod shape;
pub(in crate::engine) mod strict;
#[cfg(test)]
pub(in crate::engine) mod frontend_prop;
#[cfg(test)]
mod frontend_real;
#[cfg(test)]
mod template_prop;

/// How the note of an edit that breaks a rule of its language's compiler
/// (check (f), `engine/template/strict.rs`) starts: what tree-sitter accepts and the
/// compiler rejects, or reads otherwise.
pub(crate) const COMPILER_RULE: &str = "the language reads this otherwise than tree-sitter: ";

/// What the note of a capture read as a node of another kind says between
/// the code and its new kind (check (c)).
pub(crate) const READ_AS: &str = "` is read as ";

/// Most notes listed per file for each kind (edits written as ast-grep writes
/// them, edits whose template is not followed); the counts say how many there
/// are in all.
pub const MAX_TEMPLATE_NOTES_LISTED: usize = 5;

/// What the check needs of one edit, from the pick.
#[derive(Clone, Debug)]
pub(crate) struct EditCheck {
    /// What the template says.
    pub(crate) reference: Reference,
    /// ast-grep's own replacement, when the edit's text is the minimal layout
    /// and differs from it: what is written if the minimal layout fails.
    pub(crate) verbatim: Option<String>,
    /// The kind of the node that held the replaced code, when that code was
    /// one node (the outermost of that range): the edit's new node must be
    /// held by a node of the same kind where either binds tightly
    /// ([`crate::engine::template::shape::binds`]).
    pub(crate) parent: Option<u16>,
    /// The template is one piece of code ([`crate::engine::template::shape::one_piece`]): the
    /// edit must be one node in place, not a run of siblings.
    pub(crate) one_piece: bool,
    /// The kinds of the nodes single captures with parts were (their start
    /// in the old body, their kind): each must be a node of that kind in
    /// place (`{ k: 1 }` after `=>` is a block, not an object).
    pub(crate) kinds: Vec<(usize, String)>,
}

/// A note on one edit: its 1-based line in the new text and what happened.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateNote {
    /// 1-based line of the edit's start in the new text.
    pub line: usize,
    /// What was wrong with the layout (or with both layouts).
    pub message: String,
}

/// What the template check found in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateOutcome {
    /// Edits checked (every edit of the default mode in a language with a
    /// layout lexer).
    pub checked: usize,
    /// Edits whose minimal layout failed the check and that are written as
    /// ast-grep writes them; the first [`MAX_TEMPLATE_NOTES_LISTED`] in `fell_back`.
    pub fallbacks: usize,
    /// The first of those edits.
    pub fell_back: Vec<TemplateNote>,
    /// Edits that fail the check either way: the file is flagged; the first
    /// [`MAX_TEMPLATE_NOTES_LISTED`] in `mismatches`.
    pub mismatched: usize,
    /// The first of those edits.
    pub mismatches: Vec<TemplateNote>,
}

impl Problem {
    /// The problem in words.
    pub(crate) fn message(&self) -> String {
        match self {
            Problem::Glued { left, right, merged } if left.is_empty() && right.is_empty() => {
                format!("the code on either side of the deleted text runs together as `{merged}`")
            }
            Problem::Glued { left, right, merged } if right.is_empty() => format!("`{left}` runs into the code after it as `{merged}`"),
            Problem::Glued { left, right, merged } if left.is_empty() => format!("`{right}` runs into the code before it as `{merged}`"),
            Problem::Glued { left, right, merged } => format!("`{left}` and `{right}` run together as `{merged}`"),
            Problem::Differs { expected, found } => format!("the template says `{expected}` where the new text has `{found}`"),
            Problem::Split { token } => format!("the captured `{token}` is no longer one token"),
            Problem::Loose { code, holder } => format!("the captured `{code}` is no longer one piece of code: the new text parses it as part of `{holder}`"),
            Problem::Rebinds { code, holder } => format!("the new `{code}` binds with the code around it: the new text parses it as part of `{holder}`"),
            Problem::Retyped { code, was, now } => format!("the captured `{code}{READ_AS}{now} where it was {was}"),
            Problem::Reparented { code, now, before } => format!("the new `{code}` is part of {now} where the replaced code was part of {before}"),
            Problem::Outline { want, got } => format!("ast-grep's text parses as {want} where this layout parses as {got}"),
            Problem::LineBreak { lang: SupportLang::Go, line } => format!("Go ends the line `{line}` with a `;` where none may stand"),
            Problem::LineBreak { line, .. } => format!("the line `{line}` ends a statement in the middle of one"),
            Problem::Breaks => "the layout adds a syntax error".to_string(),
            Problem::Compiler { rule } => format!("{COMPILER_RULE}{rule}"),
            Problem::Comma { close, kind } => format!("the `,` before `{close}` makes {kind}"),
        }
    }
}

/// Where each edit's text lies in the new body (BOM left out).
fn new_spans(edits: &[Edit], bom: usize) -> Vec<Range<usize>> {
    let mut shift: isize = 0;
    edits
        .iter()
        .map(|e| {
            let start = (e.start as isize - bom as isize + shift) as usize;
            shift += e.text.len() as isize - (e.end - e.start) as isize;
            start..start + e.text.len()
        })
        .collect()
}

/// The 1-based line of offset `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at.min(text.len())]).count() + 1
}

/// The edits among `which` whose text in `new` (parsed as `root`) fails the
/// check, with why. `broken` are the ranges of the old body's ERROR and
/// MISSING nodes: an edit touching one is checked by (a) alone.
fn failures(
    lang: SupportLang,
    old: &str,
    (new, root): (&str, tree_sitter::Node<'_>),
    (edits, checks, bom): (&[Edit], &[Option<EditCheck>], usize),
    broken: &[Range<usize>],
    which: &[usize],
) -> Vec<(usize, Problem)> {
    judged(lang, old, (new, root), (edits, checks, bom), broken, which, || ()).1.into_iter().filter_map(|(i, j)| j.err().map(|p| (i, p))).collect()
}

/// Where the reference's tokens lie in the new text (parallel to its tokens).
type Placed = Vec<Option<Range<usize>>>;

/// One edit's verdict: where its reference's tokens lie, or why it fails.
type Verdict = (usize, Result<Placed, Problem>);

/// [`judge`] of each checked edit among `which`, as (edit, verdict), and
/// `aside()`: many edits are judged on two threads, the helper running `aside`
/// first (`shared::beside`).
fn judged<A: Send>(
    lang: SupportLang,
    old: &str,
    (new, root): (&str, tree_sitter::Node<'_>),
    (edits, checks, bom): (&[Edit], &[Option<EditCheck>], usize),
    broken: &[Range<usize>],
    which: &[usize],
    aside: impl FnOnce() -> A + Send,
) -> (A, Vec<Verdict>) {
    let spans = new_spans(edits, bom);
    let errors = if root.has_error() { crate::engine::syntax::error_spans(root) } else { Vec::new() };
    // One way down per chunk of edits, each edit's going on from the last's.
    let (a, verdicts) = crate::shared::beside::beside(
        which,
        aside,
        || around::Descent::new(root),
        |descent, &i| {
            let c = checks[i].as_ref()?;
            let at = descent.to(wide(&spans[i], new.len()));
            Some((i, judge(lang, c, old, (edits[i].start - bom)..(edits[i].end - bom), (new, &at), &spans[i], broken, &errors)))
        },
    );
    (a, verdicts.into_iter().flatten().collect())
}

/// Checks (a) to (c) and (e) of one edit (`engine/template/shape.rs`), whose text is
/// `span` of `new` (parsed as `root`, whose ERROR and MISSING nodes lie at
/// `errors`) and which replaced `orig` of the old body `old`. Returns where
/// the reference's tokens lie in `new`.
#[allow(clippy::too_many_arguments)]
fn judge(
    lang: SupportLang,
    c: &EditCheck,
    old: &str,
    orig: Range<usize>,
    (new, at): (&str, &around::Around<'_, '_>),
    span: &Range<usize>,
    broken: &[Range<usize>],
    errors: &[Range<usize>],
) -> Result<Placed, Problem> {
    let seams = !near(broken, &orig);
    let toks = new_tokens(at, span);
    let placed = check(lang, &c.reference, old, &orig, (new, &toks), span, seams)?;
    if !seams {
        return Ok(placed);
    }
    if near(errors, span) {
        return Err(Problem::Breaks);
    }
    let holder = |r: &Range<usize>| cut(&new[crate::engine::template::shape::holder(at, r)]);
    let holes = crate::engine::template::shape::holes(&c.reference, &placed);
    if let Some(h) = holes.iter().find(|h| !crate::engine::template::shape::whole(at, h)) {
        return Err(Problem::Loose { code: cut(&new[h.at.clone()]), holder: holder(&h.at) });
    }
    if let Some((r, was, now)) = crate::engine::template::shape::retyped(at, &c.reference, &placed, &c.kinds) {
        return Err(Problem::Retyped { code: cut(&new[r]), was, now });
    }
    let whole = crate::engine::template::shape::trimmed(new, span);
    if !whole.is_empty() && !crate::engine::template::shape::whole(at, &crate::engine::template::shape::Hole { at: whole.clone(), multi: !c.one_piece }) {
        return Err(Problem::Rebinds { code: cut(&new[whole.clone()]), holder: holder(&whole) });
    }
    if let Some((now, before)) = c.parent.and_then(|p| crate::engine::template::shape::rebound(at, &whole, p)) {
        return Err(Problem::Reparented { code: cut(&new[whole]), now, before });
    }
    if let Some(brk) = crate::engine::template::shape::bad_line_break(lang, at, new, span, &toks) {
        let line_start = memchr::memrchr(b'\n', &new.as_bytes()[..brk]).map_or(0, |k| k + 1);
        return Err(Problem::LineBreak { lang, line: cut(new[line_start..brk].trim()) });
    }
    if let Some((close, kind)) = crate::engine::template::strict::trailing_comma(at, new, span, (&holes, &spelled_commas(c, old, &placed)), &toks) {
        return Err(Problem::Comma { close, kind });
    }
    if let Some(rule) = crate::engine::template::strict::double_comma(lang, at, new, span, &toks)
        .or_else(|| crate::engine::template::strict::broken_rule(lang, at, new, span, &holes))
    {
        return Err(Problem::Compiler { rule });
    }
    Ok(placed)
}

/// Where the `,`s lie in the new text that the template itself writes right
/// before a closing bracket it writes (`None => 0,\n}`): what it means.
fn spelled_commas(c: &EditCheck, old: &str, placed: &Placed) -> Vec<usize> {
    let toks = &c.reference.toks;
    let own = |k: usize| toks.get(k).filter(|t| t.origin == crate::engine::layout::reference::Origin::Template).map(|t| c.reference.text(t, old));
    (0..toks.len())
        .filter(|&k| own(k) == Some(",") && matches!(own(k + 1), Some(")" | "]" | "}")))
        .filter_map(|k| placed.get(k)?.as_ref().map(|r| r.start))
        .collect()
}

/// `s` on one line, cut to 40 characters.
pub(crate) fn cut(s: &str) -> String {
    crate::shared::text::ellipsized(&crate::shared::text::one_line(s), 40)
}

/// True when `r` overlaps or touches (within a byte) one of `ranges`.
fn near(ranges: &[Range<usize>], r: &Range<usize>) -> bool {
    ranges.iter().any(|b| b.start <= r.end + 1 && r.start <= b.end + 1)
}

/// The edits of a file (`checks` parallel to `edits`) whose text fails the
/// template check, with why, and `aside()`, run beside the check (the
/// structure guard of the same text: `shared::beside`). `text` is the old file
/// (with its BOM, `bom` bytes), `tree` the tree of the new body `new`.
#[allow(clippy::too_many_arguments)]
pub(in crate::engine) fn failed<A: Send>(
    lang: SupportLang,
    text: &str,
    bom: usize,
    edits: &[Edit],
    checks: &[Option<EditCheck>],
    broken: &[Range<usize>],
    (new, tree): (&str, &tree_sitter::Tree),
    aside: impl FnOnce() -> A + Send,
) -> (A, Vec<(usize, Problem)>) {
    let old = &text[bom..];
    let all: Vec<usize> = (0..edits.len()).collect();
    let mut failed = Vec::new();
    let mut passed = Vec::new();
    let (a, verdicts) = judged(lang, old, (new, tree.root_node()), (edits, checks, bom), broken, &all, aside);
    for (i, j) in verdicts {
        match j {
            Ok(placed) => passed.push((i, placed)),
            Err(p) => failed.push((i, p)),
        }
    }
    failed.extend(outlines_differ(lang, old, (new, tree), (edits, checks, bom), broken, passed));
    failed.sort_by_key(|(i, _)| *i);
    (a, failed)
}

/// The template check's outcome for the edits that `failed` it: each is
/// written as ast-grep writes it when that passes; when neither passes the
/// edit keeps ast-grep's text and is reported as a mismatch. `tree` is the
/// tree of `new_text` (`changed`: its changed ranges, when it was re-parsed
/// incrementally). Returns the new text, its tree and changed ranges (one more
/// incremental parse when some edit fell back; `None` when none did, so all
/// three stand), and the report.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(in crate::engine) fn settle(
    lang: SupportLang,
    text: &str,
    bom: usize,
    edits: &mut [Edit],
    checks: &[Option<EditCheck>],
    broken: &[Range<usize>],
    (new_text, tree, changed): (&[u8], &tree_sitter::Tree, Option<&[Range<usize>]>),
    failed: Vec<(usize, Problem)>,
) -> (Option<(Vec<u8>, tree_sitter::Tree, Option<Vec<Range<usize>>>)>, TemplateOutcome) {
    let old = &text[bom..];
    let mut report = TemplateOutcome { checked: checks.iter().filter(|c| c.is_some()).count(), ..TemplateOutcome::default() };
    if failed.is_empty() {
        return (None, report);
    }
    let spans = new_spans(edits, bom);
    let mut swaps: Vec<Edit> = Vec::new();
    let mut swapped: Vec<(usize, Problem)> = Vec::new();
    let mut mismatches: Vec<(usize, Problem)> = Vec::new();
    for (i, p) in failed {
        match checks[i].as_ref().and_then(|c| c.verbatim.as_ref()) {
            Some(v) if *v != edits[i].text => {
                swaps.push(Edit { start: spans[i].start, end: spans[i].end, text: v.clone(), op: edits[i].op });
                swapped.push((i, p));
            }
            _ => mismatches.push((i, p)),
        }
    }
    let redone = if swaps.is_empty() {
        None
    } else {
        for (i, _) in &swapped {
            edits[*i].text = checks[*i].as_ref().and_then(|c| c.verbatim.clone()).expect("swapped edits have a verbatim text");
        }
        let text2 = splice(text.as_bytes(), edits);
        let (b1, b2) = (std::str::from_utf8(&new_text[bom..]).expect("UTF-8"), std::str::from_utf8(&text2[bom..]).expect("UTF-8"));
        let (tree2, changed2) = match reparse(tree.clone(), lang, b1, b2, &swaps, 0) {
            Some((t, c2)) => (t, changed.map(|c1| merge_changed(c1, &swaps, c2))),
            None => (crate::engine::parse::tree_after_edit_full(lang, b2), None),
        };
        let which: Vec<usize> = swapped.iter().map(|(i, _)| *i).collect();
        let still = failures(lang, old, (b2, tree2.root_node()), (edits, checks, bom), broken, &which);
        mismatches.extend(still);
        Some((text2, tree2, changed2))
    };
    let new = std::str::from_utf8(&redone.as_ref().map_or(new_text, |r| &r.0[..])[bom..]).expect("UTF-8");
    let spans = new_spans(edits, bom);
    mismatches.sort_by_key(|(i, _)| *i);
    let bad: Vec<usize> = mismatches.iter().map(|(i, _)| *i).collect();
    // A syntax error either way is the syntax check's to flag (ast-grep's
    // text is kept): neither a fallback nor a template mismatch.
    mismatches.retain(|(_, p)| *p != Problem::Breaks);
    for (i, p) in swapped.iter().filter(|(i, _)| !bad.contains(i)) {
        report.fallbacks += 1;
        if report.fell_back.len() < MAX_TEMPLATE_NOTES_LISTED {
            report.fell_back.push(TemplateNote { line: line_at(new, spans[*i].start), message: p.message() });
        }
    }
    report.mismatched = mismatches.len();
    for (i, p) in mismatches.iter().take(MAX_TEMPLATE_NOTES_LISTED) {
        report.mismatches.push(TemplateNote { line: line_at(new, spans[*i].start), message: p.message() });
    }
    (redone, report)
}

/// Check (d) (`engine/template/shape.rs`): the edits that `passed` the other checks
/// (with where their reference's tokens lie in `new`) whose minimal layout
/// differs from ast-grep's text, where ast-grep's text passes them too and
/// parses to another tree over the edit (a kept trailing `,` that makes a
/// tuple). ast-grep's texts are parsed once for the file, from `tree` (the tree
/// of `new`), and only when some edit's layout differs.
fn outlines_differ(
    lang: SupportLang,
    old: &str,
    (new, tree): (&str, &tree_sitter::Tree),
    (edits, checks, bom): (&[Edit], &[Option<EditCheck>], usize),
    broken: &[Range<usize>],
    passed: Vec<(usize, Placed)>,
) -> Vec<(usize, Problem)> {
    // The two texts have the same tokens but for kept comments (no node) and
    // trailing commas (bounded by check (f)), and a captured literal byte for
    // byte: only a line break can part their trees, and only in a language
    // that reads line breaks and has no rule of check (e) for them.
    if !crate::engine::template::shape::breaks_may_matter(lang) {
        return Vec::new();
    }
    let spans = new_spans(edits, bom);
    // Each with ast-grep's text. An edit near a syntax error of the original
    // was judged by (a) alone: its tree says nothing.
    let candidates: Vec<(usize, Placed, &String)> = passed
        .into_iter()
        .filter(|(i, _)| !near(broken, &(edits[*i].start - bom..edits[*i].end - bom)))
        .filter_map(|(i, placed)| checks[i].as_ref().and_then(|c| c.verbatim.as_ref()).filter(|v| **v != edits[i].text).map(|v| (i, placed, v)))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let swaps: Vec<Edit> = candidates.iter().map(|&(i, _, v)| Edit { start: spans[i].start, end: spans[i].end, text: v.clone(), op: edits[i].op }).collect();
    let alt = String::from_utf8(splice(new.as_bytes(), &swaps)).expect("edits keep UTF-8");
    let Some((alt_tree, _)) = reparse(tree.clone(), lang, new, &alt, &swaps, 0) else { return Vec::new() };
    let alt_root = alt_tree.root_node();
    let alt_errors = if alt_root.has_error() { crate::engine::syntax::error_spans(alt_root) } else { Vec::new() };
    let mut alt_ways = around::Descent::new(alt_root);
    let mut out = Vec::new();
    let mut shift: isize = 0;
    for (k, (i, mplaced, _)) in candidates.into_iter().enumerate() {
        let c = checks[i].as_ref().expect("a candidate has a check");
        let start = (swaps[k].start as isize + shift) as usize;
        shift += swaps[k].text.len() as isize - (swaps[k].end - swaps[k].start) as isize;
        let aspan = start..start + swaps[k].text.len();
        let Ok(vplaced) =
            judge(lang, c, old, edits[i].start - bom..edits[i].end - bom, (&alt, &alt_ways.to(wide(&aspan, alt.len()))), &aspan, broken, &alt_errors)
        else {
            continue;
        };
        let want = crate::engine::template::shape::outline(
            alt_root,
            &crate::engine::template::shape::trimmed(&alt, &aspan),
            &crate::engine::template::shape::holes(&c.reference, &vplaced),
        );
        let got = crate::engine::template::shape::outline(
            tree.root_node(),
            &crate::engine::template::shape::trimmed(new, &spans[i]),
            &crate::engine::template::shape::holes(&c.reference, &mplaced),
        );
        if let Some((want, got)) = crate::engine::template::shape::differ(&alt_tree.language(), &want, &got) {
            out.push((i, Problem::Outline { want, got }));
        }
    }
    crate::engine::parse::drop_later(alt_tree);
    out
}

/// The ranges of the final text whose structure may differ from the old
/// text's: `first` (changed ranges of the first new text against the old)
/// moved by `swaps` (edits of the first new text; a range that touches one
/// grows to hold it), and `second` (the changed ranges of the swaps' re-parse).
fn merge_changed(first: &[Range<usize>], swaps: &[Edit], second: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let map = |x: usize, end: bool| {
        let mut shift: isize = 0;
        for s in swaps {
            if x < s.start || (!end && x == s.start) {
                break;
            }
            if x <= s.end {
                // Inside (or at the edge of) a swapped edit: its new bounds.
                let base = (s.start as isize + shift) as usize;
                return if end { base + s.text.len() } else { base };
            }
            shift += s.text.len() as isize - (s.end - s.start) as isize;
        }
        (x as isize + shift) as usize
    };
    let mut out: Vec<Range<usize>> = first.iter().map(|r| map(r.start, false)..map(r.end, true)).collect();
    out.extend(second);
    out.extend(swaps.iter().scan(0isize, |shift, s| {
        let start = (s.start as isize + *shift) as usize;
        *shift += s.text.len() as isize - (s.end - s.start) as isize;
        Some(start..start + s.text.len())
    }));
    out.sort_by_key(|r| (r.start, r.end));
    out
}

/// Why an edit's new text does not say what its template says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Two tokens of the reference were written as (part of) one token of the
    /// new parse: `left` and `right` in `merged`.
    Glued { left: String, right: String, merged: String },
    /// The new text has `found` where the reference has `expected`.
    Differs { expected: String, found: String },
    /// A token of the captured code is no longer one token of the new parse.
    Split { token: String },
    /// A capture the template writes alone is no longer one piece of code
    /// (check (c)): the new tree reads `code` as part of `holder`.
    Loose { code: String, holder: String },
    /// The edit's text is not one piece of code in its place: the new tree
    /// reads `code` as part of `holder` (`await import(x).foo`).
    Rebinds { code: String, holder: String },
    /// A captured node is one node of another kind in place: `now` where it
    /// was `was` (an object read as a block).
    Retyped { code: String, was: String, now: String },
    /// The edit's new node is held by a `now` where the replaced node was held
    /// by a `before` (`await (a, b)`, which tree-sitter reads as a call of `await`).
    Reparented { code: String, now: String, before: String },
    /// The layout's tree differs from ast-grep's text's (check (d)).
    Outline { want: String, got: String },
    /// A line break where the language does not allow one (check (e)),
    /// ending the line `line`.
    LineBreak { lang: SupportLang, line: String },
    /// The edit's text holds a syntax error of the new tree.
    Breaks,
    /// A trailing `,` before `close` where it counts: it makes a `kind`.
    Comma { close: String, kind: String },
    /// A rule of the language's compiler that its tree-sitter grammar does
    /// not enforce (check (f), `engine/template/strict.rs`), in words.
    Compiler { rule: String },
}

/// One token of the new tree: its range and whether it is a comment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewTok {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) comment: bool,
    /// A string, character, regex or heredoc literal.
    pub(crate) literal: bool,
}

/// The tokens of the new tree (`root`) that overlap `span` widened by one byte,
/// in order.
pub(crate) fn new_tokens(at: &around::Around<'_, '_>, span: &Range<usize>) -> Vec<NewTok> {
    let mut out = Vec::new();
    let each = |n: tree_sitter::Node<'_>| {
        let comment = n.kind().contains("comment");
        out.push(NewTok { start: n.start_byte(), end: n.end_byte(), comment, literal: !comment && is_literal_kind(n.kind()) });
    };
    at.walk_atoms(span.start.saturating_sub(1)..span.end + 1, each);
    out
}

/// An edit's text `span` and a byte on each side (within the `len` bytes of
/// the text): the range whose way down the checks of the edit start from
/// (`around`).
fn wide(span: &Range<usize>, len: usize) -> Range<usize> {
    span.start.saturating_sub(1)..(span.end + 1).min(len)
}

/// Checks the edit whose new text is `new[span]` (offsets in the new body)
/// against `r`, the reference of the match `orig` of the old body `old`;
/// `toks` are [`new_tokens`] over `span`; `seams` asks for (b) too.
pub(crate) fn check(
    lang: SupportLang,
    r: &Reference,
    old: &str,
    orig: &Range<usize>,
    (new, toks): (&str, &[NewTok]),
    span: &Range<usize>,
    seams: bool,
) -> Result<Placed, Problem> {
    let n = &new.as_bytes()[..span.end];
    let original = &old[orig.clone()];
    // The new token that starts at `p`, if any (`toks` are sorted and disjoint).
    let starting_at = |p: usize| toks.get(toks.partition_point(|t| t.start < p)).copied().filter(|t| t.start == p);
    // A comment of the original kept inside the edit (it must end there too).
    let kept_comment = |p: usize| {
        starting_at(p).filter(|t| t.comment && t.end <= span.end && memchr::memmem::find(original.as_bytes(), &new.as_bytes()[t.start..t.end]).is_some())
    };
    // Blanks, line continuations too (`lexer::blank_len`).
    let skip_blank = |p: usize| p + crate::engine::layout::lexer::blank_len(n, p);
    // Where each reference token lies in the new text (`None`: an admitted
    // doubled `,` left out).
    let mut placed: Vec<Option<Range<usize>>> = Vec::with_capacity(r.toks.len());
    let mut p = span.start;
    for (i, t) in r.toks.iter().enumerate() {
        let want = r.text(t, old);
        // A token that starts with a blank (a string's part after a `${...}`
        // or `{...}`: `" (x)"`) is looked for where the last one ended, before
        // blanks are skipped.
        if want.starts_with(|c: char| c.is_ascii_whitespace()) && n[p.min(n.len())..].starts_with(want.as_bytes()) {
            placed.push(Some(p..p + want.len()));
            p += want.len();
            continue;
        }
        loop {
            p = skip_blank(p);
            if let Some(end) = eat(n, p, want.as_bytes()) {
                placed.push(Some(p..end));
                p = end;
                break;
            }
            let prev_comma = placed.last().is_some_and(|x| x.is_some()) && i > 0 && r.text(&r.toks[i - 1], old) == ",";
            if want == "," && prev_comma {
                // A capture ending in `,` meets the template's `,`: one is written.
                placed.push(None);
                break;
            }
            if n.get(p) == Some(&b',') && matches!(want, ")" | "]" | "}") && trailing_comma_before(original, want) {
                p += 1;
                continue;
            }
            if let Some(c) = kept_comment(p) {
                p = c.end;
                continue;
            }
            return Err(Problem::Differs { expected: want.to_string(), found: excerpt(new, p, span.end) });
        }
    }
    loop {
        p = skip_blank(p);
        match kept_comment(p) {
            Some(c) => p = c.end,
            _ => break,
        }
    }
    if p < span.end {
        return Err(Problem::Differs { expected: "nothing more".into(), found: excerpt(new, p, span.end) });
    }
    if !seams {
        return Ok(placed);
    }
    let inside = |x: usize| {
        let k = toks.partition_point(|t| t.start < x);
        k.checked_sub(1).map(|k| toks[k]).filter(|t| t.end > x)
    };
    // An edit inside one literal (a match on a string's content: `./foo` ->
    // `./foo.js`) has its ends and its seams inside that literal, as the match
    // had: (a) alone judges it.
    if span.start < span.end && inside(span.start).is_some_and(|t| t.literal && t.end > span.end) {
        return Ok(placed);
    }
    // A token of the new parse across the seam at `x`; two characters there
    // that the compiler's scanner reads as one token (`strict::glues`) are a
    // rule of check (f).
    let b = new.as_bytes();
    let across = |x: usize| -> Result<Option<Range<usize>>, Problem> {
        if let Some(t) = inside(x) {
            return Ok(Some(t.start..t.end));
        }
        if x > 0 && x < b.len() && crate::engine::template::strict::glues(lang, b[x - 1], b[x]) {
            return Err(Problem::Compiler { rule: format!("its scanner reads `{}` as one token", &new[x - 1..x + 1]) });
        }
        Ok(None)
    };
    let mut prev: Option<(usize, Range<usize>)> = None;
    for (i, at) in placed.iter().enumerate() {
        let Some(at) = at else { continue };
        let seam_needed = match prev {
            None => true,
            Some((j, _)) => !r.spelled_together(j, i),
        };
        if seam_needed {
            let left = prev.as_ref().map_or(at.start, |(_, b)| b.end);
            for x in [left, at.start] {
                if let Some(t) = across(x)? {
                    let left_text = prev.as_ref().map_or_else(String::new, |(j, _)| r.text(&r.toks[*j], old).to_string());
                    return Err(Problem::Glued { left: left_text, right: r.text(&r.toks[i], old).to_string(), merged: new[t].to_string() });
                }
            }
        }
        prev = Some((i, at.clone()));
    }
    match prev {
        Some((j, last)) => {
            if let Some(t) = across(last.end)? {
                return Err(Problem::Glued { left: r.text(&r.toks[j], old).to_string(), right: String::new(), merged: new[t].to_string() });
            }
        }
        // Nothing written (a deletion): the code on either side must not run
        // together.
        None => {
            if let Some(t) = across(span.start)? {
                return Err(Problem::Glued { left: String::new(), right: String::new(), merged: new[t].to_string() });
            }
        }
    }
    // Then each captured token whole: a token glued to the next one is said
    // above as the seam it lost. A run of captured tokens the original wrote
    // with nothing between them may be read as fewer tokens (Rust's `>` `>`
    // as `>>` in a macro), never cut elsewhere than between two of them.
    let mut i = 0;
    while i < placed.len() {
        let Some(at) = placed[i].clone().filter(|_| r.toks[i].origin == Origin::Capture) else {
            i += 1;
            continue;
        };
        let mut k = i;
        while k + 1 < placed.len() && placed[k + 1].is_some() && r.toks[k + 1].origin == Origin::Capture && r.spelled_together(k, k + 1) {
            k += 1;
        }
        // Each new token that starts at a token of the run ends where one of
        // the run's tokens ends.
        // A captured literal that holds code is several tokens of the parse:
        // they start at its start and none runs past its end.
        let end_of = |q: usize| placed[q].as_ref().map_or(0, |x| x.end);
        let mut m = i;
        while m <= k {
            let start = placed[m].as_ref().map_or(at.start, |x| x.start);
            let whole = if r.toks[m].holds_code {
                starting_at(start).is_some() && inside(end_of(m)).is_none()
            } else {
                match starting_at(start).and_then(|t| (m..=k).find(|&q| end_of(q) == t.end)) {
                    Some(last) => {
                        m = last + 1;
                        continue;
                    }
                    None => false,
                }
            };
            if !whole {
                return Err(Problem::Split { token: r.text(&r.toks[m], old).to_string() });
            }
            m += 1;
        }
        i = k + 1;
    }
    Ok(placed)
}

/// Where `want` ends when it is written at `p` of `n`: byte for byte, or, for a
/// block comment a capture brings (which ast-grep-core may re-indent), its
/// non-blank bytes in order. A literal's contents are its value: never
/// re-indented.
fn eat(n: &[u8], p: usize, want: &[u8]) -> Option<usize> {
    if n[p.min(n.len())..].starts_with(want) {
        return Some(p + want.len());
    }
    if !want.starts_with(b"/*") || !want.iter().any(u8::is_ascii_whitespace) {
        return None;
    }
    let mut q = p;
    for &b in want.iter().filter(|b| !b.is_ascii_whitespace()) {
        while q < n.len() && n[q].is_ascii_whitespace() {
            q += 1;
        }
        if n.get(q) != Some(&b) {
            return None;
        }
        q += 1;
    }
    Some(q)
}

/// True when `original` holds a `,` followed (past blanks) by `close`.
fn trailing_comma_before(original: &str, close: &str) -> bool {
    let b = original.as_bytes();
    memchr::memchr_iter(b',', b).any(|i| {
        let j = i + 1 + crate::engine::layout::lexer::blank_len(b, i + 1);
        b[j..].starts_with(close.as_bytes())
    })
}

/// The new text at `p`, up to 40 bytes and the line's end, for a message.
fn excerpt(new: &str, p: usize, end: usize) -> String {
    let mut e = end.min(p + 40).max(p);
    while !new.is_char_boundary(e) {
        e -= 1;
    }
    let s = &new[p.min(e)..e];
    s.split('\n').next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests;
