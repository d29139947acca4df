//! What the metavariables of a fix template captured in a match, handed to the
//! structure guard (`crate::structure`, rule (b) of docs/DESIGN.md section
//! 2.5.10), which checks where that code lands in the new text.

use ast_grep_core::matcher::NodeMatch;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_language::SupportLang;

use crate::compile::CompiledOp;
use crate::structure::Capture;

/// A metavariable the fix template writes: its name, and whether it is
/// written `$$$NAME` (all the nodes it matched) rather than `$NAME`.
pub(super) type TemplateVar = (String, bool);

/// The metavariables `op`'s fix template writes, read as ast-grep-core reads
/// them (`replacer.rs`, `split_first_meta_var`): one, two or three metavariable
/// characters, then a name of `A-Z`, `_` and digits that does not start with a
/// digit; three characters make it `$$$NAME`. Names the rule's `transform`
/// defines are left out (their text is not a capture's), and so are repeats.
/// Only the first fix of a list counts: it is the one applied.
pub(super) fn template_vars(op: &CompiledOp) -> Vec<TemplateVar> {
    let template = match serde_json::to_value(&op.rule.fix) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(o)) => o.get("template").and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        Ok(serde_json::Value::Array(a)) => a.first().and_then(|f| f.get("template")).and_then(|t| t.as_str()).unwrap_or_default().to_string(),
        _ => String::new(),
    };
    let meta = ast_grep_core::Language::meta_var_char(&op.rule.language);
    let transformed = |name: &str| op.rule.transform.as_ref().is_some_and(|t| t.contains_key(name));
    let mut vars: Vec<TemplateVar> = Vec::new();
    for (name, multi) in read_vars(&template, meta) {
        if !transformed(&name) && !vars.iter().any(|(n, m)| *n == name && *m == multi) {
            vars.push((name, multi));
        }
    }
    vars
}

/// The metavariables in `template`, in order, as ast-grep-core reads them.
fn read_vars(template: &str, meta: char) -> Vec<TemplateVar> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find(meta) {
        let after = &rest[i..];
        let dollars = after.chars().take(3).take_while(|&c| c == meta).count();
        let name_at = dollars * meta.len_utf8();
        let name_len = after[name_at..].find(|c: char| !(c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())).unwrap_or(after.len() - name_at);
        let name = &after[name_at..name_at + name_len];
        if name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
            out.push((name.to_string(), dollars == 3));
            rest = &after[name_at + name_len..];
        } else {
            // Not a metavariable (`$5`): ast-grep-core moves on by one character.
            rest = &after[meta.len_utf8()..];
        }
    }
    out
}

/// What the metavariables `vars` captured in `nm`: the ranges of their nodes
/// in the whole file (`bom` bytes of BOM before the text the match is in).
pub(super) fn of(nm: &NodeMatch<'_, StrDoc<SupportLang>>, vars: &[TemplateVar], bom: usize) -> Vec<Capture> {
    let env = nm.get_env();
    vars.iter()
        .filter_map(|(name, multi)| {
            let nodes: Vec<(usize, usize)> = if *multi {
                env.get_multiple_matches(name).iter().map(|n| (n.range().start + bom, n.range().end + bom)).collect()
            } else {
                env.get_match(name).map(|n| (n.range().start + bom, n.range().end + bom)).into_iter().collect()
            };
            let name = if *multi { format!("$$${name}") } else { format!("${name}") };
            (!nodes.is_empty()).then_some(Capture { name, multi: *multi, nodes })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::read_vars;

    #[test]
    fn template_variables_are_read_as_ast_grep_reads_them() {
        let v = |t: &str| read_vars(t, '$').into_iter().map(|(n, m)| format!("{}{n}", if m { "$$$" } else { "$" })).collect::<Vec<_>>();
        assert_eq!(v("$M($O, $$$A)"), ["$M", "$O", "$$$A"]);
        assert_eq!(v("costs $5 and $$B and $_X1"), ["$B", "$_X1"]);
        assert_eq!(v("assert.ok($A > $B)"), ["$A", "$B"]);
        assert_eq!(v("$$$"), Vec::<String>::new());
        assert_eq!(v("$a $"), Vec::<String>::new());
    }
}
