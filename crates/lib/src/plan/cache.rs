//! The scan cache as the runs see it (docs/DESIGN.md section 2.14): where a
//! report, a preview, a search and a rule test keep what they computed of a
//! file (or a test case) and find it next time. What one file gives depends
//! only on the engine build, the rules and the options that change results
//! (the cache's [`EntryCache::run_key`], given by its keeper), the file's path
//! (as shown, and as the rules' `files`/`ignores` read it: from the project's
//! folder), its language and its bytes (a SHA-256 of them, never a time or a
//! size); [`file_key`] joins them, after the kind of entry, so entries of two
//! kinds never share a key. The keeper (`store/scan_cache.rs`) stores entries
//! and bounds them. A result a limit cut short (a file skipped, a case not
//! run) is never stored.

use crate::engine::FileOps;
use crate::request::Request;
use crate::request::walk::Candidate;

/// Where a run keeps and finds what it computed before.
pub trait EntryCache: Sync {
    /// What every key of this run starts with: the engine build, and for a
    /// run of a request the rules' digest and the options that change results;
    /// `None` when the build cannot be identified (its entries could not be
    /// told from another build's): then the run reads and stores nothing.
    fn run_key(&self) -> Option<&str>;
    /// The entry stored under exactly `key` (the keeper checks the whole
    /// key: one whose hash collides is none), if any; anything unreadable is
    /// none.
    fn get(&self, key: &str) -> Option<Vec<u8>>;
    /// Stores `entry` under `key` (atomically: a reader sees all of it or
    /// nothing); a failure to store is no failure of the run.
    fn put(&self, key: &str, entry: Vec<u8>);
}

/// The key of the entry of kind `format` for the file `c` holding `bytes`:
/// the kind, the run's key (`run_key`), the file's path as shown and as read (its
/// `Debug` form: a path that is not UTF-8 stays itself), its language, and
/// `sha256:` of its bytes.
fn file_key(run_key: &str, format: &str, c: &Candidate, bytes: &[u8]) -> String {
    format!("{format}\n{run_key}\n{}\n{:?}\n{}\n{}", c.display, c.path, c.lang, crate::shared::hash::digest(bytes))
}

/// The cache and the key of the entry of kind `format` for the file `c`
/// holding `text` (with `ops`, the ops that apply to it), when the run has a
/// cache and the file is worth an entry: only a run of rules (an ad-hoc
/// edit's patterns are rarely run twice, and their literal prefilter is the
/// cheap path already), and only a file the prefilter lets through (one it
/// leaves alone is not parsed, which costs less than a key).
pub(crate) fn keyed<'c>(
    cache: Option<&'c dyn EntryCache>,
    req: &Request,
    ops: &FileOps<'_>,
    c: &Candidate,
    text: &str,
    format: &str,
) -> Option<(&'c dyn EntryCache, String)> {
    let cache = cache.filter(|_| req.rule_set.is_some() && (req.no_prefilter || ops.may_match(text.as_bytes())))?;
    Some((cache, file_key(cache.run_key()?, format, c, text.as_bytes())))
}

/// What `make` gives, or what `decode` reads of the entry stored under the
/// key (with `cache`) when there is one; a result made is stored as `encode`
/// writes it, unless `encode` gives none (a result a limit cut short, or an
/// error).
pub(crate) fn through<T, E>(
    cache: Option<(&dyn EntryCache, String)>,
    decode: impl FnOnce(&[u8]) -> Option<T>,
    make: impl FnOnce() -> Result<T, E>,
    encode: impl FnOnce(&T) -> Option<Vec<u8>>,
) -> Result<T, E> {
    let Some((cache, key)) = cache else { return make() };
    if let Some(stored) = cache.get(&key).and_then(|entry| decode(&entry)) {
        return Ok(stored);
    }
    let made = make()?;
    if let Some(entry) = encode(&made) {
        cache.put(&key, entry);
    }
    Ok(made)
}
