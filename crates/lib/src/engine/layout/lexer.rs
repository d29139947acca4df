//! The layout lexer (docs/DESIGN.md section 2.5.9): cuts code, or a fragment
//! of it that may not parse alone (a rewrite template, a replacement), into
//! tokens: words, numbers, runs of operator characters, brackets, `,` and `;`,
//! and *opaque* tokens, string literals with their escapes and comments, whose
//! inside is never cut. Minimal rewrites align the matched code's tokens with
//! the replacement's, and the template check (`engine/layout/reference.rs`) cuts a
//! template into the tokens it says.

use ast_grep_language::SupportLang;

/// How one language writes comments and literals, for [`lex`].
#[derive(Clone, Copy, Default)]
pub(in crate::engine) struct Lexicon {
    /// `//` and `/* */` comments.
    pub(in crate::engine) slash_comments: bool,
    /// `/* */` comments nest (Rust).
    pub(in crate::engine) nested_block: bool,
    /// `#` comments to the end of the line (Python).
    pub(in crate::engine) hash_comments: bool,
    /// `"""` and `'''` strings (Python; Java, Kotlin text blocks).
    pub(in crate::engine) triple: bool,
    /// `'` starts a string (not Rust's lifetimes).
    pub(in crate::engine) single_quote: bool,
    /// Rust: raw strings `r#"..."#`, lifetimes `'a`, strings over lines.
    pub(in crate::engine) rust: bool,
    /// C++ raw strings `R"d(...)d"`.
    pub(in crate::engine) cpp_raw: bool,
    /// Backticks: `Some(true)` template strings with `${}` (JavaScript),
    /// `Some(false)` raw strings without escapes (Go).
    pub(in crate::engine) backtick: Option<bool>,
    /// C#'s verbatim strings `@"..."`.
    pub(in crate::engine) verbatim_at: bool,
}

/// The lexicon of `lang`, or `None` when minimal rewrites keep ast-grep's output
/// for it.
pub(in crate::engine) fn lexicon(lang: SupportLang) -> Option<Lexicon> {
    let c = Lexicon { slash_comments: true, single_quote: true, ..Lexicon::default() };
    Some(match lang {
        SupportLang::Python => Lexicon { hash_comments: true, triple: true, single_quote: true, ..Lexicon::default() },
        SupportLang::Rust => Lexicon { nested_block: true, rust: true, single_quote: false, ..c },
        SupportLang::C => c,
        SupportLang::Cpp => Lexicon { cpp_raw: true, ..c },
        SupportLang::Go => Lexicon { backtick: Some(false), ..c },
        SupportLang::Java | SupportLang::Kotlin => Lexicon { triple: true, ..c },
        SupportLang::CSharp => Lexicon { verbatim_at: true, ..c },
        SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx => Lexicon { backtick: Some(true), ..c },
        _ => return None,
    })
}

/// A token: its byte range and the bracket depth before it (relative to the
/// start of the text it was cut from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::engine) struct Tok {
    pub(in crate::engine) start: usize,
    pub(in crate::engine) end: usize,
    pub(in crate::engine) depth: i32,
}

/// Characters that form runs of operators (`->`, `::`, `+=`, `?.`).
fn is_op(c: u8) -> bool {
    b"+-*/%=<>!&|^~?:.@#\\".contains(&c)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// How many bytes of blank start at `b[i..]`: whitespace, and line
/// continuations (a `\` ending a line: C's, which no tree holds, and Python's,
/// which its tree keeps as a token). Blank is what lies between tokens: the
/// layout lexer, the minimal layout and the template check read it alike.
pub(in crate::engine) fn blank_len(b: &[u8], i: usize) -> usize {
    let mut j = i;
    loop {
        match (b.get(j), b.get(j + 1), b.get(j + 2)) {
            (Some(c), _, _) if c.is_ascii_whitespace() => j += 1,
            (Some(b'\\'), Some(b'\n'), _) => j += 2,
            (Some(b'\\'), Some(b'\r'), Some(b'\n')) => j += 3,
            _ => return j - i,
        }
    }
}

/// True when `text` is all blank ([`blank_len`]).
pub(in crate::engine) fn all_blank(text: &str) -> bool {
    blank_len(text.as_bytes(), 0) == text.len()
}

/// True when `text` ends a line: it holds a line break that is not a line
/// continuation (`\` and the line break, [`blank_len`]).
pub(in crate::engine) fn breaks_line(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| c == b'\n' && !(i >= 1 && b[i - 1] == b'\\' || i >= 2 && b[i - 1] == b'\r' && b[i - 2] == b'\\'))
}

/// The tokens of `text` (blanks between them, [`blank_len`], are the gaps).
pub(in crate::engine) fn lex(text: &str, lx: &Lexicon) -> Vec<Tok> {
    let b = text.as_bytes();
    let (mut i, mut depth, mut out) = (0usize, 0i32, Vec::new());
    while i < b.len() {
        let c = b[i];
        let blank = blank_len(b, i);
        if blank > 0 {
            i += blank;
            continue;
        }
        let start = i;
        let before = depth;
        i = match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                i + 1
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                i + 1
            }
            b',' | b';' => i + 1,
            _ => opaque_end(b, i, lx).unwrap_or_else(|| plain_end(b, i)),
        };
        out.push(Tok { start, end: i.min(b.len()), depth: before });
    }
    out
}

/// The end of a word, number or operator run starting at `i`.
fn plain_end(b: &[u8], i: usize) -> usize {
    let c = b[i];
    let mut j = i + 1;
    if is_word(c) {
        while j < b.len() && (is_word(b[j]) || (c.is_ascii_digit() && b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit))) {
            j += 1;
        }
    } else if is_op(c) {
        while j < b.len() && is_op(b[j]) {
            j += 1;
        }
    }
    j
}

/// The end of a string literal or comment starting at `i`, if one starts there.
fn opaque_end(b: &[u8], i: usize, lx: &Lexicon) -> Option<usize> {
    let at = |k: usize| b.get(i + k).copied();
    let rest = &b[i..];
    match b[i] {
        b'/' if lx.slash_comments && at(1) == Some(b'/') => Some(line_end(b, i)),
        b'/' if lx.slash_comments && at(1) == Some(b'*') => Some(block_end(b, i, lx.nested_block)),
        b'#' if lx.hash_comments => Some(line_end(b, i)),
        b'"' | b'\'' if lx.triple && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''")) => Some(find_after(b, i + 3, &rest[..3], true)),
        b'"' => Some(quoted_end(b, i, b'"', lx.rust)),
        b'\'' if lx.single_quote => Some(quoted_end(b, i, b'\'', false)),
        b'\'' if lx.rust => Some(rust_quote_end(b, i)),
        b'`' => match lx.backtick {
            Some(true) => Some(template_end(b, i)),
            Some(false) => Some(find_after(b, i + 1, b"`", false)),
            None => None,
        },
        b'@' if lx.verbatim_at && at(1) == Some(b'"') => Some(verbatim_end(b, i + 2)),
        b'r' | b'b' | b'c' if lx.rust => rust_raw_end(b, i),
        b'R' | b'L' | b'u' | b'U' if lx.cpp_raw => cpp_raw_end(b, i),
        _ => None,
    }
}

fn line_end(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k)
}

/// After `/*` at `i`: past the matching `*/` (nested ones counted when `nested`).
fn block_end(b: &[u8], i: usize, nested: bool) -> usize {
    let (mut j, mut level) = (i + 2, 1);
    while j < b.len() {
        if b[j..].starts_with(b"*/") {
            level -= 1;
            j += 2;
            if level == 0 {
                return j;
            }
        } else if nested && b[j..].starts_with(b"/*") {
            level += 1;
            j += 2;
        } else {
            j += 1;
        }
    }
    b.len()
}

/// Past the first `end` at or after `j` (a backslash escaping the next byte
/// when `escapes`); the end of the text when there is none.
fn find_after(b: &[u8], mut j: usize, end: &[u8], escapes: bool) -> usize {
    while j < b.len() {
        if escapes && b[j] == b'\\' {
            j += 2;
        } else if b[j..].starts_with(end) {
            return j + end.len();
        } else {
            j += 1;
        }
    }
    b.len()
}

/// A `q`-quoted string with backslash escapes; it ends at a line break unless
/// `multiline` (then the token is cut short, which only loses restorations).
fn quoted_end(b: &[u8], i: usize, q: u8, multiline: bool) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            c if c == q => return j + 1,
            b'\n' if !multiline => return j,
            _ => j += 1,
        }
    }
    b.len()
}

/// Rust `'`: a char literal (`'a'`, `'\n'`, `'é'`) or a lifetime (`'a`).
fn rust_quote_end(b: &[u8], i: usize) -> usize {
    if b.get(i + 1) == Some(&b'\\') {
        return quoted_end(b, i, b'\'', false);
    }
    let ch = b.get(i + 1).map_or(1, |&c| utf8_len(c));
    if b.get(i + 1 + ch) == Some(&b'\'') {
        return i + 2 + ch;
    }
    let mut j = i + 1;
    while j < b.len() && is_word(b[j]) {
        j += 1;
    }
    j.max(i + 1)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Rust raw strings (`r"…"`, `r#"…"#`, `br`, `cr`) at `i`, if one starts there.
fn rust_raw_end(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_word(b[i - 1]) {
        return None;
    }
    let mut j = i + if b[i] == b'r' {
        1
    } else if b.get(i + 1) == Some(&b'r') {
        2
    } else {
        return None;
    };
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    Some(find_after(b, j + 1, &close, false))
}

/// C++ raw strings (`R"d(…)d"`, with an encoding prefix) at `i`, if one starts there.
fn cpp_raw_end(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_word(b[i - 1]) {
        return None;
    }
    let r = b[i..].iter().take(3).position(|&c| c == b'R')?;
    let open = i + r + 1;
    if b.get(open) != Some(&b'"') || !b[i..i + r].iter().all(|c| b"Lu8U".contains(c)) {
        return None;
    }
    let paren = open + 1 + b[open + 1..].iter().take(17).position(|&c| c == b'(')?;
    let mut close = vec![b')'];
    close.extend_from_slice(&b[open + 1..paren]);
    close.push(b'"');
    Some(find_after(b, paren + 1, &close, false))
}

/// C# `@"…"` from the first byte of its content: `""` is a quote.
fn verbatim_end(b: &[u8], mut j: usize) -> usize {
    while j < b.len() {
        if b[j] == b'"' {
            if b.get(j + 1) == Some(&b'"') {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// A JavaScript template string at `i`, with `${…}` holding code that may hold
/// strings and template strings of its own.
fn template_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'`' => return j + 1,
            b'$' if b.get(j + 1) == Some(&b'{') => j = substitution_end(b, j + 2),
            _ => j += 1,
        }
    }
    b.len()
}

/// Past the `}` that closes a `${` whose code starts at `j`.
fn substitution_end(b: &[u8], mut j: usize) -> usize {
    let mut level = 1;
    while j < b.len() {
        match b[j] {
            b'{' => level += 1,
            b'}' => {
                level -= 1;
                if level == 0 {
                    return j + 1;
                }
            }
            b'"' | b'\'' => {
                j = quoted_end(b, j, b[j], false);
                continue;
            }
            b'`' => {
                j = template_end(b, j);
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str, lang: SupportLang) -> Vec<&str> {
        let lx = lexicon(lang).unwrap();
        lex(src, &lx).iter().map(|t| &src[t.start..t.end]).collect()
    }

    #[test]
    fn strings_and_comments_are_single_tokens() {
        assert_eq!(texts(r#"f("a  b", 'c d') # x  y"#, SupportLang::Python), ["f", "(", "\"a  b\"", ",", "'c d'", ")", "# x  y"]);
        assert_eq!(texts("x = \"\"\"a\n  b\"\"\"", SupportLang::Python), ["x", "=", "\"\"\"a\n  b\"\"\""]);
        assert_eq!(texts(r###"r#"a " b"# + 'x' + &'a s"###, SupportLang::Rust), ["r#\"a \" b\"#", "+", "'x'", "+", "&", "'a", "s"]);
        assert_eq!(texts("/* a /* b */ c */ d", SupportLang::Rust), ["/* a /* b */ c */", "d"]);
        assert_eq!(texts("`a ${f(\"}\", `b ${c}`)} d` + e", SupportLang::JavaScript), ["`a ${f(\"}\", `b ${c}`)} d`", "+", "e"]);
        assert_eq!(texts("`a\\` b` c", SupportLang::Go)[0], "`a\\`");
        assert_eq!(texts("R\"x(a \" b)x\" + y", SupportLang::Cpp), ["R\"x(a \" b)x\"", "+", "y"]);
        assert_eq!(texts("@\"a\\\" + \"b\"\"c\"", SupportLang::CSharp), ["@\"a\\\"", "+", "\"b\"", "\"c\""]);
    }

    #[test]
    fn operators_run_together_and_brackets_count_depth() {
        let lx = lexicon(SupportLang::Rust).unwrap();
        let src = "a->b::c(d, [e])";
        let toks = lex(src, &lx);
        let words: Vec<_> = toks.iter().map(|t| (&src[t.start..t.end], t.depth)).collect();
        assert_eq!(words, [("a", 0), ("->", 0), ("b", 0), ("::", 0), ("c", 0), ("(", 0), ("d", 1), (",", 1), ("[", 1), ("e", 2), ("]", 2), (")", 1)]);
    }
}
