//! What the metavariables of a fix template captured in a match, handed to the
//! structure guard (`crate::engine::structure`, rule (b) of docs/DESIGN.md section
//! 2.5.10), which checks where that code lands in the new text.

use crate::engine::metered::Metered;
use ast_grep_core::matcher::NodeMatch;

use crate::compile::CompiledOp;
use crate::engine::structure::CapturedNodes;

/// A metavariable the fix template writes: its name, and whether it is
/// written `$$$NAME` (all the nodes it matched) rather than `$NAME`.
pub(in crate::engine) type TemplateVar = (String, bool);

/// The metavariables `op`'s fix template writes, cut as ast-grep-core cuts
/// them (`engine/layout/reference.rs`). Names the rule's `transform` defines are left
/// out (their text is not a capture's), and so are repeats. Only the first fix
/// of a list counts: it is the one applied.
pub(in crate::engine) fn template_vars(op: &CompiledOp) -> Vec<TemplateVar> {
    let mut vars: Vec<TemplateVar> = Vec::new();
    for var in
        crate::engine::layout::reference::captured_vars(&crate::engine::layout::pick::first_template(op), &crate::engine::layout::pick::transform_names(op))
    {
        if !vars.contains(&var) {
            vars.push(var);
        }
    }
    vars
}

/// What the metavariables `vars` captured in `nm`: the ranges of their nodes
/// in the whole file (`bom` bytes of BOM before the text the match is in).
pub(in crate::engine) fn of(nm: &NodeMatch<'_, Metered>, vars: &[TemplateVar], bom: usize) -> Vec<CapturedNodes> {
    let env = nm.get_env();
    vars.iter()
        .filter_map(|(name, multi)| {
            let nodes: Vec<(usize, usize)> = if *multi {
                env.get_multiple_matches(name).iter().map(|n| (n.range().start + bom, n.range().end + bom)).collect()
            } else {
                env.get_match(name).map(|n| (n.range().start + bom, n.range().end + bom)).into_iter().collect()
            };
            let name = if *multi { format!("$$${name}") } else { format!("${name}") };
            (!nodes.is_empty()).then_some(CapturedNodes { name, multi: *multi, nodes })
        })
        .collect()
}

/// The innermost node that spans what `n` spans: a wrapper of one child
/// (Python's `type` around an identifier) says only where it stands.
fn innermost(mut n: tree_sitter::Node<'_>) -> tree_sitter::Node<'_> {
    while let Some(c) = n.named_child(0).filter(|c| n.named_child_count() == 1 && c.byte_range() == n.byte_range()) {
        n = c;
    }
    n
}

/// The kinds of the nodes that single metavariables of `vars` captured in
/// `nm`, where the node has parts (a leaf may be named otherwise by its
/// place: an identifier becomes a type or a field): (its start in the text
/// the match is in, its kind). The template check wants each in place with
/// the same kind (`template::EditCheck::kinds`).
pub(in crate::engine) fn kinds(nm: &NodeMatch<'_, Metered>, vars: &[TemplateVar]) -> Vec<(usize, String)> {
    let env = nm.get_env();
    vars.iter()
        .filter(|(_, multi)| !multi)
        .filter_map(|(name, _)| env.get_match(name))
        .map(|n| innermost(n.get_inner_node().0))
        .filter(|n| n.named_child_count() > 0)
        .map(|n| (n.start_byte(), n.kind().to_string()))
        .collect()
}
