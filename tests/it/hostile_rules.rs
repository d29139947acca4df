//! Rules that run away, through the real binary and MCP server (docs/DESIGN.md
//! §2.5.7 and §7): a `transform` chain that multiplies its text, a rewriter
//! that applies itself to its own matches, one that rewrites the call it sits
//! in with itself (ast-grep overflows its stack there), a utility that refers
//! to itself, relational rules that walk far from every node: each is stopped
//! by the file's meter (`crates/lib/src/engine/budget.rs`), counted in steps,
//! stack and text, not time. The file is skipped with the reason, nothing
//! overflows the stack, and the server still answers a ping. Each run is under
//! a watchdog and an address-space cap, so the blow-ups these guard against
//! fail the test instead of exhausting the machine (before the guards: SIGABRT
//! at 1.8 GB, a stack overflow, and more than two minutes).
//!
//! The runs that the step limit stops lower it (`--max-steps`): a debug build
//! takes about half a microsecond a step, and the default is 2^30 steps.

#![cfg(target_os = "linux")]

use crate::common::Tree;
use crate::common::lines::{QUADRATIC, Server, statements};

/// Far above these runs' time (they take a second or two).
const WATCHDOG_SECS: u64 = 60;

/// The exit code of a run that a limit left incomplete.
const LIMIT: i32 = 13;

/// A step limit that a debug build reaches in about a second.
const STEPS: &str = "1000000";

/// The reason of a file stopped at [`STEPS`].
const OVER_STEPS: &str = "matching took more than 1000000 steps here, the limit per file (a rule that walks far from each node, such as nested `inside`/`has` with `stopBy: end`, or one that refers to itself); narrow the rule or leave this file out";

/// The reason of a file whose matching recursed past the stack limit.
const OVER_STACK: &str = "matching recursed deeper than 4096 KiB of stack here, the limit per file";

/// The address space each run may take: the guarded runs stay near 100 MB;
/// the unguarded transform chain asked for gigabytes.
const MEMORY: Option<u64> = Some(2 << 30);

/// Five `replace` steps chained, each turning every `a` into 60 of them: 10
/// bytes of capture would become 7.8 GB.
fn growing_rule() -> String {
    let by = "a".repeat(60);
    let steps: String = ["A", "B", "C", "D", "E"]
        .iter()
        .zip(["B", "C", "D", "E", "F"])
        .map(|(from, to)| format!("  {to}: {{replace: {{source: ${from}, replace: a, by: {by}}}}}\n"))
        .collect();
    format!("id: grow\nlanguage: python\nrule: {{pattern: print($A)}}\ntransform:\n{steps}fix: log($F)\n")
}

/// A rewriter that rewrites the arguments of each call it matches with itself.
const RECURSIVE: &str = "id: rec\nlanguage: python\nrule: {pattern: f($$$X)}\nrewriters:\n- id: r\n  rule: {pattern: f($$$Z)}\n  transform:\n    W: {rewrite: {source: $$$Z, rewriters: [r]}}\n  fix: g($W)\ntransform:\n  Y: {rewrite: {source: $$$X, rewriters: [r]}}\nfix: g($Y)\n";

fn nested(depth: usize) -> String {
    format!("{}1{}\n", "f(".repeat(depth), ")".repeat(depth))
}

#[test]
fn a_transform_chain_that_multiplies_its_text_skips_the_file_with_the_reason() {
    let t = Tree::empty();
    t.write("grow.yml", growing_rule());
    t.write("a.py", "print(\"aaaaaaaaaa\")\n");
    let r = t.run_limited(&["search", "--rule", "grow.yml", "a.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 0 matches (searched 1 file)\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("warning: skipped a.py: the transforms and fixes would build more than 268435776 bytes of text here (16 times the file's size plus 256 MiB, the limit per file)"),
        "{}",
        r.stdout
    );
    for args in [&["scan", "-r", "grow.yml", "a.py"][..], &["scan", "-r", "grow.yml", "-U", "a.py"]] {
        let r = t.run_limited(args, "", WATCHDOG_SECS, MEMORY);
        assert_eq!(r.code, LIMIT, "{args:?}: {}", r.stderr);
    }
    assert_eq!(t.read("a.py"), "print(\"aaaaaaaaaa\")\n");
}

#[test]
fn a_rewriter_that_reaches_itself_is_skipped_on_deep_code_and_rewrites_shallow_code() {
    let t = Tree::empty();
    t.write("rec.yml", RECURSIVE);
    t.write("deep.py", nested(20_000));
    t.write("forty.py", nested(40));
    t.write("shallow.py", nested(3));
    let r = t.run_limited(&["search", "--max-steps", STEPS, "--rule", "rec.yml", "deep.py", "forty.py", "shallow.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    // Nested 20,000 deep, its recursion meets the stack limit; nested 40
    // deep, its work doubles with each level and meets the step limit.
    assert!(r.stdout.contains(&format!("warning: skipped deep.py: {OVER_STACK}")), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("warning: skipped forty.py: {OVER_STEPS}")), "{}", r.stdout);
    assert!(r.stdout.starts_with("Found 3 matches in 1 file (searched 3 files)\nshallow.py:1:1: f(f(f(1))) [rec]\n"), "{}", r.stdout);
    // scan -U writes what ast-grep writes where the work is bounded, and
    // leaves the deep files as they are.
    let r = t.run_limited(&["scan", "--max-steps", STEPS, "-r", "rec.yml", "-U", "."], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert_eq!(t.read("shallow.py"), "g(g(g(1)))\n");
    assert_eq!(t.read("forty.py"), nested(40));
    assert_eq!(t.read("deep.py"), nested(20_000));
}

/// A rewriter that rewrites the call its match sits in with itself recurses
/// without end (ast-grep 0.51.1 overflows its stack and aborts): the stack
/// limit stops it, and the server that ran it from a read-only `ast_search`
/// answers the next call.
const ANCESTOR: &str = "id: anc\nlanguage: python\nrule: {kind: integer, inside: {kind: call, pattern: $P, stopBy: end}}\nrewriters:\n- id: r\n  rule: {kind: integer, inside: {kind: call, pattern: $P, stopBy: end}}\n  transform:\n    W: {rewrite: {source: $P, rewriters: [r]}}\n  fix: $W\ntransform:\n  Y: {rewrite: {source: $P, rewriters: [r]}}\nfix: $Y\n";

/// A utility that matches a string or a node with a descendant it matches:
/// its work doubles with each level of a nested call (77 bytes hang
/// ast-grep).
const SELF_UTIL: &str =
    "id: selfu\nlanguage: python\nutils:\n  U: {any: [{kind: string}, {has: {matches: U, stopBy: end}}]}\nrule: {kind: expression_statement, matches: U}\n";

/// Four `inside` with `stopBy: end`, the last one never met: every list of
/// lists nested 400 deep walks to the root from each of its ancestors.
const INSIDE4: &str = "id: in4\nlanguage: python\nrule:\n  kind: integer\n  inside:\n    kind: list\n    stopBy: end\n    inside:\n      kind: list\n      stopBy: end\n      inside:\n        kind: list\n        stopBy: end\n        inside: {kind: dictionary, stopBy: end}\n";

#[test]
fn runaway_rules_end_at_their_limit_with_the_reason_and_the_other_files_are_matched() {
    let t = Tree::empty();
    t.write("anc.yml", ANCESTOR);
    t.write("selfu.yml", SELF_UTIL);
    t.write("in4.yml", INSIDE4);
    t.write("one.py", "x = f(1)\n");
    t.write("chain.py", nested(25));
    t.write("lists.py", format!("x = {}1{}\n", "[".repeat(400), "]".repeat(400)));
    t.write("plain.py", "y = \"s\"\nz = [1]\n");
    for (rule, file, why) in [("anc.yml", "one.py", OVER_STACK), ("selfu.yml", "chain.py", OVER_STEPS), ("in4.yml", "lists.py", OVER_STEPS)] {
        let r = t.run_limited(&["search", "--max-steps", STEPS, "--rule", rule, file, "plain.py"], "", WATCHDOG_SECS, MEMORY);
        assert_eq!(r.code, LIMIT, "{rule}: {}", r.stderr);
        assert!(r.stdout.contains(&format!("warning: skipped {file}: {why}")), "{rule}: {}", r.stdout);
    }
    // The self-referring utility still matches where it ends: the string.
    let r = t.run_limited(&["search", "--max-steps", STEPS, "--rule", "selfu.yml", "plain.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 1 match in 1 file (searched 1 file)\nplain.py:1:1: y = \"s\" [selfu]\n"), "{}", r.stdout);
}

/// `scan` of a file that holds an `ast-grep-ignore` comment runs
/// ast-grep-config's own scan (its suppression); that walk is metered too.
#[test]
fn a_file_with_a_suppression_comment_is_metered_too() {
    let t = Tree::empty();
    t.write("quad.yml", QUADRATIC);
    t.write("quad.py", format!("# ast-grep-ignore: other\n{}", statements(20_000)));
    let r = t.run_limited(&["scan", "--max-steps", STEPS, "-r", "quad.yml", "quad.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert!(r.stdout.contains(&format!("skipped quad.py: {OVER_STEPS}")), "{}", r.stdout);
}

/// Over MCP: `ast_search` with each rule returns its reason, and the server
/// answers a ping afterwards.
#[test]
fn the_server_skips_the_file_says_why_and_still_answers() {
    let t = Tree::empty();
    t.write("a.py", "print(\"aaaaaaaaaa\")\n");
    t.write("deep.py", nested(20_000));
    t.write("one.py", "x = f(1)\n");
    let mut s = Server::start(&t);
    for (id, rule, path) in [(2, growing_rule(), "a.py"), (3, RECURSIVE.to_string(), "deep.py"), (5, ANCESTOR.to_string(), "one.py")] {
        s.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ast_search", "arguments": {"rule": rule, "paths": [path]}}}));
    }
    let mut replies = Vec::new();
    while replies.len() < 3 {
        replies.push(s.next());
    }
    s.ping(4);
    s.end();
    let reply = |id: u32| replies.iter().find(|v| v["id"] == id).unwrap_or_else(|| panic!("no reply {id}: {replies:?}"));
    let stack = format!("skipped deep.py: {OVER_STACK}");
    let ancestor = format!("skipped one.py: {OVER_STACK}");
    for (id, says) in [(2, "skipped a.py: the transforms and fixes would build more than"), (3, stack.as_str()), (5, ancestor.as_str())] {
        let text = reply(id)["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string();
        assert!(text.contains(says), "{id}: {}", reply(id));
    }
}

/// `test`: a case on which the rewriter would run away is an error with the
/// reason, judged at once; the shallow case is judged as ast-grep judges it.
#[test]
fn a_rule_test_case_too_deep_for_the_rewriter_is_an_error_with_the_reason() {
    let t = Tree::empty();
    t.write("sgconfig.yml", "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n");
    t.write("rules/rec.yml", RECURSIVE);
    t.write("tests/rec-test.yml", format!("id: rec\nvalid:\n  - x = 1\ninvalid:\n  - \"{}\"\n  - f(f(1))\n", nested(20_000).trim_end()));
    let r = t.run_limited(&["test", "--skip-snapshot-tests"], "", WATCHDOG_SECS, MEMORY);
    assert!(r.stdout.contains("FAIL rec  .E.\n"), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("[Error] Cannot test rec on this case: {OVER_STACK}")), "{}", r.stdout);
    assert!(r.code > 0, "a failed test, not a crash: {} {}", r.code, r.stderr);
}

/// The step limit ends a file's work: the file is skipped with the reason,
/// and the run ends; the same with the time limit asked for (`--timeout`),
/// which the default step limit would take far longer to meet.
#[test]
fn a_file_over_its_steps_or_the_time_asked_is_skipped_with_the_reason() {
    let t = Tree::empty();
    t.write("quad.yml", QUADRATIC);
    t.write("quad.py", statements(20_000));
    t.write("small.py", statements(3));
    let r = t.run_limited(&["search", "--max-steps", STEPS, "--rule", "quad.yml", "."], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 3 matches in 1 file (searched 2 files)\n"), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("warning: skipped quad.py: {OVER_STEPS}")), "{}", r.stdout);
    let start = std::time::Instant::now();
    let r = t.run_limited(&["search", "--timeout", "1", "--rule", "quad.yml", "quad.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert!(r.stdout.contains("warning: skipped quad.py: not finished: the request's files took more than 1 s together, its time limit"), "{}", r.stdout);
    assert!(start.elapsed() < std::time::Duration::from_secs(WATCHDOG_SECS), "{:?}", start.elapsed());
}

/// Reading a node's text counts on the meter (one step per 64 bytes): a rule
/// whose deep `has` is narrowed to a word check (docs/DESIGN.md 2.4.7) reads
/// the whole function from each of its 3,000 `return`s, which no walk counts;
/// that work stops at the step limit with the reason, and the small file is
/// matched.
#[test]
fn a_node_text_read_again_and_again_is_stopped_by_the_step_limit() {
    let t = Tree::empty();
    t.write(
        "r.yml",
        "id: r\nlanguage: c\nrule:\n  kind: return_statement\n  not:\n    inside:\n      kind: function_definition\n      stopBy: end\n      has: {kind: goto_statement, stopBy: end}\n",
    );
    t.write("big.c", format!("int f(int x) {{\n  while (x) {{\n{}  }}\n  return 0;\n}}\n", "    if (x == 1) return 1;\n".repeat(3000)));
    t.write("small.c", "int g(void) {\n  return 2;\n}\n");
    let r = t.run_limited(&["search", "--max-steps", STEPS, "--rule", "r.yml", "."], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, LIMIT, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 1 match in 1 file (searched 2 files)\n"), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("warning: skipped big.c: {OVER_STEPS}")), "{}", r.stdout);
}

/// A cancelled `ast_search` stops its work within the file in progress: the
/// server's CPU time stops growing, and it answers a ping. Before, the thread
/// went on at 100% until the file was done.
#[test]
fn a_cancelled_search_stops_working_inside_its_file() {
    let t = Tree::empty();
    t.write("quad.py", statements(20_000));
    let mut s = Server::start(&t);
    s.send(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ast_search", "arguments": {"rule": QUADRATIC, "paths": ["quad.py"]}}}));
    std::thread::sleep(std::time::Duration::from_secs(2));
    s.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}}));
    s.ping(3);
    // Let the work see the flag (it is polled every 20 ms, and every 4096
    // steps), then the CPU time must stand still.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let before = s.cpu_ticks();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let spent = s.cpu_ticks() - before;
    s.end();
    // 2 s at 100% of a core would be about 200 ticks.
    assert!(spent < 20, "the server used {spent} clock ticks of CPU in the 2 s after the cancellation");
}

/// A `convert` of a name captured by a rule with `inside`: ast-grep reports
/// every function. The text a transform builds is counted as it is built, so
/// an ordinary rule is never refused for what a worst case could build (a
/// bound of that worst case once skipped this 30 KB file and reported 0).
const UPPER: &str = "id: upper\nlanguage: python\nseverity: error\nmessage: name it $U\nrule:\n  kind: identifier\n  pattern: $N\n  inside: {kind: function_definition, field: name}\ntransform:\n  U: {convert: {source: $N, toCase: upperCase}}\n";

fn functions(n: usize) -> String {
    (0..n).map(|i| format!("def h{i}(a):\n    return a\n")).collect()
}

#[test]
fn an_ordinary_transform_is_never_refused_its_findings_fail_the_scan() {
    let t = Tree::empty();
    t.write("upper.yml", UPPER);
    t.write("funcs.py", functions(1100));
    let r = t.run_limited(&["scan", "-r", "upper.yml", "--json=compact", "funcs.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(found.len(), 1100);
    assert_eq!(found[1099]["message"], "name it H1099");
    assert!(!r.stderr.contains("skipped"), "{}", r.stderr);
}

#[test]
#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]
fn an_ordinary_transform_reports_what_ast_grep_reports() {
    let t = Tree::empty();
    t.write("upper.yml", UPPER);
    t.write("funcs.py", functions(1100));
    let ours = t.run_limited(&["scan", "-r", "upper.yml", "--json=compact", "funcs.py"], "", WATCHDOG_SECS, MEMORY);
    let peer = t.peer(&["scan", "-r", "upper.yml", "--json=compact", "funcs.py"]);
    assert_eq!((ours.code, ours.stdout), (peer.code, peer.stdout));
}

/// A file one of ast-edit's limits left unsearched fails the run: exit 13,
/// and the file is named in every output: the text, the preview JSON, the
/// search's JSON, ast-grep's JSON (on stderr, the array staying ast-grep's),
/// GitHub's annotations and the SARIF log. A skip ast-grep makes too (a
/// binary file) does not.
#[test]
fn a_file_a_limit_left_unsearched_fails_the_run_and_is_named_in_every_output() {
    let t = Tree::empty();
    t.write("quad.yml", format!("{QUADRATIC}severity: error\nmessage: after import\n"));
    t.write("quad.py", statements(20_000));
    t.write("small.py", statements(2));
    t.write("bin.py", "import os\0\n");
    let run = |args: &[&str]| {
        let all = [&args[..1], &["--max-steps", STEPS][..], &args[1..]].concat();
        let r = t.run_limited(&all, "", WATCHDOG_SECS, MEMORY);
        assert_eq!(r.code, LIMIT, "{args:?}: {} {}", r.stdout, r.stderr);
        assert!(r.stderr.contains("error: 1 file(s) not searched to the end because of ast-edit's limits"), "{args:?}: {}", r.stderr);
        r
    };
    fn scan<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        [&["scan", "-r", "quad.yml"][..], extra, &["quad.py", "small.py", "bin.py"]].concat()
    }
    // ast-grep's JSON: the findings of small.py, the skip on stderr.
    let r = run(&scan(&["--json=compact"]));
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(found.len(), 2);
    assert!(r.stderr.contains(&format!("skipped quad.py: {OVER_STEPS}")), "{}", r.stderr);
    let r = run(&scan(&["--format", "github"]));
    assert!(r.stdout.contains(&format!("::error file=quad.py,title=ast-edit::not searched to the end: {OVER_STEPS}\n")), "{}", r.stdout);
    let r = run(&scan(&["--format", "sarif"]));
    let log: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let note = &invocation["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "error");
    assert_eq!(note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "quad.py");
    assert!(note["message"]["text"].as_str().unwrap().starts_with("not searched to the end: matching took more than 1000000 steps"), "{note}");
    // The preview: the summary says it, the JSON marks the file.
    let r = run(&scan(&[]));
    assert!(r.stdout.contains("incomplete: 1 file not searched to the end because of ast-edit's limits"), "{}", r.stdout);
    let r = run(&scan(&["--preview-json"]));
    let p: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(p["skippedByLimits"], 1);
    let skipped: Vec<(String, bool)> =
        p["skipped"].as_array().unwrap().iter().map(|s| (s["path"].as_str().unwrap().to_string(), s["limit"].as_bool().unwrap())).collect();
    assert_eq!(skipped, [("bin.py".to_string(), false), ("quad.py".to_string(), true)]);
    // search, text and JSON.
    let r = run(&["search", "--rule", "quad.yml", "quad.py", "small.py"]);
    assert!(
        r.stdout.ends_with("incomplete: 1 file not searched to the end because of ast-edit's limits (named above); the counts leave out their matches\n"),
        "{}",
        r.stdout
    );
    let r = run(&["search", "--json", "--rule", "quad.yml", "quad.py", "small.py"]);
    let s: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!((s["skippedByLimits"].clone(), s["totalMatches"].clone()), (serde_json::json!(1), serde_json::json!(2)));
    // A binary file alone is skipped as ast-grep skips it: the run passes.
    let r = t.run_limited(&["scan", "-r", "quad.yml", "--json=compact", "small.py", "bin.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 1, "the findings fail it, not the skip: {}", r.stderr);
}

/// Over MCP a result a limit cut says so: `ast_search` and `ast_edit` name
/// the file, count it in `skippedByLimits`, and their text says the result is
/// incomplete, not "no matches".
#[test]
fn the_server_says_a_result_a_limit_cut_is_incomplete() {
    let t = Tree::empty();
    t.write("one.py", "x = f(1)\n");
    let mut s = Server::start(&t);
    for (id, tool) in [(2, "ast_search"), (3, "ast_edit")] {
        s.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"rule": ANCESTOR, "paths": ["one.py"]}}}));
    }
    let mut replies = Vec::new();
    while replies.len() < 2 {
        let v = s.next();
        if v.get("id").is_some() {
            replies.push(v);
        }
    }
    s.end();
    for v in &replies {
        let result = &v["result"];
        assert_eq!(result["structuredContent"]["skippedByLimits"], 1, "{v}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.to_lowercase().contains("incomplete: 1 file not searched to the end because of ast-edit's limits"), "{text}");
    }
}

/// The CLI's limits are counts, not time: a heavy rule gives the same verdict
/// on a busy machine. Two threads spin on every core's share while the run
/// repeats five times; each finds every statement after the import and
/// exits 1 (a `severity: error` rule), as on an idle machine.
#[test]
fn a_heavy_rule_gives_the_same_verdict_on_a_busy_machine() {
    let t = Tree::empty();
    t.write("quad.yml", format!("{QUADRATIC}severity: error\nmessage: after import\n"));
    t.write("quad.py", statements(1_500));
    let idle = t.run_limited(&["scan", "-r", "quad.yml", "--json=compact", "quad.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(idle.code, 1, "{}", idle.stderr);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    let busy: Vec<(i32, String)> = (0..5)
        .map(|_| {
            let r = t.run_limited(&["scan", "-r", "quad.yml", "--json=compact", "quad.py"], "", WATCHDOG_SECS, MEMORY);
            (r.code, r.stdout)
        })
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    for (code, stdout) in busy {
        assert_eq!((code, stdout.len()), (1, idle.stdout.len()));
        assert_eq!(stdout, idle.stdout);
    }
    let found: Vec<serde_json::Value> = serde_json::from_str(&idle.stdout).unwrap();
    assert_eq!(found.len(), 1_500);
}
