//! The rule tests' entries in the scan cache (`plan/cache.rs`, docs/DESIGN.md
//! section 2.14): what a rule gives on one case, whether it matches the code
//! or the snapshot of its first match ([`super::generate`]), keyed by the
//! engine build (the cache's run key), the rule as tested (its config, every
//! global utility of the project, which it may call) and a hash of the
//! case's code. The verdict is judged from it as from a result just made: a
//! kept snapshot, `--skip-snapshot-tests` and `-U` are not in the key. A case
//! a limit stopped is not stored.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::plan::cache::EntryCache;
use crate::request::read::SkipReason;
use crate::rules::project::Utils;
use crate::shared::hash::digest;

/// The entries' format; a change of it changes every key.
const FORMAT: &str = "ast-edit rule test cache 1";

/// Where the cases of one tested rule are stored, and under what.
pub(super) struct CaseKeys<'c> {
    cache: &'c dyn EntryCache,
    /// The cache's run key, the format and the rule's digest.
    prefix: String,
}

impl<'c> CaseKeys<'c> {
    /// The keys of the cases of the rule `config` (its JSON, as the tests
    /// build it) in a project with the global utilities `utils`; `None` when
    /// the cache has no run key (an unknown build).
    pub(super) fn new(cache: &'c dyn EntryCache, config: &serde_json::Value, utils: &Utils) -> Option<CaseKeys<'c>> {
        let run_key = cache.run_key()?;
        let utils: Vec<serde_json::Value> = utils.json.iter().map(|u| u.json()).collect();
        let rule = digest(&serde_json::to_vec(&(config, utils)).expect("plain data serializes"));
        Some(CaseKeys { cache, prefix: format!("{FORMAT}\n{run_key}\n{rule}") })
    }

    /// Whether the rule matches `code`.
    pub(super) fn matches(&self, code: &str) -> (&'c dyn EntryCache, String) {
        (self.cache, format!("{}\nmatches\n{}", self.prefix, digest(code.as_bytes())))
    }

    /// The snapshot the rule gives on `code`.
    pub(super) fn snapshot(&self, code: &str) -> (&'c dyn EntryCache, String) {
        (self.cache, format!("{}\nsnapshot\n{}", self.prefix, digest(code.as_bytes())))
    }
}

/// What `make` gives (a result, or the limit that stopped the case), or the
/// result stored under the key, when there is one; a result made is stored.
pub(super) fn through<T: Serialize + DeserializeOwned>(
    key: Option<(&dyn EntryCache, String)>,
    make: impl FnOnce() -> std::result::Result<T, SkipReason>,
) -> std::result::Result<T, SkipReason> {
    crate::plan::cache::through(key, |entry| serde_json::from_slice(entry).ok(), make, |made| serde_json::to_vec(made).ok())
}
