//! Rules that run away, through the real binary and MCP server (docs/DESIGN.md
//! §2.5.7 and §7): a `transform` chain that multiplies its text, and a rewriter
//! that applies itself to its own matches on deeply nested code, are bounded
//! before the file is matched (`crates/lib/src/compile/work.rs`): the file is
//! skipped with the reason, nothing overflows the stack, and the server still
//! answers a ping. Each run is under a watchdog and an address-space cap, so
//! the blow-ups these guard against fail the test instead of exhausting the
//! machine (before the guards: SIGABRT at 1.8 GB, a stack overflow, and more
//! than two minutes).

#![cfg(target_os = "linux")]

mod common;

use common::lines::{statements, Server, QUADRATIC};
use common::Tree;

/// Far above these runs' time (they take milliseconds).
const WATCHDOG_SECS: u64 = 60;

/// The address space each run may take: the guarded runs stay near 100 MB;
/// the unguarded transform chain asked for gigabytes.
const MEMORY: Option<u64> = Some(2 << 30);

/// Five `replace` steps chained, each turning every `a` into 60 of them: 10
/// bytes of capture would become 7.8 GB.
fn growing_rule() -> String {
    let by = "a".repeat(60);
    let steps: String = ["A", "B", "C", "D", "E"].iter().zip(["B", "C", "D", "E", "F"]).map(|(from, to)| format!("  {to}: {{replace: {{source: ${from}, replace: a, by: {by}}}}}\n")).collect();
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
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 0 matches (searched 1 file)\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("warning: skipped a.py: rule `grow`'s transforms could build more than 268435776 bytes of text here (16 times the file's size plus 256 MiB, the limit per file)"),
        "{}",
        r.stdout
    );
    for args in [&["scan", "-r", "grow.yml", "a.py"][..], &["scan", "-r", "grow.yml", "-U", "a.py"]] {
        let r = t.run_limited(args, "", WATCHDOG_SECS, MEMORY);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
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
    let r = t.run_limited(&["search", "--rule", "rec.yml", "deep.py", "forty.py", "shallow.py"], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for (file, levels) in [("deep.py", 20_000), ("forty.py", 40)] {
        assert!(
            r.stdout.contains(&format!(
                "warning: skipped {file}: rule `rec`'s rewriters apply themselves to their own matches, nested {levels} levels deep here: work that doubles with each level, over the limit of 33554432 node visits per file"
            )),
            "{}",
            r.stdout
        );
    }
    assert!(r.stdout.starts_with("Found 3 matches in 1 file (searched 3 files)\nshallow.py:1:1: f(f(f(1))) [rec]\n"), "{}", r.stdout);
    // scan -U writes what ast-grep writes where the work is bounded, and
    // leaves the deep files as they are.
    let r = t.run_limited(&["scan", "-r", "rec.yml", "-U", "."], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(t.read("shallow.py"), "g(g(g(1)))\n");
    assert_eq!(t.read("forty.py"), nested(40));
    assert_eq!(t.read("deep.py"), nested(20_000));
}

/// Over MCP: `ast_search` with each rule returns its reason, and the server
/// answers a ping afterwards.
#[test]
fn the_server_skips_the_file_says_why_and_still_answers() {
    let t = Tree::empty();
    t.write("a.py", "print(\"aaaaaaaaaa\")\n");
    t.write("deep.py", nested(20_000));
    let call = |id: u32, rule: &str, path: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ast_search", "arguments": {"rule": rule, "paths": [path]}}}).to_string()
    };
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        call(2, &growing_rule(), "a.py"),
        call(3, RECURSIVE, "deep.py"),
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#.to_string(),
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let r = t.run_limited(&["mcp"], &lines, WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let replies: Vec<serde_json::Value> = r.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let reply = |id: u32| replies.iter().find(|v| v["id"] == id).unwrap_or_else(|| panic!("no reply {id}: {}", r.stdout));
    assert_eq!(reply(4)["result"], serde_json::json!({}));
    for (id, says) in [(2, "skipped a.py: rule `grow`'s transforms could build more than"), (3, "skipped deep.py: rule `rec`'s rewriters apply themselves to their own matches, nested 20000 levels deep")] {
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
    t.write("tests/rec-test.yml", format!("id: rec\nvalid:\n  - x = 1\ninvalid:\n  - \"{}\"\n  - f(f(1))\n", nested(40).trim_end()));
    let r = t.run_limited(&["test", "--skip-snapshot-tests"], "", WATCHDOG_SECS, MEMORY);
    assert!(r.stdout.contains("FAIL rec  .E.\n"), "{}", r.stdout);
    assert!(r.stdout.contains("[Error] Cannot test rec on this case: rule `rec`'s rewriters apply themselves to their own matches, nested 40 levels deep here"), "{}", r.stdout);
    assert!(r.code > 0, "a failed test, not a crash: {} {}", r.code, r.stderr);
}

/// The file's 10 s (`engine::budget::MAX_FILE_WORK`) end its work: the file is
/// skipped with the reason, and the run ends (a debug build would take many
/// minutes to finish it).
#[test]
fn a_file_over_its_time_is_skipped_with_the_reason() {
    let t = Tree::empty();
    t.write("quad.yml", QUADRATIC);
    t.write("quad.py", statements(20_000));
    t.write("small.py", statements(3));
    let start = std::time::Instant::now();
    let r = t.run_limited(&["search", "--rule", "quad.yml", "."], "", WATCHDOG_SECS, MEMORY);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("Found 3 matches in 1 file (searched 2 files)\n"), "{}", r.stdout);
    assert!(r.stdout.contains("warning: skipped quad.py: matching took more than 10 s here, the limit per file; narrow the rule or leave this file out"), "{}", r.stdout);
    assert!(start.elapsed() < std::time::Duration::from_secs(WATCHDOG_SECS), "{:?}", start.elapsed());
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
    // Let the work see the flag (it is polled every 20 ms, and every 256
    // nodes), then the CPU time must stand still.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let before = s.cpu_ticks();
    std::thread::sleep(std::time::Duration::from_secs(2));
    let spent = s.cpu_ticks() - before;
    s.end();
    // 2 s at 100% of a core would be about 200 ticks.
    assert!(spent < 20, "the server used {spent} clock ticks of CPU in the 2 s after the cancellation");
}
