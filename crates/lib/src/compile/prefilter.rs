//! What a file's bytes must contain for an op to match, so that a file without it is
//! skipped before the parse (parsing is nearly all of a dry run's cost): the pattern's
//! **literals**, and **chains** of its leaves that must appear in order with only a
//! [`Gap`] between them, a run ending where the grammar lets the matcher skip more
//! ([`crate::compile::tight_ends`]). Every rule here must stay sound: a file rejected
//! has no match. The evidence, whole tokens, the anchored walk and the soundness
//! argument: docs/DESIGN.md §2.4.

use std::collections::HashSet;

use ast_grep_core::Pattern;
use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;

use crate::request::Strictness;

/// What a file must contain for one op (compiled for one language) to match.
pub struct Prefilter {
    /// Texts every match contains, longest first. Empty when none is sound.
    pub literals: Vec<String>,
    /// Token runs: every match holds the first, then a [`Gap`], then the next,
    /// and so on. Each starts with a word or a number and has at least two tokens.
    pub chains: Vec<Vec<String>>,
    gap: Option<Gap>,
}

impl Prefilter {
    /// Derives the prefilter of `pattern` under `strictness` in `lang`.
    pub fn new(pattern: &Pattern, strictness: Strictness, lang: SupportLang) -> Prefilter {
        if strictness == Strictness::Signature {
            // Signature compares kinds only, never text.
            return Prefilter { literals: Vec::new(), chains: Vec::new(), gap: None };
        }
        let cx = Cx { keywords: matches!(strictness, Strictness::Cst | Strictness::Smart), lang, ts: lang.get_ts_language() };
        let mut literals = Vec::new();
        cx.literals(&pattern.node, false, &mut literals);
        // Longest first: the rarest text usually rejects a file soonest.
        literals.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        let gap = Gap::for_lang(lang);
        let mut chains = Vec::new();
        if gap.is_some() {
            let mut seq = Vec::new();
            cx.tokens(&pattern.node, false, &mut seq);
            for run in seq.split(|t| matches!(t, Tok::Break)) {
                let run: Vec<String> = run.iter().filter_map(|t| if let Tok::Text(x) = t { Some(x.clone()) } else { None }).collect();
                // Start at the first word or number (`0 == $X.len()`): a run of
                // punctuation alone rejects nothing, and a word or number is rare
                // enough to start the search from.
                let Some(first) = run.iter().position(|t| t.bytes().next().is_some_and(is_word_byte)) else { continue };
                if run.len() - first >= 2 && !chains.contains(&run[first..].to_vec()) {
                    chains.push(run[first..].to_vec());
                }
            }
        }
        Prefilter { literals, chains, gap }
    }

    /// The prefilter of a rule's `pattern` under `strictness` in `lang`: its
    /// named leaves' texts only (whole tokens), no keywords and no chains. A
    /// rule's match is reported (`scan`) even around a parse error, as ast-grep
    /// reports it, and there an ERROR node may sit between two adjacent tokens
    /// or a MISSING keyword hold no text; a named leaf is compared by its text,
    /// which a MISSING node never has.
    pub fn for_rule(pattern: &Pattern, strictness: Strictness, lang: SupportLang) -> Prefilter {
        if strictness == Strictness::Signature {
            return Prefilter { literals: Vec::new(), chains: Vec::new(), gap: None };
        }
        let cx = Cx { keywords: false, lang, ts: lang.get_ts_language() };
        let mut literals = Vec::new();
        cx.literals(&pattern.node, false, &mut literals);
        literals.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        Prefilter { literals, chains: Vec::new(), gap: Gap::for_lang(lang) }
    }

    /// A file may match only if it contains `text` (plain bytes).
    pub fn literal(text: &str) -> Prefilter {
        Prefilter { literals: vec![text.to_string()], chains: Vec::new(), gap: None }
    }

    /// True when `text` holds every literal and every chain (so it may match).
    pub fn may_match(&self, text: &[u8]) -> bool {
        self.literals.iter().all(|l| match &self.gap {
            Some(_) => whole_tokens(text, l.as_bytes()).next().is_some(),
            None => memchr::memmem::find(text, l.as_bytes()).is_some(),
        }) && self.chains.iter().all(|c| self.gap.as_ref().is_some_and(|g| g.has_chain(text, c)))
    }
}

/// One pattern leaf as the chains see it.
enum Tok {
    /// Text the code token holds.
    Text(String),
    /// A code token whose text is not known, but that the gap scanner skips.
    Skip,
    /// Anything may sit here: the run ends.
    Break,
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
                for (c, after) in children.iter().zip(Self::after_ellipsis(children)) {
                    self.literals(c, after, out);
                }
            }
            _ => {
                if let Some(t) = self.literal(n, after_ellipsis)
                    && !out.contains(&t)
                {
                    out.push(t);
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

    /// Appends the leaves of `n`, in order, as the chains see them.
    ///
    /// Between two leaves of a match the matcher skips only code nodes that are
    /// unnamed or extras (comments), both before a node's first child and between
    /// children. After a node's last pattern child it skips the code node's
    /// trailing children whatever they are, so a [`Tok::Break`] follows unless
    /// the grammar lets only unnamed string tokens follow that child kind there.
    fn tokens(&self, n: &PatternNode, after_ellipsis: bool, out: &mut Vec<Tok>) {
        match n {
            PatternNode::MetaVar { .. } => out.push(Tok::Break),
            PatternNode::Terminal { is_named: true, .. } => out.push(self.literal(n, after_ellipsis).map_or(Tok::Break, Tok::Text)),
            PatternNode::Terminal { is_named: false, kind_id, .. } => {
                if after_ellipsis {
                    // The matcher skips this leaf: it may be absent.
                    out.push(Tok::Break);
                } else if let Some(k) = self.literal(n, false) {
                    out.push(Tok::Text(k));
                } else {
                    let kind = self.ts.node_kind_for_id(*kind_id).unwrap_or("");
                    let punct = !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_punctuation());
                    out.push(if !self.keywords || crate::compile::tight_ends::unsure_unnamed(self.lang, kind) {
                        // Under ast/relaxed an unnamed leaf may be missing from the
                        // code; and a kind that may hold other text than its name
                        // (Rust's `"` is also `b"`) could hold a word the gap
                        // scanner does not skip.
                        Tok::Break
                    } else if punct {
                        Tok::Text(kind.to_string())
                    } else {
                        // Its text is its name, whose words the gap scanner skips.
                        Tok::Skip
                    });
                }
            }
            PatternNode::Internal { children, .. } => {
                let after = Self::after_ellipsis(children);
                for (c, a) in children.iter().zip(after) {
                    self.tokens(c, a, out);
                }
                let tight = children.last().is_some_and(|last| match (self.kind(n), self.kind(last)) {
                    (Some(p), Some(c)) => crate::compile::tight_ends::tight(self.lang, p, c),
                    _ => false,
                });
                if !tight {
                    out.push(Tok::Break);
                }
            }
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
    let word = is_word(std::str::from_utf8(lit).unwrap_or(""));
    occurrences(text, lit).filter(move |&p| !word || !text.get(p + lit.len()).is_some_and(|b| is_word_byte(*b)))
}

/// Every offset where `needle` starts in `text`, in order, overlapping ones
/// included: `memmem::find_iter` skips those ("aa" in "aaa" only at 0), and a
/// skipped occurrence could be the token a match holds.
pub(crate) fn occurrences<'a>(text: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let finder = memchr::memmem::Finder::new(needle);
    let mut at = 0;
    std::iter::from_fn(move || {
        let p = at + finder.find(text.get(at..)?)?;
        at = p + 1;
        Some(p)
    })
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
        C | Cpp | CSharp | Css | Dart | Elixir | Go | Haskell | Hcl | Java | JavaScript | Json | Kotlin | Lua | Nix | Ruby | Rust | Solidity | Tsx
        | TypeScript | Yaml => true,
        _ => false,
    }
}

/// What [`Gap::gap_then`] found.
enum Found {
    /// The token starts here.
    At(usize),
    /// The scanner cannot judge (non-ASCII, unterminated comment, long gap).
    Unsure,
    /// No gap leads to the token.
    No,
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
/// occurrence of a chain with such a word between two of its tokens is not a match.
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
    /// A longer gap is not scanned: the chain counts as present.
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

    /// True when some occurrence of the chain's first token in `text` is
    /// followed by a gap and the next token, and so on to the end.
    ///
    /// Each next token is taken at its first place after a gap. That loses no
    /// match: everything between that place and the real token is gap or a
    /// token the scanner also skips (punctuation, a keyword, or a word equal to
    /// a keyword, since a real gap holds no other word), so the search goes on
    /// from the earlier place just as well.
    fn has_chain(&self, text: &[u8], chain: &[String]) -> bool {
        let first = chain[0].as_bytes();
        whole_tokens(text, first).any(|at| {
            let mut i = at + first.len();
            for t in &chain[1..] {
                match self.gap_then(text, i, t.as_bytes()) {
                    Found::At(p) => i = p + t.len(),
                    Found::Unsure => return true,
                    Found::No => return false,
                }
            }
            true
        })
    }

    /// Where `b` starts after `text[from..]` begins with a gap, if it does.
    fn gap_then(&self, text: &[u8], from: usize, b: &[u8]) -> Found {
        let word = is_word(std::str::from_utf8(b).unwrap_or(""));
        let mut i = from;
        loop {
            if text[i..].starts_with(b) && !(word && text.get(i + b.len()).is_some_and(|c| is_word_byte(*c))) {
                return Found::At(i);
            }
            let Some(&c) = text.get(i) else { return Found::No };
            if c >= 0x80 || i - from > Self::MAX_GAP {
                return Found::Unsure;
            }
            // A comment is scanned no further than the gap's limit either, so
            // one search costs at most MAX_GAP bytes, even on a minified line.
            let limit = (from + Self::MAX_GAP).min(text.len());
            if let Some(end) = self.comment_end(&text[..limit], i) {
                match end {
                    Some(e) => i = e,
                    None => return Found::Unsure,
                }
                continue;
            }
            if is_word_byte(c) {
                let end = i + text[i..limit].iter().take_while(|b| is_word_byte(**b)).count();
                if end == limit && limit < text.len() {
                    return Found::Unsure;
                }
                if !self.words.contains(&text[i..end]) {
                    return Found::No;
                }
                i = end;
                continue;
            }
            i += 1;
        }
    }

    /// If a comment starts at `i`: `Some(end)` with the offset after it, or
    /// `Some(None)` when it does not end within `text` (which the caller may
    /// have cut short).
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

    fn chains(p: &Prefilter) -> Vec<String> {
        p.chains.iter().map(|c| c.join(" ")).collect()
    }

    #[test]
    fn chains_are_leaves_with_only_skipped_code_between() {
        use SupportLang::*;
        // A metavariable ends a run.
        assert_eq!(chains(&pf("Object.assign({}, $A)", TypeScript)), vec!["Object . assign ( { } ,"]);
        // `parse` ends the member expression, and the grammar lets nothing follow a
        // property there, so the run goes on into the arguments.
        assert_eq!(chains(&pf("JSON.parse(JSON.stringify($A))", JavaScript)), vec!["JSON . parse ( JSON . stringify ("]);
        // An `else` may trail the `if` (the matcher skips it): the run ends after
        // `b ;`, and a file where an else sits between still matches.
        let p = pf("{ if (a) b; parse; }", JavaScript);
        assert_eq!(chains(&p), vec!["if ( a ) b ;", "parse ; }"]);
        assert!(p.may_match(b"{ if (a) b; else a; parse; }"));
        // Python's attribute holds an identifier on both sides of the `.`, and the
        // table is by kind, not position: after `getcwd` the run ends.
        assert_eq!(chains(&pf("os.getcwd()", Python)), vec!["os . getcwd"]);
        // Keywords, and runs that start at the first word.
        assert_eq!(chains(&pf("$A as any", TypeScript)), vec!["as any"]);
        assert_eq!(chains(&pf("$A.unwrap()", Rust)), vec!["unwrap ( )"]);
        assert_eq!(chains(&pf("kfree($A);", C)), vec!["kfree ("]);
        // Under ast the unnamed leaves may be missing: only named ones are kept.
        let ast = Prefilter::new(&Pattern::new("os.getcwd()", Python), Strictness::Ast, Python);
        assert!(ast.chains.is_empty(), "{:?}", ast.chains);
        // Whole tokens: `unwrap` must not run on into `unwrap_or`.
        let p = pf("$A.unwrap()", Rust);
        assert!(!p.may_match(b"x.unwrap_or(1); y.unwrapped()") && p.may_match(b"x.unwrap_or(1); y.unwrap()"));
        assert!(p.may_match(b"aunwrap unwrap ()"), "not checked on the left");
        // Rust's opening quote may be `b"` or `c"`: the run ends there, since the
        // `b` is a word the gap scanner would not skip.
        let p = pf("foo(\"bar\")", Rust);
        assert_eq!(chains(&p), vec!["foo ("]);
        assert!(p.may_match(b"foo(b\"bar\")"));
        // No gap rules for this language: no chains.
        assert!(pf("foo.bar", SupportLang::Ruby).chains.is_empty());
    }

    /// A regression test for a rule that was tried and dropped: skipping an
    /// occurrence on a line that starts with `//` unless a quote, backslash or `*/`
    /// sits between. After a parse error tree-sitter's recovery can swallow the
    /// `//` into the ERROR node and read the rest of the line as code, and the match
    /// that follows holds no error, so ast-grep rewrites it (found by the proptest
    /// `prefilter_loses_no_match_after_a_comment_line`).
    #[test]
    fn a_comment_line_after_a_parse_error_may_be_code() {
        let src = "fn f() {\n`\\\n// a.b();\n}";
        let grep = SupportLang::Rust.ast_grep(src);
        let pat = Pattern::new("$A.b()", SupportLang::Rust);
        assert_eq!(grep.root().find_all(&pat).count(), 1, "tree-sitter reads the `//` line as code");
        assert!(pf("$A.b()", SupportLang::Rust).may_match(src.as_bytes()));
    }

    #[test]
    fn a_chain_may_start_at_a_number() {
        assert_eq!(chains(&pf("0 == $X.len()", SupportLang::Rust)), vec!["0 ==", "len ( )"]);
        let p = pf("0 == $X.len()", SupportLang::Rust);
        assert!(p.may_match(b"if 0 == v.len() {}") && p.may_match(b"10 == v.len()"), "not checked on the left");
        assert!(!p.may_match(b"v.len() == 0") && !p.may_match(b"0.5 == v.len()"));
    }

    #[test]
    fn anchor_occurrences_include_overlapping_ones() {
        assert_eq!(occurrences(b"aaa", b"aa").collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(occurrences(b"abab ab", b"ab").collect::<Vec<_>>(), vec![0, 2, 5]);
        assert_eq!(occurrences(b"xyz", b"ab").collect::<Vec<_>>(), Vec::<usize>::new());
    }

    #[test]
    fn a_gap_holds_only_what_the_matcher_skips() {
        let p = pf("Object.assign({}, $A)", SupportLang::TypeScript);
        let ok = |s: &str| p.may_match(s.as_bytes());
        assert!(ok("Object.assign({}, a)"));
        assert!(ok("Object /* c */ . // line\n assign ( {\n} ,"));
        assert!(ok("Object?.assign({},"), "`?.` is skipped like `.`");
        assert!(ok("Object\u{a0}.assign"), "non-ASCII is not judged");
        assert!(ok("Object <!-- old html comment\n.assign({},"));
        assert!(!ok("Object.keys(x); assign({},"), "an identifier between");
        assert!(!ok("ObjectX.assign({},"), "`Object` is not the whole token: `X` is no keyword");
        assert!(!ok("Object.assign(a, {}, b)"), "a word where the chain needs `{{`");
        assert!(!ok("Object.assign"), "the chain does not end there");
        assert!(ok("Object /* unterminated assign"), "not judged");
        // A search stops after MAX_GAP bytes, in a gap, a comment or a word.
        let far = |gap: &str| ok(&format!("Object{gap} x; assign({{}},"));
        assert!(far(&" ".repeat(Gap::MAX_GAP + 10)));
        assert!(far(&format!(" // {}\n", "y".repeat(Gap::MAX_GAP + 10))));
        assert!(far(&format!(".{}", "y".repeat(Gap::MAX_GAP + 10))));
        assert!(!far(&format!(".{}", "y".repeat(Gap::MAX_GAP / 2))));
        // Rust block comments nest.
        let r = pf("foo::bar()", SupportLang::Rust);
        assert!(r.may_match(b"foo:: /* a /* b */ c */ bar()"));
        assert!(!r.may_match(b"foo:: /* a /* b */ c */ baz(bar)"));
        // C line comments continue after a backslash.
        let c = pf("a.b = 1;", SupportLang::C);
        assert!(c.may_match(b"a // x \\\n y z\n .b = 1;"));
        // Python comments.
        let py = pf("os.getcwd()", SupportLang::Python);
        assert!(py.may_match(b"(os  # c\n.getcwd())"));
        assert!(!py.may_match(b"os.path; x.getcwd()"));
    }
}
