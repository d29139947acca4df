//! Unified diffs of a planned rewrite, with `a/` and `b/` prefixes so that
//! `git apply` accepts them, rendered once per file by the worker that planned it.

use similar::TextDiff;

/// Lines of context around each hunk.
pub const CONTEXT: usize = 3;

/// The unified diff from `old` to `new` for `path` (display path).
pub fn unified(path: &str, old: &str, new: &str) -> String {
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
    fn missing_final_newline_is_marked() {
        let d = unified("a", "f(1)", "g(1)");
        assert!(d.contains("\\ No newline at end of file"), "{d}");
    }
}
