//! Minimal rewrites (docs/DESIGN.md section 2.5.9): the replacement ast-grep's
//! template gives, written with the matched code's own layout wherever the two
//! line up, so that an edit changes only the tokens it really changes.
//!
//! ast-grep's template re-creates the text between captures: a rewrite of
//! `$X.unwrap()` joins a chain split over lines, `warnings.warn($MSG, $CAT)`
//! squeezes a multi-line call onto one line, and a block capture re-indented to
//! the template's column can leave a Python method body at class depth. Here the
//! matched text and ast-grep's output are both cut into tokens, the two token
//! sequences are aligned (Myers' diff, the longest common subsequence), and each
//! gap between two output tokens that align with two *adjacent* original tokens
//! takes the original's gap, re-indented by how far the line it follows has moved
//! (so a block keeps its structure at its new depth). Wherever tokens are
//! inserted or removed the output's whitespace is kept, but for a line break
//! the original had there. A `,` that the template adds right after a capture
//! that already ends in `,` is left out, and a trailing `,` it drops is kept.
//!
//! What is a token, and why that is exact enough:
//! - A small lexer per language ([`Lexicon`]) reads words, numbers, runs of
//!   operator characters, brackets, and *opaque* tokens: string literals (with
//!   escapes, Python's triple quotes, Rust's raw strings and lifetimes, C++ raw
//!   strings, Go's raw strings, JavaScript's template strings with nested `${}`,
//!   C#'s verbatim strings) and comments. Whitespace inside an opaque token is
//!   never a gap, so a change the user makes inside a string or comment is
//!   written as asked. The lexer is used on both sides because an output
//!   fragment often does not parse alone.
//! - A gap is taken from the original only where the original's syntax tree
//!   agrees that it lies between two tokens of code: the smallest node spanning
//!   it must have children and not be a string, comment, heredoc, regex or
//!   template-string node (but for two whole strings side by side). So a lexer
//!   that misreads a string (a regex holding a quote, a nested quote in an
//!   interpolation) can only lose restorations, never restore whitespace inside
//!   a literal.
//! - A multi-line literal that ast-grep-core re-indented with its capture (a
//!   docstring in a moved body) is written as the original had it, unless the
//!   fix template spells it out: re-indenting it changes its value. Comments
//!   the output lost between two aligned tokens are kept.
//! - A line break is restored only where both sides are inside brackets or both
//!   are not (relative to the match), so a break that meant "new statement" in
//!   the original never lands where a statement cannot end (Python's indentation
//!   is meaning; JavaScript and Go insert semicolons at line ends).
//! - Languages without a lexicon here (heredocs, indentation-sensitive markup,
//!   long-bracket strings) keep ast-grep's output, as does a match too large to
//!   align ([`MAX_ALIGN_TOKENS`]).

use std::ops::Range;

use ast_grep_language::SupportLang;

/// Most tokens, on both sides together, left to align once the common first
/// and last tokens are set aside (docs/DESIGN.md section 7). The alignment costs
/// about (tokens x differences) steps, so a larger middle (a huge match whose
/// rewrite reorders it) keeps ast-grep's output rather than spend seconds.
pub const MAX_ALIGN_TOKENS: usize = 20_000;

/// How one language writes comments and literals, for [`lex`].
#[derive(Clone, Copy, Default)]
struct Lexicon {
    /// `//` and `/* */` comments.
    slash_comments: bool,
    /// `/* */` comments nest (Rust).
    nested_block: bool,
    /// `#` comments to the end of the line (Python).
    hash_comments: bool,
    /// `"""` and `'''` strings (Python; Java, Kotlin text blocks).
    triple: bool,
    /// `'` starts a string (not Rust's lifetimes).
    single_quote: bool,
    /// Rust: raw strings `r#"..."#`, lifetimes `'a`, strings over lines.
    rust: bool,
    /// C++ raw strings `R"d(...)d"`.
    cpp_raw: bool,
    /// Backticks: `Some(true)` template strings with `${}` (JavaScript),
    /// `Some(false)` raw strings without escapes (Go).
    backtick: Option<bool>,
    /// C#'s verbatim strings `@"..."`.
    verbatim_at: bool,
}

/// The lexicon of `lang`, or `None` when minimal rewrites keep ast-grep's output
/// for it.
fn lexicon(lang: SupportLang) -> Option<Lexicon> {
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
struct Tok {
    start: usize,
    end: usize,
    depth: i32,
}

/// Characters that form runs of operators (`->`, `::`, `+=`, `?.`).
fn is_op(c: u8) -> bool {
    b"+-*/%=<>!&|^~?:.@#\\".contains(&c)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The tokens of `text` (whitespace between them is the gaps).
fn lex(text: &str, lx: &Lexicon) -> Vec<Tok> {
    let b = text.as_bytes();
    let (mut i, mut depth, mut out) = (0usize, 0i32, Vec::new());
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
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
        b'"' | b'\'' if lx.triple && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''")) => {
            Some(find_after(b, i + 3, &rest[..3], true))
        }
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
    let mut j = i + if b[i] == b'r' { 1 } else if b.get(i + 1) == Some(&b'r') { 2 } else { return None };
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

/// For each output token, the original token it aligns with, if any; `None`
/// when the middle left to align is over [`MAX_ALIGN_TOKENS`].
fn align(old: &[&str], new: &[&str]) -> Option<Vec<Option<usize>>> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..].iter().rev().zip(new[head..].iter().rev()).take_while(|(a, b)| a == b).count();
    let (om, nm) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    if om.len() + nm.len() > MAX_ALIGN_TOKENS {
        return None;
    }
    let mut map: Vec<Option<usize>> = vec![None; new.len()];
    for (k, slot) in map.iter_mut().enumerate().take(head) {
        *slot = Some(k);
    }
    for k in 0..tail {
        map[new.len() - 1 - k] = Some(old.len() - 1 - k);
    }
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, om, nm) {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                map[head + new_index + k] = Some(head + old_index + k);
            }
        }
    }
    slide_up(&mut map, new);
    pair_substitutions(&mut map, old.len());
    Some(map)
}

/// Moves each alignment as early as the output allows: where inserted tokens
/// are followed by aligned ones of the same text (`f(a)` -> `g(f(a))` may align
/// the original `)` with either of the last two), the first of the equal
/// tokens takes the alignment, so a capture's tokens align rather than the
/// template's that follow it.
fn slide_up(map: &mut [Option<usize>], new: &[&str]) {
    let mut e = 1;
    while e < map.len() {
        if map[e].is_none() || map[e - 1].is_some() {
            e += 1;
            continue;
        }
        let mut a = (0..e).rev().take_while(|&x| map[x].is_none()).last().unwrap_or(e);
        let mut at = e;
        while a < at && at < map.len() && map[at].is_some() && new[a] == new[at] {
            map[a] = map[at].take();
            a += 1;
            at += 1;
        }
        e = at.max(e + 1);
    }
}

/// Pairs the output tokens that replace original tokens one for one: between
/// two aligned tokens (or an end of the text), a run of as many unaligned output
/// tokens as original tokens is a substitution (`foo ()` -> `bar ()`), and the
/// gaps around its tokens are the original's too.
fn pair_substitutions(map: &mut [Option<usize>], old_len: usize) {
    let mut k = 0;
    while k < map.len() {
        if map[k].is_some() {
            k += 1;
            continue;
        }
        let end = (k..map.len()).find(|&e| map[e].is_some()).unwrap_or(map.len());
        let from = if k == 0 { 0 } else { map[k - 1].map_or(0, |i| i + 1) };
        let to = if end == map.len() { old_len } else { map[end].unwrap_or(old_len) };
        if to >= from && to - from == end - k {
            for (n, slot) in map[k..end].iter_mut().enumerate() {
                *slot = Some(from + n);
            }
        }
        k = end;
    }
}

/// Output tokens left out: a `,` right after another `,`, where the two are not
/// a pair of the original (a capture that ends in `,` followed by the template's
/// `,`: one separator, not two).
fn doubled_separators(out: &str, nt: &[Tok], map: &[Option<usize>]) -> Vec<bool> {
    let text = |t: &Tok| &out[t.start..t.end];
    let mut drop = vec![false; nt.len()];
    for k in 1..nt.len() {
        let prev = (0..k).rev().find(|&p| !drop[p]);
        let Some(p) = prev else { continue };
        let pair = matches!((map[p], map[k]), (Some(i), Some(j)) if j == i + 1);
        if text(&nt[k]) == "," && text(&nt[p]) == "," && !pair {
            drop[k] = true;
        }
    }
    drop
}

/// The whitespace at the start of the line of `text` that holds offset `at`.
fn indent_at(text: &str, at: usize) -> &str {
    let line = memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |k| k + 1);
    let n = text.as_bytes()[line..at].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    &text[line..line + n]
}

/// The indentation for a line that was `to` in the original after a line at
/// `from`, now that the line at `from` is indented `now`: the same step.
fn reindent(now: &str, from: &str, to: &str) -> String {
    if let Some(deeper) = to.strip_prefix(from) {
        return format!("{now}{deeper}");
    }
    if let Some(step) = from.strip_prefix(to)
        && now.ends_with(step)
    {
        return now[..now.len() - step.len()].to_string();
    }
    to.to_string()
}

/// The minimal rewrite of the match `range` of `body` in `lang`, whose
/// replacement ast-grep builds as `out` from the fix `template`; `None` keeps `out` (a language without
/// a lexicon, a match too large to align, or no token on one side).
/// `code_gap(a, b)` says whether the original's bytes `a..b` (offsets in
/// `body`) lie between two tokens of code, from its syntax tree.
pub(super) fn minimize(lang: SupportLang, body: &str, range: Range<usize>, (out, template): (&str, &str), code_gap: &dyn Fn(usize, usize) -> bool) -> Option<String> {
    let lx = lexicon(lang)?;
    let orig = &body[range.clone()];
    let (ot, nt) = (lex(orig, &lx), lex(out, &lx));
    if ot.is_empty() || nt.is_empty() {
        return None;
    }
    let olds: Vec<&str> = ot.iter().map(|t| &orig[t.start..t.end]).collect();
    let news: Vec<&str> = nt.iter().map(|t| &out[t.start..t.end]).collect();
    let (okeys, nkeys): (Vec<_>, Vec<_>) = (olds.iter().map(|s| key(s)).collect(), news.iter().map(|s| key(s)).collect());
    let map = align(&okeys.iter().map(|k| k.as_ref()).collect::<Vec<_>>(), &nkeys.iter().map(|k| k.as_ref()).collect::<Vec<_>>())?;
    let written: Vec<String> = lex(template, &lx).iter().map(|t| key(&template[t.start..t.end]).into_owned()).collect();
    let drop = doubled_separators(out, &nt, &map);
    let line_start = memchr::memrchr(b'\n', &body.as_bytes()[..range.start]).map_or(0, |k| k + 1);
    let mut res = body[line_start..range.start].to_string();
    let prefix = res.len();
    res.push_str(&out[..nt[0].start]);
    // The last output token written, and where it starts in `res`.
    let mut prev: Option<(usize, usize)> = None;
    // The original token of the last output token written that aligns.
    let mut aligned: Option<usize> = None;
    for (k, t) in nt.iter().enumerate() {
        if drop[k] {
            continue;
        }
        if let Some((p, at)) = prev {
            let ug = &out[nt[k - 1].end..t.start];
            let restored = match (aligned, map[k]) {
                (Some(i), Some(j)) if j == i + 1 => {
                    // Right after the token before it in the original, or after
                    // tokens inserted between the two: then only a line break
                    // comes back (`f(a,\n)` -> `f(a, b\n)`, not `f(a, b )`).
                    let inserted = map[p].is_none();
                    let now = indent_at(&res, at).to_string();
                    gap(body, &range, (&ot[i], &ot[j]), (&nt[k], ug), &now, code_gap).filter(|g| !inserted || g.contains('\n'))
                }
                (Some(i), Some(j)) if j == i + 2 && map[p] == Some(i) && is_trailing_comma(&olds, i + 1) => {
                    let now = indent_at(&res, at).to_string();
                    trailing_comma(body, &range, (&ot[i], &ot[i + 1], &ot[j]), (&nt[k], ug), &now, code_gap)
                }
                (Some(i), Some(j)) if j > i + 1 && map[p] == Some(i) && (i + 1..j).all(|c| is_comment(olds[c], &lx)) => {
                    // Only comments removed: the template cannot spell them, so
                    // they stay, with their lines, where the depth is the same.
                    let (a, b) = (range.start + ot[i].end, range.start + ot[j].start);
                    let same = indent_at(&res, at) == indent_at(body, range.start + ot[i].start);
                    (same && code_gap(a, b)).then(|| body[a..b].to_string())
                }
                (Some(i), Some(j)) if j > i + 1 && map[p] == Some(i) => {
                    // Tokens removed between the two: the line break before the
                    // next one comes back (`f(\n    a, b\n)` -> `g(\n    a\n)`).
                    let now = indent_at(&res, at).to_string();
                    let before = Tok { start: ot[i].start, end: ot[j - 1].end, depth: ot[i].depth };
                    gap(body, &range, (&before, &ot[j]), (&nt[k], ug), &now, code_gap).filter(|g| g.contains('\n'))
                }
                _ => None,
            };
            res.push_str(restored.as_deref().unwrap_or(ug));
        }
        prev = Some((k, res.len()));
        if let Some(i) = map[k] {
            aligned = Some(i);
        }
        res.push_str(token_text(&olds, &news, &okeys, &written, map[k], k));
    }
    res.push_str(&out[nt[nt.len() - 1].end..]);
    Some(res.split_off(prefix))
}

/// A token as the alignment compares it: a token over several lines (a
/// docstring, a raw string) without the indentation of its later lines, which
/// ast-grep-core changes when it re-indents a capture.
fn key(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\n') {
        return s.into();
    }
    let mut lines = s.split('\n');
    let mut k = lines.next().unwrap_or_default().to_string();
    for l in lines {
        k.push('\n');
        k.push_str(l.trim_start_matches([' ', '\t']));
    }
    k.into()
}

/// The text to write for output token `k`: the original token's when the two
/// differ only by the indentation inside a multi-line literal that the template
/// does not spell out (ast-grep-core re-indented a capture, changing the
/// literal's value); else the output's.
fn token_text<'a>(olds: &[&'a str], news: &[&'a str], okeys: &[std::borrow::Cow<'_, str>], written: &[String], at: Option<usize>, k: usize) -> &'a str {
    match at {
        Some(i) if olds[i] != news[k] && okeys[i] == key(news[k]) && !written.iter().any(|w| *w == okeys[i]) => olds[i],
        _ => news[k],
    }
}

/// True when `tok` is a comment in the language of `lx`.
fn is_comment(tok: &str, lx: &Lexicon) -> bool {
    (lx.slash_comments && (tok.starts_with("//") || tok.starts_with("/*"))) || (lx.hash_comments && tok.starts_with('#'))
}

/// True when original token `c` is a `,` right before a closing bracket.
fn is_trailing_comma(olds: &[&str], c: usize) -> bool {
    olds[c] == "," && olds.get(c + 1).is_some_and(|t| matches!(*t, ")" | "]" | "}"))
}

/// The original's trailing comma, with its gaps, between two output tokens that
/// align with the tokens around it (`f(a,\n)` through the template `f($A)`
/// stays `f(a,\n)`): the template dropped a separator it never spelled out.
/// `None` when the original's bytes there are not code.
fn trailing_comma(body: &str, range: &Range<usize>, o: (&Tok, &Tok, &Tok), (t, ug): (&Tok, &str), now: &str, code_gap: &dyn Fn(usize, usize) -> bool) -> Option<String> {
    if !code_gap(range.start + o.0.end, range.start + o.2.start) {
        return None;
    }
    let before = &body[range.start + o.0.end..range.start + o.1.start];
    let mut s = before.to_string();
    if before.contains('\n') {
        return None; // a comma first on its line: leave the output as it is
    }
    s.push(',');
    match gap(body, range, (o.1, o.2), (t, ug), now, code_gap) {
        Some(g) => s.push_str(&g),
        None => s.push_str(ug),
    }
    Some(s)
}

/// The gap to write between two output tokens that align with the adjacent
/// original tokens `o.0` and `o.1`: the original's, re-indented after the line
/// now indented `now`; `None` keeps the output's gap `ug` (before output token
/// `t`).
fn gap(body: &str, range: &Range<usize>, o: (&Tok, &Tok), (t, ug): (&Tok, &str), now: &str, code_gap: &dyn Fn(usize, usize) -> bool) -> Option<String> {
    let (a, b) = (range.start + o.0.end, range.start + o.1.start);
    let og = &body[a..b];
    if og == ug || !code_gap(a, b) {
        return None;
    }
    let Some(nl) = og.rfind('\n') else {
        // The original had no line break here: a break the template adds stays.
        return (!ug.contains('\n')).then(|| og.to_string());
    };
    if !ug.contains('\n') && (o.1.depth > 0) != (t.depth > 0) {
        return None;
    }
    let to = reindent(now, indent_at(body, range.start + o.0.start), indent_at(body, b));
    Some(format!("{}{to}", &og[..=nl]))
}

/// Kinds of nodes (by a part of their name) whose insides are not code: no gap
/// inside one is ever taken from the original.
const LITERAL_KINDS: &[&str] = &["string", "comment", "heredoc", "char_literal", "raw", "regex", "template", "quoted", "interpolat"];

/// The edit for a match of `node` (its range `range` of `body`, widened by
/// `expandStart`/`expandEnd` maybe) whose replacement ast-grep builds as `out`
/// from the fix `template`:
/// the minimal rewrite, or for a deletion the range widened to the statement's
/// `;` and to the whole line when nothing else is on it (never before `floor`,
/// the end of the edit kept before it).
pub(super) fn edit(lang: SupportLang, node: tree_sitter::Node<'_>, body: &str, (range, out, template): (Range<usize>, String, &str), floor: usize) -> (Range<usize>, String) {
    if out.is_empty() {
        return (deletion(node, body, range, floor), out);
    }
    if out.as_bytes() == &body.as_bytes()[range.clone()] {
        return (range, out);
    }
    let code_gap = |a: usize, b: usize| is_code_gap(node, a, b);
    match minimize(lang, body, range.clone(), (&out, template), &code_gap) {
        Some(text) => (range, text),
        None => (range, out),
    }
}

/// True when the bytes `a..b` of the tree's text lie between two tokens of
/// code inside the matched `node`: the smallest node spanning them and the
/// bytes on either side has children, and it is not a literal or comment
/// (but for two whole strings side by side). The walk goes down from `node` (a
/// step per level; tree-sitter's `parent` costs a walk from the root each
/// time).
fn is_code_gap(node: tree_sitter::Node<'_>, a: usize, b: usize) -> bool {
    let (lo, hi) = (a.saturating_sub(1), b + 1);
    if lo < node.start_byte() || hi > node.end_byte() {
        return false;
    }
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        let literal = LITERAL_KINDS.iter().any(|k| n.kind().contains(k));
        if n.child_count() == 0 || cursor.goto_first_child_for_byte(lo).is_none() {
            return false;
        }
        let c = cursor.node();
        if c.start_byte() > lo || c.end_byte() < hi {
            // The gap lies between children of `n`: code, unless `n` is a
            // literal; then only between two whole strings (`"a" "b"`, which
            // Python and C concatenate), or a string and a comment among them
            // (`"a"  # why` then `"b"` on the next line).
            let strings = |x: tree_sitter::Node<'_>| x.kind().contains("string") || x.kind().contains("comment");
            return !literal || (c.end_byte() <= a && strings(c) && c.next_sibling().is_some_and(|s| s.start_byte() >= b && strings(s)));
        }
    }
}

fn is_blank(c: &u8) -> bool {
    *c == b' ' || *c == b'\t'
}

/// The range a deletion of `range` (the match of `node`) removes: with the `;`
/// that ends the statement the match is the whole of, and with its line when
/// nothing else is on it.
fn deletion(node: tree_sitter::Node<'_>, body: &str, range: Range<usize>, floor: usize) -> Range<usize> {
    let b = body.as_bytes();
    let mut end = range.end;
    let semi = end + b[end..].iter().take_while(|c| is_blank(c)).count();
    if b.get(semi) == Some(&b';') && node.parent().is_some_and(|p| p.start_byte() == range.start && p.end_byte() == semi + 1) {
        end = semi + 1;
    }
    let line = memchr::memrchr(b'\n', &b[..range.start]).map_or(0, |k| k + 1);
    let after = end + b[end..].iter().take_while(|c| is_blank(c)).count();
    let eol = match &b[after..] {
        [] => Some(after),
        [b'\n', ..] => Some(after + 1),
        [b'\r', b'\n', ..] => Some(after + 2),
        _ => None,
    };
    let alone = line >= floor && b[line..range.start].iter().all(is_blank);
    match eol {
        Some(eol) if alone => line..eol,
        // First on its line: the blanks after it go too (`  f(); g();` -> `  g();`).
        _ if alone => range.start..after,
        _ => range.start..end,
    }
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

    #[test]
    fn reindent_keeps_the_step_between_lines() {
        assert_eq!(reindent("        ", "    ", "        "), "            ");
        assert_eq!(reindent("        ", "            ", "        "), "    ");
        assert_eq!(reindent("\t", "", "    "), "\t    ");
        assert_eq!(reindent("  ", "      ", "  "), "  ");
    }

    fn all_code(_: usize, _: usize) -> bool {
        true
    }

    #[test]
    fn identity_gives_the_original_back() {
        let body = "    let x = foo()\n        .build()\n        .unwrap();\n";
        let range = 12..body.len() - 2;
        let out = "foo()\n        .build().unwrap()";
        assert_eq!(minimize(SupportLang::Rust, body, range.clone(), (out, ""), &all_code).unwrap(), &body[range]);
    }

    #[test]
    fn a_comma_after_a_capture_ending_in_one_is_dropped() {
        let body = "warn(\"m\", W,)";
        let out = "warn(\"m\", W,, stacklevel=2)";
        assert_eq!(minimize(SupportLang::Python, body, 0..body.len(), (out, ""), &all_code).unwrap(), "warn(\"m\", W, stacklevel=2)");
    }
}
