//! Backpressure of the MCP server (docs/DESIGN.md §4.10, `src/mcp/flow.rs`),
//! through the real server: at most 16 tool calls run at once (the others wait
//! in order, and a cancelled one that waits is dropped), and a client that
//! writes without reading stops the server's reading instead of its memory
//! growing with every reply. Each case ends with the server answering a ping.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::time::{Duration, Instant};

use crate::common::Tree;
use crate::common::lines::{QUADRATIC, Server, WAIT, statements};
use serde_json::{Value, json};

/// 40 slow searches sent at once: at most 16 run (the server's threads stay
/// few), the rest wait; cancelling them all frees the server, which answers a
/// ping at once. Before, each call had a thread of its own.
#[test]
fn at_most_16_calls_run_at_once_and_cancelled_waiting_calls_are_dropped() {
    let t = Tree::empty();
    t.write("quad.py", statements(20_000));
    let mut s = Server::start(&t);
    let idle = s.status("Threads");
    for id in 1..=40 {
        s.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ast_search", "arguments": {"rule": QUADRATIC, "paths": ["quad.py"]}}}));
    }
    let mut most = 0;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        most = most.max(s.status("Threads"));
        std::thread::sleep(Duration::from_millis(50));
    }
    // A blocking thread and a watcher per running search, and rayon's pool
    // (one thread per core); unbounded, 40 calls took 80 more.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert!(most <= idle + 2 * 16 + cores + 4, "{most} threads (idle: {idle}) with 40 calls sent");
    for id in 1..=40 {
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    }
    let asked = Instant::now();
    let before = s.ping(100);
    assert!(asked.elapsed() < Duration::from_secs(5), "the ping took {:?}", asked.elapsed());
    // Cancelled requests get no reply.
    assert!(before.is_empty(), "{before:?}");
    s.end();
}

/// 1,500 `ast_tree` calls (45 KB of reply each) from a client that does not
/// read: once 16 MiB of replies wait, the server stops reading, so the
/// client's writes block in the pipe and the server's memory stays bounded;
/// then the client reads, every call is answered, and so is a ping. Before, the
/// server read on at the pace it answered and queued every reply: 195 MB after
/// 30 s and 3,000 calls, 1.1 GB for 20,000.
#[test]
fn a_client_that_does_not_read_stops_the_server_reading_not_its_memory_growing() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let t = Tree::empty();
    let mut s = Server::start_unread(&t);
    let base = s.status("VmRSS");
    let code: String = (0..20).map(|i| format!("def f{i}(a, b):\n    return [a, b, {{a: b}}, (a + b) * {i}]\n")).collect();
    let call = move |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ast_tree", "arguments": {"code": code, "lang": "python"}}}).to_string()
            + "\n"
    };
    let mut stdin = s.stdin.take().unwrap();
    let written = Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    let writer = std::thread::spawn(move || {
        for id in 1..=1500 {
            stdin.write_all(call(id).as_bytes()).unwrap();
            counter.fetch_add(1, Ordering::Relaxed);
        }
        stdin
    });
    // Nobody reads: the server works until its queue is full, then stops
    // reading, and the client's writes stand still (an unbounded server reads
    // on, about 100 calls a second here, until all are in).
    let (mut sent, mut still) = (0, 0);
    let start = Instant::now();
    while still < 4 && sent < 1500 && start.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(500));
        let now = written.load(Ordering::Relaxed);
        still = if now == sent { still + 1 } else { 0 };
        sent = now;
    }
    let grown = s.status("VmRSS").saturating_sub(base);
    assert!(sent < 1500, "the server read all {sent} calls while its replies were not read");
    assert!(grown < 64 * 1024, "the server grew by {grown} kB while its replies were not read");
    s.read_replies();
    let mut answered = Vec::new();
    while answered.len() < 1500 {
        let v = s.next();
        assert!(v["result"]["content"][0]["text"].is_string(), "{v}");
        answered.push(v["id"].as_u64().unwrap());
    }
    answered.sort_unstable();
    answered.dedup();
    assert_eq!(answered.len(), 1500);
    s.stdin = Some(writer.join().unwrap());
    assert!(s.ping(5000).is_empty());
    s.end();
}

/// stdin closes while a preview is planning a file that takes minutes, and a
/// quick call is in flight: the quick call is answered, the planning is
/// stopped 1 s (`mcp::SHUTDOWN_GRACE`) after the input ended and says so, and
/// the process exits. Before, rmcp's 5 s drain and then the 1 s grace ran out
/// first: 6.0 s.
#[test]
fn stdin_closed_while_a_preview_plans_ends_the_server_within_its_grace() {
    let t = Tree::empty();
    t.write("quad.py", statements(20_000));
    let mut s = Server::start(&t);
    let rule = format!("{QUADRATIC}fix: y = 0\n");
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ast_edit", "arguments": {"rule": rule, "paths": ["quad.py"]}}}));
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ast_tree", "arguments": {"code": "x = 1", "lang": "python"}}}));
    std::thread::sleep(Duration::from_millis(500));
    drop(s.stdin.take());
    let closed = Instant::now();
    let status = s.child.wait().unwrap();
    let took = closed.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(3), "the server exited {took:?} after stdin closed");
    // Every line the server wrote, up to the end of its stdout.
    let replies: Vec<Value> = std::iter::from_fn(|| s.lines.recv_timeout(WAIT).ok()).collect();
    let reply = |id: u64| replies.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no reply {id}: {replies:?}"));
    assert!(reply(2)["result"]["content"][0]["text"].as_str().unwrap().contains("module"), "{}", reply(2));
    assert_eq!(
        reply(1)["result"]["content"][0]["text"],
        "Stopped: the session ended (stdin closed) while the preview was planning; nothing was staged.",
        "{}",
        reply(1)
    );
    assert!(!t.state.path().join("pending").exists() || std::fs::read_dir(t.state.path().join("pending")).unwrap().next().is_none());
}
