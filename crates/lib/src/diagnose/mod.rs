//! Diagnostics that lead to the fix when a pattern finds nothing or is likely wrong
//! (docs/DESIGN.md §2.12): how the pattern and the code it names parse, near misses,
//! calls a `$$$` list misses, and the common slips. It looks only at files the run
//! parsed anyway, at most [`MAX_DIAGNOSED_FILES`] and [`MAX_DIAGNOSED_BYTES`], so a run
//! that matches nothing keeps the prefilter's speed. Every message is a
//! [`Text`](crate::shared::message::Text) that names inputs for the front end to word,
//! and shows the user's pattern, never its pre-processed form.

use std::path::Path;

use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::{MatchStrictness, Pattern};
use ast_grep_language::SupportLang;

use crate::compile::hints::{context_for, lowercase_note};
use crate::compile::{self, CompiledOp};
use crate::engine::{Engine, Rewrite};
use crate::request::lang;
use crate::request::walk::Candidate;
use crate::request::{Request, Strictness};
use crate::shared::error::Error;
use crate::shared::message::{Input, Name, Text};

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
    let Some(rw) = rw else {
        // (Only an ad-hoc edit's diagnosis parses files again.)
        let parsed = diagnosed(req) && (req.no_prefilter || ops.iter().any(|op| op.may_match(text.as_bytes())));
        return FileSeen { parsed, ..FileSeen::default() };
    };
    let mut matched: Vec<usize> = rw.edits.iter().map(|e| e.op).collect();
    matched.extend(rw.dropped.iter().flat_map(|d| [d.lost, d.won]));
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

/// When the walk found no file and the request has include globs: a note when
/// the paths do hold files of the edit's languages and the globs left them all
/// out because a glob with a `/` matches from the top folder (the working
/// directory, the MCP server's root), not from each path given; with the globs
/// that would match (`**/` in front) when they do. `None` when the globs are
/// not the cause. Walks again (only in this case, where the run did nothing).
pub fn globs_note(req: &Request, cwd: &Path) -> Option<Text> {
    let includes: Vec<&String> = req.globs.iter().filter(|g| !g.starts_with('!')).collect();
    if includes.is_empty() {
        return None;
    }
    let count = |globs: Vec<String>| crate::request::walk::walk(&Request { globs, max_files: None, ..req.clone() }, cwd).map(|w| w.total).unwrap_or(0);
    let without = count(req.globs.iter().filter(|g| g.starts_with('!')).cloned().collect());
    if without == 0 {
        return None;
    }
    let anchored = |g: &str| g.contains('/') && !g.starts_with("**/") && !g.starts_with('/');
    let fixed: Vec<String> = req.globs.iter().map(|g| if !g.starts_with('!') && anchored(g) { format!("**/{g}") } else { g.clone() }).collect();
    let head = match without {
        1 => "the globs left out the 1 file under the given paths".to_string(),
        n => format!("the globs left out all {n} files under the given paths"),
    };
    if fixed == req.globs {
        return Some(
            Text::from(format!("{head}: check each glob against those files' paths from the top folder (not from each of "))
                .name(Name::Input(Input::Paths))
                .lit(")."),
        );
    }
    let with_fixed = count(fixed.clone());
    let mut t = Text::from(format!("{head}: a glob with a `/` matches paths from the top folder, not from each of "))
        .name(Name::Input(Input::Paths))
        .lit(format!(" (`{}` does not match `<path>/{}`)", includes[0], includes[0]));
    if with_fixed > 0 {
        let first = fixed.iter().find(|g| g.starts_with("**/") && !req.globs.contains(g)).expect("a glob was changed");
        let verb = if with_fixed == 1 { "matches" } else { "match" };
        t = t
            .lit(format!("; with `**/` in front of each such glob, {} {verb}, e.g. ", crate::shared::text::plural(with_fixed, "file")))
            .name(Name::Set(Input::Globs, first.clone()));
    }
    Some(t.lit("."))
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
/// written in another language than the files'. With a language named, only
/// the languages of the files under the paths (from `cwd`) are offered.
pub fn compile_failed(req: &Request, tried: &[SupportLang], cwd: &Path, err: Error) -> Error {
    let Error::BadInput(msg) = err else { return err };
    if !diagnosed(req) {
        return Error::BadInput(msg);
    }
    // A language the user named stays, unless the files under the paths are
    // of another: only their languages are offered then (none when they are
    // of the language named).
    let offered: Option<Vec<SupportLang>> = req.lang.map(|_| {
        let probe = Request { lang: None, max_files: None, ..req.clone() };
        let mut found: Vec<SupportLang> = crate::request::walk::walk(&probe, cwd).map(|w| w.files.iter().map(|c| c.lang).collect()).unwrap_or_default();
        found.sort_by_key(|l| lang::name(*l));
        found.dedup();
        found
    });
    let mut msg = msg;
    for i in 0..req.ops.len() {
        // (A lowercase metavariable or a missing `;` has its own hint in the error.)
        let pat = &req.ops[i].pat;
        if tried.iter().any(|&l| compile::compile_op(i, req, l).is_ok() || lowercase_note(pat, l).is_some() || compile::semicolon_hint(pat, l).is_some()) {
            continue;
        }
        // Code of a language tried but for a metavariable where its grammar
        // takes none: no other language, but the form that matches.
        if let Some(m) = tried.iter().find_map(|&l| metavariable_in_error(pat, l)) {
            msg = msg.lit(format!(
                "\nops[{i}].pat is {} code but for `{}`, which stands where the grammar takes no metavariable (inside a `{}`); to match every `{}`, give a rule with `kind: {}` instead of the pattern (`rule: {{kind: {}}}`; ",
                m.lang, m.meta, m.parent, m.root, m.root, m.root
            ))
            .name(Name::Tree(m.lang.clone()))
            .lit(" shows its fields, which `has` with `field:` can match).");
            continue;
        }
        let fits: Vec<&str> = LIKELY_LANGS
            .iter()
            .chain(SupportLang::all_langs().iter())
            .filter(|l| !tried.contains(l) && offered.as_ref().is_none_or(|o| o.contains(l)))
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

/// A pattern that is code of a language but for metavariables where its grammar
/// takes none (Rust's `match $X { $$$ARMS }`: the arms of a `match_block` are
/// `pat => expr`).
struct MetaInError {
    /// The language's name.
    lang: String,
    /// The first such metavariable, as written (`$$$ARMS`).
    meta: String,
    /// The kind of the node holding it (`match_block`).
    parent: String,
    /// The kind the pattern's root would match (`match_expression`).
    root: String,
}

/// [`MetaInError`] of `pat` in `lang`: every ERROR node of its tree holds
/// only a metavariable, and it has no MISSING node. `None` otherwise.
fn metavariable_in_error(pat: &str, lang: SupportLang) -> Option<MetaInError> {
    use ast_grep_core::Language;
    use ast_grep_core::tree_sitter::LanguageExt;
    let src = lang.pre_process_pattern(pat).into_owned();
    let grep = lang.ast_grep(&src);
    let root = grep.root().get_inner_node();
    let mut first: Option<(String, String)> = None;
    let mut other = false;
    crate::shared::nodes::preorder(root, |n| {
        if n.is_missing() {
            other = true;
        } else if n.is_error() {
            let text = src[n.byte_range()].trim();
            match lang.extract_meta_var(text) {
                Some(_) if first.is_none() => {
                    let parent = n.parent().map_or_else(String::new, |p| p.kind().to_string());
                    first = Some((text.replace(lang.expando_char(), "$"), parent));
                }
                Some(_) => {}
                None => other = true,
            }
        }
    });
    let (meta, parent) = first.filter(|_| !other)?;
    let mut top = root;
    while top.named_child_count() == 1 && top.child_count() <= 2 {
        top = top.named_child(0)?;
    }
    Some(MetaInError { lang: lang::name(lang).to_string(), meta, parent, root: top.kind().to_string() })
}

/// For an op that matched nothing: a note when its pattern parses as a binary
/// operation on `|` (`assertEquals|assertEqual`), which is code of the
/// language, not a choice between two patterns.
pub(crate) fn operator_note(i: usize, pat: &str, lang: SupportLang) -> Option<Text> {
    use ast_grep_core::tree_sitter::LanguageExt;
    if !pat.contains('|') || pat.contains("||") {
        return None;
    }
    let grep = lang.ast_grep(pat);
    let root = grep.root().get_inner_node();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let children: Vec<tree_sitter::Node<'_>> = node.children(&mut cursor).collect();
        if children.iter().any(|c| !c.is_named() && c.kind() == "|") && node.named_child_count() == 2 {
            let sides: Vec<String> = (0..2).filter_map(|k| node.named_child(k)).map(|n| shown(&pat[n.byte_range()])).collect();
            return Some(
                Text::from(format!(
                    "ops[{i}].pat `{}` matched nothing: in {} `|` is an operator, so the pattern is one `{}` (`{}` or-ed with `{}`), not a choice between two patterns; give each as its own pattern (",
                    shown(pat),
                    lang::name(lang),
                    node.kind(),
                    sides[0],
                    sides.get(1).map_or("", String::as_str),
                ))
                .name(Name::Set(Input::Pattern, sides[0].clone()))
                .lit(", ")
                .name(Name::Set(Input::Pattern, sides.get(1).cloned().unwrap_or_default()))
                .lit("), or a `rule` with `any:` of patterns."),
            );
        }
        stack.extend(children.into_iter().rev().filter(|c| c.is_named()));
    }
    None
}

/// For the rules of a rule set that matched nothing: a note per relational
/// rule (`inside`, `has`, `follows`, `precedes`) without `stopBy` (as JSON, a
/// rule config says `stopBy: neighbor` then; a `has` with `field`, which names
/// the child it looks at, is left out), which
/// looks at the next node only (the direct parent, a direct child, the next
/// sibling): the usual cause when `inside: {kind: impl_item}` finds nothing.
pub fn relational_notes(req: &Request, zero: impl Fn(usize) -> bool) -> Vec<Text> {
    let Some(set) = &req.rule_set else { return Vec::new() };
    let mut out = Vec::new();
    let names = req.rule_names();
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    for (i, rule) in set.rules.iter().enumerate().filter(|(i, _)| zero(*i)) {
        let mut found: Vec<&'static str> = Vec::new();
        relational_without_stop(&rule.json(), &mut found);
        found.dedup();
        for key in found {
            let (looks, all) = match key {
                "inside" => ("the direct parent", "every ancestor"),
                "has" => ("the direct children", "every descendant"),
                "follows" => ("the node just before", "every node before"),
                _ => ("the node just after", "every node after"),
            };
            out.push(Text::from(format!(
                "rule `{}` matched nothing: its `{key}` has no `stopBy` (or `stopBy: neighbor`, the default), so it looks at {looks} only; to look at {all}, add `stopBy: end` to the `{key}`.",
                name(i)
            )));
        }
    }
    out
}

/// The relational keys under `v` (a rule as JSON) whose rule has no `stopBy`.
fn relational_without_stop(v: &serde_json::Value, found: &mut Vec<&'static str>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, sub) in m {
                let key = ["inside", "has", "follows", "precedes"].into_iter().find(|r| r == k);
                // A `has` with `field` names the child it looks at: a miss there is
                // the field's, which "every descendant" does not fix; no note.
                if let Some(key) = key
                    && sub.as_object().is_some_and(|o| {
                        o.get("stopBy").is_none_or(|v| v.is_null() || v == "neighbor") && !(key == "has" && o.get("field").is_some_and(|f| !f.is_null()))
                    })
                    && !found.contains(&key)
                {
                    found.push(key);
                }
                relational_without_stop(sub, found);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| relational_without_stop(x, found)),
        _ => {}
    }
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
    /// The request's budget: each file the diagnosis parses again is matched
    /// under a meter of its own, and a cancel stops it.
    pub budget: &'a crate::engine::budget::Budget,
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

/// True when `m` matches the node `n` of `grep` (metered).
fn matches<M: MatcherExt>(m: &M, grep: &crate::engine::metered::Grep, n: tree_sitter::Node<'_>) -> bool {
    m.match_node(grep.adopt(crate::engine::metered::Step(n))).is_some()
}

/// True when metavariable `m` stands for a list (`$$$A`, `$$$`).
fn is_multi(m: &MetaVariable) -> bool {
    matches!(m, MetaVariable::MultiCapture(_) | MetaVariable::Multiple)
}
