//! Where a front end works: its root folder (the CLI's working directory, the MCP
//! server's `--root`), the state dir of the pending-action store that belongs to
//! it, opening that store (with the clean-up after an apply that was killed
//! half-way), and the confinement rules that keep the MCP server inside its root.
//! Both front ends go through [`Workspace`], so they find the same store for the
//! same tree and report recovery the same way.

use std::path::{Path, PathBuf};

use crate::plan::Plan;
use crate::shared::error::{Error, Result};
use crate::shared::message::Text;
use crate::store::pending::Store;
use crate::store::scan_cache::ScanCache;

/// A root folder and the state dir of its store.
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
    state_dir: PathBuf,
}

impl Workspace {
    /// The workspace of `root`, with the state dir of [`state_dir`].
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let state_dir = state_dir(&root);
        Workspace { root, state_dir }
    }

    /// The workspace of `root` with its store in `state_dir` (a library user's
    /// choice; the front ends use [`Workspace::new`]).
    pub fn with_state_dir(root: impl Into<PathBuf>, state_dir: impl Into<PathBuf>) -> Self {
        Workspace { root: root.into(), state_dir: state_dir.into() }
    }

    /// The workspace of the process's working directory.
    pub fn current() -> Result<Self> {
        Ok(Workspace::new(crate::shared::paths::current_dir()?))
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The state dir of the store.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Opens the store, first cleaning up after an apply that was killed half-way,
    /// then applying the store's retention (`crate::store::pending::Locked::maintain`).
    /// Each message goes to `warn`: what recovery did (what was written, what to
    /// run), each pending action the retention dropped, and every unreadable
    /// pending entry (skipped, never blocking the others).
    pub fn store(&self, warn: &mut dyn FnMut(&Text)) -> Result<Store> {
        let store = Store::open(&self.state_dir)?;
        tidy(&store.lock()?, warn)?;
        Ok(store)
    }

    /// Opens the store for a new session of `prefix` (an MCP server, `mcp`) as
    /// [`Workspace::store`] does, with its owner drawn under the lock, but waits at
    /// most `wait` for the lock (another process may hold it for as long as it
    /// likes): after that the session starts without the store's recovery and
    /// retention, which the next start does, with an owner drawn unchecked, and
    /// `warn` says so. So it does when the lock cannot be opened (a FIFO in its
    /// place): `warn` says why, and each call that needs the store says it again.
    /// Returns the store and the session's owner.
    pub fn open_session(&self, prefix: &str, wait: std::time::Duration, warn: &mut dyn FnMut(&Text)) -> Result<(Store, String)> {
        let store = Store::open(&self.state_dir)?;
        let owner = match store.lock_within(wait) {
            Ok(Some(locked)) => {
                tidy(&locked, warn)?;
                locked.new_owner(prefix)?
            }
            Err(e) => {
                warn(&e.text().lit("; starting without the store (a call that stages, applies or lists fails until it is fixed)"));
                crate::store::session::draw_owner(prefix, 0)
            }
            Ok(None) => {
                warn(&Text::from(format!(
                    "the pending-action store {} has been locked by another ast-edit process for over {} s; starting without it (its clean-up waits for the next start, and a call that stages, applies or lists waits for the lock)",
                    self.state_dir.display(),
                    wait.as_secs()
                )));
                crate::store::session::draw_owner(prefix, 0)
            }
        };
        Ok((store, owner))
    }

    /// Refuses a request path that leaves the root (which must be canonical):
    /// lexically (an absolute path elsewhere, a `..` escape) or through a symlink.
    /// Runs before anything is read. A path that does not exist passes here and is
    /// reported by the request's validation.
    pub fn confine(&self, p: &str) -> Result<()> {
        let root = &self.root;
        if p.trim().is_empty() {
            return Ok(());
        }
        let given = Path::new(p);
        let joined = if given.is_absolute() { given.to_path_buf() } else { root.join(given) };
        if !inside(root, &joined) {
            return Err(Error::bad(format!(
                "path `{p}` is outside the server's root {}: give a path relative to the root (no `..` above it, no absolute path elsewhere)",
                root.display()
            )));
        }
        match crate::shared::paths::real_location(&joined) {
            Some(real) if real.starts_with(root) => Ok(()),
            Some(real) => Err(Error::bad(format!(
                "path `{p}` leads outside the server's root {} (through a symlink, to {}): only files inside the root can be searched",
                root.display(),
                real.display()
            ))),
            None => Err(Error::bad(format!("path `{p}` passes a symlink whose target cannot be resolved: give a real file or directory inside the root"))),
        }
    }

    /// The scan cache of the state dir for the runs of `req` (docs/DESIGN.md
    /// section 2.14). Call [`ScanCache::finish`] after the run, to store what
    /// it made.
    pub fn scan_cache(&self, req: &crate::request::Request) -> ScanCache {
        ScanCache::open(&self.state_dir, req)
    }

    /// The scan cache of the state dir for the rule tests, whose keys name
    /// each tested rule.
    pub fn test_cache(&self) -> ScanCache {
        ScanCache::open_for_build(&self.state_dir)
    }

    /// The files of `plan` that do not really live inside the root (symlinks
    /// followed where the file exists), as absolute paths.
    pub fn files_outside<'p>(&self, plan: &'p Plan) -> Vec<&'p str> {
        plan.files.iter().filter(|f| !really_inside(&self.root, &f.abs)).map(|f| f.abs.to_str().unwrap_or(f.path.as_str())).collect()
    }
}

/// What opening a store does under its lock: the clean-up after an apply that
/// was killed half-way, then the store's retention, each message to `warn`.
fn tidy(locked: &crate::store::pending::Locked<'_>, warn: &mut dyn FnMut(&Text)) -> Result<()> {
    for msg in crate::apply::recover(locked)?.into_iter().chain(locked.maintain()?.into_iter().map(Text::from)) {
        warn(&msg);
    }
    Ok(())
}

/// True when `path` is `root` or inside it (both absolute), lexically.
fn inside(root: &Path, path: &Path) -> bool {
    crate::request::walk::normalize(path).starts_with(root)
}

/// True when the file `path` lives inside `root`: its real location, symlinks
/// followed as far as it exists (`shared::paths::real_location`); a path
/// through a symlink that cannot be followed is not inside.
pub fn really_inside(root: &Path, path: &Path) -> bool {
    crate::shared::paths::real_location(path).is_some_and(|real| real.starts_with(root))
}

/// The folder a workspace's state lives in, per the rules in the module docs.
///
/// The workspace is the nearest ancestor of `cwd` holding `.git`, else `cwd`
/// itself, so a preview made in a sub-folder of a repository can be resolved from
/// its root and the other way round.
pub fn state_dir(cwd: &Path) -> PathBuf {
    if let Some(d) = std::env::var_os("AST_EDIT_STATE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let ws = cwd.ancestors().find(|a| a.join(".git").exists()).unwrap_or(&cwd).to_path_buf();
    let hash = crate::shared::hash::digest(ws.to_string_lossy().as_bytes());
    let base = ws.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".into());
    let key = format!("{base}-{}", &hash[7..19]);
    let root = std::env::var_os("XDG_STATE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    root.join("ast-edit").join("workspaces").join(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confine_refuses_escapes_and_outside_symlinks() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(outer.path().join("secret.py"), "x = 1\n").unwrap();
        let root = root.canonicalize().unwrap();
        let ws = Workspace::new(root.clone());
        assert!(ws.confine("sub").is_ok());
        assert!(ws.confine(".").is_ok());
        assert!(ws.confine("sub/../sub").is_ok());
        assert!(ws.confine("missing/file.py").is_ok(), "left to validation");
        assert!(ws.confine(root.join("sub").to_str().unwrap()).is_ok());
        for bad in ["..", "../secret.py", "sub/../../secret.py", "/etc"] {
            let e = ws.confine(bad).unwrap_err().to_string();
            assert!(e.contains("outside the server's root"), "{bad}: {e}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("secret.py"), root.join("link.py")).unwrap();
            std::os::unix::fs::symlink(outer.path(), root.join("up")).unwrap();
            std::os::unix::fs::symlink(outer.path().join("nothing"), root.join("dangling")).unwrap();
            std::os::unix::fs::symlink(root.join("sub"), root.join("inner")).unwrap();
            for bad in ["link.py", "up", "up/secret.py"] {
                let e = ws.confine(bad).unwrap_err().to_string();
                assert!(e.contains("through a symlink"), "{bad}: {e}");
            }
            assert!(ws.confine("dangling").unwrap_err().to_string().contains("cannot be resolved"));
            assert!(ws.confine("inner").is_ok());
        }
    }
}
