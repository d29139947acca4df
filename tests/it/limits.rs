//! The limits of docs/DESIGN.md section 7, through the real binary and the MCP
//! server: hostile input (deep nesting, huge requests, rewrites that multiply
//! text) is refused with exit 2 / `isError` and a message naming the limit, or the
//! file is skipped with a reason; nothing crashes, and memory stays linear (the
//! child's peak RSS under a ceiling, never a time).

use std::path::Path;
use std::process::Stdio;

use crate::common::json::Preview;
use crate::common::mcp::call;
use crate::common::{Run, Tree};
use rmcp::ServiceExt;
use rmcp::model::CallToolResult;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// `n` nested parentheses around `inner`.
fn nested(n: usize, inner: &str) -> String {
    format!("{}{inner}{}", "(".repeat(n), ")".repeat(n))
}

/// Runs the binary in `t` with `stdin`, and returns the run and the child's peak
/// resident set size in KiB. A child forked from this process starts with its
/// pages counted (Linux keeps the high-water mark of the address space it had
/// before `exec`), and this one test process holds every test: its size is
/// not the child's. So a small launcher (`python3`) runs the binary and
/// reports `getrusage(RUSAGE_CHILDREN)` of its one child, whose peak starts
/// from the launcher's few MB.
#[cfg(target_os = "linux")]
fn run_measured(t: &Tree, args: &[&str], stdin: &str) -> (Run, u64) {
    use std::io::Write;
    const LAUNCH: &str = "import os, resource, signal, subprocess, sys\n\
        code = subprocess.call(sys.argv[2:])\n\
        open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n\
        if code < 0:\n    signal.signal(-code, signal.SIG_DFL)\n    os.kill(os.getpid(), -code)\n\
        sys.exit(code)\n";
    let inner = t.command(args);
    let peak = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = std::process::Command::new("python3");
    cmd.arg("-c").arg(LAUNCH).arg(peak.path()).arg(inner.get_program()).args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        cmd.current_dir(dir);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let feed = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feed.join().unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    let kib = std::fs::read_to_string(peak.path()).unwrap().trim().parse().expect("the launcher's peak");
    (run, kib)
}

/// A JSON request with these ops (`[pat, out]` pairs) and extra fields.
fn request(ops: &[(String, String)], extra: Value) -> String {
    let mut v = json!({"ops": ops.iter().map(|(p, o)| json!({"pat": p, "out": o})).collect::<Vec<_>>()});
    if let (Value::Object(m), Value::Object(more)) = (&mut v, extra) {
        m.extend(more);
    }
    v.to_string()
}

#[track_caller]
fn refused(r: Run, wants: &[&str]) {
    assert_eq!(r.code, 2, "exit code\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    for want in wants {
        assert!(r.stderr.contains(want), "stderr lacks `{want}`:\n{}", &r.stderr[..r.stderr.len().min(2000)]);
    }
    assert!(r.stdout.is_empty(), "{}", r.stdout);
}

/// Nothing staged: `pending` is empty.
#[track_caller]
fn nothing_pending(t: &Tree) {
    let r = t.run(&["pending", "--json"]).ok();
    assert_eq!(r.stdout.trim(), "[]");
}

// ---- Point: deep nesting in a pattern, a rewrite, the searched code ----

#[test]
fn a_pattern_nested_50000_deep_is_refused_before_any_parse() {
    // It used to overflow the stack in ast-grep-core's recursive pattern
    // conversion: the CLI aborted (exit 134) from 20,000 levels.
    let t = Tree::empty();
    t.write("a.py", "x = 1\n");
    let before = t.snapshot();
    let pat = nested(50_000, "x");
    refused(t.run(&["run", "-l", "py", "-p", &pat, "-r", "y"]), &["ops[0].pat nests brackets 50000 deep; the limit is 64 per pattern"]);
    // The same through a JSON request.
    let req = request(&[(pat, "y".into())], json!({"lang": "py"}));
    refused(t.run_stdin(&["run", "--request", "-"], &req), &["nests brackets 50000 deep; the limit is 64"]);
    assert_eq!(t.snapshot(), before);
    nothing_pending(&t);
}

#[test]
fn a_pattern_deep_without_brackets_is_refused_by_its_tree_depth() {
    // `1+1+...+1` nests one level per `+` and has no bracket at all; 30,000 of
    // them (60 KB, under the size limit) overflowed the stack too.
    let t = Tree::empty();
    t.write("a.py", "x = 1\n");
    let deep = format!("{}1", "1+".repeat(30_000));
    refused(t.run(&["run", "-l", "py", "-p", &deep, "-r", "y"]), &["ops[0].pat is nested", "levels deep as python (its syntax tree); the limit is 256 levels"]);
    // At the edge: 255 `+` are 257 levels below the module, refused; 254 are 256,
    // compiled and matched all the way down (on rayon's workers: two files).
    refused(t.run(&["run", "-l", "py", "-p", &format!("{}1", "1+".repeat(255)), "-r", "y"]), &["nested 257 levels deep"]);
    // The same in a request's `rule`, wherever the pattern stands.
    for rule in [
        format!("id: d\nlanguage: python\nrule: {{pattern: '{deep}'}}\nfix: y\n"),
        format!("id: d\nlanguage: python\nrule: {{pattern: {{context: '{deep}', selector: integer}}}}\nfix: y\n"),
        format!("id: d\nlanguage: python\nrule: {{kind: integer, not: {{inside: {{pattern: '{deep}'}}}}}}\nfix: y\n"),
    ] {
        let req = serde_json::json!({"rule": rule, "paths": ["a.py"]}).to_string();
        refused(
            t.run_stdin(&["run", "--request", "-"], &req),
            &["rule `d` holds a pattern nested 30002 levels deep as python (its syntax tree); the limit is 256 levels"],
        );
    }
    nothing_pending(&t);
    let edge = format!("{}1", "1+".repeat(254));
    t.write("a.py", format!("x = {edge}\n"));
    t.write("b.py", format!("y = {edge}\n"));
    t.run(&["run", "-l", "py", "-p", &edge, "-r", "z", "-U"]).ok();
    assert_eq!((t.read("a.py"), t.read("b.py")), ("x = z\n".to_string(), "y = z\n".to_string()));
}

#[test]
fn a_rewrite_nested_past_the_limit_is_refused() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let out = format!("{}$A{}", "[".repeat(65), "]".repeat(65));
    refused(t.run(&["run", "-p", "f($A)", "-r", &out]), &["ops[0].out nests brackets 65 deep; the limit is 64 per rewrite"]);
    // 64 is accepted, and written as asked.
    let out = format!("{}$A{}", "[".repeat(64), "]".repeat(64));
    t.run(&["run", "-p", "f($A)", "-r", &out, "-U"]).ok();
    assert_eq!(t.read("a.py"), format!("{}1{}\n", "[".repeat(64), "]".repeat(64)));
}

#[test]
fn a_file_nested_100000_deep_is_rewritten_and_applied_without_a_crash() {
    // Matching does not recurse over the code, nor do the re-parse and the
    // syntax check: any depth is searched. `x = $A` binds the 100,000 levels.
    let t = Tree::empty();
    let deep = nested(100_000, "f(1)");
    t.write("deep.py", format!("x = {deep}\n"));
    t.write("flat.py", "x = 2\n");
    let p: Preview = t.run(&["run", "-p", "x = $A", "-r", "y = $A", "--json"]).ok().json();
    assert_eq!(p.total_replacements, 2, "{:?}", p.skipped);
    assert!(p.skipped.is_empty());
    assert!(p.files.iter().all(|f| !f.syntax_errors_introduced));
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("deep.py"), format!("y = {deep}\n"));
    assert_eq!(t.read("flat.py"), "y = 2\n");
    // A match at the bottom of 2,000 levels. (At 100,000 levels a debug build
    // spends minutes in a debug-only lineage check of ast-grep-core's
    // `Root::adopt`, quadratic in the depth; a release build takes about a second.)
    t.write("deep.py", format!("x = {}\n", nested(2_000, "f(1)")));
    t.run(&["run", "-p", "f($A)", "-r", "g($A)", "-U", "deep.py"]).ok();
    assert_eq!(t.read("deep.py"), format!("x = {}\n", nested(2_000, "g(1)")));
}

#[test]
fn a_file_too_deep_for_a_repeated_metavariable_is_skipped_with_a_reason() {
    // `$A + $A` makes ast-grep-core compare the two operands by recursion over
    // their depth: 100,000 levels overflowed the stack. The stack limit of one
    // file's work (engine::budget) skips the file, the other files are
    // searched.
    let t = Tree::empty();
    let deep = nested(100_000, "1");
    t.write("deep.py", format!("x = {deep} + {deep}\n"));
    // 990 parentheses recurse far less than the limit.
    let edge = nested(990, "1");
    t.write("edge.py", format!("x = {edge} + {edge}\n"));
    t.write("flat.py", "y = 2 + 2\n");
    let p: Preview = t.run(&["run", "-p", "$A + $A", "-r", "2 * $A", "--json"]).limited().json();
    assert_eq!(p.skipped.len(), 1, "{:?}", p.skipped);
    assert_eq!(p.skipped[0].path, "deep.py");
    assert!(p.skipped[0].reason.starts_with("matching recursed deeper than 4096 KiB of stack here, the limit per file"), "{}", p.skipped[0].reason);
    let touched: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(touched, ["edge.py", "flat.py"]);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("flat.py"), "y = 2 * 2\n");
    assert_eq!(t.read("edge.py"), format!("x = 2 * {edge}\n"));
    assert_eq!(t.read("deep.py"), format!("x = {deep} + {deep}\n"));
}

#[test]
fn a_utility_that_repeats_a_rules_metavariable_is_judged_by_the_stack_it_uses_not_by_the_depth_of_the_file() {
    // A utility reached with `matches` shares the rule's captures: `has:
    // {matches: same}` with `same: {pattern: $A}` compares the rule's `$A`
    // with each child. A static depth limit once skipped any file deeper than
    // 1,000 levels for such a rule; the stack limit (engine::budget) measures
    // the recursion itself, and comparing a node with itself does not recurse:
    // the 100,000-deep file is matched and rewritten by both rules.
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\nutilDirs: [utils]\n");
    t.write("utils/same.yml", "id: same\nlanguage: python\nrule: {pattern: $A}\n");
    t.write("utils/in-class.yml", "id: in-class\nlanguage: python\nrule: {kind: class_definition}\n");
    t.write("rules/compare.yml", "id: compare\nlanguage: python\nrule: {pattern: $A + $B, has: {matches: same}}\nfix: $B + $A\n");
    t.write("rules/plain.yml", "id: plain\nlanguage: python\nrule: {pattern: $A - $B, not: {inside: {matches: in-class, stopBy: end}}}\nfix: $B - $A\n");
    let deep = nested(100_000, "1");
    t.write("deep.py", format!("x = {deep} + 2\ny = {deep} - 2\n"));
    let p: Preview = t.run(&["scan", "-c", "sgconfig.yml", "--preview-json", "deep.py"]).ok().json();
    assert_eq!((p.skipped.len(), p.total_replacements), (0, 2), "{:?}", p.skipped);
    t.run(&["scan", "-c", "sgconfig.yml", "-U", "deep.py"]).ok();
    assert_eq!(t.read("deep.py"), format!("x = 2 + {deep}\ny = 2 - {deep}\n"));
}

// ---- Point: nested matches cost memory linear in their number ----

/// Peak RSS ceiling for the runs below, in KiB. With the work linear in the
/// file (its syntax trees, one small record per match, the replacements kept)
/// they peaked at 32-145 MB in a debug build (the 400 KB file of siblings, whose
/// two syntax trees hold a node per parenthesis, is the largest); building a
/// replacement for every nested match, as before, took 554 MB on that file and
/// 6.6 GB on 80,000 nested parentheses (160 KB).
#[cfg(target_os = "linux")]
const NESTED_RSS_CEILING_KIB: u64 = 200 * 1024;

#[cfg(target_os = "linux")]
#[test]
fn nested_matches_80000_deep_cost_linear_memory() {
    let t = Tree::empty();
    t.write("d.py", format!("x = {}\n", nested(80_000, "1")));
    let (r, kib) = run_measured(&t, &["run", "-p", "($A)", "-r", "[$A]"], "");
    let r = r.ok();
    assert!(kib < NESTED_RSS_CEILING_KIB, "peak RSS {kib} KiB");
    // Outermost wins, the rest counted (and the count spelled right).
    assert!(r.stdout.contains("AST Edit: 1 replacement in 1 file (searched 1 file, 79999 nested matches left for a second run)"), "{}", r.stdout);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    assert_eq!(t.read("d.py"), format!("x = [{}]\n", nested(79_999, "1")));
}

#[cfg(target_os = "linux")]
#[test]
fn many_sibling_nests_cost_linear_memory_and_keep_every_outermost_match() {
    // 100 siblings, each 2,000 deep (400 KB): 100 edits kept, 199,900 matches
    // counted. Building every nested replacement took 554 MB here.
    let t = Tree::empty();
    let one = nested(2_000, "1");
    t.write("s.py", format!("x = [{}]\n", vec![one.as_str(); 100].join(", ")));
    let (r, kib) = run_measured(&t, &["run", "-p", "($A)", "-r", "[$A]", "--json"], "");
    let p: Preview = r.ok().json();
    assert!(kib < NESTED_RSS_CEILING_KIB, "peak RSS {kib} KiB");
    assert_eq!(p.total_replacements, 100);
    assert_eq!(p.overlaps, 100 * 1_999);
    t.run(&["resolve", "apply", "--reason", "r"]).ok();
    let want = format!("[{}]", nested(1_999, "1"));
    assert_eq!(t.read("s.py"), format!("x = [{}]\n", vec![want.as_str(); 100].join(", ")));
}

#[cfg(target_os = "linux")]
#[test]
fn nested_matches_the_rewrite_leaves_unchanged_are_bounded_by_the_replacement_budget() {
    // `($A)` -> `($A)` changes nothing, so no match shadows the next one in: each
    // of the 80,000 levels builds its replacement (6.4 GB of text in all). The
    // budget per file stops it, and says so.
    let t = Tree::empty();
    t.write("d.py", format!("x = {}\n", nested(80_000, "1")));
    t.write("f.py", "x = (1)\n");
    let (r, kib) = run_measured(&t, &["run", "-p", "($A)", "-r", "($A)", "--json"], "");
    let p: Preview = r.limited().json();
    assert!(kib < NESTED_RSS_CEILING_KIB, "peak RSS {kib} KiB");
    assert_eq!(p.status, "no_changes");
    assert_eq!(p.skipped.len(), 1, "{:?}", p.skipped);
    assert_eq!(p.skipped[0].path, "d.py");
    let budget = 4 * t.read("d.py").len() + (64 << 20);
    let want = format!("the rewrite would build more than {budget} bytes of replacement text here (4 times the file's size plus 64 MiB, the limit per file)");
    assert!(p.skipped[0].reason.starts_with(&want), "{}", p.skipped[0].reason);
}

#[cfg(target_os = "linux")]
#[test]
fn a_rewrite_that_multiplies_a_large_match_is_skipped_not_built() {
    // 1,000 copies of a 200 KB argument would be 200 MB of replacement in one
    // file; many copies of a large template in one file likewise.
    let t = Tree::empty();
    t.write("big.py", format!("f(\"{}\")\n", "a".repeat(200_000)));
    t.write("many.py", "x\n".repeat(2_000));
    t.write("ok.py", "f(1)\n");
    let before = t.snapshot();
    let (r, kib) = run_measured(&t, &["run", "-p", "f($A)", "-r", &"$A".repeat(1_000), "--json"], "");
    let p: Preview = r.limited().json();
    assert!(kib < NESTED_RSS_CEILING_KIB, "peak RSS {kib} KiB");
    assert_eq!(p.skipped.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(), ["big.py"]);
    assert!(p.skipped[0].reason.contains("4 times the file's size plus 64 MiB, the limit per file"));
    assert_eq!(p.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["ok.py"]);
    t.run(&["resolve", "discard", "--reason", "r"]).ok();
    let big_template = format!("y{}", "z".repeat(60_000));
    let (r, kib) = run_measured(&t, &["run", "-l", "py", "-p", "x", "-r", &big_template, "--json"], "");
    let p: Preview = r.limited().json();
    assert!(kib < NESTED_RSS_CEILING_KIB, "peak RSS {kib} KiB");
    assert_eq!(p.skipped.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(), ["many.py"]);
    assert_eq!(p.status, "no_changes");
    assert_eq!(t.snapshot(), before);
}

// ---- Point: requests that could exhaust the machine ----

#[test]
fn more_than_1000_ops_are_refused_and_1000_are_accepted() {
    let t = Tree::empty();
    t.write("a.py", "f0(1)\n");
    let ops = |n: usize| (0..n).map(|i| (format!("f{i}($A)"), format!("g{i}($A)"))).collect::<Vec<_>>();
    refused(t.run_stdin(&["run", "--request", "-"], &request(&ops(1001), json!({"lang": "py"}))), &["too many ops: 1001; the limit is 1000 ops per request"]);
    let p: Preview = t.run_stdin(&["run", "--request", "-", "--json"], &request(&ops(1000), json!({"lang": "py"}))).ok().json();
    assert_eq!(p.total_replacements, 1);
}

#[test]
fn more_than_1000_globs_are_refused() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let globs: Vec<String> = (0..1001).map(|i| format!("d{i}/**")).collect();
    refused(
        t.run_stdin(&["run", "--request", "-"], &request(&[("f($A)".into(), "g($A)".into())], json!({"globs": globs}))),
        &["too many globs: 1001; the limit is 1000 globs per request"],
    );
    nothing_pending(&t);
}

#[test]
fn a_pattern_or_rewrite_over_64_kib_is_refused() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let big = format!("[{}]", vec!["1"; 33_000].join(","));
    refused(t.run(&["run", "-l", "py", "-p", &big, "-r", "x"]), &[&format!("ops[0].pat is {} bytes; the limit is 65536 bytes per pattern", big.len())]);
    refused(t.run(&["run", "-l", "py", "-p", "f($A)", "-r", &big]), &[&format!("ops[0].out is {} bytes; the limit is 65536 bytes per rewrite", big.len())]);
    nothing_pending(&t);
}

#[test]
fn patterns_and_rewrites_over_256_kib_together_are_refused() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let ops: Vec<(String, String)> = (0..5).map(|i| (format!("f{i}($A, {})", "1".repeat(30_000)), "x".repeat(30_000))).collect();
    let bytes: usize = ops.iter().map(|(p, o)| p.len() + o.len()).sum();
    refused(
        t.run_stdin(&["run", "--request", "-"], &request(&ops, json!({"lang": "py"}))),
        &[&format!("the patterns and rewrites are {bytes} bytes together; the limit is 262144 bytes per request")],
    );
    // Four of them fit, and are searched.
    let p: Preview = t.run_stdin(&["run", "--request", "-", "--json"], &request(&ops[..4], json!({"lang": "py"}))).ok().json();
    assert_eq!(p.status, "no_changes");
}

#[test]
fn a_request_json_over_4_mib_is_refused_unread() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let huge = request(&[("f($A)".into(), "g($A)".into())], json!({"paths": vec!["a.py"; 700_000]}));
    assert!(huge.len() > 4 << 20);
    refused(t.run_stdin(&["run", "--request", "-"], &huge), &["the request JSON is too large: the limit is 4194304 bytes per request"]);
    let file = t.path().join("req.json");
    std::fs::write(&file, &huge).unwrap();
    refused(t.run(&["run", "--request", "req.json"]), &["the limit is 4194304 bytes per request"]);
}

#[test]
fn rule_files_and_projects_keep_the_pattern_limits() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let rule = |pat: &str, fix: &str| format!("id: deep\nlanguage: python\nrule: {{pattern: '{pat}'}}\nfix: '{fix}'\n");
    // Brackets nested too deep, a pattern deep without brackets (ast-grep-core
    // would overflow the stack building it), a fix too large.
    for (text, want) in [
        (rule(&nested(1000, "x"), "y"), "rules/deep.yml: rule `deep` holds a pattern nested 1000 brackets deep; the limit is 64"),
        (
            rule(&format!("{}1", "1+".repeat(30_000)), "y"),
            "rules/deep.yml: rule `deep` holds a pattern nested 30002 levels deep as python (its syntax tree); the limit is 256 levels",
        ),
        (rule("f($A)", &"x".repeat(70_000)), "rules/deep.yml: rule `deep` holds a string of 70000 bytes; the limit is 65536 bytes per pattern or fix"),
    ] {
        t.write("rules/deep.yml", &text);
        refused(t.run(&["scan", "--rules", "rules/deep.yml", "a.py"]), &[want]);
    }
    // The same in a project, for a rule and for a utility it calls.
    t.write("sgconfig.yml", "ruleDirs: [rules]\nutilDirs: [utils]\n");
    t.write("utils/none.txt", "");
    refused(t.run(&["scan", "a.py"]), &["rules/deep.yml: rule `deep` holds a string of 70000 bytes"]);
    t.write("rules/deep.yml", "id: deep\nlanguage: python\nrule: {matches: u}\nfix: y\n");
    t.write("utils/u.yml", format!("id: u\nlanguage: python\nrule: {{pattern: '{}1'}}\n", "1+".repeat(30_000)));
    refused(t.run(&["scan", "a.py"]), &["utility file utils/u.yml holds a pattern nested 30002 levels deep as python"]);
    refused(t.run(&["test"]), &["utility file utils/u.yml holds a pattern nested 30002 levels deep"]);
    nothing_pending(&t);
}

// ---- The MCP server: over-limit calls are tool errors, the server goes on ----

fn text(r: &CallToolResult) -> String {
    r.content[0].as_text().expect("text content").text.clone()
}

#[tokio::test]
async fn over_limit_ast_edit_calls_are_tool_errors_and_the_server_keeps_serving() {
    let t = Tree::empty();
    t.write("a.py", "f(1)\n");
    let state = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_ast-edit"));
    cmd.arg("mcp").current_dir(t.path()).env("AST_EDIT_STATE_DIR", state.path());
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    let service = ().serve(transport).await.expect("initialize");
    let op = |pat: String, out: &str| json!([{"pat": pat, "out": out}]);
    let cases: Vec<(Value, &str)> = vec![
        // 5,000 nested parentheses took the server down (its planning thread has a
        // 2 MiB stack); so did a bracket-free one.
        (json!({"ops": op(nested(5_000, "x"), "y"), "lang": "py"}), "nests brackets 5000 deep; the limit is 64 per pattern"),
        (json!({"ops": op(format!("{}1", "1+".repeat(3_000)), "y"), "lang": "py"}), "the limit is 256 levels"),
        (json!({"ops": (0..1001).map(|i| json!({"pat": format!("f{i}($A)"), "out": "g($A)"})).collect::<Vec<_>>()}), "too many ops: 1001; the limit is 1000"),
        (json!({"ops": op("f($A)".into(), "g($A)"), "globs": (0..1001).map(|i| format!("d{i}")).collect::<Vec<_>>()}), "too many globs: 1001"),
        (json!({"ops": op("f($A)".into(), &"x".repeat(70_000))}), "the limit is 65536 bytes per rewrite"),
    ];
    for (args, want) in cases {
        let r = call(&service, "ast_edit", args).await;
        assert_eq!(r.is_error, Some(true), "{r:?}");
        let msg = text(&r);
        assert!(msg.contains(want), "`{want}` not in `{msg}`");
    }
    // A pattern at the depth limit compiles on the server's planning thread.
    let r = call(&service, "ast_edit", json!({"ops": op(format!("{}1", "1+".repeat(254)), "y"), "lang": "py"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let r = call(&service, "ast_edit", json!({"ops": op("f($A)".into(), "g($A)")})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(r.structured_content.as_ref().unwrap()["totalReplacements"], 1);
    let r = call(&service, "resolve", json!({"action": "apply", "reason": "r"})).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(std::fs::read_to_string(Path::new(t.path()).join("a.py")).unwrap(), "g(1)\n");
    let _ = service.cancel().await;
}
