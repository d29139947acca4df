//! A file's matches as a report (`crate::plan::report`): every match of every
//! rule, fix or not, nested and overlapping ones included, each with what
//! `ast-grep scan` reports of it (the rule's message with the match's
//! metavariables, its labels, the fix's replacement, the captures). Nothing is
//! rewritten: a fix's replacement is ast-grep's own output for the match.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::engine::metered::Metered;
use ast_grep_config::{LabelStyle, RuleConfig, Severity as RuleSeverity};
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::{Node, NodeMatch};
use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::CompiledOp;
use crate::engine::RewriteOptions;
use crate::engine::matching::{inject, scan};
use crate::engine::parse::{Parsed, drop_later, parse_for};
use crate::request::read::Skip;

/// How serious a rule says its matches are (its `severity`; `hint` when unset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// `hint`.
    Hint,
    /// `info`.
    Info,
    /// `warning`.
    Warning,
    /// `error`: a match fails a scan that reports it.
    Error,
}

impl Severity {
    /// The word rule configs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Hint => "hint",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// A rule config's severity; `None` for `off` (the rule does not run).
    pub(crate) fn of(s: &RuleSeverity) -> Option<Severity> {
        match s {
            RuleSeverity::Hint => Some(Severity::Hint),
            RuleSeverity::Info => Some(Severity::Info),
            RuleSeverity::Warning => Some(Severity::Warning),
            RuleSeverity::Error => Some(Severity::Error),
            RuleSeverity::Off => None,
        }
    }
}

/// What a report says of the rule behind a match, shared by its matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleInfo {
    /// The rule's `id` (empty for an inline rule without one, as in ast-grep).
    pub id: String,
    /// Its severity.
    pub severity: Severity,
    /// Its `note`, if any.
    pub note: Option<String>,
    /// Its `metadata`, if any.
    pub metadata: Option<Value>,
}

/// A place in a file: byte offsets (in the whole file, BOM included), and the
/// 0-based line and character column of each end (as ast-grep's JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// 0-based line of `start`.
    pub start_line: usize,
    /// 0-based character column of `start`.
    pub start_column: usize,
    /// 0-based line of `end`.
    pub end_line: usize,
    /// 0-based character column of `end`.
    pub end_column: usize,
}

/// A label of a match: a part of the code the rule's `labels` (or ast-grep's
/// default, the whole match) point at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// Where it points.
    pub span: Span,
    /// Primary (the cause) or not (context).
    pub primary: bool,
    /// Its message, if the rule gives one.
    pub message: Option<String>,
}

/// The replacement a rule's first fix gives for a match: the bytes `start..end`
/// (the match, widened by `expandStart`/`expandEnd`) become `text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replacement {
    /// First byte replaced (whole file, BOM included).
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// The new text.
    pub text: String,
}

/// A metavariable's capture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    /// The captured text.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// The captures of a match, by metavariable name (without `$`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captures {
    /// `$A`: one node each.
    pub single: BTreeMap<String, Capture>,
    /// `$$$A`: a list of nodes each.
    pub multi: BTreeMap<String, Vec<Capture>>,
    /// The rule's `transform` outputs, by name.
    pub transformed: BTreeMap<String, String>,
}

/// One match of one rule.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleMatch {
    /// The rule.
    pub rule: Arc<RuleInfo>,
    /// Where the match is.
    pub span: Span,
    /// The rule's message for this match (metavariables filled in).
    pub message: String,
    /// The labels, ordered by place (primary first at one place).
    pub labels: Vec<Label>,
    /// The first fix's replacement, if the rule has a fix.
    pub replacement: Option<Replacement>,
    /// The match's captures (`None` when it has none).
    pub captures: Option<Captures>,
}

/// Every match of `ops` in one file's text, in order (start, then the longest
/// first, then the rule's order at a node), with the same prefilter, walk and
/// `ast-grep-ignore` handling as a rewrite. `Err` is the reason to skip the file
/// (too deep, as in [`rewrite`]).
pub fn report(ops: &[&CompiledOp], lang: SupportLang, text: &str, prefilter: bool) -> std::result::Result<Vec<RuleMatch>, Skip> {
    super::budget::Budget::ensure(|| report_metered(ops, lang, text, prefilter))
}

/// [`report`], on the thread's meter.
fn report_metered(ops: &[&CompiledOp], lang: SupportLang, text: &str, prefilter: bool) -> std::result::Result<Vec<RuleMatch>, Skip> {
    let Some(Parsed { bom, body, grep, live }) = parse_for(ops, lang, text, prefilter).map_err(Skip)? else {
        return Ok(Vec::new());
    };
    let opts = RewriteOptions { prefilter, check_syntax: false, rewrite_nested: false, verbatim: true };
    let found = scan::scan(&grep, &live, body, opts);
    if let Some(why) = found.stopped {
        return Err(Skip(why));
    }
    let mut infos: Vec<Option<Arc<RuleInfo>>> = vec![None; live.len()];
    let mut out: Vec<(usize, RuleMatch)> = Vec::new();
    for (k, nm) in found.findings.iter().chain(found.diffs.iter()) {
        let op = live[*k];
        let info = infos[*k].get_or_insert_with(|| info_of(op)).clone();
        out.push((op.index, record(&op.rule, info, nm, bom)));
    }
    drop(found);
    // Labels and messages are built from the matches: text on the meter.
    if let Some(why) = super::budget::spent() {
        drop_later(grep);
        return Err(Skip(why));
    }
    out.sort_by_key(|(i, m)| (m.span.start, std::cmp::Reverse(m.span.end), *i));
    drop_later(grep);
    Ok(out.into_iter().map(|(_, m)| m).collect())
}

impl Span {
    /// The span moved from a region's own text to the host file's.
    fn shift(&mut self, base: &inject::Base) {
        (self.start_line, self.start_column) = base.place(self.start_line, self.start_column);
        (self.end_line, self.end_column) = base.place(self.end_line, self.end_column);
        self.start += base.byte;
        self.end += base.byte;
    }
}

impl RuleMatch {
    /// The match moved from a region of embedded code (matched as a text of
    /// its own) to the host file's places.
    pub(super) fn shift(&mut self, base: &inject::Base) {
        self.span.shift(base);
        for l in &mut self.labels {
            l.span.shift(base);
        }
        if let Some(r) = &mut self.replacement {
            r.start += base.byte;
            r.end += base.byte;
        }
        if let Some(c) = &mut self.captures {
            for cap in c.single.values_mut().chain(c.multi.values_mut().flatten()) {
                cap.span.shift(base);
            }
        }
    }
}

fn info_of(op: &CompiledOp) -> Arc<RuleInfo> {
    let r = &op.rule;
    Arc::new(RuleInfo {
        id: r.id.clone(),
        severity: Severity::of(&r.severity).unwrap_or(Severity::Hint),
        note: r.note.clone(),
        metadata: r.metadata.as_ref().and_then(|m| serde_json::to_value(m).ok()),
    })
}

type Match<'t> = NodeMatch<'t, Metered>;

fn record(rule: &RuleConfig<SupportLang>, info: Arc<RuleInfo>, nm: &Match<'_>, bom: usize) -> RuleMatch {
    let mut labels: Vec<Label> = rule
        .get_labels(nm)
        .into_iter()
        .map(|l| Label {
            span: span_of(&l.start_node, &l.end_node, bom),
            primary: matches!(l.style, LabelStyle::Primary),
            message: l.message.map(str::to_string),
        })
        .collect();
    // ast-grep-config keeps a rule's `labels` in a hash map: put them in a
    // stable order (its default labels come in a fixed order: kept).
    if rule.labels.is_some() {
        labels.sort_by(|a, b| (a.span.start, a.span.end, !a.primary, &a.message).cmp(&(b.span.start, b.span.end, !b.primary, &b.message)));
    }
    let replacement = rule.fixer.first().map(|fixer| {
        let edit = nm.make_edit(&rule.matcher, fixer);
        Replacement {
            start: edit.position + bom,
            end: edit.position + edit.deleted_length + bom,
            text: String::from_utf8_lossy(&edit.inserted_text).into_owned(),
        }
    });
    RuleMatch { rule: info, span: span_of(nm, nm, bom), message: rule.get_message(nm), labels, replacement, captures: captures(nm, bom) }
}

fn span_of(first: &Node<'_, Metered>, last: &Node<'_, Metered>, bom: usize) -> Span {
    let (s, e) = (first.start_pos(), last.end_pos());
    Span {
        start: first.range().start + bom,
        end: last.range().end + bom,
        start_line: s.line(),
        start_column: s.column(first),
        end_line: e.line(),
        end_column: e.column(last),
    }
}

fn captures(nm: &Match<'_>, bom: usize) -> Option<Captures> {
    let env = nm.get_env();
    let mut vars = env.get_matched_variables().peekable();
    vars.peek()?;
    let mut c = Captures::default();
    for var in vars {
        match var {
            MetaVariable::Capture(name, _) => {
                if let Some(n) = env.get_match(&name) {
                    c.single.insert(name, Capture { text: n.text().into_owned(), span: span_of(n, n, bom) });
                } else if let Some(bytes) = env.get_transformed(&name) {
                    c.transformed.insert(name, String::from_utf8_lossy(bytes).into_owned());
                }
            }
            MetaVariable::MultiCapture(name) => {
                let nodes = env.get_multiple_matches(&name);
                c.multi.insert(name, nodes.iter().map(|n| Capture { text: n.text().into_owned(), span: span_of(n, n, bom) }).collect());
            }
            _ => {}
        }
    }
    Some(c)
}
