//! What a file must hold for a rule config to match, so that a file that
//! cannot is skipped before the parse: a formula over its patterns and regexes
//! (`request::ruleset::must`), each pattern reduced to its named leaves' texts
//! ([`Prefilter::for_rule`]) and each regex to the texts its matches start with.
//! Its `any` lists are disjunctions; the literals every item holds in the node
//! anchor the walk. Soundness and the figures: docs/DESIGN.md §2.4.6.

use ast_grep_core::Pattern;
use ast_grep_language::SupportLang;

use crate::compile::prefilter::Prefilter;
use crate::request::ruleset::{Must, PatternRef};

/// What a file must hold for a rule to match, beyond its [`rule_prefilters`]'
/// conjunction: a formula of prefilters ([`crate::request::ruleset::Must`]), for
/// the rule's `any` lists. Every pattern of a branch is as sound as one pattern's
/// prefilter; a branch that needs nothing makes its `any` need nothing.
pub enum Requirement {
    /// The file holds what this pattern (or regex) needs; `true` when the
    /// pattern matches the matched node itself or a node inside it, so its
    /// literals lie inside every match of its branch.
    Holds(Prefilter, bool),
    /// Every item holds.
    All(Vec<Requirement>),
    /// At least one item holds.
    Any(Vec<Requirement>),
}

impl Requirement {
    fn of(m: &Must<'_>, lang: SupportLang) -> Requirement {
        match m {
            Must::Pattern(p, in_node) => prefilter_of(p, lang).map_or(Requirement::All(Vec::new()), |f| Requirement::Holds(f, *in_node)),
            Must::Regex(re) => match regex_starts(re) {
                Some(starts) => Requirement::Any(starts.into_iter().map(|f| Requirement::Holds(f, false)).collect()),
                None => Requirement::All(Vec::new()),
            },
            Must::All(items) => Requirement::All(items.iter().map(|i| Requirement::of(i, lang)).filter(|r| !r.always()).collect()),
            Must::Any(items) => {
                let items: Vec<Requirement> = items.iter().map(|i| Requirement::of(i, lang)).collect();
                if items.iter().any(Requirement::always) { Requirement::All(Vec::new()) } else { Requirement::Any(items) }
            }
        }
    }

    /// True when every file meets it.
    fn always(&self) -> bool {
        match self {
            Requirement::Holds(p, _) => p.literals.is_empty() && p.chains.is_empty(),
            Requirement::All(items) => items.iter().all(Requirement::always),
            Requirement::Any(items) => items.iter().any(Requirement::always),
        }
    }

    /// Literals every match of the rule holds inside its node, as far as this
    /// formula tells: those of its patterns on or inside the node, and of an
    /// `any`, those every item has (`len` of `$X.len() == 0` or `0 == $X.len()`).
    pub fn node_literals(&self) -> Vec<&str> {
        match self {
            Requirement::Holds(p, true) => p.literals.iter().map(String::as_str).collect(),
            Requirement::Holds(_, false) => Vec::new(),
            Requirement::All(items) => {
                let mut out: Vec<&str> = items.iter().flat_map(Requirement::node_literals).collect();
                out.sort_unstable();
                out.dedup();
                out
            }
            Requirement::Any(items) => {
                let mut lists = items.iter().map(Requirement::node_literals);
                let first = lists.next().unwrap_or_default();
                lists.fold(first, |acc, l| acc.into_iter().filter(|x| l.contains(x)).collect())
            }
        }
    }

    /// True when `text` meets it (so the rule may match).
    pub fn may_match(&self, text: &[u8]) -> bool {
        match self {
            Requirement::Holds(p, _) => p.may_match(text),
            Requirement::All(items) => items.iter().all(|i| i.may_match(text)),
            Requirement::Any(items) => items.iter().any(|i| i.may_match(text)),
        }
    }
}

/// The literal prefilters of a rule for `lang`: one per pattern that must match
/// (a file lacking what any of them needs has no match), with whether that
/// pattern matches the matched node itself or a node inside it (its literals then
/// lie inside every match); and the [`Requirement`]s of its `any` lists that
/// must hold. Patterns that do not compile add nothing (the rule's own compile
/// reports them).
pub(crate) fn rule_prefilters(rule: &serde_json::Value, lang: SupportLang) -> (Vec<(Prefilter, bool)>, Vec<Requirement>) {
    fn split(m: &Must<'_>, lang: SupportLang, conj: &mut Vec<(Prefilter, bool)>, alts: &mut Vec<Requirement>) {
        match m {
            Must::Pattern(p, in_node) => conj.extend(prefilter_of(p, lang).map(|f| (f, *in_node))),
            Must::All(items) => items.iter().for_each(|i| split(i, lang, conj, alts)),
            Must::Any(_) | Must::Regex(_) => alts.extend(Some(Requirement::of(m, lang)).filter(|r| !r.always())),
        }
    }
    let (mut conj, mut alts) = (Vec::new(), Vec::new());
    split(&crate::request::ruleset::must(rule), lang, &mut conj, &mut alts);
    (conj, alts)
}

/// What every match of regex `re` starts with: one of these texts (as plain
/// bytes, [`Prefilter::literal`]), from regex-syntax's prefix extraction, which
/// ignores `^`, `$` and other look-arounds and gives up (an infinite set) past
/// its limits. `None` when no such finite set is known or it holds the empty
/// text (the regex may match anywhere), or `re` does not parse (the rule's own
/// compile reports it). A node whose text matches `re` holds such a match, and
/// the node's text is part of the file's.
fn regex_starts(re: &str) -> Option<Vec<Prefilter>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::parse(re).ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    lits.iter().map(|l| std::str::from_utf8(l.as_bytes()).ok().map(Prefilter::literal)).collect()
}

/// The prefilter of pattern `p` in `lang`; `None` when it does not compile.
fn prefilter_of(p: &PatternRef<'_>, lang: SupportLang) -> Option<Prefilter> {
    let built = match p.selector {
        Some(sel) => Pattern::contextual(p.text, sel, lang),
        None => Pattern::try_new(p.text, lang),
    };
    let pat = built.ok()?.with_strictness(p.strictness.to_core());
    Some(Prefilter::for_rule(&pat, p.strictness, lang))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_gate(rule: serde_json::Value) -> (Vec<(Prefilter, bool)>, Vec<Requirement>) {
        rule_prefilters(
            &serde_json::json!({"rule": rule, "utils": {"u": {"any": [{"pattern": "a.b()"}, {"pattern": "c.d()"}]}, "r": {"any": [{"pattern": "e.f()"}, {"has": {"matches": "r"}}]}}}),
            SupportLang::Rust,
        )
    }

    fn meets(gate: &(Vec<(Prefilter, bool)>, Vec<Requirement>), text: &str) -> bool {
        gate.0.iter().all(|(p, _)| p.may_match(text.as_bytes())) && gate.1.iter().all(|a| a.may_match(text.as_bytes()))
    }

    #[test]
    fn an_any_needs_one_of_its_items() {
        let g = rule_gate(serde_json::json!({"any": [{"pattern": "$X.len() == 0"}, {"all": [{"pattern": "foo()"}, {"has": {"pattern": "bar"}}]}]}));
        assert!(g.0.is_empty() && g.1.len() == 1);
        assert!(meets(&g, "v.len() == 0") && meets(&g, "bar; foo()") && !meets(&g, "foo()") && !meets(&g, "v.size() == 0"));
        // A rule's patterns need their named leaves' texts only, no chain and no
        // keyword: ast-grep reports a match around a parse error, where an
        // ERROR node may sit between two tokens (`0` and `len` stay, whole tokens).
        assert!(meets(&g, "v.len(:x:) == 0") && !meets(&g, "v.len_of() == 0"));
        let (conj, _) = rule_gate(serde_json::json!({"pattern": "for $X in $Y { $$$B }"}));
        assert!(conj[0].0.literals.is_empty() && conj[0].0.chains.is_empty(), "`for` and `in` are keywords");
        // Nested in `all` and `inside`, beside a pattern of the rule itself.
        let g = rule_gate(serde_json::json!({"pattern": "x.y()", "inside": {"any": [{"pattern": "p()"}, {"pattern": "q()"}], "stopBy": "end"}}));
        assert_eq!((g.0.len(), g.1.len()), (1, 1));
        assert!(meets(&g, "q(); x.y()") && !meets(&g, "x.y()") && !meets(&g, "q()"));
        // An item that needs nothing (`kind`, `not`) makes the `any` need nothing.
        for free in [serde_json::json!({"kind": "call_expression"}), serde_json::json!({"not": {"pattern": "p()"}})] {
            let g = rule_gate(serde_json::json!({"any": [{"pattern": "p()"}, free]}));
            assert!(g.1.is_empty() && meets(&g, ""));
        }
        // An empty `any` matches nothing, so no file meets it.
        assert!(!meets(&rule_gate(serde_json::json!({"any": []})), "anything"));
        // `not` and `stopBy` add nothing.
        assert!(meets(&rule_gate(serde_json::json!({"kind": "x", "not": {"any": [{"pattern": "p()"}]}})), ""));
    }

    #[test]
    fn an_any_anchors_on_what_every_item_holds_in_the_node() {
        let g = rule_gate(
            serde_json::json!({"any": [{"pattern": "$X.len() == 0"}, {"pattern": "0 == $X.len()"}, {"all": [{"pattern": "$X.len() > 1"}, {"has": {"pattern": "len"}}]}]}),
        );
        assert_eq!(g.1[0].node_literals(), ["len"]);
        // An item whose pattern lies outside the node, or a regex, anchors nothing.
        let g = rule_gate(serde_json::json!({"any": [{"pattern": "a.len()"}, {"kind": "x", "inside": {"pattern": "len"}, "regex": "len"}]}));
        assert!(g.1[0].node_literals().is_empty());
    }

    #[test]
    fn a_regex_needs_one_of_the_texts_its_matches_start_with() {
        let g = rule_gate(serde_json::json!({"kind": "identifier", "regex": "^(dead|live)_code$"}));
        assert!(meets(&g, "#[allow(dead_code)]") && meets(&g, "x.live_code") && !meets(&g, "dead code"));
        // Inside `has` and `inside`, and in an `any` item.
        let g = rule_gate(serde_json::json!({"kind": "function_item", "has": {"field": "name", "regex": "batch"}}));
        assert!(meets(&g, "fn search_batch()") && !meets(&g, "fn search()"));
        let g = rule_gate(serde_json::json!({"any": [{"regex": "(?i)todo"}, {"pattern": "p()"}]}));
        assert!(meets(&g, "// ToDo") && meets(&g, "p()") && !meets(&g, "done"));
        // No finite set of starts, or the empty text among them: no need.
        for free in ["[^\\n]{80,}", "^.*$", "x?", "a|", "(("] {
            assert!(meets(&rule_gate(serde_json::json!({"kind": "string_literal", "regex": free})), ""), "{free}");
        }
        // Under `not` a regex adds nothing.
        assert!(meets(&rule_gate(serde_json::json!({"kind": "x", "not": {"regex": "y"}})), ""));
    }

    #[test]
    fn a_local_utility_adds_its_needs() {
        let g = rule_gate(serde_json::json!({"matches": "u"}));
        assert!(meets(&g, "c.d()") && !meets(&g, "a.d()"));
        // A utility met again inside itself adds nothing there.
        let g = rule_gate(serde_json::json!({"matches": "r"}));
        assert!(meets(&g, "") && g.1.is_empty());
        // An unknown (global) utility adds nothing.
        assert!(meets(&rule_gate(serde_json::json!({"matches": "global-one"})), ""));
    }
}
