//! The syntax tree of a snippet or of a pattern, as plain data (`ast-edit tree`, MCP
//! `ast_tree`; docs/MCP.md, "ast_tree"): a pattern matches nodes of its root's kind, and
//! code parses differently alone than in context. [`dump`] parses the code as a file or
//! ([`TreeOptions::is_pattern`]) as ast-grep-core parses a pattern (the metavariables'
//! `$` replaced by the language's expando character, as `Language::pre_process_pattern`
//! does), and returns a [`TreeDump`] whose ranges and texts are the original code's, so
//! a metavariable shows as `$A`; [`render`] prints it. The result is bounded
//! ([`MAX_TREE_NODES`] and the other caps of docs/DESIGN.md §7; past a cap `truncated`).

use ast_grep_core::Language;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use serde::Serialize;

use crate::request::lang;
use crate::shared::error::{Error, Result};
use crate::shared::message::{Input, Name, Text, Words};
use crate::shared::text::plural;

/// Most bytes of code or pattern to show the tree of: the per-pattern limit of a
/// request (`request::MAX_PATTERN_BYTES`), since this is for snippets.
pub const MAX_CODE_BYTES: usize = crate::request::MAX_PATTERN_BYTES;

/// Most nodes shown; the walk stops (in document order) at the cap. A node's
/// JSON takes 80 to 200 characters (a list of small integers: 106 each), so under
/// [`MAX_TREE_CHARS`] this cap binds for ordinary code and the character cap for
/// long leaves; 300 named nodes is a snippet of about 30 lines.
pub const MAX_TREE_NODES: usize = 300;

/// Most characters of the tree's JSON (`root`, compact) and, separately, of its
/// text; the walk stops before a node that would pass either.
pub const MAX_TREE_CHARS: usize = 40_000;

/// Most levels of nodes shown (the root is level 1). Deeper nodes are counted in
/// their ancestor's `omitted`. Each level nests the JSON two deeper, and JSON
/// parsers refuse deep nesting (serde_json, rmcp's, at 128 levels): 50 levels keep
/// a whole MCP response within that.
pub const MAX_TREE_DEPTH: usize = 50;

/// Most characters of a leaf's text; a longer one is cut and ends with `…`.
pub const MAX_LEAF_CHARS: usize = 80;

/// What to show.
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeOptions {
    /// Parse as an ast-grep pattern (metavariables pre-processed).
    pub is_pattern: bool,
    /// Unnamed nodes (punctuation, keywords) too. ERROR and MISSING nodes are
    /// always shown.
    pub all: bool,
}

/// A position: 1-based line and column; columns count characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// One node of the tree.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// The node kind (for a MISSING node, the kind the parser inserted).
    pub kind: String,
    /// The grammar field the parent names this node by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Where it starts.
    pub start: Pos,
    /// Where it ends (the position just past its last character).
    pub end: Pos,
    /// The text of a node shown without children, cut at [`MAX_LEAF_CHARS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// False for an unnamed node (punctuation, keyword); absent when named.
    #[serde(skip_serializing_if = "is_true")]
    pub named: bool,
    /// An ERROR node: the parser could not fit this code into the grammar.
    #[serde(skip_serializing_if = "is_false")]
    pub error: bool,
    /// A MISSING node: the parser inserted it (zero width) to recover.
    #[serde(skip_serializing_if = "is_false")]
    pub missing: bool,
    /// In a pattern, the metavariable this node is (`$A`, `$$$ARGS`): ast-grep
    /// matches any node here and does not look inside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_var: Option<String>,
    /// Nodes below this one left out by [`MAX_TREE_DEPTH`].
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
    /// The children shown.
    pub children: Vec<TreeNode>,
}

fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The tree of a snippet.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeDump {
    /// The language's canonical name.
    pub lang: String,
    /// Parsed as a pattern.
    pub is_pattern: bool,
    /// The root node (always shown).
    pub root: TreeNode,
    /// ERROR and MISSING nodes in the whole tree (shown or not).
    pub errors: usize,
    /// A cap left nodes out.
    pub truncated: bool,
    /// Which caps left nodes out: `nodes` ([`MAX_TREE_NODES`]), `chars`
    /// ([`MAX_TREE_CHARS`]), `depth` ([`MAX_TREE_DEPTH`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub truncated_by: Vec<&'static str>,
    /// Nodes shown.
    pub nodes: usize,
    /// Nodes there are to show (named only, unless all), without the caps.
    pub total_nodes: usize,
    /// For a pattern: the kind of the node ast-grep matches with (absent when it
    /// has none: no node, several nodes, a metavariable alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern_root: Option<String>,
    /// For a pattern: one sentence on what it matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern_note: Option<String>,
}

/// The tree of `code` in the language named `lang_name` (a name or alias); an
/// unknown name is bad input ([`lang::Lang::parse`]). The pattern note names
/// inputs in the words of `words` (the front end's).
pub fn dump_named(code: &str, lang_name: &str, opts: TreeOptions, words: &dyn Words) -> Result<TreeDump> {
    dump(code, lang::Lang::parse(lang_name)?, opts, words)
}

/// The tree of `code` in `lang`, its pattern note in the words of `words`.
/// Bad input: code over [`MAX_CODE_BYTES`].
pub fn dump(code: &str, lang: lang::Lang, opts: TreeOptions, words: &dyn Words) -> Result<TreeDump> {
    let lang = lang.support();
    if code.len() > MAX_CODE_BYTES {
        return Err(Error::bad(format!(
            "the code is {} bytes; the limit is {MAX_CODE_BYTES} bytes per tree: show a smaller snippet (the piece of code the pattern is about)",
            code.len()
        )));
    }
    let parsed = if opts.is_pattern { Language::pre_process_pattern(&lang, code) } else { code.into() };
    let grep = lang.ast_grep(parsed.as_ref());
    let src = Source::new(code, &parsed);
    let root = grep.root().get_inner_node();
    let (total_nodes, errors) = count(root, opts);
    let walk = Walk { src: &src, lang, opts };
    let (tree, nodes, truncated_by) = walk.build(root);
    let (pattern_root, pattern_note) = match opts.is_pattern {
        true => {
            let (kind, note) = pattern_note(&walk, root, code, words);
            (kind, Some(note))
        }
        false => (None, None),
    };
    Ok(TreeDump {
        lang: lang::name(lang).to_string(),
        is_pattern: opts.is_pattern,
        root: tree,
        errors,
        truncated: !truncated_by.is_empty(),
        truncated_by,
        nodes,
        total_nodes,
        pattern_root,
        pattern_note,
    })
}

/// Whether a node is shown at all (before the caps).
fn shown(n: tree_sitter::Node<'_>, opts: TreeOptions) -> bool {
    opts.all || n.is_named() || n.is_error() || n.is_missing()
}

/// The nodes to show under `root` (itself included), and the ERROR and MISSING
/// nodes among all nodes.
fn count(root: tree_sitter::Node<'_>, opts: TreeOptions) -> (usize, usize) {
    let (mut nodes, mut errors) = (0, 0);
    crate::shared::nodes::preorder(root, |n| {
        nodes += usize::from(shown(n, opts));
        errors += usize::from(n.is_error() || n.is_missing());
    });
    (nodes, errors)
}

/// The original code and the parsed one (a pattern's `$` replaced), with what
/// maps a parsed byte offset to the original's line and column.
struct Source<'a> {
    code: &'a str,
    parsed: &'a str,
    /// Original byte offset of each parsed byte offset (`None`: the same text).
    to_code: Option<Vec<usize>>,
    /// The line breaks of `code`.
    lines: crate::shared::text::Breaks,
}

impl<'a> Source<'a> {
    fn new(code: &'a str, parsed: &'a str) -> Self {
        let to_code = (parsed != code).then(|| {
            // pre_process_pattern replaces characters one for one.
            let mut map = vec![0; parsed.len() + 1];
            for ((p, pc), (c, _)) in parsed.char_indices().zip(code.char_indices()) {
                map[p..p + pc.len_utf8()].fill(c);
            }
            map[parsed.len()] = code.len();
            map
        });
        Source { code, parsed, to_code, lines: crate::shared::text::Breaks::of(code) }
    }

    fn offset(&self, parsed_byte: usize) -> usize {
        match &self.to_code {
            Some(map) => map[parsed_byte.min(map.len() - 1)],
            None => parsed_byte.min(self.code.len()),
        }
    }

    fn pos(&self, parsed_byte: usize) -> Pos {
        let at = self.offset(parsed_byte);
        let start = self.lines.line_start(at);
        Pos { line: self.lines.line(at), column: self.code[start..at].chars().count() + 1 }
    }

    /// `n`'s range as `line:col-line:col`.
    fn range(&self, n: tree_sitter::Node<'_>) -> String {
        let (s, e) = (self.pos(n.start_byte()), self.pos(n.end_byte()));
        format!("{}:{}-{}:{}", s.line, s.column, e.line, e.column)
    }

    /// `n`'s text as parsed (a pattern's metavariables pre-processed).
    fn parsed_text(&self, n: tree_sitter::Node<'_>) -> &'a str {
        self.parsed.get(n.start_byte()..n.end_byte()).unwrap_or_default()
    }

    fn text(&self, n: tree_sitter::Node<'_>) -> &'a str {
        &self.code[self.offset(n.start_byte())..self.offset(n.end_byte())]
    }
}

/// Builds the [`TreeNode`]s within the caps.
struct Walk<'s> {
    src: &'s Source<'s>,
    lang: SupportLang,
    opts: TreeOptions,
}

/// One node on the walk's path: its tree node when shown.
struct Frame {
    node: Option<TreeNode>,
    /// Inside (or at) a metavariable: its children are not metavariables.
    in_meta: bool,
}

/// What the caps have used so far.
#[derive(Default)]
struct Budget {
    nodes: usize,
    json: usize,
    text: usize,
}

impl Walk<'_> {
    /// The tree of `root`, the nodes shown, and the caps that left some out.
    fn build(&self, root: tree_sitter::Node<'_>) -> (TreeNode, usize, Vec<&'static str>) {
        let mut budget = Budget::default();
        let mut cut_by: Vec<&'static str> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        let mut done: Option<TreeNode> = None;
        let mut cursor = root.walk();
        'walk: loop {
            let n = cursor.node();
            let depth = stack.iter().filter(|f| f.node.is_some()).count();
            let in_meta = stack.last().is_some_and(|f| f.in_meta);
            let mut frame = Frame { node: None, in_meta };
            let mut descend = true;
            if shown(n, self.opts) || stack.is_empty() {
                let mut node = self.node(n, cursor.field_name(), in_meta);
                frame.in_meta = in_meta || node.meta_var.is_some();
                if depth + 1 >= MAX_TREE_DEPTH && n.child_count() > 0 {
                    node.omitted = count(n, self.opts).0 - 1;
                    if node.omitted > 0 {
                        node.text = None;
                        cut_by.push("depth");
                    }
                    descend = false;
                }
                if let Err(cap) = budget.take(&node, depth) {
                    cut_by.push(cap);
                    break 'walk;
                }
                frame.node = Some(node);
            }
            stack.push(frame);
            if descend && cursor.goto_first_child() {
                continue;
            }
            loop {
                close(&mut stack, &mut done);
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        while !stack.is_empty() {
            close(&mut stack, &mut done);
        }
        cut_by.sort_unstable();
        cut_by.dedup();
        (done.expect("the root is always shown"), budget.nodes, cut_by)
    }

    /// The tree node of `n`, without children; leaf text set for a node that has
    /// no child to show.
    fn node(&self, n: tree_sitter::Node<'_>, field: Option<&str>, in_meta: bool) -> TreeNode {
        let text = self.src.text(n);
        let meta_var = (self.opts.is_pattern && !in_meta && is_meta_var(self.lang, n, self.src)).then(|| text.to_string());
        let mut has_shown_child = false;
        if n.child_count() > 0 {
            let mut c = n.walk();
            has_shown_child = n.children(&mut c).any(|c| shown(c, self.opts));
        }
        TreeNode {
            kind: n.kind().to_string(),
            field: field.map(str::to_string),
            start: self.src.pos(n.start_byte()),
            end: self.src.pos(n.end_byte()),
            text: (!has_shown_child && !n.is_missing()).then(|| crate::shared::text::ellipsized(text, MAX_LEAF_CHARS)),
            named: n.is_named(),
            error: n.is_error(),
            missing: n.is_missing(),
            meta_var,
            omitted: 0,
            children: Vec::new(),
        }
    }
}

impl Budget {
    /// Counts `node` (at `depth` levels below the root) in, unless it would pass
    /// a cap: `Err` names that cap.
    fn take(&mut self, node: &TreeNode, depth: usize) -> std::result::Result<(), &'static str> {
        // Compact JSON, as sent; its bytes bound its characters.
        let json = serde_json::to_string(node).map_or(0, |s| s.len()) + 1;
        let text = line(node, depth).chars().count() + 1;
        if self.nodes + 1 > MAX_TREE_NODES {
            return Err("nodes");
        }
        if self.json + json > MAX_TREE_CHARS || self.text + text > MAX_TREE_CHARS {
            return Err("chars");
        }
        self.nodes += 1;
        self.json += json;
        self.text += text;
        Ok(())
    }
}

/// Pops the top frame; a shown node joins its nearest shown ancestor (or becomes
/// the root).
fn close(stack: &mut Vec<Frame>, done: &mut Option<TreeNode>) {
    let Some(Frame { node: Some(node), .. }) = stack.pop() else { return };
    match stack.iter_mut().rev().find_map(|f| f.node.as_mut()) {
        Some(parent) => parent.children.push(node),
        None => *done = Some(node),
    }
}

/// True when ast-grep takes node `n` of a parsed pattern as a metavariable: its
/// whole pre-processed text is one (`convert_node_to_pattern` in ast-grep-core).
fn is_meta_var(lang: SupportLang, n: tree_sitter::Node<'_>, src: &Source<'_>) -> bool {
    lang.extract_meta_var(src.parsed_text(n)).is_some()
}

/// The kind as printed: `ERROR`, `MISSING ;`, a named kind as is, an unnamed one
/// quoted (`"("`), as tree-sitter queries write them.
fn shown_kind(n: &TreeNode) -> String {
    if n.missing {
        format!("MISSING {}", n.kind)
    } else if n.named {
        n.kind.clone()
    } else {
        quote(&n.kind)
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// One line of the text: indentation, `field: `, kind, range, then the leaf's text
/// (unless an unnamed node's text is its kind) or the metavariable.
fn line(n: &TreeNode, depth: usize) -> String {
    let mut s = format!(
        "{:indent$}{}{} {}:{}-{}:{}",
        "",
        n.field.as_deref().map(|f| format!("{f}: ")).unwrap_or_default(),
        shown_kind(n),
        n.start.line,
        n.start.column,
        n.end.line,
        n.end.column,
        indent = 2 * depth
    );
    if let Some(mv) = &n.meta_var {
        s.push_str(&format!(" metavariable {mv}"));
    } else if let Some(t) = n.text.as_deref().filter(|t| n.named || *t != n.kind) {
        s.push(' ');
        s.push_str(&quote(t));
    }
    if n.omitted > 0 {
        s.push_str(&format!(" … {} below not shown (depth cap {MAX_TREE_DEPTH})", plural(n.omitted, "node")));
    }
    s
}

/// The text of a dump: the tree, one node per line, then a line for each of:
/// the caps (when truncated), the ERROR and MISSING nodes, the pattern's root.
pub fn render(d: &TreeDump) -> String {
    let mut out = String::new();
    render_node(&d.root, 0, &mut out);
    if d.truncated {
        let caps: Vec<String> = d.truncated_by.iter().map(|c| cap_text(c)).collect();
        out.push_str(&format!(
            "… truncated: showed {} of {}, at the cap of {}; show a smaller snippet.\n",
            d.nodes,
            plural(d.total_nodes, "node"),
            caps.join(" and the cap of ")
        ));
    }
    if d.errors > 0 {
        let s = if d.errors == 1 { "" } else { "s" };
        out.push_str(&format!("{} ERROR or MISSING node{s}: this code does not parse cleanly as {}.\n", d.errors, d.lang));
    }
    if let Some(note) = &d.pattern_note {
        out.push_str(note);
        out.push('\n');
    }
    out
}

/// A cap as the truncation line names it.
fn cap_text(cap: &str) -> String {
    match cap {
        "nodes" => format!("{MAX_TREE_NODES} nodes"),
        "chars" => format!("{MAX_TREE_CHARS} characters (of JSON or of text)"),
        _ => format!("{MAX_TREE_DEPTH} levels deep"),
    }
}

fn render_node(n: &TreeNode, depth: usize, out: &mut String) {
    out.push_str(&line(n, depth));
    out.push('\n');
    for c in &n.children {
        render_node(c, depth + 1, out);
    }
}

/// The pattern's root as ast-grep-core picks it (`PatternBuilder::single`,
/// `Pattern::single_matcher`): refused when the tree has no node or several at
/// the top; else it descends through nodes with one child (or one and a trailing
/// MISSING or empty one). Returns its kind (when it is a node ast-grep matches
/// by kind) and one sentence.
fn pattern_note(walk: &Walk<'_>, root: tree_sitter::Node<'_>, code: &str, words: &dyn Words) -> (Option<String>, String) {
    let selector = || Text::from("").name(Name::Input(Input::Selector)).render(words);
    let lowercase = lowercase_meta_hint(code);
    if root.child_count() == 0 {
        return (None, format!("Pattern: no node; ast-grep refuses an empty pattern.{lowercase}"));
    }
    if !is_single_node(root) {
        let mut c = root.walk();
        let kinds: Vec<String> = root.children(&mut c).take(4).map(|n| format!("`{}`", n.kind())).collect();
        return (
            None,
            format!(
                "Pattern: {} at the top ({}): ast-grep refuses it (\"Multiple AST nodes are detected\"); write one node, or give this code as context with {} naming the node to match.{lowercase}",
                plural(root.child_count() as usize, "node"),
                kinds.join(", "),
                selector()
            ),
        );
    }
    let mut wrappers = vec![root];
    while is_single_node(*wrappers.last().expect("the root")) {
        let inner = wrappers.last().and_then(|n| n.child(0)).expect("a single child");
        wrappers.push(inner);
    }
    let node = wrappers.pop().expect("the pattern's root");
    let text = walk.src.text(node);
    let at = walk.src.range(node);
    match walk.lang.extract_meta_var(walk.src.parsed_text(node)) {
        Some(MetaVariable::MultiCapture(_) | MetaVariable::Multiple) => {
            return (
                None,
                format!(
                    "Pattern root: the metavariable `{text}` alone: ast-grep refuses a standalone multi metavariable; use `$A`, or wrap `{text}` in a larger pattern."
                ),
            );
        }
        Some(_) => return (None, format!("Pattern root: the metavariable `{text}`: it matches any single node.")),
        None => {}
    }
    let semi = semicolon_hint(code, walk.lang);
    if node.is_error() {
        return (
            Some(node.kind().to_string()),
            format!(
                "Pattern root: `ERROR` at {at}: a pattern whose root is an ERROR node matches nothing; write complete code of the language{semi}.{lowercase}"
            ),
        );
    }
    let kind = node.kind();
    let health = pattern_health(walk.lang, root, &wrappers, &semi);
    (
        Some(kind.to_string()),
        format!(
            "Pattern root: `{kind}` at {at}: the pattern matches `{kind}` nodes (a rule's `kind`/`selector` would name `{kind}`); to match a node inside it, give this code as context with {} set to that node's kind.{health}{lowercase}",
            selector()
        ),
    )
}

/// What an edit makes of the ERROR and MISSING nodes of a pattern whose root is
/// not one (as `compile` checks it, docs/DESIGN.md section 2.3): an ERROR node
/// that only wraps the snippet is matched through; any other ERROR node, and in C
/// and C++ a MISSING one, gets the pattern refused.
fn pattern_health(lang: SupportLang, root: tree_sitter::Node<'_>, wrappers: &[tree_sitter::Node<'_>], semi: &str) -> String {
    let strict_missing = matches!(lang, SupportLang::C | SupportLang::Cpp);
    let mut refused = 0;
    crate::shared::nodes::preorder(root, |n| refused += usize::from((n.is_error() && !wrappers.contains(&n)) || (strict_missing && n.is_missing())));
    if refused > 0 {
        let s = if refused == 1 { "" } else { "s" };
        return format!(
            " Its tree holds {refused} ERROR or MISSING node{s}: it would match nothing or the wrong code, and an edit or search refuses it{semi}."
        );
    }
    if wrappers.iter().any(|n| n.is_error()) {
        return " The ERROR node around it only wraps the snippet: ast-grep matches through it.".to_string();
    }
    String::new()
}

/// For languages whose statements end in `;`, a hint to add it (as `compile`
/// gives it).
fn semicolon_hint(code: &str, lang: SupportLang) -> String {
    use SupportLang::*;
    let t = code.trim_end();
    let needs = matches!(lang, C | Cpp | Java | CSharp | Php | Dart) && !t.ends_with(';') && !t.ends_with('}');
    if needs { format!(" (in {} a statement needs its `;`: try `{t};`)", lang::name(lang)) } else { String::new() }
}

/// ast-grep-core's `is_single_node`: one child, or two whose second is MISSING or
/// of an empty kind.
fn is_single_node(n: tree_sitter::Node<'_>) -> bool {
    match n.child_count() {
        1 => true,
        2 => n.child(1).is_some_and(|c| c.is_missing() || c.kind().is_empty()),
        _ => false,
    }
}

/// A hint when the pattern has `$` before a lower-case letter (`$a`), which is
/// not a metavariable.
fn lowercase_meta_hint(code: &str) -> String {
    let b = code.as_bytes();
    let found = (0..b.len()).find(|&i| b[i] == b'$' && b.get(i + 1).is_some_and(u8::is_ascii_lowercase));
    match found {
        Some(i) => {
            let name: String = code[i + 1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            format!(" Note: `${name}` is not a metavariable (names are capital letters, digits and `_`: `${}`), so it is parsed as code.", name.to_uppercase())
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(code: &str, lang: SupportLang) -> TreeDump {
        dump(code, lang::Lang::of(lang), TreeOptions { is_pattern: true, all: false }, &crate::shared::message::Plain).unwrap()
    }

    #[test]
    fn columns_count_characters_of_the_original_pattern() {
        // `$` becomes `µ` (2 bytes) in Python before parsing; é and ñ are 2 bytes.
        let d = pattern("é = $A + ñ", SupportLang::Python);
        let right = &d.root.children[0].children[0].children[1];
        assert_eq!(right.kind, "binary_operator");
        let (a, n) = (&right.children[0], &right.children[1]);
        assert_eq!((a.meta_var.as_deref(), a.text.as_deref(), a.start.column, a.end.column), (Some("$A"), Some("$A"), 5, 7));
        assert_eq!((n.text.as_deref(), n.start, n.end), (Some("ñ"), Pos { line: 1, column: 10 }, Pos { line: 1, column: 11 }));
    }

    #[test]
    fn only_the_outermost_node_of_a_metavariable_is_marked() {
        // Go wraps `$A` in an expression_list; ast-grep stops at the outer node.
        let d = pattern("$A = 0", SupportLang::Go);
        let left = &d.root.children[0].children[0];
        assert_eq!((left.kind.as_str(), left.meta_var.as_deref()), ("expression_list", Some("$A")));
        assert_eq!(left.children[0].meta_var, None);
        assert_eq!(d.pattern_root.as_deref(), Some("assignment_statement"));
    }

    #[test]
    fn code_is_not_pre_processed_unless_it_is_a_pattern() {
        let d = dump("f($A)", lang::Lang::of(SupportLang::Python), TreeOptions::default(), &crate::shared::message::Plain).unwrap();
        assert!(d.errors > 0, "`$` is not Python");
        assert_eq!(pattern("f($A)", SupportLang::Python).errors, 0);
    }

    #[test]
    fn several_nodes_at_the_top_are_refused_as_ast_grep_does() {
        let d = pattern("a\nb", SupportLang::Python);
        assert_eq!(d.pattern_root, None);
        assert!(d.pattern_note.unwrap().contains("\"Multiple AST nodes are detected\""));
    }
}
