//! Property test of edits in embedded code (docs/DESIGN.md §2.13): random HTML pages
//! under rules whose fixes try to break the page around them (closing tags, comment
//! openers, quotes). The oracle is ast-grep-language's own extraction of the regions,
//! run on the old and the new page: every rewrite that is not flagged keeps its edits
//! inside regions of their rule's language, and each edited region where the edits put
//! it, with no more syntax errors. Then a browser's reading judges every page written:
//! parse5 (the HTML standard's tokenizer and tree builder, as jsdom uses it; from `npm
//! root -g`, installed by .ci/run) must find the text of each script and style where
//! tree-sitter does. The generator and the checks: §8.4.

use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::engine::syntax::error_spans;
use crate::engine::{Edit, Engine, RewriteOptions, splice};

const JS: &[&str] = &["foo(1);", "alert('x');", "let s = \"a\";", "x = y + 1;", "f(a, b)", "\n", "// c\n", "`t`;", "if (a) { foo(2) }", " "];
const CSS: &[&str] = &["p { color: red; }", "a { margin: 0 }", "\n", "/* c */", " "];
const TEXT: &[&str] = &["<p>é</p>", "<div class=\"a\">", "</div>", "\n", "<!-- c -->", "<img src=x />", "text ü "];

/// Fixes of `foo($A)`: some harmless, some that end or open something in the page.
const JS_FIXES: &[&str] = &[
    "bar($A)",
    "bar(\"</script>\")",
    "bar('</scr' + 'ipt>')",
    "bar($A) /* </script> */",
    "bar(\"<!--\")",
    "bar($A)</script><script>",
    "bar(`</style>`)",
    "bar(\"<!--<script>\")",
    "bar('<!--<script>-->')",
    "bar(\"<!--\" + \"<SCRIPT \")",
    "bar(\"<!--><script>\")",
];
/// Fixes of `color: $V`.
const CSS_FIXES: &[&str] = &["color: blue", "color: $V</style>", "color: $V /* </style> */", "content: \"</style>\""];

fn script(lang: &'static str) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(JS), 0..6).prop_map(move |parts| format!("<script{lang}>{}</script>", parts.concat()))
}

fn page() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        proptest::sample::select(TEXT).prop_map(str::to_string),
        script(""),
        script(" lang=\"ts\""),
        proptest::collection::vec(proptest::sample::select(CSS), 0..4).prop_map(|p| format!("<style>{}</style>", p.concat())),
    ];
    (proptest::collection::vec(part, 1..8), any::<bool>(), any::<bool>()).prop_map(|(parts, bom, crlf)| {
        let body = parts.concat();
        let body = if crlf { body.replace('\n', "\r\n") } else { body };
        if bom { format!("\u{feff}{body}") } else { body }
    })
}

fn engine(js_fix: &str, css_fix: &str) -> Engine {
    let rules = [
        serde_json::json!({"id": "js", "language": "javascript", "rule": {"pattern": "foo($A)"}, "fix": js_fix}),
        serde_json::json!({"id": "ts", "language": "typescript", "rule": {"pattern": "foo($A)"}, "fix": js_fix}),
        serde_json::json!({"id": "css", "language": "css", "rule": {"pattern": "color: $V"}, "fix": css_fix}),
    ];
    let rules = rules.into_iter().map(|r| crate::request::rule::Rule::from_json(r).unwrap()).collect();
    let set = crate::request::ruleset::RuleSet { rules, ..Default::default() };
    Engine::for_rules(&set, Path::new("/")).unwrap()
}

/// The regions of a page, by ast-grep-language's extraction: (language,
/// start, end), offsets of the whole text.
fn oracle(text: &str) -> Vec<(SupportLang, usize, usize)> {
    let bom = crate::engine::bom_len(text);
    let grep = SupportLang::Html.ast_grep(&text[bom..]);
    let mut out = Vec::new();
    for (name, ranges) in SupportLang::Html.extract_injections(grep.root()) {
        let Ok(lang) = SupportLang::from_str(&name) else { continue };
        out.extend(ranges.iter().map(|r| (lang, r.start_byte + bom, r.end_byte + bom)));
    }
    out
}

fn errors(lang: SupportLang, text: &str) -> usize {
    error_spans(lang.ast_grep(text).root().get_inner_node()).len()
}

static FLAGGED: AtomicUsize = AtomicUsize::new(0);
static PASSED: AtomicUsize = AtomicUsize::new(0);
/// Every page written (not flagged), for the browser's judgement.
static WRITTEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The text of each script and style of a page, in document order, as a
/// browser reads it: parse5, whose path is the first argument.
const BROWSER: &str = r#"
const parse5 = require(process.argv[1]);
const pages = JSON.parse(require("fs").readFileSync(0, "utf8"));
const texts = (node, out) => {
  if (node.nodeName === "script" || node.nodeName === "style") {
    out.push(node.childNodes.map((c) => c.value || "").join(""));
  }
  for (const c of node.childNodes || []) texts(c, out);
  if (node.content) texts(node.content, out);
  return out;
};
console.log(JSON.stringify(pages.map((p) => texts(parse5.parse(p), []).filter((t) => t !== ""))));
"#;

/// The text of each script and style of `text` as tree-sitter finds them, in
/// the order of the page, as a browser's input stream has it: no BOM, line
/// ends made `\n` (the HTML standard's preprocessing).
fn tree_sitter_texts(text: &str) -> Vec<String> {
    let mut regions = oracle(text);
    regions.sort_by_key(|&(_, start, _)| start);
    regions.iter().map(|&(_, s, e)| text[s..e].replace("\r\n", "\n").replace('\r', "\n")).filter(|t| !t.is_empty()).collect()
}

fn holds(text: &str, js_fix: &str, css_fix: &str, verbatim: bool) -> Result<(), TestCaseError> {
    let e = engine(js_fix, css_fix);
    let opts = RewriteOptions { prefilter: true, check_syntax: true, rewrite_nested: false, verbatim };
    let Some(rw) = e.rewrite(&e.file_ops(SupportLang::Html, Path::new("/x.html")), text, opts) else { return Ok(()) };
    prop_assert!(rw.refused.is_none());
    if rw.edits.is_empty() {
        return Ok(());
    }
    if rw.structure.changed || rw.errors_after > rw.errors_before || rw.template.mismatched > 0 {
        FLAGGED.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    PASSED.fetch_add(1, Ordering::Relaxed);
    let new = std::str::from_utf8(&rw.new_text).unwrap();
    WRITTEN.lock().unwrap().push(new.to_string());
    let spliced = splice(text.as_bytes(), &rw.edits);
    prop_assert_eq!(rw.new_text.as_slice(), spliced.as_slice());
    let (old_regions, new_regions) = (oracle(text), oracle(new));
    prop_assert_eq!(old_regions.len(), new_regions.len(), "regions of {:?} -> {:?}", text, new);
    let grow = |edits: &[&Edit]| edits.iter().map(|e| e.text.len() as isize - (e.end - e.start) as isize).sum::<isize>();
    for &(lang, start, end) in &old_regions {
        let inside: Vec<&Edit> = rw.edits.iter().filter(|e| start <= e.start && e.end <= end).collect();
        if inside.is_empty() {
            continue;
        }
        let before: Vec<&Edit> = rw.edits.iter().filter(|e| e.end <= start && e.start < start).collect();
        let new_start = (start as isize + grow(&before)) as usize;
        let new_end = (end as isize + grow(&before) + grow(&inside)) as usize;
        prop_assert!(
            new_regions.contains(&(lang, new_start, new_end)),
            "{:?} region {}..{} of {:?} is not {}..{} in {:?}",
            lang,
            start,
            end,
            text,
            new_start,
            new_end,
            new
        );
        let local: Vec<Edit> = inside.iter().map(|e| Edit { start: e.start - start, end: e.end - start, ..(*e).clone() }).collect();
        let expected = String::from_utf8(splice(&text.as_bytes()[start..end], &local)).unwrap();
        prop_assert_eq!(&new[new_start..new_end], expected.as_str());
        prop_assert!(errors(lang, &new[new_start..new_end]) <= errors(lang, &text[start..end]), "{:?} gets syntax errors in {:?}", lang, new);
    }
    // Every edit is inside a region.
    for e in &rw.edits {
        prop_assert!(old_regions.iter().any(|&(_, s, end)| s <= e.start && e.end <= end), "edit {:?} outside every region of {:?}", e, text);
    }
    Ok(())
}

#[test]
fn edits_in_embedded_code_keep_the_page_around_them() {
    let mut runner = TestRunner::new(Config { cases: 400, failure_persistence: None, ..Config::default() });
    let cases = (page(), proptest::sample::select(JS_FIXES), proptest::sample::select(CSS_FIXES), any::<bool>());
    runner.run(&cases, |(text, js_fix, css_fix, verbatim)| holds(&text, js_fix, css_fix, verbatim)).unwrap();
    let (flagged, passed) = (FLAGGED.load(Ordering::Relaxed), PASSED.load(Ordering::Relaxed));
    assert!(flagged >= 20 && passed >= 20, "the generator should reach both sides: {flagged} flagged, {passed} passed");
    let pages: Vec<String> = std::mem::take(&mut *WRITTEN.lock().unwrap());
    let parse5 = crate::engine::template::frontend_prop::npm_root().join("parse5");
    assert!(parse5.is_dir(), "this test judges pages with parse5, missing from {}: `npm install -g parse5@7.3.0` (see .ci/run)", parse5.display());
    let input = serde_json::to_string(&pages.iter().map(|p| p.trim_start_matches('\u{feff}')).collect::<Vec<_>>()).unwrap();
    let out = crate::engine::template::frontend_prop::run("node", &["-e", BROWSER, parse5.to_str().expect("UTF-8 path")], &input);
    let browser: Vec<Vec<String>> = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("node answered {out:?}: {e}"));
    assert_eq!(browser.len(), pages.len());
    for (page, read) in pages.iter().zip(&browser) {
        assert_eq!(&tree_sitter_texts(page), read, "a browser reads the scripts and styles of this page written by an unflagged rewrite otherwise: {page:?}");
    }
}
