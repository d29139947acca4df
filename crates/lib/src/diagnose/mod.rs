//! Diagnostics that lead to the fix when a pattern finds nothing or is likely
//! wrong (docs/DESIGN.md §2.12): how the pattern parsed and how the code it
//! names parses in the files, near misses, calls a `$$$` list misses, a
//! lowercase metavariable, Go's `pkg.Fn(x)` read as a type conversion, a glob
//! given as a path, a language that does not fit the files.
//!
//! The diagnosis looks only at files the run parsed anyway (they passed the
//! prefilter), at most [`MAX_DIAGNOSED_FILES`] of them in path order and
//! [`MAX_DIAGNOSED_BYTES`] together, so a run that matches nothing keeps the
//! prefilter's speed. Every message is a [`Text`](crate::shared::message::Text) that
//! names inputs for the front end to word, and shows the user's pattern, never its
//! pre-processed form.

use std::path::Path;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::{MatchStrictness, Pattern};
use ast_grep_language::SupportLang;

use crate::compile::hints::{context_for, lowercase_note};
use crate::compile::{self, CompiledOp};
use crate::engine::{Engine, Rewrite};
use crate::shared::error::Error;
use crate::request::lang;
use crate::shared::message::{Input, Name};
use crate::request::{Request, Strictness};
use crate::request::walk::Candidate;

/// Most files one language's diagnosis parses again (the first ones, in path
/// order, of those the run parsed).
pub const MAX_DIAGNOSED_FILES: usize = 16;
/// Most bytes of those files together.
pub const MAX_DIAGNOSED_BYTES: u64 = 1024 * 1024;
/// Most ops diagnosed in one run (the first ones that need it).
pub const MAX_DIAGNOSED_OPS: usize = 8;
/// Longest pattern or code shown whole in a diagnosis (characters); longer ones
/// are cut with `…`, so a diagnosis fits an MCP text line.
const MAX_SHOWN_CHARS: usize = 60;
/// What one file of a run tells the diagnosis.
#[derive(Clone, Debug, Default)]
pub struct FileSeen {
    /// The file was parsed for at least one op (it passed the prefilter).
    pub parsed: bool,
    /// The ops that matched in it: an edit, a finding, a dropped match.
    pub matched: Vec<usize>,
    /// A match was left alone because the code around it does not parse.
    pub left_alone: bool,
}

/// True when the request's ops are diagnosed: an ad-hoc edit (not rule configs
/// or rule files, whose rules say more than a pattern).
pub fn diagnosed(req: &Request) -> bool {
    req.rule_set.is_none()
}

/// For a search that found nothing: a note per op whose pattern holds a
/// lowercase metavariable (`$a`) in one of `langs` (the request's language, or
/// those of the files searched), since `$a` then matches only the code `$a`.
pub fn lowercase_notes(req: &Request, langs: &[SupportLang]) -> Vec<String> {
    if !diagnosed(req) {
        return Vec::new();
    }
    let langs: Vec<SupportLang> = req.lang.map_or_else(|| langs.to_vec(), |l| vec![l]);
    req.ops
        .iter()
        .enumerate()
        .filter_map(|(i, op)| langs.iter().find_map(|&l| lowercase_note(&op.pat, l)).map(|note| format!("ops[{i}].pat: {note}")))
        .collect()
}

/// What the engine's result for one file (`rw`; `None`: nothing matched) tells
/// the diagnosis. A file without a match was parsed when an op's prefilter let
/// it through (the engine's own test, repeated only for such files).
pub fn file_seen(req: &Request, ops: &[&CompiledOp], text: &str, rw: Option<&Rewrite>) -> FileSeen {
    if !diagnosed(req) {
        return FileSeen::default();
    }
    let Some(rw) = rw else {
        let parsed = req.no_prefilter || ops.iter().any(|op| op.may_match(text.as_bytes()));
        return FileSeen { parsed, ..FileSeen::default() };
    };
    let mut matched: Vec<usize> = rw.edits.iter().map(|e| e.op).collect();
    matched.extend(rw.dropped.iter().flat_map(|&(lost, won, _)| [lost, won]));
    matched.extend(rw.findings.iter().map(|f| f.rule));
    matched.sort_unstable();
    matched.dedup();
    FileSeen { parsed: true, matched, left_alone: !rw.unparsed.is_empty() }
}

/// When `lang` is forced and the walk found no file of it: its name and the
/// languages of the files that are there, with their counts, most first, at
/// most 3 (walked again without `lang`; only in this case, where the run did
/// nothing else).
pub fn other_languages(req: &Request, cwd: &Path) -> Option<(String, Vec<(String, usize)>)> {
    let forced = req.lang?;
    let probe = Request { lang: None, max_files: None, ..req.clone() };
    let walked = crate::request::walk::walk(&probe, cwd).ok()?;
    let mut counts: Vec<(SupportLang, usize)> = Vec::new();
    for c in &walked.files {
        match counts.iter_mut().find(|(l, _)| *l == c.lang) {
            Some((_, n)) => *n += 1,
            None => counts.push((c.lang, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| lang::name(a.0).cmp(lang::name(b.0))));
    if counts.is_empty() {
        return None;
    }
    let found = counts.iter().take(3).map(|(l, n)| (lang::name(*l).to_string(), *n)).collect();
    Some((lang::name(forced).to_string(), found))
}

/// Languages tried first when a pattern compiles for none of the run's: the
/// common ones, then the rest in ast-grep's order.
const LIKELY_LANGS: [SupportLang; 10] = [
    SupportLang::Python,
    SupportLang::JavaScript,
    SupportLang::TypeScript,
    SupportLang::Rust,
    SupportLang::Go,
    SupportLang::Java,
    SupportLang::C,
    SupportLang::Cpp,
    SupportLang::CSharp,
    SupportLang::Ruby,
];

/// `err` (an op that compiles for none of the languages `tried`), with the
/// languages it does parse cleanly as, when there are any: the pattern may be
/// written in another language than the files'.
pub fn compile_failed(req: &Request, tried: &[SupportLang], err: Error) -> Error {
    let Error::BadInput(msg) = err else { return err };
    if !diagnosed(req) {
        return Error::BadInput(msg);
    }
    let mut msg = msg;
    for i in 0..req.ops.len() {
        // (A lowercase metavariable or a missing `;` has its own hint in the error.)
        let pat = &req.ops[i].pat;
        if tried.iter().any(|&l| compile::compile_op(i, req, l).is_ok() || lowercase_note(pat, l).is_some() || compile::semicolon_hint(pat, l).is_some()) {
            continue;
        }
        let fits: Vec<&str> = LIKELY_LANGS
            .iter()
            .chain(SupportLang::all_langs().iter())
            .filter(|l| !tried.contains(l))
            .fold(Vec::new(), |mut v: Vec<SupportLang>, l| {
                if !v.contains(l) {
                    v.push(*l);
                }
                v
            })
            .into_iter()
            .filter(|&l| compile::compile_op(i, req, l).is_ok())
            .take(4)
            .map(lang::name)
            .collect();
        if let Some(first) = fits.first() {
            msg = msg
                .lit(format!("\nops[{i}].pat parses cleanly as {}: if it is written in another language, pass that language (e.g. ", fits.join(", ")))
                .name(Name::Set(Input::Lang, first.to_string()))
                .lit(").");
        }
    }
    Error::BadInput(msg)
}

/// `s` cut to [`MAX_SHOWN_CHARS`] characters on one line.
fn shown(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

mod probe;

pub use probe::diagnose;

/// The facts of a finished dry run that the diagnosis reads.
pub struct RunFacts<'a> {
    /// The request.
    pub req: &'a Request,
    /// Its ops, compiled per language.
    pub engine: &'a Engine,
    /// The files searched, in path order.
    pub files: &'a [Candidate],
    /// What each of them told (same order).
    pub seen: &'a [FileSeen],
}

/// How the strictness of op `i` compares punctuation: `smart` and `cst` need
/// every unnamed node of the pattern in the code.
fn compares_punctuation(s: Strictness) -> bool {
    matches!(s, Strictness::Smart | Strictness::Cst)
}

/// Pattern `pat` of `lang` with the selector, at strictness `ast`.
fn at_ast(pat: &str, selector: Option<&str>, lang: SupportLang) -> Option<Pattern> {
    let p = match selector {
        Some(sel) => Pattern::contextual(pat, sel, lang),
        None => Pattern::try_new(pat, lang),
    };
    p.ok().map(|p| p.with_strictness(MatchStrictness::Ast))
}

/// True when `m` matches the node `n` of `grep`.
fn matches<M: MatcherExt>(m: &M, grep: &ast_grep_core::AstGrep<ast_grep_core::tree_sitter::StrDoc<SupportLang>>, n: tree_sitter::Node<'_>) -> bool {
    m.match_node(grep.adopt(n)).is_some()
}

/// True when metavariable `m` stands for a list (`$$$A`, `$$$`).
fn is_multi(m: &MetaVariable) -> bool {
    matches!(m, MetaVariable::MultiCapture(_) | MetaVariable::Multiple)
}
