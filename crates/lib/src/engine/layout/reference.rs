//! The reference of an edit (docs/DESIGN.md §2.5.9): what its template says, token by
//! token. The fix template is cut by the layout lexer (`engine/layout/lexer.rs`), each
//! metavariable replaced by its capture's tokens from the old tree; a token where the
//! template glues text to a capture (`get_$NAME`, `"$A"`, `$A$B`) is **joined**, one
//! token with no seam inside. The template check (`engine/template/mod.rs`) asks the new
//! text for exactly these tokens, and the gap rule (`engine/layout/minimal.rs`) asks of
//! each output token whether the template spelled it or a capture brought it. How the
//! template is split and what a captured token is: §2.5.9, "Tokens".

use std::ops::Range;

use crate::engine::metered::Metered;
use ast_grep_core::matcher::NodeMatch;
use ast_grep_language::SupportLang;

use crate::engine::layout::lexer::{Lexicon, all_blank, lex, lexicon};
use crate::shared::nodes::{Next, walk};

/// Where a token of the reference comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Spelled by the template, or by a transformed metavariable's text.
    Template,
    /// A token of the original code that a metavariable captured.
    Capture,
    /// Template text and captured text in one token, as the template glues them.
    Joined,
}

/// One token of a reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RefTok {
    pub(crate) origin: Origin,
    /// For [`Origin::Capture`], its bytes in the original body; else in the
    /// reference's own text ([`Reference::text`]).
    pub(crate) at: Range<usize>,
    /// The text it was cut from (the template, or a transformed value) writes
    /// it right after the token before it, with nothing between.
    pub(crate) tight: bool,
    /// A metavariable stands right before it in the template (it may have
    /// brought no token: `f($$$A)` with no argument).
    pub(crate) after_var: bool,
    /// A captured literal that holds code (a template string with `${...}`):
    /// one token of the reference, several of a parse.
    pub(crate) holds_code: bool,
}

/// The tokens one metavariable of the template brought, when it stands alone
/// (not glued to template text) and captured code: the code the template's
/// tree holds whole at that place (`engine/template/shape.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    /// Its tokens among [`Reference::toks`].
    pub(crate) toks: Range<usize>,
    /// Written `$$$NAME`: a run of nodes, not one.
    pub(crate) multi: bool,
}

/// What an edit's template says, token by token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reference {
    /// The text of the tokens that are not captures.
    own: String,
    pub(crate) toks: Vec<RefTok>,
    /// The captures the template writes alone, in order.
    pub(crate) groups: Vec<Group>,
    /// While building: the index the token after the last metavariable gets.
    var_at: Option<usize>,
}

impl Reference {
    /// The text of token `t`, where `body` is the original text (without BOM).
    pub(crate) fn text<'a>(&'a self, t: &RefTok, body: &'a str) -> &'a str {
        match t.origin {
            Origin::Capture => &body[t.at.clone()],
            _ => &self.own[t.at.clone()],
        }
    }

    /// True when tokens `j` and `i` are written one right after the other by
    /// their own text: two template tokens the template writes so, or two
    /// captured tokens the original wrote so. Such a seam is that text's own
    /// spelling, not one the rewrite made.
    pub(crate) fn spelled_together(&self, j: usize, i: usize) -> bool {
        if i != j + 1 {
            return false;
        }
        let (a, b) = (&self.toks[j], &self.toks[i]);
        match (a.origin, b.origin) {
            // A template token and one the template glues to a capture
            // (`f` and `"{$A}"` of `f"{$A}"`) are its spelling too.
            (Origin::Template | Origin::Joined, Origin::Template | Origin::Joined) => b.tight,
            // The original wrote them with nothing between (`>>` closing two
            // generic lists in Rust): copied as they are, they are the
            // original's spelling, which a new context may lex as one token
            // (a macro's token tree).
            (Origin::Capture, Origin::Capture) => a.at.end == b.at.start,
            _ => false,
        }
    }
}

/// A part of a fix template: text, or a metavariable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    /// `$NAME`: one captured node.
    Single(String),
    /// `$$$NAME`: a captured run of nodes.
    Multi(String),
    /// A name the rule's `transform` defines: its text.
    Transformed(String),
}

/// `template` cut into text and metavariables as ast-grep-core 0.51.1 cuts it
/// (`replacer/template.rs`, `split_first_meta_var`).
fn parts(template: &str, transformed: &[String]) -> Vec<Part> {
    let mut parts = Vec::new();
    let (mut text_start, mut i) = (0usize, 0usize);
    while let Some(k) = template[i..].find('$') {
        let at = i + k;
        match meta_var(&template[at..], transformed) {
            Some((part, len)) => {
                if at > text_start {
                    parts.push(Part::Text(template[text_start..at].to_string()));
                }
                parts.push(part);
                i = at + len;
                text_start = i;
            }
            None => i = at + 1,
        }
    }
    if text_start < template.len() {
        parts.push(Part::Text(template[text_start..].to_string()));
    }
    parts
}

/// The captured metavariables of `template` (not those `transformed` names),
/// in order: each name, and whether it is written `$$$NAME`.
pub(crate) fn captured_vars(template: &str, transformed: &[String]) -> Vec<(String, bool)> {
    parts(template, transformed)
        .into_iter()
        .filter_map(|p| match p {
            Part::Single(n) => Some((n, false)),
            Part::Multi(n) => Some((n, true)),
            _ => None,
        })
        .collect()
}

/// The metavariable at the start of `src` (which starts with `$`) and its
/// length, if one starts there.
fn meta_var(src: &str, transformed: &[String]) -> Option<(Part, usize)> {
    // Up to three `$`: three make a `$$$` run, fewer a single one (`$$A` is `A`).
    let skipped = src.bytes().take(3).take_while(|&b| b == b'$').count();
    let multi = skipped == 3;
    let rest = &src[skipped..];
    if !rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
        return None;
    }
    let len = rest.find(|c: char| !(c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())).unwrap_or(rest.len());
    let name = rest[..len].to_string();
    let part = if multi {
        Part::Multi(name)
    } else if transformed.contains(&name) {
        Part::Transformed(name)
    } else {
        Part::Single(name)
    };
    Some((part, skipped + len))
}

/// The placeholder of the `k`-th metavariable of a template: one character of
/// Unicode's private use planes, which the lexer reads as part of a word.
fn placeholder(k: usize) -> Option<char> {
    char::from_u32(0xF0000 + u32::try_from(k).ok()?).filter(|c| (*c as u32) < 0x10_FFFE)
}

fn slot(c: char) -> Option<usize> {
    let v = c as u32;
    (0xF0000..0x10_FFFE).contains(&v).then(|| (v - 0xF0000) as usize)
}

/// Kinds of nodes (by a part of their name) that are one token of a reference
/// whatever their children: literals and comments.
const ATOM_KINDS: &[&str] = &["string", "comment", "char_literal", "rune_literal", "regex", "heredoc"];

/// Kinds of children (by a part of their name) that hold code inside a
/// literal: a JS template string's `${...}`, a Python f-string's `{...}`, a
/// shell string's `$x`.
const CODE_IN_LITERAL: &[&str] = &["substitution", "interpolat", "expansion"];

/// True when `kind` is a literal's or a comment's (not a concatenation of
/// strings, whose strings are the literals).
pub(crate) fn is_literal_kind(kind: &str) -> bool {
    !kind.contains("concatenat") && ATOM_KINDS.iter().any(|k| kind.contains(k))
}

/// True when `node` is a leaf, or a literal or comment ([`is_literal_kind`]):
/// one token as the layout lexer reads it.
fn is_literal_token(node: tree_sitter::Node<'_>) -> bool {
    node.child_count() == 0 || is_literal_kind(node.kind())
}

/// True when `node` is a literal that holds code (a template string with a
/// `${...}`, an f-string with a field).
fn holds_code(node: tree_sitter::Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.child_count() > 0 && node.named_children(&mut cursor).any(|c| CODE_IN_LITERAL.iter().any(|k| c.kind().contains(k)))
}

/// True when `node` is one token of a parse: a leaf, or a literal or comment
/// ([`is_literal_token`]) that holds no code; a literal that holds code is
/// its parts, so an edit inside its `${...}` has seams of its own.
pub(crate) fn is_atom(node: tree_sitter::Node<'_>) -> bool {
    is_literal_token(node) && !holds_code(node)
}

/// Calls `each` with every token of `node`'s subtree that is not empty, as
/// the layout lexer reads them ([`is_literal_token`]: a literal whole, also
/// one that holds code), in order, without recursion.
fn literal_tokens(node: tree_sitter::Node<'_>, mut each: impl FnMut(tree_sitter::Node<'_>)) {
    let visit = |_: &mut (), n: tree_sitter::Node<'_>| {
        if !is_literal_token(n) {
            return Next::Children;
        }
        if n.end_byte() > n.start_byte() {
            each(n);
        }
        Next::Sibling
    };
    walk(node, &mut (), visit, |_, _| {});
}

/// Calls `each` with every token (see [`is_atom`]) under `root` that is not
/// empty and overlaps `range`, in order. The walk goes down to the range
/// (tree-sitter's `goto_first_child_for_byte`) and stops past its end, so its
/// cost is the depth plus the tokens it finds.
pub(crate) fn atoms_in(root: tree_sitter::Node<'_>, range: Range<usize>, each: impl FnMut(tree_sitter::Node<'_>)) {
    walk(root, &mut (), atoms_visit(range, each), |_, _| {});
}

/// The visit of [`atoms_in`]'s walk, for a walk that starts elsewhere than at
/// a root (`engine::template::around`).
pub(crate) fn atoms_visit<'t>(range: Range<usize>, mut each: impl FnMut(tree_sitter::Node<'t>)) -> impl FnMut(&mut (), tree_sitter::Node<'t>) -> Next {
    move |_: &mut (), n: tree_sitter::Node<'t>| {
        if n.start_byte() >= range.end {
            // This node and every later one lie past the range.
            return Next::Parent;
        }
        if n.end_byte() <= range.start {
            return Next::Sibling;
        }
        if !is_atom(n) {
            return Next::ChildrenFrom(range.start);
        }
        if n.end_byte() > n.start_byte() {
            each(n);
        }
        Next::Sibling
    }
}

/// The reference of the match `nm` of a rule whose first fix template is
/// `template` and whose `transform` defines `transformed`, in `lang`; `body`
/// is the text the match was found in (without BOM). `None` for a language
/// without a layout lexer, or a template with more metavariables than
/// placeholders.
pub(crate) fn build(lang: SupportLang, template: &str, transformed: &[String], nm: &NodeMatch<'_, Metered>, body: &str) -> Option<Reference> {
    let lx = lexicon(lang)?;
    let parts = parts(template, transformed);
    let mut vars = Vec::new();
    let mut marked = String::with_capacity(template.len());
    for p in &parts {
        match p {
            Part::Text(t) => marked.push_str(t),
            var => {
                marked.push(placeholder(vars.len())?);
                vars.push(var);
            }
        }
    }
    let env = nm.get_env();
    // The captured range (in `body`) or transformed text of each metavariable.
    let values: Vec<Value> = vars
        .iter()
        .map(|v| match v {
            Part::Single(name) => env.get_match(name).map_or(Value::Nothing, |n| Value::Nodes(vec![n.get_inner_node().0])),
            Part::Multi(name) => {
                let nodes: Vec<_> = env.get_multiple_matches(name).iter().map(|n| n.get_inner_node().0).collect();
                if nodes.is_empty() { Value::Nothing } else { Value::Nodes(nodes) }
            }
            Part::Transformed(name) => env.get_transformed(name).map_or(Value::Nothing, |b| Value::Text(String::from_utf8_lossy(b).into_owned())),
            Part::Text(_) => Value::Nothing,
        })
        .collect();
    let mut r = Reference::default();
    let mut last_end = None;
    for t in lex(&marked, &lx) {
        let tight = last_end == Some(t.start);
        last_end = Some(t.end);
        let text = &marked[t.start..t.end];
        let mut chars = text.chars();
        let pushed = r.toks.len();
        match (chars.next().and_then(slot), chars.next()) {
            (Some(k), None) => {
                let first = r.toks.len();
                r.push_value(&values[k], &lx, tight, body);
                if matches!(values[k], Value::Nodes(_)) && r.toks.len() > first {
                    r.groups.push(Group { toks: first..r.toks.len(), multi: matches!(vars[k], Part::Multi(_)) });
                }
                r.var_at = Some(r.toks.len());
                continue;
            }
            _ if !text.chars().any(|c| slot(c).is_some()) => r.push_own(text, Origin::Template, tight),
            _ => {
                let joined: String = text
                    .chars()
                    .map(|c| match slot(c) {
                        Some(k) => values[k].text(body),
                        None => c.to_string(),
                    })
                    .collect();
                r.push_own(&joined, Origin::Joined, tight);
            }
        }
        if r.var_at == Some(pushed) {
            r.toks[pushed].after_var = true;
        }
    }
    Some(r)
}

/// What a metavariable stands for in one match.
enum Value<'t> {
    /// Nothing: ast-grep writes nothing for it.
    Nothing,
    /// Captured nodes, siblings in order.
    Nodes(Vec<tree_sitter::Node<'t>>),
    /// A transformed metavariable's text.
    Text(String),
}

impl Value<'_> {
    /// The text it stands for (captured: the original's bytes, first node to last).
    fn text(&self, body: &str) -> String {
        match self {
            Value::Nothing => String::new(),
            Value::Nodes(n) => body[n[0].start_byte()..n[n.len() - 1].end_byte()].to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

impl Reference {
    fn push_own(&mut self, text: &str, origin: Origin, tight: bool) {
        let start = self.own.len();
        self.own.push_str(text);
        self.toks.push(RefTok { origin, at: start..self.own.len(), tight, after_var: false, holds_code: false });
    }

    fn push_value(&mut self, v: &Value<'_>, lx: &Lexicon, tight: bool, body: &str) {
        match v {
            Value::Nothing => {}
            Value::Text(t) => {
                let mut last_end = None;
                for tok in lex(t, lx) {
                    let tight = last_end.map_or(tight, |e| e == tok.start);
                    last_end = Some(tok.end);
                    self.push_own(&t[tok.start..tok.end], Origin::Template, tight);
                }
            }
            Value::Nodes(nodes) => {
                // The tokens from the first node's start to the last's end: the
                // nodes and whatever lies between them (separators, comments).
                let end = nodes[nodes.len() - 1].end_byte();
                let mut each = |n: tree_sitter::Node<'_>| {
                    literal_tokens(n, |a| {
                        // A line continuation (Python's tree keeps it as a
                        // token) is blank, as the layout lexer reads it.
                        if a.end_byte() <= end && !all_blank(&body[a.start_byte()..a.end_byte()]) {
                            let holds_code = holds_code(a);
                            self.toks.push(RefTok { origin: Origin::Capture, at: a.start_byte()..a.end_byte(), tight: false, after_var: false, holds_code });
                        }
                    })
                };
                // One node: no sibling to look for (`next_sibling`, like
                // `parent`, is a way down from the root, the square of the
                // depth over a file's ever deeper captures).
                let Some(parent) = (nodes[0].end_byte() < end).then(|| nodes[0].parent()).flatten() else {
                    each(nodes[0]);
                    return;
                };
                // Several: the parent's children from the first node's on.
                let mut c = parent.walk();
                let found = c.goto_first_child_for_byte(nodes[0].start_byte()).is_some();
                while found && c.node().id() != nodes[0].id() && c.goto_next_sibling() {}
                if !found || c.node().id() != nodes[0].id() {
                    // Not found among its parent's children (a hidden node
                    // between): sibling by sibling, as tree-sitter links them.
                    let mut node = Some(nodes[0]);
                    while let Some(n) = node.filter(|n| n.start_byte() < end) {
                        each(n);
                        node = n.next_sibling();
                    }
                    return;
                }
                loop {
                    let n = c.node();
                    if n.start_byte() >= end {
                        break;
                    }
                    each(n);
                    if !c.goto_next_sibling() {
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_variables_are_read_as_ast_grep_reads_them() {
        let v = |t: &str| captured_vars(t, &[]).into_iter().map(|(n, m)| format!("{}{n}", if m { "$$$" } else { "$" })).collect::<Vec<_>>();
        assert_eq!(v("$M($O, $$$A)"), ["$M", "$O", "$$$A"]);
        assert_eq!(v("costs $5 and $$B and $_X1"), ["$B", "$_X1"]);
        assert_eq!(v("$$$"), Vec::<String>::new());
        assert_eq!(v("$a $"), Vec::<String>::new());
    }

    #[test]
    fn templates_are_cut_as_ast_grep_cuts_them() {
        let t = vec!["T".to_string()];
        assert_eq!(
            parts("f($A, $$$B) costs $5 $T $a $$C", &t),
            [
                Part::Text("f(".into()),
                Part::Single("A".into()),
                Part::Text(", ".into()),
                Part::Multi("B".into()),
                Part::Text(") costs $5 ".into()),
                Part::Transformed("T".into()),
                Part::Text(" $a ".into()),
                Part::Single("C".into()),
            ]
        );
    }
}
