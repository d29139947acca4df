//! Code of one language embedded in a file of another (docs/DESIGN.md §2.13,
//! docs/RULES.md "Embedded languages"): HTML's `<script>` and `<style>`, and the regions
//! a project's `languageInjections` rules capture. Each region's text alone goes through
//! [`rewrite`] with its own language, so every check of the engine runs with that
//! grammar; the results move to the host's offsets and lines, and a host edit wins a
//! collision. After the edits the host is parsed again: each edited region must still be
//! a region of its language exactly where the edits put it, with no more host syntax
//! errors than before, else the file is flagged as a structure change.

use crate::engine::metered::Grep;
use std::str::FromStr;

use ast_grep_config::{DeserializeEnv, RuleCore, SerializableRuleCore};
use ast_grep_core::AstGrep;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_language::SupportLang;
use serde::Deserialize;

use crate::engine::parse::drop_later;
use crate::engine::structure::StructureChange;
use crate::engine::syntax::{error_spans, excerpt};
use crate::engine::{Edit, Rewrite, splice};

use super::script_end::script_end;

/// True when `r`, a region of an HTML file's script (JavaScript or TypeScript),
/// does not end where a browser ends the script element (`script_end`): its
/// text puts the tokenizer in the double escaped state.
fn script_runs_on(host: SupportLang, new: &str, r: &Region) -> bool {
    host == SupportLang::Html
        && matches!(r.lang, SupportLang::JavaScript | SupportLang::TypeScript | SupportLang::Tsx)
        && script_end(new, r.start) != Some(r.end)
}

/// One entry of a project's `languageInjections`, compiled.
pub struct CustomInjection {
    /// The language of the files it looks into (`hostLanguage`).
    pub host: SupportLang,
    /// Its rule: a match's `$CONTENT` is the region, `$LANG` (if captured) names
    /// the region's language.
    rule: RuleCore,
    /// The language of a region when `$LANG` does not name one: `injected` when
    /// it is a single name.
    default_lang: Option<String>,
    /// Every language `injected` names.
    pub langs: Vec<String>,
}

/// `languageInjections` entry as written (ast-grep's `SerializableInjection`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInjection {
    #[serde(flatten)]
    core: SerializableRuleCore,
    host_language: String,
    injected: Injected,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Injected {
    One(String),
    Many(Vec<String>),
}

impl CustomInjection {
    /// Compiles one `languageInjections` entry (its JSON); `Err` says what is
    /// wrong with it.
    pub fn compile(entry: &serde_json::Value) -> Result<CustomInjection, String> {
        let raw: RawInjection = serde_json::from_value(entry.clone()).map_err(|e| e.to_string())?;
        let host = SupportLang::from_str(&raw.host_language)
            .map_err(|_| format!("`hostLanguage: {}` is not a language ast-edit knows (see `ast-edit langs`)", raw.host_language))?;
        let rule = raw.core.get_matcher(DeserializeEnv::new(host)).map_err(|e| e.to_string())?;
        let (default_lang, langs) = match raw.injected {
            Injected::One(l) => (Some(l.clone()), vec![l]),
            Injected::Many(v) => (None, v),
        };
        Ok(CustomInjection { host, rule, default_lang, langs })
    }
}

/// The languages that can be embedded in files of `host`: the built-in ones
/// (HTML's scripts and styles) and those `custom` names for it, as ast-grep
/// resolves their names (unknown names are left out, as ast-grep does).
pub fn embeddable(host: SupportLang, custom: &[CustomInjection]) -> Vec<SupportLang> {
    let named = custom.iter().filter(|c| c.host == host).flat_map(|c| c.langs.iter()).filter_map(|s| SupportLang::from_str(s).ok());
    let mut out: Vec<SupportLang> = crate::request::lang::embedded_in(host).into_iter().chain(named).filter(|l| *l != host).collect();
    out.sort_by_key(|l| l.to_string());
    out.dedup();
    out
}

/// A region of a host file that holds code of another language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// The language of the code in it.
    pub lang: SupportLang,
    /// Its first byte (in the whole file, BOM included).
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
}

/// The regions of `text` (a file of `host`, which starts with `bom` bytes of
/// BOM) whose language `wanted` accepts, in ast-grep's order (the built-in
/// injections, then each `languageInjections` rule's matches), and the number
/// of ERROR/MISSING nodes of the host's tree.
pub(crate) fn regions(host: SupportLang, text: &str, bom: usize, custom: &[CustomInjection], wanted: &dyn Fn(SupportLang) -> bool) -> (Vec<Region>, usize) {
    let grep = crate::engine::metered::parse(&text[bom..], host);
    let found = regions_in(&grep, host, bom, custom, wanted);
    let errors = error_spans(grep.root().get_inner_node().0).len();
    drop_later(grep);
    (found, errors)
}

fn regions_in(grep: &Grep, host: SupportLang, bom: usize, custom: &[CustomInjection], wanted: &dyn Fn(SupportLang) -> bool) -> Vec<Region> {
    let mut out = Vec::new();
    let mut add = |name: &str, start: usize, end: usize| {
        if let Ok(lang) = SupportLang::from_str(name)
            && wanted(lang)
        {
            out.push(Region { lang, start: start + bom, end: end + bom });
        }
    };
    // ast-grep's built-in injections read ast-grep's own document: the same
    // tree and text, unmetered (a fixed walk of the tree, no rule).
    let doc = grep.root().get_doc();
    let own = host.injectable_languages().map(|_| AstGrep::doc(StrDoc { src: doc.text().to_string(), lang: host, tree: doc.tree.clone() }));
    for (name, ranges) in own.as_ref().map(|own| host.extract_injections(own.root())).unwrap_or_default() {
        for r in ranges {
            add(&name, r.start_byte, r.end_byte);
        }
    }
    for c in custom.iter().filter(|c| c.host == host) {
        for m in grep.root().find_all(&c.rule) {
            let env = m.get_env();
            let Some(content) = env.get_match("CONTENT") else { continue };
            let Some(name) = env.get_match("LANG").map(|n| n.text().to_string()).or_else(|| c.default_lang.clone()) else { continue };
            let r = content.range();
            add(&name, r.start, r.end);
        }
    }
    out
}

/// Where a region starts, as a report and a plan count places: its 0-based
/// line and character column in the text it is part of (BOM left out).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Base {
    /// The region's first byte in the whole text.
    pub byte: usize,
    /// 0-based line.
    pub line: usize,
    /// 0-based column, in characters.
    pub column: usize,
    /// 0-based column, in bytes.
    pub column_bytes: usize,
}

impl Base {
    /// The place of byte `at` of `text` (which starts with `bom` bytes of BOM).
    pub(crate) fn of(text: &str, bom: usize, at: usize) -> Base {
        let body = &text.as_bytes()[bom..at];
        let line = memchr::memchr_iter(b'\n', body).count();
        let line_start = memchr::memrchr(b'\n', body).map_or(bom, |i| bom + i + 1);
        Base { byte: at, line, column: text[line_start..at].chars().count(), column_bytes: at - line_start }
    }

    /// A 0-based (line, column) of the region's own text, in the host's.
    pub(crate) fn place(&self, line: usize, column: usize) -> (usize, usize) {
        if line == 0 { (self.line, self.column + column) } else { (self.line + line, column) }
    }

    /// A 1-based line of the region's own text, in the host's.
    fn line1(&self, line: usize) -> usize {
        self.line + line
    }
}

/// The host's rewrite (`None`: no host rule matched) joined with the rewrite
/// of each region: one [`Rewrite`] of the whole file `text` (which starts with
/// `bom` bytes of BOM). `host_errors`: ERROR/MISSING nodes of the host's tree
/// before any edit. `None` when nothing matched anywhere.
pub(in crate::engine) fn join(
    host: Option<Rewrite>,
    parts: Vec<(Region, Rewrite)>,
    lang: SupportLang,
    text: &str,
    bom: usize,
    host_errors: usize,
    custom: &[CustomInjection],
) -> Option<Rewrite> {
    if parts.is_empty() {
        return host;
    }
    if let Some((_, refused)) = parts.iter().find(|(_, rw)| rw.refused.is_some()) {
        return Some(Rewrite { refused: refused.refused.clone(), ..Rewrite::unchanged(text) });
    }
    let mut out = host.unwrap_or_else(|| Rewrite { errors_before: host_errors, errors_after: host_errors, ..Rewrite::unchanged(text) });
    let host_edits = out.edits.clone();
    // The host's errors once its own edits are made: the baseline of the
    // check of the host after the embedded edits.
    let host_errors_after = host_errors + out.errors_after.saturating_sub(out.errors_before);
    // Per part: its region, its kept edits (as offsets of the file), and what
    // it says about lines of its own new text (moved once the file's new text
    // is known).
    let mut kept_parts: Vec<(Region, Vec<Edit>, Rewrite)> = Vec::with_capacity(parts.len());
    for (r, mut rw) in parts {
        let base = Base::of(text, bom, r.start);
        let s = r.start;
        out.findings.extend(rw.findings.drain(..).map(|f| crate::engine::FindingAt { start: f.start + s, ..f }));
        out.unparsed.extend(rw.unparsed.drain(..).map(|u| u + s));
        out.dropped.extend(rw.dropped.drain(..).map(|d| crate::engine::Dropped { at: d.at + s, ..d }));
        out.nested.append(&mut rw.nested);
        out.overlaps += rw.overlaps;
        if let Some(line) = rw.broken_before {
            let line = base.line1(line);
            out.broken_before = Some(out.broken_before.map_or(line, |b| b.min(line)));
        }
        out.errors_before += rw.errors_before;
        out.errors_after += rw.errors_before + rw.errors_after.saturating_sub(rw.errors_before);
        let mut kept = Vec::with_capacity(rw.edits.len());
        for mut e in rw.edits.drain(..) {
            e.start += s;
            e.end += s;
            match out.edits.iter().find(|k| k.start < e.end.max(e.start + 1) && e.start < k.end.max(k.start + 1)) {
                Some(won) => {
                    out.dropped.push(crate::engine::Dropped { lost: e.op, won: won.op, at: e.start, same: e.start == won.start && e.end == won.end });
                    out.overlaps += 1;
                }
                None => {
                    out.edits.push(e.clone());
                    kept.push(e);
                }
            }
        }
        kept_parts.push((r, kept, rw));
    }
    out.edits.sort_by_key(|e| (e.start, e.end));
    out.findings.sort_by_key(|f| f.start);
    out.unparsed.sort_unstable();
    if kept_parts.iter().all(|(_, kept, _)| kept.is_empty()) {
        return Some(out);
    }
    out.new_text = splice(text.as_bytes(), &out.edits);
    let new = std::str::from_utf8(&out.new_text).expect("edits keep UTF-8");
    let moved = |at: usize| -> usize {
        let grow: isize = out.edits.iter().filter(|e| e.start < at).map(|e| e.text.len() as isize - (e.end - e.start) as isize).sum();
        (at as isize + grow) as usize
    };
    let mut expected: Vec<Region> = Vec::new();
    for (r, kept, rw) in &kept_parts {
        if kept.is_empty() {
            continue;
        }
        let new_start = moved(r.start);
        let base = Base::of(new, bom, new_start);
        for e in &rw.syntax_errors {
            let (line, column) = base.place(e.line - 1, e.column - 1);
            let mut e = e.clone();
            if line == base.line {
                let line_start = new[..new_start].rfind('\n').map_or(bom, |i| i + 1);
                let line_end = new[new_start..].find('\n').map_or(new.len(), |i| new_start + i);
                e.excerpt = excerpt(new[line_start..line_end].trim_end_matches('\r'), column);
            }
            out.syntax_errors.push(crate::engine::SyntaxError { line: line + 1, column: column + 1, ..e });
        }
        out.structure.changed |= rw.structure.changed;
        out.structure.changes.extend(rw.structure.changes.iter().map(|c| StructureChange { line: base.line1(c.line), ..c.clone() }));
        let t = &rw.template;
        out.template.checked += t.checked;
        out.template.fallbacks += t.fallbacks;
        out.template.mismatched += t.mismatched;
        out.template.fell_back.extend(t.fell_back.iter().map(|n| crate::engine::TemplateNote { line: base.line1(n.line), ..n.clone() }));
        out.template.mismatches.extend(t.mismatches.iter().map(|n| crate::engine::TemplateNote { line: base.line1(n.line), ..n.clone() }));
        // A host edit over the region replaced it whole (its edits lost): the
        // host's own checks cover that text.
        if host_edits.iter().any(|h| h.start < r.end && r.start < h.end) {
            continue;
        }
        let grow: isize = kept.iter().map(|e| e.text.len() as isize - (e.end - e.start) as isize).sum();
        expected.push(Region { lang: r.lang, start: new_start, end: ((r.end - r.start) as isize + grow) as usize + new_start });
    }
    out.syntax_errors.truncate(crate::engine::MAX_SYNTAX_ERRORS_LISTED);
    out.template.fell_back.truncate(crate::engine::MAX_TEMPLATE_NOTES_LISTED);
    out.template.mismatches.truncate(crate::engine::MAX_TEMPLATE_NOTES_LISTED);
    if let Some(change) = host_check(lang, new, bom, host_errors_after, &expected, custom) {
        out.structure.changed = true;
        out.structure.changes.insert(0, change);
    }
    Some(out)
}

/// The host file after the edits, parsed again: each edited region must still
/// be a region of its language where the edits put its text, an HTML script
/// must still end where the grammar ends it (`script_end`), and the host no
/// more broken than before the embedded code was edited. `None` when it holds.
fn host_check(host: SupportLang, new: &str, bom: usize, host_errors: usize, expected: &[Region], custom: &[CustomInjection]) -> Option<StructureChange> {
    if expected.is_empty() {
        return None;
    }
    let (found, errors) = regions(host, new, bom, custom, &|_| true);
    let lost = expected.iter().find(|r| !found.contains(r));
    let line = |at: usize| Base::of(new, bom, at).line + 1;
    if lost.is_none()
        && let Some(r) = expected.iter().find(|r| script_runs_on(host, new, r))
    {
        return Some(StructureChange {
            line: line(r.start),
            message: format!(
                "the edited {} code no longer ends where the {host} file's `</script>` is, as a browser reads it: the new text holds `<!--` then `<script`, after which that `</script>` does not end the script, and the HTML after it becomes script text; write the string another way (`\\x3C!--`, `<\\/script>`)",
                r.lang
            ),
        });
    }
    match lost {
        Some(r) => Some(StructureChange {
            line: line(r.start),
            message: format!(
                "the edited {} code is no longer one embedded region of the {host} file: the new text ends or changes the region it was in (a `</script>` in a string does that)",
                r.lang
            ),
        }),
        None if errors > host_errors => Some(StructureChange {
            line: line(expected[0].start),
            message: format!("the edits to the embedded {} code add syntax errors to the {host} file around it", expected[0].lang),
        }),
        None => None,
    }
}
