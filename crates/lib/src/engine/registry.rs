//! The ops and rules of a request compiled for each language it meets, with
//! the files each applies to (a rule's `files`/`ignores`):
//! [`Engine`], what the dry run asks "which ops for this file?".

use std::collections::HashMap;
use std::path::Path;

use ast_grep_language::SupportLang;

use crate::compile::{self, CompileError, CompiledOp};
use crate::engine::matching::inject;
use crate::engine::parse::parse_for;
use crate::engine::{Hit, Rewrite, RewriteOptions, RuleMatch, bom_len, hits, report, rewrite};
use crate::request::read::Skip;
use crate::request::{Request, lang};
use crate::shared::error::{Error, Result};
use crate::shared::message::{Say, Text};

/// The ops of a request compiled for every language the run meets.
pub struct Engine {
    by_lang: HashMap<SupportLang, Vec<CompiledOp>>,
    /// A rule set's `files`/`ignores` per rule, and the folder they are relative
    /// to (empty for ops).
    file_globs: Vec<crate::request::ruleset::FileGlobs>,
    base: std::path::PathBuf,
    /// The working directory: a file outside `base` is matched by its path
    /// relative to it.
    cwd: std::path::PathBuf,
    /// Ops that do not compile for some (not all) languages: shown as warnings.
    pub warnings: Vec<Text>,
    /// A project's `languageInjections`, compiled.
    injections: Vec<inject::CustomInjection>,
}

impl Engine {
    /// Compiles `req`'s ops for each language in `langs`.
    ///
    /// An op that compiles for none of them is bad input; one that fails for only
    /// some languages is left out for those and reported in `warnings`. With a
    /// forced language every op must compile for it.
    pub fn new(req: &Request, langs: impl IntoIterator<Item = SupportLang>, cwd: &Path) -> Result<Self> {
        if let Some(set) = &req.rule_set {
            return Engine::for_rules(set, cwd);
        }
        let mut langs: Vec<SupportLang> = langs.into_iter().collect();
        if let Some(l) = req.lang {
            langs = vec![l];
        }
        langs.sort_by_key(|l| lang::name(*l));
        langs.dedup();
        // The languages that files of these can embed (HTML's scripts and
        // styles): compiled too, but where an op does not compile there it is
        // left out silently (no file of that language was met).
        let mut embedded: Vec<SupportLang> = langs.iter().flat_map(|l| lang::embedded_in(*l)).filter(|l| !langs.contains(l)).collect();
        embedded.sort_by_key(|l| lang::name(*l));
        embedded.dedup();
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
        for &l in &embedded {
            let ops: Vec<CompiledOp> = (0..req.ops.len()).filter_map(|i| compile::compile_op(i, req, l).ok()).collect();
            by_lang.insert(l, ops);
        }
        let mut failures: Vec<Vec<(SupportLang, CompileError)>> = vec![Vec::new(); req.ops.len()];
        let mut tried = vec![0usize; req.ops.len()];
        for &l in &langs {
            let mut ops = Vec::new();
            for i in 0..req.ops.len() {
                tried[i] += 1;
                match compile::compile_op(i, req, l) {
                    Ok(op) => ops.push(op),
                    Err(e) => failures[i].push((l, e)),
                }
            }
            by_lang.insert(l, ops);
        }
        let mut warnings = Vec::new();
        for (i, errs) in failures.iter().enumerate() {
            if errs.is_empty() {
                continue;
            }
            if errs.len() == tried[i] {
                let mut msgs = Text::default();
                let mut said: Vec<&Text> = Vec::new();
                // Each message once: one that names no language is the same for
                // all; a language left out as prose only when none other is said.
                let real = errs.iter().any(|(_, e)| !e.prose);
                for (_, e) in errs.iter().filter(|(_, e)| !(real && e.prose)) {
                    if said.contains(&&e.message) {
                        continue;
                    }
                    if !said.is_empty() {
                        msgs.push_str("\n");
                    }
                    said.push(&e.message);
                    msgs = msgs.then(e.message.clone());
                }
                return Err(Error::bad(msgs));
            }
            match errs.as_slice() {
                [(_, e)] if !e.prose => warnings.push(e.message.clone().lit(format!(" Files of that language are not searched for ops[{i}]."))),
                _ => {
                    let searched: Vec<&str> = langs.iter().filter(|l| !errs.iter().any(|(f, _)| f == *l)).map(|l| lang::name(*l)).collect();
                    warnings.push(not_searched_in(req, i, &searched, errs));
                }
            }
        }
        Ok(Engine { by_lang, file_globs: Vec::new(), base: cwd.to_path_buf(), cwd: cwd.to_path_buf(), warnings, injections: Vec::new() })
    }

    /// Compiles every rule of a rule set for its language. A rule that does not
    /// compile is bad input (a project's loader has checked its rules already);
    /// a pattern that does not parse cleanly is one too for a request's rules,
    /// and a warning for a project's (ast-grep loads those).
    pub(crate) fn for_rules(set: &crate::request::ruleset::RuleSet, cwd: &Path) -> Result<Self> {
        let globals = crate::request::ruleset::globals(&set.utils)?;
        let utils = crate::request::rule::utils_key(&set.utils);
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
        let mut file_globs = Vec::with_capacity(set.rules.len());
        let mut warnings = Vec::new();
        // The rules are compiled on the workers (patterns parsed, regexes
        // compiled, the prefilters derived); the first rule in order that fails
        // is the error, as when they are compiled in turn.
        use rayon::prelude::*;
        let compiled: Vec<Result<(CompiledOp, crate::request::ruleset::FileGlobs)>> = set
            .rules
            .par_iter()
            .enumerate()
            .map(|(i, rule)| {
                let config = rule.json();
                let op = compile::compile_rule(i, rule, &config, &globals, &utils, set.base.is_none()).map_err(|e| Error::bad(e.message))?;
                Ok((op, crate::request::ruleset::FileGlobs::of(&config)?))
            })
            .collect();
        // What the loader kept and this did not take is not wanted any more.
        crate::request::rule::forget_kept();
        for (rule, one) in set.rules.iter().zip(compiled) {
            let (op, globs) = one?;
            warnings.extend(op.lint.iter().map(|l| Text::from(l.as_str())));
            by_lang.entry(rule.language()).or_default().push(op);
            file_globs.push(globs);
        }
        let base = set.base.clone().unwrap_or_else(|| cwd.to_path_buf());
        let mut injections = Vec::with_capacity(set.language_injections.len());
        for (i, entry) in set.language_injections.iter().enumerate() {
            injections.push(inject::CustomInjection::compile(entry).map_err(|e| Error::bad(format!("languageInjections[{i}]: {e}")))?);
        }
        Ok(Engine { by_lang, file_globs, base, cwd: cwd.to_path_buf(), warnings, injections })
    }

    /// True when at least one op is compiled for `lang`, or for a language
    /// whose code files of `lang` can embed (files of `lang` are then searched).
    pub(crate) fn has_ops(&self, lang: SupportLang) -> bool {
        let own = |l: SupportLang| self.by_lang.get(&l).is_some_and(|ops| !ops.is_empty());
        own(lang) || inject::embeddable(lang, &self.injections).into_iter().any(own)
    }

    /// Every op or rule compiled for `lang`, whatever a file's path.
    pub(crate) fn all_for(&self, lang: SupportLang) -> Vec<&CompiledOp> {
        self.by_lang.get(&lang).map(|ops| ops.iter().collect()).unwrap_or_default()
    }

    /// The ops that apply to the file at `path` (absolute) of language `lang`.
    pub fn ops_for(&self, lang: SupportLang, path: &Path) -> Vec<&CompiledOp> {
        let Some(ops) = self.by_lang.get(&lang) else { return Vec::new() };
        // As `ast-grep scan`: relative to the project's folder, else (a file
        // outside it) relative to the working directory, as the walk gave it.
        let rel = path.strip_prefix(&self.base).or_else(|_| path.strip_prefix(&self.cwd)).unwrap_or(path);
        ops.iter().filter(|op| self.file_globs.get(op.index).is_none_or(|g| g.allows(rel))).collect()
    }

    /// The ops that apply to the file at `path` (absolute) of language `lang`:
    /// to its own code, and by language to the code embedded in it (its path
    /// decides, as ast-grep matches a rule's `files` for an embedded region).
    /// Worked out once per file and handed to [`Engine::rewrite`],
    /// [`Engine::search`] and [`Engine::report`].
    pub fn file_ops(&self, lang: SupportLang, path: &Path) -> FileOps<'_> {
        let embedded = inject::embeddable(lang, &self.injections).into_iter().map(|l| (l, self.ops_for(l, path))).filter(|(_, ops)| !ops.is_empty()).collect();
        FileOps { lang, own: self.ops_for(lang, path), embedded }
    }

    /// True when files of `lang` can hold code of another language (HTML, or
    /// the host of a `languageInjections` entry).
    pub fn can_embed(&self, lang: SupportLang) -> bool {
        !inject::embeddable(lang, &self.injections).is_empty()
    }

    /// The language of every region of embedded code in `text` (a file of
    /// `lang`), in ast-grep's order, whatever ops there are; nothing for a
    /// language whose files embed no other.
    pub fn embedded_langs(&self, lang: SupportLang, text: &str) -> Vec<SupportLang> {
        if !self.can_embed(lang) {
            return Vec::new();
        }
        inject::regions(lang, text, bom_len(text), &self.injections, &|_| true).0.into_iter().map(|r| r.lang).collect()
    }

    /// The regions of `text` (a file with `ops`) holding embedded code that
    /// some op applies to, with those ops, and the host's error count; nothing
    /// when the prefilter rules every such op out.
    fn regions<'e>(&self, ops: &FileOps<'e>, text: &str, bom: usize, prefilter: bool) -> (Vec<(inject::Region, Vec<&'e CompiledOp>)>, usize) {
        let embedded = &ops.embedded;
        if embedded.iter().all(|(_, ops)| prefilter && !ops.iter().any(|op| op.may_match(text.as_bytes()))) {
            return (Vec::new(), 0);
        }
        let (found, errors) = inject::regions(ops.lang, text, bom, &self.injections, &|l| embedded.iter().any(|(e, _)| *e == l));
        let regions = found.into_iter().map(|r| (r, embedded.iter().find(|(l, _)| *l == r.lang).map(|(_, ops)| ops.clone()).unwrap_or_default())).collect();
        (regions, errors)
    }

    /// [`crate::engine::rewrite`] of a file (`ops`: [`Engine::file_ops`]): its
    /// own code with its ops, and each region of embedded code with the ops of
    /// that code's language, joined into one rewrite of the file.
    pub fn rewrite(&self, ops: &FileOps<'_>, text: &str, opts: RewriteOptions) -> Option<Rewrite> {
        let lang = ops.lang;
        let host = if ops.own.is_empty() { None } else { rewrite(&ops.own, lang, text, opts) };
        if host.as_ref().is_some_and(|h| h.refused.is_some()) {
            return host;
        }
        let bom = bom_len(text);
        let (regions, host_errors) = self.regions(ops, text, bom, opts.prefilter);
        let parts: Vec<(inject::Region, Rewrite)> =
            regions.into_iter().filter_map(|(r, ops)| rewrite(&ops, r.lang, &text[r.start..r.end], opts).map(|rw| (r, rw))).collect();
        inject::join(host, parts, lang, text, bom, host_errors, &self.injections)
    }

    /// Every match of a file's `ops` ([`Engine::file_ops`]), its own code's and
    /// its regions' of embedded code, for a search: see `hits::search`. `Err`
    /// is the reason to skip the file (too deep, as in [`rewrite`]).
    pub fn search(&self, ops: &FileOps<'_>, text: &str, prefilter: bool, each: impl FnMut(usize, &Hit<'_>)) -> std::result::Result<usize, Skip> {
        super::budget::Budget::ensure(|| self.search_metered(ops, text, prefilter, each))
    }

    /// [`Engine::search`], on the thread's meter.
    fn search_metered(&self, ops: &FileOps<'_>, text: &str, prefilter: bool, each: impl FnMut(usize, &Hit<'_>)) -> std::result::Result<usize, Skip> {
        let bom = bom_len(text);
        let mut trees = Vec::new();
        if !ops.own.is_empty()
            && let Some(parsed) = parse_for(&ops.own, ops.lang, text, prefilter).map_err(Skip)?
        {
            trees.push(hits::Tree { parsed, base: inject::Base::default(), end: text.len() });
        }
        for (r, ops) in self.regions(ops, text, bom, prefilter).0 {
            if let Some(parsed) = parse_for(&ops, r.lang, &text[r.start..r.end], prefilter).map_err(Skip)? {
                trees.push(hits::Tree { parsed, base: inject::Base::of(text, bom, r.start), end: r.end });
            }
        }
        hits::search(trees, prefilter, each).map_err(Skip)
    }

    /// The report (`engine::report`) of a file with `ops` ([`Engine::file_ops`]):
    /// its own matches, then those of each region of embedded code, each list
    /// with the language it was matched as (places in the whole file). Lists
    /// without a match are left out.
    pub fn report(&self, ops: &FileOps<'_>, text: &str, prefilter: bool) -> std::result::Result<Vec<(SupportLang, Vec<RuleMatch>)>, Skip> {
        let mut out = Vec::new();
        if !ops.own.is_empty() {
            out.push((ops.lang, report(&ops.own, ops.lang, text, prefilter)?));
        }
        let bom = bom_len(text);
        for (r, ops) in self.regions(ops, text, bom, prefilter).0 {
            let mut matches = report(&ops, r.lang, &text[r.start..r.end], prefilter)?;
            let base = inject::Base::of(text, bom, r.start);
            for m in &mut matches {
                m.shift(&base);
            }
            out.push((r.lang, matches));
        }
        out.retain(|(_, m)| !m.is_empty());
        Ok(out)
    }
}

/// The ops that apply to one file ([`Engine::file_ops`]).
pub struct FileOps<'e> {
    /// The file's language.
    pub lang: SupportLang,
    /// The ops for its own code.
    pub own: Vec<&'e CompiledOp>,
    /// By language, the ops for the code embedded in it (only languages with ops).
    embedded: Vec<(SupportLang, Vec<&'e CompiledOp>)>,
}

impl FileOps<'_> {
    /// True when no op applies to the file, to its own code or to code
    /// embedded in it.
    pub fn is_empty(&self) -> bool {
        self.own.is_empty() && self.embedded.is_empty()
    }

    /// False when the literal prefilter says no op of the file's own code can
    /// match `text` and none runs on embedded code: such a file is not parsed.
    pub fn may_match(&self, text: &[u8]) -> bool {
        !self.embedded.is_empty() || self.own.iter().any(|op| op.may_match(text))
    }
}

/// The one line for an op that is searched in the languages `searched` and not
/// in those of `errs` (prose, text there, or a pattern that does not compile),
/// each named with a short reason.
pub(super) fn not_searched_in(req: &Request, i: usize, searched: &[&str], errs: &[(SupportLang, CompileError)]) -> Text {
    let why: Vec<String> = errs.iter().map(|(l, e)| format!("{} ({})", lang::name(*l), e.short)).collect();
    let line = Text::from(format!(
        "ops[{i}].pat `{}` is searched in {} files; not in {} files. ",
        req.ops[i].pat,
        crate::shared::text::joined(searched, "and"),
        crate::shared::text::joined(&why.iter().map(String::as_str).collect::<Vec<_>>(), "or")
    ));
    if errs.iter().all(|(_, e)| e.prose) {
        line.lit("Name a language with ").name(crate::shared::message::Name::Input(crate::shared::message::Input::Lang)).lit(" to search its files.")
    } else {
        line.say(Say::PickLanguage)
    }
}
