//! What encloses a match of a search: the nearest named function, method,
//! class, `impl` or `mod` around it (`function load`), looked up among the
//! named scopes of its tree, found by one walk ([`scopes_of`]).

use super::{MAX_ENCLOSING_CHARS, text};

/// Node kinds that name what encloses a match, and the word shown for them.
/// Kinds are the grammars' own; one kind name means the same thing wherever
/// it occurs (`function_definition` in Python, C, C++, PHP and Bash).
const ENCLOSING: &[(&str, &str)] = &[
    ("function_definition", "function"),
    ("function_declaration", "function"),
    ("generator_function_declaration", "function"),
    ("function_item", "function"),
    ("variable_declarator", "function"),
    ("method_definition", "method"),
    ("method_declaration", "method"),
    ("method", "method"),
    ("singleton_method", "method"),
    ("constructor_declaration", "constructor"),
    ("class_definition", "class"),
    ("class_declaration", "class"),
    ("abstract_class_declaration", "class"),
    ("class_specifier", "class"),
    ("class", "class"),
    ("struct_specifier", "struct"),
    ("struct_item", "struct"),
    ("enum_item", "enum"),
    ("enum_declaration", "enum"),
    ("interface_declaration", "interface"),
    ("trait_item", "trait"),
    ("impl_item", "impl"),
    ("mod_item", "mod"),
    ("module", "module"),
    ("namespace_definition", "namespace"),
];

/// The nearest named function, method, class, `impl` or `mod` around `node` (a
/// match in the tree of `body`), as `function load`: the first ancestor of a kind
/// in [`ENCLOSING`] that has a name. `None` at the top level. It climbs with
/// tree-sitter's `Node::parent`, which walks down from the root on every call:
/// a search looks most matches up among the tree's scopes instead
/// ([`enclosing_among`]), and comes here only for the few it cannot settle.
fn enclosing(body: &str, node: tree_sitter::Node<'_>) -> Option<String> {
    let mut at = node.parent();
    while let Some(n) = at {
        if let Some(label) = scope_label(body, n) {
            return Some(label);
        }
        at = n.parent();
    }
    None
}

/// `function load` for a node of a kind in [`ENCLOSING`] that has a name.
fn scope_label(body: &str, n: tree_sitter::Node<'_>) -> Option<String> {
    let (_, word) = ENCLOSING.iter().find(|(kind, _)| *kind == n.kind())?;
    let name = name_of(body, n)?;
    Some(text::ellipsized(&format!("{word} {name}"), MAX_ENCLOSING_CHARS))
}

/// A named node of a kind in [`ENCLOSING`]: its bytes, its depth in the tree,
/// its id and the name shown (`function load`).
pub(super) struct Scope {
    start: usize,
    end: usize,
    depth: usize,
    id: usize,
    label: String,
}

/// Every named scope of the tree at `root` (of `body`), by one walk over it: a
/// search lists up to 200 matches of a file, and looking each one's scope up
/// among these costs no climb of its own (climbing 2,000 levels for each of 200
/// matches took 55 s).
pub(super) fn scopes_of(body: &str, root: tree_sitter::Node<'_>) -> Vec<Scope> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut depth = 0;
    loop {
        let n = cursor.node();
        if let Some(label) = scope_label(body, n) {
            out.push(Scope { start: n.start_byte(), end: n.end_byte(), depth, id: n.id(), label });
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return out;
            }
            depth -= 1;
        }
    }
}

/// [`enclosing`], looked up in the tree's `scopes`: the deepest that holds
/// more than the node's bytes is its nearest named ancestor (in a tree, a node
/// whose bytes strictly hold another's is its ancestor). A zero-width node, or
/// a scope with exactly its bytes (an ancestor or a child of the same extent),
/// is settled by [`enclosing`].
pub(super) fn enclosing_among(scopes: &[Scope], body: &str, node: tree_sitter::Node<'_>) -> Option<String> {
    let (start, end) = (node.start_byte(), node.end_byte());
    if start == end || scopes.iter().any(|s| s.start == start && s.end == end && s.id != node.id()) {
        return enclosing(body, node);
    }
    scopes.iter().filter(|s| s.start <= start && end <= s.end && (s.start, s.end) != (start, end)).max_by_key(|s| s.depth).map(|s| s.label.clone())
}

/// The name of a node of a kind in [`ENCLOSING`]: its `name` field; a Rust
/// `impl`'s type (and trait); a C or C++ function's innermost declarator; a
/// JavaScript or TypeScript variable's name when its value is a function.
/// Whitespace runs become one space.
fn name_of(body: &str, n: tree_sitter::Node<'_>) -> Option<String> {
    let text = |x: tree_sitter::Node<'_>| text::one_line(&body[x.byte_range()]);
    match n.kind() {
        "impl_item" => {
            let ty = text(n.child_by_field_name("type")?);
            Some(match n.child_by_field_name("trait") {
                Some(t) => format!("{} for {ty}", text(t)),
                None => ty,
            })
        }
        "variable_declarator" => {
            let value = n.child_by_field_name("value")?;
            let function = matches!(value.kind(), "arrow_function" | "function_expression" | "function" | "generator_function");
            function.then(|| n.child_by_field_name("name").map(text)).flatten()
        }
        "struct_specifier" | "class_specifier" => {
            n.child_by_field_name("body")?;
            n.child_by_field_name("name").map(text)
        }
        "function_definition" if n.child_by_field_name("name").is_none() => {
            // C and C++: `int *load(void)` names the function in its declarator.
            let mut d = n.child_by_field_name("declarator")?;
            while let Some(inner) = d.child_by_field_name("declarator") {
                d = inner;
            }
            Some(text(d))
        }
        _ => n.child_by_field_name("name").map(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_language::SupportLang;

    fn names(lang: SupportLang, src: &str, needle: &str) -> Option<String> {
        let grep = ast_grep_core::tree_sitter::LanguageExt::ast_grep(&lang, src);
        let at = src.find(needle).expect("the needle");
        let root = grep.root().get_inner_node();
        let node = root.descendant_for_byte_range(at, at + needle.len()).expect("a node");
        enclosing(src, node)
    }

    /// The scopes found once name the same enclosing scope as climbing with
    /// `parent`, for every node (named or not, zero-width MISSING ones
    /// included) of code in several languages, nested and with errors.
    #[test]
    fn scopes_name_what_the_climb_names_for_every_node() {
        let cases = [
            (SupportLang::Python, "class A:\n    def f(self):\n        return g(h(1), [x for x in y])\n\nf((((1))))\n"),
            (SupportLang::Rust, "mod m { impl K for T { fn f(&self) { a.b().c(); } } }\nfn g( {\n"),
            (SupportLang::C, "int f(void) { if (x) { return g(1) } }\n"),
            (SupportLang::JavaScript, "const f = () => { return [1, {a: `x${y}`}]; };\n"),
        ];
        for (lang, src) in cases {
            let grep = ast_grep_core::tree_sitter::LanguageExt::ast_grep(&lang, src);
            let root = grep.root().get_inner_node();
            let scopes = scopes_of(src, root);
            assert!(!scopes.is_empty(), "{lang:?}: no scope to look up");
            let mut stack = vec![root];
            let mut seen = 0;
            while let Some(n) = stack.pop() {
                assert_eq!(enclosing_among(&scopes, src, n), enclosing(src, n), "{lang:?} {} at {:?}", n.kind(), n.byte_range());
                seen += 1;
                let mut c = n.walk();
                stack.extend(n.children(&mut c));
            }
            assert!(seen > 20, "{lang:?}: {seen} nodes");
        }
    }

    #[test]
    fn enclosing_names_the_nearest_named_function_or_class() {
        use SupportLang::*;
        let py = "class AdminConfig:\n    def load(self):\n        return fetch(1)\n\nx = fetch(2)\n";
        assert_eq!(names(Python, py, "fetch(1)").as_deref(), Some("function load"));
        assert_eq!(names(Python, py, "fetch(2)"), None);
        assert_eq!(names(Python, "class A:\n    x = fetch(3)\n", "fetch(3)").as_deref(), Some("class A"));
        let rs = "mod store {\n    impl Display for Key {\n        fn fmt(&self) { a.unwrap(); }\n    }\n    impl Key { const K: u8 = b.unwrap(); }\n}\n";
        assert_eq!(names(Rust, rs, "a.unwrap()").as_deref(), Some("function fmt"));
        assert_eq!(names(Rust, rs, "b.unwrap()").as_deref(), Some("impl Key"));
        assert_eq!(names(Rust, "mod m { static S: u8 = c.unwrap(); }", "c.unwrap()").as_deref(), Some("mod m"));
        let ts = "class Api {\n  get() { return fetch(1); }\n}\nconst load = () => fetch(2);\nfunction run() { fetch(3); }\n";
        assert_eq!(names(TypeScript, ts, "fetch(1)").as_deref(), Some("method get"));
        assert_eq!(names(TypeScript, ts, "fetch(2)").as_deref(), Some("function load"));
        assert_eq!(names(TypeScript, ts, "fetch(3)").as_deref(), Some("function run"));
        let go = "package p\nfunc (s *S) Load() { f(1) }\nfunc main() { f(2) }\n";
        assert_eq!(names(Go, go, "f(1)").as_deref(), Some("method Load"));
        assert_eq!(names(Go, go, "f(2)").as_deref(), Some("function main"));
        assert_eq!(names(C, "static int *load(void) { return f(1); }\n", "f(1)").as_deref(), Some("function load"));
        let java = "class App {\n  void run() { f(1); }\n}\n";
        assert_eq!(names(Java, java, "f(1)").as_deref(), Some("method run"));
    }
}
