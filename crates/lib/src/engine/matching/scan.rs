//! Finding every match of a file's rules in the order `ast-grep scan` reports them: one
//! pre-order walk, at each node the rules whose potential kinds include its kind, in
//! `CombinedScan` order; subtrees that span no anchor literal are skipped, and
//! `CombinedScan` itself runs where `ast-grep-ignore` comments must be honoured
//! (docs/DESIGN.md §2.5.1). Each node is a step on the file's meter (`engine::budget`),
//! and the walk stops when the file's budget is spent ([`Found::stopped`], §2.5.7).

use crate::engine::metered::{Grep, Metered, Step};
use ast_grep_config::{CombinedScan, RuleConfig};
use ast_grep_core::matcher::{Matcher, MatcherExt, NodeMatch};
use ast_grep_language::SupportLang;

use crate::compile::{CompiledOp, SuppressionCheck};
use crate::engine::RewriteOptions;
use crate::engine::budget::{spent, tick};
use crate::request::read::SkipReason;
use crate::shared::nodes::walk_pruned;

/// A file's matches: `(rule position in the live list, match)`.
pub(in crate::engine) struct Found<'t> {
    /// Matches of rules with a fix, in walk order.
    pub diffs: Vec<(usize, NodeMatch<'t, Metered>)>,
    /// Matches of rules without a fix, in walk order.
    pub findings: Vec<(usize, NodeMatch<'t, Metered>)>,
    /// Why the walk stopped before its end (`engine::budget`): the file must
    /// be skipped.
    pub stopped: Option<SkipReason>,
}

/// Every match of `live` in the file `grep` (of text `body`).
pub(in crate::engine) fn scan<'t>(grep: &'t Grep, live: &[&CompiledOp], body: &str, opts: RewriteOptions) -> Found<'t> {
    if live.iter().any(|op| op.suppressible) && body.contains("ast-grep-ignore") {
        return combined(grep, live);
    }
    let order = rule_order(live);
    let mut by_kind: Vec<Vec<usize>> = Vec::new();
    for &k in &order {
        let Some(kinds) = live[k].rule.matcher.potential_kinds() else { continue };
        for kind in kinds.iter() {
            if by_kind.len() <= kind {
                by_kind.resize_with(kind + 1, Vec::new);
            }
            by_kind[kind].push(k);
        }
    }
    let anchors = if opts.prefilter { anchors(live, body.as_bytes()) } else { None };
    // The narrowed rules (compile/narrow.rs) hold only where no keyword is MISSING.
    let whole = live.iter().any(|op| op.narrow.is_some()) && !has_missing(grep.root().get_inner_node().0);
    let rules: Vec<&RuleConfig<SupportLang>> = live.iter().map(|op| op.narrow.as_ref().filter(|_| whole).unwrap_or(&op.rule)).collect();
    let mut found = Found { diffs: Vec::new(), findings: Vec::new(), stopped: None };
    let mut over = false;
    walk_pruned(grep.root().get_inner_node().0, |node| {
        if over || !tick(1) {
            over = true;
            return false;
        }
        if let Some(hits) = &anchors
            && !spans(hits, node.start_byte(), node.end_byte())
        {
            return false;
        }
        for &k in by_kind.get(usize::from(node.kind_id())).map_or(&[][..], |v| &v[..]) {
            if let Some(m) = rules[k].matcher.match_node(grep.adopt(Step(node))) {
                if live[k].has_fix { found.diffs.push((k, m)) } else { found.findings.push((k, m)) }
            }
        }
        true
    });
    found.stopped = spent();
    found
}

/// True when the tree at `root` holds a MISSING node (a token the parser
/// supposed, with no text): only subtrees with an error are walked.
pub(in crate::engine) fn has_missing(root: tree_sitter::Node<'_>) -> bool {
    let mut found = false;
    walk_pruned(root, |n| {
        found |= n.is_missing();
        !found && n.has_error()
    });
    found
}

/// The order of the rules at one node: `CombinedScan`'s for rule configs (no fix
/// first, then by id), the index order for a request's ops.
fn rule_order(live: &[&CompiledOp]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..live.len()).collect();
    if live.iter().any(|op| op.suppressible) {
        order.sort_by(|&a, &b| (live[a].has_fix, &live[a].id).cmp(&(live[b].has_fix, &live[b].id)));
    }
    order
}

/// Every offset (with its length) of each rule's anchor literal, sorted; `None`
/// when some rule has no anchor (then every node may match).
fn anchors(live: &[&CompiledOp], text: &[u8]) -> Option<Vec<(usize, usize)>> {
    let mut hits = Vec::new();
    for op in live {
        let (len, at) = op.anchor(text)?;
        hits.extend(at.into_iter().map(|h| (h, len)));
    }
    hits.sort_unstable();
    Some(hits)
}

/// True when `start..end` holds a whole anchor occurrence.
fn spans(hits: &[(usize, usize)], start: usize, end: usize) -> bool {
    let from = hits.partition_point(|&(h, _)| h < start);
    hits[from..].iter().take_while(|&&(h, _)| h < end).any(|&(h, len)| h + len <= end)
}

/// ast-grep-config's own scan (with `ast-grep-ignore` suppression), mapped back
/// to positions in `live`.
fn combined<'t>(grep: &'t Grep, live: &[&CompiledOp]) -> Found<'t> {
    let mut scan = CombinedScan::new(live.iter().filter(|op| op.check.is_none()).map(|op| &op.rule).collect());
    // The comments that suppressed nothing (or name no rule) come back as
    // matches of these rules; a fix to nothing deletes the unused ones, as
    // `ast-grep scan -U`.
    for op in live {
        match op.check {
            Some(SuppressionCheck::Unused) => scan.set_unused_suppression_rule(&op.rule),
            Some(SuppressionCheck::NoSuppressAll) => scan.set_no_suppress_all_rule(&op.rule),
            None => {}
        }
    }
    let result = scan.scan(grep, true);
    let pos = |rule: &ast_grep_config::RuleConfig<SupportLang>| live.iter().position(|op| std::ptr::eq(&op.rule, rule)).expect("a live rule");
    let diffs = result.diffs.into_iter().map(|(r, m)| (pos(r), m)).collect();
    let mut findings: Vec<(usize, NodeMatch<'t, Metered>)> =
        result.matches.into_iter().flat_map(|(r, ms)| ms.into_iter().map(move |m| (r, m))).map(|(r, m)| (pos(r), m)).collect();
    findings.sort_by_key(|(_, m)| m.range().start);
    Found { diffs, findings, stopped: spent() }
}
