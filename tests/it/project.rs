//! Loading ast-grep projects (crates/lib/src/rules/project.rs, docs/RULES.md "Projects and rule
//! tests"): config discovery, ruleDirs, utilDirs, default and duplicate ids,
//! `severity: off`, `--filter`, the keys refused or ignored, and error messages
//! that carry the file, the rule and the real reason. Through the binary
//! (`ast-edit test` loads the project first) and through the library calls that
//! `scan` uses (`load_rule_file`, `parse_inline`). Where ast-grep 0.51.1 is
//! installed, the projects it must refuse are checked to be refused by it too.

use std::path::{Path, PathBuf};

use crate::common::{Tree, ast_grep, copy_dir};
use ast_edit::app::lang::Lang;
use ast_edit::app::project::{self, Project, Utils};
use ast_edit::testing;
use serde_json::json;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/projects/basic")
}

fn project() -> Tree {
    let t = Tree::empty();
    copy_dir(&fixture(), t.path());
    t
}

/// A project with one rule folder and the rule files given.
fn tiny(files: &[(&str, &str)]) -> Tree {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\n");
    for (p, c) in files {
        t.write(p, c);
    }
    t
}

/// `ast-edit test` and `ast-edit scan` refuse the project with exit `code`
/// and every `needles` in the message, and write nothing; `ast-grep test` and
/// `ast-grep scan` refuse it with the same code.
#[track_caller]
fn refused(t: &Tree, code: i32, needles: &[&str]) {
    let before = t.snapshot();
    for cmd in ["test", "scan"] {
        let r = t.run(&[cmd]).code(code);
        for n in needles {
            assert!(r.stderr.contains(n), "{cmd}: missing {n:?} in:\n{}", r.stderr);
        }
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        let o = std::process::Command::new(ast_grep()).arg(cmd).current_dir(t.path()).output().unwrap();
        assert_eq!(o.status.code(), Some(code), "ast-grep {cmd}:\n{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(t.snapshot(), before, "a refused project is left as it was");
}

#[test]
fn fixture_rules_load_with_default_ids_utils_and_off_rules_set_aside() {
    let p = Project::open(&fixture().join("sgconfig.yml")).unwrap();
    assert_eq!(p.dir, fixture().canonicalize().unwrap());
    assert_eq!(p.language_globs, vec![(Lang::parse("python").unwrap(), vec!["*.pyi".to_string()])]);
    assert_eq!(p.check_dirs, vec![PathBuf::from("checks")]);
    assert_eq!(p.test_configs.len(), 1);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let loaded = p.load_rules(None).unwrap();
    let ids: Vec<&str> = loaded.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["go-ioutil-readfile", "py-assert-equals", "no-print", "rs-unwrap", "as-any-0", "as-any-1"]);
    let off: Vec<&str> = loaded.off.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(off, ["py-disabled"]);
    assert_eq!(loaded.base, p.dir);
    let no_print = &loaded.rules[2];
    assert_eq!(no_print.file.as_deref(), Some(p.dir.join("rules/python/no-print.yml").as_path()));
    assert_eq!(no_print.config.json()["id"], "no-print");
    assert_eq!(no_print.config.json()["language"], "python");
    assert_eq!(no_print.config.json()["fix"], "log.info($$$ARGS)");
    assert_eq!(loaded.rules[5].index, 1);
    assert_eq!(loaded.utils.json.len(), 1);
    assert_eq!(loaded.utils.json[0].json()["id"], "inside-fn");
    assert_eq!(loaded.utils.json[0].json()["language"], "rust");
    // The JSON rebuilds: with the utilities (rs-unwrap calls `inside-fn`).
    assert_eq!(testing::rebuild_rules(&loaded).unwrap().len(), 6);
    let rebuilt = Utils::from_json(&loaded.utils.json).unwrap();
    testing::rebuild_rule(&loaded.rules[3].config, &rebuilt).unwrap();
    let e = testing::rebuild_rule(&loaded.rules[3].config, &Utils::none()).err().unwrap().to_string();
    assert!(e.contains("rule `rs-unwrap`") && e.contains("Rule `inside-fn` is not defined."), "{e}");
}

#[test]
fn discovery_walks_up_and_prefers_sgconfig_yml_over_yaml() {
    let t = Tree::empty();
    t.write("sgconfig.yaml", "ruleDirs: []\n");
    t.write("a/b/c/x.py", "");
    let deep = t.path().join("a/b/c");
    assert_eq!(project::find_config(&deep).unwrap(), t.path().join("sgconfig.yaml"));
    t.write("a/sgconfig.yaml", "ruleDirs: []\n");
    t.write("a/sgconfig.yml", "ruleDirs: []\n");
    assert_eq!(project::find_config(&deep).unwrap(), t.path().join("a/sgconfig.yml"));
    let p = project::discover(&deep, None).unwrap();
    assert_eq!(p.config_file, t.path().join("a/sgconfig.yml").canonicalize().unwrap());
    let p = project::discover(&deep, Some(&t.path().join("sgconfig.yaml"))).unwrap();
    assert_eq!(p.dir, t.path().canonicalize().unwrap());
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn duplicate_rule_ids_are_refused_naming_both_files() {
    let t = tiny(&[
        ("rules/a.yml", "id: same\nlanguage: python\nrule: {pattern: f()}\n"),
        ("rules/sub/b.yml", "id: same\nlanguage: python\nrule: {pattern: g()}\n"),
    ]);
    refused(&t, 8, &["duplicate rule id `same`: in rules/a.yml and rules/sub/b.yml; give each rule a unique `id`"]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn a_default_id_can_clash_with_an_explicit_one() {
    let t = tiny(&[("rules/x.yml", "language: go\nrule: {pattern: f()}\n"), ("rules/y.yml", "id: x\nlanguage: go\nrule: {pattern: g()}\n")]);
    refused(&t, 8, &["duplicate rule id `x`: in rules/x.yml and rules/y.yml"]);
}

/// Empty `customLanguages` and `languageInjections` are harmless (the
/// non-empty ones: `custom_languages_are_ignored_with_a_warning_as_ast_grep_does`
/// below, tests/it/embedded.rs).
#[test]
fn empty_custom_languages_and_injections_are_harmless() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: []\ncustomLanguages: {}\nlanguageInjections: []\n");
    t.run(&["test"]).ok();
}

/// `customLanguages` are ignored with a warning, as ast-grep ignores them by
/// default: the other rules run, a rule of such a language is refused (8), and
/// `--custom-languages allow` is refused (ast-edit loads no library).
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn custom_languages_are_ignored_with_a_warning_as_ast_grep_does() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\ncustomLanguages:\n  mojo:\n    libraryPath: mojo.so\n    extensions: [mojo]\n");
    t.write("rules/p.yml", "id: p\nlanguage: python\nseverity: error\nrule: {pattern: print($A)}\n");
    t.write("a.py", "print(1)\n");
    let peer = |args: &[&str]| t.peer(args).code;
    let r = t.run(&["scan", "--json"]);
    assert_eq!(r.code, peer(&["scan", "--json"]), "{}", r.stderr);
    assert_eq!(r.code, 1, "the python rule ran: {}", r.stdout);
    assert!(r.stderr.contains("`customLanguages` (mojo) are ignored"), "{}", r.stderr);
    let r = t.run(&["scan", "--custom-languages", "allow"]).code(2);
    assert!(r.stderr.contains("--custom-languages allow: ast-edit cannot load the custom languages"), "{}", r.stderr);
    t.run(&["test", "--custom-languages", "allow"]).code(2);
    t.write("rules/m.yml", "id: m\nlanguage: mojo\nrule: {pattern: print($A)}\n");
    for cmd in ["scan", "test"] {
        let r = t.run(&[cmd]).code(peer(&[cmd]));
        assert_eq!(r.code, 8, "{cmd}: {}", r.stderr);
    }
}

#[test]
fn unknown_config_keys_are_ignored_with_a_warning_but_not_in_ast_edit_key() {
    let t = project();
    let cfg = t.read("sgconfig.yml");
    t.write("sgconfig.yml", format!("{cfg}ignoreFiles: [vendor]\nnoIgnore: [hidden]\n"));
    let r = t.run(&["test"]).ok();
    assert!(r.stderr.contains("unknown key `ignoreFiles` is ignored (as ast-grep ignores it)"), "{}", r.stderr);
    assert!(!r.stderr.contains("noIgnore"), "{}", r.stderr);
    let p = Project::open(&t.path().join("sgconfig.yml")).unwrap();
    let mut walk = ast_edit::app::request::WalkOptions::default();
    p.no_ignore.widen(&mut walk);
    assert!(walk.hidden && !walk.ignore_off.any(), "{:?}", p.no_ignore);
    // `scan` says it once.
    let scan = t.run(&["scan"]);
    assert_eq!(scan.stderr.matches("unknown key `ignoreFiles` is ignored").count(), 1, "{}", scan.stderr);
    let json = t.run(&["test", "--json"]).ok();
    assert!(json.json::<serde_json::Value>()["warnings"][0].as_str().unwrap().contains("`ignoreFiles`"));
    t.write("sgconfig.yml", "ruleDirs: [rules]\nastEdit: {checkDir: [x]}\n");
    let r = t.run(&["test"]).code(8);
    assert!(r.stderr.contains("unknown field `checkDir`, expected one of checkDirs"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn undefined_fix_metavariable_names_file_rule_and_variable() {
    let t = tiny(&[("rules/py/fix.yml", "id: bad-fix\nlanguage: python\nrule: {pattern: f($A)}\nfix: g($B)\n")]);
    refused(&t, 8, &["error: rules/py/fix.yml: rule `bad-fix`: Fail to parse yaml as Rule.: Undefined meta var `B` used in `fix`."]);
}

/// Rule files are built on the workers; when several are bad, the error is
/// the first in path order's, on every run (as when they are read in turn).
#[test]
fn of_several_bad_rule_files_the_first_in_path_order_is_named() {
    let mut files: Vec<(String, String)> =
        (0..40).map(|i| (format!("rules/r{i:02}.yml"), format!("id: ok{i}\nlanguage: python\nrule: {{pattern: f{i}($A)}}\n"))).collect();
    for i in [7, 23, 31] {
        files[i].1 = format!("id: bad{i}\nlanguage: python\nrule: {{pattern: f($A)}}\nfix: g($B)\n");
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let t = tiny(&files);
    for _ in 0..5 {
        let r = t.run(&["scan", "-j", "2"]).code(8);
        assert!(r.stderr.contains("rules/r07.yml: rule `bad7`") && !r.stderr.contains("bad23"), "{}", r.stderr);
    }
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn misspelt_key_gives_the_line_column_and_the_expected_keys() {
    let t = tiny(&[("rules/two.yml", "id: ok\nlanguage: rust\nrule: {pattern: f()}\n---\nid: typo\nlanguage: rust\nrule:\n  patern: g()\n")]);
    refused(&t, 8, &["rules/two.yml: error: line 7 column 1: unknown field `patern`, expected one of pattern, kind, regex", "--> rules/two.yml:7:1"]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn error_in_a_later_document_names_the_rule_and_document() {
    let t = tiny(&[("rules/multi.yml", "language: typescript\nrule: {pattern: a}\n---\nlanguage: typescript\nrule: {not: {pattern: b}}\n")]);
    refused(&t, 8, &["rules/multi.yml: rule `multi-1` (document 2): Rule must specify a set of AST kinds to match. Try adding `kind` rule."]);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn unknown_language_says_only_builtin_languages_are_supported() {
    let t = tiny(&[("rules/s.yml", "id: s\nlanguage: svelte\nrule: {pattern: a}\n")]);
    refused(
        &t,
        8,
        &["rules/s.yml: error: line 2 column 11: svelte is not supported!", "ast-edit supports only its built-in languages (`ast-edit langs` lists them)"],
    );
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn undefined_utility_and_bad_utility_files_are_named() {
    let t = tiny(&[("rules/u.yml", "id: u\nlanguage: go\nrule: {matches: nowhere}\n")]);
    refused(
        &t,
        8,
        &[
            "rules/u.yml: rule `u`: Fail to parse yaml as Rule.: `rule` is not configured correctly.: Rule contains invalid matches reference.: Rule `nowhere` is not defined.",
        ],
    );
    let t = tiny(&[("utils/bad.yml", "id: bad\nlanguage: go\nrule: {pattren: f()}\n")]);
    t.write("sgconfig.yml", "ruleDirs: [rules]\nutilDirs: [utils]\n");
    t.write("rules/.keep.yml", "");
    // ast-grep 0.51.1 exits 1 here (it gives a utility file that does not parse no
    // code of its own); ast-edit gives it the code of every other file that
    // does not parse (docs/RULES.md, "Exit codes").
    let r = t.run(&["test"]).code(8);
    assert!(r.stderr.contains("utility file utils/bad.yml: error: line 3 column 1: unknown field `pattren`"), "{}", r.stderr);
    let o = std::process::Command::new(ast_grep()).arg("test").current_dir(t.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    t.write("utils/bad.yml", "id: dup\nlanguage: go\nrule: {pattern: f()}\n");
    t.write("utils/more/dup.yml", "id: dup\nlanguage: go\nrule: {pattern: g()}\n");
    refused(&t, 8, &["duplicate utility id `dup`: in utils/bad.yml and utils/more/dup.yml"]);
}

#[test]
fn a_rule_folder_that_does_not_exist_is_named() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules, lints]\n");
    t.write("rules/a.yml", "id: a\nlanguage: go\nrule: {pattern: f()}\n");
    let r = t.run(&["test"]).code(6);
    assert!(r.stderr.contains("`ruleDirs` names lints, which is not a folder: create it or fix `ruleDirs`"), "{}", r.stderr);
}

#[test]
fn language_globs_must_name_a_builtin_language() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: []\nlanguageGlobs:\n  mojo: ['*.mojo']\n");
    let r = t.run(&["test"]).code(33);
    assert!(r.stderr.contains("`languageGlobs`: unknown language `mojo`"), "{}", r.stderr);
    t.write("sgconfig.yml", "ruleDirs: []\nlanguageGlobs:\n  ts: ['*.mts']\n  typescript: ['*.cts']\n  py: ['*.pyw']\n");
    let p = Project::open(&t.path().join("sgconfig.yml")).unwrap();
    let (py, ts) = (Lang::parse("python").unwrap(), Lang::parse("typescript").unwrap());
    assert_eq!(p.language_globs, vec![(py, vec!["*.pyw".into()]), (ts, vec!["*.mts".into(), "*.cts".into()])]);
}

#[test]
fn filter_keeps_matching_ids_and_matching_nothing_lists_the_ids() {
    let p = Project::open(&fixture().join("sgconfig.yml")).unwrap();
    let re = project::parse_filter("^(rs|go)-").unwrap();
    let loaded = p.load_rules(Some(&re)).unwrap();
    let ids: Vec<&str> = loaded.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["go-ioutil-readfile", "rs-unwrap"]);
    // A filter that matches only an off rule keeps nothing to run, as in ast-grep.
    let only_off = p.load_rules(Some(&project::parse_filter("disabled").unwrap())).unwrap();
    assert!(only_off.rules.is_empty() && only_off.off.len() == 1);
    let e = p.load_rules(Some(&project::parse_filter("^zzz$").unwrap())).unwrap_err();
    assert!(e.to_string().starts_with("`filter` `^zzz$` matches no rule id; the ids are: go-ioutil-readfile,"), "{e}");
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn a_rule_file_reads_yaml_or_json_with_stem_ids_and_the_projects_utils() {
    let t = project();
    t.write("extra/checks.yml", "language: rust\nrule: {pattern: $R.unwrap(), matches: inside-fn}\nfix: $R.unwrap_or_default()\n---\nid: named\nlanguage: rust\nrule: {pattern: todo!()}\n");
    t.write("extra/one.json", r#"{"language": "python", "rule": {"pattern": "eval($X)"}, "severity": "error"}"#);
    let p = Project::open(&t.path().join("sgconfig.yml")).unwrap();
    let loaded = project::load_rule_file(&t.path().join("extra/checks.yml"), p.load_utils().unwrap(), None).unwrap();
    let ids: Vec<&str> = loaded.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["checks-0", "named"]);
    assert_eq!(loaded.base, t.path().join("extra").canonicalize().unwrap());
    assert_eq!(loaded.utils.json.len(), 1);
    let e = project::load_rule_file(&t.path().join("extra/checks.yml"), Utils::none(), None).unwrap_err().to_string();
    assert!(e.contains("extra/checks.yml: rule `checks-0` (document 1): Fail to parse yaml as Rule.") && e.contains("Rule `inside-fn` is not defined."), "{e}");
    let json = project::load_rule_file(&t.path().join("extra/one.json"), Utils::none(), None).unwrap();
    assert_eq!(json.rules[0].id, "one");
    assert_eq!(json.rules[0].config.json()["severity"], "error");
    let e = project::load_rule_file(&t.path().join("extra/none.yml"), Utils::none(), None).unwrap_err().to_string();
    assert!(e.starts_with("cannot read rule file ") && e.contains("extra/none.yml"), "{e}");
}

#[test]
fn inline_rules_keep_empty_ids_and_drop_off_rules_as_ast_grep() {
    let text = "language: python\nrule: {pattern: print($A)}\nfix: log($A)\n---\nid: quiet\nlanguage: python\nseverity: off\nrule: {pattern: eval($A)}\n";
    let loaded = project::parse_inline(text, Utils::none(), None).unwrap();
    assert_eq!(loaded.rules.len(), 1);
    assert_eq!(loaded.rules[0].id, "");
    assert_eq!(
        loaded.rules[0].config.json(),
        json!({
            "rule": {"pattern": "print($A)"}, "fix": "log($A)", "id": "", "language": "python", "message": "",
            "note": null, "severity": "hint", "labels": null, "files": null, "ignores": null, "url": null,
            "metadata": null, "rewriters": null, "constraints": null, "utils": null, "transform": null
        })
    );
    assert_eq!(loaded.off[0].id, "quiet");
    let e = project::parse_inline("language: python\nrule: {pattern: f($A)}\nfix: $B\n", Utils::none(), None).unwrap_err().to_string();
    assert_eq!(e, "--inline-rules: document 1: Fail to parse yaml as Rule.: Undefined meta var `B` used in `fix`.");
}

/// A project whose config sits in a subfolder (`tools/sg/sgconfig.yml`, run
/// from the repository's root with `-c`): a rule's `files` and `ignores` match
/// a file's path relative to the config's folder, and for a file outside that
/// folder relative to the working directory, as ast-grep 0.51.1 matches them.
/// Globs written from the root (`gen/**`) then take the root's files.
#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn globs_of_a_config_in_a_subfolder_match_files_outside_it_from_the_working_directory() {
    let t = Tree::empty();
    t.write("tools/sg/sgconfig.yml", "ruleDirs: [rules]\n");
    let rule = |extra: &str| format!("id: no-unwrap\nlanguage: rust\nseverity: error\nmessage: no unwrap\nrule: {{pattern: $A.unwrap()}}\n{extra}\n");
    t.write("gen/a.rs", "fn a() { x.unwrap(); }\n");
    t.write("src/b.rs", "fn b() { y.unwrap(); }\n");
    t.write("tools/sg/c.rs", "fn c() { z.unwrap(); }\n");
    let files = |r: &crate::common::Run| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
        let mut f: Vec<String> = v.as_array().unwrap().iter().map(|m| m["file"].as_str().unwrap().to_string()).collect();
        f.sort();
        f
    };
    for (extra, want) in
        [("ignores: [gen/**]", vec!["src/b.rs", "tools/sg/c.rs"]), ("files: [src/**]", vec!["src/b.rs"]), ("files: [c.rs]", vec!["tools/sg/c.rs"])]
    {
        t.write("tools/sg/rules/r.yml", rule(extra));
        let ours = t.run(&["scan", "-c", "tools/sg/sgconfig.yml", "--json=compact"]);
        let peer = t.peer(&["scan", "-c", "tools/sg/sgconfig.yml", "--json=compact"]);
        assert_eq!((files(&ours), ours.code), (want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), 1), "{extra}: {}", ours.stderr);
        assert_eq!((files(&peer), peer.code), (files(&ours), ours.code), "{extra}: as ast-grep");
    }
}
