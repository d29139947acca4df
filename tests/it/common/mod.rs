//! Test harness: a temporary copy of `fixtures/` (or an empty tree), its own state
//! dir, and a wrapper that runs the real `ast-edit` binary there.

#![allow(dead_code)]

pub mod conform;
pub mod json;
pub mod lines;
pub mod markdown;
pub mod mcp;
pub mod shell;
pub mod store;
pub mod tool_tables;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Condvar, Mutex, PoisonError};

/// The action id of a write's last line, `To undo: `ast-edit undo --id <id>``
/// (`run -U`, `run -i`, `resolve apply` on the command line).
#[track_caller]
pub fn undo_id(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap_or_default();
    let id = last.strip_prefix("To undo: `ast-edit undo --id ").and_then(|r| r.strip_suffix('`'));
    id.unwrap_or_else(|| panic!("the last line names the undo command:\n{stdout}")).to_string()
}

/// The docs a test holds to rewrite ([`doc_lock`]), and the signal that one was let go.
static DOCS_HELD: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
static DOC_FREED: Condvar = Condvar::new();

/// A doc held by one test until this is dropped ([`doc_lock`]).
pub struct DocLock(PathBuf);

impl Drop for DocLock {
    fn drop(&mut self) {
        DOCS_HELD.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.0);
        DOC_FREED.notify_all();
    }
}

/// Holds `doc` for a test that rewrites it under `UPDATE_DOCS`, from reading it
/// to writing it back: the tests share one process, and two of them rewrite
/// docs/MCP.md (doc_examples.rs its console blocks and tool tables,
/// mcp_session.rs its session), so without it one could write over the other's
/// rewrite. Waits while another test holds the same doc.
pub fn doc_lock(doc: &Path) -> DocLock {
    let mut held = DOCS_HELD.lock().unwrap_or_else(PoisonError::into_inner);
    while held.contains(doc) {
        held = DOC_FREED.wait(held).unwrap_or_else(PoisonError::into_inner);
    }
    held.insert(doc.to_path_buf());
    DocLock(doc.to_path_buf())
}

/// A temporary work tree with its own pending-action store.
pub struct Tree {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

/// Every regular file under `dir`, by its path relative to `dir`, with its bytes.
pub fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file() {
                out.insert(e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not the expected JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }
    /// A run one of ast-edit's limits left incomplete: exit 13
    /// (docs/REFERENCE.md, "Exit codes").
    #[track_caller]
    pub fn limited(self) -> Self {
        assert_eq!(self.code, 13, "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        assert!(self.stderr.contains("not searched to the end because of ast-edit's limits"), "{}", self.stderr);
        self
    }

    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(self.code, 0, "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
    #[track_caller]
    pub fn code(self, code: i32) -> Self {
        assert_eq!(self.code, code, "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
}

impl Tree {
    /// An empty tree.
    pub fn empty() -> Self {
        Tree { dir: tempfile::tempdir().unwrap(), state: tempfile::tempdir().unwrap() }
    }

    /// A copy of `fixtures/`, a git work tree as in a checkout (an empty
    /// `.git`: its `.gitignore` counts only inside one).
    pub fn fixtures() -> Self {
        let t = Tree::empty();
        copy_dir(&fixtures(), t.dir.path());
        std::fs::create_dir(t.dir.path().join(".git")).unwrap();
        t
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, contents).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap()
    }

    pub fn read_bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path().join(rel)).unwrap()
    }

    /// Every file of the tree with its bytes.
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        files_under(self.path()).into_iter().map(|(p, b)| (p.to_string_lossy().into_owned(), b)).collect()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ast-edit"));
        c.args(args)
            .current_dir(self.path())
            .env("AST_EDIT_STATE_DIR", self.state.path())
            .env_remove("RAYON_NUM_THREADS")
            .env_remove("AST_EDIT_FAIL_RENAME_AT")
            .env("NO_COLOR", "1");
        c
    }

    /// Runs the binary in the tree.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command(args).output().unwrap())
    }

    /// Runs the binary with extra environment.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut c = self.command(args);
        for (k, v) in env {
            c.env(k, v);
        }
        Run::from(c.output().unwrap())
    }

    /// Runs the peer, ast-grep 0.51.1 ([`ast_grep`]), in the tree with
    /// `NO_COLOR` set, as [`Tree::run`] runs ast-edit.
    pub fn peer(&self, args: &[&str]) -> Run {
        Run::from(Command::new(ast_grep()).args(args).current_dir(self.path()).env("NO_COLOR", "1").output().unwrap())
    }

    /// Runs with `stdin` fed (then closed), under a watchdog: a run that has
    /// not ended after `secs` seconds is killed and the test fails, so a hang
    /// (a FIFO read, a lock waited on) fails instead of stopping the suite; and
    /// under [`WATCHED_MEMORY`], so a run whose memory runs away (a device read
    /// to its end) fails its allocation instead of exhausting the machine.
    #[track_caller]
    pub fn run_within(&self, args: &[&str], stdin: &str, secs: u64) -> Run {
        self.run_watched(args, &[], stdin, secs, Some(WATCHED_MEMORY))
    }

    /// [`Tree::run_within`], the process's address space capped at `memory`
    /// bytes (`RLIMIT_AS`) when given: a run that would exhaust the machine
    /// fails its allocation instead.
    pub fn run_limited(&self, args: &[&str], stdin: &str, secs: u64, memory: Option<u64>) -> Run {
        self.run_watched(args, &[], stdin, secs, memory)
    }

    /// [`Tree::run_within`] with extra environment.
    #[track_caller]
    pub fn run_within_env(&self, args: &[&str], env: &[(&str, &str)], stdin: &str, secs: u64) -> Run {
        self.run_watched(args, env, stdin, secs, Some(WATCHED_MEMORY))
    }

    fn run_watched(&self, args: &[&str], env: &[(&str, &str)], stdin: &str, secs: u64, memory: Option<u64>) -> Run {
        use std::io::{Read, Write};
        use std::process::Stdio;
        let mut command = self.command(args);
        if let Some(limit) = memory {
            cap_memory(&mut command, limit);
            // Each worker thread reserves its stack (64 MiB): two of them, so
            // that what fits under the cap does not depend on the machine.
            command.env("RAYON_NUM_THREADS", "2");
        }
        command.envs(env.iter().copied());
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        let pipe = |mut r: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut v = Vec::new();
                let _ = r.read_to_end(&mut v);
                String::from_utf8_lossy(&v).into_owned()
            })
        };
        let out = pipe(Box::new(child.stdout.take().unwrap()));
        let err = pipe(Box::new(child.stderr.take().unwrap()));
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > std::time::Duration::from_secs(secs) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`ast-edit {}` did not end within {secs} s (killed); stderr:\n{}", args.join(" "), err.join().unwrap());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        Run { code: status.code().unwrap_or(-1), stdout: out.join().unwrap(), stderr: err.join().unwrap() }
    }

    /// Runs with `stdin` fed.
    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        use std::io::Write;
        let mut c = self.command(args);
        c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        // The process may exit before reading (bad flags): a closed pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        Run::from(child.wait_with_output().unwrap())
    }
}

/// The address space of a run under [`Tree::run_within`]: 2 GiB, about ten
/// times what the hostile tests' runs use, far below the machine's memory.
pub const WATCHED_MEMORY: u64 = 2 << 30;

/// Caps the address space of the process `command` starts at `bytes`
/// (`RLIMIT_AS`, Linux only): a run that would exhaust the machine fails its
/// allocation instead.
pub fn cap_memory(command: &mut Command, bytes: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let cap = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
        // SAFETY: setrlimit is async-signal-safe, and only the child's
        // limit changes, between fork and exec.
        unsafe {
            command.pre_exec(move || if libc::setrlimit(libc::RLIMIT_AS, &cap) == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (command, bytes);
}

/// The py op used by many tests: 2 replacements in python/test_app.py.
pub const ASSERT_PAT: &str = "self.assertEquals($A, $B)";
pub const ASSERT_OUT: &str = "self.assertEqual($A, $B)";

/// The peer, ast-grep 0.51.1 (`$AST_GREP`, else `ast-grep` on the PATH). Every
/// test that calls it carries
/// `#[cfg_attr(not(peer), ignore = "needs ast-grep 0.51.1: pip install ast-grep-cli==0.51.1")]`:
/// the build script (build.rs) sets `cfg(peer)` only when the peer runs, so
/// without it such a test is reported ignored, never passed. A peer that was
/// there at build time and is gone now fails the test. Without `$AST_GREP`
/// the test runs the file the build found (`AST_EDIT_PEER`), whatever its PATH.
pub fn ast_grep() -> String {
    let bin = std::env::var("AST_GREP").ok().or_else(|| option_env!("AST_EDIT_PEER").map(str::to_string)).unwrap_or_else(|| "ast-grep".into());
    let ok = std::process::Command::new(&bin).arg("--version").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "ast-grep 0.51.1");
    assert!(
        ok,
        "`{bin} --version` is not ast-grep 0.51.1, though the build found it (build.rs): pip install ast-grep-cli==0.51.1, or point AST_GREP at it, then build again"
    );
    bin
}
