//! Diagnostics that lead to the fix when a pattern finds nothing or is likely
//! wrong (docs/DESIGN.md §2.12), through the real binary and the real MCP server:
//! each case pins the message, then runs the fix it names and checks that it
//! finds what was missed. Over MCP the same messages speak of fields and tools,
//! never of flags (docs/DESIGN.md §5.14).

use crate::common::Tree;
use crate::common::json::Preview;
use crate::common::mcp::{self, Client, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// Django models: nine `models.ForeignKey` calls, six with
/// `on_delete=models.CASCADE` as a keyword argument, three of those with other
/// arguments on both sides of it.
const MODELS: &str = r#"from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)


class Book(models.Model):
    author = models.ForeignKey(Author, on_delete=models.CASCADE)
    editor = models.ForeignKey(Author, models.CASCADE, related_name="edited")
    owner = models.ForeignKey("auth.User", on_delete=models.CASCADE, null=True)
    shelf = models.ForeignKey(
        "Shelf",
        on_delete=models.CASCADE,
        related_name="books",
    )
    series = models.ForeignKey(to="Series", on_delete=models.CASCADE, blank=True)
    publisher = models.ForeignKey("Publisher", null=True, on_delete=models.CASCADE)
    translator = models.ForeignKey(Author, related_name="translated", on_delete=models.CASCADE)
    cover = models.ForeignKey("Image", on_delete=models.SET_NULL, null=True)
    agent = models.ForeignKey(Author, on_delete=models.PROTECT)
"#;

const FK_PAT: &str = "models.ForeignKey($$$A, on_delete=models.CASCADE, $$$B)";
const FK_OUT: &str = "models.ForeignKey($$$A, on_delete=models.PROTECT, $$$B)";

const GO_MAIN: &str =
    "package main\n\nimport \"io/ioutil\"\n\nfunc main() {\n\tdata, err := ioutil.ReadFile(\"a.txt\")\n\t_ = data\n\t_ = err\n\tioutil.ReadFile(path)\n}\n";

fn models_tree() -> Tree {
    let t = Tree::empty();
    t.write("models.py", MODELS);
    t
}

fn preview(t: &Tree, args: &[&str]) -> Preview {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    t.run(&all).ok().json()
}

#[test]
fn a_keyword_argument_between_two_lists_says_which_calls_it_misses_and_why() {
    let t = models_tree();
    let p = preview(&t, &["-p", FK_PAT, "-r", FK_OUT]);
    assert_eq!(p.total_replacements, 3);
    assert_eq!(
        p.warnings,
        [
            "ops[0].pat `models.ForeignKey($$$A, on_delete=models.CASCADE, $$$B)` matched 3 of the 9 calls to `models.ForeignKey` in the 1 python file it was tried on; 3 more match with `--strictness ast` (e.g. models.py:9): under `smart` each `,` of the pattern must be in the code, and next to an empty `$$$` list (the fixed argument first or last) there is none.",
            "ops[0].pat: the other 3 calls to `models.ForeignKey` differ in their arguments (e.g. models.py:10): a `$$$` list matches a run of arguments, and the fixed ones must be there as written; to see every call, search `-p 'models.ForeignKey($$$ARGS)'`.",
        ]
    );
    assert_eq!(t.read("models.py"), MODELS, "a preview writes nothing");
    // The fix it names finds all six, and says nothing more.
    let p = preview(&t, &["-p", FK_PAT, "-r", FK_OUT, "--strictness", "ast"]);
    assert_eq!(p.total_replacements, 6);
    assert!(p.warnings.iter().all(|w| !w.contains("more match")), "{:?}", p.warnings);
    // Every call matched: nothing to say.
    let p = preview(&t, &["-p", "models.ForeignKey($$$ARGS)", "-r", "models.ForeignKey($$$ARGS)"]);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn a_keyword_argument_alone_parses_as_an_assignment_and_the_selector_that_fits_is_named() {
    let t = models_tree();
    // A file without `CASCADE` is skipped by the prefilter: never parsed, not counted.
    t.write("other.py", "x = f(on_delete=models.PROTECT)\n");
    let p = preview(&t, &["-p", "on_delete=models.CASCADE", "-r", "on_delete=models.PROTECT"]);
    assert_eq!((p.total_replacements, p.files_searched), (0, 2));
    assert_eq!(
        p.warnings,
        [
            "ops[0].pat `on_delete=models.CASCADE` matched nothing in the 1 python file it was tried on: it parses as `assignment`, the kind of node it matches, but code there that starts like it (`on_delete`) is `keyword_argument` (8 places, e.g. models.py:9).",
            "ops[0].pat: to match a `keyword_argument`, pass `--selector keyword_argument` and `-p 'f(on_delete=models.CASCADE)'` (the pattern written where it is one).",
        ]
    );
    let p = preview(&t, &["--selector", "keyword_argument", "-p", "f(on_delete=models.CASCADE)", "-r", "on_delete=models.PROTECT"]);
    assert_eq!(p.total_replacements, 6, "the six `on_delete=models.CASCADE` of models.py");
}

#[test]
fn near_misses_of_the_patterns_kind_are_counted_with_an_example() {
    let t = Tree::empty();
    t.write("t.py", "import os\nself.assertEquals(a, b, msg)\nself.assertEquals(c, d, \"m\")\nself.assertTrue(x)\n");
    let p = preview(&t, &["-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)"]);
    assert_eq!(
        p.warnings,
        [
            "ops[0].pat `self.assertEquals($A, $B)` matched nothing in the 1 python file it was tried on: it parses as `call`, the kind of node it matches; 2 `call` nodes there start like it (`self.assertEquals(`) but differ (e.g. t.py:2: `self.assertEquals(a, b, msg)`).",
            "ops[0].pat: compare the trees of the pattern and of that code with `ast-edit tree -l python --pattern`.",
        ]
    );
}

#[test]
fn a_lowercase_metavariable_is_named_whether_the_pattern_parses_or_not() {
    let t = Tree::empty();
    t.write("a.py", "print(x)\n");
    t.write("a.js", "print(x);\n");
    let r = t.run(&["run", "-p", "print($a)", "-r", "log($a)", "a.py"]).code(2);
    assert!(r.stderr.contains("Note: `$a` is not a metavariable: metavariables are upper case (`$A`), so `$a` stands for the code `$a` only."), "{}", r.stderr);
    // In JavaScript `$a` is an identifier: the pattern parses and matches
    // nothing, no file holding `$a`; the lowercase name is the whole story.
    let p = preview(&t, &["-p", "print($a)", "-r", "log($a)", "a.js"]);
    assert_eq!(p.warnings, ["ops[0].pat: `$a` is not a metavariable: metavariables are upper case (`$A`), so `$a` stands for the code `$a` only."]);
    assert_eq!(preview(&t, &["-p", "print($A)", "-r", "log($A)", "a.js"]).total_replacements, 1);
}

#[test]
fn a_go_call_read_as_a_type_conversion_gets_the_selector_and_context_that_match_it() {
    let t = Tree::empty();
    t.write("main.go", GO_MAIN);
    let p = preview(&t, &["-p", "ioutil.ReadFile($A)", "-r", "os.ReadFile($A)"]);
    assert_eq!(
        p.warnings,
        [
            "ops[0].pat `ioutil.ReadFile($A)` matched nothing in the 1 go file it was tried on: it parses as `type_conversion_expression`, the kind of node it matches (in Go, `pkg.Fn(x)` alone is read as a type conversion, `pkg.Fn` taken for a type), but code there that starts like it (`ioutil`) is `call_expression` (2 places, e.g. main.go:6).",
            "ops[0].pat: to match a `call_expression`, pass `--selector call_expression` and `-p 'x := ioutil.ReadFile($A)'` (the pattern written where it is one).",
        ]
    );
    let p = preview(&t, &["--selector", "call_expression", "-p", "x := ioutil.ReadFile($A)", "-r", "os.ReadFile($A)"]);
    assert_eq!(p.total_replacements, 2);
    // Where no file holds the call, the fix is still named, from the pattern alone.
    let p = preview(&t, &["-p", "os.Open($A)", "-r", "os.ReadFile($A)"]);
    assert_eq!(
        p.warnings,
        [
            "ops[0].pat `os.Open($A)` matched nothing: no go file searched holds all of its words (`Open`, `os`), so none was parsed for it. It parses as `type_conversion_expression` (in Go, `pkg.Fn(x)` alone is read as a type conversion, `pkg.Fn` taken for a type); to match calls, pass `--selector call_expression` and `-p 'x := os.Open($A)'`."
        ]
    );
}

#[test]
fn a_glob_given_as_a_path_is_refused_with_where_globs_go() {
    let t = Tree::empty();
    t.write("src/a.py", "f(1)\n");
    t.write("src/sub/b.py", "f(2)\n");
    let r = t.run(&["run", "-p", "f($A)", "-r", "g($A)", "src/*.py"]).code(2);
    let root = t.path().display().to_string();
    assert_eq!(
        r.stderr,
        format!(
            "error: path not found: src/*.py (relative to {root}): paths are files and folders, and the shell did not expand this glob; give it as a glob instead: `-g 'src/*.py'` (globs are matched from the working directory)\n"
        )
    );
    let p = preview(&t, &["-p", "f($A)", "-r", "g($A)", "-g", "src/*.py"]);
    assert_eq!(p.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["src/a.py"]);
    let r = t.run(&["run", "-p", "f($A)", "-r", "g($A)", "nope.py"]).code(2);
    assert!(r.stderr.ends_with("check the spelling or give an existing file or directory\n"), "{}", r.stderr);
}

#[test]
fn a_language_that_does_not_fit_the_files_is_named() {
    let t = Tree::empty();
    t.write("main.rs", "fn main() {\n    let x = foo(1);\n}\n");
    let p = preview(&t, &["-l", "py", "-p", "foo($A)", "-r", "bar($A)"]);
    assert_eq!(p.files_searched, 0);
    assert_eq!(
        p.warnings[1],
        "The language is python (`-l python`), but the files under the given paths are rust (1 file): pass their language (`-l rust`), or leave it out to take each file's language from its extension."
    );
    // A file named explicitly is parsed in the forced language: said when nothing matched.
    let p = preview(&t, &["-l", "py", "-p", "bar($A)", "-r", "baz($A)", "main.rs"]);
    assert_eq!(p.files_searched, 1);
    assert_eq!(p.warnings.last().unwrap(), "main.rs searched as python (`-l python`), although its extension says rust: set `-l rust` if the files are rust.");
    // A pattern that only another language can express: of the languages it
    // parses as, only those of the files are offered when a language is named.
    let r = t.run(&["run", "-l", "py", "-p", "let $X = foo($A)", "-r", "bar($A)"]).code(2);
    assert!(
        r.stderr.ends_with("\nops[0].pat parses cleanly as rust: if it is written in another language, pass that language (e.g. `-l rust`).\n"),
        "{}",
        r.stderr
    );
    assert_eq!(preview(&t, &["-l", "rs", "-p", "let $X = foo($A)", "-r", "let $X = bar($A)"]).total_replacements, 1);
    // A C call without its `;` has its own hint: no other language is named.
    t.write("k.c", "void f(void *p) {\n  kfree(p);\n}\n");
    let r = t.run(&["run", "-p", "kfree($A)", "-r", "kvfree($A)", "k.c"]).code(2);
    assert!(r.stderr.contains("try `kfree($A);`") && !r.stderr.contains("parses cleanly as"), "{}", r.stderr);
}

/// Characters ast-grep-core puts in place of `$` before parsing (`µ` for
/// Python, Go, Rust...; U+10000 for C and C++).
const EXPANDO: [char; 2] = ['µ', '\u{10000}'];

#[test]
fn no_message_shows_the_preprocessed_pattern() {
    let t = Tree::empty();
    t.write("a.py", "foo(1)\n");
    t.write("main.go", GO_MAIN);
    t.write("k.c", "void f(void *p) {\n  kfree(p);\n}\n");
    let runs: [&[&str]; 6] = [
        &["-p", "let $X = foo($A)", "-r", "x", "a.py"],
        &["-l", "go", "--selector", "call_expression", "-p", "ioutil.ReadFile($A)", "-r", "x"],
        &["-p", "kfree($A); kfree($B);", "-r", "x", "k.c"],
        &["-p", "kvfree($A);", "-r", "x", "k.c"],
        &["-p", "ioutil.ReadFile($A)", "-r", "x", "main.go"],
        &["-p", "foo($A) +", "-r", "x", "a.py", "main.go", "k.c"],
    ];
    for args in runs {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let r = t.run(&all);
        let out = format!("{}{}", r.stdout, r.stderr);
        assert!(!out.contains(EXPANDO), "{args:?}:\n{out}");
        assert!(out.contains(args.iter().find(|a| a.contains('$')).unwrap()), "the user's pattern is shown: {args:?}:\n{out}");
    }
    let r = t.run(&["run", "-l", "go", "--selector", "call_expression", "-p", "ioutil.ReadFile($A)", "-r", "x"]).code(2);
    assert!(
        r.stderr.contains("selector `call_expression` matches no node in the context `ioutil.ReadFile($A)`. Hint: with a selector, the pattern is code that holds a `call_expression`, and alone it holds none; write it where it is one: `-p 'x := ioutil.ReadFile($A)'`."),
        "{}",
        r.stderr
    );
}

// ---- over MCP ----

async fn call(client: &Client, args: Value) -> CallToolResult {
    mcp::call(client, "ast_edit", args).await
}

/// The result's text without its diff fence (a diff has `---` headers), and
/// its structured warnings.
fn prose(r: &CallToolResult) -> (String, Vec<String>) {
    let t = text(r);
    let t = match (t.find("```diff"), t.rfind("```")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &t[..a], &t[b..]),
        _ => t.to_string(),
    };
    let warnings = r
        .structured_content
        .as_ref()
        .and_then(|s| s["warnings"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    (t, warnings)
}

/// CLI words: a flag, `-l `, an `ast-edit` command.
fn cli_words(s: &str) -> Vec<&'static str> {
    ["--", "-l ", "ast-edit "].into_iter().filter(|w| s.contains(w)).collect()
}

#[tokio::test]
async fn mcp_messages_speak_of_fields_and_tools_and_the_cli_ones_of_flags() {
    let t = Tree::empty();
    t.write("models.py", MODELS);
    t.write("main.go", GO_MAIN);
    t.write("t.py", "self.assertEquals(a, b, msg)\n");
    t.write("a.js", "print(x);\n");
    t.write("k.c", "void f(void *p) {\n  kfree(p);\n}\n");
    t.write("rs/main.rs", "fn main() {}\n");
    let root = t.path().canonicalize().unwrap();
    let client = mcp::serve(&root, t.state.path()).await;
    let op = |pat: &str, out: &str| json!([{"pat": pat, "out": out}]);
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"ops": op(FK_PAT, FK_OUT), "paths": ["models.py"]}), vec!["--strictness ast", "-p "]),
        (json!({"ops": op("on_delete=models.CASCADE", "x"), "paths": ["models.py"]}), vec!["--selector keyword_argument"]),
        (json!({"ops": op("self.assertEquals($A, $B)", "x"), "paths": ["t.py"]}), vec!["ast-edit tree"]),
        (json!({"ops": op("print($a)", "x"), "paths": ["a.js"]}), vec![]),
        (json!({"ops": op("print($a)", "x"), "paths": ["t.py"]}), vec!["--selector KIND"]),
        (json!({"ops": op("ioutil.ReadFile($A)", "x"), "paths": ["main.go"]}), vec!["--selector call_expression"]),
        (json!({"ops": op("f($A)", "x"), "paths": ["src/*.py"]}), vec!["-g "]),
        (json!({"ops": op("foo($A)", "x"), "paths": ["rs"], "lang": "py"}), vec!["-l rust", "--no-ignore"]),
        (json!({"ops": op("let $X = foo($A)", "x"), "paths": ["t.py"], "lang": "py"}), vec!["--selector KIND"]),
        (json!({"ops": op("kfree($A)", "x"), "paths": ["k.c"]}), vec!["--selector call_expression"]),
        (json!({"ops": op("kfree($A); kfree($B);", "x"), "paths": ["k.c"]}), vec![]),
        (json!({"ops": op("ioutil.ReadFile($A)", "x"), "paths": ["main.go"], "selector": "call_expression"}), vec!["-p 'x := ioutil.ReadFile($A)'"]),
        (json!({"ops": op("fn $F() {}", "x"), "paths": ["t.py", "main.go", "rs"]}), vec!["Pass -l LANG"]),
    ];
    for (args, cli) in cases {
        let r = call(&client, args.clone()).await;
        let (text, warnings) = prose(&r);
        let all = format!("{text}\n{}", warnings.join("\n"));
        assert!(cli_words(&all).is_empty(), "{args}: MCP text with CLI words {:?}:\n{all}", cli_words(&all));
        assert!(!all.contains(EXPANDO), "{args}:\n{all}");
        assert!(all.contains("ops[0].pat") || all.contains("path not found") || all.contains("No file searched"), "{args}: a diagnosis:\n{all}");
        // The same request from the CLI names the flags.
        let cli_out = cli_run(&t, &args);
        for word in cli {
            assert!(cli_out.contains(word), "{args}: the CLI says {word:?}:\n{cli_out}");
        }
    }
    let _ = client.cancel().await;
}

/// The CLI's stdout and stderr for the same request, given as `--request`.
fn cli_run(t: &Tree, args: &Value) -> String {
    let r = t.run_stdin(&["run", "--request", "-"], &args.to_string());
    format!("{}{}", r.stdout, r.stderr)
}

#[tokio::test]
async fn mcp_diagnoses_name_the_fields_to_set() {
    let t = models_tree();
    t.write("main.go", GO_MAIN);
    let root = t.path().canonicalize().unwrap();
    let client = mcp::serve(&root, t.state.path()).await;
    let r = call(&client, json!({"ops": [{"pat": FK_PAT, "out": FK_OUT}], "paths": ["models.py"]})).await;
    let (_, w) = prose(&r);
    assert_eq!(
        w,
        [
            "ops[0].pat `models.ForeignKey($$$A, on_delete=models.CASCADE, $$$B)` matched 3 of the 9 calls to `models.ForeignKey` in the 1 python file it was tried on; 3 more match with `\"strictness\": \"ast\"` (e.g. models.py:9): under `smart` each `,` of the pattern must be in the code, and next to an empty `$$$` list (the fixed argument first or last) there is none.",
            "ops[0].pat: the other 3 calls to `models.ForeignKey` differ in their arguments (e.g. models.py:10): a `$$$` list matches a run of arguments, and the fixed ones must be there as written; to see every call, search `\"pat\": \"models.ForeignKey($$$ARGS)\"`.",
        ]
    );
    let r = call(&client, json!({"ops": [{"pat": "on_delete=models.CASCADE", "out": "x"}], "paths": ["models.py"]})).await;
    let (shown, w) = prose(&r);
    assert_eq!(
        w[1],
        "ops[0].pat: to match a `keyword_argument`, pass `\"selector\": \"keyword_argument\"` and `\"pat\": \"f(on_delete=models.CASCADE)\"` (the pattern written where it is one)."
    );
    assert!(shown.contains(&w[1]), "the text shows the warnings whole:\n{shown}");
    // The fix, as named.
    let r = call(
        &client,
        json!({"ops": [{"pat": "f(on_delete=models.CASCADE)", "out": "on_delete=models.PROTECT"}], "selector": "keyword_argument", "paths": ["models.py"]}),
    )
    .await;
    assert_eq!(r.structured_content.as_ref().unwrap()["totalReplacements"], 6);
    // Ignored files: the way to reach them over MCP is to name them.
    std::fs::create_dir_all(t.path().join(".git")).unwrap();
    t.write("ign/.gitignore", "ignored.py\n");
    t.write("ign/ignored.py", "f(1)\n");
    let r = call(&client, json!({"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["ign"]})).await;
    let (_, w) = prose(&r);
    assert_eq!(
        w,
        [
            "No file searched: nothing under the given paths is a file of a language this edit runs on, once files excluded by .gitignore/.ignore rules and hidden files are left out (name such a file in `paths` to search it)."
        ]
    );
    let r = call(&client, json!({"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["ign/ignored.py"]})).await;
    assert_eq!(r.structured_content.as_ref().unwrap()["totalReplacements"], 1);
    let r = call(&client, json!({"ops": [{"pat": "f($A)", "out": "g($A)"}], "paths": ["src/*.py"]})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        format!(
            "path not found: src/*.py (relative to {}): `paths` holds files and folders, not globs; give the glob in `globs` instead: `\"globs\": [\"src/*.py\"]` (globs are matched from the root)",
            root.display()
        )
    );
    let _ = client.cancel().await;
}

#[tokio::test]
async fn mcp_unknown_id_names_ast_pending_and_the_cli_names_its_command() {
    let t = Tree::empty();
    let root = t.path().canonicalize().unwrap();
    let client = mcp::serve(&root, t.state.path()).await;
    let r = mcp::call(&client, "resolve", json!({"action": "apply", "reason": "x", "id": "ae-000000"})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(text(&r), "No pending action with id `ae-000000`. Call `ast_pending` without `id` to list the pending actions and their ids.");
    let _ = client.cancel().await;
    let r = t.run(&["resolve", "apply", "--reason", "x", "--id", "ae-000000"]).code(1);
    assert_eq!(r.stderr, "No pending action with id `ae-000000`. Run `ast-edit pending` to list the pending actions.\n");
}
