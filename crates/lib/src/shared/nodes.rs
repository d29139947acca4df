//! Walks over tree-sitter nodes that every stage needs, without recursion (a
//! deep tree must not overflow the stack): a subtree's depth, and the one
//! pre-order cursor walk ([`walk`]) that the others are made of.

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
}

/// Pre-order walk of the subtree at `root` with one cursor: calls `visit` on
/// each node it reaches, which says where to go next, and `leave` on each node
/// whose children it entered (`root` too), once it is back from them; both
/// work on `state`. The walk never leaves the subtree.
pub(crate) fn walk<'t, S>(root: tree_sitter::Node<'t>, state: &mut S, mut visit: impl FnMut(&mut S, tree_sitter::Node<'t>) -> Next, mut leave: impl FnMut(&mut S, tree_sitter::Node<'t>)) {
    let mut cursor = root.walk();
    'walk: loop {
        match visit(state, cursor.node()) {
            Next::Children if cursor.goto_first_child() => continue,
            Next::ChildrenFrom(byte) if cursor.goto_first_child_for_byte(byte).is_some() => continue,
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
