//! Unified diffs of a planned rewrite, with `a/` and `b/` prefixes so that
//! `git apply` accepts them, rendered once per file by the worker that planned it.

use similar::TextDiff;

/// Lines of context around each hunk.
pub const CONTEXT: usize = 3;

/// Longest diff line kept whole in a stored preview; longer lines (minified
/// bundles) are cut and counted, so a preview's size stays bounded. The edit
/// itself is never cut, and `ast-edit show --full` re-renders the whole diff.
pub const MAX_DIFF_LINE: usize = 4096;

/// [`unified`] with every line longer than `max_line` bytes cut to `max_line`
/// bytes plus a marker saying how much was cut. Returns the diff and how many
/// lines were cut (a diff with cut lines is for reading, not for `git apply`).
pub fn unified_bounded(path: &str, old: &str, new: &str, max_line: usize) -> (String, usize) {
    let full = unified(path, old, new);
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
        let mut end = max_line;
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(&body[..end]);
        out.push_str(&format!(" … [{} more bytes cut]", body.len() - end));
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    (out, cut)
}

/// The unified diff from `old` to `new` for `path` (display path).
pub fn unified(path: &str, old: &str, new: &str) -> String {
    // An absolute display path (outside the working directory) must not give `a//x`.
    let path = path.trim_start_matches('/');
    let diff = TextDiff::from_lines(old, new);
    diff.unified_diff()
        .context_radius(CONTEXT)
        .missing_newline_hint(true)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
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
    fn long_lines_are_cut_and_counted() {
        let old = format!("{}\n", "a".repeat(100));
        let new = format!("{}\n", "b".repeat(100));
        let (d, cut) = unified_bounded("m.js", &old, &new, 10);
        assert_eq!(cut, 2);
        assert!(d.contains(&format!("-{} … [91 more bytes cut]\n", "a".repeat(9))), "{d}");
        assert_eq!(unified_bounded("m.js", "a\n", "b\n", 10), (unified("m.js", "a\n", "b\n"), 0));
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let d = unified("a", "f(1)", "g(1)");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
    }
}
