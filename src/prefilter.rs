//! What a file's bytes must contain for an op to match, so that a file without it
//! is skipped before the parse (parsing is nearly all of a dry run's cost).
//!
//! Two kinds of evidence, both derived from the compiled pattern and from how
//! ast-grep-core compares it with the code (`match_tree` in ast-grep-core 0.51.1):
//!
//! - **Literals**: the text of every named leaf (identifier, number, string
//!   content), and under `cst`/`smart` the pattern's word-like keywords.
//! - **Adjacent pairs**: two literals that the matcher lines up with two code
//!   tokens between which only tokens it skips can sit: unnamed tokens
//!   (punctuation, keywords), comments and whitespace. `Object.assign` needs
//!   `Object`, then such a gap, then `assign`: a file holding `Object` and
//!   `assign` only far apart cannot match. Checked in the languages whose
//!   comment syntax and unnamed tokens [`Gap`] knows.
//!
//! Every rule here must stay sound: a file rejected by it has no match. The
//! proptests in `engine` and the CLI test run with the prefilter on and off.

use std::collections::HashSet;

use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::Pattern;
use ast_grep_language::SupportLang;

use crate::request::Strictness;

/// What a file must contain for one op (compiled for one language) to match.
pub struct Prefilter {
    /// Texts every match contains, longest first. Empty when none is sound.
    pub literals: Vec<String>,
    /// Literal pairs `(a, b)`: every match holds `a`, then a [`Gap`], then `b`.
    pub pairs: Vec<(String, String)>,
    gap: Option<Gap>,
}

impl Prefilter {
    /// Derives the prefilter of `pattern` under `strictness` in `lang`.
    pub fn new(pattern: &Pattern, strictness: Strictness, lang: SupportLang) -> Prefilter {
        if strictness == Strictness::Signature {
            // Signature compares kinds only, never text.
            return Prefilter { literals: Vec::new(), pairs: Vec::new(), gap: None };
        }
        let cx = Cx { keywords: matches!(strictness, Strictness::Cst | Strictness::Smart), lang, ts: lang.get_ts_language() };
        let mut literals = Vec::new();
        cx.literals(&pattern.node, false, &mut literals);
        // Longest first: the rarest text usually rejects a file soonest.
        literals.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let gap = Gap::for_lang(lang);
        let mut pairs = Vec::new();
        if gap.is_some() {
            cx.pairs(&pattern.node, &mut pairs);
        }
        Prefilter { literals, pairs, gap }
    }

    /// True when `text` holds every literal and every pair (so it may match).
    pub fn may_match(&self, text: &[u8]) -> bool {
        self.literals.iter().all(|l| match &self.gap {
            Some(_) => whole_tokens(text, l.as_bytes()).next().is_some(),
            None => memchr::memmem::find(text, l.as_bytes()).is_some(),
        }) && self.pairs.iter().all(|(a, b)| self.gap.as_ref().is_some_and(|g| g.has_pair(text, a.as_bytes(), b.as_bytes())))
    }
}

struct Cx {
    keywords: bool,
    lang: SupportLang,
    ts: tree_sitter::Language,
}

impl Cx {
    /// The text a match must hold for this pattern leaf, if any.
    ///
    /// A named leaf is compared by kind *and* text under every strictness but
    /// `signature`. An unnamed leaf is compared by kind only, and only under `cst`
    /// and `smart` (the looser levels skip it), except right after a `$$$`
    /// ellipsis, where the matcher skips it. A node of a keyword's kind holds
    /// exactly the keyword when the grammar makes that kind only from the string
    /// token ([`keyword_kinds_are_literal`]). The kind's name is used, not the
    /// pattern's text: tree-sitter-typescript gives some unnamed nodes a span wider
    /// than their token.
    fn literal(&self, n: &PatternNode, after_ellipsis: bool) -> Option<String> {
        match n {
            PatternNode::Terminal { kind_id: u16::MAX, .. } => None,
            PatternNode::Terminal { text, is_named: true, .. } => (!text.trim().is_empty()).then(|| text.clone()),
            PatternNode::Terminal { is_named: false, kind_id, .. } => {
                if !self.keywords || after_ellipsis {
                    return None;
                }
                let kind = self.ts.node_kind_for_id(*kind_id)?;
                (is_word(kind) && keyword_kinds_are_literal(self.lang, kind)).then(|| kind.to_string())
            }
            _ => None,
        }
    }

    fn literals(&self, n: &PatternNode, after_ellipsis: bool, out: &mut Vec<String>) {
        match n {
            PatternNode::Internal { children, .. } => {
                let mut after = false;
                for c in children {
                    self.literals(c, after, out);
                    after = match c {
                        PatternNode::MetaVar { meta_var: MetaVariable::Multiple | MetaVariable::MultiCapture(_) } => true,
                        c if c.is_trivial() => after,
                        _ => false,
                    };
                }
            }
            _ => {
                if let Some(t) = self.literal(n, after_ellipsis) {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
        }
    }

    /// For each child, whether it comes right after a `$$$` ellipsis (with only
    /// unnamed leaves between): the matcher skips such a leaf.
    fn after_ellipsis(children: &[PatternNode]) -> Vec<bool> {
        let mut after = false;
        children
            .iter()
            .map(|c| {
                let here = after;
                after = match c {
                    PatternNode::MetaVar { meta_var: MetaVariable::Multiple | MetaVariable::MultiCapture(_) } => true,
                    c if c.is_trivial() => after,
                    _ => false,
                };
                here
            })
            .collect()
    }

    fn kind(&self, n: &PatternNode) -> Option<&str> {
        match n {
            PatternNode::Terminal { kind_id, .. } | PatternNode::Internal { kind_id, .. } => self.ts.node_kind_for_id(*kind_id),
            PatternNode::MetaVar { .. } => None,
        }
    }

    /// Pairs `(a, b)`: the code token of `a` is followed, after only tokens the
    /// matcher skips or lines up with the pattern's unnamed leaves, by the code
    /// token of `b`. `a` is a leaf child of a pattern node, or the last literal
    /// of one (see [`Cx::last_literal`]); `b` is the next leaf after it, reached
    /// across unnamed leaves only: a later sibling, or the first leaf of the next
    /// sibling (descending through first children). Between the two the matcher
    /// skips only code nodes that are unnamed or extras (comments).
    fn pairs(&self, n: &PatternNode, out: &mut Vec<(String, String)>) {
        let PatternNode::Internal { children, .. } = n else { return };
        let after = Self::after_ellipsis(children);
        for (i, c) in children.iter().enumerate() {
            self.pairs(c, out);
            let a = match c {
                PatternNode::Terminal { .. } => self.literal(c, after[i]),
                PatternNode::Internal { .. } => self.last_literal(c),
                PatternNode::MetaVar { .. } => None,
            };
            let Some(a) = a else { continue };
            // A metavariable between `a` and `b` stops the walk.
            for next in &children[i + 1..] {
                match next {
                    PatternNode::Terminal { is_named: false, .. } => match self.literal(next, false) {
                        Some(b) => {
                            out.push((a.clone(), b));
                            break;
                        }
                        None => continue,
                    },
                    PatternNode::Internal { .. } => {
                        if let Some(b) = self.first_literal(next) {
                            out.push((a.clone(), b));
                        }
                        break;
                    }
                    _ => {
                        if let Some(b) = self.literal(next, false) {
                            out.push((a.clone(), b));
                        }
                        break;
                    }
                }
            }
        }
        out.sort();
        out.dedup();
    }

    /// The literal leaf that ends `n` in every match, if only unnamed leaves
    /// follow it in the pattern and the grammar lets only unnamed tokens follow
    /// inside each node it ends ([`crate::tight_ends`]): under `smart` a node's
    /// trailing children are skipped whatever they are, so without that
    /// knowledge anything could sit between this leaf and the next one.
    fn last_literal(&self, n: &PatternNode) -> Option<String> {
        let PatternNode::Internal { children, .. } = n else { return None };
        let last = children.last()?;
        if !crate::tight_ends::tight(self.lang, self.kind(n)?, self.kind(last)?) {
            return None;
        }
        let after = Self::after_ellipsis(children);
        for (i, c) in children.iter().enumerate().rev() {
            match c {
                PatternNode::Terminal { is_named: false, .. } if self.literal(c, after[i]).is_none() => continue,
                PatternNode::Terminal { .. } => return self.literal(c, after[i]),
                PatternNode::Internal { .. } => return self.last_literal(c),
                PatternNode::MetaVar { .. } => return None,
            }
        }
        None
    }

    /// The first literal leaf of `n` if only unnamed leaves come before it.
    fn first_literal(&self, n: &PatternNode) -> Option<String> {
        match n {
            PatternNode::Internal { children, .. } => {
                for c in children {
                    match c {
                        PatternNode::Terminal { is_named: false, .. } => match self.literal(c, false) {
                            Some(b) => return Some(b),
                            None => continue,
                        },
                        PatternNode::Internal { .. } => return self.first_literal(c),
                        _ => return self.literal(c, false),
                    }
                }
                None
            }
            _ => self.literal(n, false),
        }
    }
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The offsets where `lit` occurs in `text` (overlapping ones too) and may be a
/// whole token: a word-like literal must not be followed by a letter, digit or
/// `_`. Sound in the languages [`Gap`] knows: each has a `word` token
/// (identifier) whose characters include those, so the lexer, which takes the
/// longest match, never ends an identifier or a keyword before one of them, and
/// their other tokens that can hold such a text (string content, template
/// text) end only at a quote, a backslash, `{` or `$`. Not checked on the left:
/// broken code such as `1foo` lexes as a number and then `foo`.
fn whole_tokens<'a>(text: &'a [u8], lit: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let finder = memchr::memmem::Finder::new(lit);
    let word = is_word(std::str::from_utf8(lit).unwrap_or(""));
    let mut at = 0;
    std::iter::from_fn(move || {
        let p = at + finder.find(&text[at..])?;
        at = p + 1;
        Some(p)
    })
    .filter(move |&p| !word || !text.get(p + lit.len()).is_some_and(|b| is_word_byte(*b)))
}

/// True when every node of the unnamed, word-like `kind` in `lang` holds exactly
/// the text `kind`: the grammar makes it only from the string token `kind`.
///
/// Derived from each grammar's `src/grammar.json` (the versions in Cargo.lock), by
/// listing the unnamed aliases whose content is not that same string, and the
/// external-scanner tokens named by a word. Excluded for that reason: PHP
/// (case-insensitive keywords: `alias(/function/i, 'function')`), Swift (`as`,
/// `async` from the scanner), Scala (`case` by alias; `else`, `with` and others from
/// the scanner), HTML (`doctype`), Python's `except` and Bash's `esac` (scanner).
/// Markdown and Zig are excluded until someone checks their grammars.
pub fn keyword_kinds_are_literal(lang: SupportLang, kind: &str) -> bool {
    use SupportLang::*;
    match lang {
        Python => kind != "except",
        Bash => kind != "esac",
        C | Cpp | CSharp | Css | Dart | Elixir | Go | Haskell | Hcl | Java | JavaScript | Json | Kotlin | Lua | Nix
        | Ruby | Rust | Solidity | Tsx | TypeScript | Yaml => true,
        _ => false,
    }
}

/// How comments are written, for the languages [`Gap`] knows.
#[derive(Clone, Copy)]
enum Comments {
    /// `//` to the end of the line and `/* */`.
    CLike {
        /// `/* */` nests (Rust).
        nested: bool,
        /// A `\` at the end of a `//` line continues the comment (C, C++).
        backslash_lines: bool,
        /// `<!--` and `-->` start comments to the end of the line (JS, TS).
        html: bool,
    },
    /// `#` to the end of the line (Python).
    Hash,
}

/// What may sit between two code tokens that the matcher lines up with two
/// adjacent pattern leaves: whitespace, comments, punctuation, and the words
/// of the language's unnamed tokens (keywords). A word outside that set is a
/// named node (an identifier, a number), which the matcher does not skip, so an
/// occurrence of the pair with such a word between its halves is not a match.
///
/// The languages are those whose grammar (`src/grammar.json`, versions in
/// Cargo.lock) has only whitespace, comments and line continuations as extras,
/// and no hidden token made of letters outside comments and strings: JavaScript,
/// TypeScript, TSX, Rust, C, C++, Go, Java, Python. Anything the scanner cannot
/// judge (a non-ASCII byte, an unterminated comment, a gap over
/// [`Gap::MAX_GAP`] bytes) counts as a possible match.
pub struct Gap {
    comments: Comments,
    words: HashSet<Vec<u8>>,
}

impl Gap {
    /// A longer gap is not scanned: the pair counts as present.
    pub const MAX_GAP: usize = 4096;

    fn for_lang(lang: SupportLang) -> Option<Gap> {
        use SupportLang::*;
        let comments = match lang {
            JavaScript | TypeScript | Tsx => Comments::CLike { nested: false, backslash_lines: false, html: true },
            Rust => Comments::CLike { nested: true, backslash_lines: false, html: false },
            C | Cpp => Comments::CLike { nested: false, backslash_lines: true, html: false },
            Go | Java => Comments::CLike { nested: false, backslash_lines: false, html: false },
            Python => Comments::Hash,
            _ => return None,
        };
        // Every word inside the name of an unnamed or hidden kind: more words
        // than needed only makes the check accept more.
        let ts = lang.get_ts_language();
        let mut words = HashSet::new();
        for id in 0..ts.node_kind_count() as u16 {
            if ts.node_kind_is_named(id) && ts.node_kind_is_visible(id) {
                continue;
            }
            let Some(name) = ts.node_kind_for_id(id) else { continue };
            for w in name.as_bytes().split(|b| !is_word_byte(*b)).filter(|w| !w.is_empty()) {
                words.insert(w.to_vec());
            }
        }
        Some(Gap { comments, words })
    }

    /// True when some occurrence of `a` in `text` is followed by a gap and `b`.
    fn has_pair(&self, text: &[u8], a: &[u8], b: &[u8]) -> bool {
        whole_tokens(text, a).any(|at| self.gap_then(text, at + a.len(), b))
    }

    /// True when `text[from..]` may be a gap followed by `b`.
    fn gap_then(&self, text: &[u8], from: usize, b: &[u8]) -> bool {
        let mut i = from;
        loop {
            if text[i..].starts_with(b) && !(is_word(std::str::from_utf8(b).unwrap_or("")) && text.get(i + b.len()).is_some_and(|c| is_word_byte(*c))) {
                return true;
            }
            let Some(&c) = text.get(i) else { return false };
            if c >= 0x80 || i - from > Self::MAX_GAP {
                return true;
            }
            if let Some(end) = self.comment_end(text, i) {
                match end {
                    Some(e) => i = e,
                    None => return true,
                }
                continue;
            }
            if is_word_byte(c) {
                let end = i + text[i..].iter().take_while(|b| is_word_byte(**b)).count();
                if !self.words.contains(&text[i..end]) {
                    return false;
                }
                i = end;
                continue;
            }
            i += 1;
        }
    }

    /// If a comment starts at `i`: `Some(end)` with the offset after it, or
    /// `Some(None)` when it does not end.
    fn comment_end(&self, text: &[u8], i: usize) -> Option<Option<usize>> {
        let rest = &text[i..];
        let line_end = |from: usize, backslash: bool| -> Option<usize> {
            let mut at = from;
            loop {
                let nl = at + memchr::memchr(b'\n', &text[at..])?;
                let body = text[..nl].strip_suffix(b"\r").unwrap_or(&text[..nl]);
                if backslash && body.ends_with(b"\\") {
                    at = nl + 1;
                    continue;
                }
                return Some(nl + 1);
            }
        };
        match self.comments {
            Comments::Hash => rest.starts_with(b"#").then(|| line_end(i, false)),
            Comments::CLike { nested, backslash_lines, html } => {
                if rest.starts_with(b"//") {
                    Some(line_end(i, backslash_lines))
                } else if html && (rest.starts_with(b"<!--") || rest.starts_with(b"-->")) {
                    Some(line_end(i, false))
                } else if rest.starts_with(b"/*") {
                    let mut depth = 1;
                    let mut at = i + 2;
                    while at + 1 < text.len() {
                        if text[at] == b'*' && text[at + 1] == b'/' {
                            depth -= 1;
                            at += 2;
                            if depth == 0 {
                                return Some(Some(at));
                            }
                        } else if nested && text[at] == b'/' && text[at + 1] == b'*' {
                            depth += 1;
                            at += 2;
                        } else {
                            at += 1;
                        }
                    }
                    Some(None)
                } else {
                    None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(pat: &str, lang: SupportLang) -> Prefilter {
        Prefilter::new(&Pattern::new(pat, lang), Strictness::Smart, lang)
    }

    #[test]
    fn pairs_are_leaves_with_only_unnamed_leaves_between() {
        use SupportLang::*;
        let p = pf("Object.assign({}, $A)", TypeScript);
        assert_eq!(p.pairs, vec![("Object".to_string(), "assign".to_string())]);
        // `parse` ends the member expression, and the grammar lets nothing follow a
        // property there, so it pairs with the first leaf of the arguments.
        let p = pf("JSON.parse(JSON.stringify($A))", JavaScript);
        assert_eq!(p.pairs, vec![("JSON".into(), "parse".into()), ("JSON".into(), "stringify".into()), ("parse".into(), "JSON".into())]);
        // An `else` may trail the `if` (the matcher skips it), so `b` does not
        // pair with `parse`, and a file where an else sits between still matches.
        let p = pf("{ if (a) b; parse; }", JavaScript);
        assert!(!p.pairs.contains(&("b".into(), "parse".into())), "{:?}", p.pairs);
        assert!(p.may_match(b"{ if (a) b; else a; parse; }"));
        // Only punctuation after `getcwd`: one pair.
        assert_eq!(pf("os.getcwd()", Python).pairs, vec![("os".to_string(), "getcwd".to_string())]);
        // A keyword and the first leaf of the next sibling.
        assert_eq!(pf("$A as any", TypeScript).pairs, vec![("as".to_string(), "any".to_string())]);
        // A metavariable between two leaves breaks the pair.
        assert!(pf("foo($A, bar)", JavaScript).pairs.is_empty());
        // Whole tokens: `unwrap` must not run on into `unwrap_or`.
        let p = pf("$A.unwrap()", Rust);
        assert!(!p.may_match(b"x.unwrap_or(1); y.unwrapped()") && p.may_match(b"x.unwrap_or(1); y.unwrap()"));
        assert!(p.may_match(b"aunwrap unwrap"), "not checked on the left");
        // No gap rules for this language: no pairs.
        assert!(pf("foo.bar", SupportLang::Ruby).pairs.is_empty());
    }

    #[test]
    fn a_gap_holds_only_what_the_matcher_skips() {
        let p = pf("Object.assign({}, $A)", SupportLang::TypeScript);
        let ok = |s: &str| p.may_match(s.as_bytes());
        assert!(ok("Object.assign({}, a)"));
        assert!(ok("Object /* c */ . // line\n assign"));
        assert!(ok("Object?.assign"));
        assert!(ok("Object\u{a0}.assign"), "non-ASCII is not judged");
        assert!(ok("Object <!-- old html comment\n.assign"));
        assert!(!ok("Object.keys(x); assign(y)"), "an identifier between");
        assert!(!ok("ObjectX.assign"), "`Object` is not the whole token: `X` is no keyword");
        assert!(ok("Object /* unterminated assign"), "not judged");
        // Rust block comments nest.
        let r = pf("foo::bar()", SupportLang::Rust);
        assert!(r.may_match(b"foo:: /* a /* b */ c */ bar()"));
        // C line comments continue after a backslash.
        let c = pf("a.b = 1;", SupportLang::C);
        assert!(c.may_match(b"a // x \\\n y z\n .b = 1;"));
        // Python comments.
        let py = pf("os.getcwd()", SupportLang::Python);
        assert_eq!(py.pairs, vec![("os".to_string(), "getcwd".to_string())]);
        assert!(py.may_match(b"(os  # c\n.getcwd())"));
        assert!(!py.may_match(b"os.path; x.getcwd()"));
    }
}
