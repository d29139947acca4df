//! The workflows the front ends run on a finished dry run, written once: stage
//! it as a pending action (the preview), or apply it at once (`run -U`, and the
//! files a person accepted in the CLI's interactive review), recording the apply
//! in the details with [`PreviewDetails::record_apply`]. Front ends only
//! gather input and render what these return. Resolving a staged action is
//! [`crate::app::resolve`].

use crate::apply::{self, ApplyOptions, ApplyOutcome};
use crate::plan::preview::{self, PreviewDetails};
use crate::plan::warm::{Written, warm};
use crate::plan::{Plan, RuleCount};
use crate::shared::error::Result;
use crate::shared::message::Words;
use crate::shared::status::FileStatus;
use crate::store::pending::{ActionKind, NewAction, Store};
use crate::store::scan_cache::ScanCache;

/// A dry run made ready to show: its details, built once, and for a rule scan
/// what each rule changed.
#[derive(Clone, Debug)]
pub struct Preview {
    /// The preview details (id and `pending` once staged).
    pub details: PreviewDetails,
    /// For a rule scan: what each rule changed (empty for an ad-hoc edit).
    pub per_rule: Vec<RuleCount>,
    /// True when [`stage`] staged nothing new because the session already had
    /// this very action pending (the details carry its id).
    pub already_pending: bool,
}

impl Preview {
    /// The details of `plan` before anything is staged or written, worded for
    /// `words`.
    pub fn of(plan: &Plan, words: &dyn Words) -> Self {
        let per_rule = plan.per_rule();
        Preview { details: preview::details(plan, &per_rule, words), per_rule, already_pending: false }
    }
}

/// Stages `plan` as a pending `ast_edit` action of the store's session when it
/// has replacements (otherwise nothing is staged and the status stays
/// `no_changes`); the preview is in the words of `words`. When the session
/// already has an identical action pending (same rules digest and build, same
/// files with the same bytes: [`crate::store::pending::Locked::identical_own`]),
/// nothing new is staged: the details carry that action's id, and a warning says
/// so. A pending action of the session with the same ops and paths (whose
/// files changed since) is superseded by the new one: its id then answers
/// with the new id, and a warning says so.
pub fn stage(store: &Store, plan: Plan, words: &dyn Words) -> Result<Preview> {
    let mut shown = Preview::of(&plan, words);
    if plan.files.is_empty() {
        return Ok(shown);
    }
    let locked = store.lock()?;
    if let Some(same) = locked.identical_own(&plan)? {
        shown.details = shown.details.staged(same.id.clone());
        shown.already_pending = true;
        shown.details.warnings.push(format!(
            "this preview is identical to pending action {}, staged at {} by this session: nothing new was staged, and its id is given again",
            same.id, same.created_at
        ));
        return Ok(shown);
    }
    let superseded = locked.same_request_own(&plan)?;
    let files = plan.files.iter().map(|f| f.path.clone()).collect();
    let action = locked.push(NewAction {
        label: shown.details.label.clone(),
        source_tool_name: preview::SOURCE_TOOL.to_string(),
        files,
        kind: ActionKind::AstEdit { plan: Box::new(plan) },
    })?;
    for old in &superseded {
        locked.supersede(old, &action.id)?;
        shown.details.warnings.push(format!(
            "this preview supersedes pending action {} (the same ops and paths, staged at {} by this session), which can no longer be resolved: resolve {} instead",
            old.id, old.created_at, action.id
        ));
    }
    shown.details = shown.details.staged(action.id);
    Ok(shown)
}

/// Applies `plan`, made moments before by this same process, with the verified
/// writer, journalled for `undo` under a fresh action id and `label` (the
/// preview's): every selected file must still have the bytes the plan was made
/// from, and the planned edits are spliced onto them. `opts` say which files
/// (`only`, `skip_flagged`) and which flagged files may be written; the plan is
/// always trusted (`trust_plan`: this process just made it). With `cache`, the
/// files written are then stored in the scan cache as the plan's rules make
/// them ([`cache_written`]), once the store is unlocked. Returns the id, which
/// `undo --id` takes, with the report.
pub fn apply_fresh(store: &Store, plan: &Plan, opts: ApplyOptions, label: &str, cache: bool) -> Result<(String, ApplyOutcome)> {
    let (id, report) = {
        let locked = store.lock()?;
        let opts = ApplyOptions { trust_plan: true, ..opts };
        let what = apply::Journalled { id: locked.fresh_id()?, label: label.to_string() };
        let report = apply::apply_plan(plan, &opts, Some((&locked, &what)))?;
        (what.id, report)
    };
    if cache && let Some(written) = written_by(plan, &report) {
        cache_written(store.dir(), &written);
    }
    Ok((id, report))
}

/// The files of `plan` that the apply of `report` wrote, to store
/// ([`cache_written`]); `None` when there are none, or the plan is not a rule
/// scan's.
pub(crate) fn written_by(plan: &Plan, report: &ApplyOutcome) -> Option<Written> {
    Written::of(plan, report.files.iter().filter(|f| f.status == FileStatus::Applied).map(|f| f.path.as_str()))
}

/// Stores in the scan cache of `state_dir` the rewrites that the rules of
/// `written` make of its files as they are now (`plan/warm.rs`), so the next
/// preview of those rules does not parse them again. Call it with the store
/// unlocked; nothing in it can fail the write that came before.
pub fn cache_written(state_dir: &std::path::Path, written: &Written) {
    let cache = ScanCache::open(state_dir, &written.request);
    warm(written, &cache);
    cache.finish();
}
