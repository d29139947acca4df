//! End-to-end tests of the core workflow through the real binary: preview, pending,
//! show, resolve apply/discard, batch -U, bad input, determinism. Each test names the
//! behaviour it pins and asserts the bytes on disk as well as the output.

use crate::common::json::{PendingRow, Preview, ResolveResult};
use crate::common::{ASSERT_OUT, ASSERT_PAT, Tree};

const EXPECTED_TEST_APP: &str = "import unittest\n\nfrom app import fetch_data\n\n\nclass AppTest(unittest.TestCase):\n    def test_fetch(self):\n        self.assertEqual(fetch_data(\"a.txt\"), \"a\")\n        self.assertEqual(len(fetch_data(\"b.txt\")), 1)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

fn preview(t: &Tree, extra: &[&str]) -> Preview {
    let mut args = vec!["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "--json"];
    args.extend_from_slice(extra);
    t.run(&args).ok().json()
}

#[test]
fn preview_leaves_every_byte_on_disk_unchanged() {
    let t = Tree::fixtures();
    let before = t.snapshot();
    let p = preview(&t, &[]);
    assert_eq!(t.snapshot(), before);
    assert_eq!(p.status, "pending");
    assert!(!p.applied);
    assert_eq!(p.label, "AST Edit: 2 replacements in 1 file");
    assert_eq!(p.source_tool_name, "ast_edit");
    assert_eq!(p.total_replacements, 2);
    assert_eq!(p.files_touched, 1);
    assert_eq!(p.files[0].path, "python/test_app.py");
    assert!(p.files[0].diff.starts_with("--- a/python/test_app.py\n+++ b/python/test_app.py\n@@ "));
    assert!(p.id.as_deref().unwrap().starts_with("ae-"));
    // The Latin-1 file is reported, not silently dropped; the ignored build/ is not searched.
    assert_eq!(p.skipped.len(), 1);
    assert_eq!(p.skipped[0].path, "python/latin1.py");
    assert!(p.skipped[0].reason.contains("not valid UTF-8"));
}

#[test]
fn human_preview_prints_diff_summary_and_how_to_resolve() {
    let t = Tree::fixtures();
    let r = t.run(&["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT]).ok();
    assert!(r.stdout.contains("\n-        self.assertEquals(fetch_data(\"a.txt\"), \"a\")\n"), "{}", r.stdout);
    assert!(r.stdout.contains("\n+        self.assertEqual(fetch_data(\"a.txt\"), \"a\")\n"), "{}", r.stdout);
    assert!(r.stdout.contains("AST Edit: 2 replacements in 1 file (searched"), "{}", r.stdout);
    assert!(r.stdout.contains("ast-edit resolve apply --reason"), "{}", r.stdout);
    assert!(!r.stdout.contains('\x1b'), "no colour when piped");
    let coloured = t.run(&["--color", "always", "run", "-p", ASSERT_PAT, "-r", ASSERT_OUT]).ok();
    assert!(coloured.stdout.contains("\x1b[32m+"), "{}", coloured.stdout);
}

#[test]
#[cfg_attr(not(git), ignore = "git was not found when the tests were built")]
fn apply_writes_exactly_the_previewed_diff() {
    let t = Tree::fixtures();
    let p = preview(&t, &[]);
    // `git apply` of the previewed diff on a second copy must give the same bytes
    // as `resolve apply` on the first.
    let other = Tree::fixtures();
    let patch = other.path().join("preview.patch");
    std::fs::write(&patch, &p.files[0].diff).unwrap();
    let st = std::process::Command::new("git").args(["apply", "preview.patch"]).current_dir(other.path()).status().unwrap();
    assert!(st.success());
    let r = t.run(&["resolve", "apply", "--reason", "use the non-deprecated name", "--json"]).ok();
    let res: ResolveResult = r.json();
    assert!(!res.is_error);
    let id = p.id.as_deref().expect("staged");
    assert_eq!(res.content, format!("Applied 2 replacements in 1 file.\n  applied  python/test_app.py (2 replacements)\nTo undo: `ast-edit undo --id {id}`"));
    assert_eq!(res.details.action, "apply");
    assert_eq!(res.details.reason, "use the non-deprecated name");
    assert_eq!(res.details.source_tool_name.as_deref(), Some("ast_edit"));
    assert_eq!(res.details.label.as_deref(), Some("AST Edit: 2 replacements in 1 file"));
    let rep = res.details.source_result_details.unwrap();
    assert_eq!((rep.status.as_str(), rep.applied, rep.total_replacements, rep.files_touched), ("applied", true, 2, 1));
    assert_eq!(rep.files[0].status, "applied");
    assert!(rep.outstanding.is_empty());
    assert_eq!(t.read("python/test_app.py"), EXPECTED_TEST_APP);
    assert_eq!(other.read("python/test_app.py"), EXPECTED_TEST_APP);
    // Nothing else changed.
    let mut a = t.snapshot();
    let mut b = Tree::fixtures().snapshot();
    a.remove("python/test_app.py");
    b.remove("python/test_app.py");
    assert_eq!(a, b);
}

#[test]
fn discard_changes_nothing_and_prints_label_and_reason() {
    let t = Tree::fixtures();
    let before = t.snapshot();
    preview(&t, &[]);
    let r = t.run(&["resolve", "discard", "--reason", "not now"]).ok();
    assert_eq!(r.stdout, "Discarded: AST Edit: 2 replacements in 1 file. Reason: not now\n");
    assert_eq!(t.snapshot(), before);
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    assert!(rows.is_empty());
}

#[test]
fn second_apply_says_nothing_pending_with_exit_1() {
    let t = Tree::fixtures();
    preview(&t, &[]);
    t.run(&["resolve", "apply", "--reason", "first"]).ok();
    let r = t.run(&["resolve", "apply", "--reason", "again"]).code(1);
    assert_eq!(r.stderr, "No pending action to resolve. Nothing to apply or discard.\n");
    assert_eq!(r.stdout, "");
    let j: ResolveResult = t.run(&["resolve", "discard", "--reason", "again", "--json"]).code(1).json();
    assert!(j.is_error);
    assert_eq!(j.content, "No pending action to resolve. Nothing to apply or discard.");
    assert_eq!(j.details.action, "discard");
    assert!(j.details.label.is_none());
}

#[test]
fn stacked_previews_resolve_newest_first_and_id_picks_an_older_one() {
    let t = Tree::fixtures();
    let first = preview(&t, &[]);
    let second: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "go", "--json"]).ok().json();
    let third: Preview = t.run(&["run", "-p", "console.log($$$A)", "-r", "logger.info($$$A)", "-l", "js", "--json"]).ok().json();
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, vec![third.id.as_deref().unwrap(), second.id.as_deref().unwrap(), first.id.as_deref().unwrap()]);
    assert_eq!(rows[0].files, vec!["js/lib/util.js"]);
    // --id picks the oldest.
    let r: ResolveResult = t.run(&["resolve", "apply", "--reason", "r", "--id", first.id.as_deref().unwrap(), "--json"]).ok().json();
    assert_eq!(r.details.label.as_deref(), Some("AST Edit: 2 replacements in 1 file"));
    assert_eq!(t.read("python/test_app.py"), EXPECTED_TEST_APP);
    // Without an id: the newest (js) first, then go.
    let r = t.run(&["resolve", "discard", "--reason", "r"]).ok();
    assert!(r.stdout.starts_with("Discarded: AST Edit: 1 replacement in 1 file."), "{}", r.stdout);
    assert!(t.read("js/lib/util.js").contains("console.log"));
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert!(t.read("go/main.go").contains("data, err := load_data(\"config.json\")"));
    t.run(&["resolve", "apply", "--reason", "r"]).code(1);
    // An unknown id is not "the newest".
    let r = t.run(&["resolve", "apply", "--reason", "r", "--id", "ae-000000"]).code(1);
    assert!(r.stderr.contains("No pending action with id `ae-000000`"), "{}", r.stderr);
}

#[test]
fn show_prints_a_pending_preview_again() {
    let t = Tree::fixtures();
    let p = preview(&t, &[]);
    let id = p.id.unwrap();
    let s: Preview = t.run(&["show", &id, "--json"]).ok().json();
    assert_eq!(s.id.as_deref(), Some(id.as_str()));
    assert_eq!(s.files[0].diff, p.files[0].diff);
    let h = t.run(&["show"]).ok();
    assert!(h.stdout.starts_with(&id), "{}", h.stdout);
    assert!(h.stdout.contains("+        self.assertEqual(fetch_data(\"a.txt\"), \"a\")"));
    t.run(&["show", "ae-nope00"]).code(1);
}

/// `show --path` picks files of an action as `extra.files` does (a file, a
/// folder, a glob), in the text and in `--json`; a path that selects none is
/// bad input naming the files there are.
#[test]
fn show_path_picks_the_files_of_an_action() {
    let t = Tree::empty();
    for p in ["src/a.py", "src/b_test.py", "tests/c.py"] {
        t.write(p, "foo(1)\n");
    }
    let p: Preview = t.run(&["run", "-p", "foo($A)", "-r", "bar($A)", "--json"]).ok().json();
    let id = p.id.unwrap();
    let s: Preview = t.run(&["show", &id, "--path", "src/b_test.py", "--json"]).ok().json();
    assert_eq!(s.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["src/b_test.py"]);
    let h = t.run(&["show", &id, "--path", "*_test.py", "--path", "tests"]).ok();
    assert!(h.stdout.contains("Showing 2 of 3 files (selected by --path).\n"), "{}", h.stdout);
    assert!(h.stdout.contains("+++ b/src/b_test.py") && h.stdout.contains("+++ b/tests/c.py"), "{}", h.stdout);
    assert!(!h.stdout.contains("+++ b/src/a.py"), "{}", h.stdout);
    let r = t.run(&["show", &id, "--path", "nope.py"]).code(2);
    assert!(
        r.stderr.contains(&format!("--path `nope.py` selects none of the 3 files of pending action {id}: give a file, a folder or a glob of its files")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("its files are: src/a.py, src/b_test.py, tests/c.py"), "{}", r.stderr);
}

#[test]
fn zero_matches_is_success_and_stages_nothing() {
    let t = Tree::fixtures();
    let p: Preview = t.run(&["run", "-p", "no_such_function($A)", "-r", "x($A)", "--json"]).ok().json();
    assert_eq!(p.status, "no_changes");
    assert_eq!(p.id, None);
    assert_eq!(p.total_replacements, 0);
    assert_eq!(p.label, "AST Edit: 0 replacements in 0 files");
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    assert!(rows.is_empty());
    let h = t.run(&["run", "-p", "no_such_function($A)", "-r", "x($A)"]).ok();
    assert!(h.stdout.contains("No changes: nothing staged."), "{}", h.stdout);
}

#[test]
fn run_update_all_applies_at_once_through_the_same_writer() {
    let t = Tree::fixtures();
    let p: Preview = t.run(&["run", "-p", ASSERT_PAT, "-r", ASSERT_OUT, "-U", "--json"]).ok().json();
    assert_eq!((p.status.as_str(), p.applied, p.id.as_deref()), ("applied", true, None));
    assert_eq!(t.read("python/test_app.py"), EXPECTED_TEST_APP);
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    assert!(rows.is_empty(), "-U stages nothing");
    // Journalled: undo restores the original bytes.
    t.run(&["undo"]).ok();
    assert_eq!(t.snapshot(), Tree::fixtures().snapshot());
}

#[test]
fn request_json_from_stdin_and_file() {
    let t = Tree::fixtures();
    let req = r#"{"ops":[{"pat":"self.assertEquals($A, $B)","out":"self.assertEqual($A, $B)"}],"paths":["python"],"lang":"python"}"#;
    let p: Preview = t.run_stdin(&["run", "--request", "-", "--json"], req).ok().json();
    assert_eq!(p.total_replacements, 2);
    t.write("req.json", req);
    let p: Preview = t.run(&["run", "--request", "req.json", "--json"]).ok().json();
    assert_eq!(p.total_replacements, 2);
    assert_eq!(p.files_searched, 4, "python/ holds 4 .py files");
}

#[test]
fn every_bad_input_exits_2_with_a_message_and_stages_nothing() {
    let t = Tree::fixtures();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "-r", "x"], "no ops given"),
        (&["run", "-p", "a($A)"], "give one -r for each -p"),
        (&["run", "--request", "-"], "invalid request JSON"),
        (&["run", "-p", "a($A)", "-r", "b($A)", "no/such/dir"], "path not found: no/such/dir"),
        (&["run", "-p", "a($A)", "-r", "b($A)", "-l", "cobol"], "unknown language `cobol`"),
        (&["run", "-p", "foo(", "-r", "bar", "-l", "py"], "`foo(` does not parse cleanly as python"),
        (&["run", "-p", "kfree($A)", "-r", "kvfree($A)", "-l", "c"], "try `kfree($A);`"),
        (&["run", "-p", "foo($A)", "-r", "bar($B)", "-l", "py"], "uses $B which the pattern `foo($A)` does not define"),
        (&["run", "-p", "foo($A)", "-r", "bar($A)", "--strictness", "loose"], "unknown strictness `loose`"),
        (&["run", "-p", "foo($A)", "-r", "bar($A)", "-g", "["], "invalid glob"),
        (&["resolve", "apply"], "reason is required"),
        (&["resolve", "apply", "--reason", "  "], "reason is required"),
        (&["resolve", "apply", "--reason", "r", "--extra", "[1]"], "extra must be a JSON object"),
        (&["resolve", "apply", "--reason", "r", "--extra", "{oops"], "--extra is not valid JSON"),
        (&["resolve", "maybe", "--reason", "r"], "action must be `apply` or `discard`"),
    ];
    for (args, msg) in cases {
        let r = t.run_stdin(args, "{\"ops\": 1}");
        assert_eq!(r.code, 2, "{args:?}\nstderr: {}", r.stderr);
        assert!(r.stderr.contains(msg), "{args:?}: expected {msg:?} in stderr:\n{}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
    }
    let rows: Vec<PendingRow> = t.run(&["pending", "--json"]).ok().json();
    assert!(rows.is_empty());
    // Empty ops in a JSON request.
    let r = t.run_stdin(&["run", "--request", "-"], r#"{"ops":[]}"#).code(2);
    assert!(r.stderr.contains("no ops given"), "{}", r.stderr);
    let r = t.run_stdin(&["run", "--request", "-"], r#"{"ops":[{"pat":"a","out":"b"}],"bogus":true}"#).code(2);
    assert!(r.stderr.contains("unknown field `bogus`"), "{}", r.stderr);
}

#[test]
fn output_is_byte_identical_at_any_thread_count() {
    let t = Tree::fixtures();
    let args = ["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)"];
    let redact = |s: String| s.lines().filter(|l| !l.contains("ae-")).collect::<Vec<_>>().join("\n");
    let one = t.run_env(&args, &[("RAYON_NUM_THREADS", "1")]).ok().stdout;
    let many = t.run(&args).ok().stdout;
    let four = t.run_env(&args, &[("RAYON_NUM_THREADS", "4")]).ok().stdout;
    assert!(one.contains("python/app.py") && one.contains("ts/src/api.ts"));
    assert_eq!(redact(one.clone()), redact(many));
    assert_eq!(redact(one), redact(four));
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let a: serde_json::Value = serde_json::from_str(&t.run_env(&json_args, &[("RAYON_NUM_THREADS", "1")]).ok().stdout).unwrap();
    let b: serde_json::Value = serde_json::from_str(&t.run(&json_args).ok().stdout).unwrap();
    let strip = |mut v: serde_json::Value| {
        v["id"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    assert_eq!(strip(a), strip(b));
}

#[test]
fn gitignore_hidden_files_and_globs_decide_what_is_searched() {
    let t = Tree::fixtures();
    t.write(".hidden/h.py", "fetch_data(1)\n");
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "py", "--json"]).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["python/app.py", "python/crlf.py", "python/test_app.py"]);
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "py", "--hidden", "--no-ignore", "--json"]).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec![".hidden/h.py", "build/generated.py", "python/app.py", "python/crlf.py", "python/test_app.py"]);
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-g", "*.py", "-g", "!test_*", "--json"]).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["python/app.py", "python/crlf.py"]);
}

#[test]
fn max_files_cap_is_reported_never_silent() {
    let t = Tree::fixtures();
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "-l", "py", "--max-files", "2", "--json"]).ok().json();
    assert!(p.limit_reached);
    assert_eq!(p.files_searched, 2);
    assert!(p.warnings.iter().any(|w| w.contains("Limit reached: searched the first 2 of 4 files")), "{:?}", p.warnings);
}

#[test]
fn mixed_language_tree_compiles_each_op_per_language_and_reports_where_it_cannot() {
    let t = Tree::fixtures();
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "--json"]).ok().json();
    let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, vec!["go/main.go", "js/lib/util.js", "python/app.py", "python/crlf.py", "python/test_app.py", "rust/src/lib.rs", "ts/src/api.ts"]);
    // C needs the statement form; the run says so instead of silently matching nothing.
    assert!(p.warnings.iter().any(|w| w.contains("c (the pattern has an ERROR or MISSING node; try `fetch_data($$$A);`)")), "{:?}", p.warnings);
    let c: Preview = t.run(&["run", "-p", "fetch_data($$$A);", "-r", "load_data($$$A);", "-l", "c", "--json"]).ok().json();
    assert_eq!(c.files[0].path, "c/buf.c");
}

#[test]
fn nested_matches_are_counted_not_dropped() {
    let t = Tree::empty();
    t.write("n.py", "f(f(1))\nf(2)\n");
    let p: Preview = t.run(&["run", "-p", "f($A)", "-r", "g($A)", "--json"]).ok().json();
    assert_eq!(p.total_replacements, 2);
    assert_eq!(p.overlaps, 1);
    assert!(p.warnings.iter().any(|w| w.contains("run the same edit again")), "{:?}", p.warnings);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("n.py"), "g(f(1))\ng(2)\n");
}

#[test]
fn langs_lists_every_builtin_language_with_extensions() {
    let t = Tree::empty();
    let r = t.run(&["langs"]).ok();
    for needle in ["python", ".py", "rust", ".rs", "typescript", ".ts", "tsx", "javascript", ".js", "go", "c ", ".h", "cpp", "java", "zig"] {
        assert!(r.stdout.contains(needle), "{needle} missing:\n{}", r.stdout);
    }
    let rows: Vec<serde_json::Value> = serde_json::from_str(&t.run(&["langs", "--json"]).ok().stdout).unwrap();
    assert_eq!(rows.len(), 29);
}

#[test]
#[cfg_attr(not(git), ignore = "git was not found when the tests were built")]
fn previewed_diffs_pass_git_apply_check() {
    let t = Tree::fixtures();
    let p: Preview = t.run(&["run", "-p", "fetch_data($$$A)", "-r", "load_data($$$A)", "--json"]).ok().json();
    let all: String = p.files.iter().map(|f| f.diff.as_str()).collect();
    t.write("all.patch", &all);
    let out = std::process::Command::new("git").args(["apply", "--check", "all.patch"]).current_dir(t.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn broken_pipe_exits_quietly() {
    let t = Tree::fixtures();
    let mut c = t.command(&["langs"]);
    c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn gitignore_counts_only_inside_a_git_repository_and_hiding_every_file_is_reported_not_silent() {
    // The Debian kernel source ships a top-level .gitignore of `/*` + `!/debian/`,
    // and no `.git`: as ripgrep and ast-grep, its .gitignore does not count.
    let t = Tree::empty();
    t.write(".gitignore", "/*\n!/debian/\n");
    t.write("src/a.py", "f(1)\n");
    for cmd in [&["run", "-p", "f($A)", "-r", "g($A)", "--json"][..], &["search", "-p", "f($A)", "-l", "py", "--json"]] {
        let out = t.run(cmd).ok().stdout;
        assert!(out.contains("src/a.py"), "{cmd:?}: {out}");
    }
    // --no-require-git reads it everywhere: nothing is searched, and that is said.
    for git in [false, true] {
        let extra: &[&str] = if git { &[] } else { &["--no-require-git"] };
        if git {
            std::fs::create_dir_all(t.path().join(".git")).unwrap();
        }
        let p: Preview = t.run(&[&["run", "-p", "f($A)", "-r", "g($A)", "--json"][..], extra].concat()).ok().json();
        assert_eq!(p.files_searched, 0, "git: {git}");
        assert!(p.warnings.iter().any(|w| w.starts_with("No file searched:") && w.contains("--no-ignore")), "{:?}", p.warnings);
    }
    let p: Preview = t.run(&["run", "-p", "f($A)", "-r", "g($A)", "--json", "--no-ignore"]).ok().json();
    assert_eq!((p.files_searched, p.files.len()), (1, 1));
    assert!(!p.warnings.iter().any(|w| w.starts_with("No file searched:")), "{:?}", p.warnings);
}

#[test]
fn literal_prefilter_changes_nothing_but_speed() {
    let t = Tree::fixtures();
    t.write("extra/n.py", "f(f(1))\nif x:\n    print(2)\n");
    // Comments between the halves of an adjacent pair (`as`/`any`, `Object`/`assign`).
    // Files where the halves of an adjacent pair (`as`/`any`, `Object`/`assign`,
    // `foo`/`bar`) meet only across comments.
    t.write("extra/s.ts", "const a = b as any;\nObject.assign({}, c);\n");
    t.write("extra/s2.ts", "const d = e as /* c */ any;\nObject // x\n  .assign({}, f);\n");
    t.write("extra/r.rs", "fn f() { let b = foo /* a /* b */ c */ :: bar(); }\n");
    // Rust's opening quote is one kind for `"` and `b"`: the `b` must not stop a chain.
    t.write("extra/b.rs", "fn f() { foo(b\"bar\"); }\n");
    // `//` lines: a doc-comment example holds no code, but a string or a block
    // comment begun above may end on such a line, and code follows.
    t.write("extra/doc.rs", "/// let x = y.unwrap();\nfn g() {\n    // z.unwrap()\n}\n");
    t.write("extra/ends.rs", "fn f() {\n    let s = \"\n// \"; a.unwrap();\n    /*\n    // */ b.unwrap();\n}\n");
    t.write("extra/ends.c", "void f(void) {\n/*\n// */ kfree(p);\n}\n");
    // A BOM shifts every offset by 3 bytes: the literal anchors must still line up.
    t.write("extra/bom.py", "\u{feff}# f(0) in a comment\nf(f(1))\ns = 'f(2)'\n");
    let cases: &[&[&str]] = &[
        &["-p", "fetch_data($$$A)", "-r", "load_data($$$A)"],
        &["-p", "self.assertEquals($A, $B)", "-r", "self.assertEqual($A, $B)"],
        &["-p", "f($A)", "-r", "g($A)", "-l", "py"],
        &["-p", "print($A)", "-r", "log($A)", "-l", "py", "--strictness", "ast"],
        &["-p", "$A.unwrap()", "-r", "$A.expect(\"checked\")", "-l", "rs"],
        &["-p", "$A as any", "-r", "$A as unknown", "-l", "ts"],
        &["-p", "Object.assign({}, $A)", "-r", "({ ...$A })", "-l", "ts"],
        &["-p", "JSON.parse(JSON.stringify($A))", "-r", "structuredClone($A)", "-l", "js"],
        &["-p", "var $A = $B", "-r", "let $A = $B", "-l", "js"],
        &["-p", "func f() { ioutil.ReadFile($A) }", "--selector", "call_expression", "-r", "os.ReadFile($A)", "-l", "go"],
        &["-p", "kfree($A);", "-r", "kvfree($A);", "-l", "c"],
        &["-p", "fetch_data($$$A);", "-r", "load_data($$$A);", "-l", "c", "--strictness", "signature"],
        &["-p", "$F($$$A)", "-r", "call($F)", "-l", "go"],
        &["-p", "foo::bar()", "-r", "foo::baz()", "-l", "rs"],
        &["-p", "foo(\"bar\")", "-r", "baz()", "-l", "rs"],
    ];
    let plan = |args: &[&str], off: bool| {
        let mut v = vec!["run", "--json"];
        v.extend_from_slice(args);
        if off {
            v.push("--no-prefilter");
        }
        let mut j: serde_json::Value = serde_json::from_str(&t.run(&v).ok().stdout).unwrap();
        j["id"] = serde_json::Value::Null;
        j
    };
    for args in cases {
        let on = plan(args, false);
        assert!(on["totalReplacements"].as_u64().unwrap() > 0, "{args:?} must change something");
        assert_eq!(on, plan(args, true), "{args:?}");
    }
}

#[test]
#[cfg_attr(not(git), ignore = "git was not found when the tests were built")]
fn minified_lines_are_cut_in_the_preview_but_applied_whole() {
    let t = Tree::empty();
    let line = format!("var a=1;{}console.log(a);{}\n", "x=1;".repeat(3000), "y=2;".repeat(3000));
    t.write("dist/app.min.js", &line);
    let p: Preview = t.run(&["run", "-p", "console.log($A)", "-r", "logger.debug($A)", "--json"]).ok().json();
    let diff = &p.files[0].diff;
    assert!(diff.len() < 2 * 4096 + 500, "bounded: {} bytes", diff.len());
    assert!(diff.contains(" more bytes cut]"), "{diff}");
    assert!(p.warnings.iter().any(|w| w.starts_with("dist/app.min.js: 2 diff line(s) longer than 4096 bytes cut")), "{:?}", p.warnings);
    // show --full renders the whole diff again, which git apply accepts.
    let full: Preview = t.run(&["show", "--full", "--json"]).ok().json();
    assert!(full.files[0].diff.len() > 24_000);
    let other = Tree::empty();
    other.write("dist/app.min.js", &line);
    other.write("p.patch", &full.files[0].diff);
    let st = std::process::Command::new("git").args(["apply", "p.patch"]).current_dir(other.path()).status().unwrap();
    assert!(st.success());
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("dist/app.min.js"), line.replace("console.log(a)", "logger.debug(a)"));
    assert_eq!(t.read("dist/app.min.js"), other.read("dist/app.min.js"));
}

#[test]
fn matches_around_syntax_errors_are_reported_not_rewritten() {
    let t = Tree::empty();
    t.write("broken.ts", "const a = foo(1 2) as any;\nconst b = y as any;\n");
    let p: Preview = t.run(&["run", "-p", "$A as any", "-r", "$A as unknown", "--json"]).ok().json();
    assert!(p.warnings.iter().any(|w| w.starts_with("broken.ts:1: a match contains code that does not parse")), "{:?}", p.warnings);
    t.run(&["resolve", "apply", "--reason", "r", "--extra", r#"{"allowSyntaxErrors":true}"#]).ok();
    assert_eq!(t.read("broken.ts"), "const a = foo(1 2) as any;\nconst b = y as unknown;\n");
}

#[test]
fn patterns_and_rewrites_may_start_with_a_dash() {
    let t = Tree::empty();
    t.write("n.py", "x = -f(1)\n");
    t.run(&["run", "-p", "-f($A)", "-r", "-g($A)", "-U"]).ok();
    assert_eq!(t.read("n.py"), "x = -g(1)\n");
}

#[test]
fn absolute_paths_outside_the_tree_give_clean_diff_headers() {
    let t = Tree::empty();
    let other = Tree::empty();
    other.write("o.py", "f(1)\n");
    let abs = other.path().join("o.py");
    let p: Preview = t.run(&["run", "-p", "f($A)", "-r", "g($A)", abs.to_str().unwrap(), "--json"]).ok().json();
    let header = p.files[0].diff.lines().next().unwrap().to_string();
    assert!(header.starts_with("--- a/") && !header.starts_with("--- a//"), "{header}");
}

/// `generate` prints the man page and the completion scripts from the same
/// definitions as `--help`: every subcommand is in each; bash's script parses.
#[test]
fn generate_prints_the_man_page_and_completions_for_every_subcommand() {
    let t = Tree::empty();
    let subcommands = ["run", "resolve", "pending", "show", "undo", "langs", "scan", "test", "propose", "mcp", "tree", "search", "generate"];
    let man = t.run(&["generate", "man"]).ok();
    assert!(man.stdout.contains(".TH ast-edit 1"), "{}", &man.stdout[..200.min(man.stdout.len())]);
    for kind in ["man", "bash", "zsh", "fish", "powershell", "elvish"] {
        let r = t.run(&["generate", kind]).ok();
        for s in subcommands {
            assert!(r.stdout.contains(s), "{kind} lacks `{s}`");
        }
    }
    let bash = t.run(&["generate", "bash"]).ok();
    t.write("c.bash", &bash.stdout);
    let check = std::process::Command::new("bash").args(["-n", "c.bash"]).current_dir(t.path()).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let bad = t.run(&["generate", "tcsh"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("invalid value 'tcsh'"), "{}", bad.stderr);
}

/// Where build.rs packs the relative relocations (`cfg(relr)`: Linux, glibc 2.36
/// or later), the binary carries them packed (DT_RELR) and starts: its table of
/// relative relocations is about 10 KB, not 1 MB (docs/REFERENCE.md, "Build
/// profile").
#[test]
#[cfg_attr(not(relr), ignore = "build.rs packs relocations only for Linux with glibc 2.36 or later")]
fn the_binary_carries_its_relative_relocations_packed() {
    let bin = env!("CARGO_BIN_EXE_ast-edit");
    let out = std::process::Command::new("readelf").args(["-d", bin]).output().expect("readelf (binutils) runs");
    let dynamic = String::from_utf8_lossy(&out.stdout);
    assert!(dynamic.contains("(RELR)"), "no DT_RELR entry in {bin}:\n{dynamic}");
    let version = std::process::Command::new(bin).arg("--version").output().unwrap();
    assert!(version.status.success() && String::from_utf8_lossy(&version.stdout).starts_with("ast-edit "), "{version:?}");
}
