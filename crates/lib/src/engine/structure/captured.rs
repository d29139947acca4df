//! Rule (b) of the structure guard (docs/DESIGN.md §2.5.10): the code a metavariable
//! captured, which the fix template places in the new text, keeps its tokens and their
//! nesting (no new node cuts across a captured node), and its nodes stay together inside
//! the new nodes of their own edit. A capture is located where its run of tokens occurs
//! exactly once among the tokens of its edit's new text (Knuth-Morris-Pratt); one that is
//! absent, written twice, transformed or changed is not judged. The two lookups per
//! captured node and the place rule: §2.5.10, "The rule" and "The mapping".

use super::{Flat, Move, NONE, Texts, What};

/// The changes rule (b) finds in every edit that has captures. `to_new`: old
/// node -> new node, for the nodes that pair; `anc_old`: per old node, its
/// nearest ancestor-or-self that pairs (to name where a node came from).
pub(super) fn moves(old: &Flat, new: &Flat, texts: &Texts<'_>, to_new: &[u32], anc_old: &[u32]) -> Vec<Move> {
    let mut out = Vec::new();
    for (e, (&(s, t, ns, ne), caps)) in texts.ranges.iter().zip(texts.captures).enumerate() {
        let edit_leaves = inside(new, ns, ne);
        let within = |y: u32| ns <= new.start[y as usize] as usize && new.end[y as usize] as usize <= ne;
        let holds = |y: u32| new.start[y as usize] as usize <= ns && ne <= new.end[y as usize] as usize;
        for (c, cap) in caps.iter().enumerate() {
            let (Some(&(cs, _)), Some(&(_, ce))) = (cap.nodes.first(), cap.nodes.last()) else { continue };
            if cs < s || ce > t || cs >= ce {
                // Not all inside the replaced text: what is outside is rule (a)'s.
                continue;
            }
            let (ob, oe) = inside(old, cs, ce);
            if oe <= ob {
                continue;
            }
            let Some(at) = locate(old, texts.old, (ob, oe), new, texts.new, edit_leaves) else { continue };
            let what = What::Unnested { edit: e as u32, capture: c as u32 };
            // Old node -> the new leaves its leaves are.
            let span = |x: usize| (at + (old.leaf_first[x] as usize - ob), at + (old.leaf_end[x] as usize - ob));
            // The captured nodes, as nodes of the old tree.
            let mut nodes: Vec<u32> = cap
                .nodes
                .iter()
                .filter_map(|&(rs, re)| outermost(old, rs, re))
                .filter(|&x| ob <= old.leaf_first[x as usize] as usize && old.leaf_end[x as usize] as usize <= oe)
                .collect();
            if let [x] = nodes[..]
                && cap.multi
                && is_list(old, x)
            {
                // A `$$$` capture whose one node with tokens has none of its
                // own (the Python `block` that `$$$B` matches, after the
                // comments it matches too) stands for that node's children.
                nodes = children(old, x).collect();
            }
            // Per captured node that keeps its nesting: it, and its place.
            let mut roots: Vec<(u32, u32)> = Vec::with_capacity(nodes.len());
            for x in nodes {
                if nested(old, new, x, span, what, &mut out) {
                    let (a, b) = span(x as usize);
                    roots.push((x, place(new, a, b)));
                }
            }
            // The old node of the edit that held the capture (`NONE` when the
            // capture is the matched node itself), and the counterpart of the
            // node that held the edit: a new node of the edit may span as much.
            let (m, held) = match roots.first() {
                Some(&(x, _)) => {
                    let m = holder(old, x, s, t);
                    let top = if m == NONE { x } else { m };
                    (m, old.parent[top as usize])
                }
                None => (NONE, NONE),
            };
            let held = if held == NONE { NONE } else { to_new[held as usize] };
            let of_edit = |y: u32| y != held && within(y);
            let home = roots.iter().map(|r| r.1).find(|&p| p == NONE || of_edit(p) || holds(p));
            let from = |x: u32| match old.parent[x as usize] {
                NONE => NONE,
                q => anc_old[q as usize],
            };
            // At the template's top level: left the old node that held it, if
            // that node is still there beside it.
            let still_there = |x: u32| {
                let (a, b) = span(x as usize);
                let y = if m == NONE { NONE } else { to_new[m as usize] };
                y != NONE && of_edit(y) && !(new.leaf_first[y as usize] as usize <= a && b <= new.leaf_end[y as usize] as usize)
            };
            let left = match (home, roots.first()) {
                (Some(p), Some(&(x, _))) if p != NONE && !of_edit(p) && still_there(x) => Some(m),
                _ => None,
            };
            for &(x, p) in &roots {
                let from = match left {
                    Some(m) if Some(p) == home => m,
                    _ if Some(p) != home => from(x),
                    _ => continue,
                };
                out.push(Move { node: x, at: new.leaves[span(x as usize).0], what: What::Left { from, to: p } });
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

/// The children of `x`.
fn children(f: &Flat, x: u32) -> impl Iterator<Item = u32> + '_ {
    let last = f.last[x as usize];
    std::iter::successors(Some(x + 1).filter(|&c| c <= last), move |&c| Some(f.last[c as usize] + 1).filter(|&n| n <= last))
}

/// A node with children, none of them a token.
fn is_list(f: &Flat, x: u32) -> bool {
    let mut kids = children(f, x).peekable();
    kids.peek().is_some() && kids.all(|c| f.last[c as usize] > c)
}

/// The old node that held `x` (not `x`) at the top of the replaced bytes
/// `s..t` (the matched node): the lowest that spans them all, else the
/// outermost inside them; `NONE` when no node between holds `x`. A Python
/// `block` around the only method of a class spans as much as the method.
fn holder(old: &Flat, x: u32, s: usize, t: usize) -> u32 {
    let (mut m, mut q) = (NONE, old.parent[x as usize]);
    while q != NONE && s <= old.start[q as usize] as usize && old.end[q as usize] as usize <= t {
        m = q;
        if (old.start[q as usize] as usize, old.end[q as usize] as usize) == (s, t) {
            break;
        }
        q = old.parent[q as usize];
    }
    m
}

/// Some new node holds some of the new leaves `a..b` and some outside them.
fn cut(new: &Flat, a: usize, b: usize) -> bool {
    // The ancestors of leaf `a` that start before it end later the higher they
    // are: the lowest must not end inside. Likewise at leaf `b - 1`.
    let u = new.parent[new.chain(a)[0] as usize];
    let v = new.parent[new.ends_at[b - 1] as usize];
    (u != NONE && (new.leaf_end[u as usize] as usize) < b) || (v != NONE && new.leaf_first[v as usize] as usize > a)
}

/// The smallest new node that holds more than the new leaves `a..b` (which no
/// node cuts across).
fn place(new: &Flat, a: usize, b: usize) -> u32 {
    let chain = new.chain(a);
    chain.iter().take_while(|&&y| new.leaf_end[y as usize] as usize > b).last().copied().unwrap_or(new.parent[chain[0] as usize])
}

/// Checks old node `x` and the nodes under it, `span` giving the new leaves of
/// each: pushes to `out` (as `what`) each topmost node some new node cuts
/// across. True when `x` itself is whole.
fn nested(old: &Flat, new: &Flat, x: u32, span: impl Fn(usize) -> (usize, usize), what: What, out: &mut Vec<Move>) -> bool {
    let mut n = x as usize;
    while n <= old.last[x as usize] as usize {
        let (a, b) = span(n);
        if cut(new, a, b) {
            out.push(Move { node: n as u32, at: new.leaves[a], what });
            if n == x as usize {
                return false;
            }
            n = old.last[n] as usize + 1;
        } else {
            n += 1;
        }
    }
    true
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
