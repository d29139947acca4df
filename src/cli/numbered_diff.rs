//! ast-grep's drawing of a diff, for the reports that stand in for ast-grep's
//! (`scan --report-style rich`'s fixes, `test`'s snapshot diffs): hunks of
//! `context` lines under `@@ -a,n +b,m @@` (0-based starts), each line with its
//! number in the old and in the new text, drawn with the `similar` version
//! ast-grep 0.51.1 draws with, so the lines are the same (docs/RULES.md,
//! "Reports").

use std::borrow::Cow;
use std::io::{self, Write};

use similar::{ChangeTag, DiffOp, TextDiff};

/// ast-grep's colours (ANSI codes) for each part.
const HUNK: &str = "34";
const DIM: &str = "2";
const INSERT: &str = "38;5;35";
const DELETE: &str = "38;5;161";
const INSERT_EMPHASIS: &str = "1;48;5;158;38;5;35";
const DELETE_EMPHASIS: &str = "1;48;5;225;38;5;161";

/// Draws the diff from `old` to `new` on `out`. Coloured (for a terminal),
/// what could drive the terminal in the texts is shown as `?`; plain, the
/// lines keep their bytes.
pub fn draw(out: &mut impl Write, old: &str, new: &str, context: usize, color: bool) -> io::Result<()> {
    let diff = TextDiff::from_lines(old, new);
    for group in diff.grouped_ops(context) {
        let Some(last) = group.last() else { continue };
        let (old_width, new_width) = (digits(last.old_range().end), digits(last.new_range().end));
        writeln!(out, "{}", paint(color, HUNK, &header(&group)))?;
        for op in &group {
            for change in diff.iter_inline_changes(op) {
                let (sign, style, emphasis, number) = match change.tag() {
                    ChangeTag::Delete => ("-", DELETE, DELETE_EMPHASIS, DELETE),
                    ChangeTag::Insert => ("+", INSERT, INSERT_EMPHASIS, INSERT),
                    ChangeTag::Equal => (" ", "", "", DIM),
                };
                write!(
                    out,
                    "{} {}│{}",
                    paint(color, number, &index(change.old_index(), old_width)),
                    paint(color, number, &index(change.new_index(), new_width)),
                    paint(color, style, sign)
                )?;
                for (emphasized, value) in change.iter_strings_lossy() {
                    let value = if color { Cow::Owned(ast_edit::app::quote::shown_source(&value).into_owned()) } else { value };
                    write!(out, "{}", paint(color, if emphasized { emphasis } else { style }, &value))?;
                }
                if change.missing_newline() {
                    writeln!(out)?;
                }
            }
        }
    }
    Ok(())
}

/// The digits of `n`: the width of the line numbers of a hunk that ends there.
fn digits(n: usize) -> usize {
    n.checked_ilog10().unwrap_or(0) as usize + 1
}

/// A line's number (1-based), left-aligned in `width`; blanks for none.
fn index(at: Option<usize>, width: usize) -> String {
    match at {
        Some(i) => format!("{:<width$}", i + 1),
        None => format!("{:width$}", ""),
    }
}

/// `@@ -old_start,old_len +new_start,new_len @@`, the starts 0-based as ast-grep writes them.
fn header(group: &[DiffOp]) -> String {
    let (old_start, new_start) = (group[0].old_range().start, group[0].new_range().start);
    let (old_len, new_len) = group.iter().fold((0, 0), |(o, n), op| (o + op.old_range().len(), n + op.new_range().len()));
    format!("@@ -{old_start},{old_len} +{new_start},{new_len} @@")
}

/// `s` in the colour `code` when `color` is on and there is a colour.
fn paint(color: bool, code: &str, s: &str) -> String {
    if code.is_empty() { s.to_string() } else { super::print::paint(color, code, s) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(old: &str, new: &str, context: usize) -> String {
        let mut out = Vec::new();
        draw(&mut out, old, new, context, false).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_changed_line_is_numbered_on_each_side_under_a_zero_based_header() {
        assert_eq!(drawn("print(x)\nprint(y)\n", "log(X)\nprint(y)\n", 3), "@@ -0,2 +0,2 @@\n1  │-print(x)\n  1│+log(X)\n2 2│ print(y)\n");
    }

    #[test]
    fn a_last_line_without_a_line_break_ends_its_line() {
        assert_eq!(drawn("a\nb", "a\nc", 3), "@@ -0,2 +0,2 @@\n1 1│ a\n2  │-b\n  2│+c\n");
    }

    #[test]
    fn far_changes_are_two_hunks_with_the_context_asked() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "L2\n").replace("l19\n", "L19\n");
        let d = drawn(&old, &new, 1);
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert!(d.starts_with("@@ -0,3 +0,3 @@\n1 1│ l1\n2  │-l2\n  2│+L2\n3 3│ l3\n"), "{d}");
    }
}
