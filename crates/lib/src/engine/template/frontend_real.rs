//! The front-end property test of `engine/template/frontend_prop.rs` over real files
//! (docs/DESIGN.md §8.4): the standard libraries this machine's front ends ship, rxjs's
//! TypeScript sources and this crate's own Rust sources, each drawn file given codemods
//! of the kind users write (a function it calls renamed, wrapped, unwrapped, put under
//! an operator or given other arguments). Every write the engine does not flag, in
//! either layout, must be accepted by the language's front end and mean the template.
//! Drawn from a fixed seed; a missing front end or library fails the test (§8.4).

use std::path::{Path, PathBuf};

use ast_grep_core::Pattern;
use ast_grep_language::{LanguageExt, SupportLang};

use crate::engine::template::frontend_prop::{
    Case, GO, Gen, JAVASCRIPT, Lang, NODE_JUDGE, PYTHON, PYTHON_JUDGE, RUST, TYPESCRIPT, ask, assert_judged, go_judged, judged_in_one_process, npm_root,
    rust_judged, ts_judged, with_outlines,
};
use crate::engine::template::template_prop::engine;
use crate::engine::{RewriteOptions, rewrite};

/// Files of a real code base: at most `n`, drawn evenly from the sorted list
/// of files under `root` ending in `.ext`, none over 48 KB, none that
/// tree-sitter cannot parse whole.
fn real_files(root: &Path, ext: &str, lang: SupportLang, n: usize) -> Vec<(PathBuf, String)> {
    assert!(root.is_dir(), "this test reads real code in {}, which is missing: install it (see .ci/run)", root.display());
    let mut all: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(true)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == ext) && !p.components().any(|c| c.as_os_str() == "testdata"))
        .collect();
    all.sort();
    let step = (all.len() / (n * 2)).max(1);
    let mut out = Vec::new();
    for p in all.into_iter().step_by(step) {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        if text.len() > 48 * 1024 || text.is_empty() || lang.ast_grep(&text).root().get_inner_node().has_error() {
            continue;
        }
        out.push((p, text));
        if out.len() == n {
            break;
        }
    }
    out
}

/// The names `text` calls as plain functions with `args` arguments (`None`:
/// any number), first call first.
fn called(lang: SupportLang, text: &str, args: Option<usize>) -> Vec<String> {
    let grep = lang.ast_grep(text);
    let mut names: Vec<String> = Vec::new();
    let pat = match args {
        Some(1) => "$F($A)",
        Some(_) => "$F($A, $B)",
        None => "$F($$$A)",
    };
    let pattern = Pattern::new(pat, lang);
    for m in grep.root().find_all(&pattern) {
        let Some(f) = m.get_env().get_match("F") else { continue };
        let name = f.text().to_string();
        if f.get_inner_node().child_count() == 0 && f.kind().contains("identifier") && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// What the template `tpl` says in place of each match of `pat` in `text`:
/// the text with every such match (pre-order, outermost first, none inside
/// another) replaced by the template with each capture in parentheses (a
/// `$$$` capture as written, less a trailing `,`), in parentheses itself
/// unless it starts a statement. None where such a statement would then
/// start with `(` (outside Python: it would continue the line before).
fn oracle(lang: SupportLang, text: &str, pat: &str, tpl: &str) -> Option<String> {
    let grep = lang.ast_grep(text);
    let pattern = Pattern::new(pat, lang);
    let mut out = String::new();
    let mut last = 0;
    for m in grep.root().find_all(&pattern) {
        let r = m.range();
        if r.start < last {
            continue;
        }
        let env = m.get_env();
        let one = |v: &str| env.get_match(v).map(|n| format!("({})", n.text())).unwrap_or_default();
        let many = env.get_multiple_matches("A");
        let all = match (many.first(), many.last()) {
            (Some(a), Some(b)) => text[a.range().start..b.range().end].trim_end().trim_end_matches(',').to_string(),
            _ => String::new(),
        };
        let t = fill(tpl, &all, &one("A"), &one("B"));
        out.push_str(&text[last..r.start]);
        // In JavaScript a statement that starts with `(` continues the line
        // before: no parentheses at a statement's start.
        if starts_statement(m.get_node().get_inner_node()) {
            if t.starts_with('(') && lang != SupportLang::Python {
                // A capture in parentheses would start the line: it says
                // nothing there (`a\n(b) in c` is a call of `a`).
                return None;
            }
            out.push_str(&t);
        } else {
            out.push_str(&format!("({t})"));
        }
        last = r.end;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// `tpl` with `$$$A`, `$A` and `$B` replaced by `all`, `a` and `b` (in the
/// template only: captured code may hold `$A` in a string).
fn fill(tpl: &str, all: &str, a: &str, b: &str) -> String {
    let mut out = String::new();
    let mut rest = tpl;
    while let Some(k) = rest.find('$') {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let (with, len) = if rest.starts_with("$$$A") {
            (all, 4)
        } else if rest.starts_with("$A") {
            (a, 2)
        } else if rest.starts_with("$B") {
            (b, 2)
        } else {
            ("$", 1)
        };
        out.push_str(with);
        rest = &rest[len..];
    }
    out.push_str(rest);
    out
}

/// True when `n` starts the expression statement it is in.
fn starts_statement(n: tree_sitter::Node<'_>) -> bool {
    let mut up = n.parent();
    while let Some(p) = up.filter(|p| p.start_byte() == n.start_byte()) {
        if p.kind() == "expression_statement" {
            return true;
        }
        up = p.parent();
    }
    false
}

/// The cases of `l` over `files`: two codemods per file, in the default
/// layout or `verbatim`; flagged writes are left out.
fn real_cases(l: &Lang, files: &[(PathBuf, String)], seed: u64, verbatim: bool) -> Vec<Case> {
    let mut g = Gen(seed);
    let mut out = Vec::new();
    for (path, text) in files {
        for _ in 0..2 {
            let (args, tpls) = *g.pick(&[(Some(1), l.one), (Some(2), l.two), (None, l.any)]);
            let names = called(l.lang, text, args);
            if names.is_empty() {
                continue;
            }
            let name = g.pick(&names);
            let pat = match args {
                Some(1) => format!("{name}($A)"),
                Some(_) => format!("{name}($A, $B)"),
                None => format!("{name}($$$A)"),
            };
            let tpl = *g.pick(tpls);
            let Some(e) = engine(&pat, tpl, l.lang) else { continue };
            let ops = e.ops_for(l.lang, path);
            let opts = RewriteOptions { prefilter: false, check_syntax: true, rewrite_nested: false, verbatim };
            let Some(r) = rewrite(&ops, l.lang, text, opts) else { continue };
            if r.edits.is_empty() || r.template.mismatched > 0 || r.errors_after > r.errors_before || r.structure.changed || !r.unparsed.is_empty() {
                continue;
            }
            let oracle = oracle(l.lang, text, &pat, tpl);
            out.push(Case {
                src: text.clone(),
                pat: format!("{pat}` in {}", path.display()),
                out: tpl.to_string(),
                new: String::from_utf8(r.new_text).expect("UTF-8"),
                oracle,
            });
        }
    }
    out
}

/// Judges the cases of `l` over `files` in both layouts with `judge`.
fn judged_both(l: &Lang, files: &[(PathBuf, String)], seed: u64, floor: usize, judge: impl Fn(&[Case]) -> Vec<String>) {
    assert!(files.len() >= 30, "too few real files: {}", files.len());
    for verbatim in [false, true] {
        let cases = real_cases(l, files, seed, verbatim);
        assert!(cases.len() >= floor, "too few unflagged cases to judge (verbatim: {verbatim}): {}", cases.len());
        assert_judged(&format!("verbatim: {verbatim}"), &cases, &judge(&cases));
    }
}

#[test]
fn codemods_on_cpythons_library_compile_and_mean_the_template() {
    let root = PathBuf::from(ask("python3", &["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"]));
    let files = real_files(&root, "py", SupportLang::Python, 60);
    judged_both(&PYTHON, &files, 0x243F_6A88_85A3_08D3, 25, |c| judged_in_one_process("python3", &["-c", PYTHON_JUDGE], c));
}

#[test]
fn codemods_on_gos_library_parse_and_mean_the_template() {
    let root = PathBuf::from(ask("go", &["env", "GOROOT"])).join("src");
    let files = real_files(&root, "go", SupportLang::Go, 60);
    judged_both(&GO, &files, 0x1319_8A2E_0370_7344, 25, go_judged);
}

#[test]
fn codemods_on_rxjs_typescript_parse_and_mean_the_template() {
    let root = npm_root().join("rxjs").join("src");
    let files = real_files(&root, "ts", SupportLang::TypeScript, 60);
    judged_both(&TYPESCRIPT, &files, 0x4528_21E6_38D0_1377, 25, ts_judged);
}

#[test]
fn codemods_on_npms_javascript_parse_and_mean_the_template() {
    let root = npm_root().join("npm");
    let files = real_files(&root, "js", SupportLang::JavaScript, 60);
    judged_both(&JAVASCRIPT, &files, 0xA409_3822_299F_31D0, 25, |c| {
        let verdicts = judged_in_one_process("node", &["--experimental-vm-modules", "--no-warnings", "-e", NODE_JUDGE], c);
        with_outlines(&JAVASCRIPT, c, verdicts)
    });
}

#[test]
fn codemods_on_this_crates_rust_parse_and_mean_the_template() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = real_files(&root, "rs", SupportLang::Rust, 40);
    judged_both(&RUST, &files, 0x082E_FA98_EC4E_6C89, 15, |c| with_outlines(&RUST, c, rust_judged(c)));
}
