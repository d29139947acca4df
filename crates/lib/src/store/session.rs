//! Sessions: the namespaces of the pending-action store (docs/DESIGN.md §3.8). The
//! command line is the session [`CLI_OWNER`]; each MCP server process draws an owner of
//! its own ([`Locked::new_owner`]). A pending entry, its resolved record and an undo
//! record name the session that staged, resolved or applied them; without an id a
//! session takes only its own, another session's only by explicit id.

use crate::plan::Plan;
use crate::shared::error::Result;
use crate::shared::message::{Name, Say, Text};
use crate::shared::quote::escape_controls;
use crate::shared::text::{ellipsized, plural};
use crate::store::pending::{ActionKind, Locked, PendingAction};

/// The owner of the command line's session, of a library user that names no
/// session, and of every entry, record and undo record written before owners
/// were recorded (store format versions 1 and 2): as before them, the command
/// line resolves and undoes those by default.
pub const CLI_OWNER: &str = "cli";

/// Longest client name kept (characters); a longer one is cut.
pub const MAX_CLIENT_CHARS: usize = 64;

/// Other sessions' pending actions listed in the nothing-pending message; the
/// rest are counted.
pub const MAX_OTHERS_LISTED: usize = 10;

/// Longest label in that list (characters); a longer one is cut.
const MAX_LISTED_LABEL: usize = 120;

/// The caller of the store: whose pending actions `resolve` takes without an id,
/// and whose the new ones are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    owner: String,
    client: Option<String>,
}

impl Default for Session {
    fn default() -> Self {
        Session::cli()
    }
}

impl Session {
    /// The command line's session, [`CLI_OWNER`].
    pub fn cli() -> Self {
        Session { owner: CLI_OWNER.to_string(), client: None }
    }

    /// The session `owner` (from [`Locked::new_owner`]), with the name its client
    /// gave, if any (kept for display only: cut to [`MAX_CLIENT_CHARS`], control
    /// characters escaped, blank taken as none).
    pub fn new(owner: impl Into<String>, client: Option<&str>) -> Self {
        Session { owner: owner.into(), client: client.and_then(clean_client) }
    }

    /// The owner: the namespace's key.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The client's name, if given.
    pub fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    /// True when `owner` is this session's.
    pub fn owns(&self, owner: &str) -> bool {
        self.owner == owner
    }
}

/// A client's name as kept: control characters escaped, cut to
/// [`MAX_CLIENT_CHARS`]; `None` when blank.
fn clean_client(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    Some(ellipsized(&escape_controls(name), MAX_CLIENT_CHARS))
}

/// How an owner is shown: `mcp-1a2b3c (claude-code)`, or `cli`.
pub fn owner_label(owner: &str, client: Option<&str>) -> String {
    match client {
        Some(c) => format!("{owner} ({c})"),
        None => owner.to_string(),
    }
}

impl PendingAction {
    /// Its owner as shown ([`owner_label`]).
    pub fn owner_label(&self) -> String {
        owner_label(&self.owner, self.owner_client.as_deref())
    }
}

/// What follows the nothing-pending sentence when other sessions have pending
/// actions (`others`, newest first): they are named (id, owner, label; at most
/// [`MAX_OTHERS_LISTED`]), and how to resolve one by its id is said in the front
/// end's words ([`Say::ResolveById`]). Empty when `others` is.
pub fn pending_elsewhere(others: &[PendingAction]) -> Text {
    let Some(newest) = others.first() else { return Text::default() };
    let mut t = Text::from(format!("\nOther sessions have {}, which a session resolves only by id:", plural(others.len(), "pending action")));
    for a in others.iter().take(MAX_OTHERS_LISTED) {
        let label = ellipsized(&escape_controls(&a.label), MAX_LISTED_LABEL);
        t.push_str(&format!("\n  {}  {}  {label}", a.id, a.owner_label()));
    }
    if others.len() > MAX_OTHERS_LISTED {
        t = t.lit(format!("\n  … and {} more (", others.len() - MAX_OTHERS_LISTED)).name(Name::PendingList).lit(" lists them all)");
    }
    t.lit("\nResolve one by its id: ").say(Say::ResolveById(newest.id.clone())).lit(".")
}

impl Locked<'_> {
    /// A fresh owner for a new session: `<prefix>-` and 6 hex digits of a hash of
    /// the time and the process id, drawn again while a pending entry or an undo
    /// record of the store already names it (so a restarted process is never
    /// taken for the one before it).
    pub fn new_owner(&self, prefix: &str) -> Result<String> {
        let mut taken: std::collections::HashSet<String> = self.scan()?.actions.into_iter().map(|(s, _)| s.owner).collect();
        taken.extend(self.journal_owners());
        taken.insert(CLI_OWNER.to_string());
        let mut salt = 0u64;
        loop {
            let owner = draw_owner(prefix, salt);
            if !taken.contains(&owner) {
                return Ok(owner);
            }
            salt += 1;
        }
    }

    /// The owners the undo records of the journal name (unreadable ones left out).
    fn journal_owners(&self) -> Vec<String> {
        #[derive(serde::Deserialize)]
        struct Probe {
            #[serde(default = "cli_owner")]
            owner: String,
        }
        let Ok(rd) = std::fs::read_dir(self.journal_dir()) else { return Vec::new() };
        rd.flatten()
            .filter_map(|e| super::read_entry(&e.path().join("record.json")).ok())
            .filter_map(|b| serde_json::from_slice::<Probe>(&b).ok())
            .map(|p| p.owner)
            .collect()
    }

    /// The caller's own pending `ast_edit` action identical to `plan`, if one is
    /// pending (docs/DESIGN.md section 2.8: staging it again returns that one):
    /// staged by this build, from rules with the same digest, over the same files
    /// (absolute paths) with the same bytes before and after. Another session's
    /// is never taken: each session stages its own.
    pub fn identical_own(&self, plan: &Plan) -> Result<Option<PendingAction>> {
        use crate::store::pending_format::{engine_build, rules_digest, rules_of};
        let digest = rules_digest(&rules_of(&plan.request), &plan.request);
        let build = engine_build(self.dir());
        let same_files = |p: &Plan| {
            p.files.len() == plan.files.len()
                && p.files.iter().zip(&plan.files).all(|(a, b)| a.abs == b.abs && a.digest == b.digest && a.new_digest == b.new_digest)
        };
        // Only the entries whose summary matches are read in full (a plan may be
        // megabytes, and every staging asks).
        for (s, _) in self.scan()?.actions {
            if self.session().owns(&s.owner) && s.rules_digest.as_deref() == Some(digest.as_str()) && s.engine_build.is_some() && s.engine_build == build {
                let Ok(a) = self.read(&s.id) else { continue };
                if matches!(&a.kind, ActionKind::AstEdit { plan: p } if same_files(p)) {
                    return Ok(Some(a));
                }
            }
        }
        Ok(None)
    }

    /// The caller's own pending `ast_edit` actions that `plan` would supersede:
    /// the same rules (ops, rule configs and the options they are digested
    /// with), the same `paths` and `globs`, whatever the files' bytes now.
    pub fn same_request_own(&self, plan: &Plan) -> Result<Vec<PendingAction>> {
        use crate::store::pending_format::{rules_digest, rules_of};
        let digest = rules_digest(&rules_of(&plan.request), &plan.request);
        let mut same = Vec::new();
        for (s, _) in self.scan()?.actions {
            if self.session().owns(&s.owner) && s.rules_digest.as_deref() == Some(digest.as_str()) {
                let Ok(a) = self.read(&s.id) else { continue };
                if matches!(&a.kind, ActionKind::AstEdit { plan: p } if p.request.paths == plan.request.paths && p.request.globs == plan.request.globs) {
                    same.push(a);
                }
            }
        }
        Ok(same)
    }

    /// The pending actions of every session but the caller's, newest first.
    pub fn others(&self) -> Result<Vec<PendingAction>> {
        let session = self.session();
        Ok(self.list()?.into_iter().filter(|a| !session.owns(&a.owner)).collect())
    }
}

/// [`CLI_OWNER`] as an owned string, the serde default of an owner.
pub(crate) fn cli_owner() -> String {
    CLI_OWNER.to_string()
}

/// A session owner `<prefix>-<6 hex>` drawn from the time, the process and
/// `salt`; [`Locked::new_owner`] draws until it has one no entry of the store
/// names, and a server that could not take the store's lock in time uses the
/// first draw (docs/DESIGN.md §3.8).
pub fn draw_owner(prefix: &str, salt: u64) -> String {
    let h = crate::shared::hash::digest(format!("{}-{}-{salt}", super::pending::now_nanos(), std::process::id()).as_bytes());
    format!("{prefix}-{}", &h[7..13])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_name_is_kept_for_display_cleaned_and_bounded() {
        assert_eq!(Session::new("mcp-1a2b3c", Some("claude-code")).client(), Some("claude-code"));
        assert_eq!(Session::new("mcp-1a2b3c", Some("  ")).client(), None);
        assert_eq!(Session::new("mcp-1a2b3c", Some("a\u{1b}[31mb")).client(), Some("a\\033[31mb"));
        let long = Session::new("mcp-1a2b3c", Some(&"x".repeat(200)));
        assert!(long.client().unwrap().chars().count() <= MAX_CLIENT_CHARS + 1, "{long:?}");
        assert_eq!(owner_label("mcp-1a2b3c", Some("claude-code")), "mcp-1a2b3c (claude-code)");
        assert_eq!(owner_label(CLI_OWNER, None), "cli");
        assert!(Session::cli().owns("cli") && !Session::cli().owns("mcp-1a2b3c"));
    }
}
