//! ast-edit's whole-file rule checks (docs/RULES.md): beside ast-grep's rule
//! tests, whose snapshots hold the first match's fix only, a project may name
//! folders of checks (`astEdit: {checkDirs: [...]}` in sgconfig.yml; ast-grep
//! ignores the key). Each check file is `{id: RULE, cases: [{before, after}]}`
//! (or `ids: [...]` for rules that run together): the rules, run by ast-edit's
//! engine on `before` as a whole file, must give exactly `after`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::engine::{self, Engine, RewriteOptions};
use crate::request::ruleset::RuleSet;
use crate::rules::project::{LoadedRules, Project};
use crate::shared::error::{Error, Result};

/// A check file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFile {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    ids: Option<Vec<String>>,
    cases: Vec<Case>,
}

/// One whole-file case.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    before: String,
    after: String,
}

/// The result of one case.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// The check file, relative to the project folder.
    pub file: String,
    /// The rules it runs.
    pub ids: Vec<String>,
    /// The case's position in the file (0-based).
    pub case: usize,
    /// True when the output is exactly `after`.
    pub passed: bool,
    /// What went wrong: a unified diff from the expected to the actual output,
    /// or why the case could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Runs every check of `project` whose rules are all in `loaded` (a `--filter`
/// leaves the others out); a check naming a rule the project does not have fails.
pub fn run(project: &Project, loaded: &LoadedRules, filtered: bool) -> Result<Vec<CheckResult>> {
    let mut out = Vec::new();
    for file in check_files(project)? {
        let shown = project.show(&file);
        let text = crate::shared::named::read_capped_text(&file, super::project::MAX_RULE_FILE_BYTES)
            .map_err(|e| Error::bad(format!("check file {shown} {}", e.reason())))?;
        let check: CheckFile =
            ast_grep_config::from_str(&text).map_err(|e| Error::bad(format!("check file {shown}: {}", crate::shared::error::error_chain(&e))))?;
        let ids: Vec<String> = check.ids.clone().unwrap_or_default().into_iter().chain(check.id.clone()).collect();
        if ids.is_empty() {
            return Err(Error::bad(format!("check file {shown} names no rule: give `id: RULE` or `ids: [RULE, ...]`")));
        }
        let configs: Vec<_> = ids.iter().filter_map(|id| loaded.rules.iter().find(|r| &r.id == id)).map(|r| r.config.clone()).collect();
        if configs.len() < ids.len() {
            if filtered {
                continue;
            }
            let missing: Vec<&str> = ids.iter().filter(|id| !loaded.rules.iter().any(|r| &r.id == *id)).map(String::as_str).collect();
            let problem = Some(format!("no rule {} in the project", missing.join(", ")));
            out.push(CheckResult { file: shown, ids: ids.clone(), case: 0, passed: false, problem });
            continue;
        }
        let set = RuleSet {
            rules: configs,
            utils: loaded.utils.json.clone(),
            base: Some(project.dir.clone()),
            language_globs: Vec::new(),
            language_injections: Vec::new(),
        };
        for (i, case) in check.cases.iter().enumerate() {
            let problem = match rewrite_text(&set, &case.before) {
                Ok(got) if got == case.after => None,
                Ok(got) => Some(crate::plan::diff::unified(&format!("{shown} case {i}"), &case.after, &got)),
                Err(e) => Some(e.to_string()),
            };
            out.push(CheckResult { file: shown.clone(), ids: ids.clone(), case: i, passed: problem.is_none(), problem });
        }
    }
    Ok(out)
}

/// The `.yml`/`.yaml` files of the project's check folders, in path order.
fn check_files(project: &Project) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for dir in &project.check_dirs {
        let dir = project.dir.join(dir);
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::bad(format!("checkDirs: cannot read {}: {e}", dir.display())))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "yml" || x == "yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// `text` as the rules of `set` rewrite it (all of one language), as `scan -U`
/// would write it as the only file.
pub(crate) fn rewrite_text(set: &RuleSet, text: &str) -> Result<String> {
    let engine = Engine::for_rules(set, Path::new("/"))?;
    let lang = set.rules.first().map(|r| r.language()).ok_or_else(|| Error::bad("a check's rules need a language"))?;
    let ops = engine.all_for(lang);
    let opts = RewriteOptions { prefilter: true, check_syntax: false, rewrite_nested: false, verbatim: true };
    Ok(match engine::rewrite(&ops, lang, text, opts) {
        Some(rw) if rw.refused.is_none() => String::from_utf8(rw.new_text).expect("edits keep UTF-8"),
        Some(rw) => return Err(Error::bad(rw.refused.map(|s| s.0.text()).unwrap_or_default())),
        None => text.to_string(),
    })
}
