//! The structure guard (docs/DESIGN.md section 2.5.10): a rewrite that still
//! parses can still move code from one place in the syntax tree to another (a
//! Python method body written at class level keeps parsing), and the syntax
//! check (section 2.5.6) does not see it. This module compares the tree of the
//! old text with the tree the syntax check re-parsed from the new text, and
//! says which nodes left the node that held them.
//!
//! The comparison is leaf-anchored and linear in the size of both trees:
//! - the tokens (leaves) of the two texts are paired: between the edits the
//!   text is the same, so the tokens pair in order; inside an edit they are
//!   aligned by kind and text (common head and tail, then a diff of at most
//!   [`MAX_ALIGN_EDITS`] token edits in the middle);
//! - the nodes that start at a pair of tokens are paired by kind, innermost
//!   out and then outermost in;
//! - a node that pairs must stay under the counterpart of the nearest old
//!   ancestor that pairs (nodes the rewrite adds or removes in between are
//!   skipped on both sides, so wrapping `$A` in `Some($A)` is no change), and a
//!   node that does not overlap any edit must keep its exact parent and its
//!   kind.
//!
//! Nothing here recurses: the trees are walked with cursors into flat arrays.
//!
//! Only the part of each tree near the change is walked, so the cost follows
//! the change, not the file. tree-sitter's `Tree::changed_ranges` (called on
//! the old tree after `Tree::edit`, with the re-parsed tree) returns the ranges
//! of the new text "whose syntactic structure has changed": outside them every
//! character has the same ancestors, root to leaf, in both trees (same kinds,
//! at the same places moved by the edits). The regions compared are those
//! ranges and the edits' new ranges, each widened by one byte (a node touching
//! an edit is judged as one in it), merged, and the same regions in the old
//! text (their ends lie outside every edit, where the two texts differ by a
//! shift). A node that overlaps no region is not entered: it is kept whole as
//! one token, in both trees. Its interior is the same in both trees by that
//! guarantee, so it pairs node for node and nothing under it moves, which is
//! what the full walk would find; the node itself, and every node that holds
//! it, stays in the walk with its parent, so the parent check is unchanged.
//! Without an incremental re-parse (no changed ranges), both trees are walked
//! whole. The old tree is walked ([`Before`]) before `Tree::edit` moves its
//! nodes, when the changed ranges are not known yet: over the edits only; when
//! the changed ranges reach beyond, the old text is parsed again and walked
//! over the changed regions. The unit test `the_pruned_walk_reports_what_the_full_walk_reports`
//! checks this against the full walk on random programs and edits.

use serde::{Deserialize, Serialize};

use crate::engine::Edit;
use crate::text::{line_of, plural};

/// Most structure changes listed per file (`structureChanges`, docs/DESIGN.md
/// sections 2.5.10 and 7); `structureChanged` says whether there are any.
pub const MAX_STRUCTURE_CHANGES_LISTED: usize = 5;

/// Most token edits (insertions plus deletions) aligned in the middle of one
/// edit, past its common head and tail (docs/DESIGN.md section 2.5.10): the
/// alignment costs at most this many passes over the middle. A middle that
/// differs more is taken as replaced whole: its tokens pair with nothing.
pub const MAX_ALIGN_EDITS: usize = 64;

/// Longest name of a parent in a message, in characters.
pub const MAX_PARENT_CHARS: usize = 40;

/// One place where the rewrite moved code in the syntax tree, located in the
/// new text (docs/DESIGN.md section 5.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructureChange {
    /// 1-based line, in the new text, of the first node that moved.
    pub line: usize,
    /// What moved, from where to where: ``2 expression statements left `def
    /// ready` for `class AdminConfig` ``.
    pub message: String,
}

/// What the guard found in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Some node moved or changed outside the replaced text.
    pub changed: bool,
    /// The first changes, grouped, at most [`MAX_STRUCTURE_CHANGES_LISTED`].
    pub changes: Vec<StructureChange>,
}

const NONE: u32 = u32::MAX;

/// A syntax tree flattened in pre-order: every node that is not an extra
/// (comment) and not empty, with its parent and the first token under it.
#[derive(Default)]
struct Flat {
    kind: Vec<u16>,
    named: Vec<bool>,
    parent: Vec<u32>,
    start: Vec<u32>,
    end: Vec<u32>,
    /// Per node, its last descendant (itself when it has none): `a` holds `b`
    /// when `a < b <= last[a]`.
    last: Vec<u32>,
    /// Per leaf (token), in order: its node.
    leaves: Vec<u32>,
    /// Per leaf: where its chain (the nodes that start with it, outermost
    /// first, the leaf last) begins in `chains`; one more entry at the end.
    chain_at: Vec<u32>,
    chains: Vec<u32>,
}

impl Flat {
    /// Flattens the whole tree at `root`.
    #[cfg(test)]
    fn of(root: tree_sitter::Node<'_>) -> Flat {
        Flat::pruned(root, &[(0, usize::MAX)])
    }

    /// Flattens the tree at `root` (of a text of at most 4 GiB: the plan caps
    /// files far below that) with a cursor, without recursion, entering only
    /// the nodes that overlap one of `regions` (sorted, disjoint, closed byte
    /// ranges): a node that overlaps none is kept as one token.
    fn pruned(root: tree_sitter::Node<'_>, regions: &[(usize, usize)]) -> Flat {
        let outside = |s: usize, e: usize| {
            let k = regions.partition_point(|r| r.1 < s);
            regions.get(k).is_none_or(|r| r.0 > e)
        };
        let mut f = Flat::default();
        let mut stack: Vec<u32> = Vec::new();
        let mut pending: Vec<u32> = Vec::new();
        let mut cursor = root.walk();
        'walk: loop {
            let node = cursor.node();
            let keep = !node.is_extra() && node.end_byte() > node.start_byte();
            if keep {
                let id = f.kind.len() as u32;
                f.kind.push(node.kind_id());
                f.named.push(node.is_named());
                f.parent.push(stack.last().copied().unwrap_or(NONE));
                f.start.push(node.start_byte() as u32);
                f.end.push(node.end_byte() as u32);
                f.last.push(id);
                pending.push(id);
                if node.child_count() == 0 || outside(node.start_byte(), node.end_byte()) {
                    f.chain_at.push(f.chains.len() as u32);
                    f.chains.append(&mut pending);
                    f.leaves.push(id);
                } else if cursor.goto_first_child() {
                    stack.push(id);
                    continue;
                }
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if !cursor.goto_parent() {
                    break 'walk;
                }
                let left = stack.pop();
                if let Some(n) = left {
                    f.last[n as usize] = f.kind.len() as u32 - 1;
                }
                if let Some(n) = left.filter(|&n| pending.last() == Some(&n)) {
                    // Its children are all empty or comments (`r""` in Rust:
                    // an empty `string_content`): it is a token itself.
                    f.chain_at.push(f.chains.len() as u32);
                    f.chains.append(&mut pending);
                    f.leaves.push(n);
                }
            }
        }
        f.chain_at.push(f.chains.len() as u32);
        f
    }

    fn leaf_range(&self, leaf: usize) -> (usize, usize) {
        let n = self.leaves[leaf] as usize;
        (self.start[n] as usize, self.end[n] as usize)
    }

    /// `a` holds `b` (a proper ancestor).
    fn holds(&self, a: u32, b: u32) -> bool {
        a < b && b <= self.last[a as usize]
    }

    fn chain(&self, leaf: usize) -> &[u32] {
        &self.chains[self.chain_at[leaf] as usize..self.chain_at[leaf + 1] as usize]
    }

    /// The leaves overlapping `from..to` (for an empty range, the leaf that
    /// holds it strictly inside, if any), as a range of leaf indices.
    fn leaves_over(&self, from: usize, to: usize) -> (usize, usize) {
        let a = self.leaves.partition_point(|&n| self.end[n as usize] as usize <= from);
        let b = self.leaves.partition_point(|&n| (self.start[n as usize] as usize) < to).max(a);
        (a, b)
    }
}

/// The old tree, flattened before `Tree::edit` over the edits only (widened by
/// one byte): the regions to walk when the changed ranges lie inside them.
pub struct Before {
    flat: Flat,
    new_regions: Vec<(usize, usize)>,
}

impl Before {
    /// Flattens the tree of the old text at `root` over the regions of `edits`
    /// (offsets in the whole file, `bom` bytes of BOM before the text).
    pub fn of(root: tree_sitter::Node<'_>, edits: &[Edit], bom: usize) -> Before {
        let (old_regions, new_regions) = regions(&[], &ranges(edits, bom));
        Before { flat: Flat::pruned(root, &old_regions), new_regions }
    }
}

/// Compares the old tree (`before`, of `old_text`) with the tree of `new_text`
/// at `new_root`, `edits` turning one into the other (offsets in the whole
/// file, `bom` bytes of BOM before the texts), `changed` the ranges of
/// `new_text` whose structure changed (`Tree::changed_ranges`; `None` without
/// an incremental re-parse). When `changed` reaches outside the regions
/// `before` walked, or is not known, the old text is parsed again and walked
/// over the changed regions (or whole).
pub fn compare(before: Before, old_text: &str, new_root: tree_sitter::Node<'_>, new_text: &str, edits: &[Edit], bom: usize, changed: Option<&[std::ops::Range<usize>]>) -> Report {
    let ranges = ranges(edits, bom);
    let (old_regions, new_regions) = match changed {
        Some(changed) => regions(changed, &ranges),
        None => (vec![(0, usize::MAX)], vec![(0, usize::MAX)]),
    };
    let inside = |(a, b): (usize, usize)| {
        let k = before.new_regions.partition_point(|r| r.1 < a);
        before.new_regions.get(k).is_some_and(|r| r.0 <= a && b <= r.1)
    };
    if changed.is_some() && new_regions.iter().all(|&r| inside(r)) {
        let new = Flat::pruned(new_root, &before.new_regions);
        return compare_flats(&before.flat, old_text, &new, new_text, &ranges, new_root);
    }
    let mut parser = tree_sitter::Parser::new();
    let old_tree = parser.set_language(&new_root.language()).ok().and_then(|_| parser.parse(old_text, None));
    let Some(old_tree) = old_tree else { return Report::default() };
    let old = Flat::pruned(old_tree.root_node(), &old_regions);
    let new = Flat::pruned(new_root, &new_regions);
    compare_flats(&old, old_text, &new, new_text, &ranges, new_root)
}

/// Closed byte ranges, sorted and disjoint.
type Regions = Vec<(usize, usize)>;

/// The regions to walk (module doc), closed byte ranges, sorted and disjoint:
/// in the old text, and in the new one.
fn regions(changed: &[std::ops::Range<usize>], ranges: &[(usize, usize, usize, usize)]) -> (Regions, Regions) {
    let mut all: Vec<(usize, usize)> = changed.iter().map(|r| (r.start, r.end)).chain(ranges.iter().map(|r| (r.2, r.3))).map(|(a, b)| (a.saturating_sub(1), b + 1)).collect();
    all.sort_unstable();
    let mut new: Vec<(usize, usize)> = Vec::with_capacity(all.len());
    for (a, b) in all {
        match new.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => new.push((a, b)),
        }
    }
    // A place in the new text, in the old one: inside an edit, the edit's old
    // start (or end); elsewhere, moved back by the edits before it.
    let to_old = |p: usize, end: bool| {
        let k = ranges.partition_point(|r| r.3 < p);
        match ranges.get(k) {
            Some(r) if r.2 <= p => if end { r.1 } else { r.0 },
            _ => match k.checked_sub(1).map(|i| ranges[i]) {
                Some(r) => r.1 + (p - r.3),
                None => p,
            },
        }
    };
    let old = new.iter().map(|&(a, b)| (to_old(a, false), to_old(b, true))).collect();
    (old, new)
}

/// [`compare`] over the two flattened trees.
fn compare_flats(old: &Flat, old_text: &str, new: &Flat, new_text: &str, ranges: &[(usize, usize, usize, usize)], new_root: tree_sitter::Node<'_>) -> Report {
    let leaf_pairs = align_leaves(old, old_text, new, new_text, ranges);
    let (to_new, to_old) = pair_nodes(old, new, &leaf_pairs);
    let moves = find_moves(old, new, &to_new, &to_old, ranges);
    if moves.is_empty() {
        return Report::default();
    }
    Report { changed: true, changes: describe(&moves, old, new, &to_new, ranges, new_root, new_text) }
}

/// Each edit as (old start, old end, new start, new end), in the texts without
/// their BOM.
fn ranges(edits: &[Edit], bom: usize) -> Vec<(usize, usize, usize, usize)> {
    let mut shift: isize = 0;
    edits
        .iter()
        .map(|e| {
            let (s, t) = (e.start - bom, e.end - bom);
            let ns = (s as isize + shift) as usize;
            shift += e.text.len() as isize - (t - s) as isize;
            (s, t, ns, ns + e.text.len())
        })
        .collect()
}

/// Pairs of (old leaf, new leaf): the tokens between edits in order, and inside
/// each edit the aligned ones plus the first tokens of each replaced run.
fn align_leaves(old: &Flat, old_text: &str, new: &Flat, new_text: &str, ranges: &[(usize, usize, usize, usize)]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    let (mut oa, mut na) = (0usize, 0usize);
    let same = |i: usize, j: usize| {
        let ((si, ei), (sj, ej)) = (old.leaf_range(i), new.leaf_range(j));
        old.kind[old.leaves[i] as usize] == new.kind[new.leaves[j] as usize] && old_text.as_bytes()[si..ei] == new_text.as_bytes()[sj..ej]
    };
    for &(s, t, ns, ne) in ranges {
        let (ob, oe) = old.leaves_over(s, t);
        let (nb, nf) = new.leaves_over(ns, ne);
        align(oa..ob.max(oa), na..nb.max(na), &same, &mut pairs);
        align(ob.max(oa)..oe.max(oa), nb.max(na)..nf.max(na), &same, &mut pairs);
        oa = oe.max(oa);
        na = nf.max(na);
    }
    align(oa..old.leaves.len(), na..new.leaves.len(), &same, &mut pairs);
    pairs
}

/// Aligns two runs of tokens: the common head and tail, then a bounded diff
/// of the middle ([`myers`]); each replaced run's first tokens pair too.
fn align(a: std::ops::Range<usize>, b: std::ops::Range<usize>, same: &impl Fn(usize, usize) -> bool, out: &mut Vec<(u32, u32)>) {
    let (mut i, mut j) = (a.start, b.start);
    while i < a.end && j < b.end && same(i, j) {
        out.push((i as u32, j as u32));
        i += 1;
        j += 1;
    }
    let (mut x, mut y) = (a.end, b.end);
    let mut tail = Vec::new();
    while x > i && y > j && same(x - 1, y - 1) {
        x -= 1;
        y -= 1;
        tail.push((x as u32, y as u32));
    }
    if i < x || j < y {
        let mids = myers(x - i, y - j, |p, q| same(i + p, j + q)).unwrap_or_default();
        let (mut pi, mut pj) = (i, j);
        for (p, q) in mids.into_iter().map(|(p, q)| (p + i, q + j)).chain(std::iter::once((x, y))) {
            if pi < p && pj < q {
                // A replaced run: its first tokens stand for each other.
                out.push((pi as u32, pj as u32));
            }
            if p < x {
                out.push((p as u32, q as u32));
            }
            (pi, pj) = (p + 1, q + 1);
        }
    }
    out.extend(tail.into_iter().rev());
}

/// The longest common subsequence of two sequences of lengths `n` and `m`, as
/// index pairs in order, by Myers' O((n+m)·D) diff; `None` when more than
/// [`MAX_ALIGN_EDITS`] insertions and deletions separate them.
fn myers(n: usize, m: usize, same: impl Fn(usize, usize) -> bool) -> Option<Vec<(usize, usize)>> {
    let max = (n + m).min(MAX_ALIGN_EDITS) as isize;
    let off = max + 1;
    let mut v = vec![0isize; 2 * max as usize + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let (n_, m_) = (n as isize, m as isize);
    let mut found = None;
    'search: for d in 0..=max {
        trace.push(v.clone());
        for k in (-d..=d).step_by(2) {
            let ki = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[ki - 1] < v[ki + 1]) { v[ki + 1] } else { v[ki - 1] + 1 };
            let mut y = x - k;
            while x < n_ && y < m_ && x >= 0 && y >= 0 && same(x as usize, y as usize) {
                x += 1;
                y += 1;
            }
            v[ki] = x;
            if x >= n_ && y >= m_ {
                found = Some(d);
                break 'search;
            }
        }
    }
    let end = found?;
    let mut pairs = Vec::new();
    let (mut x, mut y) = (n_, m_);
    for d in (1..=end).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let ki = (k + off) as usize;
        let prev_k = if k == -d || (k != d && v[ki - 1] < v[ki + 1]) { k + 1 } else { k - 1 };
        let prev_x = v[(prev_k + off) as usize];
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            pairs.push((x as usize, y as usize));
        }
        (x, y) = (prev_x, prev_y);
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        pairs.push((x as usize, y as usize));
    }
    pairs.reverse();
    // A safety net: a pairing that is not a common subsequence is not used.
    let ordered = pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1);
    (ordered && pairs.iter().all(|&(p, q)| p < n && q < m && same(p, q))).then_some(pairs)
}

/// Pairs the nodes that start at each pair of leaves: by kind, innermost out
/// (the leaf, then the nodes that hold it), then outermost in over what is left.
/// Returns old node -> new node and new node -> old node.
fn pair_nodes(old: &Flat, new: &Flat, leaf_pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut to_new = vec![NONE; old.kind.len()];
    let mut to_old = vec![NONE; new.kind.len()];
    for &(a, b) in leaf_pairs {
        let (ca, cb) = (old.chain(a as usize), new.chain(b as usize));
        let (mut i, mut j) = (ca.len(), cb.len());
        while i > 0 && j > 0 && old.kind[ca[i - 1] as usize] == new.kind[cb[j - 1] as usize] {
            i -= 1;
            j -= 1;
        }
        let (mut p, mut q) = (0, 0);
        while p < i && q < j && old.kind[ca[p] as usize] == new.kind[cb[q] as usize] {
            p += 1;
            q += 1;
        }
        for (&x, &y) in ca[..p].iter().zip(&cb[..q]).chain(ca[i..].iter().zip(&cb[j..])) {
            to_new[x as usize] = y;
            to_old[y as usize] = x;
        }
    }
    (to_new, to_old)
}

/// One node that moved: the node (old), its new counterpart (or, for a node
/// outside the edits no longer parsed as it was, none), and the old and new
/// parents it is reported between.
#[derive(Clone, Copy)]
struct Move {
    node: u32,
    new_node: u32,
    from: u32,
    to: u32,
}

/// The nodes that left their (nearest paired) parent, or, outside every edit,
/// that lost their kind or their exact parent. Only the topmost of a moved
/// subtree is reported: its children stay under it.
fn find_moves(old: &Flat, new: &Flat, to_new: &[u32], to_old: &[u32], ranges: &[(usize, usize, usize, usize)]) -> Vec<Move> {
    // Per old node, its nearest ancestor-or-self that pairs (parents come
    // before children in pre-order).
    let anchors = |f: &Flat, paired: &[u32]| {
        let mut a = vec![NONE; f.kind.len()];
        for n in 0..f.kind.len() {
            a[n] = if paired[n] != NONE { n as u32 } else if f.parent[n] == NONE { NONE } else { a[f.parent[n] as usize] };
        }
        a
    };
    let anc_old = anchors(old, to_new);
    // Clear of every edit: not overlapping one, nor touching its ends (a `;`
    // right after a replaced expression may join the new expression's
    // statement: the replacement's own structure, not a move).
    let clear = |n: usize| {
        let (s, e) = (old.start[n] as usize, old.end[n] as usize);
        let k = ranges.partition_point(|r| r.1 < s);
        ranges.get(k).is_none_or(|r| r.0 > e)
    };
    let mut moves = Vec::new();
    for n in 0..old.kind.len() {
        let p = old.parent[n];
        if p == NONE {
            continue;
        }
        let m = to_new[n];
        if m == NONE {
            // Clear of every edit, a node that no longer pairs was parsed
            // anew; report the topmost only.
            if to_new[p as usize] != NONE && clear(n) {
                moves.push(Move { node: n as u32, new_node: NONE, from: p, to: p });
            }
            continue;
        }
        let np = new.parent[m as usize];
        let moved = if to_new[p as usize] != NONE && clear(n) {
            np != to_new[p as usize]
        } else {
            // Inside an edit the tokens were aligned by text, so only a named
            // node whose new parent is an old node that held its old parent
            // (it left it) is a move: a pairing sideways or inward, or a
            // parent the rewrite adds, is taken as the replacement's own
            // structure.
            // Punctuation is left out: equal tokens such as `)` align by text
            // with the wrong one as often as not.
            let a = anc_old[p as usize];
            old.named[n] && a != NONE && np != NONE && to_old[np as usize] != NONE && new.holds(np, to_new[a as usize])
        };
        if moved {
            let from = if to_new[p as usize] != NONE { p } else { anc_old[p as usize] };
            moves.push(Move { node: n as u32, new_node: m, from, to: np });
        }
    }
    moves
}

/// Groups the moves by (kind, from, to), in order of their first node, and
/// words the first [`MAX_STRUCTURE_CHANGES_LISTED`] groups.
fn describe(moves: &[Move], old: &Flat, new: &Flat, to_new: &[u32], ranges: &[(usize, usize, usize, usize)], new_root: tree_sitter::Node<'_>, new_text: &str) -> Vec<StructureChange> {
    let mut groups: Vec<(Move, usize)> = Vec::new();
    for mv in moves {
        let key = |m: &Move| (old.kind[m.node as usize], m.from, m.to, m.new_node == NONE);
        match groups.iter().position(|(g, _)| key(g) == key(mv)) {
            Some(i) => groups[i].1 += 1,
            None if groups.len() < MAX_STRUCTURE_CHANGES_LISTED => groups.push((*mv, 1)),
            None => {}
        }
    }
    let lang = new_root.language();
    let to_new_node = |n: u32| node_at(new_root, new.start[n as usize] as usize, new.end[n as usize] as usize, new.kind[n as usize]);
    groups
        .iter()
        .map(|(mv, count)| {
            let what = plural(*count, &lang.node_kind_for_id(old.kind[mv.node as usize]).unwrap_or("node").replace('_', " "));
            if mv.new_node == NONE {
                // Clear of every edit: moved by the edits before it.
                let at = old.start[mv.node as usize] as usize;
                let at = ranges.iter().take_while(|r| r.1 <= at).fold(at as isize, |a, r| a + (r.3 - r.2) as isize - (r.1 - r.0) as isize);
                let line = line_of(new_text, (at.max(0) as usize).min(new_text.len()));
                return StructureChange { line, message: format!("{what} outside the replaced text no longer parsed as before") };
            }
            // A parent is reported only when it pairs: it is named after its
            // counterpart in the new text.
            let from = match mv.from {
                NONE => TOP.to_string(),
                p => label(to_new_node(to_new[p as usize]), new_text),
            };
            let to = if mv.to == NONE { TOP.to_string() } else { label(to_new_node(mv.to), new_text) };
            let line = line_of(new_text, new.start[mv.new_node as usize] as usize);
            StructureChange { line, message: format!("{what} left {from} for {to}") }
        })
        .collect()
}

/// The node of `root`'s tree with this range and kind.
fn node_at(root: tree_sitter::Node<'_>, start: usize, end: usize, kind: u16) -> Option<tree_sitter::Node<'_>> {
    let mut n = root.descendant_for_byte_range(start, end)?;
    loop {
        if n.start_byte() == start && n.end_byte() == end && n.kind_id() == kind {
            return Some(n);
        }
        if n.start_byte() < start || n.end_byte() > end {
            return None;
        }
        n = n.parent()?;
    }
}

/// How a message names the root of the file.
const TOP: &str = "the top level";

/// How a message names a parent: the nearest node, going up from `node` past
/// blocks and bodies (at most a few levels), by its text up to its `name` field
/// (`def ready`, `class AdminConfig`, `fn main`), else by its first line, cut to
/// [`MAX_PARENT_CHARS`] characters, in backticks; the root is
/// [`TOP`].
fn label(node: Option<tree_sitter::Node<'_>>, text: &str) -> String {
    let Some(mut n) = node else { return TOP.to_string() };
    for _ in 0..8 {
        let k = n.kind();
        let wrapper = k.contains("block") || k.ends_with("body") || k.ends_with("_list") || k == "compound_statement";
        if n.child_by_field_name("name").is_some() || !wrapper {
            break;
        }
        match n.parent() {
            Some(p) => n = p,
            None => break,
        }
    }
    if n.parent().is_none() {
        return TOP.to_string();
    }
    let end = n.child_by_field_name("name").map_or(n.end_byte(), |c| c.end_byte());
    let head = &text[n.start_byte()..end.max(n.start_byte())];
    let first = head.lines().next().unwrap_or("").trim();
    let first = first.trim_end_matches(['{', ':', ' ']).trim_end();
    format!("`{}`", cut(first))
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_PARENT_CHARS {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_PARENT_CHARS - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;
    use ast_grep_language::SupportLang;
    use proptest::prelude::*;

    /// The report for `edits` on `src` in `lang`, as the syntax check makes it:
    /// the new text re-parsed incrementally, only the changed regions walked.
    fn check(lang: SupportLang, src: &str, edits: &[Edit]) -> Report {
        let old = lang.ast_grep(src).root().get_doc().tree.clone();
        let before = Before::of(old.root_node(), edits, 0);
        let new_text = String::from_utf8(crate::engine::splice(src.as_bytes(), edits)).unwrap();
        let (new, changed) = crate::engine::reparse(old, lang, src, &new_text, edits, 0).expect("an incremental re-parse");
        compare(before, src, new.root_node(), &new_text, edits, 0, Some(&changed))
    }

    /// The reference: the report for `edits` on `src` in `lang`, both trees
    /// (the new one parsed afresh) walked whole.
    fn check_full(lang: SupportLang, src: &str, edits: &[Edit]) -> Report {
        let old = lang.ast_grep(src);
        let new_text = String::from_utf8(crate::engine::splice(src.as_bytes(), edits)).unwrap();
        let new = lang.ast_grep(&new_text);
        let (old_flat, new_flat) = (Flat::of(old.root().get_inner_node()), Flat::of(new.root().get_inner_node()));
        compare_flats(&old_flat, src, &new_flat, &new_text, &ranges(edits, 0), new.root().get_inner_node())
    }

    fn edit(src: &str, from: &str, to: &str) -> Edit {
        let start = src.find(from).expect("in the source");
        Edit { start, end: start + from.len(), text: to.to_string(), op: 0 }
    }

    #[test]
    fn myers_finds_the_longest_common_subsequence() {
        let lcs = |a: &str, b: &str| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            myers(a.len(), b.len(), |i, j| a[i] == b[j]).map(|p| p.iter().map(|&(i, _)| a[i]).collect::<String>())
        };
        assert_eq!(lcs("abcabba", "cbabac").map(|s| s.len()), Some(4));
        assert_eq!(lcs("", "abc"), Some(String::new()));
        assert_eq!(lcs("abc", "abc"), Some("abc".to_string()));
        assert_eq!(lcs("unwrap(", "expect(\"x\""), Some("p(".to_string()));
        let long: String = "ab".repeat(MAX_ALIGN_EDITS);
        assert_eq!(lcs(&long, "c"), None, "more edits than MAX_ALIGN_EDITS");
    }

    #[test]
    fn a_method_body_written_at_class_level_is_a_move_and_a_wrapped_expression_is_not() {
        let src = "class A:\n    def f(self):\n        a()\n        b()\n";
        let bad = edit(src, "def f(self):\n        a()\n        b()", "def f(self) -> None: a()\n    b()");
        let r = check(SupportLang::Python, src, &[bad]);
        assert_eq!(r.changes, [StructureChange { line: 3, message: "1 expression statement left `def f` for `class A`".into() }]);
        let src = "fn f() { let v = a.b; }\n";
        assert!(!check(SupportLang::Rust, src, &[edit(src, "a.b", "Some(a.b)")]).changed);
        assert!(!check(SupportLang::Rust, src, &[edit(src, "let v = a.b;", "let v = {\n    a.b\n};")]).changed);
    }

    #[test]
    fn closing_brackets_that_align_with_the_wrong_one_are_no_move() {
        // Found on sympy: the common tail pairs each `)` with the one after it.
        let src = "assert x not in Tuple(1, Tuple(t2))\n";
        assert!(!check(SupportLang::Python, src, &[edit(src, "x not in Tuple(1, Tuple(t2))", "absent(x, Tuple(1, Tuple(t2)))")]).changed);
        let src = "fn f() -> usize { ((a >> 5) & 7) as usize }\n";
        assert!(!check(SupportLang::Rust, src, &[edit(src, "((a >> 5) & 7) as usize", "usize::from(((a >> 5) & 7))")]).changed);
    }

    #[test]
    fn code_after_an_edit_taken_into_a_new_block_is_a_move() {
        // The edit opens a block that takes the next statement, clear of the
        // edit, from the function body.
        let src = "function f() {\n  a();\n  b();\n}\n";
        let r = check(SupportLang::JavaScript, src, &[Edit { start: 17, end: 21, text: "if (c) { a();".into(), op: 0 }, Edit { start: 29, end: 29, text: " }\n".into(), op: 0 }]);
        assert_eq!(r.changes, [StructureChange { line: 3, message: "1 expression statement left `function f` for `if (c) { a();`".into() }]);
    }

    #[test]
    fn a_tree_five_thousand_levels_deep_is_compared_without_recursion() {
        let depth = 5000;
        let src = format!("fn f() {{ let v = {}a{}; }}\n", "(".repeat(depth), ")".repeat(depth));
        let r = check(SupportLang::Rust, &src, &[edit(&src, "a", "b")]);
        assert!(!r.changed);
    }

    /// Python and Rust programs over a few identifiers, with nesting.
    fn program(lang: SupportLang, ids: &[String]) -> String {
        let i = |k: usize| ids[k % ids.len()].as_str();
        match lang {
            SupportLang::Python => format!(
                "class {0}:\n    def {1}(self, {2}):\n        {3} = {4}({2}, 1)\n        if {3}:\n            return {5}.{6}({3})\n        return {2}\n\n    def {7}(self):\n        {0}.{1}({4})\n",
                i(0), i(1), i(2), i(3), i(4), i(5), i(6), i(7)
            ),
            _ => format!(
                "fn {0}({1}: u32) -> u32 {{\n    let {2} = {3}({1}, 1);\n    if {2} > 0 {{ return {4}.{5}({2}); }}\n    match {1} {{ {6} => {7}, _ => {1} }}\n}}\n",
                i(0), i(1), i(2), i(3), i(4), i(5), i(6), i(7)
            ),
        }
    }

    /// Renames the identifiers spelt `target` that `mask` selects to `to`.
    fn renames(lang: SupportLang, src: &str, target: &str, to: &str, mask: u64) -> Vec<Edit> {
        let grep = lang.ast_grep(src);
        let mut found = Vec::new();
        let mut cursor = grep.root().get_inner_node().walk();
        'walk: loop {
            let n = cursor.node();
            if n.kind().ends_with("identifier") && &src[n.byte_range()] == target {
                found.push(n.byte_range());
            }
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        found.iter().enumerate().filter(|(k, _)| mask >> (k % 64) & 1 == 1).map(|(_, r)| Edit { start: r.start, end: r.end, text: to.to_string(), op: 0 }).collect()
    }

    /// Texts that random edits write: brackets, statements, indentation.
    const PIECES: [&str; 12] = ["", "{", "}", "(", ")", ";", "\n    ", "x", "if a:\n        ", "return b", "Some(", "f(1, 2)"];

    /// Sorted, disjoint edits of `src`: each cut (start, length, piece)
    /// replaces up to `length` bytes at `start` with [`PIECES`]`[piece]`.
    fn random_edits(src: &str, cuts: &[(usize, usize, usize)]) -> Vec<Edit> {
        let mut cuts: Vec<(usize, usize, usize)> = cuts.iter().map(|&(s, l, p)| (s % src.len(), l, p)).collect();
        cuts.sort_unstable();
        let mut edits: Vec<Edit> = Vec::new();
        for (start, len, piece) in cuts {
            if edits.last().is_some_and(|e| e.end > start) {
                continue;
            }
            let end = (start + len).min(src.len());
            edits.push(Edit { start, end, text: PIECES[piece].to_string(), op: 0 });
        }
        edits
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        #[test]
        fn random_identifier_renames_never_flag(
            ids in proptest::collection::vec("[a-e]{1,2}", 8),
            pick in 0usize..8,
            to in "v[a-z_]{0,6}",
            mask in any::<u64>(),
            python in any::<bool>(),
        ) {
            let lang = if python { SupportLang::Python } else { SupportLang::Rust };
            let src = program(lang, &ids);
            let edits = renames(lang, &src, &ids[pick], &to, mask);
            let r = check(lang, &src, &edits);
            prop_assert!(!r.changed, "{src}\n{edits:?}\n{r:?}");
        }

        #[test]
        fn the_pruned_walk_reports_what_the_full_walk_reports(
            ids in proptest::collection::vec("[a-e]{1,2}", 8),
            cuts in proptest::collection::vec((0usize..800, 0usize..12, 0usize..PIECES.len()), 1..4),
            python in any::<bool>(),
        ) {
            let lang = if python { SupportLang::Python } else { SupportLang::Rust };
            // Two definitions, so that most edits leave one of them whole.
            let rotated: Vec<String> = ids.iter().cycle().skip(3).take(ids.len()).cloned().collect();
            let src = program(lang, &ids) + &program(lang, &rotated);
            let edits = random_edits(&src, &cuts);
            prop_assert_eq!(check(lang, &src, &edits), check_full(lang, &src, &edits), "{}\n{:?}", src, edits);
        }
    }
}
