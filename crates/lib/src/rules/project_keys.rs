//! The keys of an `sgconfig.yml` that are checked and typed beyond their shape
//! (`rules/project.rs` reads the file): `languageInjections` (each entry
//! compiles, its host is a built-in language), `languageGlobs` (known
//! languages, globs that compile) and `noIgnore` (what the scan's walk leaves
//! unread), with ast-grep's exit classes for what is wrong.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::request::IgnoreKind;
use crate::request::lang::Lang;
use crate::shared::error::{Error, ProjectFault, Result};

/// `languageInjections` checked: a list of entries that each compile (the
/// host language known, the rule valid), as ast-grep checks them.
pub(crate) fn language_injections(raw: Option<Value>, file: &Path) -> Result<Vec<Value>> {
    let invalid = |what: String| Error::project(ProjectFault::Invalid, format!("config file {}: {what}", file.display()));
    let entries = match raw {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(invalid("`languageInjections` must be a list of injection rules (`hostLanguage`, `rule`, `injected`)".into())),
    };
    for (i, entry) in entries.iter().enumerate() {
        // ast-grep fails on such a host without a class of its own (exit 1).
        if let Some(host) = entry.get("hostLanguage").and_then(Value::as_str)
            && <ast_grep_language::SupportLang as std::str::FromStr>::from_str(host).is_err()
        {
            return Err(Error::project(
                ProjectFault::Unclassified,
                format!(
                    "config file {}: languageInjections[{i}]: `hostLanguage: {host}` is not a language ast-edit knows (see `ast-edit langs`); give a built-in language, or remove the entry",
                    file.display()
                ),
            ));
        }
        crate::engine::CustomInjection::compile(entry)
            .map_err(|e| invalid(format!("languageInjections[{i}]: {e}; each entry needs `hostLanguage`, a `rule` whose match captures the embedded code as `$CONTENT`, and `injected` (a language, or a list of them with `$LANG` captured)")))?;
    }
    Ok(entries)
}

/// `languageGlobs` checked: known languages, globs that compile.
pub(crate) fn language_globs(raw: BTreeMap<String, Vec<String>>, file: &Path) -> Result<Vec<(Lang, Vec<String>)>> {
    let mut out: Vec<(Lang, Vec<String>)> = Vec::new();
    for (name, globs) in raw {
        let l = Lang::parse(&name)
            .map_err(|e| Error::project(ProjectFault::UnknownLanguage, e.text()).prefixed(format!("config file {}: `languageGlobs`: ", file.display())))?;
        let mut b = ignore::types::TypesBuilder::new();
        for g in &globs {
            b.add(l.name(), g).and_then(|_| b.select(l.name()).build().map(drop)).map_err(|e| {
                Error::project(ProjectFault::Invalid, format!("config file {}: `languageGlobs` {name}: invalid glob `{g}`: {e}", file.display()))
            })?;
        }
        match out.iter_mut().find(|(o, _)| *o == l) {
            Some((_, have)) => have.extend(globs),
            None => out.push((l, globs)),
        }
    }
    Ok(out)
}

/// A project's `noIgnore`, as the walk takes it: the kinds it leaves unread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoIgnoreConfig(pub Vec<IgnoreKind>);

impl NoIgnoreConfig {
    /// `walk` with this project's kinds left unread too.
    pub fn widen(&self, walk: &mut crate::request::WalkOptions) {
        for k in &self.0 {
            walk.leave_unread(*k);
        }
    }
}
