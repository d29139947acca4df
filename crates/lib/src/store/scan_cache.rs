//! The scan cache on disk (docs/DESIGN.md section 2.14): what a run computed
//! of each file (a report's matches, a preview's rewrite, a search's count
//! and page) or of each rule test case, kept in the state folder
//! (`<state>/scan-cache/`, never in the user's tree) under its key
//! (`plan/cache.rs`: the kind of entry, the engine build, the rules' digest
//! and the options that change results, the file's path, language and
//! bytes).
//!
//! Entries live in packs: a run writes each entry it makes, as it makes it, to
//! a temporary file, renamed into place as a pack when the run ends (or at
//! [`PACK_BYTES`]), so a reader sees a whole pack or none, and a run holds in
//! memory only the index of the pack it writes. A pack is named by the keys it
//! holds: two runs at once that make the same entries write one pack. A pack
//! is never changed after; one that does not read back (cut short by a crash:
//! packs are not synced) is no pack. A pack ends with an index (each key's
//! hash, offset and length); a run reads the indexes of all packs once and an
//! entry when it needs it, and a record holds its whole key, so a hash that
//! collides is a miss. Creating a file per entry cost more
//! than the parse it saves on this kind of disk (170 µs a file).
//!
//! Bounds: after a run, while the packs add up to more than
//! [`MAX_CACHE_BYTES`] (or number more than [`MAX_PACKS`]), the least recently
//! used go (by modification time, which a hit renews).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::plan::cache::EntryCache;
use crate::request::Request;
use crate::store::pending_format::{engine_key, rules_digest, rules_of};

/// The most bytes the packs hold after a run.
pub const MAX_CACHE_BYTES: u64 = 512 << 20;

/// The most packs kept after a run.
pub const MAX_PACKS: usize = 256;

/// A pack being written is closed (and the next one begun) once its records
/// add up to this: eviction drops whole packs, so one run's entries are not
/// one pack of any size.
const PACK_BYTES: u64 = 4 << 20;

/// The largest entry stored (a file's report bigger than this is made again
/// each time).
const MAX_ENTRY_BYTES: usize = 64 << 20;

/// A pack's first bytes, and its last (after the index's place and count).
const MAGIC: &[u8; 8] = b"AEPACK1\n";
const TRAILER: &[u8; 8] = b"AEINDEX1";

/// A workspace's scan cache, for the runs of one request.
pub struct ScanCache {
    state_dir: PathBuf,
    dir: PathBuf,
    /// What the run key holds after the build: the rules' digest and the
    /// options, for a request's runs.
    after_build: String,
    /// The run key, worked out at the first lookup (a run that looks nothing
    /// up, an ad-hoc edit's, neither hashes the executable nor writes its
    /// digest to the state folder); `None` when the build cannot be
    /// identified.
    run_key: OnceLock<Option<String>>,
    /// The packs and their indexes, read at the first lookup.
    indexed: OnceLock<Indexed>,
    /// The pack this run is writing, begun at its first entry.
    writing: Mutex<Option<Writing>>,
}

/// The packs of a cache and what their indexes hold.
struct Indexed {
    packs: Vec<(PathBuf, std::fs::File)>,
    /// Key hash -> (pack, offset, length) of its record.
    index: HashMap<u64, (usize, u64, u32)>,
    /// Per pack, whether this run read an entry of it.
    hit: Mutex<Vec<bool>>,
}

/// A pack being written: its temporary file, holding the records so far, and
/// their index (key hash, offset, record length).
struct Writing {
    file: std::io::BufWriter<tempfile::NamedTempFile>,
    at: u64,
    index: Vec<(u64, u64, u32)>,
}

impl ScanCache {
    /// The cache of the state folder `state_dir` for the runs of `req`: its
    /// keys hold the build and the rules' digest (`engine_key` and
    /// `rules_digest` of `store/pending_format.rs`: the rules and the options
    /// that change what a file becomes) and the steps one file may take (a
    /// file that took more under a higher limit is skipped under a lower
    /// one). Nothing is read before the first lookup.
    pub fn open(state_dir: &Path, req: &Request) -> ScanCache {
        ScanCache::with_key(state_dir, format!("\n{}\nsteps {}", rules_digest(&rules_of(req), req), req.max_steps))
    }

    /// The cache of `state_dir` for runs whose keys start with the build
    /// alone (the rule tests, whose keys name each rule themselves).
    pub fn open_for_build(state_dir: &Path) -> ScanCache {
        ScanCache::with_key(state_dir, String::new())
    }

    /// The cache of `state_dir` whose run keys are the build and then
    /// `after_build`.
    fn with_key(state_dir: &Path, after_build: String) -> ScanCache {
        ScanCache {
            state_dir: state_dir.to_path_buf(),
            dir: state_dir.join("scan-cache"),
            after_build,
            run_key: OnceLock::new(),
            indexed: OnceLock::new(),
            writing: Mutex::new(None),
        }
    }

    /// The packs and their indexes, read once.
    fn indexed(&self) -> &Indexed {
        self.indexed.get_or_init(|| {
            let mut packs = Vec::new();
            let mut index = HashMap::new();
            for path in pack_paths(&self.dir) {
                let Ok(file) = std::fs::File::open(&path) else { continue };
                let Some(entries) = read_index(&path, &file) else { continue };
                for (hash, at, len) in entries {
                    index.insert(hash, (packs.len(), at, len));
                }
                packs.push((path, file));
            }
            let hit = Mutex::new(vec![false; packs.len()]);
            Indexed { packs, index, hit }
        })
    }

    /// After a run: puts the pack of the entries it made in place, renews the
    /// packs it read, and keeps the cache within its bounds. Returns how many
    /// packs went.
    pub fn finish(&self) -> usize {
        let writing = self.writing.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(w) = writing {
            let _ = close_pack(&self.dir, w);
        }
        if let Some(indexed) = self.indexed.get() {
            let hit = indexed.hit.lock().unwrap_or_else(|p| p.into_inner());
            for (k, (_, file)) in indexed.packs.iter().enumerate() {
                if hit[k] {
                    let _ = file.set_modified(std::time::SystemTime::now());
                }
            }
        }
        evict(&self.dir, MAX_CACHE_BYTES, MAX_PACKS)
    }
}

impl EntryCache for ScanCache {
    fn run_key(&self) -> Option<&str> {
        self.run_key.get_or_init(|| engine_key(&self.state_dir).map(|build| format!("{build}{}", self.after_build))).as_deref()
    }

    fn get(&self, key: &str) -> Option<Vec<u8>> {
        let indexed = self.indexed();
        let &(pack, at, len) = indexed.index.get(&key_hash(key))?;
        let mut record = vec![0u8; len as usize];
        let (path, file) = &indexed.packs[pack];
        read_at(path, file, &mut record, at).ok()?;
        let (stored_key, entry) = split_record(&record)?;
        if stored_key != key.as_bytes() {
            return None;
        }
        indexed.hit.lock().unwrap_or_else(|p| p.into_inner())[pack] = true;
        Some(entry.to_vec())
    }

    fn put(&self, key: &str, entry: Vec<u8>) {
        if entry.len() > MAX_ENTRY_BYTES {
            return;
        }
        let mut writing = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if writing.is_none() {
            // A cache that cannot be written costs the next run a parse, nothing more.
            let Ok(w) = begin_pack(&self.dir) else { return };
            *writing = Some(w);
        }
        let Some(w) = writing.as_mut() else { return };
        if append(w, key, &entry).is_err() {
            // The pack begun is dropped whole (its temporary file deleted).
            *writing = None;
            return;
        }
        if w.at >= PACK_BYTES
            && let Some(full) = writing.take()
        {
            let _ = close_pack(&self.dir, full);
        }
    }
}

/// Reads `buf.len()` bytes at `at` of the pack `path`, open as `file` (read
/// at an offset; elsewhere than unix, opened again: no cursor is shared
/// between threads).
fn read_at(path: &Path, file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let _ = path;
        std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let _ = file;
        let mut f = std::fs::File::open(path)?;
        f.seek(std::io::SeekFrom::Start(at))?;
        f.read_exact(buf)
    }
}

/// The first 8 bytes of SHA-256 of `key`: what the index finds a record by.
fn key_hash(key: &str) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(key.as_bytes());
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// The packs of `dir`.
fn pack_paths(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "pack")).collect();
    out.sort();
    out
}

/// A record: the key's length, the key, the entry's length, the entry.
fn split_record(record: &[u8]) -> Option<(&[u8], &[u8])> {
    let klen = u32::from_le_bytes(record.get(..4)?.try_into().ok()?) as usize;
    let key = record.get(4..4 + klen)?;
    let rest = record.get(4 + klen..)?;
    let vlen = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let entry = rest.get(4..4 + vlen)?;
    Some((key, entry))
}

/// The index of a pack: (key hash, offset, record length) of each record;
/// `None` when the pack is not whole.
fn read_index(path: &Path, file: &std::fs::File) -> Option<Vec<(u64, u64, u32)>> {
    let read_exact_at = |buf: &mut [u8], at: u64| read_at(path, file, buf, at);
    let size = file.metadata().ok()?.len();
    let mut magic = [0u8; 8];
    read_exact_at(&mut magic, 0).ok()?;
    let mut tail = [0u8; 20];
    if size < (MAGIC.len() + tail.len()) as u64 || &magic != MAGIC {
        return None;
    }
    read_exact_at(&mut tail, size - 20).ok()?;
    if &tail[12..] != TRAILER {
        return None;
    }
    let at = u64::from_le_bytes(tail[..8].try_into().ok()?);
    let count = u32::from_le_bytes(tail[8..12].try_into().ok()?) as u64;
    if at < MAGIC.len() as u64 || at.checked_add(count.checked_mul(20)?)? != size - 20 {
        return None;
    }
    let mut raw = vec![0u8; (count * 20) as usize];
    read_exact_at(&mut raw, at).ok()?;
    let entries: Vec<(u64, u64, u32)> = raw
        .chunks_exact(20)
        .map(|c| {
            let n = |r: std::ops::Range<usize>| c[r].iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            (n(0..8), n(8..16), n(16..20) as u32)
        })
        .collect();
    entries.iter().all(|&(_, off, len)| off >= MAGIC.len() as u64 && off + u64::from(len) <= at).then_some(entries)
}

/// Begins a pack in `dir`: a temporary file holding the magic bytes.
fn begin_pack(dir: &Path) -> std::io::Result<Writing> {
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::Builder::new().prefix(".pack-").tempfile_in(dir)?;
    let mut file = std::io::BufWriter::new(tmp);
    file.write_all(MAGIC)?;
    Ok(Writing { file, at: MAGIC.len() as u64, index: Vec::new() })
}

/// Adds the record of (`key`, `entry`) to the pack being written.
fn append(w: &mut Writing, key: &str, entry: &[u8]) -> std::io::Result<()> {
    let len = 8 + key.len() + entry.len();
    w.file.write_all(&(key.len() as u32).to_le_bytes())?;
    w.file.write_all(key.as_bytes())?;
    w.file.write_all(&(entry.len() as u32).to_le_bytes())?;
    w.file.write_all(entry)?;
    w.index.push((key_hash(key), w.at, len as u32));
    w.at += len as u64;
    Ok(())
}

/// Ends the pack being written with its index and trailer and renames it into
/// place, named by its keys: the same entries, made in any order, make a pack
/// of the same name (a record is a function of its key).
fn close_pack(dir: &Path, mut w: Writing) -> std::io::Result<()> {
    let mut index = Vec::with_capacity(w.index.len() * 20);
    for (hash, at, len) in &w.index {
        index.extend_from_slice(&hash.to_le_bytes());
        index.extend_from_slice(&at.to_le_bytes());
        index.extend_from_slice(&len.to_le_bytes());
    }
    w.file.write_all(&index)?;
    w.file.write_all(&w.at.to_le_bytes())?;
    w.file.write_all(&(w.index.len() as u32).to_le_bytes())?;
    w.file.write_all(TRAILER)?;
    let tmp = w.file.into_inner().map_err(|e| e.into_error())?;
    let mut keys: Vec<u64> = w.index.iter().map(|&(hash, ..)| hash).collect();
    keys.sort_unstable();
    let keys: Vec<u8> = keys.iter().flat_map(|h| h.to_le_bytes()).collect();
    let name = format!("{}.pack", &crate::shared::hash::digest(&keys)["sha256:".len()..][..24]);
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `entries` as a new pack of `dir` (as a run would, one after another).
#[cfg(test)]
fn write_pack(dir: &Path, entries: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    let mut w = begin_pack(dir)?;
    for (key, entry) in entries {
        append(&mut w, key, entry)?;
    }
    close_pack(dir, w)
}

/// Deletes the least recently modified packs of `dir` while they add up to
/// more than `bound` bytes or number more than `max_packs`, down to three
/// quarters of each; temporary files a crashed run left go when they are an
/// hour old. Returns how many files went.
fn evict(dir: &Path, bound: u64, max_packs: usize) -> usize {
    let mut packs: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
    let mut gone = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(m) = e.metadata() else { continue };
        let modified = m.modified().unwrap_or(std::time::UNIX_EPOCH);
        if e.file_name().to_string_lossy().starts_with(".pack-") {
            if modified.elapsed().is_ok_and(|age| age.as_secs() > 3600) && std::fs::remove_file(e.path()).is_ok() {
                gone += 1;
            }
        } else if m.is_file() && e.path().extension().is_some_and(|x| x == "pack") {
            packs.push((modified, m.len(), e.path()));
        }
    }
    let mut total: u64 = packs.iter().map(|p| p.1).sum();
    if total <= bound && packs.len() <= max_packs {
        return gone;
    }
    packs.sort();
    let mut left = packs.len();
    for (_, len, path) in packs {
        if total <= bound / 4 * 3 && left <= max_packs / 4 * 3 {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total = total.saturating_sub(len);
            left -= 1;
            gone += 1;
        }
    }
    gone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_reads_back_what_was_written_and_a_cut_one_reads_as_none() {
        let d = tempfile::tempdir().unwrap();
        let entries = vec![("k1".to_string(), b"one".to_vec()), ("key two".to_string(), b"second entry".to_vec())];
        write_pack(d.path(), &entries).unwrap();
        let path = pack_paths(d.path()).pop().unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let index = read_index(&path, &file).unwrap();
        assert_eq!(index.len(), 2);
        for ((key, entry), (hash, at, len)) in entries.iter().zip(index) {
            assert_eq!(hash, key_hash(key));
            let mut record = vec![0u8; len as usize];
            read_at(&path, &file, &mut record, at).unwrap();
            assert_eq!(split_record(&record).unwrap(), (key.as_bytes(), entry.as_slice()));
        }
        let bytes = std::fs::read(&path).unwrap();
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(read_index(&path, &std::fs::File::open(&path).unwrap()).is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn the_same_entries_made_in_another_order_make_a_pack_of_the_same_name() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let entries = vec![("k1".to_string(), b"one".to_vec()), ("k2".to_string(), b"two".to_vec()), ("k3".to_string(), b"three".to_vec())];
        let mut reversed = entries.clone();
        reversed.reverse();
        write_pack(a.path(), &entries).unwrap();
        write_pack(b.path(), &reversed).unwrap();
        let (pa, pb) = (pack_paths(a.path()), pack_paths(b.path()));
        assert_eq!(pa.len(), 1);
        assert_eq!(pa[0].file_name(), pb[0].file_name());
        assert_ne!(std::fs::read(&pa[0]).unwrap(), std::fs::read(&pb[0]).unwrap(), "the records are in the order they were made");
        write_pack(a.path(), &entries[..2]).unwrap();
        assert_eq!(pack_paths(a.path()).len(), 2, "other keys, another pack");
    }

    #[test]
    fn a_run_writes_its_entries_as_it_makes_them_and_puts_the_pack_in_place_at_its_end() {
        let d = tempfile::tempdir().unwrap();
        let cache = ScanCache::open_for_build(d.path());
        let dir = d.path().join("scan-cache");
        cache.put("key one", b"entry one".to_vec());
        cache.put("key two", vec![7u8; 1000]);
        let temporary: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        assert!(temporary.len() == 1 && temporary[0].starts_with(".pack-"), "{temporary:?}");
        assert!(pack_paths(&dir).is_empty(), "no pack before the run ends");
        assert_eq!(cache.finish(), 0);
        let packs = pack_paths(&dir);
        assert_eq!(packs.len(), 1);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "the temporary file became the pack");
        let again = ScanCache::open_for_build(d.path());
        assert_eq!(again.get("key one").as_deref(), Some(&b"entry one"[..]));
        assert_eq!(again.get("key two"), Some(vec![7u8; 1000]));
        assert_eq!(again.get("key three"), None);
    }

    #[test]
    fn eviction_drops_the_least_recently_used_packs() {
        let d = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        for i in 0..4u64 {
            let p = d.path().join(format!("{i}.pack"));
            std::fs::write(&p, [0u8; 100]).unwrap();
            // 0 is the oldest, 3 the newest.
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(now - std::time::Duration::from_secs(100 - i)).unwrap();
        }
        assert_eq!(evict(d.path(), 400, 10), 0, "within the bounds: nothing goes");
        assert_eq!(evict(d.path(), 300, 10), 2, "down to three quarters of 300 bytes");
        assert_eq!(pack_paths(d.path()), [d.path().join("2.pack"), d.path().join("3.pack")]);
        assert_eq!(evict(d.path(), 1000, 1), 2, "more packs than the bound: all but three quarters of it");
    }
}
