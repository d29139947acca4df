//! Backpressure of the MCP server (docs/DESIGN.md §2.10, `src/mcp/flow.rs`),
//! through the real server: at most 16 tool calls run at once (the others wait
//! in order, and a cancelled one that waits is dropped), and a client that
//! writes without reading stops the server's reading instead of its memory
//! growing with every reply, whatever it sends: tool calls, `tools/list`,
//! pings, or lines the server cannot read. Each case ends with the server
//! answering a ping.

#![cfg(target_os = "linux")]

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::common::Tree;
use crate::common::lines::{QUADRATIC, Server, WAIT, in_pipe, set_pipe_size, statements};
use serde_json::{Value, json};

/// The cap on the address space of the flooded servers below: a server whose
/// memory runs away dies of it instead of taking the machine's. At rest the
/// server maps about 0.6 GiB (the debug binary, 64 MiB of stack per thread,
/// the allocator's first arena); the allocator reserves what is left as it
/// needs it.
const MEMORY: u64 = 1 << 30;

/// The bound of docs/DESIGN.md §2.10 (`mcp::flow`): reading stops while 256
/// requests are owed a reply or 16 MiB of replies wait to be written, each
/// line counting 512 bytes more.
const UNANSWERED: usize = 256;
const UNSENT_BYTES: usize = 16 << 20;
const LINE_COST: usize = 512;

/// The most lines of `line` bytes each that the server may read beyond those
/// whose replies the client has read, its replies at least `reply` bytes long
/// (with their `\n`): those owed a reply, those whose replies wait to be
/// written, those whose replies fill the stdout pipe (`stdout_pipe` bytes) and
/// the buffer of the test's reader (8 KiB), and those the server has read
/// ahead into its buffers (three of 8 KiB: its own, tokio's and std's; 32 KiB
/// allowed).
fn most_read(reply: usize, line: usize, stdout_pipe: usize) -> usize {
    UNANSWERED + UNSENT_BYTES / (reply + LINE_COST) + 1 + (stdout_pipe + (8 << 10)) / reply + 1 + (32 << 10) / line + 1
}

/// How many replies the client of [`flood`] reads one at a time, writing on.
const ONE_BY_ONE: u64 = 300;

/// A client that writes `line(0)`, `line(1)`, ... (lines of one length, each
/// answered by one reply) as fast as it can, to a server whose address space
/// is capped at [`MEMORY`]. First it reads nothing: once its writes have stood
/// still for a second (at most `most` lines are written), the server must be
/// alive and have read no more lines than [`most_read`]. Then it reads
/// [`ONE_BY_ONE`] replies one at a time, writing on: after each, the server
/// must have read no more than [`most_read`] lines beyond those answered. Then
/// it stops writing and reads the rest: `check` sees the reply to each line
/// written, and a ping is answered after them. Returns how many lines were
/// written.
fn flood(line: impl Fn(u64) -> String + Send + 'static, most: u64, mut check: impl FnMut(&Value)) -> u64 {
    let t = Tree::empty();
    let mut s = Server::start_unread_within(&t, MEMORY);
    let mut stdin = s.stdin.take().unwrap();
    let fd = stdin.as_raw_fd();
    // Lines waiting in the pipe are read once the client reads: each costs the
    // test a reply to read, and tells nothing of the bound.
    set_pipe_size(fd, 4096);
    let len = line(0).len();
    let (written, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
    let (count, stopped) = (written.clone(), stop.clone());
    let writer = std::thread::spawn(move || {
        for i in 0..most {
            let l = line(i);
            assert_eq!(l.len(), len, "{l}");
            // A write fails when the server died: reported below.
            if stopped.load(Ordering::Relaxed) || stdin.write_all(l.as_bytes()).is_err() {
                break;
            }
            count.fetch_add(1, Ordering::Relaxed);
        }
        stdin
    });
    // The lines the server took from its stdin: those written and the one the
    // client may be writing, less what waits in the pipe.
    let read = || ((written.load(Ordering::Relaxed) as usize + 1) * len - in_pipe(fd)).div_ceil(len);
    let (mut sent, mut still) = (0, 0);
    while still < 4 && sent < most && s.exited().is_none() {
        std::thread::sleep(Duration::from_millis(250));
        let now = written.load(Ordering::Relaxed);
        still = if now == sent { still + 1 } else { 0 };
        sent = now;
    }
    if let Some(status) = s.exited() {
        panic!("the server died ({status}) after reading {sent} lines while nobody read its replies");
    }
    assert!(sent < most, "the server read all {most} lines while nobody read its replies");
    let unread = read();
    let mut shortest = usize::MAX;
    let mut take = |s: &Server| {
        let v = s.next();
        shortest = shortest.min(v.to_string().len() + 1);
        check(&v);
    };
    let mut ahead = 0;
    for taken in 1..=ONE_BY_ONE as usize {
        s.read_more(1);
        take(&s);
        ahead = ahead.max(read().saturating_sub(taken));
    }
    stop.store(true, Ordering::Relaxed);
    s.read_replies();
    let stdin = writer.join().unwrap();
    let total = written.load(Ordering::Relaxed);
    for _ in ONE_BY_ONE..total {
        take(&s);
    }
    let bound = most_read(shortest, len, s.stdout_pipe);
    assert!(unread <= bound, "the server read {unread} lines while nobody read its replies; its bound lets it read {bound}");
    assert!(ahead <= bound, "the server read {ahead} lines beyond those the client had read replies to; its bound lets it read {bound}");
    s.stdin = Some(stdin);
    assert!(s.ping(1).is_empty());
    s.end();
    total
}

/// [`flood`] with requests of `method` (no params): each is answered once, its
/// reply as `check` says.
fn flood_method(method: &'static str, most: u64, check: fn(&Value)) {
    let mut ids = HashSet::new();
    let total = flood(
        move |i| json!({"jsonrpc": "2.0", "id": 100_000 + i, "method": method}).to_string() + "\n",
        most,
        |v| {
            check(v);
            assert!(ids.insert(v["id"].as_u64().unwrap()), "two replies to {}", v["id"]);
        },
    );
    assert_eq!(ids.len() as u64, total);
}

/// `tools/list` in a loop ([`flood`]): the server stops reading at its bound,
/// reads on only as its replies are read, and answers every request. Before, a
/// request that is not a tool call counted only once rmcp had built its reply
/// and the task that sends it had run, so the server read ahead of its
/// answers: once the client had read 300 replies one at a time, the server had
/// read 3,316 requests beyond them (the bound lets 2,023), and a client that
/// read its replies at 40 KB/s had it die at 1 GiB after 5 s.
#[test]
fn tools_list_in_a_loop_is_read_no_faster_than_it_is_answered() {
    flood_method("tools/list", 6_000, |v| assert_eq!(v["result"]["tools"].as_array().map(Vec::len), Some(6), "{v}"));
}

/// Pings in a loop ([`flood`]): as for `tools/list`. Before, the server read
/// all 60,000 while nobody read its replies (the bound lets 33,000); with two
/// matching threads it died at 1 GiB, 84,000 pings in.
#[test]
fn pings_in_a_loop_are_read_no_faster_than_they_are_answered() {
    flood_method("ping", 60_000, |v| assert_eq!(v["result"], json!({}), "{v}"));
}

/// Lines the server cannot serve, in a loop ([`flood`]): not JSON (`-32700`),
/// a batch (`-32600`), a method it does not have (`-32601`, rmcp's reply) and
/// `tools/call` without params (`-32602`, the transport's). Each is answered,
/// and the server stops reading at its bound as for any request. Before, it
/// read all 60,000 while nobody read its replies (the bound lets 30,000):
/// rmcp's replies counted late, and the transport's own by their bytes alone.
#[test]
fn unservable_lines_in_a_loop_are_read_no_faster_than_they_are_answered() {
    fn line(i: u64) -> String {
        let id = 100_000 + i;
        let l = match i % 4 {
            0 => format!("this is not json {id}"),
            1 => "[]".to_string(),
            2 => format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "no/such/method"}}"#),
            _ => format!(r#"{{"jsonrpc": "2.0", "id": {id}, "method": "tools/call"}}"#),
        };
        format!("{l:<64}\n")
    }
    let mut codes = BTreeMap::new();
    let total = flood(line, 60_000, |v| {
        let code = v["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error reply: {v}"));
        assert_eq!(v["id"].is_null(), matches!(code, -32700 | -32600), "{v}");
        *codes.entry(code).or_insert(0u64) += 1;
    });
    let kind = |k: u64| (0..total).filter(|i| i % 4 == k).count() as u64;
    assert_eq!(codes, BTreeMap::from([(-32700, kind(0)), (-32600, kind(1)), (-32601, kind(2)), (-32602, kind(3))]));
}

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
    // (one thread per core); unbounded, 40 calls took 80 more. The slack: the
    // blocking pool, which stdin and stdout go through too, may start a thread
    // when one that has just finished is not back in it yet (44 of 43 once,
    // under load).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert!(most <= idle + 2 * 16 + cores + 8, "{most} threads (idle: {idle}) with 40 calls sent");
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

/// A request sent with the id of a slow search not answered yet is refused,
/// and the search keeps its id: cancelled, it frees the id, which a ping then
/// takes. Before, rmcp ran both, sent the ping's reply and would have dropped
/// the search's, and the count of requests owed a reply would have lost one.
#[test]
fn a_request_with_the_id_of_one_not_answered_yet_is_refused() {
    let t = Tree::empty();
    t.write("quad.py", statements(20_000));
    let mut s = Server::start(&t);
    s.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ast_search", "arguments": {"rule": QUADRATIC, "paths": ["quad.py"]}}}),
    );
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
    let refused = json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "Invalid Request: id 7 belongs to a request not answered yet; give each request an id of its own"}});
    assert_eq!(s.next(), refused);
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}));
    assert!(s.ping(7).is_empty());
    s.end();
}

/// 1,000 `ast_tree` calls (45 KB of reply each) from a client that does not
/// read: once 256 calls are owed a reply and 16 MiB of replies wait, the
/// server stops reading (after about 670 calls), so the client's writes block
/// in the pipe and the server's memory stays bounded; then the client reads,
/// every call is answered, and so is a ping. Before the tool calls were
/// bounded, the server read on at the pace it answered and queued every reply:
/// 195 MB after 30 s and 3,000 calls, 1.1 GB for 20,000. Before the waiting
/// calls counted as requests owed a reply, only their bytes did (16 MiB, some
/// 7,000 of these), and they started whatever the replies waiting: whether the
/// server stopped before it had read all 1,500 the test then sent was a race
/// between its reading and its answering, lost on an idle machine.
#[test]
fn a_client_that_does_not_read_stops_the_server_reading_not_its_memory_growing() {
    use std::sync::atomic::AtomicUsize;
    const CALLS: usize = 1_000;
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
        for id in 1..=CALLS as u64 {
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
    while still < 4 && sent < CALLS && start.elapsed() < WAIT {
        std::thread::sleep(Duration::from_millis(500));
        let now = written.load(Ordering::Relaxed);
        still = if now == sent { still + 1 } else { 0 };
        sent = now;
    }
    let grown = s.status("VmRSS").saturating_sub(base);
    assert!(sent < CALLS, "the server read all {sent} calls while its replies were not read");
    assert!(grown < 64 * 1024, "the server grew by {grown} kB while its replies were not read");
    s.read_replies();
    let mut answered = Vec::new();
    while answered.len() < CALLS {
        let v = s.next();
        assert!(v["result"]["content"][0]["text"].is_string(), "{v}");
        answered.push(v["id"].as_u64().unwrap());
    }
    answered.sort_unstable();
    answered.dedup();
    assert_eq!(answered.len(), CALLS);
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
