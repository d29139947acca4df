//! The structure guard (docs/DESIGN.md §2.5.10): a rewrite that still parses may move
//! code in the syntax tree (a Python method body written at class level), which the
//! syntax check (§2.5.6) does not see. This module compares the old tree with the one
//! the syntax check re-parsed: (a) every node clear of the edits keeps its kind and its
//! parent (here); (b) the code each metavariable captured keeps its tokens and nesting,
//! together inside its own edit (`captured`). Tokens pair in order between the edits and
//! by a bounded diff ([`MAX_ALIGN_EDITS`]) inside them; the trees are walked with cursors
//! into flat arrays (no recursion), and only near the change ([`Before`], the changed
//! ranges): §2.5.10, "The mapping" and "Cost".

use serde::{Deserialize, Serialize};

use crate::engine::Edit;
use crate::shared::nodes::{Next, walk};
use crate::shared::text::{line_of, plural};

mod captured;
#[cfg(test)]
mod tests;

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

/// The code one metavariable of the fix template captured in one match, which
/// the template places in the new text (rule (b) of docs/DESIGN.md section
/// 2.5.10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedNodes {
    /// The metavariable as the template writes it: `$A`, or `$$$A`.
    pub name: String,
    /// Written `$$$A`: all the nodes it matched, in a row.
    pub multi: bool,
    /// The captured nodes, in order, as byte ranges of the whole file (BOM
    /// included): one for `$A`, each node of `$$$A`.
    pub nodes: Vec<(usize, usize)>,
}

/// What the guard found in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
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
    /// Per node, its last descendant (itself when it has none): the nodes
    /// under `a` are `a + 1..=last[a]`.
    last: Vec<u32>,
    /// Per node, the leaves under it (itself, when it is one): `leaf_first`
    /// up to `leaf_end`, exclusive.
    leaf_first: Vec<u32>,
    leaf_end: Vec<u32>,
    /// Per leaf (token), in order: its node.
    leaves: Vec<u32>,
    /// Per leaf: the outermost node whose last leaf it is.
    ends_at: Vec<u32>,
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
        // The flat tree, the nodes whose children the walk is in, and the
        // chain of nodes that start at the next leaf.
        let mut state = (Flat::default(), Vec::<u32>::new(), Vec::<u32>::new());
        let visit = |(f, stack, pending): &mut (Flat, Vec<u32>, Vec<u32>), node: tree_sitter::Node<'_>| {
            if node.is_extra() || node.end_byte() == node.start_byte() {
                return Next::Sibling;
            }
            let id = f.kind.len() as u32;
            f.kind.push(node.kind_id());
            f.named.push(node.is_named());
            f.parent.push(stack.last().copied().unwrap_or(NONE));
            f.start.push(node.start_byte() as u32);
            f.end.push(node.end_byte() as u32);
            f.last.push(id);
            f.leaf_first.push(f.leaves.len() as u32);
            f.leaf_end.push(f.leaves.len() as u32);
            pending.push(id);
            if node.child_count() == 0 || outside(node.start_byte(), node.end_byte()) {
                f.chain_at.push(f.chains.len() as u32);
                f.chains.append(pending);
                f.leaves.push(id);
                f.ends_at.push(id);
                f.leaf_end[id as usize] += 1;
                return Next::Sibling;
            }
            // It has children: the walk goes into them.
            stack.push(id);
            Next::Children
        };
        let leave = |(f, stack, pending): &mut (Flat, Vec<u32>, Vec<u32>), _: tree_sitter::Node<'_>| {
            let Some(n) = stack.pop() else { return };
            f.last[n as usize] = f.kind.len() as u32 - 1;
            if pending.last() == Some(&n) {
                // Its children are all empty or comments (`r""` in Rust:
                // an empty `string_content`): it is a token itself.
                f.chain_at.push(f.chains.len() as u32);
                f.chains.append(pending);
                f.leaves.push(n);
                f.ends_at.push(n);
            }
            // Closed after the nodes under it: the outermost so far to end at
            // its last leaf.
            f.leaf_end[n as usize] = f.leaves.len() as u32;
            if let Some(last) = f.leaves.len().checked_sub(1).filter(|&l| l >= f.leaf_first[n as usize] as usize) {
                f.ends_at[last] = n;
            }
        };
        walk(root, &mut state, visit, leave);
        let mut f = state.0;
        f.chain_at.push(f.chains.len() as u32);
        f
    }

    fn leaf_range(&self, leaf: usize) -> (usize, usize) {
        let n = self.leaves[leaf] as usize;
        (self.start[n] as usize, self.end[n] as usize)
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
/// one byte): the regions to walk when the changed ranges lie inside them. With
/// it, what each edit's metavariables captured.
pub struct Before {
    flat: Flat,
    new_regions: Vec<(usize, usize)>,
    /// Per edit, its captures, their ranges in the text without its BOM.
    captures: Vec<Vec<CapturedNodes>>,
}

impl Before {
    /// Flattens the tree of the old text at `root` over the regions of `edits`
    /// (offsets in the whole file, `bom` bytes of BOM before the text), and
    /// keeps `captures`: per edit, in the order of `edits`, what the
    /// metavariables of its fix template captured (none for an edit without).
    pub fn of(root: tree_sitter::Node<'_>, edits: &[Edit], mut captures: Vec<Vec<CapturedNodes>>, bom: usize) -> Before {
        let (old_regions, new_regions) = regions(&[], &ranges(edits, bom));
        for c in captures.iter_mut().flatten() {
            for r in &mut c.nodes {
                *r = (r.0.saturating_sub(bom), r.1.saturating_sub(bom));
            }
        }
        Before { flat: Flat::pruned(root, &old_regions), new_regions, captures }
    }
}

/// Compares the old tree (`before`, of `old_text`) with the tree of `new_text`
/// at `new_root`, `edits` turning one into the other (offsets in the whole
/// file, `bom` bytes of BOM before the texts), `changed` the ranges of
/// `new_text` whose structure changed (`Tree::changed_ranges`; `None` without
/// an incremental re-parse). When `changed` reaches outside the regions
/// `before` walked, or is not known, the old text is parsed again and walked
/// over the changed regions (or whole).
pub fn compare(
    before: &Before,
    old_text: &str,
    new_root: tree_sitter::Node<'_>,
    new_text: &str,
    edits: &[Edit],
    bom: usize,
    changed: Option<&[std::ops::Range<usize>]>,
) -> Changes {
    let ranges = ranges(edits, bom);
    let pruned = changed.map(|changed| regions(changed, &ranges));
    // Error recovery breaks the guarantee the pruning rests on (docs/DESIGN.md §2.5.10, "Cost"):
    // near an ERROR or MISSING node the file is walked whole.
    let pruned = pruned.filter(|(_, new_regions)| !error_within(new_root, new_regions));
    let changed = changed.filter(|_| pruned.is_some());
    let (old_regions, new_regions) = pruned.unwrap_or_else(|| (vec![(0, usize::MAX)], vec![(0, usize::MAX)]));
    let inside = |(a, b): (usize, usize)| {
        let k = before.new_regions.partition_point(|r| r.1 < a);
        before.new_regions.get(k).is_some_and(|r| r.0 <= a && b <= r.1)
    };
    let texts = Texts { old: old_text, new: new_text, ranges: &ranges, captures: &before.captures };
    if changed.is_some() && new_regions.iter().all(|&r| inside(r)) {
        let new = Flat::pruned(new_root, &before.new_regions);
        return compare_flats(&before.flat, &new, &texts, new_root);
    }
    let mut parser = tree_sitter::Parser::new();
    let old_tree = parser.set_language(&new_root.language()).ok().and_then(|_| parser.parse(old_text, None));
    let Some(old_tree) = old_tree else { return Changes::default() };
    let old = Flat::pruned(old_tree.root_node(), &old_regions);
    let new = Flat::pruned(new_root, &new_regions);
    compare_flats(&old, &new, &texts, new_root)
}

/// Whether an ERROR or MISSING node of the tree at `root` overlaps one of
/// `regions` (sorted, disjoint, closed byte ranges). Only the nodes that
/// overlap a region and hold an error (`Node::has_error`) are entered.
fn error_within(root: tree_sitter::Node<'_>, regions: &[(usize, usize)]) -> bool {
    let overlaps = |n: tree_sitter::Node<'_>| {
        let k = regions.partition_point(|r| r.1 < n.start_byte());
        regions.get(k).is_some_and(|r| r.0 <= n.end_byte())
    };
    let mut found = false;
    walk(
        root,
        &mut found,
        |found, n| {
            if !n.has_error() || !overlaps(n) {
                Next::Sibling
            } else if n.is_error() || n.is_missing() {
                *found = true;
                Next::Stop
            } else {
                Next::Children
            }
        },
        |_, _| {},
    );
    found
}

/// The two texts compared, the edits between them (old start, old end, new
/// start, new end, without the BOM), and per edit its captures.
struct Texts<'a> {
    old: &'a str,
    new: &'a str,
    ranges: &'a [(usize, usize, usize, usize)],
    captures: &'a [Vec<CapturedNodes>],
}

/// Closed byte ranges, sorted and disjoint.
type Regions = Vec<(usize, usize)>;

/// The regions to walk (docs/DESIGN.md §2.5.10, "Cost"), closed byte ranges, sorted and disjoint:
/// in the old text, and in the new one.
fn regions(changed: &[std::ops::Range<usize>], ranges: &[(usize, usize, usize, usize)]) -> (Regions, Regions) {
    let mut all: Vec<(usize, usize)> =
        changed.iter().map(|r| (r.start, r.end)).chain(ranges.iter().map(|r| (r.2, r.3))).map(|(a, b)| (a.saturating_sub(1), b + 1)).collect();
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
            Some(r) if r.2 <= p => {
                if end {
                    r.1
                } else {
                    r.0
                }
            }
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
fn compare_flats(old: &Flat, new: &Flat, texts: &Texts<'_>, new_root: tree_sitter::Node<'_>) -> Changes {
    let leaf_pairs = align_leaves(old, texts.old, new, texts.new, texts.ranges);
    let to_new = pair_nodes(old, new, &leaf_pairs, texts.ranges);
    let mut moves = find_moves(old, new, &to_new, texts.ranges);
    let anc_old = anchors(old, &to_new);
    moves.extend(captured::moves(old, new, texts, &to_new, &anc_old));
    if moves.is_empty() {
        return Changes::default();
    }
    // In tree order (pre-order of the old tree).
    moves.sort_by_key(|m| m.node);
    Changes { changed: true, changes: describe(&moves, old, new, &to_new, texts, new_root) }
}

/// Per old node, its nearest ancestor-or-self that pairs (`NONE` when none
/// does); parents come before children in pre-order.
fn anchors(old: &Flat, to_new: &[u32]) -> Vec<u32> {
    let mut a = vec![NONE; old.kind.len()];
    for n in 0..old.kind.len() {
        a[n] = if to_new[n] != NONE {
            n as u32
        } else if old.parent[n] == NONE {
            NONE
        } else {
            a[old.parent[n] as usize]
        };
    }
    a
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
/// [`MAX_ALIGN_EDITS`] insertions and deletions separate them. Not `similar`'s
/// Myers (the diffs and the minimal layout use it): that one searches every D
/// up to n+m and can only be stopped by a wall-clock deadline, which would make
/// the guard's verdict depend on the machine's load; this one stops at the
/// bound, so its cost is linear in the run's length (docs/DESIGN.md 2.5.10).
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

/// Where a node that ends at `e` ends, comparable across the two texts:
/// `Err(k)` when its last token is replaced by edit `k` (`r.0 < e <= r.1` in
/// the old text, `r.2 < e <= r.3` in the new one when `new`), else `Ok` of the
/// end in new-text offsets.
fn end_class(e: usize, ranges: &[(usize, usize, usize, usize)], new: bool) -> Result<usize, usize> {
    let span = |r: &(usize, usize, usize, usize)| if new { (r.2, r.3) } else { (r.0, r.1) };
    let k = ranges.partition_point(|r| span(r).1 < e);
    if ranges.get(k).is_some_and(|r| span(r).0 < e) {
        return Err(k);
    }
    Ok(match k.checked_sub(1).map(|k| ranges[k]) {
        Some(r) if !new => e - r.1 + r.3,
        _ => e,
    })
}

/// Pairs the nodes that start at each pair of leaves: by kind, innermost out
/// (the leaf, then the nodes that hold it), then outermost in over what is left;
/// two nodes pair only where they end alike ([`end_class`]): in the same edit,
/// or at the same place outside the edits. So in `a != N && b && c` with `a != N`
/// replaced by `a`, `a != N` (which ends in the edit) does not take the new
/// `a && b`, and each `&&` keeps its parent. Returns old node -> new node.
fn pair_nodes(old: &Flat, new: &Flat, leaf_pairs: &[(u32, u32)], ranges: &[(usize, usize, usize, usize)]) -> Vec<u32> {
    let mut to_new = vec![NONE; old.kind.len()];
    let alike = |x: u32, y: u32| {
        old.kind[x as usize] == new.kind[y as usize]
            && end_class(old.end[x as usize] as usize, ranges, false) == end_class(new.end[y as usize] as usize, ranges, true)
    };
    for &(a, b) in leaf_pairs {
        let (ca, cb) = (old.chain(a as usize), new.chain(b as usize));
        let (mut i, mut j) = (ca.len(), cb.len());
        while i > 0 && j > 0 && alike(ca[i - 1], cb[j - 1]) {
            i -= 1;
            j -= 1;
        }
        let (mut p, mut q) = (0, 0);
        while p < i && q < j && alike(ca[p], cb[q]) {
            p += 1;
            q += 1;
        }
        for (&x, &y) in ca[..p].iter().zip(&cb[..q]).chain(ca[i..].iter().zip(&cb[j..])) {
            to_new[x as usize] = y;
        }
    }
    to_new
}

/// One change found: the old node it is about, the new node where it is now
/// (for its line; `NONE` for [`What::Reparsed`]), and what happened.
#[derive(Clone, Copy)]
struct Move {
    node: u32,
    at: u32,
    what: What,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum What {
    /// The node left `from` (an old node that pairs; `NONE`: the top level)
    /// for `to` (a new node; `NONE`: the top level).
    Left { from: u32, to: u32 },
    /// Clear of every edit, the node no longer pairs: it was parsed anew.
    Reparsed,
    /// No new node spans the tokens of this node of capture `capture` of edit
    /// `edit`: the captured code is nested otherwise.
    Unnested { edit: u32, capture: u32 },
}

/// Rule (a): the nodes clear of every edit (not overlapping one, nor touching
/// its ends) that lost their kind or their exact parent. Only the topmost of a
/// moved subtree is reported: its children stay under it.
fn find_moves(old: &Flat, new: &Flat, to_new: &[u32], ranges: &[(usize, usize, usize, usize)]) -> Vec<Move> {
    // Touching an edit's ends is not clear: a `;` right after a replaced
    // expression may join the new expression's statement, the replacement's
    // own structure, not a move.
    let clear = |n: usize| {
        let (s, e) = (old.start[n] as usize, old.end[n] as usize);
        let k = ranges.partition_point(|r| r.1 < s);
        ranges.get(k).is_none_or(|r| r.0 > e)
    };
    let mut moves = Vec::new();
    for n in 0..old.kind.len() {
        let p = old.parent[n];
        if p == NONE || to_new[p as usize] == NONE || !clear(n) {
            continue;
        }
        let m = to_new[n];
        if m == NONE {
            // A node that no longer pairs was parsed anew; its parent pairs, so
            // it is the topmost.
            moves.push(Move { node: n as u32, at: NONE, what: What::Reparsed });
        } else if new.parent[m as usize] != to_new[p as usize] {
            moves.push(Move { node: n as u32, at: m, what: What::Left { from: p, to: new.parent[m as usize] } });
        }
    }
    moves
}

/// Groups the moves by kind and what happened, in order of their first node,
/// and words the first [`MAX_STRUCTURE_CHANGES_LISTED`] groups.
fn describe(moves: &[Move], old: &Flat, new: &Flat, to_new: &[u32], texts: &Texts<'_>, new_root: tree_sitter::Node<'_>) -> Vec<StructureChange> {
    let mut groups: Vec<(Move, usize)> = Vec::new();
    for mv in moves {
        let key = |m: &Move| (old.kind[m.node as usize], m.what);
        match groups.iter().position(|(g, _)| key(g) == key(mv)) {
            Some(i) => groups[i].1 += 1,
            None if groups.len() < MAX_STRUCTURE_CHANGES_LISTED => groups.push((*mv, 1)),
            None => {}
        }
    }
    let lang = new_root.language();
    let new_text = texts.new;
    let to_new_node = |n: u32| node_at(new_root, new.start[n as usize] as usize, new.end[n as usize] as usize, new.kind[n as usize]);
    // A parent is named after its counterpart in the new text.
    let name = |n: u32| if n == NONE { TOP.to_string() } else { label(to_new_node(n), new_text) };
    groups
        .iter()
        .map(|(mv, count)| {
            let what = plural(*count, &lang.node_kind_for_id(old.kind[mv.node as usize]).unwrap_or("node").replace('_', " "));
            match mv.what {
                What::Reparsed => {
                    // Clear of every edit: moved by the edits before it.
                    let at = old.start[mv.node as usize] as usize;
                    let at = texts.ranges.iter().take_while(|r| r.1 <= at).fold(at as isize, |a, r| a + (r.3 - r.2) as isize - (r.1 - r.0) as isize);
                    let line = line_of(new_text, (at.max(0) as usize).min(new_text.len()));
                    StructureChange { line, message: format!("{what} outside the replaced text no longer parsed as before") }
                }
                What::Left { from, to } => {
                    let from = if from == NONE { NONE } else { to_new[from as usize] };
                    let line = line_of(new_text, new.start[mv.at as usize] as usize);
                    StructureChange { line, message: format!("{what} left {} for {}", name(from), name(to)) }
                }
                What::Unnested { edit, capture } => {
                    let var = &texts.captures[edit as usize][capture as usize].name;
                    let line = line_of(new_text, new.start[mv.at as usize] as usize);
                    StructureChange { line, message: format!("{what} captured by `{var}` no longer parsed as before") }
                }
            }
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

/// `s` in at most [`MAX_PARENT_CHARS`] characters, `…` included.
fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_PARENT_CHARS {
        return s.to_string();
    }
    crate::shared::text::ellipsized(s, MAX_PARENT_CHARS - 1)
}
