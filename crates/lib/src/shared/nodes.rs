//! Walks over tree-sitter nodes that every stage needs, without recursion (a
//! deep tree must not overflow the stack): a subtree's depth, and the one
//! pre-order cursor walk ([`walk`]) that the others are made of. (The syntax
//! tree dump, `plan/tree.rs`, keeps a cursor of its own: it reads each node's
//! field name from it.)

/// The depth of the subtree at `root`, in levels below it (a leaf has depth 0),
/// found without recursion; the walk stops as soon as it goes deeper than
/// `stop_above`, and then returns `stop_above + 1`.
pub fn tree_depth(root: tree_sitter::Node<'_>, stop_above: usize) -> usize {
    // (The depth of the nodes visited next, the deepest so far.)
    let mut state = (0usize, 0usize);
    let visit = |(depth, max): &mut (usize, usize), n: tree_sitter::Node<'_>| {
        if n.child_count() == 0 {
            return Next::Sibling;
        }
        *depth += 1;
        *max = (*max).max(*depth);
        if *max > stop_above { Next::Stop } else { Next::Children }
    };
    walk(root, &mut state, visit, |(depth, _), _| *depth -= 1);
    state.1
}

/// Where [`walk`] goes after a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Into its children (on to its next sibling when it has none).
    Children,
    /// Into its children from the first that ends after this byte offset
    /// (tree-sitter's `goto_first_child_for_byte`).
    ChildrenFrom(usize),
    /// On to its next sibling, past its children.
    Sibling,
    /// Past its later siblings: on to its parent's next sibling.
    Parent,
    /// Nowhere: the walk ends.
    Stop,
}

/// Pre-order walk of the subtree at `root` with one cursor: calls `visit` on
/// each node it reaches, which says where to go next, and `leave` on each node
/// whose children it entered (`root` too), once it is back from them; both
/// work on `state`. The walk never leaves the subtree.
pub(crate) fn walk<'t, S>(
    root: tree_sitter::Node<'t>,
    state: &mut S,
    mut visit: impl FnMut(&mut S, tree_sitter::Node<'t>) -> Next,
    mut leave: impl FnMut(&mut S, tree_sitter::Node<'t>),
) {
    let mut cursor = root.walk();
    'walk: loop {
        match visit(state, cursor.node()) {
            Next::Children if cursor.goto_first_child() => continue,
            Next::ChildrenFrom(byte) if cursor.goto_first_child_for_byte(byte).is_some() => continue,
            Next::Stop => break,
            Next::Parent => {
                if !cursor.goto_parent() {
                    break;
                }
                leave(state, cursor.node());
            }
            _ => {}
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
            leave(state, cursor.node());
        }
    }
}

/// Pre-order walk of the subtree at `root`: calls `enter` on each node it reaches
/// and goes into a node's children only when `enter` returned true for it.
pub(crate) fn walk_pruned<'t>(root: tree_sitter::Node<'t>, mut enter: impl FnMut(tree_sitter::Node<'t>) -> bool) {
    walk(root, &mut (), |_, n| if enter(n) { Next::Children } else { Next::Sibling }, |_, _| {});
}

/// Every node under `root` (itself included), in pre-order.
pub(crate) fn preorder<'t>(root: tree_sitter::Node<'t>, mut each: impl FnMut(tree_sitter::Node<'t>)) {
    walk_pruned(root, |n| {
        each(n);
        true
    });
}

/// The first named node of kind `kind` under `root` (itself included) in
/// pre-order, as ast-grep's `find` picks a selector's node.
pub(crate) fn first_of_kind<'t>(root: tree_sitter::Node<'t>, kind: &str) -> Option<tree_sitter::Node<'t>> {
    let mut found = None;
    walk_pruned(root, |n| {
        if found.is_none() && n.kind() == kind && n.is_named() {
            found = Some(n);
        }
        found.is_none()
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;
    use ast_grep_language::SupportLang;

    fn depth_by_recursion(n: tree_sitter::Node<'_>) -> usize {
        let mut cursor = n.walk();
        n.children(&mut cursor).map(|c| 1 + depth_by_recursion(c)).max().unwrap_or(0)
    }

    /// The walk's depth is the recursive one, and it stops one level past the
    /// limit.
    #[test]
    fn tree_depth_counts_levels_and_stops_past_the_limit() {
        for src in ["x", "f(g(h(1)))\ny = [[[[2]]]]\n", "def f():\n    if a:\n        return (b + (c * d))\n", ""] {
            let grep = SupportLang::Python.ast_grep(src);
            let root = grep.root().get_inner_node();
            let full = depth_by_recursion(root);
            assert_eq!(tree_depth(root, usize::MAX), full, "{src:?}");
            for stop in 0..full {
                assert_eq!(tree_depth(root, stop), stop + 1, "{src:?} stopped above {stop}");
            }
        }
    }
}
