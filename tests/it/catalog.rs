//! The shipped `queries/` catalog, an ast-grep project (queries/README.md): its rule
//! files load with ast-grep-config 0.51.1 and the catalog stays broad (at least 24
//! rules in at least six languages); `ast-grep test` passes in `queries/`; and every
//! whole-file check of `queries/rule-checks/` holds under `ast-grep scan -r RULE -U`
//! (`queries/check.py --tool ast-grep`). CI installs ast-grep 0.51.1 and PyYAML (see
//! .ci/run); elsewhere the tests that need them are reported ignored without them
//! (build.rs).
//!
//! The same runs through ast-edit (`ast-edit test`, `check.py --tool ast-edit`) are
//! written out below and ignored until ast-edit reads ast-grep projects (`scan -r`,
//! `test -c`, the `astEdit.checkDirs` key of sgconfig.yml).
//!
//! The catalog's old JSON rule format is retired; three of those files are kept in
//! tests/data/json-rules/ to check that `test` and `scan` refuse them with rule
//! configs that do their job.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Tree, ast_grep, copy_dir};

fn queries() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")
}

/// `DIR/*/*.yml` (rules/<language>/<id>.yml).
fn rule_files(rules: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lang in std::fs::read_dir(rules).unwrap().flatten() {
        for f in std::fs::read_dir(lang.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "yml") {
                out.push(f.path());
            }
        }
    }
    out.sort();
    out
}

/// The ids of one rule file, in order, parsed by the crate ast-edit uses.
fn rule_ids(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let globals = ast_grep_config::GlobalRules::default();
    let rules = ast_grep_config::from_yaml_string::<ast_grep_language::SupportLang>(&text, &globals).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    rules.iter().map(|r| r.id.clone()).collect()
}

/// How many whole-file cases `queries/rule-checks/` holds.
fn check_cases() -> usize {
    let mut n = 0;
    for f in std::fs::read_dir(queries().join("rule-checks")).unwrap().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap();
        let doc: serde_json::Value = ast_grep_config::from_str(&text).unwrap();
        n += doc["cases"].as_array().unwrap_or_else(|| panic!("{}: no cases", f.path().display())).len();
    }
    n
}

/// `python3`, which imports PyYAML (check.py needs it). The tests that call it
/// are ignored where it cannot (build.rs sets `cfg(pyyaml)` only where it can); one
/// that was built where it could and runs where it cannot fails.
fn python() -> &'static str {
    let ok = Command::new("python3").args(["-c", "import yaml"]).output().is_ok_and(|o| o.status.success());
    assert!(ok, "`python3 -c 'import yaml'` fails, though the build found PyYAML (build.rs): pip install pyyaml, then build again");
    "python3"
}

/// Runs `DIR/check.py ARGS` (a copy of queries/ or queries/ itself).
fn check_py(py: &str, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> crate::common::Run {
    let mut c = Command::new(py);
    c.arg(dir.join("check.py")).args(args).env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    crate::common::Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A copy of queries/ in which the first whole-file case of go-time-since expects
/// something the rule does not write.
fn catalog_with_a_wrong_check() -> Tree {
    let t = Tree::empty();
    copy_dir(&queries(), t.path());
    let check = t.read("rule-checks/go-time-since.yml");
    let wrong = check.replacen("return time.Since(start)\n", "return time.Since(start) // wrong\n", 1);
    assert_ne!(wrong, check, "the case to break is gone from rule-checks/go-time-since.yml");
    t.write("rule-checks/go-time-since.yml", wrong);
    t
}

#[test]
fn every_rule_file_of_the_catalog_loads_with_ast_grep_config() {
    let files = rule_files(&queries().join("rules"));
    let mut ids: Vec<String> = Vec::new();
    let mut langs: Vec<String> = Vec::new();
    for f in &files {
        let file_ids = rule_ids(f);
        assert_eq!(Some(&file_ids[0]), f.file_stem().map(|s| s.to_string_lossy().into_owned()).as_ref());
        ids.extend(file_ids);
        langs.push(f.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned());
    }
    langs.dedup();
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "duplicate rule ids");
    assert!(files.len() >= 24, "only {} rule files", files.len());
    assert!(langs.len() >= 6, "{langs:?}");
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn ast_grep_test_passes_on_the_catalog() {
    let ag = ast_grep();
    let rules: usize = rule_files(&queries().join("rules")).iter().map(|f| rule_ids(f).len()).sum();
    let o = Command::new(ag).arg("test").current_dir(queries()).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&format!("test result: ok. {rules} passed; 0 failed;")), "{out}");
}

#[test]
#[cfg_attr(not(all(peer, pyyaml)), ignore = "needs ast-grep 0.51.1 and python3 with PyYAML: pip install ast-grep-cli==0.51.1 pyyaml")]
fn whole_file_checks_hold_under_ast_grep_scan() {
    let ag = ast_grep();
    let py = python();
    let r = check_py(py, &queries(), &["--tool", "ast-grep"], &[("AST_GREP", ag.as_str())]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().last(), Some(format!("{} passed, 0 failed", check_cases()).as_str()), "{}", r.stdout);
}

#[test]
#[cfg_attr(not(all(peer, pyyaml)), ignore = "needs ast-grep 0.51.1 and python3 with PyYAML: pip install ast-grep-cli==0.51.1 pyyaml")]
fn check_py_fails_when_a_rule_does_not_write_the_whole_file_after() {
    let ag = ast_grep();
    let py = python();
    let t = catalog_with_a_wrong_check();
    let r = check_py(py, t.path(), &["--tool", "ast-grep"], &[("AST_GREP", ag.as_str())]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAIL rule-checks/go-time-since.yml cases[0]: output differs"), "{}", r.stdout);
    assert_eq!(r.stdout.lines().last(), Some(format!("{} passed, 1 failed", check_cases() - 1).as_str()), "{}", r.stdout);
}

// ast-edit runs the same project: enabled once `ast-edit test -c` and `ast-edit scan -r`
// read ast-grep projects and rule files (and `astEdit.checkDirs`).

#[test]
fn ast_edit_test_passes_on_the_catalog() {
    let t = Tree::empty();
    let config = queries().join("sgconfig.yml");
    t.run(&["test", "-c", config.to_str().unwrap()]).ok();
}

#[test]
fn ast_edit_test_fails_when_a_whole_file_check_is_not_met() {
    let t = catalog_with_a_wrong_check();
    let r = t.run(&["test", "-c", "sgconfig.yml"]).code(4);
    assert!(format!("{}{}", r.stdout, r.stderr).contains("go-time-since"), "{}\n{}", r.stdout, r.stderr);
}

#[test]
#[cfg_attr(not(pyyaml), ignore = "needs python3 with PyYAML: pip install pyyaml")]
fn whole_file_checks_hold_under_ast_edit_scan() {
    let py = python();
    let bin = env!("CARGO_BIN_EXE_ast-edit");
    let r = check_py(py, &queries(), &["--tool", "ast-edit"], &[("AST_EDIT", bin)]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().last(), Some(format!("{} passed, 0 failed", check_cases()).as_str()), "{}", r.stdout);
}

// The retired JSON rule files.

fn json_rules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/json-rules")
}

#[test]
fn a_retired_json_rule_folder_is_refused_by_test_naming_the_yaml_form() {
    let t = Tree::empty();
    let r = t.run(&["test", json_rules().to_str().unwrap()]).code(2);
    assert!(r.stderr.contains("go-time-since.json is a rule file of the retired JSON catalog format"), "{}", r.stderr);
    assert!(r.stderr.contains("id: go-time-since\nlanguage: go\n"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
}

/// Each retired file given to `scan -r` is refused, nothing written; the rule
/// configs its error writes out, saved as a YAML rule file, rewrite every old
/// `invalid` case to its `after`.
#[test]
fn a_retired_json_rule_file_is_refused_and_the_rule_configs_it_names_do_its_job() {
    for f in std::fs::read_dir(json_rules()).unwrap().flatten() {
        let rule: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f.path()).unwrap()).unwrap();
        let ext = match rule["language"].as_str().unwrap() {
            "python" => "py",
            "go" => "go",
            "typescript" => "ts",
            other => panic!("add the extension of {other}"),
        };
        let t = Tree::empty();
        let file = format!("case.{ext}");
        let before = rule["tests"]["invalid"][0]["before"].as_str().unwrap();
        t.write(&file, before);
        let r = t.run(&["scan", "--rules", f.path().to_str().unwrap(), ".", "-U"]).code(2);
        assert_eq!(t.read(&file), before, "{}", f.path().display());
        let (_, yaml) = r.stderr.split_once("\n\n").unwrap_or_else(|| panic!("no rule configs in: {}", r.stderr));
        t.write("rule.yml", yaml.trim_start_matches("error: "));
        for case in rule["tests"]["invalid"].as_array().unwrap() {
            t.write(&file, case["before"].as_str().unwrap());
            t.run(&["scan", "-r", "rule.yml", ".", "-U", "--verbatim"]).ok();
            assert_eq!(t.read(&file), case["after"].as_str().unwrap(), "{}:\n{yaml}", f.path().display());
        }
    }
}
