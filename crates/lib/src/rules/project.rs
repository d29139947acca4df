//! ast-grep projects: an `sgconfig.yml` and the rules, utilities and tests it names,
//! loaded as ast-grep's CLI 0.51.1 loads them: finding the config file, `ruleDirs` and
//! `utilDirs`, default and duplicate ids, `severity: off`, `--filter`, warnings for the
//! keys ast-grep ignores, and errors that carry the whole cause chain. The rule language
//! itself is `ast-grep-config`'s. Everything comes back as plain data: each rule as its
//! JSON (checked once by building it with `RuleConfig::try_from`), the utilities, the
//! folder the rules' globs are relative to, `languageGlobs` and `languageInjections`.
//! The user's view: docs/RULES.md, "Projects and rule tests"; the design:
//! docs/DESIGN.md §2.9.

// Ported in part from ast-grep's `crates/cli/src/config.rs` and
// `utils/rule_overwrite.rs` (0.51.1):
//
// MIT License. Copyright (c) 2022 Herrington Darkholme. Permission is hereby
// granted, free of charge, to any person obtaining a copy of this software and
// associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy,
// modify, merge, publish, distribute, sublicense, and/or sell copies of the
// Software, and to permit persons to whom the Software is furnished to do so,
// subject to the following conditions: The above copyright notice and this
// permission notice shall be included in all copies or substantial portions of
// the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
// EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
// MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
// EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
// OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE,
// ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ast_grep_config::{DeserializeEnv, GlobalRules, RuleConfig, SerializableGlobalRule, SerializableRuleConfig, Severity};
use ast_grep_language::SupportLang;
use regex::Regex;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::request::lang::Lang;
use crate::request::rule::{Rule, Util};
pub use crate::rules::project_keys::NoIgnoreConfig;
use crate::rules::project_keys::{language_globs, language_injections};
use crate::shared::error::{Error, ProjectFault, Result, error_chain};
use crate::shared::message::{Input, Name, Text};
use crate::shared::named::{Unread, read_capped_text};

/// The names of a project's config file, in the order they are looked for in
/// each folder (as ast-grep).
pub const CONFIG_FILE_NAMES: [&str; 2] = ["sgconfig.yml", "sgconfig.yaml"];

/// The sgconfig keys ast-grep 0.51.1 reads that ast-edit does not need (other
/// unknown keys get a warning; these are silently accepted).
const QUIET_KEYS: &[&str] = &[];

/// An `sgconfig.yml` as read: its folder and what it names, every path as
/// written (relative to [`Project::dir`]).
#[derive(Clone, Debug)]
pub struct Project {
    /// The config file (canonical).
    pub config_file: PathBuf,
    /// The project folder: the config file's canonical parent.
    pub dir: PathBuf,
    /// `ruleDirs`.
    pub rule_dirs: Vec<PathBuf>,
    /// `utilDirs`.
    pub util_dirs: Vec<PathBuf>,
    /// `testConfigs`.
    pub test_configs: Vec<TestConfig>,
    /// `languageGlobs`: extra file globs per language, checked.
    pub language_globs: Vec<(Lang, Vec<String>)>,
    /// `noIgnore`: what ast-grep disregards when it walks the files of a scan
    /// that finds this project (`hidden`, `dot`, `exclude`, `global`,
    /// `parent`, `vcs`), its rules or rules given on their own alike.
    pub no_ignore: NoIgnoreConfig,
    /// `astEdit.checkDirs`: folders of ast-edit's whole-file checks.
    pub check_dirs: Vec<PathBuf>,
    /// `languageInjections`: each entry as written, checked.
    pub language_injections: Vec<Value>,
    /// The names of its `customLanguages`: ignored (with a warning), as ast-grep
    /// ignores them by default; ast-edit never loads a library from a project.
    pub custom_languages: Vec<String>,
    /// Keys of the config that nothing reads (ignored, as ast-grep ignores them),
    /// and the `customLanguages` ignored.
    pub warnings: Vec<String>,
}

/// One entry of `testConfigs`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestConfig {
    /// The folder of the test files.
    pub test_dir: PathBuf,
    /// The folder of the snapshots, relative to `test_dir` (default `__snapshots__`).
    pub snapshot_dir: Option<PathBuf>,
}

/// The config file as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    rule_dirs: Vec<PathBuf>,
    test_configs: Option<Vec<TestConfig>>,
    util_dirs: Option<Vec<PathBuf>>,
    custom_languages: Option<Value>,
    language_globs: Option<BTreeMap<String, Vec<String>>>,
    language_injections: Option<Value>,
    no_ignore: Option<Vec<crate::request::IgnoreKind>>,
    ast_edit: Option<AstEditConfig>,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// `astEdit:` in sgconfig.yml, ast-edit's own key (ast-grep ignores it).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AstEditConfig {
    #[serde(default)]
    check_dirs: Vec<PathBuf>,
}

/// The config file that applies in `start`: `sgconfig.yml`, else
/// `sgconfig.yaml`, in `start` or the nearest parent folder that has one.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| CONFIG_FILE_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file()))
}

/// The project of `config` when given (`-c FILE`), else of the config file
/// found from `start` ([`find_config`]); no config file is bad input.
pub fn discover(start: &Path, config: Option<&Path>) -> Result<Project> {
    match config {
        Some(file) => Project::open(file),
        None => match find_config(start) {
            Some(file) => Project::open(&file),
            None => Err(Error::project(
                ProjectFault::NotFound,
                format!(
                    "no ast-grep project: neither {} nor {} is in {} or any parent folder; create one (the README's section \"A rule project in CI\" shows one; `ast-edit help scan` says how it is found) or name it with -c FILE",
                    CONFIG_FILE_NAMES[0],
                    CONFIG_FILE_NAMES[1],
                    start.display()
                ),
            )),
        },
    }
}

impl Project {
    /// Reads the config file `file`.
    pub fn open(file: &Path) -> Result<Project> {
        let unreadable = |e: std::io::Error| {
            Error::project(ProjectFault::Unreadable, format!("cannot read config file {}: {e}; check the path and that the file is UTF-8 text", file.display()))
        };
        let config_file = file.canonicalize().map_err(unreadable)?;
        let text = read_capped_text(&config_file, MAX_RULE_FILE_BYTES).map_err(|e| unread(&format!("config file {}", file.display()), &e))?;
        let raw: RawConfig = ast_grep_config::from_str(&text)
            .map_err(|e| Error::project(ProjectFault::Invalid, format!("config file {}: {}", file.display(), yaml_error(&file.display().to_string(), &e))))?;
        let dir = config_file.parent().expect("a file has a parent folder").to_path_buf();
        let mut warnings = refuse_unsupported(&raw, file)?;
        let custom_languages: Vec<String> = match &raw.custom_languages {
            Some(Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        };
        if !custom_languages.is_empty() {
            warnings.push(format!(
                "config file {}: `customLanguages` ({}) are ignored: ast-edit loads no tree-sitter library from a project, so only rules of its built-in languages run (a rule of an ignored language is refused, as in ast-grep)",
                file.display(),
                custom_languages.join(", ")
            ));
        }
        let language_injections = language_injections(raw.language_injections, file)?;
        Ok(Project {
            language_injections,
            custom_languages,
            language_globs: language_globs(raw.language_globs.unwrap_or_default(), file)?,
            config_file,
            dir,
            rule_dirs: raw.rule_dirs,
            util_dirs: raw.util_dirs.unwrap_or_default(),
            test_configs: raw.test_configs.unwrap_or_default(),
            no_ignore: NoIgnoreConfig(raw.no_ignore.unwrap_or_default()),
            check_dirs: raw.ast_edit.map(|a| a.check_dirs).unwrap_or_default(),
            warnings,
        })
    }

    /// Refuses a project that would read files outside `root` (a canonical
    /// folder): its config file, `ruleDirs` or `utilDirs` there, or reached
    /// through a symlink. The folders' walks follow no symlink, so these are
    /// all the places its rules are read from. Checked before any rule is read.
    pub fn check_inside(&self, root: &Path) -> Result<()> {
        let named = std::iter::once(("the config file", self.config_file.clone()))
            .chain(self.rule_dirs.iter().map(|d| ("`ruleDirs`", self.dir.join(d))))
            .chain(self.util_dirs.iter().map(|d| ("`utilDirs`", self.dir.join(d))));
        for (what, path) in named {
            // A folder that is not there is refused when the rules are loaded.
            let Ok(real) = path.canonicalize() else { continue };
            if !real.starts_with(root) {
                return Err(Error::bad(format!(
                    "project {}: {what} leads outside the server's root {} (to {}): only rules inside the root can run",
                    self.config_file.display(),
                    root.display(),
                    real.display()
                )));
            }
        }
        Ok(())
    }

    /// `path` for messages: relative to the project folder when inside it.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.dir).unwrap_or(path).display().to_string()
    }

    /// The global utilities of `utilDirs` (one rule per file), checked together.
    pub fn load_utils(&self) -> Result<Utils> {
        let mut utils = Vec::new();
        let mut files: Vec<PathBuf> = Vec::new();
        for path in yaml_files(&self.dir, &self.util_dirs, "utilDirs", self)? {
            let text = read(&path, self)?;
            let util: SerializableGlobalRule<SupportLang> =
                ast_grep_config::from_str(&text).map_err(|e| invalid(format!("utility file {}: {}", self.show(&path), yaml_error(&self.show(&path), &e))))?;
            if let Some(i) = utils.iter().position(|u: &SerializableGlobalRule<SupportLang>| u.id == util.id) {
                return Err(invalid(format!(
                    "duplicate utility id `{}`: in {} and {}; give each utility a unique `id`",
                    util.id,
                    self.show(&files[i]),
                    self.show(&path)
                )));
            }
            files.push(path);
            utils.push(util);
        }
        Utils::build(utils, files, self)
    }

    /// The project's rules: every YAML file of `ruleDirs`, with the utilities of
    /// `utilDirs`; `filter` keeps the rules whose id it matches.
    pub fn load_rules(&self, filter: Option<&Regex>) -> Result<LoadedRules> {
        let utils = self.load_utils()?;
        // Each file is read and its rules built (patterns parsed, regexes
        // compiled) on the workers; the first file in path order that fails is
        // the error, as when they are read in turn.
        use rayon::prelude::*;
        let files = yaml_files(&self.dir, &self.rule_dirs, "ruleDirs", self)?;
        let kept = crate::request::rule::utils_key(&utils.json);
        let parsed: Vec<Result<Vec<LoadedRule>>> =
            files.par_iter().map(|path| read(path, self).and_then(|text| parse_rules(&text, &self.show(path), Some(path), &utils, &kept))).collect();
        let mut rules = Vec::new();
        for one in parsed {
            rules.extend(one?);
        }
        check_duplicates(&rules, self)?;
        let mut loaded = LoadedRules::new(rules, filter, utils, self.dir.clone())?;
        loaded.language_globs = self.language_globs.clone();
        loaded.language_injections = self.language_injections.clone();
        loaded.warnings = self.warnings.clone();
        Ok(loaded)
    }
}

/// The refused keys, and a warning per key nothing reads.
fn refuse_unsupported(raw: &RawConfig, file: &Path) -> Result<Vec<String>> {
    if let Some(v) = &raw.custom_languages
        && !matches!(v, Value::Object(_) | Value::Null)
    {
        return Err(Error::project(
            ProjectFault::Invalid,
            format!("config file {}: `customLanguages` must be a map from language names to their settings", file.display()),
        ));
    }
    Ok(raw
        .other
        .keys()
        .filter(|k| !QUIET_KEYS.contains(&k.as_str()))
        .map(|k| format!("config file {}: unknown key `{k}` is ignored (as ast-grep ignores it)", file.display()))
        .collect())
}

/// The YAML files (`*.yml`, `*.yaml`) under `dirs`, walked as ast-grep walks
/// rule and utility folders (hidden files and ignored files skipped, ignore
/// files above the folder not read), in path order.
fn yaml_files(base: &Path, dirs: &[PathBuf], key: &str, project: &Project) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in dirs {
        let root = base.join(dir);
        if !root.is_dir() {
            // ast-grep cannot walk a folder that is not there, and reads a file
            // named here as a rule file, which the config file is not.
            let fault = if root.exists() { ProjectFault::Invalid } else { ProjectFault::Unreadable };
            return Err(Error::project(
                fault,
                format!("config file {}: `{key}` names {}, which is not a folder: create it or fix `{key}`", project.config_file.display(), dir.display()),
            ));
        }
        let mut builder = ignore::WalkBuilder::new(&root);
        builder.parents(false).types(ast_grep_language::config_file_type()).sort_by_file_name(|a, b| a.cmp(b));
        out.extend(walk_yaml(builder, &root, project)?);
    }
    Ok(out)
}

/// The YAML files `builder` (a walk of `root`, a folder of `project`, typed to
/// config files) finds, its ignore files checked first. A file of that name
/// that is not a regular file (a FIFO, a socket, a device) is listed too, so
/// reading it refuses it with its kind instead of leaving it out without a word.
pub(crate) fn walk_yaml(mut builder: ignore::WalkBuilder, root: &Path, project: &Project) -> Result<Vec<PathBuf>> {
    let checked = crate::shared::ignore_files::guard(&mut builder, &[root.to_path_buf()], true, |_| true).map_err(|r| refused(&r, project))?;
    let mut out = Vec::new();
    for entry in builder.build() {
        let entry =
            entry.map_err(|e| Error::project(ProjectFault::Unreadable, format!("cannot walk {}: {e}; check the folder's permissions", project.show(root))))?;
        if entry.file_type().is_some_and(|t| !t.is_dir() && !t.is_symlink()) {
            out.push(entry.into_path());
        }
    }
    checked.outcome().map_err(|r| refused(&r, project))?;
    Ok(out)
}

/// An ignore file the walk of a project's folder would read that is not a
/// regular file under its cap: a file of the project that cannot be read.
pub(crate) fn refused(r: &crate::shared::ignore_files::Refused, project: &Project) -> Error {
    Error::project(ProjectFault::Unreadable, r.message(&project.show(&r.path)))
}

fn read(path: &Path, project: &Project) -> Result<String> {
    read_capped_text(path, MAX_RULE_FILE_BYTES).map_err(|e| unread(&project.show(path), &e))
}

/// Most bytes of a config, rule, utility, rule test, check or snapshot file
/// (docs/DESIGN.md §7): a larger one is not read.
pub const MAX_RULE_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A named file that was not read ([`crate::shared::named`]): one that is not
/// a regular file or is over the cap is bad input, whose message says what it
/// is; one that cannot be opened or read is unreadable.
pub(crate) fn unread(shown: &str, e: &Unread) -> Error {
    match e {
        Unread::Io(io) => unreadable(shown, io),
        Unread::NotRegular(_) => Error::project(ProjectFault::Unreadable, format!("{shown} {}: name a regular file", e.reason())),
        Unread::TooLarge { .. } => Error::project(ProjectFault::Unreadable, format!("{shown} {} for such a file: split it", e.reason())),
    }
}

/// A file that cannot be read (missing, no permission, not UTF-8).
pub(crate) fn unreadable(shown: &str, e: &std::io::Error) -> Error {
    Error::project(ProjectFault::Unreadable, format!("cannot read {shown}: {e}; check the file's permissions and that it is UTF-8 text"))
}

/// A config, rule, utility or test file that does not parse or build.
fn invalid(msg: impl Into<crate::shared::message::Text>) -> Error {
    Error::project(ProjectFault::Invalid, msg)
}

/// Global utility rules, as JSON and built.
#[derive(Clone, Default)]
pub struct Utils {
    /// Each utility, typed.
    pub json: Vec<Util>,
    /// The file of each utility (empty when not from files).
    pub files: Vec<PathBuf>,
    globals: GlobalRules,
}

impl std::fmt::Debug for Utils {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Utils").field("json", &self.json).field("files", &self.files).finish_non_exhaustive()
    }
}

impl Utils {
    /// No utilities (a rule file or inline rules outside any project).
    pub fn none() -> Utils {
        Utils::default()
    }

    /// The registered utilities, for building rules that call them.
    pub(crate) fn globals(&self) -> &GlobalRules {
        &self.globals
    }

    /// Builds utilities from their typed configs (as [`Utils::json`] holds them).
    pub fn from_json(json: &[Util]) -> Result<Utils> {
        let parsed = json.iter().map(|u| u.config().clone()).collect();
        let globals = DeserializeEnv::<SupportLang>::parse_global_utils(parsed).map_err(|e| Error::bad(format!("utility rules: {}", error_chain(&e))))?;
        Ok(Utils { json: json.to_vec(), files: Vec::new(), globals })
    }

    fn build(utils: Vec<SerializableGlobalRule<SupportLang>>, files: Vec<PathBuf>, project: &Project) -> Result<Utils> {
        let mut json = Vec::with_capacity(utils.len());
        for (u, file) in utils.iter().zip(&files) {
            let typed = Util::new(u.clone());
            let name = format!("utility file {}", project.show(file));
            crate::request::ruleset::check_rule_limits(&name, &typed.json(), u.language)?;
            json.push(typed);
        }
        let globals = DeserializeEnv::<SupportLang>::parse_global_utils(utils)
            .map_err(|e| invalid(format!("utility rules of `utilDirs` in {}: {}", project.show(&project.config_file), error_chain(&e))))?;
        Ok(Utils { json, files, globals })
    }
}

/// One rule, checked, as plain data.
#[derive(Clone, Debug)]
pub struct LoadedRule {
    /// Its id (the file's stem when the rule has none, `stem-N` in a file of
    /// several rules).
    pub id: String,
    /// The file it came from (`None` for inline rules).
    pub file: Option<PathBuf>,
    /// Its place among the rules of its file, from 0.
    pub index: usize,
    /// Its severity ([`LoadedRule::severity`]).
    pub(crate) severity: Severity,
    /// The rule config, typed, with `id` set.
    pub config: Rule,
}

impl LoadedRule {
    /// Its severity; `None` for `off`.
    pub fn severity(&self) -> Option<crate::engine::Severity> {
        crate::engine::Severity::of(&self.severity)
    }
}

/// Rules loaded from a project, a rule file or inline text.
#[derive(Clone, Debug)]
pub struct LoadedRules {
    /// The rules to run, in file order (`severity: off` left out).
    pub rules: Vec<LoadedRule>,
    /// The rules left out because of `severity: off`.
    pub off: Vec<LoadedRule>,
    /// How many rules `--filter` left out (they are in neither list).
    pub filtered: usize,
    /// The global utilities the rules may call (`matches: util-id`).
    pub utils: Utils,
    /// The folder the rules' `files`/`ignores` globs are relative to: the
    /// project folder, the rule file's folder, or the working directory.
    pub base: PathBuf,
    /// The project's `languageGlobs` (empty outside a project).
    pub language_globs: Vec<(Lang, Vec<String>)>,
    /// The project's `languageInjections` (empty outside a project).
    pub language_injections: Vec<Value>,
    /// What was ignored (unknown config keys).
    pub warnings: Vec<String>,
}

impl LoadedRules {
    /// Applies `filter` (nothing matching is an error, as in ast-grep) and sets
    /// `severity: off` rules aside.
    fn new(all: Vec<LoadedRule>, filter: Option<&Regex>, utils: Utils, base: PathBuf) -> Result<LoadedRules> {
        let read = all.len();
        let all = match filter {
            Some(re) => {
                let kept: Vec<LoadedRule> = all.iter().filter(|r| re.is_match(&r.id)).cloned().collect();
                if kept.is_empty() {
                    return Err(no_rule_matches(re, &all));
                }
                kept
            }
            None => all,
        };
        let filtered = read - all.len();
        let (off, rules) = all.into_iter().partition(|r| r.severity == Severity::Off);
        Ok(LoadedRules { rules, off, filtered, utils, base, language_globs: Vec::new(), language_injections: Vec::new(), warnings: Vec::new() })
    }

    /// The rules to run as a request's rule set, with the utilities, the base
    /// folder of their globs and the project's language settings.
    pub fn rule_set(&self) -> crate::request::ruleset::RuleSet {
        crate::request::ruleset::RuleSet {
            rules: self.rules.iter().map(|r| r.config.clone()).collect(),
            utils: self.utils.json.clone(),
            base: Some(self.base.clone()),
            language_globs: self.language_globs.iter().map(|(l, g)| (l.name().to_string(), g.clone())).collect(),
            language_injections: self.language_injections.clone(),
        }
    }
}

/// Builds every rule of `loaded` (they were checked at load, so this fails
/// only if the JSON was changed since). For the tests, through
/// `ast_edit::testing`: ast-grep's compiled rule is no part of the API.
#[cfg(any(test, doc, feature = "testing"))]
pub fn rebuild_rules(loaded: &LoadedRules) -> Result<Vec<RuleConfig<SupportLang>>> {
    loaded.rules.iter().map(|r| build_rule(&r.config, loaded.utils.globals())).collect()
}

/// Builds one rule config with the utilities `utils` (`build_rule`), for the
/// tests, through `ast_edit::testing`.
#[cfg(any(test, doc, feature = "testing"))]
pub fn rebuild_rule(config: &Rule, utils: &Utils) -> Result<RuleConfig<SupportLang>> {
    build_rule(config, utils.globals())
}

/// Builds one rule config with `globals`; the error is the whole cause chain.
pub fn build_rule(config: &Rule, globals: &GlobalRules) -> Result<RuleConfig<SupportLang>> {
    config.build(globals).map_err(|e| Error::bad(format!("rule `{}`: {e}", config.id())))
}

/// `--filter REGEX` compiled; a bad regex is bad input.
pub fn parse_filter(text: &str) -> Result<Regex> {
    Regex::new(text).map_err(|e| Error::bad(Text::from("").name(Name::Input(Input::Filter)).lit(format!(" `{text}` is not a valid regular expression: {e}"))))
}

fn no_rule_matches(re: &Regex, all: &[LoadedRule]) -> Error {
    const SHOWN: usize = 20;
    let ids: Vec<&str> = all.iter().take(SHOWN).map(|r| r.id.as_str()).collect();
    let more = if all.len() > SHOWN { format!(" and {} more", all.len() - SHOWN) } else { String::new() };
    Error::project(
        ProjectFault::NoRuleMatches,
        Text::from("")
            .name(Name::Input(Input::Filter))
            .lit(format!(" `{re}` matches no rule id; the ids are: {}{more}", if ids.is_empty() { "(no rules)".to_string() } else { ids.join(", ") })),
    )
}

fn check_duplicates(rules: &[LoadedRule], project: &Project) -> Result<()> {
    let mut seen: HashMap<&str, &LoadedRule> = HashMap::new();
    for r in rules {
        if let Some(first) = seen.insert(&r.id, r) {
            let at = |x: &LoadedRule| x.file.as_deref().map(|f| project.show(f)).unwrap_or_default();
            return Err(invalid(format!("duplicate rule id `{}`: in {} and {}; give each rule a unique `id`", r.id, at(first), at(r))));
        }
    }
    Ok(())
}

/// The rules of one rule file (YAML or JSON, one or more documents), with
/// default ids from the file's stem, as `ast-grep scan -r FILE` reads it; the
/// utilities of `utils` may be called. `files`/`ignores` globs are relative to
/// the file's folder.
pub fn load_rule_file(path: &Path, utils: Utils, filter: Option<&Regex>) -> Result<LoadedRules> {
    let text = read_capped_text(path, MAX_RULE_FILE_BYTES).map_err(|e| unread(&format!("rule file {}", path.display()), &e))?;
    let rules = parse_rules(&text, &path.display().to_string(), Some(path), &utils, &crate::request::rule::utils_key(&utils.json))?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let base = parent.canonicalize().or_else(|_| crate::shared::paths::current_dir())?;
    LoadedRules::new(rules, filter, utils, base)
}

/// Inline rules (`--inline-rules TEXT`: YAML, one or more documents; no default
/// ids, as ast-grep); `files`/`ignores` globs are relative to the working folder.
pub fn parse_inline(text: &str, utils: Utils, filter: Option<&Regex>) -> Result<LoadedRules> {
    let rules = parse_rules(text, "--inline-rules", None, &utils, &crate::request::rule::utils_key(&utils.json))?;
    LoadedRules::new(rules, filter, utils, crate::shared::paths::current_dir()?)
}

/// Parses and checks the rules of one YAML text; `shown` names it in errors,
/// `file` gives default ids. Each rule is built with `utils` and kept for the
/// engine under `kept`, their [`crate::request::rule::utils_key`] (worked out
/// once per project, not per file).
fn parse_rules(text: &str, shown: &str, file: Option<&Path>, utils: &Utils, kept: &str) -> Result<Vec<LoadedRule>> {
    let docs: Vec<SerializableRuleConfig<SupportLang>> =
        ast_grep_config::from_multiple(text).map_err(|e| invalid(format!("{shown}: {}", yaml_error(shown, &e))))?;
    let stem = match file {
        Some(f) => Some(
            f.file_stem()
                .and_then(|s| s.to_str())
                .ok_or_else(|| invalid(format!("{shown}: cannot make a rule id from the file name (not UTF-8): add an `id` to each rule")))?,
        ),
        None => None,
    };
    let several = docs.len() > 1;
    let mut out = Vec::with_capacity(docs.len());
    for (index, mut doc) in docs.into_iter().enumerate() {
        if doc.id.is_empty()
            && let Some(stem) = stem
        {
            doc.id = if several { format!("{stem}-{index}") } else { stem.to_string() };
        }
        let name = rule_name(&doc.id, index, several);
        let (id, severity, language) = (doc.id.clone(), doc.severity.clone(), doc.language);
        let config = Rule::new(doc);
        crate::request::ruleset::check_rule_limits(&format!("{shown}: {name}"), &config.json(), language)?;
        config.build_and_keep(&utils.globals, kept).map_err(|e| invalid(format!("{shown}: {name}: {e}")))?;
        out.push(LoadedRule { id, file: file.map(Path::to_path_buf), index, severity, config });
    }
    Ok(out)
}

/// `rule `id`` (with its document number when the file holds several), or
/// `document N` for a rule without id.
fn rule_name(id: &str, index: usize, several: bool) -> String {
    match (id.is_empty(), several) {
        (true, _) => format!("document {}", index + 1),
        (false, true) => format!("rule `{id}` (document {})", index + 1),
        (false, false) => format!("rule `{id}`"),
    }
}

/// A language ast-edit does not know is one ast-grep would need a custom
/// language for: say which names work.
fn hint_language(chain: String) -> String {
    if chain.contains("is not supported!") {
        format!("{chain}\nnote: ast-edit supports only its built-in languages (`ast-edit langs` lists them); custom languages are not supported")
    } else {
        chain
    }
}

/// A YAML error of serde-saphyr shows its snippet as from `<input>`: name the file.
fn yaml_error(shown: &str, e: &dyn std::error::Error) -> String {
    hint_language(error_chain(e).replace("<input>", shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<Vec<LoadedRule>>) -> String {
        r.expect_err("an error").to_string()
    }

    #[test]
    fn undefined_fix_metavariable_names_the_rule_and_the_variable() {
        let e = msg(parse_rules("id: x\nlanguage: python\nrule: {pattern: f($A)}\nfix: g($B)\n", "r.yml", None, &Utils::none(), ""));
        assert!(e.starts_with("r.yml: rule `x`: "), "{e}");
        assert!(e.contains("Undefined meta var `B` used in `fix`."), "{e}");
    }

    #[test]
    fn misspelt_rule_key_gives_the_line_and_column_once() {
        let e = msg(parse_rules("id: x\nlanguage: python\nrule: {patern: f($A)}\n", "r.yml", None, &Utils::none(), ""));
        assert!(e.starts_with("r.yml: error: line 3 column 1: unknown field `patern`"), "{e}");
        assert!(e.contains(" --> r.yml:3:1"), "{e}");
        assert_eq!(e.matches("unknown field").count(), 2, "the message and the snippet's caret line, not a third copy: {e}");
    }

    /// A rule config holds hash maps (`constraints`, `transform`, `utils`), whose
    /// order differs from map to map; the JSON kept for the store (and hashed into
    /// `rulesDigest`) has its keys sorted, so it is the same bytes every time.
    #[test]
    fn stored_rules_are_the_same_bytes_with_sorted_keys_whatever_the_hash_order() {
        let names: Vec<String> = (0..24).map(|i| format!("V{i:02}")).collect();
        let utils: String = names.iter().map(|n| format!("  {n}: {{regex: x}}\n")).collect();
        let text = format!("id: r\nlanguage: python\nrule: {{pattern: f($A)}}\nutils:\n{utils}fix: g($A)\n");
        let bytes = |_| {
            let rules = parse_rules(&text, "r.yml", None, &Utils::none(), "").unwrap();
            serde_json::to_string(&rules[0].config).unwrap()
        };
        let first = bytes(0);
        assert!((1..20).map(bytes).all(|b| b == first), "{first}");
        let keys: Vec<&str> = first.split("\"V").skip(1).map(|k| &k[..2]).collect();
        assert_eq!(keys.len(), names.len(), "{first}");
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{first}");
    }

    #[test]
    fn default_ids_come_from_the_stem_and_the_document_number() {
        let g = Utils::none();
        let one = parse_rules("language: go\nrule: {pattern: f()}\n", "a.yml", Some(Path::new("d/a.yml")), &g, "").unwrap();
        assert_eq!(one[0].id, "a");
        assert_eq!(one[0].config.json()["id"], "a");
        assert_eq!(one[0].config.json()["language"], "go");
        let two = parse_rules(
            "language: go\nrule: {pattern: f()}\n---\nid: own\nlanguage: go\nrule: {pattern: g()}\n---\nlanguage: go\nrule: {pattern: h()}\n",
            "b.yml",
            Some(Path::new("b.yml")),
            &g,
            "",
        )
        .unwrap();
        let ids: Vec<&str> = two.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["b-0", "own", "b-2"]);
    }
}
