//! Property test of the template check (docs/DESIGN.md §2.5.9): random templates over
//! random calls in Python, JavaScript, TypeScript, Rust, Go and C. Its oracle does not
//! use the check's own reference: it parses the template written with every token apart
//! into the file. The default output's tokens over each edit must be the oracle's, or
//! the file flagged `templateMismatch`; where ast-grep's output has them, the default's
//! must too, unflagged. What is generated and how tokens are compared (the admitted
//! deviations, touching operators after a syntax error): docs/DESIGN.md §8.4.

use std::path::Path;

use ast_grep_language::SupportLang;
use proptest::prelude::*;

use crate::engine::layout::reference::atoms_in;
use crate::engine::{Engine, RewriteOptions, rewrite};
use crate::request::{Op, RawRequest, WalkOptions};

/// A part of a generated template.
#[derive(Clone, Debug)]
enum Item {
    Var(&'static str),
    Tok(&'static str),
}

fn is_wordy(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '"')
        || s.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '"')
}

/// The template: the items, apart or together as `tight` says (never two
/// word-like items together: that would be one token, a capture glued by the
/// template, which the oracle does not model).
fn template(items: &[Item], tight: &[bool]) -> String {
    let mut s = String::new();
    for (k, it) in items.iter().enumerate() {
        let text = match it {
            Item::Var(v) => *v,
            Item::Tok(t) => *t,
        };
        if k > 0 {
            let prev = match &items[k - 1] {
                Item::Var(_) => "A",
                Item::Tok(t) => t,
            };
            let wordy = is_wordy(prev) && (is_wordy(text) || matches!(it, Item::Var(_)));
            if !tight[k] || wordy {
                s.push(' ');
            }
        }
        s.push_str(text);
    }
    s
}

/// The template as written, each metavariable replaced by its captured text
/// with a blank on either side: a seam between a capture and its neighbour can
/// then be nothing but a seam, and the template's own tokens are as it spells
/// them (two operators it writes together are one token of the lexer, so of
/// the reference, too).
fn spaced(items: &[Item], tight: &[bool], a: &str, b: &str) -> String {
    template(items, tight).replace("$A", &format!(" {a} ")).replace("$B", &format!(" {b} "))
}

/// Where each capture lies in [`spaced`]'s text, and the text's length.
fn spaced_holes(items: &[Item], tight: &[bool], a: &str, b: &str) -> (Vec<std::ops::Range<usize>>, usize) {
    let t = template(items, tight);
    let (mut out, mut holes, mut i) = (String::new(), Vec::new(), 0);
    while i < t.len() {
        let rest = &t[i..];
        let cap = if rest.starts_with("$A") {
            Some(a)
        } else if rest.starts_with("$B") {
            Some(b)
        } else {
            None
        };
        match cap {
            Some(c) => {
                out.push(' ');
                holes.push(out.len()..out.len() + c.len());
                out.push_str(c);
                out.push(' ');
                i += 2;
            }
            None => {
                let ch = rest.chars().next().unwrap();
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    (holes, out.len())
}

/// True when, in `src` (the oracle's text, the spaced template at `start`)
/// parsed in `lang`, each hole is one node and the template's text (blanks
/// trimmed) is one node or a run of siblings.
fn holds_captures(lang: SupportLang, src: &str, start: usize, (holes, len): &(Vec<std::ops::Range<usize>>, usize)) -> bool {
    let tree = crate::engine::parse::tree_after_edit_full(lang, src);
    let root = tree.root_node();
    let node_is = |s: usize, e: usize| root.descendant_for_byte_range(s, e).is_some_and(|n| n.start_byte() == s && n.end_byte() == e);
    let text = &src[start..start + len];
    let (s, e) = (start + (text.len() - text.trim_start().len()), start + text.trim_end().len());
    let run = || {
        let Some(n) = root.descendant_for_byte_range(s, e) else { return false };
        let mut c = n.walk();
        c.goto_first_child_for_byte(s).is_some() && c.node().start_byte() == s && {
            while c.node().end_byte() < e && c.goto_next_sibling() {}
            c.node().end_byte() == e
        }
    };
    holes.iter().all(|h| node_is(start + h.start, start + h.end)) && (s >= e || node_is(s, e) || run())
}

struct Lang {
    lang: SupportLang,
    ext: &'static str,
    comment: &'static str,
    /// Operators and keywords of templates.
    toks: &'static [&'static str],
    /// Arguments of the matched call.
    args: &'static [&'static str],
    /// The file around `r = CALL`.
    wrap: fn(&str) -> String,
    trailing_comma: bool,
}

const LANGS: &[Lang] = &[
    Lang {
        lang: SupportLang::Python,
        ext: "py",
        comment: "# c",
        toks: &["in", "not in", "and", "or", "is", "is not", "not", "==", "-", "- -", "+", "*", "(", ")", ".", ","],
        args: &["a", "b0", "1", "-y", "- y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "not a", "[1, 2]", "f\"{a} {b}\""],
        wrap: |c| format!("r = {c}\n"),
        trailing_comma: true,
    },
    Lang {
        lang: SupportLang::JavaScript,
        ext: "js",
        comment: "// c",
        toks: &["in", "instanceof", "typeof", "&&", "||", "===", "-", "- -", "+", "+ +", "!", "(", ")", ".", ","],
        args: &["a", "b0", "1", "-y", "- y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "!a", "`t ${a}`"],
        wrap: |c| format!("r = {c};\n"),
        trailing_comma: true,
    },
    Lang {
        lang: SupportLang::TypeScript,
        ext: "ts",
        comment: "// c",
        toks: &["in", "as", "&&", "===", "-", "- -", "+", "!", "(", ")", ".", ","],
        args: &["a", "b0", "1", "-y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "!a"],
        wrap: |c| format!("r = {c};\n"),
        trailing_comma: true,
    },
    Lang {
        lang: SupportLang::Rust,
        ext: "rs",
        comment: "// c",
        toks: &["==", "-", "- -", "+", "!", "&&", "*", "&", "as", "(", ")", ".", ",", "?"],
        args: &["a", "b0", "1", "-y", "- y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "!a", "&a"],
        wrap: |c| format!("fn m() {{\n    let r = {c};\n}}\n"),
        trailing_comma: true,
    },
    Lang {
        lang: SupportLang::Go,
        ext: "go",
        comment: "// c",
        toks: &["==", "-", "- -", "+", "!", "&&", "*", "&", "(", ")", ".", ","],
        args: &["a", "b0", "1", "-y", "- y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "!a", "&a"],
        wrap: |c| format!("package p\n\nfunc m() {{\n\tr = {c}\n}}\n"),
        trailing_comma: false,
    },
    Lang {
        lang: SupportLang::C,
        ext: "c",
        comment: "// c",
        toks: &["==", "-", "- -", "+", "!", "&&", "*", "&", "(", ")", ".", ",", "->"],
        args: &["a", "b0", "1", "-y", "- y", "\"s  t\"", "x.y", "g(a)", "(a + b)", "!a", "&a"],
        wrap: |c| format!("void m(void) {{\n    r = {c};\n}}\n"),
        trailing_comma: false,
    },
];

/// The tokens of `text` (parsed in `lang`) over `span`, normalized: no
/// comments, no `,` before a closing bracket or another `,`. With `runs`,
/// tokens of operator characters (not brackets, commas or quotes) that touch
/// are one token.
fn tokens(lang: SupportLang, text: &str, span: std::ops::Range<usize>, runs: bool) -> Vec<String> {
    let tree = crate::engine::parse::tree_after_edit_full(lang, text);
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    atoms_in(tree.root_node(), span.clone(), |n| {
        if n.start_byte() >= span.start && n.end_byte() <= span.end && !n.kind().contains("comment") {
            out.push(n.start_byte()..n.end_byte());
        }
    });
    let mut kept: Vec<std::ops::Range<usize>> = Vec::new();
    for (k, t) in out.iter().enumerate() {
        let next = out.get(k + 1).map(|n| &text[n.clone()]);
        if &text[t.clone()] == "," && matches!(next, Some(")" | "]" | "}" | ",")) {
            continue;
        }
        let operator = |r: &std::ops::Range<usize>| text[r.clone()].bytes().all(|c| b"&|+-*/%<>=!?.:^~".contains(&c));
        match kept.last_mut() {
            Some(last) if runs && last.end == t.start && operator(last) && operator(t) => last.end = t.end,
            _ => kept.push(t.clone()),
        }
    }
    kept.into_iter().map(|r| text[r].to_string()).collect()
}

/// The engine for one op, or `None` when the request is refused (a template
/// with unbalanced brackets, say).
pub(in crate::engine) fn engine(pat: &str, out: &str, lang: SupportLang) -> Option<Engine> {
    let raw = RawRequest { ops: vec![Op { pat: pat.into(), out: out.into() }], ..Default::default() };
    let req = raw.validate(&std::env::current_dir().unwrap(), WalkOptions::default(), 1).ok()?;
    Engine::new(&req, [lang], Path::new("/")).ok()
}

/// One case in one language; see docs/DESIGN.md §8.4, `template_prop`.
fn case(l: &Lang, (a, b): (usize, usize), (sep, comment, trailing): (usize, bool, usize), items: &[Item], tight: &[bool]) -> Result<(), TestCaseError> {
    let (a, b) = (l.args[a % l.args.len()], l.args[b % l.args.len()]);
    let sep = ["", " ", "\n        "][sep % 3];
    let comment = if comment { format!(" {}\n        ", l.comment) } else { String::new() };
    // No trailing comma, one ending its line, or one starting its line.
    let trail = if l.trailing_comma { ["", ",\n    ", "\n    ,"][trailing % 3] } else { "" };
    let call = format!("f({a},{comment}{sep}{b}{trail})");
    let src = (l.wrap)(&call);
    let out = template(items, tight);
    let Some(e) = engine("f($A, $B)", &out, l.lang) else { return Ok(()) };
    let path = format!("/x.{}", l.ext);
    let ops = e.ops_for(l.lang, Path::new(&path));
    let opts = RewriteOptions { prefilter: true, check_syntax: true, rewrite_nested: false, verbatim: false };
    let Some(def) = rewrite(&ops, l.lang, &src, opts) else { return Ok(()) };
    let Some(verb) = rewrite(&ops, l.lang, &src, RewriteOptions { verbatim: true, ..opts }) else { return Ok(()) };
    let (Some(de), Some(ve)) = (def.edits.first(), verb.edits.first()) else { return Ok(()) };
    // What the template says: the spaced text in place of the match.
    let start = src.find("f(").unwrap();
    let end = start + call.len();
    let spaced_text = spaced(items, tight, a, b);
    let oracle_src = format!("{}{spaced_text}{}", &src[..start], &src[end..]);
    let want = tokens(l.lang, &oracle_src, start..start + spaced_text.len(), false);
    let got_of = |r: &crate::engine::Rewrite, e: &crate::engine::Edit, runs: bool| {
        let text = String::from_utf8(r.new_text.clone()).unwrap();
        tokens(l.lang, &text, e.start..e.start + e.text.len(), runs)
    };
    let (got, got_verbatim) = (got_of(&def, de, false), got_of(&verb, ve, false));
    let flagged = def.template.mismatched > 0;
    let new = String::from_utf8_lossy(&def.new_text).into_owned();
    let same_runs = || {
        let pasted = template(items, tight).replace("$A", a).replace("$B", b);
        let pasted_src = format!("{}{pasted}{}", &src[..start], &src[end..]);
        def.errors_after > def.errors_before && got_of(&def, de, true) == tokens(l.lang, &pasted_src, start..start + pasted.len(), true)
    };
    prop_assert!(got == want || flagged || same_runs(), "{:?} -> {:?} on {:?}: wrote {:?}, tokens {:?}, want {:?}", "f($A, $B)", out, src, new, got, want);
    // The template's tree with the captures in place exists only where, in
    // the oracle's parse, each capture is one node and the whole edit one
    // piece of code (a node, or a run of siblings): `$A $B` on `a` and `-y` is
    // `a - y`, where neither is. Elsewhere a flag is the check's answer. So it
    // is where the template breaks a rule of the language's compiler that
    // tree-sitter does not know (Rust's `a == b == c`): `engine/template/frontend_prop.rs`
    // judges those with the compilers themselves. Nor does it know node
    // kinds: `$A $A` on `(a + b)` gives two nodes, a call and its arguments.
    let compiler = !def.template.mismatches.is_empty()
        && def
            .template
            .mismatches
            .iter()
            .all(|m| m.message.starts_with(crate::engine::template::COMPILER_RULE) || m.message.contains(crate::engine::template::READ_AS));
    if got_verbatim == want && !compiler && holds_captures(l.lang, &oracle_src, start, &spaced_holes(items, tight, a, b)) {
        prop_assert!(
            !flagged && (got == want || same_runs()),
            "{:?} on {:?}: ast-grep's {:?} follows the template, the default wrote {:?} (flagged: {})",
            out,
            src,
            String::from_utf8_lossy(&verb.new_text),
            new,
            flagged
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_default_output_says_what_the_template_says_or_is_flagged(
        args in (0usize..16, 0usize..16),
        layout in (0usize..3, any::<bool>(), 0usize..3),
        parts in proptest::collection::vec((prop_oneof![Just(0u8), Just(1), Just(2), Just(2), Just(2)], 0usize..32), 1..6),
        tight in proptest::collection::vec(any::<bool>(), 6),
    ) {
        for l in LANGS {
            let items: Vec<Item> = parts
                .iter()
                .map(|&(kind, k)| match kind {
                    0 => Item::Var("$A"),
                    1 => Item::Var("$B"),
                    _ => Item::Tok(l.toks[k % l.toks.len()]),
                })
                .collect();
            case(l, args, layout, &items, &tight)?;
        }
    }
}

#[test]
fn the_generator_writes_templates_as_asked() {
    let items = [Item::Var("$A"), Item::Tok("in"), Item::Var("$B"), Item::Tok("-"), Item::Var("$A")];
    assert_eq!(template(&items, &[true, true, true, true, true]), "$A in $B-$A");
    assert_eq!(template(&items, &[false, false, false, false, false]), "$A in $B - $A");
    assert_eq!(spaced(&items, &[true; 5], "a", "- y"), " a  in  - y - a ");
    let (holes, len) = spaced_holes(&items, &[true; 5], "a", "- y");
    assert_eq!((holes, len), (vec![1..2, 8..11, 14..15], " a  in  - y - a ".len()));
}

#[test]
fn runs_join_operators_that_touch_and_nothing_else() {
    let text = "r = x - -y&&!z(-1);";
    let all = 0..text.len();
    assert_eq!(tokens(SupportLang::JavaScript, text, all.clone(), true), ["r", "=", "x", "-", "-", "y", "&&!", "z", "(", "-", "1", ")", ";"]);
    assert_eq!(tokens(SupportLang::JavaScript, text, all, false), ["r", "=", "x", "-", "-", "y", "&&", "!", "z", "(", "-", "1", ")", ";"]);
}
