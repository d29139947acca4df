//! Minimal rewrites (docs/DESIGN.md §2.5.9): the replacement ast-grep's template gives,
//! written with the matched code's own layout wherever the template does not say
//! otherwise, so that an edit changes only what it really changes. The replacement's
//! tokens (the edit's reference, `engine/layout/reference.rs`) are aligned with the
//! matched text's (`engine/layout/lexer.rs`), and the gap rule says what to write between
//! two of them ([`Spelling`]: seams a pattern of the rule writes the same way). Languages
//! without a lexicon, an edit without a reference and a match too large to align
//! ([`MAX_ALIGN_TOKENS`]) keep ast-grep's output. The gap rule, the indentation and what
//! makes it exact: §2.5.9.

use std::borrow::Cow;
use std::ops::Range;

use ast_grep_language::SupportLang;

use crate::engine::layout::lexer::{Lexicon, Tok, all_blank, blank_len, breaks_line, lex, lexicon};
use crate::engine::layout::reference::{Origin, Reference};
use crate::engine::layout::spelling::{Spelling, is_word};
use crate::shared::text::Breaks;

/// Most tokens, on both sides together, left to align once the common first
/// and last tokens are set aside (docs/DESIGN.md section 7). The alignment costs
/// about (tokens x differences) steps, so a larger middle (a huge match whose
/// rewrite reorders it) keeps ast-grep's output rather than spend seconds.
pub const MAX_ALIGN_TOKENS: usize = 20_000;

/// One token of the replacement: a token of the edit's reference, found in
/// ast-grep's output.
struct Piece<'a> {
    origin: Origin,
    /// A capture token's bytes in the body.
    cap: Option<Range<usize>>,
    /// Its bytes in ast-grep's output (a capture's re-indented maybe).
    out: Range<usize>,
    /// ast-grep's blanks before it.
    ug: &'a str,
    /// A metavariable stands right before it in the template.
    after_var: bool,
    /// The bracket depth before it in the replacement.
    depth: i32,
}

/// The tokens of the reference `r` found in `out`, ast-grep's replacement,
/// whose non-blank bytes are theirs in order; `None` when they are not (then
/// `out` is kept). A token of blanks only is a gap, not a token.
fn locate<'a>(r: &Reference, body: &str, out: &'a str) -> Option<Vec<Piece<'a>>> {
    let ob = out.as_bytes();
    let (mut pos, mut depth, mut pieces) = (0usize, 0i32, Vec::new());
    for t in &r.toks {
        let text = r.text(t, body);
        if text.bytes().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let gap_start = pos;
        let mut start = None;
        for b in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
            // Before the token, blanks and line continuations; inside it (a
            // literal ast-grep re-indented), whitespace only: a `\` ending a
            // line inside a string is the string's.
            pos += if start.is_none() { blank_len(ob, pos) } else { ob[pos.min(ob.len())..].iter().take_while(|c| c.is_ascii_whitespace()).count() };
            if ob.get(pos) != Some(&b) {
                return None;
            }
            start.get_or_insert(pos);
            pos += 1;
        }
        let start = start?;
        let ug = &out[gap_start..start];
        let before = depth;
        match text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        let cap = (t.origin == Origin::Capture).then(|| t.at.clone());
        pieces.push(Piece { origin: t.origin, cap, out: start..pos, ug, after_var: t.after_var, depth: before });
    }
    all_blank(&out[pos..]).then_some(pieces)
}

/// `ug`, ast-grep's gap after a capture, without the line break the capture
/// brought at its start (and the blanks ast-grep indented the empty line after
/// it with), when another line break follows: Go's statement list ends in its
/// line break, so `{ $$$B }` on one ends in an empty line.
fn without_captured_break(ug: &str) -> &str {
    match ug.find('\n') {
        Some(nl) if ug[nl + 1..].contains('\n') => ug[nl + 1..].trim_start_matches([' ', '\t']),
        _ => ug,
    }
}

/// True when a node under `node` holds the token that ends at `at` and ends
/// after it in blanks with a line break (Go's statement list): a capture of it
/// brings that line break.
fn ends_in_line_break(node: tree_sitter::Node<'_>, body: &str, at: usize) -> bool {
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        let tail = body.get(at..n.end_byte().max(at)).unwrap_or_default();
        if tail.contains('\n') && tail.bytes().all(|c| c.is_ascii_whitespace()) {
            return true;
        }
        if at == 0 || cursor.goto_first_child_for_byte(at - 1).is_none() || cursor.node().start_byte() >= at {
            return false;
        }
    }
}

/// For each output token, the original token it aligns with, if any; `None`
/// when the middle left to align is over [`MAX_ALIGN_TOKENS`].
fn align<T: Ord + std::hash::Hash>(old: &[T], new: &[T]) -> Option<Vec<Option<usize>>> {
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
    Some(map)
}

/// Pairs the template's words that replace as many original words one for one
/// between two aligned tokens (`foo` -> `bar`, `unwrap` -> `expect`; `fits`
/// says which pairs are two such words): a rename is aligned, so the gaps
/// around it are the original's where the pattern spells them as the template.
fn pair_words(map: &mut [Option<usize>], old_len: usize, fits: impl Fn(usize, usize) -> bool) {
    let mut k = 0;
    while k < map.len() {
        if map[k].is_some() {
            k += 1;
            continue;
        }
        let end = (k..map.len()).find(|&e| map[e].is_some()).unwrap_or(map.len());
        let from = if k == 0 { 0 } else { map[k - 1].map_or(0, |i| i + 1) };
        let to = if end == map.len() { old_len } else { map[end].unwrap_or(old_len) };
        if to >= from && to - from == end - k && (k..end).all(|n| fits(n, from + n - k)) {
            for (n, slot) in map[k..end].iter_mut().enumerate() {
                *slot = Some(from + n);
            }
        }
        k = end;
    }
}

/// The whitespace at the start of the line of `text` (whose line breaks are
/// `breaks`) that holds offset `at`.
fn indent_at<'t>(text: &'t str, breaks: &Breaks, at: usize) -> &'t str {
    let line = breaks.line_start(at);
    let n = text.as_bytes()[line..at].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    &text[line..line + n]
}

/// Appends `text` to `res`, whose line breaks `breaks` keeps.
fn push(res: &mut String, breaks: &mut Breaks, text: &str) {
    breaks.grow(res.len(), text);
    res.push_str(text);
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

/// The spaces ast-grep-core puts after each line break of a template (and of
/// the replacement) for a match at `at`: those that start its line, counted
/// back over at most 512 bytes, none when a tab is among them
/// (`replacer/indent.rs`, `get_indent_at_offset`).
fn ast_grep_indent(body: &str, at: usize) -> usize {
    let b = &body.as_bytes()[..at];
    let look = b.len().saturating_sub(512);
    let mut n = 0;
    for &c in b[look..].iter().rev() {
        if c == b'\n' {
            return n;
        }
        n = if c == b' ' { n + 1 } else { 0 };
    }
    if look == 0 { n } else { 0 }
}

/// The minimal rewrite of the match `range` of `body` in `lang` (of `node`),
/// whose replacement ast-grep builds as `out` from the fix `template`, and
/// whose reference is `r`; `None` keeps `out` (a language without a lexicon, a
/// match too large to align, or an output that is not the reference's tokens).
fn minimize(
    lang: SupportLang,
    node: tree_sitter::Node<'_>,
    (body, lines): (&str, &Breaks),
    range: Range<usize>,
    (out, template): (&str, &str),
    (r, spelling): (&Reference, &Spelling),
) -> Option<String> {
    let lx = lexicon(lang)?;
    let orig = &body[range.clone()];
    let ot = lex(orig, &lx);
    let mut pieces = locate(r, body, out)?;
    for k in 1..pieces.len() {
        if let (Some(c), Origin::Template | Origin::Joined) = (&pieces[k - 1].cap, pieces[k].origin)
            && ends_in_line_break(node, body, c.end)
        {
            pieces[k].ug = without_captured_break(pieces[k].ug);
        }
    }
    if ot.is_empty() || pieces.is_empty() {
        return None;
    }
    let starts: Vec<usize> = ot.iter().map(|t| range.start + t.start).collect();
    // A capture token aligns with the original token it is, and nothing else does.
    let anchor: Vec<Option<usize>> = pieces.iter().map(|p| p.cap.as_ref().and_then(|c| starts.binary_search(&c.start).ok())).collect();
    let mut okeys: Vec<Cow<'_, str>> = ot.iter().map(|t| Cow::Borrowed(&orig[t.start..t.end])).collect();
    for &o in anchor.iter().flatten() {
        okeys[o] = Cow::Owned(format!("\0c{o}"));
    }
    let nkeys: Vec<Cow<'_, str>> = pieces
        .iter()
        .enumerate()
        .map(|(k, p)| match (p.origin, anchor[k]) {
            (Origin::Capture, Some(o)) => Cow::Owned(format!("\0c{o}")),
            (Origin::Capture, None) => Cow::Owned(format!("\0u{k}")),
            _ => Cow::Borrowed(&out[p.out.clone()]),
        })
        .collect();
    let mut map = align(&okeys, &nkeys)?;
    let word = |k: usize, o: usize| pieces[k].cap.is_none() && is_word(&nkeys[k]) && !okeys[o].starts_with('\0') && is_word(&okeys[o]);
    pair_words(&mut map, ot.len(), word);
    let code_gap = |a: usize, b: usize| is_code_gap(node, a, b);
    let code_gap: &dyn Fn(usize, usize) -> bool = &code_gap;
    let real = indent_at(body, lines, node.start_byte());
    let ag = ast_grep_indent(body, node.start_byte());
    let g = Gaps { body, lines, out, ot: &ot, starts: &starts, base: range.start, lx: &lx, pieces: &pieces, map: &map, code_gap, real, ag, spelling };
    let line_start = lines.line_start(range.start);
    let mut res = body[line_start..range.start].to_string();
    let mut breaks = Breaks::default();
    let prefix = res.len();
    push(&mut res, &mut breaks, &g.fix(pieces[0].ug));
    // The last output token written, and where it starts in `res`.
    let mut prev: Option<(usize, usize)> = None;
    // The last output token written that aligns with an original token.
    let mut last_aligned: Option<usize> = None;
    // The brackets open at this point: each one's original start and the
    // indentation of its line now, when it has an original.
    let mut open: Vec<Option<(usize, String)>> = Vec::new();
    for (k, aligned) in map.iter().enumerate() {
        if let Some((p, at)) = prev {
            if g.doubled_separator(p, k) {
                continue;
            }
            let now = indent_at(&res, &breaks, at).to_string();
            let enclosing = open.last().map(|o| o.as_ref().map(|(f, n)| (*f, n.as_str())));
            let gap = g.gap(p, k, last_aligned, &now, enclosing);
            push(&mut res, &mut breaks, &gap);
        }
        prev = Some((k, res.len()));
        if aligned.is_some() {
            last_aligned = Some(k);
        }
        let text = g.text(k);
        match text.as_ref() {
            "(" | "[" | "{" => open.push(g.orig_start(k).map(|f| (f, indent_at(&res, &breaks, res.len()).to_string()))),
            ")" | "]" | "}" => drop(open.pop()),
            _ => {}
        }
        push(&mut res, &mut breaks, &text);
    }
    // Blanks after the last token are the template's when it ends in them; else
    // a capture brought them (Go's statement list ends in its line break).
    if template.ends_with(char::is_whitespace) {
        res.push_str(&g.fix(&out[pieces[pieces.len() - 1].out.end..]));
    }
    Some(res.split_off(prefix))
}

/// What the gap rule looks at for one edit.
struct Gaps<'a> {
    body: &'a str,
    /// The line breaks of `body`.
    lines: &'a Breaks,
    out: &'a str,
    /// The original's tokens (offsets in the match), their starts in `body`,
    /// and the match's start.
    ot: &'a [Tok],
    starts: &'a [usize],
    base: usize,
    lx: &'a Lexicon,
    pieces: &'a [Piece<'a>],
    /// For each piece, the original token it aligns with.
    map: &'a [Option<usize>],
    code_gap: &'a dyn Fn(usize, usize) -> bool,
    /// The indentation of the match's line, and the spaces ast-grep-core gave
    /// the template's lines for it.
    real: &'a str,
    ag: usize,
    spelling: &'a Spelling,
}

impl Gaps<'_> {
    /// The text of piece `k`: a capture's from the original, a template's as
    /// ast-grep wrote it (its later lines at the match's indentation).
    fn text(&self, k: usize) -> Cow<'_, str> {
        let p = &self.pieces[k];
        match (&p.cap, p.origin) {
            (Some(c), _) => Cow::Borrowed(&self.body[c.clone()]),
            (None, Origin::Template) => self.fix(&self.out[p.out.clone()]),
            _ => Cow::Borrowed(&self.out[p.out.clone()]),
        }
    }

    /// `s`, a part of ast-grep's output from the template, with the match's
    /// indentation after each line break instead of ast-grep-core's spaces
    /// (it counts no tab).
    fn fix<'s>(&self, s: &'s str) -> Cow<'s, str> {
        if !s.contains('\n') || self.real.len() == self.ag && self.real.bytes().all(|b| b == b' ') {
            return Cow::Borrowed(s);
        }
        let mut lines = s.split('\n');
        let mut f = lines.next().unwrap_or_default().to_string();
        for l in lines {
            f.push('\n');
            f.push_str(self.real);
            let spaces = l.bytes().take(self.ag).take_while(|&b| b == b' ').count();
            f.push_str(if spaces == self.ag { &l[spaces..] } else { l });
        }
        Cow::Owned(f)
    }

    /// The bytes in `body` of the original token piece `k` aligns with: a
    /// capture's own, else the token's.
    fn orig(&self, k: usize) -> Option<Range<usize>> {
        let o = self.map[k]?;
        Some(match &self.pieces[k].cap {
            Some(c) => c.clone(),
            None => self.starts[o]..self.base + self.ot[o].end,
        })
    }

    /// Where piece `k` starts in the original, if it has an original.
    fn orig_start(&self, k: usize) -> Option<usize> {
        self.pieces[k].cap.as_ref().map(|c| c.start).or_else(|| self.map[k].map(|o| self.starts[o]))
    }

    /// True when the template writes pieces `p` and `k` as a pattern of the
    /// rule writes such a seam (`bar(` for `foo(`): not respelled.
    fn kept(&self, p: usize, k: usize) -> bool {
        self.spelling.has(&self.text(p), self.pieces[k].ug, &self.text(k))
    }

    /// The bracket depth, relative to the match, of the original token at `at`.
    fn orig_depth(&self, at: usize) -> i32 {
        self.starts.partition_point(|&s| s <= at).checked_sub(1).map_or(0, |i| self.ot[i].depth)
    }

    fn orig_text(&self, i: usize) -> &str {
        &self.body[self.starts[i]..self.base + self.ot[i].end]
    }

    /// A `,` right after another, one the template's and one a capture's (a
    /// `$$$` capture that ends in `,` before the template's `,`): left out.
    fn doubled_separator(&self, p: usize, k: usize) -> bool {
        let (a, b) = (&self.pieces[p], &self.pieces[k]);
        self.text(p) == "," && self.text(k) == "," && (a.origin == Origin::Capture) != (b.origin == Origin::Capture)
    }

    /// The gap to write between pieces `p` and `k`, where `la` is the last piece
    /// written that aligns, `now` the indentation of the line `p` is on, and
    /// `enclosing` the bracket `k` is inside (or closes), if any: its original
    /// start and the indentation of its line now, unless the template put it.
    fn gap(&self, p: usize, k: usize, la: Option<usize>, now: &str, enclosing: Option<Option<(usize, &str)>>) -> Cow<'_, str> {
        let (tp, tk) = (&self.pieces[p], &self.pieces[k]);
        let ug = || self.fix(tk.ug);
        // A line break is re-indented from the line of the bracket it is inside:
        // `)` goes back under its `(` wherever the code between moved. Outside
        // brackets, a template token not deeper than the line before it goes
        // back to its own depth in the match (`{` under `match`, wherever the
        // capture before it moved); else (a block of statements, a chain that
        // continues a capture) from the line of the token before.
        let kept_depth = |from: usize| {
            let k_line = self.orig(k).map(|kr| indent_at(self.body, self.lines, kr.start));
            tk.cap.is_none() && k_line.is_some_and(|i| !i.starts_with(indent_at(self.body, self.lines, from)) || i == indent_at(self.body, self.lines, from))
        };
        let base = |from: usize| match enclosing.flatten() {
            Some(e) => e,
            None if kept_depth(from) => (self.base, indent_at(self.body, self.lines, self.base)),
            None => (from, now),
        };
        // Inside a capture: the capture's own text.
        if let (Some(a), Some(b)) = (&tp.cap, &tk.cap)
            && a.end <= b.start
            && all_blank(&self.body[a.end..b.start])
        {
            return self.restore(base(a.start), a.end..b.start, k, false).map_or_else(ug, Cow::Owned);
        }
        if tk.cap.is_none() && enclosing.is_some_and(|e| e.is_none()) && tk.ug.contains('\n') {
            // Inside a bracket the template put, its layout stays.
            return ug();
        }
        let (Some(kr), Some(lr)) = (self.orig(k), la.and_then(|l| self.orig(l))) else { return ug() };
        if lr.end > kr.start {
            return ug();
        }
        let removed = self.starts.partition_point(|&s| s < lr.end)..self.starts.partition_point(|&s| s < kr.start);
        let inserted = la != Some(p);
        // Two of the template's tokens with no metavariable between (one that
        // brought nothing, `f($$$A)` on `f( )`, still stands between).
        let templates = tp.origin != Origin::Capture && tk.origin != Origin::Capture && !tk.after_var;
        let line_break = |from: usize| self.restore(base(lr.start), from..kr.start, k, true).filter(|g| g.contains('\n'));
        if removed.is_empty() {
            return if inserted && !tk.ug.contains('\n') {
                // Tokens inserted between: the original's line break only
                // (`f(a,\n)` -> `f(a, b\n)`, not `f(a, b )`). Where the
                // template breaks the line, its line (its depth) stays.
                line_break(lr.end).map_or_else(ug, Cow::Owned)
            } else if inserted || templates && !self.kept(p, k) {
                // Two of the template's: its spelling.
                ug()
            } else {
                // Beside a capture, or a seam the template writes as the
                // pattern does (an identity, a rename): the original's gap.
                self.restore(base(lr.start), lr.end..kr.start, k, true).map_or_else(ug, Cow::Owned)
            };
        }
        if !inserted {
            if tp.origin == Origin::Capture && removed.len() == 1 && self.orig_text(removed.start) == "," && matches!(&self.body[kr.clone()], ")" | "]" | "}") {
                return self.trailing_comma((lr.clone(), removed.start, kr), k, base(self.starts[removed.start])).map_or_else(ug, Cow::Owned);
            }
            if removed.clone().all(|c| is_comment(self.orig_text(c), self.lx)) {
                // Only comments removed: the template cannot spell them, so
                // they stay, with their lines, where the depth is the same.
                let same = now == indent_at(self.body, self.lines, lr.start);
                return if same && (self.code_gap)(lr.end, kr.start) { Cow::Borrowed(&self.body[lr.end..kr.start]) } else { ug() };
            }
            if templates && !self.kept(p, k) {
                return ug();
            }
        }
        if (inserted || templates) && tk.ug.contains('\n') {
            // The template breaks the line: its line stays.
            return ug();
        }
        // Tokens removed: the line break before the next one comes back
        // (`f(\n    a, b\n)` -> `g(\n    a\n)`).
        line_break(self.base + self.ot[removed.end - 1].end).map_or_else(ug, Cow::Owned)
    }

    /// The original's gap `gap` before piece `k`, its line break re-indented
    /// after the line now indented `now`, which was the line of `from` in the
    /// original (`base`); `None` keeps ast-grep's gap: where `code` asks and the
    /// original's syntax tree does not put the gap between two tokens of code,
    /// where the original has no line break and ast-grep's gap has one (the
    /// template's), or where a line break would move between inside and outside
    /// brackets.
    fn restore(&self, (from, now): (usize, &str), gap: Range<usize>, k: usize, code: bool) -> Option<String> {
        let t = &self.pieces[k];
        let og = &self.body[gap.clone()];
        if code && !(self.code_gap)(gap.start, gap.end) {
            return None;
        }
        let Some(nl) = og.rfind('\n') else {
            return (!t.ug.contains('\n')).then(|| og.to_string());
        };
        if !t.ug.contains('\n') && (self.orig_depth(gap.end) > 0) != (t.depth > 0) {
            return None;
        }
        let to = reindent(now, indent_at(self.body, self.lines, from), indent_at(self.body, self.lines, gap.end));
        Some(format!("{}{to}", &og[..=nl]))
    }

    /// The original's trailing comma (original token `c`), with its gaps,
    /// between pieces that align with the tokens `lr` and `kr` around it
    /// (`f(a,\n)` through the template `f($A)` stays `f(a,\n)`): the template
    /// dropped a separator it never spelled out. A comma that starts its line
    /// keeps its line, re-indented as [`Gaps::restore`] brings a line break
    /// back (a line continuation before it is no line break). `None` when the
    /// original's bytes there are not code, or that line break cannot come
    /// back.
    fn trailing_comma(&self, (lr, c, kr): (Range<usize>, usize, Range<usize>), k: usize, base: (usize, &str)) -> Option<String> {
        if !(self.code_gap)(lr.end, kr.start) {
            return None;
        }
        let mut before = Cow::Borrowed(&self.body[lr.end..self.starts[c]]);
        if breaks_line(&before) {
            before = Cow::Owned(self.restore(base, lr.end..self.starts[c], k, true)?);
        }
        let after = self.base + self.ot[c].end;
        let rest = self.restore(base, after..kr.start, k, true).unwrap_or_else(|| self.fix(self.pieces[k].ug).into_owned());
        Some(format!("{before},{rest}"))
    }
}

/// True when `tok` is a comment in the language of `lx`.
fn is_comment(tok: &str, lx: &Lexicon) -> bool {
    (lx.slash_comments && (tok.starts_with("//") || tok.starts_with("/*"))) || (lx.hash_comments && tok.starts_with('#'))
}

/// Kinds of nodes (by a part of their name) whose insides are not code: no gap
/// inside one is ever taken from the original.
const LITERAL_KINDS: &[&str] = &["string", "comment", "heredoc", "char_literal", "raw", "regex", "template", "quoted", "interpolat"];

/// The edit for a match of `node` (its range `range` of `body`, widened by
/// `expandStart`/`expandEnd` maybe) whose replacement ast-grep builds as `out`
/// from the fix `template`, and whose reference (`engine/layout/reference.rs`) is
/// `reference`: the minimal rewrite, or for a deletion the range widened to
/// the statement's `;` and to the whole line when nothing else is on it (never
/// before `floor`, the end of the edit kept before it). Without a reference,
/// ast-grep's output.
pub(in crate::engine) fn edit(
    lang: SupportLang,
    node: tree_sitter::Node<'_>,
    (body, lines): (&str, &Breaks),
    (range, out, template): (Range<usize>, String, &str),
    floor: usize,
    (reference, spelling): (Option<&Reference>, &Spelling),
) -> (Range<usize>, String) {
    if out.is_empty() {
        return (deletion(node, (body, lines), range, floor), out);
    }
    if out.as_bytes() == &body.as_bytes()[range.clone()] {
        return (range, out);
    }
    let Some(r) = reference else { return (range, out) };
    match minimize(lang, node, (body, lines), range.clone(), (&out, template), (r, spelling)) {
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
fn deletion(node: tree_sitter::Node<'_>, (body, lines): (&str, &Breaks), range: Range<usize>, floor: usize) -> Range<usize> {
    let b = body.as_bytes();
    let mut end = range.end;
    let semi = end + b[end..].iter().take_while(|c| is_blank(c)).count();
    if b.get(semi) == Some(&b';') && node.parent().is_some_and(|p| p.start_byte() == range.start && p.end_byte() == semi + 1) {
        end = semi + 1;
    }
    let line = lines.line_start(range.start);
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
    use ast_grep_core::Pattern;
    use ast_grep_core::replacer::{Replacer, TemplateFix};

    #[test]
    fn reindent_keeps_the_step_between_lines() {
        assert_eq!(reindent("        ", "    ", "        "), "            ");
        assert_eq!(reindent("        ", "            ", "        "), "    ");
        assert_eq!(reindent("\t", "", "    "), "\t    ");
        assert_eq!(reindent("  ", "      ", "  "), "  ");
    }

    /// `src` with its first match of `pat` rewritten to `template`, minimally.
    fn rewrite(lang: SupportLang, src: &str, pat: &str, template: &str) -> String {
        let grep = crate::engine::metered::parse(src, lang);
        let nm = grep.root().find(Pattern::new(pat, lang)).expect("a match");
        let fixer = TemplateFix::try_new(template, &lang).expect("a template");
        let out = String::from_utf8(fixer.generate_replacement(&nm)).expect("UTF-8");
        let r = crate::engine::layout::reference::build(lang, template, &[], &nm, src);
        let spelling = Spelling::of(lang, &[pat.to_string()]);
        let range = nm.range();
        let (range, text) = edit(lang, nm.get_node().get_inner_node().0, (src, &Breaks::of(src)), (range, out, template), 0, (r.as_ref(), &spelling));
        format!("{}{text}{}", &src[..range.start], &src[range.end..])
    }

    #[test]
    fn identity_gives_the_original_back() {
        let src = "fn m() {\n    let x = foo()\n        .build()\n        .unwrap();\n}\n";
        assert_eq!(rewrite(SupportLang::Rust, src, "$X.unwrap()", "$X.unwrap()"), src);
    }

    #[test]
    fn a_comma_after_a_capture_ending_in_one_is_dropped() {
        let src = "warn(\"m\", W,)\n";
        assert_eq!(rewrite(SupportLang::Python, src, "warn($$$A)", "warn($$$A, stacklevel=2)"), "warn(\"m\", W, stacklevel=2)\n");
    }

    #[test]
    fn a_captured_template_string_that_holds_code_keeps_the_bracket_after_it_on_its_line() {
        let src = "g(\n  new Error(\n    `abc ${x} d`\n  )\n);\n";
        assert_eq!(rewrite(SupportLang::JavaScript, src, "new Error($A)", "err($A)"), "g(\n  err(\n    `abc ${x} d`\n  )\n);\n");
    }

    #[test]
    fn a_captured_line_continuation_keeps_its_one_line_break() {
        let src = "def f():\n    print(\"a:\", \\\n        g(x))\n";
        assert_eq!(rewrite(SupportLang::Python, src, "print($$$A)", "log($$$A)"), "def f():\n    log(\"a:\", \\\n        g(x))\n");
    }

    /// A line continuation is blank to the layout lexer, so a gap that holds
    /// one is the original's gap: dropping its `\\` and keeping its line break
    /// would end the statement (`x = ok(a) and` is a Python syntax error that
    /// tree-sitter parses without an ERROR node).
    #[test]
    fn a_line_continuation_in_a_kept_gap_stays() {
        let src = "x = a and \\\n    b\n";
        assert_eq!(rewrite(SupportLang::Python, src, "$A and $B", "ok($A) and $B"), "x = ok(a) and \\\n    b\n");
        let src = "foo(a,\\\nx)\n";
        assert_eq!(rewrite(SupportLang::Python, src, "foo($A, $B)", "bar($A, $B)"), "bar(a,\\\nx)\n");
        // A trailing comma after a line continuation is still on its line.
        let src = "foo(a, b\\\n,)\n";
        assert_eq!(rewrite(SupportLang::Python, src, "foo($A, $B)", "bar($A, $B)"), "bar(a, b\\\n,)\n");
    }

    /// A trailing comma that starts its line stays, re-indented with the
    /// line it is on.
    #[test]
    fn a_trailing_comma_on_its_own_line_stays() {
        let src = "x = foo(a, b\n,)\n";
        assert_eq!(rewrite(SupportLang::Python, src, "foo($A, $B)", "bar($A, $B)"), "x = bar(a, b\n,)\n");
        let src = "def f():\n    x = foo(\n        a, b\n        ,\n    )\n";
        assert_eq!(
            rewrite(SupportLang::Python, src, "x = foo($A, $B)", "if c:\n    x = bar($A, $B)"),
            "def f():\n    if c:\n        x = bar(\n            a, b\n            ,\n        )\n"
        );
        let src = "let x = foo(a,\n    b\n    ,);\n";
        assert_eq!(rewrite(SupportLang::JavaScript, src, "foo($A, $B)", "bar($A, $B)"), "let x = bar(a,\n    b\n    ,);\n");
    }

    #[test]
    fn ast_grep_counts_the_spaces_that_start_the_line() {
        for (text, spaces) in [("x\n    a = f", 4), ("x\n\t  a = f", 0), ("  f", 2), ("x\n  \t  f", 2)] {
            assert_eq!(ast_grep_indent(text, text.len()), spaces, "{text:?}");
        }
    }
}
