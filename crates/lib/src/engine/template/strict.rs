//! Check (f) of the template check (docs/DESIGN.md §2.5.9): what a language's compiler
//! rejects, or reads otherwise, where its tree-sitter grammar is laxer, judged on the
//! code an edit wrote (its captures, its own node, the nodes inside it): low-precedence
//! constructs under tighter ones, a tightly binding node that no longer holds the new
//! code (`shape::rebound`), per-language rules for Rust, Python, Go and JavaScript, Go's
//! longest-operator scanner ([`glues`]), and where a trailing `,` may stand. The list,
//! each rule with its example: §2.5.9, check (f). Each rule was found by the front-end
//! property test (`engine/template/frontend_prop.rs`).

use std::ops::Range;

use ast_grep_language::SupportLang;
use tree_sitter::Node;

use crate::engine::template::NewTok;
use crate::engine::template::around::{Around, marks};
use crate::engine::template::shape::Hole;
use crate::shared::nodes::{Next, walk};

/// The first rule the edit's text `span` of `new` (its tree `root`, its
/// tokens `toks`, its captures `holes`) breaks in `lang`, in words.
pub(crate) fn broken_rule(lang: SupportLang, at: &Around<'_, '_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    operands(lang, at, new, span, holes)
        .or_else(|| inside(lang, at, new, span, holes))
        .or_else(|| (lang == SupportLang::Python && may_hold(new, span, 5, &[b"def", b"async", b"await"])).then(|| py_await(at, span)).flatten())
}

/// True when one of `words` stands in `new` from `span`'s start to `tail`
/// bytes past its end (a word that starts inside the span, up to `tail + 1`
/// bytes long): a node that starts inside the span with one of them (a
/// keyword) needs it to. Checks that look for such nodes only are passed
/// by where it is false: most edits (a call renamed) hold none.
fn may_hold(new: &str, span: &Range<usize>, tail: usize, words: &[&[u8]]) -> bool {
    let bytes = new.as_bytes();
    let text = &bytes[span.start.min(bytes.len())..(span.end + tail).min(bytes.len())];
    words.iter().any(|w| memchr::memmem::find(text, w).is_some())
}

/// An f-string's `{}` (`n`, an `interpolation`) holding the string's own
/// quote or a `\`: before Python 3.12 the quote ends the string and the `\`
/// is refused (`str($A) + $B` -> `f"{$A}{$B}"` on `" x"` writes
/// `f"{a}{" x"}"`).
fn f_string_quote(n: Node<'_>, new: &str) -> Option<String> {
    let string = n.parent().filter(|p| p.kind() == "string")?;
    let start = string.child(0).map(|s| &new[s.byte_range()]).unwrap_or_default();
    let quote = start.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let code = &new[n.byte_range()];
    ((!quote.is_empty() && code.contains(quote)) || code.contains('\\'))
        .then(|| format!("`{}` in an f-string: its quote or `\\` ends or breaks the string before Python 3.12", crate::engine::template::cut(code)))
}

/// An `await` the edit writes in a Python function that is not `async`, or a
/// function the edit starts (its `def`, whose `async` the template may drop:
/// `def $F(self): $$$B` also matches an `async def`) that is not `async` and
/// holds an `await` of its own. Each function is walked by the edit that
/// starts it only, so the cost is linear in the file.
fn py_await<'t>(at: &Around<'_, 't>, span: &Range<usize>) -> Option<String> {
    let mut found: (Vec<Node<'t>>, Vec<Node<'t>>) = (Vec::new(), Vec::new());
    // The nodes above the edit that start before it are neither a function
    // it starts nor an `await` it writes.
    at.walk_from(at.first_from(span.start), &mut found, |(starts, awaits): &mut (Vec<Node<'t>>, Vec<Node<'t>>), n: Node<'t>| {
        if n.start_byte() >= span.end {
            return Next::Parent;
        }
        if n.end_byte() <= span.start {
            return Next::Sibling;
        }
        if n.kind() == "function_definition" && n.start_byte() >= span.start {
            starts.push(n);
            return Next::Sibling;
        }
        if n.kind() == "await" && n.start_byte() >= span.start {
            awaits.push(n);
        }
        Next::ChildrenFrom(span.start)
    });
    let (starts, awaits) = found;
    let own_await = |body: Node<'_>| {
        let mut seen = false;
        walk(
            body,
            &mut seen,
            |seen: &mut bool, n: Node<'_>| match n.kind() {
                "await" => {
                    *seen = true;
                    Next::Stop
                }
                "function_definition" | "lambda" | "class_definition" => Next::Sibling,
                _ => Next::Children,
            },
            |_, _| {},
        );
        seen
    };
    // An `await` outside an `async def`: in a plain function, a lambda, a
    // class body or the module.
    // Its holders from the way down (each `parent()` is a way down from the
    // root of its own: climbing by it costs the square of the depth).
    let sync_holder = |a: Node<'_>| {
        let chain = at.ancestors(a.byte_range());
        let up: Vec<Node<'_>> = match chain.iter().rposition(|n| n.id() == a.id()) {
            Some(k) => chain[..k].iter().rev().copied().collect(),
            // Not on the way down (never seen): climb, as tree-sitter links it.
            None => std::iter::successors(a.parent(), |p| p.parent()).collect(),
        };
        for p in up {
            match p.kind() {
                "function_definition" => return !is_async(p),
                "lambda" | "class_definition" => return true,
                _ => {}
            }
        }
        true
    };
    let bad = starts.into_iter().any(|f| !is_async(f) && f.child_by_field_name("body").is_some_and(own_await)) || awaits.into_iter().any(sync_holder);
    bad.then(|| "`await` in a function that is not `async`".to_string())
}

/// True when `lang`'s compiler reads the two characters `a` `b`, written
/// together, as one token, whatever tree-sitter's lexer reads there: Go's
/// scanner takes the longest operator (`&` `&a` is `&&a`, a syntax error;
/// `a < -b` written `a<-b` receives from a channel), where tree-sitter-go
/// lexes by what the parser expects next.
pub(crate) fn glues(lang: SupportLang, a: u8, b: u8) -> bool {
    const GO: &[&[u8; 2]] = &[
        b"&&", b"||", b"<-", b"++", b"--", b"==", b"!=", b"<=", b">=", b"<<", b">>", b"&^", b":=", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=", b"|=", b"^=",
        b"//", b"/*",
    ];
    lang == SupportLang::Go && GO.iter().any(|op| op[0] == a && op[1] == b)
}

/// Two `,` in a row in the edit's text (comments aside), or a `,` right
/// after an opening bracket, outside an array, the only list with holes:
/// tree-sitter-javascript reads `g(a,, e)` and `g(, e)`, V8 does not
/// (ast-grep writes them where a `$$$` capture ends in `,`, or captured
/// nothing, and its template writes a `,` after it).
pub(crate) fn double_comma(lang: SupportLang, at: &Around<'_, '_>, new: &str, span: &Range<usize>, toks: &[NewTok]) -> Option<String> {
    if !matches!(lang, SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx) {
        return None;
    }
    let code: Vec<&NewTok> = toks.iter().filter(|t| !t.comment).collect();
    for w in code.windows(2) {
        let (first, comma) = (&new[w[0].start..w[0].end], &new[w[1].start..w[1].end]);
        if w[0].start < span.start || w[1].end > span.end || comma != "," || !matches!(first, "," | "(" | "[" | "{") {
            continue;
        }
        let list = at.ancestors(w[1].start..w[1].end).into_iter().rev().find(|n| n.start_byte() < w[1].start || n.end_byte() > w[1].end);
        if !list.is_some_and(|n| n.kind().starts_with("array")) {
            return Some("a list holds `,,` (an empty element) only in an array".to_string());
        }
    }
    None
}

/// Kinds (by a part of their name) of lists whose trailing `,` changes nothing.
const COMMA_IGNORED: &[&str] = &[
    "argument",
    "parameter",
    "array",
    "object",
    "dictionary",
    "set",
    "initializer",
    "literal_value",
    "field",
    "variant",
    "use_list",
    "import",
    "export",
    "token_tree",
    "list",
    "match_arm",
    "enum",
];
/// Kinds among those that are no such list (`a, b` without brackets).
const COMMA_MEANT: &[&str] = &["expression_list", "pattern_list"];

/// A `,` right before a closing bracket, in the edit's text, not inside one
/// capture with its bracket and not one the template writes there itself (at
/// `spelled`), in a node where it counts (a tuple, a parenthesized
/// expression): the bracket and the node's kind.
pub(crate) fn trailing_comma(
    at: &Around<'_, '_>,
    new: &str,
    span: &Range<usize>,
    (holes, spelled): (&[Hole], &[usize]),
    toks: &[NewTok],
) -> Option<(String, String)> {
    let code: Vec<&NewTok> = toks.iter().filter(|t| !t.comment).collect();
    for w in code.windows(2) {
        let (comma, close) = (w[0], w[1]);
        if &new[comma.start..comma.end] != "," || !matches!(&new[close.start..close.end], ")" | "]" | "}") || comma.start < span.start || comma.end > span.end {
            continue;
        }
        if spelled.contains(&comma.start) || holes.iter().any(|h| h.at.start <= comma.start && close.end <= h.at.end) {
            continue;
        }
        let chain = at.ancestors(comma.start..comma.end);
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
const PY_TIGHT: &[&str] =
    &["not_operator", "boolean_operator", "binary_operator", "comparison_operator", "unary_operator", "attribute", "subscript", "call", "await"];
const JS_LOW: &[&str] = &["arrow_function", "yield_expression", "assignment_expression", "sequence_expression"];
const JS_TIGHT: &[&str] = &[
    "unary_expression",
    "binary_expression",
    "await_expression",
    "new_expression",
    "member_expression",
    "subscript_expression",
    "call_expression",
    "update_expression",
    "as_expression",
    "satisfies_expression",
    "non_null_expression",
];
/// The JavaScript nodes whose operand follows their operator.
const JS_PREFIX: &[&str] = &["unary_expression", "await_expression", "new_expression", "binary_expression", "update_expression"];
/// TypeScript's `a as T` and `a satisfies T`, which no unary operator,
/// call, member access or `await` may take without brackets (tree-sitter
/// reads `a as T(1)`; TypeScript does not).
const TS_LOW: &[&str] = &["as_expression", "satisfies_expression"];
const RS_LOW: &[&str] = &["type_cast_expression"];
const RS_TIGHT: &[&str] = &["try_expression", "field_expression", "call_expression", "index_expression"];
const RS_COMPARISONS: &[&str] = &["==", "!=", "<", ">", "<=", ">="];

/// The nodes the edit placed: each capture's node and the edit's own, with
/// the chain of nodes holding each.
fn placed<'t>(at: &Around<'_, 't>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Vec<Vec<Node<'t>>> {
    let whole = crate::engine::template::shape::trimmed(new, span);
    holes
        .iter()
        .map(|h| h.at.clone())
        .chain(std::iter::once(whole))
        .filter(|r| !r.is_empty())
        .filter_map(|r| {
            let mut chain = at.ancestors(r.clone());
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
fn operands(lang: SupportLang, at: &Around<'_, '_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    // Python's rules below are all of a `*a`, `**a`, `k=v`, `lambda`,
    // `yield` or `a if b else c` placed: none of them without one of
    // these (the placed nodes lie in the span, holes and all).
    let placed_span = holes.iter().map(|h| h.at.start).fold(span.start, usize::min)..holes.iter().map(|h| h.at.end).fold(span.end, usize::max);
    if lang == SupportLang::Python && !may_hold(new, &placed_span, 0, &[b"*", b"=", b"lambda", b"yield", b"if"]) {
        return None;
    }
    for chain in placed(at, new, span, holes) {
        let [.., parent, node] = chain.as_slice() else { continue };
        let (k, p) = (node.kind(), parent.kind());
        let wrong = match lang {
            SupportLang::Python => {
                (PY_LISTED.contains(&k) && !PY_LISTS.contains(&p))
                    || (PY_LOW.contains(&k) && PY_TIGHT.contains(&p))
                    || nested_conditional(*parent, *node)
                    || lone_star(*parent, *node)
            }
            SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx => {
                // Under a postfix node (a call, `.`, `[]`, `!`, `as`) only as
                // its first part: `a[() => 1]` and `row[c as any]` are right.
                let operand = JS_PREFIX.contains(&p) || parent.start_byte() == node.start_byte();
                operand && ((JS_LOW.contains(&k) && JS_TIGHT.contains(&p)) || (TS_LOW.contains(&k) && JS_TIGHT.contains(&p) && p != "binary_expression"))
            }
            SupportLang::Rust => {
                (RS_LOW.contains(&k) && (RS_TIGHT.contains(&p) || cast_before_less(*parent, *node, new)))
                    || chained(*parent, *node, new)
                    || block_first(*parent, *node)
                    || lazy_in_let(*parent, *node, new)
            }
            _ => false,
        };
        if wrong {
            return Some(format!(
                "`{}` ({}) may not stand as part of {} there",
                crate::engine::template::cut(&new[node.byte_range()]),
                k.replace('_', " "),
                crate::shared::text::a(&p.replace('_', " "))
            ));
        }
    }
    None
}

/// A Rust block-like expression (`match`, `if`, a block, a loop) first in an
/// expression that starts a statement: rustc ends the statement after it, so
/// `match x {} + 1` is a `match` then `+1`, where tree-sitter reads a sum.
fn block_first(parent: Node<'_>, node: Node<'_>) -> bool {
    const BLOCK_LIKE: &[&str] =
        &["match_expression", "if_expression", "block", "loop_expression", "while_expression", "for_expression", "unsafe_block", "async_block", "const_block"];
    // `.` and `?` go on after a block-like expression, in rustc too.
    const HOSTS: &[&str] = &["binary_expression", "call_expression", "index_expression", "type_cast_expression", "range_expression"];
    if !BLOCK_LIKE.contains(&node.kind()) || parent.start_byte() != node.start_byte() || !HOSTS.contains(&parent.kind()) {
        return false;
    }
    let mut top = parent;
    while let Some(up) = top.parent().filter(|u| u.start_byte() == node.start_byte() && !matches!(u.kind(), "block" | "expression_statement")) {
        top = up;
    }
    top.parent().is_some_and(|u| matches!(u.kind(), "block" | "expression_statement"))
}

/// A Python conditional expression or lambda as the body or the test of a
/// conditional expression (only its `else` part may be one without brackets).
fn nested_conditional(parent: Node<'_>, node: Node<'_>) -> bool {
    matches!(node.kind(), "conditional_expression" | "lambda")
        && parent.kind() == "conditional_expression"
        && parent.named_child(u32::try_from(parent.named_child_count().saturating_sub(1)).unwrap_or(u32::MAX)) != Some(node)
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

/// A Rust `a || b` or `a && b` as the value of an `if let` or `while let`,
/// which rustc refuses (it would read as a let chain).
fn lazy_in_let(parent: Node<'_>, node: Node<'_>, new: &str) -> bool {
    parent.kind() == "let_condition"
        && parent.child_by_field_name("value") == Some(node)
        && node.kind() == "binary_expression"
        && matches!(operator(node, new), Some("||" | "&&"))
}

/// A Rust cast left of `<` or `<<`, which rustc reads as generic arguments.
fn cast_before_less(parent: Node<'_>, node: Node<'_>, new: &str) -> bool {
    parent.kind() == "binary_expression" && parent.child_by_field_name("left") == Some(node) && matches!(operator(parent, new), Some("<" | "<<"))
}

/// A Rust comparison one of whose operands is a comparison (not in brackets).
fn chained(parent: Node<'_>, node: Node<'_>, new: &str) -> bool {
    let comparison = |n: Node<'_>| n.kind() == "binary_expression" && operator(n, new).is_some_and(|o| RS_COMPARISONS.contains(&o));
    (comparison(parent) && comparison(node))
        || (comparison(node) && [node.child_by_field_name("left"), node.child_by_field_name("right")].into_iter().flatten().any(comparison))
}

/// A rule broken by a node inside the edit: Python argument order and
/// f-string braces (not inside a capture: its own code is as the original
/// had it),
/// JavaScript's `await` outside an async function (inside captures too: the
/// template may put one in another function).
fn inside(lang: SupportLang, at: &Around<'_, '_>, new: &str, span: &Range<usize>, holes: &[Hole]) -> Option<String> {
    let (want, skip) = match lang {
        SupportLang::Python => ("argument_list", holes),
        SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx => ("await_expression", &[][..]),
        SupportLang::Go => ("argument_list", &[][..]),
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
                "argument_list" if lang == SupportLang::Go => spread_not_last(n, new),
                "argument_list" => out_of_order(n, new),
                _ => outside_async(at, n),
            };
            if found.is_some() {
                return Next::Stop;
            }
        }
        // An f-string's braces the edit wrote (those of a capture are the
        // original's, as they were).
        if lang == SupportLang::Python
            && n.kind() == "interpolation"
            && let Some(rule) = f_string_quote(n, new)
        {
            *found = Some(rule);
            return Next::Stop;
        }
        // Go instantiates only a named type: tree-sitter-go reads `[]int[n]`
        // as `[]int` given the type argument `n`.
        if n.kind() == "type_instantiation_expression"
            && lang == SupportLang::Go
            && n.start_byte() >= span.start
            && let Some(t) = n
                .child_by_field_name("type")
                .filter(|t| !matches!(t.kind(), "type_identifier" | "qualified_type" | "identifier" | "selector_expression" | "generic_type"))
        {
            *found = Some(format!("`{}` is no named type, so it takes no type arguments", crate::engine::template::cut(&new[t.byte_range()])));
            return Next::Stop;
        }
        // JavaScript reads a `{` after `=>` as a block: tree-sitter may read
        // an object there.
        if n.kind() == "arrow_function"
            && want == "await_expression"
            && n.child_by_field_name("body").is_some_and(|b| {
                b.kind() != "statement_block" && new.as_bytes().get(b.start_byte()) == Some(&b'{') && b.start_byte() >= span.start && b.start_byte() < span.end
            })
        {
            *found = Some("the `{` after `=>` starts a block, not an object".to_string());
            return Next::Stop;
        }
        Next::ChildrenFrom(span.start)
    };
    // The nodes above the edit that start before the byte ahead of it are no
    // list or `await` of it, and break no rule here unless an f-string's `{}`.
    let from = if lang == SupportLang::Python && at.above() & marks::INTERPOLATION != 0 { 0 } else { at.first_from(span.start.saturating_sub(1)) };
    at.walk_from(from, &mut found, visit);
    found
}

/// A Go argument `a...` that is not the last of its list.
fn spread_not_last(list: Node<'_>, new: &str) -> Option<String> {
    let mut c = list.walk();
    let args: Vec<Node<'_>> = list.named_children(&mut c).filter(|a| !a.is_extra()).collect();
    let spread = args.iter().rev().skip(1).find(|a| a.kind() == "variadic_argument")?;
    Some(format!("`{}` is not the last argument", crate::engine::template::cut(&new[spread.byte_range()])))
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
            _ if keyword || double => {
                return Some(format!("the positional argument `{}` follows a keyword argument", crate::engine::template::cut(&new[a.byte_range()])));
            }
            _ => {}
        }
    }
    None
}

/// JavaScript kinds of functions.
const JS_FUNCTIONS: &[&str] =
    &["function_declaration", "function_expression", "function", "arrow_function", "method_definition", "generator_function", "generator_function_declaration"];

/// An `await` whose nearest function is not `async`.
fn outside_async(around: &Around<'_, '_>, at: Node<'_>) -> Option<String> {
    let root = around.root();
    let chain = around.ancestors(at.byte_range());
    let Some(f) = chain.iter().rev().find(|n| JS_FUNCTIONS.contains(&n.kind())) else {
        // At the top level: only a module may wait there, and a file with no
        // `import` or `export` is read as a script (CommonJS) by node.
        let mut c = root.walk();
        let module = root.children(&mut c).any(|n| matches!(n.kind(), "import_statement" | "export_statement"));
        return (!module).then(|| "`await` at the top level of a script (a file with no `import` or `export`, which node reads as CommonJS)".to_string());
    };
    (!is_async(*f)).then(|| "`await` in a function that is not `async`".to_string())
}

/// True when the function `f` (Python or JavaScript) starts with `async`,
/// among the keywords before its first part.
fn is_async(f: Node<'_>) -> bool {
    (0..f.child_count()).filter_map(|i| f.child(i)).take_while(|k| !k.is_named() || k.kind() == "async").any(|k| k.kind() == "async")
}
