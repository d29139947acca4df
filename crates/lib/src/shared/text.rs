//! Text budgets shared by every renderer: counted nouns, cutting a long line,
//! and fitting a preview's diffs into a budget. The stored diff (`diff`), the
//! human output (`cli::print`) and the MCP preview text (`mcp::preview_text`)
//! each set their own limits and notes; the counting lives here once.

/// Cap on the characters of an `ast_edit` preview text (before the MCP server's reminder), and
/// of every other result text (`resolve`, `ast_pending`, `ast_undo`, errors). The
/// summary, the changed files, skipped files and warnings come first; diffs fill
/// what is left, whole lines at a time, and a note says how to see the rest
/// (`ast_pending`). `structuredContent` has its own
/// budget, [`STRUCTURED_CHAR_BUDGET`].
pub const PREVIEW_CHAR_BUDGET: usize = 20_000;

/// Cap on the characters of compact JSON in the `structuredContent` of any tool
/// result (the `ast_edit` preview, `resolve`, `ast_pending`, `ast_undo`).
pub const STRUCTURED_CHAR_BUDGET: usize = 40_000;

/// Where the lines of a text start: its line breaks, found in one pass (and as
/// the text grows, [`Breaks::grow`]), so the start of the line that holds an
/// offset is a binary search, not a scan back over a line that may be the
/// whole file (a minified file, thousands of edits on one line).
#[derive(Clone, Debug, Default)]
pub struct Breaks(Vec<usize>);

impl Breaks {
    /// The line breaks of `text`.
    pub fn of(text: &str) -> Breaks {
        Breaks(memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    /// Records the breaks of `added`, appended at offset `at` (the text's
    /// length before it).
    pub fn grow(&mut self, at: usize, added: &str) {
        self.0.extend(memchr::memchr_iter(b'\n', added.as_bytes()).map(|k| at + k));
    }

    /// Where the line that holds offset `at` starts.
    pub fn line_start(&self, at: usize) -> usize {
        match self.0.partition_point(|&b| b < at) {
            0 => 0,
            k => self.0[k - 1] + 1,
        }
    }

    /// The 1-based line of offset `at` (`line_of`).
    pub fn line(&self, at: usize) -> usize {
        self.0.partition_point(|&b| b < at) + 1
    }

    /// How many line breaks the text has.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// Where the 0-based line `line` starts: 0 for the first, else just after
    /// the line break before it; `None` past the last line break.
    pub fn start_of(&self, line: usize) -> Option<usize> {
        match line {
            0 => Some(0),
            k => self.0.get(k - 1).map(|b| b + 1),
        }
    }
}

/// Lines and columns of offsets of one text, as [`line_of`] and [`column_of`]
/// give them, in O(log n) each, and a column in time linear in the distance
/// from the offset asked before it on the same line (offsets asked in order
/// cost one pass over a long line in all).
pub(crate) struct Locator<'t> {
    text: &'t str,
    breaks: Breaks,
    /// The last offset asked and its column.
    last: (usize, usize),
}

impl<'t> Locator<'t> {
    pub(crate) fn new(text: &'t str) -> Locator<'t> {
        Locator { text, breaks: Breaks::of(text), last: (usize::MAX, 0) }
    }

    /// The 1-based line of `at`.
    pub(crate) fn line(&self, at: usize) -> usize {
        self.breaks.line(at)
    }

    /// The 1-based column of `at` ([`column_of`]).
    pub(crate) fn column(&mut self, at: usize) -> usize {
        let start = self.breaks.line_start(at);
        let start = if start == 0 && self.text.starts_with('\u{feff}') { '\u{feff}'.len_utf8().min(at) } else { start };
        let (from, col) = match self.last {
            (last, col) if last != usize::MAX && last >= start && last <= at => (last, col),
            _ => (start, 1),
        };
        let col = col + self.text[from..at].chars().count();
        self.last = (at, col);
        col
    }
}

/// `a`, `a and b`, `a, b and c` (with `word` "and"; or "or").
pub fn joined(items: &[&str], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} {word} {last}", rest.join(", ")),
    }
}

/// `1 file`, `2 files`; `2 matches` (a word ending in s, sh, ch, x or z takes
/// es); `2 bodies` (a consonant and y becomes ies).
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        return format!("1 {word}");
    }
    if let Some(stem) = word.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        return format!("{n} {stem}ies");
    }
    let es = ["s", "sh", "ch", "x", "z"].iter().any(|end| word.ends_with(end));
    format!("{n} {word}{}", if es { "es" } else { "s" })
}

/// 1-based line of byte offset `at` of `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() + 1
}

/// 1-based column, in characters, of byte offset `at` of `text` (a UTF-8 BOM
/// at the start of the text is not counted): what [`Locator::column`] gives.
#[cfg(test)]
pub(crate) fn column_of(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let start = if start == 0 && text.starts_with('\u{feff}') { '\u{feff}'.len_utf8().min(at) } else { start };
    text[start..at].chars().count() + 1
}

/// A byte count for people: `512 B`, `12.0 KiB`, `301.4 MiB`, `1.0 GiB`.
pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// How a cut is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// UTF-8 bytes (the cut never splits a character).
    Bytes,
    /// Characters.
    Chars,
}

/// `line` cut to at most `max` units: the head kept, and how many units were cut
/// (in the same unit). `None` when the line fits.
pub fn cut(line: &str, max: usize, unit: Unit) -> Option<(&str, usize)> {
    match unit {
        Unit::Bytes => {
            if line.len() <= max {
                return None;
            }
            let mut end = max;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            Some((&line[..end], line.len() - end))
        }
        Unit::Chars => {
            let (at, _) = line.char_indices().nth(max)?;
            Some((&line[..at], line[at..].chars().count()))
        }
    }
}

/// `word` after `a` or `an` (by its first letter: `an` before a, e, i, o;
/// node kinds such as `unary expression` take `a`).
pub(crate) fn a(word: &str) -> String {
    let an = word.starts_with(['a', 'e', 'i', 'o']);
    format!("{} {word}", if an { "an" } else { "a" })
}

/// `s` on one line: every run of whitespace (line breaks included) becomes one
/// space, none at the ends.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s`, or its first `max` characters followed by `…` when it is longer.
pub(crate) fn ellipsized(s: &str, max: usize) -> String {
    match cut(s, max, Unit::Chars) {
        Some((head, _)) => format!("{head}…"),
        None => s.to_string(),
    }
}

/// `line`, or its head followed by ` … [N more <what> cut<tail>]` when it is
/// longer than `max` units.
pub fn cut_with_note(line: &str, max: usize, unit: Unit, tail: &str) -> String {
    match cut(line, max, unit) {
        None => line.to_string(),
        Some((head, rest)) => {
            let what = match unit {
                Unit::Bytes => "bytes",
                Unit::Chars => "characters",
            };
            format!("{head} … [{rest} more {what} cut{tail}]")
        }
    }
}

/// What a [`Fit`] left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Diff lines not shown.
    pub lines: usize,
    /// Files none of whose lines were shown.
    pub files: usize,
    /// Files shown in part.
    pub partial_files: usize,
}

/// Fits a preview's diffs into a budget, file after file: each line goes to
/// the caller's `show` while it accepts them; from the first line it refuses,
/// every later line is hidden too, so what is shown is a prefix of the preview.
/// The human preview (a line budget) and the MCP text (a character budget) are
/// this walk with a different `show`.
#[derive(Debug, Default)]
pub struct Fit {
    hidden: Hidden,
}

impl Fit {
    /// Offers the lines of one file's diff (line ends removed) to `show`; returns
    /// true when at least one was shown.
    pub fn file<'a>(&mut self, diff: &'a str, mut show: impl FnMut(&'a str) -> bool) -> bool {
        let mut shown_here = false;
        let mut hidden_here = 0usize;
        for raw in diff.split_inclusive('\n') {
            let line = raw.trim_end_matches(['\n', '\r']);
            if self.hidden.lines > 0 || !show(line) {
                self.hidden.lines += 1;
                hidden_here += 1;
                continue;
            }
            shown_here = true;
        }
        if hidden_here > 0 {
            if shown_here {
                self.hidden.partial_files += 1;
            } else {
                self.hidden.files += 1;
            }
        }
        shown_here
    }

    /// What was hidden so far.
    pub fn hidden(&self) -> Hidden {
        self.hidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locator_gives_the_lines_and_columns_of_line_of_and_column_of_in_any_order() {
        for text in ["\u{feff}ab\ncé\n\nxyz", "a\nbb", ""] {
            let at_of: Vec<usize> = (0..=text.len()).filter(|&k| text.is_char_boundary(k)).collect();
            let mut l = Locator::new(text);
            for at in at_of.iter().chain(at_of.iter().rev()) {
                assert_eq!((l.line(*at), l.column(*at)), (line_of(text, *at), column_of(text, *at)), "{text:?} {at}");
            }
        }
    }

    #[test]
    fn breaks_find_the_line_start_of_any_offset_as_a_scan_back_would() {
        let text = "ab\n\ncd\nef";
        let mut grown = Breaks::of("ab\n");
        grown.grow(3, "\ncd\nef");
        for b in [Breaks::of(text), grown] {
            for at in 0..=text.len() {
                let scan = text[..at].rfind('\n').map_or(0, |k| k + 1);
                assert_eq!(b.line_start(at), scan, "{at}");
                assert_eq!(b.start_of(b.line(at) - 1), Some(scan), "{at}");
            }
            assert_eq!((b.count(), b.start_of(3), b.start_of(4)), (3, Some(7), None));
        }
    }

    #[test]
    fn cuts_keep_whole_characters_and_count_the_rest() {
        assert_eq!(cut("abc", 3, Unit::Bytes), None);
        assert_eq!(cut("abcd", 3, Unit::Bytes), Some(("abc", 1)));
        // `é` is two bytes: a cut at byte 2 would split it.
        assert_eq!(cut("aéb", 2, Unit::Bytes), Some(("a", 3)));
        assert_eq!(cut("aéb", 2, Unit::Chars), Some(("aé", 1)));
        assert_eq!(cut("aé", 2, Unit::Chars), None);
        assert_eq!(cut_with_note("abcd", 2, Unit::Chars, ""), "ab … [2 more characters cut]");
        assert_eq!(cut_with_note("abcd", 2, Unit::Bytes, "; see --full"), "ab … [2 more bytes cut; see --full]");
    }

    #[test]
    fn fit_shows_a_prefix_and_counts_files() {
        let diffs = ["a\nb\n", "c\nd\n", "e\n"];
        let mut shown = Vec::new();
        let mut fit = Fit::default();
        let any: Vec<bool> = diffs
            .iter()
            .map(|d| {
                fit.file(d, |l| {
                    let fits = shown.len() < 3;
                    if fits {
                        shown.push(l);
                    }
                    fits
                })
            })
            .collect();
        assert_eq!(shown, ["a", "b", "c"]);
        assert_eq!(any, [true, true, false]);
        assert_eq!(fit.hidden(), Hidden { lines: 2, files: 1, partial_files: 1 });
    }

    #[test]
    fn byte_counts_read_in_binary_units() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(12 * 1024 + 10), "12.0 KiB");
        assert_eq!(human_bytes(1 << 30), "1.0 GiB");
    }

    #[test]
    fn plural_is_singular_for_one() {
        assert_eq!(plural(1, "file"), "1 file");
        assert_eq!(plural(0, "file"), "0 files");
    }

    #[test]
    fn plural_of_words_ending_in_a_hiss_takes_es() {
        assert_eq!(plural(2, "nested match"), "2 nested matches");
        assert_eq!(plural(1, "nested match"), "1 nested match");
        assert_eq!(plural(3, "pass"), "3 passes");
        assert_eq!(plural(2, "box"), "2 boxes");
        assert_eq!(plural(2, "crash"), "2 crashes");
        assert_eq!(plural(2, "replacement"), "2 replacements");
        assert_eq!(plural(2, "leftover temp file"), "2 leftover temp files");
    }

    #[test]
    fn plural_of_a_consonant_and_y_takes_ies() {
        assert_eq!(plural(2, "body"), "2 bodies");
        assert_eq!(plural(1, "body"), "1 body");
        assert_eq!(plural(2, "key"), "2 keys");
    }
}
