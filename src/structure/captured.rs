//! Rule (b) of the structure guard (docs/DESIGN.md section 2.5.10): the code a
//! metavariable captured, which the fix template places in the new text, keeps
//! its tokens and their nesting, and its nodes stay together under one new node
//! of their own edit, or, when the template writes the capture at its top
//! level, under the node that holds the edit.
//!
//! Where the captured code lies in the new text: ast-grep-core copies a
//! capture's text and only re-indents its lines (a minimal rewrite, section
//! 2.5.9, only changes blanks), so its tokens appear in the edit's new text in
//! order, each with the same characters but for blanks. The capture is located
//! where that run of tokens occurs among the tokens of the edit's new text, when
//! it occurs there exactly once (Knuth-Morris-Pratt: linear in the tokens of the
//! capture and of the edit). A capture that is absent, written twice (`$A $A`),
//! transformed, or whose tokens are not all there as they were, is not judged.
//!
//! Then, for each captured node (the nodes `$A` or `$$$A` matched, and every
//! node under them), a new node must span exactly the tokens it spanned (its
//! kind may differ: a property name that becomes an identifier). Nodes that
//! start at the same token are visited outermost first, and so are the new
//! nodes that start at its counterpart, so one pass over both chains finds
//! them: the work is linear in the captured code and the chains it starts.

use super::{Flat, Move, Texts, What, NONE};

/// The changes rule (b) finds in every edit that has captures. `anc_old`: per
/// old node, its nearest ancestor-or-self that pairs (to name where a node
/// came from).
pub(super) fn moves(old: &Flat, new: &Flat, texts: &Texts<'_>, anc_old: &[u32]) -> Vec<Move> {
    let mut out = Vec::new();
    for (e, (&(s, t, ns, ne), caps)) in texts.ranges.iter().zip(texts.captures).enumerate() {
        let edit_leaves = inside(new, ns, ne);
        for (c, cap) in caps.iter().enumerate() {
            let (Some(&(cs, _)), Some(&(_, ce))) = (cap.nodes.first(), cap.nodes.last()) else { continue };
            if cs < s || ce > t || cs >= ce {
                // Not all inside the replaced text: what is outside is rule (a)'s.
                continue;
            }
            let (ob, oe) = inside(old, cs, ce);
            if oe <= ob || (oe - ob == 1 && cap.nodes.len() == 1) {
                // No token, or one: nothing can be nested otherwise.
                continue;
            }
            let Some(at) = locate(old, texts.old, (ob, oe), new, texts.new, edit_leaves) else { continue };
            let what = What::Unnested { edit: e as u32, capture: c as u32 };
            let map = |i: usize| at + (i - ob);
            let mut roots: Vec<(u32, u32)> = Vec::with_capacity(cap.nodes.len());
            for &(rs, re) in &cap.nodes {
                let Some(x) = outermost(old, rs, re).filter(|&x| ob <= old.leaf_first[x as usize] as usize && old.leaf_end[x as usize] as usize <= oe) else { continue };
                if counterpart(new, old, x, map).is_none() && is_list(old, x) {
                    // A node without tokens of its own (a Python `block` that
                    // `$$$B` matched) stands for its children: they are the
                    // captured nodes.
                    let mut child = x as usize + 1;
                    while child <= old.last[x as usize] as usize {
                        roots.extend(subtree(old, new, child as u32, map, what, &mut out).map(|y| (child as u32, y)));
                        child = old.last[child] as usize + 1;
                    }
                } else {
                    roots.extend(subtree(old, new, x, map, what, &mut out).map(|y| (x, y)));
                }
            }
            // The captured nodes stay together under one new node of the edit,
            // or under the node that holds the whole edit.
            let fits = |p: u32| {
                p == NONE || {
                    let (a, b) = (new.start[p as usize] as usize, new.end[p as usize] as usize);
                    (ns <= a && b <= ne) || (a <= ns && ne <= b)
                }
            };
            let parent = |y: u32| new.parent[y as usize];
            let home = roots.iter().map(|&(_, y)| parent(y)).find(|&p| fits(p));
            for &(x, y) in &roots {
                let p = parent(y);
                if Some(p) != home {
                    let from = match old.parent[x as usize] {
                        NONE => NONE,
                        q => anc_old[q as usize],
                    };
                    out.push(Move { node: x, at: y, what: What::Left { from, to: p } });
                }
            }
        }
    }
    out
}

/// The leaves of `f` that lie inside the bytes `a..b`, as a range of leaf
/// indices.
fn inside(f: &Flat, a: usize, b: usize) -> (usize, usize) {
    let (mut x, mut y) = f.leaves_over(a, b);
    while x < y && f.leaf_range(x).0 < a {
        x += 1;
    }
    while y > x && f.leaf_range(y - 1).1 > b {
        y -= 1;
    }
    (x, y)
}

/// The outermost node of `old` inside the bytes `rs..re` (a captured node).
fn outermost(old: &Flat, rs: usize, re: usize) -> Option<u32> {
    // Starts never decrease in pre-order: the first node that starts in the
    // range and ends in it, past the nodes that hold the range.
    let mut x = old.start.partition_point(|&st| (st as usize) < rs);
    while x < old.kind.len() && (old.start[x] as usize) < re {
        if old.end[x] as usize <= re {
            return Some(x as u32);
        }
        x += 1;
    }
    None
}

/// A node with children, none of them a token.
fn is_list(f: &Flat, x: u32) -> bool {
    let x = x as usize;
    let mut child = x + 1;
    while child <= f.last[x] as usize {
        if f.last[child] as usize == child {
            return false;
        }
        child = f.last[child] as usize + 1;
    }
    child > x + 1
}

/// The outermost node of `new` that spans exactly the new leaves of old node
/// `x`, its old leaf `i` being new leaf `map(i)`.
fn counterpart(new: &Flat, old: &Flat, x: u32, map: impl Fn(usize) -> usize) -> Option<u32> {
    let (a, b) = (map(old.leaf_first[x as usize] as usize), map(old.leaf_end[x as usize] as usize));
    new.chain(a).iter().copied().find(|&y| new.leaf_end[y as usize] as usize == b)
}

/// Checks old node `x` and the nodes under it against the new tree, its old
/// leaf `i` being new leaf `map(i)`: pushes to `out` (as `what`) each topmost
/// node that no new node spans as it did. Returns the counterpart of `x` (the
/// outermost new node spanning its leaves), when it has one.
fn subtree(old: &Flat, new: &Flat, x: u32, map: impl Fn(usize) -> usize, what: What, out: &mut Vec<Move>) -> Option<u32> {
    let mut root = None;
    // The new chain being walked: its leaf, and how far along it. The old
    // nodes that start at one leaf come one after the other, outermost
    // first, as do the new ones: one pass over both.
    let (mut leaf, mut k) = (usize::MAX, 0);
    let mut n = x as usize;
    while n <= old.last[x as usize] as usize {
        let (na, nb) = (map(old.leaf_first[n] as usize), map(old.leaf_end[n] as usize));
        if na != leaf {
            (leaf, k) = (na, 0);
        }
        let chain = new.chain(na);
        while k < chain.len() && new.leaf_end[chain[k] as usize] as usize > nb {
            k += 1;
        }
        match chain.get(k).filter(|&&y| new.leaf_end[y as usize] as usize == nb) {
            Some(&y) => {
                if n == x as usize {
                    root = Some(y);
                }
                n += 1;
            }
            None => {
                out.push(Move { node: n as u32, at: new.leaves[na], what });
                n = old.last[n] as usize + 1;
            }
        }
    }
    root
}

/// Where the old leaves `ob..oe` occur among the new leaves `nb..nf`, by text
/// but for blanks, when they occur there exactly once: the new leaf of `ob`.
fn locate(old: &Flat, old_text: &str, (ob, oe): (usize, usize), new: &Flat, new_text: &str, (nb, nf): (usize, usize)) -> Option<usize> {
    let m = oe - ob;
    if nf < nb + m {
        return None;
    }
    let pat = |i: usize| {
        let (a, b) = old.leaf_range(ob + i);
        &old_text.as_bytes()[a..b]
    };
    let txt = |j: usize| {
        let (a, b) = new.leaf_range(nb + j);
        &new_text.as_bytes()[a..b]
    };
    // Knuth-Morris-Pratt: fail[i], the longest proper border of pat[..=i].
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for i in 1..m {
        while k > 0 && !same(pat(i), pat(k)) {
            k = fail[k - 1];
        }
        if same(pat(i), pat(k)) {
            k += 1;
        }
        fail[i] = k;
    }
    let mut found = None;
    let mut k = 0;
    for j in 0..nf - nb {
        while k > 0 && !same(txt(j), pat(k)) {
            k = fail[k - 1];
        }
        if same(txt(j), pat(k)) {
            k += 1;
        }
        if k == m {
            if found.is_some() {
                return None;
            }
            found = Some(nb + j + 1 - m);
            k = fail[k - 1];
        }
    }
    found
}

/// The same characters but for blanks (ast-grep-core re-indents the lines of a
/// multi-line token a capture holds, a docstring, say).
fn same(a: &[u8], b: &[u8]) -> bool {
    let mut a = a.iter().filter(|c| !c.is_ascii_whitespace());
    let mut b = b.iter().filter(|c| !c.is_ascii_whitespace());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_are_the_same_but_for_blanks() {
        assert!(same(b"\"\"\"a\n        b\"\"\"", b"\"\"\"a\n    b\"\"\""));
        assert!(same(b"x", b"x"));
        assert!(!same(b"x", b"y"));
        assert!(!same(b"ab", b"a"));
        assert!(same(b"", b" "));
    }
}
