//! The ops and rules of a request compiled for each language it meets, with
//! the files each applies to (a rule's `files`/`ignores`):
//! [`Engine`], what the dry run asks "which ops for this file?".

use super::*;
use crate::shared::message::{Say, Text};

/// The ops of a request compiled for every language the run meets.
pub struct Engine {
    by_lang: HashMap<SupportLang, Vec<CompiledOp>>,
    /// A rule set's `files`/`ignores` per rule, and the folder they are relative
    /// to (empty for ops).
    file_globs: Vec<crate::request::ruleset::FileGlobs>,
    base: std::path::PathBuf,
    /// Ops that do not compile for some (not all) languages: shown as warnings.
    pub warnings: Vec<Text>,
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
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
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
                for (k, (_, e)) in errs.iter().enumerate() {
                    if k > 0 {
                        msgs.push_str("\n");
                    }
                    msgs = msgs.then(e.message.clone());
                }
                return Err(Error::bad(msgs));
            }
            if let [(_, e)] = errs.as_slice() {
                warnings.push(e.message.clone().lit(format!(" Files of that language are not searched for ops[{i}].")));
            } else {
                let why: Vec<String> = errs.iter().map(|(l, e)| format!("{} ({})", lang::name(*l), e.short)).collect();
                warnings.push(not_searched_in(req, i, &why));
            }
        }
        Ok(Engine { by_lang, file_globs: Vec::new(), base: cwd.to_path_buf(), warnings })
    }

    /// Compiles every rule of a rule set for its language. A rule that does not
    /// compile is bad input (a project's loader has checked its rules already);
    /// a pattern that does not parse cleanly is one too for a request's rules,
    /// and a warning for a project's (ast-grep loads those).
    pub(crate) fn for_rules(set: &crate::request::ruleset::RuleSet, cwd: &Path) -> Result<Self> {
        let globals = crate::request::ruleset::globals(&set.utils)?;
        let mut by_lang: HashMap<SupportLang, Vec<CompiledOp>> = HashMap::new();
        let mut file_globs = Vec::with_capacity(set.rules.len());
        let mut warnings = Vec::new();
        let utils: Vec<serde_json::Value> = set.utils.iter().map(|u| u.json()).collect();
        for (i, rule) in set.rules.iter().enumerate() {
            let lang = rule.language();
            let config = rule.json();
            let op = compile::compile_rule(i, rule, &config, (&globals, &utils), set.base.is_none()).map_err(|e| Error::bad(e.message))?;
            warnings.extend(op.lint.iter().map(|l| Text::from(l.as_str())));
            by_lang.entry(lang).or_default().push(op);
            file_globs.push(crate::request::ruleset::FileGlobs::of(&config)?);
        }
        let base = set.base.clone().unwrap_or_else(|| cwd.to_path_buf());
        Ok(Engine { by_lang, file_globs, base, warnings })
    }

    /// True when at least one op is compiled for `lang`.
    pub(crate) fn has_ops(&self, lang: SupportLang) -> bool {
        self.by_lang.get(&lang).is_some_and(|ops| !ops.is_empty())
    }

    /// Every op or rule compiled for `lang`, whatever a file's path.
    pub(crate) fn all_for(&self, lang: SupportLang) -> Vec<&CompiledOp> {
        self.by_lang.get(&lang).map(|ops| ops.iter().collect()).unwrap_or_default()
    }

    /// The ops that apply to the file at `path` (absolute) of language `lang`.
    pub fn ops_for(&self, lang: SupportLang, path: &Path) -> Vec<&CompiledOp> {
        let Some(ops) = self.by_lang.get(&lang) else { return Vec::new() };
        let rel = path.strip_prefix(&self.base).unwrap_or(path);
        ops.iter().filter(|op| self.file_globs.get(op.index).is_none_or(|g| g.allows(rel))).collect()
    }
}

/// The warning for an op that some languages cannot express: `why` names each
/// language with a short reason.
pub(super) fn not_searched_in(req: &Request, i: usize, why: &[String]) -> Text {
    Text::from(format!(
        "ops[{i}].pat `{}` is not searched in files of {} languages it cannot express there: {}. ",
        req.ops[i].pat,
        why.len(),
        why.join(", ")
    ))
    .say(Say::PickLanguage)
}
