//! Where an edit's text lies in the new tree: the way down from the root to the
//! smallest node that holds it and a byte on each side ([`Around`]). The checks
//! of an edit (`judge`) start from that node instead of from the root, and the
//! ways down of a file's edits, taken in order, are found by one cursor
//! ([`Descent`]) that goes on from the last edit's way instead of from the
//! root. A file whose edits lie ever deeper (each one level below the last)
//! then costs its tree once, where a way down from the root per check and per
//! edit cost the square of its depth (`benches/deep_rewrite.sh`).
//!
//! What a check sees is what it saw from the root: a node's smallest holder,
//! its ancestors and a walk over the nodes that overlap the edit give the same
//! nodes from the way down, since every node above its end holds the whole
//! range and no other node above it overlaps the range.

use std::ops::Range;

use tree_sitter::Node;

use crate::shared::nodes::{Next, walk};

/// The ways down to the edits of one tree, taken in order of their ranges
/// (each starting at or after the last one's start, none holding another):
/// each way goes on from the last one's, so all of them cost the tree once.
pub(crate) struct Descent<'t> {
    /// From the root down to the smallest node holding the last range.
    chain: Vec<Node<'t>>,
    /// Parallel to `chain`: the [`Marks`] of each node and those above it.
    marks: Vec<u8>,
}

/// What a check must know of the nodes above an edit, kept per node of a way
/// down as it is found (a bit per question, or-ed down the way), so that no
/// check visits them again per edit.
pub(crate) mod marks {
    /// A token the layout reads whole (`layout::reference::is_atom`): the
    /// edit lies inside one.
    pub(crate) const ATOM: u8 = 1;
    /// A Python f-string's `{}` (`interpolation`).
    pub(crate) const INTERPOLATION: u8 = 2;
    /// A macro's token tree (`shape::FLAT`).
    pub(crate) const FLAT: u8 = 4;
}

/// The [`marks`] of `n` alone.
fn marks_of(n: Node<'_>) -> u8 {
    let kind = n.kind();
    let mut m = 0;
    if crate::engine::layout::reference::is_atom(n) {
        m |= marks::ATOM;
    }
    if kind == "interpolation" {
        m |= marks::INTERPOLATION;
    }
    if crate::engine::template::shape::FLAT.contains(&kind) {
        m |= marks::FLAT;
    }
    m
}

impl<'t> Descent<'t> {
    pub(crate) fn new(root: Node<'t>) -> Self {
        Descent { chain: vec![root], marks: vec![marks_of(root)] }
    }

    /// The way down to `range` (bytes of the tree's text): the nodes above the
    /// last range that hold this one are kept, then the way goes down as
    /// [`descend`] goes from the root.
    pub(crate) fn to(&mut self, range: Range<usize>) -> Around<'_, 't> {
        while self.chain.len() > 1 {
            let n = self.chain[self.chain.len() - 1];
            if n.start_byte() <= range.start && range.end <= n.end_byte() {
                break;
            }
            self.chain.pop();
            self.marks.pop();
        }
        let kept = self.chain.len();
        down(&mut self.chain, &range);
        for k in kept..self.chain.len() {
            let m = self.marks[k - 1] | marks_of(self.chain[k]);
            self.marks.push(m);
        }
        Around { chain: &self.chain, marks: &self.marks, range }
    }
}

/// An edit's place in the new tree: the way down from the root to the smallest
/// node holding `range` (the edit's text and a byte each side).
pub(crate) struct Around<'a, 't> {
    chain: &'a [Node<'t>],
    /// Parallel to `chain` ([`marks`]).
    marks: &'a [u8],
    range: Range<usize>,
}

impl<'a, 't> Around<'a, 't> {
    /// The way down from `root` to `range`, found from the root (one edit's
    /// checks; [`Descent`] finds a file's).
    #[cfg(test)]
    pub(crate) fn from_root(d: &'a mut Descent<'t>, root: Node<'t>, range: Range<usize>) -> Self {
        *d = Descent::new(root);
        d.to(range)
    }

    /// The [`marks`] of the nodes above the smallest holder.
    pub(crate) fn above(&self) -> u8 {
        self.chain.len().checked_sub(2).map_or(0, |k| self.marks[k])
    }

    /// True when a node of `up` (a way down from the root, such as
    /// [`Around::ancestors`] gives) is a macro's token tree (`shape::FLAT`):
    /// the part of it that is this way down is answered by its marks.
    pub(crate) fn any_flat(&self, up: &[Node<'t>]) -> bool {
        let flat = |n: &Node<'_>| crate::engine::template::shape::FLAT.contains(&n.kind());
        let k = self.chain.len() - 1;
        if up.get(k).is_some_and(|n| n.id() == self.top().id()) {
            return self.marks[k] & marks::FLAT != 0 || up[k + 1..].iter().any(flat);
        }
        up.iter().any(flat)
    }

    /// The place on the way down of its highest node that starts at or after
    /// `byte` (the smallest holder's when none does).
    pub(crate) fn first_from(&self, byte: usize) -> usize {
        let mut k = self.chain.len() - 1;
        while k > 0 && self.chain[k - 1].start_byte() >= byte {
            k -= 1;
        }
        k
    }

    /// [`Around::walk`] of the tokens (`layout::reference::atoms_visit`) of
    /// `r` (inside the range): from the smallest holder, unless a node above
    /// it is a token, which the walk from the root stops at.
    pub(crate) fn walk_atoms(&self, r: std::ops::Range<usize>, each: impl FnMut(Node<'t>)) {
        let visit = crate::engine::layout::reference::atoms_visit(r, each);
        if self.above() & marks::ATOM == 0 {
            self.walk_from(self.chain.len() - 1, &mut (), visit);
        } else {
            self.walk(&mut (), visit);
        }
    }

    /// The tree's root.
    pub(crate) fn root(&self) -> Node<'t> {
        self.chain[0]
    }

    /// The smallest node that holds the range.
    pub(crate) fn top(&self) -> Node<'t> {
        self.chain[self.chain.len() - 1]
    }

    /// The smallest node that holds `r` (inside the range), as
    /// `root.descendant_for_byte_range` finds it.
    pub(crate) fn holder_of(&self, r: &Range<usize>) -> Option<Node<'t>> {
        self.from(r).descendant_for_byte_range(r.start, r.end)
    }

    /// The nodes from the root down to the smallest one that holds `r`, as a
    /// way down from the root finds them.
    pub(crate) fn ancestors(&self, r: Range<usize>) -> Vec<Node<'t>> {
        if self.holds(&r) {
            let mut chain = self.chain.to_vec();
            down(&mut chain, &r);
            return chain;
        }
        let mut chain = vec![self.root()];
        down(&mut chain, &r);
        chain
    }

    /// [`walk`] from the root, for a `visit` whose answer for a node that
    /// overlaps none of the range is `Sibling` (before it) or `Parent` (after
    /// it), without effect: the nodes above the smallest holder are visited
    /// from the way down, then the walk goes on from that node. The walk from
    /// the root visits the same nodes with effect: the others it reaches
    /// before the range are passed by, and once an answer leaves the range
    /// behind (`Sibling`, `Parent`, `ChildrenFrom` a byte past it) every node
    /// it reaches lies past the range.
    pub(crate) fn walk<S>(&self, state: &mut S, visit: impl FnMut(&mut S, Node<'t>) -> Next) {
        self.walk_from(0, state, visit);
    }

    /// [`Around::walk`] for a `visit` whose answer for each node above the
    /// way's `from`-th is `ChildrenFrom` a byte of the range, without effect
    /// (the caller knows it, from [`Around::above`] or the nodes' starts):
    /// those nodes are not visited.
    pub(crate) fn walk_from<S>(&self, from: usize, state: &mut S, mut visit: impl FnMut(&mut S, Node<'t>) -> Next) {
        let last = self.chain.len() - 1;
        for &n in &self.chain[from.min(last)..last] {
            match visit(state, n) {
                Next::Children => {}
                Next::ChildrenFrom(b) if b < self.range.end => {}
                // The range is left behind: nothing after it has an effect.
                _ => return,
            }
        }
        walk(self.top(), state, visit, |_, _| {});
    }

    /// What [`crate::engine::template::shape::held_by`] says of the node whose
    /// range is the range, from the way down instead of by `parent()` (each a
    /// way down from the root of its own): the kind of the node that holds its
    /// outermost same-range node. `None` when no node has the range exactly.
    pub(crate) fn held_by(&self) -> Option<Option<u16>> {
        let same = |n: &Node<'_>| n.start_byte() == self.range.start && n.end_byte() == self.range.end;
        if !same(&self.top()) {
            return None;
        }
        Some(self.chain.iter().rev().find(|n| !same(n)).map(|n| n.kind_id()))
    }

    /// The node to look from for `r`: the smallest holder of the range when it
    /// holds `r`, else the root.
    fn from(&self, r: &Range<usize>) -> Node<'t> {
        if self.holds(r) { self.top() } else { self.root() }
    }

    fn holds(&self, r: &Range<usize>) -> bool {
        self.range.start <= r.start && r.end <= self.range.end
    }
}

/// `top` (a way down from the root), gone on down to the smallest node that
/// holds `range`, which its last node holds.
pub(crate) fn descend<'t>(top: &[Node<'t>], range: Range<usize>) -> Vec<Node<'t>> {
    let mut chain = top.to_vec();
    down(&mut chain, &range);
    chain
}

/// Goes on down from `chain`'s last node to the smallest node holding `range`,
/// as a way down from the root goes: the first child that ends after the
/// range's start, while it holds the range.
fn down<'t>(chain: &mut Vec<Node<'t>>, range: &Range<usize>) {
    let Some(&from) = chain.last() else { return };
    let mut c = from.walk();
    while c.goto_first_child_for_byte(range.start).is_some() {
        let n = c.node();
        if n.start_byte() > range.start || n.end_byte() < range.end {
            break;
        }
        chain.push(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;
    use ast_grep_language::SupportLang;

    /// Every range's way down from the descent equals the one from the root,
    /// for ranges in order over a deep file and a flat one.
    #[test]
    fn the_descent_finds_each_way_down_as_the_root_does() {
        let strings = "x = [f\"{g(h(1))}\", 'f(a)' + f(2), [f\"{ {f(3)} }\", \"g(x)\"]]\n".repeat(20);
        for text in ["x = ".to_string() + &"[f(h(x)), ".repeat(60) + "0" + &"]".repeat(60), "f(1)\ng(2)\n".repeat(50), strings] {
            let grep = SupportLang::Python.ast_grep(&text);
            let root = grep.root().get_inner_node();
            let mut d = Descent::new(root);
            let mut fresh = Descent::new(root);
            let starts: Vec<usize> = text.match_indices(['f', 'g']).map(|(i, _)| i).collect();
            for s in starts {
                let r = s.saturating_sub(1)..(s + 5).min(text.len());
                let way: Vec<usize> = d.to(r.clone()).chain.iter().map(|n| n.id()).collect();
                let want: Vec<usize> = Around::from_root(&mut fresh, root, r.clone()).chain.iter().map(|n| n.id()).collect();
                assert_eq!(way, want, "{r:?}");
            }
            // The tokens of each call and a byte each side, from the way down,
            // are those a walk from the root finds (inside strings too).
            let mut d = Descent::new(root);
            for s in text.match_indices(['f', 'g']).map(|(i, _)| i) {
                let r = s.saturating_sub(1)..(s + 5).min(text.len());
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                d.to(r.clone()).walk_atoms(r.clone(), |n| ours.push(n.id()));
                crate::engine::layout::reference::atoms_in(root, r.clone(), |n| theirs.push(n.id()));
                assert_eq!(ours, theirs, "{r:?} of {text:?}");
            }
            // And for every small range of the file, in order.
            let mut d = Descent::new(root);
            for start in 0..text.len() {
                for len in 1..4 {
                    let r = start..(start + len).min(text.len());
                    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                    d.to(r.clone()).walk_atoms(r.clone(), |n| ours.push(n.id()));
                    crate::engine::layout::reference::atoms_in(root, r.clone(), |n| theirs.push(n.id()));
                    assert_eq!(ours, theirs, "{r:?} of {text:?}");
                }
            }
            // What holds each call, from the way down, is what `parent()` finds.
            let mut calls = Vec::new();
            crate::shared::nodes::preorder(root, |n| {
                if n.kind() == "call" {
                    calls.push(n);
                }
            });
            let mut d = Descent::new(root);
            for n in calls {
                assert_eq!(d.to(n.byte_range()).held_by(), Some(crate::engine::template::shape::held_by(n)), "{:?}", n.byte_range());
            }
        }
    }
}
