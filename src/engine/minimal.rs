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

use super::lexer::{lex, lexicon, Lexicon, Tok};

/// Most tokens, on both sides together, left to align once the common first
/// and last tokens are set aside (docs/DESIGN.md section 7). The alignment costs
/// about (tokens x differences) steps, so a larger middle (a huge match whose
/// rewrite reorders it) keeps ast-grep's output rather than spend seconds.
pub const MAX_ALIGN_TOKENS: usize = 20_000;


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
    // Blanks after the last token are the template's when it ends in them; else
    // a capture brought them (Go's statement list ends in its line break).
    if template.ends_with(char::is_whitespace) {
        res.push_str(&out[nt[nt.len() - 1].end..]);
    }
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
    if !code_gap(a, b) {
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
