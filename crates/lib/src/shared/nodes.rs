//! Walks over tree-sitter nodes that every stage needs, without recursion (a
//! deep tree must not overflow the stack): a subtree's depth, and a pre-order
//! walk that can skip a node's children.

/// The depth of the subtree at `root`, in levels below it (a leaf has depth 0),
/// found without recursion; the walk stops as soon as it goes deeper than
/// `stop_above`, and then returns `stop_above + 1`.
pub fn tree_depth(root: tree_sitter::Node<'_>, stop_above: usize) -> usize {
    let mut cursor = root.walk();
    let (mut depth, mut max) = (0usize, 0usize);
    'walk: loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > max {
                max = depth;
                if max > stop_above {
                    break;
                }
            }
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
            depth -= 1;
        }
    }
    max
}

/// Pre-order walk of the subtree at `root`: calls `enter` on each node it reaches
/// and goes into a node's children only when `enter` returned true for it.
pub(crate) fn walk_pruned<'t>(root: tree_sitter::Node<'t>, mut enter: impl FnMut(tree_sitter::Node<'t>) -> bool) {
    let mut cursor = root.walk();
    'walk: loop {
        if enter(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
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
