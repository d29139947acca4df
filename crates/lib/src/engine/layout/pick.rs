//! The pick: which matches of a file become edits (the outermost wins, the
//! rest are counted as overlaps; docs/DESIGN.md section 2.5.2), each edit's
//! text (ast-grep's, or the minimal layout), its bound, and what the template
//! check and the structure guard need of it.

use std::collections::HashMap;

use ast_grep_core::matcher::NodeMatch;
use ast_grep_core::replacer::Replacer;

use crate::compile::{self, CompiledOp};
use crate::engine::layout::{captures, minimal, reference, spelling};
use crate::engine::metered::Metered;
use crate::engine::template::{self, shape};
use crate::engine::{Edit, replacement_budget, structure};
use crate::request::read::SkipReason;

/// The edits kept from a file's matches, and what was left.
pub(in crate::engine) struct Picked {
    pub(in crate::engine) kept: Vec<Edit>,
    /// Parallel to `kept`: what the template check needs of each edit (`None`
    /// for a deletion, in a language without a lexer, or under `verbatim`
    /// when nothing is checked).
    pub(in crate::engine) checks: Vec<Option<template::EditCheck>>,
    pub(in crate::engine) dropped: Vec<crate::engine::Dropped>,
    pub(in crate::engine) unparsed: Vec<usize>,
    /// Per kept edit, what its template's metavariables captured (for the
    /// structure guard; `engine/layout/captures.rs`).
    pub(in crate::engine) captures: Vec<Vec<structure::CapturedNodes>>,
}

/// Picks the edits as `ast-grep scan -U` does: the fixable matches in walk order
/// (pre-order; at one node, the rules in their order), each replacing the range
/// its fixer gives (`expandStart`/`expandEnd` honoured), kept when it starts at
/// or after the end of the last kept edit; the others are dropped and counted. A
/// replacement is built only for a match that is kept: building one for every
/// nested match would cost the sum of their sizes, quadratic in the nesting depth
/// (80,000 nested parentheses took 6.6 GB that way; `tests/it/limits.rs`).
///
/// Our differences (docs/DESIGN.md section 2.5): a match around an ERROR node is
/// left alone and reported, and a replacement equal to the text it replaces is no
/// edit and does not hide the matches inside it. Unless `verbatim`, the
/// replacement is the minimal rewrite (`engine/layout/minimal.rs`, section 2.5.9), so
/// one that only re-creates the matched code is no edit either; `judged`: each
/// edit gets what the template check needs, in either layout. `Err` is the
/// reason to skip the file: its replacements would exceed [`replacement_budget`].
pub(in crate::engine) fn pick<H: Send, M>(
    live: &[&CompiledOp],
    body: &str,
    bom: usize,
    diffs: Vec<(usize, NodeMatch<'_, Metered>)>,
    (verbatim, judged): (bool, bool),
    overlap: Option<Overlap<'_, H, M>>,
) -> std::result::Result<(Picked, Option<(H, M)>), SkipReason> {
    // Many edits: their minimal layouts are built on two threads
    // (`shared::beside`) after the walk over the matches has settled which
    // are kept, as it does when each layout differs from the code it
    // replaces. One that does not (a template that only re-spells the
    // matched code) changes which matches are kept after it: then the walk
    // is done again with each layout built in turn. The matches are kept
    // for that walk meanwhile, so only where few are nested in others (a
    // nest of thousands is walked once, each match freed as it is passed).
    if verbatim || diffs.len() < crate::shared::beside::MIN_ITEMS || !few_nested(&diffs) {
        return Ok((walk(live, body, bom, diffs, (verbatim, judged), false)?.picked, None));
    }
    let walked = walk(live, body, bom, &diffs, (verbatim, judged), true)?;
    match settle(body, bom, walked, overlap) {
        Some(settled) => Ok(settled),
        None => Ok((walk(live, body, bom, diffs, (verbatim, judged), false)?.picked, None)),
    }
}

/// Jobs run beside the minimal layouts of a large pick, given its edits
/// with ast-grep's texts (and what else it picked), when `wanted` says so
/// and the first layouts are ast-grep's texts (so most are: a run of code
/// edited alike): `helper` on the helper thread, from the start, and
/// `main` on the calling thread before it builds its share of the layouts.
/// Their results are given back only when every layout is ast-grep's text,
/// so that the edits are those the jobs were given.
pub(in crate::engine) struct Overlap<'a, H, M> {
    pub(in crate::engine) wanted: Box<dyn Fn(&Picked) -> bool + 'a>,
    pub(in crate::engine) helper: Box<dyn FnOnce(&Picked) -> H + Send + 'a>,
    pub(in crate::engine) main: Box<dyn FnOnce(&Picked) -> M + 'a>,
}

/// Layouts [`settle`] builds in turn before it decides whether to run an
/// [`Overlap`]'s jobs.
const FIRST_LAYOUTS: usize = 256;

/// True when at most one match in eight starts inside a match before it.
fn few_nested(diffs: &[(usize, NodeMatch<'_, Metered>)]) -> bool {
    let (mut end, mut nested) = (0, 0);
    for (_, nm) in diffs {
        let r = nm.range();
        nested += usize::from(r.start < end);
        end = end.max(r.end);
    }
    nested * 8 <= diffs.len()
}

/// A kept edit whose minimal layout is built after the walk: ast-grep's text
/// `out` for the match of `node` at `range` (of the body), from op `op`'s
/// template.
struct Deferred<'t> {
    node: tree_sitter::Node<'t>,
    range: std::ops::Range<usize>,
    out: String,
    op: usize,
    lang: ast_grep_language::SupportLang,
}

/// What [`walk`] picked, with the edits whose minimal layout is still to be
/// built (`deferred`, each with its place in `picked.kept`).
struct Walked<'t> {
    picked: Picked,
    deferred: Vec<(usize, Deferred<'t>)>,
    /// Per op index: its first template, the names its transform defines,
    /// the seams its patterns spell, and whether it is one piece of code.
    templates: HashMap<usize, Template>,
    lines: Option<crate::shared::text::Breaks>,
    root: Option<tree_sitter::Node<'t>>,
}

/// An op's template, read once per file: its text, the names its
/// `transform` defines, the seams its patterns spell, one piece of code.
type Template = (String, Vec<String>, spelling::Spelling, bool);

/// The walk over the matches of [`pick`]. With `defer`, the minimal layout
/// of an edit that is not a deletion is left to [`settle`] (it keeps the
/// range; only its text is built), and the edit is taken as kept.
fn walk<'t, M: std::borrow::Borrow<(usize, NodeMatch<'t, Metered>)>>(
    live: &[&CompiledOp],
    body: &str,
    bom: usize,
    diffs: impl IntoIterator<Item = M>,
    (verbatim, judged): (bool, bool),
    defer: bool,
) -> std::result::Result<Walked<'t>, SkipReason> {
    let mut kept: Vec<Edit> = Vec::new();
    let mut checks = Vec::new();
    let mut templates: HashMap<usize, Template> = HashMap::new();
    let mut dropped = Vec::new();
    let mut unparsed = Vec::new();
    let mut captured = Vec::new();
    let mut deferred = Vec::new();
    // Per op, the metavariables its template writes, read at its first kept match.
    let mut vars: Vec<Option<Vec<captures::TemplateVar>>> = vec![None; live.len()];
    let mut last_end = 0;
    let budget = replacement_budget(body.len() + bom);
    let mut built = 0usize;
    let over = || SkipReason::ReplacementTooLarge { budget };
    // The line breaks of the file, found once for all its edits.
    let mut lines: Option<crate::shared::text::Breaks> = None;
    // The ways down the old tree to the kept matches, in order, each going on
    // from the last (`template::around`): what holds each matched node.
    let mut ways: Option<template::around::Descent<'t>> = None;
    let mut root = None;
    for m in diffs {
        let (k, nm) = m.borrow();
        let (k, op) = (*k, live[*k]);
        let Some(fixer) = op.fixer() else { continue };
        let node = nm.get_node();
        if node.get_inner_node().0.has_error() {
            // A match around an ERROR node: ast-grep rewrites it and loses the
            // text no metavariable covers (a `)`, say). Leave it, report it.
            unparsed.push(node.range().start + bom);
            continue;
        }
        let range = fixer.get_replaced_range(nm, &op.rule.matcher);
        if let Some(k) = kept.last().filter(|_| range.start + bom < last_end) {
            // Inside or across a kept edit: counted, never built.
            let same = range.start + bom == k.start && range.end + bom == k.end;
            dropped.push(crate::engine::Dropped { lost: op.index, won: k.op, at: node.range().start + bom, same });
            continue;
        }
        if let Some(bound) = &op.fix_bound
            && built.saturating_add(replacement_bound(bound, body, range.start, range.end)) > budget
        {
            return Err(over());
        }
        let text = String::from_utf8(fixer.generate_replacement(nm)).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        built += text.len();
        if built > budget {
            return Err(over());
        }
        // The reference tells the minimal layout which tokens the template
        // spells, and the template check what the edit must say. An identity
        // is no edit (below) and needs none: building one for each of many
        // nested identities would cost the square of their depth. Under
        // `verbatim` ast-grep's text is judged too (when `judged`): it cannot
        // fall back, so an edit that fails is flagged.
        let identity = text.as_bytes() == &body.as_bytes()[range.clone()];
        // Read once per op, and only where a template is read at all (not
        // for ast-grep's text unchecked: search hits, scan reports).
        let read = (!verbatim || judged).then(|| {
            &*templates.entry(op.index).or_insert_with(|| {
                let (template, transformed) = (first_template(op), transform_names(op));
                // A transform's text (a rewriter's statements joined) may be
                // any number of pieces.
                let one = !transformed.iter().any(|t| template.contains(&format!("${t}"))) && shape::one_piece(op.rule.language, &template);
                (template, transformed, spelling::Spelling::of(op.rule.language, &node_patterns(op)), one)
            })
        });
        let reference = match read {
            Some((template, transformed, ..)) if !identity => reference::build(op.rule.language, template, transformed, nm, body),
            _ => None,
        };
        let one_piece = read.is_some_and(|r| r.3);
        let inner = node.get_inner_node().0;
        root.get_or_insert_with(|| node.root().root().get_inner_node().0);
        let mut held_by = || {
            let ways = ways.get_or_insert_with(|| template::around::Descent::new(node.root().root().get_inner_node().0));
            ways.to(node.range()).held_by().unwrap_or_else(|| shape::held_by(inner))
        };
        let (range, text, check) = if verbatim {
            let parent = (node.range() == range).then(&mut held_by).flatten();
            let check = reference.map(|reference| template::EditCheck { reference, verbatim: None, parent, one_piece, kinds: Vec::new() });
            (range, text, check)
        } else if defer && !identity && !text.is_empty() {
            // Built by `settle`: the range stays, the text and the parent
            // come later.
            deferred.push((kept.len(), Deferred { node: inner, range: range.clone(), out: text.clone(), op: op.index, lang: op.rule.language }));
            let check = reference.map(|reference| template::EditCheck { reference, verbatim: None, parent: None, one_piece, kinds: Vec::new() });
            (range, text, check)
        } else {
            let (template, _, spelling, _) = read.expect("the minimal layout reads its template");
            let floor = last_end.saturating_sub(bom);
            let out = text.clone();
            let lines = lines.get_or_insert_with(|| crate::shared::text::Breaks::of(body));
            let (range, new) = minimal::edit(op.rule.language, inner, (body, lines), (range, text, template), floor, (reference.as_ref(), spelling));
            let parent = (node.range() == range).then(&mut held_by).flatten();
            let check =
                reference.map(|reference| template::EditCheck { reference, verbatim: (out != new).then_some(out), parent, one_piece, kinds: Vec::new() });
            (range, new, check)
        };
        // A match the rewrite leaves as it is changes nothing and must not
        // shadow the matches nested in it.
        if text.as_bytes() == &body.as_bytes()[range.clone()] {
            continue;
        }
        last_end = range.end + bom;
        kept.push(Edit { start: range.start + bom, end: range.end + bom, text, op: op.index });
        let these: &[captures::TemplateVar] = vars[k].get_or_insert_with(|| captures::template_vars(op));
        let mut check = check;
        if let Some(c) = check.as_mut() {
            c.kinds = captures::kinds(nm, these);
        }
        checks.push(check);
        captured.push(captures::of(nm, these, bom));
    }
    let picked = Picked { kept, checks, dropped, unparsed, captures: captured };
    Ok(Walked { picked, deferred, templates, lines, root })
}

/// The minimal layouts [`walk`] left, built on two threads, and the parent
/// of each edit's node, as the walk builds them in turn; with an
/// [`Overlap`]'s results. `None` when one layout re-creates the code it
/// replaces: that edit is no edit, and the matches after it are picked
/// otherwise (the caller walks again).
fn settle<H: Send, M>(body: &str, bom: usize, walked: Walked<'_>, overlap: Option<Overlap<'_, H, M>>) -> Option<(Picked, Option<(H, M)>)> {
    let Walked { mut picked, deferred, templates, lines, root } = walked;
    let (Some(root), false) = (root, deferred.is_empty()) else { return Some((picked, None)) };
    let lines = lines.unwrap_or_else(|| crate::shared::text::Breaks::of(body));
    let checks = &picked.checks;
    let build = |ways: &mut template::around::Descent<'_>, (i, d): &(usize, Deferred<'_>)| {
        let (template, _, spelling, _) = &templates[&d.op];
        let reference = checks[*i].as_ref().map(|c| &c.reference);
        let (range, new) = minimal::edit(d.lang, d.node, (body, &lines), (d.range.clone(), d.out.clone(), template), 0, (reference, spelling));
        debug_assert_eq!(range, d.range, "a minimal layout keeps the range of an edit that is no deletion");
        let parent = (d.node.byte_range() == range).then(|| ways.to(range.clone()).held_by().unwrap_or_else(|| shape::held_by(d.node))).flatten();
        (new, parent)
    };
    let first = deferred.len().min(FIRST_LAYOUTS);
    let mut ways = template::around::Descent::new(root);
    let mut built: Vec<(String, Option<u16>)> = deferred[..first].iter().map(|d| build(&mut ways, d)).collect();
    let alike = built.iter().zip(&deferred).all(|((new, _), (_, d))| *new == d.out);
    let overlap = overlap.filter(|o| alike && (o.wanted)(&picked));
    let (jobs, rest) = match overlap {
        Some(Overlap { helper, main, .. }) => {
            let (h, m, rest) =
                crate::shared::beside::beside_with(&deferred[first..], || helper(&picked), || main(&picked), || template::around::Descent::new(root), build);
            (Some((h, m)), rest)
        }
        None => (None, crate::shared::beside::beside(&deferred[first..], || (), || template::around::Descent::new(root), build).1),
    };
    built.extend(rest);
    let mut alike = true;
    for ((i, d), (new, parent)) in deferred.into_iter().zip(built) {
        if new.as_bytes() == &body.as_bytes()[d.range.clone()] {
            return None;
        }
        alike &= new == d.out;
        if let Some(c) = picked.checks[i].as_mut() {
            c.parent = parent;
            c.verbatim = (d.out != new).then_some(d.out);
        }
        debug_assert_eq!(picked.kept[i].start, d.range.start + bom);
        picked.kept[i].text = new;
    }
    Some((picked, jobs.filter(|_| alike)))
}

/// The first template of `op`'s fix: the one ast-grep's fixer uses.
pub(in crate::engine) fn first_template(op: &CompiledOp) -> String {
    match serde_json::to_value(&op.rule.fix) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(o)) => o.get("template").and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        Ok(serde_json::Value::Array(a)) => a.first().and_then(|f| f.get("template")).and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// The patterns `op`'s rule matches its node with (not those of `inside`,
/// `not`, `any`, ...): their seams are not respelled by its template.
pub(in crate::engine) fn node_patterns(op: &CompiledOp) -> Vec<String> {
    let Ok(core) = serde_json::to_value(&op.rule.core) else { return Vec::new() };
    crate::request::ruleset::patterns(&core)
        .into_iter()
        .filter(|(_, need)| *need == crate::request::ruleset::Need::InNode)
        .map(|(p, _)| p.text.to_string())
        .collect()
}

/// The names `op`'s `transform` defines.
pub(in crate::engine) fn transform_names(op: &CompiledOp) -> Vec<String> {
    op.rule.transform.as_ref().map(|t| t.keys().cloned().collect()).unwrap_or_default()
}

/// At least the length of `op`'s replacement of the match at `start..end` of
/// `body` ([`compile::FixBound::at_most`]): the match's length and line breaks,
/// and the indentation of its line.
pub(in crate::engine) fn replacement_bound(bound: &compile::FixBound, body: &str, start: usize, end: usize) -> usize {
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
