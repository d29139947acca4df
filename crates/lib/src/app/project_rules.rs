//! A request's `project`: the rules of an ast-grep project (its `sgconfig.yml`,
//! or the folder holding one) or of one rule file, named by path and loaded as
//! `scan` loads them, for `ast_edit`, `ast_search` and `run --request`
//! (docs/MCP.md, "A project's rules"). [`validate`] is the front ends' way to
//! check a [`RawRequest`]: without `project` it is [`RawRequest::validate`].

use std::path::Path;

use crate::request::{RawRequest, Request, WalkOptions};
use crate::rules::project::{self, CONFIG_FILE_NAMES, LoadedRules, Project};
use crate::shared::error::{Error, Result};

/// A checked request, and what loading its project had to say (keys nothing
/// reads, ignored `customLanguages`), for the front end to show as warnings.
#[derive(Debug)]
pub struct Checked {
    /// The request.
    pub request: Request,
    /// The project's warnings; empty without `project`.
    pub warnings: Vec<String>,
}

/// Checks `raw` from `cwd`. With `project`, its rules (those `filter` picks)
/// become the request's rule set; `ops`, `rule`, `lang`, `selector` and
/// `strictness` are then refused, since the rule files say all of that. With
/// `root`, nothing of the project may lie outside it
/// ([`Project::check_inside`]), and only a config file inside it gives a
/// rule file its utilities.
pub fn validate(mut raw: RawRequest, cwd: &Path, root: Option<&Path>, walk: WalkOptions, max_filesize: u64) -> Result<Checked> {
    let Some(given) = raw.project.take() else {
        return Ok(Checked { request: raw.validate(cwd, walk, max_filesize)?, warnings: Vec::new() });
    };
    if !raw.ops.is_empty() || raw.rule.is_some() {
        return Err(Error::bad("give one of `ops`, `rule` or `project`: a project's rule files carry their own patterns and fixes"));
    }
    for (key, set) in [("lang", raw.lang.is_some()), ("selector", raw.selector.is_some()), ("strictness", raw.strictness.is_some())] {
        if set {
            return Err(Error::bad(format!("`{key}` does not apply to a `project`: each of its rules says its own `language` and pattern; leave `{key}` out")));
        }
    }
    let filter = raw.filter.take().map(|f| project::parse_filter(&f)).transpose()?;
    let loaded = load(cwd, &given, root, filter.as_ref())?;
    if loaded.rules.is_empty() {
        return Err(Error::bad(format!(
            "project `{given}` has no rule to run: its rules are all `severity: off`{}",
            if loaded.off.is_empty() { " (it has none)" } else { "" }
        )));
    }
    let set = loaded.rule_set();
    let request = raw.validate_rules(|| Ok(set), cwd, walk, max_filesize)?;
    Ok(Checked { request, warnings: loaded.warnings })
}

/// The rules `given` names (a config file, a folder holding one, or a rule
/// file), with the project's warnings (once: [`Project::load_rules`] carries them).
fn load(cwd: &Path, given: &str, root: Option<&Path>, filter: Option<&regex::Regex>) -> Result<LoadedRules> {
    let path = cwd.join(given);
    let what = "give the path of an sgconfig.yml, of the folder holding one, or of a rule file";
    let meta = std::fs::metadata(&path).map_err(|e| Error::bad(format!("project `{given}` cannot be read ({e}): {what}")))?;
    let config = if meta.is_dir() {
        let found = CONFIG_FILE_NAMES.iter().map(|n| path.join(n)).find(|p| p.is_file());
        Some(found.ok_or_else(|| Error::bad(format!("project `{given}` is a folder without {} or {}: {what}", CONFIG_FILE_NAMES[0], CONFIG_FILE_NAMES[1])))?)
    } else if path.file_name().is_some_and(|n| CONFIG_FILE_NAMES.iter().any(|c| n == *c)) {
        Some(path.clone())
    } else {
        None
    };
    // Nothing outside the root is read, not even to say why it is wrong: a
    // config or rule file that is a link out of it is refused by its real path.
    let inside = |file: &Path| -> Result<()> {
        let Some(root) = root else { return Ok(()) };
        let real = file.canonicalize().map_err(|e| Error::bad(format!("project `{given}` cannot be read ({e}): {what}")))?;
        if real.starts_with(root) {
            return Ok(());
        }
        Err(Error::bad(format!(
            "project `{given}` leads outside the server's root {} (to {}): only rules inside the root can run",
            root.display(),
            real.display()
        )))
    };
    if let Some(file) = config {
        inside(&file)?;
        let p = Project::open(&file)?;
        if let Some(root) = root {
            p.check_inside(root)?;
        }
        return p.load_rules(filter);
    }
    // One rule file: it may call the utilities of the project it is in (the
    // nearest config file from `cwd`, as `scan -r FILE`), inside `root`.
    let enclosing = project::find_config(cwd).filter(|f| root.is_none_or(|r| f.canonicalize().is_ok_and(|f| f.starts_with(r))));
    let utils = match enclosing {
        Some(file) => {
            let p = Project::open(&file)?;
            if let Some(root) = root {
                p.check_inside(root)?;
            }
            p.load_utils()?
        }
        None => project::Utils::none(),
    };
    inside(&path)?;
    project::load_rule_file(&path, utils, filter)
}
