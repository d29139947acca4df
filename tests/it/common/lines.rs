//! The MCP server driven line by line, as a client that rmcp's own client
//! cannot play: one that writes without reading, cancels, closes stdin at a
//! chosen moment, or watches the server's process (threads, memory, CPU).
//! Also the slow rule the hostile-input tests drive it with.

use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::Tree;

/// How long a reply may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(120);

/// A rule whose every match scans all the statements before it (`follows`
/// with `stopBy: end`): each node's work is bounded, the file's is quadratic.
/// On [`statements`]`(20_000)` it took 73 s in a release build.
pub const QUADRATIC: &str = "id: quad\nlanguage: python\nrule:\n  kind: expression_statement\n  follows: {stopBy: end, pattern: import os}\n";

/// `import os` and `n` statements after it, for [`QUADRATIC`].
pub fn statements(n: usize) -> String {
    std::iter::once("import os\n".to_string()).chain((0..n).map(|i| format!("x{i} = {i}\n"))).collect()
}

/// The server in `t`, initialized, its stdin, and its stdout's lines as they come.
pub struct Server {
    pub child: std::process::Child,
    pub stdin: Option<std::process::ChildStdin>,
    pub lines: mpsc::Receiver<Value>,
    /// For a server started with [`Server::start_unread`]: lets its replies be
    /// read.
    hold: Option<mpsc::Sender<()>>,
}

impl Server {
    pub fn start(t: &Tree) -> Server {
        Server::start_with(t, false)
    }

    /// A server whose replies after `initialize`'s nobody reads, not even into
    /// a buffer of the test, until [`Server::read_replies`]: its stdout pipe
    /// fills as a client's that does not read.
    pub fn start_unread(t: &Tree) -> Server {
        Server::start_with(t, true)
    }

    /// Lets the replies of a [`Server::start_unread`] server be read.
    pub fn read_replies(&mut self) {
        if let Some(go) = self.hold.take() {
            let _ = go.send(());
        }
    }

    fn start_with(t: &Tree, unread: bool) -> Server {
        let mut child =
            t.command(&["mcp"]).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let (hold, held) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            for (i, line) in std::io::BufReader::new(stdout).lines().map_while(Result::ok).enumerate() {
                let _ = tx.send(serde_json::from_str(&line).unwrap());
                // After `initialize`'s reply, wait to be let read on.
                if i == 0 && unread {
                    let _ = held.recv();
                }
            }
        });
        let mut s = Server { stdin: child.stdin.take(), child, lines, hold: unread.then_some(hold) };
        s.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(s.next()["id"], 0);
        s
    }

    pub fn send(&mut self, v: &Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{v}").unwrap();
    }

    pub fn next(&self) -> Value {
        self.lines.recv_timeout(WAIT).expect("a reply")
    }

    /// A field of /proc/<pid>/status, as a number (`Threads`, `VmRSS` in kB).
    pub fn status(&self, field: &str) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = s.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// The process's CPU time (user + system), in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // The fields after the command name, which is in parentheses.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    /// Sends a ping, reads until its reply, returns the replies before it.
    pub fn ping(&mut self, id: u64) -> Vec<Value> {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let mut before = Vec::new();
        loop {
            let v = self.next();
            if v["id"] == id {
                assert_eq!(v["result"], json!({}));
                return before;
            }
            before.push(v);
        }
    }

    /// Closes stdin; the server must exit with success.
    pub fn end(mut self) {
        drop(self.stdin.take());
        assert!(self.child.wait().unwrap().success());
    }
}

/// A server left behind by a failed test (one stuck on a FIFO) is killed, not
/// left running; one that [`Server::end`] saw exit is already gone.
impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
