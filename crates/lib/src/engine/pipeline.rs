//! One file's rewrite, its steps called in order from [`run`] (docs/DESIGN.md
//! section 2.5): parse (`parse/`) -> match (`matching/`) -> layout (`layout/`:
//! the edits picked, nested rewrites folded in, line endings) -> the new text
//! re-parsed (`parse/`) -> template check (`template/`, with the structure
//! guard of the same text beside it) -> syntax check (`syntax/`) -> structure
//! guard (`structure/`).

use ast_grep_language::SupportLang;

use crate::compile::CompiledOp;
use crate::engine::layout::pick::{Overlap, Picked, pick};
use crate::engine::matching::{nested, scan};
use crate::engine::parse::{Parsed as ParsedFile, changed_since, drop_later, parse_for, tree_after_edit, tree_after_edit_full};
use crate::engine::template::{self, EditCheck, TemplateOutcome};
use crate::engine::{Edit, FindingAt, Rewrite, RewriteOptions, budget, is_crlf, splice, structure, syntax, to_crlf};

/// [`crate::engine::rewrite`], on the thread's meter.
pub(super) fn run(ops: &[&CompiledOp], lang: SupportLang, text: &str, opts: RewriteOptions) -> Option<Rewrite> {
    // 1. Parse, for the ops the literal prefilter leaves (none: not parsed).
    let ParsedFile { bom, body, grep, live } = match parse_for(ops, lang, text, opts.prefilter) {
        Ok(parsed) => parsed?,
        Err(why) => return Some(Rewrite::refused(text, why)),
    };
    // 2. Match.
    let found = scan::scan(&grep, &live, body, opts);
    if let Some(why) = found.stopped {
        drop_later(grep);
        return Some(Rewrite::refused(text, why));
    }
    // 3. Layout: which matches become edits, and each edit's text. With
    // thousands of edits whose layouts are ast-grep's texts (`Overlap`), the
    // new text is parsed whole on the helper thread while the layouts are
    // built, and what the checks need of the old tree is taken meanwhile
    // (step 4 but for the changed ranges).
    let crlf = is_crlf(text);
    let overlap = Overlap {
        // Not where the edits change after the pick (nested rewrites, CRLF
        // line ends) or nothing is checked.
        wanted: Box::new(|p: &Picked| !crlf && (!opts.rewrite_nested || p.dropped.is_empty()) && (opts.check_syntax || p.checks.iter().any(Option::is_some))),
        helper: Box::new(move |p: &Picked| {
            let spec = splice(text.as_bytes(), &p.kept);
            let tree = tree_after_edit_full(lang, std::str::from_utf8(&spec[bom..]).expect("edits keep UTF-8"));
            (spec, tree)
        }),
        main: Box::new(|p: &Picked| {
            let templated = p.checks.iter().any(Option::is_some);
            Prep::of(&grep, &p.kept, p.captures.clone(), bom, (opts.check_syntax, templated))
        }),
    };
    let (picked, ready) = match pick(&live, body, bom, found.diffs, (opts.verbatim, opts.check_syntax), Some(overlap)) {
        Ok(p) => p,
        Err(why) => {
            drop_later(grep);
            return Some(Rewrite::refused(text, why));
        }
    };
    let findings: Vec<FindingAt> = found
        .findings
        .iter()
        .map(|(k, nm)| FindingAt { rule: live[*k].index, start: nm.range().start + bom, message: live[*k].rule.get_message(nm) })
        .collect();
    // The fixes and messages are built from the matches: text on the meter.
    if let Some(why) = budget::spent() {
        drop_later(grep);
        return Some(Rewrite::refused(text, why));
    }
    let Picked { mut kept, mut checks, mut dropped, mut unparsed, captures } = picked;
    let mut nested_ops = Vec::new();
    if opts.rewrite_nested && !dropped.is_empty() {
        let before: Vec<usize> = kept.iter().map(|e| e.text.len()).collect();
        let texts: Vec<String> = kept.iter().map(|e| e.text.clone()).collect();
        match nested::rewrite_nested(&live, lang, text, bom, &mut kept, &mut dropped, opts).and_then(|folded| budget::spent().map_or(Ok(folded), Err)) {
            Ok(folded) => nested_ops = folded,
            Err(why) => {
                drop_later(grep);
                return Some(Rewrite::refused(text, why));
            }
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
        let broken = if opts.check_syntax { syntax::first_error_line(&grep) } else { None };
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
    unparsed.sort_unstable();
    let rewrite = Rewrite { overlaps: dropped.len(), dropped, nested: nested_ops, unparsed, findings, ..Rewrite::empty() };
    // 4 to 7: the new text, re-parsed and checked.
    let ready = ready.map(|(parsed, prep)| (prep, parsed));
    Some(checked(grep, lang, text, kept, (&checks, captures), bom, opts.check_syntax, ready, rewrite))
}

/// What the checks need of the old tree, taken before it is edited into the
/// new one: its syntax errors (`check_syntax`), the ranges of its ERROR and
/// MISSING nodes (`templated`: the template check) and the structure guard's
/// flattened tree around `edits` (`check_syntax`).
struct Prep {
    before: Vec<syntax::ErrorNode>,
    broken: Vec<std::ops::Range<usize>>,
    flat: Option<structure::Before>,
}

impl Prep {
    fn of(
        grep: &crate::engine::metered::Grep,
        edits: &[Edit],
        captures: Vec<Vec<structure::CapturedNodes>>,
        bom: usize,
        (check_syntax, templated): (bool, bool),
    ) -> Prep {
        let root = grep.root().get_inner_node().0;
        Prep {
            before: if check_syntax { syntax::tree_errors(grep) } else { Vec::new() },
            broken: if templated { syntax::error_spans(root) } else { Vec::new() },
            flat: check_syntax.then(|| structure::Before::of(root, edits, captures, bom)),
        }
    }
}

/// The new text and its tree, parsed whole beside the pick.
type Parsed = (Vec<u8>, tree_sitter::Tree);

/// The byte ranges of the new text whose structure changed: known from an
/// incremental re-parse, or found from the old tree told of the edits
/// ([`changed_since`]) the first time they are asked for, by the structure
/// guard beside the template check (off the file's path) or after it.
struct Changed {
    known: std::sync::OnceLock<Option<Vec<std::ops::Range<usize>>>>,
    /// The old tree, until then.
    old_tree: std::sync::Mutex<Option<tree_sitter::Tree>>,
}

impl Changed {
    fn known(changed: Option<Vec<std::ops::Range<usize>>>) -> Changed {
        Changed { known: std::sync::OnceLock::from(changed), old_tree: std::sync::Mutex::new(None) }
    }

    fn later(old_tree: tree_sitter::Tree) -> Changed {
        Changed { known: std::sync::OnceLock::new(), old_tree: std::sync::Mutex::new(Some(old_tree)) }
    }

    /// The ranges of `new_text` (whose tree is `new_tree`), made from the old
    /// body `old` (after `bom` bytes of BOM) by `edits`: the text and edits
    /// every caller holds, which stay as they were when the tree was parsed.
    fn get(&self, old: &str, (new_text, edits): (&[u8], &[Edit]), bom: usize, new_tree: &tree_sitter::Tree) -> Option<&[std::ops::Range<usize>]> {
        self.known
            .get_or_init(|| {
                let tree = self.old_tree.lock().unwrap_or_else(|p| p.into_inner()).take()?;
                Some(changed_since(tree, old, std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8"), edits, bom, new_tree))
            })
            .as_deref()
    }
}

/// Steps 4 to 7 of [`run`]: the new text of `text` (the old file, `bom` bytes
/// of BOM, parsed as `grep`) rewritten by `edits`, re-parsed; the template
/// check (for the edits with a check: it may put ast-grep's text in place of
/// an edit's minimal layout); when `check_syntax`, the syntax check (ERROR and
/// MISSING nodes before and after, the ones the rewrite adds located, the line
/// of the first one before) and the structure guard (`captures`: per edit,
/// what its template's metavariables captured). Fills in `rewrite`.
#[allow(clippy::too_many_arguments)]
fn checked(
    grep: crate::engine::metered::Grep,
    lang: SupportLang,
    text: &str,
    mut edits: Vec<Edit>,
    (checks, captures): (&[Option<EditCheck>], Vec<Vec<structure::CapturedNodes>>),
    bom: usize,
    check_syntax: bool,
    ready: Option<(Prep, Parsed)>,
    rewrite: Rewrite,
) -> Rewrite {
    let old = &text[bom..];
    let templated = checks.iter().any(Option::is_some);
    if edits.is_empty() || !(check_syntax || templated) {
        let broken_before = if check_syntax { syntax::first_error_line(&grep) } else { None };
        drop_later(grep);
        return Rewrite { new_text: splice(text.as_bytes(), &edits), edits, broken_before, ..rewrite };
    }
    // 4. The new text, re-parsed from the old tree, or parsed whole beside
    // the pick (`ready`: a whole parse of a text edited throughout is
    // cheaper than the incremental one, 0.2 s against 0.33 on 60,000 edited
    // lines) with its changed ranges from the old tree told of the edits.
    // What the checks need of the old tree is taken first: `Tree::edit`
    // moves its nodes. The template check changes the text of an edit,
    // never its range.
    let (Prep { before, broken, flat }, (new_text, new_tree, changed)) = match ready {
        Some((prep, (new_text, new_tree))) => {
            debug_assert_eq!(new_text, splice(text.as_bytes(), &edits), "the edits parsed beside the pick are these");
            let tree = grep.root().get_doc().tree.clone();
            drop(grep);
            let changed = Changed::later(tree);
            (prep, (new_text, new_tree, changed))
        }
        None => {
            let prep = Prep::of(&grep, &edits, captures, bom, (check_syntax, templated));
            // Keep only the tree: with no other reference to it, `Tree::edit`
            // changes its nodes in place instead of copying each node on the
            // way to an edit, and the source copy inside `grep` is freed
            // before the re-parse.
            let tree = grep.root().get_doc().tree.clone();
            drop(grep);
            let new_text = splice(text.as_bytes(), &edits);
            let (new_tree, changed) = tree_after_edit(tree, lang, old, std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8"), &edits, bom);
            (prep, (new_text, new_tree, Changed::known(changed)))
        }
    };
    // 7 (run beside 5): the structure guard of a new text (docs/DESIGN.md
    // section 2.5.10): its ERROR and MISSING nodes, and its structure against
    // the old tree's where it adds none (one that adds some is refused for its
    // syntax errors).
    let guard = |new_text: &[u8], tree: &tree_sitter::Tree, changed: Option<&[std::ops::Range<usize>]>, edits: &[Edit]| {
        let flat = flat.as_ref()?;
        let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
        let after = syntax::error_nodes(tree.root_node());
        let structure =
            if after.len() > before.len() { structure::Changes::default() } else { structure::compare(flat, old, tree.root_node(), new, edits, bom, changed) };
        Some((after, structure))
    };
    // 5. The template check reads the new tree only, so the guard of the
    // same text runs beside it; it runs again on the text the check settles
    // on when that differs (an edit written as ast-grep writes it).
    let (template, new_text, new_tree, guarded) = if templated {
        let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
        let (guarded, failed) = template::failed(lang, text, bom, &edits, checks, &broken, (new, &new_tree), || {
            guard(&new_text, &new_tree, changed.get(old, (&new_text, &edits), bom, &new_tree), &edits)
        });
        // Found before `settle` may change the edits' texts.
        let ranges = changed.get(old, (&new_text, &edits), bom, &new_tree);
        match template::settle(lang, text, bom, &mut edits, checks, &broken, (&new_text, &new_tree, ranges), failed) {
            (None, template) => (template, new_text, new_tree, guarded),
            (Some((text2, tree2, changed2)), template) => {
                drop_later(new_tree);
                let guarded = guard(&text2, &tree2, changed2.as_deref(), &edits);
                (template, text2, tree2, guarded)
            }
        }
    } else {
        let guarded = guard(&new_text, &new_tree, changed.get(old, (&new_text, &edits), bom, &new_tree), &edits);
        (TemplateOutcome::default(), new_text, new_tree, guarded)
    };
    drop_later(new_tree);
    let Some((after, structure)) = guarded else {
        return Rewrite { edits, new_text, template, ..rewrite };
    };
    // 6. The syntax check: the errors the rewrite adds.
    let new = std::str::from_utf8(&new_text[bom..]).expect("edits keep UTF-8");
    let syntax_errors = syntax::added(lang, &before, &after, (&edits, bom), new);
    Rewrite {
        edits,
        new_text,
        errors_before: before.len(),
        errors_after: after.len(),
        syntax_errors,
        broken_before: before.first().map(|e| e.row + 1),
        structure,
        template,
        ..rewrite
    }
}
