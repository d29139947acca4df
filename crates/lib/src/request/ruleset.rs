//! ast-grep rule configs as ast-edit's rule type (docs/RULES.md): the `rule` of a
//! request (a YAML string, a JSON object or an array of them) read into rule
//! configs, each compiled with `ast_grep_config::RuleConfig::try_from` for its
//! language, with what the engine needs beside it: the literal prefilter derived
//! from the parts of the rule that must match, whether matching compares code
//! (a metavariable used twice), and the `files`/`ignores` globs.
//!
//! A request's ops (`pat` -> `out`) become rule configs too
//! (`OpRule`), so every edit runs through one matching and fixing path.

use std::path::{Path, PathBuf};

use ast_grep_config::GlobalRules;
use ast_grep_language::SupportLang;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::request::lang;
use crate::request::rule::{Rule, Util};
use crate::request::{MAX_NESTING, MAX_OPS, MAX_OPS_BYTES, MAX_PATTERN_BYTES, MAX_PATTERN_DEPTH, Strictness, bracket_depth, parse_pattern};
use crate::shared::error::{Error, Result, error_chain};

/// The rules of a request: rule configs and the global utilities they may call
/// (`matches: util-id`), typed ([`Rule`], [`Util`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// Rule configs as ast-grep reads them, each with its `language`.
    pub rules: Vec<Rule>,
    /// Global utility rules (an sgconfig project's `utilDirs`).
    pub utils: Vec<Util>,
    /// The folder that the rules' `files`/`ignores` globs are relative to (the
    /// project's folder, or the rule file's); `None`: the working directory.
    pub base: Option<PathBuf>,
    /// A project's `languageGlobs`: files matching a language's globs are read as
    /// that language, before their extension is looked at (as ast-grep does).
    pub language_globs: Vec<(String, Vec<String>)>,
    /// A project's `languageInjections`, as written (checked when the project
    /// is loaded, compiled by the engine): rules that find regions of code of
    /// one language in files of another.
    pub language_injections: Vec<serde_json::Value>,
}

/// `languageGlobs` compiled: the language a file is read as, when a glob says.
#[derive(Clone, Debug, Default)]
pub(crate) struct LanguageGlobs(Vec<(SupportLang, GlobSet)>);

impl LanguageGlobs {
    /// Compiles `(language, globs)` pairs.
    pub fn of(list: &[(String, Vec<String>)]) -> Result<LanguageGlobs> {
        let mut out = Vec::new();
        for (name, globs) in list {
            let lang = lang::parse_lang(name)?;
            let mut b = GlobSetBuilder::new();
            for g in globs {
                b.add(GlobBuilder::new(g).build().map_err(|e| Error::bad(format!("languageGlobs.{name}: invalid glob `{g}`: {e}")))?);
            }
            out.push((lang, b.build().map_err(|e| Error::bad(format!("languageGlobs.{name}: {e}")))?));
        }
        Ok(LanguageGlobs(out))
    }

    /// The language the globs give the file at `path` (matched on its name and
    /// on the whole path), if any.
    pub(crate) fn lang_of(&self, path: &Path) -> Option<SupportLang> {
        let name = path.file_name().map(Path::new);
        self.0.iter().find(|(_, set)| set.is_match(path) || name.is_some_and(|n| set.is_match(n))).map(|(l, _)| *l)
    }
}

/// Reads the `rule` of a request: a YAML string (one or more documents), a JSON
/// object, or an array of objects. `lang` fills a rule's missing `language`; a
/// rule naming another language is refused. The limits are checked on the JSON,
/// before the configs are typed ([`typed`]).
pub(crate) fn parse_input(input: &Value, lang: Option<SupportLang>) -> Result<Vec<Value>> {
    let docs: Vec<Value> = match input {
        Value::String(yaml) => {
            if yaml.len() > MAX_OPS_BYTES {
                return Err(Error::bad(format!("`rule` is {} bytes; the limit is {MAX_OPS_BYTES} bytes of rules per request: split the edit", yaml.len())));
            }
            ast_grep_config::from_multiple::<Value>(yaml).map_err(|e| {
                let chain = error_chain(&e);
                // The reader's limits (nodes, depth, aliases) are not a syntax error.
                if chain.contains("budget breached") {
                    Error::bad(format!(
                        "`rule` is more YAML than the reader takes (anchors and aliases count as what they expand to; write the rule without them): {chain}"
                    ))
                } else {
                    Error::bad(format!("`rule` is not valid YAML: {chain}"))
                }
            })?
        }
        Value::Object(_) => vec![input.clone()],
        Value::Array(items) => items.clone(),
        _ => return Err(Error::bad("`rule` must be a YAML string, a rule object or an array of rule objects")),
    };
    if docs.is_empty() {
        return Err(Error::bad("`rule` holds no rule: give at least one rule config with `rule` and `fix`"));
    }
    if docs.len() > MAX_OPS {
        return Err(Error::bad(format!("`rule` holds {} rules; the limit is {MAX_OPS} per request", docs.len())));
    }
    let bytes: usize = docs.iter().map(|d| d.to_string().len()).sum();
    if bytes > MAX_OPS_BYTES {
        return Err(Error::bad(format!("`rule` holds {bytes} bytes of rules; the limit is {MAX_OPS_BYTES} bytes per request: split the edit")));
    }
    docs.into_iter().enumerate().map(|(i, d)| fill_language(i, d, lang)).collect()
}

/// One rule of [`parse_input`] with its `language` set, or why not.
fn fill_language(i: usize, doc: Value, lang: Option<SupportLang>) -> Result<Value> {
    let Value::Object(mut map) = doc else {
        return Err(Error::bad(format!(
            "rule {i} of `rule` is not an object: give a rule config such as {{id: x, language: python, rule: {{pattern: 'print($A)'}}, fix: 'log($A)'}}"
        )));
    };
    let name = rule_name(i, &map);
    match (map.get("language"), lang) {
        (None, Some(l)) => {
            map.insert("language".into(), Value::String(lang::name(l).into()));
        }
        (None, None) => {
            return Err(Error::bad(format!("{name} has no `language`: add one (`language: python`) or give the request's `lang`")));
        }
        (Some(Value::String(s)), given) => {
            let own = lang::parse_lang(s).map_err(|e| e.prefixed(format!("{name}: ")))?;
            if let Some(l) = given.filter(|l| *l != own) {
                return Err(Error::bad(format!("{name} has `language: {s}` but the request's `lang` is {}: drop one of them", lang::name(l))));
            }
            map.insert("language".into(), Value::String(lang::name(own).into()));
        }
        (Some(other), _) => return Err(Error::bad(format!("{name}: `language` must be a string, not {other}"))),
    }
    let rule = Value::Object(map);
    check_rule_limits(&name, &rule, language_of(&rule).expect("set above"))?;
    Ok(rule)
}

/// `rule `id`` or `rule N` for messages.
fn rule_name(i: usize, map: &Map<String, Value>) -> String {
    match map.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => format!("rule `{id}`"),
        _ => format!("rule {i}"),
    }
}

/// The limits of a request's patterns, kept by a rule config of `lang` (a
/// request's `rule`, a rule file, a project's rules and utilities) before
/// anything builds it: every string (a pattern, a fix, a regex) at most
/// [`MAX_PATTERN_BYTES`] bytes with bracket nesting at most [`MAX_NESTING`], the
/// rule at most [`MAX_NESTING`] levels of objects, and every `pattern` (or its
/// `context`), wherever it stands (rewriters and utilities too), at most
/// [`MAX_PATTERN_DEPTH`] levels deep as `lang`. ast-grep-core builds and
/// matches a pattern by recursion, so a deeper one would overflow the stack.
/// `name` names the rule in the message.
pub(crate) fn check_rule_limits(name: &str, rule: &Value, lang: SupportLang) -> Result<()> {
    check_strings(name, rule, 0)?;
    check_pattern_depths(name, rule, lang)
}

/// The depth part of [`check_rule_limits`] (its recursion is bounded by the
/// nesting [`check_strings`] allows).
fn check_pattern_depths(name: &str, v: &Value, lang: SupportLang) -> Result<()> {
    match v {
        Value::Object(m) => m.iter().try_for_each(|(k, x)| {
            if let (Value::String(pat), "pattern" | "context") = (x, k.as_str()) {
                let depth = parse_pattern(pat, lang).1;
                if depth > MAX_PATTERN_DEPTH {
                    return Err(Error::bad(format!(
                        "{name} holds a pattern nested {depth} levels deep as {} (its syntax tree); the limit is {MAX_PATTERN_DEPTH} levels: let a metavariable ($A) stand for the inner levels",
                        lang::name(lang)
                    )));
                }
            }
            check_pattern_depths(name, x, lang)
        }),
        Value::Array(a) => a.iter().try_for_each(|x| check_pattern_depths(name, x, lang)),
        _ => Ok(()),
    }
}

/// The request limits of a pattern apply to every string of a rule (a pattern,
/// a fix, a regex): at most [`MAX_PATTERN_BYTES`] bytes, bracket nesting at most
/// [`MAX_NESTING`]; the rule itself at most [`MAX_NESTING`] levels of objects.
fn check_strings(name: &str, v: &Value, depth: usize) -> Result<()> {
    if depth > MAX_NESTING {
        return Err(Error::bad(format!("{name} is nested more than {MAX_NESTING} levels deep; the limit is {MAX_NESTING}")));
    }
    match v {
        Value::String(s) if s.len() > MAX_PATTERN_BYTES => {
            Err(Error::bad(format!("{name} holds a string of {} bytes; the limit is {MAX_PATTERN_BYTES} bytes per pattern or fix", s.len())))
        }
        Value::String(s) if bracket_depth(s) > MAX_NESTING => {
            Err(Error::bad(format!("{name} holds a pattern nested {} brackets deep; the limit is {MAX_NESTING}", bracket_depth(s))))
        }
        Value::Array(a) => a.iter().try_for_each(|x| check_strings(name, x, depth + 1)),
        Value::Object(m) => m.values().try_for_each(|x| check_strings(name, x, depth + 1)),
        _ => Ok(()),
    }
}

/// The language of a rule config (set by [`parse_input`] or a project loader).
pub(crate) fn language_of(rule: &Value) -> Option<SupportLang> {
    rule.get("language").and_then(Value::as_str).and_then(|s| lang::parse_lang(s).ok())
}

/// The id of a rule config (empty when it has none).
pub(crate) fn id_of(rule: &Value) -> &str {
    rule.get("id").and_then(Value::as_str).unwrap_or("")
}

/// The rules [`parse_input`] read, typed: a config ast-grep-config refuses is
/// bad input naming the rule (`rule `id``, or `rule N` without an id).
pub(crate) fn typed(rules: Vec<Value>) -> Result<Vec<Rule>> {
    rules
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let name = match v.as_object() {
                Some(m) => rule_name(i, m),
                None => format!("rule {i}"),
            };
            Rule::from_json(v).map_err(|e| Error::bad(format!("{name}: {e}")))
        })
        .collect()
}

/// The global utilities, registered for every rule.
pub(crate) fn globals(utils: &[Util]) -> Result<GlobalRules> {
    if utils.is_empty() {
        return Ok(GlobalRules::default());
    }
    let parsed = utils.iter().map(|u| u.config().clone()).collect();
    ast_grep_config::DeserializeEnv::<SupportLang>::parse_global_utils(parsed).map_err(|e| Error::bad(format!("utility rules: {}", error_chain(&e))))
}

/// One op as an ast-grep rule config, in JSON: `{"id", "language", "rule":
/// {"pattern": ...}, "fix"}`. Compiled for each language the op meets, and
/// stored with an `ast_edit` action (`language` then the request's, `null`
/// when it is inferred per file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OpRule {
    /// `op-N`, with N the op's index in the request (0-based, as in `ops[N]`).
    pub id: String,
    /// The language (`lang::name`), or `None` for every language the op meets.
    pub language: Option<String>,
    /// What matches.
    pub rule: RuleCore,
    /// The rewrite template (empty deletes the match).
    pub fix: String,
}

/// The `rule` of an [`OpRule`]: a pattern only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RuleCore {
    /// The pattern, plain or with its selector and strictness.
    pub pattern: PatternSpec,
}

/// An ast-grep pattern as a rule config writes it: a string, or
/// `{"context", "selector"?, "strictness"?}` when a selector or a strictness other
/// than the default (`smart`) applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum PatternSpec {
    /// Just the pattern.
    Plain(String),
    /// The pattern as context, with the node kind to pick and the strictness.
    Contextual {
        /// The pattern.
        context: String,
        /// Tree-sitter node kind matched inside the context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        selector: Option<String>,
        /// Match strictness, when not `smart`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strictness: Option<Strictness>,
    },
}

impl OpRule {
    /// Op `i` of `req` as a rule config for `lang`: the request's selector and
    /// strictness go into the pattern (`{"context", "selector"?, "strictness"?}`)
    /// when it has either.
    pub fn of(req: &crate::request::Request, i: usize, lang: Option<SupportLang>) -> OpRule {
        let op = &req.ops[i];
        let selector = req.selector.clone();
        let strictness = Some(req.strictness).filter(|s| *s != Strictness::Smart);
        let pattern = if selector.is_none() && strictness.is_none() {
            PatternSpec::Plain(op.pat.clone())
        } else {
            PatternSpec::Contextual { context: op.pat.clone(), selector, strictness }
        };
        OpRule { id: crate::request::op_id(i), language: lang.map(|l| lang::name(l).to_string()), rule: RuleCore { pattern }, fix: op.out.clone() }
    }
}

/// Every `pattern` of a rule as `(pattern, selector, strictness)`, with whether it
/// must match for the rule to match: under `rule`, `all`, and the `rule` part of
/// `inside`/`has`/`follows`/`precedes` (never their `stopBy`); not under `any`,
/// `not`, `matches` or `constraints`, nor in `utils`.
pub(crate) fn patterns(rule: &Value) -> Vec<(PatternRef<'_>, Need)> {
    let mut out = Vec::new();
    if let Some(r) = rule.get("rule") {
        walk_patterns(r, Need::InNode, &mut out);
    }
    for key in ["constraints", "utils"] {
        if let Some(Value::Object(m)) = rule.get(key) {
            for v in m.values() {
                walk_patterns(v, Need::No, &mut out);
            }
        }
    }
    out
}

/// Where a pattern of a rule must match for the rule to match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// On the matched node or inside it (`rule`, `all`, `has`).
    InNode,
    /// Somewhere in the file (`inside`, `follows`, `precedes`).
    InFile,
    /// Not necessarily anywhere (`any`, `not`, `stopBy`, `constraints`, `utils`).
    No,
}

/// A pattern inside a rule config.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PatternRef<'a> {
    /// The pattern text (the `context` of a contextual pattern).
    pub text: &'a str,
    /// Its selector.
    pub selector: Option<&'a str>,
    /// Its strictness.
    pub strictness: Strictness,
}

fn walk_patterns<'a>(v: &'a Value, need: Need, out: &mut Vec<(PatternRef<'a>, Need)>) {
    let Value::Object(m) = v else { return };
    if let Some(p) = pattern_ref(m) {
        out.push((p, need));
    }
    if let Some(Value::Array(all)) = m.get("all") {
        all.iter().for_each(|x| walk_patterns(x, need, out));
    }
    if let Some(Value::Array(any)) = m.get("any") {
        any.iter().for_each(|x| walk_patterns(x, Need::No, out));
    }
    if let Some(not) = m.get("not") {
        walk_patterns(not, Need::No, out);
    }
    for rel in ["inside", "has", "follows", "precedes"] {
        if let Some(r) = m.get(rel) {
            let inner = match (need, rel) {
                (Need::No, _) => Need::No,
                (Need::InNode, "has") => Need::InNode,
                _ => Need::InFile,
            };
            walk_patterns(r, inner, out);
            if let Some(stop) = r.get("stopBy") {
                walk_patterns(stop, Need::No, out);
            }
        }
    }
}

/// What a rule needs of a file for a match: a formula over its patterns, each
/// with whether it matches the matched node itself or a node inside it, and
/// its regexes. Read from `rule`: `all` and the rule object's own keys are a
/// conjunction, `any` a disjunction (of its items' formulas),
/// `inside`/`has`/`follows`/`precedes` add their rule's formula, `matches` the
/// formula of the rule's own utility of that name (a utility it is already
/// inside adds nothing: recursion). `not`, `stopBy`, `constraints`, global
/// utilities and the atomic keys other than `pattern` and `regex` add nothing.
/// `All(vec![])` is no need at all; `Any(vec![])` (an empty `any`, which
/// matches nothing) a need no file meets.
#[derive(Debug)]
pub(crate) enum Must<'a> {
    /// The pattern matches a node; `true` when that node is the matched one or
    /// inside it (the rule itself, `all`, `any`, `has`), `false` when it is
    /// anywhere in the file (`inside`, `follows`, `precedes`).
    Pattern(PatternRef<'a>, bool),
    /// A node's text matches this regex (`regex`; the node's text is part of
    /// the file's).
    Regex(&'a str),
    /// Every item holds.
    All(Vec<Must<'a>>),
    /// At least one item holds.
    Any(Vec<Must<'a>>),
}

/// The formula of rule config `rule` ([`Must`]).
pub(crate) fn must(rule: &Value) -> Must<'_> {
    let utils = rule.get("utils").and_then(Value::as_object);
    rule.get("rule").map_or(Must::All(Vec::new()), |r| must_of(r, true, utils, &mut Vec::new()))
}

fn must_of<'a>(v: &'a Value, in_node: bool, utils: Option<&'a Map<String, Value>>, expanding: &mut Vec<&'a str>) -> Must<'a> {
    let Value::Object(m) = v else { return Must::All(Vec::new()) };
    let mut all = Vec::new();
    if let Some(p) = pattern_ref(m) {
        all.push(Must::Pattern(p, in_node));
    }
    if let Some(Value::String(re)) = m.get("regex") {
        all.push(Must::Regex(re));
    }
    if let Some(Value::Array(items)) = m.get("all") {
        all.extend(items.iter().map(|x| must_of(x, in_node, utils, expanding)));
    }
    if let Some(Value::Array(items)) = m.get("any") {
        all.push(Must::Any(items.iter().map(|x| must_of(x, in_node, utils, expanding)).collect()));
    }
    for rel in ["inside", "has", "follows", "precedes"] {
        if let Some(r) = m.get(rel) {
            all.push(must_of(r, in_node && rel == "has", utils, expanding));
        }
    }
    if let Some(Value::String(id)) = m.get("matches")
        && let Some(body) = utils.and_then(|u| u.get(id))
        && !expanding.contains(&id.as_str())
    {
        expanding.push(id);
        all.push(must_of(body, in_node, utils, expanding));
        expanding.pop();
    }
    Must::All(all)
}

/// The `pattern` of rule object `m`, if it has one (a string, or an object
/// with a `context`).
fn pattern_ref(m: &Map<String, Value>) -> Option<PatternRef<'_>> {
    match m.get("pattern")? {
        Value::String(s) => Some(PatternRef { text: s, selector: None, strictness: Strictness::Smart }),
        Value::Object(p) => {
            let text = p.get("context").and_then(Value::as_str)?;
            let strictness = p.get("strictness").and_then(Value::as_str).and_then(|s| Strictness::parse(s).ok());
            Some(PatternRef { text, selector: p.get("selector").and_then(Value::as_str), strictness: strictness.unwrap_or_default() })
        }
        _ => None,
    }
}

/// A rule's `files` and `ignores` globs, matched against a file's path relative
/// to the rule set's base folder (relative to the working directory when the
/// file is outside it), as `ast-grep scan` matches them.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileGlobs {
    files: Option<GlobSet>,
    ignores: Option<GlobSet>,
}

impl FileGlobs {
    /// The globs of `rule` (none when it has neither key).
    pub fn of(rule: &Value) -> Result<FileGlobs> {
        let set = |key: &str| -> Result<Option<GlobSet>> {
            let Some(list) = rule.get(key).filter(|v| !v.is_null()) else { return Ok(None) };
            let Value::Array(items) = list else {
                return Err(Error::bad(format!("rule `{}`: `{key}` must be a list of globs", id_of(rule))));
            };
            let mut b = GlobSetBuilder::new();
            for item in items {
                let (glob, ci) = match item {
                    Value::String(s) => (s.as_str(), false),
                    Value::Object(m) => {
                        (m.get("glob").and_then(Value::as_str).unwrap_or(""), m.get("caseInsensitive").and_then(Value::as_bool).unwrap_or(false))
                    }
                    _ => ("", false),
                };
                let g = GlobBuilder::new(glob)
                    .case_insensitive(ci)
                    .build()
                    .map_err(|e| Error::bad(format!("rule `{}`: invalid glob in `{key}`: {e}", id_of(rule))))?;
                b.add(g);
            }
            b.build().map(Some).map_err(|e| Error::bad(format!("rule `{}`: `{key}`: {e}", id_of(rule))))
        };
        Ok(FileGlobs { files: set("files")?, ignores: set("ignores")? })
    }

    /// True when the rule applies to the file at `rel` (relative to the base).
    pub fn allows(&self, rel: &Path) -> bool {
        if self.ignores.as_ref().is_some_and(|g| g.is_match(rel)) {
            return false;
        }
        self.files.as_ref().is_none_or(|g| g.is_match(rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_json_and_arrays_are_read_and_language_is_filled() {
        let y = Value::String("id: a\nrule: {pattern: print($A)}\nfix: log($A)\n---\nid: b\nlanguage: py\nrule: {kind: call}\n".into());
        let rules = parse_input(&y, Some(SupportLang::Python)).unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["language"], "python");
        assert_eq!(rules[1]["language"], "python");
        let e = parse_input(&json!({"id": "x", "language": "rust", "rule": {"kind": "a"}}), Some(SupportLang::Python)).unwrap_err();
        assert!(e.to_string().contains("`language: rust` but the request's `lang` is python"), "{e}");
        let e = parse_input(&json!([{"id": "x", "rule": {"kind": "a"}}]), None).unwrap_err();
        assert!(e.to_string().contains("rule `x` has no `language`"), "{e}");
    }

    #[test]
    fn build_errors_carry_the_real_cause() {
        let globs = LanguageGlobs::of(&[("python".into(), vec!["*.pyi".into()])]).unwrap();
        assert_eq!(globs.lang_of(Path::new("/a/b/x.pyi")), Some(SupportLang::Python));
        assert_eq!(globs.lang_of(Path::new("/a/b/x.rs")), None);
        let r = typed(parse_input(&json!({"id": "x", "language": "python", "rule": {"pattern": "f($A)"}, "fix": "g($B)"}), None).unwrap()).unwrap();
        let e = r[0].build(&GlobalRules::default()).err().unwrap();
        assert!(e.contains("Undefined meta var `B` used in `fix`"), "{e}");
    }

    #[test]
    fn required_patterns_skip_any_not_and_stop_by() {
        let r = json!({"rule": {"pattern": "a($X)", "all": [{"pattern": "b"}], "any": [{"pattern": "c"}],
            "not": {"pattern": "d"}, "inside": {"pattern": "e", "stopBy": {"pattern": "f"}}}});
        let got: Vec<(&str, Need)> = patterns(&r).into_iter().map(|(p, need)| (p.text, need)).collect();
        use Need::*;
        assert_eq!(got, vec![("a($X)", InNode), ("b", InNode), ("c", No), ("d", No), ("e", InFile), ("f", No)]);
    }

    #[test]
    fn the_formula_keeps_any_and_follows_local_utilities() {
        let r = json!({"rule": {"pattern": "a", "any": [{"pattern": "b"}, {"matches": "u"}], "not": {"pattern": "c"}, "inside": {"has": {"pattern": "d"}, "regex": "x"}},
            "utils": {"u": {"has": {"pattern": "e"}, "matches": "u"}}});
        let show = |m: &Must<'_>| -> String {
            fn go(m: &Must<'_>) -> String {
                match m {
                    Must::Pattern(p, in_node) => format!("{}{}", p.text, if *in_node { "" } else { "@file" }),
                    Must::Regex(r) => format!("/{r}/"),
                    Must::All(v) => format!("all({})", v.iter().map(go).collect::<Vec<_>>().join(" ")),
                    Must::Any(v) => format!("any({})", v.iter().map(go).collect::<Vec<_>>().join(" ")),
                }
            }
            go(m)
        };
        assert_eq!(show(&must(&r)), "all(a any(all(b) all(all(all(e)))) all(/x/ all(d@file)))");
    }
}
