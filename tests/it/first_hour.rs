//! What a newcomer meets in the first hour, through the real binary and MCP
//! server: every write names the way back (`undo` with the action's id and
//! label); a run without `-l` searches only the languages in which the pattern
//! is code and says which in one line, with one zero-match note; `search` and
//! `run` select the same files; the end-of-run table only with `--stats`; `show`
//! prints the label; `undo` of a partial apply counts what it applied; `tree` speaks the CLI's words on the command line and the
//! server's over MCP; `resolve --help` names every `extra` key.

use crate::common::mcp::{call, connect, text};
use crate::common::{Tree, undo_id};
use serde_json::json;

const PY: [&str; 8] = ["run", "-l", "py", "-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)", "python"];

#[test]
fn run_u_names_the_undo_command_and_undo_names_the_action_and_its_label() {
    let t = Tree::fixtures();
    let before = t.snapshot();
    let mut args = PY.to_vec();
    args.push("-U");
    let r = t.run(&args).ok();
    assert!(r.stdout.contains("Applied 2 replacements in 1 file."), "{}", r.stdout);
    let id = undo_id(&r.stdout);
    assert!(id.starts_with("ae-") && id.len() == 9, "{id}");
    assert_ne!(t.snapshot(), before);
    let u = t.run(&["undo", "--id", &id]).ok();
    assert_eq!(u.stdout, format!("Undid {id} (AST Edit: 2 replacements in 1 file): restored 1 file.\n  restored python/test_app.py\n"));
    assert_eq!(t.snapshot(), before);
    // The JSON names the label too.
    t.run(&args).ok();
    let j: serde_json::Value = t.run(&["undo", "--json"]).ok().json();
    assert_eq!(j["details"]["label"], "AST Edit: 2 replacements in 1 file");
    assert_eq!(t.snapshot(), before);
}

#[test]
fn resolve_apply_names_the_undo_command_on_the_cli_and_over_mcp() {
    let t = Tree::fixtures();
    let before = t.snapshot();
    t.run(&PY).ok();
    let r = t.run(&["resolve", "apply", "--reason", "deprecated"]).ok();
    let id = undo_id(&r.stdout);
    let u = t.run(&["undo", "--id", &id]).ok();
    assert!(u.stdout.starts_with(&format!("Undid {id} (AST Edit: 2 replacements in 1 file)")), "{}", u.stdout);
    assert_eq!(t.snapshot(), before);
}

/// An apply of part of an action (`extra.files`, `-U` with some files
/// refused, `-i`) is labelled with what it applied, so `undo` does not claim
/// the whole action's count; over MCP too.
#[tokio::test]
async fn undo_of_a_partial_apply_counts_what_was_applied() {
    let t = Tree::empty();
    for i in 0..10 {
        t.write(&format!("m{i}.py"), "foo(1)\nfoo(2)\n");
    }
    let before = t.snapshot();
    t.run(&["run", "-p", "foo($A)", "-r", "bar($A)"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"files": ["m3.py"]}"#]).code(3);
    let id = undo_id(&r.stdout);
    let u = t.run(&["undo", "--id", &id]).ok();
    assert_eq!(u.stdout, format!("Undid {id} (AST Edit: 20 replacements in 10 files; applied 2 replacements in 1 file): restored 1 file.\n  restored m3.py\n"));
    assert_eq!(t.snapshot(), before);
    let c = connect(&t).await;
    call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]})).await;
    call(&c, "resolve", json!({"action": "apply", "reason": "r", "extra": {"exclude": ["m0.py", "m1.py"]}})).await;
    let u = call(&c, "ast_undo", json!({})).await;
    assert!(text(&u).starts_with("Undid ae-"), "{}", text(&u));
    assert_eq!(u.structured_content.as_ref().unwrap()["label"], "AST Edit: 20 replacements in 10 files; applied 16 replacements in 8 files");
    // A whole apply keeps the action's label as it is.
    call(&c, "ast_edit", json!({"ops": [{"pat": "foo($A)", "out": "bar($A)"}]})).await;
    call(&c, "resolve", json!({"action": "apply", "reason": "r"})).await;
    let u = call(&c, "ast_undo", json!({})).await;
    assert_eq!(u.structured_content.as_ref().unwrap()["label"], "AST Edit: 20 replacements in 10 files");
    c.cancel().await.unwrap();
    assert_eq!(t.snapshot(), before);
}

#[tokio::test]
async fn resolve_apply_over_mcp_names_ast_undo_with_the_id() {
    let t = Tree::fixtures();
    let before = t.snapshot();
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "self.assertEquals($A, $B)", "out": "self.assertEqual($A, $B)"}], "lang": "python"})).await;
    let id = r.structured_content.as_ref().unwrap()["id"].as_str().unwrap().to_string();
    let r = call(&c, "resolve", json!({"action": "apply", "reason": "deprecated"})).await;
    assert!(text(&r).ends_with(&format!("\nTo undo: call `ast_undo` with `\"id\": \"{id}\"`")), "{}", text(&r));
    let u = call(&c, "ast_undo", json!({"id": id})).await;
    assert!(text(&u).starts_with(&format!("Undid {id} (AST Edit: 2 replacements in 1 file): restored 1 file.")), "{}", text(&u));
    c.cancel().await.unwrap();
    assert_eq!(t.snapshot(), before);
}

/// A Python pattern on a tree of Python, markdown, HTML and YAML that all hold
/// its words: only the Python file is searched and edited, one line says so,
/// and `search` counts what `run` edits.
#[test]
fn without_lang_only_the_languages_where_the_pattern_is_code_are_searched() {
    let t = Tree::empty();
    t.write("app.py", "fetch_data(1)\n");
    t.write("README.md", "Call fetch_data(1) to load.\n");
    t.write("page.html", "<p>fetch_data(1)</p>\n");
    t.write("conf.yml", "step: fetch_data(1)\n");
    let before = t.snapshot();
    let r = t.run(&["run", "-p", "fetch_data($A)", "-r", "load_data($A)", "-U"]).ok();
    assert!(r.stdout.contains("Applied 1 replacement in 1 file.\n  applied  app.py (1 replacement)\n"), "{}", r.stdout);
    let warnings: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        [
            "warning: ops[0].pat `fetch_data($A)` is searched in python files; not in html (text there: a `text`), markdown (prose) or yaml (text there: a `string_scalar`) files. Name a language with `-l` to search its files."
        ],
        "{}",
        r.stdout
    );
    for f in ["README.md", "page.html", "conf.yml"] {
        assert_eq!(t.read_bytes(f), before[f], "{f}");
    }
    t.run(&["undo"]).ok();
    // search selects the same files as run.
    let s = t.run(&["search", "-p", "fetch_data($A)"]).ok();
    assert!(s.stdout.starts_with("Found 1 match in 1 file (searched "), "{}", s.stdout);
    assert!(s.stdout.contains("app.py:1:1:"), "{}", s.stdout);
    // Named, a prose language is searched.
    let md = t.run(&["search", "-l", "md", "-p", "Call fetch_data(1) to load."]).ok();
    assert!(md.stdout.starts_with("Found 1 match in 1 file"), "{}", md.stdout);
}

/// A pattern no file holds: one note for every language whose files lack its
/// words, not one per language.
#[test]
fn a_zero_match_run_gives_one_note_not_one_per_language() {
    let t = Tree::fixtures();
    let r = t.run(&["run", "-p", "nothing_here($A)", "-r", "x($A)", "go", "js", "python", "rust", "ts"]).ok();
    let notes: Vec<&str> = r.stdout.lines().filter(|l| l.contains("matched nothing")).collect();
    assert_eq!(
        notes,
        [
            "warning: ops[0].pat `nothing_here($A)` matched nothing: no go, javascript, python, rust or typescript file searched holds all of its words (`nothing_here`), so none was parsed for it."
        ],
        "{}",
        r.stdout
    );
}

#[test]
fn the_end_of_run_table_is_printed_only_with_stats() {
    let t = Tree::fixtures();
    let r = t.run(&PY).ok();
    assert!(!r.stderr.contains("files searched"), "{}", r.stderr);
    let mut args = PY.to_vec();
    args.push("--stats");
    let r = t.run(&args).ok();
    let table: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("  ")).map(|l| l.split_whitespace().next().unwrap_or_default()).collect();
    assert!(r.stderr.contains("  files searched         4\n  files changed          1\n"), "{}", r.stderr);
    assert_eq!(table.len(), 8, "{}", r.stderr);
    // The most work one file did under each limit, the file and the limit:
    // the steps are counted, so the same on any machine.
    let steps = r.stderr.lines().find(|l| l.starts_with("  most steps")).expect("a steps row");
    assert!(steps.ends_with("(in python/test_app.py; the limit is 1073741824 per file)"), "{steps}");
    let n: u64 = steps.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(
        n > 0
            && n == t
                .run(&args)
                .ok()
                .stderr
                .lines()
                .find(|l| l.starts_with("  most steps"))
                .unwrap()
                .split_whitespace()
                .nth(2)
                .unwrap()
                .parse::<u64>()
                .unwrap()
    );
    assert!(r.stderr.contains("  most stack "), "{}", r.stderr);
    assert!(r.stderr.contains("  most text built "), "{}", r.stderr);
}

#[test]
fn show_prints_the_label() {
    let t = Tree::fixtures();
    t.run(&PY).ok();
    let r = t.run(&["show"]).ok();
    let head = r.stdout.lines().next().unwrap();
    assert!(
        head.contains("  AST Edit: 2 replacements in 1 file (`self.assertEquals($A, $B)` -> `self.assertEqual($A, $B)`)  [ast_edit]  by cli, yours"),
        "{head}"
    );
}

#[tokio::test]
async fn tree_names_the_selector_in_each_front_ends_words() {
    let t = Tree::empty();
    let cli = t.run(&["tree", "-l", "python", "--pattern", "print($A)"]).ok();
    assert!(cli.stdout.contains("give this code as context with `--selector` set to that node's kind"), "{}", cli.stdout);
    assert!(!cli.stdout.contains("`selector` set") && !cli.stdout.contains("ast_edit"), "{}", cli.stdout);
    let c = connect(&t).await;
    let r = call(&c, "ast_tree", json!({"code": "print($A)", "lang": "python", "isPattern": true})).await;
    assert!(text(&r).contains("give this code as context with `selector` set to that node's kind"), "{}", text(&r));
    c.cancel().await.unwrap();
}

#[test]
fn resolve_help_names_every_extra_key() {
    let t = Tree::empty();
    let help = t.run(&["resolve", "--help"]).ok().stdout;
    for key in ast_edit::app::apply::ApplyOptions::EXTRA_KEYS {
        assert!(help.contains(&format!("\"{key}\"")), "resolve --help should name extra.{key}:\n{help}");
    }
}
