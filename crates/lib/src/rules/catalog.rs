//! Rule files: codemods kept in JSON (the `queries/` catalog), loaded and checked
//! with errors that name the file, the rule and the field; turned into one request
//! for `scan` (every rule in one pass per file), and their test cases run for
//! `ast-edit test`.
//!
//! A file holds one rule object or a list of them:
//!
//! ```json
//! {"id": "py-assert-equals", "language": "python",
//!  "description": "unittest's deprecated assertEquals alias -> assertEqual",
//!  "ops": [{"pat": "$S.assertEquals($A, $B)", "out": "$S.assertEqual($A, $B)"}],
//!  "selector": null, "strictness": "smart", "globs": ["*.py"],
//!  "tests": {"valid": ["self.assertEqual(a, b)\n"],
//!            "invalid": [{"before": "self.assertEquals(a, b)\n", "after": "self.assertEqual(a, b)\n"}]}}
//! ```

use std::path::{Path, PathBuf};

use ast_grep_language::SupportLang;
use serde::{Deserialize, Serialize};

use crate::compile;
use crate::engine::{self, Engine};
use crate::shared::error::{Error, Result};
use crate::request::lang;
use crate::request::{Op, OpScope, Request, Strictness, WalkOptions};

/// True when `path` is in the deprecated JSON catalog format: a `.json` file
/// whose rules have `ops`, or a folder without an sgconfig file that holds such
/// files.
pub fn is_json_catalog(path: &Path) -> bool {
    // A `.json` file that is not JSON at all goes to this loader too, whose
    // message says so.
    let holds_ops = |p: &Path| {
        p.extension().is_some_and(|e| e == "json")
            && std::fs::read_to_string(p)
                .is_ok_and(|t| t.contains("\"ops\"") || serde_json::from_str::<serde_json::Value>(&t).is_err())
    };
    if path.is_dir() {
        return !crate::rules::project::CONFIG_FILE_NAMES.iter().any(|n| path.join(n).is_file())
            && rule_files(path).is_ok_and(|files| files.iter().any(|f| holds_ops(f)));
    }
    holds_ops(path)
}

/// One rule as written in a file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    /// Unique id (kebab-case, language prefix).
    pub id: String,
    /// Language name or alias.
    pub language: String,
    /// What the rule does and why.
    pub description: String,
    /// Pattern -> rewrite pairs.
    pub ops: Vec<Op>,
    /// Selector node kind.
    #[serde(default)]
    pub selector: Option<String>,
    /// Strictness name.
    #[serde(default)]
    pub strictness: Option<String>,
    /// Include/exclude globs.
    #[serde(default)]
    pub globs: Vec<String>,
    /// Test cases.
    #[serde(default)]
    pub tests: Option<Tests>,
}

/// A rule's test cases.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tests {
    /// Code the rule must leave unchanged.
    #[serde(default)]
    pub valid: Vec<String>,
    /// Code the rule must rewrite, and the exact result.
    #[serde(default)]
    pub invalid: Vec<Case>,
}

/// A before -> after case.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Input.
    pub before: String,
    /// Exact expected output.
    pub after: String,
}

/// A loaded, checked rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The file it came from.
    pub file: PathBuf,
    /// As written.
    pub def: RuleFile,
    /// Parsed language.
    pub lang: SupportLang,
    /// Parsed strictness.
    pub strictness: Strictness,
}

fn rule_err(file: &Path, id: Option<&str>, field: &str, msg: impl std::fmt::Display) -> Error {
    let rule = id.map(|i| format!("rule `{i}`: ")).unwrap_or_default();
    Error::bad(format!("{}: {rule}field `{field}`: {msg}", file.display()))
}

/// The rule files under `path` (a file, or a folder searched recursively for
/// `*.json`), sorted.
fn rule_files(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::bad(format!("rules path {}: {e}; give a rule file or a folder of them", path.display())))?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rd = std::fs::read_dir(&dir).map_err(|e| Error::io(format!("cannot list {}", dir.display()), e))?;
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(Error::bad(format!("no rule files (*.json) under {}", path.display())));
    }
    Ok(out)
}

/// Loads and checks every rule under `path`. Every problem is bad input naming the
/// file, the rule and the field.
pub fn load(path: &Path) -> Result<Vec<Rule>> {
    let mut rules: Vec<Rule> = Vec::new();
    // The totals of the one request a scan makes (docs/DESIGN.md section 7),
    // checked before each rule is compiled.
    let (mut ops, mut bytes, mut globs) = (0usize, 0usize, 0usize);
    for file in rule_files(path)? {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| Error::bad(format!("{}: cannot read: {e}", file.display())))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::bad(format!("{}: not valid JSON: {e}", file.display())))?;
        let items = match value {
            serde_json::Value::Array(v) => v,
            v @ serde_json::Value::Object(_) => vec![v],
            _ => return Err(Error::bad(format!("{}: expected a rule object or a list of rules", file.display()))),
        };
        for item in items {
            let id = item.get("id").and_then(|v| v.as_str()).map(str::to_string);
            let def: RuleFile = serde_json::from_value(item).map_err(|e| {
                let msg = e.to_string();
                let field = msg
                    .split('`')
                    .nth(1)
                    .filter(|_| msg.contains("field"))
                    .unwrap_or("(rule)")
                    .to_string();
                rule_err(&file, id.as_deref(), &field, msg)
            })?;
            ops += def.ops.len();
            bytes += def.ops.iter().map(|o| o.pat.len() + o.out.len()).sum::<usize>();
            globs += def.globs.len();
            crate::request::check_totals(ops, bytes, globs)
                .map_err(|(field, msg)| rule_err(&file, Some(&def.id), field, format!("{msg} (all the rules loaded so far together)")))?;
            let rule = check(&file, def)?;
            if let Some(other) = rules.iter().find(|r| r.def.id == rule.def.id) {
                return Err(rule_err(&file, Some(&rule.def.id), "id", format!("already used by {}", other.file.display())));
            }
            rules.push(rule);
        }
    }
    Ok(rules)
}

fn check(file: &Path, def: RuleFile) -> Result<Rule> {
    let id = def.id.clone();
    let bad = |field: &str, msg: String| rule_err(file, Some(&id), field, msg);
    if def.id.trim().is_empty() {
        return Err(rule_err(file, None, "id", "must not be empty"));
    }
    let lang = lang::parse_lang(&def.language).map_err(|e| bad("language", e.to_string()))?;
    if def.description.trim().is_empty() {
        return Err(bad("description", "must say what the rule does".into()));
    }
    if def.ops.is_empty() {
        return Err(bad("ops", "give at least one {\"pat\": ..., \"out\": ...}".into()));
    }
    let strictness = match &def.strictness {
        Some(s) => Strictness::parse(s).map_err(|e| bad("strictness", e.to_string()))?,
        None => Strictness::Smart,
    };
    let rule = Rule { file: file.to_path_buf(), def, lang, strictness };
    let req = request(std::slice::from_ref(&rule), vec![".".into()], Vec::new(), WalkOptions::default(), crate::request::DEFAULT_MAX_FILESIZE);
    for (i, op) in rule.def.ops.iter().enumerate() {
        if op.pat.trim().is_empty() {
            return Err(bad(&format!("ops[{i}].pat"), "must not be empty".into()));
        }
        compile::compile_op(i, &req, lang).map_err(|e| {
            bad(&format!("ops[{i}].{}", e.field.name()), e.message)
        })?;
    }
    for g in &rule.def.globs {
        ignore::overrides::OverrideBuilder::new("/")
            .add(g)
            .map_err(|e| bad("globs", format!("invalid glob `{g}`: {e}")))?;
    }
    Ok(rule)
}

/// One request running every op of every rule in one pass per file.
pub fn request(rules: &[Rule], paths: Vec<String>, globs: Vec<String>, walk: WalkOptions, max_filesize: u64) -> Request {
    let mut ops = Vec::new();
    let mut scopes = Vec::new();
    for r in rules {
        for op in &r.def.ops {
            ops.push(op.clone());
            scopes.push(OpScope {
                rule: r.def.id.clone(),
                lang: r.lang,
                selector: r.def.selector.clone(),
                strictness: r.strictness,
                globs: r.def.globs.clone(),
            });
        }
    }
    Request {
        ops,
        paths,
        lang: None,
        selector: None,
        strictness: Strictness::Smart,
        globs,
        max_files: None,
        walk,
        max_filesize,
        no_prefilter: false,
        scopes,
        rule_set: None,
        rewrite_nested: false,
        verbatim: false,
        context_lines: crate::request::CONTEXT,
        front: crate::shared::message::Front::Cli,
    }
}

/// The result of one test case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Rule id.
    pub rule: String,
    /// `valid[i]` or `invalid[i]`.
    pub case: String,
    /// `None` when the case passed; otherwise what went wrong.
    pub failure: Option<String>,
}

/// Runs every case of `rule` in memory (nothing touches the disk).
pub fn test_rule(rule: &Rule) -> Vec<CaseResult> {
    let mut scoped = rule.clone();
    scoped.def.globs.clear();
    let req = request(std::slice::from_ref(&scoped), vec![".".into()], Vec::new(), WalkOptions::default(), u64::MAX);
    let id = rule.def.id.clone();
    let result = |case: String, failure: Option<String>| CaseResult { rule: id.clone(), case, failure };
    let engine = match Engine::new(&req, [rule.lang], Path::new("/")) {
        Ok(e) => e,
        Err(e) => return vec![result("(compile)".into(), Some(e.to_string()))],
    };
    let ops = engine.ops_for(rule.lang, Path::new("/case"));
    let run = |text: &str| -> String {
        match engine::rewrite(&ops, rule.lang, text, engine::RewriteOptions { prefilter: true, check_syntax: false, rewrite_nested: false, verbatim: true }) {
            Some(r) => String::from_utf8(r.new_text).expect("UTF-8 in, UTF-8 out"),
            None => text.to_string(),
        }
    };
    let tests = rule.def.tests.clone().unwrap_or_default();
    let mut out = Vec::new();
    if tests.valid.is_empty() && tests.invalid.is_empty() {
        out.push(result("tests".into(), Some("the rule has no test cases: add tests.valid and tests.invalid".into())));
    }
    for (i, code) in tests.valid.iter().enumerate() {
        let got = run(code);
        let failure = (got != *code).then(|| format!("valid code was changed:\n{}", crate::plan::diff::unified("case", code, &got)));
        out.push(result(format!("valid[{i}]"), failure));
    }
    for (i, c) in tests.invalid.iter().enumerate() {
        let got = run(&c.before);
        let failure = (got != c.after).then(|| {
            format!("expected output differs (- expected, + got):\n{}", crate::plan::diff::unified("case", &c.after, &got))
        });
        out.push(result(format!("invalid[{i}]"), failure));
    }
    out
}
