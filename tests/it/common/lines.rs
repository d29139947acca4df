//! The MCP server driven line by line, as a client that rmcp's own client
//! cannot play: one that writes without reading, cancels, closes stdin at a
//! chosen moment, or watches the server's process (threads, memory, CPU).
//! Also the slow rule the hostile-input tests drive it with.

use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Tree, cap_memory};

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
    /// What the pipe from the server's stdout holds at most, in bytes.
    pub stdout_pipe: usize,
    /// For a server started with [`Server::start_unread`]: lets more of its
    /// replies be read (`u64::MAX`: all of them).
    permits: Option<mpsc::Sender<u64>>,
}

impl Server {
    pub fn start(t: &Tree) -> Server {
        Server::start_with(t, false, None)
    }

    /// A server whose replies after `initialize`'s nobody reads, not even into
    /// a buffer of the test, until [`Server::read_replies`]: its stdout pipe
    /// fills as a client's that does not read.
    pub fn start_unread(t: &Tree) -> Server {
        Server::start_with(t, true, None)
    }

    /// [`Server::start_unread`], the server's address space capped at `memory`
    /// bytes ([`cap_memory`]): a server whose memory runs away dies instead of
    /// exhausting the machine. It matches on one thread (`RAYON_NUM_THREADS`):
    /// each of its threads reserves 64 MiB of stack (`mcp::THREAD_STACK_BYTES`),
    /// so that what fits under the cap does not depend on the machine's cores.
    pub fn start_unread_within(t: &Tree, memory: u64) -> Server {
        Server::start_with(t, true, Some(memory))
    }

    /// Lets the replies of a [`Server::start_unread`] server be read, all of
    /// them from now on.
    pub fn read_replies(&mut self) {
        if let Some(go) = self.permits.take() {
            let _ = go.send(u64::MAX);
        }
    }

    /// Lets `n` more replies of a [`Server::start_unread`] server be read (the
    /// reader takes what its buffer holds from the pipe, 8 KiB at most, and
    /// parses no more than it is let).
    pub fn read_more(&self, n: u64) {
        if let Some(go) = &self.permits {
            let _ = go.send(n);
        }
    }

    fn start_with(t: &Tree, unread: bool, memory: Option<u64>) -> Server {
        let mut command = t.command(&["mcp"]);
        if let Some(bytes) = memory {
            cap_memory(&mut command, bytes);
            command.env("RAYON_NUM_THREADS", "1");
        }
        let mut child = command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        #[cfg(target_os = "linux")]
        let stdout_pipe = pipe_size(std::os::fd::AsRawFd::as_raw_fd(&stdout));
        #[cfg(not(target_os = "linux"))]
        let stdout_pipe = 64 << 10;
        let (tx, lines) = mpsc::channel();
        let (permits, granted) = mpsc::channel::<u64>();
        std::thread::spawn(move || {
            // After `initialize`'s reply, read a line only when let.
            let mut left = if unread { 0 } else { u64::MAX };
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(serde_json::from_str(&line).unwrap());
                while left == 0 {
                    // The test let go of the server: read on to the end.
                    left = granted.recv().unwrap_or(u64::MAX);
                }
                left = if left == u64::MAX { left } else { left - 1 };
            }
        });
        let mut s = Server { stdin: child.stdin.take(), child, lines, stdout_pipe, permits: unread.then_some(permits) };
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

    /// Whether the process has exited (then how), without waiting.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
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

/// The bytes written to the pipe behind `fd` (either end) that its reader has
/// not taken yet (`FIONREAD`).
#[cfg(target_os = "linux")]
pub fn in_pipe(fd: std::os::fd::RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int to the pointer given.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    assert_eq!(r, 0, "FIONREAD: {}", std::io::Error::last_os_error());
    n as usize
}

/// Makes the pipe behind `fd` (either end) hold `bytes` at most (`F_SETPIPE_SZ`;
/// a page at least), so that what a client writes waits in the client, not in
/// the pipe.
#[cfg(target_os = "linux")]
pub fn set_pipe_size(fd: std::os::fd::RawFd, bytes: usize) {
    // SAFETY: F_SETPIPE_SZ takes an int and touches no memory of ours.
    let r = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, bytes as libc::c_int) };
    assert!(r >= 0, "F_SETPIPE_SZ: {}", std::io::Error::last_os_error());
}

/// What the pipe behind `fd` (either end) holds at most, in bytes (`F_GETPIPE_SZ`).
#[cfg(target_os = "linux")]
pub fn pipe_size(fd: std::os::fd::RawFd) -> usize {
    // SAFETY: F_GETPIPE_SZ touches no memory of ours.
    let r = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    assert!(r > 0, "F_GETPIPE_SZ: {}", std::io::Error::last_os_error());
    r as usize
}
