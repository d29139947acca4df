//! The template check of default rewrites (docs/DESIGN.md section 2.5.9), through
//! the binary: an edit whose text says something other than its template (two
//! tokens glued into one) is flagged in the preview, refused at apply unless
//! `allowTemplateMismatch`, left out by `skipFlagged`; `--verbatim` writes
//! ast-grep's bytes without the check; and the counts reach the JSON and the
//! summary line.

mod common;

use common::Tree;
use serde_json::Value;

/// A tree holding `files`.
fn tree(files: &[(&str, &str)]) -> Tree {
    let t = Tree::empty();
    for (p, c) in files {
        t.write(p, c);
    }
    t
}

/// `-$X` on `neg(-y)`: ast-grep's text substitution itself writes `--y` (a
/// pre-decrement), so neither layout says what the template says.
const NEG: (&str, &str) = ("a.js", "let r = neg(-y);\nlet s = neg(z);\n");

#[test]
fn a_rewrite_that_glues_tokens_in_both_layouts_is_flagged_and_refused() {
    let t = tree(&[NEG]);
    let v: Value = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "--json", "."]).ok().json();
    assert_eq!(v["editsChecked"], 2, "{v}");
    assert_eq!(v["layoutFallbacks"], 0, "{v}");
    let f = &v["files"][0];
    assert_eq!(f["templateMismatch"], true, "{f}");
    assert_eq!(f["templateMismatches"], serde_json::json!([{"line": 1, "message": "`-` and `-` run together as `--`"}]));
    let warning = v["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).find(|w| w.contains("allowTemplateMismatch"));
    assert_eq!(
        warning,
        Some("a.js: the rewrite does not say what the template says, in the minimal layout or in ast-grep's (line 1: `-` and `-` run together as `--`); apply refuses this file unless extra {\"allowTemplateMismatch\": true}.")
    );

    let refused = t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    assert!(refused.stderr.contains("\n  a.js: the rewrite does not say what the template says (line 1: `-` and `-` run together as `--`)\n"), "{}", refused.stderr);
    assert!(refused.stderr.contains("--extra '{\"allowTemplateMismatch\":true}'"), "{}", refused.stderr);
    assert_eq!(t.read("a.js"), NEG.1, "nothing written");

    let both = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"skipFlagged": true, "allowTemplateMismatch": true}"#]).code(2);
    assert!(both.stderr.contains("pass one of the two"), "{}", both.stderr);

    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowTemplateMismatch": true}"#]).ok();
    assert_eq!(t.read("a.js"), "let r = --y;\nlet s = -z;\n");
}

#[test]
fn skip_flagged_leaves_out_a_file_whose_rewrite_glues_tokens() {
    let t = tree(&[NEG, ("b.js", "let s = neg(z);\n")]);
    t.run(&["run", "-p", "neg($X)", "-r", "-$X", "."]).ok();
    let out = t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"skipFlagged": true}"#, "--json"]);
    let v: Value = out.json();
    assert_eq!(t.read("b.js"), "let s = -z;\n");
    assert_eq!(t.read("a.js"), NEG.1);
    let outstanding = &v["details"]["sourceResultDetails"]["outstanding"];
    assert_eq!(outstanding[0]["path"], "a.js", "{v}");
    assert_eq!(outstanding[0]["reason"], "its rewrite does not say what its template says (left out by extra.skipFlagged)", "{v}");
}

#[test]
fn verbatim_writes_ast_greps_bytes_without_the_check() {
    let t = tree(&[NEG]);
    let v: Value = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "--verbatim", "--json", "."]).ok().json();
    assert_eq!(v["editsChecked"], 0, "{v}");
    assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("a.js"), "let r = --y;\nlet s = -z;\n");
}

#[test]
fn the_cli_text_names_the_glued_tokens() {
    let t = tree(&[NEG]);
    let out = t.run(&["run", "-p", "neg($X)", "-r", "-$X", "."]).ok();
    assert!(out.stdout.contains("warning: a.js: this rewrite does not say what its template says\n  a.js:1: `-` and `-` run together as `--`"), "{}", out.stdout);
}

#[test]
fn a_template_that_writes_its_own_tokens_together_is_not_flagged() {
    // `#include` is one token of C's grammar and two of the layout lexer's; the
    // template spells it so, and a capture glued by the template (`get_$N`) is
    // one token too.
    let t = tree(&[("a.c", "int x = old(y);\n"), ("b.py", "v = field(name)\n")]);
    let v: Value = t.run(&["run", "-l", "c", "-p", "int $V = old($Y);", "-r", "#include <new.h>\nint $V = fresh_$Y();", "--json", "."]).ok().json();
    assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
    assert_eq!(v["layoutFallbacks"], 0, "{v}");
    let v: Value = t.run(&["run", "-l", "py", "-p", "field($N)", "-r", "get_$N()", "--json", "."]).ok().json();
    assert_eq!(v["files"][0]["templateMismatch"], false, "{v}");
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("b.py"), "v = get_name()\n");
}
