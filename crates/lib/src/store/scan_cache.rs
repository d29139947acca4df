//! The scan cache on disk (docs/DESIGN.md section 2.14): each file's report
//! of a scan, kept in the state folder (`<state>/scan-cache/`, never in the
//! user's tree) under the SHA-256 of its key (`plan/report_cache.rs`: the
//! engine build, the rules' digest, the file's path, language and bytes). An
//! entry is written to a temporary file and renamed into place, so a reader
//! sees a whole entry or none; it holds its key, so a name that collides is a
//! miss. Entries are not synced: one a crash cut short does not parse and is a
//! miss. The folder is bounded ([`MAX_CACHE_BYTES`]): after a run that stored
//! entries, the least recently used (by modification time, which a hit
//! renews) go until it holds three quarters of the bound.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::plan::report_cache::ReportCache;
use crate::request::Request;
use crate::store::pending_format::{engine_build, rules_digest, rules_of};

/// The most bytes the cache folder holds after a run.
pub const MAX_CACHE_BYTES: u64 = 512 << 20;

/// A workspace's scan cache, for the runs of one request.
pub struct ScanCache {
    dir: PathBuf,
    run_key: String,
    stored: AtomicBool,
}

impl ScanCache {
    /// The cache of the state folder `state_dir` for `req`; `None` when the
    /// running build cannot be identified (its entries could not be told from
    /// another build's).
    pub fn open(state_dir: &Path, req: &Request) -> Option<ScanCache> {
        let build = engine_build(state_dir)?;
        let run_key = format!("{build}\n{}", rules_digest(&rules_of(req), req));
        Some(ScanCache { dir: state_dir.join("scan-cache"), run_key, stored: AtomicBool::new(false) })
    }

    /// Where the entry of `key` lives.
    fn path(&self, key: &str) -> PathBuf {
        let name = crate::shared::hash::digest(key.as_bytes());
        let hex = &name["sha256:".len()..];
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// After a run: when it stored entries, evicts the least recently used
    /// until the folder holds at most three quarters of [`MAX_CACHE_BYTES`].
    /// Returns how many entries went.
    pub fn finish(&self) -> usize {
        if !self.stored.load(Ordering::Relaxed) {
            return 0;
        }
        evict(&self.dir, MAX_CACHE_BYTES, MAX_CACHE_BYTES / 4 * 3)
    }
}

impl ReportCache for ScanCache {
    fn run_key(&self) -> &str {
        &self.run_key
    }

    fn get(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.path(key);
        let file = std::fs::File::open(&path).ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(&file, MAX_ENTRY_BYTES), &mut bytes).ok()?;
        // Used now: the last to be evicted.
        let _ = file.set_modified(std::time::SystemTime::now());
        Some(bytes)
    }

    fn put(&self, key: &str, entry: &[u8]) {
        if entry.len() as u64 > MAX_ENTRY_BYTES {
            return;
        }
        let path = self.path(key);
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let Ok(mut tmp) = tempfile::Builder::new().prefix(".entry-").tempfile_in(dir) else { return };
        if tmp.write_all(entry).is_ok() && tmp.persist(&path).is_ok() {
            self.stored.store(true, Ordering::Relaxed);
        }
    }
}

/// The largest entry stored or read (a file's report bigger than this is made
/// again each time).
const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// Deletes the least recently modified entries of `dir` (two levels: a folder
/// per first byte) while they add up to more than `bound` bytes, down to
/// `target`. Temporary files a run left are entries like the others.
fn evict(dir: &Path, bound: u64, target: u64) -> usize {
    let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
    let Ok(top) = std::fs::read_dir(dir) else { return 0 };
    for sub in top.flatten() {
        let Ok(files) = std::fs::read_dir(sub.path()) else { continue };
        for f in files.flatten() {
            let Ok(m) = f.metadata() else { continue };
            if m.is_file() {
                entries.push((m.modified().unwrap_or(std::time::UNIX_EPOCH), m.len(), f.path()));
            }
        }
    }
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    if total <= bound {
        return 0;
    }
    entries.sort();
    let mut gone = 0;
    for (_, len, path) in entries {
        if total <= target {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total = total.saturating_sub(len);
            gone += 1;
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_drops_the_least_recently_used_down_to_the_target() {
        let d = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        for (i, name) in ["aa/1", "bb/2", "cc/3", "dd/4"].iter().enumerate() {
            let p = d.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, [0u8; 100]).unwrap();
            // 1 is the oldest, 4 the newest.
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(now - std::time::Duration::from_secs(100 - i as u64)).unwrap();
        }
        assert_eq!(evict(d.path(), 400, 200), 0, "within the bound: nothing goes");
        assert_eq!(evict(d.path(), 300, 200), 2);
        assert!(!d.path().join("aa/1").exists() && !d.path().join("bb/2").exists());
        assert!(d.path().join("cc/3").exists() && d.path().join("dd/4").exists());
    }
}
