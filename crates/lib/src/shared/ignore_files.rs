//! The files the `ignore` crate reads while it walks, checked before it reads
//! them. The crate opens them blind (no `O_NONBLOCK`, no type check, no cap):
//! a FIFO waits for a writer forever and `/dev/zero` never ends. They are
//! git's config files (which name git's global excludes file) and that file,
//! read when the walk starts; the `.gitignore`, `.ignore` and
//! `.git/info/exclude` of each root folder and of every folder above it, read
//! when the walk starts on that root; and those of every folder below, read
//! when the walk descends into it. A `.git` file (a linked worktree's) leads
//! to `info/exclude` through the `gitdir` it names and that folder's
//! `commondir`, which are read too.
//!
//! [`guard`] checks the first two kinds before the walk and installs the walk's
//! `filter_entry`, which the crate calls on a folder before it descends into it
//! and reads its ignore files: the folder's files are checked there, and a
//! folder whose files fail is not descended into. Each file must be absent or
//! a regular file (through symlinks, which the crate follows) of at most
//! [`MAX_IGNORE_FILE_BYTES`]; the walk is refused otherwise, the file named
//! (docs/DESIGN.md §2.2, §7). What the crate reads is its own business only
//! after the check: a file swapped for a FIFO between the two is not caught.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, WalkBuilder};

use crate::shared::named::{FileKind, Unread, read_capped};

/// Most bytes of an ignore file, a `.git` file, a `commondir` or a git config
/// file that a walk reads (docs/DESIGN.md §7): a larger one refuses the walk.
pub const MAX_IGNORE_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A file a walk would read that is not a regular file of at most
/// [`MAX_IGNORE_FILE_BYTES`].
#[derive(Debug)]
pub struct Refused {
    /// What it is to the walk: `ignore file`, `git file`, `git config file`.
    what: &'static str,
    /// Its path (absolute).
    pub path: PathBuf,
    /// Why it is not read.
    why: Unread,
    /// How many other files the walk refused.
    more: usize,
}

impl Refused {
    /// The message, with the file shown as `shown`.
    pub fn message(&self, shown: &str) -> String {
        let fix = match self.why {
            Unread::TooLarge { .. } => " for such a file: shorten it or remove it",
            _ => ": make it a regular file or remove it",
        };
        let more = match self.more {
            0 => String::new(),
            n => format!(" ({n} more such file(s) in this walk)"),
        };
        format!("{} {shown} {}{fix}; ast-edit reads it to know which files to leave out{more}", self.what, self.why.reason())
    }
}

/// Ignore files the walk's filter refused, shared with its threads.
pub struct Checked(Arc<Mutex<Vec<Refused>>>);

impl Checked {
    /// `Err` with the first file refused during the walk, in path order, and
    /// the count of the others.
    pub fn outcome(self) -> Result<(), Refused> {
        let mut all = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        all.sort_by(|a, b| a.path.cmp(&b.path));
        all.dedup_by(|a, b| a.path == b.path);
        let more = all.len().saturating_sub(1);
        match all.into_iter().next() {
            Some(first) => Err(Refused { more, ..first }),
            None => Ok(()),
        }
    }
}

/// Prepares `builder`'s walk of `roots`. When it reads ignore files (`reads`),
/// checks those read before the first folder is listed, then installs the
/// filter: `keep` (the walk's own), then the check of a folder's ignore files
/// before the walk descends into it. Without `reads` the filter is `keep`.
pub fn guard(builder: &mut WalkBuilder, roots: &[PathBuf], reads: bool, keep: impl Fn(&DirEntry) -> bool + Send + Sync + 'static) -> Result<Checked, Refused> {
    let refused = Arc::new(Mutex::new(Vec::new()));
    if !reads {
        builder.filter_entry(keep);
        return Ok(Checked(refused));
    }
    check_git_config()?;
    for root in roots.iter().filter(|r| r.is_dir()) {
        for parent in root.canonicalize().iter().flat_map(|c| c.ancestors().skip(1)) {
            check_folder(parent)?;
        }
        check_folder(root)?;
    }
    let shared = refused.clone();
    builder.filter_entry(move |e| {
        if !keep(e) {
            return false;
        }
        if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
            return true;
        }
        match check_folder(e.path()) {
            Ok(()) => true,
            Err(r) => {
                shared.lock().unwrap_or_else(|p| p.into_inner()).push(r);
                false
            }
        }
    });
    Ok(Checked(refused))
}

/// `path`, when the walk would read it as `what`: absent (or not even to be
/// looked at: the crate gets the same error and skips it), or a regular file
/// of at most [`MAX_IGNORE_FILE_BYTES`].
fn check(what: &'static str, path: &Path) -> Result<(), Refused> {
    let refuse = |why| Err(Refused { what, path: path.to_path_buf(), why, more: 0 });
    match std::fs::metadata(path) {
        Err(_) => Ok(()),
        Ok(m) if !m.is_file() => refuse(Unread::NotRegular(FileKind::of(&m.file_type()))),
        Ok(m) if m.len() > MAX_IGNORE_FILE_BYTES => refuse(Unread::TooLarge { len: m.len(), cap: MAX_IGNORE_FILE_BYTES }),
        Ok(_) => Ok(()),
    }
}

/// The first line of `path` as the crate reads it, once checked: `None` when
/// it is absent, unreadable or not UTF-8 (the crate reads nothing further).
fn first_line(what: &'static str, path: &Path) -> Result<Option<String>, Refused> {
    check(what, path)?;
    let Ok(bytes) = read_capped(path, MAX_IGNORE_FILE_BYTES) else { return Ok(None) };
    let line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    Ok(std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line)).ok().map(str::to_string))
}

/// The ignore files of folder `dir`: `.ignore`, `.gitignore` and git's
/// `info/exclude`, found as the crate finds it (`resolve_git_commondir`).
fn check_folder(dir: &Path) -> Result<(), Refused> {
    check("ignore file", &dir.join(".ignore"))?;
    check("ignore file", &dir.join(".gitignore"))?;
    let git = dir.join(".git");
    let Ok(meta) = std::fs::metadata(&git) else { return Ok(()) };
    let common = if meta.is_file() {
        let Some(line) = first_line("git file", &git)? else { return Ok(()) };
        let Some(gitdir) = line.strip_prefix("gitdir: ") else { return Ok(()) };
        let gitdir = PathBuf::from(gitdir);
        let Some(common) = first_line("git file", &gitdir.join("commondir"))? else { return Ok(()) };
        if common.starts_with('.') { gitdir.join(common) } else { PathBuf::from(common) }
    } else {
        git
    };
    check("ignore file", &common.join("info/exclude"))
}

/// git's config files, where the crate looks for `core.excludesFile`, and the
/// global excludes file it finds (`ignore::gitignore::gitconfig_excludes_path`).
fn check_git_config() -> Result<(), Refused> {
    let env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = std::env::home_dir();
    let xdg = env("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
    let configs = [
        env("GIT_CONFIG_GLOBAL"),
        home.map(|h| h.join(".gitconfig")),
        xdg.map(|x| x.join("git/config")),
        Some(env("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig"))),
    ];
    for config in configs.iter().flatten() {
        check("git config file", config)?;
    }
    match ignore::gitignore::gitconfig_excludes_path() {
        Some(excludes) => check("ignore file", &excludes),
        None => Ok(()),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mkfifo(p: &Path) {
        assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success());
    }

    #[test]
    fn a_folder_passes_with_regular_ignore_files_and_names_the_first_that_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(".gitignore"), "x\n").unwrap();
        std::fs::create_dir_all(d.join(".git/info")).unwrap();
        check_folder(d).unwrap();
        mkfifo(&d.join(".git/info/exclude"));
        let r = check_folder(d).unwrap_err();
        assert_eq!(r.path, d.join(".git/info/exclude"));
        assert_eq!(
            r.message("x"),
            "ignore file x is a FIFO, not a regular file: make it a regular file or remove it; ast-edit reads it to know which files to leave out"
        );
    }

    #[test]
    fn a_git_file_is_followed_to_the_common_dir_as_the_crate_follows_it() {
        let dir = tempfile::tempdir().unwrap();
        let (wt, main) = (dir.path().join("wt"), dir.path().join("main"));
        std::fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        std::fs::create_dir_all(main.join(".git/info")).unwrap();
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\r\n", main.join(".git/worktrees/wt").display())).unwrap();
        std::fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        check_folder(&wt).unwrap();
        mkfifo(&main.join(".git/info/exclude"));
        assert_eq!(check_folder(&wt).unwrap_err().path, main.join(".git/worktrees/wt/../../info/exclude"));
    }

    #[test]
    fn the_first_refusal_in_path_order_is_named_with_the_count_of_the_others() {
        let refused = |p: &str| Refused { what: "ignore file", path: PathBuf::from(p), why: Unread::TooLarge { len: 9, cap: 8 }, more: 0 };
        let checked = Checked(Arc::new(Mutex::new(vec![refused("b"), refused("a"), refused("c"), refused("a")])));
        let first = checked.outcome().unwrap_err();
        assert_eq!(
            first.message("a"),
            "ignore file a is 9 bytes; the limit is 8 bytes for such a file: shorten it or remove it; ast-edit reads it to know which files to leave out (2 more such file(s) in this walk)"
        );
        assert!(Checked(Arc::default()).outcome().is_ok());
    }
}
