//! The sandbox and the shell of `tests/it/doc_examples.rs`: a fresh temporary
//! folder that stands for `/` (a home, a `tmp`, a pending store, the start
//! folder), and one `bash` process per console block that runs its commands one
//! by one, stdout and stderr on one pipe, and returns each command's output.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// The line printed after each command; the exit status follows it.
const END: &str = "<<<doc-example: end of command>>>";

/// How long one command may take before the block fails.
const TIMEOUT: Duration = Duration::from_secs(300);

/// A fresh folder standing for the root of a machine: `home/me` (`HOME`),
/// `tmp` (`TMPDIR`; `/tmp` in a command means it), `state` (the pending store),
/// and the start folder of the block.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    /// The sandbox's root, canonical.
    pub root: PathBuf,
    /// Where the block's commands start, inside `root`.
    pub start: PathBuf,
}

impl Sandbox {
    /// A sandbox whose start folder is `home/me/<start>` holding `files` (path, text).
    pub fn new(start: &str, files: &[(String, String)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let start = root.join("home/me").join(start);
        for d in [root.join("tmp"), root.join("state"), root.join("home/me/.local/state"), start.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        for (p, text) in files {
            let p = start.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Sandbox { _dir: dir, root, start }
    }

    /// The shell's environment: nothing of the caller's but `PATH`, after the
    /// folder of the binary under test.
    pub fn env(&self) -> Vec<(String, String)> {
        let bin = Path::new(env!("CARGO_BIN_EXE_ast-edit")).parent().unwrap().display().to_string();
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        let home = self.root.join("home/me");
        vec![
            ("PATH".into(), format!("{bin}:{path}")),
            ("HOME".into(), home.display().to_string()),
            ("TMPDIR".into(), self.root.join("tmp").display().to_string()),
            ("XDG_STATE_HOME".into(), home.join(".local/state").display().to_string()),
            ("AST_EDIT_STATE_DIR".into(), self.root.join("state").display().to_string()),
            ("NO_COLOR".into(), "1".into()),
            ("TERM".into(), "dumb".into()),
            ("COLUMNS".into(), "100".into()),
        ]
    }

    /// `cmd` as the sandbox runs it: `/tmp` (a whole path segment) means the
    /// sandbox's `tmp`.
    pub fn localise(&self, cmd: &str) -> String {
        let re = regex::Regex::new(r"(^|[^\w./-])/tmp\b").unwrap();
        let tmp = self.root.join("tmp").display().to_string();
        re.replace_all(cmd, |c: &regex::Captures<'_>| format!("{}{tmp}", &c[1])).into_owned()
    }
}

/// One `bash` process in a sandbox.
pub struct Shell {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Shell {
    pub fn start(sandbox: &Sandbox) -> Self {
        let mut child = Command::new("bash")
            .args(["--noprofile", "--norc"])
            .current_dir(&sandbox.start)
            .env_clear()
            .envs(sandbox.env())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("bash");
        let mut stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            while out.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
                let line = String::from_utf8_lossy(&buf).trim_end_matches('\n').to_string();
                if tx.send(line).is_err() {
                    break;
                }
                buf.clear();
            }
        });
        // The shell's own errors (a command not found) go where the commands' go.
        writeln!(stdin, "exec 2>&1").unwrap();
        Shell { child, stdin, lines }
    }

    /// Runs `cmd` (stdin empty) and returns what it printed, stdout and stderr in
    /// the order written, without the blank lines that end it, and its exit status.
    pub fn run(&mut self, cmd: &str) -> (Vec<String>, i32) {
        // The newline before `}` ends a trailing `# comment` of the command.
        writeln!(self.stdin, "{{ {cmd}\n}} </dev/null 2>&1; printf '\\n{END} %d\\n' $?").unwrap();
        self.stdin.flush().unwrap();
        let mut out = Vec::new();
        loop {
            match self.lines.recv_timeout(TIMEOUT) {
                Ok(l) => match l.strip_prefix(END) {
                    Some(code) => {
                        // printf's leading newline ended the last line, or added an empty one.
                        while out.last().is_some_and(|l: &String| l.trim().is_empty()) {
                            out.pop();
                        }
                        return (out, code.trim().parse().unwrap_or(-1));
                    }
                    None => out.push(l),
                },
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("`{cmd}` did not finish in {TIMEOUT:?}; so far it printed:\n{}", out.join("\n"));
                }
                Err(RecvTimeoutError::Disconnected) => panic!("the shell ended during `{cmd}`:\n{}", out.join("\n")),
            }
        }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "exit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
