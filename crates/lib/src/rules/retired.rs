//! The retired JSON rule catalog: `.json` files of rules written as
//! `{"id", "language", "description", "ops": [{"pat", "out"}], "selector"?,
//! "strictness"?, "globs"?, "tests"?}`, the form rule files had before ast-edit
//! read ast-grep projects. Such a file (or a folder of them without an
//! `sgconfig.yml`) is recognized and refused with its rules written as ast-grep
//! rule configs, so moving them over is a copy (docs/RULES.md, "Rule files").
//! A `.json` file of ast-grep rule configs (no `ops`) is not this format: it
//! loads as any rule file does.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::shared::error::{Error, Result};

/// Most rules written out in the error (the rest are counted).
const SHOWN: usize = 3;

/// Refuses `path` when it is in the retired catalog format: the error names the
/// file and holds its first rules as YAML rule configs. `Ok` for anything else.
pub fn refuse(path: &Path) -> Result<()> {
    let files = if path.is_dir() {
        if crate::rules::project::CONFIG_FILE_NAMES.iter().any(|n| path.join(n).is_file()) {
            return Ok(());
        }
        json_files(path)
    } else {
        vec![path.to_path_buf()]
    };
    for file in files {
        if let Some(rules) = catalog_rules(&file) {
            return Err(Error::bad(message(&file, &rules)));
        }
    }
    Ok(())
}

/// The rules of `file` when it is a catalog file: JSON holding a rule object or
/// a list of them, one of which has `ops`.
fn catalog_rules(file: &Path) -> Option<Vec<Map<String, Value>>> {
    if file.extension().is_none_or(|e| e != "json") {
        return None;
    }
    // A catalog file was small; a larger `.json` is no catalog. One that is not
    // a regular file is not read here (it is refused as a rule file).
    let text = crate::shared::named::read_capped_text(file, 1 << 20).ok()?;
    let items = match serde_json::from_str::<Value>(&text).ok()? {
        Value::Array(v) => v,
        v => vec![v],
    };
    let rules: Vec<Map<String, Value>> = items.into_iter().filter_map(|v| v.as_object().cloned()).collect();
    rules.iter().any(|r| r.contains_key("ops")).then_some(rules)
}

/// The `.json` files under `dir`, sorted, at most a few levels deep (a catalog
/// folder held its rules near the top).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() && depth < 4 => stack.push((p, depth + 1)),
                Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "json") => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// The error for a catalog file: what the format was, and its rules as YAML.
fn message(file: &Path, rules: &[Map<String, Value>]) -> String {
    let configs: Vec<Config> = rules.iter().flat_map(configs_of).collect();
    let mut yaml: Vec<String> = configs.iter().take(SHOWN).map(|c| serde_saphyr::to_string(c).expect("plain data serializes")).collect();
    if configs.len() > SHOWN {
        yaml.push(format!("# ... and {} more rules\n", configs.len() - SHOWN));
    }
    format!(
        "{} is a rule file of the retired JSON catalog format (rules with `ops`); ast-edit reads ast-grep rule configs (YAML, one fix per rule). \
         Write its rules as below, in a .yml file of an ast-grep project's rule folder or given with -r, and move `tests` to rule-test files (`ast-edit help test` says what they hold):\n\n{}",
        file.display(),
        yaml.join("---\n")
    )
}

/// A rule config with its keys in the order ast-grep's documentation writes them.
#[derive(Serialize)]
struct Config {
    id: String,
    language: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    rule: Value,
    fix: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    files: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ignores: Vec<String>,
}

/// One catalog rule as ast-grep rule configs: one per op (an id with `-2`, `-3`
/// for the second and later), the selector and strictness in the pattern, the
/// globs as `files` and `ignores`.
fn configs_of(rule: &Map<String, Value>) -> Vec<Config> {
    let text = |k: &str| rule.get(k).and_then(Value::as_str);
    let id = text("id").unwrap_or("rule");
    let ops = rule.get("ops").and_then(Value::as_array).cloned().unwrap_or_default();
    let (mut files, mut ignores) = (Vec::new(), Vec::new());
    for g in rule.get("globs").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        match g.strip_prefix('!') {
            Some(not) => ignores.push(not.to_string()),
            None => files.push(g.to_string()),
        }
    }
    ops.iter()
        .enumerate()
        .map(|(i, op)| {
            let pat = op.get("pat").and_then(Value::as_str).unwrap_or_default();
            let selector = text("selector");
            let strictness = text("strictness").filter(|s| *s != "smart");
            let pattern = if selector.is_none() && strictness.is_none() {
                json!(pat)
            } else {
                let mut p = Map::new();
                p.insert("context".into(), json!(pat));
                selector.map(|s| p.insert("selector".into(), json!(s)));
                strictness.map(|s| p.insert("strictness".into(), json!(s)));
                Value::Object(p)
            };
            Config {
                id: if i == 0 { id.to_string() } else { format!("{id}-{}", i + 1) },
                language: text("language").unwrap_or("LANGUAGE").to_string(),
                message: text("description").map(str::to_string),
                rule: json!({"pattern": pattern}),
                fix: op.get("out").and_then(Value::as_str).unwrap_or_default().to_string(),
                files: files.clone(),
                ignores: ignores.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalog_rule_becomes_one_rule_config_per_op() {
        let rule = json!({"id": "py-x", "language": "python", "description": "d",
            "ops": [{"pat": "f($A)", "out": "g($A)"}, {"pat": "h($A)", "out": ""}],
            "selector": "call", "strictness": "ast", "globs": ["*.py", "!tests/**"]});
        let got: Vec<String> = configs_of(rule.as_object().unwrap()).iter().map(|c| serde_saphyr::to_string(c).unwrap()).collect();
        assert_eq!(got.len(), 2);
        assert!(got[0].starts_with("id: py-x\nlanguage: python\nmessage: d\nrule:\n"), "{}", got[0]);
        let back: Value = serde_saphyr::from_str(&got[1]).unwrap();
        assert_eq!(
            back,
            json!({"id": "py-x-2", "language": "python", "message": "d",
                "rule": {"pattern": {"context": "h($A)", "selector": "call", "strictness": "ast"}},
                "fix": "", "files": ["*.py"], "ignores": ["tests/**"]})
        );
    }

    #[test]
    fn json_rule_configs_without_ops_are_not_the_retired_format() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.json");
        std::fs::write(&f, r#"{"id": "a", "language": "python", "rule": {"pattern": "f($A)"}, "fix": "g($A)"}"#).unwrap();
        assert!(refuse(&f).is_ok());
        std::fs::write(&f, r#"[{"id": "a", "language": "python", "ops": [{"pat": "f($A)", "out": "g($A)"}]}]"#).unwrap();
        let e = refuse(&f).unwrap_err().to_string();
        assert!(e.contains("retired JSON catalog format") && e.contains("id: a\nlanguage: python\n"), "{e}");
        assert!(refuse(dir.path()).is_err());
        std::fs::write(dir.path().join("sgconfig.yml"), "ruleDirs: [rules]\n").unwrap();
        assert!(refuse(dir.path()).is_ok());
    }
}
