//! The on-disk shapes of the pending-action store (see [`crate::store::pending`] for the
//! layout and the rules): format version 4 of `pending/<id>.json` and of
//! `resolved/<id>.json` (and the reading of versions 1 to 3), the rules an
//! `ast_edit` entry records (ast-grep rule configs), their digest, and the build
//! identity of the running executable.
//!
//! Every file starts with `formatVersion`; a reader looks at that number first and
//! only then at the rest, so a later version may change everything else.

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::request::Request;
use crate::request::ruleset::OpRule;
use crate::store::pending::{ActionKind, PendingAction, ResolvedRecord};

/// The format version this build writes, and the newest it reads.
///
/// Version 4: the plan of an `ast_edit` entry is written as the store's own
/// entry type (`store/stored_plan.rs`), whose every field is named there,
/// where version 3 wrote the library's [`crate::plan::Plan`] as it serialized
/// itself. The JSON is byte for byte the shape of version 3 (the same names
/// in the same order; the entries of tests/data/store-v3/ are written back
/// unchanged but for the version), so this build reads version 3 with the
/// same types; the version says which code wrote the entry.
///
/// Version 3 records the session that staged an entry (`owner`,
/// `ownerClient`; in a resolved record too), which version 2 did not: an
/// entry or record without them belongs to the session `cli`
/// ([`crate::store::session::CLI_OWNER`]). Version 2 keeps a plan's warnings
/// and skip reasons typed ([`crate::plan::warning::Warning`],
/// [`crate::request::read::SkipReason`]) where version 1 kept them worded;
/// everything else is the same, so this build reads versions 1, 2 and 3 too
/// (version 1's worded texts as they are).
pub const FORMAT_VERSION: u32 = 4;

/// The oldest format version this build reads.
pub const OLDEST_FORMAT_VERSION: u32 = 1;

/// The rules of `req` as ast-grep rule configs (JSON), in order: a rule set's
/// configs as they are stored (keys sorted), or each op as `OpRule` with the
/// request's language (`null` when it is inferred per file).
pub fn rules_of(req: &Request) -> Vec<serde_json::Value> {
    if let Some(set) = &req.rule_set {
        return set.rules.iter().map(|r| r.json()).collect();
    }
    (0..req.ops.len()).map(|i| serde_json::to_value(OpRule::of(req, i, req.lang)).expect("plain data serializes")).collect()
}

/// What `rulesDigest` hashes: the rules and every request option that can change
/// what a planned file becomes. Left out on purpose: `paths`, `globs`, `maxFiles`,
/// `walk` and `maxFilesize` (they choose which files are planned, not what a
/// planned file becomes) and the working directory.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DigestInput<'a> {
    /// Pattern, rewrite, language, selector and strictness of every op, in order
    /// (the order decides which of two overlapping matches is kept).
    rules: &'a [serde_json::Value],
    /// The literal prefilter is meant not to change any output, but a plan is
    /// only known to be reproduced by the same path through the engine.
    no_prefilter: bool,
    /// A rule set's global utilities (rules may call them).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    utils: &'a [crate::request::rule::Util],
    /// The folder a rule set's `files`/`ignores` globs are relative to.
    #[serde(skip_serializing_if = "Option::is_none")]
    rules_base: Option<&'a std::path::Path>,
    /// Nested matches rewritten in the same preview.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rewrite_nested: bool,
    /// ast-grep's template output written as is, not the minimal rewrite.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    verbatim: bool,
    /// A project's `languageGlobs`: the language a file is parsed as.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    language_globs: &'a [(String, Vec<String>)],
    /// A project's `languageInjections`: the regions of embedded code rewritten.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    language_injections: &'a [serde_json::Value],
}

/// `rulesDigest`: `sha256:` and the hex SHA-256 of the canonical serialization of
/// `rules` with the request options of `req` that change what a planned file
/// becomes (`noPrefilter`, a rule set's `utils`, base folder, `languageGlobs` and
/// `languageInjections`, `rewriteNested`, `verbatim`; the empty ones left out, so a
/// digest without them is what it was before they counted). Canonical: compact JSON as `serde_json` writes it, keys in this
/// order: `{"rules":[{"id","language","rule":{"pattern"},"fix"}...],"noPrefilter":false}`.
/// Left out: `paths`, `globs`, `maxFiles`, `walk`, `maxFilesize` and the working
/// directory, which choose the files that are planned, not what they become.
pub fn rules_digest(rules: &[serde_json::Value], req: &Request) -> String {
    let set = req.rule_set.as_ref();
    let input = DigestInput {
        rules,
        no_prefilter: req.no_prefilter,
        utils: set.map_or(&[][..], |s| &s.utils[..]),
        rules_base: set.and_then(|s| s.base.as_deref()),
        rewrite_nested: req.rewrite_nested,
        verbatim: req.verbatim,
        language_globs: set.map_or(&[][..], |s| &s.language_globs[..]),
        language_injections: set.map_or(&[][..], |s| &s.language_injections[..]),
    };
    crate::shared::hash::digest(&serde_json::to_vec(&input).expect("plain data serializes"))
}

/// The build identity of the running executable: `sha256:<hex>` of its bytes,
/// worked out once per process, and once per executable file for all processes:
/// the digest is kept in `state_dir/engine-builds.json` under the file's identity
/// (device, inode, size, modification and change times), so a later process of
/// the same binary reads it instead of hashing ~80 MB again (~50 ms). Replacing
/// or rebuilding the binary gives a new file identity, hence a fresh hash; the
/// cache is no more trusted than the pending entries beside it. `None` when the
/// executable cannot be read.
pub fn engine_build(state_dir: &Path) -> Option<String> {
    static BUILD: OnceLock<Option<String>> = OnceLock::new();
    BUILD.get_or_init(|| cached_or_hashed(state_dir)).clone()
}

/// What tells this build's scan-cache entries from another's: the running
/// executable's file identity ([`executable_identity`]: device, inode, size,
/// modification and change times; a rebuilt, replaced or rewritten binary has
/// another, as `engine-builds.json` already trusts), else its digest
/// ([`engine_build`]). Unlike the digest it costs no read of the binary, which
/// a first run in a fresh state dir would pay (~50 ms, more than a small
/// project's whole scan); a copy of the same binary elsewhere merely starts
/// its own entries.
pub fn engine_key(state_dir: &Path) -> Option<String> {
    match executable_identity() {
        Some(id) => Some(format!("executable {id}")),
        None => engine_build(state_dir),
    }
}

/// The file of the build-identity cache in a state dir.
const BUILD_CACHE: &str = "engine-builds.json";

/// Entries kept in the cache (one per binary seen; the oldest keys go first).
const BUILD_CACHE_MAX: usize = 16;

fn cached_or_hashed(state_dir: &Path) -> Option<String> {
    let Some(key) = executable_identity() else { return hash_executable() };
    let path = state_dir.join(BUILD_CACHE);
    let mut cache: std::collections::BTreeMap<String, String> = super::read_entry(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    if let Some(d) = cache.get(&key).filter(|d| d.starts_with("sha256:") && d.len() == 7 + 64) {
        return Some(d.clone());
    }
    let digest = hash_executable()?;
    while cache.len() >= BUILD_CACHE_MAX {
        cache.pop_first();
    }
    cache.insert(key, digest.clone());
    // A cache that cannot be written costs the next process a hash, nothing more.
    let _ = serde_json::to_vec(&cache).map(|b| crate::shared::atomic::write_atomic(&path, &b));
    Some(digest)
}

/// What identifies the running executable's file: device, inode, size,
/// modification and change times. `None` where that cannot be read.
fn executable_identity() -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata("/proc/self/exe").or_else(|_| std::fs::metadata(std::env::current_exe()?)).ok()?;
        Some(format!("{}:{}:{}:{}.{:09}:{}.{:09}", m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// `sha256:` and the hex SHA-256 of the running executable. On Linux it reads
/// `/proc/self/exe`, the image that is running even if its file was replaced
/// since; elsewhere `std::env::current_exe()`.
fn hash_executable() -> Option<String> {
    let mut file = None;
    if cfg!(target_os = "linux") {
        file = std::fs::File::open("/proc/self/exe").ok();
    }
    let mut file = match file {
        Some(f) => f,
        None => std::fs::File::open(std::env::current_exe().ok()?).ok()?,
    };
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
    }
    Some(crate::shared::hash::finish(h))
}

/// The first thing read from any file of the store.
#[derive(Deserialize)]
struct Header {
    #[serde(rename = "formatVersion")]
    format_version: Option<u64>,
}

/// Why a file of the store cannot be used.
#[derive(Debug)]
pub enum Unreadable {
    /// Not JSON, or not the shape its version says.
    Malformed(String),
    /// Written in a format version newer than [`FORMAT_VERSION`].
    Newer(u64),
    /// A format version this build never wrote.
    Unknown(u64),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Malformed(e) => write!(f, "{e}"),
            Unreadable::Newer(v) => write!(f, "written by a newer ast-edit (format version {v}; this one reads up to version {FORMAT_VERSION})"),
            Unreadable::Unknown(v) => write!(f, "unknown format version {v}"),
        }
    }
}

/// The `formatVersion` of a file holding a `what`, checked against this build's.
fn header(bytes: &[u8], what: &str) -> Result<Option<u64>, Unreadable> {
    let h: Header = serde_json::from_slice(bytes).map_err(|e| Unreadable::Malformed(format!("unreadable {what} (not a JSON object: {e})")))?;
    match h.format_version {
        None => Ok(None),
        Some(v) if (u64::from(OLDEST_FORMAT_VERSION)..=u64::from(FORMAT_VERSION)).contains(&v) => Ok(Some(v)),
        Some(v) if v > u64::from(FORMAT_VERSION) => Err(Unreadable::Newer(v)),
        Some(v) => Err(Unreadable::Unknown(v)),
    }
}

/// Reads a pending entry (version 1 to 4; one without `formatVersion` came
/// from a build before the first release and is not read).
pub fn decode_entry(bytes: &[u8]) -> Result<PendingAction, Unreadable> {
    let a: PendingAction = decode_as(bytes)?;
    ordered(a.order)?;
    Ok(a)
}

/// The largest order a store gives: 2^62 nanoseconds since 1970 (the year 2116).
/// Orders run ahead of the clock only as far as a clock set back leaves them
/// (`Locked::next_order`, tests/it/store.rs), never this far.
pub(crate) const MAX_ORDER: u64 = 1 << 62;

/// An order no store gives (past [`MAX_ORDER`]: a hand-edited or damaged
/// entry) is refused: it would rank first, and every order after it would tie
/// at `u64::MAX`.
pub(crate) fn ordered(order: u64) -> Result<(), Unreadable> {
    if sane_order(order) {
        return Ok(());
    }
    Err(Unreadable::Malformed(format!("its order {order} is past 2^62 nanoseconds since 1970 (the year 2116), which no store gives")))
}

/// True when `order` is at most [`MAX_ORDER`].
pub(crate) fn sane_order(order: u64) -> bool {
    order <= MAX_ORDER
}

/// Reads what [`Head`] holds of a pending entry, with the checks of
/// [`decode_entry`] but the shape of the plan: skipping it is a scan of its
/// bytes, reading it builds every file's text twice over.
pub(crate) fn decode_head(bytes: &[u8]) -> Result<Head, Unreadable> {
    let h: Head = decode_as(bytes)?;
    ordered(h.order)?;
    Ok(h)
}

fn decode_as<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Unreadable> {
    match header(bytes, "pending action")? {
        Some(_) => serde_json::from_slice::<T>(bytes).map_err(|e| Unreadable::Malformed(format!("unreadable pending action ({e})"))),
        None => Err(Unreadable::Malformed("unreadable pending action (no formatVersion)".into())),
    }
}

/// What the store reads of every pending entry to order, expire, find and
/// match them (`store/retention.rs`, [`crate::store::pending::Locked::get`],
/// `store/session.rs`): the fields of a [`PendingAction`] but the `files`,
/// `rules` and what its `kind` holds besides its `type`, which are only
/// checked to be there. A plan may be megabytes; it is read in full only for
/// the action that is used or listed.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Head {
    pub(crate) id: String,
    pub(crate) order: u64,
    pub(crate) created_at: String,
    pub(crate) label: String,
    pub(crate) source_tool_name: String,
    #[serde(default = "crate::store::session::cli_owner")]
    pub(crate) owner: String,
    #[serde(default)]
    pub(crate) owner_client: Option<String>,
    #[serde(default)]
    pub(crate) engine_build: Option<String>,
    #[serde(default)]
    pub(crate) rules_digest: Option<String>,
    #[serde(rename = "files")]
    _files: serde::de::IgnoredAny,
    #[serde(rename = "kind")]
    _kind: KindTag,
}

/// The `type` of an entry's `kind`; the rest is skipped.
#[derive(Clone, Debug, Deserialize)]
struct KindTag {
    #[serde(rename = "type")]
    _tag: Tag,
}

/// The kinds of [`ActionKind`], by their tag.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Tag {
    AstEdit,
    Command,
}

impl PendingAction {
    /// What a [`Head`] holds of it.
    pub(crate) fn head(&self) -> Head {
        Head {
            id: self.id.clone(),
            order: self.order,
            created_at: self.created_at.clone(),
            label: self.label.clone(),
            source_tool_name: self.source_tool_name.clone(),
            owner: self.owner.clone(),
            owner_client: self.owner_client.clone(),
            engine_build: self.engine_build.clone(),
            rules_digest: self.rules_digest.clone(),
            _files: serde::de::IgnoredAny,
            _kind: KindTag {
                _tag: match self.kind {
                    ActionKind::AstEdit { .. } => Tag::AstEdit,
                    ActionKind::Command { .. } => Tag::Command,
                },
            },
        }
    }
}

/// A pending entry as written (version 4). Entries of builds of version 1 also
/// hold `seq`, a copy of `order` that nothing reads (tests/data/store-v1/ holds
/// one); entries of versions 1 and 2 have no `owner` and `ownerClient`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    format_version: u32,
    id: &'a str,
    order: u64,
    created_at: &'a str,
    label: &'a str,
    source_tool_name: &'a str,
    files: &'a [String],
    owner: &'a str,
    owner_client: &'a Option<String>,
    engine_build: &'a Option<String>,
    rules: &'a [serde_json::Value],
    rules_digest: &'a Option<String>,
    kind: &'a ActionKind,
}

/// Writes `a` as an entry of `FORMAT_VERSION`.
pub fn encode_entry(a: &PendingAction, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let e = Entry {
        format_version: FORMAT_VERSION,
        id: &a.id,
        order: a.order,
        created_at: &a.created_at,
        label: &a.label,
        source_tool_name: &a.source_tool_name,
        files: &a.files,
        owner: &a.owner,
        owner_client: &a.owner_client,
        engine_build: &a.engine_build,
        rules: &a.rules,
        rules_digest: &a.rules_digest,
        kind: &a.kind,
    };
    serde_json::to_writer(w, &e).map_err(std::io::Error::from)
}

/// A resolved record as written (version 4, the same as version 3: versions 1
/// and 2 had no `owner` and `ownerClient`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Resolved<'a> {
    format_version: u32,
    #[serde(flatten)]
    record: &'a ResolvedRecord,
}

/// The bytes of a resolved record of [`FORMAT_VERSION`].
pub(crate) fn encode_resolved(r: &ResolvedRecord) -> Vec<u8> {
    serde_json::to_vec(&Resolved { format_version: FORMAT_VERSION, record: r }).expect("plain data serializes")
}

/// Reads a resolved record (version 1 to 4; there is no older one).
pub(crate) fn decode_resolved(bytes: &[u8]) -> Result<ResolvedRecord, Unreadable> {
    match header(bytes, "resolved record")? {
        Some(_) => serde_json::from_slice(bytes).map_err(|e| Unreadable::Malformed(format!("unreadable resolved record ({e})"))),
        None => Err(Unreadable::Malformed("unreadable resolved record (no formatVersion)".into())),
    }
}

/// The order a pending entry or a resolved record holds, whatever else is in
/// it; `None` if it has none.
pub(crate) fn order_of(bytes: &[u8]) -> Option<u64> {
    #[derive(Deserialize)]
    struct Probe {
        order: Option<u64>,
    }
    serde_json::from_slice::<Probe>(bytes).ok()?.order
}

/// The order a journal record's folder name starts with: `{order:020}-{id}`.
pub(crate) fn journal_order(folder: &str) -> Option<u64> {
    folder.split_once('-')?.0.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_digest_is_cached_per_executable_file() {
        let dir = tempfile::tempdir().unwrap();
        let first = cached_or_hashed(dir.path()).expect("the test binary is readable");
        assert_eq!(first, hash_executable().unwrap());
        let cache: std::collections::BTreeMap<String, String> = serde_json::from_slice(&std::fs::read(dir.path().join(BUILD_CACHE)).unwrap()).unwrap();
        assert_eq!(cache.get(&executable_identity().unwrap()), Some(&first));
        // The next process reads the cache instead of hashing: a planted entry
        // for this very file is what it returns.
        let planted = format!("sha256:{}", "a".repeat(64));
        let one: std::collections::BTreeMap<_, _> = [(executable_identity().unwrap(), planted.clone())].into();
        std::fs::write(dir.path().join(BUILD_CACHE), serde_json::to_vec(&one).unwrap()).unwrap();
        assert_eq!(cached_or_hashed(dir.path()), Some(planted));
        // A malformed entry or cache is ignored and rewritten.
        std::fs::write(dir.path().join(BUILD_CACHE), b"not json").unwrap();
        assert_eq!(cached_or_hashed(dir.path()), Some(first));
    }
    use crate::request::{RawRequest, WalkOptions};

    fn request(json: &str) -> Request {
        let cwd = std::env::current_dir().unwrap();
        RawRequest::from_json(json).unwrap().validate(&cwd, WalkOptions::default(), 1 << 20).unwrap()
    }

    #[test]
    fn ad_hoc_ops_become_rule_configs_as_ast_grep_writes_them() {
        let r = request(r#"{"ops":[{"pat":"a($X)","out":"b($X)"},{"pat":"c","out":""}],"lang":"py"}"#);
        let rules = serde_json::to_value(rules_of(&r)).unwrap();
        assert_eq!(
            rules,
            serde_json::json!([
                {"id": "op-0", "language": "python", "rule": {"pattern": "a($X)"}, "fix": "b($X)"},
                {"id": "op-1", "language": "python", "rule": {"pattern": "c"}, "fix": ""},
            ])
        );
        let r = request(r#"{"ops":[{"pat":"f(x)","out":"g(x)"}],"selector":"call","strictness":"ast"}"#);
        assert_eq!(
            serde_json::to_value(rules_of(&r)).unwrap(),
            serde_json::json!([{"id": "op-0", "language": null,
                "rule": {"pattern": {"context": "f(x)", "selector": "call", "strictness": "ast"}}, "fix": "g(x)"}])
        );
        let r = request(r#"{"ops":[{"pat":"f(x)","out":"g(x)"}],"strictness":"cst"}"#);
        assert_eq!(serde_json::to_value(rules_of(&r)).unwrap()[0]["rule"], serde_json::json!({"pattern": {"context": "f(x)", "strictness": "cst"}}));
        let back: Vec<OpRule> = serde_json::from_value(serde_json::to_value(rules_of(&r)).unwrap()).unwrap();
        assert_eq!(back, vec![OpRule::of(&r, 0, r.lang)]);
    }

    #[test]
    fn rules_digest_changes_with_output_options_only() {
        let base = request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py"}"#);
        let d = |r: &Request| rules_digest(&rules_of(r), r);
        assert!(d(&base).starts_with("sha256:") && d(&base).len() == 71);
        assert_eq!(d(&base), d(&base.clone()));
        let mut other = base.clone();
        other.globs = vec!["*.py".into()];
        other.max_files = Some(3);
        other.paths = vec!["src".into()];
        assert_eq!(d(&base), d(&other), "file selection is not part of the digest");
        for change in [
            request(r#"{"ops":[{"pat":"a","out":"c"}],"lang":"py"}"#),
            request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"js"}"#),
            request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py","strictness":"ast"}"#),
            request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py","selector":"x"}"#),
            request(r#"{"ops":[{"pat":"a","out":"b"}],"lang":"py","verbatim":true}"#),
        ] {
            assert_ne!(d(&base), d(&change));
        }
        let mut np = base.clone();
        np.no_prefilter = true;
        assert_ne!(d(&base), d(&np));
        // A rule set's languageGlobs and languageInjections change what a file
        // becomes; empty, they leave the digest as it was without them.
        let rules = request(r#"{"rule":"id: r\nlanguage: js\nrule: {pattern: a}\nfix: b\n"}"#);
        let mut globs = rules.clone();
        globs.rule_set.as_mut().unwrap().language_globs = vec![("html".into(), vec!["*.vue".into()])];
        let mut injected = rules.clone();
        injected.rule_set.as_mut().unwrap().language_injections =
            vec![serde_json::json!({"hostLanguage": "js", "rule": {"pattern": "styled`$CONTENT`"}, "injected": "css"})];
        assert_ne!(d(&rules), d(&globs));
        assert_ne!(d(&rules), d(&injected));
    }

    /// The pending entries of tests/data/store-v3/, written by a build that
    /// serialized the library's plan itself: this build reads them into a
    /// plan and writes them back byte for byte, but for the version.
    #[test]
    fn entries_of_version_3_are_written_back_as_version_4_byte_for_byte() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/store-v3");
        for entry in ["run/state/pending/ae-9c4438.json", "scan/state/pending/ae-34d8d9.json"] {
            let bytes = std::fs::read(data.join(entry)).unwrap();
            let action = decode_entry(&bytes).unwrap_or_else(|e| panic!("{entry}: {e}"));
            let ActionKind::AstEdit { plan } = &action.kind else { panic!("{entry} is an ast_edit entry") };
            assert!(!plan.files.is_empty() && !plan.warnings.is_empty() || plan.request.rule_set.is_some(), "{entry}");
            let mut again = Vec::new();
            encode_entry(&action, &mut again).unwrap();
            let v3 = String::from_utf8(bytes).unwrap();
            let v4 = v3.replacen(r#"{"formatVersion":3,"#, r#"{"formatVersion":4,"#, 1);
            assert_ne!(v3, v4);
            assert_eq!(String::from_utf8(again).unwrap(), v4, "{entry}");
        }
    }

    #[test]
    fn versions_are_told_apart_before_the_rest_is_read() {
        assert!(matches!(decode_entry(br#"{"formatVersion": 5, "anything": []}"#), Err(Unreadable::Newer(5))));
        assert!(matches!(decode_entry(br#"{"formatVersion": 0}"#), Err(Unreadable::Unknown(0))));
        assert!(matches!(decode_entry(b"garbage"), Err(Unreadable::Malformed(_))));
        assert!(matches!(decode_entry(br#"{"id": "x"}"#), Err(Unreadable::Malformed(_))));
        assert!(Unreadable::Newer(2).to_string().contains("newer ast-edit"));
    }

    #[test]
    fn orders_come_from_order_seq_and_journal_folder_names() {
        assert_eq!(order_of(br#"{"formatVersion":1,"order":7,"seq":7}"#), Some(7));
        assert_eq!(order_of(br#"{"seq":3,"kind":{}}"#), None);
        assert_eq!(order_of(b"nope"), None);
        assert_eq!(journal_order("000000000012-ae-1a2b3c"), Some(12));
        assert_eq!(journal_order("01763966116000000000-run-U"), Some(1_763_966_116_000_000_000));
        assert_eq!(journal_order("junk"), None);
    }
}
