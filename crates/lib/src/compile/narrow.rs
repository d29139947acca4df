//! A rule config made cheaper to refuse, with the same matches, for trees
//! without ERROR or MISSING nodes (docs/DESIGN.md §2.4.7).
//!
//! A `has` that searches deep (`stopBy: end` or a stop rule) walks every node
//! under the one it is asked of; when what it looks for holds a word as text
//! (a keyword of its `kind`, from `kind_words`, or a literal of its `pattern`,
//! from the prefilter), a node whose text lacks that word cannot have it. The
//! rule object holding such a `has` is given `regex: <the word>` (or, when it
//! has a `regex`, an `all` item of it), which ast-grep-config checks before
//! any relational rule (atomic rules first): a search of the node's text
//! instead of a walk of its nodes. `R` and `R ∧ regex(w)` match the same nodes
//! when every match of `R` holds `w`, wherever `R` sits (`not`, `any`,
//! `inside`, utilities), so the matches, their metavariables and their order
//! are those of the rule as written. Keywords hold their text only in trees
//! without ERROR or MISSING nodes (a MISSING keyword has none): the caller
//! uses the narrowed rule only there.

use ast_grep_core::Pattern;
use ast_grep_language::SupportLang;
use serde_json::{Map, Value};

use crate::compile::kind_words;
use crate::compile::prefilter::Prefilter;
use crate::request::Strictness;

/// `config` (a rule config's JSON) with a word check before each deep `has`
/// whose target holds a word, or `None` when it has no such `has`.
pub(crate) fn narrowed(config: &Value, lang: SupportLang) -> Option<Value> {
    let mut out = config.clone();
    let mut changed = false;
    if let Some(rule) = out.get_mut("rule") {
        changed |= narrow(rule, lang);
    }
    if let Some(Value::Object(utils)) = out.get_mut("utils") {
        for util in utils.values_mut() {
            changed |= narrow(util, lang);
        }
    }
    changed.then_some(out)
}

/// Narrows the rule object `v` and every rule object inside it; true when
/// something changed.
fn narrow(v: &mut Value, lang: SupportLang) -> bool {
    let Value::Object(m) = v else { return false };
    let mut changed = false;
    for key in ["inside", "has", "precedes", "follows", "not"] {
        if let Some(inner) = m.get_mut(key) {
            changed |= narrow(inner, lang);
            if let Some(stop) = inner.get_mut("stopBy").filter(|s| s.is_object()) {
                changed |= narrow(stop, lang);
            }
        }
    }
    for key in ["all", "any"] {
        if let Some(Value::Array(items)) = m.get_mut(key) {
            for item in items {
                changed |= narrow(item, lang);
            }
        }
    }
    let deep = m.get("has").is_some_and(|h| !matches!(h.get("stopBy"), None | Some(Value::Null)) && h.get("stopBy") != Some(&Value::from("neighbor")));
    if !deep {
        return changed;
    }
    let Some(word) = words(&m["has"], lang).into_iter().max_by(|a, b| a.len().cmp(&b.len()).then(b.cmp(a))) else { return changed };
    let check = Value::from(regex::escape(&word));
    if m.get("regex").is_none() {
        m.insert("regex".into(), check);
    } else {
        let item = Value::Object(Map::from_iter([("regex".to_string(), check)]));
        match m.get_mut("all") {
            Some(Value::Array(all)) => all.insert(0, item),
            _ => {
                m.insert("all".into(), Value::Array(vec![item]));
            }
        }
    }
    true
}

/// Words the text of every node the rule object `v` matches holds (in a tree
/// without ERROR or MISSING nodes).
fn words(v: &Value, lang: SupportLang) -> Vec<String> {
    let Value::Object(m) = v else { return Vec::new() };
    let mut out: Vec<String> = Vec::new();
    if let Some(Value::String(kind)) = m.get("kind") {
        out.extend(kind_words::words(lang, kind).iter().map(|w| w.to_string()));
    }
    if let Some(p) = m.get("pattern") {
        out.extend(pattern_words(p, lang));
    }
    if let Some(Value::Array(all)) = m.get("all") {
        all.iter().for_each(|x| out.extend(words(x, lang)));
    }
    if let Some(Value::Array(any)) = m.get("any") {
        let mut sets = any.iter().map(|x| words(x, lang));
        if let Some(first) = sets.next() {
            out.extend(sets.fold(first, |acc, s| acc.into_iter().filter(|w| s.contains(w)).collect()));
        }
    }
    // A descendant's text lies inside the node's.
    if let Some(has) = m.get("has") {
        out.extend(words(has, lang));
    }
    out.sort();
    out.dedup();
    out
}

/// The literals of a `pattern` (a string or `{context, selector, strictness}`)
/// that every node it matches holds; none when it does not compile.
fn pattern_words(p: &Value, lang: SupportLang) -> Vec<String> {
    let (text, selector, strictness) = match p {
        Value::String(s) => (s.as_str(), None, Strictness::Smart),
        Value::Object(o) => {
            let Some(text) = o.get("context").and_then(Value::as_str) else { return Vec::new() };
            let strictness = o.get("strictness").and_then(Value::as_str).and_then(|s| Strictness::parse(s).ok()).unwrap_or_default();
            (text, o.get("selector").and_then(Value::as_str), strictness)
        }
        _ => return Vec::new(),
    };
    let built = match selector {
        Some(sel) => Pattern::contextual(text, sel, lang),
        None => Pattern::try_new(text, lang),
    };
    let Ok(pattern) = built else { return Vec::new() };
    Prefilter::new(&pattern.with_strictness(strictness.to_core()), strictness, lang).literals
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_deep_has_of_a_keyword_kind_gets_the_keyword_checked_first() {
        let rule = json!({"rule": {"kind": "function_definition", "has": {"kind": "goto_statement", "stopBy": "end"}}});
        let out = narrowed(&rule, SupportLang::C).unwrap();
        assert_eq!(out["rule"]["regex"], "goto");
        // Inside `not`/`inside`, and into `all` when a regex is there.
        let rule = json!({"rule": {"kind": "return_statement", "not": {"inside": {"kind": "function_definition", "regex": "x", "stopBy": "end", "has": {"pattern": "kfree($A)", "stopBy": "end"}}}}});
        let out = narrowed(&rule, SupportLang::C).unwrap();
        assert_eq!(out["rule"]["not"]["inside"]["all"], json!([{"regex": "kfree"}]));
        assert_eq!(out["rule"]["not"]["inside"]["regex"], "x");
    }

    #[test]
    fn a_shallow_has_or_one_without_a_sure_word_is_left_as_written() {
        for rule in [
            json!({"rule": {"kind": "function_definition", "has": {"kind": "goto_statement"}}}),
            json!({"rule": {"kind": "function_definition", "has": {"kind": "identifier", "stopBy": "end"}}}),
            json!({"rule": {"kind": "function_definition", "has": {"any": [{"kind": "goto_statement"}, {"kind": "identifier"}], "stopBy": "end"}}}),
            json!({"rule": {"kind": "function_definition", "has": {"pattern": "$A($$$)", "stopBy": "end"}}}),
        ] {
            assert_eq!(narrowed(&rule, SupportLang::C), None, "{rule}");
        }
    }
}
