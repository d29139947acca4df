//! Compiles each op of a request once per language it meets: the ast-grep pattern
//! (with selector and strictness) and the rewrite template, with the checks that
//! turn a silent no-op into a clear error: a pattern that does not parse, a pattern
//! whose tree holds an ERROR node (with a hint), and a rewrite that uses a
//! metavariable the pattern does not define. The hints leave the inputs they
//! name to the front end that shows them (docs/DESIGN.md §5.14), and every
//! message shows the user's pattern, never ast-grep-core's pre-processed one
//! (`$` turned into the language's expando character).

pub(crate) mod hints;
pub(crate) mod prefilter;
mod sample;
mod tight_ends;
pub mod work;

use std::collections::BTreeSet;

use ast_grep_config::{Fixer, GlobalRules, RuleConfig};
use ast_grep_core::replacer::TemplateFix;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::matcher::PatternError;
use ast_grep_core::{AstGrep, Pattern};
use ast_grep_core::matcher::PatternNode;
use ast_grep_language::SupportLang;

use crate::request::lang;
use crate::shared::message::{Input, Name, Say, Text};
use crate::compile::prefilter::{occurrences, Prefilter};
use crate::request::{check_op_limits, Op, Request};
use crate::request::ruleset;
use serde_json::Value;

/// One rule compiled for one language: an op of the request (`pat` -> `out`, as
/// the rule config [`crate::request::ruleset::OpRule`] of it) or a rule config of the
/// request's `rule`.
pub struct CompiledOp {
    /// Index of the op (or rule) in the request.
    pub index: usize,
    /// The rule id: the rule config's, or `op-N` for op N.
    pub id: String,
    /// The compiled rule: matcher (ast-grep-config's `RuleCore`) and fixers.
    pub rule: RuleConfig<SupportLang>,
    /// What a file must contain to match (the literal prefilter), one per pattern
    /// that must match: a file lacking one is skipped before parsing. The flag
    /// says the pattern's literals lie inside every match (it matches the node or
    /// a node under it), so they can anchor the walk.
    pub prefilters: Vec<(Prefilter, bool)>,
    /// What bounds the size of one replacement (see [`FixBound::at_most`]);
    /// `None` when the fix uses transforms, whose output it cannot bound: the
    /// replacement is then counted after it is built.
    pub fix_bound: Option<FixBound>,
    /// The most one of its `transform` steps can make of its input, as a
    /// multiple of the input's length ([`work::growth`]; 1 without transforms).
    pub growth: u64,
    /// The rule has a fix (else its matches are findings).
    pub has_fix: bool,
    /// A rule config, whose matches `ast-grep-ignore` comments suppress (as
    /// `ast-grep scan`); an op's are not (as `ast-grep run`).
    pub suppressible: bool,
    /// Pattern problems of a rule config that a project loads anyway (as
    /// ast-grep would): shown as warnings.
    pub lint: Vec<String>,
    /// One of `ast-grep scan`'s checks of `ast-grep-ignore` comments, whose
    /// matches ast-grep-config's `CombinedScan` finds ([`check_of`]).
    pub check: Option<SuppressionCheck>,
}

/// `ast-grep scan`'s built-in rules on `ast-grep-ignore` comments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuppressionCheck {
    /// `unused-suppression`: a comment that suppressed nothing (its fix to
    /// nothing deletes it).
    Unused,
    /// `no-suppress-all`: a comment that names no rule.
    NoSuppressAll,
}

/// The check a rule config stands for: id `unused-suppression` or
/// `no-suppress-all` with `rule: {any: []}` (which matches nothing by itself);
/// `ast_edit::rules::suppression` adds them to a project's rules.
pub fn check_of(config: &Value) -> Option<SuppressionCheck> {
    if config.get("rule") != Some(&serde_json::json!({"any": []})) {
        return None;
    }
    match config.get("id").and_then(Value::as_str)? {
        ast_grep_config::UNUSED_SUPPRESSION_ID => Some(SuppressionCheck::Unused),
        ast_grep_config::NO_SUPPRESS_ALL_ID => Some(SuppressionCheck::NoSuppressAll),
        _ => None,
    }
}

/// The numbers of a rewrite template that bound the size of a replacement
/// before it is built (`engine::rewrite` keeps to a budget per file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixBound {
    /// The template's length in bytes.
    pub len: usize,
    /// Metavariable characters (`$`) in it: at least as many as the
    /// metavariables it inserts.
    pub vars: usize,
    /// Line breaks in it.
    pub newlines: usize,
    /// The deepest indentation (leading spaces) of its lines.
    pub indent: usize,
}

/// ast-grep-core measures indentation at most this many bytes back
/// (`MAX_LOOK_AHEAD` in its `replacer/indent.rs`).
pub const MAX_INDENT: usize = 512;

impl FixBound {
    /// The numbers of the template `out` whose metavariables start with `meta`.
    pub fn of(out: &str, meta: char) -> Self {
        let indent = out.split('\n').map(|l| l.len() - l.trim_start_matches(' ').len()).max().unwrap_or(0);
        FixBound {
            len: out.len(),
            vars: out.matches(meta).count(),
            newlines: out.matches('\n').count(),
            indent: indent.min(MAX_INDENT),
        }
    }

    /// At least the length of the replacement of a match of `len` bytes holding
    /// `newlines` line breaks, on a line indented by `indent` spaces. ast-grep-core
    /// pastes each metavariable's text (a part of the match) with its lines
    /// re-indented to the template's indentation, then re-indents the lines of the
    /// result to the match's.
    pub fn at_most(&self, len: usize, newlines: usize, indent: usize) -> usize {
        let indent = indent.min(MAX_INDENT);
        let pasted = self.vars.saturating_mul(len.saturating_add(newlines.saturating_mul(self.indent)));
        let lines = self.newlines.saturating_add(self.vars.saturating_mul(newlines));
        self.len.saturating_add(pasted).saturating_add(lines.saturating_mul(indent))
    }
}

impl CompiledOp {
    /// True when `text` holds what every match holds (so it may match).
    pub fn may_match(&self, text: &[u8]) -> bool {
        self.prefilters.iter().all(|(p, _)| p.may_match(text))
    }

    /// The rarest literal in `text` among those every match's node spans: its
    /// length and every offset where it occurs, sorted. A subtree spanning none
    /// of them holds no match and need not be visited. `None` when the rule has
    /// no such literal.
    pub fn anchor(&self, text: &[u8]) -> Option<(usize, Vec<usize>)> {
        self.prefilters
            .iter()
            .filter(|(_, in_node)| *in_node)
            .flat_map(|(p, _)| p.literals.iter())
            .map(|l| (l.len(), occurrences(text, l.as_bytes()).collect::<Vec<_>>()))
            .min_by_key(|(_, hits)| hits.len())
    }

    /// The first fixer (ast-grep applies the first of a `fix` list).
    pub fn fixer(&self) -> Option<&Fixer> {
        self.rule.fixer.first()
    }
}

/// Which part of an op is at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpField {
    /// The pattern (`pat`).
    Pat,
    /// The rewrite (`out`).
    Out,
    /// A rule config of the request's `rule`.
    Rule,
}

/// Why an op does not compile for a language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The field at fault.
    pub field: OpField,
    /// The full message: names the op, the language and the fix.
    pub message: Text,
    /// A few words for a summary line listing several languages.
    pub short: String,
    /// Not an error of the op: the language is prose, or the pattern is text
    /// there, and no language was named (see `prose_root`).
    pub prose: bool,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.message.fmt(f)
    }
}

fn cerr(field: OpField, message: impl Into<Text>, short: impl Into<String>) -> CompileError {
    CompileError { field, message: message.into(), short: short.into(), prose: false }
}

/// Compiles every op of `req` for `lang`; the first failing op is reported.
#[cfg(test)]
pub fn compile_all(req: &Request, lang: SupportLang) -> Result<Vec<CompiledOp>, CompileError> {
    (0..req.ops.len()).map(|i| compile_op(i, req, lang)).collect()
}

pub use crate::request::MAX_PATTERN_DEPTH;

/// Compiles `req.ops[index]` for `lang`.
pub fn compile_op(index: usize, req: &Request, lang: SupportLang) -> Result<CompiledOp, CompileError> {
    let op: &Op = &req.ops[index];
    let lname = lang::name(lang);
    // Before any parse: the sizes and bracket nesting (rule files come here
    // without `RawRequest::validate`).
    check_op_limits(index, op).map_err(|(field, msg)| {
        let field = if field == "pat" { OpField::Pat } else { OpField::Out };
        cerr(field, msg, "over a limit")
    })?;
    // A prose language is searched only when named (docs/DESIGN.md §2.3).
    if req.lang.is_none() && lang::is_prose(lang) {
        return Err(prose(index, &op.pat, lang, None));
    }
    // Then the depth of the pattern's tree, parsed as ast-grep-core will parse it
    // (tree-sitter parses without recursion), before `Pattern::try_new` recurses.
    let (snippet, depth) = crate::request::parse_pattern(&op.pat, lang);
    if depth > MAX_PATTERN_DEPTH {
        return Err(cerr(
            OpField::Pat,
            format!(
                "ops[{index}].pat is nested {depth} levels deep as {lname} (its syntax tree); the limit is {MAX_PATTERN_DEPTH} levels: let a metavariable ($A) stand for the inner levels"
            ),
            format!("the pattern is nested over {MAX_PATTERN_DEPTH} levels deep"),
        ));
    }
    let built = match req.selector.as_deref() {
        Some(sel) => Pattern::contextual(&op.pat, sel, lang),
        None => Pattern::try_new(&op.pat, lang),
    };
    let pattern = built
        .map_err(|e| {
            cerr(
                OpField::Pat,
                Text::from(format!(
                    "ops[{index}].pat `{}` is not a valid {lname} pattern: {}",
                    op.pat,
                    user_text(&e.to_string(), &op.pat, lang)
                ))
                .then(match (&e, req.selector.as_deref()) {
                    (PatternError::NoSelectorInContext { .. }, Some(sel)) => selector_hint(&op.pat, sel, lang),
                    _ => hint(&op.pat, lang, HintFor::Op),
                }),
                "not a valid pattern",
            )
        })?
        .with_strictness(req.strictness.to_core());
    if has_error_node(&pattern.node) || pattern.has_error() || pattern_source_has_error(&snippet, req.selector.is_some(), lang) {
        let short = match semicolon_hint(&op.pat, lang) {
            Some(t) => format!("the pattern has an ERROR or MISSING node; try `{t};`"),
            None => "the pattern has an ERROR or MISSING node".to_string(),
        };
        return Err(cerr(
            OpField::Pat,
            Text::from(format!(
                "ops[{index}].pat `{}` does not parse cleanly as {lname}: its syntax tree contains an ERROR or MISSING node, so it would match nothing or the wrong code.",
                op.pat
            ))
            .then(hint(&op.pat, lang, HintFor::Op)),
            short,
        ));
    }
    // ast-grep-config refuses a rule that names no kind ("Rule must specify a
    // set of AST kinds"): say what that means for a pattern.
    if matches!(pattern.node, PatternNode::MetaVar { .. }) && req.selector.is_none() {
        return Err(cerr(
            OpField::Pat,
            format!(
                "ops[{index}].pat `{}` is a metavariable alone, which would match every node of every file; write the code around it that says which nodes (`$A.unwrap()`, `print($A)`), or give a rule with `kind` (`rule: {{kind: call, pattern: $A}}`)",
                op.pat
            ),
            "a metavariable alone",
        ));
    }
    if req.lang.is_none()
        && let Some(kind) = prose_root(&pattern, lang)
    {
        return Err(prose(index, &op.pat, lang, Some(&kind)));
    }
    let fix = TemplateFix::try_new(&op.out, &lang).map_err(|e| {
        cerr(OpField::Out, format!("ops[{index}].out `{}` is not a valid {lname} rewrite: {e:?}", op.out), "not a valid rewrite")
    })?;
    let defined = pattern.defined_vars();
    let used = fix.used_vars();
    let missing: BTreeSet<&str> = used.iter().copied().filter(|v| !defined.contains(v)).collect();
    if !missing.is_empty() {
        let mut have: Vec<String> = defined.iter().map(|v| format!("${v}")).collect();
        have.sort();
        let names = missing.iter().map(|v| format!("${v}")).collect::<Vec<_>>().join(", ");
        return Err(cerr(
            OpField::Out,
            format!(
                "ops[{index}].out uses {names} which the pattern `{}` does not define as {lname} (it defines: {}); use only the pattern's metavariables",
                op.pat,
                if have.is_empty() { "none".to_string() } else { have.join(", ") }
            ),
            if have.is_empty() { "the pattern has no metavariables in this language".to_string() } else { format!("the rewrite uses {names}, undefined here") },
        ));
    }
    let prefilter = Prefilter::new(&pattern, req.strictness, lang);
    let fix_bound = FixBound::of(&op.out, ast_grep_core::Language::meta_var_char(&lang));
    let id = crate::request::op_id(index);
    let config = serde_json::to_value(ruleset::OpRule::of(req, index, Some(lang))).expect("plain data serializes");
    let rule = crate::request::rule::Rule::from_json(config)
        .and_then(|r| r.build(&GlobalRules::default()))
        .map_err(|e| cerr(OpField::Pat, format!("ops[{index}] does not compile as {lname}: {}", user_text(&e.to_string(), &op.pat, lang)), "does not compile"))?;
    Ok(CompiledOp {
        index,
        id,
        rule,
        check: None,
        prefilters: vec![(prefilter, true)],
        fix_bound: Some(fix_bound),
        growth: 1,
        has_fix: true,
        suppressible: false,
        lint: Vec::new(),
    })
}

/// The kind of the node `pattern` matches when, in `lang`, that is text rather
/// than code: HTML's `text`, a YAML string scalar. A pattern of another
/// language often parses so there (`print($A)` is a line of text in HTML), and
/// would then match prose or data, so without a language named such files are
/// not searched for it (docs/DESIGN.md §2.3).
fn prose_root(pattern: &Pattern, lang: SupportLang) -> Option<String> {
    let kind_id = match &pattern.node {
        PatternNode::Terminal { kind_id, .. } | PatternNode::Internal { kind_id, .. } => *kind_id,
        PatternNode::MetaVar { .. } => return None,
    };
    let ts = lang.get_ts_language();
    let kind = ts.node_kind_for_id(kind_id)?;
    let text_kinds: &[&str] = match lang {
        SupportLang::Html => &["text"],
        SupportLang::Yaml => &["string_scalar", "double_quote_scalar", "single_quote_scalar", "block_scalar"],
        _ => &[],
    };
    text_kinds.contains(&kind).then(|| kind.to_string())
}

/// Why op `index` is not searched in files of `lang` when no language is named:
/// `lang` is prose (markdown), or the pattern is text there (`kind`).
fn prose(index: usize, pat: &str, lang: SupportLang, kind: Option<&str>) -> CompileError {
    let lname = lang::name(lang);
    let (why, short) = match kind {
        None => (format!("{lname} is prose"), "prose".to_string()),
        Some(k) => (format!("it is text there (a `{k}`), not code"), format!("text there: a `{k}`")),
    };
    let message = Text::from(format!("ops[{index}].pat `{pat}` is not searched in {lname} files: {why}; they are searched only when the language is named ("))
        .name(Name::Set(Input::Lang, lname.to_string()))
        .lit(").");
    CompileError { prose: true, ..cerr(OpField::Pat, message, short) }
}

/// Compiles rule config `index` of a rule set, `rule`, whose JSON
/// ([`crate::request::rule::Typed::json`]) is `config`: the analyses (the
/// patterns that must match, how much its transforms can grow) read every key
/// of it alike. `strict`: a pattern with an ERROR or MISSING node is an error (a
/// request's `rule`), else a warning in [`CompiledOp::lint`] (a project's
/// rules, which ast-grep loads anyway) when it does not match its own text
/// filled with sample code either (`sample`). `globals`: the compiled global
/// utilities.
pub fn compile_rule(
    index: usize,
    rule: &crate::request::rule::Rule,
    config: &Value,
    globals: &GlobalRules,
    strict: bool,
) -> Result<CompiledOp, CompileError> {
    let lang = rule.language();
    let id = rule.id().to_string();
    let name = if id.is_empty() { format!("rule {index}") } else { format!("rule `{id}`") };
    let mut lint = Vec::new();
    for (p, _) in ruleset::patterns(config) {
        if let Some(problem) = pattern_problem(p.text, p.selector, lang) {
            // A project's rule (which ast-grep loads anyway) is warned of only
            // when the pattern does not even match its own text filled with
            // sample code (`sample`): a pattern whose tree is not clean may
            // still match real code.
            if !strict && p.selector.is_none() && sample::matches_own_sample(p.text, lang) {
                continue;
            }
            lint.push(format!("{name}: {problem}"));
        }
    }
    if strict && let Some(first) = lint.first() {
        return Err(cerr(OpField::Rule, first.clone(), "a pattern does not parse cleanly"));
    }
    let rule = rule.build(globals).map_err(|e| cerr(OpField::Rule, format!("{name}: {}", user_text(&e, "", lang)), "does not compile"))?;
    let fix_bound = match (&rule.fix, config.get("fix"), config.get("transform").filter(|t| !t.is_null())) {
        (Some(_), Some(Value::String(t)), None) => Some(FixBound::of(t, ast_grep_core::Language::meta_var_char(&lang))),
        _ => None,
    };
    let check = check_of(config);
    Ok(CompiledOp {
        index,
        has_fix: !rule.fixer.is_empty(),
        suppressible: true,
        id,
        // The check runs only where a suppression comment is.
        prefilters: if check.is_some() {
            vec![(Prefilter::literal("ast-grep-ignore"), false)]
        } else {
            prefilter::rule_prefilters(config, lang)
        },
        check,
        fix_bound,
        growth: work::growth(config),
        rule,
        lint,
    })
}

/// What is wrong with pattern `pat` (with its selector) in `lang`, if anything:
/// it does not parse, or its tree holds an ERROR or MISSING node (it would match
/// nothing or the wrong code). The same checks as an op's `pat`.
pub fn pattern_problem(pat: &str, selector: Option<&str>, lang: SupportLang) -> Option<String> {
    let lname = lang::name(lang);
    let built = match selector {
        Some(sel) => Pattern::contextual(pat, sel, lang),
        None => Pattern::try_new(pat, lang),
    };
    let pattern = match built {
        Ok(p) => p,
        Err(e) => {
            return Some(format!("pattern `{pat}` is not a valid {lname} pattern: {}{}", user_text(&e.to_string(), pat, lang), hint(pat, lang, HintFor::Rule)));
        }
    };
    let processed = ast_grep_core::Language::pre_process_pattern(&lang, pat);
    let snippet = lang.ast_grep(processed.as_ref());
    (has_error_node(&pattern.node) || pattern.has_error() || pattern_source_has_error(&snippet, selector.is_some(), lang)).then(|| {
        format!(
            "pattern `{pat}` does not parse cleanly as {lname}: its syntax tree contains an ERROR or MISSING node, so it would match nothing or the wrong code.{}",
            hint(pat, lang, HintFor::Rule)
        )
    })
}

fn has_error_node(node: &PatternNode) -> bool {
    match node {
        PatternNode::MetaVar { .. } => false,
        PatternNode::Terminal { kind_id, .. } => *kind_id == u16::MAX,
        PatternNode::Internal { kind_id, children } => {
            *kind_id == u16::MAX || children.iter().any(has_error_node)
        }
    }
}

/// The pattern tree drops MISSING nodes and keeps only the matched node, so look at
/// the parsed snippet too. An ERROR node is refused, except one that merely wraps
/// the whole snippet: ast-grep descends through nodes with a single child (and a
/// trailing MISSING one) to the node it matches with, so there the ERROR is not part
/// of the pattern (tree-sitter-rust wraps `$A.bar()` in one, but not
/// `$A.unwrap()`; ast-grep matches both). A MISSING node is refused in C and C++
/// only: there a call without its `;` (`kfree($A)`) parses as a type
/// (`macro_type_specifier`) and would match nothing, while in Rust, Go or JS the
/// missing `;` sits outside the expression the pattern keeps.
fn pattern_source_has_error(grep: &AstGrep<StrDoc<SupportLang>>, has_selector: bool, lang: SupportLang) -> bool {
    if has_selector {
        // A selector picks a node out of a larger context snippet; only that node counts.
        return false;
    }
    let strict_missing = matches!(lang, SupportLang::C | SupportLang::Cpp);
    // The wrappers ast-grep descends through (`is_single_node` in ast-grep-core).
    let mut wrappers = Vec::new();
    let mut node = grep.root().get_inner_node();
    loop {
        let single = match node.child_count() {
            1 => true,
            2 => node.child(1).is_some_and(|c| c.is_missing() || c.kind().is_empty()),
            _ => false,
        };
        if !single {
            break;
        }
        wrappers.push(node.id());
        node = node.child(0).expect("a single child");
    }
    grep.root().dfs().any(|n| {
        let inner = n.get_inner_node();
        (inner.is_error() && !wrappers.contains(&inner.id())) || (strict_missing && inner.is_missing())
    })
}

/// For languages whose statements end in `;`, the pattern without its `;`.
pub(crate) fn semicolon_hint(pat: &str, lang: SupportLang) -> Option<&str> {
    use SupportLang::*;
    let t = pat.trim_end();
    let needs_semicolon = matches!(lang, C | Cpp | Java | CSharp | Php | Dart);
    (needs_semicolon && !t.ends_with(';') && !t.ends_with('}')).then_some(t)
}

/// Who reads a pattern's hint: an op of a request (its front end words the
/// hint), or a rule config (whose pattern takes a `context` and a `selector`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HintFor {
    Op,
    Rule,
}

/// The hint of a pattern that does not parse cleanly: a missing `;`, or how to
/// match a part of a larger snippet; and a lowercase metavariable.
fn hint(pat: &str, lang: SupportLang, to: HintFor) -> Text {
    let mut h = match (semicolon_hint(pat, lang), to) {
        (Some(t), HintFor::Op) => Text::default().say(Say::StatementHint { lang: lang::name(lang).to_string(), statement: format!("{t};") }),
        (Some(t), HintFor::Rule) => Text::from(format!(
            " Hint: in {} a statement needs its `;`: try `{t};` (to match an expression inside other code, write `pattern: {{context: '{t};', selector: call_expression}}` with the expression's node kind).",
            lang::name(lang)
        )),
        (None, HintFor::Op) => Text::default().say(Say::SnippetHint),
        (None, HintFor::Rule) => Text::from(" Hint: write a complete expression or statement of the target language; to match a part of a larger snippet, write `pattern: {context: SNIPPET, selector: KIND}`."),
    };
    if let Some(note) = hints::lowercase_note(pat, lang) {
        h.push_str(" Note: ");
        h.push_str(&note);
    }
    h
}

/// With a selector the pattern is a context that must hold a node of that kind:
/// a context in which the pattern is one, when a short one is found
/// ([`hints::context_for`]).
fn selector_hint(pat: &str, sel: &str, lang: SupportLang) -> Text {
    match hints::context_for(pat, sel, lang) {
        Some(ctx) => Text::from(format!(
            " Hint: with a selector, the pattern is code that holds a `{sel}`, and alone it holds none; write it where it is one: "
        ))
        .name(Name::Set(Input::Pattern, ctx))
        .lit("."),
        None => Text::from(format!(" Hint: with a selector, the pattern is code that holds a `{sel}`: write the code around it ("))
            .name(Name::Tree(lang::name(lang).to_string()))
            .lit(" shows the kinds)."),
    }
}

/// An ast-grep-core message about pattern `pat` with the user's text in place of
/// the pre-processed one (`kfree(µA)` back to `kfree($A)`; with a selector, the
/// context). An expando character left over (a message quoting part of it, or a
/// rule config's pattern) becomes `$` again, unless the pattern holds it itself.
pub fn user_text(msg: &str, pat: &str, lang: SupportLang) -> String {
    let mut out = msg.to_string();
    if !pat.is_empty() {
        let processed = ast_grep_core::Language::pre_process_pattern(&lang, pat);
        if processed != pat {
            out = out.replace(processed.as_ref(), pat);
        }
    }
    if let Some(e) = hints::expando(lang)
        && !pat.contains(e)
    {
        out = out.replace(e, "$");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{RawRequest, Strictness, WalkOptions};

    fn req(pat: &str, out: &str) -> Request {
        let raw = RawRequest {
            ops: vec![Op { pat: pat.into(), out: out.into() }],
            ..Default::default()
        };
        raw.validate(&std::env::current_dir().unwrap(), WalkOptions::default(), 1).unwrap()
    }

    #[test]
    fn c_call_without_semicolon_is_refused_with_a_hint() {
        let e = compile_all(&req("kfree($A)", "kvfree($A)"), SupportLang::C).err().unwrap().message.to_string();
        assert!(e.contains("ERROR or MISSING node") && e.contains("try `kfree($A);`"), "{e}");
        assert!(compile_all(&req("kfree($A);", "kvfree($A);"), SupportLang::C).is_ok());
    }

    #[test]
    fn rewrite_with_undefined_metavariable_is_refused() {
        let e = compile_all(&req("foo($A)", "bar($B)"), SupportLang::Python).err().unwrap().message.to_string();
        assert!(e.contains("uses $B") && e.contains("defines: $A"), "{e}");
    }

    #[test]
    fn literals_are_the_named_leaves_of_the_pattern() {
        let ops = compile_all(&req("JSON.parse(JSON.stringify($A))", "structuredClone($A)"), SupportLang::JavaScript).unwrap();
        assert_eq!(ops[0].prefilters[0].0.literals, vec!["stringify", "parse", "JSON"]);
        let ops = compile_all(&req("$A.unwrap()", "$A.expect(\"x\")"), SupportLang::Rust).unwrap();
        assert_eq!(ops[0].prefilters[0].0.literals, vec!["unwrap"]);
        assert!(ops[0].may_match(b"x.unwrap()") && !ops[0].may_match(b"x.expect()"));
        let ops = compile_all(&req("print($$$A)", "log($$$A)"), SupportLang::Python).unwrap();
        assert_eq!(ops[0].prefilters[0].0.literals, vec!["print"]);
    }

    fn lits(pat: &str, strictness: &str, lang: SupportLang) -> Vec<String> {
        let mut r = req(pat, "x");
        r.strictness = Strictness::parse(strictness).unwrap();
        compile_all(&r, lang).unwrap().remove(0).prefilters.remove(0).0.literals
    }

    #[test]
    fn keywords_are_required_only_where_the_match_compares_them() {
        use SupportLang::*;
        // `as` and `any` are unnamed keyword nodes: compared by kind under smart and cst.
        assert_eq!(lits("$A as any", "smart", TypeScript), vec!["any", "as"]);
        assert_eq!(lits("$A as any", "cst", TypeScript), vec!["any", "as"]);
        // The looser levels skip unnamed nodes of the pattern; signature ignores text.
        assert!(lits("$A as any", "ast", TypeScript).is_empty());
        assert!(lits("$A as any", "relaxed", TypeScript).is_empty());
        assert_eq!(lits("return foo($A)", "ast", JavaScript), vec!["foo"]);
        assert!(lits("return foo($A)", "signature", JavaScript).is_empty());
        assert_eq!(lits("return foo($A)", "smart", JavaScript), vec!["return", "foo"]);
        // Punctuation is never required: `(`, `.` and `,` are not words.
        assert_eq!(lits("$A.unwrap()", "smart", Rust), vec!["unwrap"]);
        // An unnamed node right after `$$$` is skipped by the matcher, so not required.
        assert_eq!(lits("$$$A as any", "smart", TypeScript), vec!["any"]);
        // PHP keywords are case-insensitive (`FUNCTION f() {}`): never required.
        assert!(lits("return $A;", "smart", Php).is_empty());
        // Python's `except` comes from the external scanner.
        assert!(!lits("try:\n    $A\nexcept:\n    $B", "smart", Python).contains(&"except".to_string()));
        assert!(lits("try:\n    $A\nexcept:\n    $B", "smart", Python).contains(&"try".to_string()));
    }

    #[test]
    fn rust_call_wrapped_in_an_error_node_is_a_valid_pattern() {
        // tree-sitter-rust wraps these snippets in an ERROR node whose only child is
        // the call; ast-grep matches with the call, and so must we.
        for pat in ["$A.bar()", "foo::bar()", "foo.bar"] {
            assert!(compile_all(&req(pat, "z"), SupportLang::Rust).is_ok(), "{pat}");
        }
        assert!(compile_all(&req("foo::bar(", "z"), SupportLang::Rust).is_err());
        assert!(compile_all(&req("$A.bar() +", "z"), SupportLang::Rust).is_err());
    }

    #[test]
    fn broken_pattern_is_refused() {
        assert!(compile_all(&req("foo(", "bar"), SupportLang::Python).is_err());
        assert!(compile_all(&req("print($$$A)", "log($$$A)"), SupportLang::Python).is_ok());
    }
}
