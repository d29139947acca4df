//! Why a search or an edit found nothing, named (docs/DESIGN.md §2.12), over
//! MCP (`ast_search`, `ast_edit`) and on the CLI: the kind the snippet parses
//! to against the kind the code has, `|` read as an operator, a relational rule
//! without `stopBy`, globs that match from the top folder, and syntax hints
//! that stay within the language asked for. Each case pins the message, then
//! runs the fix it names and checks that it finds what was missed.

use crate::common::Tree;
use crate::common::mcp::{Client, call, connect, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const MODELS: &str = "from django.db import models\n\n\nclass Book(models.Model):\n    author = models.ForeignKey(\"A\", on_delete=models.CASCADE)\n    shelf = models.ForeignKey(\"S\", on_delete=models.CASCADE)\n\n\nclass T:\n    def test(self):\n        self.assertEqual(1, 2)\n        self.assertEquals(3, 4)\n";

fn tree() -> Tree {
    let t = Tree::empty();
    t.write("app/models.py", MODELS);
    t.write("tests/queries/q.py", "def q():\n    return models.CASCADE\n");
    t
}

fn warnings(r: &CallToolResult) -> Vec<String> {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    let s = r.structured_content.as_ref().expect("structuredContent");
    s["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect()
}

async fn total(c: &Client, args: Value) -> u64 {
    let r = call(c, "ast_search", args).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    r.structured_content.as_ref().unwrap()["totalMatches"].as_u64().unwrap()
}

#[tokio::test]
async fn ast_search_names_the_kind_the_code_has_as_ast_edit_does() {
    let t = tree();
    let c = connect(&t).await;
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "on_delete=models.CASCADE"}], "paths": ["app"]})).await;
    assert_eq!(
        warnings(&r),
        [
            "ops[0].pat `on_delete=models.CASCADE` matched nothing in the 1 python file it was tried on: it parses as `assignment`, the kind of node it matches, but code there that starts like it (`on_delete`) is `keyword_argument` (2 places, e.g. app/models.py:5).",
            "ops[0].pat: to match a `keyword_argument`, pass `\"selector\": \"keyword_argument\"` and `\"pat\": \"f(on_delete=models.CASCADE)\"` (the pattern written where it is one).",
        ]
    );
    let fixed = json!({"ops": [{"pat": "f(on_delete=models.CASCADE)"}], "selector": "keyword_argument", "paths": ["app"]});
    assert_eq!(total(&c, fixed).await, 2);
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_bar_between_names_is_named_as_an_operator_not_a_choice() {
    let t = tree();
    let c = connect(&t).await;
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "self.assertEquals|self.assertEqual"}]})).await;
    let w = warnings(&r);
    assert_eq!(
        w[0],
        "ops[0].pat `self.assertEquals|self.assertEqual` matched nothing: in python `|` is an operator, so the pattern is one `binary_operator` (`self.assertEquals` or-ed with `self.assertEqual`), not a choice between two patterns; give each as its own pattern (`\"pat\": \"self.assertEquals\"`, `\"pat\": \"self.assertEqual\"`), or a `rule` with `any:` of patterns."
    );
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "self.assertEquals|self.assertEqual", "out": "x"}]})).await;
    assert_eq!(warnings(&r)[0], w[0]);
    assert!(
        text(&r).contains("No matches: nothing was staged and there is nothing to resolve. If you expected matches, the warnings below may say why."),
        "{}",
        text(&r)
    );
    assert_eq!(total(&c, json!({"ops": [{"pat": "self.assertEquals"}, {"pat": "self.assertEqual"}]})).await, 2);
    // `||` is left alone: no note.
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "a || b"}], "lang": "js"})).await;
    assert!(!warnings(&r).iter().any(|w| w.contains("is an operator")), "{:?}", warnings(&r));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_relational_rule_without_stop_by_is_named_and_stop_by_end_finds_the_code() {
    let t = tree();
    let c = connect(&t).await;
    let rule = "id: cascade-in-class\nlanguage: python\nrule:\n  pattern: models.CASCADE\n  inside:\n    kind: class_definition\n";
    let note = "rule `cascade-in-class` matched nothing: its `inside` has no `stopBy` (or `stopBy: neighbor`, the default), so it looks at the direct parent only; to look at every ancestor, add `stopBy: end` to the `inside`.";
    for tool in ["ast_search", "ast_edit"] {
        let r = call(&c, tool, json!({"rule": rule})).await;
        assert_eq!(warnings(&r), [note], "{tool}");
    }
    let has = "id: class-with-cascade\nlanguage: python\nrule:\n  kind: class_definition\n  has:\n    pattern: models.CASCADE\n";
    let r = call(&c, "ast_search", json!({"rule": has})).await;
    assert_eq!(
        warnings(&r),
        [
            "rule `class-with-cascade` matched nothing: its `has` has no `stopBy` (or `stopBy: neighbor`, the default), so it looks at the direct children only; to look at every descendant, add `stopBy: end` to the `has`."
        ]
    );
    assert_eq!(total(&c, json!({"rule": format!("{rule}    stopBy: end\n")})).await, 2);
    // A rule that matches gets no note.
    let r = call(&c, "ast_search", json!({"rule": format!("{rule}    stopBy: end\n")})).await;
    assert!(warnings(&r).is_empty(), "{:?}", warnings(&r));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn globs_that_match_from_the_root_are_named_with_the_glob_that_fits() {
    let t = tree();
    let c = connect(&t).await;
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "models.CASCADE"}], "paths": ["tests"], "globs": ["queries/*.py"]})).await;
    assert_eq!(
        warnings(&r),
        [
            "No file searched: the globs left out the 1 file under the given paths: a glob with a `/` matches paths from the top folder, not from each of `paths` (`queries/*.py` does not match `<path>/queries/*.py`); with `**/` in front of each such glob, 1 file matches, e.g. `\"globs\": [\"**/queries/*.py\"]`."
        ]
    );
    assert_eq!(total(&c, json!({"ops": [{"pat": "models.CASCADE"}], "paths": ["tests"], "globs": ["**/queries/*.py"]})).await, 1);
    c.cancel().await.unwrap();
    // The CLI says the same in its words.
    let r = t.run(&["search", "-p", "models.CASCADE", "-g", "queries/*.py", "tests"]).ok();
    assert!(r.stdout.contains("not from each of `PATH` (`queries/*.py` does not match `<path>/queries/*.py`); with `**/` in front of each such glob, 1 file matches, e.g. `-g '**/queries/*.py'`."), "{}", r.stdout);
    // Globs that are not the cause keep the general message.
    let r = t.run(&["search", "-p", "models.CASCADE", "-g", "*.rs", "tests"]).ok();
    assert!(r.stdout.contains("warning: No file searched: the globs left out the 1 file under the given paths: check each glob"), "{}", r.stdout);
}

#[test]
fn a_pattern_that_does_not_parse_gets_no_other_language_when_one_was_named() {
    let t = tree();
    let named = t.run(&["search", "-p", "fn main() {}", "-l", "py"]).code(2);
    assert!(named.stderr.contains("is not a valid python pattern"), "{}", named.stderr);
    assert!(!named.stderr.contains("parses cleanly as"), "{}", named.stderr);
    let inferred = t.run(&["search", "-p", "fn main() {}"]).code(2);
    assert!(inferred.stderr.contains("ops[0].pat parses cleanly as rust"), "{}", inferred.stderr);
}

/// The diagnosis walks each file once, whatever its depth: on 10,000 nested
/// calls it took 43 s (each near miss listed every leaf under it, and each
/// leaf's ancestors were found by tree-sitter's `parent`, a walk down from the
/// root), now a fraction of a second in a release build. A watchdog fails the
/// test if it comes back.
#[test]
fn the_diagnosis_of_deeply_nested_near_misses_is_linear() {
    let t = Tree::empty();
    t.write("n.py", format!("x = {}2{}\n", "f(".repeat(10_000), ")".repeat(10_000)));
    let r = t.run_within(&["search", "-p", "f($A, 2)", "n.py"], "", 60);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("10000 `call` nodes there start like it (`f(`) but differ"), "{}", r.stdout);
}

/// The diagnosis matches the files again under the request's budget, a meter
/// per file as the run had: where that meter stops it, it says so instead of
/// counting short (the run itself finished within the limit).
#[test]
fn the_diagnosis_is_matched_under_the_request_budget() {
    let t = Tree::empty();
    t.write("a.py", (0..2000).map(|i| format!("f({i}, 2)\n")).collect::<String>());
    let full = t.run(&["search", "-p", "f($$$A, 3)", "a.py"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    assert!(full.stdout.contains("matched 0 of the 2000 calls to `f`"), "{}", full.stdout);
    let cut = t.run(&["search", "--max-steps", "30000", "-p", "f($$$A, 3)", "a.py"]);
    assert_eq!(cut.code, 0, "the run finished: {}", cut.stderr);
    assert!(cut.stdout.starts_with("Found 0 matches (searched 1 file)\n"), "{}", cut.stdout);
    assert!(!cut.stdout.contains("matched 0 of"), "{}", cut.stdout);
    assert!(
        cut.stdout.contains("warning: the diagnosis of why nothing matched stopped at a.py: matching took more than 30000 steps here, the limit per file"),
        "{}",
        cut.stdout
    );
}

/// Every lower-case `$name` of a pattern is named, `$$$rest` too, not only the
/// first one.
#[tokio::test]
async fn every_lowercase_metavariable_is_named() {
    let t = Tree::empty();
    t.write("a.js", "console.log(\"x\", 1, 2);\n");
    let c = connect(&t).await;
    let note =
        "ops[0].pat: `$msg` and `$$$rest` are not metavariables: metavariables are upper case (`$MSG`, `$$$REST`), so each stands for its own code only.";
    let r = call(&c, "ast_search", json!({"ops": [{"pat": "console.log($msg, $$$rest)"}]})).await;
    assert!(warnings(&r).iter().any(|w| w == note), "{:?}", warnings(&r));
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "console.log($msg, $$$rest)", "out": "log($msg)"}]})).await;
    assert!(warnings(&r).iter().any(|w| w.ends_with(&note["ops[0].pat: ".len()..])), "{:?}", warnings(&r));
    assert_eq!(total(&c, json!({"ops": [{"pat": "console.log($MSG, $$$REST)"}]})).await, 1);
    c.cancel().await.unwrap();
}

/// A `has` with `field` names the child it looks at: "add `stopBy: end`" is
/// not its fix, and it gets no such note.
#[tokio::test]
async fn a_has_with_a_field_is_not_told_to_add_stop_by() {
    let t = tree();
    let c = connect(&t).await;
    let rule = "id: class-named-nope\nlanguage: python\nrule:\n  kind: class_definition\n  has:\n    field: name\n    regex: ^Nope$\n";
    let r = call(&c, "ast_search", json!({"rule": rule})).await;
    assert!(!warnings(&r).iter().any(|w| w.contains("stopBy")), "{:?}", warnings(&r));
    c.cancel().await.unwrap();
}

/// A single metavariable in a Rust macro's token tree matches one token:
/// `tri!($E)` misses every `tri!(f(x))`. The note says so and gives the
/// pattern with `$$$` lists, which finds them.
#[tokio::test]
async fn a_metavariable_in_a_macro_token_tree_is_named_with_the_dollar_list_that_finds_the_calls() {
    let t = Tree::empty();
    t.write("src/lib.rs", "fn f() -> R {\n    let a = tri!(read(x));\n    let b = tri!(parse(a, 10));\n    tri!(done(b))\n}\n");
    let c = connect(&t).await;
    let r = call(&c, "ast_edit", json!({"ops": [{"pat": "tri!($E)", "out": "$E?"}], "lang": "rust"})).await;
    let w = warnings(&r);
    assert_eq!(
        w[0],
        "ops[0].pat `tri!($E)` matched nothing in the 1 rust file it was tried on: inside a macro's token tree a metavariable such as `$A` matches one token, so it misses an argument of several (`f(x)`); with `$$$` lists there, `tri!($$$E)` matches 3 places (e.g. src/lib.rs:2): pass `\"pat\": \"tri!($$$E)\"`, and the same `$$$` names in the rewrite.",
        "{w:?}"
    );
    assert!(!w.iter().any(|w| w.contains("markdown")), "{w:?}");
    assert_eq!(total(&c, json!({"ops": [{"pat": "tri!($$$E)"}], "lang": "rust"})).await, 3);
    c.cancel().await.unwrap();
    // The CLI words the same note with its flag.
    let r = t.run(&["search", "-l", "rust", "-p", "tri!($E)"]).ok();
    assert!(r.stdout.contains("`tri!($$$E)` matches 3 places (e.g. src/lib.rs:2): pass `-p 'tri!($$$E)'`"), "{}", r.stdout);
}

/// A pattern that is code of the files' language but for a metavariable where
/// the grammar takes none (Rust's `match $X { $$$ARMS }`) is refused with the
/// form that matches (a rule by `kind`), and without languages the files are
/// not written in (it also parses as Ruby, Bash, ...).
#[tokio::test]
async fn a_metavariable_the_grammar_cannot_take_gets_the_rule_that_matches_not_other_languages() {
    let t = Tree::empty();
    t.write("a.rs", "fn f(x: u8) -> u8 {\n    match x {\n        1 => 2,\n        _ => 3,\n    }\n}\n");
    let c = connect(&t).await;
    for args in [json!({"ops": [{"pat": "match $X { $$$ARMS }"}]}), json!({"ops": [{"pat": "match $X { $$$ARMS }"}], "lang": "rust"})] {
        let r = call(&c, "ast_search", args).await;
        assert_eq!(r.is_error, Some(true));
        let said = text(&r);
        assert!(
            said.ends_with("\nops[0].pat is rust code but for `$$$ARMS`, which stands where the grammar takes no metavariable (inside a `match_block`); to match every `match_expression`, give a rule with `kind: match_expression` instead of the pattern (`rule: {kind: match_expression}`; `ast_tree` shows its fields, which `has` with `field:` can match)."),
            "{said}"
        );
        for other in ["ruby", "bash", "elixir", "haskell"] {
            assert!(!said.contains(other), "{said}");
        }
    }
    // The form named matches.
    assert_eq!(total(&c, json!({"rule": "rule: {kind: match_expression}", "lang": "rust"})).await, 1);
    c.cancel().await.unwrap();
}
