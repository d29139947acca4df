//! What the metavariables of a fix template captured in a match, handed to the
//! structure guard (`crate::engine::structure`, rule (b) of docs/DESIGN.md section
//! 2.5.10), which checks where that code lands in the new text.

use ast_grep_core::matcher::NodeMatch;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_language::SupportLang;

use crate::compile::CompiledOp;
use crate::engine::structure::Capture;

/// A metavariable the fix template writes: its name, and whether it is
/// written `$$$NAME` (all the nodes it matched) rather than `$NAME`.
pub(super) type TemplateVar = (String, bool);

/// The metavariables `op`'s fix template writes, cut as ast-grep-core cuts
/// them (`engine/reference.rs`). Names the rule's `transform` defines are left
/// out (their text is not a capture's), and so are repeats. Only the first fix
/// of a list counts: it is the one applied.
pub(super) fn template_vars(op: &CompiledOp) -> Vec<TemplateVar> {
    let mut vars: Vec<TemplateVar> = Vec::new();
    for var in super::reference::captured_vars(&super::first_template(op), &super::transform_names(op)) {
        if !vars.contains(&var) {
            vars.push(var);
        }
    }
    vars
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
