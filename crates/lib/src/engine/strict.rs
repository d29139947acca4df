//! Check (f) of the template check (docs/DESIGN.md section 2.5.9): what a
//! language's compiler rejects, or reads otherwise, where its tree-sitter
//! grammar is laxer, judged on the code an edit wrote (its captures, its own
//! node, the nodes inside it). Each rule was found by the front-end property
//! test (`engine/frontend_prop.rs`): tree-sitter accepts the text, CPython,
//! V8 or rustc do not. And the bound of an admitted deviation: a trailing `,`
//! is kept only where the grammar ignores it (argument, parameter and
//! collection lists, a macro's token tree), never in a parenthesized
//! expression or a tuple: `($$$A)` on `f(not a,)` is a tuple.
//!
//! - A low-precedence construct may not be the operand of a tighter one:
//!   Python's `lambda` under `not`, `==`, `.attr`; a `*a` or `k=1` outside an
//!   argument or collection list, or alone in brackets (`(*a)`); JavaScript's
//!   arrow function under `!`, `await`, `new`, `in`; Rust's `a as u8` before
//!   `?`, `.`, `(`, `[`, `<`.
//! - A node that held the replaced code and binds tightly (a call, `await`, an
//!   operator) holds the new code too: tree-sitter reads `await (a, b)` in
//!   place of `await f(a, b)` as a call of `await` (`shape::rebound`).
//! - Rust does not chain comparisons (`a == b == c`); Python's conditional
//!   expression or lambda is no body or test of a conditional expression
//!   (`x if a if c else b else y`, `1 if lambda: 1 else 2`).
//! - Python: no positional argument after a keyword argument (`g(k=1, e)`).
//! - JavaScript: `await` only in an async function (or at a module's top
//!   level).

use std::ops::Range;

use ast_grep_language::SupportLang;
use tree_sitter::Node;

use super::invariant::NewTok;
use super::shape::{ancestors, Hole};
use crate::shared::nodes::{walk, Next};

/// The first rule the edit's text `span` of `new` (its tree `root`, its
/// tokens `toks`, its captures `holes`) breaks in `lang`, in words.
pub(crate) fn broken_rule(lang: SupportLang, root: Node<'_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    operands(lang, root, new, span, holes).or_else(|| inside(lang, root, new, span, holes))
}

/// Kinds (by a part of their name) of lists whose trailing `,` changes nothing.
const COMMA_IGNORED: &[&str] = &["argument", "parameter", "array", "object", "dictionary", "set", "initializer", "literal_value", "field", "variant", "use_list", "import", "export", "token_tree", "list"];
/// Kinds among those that are no such list (`a, b` without brackets).
const COMMA_MEANT: &[&str] = &["expression_list", "pattern_list"];

/// A `,` right before a closing bracket, in the edit's text and not inside
/// one capture with its bracket, in a node where it counts (a tuple, a
/// parenthesized expression): the bracket and the node's kind.
pub(crate) fn trailing_comma(root: Node<'_>, new: &str, span: &Range<usize>, holes: &[Hole], toks: &[NewTok]) -> Option<(String, String)> {
    let code: Vec<&NewTok> = toks.iter().filter(|t| !t.comment).collect();
    for w in code.windows(2) {
        let (comma, close) = (w[0], w[1]);
        if &new[comma.start..comma.end] != "," || !matches!(&new[close.start..close.end], ")" | "]" | "}") || comma.start < span.start || comma.end > span.end {
            continue;
        }
        if holes.iter().any(|h| h.at.start <= comma.start && close.end <= h.at.end) {
            continue;
        }
        let chain = ancestors(root, comma.start..comma.end);
        let Some(list) = chain.iter().rev().find(|n| !(n.start_byte() == comma.start && n.end_byte() == comma.end)) else { continue };
        let kind = list.kind();
        if COMMA_MEANT.iter().any(|k| kind.contains(k)) || !COMMA_IGNORED.iter().any(|k| kind.contains(k)) {
            return Some((new[close.start..close.end].to_string(), crate::shared::text::a(&kind.replace('_', " "))));
        }
    }
    None
}

/// Python kinds that stand only in an argument or collection list, and those lists.
const PY_LISTED: &[&str] = &["list_splat", "dictionary_splat", "keyword_argument"];
const PY_LISTS: &[&str] = &["argument_list", "list", "tuple", "set", "dictionary", "expression_list", "pattern_list"];
/// Low-precedence kinds and the kinds that may not take one as an operand, per language.
const PY_LOW: &[&str] = &["lambda", "yield"];
const PY_TIGHT: &[&str] = &["not_operator", "boolean_operator", "binary_operator", "comparison_operator", "unary_operator", "attribute", "subscript", "call", "await"];
const JS_LOW: &[&str] = &["arrow_function", "yield_expression", "assignment_expression", "sequence_expression"];
const JS_TIGHT: &[&str] = &["unary_expression", "binary_expression", "await_expression", "new_expression", "member_expression", "subscript_expression", "call_expression", "update_expression"];
const RS_LOW: &[&str] = &["type_cast_expression"];
const RS_TIGHT: &[&str] = &["try_expression", "field_expression", "call_expression", "index_expression"];
const RS_COMPARISONS: &[&str] = &["==", "!=", "<", ">", "<=", ">="];

/// The nodes the edit placed: each capture's node and the edit's own, with
/// the chain of nodes holding each.
fn placed<'t>(root: Node<'t>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Vec<Vec<Node<'t>>> {
    let whole = super::shape::trimmed(new, span);
    holes
        .iter()
        .map(|h| h.at.clone())
        .chain(std::iter::once(whole))
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let mut chain = ancestors(root, r.clone());
            if chain.last()?.byte_range() != r {
                return None;
            }
            // The outermost node that is exactly the range, and what holds it.
            while chain.len() > 2 && chain[chain.len() - 2].byte_range() == r {
                chain.pop();
            }
            Some(chain)
        })
        .collect()
}

/// A placed node that stands where its language does not allow it.
fn operands(lang: SupportLang, root: Node<'_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    for chain in placed(root, new, span, holes) {
        let [.., parent, node] = chain.as_slice() else { continue };
        let (k, p) = (node.kind(), parent.kind());
        let wrong = match lang {
            SupportLang::Python => (PY_LISTED.contains(&k) && !PY_LISTS.contains(&p)) || (PY_LOW.contains(&k) && PY_TIGHT.contains(&p)) || nested_conditional(*parent, *node) || lone_star(*parent, *node),
            SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx => JS_LOW.contains(&k) && JS_TIGHT.contains(&p),
            SupportLang::Rust => (RS_LOW.contains(&k) && (RS_TIGHT.contains(&p) || cast_before_less(*parent, *node, new))) || chained(*parent, *node, new),
            _ => false,
        };
        if wrong {
            return Some(format!("`{}` ({}) may not stand as part of {} there", super::invariant::cut(&new[node.byte_range()]), k.replace('_', " "), crate::shared::text::a(&p.replace('_', " "))));
        }
    }
    None
}

/// A Python conditional expression or lambda as the body or the test of a
/// conditional expression (only its `else` part may be one without brackets).
fn nested_conditional(parent: Node<'_>, node: Node<'_>) -> bool {
    matches!(node.kind(), "conditional_expression" | "lambda") && parent.kind() == "conditional_expression" && parent.named_child(u32::try_from(parent.named_child_count().saturating_sub(1)).unwrap_or(u32::MAX)) != Some(node)
}

/// A Python `*a` alone in brackets: tree-sitter reads `(*a)` as a tuple,
/// CPython wants the `,` of one (`(*a,)`).
fn lone_star(parent: Node<'_>, node: Node<'_>) -> bool {
    let mut c = parent.walk();
    node.kind() == "list_splat" && parent.kind() == "tuple" && !parent.children(&mut c).any(|k| k.kind() == ",")
}

/// The operator of a Rust binary expression.
fn operator<'a>(n: Node<'_>, new: &'a str) -> Option<&'a str> {
    n.child_by_field_name("operator").map(|o| &new[o.byte_range()])
}

/// A Rust cast left of `<` or `<<`, which rustc reads as generic arguments.
fn cast_before_less(parent: Node<'_>, node: Node<'_>, new: &str) -> bool {
    parent.kind() == "binary_expression" && parent.child_by_field_name("left") == Some(node) && matches!(operator(parent, new), Some("<" | "<<"))
}

/// A Rust comparison one of whose operands is a comparison (not in brackets).
fn chained(parent: Node<'_>, node: Node<'_>, new: &str) -> bool {
    let comparison = |n: Node<'_>| n.kind() == "binary_expression" && operator(n, new).is_some_and(|o| RS_COMPARISONS.contains(&o));
    (comparison(parent) && comparison(node)) || (comparison(node) && [node.child_by_field_name("left"), node.child_by_field_name("right")].into_iter().flatten().any(comparison))
}

/// A rule broken by a node inside the edit: Python argument order (not
/// inside a capture: its own lists are as the original had them),
/// JavaScript's `await` outside an async function (inside captures too: the
/// template may put one in another function).
fn inside(lang: SupportLang, root: Node<'_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    let (want, skip) = match lang {
        SupportLang::Python => ("argument_list", holes),
        SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx => ("await_expression", &[][..]),
        _ => return None,
    };
    let mut found = None;
    let visit = |found: &mut Option<String>, n: Node<'_>| {
        if n.start_byte() >= span.end {
            return Next::Parent;
        }
        if n.end_byte() <= span.start || skip.iter().any(|h| h.at.start <= n.start_byte() && n.end_byte() <= h.at.end) {
            return Next::Sibling;
        }
        if n.kind() == want && n.start_byte() >= span.start.saturating_sub(1) {
            *found = match want {
                "argument_list" => out_of_order(n, new),
                _ => outside_async(root, n),
            };
            if found.is_some() {
                return Next::Stop;
            }
        }
        Next::ChildrenFrom(span.start)
    };
    walk(root, &mut found, visit, |_, _| {});
    found
}

/// A Python positional argument after a keyword argument or `**`, or a `*`
/// after `**`.
fn out_of_order(list: Node<'_>, new: &str) -> Option<String> {
    let mut c = list.walk();
    let (mut keyword, mut double) = (false, false);
    for a in list.named_children(&mut c).filter(|a| !a.is_extra()) {
        match a.kind() {
            "keyword_argument" => keyword = true,
            "dictionary_splat" => double = true,
            "list_splat" if double => return Some(format!("`{}` follows a `**` argument", &new[a.byte_range()])),
            "list_splat" => {}
            _ if keyword || double => return Some(format!("the positional argument `{}` follows a keyword argument", super::invariant::cut(&new[a.byte_range()]))),
            _ => {}
        }
    }
    None
}

/// JavaScript kinds of functions.
const JS_FUNCTIONS: &[&str] = &["function_declaration", "function_expression", "function", "arrow_function", "method_definition", "generator_function", "generator_function_declaration"];

/// An `await` whose nearest function is not `async`.
fn outside_async(root: Node<'_>, at: Node<'_>) -> Option<String> {
    let chain = ancestors(root, at.byte_range());
    let f = chain.iter().rev().find(|n| JS_FUNCTIONS.contains(&n.kind()))?;
    let mut c = f.walk();
    let is_async = f.children(&mut c).take_while(|k| !k.is_named() || k.kind() == "async").any(|k| k.kind() == "async");
    (!is_async).then(|| "`await` in a function that is not `async`".to_string())
}
