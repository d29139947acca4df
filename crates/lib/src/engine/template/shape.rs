//! What the template check (`engine/template/mod.rs`) asks of the new tree beyond its
//! tokens (docs/DESIGN.md §2.5.9, checks (c) to (e)): (c) each capture the template
//! writes alone is still one piece of code and the edit binds as one piece; (d) in a
//! language where a line break may change the tree and (e) has no rule
//! ([`breaks_may_matter`]), the minimal layout and ast-grep's text parse to the same
//! tree over the edit; (e) a line break is legal where it lands (Go, Python).

use std::ops::Range;

use ast_grep_language::SupportLang;
use tree_sitter::Node;

use crate::engine::template::around::Around;

use crate::engine::layout::reference::{Reference, is_atom};
use crate::engine::template::NewTok;

/// Node kinds whose children are a flat run of tokens (a Rust macro's token
/// tree): a capture moved into one is a run of them, not one node.
pub(crate) const FLAT: &[&str] = &["token_tree"];

/// True when `template`, parsed alone (its metavariables as names), is one
/// piece of code: one statement or expression, without a `$$$` run. Its edit
/// must then be one node in place, not a run of siblings (`$A, $B` is one
/// sequence expression, not two elements of the array it lands in).
pub(crate) fn one_piece(lang: SupportLang, template: &str) -> bool {
    use ast_grep_core::Language;
    use ast_grep_language::LanguageExt;
    if template.contains("$$$") || template.trim().is_empty() {
        return false;
    }
    let one = |text: &str| {
        let grep = lang.ast_grep(lang.pre_process_pattern(text));
        let root = grep.root().get_inner_node();
        let mut c = root.walk();
        !root.has_error() && root.named_children(&mut c).filter(|n| !n.is_extra()).count() == 1
    };
    // An expression alone is no statement in some grammars (Rust's `$A[0]`
    // wants its `;`).
    one(template) || one(&format!("{template};"))
}

/// A single capture of `r` (placed at `placed` in the tree `root`) that was a
/// node of a kind in `kinds` (by its start in the old body) and is no node of
/// that kind in place: where it lies, its old kind and its new one, in words.
/// A kind and its pattern form (`object`, `object_pattern`) are one.
pub(crate) fn retyped(
    around: &Around<'_, '_>,
    r: &Reference,
    placed: &[Option<Range<usize>>],
    kinds: &[(usize, String)],
) -> Option<(Range<usize>, String, String)> {
    if kinds.is_empty() {
        return None;
    }
    let base = |k: &str| k.trim_end_matches("_pattern").to_string();
    for g in r.groups.iter().filter(|g| !g.multi) {
        let first = r.toks.get(g.toks.start)?;
        let Some((_, was)) = kinds.iter().find(|(start, _)| *start == first.at.start) else { continue };
        let (Some(Some(a)), Some(Some(b))) = (placed.get(g.toks.start), placed.get(g.toks.end.checked_sub(1)?)) else { continue };
        let at = a.start..b.end;
        let Some(n) = around.holder_of(&at) else { continue };
        if n.start_byte() != at.start || n.end_byte() != at.end {
            continue; // not one node: check (c) says so
        }
        // `n` and the nodes that hold it, innermost first: one way down from
        // the root (each `parent()` is a way down of its own, so walking up
        // by it costs the square of the depth).
        let mut up = around.ancestors(at.clone());
        if up.last().map(|l| l.id()) != Some(n.id()) {
            up = std::iter::successors(Some(n), |p| p.parent()).collect();
            up.reverse();
        }
        if around.any_flat(&up) {
            continue; // a macro's tokens are no expression yet
        }
        up.reverse();
        let kinds_here: Vec<&str> = up.iter().take_while(|p| p.start_byte() == at.start && p.end_byte() == at.end).map(|p| p.kind()).collect();
        if !kinds_here.iter().any(|k| base(k) == base(was)) {
            let words = |k: &str| crate::shared::text::a(&k.replace('_', " "));
            return Some((at, words(was), words(kinds_here[0])));
        }
    }
    None
}

/// Where a capture the template writes alone lies in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hole {
    /// Its bytes, first token to last.
    pub(crate) at: Range<usize>,
    /// Written `$$$NAME`: it may be a run of nodes.
    pub(crate) multi: bool,
}

/// The holes of reference `r` in a text where its tokens were found at
/// `placed` (parallel to `r.toks`).
pub(crate) fn holes(r: &Reference, placed: &[Option<Range<usize>>]) -> Vec<Hole> {
    r.groups
        .iter()
        .filter_map(|g| {
            let first = placed.get(g.toks.start)?.as_ref()?;
            let last = placed.get(g.toks.end.checked_sub(1)?)?.as_ref()?;
            Some(Hole { at: first.start..last.end, multi: g.multi })
        })
        .collect()
}

/// Check (c): true when hole `h` is one piece of code in the tree `root`. A
/// hole inside one token (a string, a preprocessor line) is not judged: the
/// template glues it there.
pub(crate) fn whole(around: &Around<'_, '_>, h: &Hole) -> bool {
    if whole_as_written(around, h) {
        return true;
    }
    // Comments at its ends are nobody's: a grammar may hang them on the
    // node around (Go's block holds a comment after its `{`).
    let mut code = Vec::new();
    let each = |n: Node<'_>| {
        if !n.kind().contains("comment") && n.start_byte() >= h.at.start && n.end_byte() <= h.at.end {
            code.push(n.byte_range());
        }
    };
    around.walk_atoms(h.at.clone(), each);
    match (code.first(), code.last()) {
        (Some(a), Some(b)) if (a.start..b.end) != h.at => whole_as_written(around, &Hole { at: a.start..b.end, multi: h.multi }),
        _ => false,
    }
}

/// [`whole`] for `h` as it lies.
fn whole_as_written(around: &Around<'_, '_>, h: &Hole) -> bool {
    let Some(n) = around.holder_of(&h.at) else { return false };
    if n.start_byte() == h.at.start && n.end_byte() == h.at.end {
        return true;
    }
    if n.start_byte() == h.at.start && n.end_byte() > h.at.end && only_comments(n, h.at.end..n.end_byte()) {
        // A node that ends in the comment after the code (`if not x: raise
        // E  # note`, whose block holds the comment).
        return true;
    }
    if n.start_byte() <= h.at.start && h.at.end <= n.end_byte() && is_atom(n) {
        return true;
    }
    let flat = FLAT.contains(&n.kind());
    if !(h.multi || flat) {
        return false;
    }
    // A run of `n`'s children, first to last, items apart: outside a token
    // tree, no operator among them (`g(a) in x + y == 3` is not the run
    // `g(a) in x + y` of a chain).
    let mut c = n.walk();
    if c.goto_first_child_for_byte(h.at.start).is_none() || c.node().start_byte() != h.at.start {
        return false;
    }
    loop {
        let k = c.node();
        if !flat && !k.is_named() && !k.is_extra() && !matches!(k.kind(), "," | ";") {
            return false;
        }
        if k.end_byte() >= h.at.end {
            return k.end_byte() == h.at.end;
        }
        if !c.goto_next_sibling() {
            return false;
        }
    }
}

/// True when the tokens of `n` in `range` are all comments.
fn only_comments(n: Node<'_>, range: Range<usize>) -> bool {
    let mut all = true;
    crate::engine::layout::reference::atoms_in(n, range, |t| all &= t.kind().contains("comment"));
    all
}

/// The bytes of the smallest node of `root` that holds `at` (what a hole that
/// is not [`whole`] became part of).
pub(crate) fn holder(around: &Around<'_, '_>, at: &Range<usize>) -> Range<usize> {
    around.holder_of(at).map_or(at.clone(), |n| n.byte_range())
}

/// Kinds (by a part of their name) of nodes that bind their children tightly:
/// calls, member access, operators. A node moved under one, or out of one,
/// binds otherwise.
const BINDING: &[&str] = &[
    "call",
    "member",
    "attribute",
    "field",
    "binary",
    "unary",
    "await",
    "comparison",
    "boolean",
    "not_operator",
    "subscript",
    "index",
    "try",
    "selector",
    "new_expression",
    "update",
    "cast",
];

/// True when `kind` binds its children tightly ([`BINDING`]).
fn binds(kind: &str) -> bool {
    BINDING.iter().any(|k| kind.contains(k))
}

/// The kind of the node that holds `node`'s outermost same-range node.
pub(crate) fn held_by(node: Node<'_>) -> Option<u16> {
    let mut n = node;
    loop {
        let p = n.parent()?;
        if p.byte_range() != n.byte_range() {
            return Some(p.kind_id());
        }
        n = p;
    }
}

/// Where the edit's new code `at` (one node of `root`) is held by a node of
/// another kind than `before` held the replaced code, and either binds
/// tightly: the two kinds' names, each after its article.
pub(crate) fn rebound(around: &Around<'_, '_>, at: &Range<usize>, before: u16) -> Option<(String, String)> {
    let chain = around.ancestors(at.clone());
    let mut k = chain.len().checked_sub(1)?;
    if chain[k].byte_range() != *at {
        return None;
    }
    while k > 0 && chain[k - 1].byte_range() == *at {
        k -= 1;
    }
    let now = chain.get(k.checked_sub(1)?)?;
    let lang = around.root().language();
    let before_kind = lang.node_kind_for_id(before)?;
    (now.kind_id() != before && (binds(now.kind()) || binds(before_kind)))
        .then(|| (crate::shared::text::a(&now.kind().replace('_', " ")), crate::shared::text::a(&before_kind.replace('_', " "))))
}

/// One step of a tree's outline over an edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// A named node starts (its kind id).
    Open(u16),
    /// The last opened node ends.
    Close,
    /// The `k`-th hole, whole.
    Hole(usize),
}

impl Item {
    fn words(self, lang: &tree_sitter::Language) -> String {
        match self {
            Item::Open(k) => crate::shared::text::a(&lang.node_kind_for_id(k).unwrap_or("node").replace('_', " ")),
            Item::Close => "the end of a node".to_string(),
            Item::Hole(_) => "captured code".to_string(),
        }
    }
}

/// Check (d): the outline of the tree `root` over `span` (its blanks trimmed
/// by the caller): from the smallest named node that holds the span, in
/// pre-order, the named nodes that overlap it, comments left out, each hole
/// one [`Item::Hole`]. Iterative: a deep capture that is not whole costs its
/// size, not the stack.
pub(crate) fn outline(root: Node<'_>, span: &Range<usize>, holes: &[Hole]) -> Vec<Item> {
    let mut out = Vec::new();
    let Some(top) = root.named_descendant_for_byte_range(span.start, span.end) else { return out };
    let mut stack: Vec<(Vec<Node<'_>>, usize, bool)> = vec![(vec![top], 0, false)];
    while let Some((nodes, next, open)) = stack.last_mut() {
        if *next == nodes.len() {
            if *open {
                out.push(Item::Close);
            }
            stack.pop();
            continue;
        }
        let n = nodes[*next];
        *next += 1;
        if n.is_extra() || n.start_byte() == n.end_byte() {
            continue;
        }
        if let Some(k) = holes.iter().position(|h| h.at.start == n.start_byte() && h.at.end == n.end_byte()) {
            out.push(Item::Hole(k));
            continue;
        }
        // A run of siblings that is a hole.
        if let Some(k) = holes.iter().position(|h| h.at.start == n.start_byte() && n.end_byte() < h.at.end) {
            let end = holes[k].at.end;
            if let Some(j) = (*next..nodes.len()).find(|&j| nodes[j].end_byte() >= end).filter(|&j| nodes[j].end_byte() == end) {
                out.push(Item::Hole(k));
                *next = j + 1;
                continue;
            }
        }
        let named = n.is_named();
        if named {
            out.push(Item::Open(n.kind_id()));
        }
        let mut kids = Vec::new();
        let mut c = n.walk();
        if c.goto_first_child_for_byte(span.start).is_some() {
            loop {
                let k = c.node();
                if k.start_byte() >= span.end {
                    break;
                }
                kids.push(k);
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
        stack.push((kids, 0, named));
    }
    out
}

/// The first place two outlines differ, in words: what `want` (ast-grep's
/// text) has there, and what `got` (the layout) has, in `lang`'s words.
pub(crate) fn differ(lang: &tree_sitter::Language, want: &[Item], got: &[Item]) -> Option<(String, String)> {
    let i = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    if i == want.len() && i == got.len() {
        return None;
    }
    let say = |x: Option<&Item>| x.map_or_else(|| "nothing more".to_string(), |x| x.words(lang));
    Some((say(want.get(i)), say(got.get(i))))
}

/// `span` of `text` without the blanks at its ends.
pub(crate) fn trimmed(text: &str, span: &Range<usize>) -> Range<usize> {
    let b = text.as_bytes();
    let (mut s, mut e) = (span.start, span.end.min(b.len()));
    while s < e && b[s].is_ascii_whitespace() {
        s += 1;
    }
    while e > s && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    s..e
}

/// True when a line break may change the tree in `lang` and check (e) has no
/// rule for it (JavaScript's automatic semicolons, Kotlin's line ends): there
/// check (d) compares the layout's tree with ast-grep's text's.
pub(crate) fn breaks_may_matter(lang: SupportLang) -> bool {
    matches!(lang, SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx | SupportLang::Kotlin)
}

/// Go's keywords that end a line with an inserted `;` (the Go spec, "Semicolons").
const GO_ENDING_KEYWORDS: &[&str] = &["break", "continue", "fallthrough", "return"];
const GO_KEYWORDS: &[&str] = &[
    "break",
    "default",
    "func",
    "interface",
    "select",
    "case",
    "defer",
    "go",
    "map",
    "struct",
    "chan",
    "else",
    "goto",
    "package",
    "switch",
    "const",
    "fallthrough",
    "if",
    "range",
    "type",
    "continue",
    "for",
    "import",
    "return",
    "var",
];
/// Go nodes whose children a `;` may separate.
const GO_LISTS: &[&str] = &[
    "source_file",
    "block",
    "statement_list",
    "expression_case",
    "default_case",
    "type_case",
    "communication_case",
    "field_declaration_list",
    "interface_type",
    "import_spec_list",
    "const_declaration",
    "var_declaration",
    "var_spec_list",
    "type_declaration",
    "expression_switch_statement",
    "type_switch_statement",
    "select_statement",
];
/// Python nodes whose children a line break may separate.
const PY_LISTS: &[&str] = &["module", "block", "decorated_definition"];
/// Python nodes that may start a line inside a compound statement.
const PY_LINE_STARTS: &[&str] = &["block", "else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause", "case_clause"];

/// True when Go inserts a `;` after `tok` at a line's end.
fn go_ends_line(tok: &str) -> bool {
    let Some(last) = tok.chars().last() else { return false };
    if tok.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return GO_ENDING_KEYWORDS.contains(&tok) || !GO_KEYWORDS.contains(&tok);
    }
    matches!(last, ')' | ']' | '}' | '"' | '\'' | '`') || tok == "++" || tok == "--" || last.is_ascii_digit()
}

/// Check (e): the offset of the first line break over `span` of `new` (its
/// tree `root`, its tokens `toks` from [`crate::engine::template::new_tokens`]) that
/// is not legal where it lands in `lang`, if any.
pub(crate) fn bad_line_break(lang: SupportLang, around: &Around<'_, '_>, new: &str, span: &Range<usize>, toks: &[NewTok]) -> Option<usize> {
    if !matches!(lang, SupportLang::Go | SupportLang::Python) {
        return None;
    }
    let code: Vec<&NewTok> = toks.iter().filter(|t| !t.comment).collect();
    let (Some(first), Some(last)) = (code.first(), code.last()) else { return None };
    // The way down to the tokens, once: each line break's way goes on from
    // there (a method body's many line breaks do not each start at the root).
    let top = around.ancestors(first.start..last.end);
    let chain = |r: Range<usize>| crate::engine::template::around::descend(&top, r);
    // Bracket depth relative to the first token: a line break inside brackets
    // the edit opened is legal in both languages.
    let mut depth: isize = 0;
    for w in code.windows(2) {
        let (a, b) = (w[0], w[1]);
        match &new[a.start..a.end] {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        if a.end < span.start || b.start > span.end {
            continue;
        }
        let gap = &new[a.end..b.start];
        let Some(nl) = gap.find('\n') else { continue };
        let at = a.end + nl;
        let legal = match lang {
            SupportLang::Go => !go_ends_line(&new[a.start..a.end]) || chain(a.start..b.end).last().is_some_and(|n| GO_LISTS.contains(&n.kind())),
            _ => {
                depth > 0 || gap.contains("\\\n") || gap.contains("\\\r\n") || {
                    let between = chain(a.start..b.end);
                    in_brackets(&between, a, b)
                        || between.last().is_some_and(|n| PY_LISTS.contains(&n.kind()))
                        || chain(b.start..b.end).iter().any(|n| n.start_byte() == b.start && PY_LINE_STARTS.contains(&n.kind()))
                }
            }
        };
        if !legal {
            return Some(at);
        }
    }
    None
}

/// True when a node of `chain` (the nodes holding tokens `a` and `b`) opens a
/// bracket before `a`'s end and closes it after `b`'s start.
fn in_brackets(chain: &[Node<'_>], a: &NewTok, b: &NewTok) -> bool {
    chain.iter().any(|n| {
        let k = n.child_count();
        if k < 2 {
            return false;
        }
        let (first, last) = (n.child(0).expect("a first child"), n.child(k - 1).expect("a last child"));
        matches!(first.kind(), "(" | "[" | "{") && matches!(last.kind(), ")" | "]" | "}") && first.end_byte() <= a.end && last.start_byte() >= b.start
    })
}
