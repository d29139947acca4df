//! Unified diffs of a planned rewrite, with `a/` and `b/` prefixes so that `git apply`
//! accepts them, rendered once per file by the worker that planned it; a name that needs
//! it is quoted in the headers as git quotes it (`shared::quote::prefixed`). A diff is
//! built from the edits (`unified_edits`): only the lines an edit touches are compared,
//! in blocks of bounded size, so a file's diff costs linear time in its edits
//! (docs/DESIGN.md §2.7).

use similar::DiffOp;
use similar::udiff::UnifiedHunkHeader;

use crate::engine::Edit;
use crate::request::CONTEXT;
use crate::shared::quote;
use crate::shared::text::Breaks;

/// Longest diff line kept whole in a stored preview; longer lines (minified
/// bundles) are cut and counted, so a preview's size stays bounded. The edit
/// itself is never cut, and `ast-edit show --full` re-renders the whole diff.
pub const MAX_DIFF_LINE: usize = 4096;

/// `unified_edits` with every line longer than `max_line` bytes cut to `max_line`
/// bytes plus a marker saying how much was cut. Returns the diff and how many
/// lines were cut (a diff with cut lines is for reading, not for `git apply`).
/// Only the benchmarks (through `ast_edit::testing`) and this file's tests call
/// it; the plan calls `unified_bounded_with`.
#[cfg(any(test, doc, feature = "testing"))]
pub fn unified_bounded(path: &str, old: &str, new: &str, edits: &[Edit], max_line: usize) -> (String, usize) {
    unified_bounded_with(path, old, new, edits, max_line, CONTEXT)
}

/// `unified_bounded` with `context` lines of context around each hunk.
pub(crate) fn unified_bounded_with(path: &str, old: &str, new: &str, edits: &[Edit], max_line: usize, context: usize) -> (String, usize) {
    let full = unified_edits_with(path, old, new, edits, context);
    if full.split('\n').all(|l| l.len() <= max_line) {
        return (full, 0);
    }
    let mut out = String::with_capacity(full.len().min(1 << 20));
    let mut cut = 0;
    for (i, line) in full.split_inclusive('\n').enumerate() {
        let body = line.strip_suffix('\n').unwrap_or(line);
        // The two file headers and the hunk headers stay whole.
        if body.len() <= max_line || i < 2 || body.starts_with("@@") {
            out.push_str(line);
            continue;
        }
        cut += 1;
        out.push_str(&crate::shared::text::cut_with_note(body, max_line, crate::shared::text::Unit::Bytes, ""));
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    (out, cut)
}

/// The unified diff from `old` to `new` for `path` (display path).
pub fn unified(path: &str, old: &str, new: &str) -> String {
    unified_with(path, old, new, CONTEXT)
}

/// [`unified`] with `context` lines of context around each hunk.
pub(crate) fn unified_with(path: &str, old: &str, new: &str, context: usize) -> String {
    render(path, &Lines::new(old), &Lines::new(new), line_ops(old, new), context)
}

/// The line diff of `old` and `new` (Myers), lines ending at `\n` only, as
/// `git apply` reads a patch: `similar`'s own line split also ends a line at a
/// lone `\r`, which numbers the lines otherwise than the hunks this file
/// writes, and turned a file with a lone carriage return into a wrong diff.
fn line_ops(old: &str, new: &str) -> Vec<DiffOp> {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.split_inclusive('\n').collect(), new.split_inclusive('\n').collect());
    similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b)
}

/// True when no line of `old` is a line of `new` (lines as [`line_ops`]
/// splits them).
fn disjoint(old: &str, new: &str) -> bool {
    let lines: std::collections::HashSet<&str> = old.split_inclusive('\n').collect();
    !new.split_inclusive('\n').any(|l| lines.contains(l))
}

/// Where the lines of a text start and end: its line breaks.
struct Lines<'a> {
    text: &'a str,
    breaks: Breaks,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, breaks: Breaks::of(text) }
    }

    /// How many lines, as `similar` splits them: a last line without `\n` counts.
    fn count(&self) -> usize {
        self.breaks.count() + usize::from(!self.text.is_empty() && !self.text.ends_with('\n'))
    }

    /// The line that holds byte `at` (a past-the-end offset gives [`Lines::count`]
    /// when the text ends with `\n`).
    fn line_of(&self, at: usize) -> usize {
        self.breaks.line(at) - 1
    }

    fn start(&self, line: usize) -> usize {
        self.breaks.start_of(line).unwrap_or(self.text.len())
    }

    /// Line `line` with its `\n`, if it has one.
    fn get(&self, line: usize) -> &'a str {
        &self.text[self.start(line)..self.start(line + 1)]
    }
}

/// The unified diff from `old` to `new` for `path`, where `new` is `old` with
/// `edits` (sorted, non-overlapping, offsets into `old`) applied. Same format as
/// [`unified`]: each group of touched lines is diffed on its own, the lines
/// between groups are equal context, and the hunks are grouped with
/// [`CONTEXT`] lines of context as `similar` groups them.
pub(crate) fn unified_edits(path: &str, old: &str, new: &str, edits: &[Edit]) -> String {
    unified_edits_with(path, old, new, edits, CONTEXT)
}

/// [`unified_edits`] with `context` lines of context around each hunk (0 gives
/// hunks of changed lines only, as `git diff -U0`).
pub(crate) fn unified_edits_with(path: &str, old: &str, new: &str, edits: &[Edit], context: usize) -> String {
    unified_edits_in(path, old, new, edits, context, (PIECE_LINES, MYERS_LINES))
}

/// Most lines (old and new) of touching edits compared as one block. Myers'
/// diff costs (old + new lines) x (lines changed), so comparing every touching
/// edit of a file as one block is quadratic in the edits (60,000 edited lines in
/// a row: 26 s); blocks of at most this many lines keep it linear, and below
/// it the diff is the whole-file diff (the tests check both).
const PIECE_LINES: usize = 256;

/// Most lines (old and new) of one edit's lines compared line by line; above
/// it the lines the edit leaves alone at both ends are kept and the rest is
/// one replacement, so one huge edit costs its size, not its size squared.
const MYERS_LINES: usize = 2048;

/// [`unified_edits_with`] comparing touching edits in blocks of at most
/// `piece` lines, and blocks of at most `myers` lines line by line.
fn unified_edits_in(path: &str, old: &str, new: &str, edits: &[Edit], context: usize, (piece, myers): (usize, usize)) -> String {
    let (a, b) = (Lines::new(old), Lines::new(new));
    let (na, nb) = (a.count(), b.count());
    // Old line ranges [lo, hi) touched by runs of edits, with the byte delta
    // (new length - old length) of the edits before each run, and about how
    // many lines it compares (old lines plus the new text's line breaks).
    let mut regions: Vec<(usize, usize, isize, usize)> = Vec::new();
    let mut delta: isize = 0;
    for e in edits {
        let lo = a.line_of(e.start).min(na);
        let last = if e.end > e.start { e.end - 1 } else { e.start };
        let mut hi = (a.line_of(last) + 1).min(na.max(lo));
        // An edit that takes a line's `\n` and puts none back joins the next line.
        if e.end > e.start && old.as_bytes()[e.end - 1] == b'\n' && !e.text.ends_with('\n') {
            hi = (hi + 1).min(na);
        }
        // Edits that share a line are one run; touching runs are one block
        // while the block stays small, and `similar` pairs the removed lines of
        // neighbours with their added lines in one block.
        let size = (hi - lo) + memchr::memchr_iter(b'\n', e.text.as_bytes()).count();
        match regions.last_mut() {
            Some(r) if lo < r.1 || (lo == r.1 && r.3 + size <= piece) => (r.1, r.3) = (r.1.max(hi), r.3 + size),
            _ => regions.push((lo, hi, delta, size)),
        }
        delta += e.text.len() as isize - (e.end - e.start) as isize;
    }
    let mut ops: Vec<DiffOp> = Vec::new();
    let (mut ai, mut bi) = (0, 0);
    for (k, &(lo, hi, before, _)) in regions.iter().enumerate() {
        let (olo, ohi) = (a.start(lo), a.start(hi));
        let nlo = (olo as isize + before) as usize;
        // The region's new text ends where the old one does, shifted by every edit
        // up to there: the next region's `before`, or the total.
        let after = regions.get(k + 1).map_or(delta, |r| r.2);
        let nhi = (ohi as isize + after) as usize;
        let blo = b.line_of(nlo);
        push(&mut ops, DiffOp::Equal { old_index: ai, new_index: bi, len: lo - ai });
        let ends = if nhi == new.len() { nb } else { b.line_of(nhi) };
        let first = ops.len();
        if (hi - lo) + (ends - blo) <= myers && disjoint(&old[olo..ohi], &new[nlo..nhi]) {
            // No line in common (every line of a run of statements edited
            // alike): what Myers' diff answers, without its cost of
            // (old + new lines) x (lines changed).
            push(&mut ops, change(lo, hi - lo, blo, ends - blo));
        } else if (hi - lo) + (ends - blo) <= myers {
            for op in line_ops(&old[olo..ohi], &new[nlo..nhi]) {
                push(&mut ops, shift(op, lo, blo));
            }
        } else {
            replace_between(&mut ops, &a, &b, (lo, hi), (blo, ends));
        }
        // A block that starts where the last one ended: one run of removed
        // lines, then one of added lines, as one block would have it.
        join_changes(&mut ops, first);
        ai = hi;
        // `nhi` starts a line of `new`, or ends it (a last line without `\n` counts).
        bi = ends;
    }
    push(&mut ops, DiffOp::Equal { old_index: ai, new_index: bi, len: na - ai });
    debug_assert_eq!(bi + na.saturating_sub(ai), nb, "the edits give `new`");
    render(path, &a, &b, ops, context)
}

/// The unified diff of `ops` (line ops from `a` to `b`) for `path`, with
/// `context` lines around each hunk, as `similar` groups and writes them.
fn render(path: &str, a: &Lines, b: &Lines, ops: Vec<DiffOp>, context: usize) -> String {
    // An absolute display path (outside the working directory) must not give `a//x`.
    let path = path.trim_start_matches('/');
    let mut out = String::new();
    for group in similar::group_diff_ops(ops, context) {
        if group.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(&format!("--- {}\n+++ {}\n", quote::prefixed("a/", path), quote::prefixed("b/", path)));
        }
        out.push_str(&format!("{}\n", UnifiedHunkHeader::new(&group)));
        for op in &group {
            let (o, n) = (op.old_range(), op.new_range());
            let mut line = |sign: char, text: &str| {
                out.push(sign);
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            };
            match op {
                DiffOp::Equal { .. } => o.for_each(|i| line(' ', a.get(i))),
                _ => {
                    o.for_each(|i| line('-', a.get(i)));
                    n.for_each(|i| line('+', b.get(i)));
                }
            }
        }
    }
    out
}

/// The lines `a[old]` become `b[new]`: the lines equal at both ends are kept and
/// the rest is one change.
fn replace_between(ops: &mut Vec<DiffOp>, a: &Lines, b: &Lines, old: (usize, usize), new: (usize, usize)) {
    let ((mut lo, mut hi), (mut blo, mut bhi)) = (old, new);
    let (start, bstart) = (lo, blo);
    while lo < hi && blo < bhi && a.get(lo) == b.get(blo) {
        (lo, blo) = (lo + 1, blo + 1);
    }
    push(ops, DiffOp::Equal { old_index: start, new_index: bstart, len: lo - start });
    let mut tail = 0;
    while lo < hi && blo < bhi && a.get(hi - 1) == b.get(bhi - 1) {
        (hi, bhi, tail) = (hi - 1, bhi - 1, tail + 1);
    }
    push(ops, change(lo, hi - lo, blo, bhi - blo));
    push(ops, DiffOp::Equal { old_index: hi, new_index: bhi, len: tail });
}

/// The op that removes `old_len` lines at `old_index` and adds `new_len` at
/// `new_index`, or an empty equal run (dropped by [`push`]) when neither.
fn change(old_index: usize, old_len: usize, new_index: usize, new_len: usize) -> DiffOp {
    match (old_len, new_len) {
        (0, 0) => DiffOp::Equal { old_index, new_index, len: 0 },
        (_, 0) => DiffOp::Delete { old_index, old_len, new_index },
        (0, _) => DiffOp::Insert { old_index, new_index, new_len },
        _ => DiffOp::Replace { old_index, old_len, new_index, new_len },
    }
}

/// Joins the change at `ops[at]` to the change before it, when both are
/// changes (the first of a block that touches the one before).
fn join_changes(ops: &mut Vec<DiffOp>, at: usize) {
    let is_change = |op: &DiffOp| !matches!(op, DiffOp::Equal { .. });
    if at == 0 || at >= ops.len() || !is_change(&ops[at - 1]) || !is_change(&ops[at]) {
        return;
    }
    let (x, y) = (ops[at - 1], ops[at]);
    let (xo, yo, xn, yn) = (x.old_range(), y.old_range(), x.new_range(), y.new_range());
    debug_assert!(xo.end == yo.start && xn.end == yn.start, "touching blocks");
    ops[at - 1] = change(xo.start, yo.end - xo.start, xn.start, yn.end - xn.start);
    ops.remove(at);
}

/// Appends `op`, joining it to the last op when both are equal runs (grouping
/// trims the context of one run only) and dropping an empty run.
fn push(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if let DiffOp::Equal { len, .. } = op {
        if len == 0 {
            return;
        }
        if let Some(DiffOp::Equal { len: last, .. }) = ops.last_mut() {
            *last += len;
            return;
        }
    }
    ops.push(op);
}

/// `op` of a diff between line slices that start at `old` and `new`, in the
/// line numbers of the whole texts.
fn shift(op: DiffOp, old: usize, new: usize) -> DiffOp {
    match op {
        DiffOp::Equal { old_index, new_index, len } => DiffOp::Equal { old_index: old_index + old, new_index: new_index + new, len },
        DiffOp::Delete { old_index, old_len, new_index } => DiffOp::Delete { old_index: old_index + old, old_len, new_index: new_index + new },
        DiffOp::Insert { old_index, new_index, new_len } => DiffOp::Insert { old_index: old_index + old, new_index: new_index + new, new_len },
        DiffOp::Replace { old_index, old_len, new_index, new_len } => {
            DiffOp::Replace { old_index: old_index + old, old_len, new_index: new_index + new, new_len }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_git_prefixes_and_hunks() {
        let d = unified("src/a.py", "x\nf(1)\n", "x\ng(1)\n");
        assert_eq!(d, "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n x\n-f(1)\n+g(1)\n");
    }

    #[test]
    fn headers_quote_names_as_git_does() {
        let d = unified_edits("tab\there.py", "f(1)\n", "g(1)\n", &[Edit { start: 0, end: 1, text: "g".into(), op: 0 }]);
        assert!(d.starts_with("--- \"a/tab\\there.py\"\n+++ \"b/tab\\there.py\"\n@@ -1 +1 @@\n"), "{d}");
        assert_eq!(d, unified("tab\there.py", "f(1)\n", "g(1)\n"));
        // An absolute display path loses its leading `/` before quoting.
        assert!(unified("/tmp/é.py", "a\n", "b\n").starts_with("--- \"a/tmp/\\303\\251.py\"\n"));
    }

    #[test]
    fn long_lines_are_cut_and_counted() {
        let old = format!("{}\n", "a".repeat(100));
        let new = format!("{}\n", "b".repeat(100));
        let (d, cut) = unified_bounded("m.js", &old, &new, &[Edit { start: 0, end: 100, text: "b".repeat(100), op: 0 }], 10);
        assert_eq!(cut, 2);
        assert!(d.contains(&format!("-{} … [91 more bytes cut]\n", "a".repeat(9))), "{d}");
        let (new, e) = edited("a\n", &[(0, 1, "b")]);
        assert_eq!(new, "b\n");
        assert_eq!(unified_bounded("m.js", "a\n", &new, &e, 10), (unified("m.js", "a\n", "b\n"), 0));
    }

    /// Applies a unified diff to `old`, as `patch` would, checking each line.
    fn patch(old: &str, diff: &str) -> String {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut at = 0; // next old line to copy
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(h) = lines.next() {
            let h = h.strip_prefix("@@ -").expect("a hunk header");
            let range = h.split(' ').next().unwrap();
            let mut it = range.split(',').map(|n| n.parse::<usize>().unwrap());
            let (start, len) = (it.next().unwrap(), it.next().unwrap_or(1));
            let first = if len == 0 { start } else { start - 1 };
            while at < first {
                out.push_str(old_lines[at]);
                at += 1;
            }
            while let Some(l) = lines.peek().copied().filter(|l| !l.starts_with("@@")) {
                lines.next();
                let mut text = l[1..].to_string();
                if lines.peek().is_some_and(|n| n.starts_with('\\')) {
                    lines.next();
                    text.pop();
                }
                match &l[..1] {
                    " " | "-" => {
                        assert_eq!(old_lines[at], text, "the diff's old line {}", at + 1);
                        if l.starts_with(' ') {
                            out.push_str(&text);
                        }
                        at += 1;
                    }
                    "+" => out.push_str(&text),
                    other => panic!("unexpected diff line {other:?}"),
                }
            }
        }
        out.extend(old_lines[at..].iter().copied());
        out
    }

    /// How many lines a unified diff removes or adds.
    fn changed(diff: &str) -> usize {
        diff.lines().skip(2).filter(|l| l.starts_with('-') || l.starts_with('+')).count()
    }

    /// `old` with `edits` applied, and the edits (sorted, non-overlapping).
    fn edited(old: &str, edits: &[(usize, usize, &str)]) -> (String, Vec<Edit>) {
        let edits: Vec<Edit> = edits.iter().map(|&(start, end, t)| Edit { start, end, text: t.into(), op: 0 }).collect();
        (String::from_utf8(crate::engine::splice(old.as_bytes(), &edits)).unwrap(), edits)
    }

    #[test]
    fn diff_from_edits_equals_the_whole_file_diff() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
        let cases: &[&[(usize, usize, &str)]] = &[
            &[(2, 3, "B")],                // one line
            &[(2, 3, "B"), (20, 21, "K")], // two hunks
            &[(2, 3, "B"), (10, 11, "F")], // hunks whose context meets
            &[(2, 4, "")],                 // a line's newline taken: lines join
            &[(2, 4, "x\ny\nz\n")],        // one line becomes three
            &[(0, 0, "top\n")],            // insert at the start
            &[(24, 24, "end\n")],          // insert at the end
            &[(0, 24, "")],                // everything deleted
            &[(2, 3, "B"), (4, 5, "C")],   // neighbouring lines
            &[(2, 6, "b\nC")],             // a multi-line edit that keeps a line
        ];
        for edits in cases {
            let (new, e) = edited(old, edits);
            assert_eq!(unified_edits("p", old, &new, &e), unified("p", old, &new), "{edits:?}");
        }
        // No final newline, CRLF, and an empty old file.
        for (old, edits) in [
            ("a\nb", &[(2, 3, "B")][..]),
            ("a\nb", &[(3, 3, "\n")][..]),
            ("a\r\nb\r\nc\r\n", &[(3, 4, "B")][..]),
            ("", &[(0, 0, "x\n")][..]),
            ("", &[(0, 0, "x")][..]),
        ] {
            let (new, e) = edited(old, edits);
            assert_eq!(unified_edits("p", old, &new, &e), unified("p", old, &new), "{old:?} {edits:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// Random texts and random edits (text that may hold newlines, or none):
        /// the diff built from the edits is the whole-file diff.
        #[test]
        fn diff_from_random_edits_equals_the_whole_file_diff(
            lines in proptest::collection::vec(proptest::sample::select(&["a\n", "b\n", "ccc\n", "\n", "d"][..]), 0..40),
            unique in proptest::bool::ANY,
            cuts in proptest::collection::vec((0usize..200, 0usize..4, proptest::sample::select(&["", "x", "\n", "y\n", "a\nq\n", "b\n"][..])), 0..6),
            context in proptest::sample::select(&[0usize, 1, 3, 10][..]),
            blocks in proptest::sample::select(&[(PIECE_LINES, MYERS_LINES), (PIECE_LINES, MYERS_LINES), (0, MYERS_LINES), (2, 3), (1, 0)][..]),
        ) {
            // The patch must work. Where the lines of the old and of the new text are
            // each unique, there is no doubt about how to line them up, so the diff
            // must be the whole-file diff. Unique old lines alone are not enough: an
            // edit can write a copy of a line it left alone (`l20` `l21` `l22` becoming
            // `l22` `1` `l22`), and then the two diffs may pair different copies; the
            // diff from the edits must still change no more lines than the other.
            let old: String = if unique {
                lines.iter().enumerate().map(|(i, l)| if l.ends_with('\n') { format!("l{i}\n") } else { format!("l{i}") }).collect()
            } else {
                lines.concat()
            };
            let mut edits: Vec<(usize, usize, &str)> = Vec::new();
            let mut at = 0;
            for (gap, len, text) in cuts {
                let start = at + gap % (old.len() + 1 - at).max(1);
                if start > old.len() { break; }
                let end = (start + len).min(old.len());
                edits.push((start, end, text));
                at = end + 1;
                if at > old.len() { break; }
            }
            let (new, e) = edited(&old, &edits);
            let d = unified_edits_in("p", &old, &new, &e, context, blocks);
            proptest::prop_assert_eq!(patch(&old, &d), new.clone(), "{:?} {:?} {:?}\n{}", old, edits, blocks, d);
            // Smaller blocks (the limits, made small) only give a valid patch.
            if unique && blocks == (PIECE_LINES, MYERS_LINES) {
                let whole = unified_with("p", &old, &new, context);
                let distinct = |t: &str| {
                    let mut seen = std::collections::HashSet::new();
                    t.split_inclusive('\n').all(|l| seen.insert(l))
                };
                if distinct(&new) {
                    proptest::prop_assert_eq!(d, whole, "{:?} {:?}", old, edits);
                } else {
                    proptest::prop_assert!(changed(&d) <= changed(&whole), "{:?} {:?}\n{}\n{}", old, edits, d, whole);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]

        /// Two texts without a line in common: Myers' diff is one change of
        /// every line, the op the edits' diff writes for them without it.
        #[test]
        fn texts_without_a_common_line_are_one_change(
            a in proptest::collection::vec(proptest::sample::select(&["a\n", "b\n", "ccc\n", "\n", "a"][..]), 0..60),
            b in proptest::collection::vec(proptest::sample::select(&["x\n", "y\n", "zz\n", " \n", "x"][..]), 0..60),
        ) {
            // A line without `\n` stands last only.
            let text = |v: &[&str]| -> String {
                let mut t: String = v.iter().filter(|l| l.ends_with('\n')).copied().collect();
                t.extend(v.iter().filter(|l| !l.ends_with('\n')).take(1).copied());
                t
            };
            let (old, new) = (text(&a), text(&b));
            proptest::prop_assert!(disjoint(&old, &new));
            let mut want = Vec::new();
            push(&mut want, change(0, old.split_inclusive('\n').count(), 0, new.split_inclusive('\n').count()));
            let mut got = Vec::new();
            for op in line_ops(&old, &new) {
                push(&mut got, op);
            }
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn many_touching_edits_are_compared_in_blocks_and_shown_as_one_change() {
        // 3,000 edited lines in a row: blocks of PIECE_LINES, joined; the same
        // diff as the whole-file one (whose cost grows with the square).
        let old: String = (0..3000).map(|i| format!("print(x{i})\n")).collect();
        let edits: Vec<(usize, usize, &str)> = old.match_indices("print").map(|(at, _)| (at, at + 5, "log")).collect();
        let (new, e) = edited(&old, &edits);
        let d = unified_edits("p", &old, &new, &e);
        assert_eq!(d, unified("p", &old, &new));
        assert_eq!(d.lines().filter(|l| l.starts_with("@@")).count(), 1, "one hunk");
    }

    /// 60,000 edited lines in a row cost their number, not its square: as one
    /// block Myers' diff took 26 s in a release build; a watchdog fails the test
    /// if that comes back.
    #[test]
    fn the_diff_of_sixty_thousand_touching_edits_is_linear() {
        let old: String = (0..60_000).map(|i| format!("print(x{i})\n")).collect();
        let edits: Vec<(usize, usize, &str)> = old.match_indices("print").map(|(at, _)| (at, at + 5, "log")).collect();
        let (new, e) = edited(&old, &edits);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(unified_edits("p", &old, &new, &e)).unwrap());
        let d = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the diff within 60 s");
        assert!(d.starts_with("--- a/p\n+++ b/p\n@@ -1,60000 +1,60000 @@\n-print(x0)\n"), "{}", &d[..100]);
        assert_eq!(changed(&d), 120_000);
    }

    #[test]
    fn one_edit_over_the_line_by_line_limit_keeps_its_equal_ends() {
        // One edit of 3,000 lines, its first and last lines unchanged: above
        // MYERS_LINES the middle is one change, the ends stay context.
        let old: String = (0..3000).map(|i| format!("l{i}\n")).collect();
        let body: String = (0..3000).map(|i| if i == 0 || i == 2999 { format!("l{i}\n") } else { format!("n{i}\n") }).collect();
        let (new, e) = edited(&old, &[(0, old.len(), &body)]);
        let d = unified_edits("p", &old, &new, &e);
        assert_eq!(patch(&old, &d), new);
        assert!(d.starts_with("--- a/p\n+++ b/p\n@@ -1,3000 +1,3000 @@\n l0\n-l1\n"), "{}", &d[..200]);
        assert!(d.ends_with("+n2998\n l2999\n"), "{}", &d[d.len() - 200..]);
    }

    #[test]
    fn context_lines_set_the_lines_around_each_change() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let (new, e) = edited(old, &[(2, 3, "B"), (12, 13, "G")]);
        let zero = unified_edits_with("p", old, &new, &e, 0);
        assert_eq!(zero, "--- a/p\n+++ b/p\n@@ -2 +2 @@\n-b\n+B\n@@ -7 +7 @@\n-g\n+G\n");
        assert_eq!(zero, unified_with("p", old, &new, 0));
        let one = unified_edits_with("p", old, &new, &e, 1);
        assert_eq!(one, "--- a/p\n+++ b/p\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n");
        // Ten lines of context join the two hunks and reach both ends of the file.
        let ten = unified_edits_with("p", old, &new, &e, 10);
        assert!(ten.starts_with("--- a/p\n+++ b/p\n@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\n"), "{ten}");
        assert_eq!(unified_edits("p", old, &new, &e), unified_edits_with("p", old, &new, &e, CONTEXT));
    }

    #[test]
    fn context_above_the_limit_is_refused_naming_it() {
        assert_eq!(crate::request::check_context(10, "contextLines").unwrap(), 10);
        assert_eq!(crate::request::check_context(0, "-C").unwrap(), 0);
        let e = crate::request::check_context(11, "contextLines").unwrap_err().to_string();
        assert_eq!(e, "contextLines is 11; the limit is 10 context lines: give 0 to 10 (default 3)");
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let d = unified("a", "f(1)", "g(1)");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
    }
}
